"""Drift checks on independent text: register classifier and CCD meta-disclosure detector.

Usage::

    python bench/bench_drift.py            # dev splits (+ test when the lead has added it)
    python bench/bench_drift.py --folds 5  # also group k-fold by persona on dev (see below)

Sets: every dev split of ``datasets/eval/drift/`` (``dev.jsonl``, the first independent author's,
tuned on, and ``dev_r1.jsonl`` … — each an earlier round's held-out split, scored once and then made
dev material; :func:`~vignette_lab.core.eval_splits.dev_splits` finds them) and ``test.jsonl`` when it
exists (the new authors' held-out split, never read while tuning; a split with several id prefixes
is also reported per author), plus the old meta probes ``datasets/eval/meta_disclosure/dev.jsonl``
(tuned on in session 1).

Register: :func:`~vignette_lab.analytics.drift.classify_register` with ``None`` read as
``none``; accuracy and Cohen's κ over the four labels with a percentile bootstrap 95 % CI
(2000 resamples of sentences, seed 0), plus the confusion matrix. Meta:
:func:`~vignette_lab.core.guardrails.detect_ccd_meta_disclosure` (rules OR the learned model;
fires = non-empty); precision, recall (Wilson 95 % CI) and F1 (bootstrap 95 % CI). Every dev
figure of the meta detector is *training material*: the model is trained on every dev split and
the probes. Its honest figures are the leave-one-split-out ones of
``python bench/build_meta_model.py --loso`` and, once added, ``test``.

False alarms: the PII dev sentences (client talk, never meta) — all of them, and separately the
newest PII pair that the model never trained on (``build_meta_model.heldout_ordinary``).

``--folds`` reports the same figures per held-out persona group, for the detectors as they are
(not re-fitted per fold), so the fold figures only show how evenly the score spreads over personas.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ helpers, also when loaded by path
from _stats import wilson  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from vignette_lab.analytics.drift import classify_register  # noqa: E402
from vignette_lab.core.eval_splits import dev_splits  # noqa: E402
from vignette_lab.core.guardrails import detect_ccd_meta_disclosure  # noqa: E402

DRIFT_DIR = ROOT / "datasets" / "eval" / "drift"
PII_DIR = ROOT / "datasets" / "eval" / "pii"
META_PROBES = ROOT / "datasets" / "eval" / "meta_disclosure" / "dev.jsonl"
SPLITS = (*dev_splits(DRIFT_DIR), "test")
LABELS = ("hapsyo", "haeyo", "banmal", "none")


def load(path: Path) -> list[dict]:
    """Rows of a JSONL file (blank lines skipped)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def splits() -> dict[str, list[dict]]:
    """The drift splits present on disk, by name."""
    return {name: load(DRIFT_DIR / f"{name}.jsonl") for name in SPLITS if (DRIFT_DIR / f"{name}.jsonl").exists()}


def ordinary_sentences() -> list[str]:
    """Client-style sentences of the PII dev sets (``text`` fields): a false-positive check for
    the meta detector on text it was never tuned on (held-out ``test*`` files are not read)."""
    out: list[str] = []
    for path in sorted(PII_DIR.glob("*.jsonl")):
        if "test" in path.name:  # test.jsonl, clean_test.jsonl: held out
            continue
        out += [r["text"] for r in load(path) if isinstance(r.get("text"), str)]
    return sorted(set(out))




def streaming_prefixes(text: str) -> list[str]:
    """The prefixes a streaming reply passes through that can change the guard's verdict on the
    model side: every prefix ending just after a space or a punctuation mark, and the whole text
    (the model in ``partial`` mode judges only up to the last sentence end, which is always
    followed by a space or is a punctuation mark)."""
    cuts = [i + 1 for i, ch in enumerate(text) if ch.isspace() or ch in ".?!…~,"]
    return sorted({text[:i] for i in cuts} | {text})


def prefix_false_alarms(texts: list[str]) -> list[tuple[str, str]]:
    """``(text, first firing prefix)`` for every ordinary text whose streaming prefix fires the
    guard (``partial=True``) although the text itself does not fire: an ordinary reply the
    stream guard would replace mid-way."""
    out = []
    for t in texts:
        if detect_ccd_meta_disclosure(t):
            continue
        hit = next((p for p in streaming_prefixes(t) if detect_ccd_meta_disclosure(p, partial=True)), None)
        if hit is not None:
            out.append((t, hit))
    return out


def ordinary_client_lines() -> list[str]:
    """Client lines before a counselor turn in the evaluator dev splits (``client_prev``): ordinary
    client talk by several independent authors, never meta-labelled (some are meta-model
    training negatives)."""
    out: set[str] = set()
    for path in sorted((ROOT / "datasets" / "eval" / "evaluator").glob("dev*.jsonl")):
        out.update(r["client_prev"] for r in load(path) if isinstance(r.get("client_prev"), str))
    return sorted(out)


