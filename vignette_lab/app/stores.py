"""Data stores of the Panel pages (Panel's data-store pattern: a store owns data, views render).

Each page takes the store it needs instead of a raw database: the store answers the page's
questions through the repositories (:mod:`vignette_lab.store`) and the pipeline/session
functions, so a page holds no query and no database handle. ``serve.py`` builds one store
per page from the app's database.

Examples
--------
>>> from vignette_lab.store import connect, init_db
>>> db = connect(":memory:"); _ = init_db(db)
>>> ReviewStore(db).human_rounds("nobody")
[]
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vignette_lab.pipeline.adjudicate import disagreements
from vignette_lab.pipeline.datasets import dataset_items
from vignette_lab.pipeline.field_gate import run_gate
from vignette_lab.pipeline.gate import get_gate
from vignette_lab.pipeline.report import write_gate_report
from vignette_lab.pipeline.review import ReviewQueue, masked_html
from vignette_lab.pipeline.rounds import effective_annotations, get_round
from vignette_lab.pipeline.schemes import dataset_scheme
from vignette_lab.session.selfplay import run_selfplay
from vignette_lab.store import app_repo, ds_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["AgreementStore", "ReviewStore", "SelfPlayStore", "human_rounds_for", "latest_gate", "masked_html"]


def human_rounds_for(db: Database, reviewer_id: str | None = None) -> list[dict[str, Any]]:
    """``human_review`` rounds (newest first), only those assigning ``reviewer_id`` when given."""
    return ds_repo.human_rounds(db, reviewer_id)


def latest_gate(db: Database, round_id: str) -> dict[str, Any] | None:
    """The newest stored gate decision of a round (JSON decoded), or None."""
    gate_id = ds_repo.latest_gate_id(db, round_id)
    return None if gate_id is None else get_gate(db, gate_id)


class ReviewStore:
    """What the review page reads and writes: the reviewer's rounds and their queues.

    Parameters
    ----------
    db : Database
    """

    def __init__(self, db: Database):
        self._db = db

    def human_rounds(self, reviewer_id: str | None = None) -> list[dict[str, Any]]:
        """Human-review rounds, only those assigning ``reviewer_id`` when given."""
        return human_rounds_for(self._db, reviewer_id)

    def queue(self, round_id: str, reviewer_id: str, *, blind: bool = False) -> ReviewQueue:
        """The reviewer's queue in ``round_id`` (its ``submit`` writes one annotation atomically)."""
        return ReviewQueue(self._db, round_id, reviewer_id, blind=blind)


class AgreementStore(ReviewStore):
    """What the agreement page reads and writes: rounds, coders' labels, gate decisions, reports."""

    def latest_gate(self, round_id: str) -> dict[str, Any] | None:
        """The newest stored gate decision of the round, or None."""
        return latest_gate(self._db, round_id)

    def gate(self, round_id: str, *, rule: str, store: bool, override_reason: str | None = None,
             decided_by: str = "local", n_boot: int = 300) -> dict[str, Any]:
        """Measure the round and decide the gate per field (stored only when ``store``)."""
        return run_gate(self._db, round_id, rule=rule, override_reason=override_reason, decided_by=decided_by,
                        n_boot=n_boot, store=store)

    def round(self, round_id: str) -> dict[str, Any]:
        """The round row."""
        return get_round(self._db, round_id)

    def scheme(self, round_id: str) -> Any:
        """The label scheme the round's data set is coded with."""
        return dataset_scheme(self._db, self.round(round_id)["dataset_id"])

    def items(self, dataset_id: str) -> list[dict[str, Any]]:
        """Items of a data set."""
        return dataset_items(self._db, dataset_id)

    def human_annotations(self, round_id: str) -> list[dict[str, Any]]:
        """Effective (latest, not superseded) human annotations of the round."""
        return effective_annotations(self._db, round_id, annotator_kind="human")

    def disagreements(self, round_id: str) -> list[dict[str, Any]]:
        """Disagreeing items of the round, resolved ones included."""
        return disagreements(self._db, round_id, include_resolved=True)

    def write_report(self, gate_id: str, out_dir: str | Path) -> Path:
        """Write the gate report HTML and return its path."""
        return Path(write_gate_report(self._db, gate_id, out_dir))


class SelfPlayStore:
    """What the self-play page reads and runs: stored self-play sessions, their turns, new batches.

    Parameters
    ----------
    db : Database
    """

    def __init__(self, db: Database):
        self._db = db

    def sessions(self) -> list[dict[str, Any]]:
        """Stored self-play sessions (any order)."""
        return app_repo.list_sessions(self._db, mode="selfplay")

    def session(self, session_id: str) -> dict[str, Any] | None:
        """One session row, or None."""
        return app_repo.get_session(self._db, session_id)

    def turns(self, session_id: str) -> list[dict[str, Any]]:
        """The session's turns in order."""
        return app_repo.list_turns(self._db, session_id)

    def run(self, persona_code: str, **options: Any) -> Any:
        """One self-play batch for one persona (:func:`~vignette_lab.session.selfplay.run_selfplay`)."""
        return run_selfplay(self._db, personas=(persona_code,), **options)

    @contextlib.contextmanager
    def batch(self) -> Iterator["SelfPlayStore"]:
        """A store on its own database handle for one long batch (closed afterwards)."""
        db = self._db.clone() if hasattr(self._db, "clone") else self._db
        try:
            yield SelfPlayStore(db)
        finally:
            if db is not self._db:
                db.close()
