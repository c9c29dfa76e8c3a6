"""One turn of a session: check the input, prepare, persist, fast-evaluate, build the outcome.

The order is the seed's: persistence first (both turns, safety events, pacing recharge,
checkpoint and the turn's audit rows in one transaction), then the fast-loop evaluation, whose
failure never breaks a turn. A local (scripted) evaluator is pure and fast, so its result is
computed first and written in the same transaction (one commit per turn instead of two). Each text is masked once: the learner text in
:func:`~vignette_lab.session.orchestrator.prepare_turn`, the client reply in :func:`persist`.
"""

from __future__ import annotations

import logging
import threading
import uuid
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from vignette_lab.core.guardrails import mask_pii
from vignette_lab.core.messages import MAX_MESSAGE_CHARS
from vignette_lab.engines.audit import generate_with_audit
from vignette_lab.engines.base import Engine, GenerateRequest, GenerateResponse, StreamEvent
from vignette_lab.errors import InputError, SessionError, WriteConflict
from vignette_lab.session import coach as coach_mod
from vignette_lab.session import credits as credit_mod
from vignette_lab.session import memory
from vignette_lab.session.coach import recharge_reason
from vignette_lab.session.evaluator import evaluate_turn
from vignette_lab.session.live import Live
from vignette_lab.session.orchestrator import TurnContext, TurnResult, prepare_turn
from vignette_lab.session.views import TurnOutcome, progress_view
from vignette_lab.store import app_repo, audit_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

log = logging.getLogger(__name__)

__all__ = ["FLUSH_EVERY", "AuditBuffer", "AuditedEngine", "Persisted", "TurnWrites", "audit_stream", "begin",
           "check_text", "deferred", "done_event", "evaluate_first", "fast_evaluate", "finish", "flush", "flush_due",
           "mask_reply", "outcome", "persist", "safety_event", "stream_audit_record", "write"]

_ALL_VIEWS = ["client", "counselor", "evaluator"]


def check_text(text: Any) -> str | None:
    """The message to send, or None for blank input (which changes nothing).

    Raises
    ------
    InputError
        Not a string, or longer than :data:`~vignette_lab.core.messages.MAX_MESSAGE_CHARS`
        (refused, never truncated).
    """
    if not isinstance(text, str):
        raise InputError(f"text must be a string; got {type(text).__name__}", field="text")
    if not text.strip():
        return None
    if len(text.strip()) > MAX_MESSAGE_CHARS:
        raise InputError(f"메시지가 너무 깁니다: {len(text.strip()):,}자 (최대 {MAX_MESSAGE_CHARS:,}자). "
                         "나누어 보내 주세요.", field="text")
    return text


class AuditBuffer(threading.local):
    """Audit rows of LLM calls: buffered inside a turn (written with its transaction), else at once.

    The buffer is per thread: two trainees' turns running at once in one service never mix
    their audit rows.
    """

    def __init__(self, db: Database):
        self.db = db
        self.buffer: list[dict[str, Any]] | None = None

    def __call__(self, record: dict[str, Any]) -> None:
        if self.buffer is not None:
            self.buffer.append({"created_at": datetime.now(timezone.utc), **record})  # the call's time, not the write's
            return
        self.write([record])

    def write(self, records: list[dict[str, Any]]) -> None:
        audit_repo.log_llm_calls(self.db, records)  # one statement for the turn's calls

    def defer(self) -> None:
        """Hold the next records for the next turn's transaction (self-play's counselor call:
        its audit row then costs no statement and no commit of its own)."""
        if self.buffer is None:
            self.buffer = []

    def release(self) -> None:
        """Write anything still held and stop buffering."""
        self.flush()
        self.buffer = None

    def take(self) -> list[dict[str, Any]]:
        """The buffered records, handed to the turn's write (the buffer stays on, empty)."""
        records = self.buffer or []
        if self.buffer is not None:
            self.buffer = []
        return records

    def give_back(self, records: list[dict[str, Any]]) -> None:
        """Records of a turn whose write failed: written by the next :meth:`flush`."""
        if records:
            self.buffer = records + (self.buffer or [])

    def flush(self) -> None:
        """Write what is buffered; an audit failure never breaks a turn."""
        if not self.buffer:
            return
        records, self.buffer = self.buffer, []
        try:
            self.write(records)
        except Exception as exc:  # noqa: BLE001
            log.warning("audit write failed; the turn is kept: %s", exc)


