"""Every evaluation set keeps its held-out test split apart from what the tuner saw.

Split by normalised text (NFC, lower case, collapsed whitespace, trailing .?!…~ stripped), never by
row id; a test line that also occurs in any dev file would measure memory, not generalisation.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest

EVAL = Path(__file__).resolve().parents[1] / "datasets" / "eval"
# set name -> the field that holds the judged text
SETS = {"pii": "text", "evaluator": "counselor", "client_probes": "probe", "drift": "text"}


def _norm(text: str) -> str:
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFC", text).lower()).strip()
    return re.sub(r"[.?!…~]+$", "", text)


def _texts(path: Path, field: str) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    key = (lambda r: (r.get("persona"), _norm(r[field]))) if field == "probe" else (lambda r: _norm(r[field]))
    return [key(r) for r in rows]


@pytest.mark.parametrize("name", sorted(SETS))
def test_test_split_shares_no_normalised_text_with_any_dev_file(name):
    folder, field = EVAL / name, SETS[name]
    tests = sorted(folder.glob("*test*.jsonl"))
    devs = sorted(folder.glob("*dev*.jsonl"))
    assert devs, f"{folder}: expected dev splits"
    if not tests:
        promoted = " ".join(p.read_text(encoding="utf-8") for p in folder.glob("README_dev_r*.md"))
        assert "no longer held out" in promoted, f"{folder}: no test split and no README saying why"
        pytest.skip(f"{name}: the last test split was scored and made dev material; the next one is being written")
    seen = {t for p in devs for t in _texts(p, field)}
    for path in tests:
        texts = _texts(path, field)
        assert len(texts) == len(set(texts)), f"{path.name}: duplicate normalised text"
        overlap = sorted(map(str, set(texts) & seen))
        assert not overlap, f"{path.name}: {len(overlap)} lines also in a dev file, e.g. {overlap[:3]}"


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_split_says_who_wrote_it(name):
    readmes = " ".join(p.read_text(encoding="utf-8") for p in (EVAL / name).glob("README*.md"))
    assert "independent" in readmes.lower(), f"{name}: no README names the independent author of the test split"


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_dev_file_is_found_and_no_test_file_is(name):
    from vignette_lab.core.eval_splits import dev_splits

    folder = EVAL / name
    on_disk = {p.stem for p in folder.glob("dev*.jsonl")}
    found = dev_splits(folder)
    assert set(found) == on_disk and found[0] == "dev"
    assert [int(s[5:]) for s in found[1:]] == sorted(int(s[5:]) for s in found[1:])
    assert not any("test" in s for s in found + dev_splits(folder, prefix="clean_"))
    if name == "pii":  # every PII dev file has its clean pair, and the pairs line up
        assert dev_splits(folder, prefix="clean_") == found


def test_a_staged_test_file_never_becomes_a_dev_split(tmp_path):
    from vignette_lab.core.eval_splits import dev_splits, newest_dev_split

    for stem in ("dev", "dev_r2", "dev_r10", "test", "clean_test", "dev_test", "dev_r02", "devx", "clean_dev_r10"):
        (tmp_path / f"{stem}.jsonl").write_text("", encoding="utf-8")
    assert dev_splits(tmp_path) == ("dev", "dev_r2", "dev_r10")
    assert dev_splits(tmp_path, prefix="clean_") == ("dev_r10",)
    assert newest_dev_split(tmp_path) == "dev_r10" and newest_dev_split(tmp_path / "none") is None
