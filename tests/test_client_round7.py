"""Issue 12 round 7: a turn is read the same however it was typed (chat shorthand, 급식체, dialect
endings, no spaces), and the classes found on dev_r6.

The sentences here are written for the tests, so they check the mechanism, not the probes it was
read from.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from vignette_lab.core.personas import load_personas
from vignette_lab.engines.client_reading import read_act, read_fact, standardise
from vignette_lab.engines.scripted import ScriptedEngine
from tests.test_client_listening import request

ROOT = Path(__file__).resolve().parents[1]
CARDS = load_personas()


@pytest.mark.parametrize("typed, standard", [
    ("ㅇㅇ 그럼 몇 학년이야?ㅋㅋ", "응 그럼 몇 학년이야?"),
    ("동생 있음??", "동생 있어?"),
    ("너 고등학생임?", "너 고등학생이야?"),
    ("요즘 학교는 어케 다녀", "요즘 학교는 어떻게 다녀"),
    ("ㄴㄴ 그런 뜻 아니고ㅠㅠ", "아니 그런 뜻 아니고"),
    ("집은 어디 사는교?", "집은 어디 사나요?"),
    ("밥은 먹었슈?", "밥은 먹었어요?"),
    ("안녕하세요^^", "안녕하세요"),
])
def test_chat_shorthand_and_dialect_endings_are_spelled_as_standard(typed, standard):
    assert standardise(typed) == standard
    assert standardise(standard) == standard  # idempotent: reading twice changes nothing


def test_a_turn_typed_without_spaces_is_re_spaced_and_typed_spaces_stay():
    assert standardise("전에상담같은거받아본적있어?") == "전에 상담 같은 거 받아 본 적 있어?"
    assert standardise("오늘 기분은 어때요?") == "오늘 기분은 어때요?"


@pytest.mark.parametrize("standard, typed", [
    ("지금 몇 학년이야?", "지금몇학년임?ㅋㅋ"),
    ("집에 누구랑 같이 살아?", "집에누구랑같이삼?"),
    ("형제가 어떻게 돼?", "형제가어케돼??"),
    ("상담 받아 본 적 있어?", "상담받아본적있음?ㅎㅎ"),
    ("나이가 몇 살이에요?", "나이가 몇 살이노?"),
])
def test_a_fact_question_is_read_the_same_however_it_was_typed(standard, typed):
    assert read_fact(standard) is not None
    assert read_fact(standardise(typed)) == read_fact(standard), typed
    assert read_act(typed, turn_seq=4) == read_act(standard, turn_seq=4) == "fact", typed


def test_the_marks_that_make_an_act_are_still_read_as_typed():
    assert read_act("ㅋㅋㅋ 쌤이 웃긴 얘기 하나 해 줄까", turn_seq=5) == "joke"
    assert read_act("ㅁㄴㅇㄹ", turn_seq=5) == "unintelligible"
    assert read_act("ㅎㅇ 반가워", turn_seq=1) == "greeting"


def test_the_client_answers_a_question_typed_without_spaces_with_the_card_fact():
    engine = ScriptedEngine(seed=5)
    grade = CARDS["P4"].client_visible_dict()["script"]["facts"]["grade"]["lines"]
    reply = engine.generate(request("P4", "근데너지금몇학년이야?", turn_seq=4, openness=0.3))
    assert reply.metadata["fact"] == "grade"
    assert any(line in reply.text for line in grade), reply.text


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bench_perturbations_are_fixed_by_the_probe_id():
    bench = _module("bench_client_r7", ROOT / "bench" / "bench_client.py")
    line = "혹시 전에 상담 받아 본 적 있어요?"
    assert bench.perturb(line, "nospace", key="a") == "혹시전에상담받아본적있어요?"
    typo = bench.perturb(line, "typo", key="a")
    assert typo == bench.perturb(line, "typo", key="a") and typo != line and len(typo) == len(line)
    assert bench.perturb(line, "filler", key="a").endswith(line)
    with pytest.raises(ValueError, match="perturbation must be one of"):
        bench.perturb(line, "shout", key="a")
