"""One current annotation per (round, item, annotator), enforced by the database (issue 14 item 5).

Real DuckDB files and a real pgserver PostgreSQL (the ``db`` fixture runs both). Concurrent
saves come from two connections in two threads: ``clone()`` on DuckDB (a second cursor on the
same file, MVCC between them) and a second ``connect(url)`` on Postgres.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from datetime import datetime, timezone

import pytest

from test_pipeline_helpers import dataset_with_items
from vignette_lab.errors import PermissionDenied, StoreError, WriteConflict
from vignette_lab.pipeline.gate import agreement_results
from vignette_lab.pipeline.review import ReviewQueue, assign_reviewers
from vignette_lab.pipeline.rounds import (
    HumanReview,
    create_round,
    effective_annotations,
    write_annotation,
)
from vignette_lab.store import connect


def _twin(db):
    """A second connection to the same database (for another thread)."""
    return db.clone() if db.backend == "duckdb" else connect(db.url)


def _round(db, *, sessions=2, counselor_turns=3):
    did = dataset_with_items(db, sessions=sessions, counselor_turns=counselor_turns)
    hr = create_round(db, did, "human_review")
    assign_reviewers(db, hr, ["kim", "lee"], overlap=1.0)  # every item to both reviewers
    items = [r["item_id"] for r in db.fetchall(
        "SELECT item_id FROM ds.reviewer_assignment WHERE round_id = ? AND reviewer_id = 'kim'"
        " ORDER BY position", [hr])]
    return hr, items


def _in_threads(db, jobs):
    """Run ``job(connection)`` for each job at once (a barrier lines them up); return errors."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(jobs))
    twins = [_twin(db) for _ in jobs]

    def run(job, con):
        try:
            barrier.wait()
            job(con)
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(job, con)) for job, con in zip(jobs, twins)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for con in twins:
        con.close()
    return errors


def _raw_row(round_id, item_id, annotator, *, version, supersedes=None):
    return [str(uuid.uuid4()), round_id, item_id, annotator, version, supersedes,
            datetime.now(timezone.utc)]


_RAW = ("INSERT INTO ds.annotation (annotation_id, round_id, item_id, annotator_id, annotator_kind,"
        " status, techniques, client_state, version, supersedes, created_at)"
        " VALUES (?, ?, ?, ?, 'human', 'submitted', ['open_question'], [], ?, ?, ?)")


def _raw(db):
    return _RAW if db.backend == "duckdb" else _RAW.replace("['open_question'], []",
                                                           "ARRAY['open_question'], ARRAY[]::text[]")


def test_two_tabs_saving_the_same_items_at_once_never_fork(db):
    hr, items = _round(db)

    def tab(con, labels):
        q = ReviewQueue(con, hr, "kim")
        for item_id in items:
            q.submit(item_id, labels, [], "pos", None, {"empathy": 3})

    errors = _in_threads(db, [lambda c: tab(c, ["open_question"]), lambda c: tab(c, ["reflection_feelings"])])
    assert errors == []
    rows = db.fetchall("SELECT item_id, version, supersedes, annotation_id FROM ds.annotation"
                       " WHERE round_id = ? AND annotator_id = 'kim'", [hr])
    # both saves of every item were kept (the loser retried and superseded the winner) ...
    assert Counter(r["item_id"] for r in rows) == {i: 2 for i in items}
    by_id = {r["annotation_id"]: r for r in rows}
    for r in rows:
        if r["version"] == 2:
            assert by_id[r["supersedes"]]["version"] == 1 and by_id[r["supersedes"]]["item_id"] == r["item_id"]
        else:
            assert r["version"] == 1 and r["supersedes"] is None
    # ... and exactly one of them is current per item
    current = [a for a in effective_annotations(db, hr) if a["annotator_id"] == "kim"]
    assert sorted(a["item_id"] for a in current) == sorted(items)


def test_the_gate_counts_each_reviewer_once_after_racing_saves(db):
    hr, items = _round(db)
    tabs = [lambda c: [ReviewQueue(c, hr, "kim").submit(i, ["open_question"], [], "pos", None,
                                                          {"empathy": 3}) for i in items]] * 2
    lee = [lambda c: [ReviewQueue(c, hr, "lee").submit(i, ["open_question"], [], "warn", None,
                                                         {"empathy": 4}) for i in items]]
    assert _in_threads(db, tabs + lee) == []
    per_item = Counter((a["item_id"], a["annotator_id"]) for a in effective_annotations(db, hr))
    assert set(per_item.values()) == {1} and len(per_item) == 2 * len(items)
    res = agreement_results(db, hr, n_resamples=50)
    assert res["raters_per_item"] == [2] and res["n_overlap_items"] == len(items)
    assert res["method"] == "cohen"


def test_the_database_refuses_a_second_row_of_the_same_version(db):
    hr, items = _round(db, sessions=1, counselor_turns=2)
    sql = _raw(db)

    def insert(con):
        with con.transaction():
            con.execute(sql, _raw_row(hr, items[0], "kim", version=1))

    errors = _in_threads(db, [insert, insert])
    # whatever the interleaving (both open, or one after the other), exactly one row is kept
    assert len(errors) == 1 and isinstance(errors[0], WriteConflict), errors
    assert db.scalar("SELECT count(*) FROM ds.annotation WHERE round_id = ?", [hr]) == 1
    with pytest.raises(StoreError):
        db.execute(sql, _raw_row(hr, items[0], "kim", version=0))  # CHECK (version >= 1)


