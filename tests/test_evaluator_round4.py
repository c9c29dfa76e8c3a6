"""Issue 11 round 4: safety by construction after a crisis cue, crisis cues by shape, the learned tagger.

The wordings below are written for these tests (clumsy, typo'd, banmal, indirect); none is copied
from an evaluation split.
"""

from __future__ import annotations

import pytest

from vignette_lab.engines import crisis_cues
from vignette_lab.engines import technique_stack as ts
from vignette_lab.engines import utterance_tagger as ut
from vignette_lab.engines.scripted_evaluator import label_utterance

CUES = ["요즘 그냥 다 없어지고 싶어", "학교 옥상에 혼자 한참 서 있었어요", "어제 또 팔을 커터로 그었어"]

SCREENS = [
    "혹시 나쁜 생각까지…?",                             # indirect, no question word
    "혹시 죽고싶은 마음도 드는거야",                      # no spaces, no "?"
    "그런 맘 들면 실제로 뭘 해 본 적도 잇어?",            # typo (잇어), 맘
    "다친 데는 없어?",                                   # injuries
    "오늘 밤에 집에 누구 있어?",                          # being alone
    "약 같은 건 엄마한테 맡겨 두면 어떨까?",              # means removal, phrased as advice
    "너무 힘들면 109에 전화해. 24시간 받아",              # help line as an instruction
    "그 맘 올라오면 형한테 바로 문자하기로 하자",          # safety plan with a support person
    "지금 이 얘기 선생님한테 해도 될까? 너 안전이 제일 중요해서",  # telling a guardian
    "혹시 그 생각 할 때 방법 같은 것도 떠올라요?",          # plans/means, 해요체
]


@pytest.mark.parametrize("cue", CUES)
@pytest.mark.parametrize("utterance", SCREENS)
def test_screening_or_safety_plan_after_a_cue_is_never_warn(cue, utterance):
    for model in (None, "default"):
        out = label_utterance(utterance, client_prev=cue, stage="exploration", persona_code="P4", model=model)
        assert out["crisis"], cue
        assert out["appropriateness"] == "pos" and not out["intent_deviation"], (utterance, model, out)


DISMISSALS = [
    "그런 생각 하지 마 ㅋㅋ 다들 그래",                    # prohibition + normalising
    "에이 힘내! 좋은 생각만 하자",
    "엄마가 알면 얼마나 슬퍼하시겠어",                     # guilt
    "죽고 싶다는 말 함부로 하면 안 돼",                     # names the ideation, but forbids it
    "그런 짓은 절대 안 할 거지? 약속해",                    # leading check + forced promise
    "그건 그렇고 숙제는 다 했어?",                          # subject change
    "그냥 일찍 자. 자고 나면 괜찮아져",                     # advice + promise
]


@pytest.mark.parametrize("utterance", DISMISSALS)
def test_dismissal_advice_or_topic_change_after_a_cue_is_warn_safety(utterance):
    for model in (None, "default"):
        out = label_utterance(utterance, client_prev=CUES[0], stage="exploration", persona_code="P4", model=model)
        assert out["appropriateness"] == "warn", (utterance, model, out)
        assert any(d["dimension"] == "safety" for d in out["intent_deviation"]), out


def test_the_rule_cues_still_guard_a_crisis_move_whatever_tagger_gave_the_techniques():
    # A learned tagger that missed the advice must not turn it into an accepted move.
    verdict = ut.rule_judge("그냥 일찍 자 봐", ["other"], client_prev=CUES[0], stage="exploration")
    assert verdict["appropriateness"] == "warn"
    assert verdict["deviations"][0]["dimension"] == "safety"


@pytest.mark.parametrize("line", [
    "시험 끝나고 허벅지를 샤프로 막 찔렀어",               # body part/tool + injuring verb
    "손등을 피 날 때까지 꼬집어요",
    "밤에 베란다에 혼자 오래 서 있었어요",                  # high place + lingering
    "한강 다리 밑에 그냥 앉아 있다 왔어",
    "요즘도 그 생각 자주 들어요",                           # the ideation referred to
    "이상한 생각이 자꾸 나요 약통 보면",
    "사는 게 재미없어",                                     # life judged worthless
    "원서 떨어지면 인생 끝이야",
    "통장이랑 물건 다 정리해 뒀어요 혹시 몰라서",            # settling affairs
    "성적 떨어지면 죽어야지 뭐",
    "그냥 전부 다 그만두고 싶어",
])
def test_crisis_cues_are_read_by_shape(line):
    assert ut.crisis_cue(line), line


@pytest.mark.parametrize("line", [
    "모기 물린 데를 긁었어요", "한강에서 친구랑 자전거 탔어요", "그 생각 하면 짜증 나요", "시험 생각이 자꾸 나요",
    "방 정리 다 했어요", "사는 게 바빠요", "게임은 그만두고 싶진 않아", "옥상 정원에 꽃 심었어요",
])
def test_everyday_lines_are_not_crisis_cues(line):
    assert not ut.crisis_cue(line), line


