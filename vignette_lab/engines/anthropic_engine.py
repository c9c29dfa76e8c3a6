"""Anthropic Messages API engine (seed 001 §2.10, §3).

Maps a :class:`~vignette_lab.engines.base.GenerateRequest` onto one Messages API call:

* every ``system`` message becomes one ``system`` text block, in order; blocks whose
  ``cache=True`` (the stable layers L0+L1 and L2) carry ``cache_control: ephemeral``;
* ``user`` / ``assistant`` messages become ``messages`` (consecutive same-role messages are
  merged, because the API wants alternating turns);
* a ``structured_schema`` becomes ``output_config.format`` (JSON-schema structured output,
  supported by the installed SDK) or one forced tool when the schema holds a free-form map
  that strict structured output cannot express (``structured_mode="auto"``).

Retries (429 / 529 / 5xx / connection errors) are done here with an injectable ``sleep`` so
that tests can check the backoff; the SDK client is built with ``max_retries=0``.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

from vignette_lab.engines.base import (
    GenerateRequest,
    GenerateResponse,
    StreamEvent,
    Usage,
)
from vignette_lab.errors import ConfigError, EngineError, InputError

__all__ = [
    "DEFAULT_MODEL",
    "PRICING",
    "PRICING_SOURCE",
    "PRICING_VERSION",
    "AnthropicEngine",
    "ModelPrice",
    "estimate_cost",
]

# claude-sonnet-4-5 reaches end-of-life on 2026-11-30 according to the installed SDK's
# DEPRECATED_MODELS table, so the default is its same-priced successor.
DEFAULT_MODEL = "claude-sonnet-4-6"


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens."""

    input: float
    output: float
    cache_write: float  # 5-minute ephemeral cache write
    cache_read: float