class AuditedEngine:
    """Routes ``generate`` through :func:`generate_with_audit` (metadata-only audit rows)."""

    def __init__(self, inner: Any, sink: Callable[[dict[str, Any]], Any]):
        self.inner, self.sink = inner, sink
        self.name = getattr(inner, "name", "engine")

    def generate(self, request: GenerateRequest) -> GenerateResponse:
        return generate_with_audit(self.inner, request, sink=self.sink)

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        return self.inner.stream(request)


def stream_audit_record(response: GenerateResponse, ctx: TurnContext) -> dict[str, Any]:
    """The audit row of a streamed client reply (the stream path bypasses ``generate_with_audit``)."""
    return {"ai_role": "client", "provider": response.provider, "model": response.model,
            "session_id": ctx.session_id, "request_hash": ctx.request.cache_key(),
            "input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens,
            "cache_read_tokens": response.usage.cache_read_tokens,
            "cache_write_tokens": response.usage.cache_write_tokens, "cost_usd": response.cost_usd,
            "latency_ms": response.latency_ms, "status": "ok", "error_code": None}


def audit_stream(audit: AuditBuffer, response: GenerateResponse, ctx: TurnContext) -> None:
    """Log a streamed turn's engine call; an audit failure is logged and never breaks the turn."""
    try:
        audit(stream_audit_record(response, ctx))
    except Exception as exc:  # noqa: BLE001 — audit failure never breaks a turn
        log.warning("audit of a streamed turn failed; the turn is kept: %s", exc)


def begin(live: Live, text: str) -> TurnContext:
    """Steps 1–3 of the orchestrator for this session's working memory (masks the learner text once)."""
    row = live.row
    return prepare_turn(text, card_view=live.card_view, state=live.state, recall=live.recall,
                        kb_cues=live.kb_cues, pinned=live.pinned, history=live.history,
                        session_id=row["session_id"], persona_code=row["persona_code"], seed=row.get("seed"),
                        extra_metadata={"ideation_disclosed": live.ideation_disclosed},
                        client_names=live.client_names)


class Persisted:
    """Sequence numbers, stored ids and texts of a persisted turn."""

    __slots__ = ("c_seq", "r_seq", "counselor_turn", "reply_masked", "recharged", "events")

    def __init__(self, c_seq: int, r_seq: int, counselor_turn: str, reply_masked: str, recharged: list[str],
                 events: list[dict[str, Any]]):
        self.c_seq, self.r_seq, self.counselor_turn = c_seq, r_seq, counselor_turn
        self.reply_masked, self.recharged, self.events = reply_masked, recharged, events


def _client_events(result: TurnResult) -> list[dict[str, Any]]:
    """Safety events of the turn, plus one when the client disclosed passive ideation."""
    events = list(result.safety_events)
    meta = getattr(result.response, "metadata", None) or {}
    if meta.get("ideation_disclosed") and not any(e["kind"] == "means_blocked" for e in events):
        events.append({"kind": "client_ideation_disclosure", "escalated": False,
                       "detail": {"reason": "passive ideation voiced by the client"}})
    return events


def mask_reply(result: TurnResult, *, client_names: Sequence[str] = ()) -> str:
    """The client reply as it is stored and shown (masked once per turn); the persona's own
    fictional name, where the gate finds it as a name, becomes ``[CLIENT]``."""
    return mask_pii(result.reply_text, client_names=client_names).text


