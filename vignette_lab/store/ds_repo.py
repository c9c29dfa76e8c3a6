"""Repository of the ``ds`` schema (data sets, label schemes, rounds, annotations).

The SQL of the data-set pipeline's data sets, schemes, rounds and annotations lives here so
that pipeline stages are pure compute plus a thin ``run(db, …)`` wrapper (architecture rule:
SQL only in ``vignette_lab/store/``). Every function takes an open
:class:`~vignette_lab.store.base.Database`; JSON columns are written with
``db.dialect.json_param()`` and read back decoded.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

__all__ = [
    "DS_TABLES",
    "annotated_item_ids",
    "close_round",
    "dataset_exists",
    "dataset_items",
    "dataset_row",
    "effective_annotations",
    "get_scheme_row",
    "insert_annotations",
    "insert_dataset",
    "insert_gate_decision",
    "insert_round",
    "insert_scheme",
    "latest_annotation_id",
    "list_datasets",
    "list_scheme_rows",
    "round_row",
    "rounds_of_dataset",
    "session_turns",
    "table_counts",
]

DS_TABLES = ("dataset", "dataset_item", "annotation_round", "reviewer_assignment", "annotation",
             "adjudication", "gate_decision", "golden_set", "golden_item", "export_manifest",
             "label_scheme")


def _json(value: Any) -> Any:
    if isinstance(value, (str, bytes)):
        return json.loads(value)
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# --------------------------------------------------------------------------- schemes
def insert_scheme(db: Any, *, name: str, version: str, sha256: str, body: Mapping[str, Any],
                  imported_by: str, created_at: datetime) -> None:
    """Store one imported scheme document."""
    db.execute("INSERT INTO ds.label_scheme (name, version, sha256, body, imported_by, created_at)"
               f" VALUES (?, ?, ?, {db.dialect.json_param()}, ?, ?)",
               [name, version, sha256, _dumps(dict(body)), imported_by, created_at])


def get_scheme_row(db: Any, name: str, version: str | None = None) -> dict[str, Any] | None:
    """The stored scheme ``name`` (at ``version``, else the newest import), body decoded."""
    if version is None:
        row = db.fetchone("SELECT * FROM ds.label_scheme WHERE name = ?"
                          " ORDER BY created_at DESC LIMIT 1", [name])
    else:
        row = db.fetchone("SELECT * FROM ds.label_scheme WHERE name = ? AND version = ?",
                          [name, version])
    if row is not None:
        row["body"] = _json(row["body"])
    return row


def list_scheme_rows(db: Any) -> list[dict[str, Any]]:
    """Every stored scheme (name, version, sha256, created_at), by name then version."""
    return db.fetchall("SELECT name, version, sha256, imported_by, created_at FROM ds.label_scheme"
                       " ORDER BY name, version")


# --------------------------------------------------------------------------- data sets
def insert_dataset(db: Any, *, dataset_id: str, name: str, source: str,
                   filters: Mapping[str, Any], context_turns: int,
                   items: Sequence[Mapping[str, Any]], created_by: str, created_at: datetime,
                   scheme: Mapping[str, str] | None) -> None:
    """Write a data set and its items in one transaction.

    ``items`` carry ``item_id, session_id, seq, speaker, context, counselor_text`` (the text of
    the item's utterance, whoever speaks it), ``client_reply, persona_code, learner_id,
    intended_technique`` and optional ``meta``.
    """
    jp = db.dialect.json_param()
    sch = scheme or {}
    with db.transaction():
        db.execute(
            "INSERT INTO ds.dataset (dataset_id, name, source, filters, context_turns, item_count,"
            " created_by, created_at, scheme_name, scheme_version, scheme_sha256)"
            f" VALUES (?, ?, ?, {jp}, ?, ?, ?, ?, ?, ?, ?)",
            [dataset_id, name, source, _dumps(dict(filters)), context_turns, len(items),
             created_by, created_at, sch.get("name"), sch.get("version"), sch.get("sha256")])
        db.executemany(
            "INSERT INTO ds.dataset_item (item_id, dataset_id, session_id, seq, speaker, context,"
            " counselor_text, client_reply, persona_code, learner_id, intended_technique, meta,"
            f" created_at) VALUES (?, ?, ?, ?, ?, {jp}, ?, ?, ?, ?, ?, {jp}, ?)",
            [[it["item_id"], dataset_id, it["session_id"], it["seq"], it.get("speaker", "counselor"),
              _dumps(it["context"]), it["counselor_text"], it.get("client_reply"),
              it.get("persona_code"), it.get("learner_id"), it.get("intended_technique"),
              None if not it.get("meta") else _dumps(it["meta"]), created_at] for it in items])


def dataset_exists(db: Any, dataset_id: str) -> bool:
    return bool(db.scalar("SELECT count(*) FROM ds.dataset WHERE dataset_id = ?", [dataset_id]))


def dataset_row(db: Any, dataset_id: str) -> dict[str, Any] | None:
    row = db.fetchone("SELECT * FROM ds.dataset WHERE dataset_id = ?", [dataset_id])
    if row is not None:
        row["filters"] = _json(row.get("filters")) or {}
    return row


def dataset_items(db: Any, dataset_id: str) -> list[dict[str, Any]]:
    """Items of a data set in (session, seq) order, ``context`` and ``meta`` decoded."""
    rows = db.fetchall("SELECT * FROM ds.dataset_item WHERE dataset_id = ?"
                       " ORDER BY session_id, seq", [dataset_id])
    for r in rows:
        r["context"] = _json(r["context"])
        r["meta"] = _json(r.get("meta")) or {}
        r["speaker"] = r.get("speaker") or "counselor"
    return rows


def list_datasets(db: Any) -> list[dict[str, Any]]:
    """All data sets, newest first."""
    return db.fetchall("SELECT dataset_id, name, source, item_count, scheme_name, scheme_version,"
                       " created_at FROM ds.dataset ORDER BY created_at DESC")


def session_turns(db: Any, *, where: str, params: Sequence[Any], principal: str
                  ) -> list[dict[str, Any]]:
    """Masked turns of stored sessions joined with their session (for data-set building).

    ``where`` is built by the caller from fixed column names with ``?`` placeholders only.
    """
    sql = ("SELECT t.session_id, t.seq, t.speaker, t.text_masked AS text, t.intended_technique,"
           " s.persona_code, s.learner_id FROM app.turns t"
           f" JOIN app.sessions s ON s.session_id = t.session_id {where}"
           " ORDER BY s.started_at, t.session_id, t.seq")
    with db.as_principal("researcher", principal):
        return db.fetchall(sql, list(params))


# --------------------------------------------------------------------------- rounds
def insert_round(db: Any, *, round_id: str, dataset_id: str, kind: str, annotator_kind: str,
                 engine: str | None, model: str | None, taxonomy_version: str | None,
                 config: Mapping[str, Any], created_at: datetime) -> None:
    db.execute(
        "INSERT INTO ds.annotation_round (round_id, dataset_id, kind, annotator_kind, engine, model,"
        " taxonomy_version, status, config, created_at)"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, 'open', {db.dialect.json_param()}, ?)",
        [round_id, dataset_id, kind, annotator_kind, engine, model, taxonomy_version,
         _dumps(dict(config)), created_at])


def round_row(db: Any, round_id: str) -> dict[str, Any] | None:
    row = db.fetchone("SELECT * FROM ds.annotation_round WHERE round_id = ?", [round_id])
    if row is not None:
        row["config"] = _json(row.get("config")) or {}
    return row


def rounds_of_dataset(db: Any, dataset_id: str) -> list[dict[str, Any]]:
    rows = db.fetchall("SELECT * FROM ds.annotation_round WHERE dataset_id = ? ORDER BY created_at",
                       [dataset_id])
    for r in rows:
        r["config"] = _json(r.get("config")) or {}
    return rows


def close_round(db: Any, round_id: str, closed_at: datetime) -> None:
    db.execute("UPDATE ds.annotation_round SET status = 'closed', closed_at = ? WHERE round_id = ?",
               [closed_at, round_id])


# --------------------------------------------------------------------------- annotations
_ANN_COLS = ("annotation_id", "round_id", "item_id", "annotator_id", "annotator_kind", "status",
             "techniques", "client_state", "appropriateness", "intent_deviation", "scores", "labels",
             "rationale", "time_spent_s", "supersedes", "created_at")


def insert_annotations(db: Any, rows: Iterable[Mapping[str, Any]]) -> int:
    """Append annotation rows (dicts with the ``ds.annotation`` columns); returns the count.

    JSON columns (``intent_deviation``, ``scores``, ``labels``) are given as Python objects.
    """
    jp = db.dialect.json_param()
    placeholders = ", ".join(jp if c in ("intent_deviation", "scores", "labels") else "?"
                             for c in _ANN_COLS)
    batch = []
    for r in rows:
        vals = []
        for c in _ANN_COLS:
            v = r.get(c)
            if c in ("intent_deviation", "scores", "labels"):
                v = None if v is None else _dumps(v)
            elif c in ("techniques", "client_state"):
                v = list(v or [])
            vals.append(v)
        batch.append(vals)
    if batch:
        db.executemany(f"INSERT INTO ds.annotation ({', '.join(_ANN_COLS)}) VALUES ({placeholders})",
                       batch)
    return len(batch)


def latest_annotation_id(db: Any, round_id: str, item_id: str, annotator_id: str) -> str | None:
    """The annotator's current (not superseded) annotation of an item in a round."""
    return db.scalar(
        "SELECT a.annotation_id FROM ds.annotation a WHERE a.round_id = ? AND a.item_id = ?"
        " AND a.annotator_id = ? AND NOT EXISTS (SELECT 1 FROM ds.annotation b"
        " WHERE b.supersedes = a.annotation_id) ORDER BY a.created_at DESC LIMIT 1",
        [round_id, item_id, annotator_id])


def effective_annotations(db: Any, round_id: str, *, annotator_kind: str | None = None,
                          item_id: str | None = None) -> list[dict[str, Any]]:
    """Current annotations of a round (rows no later row supersedes), JSON decoded."""
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
        r["labels"] = _json(r.get("labels"))
        r["techniques"] = list(r.get("techniques") or [])
        r["client_state"] = list(r.get("client_state") or [])
    return rows


def annotated_item_ids(db: Any, round_id: str) -> set[str]:
    """Items that have at least one annotation in the round."""
    return {r["item_id"] for r in db.fetchall(
        "SELECT DISTINCT item_id FROM ds.annotation WHERE round_id = ?", [round_id])}


def table_counts(db: Any) -> dict[str, int]:
    """Row count of every ``ds`` table (used to prove a refused import wrote nothing)."""
    return {t: int(db.scalar(f"SELECT count(*) FROM ds.{t}")) for t in DS_TABLES}


# --------------------------------------------------------------------------- gate decisions
def insert_gate_decision(db: Any, *, gate_id: str, round_id: str, thresholds: Mapping[str, Any],
                         results: Mapping[str, Any], passed: bool, override_reason: str | None,
                         decided_by: str, created_at: datetime) -> None:
    """Store one gate decision (``ds.gate_decision``)."""
    jp = db.dialect.json_param()
    db.execute("INSERT INTO ds.gate_decision (gate_id, round_id, thresholds, results, passed,"
               f" override_reason, decided_by, created_at) VALUES (?, ?, {jp}, {jp}, ?, ?, ?, ?)",
               [gate_id, round_id, _dumps(dict(thresholds)), _dumps(dict(results)), bool(passed),
                override_reason, decided_by, created_at])
