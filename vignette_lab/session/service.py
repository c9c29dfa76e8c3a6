"""The session API notebooks, the CLI and the Panel app use (seed 001 §2.9).

:class:`SessionService` is a facade over small modules: :mod:`~vignette_lab.session.turns`
(one turn: size check → orchestrator → guardrails → persistence in one transaction → fast-loop
evaluation → coach recharge; persistence first, evaluation failures contained),
:mod:`~vignette_lab.session.live` (working memory, the one state rebuild),
:mod:`~vignette_lab.session.context` (pinned card, client view, KB context),
:mod:`~vignette_lab.session.lifecycle` (start transaction, deep evaluation),
:mod:`~vignette_lab.session.credits` and :mod:`~vignette_lab.session.views` (read models).

``end`` persists the end *before* the deep evaluation, so a failing evaluation leaves a
``degraded`` review, never a lost session; after the time limit plus grace new turns raise
:class:`SessionTimeOver`. Everything stored is masked text. A service bound to one learner
(``SessionService(db, learner_id="A")``) refuses other learners' sessions with
:class:`PermissionDenied`; per-call ``learner_id=`` does the same. SQL lives in ``store``.
"""

from __future__ import annotations

import uuid
from contextlib import AbstractContextManager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from vignette_lab.engines.audit import generate_with_audit
from vignette_lab.engines.base import Engine, GenerateRequest, GenerateResponse, StreamEvent
from vignette_lab.errors import CoachCreditExhausted, InputError, PermissionDenied, SessionError, SessionTimeOver
from vignette_lab.session import coach as coach_mod
from vignette_lab.session import context, lifecycle, turns
from vignette_lab.session.credits import spend_credit
from vignette_lab.session.live import Live, LiveCache, load_live, stored_state
from vignette_lab.session.orchestrator import TurnResult, run_turn, run_turn_stream
from vignette_lab.session.views import (
    SessionInfo,
    SessionReview,
    TurnOutcome,
    info_from_row,
    progress_view,
    review_view,
    timing,
    transcript_rows,
)
from vignette_lab.store import app_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["SessionInfo", "SessionReview", "SessionService", "TurnOutcome"]

_VIEWERS = ("learner", "researcher", "faculty", "admin", "evaluator")


def _default_clock() -> datetime:
    return datetime.now(timezone.utc)


