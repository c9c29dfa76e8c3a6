"""Round-7 mechanisms of the PII gate: a cue-anchored value recogniser, a shape rule for long
numbers, and the name classes read from dev_r7 (the round-6 held-out split).

The sentences are written for this test (not corpus cases) and vary each class (other values,
other groupings, other cue words and particles), so each checks a mechanism, not a string. Both
backends must mask them with identical spans; the near misses must come back unchanged.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.pii import mask_pii, pii_backend

#: (text, values that must not survive): a value-shaped run a few words after (or just before) its
#: category's cue, whatever its grouping, letters inside it, or the words between
CUE_VALUES = [
    ("여권 번호는 음 X12Y34567 맞을 거예요", ["X12Y34567"]),
    ("passport number is K 1234 5678", ["K 1234 5678"]),
    ("R7731 0452 이게 여권번호예요", ["R7731 0452"]),
    ("신한 계좌로 110 - 432 - 998877 보내주세요", ["110 - 432 - 998877"]),
    ("통장 번호 불러드릴게요 3021  8877  4410", ["3021  8877  4410"]),
    ("외국인 등록번호는요 음 910203 6543210", ["910203 6543210"]),
    ("연락처 바뀌었어 010 - 12 34 - 56 78", ["010 - 12 34 - 56 78"]),
    # a plate: any syllable that is no counter, region and city with or without digits
    ("제 차는 27 너 8812 이에요", ["27 너 8812"]),
    ("번호판 전남 목포 바 5521 이었어요", ["전남 목포 바 5521"]),
    # a handle a few words after its app, Latin pieces joined by a spoken underscore
    ("인스타 계정은 음 dal_bit.22 이에요", ["dal_bit.22"]),
    ("카톡 아이디는요 minji 언더바 0303", ["minji 언더바 0303"]),
    ("insta id is moon.light_7", ["moon.light_7"]),
    ("틱톡 닉네임 별빛소녀_07 이에요", ["별빛소녀_07"]),
]

#: one value told in parts after its cue: every part goes, the parts together make the value
PARTS = [
    ("카드 번호 앞 네 자리 5391 가운데는 모르고 끝은 2280", ["5391", "2280"]),
    ("계좌는 앞이 3333 중간 07 끝이 1234567 이에요", ["3333", "1234567"]),
    ("외국인 등록번호 앞은 880412 뒤는 5234567", ["880412", "5234567"]),
    ("여권 번호 맨 앞에 S 그다음 40918273", ["앞에 S", "40918273"]),
    ("여권번호 엠 일이삼사오육칠팔", ["엠", "일이삼사오육칠팔"]),
    ("폰 번호가 010-55 아 잠깐 12-9087", ["010-55", "12-9087"]),
]

#: nine digits or more in any grouping, with no cue at all
LONG_RUNS = [
    ("학번은 2024 1108 73 이에요", ["2024 1108 73"]),
    ("이거 적어둬 33 41 07 29 18", ["33 41 07 29 18"]),
]

#: names
NAMES = [
    ("Hyunwoo랑 같이 갔어요", ["Hyunwoo"]),
    ("Daniel한테 물어봤어", ["Daniel"]),
    ("Sora라고 불러주세요", ["Sora"]),
    ("박 선생님이요? 성만 알아요", ["박"]),
    ("윤쌤이 불렀어요", ["윤"]),
    ("강태오 그 새끼가 또 그랬어요", ["강태오"]),
    ("그 새끼 오지환 진짜 싫어", ["오지환"]),
    ("서윤이 그냥 걔가 먼저 그랬어", ["서윤"]),
    ("에밀리랑 올리비아 둘 다 같은 반이에요", ["에밀리", "올리비아"]),
    ("제시카가 우리 반 담임인데 좋아요", ["제시카"]),
    ("아빠 성함요? 조만식이요", ["조만식"]),
    ("원래 이름은 이지원이에요", ["이지원"]),
    ("제 동생 한 다 인 이라는 애가 있어요", ["한 다 인"]),
    # a nickname made from a name found in the same text, written as it is said
    ("민호는 친구들이 미노라고 불러요", ["민호", "미노"]),
    ("꺼니야 그거 건희 별명이잖아 건희가 싫어해", ["꺼니", "건희"]),
]

#: near misses: quantities, years, help lines, birth years without a day, ordinary words
CLEAN = [
    "통장에 3500000원 있어요",
    "카드값 1,250,000원 나왔어요",
    "차 2대 3000만원이라니 말이 돼요?",
    "2019 2020 2021 2022 이렇게 4년 동안 다녔어요",
    "힘들면 1577-0199 1393 109 어디든 전화해요",
    "학생 수는 1200 1300 1400명으로 늘었어요",
    "저 99년생인데 친구들은 다 결혼했어요",
    "2010년생이라 올해 중3이에요",
    "아 그리고 저 이번주 토요일에 친구들이랑 놀러가요",
    "편의점 알바하는데 진상손님 너무 많아요",
    "다솜이 사랑이라는 뜻이래요",
    "이 선생님 좋아요",
    "오 선생님 감사해요",
    "남 선생님이 오셨어요",
    "전 선생님이 되고 싶어요",
    "Netflix 보다가 잤어요",
    "Excel이랑 PPT 배워요",
    "Google한테 물어봐도 안 나와요",
    "카드 3장 중에 2장 잃어버렸어요",
    "차로 30분 걸려요 12시에 출발해요",
    "인스타 스토리에 올렸어요",
    "번호표 17번 받았어요",
]


@pytest.fixture(params=["presidio", "regex"])
def backend(request):
    if request.param == "presidio" and pii_backend()["active"] != "presidio":
        pytest.fail("Presidio should load in this environment: " + pii_backend()["reason"])
    return request.param


@pytest.mark.parametrize("text,values", CUE_VALUES + PARTS + LONG_RUNS + NAMES)
def test_the_class_is_masked(text, values, backend):
    masked = mask_pii(text, backend=backend).text
    assert not [v for v in values if v in masked], masked


@pytest.mark.parametrize("text", CLEAN)
def test_near_misses_stay_unchanged(text, backend):
    assert mask_pii(text, backend=backend).text == text


def test_a_birth_year_with_its_day_is_masked():
    assert "07년생" not in mask_pii("저 07년생 5월 21일 생이에요").text
    assert mask_pii("저 07년생이에요").text == "저 07년생이에요"


def test_no_lone_vocative_syllable_is_left_before_a_title():
    for text in ("타쿠야 선배가 도와줬어요", "어제 타쿠야 선배랑 밥 먹었어"):
        masked = mask_pii(text).text
        assert "타쿠" not in masked and "[NAME]야" not in masked, masked


def test_a_particle_glued_before_a_value_stays_a_particle():
    assert mask_pii("계좌는 앞이 3333 중간 07 끝이 1234567 이에요").text == \
        "계좌는 앞이 [NUMBER] 중간 [NUMBER] 끝이 [NUMBER] 이에요"


def test_backends_find_identical_spans_on_the_round7_classes():
    for text, _ in CUE_VALUES + PARTS + LONG_RUNS + NAMES:
        assert mask_pii(text, backend="presidio").entities == mask_pii(text, backend="regex").entities, text
    for text in CLEAN:
        assert mask_pii(text, backend="presidio").entities == mask_pii(text, backend="regex").entities, text
