"""Real CLI processes exit 0 after success, and the DuckDB file alone holds their data.

Before the fix, ``selfplay --json``, ``session send`` and ``session end`` printed their output and
then aborted with "terminate called after throwing an instance of … FATAL: exception not
rethrown" (exit 134) in 7 of 8 runs: a daemon linger timer was inside DuckDB's C++ ``close()``
while the interpreter finalised. Each command runs as its own process here (CliRunner would not
exercise interpreter shutdown). Five clean runs per command, against a 7/8 failure rate before,
leave a chance below 1e-4 that the abort is still there, at a fraction of the cost of 20 runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vignette_lab.store import connect

RUNS = 5
ENV = {**os.environ, "VIGNETTE_EMBEDDER": "hashing", "VIGNETTE_ENGINE": "scripted",
       "ANTHROPIC_API_KEY": "", "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "", "HF_HUB_OFFLINE": "1"}


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vignette_lab.cli", "--db", str(db), *args],
                          capture_output=True, text=True, env=ENV, timeout=300)


def _assert_clean(proc: subprocess.CompletedProcess, what: str) -> None:
    assert proc.returncode == 0, f"{what}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert "terminate called" not in proc.stderr and "FATAL" not in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def cli_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("exit") / "vignette.duckdb"
    _assert_clean(_cli(db, "init", "--no-kb"), "init")
    return db


def test_selfplay_json_exits_zero_every_time(cli_db):
    for seed in range(RUNS):
        proc = _cli(cli_db, "selfplay", "--persona", "P4", "--counselor", "skilled",
                    "--sessions", "1", "--turns", "3", "--seed", str(seed), "--json")
        _assert_clean(proc, f"selfplay seed {seed}")
        assert proc.stdout.strip().startswith(("{", "["))


def test_session_start_send_end_exit_zero_every_time(cli_db):
    for run in range(RUNS):
        start = _cli(cli_db, "session", "start", "P4")
        _assert_clean(start, f"session start #{run}")
        session_id = start.stdout.strip().splitlines()[-1].split()[-1]
        _assert_clean(_cli(cli_db, "session", "send", session_id, "요즘 어떤 일이 제일 힘들어요?"),
                      f"session send #{run}")
        _assert_clean(_cli(cli_db, "session", "end", session_id), f"session end #{run}")


def test_duckdb_file_alone_is_a_complete_copy_after_the_cli_exits(cli_db, tmp_path):
    _assert_clean(_cli(cli_db, "selfplay", "--persona", "P1", "--counselor", "novice",
                       "--sessions", "2", "--turns", "3", "--seed", "11", "--json"), "selfplay")
    copy = tmp_path / "copy.duckdb"
    shutil.copyfile(cli_db, copy)  # the file only, never its .wal
    original, copied = connect(str(cli_db)), connect(str(copy))
    try:
        count = "SELECT count(*) FROM app.turns"
        assert copied.scalar(count) == original.scalar(count) > 0
    finally:
        original.close()
        copied.close()
