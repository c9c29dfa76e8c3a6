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
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.engines.base import GenerateRequest
from vignette_lab.errors import EngineError
from vignette_lab.core.pii import clip_masked
from vignette_lab.core.state import estimate_rapport_signal
from vignette_lab.engines import utterance_tagger

if TYPE_CHECKING:
    from vignette_lab.engines.scripted import ScriptedEngine

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
            return str(entry[index])
    return "답답함" if form == "noun" else "힘든"


TAG_CACHE_SIZE = 4096
_TAGS: dict[str, tuple[Any, tuple[str, ...]]] = {}
_TAGS_LOCK = threading.Lock()


def tag_turn(utterance: str, taxonomy: Any = None, *, model: Any = "default") -> tuple[str, ...]:
    """Technique codes for one counselor utterance (multi-label).

    The rule cues of :mod:`vignette_lab.engines.utterance_tagger` by default, or its learned
    model (rule cues as features) when ``VIGNETTE_EVALUATOR_MODEL=model``; codes outside the
    taxonomy are dropped. With the default model the tags are remembered per text (bounded; the
    same counselor line is tagged again at the next turn and by the deep evaluation).
    """
    text = utterance or ""
    if isinstance(model, str):
        resolved = utterance_tagger.default_model()
        hit = _TAGS.get(text)
        if hit is not None and hit[0] is resolved:
            tags = hit[1]
        else:
            tags = utterance_tagger.tag(text, model=resolved)
            with _TAGS_LOCK:  # the app's deep evaluation runs in a worker thread next to live sends
                _TAGS[text] = (resolved, tags)
                while len(_TAGS) > TAG_CACHE_SIZE:
                    _TAGS.pop(next(iter(_TAGS)))
    else:
        tags = utterance_tagger.tag(text, model=model)
    if taxonomy is not None:
        allowed = set(taxonomy.technique_codes())
        tags = tuple(t for t in tags if t in allowed) or tuple(taxonomy.tag_techniques(utterance or ""))
    return tags


def label_utterance(utterance: str, *, client_prev: str = "", stage: str = "rapport", history: Sequence[Any] = (),
                    persona_code: str | None = None, crisis_context: bool | None = None,
                    model: Any = "default", appropriateness_model: Any = "default") -> dict[str, Any]:
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
    appropriateness_model : AppropriatenessModel, None or "default"
        None keeps the rule judgement (:func:`utterance_tagger.rule_judge`).

    Returns
    -------
    dict
        ``techniques``, ``appropriateness``, ``intent_deviation``, ``reasons``, ``crisis``.
    """
    techniques = list(utterance_tagger.in_context(tag_turn(utterance, model=model), utterance, client_prev=client_prev))
    verdict = utterance_tagger.judge(utterance, techniques, client_prev=client_prev, stage=stage,
                                     history=history, crisis_context=crisis_context, persona_code=persona_code,
                                     model=appropriateness_model)
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


def _turn_evaluation(engine: ScriptedEngine, request: GenerateRequest) -> dict[str, Any]:

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


_NOUN_FEELINGS = ("무기력함", "불안", "외로움", "억울함", "두려움", "슬픔", "속상함", "막막함", "답답함")


def speech_register(texts: Sequence[str]) -> str:
    """The trainee's register over their utterances: ``banmal``, ``haeyo`` or ``formal``."""
    banmal = haeyo = formal = 0
    for t in texts:
        t = re.sub(r"[\s.?!…~ㅋㅎㅠ]+$", "", t or "")
        if re.search(r"(습니다|습니까|세요|셨|시죠|십시오|시나요|으시|하시)", t):
            formal += 1
        elif re.search(r"(요|죠|까요)$", t) or re.search(r"요[.?!]", t):
            haeyo += 1
        elif t:
            banmal += 1
    if banmal > max(haeyo, formal):
        return "banmal"
    return "formal" if formal > haeyo else "haeyo"


def target_register(persona_code: str | None, trainee_register: str) -> str:
    """Register the alternative should use: 반말/해요체 for teens as the trainee does, 존댓말 for adults."""
    from vignette_lab.engines.utterance_tagger import is_teen
    if is_teen(persona_code):
        return "banmal" if trainee_register == "banmal" else "haeyo"
    return "formal"


