"""Import of 100,000 long-format annotation rows: wall time and peak memory.

Setup (not timed): a data set of ``--items`` synthetic utterances pinned to the shipped
``mi-behaviour`` scheme, written straight through the repository (no masking, which belongs to
the transcript import). Timed: :func:`vignette_lab.pipeline.annotations_io.import_annotations`
on a CSV and a JSONL file of ``--rows`` rows (``session_id, seq, annotator, field, value``;
10 annotators per item), i.e. strict read → validation → typed records → one transaction.
Memory: the process's max-RSS growth during the timed run; with ``--trace`` also the peak
Python allocation (``tracemalloc``) in a second, untimed run.

Run: ``.venv/bin/python bench/bench_import.py [--rows 100000] [--postgres]``. Numbers on the
shared 2-core machine are noisy (other engineers' jobs run at the same time).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vignette_lab.core.scheme import builtin_schemes  # noqa: E402
from vignette_lab.pipeline.annotations_io import import_annotations  # noqa: E402
from vignette_lab.pipeline.rounds import _new_id, _now  # noqa: E402
from vignette_lab.store import connect, init_db  # noqa: E402
from vignette_lab.store.ds_repo import insert_dataset  # noqa: E402

CODES = ["reflection", "question", "therapist_input", "other"]


def _setup(db, n_items: int) -> str:
    scheme = builtin_schemes()[("mi-behaviour", "1")]
    items = [{"item_id": _new_id(), "session_id": f"t{i // 50}", "seq": i % 50,
              "speaker": "counselor", "context": [], "counselor_text": f"utterance {i}"}
             for i in range(n_items)]
    did = _new_id()
    insert_dataset(db, dataset_id=did, name="bench", source="import", filters={},
                   context_turns=0, items=items, created_by="bench", created_at=_now(),
                   scheme=scheme.ref)
    return did


def _write(path: Path, n_rows: int, n_items: int, fmt: str) -> None:
    rng = random.Random(0)
    rows = []
    for r in range(n_rows):
        i = r // 10
        rows.append({"session_id": f"t{i // 50}", "seq": i % 50, "annotator": f"ann{r % 10:02d}",
                     "field": "behaviour", "value": rng.choice(CODES)})
    if fmt == "csv":
        with open(path, "w", encoding="utf-8", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    else:
        with open(path, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row) + "\n")


def _run(url: str, label: str, n_rows: int, tmp: Path, trace: bool) -> list[str]:
    n_items = n_rows // 10
    out = []
    for fmt in ("csv", "jsonl"):
        db = connect(url)
        init_db(db)
        did = _setup(db, n_items)
        path = tmp / f"ann_{label}.{fmt}"
        _write(path, n_rows, n_items, fmt)
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        res = import_annotations(db, path, dataset_id=did)
        dt = time.perf_counter() - t0
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        if trace:
            # peak Python allocation in a second, traced run (tracemalloc slows the run down)
            did2 = _setup(db, n_items)
            tracemalloc.start()
            import_annotations(db, path, dataset_id=did2)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        else:
            peak = float("nan")
        assert res["rows"] == n_rows
        stored = db.scalar("SELECT count(*) FROM ds.annotation WHERE round_id = ?",
                           [res["rounds"][0]["round_id"]])
        out.append(f"| {label} | {fmt.upper()} ({path.stat().st_size / 1e6:.1f} MB) | {n_rows:,} |"
                   f" {stored:,} | {dt:.1f} | {n_rows / dt:,.0f} | {peak / 2**20:.0f} |"
                   f" {(rss1 - rss0) / 1024:.0f} |")
        print(out[-1], flush=True)
        db.close()
        if url.endswith(".duckdb"):
            os.remove(url)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--postgres", action="store_true", help="Also run on pgserver PostgreSQL 16.")
    ap.add_argument("--trace", action="store_true",
                    help="Also measure the peak Python allocation (tracemalloc, second run).")
    args = ap.parse_args()
    print("| backend | file | rows | annotations stored | seconds | rows/s | peak Python MiB |"
          " max-RSS growth MiB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        _run(str(Path(tmp) / "bench.duckdb"), "DuckDB", args.rows, Path(tmp), args.trace)
        if args.postgres:
            import pgserver

            srv = pgserver.get_server(str(Path(tmp) / "pg"), cleanup_mode="stop")
            _run(srv.get_uri(), "PostgreSQL 16", args.rows, Path(tmp), args.trace)


if __name__ == "__main__":
    main()