def _kappa(gold: np.ndarray, pred: np.ndarray, k: int) -> float:
    n = len(gold)
    cm = np.zeros((k, k))
    np.add.at(cm, (gold, pred), 1)
    po = np.trace(cm) / n
    pe = float((cm.sum(0) * cm.sum(1)).sum()) / (n * n)
    return 1.0 if pe == 1 else (po - pe) / (1 - pe)


def _f1(gold: np.ndarray, pred: np.ndarray) -> float:
    tp = int((gold & pred).sum())
    denom = int(gold.sum()) + int(pred.sum())
    return 2 * tp / denom if denom else float("nan")


def _boot(stat, arrays, *, n: int = 2000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    size = len(arrays[0])
    vals = []
    for _ in range(n):
        idx = rng.integers(0, size, size)
        v = stat(*(a[idx] for a in arrays))
        if not math.isnan(v):
            vals.append(v)
    if not vals:
        return (float("nan"), float("nan"))
    return (float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5)))


def author_of(item_id: str) -> str:
    """The author prefix of an item id: everything before the last ``-`` (``dr-t2-0001`` →
    ``dr-t2``; the lead gives each author of a split its own prefix)."""
    return item_id.rsplit("-", 1)[0]


def register_pred(text: str) -> str:
    """The classifier's label for one sentence, ``None`` read as ``'none'``."""
    return classify_register(text) or "none"


def score_register(rows: list[dict]) -> dict:
    """Accuracy, κ (bootstrap 95 % CI), confusion matrix and misses on one split."""
    idx = {lab: i for i, lab in enumerate(LABELS)}
    preds = [register_pred(r["text"]) for r in rows]
    g = np.array([idx[r["register"]] for r in rows])
    p = np.array([idx[x] for x in preds])
    acc = float((g == p).mean())
    kappa = _kappa(g, p, len(LABELS))
    cm = Counter(zip((r["register"] for r in rows), preds))
    return {"n": len(rows), "accuracy": acc, "accuracy_ci": wilson(int((g == p).sum()), len(rows)),
            "kappa": kappa, "kappa_ci": _boot(lambda a, b: _kappa(a, b, len(LABELS)), (g, p)),
            "confusion": {gl: {pl: cm[(gl, pl)] for pl in LABELS} for gl in LABELS},
            "misses": [(r["id"], r["register"], pr, r["text"]) for r, pr in zip(rows, preds) if pr != r["register"]]}


def score_meta(rows: list[dict]) -> dict:
    """Precision, recall (Wilson), F1 (bootstrap) of the meta detector on one split."""
    gold = np.array([bool(r["meta"]) for r in rows])
    pred = np.array([bool(detect_ccd_meta_disclosure(r["text"])) for r in rows])
    tp, fp, fn = int((gold & pred).sum()), int((~gold & pred).sum()), int((gold & ~pred).sum())
    prec = tp / (tp + fp) if tp + fp else float("nan")
    rec = tp / (tp + fn) if tp + fn else float("nan")
    return {"n": len(rows), "positives": int(gold.sum()), "tp": tp, "fp": fp, "fn": fn,
            "precision": prec, "precision_ci": wilson(tp, tp + fp), "recall": rec, "recall_ci": wilson(tp, tp + fn),
            "f1": _f1(gold, pred), "f1_ci": _boot(_f1, (gold, pred)),
            "misses": [(r["id"], bool(r["meta"]), r["text"]) for r, g, p in zip(rows, gold, pred) if g != p]}


def _top_level_alternatives(pattern: str) -> list[str]:
    body = pattern[1:-1]  # the detector's pattern is one outer group
    out, depth, start, i = [], 0, 0, 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            i += 2
            continue
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(body[start:i])
            start = i + 1
        i += 1
    return out + [body[start:]]


def loo_meta_recall(rows: list[dict]) -> tuple[int, int]:
    """Leave-one-out proxy for hand-written rules: a positive counts as recalled only when some
    alternative of the pattern that matches it also matches another positive (of ``rows`` or the
    old probes), i.e. the rule would exist without that sentence. Returns ``(recalled, positives)``."""
    import re

    from vignette_lab.core.guardrails import _META_PATTERNS, _MENTION

    alts = [re.compile(a, _META_PATTERNS.flags) for a in _top_level_alternatives(_META_PATTERNS.pattern)]
    pos = [r["text"] for r in rows if r["meta"]] + [r["text"] for r in load(META_PROBES) if r["meta"]]

    def hits(text: str) -> set[int]:
        return {k for k, a in enumerate(alts) for m in a.finditer(text) if not _MENTION.match(text, m.end())}

    per = [hits(t) for t in pos]
    recalled = 0
    for i, t in enumerate(r["text"] for r in rows if r["meta"]):
        if any(any(k in per[j] for j in range(len(pos)) if j != i and pos[j] != t) for k in per[i]):
            recalled += 1
    return recalled, sum(1 for r in rows if r["meta"])


