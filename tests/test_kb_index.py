"""Incremental indexing on both backends (real DuckDB file, real PostgreSQL + pgvector)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vignette_lab.errors import ConfigError
from vignette_lab.kb.embedders import HashingEmbedder
from vignette_lab.kb.index import sync_sources

SOURCES = Path(__file__).resolve().parent.parent / "kb_sources"
EMB = HashingEmbedder(dim=384)


@pytest.fixture
def sources(tmp_path) -> Path:
    dest = tmp_path / "kb_sources"
    shutil.copytree(SOURCES, dest)
    return dest


def _edit(path: Path, doc_index: int, extra: str) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["documents"][doc_index]["body"] += extra
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return data["documents"][doc_index]["doc_uri"]


def test_incremental_sync(db, sources):
    first = sync_sources(db, sources_dir=sources, embedder=EMB)
    n_docs = sum(len(json.loads(p.read_text(encoding="utf-8"))["documents"]) for p in sources.glob("*.json"))
    assert first.added + first.quarantined == n_docs and first.quarantined == 1
    assert first.chunks == db.scalar("SELECT count(*) FROM kb.chunk WHERE is_active")
    assert "added" in str(first) and "quarantined" in str(first)

    second = sync_sources(db, sources_dir=sources, embedder=EMB)
    assert (second.added, second.updated, second.deactivated, second.chunks) == (0, 0, 0, 0)
    assert second.unchanged == n_docs

    uri = _edit(sources / "theory_core.json", 1, "\n\n## 덧붙임\n\n과제를 함께 정하는 과정이 협력의 핵심이다.")
    old = db.fetchone("SELECT doc_id, version FROM kb.document WHERE doc_uri = ? AND is_active", [uri])
    dry = sync_sources(db, sources_dir=sources, embedder=EMB, dry_run=True)
    assert (dry.updated, dry.dry_run) == (1, True)
    assert db.scalar("SELECT count(*) FROM kb.document WHERE doc_uri = ?", [uri]) == 1  # nothing written

    third = sync_sources(db, sources_dir=sources, embedder=EMB)
    assert (third.updated, third.added, third.unchanged) == (1, 0, n_docs - 1)
    new = db.fetchone("SELECT doc_id, version FROM kb.document WHERE doc_uri = ? AND is_active", [uri])
    assert new["version"] == old["version"] + 1
    old_row = db.fetchone("SELECT is_active, superseded_by FROM kb.document WHERE doc_id = ?", [old["doc_id"]])
    assert old_row["is_active"] is False and old_row["superseded_by"] == new["doc_id"]
    assert db.scalar("SELECT count(*) FROM kb.chunk WHERE doc_id = ? AND is_active", [old["doc_id"]]) == 0
    assert db.scalar("SELECT count(*) FROM kb.chunk WHERE doc_id = ? AND is_active", [new["doc_id"]]) >= 1

    (sources / "templates.json").unlink()
    fourth = sync_sources(db, sources_dir=sources, embedder=EMB)
    assert fourth.deactivated == 2
    assert db.scalar("SELECT count(*) FROM kb.chunk WHERE source_id = 'templates' AND is_active") == 0
    assert db.scalar("SELECT is_active FROM kb.source WHERE source_id = 'templates'") is False


def test_quarantined_pack_is_recorded_but_never_chunked(db, sources):
    sync_sources(db, sources_dir=sources, embedder=EMB)
    doc = db.fetchone("SELECT chunk_count, sensitivity, embedder FROM kb.document "
                      "WHERE source_id = 'quarantine_raw_notes'")
    assert doc == {"chunk_count": 0, "sensitivity": 3, "embedder": None}
    assert db.scalar("SELECT count(*) FROM kb.chunk WHERE source_id = 'quarantine_raw_notes'") == 0
    assert db.scalar("SELECT count(*) FROM kb.chunk WHERE sensitivity >= 3") == 0
    assert db.scalar("SELECT count(*) FROM kb.chunk WHERE chunk_text LIKE '%격리표지QZX%'") == 0


def test_sync_is_one_transaction(db, sources, monkeypatch):
    sync_sources(db, sources_dir=sources, embedder=EMB)
    _edit(sources / "ko_context.json", 0, "\n\n추가 문단.")
    _edit(sources / "templates.json", 0, "\n\n추가 문단.")
    before = db.fetchall("SELECT doc_id, is_active FROM kb.document ORDER BY doc_id")
    calls = {"n": 0}
    real = db.executemany

    def failing_executemany(sql, rows):
        calls["n"] += 1
        raise RuntimeError("disk full")

    monkeypatch.setattr(db, "executemany", failing_executemany)
    with pytest.raises(RuntimeError):
        sync_sources(db, sources_dir=sources, embedder=EMB)
    monkeypatch.setattr(db, "executemany", real)
    assert calls["n"] == 1
    assert db.fetchall("SELECT doc_id, is_active FROM kb.document ORDER BY doc_id") == before


def test_embedder_switch_requires_reindex(db, sources):
    sync_sources(db, sources_dir=sources, embedder=EMB)
    other = HashingEmbedder(dim=384, ngrams=(2,))
    other.name = "hashing-384-bigram"
    with pytest.raises(ConfigError, match="--reindex"):
        sync_sources(db, sources_dir=sources, embedder=other)
    report = sync_sources(db, sources_dir=sources, embedder=other, reindex=True)
    active_docs = db.scalar("SELECT count(*) FROM kb.document WHERE is_active AND chunk_count > 0")
    assert report.reindexed == active_docs and report.added == report.updated == 0
    assert db.scalar("SELECT count(DISTINCT embedder) FROM kb.chunk WHERE is_active") == 1


def test_reindex_with_new_dimension_rebuilds_vector_tables(db, sources):
    sync_sources(db, sources_dir=sources, embedder=EMB)
    small = HashingEmbedder(dim=256)
    with pytest.raises(ConfigError, match="384-dimensional"):
        sync_sources(db, sources_dir=sources, embedder=small)
    report = sync_sources(db, sources_dir=sources, embedder=small, reindex=True)
    assert report.chunks == db.scalar("SELECT count(*) FROM kb.chunk WHERE is_active")
    from vignette_lab.store import get_schema_meta
    assert get_schema_meta(db)["embedding_dim"] == "256"
