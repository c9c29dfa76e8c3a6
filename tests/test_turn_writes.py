"""Per-turn cost (issue 12 round 5): one transaction per turn with no read-back, self-play batched
per session, and the stored rows unchanged by either (DuckDB and PostgreSQL)."""

from __future__ import annotations

import pytest

from vignette_lab.core import morph
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import SessionError, WriteConflict
from vignette_lab.session import turns
from vignette_lab.session.selfplay import run_selfplay
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo, audit_repo

LINES = [
    "안녕하세요, 오늘 여기까지 오느라 애쓰셨어요. 어떤 이야기를 하고 싶어요?",
    "요즘 많이 힘드셨겠어요.",
    "그때 가장 힘들었던 건 뭐였어요?",
    "혹시 죽고 싶다는 생각까지 든 적 있어요?",
    "잠은 잘 자요?",
    "몇 학년이에요?",
    "주변 사람들은 그 마음을 알고 있어요?",
]

_ROW_QUERIES = {
    "turns": "SELECT t.seq, t.speaker, t.text_masked, t.intended_technique, t.state_after, t.safety, t.salience, "
             "t.visible_to, t.sensitivity FROM app.turns t WHERE t.session_id = ? ORDER BY t.seq",
    "evaluations": "SELECT t.seq, e.techniques, e.client_state, e.appropriateness, e.intent_deviation, "
                   "e.rapport_signal, e.scores, e.engine FROM app.turn_evaluation e JOIN app.turns t "
                   "ON t.turn_id = e.turn_id WHERE e.session_id = ? ORDER BY t.seq",
    "safety": "SELECT turn_seq, kind, escalated, detail FROM app.safety_events WHERE session_id = ? "
              "ORDER BY turn_seq, kind",
    "coach": "SELECT turn_seq, event_type, credit_delta, credit_balance, reason FROM app.live_coach_events "
             "WHERE session_id = ? ORDER BY turn_seq, reason",
    "checkpoint": "SELECT stage, turn_seq, effective_openness, rapport_credit, resistance, ideation_stage, "
                  "affect_state, short_buffer, coach_credits FROM app.session_state WHERE session_id = ?",
    "audit": "SELECT ai_role, provider, status FROM audit.llm_call_log WHERE session_id = ? "
             "ORDER BY ai_role, provider, status",
}


def _rows(db, sid: str) -> dict[str, list[dict]]:
    return {k: db.fetchall(sql, [sid]) for k, sql in _ROW_QUERIES.items()}


def _play(db, sid: str, *, deferred: bool) -> dict[str, list[dict]]:
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    with db.pinned():
        svc.start("P1", learner_id=f"u-{sid[-4:]}", session_id=sid)
        if deferred:
            with svc.deferred(sid):
                for i in range(13):
                    svc.send(sid, LINES[i % len(LINES)])
        else:
            for i in range(13):
                svc.send(sid, LINES[i % len(LINES)])
        svc.end(sid, run_deep=False)
    return _rows(db, sid)


def test_deferred_turns_store_the_same_rows_as_turn_by_turn(db):
    sid_a, sid_b = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
    # the scripted engine draws from the session id: same id on two databases would be needed for
    # identical texts, so compare the shapes row by row and the deterministic parts exactly
    now = _play(db, sid_a, deferred=False)
    later = _play(db, sid_b, deferred=True)
    for key in _ROW_QUERIES:
        assert len(now[key]) == len(later[key]), key
    assert len(now["turns"]) == 26 and len(now["evaluations"]) == 13
    assert [r["seq"] for r in later["turns"]] == list(range(1, 27))
    assert later["checkpoint"][0]["turn_seq"] == 13
    assert [r["text_masked"] for r in now["turns"] if r["speaker"] == "counselor"] == \
        [r["text_masked"] for r in later["turns"] if r["speaker"] == "counselor"]


