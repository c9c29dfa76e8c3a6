"""Agreement page on an imported corpus with its own scheme: numbers shown, nothing stored
until the separate save action, disagreements with the utterance and Korean labels."""

from __future__ import annotations

from pathlib import Path

from vignette_lab.app.stores import AgreementStore, ReviewStore
from vignette_lab.pipeline.annotations_io import import_annotations
from vignette_lab.pipeline.datasets import import_transcripts
from vignette_lab.pipeline.schemes import import_scheme

EX = Path(__file__).resolve().parent.parent / "datasets" / "examples"


def test_agreement_page_previews_fields_and_stores_only_on_request(duck_db, tmp_path):
    from vignette_lab.app.agreement_page import AgreementPage, latest_gate

    db = duck_db
    import_scheme(db, EX / "mi_corpus_scheme.json")
    did = import_transcripts(db, EX / "mi_corpus.csv", scheme="mi-corpus", keep_extra=True,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "speaker": "interlocutor", "text": "utterance_text"},
                             speaker_map={"therapist": "counselor", "client": "client"})
    rid = import_annotations(db, EX / "mi_corpus.csv", dataset_id=did,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "annotator": "annotator_id"},
                             fields={"behaviour": "main_therapist_behaviour",
                                     "talk_type": "client_talk_type"})["rounds"][0]["round_id"]
    page = AgreementPage(AgreementStore(db), reports_dir=tmp_path / "r")
    assert rid in page.param.round_id.objects
    page._select.value = rid
    live = page._live.object
    assert 'class="vl-field-gate"' in live and "상담자 행동 (behaviour)" in live
    assert "내담자 대화 유형 (talk_type)" in live and 'class="vl-field-coefficients"' in live
    assert "vl-field-disagreements" in live and ("반영" in live or "질문" in live)
    assert "Fleiss κ" in live  # coefficient names in readable form
    assert latest_gate(db, rid) is None  # showing numbers stores nothing
    page._override.value = "synthetic example"
    page._decide.clicks += 1
    stored = latest_gate(db, rid)
    assert stored is not None and stored["override_reason"] == "synthetic example"
    assert 'class="vl-gate-verdict"' in page._out.object and "예외 승인" in page._out.object
    assert page.report_link.visible and "<html" in page.report_link.report_html.lower()  # the per-field report
    assert "보고서를 만들지 못했습니다" not in page._out.object
    assert (tmp_path / "r" / f"gate-{stored['gate_id']}.html").is_file()


def test_review_page_renders_any_scheme_with_a_key_for_every_category(duck_db, tmp_path):
    from vignette_lab.app.review_page import ReviewPage
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round, effective_annotations

    db = duck_db
    import_scheme(db, EX / "mi_corpus_scheme.json")
    did = import_transcripts(db, EX / "mi_corpus.csv", scheme="mi-corpus", keep_extra=True,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "speaker": "interlocutor", "text": "utterance_text"},
                             speaker_map={"therapist": "counselor", "client": "client"})
    rid = create_round(db, did, "human_review")
    assign_reviewers(db, rid, ["kim"], overlap=0)
    page = ReviewPage(ReviewStore(db), reviewer_id="kim", round_id=rid)
    page.__panel__()
    assert page.generic and page.item is not None
    for name, w in page._field_widgets.items():
        f = page.queue.scheme.field(name)
        labels = list(w.options)
        for c in f.categories:  # every category: its key and its Korean label
            assert any(c.label_ko in lab and lab.split(" · ")[0].strip() for lab in labels), (name, c.code)
        assert getattr(w, "inline", False) is False  # vertical list: nothing runs off the column
    visible = {n for n, sec in page._field_sections.items() if sec.visible}
    assert visible == {f.name for f in page.queue.scheme.fields_for(page.item.speaker)}
    line = page._shortcuts.object  # the shortcut line names this scheme's keys, not the default's
    assert "상담자 행동" in line and "내담자 대화 유형" in line and "1–9" not in line
    shown = page._proposal_toggle.value
    page.handle_key("h")  # h toggles the AI proposal here too (none in this round)
    assert page._proposal_toggle.value is (not shown) and "AI 제안 없음" in page._proposal.object
    first = page.item.item_id
    key = next(iter(page._scheme_keys[page.item.speaker]))
    page.handle_key(key)
    page.handle_key("Enter")
    assert len(effective_annotations(db, rid)) == 1 and page.item.item_id != first


