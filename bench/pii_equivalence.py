"""Byte-for-byte check that a change to the PII gate's driver masks exactly what the old code did.

Speed work on :mod:`vignette_lab.core.pii` (loading, caching, pre-filters, order of checks,
compiled patterns) must not change a single masked span. This script masks every text of every
PII data file (``datasets/eval/pii/*.jsonl``: dev, clean and, when present, test splits), every
persona-card and counselor-bank line, with both backends, in a fresh process per code version,
and compares the masked text, the entity list (type, start, end, score) and the backend name.

Usage::

    python bench/pii_equivalence.py --ref main         # this tree against git revision ``main``
    python bench/pii_equivalence.py --snapshot out.jsonl  # write this tree's snapshot only

``--ref`` extracts the revision with ``git archive`` into a temporary directory (no worktree, no
change to the repository), runs the same snapshot there and prints the number of differences
(exit status 1 when there is any). The texts are always read from *this* tree, so both versions
mask the same inputs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PII_DIR = ROOT / "datasets" / "eval" / "pii"

#: run inside the code version under test: reads texts from argv[1], writes one line per text
_SNAPSHOT = r"""
import json, sys
from vignette_lab.core.pii import mask_pii
texts = json.loads(open(sys.argv[1], encoding="utf-8").read())
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for backend in ("regex", "presidio"):
        for t in texts:
            r = mask_pii(t, backend=backend)
            out.write(json.dumps([backend, r.text, r.backend, [[e.type, e.start, e.end, e.score, e.placeholder]
                                                              for e in r.entities]], ensure_ascii=False) + "\n")
"""


def corpus_texts() -> list[str]:
    """Every text the check masks: each PII data file's ``text`` field, then the training material."""
    texts: list[str] = []
    for path in sorted(PII_DIR.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.append(json.loads(line)["text"])
    sys.path.insert(0, str(ROOT / "tests"))
    from test_pii_corpus import material_lines  # noqa: E402  (persona cards + counselor bank)

    return texts + material_lines()


def snapshot(code_root: Path, texts_file: Path, out: Path) -> None:
    """Mask every text with the code under ``code_root`` in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "VIGNETTE_PII_BACKEND"}
    env.update(PYTHONPATH=str(code_root), TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="")
    subprocess.run([sys.executable, "-c", _SNAPSHOT, str(texts_file), str(out)], env=env, check=True, cwd=code_root)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--ref", help="git revision to compare this tree against (e.g. main)")
    group.add_argument("--snapshot", type=Path, help="write this tree's snapshot to this file")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pii-eq-") as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts = corpus_texts()
        texts_file.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
        if args.snapshot:
            snapshot(ROOT, texts_file, args.snapshot)
            print(f"{len(texts)} texts × 2 backends written to {args.snapshot}")
            return 0
        ref_root = Path(tmp) / "ref"
        ref_root.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(ref_root)], input=archive, check=True)
        new, old = Path(tmp) / "new.jsonl", Path(tmp) / "old.jsonl"
        snapshot(ROOT, texts_file, new)
        snapshot(ref_root, texts_file, old)
        a = new.read_text(encoding="utf-8").splitlines()
        b = old.read_text(encoding="utf-8").splitlines()
        diffs = [(x, y) for x, y in zip(a, b) if x != y]
        print(f"{len(texts)} texts × 2 backends; this tree vs {args.ref}: {len(diffs)} differences"
              f"{'' if len(a) == len(b) else f' (line counts {len(a)} vs {len(b)})'}")
        for x, y in diffs[:20]:
            print(f"  new: {x}\n  old: {y}")
        return int(bool(diffs) or len(a) != len(b))


if __name__ == "__main__":
    raise SystemExit(main())
