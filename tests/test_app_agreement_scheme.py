"""Agreement page on an imported corpus with its own scheme: numbers shown, nothing stored
until the separate save action, disagreements with the utterance and Korean labels."""

from __future__ import annotations

from pathlib import Path

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
    page = AgreementPage(db, reports_dir=tmp_path / "r")
    assert rid in page.param.round_id.objects
    page._select.value = rid
    live = page._live.object
    assert 'class="vl-field-gate"' in live and "상담자 행동 (behaviour)" in live
    assert "내담자 대화 유형 (talk_type)" in live and 'class="vl-field-coefficients"' in live
    assert "vl-field-disagreements" in live and ("반영" in live or "질문" in live)
    assert "fleiss_kappa" in live
    assert latest_gate(db, rid) is None  # showing numbers stores nothing
    page._override.value = "synthetic example"
    page._decide.clicks += 1
    stored = latest_gate(db, rid)
    assert stored is not None and stored["override_reason"] == "synthetic example"
    assert 'class="vl-gate-verdict"' in page._out.object and "예외 승인" in page._out.object
