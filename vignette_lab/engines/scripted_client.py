"""Scripted client: a persona's reply built only from its card's ``script`` lines.

The engine reads the counselor's masked utterance the way an LLM would: it classifies the
move (empathic, open_question, closed_question, advice, judgement, neutral) from taxonomy
cues and the rapport heuristic, then answers in the persona's voice. Numbers from the state
machine only steer *which* lines are chosen (silence and deflection odds, disclosure depth);
they are never spoken. Lines already said in the visible history are not repeated.
"""

from __future__ import annotations

import random
import re
from typing import Any, Sequence

from vignette_lab.core.pii import mask_pii
from vignette_lab.engines.base import GenerateRequest
from vignette_lab.errors import EngineError

__all__ = ["MOVES", "classify_move", "client_reply", "disclosure_band"]

MOVES = ("empathic", "open_question", "closed_question", "advice", "judgement", "neutral")
_EMPATHIC_CODES = frozenset({"reflection_feelings", "validation", "approval_reassurance", "restatement"})
# Blame, "should" statements and dismissal: no taxonomy technique names these, yet a client hears them.
_JUDGEMENT = re.compile(
    r"(왜\s*그렇게\s*[가-힣\s]*(했|하|생각)|그러면\s*안\s*(돼|되)|그건\s*아니|잘못(했|한|이에요|이네요|된\s*생각)|"
    r"핑계|게으르|게을러|너무\s*예민|예민하게|이해가\s*안\s*(돼|가)|말이\s*안\s*(돼|되)|한심|"
    r"별거\s*아닌|별것도\s*아닌|별일\s*아닌|의지가\s*(약|없)|정신력|나약|유난|철이\s*없|어리광|"
    r"했어야|했으면\s*됐|하지\s*그랬|감사해야|배부른|다들\s*그렇게\s*(살|해)|누구나\s*그래)")
# "이야기해 보세요" invites talk: an open question, not advice.
_INVITATION = re.compile(r"(이야기|얘기|말|말씀)\s*(좀|조금|더|조금\s*더)?\s*(해|하)\s*(보세요|주세요|줄래|주실래|줄\s*수|주실\s*수)")
# Wh-questions the taxonomy cues miss ("… 뭐예요?"): still open questions to a listener.
_WH_QUESTION = re.compile(r"(뭐(예요|에요|야|니|죠)|뭔가요|뭘까|무엇인가요|어디|언제|누구)[^.!]*\?")
_OPENNESS_OF_BAND = {"low": 0.2, "mid": 0.45, "high": 0.72}


def classify_move(text: str, taxonomy: Any) -> str:
    """Which of :data:`MOVES` a counselor utterance is, read from its wording.

    Parameters
    ----------
    text : str
        The masked counselor utterance.
    taxonomy : Taxonomy
        Supplies ``tag_techniques`` (regex cues).

    Returns
    -------
    str
    """
    from vignette_lab.core.state import estimate_rapport_signal

    text = text or ""
    tags = set(taxonomy.tag_techniques(text))
    signal = float(estimate_rapport_signal(text))
    if _JUDGEMENT.search(text):
        return "judgement"
    if "direct_guidance" in tags and not _INVITATION.search(text):
        return "advice"
    if tags & _EMPATHIC_CODES:
        return "empathic"
    if "open_question" in tags or _INVITATION.search(text) or _WH_QUESTION.search(text):
        return "open_question"
    if "closed_question" in tags:
        return "judgement" if signal <= -0.5 else "closed_question"
    if "challenge" in tags and signal < 0:
        return "judgement"
    if signal >= 0.4:
        return "empathic"
    if signal <= -0.5:
        return "judgement"
    return "neutral"


def disclosure_band(openness: float) -> int:
    """Disclosure depth for an openness value: <0.3 → 0, <0.5 → 1, <0.7 → 2, else 3."""
    if openness < 0.3:
        return 0
    if openness < 0.5:
        return 1
    if openness < 0.7:
        return 2
    return 3


_STAGE_DEPTH_CAP = {"라포": 1, "탐색": 2, "개입": 3, "정리": 3}


def _openness(meta: dict[str, Any]) -> float:
    value = meta.get("effective_openness")
    if value is None:
        value = _OPENNESS_OF_BAND.get(str(meta.get("openness_band", "")), 0.3)
    try:
        return min(max(float(value), 0.0), 1.0)
    except (TypeError, ValueError):
        raise EngineError(f"metadata field 'effective_openness' must be a number, got {value!r}",
                          code="bad_request") from None


def _number(meta: dict[str, Any], key: str, default: float) -> float:
    value = meta.get(key, default)
    try:
        return float(default if value is None else value)
    except (TypeError, ValueError):
        raise EngineError(f"metadata field {key!r} must be a number, got {value!r}", code="bad_request") from None


def _pick(bank: Sequence[str] | None, used: str, rng: random.Random) -> str | None:
    """A line from ``bank`` not yet said in this session (``None`` when all were said)."""
    # ``used`` is the masked history: compare the masked line too, or a line that masking
    # changes would never look used and would be repeated.
    fresh = [line for line in (bank or ()) if line not in used and mask_pii(line).text not in used]
    return rng.choice(fresh) if fresh else None


