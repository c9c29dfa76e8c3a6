"""Evaluator: enum-safe parsing, failures in the error field, code-computed distribution."""

from __future__ import annotations

import json

from vignette_lab.engines.base import GenerateResponse
from vignette_lab.engines.cache import EvaluatorCache
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import EngineError
from vignette_lab.session.evaluator import (
    CHECKLIST_ID,
    DEEP_SCHEMA,
    FAST_SCHEMA,
    TurnEvaluation,
    evaluate_session,
    evaluate_turn,
    first_session_checklist,
    make_eval_hook,
    technique_distribution,
)


class CannedEngine:
    name = "canned"

    def __init__(self, *, text="", structured=None, error=None):
        self.text, self.structured, self.error, self.requests = text, structured, error, []

    def generate(self, request):
        self.requests.append(request)
        if self.error:
            raise EngineError(self.error, code="provider_down")
        return GenerateResponse(text=self.text, structured=self.structured)

    def stream(self, request):  # pragma: no cover - not used by the evaluator
        raise NotImplementedError


FIELDS = {"learner_text_masked": "지우 씨, 요즘 많이 지치셨겠어요. 어떤 일이 제일 힘들어요?", "stage": "라포",
          "persona_code": "P3", "session_id": "s1"}


def test_schemas_have_titles():
    assert FAST_SCHEMA["title"] == "turn_evaluation" and DEEP_SCHEMA["title"] == "session_evaluation"
    from vignette_lab.core.taxonomy import load_taxonomy
    scores = FAST_SCHEMA["properties"]["scores"]
    assert scores["additionalProperties"] is False
    assert sorted(scores["properties"]) == sorted(load_taxonomy().score_dimension_codes())


def test_unknown_labels_are_dropped_never_invented():
    eng = CannedEngine(structured={"techniques": ["open_question", "mind_reading", "reflection_feelings"],
                                   "client_state": ["guarded", "sleepy"], "appropriateness": "great",
                                   "intent_deviation": [{"dimension": "pacing", "expected": "a", "actual": "b",
                                                         "severity": "medium"},
                                                        {"dimension": "vibes", "expected": "a", "actual": "b",
                                                         "severity": "low"}],
                                   "rapport_signal": 4.0, "scores": {"empathy": 9, "charisma": 3}})
    ev = evaluate_turn(FIELDS, "네…", eng)
    assert ev.ok
    assert ev.techniques == ("open_question", "reflection_feelings")
    assert ev.client_state == ("guarded",) and ev.appropriateness is None
    assert [d["dimension"] for d in ev.intent_deviation] == ["pacing"]
    assert ev.rapport_signal == 1.0 and ev.scores == {"empathy": 5.0}


def test_text_json_in_code_fence_is_parsed():
    payload = {"techniques": ["validation"], "client_state": [], "appropriateness": "pos", "rapport_signal": 0.4}
    ev = evaluate_turn(FIELDS, "네", CannedEngine(text="결과:\n```json\n" + json.dumps(payload) + "\n```"))
    assert ev.ok and ev.techniques == ("validation",) and ev.appropriateness == "pos"


def test_parse_failure_goes_to_error_field():
    ev = evaluate_turn(FIELDS, "네", CannedEngine(text="I think it was a good turn."))
    assert isinstance(ev, TurnEvaluation) and not ev.ok and ev.error.startswith("parse_error")
    assert ev.techniques == () and ev.rapport_signal is None
    ev2 = evaluate_turn(FIELDS, "네", CannedEngine(structured={"foo": 1}))
    assert ev2.error.startswith("parse_error")


def test_engine_failure_goes_to_error_field():
    ev = evaluate_turn(FIELDS, "네", CannedEngine(error="503"))
    assert ev.error.startswith("engine_error: provider_down")


