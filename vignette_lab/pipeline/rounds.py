"""Annotation rounds and the one writer of ``ds.annotation``.

Seed 003's principle, applied to labels (DESIGN rule 5): AI output is only ever *proposed*;
a human confirms. :func:`save_annotation` refuses any AI write whose status is not
``proposed``, and the database refuses it a second time (CHECK ``ai_only_proposed`` on both
backends). Annotations are append-only: a correction is a new row whose ``supersedes`` names
the row it replaces, so every transition stays auditable.
"""

from __future__ import annotations

import contextlib
import functools
import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

from vignette_lab.core.pii import gate_text
from vignette_lab.errors import InputError, PermissionDenied

__all__ = [
    "ANNOTATION_STATUSES",
    "APPROPRIATENESS",
    "ROUND_KINDS",
    "SCORE_MAX",
    "TaxonomyInfo",
    "close_round",
    "create_round",
    "effective_annotations",
    "get_round",
    "save_annotation",
    "taxonomy_info",
]

ROUND_KINDS = ("ai_auto", "human_review", "adjudication")
ANNOTATION_STATUSES = ("proposed", "submitted", "accepted", "rejected", "superseded")
APPROPRIATENESS = ("pos", "warn", "neutral")
SCORE_MAX = 5


_F = TypeVar("_F", bound=Callable[..., Any])


@contextlib.contextmanager
def _held(db: Any) -> Iterator[None]:
    """Keep a DuckDB file open across many statements (``db.pinned()``; no-op elsewhere).

    The DuckDB store reopens its file per statement so several processes can share it; a
    function issuing many statements would pay that cost each time.
    """
    pinned = getattr(db, "pinned", None)
    if callable(pinned):
        with pinned():
            yield
    else:
        yield


def _pinned(func: _F) -> _F:
    """Run ``func(db, ...)`` with the database held open (see :func:`_held`)."""
    @functools.wraps(func)
    def wrapper(db: Any, *args: Any, **kwargs: Any) -> Any:
        with _held(db):
            return func(db, *args, **kwargs)
    return wrapper  # type: ignore[return-value]


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _new_id() -> str:
    return str(uuid.uuid4())


def _json(value: Any) -> Any:
    """Decode a JSON column whether the backend already decoded it or not."""
    if isinstance(value, (str, bytes)):
        return json.loads(value)
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class TaxonomyInfo:
    """The parts of the label taxonomy the pipeline needs.

    Attributes
    ----------
    version : str
    techniques : tuple of str
        Technique label ids, in taxonomy order.
    client_states : tuple of str
    score_dimensions : tuple of str
        Names of the 0–5 dimension scores.
    guidelines, state_guidelines : dict
        Technique / client-state code -> Korean definition shown to reviewers.
    names : dict
        Technique, score-dimension and appropriateness code -> Korean label.
    state_names : dict
        Client-state code -> Korean label (kept apart: ``self_disclosure`` is on both axes).
    general : tuple of str
        General annotation guidelines (Korean).
    """

    version: str
    techniques: tuple[str, ...]
    client_states: tuple[str, ...]
    score_dimensions: tuple[str, ...]
    guidelines: dict[str, str]
    state_guidelines: dict[str, str]
    names: dict[str, str]
    state_names: dict[str, str]
    general: tuple[str, ...]


_TAXONOMY_CACHE: dict[str, TaxonomyInfo] = {}


def taxonomy_info() -> TaxonomyInfo:
    """The label sets of the default taxonomy (``datasets/taxonomy.json``), loaded once."""
    if "t" not in _TAXONOMY_CACHE:
        from vignette_lab.core.taxonomy import load_taxonomy

        tax = load_taxonomy()
        _TAXONOMY_CACHE["t"] = TaxonomyInfo(
            version=tax.version,
            techniques=tax.technique_codes(),
            client_states=tax.client_state_codes(),
            score_dimensions=tax.score_dimension_codes(),
            guidelines={t.code: t.definition for t in tax.techniques},
            state_guidelines={c.code: c.definition for c in tax.client_states},
            names={**{t.code: t.label for t in tax.techniques},
                   **{d.code: d.label for d in tax.score_dimensions},
                   **{a.code: a.label for a in tax.appropriateness}},
            state_names={c.code: c.label for c in tax.client_states},
            general=tuple(tax.guidelines.get("general", ())),
        )
    return _TAXONOMY_CACHE["t"]


