"""The fact reader's on-disk index (issue 16 round 5): same readings as a fresh build, rebuilt
when the bank or the file changes, never a failure when the cache folder is unusable."""

from __future__ import annotations

import numpy as np
import pytest

from vignette_lab.engines import fact_reader as fr

QUESTIONS = ["몇 학년이야?", "집이 어디예요", "요즘 잠은 잘 자요?", "가족은 어떻게 돼?", "오늘 날씨 좋네요",
             "몇학년", "시험 끝나면 뭐 하고 싶어요?"]


def _by_token(reader: fr.FactReader) -> dict[tuple[int, str], tuple[float, tuple[float, ...]]]:
    """The index keyed by token (feature numbers follow set order, which varies by process)."""
    return {(half, tok): (float(reader._idf[j]), tuple(reader.matrix[j].tolist()))
            for half in (0, 1) for tok, j in reader._vocab[half].items()}


@pytest.fixture(scope="module")
def rows() -> list[tuple[str, str]]:
    return fr.load_bank()[:120]


def test_cached_index_reads_like_a_fresh_build(tmp_path, rows):
    built = fr.FactReader.cached(rows, cache_dir=tmp_path)  # builds and writes
    files = list(tmp_path.glob("fact-reader-*.npz"))
    assert len(files) == 1
    loaded = fr.FactReader.cached(rows, cache_dir=tmp_path)  # loads
    fresh = fr.FactReader(rows)
    assert _by_token(loaded) == _by_token(fresh) == _by_token(built)
    assert loaded.keys == fresh.keys and loaded.texts == fresh.texts
    for q in QUESTIONS:
        a, b = loaded.support(q), fresh.support(q)
        assert a[0] == b[0] and a[1] == pytest.approx(b[1], abs=1e-6) and a[2] == pytest.approx(b[2], abs=1e-6)


def test_another_bank_gets_another_file(tmp_path, rows):
    fr.FactReader.cached(rows, cache_dir=tmp_path)
    other = fr.FactReader.cached(rows[:-1], cache_dir=tmp_path)
    assert len(list(tmp_path.glob("fact-reader-*.npz"))) == 2
    assert other.keys == [k for _, k in rows[:-1]]


def test_damaged_file_is_rebuilt(tmp_path, rows, caplog):
    fr.FactReader.cached(rows, cache_dir=tmp_path)
    (path,) = tmp_path.glob("fact-reader-*.npz")
    path.write_bytes(b"not an npz")
    reader = fr.FactReader.cached(rows, cache_dir=tmp_path)
    assert "unreadable" in caplog.text
    assert _by_token(reader) == _by_token(fr.FactReader(rows))
    with np.load(path) as data:  # rewritten whole
        assert int(data["format"][0]) == fr.CACHE_FORMAT


def test_unwritable_cache_folder_still_reads(tmp_path, rows, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    reader = fr.FactReader.cached(rows, cache_dir=blocker / "sub")  # a file where the folder should be
    assert "not written" in caplog.text
    assert reader.support("몇 학년이야?")[0] == fr.FactReader(rows).support("몇 학년이야?")[0]
    assert not list(tmp_path.glob(".*.tmp"))


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(tmp_path))
    assert fr.index_cache_dir() == tmp_path / "engines"


def test_old_indexes_are_pruned(tmp_path, rows):
    import os
    import time as _time

    for i in range(fr.CACHE_KEEP + 3):
        old = tmp_path / f"fact-reader-old{i:02d}.npz"
        old.write_bytes(b"x")
        os.utime(old, (_time.time() - 1000 + i, _time.time() - 1000 + i))
    fr.FactReader.cached(rows, cache_dir=tmp_path)
    left = sorted(p.name for p in tmp_path.glob("fact-reader-*.npz"))
    assert len(left) == fr.CACHE_KEEP
    assert f"fact-reader-old{fr.CACHE_KEEP + 2:02d}.npz" in left and "fact-reader-old00.npz" not in left
    assert any(not name.startswith("fact-reader-old") for name in left)  # the new one stays
