"""Annotation rounds and the one writer of ``ds.annotation``.

Seed 003's principle, applied to labels (DESIGN rule 5): AI output is only ever *proposed*;
a human confirms. :func:`save_annotation` refuses any AI write whose status is not
``proposed``, and the database refuses it a second time (CHECK ``ai_only_proposed`` on both
backends). Annotations are append-only: a correction is a new row whose ``supersedes`` names
the row it replaces, so every transition stays auditable.

An annotation is one of two typed records: :class:`AIProposal` (its status is always
:attr:`AnnotationStatus.PROPOSED`, it cannot be built otherwise) and :class:`HumanReview`.
Both carry ``labels`` — ``{field: value}`` for the fields of the data set's label scheme
(:mod:`vignette_lab.core.scheme`) — which :func:`write_annotations` validates and stores in
``ds.annotation.labels``; for the default scheme the legacy columns (``techniques``,
``client_state``, ``appropriateness``, ``scores``) are filled too. The SQL is in
:mod:`vignette_lab.store.ds_repo`.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import json
import math
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar

from vignette_lab.core.pii import gate_text
from vignette_lab.errors import InputError, PermissionDenied, WriteConflict
from vignette_lab.store import Database, ds_repo
from vignette_lab.core.scheme import default_scheme
from vignette_lab.core.taxonomy import load_taxonomy
from vignette_lab.pipeline.schemes import dataset_scheme

__all__ = [
    "AIProposal",
    "ANNOTATION_STATUSES",
    "AnnotationStatus",
    "HumanReview",
    "annotation_rows",
    "check_required",
    "labels_of",
    "validate_labels",
    "write_annotation",
    "write_annotations",
    "APPROPRIATENESS",
    "ROUND_KINDS",
    "SCORE_MAX",
    "TaxonomyInfo",
    "close_round",
    "create_round",
    "effective_annotations",
    "get_round",
    "is_simulated_round",
    "save_annotation",
    "taxonomy_info",
]

ROUND_KINDS = ("ai_auto", "human_review", "adjudication")
ANNOTATION_STATUSES = ("proposed", "submitted", "accepted", "rejected", "superseded")
APPROPRIATENESS = ("pos", "warn", "neutral")
SCORE_MAX = 5
SAVE_ATTEMPTS = 5  # tries of one annotation save that keeps losing a race (then refused)


_F = TypeVar("_F", bound=Callable[..., Any])


@contextlib.contextmanager
def _held(db: Database) -> Iterator[None]:
    """Keep a DuckDB file open across many statements (``db.pinned()``; no-op elsewhere).

    The DuckDB store reopens its file per statement so several processes can share it; a
    function issuing many statements would pay that cost each time.
    """
    with db.pinned():
        yield


def _pinned(func: _F) -> _F:
    """Run ``func(db, ...)`` with the database held open (see :func:`_held`)."""
    @functools.wraps(func)
    def wrapper(db: Database, *args: Any, **kwargs: Any) -> Any:
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
def create_round(db: Database, dataset_id: str, kind: str, *, engine: str | None = None,
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
        Free-form settings kept in ``config`` JSON (seed, blind, guidelines version, name …).

    Returns
    -------
    str
        The new ``round_id``.
    """
    if kind not in ROUND_KINDS:
        raise InputError(f"round kind must be one of {', '.join(ROUND_KINDS)}; got {kind!r}",
                         field="kind")
    if not ds_repo.dataset_exists(db, dataset_id):
        raise InputError(f"unknown dataset {dataset_id!r}", field="dataset_id")
    round_id = _new_id()
    ds_repo.insert_round(db, round_id=round_id, dataset_id=dataset_id, kind=kind,
                         annotator_kind="ai" if kind == "ai_auto" else "human", engine=engine,
                         model=model, taxonomy_version=taxonomy_version or taxonomy_info().version,
                         config=config, created_at=_now())
    return round_id


def get_round(db: Database, round_id: str) -> dict[str, Any]:
    """Return the ``ds.annotation_round`` row (``config`` decoded) or raise ``InputError``."""
    row = ds_repo.round_row(db, round_id)
    if row is None:
        raise InputError(f"unknown round {round_id!r}", field="round_id")
    return row


#: Reviewer / adjudicator ids of simulated people start with this (``pipeline.demo``: ``sim-reviewer-1``).
SIMULATED_PREFIX = "sim-"


