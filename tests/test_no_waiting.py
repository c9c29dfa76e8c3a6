"""Nobody waits long (issue 14 item 4): long DuckDB jobs hand the file over, no lock across trainees.

Real processes on a real DuckDB file: the job runs in a subprocess, the save in this one. The
machine is shared and loaded, so the bounds are generous; each is well below what the old
behaviour gave (the whole job's length).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.session.service import SessionService
from vignette_lab.store import connect

ROOT = Path(__file__).resolve().parents[1]

JOB = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from vignette_lab.store import connect
    path, ready, mode, hold = sys.argv[1], Path(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    db = connect(f"duckdb:///{path}", linger=hold if mode == "linger" else 0.0)
    if mode == "pinned":
        with db.pinned():
            db.execute("INSERT INTO jobs VALUES ('job-1')")
            ready.write_text("")
            t0 = time.monotonic()
            while time.monotonic() - t0 < hold:   # computing, no statement: the watcher hands over
                sum(range(10000))
            db.execute("INSERT INTO jobs VALUES ('job-2')")   # reopens the file, waiting its turn
    else:
        db.execute("INSERT INTO jobs VALUES ('job-1')")       # the file lingers open afterwards
        ready.write_text("")
        time.sleep(hold)
    print(db.yields)
""")


def _run_job(tmp_path: Path, mode: str, hold: float) -> tuple[subprocess.Popen, str]:
    path = str(tmp_path / "shared.duckdb")
    db = connect(f"duckdb:///{path}", linger=0.0)
    db.execute("CREATE TABLE jobs (name TEXT)")
    db.close()
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-c", JOB, path, str(ready), mode, str(hold)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    while not ready.exists():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, "the job process did not start"
        time.sleep(0.02)
    return proc, path


@pytest.mark.parametrize("mode", ["pinned", "linger"])
def test_another_process_saves_while_a_job_holds_the_file(tmp_path, mode):
    hold = 6.0
    proc, path = _run_job(tmp_path, mode, hold)
    db = connect(f"duckdb:///{path}", linger=0.0, lock_timeout=30)
    t0 = time.monotonic()
    db.execute("INSERT INTO jobs VALUES ('save')")
    waited = time.monotonic() - t0
    db.close()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert waited < hold / 2, f"the save waited {waited:.2f} s behind a {hold} s job"
    assert int(out.strip().splitlines()[-1]) >= 1  # the job handed the file over
    check = connect(f"duckdb:///{path}", linger=0.0)
    names = sorted(r["name"] for r in check.fetchall("SELECT name FROM jobs"))
    check.close()
    assert names == (["job-1", "job-2", "save"] if mode == "pinned" else ["job-1", "save"])
    assert not list(tmp_path.glob("shared.duckdb.wait-*"))  # no wait file left behind


class _SlowClient:
    """The scripted engine with a slow client reply (a remote model's latency)."""

    name = "scripted"

    def __init__(self, delay: float):
        self.inner, self.delay = ScriptedEngine(seed=3), delay

    def generate(self, request):
        if str(request.ai_role) in ("client", "AIRole.CLIENT") or getattr(request.ai_role, "value", "") == "client":
            time.sleep(self.delay)
        return self.inner.generate(request)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_trainee_b_does_not_wait_for_trainee_a(duck_db):
    delay = 1.5
    svc = SessionService(duck_db, engine=_SlowClient(delay), embedder=None)
    a = svc.start("P1", learner_id="a").session_id
    b = svc.start("P4", learner_id="b").session_id
    svc.send(b, "안녕하세요.")  # warm-up of B's session outside the timing
    took: dict[str, float] = {}

    def turn(who: str, sid: str) -> None:
        t0 = time.monotonic()
        svc.send(sid, "요즘 어떻게 지내요?")
        took[who] = time.monotonic() - t0

    ta = threading.Thread(target=turn, args=("a", a))
    ta.start()
    time.sleep(0.2)  # A's engine call is running now
    turn("b", b)
    ta.join(timeout=60)
    assert set(took) == {"a", "b"}
    # one lock across trainees would make B wait for A's reply first: ≥ 2 × delay - 0.2 s
    assert took["b"] < 2 * delay - 0.4, took


def _items(n: int) -> list[dict]:
    return [{"item_id": f"it{i}", "session_id": "s1", "seq": i + 1, "speaker": "counselor",
             "context": [], "counselor_text": "많이 힘드셨겠어요."} for i in range(n)]


def test_a_large_data_set_is_written_in_batches_all_or_nothing(duck_db, monkeypatch):
    from datetime import datetime, timezone

    from vignette_lab.errors import StoreError
    from vignette_lab.store import ds_repo

    monkeypatch.setattr(ds_repo, "ITEM_BATCH", 4)
    kw = dict(name="big", source="import", filters={}, context_turns=4, created_by="local",
              created_at=datetime.now(timezone.utc), scheme=None)
    ds_repo.insert_dataset(duck_db, dataset_id="d-ok", items=_items(10), **kw)
    assert len(ds_repo.dataset_items(duck_db, "d-ok")) == 10 and ds_repo.dataset_exists(duck_db, "d-ok")
    real, calls = ds_repo._insert_many, []

    def fail_third(db, table, columns, rows):
        calls.append(table)
        if len(calls) == 3:
            raise StoreError("duckdb: disk full (simulated)")
        real(db, table, columns, rows)

    monkeypatch.setattr(ds_repo, "_insert_many", fail_third)
    bad = [dict(it, item_id="x" + it["item_id"]) for it in _items(10)]
    with pytest.raises(StoreError, match="simulated"):
        ds_repo.insert_dataset(duck_db, dataset_id="d-bad", items=bad, **kw)
    assert not ds_repo.dataset_exists(duck_db, "d-bad")
    assert duck_db.scalar("SELECT count(*) FROM ds.dataset_item WHERE dataset_id = 'd-bad'") == 0


def test_a_wait_file_of_a_dead_process_is_ignored_and_removed(tmp_path):
    from vignette_lab.store import duck

    path = str(tmp_path / "x.duckdb")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = Path(f"{path}.wait-{dead}-1")
    stale.write_text("")
    assert duck._others_waiting(path) is False and not stale.exists()
    live = Path(f"{path}.wait-{os.getppid()}-1")  # a process that runs (the test's parent)
    live.write_text("")
    assert duck._others_waiting(path) is True
    live.unlink()
