"""Round-6 mechanisms of the PII gate: the classes added after dev_r6 (the round-5 held-out split).

The sentences are written for this test (not corpus cases) and vary each class (other values,
other cue words, other particles), so each checks a class of notation, not a string. Both
backends must mask them with identical spans; the near misses must come back unchanged; the
persona's display name becomes ``[CLIENT]`` where the gate finds it as a name, and nowhere else.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.pii import gate_text, mask_pii, pii_backend

#: (text, values that must not survive)
SHAPES = [
    # a person noun used as a title after a name
    ("이웃집 박순례 여사님께서 반찬을 주셨어요", ["박순례"]),
    ("아파트 경비 최만식 아저씨가 혼내셨어요", ["최만식"]),
    ("에밀리 아줌마는 영어 선생님이에요", ["에밀리"]),
    ("외할아버지 정봉수 어르신이 입원하셨어요", ["정봉수"]),
    # a foreign name of several words before a naming or title cue, the cue glued or apart
    ("쩐 반 훙 이라고 불러 주세요", ["쩐 반 훙"]),
    ("제시카 리라는 선배가 도와줬어요", ["제시카 리"]),
    ("옆집 응우옌 반 남 아저씨가 인사했어요", ["응우옌 반 남"]),
    # the antecedent of 걔 / 그 사람 later in the same sentence
    ("소피아가 수업에 늦어서 걔 대신 제가 발표했어요", ["소피아"]),
    ("하람이가 전학 와서 그 애랑 짝이 됐어요", ["하람"]),
    # a particle drawn out in speech before the agent cue
    ("아니 서하가아 나한테 먼저 욕했다니까", ["서하"]),
    # a spaced full name whose last syllable carries the particle
    ("우리 남편 박 준 호는 지금 출장 중이에요", ["박 준 호"]),
    # a kin word with its prefix (새아빠, 의붓형, 친엄마) before a name
    ("새엄마 오경희는 저한테 잘해줘요", ["오경희"]),
    ("의붓누나 다인이가 자꾸 무시해요", ["다인"]),
    # a kin word with a familiar suffix, a church title, a name with a pronoun for a person after it
    ("딸내미 소담이가 요즘 말을 안 해요", ["소담"]),
    ("우리 교회 김말숙 집사님이 기도해 주셨어요", ["김말숙"]),
    ("규원 걔는 맨날 지각해", ["규원"]),
    # the speaker's companion (X랑 제가 …), and a bare 나/너 as the object of what someone did
    ("세아랑 저는 초등학교 때부터 친구예요", ["세아"]),
    ("도겸이가 나 빼고 놀러 갔대", ["도겸"]),
    # the name read again in the plain frame of its cue when the typed word misleads morphology
    ("이웃 윤미숙 씨랑 같이 왔어요", ["윤미숙"]),
    ("걔 본명 서하준임", ["서하준"]),
    # a given name after 이름은 / 성함이, common word or not
    ("제 딸 이름은 보람이에요", ["보람"]),
    ("동생 이름이 슬기예요", ["슬기"]),
    # an e-mail with the at-sign spoken in Hangul
    ("haneul_02 앳 gmail 닷컴으로 보내 주세요", ["haneul_02"]),
    # a passport number after an abbreviated cue
    ("PPT no. MK4821937 이에요", ["MK4821937"]),
    ("pp# SN1234567 이거 제 거예요", ["SN1234567"]),
    # an id after another platform's name
    ("위챗 아이디 lin_mei88 추가해 줘", ["lin_mei88"]),
    ("스냅챗은 dodo_22a 로 해요", ["dodo_22a"]),
    # a phone read out with a joining word between its groups
    ("제 폰은 010에 5521 그리고 7788이에요", ["5521", "7788"]),
    ("010 하고 3344 하고 9900이요", ["3344", "9900"]),
    # a foreigner number spelled in Korean digit words after its cue
    ("외국인등록번호 팔일공삼이오 다시 육칠팔구공일이", ["팔일공삼이오", "육칠팔구공일이"]),
    # a month and day, or YYMMDD, glued to 생
    ("저 1102생이라 빠른 생일이에요", ["1102"]),
    ("동생은 090707생이에요", ["090707"]),
    # a region right before a school is part of the school's mask
    ("대구 한별여고 2학년이에요", ["대구", "한별여고"]),
    ("경기 성남시 푸름중학교 다녀요", ["성남시", "푸름중학교"]),
]

#: ordinary sentences near the new classes that must come back unchanged
NEAR_MISSES = [
    "반지하라서 습기가 많아요",
    "장난감 정리를 했어요",
    "90년생들이랑 일하면 편해요",
    "1985년생 선배들이 많아요",
    "경비 아저씨가 인사해 주셨어요",
    "옆집 아줌마가 반찬 주셨어요",
    "동네 어르신들이 공원에 계세요",
    "뉴욕이 너무 좋아서 걔랑 또 가고 싶어요",
    "학교가 끝나면 걔랑 놀아요",
    "하늘이 맑아서 그 애랑 산책했어요",
    "앳된 얼굴이라 다들 놀라요",
    "PPT 발표가 너무 떨려요",
    "한국 사람 이라고 하면 다 알아요",
    "베트남 쌀 국수 라는 메뉴가 있어요",
    "부산 가서 바다 봤어요",
    "매주 0930 생방송을 봐요",
    "그 이름은 지혜로운 사람에게 어울려요",
    "엄마랑 제가 또 싸웠어요",
    "고양이랑 저는 같이 자요",
    "게임이랑 나는 떼놓을 수 없어",
    "친구가 나 버리고 갔어",
    "시험이 나 괴롭혀요",
    "진로 선생님이 상담 받아 보래요",
    "새아빠 때문에 집에 가기 싫어요",
    "요즘 걔가 좀 이상해요",
    "학교 걔는 진짜 싫어",
    "동생놈이 또 게임만 해요",
    "교회 집사님이 도와주셨어요",
]


@pytest.fixture(params=["presidio", "regex"])
def backend(request):
    if request.param == "presidio" and pii_backend()["active"] != "presidio":
        pytest.fail("Presidio should load in this environment: " + pii_backend()["reason"])
    return request.param


@pytest.mark.parametrize("text, values", SHAPES)
def test_round6_shapes_are_masked(text, values, backend):
    masked = mask_pii(text, backend=backend).text
    assert not [v for v in values if v in masked], masked


@pytest.mark.parametrize("text", [t for t, _ in SHAPES] + NEAR_MISSES)
def test_backends_agree_on_round6_sentences(text):
    assert mask_pii(text, backend="presidio").entities == mask_pii(text, backend="regex").entities


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_round6_near_misses_stay_unchanged(text, backend):
    assert mask_pii(text, backend=backend).text == text


@pytest.mark.parametrize("text, expected", [
    ("하늘 씨, 오늘은 어떤 이야기를 하고 싶어요?", "[CLIENT] 씨, 오늘은 어떤 이야기를 하고 싶어요?"),
    ("제 이름은 하늘이에요", "제 이름은 [CLIENT]이에요"),
    ("김하늘 씨 맞으시죠?", "[CLIENT] 씨 맞으시죠?"),
    ("민지가 하늘 씨를 놀렸대요", "[NAME]가 [CLIENT] 씨를 놀렸대요"),
    # the same word as an ordinary word is not a name: nothing to retag
    ("오늘 하늘이 맑아서 좋았어요", "오늘 하늘이 맑아서 좋았어요"),
])
def test_persona_display_name_becomes_the_client_token(text, expected, backend):
    masked = mask_pii(text, backend=backend, client_names=("하늘(고2)",)).text
    assert masked == expected
    assert gate_text(masked) == masked  # every later gate (the store's) keeps the role token


def test_role_tokens_only_where_the_gate_finds_a_name():
    # 지우 is a persona name and a verb stem (지우다, to erase): only the name use is retagged
    assert mask_pii("지우 씨는 어떻게 생각해요?", client_names=("지우",)).text == "[CLIENT] 씨는 어떻게 생각해요?"
    assert mask_pii("그 기억을 지우고 싶어요", client_names=("지우",)).text == "그 기억을 지우고 싶어요"
    assert mask_pii("도윤 선생님께 여쭤볼게요", counselor_names=("도윤",)).text == "[COUNSELOR] 선생님께 여쭤볼게요"
    # without role names the same span is an ordinary [NAME]
    assert mask_pii("하늘 씨, 괜찮아요?").text == "[NAME] 씨, 괜찮아요?"


def test_prepare_turn_and_the_reply_tag_the_persona_name():
    from types import SimpleNamespace

    from vignette_lab.core.state import SessionState
    from vignette_lab.session.orchestrator import prepare_turn
    from vignette_lab.session.turns import mask_reply

    ctx = prepare_turn("하늘 씨, 오늘 기분은 어때요?", card_view={"display_name": "하늘"}, state=SessionState(),
                       client_names=("하늘",))
    assert ctx.learner_text_masked == "[CLIENT] 씨, 오늘 기분은 어때요?"
    reply = SimpleNamespace(reply_text="저는 그냥 하늘이라고 불러 주세요")
    assert mask_reply(reply, client_names=("하늘",)) == "저는 그냥 [CLIENT]이라고 불러 주세요"
