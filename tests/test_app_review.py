"""Review and agreement pages against a real pipeline run (demo data) on DuckDB."""

from __future__ import annotations

import pytest

from vignette_lab.app.stores import AgreementStore, ReviewStore
from vignette_lab.app.review_page import ReviewPage, human_rounds_for, score_of
from vignette_lab.pipeline.review import assign_reviewers
from vignette_lab.pipeline.rounds import create_round


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """One small pipeline run (self-play → AI round → simulated reviews → gate → report)."""
    from vignette_lab.pipeline.demo import run_demo
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    tmp = tmp_path_factory.mktemp("app_review")
    db = connect(str(tmp / "workbench.duckdb"))
    init_db(db)
    load_catalog(db)
    summary = run_demo(db, tmp / "out", sessions=2, turns=4, personas=("P4",), reviewers=2,
                       overlap=1.0, seed=1, echo=None)
    human = create_round(db, summary["dataset_id"], "human_review", ai_round_id=summary["ai_round"])
    assign_reviewers(db, human, ["rev-a", "rev-b"], overlap=1.0, seed=0)
    return db, summary, human, tmp


def test_rounds_offered_only_to_assigned_reviewers(demo):
    db, summary, human, _ = demo
    assert human in [r["round_id"] for r in human_rounds_for(db, "rev-a")]
    assert human not in [r["round_id"] for r in human_rounds_for(db, "nobody")]
    page = ReviewPage(ReviewStore(db), reviewer_id="nobody")
    assert page.param.round_id.objects == [None]


def test_the_labelling_form_waits_for_a_round(demo):
    db, summary, human, _ = demo
    empty = ReviewPage(ReviewStore(db), reviewer_id="nobody")  # no round for this reviewer
    empty.__panel__()
    assert "검토할 라운드가 없습니다" in empty._empty.object
    assert not empty._work.visible and not empty._shortcut_row.visible  # no form, no ⌨, no empty item box
    page = ReviewPage(ReviewStore(db), reviewer_id="rev-a")
    page.__panel__()
    assert page._round_select.visible and not page._work.visible  # rounds to choose from, none open yet
    page._round_select.value = human
    assert page._work.visible and page._shortcut_row.visible and page.item is not None
    page.open_round("no-such-round")
    assert not page._work.visible and page._round_error.object


def test_heading_names_the_reviewer_as_the_top_bar_does(demo):
    """QA round 5: the heading showed the raw user id ("주석 검토 — local")."""
    import panel as pn

    db, summary, human, _ = demo
    page = ReviewPage(ReviewStore(db), reviewer_id="rev-a", reviewer_name="김검토", round_id=human)
    heading = page.__panel__().objects[0]
    assert isinstance(heading, pn.pane.Markdown) and heading.object == "## 주석 검토 — 김검토"
    assert "<b>김검토</b>" in page._header.object and "rev-a" not in page._header.object
    plain = ReviewPage(ReviewStore(db), reviewer_id="rev-a")  # no display name: the id
    assert plain.__panel__().objects[0].object == "## 주석 검토 — rev-a"


def test_keyboard_labels_and_atomic_save(demo):
    db, summary, human, _ = demo
    page = ReviewPage(ReviewStore(db), reviewer_id="rev-a", round_id=human)
    done, total = page.queue.progress()
    assert done == 0 and total == summary["items"]
    first = page.item.item_id
    # hidden until asked; the button says what a click does
    assert "vl-proposal" not in page._proposal.object and "숨김" in page._proposal.object
    assert page._proposal_toggle.label == "AI 제안 보기 (h)"
    page.handle_key("h")
    assert "vl-proposal" in page._proposal.object and page._proposal_toggle.label == "AI 제안 숨기기 (h)"
    page.handle_key("h")
    assert "vl-proposal" not in page._proposal.object and page._proposal_toggle.label == "AI 제안 보기 (h)"
    assert all(score_of(w) is None for w in page._sliders.values())  # no score is pre-filled (미입력)
    page._techniques.value = []
    page.handle_key("1")
    page.handle_key("2")
    page.handle_key("2")  # toggled off again
    page.handle_key("s")
    codes = list(page._techniques.options.values())
    assert page._techniques.value == [codes[0]] and page._appropriateness.value == "warn"
    page.handle_key("Enter")
    assert page.queue.progress()[0] == 1 and page.item.item_id != first
    row = db.fetchone("SELECT * FROM ds.annotation WHERE round_id = ? AND annotator_id = ? AND item_id = ?",
                      [human, "rev-a", first])
    assert list(row["techniques"]) == [codes[0]] and row["appropriateness"] == "warn"
    assert row["annotator_kind"] == "human" and row["status"] == "submitted"
    assert 'data-done="1"' in page._header.object
    # the reviewer touched no score: none is stored (no value, SQL NULL), not a default 3
    assert row["scores"] in (None, {}, "{}") and not any(k in row["labels"] for k in page._sliders)