def is_simulated_round(db: Database, round_id: str) -> bool:
    """Whether a round's labels came (partly) from simulated people: the one rule every report,
    data card and page uses for the "시뮬레이션 검토자" warning.

    True when the round was created with ``simulated=True`` or any of its human-kind
    annotations comes from an id starting with :data:`SIMULATED_PREFIX` (``sim-reviewer-*``,
    ``sim-adjudicator``).
    """
    if bool((get_round(db, round_id).get("config") or {}).get("simulated")):
        return True
    return any(str(a["annotator_id"]).startswith(SIMULATED_PREFIX)
               for a in ds_repo.effective_annotations(db, round_id, annotator_kind="human"))


def close_round(db: Database, round_id: str) -> None:
    """Mark a round closed (no more annotations expected)."""
    get_round(db, round_id)
    ds_repo.close_round(db, round_id, _now())


# --------------------------------------------------------------------------- typed records
class AnnotationStatus(str, enum.Enum):
    """Status of an annotation row (``ds.annotation.status``)."""

    PROPOSED = "proposed"
    SUBMITTED = "submitted"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    SUPERSEDED = "superseded"


@dataclass(frozen=True, kw_only=True)
class AIProposal:
    """An AI annotator's labels for one item; always ``proposed`` (DESIGN rule 5).

    Attributes
    ----------
    round_id, item_id, annotator_id : str
        ``annotator_id`` is ``ai:<engine>[:<model>]``; the round must be ``ai_auto``.
    labels : dict
        ``{field: value}`` of the data set's scheme (multi fields: a list of codes; score
        fields: a number).
    rationale : str, optional
    intent_deviation : dict, optional
    created_at : datetime, optional
        Defaults to now (imports keep the file's time).
    """

    round_id: str
    item_id: str
    annotator_id: str
    labels: Mapping[str, Any] = field(default_factory=dict)
    rationale: str | None = None
    intent_deviation: Mapping[str, Any] | None = None
    created_at: datetime | None = None

    @property
    def status(self) -> AnnotationStatus:
        return AnnotationStatus.PROPOSED

    annotator_kind = "ai"


@dataclass(frozen=True, kw_only=True)
class HumanReview:
    """A human reviewer's labels for one item.

    Attributes
    ----------
    round_id, item_id, annotator_id : str
    labels : dict
        ``{field: value}`` of the data set's scheme.
    status : AnnotationStatus, default=SUBMITTED
    rationale, intent_deviation, time_spent_s
    supersedes : str, optional
        ``annotation_id`` this row corrects (same round, item and reviewer).
    created_at : datetime, optional
    """

    round_id: str
    item_id: str
    annotator_id: str
    labels: Mapping[str, Any] = field(default_factory=dict)
    status: AnnotationStatus = AnnotationStatus.SUBMITTED
    rationale: str | None = None
    intent_deviation: Mapping[str, Any] | None = None
    time_spent_s: float | None = None
    supersedes: str | None = None
    created_at: datetime | None = None

    annotator_kind = "human"

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "status", AnnotationStatus(self.status))
        except ValueError:
            raise InputError(f"status must be one of {', '.join(ANNOTATION_STATUSES)};"
                             f" got {self.status!r}", field="status") from None


def _scheme_of_round(db: Database, rnd: Mapping[str, Any]) -> Any:

    return dataset_scheme(db, rnd["dataset_id"])


