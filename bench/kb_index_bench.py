"""KB vector index at scale: build time, top-10 latency (p50/p99), HNSW recall@10 vs exact.

Synthetic chunks (random unit vectors, dim 384 — latency does not depend on meaning) with
a realistic mix of kinds and sensitivities are loaded into ``kb.chunk`` on

- DuckDB (file): exact ``array_cosine_similarity`` scan (no vss extension offline);
- PostgreSQL 16 + pgvector 0.6 (pgserver): HNSW (m=16, ef_construction=64), ef_search=100.

Queries use the same policy WHERE clause as ``vignette_lab.kb.retrieval.search``
(evaluator: every row passes; client: ~29 % pass, which HNSW applies *after* the index
scan in pgvector 0.6, so recall under a selective filter is reported separately).

Run: ``.venv/bin/python bench/kb_index_bench.py --sizes 10000 100000 --queries 200``
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vignette_lab.kb.retrieval import POLICIES  # noqa: E402
from vignette_lab.store import connect, init_db  # noqa: E402

DIM = 384
KINDS = ["diagnostic", "theory", "technique", "taxonomy", "supervisor_pattern", "template", "ko_context"]


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def synth(n: int, seed: int = 0, data: str = "random"):
    """``random``: i.i.d. unit vectors (worst case for graph indexes: no neighbourhood structure).
    ``clustered``: n/50 topic centres plus noise (cos to centre ≈ 0.9), closer to real embeddings."""
    rng = np.random.default_rng(seed)
    if data == "clustered":
        centres = _unit(rng.standard_normal((max(n // 50, 1), DIM)))
        noise = rng.standard_normal((n, DIM)).astype(np.float32) / np.sqrt(DIM)
        vecs = _unit(centres[rng.integers(0, len(centres), size=n)] + 0.5 * noise)
    else:
        vecs = _unit(rng.standard_normal((n, DIM)))
    kinds = rng.choice(KINDS, size=n)
    sens = rng.integers(0, 3, size=n)
    return vecs, kinds, sens


def policy_where(role: str, backend: str) -> tuple[str, list]:
    p = POLICIES[role]
    contains = "? = ANY(c.visible_to)" if backend == "postgres" else "list_contains(c.visible_to, ?)"
    marks = ", ".join("?" for _ in p.kinds)
    return (f"c.is_active AND c.kb_kind IN ({marks}) AND {contains} AND c.sensitivity <= ?",
            [*p.kinds, role, p.sensitivity_max])


def make_queries(vecs: np.ndarray, m: int, data: str, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if data == "clustered":  # near an existing point, as a real query is near its topic
        base = vecs[rng.integers(0, len(vecs), size=m)]
        return _unit(base + 0.5 * rng.standard_normal((m, DIM)).astype(np.float32) / np.sqrt(DIM))
    return _unit(rng.standard_normal((m, DIM)))


def exact_top10(vecs, mask, q):
    scores = vecs @ q
    scores[~mask] = -np.inf
    return set(np.argsort(-scores)[:10].tolist())


def pct(values, q):
    return float(np.percentile(np.asarray(values) * 1000.0, q))


def bench_duckdb(n, vecs, kinds, sens, queries, workdir):
    import duckdb
    import pyarrow as pa

    path = Path(workdir) / f"bench_{n}.duckdb"
    db = connect(str(path))
    init_db(db, embedding_dim=DIM)
    db.close()
    con = duckdb.connect(str(path))
    t0 = time.perf_counter()
    tbl = pa.table({
        "chunk_id": [str(i) for i in range(n)],
        "kb_kind": kinds.tolist(), "sensitivity": sens.astype(np.int16),
        "embedding": pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1)), DIM),
    })
    con.register("synth", tbl)
    con.execute(f"""INSERT INTO kb.chunk (chunk_id, doc_id, source_id, kb_kind, seq, chunk_text, embedding,
                   visible_to, sensitivity, license_class, external_llm_ok, embedder)
                   SELECT chunk_id, 'd', 's', kb_kind, 0, 'x', CAST(embedding AS FLOAT[{DIM}]),
                   ['client','counselor','evaluator'], sensitivity, 'A', TRUE, 'synthetic' FROM synth""")
    build = time.perf_counter() - t0
    out = {}
    for role in ("evaluator", "client"):
        where, params = policy_where(role, "duckdb")
        sql = (f"SELECT c.chunk_id, array_cosine_similarity(c.embedding, CAST(? AS FLOAT[{DIM}])) AS s "
               f"FROM kb.chunk c WHERE {where} ORDER BY s DESC LIMIT 10")
        lat = []
        for q in queries:
            t = time.perf_counter()
            con.execute(sql, [q.tolist(), *params]).fetchall()
            lat.append(time.perf_counter() - t)
        out[role] = {"p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99), "recall@10": 1.0}
    con.close()
    return {"build_s": build, **out}


def bench_postgres(n, vecs, kinds, sens, queries, server):
    import psycopg
    from pgvector.psycopg import register_vector

    dbname = f"bench_{n}_{os.getpid()}"
    admin = psycopg.connect(server.get_uri(), autocommit=True)
    admin.execute(f'DROP DATABASE IF EXISTS "{dbname}"')
    admin.execute(f'CREATE DATABASE "{dbname}"')
    uri = server.get_uri().rsplit("/", 1)[0] + f"/{dbname}" if "?" not in server.get_uri() else \
        server.get_uri().replace("/postgres?", f"/{dbname}?")
    db = connect(uri)
    init_db(db, embedding_dim=DIM)
    db.close()
    con = psycopg.connect(uri, autocommit=True)
    register_vector(con)
    con.execute("DROP INDEX IF EXISTS kb.idx_chunk_hnsw")
    con.execute("INSERT INTO kb.source (source_id, title, kb_kind, license_class, visible_to) "
                "VALUES ('s', 'synthetic', 'theory', 'A', ARRAY['client','counselor','evaluator'])")
    con.execute("INSERT INTO kb.document (doc_id, source_id, doc_uri, content_hash) VALUES ('d', 's', 'x', 'h')")
    t0 = time.perf_counter()
    with con.cursor() as cur:
        with cur.copy("COPY kb.chunk (chunk_id, doc_id, source_id, kb_kind, seq, chunk_text, embedding, visible_to, "
                      "sensitivity, license_class, external_llm_ok, embedder) FROM STDIN WITH (FORMAT BINARY)") as cp:
            cp.set_types(["text", "text", "text", "text", "int4", "text", "vector", "text[]", "int2", "text",
                          "bool", "text"])
            for i in range(n):
                cp.write_row([str(i), "d", "s", str(kinds[i]), 0, "x", vecs[i],
                              ["client", "counselor", "evaluator"], int(sens[i]), "A", True, "synthetic"])
    load = time.perf_counter() - t0
    con.execute("ALTER TABLE kb.chunk SET (parallel_workers = 2)")
    con.execute("SET maintenance_work_mem = '512MB'")
    con.execute("SET max_parallel_maintenance_workers = 2")
    t1 = time.perf_counter()
    con.execute("CREATE INDEX idx_chunk_hnsw ON kb.chunk USING hnsw (embedding vector_cosine_ops) "
                "WITH (m = 16, ef_construction = 64)")
    index_s = time.perf_counter() - t1
    con.execute("ANALYZE kb.chunk")
    out = {"load_s": load, "index_s": index_s, "build_s": load + index_s}
    for role in ("evaluator", "client"):
        where, params = policy_where(role, "postgres")
        where = where.replace("?", "%s")
        sql = (f"SELECT c.chunk_id FROM kb.chunk c WHERE {where} "
               f"ORDER BY c.embedding <=> %s LIMIT 10")
        p = POLICIES[role]
        mask = np.isin(kinds, p.kinds) & (sens <= p.sensitivity_max)
        lat, recall, short = [], [], 0
        for q in queries:
            with con.transaction():
                con.execute("SET LOCAL hnsw.ef_search = 100")
                t = time.perf_counter()
                rows = con.execute(sql, [*params, q]).fetchall()
                lat.append(time.perf_counter() - t)
            got = {int(r[0]) for r in rows}
            short += len(rows) < 10
            recall.append(len(got & exact_top10(vecs, mask, q)) / 10)
        out[role] = {"p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99), "recall@10": float(np.mean(recall)),
                     "short_results": short}
    con.close()
    admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
    admin.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--skip-postgres", action="store_true")
    ap.add_argument("--skip-duckdb", action="store_true")
    ap.add_argument("--data", choices=["random", "clustered"], default="random",
                    help="synthetic vector distribution (see synth)")
    args = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="kb_bench_")
    server = None
    if not args.skip_postgres:
        import pgserver
        pgdir = Path(workdir) / "pg"
        pgdir.mkdir()
        os.chmod(workdir, 0o777)
        os.chmod(pgdir, 0o777)
        server = pgserver.get_server(str(pgdir), cleanup_mode="stop")
    print(f"data: {args.data}, dim {DIM}, {args.queries} queries")
    print("| backend | chunks | build s | policy | top-10 p50 ms | p99 ms | recall@10 vs exact |")
    print("|---|---|---|---|---|---|---|")
    try:
        for n in args.sizes:
            vecs, kinds, sens = synth(n, data=args.data)
            queries = make_queries(vecs, args.queries, args.data)
            d = {} if args.skip_duckdb else bench_duckdb(n, vecs, kinds, sens, queries, workdir)
            for role in ("evaluator", "client") if d else ():
                r = d[role]
                print(f"| DuckDB exact | {n:,} | {d['build_s']:.1f} | {role} | {r['p50_ms']:.1f} | "
                      f"{r['p99_ms']:.1f} | 1.000 (exact) |", flush=True)
            if server is not None:
                p = bench_postgres(n, vecs, kinds, sens, queries, server)
                for role in ("evaluator", "client"):
                    r = p[role]
                    print(f"| Postgres HNSW | {n:,} | {p['build_s']:.1f} (load {p['load_s']:.1f} + index "
                          f"{p['index_s']:.1f}) | {role} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
                          f"{r['recall@10']:.3f} ({r['short_results']} short) |", flush=True)
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
