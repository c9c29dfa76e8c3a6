"""Login with a bcrypt users file: a trainee is refused another trainee's session and the
staff pages; a reviewer labels an item with the keyboard."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from vignette_lab.app.auth import add_user


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, live_server_cls):
    from vignette_lab.pipeline.demo import run_demo
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    tmp = tmp_path_factory.mktemp("browser_auth")
    users = tmp / "users.json"
    for uid, pw, roles in (("kim", "kim-pw", ["trainee"]), ("lee", "lee-pw", ["trainee"]),
                           ("rev", "rev-pw", ["researcher"])):
        add_user(users, uid, pw, roles=roles, rounds=4)
    db = connect(str(tmp / "workbench.duckdb"))
    init_db(db)
    load_catalog(db)
    summary = run_demo(db, tmp / "demo", sessions=2, turns=3, personas=("P4",), reviewers=2, overlap=1.0,
                       seed=2, echo=None)
    human = create_round(db, summary["dataset_id"], "human_review", ai_round_id=summary["ai_round"])
    assign_reviewers(db, human, ["rev", "rev-2"], overlap=1.0, seed=0)
    db.close() if hasattr(db, "close") else None
    srv = live_server_cls(tmp, users_file=users, mock_evaluator=False)
    yield srv, human, summary
    srv.stop()


def _login(browser, url, user, password):
    context = browser.new_context(viewport={"width": 1300, "height": 950})
    page = context.new_page()
    page.goto(url + "/login")
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("#login-submit")
    page.wait_for_load_state("networkidle")
    return context, page


def test_wrong_password_is_refused(prepared, browser):
    srv, _, _ = prepared
    context, page = _login(browser, srv.url, "kim", "wrong")
    assert "/login" in page.url
    page.goto(srv.url + "/session")
    assert "/login" in page.url  # still not signed in
    context.close()


def test_trainee_cannot_open_another_trainees_session_or_staff_pages(prepared, browser, screenshot,
                                                                     outside_requests):
    srv, _, _ = prepared
    context, page = _login(browser, srv.url, "lee", "lee-pw")
    page.goto(srv.url + "/session")
    page.wait_for_selector(".vl-start button", timeout=60_000)
    page.click(".vl-start button")
    page.wait_for_selector(".vl-input input", timeout=60_000)
    page.fill(".vl-input input", "안녕하세요. 오늘 어떤 이야기를 하고 싶으세요?")
    page.click(".vl-send button")
    page.wait_for_selector(".response-message", timeout=60_000)
    page.wait_for_selector("[data-session-id]", timeout=30_000)
    session_id = page.locator("[data-session-id]").first.get_attribute("data-session-id")
    context.close()

    context, page = _login(browser, srv.url, "kim", "kim-pw")
    outside = outside_requests(page)
    page.goto(f"{srv.url}/session?session={session_id}")
    page.wait_for_selector(".vl-notice .vl-refused", timeout=60_000)
    assert "권한이 없습니다" in page.locator(".vl-notice .vl-refused").first.inner_text()
    assert page.locator(".user-message").count() == 0
    screenshot(page, "session_denied")
    page.goto(srv.url + "/review")
    page.wait_for_selector(".vl-denied .vl-refused", timeout=60_000)
    assert "열 수 없습니다" in page.locator(".vl-denied .vl-refused").first.inner_text()
    page.goto(srv.url + "/")
    page.wait_for_selector(".vl-page-link", timeout=60_000)
    pages = [a.get_attribute("data-page") for a in page.locator(".vl-page-link").all()]
    assert pages == ["session"]
    assert outside == [], outside
    context.close()


def test_reviewer_labels_with_the_keyboard(prepared, browser, screenshot):
    srv, human, summary = prepared
    context, page = _login(browser, srv.url, "rev", "rev-pw")
    page.goto(srv.url + "/review")
    page.wait_for_selector("select", timeout=60_000)
    option = page.locator("select option", has_text=str(human)[:8]).first.inner_text()
    page.locator("select").first.select_option(label=option)
    page.wait_for_selector(".vl-review-target", timeout=60_000)
    page.wait_for_selector(".vl-keys-ready", timeout=30_000)
    first_item = page.locator(".vl-review-target").first.get_attribute("data-item-id")
    assert page.locator(".vl-review-count").first.get_attribute("data-done") == "0"
    page.locator(".vl-review-header").first.click()  # focus the page, not a text field
    # Clear any starting labels, then: technique 1, appropriateness "pos", save.
    for box in page.locator(".vl-techniques input[type=checkbox]:checked").all():
        box.uncheck()
    time.sleep(0.3)
    page.keyboard.press("1")
    page.keyboard.press("a")
    # Key → Python → checkbox model → browser is a server round trip: wait for it.
    expect(page.locator(".vl-techniques input[type=checkbox]").first).to_be_checked(timeout=20_000)
    screenshot(page, "review")
    started = time.time()
    page.keyboard.press("Enter")
    page.wait_for_selector(".vl-review-count[data-done='1']", timeout=30_000)
    assert page.locator(".vl-review-target").first.get_attribute("data-item-id") != first_item
    assert time.time() - started < 30
    context.close()
