"""Eleventh session: two everyday idioms the retrained crisis readers fired on, by class (new wording).

* 긋다 drawing a line (an underline, a line with a highlighter, "선을 긋다" with a friend) is not cutting,
  unless a body part is named;
* 죽다 after an -어 clause in the future ("그림 하면 굶어 죽을 거래요") is an idiom, like "배고파 죽겠어".
"""

from __future__ import annotations

import pytest

from vignette_lab.engines import utterance_tagger as ut
from vignette_lab.engines import crisis_engagement as ce


@pytest.mark.parametrize("line", [
    "교재에 빨간 줄 그었어요", "중요한 문장에 밑줄 쫙 그었지", "걔랑은 이제 선 그었어요", "시험지에 빗금 그었어요",
    "음악 하면 굶어 죽을 거래요 아빠가", "이 월급으론 굶어 죽을 것 같아요", "추워 죽을 거 같아",
])
def test_drawing_a_line_and_the_starving_idiom_are_not_crisis_cues(line):
    assert not ut.crisis_cue(line), line


@pytest.mark.parametrize("line", [
    "팔에 줄 그었어요 어제", "손목에 선 그었어", "커터칼로 또 그었어요", "그냥 죽을 거예요", "나 이번엔 진짜 죽을 거야",
])
def test_cutting_and_the_plain_future_of_dying_stay_cues(line):
    assert ut.crisis_cue(line), line


def test_sleeping_is_no_drawing_tool_and_a_body_part_makes_it_cutting():
    from vignette_lab.engines.crisis_cues import draws_a_line

    assert draws_a_line({"밑줄", "긋"}) and draws_a_line({"형광펜", "긋"})
    assert not draws_a_line({"자", "긋"})  # 자다 ("자다가 … 그었어요"), not a ruler
    assert not draws_a_line({"팔", "줄", "긋"})


# "그럼/그러면" + a question about the next event on the calendar, after a cue: moving on (twelfth session).
@pytest.mark.parametrize("prev,utt", [
    ("수행평가 망하면 그냥 없어지고 싶어", "아 그랬구나ㅠ 그럼 이번 주말엔 뭐 해?"),
    ("다 그만두고 죽고 싶다는 생각만 들어요", "많이 지치셨네요. 그러면 내일 출근은 몇 시예요?"),
    ("살기 싫어 진짜", "그럼 담주 학원 일정은 어떻게 돼?"),
])
def test_then_plus_the_next_event_is_moving_on(prev, utt):
    assert ce._moves_on(utt, prev)
    out = ut.rule_judge(utt, ut.rule_tags(utt), client_prev=prev, stage="exploration", crisis_context=True)
    assert out["appropriateness"] == "warn" and any(d["dimension"] == "safety" for d in out["deviations"]), out


@pytest.mark.parametrize("prev,utt", [
    # a plan for the next time the thought comes is a safety move
    ("죽고 싶다는 생각이 자꾸 나요", "그럼 다음에 그런 생각이 또 들면 누구한테 먼저 연락할 수 있을까요?"),
    # the next event is the client's own stressor: staying with it
    ("시험 망하면 죽어버릴 거야", "그럼 이번 시험이 너한테 어느 정도로 무거운 거야?"),
    # a person the client named: not a calendar question
    ("엄마 때문에 사라지고 싶어", "그럼 이번 주말에 엄마랑은 어떻게 지낼 것 같아?"),
])
def test_then_questions_that_stay_are_not_moving_on(prev, utt):
    assert not ce._moves_on(utt, prev)
