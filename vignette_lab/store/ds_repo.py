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
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from vignette_lab.errors import InputError, PermissionDenied, WriteConflict

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "DS_TABLES",
    "annotated_item_ids",
    "close_round",
    "dataset_exists",
    "dataset_items",
    "dataset_row",
    "effective_annotations",
    "first_existing_item",
    "get_scheme_row",
    "golden_labels",
    "golden_set_row",
    "insert_annotations",
    "insert_dataset",
    "insert_export_manifest",
    "insert_gate_decision",
    "insert_round",
    "insert_scheme",
    "latest_annotation_id",
    "list_datasets",
    "list_scheme_rows",
    "newest_gate_decision",
    "newest_round",
    "proposed_ai_annotations",
    "round_row",
    "rounds_of_dataset",
    "session_turns",
    "source_round_ids",
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


_BULK = 20_000
ITEM_BATCH = 1_000  # data set items per transaction of a large import on DuckDB
# SQL types of the columns bulk-inserted through one JSON document (see _insert_many).
_TYPES = {"duckdb": {"text": "VARCHAR", "text[]": "VARCHAR[]", "json": "JSON", "int": "INTEGER",
                     "double": "DOUBLE", "ts": "VARCHAR"},
          "postgres": {"text": "text", "text[]": "text[]", "json": "jsonb", "int": "integer",
                       "double": "double precision", "ts": "timestamptz"}}


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _insert_many(db: Database, table: str, columns: Sequence[tuple[str, str]],
                 rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert many rows through one JSON document per 20,000 rows (both backends).

    ``columns`` are ``(name, kind)`` with kind ``text``, ``text[]``, ``json``, ``int``,
    ``double`` or ``ts``; JSON-kind values are Python objects. One statement with a single
    parameter is far faster than ``executemany`` (DuckDB managed ~600 rows/s for
    ``ds.annotation`` that way; this path does ~40,000 rows/s).
    """
    names = [c for c, _ in columns]
    types = _TYPES["postgres" if db.backend == "postgres" else "duckdb"]
    with db.transaction():
        for start in range(0, len(rows), _BULK):
            doc = json.dumps([{c: _plain(r.get(c)) for c in names} for r in rows[start:start + _BULK]],
                             ensure_ascii=False)
            if db.backend == "postgres":
                spec = ", ".join(f"{c} {types[k]}" for c, k in columns)
                sql = (f"INSERT INTO {table} ({', '.join(names)}) SELECT {', '.join(names)}"
                       f" FROM jsonb_to_recordset(CAST(? AS JSONB)) AS r({spec})")
            else:
                struct = json.dumps([{c: types[k] for c, k in columns}])
                sel = ", ".join(f"CAST(r.{c} AS TIMESTAMPTZ)" if k == "ts" else f"r.{c}"
                                for c, k in columns)
                sql = (f"INSERT INTO {table} ({', '.join(names)}) SELECT {sel} FROM"
                       f" (SELECT unnest(from_json(CAST(? AS JSON), '{struct}')) AS r)")
            db.execute(sql, [doc])


# --------------------------------------------------------------------------- schemes
def insert_scheme(db: Database, *, name: str, version: str, sha256: str, body: Mapping[str, Any],
                  imported_by: str, created_at: datetime) -> None:
    """Store one imported scheme document."""
    db.execute("INSERT INTO ds.label_scheme (name, version, sha256, body, imported_by, created_at)"
               f" VALUES (?, ?, ?, {db.dialect.json_param()}, ?, ?)",
               [name, version, sha256, _dumps(dict(body)), imported_by, created_at])


def get_scheme_row(db: Database, name: str, version: str | None = None) -> dict[str, Any] | None:
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


def list_scheme_rows(db: Database) -> list[dict[str, Any]]:
    """Every stored scheme (name, version, sha256, created_at), by name then version."""
    return db.fetchall("SELECT name, version, sha256, imported_by, created_at FROM ds.label_scheme"
                       " ORDER BY name, version")


# --------------------------------------------------------------------------- data sets
_ITEM_COLS = (("item_id", "text"), ("dataset_id", "text"), ("session_id", "text"), ("seq", "int"),
              ("speaker", "text"), ("context", "json"), ("counselor_text", "text"),
              ("client_reply", "text"), ("persona_code", "text"), ("learner_id", "text"),
              ("intended_technique", "text"), ("meta", "json"), ("created_at", "ts"))


def insert_dataset(db: Database, *, dataset_id: str, name: str, source: str,
                   filters: Mapping[str, Any], context_turns: int,
                   items: Sequence[Mapping[str, Any]], created_by: str, created_at: datetime,
                   scheme: Mapping[str, str] | None) -> None:
    """Write a data set and its items, all or nothing.

    One transaction, except on DuckDB for more than ``ITEM_BATCH`` items outside a caller's
    transaction: there the row goes first and the items follow in batches (another process may
    take the file between them); a failure deletes the items written so far and the row.

    ``items`` carry ``item_id, session_id, seq, speaker, context, counselor_text`` (the text of
    the item's utterance, whoever speaks it), ``client_reply, persona_code, learner_id,
    intended_technique`` and optional ``meta``.
    """
    jp = db.dialect.json_param()
    sch = scheme or {}
    rows = [{"item_id": it["item_id"], "dataset_id": dataset_id, "session_id": it["session_id"],
             "seq": it["seq"], "speaker": it.get("speaker", "counselor"), "context": it["context"],
             "counselor_text": it["counselor_text"], "client_reply": it.get("client_reply"),
             "persona_code": it.get("persona_code"), "learner_id": it.get("learner_id"),
             "intended_technique": it.get("intended_technique"), "meta": it.get("meta") or None,
             "created_at": created_at} for it in items]

    def head() -> None:
        db.execute(
            "INSERT INTO ds.dataset (dataset_id, name, source, filters, context_turns, item_count,"
            " created_by, created_at, scheme_name, scheme_version, scheme_sha256)"
            f" VALUES (?, ?, ?, {jp}, ?, ?, ?, ?, ?, ?, ?)",
            [dataset_id, name, source, _dumps(dict(filters)), context_turns, len(items),
             created_by, created_at, sch.get("name"), sch.get("version"), sch.get("sha256")])

    if db.backend != "duckdb" or len(rows) <= ITEM_BATCH or getattr(db, "in_transaction", False):
        with db.transaction():
            head()
            _insert_many(db, "ds.dataset_item", _ITEM_COLS, rows)
        return
    # DuckDB holds the whole file for a transaction: a large data set is written in batches of
    # ITEM_BATCH items, each its own short transaction (another process's save gets the file in
    # between). The ds.dataset row goes first (the items' foreign key needs it); if a batch fails,
    # the items already written and then the row are deleted again (two transactions: DuckDB
    # refuses to delete a parent in the transaction that deleted its children), so nothing
    # half-written remains. Between batches another process may see the data set filling up.
    try:
        with db.transaction():
            head()
        for start in range(0, len(rows), ITEM_BATCH):
            with db.transaction():
                _insert_many(db, "ds.dataset_item", _ITEM_COLS, rows[start:start + ITEM_BATCH])
    except BaseException:
        with db.transaction():
            db.execute("DELETE FROM ds.dataset_item WHERE dataset_id = ?", [dataset_id])
        with db.transaction():
            db.execute("DELETE FROM ds.dataset WHERE dataset_id = ?", [dataset_id])
        raise


def dataset_exists(db: Database, dataset_id: str) -> bool:
    return bool(db.scalar("SELECT count(*) FROM ds.dataset WHERE dataset_id = ?", [dataset_id]))


def dataset_row(db: Database, dataset_id: str) -> dict[str, Any] | None:
    row = db.fetchone("SELECT * FROM ds.dataset WHERE dataset_id = ?", [dataset_id])
    if row is not None:
        row["filters"] = _json(row.get("filters")) or {}
    return row


def dataset_items(db: Database, dataset_id: str) -> list[dict[str, Any]]:
    """Items of a data set in (session, seq) order, ``context`` and ``meta`` decoded."""
    rows = db.fetchall("SELECT * FROM ds.dataset_item WHERE dataset_id = ?"
                       " ORDER BY session_id, seq", [dataset_id])
    for r in rows:
        r["context"] = _json(r["context"])
        r["meta"] = _json(r.get("meta")) or {}
        r["speaker"] = r.get("speaker") or "counselor"
    return rows


def list_datasets(db: Database) -> list[dict[str, Any]]:
    """All data sets, newest first."""
    return db.fetchall("SELECT dataset_id, name, source, item_count, scheme_name, scheme_version,"
                       " created_at FROM ds.dataset ORDER BY created_at DESC")


def session_turns(db: Database, *, principal: str, personas: Sequence[str] | None = None,
                  learners: Sequence[str] | None = None, modes: Sequence[str] | None = None,
                  since: datetime | None = None, until: datetime | None = None) -> list[dict[str, Any]]:
    """Masked turns of stored sessions joined with their session (for data-set building).

    Aborted sessions (a killed self-play batch) are never included; the other filters are
    optional (None or empty = no filter). Read as researcher ``principal``.
    """
    where: list[str] = ["s.status <> 'aborted'"]
    params: list[Any] = []
    for column, values in (("s.persona_code", personas), ("s.learner_id", learners), ("s.mode", modes)):
        if values:
            where.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    if since is not None:
        where.append("s.started_at >= ?")
        params.append(since)
    if until is not None:
        where.append("s.started_at < ?")
        params.append(until)
    sql = ("SELECT t.session_id, t.seq, t.speaker, t.text_masked AS text, t.intended_technique,"
           " s.persona_code, s.learner_id FROM app.turns t"
           f" JOIN app.sessions s ON s.session_id = t.session_id WHERE {' AND '.join(where)}"
           " ORDER BY s.started_at, t.session_id, t.seq")
    with db.as_principal("researcher", principal):
        return db.fetchall(sql, params)


# --------------------------------------------------------------------------- rounds
def insert_round(db: Database, *, round_id: str, dataset_id: str, kind: str, annotator_kind: str,
                 engine: str | None, model: str | None, taxonomy_version: str | None,
                 config: Mapping[str, Any], created_at: datetime) -> None:
    db.execute(
        "INSERT INTO ds.annotation_round (round_id, dataset_id, kind, annotator_kind, engine, model,"
        " taxonomy_version, status, config, created_at)"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, 'open', {db.dialect.json_param()}, ?)",
        [round_id, dataset_id, kind, annotator_kind, engine, model, taxonomy_version,
         _dumps(dict(config)), created_at])


def round_row(db: Database, round_id: str) -> dict[str, Any] | None:
    row = db.fetchone("SELECT * FROM ds.annotation_round WHERE round_id = ?", [round_id])
    if row is not None:
        row["config"] = _json(row.get("config")) or {}
    return row


def rounds_of_dataset(db: Database, dataset_id: str) -> list[dict[str, Any]]:
    rows = db.fetchall("SELECT * FROM ds.annotation_round WHERE dataset_id = ? ORDER BY created_at",
                       [dataset_id])
    for r in rows:
        r["config"] = _json(r.get("config")) or {}
    return rows


def close_round(db: Database, round_id: str, closed_at: datetime) -> None:
    db.execute("UPDATE ds.annotation_round SET status = 'closed', closed_at = ? WHERE round_id = ?",
               [closed_at, round_id])


# --------------------------------------------------------------------------- annotations
_ANN_COLS = (("annotation_id", "text"), ("round_id", "text"), ("item_id", "text"),
             ("annotator_id", "text"), ("annotator_kind", "text"), ("status", "text"),
             ("techniques", "text[]"), ("client_state", "text[]"), ("appropriateness", "text"),
             ("intent_deviation", "json"), ("scores", "json"), ("labels", "json"),
             ("rationale", "text"), ("time_spent_s", "double"), ("supersedes", "text"),
             ("created_at", "ts"), ("version", "int"))

_Triple = tuple[str, str, str]
# the current row of a triple is its highest version (the unique key makes it one row)
_CURRENT = ("NOT EXISTS (SELECT 1 FROM ds.annotation b WHERE b.round_id = a.round_id"
            " AND b.item_id = a.item_id AND b.annotator_id = a.annotator_id"
            " AND b.version > a.version)")


def _heads(db: Database, round_ids: Sequence[str]) -> dict[_Triple, tuple[str, int]]:
    """``(round, item, annotator) -> (annotation_id, version)`` of the current rows."""
    if not round_ids:
        return {}
    marks = ", ".join("?" for _ in round_ids)
    rows = db.fetchall(
        "SELECT a.round_id, a.item_id, a.annotator_id, a.annotation_id, a.version"
        f" FROM ds.annotation a WHERE a.round_id IN ({marks}) AND {_CURRENT}", list(round_ids))
    return {(r["round_id"], r["item_id"], r["annotator_id"]): (r["annotation_id"], int(r["version"]))
            for r in rows}


def _refuse_supersede(db: Database, row: Mapping[str, Any], head: tuple[str, int] | None) -> None:
    """Explain why ``row['supersedes']`` is not the current row of the row's own triple."""
    old = db.fetchone("SELECT round_id, item_id, annotator_id FROM ds.annotation"
                      " WHERE annotation_id = ?", [row["supersedes"]])
    if old is None:
        raise InputError(f"annotation {row['supersedes']!r} does not exist", field="supersedes")
    if (old["round_id"], old["item_id"], old["annotator_id"]) != (
            row["round_id"], row["item_id"], row["annotator_id"]):
        raise PermissionDenied(
            f"다른 검토자({old['annotator_id']})의 주석은 대체할 수 없습니다"
            f"(라운드 {old['round_id']}, 항목 {old['item_id']}). 의견이 다르면 판정(adjudication)으로 연결하세요.")
    raise WriteConflict(
        f"이 항목의 주석이 그사이 다른 창에서 저장되었습니다(검토자 {row['annotator_id']}, 항목 "
        f"{row['item_id']}, 현재 버전 {head[1] if head else 0}). 새로 고친 뒤 다시 저장하세요.",
        retryable=False)


def insert_annotations(db: Database, rows: Iterable[Mapping[str, Any]]) -> int:
    """Append annotation rows (dicts with the ``ds.annotation`` columns); returns the count.

    JSON columns (``intent_deviation``, ``scores``, ``labels``) are given as Python objects.
    Each row gets the next ``version`` of its (round, item, annotator) and supersedes that
    triple's current row; a row naming ``supersedes`` must name exactly that row.

    Raises
    ------
    PermissionDenied
        ``supersedes`` names another annotator's (or another item's) row.
    WriteConflict
        ``supersedes`` names a row that is no longer current (``retryable=False``), or another
        transaction committed the same version first (raised at insert/commit, retryable).
    """
    rows, batch = list(rows), []
    with db.transaction():
        heads = _heads(db, sorted({str(r["round_id"]) for r in rows}))
        for r in rows:
            row = dict(r)
            row["techniques"] = list(row.get("techniques") or [])
            row["client_state"] = list(row.get("client_state") or [])
            key = (row["round_id"], row["item_id"], row["annotator_id"])
            head = heads.get(key)
            if row.get("supersedes") is None:
                row["supersedes"] = head[0] if head else None
            elif head is None or row["supersedes"] != head[0]:
                _refuse_supersede(db, row, head)
            row["version"] = head[1] + 1 if head else 1
            heads[key] = (row["annotation_id"], row["version"])
            batch.append(row)
        if batch:
            _insert_many(db, "ds.annotation", _ANN_COLS, batch)
    return len(batch)


def latest_annotation_id(db: Database, round_id: str, item_id: str, annotator_id: str) -> str | None:
    """The annotator's current (not superseded) annotation of an item in a round."""
    return db.scalar(
        "SELECT annotation_id FROM ds.annotation WHERE round_id = ? AND item_id = ?"
        " AND annotator_id = ? ORDER BY version DESC LIMIT 1", [round_id, item_id, annotator_id])


def effective_annotations(db: Database, round_id: str, *, annotator_kind: str | None = None,
                          item_id: str | None = None) -> list[dict[str, Any]]:
    """Current annotations of a round (each triple's highest version), JSON decoded."""
    sql = f"SELECT a.* FROM ds.annotation a WHERE a.round_id = ? AND {_CURRENT}"
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


def annotated_item_ids(db: Database, round_id: str) -> set[str]:
    """Items that have at least one annotation in the round."""
    return {r["item_id"] for r in db.fetchall(
        "SELECT DISTINCT item_id FROM ds.annotation WHERE round_id = ?", [round_id])}


def table_counts(db: Database) -> dict[str, int]:
    """Row count of every ``ds`` table (used to prove a refused import wrote nothing)."""
    return {t: int(db.scalar(f"SELECT count(*) FROM ds.{t}")) for t in DS_TABLES}


# --------------------------------------------------------------------------- gate decisions
def insert_gate_decision(db: Database, *, gate_id: str, round_id: str, thresholds: Mapping[str, Any],
                         results: Mapping[str, Any], passed: bool, override_reason: str | None,
                         decided_by: str, created_at: datetime) -> None:
    """Store one gate decision (``ds.gate_decision``)."""
    jp = db.dialect.json_param()
    db.execute("INSERT INTO ds.gate_decision (gate_id, round_id, thresholds, results, passed,"
               f" override_reason, decided_by, created_at) VALUES (?, ?, {jp}, {jp}, ?, ?, ?, ?)",
               [gate_id, round_id, _dumps(dict(thresholds)), _dumps(dict(results)), bool(passed),
                override_reason, decided_by, created_at])


# --------------------------------------------------------------------------- review queue
def assignment_count(db: Database, round_id: str) -> int:
    return int(db.scalar("SELECT count(*) FROM ds.reviewer_assignment WHERE round_id = ?",
                         [round_id]))


def insert_assignments(db: Database, rows: Sequence[Sequence[Any]]) -> None:
    """``(round_id, item_id, reviewer_id, position, assigned_at)`` rows, one transaction."""
    with db.transaction():
        db.executemany("INSERT INTO ds.reviewer_assignment (round_id, item_id, reviewer_id,"
                       " position, assigned_at) VALUES (?, ?, ?, ?, ?)", rows)


def assigned_counts(db: Database, round_id: str) -> list[dict[str, Any]]:
    return db.fetchall("SELECT reviewer_id, count(*) AS n FROM ds.reviewer_assignment"
                       " WHERE round_id = ? GROUP BY reviewer_id ORDER BY reviewer_id", [round_id])


def reviewer_items(db: Database, round_id: str, reviewer_id: str) -> list[str]:
    """Item ids assigned to a reviewer, in queue order."""
    return [r["item_id"] for r in db.fetchall(
        "SELECT item_id FROM ds.reviewer_assignment WHERE round_id = ? AND reviewer_id = ?"
        " ORDER BY position", [round_id, reviewer_id])]


def latest_ai_round(db: Database, dataset_id: str) -> str | None:
    return db.scalar("SELECT round_id FROM ds.annotation_round WHERE dataset_id = ?"
                     " AND kind = 'ai_auto' ORDER BY created_at DESC LIMIT 1", [dataset_id])


def item_row(db: Database, item_id: str) -> dict[str, Any] | None:
    row = db.fetchone("SELECT * FROM ds.dataset_item WHERE item_id = ?", [item_id])
    if row is not None:
        row["context"] = _json(row["context"])
        row["meta"] = _json(row.get("meta")) or {}
        row["speaker"] = row.get("speaker") or "counselor"
    return row


def human_rounds(db: Database, reviewer_id: str | None = None) -> list[dict[str, Any]]:
    """``human_review`` rounds with their data set's name (newest first); with
    ``reviewer_id`` only the rounds that assign that reviewer. ``has_gate``: a gate decision is
    stored for the round; ``has_golden``: a golden set was frozen from one of its decisions."""
    sql = ("SELECT r.round_id, r.dataset_id, r.status, r.created_at, d.name,"
           " EXISTS (SELECT 1 FROM ds.gate_decision g WHERE g.round_id = r.round_id) AS has_gate,"
           " EXISTS (SELECT 1 FROM ds.golden_set s JOIN ds.gate_decision g ON g.gate_id = s.gate_id"
           " WHERE g.round_id = r.round_id) AS has_golden"
           " FROM ds.annotation_round r JOIN ds.dataset d ON d.dataset_id = r.dataset_id"
           " WHERE r.kind = 'human_review'")
    params: list[Any] = []
    if reviewer_id is not None:
        sql += (" AND EXISTS (SELECT 1 FROM ds.reviewer_assignment a"
                " WHERE a.round_id = r.round_id AND a.reviewer_id = ?)")
        params.append(reviewer_id)
    return db.fetchall(sql + " ORDER BY r.created_at DESC", params)


def latest_gate_id(db: Database, round_id: str) -> str | None:
    """Id of the newest stored gate decision of a round."""
    return db.scalar("SELECT gate_id FROM ds.gate_decision WHERE round_id = ?"
                     " ORDER BY created_at DESC LIMIT 1", [round_id])


def gate_row(db: Database, gate_id: str) -> dict[str, Any] | None:
    """A stored gate decision, JSON decoded."""
    row = db.fetchone("SELECT * FROM ds.gate_decision WHERE gate_id = ?", [gate_id])
    if row is not None:
        row["thresholds"] = _json(row["thresholds"])
        row["results"] = _json(row["results"])
    return row


# --------------------------------------------------------------------------- adjudication
def adjudicated_item_ids(db: Database, round_id: str) -> set[str]:
    return {r["item_id"] for r in db.fetchall(
        "SELECT DISTINCT item_id FROM ds.adjudication WHERE round_id = ?", [round_id])}


def insert_adjudication(db: Database, *, adjudication_id: str, item_id: str, round_id: str,
                        adjudicator_id: str, decision: Mapping[str, Any], resolves: Sequence[str],
                        created_at: datetime) -> None:
    db.execute("INSERT INTO ds.adjudication (adjudication_id, item_id, round_id, adjudicator_id,"
               f" decision, resolves, created_at) VALUES (?, ?, ?, ?, {db.dialect.json_param()}, ?, ?)",
               [adjudication_id, item_id, round_id, adjudicator_id, _dumps(dict(decision)),
                list(resolves), created_at])


def adjudications(db: Database, round_id: str) -> list[dict[str, Any]]:
    """Adjudication rows of a round, oldest first, ``decision`` decoded."""
    rows = db.fetchall("SELECT * FROM ds.adjudication WHERE round_id = ? ORDER BY created_at",
                       [round_id])
    for r in rows:
        r["decision"] = _json(r["decision"])
    return rows


# --------------------------------------------------------------------------- golden sets
def next_golden_version(db: Database, dataset_id: str) -> int:
    return int(db.scalar("SELECT coalesce(max(version), 0) FROM ds.golden_set WHERE dataset_id = ?",
                         [dataset_id])) + 1


def insert_golden_set(db: Database, *, golden_id: str, dataset_id: str, version: int,
                      frozen_at: datetime, gate_id: str | None, taxonomy_version: str | None,
                      items: Sequence[tuple[str, Mapping[str, Any], str, Sequence[str]]]) -> None:
    """``ds.golden_set`` row plus its ``(item_id, labels, source, source_annotations)`` items."""
    db.execute("INSERT INTO ds.golden_set (golden_id, dataset_id, version, frozen_at, gate_id,"
               " taxonomy_version, item_count) VALUES (?, ?, ?, ?, ?, ?, ?)",
               [golden_id, dataset_id, version, frozen_at, gate_id, taxonomy_version, len(items)])
    db.executemany("INSERT INTO ds.golden_item (golden_id, item_id, labels, source,"
                   f" source_annotations) VALUES (?, ?, {db.dialect.json_param()}, ?, ?)",
                   [[golden_id, item_id, _dumps(dict(labels)), source, list(src)]
                    for item_id, labels, source, src in items])


def golden_item_rows(db: Database, golden_id: str) -> list[dict[str, Any]]:
    """Golden items joined with their data-set item, ordered by (session_id, seq, item_id)."""
    rows = db.fetchall(
        "SELECT g.item_id, g.labels, g.source, g.source_annotations, i.session_id, i.seq,"
        " i.context, i.counselor_text, i.client_reply, i.persona_code, i.learner_id,"
        " i.intended_technique, i.speaker FROM ds.golden_item g JOIN ds.dataset_item i ON i.item_id = g.item_id"
        " WHERE g.golden_id = ? ORDER BY i.session_id, i.seq, g.item_id", [golden_id])
    for r in rows:
        r["labels"] = _json(r["labels"])
        r["context"] = _json(r["context"])
        r["source_annotations"] = list(r["source_annotations"] or [])
    return rows


def intended_techniques(db: Database, round_id: str) -> dict[str, str]:
    """``item_id -> intended_technique`` of the items of a round's data set (where known)."""
    return {r["item_id"]: r["intended_technique"] for r in db.fetchall(
        "SELECT i.item_id, i.intended_technique FROM ds.dataset_item i JOIN ds.annotation_round r"
        " ON r.dataset_id = i.dataset_id WHERE r.round_id = ? AND i.intended_technique IS NOT NULL",
        [round_id])}


# --------------------------------------------------------------------------- label drift
def proposed_ai_annotations(db: Database) -> list[dict[str, Any]]:
    """Every proposed AI annotation with its round's time, engine and model."""
    return db.fetchall(
        "SELECT a.item_id, a.annotator_id, a.techniques, a.created_at, r.round_id, r.created_at AS round_at, "
        "r.engine, r.model FROM ds.annotation a JOIN ds.annotation_round r ON r.round_id = a.round_id "
        "WHERE a.annotator_kind = 'ai' AND a.status = 'proposed'")


def golden_labels(db: Database) -> list[dict[str, Any]]:
    """``item_id`` and ``labels`` of every golden item, older golden sets first (later ones win in a dict)."""
    return db.fetchall("SELECT g.item_id, g.labels FROM ds.golden_item g JOIN ds.golden_set s "
                       "ON s.golden_id = g.golden_id ORDER BY s.frozen_at, s.version")


# --------------------------------------------------------------------------- export
def golden_set_row(db: Database, golden_id: str) -> dict[str, Any] | None:
    """The ``ds.golden_set`` row of ``golden_id``."""
    return db.fetchone("SELECT * FROM ds.golden_set WHERE golden_id = ?", [golden_id])


def source_round_ids(db: Database, dataset_id: str, gate_round_id: str) -> list[str]:
    """Rounds a golden set came from: the data set's AI rounds and the gated human round, oldest first."""
    return [r["round_id"] for r in db.fetchall(
        "SELECT round_id FROM ds.annotation_round WHERE dataset_id = ? AND"
        " (kind = 'ai_auto' OR round_id = ?) ORDER BY created_at", [dataset_id, gate_round_id])]


def insert_export_manifest(db: Database, *, export_id: str, golden_id: str, path: str, manifest: Mapping[str, Any],
                           created_at: datetime) -> None:
    """Record one export of a golden set (its manifest as JSON)."""
    db.execute("INSERT INTO ds.export_manifest (export_id, golden_id, path, manifest, created_at)"
               f" VALUES (?, ?, ?, {db.dialect.json_param()}, ?)",
               [export_id, golden_id, path, _dumps(dict(manifest)), created_at])


def first_existing_item(db: Database, item_ids: Sequence[str]) -> str | None:
    """One of ``item_ids`` already stored in ``ds.dataset_item``, or None."""
    if not item_ids:
        return None
    return db.scalar(f"SELECT item_id FROM ds.dataset_item WHERE item_id IN"
                     f" ({', '.join('?' for _ in item_ids)}) LIMIT 1", list(item_ids))


def newest_gate_decision(db: Database) -> dict[str, Any] | None:
    """``gate_id`` and ``round_id`` of the newest stored gate decision of any round, or None."""
    return db.fetchone("SELECT gate_id, round_id FROM ds.gate_decision ORDER BY created_at DESC LIMIT 1")


def newest_round(db: Database, *, kind: str) -> dict[str, Any] | None:
    """``round_id`` and ``dataset_id`` of the newest round of ``kind`` (``ai_auto``, ``human_review``), or None."""
    return db.fetchone("SELECT round_id, dataset_id FROM ds.annotation_round WHERE kind = ?"
                       " ORDER BY created_at DESC LIMIT 1", [kind])
