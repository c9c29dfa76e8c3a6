"""How often does a first ``mask_pii`` *need* kiwipiepy? (issue 13 item 4, "Fast")

kiwipiepy's own load (≈ 1.0-1.4 CPU s in a fresh process here) is over the 1.0 s first-mask budget
by itself, so the budget can only be met for a text whose name decisions the cheap stages take
without it. This script masks every text of the PII dev and clean dev files from empty per-text
caches (both backends, as ``bench/build_morph_table.py --coverage`` does), records every string the
gate asks morphology about and who asked (the function that called :func:`morph.tokens`), and
sorts each text into:

* ``none``: asks morphology nothing (the cue pre-checks and the name model's bound dismissed every
  candidate);
* ``table``: asks only strings the shipped analyses (``core/morph_table.json``) hold;
* ``kiwi``: asks at least one string outside the table, so its first mask loads kiwipiepy. These
  are split by who asked (the learned name model alone, or a cue rule) and by whether a string it
  asked holds a labelled PII value of its row (a name the table may never hold).

It also checks the one exact shortcut left for the learned model: a candidate whose score without
morphology plus the *lowest* total the morphology features can add is already over the threshold
is a name whatever kiwipiepy says (the upper bound already dismisses candidates; this is the
other side). The count of such candidates tells whether that shortcut would decide any line.

Figures are on dev material (the table is built from these very files: in-sample). Usage::

    python bench/first_mask_need.py            # every PII dev + clean dev file
    python bench/first_mask_need.py --examples 5
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_morph_table as table_builder  # noqa: E402
from _stats import wilson  # noqa: E402

from vignette_lab.core import morph, name_model, pii  # noqa: E402

#: frames between :func:`morph.tokens` and the function that decided to ask (plumbing, not askers)
_PLUMBING = frozenset({"_morph_at", "word_tokens", "tokens_or_warn", "_tokens", "_tokenize_window", "_context_tokens",
                       "_morph", "_recorder", "<genexpr>", "<listcomp>", "<lambda>"})


def _asker(frame) -> str:  # noqa: ANN001 — a frame object
    names: list[str] = []
    while frame is not None and len(names) < 16:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    if "_morph_features" in names:
        return "name model"
    return next((n for n in names if n not in _PLUMBING), "?")


def classify(texts_and_values: list[tuple[str, tuple[str, ...]]], keys: set[str]) -> tuple[Counter, Counter, list]:
    """Per text: none | table | kiwi (with sub-counts); askers of the lines that need kiwipiepy."""
    asked: list[tuple[str, str]] = []
    real = morph.tokens

    def _recorder(text: str):  # noqa: ANN202
        asked.append((text, _asker(sys._getframe(1))))
        return real(text)

    morph.tokens = _recorder
    counts: Counter = Counter()
    askers: Counter = Counter()
    examples: list = []
    try:
        for text, values in texts_and_values:
            table_builder._clear_text_caches()
            morph.word_tokens.cache_clear()
            asked.clear()
            for backend in ("regex", "presidio"):
                pii.mask_pii(text, backend=backend)
            missing = [(s, who) for s, who in asked if s not in keys]
            counts["n"] += 1
            if not asked:
                counts["none"] += 1
            elif not missing:
                counts["table"] += 1
            else:
                counts["kiwi"] += 1
                who = {w for _, w in missing}
                askers.update(who)
                counts["kiwi: name model only" if who == {"name model"} else "kiwi: a cue rule asks"] += 1
                squashed = ["".join(v.split()) for v in values if len("".join(v.split())) >= 2]
                if any(v in "".join(s.split()) or "".join(s.split()) in v for s, _ in missing for v in squashed):
                    counts["kiwi: asks about a labelled value"] += 1
                examples.append((text, sorted({s for s, _ in missing}), sorted(who)))
    finally:
        morph.tokens = real
        table_builder._clear_text_caches()
    return counts, askers, examples


def lower_bound_decisions(texts: list[str], keys: set[str]) -> Counter:
    """Name-model candidates that would go to kiwipiepy, and how many of them the lowest possible
    morphology total would already put over the threshold (an exact "yes" without asking)."""
    name_model.load_model()
    w = name_model._Model.weights or {}
    lowest = sum(min(0.0, v) for n, v in w.items() if n.startswith("m"))
    out: Counter = Counter()
    for text in texts:
        for s, k, e in name_model.candidates(text, name_model._Model.name_syllables):
            word = text[s:e]
            v = name_model._word_score(word, k) + sum(w.get(x, 0.0) for x in name_model._context_features(text, s, k, e))
            if v + name_model._MAX_MORPH[k] < name_model._Model.threshold or word in keys:
                continue
            out["asked"] += 1
            out["decided yes by the lower bound"] += int(v + lowest >= name_model._Model.threshold)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=0, help="print N lines that need kiwipiepy per file")
    args = ap.parse_args(argv)
    keys = set(morph._read_table())
    print(f"shipped analyses: {morph.table_info()}")
    groups: dict[str, Counter] = {"clean dev files": Counter(), "PII dev files": Counter()}
    all_askers: Counter = Counter()
    all_texts: list[str] = []
    for path in table_builder.pii_files():
        rows = [(r["text"], tuple(r.get("pii", ()))) for r in table_builder._jsonl(path)]
        all_texts += [t for t, _ in rows]
        counts, askers, examples = classify(rows, keys)
        groups["clean dev files" if path.name.startswith("clean") else "PII dev files"].update(counts)
        all_askers.update(askers)
        n, k = counts["n"], counts["kiwi"]
        lo, hi = wilson(k, n)
        print(f"{path.name:20s} n {n:4d}  none {counts['none']:4d}  table {counts['table']:4d}  "
              f"kiwi {k:4d} = {k / n:.3f} [{lo:.3f}, {hi:.3f}]  (name model only {counts['kiwi: name model only']}, "
              f"asks about a labelled value {counts['kiwi: asks about a labelled value']})")
        for text, strings, who in examples[:args.examples]:
            print(f"    {text!r}: {strings} ({', '.join(who)})")
    total: Counter = Counter()
    for name, counts in groups.items():
        total.update(counts)
        n, k = counts["n"], counts["kiwi"]
        lo, hi = wilson(k, n)
        print(f"{name}: {k} / {n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}] need kiwipiepy; none {counts['none']}, "
              f"table {counts['table']}; of the {k}: name model only {counts['kiwi: name model only']}, "
              f"a cue rule asks {counts['kiwi: a cue rule asks']}, asks about a labelled value "
              f"{counts['kiwi: asks about a labelled value']}")
    n, k = total["n"], total["kiwi"]
    lo, hi = wilson(k, n)
    print(f"all: {k} / {n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}] need kiwipiepy")
    print("who asks, lines that need kiwipiepy:", ", ".join(f"{w} {c}" for w, c in all_askers.most_common()))
    lb = lower_bound_decisions(all_texts, keys)
    print(f"name-model candidates sent to kiwipiepy: {lb['asked']}; decided 'name' by the lowest morphology "
          f"total alone: {lb['decided yes by the lower bound']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
