"""AnthropicEngine against the real SDK over httpx2.MockTransport (no network).

Each test captures the HTTP requests the SDK would send and asserts the exact JSON body.
"""

from __future__ import annotations

import json

import anthropic
import httpx2
import pytest

from vignette_lab.engines.anthropic_engine import (
    PRICING,
    AnthropicEngine,
    estimate_cost,
)
from vignette_lab.engines.base import EngineMessage, GenerateRequest, Usage
from vignette_lab.errors import ConfigError, EngineError, InputError

MODEL = "claude-haiku-4-5"
RAW_PHONE = "010-1234-5678"
RAW_NAME = "김민지"


def _message_json(text="네, 그럴 수 있어요.", *, usage=None, content=None):
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": MODEL,
        "content": content if content is not None else [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": usage or {"input_tokens": 40, "output_tokens": 12,
                           "cache_read_input_tokens": 1200, "cache_creation_input_tokens": 0},
    }


def _client(handler):
    return anthropic.Anthropic(api_key="test", max_retries=0,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def _client_request(**kw):
    # What the orchestrator sends: masked text only, PII already replaced by placeholders.
    msgs = (
        EngineMessage("system", "L0 안전 규칙 + L1 페르소나 카드", cache=True, layer="L0+L1"),
        EngineMessage("system", "L2 임상 청크", cache=True, layer="L2"),
        EngineMessage("system", "L3 상태: 말을 아끼는 편", layer="L3"),
        EngineMessage("system", "L4 기억: 엄마와 다툼", layer="L4"),
        EngineMessage("assistant", "…안녕하세요.", layer="L6"),
        EngineMessage("user", "[COUNSELOR]입니다. 연락처는 [PHONE]이에요.", layer="L6"),
        EngineMessage("assistant", "네.", layer="L6"),
        EngineMessage("user", "요즘 [NAME] 씨와 지내는 건 어때요?", layer="L5"),
    )
    base = dict(ai_role="client", messages=msgs, session_id="sess-1", max_tokens=300,
                temperature=0.8)
    base.update(kw)
    return GenerateRequest(**base)


class Recorder:
    def __init__(self, responses):
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request):
        self.requests.append(request)
        item = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        return item(request) if callable(item) else item

    def body(self, i=0):
        return json.loads(self.requests[i].content)


def test_generate_sends_exact_body_with_cache_control_only_on_stable_layers():
    rec = Recorder([httpx2.Response(200, json=_message_json())])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    resp = engine.generate(_client_request())
    body = rec.body()
    assert body == {
        "model": MODEL,
        "max_tokens": 300,
        "system": [
            {"type": "text", "text": "L0 안전 규칙 + L1 페르소나 카드", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "L2 임상 청크", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "L3 상태: 말을 아끼는 편"},
            {"type": "text", "text": "L4 기억: 엄마와 다툼"},
        ],
        "messages": [
            {"role": "user", "content": "[세션 시작]"},
            {"role": "assistant", "content": "…안녕하세요."},
            {"role": "user", "content": "[COUNSELOR]입니다. 연락처는 [PHONE]이에요."},
            {"role": "assistant", "content": "네."},
            {"role": "user", "content": "요즘 [NAME] 씨와 지내는 건 어때요?"},
        ],
        "metadata": {"user_id": body["metadata"]["user_id"]},
    }
    assert len(body["metadata"]["user_id"]) == 32 and "sess-1" not in body["metadata"]["user_id"]
    raw = rec.requests[0].content.decode("utf-8")
    assert RAW_PHONE not in raw and RAW_NAME not in raw
    headers = rec.requests[0].headers
    assert headers["anthropic-version"]
    # SDK 2.x sends the key as a bearer token; 0.x used x-api-key. Either way the key is "test".
    assert headers.get("x-api-key") == "test" or headers.get("authorization") == "Bearer test"
    assert rec.requests[0].url.path == "/v1/messages"
    assert resp.text == "네, 그럴 수 있어요."
    assert resp.provider == "anthropic" and resp.model == MODEL
    assert resp.usage == Usage(input_tokens=40, output_tokens=12, cache_read_tokens=1200, cache_write_tokens=0)
    expected = (40 * 1.0 + 1200 * 0.10 + 12 * 5.0) / 1e6
    assert resp.cost_usd == pytest.approx(expected)


def test_text_masked_by_the_guardrail_reaches_the_api_without_raw_pii():
    from vignette_lab.core.guardrails import gate_text

    raw = f"제 번호는 {RAW_PHONE}이고 메일은 minji@example.com이에요. 저는 {RAW_NAME}예요."
    # the gate: role names become role tokens first, then every other identifier is masked
    masked = gate_text(raw, counselor_names=[RAW_NAME])
    rec = Recorder([httpx2.Response(200, json=_message_json())])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    engine.generate(_client_request(messages=(EngineMessage("system", "L0", cache=True),
                                              EngineMessage("user", masked))))
    sent = rec.requests[0].content.decode("utf-8")
    for secret in (RAW_PHONE, "minji@example.com", RAW_NAME):
        assert secret not in sent
    assert rec.body()["messages"] == [{"role": "user", "content": "제 번호는 [PHONE]이고 메일은 [EMAIL]이에요. 저는 [COUNSELOR]예요."}]


