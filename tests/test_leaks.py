"""Leak tests T1 and T4 of seed 004 §4.4 plus the issue-14 probes, on both backends.

Every assertion runs through the repository gateway (``store.gateway`` / ``store.app_repo``)
on DuckDB and PostgreSQL alike; the ``postgres``-only tests at the end check that the
database itself refuses the same reads with raw SQL (per-view roles, column grants, RLS),
and that ``set_config(...)`` inside a block cannot widen it. T2 (no CCD loader on the client
branch) and T3 (CCD-meta regex gate) do not touch the database: ``test_session_layers.py``
and ``test_drift.py``.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from vignette_lab.app.auth import User, require_session_access
from vignette_lab.errors import PermissionDenied
from vignette_lab.store import app_repo
from vignette_lab.store.audit_repo import log_audit
from vignette_lab.store.catalog import ensure_user
from vignette_lab.store.gateway import read, read_one

EVAL_ONLY = ("app.turn_evaluation", "app.session_evaluation", "app.learner_profile", "app.live_coach_events",
             "app.safety_events", "app.taxonomy_version", "app.pinned_fact_history", "audit.audit_log",
             "audit.llm_call_log", "ds.annotation")


def _vec(db, dim: int):
    v = np.zeros(dim, dtype=np.float32)
    v[0] = 1.0
    return v if db.backend == "postgres" else v.tolist()


@pytest.fixture
def world(db):
    """Two learners in two cohorts, each with a case, a session, turns and derived memory."""
    ensure_user(db, "kim", "learner", cohort="c1")
    ensure_user(db, "lee", "learner", cohort="c2")
    dim = int(db.scalar("SELECT value FROM app.schema_meta WHERE key = 'embedding_dim'"))
    out = {}
    for learner, cohort in (("kim", "c1"), ("lee", "c2")):
        case = app_repo.ensure_case_profile(db, "P1", learner)
        db.execute("UPDATE app.case_profile SET ccd_estimate = " + db.dialect.json_param()
                   + " WHERE case_id = ?", ['{"core_belief": "무가치"}', case["case_id"]])
        sid = str(uuid.uuid4())
        app_repo.insert_session(db, session_id=sid, case_id=case["case_id"], learner_id=learner, cohort=cohort,
                                persona_code="P1")
        t1 = app_repo.insert_turn(db, session_id=sid, case_id=case["case_id"], seq=1, speaker="counselor",
                                  text_masked="안녕하세요", visible_to=["client", "counselor", "evaluator"])
        t2 = app_repo.insert_turn(db, session_id=sid, case_id=case["case_id"], seq=2, speaker="client",
                                  text_masked="평가자 전용", visible_to=["evaluator"], sensitivity=2)
        db.execute("INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id, scores) VALUES (?, ?, ?, "
                   + db.dialect.json_param() + ")", [str(uuid.uuid4()), t1, sid, '{"empathy": 3}'])
        app_repo.upsert_session_summary(db, sid, case_id=case["case_id"], session_no=1, end_state={"stage": "탐색"},
                                        rapport_delta=0.1, digest=f"{learner} 요약", open_threads=["가족"],
                                        homework=[], compressed_by="test")
        app_repo.insert_coach_event(db, session_id=sid, turn_seq=1, event_type="use", credit_delta=-1,
                                    credit_balance=2, reason="코치", payload={"card": "감정 반영"})
        db.execute("INSERT INTO app.learner_profile (learner_id) VALUES (?)", [learner])
        db.execute("INSERT INTO app.turn_embedding (turn_id, case_id, learner_id, session_id, seq, text_masked, "
                   "dense, embedder) VALUES (?, ?, ?, ?, 1, '안녕하세요', ?, 'test')",
                   [t1, case["case_id"], learner, sid, _vec(db, dim)])
        out[learner] = {"sid": sid, "case": case["case_id"], "t1": t1, "t2": t2}
    log_audit(db, "kim", "test.event", out["kim"]["sid"])
    return out


# --------------------------------------------------------------------------- T1: AI views
def test_t1_client_view_sees_no_evaluator_rows(db, world):
    sid = world["kim"]["sid"]
    with db.ai_view("client"):
        assert [t["seq"] for t in app_repo.list_turns(db, sid)] == [1]
        assert read(db, "app.turns", where="t.turn_id = ?", params=[world["kim"]["t2"]]) == []
    with db.ai_view("counselor"):
        assert [t["seq"] for t in app_repo.list_turns(db, sid)] == [1]
    with db.ai_view("evaluator"):
        assert [t["seq"] for t in app_repo.list_turns(db, sid)] == [1, 2]
        assert len(app_repo.list_turn_evaluations(db, sid)) == 1
    assert [t["seq"] for t in app_repo.list_turns(db, sid)] == [1, 2]  # nothing survives the block


@pytest.mark.parametrize("table", EVAL_ONLY)
def test_t1_client_has_no_privilege_on_evaluator_only_tables(db, world, table):
    if not db.scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema || '.' || table_name = ?",
                     [table]):
        pytest.skip(f"{table} does not exist in this schema")
    for view in ("client", "counselor"):
        with pytest.raises(PermissionDenied):
            with db.ai_view(view):
                read(db, table)


def test_probe_ccd_and_dsm_columns_are_unreadable_for_the_client(db, world):
    with db.ai_view("client"):
        cards = read(db, "app.persona_card")
        assert len(cards) >= 7
        assert all("ccd" not in c and "dsm5_dimensional" not in c for c in cards)
        case = app_repo.get_case_profile(db, "P1", "kim")
        assert case is not None and "ccd_estimate" not in case
        summary = app_repo.get_session_summary(db, world["kim"]["sid"])
        assert summary["digest"] == "kim 요약" and "open_threads" not in summary
    for columns in (["ccd"], ["dsm5_dimensional"], ["code", "ccd"]):
        with pytest.raises(PermissionDenied, match="ccd|dsm5"):
            with db.ai_view("client"):
                read(db, "app.persona_card", columns=columns)
    with pytest.raises(PermissionDenied):
        with db.ai_view("client"):
            read(db, "app.case_profile", columns=["ccd_estimate"])
    with db.ai_view("evaluator"):
        assert all(c["ccd"] for c in read(db, "app.persona_card", columns=["code", "ccd"]))


# --------------------------------------------------------------------------- T4: people
def test_t4_learner_sees_only_own_case_sessions_summaries_embeddings(db, world):
    kim, lee = world["kim"], world["lee"]
    with db.as_principal("learner", "kim", "c1"):
        assert [s["session_id"] for s in app_repo.list_sessions(db)] == [kim["sid"]]
        assert app_repo.get_session(db, lee["sid"]) is None
        assert app_repo.get_session_summary(db, lee["sid"]) is None
        assert app_repo.get_last_summary(db, lee["case"]) is None
        assert app_repo.list_turns(db, lee["sid"]) == []
        assert app_repo.get_case_profile(db, "P1", "lee") is None
        assert app_repo.list_coach_events(db, lee["sid"]) == []
        assert {r["learner_id"] for r in read(db, "app.turn_embedding", columns=["learner_id"])} == {"kim"}
        assert [r["learner_id"] for r in read(db, "app.learner_profile")] == ["kim"]
        assert [r["user_id"] for r in read(db, "app.app_user", columns=["user_id"])] == ["kim"]
        assert app_repo.get_session_summary(db, kim["sid"])["digest"] == "kim 요약"
    with pytest.raises(PermissionDenied):  # evaluator scores are write-only for a learner
        with db.as_principal("learner", "kim", "c1"):
            app_repo.list_turn_evaluations(db, kim["sid"])
    with pytest.raises(PermissionDenied):  # and no password hashes through the app
        with db.as_principal("learner", "kim", "c1"):
            read(db, "app.app_user", columns=["password_hash"])


def test_t4_faculty_sees_own_cohort_only_and_researcher_all(db, world):
    kim, lee = world["kim"], world["lee"]
    with db.as_principal("faculty", "prof", "c1"):
        assert [s["session_id"] for s in app_repo.list_sessions(db)] == [kim["sid"]]
        assert app_repo.get_session(db, lee["sid"]) is None
        assert len(app_repo.list_turn_evaluations(db, kim["sid"])) == 1
        assert app_repo.list_turn_evaluations(db, lee["sid"]) == []
        assert {r["learner_id"] for r in read(db, "app.turn_embedding", columns=["learner_id"])} == {"kim"}
    for role in ("researcher", "admin"):
        with db.as_principal(role, "r1"):
            assert {s["session_id"] for s in app_repo.list_sessions(db)} == {kim["sid"], lee["sid"]}
            assert len(read(db, "audit.audit_log")) == 1


def test_view_and_principal_together_apply_both_layers(db, world):
    with db.as_principal("learner", "kim", "c1"), db.ai_view("client"):
        assert [t["seq"] for t in app_repo.list_turns(db, world["kim"]["sid"])] == [1]
        assert app_repo.list_turns(db, world["lee"]["sid"]) == []


def test_app_faculty_scope_matches_rls():
    prof = User("prof", frozenset({"faculty"}), "c1")
    require_session_access(prof, "kim", "s1", session_cohort="c1")
    with pytest.raises(PermissionDenied):
        require_session_access(prof, "lee", "s2", session_cohort="c2")
    researcher = User("r", frozenset({"researcher"}))
    require_session_access(researcher, "lee", "s2", session_cohort="c2")
    kim = User("kim", frozenset({"trainee"}), "c1")
    require_session_access(kim, "kim", "s1", session_cohort="c1")
    with pytest.raises(PermissionDenied):
        require_session_access(kim, "lee", "s2", session_cohort="c1")


# --------------------------------------------------------------------------- the database itself
def _postgres_only(db) -> None:
    if db.backend != "postgres":
        pytest.skip("the database-level half of the rules exists on PostgreSQL only")


@pytest.mark.postgres
def test_pg_raw_sql_is_refused_without_the_gateway(db, world):
    _postgres_only(db)
    probes = ["SELECT ccd FROM app.persona_card", "SELECT dsm5_dimensional FROM app.persona_card",
              "SELECT * FROM app.persona_card", "SELECT scores FROM app.turn_evaluation",
              "SELECT * FROM app.live_coach_events", "SELECT open_threads FROM app.session_summary",
              "SELECT ccd_estimate FROM app.case_profile", "SELECT * FROM audit.audit_log",
              "SELECT * FROM app.learner_profile"]
    for sql in probes:
        with pytest.raises(PermissionDenied):
            with db.ai_view("client"):
                db.fetchall(sql)
    with db.ai_view("client"):
        assert db.scalar("SELECT current_user") == "vignette_client"
        assert db.scalar("SELECT count(*) FROM app.turns") == 2  # one visible turn per learner
        assert db.scalar("SELECT count(*) FROM app.persona_card") >= 7  # allowed columns only


@pytest.mark.postgres
def test_pg_set_config_inside_the_block_cannot_widen_it(db, world):
    _postgres_only(db)
    with db.ai_view("client"):
        db.scalar("SELECT set_config('app.current_ai_view', '', true)")
        db.scalar("SELECT set_config('app.current_sens_max', '9', true)")
        assert db.scalar("SELECT count(*) FROM app.turns") == 2
    with pytest.raises(PermissionDenied):
        with db.ai_view("client"):
            db.scalar("SELECT set_config('app.current_ai_view', '', true)")
            db.fetchall("SELECT * FROM app.turn_evaluation")
    with pytest.raises(PermissionDenied):  # the context table is read-only for the roles
        with db.ai_view("client"):
            db.execute("DELETE FROM pg_temp.vl_ctx")
    with pytest.raises(PermissionDenied):  # and the context cannot be re-entered from inside
        with db.ai_view("client"):
            db.scalar("SELECT app.enter_ctx('evaluator', 2, NULL, NULL, NULL, 'vignette_evaluator')")
    with db.as_principal("learner", "kim", "c1"):
        db.scalar("SELECT set_config('app.current_uid', 'lee', true)")
        db.scalar("SELECT set_config('app.current_role', 'researcher', true)")
        assert [r["learner_id"] for r in db.fetchall("SELECT learner_id FROM app.sessions")] == ["kim"]
        assert db.scalar("SELECT count(*) FROM app.session_summary") == 1
        assert db.scalar("SELECT count(*) FROM app.turn_embedding") == 1


@pytest.mark.postgres
def test_pg_policies_on_every_table_with_visible_to_learner_or_cohort(pg_db):
    rows = pg_db.fetchall(
        "SELECT DISTINCT c.table_schema || '.' || c.table_name AS t FROM information_schema.columns c "
        "JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name "
        "WHERE tb.table_type = 'BASE TABLE' AND c.table_schema IN ('app', 'kb', 'ds', 'audit') "
        "AND c.column_name IN ('visible_to', 'learner_id', 'cohort', 'session_id', 'case_id')")
    carrying = {r["t"] for r in rows}
    forced = {r["t"] for r in pg_db.fetchall(
        "SELECT n.nspname || '.' || c.relname AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relrowsecurity AND c.relforcerowsecurity")}
    # session_id-only tables outside app (kb.retrieval_log, audit.*, ds.*) are not readable by
    # learners or AI views at all (no privilege), so they need no row policy
    must = {t for t in carrying if t.startswith("app.") or t in ("kb.chunk", "kb.source", "ds.dataset_item")}
    assert must - forced == set()
