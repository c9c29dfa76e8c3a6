"""Session numbers of one case: two sessions open at once get distinct numbers on both backends."""

from __future__ import annotations

import threading

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo

LINES = ["안녕하세요, 오늘 어떤 이야기를 하고 싶어요?", "요즘 많이 힘드셨겠어요.", "그때 어떤 마음이 들었어요?"]


@pytest.mark.parametrize("first_to_end", ["earlier", "later"])
def test_two_open_sessions_of_one_case_end_in_either_order(db, first_to_end):
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    a = svc.start("P1", learner_id="twice")
    b = svc.start("P1", learner_id="twice")
    assert (a.session_no, b.session_no) == (1, 2) and a.case_id == b.case_id
    for line in LINES:
        svc.send(a.session_id, line)
        svc.send(b.session_id, line)
    order = (a, b) if first_to_end == "earlier" else (b, a)
    for info in order:
        svc.end(info.session_id, run_deep=False)
    summaries = {info.session_id: app_repo.get_session_summary(db, info.session_id) for info in (a, b)}
    assert {s["session_no"] for s in summaries.values()} == {1, 2}
    case = app_repo.get_case_profile(db, "P1", "twice")
    assert case["last_session_no"] == 2  # never goes back when the earlier session ends last
    third = svc.start("P1", learner_id="twice")
    assert third.session_no == 3


@pytest.mark.postgres
def test_concurrent_claims_on_postgres_wait_and_get_the_next_number(pg_db):
    case = app_repo.ensure_case_profile(pg_db, "P1", "race")
    other = pg_db.clone()
    claimed_first, results = threading.Event(), {}

    def second_opener():
        claimed_first.wait(10)
        with other.transaction():
            results["b"] = app_repo.claim_session_no(other, case["case_id"])

    worker = threading.Thread(target=second_opener)
    worker.start()
    try:
        with pg_db.transaction():
            results["a"] = app_repo.claim_session_no(pg_db, case["case_id"])
            claimed_first.set()
            worker.join(0.5)
            assert worker.is_alive()  # the second opener waits on the case row's lock
            app_repo.insert_session(pg_db, session_id="s-a", case_id=case["case_id"], learner_id="race",
                                    persona_code="P1", mode="live", goal_stages=["라포"],
                                    session_no=results["a"], status="active",
                                    started_at=app_repo._now(), review_status="none", meta={})
        worker.join(10)
    finally:
        other.close()
    assert results == {"a": 1, "b": 2}


def test_concurrent_claim_on_duckdb_loses_the_race_with_a_retryable_conflict(duck_db):
    """Two connections of one process: the second claim conflicts on the case row instead of
    reading the same maximum (two processes never share a DuckDB transaction: the file hand-over)."""
    from vignette_lab.errors import WriteConflict

    case = app_repo.ensure_case_profile(duck_db, "P1", "race")
    other = duck_db.clone()
    try:
        with duck_db.transaction():
            assert app_repo.claim_session_no(duck_db, case["case_id"]) == 1
            with pytest.raises(WriteConflict) as err:
                with other.transaction():
                    app_repo.claim_session_no(other, case["case_id"])
            assert err.value.retryable
    finally:
        other.close()


def test_sessions_started_from_two_threads_at_once_get_distinct_numbers(db):
    first = SessionService(db, engine=ScriptedEngine(seed=7)).start("P1", learner_id="threads")
    handles = [db.clone(), db.clone()]
    barrier, numbers, errors = threading.Barrier(2), [], []

    def opener(handle):
        svc = SessionService(handle, engine=ScriptedEngine(seed=7))
        barrier.wait(10)
        try:
            for _ in range(3):
                numbers.append(svc.start("P1", learner_id="threads").session_no)
        except Exception as exc:  # reported below with the numbers seen
            errors.append(repr(exc))

    threads = [threading.Thread(target=opener, args=(h,)) for h in handles]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        for h in handles:
            h.close()
    assert not errors and first.session_no == 1
    assert sorted(numbers) == [2, 3, 4, 5, 6, 7], numbers
