"""Storage overheads: DuckDB open-per-statement vs pinned vs linger, Postgres, contention.

Run:  .venv/bin/python bench/store_bench.py [--n 200]
Prints a markdown table (append it to bench/RESULTS.md under "## Storage").
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vignette_lab.store import connect, init_db  # noqa: E402

INSERT = "INSERT INTO audit.audit_log (event_id, actor, action) VALUES (?, 'bench', 'insert')"
SELECT = "SELECT count(*) FROM app.sessions WHERE learner_id = ?"


def per_op(db, n: int, sql: str, make_params) -> float:
    t = time.perf_counter()
    for i in range(n):
        if sql.startswith("SELECT"):
            db.scalar(sql, make_params(i))
        else:
            db.execute(sql, make_params(i))
    return (time.perf_counter() - t) / n * 1000


def duck_cases(path: str, n: int) -> list[tuple[str, float, float]]:
    rows = []
    for label, kwargs, pin in (("DuckDB open per statement (default)", {}, False),
                               ("DuckDB linger=0.2 s", {"linger": 0.2}, False),
                               ("DuckDB pinned()", {}, True)):
        db = connect(path, **kwargs)
        k = n if pin or kwargs else max(20, n // 5)   # the slow mode gets fewer ops
        if pin:
            with db.pinned():
                ins = per_op(db, k, INSERT, lambda i: [str(uuid.uuid4())])
                sel = per_op(db, k, SELECT, lambda i: ["local"])
        else:
            ins = per_op(db, k, INSERT, lambda i: [str(uuid.uuid4())])
            sel = per_op(db, k, SELECT, lambda i: ["local"])
        db.close()
        rows.append((label, ins, sel))
    return rows


def pg_case(n: int) -> tuple[str, float, float] | None:
    try:
        import pgserver
    except ImportError:
        return None
    data = tempfile.mkdtemp(prefix="bench_pg_")
    os.chmod(data, 0o777)
    server = pgserver.get_server(data, cleanup_mode="stop")
    try:
        db = connect(server.get_uri())
        init_db(db)
        ins = per_op(db, n, INSERT, lambda i: [str(uuid.uuid4())])
        sel = per_op(db, n, SELECT, lambda i: ["local"])
        t = time.perf_counter()
        for _ in range(n):
            with db.ai_view("client"):
                db.scalar("SELECT count(*) FROM app.turns")
        view = (time.perf_counter() - t) / n * 1000
        db.close()
        return (f"Postgres (pgserver, fsync on); ai_view block {view:.2f} ms", ins, sel)
    finally:
        server.cleanup()
        shutil.rmtree(data, ignore_errors=True)


WRITER = textwrap.dedent("""
    import sys, uuid, time
    sys.path.insert(0, {root!r})
    from vignette_lab.store import connect
    db = connect({path!r}, lock_timeout=120)
    t = time.perf_counter()
    for i in range({n}):
        db.execute("INSERT INTO audit.audit_log (event_id, actor, action) VALUES (?, 'p', 'c')", [str(uuid.uuid4())])
    print((time.perf_counter() - t) / {n} * 1000, db.lock_waits)
""")


def contention(path: str, n: int) -> tuple[float, int]:
    script = Path(tempfile.mkdtemp()) / "w.py"
    script.write_text(WRITER.format(root=str(ROOT), path=path, n=n))
    procs = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate()[0].split() for p in procs]
    return statistics.mean(float(o[0]) for o in outs), sum(int(o[1]) for o in outs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200, help="operations per case")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench_duck_")
    path = os.path.join(tmp, "vignette.duckdb")
    db = connect(path)
    t = time.perf_counter()
    init_db(db)
    init_s = time.perf_counter() - t
    db.close()
    rows = duck_cases(path, args.n)
    pg = pg_case(args.n)
    if pg:
        rows.append(pg)
    c_ms, waits = contention(path, 20)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load avg {load:.1f}; "
          f"DuckDB init_db {init_s:.2f} s")
    print("| case | insert ms/op | select ms/op |")
    print("|---|---|---|")
    for label, ins, sel in rows:
        print(f"| {label} | {ins:.2f} | {sel:.2f} |")
    print(f"| DuckDB, 2 processes writing the same file | {c_ms:.1f} | ({waits} lock waits) |")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
