"""Scripted self-play counselor: a technique drawn from a profile, a line that reads the client.

``datasets/counselor_profiles.json`` gives ``profiles[name].weights[stage][technique]``;
``datasets/counselor_banks.json`` gives ``utterances[technique][stage] -> [template]`` with
``{topic}`` / ``{feeling}`` slots, plus (issue 12):

* ``contingent[technique] -> [template]`` with ``{noun}``/``{noun2}`` (content words of the
  client's last line, kiwipiepy morphemes), ``{feeling}``/``{adj}`` (a feeling matched to it):
  reflections, restatements and questions that follow what the client actually said;
* ``crisis.safety_check`` / ``crisis.follow_up``: what a skilled counselor says after a
  suicide/self-harm cue (a novice may miss it: ``crisis_missed`` in the metadata);
* ``closing``: the last turn of a session.

The drawn technique is returned as the *intended* technique — ground truth for checking how
well annotators (AI or human) recover it. Lines that refer to voice, face or posture (a text
chat has none) are never said, and no line is said twice in a session
(``metadata["prior_lines"]`` lists the session's earlier counselor lines).
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from vignette_lab.engines.base import GenerateRequest
from vignette_lab.engines.scripted_evaluator import feeling_word
from vignette_lab.errors import EngineError, InputError
from vignette_lab.core.taxonomy import _read_json, datasets_dir
from vignette_lab.engines.client_reading import content_phrase

if TYPE_CHECKING:
    from vignette_lab.engines.scripted import ScriptedEngine

__all__ = ["CRISIS_CUE", "MODALITY", "PROFILE_NAMES", "counselor_utterance", "load_counselor_data",
           "load_contingent", "profile_weights", "topics_for"]

PROFILE_NAMES = ("skilled", "novice", "advice-jumper", "improving")
_STAGES = ("라포", "탐색", "개입", "정리")
_NEEDS_CLIENT_TALK = frozenset({"restatement", "validation", "challenge", "interpretation"})
# A text chat has no voice, face or posture: such lines are modality errors.
MODALITY = re.compile(r"(목소리|표정|눈빛|자세|몸짓|한숨|떨리|떨려|고개를|얼굴|보여서|보이네|보여요|눈을\s*피|웃으시)")
# Suicide/self-harm cues in a client line (passive ideation included).
CRISIS_CUE = re.compile(r"(죽고\s*싶|자살|자해|사라지고\s*싶|사라졌으면|없어지면|없어졌으면|안\s*깼으면|안\s*깨어났으면|"
                        r"끝났으면|살기\s*싫|살고\s*싶지|없으면\s*다들|제가\s*없어도|끝내고\s*싶)")
# Skilled counselors always answer a crisis cue; how often the others do (recorded either way).
_CRISIS_FOLLOW = {"skilled": 1.0, "improving": 0.7, "novice": 0.35, "advice-jumper": 0.2}
_ADJ = {"답답함": "답답한", "서운함": "서운한", "불안": "불안한", "무기력함": "무기력한", "외로움": "외로운",
        "속상함": "속상한", "억울함": "억울한", "지침": "지친", "슬픔": "슬픈", "부담감": "부담스러운",
        "화": "화가 나는", "걱정": "걱정되는", "막막함": "막막한", "두려움": "두려운", "죄책감": "미안한"}
# Presenting-problem keywords → a topic phrase that reads naturally in "{topic}" slots.
_TOPICS = (
    ("시험", "시험"), ("성적", "성적"), ("입시", "입시"), ("수능", "입시"), ("학업", "공부"), ("공부", "공부"),
    ("진로", "진로"), ("전공", "진로"), ("또래", "친구 관계"), ("친구", "친구 관계"), ("따돌", "친구 관계"),
    ("부모", "부모님"), ("엄마", "엄마"), ("아빠", "아빠"), ("육아", "육아"), ("양육", "육아"),
    ("아이", "아이 키우는 일"), ("회사", "회사 일"), ("직장", "직장 일"), ("업무", "일"),
    ("불안", "불안"), ("걱정", "걱정"), ("잠", "잠"), ("수면", "잠"), ("무기력", "무기력"),
    ("번아웃", "번아웃"), ("소진", "번아웃"), ("학교", "학교생활"), ("가족", "가족 일"), ("신체", "몸 상태"),
)


def _read(path: Path) -> Any:

    return _read_json(path)


def load_counselor_data(directory: str | Path | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Load and check ``counselor_banks.json`` and ``counselor_profiles.json``.

    Returns
    -------
    tuple of dict
        ``(utterances, profiles)`` — ``utterances[technique][stage] -> [str]`` and
        ``profiles[name] -> {"weights": {stage: {technique: weight}}, ...}``.

    Raises
    ------
    InputError
        Naming the file and the field that is missing or malformed.
    """
    if directory is None:

        directory = datasets_dir()
    directory = Path(directory)
    banks_path, profiles_path = directory / "counselor_banks.json", directory / "counselor_profiles.json"
    banks = _read(banks_path)
    if not isinstance(banks, dict) or not isinstance(banks.get("utterances"), dict):
        raise InputError("expected an object with 'utterances'", source=str(banks_path), field="utterances")
    for tech, by_stage in banks["utterances"].items():
        if not isinstance(by_stage, dict):
            raise InputError("expected {stage: [utterance]}", source=str(banks_path), field=f"utterances.{tech}")
        for stage, lines in by_stage.items():
            if not isinstance(lines, list) or not all(isinstance(x, str) and x.strip() for x in lines):
                raise InputError("expected a list of non-empty strings", source=str(banks_path),
                                 field=f"utterances.{tech}.{stage}")
    profiles = _read(profiles_path)
    if not isinstance(profiles, dict) or not isinstance(profiles.get("profiles"), dict):
        raise InputError("expected an object with 'profiles'", source=str(profiles_path), field="profiles")
    for name, prof in profiles["profiles"].items():
        if not isinstance(prof, dict):
            raise InputError("expected an object", source=str(profiles_path), field=f"profiles.{name}")
    return banks["utterances"], profiles["profiles"]


