"""Every page as its users meet it, at 1366×768 and 1920×1080, on a fresh database and on one with data.

For each page the test reads what is on screen in real Chromium (:mod:`_pages`: visible text of
the document and every shadow root, select options, interactive boxes) and fails when

- an interactive element lies outside the viewport horizontally, or the page scrolls sideways;
- a table header or a button cuts its text off;
- a code of the taxonomy or a shipped scheme (or a status, profile, difficulty) is visible as
  primary text — codes may only be secondary text in parentheses, tooltips, or ``<code>``
  commands;
- a raw epoch number is visible;
- an English word is visible outside parentheses (other than names, file formats and
  statistics abbreviations: ``_pages.ENGLISH_ALLOWED``);
- on a fresh database a page is blank instead of saying what to do next.

Screenshots of every page go to ``reports/screenshots/`` with ``--screenshots`` (or
``VIGNETTE_SCREENSHOTS=1``). With ``VIGNETTE_UPDATE_SCREENSHOTS=1`` the README pictures in
``docs/`` (session, review and agreement pages, one notebook plot) are regenerated, each
≤ 200 KB; without it the test checks that the pictures the README names exist and are small.
"""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _pages import (build_data_db, english_words, epoch_numbers, outside_viewport,  # noqa: E402
                    page_report, start_with_reports_home, untranslated)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
UPDATE = os.environ.get("VIGNETTE_UPDATE_SCREENSHOTS") == "1"
MAX_PICTURE_BYTES = 200_000
VIEWPORTS = {1366: 768, 1920: 1080}
README_PICTURES = {"session": "screenshot-session.png", "review": "screenshot-review.png",
                   "agreement": "screenshot-agreement.png"}
PLOT_PICTURE = "plot-openness-by-profile.png"


def _start(tmp: Path, live_server_cls):
    return start_with_reports_home(tmp, lambda: live_server_cls(tmp, mock_evaluator=False))[0]


@pytest.fixture(scope="module")
def servers(tmp_path_factory, live_server_cls):
    fresh_tmp = tmp_path_factory.mktemp("pages_fresh")
    data_tmp = tmp_path_factory.mktemp("pages_data")
    ids = build_data_db(data_tmp / "workbench.duckdb", data_tmp)
    fresh = _start(fresh_tmp, live_server_cls)
    try:
        data = _start(data_tmp, live_server_cls)
    except Exception:
        fresh.stop()
        raise
    yield {"fresh": (fresh, None), "data": (data, ids)}
    fresh.stop()
    data.stop()


def _settle(page) -> None:
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(400)  # Bokeh lays out after the last message


def _choose_round(page, round_id: str, ready: str) -> None:
    option = page.locator("select option", has_text=round_id[:8]).first.inner_text()
    page.locator("select").first.select_option(label=option)
    page.wait_for_selector(ready, timeout=60_000)


def _visit(page, url: str, name: str, ids: dict | None) -> None:
    """Open one page and bring it to the state a user would look at."""
    page.goto(url)
    if name == "index":
        page.wait_for_selector(".vl-sessions", timeout=60_000)
    elif name == "session":
        page.wait_for_selector(".vl-input input" if ids else ".vl-start button", timeout=60_000)
        if ids:
            # progress and credits follow once the page has loaded (they rebuild the live session)
            page.wait_for_selector(".vl-session[data-session-id] .vl-timer", timeout=60_000)
    elif name == "session_ended":
        page.wait_for_selector(".vl-review-body", timeout=60_000)
    elif name == "selfplay":
        page.wait_for_selector(".vl-selfplay-run button", timeout=60_000)
        if ids:
            page.locator(".vl-selfplay-sessions .tabulator-row").first.click()
            page.locator(".vl-selfplay-turns .tabulator-row").first.wait_for(timeout=30_000)
            page.locator(".vl-selfplay-turns").first.scroll_into_view_if_needed()
    elif name == "review":
        if ids:
            page.wait_for_selector("select", timeout=60_000)
            _choose_round(page, ids["review_round"], ".vl-review-target")
        else:
            page.wait_for_selector(".vl-review-empty .vl-empty", timeout=60_000)
    elif name == "agreement":
        if ids:
            page.wait_for_selector("select", timeout=60_000)
            _choose_round(page, ids["human_round"], ".vl-gate-verdict")
            page.wait_for_selector("a.vl-report-link", timeout=60_000)
        else:
            page.wait_for_selector(".vl-agreement-empty .vl-empty", timeout=60_000)
    _settle(page)


#: user ids of the demo data, shown as stored (a user id is data, not wording)
DATA_IDS = frozenset({"sim-adjudicator"})
EMPTY_STATES = {"index": "아직 회기가 없습니다", "selfplay": "저장된 셀프플레이 회기가 없습니다",
                "review": "검토할 라운드가 없습니다", "agreement": "검토할 라운드가 없습니다"}


