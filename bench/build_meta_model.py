"""Train the meta-disclosure model offline and write ``vignette_lab/core/meta_model.json``.

Usage::

    python bench/build_meta_model.py            # train on every source, write the weights file
    python bench/build_meta_model.py --check    # exit 1 when the shipped file differs from a rebuild
    python bench/build_meta_model.py --loso     # leave-one-split-out figures (nothing written)

Training sources (all dev/training material; a held-out ``test*`` file is never read):

* ``drift_dev``, ``drift_dev_r1`` … — every drift dev split (``datasets/eval/drift/dev*.jsonl``,
  found by :func:`~vignette_lab.core.eval_splits.dev_splits`): ``dev`` by the first independent
  author, each ``dev_rN`` an earlier round's held-out split by a new author, scored once and then
  made dev material (``README_dev_rN.md`` says when);
* ``probes`` — ``datasets/eval/meta_disclosure/dev.jsonl`` (session-1 tuner's probes);
* ``persona_negatives`` — every string of the persona cards (``datasets/personas/*.json``:
  scripts, reactions, disclosures, card fields): ordinary client talk, all labelled not meta;
* ``ordinary_negatives`` — everyday talk of the other dev sets and banks (see
  :func:`ordinary_negatives`: every evaluator dev split and every PII dev/clean_dev pair but the
  newest); the newest PII pair (``PII_HELDOUT``) is kept out as the false-alarm check;
* ``synthetic_positives`` / ``synthetic_negatives`` — :func:`meta_synth.generate`, sentence
  frames per meta class and hard negatives with the same nouns (also English words clients use:
  the cards' difficulty values, apps, school subjects, songs, MBTI types), written by this model's
  tuners (training material, not evidence).

``C`` (16) was chosen by leave-one-split-out over the drift splits (8 and 16 tied on recall; 16
fired less on the held-out ordinary sentences); ``bench/RESULTS.md`` ("Drift round 5 —
meta-disclosure") has the figures. The threshold stays 0.5 by the eighth session's leave-one-split-out
run (0.6 halves the ordinary false alarms but loses recall on dev_r5/dev_r6; ``bench/RESULTS.md``,
"Drift meta model and register reader — eighth session").

Texts are de-duplicated by :func:`vignette_lab.core.meta_model.normalise`; an eval label wins
over a persona string with the same text. The model is scikit-learn ``LogisticRegression``
(liblinear, L2, class weight balanced) on the binary features of
:func:`vignette_lab.core.meta_model.features` restricted to n-grams seen in at least
``MIN_DF`` training texts, each scaled by 1/sqrt(number of n-grams of the text) (the runtime
does the same, so a dropped weight only removes its own term); weights are rounded to 4
decimals and weights below ``PRUNE`` in absolute value are dropped.

``--loso`` trains on every source but one eval split and scores the left-out split (rules alone,
model alone, rules OR model), plus the ordinary PII-set sentences (never trained on) as a false
alarm check; precision/recall with Wilson 95 % CIs.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Iterable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ helpers, also when loaded by path
from _stats import wilson  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from meta_synth import generate  # noqa: E402
from vignette_lab.core.eval_splits import dev_splits  # noqa: E402
from vignette_lab.core.meta_model import FORMAT_VERSION, MODEL_PATH, features, normalise  # noqa: E402

EVAL_DIR = ROOT / "datasets" / "eval"
DRIFT_DIR = EVAL_DIR / "drift"
PII_DIR = EVAL_DIR / "pii"
_PII_ROUNDS = dev_splits(PII_DIR)
#: the newest PII dev pair, kept out of training as a false-alarm check on ordinary sentences
PII_HELDOUT = (f"{_PII_ROUNDS[-1]}.jsonl", f"clean_{_PII_ROUNDS[-1]}.jsonl") if _PII_ROUNDS else ()
#: the everyday-talk files trained on: the dev files found by ``dev_splits`` (a held-out
#: ``test*``/``clean_test*`` file never matches), the PII set without its newest pair
ORDINARY_FILES = (
    ("evaluator", tuple(f"{name}.jsonl" for name in dev_splits(EVAL_DIR / "evaluator"))),
    ("pii", tuple(f"{prefix}{name}.jsonl" for name in _PII_ROUNDS[:-1] for prefix in ("", "clean_")
                  if (PII_DIR / f"{prefix}{name}.jsonl").exists())),
)
META_DIR = ROOT / "datasets" / "eval" / "meta_disclosure"
PERSONA_DIR = ROOT / "datasets" / "personas"
#: eval splits used for training and as leave-one-split-out folds
EVAL_SPLITS = {**{f"drift_{name}": DRIFT_DIR / f"{name}.jsonl" for name in dev_splits(DRIFT_DIR)},
               "probes": META_DIR / "dev.jsonl"}
MODEL_VERSION = 1
C = 16.0
MIN_DF = 2
PRUNE = 0.02
THRESHOLD = 0.5
PERSONA_WEIGHT = 1.0


def _load(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _strings(x: object) -> Iterator[str]:
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            if k != "dimension":  # DSM dimension labels ("이분법적 사고"): constructs, meta if spoken
                yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def persona_strings() -> list[str]:
    """Every non-blank string of the persona cards (ordinary client talk, card field values),
    except the DSM dimension labels (construct names; the guideline counts them as meta when a
    client says them)."""
    out: set[str] = set()
    for f in sorted(glob.glob(str(PERSONA_DIR / "*.json"))):
        for s in _strings(json.loads(Path(f).read_text(encoding="utf-8"))):
            if s.strip():
                out.add(s)
    return sorted(out)


def ordinary_negatives() -> list[str]:
    """Everyday talk of the other eval sets and banks: client lines before a counselor turn
    (evaluator dev splits), counselor turns, counselor question banks and the PII dev sentences
    except the newest pair (``PII_HELDOUT``, kept as the false-alarm check). Texts the rules
    already flag (counselor case notes) are left out: the model must not learn them as
    harmless."""
    from vignette_lab.core.guardrails import detect_ccd_meta_rules

    out: set[str] = set()
    for folder, names in ORDINARY_FILES:
        for name in names:
            for r in _load(EVAL_DIR / folder / name):
                out.update(x for x in (r.get("text"), r.get("client_prev"), r.get("counselor")) if isinstance(x, str))
    out.update(_strings(json.loads((ROOT / "datasets" / "counselor_banks.json").read_text(encoding="utf-8"))
                        .get("utterances", {})))
    out.update(r["text"] for r in _load(ROOT / "datasets" / "client_questions" / "bank.jsonl"))
    return sorted(t for t in out if sum("가" <= ch <= "힣" for ch in t) >= 2 and not detect_ccd_meta_rules(t))


def heldout_ordinary() -> list[str]:
    """PII dev sentences of the newest pair that no training source has (by normalised text):
    the false-alarm check."""
    seen = {normalise(t) for t in ordinary_negatives()}
    out: set[str] = set()
    for name in PII_HELDOUT:
        out.update(r["text"] for r in _load(EVAL_DIR / "pii" / name) if isinstance(r.get("text"), str))
    return sorted(t for t in out if normalise(t) not in seen)


def sources() -> dict[str, list[tuple[str, bool]]]:
    """Training texts by source, as ``(text, is_meta)``."""
    out: dict[str, list[tuple[str, bool]]] = {}
    for name, path in EVAL_SPLITS.items():
        if path.exists():
            out[name] = [(r["text"], bool(r["meta"])) for r in _load(path)]
    out["persona_negatives"] = [(s, False) for s in persona_strings()]
    out["ordinary_negatives"] = [(s, False) for s in ordinary_negatives()]
    pos, neg = generate()
    out["synthetic_positives"] = [(s, True) for s in pos]
    out["synthetic_negatives"] = [(s, False) for s in neg]
    return out


def merge(parts: Iterable[list[tuple[str, bool]]]) -> list[tuple[str, bool]]:
    """De-duplicate by normalised text; the first source naming a text wins (eval sets come first)."""
    seen: dict[str, tuple[str, bool]] = {}
    for part in parts:
        for text, label in part:
            seen.setdefault(normalise(text), (text, label))
    return [seen[k] for k in sorted(seen)]


def training_hash(rows: list[tuple[str, bool]]) -> str:
    """sha256 over the sorted ``label<TAB>normalised text`` lines of the training set."""
    lines = sorted(f"{int(lab)}\t{normalise(t)}" for t, lab in rows)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def fit(rows: list[tuple[str, bool]], *, c: float = C, min_df: int = MIN_DF) -> tuple[dict[str, float], float]:
    """Fit the logistic regression; returns ``(weights, bias)`` rounded and pruned.

    Persona-card strings weigh ``PERSONA_WEIGHT`` times: they are what the scripted client
    says (and the card fields), so none of them may ever be replaced by the fallback."""
    import numpy as np
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    feats = [features(t) for t, _ in rows]
    df: dict[str, int] = {}
    for fs in feats:
        for f in fs:
            df[f] = df.get(f, 0) + 1
    vocab = {f: i for i, f in enumerate(sorted(f for f, n in df.items() if n >= min_df))}
    data, indices, indptr = [], [], [0]
    for fs in feats:
        idx = sorted(vocab[f] for f in fs if f in vocab)
        val = 1.0 / math.sqrt(len(fs)) if fs else 0.0  # over all n-grams of the text, as at runtime
        indices += idx
        data += [val] * len(idx)
        indptr.append(len(indices))
    x = csr_matrix((np.array(data), np.array(indices, dtype=np.int64), np.array(indptr)), shape=(len(rows), len(vocab)))
    y = np.array([int(lab) for _, lab in rows])
    clf = LogisticRegression(C=c, solver="liblinear", class_weight="balanced", max_iter=1000, random_state=0)
    heavy = {normalise(t) for t in persona_strings()}
    clf.fit(x, y, sample_weight=np.array([PERSONA_WEIGHT if normalise(t) in heavy else 1.0 for t, _ in rows]))
    names = sorted(vocab, key=vocab.__getitem__)
    weights = {f: round(float(w), 4) for f, w in zip(names, clf.coef_[0]) if abs(w) >= PRUNE}
    return weights, round(float(clf.intercept_[0]), 4)


def build(*, c: float = C, min_df: int = MIN_DF, threshold: float = THRESHOLD) -> dict:
    """The weights-file content trained on every source."""
    src = sources()
    rows = merge(src.values())
    weights, bias = fit(rows, c=c, min_df=min_df)
    return {
        "format_version": FORMAT_VERSION,
        "model_version": MODEL_VERSION,
        "about": "meta-disclosure logistic regression over character n-grams; built by bench/build_meta_model.py",
        "training_hash": training_hash(rows),
        "training_counts": {k: len(v) for k, v in src.items()} | {"merged": len(rows),
                                                                  "meta": sum(lab for _, lab in rows)},
        "hyper": {"C": c, "min_df": min_df, "persona_weight": PERSONA_WEIGHT, "prune": PRUNE, "solver": "liblinear", "class_weight": "balanced"},
        "threshold": threshold,
        "bias": bias,
        "weights": dict(sorted(weights.items())),
    }


def dump(model: dict) -> str:
    """The file text (stable key order, one line per weight)."""
    head = {k: v for k, v in model.items() if k != "weights"}
    body = ",\n".join(f"  {json.dumps(k, ensure_ascii=False)}: {v}" for k, v in model["weights"].items())
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    return text + ',\n "weights": {\n' + body + "\n }\n}\n"


# ------------------------------------------------------------------ leave-one-split-out




def prf(gold: list[bool], pred: list[bool]) -> str:
    """``P k/n [ci] R k/n [ci]`` for one prediction list."""
    tp = sum(g and p for g, p in zip(gold, pred))
    fp = sum(p and not g for g, p in zip(gold, pred))
    fn = sum(g and not p for g, p in zip(gold, pred))
    pl, ph = wilson(tp, tp + fp)
    rl, rh = wilson(tp, tp + fn)
    prec = tp / (tp + fp) if tp + fp else float("nan")
    rec = tp / (tp + fn) if tp + fn else float("nan")
    return (f"P {prec:.3f} ({tp}/{tp + fp}) [{pl:.3f}, {ph:.3f}]  R {rec:.3f} ({tp}/{tp + fn}) "
            f"[{rl:.3f}, {rh:.3f}]  fp {fp} fn {fn}")


def ordinary_sentences() -> list[str]:
    """PII dev-set sentences (never meta, never trained on); same set as bench_drift."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_drift import ordinary_sentences as plain

    return plain()