def test_nobody_supersedes_another_reviewers_row(db):
    hr, items = _round(db, sessions=1, counselor_turns=2)
    kim = ReviewQueue(db, hr, "kim").submit(items[0], ["open_question"], [], "pos")
    before = db.scalar("SELECT count(*) FROM ds.annotation")
    with pytest.raises(PermissionDenied, match="다른 검토자\\(kim\\)의 주석은 대체할 수 없습니다"):
        write_annotation(db, HumanReview(round_id=hr, item_id=items[0], annotator_id="lee",
                                         labels={"techniques": ["reflection_feelings"], "client_state": []},
                                         supersedes=kim))
    assert db.scalar("SELECT count(*) FROM ds.annotation") == before
    # a row written past the library still cannot take kim's label away: the current row of
    # a triple is its own highest version, whatever another row's supersedes says
    try:
        db.execute(_raw(db), _raw_row(hr, items[0], "lee", version=1, supersedes=kim))
    except StoreError:
        assert db.backend == "postgres"  # the composite foreign key refuses it outright
    else:
        assert db.backend == "duckdb"
    current = {(a["item_id"], a["annotator_id"]): a["annotation_id"] for a in effective_annotations(db, hr)}
    assert current[(items[0], "kim")] == kim


def test_a_stale_supersede_is_refused_with_a_korean_message(db):
    hr, items = _round(db, sessions=1, counselor_turns=2)
    q = ReviewQueue(db, hr, "kim")
    first = q.submit(items[0], ["open_question"], [], "pos")
    q.submit(items[0], ["reflection_feelings"], [], "pos")  # another tab saved after `first` was loaded
    before = db.scalar("SELECT count(*) FROM ds.annotation")
    with pytest.raises(WriteConflict, match="다른 창에서 저장되었습니다") as info:
        write_annotation(db, HumanReview(round_id=hr, item_id=items[0], annotator_id="kim",
                                         labels={"techniques": ["validation"], "client_state": []},
                                         supersedes=first))
    assert not info.value.retryable and "\n" not in str(info.value)
    assert db.scalar("SELECT count(*) FROM ds.annotation") == before


def test_a_save_that_keeps_losing_is_refused_not_forked(duck_db, monkeypatch):
    from vignette_lab.store import ds_repo

    hr, items = _round(duck_db, sessions=1, counselor_turns=2)
    real = ds_repo.insert_annotations

    def always_lose(db, rows):
        real(db, rows)  # writes, then another connection "wins": the write is rolled back
        raise WriteConflict("duckdb: duplicate key (simulated lost race)")

    def in_tx(db, rows):
        with db.transaction():
            always_lose(db, rows)

    monkeypatch.setattr(ds_repo, "insert_annotations", in_tx)
    with pytest.raises(WriteConflict, match="동시에 저장되어 주석을 저장하지 못했습니다"):
        ReviewQueue(duck_db, hr, "kim").submit(items[0], ["open_question"], [], "pos")
    assert duck_db.scalar("SELECT count(*) FROM ds.annotation WHERE round_id = ?", [hr]) == 0


def test_old_rows_get_versions_when_the_schema_is_upgraded(tmp_path):
    from vignette_lab.store import init_db

    db = connect(f"duckdb:///{tmp_path / 'old.duckdb'}")
    # ds.annotation as it was before versions, with one reviewer's two saves of an item
    db.execute("CREATE SCHEMA ds; CREATE TABLE ds.annotation (annotation_id TEXT PRIMARY KEY,"
               " round_id TEXT NOT NULL, item_id TEXT NOT NULL, annotator_id TEXT NOT NULL,"
               " annotator_kind TEXT NOT NULL, status TEXT NOT NULL, techniques TEXT[] NOT NULL,"
               " client_state TEXT[] NOT NULL, appropriateness TEXT, intent_deviation JSON,"
               " scores JSON, rationale TEXT, time_spent_s DOUBLE, labels JSON, supersedes TEXT,"
               " created_at TIMESTAMPTZ NOT NULL)")
    for n, (tech, sup) in enumerate([("open_question", None), ("reflection_feelings", "a1")], 1):
        db.execute("INSERT INTO ds.annotation (annotation_id, round_id, item_id, annotator_id,"
                   " annotator_kind, status, techniques, client_state, supersedes, created_at)"
                   " VALUES (?, 'r', 'i', 'kim', 'human', 'submitted', ?, [], ?, ?)",
                   [f"a{n}", [tech], sup, datetime(2026, 1, n, tzinfo=timezone.utc)])
    init_db(db)
    got = db.fetchall("SELECT annotation_id, version FROM ds.annotation ORDER BY version")
    assert [(r["annotation_id"], r["version"]) for r in got] == [("a1", 1), ("a2", 2)]
    assert [a["annotation_id"] for a in effective_annotations(db, "r")] == ["a2"]
    with pytest.raises(WriteConflict):
        db.execute(_RAW, _raw_row("r", "i", "kim", version=2))
    db.close()
