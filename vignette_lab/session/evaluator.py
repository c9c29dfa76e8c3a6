"""Evaluator AI: fast loop per turn, deep loop per session (seed 001 §2.6).

The evaluator may see everything, but it only *judges*: it produces labels and a
``rapport_signal`` that the deterministic state machine may consume on the next turn.
Every label is parsed against the taxonomy enums — unknown values are dropped, never
invented — and an engine or parse failure lands in the ``error`` field instead of raising
(a judgement that failed must never break a counseling turn). Text sent to the evaluator
is masked and role identities are normalised to ``[COUNSELOR]`` / ``[CLIENT]`` / ``[NAME]``.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from vignette_lab.core.guardrails import mask_pii, mask_role_identities
from vignette_lab.core.taxonomy import load_taxonomy
from vignette_lab.engines.audit import generate_with_audit
from vignette_lab.engines.base import Engine, EngineError, EngineMessage, GenerateRequest, GenerateResponse

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

log = logging.getLogger(__name__)

__all__ = [
    "CHECKLIST_ID",
    "DEEP_SCHEMA",
    "FAST_SCHEMA",
    "SessionEvaluation",
    "TurnEvaluation",
    "evaluate_session",
    "evaluate_turn",
    "first_session_checklist",
    "kb_message",
    "kb_passages",
    "make_eval_hook",
    "parse_structured",
    "technique_distribution",
]

CHECKLIST_ID = "first-session-rapport-open-question.v1"
_REFLECTIVE = ("reflection_feelings", "restatement", "validation")

FAST_SCHEMA: dict[str, Any] = {
    "title": "turn_evaluation",
    "type": "object",
    "properties": {
        "techniques": {"type": "array", "items": {"type": "string"}},
        "client_state": {"type": "array", "items": {"type": "string"}},
        "appropriateness": {"type": "string", "enum": ["pos", "warn", "neutral"]},
        "intent_deviation": {"type": "array", "items": {
            "type": "object",
            "properties": {"dimension": {"type": "string"}, "expected": {"type": "string"},
                           "actual": {"type": "string"},
                           "severity": {"type": "string", "enum": ["low", "medium", "high"]}},
            "required": ["dimension", "expected", "actual", "severity"]}},
        "rapport_signal": {"type": "number", "minimum": -1, "maximum": 1},
        # explicit properties: strict structured output cannot express a free-form map
        "scores": {"type": "object", "additionalProperties": False,
                   "properties": {d: {"type": "number", "minimum": 0, "maximum": 5}
                                  for d in ("empathy", "open_questions", "validation", "theory_fit")}},
        "rationale": {"type": "string"},
    },
    "required": ["techniques", "client_state", "appropriateness", "rapport_signal"],
}

DEEP_SCHEMA: dict[str, Any] = {
    "title": "session_evaluation",
    "type": "object",
    "properties": {
        "strengths": {"type": "array", "items": {"type": "string"}},
        "improvements": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "rationale": {"type": "string"},
        "alternatives": {"type": "array", "items": {
            "type": "object",
            "properties": {"turn_seq": {"type": "integer"}, "original": {"type": "string"},
                           "alternative": {"type": "string"}, "why": {"type": "string"}},
            "required": ["alternative"]}},
    },
    "required": ["strengths", "improvements", "rationale"],
}


@dataclass(frozen=True)
class TurnEvaluation:
    """Fast-loop labels for one counselor utterance (empty labels + ``error`` on failure)."""

    techniques: tuple[str, ...] = ()
    client_state: tuple[str, ...] = ()
    appropriateness: str | None = None
    intent_deviation: tuple[dict[str, str], ...] = ()
    rapport_signal: float | None = None
    scores: dict[str, float] = field(default_factory=dict)
    rationale: str = ""
    error: str | None = None
    engine: str = ""
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["techniques"], d["client_state"] = list(self.techniques), list(self.client_state)
        d["intent_deviation"] = [dict(x) for x in self.intent_deviation]
        return d


@dataclass(frozen=True)
class SessionEvaluation:
    """Deep-loop review of one session. ``technique_distribution`` is counted by code."""

    technique_distribution: dict[str, Any] = field(default_factory=dict)
    strengths: tuple[str, ...] = ()
    improvements: tuple[str, ...] = ()
    rationale: str = ""
    alternatives: tuple[dict[str, Any], ...] = ()
    checklist: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    engine: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


@lru_cache(maxsize=1)
def _default_enums() -> dict[str, frozenset[str]]:
    return _enums(load_taxonomy())


def _enums(taxonomy: Any) -> dict[str, frozenset[str]]:
    return {"techniques": frozenset(taxonomy.technique_codes()),
            "client_states": frozenset(taxonomy.client_state_codes()),
            "appropriateness": frozenset(a.code for a in taxonomy.appropriateness),
            "dimensions": frozenset(taxonomy.deviation_dimension_codes()),
            "severity": frozenset(taxonomy.severities),
            "scores": frozenset(taxonomy.score_dimension_codes())}


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def parse_structured(response: GenerateResponse) -> dict[str, Any]:
    """Structured output first; else the JSON object inside the text (code fences tolerated).

    Raises
    ------
    ValueError
        When no JSON object can be recovered.
    """
    if isinstance(response.structured, dict):
        return response.structured
    text = response.text or ""
    m = _FENCE.search(text)
    if m:
        text = m.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError("no JSON object in evaluator output")
    data = json.loads(text[start:end + 1])
    if not isinstance(data, dict):
        raise ValueError("evaluator output is not a JSON object")
    return data


def _listify(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _parse_turn(data: dict[str, Any], enums: dict[str, frozenset[str]], engine: str) -> TurnEvaluation:
    techniques = tuple(dict.fromkeys(str(t) for t in _listify(data.get("techniques"))
                                     if str(t) in enums["techniques"]))
    states = tuple(dict.fromkeys(str(s) for s in _listify(data.get("client_state"))
                                 if str(s) in enums["client_states"]))
    appr = data.get("appropriateness")
    appr = str(appr) if appr is not None and str(appr) in enums["appropriateness"] else None
    devs = []
    for item in _listify(data.get("intent_deviation")):
        if not isinstance(item, Mapping):
            continue
        dim, sev = str(item.get("dimension", "")), str(item.get("severity", ""))
        if dim in enums["dimensions"] and sev in enums["severity"]:
            devs.append({"dimension": dim, "expected": str(item.get("expected", "")),
                         "actual": str(item.get("actual", "")), "severity": sev})
    signal = data.get("rapport_signal")
    try:
        signal = None if signal is None else max(-1.0, min(1.0, float(signal)))
    except (TypeError, ValueError):
        signal = None
    scores = {}
    given = data.get("scores")
    raw_scores: Mapping[Any, Any] = given if isinstance(given, Mapping) else {}
    for key, val in raw_scores.items():
        if str(key) in enums["scores"]:
            try:
                scores[str(key)] = max(0.0, min(5.0, float(val)))
            except (TypeError, ValueError):
                continue
    if not techniques and appr is None and signal is None:
        return TurnEvaluation(error="parse_error: no usable field in evaluator output", engine=engine)
    return TurnEvaluation(techniques=techniques, client_state=states, appropriateness=appr,
                          intent_deviation=tuple(devs), rapport_signal=signal, scores=scores,
                          rationale=str(data.get("rationale", ""))[:1000], engine=engine)


def _field(source: Any, name: str, default: Any = None) -> Any:
    if isinstance(source, Mapping):
        return source.get(name, default)
    return getattr(source, name, default)


def _normalise(text: str, counselor_names: Sequence[str], client_names: Sequence[str]) -> str:
    # role names first (so 김서연 becomes [CLIENT], not [NAME]), then every other identifier
    return _normalised(text or "", tuple(counselor_names), tuple(client_names))


@lru_cache(maxsize=8192)
def _normalised(text: str, counselor_names: tuple[str, ...], client_names: tuple[str, ...]) -> str:
    # deterministic, so remembered: each turn re-reads the last four history lines and the client's
    # previous line, already normalised in earlier turns
    roles = mask_role_identities(text, counselor_names=list(counselor_names), client_names=list(client_names),
                                 other_names=[])
    return mask_pii(roles).text


@lru_cache(maxsize=16)
def _fast_instructions(enums: tuple[tuple[str, frozenset[str]], ...]) -> str:
    e = dict(enums)
    return _FAST_INSTRUCTIONS.format(techniques=", ".join(sorted(e["techniques"])),
                                     states=", ".join(sorted(e["client_states"])),
                                     dims=", ".join(sorted(e["dimensions"])), scores=", ".join(sorted(e["scores"])))


_FAST_INSTRUCTIONS = (
    "당신은 상담 수퍼바이저 역할의 평가 AI입니다. 상담자 발화 하나를 직전 내담자 말(client_prev), 현재 단계(stage), "
    "이전 대화(history), 직후 내담자 반응과 함께 보고 분류 체계의 코드만 사용해 JSON으로 평가하세요. "
    "안전이 먼저입니다: 위기 신호 뒤의 자살·자해 위험 확인 질문은 적절(pos)이며 오류가 아니고, 위기 신호 뒤의 축소·조언·"
    "주제 전환은 주의(warn)와 intent_deviation.dimension=safety입니다. 허용 코드 — techniques: {techniques}; "
    "client_state: {states}; appropriateness: pos|warn|neutral; intent_deviation.dimension: {dims}; "
    "severity: low|medium|high; scores(0–5): {scores}. rapport_signal은 -1~1 실수입니다."
)


_KB_HEADER = ("참고 지식(지식베이스 검색 결과, [출처 id · 종류 · 절] 본문). 라벨과 근거를 판단할 때 참고만 하고, "
              "평가 결과에 그대로 옮겨 적지 마세요.")


def kb_message(kb_context: Sequence[str], *, header: str = _KB_HEADER) -> EngineMessage | None:
    """One cached L2 system message holding retrieved KB passages, or None when there are none.

    Parameters
    ----------
    kb_context : sequence of str
        Pre-formatted passages (the caller retrieved them under the right role policy and
        dropped C/D material for external engines).
    header : str
        Korean line that tells the model how to use the passages.

    Returns
    -------
    EngineMessage or None
    """
    lines = [str(x).strip() for x in kb_context if str(x).strip()]
    if not lines:
        return None
    return EngineMessage("system", header + "\n" + "\n".join(lines), cache=True, layer="L2")


def _with_kb(system: EngineMessage, kb_context: Sequence[str], user: EngineMessage) -> tuple[EngineMessage, ...]:
    extra = kb_message(kb_context)
    return (system, extra, user) if extra is not None else (system, user)


def _call(engine: Engine, request: GenerateRequest, cache: Any, audit_sink: Callable | None) -> tuple[GenerateResponse, bool]:
    if cache is not None:
        hit = cache.get(request)
        if hit is not None:
            cache.hits += 1
            return hit, True
        cache.misses += 1
    return generate_with_audit(engine, request, sink=audit_sink), False


def evaluate_turn(fields: Any, client_reply: str, engine: Engine, *, cache: Any = None,
                  audit_sink: Callable[..., Any] | None = None, taxonomy: Any = None,
                  counselor_names: Sequence[str] = (), client_names: Sequence[str] = (),
                  kb_context: Sequence[str] = ()) -> TurnEvaluation:
    """Fast loop: label one counselor utterance.

    Parameters
    ----------
    fields : TurnContext or mapping
        Needs ``learner_text_masked``; optional ``state_after`` (or ``stage``),
        ``persona_code``, ``history``, ``session_id``, ``theory_mode``.
    client_reply : str
        The client's (guarded) reply to the utterance.
    engine : Engine
        Evaluator-role engine.
    cache : EvaluatorCache or None, default=None
        Request cache; failures are never cached.
    audit_sink : callable or None, default=None
        Receives metadata-only audit rows (``generate_with_audit``).
    taxonomy : Taxonomy or None, default=None
        Enum source; the bundled taxonomy when None.
    kb_context : sequence of str, default=()
        Evaluator-policy KB passages for this utterance; sent as one L2 system message.
        Empty: the request is exactly the one without retrieval.

    Returns
    -------
    TurnEvaluation
        ``error`` set (and labels empty) on engine or parse failure; never raises.
    """
    enums = _enums(taxonomy) if taxonomy is not None else _default_enums()
    engine_name = str(getattr(engine, "name", type(engine).__name__))
    try:
        utterance = _normalise(_field(fields, "learner_text_masked", ""), counselor_names, client_names)
        reply = _normalise(client_reply, counselor_names, client_names)
        state = _field(fields, "state_after")
        stage = _field(state, "stage") if state is not None else _field(fields, "stage", "")
        full_history = list(_field(fields, "history", ()) or ())
        history = [(sp, _normalise(tx, counselor_names, client_names)) for sp, tx in full_history[-4:]]
        client_prev = next((_normalise(tx, counselor_names, client_names) for sp, tx in reversed(full_history)
                            if sp == "client"), "")
        # The client's line right before the utterance and the stage travel explicitly, so an
        # external judge reads the utterance in its context (and the crisis cue, if any).
        payload = {"stage": stage, "persona_code": _field(fields, "persona_code"),
                   "theory_mode": _field(fields, "theory_mode"),
                   "client_prev": client_prev,
                   "history": [{"speaker": sp, "text": tx} for sp, tx in history],
                   "counselor_utterance": utterance, "client_reply": reply}
        system = _fast_instructions(tuple(sorted(enums.items())))
        request = GenerateRequest(
            ai_role="evaluator", temperature=0.0, max_tokens=600, structured_schema=FAST_SCHEMA,
            messages=_with_kb(EngineMessage("system", system, cache=True, layer="EVAL"), kb_context,
                              EngineMessage("user", json.dumps(payload, ensure_ascii=False), layer="EVAL-IN")),
            session_id=_field(fields, "session_id"),
            metadata={"task": "turn_evaluation", "stage": stage,
                      "persona_code": _field(fields, "persona_code"),
                      "counselor_text": utterance, "client_text": reply, "client_prev": client_prev})
        response, cached = _call(engine, request, cache, audit_sink)
    except EngineError as exc:
        return TurnEvaluation(error=f"engine_error: {exc.code}: {exc}", engine=engine_name)
    except Exception as exc:  # noqa: BLE001 — the evaluator never raises into a turn
        return TurnEvaluation(error=f"engine_error: {type(exc).__name__}: {exc}", engine=engine_name)
    try:
        data = parse_structured(response)
    except (ValueError, json.JSONDecodeError) as exc:
        return TurnEvaluation(error=f"parse_error: {exc}", engine=engine_name)
    result = _parse_turn(data, enums, engine_name)
    if result.ok and cache is not None and not cached:
        cache.put(request, response)
    if cached:
        result = TurnEvaluation(**{**result.__dict__, "cached": True})
    return result


def kb_passages(db: Database, query: str, *, engine: Engine, embedder: Any, session_id: str | None = None,
                k: int = 4) -> tuple[str, ...]:
    """Evaluator-policy KB passages as ``[source_id · kind · heading] body`` lines (the live path's format).

    License C/D and ``external_llm_ok = false`` chunks are dropped unless ``engine`` runs
    locally. Empty without an embedder, for a blank query, or when retrieval fails — the
    knowledge base enriches a judgement, it never breaks one.
    """
    if db is None or embedder is None or not (query or "").strip():
        return ()
    try:
        from vignette_lab.kb.retrieval import POLICIES, search
        policy = POLICIES["evaluator"]
        external = str(getattr(engine, "name", "")) not in ("scripted",)
        hits = search(db, query, role="evaluator", k=k, external_engine=external, session_id=session_id,
                      embedder=embedder)
    except Exception as exc:  # noqa: BLE001 — retrieval is an enrichment
        log.warning("evaluator KB retrieval failed; judging without KB context: %s", exc)
        return ()
    lines = []
    for h in hits:
        if h.sensitivity > policy.sensitivity_max or h.kb_kind not in policy.kinds:
            continue
        label = " · ".join(x for x in (h.source_id, h.kb_kind, h.heading_path) if x)
        lines.append(f"[{label}] {' '.join(h.text.split())}")
    return tuple(lines)


def make_eval_hook(engine: Engine, *, cache: Any = None, audit_sink: Callable | None = None,
                   taxonomy: Any = None, counselor_names: Sequence[str] = (),
                   client_names: Sequence[str] = (),
                   kb: Callable[[str], Sequence[str]] | None = None,
                   kb_db: Any = None, embedder: Any = None) -> Callable[[Any, str], TurnEvaluation]:
    """Adapter for the orchestrator's ``eval_hook(ctx, client_reply)`` signature.

    KB context like the live path: ``kb`` maps the masked utterance to passages, or
    ``kb_db`` + ``embedder`` retrieve them with :func:`kb_passages` (evaluator policy).
    """
    def hook(ctx: Any, client_reply: str) -> TurnEvaluation:
        query = str(_field(ctx, "learner_text_masked", "") or "")
        if kb is not None:
            try:
                passages = tuple(kb(query))
            except Exception as exc:  # noqa: BLE001
                log.warning("evaluator KB passages failed; judging without KB context: %s", exc)
                passages = ()
        else:
            passages = kb_passages(kb_db, query, engine=engine, embedder=embedder,
                                   session_id=_field(ctx, "session_id"))
        return evaluate_turn(ctx, client_reply, engine, cache=cache, audit_sink=audit_sink,
                             taxonomy=taxonomy, counselor_names=counselor_names,
                             client_names=client_names, kb_context=passages)
    return hook


def technique_distribution(evaluations: Sequence[Any]) -> dict[str, Any]:
    """Count fast-loop technique tags (failed evaluations are skipped and counted apart)."""
    counts: Counter[str] = Counter()
    labelled = failed = 0
    for ev in evaluations:
        techniques = _field(ev, "techniques") or ()
        if _field(ev, "error"):
            failed += 1
            continue
        labelled += 1
        counts.update(techniques)
    total = sum(counts.values())
    return {"counts": dict(sorted(counts.items())),
            "shares": {k: round(v / total, 4) for k, v in sorted(counts.items())} if total else {},
            "labelled_turns": labelled, "failed_turns": failed}


def crisis_follow_up_summary(turns: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Crisis cues of a session and how the counselor followed them up (code, not the engine).

    A client line carrying a crisis cue (:func:`vignette_lab.engines.utterance_tagger.crisis_cue`)
    opens a cue; a counselor turn while a cue is open that screens the risk or plans safety
    (:func:`vignette_lab.engines.utterance_tagger.crisis_follow_up`: the thought, plan, means,
    past attempts, protective reasons, support, help lines, the limits of confidentiality) is
    credited as safety screening and closes it. A cue that gets no follow-up in the next two
    counselor turns, or after which the session ends, is *unanswered*; the review says so.

    Parameters
    ----------
    turns : sequence of mapping
        Stored turns with ``seq``, ``speaker`` and ``text_masked`` (or ``text``).

    Returns
    -------
    dict
        ``cues`` (client seqs), ``screened_turns`` (counselor seqs credited as safety screening),
        ``screened`` (``{"seq", "k", "text"}`` with ``k`` the counselor-turn number),
        ``unanswered`` (``{"seq", "k", "text"}`` of each cue left without follow-up, ``k`` the
        client-turn number).
    """
    from vignette_lab.engines import utterance_tagger as ut

    cues: list[int] = []
    screened: list[dict[str, Any]] = []
    unanswered: list[dict[str, Any]] = []
    open_cue: dict[str, Any] | None = None
    waited = 0
    prev_client = ""
    counselor_k = client_k = 0
    for t in sorted(turns, key=lambda x: int(x["seq"])):
        text = str(t.get("text_masked") or t.get("text") or "")
        if t.get("speaker") == "counselor":
            counselor_k += 1
            if open_cue is None:
                continue
            if ut.crisis_follow_up(text, client_prev=prev_client):
                screened.append({"seq": int(t["seq"]), "k": counselor_k, "text": text})
                open_cue = None
                continue
            waited += 1
            if waited >= 2:
                unanswered.append(open_cue)
                open_cue = None
        else:
            client_k += 1
            prev_client = text
            if ut.crisis_cue(text):
                cues.append(int(t["seq"]))
                if open_cue is None:
                    open_cue, waited = {"seq": int(t["seq"]), "k": client_k, "text": text}, 0
    if open_cue is not None:  # the session ended right after a cue: no follow-up either
        unanswered.append(open_cue)
    return {"cues": cues, "screened_turns": [x["seq"] for x in screened], "screened": screened,
            "unanswered": unanswered}


def first_session_checklist(session_no: int, counselor_turns: Sequence[tuple[int, Sequence[str], str]]) -> dict[str, Any]:
    """``first-session-rapport-open-question.v1``: a reflection and a single-focus open question.

    ``counselor_turns`` is ``(seq, techniques, text)``. An open question counts as single-focus
    when its utterance holds one question mark. Educational checklist, not a clinical score.
    """
    if session_no > 1:
        return {"id": CHECKLIST_ID, "status": "not_applicable", "evidence": {}}
    reflect = [seq for seq, tech, _ in counselor_turns if any(t in _REFLECTIVE for t in tech)]
    open_q = [seq for seq, tech, text in counselor_turns
              if "open_question" in tech and (text or "").count("?") <= 1]
    status = "observed" if reflect and open_q else "not_observed"
    return {"id": CHECKLIST_ID, "status": status,
            "evidence": {"reflection_turns": reflect[:5], "open_question_turns": open_q[:5]}}


def _stages(turns: Sequence[Mapping[str, Any]]) -> tuple[list[str], dict[str, str]]:
    """Stages the session passed through (from stored ``state_after``) and the stage each counselor turn was in."""
    path: list[str] = []
    per_turn: dict[str, str] = {}
    current = "라포"
    for t in sorted(turns, key=lambda x: int(x["seq"])):
        if t.get("speaker") == "counselor":
            per_turn[str(int(t["seq"]))] = current
            continue
        state = t.get("state_after") or {}
        stage = state.get("stage") if isinstance(state, Mapping) else None
        if stage:
            current = str(stage)
            if current not in path:
                path.append(current)
    if path and "라포" not in path and per_turn:
        path.insert(0, "라포")
    return path, per_turn


_DEEP_INSTRUCTIONS = (
    "당신은 상담 수퍼바이저입니다. 아래 축어록과 발화별 평가를 보고 JSON으로 답하세요: "
    "strengths(잘한 점), improvements(개선점 최대 3개), rationale(수퍼바이저 근거), "
    "alternatives(turn_seq, original, alternative, why — 더 나은 대안 발화). 모두 한국어로 씁니다. "
    "상담자의 실제 발화를 인용하고, 대안 발화는 상담자가 이 내담자에게 쓰는 말투(청소년에게 반말/해요체, 성인에게 존댓말)로 씁니다. "
    "목표 단계(goal_stages) 중 도달한 단계(stage_path)와 진행을 늦춘 요인을 rationale에 적고, 위기 신호에 위험 확인이 "
    "없었다면 반드시 개선점 첫 줄에 씁니다."
)


def evaluate_session(turns: Sequence[Mapping[str, Any]], evaluations: Sequence[Any], engine: Engine, *,
                     session_no: int = 1, goal_stages: Sequence[str] = (), persona_code: str | None = None,
                     session_id: str | None = None, cache: Any = None,
                     audit_sink: Callable | None = None, counselor_names: Sequence[str] = (),
                     client_names: Sequence[str] = (), kb_context: Sequence[str] = ()) -> SessionEvaluation:
    """Deep loop: technique distribution (code), checklist (code) and the supervisor's judgement (engine).

    Parameters
    ----------
    turns : sequence of mapping
        Stored turns with ``seq``, ``speaker``, ``text_masked``.
    evaluations : sequence
        Fast-loop evaluations (``TurnEvaluation`` or rows) with ``turn_seq``/``seq`` when known.
    engine : Engine
        Evaluator-role engine.
    kb_context : sequence of str, default=()
        Evaluator-policy KB passages for the session's technique mix; one L2 system message.

    Returns
    -------
    SessionEvaluation
        The code-computed parts are always filled; ``error`` is set when the engine or its
        output failed. Never raises.
    """
    distribution = technique_distribution(evaluations)
    # Code-computed, like the counts: the review credits risk screening after a cue and names a cue
    # left without follow-up whatever the engine writes.
    distribution["safety"] = crisis_follow_up_summary(turns)
    by_seq = {int(_field(ev, "turn_seq")): ev for ev in evaluations if _field(ev, "turn_seq") is not None}
    counselor = [(int(t["seq"]), tuple(_field(by_seq.get(int(t["seq"])), "techniques", ()) or ()),
                  t.get("text_masked") or "") for t in turns if t["speaker"] == "counselor"]
    checklist = first_session_checklist(session_no, counselor)
    engine_name = str(getattr(engine, "name", type(engine).__name__))
    base: dict[str, Any] = dict(technique_distribution=distribution, checklist=checklist, engine=engine_name)
    try:
        transcript = [{"seq": int(t["seq"]), "speaker": t["speaker"],
                       "text": _normalise(t.get("text_masked") or "", counselor_names, client_names)}
                      for t in turns]
        labels = [{"seq": s, "techniques": list(tech)} for s, tech, _ in counselor]
        stage_path, turn_stages = _stages(turns)
        payload = {"persona_code": persona_code, "goal_stages": list(goal_stages),
                   "stage_path": stage_path, "turn_stages": turn_stages,
                   "transcript": transcript, "turn_labels": labels,
                   "technique_distribution": distribution}
        request = GenerateRequest(
            ai_role="evaluator", temperature=0.0, max_tokens=1500, structured_schema=DEEP_SCHEMA,
            messages=_with_kb(EngineMessage("system", _DEEP_INSTRUCTIONS, cache=True, layer="EVAL"), kb_context,
                              EngineMessage("user", json.dumps(payload, ensure_ascii=False), layer="EVAL-IN")),
            session_id=session_id,
            metadata={"task": "session_evaluation", "persona_code": persona_code,
                      "technique_counts": distribution["counts"]})
        response, cached = _call(engine, request, cache, audit_sink)
        data = parse_structured(response)
    except EngineError as exc:
        return SessionEvaluation(**base, error=f"engine_error: {exc.code}: {exc}")
    except Exception as exc:  # noqa: BLE001
        return SessionEvaluation(**base, error=f"parse_error: {type(exc).__name__}: {exc}")
    strengths = tuple(str(s) for s in _listify(data.get("strengths")) if str(s).strip())
    improvements = tuple(str(s) for s in _listify(data.get("improvements")) if str(s).strip())[:3]
    alternatives = []
    for alt in _listify(data.get("alternatives")):
        if isinstance(alt, Mapping) and str(alt.get("alternative", "")).strip():
            seq = alt.get("turn_seq")
            alternatives.append({"turn_seq": int(seq) if isinstance(seq, (int, float)) else None,
                                 "original": str(alt.get("original", "")),
                                 "alternative": str(alt["alternative"]), "why": str(alt.get("why", ""))})
    if not strengths and not improvements and not str(data.get("rationale", "")).strip():
        return SessionEvaluation(**base, error="parse_error: deep evaluation had no usable field")
    if cache is not None and not cached:
        cache.put(request, response)
    return SessionEvaluation(**base, strengths=strengths, improvements=improvements,
                             rationale=str(data.get("rationale", "")), alternatives=tuple(alternatives))
