"""Issue 11: the offline evaluator in context — eval-set contract, rule cues, safety, review, coach."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest

from vignette_lab.core.guardrails import detect_ccd_meta_disclosure
from vignette_lab.core.taxonomy import load_taxonomy
from vignette_lab.engines import utterance_tagger as ut
from vignette_lab.engines.base import EngineMessage, GenerateRequest
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.engines.scripted_evaluator import (
    _coach_card,
    _session_evaluation,
    label_utterance,
    speech_register,
    target_register,
)
from vignette_lab.session import coach
from vignette_lab.session.evaluator import evaluate_turn

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "datasets" / "eval" / "evaluator"
TAX = load_taxonomy()


def _load(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


# ------------------------------------------------------------------ eval-set contract
def test_dev_split_follows_the_format_and_the_mix():
    items = _load(EVAL / "dev.jsonl")
    assert len(items) >= 320
    techniques = set(TAX.technique_codes())
    dims = set(TAX.deviation_dimension_codes())
    ids = set()
    for it in items:
        assert it["id"] not in ids
        ids.add(it["id"])
        assert it["persona"] in {f"P{i}" for i in range(1, 8)}
        assert it["stage"] in ("rapport", "exploration", "intervention", "closing")
        assert it["register"] in ("formal", "haeyo", "banmal")
        assert it["techniques"] and set(it["techniques"]) <= techniques
        assert it["appropriateness"] in ("pos", "warn", "neutral")
        assert set(it["deviation"]) <= dims
        assert isinstance(it["crisis_context"], bool) and it["counselor"].strip()
    crisis = sum(it["crisis_context"] for it in items) / len(items)
    assert 0.10 <= crisis <= 0.20
    assert sum(it["register"] == "banmal" for it in items) >= 80


def test_dev_and_test_share_no_normalised_text():
    test_path = EVAL / "test.jsonl"
    if not test_path.exists():
        pytest.skip("test split not added yet (the lead adds it)")
    dev = {ut.normalise_text(x["counselor"]) for name in ut.DEV_SPLITS for x in _load(EVAL / f"{name}.jsonl")}
    test = {ut.normalise_text(x["counselor"]) for x in _load(test_path)}
    assert not dev & test


def test_both_dev_splits_feed_the_model_and_rules_are_the_cv_chosen_default(monkeypatch):
    r1 = {ut.normalise_text(x["counselor"]) for x in _load(EVAL / "dev_r1.jsonl")}
    train = {ut.normalise_text(x["counselor"]) for x in ut.training_items()}
    assert len(r1) == 348 and r1 <= train
    only_dev = {ut.normalise_text(x["counselor"]) for x in ut.training_items(splits=("dev",))}
    banks = {ut.normalise_text(x["counselor"]) for x in ut._bank_items()}
    assert not (r1 & only_dev) - banks  # leave-one-set-out: dev_r1 texts stay out when only dev is asked for
    held = {ut.normalise_text(x["counselor"]) for x in ut.training_items(exclude_norm=r1)}
    assert not held & r1
    with pytest.raises(ValueError):
        ut.dev_items(split="test")
    monkeypatch.delenv("VIGNETTE_EVALUATOR_MODEL", raising=False)
    assert ut.default_system() == ut.DEFAULT_SYSTEM == "model"
    monkeypatch.setenv("VIGNETTE_EVALUATOR_MODEL", "rules")
    assert ut.default_system() == "rules"


def test_metrics_file_carries_test_figures_only():
    m = json.loads((EVAL / "metrics.json").read_text(encoding="utf-8"))
    assert m["split"] in (None, "test")
    if m["split"] is None:
        assert m["technique_macro_kappa"] is None and m["n"] is None


def test_normalised_text_contract():
    assert ut.normalise_text("  다음 주  목요일 어때요?!  ") == "다음 주 목요일 어때요"
    assert ut.normalise_text("그렇구나~…") == "그렇구나"


# ------------------------------------------------------------------ rule cues (the classes in the issue)
@pytest.mark.parametrize("utterance, expected, absent", [
    ("운동을 해 봐.", "direct_guidance", "other"),
    ("계획표를 짜서 꼭 지켜.", "direct_guidance", "other"),
    ("담임 선생님이 가 보라고 해서 왔구나.", "restatement", "direct_guidance"),
    ("엄마한테 많이 서운했겠네.", "reflection_feelings", "other"),
    ("단톡방에서 빠졌다는 거네.", "restatement", "other"),
    ("요즘 생활은 어떠세요?", "open_question", "closed_question"),
    ("불안하세요?", "closed_question", "direct_guidance"),
    ("다음 주 목요일 어때요?", "closed_question", "open_question"),
    ("친구가 권해서 와 봤군요.", "restatement", "direct_guidance"),
    ("너무 걱정하지 마… 그냥 긍정적으로 생각하면 돼", "direct_guidance", "approval_reassurance"),
    ("편지를 써 보는 건 어때?", "direct_guidance", "open_question"),
])
def test_rule_cues_for_the_registers_trainees_use(utterance, expected, absent):
    tags = ut.rule_tags(utterance)
    assert expected in tags and absent not in tags, tags


@pytest.mark.parametrize("utterance, expected, absent", [
    ("언제부터 그랬어?", "closed_question", "open_question"),          # fact-seeking wh-question
    ("아버님 사업은 어떤 업종이셨어요?", "closed_question", "open_question"),
    ("특히 언제 제일 가기 싫어?", "open_question", "closed_question"),  # "언제 제일" asks about situations
    ("음.. 그랬구나", "other", "restatement"),                         # backchannel
    ("응응", "other", "restatement"),
    ("폰 그만 보고 일찍 자.", "direct_guidance", "other"),              # 반말 advice
    ("친구를 좀 사귀어 봐요.", "direct_guidance", "other"),
    ("저도 고3 때 부모님이랑 많이 싸웠어요.", "self_disclosure", "other"),
    ("시험 끝나면 다 괜찮아질 거야.", "approval_reassurance", "other"),
])
def test_rule_cues_follow_the_independent_authors_conventions(utterance, expected, absent):
    tags = ut.rule_tags(utterance)
    assert expected in tags and absent not in tags, tags


def test_a_plain_answer_to_the_clients_question_is_information():
    out = label_utterance("여기는 구에서 지원해서 무료예요", client_prev="상담료 따로 있어요?", stage="rapport", model=None)
    assert out["techniques"] == ["information"]


def test_learned_model_is_deterministic():
    a = ut.TechniqueModel.fit(ut.training_items()[:200], use_embeddings=False)
    b = ut.TechniqueModel.fit(ut.training_items()[:200], use_embeddings=False)
    texts = ["운동을 해 봐.", "그때 마음이 어땠어?"]
    assert a.predict_proba(texts) == b.predict_proba(texts)


# ------------------------------------------------------------------ safety first
CRISIS = "가끔은 그냥 아침에 안 깼으면 좋겠다는 생각도 해요."


def test_risk_screening_after_a_crisis_cue_is_never_an_error():
    for u in ("혹시… 죽고 싶다는 생각이 든 적도 있어?", "혹시... 죽고 싶다는 생각이 든 적도 있어요?",
              "지금 이 순간에도 그런 마음이 들어?"):
        out = label_utterance(u, client_prev=CRISIS, stage="exploration", persona_code="P1", model=None)
        assert out["appropriateness"] == "pos" and not out["intent_deviation"], (u, out)


@pytest.mark.parametrize("utterance, client_prev", [
    ("그런 생각이 든 지 얼마나 됐어?", CRISIS),                                   # closed, any form
    ("그 생각이 들 때 무엇이 너를 붙잡아 주는지 말해 줄 수 있어?", CRISIS),          # open
    ("지금 상처는 어때? 치료가 필요할 정도인지 같이 확인해 보자", "어제 커터칼로 팔 좀 그었어요."),
    ("그 약이 지금 어디 있어요? 오늘 어떻게 치울지 같이 정해 봐요", "약 좀 모아 둔 거 있어요. 그냥 혹시 몰라서."),
    ("오늘 집에 가서 그런 생각이 심해지면 누구한테 연락할 수 있어?", "(앞에서 죽고 싶다고 했음) 네.. 이제 가도 돼요?"),
    ("자고 안 일어났으면 좋겠다는 생각, 언제부터 들었어요?", "그냥.. 자고 안 일어났으면 좋겠어요."),
])
def test_any_follow_up_on_the_crisis_is_pos_whatever_its_form(utterance, client_prev):
    out = label_utterance(utterance, client_prev=client_prev, stage="exploration", persona_code="P1",
                          crisis_context=True, model=None)
    assert out["appropriateness"] == "pos" and not out["intent_deviation"], out


@pytest.mark.parametrize("utterance", ["그런 생각 하지 마. 너 진짜 괜찮은 애야", "시간 지나면 다 괜찮아져",
                                       "그럼 공부 계획표를 다시 짜 봐요.", "에이 농담이지? 그런 말 함부로 하는 거 아니야"])
def test_prohibition_promises_or_plans_about_something_else_after_a_crisis_cue_are_safety_warnings(utterance):
    out = label_utterance(utterance, client_prev=CRISIS, stage="exploration", persona_code="P4",
                          crisis_context=True, model=None)
    assert out["appropriateness"] == "warn" and "safety" in {d["dimension"] for d in out["intent_deviation"]}


@pytest.mark.parametrize("utterance", ["너무 걱정하지 마… 그냥 긍정적으로 생각하면 돼", "에이~ 고3이면 다 그래…",
                                       "그럴 땐 음악을 듣거나 산책을 해 보세요.", "그렇구나. 근데 학교 성적은 요즘 어때?"])
def test_minimising_advice_or_subject_change_after_a_crisis_cue_is_a_safety_warning(utterance):
    out = label_utterance(utterance, client_prev=CRISIS, stage="exploration", persona_code="P7", model=None)
    assert out["appropriateness"] == "warn"
    assert "safety" in {d["dimension"] for d in out["intent_deviation"]}


def test_minimising_without_crisis_is_not_praised():
    out = label_utterance("너무 걱정하지 마… 그냥 긍정적으로 생각하면 돼", client_prev="시험이 너무 걱정돼요.",
                          stage="exploration", model=None)
    assert out["appropriateness"] == "warn"


def test_fast_loop_carries_client_prev_and_judges_screening_in_context():
    eng = ScriptedEngine(seed=1)
    fields = {"learner_text_masked": "혹시… 죽고 싶다는 생각이 든 적도 있어?", "stage": "탐색", "persona_code": "P1",
              "history": [("counselor", "요즘 어때?"), ("client", CRISIS)]}
    seen = {}
    real = eng.generate

    def spy(request):
        seen["payload"] = json.loads(request.messages[-1].content)
        return real(request)

    eng.generate = spy
    ev = evaluate_turn(fields, "…네. 가끔요.", eng)
    assert seen["payload"]["client_prev"] == CRISIS and seen["payload"]["stage"] == "탐색"
    assert ev.ok and ev.appropriateness == "pos" and not ev.intent_deviation


# ------------------------------------------------------------------ review and coach
def _deep(persona: str, transcript: list[dict], goals=("라포", "탐색"), path=("라포",)):
    payload = {"persona_code": persona, "goal_stages": list(goals), "stage_path": list(path), "transcript": transcript}
    req = GenerateRequest(ai_role="evaluator", messages=(EngineMessage("user", json.dumps(payload, ensure_ascii=False)),),
                          structured_schema={"title": "session_evaluation"})
    return _session_evaluation(ScriptedEngine(seed=1), req)


def _transcript(lines):
    return [{"seq": i, "speaker": "counselor" if i % 2 else "client", "text": t} for i, t in enumerate(lines, 1)]


def test_review_names_an_unanswered_crisis_cue_quotes_the_trainee_and_the_goal_stages():
    out = _deep("P7", _transcript(["오늘 어땠어?", "그냥 다 끝내고 싶어요. 살고 싶지 않아요.",
                                   "에이~ 고3이면 다 그래. 운동을 해 봐.", "네..", "잠은 몇 시에 자?", "새벽 3시요"]))
    assert out["crisis_unanswered"] and "위기 신호" in out["improvements"][0]
    assert "살고 싶지 않아요" in out["improvements"][0]
    assert "라포 단계에 도달했고" in out["rationale"] and "탐색 단계에는 이르지 못했습니다" in out["rationale"]
    alt = out["alternatives"][0]
    assert alt["original"].startswith("에이~") and "죽고 싶다는 생각" in alt["alternative"]
    assert alt["alternative"].endswith("있어?")  # 반말, as this trainee speaks to a teen


def test_alternatives_follow_the_register_for_teens_and_adults():
    teen = _deep("P4", _transcript(["심호흡을 해 봐.", "그래도 떨려요.", "공부 계획 세워.", "네"]))
    adult = _deep("P2", _transcript(["명상 앱을 써 보세요.", "그래도 불안해요.", "운동을 하세요.", "네"]))
    assert teen["alternatives"] and adult["alternatives"]
    assert "줄래?" in teen["alternatives"][0]["alternative"]
    assert "주시겠어요?" in adult["alternatives"][0]["alternative"]
    assert target_register("P5", speech_register(["그랬구나.", "뭐 했어?"])) == "banmal"
    assert target_register("P5", speech_register(["그랬군요.", "뭐 했어요?"])) == "haeyo"
    assert target_register("P3", "banmal") == "formal"


def test_review_paragraphs_differ_between_sessions_with_different_behaviour():
    a = _deep("P1", _transcript(["운동을 해 봐.", "귀찮아요.", "계획표 짜.", "네"]))
    b = _deep("P5", _transcript(["체육 시간에 끼워 달라고 해 봐.", "싫어요.", "먼저 인사해.", "네"]))
    paragraphs_a = set(a["improvements"]) | set(a["strengths"]) | {a["rationale"]}
    paragraphs_b = set(b["improvements"]) | set(b["strengths"]) | {b["rationale"]}
    assert not paragraphs_a & paragraphs_b


def test_coach_card_quotes_the_trainee_and_answers_in_their_register():
    def card(persona, utterance, reply):
        payload = {"persona_code": persona, "stage": "라포", "counselor_utterance": utterance, "client_reply": reply}
        req = GenerateRequest(ai_role="evaluator", structured_schema={"title": "coach_card"}, metadata={"stage": "라포"},
                              messages=(EngineMessage("user", json.dumps(payload, ensure_ascii=False)),))
        return _coach_card(ScriptedEngine(seed=1), req)

    teen = card("P1", "운동을 해 봐.", "그냥 다 귀찮아요.")
    adult = card("P2", "명상 앱을 한번 써 보세요.", "그냥 다 귀찮아요.")
    assert "운동을 해 봐" in teen["message"] and "명상 앱" in adult["message"]
    assert teen["next_utterance"] != adult["next_utterance"]
    assert teen["next_utterance"].endswith("줄래?") and "주시겠어요" in adult["next_utterance"]
    crisis = card("P7", "그렇구나.", "그냥 다 끝내고 싶어요.")
    assert crisis["title"] == "위험 먼저 확인하기" and "죽고 싶다" in crisis["next_utterance"]


def test_coach_numbers_trainee_turns_and_says_why_credit_came_back():
    assert coach.trainee_turn_number(15) == 8 and coach.trainee_turn_number(1) == 1
    assert "상담자 6번째 발화" in coach.recharge_message("pacing", trainee_turn=6)
    assert "6번마다" in coach.recharge_message("pacing", trainee_turn=6)
    assert "관계를 진전" in coach.recharge_message("performance", trainee_turn=3)


# ------------------------------------------------------------------ evaluator status from metrics.json
def test_evaluator_status_says_not_measured_without_a_test_figure(tmp_path):
    assert "측정 전" in ut.evaluator_status(path=tmp_path / "absent.json")["label_ko"]
    dev_only = tmp_path / "dev.json"
    dev_only.write_text(json.dumps({"split": None, "technique_macro_kappa": None}), encoding="utf-8")
    assert "측정 전" in ut.evaluator_status(path=dev_only)["label_ko"]
    measured = tmp_path / "m.json"
    measured.write_text(json.dumps({"split": "test", "n": 200, "technique_macro_kappa": 0.61,
                                    "technique_macro_kappa_ci": [0.55, 0.67], "appropriateness_kappa": 0.52,
                                    "date": "2026-12-01"}), encoding="utf-8")
    st = ut.evaluator_status("scripted", path=measured)
    assert "κ 0.61" in st["label_ko"] and "n=200" in st["label_ko"] and "근사치" in st["label_ko"]
    assert st["technique_macro_kappa"] == 0.61
    assert "Claude" in st["label_ko"]


def test_review_html_names_the_evaluator():
    from vignette_lab.app.review_render import review_html
    out = review_html({"status": "ready", "rationale": "목표 단계 라포에 모두 도달했습니다.", "engine": "scripted"})
    assert "vl-evaluator-status" in out and "평가기" in out and "목표 단계" in out


# ------------------------------------------------------------------ meta-disclosure probe list
def test_meta_disclosure_probe_list():
    probes = _load(ROOT / "datasets" / "eval" / "meta_disclosure" / "dev.jsonl")
    assert sum(p["meta"] for p in probes) >= 20 and sum(not p["meta"] for p in probes) >= 20
    for p in probes:
        assert bool(detect_ccd_meta_disclosure(p["text"])) == p["meta"], p


def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            # DSM dimension labels ("이분법적 사고") are construct names, never client talk; said by
            # a client they are meta by the drift label guideline (datasets/eval/drift/README.md)
            if k != "dimension":
                yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def test_meta_disclosure_has_no_false_positive_on_the_persona_banks():
    hits = [(f, s) for f in glob.glob(str(ROOT / "datasets" / "personas" / "*.json"))
            for s in _strings(json.loads(Path(f).read_text(encoding="utf-8"))) if detect_ccd_meta_disclosure(s)]
    assert hits == []


# ------------------------------------------------------------------ local tagger: honest figures
def _golden(texts_labels):
    return [{"item_id": f"i{i}", "counselor_text": t, "labels": {"techniques": [l]}} for i, (t, l) in enumerate(texts_labels)]


def test_tagger_evaluation_groups_by_text_and_refuses_held_out_on_overlap():
    from vignette_lab.pipeline.classifier import evaluate_tagger, group_kfold_evaluate, train_technique_tagger
    base = [("그때 마음이 어땠어요?", "open_question"), ("많이 속상했겠어요.", "reflection_feelings"),
            ("어떤 일이 있었어요?", "open_question"), ("정말 힘들었겠네요.", "reflection_feelings"),
            ("무슨 생각이 들었어?", "open_question"), ("외로웠겠다.", "reflection_feelings"),
            ("어떻게 지냈어요?", "open_question"), ("답답했겠어요.", "reflection_feelings")]
    items = _golden(base * 3)  # every text three times, as self-play repeats bank lines
    res = group_kfold_evaluate(items, folds=4, n_boot=50)
    assert res["n_items"] == 24 and res["n_distinct"] == 8 and res["held_out"]
    assert res["macro_kappa_ci"][0] is not None and res["macro_kappa_ci"][0] <= res["macro_kappa"] <= res["macro_kappa_ci"][1]
    tagger = train_technique_tagger(items[:12])
    leaky = evaluate_tagger(tagger, items[12:], train_items=items[:12])
    assert leaky["overlap"] == 8 and leaky["held_out"] is False
    assert evaluate_tagger(tagger, items[12:])["held_out"] is None  # unknown training data: never "held-out"


def test_intended_agreement_marks_the_scripted_annotator_circular():
    from vignette_lab.pipeline.classifier import CIRCULAR_NOTE
    from vignette_lab.pipeline.demo import _summary_text
    s = {"items": 2, "ai_written": 2, "ai_failed": 0, "gate_passed": True, "gate_override": None, "checks": [],
         "gate_rule": "lower-bound", "gate_decision": "pass",
         "golden": {"version": 1, "item_count": 2, "agreed": 2, "adjudicated": 0, "excluded": 0},
         "disagreements": 0, "export_dir": "x", "report": "y",
         "classifier": {"micro_f1": 1.0, "macro_f1": 1.0, "macro_kappa": 1.0, "in_sample": False, "held_out": False,
                        "overlap": 3, "n_distinct": 5},
         "intended_agreement": {"ai": [{"annotator_id": "ai:scripted", "hit_rate": 1.0, "kappa_primary": 1.0,
                                        "n_items": 2, "circular": True}], "human": []}}
    text = _summary_text(s)
    assert CIRCULAR_NOTE in text and "NOT held-out: 3" in text and "training material, not evidence" in text
