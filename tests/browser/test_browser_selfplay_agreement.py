"""Self-play and agreement pages in the real browser (single-user local mode).

Self-play: run P4 × ``skilled`` from the form, wait for the progress bar, open the stored
session's per-turn table, and run again with the same seed (same first client line).
Agreement: a demo pipeline run stores a gate decision before the server starts; the page
shows κ/α/ICC with CIs, the stored verdict, disagreements and a served HTML report link.
"""

from __future__ import annotations

import re
import sys
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

sys.path.insert(0, str(Path(__file__).parent))
from _pages import start_with_reports_home  # noqa: E402


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, live_server_cls):
    from vignette_lab.app.agreement_page import latest_gate
    from vignette_lab.pipeline.adjudicate import disagreements
    from vignette_lab.pipeline.demo import run_demo
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    tmp = tmp_path_factory.mktemp("browser_selfplay_agreement")
    db = connect(str(tmp / "workbench.duckdb"))
    init_db(db)
    load_catalog(db)
    summary = run_demo(db, tmp / "demo", sessions=2, turns=3, personas=("P4",), reviewers=2, overlap=1.0,
                       seed=4, echo=None)
    round_id = summary["human_round"]
    gate = latest_gate(db, round_id)
    n_disagreements = len(disagreements(db, round_id, include_resolved=True))
    db.close() if hasattr(db, "close") else None  # the server process opens the same DuckDB file
    # The server writes gate reports under VIGNETTE_HOME/reports: keep them out of the checkout.
    srv, home = start_with_reports_home(tmp, lambda: live_server_cls(tmp, mock_evaluator=False))
    yield srv, round_id, gate, n_disagreements, home
    srv.stop()


def _set_int(page, label: str, value: int) -> None:
    box = page.locator(".bk-input-group", has=page.locator(f"label:text-is('{label}')")).locator("input")
    box.fill(str(value))
    box.press("Enter")


def _run_and_wait(page, runs_before: int) -> None:
    page.click(".vl-selfplay-run button")
    page.wait_for_selector(".vl-selfplay-done", timeout=45_000)
    progress = page.locator(".vl-selfplay-progress progress")
    page.wait_for_function("e => e.value > 0 && e.value === e.max", arg=progress.element_handle(), timeout=10_000)
    # The session list refreshes after the run: wait for the new row.
    _rows(page, ".vl-selfplay-sessions").nth(runs_before).wait_for(timeout=20_000)


def _rows(page, css: str):
    return page.locator(f"{css} .tabulator-row")


def _open_session(page, index: int, n_turns: int) -> list[dict[str, str]]:
    """Click row ``index`` of the session list and read its per-turn table once it has ``n_turns`` rows."""
    row = _rows(page, ".vl-selfplay-sessions").nth(index)
    row.click()
    # Counting rows (not just waiting for any) makes sure the table shows *this* session.
    expect(_rows(page, ".vl-selfplay-turns")).to_have_count(n_turns, timeout=20_000)
    expect(row).to_have_class(re.compile("tabulator-selected"))
    fields = ["seq", "speaker", "text", "intended_technique", "stage", "openness"]
    return [{f: r.locator(f".tabulator-cell[tabulator-field='{f}']").inner_text().strip() for f in fields}
            for r in _rows(page, ".vl-selfplay-turns").all()]


def test_selfplay_run_browse_and_determinism(prepared, browser, screenshot, outside_requests):
    srv = prepared[0]
    page = browser.new_page(viewport={"width": 1300, "height": 1400})
    outside = outside_requests(page)
    page.goto(srv.url + "/selfplay")
    page.wait_for_selector(".vl-selfplay-run button", timeout=60_000)
    assert "P4" in page.locator(".choices").first.inner_text()  # default persona already chosen
    page.locator("select:not([multiple])").first.select_option(label="숙련 상담자")
    _set_int(page, "페르소나별 회기 수", 1)
    _set_int(page, "회기당 상담자 턴", 6)
    _set_int(page, "시드", 11)
    before = _rows(page, ".vl-selfplay-sessions").count()

    _run_and_wait(page, before)
    rows = _rows(page, ".vl-selfplay-sessions")
    assert rows.count() == before + 1
    assert "P4" in rows.first.inner_text() and "숙련 상담자" in rows.first.inner_text()
    first_id = rows.first.locator(".tabulator-cell[tabulator-field='session_id']").inner_text()
    turns = _open_session(page, 0, 2 * 6)  # six counselor turns, each answered
    counselor = [t for t in turns if t["speaker"] == "상담자"]
    client = [t for t in turns if t["speaker"] == "내담자"]
    assert len(counselor) == len(client) == 6, turns
    assert all(t["intended_technique"] for t in counselor), counselor
    assert all(t["stage"] and float(t["openness"]) >= 0 for t in turns), turns
    first_line = client[0]["text"]
    assert first_line
    screenshot(page, "selfplay_run")

    # Same seed again in the same database: a new batch and a new stored session. It continues the
    # same (persona, learner) case, so the client may remember session 1 and its lines can differ;
    # same seed on a fresh database gives the same transcript (tests/test_selfplay.py).
    _run_and_wait(page, before + 1)
    assert rows.count() == before + 2
    assert rows.first.locator(".tabulator-cell[tabulator-field='session_id']").inner_text() != first_id
    _open_session(page, 2, 2 * 3)  # a demo session first, so the table visibly changes
    again = _open_session(page, 0, 2 * 6)
    assert len([t for t in again if t["speaker"] == "내담자"]) == 6 and again != turns
    assert outside == [], outside
    page.close()


