"""Live coach rules: credits, recharge gates, engine card with rule fallback."""

from __future__ import annotations

import pytest

from vignette_lab.engines.base import GenerateResponse
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import CoachCreditExhausted, EngineError
from vignette_lab.session.coach import MAX_CREDITS, excerpt, make_card, recharge_reason, rule_card


class Down:
    name = "down"

    def generate(self, request):
        raise EngineError("down")


class Recorder:
    name = "rec"

    def __init__(self):
        self.requests = []

    def generate(self, request):
        self.requests.append(request)
        return GenerateResponse(text="", structured={"title": "t", "focus": "f", "message": "m",
                                                     "next_utterance": "n", "rationale": "r"})


def test_recharge_gates():
    assert recharge_reason(appropriateness="pos", rapport_signal=0.2, stage_advanced=False,
                           openness_delta=0.01) == "performance"
    assert recharge_reason(appropriateness="pos", rapport_signal=0.2, stage_advanced=True,
                           openness_delta=-0.1) == "performance"
    assert recharge_reason(appropriateness="pos", rapport_signal=0.1, stage_advanced=True, openness_delta=0.1) is None
    assert recharge_reason(appropriateness="pos", rapport_signal=0.5, stage_advanced=False,
                           openness_delta=0.005) is None
    assert recharge_reason(appropriateness="neutral", rapport_signal=0.35, stage_advanced=False,
                           openness_delta=0.001) == "performance"
    assert recharge_reason(appropriateness="neutral", rapport_signal=0.3, stage_advanced=False,
                           openness_delta=0.2) is None
    assert recharge_reason(appropriateness="warn", rapport_signal=0.9, stage_advanced=True, openness_delta=0.2) is None
    assert recharge_reason(appropriateness=None, rapport_signal=None, stage_advanced=True, openness_delta=0.2) is None


def test_no_credit_is_refused():
    with pytest.raises(CoachCreditExhausted):
        make_card(ScriptedEngine(), credits=0, stage="라포", goal_stages=("라포",), learner_text_masked="x",
                  client_text_masked="y", last_cards=[], turn_seq=1)


def test_engine_card_gets_goals_and_last_two_cards():
    rec = Recorder()
    card = make_card(rec, credits=MAX_CREDITS, stage="탐색", goal_stages=("라포", "탐색"), learner_text_masked="하세요",
                     client_text_masked="네", last_cards=[{"title": "a", "focus": "1"}, {"title": "b", "focus": "2"},
                                                         {"title": "c", "focus": "3"}], turn_seq=5)
    assert card.source == "engine" and card.credits_left == MAX_CREDITS - 1
    req = rec.requests[0]
    assert req.structured_schema["title"] == "coach_card" and req.ai_role == "evaluator"
    body = req.messages[-1].content
    assert '"goal_stages": ["라포", "탐색"]' in body and '"title": "b"' in body and '"title": "a"' not in body


def test_engine_failure_falls_back_to_rule_card_by_stage():
    card = make_card(Down(), credits=1, stage="개입", goal_stages=("개입",), learner_text_masked="x",
                     client_text_masked="y", last_cards=[], turn_seq=9)
    assert card.source == "rule" and card.credits_left == 0
    assert card.next_utterance == rule_card("개입", turn_seq=9, credits_left=0).next_utterance


def test_scripted_engine_card_and_excerpt_masking():
    card = make_card(ScriptedEngine(seed=1), credits=2, stage="라포", goal_stages=("라포",),
                     learner_text_masked="그냥 공부를 더 열심히 하세요.", client_text_masked="네…", last_cards=[], turn_seq=3)
    assert card.source == "engine" and card.message and card.next_utterance
    ex = excerpt("제 번호는 010-1234-5678 입니다 " + "가" * 200)
    assert "010-1234-5678" not in ex and len(ex) <= 80
