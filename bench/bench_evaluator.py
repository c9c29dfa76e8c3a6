"""Offline evaluator on labelled counselor utterances: techniques, appropriateness, safety.

Splits (``datasets/eval/evaluator/``):

* ``dev.jsonl`` — written and labelled by the tuner of the cues and the learned models. Its
  figures are **tuned on**: the rules were written while reading it.
* ``dev_r1.jsonl`` … ``dev_r6.jsonl`` — the round-1 to round-6 independent test splits (other
  authors; ``dev_r4`` has two, ids ``ev-t4-`` and ``ev-t4b-``; ``dev_r5`` two, ``ev-t5a-`` and
  ``ev-t5b-``; ``dev_r6`` two, ``ev-t6a-`` and ``ev-t6b-``). Each was scored once as held-out (``bench/RESULTS.md``) and then became dev
  material, so their figures here are **tuned on**, not held-out.
* ``test.jsonl`` — written by new independent authors who never saw the evaluator; loaded only
  when present (the lead adds it after the merge). That is the figure to report. A split holding
  several authors (told apart by id prefix, e.g. ``ev-t7a-`` / ``ev-t7b-``) also gets one row per
  author.

The default system is the learned technique tagger (:mod:`vignette_lab.engines.technique_stack`,
characters + morphemes) with the rule judgement refined by the learned appropriateness model
(:mod:`vignette_lab.engines.appropriateness`). Leave-one-split-out (LOSO) trains both learned
models — and the learned crisis-cue reader of client lines (:mod:`vignette_lab.engines.crisis_model`) and the
crisis engagement model (:mod:`vignette_lab.engines.crisis_engagement`) —
without the held split's texts and scores them on it; group 5-fold by normalised text
does the same for appropriateness over every dev text. The rule cues both models read were
written on dev..dev_r2 (and, after round 3, dev_r3's crisis items), so on those splits only the
learned weights are held out. ``--technique-model`` adds the comparison that picked the default:
rules vs model vs stack (rules as features), technique by technique, by LOSO.

For each split and system the bench prints per-technique Cohen κ and F1 with bootstrap 95 % CIs,
technique macro κ/F1, exact-set accuracy, appropriateness κ, safety recall (items whose gold
deviation includes ``safety``: share given the ``safety`` deviation), screening errors (gold
``pos`` after a crisis cue that the evaluator marked ``warn``) and crisis-cue recall from the
client line alone.

Context: the evaluator sees ``client_prev``, ``stage`` and ``persona``; an item's
``crisis_context`` flag stands in for the session history a live evaluator would see (the test
split is also scored with the crisis read from the client line only).

Run: ``.venv/bin/python bench/bench_evaluator.py [--boot 1000] [--write-metrics] [--test-only] [--technique-model] [--json out.json]``
``--write-metrics`` writes ``datasets/eval/evaluator/metrics.json`` (the figure that
``vignette-lab doctor``, the review and the agreement page show) from the **test split only**
(the default system's row: split name, n, κ, CI, per-author κ, date); without a test split it
writes ``split: null``. ``--test-only`` skips the dev rows and scores the test split with the
*shipped* models (trained on every dev split + banks, ``bench/build_evaluator_models.py``), so the
lead's one command ``bench_evaluator.py --test-only --write-metrics`` needs no training; without it
the learned models are retrained on all dev minus any text the test split shares.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from datetime import date
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from vignette_lab.engines import utterance_tagger as ut  # noqa: E402
from vignette_lab.engines.scripted_evaluator import label_utterance  # noqa: E402

EVAL_DIR = Path(__file__).resolve().parent.parent / "datasets" / "eval" / "evaluator"


def load(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    """Cohen's κ = (p_o − p_e) / (1 − p_e), the arithmetic of scikit-learn's ``cohen_kappa_score``.

    In numpy over a confusion matrix (≈ 20× faster than the scikit-learn call, which the bootstrap
    made the bench's main cost: 13 techniques × 1 000 resamples per row).
    """
    labels = np.union1d(a, b)
    if len(labels) < 2:
        return 1.0 if (a == b).all() else 0.0
    k = len(labels)
    cm = np.bincount(np.searchsorted(labels, a) * k + np.searchsorted(labels, b), minlength=k * k).reshape(k, k)
    n = cm.sum()
    po = np.trace(cm) / n
    pe = float(cm.sum(axis=1) @ cm.sum(axis=0)) / (n * n)
    return float((po - pe) / (1 - pe))


def _f1(a: np.ndarray, b: np.ndarray) -> float:
    tp = float(((a == 1) & (b == 1)).sum())
    denom = float((a == 1).sum() + (b == 1).sum())
    return 1.0 if denom == 0 else 2 * tp / denom


def _boot(fn, *arrays, n_boot: int, seed: int = 7) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    n = len(arrays[0])
    point = fn(*arrays)
    stats = []
    for _ in range(n_boot):
        idx = rng.integers(0, n, n)
        stats.append(fn(*(a[idx] for a in arrays)))
    lo, hi = np.percentile(stats, [2.5, 97.5])
    return round(point, 3), round(float(lo), 3), round(float(hi), 3)


def predict(items: list[dict], model, *, appropriateness_model=None, detect_crisis: bool = False) -> list[dict]:
    """Labels for eval items; ``appropriateness_model`` None keeps the rule judgement.

    ``detect_crisis`` reads the crisis context from the client line instead of the item's flag.
    """
    out = []
    for it in items:
        crisis = None if detect_crisis else bool(it.get("crisis_context"))
        out.append(label_utterance(it["counselor"], client_prev=it.get("client_prev", ""), stage=it["stage"],
                                   persona_code=it.get("persona"), crisis_context=crisis,
                                   model=model, appropriateness_model=appropriateness_model))
    return out


def score(items: list[dict], preds: list[dict], *, n_boot: int) -> dict:
    res: dict = {"n": len(items), "per_technique": {}}
    kappas, f1s = [], []
    for code in ut.TECHNIQUES:
        g = np.array([code in it["techniques"] for it in items], dtype=int)
        p = np.array([code in pr["techniques"] for pr in preds], dtype=int)
        if g.sum() == 0 and p.sum() == 0:
            continue
        k = _boot(_kappa, g, p, n_boot=n_boot)
        f = _boot(_f1, g, p, n_boot=n_boot)
        res["per_technique"][code] = {"support": int(g.sum()), "kappa": k, "f1": f}
        if g.sum() > 0:
            kappas.append((g, p))
            f1s.append((g, p))
    gs = np.stack([g for g, _ in kappas], axis=1)
    ps = np.stack([p for _, p in kappas], axis=1)

    def macro_k(g, p):
        return float(np.mean([_kappa(g[:, j], p[:, j]) for j in range(g.shape[1])]))

    def macro_f(g, p):
        return float(np.mean([_f1(g[:, j], p[:, j]) for j in range(g.shape[1])]))

    res["macro_kappa"] = _boot(macro_k, gs, ps, n_boot=n_boot)
    res["macro_f1"] = _boot(macro_f, gs, ps, n_boot=n_boot)
    exact = np.array([set(it["techniques"]) == set(pr["techniques"]) for it, pr in zip(items, preds)], dtype=float)
    res["exact_set"] = _boot(lambda e: float(e.mean()), exact, n_boot=n_boot)
    codes = {"pos": 0, "warn": 1, "neutral": 2}
    ga = np.array([codes[it["appropriateness"]] for it in items])
    pa = np.array([codes[pr["appropriateness"]] for pr in preds])
    res["appropriateness_kappa"] = _boot(_kappa, ga, pa, n_boot=n_boot)
    warn_g, warn_p = (ga == 1).astype(int), (pa == 1).astype(int)
    res["warn_recall"] = round(float((warn_g & warn_p).sum() / max(1, warn_g.sum())), 3)
    res["warn_n"] = int(warn_g.sum())
    safety = [i for i, it in enumerate(items) if "safety" in it.get("deviation", [])]
    hit = np.array([any(d["dimension"] == "safety" for d in preds[i]["intent_deviation"]) for i in safety], dtype=float)
    res["safety_recall"] = _boot(lambda h: float(h.mean()), hit, n_boot=n_boot) if len(hit) else None
    res["safety_n"] = len(safety)
    screens = [i for i, it in enumerate(items) if it.get("crisis_context") and it["appropriateness"] == "pos"]
    res["crisis_pos_n"] = len(screens)
    res["crisis_pos_marked_warn"] = sum(preds[i]["appropriateness"] == "warn" for i in screens)
    return res


def _fmt(ci) -> str:
    return "–" if ci is None else f"{ci[0]:.3f} [{ci[1]:.3f}, {ci[2]:.3f}]"


def report(name: str, res: dict) -> str:
    lines = [f"### {name} (n = {res['n']})", "",
             f"- technique macro κ {_fmt(res['macro_kappa'])}; macro F1 {_fmt(res['macro_f1'])}; "
             f"exact label set {_fmt(res['exact_set'])}",
             f"- appropriateness κ {_fmt(res['appropriateness_kappa'])}; warn recall {res['warn_recall']:.3f} "
             f"(n warn = {res['warn_n']})",
             f"- safety recall {_fmt(res['safety_recall'])} (n = {res['safety_n']}); crisis-context `pos` items "
             f"marked `warn`: {res['crisis_pos_marked_warn']} of {res['crisis_pos_n']}", "",
             "| technique | support | κ [95 % CI] | F1 [95 % CI] |", "|---|---:|---|---|"]
    for code, r in res["per_technique"].items():
        lines.append(f"| {code} | {r['support']} | {_fmt(r['kappa'])} | {_fmt(r['f1'])} |")
    return "\n".join(lines) + "\n"


def _norms(items: list[dict]) -> set[str]:
    return {ut.normalise_text(x["counselor"]) for x in items}


def _client_norms(items: list[dict]) -> set[str]:
    return {ut.normalise_text(x.get("client_prev", "")) for x in items}


def cue_lines(items: list[dict], *, exclude: set[str]) -> list[tuple[str, bool]]:
    """(client line, crisis) training pairs from ``items``, as ``crisis_model.training_lines`` makes them.

    One pair per normalised client line (crisis when any item carrying it is flagged), minus ``exclude``.
    """
    out: dict[str, list] = {}
    for it in items:
        line = str(it.get("client_prev") or "")
        key = ut.normalise_text(line)
        if key and key not in exclude:
            row = out.setdefault(key, [line, False])
            row[1] = row[1] or bool(it.get("crisis_context"))
    return [(line, bool(flag)) for line, flag in out.values()]


def crisis_cue_recall(items: list[dict]) -> dict:
    """Crisis cue read from the client line alone vs the item's ``crisis_context`` flag.

    Some flagged items carry the cue earlier in the session ("계획까진 없어요"), so recall
    below 1 is expected; a hit on an unflagged line is a false alarm.
    """
    tp = sum(ut.crisis_cue(it.get("client_prev", "")) and it["crisis_context"] for it in items)
    flagged = sum(bool(it["crisis_context"]) for it in items)
    fp = sum(ut.crisis_cue(it.get("client_prev", "")) and not it["crisis_context"] for it in items)
    return {"hit": tp, "flagged": flagged, "false_alarm": fp, "unflagged": len(items) - flagged}


LABELS = {"dev": "dev (tuned on)",
          "dev_r1": "dev_r1 (round-1 test split, tuned on after round 1)",
          "dev_r2": "dev_r2 (round-2 test split, tuned on after round 2)",
          "dev_r3": "dev_r3 (round-3 test split, tuned on after round 3)",
          "dev_r4": "dev_r4 (round-4 test split, two authors, tuned on after round 4)",
          "dev_r5": "dev_r5 (round-5 test split, two authors, tuned on after round 5)",
          "dev_r6": "dev_r6 (round-6 test split, two authors, tuned on after round 6)",
          "dev_r7": "dev_r7 (round-7 test split, two authors, tuned on after round 7)",
          "dev_r8": "dev_r8 (round-8 test split, two authors, tuned on after round 8)",
          "dev_r9": "dev_r9 (round-9 test split, two authors, tuned on after round 9)",
          "dev_r10": "dev_r10 (round-10 test split, two authors, tuned on after round 10)"}

_PREFIX = re.compile(r"^(.*-)\d+$")


def author_prefix(item_id: str) -> str:
    """The author part of an item id: ``ev-t4b-0012`` → ``ev-t4b-`` (the whole id when it has no number)."""
    m = _PREFIX.match(item_id or "")
    return m.group(1) if m else (item_id or "")


def by_author(items: list[dict], preds: list[dict], *, n_boot: int) -> dict[str, dict]:
    """One score per author (id prefix) when a split holds more than one author, else {}."""
    groups: dict[str, list[int]] = {}
    for i, it in enumerate(items):
        groups.setdefault(author_prefix(str(it.get("id", ""))), []).append(i)
    if len(groups) < 2:
        return {}
    return {p: score([items[i] for i in idx], [preds[i] for i in idx], n_boot=n_boot) for p, idx in groups.items()}


def _with_authors(results: dict, key: str, items: list[dict], preds: list[dict], *, n_boot: int) -> dict:
    results[key] = score(items, preds, n_boot=n_boot)
    for prefix, res in by_author(items, preds, n_boot=n_boot).items():
        results[f"{key} — author {prefix}*"] = res
    return results[key]


def _group_kfold_appropriateness(items: list[dict], rows: list[dict], *, n_boot: int, folds: int = 5) -> dict:
    """Group k-fold by normalised text over every dev item: appropriateness κ of the model (held-out weights)."""
    from sklearn.model_selection import GroupKFold

    from vignette_lab.engines.appropriateness import AppropriatenessModel

    groups = [ut.normalise_text(it["counselor"]) for it in items]
    preds: list[dict | None] = [None] * len(items)
    for train, held in GroupKFold(n_splits=folds).split(items, groups=groups):
        model = AppropriatenessModel.fit([rows[i] for i in train])
        for i, pr in zip(held, predict([items[i] for i in held], None, appropriateness_model=model)):
            preds[i] = pr
    return score(items, preds, n_boot=n_boot)

TECHNIQUE_SYSTEMS = ("model", "stack")


def train_items(sets: dict[str, list[dict]], splits: list[str], *, exclude: set[str]) -> list[dict]:
    """Training items for a learned tagger: the named splits + the counselor banks, minus ``exclude`` texts.

    De-duplicated by normalised text (the first label wins); the banks are training material.
    """
    seen: set[str] = set(exclude)
    out = []
    for it in [x for n in splits for x in sets[n]] + ut._bank_items():
        key = ut.normalise_text(it["counselor"])
        if key not in seen:
            seen.add(key)
            out.append(it)
    return out


def technique_model(kind: str, items: list[dict]):
    """A learned technique tagger of one kind trained on ``items`` (``model``: no rule features; ``stack``)."""
    from vignette_lab.engines.technique_stack import StackedTechniqueModel
    return StackedTechniqueModel.fit(items, use_rules=(kind == "stack"))


def default_technique_model(items: list[dict]):
    """The default system's technique tagger trained on ``items`` (None when the default is the rules)."""
    return technique_model("model", items) if ut.default_system() == "model" else None


def technique_loso(sets: dict[str, list[dict]], *, n_boot: int, held_only: str | None = None,
                   systems: tuple[str, ...] = TECHNIQUE_SYSTEMS) -> dict:
    """Leave-one-split-out over the author splits: rules vs learned model vs stack, techniques.

    For each held split the learned taggers are trained on the other splits + the counselor banks,
    minus every text of the held split (normalised); their thresholds are tuned inside that training
    data. Appropriateness is the rule judgement here (techniques are what is compared). The rule
    cues were written while reading dev, dev_r1 and dev_r2, so only their dev_r3 row is held out.
    """
    out: dict = {}
    for held, items in sets.items():
        if held_only and held != held_only:
            continue
        other = [n for n in sets if n != held]
        train = train_items(sets, other, exclude=_norms(items))
        _with_authors(out, f"technique LOSO held-out {held}/rules (rule cues written on dev..dev_r3)", items,
                      predict(items, None, appropriateness_model=None), n_boot=n_boot)
        for kind in systems:
            m = technique_model(kind, train)
            _with_authors(out, f"technique LOSO held-out {held}/{kind} (trained on {' + '.join(other)} + banks)", items,
                          predict(items, m, appropriateness_model=None), n_boot=n_boot)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--write-metrics", action="store_true",
                    help="write datasets/eval/evaluator/metrics.json from the test split (split null without one)")
    ap.add_argument("--test-only", action="store_true",
                    help="score only the test split, with the shipped models (no training; the lead's fast command)")
    ap.add_argument("--technique-model", action="store_true",
                    help="also compare rules vs learned model vs stack by leave-one-split-out (slow)")
    ap.add_argument("--held", default=None, help="with --technique-model: hold out only this split")
    ap.add_argument("--technique-only", action="store_true", help="with --technique-model: skip the other rows")
    ap.add_argument("--json", type=Path, default=None, help="also write all results as JSON here")
    args = ap.parse_args(argv)
    from vignette_lab.engines import appropriateness as appr

    started = time.perf_counter()
    sets = {name: load(EVAL_DIR / f"{name}.jsonl") for name in ut.DEV_SPLITS if (EVAL_DIR / f"{name}.jsonl").exists()}
    if args.technique_model and args.technique_only:
        for name, res in technique_loso(sets, n_boot=args.boot, held_only=args.held).items():
            print(report(name, res))
        return 0
    rows = {name: appr.training_rows(items) for name, items in sets.items()} if not args.test_only else {}
    use_appr = appr.appropriateness_system() == "model"
    system = (f"{'technique model' if ut.default_system() == 'model' else 'rules'}"
              f"{' + appropriateness model' if use_appr else ''}")
    results: dict = {}
    cues: dict = {}
    if not args.test_only:
        for name, items in sets.items():
            results[f"{LABELS.get(name, name)}/rules"] = score(items, predict(items, None), n_boot=args.boot)
            cues[name] = crisis_cue_recall(items)
        # Leave-one-split-out of the default system: the technique model and the appropriateness model are
        # trained on the other splits (+ banks) and scored on the held one. The rule cues both read were
        # written on dev..dev_r3, so on those splits only the learned weights are held out.
        pooled_items: list[dict] = []
        pooled_preds: list[dict] = []
        from vignette_lab.engines import crisis_engagement as ce
        from vignette_lab.engines import crisis_model as cm

        for held, items in sets.items():
            other = [n for n in sets if n != held]
            # the crisis-context verdict: the engagement model trained without the held split's turns
            ce.use_model(ce.fit(ce.training_items(splits=other, exclude_norm=_norms(items))))
            try:
                cm.use_model(cm.runtime(cm.fit(cue_lines([x for n in other for x in sets[n]],
                                                         exclude=_client_norms(items)))))
                cues[f"{held} (LOSO cue reader)"] = crisis_cue_recall(items)
            except ValueError as exc:  # too few crisis lines outside the held split (a small stand-in set)
                print(f"LOSO cue reader for {held} not trained ({exc}); the shipped reader reads its cues",
                      file=sys.stderr)
                cm.use_model(None)
            tm = default_technique_model(train_items(sets, other, exclude=_norms(items)))
            am = appr.AppropriatenessModel.fit([r for n in other for r in rows[n]]) if use_appr else None
            preds = predict(items, tm, appropriateness_model=am)
            _with_authors(results, f"LOSO held-out {held}/{system} (trained on {' + '.join(other)})", items, preds,
                          n_boot=args.boot)
            pooled_items += items
            pooled_preds += preds
        cm.use_model(None)  # the shipped reader from here on
        ce.use_model(None)
        results[f"LOSO pooled/{system} (weights held out)"] = score(pooled_items, pooled_preds, n_boot=args.boot)
        seen: set[str] = set()
        uniq_items, uniq_rows = [], []
        for name in sets:
            for it, row in zip(sets[name], rows[name]):
                key = ut.normalise_text(it["counselor"])
                if key not in seen:
                    seen.add(key)
                    uniq_items.append(it)
                    uniq_rows.append(row)
        results["group 5-fold by text, all dev/rules + appropriateness model (weights held out)"] = \
            _group_kfold_appropriateness(uniq_items, uniq_rows, n_boot=args.boot)
        if args.technique_model:
            results.update(technique_loso(sets, n_boot=args.boot, held_only=args.held))
    test_path = EVAL_DIR / "test.jsonl"
    test_key = None
    if test_path.exists():
        test = load(test_path)
        dev_norms = set().union(*(_norms(v) for v in sets.values())) if sets else set()
        overlap = dev_norms & _norms(test)
        tag = "" if not overlap else f" — NOT held-out: {len(overlap)} texts also in dev"
        if overlap:
            print(f"WARNING: {len(overlap)} test texts also in a dev split — test figure is NOT held-out", file=sys.stderr)
        cues["test"] = crisis_cue_recall(test)
        groups: dict[str, list[dict]] = {}
        for it in test:
            groups.setdefault(author_prefix(str(it.get("id", ""))), []).append(it)
        if len(groups) > 1:
            for prefix, sub in groups.items():
                cues[f"test — author {prefix}*"] = crisis_cue_recall(sub)
        _with_authors(results, f"test/rules{tag}", test, predict(test, None, appropriateness_model=None),
                      n_boot=args.boot)
        if args.test_only:
            # The shipped models: trained on every dev split + banks (bench/build_evaluator_models.py).
            tm = ut.default_model()
            am = appr.default_appropriateness_model() if use_appr else None
            trained = "shipped models, trained on all dev + banks"
        else:
            tm = default_technique_model(train_items(sets, list(sets), exclude=_norms(test)))
            am = appr.AppropriatenessModel.fit([r for n in sets for r in rows[n]]) if use_appr else None
            trained = "trained on all dev + banks"
        test_key = f"test/default system: {system} ({trained}){tag}"
        preds = predict(test, tm, appropriateness_model=am)
        _with_authors(results, test_key, test, preds, n_boot=args.boot)
        _with_authors(results, f"test/crisis read from the client line, default system{tag}", test,
                      predict(test, tm, appropriateness_model=am, detect_crisis=True), n_boot=args.boot)
        if args.technique_model and not args.test_only:
            st = technique_model("stack", train_items(sets, list(sets), exclude=_norms(test)))
            _with_authors(results, f"test/stack (rules as features) + appropriateness model{tag}", test,
                          predict(test, st, appropriateness_model=am), n_boot=args.boot)
    elif args.test_only:
        print("no test split (datasets/eval/evaluator/test.jsonl) — nothing scored")
    for name, res in results.items():
        print(report(name, res))
    print("crisis cue read from the client line alone (hit / flagged items; false alarms / unflagged items):")
    for name, c in cues.items():
        print(f"- {name}: {c['hit']} / {c['flagged']}; false alarms {c['false_alarm']} / {c['unflagged']}")
    print(f"default: techniques {ut.default_system()} (VIGNETTE_EVALUATOR_MODEL), appropriateness "
          f"{appr.appropriateness_system()} (VIGNETTE_APPROPRIATENESS)")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "crisis_cues": cues}, ensure_ascii=False, indent=1),
                             encoding="utf-8")
    if args.write_metrics:
        res = results[test_key] if test_key else None
        kind = ut.evaluator_kind()  # named from the shipped weight files, as doctor and the review name it
        authors = {k.rsplit("author ", 1)[1].rstrip("*"): v for k, v in results.items()
                   if test_key and k.startswith(test_key + " — author ")}
        metrics = {"evaluator": f"scripted ({kind})",
                   "split": "test" if res else None, "n": res["n"] if res else None,
                   # the test split is the round after the renamed dev_r1 … dev_rN splits
                   "round": len(list(EVAL_DIR.glob("dev_r*.jsonl"))) + 1 if res else None,
                   "technique_macro_kappa": res["macro_kappa"][0] if res else None,
                   "technique_macro_kappa_ci": list(res["macro_kappa"][1:]) if res else None,
                   "appropriateness_kappa": res["appropriateness_kappa"][0] if res else None,
                   "appropriateness_kappa_ci": list(res["appropriateness_kappa"][1:]) if res else None,
                   "crisis_pos_marked_warn": res["crisis_pos_marked_warn"] if res else None,
                   "crisis_pos_n": res["crisis_pos_n"] if res else None,
                   "safety_recall": res["safety_recall"][0] if res and res["safety_recall"] else None,
                   "safety_n": res["safety_n"] if res else None,
                   # crisis cue read from the client line alone (hit/flagged, false alarms/unflagged)
                   "crisis_cue": cues.get("test") if res else None,
                   "authors": {p: {"n": r["n"], "technique_macro_kappa": r["macro_kappa"][0],
                                   "technique_macro_kappa_ci": list(r["macro_kappa"][1:]),
                                   "appropriateness_kappa": r["appropriateness_kappa"][0],
                                   "appropriateness_kappa_ci": list(r["appropriateness_kappa"][1:]),
                                   "crisis_pos_marked_warn": r["crisis_pos_marked_warn"],
                                   "crisis_pos_n": r["crisis_pos_n"],
                                   "safety_recall": r["safety_recall"][0] if r["safety_recall"] else None,
                                   "safety_n": r["safety_n"],
                                   "crisis_cue": cues.get(f"test — author {p}*")} for p, r in authors.items()}
                   if res else None,
                   "date": date.today().isoformat()}
        (EVAL_DIR / "metrics.json").write_text(json.dumps(metrics, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {EVAL_DIR / 'metrics.json'} (split: {metrics['split'] or 'none — test split absent'})")
    print(f"bench time {time.perf_counter() - started:.1f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
