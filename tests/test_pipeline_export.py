"""JSONL export + manifest, lossless re-import, tamper detection, and the local tagger."""

from __future__ import annotations

import hashlib
import json

import pytest

from test_pipeline_gate import _setup
from test_pipeline_helpers import COUNSELOR_LINES
from vignette_lab.errors import InputError
from vignette_lab.pipeline.adjudicate import adjudicate, disagreements
from vignette_lab.pipeline.annotate import auto_annotate
from vignette_lab.pipeline.classifier import (
    Tagger,
    evaluate_tagger,
    intended_agreement,
    train_technique_tagger,
)
from vignette_lab.pipeline.export import GOLDEN_SCHEMA, export_golden, import_export
from vignette_lab.pipeline.gate import gate
from vignette_lab.pipeline.golden import build_golden_set
from vignette_lab.pipeline.rounds import create_round, effective_annotations


def _golden(db):
    did, items, hr = _setup(db, disagree_every=3)
    for d in disagreements(db, hr):
        adjudicate(db, d["item_id"], hr, "prof-kim", {"techniques": ["restatement"],
                                                      "appropriateness": "neutral"})
    g = gate(db, hr, n_resamples=100, override_reason="test fixture")
    return did, hr, g, build_golden_set(db, did, gate_id=g["gate_id"])