def _stage_weights(prof: Mapping[str, Any], stage: str) -> dict[str, float]:
    weights = prof.get("weights")
    if isinstance(weights, Mapping):
        row: Mapping[str, Any] = weights.get(stage) or weights.get("*") or next(iter(weights.values()), {})
        return {str(k): float(v) for k, v in row.items() if float(v) > 0}
    return {}


def profile_weights(profiles: Mapping[str, Any], name: str, stage: str, *, progress: float = 0.0) -> dict[str, float]:
    """Technique weights of a profile at a stage, normalised to sum to 1.

    ``improving`` moves from its start weights to its end weights as ``progress`` goes 0 → 1:
    a profile may give ``weights_start``/``weights_end``, or ``start``/``end`` naming other
    profiles; with plain ``weights`` it is used as is.

    Raises
    ------
    EngineError
        Unknown profile or a stage without weights.
    """
    prof = profiles.get(name)
    if prof is None:
        raise EngineError(f"unknown counselor_profile {name!r} (known: {', '.join(sorted(profiles))})",
                          code="bad_request")
    p = min(max(float(progress), 0.0), 1.0)
    start = end = None
    if isinstance(prof.get("weights_start"), Mapping) and isinstance(prof.get("weights_end"), Mapping):
        start = _stage_weights({"weights": prof["weights_start"]}, stage)
        end = _stage_weights({"weights": prof["weights_end"]}, stage)
    else:
        src, dst = prof.get("start") or prof.get("from"), prof.get("end") or prof.get("to")
        if isinstance(src, str) and isinstance(dst, str) and src in profiles and dst in profiles:
            start = _stage_weights(profiles[src], stage)
            end = _stage_weights(profiles[dst], stage)
    if start is not None and end is not None:
        keys = set(start) | set(end)
        mixed = {k: (1 - p) * start.get(k, 0.0) + p * end.get(k, 0.0) for k in keys}
    else:
        mixed = _stage_weights(prof, stage)
    total = sum(mixed.values())
    if total <= 0:
        raise EngineError(f"counselor_profile {name!r} has no weights for stage {stage!r}", code="bad_request")
    return {k: v / total for k, v in sorted(mixed.items())}