def test_consecutive_same_role_messages_are_merged():
    rec = Recorder([httpx2.Response(200, json=_message_json())])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    req = GenerateRequest("evaluator", (EngineMessage("user", "첫째"), EngineMessage("user", "둘째")))
    engine.generate(req)
    assert rec.body()["messages"] == [{"role": "user", "content": "첫째\n\n둘째"}]
    assert "system" not in rec.body() and "metadata" not in rec.body()


SCHEMA = {
    "title": "turn_evaluation",
    "type": "object",
    "properties": {"techniques": {"type": "array", "items": {"type": "string"}},
                   "rapport_signal": {"type": "number"}},
    "required": ["techniques", "rapport_signal"],
}


def test_structured_output_uses_json_schema_output_config():
    payload = {"techniques": ["reflection_feeling"], "rapport_signal": 0.4}
    rec = Recorder([httpx2.Response(200, json=_message_json(json.dumps(payload)))])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, structured_mode="output_config")
    req = GenerateRequest("evaluator", (EngineMessage("user", "평가할 발화"),), structured_schema=SCHEMA)
    resp = engine.generate(req)
    assert "tools" not in rec.body()
    fmt = rec.body()["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    assert fmt["schema"]["title"] == "turn_evaluation"
    assert fmt["schema"]["additionalProperties"] is False
    assert set(fmt["schema"]["properties"]) == {"techniques", "rapport_signal"}
    assert resp.structured == payload


def test_structured_output_forced_tool_mode():
    payload = {"techniques": ["open_question"], "rapport_signal": 0.2}
    content = [{"type": "tool_use", "id": "toolu_1", "name": "turn_evaluation", "input": payload}]
    rec = Recorder([httpx2.Response(200, json=_message_json(content=content))])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, structured_mode="tool")
    req = GenerateRequest("evaluator", (EngineMessage("user", "평가할 발화"),), structured_schema=SCHEMA)
    resp = engine.generate(req)
    body = rec.body()
    assert body["tools"] == [{"name": "turn_evaluation", "description": "turn_evaluation", "input_schema": SCHEMA}]
    assert body["tool_choice"] == {"type": "tool", "name": "turn_evaluation"}
    assert resp.structured == payload


def test_auto_mode_uses_a_forced_tool_for_map_schemas():
    map_schema = {"title": "turn_evaluation", "type": "object",
                  "properties": {"scores": {"type": "object", "additionalProperties": {"type": "number"}}},
                  "required": ["scores"]}
    payload = {"scores": {"empathy": 4}}
    content = [{"type": "tool_use", "id": "toolu_2", "name": "turn_evaluation", "input": payload}]
    rec = Recorder([httpx2.Response(200, json=_message_json(content=content))])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    assert engine.mode_for(map_schema) == "tool" and engine.mode_for(SCHEMA) == "output_config"
    resp = engine.generate(GenerateRequest("evaluator", (EngineMessage("user", "x"),), structured_schema=map_schema))
    body = rec.body()
    assert "output_config" not in body and body["tools"][0]["input_schema"] == map_schema
    assert resp.structured == payload


def test_unparseable_structured_output_is_flagged():
    rec = Recorder([httpx2.Response(200, json=_message_json("not json"))])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    req = GenerateRequest("evaluator", (EngineMessage("user", "x"),), structured_schema=SCHEMA)
    resp = engine.generate(req)
    assert resp.structured is None and "structured_error" in resp.metadata


def _sse(events):
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events)


def _stream_events(chunks, *, complete=True):
    events = [
        {"type": "message_start", "message": {
            "id": "msg_02", "type": "message", "role": "assistant", "model": MODEL, "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 30, "output_tokens": 1, "cache_read_input_tokens": 900,
                      "cache_creation_input_tokens": 100}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": c}}
               for c in chunks]
    if complete:
        events += [
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
             "usage": {"output_tokens": 9}},
            {"type": "message_stop"},
        ]
    return events


def _sse_response(events):
    return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                           content=_sse(events).encode("utf-8"))