def test_deferred_batch_equals_turn_by_turn_for_the_same_session(tmp_path, _duck_template):
    """Same session id on two fresh databases: every stored value is the same."""
    import shutil

    from vignette_lab.store import connect

    out = []
    for name, deferred in (("a.duckdb", False), ("b.duckdb", True)):
        shutil.copyfile(_duck_template, tmp_path / name)
        db = connect(str(tmp_path / name))
        try:
            out.append(_play(db, "00000000-0000-0000-0000-0000000000cc", deferred=deferred))
        finally:
            db.close()
    assert out[0] == out[1]
    assert len(out[0]["turns"]) == 26 and out[0]["checkpoint"][0]["turn_seq"] == 13


def test_a_reader_sees_whole_turns_while_a_session_is_deferred(db):
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P4", learner_id="reader").session_id
    reader = db.clone() if db.backend == "postgres" else db
    with svc.deferred(sid):
        for line in LINES[:4]:
            svc.send(sid, line)
        # nothing of the four turns is visible yet, and the checkpoint still says turn 0
        assert app_repo.list_turns(reader, sid) == []
        assert app_repo.get_session_state(reader, sid)["turn_seq"] == 0
        turns.flush(db, svc._load(sid))
        stored = app_repo.list_turns(reader, sid)
        assert [t["seq"] for t in stored] == list(range(1, 9))
        assert app_repo.get_session_state(reader, sid)["turn_seq"] == 4
        svc.send(sid, LINES[4])
        assert len(app_repo.list_turns(reader, sid)) == 8
    assert len(app_repo.list_turns(reader, sid)) == 10
    assert app_repo.get_session_state(reader, sid)["turn_seq"] == 5
    if reader is not db:
        reader.close()


def test_ended_elsewhere_refuses_the_turn_and_stores_nothing(db):
    a = SessionService(db, engine=ScriptedEngine(seed=7))
    b = SessionService(db, engine=ScriptedEngine(seed=7))  # another process's service, same database
    sid = a.start("P2", learner_id="two-tabs").session_id
    a.send(sid, LINES[0])
    b.end(sid, run_deep=False)
    before = _rows(db, sid)
    with pytest.raises(SessionError) as err:
        a.send(sid, LINES[1])  # a's copy still says active: the write's check refuses it
    assert err.value.code == "session_ended"
    after = _rows(db, sid)
    assert after["turns"] == before["turns"] and after["evaluations"] == before["evaluations"]
    assert after["checkpoint"] == before["checkpoint"]
    # the engine calls of the refused turn happened: their audit rows are kept
    assert len(after["audit"]) == len(before["audit"]) + 2
    with pytest.raises(SessionError) as again:  # reloaded from the database: refused before the engine
        a.send(sid, LINES[1])
    assert again.value.code == "session_ended"
    assert len(_rows(db, sid)["audit"]) == len(after["audit"])


def test_a_turn_written_elsewhere_is_a_write_conflict_then_reloaded(db):
    a = SessionService(db, engine=ScriptedEngine(seed=7))
    b = SessionService(db, engine=ScriptedEngine(seed=7))
    sid = a.start("P5", learner_id="two-procs").session_id
    a.send(sid, LINES[0])
    b.send(sid, LINES[1])  # b loads the session from the database and writes turn 2
    with pytest.raises(WriteConflict):
        a.send(sid, LINES[2])  # a still holds turn 1
    stored = app_repo.list_turns(db, sid)
    assert [t["seq"] for t in stored] == [1, 2, 3, 4]
    out = a.send(sid, LINES[2])  # reloaded: continues after b's turn
    assert out.counselor_seq == 5
    assert app_repo.get_session_state(db, sid)["turn_seq"] == 3


