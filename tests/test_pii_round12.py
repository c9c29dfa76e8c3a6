"""Twelfth session: the classes of round 10's held-out misses (dev_r11), each with its own wording here.

Every class has positives (the value is masked on both backends) and ordinary sentences of the same shape that
must come back unchanged.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.pii import mask_pii

BACKENDS = ["regex", "presidio"]


def _masked(text: str, backend: str) -> str:
    return mask_pii(text, backend=backend).text


# --------------------------------------------------------------------------- military ranks

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("text", "value"), [
    ("어제 점호 끝나고 최 병장이 저만 불렀습니다", "최"),
    ("송 하사님께 휴가 얘기를 꺼냈는데요", "송"),
    ("우리 분대에 곽 일병이라고 있는데 걔가 많이 힘들어해요", "곽"),
    ("지 중위가 먼저 욕을 했습니다", "지"),
    ("선우 소위님은 그래도 말이 통해요", "선우"),
    ("소대장 한지섭 중위님이 면담 잡아주셨어요", "한지섭"),
    ("문예찬 상병이 밤마다 괴롭힙니다", "문예찬"),
    ("제 동기 이름은 모르고 성은 엄이고 엄 이병입니다", "엄 이병"),
])
def test_a_soldier_named_by_surname_or_full_name_and_rank_is_masked(text, value, backend):
    masked = _masked(text, backend)
    assert value.split()[0] not in masked.replace("[NAME]", ""), masked


@pytest.mark.parametrize("backend", BACKENDS)
def test_full_names_glued_to_their_ranks_are_masked(backend):
    masked = _masked("오늘도최준호병장님이랑김하린하사가같이왔어요", backend)
    assert "최준호" not in masked and "김하린" not in masked, masked


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("text", [
    "일병 때가 제일 힘들었어요", "상병 달고 나서는 좀 살 만해요", "오 병장 됐네 축하한다", "두 병장이 서로 말을 안 해요",
    "한 상병이 그러는데 이번 주 외박 없대요", "제 상사가 저한테만 일을 몰아줘요", "이 상사가 진짜 최악이에요",
    "이 병장 저 병장 다 똑같죠 뭐", "전 중사로 전역했어요", "모 하사가 그랬다는 소문만 들었어요", "선임 병장이 자꾸 눈치 줘요",
    "분대장 병장님께 먼저 말씀드렸습니다", "예비역병장이라서 훈련 나가요", "작년 이병 때부터 계속 그랬어요",
])
def test_ranks_in_ordinary_talk_stay_readable(text, backend):
    assert _masked(text, backend) == text