def test_export_roundtrip_is_byte_identical(db, duck_db, tmp_path):
    did, hr, g, gs = _golden(db)
    m = export_golden(db, gs["golden_id"], tmp_path / "e1", notes=["unit test"])
    raw = (tmp_path / "e1" / "items.jsonl").read_bytes()
    lines = raw.decode("utf-8").splitlines()
    assert len(lines) == m["counts"]["items"] == gs["item_count"] == 12
    first = json.loads(lines[0])
    assert first["schema"] == GOLDEN_SCHEMA and set(first["labels"]) >= {"techniques", "scores"}
    manifest = json.loads((tmp_path / "e1" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["files"]["items.jsonl"]["sha256"] == hashlib.sha256(raw).hexdigest()
    assert manifest["counts"] == {"items": 12, "agreed": 10, "adjudicated": 2}
    thr = manifest["gate"]["thresholds"]
    assert {k: thr[k] for k in ("kappa_min", "icc_min", "icc_type", "rule")} == {
        "kappa_min": 0.6, "icc_min": 0.75, "icc_type": "icc1", "rule": "lower-bound"}
    assert manifest["agreement"]["icc_type"] == thr["icc_type"] == thr["fields"]["empathy"][0]
    assert thr["fields"]["appropriateness"] == ["fleiss_kappa", 0.6] and thr["fields"]["empathy"][1] == 0.75
    assert manifest["gate"]["override_reason"] == "test fixture"
    assert hr in manifest["source_rounds"] and manifest["taxonomy_version"]
    assert "techniques_macro_kappa" in manifest["agreement"] and manifest["agreement"]["icc"]
    assert manifest["tool"]["name"] == "vignette-lab" and manifest["notes"] == ["unit test"]
    assert db.scalar("SELECT count(*) FROM ds.export_manifest WHERE golden_id = ?", [gs["golden_id"]]) == 1
    # into a fresh DuckDB database, then out again: same bytes
    target = duck_db if db.backend == "postgres" else _fresh_duck(tmp_path)
    imp = import_export(target, tmp_path / "e1")
    assert imp["item_count"] == 12 and imp["version"] == 1
    export_golden(target, imp["golden_id"], tmp_path / "e2")
    assert (tmp_path / "e2" / "items.jsonl").read_bytes() == raw
    with pytest.raises(InputError, match="already exists"):
        import_export(target, tmp_path / "e1")


def _fresh_duck(tmp_path):
    from vignette_lab.store import connect, init_db

    db = connect(str(tmp_path / "fresh.duckdb"))
    init_db(db)
    return db


def test_tampered_or_broken_exports_are_refused(duck_db, tmp_path):
    _, _, _, gs = _golden(duck_db)
    export_golden(duck_db, gs["golden_id"], tmp_path / "e")
    items = tmp_path / "e" / "items.jsonl"
    original = items.read_text(encoding="utf-8")
    items.write_text(original.replace("restatement", "challenge", 1), encoding="utf-8")
    fresh = _fresh_duck(tmp_path)
    with pytest.raises(InputError, match="sha256") as err:
        import_export(fresh, tmp_path / "e")
    assert err.value.source.endswith("items.jsonl")
    assert fresh.scalar("SELECT count(*) FROM ds.golden_set") == 0
    items.write_text(original, encoding="utf-8")
    (tmp_path / "e" / "manifest.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="manifest"):
        import_export(fresh, tmp_path / "e")


def _records(n_rep=3):
    return [{"counselor_text": f"{line} ({i})", "labels": {"techniques": [tech]}}
            for i in range(n_rep) for tech, line in COUNSELOR_LINES.items()]


def test_tagger_is_deterministic_and_scores_itself(tmp_path):
    recs = _records()
    a, b = train_technique_tagger(recs), train_technique_tagger(recs)
    probe = ["요즘 어떻게 지내는지 들려줄 수 있을까요?", "많이 속상하셨겠어요."]
    assert a.predict(probe) == b.predict(probe)
    assert (a.predict_proba(probe) == b.predict_proba(probe)).all()
    rep = evaluate_tagger(a, recs)
    assert rep["n_items"] == len(recs) and rep["micro_f1"] == pytest.approx(1.0)
    assert {r["label"] for r in rep["per_label"]} == set(COUNSELOR_LINES)
    assert rep["macro_kappa"] == pytest.approx(1.0)
    path = a.save(tmp_path / "t.joblib")
    c = Tagger.load(path)
    assert c.predict(probe) == a.predict(probe) and c.labels == a.labels
    (tmp_path / "junk.joblib").write_bytes(b"not a model")
    with pytest.raises(InputError, match="tagger") as err:
        Tagger.load(tmp_path / "junk.joblib")
    assert err.value.source.endswith("junk.joblib")
    with pytest.raises(InputError):
        train_technique_tagger(recs[:1])


def test_tagger_as_round_one_annotator_and_intended_agreement(db, tmp_path):
    from test_pipeline_helpers import dataset_with_items

    path = train_technique_tagger(_records()).save(tmp_path / "tagger.joblib")
    did = dataset_with_items(db, sessions=2, counselor_turns=3)
    rid = create_round(db, did, "ai_auto", engine=f"classifier:{path}")
    res = auto_annotate(db, rid, progress=False)
    assert res["written"] == 6 and res["annotator_id"].startswith("ai:local-classifier")
    rows = effective_annotations(db, rid)
    assert {r["status"] for r in rows} == {"proposed"}
    assert all(r["appropriateness"] is None and r["client_state"] == [] for r in rows)  # never invented
    (agree,) = intended_agreement(db, rid)
    assert agree["n_items"] == 6 and agree["hit_rate"] == pytest.approx(1.0)
    assert agree["kappa_primary"] == pytest.approx(1.0)


def test_golden_set_of_the_mi_corpus_scheme_exports_and_round_trips(duck_db, tmp_path):
    """Golden items on a non-default scheme carry its field names; the manifest names the
    scheme; export → import (into a database that has the scheme) → export gives the same bytes."""
    import csv
    from pathlib import Path

    from vignette_lab.pipeline.annotations_io import import_annotations
    from vignette_lab.pipeline.datasets import import_transcripts
    from vignette_lab.pipeline.field_gate import run_gate
    from vignette_lab.pipeline.schemes import dataset_scheme, import_scheme

    ex = Path(__file__).resolve().parent.parent / "datasets" / "examples"
    mapping = {"session_id": "transcript_id", "seq": "utterance_id", "speaker": "interlocutor",
               "text": "utterance_text"}
    import_scheme(duck_db, ex / "mi_corpus_scheme.json")
    did = import_transcripts(duck_db, ex / "mi_corpus.csv", scheme="mi-corpus", keep_extra=True,
                             mapping=mapping, speaker_map={"therapist": "counselor", "client": "client"})
    rid = import_annotations(duck_db, ex / "mi_corpus.csv", dataset_id=did,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "annotator": "annotator_id"},
                             fields={"behaviour": "main_therapist_behaviour",
                                     "talk_type": "client_talk_type"})["rounds"][0]["round_id"]
    g = run_gate(duck_db, rid, rule="point", n_boot=50, override_reason="example corpus")
    gs = build_golden_set(duck_db, did, gate_id=g["gate_id"])
    # reference: unanimous utterances of the CSV (each speaker's own field)
    with open(ex / "mi_corpus.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    codes: dict[tuple[str, str], set] = {}
    speaker: dict[tuple[str, str], str] = {}
    for r in rows:
        key = (r["transcript_id"], r["utterance_id"])
        col = "main_therapist_behaviour" if r["interlocutor"] == "therapist" else "client_talk_type"
        codes.setdefault(key, set()).add(r[col])
        speaker[key] = r["interlocutor"]
    unanimous = {k for k, v in codes.items() if len(v) == 1}
    assert gs["agreed"] == len(unanimous) and gs["excluded"] == len(codes) - len(unanimous)
    assert gs["scheme"]["name"] == "mi-corpus" and 0 < gs["item_count"] < len(codes)

    m = export_golden(duck_db, gs["golden_id"], tmp_path / "e1")
    assert m["scheme"] == dataset_scheme(duck_db, did).ref
    assert m["scheme"]["name"] == "mi-corpus" and m["agreement"]["decision"] == g["decision"]
    raw = (tmp_path / "e1" / "items.jsonl").read_bytes()
    recs = [json.loads(x) for x in raw.decode("utf-8").splitlines()]
    assert len(recs) == len(unanimous)
    for rec in recs:
        key = (rec["session_id"], str(rec["seq"]))
        field = "behaviour" if speaker[key] == "therapist" else "talk_type"
        assert rec["speaker"] == ("counselor" if field == "behaviour" else "client")
        assert set(rec["labels"]) == {field, "rationale"}
        assert rec["labels"][field] == next(iter(codes[key]))

    fresh = _fresh_duck(tmp_path)
    with pytest.raises(InputError, match="mi-corpus.*not in this database") as exc:
        import_export(fresh, tmp_path / "e1")  # the scheme must be imported first
    assert "manifest.json" in str(exc.value)
    assert fresh.scalar("SELECT count(*) FROM ds.dataset") == 0
    import_scheme(fresh, ex / "mi_corpus_scheme.json")
    imp = import_export(fresh, tmp_path / "e1")
    assert imp["item_count"] == len(recs)
    assert dataset_scheme(fresh, imp["dataset_id"]).ref == m["scheme"]  # the data set pins it
    export_golden(fresh, imp["golden_id"], tmp_path / "e2")
    assert (tmp_path / "e2" / "items.jsonl").read_bytes() == raw

    # a label outside the scheme is refused with file, line and field; nothing written
    bad = tmp_path / "bad"
    bad.mkdir()
    lines = raw.decode("utf-8").splitlines()
    rec = json.loads(lines[1])
    field = next(k for k in rec["labels"] if k != "rationale")
    rec["labels"][field] = "made_up"
    lines[1] = json.dumps(rec, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    (bad / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    man = json.loads((tmp_path / "e1" / "manifest.json").read_text(encoding="utf-8"))
    data = (bad / "items.jsonl").read_bytes()
    man["files"]["items.jsonl"].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    man["files"] = {"items.jsonl": man["files"]["items.jsonl"]}  # this hand-made export holds only the JSONL
    (bad / "manifest.json").write_text(json.dumps(man), encoding="utf-8")
    (tmp_path / "o").mkdir()
    other = _fresh_duck(tmp_path / "o")
    import_scheme(other, ex / "mi_corpus_scheme.json")
    with pytest.raises(InputError, match="unknown code") as exc:
        import_export(other, bad)
    assert "line 2" in str(exc.value) and f"labels.{field}" in str(exc.value)
    assert other.scalar("SELECT count(*) FROM ds.golden_set") == 0