def _fmt(ci: tuple[float, float]) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def report(name: str, rows: list[dict], *, show_misses: bool) -> None:
    """Print the register and meta figures of one split."""
    reg, meta = score_register(rows), score_meta(rows)
    print(f"## {name} (n={reg['n']})")
    print(f"register accuracy {reg['accuracy']:.3f} {_fmt(reg['accuracy_ci'])}  "
          f"kappa {reg['kappa']:.3f} {_fmt(reg['kappa_ci'])}")
    print("confusion (rows gold, cols predicted): " + " ".join(LABELS))
    for gl in LABELS:
        print(f"  {gl:7s} " + " ".join(f"{reg['confusion'][gl][pl]:4d}" for pl in LABELS))
    print(f"meta P {meta['precision']:.3f} {_fmt(meta['precision_ci'])}  R {meta['recall']:.3f} "
          f"{_fmt(meta['recall_ci'])}  F1 {meta['f1']:.3f} {_fmt(meta['f1_ci'])}  "
          f"(tp {meta['tp']}, fp {meta['fp']}, fn {meta['fn']}, positives {meta['positives']})")
    if show_misses:
        for m in reg["misses"]:
            print("  REG", *m)
        for m in meta["misses"]:
            print("  META", *m)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--misses", action="store_true", help="print dev misses (never use on test)")
    ap.add_argument("--folds", type=int, default=0, help="per-persona-group figures on dev")
    args = ap.parse_args(argv)
    for name, rows in splits().items():
        report(name, rows, show_misses=args.misses and name != "test")
        authors = sorted({author_of(r["id"]) for r in rows})
        if len(authors) > 1:  # a split written by several authors (id prefixes): each one apart
            for a in authors:
                report(f"{name}, author {a}", [r for r in rows if author_of(r["id"]) == a], show_misses=False)
    probes = load(META_PROBES)
    old = score_meta(probes)
    print(f"## old meta probes (n={old['n']}, tuned on in session 1)")
    print(f"meta P {old['precision']:.3f} {_fmt(old['precision_ci'])}  R {old['recall']:.3f} "
          f"{_fmt(old['recall_ci'])}  F1 {old['f1']:.3f} {_fmt(old['f1_ci'])}  (fp {old['fp']}, fn {old['fn']})")
    if args.misses:
        for m in old["misses"]:
            print("  META", *m)
    plain = ordinary_sentences()
    classify_register("워밍업이에요")
    t0 = time.perf_counter()
    for t in plain:
        classify_register(t)
    took = time.perf_counter() - t0
    print(f"## classify_register speed: {len(plain) / took:,.0f} sentences/s over {len(plain)} (2 shared cores, noisy)")
    fired = [t for t in plain if detect_ccd_meta_disclosure(t)]
    lo, hi = wilson(len(fired), len(plain))
    print(f"## ordinary sentences of the PII sets (n={len(plain)}, never meta-labelled; most are meta-model "
          f"training negatives): meta fires {len(fired)} ({len(fired) / max(1, len(plain)):.3%}, "
          f"95 % CI [{lo:.3%}, {hi:.3%}])")
    from build_meta_model import heldout_ordinary

    held = heldout_ordinary()
    hfired = [t for t in held if detect_ccd_meta_disclosure(t)]
    lo, hi = wilson(len(hfired), len(held))
    print(f"## ordinary sentences never trained on (newest PII pair, n={len(held)}): meta fires {len(hfired)} "
          f"({len(hfired) / max(1, len(held)):.3%}, 95 % CI [{lo:.3%}, {hi:.3%}])")
    t0 = time.perf_counter()
    for t in plain:
        detect_ccd_meta_disclosure(t)
    took = time.perf_counter() - t0
    print(f"## detect_ccd_meta_disclosure speed: {len(plain) / took:,.0f} sentences/s (2 shared cores, noisy)")
    if args.misses:
        for t in fired:
            print("  FIRE", t)
    from build_meta_model import persona_strings

    for label, texts in (("persona-card strings (training material, not evidence)", persona_strings()),
                         ("evaluator dev client lines", ordinary_client_lines())):
        alarms = prefix_false_alarms(texts)
        print(f"## streaming prefixes of {label} (n={len(texts)}): the stream guard fires mid-way on "
              f"{len(alarms)} texts that do not fire whole")
        for text, prefix in alarms if args.misses else ():
            print("  PREFIX", repr(prefix), "of", text)
    if "dev" in splits():
        k, n = loo_meta_recall(splits()["dev"])
        lo, hi = wilson(k, n)
        print(f"## meta leave-one-out recall proxy on dev: {k}/{n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}] "
              "(a positive counts only if a rule matching it also matches another positive)")
    if args.folds:
        dev = splits()["dev"]
        personas = sorted({r["persona"] for r in dev})
        groups = [personas[i::args.folds] for i in range(args.folds)]
        for grp in groups:
            part = [r for r in dev if r["persona"] in grp]
            reg, meta = score_register(part), score_meta(part)
            print(f"fold {'+'.join(grp)} n={len(part)}: register kappa {reg['kappa']:.3f}  "
                  f"meta P {meta['precision']:.3f} R {meta['recall']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