def test_agreement_round_gate_and_report(prepared, browser, screenshot, outside_requests):
    srv, round_id, gate, n_disagreements, home = prepared
    page = browser.new_page(viewport={"width": 1300, "height": 1400})
    outside = outside_requests(page)
    page.goto(srv.url + "/agreement")
    page.wait_for_selector("select", timeout=60_000)
    label = page.locator("select option", has_text=round_id[:8]).first.inner_text()
    page.locator("select").first.select_option(label=label)
    page.wait_for_selector(".vl-gate-verdict", timeout=30_000)

    verdict = page.locator(".vl-gate-verdict").first
    assert verdict.get_attribute("data-passed") == str(int(bool(gate["passed"])))
    text = verdict.inner_text()
    assert ("미통과" not in text) == bool(gate["passed"]) and ("통과" in text)
    if gate.get("override_reason"):
        assert "예외 승인" in text
    # κ / α / ICC tables with CI columns and numeric cells.
    for css, metric in ((".vl-appropriateness", "κ"), (".vl-per-label", "κ"), (".vl-icc", "ICC")):
        table = page.locator(f"table{css}").first
        heads = [h.strip() for h in table.locator("th").all_inner_texts()]
        assert {metric, "CI 하한", "CI 상한", "α"} <= set(heads), (css, heads)
        cells = table.locator("tr").nth(1).locator("td").all_inner_texts()
        value = cells[heads.index(metric)]
        assert value == "–" or -1.0 <= float(value) <= 1.0, (css, cells)
    assert any(c.replace(".", "", 1).lstrip("-").isdigit()
               for c in page.locator("table.vl-per-label td, table.vl-icc td").all_inner_texts())
    if n_disagreements:
        assert page.locator(".vl-disagreements li").count() == min(5, n_disagreements)
    else:
        # the pane's HTML lives in Panel's shadow DOM: the host's innerText is empty, so read the paragraph
        assert "불일치 사례 없음" in page.locator(".vl-disagreements-none, .vl-field-disagreements-none").first.inner_text()

    # The link carries the report (blob:), so it works inside JupyterLab too; the file is also
    # written to the report folder, which the standalone server serves under /reports/.
    href = page.locator("a.vl-report-link").first.get_attribute("href")
    assert href.startswith("blob:"), href
    assert "<html" in page.evaluate("h => fetch(h).then(r => r.text())", href).lower()
    name = page.locator("a.vl-report-download").first.get_attribute("download")
    assert name.endswith(".html") and (home / "reports" / name).is_file()
    with urllib.request.urlopen(f"{srv.url}/reports/{name}", timeout=10) as resp:
        assert resp.status == 200
        assert "<html" in resp.read().decode("utf-8").lower()
    screenshot(page, "agreement_round")
    assert outside == [], outside
    page.close()


_CUT = """els => els.filter(e => e.innerText.trim())  // not Panel's empty trailing cell
                 .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
                 .map(e => e.innerText)"""
_PAST_EDGE = """els => { const t = els[0].closest('.tabulator').getBoundingClientRect();
                        return els.filter(e => e.getBoundingClientRect().right > t.right + 0.5)
                                  .map(e => e.innerText); }"""


def test_selfplay_tables_fit_at_1366_and_no_empty_progress_box(prepared, browser, screenshot):
    """QA round 5: cut 의도한 기법 cells, the last header clipped at 1366 px, an empty progress box."""
    srv = prepared[0]
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(srv.url + "/selfplay")
    page.wait_for_selector(".vl-selfplay-run button", timeout=60_000)
    assert not page.locator(".vl-selfplay-progress").first.is_visible()  # nothing has run yet
    _set_int(page, "페르소나별 회기 수", 1)
    _set_int(page, "회기당 상담자 턴", 3)
    before = _rows(page, ".vl-selfplay-sessions").count()
    _run_and_wait(page, before)
    assert page.locator(".vl-selfplay-progress").first.is_visible()
    _open_session(page, 0, 2 * 3)
    page.locator(".vl-selfplay-turns").scroll_into_view_if_needed()
    screenshot(page, "selfplay_tables_1366")
    for table in (".vl-selfplay-sessions", ".vl-selfplay-turns"):
        cells = page.locator(f"{table} .tabulator-row .tabulator-cell")
        assert cells.count() > 0
        assert cells.evaluate_all(_CUT) == [], table
        titles = page.locator(f"{table} .tabulator-col .tabulator-col-title")
        assert titles.evaluate_all(_CUT) == [], table
        assert page.locator(f"{table} .tabulator-col").evaluate_all(_PAST_EDGE) == [], table
        # Tabulator's filler column after the last one shows no (cut) sort arrow
        filler = page.locator(f"{table} .tabulator-col:not([tabulator-field]) .tabulator-col-sorter")
        assert all(not f.is_visible() for f in filler.all()), table
    techniques = page.locator(".vl-selfplay-turns .tabulator-cell[tabulator-field='intended_technique']")
    assert any("(" in t and t.rstrip().endswith(")") for t in techniques.all_inner_texts())  # label and code, whole
    page.close()
