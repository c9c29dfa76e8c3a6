"""Storage layer on both backends: schema, transactions, types, constraints, RLS, locking."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from vignette_lab.config import redact_url, resolve_db_url
from vignette_lab.errors import ConfigError, InputError, PermissionDenied, StoreError
from vignette_lab.store import connect, get_schema_meta, init_db, parse_db_url
from vignette_lab.store.audit_repo import (log_audit, log_llm_call, log_persona_drift, read_audit_log,
                                           read_llm_calls, read_persona_drift)
from vignette_lab.store.catalog import (ensure_user, get_persona_row, get_user, list_persona_rows,
                                        load_catalog, store_persona)
from vignette_lab.store.pg import to_pyformat

ROOT = Path(__file__).resolve().parent.parent
TABLES = ("app.persona_card", "app.app_user", "app.taxonomy_version", "app.schema_meta")


def _counts(db) -> dict[str, int]:
    return {t: db.scalar(f"SELECT count(*) FROM {t}") for t in TABLES}


def _session(db, learner="local", cohort="c1", sid=None) -> str:
    sid = sid or str(uuid.uuid4())
    db.execute("INSERT INTO app.sessions (session_id, learner_id, cohort, persona_code, goal_stages, meta) "
               f"VALUES (?, ?, ?, 'P1', {db.dialect.json_param()}, ?)",
               [sid, learner, cohort, json.dumps(["라포", "탐색"], ensure_ascii=False), {"seed": 7, "메모": "가"}])
    return sid


def _turn(db, sid, seq, *, visible_to=None, sensitivity=0, speaker="client") -> str:
    tid = str(uuid.uuid4())
    if visible_to is None:
        db.execute("INSERT INTO app.turns (turn_id, session_id, seq, speaker, text, text_masked, sensitivity) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)", [tid, sid, seq, speaker, "안녕", "안녕", sensitivity])
    else:
        db.execute("INSERT INTO app.turns (turn_id, session_id, seq, speaker, text, text_masked, visible_to, "
                   "sensitivity) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   [tid, sid, seq, speaker, "비밀", "비밀", visible_to, sensitivity])
    return tid


# --------------------------------------------------------------------------- schema
def test_schema_is_idempotent_and_records_meta(db):
    before = _counts(db)
    assert before["app.persona_card"] >= 4 and before["app.app_user"] >= 1
    meta = init_db(db)
    load_catalog(db)
    assert _counts(db) == before
    assert meta["schema_version"] == "1" and meta["embedding_dim"] == "384"
    assert meta["backend"] == db.backend


def test_reopening_without_a_dimension_keeps_the_stored_one(tmp_path):
    # A database initialised for BGE-M3 (1024-d) must open again from feature commands that
    # call init_db(db) without a dimension.
    db = connect(str(tmp_path / "bge.duckdb"))
    init_db(db, embedding_dim=1024)
    assert init_db(db)["embedding_dim"] == "1024"
    with pytest.raises(ConfigError, match="re-index"):
        init_db(db, embedding_dim=384)


def test_changing_embedding_dim_is_refused_with_reindex_hint(db):
    with pytest.raises(ConfigError, match="kb sync --reindex"):
        init_db(db, embedding_dim=1024)
    assert get_schema_meta(db)["embedding_dim"] == "384"


def test_init_rejects_bad_dim():
    db = connect(":memory:")
    with pytest.raises(InputError, match="embedding_dim"):
        init_db(db, embedding_dim=0)


# --------------------------------------------------------------------------- transactions
def test_transaction_rollback_leaves_nothing(db):
    with pytest.raises(RuntimeError, match="boom"):
        with db.transaction():
            sid = _session(db)
            with db.transaction():  # nested joins the outer one
                _turn(db, sid, 1)
            raise RuntimeError("boom")
    assert db.scalar("SELECT count(*) FROM app.sessions") == 0
    assert db.scalar("SELECT count(*) FROM app.turns") == 0


def test_inner_failure_rolls_back_outer_work(db):
    with pytest.raises(StoreError):
        with db.transaction():
            sid = _session(db)
            _turn(db, sid, 1)
            with db.transaction():
                _turn(db, sid, 1)  # duplicate (session_id, seq)
    assert db.scalar("SELECT count(*) FROM app.sessions") == 0


def test_commit_keeps_everything(db):
    with db.transaction():
        sid = _session(db)
        _turn(db, sid, 1)
        _turn(db, sid, 2, speaker="counselor")
    assert db.scalar("SELECT count(*) FROM app.turns WHERE session_id = ?", [sid]) == 2


def test_executemany_is_all_or_nothing(db):
    sid = _session(db)
    rows = [[str(uuid.uuid4()), sid, i, "client", "t", "t"] for i in (1, 2, 2)]
    with pytest.raises(StoreError):
        db.executemany("INSERT INTO app.turns (turn_id, session_id, seq, speaker, text, text_masked) "
                       "VALUES (?, ?, ?, ?, ?, ?)", rows)
    assert db.scalar("SELECT count(*) FROM app.turns") == 0


# --------------------------------------------------------------------------- types
def test_json_and_array_round_trip(db):
    sid = _session(db)
    row = db.fetchone("SELECT goal_stages, meta FROM app.sessions WHERE session_id = ?", [sid])
    assert row["goal_stages"] == ["라포", "탐색"]
    assert row["meta"] == {"seed": 7, "메모": "가"}
    tid = _turn(db, sid, 1, visible_to=["evaluator", "client"], sensitivity=1)
    turn = db.fetchone("SELECT visible_to, sensitivity, is_pinned FROM app.turns WHERE turn_id = ?", [tid])
    assert turn == {"visible_to": ["evaluator", "client"], "sensitivity": 1, "is_pinned": False}
    tid2 = _turn(db, sid, 2)
    default = db.fetchone("SELECT visible_to FROM app.turns WHERE turn_id = ?", [tid2])
    assert default["visible_to"] == ["client", "counselor", "evaluator"]
    db.execute("INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id, scores) "
               f"VALUES (?, ?, ?, {db.dialect.json_param()})", ["e1", tid, sid, json.dumps({"empathy": 3.5})])
    ev = db.fetchone("SELECT techniques, visible_to, sensitivity, scores FROM app.turn_evaluation")
    assert ev == {"techniques": [], "visible_to": ["evaluator"], "sensitivity": 2, "scores": {"empathy": 3.5}}
    hits = db.fetchall(f"SELECT turn_id FROM app.turns WHERE {db.dialect.contains('visible_to')}", ["evaluator"])
    assert {h["turn_id"] for h in hits} == {tid, tid2}
    assert db.scalar("SELECT 'a%b' || ?", ["?"]) == "a%b?"


def test_session_state_defaults_match_seed(db):
    sid = _session(db)
    db.execute("INSERT INTO app.session_state (session_id) VALUES (?)", [sid])
    st = db.fetchone("SELECT * FROM app.session_state")
    assert st["stage"] == "라포" and st["ideation_stage"] == 1
    assert st["affect_state"] == {} and st["short_buffer"] == []
    assert st["effective_openness"] == pytest.approx(0.15) and st["resistance"] == pytest.approx(0.65)


@pytest.mark.parametrize("column,value", [("effective_openness", 1.5), ("ideation_stage", 6),
                                          ("resistance", -0.1), ("stage", "종결")])
def test_state_check_constraints_are_enforced(db, column, value):
    sid = _session(db)
    with pytest.raises(StoreError, match="(?i)check"):
        db.execute(f"INSERT INTO app.session_state (session_id, {column}) VALUES (?, ?)", [sid, value])


def test_bad_speaker_and_duplicate_seq_are_rejected(db):
    sid = _session(db)
    with pytest.raises(StoreError, match="(?i)check"):
        _turn(db, sid, 1, speaker="supervisor")
    _turn(db, sid, 1)
    with pytest.raises(StoreError, match="(?i)(unique|duplicate)"):
        _turn(db, sid, 1)


# --------------------------------------------------------------------------- access context
def test_duckdb_records_view_and_principal(duck_db):
    sid = _session(duck_db)
    _turn(duck_db, sid, 1)
    _turn(duck_db, sid, 2, visible_to=["evaluator"], sensitivity=2)
    assert duck_db.visibility_clause() == ("TRUE", [])
    with duck_db.ai_view("client"):
        assert duck_db.current_view == "client"
        clause, params = duck_db.visibility_clause("t")
        rows = duck_db.fetchall(f"SELECT seq FROM app.turns t WHERE {clause}", params)
        assert [r["seq"] for r in rows] == [1]
        with duck_db.as_principal("trainee", "local", "c1"):
            assert duck_db.current_principal == ("learner", "local", "c1")
    assert duck_db.current_view is None and duck_db.current_principal is None
    with pytest.raises(InputError, match="AI view"):
        with duck_db.ai_view("supervisor"):
            pass


@pytest.mark.postgres
def test_rls_t1_client_view_never_sees_evaluator_rows(pg_db):
    db = pg_db
    sid = _session(db)
    _turn(db, sid, 1)
    secret = _turn(db, sid, 2, visible_to=["evaluator"], sensitivity=2)
    db.execute("INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id) VALUES ('e1', ?, ?)", [secret, sid])
    with db.ai_view("client"):
        assert db.scalar("SELECT current_user") == "vignette_client"
        # no WHERE clause at all: RLS alone removes the rows
        assert db.scalar("SELECT count(*) FROM app.turns WHERE turn_id = ?", [secret]) == 0
        assert db.scalar("SELECT count(*) FROM app.turns") == 1
    with pytest.raises(PermissionDenied):  # evaluator-only table: no privilege at all
        with db.ai_view("client"):
            db.scalar("SELECT count(*) FROM app.turn_evaluation")
    with db.ai_view("counselor"):
        assert db.scalar("SELECT count(*) FROM app.turns") == 1
    with db.ai_view("evaluator"):
        assert db.scalar("SELECT count(*) FROM app.turns WHERE turn_id = ?", [secret]) == 1
        assert db.scalar("SELECT count(*) FROM app.turn_evaluation") == 1
    # nothing leaks after the block
    assert db.scalar("SELECT current_setting('app.current_ai_view', true)") in ("", None)
    assert not db.scalar("SELECT current_user").startswith("vignette_")
    assert db.scalar("SELECT count(*) FROM app.turns") == 2


@pytest.mark.postgres
def test_rls_client_view_cannot_write_evaluator_rows(pg_db):
    sid = _session(pg_db)
    tid = _turn(pg_db, sid, 1)
    with pytest.raises(PermissionDenied, match="(?i)(row-level security|permission denied)"):
        with pg_db.ai_view("client"):
            pg_db.execute("INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id) VALUES ('e', ?, ?)",
                          [tid, sid])
    assert pg_db.scalar("SELECT count(*) FROM app.turn_evaluation") == 0


@pytest.mark.postgres
def test_nested_view_restores_outer_context(pg_db):
    sid = _session(pg_db)
    _turn(pg_db, sid, 1, visible_to=["evaluator"], sensitivity=2)
    with pg_db.transaction():
        with pg_db.ai_view("evaluator"):
            with pg_db.ai_view("client"):
                assert pg_db.scalar("SELECT count(*) FROM app.turns") == 0
            assert pg_db.scalar("SELECT count(*) FROM app.turns") == 1
        assert pg_db.scalar("SELECT count(*) FROM pg_temp.vl_ctx") == 0
        assert not pg_db.scalar("SELECT current_user").startswith("vignette_")


@pytest.mark.postgres
def test_rls_human_layer(pg_db):
    db = pg_db
    ensure_user(db, "kim", "learner", cohort="c1")
    ensure_user(db, "lee", "learner", cohort="c2")
    s_kim, s_lee = _session(db, "kim", "c1"), _session(db, "lee", "c2")
    t_kim = _turn(db, s_kim, 1)
    _turn(db, s_lee, 1)
    db.execute("INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id) VALUES ('e1', ?, ?)", [t_kim, s_kim])
    db.execute("INSERT INTO app.learner_profile (learner_id) VALUES ('kim'), ('lee')")
    with db.as_principal("learner", "kim", "c1"):
        assert [r["session_id"] for r in db.fetchall("SELECT session_id FROM app.sessions")] == [s_kim]
        assert [r["session_id"] for r in db.fetchall("SELECT session_id FROM app.turns")] == [s_kim]
        assert [r["learner_id"] for r in db.fetchall("SELECT learner_id FROM app.learner_profile")] == ["kim"]
        # a learner cannot plant rows in another learner's session
        with pytest.raises(PermissionDenied):
            _turn(db, s_lee, 2)
    with pytest.raises(PermissionDenied):  # evaluator output is write-only for learners
        with db.as_principal("learner", "kim", "c1"):
            db.scalar("SELECT count(*) FROM app.turn_evaluation")
    with db.as_principal("faculty", "prof", "c2"):
        assert [r["session_id"] for r in db.fetchall("SELECT session_id FROM app.sessions")] == [s_lee]
        assert [r["learner_id"] for r in db.fetchall("SELECT learner_id FROM app.learner_profile")] == ["lee"]
    with db.as_principal("researcher", "r1"):
        assert db.scalar("SELECT count(*) FROM app.turns") == 2
        assert db.scalar("SELECT count(*) FROM app.turn_evaluation") == 1
    with pytest.raises(PermissionDenied):  # client AI: no privilege on learner_profile
        with db.as_principal("learner", "kim"), db.ai_view("client"):
            db.scalar("SELECT count(*) FROM app.learner_profile")


@pytest.mark.postgres
def test_append_only_on_postgres(pg_db):
    sid = _session(pg_db)
    tid = _turn(pg_db, sid, 1)
    with pytest.raises(StoreError, match="append-only"):
        pg_db.execute("UPDATE app.turns SET text_masked = 'x' WHERE turn_id = ?", [tid])
    with pytest.raises(StoreError, match="append-only"):
        pg_db.execute("DELETE FROM app.turns WHERE turn_id = ?", [tid])
    log_audit(pg_db, "local", "test.event", "t")
    with pytest.raises(StoreError, match="append-only"):
        pg_db.execute("DELETE FROM audit.audit_log")
    assert pg_db.scalar("SELECT text_masked FROM app.turns") == "안녕"


@pytest.mark.postgres
def test_vector_type_registered(pg_db):
    np = pytest.importorskip("numpy")
    pg_db.execute("CREATE TEMP TABLE v (e vector(3))")
    pg_db.execute("INSERT INTO v VALUES (?)", [np.array([1, 0, 0], dtype="float32")])
    got = pg_db.scalar("SELECT e FROM v")
    assert list(got) == [1.0, 0.0, 0.0]


# --------------------------------------------------------------------------- catalog + audit
def test_catalog_loaded_and_card_without_ccd(db):
    codes = [r["code"] for r in list_persona_rows(db)]
    files = sorted(p.stem for p in (ROOT / "datasets" / "personas").glob("P*.json"))
    assert codes == sorted(files, key=lambda c: int(c[1:]))
    row = get_persona_row(db, "P1")
    assert row["version"] >= 1 and isinstance(row["ccd"], dict) and row["ccd"]
    assert "ccd" not in row["card"] and "dsm5_dimensional" not in row["card"]
    assert "ccd" not in list_persona_rows(db)[0]
    assert get_user(db, "local")["role"] == "learner"
    assert db.scalar("SELECT count(*) FROM app.taxonomy_version") == 1


def test_changed_card_without_version_bump_is_refused(db):
    from dataclasses import replace

    from vignette_lab.core.personas import load_personas
    card = load_personas()["P1"]
    assert store_persona(db, card) == "unchanged"
    changed = replace(card, content_hash="0" * 64)
    with pytest.raises(InputError, match="bump 'version'"):
        store_persona(db, changed)
    bumped = replace(card, version=card.version + 1, content_hash="1" * 64)
    assert store_persona(db, bumped) == "inserted"
    assert get_persona_row(db, "P1")["version"] == card.version + 1


def test_audit_repo_round_trip_and_refuses_text(db):
    cid = log_llm_call(db, ai_role="client", provider="scripted", model="m", session_id="s",
                       input_tokens=10, output_tokens=5, latency_ms=1.5, cost_usd=0.001)
    rows = read_llm_calls(db, session_id="s")
    assert [r["call_id"] for r in rows] == [cid] and rows[0]["status"] == "ok"
    for key in ("prompt", "completion", "text", "messages"):
        with pytest.raises(InputError, match="metadata only"):
            log_llm_call(db, ai_role="client", **{key: "내담자 발화"})
    with pytest.raises(InputError, match="unknown"):
        log_llm_call(db, tokens=3)
    cols = {r["column_name"] for r in db.fetchall(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'audit' "
        "AND table_name = 'llm_call_log'")}
    assert not cols & {"prompt", "completion", "text", "messages"}
    log_persona_drift(db, session_id="s", drift_type="ccd_leak", persona_code="P1", severity="block",
                      detail={"pattern": "핵심신념"}, engine="scripted", model="m")
    assert read_persona_drift(db, persona_code="P1")[0]["detail"] == {"pattern": "핵심신념"}
    with pytest.raises(InputError, match="drift_type"):
        log_persona_drift(db, session_id="s", drift_type="vibes")
    log_audit(db, "local", "review.open", "s", {"n": 1})
    assert read_audit_log(db, actor="local")[0]["detail"] == {"n": 1}


# --------------------------------------------------------------------------- URLs
def test_url_forms_and_errors(tmp_path, monkeypatch):
    assert parse_db_url(str(tmp_path / "a.duckdb")) == ("duckdb", str(tmp_path / "a.duckdb"))
    assert parse_db_url(f"duckdb://{tmp_path}/a.duckdb") == ("duckdb", f"{tmp_path}/a.duckdb")
    assert parse_db_url("duckdb::memory:") == ("duckdb", ":memory:")
    assert parse_db_url("postgres://u@h/d")[0] == "postgres"
    with pytest.raises(ConfigError, match=r"mysql://u:\*\*\*@h/d.*accepted forms"):
        connect("mysql://u:pw@h/d")
    with pytest.raises(ConfigError, match="does not exist"):
        connect(str(tmp_path / "missing" / "x.duckdb"))
    monkeypatch.setenv("VIGNETTE_DB", str(tmp_path / "env.duckdb"))
    assert resolve_db_url() == str(tmp_path / "env.duckdb")
    assert resolve_db_url("explicit.duckdb") == "explicit.duckdb"
    monkeypatch.delenv("VIGNETTE_DB")
    assert resolve_db_url() == "vignette.duckdb"
    assert redact_url("postgresql://a:b@h:5/d?password=zz") == "postgresql://a:***@h:5/d?password=***"


def test_unreachable_postgres_is_one_line_config_error():
    with pytest.raises(ConfigError) as info:
        connect("postgresql://ana:s3cret@127.0.0.1:1/vignette", connect_timeout=2)
    msg = str(info.value)
    assert "host=127.0.0.1" in msg and "db=vignette" in msg
    assert "s3cret" not in msg and "\n" not in msg


def test_to_pyformat_skips_quotes_and_escapes_percent():
    sql = "SELECT '?', \"we?ird\", ? -- why?\n, $$a?b%$$, 'it''s ?%', x % 2 /* ? */"
    assert to_pyformat(sql) == ("SELECT '?', \"we?ird\", %s -- why?\n, $$a?b%%$$, 'it''s ?%%', "
                                "x %% 2 /* ? */")


# --------------------------------------------------------------------------- DuckDB locking
_WRITER = textwrap.dedent("""
    import sys, uuid
    sys.path.insert(0, {root!r})
    from vignette_lab.store import connect
    db = connect({path!r}, lock_timeout=60)
    for i in range({n}):
        db.execute("INSERT INTO audit.audit_log (event_id, actor, action) VALUES (?, ?, 'w')",
                   [str(uuid.uuid4()), sys.argv[1]])
    print(db.lock_waits)
