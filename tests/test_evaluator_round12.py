"""Round 12 of issue 11: the safety judgement after a crisis cue, classes read on dev_r10's misses.

The sentences here are written for these tests (new wordings of each class, not dev items), so they check
the mechanism, not memorised strings. Each class has cases that must fire and cases that must not.
"""

from __future__ import annotations

import pytest

from vignette_lab.engines import crisis_cues as cc
from vignette_lab.engines import crisis_engagement as ce


def _sentence(text: str):
    return cc._split_sentences(cc._morphs(cc._surface(text)) or ())[-1]


# ----------------------------------------------------------------------------- a rating of another state
@pytest.mark.parametrize("cue, utterance", [
    ("없어지고 싶다는 생각이 자꾸 나요", "그럼 오늘 컨디션은 0부터 10까지 중에 몇 점쯤이야?"),
    ("죽어 버리고 싶어요", "요즘 스트레스는 1에서 10 중에 몇 정도예요?"),
    ("다 끝내 버리고 싶어요", "그러면 이번 주 수업 만족도는 10점 만점에 몇 점이에요?"),
])
def test_a_rating_of_the_mood_or_a_topic_is_no_screening(cue, utterance):
    assert cc.rates_another_state(_sentence(utterance), client_prev=cue)
    assert not cc.follow_up_shape(utterance, client_prev=cue)
    assert cc.new_topic_question(utterance, client_prev=cue)
    assert ce.hard_evidence(utterance, client_prev=cue)


@pytest.mark.parametrize("cue, utterance", [
    ("없어지고 싶다는 생각이 자꾸 나요", "그 생각이 가장 강할 때를 0부터 10으로 치면 몇 점이야?"),
    ("손목을 긋고 싶을 때가 있어요", "긋고 싶은 마음이 요즘은 10점 중에 몇 정도야?"),
    ("요즘은 좀 괜찮아요", "다행이다. 그래도 지금 이 순간은 10점 중에 몇 점쯤이야?"),
    # the anchors describe the urge itself
    ("한 주에 두어 번요", "0이 그냥 떠올랐다 사라지는 거고 10이 정말 행동으로 옮기고 싶은 거면 요즘은 몇쯤이에요?"),
])
def test_a_rating_of_the_thought_or_urge_stays_a_screening(cue, utterance):
    assert not cc.rates_another_state(_sentence(utterance), client_prev=cue)
    assert not ce.hard_evidence(utterance, client_prev=cue)


# ----------------------------------------------------------------------------- the thought explained away
@pytest.mark.parametrize("cue, utterance", [
    ("사라지고 싶을 때가 있어요", "잠이 부족하면 그런 생각이 쉽게 들 수 있어요. 오늘은 일찍 자요"),
    ("죽고 싶다는 생각을 해요", "갱년기에는 호르몬 때문에 그런 생각이 드는 거예요"),
    ("그냥 다 끝내고 싶어요", "다 끝내고 싶다는 건 쉬고 싶다는 뜻일 거예요"),
    ("없어지고 싶어요", "게임을 줄이면 그런 생각 덜 들 거야"),
    ("없어지고 싶어요", "'없어지고 싶다'는 건 그냥 지쳤다는 신호일지도 몰라요"),
])
def test_the_thought_explained_or_relabelled_is_hard_evidence(cue, utterance):
    assert ce._explains_away(utterance, cue)
    assert ce.hard_evidence(utterance, client_prev=cue)


@pytest.mark.parametrize("cue, utterance", [
    # the same words, asked about or wanted to know
    ("사라지고 싶을 때가 있어요", "잠이 부족할 때 그런 생각이 더 드는지 궁금해요"),
    ("죽고 싶다는 생각을 해요", "그런 생각이 드는 게 언제부터였어요?"),
    ("그냥 다 끝내고 싶어요", "다 끝내고 싶다는 게 삶을 끝내고 싶다는 뜻인지 여쭤봐도 될까요?"),
    # a reflection that names no cause
    ("없어지고 싶어요", "그런 생각이 들 만큼 많이 지쳤구나"),
])
def test_the_thought_asked_about_or_reflected_is_not_explained_away(cue, utterance):
    assert not ce._explains_away(utterance, cue)