def _quote(text: str, limit: int = 28) -> str:
    t = re.sub(r"\([^)]*\)", "", text or "").strip()
    t = re.sub(r"\s+", " ", t).strip(" .…~")
    return clip_masked(t, limit)  # never "[CLIE…": a cut inside a mask tag moves before it


_ALT = {
    "reflect": {"banmal": "'{c}'라고 했구나. {f}이 컸겠다. 그때 어떤 마음이었는지 더 얘기해 줄래?",
                "haeyo": "'{c}'라고 했군요. {f}이 컸겠어요. 그때 어떤 마음이었는지 조금 더 이야기해 줄 수 있어요?",
                "formal": "'{c}'라고 하셨군요. {f}이 크셨겠어요. 그때 어떤 마음이셨는지 조금 더 말씀해 주시겠어요?"},
    "open": {"banmal": "'{c}'라고 했는데, 그 일이 있을 때 어떤 생각이 들었어?",
             "haeyo": "'{c}'라고 했는데, 그 일이 있을 때 어떤 생각이 들었어요?",
             "formal": "'{c}'라고 하셨는데, 그 일이 있을 때 어떤 생각이 드셨어요?"},
    "validate": {"banmal": "'{c}'라고 느낄 만해. 그런 상황이면 누구라도 {f}이 클 거야.",
                 "haeyo": "'{c}'라고 느낄 만해요. 그런 상황이면 누구라도 {f}이 클 거예요.",
                 "formal": "'{c}'라고 느끼실 만해요. 그런 상황이라면 누구라도 {f}이 크실 거예요."},
    "screen": {"banmal": "'{c}'라는 말이 마음에 걸려. 혹시 죽고 싶다는 생각이 들 때도 있어?",
               "haeyo": "'{c}'라는 말이 마음에 걸려요. 혹시 죽고 싶다는 생각이 들 때도 있어요?",
               "formal": "'{c}'라는 말씀이 마음에 걸립니다. 혹시 죽고 싶다거나 스스로를 해치고 싶은 생각이 드실 때도 있으세요?"},
}
_REGISTER_KO = {"banmal": "반말", "haeyo": "해요체", "formal": "존댓말"}
_WHY = {
    "safety": "위기 신호 뒤에는 감정을 받는 것과 함께 자살·자해 위험을 직접 묻는 것이 먼저입니다.",
    "advice": "조언보다 감정 반영과 개방형 질문이 먼저일 때 내담자가 더 열립니다.",
    "judge": "평가나 축소는 내담자를 방어적으로 만듭니다. 그렇게 느낄 만한 이유를 먼저 알아주세요.",
    "closed": "폐쇄형 질문이 이어지면 대답이 좁아집니다. 경험을 넓게 묻는 질문이 탐색을 돕습니다.",
}


def alternative_utterance(kind: str, *, client_line: str, register: str) -> str:
    """A Korean alternative in the given register that quotes the client's own words."""
    templates = _ALT.get(kind, _ALT["reflect"])
    c = _quote(client_line, 20)
    f = feeling_word(client_line, form="noun")
    text = templates.get(register, templates["haeyo"]).format(c=c or "…", f=f)
    if not c:  # nothing to quote (silence, first turn): drop the quoting clause
        text = re.sub(r"^'…'(라고|라는|이라는)[^.?]*?[.,]\s*", "", text)
    return text


def _feeling_line(lines: Sequence[tuple[int, str]]) -> tuple[int, str] | None:
    """The client line (number, text) that carries the most feeling words, else the longest."""
    from vignette_lab.engines.utterance_tagger import _FEEL_RX
    spoken = [(k, t) for k, t in lines if _quote(t)]
    if not spoken:
        return None
    return max(spoken, key=lambda kt: (len(_FEEL_RX.findall(kt[1])), len(kt[1])))


def _stage_path(data: Mapping[str, Any]) -> list[str]:
    path = [str(x) for x in (data.get("stage_path") or []) if str(x) in _STAGES]
    return list(dict.fromkeys(path))


