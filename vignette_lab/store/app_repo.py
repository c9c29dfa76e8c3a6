"""Repository functions for the app-schema session tables.

Portable SQL with ``?`` placeholders; JSON goes in through ``db.dialect.json_param()``.
``app.turns``, ``app.pinned_fact_history``, ``app.live_coach_events`` and
``app.safety_events`` are append-only: this module has no UPDATE for them.
Every ``text``/``text_masked`` value passed here must already be masked (DESIGN rule 2).
Reads go through :mod:`vignette_lab.store.gateway`, so inside ``db.ai_view(...)`` or
``db.as_principal(...)`` they return only what that view or person may see, on both backends.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.errors import InputError
from vignette_lab.core.pii import gate_json, gate_text  # the one PII gate: every free text stored here passes it
from vignette_lab.store.catalog import card_in_file_order
from vignette_lab.store.gateway import read, read_one

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "append_pinned_history",
    "case_turn_embeddings",
    "client_turn_counts",
    "client_visible_client_turns",
    "count_ended_sessions",
    "ensure_case_profile",
    "get_case_profile",
    "get_case_profile_by_id",
    "get_last_summary",
    "get_learner_profile",
    "get_session",
    "get_session_evaluation",
    "get_session_state",
    "session_status",
    "get_session_summary",
    "indexed_turn_ids",
    "insert_coach_event",
    "insert_coach_events",
    "insert_safety_event",
    "insert_safety_events",
    "insert_session",
    "insert_session_state",
    "insert_turn",
    "insert_turn_embeddings",
    "insert_turn_evaluation",
    "insert_turn_evaluations",
    "latest_active_session",
    "learner_of_case",
    "learners_with_ended_sessions",
    "list_coach_events",
    "list_pinned_facts",
    "list_pinned_history",
    "list_safety_events",
    "list_sessions",
    "list_turn_evaluations",
    "list_turns",
    "mark_session_ended",
    "max_ideation_for_case",
    "nearest_case_turns",
    "replace_learner_profile",
    "salient_client_turns",
    "session_case_scope",
    "session_dimension_means",
    "session_ids",
    "set_review_status",
    "standing_pinned_facts",
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


def _jp(db: Database) -> str:
    return db.dialect.json_param()


# --- case profile ----------------------------------------------------------------------

def get_case_profile(db: Database, persona_code: str, learner_id: str) -> dict[str, Any] | None:
    return read_one(db, "app.case_profile", where="t.persona_code = ? AND t.learner_id = ?",
                    params=[persona_code, learner_id])


def ensure_case_profile(db: Database, persona_code: str, learner_id: str) -> dict[str, Any]:
    """Return the stable case row for (persona, learner), creating it on first use."""
    row = get_case_profile(db, persona_code, learner_id)
    if row is not None:
        return row
    jp = _jp(db)
    db.execute(
        "INSERT INTO app.case_profile (case_id, persona_code, learner_id, last_session_no, "
        f"rapport_trajectory, alliance_level, case_digest, updated_at) VALUES (?, ?, ?, 0, {jp}, ?, ?, ?)",
        [str(uuid.uuid4()), persona_code, learner_id, _j([]), None, "", _now()])
    created = get_case_profile(db, persona_code, learner_id)
    assert created is not None  # just inserted
    return created


def update_case_profile(db: Database, case_id: str, *, last_session_no: int, rapport_trajectory: list,
                        alliance_level: float | None, case_digest: str,
                        presenting_arc: Any = None) -> None:
    jp = _jp(db)
    db.execute(
        # GREATEST: sessions of one case may end out of order; the count never goes back
        f"UPDATE app.case_profile SET last_session_no = GREATEST(last_session_no, ?), rapport_trajectory = {jp}, "
        f"alliance_level = ?, case_digest = ?, presenting_arc = {jp}, updated_at = ? WHERE case_id = ?",
        [last_session_no, _j(rapport_trajectory), alliance_level, gate_text(case_digest),
         _j(gate_json(presenting_arc)), _now(), case_id])


def claim_session_no(db: Database, case_id: str) -> int:
    """Number for a new session of ``case_id``: one past every session opened or ended so far.

    Call inside the transaction that inserts the session. The ``UPDATE`` (it touches
    ``updated_at``; DuckDB skips a no-op update without a conflict) takes the case row's write
    lock first, so a concurrent opener of the same case waits (Postgres) or gets a retryable
    :class:`~vignette_lab.errors.WriteConflict` (DuckDB, two connections of one process; two
    processes never share a DuckDB transaction) instead of reading the same maximum. Under
    Postgres' READ COMMITTED the following ``SELECT`` sees the other opener's committed session.
    """
    db.execute("UPDATE app.case_profile SET updated_at = ? WHERE case_id = ?", [_now(), case_id])
    row = db.fetchone(
        "SELECT GREATEST(COALESCE((SELECT MAX(s.session_no) FROM app.sessions s WHERE s.case_id = ?), 0), "
        "p.last_session_no) AS n FROM app.case_profile p WHERE p.case_id = ?", [case_id, case_id])
    return int((row or {}).get("n") or 0) + 1


# --- sessions --------------------------------------------------------------------------

_SESSION_COLS = ("session_id", "case_id", "learner_id", "cohort", "persona_id", "persona_code",
                 "persona_version", "mode", "counselor_profile", "engine", "model", "theory_mode",
                 "goal_stages", "session_no", "status", "started_at", "ended_at",
                 "duration_limit_s", "warning_before_s", "grace_s", "seed", "review_status", "meta")


def insert_session(db: Database, **fields: Any) -> None:
    unknown = set(fields) - set(_SESSION_COLS)
    if unknown:
        raise ValueError(f"insert_session: unknown column(s) {sorted(unknown)}.")
    cols = [c for c in _SESSION_COLS if c in fields]
    jp = _jp(db)
    marks = [jp if c in ("goal_stages", "meta") else "?" for c in cols]
    vals = [_j(fields[c]) if c in ("goal_stages", "meta") else fields[c] for c in cols]
    db.execute(f"INSERT INTO app.sessions ({', '.join(cols)}) VALUES ({', '.join(marks)})", vals)


def get_session(db: Database, session_id: str) -> dict[str, Any] | None:
    return read_one(db, "app.sessions", where="t.session_id = ?", params=[session_id])


def list_sessions(db: Database, *, learner_id: str | None = None, mode: str | None = None,
                  persona_codes: Sequence[str] | None = None, since: datetime | None = None,
                  until: datetime | None = None, case_id: str | None = None) -> list[dict[str, Any]]:
    where: list[str] = []
    params: list[Any] = []
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
    return read(db, "app.sessions", where=" AND ".join(where) or "TRUE", params=params,
                order_by="t.started_at, t.session_no, t.session_id")


def latest_active_session(db: Database, *, learner_id: str, mode: str = "live") -> dict[str, Any] | None:
    """The learner's most recently started session that has not ended (None when there is none).

    The session page reopens it on a reload, so an in-progress session is never lost.
    """
    return db.fetchone("SELECT * FROM app.sessions WHERE learner_id = ? AND mode = ? AND status = 'active' "
                       "ORDER BY started_at DESC, session_id DESC LIMIT 1", [learner_id, mode])


def mark_session_ended(db: Database, session_id: str, *, ended_at: datetime, review_status: str) -> None:
    db.execute("UPDATE app.sessions SET status = 'ended', ended_at = ?, review_status = ? "
               "WHERE session_id = ?", [ended_at, review_status, session_id])


def get_persona_card_by_id(db: Database, persona_id: str) -> dict[str, Any] | None:
    """The catalog card row (persona_id, code, version, card) a session pinned at start; the card's
    keys in its file's order on every backend (``catalog.card_in_file_order``)."""
    row = db.fetchone("SELECT persona_id, code, version, card FROM app.persona_card WHERE persona_id = ?",
                      [persona_id])
    if row is not None:
        row["card"] = card_in_file_order(db, row["card"], row["code"])
    return row


