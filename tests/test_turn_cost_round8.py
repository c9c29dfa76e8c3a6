"""Per-turn cost, fifth pass (issue 12 Numbers, eighth session): a session's first checkpoint is a
plain insert (both backends)."""

from __future__ import annotations

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import WriteConflict
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
