"""Build ``datasets/client_questions/bank.jsonl``: the topic-tagged question bank the client reads with.

Sources (each row keeps its ``src`` so a bench can leave one split out):

* ``hand`` — ``datasets/client_questions/hand.tsv``, written by the implementer;
* ``dev``, ``dev_r1`` … — every dev split's fact probes of ``datasets/eval/client_probes/<split>.jsonl``
  (their ``fact`` label mapped to a ``script.facts`` key by :data:`LABEL_TO_KEY`; labels with no card
  fact are skipped), and their warm-up lines as ``none`` (talk that asks for no fact) unless the
  line is itself a probe. The held-out ``test.jsonl`` is never read.

Rows are deduplicated by normalised text (the first source wins, in the order above).

Run: ``PYTHONPATH=. .venv/bin/python bench/build_question_bank.py``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vignette_lab.core.eval_splits import dev_splits  # noqa: E402
from vignette_lab.engines.client_reading import FACT_KEYS, normalise  # noqa: E402

PROBES = ROOT / "datasets" / "eval" / "client_probes"
OUT = ROOT / "datasets" / "client_questions" / "bank.jsonl"
HAND = ROOT / "datasets" / "client_questions" / "hand.tsv"
DEV_SPLITS = dev_splits(PROBES)
# Probe authors name facts freely; these are the card keys they mean (None: no card fact).
LABEL_TO_KEY = {"job": "grade", "tenure": "grade", "work": "school", "subject": "school", "referral": "reason",
                "worry": "reason", "sibling_age": "siblings", "sibling": "siblings", "siblings_rel": "siblings",
                "father": "family", "child_father": "family", "hospitals": "medical", "body": "medical",
                "child_age": "child", "child_sex": "child", "parents_want": "parents_wish", "goal": "want",
                "free_time": "hobby", "support": "friends", "symptoms": None, "thoughts": None,
                "recent_event": None, "career": "want", "test_result": "aptitude",
                # round-4 author labels
                "health": "medical", "partner": "family", "parenting": "child",
                # round-5 author labels
                "rank": "school", "transfers": "transfer", "dream": "want",
                # round-7 author labels (None: answered from the persona's lines, not one card fact)
                "grades": "school", "work_stress": None, "exam_result": None, "groupchat": None,
                # round-8 author labels
                "sister": "siblings", "parents": "family", "art": "school", "exam": "school",
                # round-9 author labels
                "moves": "transfer", "aptitude_test": "aptitude", "family_of_origin": "family", "midterm": "school",
                "teacher": "school"}


def rows() -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    seen: set[str] = set()

    def add(key: str | None, text: str, src: str) -> None:
        norm = normalise(text)
        if key is None or not norm or norm in seen:
            return
        if key != "none" and key not in FACT_KEYS:
            raise SystemExit(f"{src}: fact key {key!r} is not one of FACT_KEYS")
        seen.add(norm)
        out.append({"key": key, "text": text.strip(), "src": src})

    for no, line in enumerate(HAND.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        key, sep, text = line.partition("\t")
        if not sep:
            raise SystemExit(f"{HAND}:{no}: expected 'key<TAB>question'")
        add(key.strip(), text, "hand")
    for split in DEV_SPLITS:
        path = PROBES / f"{split}.jsonl"
        if not path.exists():
            continue
        probes = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        probe_texts = {normalise(p["probe"]) for p in probes}
        for p in probes:
            if p["kind"] == "fact":
                label = p.get("fact") or ""
                add(LABEL_TO_KEY.get(label, label) if label not in FACT_KEYS else label, p["probe"], split)
        for p in probes:
            for w in p.get("warmup") or ():
                if normalise(w) not in probe_texts:
                    add("none", w, split)
    return out


def main() -> int:
    data = rows()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in data), encoding="utf-8")
    by_src: dict[str, int] = {}
    for r in data:
        by_src[r["src"]] = by_src.get(r["src"], 0) + 1
    print(f"{OUT}: {len(data)} rows", by_src)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
