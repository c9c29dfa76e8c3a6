"""A published-style multi-annotator corpus from CSV to `iaa --json` and the gate, CLI only.

The corpus is ``datasets/examples/mi_corpus.csv`` (synthetic, English MI transcripts, one row
per utterance per annotator, 2–10 annotators per transcript). The agreement numbers are
checked against the reference libraries (krippendorff; statsmodels' Fleiss κ on the
transcripts every annotator coded), and export → import must reproduce the same records.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from vignette_lab.cli import main

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "datasets" / "examples"
CORPUS = EX / "mi_corpus.csv"
SCHEME = EX / "mi_corpus_scheme.json"
MAP = "session_id=transcript_id,seq=utterance_id,speaker=interlocutor,text=utterance_text"
ANN_MAP = "session_id=transcript_id,seq=utterance_id,annotator=annotator_id"
FIELDS = "behaviour=main_therapist_behaviour,talk_type=client_talk_type"


def _cli(url: str, *args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, ["--db", url, *args])
    assert "Traceback" not in res.output and res.exception is None or isinstance(
        res.exception, SystemExit), res.output
    return res.exit_code, res.stdout, res.stderr


def _json(url: str, *args: str):
    code, out, err = _cli(url, *args, "--json")
    assert code == 0, out + err
    return json.loads(out)  # nothing but the JSON on stdout


def _rows(path: Path, transcripts: set[str] | None = None) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [r for r in rows if transcripts is None or r["transcript_id"] in transcripts]


def _load(url: str, corpus: Path) -> tuple[str, str]:
    ref = _json(url, "scheme", "import", str(SCHEME))
    assert set(ref) == {"name", "version", "sha256"} and ref["name"] == "mi-corpus"
    ds = _json(url, "dataset", "import", str(corpus), "--scheme", "mi-corpus", "--map", MAP,
               "--speaker-map", "therapist=counselor,client=client", "--keep-extra")
    utterances = {(r["transcript_id"], r["utterance_id"]) for r in _rows(corpus)}
    assert ds["items"] == len(utterances) and ds["sessions"] == len({t for t, _ in utterances})
    assert ds["scheme"] == ref
    ann = _json(url, "annotations", "import", str(corpus), "--dataset", ds["dataset_id"],
                "--map", ANN_MAP, "--fields", FIELDS)
    (rnd,) = ann["rounds"]
    rows = _rows(corpus)
    assert rnd["annotator_kind"] == "human"
    assert rnd["annotators"] == len({r["annotator_id"] for r in rows})
    assert rnd["rows"] == len(rows)  # one non-missing code per row
    return ds["dataset_id"], rnd["round_id"]


def _reference(rows: list[dict[str, str]], column: str, codes: list[str]):
    """(items × raters) matrix of category indexes, NaN where not rated."""
    items = sorted({(r["transcript_id"], r["utterance_id"]) for r in rows if r[column] != "n/a"})
    raters = sorted({r["annotator_id"] for r in rows})
    m = np.full((len(items), len(raters)), np.nan)
    ix = {k: i for i, k in enumerate(items)}
    jx = {k: j for j, k in enumerate(raters)}
    for r in rows:
        if r[column] != "n/a":
            m[ix[(r["transcript_id"], r["utterance_id"])], jx[r["annotator_id"]]] = codes.index(r[column])
    return m


CODES = {"behaviour": ["reflection", "question", "therapist_input", "other"],
         "talk_type": ["change", "neutral", "sustain"]}
COLUMN = {"behaviour": "main_therapist_behaviour", "talk_type": "client_talk_type"}


def _coef(res: dict, name: str) -> float:
    return next(c["value"] for c in res["coefficients"] if c["name"] == name)


def test_corpus_to_iaa_equals_reference_libraries(db, tmp_path):
    import krippendorff
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    url = db.url
    _, rid = _load(url, CORPUS)
    out = _json(url, "iaa", "--round", rid, "--resamples", "200")
    assert [r["field"] for r in out] == ["behaviour", "talk_type"]
    rows = _rows(CORPUS)
    for res in out:
        assert set(res) >= {"field", "kind", "n_items", "raters_per_item", "coefficients"}
        m = _reference(rows, COLUMN[res["field"]], CODES[res["field"]])
        assert res["n_items"] == m.shape[0]
        assert res["raters_per_item"] == {"min": 2, "max": 10}
        alpha = krippendorff.alpha(reliability_data=m.T, level_of_measurement="nominal")
        assert _coef(res, "krippendorff_alpha") == pytest.approx(alpha, abs=1e-9)
        for c in res["coefficients"]:
            assert set(c) >= {"name", "value", "ci_low", "ci_high"}

    # Fleiss κ (statsmodels needs the same number of raters per item): the two transcripts
    # all ten annotators coded, imported as a corpus of their own.
    sub = tmp_path / "ten_raters.csv"
    full = _rows(CORPUS, {"1", "2"})
    with open(sub, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(full[0]))
        w.writeheader()
        w.writerows(full)
    url2 = str(tmp_path / "sub.duckdb")
    _, rid2 = _load(url2, sub)
    for res in _json(url2, "iaa", "--round", rid2, "--resamples", "200"):
        m = _reference(full, COLUMN[res["field"]], CODES[res["field"]])
        assert not np.isnan(m).any()
        table, _ = aggregate_raters(m.astype(int), n_cat=len(CODES[res["field"]]))
        assert _coef(res, "fleiss_kappa") == pytest.approx(fleiss_kappa(table, method="fleiss"),
                                                           abs=1e-9)
        assert res["raters_per_item"] == {"min": 10, "max": 10}


def test_gate_outcomes_and_export_import_round_trip(db, tmp_path):
    url = db.url
    did, rid = _load(url, CORPUS)
    g = _json(url, "gate", "--round", rid, "--resamples", "200")
    assert g["decision"] in ("pass", "fail", "inconclusive") and g["rule"] == "lower-bound"
    assert {f["field"] for f in g["fields"]} == {"behaviour", "talk_type"}
    for f in g["fields"]:
        assert set(f) >= {"field", "outcome", "coefficient", "value", "ci_low", "ci_high", "threshold"}
        lo, hi, thr = f["ci_low"], f["ci_high"], f["threshold"]
        expected = "pass" if lo >= thr else "fail" if hi < thr else "inconclusive"
        assert f["outcome"] == expected
    point = _json(url, "gate", "--round", rid, "--rule", "point", "--resamples", "200")
    for f in point["fields"]:
        assert f["outcome"] == ("pass" if f["value"] >= f["threshold"] else "fail")
    # a stricter threshold makes a field fail; the decision is stored with the override reason
    strict = _json(url, "gate", "--round", rid, "--threshold", "behaviour=0.99",
                   "--override", "pilot data", "--resamples", "200")
    assert next(f for f in strict["fields"] if f["field"] == "behaviour")["outcome"] == "fail"
    assert strict["decision"] == "fail" and strict["override_reason"] == "pilot data"

    # export → import (a second import into the same data set makes a new round) → same records
    first = tmp_path / "round.csv"
    assert _json(url, "annotations", "export", "--round", rid, "--out", str(first))["rows"] == \
        len(_rows(CORPUS))
    again = _json(url, "annotations", "import", str(first), "--dataset", did)
    (rnd2,) = again["rounds"]
    assert rnd2["round_id"] != rid and rnd2["rows"] == len(_rows(CORPUS))
    second = tmp_path / "round2.jsonl"
    _json(url, "annotations", "export", "--round", rnd2["round_id"], "--out", str(second))
    a = [dict(r, seq=int(r["seq"])) for r in csv.DictReader(open(first, encoding="utf-8"))]
    b = [json.loads(x) for x in second.read_text(encoding="utf-8").splitlines()]
    for r in b:
        r["rationale"] = r["rationale"] or ""
    assert a == b
    # and the agreement of the re-imported round is the same
    n1 = _json(url, "iaa", "--round", rid, "--resamples", "100")
    n2 = _json(url, "iaa", "--round", rnd2["round_id"], "--resamples", "100")
    assert n1 == n2


def test_reviewer_renames_change_no_number(duck_db, tmp_path):
    url = duck_db.url
    _, rid = _load(url, CORPUS)
    renamed = tmp_path / "renamed.csv"
    rows = _rows(CORPUS)
    names = sorted({r["annotator_id"] for r in rows})
    new = {n: f"z{len(names) - i:02d}" for i, n in enumerate(names)}  # reversed order
    with open(renamed, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows([dict(r, annotator_id=new[r["annotator_id"]]) for r in rows])
    url2 = str(tmp_path / "renamed.duckdb")
    _, rid2 = _load(url2, renamed)
    a = _json(url, "iaa", "--round", rid, "--resamples", "100")
    b = _json(url2, "iaa", "--round", rid2, "--resamples", "100")
    for x, y in zip(a, b, strict=True):
        assert (x["n_items"], x["raters_per_item"], x["design"]) == \
            (y["n_items"], y["raters_per_item"], y["design"])
        assert x["left_out"] == y["left_out"]  # items are named session_id:seq
        for cx, cy in zip(x["coefficients"], y["coefficients"], strict=True):
            assert cx["name"] == cy["name"]
            for k in ("value", "ci_low", "ci_high"):
                assert cx[k] == pytest.approx(cy[k], abs=1e-12), (cx["name"], k)
