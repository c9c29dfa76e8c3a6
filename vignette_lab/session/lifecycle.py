"""Opening and closing a session: the start transaction, turn indexing and the deep evaluation.

Called by :class:`~vignette_lab.session.service.SessionService`; the end itself (status,
carry-over, summary, case memory) is persisted before :func:`deep_evaluate` runs.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Sequence

from vignette_lab.core.guardrails import clamp_ideation
from vignette_lab.core.state import STAGE_ORDER, init_state
from vignette_lab.errors import InputError, VignetteError, WriteConflict
from vignette_lab.session import coach as coach_mod
from vignette_lab.session import context, memory
from vignette_lab.session.evaluator import SessionEvaluation, evaluate_session
from vignette_lab.store import app_repo, audit_repo

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine
    from vignette_lab.store.base import Database

log = logging.getLogger(__name__)

__all__ = ["DeepWorkers", "after_end", "check_limits", "check_start", "close", "deep_evaluate", "index_turns",
           "open_session"]


def check_limits(**limits: Any) -> None:
    """Each time limit (seconds) must be a non-negative int.

    Raises
    ------
    ValueError
        A negative, non-int or bool value (named).
    """
    for name, value in limits.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"SessionService: '{name}' must be a non-negative int. Got {value!r}.")


class DeepWorkers:
    """Background ends still embedding and deep-evaluating (``SessionService.end(background=True)``).

    Keeps, per session id, the worker thread, the session's learner and the ``pending`` review
    answered while the worker runs; a worker removes itself when it is done (:meth:`done`).
    """

    def __init__(self) -> None:
        self._workers: dict[str, tuple[threading.Thread, str, Any]] = {}

    def start(self, session_id: str, learner_id: str, pending: Any, target: Callable[..., None],
              args: tuple[Any, ...]) -> None:
        """Run ``target(*args)`` in a daemon thread named for the session."""
        worker = threading.Thread(target=target, args=args, name=f"vl-deep-{session_id[:8]}", daemon=True)
        self._workers[session_id] = (worker, learner_id, pending)
        worker.start()

    def done(self, session_id: str) -> None:  # noqa: D102
        self._workers.pop(session_id, None)

    def running(self, session_id: str) -> tuple[str, Any] | None:
        """``(learner_id, pending review)`` while the session's worker is alive, else None."""
        entry = self._workers.get(session_id)
        if entry is None or not entry[0].is_alive():
            return None
        return entry[1], entry[2]

    def wait(self, session_id: str, timeout: float | None = None) -> bool:
        """Join the session's worker; True when none is running (any more)."""
        entry = self._workers.get(session_id)
        if entry is None:
            return True
        worker = entry[0]
        worker.join(timeout)
        return not worker.is_alive()


def check_start(goal_stages: Sequence[str], *, mode: str, theory_mode: str | None) -> tuple[str, ...]:
    """The de-duplicated goal stages of a new session.

    Raises
    ------
    InputError
        Bad goal stages, mode or theory mode.
    """
    goals = tuple(dict.fromkeys(goal_stages))
    if not 1 <= len(goals) <= 4 or any(g not in STAGE_ORDER for g in goals):
        raise InputError(f"goal_stages must be 1–4 of {', '.join(STAGE_ORDER)}; got {list(goal_stages)!r}",
                         field="goal_stages")
    if mode not in ("live", "selfplay"):
        raise InputError(f"mode must be 'live' or 'selfplay'; got {mode!r}", field="mode")
    if theory_mode not in (None, "humanistic", "cbt", "integrative"):
        raise InputError(f"theory_mode must be humanistic, cbt or integrative; got {theory_mode!r}",
                         field="theory_mode")
    return goals


OPEN_ATTEMPTS = 8  # a session open that lost a race for its case row is redone this many times at most


def open_session_retrying(db: Database, lock: Callable[[], Any], **kwargs: Any) -> None:
    """:func:`open_session` in its own transaction, redone when it lost a race for the case row.

    Another connection opening a session of the same case at the same moment (DuckDB: a conflict
    on the case row; either backend: the case row created twice) makes the open lose; it is redone
    in a fresh transaction and then takes the next number. Inside a caller's transaction it runs
    once (the caller owns the retry). ``lock`` returns the session's in-process lock context.
    """
    attempts = 1 if getattr(db, "in_transaction", False) else OPEN_ATTEMPTS
    for attempt in range(1, attempts + 1):
        try:
            with lock(), db.transaction():
                open_session(db, **kwargs)
            return
        except WriteConflict as exc:
            if not exc.retryable or attempt == attempts:
                raise
            time.sleep(min(0.01 * 2 ** attempt, 0.2))


def open_session(db: Database, *, card: dict[str, Any], persona_id: str | None, version: int | None, persona_code: str,
                 learner_id: str, session_id: str, goals: Sequence[str], theory_mode: str | None, mode: str,
                 counselor_profile: str | None, seed: int | None, cohort: str | None, batch: str | None,
                 engine: Engine, embedder: Any, now: datetime, limits: tuple[int, int, int]) -> None:
    """Insert the session and its first checkpoint (one transaction, the caller's)."""
    case = app_repo.ensure_case_profile(db, persona_code, learner_id)
    carry, _ = memory.load_carry_over(db, case["case_id"])
    state = init_state(card, carry)
    prior_max = app_repo.max_ideation_for_case(db, case["case_id"])
    if prior_max is not None and int(prior_max) > state.ideation_stage:
        # ideation never goes down across sessions, whatever the summary says
        state = dataclasses.replace(state, ideation_stage=clamp_ideation(prior_max))
    recall = memory.build_recall_context(db, case["case_id"], embedder=embedder)
    meta = {"display_name": card.get("display_name", persona_code), "initial_state": state.snapshot(),
            "carried_over": carry is not None}
    if batch is not None:
        meta["batch"] = batch
    duration, warning, grace = limits
    app_repo.insert_session(
        db, session_id=session_id, case_id=case["case_id"], learner_id=learner_id, cohort=cohort,
        persona_id=persona_id, persona_code=persona_code, persona_version=version, mode=mode,
        counselor_profile=counselor_profile, engine=getattr(engine, "name", None),
        model=getattr(engine, "model", None), theory_mode=theory_mode, goal_stages=list(goals),
        session_no=app_repo.claim_session_no(db, case["case_id"]), status="active", started_at=now,
        duration_limit_s=duration, warning_before_s=warning, grace_s=grace, seed=seed, review_status="none",
        meta=meta)
    memory.first_checkpoint(db, session_id, state, recall=recall, coach_credits=coach_mod.MAX_CREDITS)


