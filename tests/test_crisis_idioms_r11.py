"""Eleventh session: two everyday idioms the retrained crisis readers fired on, by class (new wording).

* 긋다 drawing a line (an underline, a line with a highlighter, "선을 긋다" with a friend) is not cutting,
  unless a body part is named;
* 죽다 after an -어 clause in the future ("그림 하면 굶어 죽을 거래요") is an idiom, like "배고파 죽겠어".
"""

from __future__ import annotations

import pytest

from vignette_lab.engines import utterance_tagger as ut


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