def _small_png(page, path: Path, *, width: int = 1100) -> None:
    """A viewport screenshot scaled to ``width`` px and palette-reduced (README pictures)."""
    from PIL import Image

    image = Image.open(io.BytesIO(page.screenshot()))
    image = image.resize((width, round(image.height * width / image.width)), Image.LANCZOS)
    image.convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    assert path.stat().st_size <= MAX_PICTURE_BYTES, (path, path.stat().st_size)


@pytest.mark.parametrize("width", sorted(VIEWPORTS))
@pytest.mark.parametrize("kind", ["fresh", "data"])
def test_every_page_reads_in_korean_and_fits(servers, browser, screenshot, outside_requests, kind, width):
    srv, ids = servers[kind]
    names = ["index", "session", "selfplay", "review", "agreement"] + (["session_ended"] if ids else [])
    problems: list[str] = []
    for name in names:
        page = browser.new_page(viewport={"width": width, "height": VIEWPORTS[width]})
        outside = outside_requests(page)
        query = {"index": "", "session_ended": f"?page=session&session={ids['ended']}" if ids else ""}
        _visit(page, srv.url + "/" + query.get(name, f"?page={name}"), name, ids)
        report = page_report(page)
        where = f"{kind}/{name}@{width}"
        if report["scroll_width"] > width:
            problems.append(f"{where}: the page scrolls sideways ({report['scroll_width']} px)")
        problems += [f"{where}: outside the viewport: {b}" for b in outside_viewport(report)]
        problems += [f"{where}: text cut off in {t!r}" for t in report["clipped"]]
        problems += [f"{where}: table wider than its box by {t['overflow']} px, cut: {t['cut']}"
                     for t in report["tables"]]
        problems += [f"{where}: Korean text may break inside a word: {t!r}" for t in report["breakable"][:3]]
        problems += [f"{where}: untranslated code {code!r} in {text!r}" for code, text in untranslated(report["texts"])]
        problems += [f"{where}: raw epoch number {n}" for n in epoch_numbers(report["texts"] + report["code"])]
        problems += [f"{where}: English word {word!r} in {text!r}"
                     for word, text in english_words(report["texts"], ids=DATA_IDS)]
        if not ids and name in EMPTY_STATES and not any(EMPTY_STATES[name] in t for t in report["texts"]):
            problems.append(f"{where}: no empty-state hint {EMPTY_STATES[name]!r}")
        if ids and name == "agreement":
            # The report link carries the report itself (blob:), so it also works inside JupyterLab.
            href = page.locator("a.vl-report-link").first.get_attribute("href")
            assert href.startswith("blob:"), href
            body = page.evaluate("h => fetch(h).then(r => r.text())", href)
            assert "<html" in body.lower() and "게이트" in body
        if not ids and name == "review":
            # the form waits for a round: no categories, 저장 button, empty item box or ⌨ by the title
            shown = [sel for sel in (".vl-save", ".vl-techniques", ".vl-appropriateness", ".vl-review-context",
                                     ".vl-keys-ready", ".vl-shortcuts") if page.locator(sel).first.is_visible()]
            if shown:
                problems.append(f"{where}: labelling form shown before a round exists: {shown}")
        if ids and name == "review":
            line = page.locator(".vl-shortcuts small").first.inner_text()
            assert "상담 기법 1–9·0" in line and "적절성 a·s·d" in line, line
        if ids and name == "session":
            credits = page.locator(".vl-credits-label").first
            if not credits.is_visible() or not re.fullmatch(r"코치 도움 남은 횟수 \d/3", credits.inner_text()):
                problems.append(f"{where}: coach credits without their label")
        screenshot(page, f"pages_{kind}_{name}_{width}")
        if UPDATE and ids and width == 1366 and name in README_PICTURES:
            _small_png(page, DOCS / README_PICTURES[name])
        if ids and name == "review":  # after the pictures: this check presses Enter and opens the proposal
            problems += _review_form_problems(page, where, VIEWPORTS[width])
        assert outside == [], outside
        page.close()
    assert not problems, "\n".join(problems)