def _session_evaluation(engine: ScriptedEngine, request: GenerateRequest) -> dict[str, Any]:
    from vignette_lab.engines import utterance_tagger as ut

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
    persona = data.get("persona_code")
    given = {int(x["seq"]): list(x.get("techniques") or []) for x in data.get("turn_labels") or []
             if isinstance(x, Mapping) and "seq" in x}
    stage_of = {int(k): str(v) for k, v in (data.get("turn_stages") or {}).items()} if isinstance(
        data.get("turn_stages"), Mapping) else {}
    turns: list[dict[str, Any]] = []
    prev_client = ""
    history: list[tuple[str, str]] = []
    crisis_line = ""
    for row in transcript:
        if not isinstance(row, Mapping):
            continue
        text = str(row.get("text", ""))
        if row.get("speaker") == "counselor":
            seq = int(row.get("seq", len(turns) + 1))
            tags = tax.parse_techniques(given.get(seq)) or tag_turn(text, tax)
            stage = stage_of.get(seq, "라포")
            verdict = ut.judge(text, list(tags), client_prev=prev_client, stage=stage, history=history,
                               persona_code=persona)
            turns.append({"seq": seq, "k": len(turns) + 1, "text": text, "tags": set(tags), "prev_client": prev_client,
                          "crisis_line": crisis_line, "signal": float(estimate_rapport_signal(text)), "verdict": verdict})
            history.append(("counselor", text))
        else:
            prev_client = text
            if ut.crisis_cue(text):
                crisis_line = text
            history.append(("client", text))
    n = len(turns)
    register = target_register(persona, speech_register([t["text"] for t in turns]))
    counts = Counter(tag for turn in turns for tag in turn["tags"])

    def first(pred):
        return next((t for t in turns if pred(t)), None)

    strengths: list[str] = []
    warm = first(lambda t: "reflection_feelings" in t["tags"] and t["verdict"]["appropriateness"] == "pos")
    client_lines = [(k + 1, str(r.get("text", ""))) for k, r in enumerate(
        r for r in transcript if isinstance(r, Mapping) and r.get("speaker") != "counselor")]
    reply_of = {}
    for r in transcript:
        if isinstance(r, Mapping) and r.get("speaker") != "counselor":
            prev = [t for t in turns if t["seq"] < int(r.get("seq", 0))]
            if prev and prev[-1]["seq"] not in reply_of:
                reply_of[prev[-1]["seq"]] = str(r.get("text", ""))
    if warm:
        reply = _quote(reply_of.get(warm["seq"], ""), 30)
        strengths.append(f"상담자 {warm['k']}번째 발화 \"{_quote(warm['text'], 40)}\"에서 내담자의 감정을 말로 되비췄습니다"
                         f"(이 회기 감정 반영 {counts['reflection_feelings']}회)"
                         + (f"; 내담자는 \"{reply}\"라고 이어 갔습니다." if reply else "."))
    oq = first(lambda t: "open_question" in t["tags"] and t["verdict"]["appropriateness"] == "pos")
    if oq:
        reply = _quote(reply_of.get(oq["seq"], ""), 30)
        strengths.append(f"상담자 {oq['k']}번째 발화 \"{_quote(oq['text'], 40)}\"처럼 열린 질문으로 내담자가 이야기를 넓힐 "
                         f"기회를 주었습니다(개방형 질문 {counts['open_question']}회)"
                         + (f"; 답은 \"{reply}\"였습니다." if reply else "."))
    screened = [t for t in turns if t["verdict"]["crisis"] and t["verdict"]["screen"]]
    if screened:
        # first: a risk check after a cue is the move a trainee most needs to know was right
        strengths.insert(0, f"상담자 {screened[0]['k']}번째 발화 \"{_quote(screened[0]['text'], 40)}\"로 위기 신호 뒤에 위험을 "
                         "직접 확인했습니다. 안전 확인은 적절한 개입입니다.")
    val = first(lambda t: t["tags"] & {"validation", "approval_reassurance"} and t["verdict"]["appropriateness"] == "pos")
    if val and len(strengths) < 3:
        strengths.append(f"상담자 {val['k']}번째 발화 \"{_quote(val['text'], 40)}\"로 내담자의 경험과 노력을 인정했습니다.")
    if not strengths and n:
        last = next((t for t in reversed(turns) if _quote(t["text"])), None)
        strengths.append(f"상담자 발화 {n}개로 끝까지 회기를 이어 가며 대화를 유지했습니다"
                         + (f"(마지막 발화 \"{_quote(last['text'], 30)}\")." if last else "."))

    # What held the session back, most serious first.
    problems: list[tuple[str, dict[str, Any]]] = []
    for t in turns:
        dims = {d["dimension"] for d in t["verdict"]["deviations"]}
        if "safety" in dims:
            problems.append(("safety", t))
        elif "direct_guidance" in t["tags"] and "stage_fit" in dims:
            problems.append(("advice", t))
        elif "focus" in dims or t["signal"] <= -0.5:
            problems.append(("judge", t))
    closed = [t for t in turns if "closed_question" in t["tags"] and "open_question" not in t["tags"]
              and not t["verdict"]["screen"]]
    # an unanswered crisis cue: a client cue with no risk check in the next two counselor turns
    unanswered: list[tuple[str, int]] = []
    client_k = 0
    for row in (r for r in transcript if isinstance(r, Mapping)):
        if row.get("speaker") != "client":
            continue
        client_k += 1
        if ut.crisis_cue(str(row.get("text", ""))):
            later = [t for t in turns if t["seq"] > int(row.get("seq", 0))][:2]
            # the judge's own follow-up rule (a dismissal naming the thought is no check)
            if not any(ut.crisis_follow_up(t["text"], client_prev=t["prev_client"]) for t in later):
                unanswered.append((str(row.get("text", "")), client_k))
    improvements: list[str] = []
    if unanswered:
        text, k = unanswered[0]
        improvements.append(f"내담자가 {k}번째 응답에서 \"{_quote(text, 40)}\"라고 위기 신호를 보였는데, 이어진 발화에서 "
                            "자살·자해 위험 확인이 없었습니다. 위기 신호가 나오면 다른 주제보다 먼저 직접 물어보세요.")
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for kind, t in problems:
        by_kind.setdefault(kind, []).append(t)
    if by_kind.get("safety") and not unanswered:
        t = by_kind["safety"][0]
        improvements.append(f"상담자 {t['k']}번째 발화 \"{_quote(t['text'], 40)}\"는 위기 신호를 축소하거나 넘어가는 말로 들립니다. "
                            "위험을 먼저 확인하세요.")
    if by_kind.get("advice"):
        t = by_kind["advice"][0]
        improvements.append(f"상담자 {t['k']}번째 발화 \"{_quote(t['text'], 40)}\"처럼 조언이 감정 반영보다 먼저 나왔습니다"
                            f"(이른 조언 {len(by_kind['advice'])}회). 내담자가 이해받았다고 느낀 뒤에 조언이 들립니다.")
    if by_kind.get("judge"):
        t = by_kind["judge"][0]
        improvements.append(f"상담자 {t['k']}번째 발화 \"{_quote(t['text'], 40)}\"는 평가나 축소로 들릴 수 있습니다. "
                            "내담자의 입장에서 먼저 이해해 보세요.")
    if n and len(closed) / n > 0.4:
        improvements.append(f"상담자 발화 {n}개 중 {len(closed)}개가 폐쇄형 질문이었습니다(예: {closed[0]['k']}번째 "
                            f"\"{_quote(closed[0]['text'], 30)}\"). '어떤', '어떻게'로 여는 질문으로 바꿔 보세요.")
    feeling_line = _feeling_line(client_lines)
    if n and not counts["reflection_feelings"]:
        improvements.append(f"상담자 발화 {n}개 중 감정 반영이 한 번도 없었습니다."
                            + (f" 예를 들어 내담자가 {feeling_line[0]}번째 응답에서 \"{_quote(feeling_line[1], 36)}\"라고 "
                               "했을 때 그 밑의 감정을 말로 짚어 줄 수 있었습니다." if feeling_line else
                               " 내담자의 감정을 한 번 이상 말로 되비춰 주세요."))
    if not n:  # ended before the first counselor turn: nothing to praise or correct yet
        improvements.append("상담자 발화가 없어 평가할 내용이 없습니다. 다음 회기에는 열린 질문으로 대화를 시작해 보세요.")
    if not improvements:
        improvements.append("큰 이탈은 없었습니다. 다음 회기에는 내담자의 말"
                            + (f"(예: {feeling_line[0]}번째 응답 \"{_quote(feeling_line[1], 30)}\")" if feeling_line else "")
                            + " 밑의 핵심 감정을 한 문장으로 요약해 돌려주는 연습을 해 보세요.")
    improvements = improvements[:3]

    alternatives = []
    picked: list[tuple[str, dict[str, Any]]] = []
    if unanswered:
        seq_after = next((t for t in turns if ut.crisis_cue(t["prev_client"])), None)
        if seq_after:
            picked.append(("safety", seq_after))
    for kind in ("safety", "advice", "judge"):
        picked += [(kind, t) for t in by_kind.get(kind, []) if all(t is not p[1] for p in picked)]
    picked += [("closed", t) for t in closed if all(t is not p[1] for p in picked)]
    for kind, turn in picked[:3]:
        alt_kind = {"safety": "screen", "advice": "reflect", "judge": "validate", "closed": "open"}[kind]
        alternatives.append({"turn_seq": turn["seq"], "original": turn["text"],
                             "alternative": alternative_utterance(
                                 alt_kind, client_line=(turn["crisis_line"] or turn["prev_client"]) if kind == "safety"
                                 else turn["prev_client"], register=register),
                             "why": f"상담자 {turn['k']}번째 발화: " + _WHY[kind] + f" ({_REGISTER_KO[register]}로 제안)"})

    goals = [g for g in (data.get("goal_stages") or []) if g in _STAGES]
    path = _stage_path(data)
    reached = [g for g in goals if g in path] if path else []
    # ties by code, not by first appearance: a turn's tags come from a set, whose order changes per process
    ranked = sorted(counts.items(), key=lambda ck: (-ck[1], ck[0]))[:3]
    top = ", ".join(f"{_labels([c], tax)} {k}회" for c, k in ranked)
    # The most frequent technique's first occurrence, quoted: the summary speaks to this session.
    top_turn = next((t for t in turns if ranked and ranked[0][0] in t["tags"]), None)
    example = ""
    if top_turn is not None:
        quoted = _quote(top_turn["text"], 30)
        example = f'(예: {top_turn["k"]}번째 "{quoted}")'
    parts = [f"상담자 발화 {n}개에서 {top}가 관찰되었습니다{example}." if ranked else
             (f"상담자 발화 {n}개에서 뚜렷한 기법이 관찰되지 않았습니다." if n else "상담자 발화 없이 회기가 끝났습니다.")]
    if goals:
        if path:
            missed = [g for g in goals if g not in path]
            if reached and missed:
                parts.append(f"이번 회기 목표 단계 {'·'.join(goals)} 중 {'·'.join(reached)} 단계에 도달했고, "
                             f"{'·'.join(missed)} 단계에는 이르지 못했습니다.")
            elif reached:
                parts.append(f"이번 회기 목표 단계 {'·'.join(goals)}에 모두 도달했습니다.")
            else:
                parts.append(f"이번 회기 목표 단계 {'·'.join(goals)} 중 어느 단계에도 도달하지 못했습니다.")
        else:
            parts.append(f"목표 단계 {'·'.join(goals)}의 도달 여부는 기록된 상태가 없어 판단하지 않았습니다.")
    held = []
    if unanswered:
        held.append("응답되지 않은 위기 신호")
    if by_kind.get("advice"):
        held.append(f"이른 조언 {len(by_kind['advice'])}회")
    if by_kind.get("judge"):
        held.append(f"평가·축소 표현 {len(by_kind['judge'])}회")
    if n and len(closed) / n > 0.4:
        held.append(f"폐쇄형 질문 {len(closed)}회")
    parts.append(f"진행을 늦춘 것: {', '.join(held)}." if held else "관계를 해치는 큰 이탈은 없었습니다.")
    rationale = " ".join(parts)
    return {"strengths": strengths[:3], "improvements": improvements, "rationale": rationale,
            "supervisor_rationale": rationale, "alternatives": alternatives,
            "alternative_utterances": alternatives, "goal_stages_reached": reached,
            "crisis_unanswered": bool(unanswered)}