def test_stream_yields_tokens_then_done_with_usage():
    chunks = ["그냥", " 좀", " 피곤", "해요."]
    rec = Recorder([_sse_response(_stream_events(chunks))])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    events = list(engine.stream(_client_request()))
    assert [e.type for e in events] == ["token"] * 4 + ["done"]
    assert "".join(e.text for e in events[:-1]) == "그냥 좀 피곤해요."
    done = events[-1].response
    assert done.text == "그냥 좀 피곤해요."
    assert done.usage == Usage(input_tokens=30, output_tokens=9, cache_read_tokens=900, cache_write_tokens=100)
    assert rec.body()["stream"] is True
    assert rec.body()["system"][0]["cache_control"] == {"type": "ephemeral"}


def test_truncated_stream_yields_error_event():
    rec = Recorder([_sse_response(_stream_events(["그냥", " 좀"], complete=False))])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    events = list(engine.stream(_client_request()))
    assert events[-1].type == "error" and events[-1].reason == "client_stream_incomplete"
    assert [e.type for e in events].count("done") == 0


def test_rate_limited_twice_then_success_backs_off_exponentially():
    sleeps: list[float] = []
    rec = Recorder([httpx2.Response(429, json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
                    httpx2.Response(429, json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
                    httpx2.Response(200, json=_message_json())])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, sleep=sleeps.append, backoff_base=0.5)
    resp = engine.generate(_client_request())
    assert resp.text == "네, 그럴 수 있어요."
    assert len(rec.requests) == 3
    assert sleeps == [0.5, 1.0]


def test_retry_after_header_is_respected():
    sleeps: list[float] = []
    rec = Recorder([httpx2.Response(529, headers={"retry-after": "7"},
                                    json={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
                    httpx2.Response(200, json=_message_json())])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, sleep=sleeps.append)
    engine.generate(_client_request())
    assert sleeps == [7.0]


def test_rate_limited_forever_raises_rate_limited():
    sleeps: list[float] = []
    rec = Recorder([httpx2.Response(429, json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}})])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, sleep=sleeps.append, max_retries=3)
    with pytest.raises(EngineError) as info:
        engine.generate(_client_request())
    assert info.value.code == "rate_limited" and info.value.retryable is True
    assert len(rec.requests) == 4 and sleeps == [0.5, 1.0, 2.0]


