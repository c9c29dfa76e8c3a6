"""SessionService end to end on real DuckDB and PostgreSQL."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from vignette_lab.core.guardrails import SAFE_FALLBACK_REPLY
from vignette_lab.core.personas import load_personas
from vignette_lab.core.state import CARRY_RAPPORT_FACTOR
from vignette_lab.engines.base import GenerateResponse, StreamEvent
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import CoachCreditExhausted, EngineError, PermissionDenied, SessionError, SessionTimeOver
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo, connect

LINES = [
    "안녕하세요, 오늘 여기까지 오느라 애쓰셨어요. 어떤 이야기를 하고 싶어요?",
    "요즘 많이 힘드셨겠어요.",
    "그 일이 있었을 때 어떤 마음이 들었는지 조금 더 이야기해 줄 수 있어요?",
    "그렇게 느끼는 게 충분히 그럴 수 있어요.",
    "말씀을 들어 보니 혼자 많이 버텨 오셨네요.",
    "그때 가장 힘들었던 건 뭐였어요?",
    "마음이 많이 답답하셨겠어요.",
    "그 이야기를 조금 더 들려줄 수 있을까요?",
    "주변 사람들은 그 마음을 알고 있어요?",
    "그런 상황이면 누구라도 지칠 것 같아요.",
]
TWENTY = (LINES * 2)[:20]


class Recording:
    """Wraps an engine and keeps every request it received."""

    def __init__(self, inner):
        self.inner, self.requests, self.name = inner, [], inner.name

    def generate(self, request):
        self.requests.append(request)
        return self.inner.generate(request)

    def stream(self, request):
        self.requests.append(request)
        return self.inner.stream(request)


class MeansClient:
    name = "means"

    def generate(self, request):
        return GenerateResponse(text="사실 수면제를 한꺼번에 많이 먹으면 어떨까 생각했어요.")

    def stream(self, request):
        yield StreamEvent("token", text="네…")


class NoDoneStream:
    name = "nodone"

    def generate(self, request):
        return GenerateResponse(text="네.")

    def stream(self, request):
        yield StreamEvent("token", text="네, 그게")
        yield StreamEvent("token", text=" 사실은")


class DeepFails:
    """Evaluator engine: fast loop works (scripted), deep loop raises."""

    name = "deep-fails"

    def __init__(self):
        self.inner = ScriptedEngine(seed=2)

    def generate(self, request):
        if (request.structured_schema or {}).get("title") == "session_evaluation":
            raise EngineError("deep evaluator unavailable", code="provider_down")
        return self.inner.generate(request)


class AlwaysFails:
    name = "always-fails"

    def generate(self, request):
        raise EngineError("evaluator down", code="provider_down")


class Clock:
    def __init__(self):
        self.now = datetime(2026, 11, 30, 1, 0, tzinfo=timezone.utc)

    def __call__(self):
        return self.now


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _strings(v)]
    return []


def _svc(db, **kw):
    kw.setdefault("engine", ScriptedEngine(seed=7))
    return SessionService(db, **kw)


@pytest.mark.parametrize("code", ["P1"] + [pytest.param(c, marks=pytest.mark.slow)
                                          for c in ("P2", "P3", "P4", "P5", "P6", "P7")])
def test_twenty_turn_session_per_persona(db, code):
    svc = _svc(db)
    info = svc.start(code, learner_id="u1")
    assert info.persona_version >= 1 and info.persona_id
    ideation = []
    for i, line in enumerate(TWENTY, start=1):
        out = svc.send(info.session_id, line)
        assert (out.counselor_seq, out.client_seq) == (2 * i - 1, 2 * i)
        assert out.client_text.strip()
        assert not any("ideation" in k for k in out.progress)
        ideation.append(svc._live[info.session_id].state.ideation_stage)
    assert ideation == sorted(ideation)
    rows = app_repo.list_turns(db, info.session_id)
    assert [r["seq"] for r in rows] == list(range(1, 41))
    assert all(r["text"] == r["text_masked"] for r in rows)
    assert len(app_repo.list_turn_evaluations(db, info.session_id)) == 20
    assert app_repo.get_session_state(db, info.session_id)["turn_seq"] == 20
    review = svc.end(info.session_id)
    assert review.status == "ready" and review.technique_distribution["labelled_turns"] == 20
    assert review.checklist["id"] == "first-session-rapport-open-question.v1"
    assert svc.get(info.session_id).status == "ended"
    with pytest.raises(SessionError):
        svc.send(info.session_id, "아직 계세요?")


def test_blank_input_changes_nothing(db):
    svc = _svc(db)
    info = svc.start("P4")
    before = app_repo.get_session_state(db, info.session_id)
    assert svc.send(info.session_id, "   \n\t") is None
    assert list(svc.send_stream(info.session_id, "  ")) == []
    assert app_repo.list_turns(db, info.session_id) == []
    after = app_repo.get_session_state(db, info.session_id)
    assert after["turn_seq"] == before["turn_seq"] == 0 and after["updated_at"] == before["updated_at"]


def _all_text(db) -> str:
    parts = []
    for table in ("app.turns", "app.session_state", "app.safety_events", "app.live_coach_events",
                  "app.turn_evaluation", "app.session_summary", "app.case_profile", "app.pinned_fact",
                  "audit.llm_call_log", "app.sessions"):
        parts.append(json.dumps(db.fetchall(f"SELECT * FROM {table}"), ensure_ascii=False, default=str))
    return "\n".join(parts)


def test_pii_is_never_stored_nor_sent(db):
    engine = Recording(ScriptedEngine(seed=7))
    svc = SessionService(db, engine=engine)
    info = svc.start("P2")
    raw = "제 번호는 010-2345-6789 이고 주민번호는 900101-1234567, 메일은 hong.gildong@example.com 이에요. 힘드셨겠어요."
    out = svc.send(info.session_id, raw)
    svc.coach(info.session_id)
    svc.end(info.session_id)
    secrets = ("010-2345-6789", "900101-1234567", "hong.gildong@example.com")
    assert not any(s in out.counselor_text for s in secrets)
    stored = _all_text(db)
    sent = "\n".join(m.content for r in engine.requests for m in r.messages) + json.dumps(
        [r.metadata for r in engine.requests], ensure_ascii=False)
    for s in secrets:
        assert s not in stored and s not in sent
    assert "[PHONE]" in app_repo.list_turns(db, info.session_id)[0]["text_masked"]


def test_means_reply_is_replaced_and_recorded(db):
    svc = SessionService(db, engine=MeansClient(), evaluator_engine=ScriptedEngine(seed=1))
    info = svc.start("P1")
    out = svc.send(info.session_id, "요즘 어떤 생각이 들어요?")
    assert out.client_text == SAFE_FALLBACK_REPLY
    assert [e["kind"] for e in out.safety_events] == ["means_blocked"]
    stored = app_repo.list_turns(db, info.session_id)[1]["text_masked"]
    assert stored == SAFE_FALLBACK_REPLY and "수면제" not in _all_text(db)
    events = app_repo.list_safety_events(db, info.session_id)
    assert [(e["kind"], e["escalated"]) for e in events] == [("means_blocked", False)]


def test_trainee_crisis_is_escalated_and_recorded(duck_db):
    svc = _svc(duck_db)
    info = svc.start("P4")
    out = svc.send(info.session_id, "연습 말고 제가 진짜 요즘 죽고 싶어요.")
    assert out.crisis_escalated
    assert app_repo.list_safety_events(duck_db, info.session_id)[0]["escalated"] is True


def test_evaluator_failure_never_breaks_a_turn(duck_db):
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7), evaluator_engine=AlwaysFails())
    info = svc.start("P4")
    out = svc.send(info.session_id, "요즘 어떻게 지내요?")
    assert out.evaluation_status == "error" and out.client_text
    evs = app_repo.list_turn_evaluations(duck_db, info.session_id)
    assert len(evs) == 1 and evs[0]["error"].startswith("engine_error")
    card = svc.coach(info.session_id)  # coach degrades to the rule card
    assert card.source == "rule"


def test_stream_success_and_stream_without_done_stores_nothing(db):
    svc = _svc(db)
    info = svc.start("P4")
    events = list(svc.send_stream(info.session_id, "오늘 어떤 이야기를 하고 싶어요?"))
    assert events[-1].type == "done"
    outcome = events[-1].response.metadata["outcome"]
    assert "".join(e.text for e in events if e.type == "token") == outcome.client_text
    assert [r["seq"] for r in app_repo.list_turns(db, info.session_id)] == [1, 2]

    broken = SessionService(db, engine=NoDoneStream())
    events = list(broken.send_stream(info.session_id, "그 이야기를 더 해 줄래요?"))
    assert events[-1].type == "error" and events[-1].reason == "client_stream_incomplete"
    assert [r["seq"] for r in app_repo.list_turns(db, info.session_id)] == [1, 2]
    assert app_repo.get_session_state(db, info.session_id)["turn_seq"] == 1
    # the healthy service continues at the right seq
    assert svc.send(info.session_id, "천천히 말해도 괜찮아요.").counselor_seq == 3


def test_time_limit_warning_grace_and_refusal(duck_db):
    clock = Clock()
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7), clock=clock)
    info = svc.start("P4")
    clock.now += timedelta(minutes=49)
    p = svc.progress(info.session_id)
    assert not p["warning"] and not p["time_over"] and p["remaining_s"] == 11 * 60
    clock.now += timedelta(minutes=2)
    assert svc.progress(info.session_id)["warning"]
    clock.now += timedelta(minutes=10)  # 61 min: over time, still inside the grace
    assert svc.progress(info.session_id)["time_over"]
    assert svc.send(info.session_id, "이제 마무리해 볼까요?") is not None
    clock.now += timedelta(minutes=5)  # 66 min > 60 + 5 grace
    with pytest.raises(SessionTimeOver) as exc:
        svc.send(info.session_id, "하나만 더요.")
    assert exc.value.code == "session_time_over"
    assert len(app_repo.list_turns(duck_db, info.session_id)) == 2
    assert svc.end(info.session_id).status == "ready"  # ending is always allowed


def test_carry_over_recall_and_ideation_across_sessions(db):
    svc = _svc(db)
    first = svc.start("P1", learner_id="carry")
    for line in TWENTY[:8]:
        svc.send(first.session_id, line)
    end_state = svc._live[first.session_id].state
    # ideation observed at 3 in the first session (checkpoint row is the source of truth)
    db.execute("UPDATE app.session_state SET ideation_stage = 3 WHERE session_id = ?", [first.session_id])
    svc.resume(first.session_id)
    assert svc._live[first.session_id].state.ideation_stage == 3
    svc.end(first.session_id)

    second = svc.start("P1", learner_id="carry")
    assert second.session_no == 2 and second.case_id == first.case_id
    st = svc._live.get(second.session_id) or svc._load(second.session_id)
    assert st.state.rapport_credit == pytest.approx(end_state.rapport_credit * CARRY_RAPPORT_FACTOR)
    assert st.state.ideation_stage == 3 and st.state.stage == "라포"
    assert st.recall.previous_session_no == 1 and "1번" in st.recall.case_digest
    assert st.recall.last_summary.startswith("1번째 상담에서")
    card = load_personas()["P1"]
    visible = json.dumps(card.client_visible_dict(), ensure_ascii=False)
    hidden = [v for v in _strings(card.to_dict().get("ccd")) + _strings(card.to_dict().get("dsm5_dimensional"))
              if len(v) >= 8 and v not in visible]
    recall_text = json.dumps(st.recall.to_dict(), ensure_ascii=False)
    assert hidden and not [h for h in hidden if h in recall_text]
    msgs = svc._begin_turn(second.session_id, "지난주 이후 어떻게 지냈어요?", None)[1].messages
    l2 = next(m for m in msgs if m.layer == "L2")
    assert "지난 상담의 기억" in l2.content
    out = svc.send(second.session_id, "지난주 이후 어떻게 지냈어요?")
    assert out.progress["rapport_percent"] >= 0
    # a different learner's case starts fresh
    other = svc.start("P1", learner_id="someone-else")
    assert other.session_no == 1 and svc._load(other.session_id).recall.is_empty()


def test_killed_process_resume_continues_at_right_seq_and_state(db):
    svc = _svc(db)
    info = svc.start("P3", learner_id="resumer")
    for line in TWENTY[:5]:
        svc.send(info.session_id, line)
    state = svc._live[info.session_id].state
    credits = svc.coach_credits(info.session_id)
    url = db.url
    if db.backend == "duckdb":
        db.close()
    db2 = connect(url)
    try:
        fresh = SessionService(db2, engine=ScriptedEngine(seed=7))
        assert fresh.resume(info.session_id).status == "active"
        live = fresh._live[info.session_id]
        assert live.state == state and live.credits == credits
        assert len(live.history) == 10
        out = fresh.send(info.session_id, TWENTY[5])
        assert out.counselor_seq == 11 and live.state.turn_seq == 6
    finally:
        if db.backend == "duckdb":
            db2.close()


def test_learner_cannot_read_another_learners_session(db):
    a = SessionService(db, engine=ScriptedEngine(seed=7), learner_id="A")
    b = SessionService(db, engine=ScriptedEngine(seed=7), learner_id="B")
    info = a.start("P4")
    a.send(info.session_id, "안녕하세요.")
    for call in (lambda: b.get(info.session_id), lambda: b.transcript(info.session_id),
                 lambda: b.send(info.session_id, "몰래 보냄"), lambda: b.progress(info.session_id),
                 lambda: b.review(info.session_id), lambda: b.coach(info.session_id),
                 lambda: b.end(info.session_id), lambda: b.resume(info.session_id),
                 lambda: b.list_sessions(learner_id="A")):
        with pytest.raises(PermissionDenied):
            call()
    assert b.list_sessions() == [] and [s.session_id for s in a.list_sessions()] == [info.session_id]
    with pytest.raises(PermissionDenied):
        a.transcript(info.session_id, viewer="researcher")  # a learner cannot widen their own view
    shared = _svc(db)
    with pytest.raises(PermissionDenied):
        shared.transcript(info.session_id, learner_id="B")
    assert len(shared.transcript(info.session_id, learner_id="A")) == 2
    with pytest.raises(PermissionDenied):
        b.start("P4", learner_id="A")


def test_learner_transcript_only_shows_counselor_visible_rows(duck_db):
    svc = _svc(duck_db)
    info = svc.start("P4")
    svc.send(info.session_id, "안녕하세요.")
    app_repo.insert_turn(duck_db, session_id=info.session_id, case_id=info.case_id, seq=99, speaker="client",
                         text_masked="(평가 전용 메모)", visible_to=["evaluator"], sensitivity=2)
    assert [r["seq"] for r in svc.transcript(info.session_id)] == [1, 2]
    assert [r["seq"] for r in svc.transcript(info.session_id, viewer="researcher")] == [1, 2, 99]
    assert set(svc.transcript(info.session_id)[0]) == {"seq", "speaker", "text", "created_at"}
    svc.resume(info.session_id)  # rebuilt from the DB: evaluator-only rows never enter the client history
    assert "(평가 전용 메모)" not in [t for _, t in svc._live[info.session_id].history]
    out = svc.send(info.session_id, "계속 이야기해 볼까요?")
    assert out.counselor_seq == 3


def test_coach_credits_recharge_and_refusal(duck_db):
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7), evaluator_engine=AlwaysFails())
    info = svc.start("P4")
    assert svc.coach_credits(info.session_id) == 3
    svc.send(info.session_id, "오늘 어떤 이야기를 하고 싶어요?")
    cards = [svc.coach(info.session_id) for _ in range(3)]
    assert [c.credits_left for c in cards] == [2, 1, 0]
    with pytest.raises(CoachCreditExhausted):
        svc.coach(info.session_id)
    for line in TWENTY[1:6]:  # turn 6 → one pacing credit even though every evaluation failed
        out = svc.send(info.session_id, line)
    assert out.coach_recharged == ("pacing",) and svc.coach_credits(info.session_id) == 1
    hist = svc.coach_history(info.session_id)
    assert [(h["event_type"], h["credit_delta"], h["credit_balance"]) for h in hist] == \
        [("use", -1, 2), ("use", -1, 1), ("use", -1, 0), ("recharge", 1, 1)]
    # trainee turns are numbered 1, 2, … (not both speakers' seq) and the recharge says why
    assert hist[-1]["trainee_turn"] == 6 and hist[0]["trainee_turn"] == 1
    assert "상담자 6번째 발화" in hist[-1]["message"] and "6번마다" in hist[-1]["message"]
    rows = app_repo.list_coach_events(duck_db, info.session_id)
    assert all(len(r["learner_excerpt"] or "") <= 80 for r in rows if r["event_type"] == "use")
    assert app_repo.get_session_state(duck_db, info.session_id)["coach_credits"] == 1


def test_performance_recharge_with_scripted_evaluator(duck_db):
    svc = _svc(duck_db)
    info = svc.start("P4")
    svc.coach(info.session_id)
    reasons = []
    for line in TWENTY[:5]:
        reasons += svc.send(info.session_id, line).coach_recharged
    assert "performance" in reasons and svc.coach_credits(info.session_id) == 3


def test_deep_eval_failure_leaves_a_degraded_review_after_the_end_is_stored(db):
    svc = SessionService(db, engine=ScriptedEngine(seed=7), evaluator_engine=DeepFails())
    info = svc.start("P5")
    for line in TWENTY[:3]:
        svc.send(info.session_id, line)
    review = svc.end(info.session_id)
    assert review.status == "degraded" and review.error.startswith("engine_error")
    assert review.technique_distribution["labelled_turns"] == 3 and len(review.turn_evaluations) == 3
    assert svc.get(info.session_id).status == "ended"
    assert app_repo.get_session_summary(db, info.session_id)["digest"]
    # the same learner can start again and keep working
    again = svc.start("P5")
    assert again.session_no == 2 and svc.send(again.session_id, "다시 만나서 반가워요.") is not None


def test_review_is_pending_while_active_and_ready_after(duck_db):
    svc = _svc(duck_db)
    info = svc.start("P6", goal_stages=("라포",))
    assert svc.review(info.session_id).status == "pending"
    svc.send(info.session_id, "많이 힘드셨겠어요. 어떤 일이 제일 마음에 걸려요?")
    review = svc.end(info.session_id)
    assert review.status == "ready" and review.strengths is not None
    assert review.checklist["status"] in ("observed", "not_observed")
    text = json.dumps([review.turn_evaluations, review.technique_distribution], ensure_ascii=False)
    assert "ccd" not in text.lower() and "ideation" not in text


def test_start_validates_input(duck_db):
    svc = _svc(duck_db)
    from vignette_lab.errors import InputError
    with pytest.raises(InputError, match="persona"):
        svc.start("P99")
    with pytest.raises(InputError, match="goal_stages"):
        svc.start("P4", goal_stages=("친해지기",))
    with pytest.raises(InputError, match="mode"):
        svc.start("P4", mode="batch")


def test_oversized_message_is_refused_not_truncated(duck_db):
    from vignette_lab.core.messages import MAX_MESSAGE_CHARS
    from vignette_lab.errors import InputError

    svc = SessionService(duck_db, engine=ScriptedEngine(seed=1), run_fast_eval=False)
    info = svc.start("P4", learner_id="long")
    with pytest.raises(InputError, match="최대"):
        svc.send(info.session_id, "가" * (MAX_MESSAGE_CHARS + 1))
    with pytest.raises(InputError, match="최대"):
        svc.send_stream(info.session_id, "나" * (MAX_MESSAGE_CHARS + 1))
    assert app_repo.list_turns(duck_db, info.session_id) == []
    ok = svc.send(info.session_id, "다" * MAX_MESSAGE_CHARS)
    assert ok is not None and ok.counselor_text == "다" * MAX_MESSAGE_CHARS


def test_client_ideation_disclosure_is_recorded_and_holds_across_sessions(duck_db):
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=3), run_fast_eval=False)
    warm = ["오늘 와 줘서 고마워요.", "여기서는 편하게 이야기해도 괜찮아요.", "요즘 많이 힘들었겠어요.",
            "그런 마음이 드는 게 충분히 그럴 수 있어요.", "혼자 많이 버텨 왔네요.", "말해 줘서 고마워요."]
    q = "혹시 죽고 싶다는 생각까지 든 적 있어요?"
    disclosed = None
    for attempt in range(4):
        info = svc.start("P1", learner_id=f"si-{attempt}")
        for line in warm * 2:
            svc.send(info.session_id, line)
        out = svc.send(info.session_id, q)
        if any(e["kind"] == "client_ideation_disclosure" for e in out.safety_events):
            disclosed = info
            break
        svc.end(info.session_id, run_deep=False)
    assert disclosed is not None, "P1 (ideation stage 2) never disclosed after twelve warm turns"
    svc.end(disclosed.session_id, run_deep=False)
    # next session of the same case, at the start (low openness): still never a flat denial
    nxt = svc.start("P1", learner_id=disclosed.learner_id)
    reply = svc.send(nxt.session_id, q).client_text
    assert not reply.startswith(("아니요", "아뇨")), reply
