"""Scripted self-play counselor: a technique drawn from a profile, an utterance from a bank.

``datasets/counselor_profiles.json`` gives ``profiles[name].weights[stage][technique]``;
``datasets/counselor_banks.json`` gives ``utterances[technique][stage] -> [template]`` with
``{topic}`` / ``{feeling}`` slots. The drawn technique is returned as the *intended*
technique — ground truth for checking how well annotators (AI or human) recover it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Mapping

from vignette_lab.engines.base import GenerateRequest
from vignette_lab.engines.scripted_evaluator import feeling_word
from vignette_lab.errors import EngineError, InputError

__all__ = ["PROFILE_NAMES", "counselor_utterance", "load_counselor_data", "profile_weights", "topics_for"]

PROFILE_NAMES = ("skilled", "novice", "advice-jumper", "improving")
_STAGES = ("라포", "탐색", "개입", "정리")
_NEEDS_CLIENT_TALK = frozenset({"restatement", "validation", "challenge", "interpretation"})
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
    from vignette_lab.core.taxonomy import _read_json

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
        from vignette_lab.core.taxonomy import datasets_dir

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
        row = weights.get(stage) or weights.get("*") or next(iter(weights.values()), {})
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


def counselor_utterance(engine: Any, request: GenerateRequest,
                        rng: random.Random) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """Pick a technique by profile weights and an unused bank utterance for it.

    Returns
    -------
    tuple
        ``(text, {"intended_technique": code}, {"intended_technique": code, ...})``.
    """
    meta = request.metadata
    name = str(meta.get("counselor_profile") or "skilled")
    stage = str(meta.get("stage") or "라포")
    if stage not in _STAGES:
        raise EngineError(f"metadata field 'stage' must be one of {', '.join(_STAGES)}, got {stage!r}",
                          code="bad_request")
    banks, profiles = engine.counselor_data()
    weights = profile_weights(profiles, name, stage, progress=float(meta.get("progress", 0.0) or 0.0))
    code = meta.get("persona_code")
    view = engine.persona_view(str(code)) if code else None
    topic = rng.choice(topics_for(view))
    users = [m.content for m in request.messages if m.role == "user"]
    feeling = feeling_word(users[-1] if users else "", form="noun")
    used = "\n".join(m.content for m in request.messages if m.role != "system")

    def lines_for(tech: str) -> list[str]:
        by_stage = banks[tech]
        templates = list(by_stage.get(stage) or [line for lines in by_stage.values() for line in lines])
        return [_fill(t, topic=topic, feeling=feeling) for t in templates]

    techniques = [t for t in weights if banks.get(t)]
    if not any(m.role == "assistant" for m in request.messages):
        # Opening turn: nothing has been said yet to restate, validate, challenge or interpret.
        openers = [t for t in techniques if t not in _NEEDS_CLIENT_TALK]
        techniques = openers or techniques
    if not techniques:
        raise EngineError(f"no counselor bank utterances for the techniques of profile {name!r}", code="bad_request")
    # Draw among techniques that still have an unsaid line, so the intended label stays honest
    # and the counselor does not repeat itself; repeat only when every bank is used up.
    fresh_by_tech = {t: [f for f in lines_for(t) if f not in used] for t in techniques}
    pool = [t for t in techniques if fresh_by_tech[t]] or techniques
    technique = rng.choices(pool, weights=[weights[t] for t in pool])[0]
    text = rng.choice(fresh_by_tech[technique] or lines_for(technique))
    structured = {"intended_technique": technique}
    return text, structured, {"intended_technique": technique, "counselor_profile": name, "stage": stage}