def evaluate_first(live: Live, ctx: TurnContext, reply_masked: str, *, engine: Engine, audit: AuditBuffer,
                   kb: tuple[str, ...]) -> tuple[Any, str | None] | None:
    """Fast-loop evaluation before the write, for a local evaluator (pure, no I/O); None on failure.

    Lets the turn and its evaluation share one transaction; a failure is contained and the turn
    is still stored.
    """
    try:
        ev = evaluate_turn(ctx, reply_masked, engine, audit_sink=audit, client_names=live.client_names,
                           kb_context=kb)
        reason = recharge_reason(appropriateness=ev.appropriateness, rapport_signal=ev.rapport_signal,
                                 stage_advanced=ctx.stage_advanced, openness_delta=ctx.openness_delta)
        return ev, reason
    except Exception as exc:  # noqa: BLE001 — an evaluation failure never breaks a turn
        log.warning("turn evaluation failed; the turn is kept without it: %s", exc)
        return None


class TurnWrites:
    """The rows of one or more turns of one session, written together by :func:`write`."""

    __slots__ = ("session_id", "turns", "evaluations", "safety", "coach", "audit", "checkpoint", "n_turns")

    def __init__(self, session_id: str):
        self.session_id = session_id
        self.turns: list[dict[str, Any]] = []
        self.evaluations: list[dict[str, Any]] = []
        self.safety: list[dict[str, Any]] = []
        self.coach: list[dict[str, Any]] = []
        self.audit: list[dict[str, Any]] = []
        self.checkpoint: tuple[Any, list[tuple[str, str]], int] | None = None
        self.n_turns = 0

    def extend(self, other: "TurnWrites") -> None:
        """Append the rows of a later turn (its checkpoint replaces this one's)."""
        self.turns += other.turns
        self.evaluations += other.evaluations
        self.safety += other.safety
        self.coach += other.coach
        self.audit += other.audit
        self.checkpoint = other.checkpoint or self.checkpoint
        self.n_turns += other.n_turns


def write(db: Database, writes: TurnWrites) -> None:
    """Store ``writes`` in one transaction: the session's status (one column), the checkpoint, then
    one multi-row insert per table (turns, safety events, coach events, evaluations, audit rows).

    The session row is not read before a turn: the process holds it in memory, and this transaction
    checks that the stored session is still ``active``; a turn written by another process meanwhile
    collides with the unique ``(session_id, seq)`` key.

    Raises
    ------
    SessionError
        ``session_ended``: the stored session ended meanwhile (nothing was written).
    WriteConflict
        Another process wrote a turn of this session meanwhile (nothing was written).
    """
    sid = writes.session_id
    with db.transaction():
        if app_repo.session_status(db, sid) != "active":
            raise SessionError(f"session {sid} has ended", code="session_ended")
        if writes.checkpoint is not None:
            state, short_buffer, credits = writes.checkpoint
            memory.checkpoint_turn(db, sid, state, short_buffer=short_buffer, coach_credits=credits)
        app_repo.insert_turns(db, writes.turns)
        app_repo.insert_safety_events(db, writes.safety)
        app_repo.insert_coach_events(db, writes.coach)
        app_repo.insert_turn_evaluations(db, writes.evaluations)
        if writes.audit:
            try:
                rows = audit_repo.llm_rows(writes.audit)  # checked before any statement runs
            except InputError as exc:
                log.warning("audit rows refused; the turn is kept: %s", exc)
            else:
                audit_repo.insert_llm_rows(db, rows)


