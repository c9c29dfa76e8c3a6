"""Reviewer assignment, the review queue, the notebook widget, and parallel saves on Postgres."""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import pytest

from test_pipeline_helpers import dataset_with_items
from vignette_lab.errors import InputError
from vignette_lab.pipeline.annotate import auto_annotate
from vignette_lab.pipeline.review import (
    KEYMAP,
    ReviewQueue,
    assign_reviewers,
    review_status,
    review_widget,
)
from vignette_lab.pipeline.rounds import create_round, effective_annotations, taxonomy_info


def _rounds(db, *, sessions=2, counselor_turns=5, ai=False):
    did = dataset_with_items(db, sessions=sessions, counselor_turns=counselor_turns)
    ai_round = None
    if ai:
        ai_round = create_round(db, did, "ai_auto", engine="scripted")
        auto_annotate(db, ai_round, progress=False)
    return did, ai_round, create_round(db, did, "human_review", ai_round_id=ai_round)


def test_assignment_covers_every_item_with_an_overlap_share(duck_db):
    did, _, hr = _rounds(duck_db)
    res = assign_reviewers(duck_db, hr, ["kim", "lee", "park"], overlap=0.3, seed=1)
    rows = duck_db.fetchall("SELECT item_id, reviewer_id FROM ds.reviewer_assignment WHERE round_id = ?", [hr])
    per_item = Counter(r["item_id"] for r in rows)
    assert len(per_item) == res["items"] == 10
    assert sorted(Counter(per_item.values()).items()) == [(1, 7), (2, 3)]  # ceil(0.3 * 10) = 3
    assert max(res["per_reviewer"].values()) - min(res["per_reviewer"].values()) <= 1
    assert len({(r["item_id"], r["reviewer_id"]) for r in rows}) == len(rows)  # distinct reviewers
    with pytest.raises(InputError, match="already"):
        assign_reviewers(duck_db, hr, ["kim", "lee"])
    hr2 = create_round(duck_db, did, "human_review")
    with pytest.raises(InputError, match="at least 2 reviewers"):
        assign_reviewers(duck_db, hr2, ["kim"], overlap=0.5)
    # the same seed gives the same assignment
    hr3 = create_round(duck_db, did, "human_review")
    assign_reviewers(duck_db, hr2, ["kim", "lee", "park"], overlap=0.3, seed=1)
    assign_reviewers(duck_db, hr3, ["kim", "lee", "park"], overlap=0.3, seed=1)
    pairs = [{(r["item_id"], r["reviewer_id"], r["position"]) for r in duck_db.fetchall(
        "SELECT * FROM ds.reviewer_assignment WHERE round_id = ?", [x])} for x in (hr, hr2, hr3)]
    assert pairs[0] == pairs[1] == pairs[2]


def test_queue_navigation_submit_and_supersede(db):
    _, ai_round, hr = _rounds(db, sessions=1, counselor_turns=4, ai=True)
    assign_reviewers(db, hr, ["kim"], overlap=0.0)
    q = ReviewQueue(db, hr, "kim")
    first = q.next_item()
    assert first.index == 0 and first.total == 4 and first.counselor_text
    assert first.proposal is not None and first.proposal["techniques"]  # AI proposal shown
    assert {t["code"] for t in first.guidelines["techniques"]} == set(taxonomy_info().techniques)
    assert first.guidelines["techniques"][0]["definition"]
    second = q.skip()
    assert second.index == 1
    assert q.previous().item_id == first.item_id
    q.submit(first.item_id, ["open_question"], ["guarded"], "pos", None, {"empathy": 4}, "좋음", 12.5)
    assert q.progress() == (1, 4)
    nxt = q.next_item()
    assert nxt.item_id == second.item_id  # saved items are not served again
    # re-saving the same item appends a superseding row; the effective view has one
    again = q.goto(first.item_id)
    assert again.own["techniques"] == ["open_question"]
    q.submit(first.item_id, ["closed_question"], [], "warn")
    mine = [a for a in effective_annotations(db, hr) if a["item_id"] == first.item_id]
    assert len(mine) == 1 and mine[0]["techniques"] == ["closed_question"] and mine[0]["supersedes"]
    assert db.scalar("SELECT count(*) FROM ds.annotation WHERE round_id = ?", [hr]) == 2
    assert q.progress() == (1, 4)
    # a bad save writes nothing (one transaction)
    with pytest.raises(InputError):
        q.submit(nxt.item_id, ["open_question"], ["not_a_state"], "pos")
    assert q.progress() == (1, 4)
    with pytest.raises(InputError, match="not assigned"):
        q.submit("no-such-item", ["open_question"])
    for _ in range(3):
        it = q.next_item()
        q.submit(it.item_id, ["restatement"], [], "neutral")
    assert q.next_item() is None and q.progress() == (4, 4)
    assert review_status(db, hr) == [{"reviewer_id": "kim", "assigned": 4, "done": 4}]


