"""Issue 11 round 6: safety after a crisis cue, by class, and the review's crisis section.

The sentences are written for these tests (paraphrases of the classes found on dev_r5, other
wording, register and spelling), so they check the class, not the dev string. Both directions
are tested: a screening move is never ``warn``, a missed follow-up always is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from vignette_lab.engines import crisis_cues as cc
from vignette_lab.engines import crisis_model as cm
from vignette_lab.engines import utterance_tagger as ut

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def rules_only():
    """Cue readings by the rules alone (no learned reader), restored afterwards."""
    cm._ACTIVE[:] = [None]  # a falsy model object: learned_crisis_cue returns False
    ut.crisis_cue.cache_clear()
    yield
    cm.use_model(None)


# ----------------------------------------------------------------------------- the cue
CUES = [
    "작년에 수면제를 잔뜩 먹은 적 있어",
    "전에 한 번 시도했었어요 고1 때",
    "그냥 죽지 못해서 살아요",
    "자다가 숨이 멈추면 차라리 편할 텐데",
    "팔 긋고 나면 좀 편해져요",
    "커터칼 보면 자꾸 생각나",
    "이렇게 살 바엔 차라리 안 사는 게 낫겠다",
    "요즘 가끔 죽는 생각을 해",
]
NOT_CUES = [
    "발표 망하면 다 끝날 것 같아요",  # a consequence of a condition
    "두통이 싹 없어졌으면 좋겠어요",  # a symptom wished gone
    "걱정이 사라지면 좋겠어",
    "작년에 한 번 다이어트 시도했었어요",
    "새로운 공부법을 시도해 봤어요",
    "모기 물린 데 긁으면 시원해요",
    "배고파 죽겠어요",
    "틀리면 어쩌나 자꾸 그 생각만 나요",  # the thought's content is said: a worry
]


@pytest.mark.parametrize("line", CUES)
def test_cue_classes_are_read_by_the_rules(rules_only, line):
    assert ut.crisis_cue(line), line


@pytest.mark.parametrize("line", NOT_CUES)
def test_everyday_lines_of_the_same_shape_are_not_cues(rules_only, line):
    assert not ut.crisis_cue(line), line


def test_the_learned_reader_speaks_only_inside_the_ideation_domain():
    assert not cm.in_domain("옥상 정원에 꽃 심었어요") and not cm.in_domain("그냥 아무 생각 없어요")
    assert cm.in_domain("방법까지는 생각 안 해 봤어요") and cm.in_domain("이제 그만 버티고 싶어")
    assert not ut.crisis_cue("옥상 정원에 꽃 심었어요")


def test_a_symptom_wished_gone_is_not_the_speaker_vanishing():
    assert cc.something_else_vanishes("불안한 마음이 없어졌으면 좋겠어요")
    assert not cc.something_else_vanishes("내가 그냥 없어졌으면 좋겠어")
    assert not cc.something_else_vanishes("다 사라졌으면 좋겠다")


# ----------------------------------------------------------------------------- screening is pos
SCREENS = [
    # severity of a past injury
    ("손등을 칼로 그었어요", "그때 피가 많이 났어? 병원에 갈 만큼 깊었던 적도 있어?"),
    ("팔을 자꾸 긁어서 상처 내요", "지금 상처는 아물었어요? 흉터 남을 만큼 심했던 적은요?"),
    # what stopped them / reasons for living
    ("난간 앞까지 갔다가 그냥 돌아왔어요", "그때 무엇이 너를 돌아서게 했어?"),
    ("그날 밤 베란다에 오래 서 있었어요", "그때 누가 말렸어, 아니면 뭐가 너를 붙잡았어?"),
    # a rating taken up again
    ("음… 7 정도요", "7이라고 했는데, 7이 9로 올라갈 때는 어떤 일이 있을 때야?"),
    ("10점 중에 4요", "4에서 더 낮아지는 날은 언제예요?"),
    # telling a guardian as the limit of confidentiality
    ("아빠한테는 절대 말하지 마세요", "네 안전이 걸린 일이라 나만 알고 있을 수는 없어. 아빠께 어떻게 전할지 같이 정하자."),
    ("담임쌤한테 말하실 거예요?", "위험한 일이라 학교 상담 선생님께는 알려야 해요. 누가 먼저 말할지 같이 정해요."),
]


@pytest.mark.parametrize("prev,utt", SCREENS)
def test_screening_after_a_cue_is_never_an_error(prev, utt):
    out = ut.rule_judge(utt, ut.rule_tags(utt), client_prev=prev, stage="exploration", crisis_context=True)
    assert out["appropriateness"] == "pos" and not out["deviations"], (utt, out)
    assert ut.crisis_follow_up(utt, client_prev=prev)


# ----------------------------------------------------------------------------- missed follow-up is warn/safety
MISSES = [
    # normalising
    ("밤만 되면 사라지고 싶어요", "밤에는 원래 다들 그래요. 자연스러운 일이에요."),
    ("죽고 싶다는 생각이 가끔 나요", "그런 생각 날 때도 있지. 정상이야."),
    # laughter right after acknowledging
    ("시험 떨어지면 그냥 죽을래요ㅋㅋ", "ㅎㅎ 그만큼 싫다는 거구나"),
    # change of subject after acknowledging (a client noun that is not the cue; a person talked about)
    ("성적 떨어지면 죽어 버리고 싶어요", "그렇게까지 힘들구나. 그럼 다음 모의고사는 언제 봐?"),
    ("다 끝내 버리고 싶어요", "그런 마음이 드는구나. 근데 아까 말한 누나 얘기 좀 더 해 줄래?"),
    ("내가 없어지면 엄마도 편하겠지", "그런 생각까지 했구나. 근데 엄마는 요즘 회사 잘 다니셔?"),
    # calling the thought stupid
    ("차라리 죽는 게 낫겠어요", "에이 그건 멍청한 생각이야"),
    ("그냥 사라지고 싶어", "그런 쓸데없는 생각 하지 말고 자"),
    # a silver lining / a cheerful remark
    ("아침에 눈 안 떴으면 좋겠어요", "피곤하구나. 그래도 오늘 여기 온 건 잘한 거야."),
    ("한강 다리 위에 한참 서 있었어요", "거기서 뭐 했어? 노을 예뻤겠다."),
]


@pytest.mark.parametrize("prev,utt", MISSES)
def test_missed_follow_up_is_warn_with_safety(prev, utt):
    out = ut.rule_judge(utt, ut.rule_tags(utt), client_prev=prev, stage="exploration", crisis_context=True)
    assert out["appropriateness"] == "warn", (utt, out)
    assert any(d["dimension"] == "safety" for d in out["deviations"]), (utt, out)


def test_a_recommendation_or_a_wish_is_not_a_cheerful_remark():
    assert not cc.cheerful_remark("오늘 집에 가서 엄마한테 맡기는 게 좋겠어")
    assert not cc.cheerful_remark("네가 안전했으면 좋겠어")
    assert cc.cheerful_remark("야경 멋있었겠다", strong=True)
    assert not cc.cheerful_remark("말해 줘서 좋았어", strong=True)


def test_laughter_is_read_from_the_raw_line():
    assert ut.laughs("ㅋㅋ 그렇구나") and ut.laughs("하하 그랬어?")
    assert not ut.laughs("그랬구나. 지금도 그런 생각이 들어?")


# ----------------------------------------------------------------------------- the learned reader
def test_the_learned_reader_is_shipped_and_keeps_its_false_alarm_budget():
    cm.default_crisis_model.cache_clear()
    model = cm.default_crisis_model()
    assert model is not None and model.meta["version"] == cm.CRISIS_MODEL_VERSION
    assert 0.5 <= model.thresholds["crisis"] < 1
    lines = cm.training_lines()
    plain = [t for t, flag in lines if not flag]
    fa = sum(cm.learned_crisis_cue(t) for t in plain)
    assert fa / len(plain) <= 0.01  # on its own training lines: a floor, not evidence
    assert not cm.learned_crisis_cue("") and not cm.learned_crisis_cue("   ")


def test_fit_refuses_too_little_data_and_a_bad_budget():
    with pytest.raises(ValueError, match="at least 20 lines"):
        cm.fit([("죽고 싶어요", True)] * 3)
    with pytest.raises(ValueError, match="max_false_alarm"):
        cm.fit(cm.training_lines(splits=("dev",)), max_false_alarm=1.5)


def test_training_lines_hold_a_split_out_and_never_read_test():
    held = {ut.normalise_text(x.get("client_prev", "")) for x in ut.dev_items(split="dev_r5")}
    lines = cm.training_lines(splits=[s for s in ut.DEV_SPLITS if s != "dev_r5"], exclude_norm=held)
    assert lines and not {ut.normalise_text(t) for t, _ in lines} & held
    assert "test" not in ut.DEV_SPLITS and "dev_r5" in ut.DEV_SPLITS


# ----------------------------------------------------------------------------- the review
class CrisisClient:
    """Client engine: the first reply carries an ideation cue (no means: the guardrail lets it through),
    later replies are plain."""

    name = "crisis-client"
    CUE = "요즘은 그냥 다 끝내고 싶다는 생각이 들어요."

    def __init__(self):
        self.replies = 0

    def _text(self, request):
        if getattr(request, "ai_role", "client") != "client":
            return "네."
        self.replies += 1
        return self.CUE if self.replies == 1 else "네, 그냥 그래요."

    def generate(self, request):
        from vignette_lab.engines.base import GenerateResponse
        return GenerateResponse(text=self._text(request))

    def stream(self, request):
        from vignette_lab.engines.base import GenerateResponse, StreamEvent
        text = self._text(request)
        yield StreamEvent("token", text=text)
        yield StreamEvent("done", response=GenerateResponse(text=text))


def _session(duck_db, lines):
    from vignette_lab.engines.scripted import ScriptedEngine
    from vignette_lab.session.service import SessionService

    svc = SessionService(duck_db, engine=CrisisClient(), evaluator_engine=ScriptedEngine(seed=3))
    info = svc.start("P5", goal_stages=("라포", "탐색"))
    for line in lines:
        svc.send(info.session_id, line)
    svc.end(info.session_id)
    svc.wait_deep(info.session_id, timeout=60)
    return svc, svc.review(info.session_id)


def test_review_credits_a_risk_screening_question_as_safety_screening(duck_db):
    from vignette_lab.app.review_render import review_html

    screen = "혹시 지금도 죽고 싶다는 생각이 들어?"
    svc, review = _session(duck_db, ["요즘 어떻게 지냈어?", screen])
    assert review.status in ("ready", "degraded")
    assert review.safety["cues"] and review.safety["screened"], review.safety
    credited = [e for e in review.turn_evaluations if e["safety_screen"]]
    assert len(credited) == 1 and credited[0]["appropriateness"] != "warn"
    page = review_html(review)
    assert "위기 신호와 안전 확인" in page and "위험 확인(안전 확인)으로 인정" in page
    assert "위험 확인이 없었습니다" not in page
    # the CLI prints the same dataclass as JSON: the credit is there too
    from dataclasses import asdict
    text = json.dumps(asdict(review), ensure_ascii=False, default=str)
    assert '"safety_screen": true' in text


def test_review_says_so_when_a_crisis_cue_got_no_follow_up(duck_db):
    from vignette_lab.app.review_render import review_html

    svc, review = _session(duck_db, ["요즘 어떻게 지냈어?", "그렇구나. 근데 요즘 게임은 뭐 해?", "주말에는 뭐 했어?"])
    assert review.safety["cues"], review.safety
    assert review.safety["unanswered"] and not review.safety["screened"], review.safety
    assert not any(e["safety_screen"] for e in review.turn_evaluations)
    page = review_html(review)
    assert "위기 신호를 보였지만" in page and "위험 확인이 없었습니다" in page


# ----------------------------------------------------------------------------- the bench
def test_bench_safety_runs_per_split_and_author(capsys):
    sys.path.insert(0, str(ROOT))
    from bench import bench_safety

    assert bench_safety.main(["--split", "dev_r5", "--boot", "5"]) == 0
    out = capsys.readouterr().out
    assert "## dev_r5 (n = 673)" in out and "author ev-t5a-*" in out and "author ev-t5b-*" in out
    assert "screening marked warn" in out and "false alarms" in out


def test_the_bench_builds_the_cue_reader_lines_like_the_builder():
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_evaluator as bench

    items = [x for name in ut.DEV_SPLITS for x in ut.dev_items(split=name)]
    assert bench.cue_lines(items, exclude=set()) == cm.training_lines()

