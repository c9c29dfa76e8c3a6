"""Are reviews about *this* session? Distinct-paragraph ratio over self-play reviews.

Runs 20 scripted self-play sessions (personas × counselor profiles, seeds vary), ends each with
the deep loop, and collects every review paragraph (strengths, improvements, rationale,
alternatives). Reports the distinct ratio (distinct paragraphs / all paragraphs), the
paragraphs that appear in more than one session, and whether those sessions behaved
identically (same counselor utterances) — the issue's rule: no paragraph identical across two
sessions unless the behaviour was identical.

Self-play runs on the project's own counselor banks and persona scripts: training material,
not evidence. Timing on this shared 2-core box is noisy.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_review_distinct.py [--sessions 20] [--turns 8]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vignette_lab.store import connect, init_db  # noqa: E402
from vignette_lab.store import app_repo  # noqa: E402
from vignette_lab.store.catalog import load_catalog  # noqa: E402
from vignette_lab.session.selfplay import run_selfplay  # noqa: E402

PERSONAS = ("P1", "P2", "P3", "P4", "P5", "P6", "P7")
PROFILES = ("skilled", "novice", "advice-jumper", "improving")


def paragraphs(ev: dict) -> list[str]:
    out = [str(x) for x in ev.get("strengths") or []] + [str(x) for x in ev.get("improvements") or []]
    if ev.get("rationale"):
        out.append(str(ev["rationale"]))
    # an alternatives row is rendered as original | alternative | why
    out += [f"{a.get('original')} | {a.get('alternative')} | {a.get('why')}" for a in ev.get("alternatives") or []]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--turns", type=int, default=8)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = connect(str(Path(tmp) / "d.duckdb"))
        init_db(db)
        load_catalog(db)
        sessions = []
        i = 0
        while len(sessions) < args.sessions:
            persona, profile = PERSONAS[i % len(PERSONAS)], PROFILES[i % len(PROFILES)]
            res = run_selfplay(db, personas=(persona,), counselor=profile, sessions=1, turns=args.turns,
                               seed=100 + i, progress=False, evaluate=True)
            sessions += list(res.sessions)
            i += 1
        where = defaultdict(set)
        behaviour = {}
        total = 0
        for s in sessions:
            ev = app_repo.get_session_evaluation(db, s.session_id) or {}
            behaviour[s.session_id] = tuple(t["text"] for t in s.turns if t.get("speaker") == "counselor")
            for p in paragraphs(ev):
                where[p].add(s.session_id)
                total += 1
        shared = {p: ids for p, ids in where.items() if len(ids) > 1}
        unjustified = {p: ids for p, ids in shared.items() if len({behaviour[x] for x in ids}) > 1}
        print(f"sessions {len(sessions)}, paragraphs {total}, distinct {len(where)}, "
              f"distinct ratio {len(where) / max(1, total):.3f}")
        print(f"paragraphs shared by >1 session: {len(shared)}; shared across sessions with different behaviour: "
              f"{len(unjustified)}")
        for p, ids in sorted(unjustified.items(), key=lambda kv: -len(kv[1]))[:10]:
            print(f"  [{len(ids)} sessions] {p[:120]}")
        db.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
