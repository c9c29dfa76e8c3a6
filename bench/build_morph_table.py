"""Build ``vignette_lab/core/morph_table.json``: kiwipiepy's analyses of the strings the PII gate
asks morphology about in ordinary text, so a first text made only of them loads no analyser.

The gate asks kiwipiepy about single words (name candidates), a word with the one before it, and
unspaced runs. Loading the analyser costs about 1 s CPU in a fresh process (more than the
whole ≤ 1.0 s first-mask budget), yet most of what the gate asks about on a first text is common
words (``친구가``, ``엄마가``, ``선생님은``). This script masks the build material (below) with
every per-text cache emptied, records each string the gate asks about, drops every string that
overlaps a labelled PII value of its row or a span the gate masks in its text, or that holds any
labelled value of any row or a persona's name (even a common word such as 하늘), and stores
kiwipiepy's own analysis of the rest with the kiwipiepy/model versions and analyser options.
:func:`vignette_lab.core.morph.tokens` uses the table only when all three match what is
installed, so the gate's answers are kiwipiepy's either way; only when the load is paid differs.

Build material (public project material and dev splits only; no ``test`` split, no user text):
``datasets/eval/pii`` dev and clean dev files, persona cards and the counselor bank, the
evaluator dev files' counselor and client lines, the client-probe dev files' lines, the
client-question bank (``datasets/client_questions/bank.jsonl``).

Usage::

    python bench/build_morph_table.py               # write the table
    python bench/build_morph_table.py --exclude-r5  # leave out the round-5 dev files (for the
                                                    # leave-one-split-out coverage figure)
    python bench/build_morph_table.py --coverage    # share of texts whose first mask still needs
                                                    # the analyser, per PII data file (and per
                                                    # test split, when present: held out)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from vignette_lab.core import morph, name_model, pii  # noqa: E402

PII_DIR = ROOT / "datasets" / "eval" / "pii"
R5_FILES = ("dev_r5.jsonl", "clean_dev_r5.jsonl")


def _jsonl(path: Path) -> Iterator[dict]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def pii_files(*, exclude_r5: bool = False) -> list[Path]:
    """The PII dev and clean dev files (never a test split)."""
    return [p for p in sorted(PII_DIR.glob("*.jsonl"))
            if "test" not in p.name and not (exclude_r5 and p.name in R5_FILES)]


def build_rows(*, exclude_r5: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    """(text, labelled PII values) of every build text."""
    from test_pii_corpus import material_lines

    rows: list[tuple[str, tuple[str, ...]]] = []
    for path in pii_files(exclude_r5=exclude_r5):
        rows += [(r["text"], tuple(r.get("pii", ()))) for r in _jsonl(path)]
    rows += [(t, ()) for t in material_lines()]
    for name, fields in (("evaluator", ("counselor", "client_prev")), ("client_probes", ("probe", "warmup"))):
        for path in sorted((ROOT / "datasets" / "eval" / name).glob("dev*.jsonl")):
            for r in _jsonl(path):
                for f in fields:
                    vals = r.get(f) or []
                    rows += [(v, ()) for v in ([vals] if isinstance(vals, str) else vals) if isinstance(v, str) and v]
    bank = ROOT / "datasets" / "client_questions" / "bank.jsonl"
    if bank.exists():
        rows += [(r["text"], ()) for r in _jsonl(bank) if isinstance(r.get("text"), str)]
    return rows


def _clear_text_caches() -> None:
    for mod in (pii, name_model):
        for value in vars(mod).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


class _Recorder:
    """Stands in for :func:`morph.tokens` during a build: records what is asked, asks kiwipiepy."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, text: str):  # noqa: ANN204
        self.asked.append(text)
        return morph.analyse(text)


