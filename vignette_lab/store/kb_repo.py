"""Repository functions for the ``kb`` schema: source packs, document versions, chunks, the search log.

The indexer (:mod:`vignette_lab.kb.index`) decides *what* changes; these functions say *how*
it is written. The retriever (:mod:`vignette_lab.kb.retrieval`) fuses and ranks; these
functions fetch the candidates. Backend differences (vector similarity, JSON key tests,
HNSW settings) come from ``db.dialect``; the visibility rule of the active AI view comes
from :func:`vignette_lab.store.access.row_filter`, the same rule the gateway and the
Postgres RLS policies apply.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from vignette_lab.errors import InputError
from vignette_lab.store.access import row_filter
from vignette_lab.store.schema import table_exists

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "active_chunk_embedders",
    "chunk_details",
    "deactivate_document",
    "deactivate_sources_except",
    "has_knowledge_base",
    "insert_chunks",
    "insert_document",
    "insert_retrieval_log",
    "list_documents",
    "mark_superseded",
    "nearest_chunks",
    "reset_document_chunks",
    "term_matching_chunks",
    "upsert_source",
    "visible_chunk_count",
]


# --- indexing ---------------------------------------------------------------------------

def has_knowledge_base(db: Database) -> bool:
    """Whether ``kb.chunk`` exists (``init_db`` or a first ``kb sync`` has run)."""
    return table_exists(db, "kb", "chunk")


def list_documents(db: Database) -> list[dict[str, Any]]:
    """Every stored document version: id, source, uri, version, content hash, embedder, active flag."""
    return db.fetchall("SELECT doc_id, source_id, doc_uri, version, content_hash, embedder, is_active "
                       "FROM kb.document")


def upsert_source(db: Database, *, source_id: str, title: str, kb_kind: str, license_class: str, origin_path: str | None,
                  citation: str | None, external_llm_ok: bool, visible_to: Sequence[str], sensitivity: int,
                  now: datetime) -> None:
    """Insert or refresh one source pack's row; it becomes active."""
    db.execute(
        "INSERT INTO kb.source (source_id, title, kb_kind, license_class, origin_path, citation, "
        "external_llm_ok, visible_to, sensitivity, is_active, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, TRUE, ?, ?) ON CONFLICT (source_id) DO UPDATE SET "
        "title = excluded.title, kb_kind = excluded.kb_kind, license_class = excluded.license_class, "
        "origin_path = excluded.origin_path, citation = excluded.citation, "
        "external_llm_ok = excluded.external_llm_ok, visible_to = excluded.visible_to, "
        "sensitivity = excluded.sensitivity, is_active = TRUE, updated_at = excluded.updated_at",
        [source_id, title, kb_kind, license_class, origin_path, citation, external_llm_ok, list(visible_to),
         sensitivity, now, now])


def deactivate_sources_except(db: Database, source_ids: Sequence[str], *, now: datetime) -> None:
    """Mark every active source not in ``source_ids`` inactive (its pack is gone)."""
    if not source_ids:
        return
    marks = ", ".join("?" for _ in source_ids)
    db.execute(f"UPDATE kb.source SET is_active = FALSE, updated_at = ? "
               f"WHERE is_active AND source_id NOT IN ({marks})", [now, *source_ids])


def deactivate_document(db: Database, doc_id: str, *, now: datetime) -> None:
    """Take a document version and its chunks out of search (chunks first)."""
    db.execute("UPDATE kb.chunk SET is_active = FALSE WHERE doc_id = ? AND is_active", [doc_id])
    db.execute("UPDATE kb.document SET is_active = FALSE, deactivated_at = ? WHERE doc_id = ?", [now, doc_id])


def reset_document_chunks(db: Database, doc_id: str, *, embedder: str, chunk_count: int, now: datetime) -> None:
    """Delete a document's chunks before re-embedding it with ``embedder`` (same version)."""
    db.execute("DELETE FROM kb.chunk WHERE doc_id = ?", [doc_id])
    db.execute("UPDATE kb.document SET embedder = ?, indexed_at = ?, chunk_count = ? WHERE doc_id = ?",
               [embedder, now, chunk_count, doc_id])


def insert_document(db: Database, *, doc_id: str, source_id: str, doc_uri: str, title: str, version: int,
                    content_hash: str, sensitivity: int, chunk_count: int, embedder: str | None,
                    now: datetime) -> None:
    """Add one active document version."""
    db.execute(
        "INSERT INTO kb.document (doc_id, source_id, doc_uri, title, version, content_hash, is_active, "
        "sensitivity, chunk_count, embedder, indexed_at) VALUES (?, ?, ?, ?, ?, ?, TRUE, ?, ?, ?, ?)",
        [doc_id, source_id, doc_uri, title, version, content_hash, sensitivity, chunk_count, embedder, now])


def mark_superseded(db: Database, old_doc_id: str, new_doc_id: str) -> None:
    """Record which version replaced ``old_doc_id``."""
    db.execute("UPDATE kb.document SET superseded_by = ? WHERE doc_id = ?", [new_doc_id, old_doc_id])


_CHUNK_COLUMNS = ("chunk_id", "doc_id", "source_id", "kb_kind", "seq", "heading_path", "chunk_text",
                  "context_prefix", "embedding", "sparse_vec", "visible_to", "sensitivity", "license_class",
                  "external_llm_ok", "meta", "token_count", "embedder", "created_at")