class SessionService:
    """Run counseling sessions against one database.

    Parameters
    ----------
    db : Database
        DuckDB or Postgres (``vignette_lab.store.connect``), schema initialised.
    engine : Engine, default=None
        Client engine; ``select_engine(settings)`` when None.
    evaluator_engine : Engine, default=None
        Evaluator/coach engine; the client engine when None.
    embedder : Embedder or "auto", default=None
        For KB cues (client policy), KB passages for the evaluator/coach prompts (C/D material
        dropped unless the engine is local), episodic recall and turn indexing. ``"auto"``
        resolves ``select_embedder(settings)`` on first use; None runs without retrieval.
    clock : callable returning datetime, default=None
        UTC "now" (tests inject a fake clock).
    settings : Settings, default=None
    duration_limit_s, warning_before_s, grace_s : int, default=3600, 600, 300
        The time limit, when the warning starts before it, and the grace after it.
    learner_id : str, default=None
        Bind the service to one learner (ownership enforced on every call).
    run_fast_eval : bool, default=True
        Evaluate every turn (fast loop); a local evaluator's row shares the turn's transaction.

    Examples
    --------
    >>> svc.send(svc.start("P4").session_id, "오늘 어떤 이야기를 하고 싶어요?").client_text  # doctest: +SKIP
    """

    def __init__(self, db: Database, *, engine: Engine | None = None, evaluator_engine: Engine | None = None, embedder: Any = None,
                 clock: Callable[[], datetime] | None = None, settings: Any = None,
                 duration_limit_s: int = 3600, warning_before_s: int = 600, grace_s: int = 300,
                 learner_id: str | None = None, run_fast_eval: bool = True):
        lifecycle.check_limits(duration_limit_s=duration_limit_s, warning_before_s=warning_before_s, grace_s=grace_s)
        if engine is None:
            from vignette_lab.engines import select_engine
            engine = select_engine(settings)
        self.db, self.engine = db, engine
        self.evaluator_engine = evaluator_engine if evaluator_engine is not None else engine
        self._embedder = embedder
        self.clock = clock or _default_clock
        self.settings = settings
        self.duration_limit_s, self.warning_before_s, self.grace_s = duration_limit_s, warning_before_s, grace_s
        self.learner_id = learner_id
        self.run_fast_eval = run_fast_eval
        self._live = LiveCache()  # one lock per session, none across trainees (issue 14 item 4)
        self._deep = lifecycle.DeepWorkers()  # background ends still embedding/evaluating
        self._audit = turns.AuditBuffer(db)

    @property
    def embedder(self) -> Any:
        """The embedder in use; ``"auto"`` is resolved once, and None when none can load."""
        if isinstance(self._embedder, str):
            self._embedder = context.resolve_embedder(self._embedder, self.settings)
        return self._embedder

    # ------------------------------------------------------------------ helpers
    def _hold(self) -> AbstractContextManager[Any]:
        """Keep a DuckDB file open for one operation (opening costs ~30–100 ms per statement)."""
        return self.db.pinned()

    def _generate(self, engine: Engine, request: GenerateRequest) -> GenerateResponse:
        return generate_with_audit(engine, request, sink=self._audit)

    def _kb_context(self, role: str, query: str, *, engine: Engine, session_id: str | None = None) -> tuple[str, ...]:
        return context.kb_context(self.db, self.embedder, role, query, engine=engine, session_id=session_id)

    def _check_owner(self, row: dict[str, Any], learner_id: str | None) -> None:
        for who in (self.learner_id, learner_id):
            if who is not None and row["learner_id"] != who:
                raise PermissionDenied(f"session {row['session_id']} belongs to another learner")

    def _acting_for(self, learner_id: str | None, default: str | None) -> str | None:
        """The learner a bound service acts for (another one is refused); ``learner_id`` when unbound."""
        if self.learner_id is not None and learner_id not in (default, self.learner_id):
            raise PermissionDenied(f"this service acts for learner {self.learner_id!r}")
        return self.learner_id or learner_id

    def _row(self, session_id: str, learner_id: str | None = None) -> dict[str, Any]:
        row = app_repo.get_session(self.db, session_id)
        if row is None:
            raise SessionError(f"unknown session_id {session_id!r}", code="session_not_found")
        self._check_owner(row, learner_id)
        return row

    def _load(self, session_id: str, learner_id: str | None = None, *, row: dict[str, Any] | None = None) -> Live:
        """The session's working memory; ``row`` (already fetched this call) refreshes a cached copy."""
        with self._live.lock(session_id):
            live = self._live.get(session_id)
            kept = self._live.take_row(session_id)  # ``start``'s row and card, for a first turn's load
            kept = kept if live is None and row is None else None
            if live is None or live.stale:  # stale: a write found the stored session moved on
                row = row if row is not None else (kept[0] if kept else self._row(session_id, learner_id))
                self._check_owner(row, learner_id)
                live = load_live(self.db, row, embedder=self.embedder, engine=self.engine,
                                 started_card=kept[1] if kept else None)
                self._live.put(session_id, live)
            self._check_owner(live.row, learner_id)
            live.row = row if row is not None else live.row
            return live

    # ------------------------------------------------------------------ lifecycle
    def start(self, persona_code: str, *, learner_id: str = "local", goal_stages: Sequence[str] = ("라포", "탐색"),
              theory_mode: str | None = None, mode: str = "live", counselor_profile: str | None = None,
              seed: int | None = None, cohort: str | None = None, session_id: str | None = None,
              batch: str | None = None) -> SessionInfo:
        """Open a session; carry-over and recall come from earlier sessions of the same case.

        ``batch`` names the self-play batch the session belongs to (stored in its meta).

        Raises
        ------
        InputError
            Unknown persona, bad goal stages or mode.
        PermissionDenied
            A bound service starting a session for another learner.
        """
        learner_id = self._acting_for(learner_id, "local") or learner_id
        goals = lifecycle.check_start(goal_stages, mode=mode, theory_mode=theory_mode)
        with self._hold():
            card, persona_id, version = context.persona_card(self.db, persona_code)
            sid = session_id or str(uuid.uuid4())
            # a lost race for the case row is redone in a fresh transaction (lifecycle)
            lifecycle.open_session_retrying(
                self.db, lambda: self._live.lock(sid), card=card, persona_id=persona_id, version=version,
                persona_code=persona_code, learner_id=learner_id, session_id=sid, goals=goals,
                theory_mode=theory_mode, mode=mode, counselor_profile=counselor_profile, seed=seed,
                cohort=cohort, batch=batch, engine=self.engine, embedder=self.embedder,
                now=self.clock(), limits=(self.duration_limit_s, self.warning_before_s, self.grace_s))
            created = app_repo.get_session(self.db, sid)
            assert created is not None  # inserted just above, in this transaction
            self._live.keep_row(sid, created, card)  # the first turn's load reads neither again
            return info_from_row(created)

    def get(self, session_id: str, *, learner_id: str | None = None) -> SessionInfo:  # noqa: D102
        return info_from_row(self._row(session_id, learner_id))

    def resume(self, session_id: str, *, learner_id: str | None = None) -> SessionInfo:
        """Forget any in-process copy and rebuild the session from the database."""
        with self._live.lock(session_id):
            self.forget(session_id)
            return info_from_row(self._load(session_id, learner_id).row)

    def forget(self, session_id: str) -> None:
        """Drop the in-process copy of a session (the database keeps everything)."""
        self._live.forget(session_id)

    def list_sessions(self, *, learner_id: str | None = None, mode: str | None = None,
                      persona_codes: Sequence[str] | None = None, since: datetime | None = None,
                      until: datetime | None = None) -> list[SessionInfo]:
        learner_id = self._acting_for(learner_id, None)
        rows = app_repo.list_sessions(self.db, learner_id=learner_id, mode=mode, persona_codes=persona_codes,
                                      since=since, until=until)
        return [info_from_row(r) for r in rows]

    # ------------------------------------------------------------------ turns
    def _begin_turn(self, session_id: str, text: str, learner_id: str | None) -> tuple[Live, Any] | None:
        if turns.check_text(text) is None:
            return None  # seed 000: blank input changes nothing
        # the session row is read only when the session is not in memory; the turn's transaction
        # checks that the stored session is still active (turns.write), so nothing is read back
        live = self._load(session_id, learner_id)
        if live.row["status"] != "active":
            raise SessionError(f"session {session_id} has ended", code="session_ended")
        if timing(live.row, self.clock())["refuse"]:
            raise SessionTimeOver()
        return live, turns.begin(live, text)

    def _finish_turn(self, live: Live, result: TurnResult, ctx: Any, *, intended_technique: str | None) -> TurnOutcome:
        kb = self._kb_context("evaluator", ctx.learner_text_masked, engine=self.evaluator_engine,
                              session_id=live.row["session_id"]) if self.run_fast_eval else ()
        return turns.finish(self.db, live, result, ctx, intended_technique=intended_technique,
                            engine=self.evaluator_engine, run_fast_eval=self.run_fast_eval, kb=kb, audit=self._audit,
                            now=self.clock)

    def deferred(self, session_id: str) -> AbstractContextManager[None]:
        """Stage the session's turns in memory and write them together (``turns.deferred``; self-play)."""
        return turns.deferred(self.db, self._load(session_id), external=context.is_external(self.evaluator_engine))

    def send(self, session_id: str, text: str, *, learner_id: str | None = None,
             intended_technique: str | None = None) -> TurnOutcome | None:
        """One turn, synchronously. ``None`` for blank input (nothing stored, nothing changes).

        Raises
        ------
        InputError
            The message is longer than ``MAX_MESSAGE_CHARS`` (refused, not truncated).
        SessionTimeOver
            After the time limit plus grace.
        SessionError
            The session has ended.
        EngineError
            The client engine failed; nothing was stored.
        """
        with self._live.lock(session_id), self._hold():
            begun = self._begin_turn(session_id, text, learner_id)
            if begun is None:
                return None
            live, ctx = begun
            self._audit.defer()  # keeps rows deferred to this turn (self-play's counselor call)
            try:
                result = run_turn(ctx, turns.AuditedEngine(self.engine, self._audit))
                return self._finish_turn(live, result, ctx, intended_technique=intended_technique)
            finally:
                self._audit.flush()  # e.g. the audit row of a failed engine call
                self._audit.buffer = None

    def send_stream(self, session_id: str, text: str, *, learner_id: str | None = None) -> Iterator[StreamEvent]:
        """Stream one turn: ``token`` events, optional ``safety``, then ``done`` whose
        ``response.metadata["outcome"]`` is the :class:`TurnOutcome` (after persistence).
        An ``error`` event means nothing was stored. Blank input → an empty iterator.

        Raises
        ------
        InputError
            The message is longer than ``MAX_MESSAGE_CHARS`` (raised at once, before streaming).
        """
        if turns.check_text(text) is None:
            return iter(())
        return self._stream(session_id, text, learner_id)

    def _stream(self, session_id: str, text: str, learner_id: str | None) -> Iterator[StreamEvent]:
        with self._live.lock(session_id):
            with self._hold():
                begun = self._begin_turn(session_id, text, learner_id)
            if begun is None:
                return
            live, ctx = begun
            for event in run_turn_stream(ctx, self.engine):
                if event.type in ("token", "safety", "error"):
                    yield event
                    if event.type == "error":
                        return
                    continue
                response = event.response
                assert response is not None  # a "done" event carries the final response
                result: TurnResult = response.metadata["turn_result"]
                with self._hold():
                    turns.audit_stream(self._audit, response, ctx)
                    outcome = self._finish_turn(live, result, ctx, intended_technique=None)
                yield turns.done_event(response, outcome)
                return

    # ------------------------------------------------------------------ read models
    def progress(self, session_id: str, *, learner_id: str | None = None) -> dict[str, Any]:
        """Trainee-safe percentages and timing (never ideation, never persona internals)."""
        row = self._row(session_id, learner_id)
        live = self._live.get(session_id)
        state, credits = (live.state, live.credits) if live is not None else stored_state(self.db, row)
        return progress_view(row, state, credits, self.clock())

    def transcript(self, session_id: str, *, viewer: str = "learner",
                   learner_id: str | None = None) -> list[dict[str, Any]]:
        """Stored (masked) turns. The learner view holds only rows visible to the counselor."""
        if viewer not in _VIEWERS:
            raise InputError(f"viewer must be one of {', '.join(_VIEWERS)}; got {viewer!r}", field="viewer")
        if viewer != "learner" and (self.learner_id is not None or learner_id is not None):
            raise PermissionDenied(f"a learner may only use the learner view (asked for {viewer!r})")
        self._row(session_id, learner_id)
        rows = app_repo.list_turns(self.db, session_id, visible_to="counselor" if viewer == "learner" else None)
        return transcript_rows(rows)

    # ------------------------------------------------------------------ coach
    def coach_credits(self, session_id: str, *, learner_id: str | None = None) -> int:
        return self._load(session_id, learner_id).credits

    def coach_history(self, session_id: str, *, learner_id: str | None = None) -> list[dict[str, Any]]:
        self._row(session_id, learner_id)
        return coach_mod.history(app_repo.list_coach_events(self.db, session_id))

    def coach(self, session_id: str, *, learner_id: str | None = None) -> coach_mod.CoachCard:
        """Spend one credit for a card about the last turn.

        Raises
        ------
        CoachCreditExhausted
            No credit left.
        """
        with self._live.lock(session_id), self._hold():
            live = self._load(session_id, learner_id)
            if live.credits <= 0:
                raise CoachCreditExhausted()
            previous = [e["card"] for e in self.coach_history(session_id) if e["event_type"] == "use" and e["card"]]
            return spend_credit(self.db, live, engine=self.evaluator_engine, previous_cards=previous,
                                generate=self._generate, kb=lambda q: self._kb_context(
                                    "evaluator", q, engine=self.evaluator_engine, session_id=session_id))

    # ------------------------------------------------------------------ end + review
    def end(self, session_id: str, *, run_deep: bool = True, learner_id: str | None = None,
            background: bool = False, read_back: bool = True) -> SessionReview | None:
        """Persist the end first (status, carry-over, summary, case memory), then deep-evaluate.

        ``background=True`` (long-lived processes: the app) returns the ``pending`` review as soon
        as the end is stored and embeds the turns and runs the deep evaluation in a worker thread;
        :meth:`review` answers ``pending`` until it is done (the session page polls), and
        :meth:`wait_deep` waits for it. A one-shot process (the CLI) must keep the default.
        ``read_back=False`` (self-play) returns None instead of reading the stored review back.
        """
        with self._live.lock(session_id), self._hold():
            row = self._row(session_id, learner_id)
            if row["status"] == "ended":
                return self.review(session_id, learner_id=learner_id)
            live = self._load(session_id, learner_id, row=row)
            turns.flush(self.db, live)  # turns staged by a deferred block are stored before the end
            stored = app_repo.list_turns(self.db, session_id)
            lifecycle.close(self.db, row, live.state, start_state=live.start_state, stored=stored, now=self.clock(),
                            run_deep=run_deep)
            self.forget(session_id)
            if background:
                pending = review_view(session_id, "pending", None, app_repo.list_turn_evaluations(self.db, session_id))
                self._deep.start(session_id, row["learner_id"], pending, self._after_end,
                                 (row, stored, live.client_names, run_deep))
                return pending
            self._after_end(row, stored, live.client_names, run_deep)
            return self.review(session_id, learner_id=learner_id) if read_back else None

    def _after_end(self, row: dict[str, Any], stored: Sequence[Any], client_names: Any, run_deep: bool) -> None:
        """Embed the session's turns, then the deep loop (its failures leave a ``degraded`` review)."""
        with self._live.lock(row["session_id"]), self._hold():
            try:
                lifecycle.after_end(self.db, row, stored, embedder=self.embedder, engine=self.evaluator_engine,
                                    audit=self._audit, client_names=client_names, run_deep=run_deep)
            finally:
                self._deep.done(row["session_id"])

    def wait_deep(self, session_id: str, *, timeout: float | None = None) -> bool:
        """Wait for a background end of ``session_id``; True when none is running (any more)."""
        return self._deep.wait(session_id, timeout)

    def review(self, session_id: str, *, learner_id: str | None = None) -> SessionReview:
        running = self._deep.running(session_id)
        if running is not None:
            # the worker holds the database (DuckDB: pinned) until it is done: answer from memory,
            # never wait for it (the page polls this from the server's event loop)
            self._check_owner({"session_id": session_id, "learner_id": running[0]}, learner_id)
            return running[1]
        row = self._row(session_id, learner_id)
        status = row["review_status"]
        if status not in ("ready", "degraded"):
            return review_view(session_id, status, None, ())
        return review_view(session_id, status, app_repo.get_session_evaluation(self.db, session_id),
                           app_repo.list_turn_evaluations(self.db, session_id))
