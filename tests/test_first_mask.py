"""The first mask of a fresh process (issue 13 item 4): what makes it cheap never changes a span.

* compiled patterns kept across processes (:mod:`vignette_lab.core._compiled_patterns`): a
  pattern built from the stored opcodes equals a fresh ``re.compile`` (same flags, text and
  opcode array) for every pattern the gate compiles on the PII data files; a second process
  builds them all from the file and masks the same; a damaged, foreign or switched-off file is
  ignored;
* the modules served as inert stand-ins during Presidio's and kiwipiepy's imports (PyYAML,
  Presidio's LLM recogniser, tqdm) are not imported by a first mask, and a later import of any
  of them gets the real package.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.core import _compiled_patterns

ROOT = Path(__file__).resolve().parents[1]
PII_DIR = ROOT / "datasets" / "eval" / "pii"

_NAME_TEXT = "저는 김민지고요 010-1234-5678"


def _child(code: str, cache_dir: Path, **env_extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("VIGNETTE_PII_BACKEND", "VIGNETTE_REGEX_CACHE")}
    env.update(PYTHONPATH=str(ROOT), TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="", VIGNETTE_CACHE_DIR=str(cache_dir),
               **env_extra)
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


_MASK_FILES = """
import json, sys
from pathlib import Path
from vignette_lab.core import _compiled_patterns
from vignette_lab.core.pii import mask_pii
texts = [json.loads(l)["text"] for p in sorted(Path("datasets/eval/pii").glob("{glob}"))
         for l in p.read_text(encoding="utf-8").splitlines() if l.strip()]
out = [[mask_pii(t, backend=b).text for b in ("regex", "presidio")] for t in texts]
print(json.dumps({{"stats": _compiled_patterns.stats(), "out": out,
                  "path": str(_compiled_patterns.cache_path())}}))
