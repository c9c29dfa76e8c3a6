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

The crisis-context verdict is decided by engagement (:mod:`vignette_lab.engines.crisis_engagement`):
a learned model over general signals, trained on the dev splits' crisis items, with the rules' dismissal
classes as evidence. Without ``--loso`` the shipped models (trained on every dev split) are used, so the
dev figures are tuned on.

``--loso`` holds out **author groups** — the four oldest splits pooled (``dev`` … ``dev_r3``) and each
author of ``dev_r4`` … the newest dev split (ids ``ev-t4-``/``ev-t4b-``, ``ev-t5a-``/``ev-t5b-``, …):
for each group the crisis-cue reader and the engagement model are trained on the other groups (minus the
group's texts) and scored on it, then the thirteen groups are pooled. That pooled figure is the one that
predicts a new author. The shape rules under both were written on these splits, so only the learned parts
are held out. ``--held GROUP`` (repeatable) holds out only those groups (pooled over them), for a quick
before/after on the newest authors.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_safety.py [--split dev_r9] [--loso [--held ev-t9a-]] [--misses] [--boot 1000]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

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


OLD_SPLITS = ("dev", "dev_r1", "dev_r2", "dev_r3")
#: The evaluator dev splits this bench scores and holds out: the shipped models' ``DEV_SPLITS``.
SPLITS = tuple(ut.DEV_SPLITS)


def author_groups() -> dict[str, list[dict]]:
    """The author groups of the dev splits: the oldest four splits pooled, then each later author."""
    groups: dict[str, list[dict]] = {}
    for name in SPLITS:
        for it in load(EVAL_DIR / f"{name}.jsonl"):
            key = "dev…dev_r3 pooled" if name in OLD_SPLITS else author_prefix(str(it.get("id", "")))
            groups.setdefault(key, []).append(it)
    return groups


def loso_models(held: list[dict], other: list[dict]) -> tuple[Any, Any]:
    """(crisis-cue reader, engagement model) trained on ``other`` items minus every text of ``held``."""
    from bench.bench_evaluator import cue_lines
    from vignette_lab.engines import crisis_engagement as ce
    from vignette_lab.engines import crisis_model as cm

    cue = cm.runtime(cm.fit(cue_lines(other, exclude={ut.normalise_text(it.get("client_prev", "")) for it in held})))
    held_turns = {ut.normalise_text(it["counselor"]) for it in held}
    seen: set[tuple[str, str]] = set()
    train = []
    for it in other:
        key = (ut.normalise_text(it.get("client_prev", "")), ut.normalise_text(it["counselor"]))
        if it.get("crisis_context") and it.get("appropriateness") in ("pos", "warn") and key[1] not in held_turns \
                and key not in seen:
            seen.add(key)
            train.append(it)
    return cue, ce.fit(train)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", action="append", default=None, help="split name(s); default every dev split + test")
    ap.add_argument("--misses", action="store_true", help="also list the misses (do not use on a held-out split)")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--loso", action="store_true",
                    help="hold out each author group in turn (cue reader + engagement model trained "
                         "without it), then pool them")
    ap.add_argument("--held", action="append", default=None,
                    help="with --loso: hold out only this author group (e.g. ev-t8a-; repeatable)")
    args = ap.parse_args(argv)
    from vignette_lab.engines import crisis_engagement as ce
    from vignette_lab.engines import crisis_model as cm
    started = time.perf_counter()
    if args.loso:
        groups = author_groups()
        unknown = sorted(set(args.held or ()) - set(groups))
        if unknown:
            ap.error(f"--held: unknown author group(s) {', '.join(unknown)}; expected one of {', '.join(groups)}")
        held_names = [g for g in groups if not args.held or g in args.held]
        pooled: list[dict] = []
        flags: list[tuple[bool, bool]] = []  # (flagged, cue read) per item, under its held-out reader
        for name in held_names:
            items = groups[name]
            other = [it for g, sub in groups.items() if g != name for it in sub]
            cue, engagement = loso_models(items, other)
            cm.use_model(cue)
            ce.use_model(engagement)
            print(f"## LOSO held-out {name} (n = {len(items)}; cue threshold {cue.thresholds['crisis']}, "
                  f"engagement threshold {engagement.threshold})")
            print("\n".join(summarise(items, n_boot=args.boot, misses=args.misses)))
            pooled += items
            flags += [(bool(it.get("crisis_context")), ut.crisis_cue(it.get("client_prev", ""))) for it in items]
            for detect in (False, True):
                for it, row in zip(items, safety_rows(items, detect=detect)):
                    it.setdefault("_pred", {})[detect] = row
        cm.use_model(None)
        ce.use_model(None)
        print(f"## LOSO pooled over the {len(held_names)} author groups held out (n = {len(pooled)})")
        flagged = [hit for fl, hit in flags if fl]
        fa = sum(hit for fl, hit in flags if not fl)
        print(f"- crisis cue from the client line: recall {_ci(flagged, n_boot=args.boot)}; false alarms "
              f"{fa}/{len(flags) - len(flagged)} = {fa / max(1, len(flags) - len(flagged)):.1%}")
        every = [it for name in held_names for it in groups[name]]
        for detect in (False, True):
            rows = [it["_pred"][detect] for it in every]
            screens = [r for r in rows if r["item"].get("crisis_context") and r["item"]["appropriateness"] == "pos"]
            warned = sum(r["appr"] == "warn" for r in screens)
            sdev = [r["safety"] for r in rows if "safety" in r["item"].get("deviation", [])]
            how = "cue read from the client line" if detect else "crisis flag given"
            print(f"- {how}: screening marked warn {warned}/{len(screens)}; safety recall {_ci(sdev, n_boot=args.boot)}")
        print(f"bench time {time.perf_counter() - started:.1f} s wall")
        return 0
    names = args.split or [*SPLITS, "test"]
    for name in names:
        path = EVAL_DIR / f"{name}.jsonl"
        if not path.exists():
            print(f"## {name}: absent")
            continue
        items = load(path)
        print(f"## {name} (n = {len(items)}){' — held out' if name == 'test' else ' — shipped models, tuned on'}")
        print("\n".join(summarise(items, n_boot=args.boot, misses=args.misses)))
        authors: dict[str, list[dict]] = {}
        for it in items:
            authors.setdefault(author_prefix(str(it.get("id", ""))), []).append(it)
        if len(authors) > 1:
            for prefix, sub in authors.items():
                print(f"### {name} — author {prefix}* (n = {len(sub)})")
                print("\n".join(summarise(sub, n_boot=args.boot)))
    print(f"bench time {time.perf_counter() - started:.1f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
