"""Metadata-only LLM call audit (seed 001 §2.6, table ``audit.llm_call_log``).

A record carries who/what/how-much/how-long, never prompt or completion text.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from vignette_lab.engines.base import Engine, GenerateRequest, GenerateResponse
from vignette_lab.engines.cache import EvaluatorCache
from vignette_lab.errors import EngineError

__all__ = ["AUDIT_FIELDS", "generate_with_audit"]

log = logging.getLogger(__name__)

AUDIT_FIELDS = ("ai_role", "provider", "model", "session_id", "request_hash", "input_tokens",
                "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd",
                "latency_ms", "status", "error_code")


def _engine_model(engine: Engine, request: GenerateRequest) -> str:
    return request.model or str(getattr(engine, "model", None) or getattr(engine, "name", "unknown"))


def generate_with_audit(engine: Engine, request: GenerateRequest, *,
                        sink: Callable[[dict[str, Any]], Any] | None = None,
                        cache: EvaluatorCache | None = None,
                        validate: Callable[[GenerateResponse], bool] | None = None) -> GenerateResponse:
    """Call ``engine.generate`` and hand a metadata-only record to ``sink``.

    Parameters
    ----------
    engine : Engine
    request : GenerateRequest
    sink : callable, default=None
        Receives one dict with the keys of :data:`AUDIT_FIELDS`; the session layer passes a
        writer for ``audit.llm_call_log``. A failing sink is logged and ignored.
    cache : EvaluatorCache, default=None
        When given, a hit is returned without calling the engine and without an audit record
        (nothing was spent); misses go through the engine and are audited.
    validate : callable, default=None
        Passed to :meth:`EvaluatorCache.get_or_generate`.

    Returns
    -------
    GenerateResponse

    Raises
    ------
    EngineError
        Re-raised after the failure has been recorded with ``status="error"``.
    """
    request_hash = request.cache_key()
    if cache is not None:
        cached = cache.get(request)
        if cached is not None:
            cache.hits += 1
            return GenerateResponse(**{**cached.__dict__, "metadata": {**cached.metadata, "cache_hit": True}})
    record: dict[str, Any] = {
        "ai_role": request.ai_role,
        "provider": getattr(engine, "name", "unknown"),
        "model": _engine_model(engine, request),
        "session_id": request.session_id,
        "request_hash": request_hash,
        "input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0,
        "cost_usd": None, "latency_ms": 0.0, "status": "ok", "error_code": None,
    }
    started = time.perf_counter()
    try:
        if cache is not None:
            response = cache.get_or_generate(engine, request, validate=validate)
        else:
            response = engine.generate(request)
    except EngineError as exc:
        record.update(status="error", error_code=exc.code,
                      latency_ms=(time.perf_counter() - started) * 1000.0)
        _emit(sink, record)
        raise
    record.update(
        provider=response.provider,
        model=response.model,
        input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens,
        cache_read_tokens=response.usage.cache_read_tokens,
        cache_write_tokens=response.usage.cache_write_tokens,
        cost_usd=response.cost_usd,
        latency_ms=(time.perf_counter() - started) * 1000.0,
    )
    if "structured_error" in response.metadata:
        record.update(status="parse_error", error_code="structured_output_invalid")
    _emit(sink, record)
    return response


def _emit(sink: Callable[[dict[str, Any]], Any] | None, record: dict[str, Any]) -> None:
    if sink is None:
        return
    try:
        sink(dict(record))
    except Exception as exc:  # an audit failure must never break a counseling turn
        log.warning("LLM audit sink failed (%s: %s); call result kept", type(exc).__name__, exc)