def test_a_scheme_score_starts_unset_and_a_required_one_blocks_saving(duck_db, tmp_path):
    """A score field of any scheme is 미입력 until set (never its minimum), unset is stored as no
    value, and a field marked ``"required": true`` must be set before 저장 saves."""
    import json

    from vignette_lab.app.review_page import ReviewPage, score_of
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round

    db = duck_db
    raw = json.loads((EX / "mi_corpus_scheme.json").read_text(encoding="utf-8"))
    raw["name"] = "mi-corpus-scored"
    raw["fields"] += [{"name": "empathy_rating", "kind": "score", "applies_to": "counselor", "range": [1, 5],
                       "label_ko": "공감 평정", "required": True},
                      {"name": "warmth_rating", "kind": "score", "applies_to": "counselor", "range": [0, 100],
                       "label_ko": "따뜻함"}]
    path = tmp_path / "scored_scheme.json"
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    import_scheme(db, path)
    did = import_transcripts(db, EX / "mi_corpus.csv", scheme="mi-corpus-scored", keep_extra=True,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "speaker": "interlocutor", "text": "utterance_text"},
                             speaker_map={"therapist": "counselor", "client": "client"})
    rid = create_round(db, did, "human_review")
    assign_reviewers(db, rid, ["kim"], overlap=0)
    page = ReviewPage(ReviewStore(db), reviewer_id="kim", round_id=rid)
    page.__panel__()
    while page.item is not None and page.item.speaker != "counselor":
        page.next()
    assert page.item is not None
    empathy, warmth = page._field_widgets["empathy_rating"], page._field_widgets["warmth_rating"]
    assert score_of(empathy) is None and score_of(warmth) is None  # 미입력, not 1 / 0
    assert "empathy_rating" not in page.scheme_labels() and "warmth_rating" not in page.scheme_labels()
    behaviour = page._field_widgets["behaviour"]
    behaviour.value = list(behaviour.options.values())[1]
    item = page.item.item_id
    assert page.save() is None and "필수 항목을 입력하세요: 공감 평정" in page._status.object
    assert db.fetchone("SELECT count(*) AS n FROM ds.annotation WHERE round_id = ?", [rid])["n"] == 0
    empathy.value = 4.0
    assert page.save() is not None
    row = db.fetchone("SELECT labels FROM ds.annotation WHERE round_id = ? AND item_id = ?", [rid, item])
    labels = row["labels"] if isinstance(row["labels"], dict) else json.loads(row["labels"])
    assert labels["empathy_rating"] == 4.0 and "warmth_rating" not in labels  # never set: no value
    # the notebook widget (notebook 03) behaves the same way
    from vignette_lab.pipeline.review import review_widget

    rid2 = create_round(db, did, "human_review")
    assign_reviewers(db, rid2, ["lee"], overlap=0)
    w = review_widget(db, rid2, "lee")
    while w.item is not None and w.item.speaker != "counselor":
        w.show(w.queue.skip())
    assert w.item is not None and w.controls["empathy_rating"].value == ""  # 미입력
    assert "empathy_rating" not in w.labels() and "warmth_rating" not in w.labels()
    w.controls["behaviour"].value = list(w.controls["behaviour"].options)[1][1]
    assert w.save() is None and "필수 항목을 입력하세요: 공감 평정" in w.status.value
    # the scheme widget hides the AI proposal until asked for, like the page
    assert "숨김" in w.proposal_view.value and w.proposal_toggle.description == "AI 제안 보기 (h)"
    w.handle_key("h")
    assert "숨김" not in w.proposal_view.value and w.proposal_toggle.description == "AI 제안 숨기기 (h)"
    w.controls["empathy_rating"].value = 4.0
    assert w.save() is not None


def test_required_field_is_enforced_for_every_save_not_only_in_the_ui(duck_db, tmp_path):
    """ReviewQueue.submit_labels, write_annotation and the annotation import refuse a human label
    without a ``"required": true`` field (one line naming it); nothing is stored."""
    import json

    import pytest

    from vignette_lab.errors import InputError
    from vignette_lab.pipeline.review import ReviewQueue, assign_reviewers
    from vignette_lab.pipeline.rounds import HumanReview, create_round, write_annotation

    db = duck_db
    raw = json.loads((EX / "mi_corpus_scheme.json").read_text(encoding="utf-8"))
    raw["name"] = "mi-corpus-required"
    raw["fields"] += [{"name": "empathy_rating", "kind": "score", "applies_to": "counselor", "range": [1, 5],
                       "label_ko": "공감 평정", "required": True}]
    path = tmp_path / "required_scheme.json"
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    import_scheme(db, path)
    mapping = {"session_id": "transcript_id", "seq": "utterance_id", "speaker": "interlocutor",
               "text": "utterance_text"}
    did = import_transcripts(db, EX / "mi_corpus.csv", scheme="mi-corpus-required", keep_extra=True,
                             mapping=mapping, speaker_map={"therapist": "counselor", "client": "client"})
    rid = create_round(db, did, "human_review")
    assign_reviewers(db, rid, ["kim"], overlap=0)
    queue = ReviewQueue(db, rid, "kim")
    items = [queue.next_item()]
    while items[-1] is not None and {i.speaker for i in items if i} != {"counselor", "client"}:
        items.append(queue.skip())
    counselor = next(i for i in items if i is not None and i.speaker == "counselor")
    client = next(i for i in items if i is not None and i.speaker == "client")
    behaviour = queue.scheme.field("behaviour").codes()[0]

    def count():
        return db.fetchone("SELECT count(*) AS n FROM ds.annotation WHERE round_id = ?", [rid])["n"]

    with pytest.raises(InputError) as err:
        queue.submit_labels(counselor.item_id, {"behaviour": behaviour})
    msg = str(err.value)
    assert "\n" not in msg and "필수 항목을 입력하세요: 공감 평정" in msg and "empathy_rating" in msg
    assert err.value.field == "empathy_rating" and count() == 0
    with pytest.raises(InputError, match="empathy_rating"):  # the record API, without the queue
        write_annotation(db, HumanReview(round_id=rid, item_id=counselor.item_id, annotator_id="kim",
                                         labels={"behaviour": behaviour, "empathy_rating": None}))
    assert count() == 0
    assert queue.submit_labels(counselor.item_id, {"behaviour": behaviour, "empathy_rating": 4})
    talk = queue.scheme.field("talk_type").codes()[0]
    assert queue.submit_labels(client.item_id, {"talk_type": talk})  # the field does not apply to clients
    assert count() == 2
    # an import of labels without the required field is refused as a whole
    before = db.fetchone("SELECT count(*) AS n FROM ds.annotation")["n"]
    with pytest.raises(InputError) as err:
        import_annotations(db, EX / "mi_corpus.csv", dataset_id=did,
                           mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                    "annotator": "annotator_id"},
                           fields={"behaviour": "main_therapist_behaviour", "talk_type": "client_talk_type"})
    assert "mi_corpus.csv" in str(err.value) and "empathy_rating" in str(err.value)
    assert db.fetchone("SELECT count(*) AS n FROM ds.annotation")["n"] == before
