"""Round 8 of issue 11: the screening and the missed follow-up classes read on dev_r7/dev_r8 and older splits.

The sentences here are written for these tests (new wordings of each class, not dev items), so they check
the mechanism, not memorised strings. Figures live in ``bench/RESULTS.md`` ("Issue 11, eighth session").
"""

from __future__ import annotations

import pytest

from vignette_lab.engines import crisis_engagement as ce
from vignette_lab.engines import crisis_model as cm


@pytest.mark.parametrize("cue, utterance", [
    # the support part of a safety plan: a person to reach, recall or rely on
    ("아무한테도 말 못 하겠어", "정말 힘들어질 때 연락해 볼 수 있는 사람이 한 명이라도 있을까?"),
    ("혼자인 것 같아요", "밤에 많이 힘들면 기댈 수 있는 어른이 누구일지 같이 떠올려 봐요."),
    # the means at hand (means restriction)
    ("방법은 생각해 봤어요", "그때 쓰려던 약이 지금도 방에 있어요?"),
    ("다 끝내고 싶어", "혹시 칼 같은 게 가까이 있니?"),
    # ending asked as a thought of one's own
    ("그냥 자다가 안 깼으면", "스스로 끝내고 싶다는 마음까지 든 적도 있었어?"),
])
def test_screening_in_new_shapes_engages_and_is_never_hard_evidence(cue, utterance):
    assert ce.engages(utterance, client_prev=cue)
    assert not ce.hard_evidence(utterance, client_prev=cue)
    assert ce.disengaged(utterance, client_prev=cue) in (False, None)


@pytest.mark.parametrize("cue, utterance", [
    # deferral or closing onto later/other talk without a safety check
    ("죽고 싶다는 생각이 자주 들어요", "그렇군요. 그건 다음 시간에 천천히 이야기해요."),
    ("칼로 팔 그은 적 있어요", "알겠어. 오늘은 여기까지 하고 다음엔 진로 얘기 하자."),
    # a topic-shifting conjunction opening a question on another topic
    ("그냥 사라지고 싶어요", "많이 지쳤구나. 그나저나 동아리 활동은 요즘 어때?"),
    # a guilt appeal with an honorific verb of knowing (kiwipiepy reads 아시면 as 아/IC + 시/EP)
    ("손목을 그었어요", "아빠가 아시면 얼마나 슬퍼하시겠어."),
    # a rhetorical why denying what the client said
    ("살아야 할 이유가 없어요", "이유가 왜 없어요 가족이 있잖아요."),
])
def test_moving_on_or_denying_after_a_cue_is_hard_evidence(cue, utterance):
    assert ce.hard_evidence(utterance, client_prev=cue)


@pytest.mark.parametrize("cue, utterance", [
    # a plan in a condition is not a deferral
    ("지금은 괜찮아요", "나중에라도 그런 마음이 들면 꼭 나한테 먼저 얘기해 줘."),
    # a shift that returns to self-harm or to the client's own words is not a change of subject
    ("요즘은 학원 잘 다녀요", "다행이다. 근데 저번에 팔 얘기 했었잖아, 그 뒤로 또 그은 적 있어?"),
    ("다 포기하고 싶어요", "포기하고 싶구나. 근데 포기라는 게 어떤 의미인지 좀 더 말해 줄래?"),
    # an exploring why is not a rhetorical one
    ("살 이유가 없어요", "왜 이유가 없다고 느끼게 됐는지 조금 더 들려줄래요?"),
])
def test_plans_returns_and_exploring_why_are_not_hard_evidence(cue, utterance):
    assert not ce.hard_evidence(utterance, client_prev=cue)


def test_one_out_of_fold_threshold_search_for_both_learned_crisis_parts():
    assert cm.oof_threshold([0.1, 0.2, 0.9], (0.5, 0.75, 0.95), budget=0.0) == 0.95
    assert cm.oof_threshold([0.1, 0.2, 0.9], (0.5, 0.75, 0.95), budget=0.34) == 0.5
    assert cm.oof_threshold([0.99], (0.5, 0.75), budget=0.0) == 0.75  # the last threshold when none fits
    with pytest.raises(ValueError):
        cm.oof_threshold([0.1], (), budget=0.0)
