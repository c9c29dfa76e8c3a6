"""In-process A/B of the round-7 per-turn cuts (issue 12): the same process, alternating per session.

``off`` = DuckDB's default thread count (one per core) on its own file and the self-play counselor's
eager fit rules (claim words read for every line checked, as before round 7); ``on`` = the shipped
code (one DuckDB thread, claim words only where a rule reads them). Each round plays, in random order
of the two variants, a 20-send session (personas P1…P7 in turn) and a 20-turn self-play session (P4 ×
skilled, evaluation on; the same seed for both, every kiwipiepy memo emptied before each) on that
variant's file, timing the process's CPU; the raw two-insert DuckDB
transaction of ``bench_turns.py`` runs after every send as the in-run baseline. Prints p50/mean/p99 CPU
per ``send``, self-play turns per CPU second, and the on/off ratios of means with a 95 % bootstrap
interval over rounds. Both variants see the same machine load.

Run: ``PYTHONPATH=. .venv/bin/python bench/ab_turn_cost_r7.py [ROUNDS]`` (default 8).
"""
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_turns as bt  # noqa: E402
from vignette_lab.engines import scripted_counselor as sc  # noqa: E402
from vignette_lab.engines.scripted import ScriptedEngine  # noqa: E402
from vignette_lab.session.selfplay import run_selfplay  # noqa: E402
from vignette_lab.session.service import SessionService  # noqa: E402

LAZY_FITS = sc._Reading.fits


def eager_fits(self, line: str, technique: str) -> bool:
    """The fit rules before round 7: the claim words are read for every line checked."""
    sc._claim_words(line)
    return LAZY_FITS(self, line, technique)


def clear_memos() -> None:
    """Forget every kiwipiepy analysis kept in memory (the shared memo and the counselor's own)."""
    from vignette_lab.core.morph import kiwi

    for memo in (sc._morphs, sc._lemmas, sc.argument_nouns, getattr(kiwi(), "_tokens", None)):
        if memo is not None:
            memo.cache_clear()


def boot(a: list[float], b: list[float], n: int = 4000) -> tuple[float, float, float]:
    """Ratio of means b/a with a 95 % bootstrap interval, resampling paired rounds."""
    k = len(a)
    vals = []
    for _ in range(n):
        idx = [random.randrange(k) for _ in range(k)]
        vals.append(sum(b[i] for i in idx) / sum(a[i] for i in idx))
    vals.sort()
    return sum(b) / sum(a), vals[int(0.025 * n)], vals[int(0.975 * n) - 1]


def main() -> int:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    bt.warm_gate()
    res = {v: {"send": [], "sp": []} for v in (True, False)}
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        dbs, holds, svcs, threads = {}, [], {}, {}
        for on in (True, False):
            os.environ["VIGNETTE_DUCKDB_THREADS"] = "1" if on else str(os.cpu_count() or 1)
            dbs[on] = bt.fresh(tmp / f"ab_{int(on)}.duckdb")
            holds.append(dbs[on].pinned())
            holds[-1].__enter__()  # the file's DuckDB instance (and its thread count) stays for the run
            threads[on] = int(dbs[on].scalar("SELECT current_setting('threads')"))  # opened now, with this setting
            svcs[on] = SessionService(dbs[on], engine=ScriptedEngine(seed=7))
        os.environ.pop("VIGNETTE_DUCKDB_THREADS", None)
        raw = bt.RawTx(tmp / "raw.duckdb")
        for on in (True, False):
            sc._Reading.fits = LAZY_FITS if on else eager_fits
            bt.send_times(dbs[on], turns=10, learner=f"warm{on}")
            run_selfplay(dbs[on], personas=("P4",), counselor="skilled", sessions=1, turns=20, seed=1, progress=False,
                         evaluate=True)
        for r in range(rounds):
            for on in random.sample([True, False], 2):
                sc._Reading.fits = LAZY_FITS if on else eager_fits
                svc = svcs[on]
                sid = svc.start("P%d" % (1 + (r % 7)), learner_id=f"ab{r}{on}").session_id
                for i in range(20):
                    c = time.process_time()
                    svc.send(sid, bt.LINES[i % len(bt.LINES)])
                    res[on]["send"].append((time.process_time() - c) * 1000.0)
                    raw.once()
                svc.end(sid, run_deep=False)
                clear_memos()  # both variants play the same seed: neither may reuse the other's analyses
                c = time.process_time()
                run_selfplay(dbs[on], personas=("P4",), counselor="skilled", sessions=1, turns=20, seed=100 + r,
                             progress=False, evaluate=True)
                res[on]["sp"].append(20 / (time.process_time() - c))
        sc._Reading.fits = LAZY_FITS
        raw.close()
        for h in holds:
            h.__exit__(None, None, None)
        for db in dbs.values():
            db.close()
    base = bt.pct(raw.cpu, 0.5)
    print(f"{rounds} rounds, load average {load0:.1f} -> {os.getloadavg()[0]:.1f}; raw transaction CPU p50 {base:.2f} ms; "
          f"DuckDB threads on {threads[True]}, off {threads[False]}")
    for on in (False, True):
        s, sp = res[on]["send"], res[on]["sp"]
        print(("on " if on else "off") + " send CPU p50 %.2f (%.1fx raw) mean %.2f p99 %.2f (n %d); self-play turns per "
              "CPU s median %.1f mean %.1f (n %d)" % (bt.pct(s, .5), bt.pct(s, .5) / base, sum(s) / len(s),
                                                      bt.pct(s, .99), len(s), bt.pct(sp, .5), sum(sp) / len(sp), len(sp)))
    so = [sum(res[False]["send"][i * 20:(i + 1) * 20]) / 20 for i in range(rounds)]
    sn = [sum(res[True]["send"][i * 20:(i + 1) * 20]) / 20 for i in range(rounds)]
    print("send CPU on/off ratio of means %.3f [%.3f, %.3f] (per-session pairs, n %d)" % (boot(so, sn) + (rounds,)))
    print("self-play turns per CPU s on/off %.3f [%.3f, %.3f]" % boot(res[False]["sp"], res[True]["sp"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
