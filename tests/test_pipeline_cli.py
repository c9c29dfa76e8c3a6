"""Pipeline CLI (click CliRunner) and the end-to-end demo on both backends."""

from __future__ import annotations

import json
import re

import click
import pytest
from click.testing import CliRunner

from test_pipeline_datasets import ROWS, _write_jsonl
from vignette_lab.cli import pipeline as pcli
from vignette_lab.pipeline.demo import SIMULATION_NOTE, run_demo, simulated_review

COMMANDS = [pcli.scheme, pcli.dataset, pcli.annotations, pcli.annotate, pcli.review, pcli.iaa,
            pcli.gate, pcli.export, pcli.import_, pcli.pipeline]


@click.group()
@click.option("--db", "db_url", required=True)
@click.pass_context
def root(ctx, db_url):
    ctx.obj = {"db_url": db_url}


for _cmd in COMMANDS:
    root.add_command(_cmd)


def _walk(cmd, prefix=""):
    yield prefix + cmd.name, cmd
    for sub in getattr(cmd, "commands", {}).values():
        yield from _walk(sub, prefix + cmd.name + " ")


def test_names_and_documentation():
    assert [c.name for c in COMMANDS] == ["scheme", "dataset", "annotations", "annotate", "review",
                                          "iaa", "gate", "export", "import", "pipeline"]
    assert set(pcli.dataset.commands) == {"create", "import"}
    assert set(pcli.scheme.commands) == {"list", "show", "validate", "import"}
    assert set(pcli.annotations.commands) == {"import", "export"}
    assert set(pcli.review.commands) == {"assign", "status"} and set(pcli.pipeline.commands) == {"demo"}
    for name, cmd in (x for c in COMMANDS for x in _walk(c)):
        assert cmd.help, f"{name} has no docstring"
        assert "Example: vignette-lab" in cmd.help, f"{name} docstring lacks an example"
        for p in cmd.params:
            if isinstance(p, click.Option):
                assert p.help, f"{name} {p.opts} has no help"


def test_cli_flow_on_duckdb(tmp_path):
    url = str(tmp_path / "cli.duckdb")
    run = CliRunner().invoke
    src = tmp_path / "t.jsonl"
    _write_jsonl(src, ROWS + [dict(r, session_id="s2") for r in ROWS])
    out = run(root, ["--db", url, "dataset", "import", str(src), "--name", "pilot"])
    assert out.exit_code == 0, out.output
    did = out.output.split("\t")[0]
    assert out.output.strip().endswith("4 items")
    out = run(root, ["--db", url, "annotate", "--round", "ai", "--dataset", did, "--max-items", "3"])
    assert out.exit_code == 0, out.output
    rid = re.search(r"round (\S+):", out.output).group(1)
    assert "3 proposed" in out.output
    out = run(root, ["--db", url, "annotate", "--round", "ai", "--resume", rid])
    assert "1 proposed, 3 already done" in out.output
    out = run(root, ["--db", url, "review", "assign", "--dataset", did, "--reviewer", "kim",
                     "--reviewer", "lee", "--overlap", "0.5"])
    assert out.exit_code == 0 and "2 with two reviewers" in out.output, out.output
    hr = re.search(r"round (\S+):", out.output).group(1)
    out = run(root, ["--db", url, "review", "status", "--round", hr])
    assert out.output.split() == ["kim", "0/3", "lee", "0/3"]
    # user mistakes: one line, no traceback
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"session_id": "s", "seq": 0, "speaker": "x", "text": "a"}\n', encoding="utf-8")
    out = run(root, ["--db", url, "dataset", "import", str(bad)])
    assert out.exit_code == 1 and "line 1" in out.output and "speaker" in out.output
    assert "Traceback" not in out.output
    out = run(root, ["--db", url, "gate", "--round", hr, "--json"])
    assert out.exit_code == 0, out.output
    res = json.loads(out.stdout)  # nothing reviewed yet: no field has data, nothing can pass
    assert res["decision"] == "inconclusive" and {f["outcome"] for f in res["fields"]} == {"no_data"}
    out = run(root, ["--db", url, "gate", "--round", rid])
    assert out.exit_code == 1 and "human_review" in out.output
    out = run(root, ["--db", url, "annotate", "--round", "ai"])
    assert out.exit_code == 2 and "exactly one of" in out.output


def test_simulated_reviewer_is_seeded():
    item = {"item_id": "i1", "intended_technique": "open_question"}
    prop = {"techniques": ["closed_question"], "appropriateness": "pos", "client_state": ["guarded"],
            "scores": {"empathy": 4.0}}
    a = simulated_review(item, prop, "sim-reviewer-1", seed=3)
    assert a == simulated_review(item, prop, "sim-reviewer-1", seed=3)
    assert all(0 <= v <= 5 for v in a["scores"].values())
    clean = simulated_review(item, prop, "sim-reviewer-1", seed=3, noise=0.0)
    assert clean["techniques"] == ["open_question"]  # starts from the intended technique
    assert (clean["appropriateness"], clean["client_state"]) == ("pos", ["guarded"])
    assert clean["scores"]["empathy"] == 4.0 and clean["scores"]["validation"] == 3.0
    noisy = [simulated_review(dict(item, item_id=f"i{n}"), prop, "r", seed=0, noise=1.0)
             for n in range(5)]
    assert all(x["techniques"] != ["open_question"] for x in noisy)


@pytest.mark.slow
def test_demo_end_to_end(db, tmp_path):
    lines = []
    s = run_demo(db, tmp_path / "demo", sessions=2, turns=4, seed=5, echo=lines.append)
    assert s["simulated"] is True and s["items"] == 8 and s["ai_written"] == 8
    assert "SIMULATED" in lines[0] and "golden v1" in lines[0]
    manifest = json.loads((tmp_path / "demo" / "export" / "manifest.json").read_text(encoding="utf-8"))
    assert SIMULATION_NOTE in manifest["notes"]
    assert manifest["counts"]["items"] == s["golden"]["item_count"] > 0
    assert s["gate_passed"] or s["gate_override"]  # a failed gate is visible as an override
    assert s["gate_rule"] == "lower-bound" and s["gate_decision"] in ("pass", "fail", "inconclusive")
    assert f"gate (lower-bound rule): {s['gate_decision'].upper()}" in lines[0]
    if s["gate_decision"] != "pass":
        assert s["gate_decision"] in s["gate_override"] and "override:" in lines[0]
    assert all(c["outcome"] in ("pass", "fail", "inconclusive") for c in s["checks"])
    reviewers = {r["annotator_id"] for r in s["intended_agreement"]["human"]}
    assert reviewers and all(r.startswith("sim-reviewer-") for r in reviewers)
    assert (tmp_path / "demo" / "tagger.joblib").is_file()
    assert 0.0 <= s["classifier"]["micro_f1"] <= 1.0
    report = (tmp_path / "demo" / "reports").glob("gate-*.html")
    assert len(list(report)) == 1
    # AI rows are proposals only, whatever the demo did afterwards
    assert db.scalar("SELECT count(*) FROM ds.annotation WHERE annotator_kind = 'ai'"
                     " AND status <> 'proposed'") == 0
