"""Whole-process cost of the session CLI commands in-process, with a warm worker, and its start.

For each command (``--help``, ``doctor``, ``session start``, ``session send``, ``session end``)
and each mode — ``in-process`` (``VIGNETTE_WORKER=off``: what every call cost before the
worker, and what the first call on a database still costs) and ``warm worker`` — it runs the
command as a new process N times after one warm-up, alternating with ``python -c pass``, and
records wall seconds (``time.perf_counter``) and the client's CPU seconds (user + sys of the
finished child, ``resource.getrusage(RUSAGE_CHILDREN)``). With a worker the client's CPU is not
the whole work: the worker's own CPU per request is read from ``/proc/<pid>/stat`` before and
after the runs. Then it starts the worker K times and reports how long it takes to be warm
(its log line) and its CPU for the warm-up.

``--first-calls F`` (round 5) times the first two calls of a fresh shell F times each way: no
worker, ``session start`` (runs in-process and starts the worker when it ends), ``--think`` seconds
of typing, then ``session send``. The ways, taken in turn (A B C A B C …, so a drift of the
machine's load falls on all of them): the start forks and its child becomes the worker, the
send waits for it (the default since round 6); the start spawns a new ``worker serve`` process
(``VIGNETTE_WORKER_FORK=off``, the round-5 behaviour), the send waits for it; and the send
runs in-process beside the spawned worker (``VIGNETTE_WORKER_START_WAIT`` near zero). Printed
per way: the wall and client CPU seconds of ``start`` and of the first ``send``, and when the
worker was ready, counted from the end of ``session start``. ``--db URL`` runs everything
on that database (e.g. ``pgserver:DIR``; default a new DuckDB file).

Every ``session end`` gets its own session (and learner) with one turn. The scripted engine and a DuckDB file
with the KB indexed (``init``), as in the round-3 CLI figures. Public tools only; on a shared
machine quote medians and the spread, and the load average printed with them.

Usage: python bench/bench_cli_worker.py [--runs 7] [--starts 3] [--no-kb] [--warm-only] [--first-calls 3]
       [--think 0] [--only-first] [--db URL]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vignette_lab.cli import worker as worker_mod  # noqa: E402

UTTERANCES = ["요즘 어떻게 지내요?", "시험 생각하면 어떤 기분이 들어요?", "잠은 좀 자요?",
              "그때 마음이 어땠는지 조금 더 얘기해 줄래요?"]


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = subprocess.run(args, env=env, capture_output=True, text=True, cwd=str(ROOT))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"{args[3:]} failed ({res.returncode}): {res.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, res.stdout.strip()


def _proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Done(Exception):
    """Only the fresh-shell sequences were asked for."""


def _stats(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="counted runs per command and mode")
    parser.add_argument("--starts", type=int, default=3, help="worker starts timed")
    parser.add_argument("--no-kb", action="store_true", help="init without indexing the KB (faster set-up)")
    parser.add_argument("--warm-only", action="store_true", help="skip the in-process rows")
    parser.add_argument("--first-calls", type=int, default=3, help="fresh-shell start → send sequences per way")
    parser.add_argument("--think", type=float, default=0.0, help="seconds between start and the first send")
    parser.add_argument("--only-first", action="store_true", help="only the fresh-shell sequences")
    parser.add_argument("--db", default=None, help="database URL (default: a new DuckDB file)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="vl_bench_worker_"))
    db = args.db or tmp / "cli.duckdb"
    env = {**os.environ, "VIGNETTE_DB": str(db), "PYTHONPATH": str(ROOT), "VIGNETTE_ENGINE": "scripted"}
    env.pop("ANTHROPIC_API_KEY", None)
    off = {**env, "VIGNETTE_WORKER": "off"}
    cli = [sys.executable, "-m", "vignette_lab.cli"]
    _timed([*cli, "init", *(["--no-kb"] if args.no_kb else [])], off)
    sid = _timed([*cli, "session", "start", "P4"], off)[2]
    rows: list[str] = []
    load0 = os.getloadavg()
    firsts: list[tuple[str, float, float, float, float, float]] = []
    spawned = {**env, "VIGNETTE_WORKER_FORK": "off"}
    ways = {"start becomes the worker (fork); send waits": (env, env),
            "start spawns a new worker; send waits": (spawned, spawned),
            "start spawns a new worker; send in-process": (spawned, {**spawned, "VIGNETTE_WORKER_START_WAIT": "0.05"})}
    try:
        for _ in range(args.first_calls):
            for way, (start_env, send_env) in ways.items():
                _timed([*cli, "worker", "stop"], env)
                s_wall, s_cpu, s = _timed([*cli, "session", "start", "P4", "--learner", f"first-{len(firsts)}"],
                                          start_env)
                started = time.perf_counter()
                time.sleep(args.think)
                wall, cpu, _ = _timed([*cli, "session", "send", s, UTTERANCES[2]], send_env)
                while worker_mod.worker_status(str(db))["state"] != "running":
                    if time.perf_counter() - started > 300:
                        raise SystemExit("the worker did not become ready within 300 s")
                    time.sleep(0.05)
                firsts.append((way, s_wall, s_cpu, wall, cpu, time.perf_counter() - started))
        if args.only_first:
            raise _Done
        for mode in ("warm worker",) if args.warm_only else ("in-process", "warm worker"):
            menv = off if mode == "in-process" else env
            pid = None
            if mode == "warm worker":
                _timed([*cli, "worker", "start", "--wait", "300"], env)
                pid = int(worker_mod.worker_status(str(db))["pid"])
            to_end = []
            for i in range(args.runs + 1):
                # one learner each: two open sessions of one persona and learner cannot both end (known bug)
                s = _timed([*cli, "session", "start", "P1", "--learner", f"bench-{len(rows)}-{i}"], off)[2]
                _timed([*cli, "session", "send", s, UTTERANCES[0]], off)
                to_end.append(s)
            commands = {"--help": lambda i: ["--help"], "doctor": lambda i: ["doctor"],
                        "session start": lambda i: ["session", "start", "P4"],
                        "session send": lambda i: ["session", "send", sid, UTTERANCES[i % len(UTTERANCES)]],
                        "session end": lambda i: ["session", "end", to_end[i]]}
            for name, argv in commands.items():
                walls, cpus, base = [], [], []
                worker_cpu0 = _proc_cpu(pid) if pid else 0.0
                for i in range(args.runs + 1):
                    wall, cpu, _ = _timed([*cli, *argv(i)], menv)
                    base_wall = _timed([sys.executable, "-c", "pass"], menv)[0]
                    if i:  # the first run warms the file cache
                        walls.append(wall), cpus.append(cpu), base.append(base_wall)
                worker_cpu = (_proc_cpu(pid) - worker_cpu0) / (args.runs + 1) if pid else None
                served = "" if pid is None else f"{worker_cpu:.3f}"
                rows.append(f"| {name} | {mode} | {len(walls)} | {_stats(walls)} | {_stats(cpus)} | {served} | "
                            f"{statistics.median(base):.3f} |")
            if pid:
                _timed([*cli, "worker", "stop"], env)
        starts = []
        for _ in range(args.starts):
            t0 = time.perf_counter()
            _timed([*cli, "worker", "start", "--wait", "300"], env)
            ready = time.perf_counter() - t0
            pid = int(worker_mod.worker_status(str(db))["pid"])
            cpu = _proc_cpu(pid)
            log = worker_mod.worker_paths(str(db)).log.read_text(encoding="utf-8")
            warm = [float(x) for x in re.findall(r"warm in ([0-9.]+) s", log)][-1]
            _timed([*cli, "worker", "stop"], env)
            starts.append((ready, warm, cpu))
    except _Done:
        starts = []
    finally:
        subprocess.run([*cli, "worker", "stop"], env=env, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()
    print(f"load average {load0[0]:.1f} at start, {load1[0]:.1f} at end; {os.cpu_count()} cores; "
          f"n={args.runs} counted runs per row after 1 warm-up")
    if firsts:
        print(f"First calls of a fresh shell (no worker; {args.think:g} s between start and send):")
        print("| way | n | `session start` wall s | `start` CPU s | first `send` wall s | `send` client CPU s "
              "| worker ready after start, s (upper bound) |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for way in dict.fromkeys(f[0] for f in firsts):
            got = [f for f in firsts if f[0] == way]
            print(f"| {way} | {len(got)} | " + " | ".join(_stats([f[i] for f in got]) for i in range(1, 6)) + " |")
        print()
    if not rows:
        return
    print("| command | mode | n | wall s median (min–max) | client CPU s median (min–max) | worker CPU s per call "
          "| `python -c pass` wall s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print()
    print("| worker start | wall s to ready (`worker start --wait`) | warm-up s (log) | worker CPU s at ready |")
    print("|---|---:|---:|---:|")
    for i, (ready, warm, cpu) in enumerate(starts, 1):
        print(f"| {i} | {ready:.2f} | {warm:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
