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
    from vignette_lab.analytics.cli import drift, report

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
