"""Data sets: one item per utterance of the speakers the label scheme applies to.

Each item keeps its preceding context turns; counselor items also keep the client reply.

Items come from stored sessions (live or self-play, ``app.sessions``/``app.turns``) or from
transcript files (JSONL/CSV, schema in ``docs/pipeline.md``). Only masked text enters
``ds.dataset_item`` (DESIGN rule 2): session items use ``turns.text_masked``; imported text is
masked with :func:`vignette_lab.core.guardrails.mask_pii` before anything is written.
"""

from __future__ import annotations

import logging
import os
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.errors import InputError
from vignette_lab.pipeline.readers import Table, read_table, to_int
from vignette_lab.pipeline.rounds import _new_id, _now, _pinned, taxonomy_info
from vignette_lab.store import ds_repo
from vignette_lab.core.pii import gate_text
from vignette_lab.core.scheme import default_scheme
from vignette_lab.pipeline.schemes import resolve_scheme
from vignette_lab.store.audit_repo import log_audit

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

log = logging.getLogger(__name__)

__all__ = [
    "TRANSCRIPT_FIELDS",
    "create_dataset_from_sessions",
    "dataset_summary",
    "parse_transcripts",
    "dataset_items",
    "import_transcripts",
    "list_datasets",
]

TRANSCRIPT_FIELDS = ("session_id", "seq", "speaker", "text", "persona", "learner_id",
                     "created_at", "intended_technique")
_REQUIRED = ("session_id", "seq", "speaker", "text")
SPEAKERS = ("counselor", "client")


def _mask(text: str) -> str:

    return gate_text(text)


def _build_items(turns: Sequence[dict[str, Any]], context_turns: int,
                 speakers: Sequence[str] = ("counselor",)) -> list[dict[str, Any]]:
    """Items of one session (pure): one per utterance of a speaker in ``speakers``.

    ``turns`` are sorted by seq with keys seq, speaker, text (masked). A counselor item keeps
    the client reply that follows it; ``counselor_text`` holds the item's own utterance
    whoever speaks it (the column predates client items).
    """
    items = []
    for i, t in enumerate(turns):
        if t["speaker"] not in speakers:
            continue
        context = [{"seq": c["seq"], "speaker": c["speaker"], "text": c["text"]}
                   for c in turns[max(0, i - context_turns):i]] if context_turns > 0 else []
        nxt = turns[i + 1] if i + 1 < len(turns) else None
        is_counselor = t["speaker"] == "counselor"
        items.append({
            "session_id": t["session_id"], "seq": int(t["seq"]), "context": context,
            "speaker": t["speaker"], "counselor_text": t["text"], "meta": t.get("meta") or {},
            "client_reply": nxt["text"] if is_counselor and nxt is not None
            and nxt["speaker"] == "client" else None,
            "persona_code": t.get("persona_code"), "learner_id": t.get("learner_id"),
            "intended_technique": t.get("intended_technique"),
        })
    return items


def _insert_dataset(db: Database, name: str, source: str, filters: dict[str, Any],
                    context_turns: int, items: list[dict[str, Any]], created_by: str,
                    scheme: Any = None) -> str:

    dataset_id = _new_id()
    for it in items:
        it["item_id"] = _new_id()
    ds_repo.insert_dataset(db, dataset_id=dataset_id, name=name, source=source, filters=filters,
                           context_turns=context_turns, items=items, created_by=created_by,
                           created_at=_now(), scheme=(scheme or default_scheme()).ref)
    return dataset_id


