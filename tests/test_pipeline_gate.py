"""Agreement gate, adjudication, golden set and the HTML gate report."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from test_pipeline_helpers import dataset_with_items, human_round
from vignette_lab.errors import InputError, PermissionDenied
from vignette_lab.pipeline.adjudicate import adjudicate, adjudications, disagreements
from vignette_lab.pipeline.datasets import dataset_items
from vignette_lab.pipeline.gate import gate, get_gate
from vignette_lab.pipeline.golden import build_golden_set, golden_items
from vignette_lab.pipeline.report import write_gate_report
from vignette_lab.pipeline.rounds import taxonomy_info

TECHS = ["open_question", "reflection_feelings", "closed_question", "restatement"]
APPR = ["pos", "warn", "neutral"]


def _labels(i, *, flip=False):
    """Deterministic labels for item i; ``flip`` makes a second reviewer disagree."""
    t = TECHS[(i + 1) % 4] if flip else TECHS[i % 4]
    return {"techniques": [t] + (["approval_reassurance"] if i % 3 == 0 else []),
            "client_state": ["guarded"] if i % 2 else ["avoidant"],
            "appropriateness": APPR[(i + (1 if flip else 0)) % 3],
            "scores": {d: float((i % 5) + (1 if flip and i % 2 else 0)) % 6
                       for d in taxonomy_info().score_dimensions}}


def _setup(db, *, disagree_every=0, n_sessions=2, turns=6):
    did = dataset_with_items(db, sessions=n_sessions, counselor_turns=turns)
    items = [it["item_id"] for it in dataset_items(db, did)]
    kim = {iid: _labels(i) for i, iid in enumerate(items)}
    lee = {iid: _labels(i, flip=bool(disagree_every) and i % disagree_every == 0)
           for i, iid in enumerate(items) if i % 2 == 0}  # lee double-codes half the items
    return did, items, human_round(db, did, {"kim": kim, "lee": lee})


def test_gate_numbers_match_reference_and_are_stored(db):
    did, items, hr = _setup(db, disagree_every=3)
    res = gate(db, hr, n_resamples=200)
    r = res["results"]
    assert r["method"] == "cohen" and r["n_overlap_items"] == 6 and r["raters_per_item"] == [2]
    # per-label binary kappa equals scikit-learn on the same presence vectors
    overlap = [i for i in range(len(items)) if i % 2 == 0]
    for row in r["techniques"]["per_label"]:
        a = [row["label"] in _labels(i)["techniques"] for i in overlap]
        b = [row["label"] in _labels(i, flip=i % 3 == 0)["techniques"] for i in overlap]
        if len(set(a) | set(b)) > 1:
            assert row["kappa"] == pytest.approx(cohen_kappa_score(a, b))
            assert row["ci_low"] <= row["kappa"] + 1e-9 and row["ci_high"] >= row["kappa"] - 1e-9
        else:
            assert row["kappa"] is None  # undefined: never/always used
    appr_a = [_labels(i)["appropriateness"] for i in overlap]
    appr_b = [_labels(i, flip=i % 3 == 0)["appropriateness"] for i in overlap]
    assert r["appropriateness"]["kappa"] == pytest.approx(cohen_kappa_score(appr_a, appr_b))
    assert np.array(r["appropriateness"]["confusion"]["matrix"]).sum() == 6
    assert {s["dimension"] for s in r["scores"]} == set(taxonomy_info().score_dimensions)
    # The score rows show the form the gate decided on (the scheme's icc1), with the decided value.
    decided = {f["field"]: f for f in res["fields"]}
    assert all(s["icc_type"] == decided[s["dimension"]]["coefficient"] == "icc1" for s in r["scores"])
    for s in r["scores"]:
        if s["icc"] is not None and decided[s["dimension"]]["value"] is not None:
            assert s["icc"] == pytest.approx(decided[s["dimension"]]["value"], abs=1e-9)
    assert r["icc_type"] == res["thresholds"]["icc_type"] == "icc1"
    stored = get_gate(db, res["gate_id"])
    assert stored["passed"] == res["passed"] and stored["thresholds"]["kappa_min"] == 0.6
    assert stored["results"]["techniques"]["macro_kappa"] == pytest.approx(r["techniques"]["macro_kappa"])
    # The decision is the per-field three-outcome gate (lower-bound rule by default).
    assert stored["thresholds"]["rule"] == res["rule"] == "lower-bound"
    checks = {c["name"]: c for c in res["checks"]}
    assert {"techniques", "client_state", "appropriateness"} <= set(checks)
    assert set(taxonomy_info().score_dimensions) <= set(checks)
    for c in checks.values():
        assert c["outcome"] in ("pass", "fail", "inconclusive") and c["passed"] == (c["outcome"] == "pass")
        if c["outcome"] == "pass":
            assert c["ci_low"] >= c["threshold"]
        if c["outcome"] == "fail":
            assert c["ci_high"] < c["threshold"]
    assert res["passed"] == (res["decision"] == "pass") == all(c["passed"] for c in checks.values())
    assert stored["results"]["decision"] == res["decision"]


def test_failing_gate_blocks_golden_unless_overridden(db):
    did, items, hr = _setup(db, disagree_every=1)  # lee disagrees everywhere
    failed = gate(db, hr, n_resamples=100)
    assert failed["passed"] is False
    with pytest.raises(PermissionDenied, match="override"):
        build_golden_set(db, did, gate_id=failed["gate_id"])
    with pytest.raises(InputError, match="blank"):
        gate(db, hr, override_reason="  ")
    over = gate(db, hr, n_resamples=100, override_reason="pilot: reviewers retrained next round",
                decided_by="prof-kim")
    assert over["passed"] is False
    stored = get_gate(db, over["gate_id"])
    assert stored["override_reason"].startswith("pilot") and stored["decided_by"] == "prof-kim"
    g = build_golden_set(db, did, gate_id=over["gate_id"])
    # all 6 double-coded items disagree and none is adjudicated: only single-coded ones enter
    assert (g["agreed"], g["adjudicated"], g["excluded"]) == (6, 0, 6)


def test_adjudication_and_golden_versions(db):
    did, items, hr = _setup(db, disagree_every=3)
    dis = disagreements(db, hr)
    assert [d["item_id"] for d in dis] == sorted(items[i] for i in (0, 6))
    assert all("techniques" in d["differs"] and len(d["annotations"]) == 2 for d in dis)
    with pytest.raises(PermissionDenied):
        adjudicate(db, dis[0]["item_id"], hr, "ai:scripted", {"techniques": ["open_question"]})
    with pytest.raises(InputError, match="at least one technique"):
        adjudicate(db, dis[0]["item_id"], hr, "prof-kim", {"techniques": []})
    for d in dis:
        adjudicate(db, d["item_id"], hr, "prof-kim",
                   {"techniques": ["reflection_feelings"], "appropriateness": "pos",
                    "scores": {"empathy": 4}, "rationale": "감정 반영이 중심"})
    decided = adjudications(db, hr)
    assert set(decided) == {d["item_id"] for d in dis}
    assert all(set(x["resolves"]) == {a["annotation_id"] for d in dis if d["item_id"] == x["item_id"]
                                      for a in d["annotations"]} for x in decided.values())
    assert disagreements(db, hr) == []  # resolved items drop out
    g = gate(db, hr, n_resamples=100, override_reason="test")
    v1 = build_golden_set(db, did, gate_id=g["gate_id"])
    assert (v1["version"], v1["agreed"], v1["adjudicated"], v1["excluded"]) == (1, 10, 2, 0)
    rows = {r["item_id"]: r for r in golden_items(db, v1["golden_id"])}
    assert rows[dis[0]["item_id"]]["source"] == "adjudicated"
    assert rows[dis[0]["item_id"]]["labels"]["techniques"] == ["reflection_feelings"]
    agreed_pair = rows[items[2]]  # double-coded and agreeing
    assert agreed_pair["source"] == "agreed" and len(agreed_pair["source_annotations"]) == 2
    v2 = build_golden_set(db, did, gate_id=g["gate_id"])
    assert v2["version"] == 2 and v2["golden_id"] != v1["golden_id"]


def test_gate_needs_an_overlap(duck_db):
    did = dataset_with_items(duck_db, sessions=1, counselor_turns=3)
    items = [it["item_id"] for it in dataset_items(duck_db, did)]
    hr = human_round(duck_db, did, {"kim": {i: _labels(n) for n, i in enumerate(items)}})
    with pytest.raises(InputError, match="two or more reviewers"):
        gate(duck_db, hr)


def test_three_reviewers_use_fleiss(duck_db):
    did = dataset_with_items(duck_db, sessions=1, counselor_turns=6)
    items = [it["item_id"] for it in dataset_items(duck_db, did)]
    labels = {r: {iid: _labels(i, flip=(r == "park" and i == 0)) for i, iid in enumerate(items)}
              for r in ("kim", "lee", "park")}
    res = gate(duck_db, human_round(duck_db, did, labels), n_resamples=100)
    assert res["results"]["method"] == "fleiss" and res["results"]["raters_per_item"] == [3]
    assert res["results"]["appropriateness"]["statistic"] == "fleiss_kappa"


def test_gate_report_is_self_contained_html(duck_db, tmp_path):
    did, items, hr = _setup(duck_db, disagree_every=3)
    g = gate(duck_db, hr, n_resamples=100)
    path = write_gate_report(duck_db, g["gate_id"], tmp_path / "reports")
    html = path.read_text(encoding="utf-8")
    assert path.name == f"gate-{g['gate_id']}.html"
    imgs = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(imgs) == 3 and all(base64.b64decode(x)[:8] == b"\x89PNG\r\n\x1a\n" for x in imgs)
    assert "<link" not in html and "<script" not in html  # nothing external
    assert ("통과" in html) and "κ·α ≥ 0.6" in html and "ICC(1,1) ≥ 0.75" in html and "ICC2" not in html
    assert "개방형 질문" in html and "불일치 예시" in html
    assert dataset_items(duck_db, did)[0]["counselor_text"] in html  # masked text, escaped


def test_renaming_reviewers_changes_no_gate_number(duck_db):
    """Issue 10: with varying reviewers, renaming park -> ahn used to move appropriateness κ
    (0.4872 -> 0.4851) because reviewers were sorted into "slots" by id."""
    did = dataset_with_items(duck_db, sessions=2, counselor_turns=6)
    items = [it["item_id"] for it in dataset_items(duck_db, did)]

    def labels(names):
        kim, other1, other2 = names
        out = {kim: {iid: _labels(i) for i, iid in enumerate(items)}}
        out[other1] = {iid: _labels(i, flip=i % 3 == 0) for i, iid in enumerate(items) if i % 2 == 0}
        out[other2] = {iid: _labels(i, flip=i % 4 == 1) for i, iid in enumerate(items) if i % 2 == 1}
        return out

    a = gate(duck_db, human_round(duck_db, did, labels(("kim", "lee", "park"))), n_resamples=100)["results"]
    b = gate(duck_db, human_round(duck_db, did, labels(("kim", "lee", "ahn"))), n_resamples=100)["results"]
    c = gate(duck_db, human_round(duck_db, did, labels(("zz", "aa", "mm"))), n_resamples=100)["results"]
    assert a["method"] == "fleiss"  # kim + lee on some items, kim + park on others
    for other in (b, c):
        assert other["appropriateness"]["kappa"] == pytest.approx(a["appropriateness"]["kappa"], abs=1e-12)
        assert other["appropriateness"]["confusion"] == a["appropriateness"]["confusion"]
        assert other["techniques"]["macro_kappa"] == pytest.approx(a["techniques"]["macro_kappa"], abs=1e-12)
        for sa, so in zip(a["scores"], other["scores"]):
            assert sa["icc_type"] == so["icc_type"] == "icc1"
            assert (sa["icc"] is None and so["icc"] is None) or so["icc"] == pytest.approx(sa["icc"], abs=1e-12)


def test_inconclusive_blocks_golden_unless_overridden_and_point_rule_is_explicit(duck_db):
    """A small overlap with mostly agreeing reviewers: point values clear the thresholds but
    the CIs are wide, so the default lower-bound rule cannot pass it; only an override lets it
    through to the golden set. ``rule="point"`` is the old rule, on request only."""
    did, items, hr = _setup(duck_db, disagree_every=6)
    lb = gate(duck_db, hr, n_resamples=200)
    point = gate(duck_db, hr, n_resamples=200, rule="point")
    assert lb["rule"] == "lower-bound" and point["rule"] == "point"
    by_lb = {c["name"]: c for c in lb["checks"]}
    by_pt = {c["name"]: c for c in point["checks"]}
    assert set(by_lb) == set(by_pt)
    # Same numbers, different rule: a point pass whose CI contains the threshold is inconclusive.
    flipped = [n for n in by_lb if by_pt[n]["outcome"] == "pass" and by_lb[n]["outcome"] == "inconclusive"]
    assert flipped, {n: (by_pt[n]["outcome"], by_lb[n]["outcome"]) for n in by_lb}
    for n in flipped:
        c = by_lb[n]
        assert c["value"] == pytest.approx(by_pt[n]["value"])
        assert c["ci_low"] < c["threshold"] <= c["ci_high"]
    assert lb["decision"] == "inconclusive" and lb["passed"] is False
    with pytest.raises(PermissionDenied, match="inconclusive"):
        build_golden_set(duck_db, did, gate_id=lb["gate_id"])
    with pytest.raises(InputError, match="rule"):
        gate(duck_db, hr, rule="median")
    over = gate(duck_db, hr, n_resamples=200, override_reason="pilot round: CI still wide")
    assert over["decision"] == "inconclusive" and get_gate(duck_db, over["gate_id"])["override_reason"]
    assert build_golden_set(duck_db, did, gate_id=over["gate_id"])["item_count"] > 0
