"""What a researcher reads after a round: the gate report, manifest, data card and round lists
name the same ICC form and the gate's own figures, warn about simulated reviewers by one rule,
show Korean labels and local times, and an empty VIGNETTE_HOME still finds kb_sources/."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_pipeline_gate import _labels
from test_pipeline_helpers import dataset_with_items, human_round
from vignette_lab.core.labels import icc_label, round_label, round_state_label
from vignette_lab.pipeline.adjudicate import adjudicate, disagreements
from vignette_lab.pipeline.datasets import dataset_items
from vignette_lab.pipeline.export import export_golden
from vignette_lab.pipeline.gate import gate, icc_form
from vignette_lab.pipeline.golden import build_golden_set
from vignette_lab.pipeline.report import SIMULATED_WARNING_HTML, write_gate_report
from vignette_lab.pipeline.rounds import is_simulated_round
from vignette_lab.store import ds_repo

ROOT = Path(__file__).resolve().parents[1]


def _round(db, names=("kim", "lee")):
    did = dataset_with_items(db, sessions=2, counselor_turns=6)
    items = [it["item_id"] for it in dataset_items(db, did)]
    a, b = names
    labels = {a: {iid: _labels(i) for i, iid in enumerate(items)},
              b: {iid: _labels(i, flip=i % 3 == 0) for i, iid in enumerate(items) if i % 2 == 0}}
    return did, human_round(db, did, labels)


def _golden(db, names=("kim", "lee")):
    did, hr = _round(db, names)
    for d in disagreements(db, hr):
        adjudicate(db, d["item_id"], hr, "prof-kim", {"techniques": ["restatement"], "appropriateness": "neutral"})
    g = gate(db, hr, n_resamples=100, override_reason="test fixture")
    return did, hr, g, build_golden_set(db, did, gate_id=g["gate_id"])


def _text(html: str) -> str:
    html = re.sub(r'src="data:[^"]*"', "", html)
    return re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", html, flags=re.S))


def test_every_output_names_the_icc_form_the_gate_decided_on(duck_db, tmp_path):
    did, hr, g, gs = _golden(duck_db)
    score_fields = [f for f in g["fields"] if str(f["coefficient"]).startswith("icc")]
    assert score_fields and {f["coefficient"] for f in score_fields} == {"icc1"}
    assert icc_form(g["results"]) == g["thresholds"]["icc_type"] == g["results"]["icc_type"] == "icc1"
    html = write_gate_report(duck_db, g["gate_id"], tmp_path / "r").read_text(encoding="utf-8")
    assert "ICC(1,1) ≥ 0.75" in html and "ICC2" not in html and "ICC(2,1)" not in html
    m = export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    manifest = json.loads((tmp_path / "e" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["agreement"]["icc_type"] == manifest["gate"]["thresholds"]["icc_type"] == "icc1"
    assert m["agreement"]["icc_type"] == "icc1"
    card = (tmp_path / "e" / "README.md").read_text(encoding="utf-8")
    assert "ICC(1,1)" in card and "ICC2" not in card and "ICC(2" not in card


def test_stored_decisions_before_the_fix_are_named_by_their_decided_fields():
    # An older decision stored thresholds icc_type 'ICC2' while its fields were gated on icc1.
    old = {"scores": [{"dimension": "empathy", "icc_type": "ICC2"}],
           "fields": [{"field": "empathy", "coefficient": "icc1"}]}
    assert icc_form(old, {"icc_type": "ICC2"}) == "icc1"
    assert icc_form({"scores": [{"dimension": "empathy", "icc_type": "ICC1"}]}) == "icc1"
    assert icc_form({}, {"icc_type": "ICC2"}) == "icc2"
    assert icc_label("icc1") == "ICC(1,1)" and icc_label("icc1/icc2") == "ICC(1,1)/ICC(2,1)"


def test_data_card_shows_the_gate_coefficients_with_ci_threshold_and_outcome(duck_db, tmp_path):
    did, hr, g, gs = _golden(duck_db)
    export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    card = (tmp_path / "e" / "README.md").read_text(encoding="utf-8")
    section = card.split("## 합의도", 1)[1].split("## 개인정보", 1)[0]
    outcome_ko = {"pass": "통과", "fail": "미달", "inconclusive": "판단 보류"}
    for f in g["fields"]:
        if f["outcome"] == "no_data":
            continue
        row = next(line for line in section.splitlines() if f"(`{f['field']}`)" in line)
        assert f"`{f['coefficient']}`" in row and outcome_ko[f["outcome"]] in row
        if f["value"] is not None:
            assert f"{f['value']:.3f}" in row
        if f["ci_low"] is not None and f["ci_high"] is not None:
            assert f"[{f['ci_low']:.3f}, {f['ci_high']:.3f}]" in row
        assert f"≥ {f['threshold']:g}" in row
    # the gate's own coefficient for techniques is α (MASI); the macro κ is labelled as not decided on
    assert "Krippendorff α (MASI" in section
    assert section.index("게이트가 판정에 쓴 계수") < section.index("참고 수치 (게이트 판정에 쓰이지 않음")
    assert "macro κ" in section.split("참고 수치", 1)[1]


def test_simulated_warning_follows_one_rule_in_every_renderer(duck_db, tmp_path):
    did, hr, g, gs = _golden(duck_db, names=("sim-reviewer-1", "sim-reviewer-2"))
    assert is_simulated_round(duck_db, hr)
    html = write_gate_report(duck_db, g["gate_id"], tmp_path / "r").read_text(encoding="utf-8")
    assert SIMULATED_WARNING_HTML in html and "시뮬레이션 검토자" in html
    export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    assert "시뮬레이션 검토자" in (tmp_path / "e" / "README.md").read_text(encoding="utf-8")
    assert json.loads((tmp_path / "e" / "manifest.json").read_text(encoding="utf-8"))["simulated_reviewers"]


def test_real_reviewers_get_no_simulated_warning(duck_db, tmp_path):
    did, hr, g, gs = _golden(duck_db)
    assert not is_simulated_round(duck_db, hr)
    html = write_gate_report(duck_db, g["gate_id"], tmp_path / "r").read_text(encoding="utf-8")
    assert "시뮬레이션 검토자" not in html
    export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    assert "시뮬레이션 검토자" not in (tmp_path / "e" / "README.md").read_text(encoding="utf-8")


def test_gate_report_shows_korean_labels_and_local_minutes(duck_db, tmp_path):
    did, hr, g, gs = _golden(duck_db)
    text = _text(write_gate_report(duck_db, g["gate_id"], tmp_path / "r").read_text(encoding="utf-8"))
    assert "상담 기법 (techniques)" in text and "Krippendorff α (MASI 집합 거리) (krippendorff_alpha_masi)" in text
    assert "ICC(1,1) (icc1)" in text
    # every code in a table cell follows its Korean label; no bare code cells
    assert not re.search(r"\s(techniques|krippendorff_alpha_masi|icc1|fleiss_kappa)\s", text.replace("(", " (")
                         .replace(" (techniques)", "").replace(" (krippendorff_alpha_masi)", "")
                         .replace(" (icc1)", "").replace(" (fleiss_kappa)", ""))
    assert not re.search(r"\d{2}:\d{2}:\d{2}\.\d+", text) and "+00:00" not in text
    assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?!:)", text)


def test_round_list_label_follows_the_rounds_real_state(duck_db):
    did, hr = _round(duck_db)
    row = next(r for r in ds_repo.human_rounds(duck_db) if r["round_id"] == hr)
    assert round_state_label(row) == "진행 중" and "(진행 중)" in round_label(row)
    for d in disagreements(duck_db, hr):
        adjudicate(duck_db, d["item_id"], hr, "prof-kim", {"techniques": ["restatement"],
                                                           "appropriateness": "neutral"})
    g = gate(duck_db, hr, n_resamples=50, override_reason="test")
    row = next(r for r in ds_repo.human_rounds(duck_db) if r["round_id"] == hr)
    assert round_state_label(row) == "게이트 결정됨"
    build_golden_set(duck_db, did, gate_id=g["gate_id"])
    row = next(r for r in ds_repo.human_rounds(duck_db) if r["round_id"] == hr)
    assert round_label(row).endswith("(골든셋 확정)") and "진행 중" not in round_label(row)


def test_packs_and_datasets_fall_back_to_the_packaged_copy_by_one_rule(monkeypatch, tmp_path):
    from vignette_lab.config import ROOT as CHECKOUT
    from vignette_lab.core import taxonomy
    from vignette_lab.kb import packs

    monkeypatch.setattr(packs, "KB_SOURCES_DIR", tmp_path / "kb_sources")
    monkeypatch.setattr(taxonomy, "DATASETS_DIR", tmp_path / "datasets")
    assert packs.default_sources_dir() == CHECKOUT / "kb_sources"
    assert taxonomy.datasets_dir() == CHECKOUT / "datasets"
    assert packs.load_packs()  # the packaged packs load
    (tmp_path / "kb_sources").mkdir()
    (tmp_path / "datasets").mkdir()
    assert packs.default_sources_dir() == tmp_path / "kb_sources"
    assert taxonomy.datasets_dir() == tmp_path / "datasets"
    with pytest.raises(Exception, match="source pack directory not found"):
        packs.load_packs(tmp_path / "missing")  # an explicit folder is never replaced


def test_kb_sync_and_init_work_with_an_empty_vignette_home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "VIGNETTE_HOME": str(home), "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    for args in (["init"], ["kb", "sync", "--dry-run"]):
        run = subprocess.run([sys.executable, "-m", "vignette_lab.cli", *args], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-800:]
        assert "not found" not in run.stdout + run.stderr
    assert "packs" in run.stdout


def test_accuracy_claim_gives_both_kappas_with_ci_n_and_split_round(tmp_path):
    from vignette_lab.engines import utterance_tagger as ut

    measured = tmp_path / "m.json"
    measured.write_text(json.dumps({"split": "test", "round": 3, "n": 380, "technique_macro_kappa": 0.545,
                                    "technique_macro_kappa_ci": [0.497, 0.588], "appropriateness_kappa": 0.535,
                                    "appropriateness_kappa_ci": [0.443, 0.617], "date": "2026-12-01"}),
                        encoding="utf-8")
    st = ut.evaluator_status("scripted", path=measured)
    ko, en = st["label_ko"], st["reason"]
    assert "기법 κ 0.55 [0.50, 0.59]" in ko and "적절성 κ 0.54 [0.44, 0.62]" in ko
    assert "n=380" in ko and "독립 평가 분할(3차, 조율에 쓰지 않은 자료)" in ko and "held-out" not in ko
    assert "appropriateness kappa 0.54 [0.44, 0.62]" in en and "test split n=380 (round 3)" in en
    assert st["appropriateness_ci"] == [0.443, 0.617] and st["round"] == 3
    # the repository's own figure file carries both intervals and the round
    repo = json.loads((ROOT / "datasets" / "eval" / "evaluator" / "metrics.json").read_text(encoding="utf-8"))
    assert repo.get("split") != "test" or (repo.get("appropriateness_kappa_ci") and repo.get("round"))
