"""Per-turn cost, fifth pass (issue 12 Numbers, eighth session): a session's first checkpoint is a
plain insert, and the deep loop's audit rows share the deep evaluation's commit (both backends)."""

from __future__ import annotations

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import WriteConflict
from vignette_lab.session import lifecycle
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo

LINES = ["안녕하세요, 오늘 어떤 이야기를 하고 싶어요?", "요즘 많이 힘드셨겠어요.", "잠은 잘 자요?"]


def _session(db, learner: str = "r8") -> tuple[SessionService, str]:
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    with db.pinned():
        sid = svc.start("P4", learner_id=learner).session_id
        for line in LINES:
            svc.send(sid, line)
    return svc, sid


def _audit_rows(db, sid: str) -> list[dict]:
    return db.fetchall("SELECT ai_role, status FROM audit.llm_call_log WHERE session_id = ? ORDER BY ai_role",
                       [sid])


def test_a_new_sessions_checkpoint_is_stored_once_and_never_overwritten(db):
    svc, sid = _session(db)
    with db.pinned():
        row = db.fetchone("SELECT turn_seq, coach_credits, recall_context FROM app.session_state WHERE session_id = ?",
                          [sid])
        assert row is not None and row["turn_seq"] == len(LINES)
        assert db.scalar("SELECT count(*) FROM app.session_state WHERE session_id = ?", [sid]) == 1
        # a second first checkpoint of the same session is a conflict, not a silent overwrite
        state = svc._live.get(sid).start_state
        with pytest.raises(WriteConflict):
            with db.transaction():
                app_repo.insert_session_state(db, sid, state, short_buffer=[], recall_context=None, coach_credits=0)
        assert db.scalar("SELECT turn_seq FROM app.session_state WHERE session_id = ?", [sid]) == len(LINES)


def test_the_deep_loops_audit_rows_share_its_commit(db, monkeypatch):
    svc, sid = _session(db, "r8-deep")
    before = len(_audit_rows(db, sid))
    commits: list[int] = []
    real = type(db).transaction

    def counted(self):
        if not self.in_transaction:
            commits.append(1)
        return real(self)

    monkeypatch.setattr(type(db), "transaction", counted)
    inserts: list[bool] = []
    real_insert = lifecycle.audit_repo.insert_llm_rows

    def insert_in_tx(d, rows):
        inserts.append(d.in_transaction)
        return real_insert(d, rows)

    monkeypatch.setattr(lifecycle.audit_repo, "insert_llm_rows", insert_in_tx)
    n_before = len(commits)
    review = svc.end(sid, run_deep=True)
    assert review is not None and review.status == "ready"
    assert inserts == [True]  # written inside the evaluation's transaction
    after = _audit_rows(db, sid)
    assert len(after) == before + 1 and after[-1]["status"] == "ok"
    assert svc._audit.buffer is None  # nothing stays held after the end
    assert len(commits) - n_before == 2  # the end itself, then the deep evaluation (its audit row included)


def test_a_failed_deep_store_still_writes_the_audit_rows(db, monkeypatch):
    svc, sid = _session(db, "r8-fail")
    before = len(_audit_rows(db, sid))

    def broken(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(lifecycle.app_repo, "upsert_session_evaluation", broken)
    svc.end(sid, run_deep=True, read_back=False)
    assert len(_audit_rows(db, sid)) == before + 1  # written on their own after the rollback
    assert app_repo.get_session(db, sid)["review_status"] == "degraded"
    assert svc._audit.buffer is None
