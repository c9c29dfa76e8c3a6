"""Every stored ``app``/``audit`` row after a fixed set of sessions, for a before/after check (issue 12).

A per-turn cost change must not change any judgement, label, reply or stored row. This plays, on a
fresh DuckDB file: self-play skilled P1/P4/P7 × 24 turns, advice-jumper P2/P4 × 14, novice P1 × 18
(fast + deep evaluation), then a live P4 session (9 sends: a crisis screen, a phone number, the
closing; 2 coach cards; deep evaluation) and a second session of the same case (carry-over, no deep
evaluation). It writes every row of every ``app``/``audit`` table, sorted, with ids, timestamps and
latencies masked. Two runs of the same code give the same bytes; compare two checkouts with ``cmp``.

Run: ``PYTHONPATH=CHECKOUT .venv/bin/python bench/dump_stored_rows.py CHECKOUT OUT.txt`` (once per checkout).
"""
import datetime
import json
import os
import re
import sys
import tempfile
from pathlib import Path

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TS = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:?\d\d)?")
LIVE_LINES = ["안녕하세요, 오늘 어떤 이야기를 하고 싶어요?", "요즘 많이 힘드셨겠어요.", "몇 학년이에요?",
              "혹시 죽고 싶다는 생각까지 든 적 있어?", "제 연락처는 010-1234-5678 이에요.", "잠은 잘 자요?",
              "그때 가장 힘들었던 건 뭐였어요?", "주변 사람들은 그 마음을 알고 있어요?", "오늘 여기서 마무리할게요"]


def play(db) -> None:
    """The fixed sessions (see the module docstring)."""
    from vignette_lab.engines.scripted import ScriptedEngine
    from vignette_lab.session.selfplay import run_selfplay
    from vignette_lab.session.service import SessionService

    for personas, profile, turns, seed in ((("P1", "P4", "P7"), "skilled", 24, 7), (("P2", "P4"), "advice-jumper", 14, 3),
                                           (("P1",), "novice", 18, 5)):
        run_selfplay(db, personas=personas, counselor=profile, sessions=1, turns=turns, seed=seed, progress=False,
                     evaluate=True)
    svc = SessionService(db, engine=ScriptedEngine(seed=7))
    sid = svc.start("P4", learner_id="live", seed=11, session_id="00000000-0000-4000-8000-00000000000a").session_id
    for i, line in enumerate(LIVE_LINES):
        svc.send(sid, line)
        if i in (2, 5):
            svc.coach(sid)
    svc.end(sid)
    sid2 = svc.start("P4", learner_id="live", seed=12, session_id="00000000-0000-4000-8000-00000000000b").session_id
    svc.send(sid2, "지난번 이후로 어떻게 지냈어요?")
    svc.end(sid2, run_deep=False)


def dump(db) -> list[str]:
    """Every row of every app/audit table as sorted JSON lines, ids/timestamps/latencies masked."""
    tables = [r["table_schema"] + "." + r["table_name"] for r in db.fetchall(
        "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('app', 'audit') "
        "AND table_type = 'BASE TABLE' ORDER BY 1, 2")]
    lines: list[str] = []
    for table in tables:
        rows = db.fetchall(f"SELECT * FROM {table}")
        dumped = []
        for row in rows:
            row = {k: ("<ts>" if isinstance(v, (datetime.datetime, datetime.date)) else
                       "<lat>" if k == "latency_ms" else v) for k, v in row.items()}
            text = json.dumps(row, ensure_ascii=False, sort_keys=True, default=str)
            dumped.append(TS.sub("<ts>", UUID.sub("<id>", text)))
        lines.append(f"## {table} {len(rows)}")
        lines += sorted(dumped)
    return lines


def main() -> int:
    root, out = sys.argv[1], sys.argv[2]
    sys.path.insert(0, root)
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    with tempfile.TemporaryDirectory() as d:
        db = connect(str(Path(d) / "rows.duckdb"))
        init_db(db)
        load_catalog(db)
        with db.pinned():
            play(db)
        lines = dump(db)
        db.close()
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{out}: {len(lines)} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
