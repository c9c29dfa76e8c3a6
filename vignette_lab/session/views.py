"""Read models of a session: what the app, the CLI and notebooks are shown (trainee-safe).

Pure functions over stored rows; no SQL here (rows come from :mod:`vignette_lab.store.app_repo`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Sequence

from vignette_lab.core.state import SessionState, build_progress

__all__ = ["SessionInfo", "SessionReview", "TurnOutcome", "info_from_row", "progress_view", "review_view",
           "timing", "transcript_rows", "utc"]


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
    #: crisis cues and their follow-up (``session.evaluator.crisis_follow_up_summary``): screened turns, unanswered cues
    safety: dict[str, Any] = field(default_factory=dict)


def transcript_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored turns as the transcript lists them (masked text only)."""
    return [{"seq": r["seq"], "speaker": r["speaker"], "text": r["text_masked"], "created_at": r["created_at"]}
            for r in rows]


def utc(dt: datetime) -> datetime:
    """``dt`` with UTC attached when it is naive (DuckDB returns naive timestamps)."""
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)


def info_from_row(row: dict[str, Any]) -> SessionInfo:
    """A :class:`SessionInfo` from an ``app.sessions`` row."""
    meta = row.get("meta") or {}
    return SessionInfo(
        session_id=row["session_id"], case_id=row["case_id"], learner_id=row["learner_id"],
        persona_code=row["persona_code"], persona_id=row.get("persona_id"),
        persona_version=row.get("persona_version"), display_name=meta.get("display_name", row["persona_code"]),
        mode=row["mode"], counselor_profile=row.get("counselor_profile"),
        goal_stages=tuple(row.get("goal_stages") or ()), session_no=int(row["session_no"]),
        status=row["status"], review_status=row["review_status"], started_at=utc(row["started_at"]),
        ended_at=utc(row["ended_at"]) if row.get("ended_at") else None,
        duration_limit_s=int(row["duration_limit_s"]), warning_before_s=int(row["warning_before_s"]),
        grace_s=int(row["grace_s"]), theory_mode=row.get("theory_mode"), cohort=row.get("cohort"),
        seed=row.get("seed"), engine=row.get("engine"))


def timing(row: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Elapsed/remaining seconds, the warning flag, time over and whether new turns are refused."""
    end = utc(row["ended_at"]) if row.get("ended_at") else now
    elapsed = max(0.0, (end - utc(row["started_at"])).total_seconds())
    limit = int(row["duration_limit_s"])
    remaining = max(0.0, limit - elapsed)
    return {"elapsed_s": int(elapsed), "remaining_s": int(remaining),
            "warning": row["status"] == "active" and 0 < remaining <= int(row["warning_before_s"]),
            "time_over": elapsed >= limit,
            "refuse": elapsed > limit + int(row["grace_s"])}


def progress_view(row: dict[str, Any], state: SessionState, credits: int, now: datetime) -> dict[str, Any]:
    """Trainee-safe percentages and timing (never ideation, never persona internals)."""
    base = build_progress(state, tuple(row.get("goal_stages") or ()))
    out = {k: v for k, v in base.items() if "ideation" not in k}
    out.update(timing(row, now))
    out.pop("refuse", None)
    out["stage_label"] = state.stage
    out["coach_credits"] = credits
    return out


def review_view(session_id: str, status: str, evaluation: dict[str, Any] | None,
                turn_evaluations: Sequence[dict[str, Any]]) -> SessionReview:
    """The learner-safe review; ``pending`` until the deep evaluation is stored.

    A ``pending`` review given the turns' fast evaluations (an ended session whose deep loop
    still runs) carries them and their technique counts: the fast part, shown first.
    """
    turn_evals = tuple(
        {"turn_seq": e["turn_seq"], "techniques": list(e["techniques"] or []),
         "appropriateness": e["appropriateness"], "intent_deviation": e["intent_deviation"] or [],
         "scores": e["scores"] or {}, "error": e["error"]}
        for e in turn_evaluations)
    if status not in ("ready", "degraded"):
        if not turn_evals:
            return SessionReview(session_id=session_id, status="pending")
        counts: dict[str, int] = {}
        for e in turn_evals:
            for code in e["techniques"]:
                counts[code] = counts.get(code, 0) + 1
        return SessionReview(session_id=session_id, status="pending", turn_evaluations=turn_evals,
                             technique_distribution={"counts": counts,
                                                     "labelled_turns": sum(1 for e in turn_evals if e["techniques"])})
    ev = evaluation or {}
    dist = ev.get("technique_distribution") or {}
    safety = dict(dist.get("safety") or {}) if isinstance(dist, dict) else {}
    screened = set(safety.get("screened_turns") or ())
    # each turn says whether it was credited as risk screening after a crisis cue (not "closed_question" alone)
    turn_evals = tuple({**e, "safety_screen": e["turn_seq"] in screened} for e in turn_evals)
    return SessionReview(
        session_id=session_id, status=status, technique_distribution=dist,
        strengths=tuple(ev.get("strengths") or ()), improvements=tuple(ev.get("improvements") or ()),
        rationale=ev.get("rationale") or "", alternatives=tuple(ev.get("alternatives") or ()),
        checklist=ev.get("checklist") or {}, turn_evaluations=turn_evals, error=ev.get("error"),
        engine=ev.get("engine"), safety=safety)
