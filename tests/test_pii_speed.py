"""The PII gate's driver: what makes it fast must never change what it masks.

* the literal pre-filters derived from each pattern are necessary conditions of that pattern on
  every PII data file and every persona/bank line (a text that fails one never matches);
* masking with and without them gives the same result, entity for entity;
* the name model's morphology bound is an upper bound of every candidate's morphology score;
* a fresh process compiles no recogniser at import, and masking a text without a name candidate
  loads no morphology model; the Presidio backend imports neither pydantic nor Presidio's own
  predefined recognisers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from vignette_lab.core import name_model, pii
from vignette_lab.core._regex_needs import literal_filter, needs_pattern, required_literals

ROOT = Path(__file__).resolve().parents[1]
PII_DIR = ROOT / "datasets" / "eval" / "pii"


def _texts() -> list[str]:
    from test_pii_corpus import material_lines

    out = [json.loads(line)["text"] for p in sorted(PII_DIR.glob("*.jsonl"))
           for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out + material_lines()


TEXTS = _texts()


@pytest.mark.parametrize(("pattern", "flags", "expected"), [
    (r"(?:카드|계좌)\s?\d{4}", 0, {"카드", "계좌"}),
    (r"\d{3,}", 0, None),
    (r"(?<![가-힣])[가-힣]{1,8}(?:동|읍|면)\s?\d{1,5}\s?번지", 0, {"번지"}),
    (r"(?:아파트|빌라)?\d{1,4}동", 0, {"동"}),
    (r"[A-Za-z]+(?=\s?(?:님|씨))", 0, {"님", "씨"}),  # a lookahead's text is in the searched text
    (r"(?:학교|)\d", 0, None),  # an empty branch requires nothing
    (r"(?!카드)\d{4}", 0, None),  # a negative lookahead requires nothing
    (r"cvc\d{3}", re.IGNORECASE, {"cvc"}),  # required up to case (searched case-insensitively)
    (r"(?i:grade)\s?\d", 0, None),  # a case-insensitive part of a case-sensitive pattern: nothing
    (r"(?:서울|부산)(?:시|구)", 0, {"서울시", "서울구", "부산시", "부산구"}),
])
def test_required_literals_of_known_shapes(pattern, flags, expected):
    found = required_literals(pattern, flags)
    assert (None if found is None else set(found)) == expected


def test_a_case_insensitive_pattern_gets_a_case_insensitive_prefilter():
    need = needs_pattern(r"(?:생일|birthday)\s?\d", re.IGNORECASE)
    assert need is not None and need.search("BirthDay 3") and need.search("생일 3") and not need.search("3월")
    assert needs_pattern(r"(?i)cvc\d").search("CvC1")


def test_derived_prefilters_are_necessary_conditions_on_every_data_file():
    norms = [pii.normalise_digits(t) for t in TEXTS]
    broken = []
    for i, rule in enumerate(pii.RULES):
        need = needs_pattern(rule.regex.pattern, rule.regex.flags)
        if need is not None:
            broken += [(i, rule.entity, n) for n in norms if rule.regex.search(n) and not need.search(n)]
    for kind, rx in pii._NAME_PATTERNS:
        need = needs_pattern(rx.pattern, rx.flags)
        if need is not None:
            broken += [(kind, "name", t) for t in TEXTS if rx.search(t) and not need.search(t)]
    assert not broken, broken[:5]


def test_masking_with_and_without_the_prefilters_is_identical():
    pii._build_prefilters()
    built = (pii._Prefilters.groups, dict(pii._Prefilters.rules), pii._Prefilters.names)
    sample = TEXTS[::3]
    with_filters = {b: [pii.mask_pii(t, backend=b) for t in sample] for b in ("regex", "presidio")}
    try:
        pii._Prefilters.groups = tuple((need, tuple((r, None) for r in rules)) for need, rules in pii._RULE_GROUPS)
        pii._Prefilters.rules, pii._Prefilters.names = {}, {}
        pii._name_spans_cached.cache_clear()
        name_model._scored.cache_clear()
        without = {b: [pii.mask_pii(t, backend=b) for t in sample] for b in ("regex", "presidio")}
    finally:
        pii._Prefilters.groups, pii._Prefilters.rules, pii._Prefilters.names = built[0], built[1], built[2]
    assert with_filters == without
    assert any(r.entities for r in without["regex"])  # the sample does hold PII


def test_name_model_morphology_bound_covers_every_candidate():
    assert name_model.load_model()
    over = []
    for text in TEXTS:
        for s, k, e in name_model.candidates(text, name_model._Model.name_syllables):
            got = name_model._morph_score(text[s:e], k)
            if got > name_model._MAX_MORPH[k]:
                over.append((text[s:e], k, got, name_model._MAX_MORPH[k]))
    assert not over, over[:5]


def _fresh(code: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "VIGNETTE_PII_BACKEND"}
    env.update(PYTHONPATH=str(ROOT), TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_import_compiles_no_recogniser_and_a_text_without_names_loads_no_morphology():
    out = _fresh("import sys, json; from vignette_lab.core import pii\n"
                 "before = sum(hasattr(r.regex, '_compiled') for r in pii.RULES)\n"
                 "text = pii.mask_pii('연락처는 010-1234-5678이에요', backend='regex').text\n"
                 "print(json.dumps({'before': before, 'text': text, 'kiwi': 'kiwipiepy' in sys.modules,"
                 " 'after': sum(hasattr(r.regex, '_compiled') for r in pii.RULES), 'n': len(pii.RULES)}))")
    assert out["before"] == 0 and 0 < out["after"] < out["n"]
    assert out["text"] == "연락처는 [PHONE]이에요" and out["kiwi"] is False


def test_presidio_backend_imports_neither_pydantic_nor_its_predefined_recognisers():
    out = _fresh("import sys, json; from vignette_lab.core import pii\n"
                 "r = pii.mask_pii('저는 김민지고요 010-1234-5678', backend='presidio')\n"
                 "import presidio_analyzer\n"
                 "print(json.dumps({'text': r.text, 'backend': r.backend, 'pydantic': 'pydantic' in sys.modules,"
                 " 'predefined': 'presidio_analyzer.predefined_recognizers' in sys.modules,"
                 " 'attr': hasattr(presidio_analyzer, 'predefined_recognizers')}))")
    assert (out["text"], out["backend"]) == ("저는 [NAME]고요 [PHONE]", "presidio")
    assert out["pydantic"] is False and out["predefined"] is False and out["attr"] is False


def test_one_parse_gives_the_same_literals_and_search_as_the_two_calls():
    patterns = [(r.regex.pattern, r.regex.flags) for r in pii.RULES] + [(rx.pattern, rx.flags) for _, rx in pii._NAME_PATTERNS]
    patterns += [(r"(?i)cvc\d", 0), (r"BIRTHDAY|생일", re.IGNORECASE), (r"\d{3,}", 0), (r"a b", re.VERBOSE)]
    for pattern, flags in patterns:
        found, search = literal_filter(pattern, flags)
        assert found == required_literals(pattern, flags)
        need = needs_pattern(pattern, flags)
        assert (search is None) == (need is None)
        if need is not None:
            assert (search.pattern, search.flags) == (need.pattern, need.flags)


def test_the_200th_text_builds_the_prefilters_off_the_calling_thread(monkeypatch):
    calls = []
    monkeypatch.setattr(pii, "_build_prefilters", lambda: calls.append(threading.current_thread().name))
    monkeypatch.setattr(pii._Prefilters, "texts", pii._PREFILTER_AFTER - 1)
    monkeypatch.setattr(pii._Prefilters, "built", False)
    pii._count_text()
    for thread in threading.enumerate():
        if thread.name == "pii-prefilters":
            thread.join(10)
    assert calls == ["pii-prefilters"]
    pii.prepare_prefilters()  # not built (the fake built nothing): builds on the calling thread
    assert calls == ["pii-prefilters", threading.current_thread().name]
    monkeypatch.setattr(pii._Prefilters, "built", True)
    pii.prepare_prefilters()
    assert len(calls) == 2  # built: nothing more
