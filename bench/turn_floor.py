"""The floor of a ``send``'s transaction: its own statements replayed on DuckDB without any Python work (issue 12).

Method
------
One scripted session (P4, seed 7) runs three sends on a fresh DuckDB file; every statement of the
third send's transaction (the session status read, the checkpoint ``UPDATE``, the turns, the
fast-loop evaluation and the audit rows, with ``BEGIN``/``COMMIT``) is recorded with its
parameters. Then, on a copy of that file held open, the same transaction is replayed ``--n`` times
(fresh ids and sequence numbers, same texts and JSON) interleaved with the in-run baseline of
``bench_turns.py`` (one transaction with two ``INSERT`` s into a two-column table, on its own file),
and each one's process CPU is timed. What the replay costs is what DuckDB needs for our rows with
no session code around it: no ``send`` on this schema can cost less, whatever the Python side does.
Printed: CPU p50 of the raw baseline, of the replayed transaction, of each statement, and the ratios;
also a what-if, timed the same way: the turn alone (status read, checkpoint, both turns), as if the
evaluation and audit rows went to a later transaction (not what the session does).

Run: ``PYTHONPATH=. .venv/bin/python bench/turn_floor.py [--n 400]``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vignette_lab.engines.scripted import ScriptedEngine  # noqa: E402
from vignette_lab.session.service import SessionService  # noqa: E402
from vignette_lab.store import duck  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_turns as bt  # noqa: E402


def capture(path: Path) -> tuple[str, list[tuple[str, list]]]:
    """(session id, the statements of the third send's transaction with their adapted parameters)."""
    got: list[tuple[str, list]] = []
    on = [False]
    real = duck.DuckDatabase._run

    def recording(db, con, sql, params):
        if on[0]:
            got.append((sql, [] if params is None else list(duck._adapt_params(params) or [])))
        return real(db, con, sql, params)

    duck.DuckDatabase._run = recording  # type: ignore[method-assign]
    try:
        db = bt.fresh(path)
        svc = SessionService(db, engine=ScriptedEngine(seed=7))
        with db.pinned():
            sid = svc.start("P4", learner_id="floor").session_id
            svc.send(sid, "안녕하세요, 오늘 어떤 이야기를 하고 싶어요?")
            svc.send(sid, "요즘 어떻게 지내요?")
            on[0] = True
            svc.send(sid, "잠은 잘 자요?")
            on[0] = False
        db.close()
    finally:
        duck.DuckDatabase._run = real  # type: ignore[method-assign]
    return sid, got


def _fresh_ids(sql: str, params: list, seq: int, ids: dict[str, str]) -> list:
    p = list(params)
    if sql.startswith("INSERT INTO app.turns"):
        width = len(p) // 2
        p[0], p[width] = ids["c"], ids["r"]
        p[3], p[width + 3] = seq, seq + 1
    elif sql.startswith("INSERT INTO app.turn_evaluation"):
        p[0], p[1] = str(uuid.uuid4()), ids["c"]
    elif sql.startswith("INSERT INTO audit.llm_call_log"):
        width = 15
        for k in range(0, len(p), width):
            p[k] = str(uuid.uuid4())
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=400, help="replayed transactions (each with one baseline transaction)")
    args = ap.parse_args(argv)
    import duckdb

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        sid, stmts = capture(tmp / "cap.duckdb")
        body = [(s, p) for s, p in stmts if s not in ("BEGIN TRANSACTION", "COMMIT")]
        shutil.copy(tmp / "cap.duckdb", tmp / "replay.duckdb")
        con = duckdb.connect(":memory:", config=duck._config())
        con.execute(f"ATTACH '{tmp / 'replay.duckdb'}' AS {duck.CATALOG}")
        con.execute(f"USE {duck.CATALOG}")
        parsed = {s: con.extract_statements(s)[0] for s, _ in body}
        raw = bt.RawTx(tmp / "raw.duckdb")
        per: dict[str, list[float]] = {s: [] for s, _ in body}
        per["BEGIN"], per["COMMIT"] = [], []
        tx: list[float] = []
        turn_only: list[float] = []
        seq = 10_000
        for _ in range(args.n):
            seq += 2
            ids = {"c": str(uuid.uuid4()), "r": str(uuid.uuid4())}
            work = [(s, _fresh_ids(s, p, seq, ids)) for s, p in body]
            for which in random.sample(("ours", "raw"), 2):
                if which == "raw":
                    raw.once()
                    continue
                c0 = time.process_time()
                con.execute("BEGIN TRANSACTION")
                per["BEGIN"].append(time.process_time() - c0)
                for s, p in work:
                    c = time.process_time()
                    con.execute(parsed[s], p).fetchall()
                    per[s].append(time.process_time() - c)
                c = time.process_time()
                con.execute("COMMIT")
                per["COMMIT"].append(time.process_time() - c)
                tx.append((time.process_time() - c0) * 1000.0)
                # what-if: the turn alone (status read, checkpoint, turns), its evaluation and audit
                # rows left to a later transaction
                seq += 2
                ids = {"c": str(uuid.uuid4()), "r": str(uuid.uuid4())}
                c0 = time.process_time()
                con.execute("BEGIN TRANSACTION")
                for s, p in body:
                    if s.startswith(("INSERT INTO app.turn_evaluation", "INSERT INTO audit.")):
                        continue
                    con.execute(parsed[s], _fresh_ids(s, p, seq, ids)).fetchall()
                con.execute("COMMIT")
                turn_only.append((time.process_time() - c0) * 1000.0)
        raw.close()
        con.close()
    base = bt.pct(raw.cpu, 0.5)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f}; DuckDB threads {duck._threads() or 'default'}; {args.n} transactions each")
    print(f"raw transaction (2 INSERTs into a 2-column table) CPU p50 {base:.2f} ms")
    print(f"a `send`'s own transaction replayed ({len(body)} statements + BEGIN/COMMIT, no Python work) "
          f"CPU p50 {bt.pct(tx, 0.5):.2f} ms = {bt.pct(tx, 0.5) / base:.1f}x raw")
    print(f"what-if, the turn alone (status read, checkpoint, turns; no evaluation or audit row) CPU p50 "
          f"{bt.pct(turn_only, 0.5):.2f} ms = {bt.pct(turn_only, 0.5) / base:.1f}x raw")
    print("| statement | CPU p50 ms |\n|---|---:|")
    for s, v in per.items():
        print(f"| {' '.join(s.split())[:70]} | {1000.0 * bt.pct(v, 0.5):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
