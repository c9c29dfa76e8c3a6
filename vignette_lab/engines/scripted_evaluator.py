"""Rule-based evaluator for the scripted engine (seed 001 §2.6).

Dispatches on ``structured_schema["title"]``:

* ``turn_evaluation`` (fast loop) — technique tags from taxonomy cues (multi-label), a
  client-state read of the reply, appropriateness from rapport signal and stage fit,
  intent deviations, 0–5 scores derived from the tags, a Korean one-line rationale;
* ``session_evaluation`` (deep loop) — strengths, at most three improvements, a
  supervisor rationale and alternative utterances, all derived from the tags;
* ``coach_card`` — one short Korean coaching card that does not repeat the last cards.

Every label is a taxonomy code. Nothing here is random: the same input gives the same output.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Mapping, Sequence

from vignette_lab.engines.base import GenerateRequest
from vignette_lab.errors import EngineError

__all__ = ["evaluate", "label_utterance", "read_client_state", "score_turn", "tag_turn"]

_STAGES = ("라포", "탐색", "개입", "정리")
# Techniques that fit each stage's task (Hill: exploration → insight → action).
_STAGE_FIT = {
    "라포": {"reflection_feelings", "validation", "approval_reassurance", "open_question", "restatement", "other"},
    "탐색": {"reflection_feelings", "validation", "open_question", "restatement", "closed_question",
           "approval_reassurance", "immediacy"},
    "개입": {"interpretation", "challenge", "direct_guidance", "information", "immediacy", "self_disclosure",
           "reflection_feelings", "open_question", "restatement", "validation"},
    "정리": {"restatement", "approval_reassurance", "information", "direct_guidance", "validation",
           "reflection_feelings", "open_question", "other"},
}
_WARM = {"reflection_feelings", "validation", "approval_reassurance", "restatement"}
_CLIENT_STATE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("crisis_signal", re.compile(r"(사라졌으면|없어지면|없어졌으면|안\s*깼으면|죽고\s*싶|살고\s*싶지\s*않|끝내고\s*싶)")),
    ("hopeless", re.compile(r"(안\s*될\s*것|소용\s*없|쓸모가?\s*없|텅\s*빈|기대\s*안|희망이?\s*없|달라질\s*게\s*없|의미\s*없)")),
    ("avoidant", re.compile(r"(다른\s*얘기|하기\s*싫|왜\s*물어|그냥요|별일\s*아니|몰라요|그건\s*됐|넘어가)")),
    ("ambivalent", re.compile(r"(싶기도\s*하고|한편으로|하고\s*싶은데|그렇긴\s*한데|좋으면서도|모르겠.*그래도)")),
    ("collaborative", re.compile(r"(해\s*볼게요|해볼게요|그럴게요|생각해\s*볼게|맞는\s*것\s*같아요|도움이\s*될\s*것|올게요)")),
    ("emotional_expression", re.compile(r"(힘들|슬프|슬펐|불안|무서|외로|속상|지쳤|지쳐|화가|화나|억울|답답|서운|눈물|울었|걱정)")),
    ("self_disclosure", re.compile(r"(저는|제가|저한테|저도|엄마|아빠|동생|친구|어릴\s*때|사실)")),
)
_FEELINGS = (
    (re.compile(r"(귀찮|재미가?\s*없|무기력|텅\s*빈|지쳤|지쳐|피곤|번아웃|기운)"), "지친", "무기력함"),
    (re.compile(r"(불안|걱정|긴장|떨려|초조|조마조마)"), "불안한", "불안"),
    (re.compile(r"(외로|혼자|멀어|소외|끼지)"), "외로운", "외로움"),
    (re.compile(r"(억울|화가|화나|짜증)"), "억울한", "억울함"),
    (re.compile(r"(무서|두려|겁)"), "두려운", "두려움"),
    (re.compile(r"(슬프|슬펐|눈물|울)"), "슬픈", "슬픔"),
    (re.compile(r"(속상|실망|서운)"), "속상한", "속상함"),
    (re.compile(r"(답답|모르겠|막막)"), "막막한", "막막함"),
)


def feeling_word(text: str, *, form: str = "adnominal") -> str:
    """A Korean feeling word matched to a client line.

    ``form="adnominal"`` gives "지친" (for "… 마음"); ``form="noun"`` gives "무기력함" (the
    counselor banks' ``{feeling}`` slot). Defaults: "힘든" / "답답함".
    """
    index = 2 if form == "noun" else 1
    for entry in _FEELINGS:
        if entry[0].search(text or ""):
            return entry[index]
    return "답답함" if form == "noun" else "힘든"


def tag_turn(utterance: str, taxonomy: Any = None, *, model: Any = "default") -> tuple[str, ...]:
    """Technique codes for one counselor utterance (multi-label).

    The learned model of :mod:`vignette_lab.engines.utterance_tagger` (rule cues as features)
    when scikit-learn is available, else the corrected rule cues alone; codes outside the
    taxonomy are dropped.
    """
    from vignette_lab.engines import utterance_tagger
    tags = utterance_tagger.tag(utterance or "", model=model)
    if taxonomy is not None:
        allowed = set(taxonomy.technique_codes())
        tags = tuple(t for t in tags if t in allowed) or tuple(taxonomy.tag_techniques(utterance or ""))
    return tags


def label_utterance(utterance: str, *, client_prev: str = "", stage: str = "rapport", history: Sequence[Any] = (),
                    persona_code: str | None = None, crisis_context: bool | None = None,
                    model: Any = "default") -> dict[str, Any]:
    """Techniques, appropriateness and deviations of one utterance judged in its context.

    Parameters
    ----------
    utterance : str
    client_prev : str
        The client's line right before the utterance.
    stage : str
        Stage code (``rapport`` …) or Korean label (``라포`` …).
    history : sequence
        Earlier ``(speaker, text)`` turns of the session.
    persona_code : str, optional
    crisis_context : bool, optional
        Known crisis context; read from ``client_prev`` and ``history`` when None.
    model : TechniqueModel, None or "default"
        None runs the rule cues alone.

    Returns
    -------
    dict
        ``techniques``, ``appropriateness``, ``intent_deviation``, ``reasons``, ``crisis``.
    """
    from vignette_lab.engines import utterance_tagger
    techniques = list(tag_turn(utterance, model=model))
    verdict = utterance_tagger.judge(utterance, techniques, client_prev=client_prev, stage=stage,
                                     history=history, crisis_context=crisis_context)
    return {"techniques": techniques, "appropriateness": verdict["appropriateness"],
            "intent_deviation": verdict["deviations"], "reasons": verdict["reasons"],
            "crisis": verdict["crisis"], "screen": verdict["screen"], "persona_code": persona_code}


def read_client_state(reply: str, taxonomy: Any) -> list[str]:
    """Client-state codes read from the client's reply, limited to taxonomy codes."""
    allowed = set(taxonomy.client_state_codes())
    reply = (reply or "").strip()
    states: list[str] = []
    spoken = re.sub(r"\([^)]*\)", "", reply).strip(" .…")
    if not spoken:
        states.append("silent")
    for code, rx in _CLIENT_STATE_RULES:
        if rx.search(reply) and code not in states:
            states.append(code)
    if spoken and len(spoken) <= 8 and not ({"emotional_expression", "self_disclosure"} & set(states)):
        states.append("guarded")
    if "self_disclosure" in states and len(spoken) < 15:
        states.remove("self_disclosure")
    return [s for s in states if s in allowed]


def score_turn(techniques: Sequence[str], *, stage: str, signal: float, utterance: str,
               appropriateness: str) -> dict[str, float]:
    """0–5 scores derived only from the tags, signal and stage (no randomness)."""
    t = set(techniques)
    judgement = signal <= -0.5
    empathy = 1 + 2 * ("reflection_feelings" in t) + ("validation" in t or "approval_reassurance" in t) \
        + ("restatement" in t) + (signal >= 0.5) - 2 * judgement - ("direct_guidance" in t and stage in ("라포", "탐색"))
    questions = utterance.count("?")
    if "open_question" in t:
        open_q = 4 + (questions == 1)
    elif "closed_question" in t:
        open_q = 0 if signal < 0 else 1
    else:
        open_q = 2
    validation = 4 if "validation" in t else 3 if (t & {"approval_reassurance", "reflection_feelings"}) else 2
    validation -= 2 * judgement
    fit = 3 + (bool(t & _STAGE_FIT.get(stage, set())) and appropriateness != "warn") - 2 * (appropriateness == "warn")
    return {k: float(min(max(v, 0), 5)) for k, v in
            {"empathy": empathy, "open_questions": open_q, "validation": validation, "theory_fit": fit}.items()}


def _labels(codes: Sequence[str], taxonomy: Any) -> str:
    names = []
    for c in codes:
        try:
            names.append(taxonomy.technique(c).label)
        except KeyError:
            continue
    return "·".join(names) or "기타"


def _payload(request: GenerateRequest) -> dict[str, Any]:
    users = [m.content for m in request.messages if m.role == "user"]
    if not users:
        raise EngineError("evaluator request has no user message", code="bad_request")
    try:
        data = json.loads(users[-1])
    except ValueError:
        return {"_text": users[-1]}
    return data if isinstance(data, dict) else {"_text": users[-1]}


def _client_prev(data: Mapping[str, Any]) -> str:
    if data.get("client_prev"):
        return str(data["client_prev"])
    history = data.get("history") or []
    for h in reversed(history):
        if isinstance(h, Mapping) and h.get("speaker") == "client":
            return str(h.get("text", ""))
    return ""


def _turn_evaluation(engine: Any, request: GenerateRequest) -> dict[str, Any]:
    from vignette_lab.core.state import estimate_rapport_signal

    tax = engine.taxonomy
    meta = request.metadata
    data = _payload(request)
    utterance = str(meta.get("counselor_text") or data.get("counselor_utterance") or data.get("_text") or "")
    reply = str(meta.get("client_text") or data.get("client_reply") or "")
    stage = str(meta.get("stage") or data.get("stage") or "라포")
    stage = stage if stage in _STAGES else "라포"
    history = [h for h in (data.get("history") or []) if isinstance(h, Mapping)]
    label = label_utterance(utterance, client_prev=_client_prev(data), stage=stage, history=history,
                            persona_code=data.get("persona_code"))
    allowed = set(tax.technique_codes())
    techniques = [t for t in label["techniques"] if t in allowed] or list(tax.tag_techniques(utterance))
    signal = round(float(estimate_rapport_signal(utterance)), 3)
    t = set(techniques)
    deviations = list(label["intent_deviation"])
    reasons = list(label["reasons"])
    prev_counselor = [h.get("text", "") for h in history if h.get("speaker") == "counselor"]
    if "closed_question" in t and "open_question" not in t and prev_counselor and not label["screen"] \
            and "closed_question" in tag_turn(prev_counselor[-1]) and "open_question" not in tag_turn(prev_counselor[-1]):
        deviations.append({"dimension": "pacing", "expected": "개방형 질문으로 이야기를 넓히기",
                           "actual": "폐쇄형 질문 연속", "severity": "low"})
        reasons.insert(0, "폐쇄형 질문이 이어졌습니다")
    dims = set(tax.deviation_dimension_codes())
    deviations = [d for d in deviations if d["dimension"] in dims]
    appropriateness = "warn" if deviations else label["appropriateness"]
    if appropriateness == "warn" and not deviations:
        appropriateness = "neutral"
    if label["crisis"] and label["screen"]:
        signal = max(signal, 0.3)  # a risk check after a crisis cue is good practice, not a closed-question error
    scores = score_turn(techniques, stage=stage, signal=signal, utterance=utterance,
                        appropriateness=appropriateness)
    if label["crisis"] and label["screen"]:
        scores["open_questions"] = max(scores["open_questions"], 3.0)
    scores = {k: v for k, v in scores.items() if k in set(tax.score_dimension_codes())}
    return {
        "techniques": techniques,
        "client_state": read_client_state(reply, tax),
        "appropriateness": appropriateness,
        "intent_deviation": deviations,
        "rapport_signal": signal,
        "scores": scores,
        "rationale": f"{_labels(techniques, tax)}: {reasons[0] if reasons else '관찰된 기법입니다'}.",
    }


def _alternative(prev_client: str) -> str:
    return f"{feeling_word(prev_client)} 마음이 드셨겠어요. 그 일에 대해 조금 더 이야기해 줄 수 있을까요?"


def _session_evaluation(engine: Any, request: GenerateRequest) -> dict[str, Any]:
    from vignette_lab.core.state import estimate_rapport_signal

    tax = engine.taxonomy
    data = _payload(request)
    transcript = data.get("transcript")
    if not isinstance(transcript, list):
        # Plain text transcript: one "speaker: text" line per turn.
        transcript = []
        for i, line in enumerate(str(data.get("_text", "")).splitlines(), start=1):
            speaker, _, text = line.partition(":")
            role = "counselor" if speaker.strip() in ("상담자", "counselor", "[COUNSELOR]") else "client"
            transcript.append({"seq": i, "speaker": role, "text": text.strip()})
    given = {int(x["seq"]): list(x.get("techniques") or []) for x in data.get("turn_labels") or []
             if isinstance(x, Mapping) and "seq" in x}
    turns = []
    prev_client = ""
    for row in transcript:
        if not isinstance(row, Mapping):
            continue
        text = str(row.get("text", ""))
        if row.get("speaker") == "counselor":
            seq = int(row.get("seq", len(turns) + 1))
            tags = tax.parse_techniques(given.get(seq)) or tag_turn(text, tax)
            turns.append({"seq": seq, "text": text, "tags": set(tags), "prev_client": prev_client,
                          "signal": float(estimate_rapport_signal(text))})
        else:
            prev_client = text
    n = len(turns)
    counts = Counter(tag for turn in turns for tag in turn["tags"])
    strengths: list[str] = []
    if counts["reflection_feelings"]:
        strengths.append(f"내담자의 감정을 반영하며 이야기를 따라갔습니다(감정 반영 {counts['reflection_feelings']}회).")
    if counts["open_question"] >= 2:
        strengths.append("개방형 질문으로 내담자가 스스로 이야기를 넓힐 기회를 주었습니다.")
    if counts["validation"] or counts["approval_reassurance"]:
        strengths.append("내담자의 경험을 타당화하고 버텨 온 노력을 인정했습니다.")
    if counts["restatement"]:
        strengths.append("내담자의 말을 정리해 되돌려 주어 이해받는 느낌을 주었습니다.")
    if not strengths:
        strengths.append("끝까지 회기를 이어 가며 내담자와의 대화를 유지했습니다.")

    first_warm = next((i for i, t in enumerate(turns) if t["tags"] & _WARM), n)
    early_advice = [t for i, t in enumerate(turns) if "direct_guidance" in t["tags"] and (i < max(2, n // 3) or i < first_warm)]
    judged = [t for t in turns if t["signal"] <= -0.5 and t not in early_advice]
    closed = [t for t in turns if "closed_question" in t["tags"] and "open_question" not in t["tags"]]
    improvements: list[str] = []
    if early_advice:
        improvements.append("조언 전에 감정 반영을 먼저 해 보세요. 내담자가 이해받았다고 느낀 뒤에 조언이 들립니다.")
    if judged:
        improvements.append("평가나 당위 표현 대신 내담자의 입장에서 먼저 이해해 보세요.")
    if n and len(closed) / n > 0.4:
        improvements.append("폐쇄형 질문이 많았습니다. '어떤', '어떻게'로 시작하는 개방형 질문으로 바꿔 보세요.")
    if n and not counts["reflection_feelings"]:
        improvements.append("내담자의 감정을 한 번 이상 말로 되비춰 주세요.")
    if not improvements:
        improvements.append("다음 회기에는 내담자의 핵심 감정을 한 문장으로 요약해 돌려주는 연습을 해 보세요.")
    improvements = improvements[:3]

    alternatives = []
    for turn, why in ([(t, "조언보다 감정 반영과 개방형 질문이 먼저일 때 내담자가 더 열립니다.") for t in early_advice]
                      + [(t, "평가는 내담자를 방어적으로 만듭니다. 감정을 먼저 알아주세요.") for t in judged]
                      + [(t, "폐쇄형 질문은 대답을 좁힙니다. 경험을 넓게 묻는 질문이 탐색을 돕습니다.") for t in closed])[:3]:
        alternatives.append({"turn_seq": turn["seq"], "original": turn["text"],
                             "alternative": _alternative(turn["prev_client"]), "why": why})
    top = ", ".join(f"{_labels([c], tax)} {k}회" for c, k in counts.most_common(3)) or "뚜렷한 기법 없음"
    rationale = (f"상담자 발화 {n}개에서 {top}가 관찰되었습니다. "
                 + ("이른 조언이 관계 형성을 늦췄습니다." if early_advice else
                    "관계를 해치는 큰 이탈은 없었습니다." if not judged else "평가적 표현이 관계를 닫히게 했습니다."))
    return {"strengths": strengths, "improvements": improvements, "rationale": rationale,
            "supervisor_rationale": rationale, "alternatives": alternatives,
            "alternative_utterances": alternatives}


_COACH_CARDS = (
    ("advice", "감정 반영 먼저", "감정 반영",
     "조언은 잠시 미루고, 방금 들은 감정을 먼저 말로 되비춰 보세요.", "{feeling} 마음이 드셨겠어요.",
     "이해받았다고 느낀 뒤에야 내담자가 조언을 받아들일 여유가 생깁니다."),
    ("judgement", "판단 내려놓기", "타당화",
     "평가로 들릴 수 있는 말 대신, 그렇게 느낄 만한 이유를 먼저 인정해 주세요.", "그런 상황이라면 그렇게 느낄 만해요.",
     "평가는 방어를 부르고, 타당화는 이야기를 이어 가게 합니다."),
    ("closed", "질문 넓히기", "개방형 질문",
     "예/아니오로 끝나는 질문이 이어졌어요. 경험을 넓게 묻는 질문으로 바꿔 보세요.",
     "그때 어떤 마음이 들었는지 조금 더 이야기해 줄 수 있을까요?",
     "개방형 질문은 내담자가 스스로 이야기의 방향을 정하게 합니다."),
    ("explore", "한 걸음 더 탐색", "탐색 질문",
     "감정을 잘 받아 주었어요. 이제 그 감정이 언제 가장 크게 느껴지는지 물어보세요.",
     "그런 마음은 주로 언제 가장 크게 느껴져요?",
     "감정 반영 뒤의 구체적 질문이 탐색 단계로 넘어가는 다리가 됩니다."),
    ("summarize", "요약으로 정리", "재진술·요약",
     "지금까지 들은 이야기를 짧게 요약해 내담자가 확인할 기회를 주세요.",
     "지금까지 이야기를 모아 보면, {feeling} 마음이 오래 이어져 왔다는 거네요.",
     "요약은 이해를 확인하고 다음 주제로 넘어갈 발판이 됩니다."),
    ("reflect", "감정에 이름 붙이기", "감정 반영",
     "내담자의 말 밑에 있는 감정을 한 단어로 짚어 주세요.", "{feeling} 마음이 크셨겠어요.",
     "감정에 이름이 붙으면 내담자가 자기 경험을 더 또렷이 봅니다."),
)


def _coach_card(engine: Any, request: GenerateRequest) -> dict[str, Any]:
    from vignette_lab.core.state import estimate_rapport_signal

    tax = engine.taxonomy
    data = _payload(request)
    meta = request.metadata
    utterance = str(meta.get("counselor_text") or data.get("counselor_utterance") or data.get("_text") or "")
    reply = str(data.get("client_reply") or "")
    stage = str(meta.get("stage") or data.get("stage") or "라포")
    tags = set(tag_turn(utterance, tax))
    signal = float(estimate_rapport_signal(utterance))
    recent = {str(c.get(k)) for c in (data.get("last_cards") or []) if isinstance(c, Mapping)
              for k in ("title", "focus")}
    wanted: list[str] = []
    if "direct_guidance" in tags and stage in ("라포", "탐색"):
        wanted.append("advice")
    if signal <= -0.5:
        wanted.append("judgement")
    if "closed_question" in tags and "open_question" not in tags:
        wanted.append("closed")
    if tags & _WARM and stage in ("라포", "탐색"):
        wanted.append("explore")
    if stage in ("개입", "정리"):
        wanted.append("summarize")
    wanted += ["reflect", "explore", "summarize", "closed"]
    feeling = feeling_word(reply)
    for key in wanted:
        for card in _COACH_CARDS:
            if card[0] == key and card[1] not in recent and card[2] not in recent:
                return {"title": card[1], "focus": card[2], "message": card[3],
                        "next_utterance": card[4].format(feeling=feeling), "rationale": card[5]}
    card = next(c for c in _COACH_CARDS if c[0] == wanted[0])
    return {"title": card[1], "focus": card[2], "message": card[3],
            "next_utterance": card[4].format(feeling=feeling), "rationale": card[5]}


_TASKS = {"turn_evaluation": _turn_evaluation, "session_evaluation": _session_evaluation,
          "coach_card": _coach_card}


def evaluate(engine: Any, request: GenerateRequest) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Answer an evaluator request by its schema title (or ``metadata["task"]``).

    Raises
    ------
    EngineError
        ``code="bad_request"`` for a title the scripted evaluator does not know.
    """
    schema = request.structured_schema or {}
    title = schema.get("title") or request.metadata.get("task") or "turn_evaluation"
    task = _TASKS.get(str(title))
    if task is None:
        raise EngineError(f"scripted evaluator has no rules for schema title {title!r} "
                          f"(known: {', '.join(sorted(_TASKS))})", code="bad_request")
    result = task(engine, request)
    return json.dumps(result, ensure_ascii=False), result, {"task": title}
