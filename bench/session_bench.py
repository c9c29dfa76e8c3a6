"""Session throughput: per-turn latency of SessionService.send and self-play turns/s.

Method
------
* Per-turn latency: one scripted-engine session per persona P1–P7 on a fresh DuckDB file
  (catalog loaded), ``--turns`` turns each (default 30 → 210 turns ≥ 200). Each timed
  ``send`` covers: PII masking (Presidio pattern recognisers), crisis check, state machine,
  L0–L6 assembly, scripted client reply, output guardrail, persistence (2 turns + checkpoint
  + audit rows in one transaction), fast-loop evaluation + its row, coach recharge.
  Reported as p50 / p90 / p99 / max in ms. Warm-up: one untimed session (Presidio load).
* Variants: DuckDB with each call opening the file (the library default, safe for several
  processes), DuckDB with the file held open for the run (``db.pinned()``, what self-play and
  a long-lived server use) and PostgreSQL via pgserver when importable.
* Self-play throughput: ``run_selfplay`` on P4 with the ``skilled`` counselor, evaluation on
  and off, turns per second (counselor + client + evaluator calls, all stored).

Run: ``PYTHONPATH=. .venv/bin/python bench/session_bench.py [--turns 30] [--selfplay-sessions 5] [--no-pg]``
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

from vignette_lab.core.guardrails import mask_pii  # noqa: E402
from vignette_lab.engines.scripted import ScriptedEngine  # noqa: E402
from vignette_lab.session.selfplay import run_selfplay  # noqa: E402
from vignette_lab.session.service import SessionService  # noqa: E402
from vignette_lab.store import connect, init_db  # noqa: E402
from vignette_lab.store.catalog import load_catalog  # noqa: E402

LINES = [
    "안녕하세요, 오늘 여기까지 오느라 애쓰셨어요. 어떤 이야기를 하고 싶어요?",
    "요즘 많이 힘드셨겠어요.",
    "그 일이 있었을 때 어떤 마음이 들었는지 조금 더 이야기해 줄 수 있어요?",
    "그렇게 느끼는 게 충분히 그럴 수 있어요.",
    "그냥 공부를 더 열심히 하면 돼요.",
    "그때 가장 힘들었던 건 뭐였어요?",
    "제 연락처는 010-1234-5678 이에요. 마음이 많이 답답하셨겠어요.",
    "주변 사람들은 그 마음을 알고 있어요?",
]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def per_turn(db, *, turns: int, pinned: bool) -> list[float]:
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    hold = db.pinned() if pinned and hasattr(db, "pinned") else nullcontext()
    out: list[float] = []
    with hold:
        for code in ("P1", "P2", "P3", "P4", "P5", "P6", "P7"):
            info = svc.start(code, learner_id=f"bench-{pinned}")
            for i in range(turns):
                t = time.perf_counter()
                svc.send(info.session_id, LINES[i % len(LINES)])
                out.append((time.perf_counter() - t) * 1000.0)
            svc.end(info.session_id)
    return out


def _fresh_duck(tmp: Path, name: str):
    db = connect(str(tmp / name))
    init_db(db)
    load_catalog(db)
    return db


def _row(label: str, ms: list[float]) -> str:
    return (f"| {label} | {len(ms)} | {_pct(ms, 0.5):.1f} | {_pct(ms, 0.9):.1f} | {_pct(ms, 0.99):.1f} | "
            f"{max(ms):.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=30, help="turns per persona session (7 personas)")
    ap.add_argument("--selfplay-sessions", type=int, default=5, help="self-play sessions per variant")
    ap.add_argument("--no-pg", action="store_true", help="skip the PostgreSQL variant")
    args = ap.parse_args()
    mask_pii("warm-up 010-0000-0000")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        warm = _fresh_duck(tmp, "warm.duckdb")
        per_turn(warm, turns=2, pinned=True)
        warm.close()
        db = _fresh_duck(tmp, "open_per_call.duckdb")
        rows.append(_row("DuckDB, file opened per call (default)", per_turn(db, turns=args.turns, pinned=False)))
        db.close()
        db = _fresh_duck(tmp, "pinned.duckdb")
        rows.append(_row("DuckDB, file held open (`db.pinned()`)", per_turn(db, turns=args.turns, pinned=True)))
        sp = []
        for evaluate in (True, False):
            t = time.perf_counter()
            res = run_selfplay(db, personas=("P4",), counselor="skilled", sessions=args.selfplay_sessions,
                               turns=20, seed=7, progress=False, evaluate=evaluate)
            n = sum(len(s.turns) // 2 for s in res.sessions)
            sp.append((evaluate, n, n / (time.perf_counter() - t)))
        db.close()
        if not args.no_pg:
            try:
                import pgserver
                pgdir = tmp / "pg"
                pgdir.mkdir()
                os.chmod(pgdir, 0o777)
                server = pgserver.get_server(str(pgdir), cleanup_mode="stop")
                try:
                    pg = connect(server.get_uri())
                    init_db(pg)
                    load_catalog(pg)
                    rows.append(_row("PostgreSQL 16 (pgserver, same host)", per_turn(pg, turns=args.turns,
                                                                                     pinned=False)))
                    pg.close()
                finally:
                    server.cleanup()
            except ImportError:
                pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
          f"load average at end {load:.1f}")
    print("| variant | turns | p50 ms | p90 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print("\n| self-play (P4, skilled, 20 turns) | turns | turns / s |\n|---|---:|---:|")
    for evaluate, n, rate in sp:
        print(f"| fast-loop + deep evaluation {'on' if evaluate else 'off'} | {n} | {rate:.1f} |")


if __name__ == "__main__":
    main()