@_pinned
def create_round(db: Any, dataset_id: str, kind: str, *, engine: str | None = None,
                 model: str | None = None, taxonomy_version: str | None = None,
                 **config: Any) -> str:
    """Open an annotation round over one data set.

    Parameters
    ----------
    db : Database
    dataset_id : str
    kind : {'ai_auto', 'human_review', 'adjudication'}
        ``ai_auto`` rounds are written by an AI annotator (always ``proposed``); the others
        by humans.
    engine, model : str, optional
        Recorded for AI rounds (``"scripted"``, ``"anthropic"``, ``"classifier:<path>"``).
    taxonomy_version : str, optional
        Defaults to the loaded taxonomy's version.
    **config
        Free-form settings kept in ``config`` JSON (seed, blind, guidelines version, …).

    Returns
    -------
    str
        The new ``round_id``.
    """
    if kind not in ROUND_KINDS:
        raise InputError(f"round kind must be one of {', '.join(ROUND_KINDS)}; got {kind!r}",
                         field="kind")
    if db.scalar("SELECT count(*) FROM ds.dataset WHERE dataset_id = ?", [dataset_id]) == 0:
        raise InputError(f"unknown dataset {dataset_id!r}", field="dataset_id")
    round_id = _new_id()
    db.execute(
        "INSERT INTO ds.annotation_round (round_id, dataset_id, kind, annotator_kind, engine, model,"
        " taxonomy_version, status, config, created_at)"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, 'open', {db.dialect.json_param()}, ?)",
        [round_id, dataset_id, kind, "ai" if kind == "ai_auto" else "human", engine, model,
         taxonomy_version or taxonomy_info().version, _dumps(config), _now()],
    )
    return round_id


def get_round(db: Any, round_id: str) -> dict[str, Any]:
    """Return the ``ds.annotation_round`` row (``config`` decoded) or raise ``InputError``."""
    row = db.fetchone("SELECT * FROM ds.annotation_round WHERE round_id = ?", [round_id])
    if row is None:
        raise InputError(f"unknown round {round_id!r}", field="round_id")
    row["config"] = _json(row.get("config")) or {}
    return row


def close_round(db: Any, round_id: str) -> None:
    """Mark a round closed (no more annotations expected)."""
    get_round(db, round_id)
    db.execute("UPDATE ds.annotation_round SET status = 'closed', closed_at = ? WHERE round_id = ?",
               [_now(), round_id])


def _clean_labels(values: Iterable[str] | None, allowed: Sequence[str], field: str) -> list[str]:
    out: list[str] = []
    for v in values or []:
        if not isinstance(v, str):
            raise InputError(f"labels must be strings; got {v!r}", field=field)
        if allowed and v not in allowed:
            raise InputError(f"unknown label {v!r} (not in taxonomy)", field=field)
        if v not in out:
            out.append(v)
    return out


