"""The session API notebooks, the CLI and the Panel app use (seed 001 §2.9).

:class:`SessionService` ties the pure parts together around one database:

* ``start`` pins the approved persona id + version, opens or reuses the (persona, learner)
  case, carries the last session's numbers over by code and builds the recall context;
* ``send`` / ``send_stream`` run one turn: orchestrator → guardrails → persistence (both
  turns, safety events, checkpoint, in one transaction) → fast-loop evaluation → coach
  recharge. Persistence comes first; evaluation failures are contained;
* ``end`` persists the end (status, carry-over, summary, case memory) *before* the deep
  evaluation runs, so a failing evaluation leaves a ``degraded`` review, never a lost session;
* time is limited: 60 min with a 10-min warning, then a grace period after which new turns
  raise :class:`SessionTimeOver`.

Everything stored is masked text. A service may be bound to one learner
(``SessionService(db, learner_id="A")``): it then refuses any other learner's session with
:class:`PermissionDenied`; per-call ``learner_id=`` does the same check for shared services.
"""

from __future__ import annotations

import logging

import dataclasses
import threading
import uuid
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Sequence

from vignette_lab.core.guardrails import clamp_ideation, mask_pii
from vignette_lab.core.state import STAGE_ORDER, SessionState, build_progress, init_state
from vignette_lab.engines.audit import generate_with_audit
from vignette_lab.engines.base import GenerateRequest, GenerateResponse, StreamEvent
from vignette_lab.errors import (
    VignetteError,
    CoachCreditExhausted,
    InputError,
    PermissionDenied,
    SessionError,
    SessionTimeOver,
)
from vignette_lab.session import coach as coach_mod
from vignette_lab.session import memory
from vignette_lab.session.evaluator import SessionEvaluation, evaluate_session, evaluate_turn
from vignette_lab.session.layers import RecallContext
from vignette_lab.session.orchestrator import TurnContext, TurnResult, prepare_turn, run_turn, run_turn_stream
from vignette_lab.store import app_repo

log = logging.getLogger(__name__)

__all__ = ["SessionInfo", "SessionReview", "SessionService", "TurnOutcome"]

_ALL_VIEWS = ["client", "counselor", "evaluator"]
# Engines that run on this machine; any other name (unknown ones too) counts as external,
# so license C/D and external_llm_ok=false chunks are dropped from its prompts.
_LOCAL_ENGINES = frozenset({"scripted", "local-classifier"})
_KB_CONTEXT_K = 3
_VIEWERS = ("learner", "researcher", "faculty", "admin", "evaluator")


@dataclass(frozen=True)
class SessionInfo:
    """One session as the app shows it (no state numbers, no persona internals)."""

    session_id: str
    case_id: str
    learner_id: str
    persona_code: str
    persona_id: str | None
    persona_version: int | None
    display_name: str
    mode: str
    counselor_profile: str | None
    goal_stages: tuple[str, ...]
    session_no: int
    status: str
    review_status: str
    started_at: datetime
    ended_at: datetime | None
    duration_limit_s: int
    warning_before_s: int
    grace_s: int
    theory_mode: str | None = None
    cohort: str | None = None
    seed: int | None = None
    engine: str | None = None


@dataclass(frozen=True)
class TurnOutcome:
    """What one ``send`` produced, trainee-safe."""

    session_id: str
    counselor_seq: int
    counselor_text: str
    client_seq: int
    client_text: str
    safety_events: tuple[dict[str, Any], ...]
    crisis_escalated: bool
    progress: dict[str, Any]
    evaluation_status: str  # "ok" | "error" | "skipped"
    coach_credits: int
    coach_recharged: tuple[str, ...] = ()


@dataclass(frozen=True)
class SessionReview:
    """Learner-safe review of an ended session."""

    session_id: str
    status: str  # "pending" | "ready" | "degraded"
    technique_distribution: dict[str, Any] = field(default_factory=dict)
    strengths: tuple[str, ...] = ()
    improvements: tuple[str, ...] = ()
    rationale: str = ""
    alternatives: tuple[dict[str, Any], ...] = ()
    checklist: dict[str, Any] = field(default_factory=dict)
    turn_evaluations: tuple[dict[str, Any], ...] = ()
    error: str | None = None
    engine: str | None = None  # evaluator engine that wrote the review


