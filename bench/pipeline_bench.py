"""Pipeline throughput: data set, AI round, review saves, gate, golden, export/import, tagger.

Run:  .venv/bin/python bench/pipeline_bench.py [--items 300] [--backend duckdb|postgres|both]
Prints a markdown table (append it to bench/RESULTS.md under "## Pipeline").

Sessions are inserted with SQL (self-play speed is the session owner's bench); reviewers are
the demo's simulated reviewers.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

from test_pipeline_helpers import seed_sessions  # noqa: E402
from vignette_lab.pipeline.adjudicate import adjudicate, disagreements  # noqa: E402
from vignette_lab.pipeline.annotate import auto_annotate  # noqa: E402
from vignette_lab.pipeline.classifier import evaluate_tagger, train_technique_tagger  # noqa: E402
from vignette_lab.pipeline.datasets import create_dataset_from_sessions, dataset_items  # noqa: E402
from vignette_lab.pipeline.demo import simulated_review  # noqa: E402
from vignette_lab.pipeline.export import export_golden, import_export  # noqa: E402
from vignette_lab.pipeline.gate import gate  # noqa: E402
from vignette_lab.pipeline.golden import build_golden_set  # noqa: E402
from vignette_lab.pipeline.review import ReviewQueue, assign_reviewers  # noqa: E402
from vignette_lab.pipeline.rounds import create_round, effective_annotations  # noqa: E402
from vignette_lab.store import connect, init_db  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def run(db, n_items: int, tmp: Path) -> list[tuple[str, int, float]]:
    rows = []
    per_session = 10
    with db.pinned():
        seed_sessions(db, sessions=max(1, n_items // per_session), counselor_turns=per_session)
        did, s = timed(lambda: create_dataset_from_sessions(db, "bench"))
        items = {it["item_id"]: it for it in dataset_items(db, did)}
        n = len(items)
        rows.append(("create data set from sessions", n, s))
        ai = create_round(db, did, "ai_auto", engine="scripted")
        _, s = timed(lambda: auto_annotate(db, ai, engine="scripted", progress=False))
        rows.append(("auto-annotate (scripted, proposed)", n, s))
        props = {a["item_id"]: a for a in effective_annotations(db, ai)}
        hr = create_round(db, did, "human_review", ai_round_id=ai)
        revs = ["sim-reviewer-1", "sim-reviewer-2", "sim-reviewer-3"]
        assign_reviewers(db, hr, revs, overlap=0.3)
        saves = 0
        t = time.perf_counter()
        for r in revs:
            q = ReviewQueue(db, hr, r)
            while (it := q.next_item()) is not None:
                lab = simulated_review(items[it.item_id], props.get(it.item_id), r, seed=0)
                q.submit(it.item_id, lab["techniques"], lab["client_state"], lab["appropriateness"],
                         None, lab["scores"])
                saves += 1
        rows.append(("review queue next_item + submit", saves, time.perf_counter() - t))
        g, s = timed(lambda: gate(db, hr, n_resamples=1000, override_reason="bench"))
        rows.append(("gate (κ/α/ICC, 1000 bootstrap resamples)", g["results"]["n_overlap_items"], s))
        for d in disagreements(db, hr):
            adjudicate(db, d["item_id"], hr, "bench", {"techniques": d["annotations"][0]["techniques"]})
        gs, s = timed(lambda: build_golden_set(db, did, gate_id=g["gate_id"]))
        rows.append(("build golden set", gs["item_count"], s))
        _, s = timed(lambda: export_golden(db, gs["golden_id"], tmp / "export"))
        rows.append(("export items.jsonl + manifest", gs["item_count"], s))
    fresh = connect(str(tmp / "fresh.duckdb"))
    init_db(fresh)
    with fresh.pinned():
        _, s = timed(lambda: import_export(fresh, tmp / "export"))
    rows.append(("import (hash check + insert, DuckDB)", gs["item_count"], s))
    tagger, s = timed(lambda: train_technique_tagger(tmp / "export" / "items.jsonl"))
    rows.append(("train tagger (char 1–3-gram TF-IDF + OvR LR)", gs["item_count"], s))
    _, s = timed(lambda: evaluate_tagger(tagger, tmp / "export" / "items.jsonl"))
    rows.append(("evaluate tagger", gs["item_count"], s))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("--backend", choices=["duckdb", "postgres", "both"], default="both")
    args = ap.parse_args()
    # warm-up outside the timings: Presidio + taxonomy + evaluator imports
    from vignette_lab.core.guardrails import mask_pii
    mask_pii("워밍업 010-0000-0000")
    backends = ["duckdb", "postgres"] if args.backend == "both" else [args.backend]
    print(f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores, "
          f"{platform.machine()}, Python {platform.python_version()}; shared, loaded machine.\n")
    print("| backend | step | n | s | per item (ms) |\n|---|---|---:|---:|---:|")
    for backend in backends:
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            if backend == "duckdb":
                db = connect(str(tmp / "bench.duckdb"))
            else:
                import pgserver

                pgdir = tmp / "pg"
                pgdir.mkdir()
                os.chmod(pgdir, 0o777)
                srv = pgserver.get_server(str(pgdir), cleanup_mode="stop")
                db = connect(srv.get_uri())
            init_db(db)
            for step, n, s in run(db, args.items, tmp):
                print(f"| {backend} | {step} | {n} | {s:.2f} | {s / max(n, 1) * 1000:.1f} |")
            db.close()


if __name__ == "__main__":
    main()
