"""Round-4 mechanisms of the PII gate: identifier shape classes and the learned name model.

The sentences are written for this test (not corpus cases) and vary the dev_r4 shapes (other
values, other cue words, other particles), so each checks a class of notation, not a string.
Both backends must mask them, with identical spans.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.core import name_model
from vignette_lab.core.pii import mask_pii

ROOT = Path(__file__).resolve().parents[1]

#: (text, values that must not survive)
SHAPES = [
    ("계좌번호 앞에 302 그다음 1188 그다음 4471이요", ["302", "1188", "4471"]),
    ("카드번호 첫 네자리 4321 다음 8765 다음 1100 마지막 2299", ["4321", "8765", "1100", "2299"]),
    ("외국인번호가 910203-5 로 시작하고 뒤는 339120", ["339120"]),
    ("주민번호 880512에 2039481", ["880512", "2039481"]),
    ("메일은 제이케이 일이 골뱅이 네이버닷컴이에요", ["제이케이 일이 골뱅이 네이버닷컴"]),
    ("jh.lee 쩜 99 골뱅이 daum 쩜 net 으로 보내주세요", ["jh.lee", "daum"]),
    ("메일 주소는 park.jiho 예요", ["park.jiho"]),
    ("카드 뒷면 cvv 552", ["552"]),
    ("인스타 @마음일기_01 팔로우해", ["마음일기_01"]),
    ("디코 아이디 달빛토끼#2210", ["달빛토끼#2210"]),
    ("D.O.B: 1990/01/02", ["1990/01/02"]),
    ("생일이 음력 시월 초하루예요", ["시월 초하루"]),
    ("자동차 번호 오육 나 일이삼사", ["오육 나 일이삼사"]),
    ("해솔중 이학년 삼반이에요", ["해솔중", "삼반"]),
    ("주소는 경기 수원시 영통구... 영통동 1002 삼성아파트 3동", ["수원시", "영통동 1002", "3동"]),
    ("선우 민재라고 해요", ["선우 민재"]),
    ("Park Minjun이라고 써요", ["Park Minjun"]),
    ("지윤언니가 도와줬어요", ["지윤"]),
    ("하람이라고 중국인 친구가 있어요", ["하람"]),
    ("투이가 제 아내예요", ["투이"]),
    ("예금주 박소라", ["박소라"]),
]

#: ordinary sentences near those shapes that must come back unchanged
CLEAN = [
    "서른다섯이에요", "사랑이 부족했나 봐요", "112나 119에 전화하세요", "노인학대는 1577-1389",
    "다음 주 3시에 봐요 그다음 주는 4시", "앞에 5명 뒤에 3명 있었어요", "메일 보냈어요",
    "메일 확인해 주세요 delivery 문제", "평화라는 말이 좋아요", "마지막으로 300만원 빌렸어요 다음 달에 갚아요",
    "생일 파티 때 2시에 만나", "3학년 2반이에요", "우리 학교 2학년 4반 담임이 바뀌었어요", "서울 강남구 쪽에 살아요",
    "닉네임 바꾸고 싶어서 고민 중이에요 그거 쓰고", "처음에 좀 힘들었고 다음에 300명 왔어요 번호표",
    "첫 번째 시험 점수는 120점", "persona-draft-rag@2026-06-28.1 버전으로 남겨요",
]


@pytest.mark.parametrize("backend", ["presidio", "regex"])
@pytest.mark.parametrize(("text", "values"), SHAPES)
def test_round4_shapes_are_masked(text, values, backend):
    masked = mask_pii(text, backend=backend).text
    assert not [v for v in values if v in masked], masked


@pytest.mark.parametrize("text", [t for t, _ in SHAPES] + CLEAN)
def test_backends_agree_on_round4_sentences(text):
    assert mask_pii(text, backend="presidio").entities == mask_pii(text, backend="regex").entities


@pytest.mark.parametrize("text", CLEAN)
def test_near_misses_stay_unchanged(text):
    assert mask_pii(text, backend="regex").text == text


def test_model_file_is_complete_and_its_threshold_from_leave_one_split_out():
    data = json.loads(name_model.MODEL_PATH.read_text(encoding="utf-8"))
    assert {"about", "threshold", "name_syllables", "weights"} <= set(data)
    assert data["threshold"] > 0 and len(data["weights"]) > 100
    assert "leave-one-split-out" in data["about"]


def test_learned_spans_start_words_and_skip_common_nouns():
    spans = name_model.learned_name_spans("어제 서하린이랑 통화했어요")
    assert spans == ((3, 6),)
    assert name_model.learned_name_spans("강아지야, 이리 와. 학교가 너무 멀어요") == ()


def test_masking_does_not_import_scikit_learn():
    code = ("import sys; from vignette_lab.core.pii import mask_pii; "
            "mask_pii('어제 서하린이랑 통화했어요 010-1234-5678', backend='regex'); "
            "print('sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_missing_model_file_leaves_the_cue_rules(tmp_path):
    try:
        assert name_model.load_model(path=tmp_path / "absent.json") is False
        assert name_model.learned_name_spans("어제 서하린이랑 통화했어요") == ()
        assert "[NAME]" in mask_pii("저는 김민지고요", backend="regex").text
    finally:
        name_model._Model.loaded = False
        name_model.load_model()
        name_model._scored.cache_clear()
        from vignette_lab.core import pii
        pii._name_spans_cached.cache_clear()
