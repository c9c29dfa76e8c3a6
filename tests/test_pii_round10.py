"""Ninth-session mechanisms of the PII gate (classes read on dev_r10, the round-9 held-out split).

The sentences are written for this test (not corpus cases): other values, other cue words, other
particles than the dev_r10 lines, so each checks a class, not a string. Both backends must mask
them with identical spans; the near misses must come back unchanged.
"""

from __future__ import annotations

import pytest

from vignette_lab.core import name_model
from vignette_lab.core.pii import mask_pii

#: (text, values that must not survive)
SHAPES = [
    # a name with its particle or copula typed apart (the learned model's nc:detached feature)
    ("시누이 김영자 가 제일 무서워요", ["김영자"]),
    ("새로 온 직원 이름이 박정호 인데 말을 안 해요", ["박정호"]),
    # a common word given a name's 이 before a particle (m_common_hypo)
    ("보람이가 어제 학교에서 울었대요", ["보람"]),
    # a rank after a full name (the title class now holds workplace and police ranks)
    ("담당하시는 최민석 경위님이 전화 주셨어요", ["최민석"]),
    # a Latin name with a copula or quotative typed apart
    ("작은딸은 Jasmine 예요", ["Jasmine"]),
    ("회사에서는 다들 Kevin 이라고 불러요", ["Kevin"]),
    # an address: a building's own name before its lettered block and unit, a mountain lot, a room
    ("주소는 서울 마포구 양화로 45 메세나폴리스 C동 1203호예요", ["양화로 45", "메세나폴리스", "1203호"]),
    ("친정 주소 전남 곡성군 오산면 가곡리 산 12", ["가곡리 산 12"]),
    ("안산시 원곡동 802-3 고시원 211호", ["원곡동 802-3", "211호"]),
    # schools by shape: a short school right after its town, a second one in a text about schooling,
    # a university by its short name before a department, a Latin school name
    ("둘째는 김포 사우중 다녀요", ["사우중"]),
    ("형은 양곡고 2학년이고 동생은 하성초 다녀요", ["양곡고", "하성초"]),
    ("조카가 아주대 간호학과 다녀요", ["아주대"]),
    ("Busan International School 다니다가 전학 왔어요", ["Busan International School"]),
    # a birthday after the English form label, an e-mail local part with the domain left out
    ("Date of birth: 1979-04-23", ["1979-04-23"]),
    ("kim.hr@ 다음은 회사 도메인 붙이면 돼요", ["kim.hr"]),
]

#: ordinary sentences near those shapes that must come back unchanged
CLEAN = [
    "여보야, 나 왔어. 오늘 좀 늦었지",
    "아가야 이리 와",
    "다솜이 사랑이라는 옛말이래요",
    "가람 이란 말이 강이라는 뜻이래요",
    "한결이란 단어가 좋아요",
    "카톡 아이디가 없어요 저는 전화번호로만 써요",
    "다누리콜센터 1577-1366 은 통역도 돼요",
    "외국인종합안내센터 1345 에 물어봤어요",
    "집은 서울 근처고요 회사는 멀어요",
    "부산 가는중이에요",
    "하늘은 맑고 바다는 파래요",
    "사람이 많아서 3호선 타고 왔어요",
    "학교 이름은 비밀이야 쌤",
    "이건 Excel 이에요",
    "삼십대 경영학과 졸업생이 많아요",
]


@pytest.mark.parametrize("backend", ["presidio", "regex"])
@pytest.mark.parametrize(("text", "values"), SHAPES)
def test_round10_shapes_are_masked(text, values, backend):
    masked = mask_pii(text, backend=backend).text
    assert not [v for v in values if v in masked], masked


@pytest.mark.parametrize("backend", ["presidio", "regex"])
@pytest.mark.parametrize("text", CLEAN)
def test_round10_near_misses_stay_unchanged(text, backend):
    assert mask_pii(text, backend=backend).text == text


@pytest.mark.parametrize("text", [t for t, _ in SHAPES] + CLEAN)
def test_backends_agree_on_round10_sentences(text):
    assert mask_pii(text, backend="presidio").entities == mask_pii(text, backend="regex").entities


def test_name_model_features_of_the_round10_classes():
    """The new features fire where they should and nowhere else."""
    syl = frozenset("영자정호보람")

    def feats(text: str, word: str, k: int) -> list[str]:
        s = text.index(word)
        e = s + len(word)
        return name_model.features(text, s, k, e, name_syllables=syl, given=frozenset(), not_names=frozenset())

    assert "nc:detached" in feats("시누이 김영자 가 무서워요", "김영자", 3)
    assert "nc:detached" not in feats("시누이 김영자가 무서워요", "김영자가", 3)  # glued: not apart
    assert "ctx:meaning" in feats("보람이 사랑이라는 옛말이래요", "보람이", 2)
    assert "ctx:meaning" not in feats("보람이 어제 울었어요", "보람이", 2)
    assert "address_term" in feats("여보야 나 왔어", "여보야", 2)
    assert "m_common_hypo" in feats("하늘이가 울었어요", "하늘이가", 2)
    assert "m_common_hypo" not in feats("하늘이 맑아요", "하늘이", 2)  # a bare subject 이: the noun itself
