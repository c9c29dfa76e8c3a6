"""Per-turn cost of ``SessionService.send`` after the split, against a raw DuckDB transaction (issue 12).

Method
------
* ``send``: scripted engine (seed 7), fast-loop evaluation on, one session per persona P1–P7,
  ``--turns`` turns each, on a fresh DuckDB file held open for the run (``db.pinned()``, what
  the app server and self-play do) and on PostgreSQL 16 via pgserver when importable. One
  untimed warm-up session first (Presidio, kiwipiepy, taxonomy load).
* Baseline measured in the same run, interleaved (one right after every ``send``): a raw DuckDB
  transaction with two ``INSERT`` s into a two-column table on its own DuckDB file held open
  (plain ``duckdb.connect``, DuckDB's default settings: the same program for every checkout).
  Each variant is reported as p50/p99 in ms and as a ratio to the baseline's p50 over the whole
  run, because absolute times move with machine load (2 cores shared by 8 engineers when these
  figures were taken). The CPU time of the process per call (``time.process_time``: what this
  process itself computed, much less moved by other processes than wall time) is reported too.
* Self-play: ``run_selfplay`` P4 × skilled, 20 turns, ``--selfplay-sessions`` sessions, with
  fast-loop + deep evaluation on; counselor turns per second, and the wall time of one self-play
  turn (start, end and deep evaluation included) as a ratio to the raw transaction's p50.
* Statements: every statement the DuckDB connection runs (BEGIN/COMMIT included) is counted,
  per ``send`` and per self-play turn — the one figure that does not move with machine load; on
  PostgreSQL the round trips per ``send`` (every statement psycopg sends, plus BEGIN and COMMIT).
* Stages: the process CPU of each ``send``'s stages (``turns.begin``, the client engine,
  ``turns.mask_reply``, ``turns.evaluate_first``, ``turns.write``), p50 per backend.
* Tail (DuckDB): the sends at or above the CPU p95, with their median CPU per stage against the
  other sends', how many were a session's first turn, and the garbage collector's CPU (``gc.callbacks``)
  in them and over the whole timed run, so a p99 can be told apart into SQL, evaluation, first-call
  work or GC.
* The load average (1 min) is printed at the start and the end: 2 cores shared by 8 engineers.
* ``--warm-gate``: mask :data:`GATE_WARM_TEXTS` distinct texts before the timed part, so the PII
  gate's once-per-process literal pre-filter build (after a process's 200th masked text,
  ``core/pii.py``) happens before it instead of inside one timed ``send`` or self-play turn. Run
  once with and once without to see that one-off's share of the p99 / max.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_turns.py [--turns 30] [--selfplay-sessions 3] [--no-pg] [--warm-gate]``;
for a paired before/after run, point ``PYTHONPATH`` at a checkout of the older code and run this file.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vignette_lab.core.guardrails import mask_pii  # noqa: E402
from vignette_lab.engines.scripted import ScriptedEngine  # noqa: E402
from vignette_lab.session.selfplay import run_selfplay  # noqa: E402
from vignette_lab.session.service import SessionService  # noqa: E402
from vignette_lab.store import connect, init_db  # noqa: E402
from vignette_lab.store import duck  # noqa: E402
from vignette_lab.store.catalog import load_catalog  # noqa: E402


class Statements:
    """Counts the statements DuckDB connections run (``DuckDatabase._run``), BEGIN/COMMIT included."""

    def __init__(self) -> None:
        self.n = 0
        real = duck.DuckDatabase._run

        def counted(db, con, sql, params):
            self.n += 1
            return real(db, con, sql, params)

        duck.DuckDatabase._run = counted  # type: ignore[method-assign]
        real_rows = getattr(duck.DuckDatabase, "insert_rows", None)  # None on code before round 5 (paired runs)
        if real_rows is None:
            return

        def appended(db, table, columns, rows, **kw):
            if len(rows) >= duck.APPENDER_MIN_ROWS:
                self.n += 1  # one appender flush = one statement (smaller batches run through _run)
            return real_rows(db, table, columns, rows, **kw)

        duck.DuckDatabase.insert_rows = appended  # type: ignore[method-assign]

class PgStatements:
    """Counts the round trips a PostgreSQL connection makes: every statement psycopg sends, plus
    BEGIN and COMMIT of each outermost ``transaction()`` (what the server sees per ``send``)."""

    def __init__(self) -> None:
        self.n = 0
        try:
            import psycopg
            from vignette_lab.store import pg
        except ImportError:
            return
        counter = self
        for cls in (psycopg.Cursor,):
            for name in ("execute", "executemany"):
                real = getattr(cls, name)

                def counted(cur, *a, _real=real, **kw):
                    counter.n += 1
                    return _real(cur, *a, **kw)

                setattr(cls, name, counted)
        real_tx = pg.PgDatabase.transaction

        @contextlib.contextmanager
        def transaction(db):
            outer = not db.in_transaction
            with real_tx(db):
                yield
            if outer:
                counter.n += 2  # BEGIN + COMMIT

        pg.PgDatabase.transaction = transaction  # type: ignore[method-assign]


class Stages:
    """Per-stage process CPU of each ``send`` (the session modules' own seams, timed around the call)."""

    SEAMS = (("session.turns", "begin", "begin: load, mask the learner text, guard, prompt"),
             ("session.service", "run_turn", "client engine + output guard"),
             ("session.turns", "mask_reply", "mask the reply"),
             ("session.turns", "evaluate_first", "fast-loop evaluation"),
             ("session.turns", "write", "the turn's transaction (rows built + statements)"))

    def __init__(self) -> None:
        import importlib

        self.times: dict[str, list[float]] = {label: [] for _, _, label in self.SEAMS}
        for mod_name, attr, label in self.SEAMS:
            mod = importlib.import_module(f"vignette_lab.{mod_name}")
            real = getattr(mod, attr, None)
            if real is None:
                continue

            def timed(*a, _real=real, _label=label, **kw):
                c = time.process_time()
                try:
                    return _real(*a, **kw)
                finally:
                    self.times[_label].append((time.process_time() - c) * 1000.0)

            setattr(mod, attr, timed)

    def reset(self) -> None:
        for v in self.times.values():
            v.clear()


class GcPauses:
    """Process CPU spent in the garbage collector (``gc.callbacks``), total and per collection."""

    def __init__(self) -> None:
        import gc

        self.total_ms = 0.0
        self.pauses: list[tuple[int, float]] = []  # (generation, ms)
        self._start = 0.0

        def callback(phase: str, info: dict) -> None:
            if phase == "start":
                self._start = time.process_time()
                return
            ms = (time.process_time() - self._start) * 1000.0
            self.total_ms += ms
            self.pauses.append((int(info.get("generation", -1)), ms))

        gc.callbacks.append(callback)

    def reset(self) -> None:
        self.total_ms = 0.0
        self.pauses.clear()


LINES = [
    "안녕하세요, 오늘 여기까지 오느라 애쓰셨어요. 어떤 이야기를 하고 싶어요?",
    "요즘 많이 힘드셨겠어요.",
    "그 일이 있었을 때 어떤 마음이 들었는지 조금 더 이야기해 줄 수 있어요?",
    "그렇게 느끼는 게 충분히 그럴 수 있어요.",
    "그냥 공부를 더 열심히 하면 돼요.",
    "그때 가장 힘들었던 건 뭐였어요?",
    "제 연락처는 010-1234-5678 이에요. 마음이 많이 답답하셨겠어요.",
    "주변 사람들은 그 마음을 알고 있어요?",
    "몇 학년이에요?",
    "잠은 잘 자요?",
]


#: texts masked by ``--warm-gate`` (the gate builds its pre-filters after a process's 200th text)
GATE_WARM_TEXTS = 240


def warm_gate() -> None:
    """Mask :data:`GATE_WARM_TEXTS` distinct texts (``--warm-gate``): the gate's one-off pre-filter build runs now."""
    for i in range(GATE_WARM_TEXTS):
        mask_pii(f"준비 문장 {i}번: 연락처 010-{1000 + i:04d}-0000, 담임 선생님께 말씀드렸어요.")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def fresh(path: Path):
    db = connect(str(path))
    init_db(db)
    load_catalog(db)
    return db


class RawTx:
    """One DuckDB transaction with two INSERTs on its own file held open: the in-run baseline.

    Plain ``duckdb.connect`` with DuckDB's default settings (not the store's connection, whose
    thread count round 7 changed), so the baseline is the same program for every checkout.
    """

    def __init__(self, path: Path):
        import duckdb

        self.con = duckdb.connect(str(path))
        self.con.execute("CREATE TABLE IF NOT EXISTS bench_raw (k TEXT, v TEXT)")
        self.i = 0
        self.times: list[float] = []
        self.cpu: list[float] = []

    def once(self) -> None:
        self.i += 1
        t, c = time.perf_counter(), time.process_time()
        self.con.execute("BEGIN TRANSACTION")
        self.con.execute("INSERT INTO bench_raw VALUES (?, ?)", [f"a{self.i}", "x"])
        self.con.execute("INSERT INTO bench_raw VALUES (?, ?)", [f"b{self.i}", "y"])
        self.con.execute("COMMIT")
        self.times.append((time.perf_counter() - t) * 1000.0)
        self.cpu.append((time.process_time() - c) * 1000.0)

    def close(self) -> None:
        self.con.close()


def send_times(db, *, turns: int, learner: str, raw: RawTx | None = None,
               cpu: list[float] | None = None, stmts: list[int] | None = None,
               counter: "Statements | PgStatements | None" = None, stages: "Stages | None" = None,
               gc_pauses: "GcPauses | None" = None, per_send: list[dict] | None = None) -> list[float]:
    """``send`` latencies; with ``raw``, one baseline transaction right after every send (interleaved,
    so both see the same machine load); ``cpu`` collects each send's process CPU time (ms)."""
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    out: list[float] = []
    hold = db.pinned() if hasattr(db, "pinned") else None
    if hold is not None:
        hold.__enter__()
    try:
        for code in ("P1", "P2", "P3", "P4", "P5", "P6", "P7"):
            info = svc.start(code, learner_id=learner)
            for i in range(turns):
                before = counter.n if counter is not None else 0
                marks = {k: len(v) for k, v in stages.times.items()} if stages is not None else {}
                gc_before = gc_pauses.total_ms if gc_pauses is not None else 0.0
                t, c = time.perf_counter(), time.process_time()
                svc.send(info.session_id, LINES[i % len(LINES)])
                out.append((time.perf_counter() - t) * 1000.0)
                if per_send is not None:
                    per_send.append({"cpu": (time.process_time() - c) * 1000.0, "first": i == 0,
                                     "gc": (gc_pauses.total_ms - gc_before) if gc_pauses is not None else 0.0,
                                     "stages": {k: sum(v[marks[k]:]) for k, v in stages.times.items()}
                                     if stages is not None else {}})
                if counter is not None and stmts is not None:
                    stmts.append(counter.n - before)
                if cpu is not None:
                    cpu.append((time.process_time() - c) * 1000.0)
                if raw is not None:
                    raw.once()
            svc.end(info.session_id, run_deep=False)
    finally:
        if hold is not None:
            hold.__exit__(None, None, None)
    return out


def tail_line(sends: list[dict], gc_run: tuple[float, list[tuple[int, float]]]) -> str:
    """Where the slowest sends' CPU went: the sends at or above the CPU p95, their median per stage
    and the rest (session code between the seams), how many were a session's first turn, and the
    garbage collector's share over the whole timed DuckDB run."""
    if not sends:
        return "tail: no sends"
    cut = pct([r["cpu"] for r in sends], 0.95)
    slow = [r for r in sends if r["cpu"] >= cut]
    body = [r for r in sends if r["cpu"] < cut]
    parts = []
    for k in sends[0]["stages"]:
        parts.append(f"{k.split(':')[0]} {pct([r['stages'][k] for r in slow], 0.5):.2f}"
                     f" (others {pct([r['stages'][k] for r in body], 0.5):.2f})")
    rest = [r["cpu"] - sum(r["stages"].values()) for r in slow]
    total, pauses = gc_run
    gen2 = [ms for g, ms in pauses if g == 2]
    return (f"tail (DuckDB): {len(slow)} sends at or above CPU p95 {cut:.2f} ms, median CPU per stage ms: "
            + "; ".join(parts) + f"; outside the seams {pct(rest, 0.5):.2f}; first turn of a session: "
            f"{sum(r['first'] for r in slow)} of {len(slow)} (of all sends {sum(r['first'] for r in sends)}); "
            f"GC in them {sum(r['gc'] for r in slow):.2f} ms; GC over the run {total:.2f} ms in {len(pauses)} "
            f"collections (gen 2: {len(gen2)}, max pause {max((ms for _, ms in pauses), default=0.0):.2f} ms)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=30, help="turns per persona session (7 personas)")
    ap.add_argument("--selfplay-sessions", type=int, default=3)
    ap.add_argument("--no-pg", action="store_true", help="skip the PostgreSQL variant")
    ap.add_argument("--warm-turns", type=int, default=2,
                    help="turns per persona in the untimed warm-up session (10 = every line once: "
                         "first-of-kind loads such as a fact question's reader happen before timing)")
    ap.add_argument("--warm-gate", action="store_true",
                    help="build the PII gate's pre-filters before timing (see the module docstring)")
    args = ap.parse_args(argv)
    load_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    counter = Statements()
    pg_counter = PgStatements()
    stages = Stages()
    gc_pauses = GcPauses()
    mask_pii("warm-up 010-0000-0000")
    if args.warm_gate:
        warm_gate()
    rows: list[tuple[str, list[float]]] = []
    pg_stmts: list[int] = []
    pg_cpu: list[float] = []
    pg_stage_p50: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        warm = fresh(tmp / "warm.duckdb")
        send_times(warm, turns=args.warm_turns, learner="warm")
        warm.close()
        raw = RawTx(tmp / "raw.duckdb")
        db = fresh(tmp / "send.duckdb")
        stages.reset()
        duck_cpu: list[float] = []
        send_stmts: list[int] = []
        duck_sends: list[dict] = []
        gc_pauses.reset()
        duck_ms = send_times(db, turns=args.turns, learner="bench", raw=raw, cpu=duck_cpu, stmts=send_stmts,
                             counter=counter, stages=stages, gc_pauses=gc_pauses, per_send=duck_sends)
        duck_gc = (gc_pauses.total_ms, list(gc_pauses.pauses))
        rows.append(("raw DuckDB transaction, 2 INSERTs (baseline, interleaved)", list(raw.times)))
        rows.append(("`send`, DuckDB file held open", duck_ms))
        stage_p50 = {label: (pct(v, 0.5) if v else float("nan")) for label, v in stages.times.items()}
        n_before_sp = counter.n
        t, c = time.perf_counter(), time.process_time()
        with db.pinned():  # what the CLI and the self-play page do
            res = run_selfplay(db, personas=("P4",), counselor="skilled", sessions=args.selfplay_sessions, turns=20,
                               seed=7, progress=False, evaluate=True)
        n = sum(len(s.turns) // 2 for s in res.sessions)
        selfplay_wall = time.perf_counter() - t
        selfplay_rate = n / selfplay_wall
        selfplay_stmts = (counter.n - n_before_sp) / max(1, n)
        selfplay_cpu_rate = n / max(1e-9, time.process_time() - c)
        db.close()
        if not args.no_pg:
            try:
                import pgserver
            except ImportError:
                pgserver = None
            if pgserver is not None:
                pgdir = tmp / "pg"
                pgdir.mkdir()
                os.chmod(pgdir, 0o777)
                server = pgserver.get_server(str(pgdir), cleanup_mode="stop")
                try:
                    pg = connect(server.get_uri())
                    init_db(pg)
                    load_catalog(pg)
                    n_before = len(raw.times)
                    pg_stmts.clear()
                    stages.reset()
                    pg_ms = send_times(pg, turns=args.turns, learner="bench", raw=raw, stmts=pg_stmts,
                                       counter=pg_counter, cpu=pg_cpu)
                    pg_stage_p50 = {label: (pct(v, 0.5) if v else float("nan")) for label, v in stages.times.items()}
                    rows.append(("raw DuckDB transaction during the PostgreSQL run", raw.times[n_before:]))
                    rows.append(("`send`, PostgreSQL 16 (pgserver, same host)", pg_ms))
                    pg.close()
                finally:
                    server.cleanup()
    raw.close()
    base = pct(raw.times, 0.5)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
          f"load average at start {load_start:.1f}, at end {load:.1f}; PII gate pre-filters "
          f"{'built before timing (--warm-gate)' if args.warm_gate else 'built inside the timed part (no --warm-gate)'}; "
          f"warm-up {args.warm_turns} turns per persona")
    print("| variant | n | p50 ms | p99 ms | max ms | p50 / raw p50 | p99 / raw p50 |\n|---|---:|---:|---:|---:|---:|---:|")
    for label, ms in rows:
        print(f"| {label} | {len(ms)} | {pct(ms, 0.5):.2f} | {pct(ms, 0.99):.2f} | {max(ms):.2f} | "
              f"{pct(ms, 0.5) / base:.1f} | {pct(ms, 0.99) / base:.1f} |")
    print(f"\nCPU time per call (process_time): raw transaction p50 {pct(raw.cpu, 0.5):.2f} ms; `send` (DuckDB) "
          f"p50 {pct(duck_cpu, 0.5):.2f} / p99 {pct(duck_cpu, 0.99):.2f} / max {max(duck_cpu):.2f} ms "
          f"({pct(duck_cpu, 0.5) / max(1e-9, pct(raw.cpu, 0.5)):.1f}× raw)")
    print(f"statements per `send` (DuckDB, BEGIN/COMMIT included): mean {sum(send_stmts) / len(send_stmts):.2f}, "
          f"p50 {pct([float(x) for x in send_stmts], 0.5):.0f}")
    print("per-stage CPU p50 of a `send` (DuckDB): " + "; ".join(f"{k} {v:.2f} ms" for k, v in stage_p50.items()))
    print(tail_line(duck_sends, duck_gc))
    if pg_stmts:
        print(f"PostgreSQL `send` CPU p50 {pct(pg_cpu, 0.5):.2f} / p99 {pct(pg_cpu, 0.99):.2f} ms (this process only; "
              "the server's work is in the wall time); per stage: "
              + "; ".join(f"{k} {v:.2f} ms" for k, v in pg_stage_p50.items()))
        print(f"round trips per `send` (PostgreSQL: statements + BEGIN/COMMIT): mean {sum(pg_stmts) / len(pg_stmts):.2f}, "
              f"p50 {pct([float(x) for x in pg_stmts], 0.5):.0f}")
    print(f"\nself-play P4 × skilled, 20 turns × {args.selfplay_sessions}, evaluation on: "
          f"{n} turns, {selfplay_rate:.1f} turns/s wall, {selfplay_cpu_rate:.1f} turns per CPU second; "
          f"{1000.0 * selfplay_wall / max(1, n):.2f} ms per turn = {1000.0 * selfplay_wall / max(1, n) / base:.1f}× "
          f"raw p50; {selfplay_stmts:.2f} statements per turn (start, end, deep evaluation included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
