"""`vignette-lab backup` on both backends (restored and read back) and VIGNETTE_DB=pgserver:DIR."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vignette_lab.cli import main
from vignette_lab.errors import InputError
from vignette_lab.store import connect, parse_db_url
from vignette_lab.store.audit_repo import log_audit
from vignette_lab.store.backup import backup, pg_tool

ROOT = Path(__file__).resolve().parent.parent
ENV = {"TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "", "HF_HUB_OFFLINE": "1"}


def _write_rows(db, n: int) -> None:
    for i in range(n):
        log_audit(db, "tester", "backup.row", f"t{i}")


def test_duckdb_backup_is_a_complete_file_without_the_wal(duck_db, tmp_path):
    _write_rows(duck_db, 32)
    out = tmp_path / "copy.duckdb"
    info = backup(duck_db, out)
    assert info["format"] == "duckdb" and out.stat().st_size == info["bytes"]
    assert not Path(str(out) + ".wal").exists()
    copy = connect(str(out))
    try:
        assert copy.scalar("SELECT count(*) FROM audit.audit_log WHERE action = 'backup.row'") == 32
        assert copy.scalar("SELECT count(*) FROM app.persona_card") >= 7
    finally:
        copy.close()
    with pytest.raises(InputError, match="already exists"):
        backup(duck_db, out)
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_backup_cli_duckdb(duck_db, tmp_path):
    _write_rows(duck_db, 3)
    path = duck_db.path
    duck_db.close()
    out = tmp_path / "cli.duckdb"
    result = CliRunner().invoke(main, ["--db", path, "backup", str(out)], env=ENV)
    assert result.exit_code == 0, result.output
    assert "backup: duckdb" in result.output
    again = CliRunner().invoke(main, ["--db", path, "backup", str(out)], env=ENV)
    assert again.exit_code == 1 and "already exists" in again.output and "Traceback" not in again.output


@pytest.mark.postgres
def test_postgres_backup_is_pg_dump_and_restores(pg_db, pg_url, tmp_path):
    _write_rows(pg_db, 12)
    out = tmp_path / "vignette.dump"
    info = backup(pg_db, out)
    assert info["format"] == "pg_dump-custom" and out.read_bytes()[:5] == b"PGDMP"
    proc = subprocess.run([pg_tool("pg_restore"), "--no-owner", f"--dbname={pg_url}", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    restored = connect(pg_url)
    try:
        assert restored.scalar("SELECT count(*) FROM audit.audit_log WHERE action = 'backup.row'") == 12
        # the restored database keeps its policies and the per-view roles still apply
        with restored.ai_view("client"):
            assert restored.scalar("SELECT current_user") == "vignette_client"
    finally:
        restored.close()


def test_pgserver_url_is_parsed(tmp_path):
    assert parse_db_url(f"pgserver:{tmp_path}/pg") == ("pgserver", str((tmp_path / "pg").resolve()))
    with pytest.raises(Exception, match="names no folder"):
        parse_db_url("pgserver:")


@pytest.mark.postgres
@pytest.mark.slow
def test_vignette_db_pgserver_mode_starts_a_shared_server(tmp_path):
    pytest.importorskip("pgserver")
    folder = tmp_path / "pg"
    os.chmod(tmp_path, 0o755)
    env = dict(os.environ, **ENV, VIGNETTE_DB=f"pgserver:{folder}", PYTHONPATH=str(ROOT))
    script = (
        "from vignette_lab.store import connect, init_db\n"
        "from vignette_lab.store.audit_repo import log_audit\n"
        "import sys\n"
        "db = connect(); init_db(db); log_audit(db, sys.argv[1], 'pgserver.mode', 'x')\n"
        "print(db.backend, db.scalar('SELECT count(*) FROM audit.audit_log WHERE action = ?', ['pgserver.mode']),"
        " db.scalar(\"SELECT extversion FROM pg_extension WHERE extname = 'vector'\"))\n"
        "db.close()\n")
    first = subprocess.run([sys.executable, "-c", script, "a"], capture_output=True, text=True, env=env, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    assert first.stdout.split()[:2] == ["postgres", "1"]
    # a second process finds the same cluster and database (data persisted in DIR)
    second = subprocess.run([sys.executable, "-c", script, "b"], capture_output=True, text=True, env=env,
                            timeout=300)
    assert second.returncode == 0, second.stderr[-2000:]
    assert second.stdout.split()[:2] == ["postgres", "2"]
    assert (folder / "PG_VERSION").read_text().strip() == "16"
    doctor = subprocess.run([sys.executable, "-m", "vignette_lab.cli", "doctor"], capture_output=True, text=True,
                            env=env, timeout=300, cwd=str(tmp_path))
    assert doctor.returncode == 0 and "postgres" in doctor.stdout.lower(), doctor.stdout + doctor.stderr