def validate_labels(scheme: Any, labels: Mapping[str, Any], *, speaker: str | None = None,
                    source: str | None = None, line: int | None = None) -> dict[str, Any]:
    """Check ``{field: value}`` against a scheme and return the cleaned copy.

    Single/ordinal values must be a category code; multi values a list of codes
    (duplicates dropped, scheme order kept); score values a number within the field's range.
    ``None`` values are dropped (missing). With ``speaker``, every field must apply to it.

    Raises
    ------
    InputError
        Unknown field or code, wrong type, out-of-range score (field named).
    """
    if not isinstance(labels, Mapping):
        raise InputError("labels must be an object {field: value}", source=source, line=line,
                         field="labels")
    out: dict[str, Any] = {}
    for name, value in labels.items():
        try:
            f = scheme.field(name)
        except KeyError:
            raise InputError(f"unknown field {name!r} (scheme {scheme.name} v{scheme.version} has"
                             f" {', '.join(scheme.field_names())})", source=source, line=line,
                             field=str(name)) from None
        if value is None:
            continue
        if speaker is not None and speaker not in f.applies_to:
            raise InputError(f"field {name!r} applies to {'/'.join(f.applies_to)} utterances,"
                             f" not {speaker}", source=source, line=line, field=name)
        codes = f.codes()
        if f.kind == "score":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value):
                raise InputError(f"score must be a number; got {value!r}", source=source,
                                 line=line, field=name)
            lo, hi = f.range
            if not lo <= value <= hi:
                raise InputError(f"score must be within {lo:g}–{hi:g}; got {value}",
                                 source=source, line=line, field=name)
            out[name] = float(value)
        elif f.kind == "multi":
            if isinstance(value, str) or not isinstance(value, (list, tuple, set, frozenset)):
                raise InputError(f"a multi field takes a list of codes; got {value!r}",
                                 source=source, line=line, field=name)
            got = set()
            for v in value:
                if not isinstance(v, str) or v not in codes:
                    raise InputError(f"unknown label {v!r} (not in the scheme's {name} categories)",
                                     source=source, line=line, field=name)
                got.add(v)
            out[name] = [c for c in codes if c in got]
        else:
            if not isinstance(value, str) or value not in codes:
                raise InputError(f"unknown category {value!r} (allowed: {', '.join(codes)})",
                                 source=source, line=line, field=name)
            out[name] = value
    return out


def check_required(scheme: Any, labels: Mapping[str, Any], *, speaker: str,
                   source: str | None = None) -> None:
    """Refuse a human label of a ``speaker`` item that leaves a ``"required": true`` field unset.

    The review page and the notebook widget refuse the same way before they save; both writers
    of ``ds.annotation`` (:func:`write_annotations`, through which every save passes, and the
    annotation import) call this check, as does :func:`annotation_rows` when given speakers.

    Raises
    ------
    InputError
        One line naming the first unset required field (Korean label and field name).
    """
    for f in scheme.fields_for(speaker):
        if f.required and labels.get(f.name) in (None, [], ()):
            raise InputError(f"필수 항목을 입력하세요: {f.label_ko or f.name} (required field {f.name!r} is unset"
                             f" for a {speaker} utterance)", source=source, field=f.name)


def labels_of(row: Mapping[str, Any], scheme: Any = None) -> dict[str, Any]:
    """``{field: value}`` of a stored annotation row (legacy rows: from the old columns)."""
    labels = row.get("labels")
    if isinstance(labels, (str, bytes)):
        labels = json.loads(labels)
    if labels is not None:
        return dict(labels)
    out: dict[str, Any] = {"techniques": list(row.get("techniques") or []),
                           "client_state": list(row.get("client_state") or [])}
    if row.get("appropriateness") is not None:
        out["appropriateness"] = row["appropriateness"]
    out.update({k: float(v) for k, v in (_json(row.get("scores")) or {}).items() if v is not None})
    return out


def _legacy_columns(scheme: Any, labels: Mapping[str, Any]) -> dict[str, Any]:
    """Old columns of the default scheme (empty arrays for other schemes)."""

    if scheme.name != default_scheme().name:
        return {"techniques": [], "client_state": [], "appropriateness": None, "scores": {}}
    scores = {f.name: labels[f.name] for f in scheme.fields
              if f.kind == "score" and f.name in labels}
    return {"techniques": list(labels.get("techniques", [])),
            "client_state": list(labels.get("client_state", [])),
            "appropriateness": labels.get("appropriateness"), "scores": scores}


