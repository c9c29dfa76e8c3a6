"""Repository functions for the app-schema session tables.

Portable SQL with ``?`` placeholders; JSON goes in through ``db.dialect.json_param()``.
``app.turns``, ``app.pinned_fact_history``, ``app.live_coach_events`` and
``app.safety_events`` are append-only: this module has no UPDATE for them.
Every ``text``/``text_masked`` value passed here must already be masked (DESIGN rule 2).
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from typing import Any, Sequence

__all__ = [
    "append_pinned_history",
    "ensure_case_profile",
    "get_case_profile",
    "get_last_summary",
    "get_session",
    "get_session_evaluation",
    "get_session_state",
    "get_session_summary",
    "insert_coach_event",
    "insert_safety_event",
    "insert_session",
    "insert_turn",
    "insert_turn_evaluation",
    "latest_active_session",
    "list_coach_events",
    "list_pinned_facts",
    "list_pinned_history",
    "list_safety_events",
    "list_sessions",
    "list_turn_evaluations",
    "list_turns",
    "mark_session_ended",
    "max_ideation_for_case",
    "set_review_status",
    "update_case_profile",
    "upsert_pinned_fact",
    "upsert_session_evaluation",
    "upsert_session_state",
    "upsert_session_summary",
]


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _j(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _jp(db) -> str:
    return db.dialect.json_param()


# --- case profile ----------------------------------------------------------------------

def get_case_profile(db, persona_code: str, learner_id: str) -> dict[str, Any] | None:
    return db.fetchone("SELECT * FROM app.case_profile WHERE persona_code = ? AND learner_id = ?",
                       [persona_code, learner_id])


def ensure_case_profile(db, persona_code: str, learner_id: str) -> dict[str, Any]:
    """Return the stable case row for (persona, learner), creating it on first use."""
    row = get_case_profile(db, persona_code, learner_id)
    if row is not None:
        return row
    jp = _jp(db)
    db.execute(
        "INSERT INTO app.case_profile (case_id, persona_code, learner_id, last_session_no, "
        f"rapport_trajectory, alliance_level, case_digest, updated_at) VALUES (?, ?, ?, 0, {jp}, ?, ?, ?)",
        [str(uuid.uuid4()), persona_code, learner_id, _j([]), None, "", _now()])
    return get_case_profile(db, persona_code, learner_id)


def update_case_profile(db, case_id: str, *, last_session_no: int, rapport_trajectory: list,
                        alliance_level: float | None, case_digest: str,
                        presenting_arc: Any = None) -> None:
    jp = _jp(db)
    db.execute(
        f"UPDATE app.case_profile SET last_session_no = ?, rapport_trajectory = {jp}, "
        f"alliance_level = ?, case_digest = ?, presenting_arc = {jp}, updated_at = ? WHERE case_id = ?",
        [last_session_no, _j(rapport_trajectory), alliance_level, case_digest,
         _j(presenting_arc), _now(), case_id])


# --- sessions --------------------------------------------------------------------------

_SESSION_COLS = ("session_id", "case_id", "learner_id", "cohort", "persona_id", "persona_code",
                 "persona_version", "mode", "counselor_profile", "engine", "model", "theory_mode",
                 "goal_stages", "session_no", "status", "started_at", "ended_at",
                 "duration_limit_s", "warning_before_s", "grace_s", "seed", "review_status", "meta")


def insert_session(db, **fields: Any) -> None:
    unknown = set(fields) - set(_SESSION_COLS)
    if unknown:
        raise ValueError(f"insert_session: unknown column(s) {sorted(unknown)}.")
    cols = [c for c in _SESSION_COLS if c in fields]
    jp = _jp(db)
    marks = [jp if c in ("goal_stages", "meta") else "?" for c in cols]
    vals = [_j(fields[c]) if c in ("goal_stages", "meta") else fields[c] for c in cols]
    db.execute(f"INSERT INTO app.sessions ({', '.join(cols)}) VALUES ({', '.join(marks)})", vals)


def get_session(db, session_id: str) -> dict[str, Any] | None:
    return db.fetchone("SELECT * FROM app.sessions WHERE session_id = ?", [session_id])


def list_sessions(db, *, learner_id: str | None = None, mode: str | None = None,
                  persona_codes: Sequence[str] | None = None, since: datetime | None = None,
                  until: datetime | None = None, case_id: str | None = None) -> list[dict[str, Any]]:
    where, params = [], []
    for col, val in (("learner_id", learner_id), ("mode", mode), ("case_id", case_id)):
        if val is not None:
            where.append(f"{col} = ?")
            params.append(val)
    if persona_codes:
        where.append("persona_code IN (" + ", ".join("?" for _ in persona_codes) + ")")
        params.extend(persona_codes)
    if since is not None:
        where.append("started_at >= ?")
        params.append(since)
    if until is not None:
        where.append("started_at < ?")
        params.append(until)
    sql = "SELECT * FROM app.sessions"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return db.fetchall(sql + " ORDER BY started_at, session_no, session_id", params)


def latest_active_session(db, *, learner_id: str, mode: str = "live") -> dict[str, Any] | None:
    """The learner's most recently started session that has not ended (None when there is none).

    The session page reopens it on a reload, so an in-progress session is never lost.
    """
    return db.fetchone("SELECT * FROM app.sessions WHERE learner_id = ? AND mode = ? AND status = 'active' "
                       "ORDER BY started_at DESC, session_id DESC LIMIT 1", [learner_id, mode])


def mark_session_ended(db, session_id: str, *, ended_at: datetime, review_status: str) -> None:
    db.execute("UPDATE app.sessions SET status = 'ended', ended_at = ?, review_status = ? "
               "WHERE session_id = ?", [ended_at, review_status, session_id])


def set_review_status(db, session_id: str, review_status: str) -> None:
    db.execute("UPDATE app.sessions SET review_status = ? WHERE session_id = ?",
               [review_status, session_id])


# --- working memory --------------------------------------------------------------------

def upsert_session_state(db, session_id: str, state: Any, *, short_buffer: list,
                         recall_context: dict | None, coach_credits: int) -> None:
    """Checkpoint the deterministic state (one row per session, replaced every turn)."""
    jp = _jp(db)
    params = [state.stage, int(state.turn_seq), float(state.effective_openness),
              float(state.rapport_credit), float(state.resistance), int(state.ideation_stage),
              _j(dict(state.affect_state or {})), _j(short_buffer), _j(recall_context), int(coach_credits),
              float(state.prev_rapport_credit), _now()]
    cols = ("stage", "turn_seq", "effective_openness", "rapport_credit", "resistance", "ideation_stage",
            "affect_state", "short_buffer", "recall_context", "coach_credits", "prev_rapport_credit", "updated_at")
    marks = ["?", "?", "?", "?", "?", "?", jp, jp, jp, "?", "?", "?"]
    # One statement on both backends (INSERT … ON CONFLICT DO UPDATE).
    db.execute(
        f"INSERT INTO app.session_state (session_id, {', '.join(cols)}) VALUES (?, {', '.join(marks)}) "
        f"ON CONFLICT (session_id) DO UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in cols),
        [session_id] + params)


def get_session_state(db, session_id: str) -> dict[str, Any] | None:
    return db.fetchone("SELECT * FROM app.session_state WHERE session_id = ?", [session_id])


# --- turns -----------------------------------------------------------------------------

def insert_turn(db, *, session_id: str, case_id: str, seq: int, speaker: str, text_masked: str,
                visible_to: Sequence[str], sensitivity: int = 0, salience: float | None = None,
                intended_technique: str | None = None, state_after: dict | None = None,
                safety: Any = None, created_at: datetime | None = None) -> str:
    """Append one turn. ``text`` holds the masked text too: raw text is never stored."""
    if speaker not in ("counselor", "client"):
        raise ValueError(f"insert_turn: speaker must be 'counselor' or 'client'. Got {speaker!r}.")
    turn_id = str(uuid.uuid4())
    jp = _jp(db)
    db.execute(
        "INSERT INTO app.turns (turn_id, session_id, case_id, seq, speaker, text, text_masked, "
        "visible_to, sensitivity, salience, is_pinned, intended_technique, state_after, safety, "
        f"created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {jp}, {jp}, ?)",
        [turn_id, session_id, case_id, seq, speaker, text_masked, text_masked, list(visible_to),
         sensitivity, salience, False, intended_technique, _j(state_after), _j(safety),
         created_at or _now()])
    return turn_id


def list_turns(db, session_id: str, *, visible_to: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT * FROM app.turns WHERE session_id = ?"
    params: list[Any] = [session_id]
    if visible_to is not None:
        sql += " AND " + db.dialect.contains("visible_to")
        params.append(visible_to)
    return db.fetchall(sql + " ORDER BY seq", params)


# --- evaluations -----------------------------------------------------------------------

def insert_turn_evaluation(db, *, turn_id: str, session_id: str, evaluation: Any, engine: str) -> str:
    eval_id = str(uuid.uuid4())
    jp = _jp(db)
    db.execute(
        "INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id, techniques, client_state, "
        "appropriateness, intent_deviation, rapport_signal, scores, error, engine, visible_to, "
        f"sensitivity, created_at) VALUES (?, ?, ?, ?, ?, ?, {jp}, ?, {jp}, ?, ?, ?, ?, ?)",
        [eval_id, turn_id, session_id, list(evaluation.techniques), list(evaluation.client_state),
         evaluation.appropriateness, _j(list(evaluation.intent_deviation)), evaluation.rapport_signal,
         _j(dict(evaluation.scores)), evaluation.error, engine, ["evaluator"], 2, _now()])
    return eval_id


def list_turn_evaluations(db, session_id: str) -> list[dict[str, Any]]:
    return db.fetchall(
        "SELECT e.*, t.seq AS turn_seq FROM app.turn_evaluation e JOIN app.turns t "
        "ON t.turn_id = e.turn_id WHERE e.session_id = ? ORDER BY t.seq, e.created_at", [session_id])


def upsert_session_evaluation(db, session_id: str, *, status: str, technique_distribution: dict,
                              strengths: list, improvements: list, rationale: str,
                              alternatives: list, checklist: dict, error: str | None,
                              engine: str) -> None:
    jp = _jp(db)
    with db.transaction():
        db.execute("DELETE FROM app.session_evaluation WHERE session_id = ?", [session_id])
        db.execute(
            "INSERT INTO app.session_evaluation (session_id, status, technique_distribution, "
            "strengths, improvements, rationale, alternatives, checklist, error, engine, created_at) "
            f"VALUES (?, ?, {jp}, {jp}, {jp}, ?, {jp}, {jp}, ?, ?, ?)",
            [session_id, status, _j(technique_distribution), _j(strengths), _j(improvements),
             rationale, _j(alternatives), _j(checklist), error, engine, _now()])


def get_session_evaluation(db, session_id: str) -> dict[str, Any] | None:
    return db.fetchone("SELECT * FROM app.session_evaluation WHERE session_id = ?", [session_id])


# --- summary memory --------------------------------------------------------------------

def upsert_session_summary(db, session_id: str, *, case_id: str, session_no: int, end_state: dict,
                           rapport_delta: float, digest: str, open_threads: list,
                           homework: list, compressed_by: str) -> None:
    jp = _jp(db)
    with db.transaction():
        db.execute("DELETE FROM app.session_summary WHERE session_id = ?", [session_id])
        db.execute(
            "INSERT INTO app.session_summary (session_id, case_id, session_no, end_state, "
            "rapport_delta, digest, open_threads, homework, compressed_by, created_at) "
            f"VALUES (?, ?, ?, {jp}, ?, ?, {jp}, {jp}, ?, ?)",
            [session_id, case_id, session_no, _j(end_state), rapport_delta, digest,
             _j(open_threads), _j(homework), compressed_by, _now()])


def get_session_summary(db, session_id: str) -> dict[str, Any] | None:
    return db.fetchone("SELECT * FROM app.session_summary WHERE session_id = ?", [session_id])


def get_last_summary(db, case_id: str) -> dict[str, Any] | None:
    rows = db.fetchall("SELECT * FROM app.session_summary WHERE case_id = ? "
                       "ORDER BY session_no DESC LIMIT 1", [case_id])
    return rows[0] if rows else None


def max_ideation_for_case(db, case_id: str) -> int | None:
    """Highest ideation stage ever checkpointed for this case (it never goes down)."""
    return db.scalar(
        "SELECT MAX(st.ideation_stage) FROM app.session_state st JOIN app.sessions s "
        "ON s.session_id = st.session_id WHERE s.case_id = ?", [case_id])


# --- pinned facts ----------------------------------------------------------------------

def list_pinned_facts(db, case_id: str, *, visible_to: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT * FROM app.pinned_fact WHERE case_id = ?"
    params: list[Any] = [case_id]
    if visible_to is not None:
        sql += " AND " + db.dialect.contains("visible_to")
        params.append(visible_to)
    return db.fetchall(sql + " ORDER BY key", params)


def upsert_pinned_fact(db, *, case_id: str, key: str, value: str, fact_type: str, status: str,
                       source_turn: str | None, confidence: float, version: int,
                       session_no: int, visible_to: Sequence[str], fact_id: str | None = None) -> str:
    now = _now()
    if fact_id is None:
        fact_id = str(uuid.uuid4())
        db.execute(
            "INSERT INTO app.pinned_fact (id, case_id, key, value, fact_type, status, source_turn, "
            "confidence, version, updated_session_no, visible_to, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [fact_id, case_id, key, value, fact_type, status, source_turn, confidence, version,
             session_no, list(visible_to), now])
    else:
        db.execute(
            "UPDATE app.pinned_fact SET value = ?, status = ?, source_turn = ?, confidence = ?, "
            "version = ?, updated_session_no = ?, updated_at = ? WHERE id = ?",
            [value, status, source_turn, confidence, version, session_no, now, fact_id])
    return fact_id


def append_pinned_history(db, *, fact_id: str, case_id: str, old_value: str | None,
                          new_value: str, reason: str, session_no: int, turn_id: str | None) -> None:
    db.execute(
        "INSERT INTO app.pinned_fact_history (id, fact_id, case_id, old_value, new_value, reason, "
        "session_no, turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [str(uuid.uuid4()), fact_id, case_id, old_value, new_value, reason, session_no, turn_id, _now()])


def list_pinned_history(db, case_id: str) -> list[dict[str, Any]]:
    return db.fetchall("SELECT h.*, f.key FROM app.pinned_fact_history h LEFT JOIN app.pinned_fact f "
                       "ON f.id = h.fact_id WHERE h.case_id = ? ORDER BY h.created_at, h.session_no",
                       [case_id])


# --- coach and safety events -----------------------------------------------------------

def insert_coach_event(db, *, session_id: str, turn_seq: int, event_type: str, credit_delta: int,
                       credit_balance: int, reason: str, payload: dict | None,
                       learner_excerpt: str | None = None, client_excerpt: str | None = None) -> str:
    if event_type not in ("use", "recharge"):
        raise ValueError(f"insert_coach_event: event_type must be 'use' or 'recharge'. Got {event_type!r}.")
    event_id = str(uuid.uuid4())
    db.execute(
        "INSERT INTO app.live_coach_events (event_id, session_id, turn_seq, event_type, credit_delta, "
        "credit_balance, reason, payload, learner_excerpt, client_excerpt, created_at) "
        f"VALUES (?, ?, ?, ?, ?, ?, ?, {_jp(db)}, ?, ?, ?)",
        [event_id, session_id, turn_seq, event_type, credit_delta, credit_balance, reason,
         _j(payload), learner_excerpt, client_excerpt, _now()])
    return event_id


def list_coach_events(db, session_id: str) -> list[dict[str, Any]]:
    return db.fetchall("SELECT * FROM app.live_coach_events WHERE session_id = ? "
                       "ORDER BY created_at, turn_seq", [session_id])


def insert_safety_event(db, *, session_id: str, turn_seq: int, kind: str, escalated: bool,
                        detail: dict | None) -> str:
    event_id = str(uuid.uuid4())
    db.execute(
        "INSERT INTO app.safety_events (event_id, session_id, turn_seq, kind, escalated, detail, "
        f"created_at) VALUES (?, ?, ?, ?, ?, {_jp(db)}, ?)",
        [event_id, session_id, turn_seq, kind, escalated, _j(detail), _now()])
    return event_id


def list_safety_events(db, session_id: str) -> list[dict[str, Any]]:
    return db.fetchall("SELECT * FROM app.safety_events WHERE session_id = ? "
                       "ORDER BY created_at, turn_seq", [session_id])
