"""Snapshot of knowledge-base search results, to show a refactor changed no behaviour.

Indexes ``kb_sources/`` with the deterministic hashing embedder into an in-memory DuckDB,
runs 8 Korean queries × 3 roles × {internal, external engine} (k = 8) and prints every hit
as JSON (source, kind, sensitivity, heading, text start, fused score). Hits with equal scores
are listed in (heading, text) order, because search breaks such ties by the random chunk id.

Run it from two checkouts and compare::

    PYTHONPATH=<checkout A> .venv/bin/python bench/kb_search_snapshot.py > a.json
    PYTHONPATH=<checkout B> .venv/bin/python bench/kb_search_snapshot.py > b.json
    cmp a.json b.json
"""

from __future__ import annotations

import json

from vignette_lab.kb.embedders import HashingEmbedder
from vignette_lab.kb.index import sync_sources
from vignette_lab.kb.retrieval import search
from vignette_lab.store import connect, init_db

QUERIES = ("잠을 못 자요", "공감 반영 기법", "자살 위험 평가", "가족 갈등", "불안하고 초조해요", "상담 구조화",
           "우울 증상", "진로 고민")


def snapshot() -> dict[str, object]:
    """Sync counts and the hits of every (role, query, external) combination."""
    emb = HashingEmbedder()
    db = connect(":memory:")
    init_db(db, embedding_dim=emb.dim)
    rep = sync_sources(db, embedder=emb)
    out: dict[str, object] = {"sync": [rep.added, rep.chunks, rep.quarantined]}
    for role in ("client", "counselor", "evaluator"):
        for q in QUERIES:
            for external in (False, True):
                hits = search(db, q, role=role, k=8, embedder=emb, external_engine=external)
                rows = [(h.score, h.source_id, h.kb_kind, h.sensitivity, h.heading_path or "", h.text[:40])
                        for h in hits]
                out[f"{role}|{q}|{external}"] = sorted(rows, key=lambda r: (-r[0], r[4], r[5]))
    db.close()
    return out


if __name__ == "__main__":
    print(json.dumps(snapshot(), ensure_ascii=False, sort_keys=True))
