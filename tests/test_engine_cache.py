"""EvaluatorCache, generate_with_audit and engine selection."""

from __future__ import annotations

import json
import logging

import pytest

from vignette_lab.config import Settings
from vignette_lab.engines import engine_status, select_engine
from vignette_lab.engines.anthropic_engine import AnthropicEngine
from vignette_lab.engines.audit import AUDIT_FIELDS, generate_with_audit
from vignette_lab.engines.base import EngineMessage, GenerateRequest, GenerateResponse, Usage
from vignette_lab.engines.cache import EvaluatorCache
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import ConfigError, EngineError

PROMPT_MARKER = "상담자발화표식-지난주에-엄마랑-크게-싸웠다는-거군요"
FAST = {"title": "turn_evaluation", "type": "object"}


def fast_request(utterance=f"{PROMPT_MARKER}. 많이 속상하셨겠어요.", stage="라포", session_id="sess-c"):
    payload = {"stage": stage, "counselor_utterance": utterance, "client_reply": "네…"}
    return GenerateRequest("evaluator", (EngineMessage("system", "평가 지시", cache=True),
                                         EngineMessage("user", json.dumps(payload, ensure_ascii=False))),
                           structured_schema=FAST, session_id=session_id, metadata={"stage": stage})


class CountingEngine:
    """A real ScriptedEngine that counts calls and can be told to fail or to break its output."""

    name = "scripted"

    def __init__(self, *, fail_times=0, broken=False):
        self.inner = ScriptedEngine(seed=0)
        self.calls = 0
        self.fail_times = fail_times
        self.broken = broken

    def generate(self, request):
        self.calls += 1
        if self.calls <= self.fail_times:
            raise EngineError("upstream overloaded", code="overloaded", retryable=True)
        resp = self.inner.generate(request)
        if self.broken:
            return GenerateResponse(text="not json", structured=None, metadata={"structured_error": "bad"})
        return resp

    def stream(self, request):
        return self.inner.stream(request)


def test_hit_miss_store_counts_and_engine_called_once():
    cache, engine = EvaluatorCache(max_entries=8), CountingEngine()
    req = fast_request()
    first = cache.get_or_generate(engine, req)
    second = cache.get_or_generate(engine, req)
    assert engine.calls == 1
    assert second.structured == first.structured and second.metadata["cache_hit"] is True
    stats = cache.stats()
    assert (stats["hits"], stats["misses"], stats["stores"], stats["entries"]) == (1, 1, 1, 1)
    assert stats["hit_rate"] == pytest.approx(0.5)
    # trace ids do not change the key; content does
    again = GenerateRequest(**{**req.__dict__, "metadata": {**req.metadata, "request_id": "r-2"}})
    assert again.cache_key() == req.cache_key()
    cache.get_or_generate(engine, fast_request("전혀 다른 발화예요?"))
    assert engine.calls == 2


def test_engine_errors_are_never_cached():
    cache, engine = EvaluatorCache(), CountingEngine(fail_times=1)
    with pytest.raises(EngineError):
        cache.get_or_generate(engine, fast_request())
    assert len(cache) == 0 and cache.stats()["stores"] == 0
    cache.get_or_generate(engine, fast_request())
    assert engine.calls == 2 and len(cache) == 1


def test_unparsed_structured_output_and_validator_rejections_are_not_cached():
    cache, engine = EvaluatorCache(), CountingEngine(broken=True)
    cache.get_or_generate(engine, fast_request())
    cache.get_or_generate(engine, fast_request())
    assert engine.calls == 2 and len(cache) == 0 and cache.stats()["rejected"] == 2
    good = CountingEngine()
    cache.get_or_generate(good, fast_request(), validate=lambda r: r.structured["appropriateness"] == "warn")
    assert len(cache) == 0


def test_lru_eviction_and_ttl():
    now = [100.0]
    cache = EvaluatorCache(max_entries=2, ttl_seconds=60, clock=lambda: now[0])
    engine = CountingEngine()
    a, b, c = (fast_request(f"발화 {i}는 어떤가요?") for i in "abc")
    cache.get_or_generate(engine, a)
    cache.get_or_generate(engine, b)
    cache.get_or_generate(engine, a)  # a is now most recent
    cache.get_or_generate(engine, c)  # evicts b
    assert a in cache and c in cache and b not in cache
    assert cache.stats()["evictions"] == 1
    now[0] += 61
    assert cache.get(a) is None and cache.stats()["expired"] >= 1


def test_cache_holds_no_prompt_text():
    cache = EvaluatorCache()
    cache.get_or_generate(CountingEngine(), fast_request())
    assert all(len(k) == 64 and set(k) <= set("0123456789abcdef") for k in cache._entries)
    assert PROMPT_MARKER not in repr(cache._entries)
    assert PROMPT_MARKER not in json.dumps(cache.stats(), ensure_ascii=False)