def test_blind_review_hides_the_ai_proposal(duck_db):
    _, _, hr = _rounds(duck_db, sessions=1, counselor_turns=2, ai=True)
    assign_reviewers(duck_db, hr, ["kim"], overlap=0.0)
    assert ReviewQueue(duck_db, hr, "kim", blind=True).next_item().proposal is None
    assert ReviewQueue(duck_db, hr, "kim").next_item().proposal is not None


def test_keymap_is_complete():
    assert {KEYMAP[str(d)] for d in range(10)} == {f"toggle_technique:{i}" for i in range(10)}
    assert KEYMAP["a"] == "appropriateness:pos" and KEYMAP["s"] == "appropriateness:warn"
    assert KEYMAP["d"] == "appropriateness:neutral" and KEYMAP["Enter"] == "save"
    assert (KEYMAP["n"], KEYMAP["p"], KEYMAP["h"]) == ("next", "previous", "toggle_proposal")


def test_widget_driven_from_python(duck_db):
    _, _, hr = _rounds(duck_db, sessions=1, counselor_turns=3, ai=True)
    assign_reviewers(duck_db, hr, ["kim"], overlap=0.0)
    w = review_widget(duck_db, hr, "kim")
    codes = taxonomy_info().techniques
    assert w.item is not None and w.item.item_id and "상담자" in w.context_view.value
    # hidden until asked for, as on the review page (unbiased review)
    assert "숨김" in w.proposal_view.value and w.proposal_toggle.description == "AI 제안 보기 (h)"
    w.handle_key("h")  # ask for the proposal
    assert "AI 제안 (확정 아님)" in w.proposal_view.value and w.proposal_toggle.description == "AI 제안 숨기기 (h)"
    first = w.item.item_id
    # saving with no technique is refused in the UI (nothing written)
    for box in w.technique_boxes.values():
        box.value = False
    w.save_button.click()
    assert "기법" in w.status.value and w.queue.progress() == (0, 3)
    # shortcuts typed into the text box: technique 3 on, appropriateness warn
    w.shortcuts.value = "3s"
    assert w.technique_boxes[codes[2]].value and w.appropriateness.value == "warn"
    w.state_boxes["guarded"].value = True
    assert all(s.value == "" for s in w.sliders.values())  # every score starts at 미입력, not 3
    w.sliders["empathy"].value = 5
    w.rationale.value = "개방형으로 바꾸면 좋겠음"
    w.save_button.click()
    assert w.queue.progress() == (1, 3) and w.progress_bar.value == 1
    assert "숨김" in w.proposal_view.value and not w.proposal_toggle.value  # hidden again on the next item
    (row,) = [a for a in effective_annotations(duck_db, hr) if a["item_id"] == first]
    assert row["techniques"] == [codes[2]] and row["appropriateness"] == "warn"
    assert row["client_state"] == ["guarded"] and row["scores"] == {"empathy": 5}  # untouched: not stored
    assert row["status"] == "submitted" and row["time_spent_s"] >= 0
    w.prev_button.click()
    assert w.item.item_id == first and w.technique_boxes[codes[2]].value  # own labels restored
    w.next_button.click()
    assert w.item.item_id != first