""")


@pytest.mark.slow
def test_two_processes_write_the_same_duckdb_file(duck_db, tmp_path):
    path = duck_db.path
    script = tmp_path / "writer.py"
    script.write_text(_WRITER.format(root=str(ROOT), path=path, n=15))
    procs = [subprocess.Popen([sys.executable, str(script), name], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for name in ("a", "b")]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    counts = {r["actor"]: r["n"] for r in duck_db.fetchall(
        "SELECT actor, count(*) AS n FROM audit.audit_log WHERE action = 'w' GROUP BY actor")}
    assert counts == {"a": 15, "b": 15}


_HOLDER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from vignette_lab.store import connect
    db = connect({path!r})
    with db.pinned():
        db.scalar("SELECT 1")
        print("held", flush=True)
        time.sleep({hold})
""")


def test_lock_held_by_other_process_times_out_then_recovers(duck_db, tmp_path):
    path = duck_db.path
    script = tmp_path / "holder.py"
    script.write_text(_HOLDER.format(root=str(ROOT), path=path, hold=2.0))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        impatient = connect(path, lock_timeout=0.3)
        started = time.monotonic()
        with pytest.raises(StoreError, match="another process holds the DuckDB file"):
            impatient.scalar("SELECT 1")
        assert time.monotonic() - started < 2.0
        patient = connect(path, lock_timeout=30)
        assert patient.scalar("SELECT count(*) FROM app.persona_card") >= 4  # waits, then works
        assert patient.lock_waits > 0
    finally:
        proc.wait(timeout=30)