def client_reply(engine: Any, request: GenerateRequest, rng: random.Random) -> tuple[str, None, dict[str, Any]]:
    """Build the persona's reply to the last user (counselor) message.

    Returns
    -------
    tuple
        ``(text, None, metadata)``; metadata holds ``counselor_move`` and ``reply_parts``.
    """
    meta = dict(request.metadata)
    code = meta.get("persona_code")
    if not code:
        raise EngineError("client request metadata lacks 'persona_code'", code="bad_request")
    view = engine.persona_view(str(code))
    script = view["script"]
    params = view.get("resistance") or {}
    stage = str(meta.get("stage") or "라포")
    openness = _openness(meta)
    resistance = min(max(_number(meta, "resistance", params.get("base_resistance", 0.5)), 0.0), 1.0)
    ideation = min(max(int(_number(meta, "ideation_stage", 1)), 1), 3)  # the simulation's safety cap
    silence_prob = float(params.get("silence_prob", 0.2))
    deflection_prob = float(params.get("deflection_prob", 0.2))

    users = [m.content for m in request.messages if m.role == "user"]
    history = [m.content for m in request.messages if m.role == "assistant"]
    counselor_text = users[-1] if users else ""
    # The prompt history holds only the last K turns; the orchestrator may list every earlier
    # reply of this session in metadata so lines are not repeated beyond that window.
    earlier = [str(x) for x in meta.get("prior_replies") or () if isinstance(x, str)]
    used = "\n".join(earlier + history)
    move = classify_move(counselor_text, engine.taxonomy)
    defensive = move in ("advice", "judgement")
    parts: list[str] = []
    kinds: list[str] = []

    def say(kind: str, line: str | None) -> bool:
        if line is None:
            return False
        parts.append(line)
        kinds.append(kind)
        return True

    first = not history and not earlier and _number(meta, "turn_seq", 1) <= 1
    if first and say("greeting", _pick(script.get("greeting"), used, rng)):
        return _finish(parts, kinds, move, None)

    last_was_silence = bool(history) and history[-1] in (script.get("silences") or ())
    p_silence = silence_prob * (0.4 + resistance) * (1.0 - openness)
    p_silence *= 1.5 if defensive else (0.5 if move == "empathic" else 1.0)
    p_silence = min(p_silence, 0.45) * (0.3 if last_was_silence else 1.0)
    if rng.random() < p_silence and say("silence", _pick(script.get("silences"), used, rng)):
        return _finish(parts, kinds, move, None)
    if openness < 0.45:
        p_deflect = deflection_prob * (1.4 if (defensive or move == "closed_question")
                                       else 0.4 if move == "empathic" else 0.7)
        p_deflect *= (0.45 - openness) / 0.45 + 0.3
        deflections = script.get("deflections") or ()
        if "?" not in counselor_text:  # "왜 물어보세요?" only answers a question
            deflections = [d for d in deflections if not re.search(r"(물어|질문)", d)]
        if rng.random() < min(p_deflect, 0.5) and say("deflection", _pick(deflections, used, rng)):
            return _finish(parts, kinds, move, None)

    reactions = script.get("reactions") or {}
    reaction = _pick(reactions.get(move), used, rng) or _pick(reactions.get("neutral"), used, rng)

    # How much the persona opens up: warm moves invite more, advice and judgement close it.
    p_disclose = {"empathic": 0.55 + 0.4 * openness, "open_question": 0.5 + 0.45 * openness,
                  "neutral": 0.25 + 0.3 * openness, "closed_question": 0.2 + 0.2 * openness,
                  "advice": 0.1 if openness >= 0.6 else 0.0,
                  "judgement": 0.05 if openness >= 0.7 else 0.0}[move]
    depth = min(disclosure_band(openness), _STAGE_DEPTH_CAP.get(stage, 3))
    if defensive:
        depth = max(depth - 1, 0)
    extra: tuple[str, str | None] | None = None
    hints = script.get("ideation_hints") or {}
    if (ideation >= 2 and openness >= 0.55 and move in ("empathic", "open_question")
            and rng.random() < 0.3):
        # Passive ideation only, never above the persona's (capped) stage.
        for level in range(ideation, 0, -1):
            line = _pick(hints.get(str(level)), used, rng)
            if line is not None:
                extra = ("ideation_hint", line)
                break
    if extra is None and stage == "정리" and rng.random() < 0.35:
        line = _pick(script.get("closing"), used, rng)
        if line is not None:
            extra = ("closing", line)
    # Resistance holds even warm turns back a little; surface lines ("0") need no openness.
    p_disclose *= 1.0 - 0.5 * resistance
    if extra is None and rng.random() < p_disclose:
        disclosures = script.get("disclosures") or {}
        for level in list(range(depth, -1, -1)):
            line = _pick(disclosures.get(str(level)), used, rng)
            if line is not None:
                extra = (f"disclosure:{level}", line)
                break

    if extra is not None and move in ("open_question", "neutral") and rng.random() < 0.4:
        reaction = None  # a question is often answered straight away
    say(f"reaction:{move}", reaction)
    if extra is not None:
        say(*extra)
    if not parts:
        # Every scripted line was already used: a short neutral beat beats repeating content.
        say("neutral_fallback", rng.choice(list(reactions.get("neutral") or script.get("silences") or ["…"])))
    if kinds[0].startswith("disclosure") and rng.random() < 0.15:
        fillers = [f for f in (view.get("speech_style") or {}).get("fillers", ()) if len(f) <= 3]
        if fillers:
            parts[0] = f"{rng.choice(fillers)} {parts[0]}"
    return _finish(parts, kinds, move, extra[0] if extra else None)


def _finish(parts: list[str], kinds: list[str], move: str, extra: str | None) -> tuple[str, None, dict[str, Any]]:
    return " ".join(parts), None, {"counselor_move": move, "reply_parts": kinds}
