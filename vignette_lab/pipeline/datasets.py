"""Data sets: one item per counselor utterance, with its preceding context and the client reply.

Items come from stored sessions (live or self-play, ``app.sessions``/``app.turns``) or from
transcript files (JSONL/CSV, schema in ``docs/pipeline.md``). Only masked text enters
``ds.dataset_item`` (DESIGN rule 2): session items use ``turns.text_masked``; imported text is
masked with :func:`vignette_lab.core.guardrails.mask_pii` before anything is written.
"""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Sequence

from vignette_lab.errors import InputError
from vignette_lab.pipeline.rounds import _dumps, _json, _new_id, _now, _pinned, taxonomy_info

__all__ = [
    "TRANSCRIPT_FIELDS",
    "create_dataset_from_sessions",
    "dataset_items",
    "import_transcripts",
    "list_datasets",
]

TRANSCRIPT_FIELDS = ("session_id", "seq", "speaker", "text", "persona", "learner_id",
                     "created_at", "intended_technique")
_REQUIRED = ("session_id", "seq", "speaker", "text")
SPEAKERS = ("counselor", "client")


def _mask(text: str) -> str:
    from vignette_lab.core.guardrails import mask_pii

    res = mask_pii(text)
    if isinstance(res, str):
        return res
    for attr in ("text", "masked", "masked_text"):
        v = getattr(res, attr, None)
        if isinstance(v, str):
            return v
    raise TypeError(f"mask_pii returned {type(res).__name__} without masked text")


def _build_items(turns: Sequence[dict[str, Any]], context_turns: int) -> list[dict[str, Any]]:
    """Items of one session; ``turns`` sorted by seq with keys seq, speaker, text (masked)."""
    items = []
    for i, t in enumerate(turns):
        if t["speaker"] != "counselor":
            continue
        context = [{"seq": c["seq"], "speaker": c["speaker"], "text": c["text"]}
                   for c in turns[max(0, i - context_turns):i]] if context_turns > 0 else []
        nxt = turns[i + 1] if i + 1 < len(turns) else None
        items.append({
            "session_id": t["session_id"], "seq": int(t["seq"]), "context": context,
            "counselor_text": t["text"],
            "client_reply": nxt["text"] if nxt is not None and nxt["speaker"] == "client" else None,
            "persona_code": t.get("persona_code"), "learner_id": t.get("learner_id"),
            "intended_technique": t.get("intended_technique"),
        })
    return items


def _insert_dataset(db: Any, name: str, source: str, filters: dict[str, Any],
                    context_turns: int, items: list[dict[str, Any]], created_by: str) -> str:
    dataset_id = _new_id()
    now = _now()
    with db.transaction():
        db.execute(
            "INSERT INTO ds.dataset (dataset_id, name, source, filters, context_turns, item_count,"
            f" created_by, created_at) VALUES (?, ?, ?, {db.dialect.json_param()}, ?, ?, ?, ?)",
            [dataset_id, name, source, _dumps(filters), context_turns, len(items), created_by, now])
        db.executemany(
            "INSERT INTO ds.dataset_item (item_id, dataset_id, session_id, seq, context,"
            " counselor_text, client_reply, persona_code, learner_id, intended_technique, created_at)"
            f" VALUES (?, ?, ?, ?, {db.dialect.json_param()}, ?, ?, ?, ?, ?, ?)",
            [[_new_id(), dataset_id, it["session_id"], it["seq"], _dumps(it["context"]),
              it["counselor_text"], it["client_reply"], it["persona_code"], it["learner_id"],
              it["intended_technique"], now] for it in items])
    return dataset_id


def _in_clause(column: str, values: Sequence[str] | None, params: list[Any]) -> str:
    if not values:
        return ""
    params.extend(values)
    return f" AND {column} IN ({', '.join('?' for _ in values)})"


@_pinned
def create_dataset_from_sessions(db: Any, name: str, *, personas: Sequence[str] | None = None,
                                 learners: Sequence[str] | None = None,
                                 modes: Sequence[str] | None = None,
                                 since: datetime | None = None, until: datetime | None = None,
                                 context_turns: int = 4, created_by: str = "local") -> str:
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
    params: list[Any] = []
    # An aborted session (a killed self-play batch) is never training material.
    where = "WHERE s.status <> 'aborted'"
    where += _in_clause("s.persona_code", personas, params)
    where += _in_clause("s.learner_id", learners, params)
    where += _in_clause("s.mode", modes, params)
    if since is not None:
        where += " AND s.started_at >= ?"
        params.append(since)
    if until is not None:
        where += " AND s.started_at < ?"
        params.append(until)
    sql = ("SELECT t.session_id, t.seq, t.speaker, t.text_masked AS text, t.intended_technique,"
           " s.persona_code, s.learner_id FROM app.turns t"
           f" JOIN app.sessions s ON s.session_id = t.session_id {where}"
           " ORDER BY s.started_at, t.session_id, t.seq")
    with db.as_principal("researcher", created_by):
        rows = db.fetchall(sql, params)
    by_session: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r["text"] is None:
            raise InputError("turn has no text_masked; refusing to read raw text",
                             source=f"app.turns session {r['session_id']}", line=r["seq"],
                             field="text_masked")
        by_session.setdefault(r["session_id"], []).append(r)
    items = [it for turns in by_session.values() for it in _build_items(turns, context_turns)]
    filters = {"personas": list(personas or []), "learners": list(learners or []),
               "modes": list(modes or []), "since": since.isoformat() if since else None,
               "until": until.isoformat() if until else None}
    return _insert_dataset(db, name, "sessions", filters, context_turns, items, created_by)


