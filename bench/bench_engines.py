"""Speed of the engines layer (offline): scripted client/counselor/evaluator, cache, Anthropic mapping.

Run: ``PYTHONPATH=. .venv/bin/python bench/bench_engines.py`` — prints a Markdown table to paste
into bench/RESULTS.md. The Anthropic row goes through the real SDK over httpx2.MockTransport,
so it measures request building + SDK + parsing, not network.
"""

from __future__ import annotations

import json
import platform
import time

from vignette_lab.core.personas import load_personas
from vignette_lab.engines.base import EngineMessage, GenerateRequest
from vignette_lab.engines.cache import EvaluatorCache
from vignette_lab.engines.scripted import ScriptedEngine

LINES = ["요즘 어떻게 지내고 있어요?", "많이 지쳤겠어요.", "잠은 잘 자요?", "그럼 일찍 자도록 해 보세요.",
         "그때 어떤 마음이 들었어요?", "그럴 만도 해요."]


def timed(label, n, fn):
    fn(0)  # warm-up (lazy loads)
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    elapsed = time.perf_counter() - start
    return label, n, elapsed / n * 1000.0, n / elapsed


def main() -> None:
    engine = ScriptedEngine(seed=0, personas=load_personas())
    codes = [f"P{i}" for i in range(1, 8)]
    history = tuple(EngineMessage(r, t) for k in range(10) for r, t in (("user", LINES[k % 6]), ("assistant", "네.")))

    def client(i):
        req = GenerateRequest("client", (*history, EngineMessage("user", LINES[i % 6])), session_id=f"b{i}",
                              metadata={"persona_code": codes[i % 7], "stage": "탐색", "effective_openness": 0.5,
                                        "resistance": 0.4, "ideation_stage": 2, "turn_seq": 12})
        engine.generate(req)

    def counselor(i):
        engine.generate(GenerateRequest("counselor", (EngineMessage("user", "그냥 다 귀찮아요."),), session_id=f"c{i}",
                                        metadata={"counselor_profile": "improving", "stage": "탐색", "turn_seq": i,
                                                  "persona_code": codes[i % 7], "progress": 0.5}))

    def fast_req(i):
        payload = {"stage": "라포", "counselor_utterance": LINES[i % 6] + f" ({i})", "client_reply": "네…"}
        return GenerateRequest("evaluator", (EngineMessage("user", json.dumps(payload, ensure_ascii=False)),),
                               structured_schema={"title": "turn_evaluation"}, metadata={"stage": "라포"})

    def evaluator(i):
        engine.generate(fast_req(i))

    cache = EvaluatorCache(max_entries=4096)
    warm = [fast_req(i) for i in range(100)]
    for r in warm:
        cache.get_or_generate(engine, r)

    def cache_hit(i):
        cache.get_or_generate(engine, warm[i % 100])

    rows = [timed("scripted client reply (20-msg history)", 2000, client),
            timed("scripted counselor utterance", 2000, counselor),
            timed("scripted fast-loop evaluation", 2000, evaluator),
            timed("EvaluatorCache hit (incl. SHA-256 key)", 20000, cache_hit)]

    import anthropic
    import httpx2

    from vignette_lab.engines.anthropic_engine import AnthropicEngine

    body = {"id": "m", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": "네."}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 5, "output_tokens": 2}}
    client_sdk = anthropic.Anthropic(api_key="bench", max_retries=0, http_client=httpx2.Client(
        transport=httpx2.MockTransport(lambda r: httpx2.Response(200, json=body))))
    api = AnthropicEngine(client=client_sdk, model="claude-haiku-4-5")

    def anthropic_call(i):
        api.generate(GenerateRequest("client", (EngineMessage("system", "L0", cache=True), *history,
                                                EngineMessage("user", LINES[i % 6])), session_id="s"))

    rows.append(timed("AnthropicEngine.generate over MockTransport", 300, anthropic_call))
    print(f"Python {platform.python_version()} on {platform.machine()}, {time.strftime('%Y-%m-%d')}\n")
    print("| operation | n | ms / call | calls / s |\n|---|---:|---:|---:|")
    for label, n, ms, rate in rows:
        print(f"| {label} | {n} | {ms:.3f} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
