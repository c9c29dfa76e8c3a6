"""A full trainee session in the real browser: streaming, blank input, coach markdown, review."""

from __future__ import annotations

import time

import pytest

@pytest.fixture(scope="module")
def server(tmp_path_factory, live_server_cls):
    srv = live_server_cls(tmp_path_factory.mktemp("browser_session"), mock_evaluator=True)
    yield srv
    srv.stop()


def _send_and_watch(page, text: str) -> list[str]:
    """Press send and sample the newest client message until the turn is done."""
    before = page.locator(".response-message").count()
    page.fill(".vl-input input", text)
    page.click(".vl-send button")
    snapshots: list[str] = []
    deadline = time.time() + 60
    while time.time() < deadline:
        if page.locator(".response-message").count() > before:
            snapshots.append(page.locator(".response-message .vl-body").last.inner_text())
            if page.locator("[data-state='idle']").count() and page.locator("[data-streaming='1']").count() == 0:
                break
        time.sleep(0.005)
    return snapshots


def test_trainee_session_end_to_end(server, browser, screenshot, outside_requests):
    page = browser.new_page(viewport={"width": 1300, "height": 950})
    outside = outside_requests(page)
    page.goto(server.url + "/session")
    page.wait_for_selector(".vl-start button", timeout=60_000)
    assert "P1" in page.inner_text(".bk-input, select") or page.locator("select").count() >= 1
    screenshot(page, "session_setup")
    page.click(".vl-start button")
    page.wait_for_selector(".vl-input input", timeout=60_000)

    # Streaming: the same client message is seen growing before it is complete.
    snaps = _send_and_watch(page, "안녕하세요. 오늘 어떤 이야기를 나누고 싶으세요?")
    distinct = [s for i, s in enumerate(snaps) if s and (i == 0 or s != snaps[i - 1])]
    assert len(distinct) >= 2, snaps
    assert distinct[-1].startswith(distinct[0].rstrip("…").strip()[:1])
    assert len(distinct[-1]) > len(distinct[0])
    for text in ("요즘 많이 힘드셨겠어요.", "그때 어떤 기분이 드셨어요?"):
        _send_and_watch(page, text)
    assert page.locator(".user-message").count() == 3
    assert page.locator(".response-message:not(.coach)").count() == 3

    # Blank input changes nothing: no message, no reply, no state line change.
    page.fill(".vl-input input", "    ")
    page.click(".vl-send button")
    time.sleep(1.0)
    assert page.locator(".user-message").count() == 3
    assert page.locator("[data-state='idle']").count() == 1

    # Labels and alignment derive from the role; client replies are bubble-less.
    first_user = page.locator(".user-message").first
    assert first_user.get_attribute("data-align") == "right"
    assert page.locator(".response-message").first.get_attribute("data-align") == "left"
    bubble = page.locator(".response-message .vl-body").first.evaluate(
        "e => getComputedStyle(e).backgroundColor")
    assert bubble in ("rgba(0, 0, 0, 0)", "transparent")

    # Live coach: card with a markdown table and fenced code; its <script> is inert.
    page.click(".vl-coach button")
    page.wait_for_selector(".vl-msg.coach table", timeout=30_000)
    assert page.locator(".vl-msg.coach pre code").count() == 1
    assert page.locator(".vl-msg.coach th").first.get_attribute("style") == "text-align:left"
    assert page.locator(".vl-msg.coach script").count() == 0
    assert page.evaluate("window.__vl_xss === undefined")
    assert page.locator(".vl-credits").first.inner_text() == "●●○"
    screenshot(page, "session_chat")

    # The progress panel never shows ideation.
    panel_text = page.locator(".vl-progress").first.inner_text()
    assert "자살" not in panel_text and "ideation" not in panel_text

    page.click(".vl-end button")
    page.wait_for_selector(".vl-review-body", timeout=60_000)
    review = page.locator(".vl-review-body").first.inner_text()
    assert "기법 분포" in review
    assert "잘한 점" in review or "평가 대기 중" in review or "심층 평가" in review
    screenshot(page, "session_review")
    assert outside == [], outside
    page.close()


