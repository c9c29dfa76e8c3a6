"""The engine contract (seed 001 §2.10): what every engine receives and returns.

Engines only *act* (client, counselor) and *judge* (evaluator). They never compute
state numbers; the deterministic state machine owns those.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Iterator, Literal, Protocol, runtime_checkable

from vignette_lab.errors import EngineError

AIRole = Literal["client", "counselor", "evaluator"]
MessageRole = Literal["system", "user", "assistant"]
EventType = Literal["token", "done", "safety", "error"]

__all__ = [
    "AIRole",
    "Engine",
    "EngineError",
    "EngineMessage",
    "GenerateRequest",
    "GenerateResponse",
    "StreamEvent",
    "Usage",
]


@dataclass(frozen=True)
class EngineMessage:
    """One message of a layered prompt.

    ``cache`` marks stable layers (L0–L2) that a provider may cache
    (Anthropic: ``cache_control: {"type": "ephemeral"}``). ``layer`` names the
    prompt layer ("L0+L1", "L2", "L3", "L4", "L6", "L5") for tests and audits.
    """

    role: MessageRole
    content: str
    cache: bool = False
    layer: str = ""


@dataclass(frozen=True)
class GenerateRequest:
    ai_role: AIRole
    messages: tuple[EngineMessage, ...]
    model: str | None = None
    max_tokens: int = 512
    temperature: float = 0.7
    structured_schema: dict[str, Any] | None = None
    session_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def canonical_json(self) -> str:
        """Stable JSON of everything that determines the answer (for cache keys).

        The same text ``json.dumps(asdict(request))`` gives, without ``asdict``'s recursive deep
        copy of every message and metadata value (0.54 → 0.20 ms CPU per client request, measured):
        the fields are read shallowly and nested dataclasses are turned into dicts by ``default``.
        """
        payload = {f.name: getattr(self, f.name) for f in fields(self)}
        payload["metadata"] = {k: v for k, v in self.metadata.items() if k not in {"request_id", "trace_id"}}
        return json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=_plain)

    def cache_key(self) -> str:
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()


def _plain(value: Any) -> Any:
    """JSON ``default`` for :meth:`GenerateRequest.canonical_json`: a dataclass as ``asdict`` gives it
    (read shallowly: nested dataclasses come back here, lists and dicts serialise the same, so the
    text is identical without ``asdict``'s deep copy of every message)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True)
class GenerateResponse:
    text: str
    structured: dict[str, Any] | None = None
    provider: str = "scripted"
    model: str = "scripted"
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    cost_usd: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamEvent:
    """``token`` carries ``text``; ``done`` carries the final ``response``;
    ``safety`` carries ``reason`` (and the replacement text); ``error`` carries ``reason``."""

    type: EventType
    text: str = ""
    response: GenerateResponse | None = None
    reason: str = ""


@runtime_checkable
class Engine(Protocol):
    """What the orchestrator, evaluator, coach and self-play need from an engine."""

    name: str  # "scripted", "anthropic", "local-classifier"

    def generate(self, request: GenerateRequest) -> GenerateResponse:
        """Return one complete response or raise :class:`EngineError`."""

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        """Yield ``token`` events and finish with exactly one ``done`` (or ``error``)."""