def set_coach_credits(db: Database, session_id: str, credits: int) -> None:
    """The coach credit balance on the session checkpoint."""
    db.execute("UPDATE app.session_state SET coach_credits = ? WHERE session_id = ?", [credits, session_id])


def selfplay_sessions_of(db: Database, *, seed: int, persona_code: str, counselor_profile: str) -> list[dict[str, Any]]:
    """Self-play sessions of one (seed, persona, counselor) in start order: id, status, meta."""
    return db.fetchall("SELECT session_id, status, meta, started_at FROM app.sessions WHERE mode = 'selfplay' "
                       "AND seed = ? AND persona_code = ? AND counselor_profile = ? "
                       "ORDER BY started_at, session_id", [seed, persona_code, counselor_profile])


def mark_sessions_aborted(db: Database, session_ids: Sequence[str], *, ended_at: datetime) -> int:
    """Mark still-active sessions ``aborted`` (a killed batch); returns how many changed."""
    if not session_ids:
        return 0
    marks = ", ".join("?" for _ in session_ids)
    ids = list(session_ids)
    n = int(db.scalar(f"SELECT count(*) FROM app.sessions WHERE status = 'active' AND session_id IN ({marks})",
                      ids) or 0)
    db.execute(f"UPDATE app.sessions SET status = 'aborted', ended_at = ? "
               f"WHERE status = 'active' AND session_id IN ({marks})", [ended_at, *ids])
    return n