def annotation_rows(records: Sequence[AIProposal | HumanReview], *, scheme: Any,
                    round_kind: Mapping[str, str], speakers: Mapping[str, str] | None = None,
                    source: str | None = None) -> list[dict[str, Any]]:
    """Validate records (pure; no database) and return ``ds.annotation`` rows.

    Parameters
    ----------
    records : sequence of AIProposal or HumanReview
    scheme : Scheme
    round_kind : dict
        ``round_id -> annotator_kind`` of the rounds written to.
    speakers : dict, optional
        ``item_id -> speaker``; when given, fields must apply to the item's speaker and a human
        record must set every field the scheme marks ``"required": true`` for that speaker.
    source : str, optional
        File the records come from (named in errors).

    Raises
    ------
    PermissionDenied
        An AI record aimed at a human round (or a human record at an AI round).
    InputError
        Bad labels, or a human record without a required field.
    """
    now = _now()
    out = []
    for rec in records:
        if not isinstance(rec, (AIProposal, HumanReview)):
            raise InputError(f"expected AIProposal or HumanReview; got {type(rec).__name__}",
                             field="record")
        kind = rec.annotator_kind
        if rec.round_id not in round_kind:
            raise InputError(f"unknown round {rec.round_id!r}", field="round_id")
        if round_kind[rec.round_id] != kind:
            raise PermissionDenied(
                f"round {rec.round_id} takes {round_kind[rec.round_id]} annotations; refused a"
                f" {kind} annotation by {rec.annotator_id!r}"
                + (" (AI rows go to ai_auto rounds)" if kind == "ai" else ""))
        if not isinstance(rec.annotator_id, str) or not rec.annotator_id.strip():
            raise InputError("annotator id must be a non-empty string", field="annotator")
        speaker = speakers.get(rec.item_id) if speakers is not None else None
        labels = validate_labels(scheme, rec.labels, speaker=speaker, source=source)
        if kind == "human" and speaker is not None:
            check_required(scheme, labels, speaker=speaker, source=source)
        row = {"annotation_id": _new_id(), "round_id": rec.round_id, "item_id": rec.item_id,
               "annotator_id": rec.annotator_id, "annotator_kind": kind,
               "status": rec.status.value, "labels": labels,
               "intent_deviation": None if rec.intent_deviation is None else dict(rec.intent_deviation),
               "rationale": gate_text(rec.rationale), "time_spent_s": getattr(rec, "time_spent_s", None),
               "supersedes": getattr(rec, "supersedes", None), "created_at": rec.created_at or now}
        row.update(_legacy_columns(scheme, labels))
        out.append(row)
    return out


@_pinned
def write_annotations(db: Database, records: Sequence[AIProposal | HumanReview]) -> list[str]:
    """Validate and append annotation records in one transaction; returns their ids.

    The only writer of ``ds.annotation``. AI records are always ``proposed`` (the record type
    cannot say otherwise and the database CHECK refuses it again). Each record becomes the
    next version of its (round, item, annotator) and supersedes that triple's current row; the
    database's unique key on the version keeps one current row per triple. A save that loses
    a race with another connection is retried up to ``SAVE_ATTEMPTS`` times.

    Raises
    ------
    PermissionDenied
        A record's ``supersedes`` names another annotator's row (only adjudication links to it).
    WriteConflict
        A record's ``supersedes`` is no longer current, or the save kept losing races; the
        message (Korean) says to reload and save again.
    """
    records = list(records)
    if not records:
        return []
    rounds = {r.round_id: get_round(db, r.round_id) for r in records}
    dsets = {rnd["dataset_id"] for rnd in rounds.values()}
    if len(dsets) != 1:
        raise InputError("records of one call must belong to one data set", field="round_id")
    scheme = _scheme_of_round(db, next(iter(rounds.values())))
    rows = annotation_rows(records, scheme=scheme,
                           round_kind={k: v["annotator_kind"] for k, v in rounds.items()})
    # every human save, whoever calls (page, widget, queue, API), sets the required fields
    speakers: dict[str, str | None] = {}
    for row in rows:
        if row["annotator_kind"] != "human":
            continue
        if row["item_id"] not in speakers:
            item = ds_repo.item_row(db, row["item_id"])
            speakers[row["item_id"]] = None if item is None else item["speaker"]  # unknown: the FK refuses
        speaker = speakers[row["item_id"]]
        if speaker is not None:
            check_required(scheme, row["labels"], speaker=speaker)
    # A save that lost a race (another connection wrote the same version first) is redone in
    # a fresh transaction: it then supersedes the winner's row. Inside a caller's transaction
    # there is nothing to redo from, so the conflict is refused with the message.
    attempts = 1 if getattr(db, "in_transaction", False) else SAVE_ATTEMPTS
    for attempt in range(1, attempts + 1):
        try:
            ds_repo.insert_annotations(db, rows)
            break
        except WriteConflict as exc:
            if not exc.retryable:
                raise
            if attempt == attempts:
                who = sorted({r["annotator_id"] for r in rows})
                raise WriteConflict(
                    f"같은 항목이 동시에 저장되어 주석을 저장하지 못했습니다(검토자 {', '.join(who)},"
                    f" {attempts}회 시도). 새로 고친 뒤 다시 저장하세요.", retryable=False) from exc
            time.sleep(0.01 * attempt)
    return [r["annotation_id"] for r in rows]