@dataclass
class _Live:
    """In-process working memory of an active session (rebuilt from the DB on demand)."""

    row: dict[str, Any]
    card_view: dict[str, Any]
    state: SessionState
    start_state: SessionState
    recall: RecallContext
    pinned: list[str]
    kb_cues: list[str]
    history: list[tuple[str, str]]
    credits: int
    client_names: tuple[str, ...]


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)


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
        For KB cues (client policy), KB passages for the evaluator/coach prompts (evaluator
        policy; C/D material dropped unless the engine is local), episodic recall and turn
        indexing. ``"auto"`` resolves ``vignette_lab.kb.embedders.select_embedder(settings)`` on
        first use (the app and the CLI pass it); None runs without retrieval (recall falls back
        to salient turns).
    clock : callable returning datetime, default=None
        UTC "now" (tests inject a fake clock).
    settings : Settings, default=None
    duration_limit_s, warning_before_s, grace_s : int, default=3600, 600, 300
        The time limit, when the warning starts before it, and the grace after it.
    learner_id : str, default=None
        Bind the service to one learner (ownership enforced on every call).

    Examples
    --------
    >>> svc = SessionService(db)                                   # doctest: +SKIP
    >>> info = svc.start("P4", learner_id="local")                 # doctest: +SKIP
    >>> svc.send(info.session_id, "오늘 어떤 이야기를 하고 싶어요?").client_text  # doctest: +SKIP
    """

    def __init__(self, db, *, engine: Any = None, evaluator_engine: Any = None, embedder: Any = None,
                 clock: Callable[[], datetime] | None = None, settings: Any = None,
                 duration_limit_s: int = 3600, warning_before_s: int = 600, grace_s: int = 300,
                 learner_id: str | None = None, run_fast_eval: bool = True):
        for name, value in (("duration_limit_s", duration_limit_s), ("warning_before_s", warning_before_s),
                            ("grace_s", grace_s)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"SessionService: '{name}' must be a non-negative int. Got {value!r}.")
        if engine is None:
            from vignette_lab.engines import select_engine
            engine = select_engine(settings)
        self.db = db
        self.engine = engine
        self.evaluator_engine = evaluator_engine if evaluator_engine is not None else engine
        self._embedder = embedder
        self.clock = clock or _default_clock
        self.settings = settings
        self.duration_limit_s, self.warning_before_s, self.grace_s = duration_limit_s, warning_before_s, grace_s
        self.learner_id = learner_id
        self.run_fast_eval = run_fast_eval
        self._live: dict[str, _Live] = {}
        self._lock = threading.RLock()
        self._audit_buffer: list[dict[str, Any]] | None = None

    @property
    def embedder(self) -> Any:
        """The embedder in use; ``"auto"`` is resolved once, and None when none can load."""
        if isinstance(self._embedder, str):
            if self._embedder != "auto":
                raise ValueError(f"SessionService: 'embedder' must be an Embedder, 'auto' or None. "
                                 f"Got {self._embedder!r}.")
            try:
                from vignette_lab.kb.embedders import select_embedder
                self._embedder = select_embedder(self.settings)
            except (ImportError, VignetteError) as exc:
                log.warning("no embedder for KB cues and recall: %s", exc)
                self._embedder = None
        return self._embedder

    # ------------------------------------------------------------------ helpers
    def _hold(self) -> AbstractContextManager[Any]:
        """Keep a DuckDB file open for one operation (opening costs ~30–100 ms per statement)."""
        pinned = getattr(self.db, "pinned", None)
        return pinned() if pinned is not None else nullcontext()

    def _audit(self, record: dict[str, Any]) -> None:
        if self._audit_buffer is not None:
            # inside a turn: written with the turn's own transaction (one commit, not three)
            self._audit_buffer.append(record)
            return
        self._write_audit([record])

    def _write_audit(self, records: list[dict[str, Any]]) -> None:
        try:
            from vignette_lab.store import audit_repo
        except ImportError:  # audit module not installed: calls still work, unaudited
            return
        for record in records:
            audit_repo.log_llm_call(self.db, **record)

    def _flush_audit(self) -> None:
        if not self._audit_buffer:
            return
        records, self._audit_buffer = self._audit_buffer, []
        if records:
            try:
                self._write_audit(records)
            except Exception:  # noqa: BLE001 — an audit failure never breaks a turn
                pass

    def _generate(self, engine: Any, request: GenerateRequest) -> GenerateResponse:
        return generate_with_audit(engine, request, sink=self._audit)

    def _check_owner(self, row: dict[str, Any], learner_id: str | None) -> None:
        for who in (self.learner_id, learner_id):
            if who is not None and row["learner_id"] != who:
                raise PermissionDenied(f"session {row['session_id']} belongs to another learner")

    def _row(self, session_id: str, learner_id: str | None = None) -> dict[str, Any]:
        row = app_repo.get_session(self.db, session_id)
        if row is None:
            raise SessionError(f"unknown session_id {session_id!r}", code="session_not_found")
        self._check_owner(row, learner_id)
        return row

    @staticmethod
    def _info(row: dict[str, Any]) -> SessionInfo:
        meta = row.get("meta") or {}
        return SessionInfo(
            session_id=row["session_id"], case_id=row["case_id"], learner_id=row["learner_id"],
            persona_code=row["persona_code"], persona_id=row.get("persona_id"),
            persona_version=row.get("persona_version"), display_name=meta.get("display_name", row["persona_code"]),
            mode=row["mode"], counselor_profile=row.get("counselor_profile"),
            goal_stages=tuple(row.get("goal_stages") or ()), session_no=int(row["session_no"]),
            status=row["status"], review_status=row["review_status"], started_at=_utc(row["started_at"]),
            ended_at=_utc(row["ended_at"]) if row.get("ended_at") else None,
            duration_limit_s=int(row["duration_limit_s"]), warning_before_s=int(row["warning_before_s"]),
            grace_s=int(row["grace_s"]), theory_mode=row.get("theory_mode"), cohort=row.get("cohort"),
            seed=row.get("seed"), engine=row.get("engine"))

    def _persona(self, code: str) -> tuple[dict[str, Any], str | None, int | None]:
        """(full card dict, persona_id, version) of the approved catalog card, else the bundled file."""
        try:
            from vignette_lab.store import catalog
        except ImportError:
            catalog = None
        if catalog is not None:
            row = catalog.get_persona_row(self.db, code)
            if row is not None:
                card = dict(row["card"])
                return card, row["persona_id"], int(row["version"])
        from vignette_lab.core.personas import load_personas
        cards = load_personas()
        if code not in cards:
            raise InputError(f"unknown persona code {code!r} (known: {', '.join(sorted(cards))})",
                             field="persona_code")
        card = cards[code]
        return card.to_dict(), None, int(card.version)

    @staticmethod
    def _client_view(card: dict[str, Any]) -> dict[str, Any]:
        from vignette_lab.core.personas import CLIENT_HIDDEN_FIELDS
        return {k: v for k, v in card.items() if k not in CLIENT_HIDDEN_FIELDS}

    def _kb_context(self, role: str, query: str, *, engine: Any, session_id: str | None = None) -> tuple[str, ...]:
        """Top KB passages for ``role`` as ``[source_id · kind · heading] body`` lines (one search).

        For the counselor and evaluator prompts (L2). ``query`` is masked text (stored turns,
        ``ctx.learner_text_masked``); ``kb.retrieval_log`` keeps only its hash. Empty without an
        embedder, for a blank query, or when retrieval fails: the knowledge base enriches a
        prompt, it never breaks one. ``engine`` is the one that will receive the prompt; unless
        it is local, the search drops license C/D and ``external_llm_ok = false`` chunks in SQL.
        """
        if role not in ("counselor", "evaluator"):
            raise ValueError(f"_kb_context serves the counselor and evaluator prompts, not {role!r}")
        if self.embedder is None or not (query or "").strip():
            return ()
        try:
            from vignette_lab.kb.retrieval import POLICIES, search
        except ImportError:
            return ()
        policy = POLICIES[role]
        try:
            hits = search(self.db, query, role=role, k=_KB_CONTEXT_K,
                          external_engine=_is_external(engine), session_id=session_id, embedder=self.embedder)
        except VignetteError as exc:  # e.g. the knowledge base is not indexed yet
            log.info("no KB context for the %s prompt: %s", role, exc)
            return ()
        except Exception as exc:  # noqa: BLE001 — retrieval is an enrichment and never breaks a turn
            log.warning("KB retrieval for the %s prompt failed: %s: %s", role, type(exc).__name__, exc)
            return ()
        lines = []
        for h in hits:
            # the SQL already applies the policy; re-checked so a regression cannot leak
            if h.sensitivity > policy.sensitivity_max or h.kb_kind not in policy.kinds:
                continue
            label = " · ".join(x for x in (h.source_id, h.kb_kind, h.heading_path) if x)
            lines.append(f"[{label}] {' '.join(h.text.split())}")
        return tuple(lines)

    def _kb_cues(self, card: dict[str, Any], stage: str) -> list[str]:
        """Behavioural cue lines for L2 from the client KB policy (never chunk bodies).

        The query holds only what the client may know (stage + presenting complaint). Needs an
        embedder; without one (or without the kb module) the client simply gets no cues.
        """
        if self.embedder is None:
            return []
        try:
            from vignette_lab.kb.retrieval import client_cue_summary, search
        except ImportError:
            return []
        presenting = card.get("presenting") or {}
        query = mask_pii(f"{stage} {presenting.get('chief_complaint', '')}".strip()).text
        try:
            lines = client_cue_summary(search(self.db, query, role="client", k=5, embedder=self.embedder,
                                              external_engine=_is_external(self.engine)))
            # layers.build_client_messages adds its own "- " bullet
            return [line.removeprefix("- ") for line in lines]
        except VignetteError:  # e.g. the knowledge base is not indexed yet: cues are an enrichment
            return []

    def _load(self, session_id: str, learner_id: str | None = None) -> _Live:
        with self._lock:
            live = self._live.get(session_id)
            if live is not None:
                self._check_owner(live.row, learner_id)
                return live
            row = self._row(session_id, learner_id)
            card, _, _ = self._persona_for_row(row)
            cp = app_repo.get_session_state(self.db, session_id)
            if cp is None:
                raise SessionError(f"session {session_id} has no checkpoint", code="session_corrupt")
            turns = app_repo.list_turns(self.db, session_id)
            snapshot = (row.get("meta") or {}).get("initial_state")
            for t in reversed(turns):
                if t.get("state_after"):
                    snapshot = t["state_after"]
                    break
            state = memory.restore_state(cp, snapshot)
            start_state = SessionState.from_snapshot((row.get("meta") or {})["initial_state"])
            live = _Live(row=row, card_view=self._client_view(card), state=state, start_state=start_state,
                         recall=RecallContext.from_dict(cp.get("recall_context")),
                         pinned=memory.pinned_for_client(self.db, row["case_id"]),
                         kb_cues=self._kb_cues(card, state.stage),
                         # the client's own history: only rows the client view may see
                         history=[(t["speaker"], t["text_masked"]) for t in turns
                                  if "client" in (t.get("visible_to") or ())],
                         credits=int(cp.get("coach_credits") or 0),
                         client_names=_client_names(card))
            self._live[session_id] = live
            return live

    def _persona_for_row(self, row: dict[str, Any]) -> tuple[dict[str, Any], str | None, int | None]:
        """The card version pinned at start (later approvals never change an old session)."""
        try:
            from vignette_lab.store import catalog
        except ImportError:
            catalog = None
        if catalog is not None and row.get("persona_id"):
            prow = self.db.fetchone("SELECT persona_id, version, card FROM app.persona_card WHERE persona_id = ?",
                                    [row["persona_id"]])
            if prow is not None:
                return dict(prow["card"]), prow["persona_id"], int(prow["version"])
        return self._persona(row["persona_code"])

    def _timing(self, row: dict[str, Any]) -> dict[str, Any]:
        end = _utc(row["ended_at"]) if row.get("ended_at") else self.clock()
        elapsed = max(0.0, (end - _utc(row["started_at"])).total_seconds())
        limit = int(row["duration_limit_s"])
        remaining = max(0.0, limit - elapsed)
        return {"elapsed_s": int(elapsed), "remaining_s": int(remaining),
                "warning": row["status"] == "active" and 0 < remaining <= int(row["warning_before_s"]),
                "time_over": elapsed >= limit,
                "refuse": elapsed > limit + int(row["grace_s"])}

    # ------------------------------------------------------------------ lifecycle
    def start(self, persona_code: str, *, learner_id: str = "local", goal_stages: Sequence[str] = ("라포", "탐색"),
              theory_mode: str | None = None, mode: str = "live", counselor_profile: str | None = None,
              seed: int | None = None, cohort: str | None = None, session_id: str | None = None) -> SessionInfo:
        """Open a session; carry-over and recall come from earlier sessions of the same case.

        Raises
        ------
        InputError
            Unknown persona, bad goal stages or mode.
        PermissionDenied
            A bound service starting a session for another learner.
        """
        if self.learner_id is not None and learner_id not in ("local", self.learner_id):
            raise PermissionDenied(f"this service acts for learner {self.learner_id!r}")
        learner_id = self.learner_id or learner_id
        goals = tuple(dict.fromkeys(goal_stages))
        if not 1 <= len(goals) <= 4 or any(g not in STAGE_ORDER for g in goals):
            raise InputError(f"goal_stages must be 1–4 of {', '.join(STAGE_ORDER)}; got {list(goal_stages)!r}",
                             field="goal_stages")
        if mode not in ("live", "selfplay"):
            raise InputError(f"mode must be 'live' or 'selfplay'; got {mode!r}", field="mode")
        if theory_mode not in (None, "humanistic", "cbt", "integrative"):
            raise InputError(f"theory_mode must be humanistic, cbt or integrative; got {theory_mode!r}",
                             field="theory_mode")
        with self._hold():
            return self._start(persona_code, learner_id=learner_id, goals=goals, theory_mode=theory_mode,
                               mode=mode, counselor_profile=counselor_profile, seed=seed, cohort=cohort,
                               session_id=session_id)

    def _start(self, persona_code: str, *, learner_id: str, goals: tuple[str, ...], theory_mode: str | None,
               mode: str, counselor_profile: str | None, seed: int | None, cohort: str | None,
               session_id: str | None) -> SessionInfo:
        card, persona_id, version = self._persona(persona_code)
        with self._lock, self.db.transaction():
            case = app_repo.ensure_case_profile(self.db, persona_code, learner_id)
            carry, _ = memory.load_carry_over(self.db, case["case_id"])
            state = init_state(card, carry)
            prior_max = app_repo.max_ideation_for_case(self.db, case["case_id"])
            if prior_max is not None and int(prior_max) > state.ideation_stage:
                # ideation never goes down across sessions, whatever the summary says
                state = dataclasses.replace(state, ideation_stage=clamp_ideation(prior_max))
            recall = memory.build_recall_context(self.db, case["case_id"], embedder=self.embedder)
            session_no = int(case.get("last_session_no") or 0) + 1
            sid = session_id or str(uuid.uuid4())
            now = self.clock()
            app_repo.insert_session(
                self.db, session_id=sid, case_id=case["case_id"], learner_id=learner_id, cohort=cohort,
                persona_id=persona_id, persona_code=persona_code, persona_version=version, mode=mode,
                counselor_profile=counselor_profile, engine=getattr(self.engine, "name", None),
                model=getattr(self.engine, "model", None), theory_mode=theory_mode, goal_stages=list(goals),
                session_no=session_no, status="active", started_at=now, duration_limit_s=self.duration_limit_s,
                warning_before_s=self.warning_before_s, grace_s=self.grace_s, seed=seed, review_status="none",
                meta={"display_name": card.get("display_name", persona_code), "initial_state": state.snapshot(),
                      "carried_over": carry is not None})
            memory.checkpoint(self.db, sid, state, short_buffer=[], recall=recall,
                              coach_credits=coach_mod.MAX_CREDITS)
        return self._info(app_repo.get_session(self.db, sid))

    def get(self, session_id: str, *, learner_id: str | None = None) -> SessionInfo:
        return self._info(self._row(session_id, learner_id))

    def resume(self, session_id: str, *, learner_id: str | None = None) -> SessionInfo:
        """Forget any in-process copy and rebuild the session from the database."""
        with self._lock:
            self._live.pop(session_id, None)
            self._load(session_id, learner_id)
            return self.get(session_id, learner_id=learner_id)

    def list_sessions(self, *, learner_id: str | None = None, mode: str | None = None,
                      persona_codes: Sequence[str] | None = None, since: datetime | None = None,
                      until: datetime | None = None) -> list[SessionInfo]:
        if self.learner_id is not None:
            if learner_id not in (None, self.learner_id):
                raise PermissionDenied(f"this service acts for learner {self.learner_id!r}")
            learner_id = self.learner_id
        rows = app_repo.list_sessions(self.db, learner_id=learner_id, mode=mode, persona_codes=persona_codes,
                                      since=since, until=until)
        return [self._info(r) for r in rows]

    # ------------------------------------------------------------------ turns
    def _begin_turn(self, session_id: str, text: str, learner_id: str | None) -> tuple[_Live, TurnContext] | None:
        if not isinstance(text, str):
            raise InputError(f"text must be a string; got {type(text).__name__}", field="text")
        if not text.strip():
            return None  # seed 000: blank input changes nothing
        live = self._load(session_id, learner_id)
        row = app_repo.get_session(self.db, session_id)
        live.row = row
        if row["status"] != "active":
            raise SessionError(f"session {session_id} has ended", code="session_ended")
        if self._timing(row)["refuse"]:
            raise SessionTimeOver()
        ctx = prepare_turn(text, card_view=live.card_view, state=live.state, recall=live.recall,
                           kb_cues=live.kb_cues, pinned=live.pinned, history=live.history,
                           session_id=session_id, persona_code=row["persona_code"], seed=row.get("seed"))
        return live, ctx

    def _persist(self, live: _Live, result: TurnResult, *, intended_technique: str | None) -> tuple[int, int, str, list[str]]:
        ctx = result.ctx
        state = ctx.state_after
        k = int(state.turn_seq)
        c_seq, r_seq = 2 * k - 1, 2 * k
        reply_masked = mask_pii(result.reply_text).text
        row = live.row
        recharged: list[str] = []
        credits = live.credits
        with self.db.transaction():
            counselor_turn = app_repo.insert_turn(
                self.db, session_id=row["session_id"], case_id=row["case_id"], seq=c_seq, speaker="counselor",
                text_masked=ctx.learner_text_masked, visible_to=_ALL_VIEWS, sensitivity=0,
                salience=memory.salience(ctx.learner_text_masked, "counselor"),
                intended_technique=intended_technique,
                safety={"pii": list(ctx.pii_entities), "crisis": getattr(ctx.crisis, "kind", None)})
            app_repo.insert_turn(
                self.db, session_id=row["session_id"], case_id=row["case_id"], seq=r_seq, speaker="client",
                text_masked=reply_masked, visible_to=_ALL_VIEWS, sensitivity=0,
                salience=memory.salience(reply_masked, "client"), state_after=state.snapshot(),
                safety=[{"kind": e["kind"], "escalated": e["escalated"]} for e in result.safety_events] or None)
            for ev in result.safety_events:
                app_repo.insert_safety_event(self.db, session_id=row["session_id"], turn_seq=c_seq,
                                             kind=ev["kind"], escalated=bool(ev["escalated"]),
                                             detail=ev.get("detail"))
            if k % coach_mod.PACING_EVERY == 0 and credits < coach_mod.MAX_CREDITS:
                credits += 1
                recharged.append("pacing")
                app_repo.insert_coach_event(self.db, session_id=row["session_id"], turn_seq=c_seq,
                                            event_type="recharge", credit_delta=1, credit_balance=credits,
                                            reason="pacing", payload=None)
            self._flush_audit()
            history = live.history + [("counselor", ctx.learner_text_masked), ("client", reply_masked)]
            memory.checkpoint(self.db, row["session_id"], state, short_buffer=history[-8:], recall=live.recall,
                              coach_credits=credits)
        # Only after the commit does the in-process state move on.
        live.state, live.history, live.credits = state, history, credits
        return c_seq, r_seq, counselor_turn, recharged

    def _fast_eval(self, live: _Live, ctx: TurnContext, reply: str, counselor_turn: str,
                   c_seq: int) -> tuple[str, list[str]]:
        """Fast loop after persistence; returns (status, performance recharges). Never raises."""
        if not self.run_fast_eval:
            return "skipped", []
        try:
            kb = self._kb_context("evaluator", ctx.learner_text_masked, engine=self.evaluator_engine,
                                  session_id=live.row["session_id"])
            ev = evaluate_turn(ctx, reply, self.evaluator_engine, audit_sink=self._audit,
                               client_names=live.client_names, kb_context=kb)
            recharged = []
            reason = coach_mod.recharge_reason(appropriateness=ev.appropriateness, rapport_signal=ev.rapport_signal,
                                               stage_advanced=ctx.stage_advanced, openness_delta=ctx.openness_delta)
            with self.db.transaction():
                self._flush_audit()
                app_repo.insert_turn_evaluation(self.db, turn_id=counselor_turn, session_id=live.row["session_id"],
                                                evaluation=ev, engine=ev.engine)
                if reason and live.credits < coach_mod.MAX_CREDITS:
                    app_repo.insert_coach_event(self.db, session_id=live.row["session_id"], turn_seq=c_seq,
                                                event_type="recharge", credit_delta=1,
                                                credit_balance=live.credits + 1, reason=reason, payload=None)
                    self.db.execute("UPDATE app.session_state SET coach_credits = ? WHERE session_id = ?",
                                    [live.credits + 1, live.row["session_id"]])
                    recharged.append(reason)
            live.credits += len(recharged)
            return ("ok" if ev.ok else "error"), recharged
        except Exception:  # noqa: BLE001 — an evaluation failure never breaks a turn
            return "error", []

    def _outcome(self, live: _Live, result: TurnResult, c_seq: int, r_seq: int, status: str,
                 recharged: list[str]) -> TurnOutcome:
        return TurnOutcome(
            session_id=live.row["session_id"], counselor_seq=c_seq, counselor_text=result.ctx.learner_text_masked,
            client_seq=r_seq, client_text=mask_pii(result.reply_text).text,
            safety_events=tuple({"kind": e["kind"], "escalated": e["escalated"]} for e in result.safety_events),
            crisis_escalated=bool(getattr(result.ctx.crisis, "escalate", False)),
            progress=self._progress(live.row, live.state, live.credits), evaluation_status=status,
            coach_credits=live.credits, coach_recharged=tuple(recharged))

    def send(self, session_id: str, text: str, *, learner_id: str | None = None,
             intended_technique: str | None = None) -> TurnOutcome | None:
        """One turn, synchronously. ``None`` for blank input (nothing stored, nothing changes).

        Raises
        ------
        SessionTimeOver
            After the time limit plus grace.
        SessionError
            The session has ended.
        EngineError
            The client engine failed; nothing was stored.
        """
        with self._lock, self._hold():
            begun = self._begin_turn(session_id, text, learner_id)
            if begun is None:
                return None
            live, ctx = begun
            self._audit_buffer = []
            try:
                result = run_turn(ctx, _AuditedEngine(self.engine, self._audit))
                c_seq, r_seq, counselor_turn, recharged = self._persist(live, result,
                                                                        intended_technique=intended_technique)
                status, more = self._fast_eval(live, ctx, result.reply_text, counselor_turn, c_seq)
            finally:
                self._flush_audit()  # e.g. the audit row of a failed engine call
                self._audit_buffer = None
            return self._outcome(live, result, c_seq, r_seq, status, recharged + more)

    def send_stream(self, session_id: str, text: str, *, learner_id: str | None = None) -> Iterator[StreamEvent]:
        """Stream one turn: ``token`` events, optional ``safety``, then ``done`` whose
        ``response.metadata["outcome"]`` is the :class:`TurnOutcome` (after persistence).
        An ``error`` event means nothing was stored. Blank input → an empty iterator.
        """
        if not isinstance(text, str) or not text.strip():
            return iter(())
        return self._stream(session_id, text, learner_id)

    def _stream(self, session_id: str, text: str, learner_id: str | None) -> Iterator[StreamEvent]:
        with self._lock:
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
                result: TurnResult = event.response.metadata["turn_result"]
                with self._hold():
                    self._audit_stream(event.response, ctx)
                    c_seq, r_seq, counselor_turn, recharged = self._persist(live, result, intended_technique=None)
                    status, more = self._fast_eval(live, ctx, result.reply_text, counselor_turn, c_seq)
                    outcome = self._outcome(live, result, c_seq, r_seq, status, recharged + more)
                meta = {k: v for k, v in event.response.metadata.items() if k != "turn_result"}
                yield StreamEvent("done", text=outcome.client_text,
                                  response=dataclasses.replace(event.response, text=outcome.client_text,
                                                               metadata={**meta, "outcome": outcome}))
                return

    def _audit_stream(self, response: GenerateResponse, ctx: TurnContext) -> None:
        try:
            self._audit({"ai_role": "client", "provider": response.provider, "model": response.model,
                         "session_id": ctx.session_id, "request_hash": ctx.request.cache_key(),
                         "input_tokens": response.usage.input_tokens, "output_tokens": response.usage.output_tokens,
                         "cache_read_tokens": response.usage.cache_read_tokens,
                         "cache_write_tokens": response.usage.cache_write_tokens, "cost_usd": response.cost_usd,
                         "latency_ms": response.latency_ms, "status": "ok", "error_code": None})
        except Exception:  # noqa: BLE001 — audit failure never breaks a turn
            pass

    # ------------------------------------------------------------------ read models
    def progress(self, session_id: str, *, learner_id: str | None = None) -> dict[str, Any]:
        """Trainee-safe percentages and timing (never ideation, never persona internals)."""
        live = self._live.get(session_id)
        row = self._row(session_id, learner_id)
        if live is not None:
            return self._progress(row, live.state, live.credits)
        cp = app_repo.get_session_state(self.db, session_id)
        turns = app_repo.list_turns(self.db, session_id)
        snapshot = next((t["state_after"] for t in reversed(turns) if t.get("state_after")),
                        (row.get("meta") or {})["initial_state"])
        return self._progress(row, memory.restore_state(cp, snapshot), int(cp.get("coach_credits") or 0))

    def _progress(self, row: dict[str, Any], state: SessionState, credits: int) -> dict[str, Any]:
        base = build_progress(state, tuple(row.get("goal_stages") or ()))
        out = {k: v for k, v in base.items() if "ideation" not in k}
        out.update(self._timing(row))
        out.pop("refuse", None)
        out["stage_label"] = state.stage
        out["coach_credits"] = credits
        return out

    def transcript(self, session_id: str, *, viewer: str = "learner",
                   learner_id: str | None = None) -> list[dict[str, Any]]:
        """Stored (masked) turns. The learner view holds only rows visible to the counselor."""
        if viewer not in _VIEWERS:
            raise InputError(f"viewer must be one of {', '.join(_VIEWERS)}; got {viewer!r}", field="viewer")
        if viewer != "learner" and (self.learner_id is not None or learner_id is not None):
            raise PermissionDenied(f"a learner may only use the learner view (asked for {viewer!r})")
        self._row(session_id, learner_id)
        rows = app_repo.list_turns(self.db, session_id, visible_to="counselor" if viewer == "learner" else None)
        return [{"seq": r["seq"], "speaker": r["speaker"], "text": r["text_masked"], "created_at": r["created_at"]}
                for r in rows]

    # ------------------------------------------------------------------ coach
    def coach_credits(self, session_id: str, *, learner_id: str | None = None) -> int:
        return self._load(session_id, learner_id).credits

    def coach_history(self, session_id: str, *, learner_id: str | None = None) -> list[dict[str, Any]]:
        self._row(session_id, learner_id)
        return [{"turn_seq": e["turn_seq"], "trainee_turn": coach_mod.trainee_turn_number(e["turn_seq"]),
                 "event_type": e["event_type"], "credit_delta": e["credit_delta"],
                 "credit_balance": e["credit_balance"], "reason": e["reason"], "card": e.get("payload"),
                 "message": coach_mod.recharge_message(str(e["reason"]), trainee_turn=coach_mod.trainee_turn_number(
                     e["turn_seq"])) if e["event_type"] == "recharge" else None}
                for e in app_repo.list_coach_events(self.db, session_id)]

    def coach(self, session_id: str, *, learner_id: str | None = None) -> coach_mod.CoachCard:
        """Spend one credit for a card about the last turn.

        Raises
        ------
        CoachCreditExhausted
            No credit left.
        """
        with self._lock, self._hold():
            live = self._load(session_id, learner_id)
            if live.credits <= 0:
                raise CoachCreditExhausted()
            last_c = next((t for s, t in reversed(live.history) if s == "counselor"), "")
            last_r = next((t for s, t in reversed(live.history) if s == "client"), "")
            previous = [e["card"] for e in self.coach_history(session_id) if e["event_type"] == "use" and e["card"]]
            turn_seq = max(0, 2 * int(live.state.turn_seq) - 1)
            kb = self._kb_context("evaluator", f"{live.state.stage} {last_c}", engine=self.evaluator_engine,
                                  session_id=session_id)
            card = coach_mod.make_card(self.evaluator_engine, credits=live.credits, stage=live.state.stage,
                                       goal_stages=tuple(live.row.get("goal_stages") or ()),
                                       learner_text_masked=last_c, client_text_masked=last_r,
                                       last_cards=previous, turn_seq=turn_seq, session_id=session_id,
                                       generate=self._generate, kb_context=kb,
                                       persona_code=live.row["persona_code"], history=live.history)
            with self.db.transaction():
                app_repo.insert_coach_event(self.db, session_id=session_id, turn_seq=turn_seq, event_type="use",
                                            credit_delta=-1, credit_balance=card.credits_left, reason=card.source,
                                            payload=card.to_dict(), learner_excerpt=coach_mod.excerpt(last_c),
                                            client_excerpt=coach_mod.excerpt(last_r))
                self.db.execute("UPDATE app.session_state SET coach_credits = ? WHERE session_id = ?",
                                [card.credits_left, session_id])
            live.credits = card.credits_left
            return card

    # ------------------------------------------------------------------ end + review
    def end(self, session_id: str, *, run_deep: bool = True, learner_id: str | None = None) -> SessionReview:
        """Persist the end first (status, carry-over, summary, case memory), then deep-evaluate."""
        with self._lock, self._hold():
            live = self._load(session_id, learner_id)
            row = app_repo.get_session(self.db, session_id)
            if row["status"] == "ended":
                return self.review(session_id, learner_id=learner_id)
            turns = app_repo.list_turns(self.db, session_id)
            with self.db.transaction():
                app_repo.mark_session_ended(self.db, session_id, ended_at=self.clock(),
                                            review_status="pending" if run_deep else "none")
                memory.close_session_memory(self.db, row, live.state, start_state=live.start_state, turns=turns)
            self._live.pop(session_id, None)
            self._index_turns(row)
            if run_deep:
                self._deep(row, turns)
            return self.review(session_id, learner_id=learner_id)

    def _index_turns(self, row: dict[str, Any]) -> None:
        if self.embedder is None:
            return
        try:
            from vignette_lab.kb.retrieval import index_turns
        except ImportError:
            return
        try:
            index_turns(self.db, session_id=row["session_id"], embedder=self.embedder)
        except VignetteError:  # best effort: the end is already stored; recall falls back to salience
            pass

    def _deep(self, row: dict[str, Any], turns: list[dict[str, Any]]) -> None:
        engine_name = str(getattr(self.evaluator_engine, "name", "?"))
        try:
            evals = app_repo.list_turn_evaluations(self.db, row["session_id"])
            try:
                query = _deep_query(evals, row.get("goal_stages") or ())
            except Exception:  # noqa: BLE001 — the deep loop runs without KB context rather than fail
                query = ""
            kb = self._kb_context("evaluator", query, engine=self.evaluator_engine, session_id=row["session_id"])
            result = evaluate_session(turns, evals, self.evaluator_engine, session_no=int(row["session_no"]),
                                      goal_stages=tuple(row.get("goal_stages") or ()),
                                      persona_code=row["persona_code"], session_id=row["session_id"],
                                      audit_sink=self._audit,
                                      client_names=_client_names(self._persona_for_row(row)[0]),
                                      kb_context=kb)
        except Exception as exc:  # noqa: BLE001
            result = SessionEvaluation(error=f"deep_eval_crash: {type(exc).__name__}: {exc}", engine=engine_name)
        try:
            app_repo.upsert_session_evaluation(
                self.db, row["session_id"], status="ok" if result.ok else "error",
                technique_distribution=result.technique_distribution, strengths=list(result.strengths),
                improvements=list(result.improvements), rationale=result.rationale,
                alternatives=list(result.alternatives), checklist=result.checklist, error=result.error,
                engine=result.engine or engine_name)
            app_repo.set_review_status(self.db, row["session_id"], "ready" if result.ok else "degraded")
        except Exception:  # noqa: BLE001 — the ended session is already safe in the DB
            app_repo.set_review_status(self.db, row["session_id"], "degraded")

    def review(self, session_id: str, *, learner_id: str | None = None) -> SessionReview:
        row = self._row(session_id, learner_id)
        status = row["review_status"]
        if status not in ("ready", "degraded"):
            return SessionReview(session_id=session_id, status="pending")
        ev = app_repo.get_session_evaluation(self.db, session_id) or {}
        turn_evals = tuple(
            {"turn_seq": e["turn_seq"], "techniques": list(e["techniques"] or []),
             "appropriateness": e["appropriateness"], "intent_deviation": e["intent_deviation"] or [],
             "scores": e["scores"] or {}, "error": e["error"]}
            for e in app_repo.list_turn_evaluations(self.db, session_id))
        return SessionReview(
            session_id=session_id, status=status, technique_distribution=ev.get("technique_distribution") or {},
            strengths=tuple(ev.get("strengths") or ()), improvements=tuple(ev.get("improvements") or ()),
            rationale=ev.get("rationale") or "", alternatives=tuple(ev.get("alternatives") or ()),
            checklist=ev.get("checklist") or {}, turn_evaluations=turn_evals, error=ev.get("error"),
            engine=ev.get("engine"))


class _AuditedEngine:
    """Routes ``generate`` through :func:`generate_with_audit` (metadata-only audit rows)."""

    def __init__(self, inner: Any, sink: Callable[[dict[str, Any]], Any]):
        self.inner, self.sink = inner, sink
        self.name = getattr(inner, "name", "engine")

    def generate(self, request: GenerateRequest) -> GenerateResponse:
        return generate_with_audit(self.inner, request, sink=self.sink)

    def stream(self, request: GenerateRequest) -> Iterator[StreamEvent]:
        return self.inner.stream(request)


def _client_names(card: dict[str, Any]) -> tuple[str, ...]:
    name = str(card.get("display_name") or "")
    # "서연(고2)" style names: keep the name part for role normalisation
    base = name.split("(")[0].strip()
    return tuple(n for n in dict.fromkeys([name, base]) if n)


def _is_external(engine: Any) -> bool:
    """True unless ``engine`` runs locally (unknown engines count as external: the safe side)."""
    return str(getattr(engine, "name", "")) not in _LOCAL_ENGINES


def _deep_query(evaluations: Sequence[Any], goal_stages: Sequence[str]) -> str:
    """Deep-loop KB query: the session's most used techniques (Korean labels) + improvement words."""
    from vignette_lab.core.taxonomy import load_taxonomy
    from vignette_lab.session.evaluator import technique_distribution

    counts = technique_distribution(evaluations)["counts"]
    top = sorted(counts, key=lambda c: (-counts[c], c))[:3]
    taxonomy = load_taxonomy()
    labels = []
    for code in top:
        try:
            labels.append(taxonomy.technique(code).label)
        except KeyError:
            labels.append(code)
    return " ".join([*labels, "기법 사용의 흔한 실수와 개선점, 더 나은 대안 발화", *goal_stages])