def session_turn_texts(db: Database, session_id: str) -> list[dict[str, Any]]:
    """Stored (masked) turns of a session: speaker, text_masked, intended_technique, by seq."""
    return db.fetchall("SELECT speaker, text_masked, intended_technique FROM app.turns "
                       "WHERE session_id = ? ORDER BY seq", [session_id])


def case_ideation_disclosed(db: Database, case_id: str) -> bool:
    """True when the client of this case disclosed passive ideation in any session (safety event)."""
    return bool(db.scalar("SELECT count(*) FROM app.safety_events e JOIN app.sessions s "
                          "ON s.session_id = e.session_id WHERE s.case_id = ? "
                          "AND e.kind = 'client_ideation_disclosure'", [case_id]))


def set_review_status(db: Database, session_id: str, review_status: str) -> None:
    db.execute("UPDATE app.sessions SET review_status = ? WHERE session_id = ?",
               [review_status, session_id])


# --- working memory --------------------------------------------------------------------

def upsert_session_state(db: Database, session_id: str, state: Any, *, short_buffer: list,
                         recall_context: dict | None, coach_credits: int) -> None:
    """Checkpoint the deterministic state (one row per session, replaced every turn)."""
    _write_session_state(db, session_id, state, short_buffer=short_buffer, recall_context=recall_context,
                         coach_credits=coach_credits, upsert=True)


def insert_session_state(db: Database, session_id: str, state: Any, *, short_buffer: list,
                         recall_context: dict | None, coach_credits: int) -> None:
    """The first checkpoint of a session opened in this transaction (no row can exist yet).

    The same row as :func:`upsert_session_state` without ``ON CONFLICT``: DuckDB's upsert costs
    about three times a plain insert's CPU here (``bench/RESULTS.md``, "Issue 12 Numbers, eighth
    session"). A row that exists already is a duplicate-key
    :class:`~vignette_lab.errors.WriteConflict`, never a silent overwrite.
    """
    _write_session_state(db, session_id, state, short_buffer=short_buffer, recall_context=recall_context,
                         coach_credits=coach_credits, upsert=False)


def _write_session_state(db: Database, session_id: str, state: Any, *, short_buffer: list,
                         recall_context: dict | None, coach_credits: int, upsert: bool) -> None:
    jp = _jp(db)
    params = [state.stage, int(state.turn_seq), float(state.effective_openness),
              float(state.rapport_credit), float(state.resistance), int(state.ideation_stage),
              _j(dict(state.affect_state or {})), _j(gate_json(short_buffer)), _j(gate_json(recall_context)),
              int(coach_credits),
              float(state.prev_rapport_credit), _now()]
    cols = ("stage", "turn_seq", "effective_openness", "rapport_credit", "resistance", "ideation_stage",
            "affect_state", "short_buffer", "recall_context", "coach_credits", "prev_rapport_credit", "updated_at")
    marks = ["?", "?", "?", "?", "?", "?", jp, jp, jp, "?", "?", "?"]
    # One statement on both backends (INSERT … ON CONFLICT DO UPDATE, or the plain INSERT).
    sql = f"INSERT INTO app.session_state (session_id, {', '.join(cols)}) VALUES (?, {', '.join(marks)})"
    if upsert:
        sql += " ON CONFLICT (session_id) DO UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in cols)
    db.execute(sql, [session_id] + params)


def update_session_state_turn(db: Database, session_id: str, state: Any, *, short_buffer: list, coach_credits: int) -> None:
    """The per-turn checkpoint: only the columns a turn changes (the recall context stays as started).

    A plain ``UPDATE`` of the existing row (written by :func:`insert_session_state` at start) is
    several times cheaper on DuckDB than the upsert, which rewrites every column.
    """
    jp = _jp(db)
    db.execute(
        f"UPDATE app.session_state SET stage = ?, turn_seq = ?, effective_openness = ?, rapport_credit = ?, "
        f"resistance = ?, ideation_stage = ?, affect_state = {jp}, short_buffer = {jp}, coach_credits = ?, "
        f"prev_rapport_credit = ?, updated_at = ? WHERE session_id = ?",
        [state.stage, int(state.turn_seq), float(state.effective_openness), float(state.rapport_credit),
         float(state.resistance), int(state.ideation_stage), _j(dict(state.affect_state or {})), _j(short_buffer),
         int(coach_credits), float(state.prev_rapport_credit), _now(), session_id])


