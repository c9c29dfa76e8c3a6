"""Write datasets/eval/pii/clean_dev.jsonl from hand-written sentences (sections marked with '#').

The sentences are ordinary counseling talk that masking must leave byte-for-byte unchanged.
Usage: python scripts/make_pii_clean_dev.py [SOURCE.txt ...] (default: scripts/pii_clean_dev_src/*.txt)  (one sentence a line, '#note' lines
start a section whose title becomes each sentence's note). Deduplicated by normalised text.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "datasets" / "eval" / "pii" / "clean_dev.jsonl"


def _norm(t: str) -> str:
    return " ".join(unicodedata.normalize("NFC", t).lower().split()).rstrip(".?!…~")


def main(paths: list[str]) -> int:
    rows, seen, note = [], set(), ""
    for p in paths:
        for line in Path(p).read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                note = line[1:].strip()
                continue
            if _norm(line) in seen:
                continue
            seen.add(_norm(line))
            rows.append({"id": f"clean-d-{len(rows) + 1:04d}", "text": line, "note": note})
    with OUT.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(rows)} sentences -> {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    src = sys.argv[1:] or sorted(str(p) for p in (Path(__file__).parent / "pii_clean_dev_src").glob("*.txt"))
    raise SystemExit(main(src))
