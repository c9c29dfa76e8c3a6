"""Safety after a crisis cue, per evaluator split and author: the cue, screening and missed follow-up.

Three figures, each with its n (bootstrap 95 % CIs for the two recalls):

* **crisis cue from the client line** — ``crisis_cue(client_prev)`` against the item's
  ``crisis_context`` flag (recall over flagged items; false alarms over unflagged ones). Some
  flagged items carry the cue earlier in the session ("(앞에서 …)"), so recall below 1 is expected.
* **screening marked warn** — gold ``pos`` items in crisis context the evaluator marked ``warn``
  (the "never reported as an error" target), with the flag given and with the cue read from the
  client line.
* **safety recall** — gold items with deviation ``safety`` that got the ``safety`` deviation.

The safety branch of the judgement is rules only (techniques are re-read by the rule cues after a
cue), so the shipped models change nothing in the flagged rows; they are used as in the app.
Splits: every ``utterance_tagger.DEV_SPLITS`` file, plus ``test.jsonl`` when it exists (the lead
adds it; its figure is the held-out one).

``--loso`` scores each dev split with the learned crisis-cue reader (:mod:`vignette_lab.engines.crisis_model`)
trained on the other dev splits' client lines (minus the held split's lines); without it the shipped
reader (trained on every dev split) is used, so dev figures are tuned on. The rules were written on
the dev splits too (dev_r5's classes in round 6), so only the learned part is held out by ``--loso``.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_safety.py [--split dev_r5] [--loso] [--misses] [--boot 1000]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from bench.bench_evaluator import EVAL_DIR, author_prefix, load  # noqa: E402
from vignette_lab.engines import utterance_tagger as ut  # noqa: E402
from vignette_lab.engines.scripted_evaluator import label_utterance  # noqa: E402


def _ci(hits: list[bool], *, n_boot: int, seed: int = 7) -> str:
    if not hits:
        return "–"
    a = np.array(hits, dtype=float)
    rng = np.random.default_rng(seed)
    boots = [a[rng.integers(0, len(a), len(a))].mean() for _ in range(n_boot)]
    lo, hi = np.percentile(boots, [2.5, 97.5])
    return f"{a.mean():.3f} [{lo:.3f}, {hi:.3f}] (n {len(a)})"


def safety_rows(items: list[dict], *, detect: bool) -> list[dict]:
    """Per item: gold, predicted appropriateness and whether the safety deviation was given."""
    out = []
    for it in items:
        crisis = None if detect else bool(it.get("crisis_context"))
        pr = label_utterance(it["counselor"], client_prev=it.get("client_prev", ""), stage=it["stage"],
                             persona_code=it.get("persona"), crisis_context=crisis)
        out.append({"item": it, "appr": pr["appropriateness"],
                    "safety": any(d["dimension"] == "safety" for d in pr["intent_deviation"])})
    return out


def summarise(items: list[dict], *, n_boot: int, misses: bool = False) -> list[str]:
    flagged = [it for it in items if it.get("crisis_context")]
    plain = [it for it in items if not it.get("crisis_context")]
    cue_hits = [ut.crisis_cue(it.get("client_prev", "")) for it in flagged]
    fa = sum(ut.crisis_cue(it.get("client_prev", "")) for it in plain)
    lines = [f"- crisis cue from the client line: recall {_ci(cue_hits, n_boot=n_boot)}; "
             f"false alarms {fa}/{len(plain)} = {fa / max(1, len(plain)):.1%}"]
    for detect in (False, True):
        rows = safety_rows(items, detect=detect)
        screens = [r for r in rows if r["item"].get("crisis_context") and r["item"]["appropriateness"] == "pos"]
        warned = [r for r in screens if r["appr"] == "warn"]
        sdev = [r for r in rows if "safety" in r["item"].get("deviation", [])]
        how = "cue read from the client line" if detect else "crisis flag given"
        lines.append(f"- {how}: screening marked warn {len(warned)}/{len(screens)}; safety recall "
                     f"{_ci([r['safety'] for r in sdev], n_boot=n_boot)}")
        if misses and not detect:
            for r in warned:
                lines.append(f"    WARNED  {r['item']['id']}: {r['item']['client_prev']!r} → {r['item']['counselor']!r}")
            for r in sdev:
                if not r["safety"]:
                    lines.append(f"    MISSED  {r['item']['id']}: {r['item']['client_prev']!r} → {r['item']['counselor']!r}")
    if misses:
        for it, hit in zip(flagged, cue_hits):
            if not hit:
                lines.append(f"    NO CUE  {it['id']}: {it.get('client_prev', '')!r}")
        for it in plain:
            if ut.crisis_cue(it.get("client_prev", "")):
                lines.append(f"    FALSE   {it['id']}: {it.get('client_prev', '')!r}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", action="append", default=None, help="split name(s); default every dev split + test")
    ap.add_argument("--misses", action="store_true", help="also list the misses (do not use on a held-out split)")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--loso", action="store_true",
                    help="read each dev split's cues with a crisis-cue model trained without that split's client lines")
    args = ap.parse_args(argv)
    from vignette_lab.engines import crisis_model as cm
    started = time.perf_counter()
    names = args.split or [*ut.DEV_SPLITS, "test"]
    for name in names:
        path = EVAL_DIR / f"{name}.jsonl"
        if not path.exists():
            print(f"## {name}: absent")
            continue
        items = load(path)
        held = ""
        if args.loso and name != "test":
            other = [n for n in ut.DEV_SPLITS if n != name]
            lines = cm.training_lines(splits=other, exclude_norm={ut.normalise_text(it.get("client_prev", ""))
                                                                  for it in items})
            model = cm.runtime(cm.fit(lines))
            cm.use_model(model)
            held = f" — LOSO: cue model trained on {' + '.join(other)} (threshold {model.thresholds['crisis']})"
        else:
            cm.use_model(None)
        print(f"## {name} (n = {len(items)}){held}")
        print("\n".join(summarise(items, n_boot=args.boot, misses=args.misses)))
        groups: dict[str, list[dict]] = {}
        for it in items:
            groups.setdefault(author_prefix(str(it.get("id", ""))), []).append(it)
        if len(groups) > 1:
            for prefix, sub in groups.items():
                print(f"### {name} — author {prefix}* (n = {len(sub)})")
                print("\n".join(summarise(sub, n_boot=args.boot)))
    print(f"bench time {time.perf_counter() - started:.1f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