def session_status(db: Database, session_id: str) -> str | None:
    """The stored status of a session (``active``/``ended``/``aborted``), or None when there is none.

    One column by primary key: a turn's write reads it inside its transaction instead of the whole
    session row before the turn (a ``SELECT *`` decodes 23 columns and the JSON meta).
    """
    return db.scalar("SELECT status FROM app.sessions WHERE session_id = ?", [session_id])


def get_session_state(db: Database, session_id: str) -> dict[str, Any] | None:
    return read_one(db, "app.session_state", where="t.session_id = ?", params=[session_id])


# --- turns -----------------------------------------------------------------------------

def insert_turn(db: Database, *, session_id: str, case_id: str, seq: int, speaker: str, text_masked: str,
                visible_to: Sequence[str], sensitivity: int = 0, salience: float | None = None,
                intended_technique: str | None = None, state_after: dict | None = None,
                safety: Any = None, created_at: datetime | None = None) -> str:
    """Append one turn. ``text`` holds the masked text too: raw text is never stored."""
    return insert_turns(db, [dict(session_id=session_id, case_id=case_id, seq=seq, speaker=speaker,
                                  text_masked=text_masked, visible_to=visible_to, sensitivity=sensitivity,
                                  salience=salience, intended_technique=intended_technique,
                                  state_after=state_after, safety=safety, created_at=created_at)])[0]


_TURN_KEYS = frozenset({"turn_id", "session_id", "case_id", "seq", "speaker", "text_masked", "visible_to", "sensitivity",
                        "salience", "intended_technique", "state_after", "safety", "created_at"})


def insert_turns(db: Database, turns: Sequence[dict[str, Any]]) -> list[str]:
    """Append several turns in one multi-row ``INSERT`` (a counselor turn and its reply); returns the ids.

    Each dict takes the keyword arguments of :func:`insert_turn` (and optionally a ``turn_id`` made
    by the caller, so rows that reference the turn can be written in the same batch); every text
    passes the PII gate.
    """
    rows: list[list[Any]] = []
    ids: list[str] = []
    for t in turns:
        unknown = set(t) - _TURN_KEYS
        if unknown:
            raise ValueError(f"insert_turns: unknown field(s) {', '.join(sorted(unknown))}")
        if t["speaker"] not in ("counselor", "client"):
            raise ValueError(f"insert_turn: speaker must be 'counselor' or 'client'. Got {t['speaker']!r}.")
        turn_id = t.get("turn_id") or str(uuid.uuid4())
        text_masked = gate_text(t["text_masked"])
        ids.append(turn_id)
        rows.append([turn_id, t["session_id"], t["case_id"], t["seq"], t["speaker"], text_masked, text_masked,
                     list(t["visible_to"]), t.get("sensitivity", 0), t.get("salience"), False,
                     t.get("intended_technique"), _j(t.get("state_after")), _j(t.get("safety")),
                     t.get("created_at") or _now()])
    db.insert_rows("app.turns", _TURN_COLUMNS, rows, json_columns=("state_after", "safety"))
    return ids


_TURN_COLUMNS = ("turn_id", "session_id", "case_id", "seq", "speaker", "text", "text_masked", "visible_to",
                 "sensitivity", "salience", "is_pinned", "intended_technique", "state_after", "safety", "created_at")


def list_turns(db: Database, session_id: str, *, visible_to: str | None = None) -> list[dict[str, Any]]:
    where = "t.session_id = ?"
    params: list[Any] = [session_id]
    if visible_to is not None:
        where += " AND " + db.dialect.contains("t.visible_to")
        params.append(visible_to)
    return read(db, "app.turns", where=where, params=params, order_by="t.seq")


# --- evaluations -----------------------------------------------------------------------

def insert_turn_evaluation(db: Database, *, turn_id: str, session_id: str, evaluation: Any, engine: str) -> str:
    return insert_turn_evaluations(db, [dict(turn_id=turn_id, session_id=session_id, evaluation=evaluation,
                                             engine=engine)])[0]