def persist(db: Database, live: Live, result: TurnResult, *, intended_technique: str | None, audit: AuditBuffer,
            reply_masked: str | None = None, evaluation: tuple[Any, str | None] | None = None) -> Persisted:
    """Stage both turns, the safety events, the pacing recharge, the audit rows of the turn and the
    checkpoint (plus a precomputed fast-loop ``evaluation`` and its recharge) and store them in one
    transaction; inside :func:`deferred` they join the session's pending batch instead.

    The in-process state moves on only after the commit (or when the turn joined the batch).
    """
    ctx = result.ctx
    state = ctx.state_after
    k = int(state.turn_seq)
    c_seq, r_seq = 2 * k - 1, 2 * k
    if reply_masked is None:
        reply_masked = mask_reply(result, client_names=live.client_names)
    row = live.row
    sid, case_id = row["session_id"], row["case_id"]
    events = _client_events(result)
    batch = live.pending
    w = TurnWrites(sid)  # this turn's rows, added to a pending batch in one step
    counselor_turn = str(uuid.uuid4())
    w.turns += [
        dict(turn_id=counselor_turn, session_id=sid, case_id=case_id, seq=c_seq, speaker="counselor",
             text_masked=ctx.learner_text_masked, visible_to=_ALL_VIEWS, sensitivity=0,
             salience=memory.salience(ctx.learner_text_masked, "counselor"), intended_technique=intended_technique,
             safety={"pii": list(ctx.pii_entities), "crisis": getattr(ctx.crisis, "kind", None)}),
        dict(session_id=sid, case_id=case_id, seq=r_seq, speaker="client", text_masked=reply_masked,
             visible_to=_ALL_VIEWS, sensitivity=0, salience=memory.salience(reply_masked, "client"),
             state_after=state.snapshot(),
             safety=[{"kind": e["kind"], "escalated": e["escalated"]} for e in events] or None)]
    w.safety += [dict(session_id=sid, turn_seq=c_seq, kind=ev["kind"], escalated=bool(ev["escalated"]),
                      detail=ev.get("detail")) for ev in events]
    credits, recharged = live.credits, []
    for reason in ("pacing" if credit_mod.pacing_due(k, credits) else None,
                   evaluation[1] if evaluation is not None else None):
        if reason and credits < coach_mod.MAX_CREDITS:
            credits += 1
            recharged.append(reason)
            w.coach.append(dict(session_id=sid, turn_seq=c_seq, event_type="recharge", credit_delta=1,
                                credit_balance=credits, reason=reason, payload=None))
    if evaluation is not None:
        w.evaluations.append(dict(turn_id=counselor_turn, session_id=sid, evaluation=evaluation[0],
                                  engine=evaluation[0].engine))
    taken = audit.take()
    w.audit += taken
    history = live.history + [("counselor", ctx.learner_text_masked), ("client", reply_masked)]
    w.checkpoint = (state, history[-8:], credits)
    w.n_turns = 1
    if batch is not None:
        batch.extend(w)
    else:
        try:
            write(db, w)
        except BaseException as exc:
            audit.give_back(taken)  # the engine calls happened: their rows are still written
            live.stale = isinstance(exc, (SessionError, WriteConflict))  # reloaded at the next call
            raise
    live.state, live.history, live.credits = state, history, credits
    if any(e["kind"] == "client_ideation_disclosure" for e in events):
        live.ideation_disclosed = True
    return Persisted(c_seq, r_seq, counselor_turn, reply_masked, recharged, events)


def safety_event(db: Database, live: Live, **row: Any) -> None:
    """One more safety event of the session's last turn (``insert_safety_event`` arguments): with the
    pending batch when there is one, else at once in its own transaction."""
    if live.pending is not None and live.pending.n_turns:
        live.pending.safety.append(dict(row, session_id=live.row["session_id"]))
        return
    with db.transaction():
        app_repo.insert_safety_event(db, session_id=live.row["session_id"], **row)


#: a deferred batch is written at least every this many turns (bounds memory and statement size)
FLUSH_EVERY = 50


@contextmanager
def deferred(db: Database, live: Live, *, external: bool = False) -> Iterator[None]:
    """Hold the session's turns in memory and write them together (self-play).

    Every turn's rows join one pending :class:`TurnWrites`, written in one transaction when the
    block ends, every :data:`FLUSH_EVERY` turns, and before the session ends (:func:`flush`). A
    concurrent reader sees whole turns with their checkpoint, never part of one: the session as
    it was at the last write. An error inside the block drops nothing already staged: the
    pending turns are written before the error propagates. With an ``external`` evaluator (its
    row is written after the turn's, in its own transaction) every turn is written at once.
    """
    if live.pending is not None or external:
        yield
        return
    live.pending = TurnWrites(live.row["session_id"])
    try:
        yield
    finally:
        flush(db, live)
        live.pending = None


def flush(db: Database, live: Live) -> None:
    """Write the session's pending batch (if any) and start a new one."""
    w = live.pending
    if w is None or not w.n_turns:
        return
    live.pending = TurnWrites(w.session_id)
    try:
        write(db, w)
    except BaseException:
        live.stale = True  # memory is ahead of the database: reload it at the next call
        raise