def insert_chunks(db: Database, chunks: Iterable[Mapping[str, Any]]) -> int:
    """Write active chunks; each mapping has the keys of :data:`_CHUNK_COLUMNS`.

    ``sparse_vec`` and ``meta`` are dicts (stored as JSON); ``embedding`` is the dense vector.
    Returns the number of rows written.
    """
    j = db.dialect.json_param()
    rows = []
    for c in chunks:
        row = [c[name] for name in _CHUNK_COLUMNS]
        row[_CHUNK_COLUMNS.index("sparse_vec")] = json.dumps(c["sparse_vec"], ensure_ascii=False)
        row[_CHUNK_COLUMNS.index("meta")] = json.dumps(c["meta"], ensure_ascii=False)
        rows.append(row)
    if rows:
        db.executemany(
            f"INSERT INTO kb.chunk ({', '.join(_CHUNK_COLUMNS)}, is_active) "
            f"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, {j}, ?, ?, ?, ?, {j}, ?, ?, ?, TRUE)",
            rows)
    return len(rows)


# --- retrieval --------------------------------------------------------------------------

def active_chunk_embedders(db: Database) -> set[str]:
    """Names of the embedders behind the searchable documents."""
    return {r["embedder"] for r in db.fetchall(
        "SELECT DISTINCT embedder FROM kb.document WHERE is_active AND chunk_count > 0")}


def _policy_where(db: Database, kinds: Sequence[str], sensitivity_max: int, external_only: bool) -> tuple[str, list[Any]]:
    """The role policy's pre-filter plus the active AI view's visibility rule (alias ``c``)."""
    if db.current_view is None:
        raise InputError("chunk search must run inside db.ai_view(role)", field="role")
    rows_sql, rows_params = row_filter(db, "kb.chunk", "c")
    kind_marks = ", ".join("?" for _ in kinds)
    where = f"c.is_active AND c.kb_kind IN ({kind_marks}) AND c.sensitivity <= ? AND ({rows_sql})"
    if external_only:
        where += " AND c.external_llm_ok AND c.license_class IN ('A', 'B')"
    return where, [*kinds, sensitivity_max, *rows_params]


def nearest_chunks(db: Database, vector: Any, *, kinds: Sequence[str], sensitivity_max: int, external_only: bool,
                   dim: int, limit: int, ef_search: int) -> list[dict[str, Any]]:
    """``chunk_id`` and cosine ``s_dense`` of the ``limit`` chunks nearest ``vector`` the view may see.

    Runs inside ``db.ai_view(role)``; on Postgres the HNSW index answers (``ef_search``
    candidates), on DuckDB an exact scan.
    """
    where, params = _policy_where(db, kinds, sensitivity_max, external_only)
    sql, full = db.dialect.nearest(table="kb.chunk", id_column="c.chunk_id", column="c.embedding", where=where,
                                   params=params, vector=vector, dim=dim, limit=limit)
    with db.transaction():
        for statement in db.dialect.nearest_setup(ef_search):
            db.execute(statement)
        return db.fetchall(sql, full)


def visible_chunk_count(db: Database, *, kinds: Sequence[str], sensitivity_max: int, external_only: bool) -> int:
    """How many chunks the view and policy leave searchable (the IDF population)."""
    where, params = _policy_where(db, kinds, sensitivity_max, external_only)
    return int(db.scalar(f"SELECT count(*) FROM kb.chunk c WHERE {where}", params) or 0)


def term_matching_chunks(db: Database, terms: Sequence[str], *, kinds: Sequence[str], sensitivity_max: int,
                         external_only: bool) -> list[dict[str, Any]]:
    """``chunk_id`` and ``sparse_vec`` of visible chunks sharing at least one of ``terms``."""
    where, params = _policy_where(db, kinds, sensitivity_max, external_only)
    return db.fetchall(f"SELECT c.chunk_id, c.sparse_vec FROM kb.chunk c WHERE {where} "
                       f"AND {db.dialect.has_any_key('c.sparse_vec')}", [*params, list(terms)])


def chunk_details(db: Database, chunk_ids: Sequence[str], *, kinds: Sequence[str], sensitivity_max: int,
                  external_only: bool) -> dict[str, dict[str, Any]]:
    """Source, kind, sensitivity, text and heading of the given chunks, still under the policy filter."""
    if not chunk_ids:
        return {}
    where, params = _policy_where(db, kinds, sensitivity_max, external_only)
    marks = ", ".join("?" for _ in chunk_ids)
    rows = db.fetchall(f"SELECT c.chunk_id, c.source_id, c.kb_kind, c.sensitivity, c.chunk_text, c.heading_path "
                       f"FROM kb.chunk c WHERE {where} AND c.chunk_id IN ({marks})", [*params, *chunk_ids])
    return {r["chunk_id"]: r for r in rows}


def insert_retrieval_log(db: Database, *, log_id: str, role: str, session_id: str | None, query_sha256: str,
                         policy: Mapping[str, Any], fusion: str, external_engine: bool, embedder: str,
                         hit_ids: Sequence[str], scores: Sequence[float], latency_ms: float,
                         now: datetime) -> None:
    """One ``kb.retrieval_log`` row (the query text itself is never stored, only its hash)."""
    j = db.dialect.json_param()
    db.execute(
        "INSERT INTO kb.retrieval_log (log_id, role, session_id, query_sha256, policy, fusion, external_engine, "
        f"embedder, hit_ids, scores, top1_score, latency_ms, created_at) VALUES (?, ?, ?, ?, {j}, ?, ?, ?, ?, {j}, "
        "?, ?, ?)",
        [log_id, role, session_id, query_sha256, json.dumps(dict(policy)), fusion, bool(external_engine), embedder,
         list(hit_ids), json.dumps(list(scores)), scores[0] if scores else None, round(latency_ms, 3), now])