def insert_turn_evaluations(db: Database, rows: Sequence[dict[str, Any]]) -> list[str]:
    """Several fast-loop evaluation rows in one multi-row ``INSERT``; each dict takes the keyword
    arguments of :func:`insert_turn_evaluation`. Returns the ids."""
    ids: list[str] = []
    values: list[list[Any]] = []
    now = _now()
    for r in rows:
        ev = r["evaluation"]
        ids.append(str(uuid.uuid4()))
        values.append([ids[-1], r["turn_id"], r["session_id"], list(ev.techniques), list(ev.client_state),
                       ev.appropriateness, _j(gate_json(list(ev.intent_deviation))), ev.rapport_signal,
                       _j(dict(ev.scores)), gate_text(ev.error), r["engine"], ["evaluator"], 2, now])
    db.insert_rows("app.turn_evaluation", ("eval_id", "turn_id", "session_id", "techniques", "client_state",
                                           "appropriateness", "intent_deviation", "rapport_signal", "scores",
                                           "error", "engine", "visible_to", "sensitivity", "created_at"),
                   values, json_columns=("intent_deviation", "scores"))
    return ids


def list_turn_evaluations(db: Database, session_id: str) -> list[dict[str, Any]]:
    evals = read(db, "app.turn_evaluation", where="t.session_id = ?", params=[session_id])
    seqs = {r["turn_id"]: r["seq"] for r in read(db, "app.turns", columns=["turn_id", "seq"],
                                                  where="t.session_id = ?", params=[session_id])}
    rows = [dict(e, turn_seq=seqs[e["turn_id"]]) for e in evals if e["turn_id"] in seqs]
    return sorted(rows, key=lambda r: (r["turn_seq"], r["created_at"]))


def upsert_session_evaluation(db: Database, session_id: str, *, status: str, technique_distribution: dict,
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
            [session_id, status, _j(technique_distribution), _j(gate_json(strengths)), _j(gate_json(improvements)),
             gate_text(rationale), _j(gate_json(alternatives)), _j(gate_json(checklist)), gate_text(error), engine,
             _now()])


def get_session_evaluation(db: Database, session_id: str) -> dict[str, Any] | None:
    return read_one(db, "app.session_evaluation", where="t.session_id = ?", params=[session_id])


# --- summary memory --------------------------------------------------------------------

def upsert_session_summary(db: Database, session_id: str, *, case_id: str, session_no: int, end_state: dict,
                           rapport_delta: float, digest: str, open_threads: list,
                           homework: list, compressed_by: str) -> None:
    jp = _jp(db)
    with db.transaction():
        db.execute("DELETE FROM app.session_summary WHERE session_id = ?", [session_id])
        db.execute(
            "INSERT INTO app.session_summary (session_id, case_id, session_no, end_state, "
            "rapport_delta, digest, open_threads, homework, compressed_by, created_at) "
            f"VALUES (?, ?, ?, {jp}, ?, ?, {jp}, {jp}, ?, ?)",
            [session_id, case_id, session_no, _j(gate_json(end_state)), rapport_delta, gate_text(digest),
             _j(gate_json(open_threads)), _j(gate_json(homework)), compressed_by, _now()])


def get_session_summary(db: Database, session_id: str) -> dict[str, Any] | None:
    return read_one(db, "app.session_summary", where="t.session_id = ?", params=[session_id])


def get_last_summary(db: Database, case_id: str) -> dict[str, Any] | None:
    return read_one(db, "app.session_summary", where="t.case_id = ?", params=[case_id],
                    order_by="t.session_no DESC")


def max_ideation_for_case(db: Database, case_id: str) -> int | None:
    """Highest ideation stage ever checkpointed for this case (it never goes down)."""
    return db.scalar(
        "SELECT MAX(st.ideation_stage) FROM app.session_state st JOIN app.sessions s "
        "ON s.session_id = st.session_id WHERE s.case_id = ?", [case_id])


# --- pinned facts ----------------------------------------------------------------------

def list_pinned_facts(db: Database, case_id: str, *, visible_to: str | None = None) -> list[dict[str, Any]]:
    where = "t.case_id = ?"
    params: list[Any] = [case_id]
    if visible_to is not None:
        where += " AND " + db.dialect.contains("t.visible_to")
        params.append(visible_to)
    return read(db, "app.pinned_fact", where=where, params=params, order_by="t.key")


def upsert_pinned_fact(db: Database, *, case_id: str, key: str, value: str, fact_type: str, status: str,
                       source_turn: str | None, confidence: float, version: int,
                       session_no: int, visible_to: Sequence[str], fact_id: str | None = None) -> str:
    now = _now()
    value = gate_text(value)
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


def append_pinned_history(db: Database, *, fact_id: str, case_id: str, old_value: str | None,
                          new_value: str, reason: str, session_no: int, turn_id: str | None) -> None:
    db.execute(
        "INSERT INTO app.pinned_fact_history (id, fact_id, case_id, old_value, new_value, reason, "
        "session_no, turn_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [str(uuid.uuid4()), fact_id, case_id, gate_text(old_value), gate_text(new_value), gate_text(reason),
         session_no, turn_id, _now()])


