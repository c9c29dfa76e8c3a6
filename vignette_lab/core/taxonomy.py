"""The annotation taxonomy: one versioned source of truth in ``datasets/taxonomy.json``.

Stages (라포 → 탐색 → 개입 → 정리), counselor techniques (Hill's helping skills, adapted to
Korean; multi-label), client-state reads, appropriateness, intent-deviation dimensions and
0–5 score dimensions. Every label an engine or a human produces is parsed through this
module, so unknown values are dropped and nothing is invented (seed 001 §2.6).

Examples
--------
>>> tax = load_taxonomy()
>>> tax.version
'2026.11-1'
>>> parse_techniques(["감정 반영", "open_question", "made_up", "reflection_feelings"])
('reflection_feelings', 'open_question')
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from vignette_lab.config import DATASETS_DIR, home_dir
from vignette_lab.errors import InputError

__all__ = [
    "STAGE_CODES",
    "STAGE_ORDER",
    "ClientState",
    "ScoreDimension",
    "Stage",
    "Taxonomy",
    "Technique",
    "client_state_codes",
    "datasets_dir",
    "load_taxonomy",
    "parse_appropriateness",
    "parse_client_states",
    "parse_techniques",
    "score_dimension_codes",
    "technique_codes",
]

# Canonical stage values used by the state machine and the database (Korean labels).
STAGE_ORDER: tuple[str, ...] = ("라포", "탐색", "개입", "정리")
STAGE_CODES: tuple[str, ...] = ("rapport", "exploration", "intervention", "closing")
TECHNIQUE_CATEGORIES = ("exploration", "insight", "action", "other")
SEVERITIES = ("low", "medium", "high")
APPROPRIATENESS_CODES = ("pos", "warn", "neutral")


def datasets_dir() -> Path:
    """Return the ``datasets/`` directory (config's if it exists, else the packaged copy; :func:`~vignette_lab.config.home_dir`)."""
    return home_dir("datasets", DATASETS_DIR)


# --------------------------------------------------------------------------- validation helpers
# Shared with personas.py: every error is one line naming the file and the dotted field.

def _read_json(path: Path) -> Any:
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("file not found", source=source) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason})", source=source) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} (column {exc.colno})", source=source,
                         line=exc.lineno) from None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


