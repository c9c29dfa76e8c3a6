"""Round 9 of issue 11: crisis cues read from the client line and the follow-up classes read on dev_r9.

The sentences here are written for these tests (new wordings of each class, not dev items), so they check
the mechanism, not memorised strings. Figures live in ``bench/RESULTS.md`` ("Issue 11, ninth session").
"""

from __future__ import annotations

import pytest

from vignette_lab.engines import crisis_cues as cc
from vignette_lab.engines import crisis_engagement as ce
from vignette_lab.engines import utterance_tagger as ut


@pytest.mark.parametrize("line", [
    # the courage or resolve to die weighed
    "죽을 각오까지는 아직 없는 것 같아요",
    # indifference to living
    "이제 살든 죽든 별 상관없어요",
    # falling ill or collapsing wished for as the only rest
    "차라리 쓰러지면 며칠이라도 쉴 수 있을 텐데",
    "차라리 사고라도 크게 다쳤으면 좋겠어요 그럼 좀 쉬죠",
    # a high place: its railing, looking out for long, going there for no reason
    "다리 난간 잡고 한참 서 있었어요",
    "밤마다 베란다에서 오래 아래를 쳐다봐요",
    "어제 그냥 학교 옥상 한 번 올라가 봤어요",
    # doing "something" to oneself, denied or weighed
    "정말로 어떻게 하겠다는 건 아니에요 그냥 생각만",
    "생각은 해 봤죠 어떻게 할지",
    # a past attempt asked or denied, the bad thought had, giving everything up weighed
    "시도해 본 적은 없어요",
    "사실 지난주에 나쁜 생각 했어요",
    "그냥 다 포기할까 하다가 왔어요",
    # hitting a wall until the hand is hurt; relief after scratching
    "화나면 벽을 쳐서 손에 피가 나요",
    "긁고 나면 정신이 좀 차려지는 느낌이에요",
])
def test_indirect_cues_are_read_from_the_client_line(line):
    assert cc.crisis_cue_reason(line) is not None
    assert ut.crisis_cue(line)


@pytest.mark.parametrize("line", [
    "옥상 정원에 꽃 심었어요",
    "한강 가서 친구들이랑 치킨 먹었어요",
    "주말에 혼자 한강 가봤어요",
    "진짜 어떻게 해야 할지 모르겠어요 과제가 너무 많아서",
    "시험 어떻게 할지 생각 중이에요",
    "진로 생각해 봤어요 어떻게 할지",
    "다이어트 시도한 적 있어요",
    "학원 다 그만둘까 하다가 참았어요",
    "차라리 감기라도 걸렸으면 좋겠어요 학교 안 가게",
    "회사 옥상에서 담배 피우고 그냥 왔어요",
    # bearable is no doubt that one can hold out; others wished dead are not the client's own death
    "그래도 요즘은 버틸 만한 것 같기도 해요",
    "쟤네 다 죽었으면 좋겠다 진짜",
])
def test_everyday_lines_with_the_same_words_are_not_cues(line):
    assert cc.crisis_cue_reason(line) is None


def test_thinking_it_over_is_outside_the_learned_readers_domain():
    from vignette_lab.engines import crisis_model as cm

    assert not cm.in_domain("그럼 다음 주까지 생각해 올게요")
    assert cm.in_domain("죽는 생각을 해 봤어요")