def loso(*, c: float = C, min_df: int = MIN_DF, thresholds: tuple[float, ...] = (THRESHOLD,),
         holdouts: tuple[str, ...] | None = None, exclude: tuple[str, ...] = (),
         show_misses: bool = False) -> None:
    """Print leave-one-split-out figures (rules, model, rules OR model) per threshold."""
    from vignette_lab.core.guardrails import detect_ccd_meta_rules
    from vignette_lab.core.meta_model import MetaModel

    src = {k: v for k, v in sources().items() if k not in exclude}
    plain = heldout_ordinary()
    for held in holdouts or tuple(k for k in EVAL_SPLITS if k in src):
        rows = merge(v for k, v in src.items() if k != held)
        held_norm = {normalise(t) for t, _ in src[held]}
        rows = [(t, lab) for t, lab in rows if normalise(t) not in held_norm]
        weights, bias = fit(rows, c=c, min_df=min_df)
        test = src[held]
        gold = [lab for _, lab in test]
        rules = [bool(detect_ccd_meta_rules(t)) for t, _ in test]
        print(f"## held out {held} (n={len(test)}, meta {sum(gold)}); trained on {len(rows)} "
              f"({sum(lab for _, lab in rows)} meta), C={c}, min_df={min_df}, excluded {list(exclude)}")
        print(f"  rules            {prf(gold, rules)}")
        for th in thresholds:
            m = MetaModel(weights, bias, th, 0, "")
            model = [m.fires(t) for t, _ in test]
            both = [a or b for a, b in zip(rules, model)]
            fired = sum(m.fires(t) for t in plain)
            print(f"  model  th={th:.2f}  {prf(gold, model)}")
            print(f"  rules|model      {prf(gold, both)}   ordinary fires {fired}/{len(plain)}")
            if show_misses:
                for (text, lab), p in zip(test, both):
                    if lab != p:
                        print(f"    {'FN' if lab else 'FP'} {m.score(text):.2f} {text}")
                for text in plain:
                    if m.fires(text):
                        print(f"    ORD {m.score(text):.2f} {text}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare the shipped file with a rebuild")
    ap.add_argument("--loso", action="store_true", help="leave-one-split-out figures only")
    ap.add_argument("--holdout", action="append", help="with --loso: only this split (repeatable)")
    ap.add_argument("--exclude", action="append", default=[], help="with --loso: drop a source from training")
    ap.add_argument("--C", type=float, default=C)
    ap.add_argument("--min-df", type=int, default=MIN_DF)
    ap.add_argument("--th", type=float, action="append", help="with --loso: thresholds to report")
    ap.add_argument("--misses", action="store_true",
                    help="with --loso: print the held-out split's misses and the ordinary sentences the model fires on")
    args = ap.parse_args(argv)
    if args.loso:
        loso(c=args.C, min_df=args.min_df, thresholds=tuple(args.th or (THRESHOLD,)),
             holdouts=tuple(args.holdout) if args.holdout else None, exclude=tuple(args.exclude),
             show_misses=args.misses)
        return 0
    text = dump(build())
    if args.check:
        same = MODEL_PATH.exists() and MODEL_PATH.read_text(encoding="utf-8") == text
        print("shipped weights match a rebuild" if same else f"{MODEL_PATH} differs from a rebuild")
        return 0 if same else 1
    MODEL_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {MODEL_PATH.relative_to(ROOT)} ({len(text):,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
