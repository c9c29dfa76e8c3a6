"""Session page logic against the real SessionService on a real DuckDB file (no browser)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest

from vignette_lab.app.auth import User
from vignette_lab.app.session_page import SessionPage
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.session.service import SessionService

KIM = User("kim", frozenset({"trainee"}), "2026-1")
LEE = User("lee", frozenset({"trainee"}), "2026-1")
PROF = User("prof", frozenset({"faculty"}), "2026-1")


class Clock:
    """A settable UTC clock for the service (time-limit tests)."""

    def __init__(self):
        self.now = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def service(duck_db, clock):
    return SessionService(duck_db, engine=ScriptedEngine(seed=5), clock=clock)


def _page(service, user=KIM, persona="P4"):
    page = SessionPage(service, user=user, token_delay=0)
    page.persona = persona
    return page


def test_setup_shows_public_persona_view_only(service):
    page = _page(service)
    assert page.view == "setup" and page.persona == "P4"
    assert set(page.param.persona.objects) >= {"P1", "P4", "P7"}
    shown = page._persona_info.object + " ".join(page._persona_select.options)
    for secret in ("ccd", "dsm", "suicide", "ideation", "core_belief", "resistance"):
        assert secret not in shown.lower()


def test_start_send_and_blank_input(service):
    page = _page(service)
    sid = page.start()
    assert sid and page.view == "chat" and page.notice == ""
    assert page.send("  안녕하세요. 오늘 어떤 이야기를 하고 싶으세요?  ")
    assert [m["role"] for m in page.history] == ["user", "agent"]
    assert page.history[0]["body"] == "안녕하세요. 오늘 어떤 이야기를 하고 싶으세요?"  # trimmed
    assert page.history[1]["body"]
    progress_before = dict(page._progress)
    stored_before = service.transcript(sid, learner_id="kim")
    for blank in ("", "   ", "\n\t "):
        assert page.send(blank) is False
    assert len(page.history) == 2 and len(page._messages.objects) == 2
    assert service.transcript(sid, learner_id="kim") == stored_before
    assert page.state == "idle" and page._progress == progress_before
    # the state line lives outside the history
    assert all("생각 중" not in m["body"] and "응답 중" not in m["body"] for m in page.history)
    rendered = [pane.object for pane in page._messages.objects]
    assert 'class="vl-msg user-message"' in rendered[0] and 'data-align="right"' in rendered[0]
    assert 'class="vl-msg response-message"' in rendered[1] and 'data-align="left"' in rendered[1]
    assert "상담자" in rendered[0] and "내담자" in rendered[1]


def test_async_send_streams_through_a_worker_thread(service):
    page = _page(service)
    page.start()
    snapshots = []
    original = page._apply

    def spy(event, buf, box):
        original(event, buf, box)
        snapshots.append("".join(buf))
    page._apply = spy
    assert asyncio.run(page.send_async("요즘 많이 힘드셨겠어요.")) is True
    assert page.history[-1]["role"] == "agent" and page.history[-1]["body"] == snapshots[-1]
    growing = [s for s in snapshots if s]
    assert len(growing) >= 2 and len(growing[0]) < len(growing[-1])
    assert page.state == "idle" and not page.busy


def test_time_over_refuses_with_a_korean_notice(service, clock):
    page = _page(service)
    sid = page.start()
    assert page.send("안녕하세요.")
    clock.now += timedelta(minutes=52)
    progress = page.refresh_progress()
    assert progress["warning"] is True and "종료 10분 전" in page._progress_pane.object
    clock.now += timedelta(minutes=14)  # 66 min > 60 + 5 grace
    n = len(page.history)
    assert page.send("아직 할 말이 있어요.") is False
    assert "회기 시간이 끝나" in page.notice
    assert len(page.history) == n
    assert len(service.transcript(sid, learner_id="kim")) == 2


def test_coach_cards_spend_credits_then_refuse(service):
    page = _page(service)
    page.start()
    page.send("오늘 어떤 이야기를 나누고 싶으세요?")
    assert page.coach_credits == 3
    for expected in (2, 1, 0):
        assert page.request_coach() is not None
        assert page.coach_credits == expected
    assert page.history[-1]["kind"] == "coach"
    assert 'class="vl-msg response-message coach"' in page._messages.objects[-1].object
    assert page.request_coach() is None and "코칭" in page.notice
    assert page._coach_btn.disabled
    assert page._coach_history.object.count("<li>") == 3
    assert "상담자 1번째 발화" in page._coach_history.object and "턴 " not in page._coach_history.object


def test_end_shows_review(service):
    page = _page(service)
    page.start()
    for text in ("오늘 어떤 이야기를 하고 싶으세요?", "많이 속상하셨겠어요.", "그때 어떤 마음이 드셨어요?"):
        page.send(text)
    review = page.end()
    assert review is not None and page.view == "review"
    html = page._review_pane.object
    assert "기법 분포" in html and f'data-status="{review.status}"' in html


def test_header_right_after_end_says_ended_like_the_reopened_review(service):
    """QA round 5: the review shown on 회기 종료 kept the header drawn while the session ran."""
    page = _page(service)
    page.start()
    assert "진행 중" in page._chat_header.object
    page.send("오늘 어떤 이야기를 하고 싶으세요?")
    page.end()
    assert "종료" in page._chat_header.object and "진행 중" not in page._chat_header.object
    reopened = _page(service)
    reopened.open_session(page.session_id)
    assert reopened.view == "review" and reopened._chat_header.object == page._chat_header.object
    assert not reopened._messages.view_latest  # an ended session's transcript is read from the top


def test_transcript_opens_at_its_newest_message():
    """QA round 5: after a reload the transcript starts at the top and never followed new turns."""
    from vignette_lab.app.session_page import SessionPage as Page

    page = Page(lambda: None, user=KIM, personas=None, token_delay=0)
    assert page._messages.view_latest and page._messages.auto_scroll_limit > 0


def test_trainee_cannot_open_another_trainees_session(service):
    kim = _page(service, KIM)
    sid = kim.start()
    kim.send("안녕하세요.")
    lee = _page(service, LEE)
    lee.open_session(sid)
    assert lee.view == "denied" and "권한" in lee.notice and lee.history == []
    prof = _page(service, PROF)
    prof.open_session(sid)
    assert prof.view == "chat" and [m["role"] for m in prof.history] == ["user", "agent"]
    other = _page(service, User("park", frozenset({"faculty"}), "2026-2"))
    other.open_session(sid)  # faculty of another cohort: refused, as RLS does on Postgres
    assert other.view == "denied" and other.history == []
    again = _page(service, KIM)
    again.open_session(sid)
    assert again.view == "chat" and again.session_id == sid


def test_goal_stages_required(service):
    page = _page(service)
    page.goal_stages = []
    assert page.start() is None and "목표 단계" in page.notice and page.view == "setup"


def test_trainee_crisis_cue_shows_where_to_get_help(service):
    from vignette_lab.app.session_page import CRISIS_SUPPORT_NOTICE

    page = _page(service)
    page.start()
    assert page.send("혹시 죽고 싶다는 생각이 든 적 있어요?")  # assessing the client: no notice
    assert page.notice == ""
    assert page.send("연습 말고 저 사실 요즘 진짜 죽고 싶어요.")  # the trainee's own cue
    assert page.notice == CRISIS_SUPPORT_NOTICE and "109" in page._notice_pane.object


def test_reply_streams_into_the_slot_drawn_with_the_message(service):
    """The first token sets the text of a pane that is already on the page (no pane is added
    while the reply is due)."""
    page = _page(service)
    page.start()
    at_first_token = []
    original = page._apply

    def spy(event, buf, box):
        if event.type == "token" and not buf:
            at_first_token.append([(pane, pane.object) for pane in page._messages.objects])
        original(event, buf, box)
    page._apply = spy
    assert asyncio.run(page.send_async("요즘 많이 힘드셨겠어요.")) is True
    (user, user_html), (slot, slot_html) = at_first_token[0]
    assert "요즘 많이 힘드셨겠어요." in user_html and slot_html == ""
    assert page._messages.objects == [user, slot]
    assert 'class="vl-msg response-message"' in slot.object
    assert [m["role"] for m in page.history] == ["user", "agent"]


def test_a_refused_turn_leaves_no_empty_slot(service, clock):
    page = _page(service)
    page.start()
    assert page.send("안녕하세요.")
    clock.now += timedelta(minutes=66)
    assert asyncio.run(page.send_async("아직 할 말이 있어요.")) is False
    assert len(page._messages.objects) == 2 and all(p.object for p in page._messages.objects)
    assert [m["role"] for m in page.history] == ["user", "agent"]


def test_the_persona_form_does_not_build_the_service(duck_db, service):
    """A fresh page only shows the form: it must not import the engines (a new kernel per page
    load inside JupyterLab) — the service is built on the first action that needs it."""
    built = []

    def factory():
        built.append(1)
        return service
    page = SessionPage(factory, db=duck_db, user=KIM, token_delay=0)
    assert page.restore(None) is False and page.view == "setup" and built == []
    page.persona = "P4"
    assert page.start() and built == [1]
    assert page.send("안녕하세요.") and built == [1]