def _review_form_problems(page, where: str, height: int) -> list[str]:
    """The review form as a reviewer meets it: nothing pre-filled, the AI proposal hidden until
    asked (the button says what a click does), and 저장 with its message in view."""
    problems = []
    toggle = page.locator(".vl-proposal-toggle button").first
    if page.locator(".vl-proposal").count() and page.locator(".vl-proposal").first.is_visible():
        problems.append(f"{where}: the AI proposal is shown before the reviewer asks for it")
    if "보기" not in toggle.inner_text():
        problems.append(f"{where}: the proposal button reads {toggle.inner_text()!r} while it is hidden")
    unset = page.locator(".vl-score .bk-btn.bk-active, .vl-score button.bk-active")
    scores = page.locator(".vl-score").count()
    if scores == 0 or unset.count() != scores or any(unset.nth(i).inner_text() != "미입력" for i in range(scores)):
        problems.append(f"{where}: scores are pre-filled ({[unset.nth(i).inner_text() for i in range(unset.count())]})")
    page.keyboard.press("Enter")  # no technique chosen: refused, and the reviewer must see it
    message = page.locator(".vl-save-error").first
    message.wait_for(timeout=15_000)
    for what, loc in (("the refusal", message), ("저장", page.locator(".vl-save button").first)):
        box = loc.bounding_box()
        if box is None or box["y"] < 0 or box["y"] + box["height"] > height:
            problems.append(f"{where}: {what} is outside the first screen ({box})")
    page.locator(".vl-proposal-toggle button").first.click()
    page.locator(".vl-proposal").first.wait_for(timeout=15_000)
    if "숨기기" not in toggle.inner_text():
        problems.append(f"{where}: the proposal button reads {toggle.inner_text()!r} while it is shown")
    problems += [f"{where}: Korean text may break inside a word: {t!r}" for t in page_report(page)["breakable"][:3]]
    return problems


def test_report_link_opens_in_a_new_tab(servers, browser):
    srv, ids = servers["data"]
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    _visit(page, srv.url + "/?page=agreement", "agreement", ids)
    with page.expect_popup() as popup:
        page.locator("a.vl-report-link").first.click()
    report = popup.value
    report.wait_for_load_state()
    assert "게이트" in report.content()
    report.close()
    page.close()


def test_report_link_opens_inside_jupyterlab(tmp_path, browser):
    """Inside JupyterLab (``/vignette/``, or ``/panel-preview/render/…``) a path link would miss; the blob link opens."""
    from _jupyter import JupyterServer

    from vignette_lab.pipeline.demo import run_demo
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    db = connect(str(tmp_path / "jl.duckdb"))
    init_db(db)
    load_catalog(db)
    summary = run_demo(db, tmp_path / "demo", sessions=2, turns=3, personas=("P4",), reviewers=2, overlap=1.0,
                       seed=4, echo=None)
    db.close() if hasattr(db, "close") else None  # the kernel opens the same DuckDB file
    jl, _ = start_with_reports_home(tmp_path, lambda: JupyterServer(tmp_path, db_path=tmp_path / "jl.duckdb"))
    try:
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.set_default_timeout(180_000)  # the first page load inside JupyterLab starts the workbench server
        page.goto(jl.app_url("page=agreement"))
        page.wait_for_selector("select")
        _choose_round(page, summary["human_round"], ".vl-gate-verdict")
        link = page.locator("a.vl-report-link").first
        link.wait_for()
        assert link.get_attribute("href").startswith("blob:")
        with page.expect_popup() as popup:
            link.click()
        report = popup.value
        report.wait_for_load_state()
        assert "게이트" in report.content() and "Kernel Error" not in report.content()
        page.close()
    finally:
        jl.stop()


def test_readme_pictures_exist_and_are_small(tmp_path):
    """The README's pictures are in docs/, each ≤ 200 KB; regenerated with VIGNETTE_UPDATE_SCREENSHOTS=1."""
    if UPDATE:
        _notebook_plot(tmp_path, DOCS / PLOT_PICTURE)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = re.findall(r"\]\((docs/[^)]+\.png)\)", readme)
    expected = {f"docs/{p}" for p in (*README_PICTURES.values(), PLOT_PICTURE)}
    assert expected <= set(named), (expected, named)
    for rel in named:
        path = ROOT / rel
        assert path.is_file(), rel
        assert 0 < path.stat().st_size <= MAX_PICTURE_BYTES, (rel, path.stat().st_size)


def _notebook_plot(tmp: Path, out: Path) -> None:
    """Notebook 01's plot: openness by counselor profile over a scripted self-play batch."""
    import matplotlib

    matplotlib.use("Agg")
    from vignette_lab.analytics.plot_style import plot_openness_trajectories
    from vignette_lab.session.selfplay import run_selfplay
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    db = connect(str(tmp / "plot.duckdb"))
    init_db(db)
    load_catalog(db)
    batches = [run_selfplay(db, personas=("P1", "P4"), counselor=profile, sessions=1, turns=6, seed=11,
                            progress=False) for profile in ("skilled", "novice", "advice-jumper")]
    fig = plot_openness_trajectories([s for res in batches for s in res.sessions])
    fig.savefig(out, dpi=90, bbox_inches="tight")
    assert out.stat().st_size <= MAX_PICTURE_BYTES, out.stat().st_size
