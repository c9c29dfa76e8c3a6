"""Live coach (seed 001 §2.6.1): a short "next sentence" card, paid with credits.

A session starts with 3 credits (max 3). Using a card costs one; with none left the request
is refused with :class:`CoachCreditExhausted`. Credits come back two ways:

* **performance** — ``appropriateness == "pos"`` and ``rapport_signal >= 0.15`` and (stage
  advanced or openness rose by ≥ 0.01); or ``"neutral"`` and ``rapport_signal >= 0.35`` and
  openness rising;
* **pacing** — one every 6 counselor turns, whatever the evaluation says (an evaluator
  failure must not make coaching a shrinking resource).

Cards come from an evaluator-role engine call titled ``coach_card`` with the session's goal
stages and the last two cards injected (to avoid repeating advice). When the engine fails,
a rule card by stage is returned instead. Only masked short excerpts are stored.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

from vignette_lab.core.guardrails import mask_pii
from vignette_lab.core.pii import clip_masked
from vignette_lab.engines.base import EngineMessage, GenerateRequest
from vignette_lab.errors import CoachCreditExhausted
from vignette_lab.session.evaluator import kb_message

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine

__all__ = [
    "COACH_SCHEMA",
    "MAX_CREDITS",
    "PACING_EVERY",
    "CoachCard",
    "history",
    "make_card",
    "recharge_message",
    "recharge_reason",
    "rule_card",
    "trainee_turn_number",
]

# The card is read by the trainee: the passages inform the advice, their labels stay out of it.
_KB_HEADER = ("참고 지식(지식베이스 검색 결과, [출처 id · 종류 · 절] 본문). 코칭의 근거로만 쓰고, 진단명·차원·"
              "주석 라벨이나 출처 id는 카드에 쓰지 마세요.")

MAX_CREDITS = 3
PACING_EVERY = 6
EXCERPT_CHARS = 80

COACH_SCHEMA: dict[str, Any] = {
    "title": "coach_card",
    "type": "object",
    "properties": {"title": {"type": "string"}, "focus": {"type": "string"},
                   "message": {"type": "string"}, "next_utterance": {"type": "string"},
                   "rationale": {"type": "string"}},
    "required": ["title", "message", "next_utterance"],
}

_RULE_CARDS = {
    "라포": ("마음 먼저 받아주기", "감정 반영",
             "조언이나 질문을 서두르기보다 방금 내담자가 보인 감정을 먼저 짚어 주세요.",
             "지금 여기 와서 이야기하는 것 자체가 쉽지 않았을 것 같아요."),
    "탐색": ("한 가지에 초점 맞추기", "개방형 질문",
             "여러 질문을 한꺼번에 하지 말고, 내담자가 꺼낸 한 장면을 더 넓혀 보세요.",
             "그때 어떤 마음이 들었는지 조금 더 이야기해 줄 수 있을까요?"),
    "개입": ("함께 다른 관점 찾기", "협력적 탐색",
             "정답을 주기보다 내담자가 스스로 다른 가능성을 떠올리도록 물어보세요.",
             "비슷한 상황에서 조금이라도 덜 힘들었던 때가 있었다면 언제였을까요?"),
    "정리": ("오늘을 함께 돌아보기", "요약",
             "오늘 나눈 핵심을 짧게 요약하고 내담자의 느낌을 확인하세요.",
             "오늘 이야기 나누면서 가장 마음에 남는 게 있다면 무엇일까요?"),
}


@dataclass(frozen=True)
class CoachCard:
    """One coaching card shown to the trainee (Korean text)."""

    title: str
    focus: str
    message: str
    next_utterance: str
    rationale: str
    source: str  # "engine" | "rule"
    turn_seq: int
    credits_left: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def recharge_reason(*, appropriateness: str | None, rapport_signal: float | None,
                    stage_advanced: bool, openness_delta: float) -> str | None:
    """Return ``"performance"`` when the evaluated turn earns a credit back, else None."""
    if rapport_signal is None or appropriateness is None:
        return None
    if appropriateness == "pos" and rapport_signal >= 0.15 and (stage_advanced or openness_delta >= 0.01):
        return "performance"
    if appropriateness == "neutral" and rapport_signal >= 0.35 and openness_delta > 0:
        return "performance"
    return None


def recharge_message(reason: str, *, trainee_turn: int | None = None) -> str:
    """Korean sentence that tells the trainee why a coaching credit came back.

    ``reason`` is ``"performance"`` or ``"pacing"``; ``trainee_turn`` numbers the trainee's
    own utterances (1, 2, …), not both speakers' turns.
    """
    at = f"상담자 {trainee_turn}번째 발화" if trainee_turn else "방금 발화"
    if reason == "performance":
        return (f"{at}가 단계에 맞게 관계를 진전시켜(적절 평가와 라포 신호 상승) 코칭 크레딧 1개가 충전되었습니다.")
    if reason == "pacing":
        return (f"{at}까지 진행해 코칭 크레딧 1개가 충전되었습니다(상담자 발화 {PACING_EVERY}번마다 1개, "
                "평가 결과와 관계없이).")
    return f"{at}에서 코칭 크레딧 1개가 충전되었습니다({reason})."


def trainee_turn_number(turn_seq: int | None) -> int | None:
    """Trainee utterance number (1, 2, …) of a stored counselor turn ``seq`` (1, 3, 5, …)."""
    if turn_seq is None:
        return None
    return (int(turn_seq) + 1) // 2


def history(events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Coach events of a session as the service lists them (recharges with their Korean message)."""
    return [{"turn_seq": e["turn_seq"], "trainee_turn": trainee_turn_number(e["turn_seq"]),
             "event_type": e["event_type"], "credit_delta": e["credit_delta"],
             "credit_balance": e["credit_balance"], "reason": e["reason"], "card": e.get("payload"),
             "message": recharge_message(str(e["reason"]), trainee_turn=trainee_turn_number(e["turn_seq"]))
             if e["event_type"] == "recharge" else None}
            for e in events]