class _Checker:
    """Field checks that raise one-line ``InputError`` with source and dotted field path."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, field: str, message: str) -> None:
        raise InputError(message, source=self.source, field=field or None)

    def obj(self, value: Any, field: str, *, required: Iterable[str] = (),
            optional: Iterable[str] = ()) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            self.fail(field, f"expected an object, got {_type_name(value)}")
        required = tuple(required)
        allowed = set(required) | set(optional)
        for key in required:
            if key not in value:
                self.fail(_join(field, key), "missing required field")
        for key in value:
            if key not in allowed:
                self.fail(_join(field, key), f"unknown key (allowed: {', '.join(sorted(allowed))})")
        return value

    def string(self, value: Any, field: str, *, allow_empty: bool = False) -> str:
        if not isinstance(value, str):
            self.fail(field, f"expected a string, got {_type_name(value)}")
        if not allow_empty and not value.strip():
            self.fail(field, "expected a non-empty string")
        return value

    def enum(self, value: Any, field: str, choices: Iterable[str]) -> str:
        choices = tuple(choices)
        if value not in choices:
            self.fail(field, f"expected one of {', '.join(map(str, choices))}, got {value!r}")
        return value

    def boolean(self, value: Any, field: str) -> bool:
        if not isinstance(value, bool):
            self.fail(field, f"expected true or false, got {_type_name(value)}")
        return value

    def integer(self, value: Any, field: str, *, lo: int | None = None,
                hi: int | None = None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field, f"expected an integer, got {_type_name(value)}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            self.fail(field, f"expected an integer between {lo} and {hi}, got {value}")
        return value

    def unit(self, value: Any, field: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(field, f"expected a number between 0 and 1, got {_type_name(value)}")
        if not 0.0 <= value <= 1.0:
            self.fail(field, f"expected a number between 0 and 1, got {value}")
        return float(value)

    def str_list(self, value: Any, field: str, *, min_len: int = 0) -> tuple[str, ...]:
        if not isinstance(value, list):
            self.fail(field, f"expected a list, got {_type_name(value)}")
        if len(value) < min_len:
            self.fail(field, f"expected at least {min_len} items, got {len(value)}")
        return tuple(self.string(item, f"{field}[{i}]") for i, item in enumerate(value))

    def obj_list(self, value: Any, field: str, *, min_len: int = 1) -> list:
        if not isinstance(value, list):
            self.fail(field, f"expected a list, got {_type_name(value)}")
        if len(value) < min_len:
            self.fail(field, f"expected at least {min_len} items, got {len(value)}")
        return value


def _freeze(value: Any) -> Any:
    """Deep read-only copy: dicts become mapping proxies, lists become tuples."""
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _join(field: str, key: str) -> str:
    return f"{field}.{key}" if field else key


# --------------------------------------------------------------------------- data classes

@dataclass(frozen=True, slots=True)
class Stage:
    code: str
    label: str
    order: int


@dataclass(frozen=True, slots=True)
class Technique:
    """One counselor technique (multi-label annotation unit)."""

    code: str
    label: str
    category: str
    definition: str
    examples: tuple[str, ...]
    cues: tuple[str, ...]

    @property
    def patterns(self) -> tuple[re.Pattern[str], ...]:
        return _compile_cues(self.cues)

    def matches(self, utterance: str) -> bool:
        """Whether any rule cue of this technique matches ``utterance``."""
        return any(p.search(utterance) for p in self.patterns)


@functools.lru_cache(maxsize=256)
def _compile_cues(cues: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(c) for c in cues)


@dataclass(frozen=True, slots=True)
class ClientState:
    code: str
    label: str
    definition: str


@dataclass(frozen=True, slots=True)
class Appropriateness:
    code: str
    label: str
    definition: str


@dataclass(frozen=True, slots=True)
class DeviationDimension:
    code: str
    label: str
    definition: str


@dataclass(frozen=True, slots=True)
class ScoreDimension:
    """A 0–5 rating dimension with Korean anchors for 0, 3 and 5."""

    code: str
    label: str
    min: int
    max: int
    anchors: Mapping[int, str]


@dataclass(frozen=True, slots=True)
class Taxonomy:
    """The whole taxonomy, immutable. Build it with :func:`load_taxonomy`."""

    version: str
    title: str
    references: tuple[str, ...]
    stages: tuple[Stage, ...]
    techniques: tuple[Technique, ...]
    client_states: tuple[ClientState, ...]
    appropriateness: tuple[Appropriateness, ...]
    deviation_dimensions: tuple[DeviationDimension, ...]
    severities: tuple[str, ...]
    score_dimensions: tuple[ScoreDimension, ...]
    guidelines: Mapping[str, Any]
    source: str

    @property
    def stage_order(self) -> tuple[str, ...]:
        return tuple(s.label for s in sorted(self.stages, key=lambda s: s.order))

    def technique(self, code_or_label: str) -> Technique:
        """Return a technique by code or Korean label; ``KeyError`` if unknown."""
        for t in self.techniques:
            if code_or_label in (t.code, t.label):
                return t
        raise KeyError(code_or_label)

    def technique_codes(self) -> tuple[str, ...]:
        return tuple(t.code for t in self.techniques)

    def client_state_codes(self) -> tuple[str, ...]:
        return tuple(c.code for c in self.client_states)

    def score_dimension_codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.score_dimensions)

    def deviation_dimension_codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.deviation_dimensions)

    def tag_techniques(self, utterance: str) -> tuple[str, ...]:
        """Rule-based technique tags: every technique whose cues match (``other`` last resort).

        A crude baseline tagger for bootstrapping and tests; the evaluator owns real labels.
        """
        found = tuple(t.code for t in self.techniques if t.code != "other"
                      and t.matches(utterance))
        if found:
            return found
        return ("other",) if any(t.code == "other" for t in self.techniques) else ()

    def parse_techniques(self, values: Iterable[str] | str | None) -> tuple[str, ...]:
        return _parse(values, {**{t.label: t.code for t in self.techniques},
                               **{t.code: t.code for t in self.techniques}})

    def parse_client_states(self, values: Iterable[str] | str | None) -> tuple[str, ...]:
        return _parse(values, {**{c.label: c.code for c in self.client_states},
                               **{c.code: c.code for c in self.client_states}})

    def parse_appropriateness(self, value: str | None) -> str | None:
        mapping = {**{a.label: a.code for a in self.appropriateness},
                   **{a.code: a.code for a in self.appropriateness}}
        if not isinstance(value, str):
            return None
        return mapping.get(value.strip())


def _parse(values: Iterable[str] | str | None, mapping: Mapping[str, str]) -> tuple[str, ...]:
    # Engines sometimes return one string instead of a list; never guess beyond exact names.
    if values is None:
        return ()
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values:
        if not isinstance(value, str):
            continue
        code = mapping.get(value.strip())
        if code is not None and code not in out:
            out.append(code)
    return tuple(out)


# --------------------------------------------------------------------------- loading

_TOP_KEYS = ("version", "stages", "techniques", "client_states", "appropriateness",
             "intent_deviation", "score_dimensions", "guidelines")


def _unique(check: _Checker, items: list, field: str, key: str = "code") -> None:
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        value = item[key]
        if value in seen:
            check.fail(f"{field}[{i}].{key}",
                       f"duplicate {key} {value!r} (first at {field}[{seen[value]}])")
        seen[value] = i


def _code_label_def(check: _Checker, items: Any, field: str, *,
                    codes: tuple[str, ...] | None = None) -> list[tuple[str, str, str]]:
    items = check.obj_list(items, field)
    out = []
    for i, item in enumerate(items):
        f = f"{field}[{i}]"
        check.obj(item, f, required=("code", "label", "definition"))
        code = check.string(item["code"], f"{f}.code")
        if codes is not None:
            check.enum(code, f"{f}.code", codes)
        out.append((code, check.string(item["label"], f"{f}.label"),
                    check.string(item["definition"], f"{f}.definition")))
    _unique(check, items, field)
    _unique(check, items, field, "label")
    return out


def _build(raw: Any, source: str) -> Taxonomy:
    check = _Checker(source)
    check.obj(raw, "", required=_TOP_KEYS, optional=("title", "references"))
    version = check.string(raw["version"], "version")
    title = check.string(raw.get("title", "taxonomy"), "title")
    references = check.str_list(raw.get("references", []), "references")

    stages_raw = check.obj_list(raw["stages"], "stages", min_len=4)
    stages = []
    for i, s in enumerate(stages_raw):
        f = f"stages[{i}]"
        check.obj(s, f, required=("code", "label", "order"))
        stages.append(Stage(check.enum(s["code"], f"{f}.code", STAGE_CODES),
                            check.string(s["label"], f"{f}.label"),
                            check.integer(s["order"], f"{f}.order", lo=1, hi=len(stages_raw))))
    _unique(check, stages_raw, "stages")
    _unique(check, stages_raw, "stages", "order")
    ordered = tuple(s.label for s in sorted(stages, key=lambda s: s.order))
    if ordered != STAGE_ORDER:
        check.fail("stages", f"stage labels in order must be {' → '.join(STAGE_ORDER)}, "
                             f"got {' → '.join(ordered)}")

    tech_raw = check.obj_list(raw["techniques"], "techniques")
    techniques = []
    for i, t in enumerate(tech_raw):
        f = f"techniques[{i}]"
        check.obj(t, f, required=("code", "label", "category", "definition", "examples", "cues"))
        cues = check.str_list(t["cues"], f"{f}.cues", min_len=1)
        for j, cue in enumerate(cues):
            try:
                re.compile(cue)
            except re.error as exc:
                check.fail(f"{f}.cues[{j}]", f"invalid regular expression: {exc}")
        techniques.append(Technique(
            code=check.string(t["code"], f"{f}.code"),
            label=check.string(t["label"], f"{f}.label"),
            category=check.enum(t["category"], f"{f}.category", TECHNIQUE_CATEGORIES),
            definition=check.string(t["definition"], f"{f}.definition"),
            examples=check.str_list(t["examples"], f"{f}.examples", min_len=1),
            cues=cues))
    _unique(check, tech_raw, "techniques")
    _unique(check, tech_raw, "techniques", "label")

    client_states = tuple(ClientState(*x) for x in
                          _code_label_def(check, raw["client_states"], "client_states"))
    appropriateness = tuple(Appropriateness(*x) for x in _code_label_def(
        check, raw["appropriateness"], "appropriateness", codes=APPROPRIATENESS_CODES))

    dev = check.obj(raw["intent_deviation"], "intent_deviation",
                    required=("dimensions", "severity"), optional=("schema",))
    dimensions = tuple(DeviationDimension(*x) for x in
                       _code_label_def(check, dev["dimensions"], "intent_deviation.dimensions"))
    severities = check.str_list(dev["severity"], "intent_deviation.severity", min_len=1)
    for i, sev in enumerate(severities):
        check.enum(sev, f"intent_deviation.severity[{i}]", SEVERITIES)

    score_raw = check.obj_list(raw["score_dimensions"], "score_dimensions")
    scores = []
    for i, d in enumerate(score_raw):
        f = f"score_dimensions[{i}]"
        check.obj(d, f, required=("code", "label", "min", "max", "anchors"))
        lo = check.integer(d["min"], f"{f}.min", lo=0, hi=0)
        hi = check.integer(d["max"], f"{f}.max", lo=5, hi=5)
        anchors_raw = check.obj(d["anchors"], f"{f}.anchors", required=("0", "3", "5"),
                                optional=("1", "2", "4"))
        anchors = MappingProxyType({int(k): check.string(v, f"{f}.anchors.{k}")
                                    for k, v in anchors_raw.items()})
        scores.append(ScoreDimension(check.string(d["code"], f"{f}.code"),
                                     check.string(d["label"], f"{f}.label"), lo, hi, anchors))
    _unique(check, score_raw, "score_dimensions")

    guidelines = check.obj(raw["guidelines"], "guidelines",
                           required=("general", "borderline_cases"))
    check.str_list(guidelines["general"], "guidelines.general", min_len=1)
    cases = check.obj_list(guidelines["borderline_cases"], "guidelines.borderline_cases",
                           min_len=4)
    codes = {t.code for t in techniques}
    for i, case in enumerate(cases):
        f = f"guidelines.borderline_cases[{i}]"
        check.obj(case, f, required=("utterance", "labels", "note"))
        check.string(case["utterance"], f"{f}.utterance")
        check.string(case["note"], f"{f}.note")
        for j, label in enumerate(check.str_list(case["labels"], f"{f}.labels", min_len=1)):
            check.enum(label, f"{f}.labels[{j}]", sorted(codes))

    return Taxonomy(version=version, title=title, references=references, stages=tuple(stages),
                    techniques=tuple(techniques), client_states=client_states,
                    appropriateness=appropriateness, deviation_dimensions=dimensions,
                    severities=severities, score_dimensions=tuple(scores),
                    guidelines=_freeze(guidelines), source=source)


@functools.lru_cache(maxsize=1)
def _load_default() -> Taxonomy:
    path = datasets_dir() / "taxonomy.json"
    return _build(_read_json(path), str(path))


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Load and validate a taxonomy file.

    Parameters
    ----------
    path : str or Path, default=None
        A taxonomy JSON file. ``None`` loads ``datasets/taxonomy.json`` once and caches it.

    Returns
    -------
    Taxonomy

    Raises
    ------
    InputError
        One line naming the file and the field: unknown keys, duplicate codes, missing
        fields, wrong types, invalid cue regexes, bad JSON (with its line number).
    """
    if path is None:
        return _load_default()
    return _build(_read_json(Path(path)), str(path))