def write_annotation(db: Database, record: AIProposal | HumanReview) -> str:
    """Append one annotation record; returns its ``annotation_id``."""
    return write_annotations(db, [record])[0]


def _clean_scores(scores: Mapping[str, Any] | None) -> dict[str, float]:
    out: dict[str, float] = {}
    for k, v in (scores or {}).items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError(f"score must be a number 0–{SCORE_MAX}; got {v!r}", field=f"scores.{k}")
        if not 0 <= v <= SCORE_MAX:
            raise InputError(f"score must be within 0–{SCORE_MAX}; got {v}", field=f"scores.{k}")
        out[str(k)] = float(v)
    return out


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


def taxonomy_labels(*, techniques: Iterable[str] = (), client_state: Iterable[str] = (),
                    appropriateness: str | None = None,
                    scores: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``labels`` of the default scheme from the taxonomy's four label groups (validated)."""
    if appropriateness is not None and appropriateness not in APPROPRIATENESS:
        raise InputError(f"appropriateness must be pos, warn or neutral; got {appropriateness!r}",
                         field="appropriateness")
    tax = taxonomy_info()
    labels: dict[str, Any] = {
        "techniques": _clean_labels(techniques, tax.techniques, "techniques"),
        "client_state": _clean_labels(client_state, tax.client_states, "client_state")}
    if appropriateness is not None:
        labels["appropriateness"] = appropriateness
    labels.update(_clean_scores(scores))
    return labels


@_pinned
def save_annotation(db: Database, round_id: str, item_id: str, annotator_id: str, *,
                    annotator_kind: str, status: str | None = None,
                    techniques: Iterable[str] = (), client_state: Iterable[str] = (),
                    appropriateness: str | None = None,
                    intent_deviation: Mapping[str, Any] | None = None,
                    scores: Mapping[str, Any] | None = None, rationale: str | None = None,
                    time_spent_s: float | None = None, supersedes: str | None = None) -> str:
    """Append one default-scheme annotation (compatibility wrapper over the typed records).

    New code builds an :class:`AIProposal` or :class:`HumanReview` and calls
    :func:`write_annotation`; this keyword form stays for existing notebooks and tests.

    Raises
    ------
    PermissionDenied
        An AI annotator tried to write anything but ``proposed``, or into a human round.
    InputError
        Unknown label, score out of range, unknown round/item.
    """
    if annotator_kind not in ("ai", "human"):
        raise InputError(f"annotator_kind must be 'ai' or 'human'; got {annotator_kind!r}",
                         field="annotator_kind")
    if status is not None and status not in ANNOTATION_STATUSES:
        raise InputError(f"status must be one of {', '.join(ANNOTATION_STATUSES)}; got {status!r}",
                         field="status")
    if annotator_kind == "ai" and status not in (None, "proposed"):
        raise PermissionDenied(
            f"an AI annotator may only propose; refused status {status!r} for {annotator_id!r}")
    labels = taxonomy_labels(techniques=techniques, client_state=client_state,
                             appropriateness=appropriateness, scores=scores)
    if annotator_kind == "ai":
        rec: AIProposal | HumanReview = AIProposal(
            round_id=round_id, item_id=item_id, annotator_id=annotator_id, labels=labels,
            rationale=rationale, intent_deviation=intent_deviation)
    else:
        rec = HumanReview(round_id=round_id, item_id=item_id, annotator_id=annotator_id,
                          labels=labels, status=AnnotationStatus(status or "submitted"),
                          rationale=rationale, intent_deviation=intent_deviation,
                          time_spent_s=time_spent_s, supersedes=supersedes)
    return write_annotation(db, rec)


def effective_annotations(db: Database, round_id: str, *, annotator_kind: str | None = None,
                          item_id: str | None = None) -> list[dict[str, Any]]:
    """Current annotations of a round: every row no later row supersedes.

    Rows are ordered by item, then annotator. ``annotator_kind`` and ``item_id`` narrow the
    result; ``labels`` is always the ``{field: value}`` dict (built from the old columns
    for rows written before label schemes).
    """
    rows = ds_repo.effective_annotations(db, round_id, annotator_kind=annotator_kind,
                                         item_id=item_id)
    for r in rows:
        r["labels"] = labels_of(r)
    return rows