def rule_card(stage: str, *, turn_seq: int, credits_left: int, reason: str = "rule") -> CoachCard:
    title, focus, message, nxt = _RULE_CARDS.get(stage, _RULE_CARDS["라포"])
    return CoachCard(title=title, focus=focus, message=message, next_utterance=nxt,
                     rationale=f"{stage} 단계 기본 코칭({reason})", source="rule",
                     turn_seq=turn_seq, credits_left=credits_left)


def excerpt(text: str | None) -> str:
    """Masked excerpt short enough that the coach log never duplicates the transcript."""
    masked = mask_pii(text or "").text
    return clip_masked(masked, EXCERPT_CHARS)  # never cut inside a mask tag


def make_card(engine: Engine, *, credits: int, stage: str, goal_stages: Sequence[str],
              learner_text_masked: str, client_text_masked: str, last_cards: Sequence[dict],
              turn_seq: int, session_id: str | None = None,
              generate: Callable[[Any, GenerateRequest], Any] | None = None,
              kb_context: Sequence[str] = (), persona_code: str | None = None,
              history: Sequence[tuple[str, str]] = ()) -> CoachCard:
    """Build one card (engine first, rule fallback) for a session that still has credit.

    ``kb_context`` holds evaluator-policy KB passages for the last counselor utterance and
    stage; when non-empty they go into one cached L2 system message. ``persona_code`` and
    ``history`` (``(speaker, masked text)``, oldest first) let the card quote the trainee,
    read the client's line before the utterance and answer in the trainee's register.

    Raises
    ------
    CoachCreditExhausted
        When ``credits`` is 0.
    """
    if credits <= 0:
        raise CoachCreditExhausted()
    left = credits - 1
    if engine is None:
        return rule_card(stage, turn_seq=turn_seq, credits_left=left, reason="no_engine")
    from vignette_lab.engines.scripted_evaluator import speech_register
    counselor_lines = [t for s, t in history if s == "counselor"] or [learner_text_masked or ""]
    clients = [t for s, t in history if s == "client"]
    client_prev = clients[-2] if len(clients) >= 2 and clients[-1] == client_text_masked else ""
    payload = {"goal_stages": list(goal_stages), "stage": stage, "persona_code": persona_code,
               "trainee_register": speech_register(counselor_lines[-6:]),
               "client_prev": excerpt(client_prev) if client_prev else "",
               "counselor_utterance": excerpt(learner_text_masked) if learner_text_masked else "",
               "client_reply": excerpt(client_text_masked) if client_text_masked else "",
               "last_cards": [{"title": c.get("title"), "focus": c.get("focus")} for c in last_cards[-2:]]}
    system = EngineMessage("system", "당신은 상담 수련생 곁의 라이브 코치입니다. 이번 회기 목표 단계에 맞춰 "
                           "다음 한 문장을 중심으로 짧은 코칭 카드를 JSON으로 주세요. 수련생의 방금 발화를 인용하고, "
                           "다음 발화 예시는 수련생이 이 내담자에게 쓰는 말투(trainee_register; 청소년에게 반말/해요체, "
                           "성인에게 존댓말)로 씁니다. 직전 코칭과 같은 조언은 반복하지 마세요. 위기 신호가 있으면 위험 "
                           "확인을 먼저 권합니다. 내담자의 내면 설정이나 수치는 말하지 않습니다.",
                           cache=True, layer="COACH")
    kb = kb_message(kb_context, header=_KB_HEADER)
    user = EngineMessage("user", json.dumps(payload, ensure_ascii=False), layer="COACH-IN")
    request = GenerateRequest(
        ai_role="evaluator", temperature=0.2, max_tokens=400, structured_schema=COACH_SCHEMA,
        messages=(system, kb, user) if kb is not None else (system, user),
        session_id=session_id,
        metadata={"task": "coach_card", "stage": stage, "goal_stages": list(goal_stages),
                  "counselor_text": payload["counselor_utterance"]})
    try:
        response = generate(engine, request) if generate is not None else engine.generate(request)
        data = response.structured if isinstance(response.structured, dict) else json.loads(response.text)
        title, message, nxt = (str(data.get(k, "")).strip() for k in ("title", "message", "next_utterance"))
        if not (title and message and nxt):
            raise ValueError("coach card missing title/message/next_utterance")
    except Exception as exc:  # noqa: BLE001 — coaching degrades to rules, never blocks
        return rule_card(stage, turn_seq=turn_seq, credits_left=left,
                         reason=f"engine_fallback:{type(exc).__name__}")
    return CoachCard(title=title, focus=str(data.get("focus", "")), message=message,
                     next_utterance=nxt, rationale=str(data.get("rationale", "")), source="engine",
                     turn_seq=turn_seq, credits_left=left)