def flush_due(db: Database, live: Live) -> None:
    """Write the pending batch once it holds :data:`FLUSH_EVERY` turns."""
    if live.pending is not None and live.pending.n_turns >= FLUSH_EVERY:
        flush(db, live)


def fast_evaluate(db: Database, live: Live, ctx: TurnContext, reply_masked: str, stored: Persisted, *, engine: Engine,
                  audit: AuditBuffer, kb: tuple[str, ...]) -> tuple[str, list[str]]:
    """Fast loop after persistence: (status, performance recharges). Never raises."""
    try:
        ev = evaluate_turn(ctx, reply_masked, engine, audit_sink=audit, client_names=live.client_names,
                           kb_context=kb)
        reason = recharge_reason(appropriateness=ev.appropriateness, rapport_signal=ev.rapport_signal,
                                 stage_advanced=ctx.stage_advanced, openness_delta=ctx.openness_delta)
        sid = live.row["session_id"]
        with db.transaction():
            audit.flush()
            app_repo.insert_turn_evaluation(db, turn_id=stored.counselor_turn, session_id=sid, evaluation=ev,
                                            engine=ev.engine)
            credits = credit_mod.performance_recharge(db, sid, reason=reason, c_seq=stored.c_seq,
                                                      credits=live.credits)
        recharged = [reason] if reason and credits > live.credits else []  # no reason, no recharge
        live.credits = credits
        return ("ok" if ev.ok else "error"), recharged
    except Exception:  # noqa: BLE001 — an evaluation failure never breaks a turn
        return "error", []


def finish(db: Database, live: Live, result: TurnResult, ctx: TurnContext, *, intended_technique: str | None,
           engine: Engine, run_fast_eval: bool, kb: tuple[str, ...], audit: AuditBuffer,
           now: Callable[[], Any]) -> TurnOutcome:
    """After the engine answered: mask the reply once, evaluate, persist, and build the outcome.

    A local evaluator (``run_fast_eval`` and not external) is pure and fast, so it runs first and
    its row is stored in the turn's own transaction; an external one runs after persistence
    (:func:`fast_evaluate`), so its failure never loses the turn.
    """
    from vignette_lab.session.context import is_external

    reply, status, early = mask_reply(result, client_names=live.client_names), "skipped", None
    more: list[str] = []
    local = run_fast_eval and not is_external(engine)
    if local:
        early = evaluate_first(live, ctx, reply, engine=engine, audit=audit, kb=kb)
        status = "error" if early is None else ("ok" if early[0].ok else "error")
    stored = persist(db, live, result, intended_technique=intended_technique, audit=audit, reply_masked=reply,
                     evaluation=early)
    if run_fast_eval and not local:
        status, more = fast_evaluate(db, live, ctx, reply, stored, engine=engine, audit=audit, kb=kb)
    return outcome(live, result, stored, status, stored.recharged + more, now())


def done_event(response: GenerateResponse, outcome: TurnOutcome) -> StreamEvent:
    """The streamed turn's ``done`` event: the stored (masked) reply and the outcome in its metadata."""
    import dataclasses

    meta = {k: v for k, v in response.metadata.items() if k != "turn_result"}
    return StreamEvent("done", text=outcome.client_text,
                       response=dataclasses.replace(response, text=outcome.client_text,
                                                    metadata={**meta, "outcome": outcome}))


def outcome(live: Live, result: TurnResult, stored: Persisted, status: str, recharged: list[str],
            now: Any) -> TurnOutcome:
    """The trainee-safe result of a turn (the reply as stored: masked once in :func:`persist`)."""
    return TurnOutcome(
        session_id=live.row["session_id"], counselor_seq=stored.c_seq, counselor_text=result.ctx.learner_text_masked,
        client_seq=stored.r_seq, client_text=stored.reply_masked,
        safety_events=tuple({"kind": e["kind"], "escalated": e["escalated"]} for e in stored.events),
        crisis_escalated=bool(getattr(result.ctx.crisis, "escalate", False)),
        progress=progress_view(live.row, live.state, live.credits, now), evaluation_status=status,
        coach_credits=live.credits, coach_recharged=tuple(recharged))
