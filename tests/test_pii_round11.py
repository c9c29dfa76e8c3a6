"""Eleventh session: two verbs the learned name model read as names in round 10's clean sentences (new wording).

* 안 + 나다 after the subject it takes ("기억이 안나요", "잠이 안났어"): to come up / to come, negated;
* a verb's adnominal before 지 and a span of time ("이사 온 지 3년", "그 집 지은 지 오래"): "since".
Both backends must leave the sentences as they are, and a name in the same words is still masked.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.pii import mask_pii


@pytest.mark.parametrize("backend", ["regex", "presidio"])
@pytest.mark.parametrize("text", [
    "어제 일이 진짜 기억이 안나요", "밤새 잠이 안났어 ㅠㅠ", "막상 말하려니까 말이 안나네요", "눈물도 안나더라고요",
    "할머니가 그 집 지은 지 오십 년 됐대요", "아빠가 가게 차린 지 얼마 안 됐어요",
])
def test_a_negated_nada_and_a_since_clause_are_not_names(text, backend):
    assert mask_pii(text, backend=backend).text == text


@pytest.mark.parametrize("backend", ["regex", "presidio"])
def test_a_name_in_the_same_words_is_still_masked(backend):
    assert "안나" not in mask_pii("제 동생 이름은 안나예요", backend=backend).text


# Twelfth session: 짓다's adnominal between its subject and what was made ("엄마가 지은 밥"), a known over-mask.
@pytest.mark.parametrize("backend", ["regex", "presidio"])
@pytest.mark.parametrize("text", ["엄마가 지은 밥이 제일 맛있어요.", "할머니가 지은 집에서 살아요", "엄마가 지은 옷 입고 갔어요",
                                  "선생님이 지은 노래래요"])
def test_jitda_adnominal_after_its_subject_is_not_a_name(text, backend):
    assert mask_pii(text, backend=backend).text == text


@pytest.mark.parametrize("backend", ["regex", "presidio"])
@pytest.mark.parametrize("text", ["친구가 지은 언니랑 왔어요", "민수가 지은 씨한테 전화했대", "지은이가 그랬어요"])
def test_jieun_as_a_name_is_still_masked(text, backend):
    assert "지은" not in mask_pii(text, backend=backend).text
