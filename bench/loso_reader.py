"""Leave-one-split-out for the client's question reader thresholds (issue 12, rounds 5–7).

The scripted client decides from the question bank (:mod:`vignette_lab.engines.fact_reader`) with
a few similarity thresholds (:mod:`vignette_lab.engines.client_reading`: ``BANK_MIN_SIM``,
``BANK_MIN_SIM_ASKED``, ``BANK_OVERRULE_SIM``; :mod:`vignette_lab.engines.scripted_client`:
``FIRM_RECHECK_SIM``). This bench asks whether the shipped values were chosen on the data they are
scored on. It scores only the **reading** (no sessions, so it is fast):

* a fact probe is read right when the turn is read as a fact question and the fact read (after
  the card check, :func:`refine_by_content`) is the probe author's label (mapped to a card key by
  ``bench/build_question_bank.py``'s ``LABEL_TO_KEY``; labels with no card fact are skipped);
* any other probe (closing, off-topic, greeting, joke …, not meta/SI/long) is read right when it
  is *not* read as a fact question.

Folds: each author split ``dev_r1`` … (every dev split but ``dev``) is held out in turn. Inside a fold the thresholds
are chosen on the other splits, each scored with a bank built without it *and* without the
held-out split (nested, so no tuning split meets its own rows in the bank); the chosen values then
score the held-out split with a bank without it. The shipped values are scored the same way.
``test.jsonl`` is never read.

Run: ``PYTHONPATH=. .venv/bin/python bench/loso_reader.py [--out FILE.json]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ helpers, also when loaded by path
from _stats import wilson  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from build_question_bank import LABEL_TO_KEY  # noqa: E402

from vignette_lab.core.eval_splits import dev_splits  # noqa: E402
from vignette_lab.core.personas import load_personas  # noqa: E402
from vignette_lab.engines import client_reading as cr  # noqa: E402
from vignette_lab.engines import scripted_client as sc  # noqa: E402
from vignette_lab.engines.fact_reader import FactReader, load_bank, use_reader  # noqa: E402

PROBES = ROOT / "datasets" / "eval" / "client_probes"
SPLITS = tuple(s for s in dev_splits(PROBES) if s != "dev")
GRID = {
    "BANK_MIN_SIM": (0.3, 0.35, 0.4, 0.5),
    "BANK_MIN_SIM_ASKED": (0.2, 0.25, 0.3, 0.4),
    "BANK_OVERRULE_SIM": (0.6, 0.7, 0.8),
    "FIRM_RECHECK_SIM": (0.4, 0.5, 0.6),
}
_SKIP_KINDS = ("meta", "si_screen", "long_input", "repeat")


def _items(split: str) -> list[dict[str, Any]]:
    out = []
    for line in (PROBES / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        p = json.loads(line)
        if p["kind"] in _SKIP_KINDS:
            continue
        if p["kind"] == "fact":
            label = p.get("fact") or ""
            key = label if label in cr.FACT_KEYS else LABEL_TO_KEY.get(label, label)
            if key not in cr.FACT_KEYS:
                continue
            p = dict(p, key=key)
        out.append(p)
    return out


def _set(config: dict[str, float]) -> None:
    for name, value in config.items():
        setattr(sc if name == "FIRM_RECHECK_SIM" else cr, name, value)


def score(items: list[dict[str, Any]], cards: dict[str, Any]) -> tuple[int, int]:
    """Probes read right, of all scored."""
    ok = 0
    for p in items:
        turn = len(p.get("warmup") or ()) + 1
        act = cr.read_act(p["probe"], turn_seq=turn)
        if p["kind"] == "fact":
            script = cards[p["persona"]]
            key = sc.refine_by_content(script, p["probe"], cr.read_fact(p["probe"])) if act == "fact" else None
            ok += int(key == p["key"])
        else:
            ok += int(act != "fact")
    return ok, len(items)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    cards = {code: card.client_visible_dict()["script"] for code, card in load_personas().items()}
    items = {s: _items(s) for s in SPLITS}
    shipped = {name: getattr(sc if name == "FIRM_RECHECK_SIM" else cr, name) for name in GRID}
    configs = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    # scores[(held_out, scored)][config index]: bank without held_out and scored (same when equal)
    cache: dict[tuple[str, str], list[tuple[int, int]]] = {}

    def table(left_out: tuple[str, ...], scored: str) -> list[tuple[int, int]]:
        key = (tuple(sorted(set(left_out))), scored)
        if key not in cache:
            use_reader(FactReader(load_bank(exclude_sources=key[0])))
            rows = []
            for config in configs + [shipped]:
                _set(config)
                rows.append(score(items[scored], cards))
            cache[key] = rows
        return cache[key]

    report: dict[str, Any] = {"shipped": shipped, "folds": {}}
    try:
        for held in SPLITS:
            tuning = [s for s in SPLITS if s != held]
            totals = [sum(table((held, t), t)[i][0] for t in tuning) for i in range(len(configs))]
            best = max(range(len(configs)), key=lambda i: (totals[i], -abs(i - len(configs) // 2)))
            chosen = configs[best]
            k_chosen, n = table((held,), held)[best]
            k_shipped, _ = table((held,), held)[-1]
            n_tune = sum(table((held, t), t)[best][1] for t in tuning)
            report["folds"][held] = {"chosen": chosen, "tuning_right": totals[best], "tuning_n": n_tune,
                                     "held_out_chosen": [k_chosen, n], "held_out_shipped": [k_shipped, n]}
            lo, hi = wilson(k_chosen, n)
            slo, shi = wilson(k_shipped, n)
            print(f"{held}: chosen on the other splits {chosen} → held out {k_chosen}/{n} = {k_chosen / n:.1%} "
                  f"[{lo:.1%}, {hi:.1%}]; shipped values {k_shipped}/{n} = {k_shipped / n:.1%} [{slo:.1%}, {shi:.1%}]")
    finally:
        _set(shipped)
        use_reader(None)
    if args.out:
        Path(args.out).write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