def _clean_scores(scores: Mapping[str, Any] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in (scores or {}).items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError(f"score must be a number 0–{SCORE_MAX}; got {v!r}", field=f"scores.{k}")
        if not 0 <= v <= SCORE_MAX:
            raise InputError(f"score must be within 0–{SCORE_MAX}; got {v}", field=f"scores.{k}")
        out[str(k)] = float(v)
    return out


@_pinned
def save_annotation(db: Any, round_id: str, item_id: str, annotator_id: str, *,
                    annotator_kind: str, status: str | None = None,
                    techniques: Iterable[str] = (), client_state: Iterable[str] = (),
                    appropriateness: str | None = None,
                    intent_deviation: Mapping[str, Any] | None = None,
                    scores: Mapping[str, Any] | None = None, rationale: str | None = None,
                    time_spent_s: float | None = None, supersedes: str | None = None) -> str:
    """Append one annotation row (the only writer of ``ds.annotation``).

    Parameters
    ----------
    db : Database
    round_id, item_id, annotator_id : str
    annotator_kind : {'ai', 'human'}
    status : str, default=None
        ``None`` means ``'proposed'`` for AI and ``'submitted'`` for humans. An AI annotator
        may only write ``'proposed'``.
    techniques, client_state : iterable of str
        Label ids from the taxonomy; unknown ids raise ``InputError``.
    appropriateness : {'pos', 'warn', 'neutral'}, optional
    intent_deviation : dict, optional
        ``{dimension, expected, actual, severity}``.
    scores : dict, optional
        Dimension -> 0–5.
    rationale : str, optional
    time_spent_s : float, optional
    supersedes : str, optional
        ``annotation_id`` this row corrects (same round, item and annotator).

    Returns
    -------
    str
        The new ``annotation_id``.

    Raises
    ------
    PermissionDenied
        An AI annotator tried to write anything but ``proposed``.
    InputError
        Unknown label, score out of range, unknown round/item.
    """
    if annotator_kind not in ("ai", "human"):
        raise InputError(f"annotator_kind must be 'ai' or 'human'; got {annotator_kind!r}",
                         field="annotator_kind")
    if status is None:
        status = "proposed" if annotator_kind == "ai" else "submitted"
    if status not in ANNOTATION_STATUSES:
        raise InputError(f"status must be one of {', '.join(ANNOTATION_STATUSES)}; got {status!r}",
                         field="status")
    if annotator_kind == "ai" and status != "proposed":
        raise PermissionDenied(
            f"an AI annotator may only propose; refused status {status!r} for {annotator_id!r}")
    if appropriateness is not None and appropriateness not in APPROPRIATENESS:
        raise InputError(f"appropriateness must be pos, warn or neutral; got {appropriateness!r}",
                         field="appropriateness")
    tax = taxonomy_info()
    techniques = _clean_labels(techniques, tax.techniques, "techniques")
    client_state = _clean_labels(client_state, tax.client_states, "client_state")
    clean_scores = _clean_scores(scores)
    rnd = get_round(db, round_id)
    if annotator_kind == "ai" and rnd["annotator_kind"] != "ai":
        raise PermissionDenied(f"round {round_id} is a {rnd['kind']} round; AI rows go to ai_auto rounds")
    annotation_id = _new_id()
    db.execute(
        "INSERT INTO ds.annotation (annotation_id, round_id, item_id, annotator_id, annotator_kind,"
        " status, techniques, client_state, appropriateness, intent_deviation, scores, rationale,"
        " time_spent_s, supersedes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
        f" {db.dialect.json_param()}, {db.dialect.json_param()}, ?, ?, ?, ?)",
        [annotation_id, round_id, item_id, annotator_id, annotator_kind, status, techniques,
         client_state, appropriateness,
         None if intent_deviation is None else _dumps(dict(intent_deviation)),
         _dumps(clean_scores), gate_text(rationale), time_spent_s, supersedes, _now()],
    )
    return annotation_id


def effective_annotations(db: Any, round_id: str, *, annotator_kind: str | None = None,
                          item_id: str | None = None) -> list[dict[str, Any]]:
    """Current annotations of a round: every row no later row supersedes.

    Rows are ordered by item, then annotator, so callers get stable rater "slots".
    ``annotator_kind`` and ``item_id`` narrow the result.
    """
    sql = ("SELECT a.* FROM ds.annotation a WHERE a.round_id = ? AND NOT EXISTS ("
           " SELECT 1 FROM ds.annotation b WHERE b.supersedes = a.annotation_id)")
    params: list[Any] = [round_id]
    if annotator_kind:
        sql += " AND a.annotator_kind = ?"
        params.append(annotator_kind)
    if item_id:
        sql += " AND a.item_id = ?"
        params.append(item_id)
    rows = db.fetchall(sql + " ORDER BY a.item_id, a.annotator_id, a.created_at", params)
    for r in rows:
        r["intent_deviation"] = _json(r.get("intent_deviation"))
        r["scores"] = _json(r.get("scores")) or {}
        r["techniques"] = list(r.get("techniques") or [])
        r["client_state"] = list(r.get("client_state") or [])
    return rows