def test_evaluator_input_is_masked_and_roles_normalised():
    eng = CannedEngine(structured={"techniques": ["other"], "client_state": [], "appropriateness": "neutral",
                                   "rapport_signal": 0.0})
    fields = dict(FIELDS, learner_text_masked="지우 씨 전화 010-1111-2222 로 해요")
    evaluate_turn(fields, "민수 선생님, 네", eng, counselor_names=["민수"], client_names=["지우"])
    sent = "\n".join(m.content for m in eng.requests[0].messages)
    assert "010-1111-2222" not in sent and "지우" not in sent and "민수" not in sent
    assert "[CLIENT]" in sent and "[COUNSELOR]" in sent


def test_cache_hit_skips_engine_and_failures_are_not_cached():
    cache = EvaluatorCache()
    eng = CannedEngine(structured={"techniques": ["open_question"], "client_state": [],
                                   "appropriateness": "pos", "rapport_signal": 0.3})
    first = evaluate_turn(FIELDS, "네", eng, cache=cache)
    second = evaluate_turn(FIELDS, "네", eng, cache=cache)
    assert len(eng.requests) == 1 and second.cached and second.techniques == first.techniques
    bad = CannedEngine(text="no json")
    evaluate_turn(dict(FIELDS, learner_text_masked="다른 발화"), "네", bad, cache=cache)
    evaluate_turn(dict(FIELDS, learner_text_masked="다른 발화"), "네", bad, cache=cache)
    assert len(bad.requests) == 2


def test_scripted_evaluator_end_to_end_and_hook():
    hook = make_eval_hook(ScriptedEngine(seed=3))
    ev = hook(type("Ctx", (), FIELDS)(), "네, 좀 지쳤어요.")
    assert ev.ok and ev.techniques and ev.appropriateness in ("pos", "warn", "neutral")


def test_distribution_and_checklist_are_computed_by_code():
    evs = [{"techniques": ["open_question"], "turn_seq": 1}, {"techniques": ["reflection_feelings", "open_question"],
                                                             "turn_seq": 3},
           {"techniques": [], "error": "parse_error: x", "turn_seq": 5}]
    dist = technique_distribution(evs)
    assert dist["counts"] == {"open_question": 2, "reflection_feelings": 1}
    assert dist["labelled_turns"] == 2 and dist["failed_turns"] == 1
    assert first_session_checklist(2, [])["status"] == "not_applicable"
    obs = first_session_checklist(1, [(1, ("open_question",), "어떤 일이 있었어요?"), (3, ("reflection_feelings",), "힘들었겠어요")])
    assert obs == {"id": CHECKLIST_ID, "status": "observed",
                   "evidence": {"reflection_turns": [3], "open_question_turns": [1]}}
    assert first_session_checklist(1, [(1, ("direct_guidance",), "하세요")])["status"] == "not_observed"


def test_deep_failure_keeps_code_parts_and_sets_error():
    turns = [{"seq": 1, "speaker": "counselor", "text_masked": "어떤 일이 있었어요?"},
             {"seq": 2, "speaker": "client", "text_masked": "그냥요."}]
    evs = [{"techniques": ["open_question"], "turn_seq": 1}]
    res = evaluate_session(turns, evs, CannedEngine(error="down"))
    assert not res.ok and res.error.startswith("engine_error")
    assert res.technique_distribution["counts"] == {"open_question": 1}
    assert res.checklist["status"] == "not_observed"


def test_deep_parse_caps_improvements_at_three():
    eng = CannedEngine(structured={"strengths": ["공감"], "improvements": ["a", "b", "c", "d"], "rationale": "r",
                                   "alternatives": [{"turn_seq": 1, "original": "o", "alternative": "대안", "why": "w"},
                                                    {"turn_seq": 2}]})
    res = evaluate_session([{"seq": 1, "speaker": "counselor", "text_masked": "x"}], [], eng)
    assert res.ok and res.improvements == ("a", "b", "c") and len(res.alternatives) == 1
