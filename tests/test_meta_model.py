"""The shipped meta-disclosure model: reproducible from the repository, cheap at runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.core import meta_model
from vignette_lab.core.guardrails import detect_ccd_meta_disclosure, detect_ccd_meta_rules

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import build_meta_model as builder  # noqa: E402
from meta_synth import generate  # noqa: E402


def test_shipped_weights_are_what_the_builder_produces():
    shipped = meta_model.MODEL_PATH.read_text(encoding="utf-8")
    assert shipped == builder.dump(builder.build()), "run: python bench/build_meta_model.py"


def test_training_hash_names_the_repository_data():
    shipped = json.loads(meta_model.MODEL_PATH.read_text(encoding="utf-8"))
    rows = builder.merge(builder.sources().values())
    assert shipped["training_hash"] == builder.training_hash(rows)
    assert shipped["training_counts"]["merged"] == len(rows)
    # the held-out split and the false-alarm pair are never training data
    assert not any("test" in name for name in shipped["training_counts"])
    assert not any("test" in n for _, names in builder.ORDINARY_FILES for n in names)
    assert not any("test" in str(p) for p in builder.EVAL_SPLITS.values())
    held = {meta_model.normalise(t) for t in builder.heldout_ordinary()}
    assert not held & {meta_model.normalise(t) for t, _ in builder.sources()["ordinary_negatives"]}


def test_runtime_needs_neither_scikit_learn_nor_numpy():
    code = ("import sys; from vignette_lab.core.meta_model import meta_score; meta_score('저 사실 AI예요'); "
            "print(sorted(m for m in ('sklearn', 'numpy', 'scipy', 'kiwipiepy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout


def test_another_file_format_is_refused(tmp_path):
    bad = tmp_path / "m.json"
    bad.write_text(json.dumps({"format_version": 99, "weights": {}}), encoding="utf-8")
    with pytest.raises(ValueError, match="format_version"):
        meta_model.load_model(bad)


def test_features_fold_spacing_case_and_digits():
    a, b = meta_model.features("개방도 0.8 이에요"), meta_model.features("개방도0.3이에요")
    assert "~개방도0" in a and "~개방도0" in b
    assert meta_model.features("AI") == meta_model.features("ai")
    assert meta_model.features("") == set()


@pytest.mark.parametrize("text", [
    "저는 그냥 훈련용으로 만들어진 챗봇이라서 그런 감정은 없어요",
    "스크립트상 여기서 제가 울어야 되는데 잘 안 되네요",
    "제 불안 수치가 0.7로 돼 있어서 계속 긴장한 척해요",
])
def test_model_only_hits_name_evidence_not_the_sentence(text):
    model = meta_model.load_model()
    assert model.fires(text)
    hits = detect_ccd_meta_disclosure(text)
    glued = meta_model.normalise(text).replace(" ", "")
    assert hits and all(h in text or (3 <= len(h) <= 4 and h.replace(" ", "") in glued) for h in hits), hits
    assert all(len(h) < len(text) // 2 for h in hits), hits


def test_a_model_only_hit_replaces_the_client_reply():
    from vignette_lab.core.guardrails import SAFE_FALLBACK_REPLY
    from vignette_lab.session.orchestrator import guard_client_reply

    text = "이 세션 끝나면 저는 선생님 얘기 다 잊어버리게 되어 있어요"
    assert not detect_ccd_meta_rules(text) and meta_model.load_model().fires(text)
    shown, events = guard_client_reply(text, 1)
    assert shown == SAFE_FALLBACK_REPLY and events[0]["kind"] == "ccd_meta_disclosure"
    assert guard_client_reply("요즘 잠을 잘 못 자요", 1) == ("요즘 잠을 잘 못 자요", [])


def test_synthetic_hard_negatives_stay_negative():
    # training material written by the model's tuner, not evidence: the everyday senses of
    # 역할/대본/시나리오/AI/점수/설정 and everyday English must never trigger the fallback
    _, negatives = generate()
    fired = [t for t in negatives if detect_ccd_meta_disclosure(t)]
    assert not fired, fired[:10]


def test_rules_alone_are_still_exported():
    assert detect_ccd_meta_rules("제 핵심신념은 저는 쓸모없다는 거예요")
    assert not detect_ccd_meta_rules("요즘 잠을 못 자요")
