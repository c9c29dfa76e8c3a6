"""The shipped compiled regular expressions (``core/re_table.json``, :mod:`vignette_lab.core._re_table`).

* every entry is exactly what :mod:`re` compiles from its pattern and flags here (so no answer of
  the gate can change), and the table is in use in this interpreter;
* the file equals a rebuild (``bench/build_re_table.py --check``: a changed pattern fails this test
  until the table is rebuilt);
* a table written by another interpreter, or an unreadable one, is not used and raises nothing (on
  another Python the checks of the shipped file are skipped: it is correctly unused there);
* the builder keeps no pattern made from a masked text (its probe sentence's name is in none);
* in a fresh process the gate compiles almost nothing itself and masks as without the table.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.core import _re_table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))


def _doc() -> dict:
    return json.loads(_re_table.TABLE_PATH.read_text(encoding="utf-8"))


#: the table's opcodes are the writing interpreter's; elsewhere it is (correctly) unused
other_interpreter = pytest.mark.skipif(
    json.loads(_re_table.TABLE_PATH.read_text(encoding="utf-8")).get("interpreter") != _re_table.interpreter_tag(),
    reason="core/re_table.json was written by another Python (rebuild with bench/build_re_table.py to use it here)")


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


@other_interpreter
def test_every_entry_is_what_re_compiles_and_the_table_is_in_use():
    from re import _compiler  # type: ignore[attr-defined]

    doc = _doc()
    assert doc["interpreter"] == _re_table.interpreter_tag()
    assert _re_table.info().split()[0].isdigit(), _re_table.info()
    assert len(doc["entries"]) > 200
    for entry in doc["entries"]:
        pattern, flags = entry[0], entry[1]
        assert entry == _re_table.compiled_entry(pattern, flags), pattern[:80]
        fresh = _compiler.compile(pattern, flags)
        assert _re_table._build(entry) == fresh, pattern[:80]  # Pattern equality compares the opcodes
        assert re.compile(pattern, flags) == fresh


@other_interpreter
def test_the_table_equals_a_rebuild():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "build_re_table.py"), "--check"], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("content, why", [
    (json.dumps({"interpreter": "cpython-2.7.0-final-magic0", "entries": [["a", 0, 32, [1], 0, {}, [None]]]}),
     "written by"),
    ("{not json", "JSONDecodeError"),
    (json.dumps({"interpreter": _re_table.interpreter_tag(), "entries": [["(?P<x>a)", 0, 32, [0, 4], 0, {}, []]]}),
     "not used"),
])
def test_a_table_from_another_interpreter_or_unreadable_is_not_used(monkeypatch, tmp_path, content, why):
    path = tmp_path / "re_table.json"
    path.write_text(content, encoding="utf-8")
    monkeypatch.setattr(_re_table, "TABLE_PATH", path)
    monkeypatch.setattr(_re_table._State, "installed", False)
    monkeypatch.setattr(_re_table._State, "info", "not installed")
    before = dict(re._cache)  # type: ignore[attr-defined]
    _re_table.install()  # never raises
    assert _re_table.info().startswith("not used") and why in _re_table.info(), _re_table.info()
    if "written by" in why:
        assert dict(re._cache) == before  # type: ignore[attr-defined]


def test_no_entry_is_built_from_a_masked_text():
    from build_re_table import PROBES  # bench/ is on the path (above)

    patterns = [e[0] for e in _doc()["entries"]]
    assert "저는 김민지고요 010-1234-5678" in PROBES
    assert not any("김민지" in p or "010-1234" in p for p in patterns)


@other_interpreter
def test_a_fresh_process_compiles_almost_nothing_and_masks_the_same():
    code = """
import json, re, sys
import re._compiler as C
n = [0]
real = C.compile
def counting(p, flags=0):
    n[0] += 1
    return real(p, flags)
C.compile = counting
from vignette_lab.core.guardrails import mask_pii
texts = ["저는 김민지고요 010-1234-5678", "오늘은 좀 힘들었어요", "서울시 강남구 테헤란로 12, kim@example.com"]
out = [mask_pii(t).text for t in texts]
print(json.dumps({"compiled": n[0], "out": out}))
"""
    no_table = ("import sys, types; m = types.ModuleType('vignette_lab.core._re_table'); m.install = lambda: None; "
                "sys.modules['vignette_lab.core._re_table'] = m\n")
    runs = []
    for prelude in ("", no_table):
        proc = subprocess.run([sys.executable, "-c", prelude + code], cwd=ROOT, env=_env(), capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    with_table, without = runs
    assert with_table["out"] == without["out"]
    assert without["compiled"] > 200
    assert with_table["compiled"] < without["compiled"] / 4, (with_table["compiled"], without["compiled"])
