"""Review page at 1366 and 1920 px: every category of any scheme (the default taxonomy too) is
on screen with its key.

Two rounds assigned to the single local user: one on the published-style example corpus with
its own scheme (therapist and client fields), one on the default Korean taxonomy (whose last
client states "협력" and "위기신호" used to run off the label column).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "datasets" / "examples"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory, live_server_cls):
    from vignette_lab.pipeline.annotations_io import import_annotations  # noqa: F401
    from vignette_lab.pipeline.datasets import import_transcripts
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round
    from vignette_lab.pipeline.schemes import import_scheme
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    tmp = tmp_path_factory.mktemp("browser_review_scheme")
    db = connect(str(tmp / "workbench.duckdb"))
    init_db(db)
    load_catalog(db)
    import_scheme(db, EX / "mi_corpus_scheme.json")
    did = import_transcripts(db, EX / "mi_corpus.csv", scheme="mi-corpus", keep_extra=True,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "speaker": "interlocutor", "text": "utterance_text"},
                             speaker_map={"therapist": "counselor", "client": "client"})
    mi = create_round(db, did, "human_review")
    assign_reviewers(db, mi, ["local"], overlap=0)
    src = tmp / "t.jsonl"
    src.write_text("".join(json.dumps({"session_id": "s", "seq": i, "speaker": sp, "text": t},
                                      ensure_ascii=False) + "\n"
                           for i, (sp, t) in enumerate([("counselor", "요즘 어떻게 지내요?"),
                                                        ("client", "그냥 그래요.")])), encoding="utf-8")
    tax = create_round(db, import_transcripts(db, src), "human_review")
    assign_reviewers(db, tax, ["local"], overlap=0)
    db.close() if hasattr(db, "close") else None
    srv = live_server_cls(tmp, mock_evaluator=False)
    yield srv, mi, tax
    srv.stop()


def _open(browser, srv, round_id, width):
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.goto(srv.url + "/review")
    page.wait_for_selector("select", timeout=60_000)
    option = page.locator("select option", has_text=str(round_id)[:8]).first.inner_text()
    page.locator("select").first.select_option(label=option)
    page.wait_for_selector(".vl-review-target", timeout=60_000)
    return page


def _on_screen(page, locator, width):
    n = locator.count()
    assert n > 0
    for i in range(n):
        el = locator.nth(i)
        box = el.bounding_box()
        assert box is not None, el.inner_text()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (el.inner_text(), box, width)
    return [locator.nth(i).inner_text() for i in range(n)]


@pytest.mark.parametrize("width", [1366, 1920])
def test_scheme_categories_have_keys_and_stay_on_screen(prepared, browser, screenshot, width):
    srv, mi, _ = prepared
    page = _open(browser, srv, mi, width)
    texts = _on_screen(page, page.locator(".vl-field-single label >> visible=true"), width)
    # the field of the item's speaker is shown, with a key before every category label
    target = page.locator(".vl-review-target").first.inner_text()
    wanted = ("반영", "질문", "상담자 제시", "기타") if target.startswith("상담자") else \
        ("변화대화", "중립대화", "유지대화")
    for ko in wanted:
        hit = [t for t in texts if ko in t]
        assert hit and all(" · " in t and t.split(" · ")[0].strip() for t in hit), (ko, texts)
    screenshot(page, f"review_scheme_{width}")
    page.close()


@pytest.mark.parametrize("width", [1366, 1920])
def test_default_scheme_categories_have_keys_and_stay_on_screen(prepared, browser, screenshot, width):
    """Every technique, client state and appropriateness of the default taxonomy is on screen
    with its key; pressing a client state's key ticks it."""
    from vignette_lab.core.scheme import default_scheme
    from vignette_lab.pipeline.review import scheme_keys

    srv, _, tax = prepared
    keys = scheme_keys(default_scheme())["counselor"]
    key_of = {fc: k for k, fc in keys.items()}
    scheme = {f.name: f for f in default_scheme().fields}
    page = _open(browser, srv, tax, width)
    for css, field in ((".vl-techniques", "techniques"), (".vl-states", "client_state")):
        texts = _on_screen(page, page.locator(f"{css} label >> visible=true"), width)
        assert len(texts) == len(scheme[field].categories)
        for c in scheme[field].categories:
            assert f"{key_of[(field, c.code)]} · {c.label_ko}" in texts, (c.label_ko, texts)
    texts = _on_screen(page, page.locator(".vl-appropriateness button >> visible=true"), width)
    for c in scheme["appropriateness"].categories:
        assert f"{c.label_ko} ({key_of[('appropriateness', c.code)]})" in texts, texts
    from playwright.sync_api import expect

    crisis = page.locator(".vl-states label", has_text="위기신호").locator("input")
    expect(crisis).not_to_be_checked()
    page.wait_for_selector(".vl-keys-ready", timeout=30_000)
    page.locator(".vl-review-header").first.click()  # focus the page, not a text field
    page.keyboard.press(key_of[("client_state", "crisis_signal")])
    # key → Python → checkbox model → browser is a server round trip: wait for it
    expect(crisis).to_be_checked(timeout=20_000)
    screenshot(page, f"review_default_scheme_{width}")
    page.close()
