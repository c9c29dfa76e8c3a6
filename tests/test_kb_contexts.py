"""KB passages in the evaluator, coach and counselor prompts; C/D material never reaches an
external engine; the client sees cue lines only (seed 004 §4.3). Real DuckDB, real KB index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.kb.embedders import HashingEmbedder
from vignette_lab.kb.index import sync_sources
from vignette_lab.session.selfplay import run_selfplay
from vignette_lab.session.service import SessionService

SOURCES = Path(__file__).resolve().parent.parent / "kb_sources"
EMB = HashingEmbedder()
LINES = [
    "안녕하세요, 오늘 여기까지 오느라 애쓰셨어요. 어떤 이야기를 하고 싶어요?",
    "요즘 잠도 잘 못 자고 많이 힘드셨겠어요.",
    "그 일이 있었을 때 어떤 마음이 들었는지 조금 더 이야기해 줄 수 있어요?",
]
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
EVAL_TASKS = {"turn_evaluation", "coach_card", "session_evaluation"}


class Recording:
    """Wraps an engine, keeps every request; ``name`` may be overridden (e.g. "anthropic")."""

    def __init__(self, inner, *, name=None):
        self.inner, self.requests = inner, []
        self.name = name or inner.name

    def generate(self, request):
        self.requests.append(request)
        return self.inner.generate(request)

    def stream(self, request):
        self.requests.append(request)
        return self.inner.stream(request)


def _norm(text):
    return " ".join(text.split())


@pytest.fixture
def kb_db(duck_db):
    sync_sources(duck_db, sources_dir=SOURCES, embedder=EMB)
    return duck_db


def _chunks(db):
    rows = db.fetchall("SELECT chunk_id, source_id, kb_kind, sensitivity, visible_to, license_class, "
                       "external_llm_ok, chunk_text FROM kb.chunk WHERE is_active")
    assert len(rows) > 50
    for r in rows:
        r["text"] = _norm(r["chunk_text"])
        # long enough that a match is the chunk's text, not a common phrase
        r["sentences"] = [s.strip() for s in _SENTENCE.split(r["chunk_text"]) if len(s.strip()) >= 20]
    return rows


def _l2(request):
    return [m for m in request.messages if m.layer == "L2"]


def _leaks(chunks, texts):
    """Source ids of ``chunks`` with a sentence that occurs in any of ``texts``."""
    return {c["source_id"] for c in chunks for s in c["sentences"] for t in texts if s in t}


def _live_session(db, engine):
    svc = SessionService(db, engine=engine, embedder=EMB)
    info = svc.start("P4", learner_id="A")
    for line in LINES:
        assert svc.send(info.session_id, line).evaluation_status == "ok"
    cues = list(svc._live[info.session_id].kb_cues)
    card = svc.coach(info.session_id)
    review = svc.end(info.session_id)
    assert review.status == "ready" and card.source == "engine"
    return info.session_id, cues


def test_evaluator_and_coach_get_evaluator_kb_and_client_gets_cue_lines_only(kb_db):
    chunks = _chunks(kb_db)
    engine = Recording(ScriptedEngine(seed=3))
    sid, cues = _live_session(kb_db, engine)

    evaluator = [r for r in engine.requests if r.ai_role == "evaluator"]
    assert sorted(r.metadata["task"] for r in evaluator) == sorted(
        ["turn_evaluation"] * len(LINES) + ["coach_card", "session_evaluation"])
    seen: set[str] = set()
    for req in evaluator:
        (msg,) = _l2(req)
        assert msg.role == "system" and msg.cache
        assert [m.layer for m in req.messages][-1] in ("EVAL-IN", "COACH-IN")
        inside = [c for c in chunks if c["text"] in msg.content]
        assert inside, req.metadata["task"]
        assert all("evaluator" in c["visible_to"] and c["sensitivity"] <= 2 for c in inside)
        # source ids travel with the bodies
        assert all(f"[{c['source_id']} · {c['kb_kind']}" in msg.content for c in inside)
        seen |= {c["source_id"] for c in inside}
    # evaluator-only packs (sensitivity 2) and, for a local engine, the C-licence cue pack
    assert seen & {"taxonomy_guidelines", "supervisor_patterns"}
    assert "dimensional_cues" in seen

    # client prompts: behavioural cue lines, never bodies, headings or source ids
    client = [r for r in engine.requests if r.ai_role == "client"]
    assert client and cues
    bullets = {f"- {cue}" for cue in cues}
    for req in client:
        (msg,) = _l2(req)
        assert bullets <= set(msg.content.split("\n"))
        stripped = ["\n".join(ln for ln in m.content.split("\n") if ln not in bullets) for m in req.messages]
        assert not _leaks(chunks, stripped)
        assert not any(c["source_id"] in m.content for c in chunks for m in req.messages)

    # one search per prompt: a client search when the session loaded, one per evaluator request
    log = {r["role"]: r["n"] for r in kb_db.fetchall(
        "SELECT role, count(*) AS n FROM kb.retrieval_log WHERE session_id = ? OR session_id IS NULL "
        "GROUP BY role", [sid])}
    assert log == {"client": 1, "evaluator": len(evaluator)}


def test_selfplay_counselor_gets_counselor_policy_only(kb_db):
    chunks = _chunks(kb_db)
    engine = Recording(ScriptedEngine(seed=7))
    result = run_selfplay(kb_db, personas=("P1",), turns=4, seed=7, engine=engine, embedder=EMB, progress=False,
                          evaluate=False)
    assert len(result.sessions[0].turns) == 8
    counselor = [r for r in engine.requests if r.ai_role == "counselor"]
    assert len(counselor) == 4
    assert not _l2(counselor[0])  # nothing to retrieve for before the client has spoken
    allowed = [c for c in chunks if "counselor" in c["visible_to"] and c["sensitivity"] == 0
               and c["kb_kind"] in ("theory", "technique", "ko_context", "template")]
    forbidden = [c for c in chunks if c not in allowed]
    assert {c["kb_kind"] for c in forbidden} >= {"diagnostic", "taxonomy", "supervisor_pattern"}
    for req in counselor[1:]:
        (msg,) = _l2(req)
        assert msg.role == "system" and msg.cache and req.messages[0].layer == "COUNSELOR"
        assert any(c["text"] in msg.content for c in allowed)
    assert not _leaks(forbidden, [m.content for r in counselor for m in r.messages])
    roles = [r["role"] for r in kb_db.fetchall("SELECT role FROM kb.retrieval_log WHERE role = 'counselor'")]
    assert len(roles) == 3


def test_external_engine_never_receives_c_or_d_material(kb_db):
    chunks = _chunks(kb_db)
    restricted = [c for c in chunks if c["license_class"] in ("C", "D") or not c["external_llm_ok"]]
    assert {c["source_id"] for c in restricted} == {"dimensional_cues"}
    engine = Recording(ScriptedEngine(seed=3), name="anthropic")
    _, cues = _live_session(kb_db, engine)
    run_selfplay(kb_db, personas=("P4",), turns=3, seed=7, engine=engine, embedder=EMB, progress=False)

    assert cues == []  # the only behavioural-cue pack is C-licence
    texts = [m.content for r in engine.requests for m in r.messages]
    assert not _leaks(restricted, texts)
    assert not any(c["text"] in t for c in restricted for t in texts)
    # still enriched from A/B packs, so the test is not vacuous
    evaluator = [r for r in engine.requests if r.ai_role == "evaluator"]
    assert evaluator and all(_l2(r) for r in evaluator)
    assert any(_l2(r) for r in engine.requests if r.ai_role == "counselor")
    flags = {r["external_engine"] for r in kb_db.fetchall("SELECT external_engine FROM kb.retrieval_log")}
    assert flags == {True}


def test_retrieval_failure_or_no_embedder_leaves_prompts_unchanged(duck_db):
    # an embedder but no indexed KB: every turn still runs, evaluations succeed, no L2 anywhere
    engine = Recording(ScriptedEngine(seed=3))
    svc = SessionService(duck_db, engine=engine, embedder=EMB)
    info = svc.start("P4", learner_id="A")
    assert svc.send(info.session_id, LINES[0]).evaluation_status == "ok"
    svc.coach(info.session_id)
    assert svc.end(info.session_id).status == "ready"
    assert not [r for r in engine.requests if r.ai_role == "evaluator" and _l2(r)]

    # no embedder: evaluator and counselor requests hold no L2 and no retrieval runs
    plain = Recording(ScriptedEngine(seed=7))
    run_selfplay(duck_db, personas=("P1",), turns=2, seed=7, engine=plain, progress=False)
    assert not [r for r in plain.requests if r.ai_role != "client" and _l2(r)]
    assert {r.metadata.get("task") for r in plain.requests if r.ai_role == "evaluator"} == {
        "turn_evaluation", "session_evaluation"}



def test_kb_cues_are_searched_only_when_a_turn_needs_them(kb_db, monkeypatch):
    """A fresh process (a one-shot CLI call) that only ends or reviews a session never makes the
    client's KB cues; one that sends makes them once, with the stage the session was loaded at."""
    from vignette_lab.session import live as live_mod

    calls: list[str] = []
    real = live_mod.kb_cues

    def counting(db, embedder, card, stage, *, engine):
        calls.append(stage)
        return real(db, embedder, card, stage, engine=engine)

    monkeypatch.setattr(live_mod, "kb_cues", counting)
    engine = ScriptedEngine(seed=3)
    sid = SessionService(kb_db, engine=engine, embedder=EMB).start("P4", learner_id="A").session_id
    SessionService(kb_db, engine=engine, embedder=EMB).send(sid, LINES[0])
    assert len(calls) == 1
    sender = SessionService(kb_db, engine=engine, embedder=EMB)  # a new process: nothing cached
    sender.send(sid, LINES[1])
    sender.send(sid, LINES[2])
    assert len(calls) == 2  # once per loaded session, kept for its later turns
    assert sender._live[sid].kb_cues == real(kb_db, EMB, _card(kb_db, sid), calls[-1], engine=engine)
    SessionService(kb_db, engine=engine, embedder=EMB).review(sid)
    assert SessionService(kb_db, engine=engine, embedder=EMB).end(sid).status == "ready"
    assert len(calls) == 2


def _card(db, session_id):
    from vignette_lab.session.context import persona_for_row
    from vignette_lab.store import app_repo

    return persona_for_row(db, app_repo.get_session(db, session_id))[0]
