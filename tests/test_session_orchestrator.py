"""Orchestrator: pure preparation, output guardrail, contained hooks, streaming rules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.core.guardrails import SAFE_FALLBACK_REPLY
from vignette_lab.core.personas import load_personas
from vignette_lab.core.state import init_state
from vignette_lab.engines.base import GenerateResponse, StreamEvent
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.session import orchestrator
from vignette_lab.session.orchestrator import prepare_turn, run_turn, run_turn_stream

CARD = load_personas()["P1"]
MEANS = "사실 수면제를 한꺼번에 많이 먹으면 어떨까 생각했어요."


class FixedEngine:
    """Client engine that always answers the same text (token stream optional)."""

    name = "fixed"

    def __init__(self, text: str, *, done: bool = True):
        self.text, self.done, self.requests = text, done, []

    def generate(self, request):
        self.requests.append(request)
        return GenerateResponse(text=self.text, provider="fixed", model="fixed")

    def stream(self, request):
        self.requests.append(request)
        for i in range(0, len(self.text), 3):
            yield StreamEvent("token", text=self.text[i:i + 3])
        if self.done:
            yield StreamEvent("done", text=self.text, response=GenerateResponse(text=self.text))


def _ctx(text="요즘 많이 힘드셨겠어요. 어떤 일이 있었는지 이야기해 줄래요?"):
    return prepare_turn(text, card_view=CARD.client_visible_dict(), state=init_state(CARD),
                        session_id="s-1", persona_code="P1")


def test_orchestrator_never_imports_the_evaluator():
    tree = ast.parse(Path(orchestrator.__file__).read_text(encoding="utf-8"))
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
        {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any("evaluator" in (m or "") for m in mods)
    code = ("import sys, vignette_lab.session.orchestrator; "
            "print('vignette_lab.session.evaluator' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(orchestrator.__file__).parents[2])
    assert out.stdout.strip() == "False"


def test_prepare_turn_masks_and_evolves_without_io():
    ctx = _ctx("제 번호는 010-1234-5678 이고 메일은 kim@example.com 이에요. 힘드셨겠어요.")
    assert "010-1234-5678" not in ctx.learner_text_masked and "kim@example.com" not in ctx.learner_text_masked
    assert all("010-1234-5678" not in m.content for m in ctx.request.messages)
    assert ctx.state_after.turn_seq == ctx.state_before.turn_seq + 1
    assert ctx.rapport_source == "heuristic"
    assert ctx.request.ai_role == "client" and ctx.request.metadata["persona_code"] == "P1"
    with_eval = prepare_turn("안녕하세요", card_view=CARD.client_visible_dict(), state=init_state(CARD),
                             eval_rapport_signal=0.9)
    assert with_eval.rapport_source == "evaluator" and with_eval.rapport_signal == 0.9


def test_request_metadata_carries_prior_replies_masked():
    history = [("counselor", "안녕"), ("client", "제 번호 010-3333-4444요"), ("counselor", "네"), ("client", "음…")]
    ctx = prepare_turn("그랬군요", card_view=CARD.client_visible_dict(), state=init_state(CARD), history=history)
    assert ctx.request.metadata["prior_replies"] == ["제 번호 [PHONE]요", "음…"]


def test_trainee_first_person_crisis_escalates_but_role_questions_do_not():
    real = _ctx("연습 말고 제가 진짜 요즘 죽고 싶어요.")
    assert real.crisis.escalate
    question = _ctx("혹시 죽고 싶다는 생각이 든 적 있어요?")
    assert not question.crisis.escalate
    result = run_turn(real, FixedEngine("…네."))
    assert any(e["kind"] == "learner_crisis" and e["escalated"] for e in result.safety_events)


def test_means_content_is_replaced_and_recorded():
    result = run_turn(_ctx(), FixedEngine(MEANS))
    assert result.reply_text == SAFE_FALLBACK_REPLY
    assert [e["kind"] for e in result.safety_events] == ["means_blocked"]
    assert result.replaced


def test_failing_hooks_are_contained():
    def bad_eval(ctx, reply):
        raise RuntimeError("evaluator down")

    def bad_log(result):
        raise OSError("disk full")

    result = run_turn(_ctx(), ScriptedEngine(seed=1), eval_hook=bad_eval, log_hook=bad_log)
    assert result.reply_text
    assert len(result.hook_errors) == 2
    assert "evaluator down" in result.hook_errors[0] and "disk full" in result.hook_errors[1]


def test_hooks_receive_context_and_reply():
    seen = {}
    result = run_turn(_ctx(), FixedEngine("네… 조금요."), eval_hook=lambda c, r: seen.setdefault("eval", r),
                      log_hook=lambda res: seen.setdefault("log", res.reply_text))
    assert seen == {"eval": "네… 조금요.", "log": "네… 조금요."}
    assert result.evaluation == "네… 조금요." and result.hook_errors == []


def test_stream_tokens_then_done_and_log():
    logged = []
    events = list(run_turn_stream(_ctx(), FixedEngine("네, 요즘 좀 힘들어요."), log_hook=logged.append))
    assert [e.type for e in events][-1] == "done"
    assert "".join(e.text for e in events if e.type == "token") == "네, 요즘 좀 힘들어요."
    assert len(logged) == 1 and logged[0].reply_text == "네, 요즘 좀 힘들어요."


def test_stream_without_done_is_an_error_and_logs_nothing():
    logged = []
    events = list(run_turn_stream(_ctx(), FixedEngine("네, 그냥…", done=False), log_hook=logged.append))
    assert events[-1].type == "error" and events[-1].reason == "client_stream_incomplete"
    assert logged == []


def test_stream_guard_scans_accumulated_text():
    logged = []
    events = list(run_turn_stream(_ctx(), FixedEngine(MEANS), log_hook=logged.append))
    types = [e.type for e in events]
    assert "safety" in types and types[-1] == "done"
    released = "".join(e.text for e in events if e.type == "token")
    assert "먹으면" not in released  # the token completing the pattern is never released
    assert events[-1].text == SAFE_FALLBACK_REPLY
    assert logged[0].safety_events[0]["kind"] == "means_blocked"


@pytest.mark.parametrize("reply", ["사실 요즘 잠을 잘 못 자요.", "저는 그냥… 잘 모르겠어요", "제가 먼저 말을 걸었어야 했나 봐요."])
def test_stream_does_not_replace_an_ordinary_reply_on_a_fragment(reply):
    # The meta model fired on the fragments "사실", "저는", "제가" of a reply still streaming; it now
    # judges whole sentences of at least 8 characters (the rules still read every prefix).
    logged = []
    events = list(run_turn_stream(_ctx(), FixedEngine(reply), log_hook=logged.append))
    assert "safety" not in [e.type for e in events]
    assert "".join(e.text for e in events if e.type == "token") == reply
    assert logged[0].reply_text == reply and logged[0].safety_events == []
