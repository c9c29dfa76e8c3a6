"""Round-8 mechanisms of the PII gate, classes read from dev_r8 (the round-7 held-out split): a
flat number after an address already found, a bare month-and-day before 생일, a date before a
possessive 생일 (내생일), and a common noun with its case particle after 성함은/이름은.

The sentences are written for this test (not corpus cases) and vary each class (other values,
other building words, other particles), so each checks a mechanism, not a string. Both backends
must mask them with identical spans; the near misses must come back unchanged.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.pii import mask_pii

CLASS = [
    # the unit after an address: comma or space, an optional building word, 동 + 호 or 호 alone
    ("서울 마포구 월드컵로 120, 1503호로 보내 주세요", ["1503호", "월드컵로 120"]),
    ("역삼동 738-12 빌라 A02호 살아요", ["A02호", "역삼동 738-12"]),
    ("역삼동 738-12 3동 1204호요", ["1204호", "역삼동 738-12"]),
    ("부산 해운대구 우동 1408 오피스텔 807호", ["807호"]),
    # a bare MMDD right before 생일, with or without a particle
    ("1103 생일이라 케이크 삼", ["1103"]),
    ("0229가 생일인데 4년에 한 번이에요", ["0229"]),
    # a date before a possessive 생일
    ("다음 주 9월 14일 제생일이에요", ["9월 14일"]),
    ("3월 2일 내 생일임", ["3월 2일"]),
]

NEAR_MISSES = [
    "302호 강의실에서 상담했어요",
    "우리 반 0712 번호",
    "성함은 나중에 알려 드릴게요",
    "선생님 성함은 모르겠어요",
    "이름은 비밀로 하고 싶어요",
    "오늘이 내 생일이야",
    "3층 305호 상담실로 오세요",
]


@pytest.mark.parametrize("backend", ["regex", "presidio"])
@pytest.mark.parametrize("text,values", CLASS)
def test_the_class_is_masked(text, values, backend):
    masked = mask_pii(text, backend=backend).text
    assert not any(v in masked for v in values), masked


@pytest.mark.parametrize("backend", ["regex", "presidio"])
@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_stay_unchanged(text, backend):
    assert mask_pii(text, backend=backend).text == text


def test_a_unit_joins_its_address_in_one_mask():
    masked = mask_pii("역삼동 738-12 3동 1204호요", backend="regex")
    assert masked.text == "[ADDRESS]요" and len(masked.entities) == 1


def test_backends_find_identical_spans_on_the_round8_classes():
    for text in [t for t, _ in CLASS] + NEAR_MISSES:
        assert mask_pii(text, backend="presidio").entities == mask_pii(text, backend="regex").entities, text
