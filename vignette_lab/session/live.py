"""In-process working memory of an active session, rebuilt from the database on demand.

One copy of the state-rebuild logic (:func:`rebuild_state`), used both when a session is
loaded for a turn and when only its progress is read.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

from vignette_lab.core.state import SessionState
from vignette_lab.errors import SessionError
from vignette_lab.session import memory
from vignette_lab.session.context import client_names, client_view, kb_cues, persona_for_row
from vignette_lab.session.layers import RecallContext
from vignette_lab.store import app_repo

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine
    from vignette_lab.store.base import Database

__all__ = ["Live", "LiveCache", "load_live", "rebuild_state"]


class LiveCache:
    """Thread-safe ``session_id -> Live`` with one lock per session (no lock across sessions).

    A service serving many trainees keeps their sessions here: a turn holds only its own
    session's lock (engine call included), so trainee B's turn never waits for trainee A's.
    """

    #: rows of just-started sessions kept for their first load (:meth:`keep_row`)
    KEPT_ROWS = 64

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._live: dict[str, "Live"] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._rows: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

    def lock(self, session_id: str) -> threading.RLock:
        """The lock of one session (its turns, coach cards and end run one at a time)."""
        with self._guard:
            return self._locks.setdefault(session_id, threading.RLock())

    def __getitem__(self, session_id: str) -> "Live":
        with self._guard:
            return self._live[session_id]

    def get(self, session_id: str) -> "Live | None":
        with self._guard:
            return self._live.get(session_id)

    def put(self, session_id: str, live: "Live") -> None:
        with self._guard:
            self._live[session_id] = live

    def forget(self, session_id: str) -> None:
        with self._guard:
            self._live.pop(session_id, None)
            self._rows.pop(session_id, None)

    def keep_row(self, session_id: str, row: dict[str, Any], card: dict[str, Any]) -> None:
        """Keep the row a session's start just read back and the card it pinned, for its first
        load (:func:`load_live` with ``started_card``: neither is read again, nor the turns it has not got).

        Bounded: beyond :attr:`KEPT_ROWS` sessions started and not yet used, the oldest is dropped
        (its first load then reads everything, as before).
        """
        with self._guard:
            if len(self._rows) >= self.KEPT_ROWS:
                self._rows.pop(next(iter(self._rows)))
            self._rows[session_id] = (row, card)

    def take_row(self, session_id: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """``(row, card)`` kept by :meth:`keep_row` (once), or None."""
        with self._guard:
            return self._rows.pop(session_id, None)


@dataclass
class Live:
    """Working memory of one active session.

    ``kb_cues_source`` makes the client prompt's KB cue lines (:func:`kb_cues`, a masked query and
    one KB search); :attr:`kb_cues` calls it the first time a turn needs them, so ``end`` and
    ``review`` of a one-shot CLI call never pay for a search they do not use.
    """

    row: dict[str, Any]
    card_view: dict[str, Any]
    state: SessionState
    start_state: SessionState
    recall: RecallContext
    pinned: list[str]
    kb_cues_source: Callable[[], list[str]] = field(repr=False)
    history: list[tuple[str, str]]
    credits: int
    client_names: tuple[str, ...]
    # The client disclosed passive ideation in this case: it is never flatly denied again.
    ideation_disclosed: bool = False
    # Turns staged but not yet written (``session.turns.deferred``: self-play); None = write each turn.
    pending: Any = None
    # A write found the stored session ended or moved on elsewhere: reload before the next use.
    stale: bool = False
    _kb_cues: list[str] | None = field(default=None, repr=False)

    @property
    def kb_cues(self) -> list[str]:
        """The client prompt's KB cue lines, made on first use and kept."""
        if self._kb_cues is None:
            self._kb_cues = list(self.kb_cues_source())
        return self._kb_cues


def stored_state(db: Database, row: dict[str, Any]) -> tuple[SessionState, int]:
    """A session's state and coach credits rebuilt from the database (no in-process copy)."""
    cp = app_repo.get_session_state(db, row["session_id"])
    if cp is None:
        raise SessionError(f"session {row['session_id']} has no checkpoint row", code="session_not_found")
    return rebuild_state(row, cp, app_repo.list_turns(db, row["session_id"])), int(cp.get("coach_credits") or 0)


def rebuild_state(row: dict[str, Any], checkpoint: dict[str, Any], turns: Sequence[dict[str, Any]]) -> SessionState:
    """The session's current state: the checkpoint over the last stored snapshot (or the initial one)."""
    snapshot = (row.get("meta") or {}).get("initial_state")
    for t in reversed(turns):
        if t.get("state_after"):
            snapshot = t["state_after"]
            break
    assert snapshot is not None  # a session stores its initial state in meta when it opens
    return memory.restore_state(checkpoint, snapshot)


def load_live(db: Database, row: dict[str, Any], *, embedder: Any, engine: Engine,
              started_card: dict[str, Any] | None = None) -> Live:
    """Rebuild a session's working memory from its stored row, checkpoint and turns.

    ``started_card`` (the card ``start`` pinned moments ago, with the row it read back) marks a
    session this process just opened: its card is that one (not read again), and while its
    checkpoint still says no turn was taken, it has no turns to read either (one taken meanwhile
    by another process moves the checkpoint, and the turns are then read as before).

    Raises
    ------
    SessionError
        The session has no checkpoint.
    """
    session_id = row["session_id"]
    card = started_card if started_card is not None else persona_for_row(db, row)[0]
    cp = app_repo.get_session_state(db, session_id)
    if cp is None:
        raise SessionError(f"session {session_id} has no checkpoint", code="session_corrupt")
    fresh = started_card is not None and int(cp.get("turn_seq") or 0) == 0
    turns = [] if fresh else app_repo.list_turns(db, session_id)
    state = rebuild_state(row, cp, turns)
    stage = state.stage  # the stage of this load, as before; the search runs when the first turn needs the cues

    def cues() -> list[str]:
        return kb_cues(db, embedder, card, stage, engine=engine)

    return Live(row=row, card_view=client_view(card), state=state,
                start_state=SessionState.from_snapshot((row.get("meta") or {})["initial_state"]),
                recall=RecallContext.from_dict(cp.get("recall_context")),
                pinned=memory.pinned_for_client(db, row["case_id"]),
                kb_cues_source=cues,
                # the client's own history: only rows the client view may see
                history=[(t["speaker"], t["text_masked"]) for t in turns if "client" in (t.get("visible_to") or ())],
                credits=int(cp.get("coach_credits") or 0), client_names=client_names(card),
                ideation_disclosed=app_repo.case_ideation_disclosed(db, row["case_id"]))