def topics_for(view: Mapping[str, Any] | None) -> list[str]:
    """Topic phrases for ``{topic}`` from the persona's presenting problem (client-visible part)."""
    if not view:
        return ["요즘 겪는 일"]
    presenting = view.get("presenting") or {}
    text = " ".join([str(presenting.get("chief_complaint", ""))]
                    + [str(s) for s in presenting.get("surface_statements", ())])
    found: list[str] = []
    for key, phrase in _TOPICS:
        if key in text and phrase not in found:
            found.append(phrase)
    return found or ["요즘 겪는 일"]


def _fill(template: str, *, topic: str, feeling: str) -> str:
    return template.replace("{topic}", topic).replace("{feeling}", feeling)


@functools.lru_cache(maxsize=4)
def load_contingent(path: str | None = None) -> dict[str, Any]:
    """``contingent``, ``crisis`` and ``closing`` sections of ``counselor_banks.json`` (may be empty)."""
    if path is None:

        path = str(Path(datasets_dir()) / "counselor_banks.json")
    data = _read(Path(path))
    out: dict[str, Any] = {"contingent": data.get("contingent") or {}, "crisis": data.get("crisis") or {},
           "closing": data.get("closing") or []}
    for key in ("contingent", "crisis"):
        if not isinstance(out[key], dict) or not all(
                isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v) for v in out[key].values()):
            raise InputError("expected {name: [template]}", source=path, field=key)
    return out


def _subject_particle(word: str) -> str:
    """"이" after a final consonant, "가" after a vowel (Hangul syllables only)."""
    last = word[-1:] if word else ""
    if "가" <= last <= "힣":
        return "이" if (ord(last) - 0xAC00) % 28 else "가"
    return "이"


def _client_words(text: str) -> tuple[str, ...]:
    """Content nouns the client said (kiwipiepy), for ``{noun}`` slots; stage directions dropped."""

    spoken = re.sub(r"\([^)]*\)", " ", text or "")
    return tuple(w for w in content_phrase(spoken, max_words=4, nouns_only=True) if len(w) >= 2)