def asked_per_text(texts: list[str]) -> list[list[str]]:
    """The strings the gate asks morphology about for each text's first mask (caches emptied)."""
    rec = _Recorder()
    real = morph.tokens
    morph.tokens = rec
    try:
        out = []
        for t in texts:
            _clear_text_caches()
            rec.asked = []
            for backend in ("regex", "presidio"):
                pii.mask_pii(t, backend=backend)
            out.append(list(dict.fromkeys(rec.asked)))
        return out
    finally:
        morph.tokens = real
        _clear_text_caches()


def _squash(s: str) -> str:
    return "".join(s.split())


def build(*, exclude_r5: bool = False) -> dict:
    rows = build_rows(exclude_r5=exclude_r5)
    texts = [t for t, _ in rows]
    asked = asked_per_text(texts)
    # every labelled value of any row and every persona name: a string holding one is left out
    # even where it is a common word (하늘, 지원), so the table holds no name-bearing string
    anywhere = {_squash(v) for _, values in rows for v in values if len(_squash(v)) >= 2}
    for p in sorted((ROOT / "datasets" / "personas").glob("*.json")):
        card = json.loads(p.read_text(encoding="utf-8"))
        for key in ("display_name", "name"):
            if isinstance(card.get(key), str) and len(_squash(card[key])) >= 2:
                anywhere.add(_squash(card[key]))
    keep: set[str] = set()
    for (text, values), strings in zip(rows, asked):
        masked = [text[e.start:e.end] for e in pii.mask_pii(text, backend="regex").entities]
        private = [_squash(v) for v in (*values, *masked) if _squash(v)]
        for s in strings:
            q = _squash(s)
            if not any(v in q or q in v for v in private) and not any(v in q for v in anywhere):
                keep.add(s)
    entries = {s: [list(t) for t in morph.analyse(s) or ()] for s in sorted(keep)}
    return {"about": "kiwipiepy analyses of common strings the PII gate asks about; bench/build_morph_table.py",
            "versions": morph._installed_versions(), "options": morph.KIWI_OPTIONS, "entries": entries}


def coverage(table_keys: set[str], files: list[Path]) -> list[tuple[str, int, int]]:
    """Per file: texts whose first mask asks for a string outside the table, and all texts."""
    out = []
    for path in files:
        texts = [r["text"] for r in _jsonl(path)]
        asked = asked_per_text(texts)
        out.append((path.name, sum(1 for a in asked if any(s not in table_keys for s in a)), len(texts)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exclude-r5", action="store_true", help="leave the round-5 dev files out of the build")
    ap.add_argument("--coverage", action="store_true", help="print the share of texts that still need kiwipiepy")
    ap.add_argument("--out", type=Path, default=morph.TABLE_PATH)
    args = ap.parse_args(argv)
    if morph.kiwi() is None:
        print(f"kiwipiepy could not load: {morph.load_error()}", file=sys.stderr)
        return 1
    doc = build(exclude_r5=args.exclude_r5)
    if args.coverage:
        from _stats import wilson  # noqa: E402

        keys = set(doc["entries"])
        tot_n = tot = 0
        # held-out splits the lead adds after the merge (never part of the build): scored when present
        held_out = [PII_DIR / name for name in ("test.jsonl", "clean_test.jsonl") if (PII_DIR / name).exists()]
        for name, n, total in coverage(keys, pii_files() + held_out):
            lo, hi = wilson(n, total)
            print(f"{name:24s} still need kiwipiepy {n:4d}/{total:4d} = {n / total:.3f} [{lo:.3f}, {hi:.3f}]")
            tot_n, tot = tot_n + n, tot + total
        lo, hi = wilson(tot_n, tot)
        print(f"{'all':24s} still need kiwipiepy {tot_n:4d}/{tot:4d} = {tot_n / tot:.3f} [{lo:.3f}, {hi:.3f}]")
        print(f"table: {len(keys)} strings (built {'without' if args.exclude_r5 else 'with'} the r5 files)")
        return 0
    args.out.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n",
                        encoding="utf-8")
    print(f"{len(doc['entries'])} analyses written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
