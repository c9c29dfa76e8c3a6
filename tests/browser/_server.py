"""Start the real workbench server for the browser tests (run as a subprocess).

Usage: python _server.py DB_PATH PORT [USERS_FILE|-] [--mock-evaluator]

With ``--mock-evaluator`` the evaluator/coach engine is the real ``AnthropicEngine`` talking to
an ``httpx2.MockTransport`` (the only mocking our rules allow): its coach cards carry a
markdown table, a fenced code block and a ``<script>`` so the page's rendering and
sanitising can be checked in a real browser. The client engine is the scripted engine.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

COACH_MESSAGE = (
    "감정을 먼저 짚어 보세요.\n\n"
    "| 기법 | 예시 |\n|:--|--:|\n| 감정 반영 | 많이 속상하셨겠어요 |\n| 개방형 질문 | 어떤 점이 가장 힘드세요? |\n\n"
    "```text\n힘든 마음이 크셨겠어요.\n```\n\n"
    "<script>window.__vl_xss = 1</script><img src=x onerror=\"window.__vl_xss=2\">"
)


def _mock_engine():
    import anthropic
    import httpx2

    from vignette_lab.engines.anthropic_engine import AnthropicEngine

    def handler(request):
        body = json.loads(request.content.decode("utf-8"))
        system = json.dumps(body.get("system", ""), ensure_ascii=False)
        if "라이브 코치" in system:
            payload = {"title": "감정 반영 먼저", "focus": "감정 반영", "message": COACH_MESSAGE,
                       "next_utterance": "많이 힘드셨겠어요.", "rationale": "감정이 먼저 다뤄져야 합니다."}
        elif "축어록" in system:  # deep loop (the fast loop also says 수퍼바이저)
            payload = {"strengths": ["개방형 질문으로 시작했습니다."],
                       "improvements": ["조언 전에 감정 반영을 먼저 해 보세요."],
                       "rationale": "라포 형성이 먼저입니다.",
                       "alternatives": [{"turn_seq": 1, "original": "그냥 해 보세요.",
                                         "alternative": "어떤 마음이 드셨어요?", "why": "감정을 먼저 묻습니다."}]}
        else:
            payload = {"techniques": ["open_question"], "client_state": ["guarded"], "appropriateness": "pos",
                       "intent_deviation": [], "rapport_signal": 0.3,
                       "scores": {"empathy": 3, "open_questions": 4, "validation": 3, "theory_fit": 3},
                       "rationale": "개방형 질문입니다."}
        message = {"id": "msg_test", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                   "content": [{"type": "text", "text": json.dumps(payload, ensure_ascii=False)}],
                   "stop_reason": "end_turn", "stop_sequence": None,
                   "usage": {"input_tokens": 10, "output_tokens": 20}}
        return httpx2.Response(200, json=message)

    client = anthropic.Anthropic(api_key="test", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    return AnthropicEngine(client=client)


def main(argv: list[str]) -> None:
    from vignette_lab.app.serve import serve
    from vignette_lab.engines.scripted import ScriptedEngine

    db_path, port = argv[1], int(argv[2])
    users = argv[3] if len(argv) > 3 and argv[3] != "-" else None
    options = {"engine": ScriptedEngine(seed=3), "token_delay": float(os.environ.get("VL_TOKEN_DELAY", "0.04"))}
    if "--mock-evaluator" in argv:
        options["evaluator_engine"] = _mock_engine()
    serve(db_path, port=port, users_file=users, **options)


if __name__ == "__main__":
    main(sys.argv)
