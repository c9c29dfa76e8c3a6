"""Label schemes, transcript import of published corpora and long-format annotation import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vignette_lab.cli import main
from vignette_lab.core.scheme import GATE_COEFFICIENTS, builtin_schemes, default_scheme, parse_scheme
from vignette_lab.errors import InputError, PermissionDenied
from vignette_lab.pipeline.annotations_io import export_rows, import_annotations
from vignette_lab.pipeline.datasets import dataset_items, import_transcripts
from vignette_lab.pipeline.rounds import AIProposal, AnnotationStatus, HumanReview, write_annotation
from vignette_lab.pipeline.schemes import dataset_scheme, import_scheme, resolve_scheme
from vignette_lab.store.ds_repo import table_counts

MINIMAL = {"schema": "vignette-lab/scheme/v1", "name": "mi-codes", "version": "1",
           "fields": [
               {"name": "behaviour", "kind": "single", "applies_to": "counselor",
                "categories": [{"code": "question", "label_ko": "질문", "label_en": "Question"},
                               {"code": "reflection", "label_ko": "반영", "label_en": "Reflection"}],
                "gate": {"coefficient": "fleiss_kappa", "threshold": 0.6}},
               {"name": "talk_type", "kind": "single", "applies_to": "client",
                "categories": [{"code": "change", "label_ko": "변화대화", "label_en": "Change"},
                               {"code": "sustain", "label_ko": "유지대화", "label_en": "Sustain"}]}]}
RICH = {"schema": "vignette-lab/scheme/v1", "name": "rich", "version": "2",
        "fields": MINIMAL["fields"] + [
            {"name": "skills", "kind": "multi", "applies_to": "both",
             "categories": [{"code": "a", "label_ko": "가", "label_en": "A"},
                            {"code": "b", "label_ko": "나", "label_en": "B"}]},
            {"name": "warmth", "kind": "score", "applies_to": "counselor", "range": [0, 5]},
            {"name": "level", "kind": "ordinal", "applies_to": "counselor",
             "categories": [{"code": "low", "label_ko": "낮음", "label_en": "Low", "order": 1},
                            {"code": "high", "label_ko": "높음", "label_en": "High", "order": 3},
                            {"code": "mid", "label_ko": "중간", "label_en": "Mid", "order": 2}]}]}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _scheme_file(tmp_path: Path, doc: dict, name: str = "s.json") -> Path:
    return _write(tmp_path, name, json.dumps(doc, ensure_ascii=False))


def test_minimal_scheme_and_shipped_schemes_validate():
    s = parse_scheme(MINIMAL)
    assert s.speakers() == ("counselor", "client")
    assert s.thresholds() == {"behaviour": ("fleiss_kappa", 0.6)}
    r = parse_scheme(RICH)
    assert r.field("level").codes() == ("low", "mid", "high")  # ordinal order by `order`
    assert r.field("skills").applies_to == ("counselor", "client")
    names = {n for n, _ in builtin_schemes()}
    assert {"vignette-taxonomy", "mi-behaviour", "client-talk"} <= names
    d = default_scheme()
    assert d.field("appropriateness").codes() == ("pos", "warn", "neutral")
    assert d.speakers() == ("counselor",)
    assert len(d.sha256) == 64 and d.sha256 == default_scheme().sha256


def test_gate_coefficient_names_match_the_agreement_package():
    from vignette_lab.agreement import COEFFICIENTS

    for kind, names in GATE_COEFFICIENTS.items():
        assert set(names) <= set(COEFFICIENTS[kind]), kind


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.update(schema="v0"), "schema"),
    (lambda d: d["fields"][0].update(kind="nominal"), "fields[0].kind"),
    (lambda d: d["fields"][0].update(applies_to="therapist"), "fields[0].applies_to"),
    (lambda d: d["fields"][0]["categories"][1].update(code="question"), "fields[0].categories[1].code"),
    (lambda d: d["fields"][0]["categories"][0].pop("label_ko"), "fields[0].categories[0].label_ko"),
    (lambda d: d["fields"][0]["gate"].update(coefficient="icc2"), "fields[0].gate.coefficient"),
    (lambda d: d["fields"][1].update(name="behaviour"), "fields[1].name"),
    (lambda d: d["fields"].append({"name": "x", "kind": "score", "applies_to": "client"}),
     "fields[2].range"),
    (lambda d: d["fields"][0]["categories"][0].update(code="a|b"), "fields[0].categories[0].code"),
])
def test_scheme_errors_name_file_and_field(tmp_path, mutate, field):
    doc = json.loads(json.dumps(MINIMAL))
    mutate(doc)
    p = _scheme_file(tmp_path, doc)
    res = CliRunner().invoke(main, ["--db", str(tmp_path / "v.duckdb"), "scheme", "validate", str(p)])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert str(p) in res.output and f"field '{field}'" in res.output, res.output


def test_scheme_import_list_show(db, tmp_path):
    p = _scheme_file(tmp_path, MINIMAL)
    ref = import_scheme(db, p)
    assert ref["status"] == "imported" and import_scheme(db, p)["status"] == "unchanged"
    changed = json.loads(json.dumps(MINIMAL))
    changed["fields"][0]["categories"][0]["label_en"] = "Asking"
    with pytest.raises(InputError, match="new version"):
        import_scheme(db, _scheme_file(tmp_path, changed, "c.json"))
    assert resolve_scheme(db, "mi-codes@1").sha256 == ref["sha256"]
    with pytest.raises(InputError, match="unknown scheme"):
        resolve_scheme(db, "nope")
    url = db.url
    out = CliRunner().invoke(main, ["--db", url, "scheme", "list", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert {("mi-codes", "imported"), ("vignette-taxonomy", "default")} <= {(r["name"], r["origin"]) for r in rows}
    out = CliRunner().invoke(main, ["--db", url, "scheme", "show", "mi-codes"])
    assert "talk_type (single, client)" in out.output and "변화대화" in out.output


def _transcripts(tmp_path: Path) -> Path:
    lines = [
        {"sid": 7, "n": 0, "who": "therapist", "utt": "What brings you in?", "coder": "a", "code": "question", "topic": "x"},
        {"sid": 7, "n": 0, "who": "therapist", "utt": "What brings you in?", "coder": "b", "code": "reflection", "topic": "x"},
        {"sid": 7, "n": 1, "who": "client", "utt": "I want to quit.", "coder": "a", "code": "change", "topic": "x"},
        {"sid": 7, "n": 1, "who": "client", "utt": "I want to quit.", "coder": "b", "code": "change", "topic": "x"},
        {"sid": "8", "n": 0, "who": "therapist", "utt": "Hello.", "coder": "a", "code": "question", "topic": "y"},
    ]
    return _write(tmp_path, "t.jsonl", "".join(json.dumps(x) + "\n" for x in lines))


MAP = {"session_id": "sid", "seq": "n", "speaker": "who", "text": "utt"}
SPK = {"therapist": "counselor", "client": "client"}


def test_published_transcripts_become_items_for_every_speaker(db, tmp_path):
    import_scheme(db, _scheme_file(tmp_path, MINIMAL))
    src = _transcripts(tmp_path)
    before = table_counts(db)
    with pytest.raises(InputError, match="unknown columns coder, code, topic") as err:
        import_transcripts(db, src, scheme="mi-codes", mapping=MAP, speaker_map=SPK)
    assert err.value.line == 1 and table_counts(db) == before
    did = import_transcripts(db, src, scheme="mi-codes", mapping=MAP, speaker_map=SPK,
                             keep_extra=True)
    items = dataset_items(db, did)
    assert [(i["session_id"], i["seq"], i["speaker"]) for i in items] == [
        ("7", 0, "counselor"), ("7", 1, "client"), ("8", 0, "counselor")]
    assert items[0]["meta"] == {"coder": ["a", "b"], "code": ["question", "reflection"], "topic": "x"}
    assert items[0]["client_reply"] == "I want to quit." and items[1]["client_reply"] is None
    assert dataset_scheme(db, did).name == "mi-codes"
    # the default scheme keeps counselor items only
    did2 = import_transcripts(db, src, mapping=MAP, speaker_map=SPK, keep_extra=True)
    assert [i["speaker"] for i in dataset_items(db, did2)] == ["counselor", "counselor"]


def _dataset(db, tmp_path, doc=RICH) -> str:
    import_scheme(db, _scheme_file(tmp_path, doc, f"{doc['name']}.json"))
    return import_transcripts(db, _transcripts(tmp_path), scheme=doc["name"], mapping=MAP,
                              speaker_map=SPK, keep_extra=True)


def test_long_annotations_import_rules(db, tmp_path):
    did = _dataset(db, tmp_path)
    long = _write(tmp_path, "a.csv", (
        "session_id,seq,annotator,field,value,annotator_kind,round,rationale\n"
        '7,0,kim,behaviour,question,,,"multi\nline rationale"\n'
        '"7",0,lee,behaviour,reflection,human,,\n'
        "7,0,kim,skills,a|b,,,\n"
        "7,0,lee,skills,a,,,\n"
        "7,0,lee,skills,b,,,\n"
        "7,0,kim,warmth,4.5,,,\n"
        "7,0,kim,level,mid,,,\n"
        "7,1,kim,talk_type,NA,,,\n"
        "7,1,lee,talk_type,change,,,\n"
        "7,1,ai:x,talk_type,sustain,ai,,\n"))
    res = import_annotations(db, long, dataset_id=did, round_name="pilot")
    kinds = {r["annotator_kind"]: r for r in res["rounds"]}
    assert kinds["human"]["annotators"] == 2 and kinds["human"]["name"] == "pilot"
    assert res["rows"] == 10 and res["missing"] == 1  # a|b counts as two accepted values
    rows = export_rows(db, kinds["human"]["round_id"])
    got = {(r["annotator"], r["field"]): r["value"] for r in rows}
    assert got[("kim", "skills")] == got[("lee", "skills")] == "a|b"
    assert got[("kim", "warmth")] == 4.5 and ("kim", "talk_type") not in got
    assert next(r for r in rows if r["annotator"] == "kim")["rationale"] == "multi\nline rationale"
    ai = kinds["ai"]["round_id"]
    assert db.scalar("SELECT count(*) FROM ds.annotation WHERE round_id = ? AND status = 'proposed'",
                     [ai]) == 1
    assert db.scalar("SELECT kind FROM ds.annotation_round WHERE round_id = ?", [ai]) == "ai_auto"
    # a second import makes new rounds, never refused for existing ones
    res2 = import_annotations(db, long, dataset_id=did)
    assert {r["round_id"] for r in res2["rounds"]}.isdisjoint({r["round_id"] for r in res["rounds"]})


@pytest.mark.parametrize("body, line, field, match", [
    ("7,0,kim,behaviour,advice\n", 2, "value", "unknown category 'advice'"),
    ("7,0,kim,behaviour,question\n7,0,kim,mood,sad\n", 3, "field", "unknown field 'mood'"),
    ('7,0,kim,behaviour,"ques\ntion"\n9,0,kim,behaviour,question\n', 2, "value", "unknown category"),
    ('7,0,"k\nim",behaviour,question\n9,0,kim,behaviour,question\n', 4, "seq", r"no item \('9', 0\)"),
    ("7,1,kim,behaviour,question\n", 2, "value", "applies to counselor"),
    ("7,0,kim,warmth,6\n", 2, "value", "within 0–5"),
    ("7,0,kim,behaviour,question\n7,0,kim,behaviour,reflection\n", 3, "value", "duplicate"),
    ("7,x,kim,behaviour,question\n", 2, "seq", "integer"),
    ("7,99999999999,kim,behaviour,question\n", 2, "seq", "between"),
    ("7,0,,behaviour,question\n", 2, "annotator", "missing"),
])
def test_bad_annotation_files_fail_whole_and_write_only_an_audit_entry(db, tmp_path, body, line,
                                                                       field, match):
    did = _dataset(db, tmp_path)
    p = _write(tmp_path, "bad.csv", "session_id,seq,annotator,field,value\n"
               "7,0,lee,behaviour,question\n" + body)
    # the good first data line shifts every expected line by one
    before = table_counts(db)
    audits = db.scalar("SELECT count(*) FROM audit.audit_log")
    with pytest.raises(InputError, match=match) as err:
        import_annotations(db, p, dataset_id=did)
    assert (err.value.source, err.value.line, err.value.field) == (str(p), line + 1, field)
    assert table_counts(db) == before
    assert db.scalar("SELECT count(*) FROM audit.audit_log") == audits + 1


def test_typed_records_keep_ai_proposed_only(db, tmp_path):
    did = _dataset(db, tmp_path)
    item = dataset_items(db, did)[0]["item_id"]
    from vignette_lab.pipeline.rounds import create_round

    human = create_round(db, did, "human_review")
    ai = create_round(db, did, "ai_auto")
    assert AIProposal(round_id=ai, item_id=item, annotator_id="ai:x").status is AnnotationStatus.PROPOSED
    with pytest.raises(PermissionDenied):
        write_annotation(db, AIProposal(round_id=human, item_id=item, annotator_id="ai:x",
                                        labels={"behaviour": "question"}))
    with pytest.raises(InputError, match="unknown category"):
        write_annotation(db, HumanReview(round_id=human, item_id=item, annotator_id="kim",
                                         labels={"behaviour": "advice"}))
    with pytest.raises(InputError, match="status"):
        HumanReview(round_id=human, item_id=item, annotator_id="kim", status="approved")
    aid = write_annotation(db, HumanReview(round_id=human, item_id=item, annotator_id="kim",
                                           labels={"behaviour": "question", "skills": ["b", "a"]}))
    row = db.fetchone("SELECT labels, status FROM ds.annotation WHERE annotation_id = ?", [aid])
    labels = row["labels"] if isinstance(row["labels"], dict) else json.loads(row["labels"])
    assert labels == {"behaviour": "question", "skills": ["a", "b"]} and row["status"] == "submitted"


def test_review_queue_and_widget_render_any_scheme(duck_db, tmp_path):
    from vignette_lab.pipeline.review import (SchemeReviewWidget, assign_reviewers, review_widget,
                                              scheme_keys)
    from vignette_lab.pipeline.rounds import create_round, effective_annotations

    db = duck_db
    did = _dataset(db, tmp_path)
    scheme = dataset_scheme(db, did)
    keys = scheme_keys(scheme)
    for speaker in ("counselor", "client"):
        want = {(f.name, c.code) for f in scheme.fields_for(speaker) for c in f.categories}
        assert set(keys[speaker].values()) == want  # a key for every category
        assert not set(keys[speaker]) & {"n", "p", "h"}
    rid = create_round(db, did, "human_review")
    assign_reviewers(db, rid, ["kim"], overlap=0)
    w = review_widget(db, rid, "kim")
    assert isinstance(w, SchemeReviewWidget)
    first = w.item
    shown = {n for n, sec in w.sections.items() if sec.layout.display != "none"}
    assert shown == {f.name for f in scheme.fields_for(first.speaker)}
    for f in scheme.fields_for(first.speaker):
        if f.kind in ("single", "ordinal"):
            labels = [o[0] for o in w.controls[f.name].options]
            assert all(any(c.label_ko in lab for lab in labels) for c in f.categories)
    key = next(k for k, (fname, _) in keys[first.speaker].items() if fname == "behaviour")
    w.handle_key(key)
    w.handle_key("Enter")
    ann = effective_annotations(db, rid)
    assert len(ann) == 1 and "behaviour" in ann[0]["labels"]
    assert w.item is not None and w.item.item_id != first.item_id


def test_iaa_covers_every_kind_of_field(duck_db, tmp_path):
    from vignette_lab.pipeline.field_gate import round_agreement, run_gate

    db = duck_db
    did = _dataset(db, tmp_path)
    rows = ["session_id,seq,annotator,field,value"]
    for a, (b1, s1, w1, l1, b2, w2, t) in {"kim": ("question", "a|b", 4, "low", "question", 2, "change"),
                                           "lee": ("reflection", "a", 3, "mid", "question", 2, "change"),
                                           "park": ("question", "a|b", 4, "low", "reflection", 1, "sustain")}.items():
        rows += [f"7,0,{a},behaviour,{b1}", f"7,0,{a},skills,{s1}", f"7,0,{a},warmth,{w1}",
                 f"7,0,{a},level,{l1}", f"8,0,{a},behaviour,{b2}", f"8,0,{a},warmth,{w2}",
                 f"8,0,{a},level,high", f"7,1,{a},talk_type,{t}", f"7,1,{a},skills,b"]
    p = _write(tmp_path, "all.csv", "\n".join(rows) + "\n")
    rid = import_annotations(db, p, dataset_id=did)["rounds"][0]["round_id"]
    _, results = round_agreement(db, rid, n_boot=50)
    kinds = {r.field: r.kind for r in results}
    assert kinds == {"behaviour": "single", "talk_type": "single", "skills": "multi",
                     "warmth": "score", "level": "ordinal"}
    names = {r.field: {c["name"] for c in r.to_dict()["coefficients"]} for r in results}
    assert "fleiss_kappa" in names["behaviour"] and "krippendorff_alpha_masi" in names["skills"]
    assert "icc1" in names["warmth"] and "krippendorff_alpha_ordinal" in names["level"]
    g = run_gate(db, rid, n_boot=50, store=False)
    assert {f["field"] for f in g["fields"]} == {"behaviour"}  # only fields with a declared gate
    assert g["gate_id"] is None