def test_send_runs_one_transaction_without_reading_the_session_back(duck_db):
    """Statements per ``send`` on DuckDB (load-independent): BEGIN, the session's status (one column),
    the checkpoint, turns, evaluation, audit rows, COMMIT — the session row is not read again."""
    from vignette_lab.store import duck

    seen: list[str] = []
    real = duck.DuckDatabase._run

    def counting(self, con, sql, params):
        seen.append(" ".join(sql.split()[:3]).upper())
        return real(self, con, sql, params)

    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P4", learner_id="count").session_id
    svc.send(sid, LINES[0])
    duck.DuckDatabase._run = counting  # a turn's inserts are below APPENDER_MIN_ROWS: plain statements
    try:
        for line in LINES[1:3]:
            seen.clear()
            svc.send(sid, line)
            assert [s for s in seen if s.startswith("SELECT")] == ["SELECT STATUS FROM"], seen
            assert seen[0] == "BEGIN TRANSACTION" and seen[-1] == "COMMIT" and len(seen) == 7, seen
    finally:
        duck.DuckDatabase._run = real


def test_selfplay_batches_one_write_per_session(duck_db):
    from vignette_lab.store import duck

    count = [0]
    real = duck.DuckDatabase.insert_rows

    def counting(self, table, columns, rows, **kw):
        count[0] += table == "app.turns"
        return real(self, table, columns, rows, **kw)

    duck.DuckDatabase.insert_rows = counting
    try:
        res = run_selfplay(duck_db, personas=("P4",), counselor="skilled", sessions=2, turns=8, seed=5,
                           progress=False, evaluate=True)
    finally:
        duck.DuckDatabase.insert_rows = real
    assert count[0] == 2  # one multi-row INSERT of the session's turns per session
    for s in res.sessions:
        stored = app_repo.list_turns(duck_db, s.session_id)
        assert [t["seq"] for t in stored] == list(range(1, 17))
        assert len(app_repo.list_turn_evaluations(duck_db, s.session_id)) == 8
        assert app_repo.get_session(duck_db, s.session_id)["status"] == "ended"
    roles = {r["ai_role"] for r in audit_repo.read_llm_calls(duck_db)}
    assert {"counselor", "client", "evaluator"} <= roles


def test_long_deferred_sessions_are_written_every_flush_every_turns(duck_db, monkeypatch):
    monkeypatch.setattr(turns, "FLUSH_EVERY", 3)
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P3", learner_id="long").session_id
    with svc.deferred(sid):
        for i in range(7):
            svc.send(sid, LINES[i % len(LINES)])
            turns.flush_due(duck_db, svc._load(sid))
            assert len(app_repo.list_turns(duck_db, sid)) == 2 * 3 * ((i + 1) // 3)
    assert len(app_repo.list_turns(duck_db, sid)) == 14


def test_shared_analyser_remembers_tokens_per_text():
    k = morph.kiwi()
    if k is None:
        pytest.skip("kiwipiepy not available")
    first = k.tokenize("요즘 잠을 잘 못 자요")
    again = k.tokenize("요즘 잠을 잘 못 자요")
    assert first == again and first is not again  # a fresh list each call, same tokens
    assert [(t.form, t.tag) for t in first] == [(t.form, t.tag) for t in k._inner.tokenize("요즘 잠을 잘 못 자요")]


def test_batched_rows_keep_the_table_constraints(db):
    """A batch big enough for DuckDB's appender still refuses a duplicate turn, all-or-nothing."""
    from vignette_lab.store import duck

    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P6", learner_id="dups").session_id
    svc.send(sid, LINES[0])
    case_id = app_repo.get_session(db, sid)["case_id"]
    rows = [dict(session_id=sid, case_id=case_id, seq=seq, speaker="client", text_masked="네.",
                 visible_to=["client", "counselor", "evaluator"]) for seq in range(3, 3 + duck.APPENDER_MIN_ROWS)]
    rows.append(dict(rows[0], seq=2))  # seq 2 is stored already
    with pytest.raises(WriteConflict):
        with db.transaction():
            app_repo.insert_turns(db, rows)
    assert [t["seq"] for t in app_repo.list_turns(db, sid)] == [1, 2]
    app_repo.insert_turns(db, rows[:-1])
    assert len(app_repo.list_turns(db, sid)) == 2 + duck.APPENDER_MIN_ROWS
