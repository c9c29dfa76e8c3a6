"""Turn orchestrator (seed 001 §2.2): one counseling turn in eight stages.

====  =====================================================  ==================
step  what                                                   owner
====  =====================================================  ==================
1     input guardrail — PII masking + crisis classification  ``core.guardrails``
2     state machine — deterministic openness + stage          ``core.state``
3     client context — L0–L6 messages                         ``session.layers``
4     client AI generation (never sees CCD)                   engine
5     output guardrail — means content blocked                ``core.guardrails``
6     evaluation hook (injected)                              caller
7     state checkpoint                                        caller (service)
8     log hook (injected)                                     caller
====  =====================================================  ==================

``prepare_turn`` is pure (steps 1–3). ``run_turn`` and ``run_turn_stream`` do 4–8.
This module never imports the evaluator: hooks are passed in, and a failing hook is
recorded in :attr:`TurnResult.hook_errors`, never raised (DESIGN rule 6).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from vignette_lab.core.guardrails import (
    SAFE_FALLBACK_REPLY,
    classify_crisis,
    detect_ccd_meta_disclosure,
    mask_pii,
    sanitize_client_reply,
)
from vignette_lab.core.state import estimate_rapport_signal, evolve
from vignette_lab.engines.base import (
    EngineError,
    EngineMessage,
    GenerateRequest,
    GenerateResponse,
    StreamEvent,
)
from vignette_lab.session.layers import RecallContext, _mask, build_client_messages

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine

__all__ = [
    "EvalHook",
    "LogHook",
    "TurnContext",
    "TurnResult",
    "guard_client_reply",
    "prepare_turn",
    "run_turn",
    "run_turn_stream",
]


@dataclass(frozen=True)
class TurnContext:
    """Everything one turn needs after steps 1–3; carries no raw learner text."""

    learner_text_masked: str
    pii_entities: tuple[str, ...]
    crisis: Any
    rapport_signal: float
    rapport_source: str  # "evaluator" | "heuristic"
    state_before: Any
    state_after: Any
    messages: tuple[EngineMessage, ...]
    request: GenerateRequest
    session_id: str | None = None
    persona_code: str | None = None
    history: tuple[tuple[str, str], ...] = ()

    @property
    def stage_advanced(self) -> bool:
        return self.state_after.stage != self.state_before.stage

    @property
    def openness_delta(self) -> float:
        return float(self.state_after.effective_openness) - float(self.state_before.effective_openness)


@dataclass
class TurnResult:
    """Outcome of steps 4–8. ``reply_text`` is what may be shown and stored."""

    ctx: TurnContext
    reply_text: str
    response: GenerateResponse | None
    safety_events: list[dict[str, Any]] = field(default_factory=list)
    evaluation: Any = None
    hook_errors: list[str] = field(default_factory=list)

    @property
    def replaced(self) -> bool:
        return any(e.get("kind") in ("means_blocked", "ccd_meta_disclosure") for e in self.safety_events)


EvalHook = Callable[[TurnContext, str], Any]
LogHook = Callable[[TurnResult], Any]


def _openness_band(value: float) -> str:
    return "low" if value < 0.3 else ("mid" if value < 0.6 else "high")


def prepare_turn(
    learner_text: str,
    *,
    card_view: dict[str, Any],
    state: Any,
    unlock_rate: float | None = None,
    decay_floor: float | None = None,
    recall: RecallContext | None = None,
    kb_cues: Sequence[str] = (),
    pinned: Sequence[str] = (),
    history: Sequence[tuple[str, str]] = (),
    eval_rapport_signal: float | None = None,
    session_id: str | None = None,
    persona_code: str | None = None,
    k_history: int = 8,
    seed: int | None = None,
    max_tokens: int = 400,
    extra_metadata: dict[str, Any] | None = None,
    client_names: Sequence[str] = (),
) -> TurnContext:
    """Steps 1–3: mask, classify crisis, update state, build the client messages.

    Pure: no I/O, no engine call. ``eval_rapport_signal`` (from the previous fast-loop
    evaluation) is preferred over the keyword heuristic when given. ``extra_metadata`` adds
    engine hints (e.g. ``ideation_disclosed``) that never override the computed fields.
    ``client_names`` are the persona's display names: where the trainee uses one as a name it is
    masked as ``[CLIENT]``, not ``[NAME]`` (see :func:`vignette_lab.core.pii.mask_pii`).

    Returns
    -------
    TurnContext
        With ``request`` ready for the client engine.
    """
    if not isinstance(learner_text, str) or not learner_text.strip():
        raise ValueError("prepare_turn: 'learner_text' is blank; blank input must not reach the orchestrator.")
    # the persona's fictional name, where the trainee uses it as a name, becomes [CLIENT] (not [NAME])
    masked = mask_pii(learner_text.strip(), client_names=client_names)
    # The trainee writes as themself, not as a role: a first-person crisis cue is real.
    crisis = classify_crisis(masked.text, speaker_is_persona_context=False)
    if eval_rapport_signal is not None:
        signal, source = max(-1.0, min(1.0, float(eval_rapport_signal))), "evaluator"
    else:
        signal, source = float(estimate_rapport_signal(masked.text)), "heuristic"
    state_after = evolve(state, signal, unlock_rate=unlock_rate, decay_floor=decay_floor)
    history = tuple(history)  # build_client_messages masks every injected text again
    messages = build_client_messages(card_view, state_after, masked.text, recall=recall,
                                     kb_cues=kb_cues, pinned=pinned, history=history,
                                     k_history=k_history)
    metadata: dict[str, Any] = {
        "persona_code": persona_code,
        "stage": state_after.stage,
        "openness_band": _openness_band(float(state_after.effective_openness)),
        # Scripted engines read the numbers to choose disclosure depth; metadata never
        # reaches a model prompt (the Anthropic engine sends only the messages).
        "effective_openness": float(state_after.effective_openness),
        "resistance": float(state_after.resistance),
        "ideation_stage": int(state_after.ideation_stage),
        "turn_seq": int(state_after.turn_seq),
        # lets a scripted client avoid repeating itself beyond the k_history window; masked
        # through the memoised layer mask, so each stored reply is masked once per process
        "prior_replies": [_mask(tx) for sp, tx in history if sp == "client"],
    }
    if extra_metadata:
        metadata.update({k: v for k, v in extra_metadata.items() if k not in metadata})
    if seed is not None:
        metadata["seed"] = seed
    request = GenerateRequest(ai_role="client", messages=messages, session_id=session_id,
                              max_tokens=max_tokens, metadata=metadata)
    entities = tuple(getattr(masked, "entities", ()) or ())
    return TurnContext(learner_text_masked=masked.text,
                       pii_entities=tuple(str(getattr(e, "entity_type", e)) for e in entities),
                       crisis=crisis, rapport_signal=signal, rapport_source=source,
                       state_before=state, state_after=state_after, messages=messages,
                       request=request, session_id=session_id, persona_code=persona_code,
                       history=history)


def guard_client_reply(text: str, ideation_stage: int, *, partial: bool = False) -> tuple[str, list[dict[str, Any]]]:
    """Step 5: return the text that may be shown plus the safety events it caused.

    ``partial`` marks the accumulated prefix of a streaming reply (the meta-talk model then judges
    only its complete sentences; the whole reply is checked again when the stream is done).
    """
    events: list[dict[str, Any]] = []
    guard = sanitize_client_reply(text, ideation_stage)
    if guard.needs_regeneration:
        events.append({"kind": "means_blocked", "escalated": False,
                       "detail": {"reason": guard.reason}})
        return SAFE_FALLBACK_REPLY, events
    if detect_ccd_meta_disclosure(text, partial=partial):
        # Naming one's own core belief defeats the inference exercise (seed 004 T3).
        events.append({"kind": "ccd_meta_disclosure", "escalated": False,
                       "detail": {"reason": "ccd_meta_disclosure"}})
        return SAFE_FALLBACK_REPLY, events
    return guard.text if guard.text else text, events


def _crisis_events(ctx: TurnContext) -> list[dict[str, Any]]:
    if ctx.crisis is not None and getattr(ctx.crisis, "escalate", False):
        return [{"kind": "learner_crisis", "escalated": True,
                 "detail": {"crisis_kind": str(getattr(ctx.crisis, "kind", ""))}}]
    return []


def _run_hooks(result: TurnResult, eval_hook: EvalHook | None, log_hook: LogHook | None) -> None:
    if eval_hook is not None:
        try:
            result.evaluation = eval_hook(result.ctx, result.reply_text)
        except Exception as exc:  # noqa: BLE001 — a hook never breaks a turn
            result.hook_errors.append(f"eval_hook: {type(exc).__name__}: {exc}")
    if log_hook is not None:
        try:
            log_hook(result)
        except Exception as exc:  # noqa: BLE001
            result.hook_errors.append(f"log_hook: {type(exc).__name__}: {exc}")


def run_turn(ctx: TurnContext, engine: Engine, *, eval_hook: EvalHook | None = None,
             log_hook: LogHook | None = None) -> TurnResult:
    """Steps 4–8 in one call: generate, guard, then the injected hooks.

    Raises
    ------
    EngineError
        When the client engine fails; nothing has been stored at that point.
    """
    response = engine.generate(ctx.request)
    text, events = guard_client_reply(response.text, int(ctx.state_after.ideation_stage))
    result = TurnResult(ctx=ctx, reply_text=text, response=response,
                        safety_events=_crisis_events(ctx) + events)
    _run_hooks(result, eval_hook, log_hook)
    return result


def run_turn_stream(ctx: TurnContext, engine: Engine, *,
                    log_hook: LogHook | None = None) -> Iterator[StreamEvent]:
    """Steps 4–8 as a stream of ``token | done | safety | error`` events.

    The output guardrail scans the *accumulated* text before each token is released, so a
    means pattern completed by a token is never emitted. On a match the stream yields a
    ``safety`` event carrying the safe replacement and a final ``done`` whose response text
    is that replacement. A stream that ends without ``done`` yields ``error`` and the log
    hook is not called, so nothing is stored.
    """
    acc = ""
    ideation = int(ctx.state_after.ideation_stage)
    try:
        for event in engine.stream(ctx.request):
            if event.type == "token":
                candidate = acc + event.text
                text, events = guard_client_reply(candidate, ideation, partial=True)
                if events:
                    yield StreamEvent("safety", text=text, reason=events[-1]["kind"])
                    result = TurnResult(ctx=ctx, reply_text=text, response=None,
                                        safety_events=_crisis_events(ctx) + events)
                    response = GenerateResponse(text=text, provider=getattr(engine, "name", "?"),
                                                model="safety-fallback",
                                                metadata={"safety_replaced": True})
                    result.response = response
                    _run_hooks(result, None, log_hook)
                    yield StreamEvent("done", text=text, response=dataclasses.replace(
                        response, metadata={**response.metadata, "turn_result": result}))
                    return
                acc = candidate
                yield event
            elif event.type == "done":
                final = acc or (event.response.text if event.response else "")
                if not final.strip():
                    yield StreamEvent("error", reason="client_stream_empty")
                    return
                text, events = guard_client_reply(final, ideation)
                base = event.response or GenerateResponse(text=final)
                if events:
                    yield StreamEvent("safety", text=text, reason=events[-1]["kind"])
                response = dataclasses.replace(base, text=text)
                result = TurnResult(ctx=ctx, reply_text=text, response=response,
                                    safety_events=_crisis_events(ctx) + events)
                _run_hooks(result, None, log_hook)
                yield StreamEvent("done", text=text, response=dataclasses.replace(
                    response, metadata={**response.metadata, "turn_result": result}))
                return
            elif event.type == "error":
                yield StreamEvent("error", reason=event.reason or "engine_stream_error")
                return
            elif event.type == "safety":
                yield StreamEvent("error", reason=f"engine_safety:{event.reason}")
                return
    except EngineError as exc:
        yield StreamEvent("error", reason=f"{exc.code}: {exc}")
        return
    yield StreamEvent("error", reason="client_stream_incomplete")
