"""The first ``mask_pii`` in a fresh process (issue 13, "Fast"): where its time goes.

Each case runs in a new interpreter (``python -c``), several times, alternating with the others,
and reports medians (min-max) of:

* ``call``: the first ``mask_pii(text)`` itself, wall and CPU (``time.perf_counter`` /
  ``time.process_time`` around the call inside the child, after ``import
  vignette_lab.core.guardrails``);
* ``process``: the whole child from the parent (wall; CPU = the child's user + system time from
  ``os.wait4``), interpreter start-up and imports included;
* whether kiwipiepy was loaded and whether Presidio's heavy dependencies (transformers, torch,
  spaCy) were imported (they must not be, with the BGE-M3 extra installed or not).

Cases: a common sentence (the shipped analyses answer it, no analyser), a sentence with a name
(the analyser loads), kiwipiepy alone
(import + ``Kiwi(**KIWI_OPTIONS)`` + first ``tokenize``) and ``python -c "import re"`` (the
interpreter floor).

Usage::

    python bench/bench_first_mask.py            # 7 runs per case
    python bench/bench_first_mask.py --runs 15

Absolute times on a shared machine are noisy: compare cases from the same run (they alternate).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

NAME_TEXT = "저는 김민지고요 010-1234-5678"
COMMON_TEXT = "오늘은 좀 힘들었어요. 잠을 잘 못 자요."

_CHILD = """
import json, sys, time
{prelude}
from vignette_lab.core.guardrails import mask_pii
w0, c0 = time.perf_counter(), time.process_time()
out = mask_pii({text!r}).text
w1, c1 = time.perf_counter(), time.process_time()
from vignette_lab.core import morph
heavy = sorted(m for m in ("torch", "transformers", "spacy", "FlagEmbedding", "sentence_transformers") if m in sys.modules)
print(json.dumps({{"call_wall": w1 - w0, "call_cpu": c1 - c0, "kiwi": morph.loaded(), "heavy": heavy, "out": out}}))
"""
_KIWI_ONLY = """
import json, time
w0, c0 = time.perf_counter(), time.process_time()
import warnings
from kiwipiepy import Kiwi
from vignette_lab.core.morph import KIWI_OPTIONS
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    k = Kiwi(**KIWI_OPTIONS)
w1, c1 = time.perf_counter(), time.process_time()
k.tokenize("저는 김민지고요")
w2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"call_wall": w2 - w0, "call_cpu": c2 - c0, "load_cpu": c1 - c0, "tokenize_cpu": c2 - c1}))
"""

CASES = {
    "name": _CHILD.format(prelude="", text=NAME_TEXT),
    "common": _CHILD.format(prelude="", text=COMMON_TEXT),
    "kiwipiepy alone (import + Kiwi() + first tokenize)": _KIWI_ONLY,
    "python -c 'import re'": "import re",
}


def run_child(code: str) -> dict:
    """One fresh interpreter: the child's own figures plus its whole-process wall and CPU."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=ROOT)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"child failed (status {status}): {code[:80]!r}")
    fig = json.loads(out.decode().strip().splitlines()[-1]) if out.strip() else {}
    fig.update(process_wall=wall, process_cpu=usage.ru_utime + usage.ru_stime)
    return fig


def _fmt(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="fresh processes per case (default 7)")
    args = ap.parse_args(argv)
    for code in CASES.values():  # warm-up: page cache, .pyc files
        run_child(code)
    results: dict[str, list[dict]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        for name, code in CASES.items():
            results[name].append(run_child(code))
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = float("nan")
    print(f"first mask_pii in a fresh process: {args.runs} runs per case, alternating; load average {load:.1f}; "
          f"median (min-max), seconds")
    print("| case | call wall | call CPU | process wall | process CPU | kiwipiepy loaded | heavy imports |")
    print("|---|---|---|---|---|---|---|")
    for name, figs in results.items():
        call_w = _fmt([f["call_wall"] for f in figs]) if "call_wall" in figs[0] else "–"
        call_c = _fmt([f["call_cpu"] for f in figs]) if "call_cpu" in figs[0] else "–"
        kiwi = {str(f.get("kiwi", "–")) for f in figs}
        heavy = {",".join(f.get("heavy", [])) or "none" for f in figs} if "heavy" in figs[0] else {"–"}
        print(f"| {name} | {call_w} | {call_c} | {_fmt([f['process_wall'] for f in figs])} | "
              f"{_fmt([f['process_cpu'] for f in figs])} | {'/'.join(sorted(kiwi))} | {'/'.join(sorted(heavy))} |")
    kiwi_only = results["kiwipiepy alone (import + Kiwi() + first tokenize)"]
    print(f"kiwipiepy alone, CPU: import + Kiwi() {_fmt([f['load_cpu'] for f in kiwi_only])}, "
          f"first tokenize {_fmt([f['tokenize_cpu'] for f in kiwi_only])}")
    outs = {f["out"] for f in results["name"]}
    print(f"masked text of the name case (the same in every run: {len(outs) == 1}): {sorted(outs)[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