_COACH_FOCUS = {
    "safety": ("위험 먼저 확인하기", "안전 확인", "screen",
               "방금 내담자 말에 위기 신호가 있었어요. 다른 이야기보다 먼저 자살·자해 생각을 직접 물어보세요.",
               "위기 신호 뒤의 직접 질문은 위험을 높이지 않고, 내담자가 도움을 받을 길을 엽니다."),
    "advice": ("조언은 잠시 미루기", "감정 반영", "reflect",
               "감정을 충분히 듣기 전에 조언이 나왔어요. 방금 들은 말을 먼저 되비춰 보세요.",
               "이해받았다고 느낀 뒤에야 내담자가 조언을 받아들일 여유가 생깁니다."),
    "judge": ("판단 내려놓기", "타당화", "validate",
              "평가나 축소로 들릴 수 있는 말이었어요. 그렇게 느낄 만한 이유를 먼저 인정해 주세요.",
              "평가는 방어를 부르고, 타당화는 이야기를 이어 가게 합니다."),
    "closed": ("질문 넓히기", "개방형 질문", "open",
               "예/아니오로 끝나는 질문이었어요. 경험을 넓게 묻는 질문으로 바꿔 보세요.",
               "개방형 질문은 내담자가 스스로 이야기의 방향을 정하게 합니다."),
    "explore": ("한 걸음 더 탐색", "개방형 질문", "open",
                "감정을 잘 받아 주었어요. 이제 내담자가 꺼낸 장면을 조금 더 넓혀 보세요.",
                "감정 반영 뒤의 구체적 질문이 탐색 단계로 넘어가는 다리가 됩니다."),
    "reflect": ("감정에 이름 붙이기", "감정 반영", "reflect",
                "내담자의 말 밑에 있는 감정을 한 단어로 짚어 주세요.",
                "감정에 이름이 붙으면 내담자가 자기 경험을 더 또렷이 봅니다."),
    "summarize": ("요약으로 정리", "재진술·요약", "reflect",
                  "지금까지 들은 이야기를 짧게 요약해 내담자가 확인할 기회를 주세요.",
                  "요약은 이해를 확인하고 다음 주제로 넘어갈 발판이 됩니다."),
}


