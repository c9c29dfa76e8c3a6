"""In-process A/B of the round-6 per-turn cuts (issue 12): the same process, alternating per session.

``off`` runs every DuckDB statement from its text (parsed at every call) and keeps no row/card from
``start`` for the first turn; ``on`` is the shipped code. Each round plays, in random order of the two
variants, a 20-send session (personas P1…P7 in turn) and a 20-turn self-play session (P4 × skilled,
evaluation on), timing the process's CPU. Prints p50/mean/p99 CPU per ``send``, self-play turns per CPU
second, and the on/off ratios of means with a 95 % bootstrap interval over rounds. Both variants see the
same machine load, which the separate before/after runs of ``bench_turns.py`` cannot give on a shared box.

Run: ``PYTHONPATH=. .venv/bin/python bench/ab_turn_cost.py [ROUNDS]`` (default 6; ≈ 15 s a round here).
"""
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_turns as bt
from vignette_lab.store import duck
from vignette_lab.session import live as live_mod
from vignette_lab.session.selfplay import run_selfplay
from vignette_lab.session.service import SessionService
from vignette_lab.engines.scripted import ScriptedEngine
real_parsed, real_keep = duck._parsed, live_mod.LiveCache.keep_row
def setv(on):
    duck._parsed = real_parsed if on else (lambda con, sql: sql)
    live_mod.LiveCache.keep_row = real_keep if on else (lambda self, *a: None)
bt.warm_gate()
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
res = {True: {"send": [], "sp": []}, False: {"send": [], "sp": []}}
with tempfile.TemporaryDirectory() as d:
    db = bt.fresh(Path(d) / "ab.duckdb")
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    with db.pinned():
        bt.send_times(db, turns=10, learner="warm")
        run_selfplay(db, personas=("P4",), counselor="skilled", sessions=1, turns=20, seed=1, progress=False, evaluate=True)
        for r in range(rounds):
            for on in random.sample([True, False], 2):
                setv(on)
                code = "P%d" % (1 + (r % 7))
                sid = svc.start(code, learner_id=f"ab{r}{on}").session_id
                for i in range(20):
                    c = time.process_time(); svc.send(sid, bt.LINES[i % 10]); res[on]["send"].append((time.process_time() - c) * 1000)
                svc.end(sid, run_deep=False)
                c = time.process_time()
                out = run_selfplay(db, personas=("P4",), counselor="skilled", sessions=1, turns=20, seed=100 + r, progress=False, evaluate=True)
                res[on]["sp"].append(20 / (time.process_time() - c))
setv(True)
for on in (False, True):
    s = res[on]["send"]; sp = res[on]["sp"]
    print("on " if on else "off", "send CPU p50 %.2f mean %.2f p99 %.2f (n %d); self-play turns per CPU s median %.1f mean %.1f (n %d)" % (
        bt.pct(s, .5), sum(s)/len(s), bt.pct(s, .99), len(s), bt.pct(sp, .5), sum(sp)/len(sp), len(sp)))
def boot(a, b, n=4000):
    # ratio of means b/a, resampling rounds (paired by index of session)
    k = len(a); vals = []
    for _ in range(n):
        idx = [random.randrange(k) for _ in range(k)]
        vals.append(sum(b[i] for i in idx) / sum(a[i] for i in idx))
    vals.sort(); return sum(b) / sum(a), vals[int(0.025 * n)], vals[int(0.975 * n)]
# per-session means of send CPU (20 sends each)
so = [sum(res[False]["send"][i*20:(i+1)*20]) / 20 for i in range(rounds)]
sn = [sum(res[True]["send"][i*20:(i+1)*20]) / 20 for i in range(rounds)]
print("send CPU on/off ratio of means %.3f [%.3f, %.3f] (per-session pairs, n %d)" % (boot(so, sn) + (rounds,)))
print("self-play turns per CPU s on/off %.3f [%.3f, %.3f]" % boot(res[False]["sp"], res[True]["sp"]))
