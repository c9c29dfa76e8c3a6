"""Train the offline evaluator's learned models with scikit-learn and export them into the package.

Usage::

    python bench/build_evaluator_models.py            # train the four models, write their JSON files
    python bench/build_evaluator_models.py --check    # exit 1 when a shipped file differs from a rebuild

Writes ``vignette_lab/engines/technique_model.json`` (the technique tagger,
:class:`vignette_lab.engines.technique_stack.StackedTechniqueModel` over characters + morphemes, no
rule features), ``vignette_lab/engines/appropriateness_model.json`` (the appropriateness model,
:class:`vignette_lab.engines.appropriateness.AppropriatenessModel`) and
``vignette_lab/engines/crisis_cue_model.json`` (the learned crisis-cue reader of client lines,
:mod:`vignette_lab.engines.crisis_model`; trained on the dev splits' client lines) and
``vignette_lab/engines/crisis_engagement_model.json`` (whether a turn after a crisis cue engages it,
:mod:`vignette_lab.engines.crisis_engagement`; trained on the dev splits' crisis-context items, built first
since the appropriateness model's training rows carry its verdicts). Training data: every evaluator
dev split (``datasets/eval/evaluator/dev*.jsonl`` listed in ``utterance_tagger.DEV_SPLITS``) and the
counselor banks — a held-out ``test*`` file is never read. Each file records the model version, the
scikit-learn version and ``training_hash``: a hash of the training texts, labels and the feature
code, computed here once so a running process never reads or hashes the training data. The runtime
(:mod:`vignette_lab.engines.linear_runtime`) is pure numpy/python and gives bit-identical
probabilities (``tests/test_evaluator_export.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vignette_lab.engines import appropriateness as ap  # noqa: E402
from vignette_lab.engines import crisis_engagement as ce  # noqa: E402
from vignette_lab.engines import crisis_model as cm  # noqa: E402
from vignette_lab.engines import linear_runtime as lr  # noqa: E402
from vignette_lab.engines import technique_stack as ts  # noqa: E402
from vignette_lab.engines import utterance_tagger as ut  # noqa: E402


def build_technique() -> tuple[dict, object]:
    """(export document, fitted scikit-learn model) of the technique tagger."""
    import sklearn

    items = ut.training_items()
    model = ts.StackedTechniqueModel.fit(items, use_rules=False)
    meta = {"version": ut.technique_export_version(), "sklearn": sklearn.__version__, "n_train": len(items),
            "training_hash": ut._fingerprint(items, False)}
    return lr.export_technique(model, techniques=ut.TECHNIQUES, meta=meta), model


def build_appropriateness() -> tuple[dict, object]:
    """(export document, fitted scikit-learn model) of the appropriateness model."""
    import sklearn

    items = ap._all_dev_items()
    model = ap.AppropriatenessModel.fit(ap.training_rows(items))
    meta = {"version": ap.APPROPRIATENESS_VERSION, "sklearn": sklearn.__version__, "n_train": len(items),
            "training_hash": ap._fingerprint(items)}
    return lr.export_appropriateness(model, meta=meta), model


def build_crisis_cue() -> tuple[dict, object]:
    """(export document, fitted scikit-learn model) of the learned crisis-cue reader (client lines)."""
    import sklearn

    lines = cm.training_lines()
    model = cm.fit(lines)
    meta = {"version": cm.CRISIS_MODEL_VERSION, "sklearn": sklearn.__version__, "n_train": len(lines),
            "training_hash": cm.fingerprint(lines)}
    return lr.export_technique(model, techniques=("crisis",), meta=meta), model


def build_engagement() -> tuple[dict, object]:
    """(export document, model) of the crisis engagement model (crisis-context dev items)."""
    import sklearn

    items = ce.training_items()
    model = ce.fit(items)
    model.meta = {"version": ce.ENGAGEMENT_VERSION, "sklearn": sklearn.__version__, "n_train": len(items),
                  "training_hash": ce.fingerprint(items)}
    return model.to_json(), model


def _same(doc: dict, path: Path) -> bool:
    try:
        return json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(doc, ensure_ascii=False))
    except (OSError, ValueError):
        return False


def main(argv: list[str] | None = None) -> int:
    ap_ = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap_.add_argument("--check", action="store_true", help="compare with the shipped files, write nothing")
    args = ap_.parse_args(argv)
    status = 0
    # The appropriateness model's training rows carry the crisis-context verdict, which the engagement model
    # decides: it is built first and judges while the others are built (the file's own numbers, not a stale one).
    engagement_doc, engagement = build_engagement()
    ce.use_model(ce.load(engagement_doc))
    docs = [(engagement_doc, ce.ENGAGEMENT_EXPORT), (build_technique()[0], ut.TECHNIQUE_EXPORT),
            (build_appropriateness()[0], ap.APPROPRIATENESS_EXPORT), (build_crisis_cue()[0], cm.CRISIS_EXPORT)]
    ce.use_model(None)
    for doc, path in docs:
        if args.check:
            ok = _same(doc, path)
            print(f"{path.name}: {'matches a rebuild' if ok else 'DIFFERS from a rebuild'} "
                  f"(n_train={doc['n_train']}, training_hash={doc['training_hash']})")
            status |= 0 if ok else 1
        else:
            if path == ce.ENGAGEMENT_EXPORT:
                path.write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            else:
                lr.write_export(doc, path)
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KiB, n_train={doc['n_train']}, "
                  f"training_hash={doc['training_hash']})")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