def list_pinned_history(db: Database, case_id: str) -> list[dict[str, Any]]:
    return db.fetchall("SELECT h.*, f.key FROM app.pinned_fact_history h LEFT JOIN app.pinned_fact f "
                       "ON f.id = h.fact_id WHERE h.case_id = ? ORDER BY h.created_at, h.session_no",
                       [case_id])


# --- coach and safety events -----------------------------------------------------------

def insert_coach_event(db: Database, *, session_id: str, turn_seq: int, event_type: str, credit_delta: int,
                       credit_balance: int, reason: str, payload: dict | None,
                       learner_excerpt: str | None = None, client_excerpt: str | None = None) -> str:
    return insert_coach_events(db, [dict(session_id=session_id, turn_seq=turn_seq, event_type=event_type,
                                         credit_delta=credit_delta, credit_balance=credit_balance, reason=reason,
                                         payload=payload, learner_excerpt=learner_excerpt,
                                         client_excerpt=client_excerpt)])[0]


def insert_coach_events(db: Database, rows: Sequence[dict[str, Any]]) -> list[str]:
    """Several ``live_coach_events`` rows in one multi-row ``INSERT`` (keyword arguments of
    :func:`insert_coach_event` per dict, ``learner_excerpt``/``client_excerpt`` optional)."""
    ids: list[str] = []
    values: list[list[Any]] = []
    for r in rows:
        if r["event_type"] not in ("use", "recharge"):
            raise ValueError(f"insert_coach_event: event_type must be 'use' or 'recharge'. Got {r['event_type']!r}.")
        ids.append(str(uuid.uuid4()))
        values.append([ids[-1], r["session_id"], r["turn_seq"], r["event_type"], r["credit_delta"],
                       r["credit_balance"], gate_text(r["reason"]), _j(gate_json(r.get("payload"))),
                       gate_text(r.get("learner_excerpt")), gate_text(r.get("client_excerpt")), _now()])
    db.insert_rows("app.live_coach_events", ("event_id", "session_id", "turn_seq", "event_type", "credit_delta",
                                             "credit_balance", "reason", "payload", "learner_excerpt",
                                             "client_excerpt", "created_at"), values, json_columns=("payload",))
    return ids


def list_coach_events(db: Database, session_id: str) -> list[dict[str, Any]]:
    return read(db, "app.live_coach_events", where="t.session_id = ?", params=[session_id],
                order_by="t.created_at, t.turn_seq")


def insert_safety_event(db: Database, *, session_id: str, turn_seq: int, kind: str, escalated: bool,
                        detail: dict | None) -> str:
    return insert_safety_events(db, [dict(session_id=session_id, turn_seq=turn_seq, kind=kind, escalated=escalated,
                                          detail=detail)])[0]


def insert_safety_events(db: Database, rows: Sequence[dict[str, Any]]) -> list[str]:
    """Several ``app.safety_events`` rows in one multi-row ``INSERT`` (keyword arguments of
    :func:`insert_safety_event` per dict)."""
    ids: list[str] = []
    values: list[list[Any]] = []
    for r in rows:
        ids.append(str(uuid.uuid4()))
        values.append([ids[-1], r["session_id"], r["turn_seq"], r["kind"], bool(r["escalated"]),
                       _j(gate_json(r.get("detail"))), _now()])
    db.insert_rows("app.safety_events", ("event_id", "session_id", "turn_seq", "kind", "escalated", "detail",
                                         "created_at"), values, json_columns=("detail",))
    return ids


def list_safety_events(db: Database, session_id: str) -> list[dict[str, Any]]:
    return read(db, "app.safety_events", where="t.session_id = ?", params=[session_id],
                order_by="t.created_at, t.turn_seq")


# --- episodic memory (app.turn_embedding) ----------------------------------------------

def session_case_scope(db: Database, session_id: str) -> dict[str, Any] | None:
    """``case_id`` and ``learner_id`` of a stored session, or None."""
    return db.fetchone("SELECT case_id, learner_id FROM app.sessions WHERE session_id = ?", [session_id])


def client_visible_client_turns(db: Database, session_id: str) -> list[dict[str, Any]]:
    """The client's own masked utterances of a session that the client view may see, in order."""
    return db.fetchall(
        "SELECT turn_id, session_id, seq, speaker, text_masked FROM app.turns t WHERE t.session_id = ? "
        f"AND t.speaker = 'client' AND {db.dialect.contains('t.visible_to')} ORDER BY t.seq",
        [session_id, "client"])


