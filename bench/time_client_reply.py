"""CPU time of one scripted client reply (issue 12: the client's part of the per-turn cost).

Times :meth:`ScriptedEngine.generate` for the client on the probe turns of the author dev splits
(each probe as a single request with its warm-up lines as history, so the reader, the fact table
and the repetition control all run), after an untimed pass over the *other* probes (``dev.jsonl``)
that warms what a live process has warm (kiwipiepy, the question bank, the line index) but not the
per-text caches: every timed text is new to the process, as a trainee's turn is. Reports CPU ms per reply
(``time.process_time``; the machine is shared, so wall time is noisier), p50 / p90 / p99 / max.

Runs against whichever ``vignette_lab`` is first on ``PYTHONPATH``, so the same file times two
trees: ``PYTHONPATH=/path/to/tree python bench/time_client_reply.py``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vignette_lab.core.eval_splits import dev_splits  # noqa: E402

PROBES = ROOT / "datasets" / "eval" / "client_probes"
SPLITS = tuple(s for s in dev_splits(PROBES) if s != "dev")


def main() -> int:
    from vignette_lab.core.personas import load_personas
    from vignette_lab.engines.base import EngineMessage, GenerateRequest
    from vignette_lab.engines.scripted import ScriptedEngine

    cards = load_personas()
    engine = ScriptedEngine(seed=0)
    requests = []
    for split in ("dev",) + SPLITS:
        for line in (PROBES / f"{split}.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            p = json.loads(line)
            history = [EngineMessage("user", w) for w in p.get("warmup") or ()]
            messages = (EngineMessage("system", "L0", cache=True), *history, EngineMessage("user", p["probe"]))
            requests.append(GenerateRequest("client", messages, session_id=p["id"], metadata={
                "persona_code": p["persona"], "stage": "탐색", "effective_openness": 0.3, "resistance": 0.5,
                "ideation_stage": cards[p["persona"]].ideation_stage, "turn_seq": len(history) + 1,
                "prior_replies": [], "ideation_disclosed": False}))
    n_warm = sum(1 for line in (PROBES / "dev.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())
    warm, requests = requests[:n_warm], requests[n_warm:]
    for r in warm:  # warm-up pass on other texts: what a live process has warm, not these texts
        engine.generate(r)
    times = []
    for r in requests:
        t0 = time.process_time()
        engine.generate(r)
        times.append((time.process_time() - t0) * 1000)
    times.sort()

    def q(x: float) -> float:
        return times[min(len(times) - 1, int(x * len(times)))]

    import vignette_lab

    print(f"{Path(vignette_lab.__file__).parent}: {len(times)} client replies, CPU ms per reply "
          f"mean {statistics.mean(times):.2f}, p50 {q(0.5):.2f}, p90 {q(0.9):.2f}, p99 {q(0.99):.2f}, max {times[-1]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