def test_reload_mid_session_follows_new_replies_and_end_header_says_ended(server, browser, screenshot):
    """QA round 5: after a reload the chat stayed at the top; the review header said 진행 중."""
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(server.url + "/session")
    page.wait_for_selector(".vl-start button", timeout=60_000)
    page.click(".vl-start button")
    page.wait_for_selector(".vl-input input", timeout=60_000)
    for text in ("안녕하세요. 만나서 반가워요.", "요즘 어떻게 지내요?", "시험 생각하면 어떤 마음이 들어요?",
                 "그럴 때 몸은 어떤 느낌이에요?"):
        _send_and_watch(page, text)
    page.reload()
    page.wait_for_selector(".vl-input input", timeout=60_000)
    deadline = time.time() + 30
    while page.locator(".user-message").count() < 4 and time.time() < deadline:
        time.sleep(0.1)
    assert page.locator(".user-message").count() == 4
    for text in ("그 마음을 조금 더 이야기해 줄래요?", "가장 힘든 순간은 언제예요?"):
        _send_and_watch(page, text)
    time.sleep(1.0)
    # The newest reply is inside the visible part of the transcript (scrolled to the bottom).
    gap = page.evaluate("""() => {
        const find = (root) => {
            for (const el of root.querySelectorAll('*')) {
                if (el.classList && el.classList.contains('vl-messages')) return el;
                if (el.shadowRoot) { const f = find(el.shadowRoot); if (f) return f; }
            }
            return null;
        };
        const col = find(document);
        return col.scrollHeight - col.scrollTop - col.clientHeight;
    }""")
    screenshot(page, "session_after_reload_send")
    assert gap <= 200, gap
    last = page.locator(".response-message .vl-body").last.bounding_box()
    assert last is not None and last["y"] + min(last["height"], 20) <= 768

    page.click(".vl-end button")
    page.wait_for_selector(".vl-review-body", timeout=60_000)
    header = page.locator(".vl-chat-title").first.inner_text()
    screenshot(page, "session_review_after_end")
    assert "종료" in header and "진행 중" not in header, header
    page.close()


def _heading_sizes(page, names: tuple[str, ...]) -> dict[str, str]:
    sizes = {}
    for name in names:
        loc = page.locator("h1, h2, h3, h4", has_text=name).first
        loc.wait_for(timeout=30_000)
        sizes[name] = loc.evaluate("e => getComputedStyle(e).fontSize")
    return sizes


def test_headings_keep_their_size_after_a_reload_and_on_reopen(server, browser, screenshot):
    """QA round 5: headings built with the page (reload, reopened review) were smaller."""
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(server.url + "/session")
    page.wait_for_selector(".vl-start button", timeout=60_000)
    page.click(".vl-start button")
    page.wait_for_selector(".vl-input input", timeout=60_000)
    _send_and_watch(page, "안녕하세요. 오늘 어떤 이야기를 하고 싶으세요?")
    live = _heading_sizes(page, ("진행 상황", "라이브 코치"))
    page.reload()
    page.wait_for_selector(".vl-input input", timeout=60_000)
    assert _heading_sizes(page, ("진행 상황", "라이브 코치")) == live
    page.click(".vl-end button")
    page.wait_for_selector(".vl-review-body", timeout=60_000)
    ended = _heading_sizes(page, ("회기 리뷰", "축어록", "리뷰"))
    page.reload()
    page.wait_for_selector(".vl-review-body", timeout=60_000)
    screenshot(page, "session_review_reopened")
    assert _heading_sizes(page, ("회기 리뷰", "축어록", "리뷰")) == ended
    assert ended["축어록"] == live["진행 상황"]  # section headings: one size on both views
    page.close()