def learner_of_case(db: Database, case_id: str) -> str | None:
    """The one learner a case belongs to (``UNIQUE(persona_code, learner_id)``), or None."""
    learner = db.scalar("SELECT learner_id FROM app.case_profile WHERE case_id = ?", [case_id])
    return str(learner) if learner else None


def indexed_turn_ids(db: Database, turn_ids: Sequence[str]) -> set[str]:
    """Those of ``turn_ids`` that already have a row in ``app.turn_embedding``."""
    if not turn_ids:
        return set()
    return {r["turn_id"] for r in db.fetchall(
        f"SELECT turn_id FROM app.turn_embedding WHERE turn_id IN ({', '.join('?' for _ in turn_ids)})",
        list(turn_ids))}


def insert_turn_embeddings(db: Database, rows: Sequence[Mapping[str, Any]]) -> int:
    """Write turn vectors; each mapping has turn_id, case_id, learner_id, session_id, seq, speaker,
    text_masked (already masked), dense, sparse (dict), embedder, created_at."""
    jp = _jp(db)
    db.executemany(
        "INSERT INTO app.turn_embedding (turn_id, case_id, learner_id, session_id, seq, speaker, text_masked, "
        f"dense, sparse, embedder, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, {jp}, ?, ?)",
        [[r["turn_id"], r["case_id"], r["learner_id"], r["session_id"], r["seq"], r["speaker"], r["text_masked"],
          db.dialect.vector_param(r["dense"]), json.dumps(r["sparse"], ensure_ascii=False), r["embedder"],
          r["created_at"]] for r in rows])
    return len(rows)


def _case_where(case_id: str, learner_id: str, embedder: str, speaker: str | None) -> tuple[str, list[Any]]:
    # both case and learner in every query: another learner's turns never come back (seed 004 §4.4 T4)
    where = "c.case_id = ? AND c.learner_id = ? AND c.embedder = ?"
    params: list[Any] = [case_id, learner_id, embedder]
    if speaker is not None:
        where += " AND c.speaker = ?"
        params.append(speaker)
    return where, params


def nearest_case_turns(db: Database, vector: Any, *, case_id: str, learner_id: str, embedder: str, speaker: str | None,
                       dim: int, limit: int, ef_search: int) -> list[dict[str, Any]]:
    """``turn_id`` and cosine ``s_dense`` of one case's turns nearest ``vector``, best first."""
    where, params = _case_where(case_id, learner_id, embedder, speaker)
    sql, full = db.dialect.nearest(table="app.turn_embedding", id_column="c.turn_id", column="c.dense",
                                   where=where, params=params, vector=vector, dim=dim, limit=limit)
    with db.transaction():
        for statement in db.dialect.nearest_setup(ef_search):
            db.execute(statement)
        return db.fetchall(sql, full)


def case_turn_embeddings(db: Database, *, case_id: str, learner_id: str, embedder: str,
                         speaker: str | None) -> list[dict[str, Any]]:
    """Every indexed turn of one case (id, session, seq, speaker, masked text, sparse vector)."""
    where, params = _case_where(case_id, learner_id, embedder, speaker)
    return db.fetchall(f"SELECT c.turn_id, c.session_id, c.seq, c.speaker, c.text_masked, c.sparse "
                       f"FROM app.turn_embedding c WHERE {where}", params)


# --- reads for drift, memory and growth ------------------------------------------------

_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")


def session_ids(db: Database, *, since: datetime | None = None) -> list[str]:
    """Ids of every session (started at or after ``since``), oldest first."""
    sql, params = "SELECT session_id FROM app.sessions", []
    if since is not None:
        sql, params = sql + " WHERE started_at >= ?", [since]
    return [r["session_id"] for r in db.fetchall(sql + " ORDER BY started_at, session_id", params)]


def standing_pinned_facts(db: Database, case_id: str, *, before_session_no: int) -> list[dict[str, Any]]:
    """Pinned facts of a case in force (stable, locked, evolving) that were set before session ``before_session_no``.

    Facts written at the end of that very session are its own output, not prior commitments.
    """
    rows = db.fetchall("SELECT key, value, fact_type, status, updated_session_no FROM app.pinned_fact "
                       "WHERE case_id = ? AND status IN ('stable', 'locked', 'evolving')", [case_id])
    return [r for r in rows if r.get("updated_session_no") is None or int(r["updated_session_no"]) < before_session_no]