@pytest.mark.postgres
def test_two_reviewers_saving_in_parallel_lose_nothing(pg_db):
    from vignette_lab.store import connect

    _, _, hr = _rounds(pg_db, sessions=2, counselor_turns=5)
    assign_reviewers(pg_db, hr, ["kim", "lee"], overlap=1.0)  # every item to both
    errors = []
    barrier = threading.Barrier(2)

    def work(reviewer):
        db = connect(pg_db.url)
        try:
            q = ReviewQueue(db, hr, reviewer)
            barrier.wait()
            while (it := q.next_item()) is not None:
                q.submit(it.item_id, ["open_question"], [], "pos", None, {"empathy": 3})
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            db.close()

    threads = [threading.Thread(target=work, args=(r,)) for r in ("kim", "lee")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    rows = effective_annotations(pg_db, hr)
    assert Counter(r["annotator_id"] for r in rows) == {"kim": 10, "lee": 10}
    assert {s["done"] for s in review_status(pg_db, hr)} == {10}


def test_review_pages_show_the_persona_name_where_the_stored_text_has_the_client_tag(db):
    """The gate stores ``[CLIENT]`` where a turn named the persona; both review pages (the notebook
    widget and the Panel page) show the persona's display name there, on both backends, and the
    stored text keeps the tag."""
    from test_pipeline_helpers import seed_sessions
    from vignette_lab.app.review_page import ReviewPage
    from vignette_lab.app.stores import ReviewStore
    from vignette_lab.pipeline.datasets import create_dataset_from_sessions
    from vignette_lab.pipeline.review import _context_html, masked_html
    from vignette_lab.store.catalog import get_persona_row

    sid = seed_sessions(db, sessions=1, counselor_turns=1, persona="P1")[0]
    for seq, speaker, text, masked in ((2, "counselor", "<서연> 씨, 오늘은 어땠어요?", "[CLIENT] 씨, 오늘은 <어땠어요>?"),
                                       (3, "client", "그냥 그랬어요.", "그냥 그랬어요.")):
        db.execute("INSERT INTO app.turns (turn_id, session_id, seq, speaker, text, text_masked) VALUES (?, ?, ?, ?, ?, ?)",
                   [str(uuid.uuid4()), sid, seq, speaker, text, masked])
    did = create_dataset_from_sessions(db, "client-tag")
    hr = create_round(db, did, "human_review")
    assign_reviewers(db, hr, ["kim"], overlap=0.0)
    q = ReviewQueue(db, hr, "kim")
    items = [q.goto(i) for i in q.item_ids]
    tagged = [it for it in items if "[CLIENT]" in it.counselor_text]
    assert len(tagged) == 1
    item = tagged[0]
    name = str(get_persona_row(db, "P1")["display_name"]).split("(")[0].strip()
    assert name and item.persona_name == name
    assert item.counselor_text == "[CLIENT] 씨, 오늘은 <어땠어요>?"  # stored as masked
    shown = masked_html(item.counselor_text, persona_name=item.persona_name)
    assert shown == (f'<span class="vl-role-client" title="[CLIENT] — 가상 내담자 이름">{name}</span>'
                     " 씨, 오늘은 &lt;어땠어요&gt;?")
    assert masked_html(item.counselor_text, persona_name=None) == "[CLIENT] 씨, 오늘은 &lt;어땠어요&gt;?"
    widget_html = _context_html(item)
    assert shown in widget_html and "[CLIENT] 씨" not in widget_html
    page = ReviewPage(ReviewStore(db), reviewer_id="kim", round_id=hr)
    page.show(item)
    assert shown in page._context.object and "[CLIENT] 씨" not in page._context.object
    stored = db.fetchall("SELECT counselor_text FROM ds.dataset_item WHERE dataset_id = ?", [did])
    assert any(r["counselor_text"] == "[CLIENT] 씨, 오늘은 <어땠어요>?" for r in stored)
