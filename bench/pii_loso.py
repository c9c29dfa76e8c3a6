"""PII recall leave-one-split-out over the author splits: the learned name model retrained without
the split it scores.

Usage::

    python bench/pii_loso.py                      # dev_r4 … the newest dev split (one author each, or A/B)
    python bench/pii_loso.py dev_r7               # one split

For each split, ``bench/train_name_model.py --exclude SPLIT`` builds a model that never saw the split
(nor its clean file), and the split is scored with it (regex backend; both backends find identical
spans): recall per category and per author with Wilson 95 % CIs, and clean alterations. The pattern
rules were written with every dev split in view except where the RESULTS section says otherwise
(round 7: dev_r7 was first scored with the cue-anchored recogniser before its misses were read),
so only the name model's part of these figures is strictly held out.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _stats import wilson  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_pii_corpus import CATEGORIES, PII_DIR, _jsonl  # noqa: E402

from vignette_lab.core import name_model, pii  # noqa: E402
from vignette_lab.core.eval_splits import dev_splits, split_round  # noqa: E402
from vignette_lab.core.pii import mask_pii  # noqa: E402

#: the author splits (dev_r4 on; the earlier ones were written partly by the tuners)
SPLITS = tuple(s for s in dev_splits(PII_DIR) if (split_round(s) or 0) >= 4)


def _author(row_id: str) -> str:
    return row_id.split("-")[1]


def score_split(split: str) -> list[str]:
    rows = _jsonl(PII_DIR / f"{split}.jsonl")
    clean = _jsonl(PII_DIR / f"clean_{split}.jsonl")
    hit, tot, ahit, atot, alt = Counter(), Counter(), Counter(), Counter(), Counter()
    for r in rows:
        masked = mask_pii(r["text"], backend="regex").text
        ok = not any(v in masked for v in r["pii"])
        tot[r["category"]] += 1
        hit[r["category"]] += ok
        atot[_author(r["id"])] += 1
        ahit[_author(r["id"])] += ok
    for r in clean:
        alt[_author(r["id"])] += mask_pii(r["text"], backend="regex").text != r["text"]
    k, n = sum(hit.values()), sum(tot.values())
    lo, hi = wilson(k, n)
    out = [f"## {split} (name model trained without it)",
           f"overall {k} / {n} = {k / n:.3f} [{lo:.3f}, {hi:.3f}]; clean altered {sum(alt.values())} / {len(clean)}"]
    for a in sorted(atot):
        lo, hi = wilson(ahit[a], atot[a])
        out.append(f"  author {a}: {ahit[a]} / {atot[a]} = {ahit[a] / atot[a]:.3f} [{lo:.3f}, {hi:.3f}]; "
                   f"clean altered {alt[a]}")
    out.append("  " + ", ".join(f"{c} {hit[c]}/{tot[c]}" for c in CATEGORIES if tot[c]))
    return out


def main(argv: list[str]) -> int:
    splits = argv or list(SPLITS)
    with tempfile.TemporaryDirectory() as tmp:
        for split in splits:
            out = Path(tmp) / f"name_model_{split}.json"
            subprocess.run([sys.executable, str(ROOT / "bench" / "train_name_model.py"), "--exclude", split, "--out", str(out)],
                           check=True, cwd=ROOT, capture_output=True)
            name_model.load_model(path=out)
            for cache in (pii._name_spans_cached, pii._respaced_entities_cached, name_model._scored):
                cache.cache_clear()
            print("\n".join(score_split(split)))
    name_model.load_model()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