def client_turn_counts(db: Database, by: Sequence[str]) -> list[dict[str, Any]]:
    """Number of client turns (``client_turns``) per combination of the sessions' ``by`` columns."""
    bad = [c for c in by if c not in _SESSION_COLS]
    if bad or not by:
        raise InputError(f"client_turn_counts groups by app.sessions columns. Got {list(by)!r}.", field="by")
    sel = ", ".join(f"s.{c}" for c in by)
    return db.fetchall(f"SELECT {sel}, count(*) AS client_turns FROM app.turns t JOIN app.sessions s "
                       f"ON s.session_id = t.session_id WHERE t.speaker = 'client' GROUP BY {sel}")


def get_case_profile_by_id(db: Database, case_id: str) -> dict[str, Any] | None:
    """The ``app.case_profile`` row of a case id."""
    return db.fetchone("SELECT * FROM app.case_profile WHERE case_id = ?", [case_id])


def salient_client_turns(db: Database, case_id: str, *, k: int) -> list[str]:
    """Masked client-visible client utterances of a case's ended sessions, most salient first."""
    rows = db.fetchall(
        "SELECT t.text_masked, t.salience, t.seq, s.session_no FROM app.turns t JOIN app.sessions s "
        "ON s.session_id = t.session_id WHERE t.case_id = ? AND t.speaker = 'client' AND s.status = 'ended' AND "
        + db.dialect.contains("t.visible_to")
        + " ORDER BY t.salience DESC, s.session_no DESC, t.seq LIMIT ?", [case_id, "client", k])
    return [r["text_masked"] for r in rows]


def session_dimension_means(db: Database, dimensions: Sequence[str], *, learners: Sequence[str] | None = None,
                            cohort: str | None = None) -> list[dict[str, Any]]:
    """Per ended session: ``learner``, ``session_id``, ``started_at`` and the mean fast-loop score of
    each dimension over its evaluated turns (one column per dimension)."""
    for d in dimensions:
        if not _IDENT.match(d):
            raise InputError(f"score dimension {d!r} is not a plain identifier", field="dimensions")
    exprs = ", ".join(f"avg({db.dialect.json_number('e.scores', d)}) AS \"{d}\"" for d in dimensions)
    where, params = ["s.status = 'ended'", "e.error IS NULL"], []
    if learners is not None:
        if not learners:
            return []
        where.append("s.learner_id IN (" + ", ".join("?" for _ in learners) + ")")
        params += list(learners)
    if cohort is not None:
        where.append("s.cohort = ?")
        params.append(cohort)
    return db.fetchall(
        f"SELECT s.learner_id AS learner, s.session_id, min(s.started_at) AS started_at, {exprs} "
        "FROM app.sessions s JOIN app.turn_evaluation e ON e.session_id = s.session_id "
        f"WHERE {' AND '.join(where)} GROUP BY s.learner_id, s.session_id", params)


def learners_with_ended_sessions(db: Database, *, cohort: str | None = None) -> list[str]:
    """Sorted ids of the learners (of ``cohort``) with at least one ended session."""
    sql, params = "SELECT DISTINCT learner_id FROM app.sessions WHERE status = 'ended'", []
    if cohort is not None:
        sql, params = sql + " AND cohort = ?", [cohort]
    return sorted(r["learner_id"] for r in db.fetchall(sql, params) if r["learner_id"])


def get_learner_profile(db: Database, learner_id: str) -> dict[str, Any] | None:
    """The stored ``app.learner_profile`` row (None when never computed)."""
    return db.fetchone("SELECT * FROM app.learner_profile WHERE learner_id = ?", [learner_id])


def replace_learner_profile(db: Database, learner_id: str, *, dim_ewma: dict, dim_slope: dict, persistent_gaps: list,
                            session_count: int) -> None:
    """Write a learner's derived profile, replacing the old row (it is a cache, not append-only)."""
    jp = _jp(db)
    with db.transaction():
        db.execute("DELETE FROM app.learner_profile WHERE learner_id = ?", [learner_id])
        db.execute("INSERT INTO app.learner_profile (learner_id, dim_ewma, dim_slope, persistent_gaps, "
                   f"session_count, updated_at) VALUES (?, {jp}, {jp}, {jp}, ?, ?)",
                   [learner_id, _j(dim_ewma), _j(dim_slope), _j(persistent_gaps), session_count, _now()])


def count_ended_sessions(db: Database, *, mode: str | None = None, learner_id: str | None = None) -> int:
    """How many ended sessions there are (of one mode, of one learner)."""
    sql, params = "SELECT count(*) FROM app.sessions WHERE status = 'ended'", []
    for col, val in (("mode", mode), ("learner_id", learner_id)):
        if val is not None:
            sql += f" AND {col} = ?"
            params.append(val)
    return int(db.scalar(sql, params) or 0)
