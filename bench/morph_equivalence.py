"""Does the shared lean kiwipiepy analyser read our texts like the default ``Kiwi()``? (issue 16 B)

``vignette_lab.core.morph`` replaced three analysers (PII, client reading, KB sparse side) by one
built without the typo, multi-word and default dictionaries, ``cong`` model, one thread. The
PII gate used the same but with ``cong-global``; the client reading and the KB sparse side used
``Kiwi()``. This script reads every text those two consumers see — KB chunk texts, the
retrieval set's queries and passages, every client-probe line (all splits present, ``test``
included when it exists but never printed) and the persona cards' bank lines — and counts the
texts whose *consumer output* differs: the sparse terms (``KiwiSparseEncoder.terms``), the
content phrase (``content_phrase``) and the known-word check used for "unintelligible".

Run: ``PYTHONPATH=. .venv/bin/python bench/morph_equivalence.py [--json]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vignette_lab.core import morph  # noqa: E402
from vignette_lab.engines import client_reading  # noqa: E402
from vignette_lab.kb.embedders import KiwiSparseEncoder  # noqa: E402


def _strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def corpus() -> dict[str, list[str]]:
    """Texts per source (deduplicated); the held-out split is read only to run it, never shown."""
    from vignette_lab.kb.packs import load_packs

    out: dict[str, set[str]] = {"kb_chunks": set(), "retrieval_set": set(), "client_probes": set(),
                                "persona_cards": set()}
    try:
        for pack in load_packs(ROOT / "kb_sources"):
            for doc in pack.documents:
                out["kb_chunks"].update(t for t in _strings(doc.body) if t.strip())
    except Exception as exc:  # noqa: BLE001 — the other sources still count
        print(f"kb packs not read: {exc}", file=sys.stderr)
    for line in (ROOT / "bench" / "data" / "kb_retrieval_ko.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            out["retrieval_set"].update([item["query"], item["relevant"], *item["distractors"]])
    for path in sorted((ROOT / "datasets" / "eval" / "client_probes").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                out["client_probes"].update(t for t in [item.get("probe", ""), *item.get("warmup", [])] if t.strip())
    for path in sorted((ROOT / "datasets" / "personas").glob("*.json")):
        out["persona_cards"].update(t for t in _strings(json.loads(path.read_text(encoding="utf-8")))
                                    if len(t) >= 4 and any("가" <= c <= "힣" for c in t))
    return {k: sorted(v) for k, v in out.items()}


def outputs(texts: list[str]) -> list[tuple]:
    enc = KiwiSparseEncoder()
    client_reading._morphs.cache_clear()
    return [(tuple(enc.terms(t)), client_reading.content_phrase(t, max_words=6),
             client_reading._known_words(t)) for t in texts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    texts = corpus()
    t0 = time.process_time()
    lean = {k: outputs(v) for k, v in texts.items()}
    lean_cpu = time.process_time() - t0
    from kiwipiepy import Kiwi

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = Kiwi()
    morph._State.kiwi = default  # same consumers, the analyser they used before
    old = {k: outputs(v) for k, v in texts.items()}
    report = {}
    for name, items in texts.items():
        diff = [i for i in range(len(items)) if lean[name][i] != old[name][i]]
        per = [sum(lean[name][i][j] != old[name][i][j] for i in range(len(items))) for j in range(3)]
        report[name] = {"texts": len(items), "differ": len(diff), "sparse_terms": per[0], "content_phrase": per[1],
                        "known_words": per[2],
                        "examples": [] if name == "client_probes" else [items[i][:40] for i in diff[:3]]}
    report["lean_cpu_s"] = round(lean_cpu, 2)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    for name, r in report.items():
        print(name, r)


if __name__ == "__main__":
    main()