# ----------------------------------------------------------------------------- leading checks and character vouching
@pytest.mark.parametrize("cue, utterance", [
    ("죽을까 하는 생각을 했어요", "죽는다고? 설마 정말 그러려는 건 아니죠?"),
    ("유서를 써 봤어요", "우리 민지는 그럴 아이가 아니잖아"),
    ("자해하고 싶어요", "에이 넌 그럴 사람 아니야"),
])
def test_a_leading_denial_or_vouching_is_hard_evidence_even_naming_the_ideation(cue, utterance):
    assert ce.hard_evidence(utterance, client_prev=cue)


def test_an_ideation_question_after_a_laugh_still_engages():
    cue = "죽고 싶다 ㅋㅋ 농담"
    assert not ce.hard_evidence("웃으며 말했지만, 정말 죽고 싶다는 생각이 든 적 있어?", client_prev=cue)


# ----------------------------------------------------------------------------- engagement shapes
@pytest.mark.parametrize("cue, utterance", [
    # bringing in a guardian now, or staying with the client
    ("지금도 하고 싶어요", "지금 바로 제가 보호자분께 전화드릴게요"),
    ("무서워요", "잠깐만 나랑 같이 있어 줘. 끊지 말고"),
    # recurrence of what the client told, pointing back to it
    ("작년에 한 번 약을 먹었어요", "그 일 이후로 또 그런 적이 있었어요?"),
    # intent asked
    ("옥상 사진을 자꾸 봐요", "그 사진 보다가 직접 올라가려고 생각해 본 적 있어?"),
    # the client's words quoted back and asked about
    ("내가 없으면 다들 편하겠죠", "'다들 편하겠죠'라는 말이 마음에 걸려요. 어떤 뜻인지 더 듣고 싶어요"),
])
def test_safety_moves_in_new_shapes_engage(cue, utterance):
    assert ce.engages(utterance, client_prev=cue)
    assert not ce.hard_evidence(utterance, client_prev=cue)
    assert ce.disengaged(utterance, client_prev=cue) in (False, None)


@pytest.mark.parametrize("cue, utterance", [
    # a secrecy promise is no guardian brought in
    ("엄마한테 말하지 마세요", "알았어, 엄마한테는 말 안 할게"),
    # a quote of words the client did not say
    ("죽고 싶어요", "'힘내'라는 말 많이 들었지? 그래서 요즘 학원은 어때?"),
    # recurrence of a topic of the counselor's own, not what the client told
    ("다 끝내고 싶어요", "다음 시험은 언제 또 봐?"),
])
def test_near_shapes_do_not_engage(cue, utterance):
    assert not ce.engages(utterance, client_prev=cue)


def test_a_topic_shift_opened_by_so_is_moving_on():
    cue = "사라지면 편할 것 같아요"
    assert ce.hard_evidence("그래서 요즘 동아리 활동은 어때?", client_prev=cue)
    assert not ce.hard_evidence("그래서 그 생각이 들 때 주로 뭘 해?", client_prev=cue)


def test_screening_is_pos_and_explaining_away_is_safety_in_the_evaluator():
    from vignette_lab.engines.scripted_evaluator import label_utterance

    cue = "요즘 그냥 없어지고 싶어요"
    screen = label_utterance("그 생각이 가장 셀 때는 10점 중에 몇 점이에요?", client_prev=cue, stage="exploration",
                             crisis_context=True)
    assert screen["appropriateness"] == "pos"
    rated = label_utterance("그럼 오늘 기분은 10점 만점에 몇 점이에요?", client_prev=cue, stage="exploration",
                            crisis_context=True)
    assert rated["appropriateness"] == "warn"
    assert any(d["dimension"] == "safety" for d in rated["intent_deviation"])