def test_no_false_alarm_on_unflagged_lines_of_the_first_three_dev_splits():
    for split in ("dev", "dev_r1", "dev_r2"):
        for it in ut.dev_items(split=split):
            if not it["crisis_context"]:
                assert not ut.crisis_cue(it["client_prev"]), (split, it["client_prev"])


def test_screening_question_and_safety_plan_read_morphemes():
    assert crisis_cues.screening_question("혹시 나쁜 생각까지 드는 거야…")
    assert crisis_cues.screening_question("요즘도 자해 해?")
    assert not crisis_cues.screening_question("요즘 학교는 어때?")
    assert not crisis_cues.screening_question("무슨 생각 했어?")  # a plain open question, no risk stem
    assert crisis_cues.safety_plan("엄마한테 말씀드리는 거 같이 연습해 볼까요?", client_prev="엄마가 알면 난리 나요")
    assert crisis_cues.safety_plan("칼은 서랍에서 치워 두자")
    assert not crisis_cues.safety_plan("운동을 좀 해 봐")


# ------------------------------------------------------------------ the learned technique tagger
def test_morph_features_carry_the_sentence_final_ending():
    feats = ts.morph_features("많이 힘들었구나")
    assert "END=구나" in feats and any(f.startswith("힘들/") for f in feats)
    assert "END=어?" in ts.morph_features("그때 마음이 어땠어?") or any(
        f.startswith("END=") and f.endswith("?") for f in ts.morph_features("그때 마음이 어땠어?"))


def test_stacked_model_is_deterministic_and_tunes_thresholds_inside_its_training_data():
    items = ut.training_items()[:300]
    a = ts.StackedTechniqueModel.fit(items, use_rules=False)
    b = ts.StackedTechniqueModel.fit(items, use_rules=False)
    texts = ["운동을 해 봐.", "그때 마음이 어땠어?"]
    assert a.predict_proba(texts) == b.predict_proba(texts)
    assert a.thresholds == b.thresholds and set(a.thresholds) == set(ut.TECHNIQUES)
    assert all(0.1 <= t <= 0.8 for t in a.thresholds.values())
    assert all(set(p) <= set(ut.TECHNIQUES) and p for p in a.predict(texts))
    stack = ts.StackedTechniqueModel.fit(items, use_rules=True)
    assert stack.use_rules and stack.predict(texts)
    with pytest.raises(ValueError):
        ts.StackedTechniqueModel.fit(items[:3])


def test_default_tagger_is_the_learned_model_and_rules_switch_it_off(monkeypatch):
    monkeypatch.delenv("VIGNETTE_EVALUATOR_MODEL", raising=False)
    ut.default_model.cache_clear()
    model = ut.default_model()
    from vignette_lab.engines import linear_runtime
    assert isinstance(model, linear_runtime.ExportedTechniqueModel) and not model.use_rules
    assert "direct_guidance" in ut.tag("운동을 좀 해 봐", model=model)
    assert "open_question" in ut.tag("그때 기분이 어땠어?", model=model)
    monkeypatch.setenv("VIGNETTE_EVALUATOR_MODEL", "rules")
    ut.default_model.cache_clear()
    assert ut.default_model() is None
    assert ut.evaluator_status()["active"].startswith("scripted (rules")
    monkeypatch.delenv("VIGNETTE_EVALUATOR_MODEL")
    ut.default_model.cache_clear()
    assert "learned technique model" in ut.evaluator_status()["active"]


def test_a_figure_measured_on_an_earlier_evaluator_version_says_so(tmp_path, monkeypatch):
    import json
    monkeypatch.delenv("VIGNETTE_EVALUATOR_MODEL", raising=False)
    monkeypatch.delenv("VIGNETTE_APPROPRIATENESS", raising=False)
    old = tmp_path / "m.json"
    old.write_text(json.dumps({"evaluator": "scripted (rules; appropriateness model i11.3)", "split": "test", "n": 380,
                               "technique_macro_kappa": 0.545, "technique_macro_kappa_ci": [0.497, 0.588],
                               "appropriateness_kappa": 0.535, "date": "2026-12-01"}), encoding="utf-8")
    st = ut.evaluator_status("scripted", path=old)
    assert "이전 버전 평가기" in st["label_ko"] and "earlier evaluator version" in st["reason"]
    same = tmp_path / "same.json"
    same.write_text(json.dumps({**json.loads(old.read_text(encoding="utf-8")), "evaluator": st["active"]}),
                    encoding="utf-8")
    assert "이전 버전" not in ut.evaluator_status("scripted", path=same)["label_ko"]
