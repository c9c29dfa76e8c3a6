"""Server side of the first visible token: ``SessionService.send_stream`` → its first ``token`` event.

The browser bench (``bench_app.py``) times send → first chunk visible, which adds Panel's callback,
Bokeh's websocket patch and Chromium's drawing to the turn itself. This times only the turn, in
process (scripted engine, in-memory DuckDB, hashing embedder, no token pacing), over ``--turns``
sends after one warm-up send: wall and CPU seconds to the first token, and to the turn's end.

    PYTHONPATH=. .venv/bin/python bench/first_token_server.py --turns 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("VIGNETTE_EMBEDDER", "hashing")
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
UTTERANCES = ["안녕하세요. 오늘 어떤 이야기를 나누고 싶으세요?", "요즘 많이 힘드셨겠어요.",
              "그때 어떤 기분이 드셨어요?", "조금 더 이야기해 줄 수 있어요?", "그 마음이 이해가 돼요."]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="timed sends (after one warm-up send)")
    parser.add_argument("--persona", default="P4")
    args = parser.parse_args()
    from vignette_lab.engines.scripted import ScriptedEngine
    from vignette_lab.session.service import SessionService
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    db = connect(":memory:")
    init_db(db)
    load_catalog(db)
    service = SessionService(db, engine=ScriptedEngine())
    sid = service.start(args.persona).session_id
    first, first_cpu, full = [], [], []
    for i in range(args.turns + 1):
        t0, c0, seen = time.perf_counter(), time.process_time(), None
        for event in service.send_stream(sid, UTTERANCES[i % len(UTTERANCES)]):
            if event.type == "token" and seen is None:
                seen = (time.perf_counter() - t0, time.process_time() - c0)
        if i and seen is not None:  # the first send loads the masker and the reader
            first.append(seen[0])
            first_cpu.append(seen[1])
            full.append(time.perf_counter() - t0)
    med = statistics.median
    print(f"n={len(first)} first token p50 {med(first):.4f} s wall, {med(first_cpu):.4f} s CPU; "
          f"whole turn p50 {med(full):.3f} s; load average {os.getloadavg()[0]:.1f}")
    db.close()


if __name__ == "__main__":
    main()
