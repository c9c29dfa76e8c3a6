"""HTML reports and the `report` / `drift` CLI commands."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from test_drift import _session
from test_longitudinal import _scored_session
from vignette_lab.analytics import reports
from vignette_lab.cli import main
from vignette_lab.errors import InputError


@pytest.fixture
def filled(duck_db):
    _session(duck_db, "P1", ["…그냥 좀 알아줬으면 했던 것 같아요.",
                             "본인은 최근 학업과 관련하여 상당한 스트레스를 경험하고 있습니다. 이상으로 마치겠습니다.",
                             "<script>alert(1)</script> 제 핵심신념은 그거예요."])
    for day, v in enumerate([1.5, 2.0, 2.6, 3.1]):
        _scored_session(duck_db, "L1", day, [v])
    for day in range(4):
        _scored_session(duck_db, "L2", day, [3.5], cohort="c2")
    return duck_db


def _self_contained(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<style>" in text
    assert not re.search(r"(src|href)=['\"]https?://", text)
    return text


def test_drift_report_html(filled, tmp_path):
    path = reports.write_drift_report(filled, tmp_path, scan=True)
    text = _self_contained(path)
    assert "data:image/png;base64," in text and "unvalidated working value (seed 004 M14)" in text
    assert "<script>" not in text  # excerpts are escaped
    assert "ccd_leak" in text and "style_drift" in text


def test_growth_report_views(filled, tmp_path):
    path = reports.write_growth_report(filled, tmp_path, cohort="c1")
    text = _self_contained(path)
    assert "<td>L1</td>" in text and "<td>L2</td>" not in text and text.count("data:image/png;base64,") == 2
    assert filled.fetchone("SELECT session_count FROM app.learner_profile WHERE learner_id = 'L1'")["session_count"] == 4
    from vignette_lab.errors import PermissionDenied

    with pytest.raises(PermissionDenied):
        reports.write_growth_report(filled, tmp_path, learner="L2", principal=("trainee", "L1"))
    with pytest.raises(InputError, match="no ended sessions"):
        reports.write_growth_report(filled, tmp_path, cohort="nobody")


def test_gate_report_needs_one_id(filled, tmp_path):
    with pytest.raises(InputError, match="exactly one"):
        reports.write_gate_report(filled, tmp_path)
    with pytest.raises(InputError, match="no gate decision"):
        reports.write_gate_report(filled, tmp_path, round_id="r-none")


def test_cli_commands(filled, tmp_path):
    db_path = filled.path
    filled.close()
    runner = CliRunner()
    res = runner.invoke(main, ["--db", db_path, "drift", "scan", "--no-progress"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.output)
    assert summary["written"] >= 2 and summary["threshold_note"].startswith("unvalidated")
    res = runner.invoke(main, ["--db", db_path, "report", "drift", "--out", str(tmp_path / "r")])
    assert res.exit_code == 0, res.output
    assert list((tmp_path / "r").glob("drift-*.html"))
    res = runner.invoke(main, ["--db", db_path, "report", "growth", "--learner", "L2", "--out", str(tmp_path / "r")])
    assert res.exit_code == 0 and res.output.strip().endswith("growth-L2.html")
    res = runner.invoke(main, ["--db", db_path, "report", "gate", "--round", "nope"])
    assert res.exit_code == 1 and "no gate decision" in res.output and "Traceback" not in res.output
    res = runner.invoke(main, ["--db", db_path, "report", "gate"])
    assert res.exit_code == 2 and "exactly one" in res.output
    res = runner.invoke(main, ["--db", db_path, "drift", "scan", "--since", "yesterday"])
    assert res.exit_code == 2 and "ISO" in res.output


def test_every_command_documented():
    from vignette_lab.cli.analytics import drift, report

    for group in (drift, report):
        assert group.help and "Example" in group.help
        for cmd in group.commands.values():
            assert cmd.help and "Example" in cmd.help, cmd.name
            assert all(p.help for p in cmd.params if hasattr(p, "help")), cmd.name



def test_drift_report_reads_golden_sets(duck_db, tmp_path):
    """Regression: label drift joined ds.golden_set on a created_at column it does not have."""
    from vignette_lab.analytics.drift import label_drift_tables
    from vignette_lab.pipeline.demo import run_demo

    summary = run_demo(duck_db, tmp_path / "demo", sessions=2, turns=4, seed=5, echo=None)
    assert duck_db.scalar("SELECT count(*) FROM ds.golden_set") >= 1, summary
    shift, flags, agreement = label_drift_tables(duck_db)
    assert {"time", "agreement"} <= set(agreement.columns) or agreement.empty
    path = reports.write_drift_report(duck_db, tmp_path / "reports")
    assert _self_contained(path)


def test_gate_report_per_field_decision_on_mi_corpus(duck_db, tmp_path):
    """A per-field gate decision of the MI example corpus renders every field; so does the CLI."""
    from pathlib import Path

    ex = Path(__file__).resolve().parent.parent / "datasets" / "examples"
    url = duck_db.url
    runner = CliRunner()

    def js(*args):
        res = runner.invoke(main, ["--db", url, *args, "--json"])
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)

    js("scheme", "import", str(ex / "mi_corpus_scheme.json"))
    ds = js("dataset", "import", str(ex / "mi_corpus.csv"), "--scheme", "mi-corpus", "--map",
            "session_id=transcript_id,seq=utterance_id,speaker=interlocutor,text=utterance_text",
            "--speaker-map", "therapist=counselor,client=client", "--keep-extra")
    (rnd,) = js("annotations", "import", str(ex / "mi_corpus.csv"), "--dataset", ds["dataset_id"],
                "--map", "session_id=transcript_id,seq=utterance_id,annotator=annotator_id",
                "--fields", "behaviour=main_therapist_behaviour,talk_type=client_talk_type")["rounds"]
    g = js("gate", "--round", rnd["round_id"], "--threshold", "behaviour=0.99",
           "--override", "예비 자료 <검토>", "--resamples", "100")
    assert g["decision"] == "fail"
    path = reports.write_gate_report(duck_db, tmp_path, gate_id=g["gate_id"])
    text = _self_contained(path)
    outcome_ko = {"pass": "통과", "fail": "미달", "inconclusive": "판단 보류"}
    for f in g["fields"]:
        # Korean field label, outcome, value and CI of every field, in one table row
        label = {"behaviour": "상담자 행동", "talk_type": "내담자 대화 유형"}[f["field"]]
        row = re.search(rf"<tr><td class='l'>{label} \({f['field']}\)</td>(.*?)</tr>", text)
        assert row, f["field"]
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1))
        assert cells[0] == outcome_ko[f["outcome"]]
        assert cells[1:5] == [f"{f[k]:.3f}" for k in ("value", "ci_low", "ci_high", "threshold")]
    assert "전체 판정: <span class='fail'>미통과</span>" in text
    assert "예외 승인: 예비 자료 &lt;검토&gt;" in text  # override reason, escaped
    assert "반영" in text and "변화대화" in text  # category labels from the scheme (disagreements)
    assert "시뮬레이션 검토자" not in text  # the corpus's coders are not simulated
    assert "mi-corpus" in text

    res = runner.invoke(main, ["--db", url, "report", "gate", "--round", rnd["round_id"],
                               "--out", str(tmp_path / "cli")])
    assert res.exit_code == 0, res.output
    assert Path(res.stdout.strip()).read_text(encoding="utf-8").count("<tr><td class='l'>") >= 2


def test_gate_report_per_field_warns_on_simulated_reviewers(duck_db, tmp_path):
    """Simulated coders (``sim-*``) get the warning; the point rule is named."""
    import csv
    from pathlib import Path

    from vignette_lab.pipeline.annotations_io import import_annotations
    from vignette_lab.pipeline.datasets import import_transcripts
    from vignette_lab.pipeline.field_gate import run_gate
    from vignette_lab.pipeline.report import write_gate_report
    from vignette_lab.pipeline.schemes import import_scheme

    ex = Path(__file__).resolve().parent.parent / "datasets" / "examples"
    with open(ex / "mi_corpus.csv", encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["transcript_id"] in {"1", "2"}]
    corpus = tmp_path / "sim.csv"
    with open(corpus, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows([dict(r, annotator_id=f"sim-reviewer-{r['annotator_id']}") for r in rows])
    import_scheme(duck_db, ex / "mi_corpus_scheme.json")
    did = import_transcripts(duck_db, corpus, scheme="mi-corpus", keep_extra=True,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "speaker": "interlocutor", "text": "utterance_text"},
                             speaker_map={"therapist": "counselor", "client": "client"})
    rid = import_annotations(duck_db, corpus, dataset_id=did,
                             mapping={"session_id": "transcript_id", "seq": "utterance_id",
                                      "annotator": "annotator_id"},
                             fields={"behaviour": "main_therapist_behaviour",
                                     "talk_type": "client_talk_type"})["rounds"][0]["round_id"]
    g = run_gate(duck_db, rid, rule="point", n_boot=50)
    text = write_gate_report(duck_db, g["gate_id"], tmp_path / "r").read_text(encoding="utf-8")
    assert "시뮬레이션 검토자" in text and "근거가 아닙니다" in text
    assert "점추정 규칙" in text
    assert "상담자 행동 (behaviour)" in text and "내담자 대화 유형 (talk_type)" in text