def _read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", source=str(path)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start});"
                         " re-save the file as UTF-8", source=str(path), line=line) from None
    if not text.strip():
        raise InputError("file is empty", source=str(path))
    return text


def _records_jsonl(path: Path, text: str) -> Iterable[tuple[int, dict[str, Any]]]:
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg} at column {exc.colno})",
                             source=str(path), line=n) from None
        if not isinstance(obj, dict):
            raise InputError(f"each line must be a JSON object; got {type(obj).__name__}",
                             source=str(path), line=n)
        yield n, obj


def _records_csv(path: Path, text: str) -> Iterable[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [f for f in _REQUIRED if f not in (reader.fieldnames or [])]
    if missing:
        raise InputError("CSV header lacks a required column", source=str(path), line=1,
                         field=missing[0])
    for row in reader:
        if None in row:
            raise InputError("row has more cells than the header", source=str(path),
                             line=reader.line_num)
        yield reader.line_num, {k: (v if v != "" else None) for k, v in row.items()}


def _validate(path: Path, n: int, obj: dict[str, Any], techniques: Sequence[str]) -> dict[str, Any]:
    src = str(path)
    for f in _REQUIRED:
        if obj.get(f) is None or (isinstance(obj.get(f), str) and not obj[f].strip()):
            raise InputError("required field is missing or empty", source=src, line=n, field=f)
    seq = obj["seq"]
    if isinstance(seq, str) and seq.strip().lstrip("-").isdigit():
        seq = int(seq)
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise InputError(f"seq must be an integer >= 0; got {obj['seq']!r}", source=src, line=n,
                         field="seq")
    if obj["speaker"] not in SPEAKERS:
        raise InputError(f"speaker must be 'counselor' or 'client'; got {obj['speaker']!r}",
                         source=src, line=n, field="speaker")
    for f in ("session_id", "text", "persona", "learner_id", "created_at", "intended_technique"):
        v = obj.get(f)
        if v is not None and not isinstance(v, str):
            raise InputError(f"must be a string; got {type(v).__name__}", source=src, line=n,
                             field=f)
    tech = obj.get("intended_technique")
    if tech is not None and techniques and tech not in techniques:
        raise InputError(f"unknown technique {tech!r} (not in taxonomy)", source=src, line=n,
                         field="intended_technique")
    if obj.get("created_at"):
        try:
            datetime.fromisoformat(obj["created_at"])
        except ValueError:
            raise InputError(f"created_at must be ISO 8601; got {obj['created_at']!r}",
                             source=src, line=n, field="created_at") from None
    unknown = sorted(set(obj) - set(TRANSCRIPT_FIELDS))
    if unknown:
        raise InputError(f"unknown field (allowed: {', '.join(TRANSCRIPT_FIELDS)})", source=src,
                         line=n, field=unknown[0])
    return {"session_id": obj["session_id"], "seq": seq, "speaker": obj["speaker"],
            "text": obj["text"], "persona_code": obj.get("persona"),
            "learner_id": obj.get("learner_id"), "intended_technique": tech, "line": n}


@_pinned
def import_transcripts(db: Any, path: str | os.PathLike[str], *, name: str | None = None,
                       fmt: str | None = None, context_turns: int = 4,
                       created_by: str = "local") -> str:
    """Import a transcript file (JSONL or CSV) as a data set.

    Every line is validated before anything is written, then text is PII-masked and the
    whole data set is written in one transaction: a bad file writes nothing.

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

    Returns
    -------
    str
        ``dataset_id``.

    Raises
    ------
    InputError
        Names file, line and field: bad JSON, missing field, unknown speaker, duplicate
        (session_id, seq), not UTF-8, empty file.
    """
    p = Path(path)
    fmt = (fmt or p.suffix.lstrip(".")).lower()
    if fmt not in ("jsonl", "csv"):
        raise InputError(f"format must be 'jsonl' or 'csv'; got {fmt!r}", source=str(p),
                         field="fmt")
    text = _read_text(p)
    techniques = taxonomy_info().techniques
    records = _records_jsonl(p, text) if fmt == "jsonl" else _records_csv(p, text)
    turns: list[dict[str, Any]] = []
    seen: dict[tuple[str, int], int] = {}
    for n, obj in records:
        t = _validate(p, n, obj, techniques)
        key = (t["session_id"], t["seq"])
        if key in seen:
            raise InputError(f"duplicate (session_id, seq) {key}; first on line {seen[key]}",
                             source=str(p), line=n, field="seq")
        seen[key] = n
        turns.append(t)
    if not turns:
        raise InputError("file holds no records", source=str(p))
    for t in turns:
        t["text"] = _mask(t["text"])
    by_session: dict[str, list[dict[str, Any]]] = {}
    for t in turns:
        by_session.setdefault(t["session_id"], []).append(t)
    items = []
    for sess in by_session.values():
        sess.sort(key=lambda t: t["seq"])
        items.extend(_build_items(sess, context_turns))
    return _insert_dataset(db, name or p.name, "import", {"file": p.name, "format": fmt},
                           context_turns, items, created_by)


def dataset_items(db: Any, dataset_id: str) -> list[dict[str, Any]]:
    """Items of a data set in (session, seq) order, ``context`` decoded."""
    rows = db.fetchall("SELECT * FROM ds.dataset_item WHERE dataset_id = ?"
                       " ORDER BY session_id, seq", [dataset_id])
    for r in rows:
        r["context"] = _json(r["context"])
    return rows


def list_datasets(db: Any) -> list[dict[str, Any]]:
    """All data sets, newest first."""
    return db.fetchall("SELECT dataset_id, name, source, item_count, created_at FROM ds.dataset"
                       " ORDER BY created_at DESC")