@pytest.mark.parametrize("cue, utterance", [
    # a support person asked as someone who knows
    ("가끔 그런 생각 해요", "지금 이 얘기를 알고 있는 사람이 주변에 있어요?"),
    ("가끔 그래요", "이 마음 아는 사람이 집에 있어요?"),  # kiwipiepy may read 아는 as 아/NNG + 는
    # what holds the client asked as the strength it gives
    ("엄마 때문에 못 하겠어요", "엄마가 계신다는 게 힘든 순간에 얼마나 힘이 돼요?"),
    # a crisis service named and the client connected to it
    ("오늘 밤이 무서워요", "지역 위기 지원 센터가 있어요. 지금 바로 연결해 드릴게요"),
    # the help number of the safety plan, saved or written
    ("이제 가 봐도 돼요?", "응, 근데 아까 메모한 번호 폰에 저장했는지만 보여 줘"),
    # the urge to injure named in a question
    ("요즘은 좀 덜해요", "이번 주에 긋고 싶을 때 하기로 한 게 뭐였지?"),
])
def test_safety_moves_in_new_shapes_engage(cue, utterance):
    assert ce.engages(utterance, client_prev=cue)
    assert not ce.hard_evidence(utterance, client_prev=cue)


@pytest.mark.parametrize("cue, utterance", [
    # a secrecy promise to a named person, or kept between the two
    ("엄마한테는 말하지 마세요", "알았어 엄마한텐 절대 말 안 할게"),
    ("선생님만 알고 계세요", "그래 이건 우리 둘끼리만 알자"),
    # the promise that it gets better
    ("다 끝내고 싶어요", "방학 되면 금방 나아질 거야 조금만 참아"),
    ("사라지고 싶어요", "시간 지나면 다 괜찮아질 거예요"),
    ("오늘 말하니까 좀 낫네요", "그쵸? 이제 다 괜찮을 거예요"),
    # the thought allowed as harmless, or promised away by advice
    ("그냥 생각만 해요", "생각만 하는 거면 괜찮아요"),
    ("자꾸 사라지고 싶어요", "따뜻한 물로 샤워하고 자. 그러면 그런 생각 안 들어"),
    # the thought rebuked as a norm, judged as filial impiety, met with "toughen up"
    ("죽고 싶어요", "그런 말은 함부로 하는 거 아니야"),
    ("없어지고 싶어요", "부모님께 불효하는 생각이에요"),
    ("살기 싫어요", "마음을 굳게 먹으세요"),
    # deferral to later with a topic proposed for now, even as a question
    ("살아 있는 게 지쳐요", "그건 나중에 다루고, 오늘은 먼저 진로 얘기를 해 볼까요?"),
])
def test_dismissals_in_new_shapes_are_hard_evidence(cue, utterance):
    assert ce.hard_evidence(utterance, client_prev=cue)
    assert ce.disengaged(utterance, client_prev=cue) in (True, None)


@pytest.mark.parametrize("cue, utterance", [
    # the limit of confidentiality said with the promise
    ("엄마한테는 말하지 마세요", "엄마한텐 말 안 할게. 다만 네가 위험할 때는 알려야 해"),
    # asking whether it got better is no promise
    ("죽고 싶어요", "요즘은 좀 나아졌어요?"),
    # permission is no promise ("말해도 괜찮을 거예요")
    ("엄마가 알면 어떡해요", "엄마한테 말해도 괜찮을 거예요"),
    # "나약" only as the word, not inside another ("맡기시거나 약국에")
    ("약을 모아 뒀어요", "그 약은 가족에게 맡기시거나 약국에 반납하시면 어떨까요?"),
])
def test_limits_questions_and_means_removal_are_not_hard_evidence(cue, utterance):
    assert not ce.hard_evidence(utterance, client_prev=cue)


def test_screening_after_a_new_cue_is_never_warn_and_a_dismissal_is_safety():
    cue = "근데 아직 죽을 용기는 없어요"
    from vignette_lab.engines.scripted_evaluator import label_utterance

    # no crisis flag: the cue is read from the client line itself
    screen = label_utterance("혹시 구체적으로 방법을 생각해 본 적도 있어요?", client_prev=cue, stage="exploration")
    assert screen["appropriateness"] != "warn"
    dismiss = label_utterance("에이 그런 말 쉽게 하는 거 아니야", client_prev=cue, stage="exploration")
    assert dismiss["appropriateness"] == "warn"
    assert any(d["dimension"] == "safety" for d in dismiss["intent_deviation"])