def _coach_card(engine: ScriptedEngine, request: GenerateRequest) -> dict[str, Any]:
    from vignette_lab.engines import utterance_tagger as ut

    data = _payload(request)
    meta = request.metadata
    utterance = str(meta.get("counselor_text") or data.get("counselor_utterance") or data.get("_text") or "")
    reply = str(data.get("client_reply") or "")
    client_prev = str(data.get("client_prev") or "")
    stage = str(meta.get("stage") or data.get("stage") or "라포")
    persona = data.get("persona_code") or meta.get("persona_code")
    trainee_register = str(data.get("trainee_register") or speech_register([utterance]))
    register = target_register(persona, trainee_register)
    tags = set(tag_turn(utterance))
    verdict = ut.judge(utterance, list(tags), client_prev=client_prev, stage=stage,
                       history=[("client", client_prev)] if client_prev else (), persona_code=persona)
    dims = {d["dimension"] for d in verdict["deviations"]}
    recent = {str(c.get(k)) for c in (data.get("last_cards") or []) if isinstance(c, Mapping)
              for k in ("title", "focus")}
    wanted: list[str] = []
    if ut.crisis_cue(reply) or ("safety" in dims):
        wanted.append("safety")
    if "direct_guidance" in tags and "stage_fit" in dims:
        wanted.append("advice")
    if "focus" in dims:
        wanted.append("judge")
    if "closed_question" in tags and "open_question" not in tags and not verdict["screen"]:
        wanted.append("closed")
    if tags & _WARM and stage in ("라포", "탐색"):
        wanted.append("explore")
    if stage in ("개입", "정리"):
        wanted.append("summarize")
    wanted += ["reflect", "explore", "summarize", "closed"]
    key = next((k for k in wanted if k == "safety" or (_COACH_FOCUS[k][0] not in recent and _COACH_FOCUS[k][1] not in recent)),
               wanted[0])
    title, focus, alt_kind, message, why = _COACH_FOCUS[key]
    said = _quote(utterance, 36)
    line = reply if alt_kind in ("reflect", "validate", "open", "screen") and reply else client_prev
    if key == "safety" and ut.crisis_cue(reply):
        line = reply
    nxt = alternative_utterance(alt_kind, client_line=line, register=register)
    message = (f"방금 \"{said}\"라고 했어요. " if said else "") + message
    rationale = f"{why} ({stage} 단계, {_REGISTER_KO[register]}로 제안)"
    return {"title": title, "focus": focus, "message": message, "next_utterance": nxt, "rationale": rationale}


_TASKS = {"turn_evaluation": _turn_evaluation, "session_evaluation": _session_evaluation,
          "coach_card": _coach_card}


def evaluate(engine: ScriptedEngine, request: GenerateRequest) -> tuple[str, dict[str, Any], dict[str, Any]]:
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
