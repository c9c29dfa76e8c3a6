"""Round 7 of issue 11: safety after a crisis cue decided by engagement, one crisis-cue reader, model names.

The sentences here are written for these tests (new wordings of the classes, not dev items), so they
check the mechanism, not memorised strings. Figures live in ``bench/RESULTS.md`` ("Issue 11 round 7").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from vignette_lab.engines import crisis_cues as cc
from vignette_lab.engines import crisis_engagement as ce
from vignette_lab.engines import utterance_tagger as ut

ROOT = Path(__file__).resolve().parents[1]


def _verdict(utterance: str, cue: str) -> dict:
    return ut.rule_judge(utterance, ut.rule_tags(utterance), client_prev=cue, stage="exploration", crisis_context=True)


# ----------------------------------------------------------------------------- engagement, both sides
@pytest.mark.parametrize("cue, utterance", [
    # the ideation asked about, in several registers and forms (question, instruction, statement)
    ("요즘은 다 귀찮고 그냥 없어지고 싶어", "없어지고 싶다는 게 혹시 죽음까지 생각하는 거야?"),
    ("매일 밤 그런 생각이 들어요", "그 생각이 들 때 스스로를 해칠까 봐 걱정된 적도 있으세요?"),
    ("사는 게 의미가 없어요", "사는 것 자체를 그만두고 싶다는 마음도 드는지 여쭤봐도 될까요?"),
    # a referral or help line, said as an instruction
    ("오늘따라 유난히 버티기 힘드네요", "오늘 밤 많이 힘들면 1393에 전화하거나 가까운 응급실로 가 주세요."),
    ("약을 조금씩 모으고 있어요", "그 약은 오늘 보호자께 맡기고, 위험하다 싶으면 바로 109에 연락해요."),
])
def test_a_turn_that_engages_the_risk_content_is_never_warn(cue, utterance):
    v = _verdict(utterance, cue)
    assert v["appropriateness"] == "pos" and not v["deviations"], v
    assert v["screen"], "the review credits it as safety screening"


@pytest.mark.parametrize("cue, utterance", [
    ("그냥 다 끝내고 싶어요", "ㅎㅎ 에이 설마. 그나저나 이번 주말엔 뭐 해?"),          # laughing it off, new topic
    ("죽고 싶다는 생각이 자꾸 나요", "그건 좀 유치한 생각인 것 같아요. 힘내요!"),       # judging the thought
    ("사라지고 싶어요", "다들 그런 생각 한 번씩 해. 그럼 오늘 숙제는 다 했어?"),        # normalising, subject change
    ("옥상에 자꾸 올라가게 돼요", "운동을 좀 해 봐. 땀 흘리면 기분 좋아져."),             # advice unrelated to the risk
])
def test_missed_follow_up_is_warn_with_the_safety_deviation(cue, utterance):
    v = _verdict(utterance, cue)
    assert v["appropriateness"] == "warn", v
    assert v["deviations"][0]["dimension"] == "safety" and v["deviations"][0]["severity"] == "high"


def test_laughter_quoted_before_an_explicit_screening_question_is_not_a_dismissal():
    cue = "시험 또 망치면 진짜 죽어야지ㅋㅋ"
    asked = "ㅋㅋ 붙여서 말했어도 나는 그냥 못 넘기겠어. 진짜로 죽고 싶은 마음이 든 적 있어?"
    assert ce.engages(asked, client_prev=cue) and not ce.hard_evidence(asked, client_prev=cue)
    assert _verdict(asked, cue)["appropriateness"] == "pos"
    laughed = "ㅋㅋ 시험 때는 다들 그렇지 뭐"
    assert ce.hard_evidence(laughed, client_prev=cue) and _verdict(laughed, cue)["appropriateness"] == "warn"


def test_judging_the_thought_stays_hard_evidence_even_next_to_a_question():
    u = "그런 바보 같은 생각 말고, 혹시 죽고 싶은 건 아니지?"
    assert ce.hard_evidence(u, client_prev="죽고 싶어요") and _verdict(u, "죽고 싶어요")["appropriateness"] == "warn"


def test_engagement_features_are_bounded_and_named():
    f = ce.engagement_features("그 생각이 들 때 누구한테 연락할 수 있어?", client_prev="죽고 싶을 때가 있어요")
    assert len(f) == len(ce.FEATURES) and all(0.0 <= x <= 1.0 for x in f)
    on = {n for n, x in zip(ce.FEATURES, f) if x}
    assert {"question_mark", "last_ask_risk"} <= on and "laughs" not in on


# ----------------------------------------------------------------------------- the model and its file
def test_the_shipped_engagement_model_is_trained_on_every_dev_split_and_reads_back():
    model = ce.default_engagement_model()
    assert model is not None and model.meta["version"] == ce.ENGAGEMENT_VERSION
    doc = json.loads(ce.ENGAGEMENT_EXPORT.read_text(encoding="utf-8"))
    assert doc["features"] == list(ce.FEATURES) and doc["n_train"] == len(ce.training_items())
    assert 0.3 <= model.threshold <= 0.95
    assert ce.load(doc).proba([0.0] * len(ce.FEATURES)) == model.proba([0.0] * len(ce.FEATURES))


def test_training_items_are_crisis_items_only_and_hold_a_split_out():
    held = {ut.normalise_text(x["counselor"]) for x in ut.dev_items(split="dev_r6")}
    items = ce.training_items(splits=[s for s in ut.DEV_SPLITS if s != "dev_r6"], exclude_norm=held)
    assert items and all(it["crisis_context"] and it["appropriateness"] in ("pos", "warn") for it in items)
    assert not {ut.normalise_text(it["counselor"]) for it in items} & held


def test_fit_refuses_too_little_data_and_a_bad_budget():
    few = [{"counselor": "그 생각 언제부터 들었어?", "client_prev": "죽고 싶어요", "appropriateness": "pos"}] * 5
    with pytest.raises(ValueError, match="at least 20 items"):
        ce.fit(few)
    with pytest.raises(ValueError, match="max_screen_warn"):
        ce.fit(ce.training_items(splits=("dev", "dev_r1")), max_screen_warn=1.0)


def test_without_the_model_the_shape_rules_decide(monkeypatch):
    monkeypatch.setattr(ce, "active_model", lambda: None)
    with ut._JUDGE_LOCK:
        ut._JUDGE_CACHE.clear()
    assert ce.disengaged("혹시 죽고 싶다는 생각까지 들어?", client_prev="다 끝내고 싶어요") is None
    v = _verdict("혹시 죽고 싶다는 생각까지 들어?", "다 끝내고 싶어요")
    assert v["appropriateness"] == "pos"  # crisis_follow_up, the older structural rule


# ----------------------------------------------------------------------------- one crisis-cue reader
def test_the_self_play_counselor_reads_cues_with_the_evaluators_reader():
    from vignette_lab.engines import scripted_counselor as sc

    assert sc.CRISIS_CUE is cc.EXPLICIT_CUE
    assert not hasattr(sc, "_ESCAPE_WISH") and not hasattr(sc, "_LIFE_JUDGED")
    for line in ("어디 멀리 아무도 모르는 데로 떠나 버리고 싶어요.", "살아 있는 게 요즘 너무 지쳐요."):
        assert cc.wish_to_be_gone(line) and cc.crisis_cue(line) and sc._crisis_cue(line, earlier=[], asked=False)
    # a symptom or an exam wished gone is not a cue for either
    for line in ("두통이 좀 사라졌으면 좋겠어요.", "시험이 빨리 끝났으면 좋겠어요."):
        assert not cc.crisis_cue(line) and not sc._crisis_cue(line, earlier=[], asked=False)


def test_a_thought_named_earlier_in_the_line_is_not_the_anaphoric_cue():
    assert cc.crisis_cue_reason("수학 문제 생각나면 자꾸 그 생각만 해요") is None
    assert cc.crisis_cue_reason("요즘 자꾸 그런 생각이 들어요") == "그 생각"


def test_the_cue_readers_domain_gate_takes_means_and_injuries_not_places_alone():
    from vignette_lab.engines import crisis_model as cm
    assert cm.in_domain("약통을 한참 보고 있었어요") and cm.in_domain("벽을 손 까질 때까지 쳤어요")
    assert not cm.in_domain("주말에 친구랑 영화 봤어요") and not cm.in_domain("옥상 정원에 꽃 심었어요")


# ----------------------------------------------------------------------------- names and the benches
def test_doctor_names_the_models_from_their_weight_files(monkeypatch):
    monkeypatch.delenv("VIGNETTE_EVALUATOR_MODEL", raising=False)
    monkeypatch.delenv("VIGNETTE_APPROPRIATENESS", raising=False)
    ut.default_model.cache_clear()
    kind = ut.evaluator_kind()
    shipped = json.loads(ut.TECHNIQUE_EXPORT.read_text(encoding="utf-8"))
    assert f"learned technique model {shipped['version']} (weights {shipped['training_hash']})" in kind
    engagement = json.loads(ce.ENGAGEMENT_EXPORT.read_text(encoding="utf-8"))
    assert f"crisis engagement model {engagement['version']} (weights {engagement['training_hash']})" in kind
    assert "i11.5" not in kind
    assert ut.evaluator_status()["active"] == f"scripted ({kind})"


def test_dev_r9_is_a_dev_split_everywhere_and_the_safety_bench_groups_thirteen_authors():
    sys.path.insert(0, str(ROOT))
    from bench import bench_evaluator, bench_safety

    # the shipped models train on every dev split, and the safety bench holds out the same splits
    assert {"dev_r7", "dev_r8", "dev_r9", "dev_r10"} <= set(ut.DEV_SPLITS) and "test" not in ut.DEV_SPLITS
    assert bench_safety.SPLITS == ut.DEV_SPLITS and set(ut.DEV_SPLITS) <= set(bench_evaluator.LABELS)
    groups = bench_safety.author_groups()
    assert len(groups) == 15 and {"ev-t6a-", "ev-t6b-", "ev-t4b-", "ev-t7a-", "ev-t7b-", "ev-t8a-", "ev-t8b-",
                                  "ev-t9a-", "ev-t9b-", "ev-t10a-", "ev-t10b-"} <= set(groups)
    assert sum(len(v) for v in groups.values()) == sum(len(ut.dev_items(split=s)) for s in ut.DEV_SPLITS)


# ----------------------------------------------------------------------------- the review, end to end
def test_the_review_credits_a_referral_said_as_an_instruction(duck_db):
    """SessionService on a DuckDB file: a cue, then a help-line referral phrased as an instruction."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_evaluator_round6 import _session

    from vignette_lab.app.review_render import review_html

    referral = "오늘 밤에 그 생각이 심해지면 바로 109에 전화하거나 가까운 응급실로 가 줘."
    _, review = _session(duck_db, ["요즘 어떻게 지냈어?", referral])
    assert review.safety["cues"] and review.safety["screened"] and not review.safety["unanswered"], review.safety
    credited = [e for e in review.turn_evaluations if e["safety_screen"]]
    assert len(credited) == 1 and credited[0]["appropriateness"] == "pos"
    assert "위험 확인(안전 확인)으로 인정" in review_html(review)
