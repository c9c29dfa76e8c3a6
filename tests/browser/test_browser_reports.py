"""In Chromium: an anonymous visitor and a trainee never get a report or a log (issue 14 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_app_http_security import FORBIDDEN_URLS, REPORT_URLS, Server
from vignette_lab.app.auth import add_user


@pytest.fixture
def report_server(tmp_path, duck_db):
    root = tmp_path / "reports"
    (root / "img").mkdir(parents=True)
    (root / "gate_round1.html").write_text("<html><body><h1>게이트 보고서</h1></body></html>", encoding="utf-8")
    (root / "img" / "plot.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    (root / "jupyter.log").write_text("http://127.0.0.1:8888/lab?token=deadbeef\n", encoding="utf-8")
    (root / "panel.log").write_text("log\n", encoding="utf-8")
    users = tmp_path / "users.json"
    add_user(users, "kim", "kim-pw", roles=["trainee"], rounds=4)
    add_user(users, "prof", "prof-pw", roles=["faculty"], rounds=4)
    path = duck_db.path
    duck_db.close()
    server = Server(tmp_path, Path(path), users, root)
    yield server
    server.stop()


def _login(context, base: str, user: str, password: str):
    page = context.new_page()
    page.goto(base + "/login")
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("#login-submit")
    page.wait_for_load_state()
    return page


def test_anonymous_and_trainee_never_see_reports_or_logs(report_server, browser, screenshot):
    base = f"http://127.0.0.1:{report_server.port}"
    anon = browser.new_context()
    page = anon.new_page()
    for url in REPORT_URLS + ["/reports/jupyter.log"]:
        response = page.goto(base + url)
        assert "/login" in page.url, url  # 302 → the login page
        assert "deadbeef" not in page.content() and response.status == 200
    screenshot(page, "reports_anonymous")
    anon.close()

    trainee = browser.new_context()
    page = _login(trainee, base, "kim", "kim-pw")
    assert "/login" not in page.url
    for url in REPORT_URLS + FORBIDDEN_URLS:
        response = page.goto(base + url)
        assert response.status in (403, 404), (url, response.status)
        assert "deadbeef" not in page.content() and "게이트 보고서" not in page.content()
    page.goto(base + REPORT_URLS[0])
    assert "연구자·교수·관리자만" in page.content()
    screenshot(page, "reports_trainee_403")
    trainee.close()

    staff = browser.new_context()
    page = _login(staff, base, "prof", "prof-pw")
    response = page.goto(base + REPORT_URLS[0])
    assert response.status == 200 and "게이트 보고서" in page.content()
    assert page.goto(base + "/reports/jupyter.log").status == 404
    page.goto(base + "/logout")
    assert "/login" in (page.goto(base + REPORT_URLS[0]) and page.url)
    staff.close()
