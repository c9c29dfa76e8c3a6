"""The general mechanisms of the PII gate (round 3): normalised digit runs, re-spacing, romanised names.

These check the mechanisms on sentences written for this test (not corpus cases): each one names a
whole class of notation the rules must cover without a rule for the string itself.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.pii import mask_pii, normalise_digits


@pytest.mark.parametrize("text", [
    "연락처 ０１０－１２３４－５６７８", "공일공 이삼사오 육칠팔구로 전화줘", "제 번호 O1O.9876.5432",
    "전화번호는공일공일이삼사오육칠팔",
])
def test_normalisation_keeps_length_and_offsets(text):
    norm = normalise_digits(text)
    assert len(norm) == len(text)
    assert "[PHONE]" in mask_pii(text, backend="regex").text


def test_normalisation_never_changes_a_length_on_any_corpus_text():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "datasets" / "eval" / "pii"
    texts = [json.loads(line)["text"] for p in sorted(root.glob("*.jsonl")) if not p.name.startswith(("test", "clean_test"))
             for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts += ["제 번호는 010-1234-5678이고 메일은 minji@example.com이에요.", "오육칠팔이에요", "일이삼사오육칠팔이"]
    assert len(texts) > 3000
    assert all(len(normalise_digits(t)) == len(t) for t in texts)
    assert normalise_digits("공일공 일이삼사 오육칠팔이에요") == "010 1234 5678이에요"


@pytest.mark.parametrize("text", [
    "학번 20231234예요", "사업자번호 123-45-67890", "카드 ****-****-****-1234 이거요", "010-12**-5678",
])
def test_any_identifier_shaped_run_is_masked(text):
    masked = mask_pii(text, backend="regex").text
    assert not any(ch.isdigit() for ch in masked), masked


@pytest.mark.parametrize("text", [
    "용돈이 1000000원이래요", "2024-2025학년도에 전학 왔어요", "09:00-18:00 근무해요", "2024 10 15 에 봐요",
    "2019.03.15에 이사했어요", "조회수가 1234567회예요", "이사 갔어요 일이 많아서", "사이사이 일이 많아요",
    "1577 0199 로 전화했어요", "점수가 95 88 76 이렇게 나왔어요",
])
def test_quantities_dates_and_digit_words_in_ordinary_words_stay(text):
    assert mask_pii(text, backend="regex").text == text


@pytest.mark.parametrize("text, value", [
    ("제 이름은 박 서 진 이에요", "박 서 진"), ("차 번 호 는 3 4 나 5 6 7 8", "3 4 나 5 6 7 8"),
    ("민준이가저를계속놀려요진짜", "민준"),
])
def test_spaced_and_unspaced_typing_is_read_again(text, value):
    for backend in ("regex", "presidio"):
        masked = mask_pii(text, backend=backend).text
        assert value not in masked, (backend, masked)


def test_romanised_spelling_of_a_found_name_is_masked():
    masked = mask_pii("제 이름은 김민지예요 영어로는 Minji Kim 이라고 써요", backend="regex").text
    assert "Minji" not in masked and "김민지" not in masked
    assert mask_pii("Hello 반가워요", backend="regex").text == "Hello 반가워요"


def test_clipped_quotes_never_cut_inside_a_mask_tag():
    """A quote shortened for a review or a coach log keeps mask tags whole (QA: "2학년 [CLIE…")."""
    from vignette_lab.core.pii import clip_masked
    from vignette_lab.engines.scripted_evaluator import _quote
    from vignette_lab.session.coach import excerpt

    text = "안녕하세요! 제가 신청한 거 맞죠? 2학년 [CLIENT]인데요 요즘 좀 힘들어서요"
    for limit in range(2, len(text) + 2):
        out = clip_masked(text, limit)
        assert len(out) <= max(limit, len("[CLIENT]…")), (limit, out)
        assert out.count("[") == out.count("]"), (limit, out)  # every tag whole or absent
        assert text.startswith(out.rstrip("…").rstrip()), (limit, out)
    assert clip_masked(text, len(text)) == text
    assert _quote(text, 28) == "안녕하세요! 제가 신청한 거 맞죠? 2학년…"
    long = "저는 [NAME]이고 " * 12
    assert "[NA…" not in excerpt(long) and excerpt(long).count("[") == excerpt(long).count("]")