def technique_codes() -> tuple[str, ...]:
    """Codes of all techniques in the default taxonomy, in file order."""
    return load_taxonomy().technique_codes()


def client_state_codes() -> tuple[str, ...]:
    """Codes of all client states in the default taxonomy."""
    return load_taxonomy().client_state_codes()


def score_dimension_codes() -> tuple[str, ...]:
    """Codes of the 0–5 score dimensions in the default taxonomy."""
    return load_taxonomy().score_dimension_codes()


def parse_techniques(values: Iterable[str] | str | None) -> tuple[str, ...]:
    """Map technique codes or Korean labels to codes; drop unknowns; keep first-seen order.

    Examples
    --------
    >>> parse_techniques(["개방형 질문", "open_question", "??", "validation"])
    ('open_question', 'validation')
    """
    return load_taxonomy().parse_techniques(values)


def parse_client_states(values: Iterable[str] | str | None) -> tuple[str, ...]:
    """Map client-state codes or Korean labels to codes; drop unknowns; no duplicates."""
    return load_taxonomy().parse_client_states(values)


def parse_appropriateness(value: str | None) -> str | None:
    """Map ``pos``/``warn``/``neutral`` or 적절/주의/중립 to a code; ``None`` if unknown."""
    return load_taxonomy().parse_appropriateness(value)
