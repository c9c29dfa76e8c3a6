"""Per-turn cost, third pass (issue 12 round 6): parsed statements reused, no second read of a
just-started session, the deep evaluation's row and review status in one commit."""

from __future__ import annotations

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import PermissionDenied, StoreError, WriteConflict
from vignette_lab.session.live import LiveCache
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo, duck
from vignette_lab.store.duck import DuckDatabase


def test_a_parameterised_statement_is_parsed_once_and_gives_the_same_rows(tmp_path):
    db = DuckDatabase(tmp_path / "p.duckdb")
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)")
    sql = "INSERT INTO t VALUES (?, ?)"
    with db.pinned():
        db.execute(sql, ["a", 1])
        first = duck._PARSED[sql]
        db.execute(sql, ["b", 2])
        assert duck._PARSED[sql] is first  # reused, not parsed again
        assert db.fetchall("SELECT k, v FROM t WHERE v >= ? ORDER BY k", [1]) == [{"k": "a", "v": 1},
                                                                               {"k": "b", "v": 2}]
        assert db.fetchall("SELECT k, v FROM t WHERE v >= ? ORDER BY k", [2]) == [{"k": "b", "v": 2}]
        # errors are what they were: a duplicate key is still a conflict of the store's own kind
        with pytest.raises((StoreError, WriteConflict), match="Duplicate key"):
            db.execute(sql, ["a", 3])
    db.close()


def test_text_that_is_not_one_statement_is_run_as_text(tmp_path):
    db = DuckDatabase(":memory:")
    con = db._con
    assert duck._parsed(con, "SELECT 1; SELECT 2") == "SELECT 1; SELECT 2"
    assert duck._parsed(con, "SELEC oops ?") == "SELEC oops ?"
    with pytest.raises(StoreError, match="syntax error"):
        db.scalar("SELEC oops ?", [1])  # DuckDB's own parse error, as before
    assert db.scalar("SELECT 1 + ?", [1]) == 2


def test_the_parsed_cache_is_bounded(monkeypatch):
    db = DuckDatabase(":memory:")
    monkeypatch.setattr(duck, "PARSED_CACHE_SIZE", 5)
    monkeypatch.setattr(duck, "_PARSED", {})
    for i in range(12):
        assert db.scalar(f"SELECT {i} + ?", [1]) == i + 1
        assert len(duck._PARSED) <= 5


def test_the_first_turn_uses_the_row_and_card_start_read(duck_db, monkeypatch):
    """``start`` reads the new session back; the first ``send`` loads the session from that row and
    the card start pinned, and reads no turns while the checkpoint says none was taken."""
    calls: list[str] = []
    for name in ("get_session", "get_persona_card_by_id", "list_turns"):
        real = getattr(app_repo, name)

        def counting(*a, _real=real, _name=name, **kw):
            calls.append(_name)
            return _real(*a, **kw)

        monkeypatch.setattr(app_repo, name, counting)
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P4", learner_id="kept").session_id
    assert calls == ["get_session"]
    out = svc.send(sid, "안녕하세요, 오늘 어떤 이야기를 하고 싶어요?")
    assert out is not None and out.client_text
    assert calls == ["get_session"]  # nothing read again for the first turn
    # a service bound to another learner still refuses the kept row's session
    other = SessionService(duck_db, engine=ScriptedEngine(seed=7), learner_id="owner")
    sid2 = SessionService(duck_db, engine=ScriptedEngine(seed=7)).start("P4", learner_id="someone").session_id
    other._live.keep_row(sid2, app_repo.get_session(duck_db, sid2), {})
    with pytest.raises(PermissionDenied):
        other.send(sid2, "안녕하세요")


def test_turns_taken_elsewhere_after_start_are_read_at_the_first_load(duck_db):
    """Started here, two turns sent by another service (another process, say), then a turn here:
    the checkpoint has moved, so the first load reads the turns and the history is whole."""
    here = SessionService(duck_db, engine=ScriptedEngine(seed=7))
    sid = here.start("P4", learner_id="two").session_id
    there = SessionService(duck_db, engine=ScriptedEngine(seed=7))
    there.send(sid, "요즘 많이 힘드셨겠어요.")
    there.send(sid, "잠은 잘 자요?")
    out = here.send(sid, "몇 학년이에요?")
    assert out is not None and out.counselor_seq == 5
    assert len(here._live.get(sid).history) == 6
    assert [t["seq"] for t in app_repo.list_turns(duck_db, sid)] == list(range(1, 7))


def test_kept_rows_are_bounded_and_taken_once():
    cache = LiveCache()
    for i in range(LiveCache.KEPT_ROWS + 10):
        cache.keep_row(f"s{i}", {"session_id": f"s{i}"}, {"code": "P4"})
    assert cache.take_row("s0") is None  # the oldest were dropped
    last = f"s{LiveCache.KEPT_ROWS + 9}"
    assert cache.take_row(last) == ({"session_id": last}, {"code": "P4"})
    assert cache.take_row(last) is None
    cache.keep_row("x", {"session_id": "x"}, {})
    cache.forget("x")
    assert cache.take_row("x") is None


def test_deep_evaluation_and_review_status_commit_together(duck_db, monkeypatch):
    """A failure storing the review status leaves no half: no evaluation row and a degraded review."""
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P4", learner_id="deep").session_id
    svc.send(sid, "요즘 많이 힘드셨겠어요.")
    real = app_repo.set_review_status

    def flaky(db, session_id, review_status):
        if review_status == "ready":
            raise StoreError("simulated failure after the evaluation row")
        return real(db, session_id, review_status)

    monkeypatch.setattr(app_repo, "set_review_status", flaky)
    review = svc.end(sid)
    assert review is not None and review.status == "degraded"
    assert app_repo.get_session_evaluation(duck_db, sid) is None  # rolled back with the status
    monkeypatch.undo()
    sid2 = svc.start("P4", learner_id="deep").session_id
    svc.send(sid2, "요즘 많이 힘드셨겠어요.")
    ok = svc.end(sid2)
    assert ok is not None and ok.status == "ready"
    assert app_repo.get_session_evaluation(duck_db, sid2)["status"] == "ok"
