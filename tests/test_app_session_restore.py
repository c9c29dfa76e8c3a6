"""A reload loses nothing: the session page rebuilt from the database (no browser)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from vignette_lab.app.auth import User
from vignette_lab.app.serve import PAGES, page_href
from vignette_lab.app.session_page import SessionPage
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo

KIM = User("kim", frozenset({"trainee"}), "2026-1")
LEE = User("lee", frozenset({"trainee"}), "2026-1")


class Clock:
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


def _reload(service, user=KIM, session_id=None):
    """What the server does for a new browser session: a fresh page, then restore()."""
    page = SessionPage(service, user=user, token_delay=0)
    opened = page.restore(session_id)
    return page, opened


def test_reload_restores_transcript_timer_credits_and_cards(service, clock):
    page = SessionPage(service, user=KIM, token_delay=0)
    page.persona = "P4"
    sid = page.start()
    page.send("안녕하세요. 오늘 어떤 이야기를 하고 싶으세요?")
    page.request_coach()
    clock.now += timedelta(minutes=7)
    page.send("요즘 많이 힘드셨겠어요.")
    before = [(m["role"], m["kind"], m["body"]) for m in page.history]
    progress = page.refresh_progress()

    # A new service too: nothing of the old process' memory is used.
    fresh = SessionService(service.db, engine=ScriptedEngine(seed=5), clock=clock)
    again, opened = _reload(fresh)
    assert opened and again.session_id == sid and again.view == "chat"
    assert [(m["role"], m["kind"], m["body"]) for m in again.history] == before
    assert [m["kind"] for m in again.history] == ["chat", "chat", "coach", "chat", "chat"]
    assert again.coach_credits == page.coach_credits == service.coach_credits(sid)
    assert len(again.coach_cards) == 1
    assert again.refresh_progress()["elapsed_s"] == progress["elapsed_s"]
    assert "이어서" in again.notice


def test_reload_with_the_session_in_the_url_opens_that_one(service, clock):
    first = SessionPage(service, user=KIM, token_delay=0)
    sid1 = first.start()
    first.send("안녕하세요.")
    clock.now += timedelta(minutes=1)
    second = SessionPage(service, user=KIM, token_delay=0)
    sid2 = second.start()
    page, opened = _reload(service, session_id=sid1)
    assert opened and page.session_id == sid1
    page, _ = _reload(service)  # no id: the latest session in progress
    assert page.session_id == sid2


def test_ended_session_shows_its_transcript_beside_the_review(service):
    page = SessionPage(service, user=KIM, token_delay=0)
    sid = page.start()
    page.send("안녕하세요. 오늘 어떤 이야기를 하고 싶으세요?")
    page.end()
    # Ended: a reload without an id starts fresh (nothing in progress) …
    fresh, opened = _reload(service)
    assert not opened and fresh.view == "setup"
    # … and the ended session's own link shows the review with the transcript next to it.
    again, opened = _reload(service, session_id=sid)
    assert opened and again.view == "review"
    assert [m["role"] for m in again.history] == ["user", "agent"]
    assert again._messages in again._body.objects[-1][0].objects
    assert again._review_pane in again._body.objects[-1][1].objects


def test_another_trainee_gets_no_restore_of_someone_elses_session(service):
    page = SessionPage(service, user=KIM, token_delay=0)
    sid = page.start()
    assert app_repo.latest_active_session(service.db, learner_id="lee") is None
    other, opened = _reload(service, user=LEE)
    assert not opened and other.view == "setup"
    other, opened = _reload(service, user=LEE, session_id=sid)
    assert not opened and other.view == "denied"


def test_page_links_are_query_only_so_they_work_under_any_prefix():
    for page in PAGES:
        assert page_href(page) == f"?page={page}"
    assert page_href("session", session="a b&c") == "?page=session&amp;session=a+b%26c"