def test_overloaded_forever_raises_overloaded():
    rec = Recorder([httpx2.Response(529, json={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, sleep=lambda s: None, max_retries=1)
    with pytest.raises(EngineError) as info:
        engine.generate(_client_request())
    assert info.value.code == "overloaded"


@pytest.mark.parametrize("status", [400, 401, 403])
def test_client_errors_fail_immediately(status):
    sleeps: list[float] = []
    rec = Recorder([httpx2.Response(status, json={"type": "error", "error": {"type": "authentication_error", "message": "bad"}})])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, sleep=sleeps.append)
    with pytest.raises(EngineError) as info:
        engine.generate(_client_request())
    assert info.value.retryable is False and len(rec.requests) == 1 and sleeps == []
    assert "test" not in str(info.value)


def test_connection_error_is_retried_then_fails():
    def boom(request):
        raise httpx2.ConnectError("no route", request=request)

    sleeps: list[float] = []
    rec = Recorder([boom])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, sleep=sleeps.append, max_retries=2)
    with pytest.raises(EngineError) as info:
        engine.generate(_client_request())
    assert info.value.code == "api_error" and info.value.retryable is True
    assert sleeps == [0.5, 1.0]


def test_stream_rate_limited_forever_yields_error_event():
    rec = Recorder([httpx2.Response(429, json={"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}})])
    engine = AnthropicEngine(client=_client(rec), model=MODEL, sleep=lambda s: None, max_retries=1)
    events = list(engine.stream(_client_request()))
    assert [e.type for e in events] == ["error"] and events[0].reason == "rate_limited"


def test_unknown_model_cost_is_none_not_zero():
    assert estimate_cost("claude-unknown-9", Usage(input_tokens=10, output_tokens=10)) is None
    assert estimate_cost("claude-sonnet-4-5-20250929", Usage(input_tokens=1_000_000)) == pytest.approx(3.0)
    assert estimate_cost(MODEL, Usage(output_tokens=1_000_000), batch=True) == pytest.approx(2.5)
    assert set(PRICING) >= {"claude-sonnet-4-6", "claude-haiku-4-5"}


def test_missing_key_is_a_config_error():
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicEngine()


def _batch_json(status, *, results_url=None, succeeded=0, processing=2):
    return {"id": "msgbatch_01", "type": "message_batch", "processing_status": status,
            "request_counts": {"processing": processing, "succeeded": succeeded, "errored": 1 if status == "ended" else 0,
                               "canceled": 0, "expired": 0},
            "created_at": "2026-11-30T03:00:00Z", "expires_at": "2026-12-01T03:00:00Z",
            "ended_at": None, "archived_at": None, "cancel_initiated_at": None, "results_url": results_url}


def test_batches_create_poll_and_results():
    results_url = "https://api.anthropic.com/v1/messages/batches/msgbatch_01/results"
    ok_payload = {"techniques": ["open_question"], "rapport_signal": 0.3}
    jsonl = "\n".join(json.dumps(line) for line in [
        {"custom_id": "item-1", "result": {"type": "succeeded", "message": _message_json(json.dumps(ok_payload))}},
        {"custom_id": "item-2", "result": {"type": "errored", "error": {
            "type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}}},
        {"custom_id": "item-3", "result": {"type": "expired"}},
    ]) + "\n"
    polls = iter([_batch_json("in_progress"), _batch_json("ended", results_url=results_url, succeeded=1, processing=0),
                  _batch_json("ended", results_url=results_url, succeeded=1, processing=0)])

    def handler(request):
        if request.method == "POST" and request.url.path == "/v1/messages/batches":
            return httpx2.Response(200, json=_batch_json("in_progress"))
        if request.url.path == "/v1/messages/batches/msgbatch_01":
            return httpx2.Response(200, json=next(polls))
        if request.url.path == "/v1/messages/batches/msgbatch_01/results":
            return httpx2.Response(200, content=jsonl.encode("utf-8"),
                                   headers={"content-type": "application/binary"})
        return httpx2.Response(404, json={"type": "error", "error": {"type": "not_found_error", "message": "?"}})

    rec = Recorder([handler])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    reqs = {f"item-{i}": GenerateRequest("evaluator", (EngineMessage("user", f"발화 {i}"),), structured_schema=SCHEMA)
            for i in (1, 2, 3)}
    batch_id = engine.submit_batch(reqs)
    assert batch_id == "msgbatch_01"
    sent = rec.body(0)["requests"]
    assert [r["custom_id"] for r in sent] == ["item-1", "item-2", "item-3"]
    assert sent[0]["params"]["messages"] == [{"role": "user", "content": "발화 1"}]
    assert sent[0]["params"]["output_config"]["format"]["type"] == "json_schema"
    assert engine.poll_batch(batch_id)["ended"] is False
    status = engine.poll_batch(batch_id)
    assert status["ended"] is True and status["counts"]["succeeded"] == 1
    results = engine.batch_results(batch_id)
    assert results["item-1"].structured == ok_payload
    # batch pricing is half the standard rate
    assert results["item-1"].cost_usd == pytest.approx((40 * 1.0 + 1200 * 0.10 + 12 * 5.0) / 1e6 * 0.5)
    assert isinstance(results["item-2"], EngineError) and results["item-2"].code == "api_error"
    assert isinstance(results["item-3"], EngineError) and results["item-3"].retryable is True


def test_batch_custom_id_is_validated():
    engine = AnthropicEngine(client=_client(Recorder([httpx2.Response(500)])), model=MODEL)
    with pytest.raises(InputError, match="custom_id"):
        engine.submit_batch({"bad id!": GenerateRequest("evaluator", (EngineMessage("user", "x"),))})


def test_fast_loop_request_carries_client_prev_stage_and_kb_context():
    from vignette_lab.session.evaluator import evaluate_turn, make_eval_hook

    verdict = {"techniques": ["closed_question"], "client_state": ["guarded"], "appropriateness": "pos",
               "rapport_signal": 0.3}
    rec = Recorder([httpx2.Response(200, json=_message_json(json.dumps(verdict)))])
    engine = AnthropicEngine(client=_client(rec), model=MODEL)
    fields = {"learner_text_masked": "혹시 죽고 싶다는 생각이 든 적도 있어?", "stage": "탐색", "persona_code": "P1",
              "session_id": "sess-1",
              "history": [("counselor", "요즘 어때?"), ("client", "가끔 아침에 안 깼으면 좋겠어요.")]}
    hook = make_eval_hook(engine, kb=lambda q: ["[kb-risk · guideline · 위기] 위기 신호에는 직접 묻는다."])
    ev = hook(fields, "…가끔요.")
    assert ev.ok and ev.appropriateness == "pos"
    body = rec.body(0)
    user = json.loads(body["messages"][-1]["content"][0]["text"] if isinstance(body["messages"][-1]["content"], list)
                      else body["messages"][-1]["content"])
    assert user["client_prev"] == "가끔 아침에 안 깼으면 좋겠어요." and user["stage"] == "탐색"
    assert user["counselor_utterance"].startswith("혹시 죽고 싶다는")
    system = json.dumps(body["system"], ensure_ascii=False)
    assert "[kb-risk · guideline · 위기]" in system and "client_prev" in system
    # without KB context the request has no L2 block (the same as before retrieval existed)
    rec2 = Recorder([httpx2.Response(200, json=_message_json(json.dumps(verdict)))])
    evaluate_turn(fields, "…가끔요.", AnthropicEngine(client=_client(rec2), model=MODEL))
    assert "kb-risk" not in json.dumps(rec2.body(0), ensure_ascii=False)
