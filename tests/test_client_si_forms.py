"""The client reads a screening question whatever form its verb takes (twelfth session).

The self-play counselor's own safety check "…스스로를 해칠 생각이 있어요?" was read as plain talk, because the
reader knew 해치 but not its adnominal 해칠 (nor 해친, 해쳐): the client's ideation-stage rule never ran on it and the
reply was a random reaction. Wording below is new.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vignette_lab.engines.client_reading import read_act

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("line", [
    "요즘 스스로를 해칠 것 같은 순간도 있었어요?",
    "혹시 전에 스스로를 해친 적 있어?",
    "몸을 해쳐 본 적이 있는지 궁금해요.",
    "자기 자신을 해칠 생각까지 해 봤어요?",
    "스스로 다칠 만한 행동을 한 적 있어?",
])
def test_conjugated_self_harm_verbs_are_screening(line):
    assert read_act(line, turn_seq=8) == "si_screen"


@pytest.mark.parametrize("line", [
    "동생이 다칠까 봐 걱정돼요?",       # someone else getting hurt
    "나를 해친 사람이 있어?",            # harm done by another person: not the client's own ideation
    "운동하다 다친 적 있어요?",
])
def test_harm_by_or_to_others_is_not_screening(line):
    assert read_act(line, turn_seq=8) != "si_screen"


def test_every_safety_check_of_the_counselor_bank_that_names_harm_is_read_as_screening():
    bank = json.loads((ROOT / "datasets" / "counselor_banks.json").read_text(encoding="utf-8"))
    for line in bank["crisis"]["safety_check"]:
        assert read_act(line, turn_seq=8) == "si_screen", line


@pytest.mark.parametrize("line", ["안녕~ 오늘 여기까지 와 줘서 고마워.", "오늘 와 주셔서 감사해요. 편하게 앉으세요.",
                                  "찾아와 줘서 고마워ㅎㅎ 요즘 어때?"])
def test_thanks_for_coming_opens_a_session(line):
    # before: "오늘 와 줘서 고마워" in the first turn was read as a closing ("네, 안녕히 계세요. …이제 가도 돼요?")
    assert read_act(line, turn_seq=1) == "greeting"


@pytest.mark.parametrize("line", ["오늘 와 줘서 고마워. 다음 주에 또 보자.", "오늘 와 주셔서 감사해요."])
def test_thanks_for_coming_late_in_a_session_closes_it(line):
    assert read_act(line, turn_seq=14) == "closing"


def _client(code, history_pairs, text, *, openness=0.3, seed=0):
    """The scripted client's reply after ``history_pairs`` of (counselor, client) lines (the listening tests'
    request, in the exploration stage)."""
    from vignette_lab.engines.base import EngineMessage
    from vignette_lab.engines.scripted import ScriptedEngine
    from tests.test_client_listening import request

    history = tuple(m for counselor, client in history_pairs
                    for m in (EngineMessage("user", counselor), EngineMessage("assistant", client)))
    return ScriptedEngine(seed=seed).generate(request(
        code, text, openness=openness, turn_seq=len(history_pairs) + 1, history=history,
        prior=[c for _, c in history_pairs], stage="탐색", session_id=f"si{seed}"))


@pytest.mark.parametrize("follow_up", [
    "그런 생각은 얼마나 자주 들어?",
    "혹시 그걸 실제로 어떻게 할지까지 생각해 봤어?",
    "지금 그 마음은 10점 만점에 몇 점 정도야?",
])
def test_a_risk_follow_up_after_a_screening_is_answered_by_the_card(follow_up):
    # P4's card: ideation stage 1 — never affirms; nobody ever gives a plan or method
    from vignette_lab.core.guardrails import detect_means_content

    for seed in range(4):
        out = _client("P4", [("혹시 죽고 싶다는 생각이 든 적 있어?", "아니요, 그런 건 아니에요. 그냥 시험이 무서운 거예요.")],
                      follow_up, seed=seed)
        assert out.metadata["act"] == "si_screen", out.metadata
        assert not re.search(r"(죽고\s*싶|사라지고\s*싶|없어지고\s*싶)", out.text), out.text
        assert not detect_means_content(out.text), out.text


def test_the_same_question_without_a_screening_before_is_not_one():
    out = _client("P4", [("요즘 시험 준비는 어때?", "그냥 계속 불안해요.")], "그런 생각은 얼마나 자주 들어?")
    assert out.metadata["act"] != "si_screen"