@pytest.mark.parametrize("kwargs", [{"max_entries": 0}, {"ttl_seconds": -1}])
def test_cache_options_are_validated(kwargs):
    with pytest.raises(ConfigError):
        EvaluatorCache(**kwargs)


# ---------------------------------------------------------------- audit

def test_audit_record_is_metadata_only():
    records = []
    req = fast_request()
    resp = generate_with_audit(ScriptedEngine(), req, sink=records.append)
    assert len(records) == 1
    rec = records[0]
    assert tuple(rec) == AUDIT_FIELDS
    assert rec["ai_role"] == "evaluator" and rec["provider"] == "scripted" and rec["status"] == "ok"
    assert rec["session_id"] == "sess-c" and rec["request_hash"] == req.cache_key()
    assert rec["latency_ms"] >= 0 and rec["error_code"] is None
    blob = json.dumps(rec, ensure_ascii=False)
    assert PROMPT_MARKER not in blob and "평가 지시" not in blob
    assert resp.text not in blob and resp.structured["rationale"] not in blob


def test_audit_records_tokens_and_cost_from_the_response():
    class FixedEngine:
        name = "anthropic"

        def generate(self, request):
            return GenerateResponse(text="{}", structured={}, provider="anthropic", model="claude-haiku-4-5",
                                    usage=Usage(10, 20, 30, 40), cost_usd=0.00123)

    records = []
    generate_with_audit(FixedEngine(), fast_request(), sink=records.append)
    rec = records[0]
    assert (rec["input_tokens"], rec["output_tokens"], rec["cache_read_tokens"], rec["cache_write_tokens"]) == (10, 20, 30, 40)
    assert rec["cost_usd"] == 0.00123 and rec["model"] == "claude-haiku-4-5"


def test_audit_failure_is_recorded_and_reraised():
    records = []
    with pytest.raises(EngineError):
        generate_with_audit(CountingEngine(fail_times=1), fast_request(), sink=records.append)
    assert records[0]["status"] == "error" and records[0]["error_code"] == "overloaded"
    assert records[0]["cost_usd"] is None


def test_audit_parse_error_status():
    records = []
    generate_with_audit(CountingEngine(broken=True), fast_request(), sink=records.append)
    assert records[0]["status"] == "parse_error"


def test_broken_sink_never_breaks_the_call(caplog):
    def sink(record):
        raise RuntimeError("database is down")

    with caplog.at_level(logging.WARNING, logger="vignette_lab.engines.audit"):
        resp = generate_with_audit(ScriptedEngine(), fast_request(), sink=sink)
    assert resp.structured["techniques"]
    assert "database is down" in caplog.text


def test_audit_with_cache_skips_engine_and_record_on_hit():
    records, cache, engine = [], EvaluatorCache(), CountingEngine()
    generate_with_audit(engine, fast_request(), sink=records.append, cache=cache)
    hit = generate_with_audit(engine, fast_request(), sink=records.append, cache=cache)
    assert engine.calls == 1 and len(records) == 1 and hit.metadata["cache_hit"] is True
    assert cache.stats()["hits"] == 1 and cache.stats()["misses"] == 1


# ---------------------------------------------------------------- selection

def test_select_engine_defaults_to_scripted_offline():
    settings = Settings.from_env({})
    assert isinstance(select_engine(settings, seed=3), ScriptedEngine)
    assert select_engine(settings, seed=3).seed == 3
    status = engine_status(settings)
    assert status == {"active": "scripted", "reason": "scripted (offline default: ANTHROPIC_API_KEY not set)",
                      "model": "scripted"}


def test_select_engine_anthropic_with_key_never_shows_the_key():
    key = "sk-ant-test-0123456789-secret"
    settings = Settings.from_env({"ANTHROPIC_API_KEY": key, "VIGNETTE_MODEL": "claude-haiku-4-5"})
    engine = select_engine(settings)
    assert isinstance(engine, AnthropicEngine) and engine.model == "claude-haiku-4-5"
    status = engine_status(settings)
    assert status["active"] == "anthropic" and key not in json.dumps(status)
    forced = Settings.from_env({"ANTHROPIC_API_KEY": key, "VIGNETTE_ENGINE": "scripted"})
    assert isinstance(select_engine(forced), ScriptedEngine)


def test_anthropic_requested_without_key_is_a_config_error():
    settings = Settings.from_env({"VIGNETTE_ENGINE": "anthropic"})
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY is not set"):
        select_engine(settings)
    status = engine_status(settings)
    assert status["active"] == "error" and "ANTHROPIC_API_KEY" in status["reason"]
