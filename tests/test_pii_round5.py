"""Round-5 mechanisms of the PII gate: the shape classes and name cues added after dev_r5.

The sentences are written for this test (not corpus cases) and vary the dev_r5 shapes (other
values, other cue words, other particles), so each checks a class of notation, not a string.
Both backends must mask them, with identical spans; the near misses must come back unchanged.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.pii import mask_pii

#: (text, values that must not survive)
SHAPES = [
    # an ellipsis between the groups of an RRN
    ("제 주민번호는 020304… 3… 118822 맞아요", ["020304", "118822"]),
    ("주민번호 851212…2…334455", ["851212", "334455"]),
    ("연락처 010…4455…6677 이에요", ["4455…6677"]),
    ("주민번호는 030505이고 뒤는 나중에 말할게요", ["030505"]),
    # a half of a card number after 뒤에/앞에, a birthday as MMDD before 생일
    ("카드 앞에 5312 뒤에 7788", ["5312", "7788"]),
    ("1207이 제 생일이에요", ["1207"]),
    # a passport number whose digits are grouped after the letter
    ("여권 번호가 s 9876 5432 인데요", ["9876 5432"]),
    ("passport: R-2468-1357", ["2468-1357"]),
    # the local part given apart from its domain
    ("메일은 @gmail.com 이고 앞부분은 sky_walker09예요", ["sky_walker09"]),
    ("이메일 아이디 tree.house7 이고 도메인은 네이버", ["tree.house7"]),
    # a plate with its region and district before it
    ("오토바이 번호판이 경기수원 자 5521이었어요", ["경기수원 자 5521"]),
    ("차량 번호 부산해운대 12 바 3344", ["12 바 3344"]),
    # a short school with its class but no grade
    ("한솔중 5반 21번이에요", ["한솔중"]),
    ("푸른고 2반이에요", ["푸른고"]),
    # an @handle in Hangul
    ("틱톡은 @달빛산책러 로 검색해 주세요", ["달빛산책러"]),
    # a profile address without its scheme
    ("blog.naver.com/moonlit_22 에 일기 써요", ["moonlit_22"]),
    ("tiktok.com/@haru.daily 여기요", ["haru.daily"]),
    # a found identifier repeated later in the text
    ("생일이 1103이라서 현관 비번도 1103이에요", ["1103"]),
    ("폰번호 010-2468-1357, 다시 말하면 010-2468-1357요", ["2468-1357"]),
    # native counted days in a lunar birthday
    ("할머니 생신은 음력 삼월 초사흘이에요", ["초사흘"]),
    ("제 생일 음력으로 정월 초여드레래요", ["초여드레"]),
    # a lot number on a 리 after its 읍/면
    ("주소가 경상북도 안동시 풍산읍 하리 112예요", ["하리 112"]),
    # names: a subject acting on the speaker
    ("서윤이가 저한테 먼저 사과했어요", ["서윤"]),
    ("다니엘이 나한테 편지 줬어", ["다니엘"]),
    # names: 라고 with an auxiliary particle, and the future of 하다
    ("그냥 민기라고만 할게요", ["민기"]),
    ("걔는 하율이라고도 해요", ["하율"]),
    # names: a modifier between 라는 and the person noun
    ("올리비아라는 같은반 친구가 있어요", ["올리비아"]),
    # names: any particle after a kin word and the name
    ("누나 지원보다 제가 더 잘해요", ["지원"]),
    ("동생 민서까지 그 얘기를 알아요", ["민서"]),
    # names: two kin topics side by side
    ("언니는 예린 나는 예나, 이름이 비슷해요", ["예린", "예나"]),
    # names: a foreign name before a title
    ("스테파니 씨가 오늘 상담 오신대요", ["스테파니"]),
    # names: a particle with the polite 요
    ("지우가요 어제 울면서 전화했어요", ["지우"]),
    # names: a dative recipient, a reported speaker, someone who came from a place
    ("에밀리한테 먼저 연락해 볼게요", ["에밀리"]),
    ("토마스가 그러는데 시험이 어렵대", ["토마스"]),
    ("유키는 오사카에서 전학 왔어요", ["유키"]),
    # names: after 이름/성명 with a past or questioning copula, or with no particle
    ("걔 이름이 라희였던가", ["라희"]),
    ("보호자 성명 강미옥", ["강미옥"]),
]

#: ordinary sentences near those shapes that must come back unchanged
CLEAN = [
    "수업 끝나고 3반 애들이랑 놀았어요", "밥 먹고 2반으로 갔어요", "그리고 1반 애들은 몰라요",
    "엄마가 나한테 화냈어요", "선생님이 저한테 뭐라고 하셨어요", "뉴욕은 나한테 너무 추웠어",
    "공부가 저한테 안 맞아요", "우울이 저를 잡아먹는 것 같아요", "하루가 나한테 너무 길어",
    "호랑이 선생님이라고 불리는 분이 계세요", "그냥 바보라고만 할게요", "사랑이라는 아름다운 감정",
    "형은 하늘 나는 땅 보는 걸 좋아해요", "음력 칠월에 제사 지내요", "오토바이 타고 3시에 갔어요",
    "메일 앞은 확인했어요", "1577-0199 다시 말하면 1577-0199예요", "2시 반에 만나고 2시 반에 헤어졌어요",
    "뒤에 300명 있었어요", "마지막에 100점 받았어", "주민등록증 잃어버렸어요 1월에", "등록금 3000000원",
    "생일 파티는 3시에 해요", "정말이야?", "강아지야, 이리 와.", "그 사람? 걔 원래 그래",
    "하늘이 저한테 주는 선물 같아요", "바다가 나를 불러", "은행이 저한테 전화했어요", "고양이한테 밥 줬어요",
    "유튜브가 저한테 자꾸 추천해요", "친구들이 나한테 뭐라 해", "엄마가 그러는데 비 온대", "동생은 부산에서 왔어요",
]


@pytest.mark.parametrize("backend", ["presidio", "regex"])
@pytest.mark.parametrize(("text", "values"), SHAPES)
def test_round5_shapes_are_masked(text, values, backend):
    masked = mask_pii(text, backend=backend).text
    assert not [v for v in values if v in masked], masked


@pytest.mark.parametrize("text", [t for t, _ in SHAPES] + CLEAN)
def test_backends_agree_on_round5_sentences(text):
    assert mask_pii(text, backend="presidio").entities == mask_pii(text, backend="regex").entities


@pytest.mark.parametrize("text", CLEAN)
def test_round5_near_misses_stay_unchanged(text):
    assert mask_pii(text, backend="regex").text == text


def test_a_repeated_value_is_masked_only_where_it_stands_alone():
    masked = mask_pii("생일 0822라 비번도 0822로 했고 108229번 버스", backend="regex").text
    assert masked.count("[BIRTHDAY]") == 2 and "108229" in masked


def test_shipped_name_model_equals_a_rebuild(tmp_path):
    """``core/name_model.json`` is what ``bench/train_name_model.py`` builds from the dev splits,
    the templates and the training material (≈ 25 s CPU): a change to any training source
    (a dev file, the banks, a persona card, the name lists in ``core/pii.py``) needs a rebuild."""
    import subprocess
    import sys
    from pathlib import Path

    from vignette_lab.core import name_model

    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "name_model.json"
    subprocess.run([sys.executable, str(root / "bench" / "train_name_model.py"), "--out", str(out)],
                   cwd=root, check=True, capture_output=True, text=True)
    assert out.read_text(encoding="utf-8") == name_model.MODEL_PATH.read_text(encoding="utf-8"), \
        "run bench/train_name_model.py and commit core/name_model.json"