def test_save_requires_a_technique_and_previous_reloads_own_labels(demo):
    db, _, human, _ = demo
    page = ReviewPage(ReviewStore(db), reviewer_id="rev-b", round_id=human)
    page._techniques.value = []
    assert page.save() is None and "기법을 하나 이상" in page._status.object
    page._techniques.value = [list(page._techniques.options.values())[1]]
    page._appropriateness.value = "pos"
    saved_item = page.item.item_id
    assert page.save() is not None
    page.handle_key("p")
    assert page.item.item_id == saved_item
    assert page._techniques.value == [list(page._techniques.options.values())[1]]
    assert page._appropriateness.value == "pos"


def test_blind_review_never_shows_the_proposal(demo):
    db, _, human, _ = demo
    page = ReviewPage(ReviewStore(db), reviewer_id="rev-b", round_id=human, blind=True)
    assert page.item is None or "vl-proposal" not in page._proposal.object
    page.handle_key("h")
    assert "vl-proposal" not in page._proposal.object


def test_agreement_page_shows_gate_tables_and_report(demo):
    from vignette_lab.app.agreement_page import AgreementPage

    db, summary, _, tmp = demo
    reports = tmp / "served-reports"
    page = AgreementPage(AgreementStore(db), reports_dir=reports)
    assert summary["human_round"] in page.param.round_id.objects
    page._select.value = summary["human_round"]
    html = page._out.object
    assert 'class="vl-gate-verdict"' in html and "기준 점검" in html
    assert 'class="vl-per-label"' in html and 'class="vl-icc"' in html
    # The report reaches the browser with the page (a blob: link works inside JupyterLab too);
    # the file is also written to the report folder.
    link = page.report_link
    assert link.visible and "<html" in link.report_html.lower() and "게이트" in link.report_html
    assert (reports / link.filename).is_file() and f"reports/{link.filename}" in html


def test_agreement_page_decides_a_gate(demo):
    from vignette_lab.app.agreement_page import AgreementPage, latest_gate

    db, summary, _, tmp = demo
    page = AgreementPage(AgreementStore(db), reports_dir=tmp / "r2", decided_by="prof")
    page._select.value = summary["human_round"]
    before = latest_gate(db, summary["human_round"])["gate_id"]
    decision = page.decide()
    assert decision is not None and decision["gate_id"] != before
    assert latest_gate(db, summary["human_round"])["decided_by"] == "prof"