@_pinned
def create_dataset_from_sessions(db: Database, name: str, *, personas: Sequence[str] | None = None,
                                 learners: Sequence[str] | None = None,
                                 modes: Sequence[str] | None = None,
                                 since: datetime | None = None, until: datetime | None = None,
                                 context_turns: int = 4, created_by: str = "local",
                                 scheme: str | Any | None = None) -> str:
    """Build a data set from stored sessions.

    One item per counselor turn: the ``context_turns`` turns before it, the counselor text
    and the client reply that follows. Self-play items keep the scripted counselor's
    ``intended_technique`` (ground truth for scoring annotators). Only ``text_masked`` is read.

    Parameters
    ----------
    db : Database
    name : str
    personas, learners : sequence of str, optional
        Persona codes (``"P1"`` …) and learner ids to keep; ``None`` keeps all.
    modes : sequence of {'live', 'selfplay'}, optional
    since, until : datetime, optional
        Bounds on ``sessions.started_at`` (inclusive, exclusive).
    context_turns : int, default=4
    created_by : str, default='local'
    scheme : str or Scheme, optional
        Label scheme to pin (default: the Korean taxonomy); items are made for every speaker
        its fields apply to.

    Returns
    -------
    str
        ``dataset_id``.
    """
    if isinstance(modes, str):
        modes = [modes]
    if isinstance(personas, str):
        personas = [personas]
    if isinstance(learners, str):
        learners = [learners]
    for m in modes or []:
        if m not in ("live", "selfplay"):
            raise InputError(f"mode must be 'live' or 'selfplay'; got {m!r}", field="modes")
    if not isinstance(context_turns, int) or context_turns < 0:
        raise InputError(f"context_turns must be an int >= 0; got {context_turns!r}",
                         field="context_turns")
    sch = scheme if scheme is None or not isinstance(scheme, str) else None
    if isinstance(scheme, str):

        sch = resolve_scheme(db, scheme)
    # An aborted session (a killed self-play batch) is never training material: the repository leaves it out.
    rows = ds_repo.session_turns(db, principal=created_by, personas=personas, learners=learners, modes=modes,
                                 since=since, until=until)
    by_session: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["text"] is None:
            raise InputError("turn has no text_masked; refusing to read raw text",
                             source=f"app.turns session {r['session_id']}", line=r["seq"],
                             field="text_masked")
        by_session.setdefault(r["session_id"], []).append(r)

    sch = sch or default_scheme()
    items = [it for turns in by_session.values()
             for it in _build_items(turns, context_turns, sch.speakers())]
    filters = {"personas": list(personas or []), "learners": list(learners or []),
               "modes": list(modes or []), "since": since.isoformat() if since else None,
               "until": until.isoformat() if until else None}
    return _insert_dataset(db, name, "sessions", filters, context_turns, items, created_by, sch)


def _mapping(mapping: Mapping[str, str] | None) -> dict[str, str]:
    """``{our field: file column}``; every field not mapped is looked up under its own name."""
    out = {f: f for f in TRANSCRIPT_FIELDS}
    for k, v in (mapping or {}).items():
        if k not in TRANSCRIPT_FIELDS:
            raise InputError(f"--map names unknown field {k!r} (fields: {', '.join(TRANSCRIPT_FIELDS)})",
                             field="map")
        if not isinstance(v, str) or not v:
            raise InputError(f"--map {k}= needs a column name", field="map")
        out[k] = v
    cols = list(out.values())
    dup = sorted({c for c in cols if cols.count(c) > 1 and c in (mapping or {}).values()})
    if dup:
        raise InputError(f"--map maps column {dup[0]!r} to two fields", field="map")
    return out


def _session_id(value: Any, src: str, n: int, column: str) -> str:
    if isinstance(value, bool) or isinstance(value, float):
        raise InputError(f"session id must be a string or an integer; got {value!r}", source=src,
                         line=n, field=column)
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise InputError(f"session id must be a string or an integer; got {type(value).__name__}",
                         source=src, line=n, field=column)
    return value.strip()


