"""Nobody waits long (issue 14 item 4): another process's save latency during long DuckDB jobs.

Method
------
One DuckDB file, two processes. The *writer* process saves a reviewer's labels
(``ReviewQueue.submit``, one transaction) every ``--gap`` seconds (0.4) and records each save's
wall time; a save refused after 30 s counts as failed. Meanwhile the *job* process runs, one after the other:

* ``idle``       — nothing (the same save on an idle file, the baseline of this run);
* ``ai_round``   — an AI annotation round (``auto_annotate``, scripted engine) over the data set;
* ``selfplay``   — a self-play batch (``run_selfplay``, scripted engine, evaluation on);
* ``import``     — a 10,000-line transcript import (``import_transcripts``: read, mask, write).

Reported per phase: number of saves n, p50 / p99 / max in ms, and a 95 % bootstrap interval of
the p99 (2,000 resamples). The job's own duration is printed too. Target: p99 ≤ 1,000 ms.

``--app``: one ``SessionService`` (as the Panel app shares it) whose client engine takes 1 s per
reply; trainee B's turn latency alone, while trainee A's turn runs, and while a self-play batch
runs as the self-play page starts it (worker thread, ``db.clone()``); 6 turns each.

The machine has 2 cores shared by 8 engineers: absolute times are noisy; compare phases
within one run.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_wait.py [--seconds 8] [--import-lines 10000]``;
``VIGNETTE_BENCH_CODE=/path/to/main`` measures another checkout's code (the "before" row).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
# VIGNETTE_BENCH_CODE=/path/to/another/checkout measures that code (e.g. main, for "before")
CODE = os.environ.get("VIGNETTE_BENCH_CODE") or str(Path(__file__).resolve().parent.parent)
sys.path.insert(0, CODE)

import numpy as np  # noqa: E402

PHASES = ("idle", "ai_round", "selfplay", "import")


def _writer(db_path: str, round_id: str, reviewer: str, stop: str, out: str, gap: str = "0.4") -> None:
    """Save labels in a loop until ``stop`` exists; write ``[(t_start, seconds), ...]`` to ``out``."""
    from vignette_lab.errors import StoreError
    from vignette_lab.pipeline.review import ReviewQueue
    from vignette_lab.store import connect

    db = connect(f"duckdb:///{db_path}")
    q = ReviewQueue(db, round_id, reviewer)
    items = list(q._order)
    got, k = [], 0
    while not os.path.exists(stop):
        t0 = time.time()
        try:
            q.submit(items[k % len(items)], ["open_question"], [], "pos", None, {"empathy": 3})
            got.append((t0, time.time() - t0, False))
        except StoreError:  # "another process holds the DuckDB file (waited 30 s)"
            got.append((t0, time.time() - t0, True))
        k += 1
        time.sleep(float(gap))
    Path(out).write_text(json.dumps(got))
    db.close()


def _setup(db_path: str, *, sessions: int) -> tuple[str, str]:
    from vignette_lab.pipeline.datasets import create_dataset_from_sessions
    from vignette_lab.pipeline.review import assign_reviewers
    from vignette_lab.pipeline.rounds import create_round
    from vignette_lab.session.selfplay import run_selfplay
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    db = connect(f"duckdb:///{db_path}")
    init_db(db)
    load_catalog(db)
    run_selfplay(db, personas=("P1", "P4"), sessions=sessions, turns=8, progress=False, evaluate=False)
    did = create_dataset_from_sessions(db, "wait-bench")
    hr = create_round(db, did, "human_review")
    assign_reviewers(db, hr, ["saver"], overlap=0.0)
    db.close()
    return did, hr


def _transcripts(path: Path, lines: int) -> None:
    texts = ["요즘 잠을 잘 못 자요.", "그때 어떤 마음이 들었어요?", "학교 가기 싫어요. 친구들이 무서워요.",
             "많이 힘드셨겠어요.", "엄마한테는 말 못 했어요.", "조금 더 이야기해 줄 수 있어요?"]
    with path.open("w", encoding="utf-8") as f:
        for n in range(lines):
            f.write(json.dumps({"session_id": f"s{n // 40}", "seq": n % 40 + 1,
                                "speaker": "counselor" if n % 2 == 0 else "client",
                                "text": texts[n % len(texts)]}, ensure_ascii=False) + "\n")


def _job(phase: str, db_path: str, dataset_id: str, tmp: Path, *, seconds: float, lines: int,
         selfplay_sessions: int) -> float:
    from vignette_lab.pipeline.annotate import auto_annotate
    from vignette_lab.pipeline.datasets import import_transcripts
    from vignette_lab.pipeline.rounds import create_round
    from vignette_lab.session.selfplay import run_selfplay
    from vignette_lab.store import connect

    db = connect(f"duckdb:///{db_path}")
    t0 = time.perf_counter()
    if phase == "idle":
        time.sleep(seconds)
    elif phase == "ai_round":
        rid = create_round(db, dataset_id, "ai_auto", engine="scripted")
        auto_annotate(db, rid, progress=False)
    elif phase == "selfplay":
        run_selfplay(db, personas=("P2",), sessions=selfplay_sessions, turns=10, progress=False, seed=11)
    elif phase == "import":
        src = tmp / "transcripts.jsonl"
        _transcripts(src, lines)
        import_transcripts(db, src, name="bench-import")
    took = time.perf_counter() - t0
    print(f"  job {phase}: {took:.1f} s, handed the file over {getattr(db, 'yields', 0)} times", flush=True)
    db.close()
    return took


def _stats(values: list[float]) -> dict[str, float]:
    a = np.asarray(values) * 1000
    rng = np.random.default_rng(0)
    boots = [np.percentile(rng.choice(a, a.size), 99) for _ in range(2000)]
    return {"n": int(a.size), "p50": float(np.percentile(a, 50)), "p99": float(np.percentile(a, 99)),
            "max": float(a.max()), "p99_lo": float(np.percentile(boots, 2.5)),
            "p99_hi": float(np.percentile(boots, 97.5))}


class _SlowClient:
    """The scripted engine with a 1 s client reply (a remote model's latency)."""

    name = "scripted"

    def __init__(self, delay: float):
        from vignette_lab.engines.scripted import ScriptedEngine
        self.inner, self.delay = ScriptedEngine(seed=3), delay

    def generate(self, request):
        if getattr(request.ai_role, "value", request.ai_role) == "client":
            time.sleep(self.delay)
        return self.inner.generate(request)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _app(db_path: str, *, turns: int = 6) -> list[tuple[str, dict[str, float]]]:
    import threading

    from vignette_lab.session.selfplay import run_selfplay
    from vignette_lab.session.service import SessionService
    from vignette_lab.store import connect

    db = connect(f"duckdb:///{db_path}")
    svc = SessionService(db, engine=_SlowClient(1.0), embedder=None)
    a = svc.start("P1", learner_id="a").session_id
    b = svc.start("P4", learner_id="b").session_id
    svc.send(b, "안녕하세요.")
    out = []

    def b_turns() -> list[float]:
        got = []
        for _ in range(turns):
            t0 = time.perf_counter()
            svc.send(b, "요즘 어떻게 지내요?")
            got.append(time.perf_counter() - t0)
        return got

    out.append(("B alone", b_turns()))
    stop = threading.Event()

    def a_loop() -> None:
        while not stop.is_set():
            svc.send(a, "그때 어떤 마음이 들었어요?")

    ta = threading.Thread(target=a_loop)
    ta.start()
    time.sleep(0.3)
    out.append(("B while A's turns run", b_turns()))
    stop.set()
    ta.join()

    def batch() -> None:
        twin = db.clone() if hasattr(db, "clone") else db
        run_selfplay(twin, personas=("P2",), sessions=1, turns=30, progress=False, seed=5)
        if twin is not db:
            twin.close()

    tb = threading.Thread(target=batch)
    tb.start()
    time.sleep(1.0)
    out.append(("B while a self-play batch runs", b_turns()))
    tb.join()
    db.close()
    return [(name, _stats(v)) for name, v in out]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=8.0, help="length of the idle phase")
    ap.add_argument("--import-lines", type=int, default=10_000)
    ap.add_argument("--sessions", type=int, default=3, help="self-play sessions per persona in the set-up")
    ap.add_argument("--selfplay-sessions", type=int, default=4, help="sessions of the timed self-play batch")
    ap.add_argument("--gap", type=float, default=0.4, help="seconds between two saves of the writer")
    ap.add_argument("--app", action="store_true", help="also measure trainee B's turn in one service")
    ap.add_argument("--writer", nargs=6, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.writer:
        _writer(*args.writer)
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-wait-"))
    db_path = str(tmp / "vignette.duckdb")
    did, hr = _setup(db_path, sessions=args.sessions)
    rows = []
    for phase in PHASES:
        stop, out = tmp / f"{phase}.stop", tmp / f"{phase}.json"
        proc = subprocess.Popen([sys.executable, __file__, "--writer", db_path, hr, "saver", str(stop), str(out), str(args.gap)],
                                env={**os.environ, "PYTHONPATH": CODE})
        time.sleep(3.0)  # the writer imports and makes its first saves before the job starts
        t_job = time.time()
        took = _job(phase, db_path, did, tmp, seconds=args.seconds, lines=args.import_lines,
                    selfplay_sessions=args.selfplay_sessions)
        t_end = time.time()
        stop.write_text("")
        proc.wait(timeout=120)
        saves = json.loads(out.read_text())
        during = [s for t0, s, _ in saves if t_job <= t0 <= t_end]
        failed = sum(1 for t0, _, bad in saves if bad and t_job <= t0 <= t_end)
        st = _stats(during)
        rows.append((phase, took, st, failed))
        print(f"{phase:9s} job {took:6.1f} s  saves n={st['n']:3d}  p50 {st['p50']:6.0f} ms  p99 {st['p99']:6.0f} ms"
              f" [{st['p99_lo']:.0f}, {st['p99_hi']:.0f}]  max {st['max']:6.0f} ms  failed {failed}", flush=True)
    if args.app:
        print("\n| trainee B's turn (1 s client engine) | n | p50 (ms) | p99 (ms) | max (ms) |\n|---|---:|---:|---:|---:|")
        for name, st in _app(db_path):
            print(f"| {name} | {st['n']} | {st['p50']:.0f} | {st['p99']:.0f} | {st['max']:.0f} |", flush=True)
    print("\n| phase | job (s) | saves n | p50 (ms) | p99 (ms) [95 % CI] | max (ms) | failed saves |"
          "\n|---|---:|---:|---:|---|---:|---:|")
    for phase, took, st, failed in rows:
        print(f"| {phase} | {took:.1f} | {st['n']} | {st['p50']:.0f} | {st['p99']:.0f} [{st['p99_lo']:.0f},"
              f" {st['p99_hi']:.0f}] | {st['max']:.0f} | {failed} |")


if __name__ == "__main__":
    main()