def test_default_scheme_every_category_has_a_key_shared_with_the_widget(demo):
    """Every technique, client state and appropriateness of the default taxonomy has a key,
    shown next to its label; the page and the notebook widget dispatch the same keys."""
    from vignette_lab.core.scheme import default_scheme
    from vignette_lab.pipeline.review import key_action, review_widget, scheme_keys

    db, _, human, _ = demo
    keys = scheme_keys(default_scheme())["counselor"]
    cats = {(f.name, c.code) for f in default_scheme().fields for c in f.categories}
    assert set(keys.values()) == cats and len(keys) == len(cats)  # every category, one key each
    assert not {"n", "p", "h", "Enter"} & set(keys)
    assert {keys[str(d)][0] for d in range(10)} == {"techniques"}  # old keys kept
    assert [keys[k] for k in "asd"] == [("appropriateness", c) for c in ("pos", "warn", "neutral")]
    assert key_action("n", keys) == ("next", None) and key_action("?", keys) is None

    page = ReviewPage(ReviewStore(db), reviewer_id="rev-a", round_id=human)
    widget = review_widget(db, human, "rev-a")
    key_of = {fc: k for k, fc in keys.items()}
    # the key is printed before every label (page) / in every description (widget)
    for label, code in page._states.options.items():
        assert label.startswith(f"{key_of[('client_state', code)]} · ")
    for label, code in page._techniques.options.items():
        assert label.startswith(f"{key_of[('techniques', code)]} · ")
    for code, box in widget.state_boxes.items():
        assert box.description.startswith(key_of[("client_state", code)] + " ")
    for code, box in widget.technique_boxes.items():
        assert box.description.startswith(key_of[("techniques", code)] + " ")
    page._techniques.value, page._states.value = [], []
    for box in [*widget.technique_boxes.values(), *widget.state_boxes.values()]:
        box.value = False
    for (field, code), k in sorted(key_of.items()):
        page.handle_key(k)
        widget.handle_key(k)
    techniques = [c for f, c in sorted(key_of) if f == "techniques"]
    states = [c for f, c in sorted(key_of) if f == "client_state"]
    assert sorted(page._techniques.value) == sorted(techniques)
    assert sorted(page._states.value) == sorted(states)  # "협력" and "위기신호" included
    assert {"collaborative", "crisis_signal"} <= set(page._states.value)
    assert sorted(c for c, b in widget.technique_boxes.items() if b.value) == sorted(techniques)
    assert sorted(c for c, b in widget.state_boxes.items() if b.value) == sorted(states)
    # appropriateness: the last key pressed in sorted order wins on both
    last = max((fc for fc in key_of if fc[0] == "appropriateness"))
    assert page._appropriateness.value == widget.appropriateness.value == last[1]
    page.handle_key(key_of[("client_state", "crisis_signal")])  # toggles off again
    assert "crisis_signal" not in page._states.value


def test_only_scores_the_reviewer_set_are_stored(demo):
    db, _, human, _ = demo
    page = ReviewPage(ReviewStore(db), reviewer_id="rev-b", round_id=human)
    page.handle_key("n")  # an item the other tests leave alone
    item = page.item.item_id
    dims = list(page._sliders)
    page._techniques.value = [list(page._techniques.options.values())[0]]
    page._sliders[dims[0]].value = 4
    assert page.save() is not None
    row = db.fetchone("SELECT * FROM ds.annotation WHERE round_id = ? AND annotator_id = ? AND item_id = ?",
                      [human, "rev-b", item])
    scores = row["scores"] if isinstance(row["scores"], dict) else __import__("json").loads(row["scores"])
    assert scores == {dims[0]: 4.0}
    page.show(page.queue.goto(item))
    assert score_of(page._sliders[dims[0]]) == 4 and all(score_of(page._sliders[d]) is None for d in dims[1:])


def test_a_required_score_must_be_set_before_saving(demo, monkeypatch):
    import dataclasses

    db, _, human, _ = demo
    page = ReviewPage(ReviewStore(db), reviewer_id="rev-a", round_id=human)
    dim = list(page._sliders)[0]
    scheme = page.queue.scheme
    fields = tuple(dataclasses.replace(f, required=True) if f.name == dim else f for f in scheme.fields)
    monkeypatch.setattr(page.queue, "scheme", dataclasses.replace(scheme, fields=fields))
    before = page.queue.progress()[0]
    page._techniques.value = [list(page._techniques.options.values())[0]]
    assert page.save() is None and "필수 항목을 입력하세요" in page._status.object
    assert page.queue.progress()[0] == before  # nothing written
    page._sliders[dim].value = 2
    assert page.save() is not None and page.queue.progress()[0] == before + 1



def test_evaluator_line_is_korean_for_readers():
    """QA round 5: the review and 일치도·분석 pages showed "독립 held-out test 분할 5차"."""
    from vignette_lab.app.review_render import evaluator_line

    line = evaluator_line()
    assert line.startswith("평가기:") and "held-out" not in line and "test 분할" not in line
    assert "독립 평가 분할" in line
