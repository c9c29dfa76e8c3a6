"""Stage a round of independent authors' held-out files into ``datasets/eval/`` (the lead's step).

``docs/eval_authoring.md`` is the authors' contract: each author writes one folder (``src/``, a stdlib-only
``build_validate.py``, the built JSONL, ``README.md``). After every tuning branch of the round is merged, the
lead runs::

    python bench/stage_heldout.py /path/to/authors [--repo .]

where ``/path/to/authors`` holds any of the folders ``pii_a``, ``pii_b``, ``ev_a``, ``ev_b``, ``cp_a``,
``cp_b`` and ``drift``. For each evaluation set this writes ``test.jsonl`` (and ``clean_test.jsonl`` for
PII), ``README_test[_a|_b].md`` and ``src_test[_a|_b]/`` (the author's sources and builder), dropping every
item whose normalised text occurs in a dev file of the same set (PII: in any dev or clean-dev file) or,
once, in the other author's file; drift also drops a line equal to a dev line after removing all
punctuation and spaces ("네." / "네"). Normalised text is the contract's: NFC, lower-case, whitespace
collapsed, trailing ``.?!…~`` stripped (both the stripped and the unstripped-space variants are
compared, as ``tests/test_pii_corpus.py`` and ``tests/test_eval_splits.py`` compute them).

An existing held-out file is never overwritten (the previous round must first become ``dev_r*``);
every output file is written beside its target and renamed into place only after all sets were read
and checked, so a bad author file leaves nothing half-staged. Prints what was staged and dropped.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vignette_lab.engines.utterance_tagger import normalise_text as norm  # noqa: E402  (the contract's normalised text)

#: set folder under datasets/eval -> (output file, text field, dev glob, author folders, squash match)
SETS: dict[str, list[tuple[str, str, str, tuple[str, ...], bool]]] = {
    "pii": [("test.jsonl", "text", "*.jsonl", ("pii_a", "pii_b"), False),
            ("clean_test.jsonl", "text", "*.jsonl", ("pii_a", "pii_b"), False)],
    "evaluator": [("test.jsonl", "counselor", "dev*.jsonl", ("ev_a", "ev_b"), False)],
    "client_probes": [("test.jsonl", "probe", "dev*.jsonl", ("cp_a", "cp_b"), False)],
    "drift": [("test.jsonl", "text", "dev*.jsonl", ("drift",), True)],
}


class StageError(Exception):
    """A one-line reason naming the file (and line) that stopped the staging."""


def norm_tests(text: str) -> str:
    """As the split tests compute it (marks stripped after the spaces were collapsed, no final strip)."""
    return " ".join(unicodedata.normalize("NFC", text).lower().split()).rstrip(".?!…~")


def squash(text: str) -> str:
    """Normalised text without any punctuation or space (drift's short lines: "네." and "네 ")."""
    return re.sub(r"[\W_]+", "", norm(text))


def _rows(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StageError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
        if not isinstance(row, dict) or "id" not in row:
            raise StageError(f"{path}:{n}: not an object with an id")
        rows.append(row)
    return rows


def _keys(row: dict, field: str, path: Path, n: int) -> tuple[str, str, str]:
    text = row.get(field)
    if not isinstance(text, str) or not text.strip():
        raise StageError(f"{path}:{n}: field {field!r} missing or empty")
    return norm(text), norm_tests(text), squash(text)


def plan(authors: Path, repo: Path) -> tuple[list[tuple[Path, str]], list[tuple[Path, Path]], list[str]]:
    """What staging would write: (target, JSONL text) pairs, (source, target) copies — an author folder as
    source means its ``src/`` and ``build_validate.py`` — and the report lines."""
    eval_dir = repo / "datasets" / "eval"
    outputs: list[tuple[Path, str]] = []
    copies: list[tuple[Path, Path]] = []
    report: list[str] = []
    for set_name, files in SETS.items():
        present = [a for a in files[0][3] if (authors / a).is_dir()]
        if not present:
            continue
        folder = eval_dir / set_name
        for out_name, field, dev_glob, author_dirs, use_squash in files:
            target = folder / out_name
            if target.exists():
                raise StageError(f"{target}: a held-out file is already staged (rename it to dev_r* first)")
            seen: set[str] = set()
            squashed: set[str] = set()
            for dev in sorted(folder.glob(dev_glob)):
                if "test" in dev.name:
                    continue
                for n, row in enumerate(_rows(dev), 1):
                    a, b, c = _keys(row, field, dev, n)
                    seen.update((a, b))
                    squashed.add(c)
            kept: list[dict] = []
            dropped: list[str] = []
            for author in author_dirs:
                src = authors / author / out_name
                if not (authors / author).is_dir():
                    continue
                if not src.is_file():
                    raise StageError(f"{src}: missing (the author folder has no {out_name})")
                for n, row in enumerate(_rows(src), 1):
                    a, b, c = _keys(row, field, src, n)
                    if a in seen or b in seen or (use_squash and c in squashed):
                        dropped.append(str(row["id"]))
                        continue
                    seen.update((a, b))
                    squashed.add(c)
                    kept.append(row)
            outputs.append((target, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept)))
            report.append(f"{set_name}/{out_name}: {len(kept)} staged, {len(dropped)} dropped"
                          + (f" ({', '.join(dropped[:12])}{' …' if len(dropped) > 12 else ''})" if dropped else ""))
        for author in present:
            suffix = "" if len(files[0][3]) == 1 else "_" + author.rsplit("_", 1)[-1]
            for name in ("README.md", "src", "build_validate.py"):
                if not (authors / author / name).exists():
                    raise StageError(f"{authors / author / name}: missing (every author folder has README.md, src/ and "
                                     "build_validate.py)")
            for dst in (folder / f"README_test{suffix}.md", folder / f"src_test{suffix}"):
                if dst.exists():
                    raise StageError(f"{dst}: already exists (rename the previous round to dev_r* first)")
            copies.append((authors / author / "README.md", folder / f"README_test{suffix}.md"))
            copies.append((authors / author, folder / f"src_test{suffix}"))
    if not outputs:
        raise StageError(f"{authors}: no author folder found (expected any of pii_a, pii_b, ev_a, ev_b, cp_a, cp_b, drift)")
    return outputs, copies, report


def stage(authors: Path, repo: Path) -> list[str]:
    """Stage everything or nothing; return the report lines."""
    outputs, copies, report = plan(authors, repo)
    temps: list[tuple[Path, Path]] = []
    try:
        for target, text in outputs:
            tmp = target.with_name(f".{target.name}.staging")
            temps.append((tmp, target))
            tmp.write_text(text, encoding="utf-8")
        for src, dst in copies:
            tmp = dst.with_name(f".{dst.name}.staging")
            shutil.rmtree(tmp, ignore_errors=True)  # left by an interrupted earlier run
            temps.append((tmp, dst))
            if src.is_dir():  # the author's sources and builder: src/ + build_validate.py
                tmp.mkdir()
                shutil.copytree(src / "src", tmp / "src", ignore=shutil.ignore_patterns("__pycache__"))
                shutil.copy(src / "build_validate.py", tmp / "build_validate.py")
            else:
                shutil.copy(src, tmp)
    except OSError as exc:
        for tmp, _ in temps:
            if tmp.is_dir():
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                tmp.unlink(missing_ok=True)
        raise StageError(f"{exc.filename}: {exc.strerror}") from None
    for tmp, dst in temps:
        tmp.replace(dst)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("authors", type=Path, help="folder holding the author folders (pii_a, ev_b, drift, …)")
    ap.add_argument("--repo", type=Path, default=ROOT, help="checkout to stage into (default: this one)")
    args = ap.parse_args(argv)
    try:
        for line in stage(args.authors, args.repo):
            print(line)
    except StageError as exc:
        print(f"stage_heldout: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