PRICING_VERSION = "2026-11-30"
PRICING_SOURCE = "https://platform.claude.com/docs/en/about-claude/pricing (Model pricing table)"
#: Only models whose list price was read from PRICING_SOURCE; anything else costs ``None``.
PRICING: dict[str, ModelPrice] = {
    "claude-opus-5": ModelPrice(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-8": ModelPrice(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-7": ModelPrice(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-6": ModelPrice(5.0, 25.0, 6.25, 0.50),
    "claude-opus-4-5": ModelPrice(5.0, 25.0, 6.25, 0.50),
    "claude-sonnet-4-6": ModelPrice(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-5": ModelPrice(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": ModelPrice(1.0, 5.0, 1.25, 0.10),
}
#: Message Batches are billed at 50 % of the standard rates (same source, "Batch processing").
BATCH_DISCOUNT = 0.5

_DATE_SUFFIX = re.compile(r"-\d{8}$")
_CUSTOM_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504, 529}


def estimate_cost(model: str, usage: Usage, *, pricing: Mapping[str, ModelPrice] | None = None,
                  batch: bool = False) -> float | None:
    """Reference cost of one call in USD, or ``None`` when the model has no known price.

    ``cost = (input·p_in + cache_write·p_cw + cache_read·p_cr + output·p_out) / 10⁶``,
    halved for Message Batches. An unknown model is never reported as 0 dollars.

    Parameters
    ----------
    model : str
        Model id; a trailing snapshot date (``-20250929``) is ignored.
    usage : Usage
        Token counts; ``input_tokens`` excludes cache reads and writes (as the API reports them).
    pricing : mapping, default=None
        Overrides :data:`PRICING`.
    batch : bool, default=False
        Apply the Message Batches discount.

    Returns
    -------
    float or None
    """
    table = PRICING if pricing is None else pricing
    price = table.get(model) or table.get(_DATE_SUFFIX.sub("", model))
    if price is None:
        return None
    total = (usage.input_tokens * price.input + usage.cache_write_tokens * price.cache_write
             + usage.cache_read_tokens * price.cache_read + usage.output_tokens * price.output) / 1e6
    return total * (BATCH_DISCOUNT if batch else 1.0)


def _usage_from(api_usage: Any) -> Usage:
    if api_usage is None:
        return Usage()
    return Usage(
        input_tokens=int(getattr(api_usage, "input_tokens", 0) or 0),
        output_tokens=int(getattr(api_usage, "output_tokens", 0) or 0),
        cache_read_tokens=int(getattr(api_usage, "cache_read_input_tokens", 0) or 0),
        cache_write_tokens=int(getattr(api_usage, "cache_creation_input_tokens", 0) or 0),
    )


def _retry_after_seconds(headers: Any) -> float | None:
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw) * scale
        except ValueError:
            continue  # an HTTP-date: fall back to our own backoff
        if value >= 0:
            return value
    return None


class AnthropicEngine:
    """Engine backed by the Anthropic Messages API (official ``anthropic`` SDK).

    Parameters
    ----------
    client : anthropic.Anthropic, default=None
        A ready client (tests pass one over ``httpx2.MockTransport``). Built from ``api_key``
        with ``max_retries=0`` when omitted.
    api_key : str, default=None
        Used only when ``client`` is None; never logged or stored elsewhere.
    model : str, default=DEFAULT_MODEL
        Used when the request does not name a model.
    max_retries : int, default=3
        Retries after the first attempt for 429 / 529 / 5xx / connection errors.
    backoff_base : float, default=0.5
        Delay before retry *n* (0-based) is ``backoff_base * 2**n`` unless the server sends
        ``retry-after``; capped at ``max_backoff``.
    sleep : callable, default=time.sleep
    pricing : mapping, default=None
        Overrides :data:`PRICING`.
    structured_mode : {"auto", "output_config", "tool"}, default="auto"
        How a ``structured_schema`` is requested: JSON-schema structured output
        (``output_config.format``) or a single forced tool whose ``input`` is the answer.
        ``auto`` uses ``output_config`` unless the schema has a free-form map
        (``additionalProperties`` other than ``false``), which strict structured output
        cannot express; such schemas go through the forced tool.
    max_backoff : float, default=30.0

    Examples
    --------
    >>> import anthropic, httpx2
    >>> from vignette_lab.engines.base import EngineMessage, GenerateRequest
    >>> def handler(request):
    ...     return httpx2.Response(200, json={
    ...         "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
    ...         "content": [{"type": "text", "text": "네."}], "stop_reason": "end_turn",
    ...         "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 2}})
    >>> client = anthropic.Anthropic(api_key="test", max_retries=0,
    ...     http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    >>> engine = AnthropicEngine(client=client, model="claude-haiku-4-5")
    >>> req = GenerateRequest("client", (EngineMessage("user", "안녕하세요"),))
    >>> engine.generate(req).text
    '네.'
    """

    name = "anthropic"

    def __init__(self, *, client: Any = None, api_key: str | None = None, model: str = DEFAULT_MODEL,
                 max_retries: int = 3, backoff_base: float = 0.5,
                 sleep: Callable[[float], None] = time.sleep,
                 pricing: Mapping[str, ModelPrice] | None = None,
                 structured_mode: str = "auto", max_backoff: float = 30.0):
        if structured_mode not in ("auto", "output_config", "tool"):
            raise ConfigError("The 'structured_mode' parameter of AnthropicEngine must be "
                              f"'auto', 'output_config' or 'tool'. Got {structured_mode!r} instead.")
        if max_retries < 0:
            raise ConfigError(f"max_retries must be >= 0. Got {max_retries!r} instead.")
        if client is None:
            if not api_key:
                raise ConfigError("AnthropicEngine needs an API key: set ANTHROPIC_API_KEY "
                                  "or pass api_key= (or a ready client=).")
            import anthropic

            client = anthropic.Anthropic(api_key=api_key, max_retries=0)
        self._client = client
        self.model = model
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.max_backoff = max_backoff
        self._sleep = sleep
        self._pricing = pricing
        self.structured_mode = structured_mode
        # batch_id -> {custom_id: structured_mode or None}, to parse results of this instance's batches
        self._batch_modes: dict[str, dict[str, str | None]] = {}

    # ------------------------------------------------------------------ request mapping
    def build_params(self, request: GenerateRequest) -> dict[str, Any]:
        """Keyword arguments for ``client.messages.create`` built from ``request``.

        Raises
        ------
        EngineError
            ``code="bad_request"`` when the request holds no user message.
        """
        system: list[dict[str, Any]] = []
        turns: list[dict[str, Any]] = []
        for msg in request.messages:
            if msg.role == "system":
                block: dict[str, Any] = {"type": "text", "text": msg.content}
                if msg.cache:
                    block["cache_control"] = {"type": "ephemeral"}
                system.append(block)
            elif turns and turns[-1]["role"] == msg.role:
                turns[-1]["content"] += "\n\n" + msg.content
            else:
                turns.append({"role": msg.role, "content": msg.content})
        if not any(t["role"] == "user" for t in turns):
            raise EngineError("request has no user message to answer", code="bad_request")
        if turns[0]["role"] == "assistant":
            # The API wants the conversation to open with a user turn; the persona's
            # greeting (L6 history) can come first, so open with a neutral marker.
            turns.insert(0, {"role": "user", "content": "[세션 시작]"})
        params: dict[str, Any] = {
            "model": request.model or self.model,
            "max_tokens": request.max_tokens,
            "messages": turns,
        }
        # No ``temperature``: Messages.create of the installed SDK (API version 2026-10-21)
        # has no such parameter any more, so request.temperature is not sent.
        if system:
            params["system"] = system
        if request.session_id:
            # An opaque id lets Anthropic spot abuse per end user without learning who it is.
            params["metadata"] = {"user_id": hashlib.sha256(
                request.session_id.encode("utf-8")).hexdigest()[:32]}
        schema = request.structured_schema
        if schema is not None:
            import anthropic

            if self.mode_for(schema) == "output_config":
                params["output_config"] = {"format": {"type": "json_schema",
                                                      "schema": anthropic.transform_schema(dict(schema))}}
            else:
                tool_name = _tool_name(schema)
                params["tools"] = [{"name": tool_name, "description": schema.get("description", tool_name),
                                    "input_schema": dict(schema)}]
                params["tool_choice"] = {"type": "tool", "name": tool_name}
        return params

    def mode_for(self, schema: Mapping[str, Any] | None) -> str | None:
        """``"output_config"`` or ``"tool"`` for a schema (``None`` without one)."""
        if schema is None:
            return None
        if self.structured_mode != "auto":
            return self.structured_mode
        return "output_config" if _strict_compatible(schema) else "tool"

    # ------------------------------------------------------------------ calls
    def generate(self, request: GenerateRequest) -> GenerateResponse:
        """One complete response (with retries); raises :class:`EngineError` on failure."""
        params = self.build_params(request)
        started = time.perf_counter()
        message = self._with_retries(lambda: self._client.messages.create(**params))
        latency = (time.perf_counter() - started) * 1000.0
        return self._to_response(message, mode=self.mode_for(request.structured_schema), latency_ms=latency)

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        """``token`` events for text deltas, then one ``done`` or one ``error``.

        A stream that ends before ``message_stop`` yields ``error`` with reason
        ``client_stream_incomplete`` (seed 001 §2.10).
        """
        import anthropic

        try:
            params = self.build_params(request)
        except EngineError as exc:
            yield StreamEvent("error", reason=exc.code)
            return
        started = time.perf_counter()
        try:
            manager = self._with_retries(lambda: _OpenedStream(self._client.messages.stream(**params)))
        except EngineError as exc:
            yield StreamEvent("error", reason=exc.code)
            return
        saw_stop = False
        final = None
        try:
            for event in manager.stream:
                etype = getattr(event, "type", "")
                if etype == "content_block_delta" and getattr(event.delta, "type", "") == "text_delta":
                    if event.delta.text:
                        yield StreamEvent("token", text=event.delta.text)
                elif etype == "message_stop":
                    saw_stop = True
            if saw_stop:
                final = manager.stream.get_final_message()
        except (anthropic.APIError, ValueError, RuntimeError):
            saw_stop = False
        finally:
            manager.close()
        if not saw_stop or final is None:
            yield StreamEvent("error", reason="client_stream_incomplete")
            return
        latency = (time.perf_counter() - started) * 1000.0
        response = self._to_response(final, mode=self.mode_for(request.structured_schema), latency_ms=latency)
        yield StreamEvent("done", text=response.text, response=response)

    # ------------------------------------------------------------------ batches
    def submit_batch(self, requests: Mapping[str, GenerateRequest]) -> str:
        """Submit ``{custom_id: request}`` as one Message Batch and return its id.

        Raises
        ------
        InputError
            A custom id that the API would reject (``[A-Za-z0-9_-]{1,64}``), or no requests.
        """
        if not requests:
            raise InputError("a batch needs at least one request", field="requests")
        entries = []
        modes: dict[str, str | None] = {}
        for custom_id, req in requests.items():
            if not isinstance(custom_id, str) or not _CUSTOM_ID.match(custom_id):
                raise InputError(f"custom_id {custom_id!r} must match [A-Za-z0-9_-]{{1,64}}",
                                 field="custom_id")
            entries.append({"custom_id": custom_id, "params": self.build_params(req)})
            modes[custom_id] = self.mode_for(req.structured_schema)
        batch = self._with_retries(lambda: self._client.messages.batches.create(requests=entries))
        self._batch_modes[batch.id] = modes
        return batch.id

    def poll_batch(self, batch_id: str) -> dict[str, Any]:
        """Status of a batch: ``{"batch_id", "status", "ended", "counts"}``."""
        batch = self._with_retries(lambda: self._client.messages.batches.retrieve(batch_id))
        counts = batch.request_counts
        return {
            "batch_id": batch.id,
            "status": batch.processing_status,
            "ended": batch.processing_status == "ended",
            "counts": {k: int(getattr(counts, k, 0) or 0)
                       for k in ("processing", "succeeded", "errored", "canceled", "expired")},
        }

    def batch_results(self, batch_id: str) -> dict[str, GenerateResponse | EngineError]:
        """Results of an ended batch keyed by custom id; failures become :class:`EngineError`."""
        modes = self._batch_modes.get(batch_id, {})
        out: dict[str, GenerateResponse | EngineError] = {}
        decoder = self._with_retries(lambda: self._client.messages.batches.results(batch_id))
        for item in decoder:
            result = item.result
            if result.type == "succeeded":
                mode = modes.get(item.custom_id)
                if item.custom_id not in modes:
                    mode = "tool" if any(getattr(b, "type", "") == "tool_use"
                                         for b in result.message.content) else None
                out[item.custom_id] = self._to_response(result.message, mode=mode, batch=True)
            elif result.type == "errored":
                err = getattr(result, "error", None)
                detail = getattr(getattr(err, "error", None), "type", None) or "error"
                out[item.custom_id] = EngineError(f"batch request failed: {detail}", code="api_error")
            elif result.type == "expired":
                out[item.custom_id] = EngineError("batch request expired before processing",
                                                  code="expired", retryable=True)
            else:
                out[item.custom_id] = EngineError("batch request was canceled", code="canceled",
                                                  retryable=True)
        return out

    # ------------------------------------------------------------------ helpers
    def _to_response(self, message: Any, *, mode: str | None, latency_ms: float = 0.0,
                     batch: bool = False) -> GenerateResponse:
        text = "".join(getattr(b, "text", "") for b in message.content if getattr(b, "type", "") == "text")
        usage = _usage_from(getattr(message, "usage", None))
        model = getattr(message, "model", None) or self.model
        meta: dict[str, Any] = {"stop_reason": getattr(message, "stop_reason", None),
                                "message_id": getattr(message, "id", None),
                                "pricing_version": PRICING_VERSION}
        payload = None
        if mode is not None:
            if mode == "tool":
                for block in message.content:
                    if getattr(block, "type", "") == "tool_use":
                        payload = dict(block.input) if isinstance(block.input, Mapping) else None
                        break
            else:
                try:
                    loaded = json.loads(text)
                    payload = loaded if isinstance(loaded, dict) else None
                except ValueError:
                    payload = None
            if payload is None:
                meta["structured_error"] = "no parseable structured output"
        return GenerateResponse(
            text=text if payload is None else (text or json.dumps(payload, ensure_ascii=False)),
            structured=payload,
            provider="anthropic",
            model=model,
            usage=usage,
            latency_ms=latency_ms,
            cost_usd=estimate_cost(model, usage, pricing=self._pricing, batch=batch),
            metadata=meta,
        )

    def _with_retries(self, call: Callable[[], Any]) -> Any:
        import anthropic

        attempt = 0
        while True:
            try:
                return call()
            except anthropic.APIStatusError as exc:
                status = exc.status_code
                code = "rate_limited" if status == 429 else "overloaded" if status == 529 else "api_error"
                if status not in _RETRYABLE_STATUS:
                    raise EngineError(f"Anthropic API returned HTTP {status} ({type(exc).__name__})",
                                      code=code, retryable=False) from None
                delay = _retry_after_seconds(getattr(exc.response, "headers", None))
                last = EngineError(f"Anthropic API returned HTTP {status} after {attempt + 1} attempts",
                                   code=code, retryable=True)
            except anthropic.APIConnectionError as exc:
                delay = None
                last = EngineError(f"Anthropic API unreachable ({type(exc).__name__}) after "
                                   f"{attempt + 1} attempts", code="api_error", retryable=True)
            if attempt >= self.max_retries:
                raise last
            if delay is None:
                delay = self.backoff_base * (2 ** attempt)
            self._sleep(min(delay, self.max_backoff))
            attempt += 1


class _OpenedStream:
    """Enters the SDK stream manager inside the retry loop (the HTTP request happens there)."""

    def __init__(self, manager: Any):
        self._manager = manager
        self.stream = manager.__enter__()

    def close(self) -> None:
        self._manager.__exit__(None, None, None)


def _strict_compatible(schema: Any) -> bool:
    """False when some object allows extra keys (a map), which strict output cannot express."""
    if isinstance(schema, Mapping):
        extra = schema.get("additionalProperties", False)
        if schema.get("type") == "object" and extra is not False:
            if extra is True or isinstance(extra, Mapping) or "properties" not in schema:
                return False
        return all(_strict_compatible(v) for k, v in schema.items() if k != "additionalProperties")
    if isinstance(schema, list):
        return all(_strict_compatible(v) for v in schema)
    return True


def _tool_name(schema: Mapping[str, Any]) -> str:
    raw = str(schema.get("title") or "structured_output")
    name = re.sub(r"[^A-Za-z0-9_-]", "_", raw)[:64]
    return name or "structured_output"

