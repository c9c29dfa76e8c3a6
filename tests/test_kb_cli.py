"""``vignette-lab kb`` commands through click's CliRunner (real DuckDB file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vignette_lab.kb import embedders as E
from vignette_lab.cli.kb import kb

SOURCES = Path(__file__).resolve().parent.parent / "kb_sources"


@pytest.fixture
def runner(monkeypatch):
    E._cache.clear()
    monkeypatch.setenv("VIGNETTE_EMBEDDER", "hashing")  # fast; the default embedder is tested elsewhere
    yield CliRunner()
    E._cache.clear()


def test_sync_then_search_json(runner, tmp_path):
    url = str(tmp_path / "cli.duckdb")
    obj = {"db_url": url}
    dry = runner.invoke(kb, ["sync", "--dry-run", "--sources", str(SOURCES)], obj=obj)
    assert dry.exit_code == 0, dry.output
    assert "dry run" in dry.output and "added 29" in dry.output
    res = runner.invoke(kb, ["sync", "--sources", str(SOURCES)], obj=obj)
    assert res.exit_code == 0, res.output
    assert "added 29" in res.output and "quarantined 1" in res.output
    again = runner.invoke(kb, ["sync", "--sources", str(SOURCES)], obj=obj)
    assert "unchanged 30" in again.output

    out = runner.invoke(kb, ["search", "잠을 못 자요", "--role", "client", "--k", "3", "--json"], obj=obj)
    assert out.exit_code == 0, out.output
    hits = json.loads(out.output)
    assert len(hits) == 3
    for h in hits:
        assert {"source_id", "kb_kind", "sensitivity", "score", "text"} <= set(h)
        assert h["sensitivity"] <= 1 and h["kb_kind"] in ("diagnostic", "theory", "technique")
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)

    text = runner.invoke(kb, ["search", "반영과 재진술 구별", "--role", "evaluator"], obj=obj)
    assert text.exit_code == 0 and text.output.startswith("1. [")


def test_errors_are_one_line(runner, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    data = json.loads((SOURCES / "ko_context.json").read_text(encoding="utf-8"))
    data["license_class"] = "E"
    (bad / "ko_context.json").write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    res = runner.invoke(kb, ["sync", "--sources", str(bad)], obj={"db_url": str(tmp_path / "x.duckdb")})
    assert res.exit_code == 1
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and "ko_context.json" in lines[0] and "field 'license_class'" in lines[0]
    assert "Traceback" not in res.output
    res = runner.invoke(kb, ["search", "잠", "--role", "client"], obj={"db_url": str(tmp_path / "empty.duckdb")})
    assert res.exit_code == 1 and "run `vignette-lab kb sync` first" in res.output
    res = runner.invoke(kb, ["search", "x", "--role", "boss"], obj={"db_url": str(tmp_path / "x.duckdb")})
    assert res.exit_code == 2 and "boss" in res.output


def test_every_command_is_documented():
    for name, cmd in kb.commands.items():
        assert cmd.help and "Example:" in cmd.help, name
        for param in cmd.params:
            if param.param_type_name == "option":
                assert param.help, f"{name} {param.name}"