def counselor_utterance(engine: ScriptedEngine, request: GenerateRequest,
                        rng: random.Random) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A line that answers the client's last utterance, for a technique drawn by profile weights.

    Returns
    -------
    tuple
        ``(text, {"intended_technique": code}, {"intended_technique": code, "crisis_cue": bool,
        "crisis_response": "safety_check"|"follow_up"|None, "crisis_missed": bool, ...})``.
    """
    meta = request.metadata
    name = str(meta.get("counselor_profile") or "skilled")
    stage = str(meta.get("stage") or "라포")
    if stage not in _STAGES:
        raise EngineError(f"metadata field 'stage' must be one of {', '.join(_STAGES)}, got {stage!r}",
                          code="bad_request")
    banks, profiles = engine.counselor_data()
    extra = engine.counselor_extra() if hasattr(engine, "counselor_extra") else load_contingent()
    weights = profile_weights(profiles, name, stage, progress=float(meta.get("progress", 0.0) or 0.0))
    code = meta.get("persona_code")
    view = engine.persona_view(str(code)) if code else None
    topic = rng.choice(topics_for(view))
    client_lines = [m.content for m in request.messages if m.role == "user" and not m.content.startswith("(상담이")]
    last = client_lines[-1] if client_lines else ""
    feeling = feeling_word(last, form="noun")
    adj = _ADJ.get(feeling, "힘든")
    words = _client_words(last)
    said = {str(x) for x in meta.get("prior_lines") or ()} | {m.content for m in request.messages
                                                                  if m.role == "assistant"}
    turn, turns = int(meta.get("turn_seq") or 1), int(meta.get("turns") or 0)

    def ok(line: str) -> bool:
        return bool(line) and line not in said and not MODALITY.search(line)

    def fill(template: str) -> str | None:
        if "{noun" in template:
            if not words or ("{noun2}" in template and len(words) < 2):
                return None
            if "{noun2}" in template:
                template = template.replace("{noun2}", words[1])
            template = template.replace("{noun}", words[0])
        template = template.replace("{feeling}이", feeling + _subject_particle(feeling))
        return _fill(template, topic=topic, feeling=feeling).replace("{adj}", adj)

    # 1. A crisis cue: a skilled counselor always checks safety; others may miss it (recorded).
    cue = bool(CRISIS_CUE.search(last))
    asked_before = any(line in said for line in extra["crisis"].get("safety_check", ()))
    if cue:
        follows = rng.random() < _CRISIS_FOLLOW.get(name, 0.5)
        if follows:
            kind = "follow_up" if asked_before else "safety_check"
            pool = [x for x in extra["crisis"].get(kind, ()) if ok(x)] or \
                   [x for x in extra["crisis"].get("follow_up", ()) + extra["crisis"].get("safety_check", ()) if ok(x)]
            if pool:
                text = rng.choice(pool)
                technique = "closed_question" if "?" in text else "information"
                return text, {"intended_technique": technique}, {
                    "intended_technique": technique, "counselor_profile": name, "stage": stage,
                    "crisis_cue": True, "crisis_response": kind, "crisis_missed": False}

    # 2. The last turn of a session closes it.
    if turns and turn >= turns and extra["closing"]:
        pool = [t for t in (fill(x) for x in extra["closing"]) if t and ok(t)]
        if pool:
            text = rng.choice(pool)
            return text, {"intended_technique": "restatement"}, {
                "intended_technique": "restatement", "counselor_profile": name, "stage": stage,
                "crisis_cue": cue, "crisis_response": None, "crisis_missed": cue}

    def lines_for(tech: str) -> tuple[list[str], list[str]]:
        by_stage = banks[tech]
        templates = list(by_stage.get(stage) or [line for lines in by_stage.values() for line in lines])
        filled = [_fill(t, topic=topic, feeling=feeling) for t in templates]
        # Lines that pick up what the client said come first when the client said something.
        own = [t for t in (fill(x) for x in extra["contingent"].get(tech, ())) if t]
        return [x for x in own + filled if ok(x)], own

    techniques = [t for t in weights if banks.get(t)]
    if not client_lines:
        # Opening turn: nothing has been said yet to restate, validate, challenge or interpret.
        openers = [t for t in techniques if t not in _NEEDS_CLIENT_TALK]
        techniques = openers or techniques
    if not techniques:
        raise EngineError(f"no counselor bank utterances for the techniques of profile {name!r}", code="bad_request")
    fresh_by_tech = {t: lines_for(t) for t in techniques}
    pool = [t for t in techniques if fresh_by_tech[t][0]] or techniques
    technique = rng.choices(pool, weights=[weights[t] for t in pool])[0]
    fresh, own = fresh_by_tech[technique]
    own_fresh = [x for x in own if x in fresh]
    if own_fresh and words and rng.random() < 0.65:
        text = rng.choice(own_fresh)
    elif fresh:
        text = rng.choice(fresh)
    else:  # every line of this technique was said: vary a bank line rather than repeat it
        base = [x for x in (_fill(t, topic=topic, feeling=feeling) for lines in banks[technique].values()
                            for t in lines) if not MODALITY.search(x)] or ["조금 더 이야기해 줄래요?"]
        text = rng.choice(base)
        if text in said:
            text = f"{rng.choice(('음, ', '그렇군요. ', '네, '))}{text}"
    structured = {"intended_technique": technique}
    return text, structured, {"intended_technique": technique, "counselor_profile": name, "stage": stage,
                              "crisis_cue": cue, "crisis_response": None, "crisis_missed": cue}