"""


def test_stored_patterns_build_equal_to_re_compile(tmp_path):
    """Every pattern a process stored, rebuilt from the file, equals a fresh ``re.compile``."""
    first = _child(_MASK_FILES.format(glob="dev_r10.jsonl"), tmp_path)
    path = Path(first["path"])
    assert first["stats"]["misses"] > 100 and path.is_file()
    entries = _compiled_patterns._read(path)
    assert len(entries) > 100
    for (pattern, flags), entry in entries.items():
        built = _compiled_patterns._build(pattern, entry)
        fresh = re.compile(pattern, flags)
        assert built == fresh, pattern[:80]  # Pattern.__eq__ compares flags, text and the opcode array
        assert built.groupindex == fresh.groupindex and built.groups == fresh.groups


def test_a_second_process_builds_every_pattern_from_the_file_and_masks_the_same(tmp_path):
    first = _child(_MASK_FILES.format(glob="*dev_r10.jsonl"), tmp_path)
    second = _child(_MASK_FILES.format(glob="*dev_r10.jsonl"), tmp_path)
    off = _child(_MASK_FILES.format(glob="*dev_r10.jsonl"), tmp_path / "off", VIGNETTE_REGEX_CACHE="off")
    assert second["stats"]["misses"] == 0 and second["stats"]["hits"] >= first["stats"]["misses"]
    assert first["out"] == second["out"] == off["out"]
    assert off["path"] == "None" and not (tmp_path / "off").exists()
    masked = [o[0] for o in second["out"]]
    assert any("[NAME]" in m for m in masked) and any("[PHONE]" in m for m in masked)


@pytest.mark.parametrize("damage", ["truncate", "flip", "foreign"])
def test_a_damaged_or_foreign_file_is_ignored(tmp_path, damage):
    code = ("import json; from vignette_lab.core import _compiled_patterns as p; "
            "from vignette_lab.core.pii import mask_pii\n"
            f"t = mask_pii({_NAME_TEXT!r}, backend='regex').text\n"
            "print(json.dumps({'text': t, 'stats': p.stats(), 'path': str(p.cache_path())}))")
    first = _child(code, tmp_path)
    path = Path(first["path"])
    blob = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "flip":
        path.write_bytes(blob[:-10] + bytes(b ^ 0xFF for b in blob[-10:]))
    else:  # a well-formed file of another interpreter build, under this one's name
        import marshal
        import zlib
        payload = marshal.dumps({"format": 1, "tag": "another-python", "entries": {}})
        path.write_bytes(zlib.crc32(payload).to_bytes(4, "little") + payload)
    again = _child(code, tmp_path)
    assert again["text"] == first["text"] == "저는 [NAME]고요 [PHONE]"
    assert again["stats"]["hits"] == 0 and again["stats"]["misses"] == first["stats"]["misses"]
    assert _compiled_patterns._read(path), "the damaged file is replaced by a good one at exit"


def test_compile_in_process_equals_re_compile_and_keeps_errors():
    for pattern, flags in [(r"(?P<n>[가-힣]{2,4})(?=씨|님)", 0), (r"cvc\d{3}", re.IGNORECASE), (r"^a.b$", re.S | re.M)]:
        got = _compiled_patterns.compile(pattern, flags)
        assert got == re.compile(pattern, flags) and got.groupindex == re.compile(pattern, flags).groupindex
    with pytest.raises(re.error):
        _compiled_patterns.compile(r"(unclosed")


def test_first_mask_imports_no_yaml_tqdm_or_llm_recogniser_and_later_imports_get_the_real_ones(tmp_path):
    code = ("import sys, json; from vignette_lab.core import pii, morph\n"
            f"r = pii.mask_pii({_NAME_TEXT!r}, backend='presidio')\n"
            "seen = {m: m in sys.modules for m in ('yaml', 'tqdm', 'presidio_analyzer.lm_recognizer',"
            " 'presidio_analyzer.llm_utils', 'torch', 'transformers', 'spacy')}\n"
            "import yaml, tqdm\n"
            "real = {'yaml': yaml.safe_load('a: 1') == {'a': 1}, 'tqdm': callable(getattr(tqdm.tqdm, 'update', None))}\n"
            "print(json.dumps({'text': r.text, 'backend': r.backend, 'kiwi': morph.loaded(), 'seen': seen,"
            " 'real': real}))")
    out = _child(code, tmp_path)
    assert (out["text"], out["backend"], out["kiwi"]) == ("저는 [NAME]고요 [PHONE]", "presidio", True)
    assert not any(out["seen"].values()), out["seen"]
    assert out["real"] == {"yaml": True, "tqdm": True}


def test_the_file_keeps_the_newest_patterns_and_new_code_always_gets_in(tmp_path, monkeypatch):
    """A full file never locks out a new code version's patterns: the oldest, unused ones go."""
    cp = _compiled_patterns
    monkeypatch.setenv("VIGNETTE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("VIGNETTE_REGEX_CACHE", raising=False)
    monkeypatch.setattr(cp, "_MAX_ENTRIES", 3)
    monkeypatch.setattr(cp._State, "usable", True)
    monkeypatch.setattr(cp._State, "used", set())
    monkeypatch.setattr(cp._State, "new", {(f"a{i}", 0): cp._fresh(f"a{i}", 0)[1] for i in range(5)})
    cp._save()
    path = cp.cache_path()
    assert path is not None and list(cp._read(path)) == [("a2", 0), ("a3", 0), ("a4", 0)]
    monkeypatch.setattr(cp._State, "used", {("a2", 0)})  # a later process built a2 from the file
    monkeypatch.setattr(cp._State, "new", {("b", 0): cp._fresh("b", 0)[1]})
    cp._save()
    assert list(cp._read(path)) == [("a4", 0), ("a2", 0), ("b", 0)]
    assert cp._build("b", cp._read(path)[("b", 0)]) == re.compile("b")
