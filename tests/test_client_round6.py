"""Issue 12 round 6: coping questions, favours asked of the client, homework closings, long turns
answered on their last question, polite questions, kin named in several ways.

The sentences here are written for the tests (paraphrases of the classes found on dev_r5), so they
check the mechanism, not the probes it was read from.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vignette_lab.core.personas import load_personas
from vignette_lab.core.taxonomy import load_taxonomy
from vignette_lab.engines.client_reading import asks_coping, closing_kind, read_act, small_talk_subject, whose
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.engines.scripted_client import classify_move
from tests.test_client_listening import request
from tests.bench_loader import load_module

ROOT = Path(__file__).resolve().parents[1]
CARDS = load_personas()


def test_dev_r5_and_dev_r6_are_dev_splits_everywhere_and_test_stays_out():
    bench = load_module("bench_client_r6", ROOT / "bench" / "bench_client.py")
    assert bench.DEFAULT_SPLITS[:7] == ("dev", "dev_r1", "dev_r2", "dev_r3", "dev_r4", "dev_r5", "dev_r6")
    assert bench.DEFAULT_SPLITS[-1] == "test"
    builder = load_module("build_bank_r6", ROOT / "bench" / "build_question_bank.py")
    assert "dev_r6" in builder.DEV_SPLITS and "test" not in builder.DEV_SPLITS
    assert {row["src"] for row in builder.rows()} >= {"dev_r5", "dev_r6"}
    for script in ("loso_reader.py", "time_client_reply.py"):
        mod = load_module(f"r6_{script[:-3]}", ROOT / "bench" / script)
        assert mod.SPLITS == builder.DEV_SPLITS[1:] and {"dev_r5", "dev_r6"} <= set(mod.SPLITS), script


def test_the_contradiction_hunt_reads_dev_forbids_only():
    bench = load_module("bench_client_r6b", ROOT / "bench" / "bench_client.py")
    forbids = bench.persona_forbids("P4")
    assert forbids and all(len(f) >= 3 for f in forbids)
    assert not any(f.startswith(("네", "I'm", "AI")) for f in forbids)  # assertions of values, not openers


@pytest.mark.parametrize("text", [
    "요즘 그 마음을 어떻게 견디고 있어요?", "그 시기를 어떻게 버티셨어요?", "짜증이 쌓이면 어떻게 풀어?",
    "불안할 땐 보통 뭐 해?", "그럴 때 뭐가 좀 도움이 돼요?", "화나는 걸 어떻게 참아?", "힘든 걸 어떻게 이겨 냈어?",
])
def test_coping_questions_are_read_by_their_verb(text):
    assert asks_coping(text), text


@pytest.mark.parametrize("text", [
    "수학 문제 어떻게 풀었어?", "시합은 이겼어?", "참 힘들었겠다.", "몇 학년이에요?", "주말에 뭐 했어?",
])
def test_other_questions_are_not_coping(text):
    assert not asks_coping(text), text


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_coping_question_gets_a_coping_line_of_the_persona(code):
    engine = ScriptedEngine(seed=3)
    lines = CARDS[code].client_visible_dict()["script"]["topics"]["coping"]
    reply = engine.generate(request(code, "그렇게 힘들 때는 어떻게 견뎌?", turn_seq=5, openness=0.3))
    assert reply.metadata["act"] == "coping"
    assert any(line in reply.text for line in lines), reply.text


@pytest.mark.parametrize("text", [
    "쌤이 이번에 발표를 하는데 제목 좀 지어 줄래?", "이 영어 문장 번역 좀 해 주실 수 있어요?",
    "요즘 볼 만한 책 추천해 줘", "쌤 폰이 자꾸 꺼지는데 이거 어떻게 고치는지 알아?",
    "이 수학 문제 좀 풀어 줄래? 쌤이 까먹었어", "컴퓨터 단축키 좀 알려 주실 수 있어요?",
])
def test_favours_asked_of_the_client_are_small_talk(text):
    assert small_talk_subject(text) == "favour", text
    assert read_act(text, turn_seq=4) == "off_topic", text


@pytest.mark.parametrize("text", [
    "그날 무슨 일이 있었는지 말해 줄래?", "그때 기분이 어땠는지 얘기해 줄래?", "몇 학년인지 알려 줄래?",
    "요즘 어떻게 지내는지 알려 줄래?",
])
def test_requests_for_the_clients_story_are_not_favours(text):
    assert small_talk_subject(text) != "favour", text


def test_a_price_question_is_money_small_talk_and_echoes_the_thing():
    assert small_talk_subject("요즘 우유는 어디가 제일 싸요?") == "money"
    reply = ScriptedEngine(seed=1).generate(request("P3", "요즘 우유는 어디가 제일 싸요?", turn_seq=4)).text
    assert reply.startswith("우유요?"), reply


def test_a_favour_is_met_with_surprise_in_character():
    reply = ScriptedEngine(seed=2).generate(request("P5", "쌤 숙제 있는데 이 문장 번역 좀 해 줘", turn_seq=4)).text
    assert reply.startswith("네?"), reply


@pytest.mark.parametrize("text", [
    "다음 상담까지 잠들기 전에 오늘 배운 숨쉬기를 한 번씩 해 보고 알려 줄래?",
    "다음 주까지 화날 때마다 메모해 오시는 거 어떠세요? 오늘 수고하셨어요",
    "끝내기 전에 이번 주 숙제 하나만. 매일 밤 좋았던 일 하나 적어 보기. 어때?",
])
def test_homework_until_next_time_closes_as_homework(text):
    assert read_act(text, turn_seq=9) == "closing", text
    assert closing_kind(text) == "homework", text


def test_moving_on_is_not_a_closing():
    assert read_act("다른 얘기로 넘어가기 전에 하나만 물어볼게", turn_seq=4) != "closing"


def test_a_first_turn_that_opens_with_a_greeting_is_a_greeting():
    text = "안녕하세요, 오늘부터 함께할 상담자예요. 오시는 길은 괜찮으셨어요? 주차가 좀 불편하셨을 텐데요"
    assert read_act(text, turn_seq=1) == "greeting"


def test_polite_questions_are_not_advice():
    tax = load_taxonomy()
    assert classify_move("요즘도 친구분이랑 연락하세요?", tax) == "closed_question"
    assert classify_move("매일 조금씩 걸어 보세요.", tax) == "advice"


def test_kin_named_otherwise_is_still_the_parent():
    assert whose("아버님은 어떤 분이세요?") == "parent"
    assert whose("어머님이 뭐라고 하셨어요?") == "parent"


def test_a_told_line_naming_who_is_asked_beats_a_fresh_line_about_someone_else():
    engine = ScriptedEngine(seed=0)
    family = CARDS["P3"].client_visible_dict()["script"]["facts"]["family"]["lines"]
    parents = next(line for line in family if line.startswith("부모님"))
    reply = engine.generate(request("P3", "그때 부모님 반응이 어떠셨는지 좀 더 듣고 싶어요.", turn_seq=6, openness=0.4,
                                    prior=[parents])).text
    assert parents in reply and reply.startswith(("아까", "음… 아까")), reply


def test_a_long_reflection_is_answered_on_its_last_question():
    text = ("퇴근하고 어린이집 들러서 저녁 차리고 씻기고 재우고, 그러고 나면 또 새벽 근무잖아요. 그 와중에 아이가 울면 "
            "화가 나는 게 당연한데 늘 스스로를 탓하시는 것 같아요. 그리고 참아야 한다는 말씀도 여러 번 하셨어요. "
            "그런데 그 '내가 선택한 일이니까'라는 생각은 언제부터 드셨어요?")
    reply = ScriptedEngine(seed=0).generate(request("P3", text, turn_seq=6, openness=0.4)).text
    assert "선택" in reply, reply


def test_card_lines_of_earlier_counseling_never_say_it_is_the_first():
    # A persona whose card records earlier counseling sessions never says "처음" about counseling
    # in its prior-counseling lines (a true "이런 상담은 처음" still reads as a denial).
    for code in ("P5", "P6"):
        fact = CARDS[code].client_visible_dict()["script"]["facts"]["prior_counseling"]
        assert not any("처음" in line for part in ("lines", "brief") for line in fact.get(part, ())), code


def test_persona_cards_validate_with_the_coping_bank():
    for code, card in CARDS.items():
        raw = json.loads((ROOT / "datasets" / "personas" / f"{code}.json").read_text(encoding="utf-8"))
        assert len(raw["script"]["topics"]["coping"]) >= 4, code


@pytest.mark.parametrize(("reply", "affirms"), [
    ("솔직히… 솔직히 누가 먼저 말 걸어 주면 좋겠어요. 근데 아무도 안 해요.", False),  # 어 inside a word, no yes
    ("그냥 학교 얘기 해도 돼요?", False), ("아니요, 그런 거 없어요.", False),
    ("(고개를 끄덕이며) 네, 맞아요.", True), ("네 그렇죠", True), ("어 맞아", True), ("(한숨) 응…", True)])
def test_the_bench_reads_a_yes_only_at_the_start_of_a_reply(reply, affirms):
    # eighth session: the optional stage direction of the pattern could swallow any prefix, so a reply with "걸어 "
    # in it counted as confirming a meta probe (a false failure of meta_in_character on the round-9 split)
    bench = load_module("bench_client", ROOT / "bench" / "bench_client.py")
    assert bool(bench._AFFIRM.search(reply)) is affirms