def test_pinned_keeps_one_connection_and_memory_db_persists(duck_db):
    with duck_db.pinned():
        con = duck_db._con
        duck_db.scalar("SELECT 1")
        assert duck_db._con is con
    deadline = time.monotonic() + 5  # released for other processes once idle for `linger` seconds
    while duck_db._con is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert duck_db._con is None
    mem = connect(":memory:")
    mem.execute("CREATE TABLE t (x INTEGER)")
    mem.execute("INSERT INTO t VALUES (1)")
    assert mem.scalar("SELECT count(*) FROM t") == 1
    assert mem.clone().scalar("SELECT count(*) FROM t") == 1


def test_linger_keeps_file_open_briefly_then_releases(duck_db):
    db = connect(duck_db.path, linger=0.2)
    assert db.scalar("SELECT count(*) FROM app.app_user") >= 1
    assert db._con is not None            # kept for the next statement
    db.execute("INSERT INTO audit.audit_log (event_id, actor, action) VALUES ('l1', 'a', 'b')")
    deadline = time.monotonic() + 5
    while db._con is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert db._con is None                # released after being idle
    assert duck_db.scalar("SELECT count(*) FROM audit.audit_log WHERE event_id = 'l1'") == 1
    db.close()


def test_clone_and_threads_share_one_database(db):
    import threading

    sid = _session(db)
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            twin = db.clone()
            for i in range(5):
                _turn(twin, sid, offset + i)
            twin.close()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k * 10,)) for k in range(2)]
    for t in threads:
        t.start()
    for i in range(5):  # the shared object is used concurrently from this thread
        _turn(db, sid, 100 + i)
    for t in threads:
        t.join()
    assert not errors
    assert db.scalar("SELECT count(*) FROM app.turns WHERE session_id = ?", [sid]) == 15


@pytest.mark.postgres
def test_rls_is_forced_on_every_listed_table(pg_db):
    from vignette_lab.store import apply_rls

    assert apply_rls(pg_db) is True  # re-runnable
    rows = pg_db.fetchall(
        "SELECT n.nspname || '.' || c.relname AS t, c.relrowsecurity AS rls, c.relforcerowsecurity AS force "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' "
        "AND c.relrowsecurity")
    got = {r["t"] for r in rows if r["force"]}
    expected = {"app.turns", "app.turn_evaluation", "app.session_evaluation", "app.pinned_fact", "app.sessions",
                "app.session_state", "app.learner_profile"}
    assert expected <= got
    has_chunk = pg_db.scalar("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'kb' "
                             "AND table_name = 'chunk' AND column_name = 'visible_to'")
    assert ("kb.chunk" in got) == bool(has_chunk)
