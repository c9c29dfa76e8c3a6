"""Analytics timing: drift report and cohort growth curves over 10,000 sessions × 20 turns.

The rows are SYNTHETIC (generated in SQL with ``range`` / ``generate_series`` for fast bulk
inserts): 10,000 ended sessions of 500 learners in 5 cohorts, 20 turns each (10 counselor turns
with a fast-loop ``scores`` JSON, 10 client turns), and a drift finding on 2% of client turns.
The timed calls are the real library functions on DuckDB (file) and PostgreSQL 16 (pgserver).

Run: ``.venv/bin/python bench/analytics_bench.py [--sessions 10000] [--no-postgres]``
(< 10 min on 2 cores). Prints a Markdown table for bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vignette_lab.analytics.drift import drift_report  # noqa: E402
from vignette_lab.analytics.longitudinal import growth_curves  # noqa: E402
from vignette_lab.store import connect, init_db  # noqa: E402

LEARNERS = 500

_DUCK = {
    "series": "range({n}) t(i)",
    "idiv": "CAST(floor(i / {d}) AS INTEGER)",
    "ts": "TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_minutes(CAST(i AS BIGINT))",
    "arr": "['client','counselor','evaluator']",
    "scores": ("json_object('empathy', {e}, 'open_questions', {o}, 'validation', {v}, 'theory_fit', {t})"),
    "detail": "json_object('check', 'style_drift', 'seq', k, 'aspect', 'register', 'excerpt', '본인은 보고드리겠습니다.')",
    "turn_series": "range(20) u(k0)",
}
_PG = {
    "series": "generate_series(0, {n} - 1) AS t(i)",
    "idiv": "(i / {d})",
    "ts": "TIMESTAMPTZ '2026-01-01 00:00:00+00' + make_interval(mins => i)",
    "arr": "ARRAY['client','counselor','evaluator']",
    "scores": ("jsonb_build_object('empathy', {e}, 'open_questions', {o}, 'validation', {v}, 'theory_fit', {t})"),
    "detail": "jsonb_build_object('check', 'style_drift', 'seq', k, 'aspect', 'register', 'excerpt', '본인은 보고드리겠습니다.')",
    "turn_series": "generate_series(0, 19) AS u(k0)",
}


def fill(db, n_sessions: int) -> float:
    """Bulk-insert the synthetic rows; returns seconds."""
    q = _DUCK if db.dialect.backend == "duckdb" else _PG
    t0 = time.perf_counter()
    sess_no = q["idiv"].format(d=LEARNERS)
    db.execute(
        "INSERT INTO app.sessions (session_id, case_id, learner_id, cohort, persona_code, persona_version, mode, "
        "counselor_profile, engine, model, session_no, status, started_at, ended_at, seed, review_status) "
        f"SELECT 'bs-' || i, 'bc-' || (i % {LEARNERS}), 'bl-' || (i % {LEARNERS}), 'cohort-' || (i % 5), "
        "'P' || (1 + i % 7), 1, 'selfplay', 'skilled', 'scripted', CASE WHEN i % 2 = 0 THEN 'm1' ELSE 'm2' END, "
        f"1 + {sess_no}, 'ended', {q['ts']}, {q['ts']}, 0, 'ready' FROM {q['series'].format(n=n_sessions)}")
    db.execute(
        "INSERT INTO app.turns (turn_id, session_id, case_id, seq, speaker, text, text_masked, visible_to, sensitivity) "
        "SELECT 'bt-' || i || '-' || k, 'bs-' || i, 'bc-' || (i % 500), k, "
        "CASE WHEN k % 2 = 1 THEN 'counselor' ELSE 'client' END, x, x, "
        f"{q['arr']}, 0 FROM (SELECT i, k0 + 1 AS k, CASE (k0 % 4) WHEN 0 THEN '요즘 어떻게 지내요?' "
        "WHEN 1 THEN '그냥 다 귀찮아요.' WHEN 2 THEN '그 마음이 어땠어요?' ELSE '잘 모르겠어요. 그냥요.' END AS x "
        f"FROM {q['series'].format(n=n_sessions)}, {q['turn_series']}) z")
    growth = f"(1.0 + {sess_no} * 0.15 + (i % 3) * 0.4 + (k % 5) * 0.1)"
    score = f"LEAST(5.0, {growth})"
    db.execute(
        "INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id, scores, engine) "
        "SELECT 'be-' || i || '-' || k, 'bt-' || i || '-' || k, 'bs-' || i, "
        + q["scores"].format(e=score, o=f"LEAST(5.0, {growth} + 0.5)", v=score, t="3.5")
        + f", 'scripted' FROM (SELECT i, k0 + 1 AS k FROM {q['series'].format(n=n_sessions)}, {q['turn_series']}) z "
        "WHERE k % 2 = 1")
    db.execute(
        "INSERT INTO audit.persona_drift_log (id, session_id, turn_id, persona_code, drift_type, embedding_sim, "
        "detail, severity, engine, model, created_at) "
        "SELECT 'bd-' || i || '-' || k, 'bs-' || i, 'bt-' || i || '-' || k, 'P' || (1 + i % 7), 'style_drift', "
        f"0.9 + (i % 7) * 0.01, {q['detail']}, 'warn', 'scripted', CASE WHEN i % 2 = 0 THEN 'm1' ELSE 'm2' END, now() "
        f"FROM (SELECT i, k0 + 1 AS k FROM {q['series'].format(n=n_sessions)}, {q['turn_series']}) z "
        "WHERE k % 2 = 0 AND (i * 20 + k) % 50 = 0")
    return time.perf_counter() - t0


def timed(fn, *, repeat: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run(db, label: str, n: int) -> list[tuple[str, str, float, str]]:
    rows = []
    init_db(db)
    rows.append((label, "bulk insert (synthetic)", fill(db, n),
                 f"{db.scalar('SELECT count(*) FROM app.turns'):,} turns"))
    t, rep = timed(lambda: drift_report(db))
    rows.append((label, "drift_report (by persona, engine, model)", t, f"{len(rep.rates)} groups"))
    t, curves = timed(lambda: growth_curves(db))
    rows.append((label, "growth_curves (all 500 learners)", t, f"{len(curves):,} rows"))
    t, curves = timed(lambda: growth_curves(db, cohort="cohort-1"))
    rows.append((label, "growth_curves (one cohort, 100 learners)", t, f"{len(curves):,} rows"))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--no-postgres", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="vignette_analytics_bench_"))
    rows = []
    try:
        db = connect(str(tmp / "bench.duckdb"))
        rows += run(db, "DuckDB", args.sessions)
        db.close()
        if not args.no_postgres:
            import pgserver

            pgdir = tmp / "pg"
            pgdir.mkdir()
            os.chmod(pgdir, 0o777)
            server = pgserver.get_server(str(pgdir), cleanup_mode="stop")
            try:
                db = connect(server.get_uri())
                rows += run(db, "PostgreSQL 16", args.sessions)
                db.close()
            finally:
                server.cleanup()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\n{args.sessions:,} sessions × 20 turns, {os.cpu_count()} cores, Python {platform.python_version()}, "
          "best of 3 (bulk insert: once)\n")
    print("| backend | operation | seconds | size |\n|---|---|---:|---|")
    for backend, op, sec, size in rows:
        print(f"| {backend} | {op} | {sec:.3f} | {size} |")


if __name__ == "__main__":
    main()
