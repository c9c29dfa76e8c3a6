"""Issue 12 round 10: classes found reading the misses of client_probes/dev_r9 (ninth session).

The sentences here are written for the tests, so they check the mechanism, not the probes it was
read from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vignette_lab.core.personas import load_personas
from vignette_lab.engines.client_reading import aside_noun, asks_aside, asks_task, read_act
from vignette_lab.engines.scripted import ScriptedEngine
from tests.test_client_listening import request
from tests.bench_loader import load_module

ROOT = Path(__file__).resolve().parents[1]
CARDS = load_personas()


# --- a laughing aside asked of the client is small talk, not a joke ------------------------------

@pytest.mark.parametrize("text", [
    "혹시 과학 문제집 있으면 같이 풀어 볼래 ㅋㅋ 쌤 물리 좀 해",      # a task asked now
    "근데 너 요즘 웹소설 뭐 봐 ㅋㅋ 쌤은 판타지 보는데",               # a wh-question to the client, unmarked
    "혹시 파워포인트 잘하세요 ㅎㅎ 제가 애니메이션 넣는 걸 몰라서",    # whether the client is good at it
    "어제 야구 끝까지 봤냐 ㅋㅋ 역전했던데",                          # an asking-only ending
    "쌤이 영어 문장 하나 있는데 해석해 줄 수 있어? ㅋㅋ",
])
def test_a_laughing_aside_asked_of_the_client_is_off_topic(text):
    assert asks_aside(text)
    assert read_act(text, turn_seq=5) == "off_topic"


@pytest.mark.parametrize("text", [
    "ㅋㅋ 쌤 고등학교 때 별명이 뭐였는지 알아? 두부였어",              # a question about the counselor
    "아재개그 하나 ㅋㅋ 바다가 화나면? 파도 ㅋㅋ",                     # a riddle, named
    "쌤이 드립 하나 칠게 ㅋㅋ 학생이 제일 좋아하는 계절은? 방학 ㅋㅋ",  # 드립 names a joke
    "네 살이면 '왜?' 엄청 물어볼 때죠 ㅋㅋ 저희 조카는 하루 종일 물어봐요",  # a quoted 왜? asks nothing
    "ㅋㅋㅋ 너 방금 표정 완전 웃겼어",                                # addressed, but no question
])
def test_a_joke_stays_a_joke(text):
    assert not asks_aside(text) or "드립" in text or "개그" in text
    assert read_act(text, turn_seq=5) == "joke"


def test_a_hedge_names_no_joke():
    # "농담 반 진담 반" hedges the request; the request is what the client hears
    assert read_act("쌤이 수학 문제 하나 가져왔는데 같이 풀어 볼래 ㅋㅋ 농담 반 진담 반", turn_seq=5) == "off_topic"


@pytest.mark.parametrize("text, noun", [
    ("혹시 공부할 때 쓰는 앱 뭐 좋은 거 있어?", "앱"),
    ("근데 도윤아 너 월드컵 봄?", "월드컵"),
    ("혹시 엑셀 잘하세요? 제가 함수를 몰라서", "엑셀"),
    ("근데 하늘아 너 배우 누구 좋아해", "배우"),
])
def test_the_thing_an_aside_asks_about_is_its_noun_before_the_wh_word_or_its_first(text, noun):
    assert aside_noun(text) == noun


def test_a_task_asked_of_the_client():
    assert asks_task("이 문제 같이 풀어 볼래?") and asks_task("포스터 문구 좀 추천해 줘")
    assert not asks_task("요즘 학교는 어때?")


@pytest.mark.parametrize("code", sorted(CARDS))
def test_an_aside_on_a_subject_without_lines_echoes_what_was_asked(code):
    engine = ScriptedEngine(seed=3)
    reply = engine.generate(request(code, "혹시 엑셀 잘하세요? ㅎㅎ 제가 피벗 기능을 잘 몰라서", turn_seq=6, openness=0.3))
    assert reply.metadata["act"] == "off_topic"
    assert reply.text.startswith("엑셀이요?"), reply.text


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_task_asked_of_the_client_is_answered_as_a_favour(code):
    engine = ScriptedEngine(seed=4)
    reply = engine.generate(request(code, "쌤이 영어 문장 하나 가져왔는데 같이 해석해 볼래 ㅋㅋ", turn_seq=6, openness=0.3))
    assert reply.metadata["act"] == "off_topic"
    assert any(kind.startswith("off_topic:favour") for kind in reply.metadata["reply_parts"]), reply.metadata


# --- split lists ---------------------------------------------------------------------------------

def test_dev_r9_is_a_dev_split_everywhere_and_test_stays_out():
    bench = load_module("bench_client_r10", ROOT / "bench" / "bench_client.py")
    assert bench.DEFAULT_SPLITS[-1] == "test" and {"dev_r9", "dev_r10"} <= set(bench.SPLIT_LABELS)
    builder = load_module("build_bank_r10", ROOT / "bench" / "build_question_bank.py")
    assert {"dev_r9", "dev_r10"} <= set(builder.DEV_SPLITS) and "test" not in builder.DEV_SPLITS
    assert {"dev_r9", "dev_r10"} <= {row["src"] for row in builder.rows()}


# --- facts: double-barrelled questions, two facts named, a referral taken as the reason ----------

def test_a_double_barrelled_question_answers_its_intake_fact_first():
    from vignette_lab.engines.client_reading import cue_key

    assert cue_key("형제가 어떻게 되는지, 그리고 요즘 잠은 잘 자는지도 궁금해요") == "siblings"
    # a second question that is no addition ("근데 …") is still what is asked
    assert cue_key("혹시 몇 살이야? 근데 요즘 잠은 잘 자?") == "sleep"


def test_of_two_facts_named_the_one_on_the_card_is_answered():
    from vignette_lab.engines.client_reading import read_fact, standardise
    from vignette_lab.engines.scripted_client import refine_by_content

    q = standardise("예전에 상담이나 심리검사 같은 거 받아 본 적 있어?")
    card = CARDS["P1"].client_visible_dict()["script"]
    assert "aptitude" not in card["facts"] and "transfer" not in card["facts"]
    assert refine_by_content(card, q, "aptitude") == "prior_counseling"
    # one thing asked, not on the card: no other fact is put in its place
    assert refine_by_content(card, standardise("전학 온 지 얼마나 됐어?"), "transfer") == "transfer"
    # a card that has the test keeps it
    assert refine_by_content({"facts": {"aptitude": {"lines": ["검사는 했어요."]}, "prior_counseling": {}}},
                             q, "aptitude") == "aptitude"


@pytest.mark.parametrize("text", ["선생님이 가 보라고 하셔서 온 거야?", "엄마가 상담 와 보라고 해서 오게 된 거예요?"])
def test_a_referral_taken_as_the_reason_asks_the_reason(text):
    from vignette_lab.engines.client_reading import read_fact, standardise

    assert read_fact(standardise(text)) == "reason"


@pytest.mark.parametrize("text", ["엄마랑 살아 아빠랑 살아?", "지금 할머니하고 둘이 사세요?", "부모님이랑 같이 살고 있어?"])
def test_who_the_client_lives_with_offered_as_options_asks_living(text):
    from vignette_lab.engines.client_reading import read_fact, standardise

    assert read_fact(standardise(text)) == "living"


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_question_with_options_is_answered_from_the_card(code):
    engine = ScriptedEngine(seed=0)
    living = CARDS[code].client_visible_dict()["script"]["facts"]["living"]
    said = [str(x) for part in ("lines", "brief") for x in (living.get(part) or ())]
    reply = engine.generate(request(code, "엄마랑 살아 아빠랑 살아?", turn_seq=4, openness=0.3))
    assert reply.metadata["fact"] == "living"
    assert any(line in reply.text for line in said), reply.text


@pytest.mark.parametrize("text, key", [
    ("일 하시는 데가 어디였죠?", "grade"),                 # 일하다 typed with a space
    ("Wee클래스는 몇 번 가 봤어?", "prior_counseling"),    # the school's counselling room named
    ("위클래스 처음 가 본 거야?", "prior_counseling"),
])
def test_the_work_place_typed_apart_and_the_school_counselling_room_are_read(text, key):
    from vignette_lab.engines.client_reading import read_fact, standardise

    assert read_fact(standardise(text)) == key
