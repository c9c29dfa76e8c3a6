"""The shipped kiwipiepy analyses (``core/morph_table.json``) that spare a first text the analyser load.

* every shipped analysis is kiwipiepy's own for the installed version and options (so the PII
  gate's answers cannot change), and the table is in use here (a kiwipiepy upgrade fails this
  test until ``bench/build_morph_table.py`` is rerun);
* a table made by another kiwipiepy is not used;
* no shipped string holds a labelled PII value of the data it was built from, nor a persona's name;
* a first text whose questions the table answers masks identically and loads no kiwipiepy;
  without the table the same text loads it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.core import morph

ROOT = Path(__file__).resolve().parents[1]
PII_DIR = ROOT / "datasets" / "eval" / "pii"

pytestmark = pytest.mark.skipif(not morph.available() or morph.kiwi() is None, reason="kiwipiepy not installed")


def _doc() -> dict:
    return json.loads(morph.TABLE_PATH.read_text(encoding="utf-8"))


def test_table_is_in_use_and_every_entry_is_kiwipiepys_own_analysis():
    assert morph.table_info().split()[0].isdigit(), morph.table_info()
    entries = _doc()["entries"]
    assert len(entries) > 500
    wrong = [s for s, toks in entries.items() if [list(t) for t in morph.analyse(s)] != toks]
    assert wrong == []


def test_a_table_made_by_another_kiwipiepy_is_not_used(monkeypatch):
    monkeypatch.setattr(morph._Table, "entries", None)
    monkeypatch.setattr(morph, "_installed_versions", lambda: {"kiwipiepy": "0.0.1", "kiwipiepy_model": "0.0.1"})
    assert morph._read_table() == {}
    assert morph.table_info().startswith("not used")
    word = next(iter(_doc()["entries"]))
    assert morph.tokens(word) == morph.analyse(word)  # answered by the analyser instead
    monkeypatch.setattr(morph._Table, "entries", None)  # re-read with the real versions afterwards


def test_no_shipped_string_holds_a_labelled_pii_value():
    keys = ["".join(k.split()) for k in _doc()["entries"]]
    values = set()
    for path in PII_DIR.glob("*.jsonl"):
        if "test" in path.name:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                values.update("".join(v.split()) for v in json.loads(line).get("pii", ()) if len(v.strip()) >= 2)
    for card in (ROOT / "datasets" / "personas").glob("*.json"):
        values.add("".join(json.loads(card.read_text(encoding="utf-8"))["display_name"].split()))
    assert [k for k in keys if any(v in k for v in values)] == []


_FIRST_MASK = r"""
import json, sys
from vignette_lab.core import morph
if sys.argv[2] == "off":
    morph.TABLE_PATH = morph.TABLE_PATH.with_name("absent-morph-table.json")
from vignette_lab.core.pii import mask_pii
r = mask_pii(sys.argv[1], backend=sys.argv[3])
print(json.dumps({"text": r.text, "entities": [[e.type, e.start, e.end, e.score] for e in r.entities],
                  "kiwi": "kiwipiepy" in sys.modules}, ensure_ascii=False))
"""


def _first_mask(text: str, table: str, backend: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    env.pop("VIGNETTE_PII_BACKEND", None)
    out = subprocess.run([sys.executable, "-c", _FIRST_MASK, text, table, backend], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("backend", ["regex", "presidio"])
def test_first_text_answered_by_the_table_loads_no_kiwipiepy_and_masks_the_same(backend):
    text = "엄마가 자꾸 성적 얘기만 해요. 선생님은 제 말을 안 믿어요 010-1234-5678"
    with_table, without = _first_mask(text, "on", backend), _first_mask(text, "off", backend)
    assert with_table["kiwi"] is False and without["kiwi"] is True
    assert with_table["text"] == without["text"] == "엄마가 자꾸 성적 얘기만 해요. 선생님은 제 말을 안 믿어요 [PHONE]"
    assert with_table["entities"] == without["entities"]


def test_a_name_still_loads_kiwipiepy_and_is_masked():
    out = _first_mask("저는 김민지고요 친구가 없어요", "on", "regex")
    assert out["kiwi"] is True and "김민지" not in out["text"]