def _blank(v: Any) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def parse_transcripts(table: Table, *, mapping: Mapping[str, str] | None = None,
                      speaker_map: Mapping[str, str] | None = None, keep_extra: bool = False,
                      techniques: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Validate the records of a transcript table and return one turn per utterance (pure).

    Several rows for the same ``(session_id, seq)`` (one per annotator, in published corpora)
    become one turn; they must agree on speaker and text. With ``keep_extra``, columns the
    mapping does not use become ``meta``: a constant over the utterance's rows as a value, a
    varying one as the list of its values in file order.

    Returns
    -------
    list of dict
        ``session_id, seq, speaker, text (unmasked), persona_code, learner_id,
        intended_technique, meta, line``, in file order of first appearance.

    Raises
    ------
    InputError
        File, physical line and column of the first problem.
    """
    src = table.source
    cols = _mapping(mapping)
    smap = {str(k): v for k, v in (speaker_map or {}).items()}
    for k, v in smap.items():
        if v not in SPEAKERS:
            raise InputError(f"--speaker-map {k}={v}: the target must be counselor or client",
                             field="speaker-map")
    used = set(cols.values())
    extra_cols = [c for c in table.columns if c not in used]
    if extra_cols and not keep_extra:
        first = next((n for n, r in table.records if any(c in r for c in extra_cols)), 1)
        raise InputError(f"unknown column{'s' if len(extra_cols) > 1 else ''}"
                         f" {', '.join(extra_cols)} (map with --map FIELD=COLUMN, keep as item"
                         " metadata with --keep-extra)", source=src,
                         line=1 if table.fmt == "csv" else first, field=extra_cols[0])
    if table.fmt == "csv":
        for f in _REQUIRED:
            if cols[f] not in table.columns:
                raise InputError("CSV header lacks a required column", source=src, line=1,
                                 field=cols[f])
    turns: dict[tuple[str, int], dict[str, Any]] = {}
    for n, obj in table.records:
        rec = {f: obj.get(c) for f, c in cols.items()}
        if table.fmt == "csv":
            rec = {k: (None if v == "" else v) for k, v in rec.items()}
        for f in _REQUIRED:
            if _blank(rec[f]):
                raise InputError("required field is missing or empty", source=src, line=n,
                                 field=cols[f])
        sid = _session_id(rec["session_id"], src, n, cols["session_id"])
        seq = to_int(rec["seq"], src=src, line=n, field=cols["seq"])
        spk = rec["speaker"]
        if not isinstance(spk, str):
            raise InputError(f"speaker must be a string; got {type(spk).__name__}", source=src,
                             line=n, field=cols["speaker"])
        spk = smap.get(spk, smap.get(spk.strip(), spk.strip()))
        if spk not in SPEAKERS:
            hint = " (map it with --speaker-map VALUE=counselor|client)"
            raise InputError(f"speaker must be 'counselor' or 'client'; got {rec['speaker']!r}{hint}",
                             source=src, line=n, field=cols["speaker"])
        for f in ("text", "persona", "learner_id", "created_at", "intended_technique"):
            value = rec.get(f)
            if value is not None and not isinstance(value, str):
                raise InputError(f"must be a string; got {type(value).__name__}", source=src, line=n,
                                 field=cols[f])
        tech = rec.get("intended_technique")
        if tech is not None and techniques and tech not in techniques:
            raise InputError(f"unknown technique {tech!r} (not in taxonomy)", source=src, line=n,
                             field=cols["intended_technique"])
        if rec.get("created_at"):
            try:
                datetime.fromisoformat(str(rec["created_at"]))  # a str: checked above
            except ValueError:
                raise InputError(f"created_at must be ISO 8601; got {rec['created_at']!r}",
                                 source=src, line=n, field=cols["created_at"]) from None
        extras = {c: (None if table.fmt == "csv" and obj.get(c) == "" else obj.get(c))
                  for c in extra_cols}
        key = (sid, seq)
        turn = {"session_id": sid, "seq": seq, "speaker": spk, "text": rec["text"],
                "persona_code": rec.get("persona"), "learner_id": rec.get("learner_id"),
                "intended_technique": tech, "line": n}
        prev = turns.get(key)
        if prev is None:
            turn["_extra_rows"] = [extras] if extra_cols else []
            turns[key] = turn
            continue
        for f, col in (("speaker", "speaker"), ("text", "text"), ("persona_code", "persona"),
                       ("learner_id", "learner_id"), ("intended_technique", "intended_technique")):
            if prev[f] != turn[f] and not (f != "speaker" and f != "text" and turn[f] is None):
                raise InputError(f"(session_id, seq) ({sid!r}, {seq}) is already on line"
                                 f" {prev['line']} with another {col}; rows of one utterance must"
                                 " agree", source=src, line=n, field=cols[col] if f != "speaker"
                                 else cols["speaker"])
        if extra_cols:
            prev["_extra_rows"].append(extras)
    out = []
    for t in turns.values():
        rows = t.pop("_extra_rows")
        meta: dict[str, Any] = {}
        for c in extra_cols:
            vals = [r.get(c) for r in rows]
            first = vals[0]
            meta[c] = first if all(v == first for v in vals) else vals
        t["meta"] = meta
        out.append(t)
    return out


def _mask_meta(meta: Mapping[str, Any], memo: dict[str, str]) -> dict[str, Any]:
    def m(v: Any) -> Any:
        if isinstance(v, str):
            if v not in memo:
                memo[v] = _mask(v)
            return memo[v]
        if isinstance(v, list):
            return [m(x) for x in v]
        return v
    return {k: m(v) for k, v in meta.items()}


def _refused(db: Database, action: str, path: Any, exc: InputError, created_by: str) -> None:
    """Audit entry for a refused import (the only row a refusal writes)."""

    try:
        log_audit(db, created_by or "local", action, str(path)[:500],
                  {"error": str(exc)[:1000]})
    except Exception as exc:  # noqa: BLE001 - the refusal itself must reach the user
        log.warning("could not audit a refused import: %s", exc)


def import_transcripts(db: Database, path: str | os.PathLike[str], *, name: str | None = None,
                       fmt: str | None = None, context_turns: int = 4,
                       created_by: str = "local", scheme: str | Any | None = None,
                       mapping: Mapping[str, str] | None = None,
                       speaker_map: Mapping[str, str] | None = None,
                       keep_extra: bool = False) -> str:
    """Import a transcript file (JSONL or CSV) as a data set.

    Every line is validated before anything is written (strict reader:
    :mod:`vignette_lab.pipeline.readers`), then text is PII-masked and the whole data set is
    written in one transaction: a bad file writes nothing but an audit entry of the refusal.
    The database is not held while the file is read and masked (on DuckDB another process
    may save meanwhile); only the final write holds it.

    Parameters
    ----------
    db : Database
    path : path-like
        UTF-8 file; schema ``vignette-lab/transcript/v1`` in ``docs/pipeline.md``.
    name : str, optional
        Defaults to the file name.
    fmt : {'jsonl', 'csv'}, optional
        Defaults to the file suffix.
    context_turns : int, default=4
    created_by : str, default='local'
    scheme : str or Scheme, optional
        The label scheme the data set pins (``NAME[@VERSION]``); items are made for every
        speaker its fields apply to. Default: the Korean taxonomy (counselor items).
    mapping : dict, optional
        ``{field: column}`` for files with other column names.
    speaker_map : dict, optional
        ``{value in the file: 'counselor'|'client'}``.
    keep_extra : bool, default=False
        Keep unmapped columns as item metadata instead of refusing them.

    Returns
    -------
    str
        ``dataset_id``.

    Raises
    ------
    InputError
        Names file, line and column: bad JSON/CSV, missing field, unknown speaker or column,
        conflicting rows for one (session_id, seq), not UTF-8, empty file, limits.
    """
    p = Path(path)
    try:
        from vignette_lab.core.scheme import Scheme
        from vignette_lab.pipeline.schemes import resolve_scheme

        sch = scheme if isinstance(scheme, Scheme) else resolve_scheme(db, scheme)
        table = read_table(p, fmt=fmt)
        turns = parse_transcripts(table, mapping=mapping, speaker_map=speaker_map,
                                  keep_extra=keep_extra, techniques=taxonomy_info().techniques)
    except InputError as exc:
        _refused(db, "dataset.import.refused", p, exc, created_by)
        raise
    memo: dict[str, str] = {}
    for t in turns:
        t["text"] = _mask(t["text"])
        if t["meta"]:
            t["meta"] = _mask_meta(t["meta"], memo)
    by_session: dict[str, list[dict[str, Any]]] = {}
    for t in turns:
        by_session.setdefault(t["session_id"], []).append(t)
    items = []
    for sess in by_session.values():
        sess.sort(key=lambda t: t["seq"])
        items.extend(_build_items(sess, context_turns, sch.speakers()))
    filters = {"file": p.name, "format": table.fmt, "mapping": dict(mapping or {}),
               "speaker_map": dict(speaker_map or {}), "keep_extra": bool(keep_extra)}
    return _insert_dataset(db, name or p.name, "import", filters, context_turns, items,
                           created_by, sch)


def dataset_summary(db: Database, dataset_id: str) -> dict[str, Any]:
    """``{"dataset_id", "items", "sessions", "speakers", "scheme"}`` of a data set."""
    row = ds_repo.dataset_row(db, dataset_id)
    if row is None:
        raise InputError(f"unknown dataset {dataset_id!r}", field="dataset_id")
    items = ds_repo.dataset_items(db, dataset_id)
    speakers: dict[str, int] = {}
    for it in items:
        speakers[it["speaker"]] = speakers.get(it["speaker"], 0) + 1
    return {"dataset_id": dataset_id, "items": len(items),
            "sessions": len({it["session_id"] for it in items}), "speakers": speakers,
            "scheme": None if not row.get("scheme_name") else
            {"name": row["scheme_name"], "version": row["scheme_version"],
             "sha256": row["scheme_sha256"]}}


def dataset_items(db: Database, dataset_id: str) -> list[dict[str, Any]]:
    """Items of a data set in (session, seq) order, ``context`` and ``meta`` decoded."""
    return ds_repo.dataset_items(db, dataset_id)


def list_datasets(db: Database) -> list[dict[str, Any]]:
    """All data sets, newest first."""
    return ds_repo.list_datasets(db)