def close(db: Database, row: dict[str, Any], state: Any, *, start_state: Any, stored: Sequence[dict[str, Any]],
          now: datetime, run_deep: bool) -> None:
    """Persist the end in one transaction: status (``pending`` review when a deep loop follows),
    carry-over, summary and case memory."""
    with db.transaction():
        app_repo.mark_session_ended(db, row["session_id"], ended_at=now, review_status="pending" if run_deep else "none")
        memory.close_session_memory(db, row, state, start_state=start_state, turns=stored)


def after_end(db: Database, row: dict[str, Any], stored: Sequence[dict[str, Any]], *, embedder: Any, engine: Engine,
              audit: Any, client_names: tuple[str, ...], run_deep: bool) -> None:
    """Embed the ended session's turns, then the deep loop (its failures leave a ``degraded`` review)."""
    index_turns(db, row, embedder)
    if run_deep:
        deep_evaluate(db, row, stored, engine=engine, embedder=embedder, audit=audit, client_names=client_names)


def index_turns(db: Database, row: dict[str, Any], embedder: Any) -> None:
    """Embed the ended session's turns for later recall (best effort)."""
    if embedder is None:
        return
    from vignette_lab.kb.retrieval import index_turns as _index  # numpy + embedders: only with an embedder

    try:
        _index(db, session_id=row["session_id"], embedder=embedder)
    except VignetteError:  # the end is already stored; recall falls back to salience
        pass


def deep_evaluate(db: Database, row: dict[str, Any], stored: Sequence[dict[str, Any]], *, engine: Engine, embedder: Any,
                  audit: Any, client_names: tuple[str, ...]) -> None:
    """Run the deep loop and store its result; any failure leaves a ``degraded`` review.

    The audit rows of the deep loop's engine calls are held (when ``audit`` is the service's
    :class:`~vignette_lab.session.turns.AuditBuffer` and nothing holds it already) and written in
    the evaluation's own transaction: one commit at the end instead of two. When that
    transaction fails they are written on their own, as before.
    """
    held = getattr(audit, "buffer", False) is None and hasattr(audit, "defer")
    if held:
        audit.defer()
    try:
        _deep_evaluate(db, row, stored, engine=engine, embedder=embedder, audit=audit, client_names=client_names,
                       held=held)
    finally:
        if held:
            audit.release()  # rows a failed transaction gave back are written now


def _deep_evaluate(db: Database, row: dict[str, Any], stored: Sequence[dict[str, Any]], *, engine: Engine,
                   embedder: Any, audit: Any, client_names: tuple[str, ...], held: bool) -> None:
    engine_name = str(getattr(engine, "name", "?"))
    sid = row["session_id"]
    try:
        evals = app_repo.list_turn_evaluations(db, sid)
        try:
            query = context.deep_query(evals, row.get("goal_stages") or ())
        except Exception as exc:  # noqa: BLE001 — the deep loop runs without KB context rather than fail
            log.warning("deep-evaluation KB query failed; running without KB context: %s", exc)
            query = ""
        kb = context.kb_context(db, embedder, "evaluator", query, engine=engine, session_id=sid)
        result = evaluate_session(stored, evals, engine, session_no=int(row["session_no"]),
                                  goal_stages=tuple(row.get("goal_stages") or ()),
                                  persona_code=row["persona_code"], session_id=sid, audit_sink=audit,
                                  client_names=client_names, kb_context=kb)
    except Exception as exc:  # noqa: BLE001
        result = SessionEvaluation(error=f"deep_eval_crash: {type(exc).__name__}: {exc}", engine=engine_name)
    records = audit.take() if held else []
    try:
        # the evaluation, the review status it makes and the audit rows of its calls in one commit
        with db.transaction():
            app_repo.upsert_session_evaluation(
                db, sid, status="ok" if result.ok else "error",
                technique_distribution=result.technique_distribution, strengths=list(result.strengths),
                improvements=list(result.improvements), rationale=result.rationale,
                alternatives=list(result.alternatives), checklist=result.checklist, error=result.error,
                engine=result.engine or engine_name)
            app_repo.set_review_status(db, sid, "ready" if result.ok else "degraded")
            if records:
                try:
                    rows = audit_repo.llm_rows(records)  # checked before its statement runs
                except InputError as exc:
                    log.warning("audit rows of the deep evaluation refused; the evaluation is kept: %s", exc)
                else:
                    audit_repo.insert_llm_rows(db, rows)
    except Exception as exc:  # noqa: BLE001 — the ended session is already safe in the DB
        if held:
            audit.give_back(records)
        log.warning("could not store the deep evaluation; review marked degraded: %s", exc)
        app_repo.set_review_status(db, sid, "degraded")
