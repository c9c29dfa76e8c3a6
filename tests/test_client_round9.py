"""Issue 12 round 9: classes found reading the misses of client_probes/dev_r8 (and dev_r7).

The sentences here are written for the tests, so they check the mechanism, not the probes it was
read from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vignette_lab.engines.client_reading import after_greeting, read_act, read_fact, standardise
from vignette_lab.engines.scripted_client import ask_clause, wrong_grade_premise
from tests.bench_loader import load_module

ROOT = Path(__file__).resolve().parents[1]


# --- a greeting that goes on to ask a fact -------------------------------------------------------

@pytest.mark.parametrize("text, rest", [
    ("지훈 학생 안녕하세요. 지금 몇 학년이에요?", "지금 몇 학년이에요?"),
    ("안녕 몇학년이야?", "몇학년이야?"),
    ("안녕하세요!", ""),
])
def test_after_greeting_drops_the_greeting_word_and_what_precedes_it(text, rest):
    assert after_greeting(text) == rest


def test_a_first_greeting_that_asks_a_fact_is_answered_with_the_fact():
    text = standardise("ㅎㅇ 형제 몇명임?")
    assert read_act(text) == "greeting"
    assert read_act(after_greeting(text), turn_seq=2) == "fact"


# --- 초성 and glued chat spellings ------------------------------------------------------------------

@pytest.mark.parametrize("typed, standard", [
    ("ㅎㅇㅎㅇ", "안녕 안녕"),           # a run of 초성 words, each spelled out
    ("ㄹㅇㅇㅈ", "진짜 인정"),
    ("동아리머임", "동아리 뭐야"),       # 뭐 typed onto the noun it asks about
    ("취미 뭐임", "취미 뭐야"),
])
def test_choseong_runs_and_glued_what_are_read_as_standard_spelling(typed, standard):
    assert standardise(typed) == standard


# --- a job named as a premise --------------------------------------------------------------------

@pytest.mark.parametrize("text", ["간호사로 일하신다고 들었는데 맞나요?", "근무 형태는 어떻게 되세요?"])
def test_a_job_named_as_what_one_works_as_asks_the_job(text):
    assert read_fact(standardise(text)) == "grade"


def test_working_with_a_pronoun_names_no_job():
    assert read_fact(standardise("그걸로 일하는 게 힘들어요?")) != "grade"


# --- a wrong grade taken for granted -------------------------------------------------------------

@pytest.mark.parametrize("question, wrong", [
    ("지금 중3 맞지?", True),
    ("고등학생이시죠?", True),
    ("중2라고 들었는데 맞아?", False),
    ("중2야 중3이야?", False),   # a choice is no premise
    ("몇 학년이야?", False),
])
def test_a_tag_question_with_a_wrong_grade_is_corrected(question, wrong):
    assert wrong_grade_premise(question, ["중2예요.", "중학교 2학년이요."]) is wrong


# --- a run-on long turn: what is asked is its last clause ----------------------------------------

def test_the_ask_of_a_run_on_question_is_its_last_clause():
    q = "나도 예전에 학원 빠지고 엄마랑 싸우고 그랬거든 근데 너도 혹시 요즘 주말에 뭐 하는지 말해줄 수 있어?"
    assert ask_clause(q) == "요즘 주말에 뭐 하는지 말해줄 수 있어?"
    assert ask_clause("주말에 뭐 해?") == "주말에 뭐 해?"


# --- split lists and the contradiction hunt ------------------------------------------------------

def test_dev_r7_and_dev_r8_are_dev_splits_everywhere_and_test_stays_out():
    bench = load_module("bench_client_r9", ROOT / "bench" / "bench_client.py")
    builder = load_module("build_bank_r9", ROOT / "bench" / "build_question_bank.py")
    assert bench.DEFAULT_SPLITS == (*builder.DEV_SPLITS, "test")
    assert {"dev_r7", "dev_r8"} <= set(builder.DEV_SPLITS) and "test" not in builder.DEV_SPLITS


def test_the_hunt_sets_apart_forbids_that_a_card_line_itself_says():
    bench = load_module("bench_client_r9b", ROOT / "bench" / "bench_client.py")
    lines = bench.card_lines("P5")
    assert lines and all(isinstance(x, str) for x in lines)
    in_card = [f for f in bench.persona_forbids("P5") if any(f in line for line in lines)]
    assert in_card  # values true of the client that an author forbade for another question


@pytest.mark.parametrize("typed, standard", [
    ("숙제 햇어?", "숙제 했어?"),       # ㅆ typed as ㅅ before an ending
    ("어제 갓다왓어?", "어제 갔다왔어?"),
    ("서운햇엇음", "서운했었다"),
    ("선을 잇다", "선을 잇다"),         # 잇다 (to join) is a word of its own
    ("웃어", "웃어"),
])
def test_a_lost_double_consonant_is_restored_before_an_ending(typed, standard):
    assert standardise(typed) == standard
