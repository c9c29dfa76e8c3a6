"""Persona cards P1–P7: loading, validation and the views each audience may see.

A card is immutable identity (seed 004 §3.1): demographics, presenting problem, history,
Big Five, resistance parameters, speech style, affect baseline, the eight Patient-Ψ CCD
elements (Wang et al., 2024), dimensional behavioural cues, and a ``script`` of Korean lines
the scripted client engine speaks from. Three views exist on purpose:

* :meth:`PersonaCard.public_view` — what a trainee may see before a session;
* :meth:`PersonaCard.client_visible_dict` — what may ever reach the client AI (no CCD, no DSM);
* :attr:`PersonaCard.raw` — everything, for the evaluator and the store.

Examples
--------
>>> cards = load_personas()
>>> list(cards)
['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7']
>>> cards["P1"].affect_baseline["suicide_ideation_stage"]
2
>>> "ccd" in cards["P1"].public_view()
False
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from vignette_lab.core.taxonomy import _Checker, _freeze, _read_json, datasets_dir
from vignette_lab.errors import InputError

__all__ = [
    "CLIENT_HIDDEN_FIELDS",
    "IDEATION_STAGE_CAP",
    "PersonaCard",
    "load_persona_file",
    "load_personas",
    "personas_dir",
]

IDEATION_STAGE_CAP = 3
STATUSES = ("draft", "review", "approved", "archived")
DIFFICULTIES = ("easy", "moderate", "hard")
THEORIES = ("humanistic", "cbt", "integrative")
REGISTERS = ("haeyo", "hapsyo", "banmal_mix")
# Never in any client-prompt layer (seed 004 visibility matrix; DESIGN rule 3).
CLIENT_HIDDEN_FIELDS = ("ccd", "dsm5_dimensional")

_TOP = ("code", "version", "status", "display_name", "difficulty", "theory_target",
        "demographics", "presenting", "history", "big5", "resistance", "speech_style",
        "affect_baseline", "ccd", "dsm5_dimensional", "source_provenance", "is_synthetic",
        "script")
_CCD = ("relevant_history", "core_beliefs", "intermediate_beliefs", "coping_strategies",
        "situation", "automatic_thoughts", "emotions", "behaviors")
_CCD_LISTS = ("core_beliefs", "intermediate_beliefs", "coping_strategies",
              "automatic_thoughts", "emotions", "behaviors")
_BIG5 = ("O", "C", "E", "A", "N")
_RESISTANCE = ("base_resistance", "unlock_rate", "decay_floor", "silence_prob",
               "deflection_prob")
_AFFECT_UNIT = ("negative_affect", "hopelessness", "anhedonia", "sleep", "anxiety")
# Minimum number of lines per script bank; the scripted engine relies on these.
SCRIPT_MINIMUMS: Mapping[str, int] = MappingProxyType({
    "greeting": 3, "deflections": 5, "silences": 4, "closing": 4})
REACTION_MINIMUMS: Mapping[str, int] = MappingProxyType({
    "empathic": 5, "open_question": 5, "closed_question": 5, "advice": 5, "judgement": 5,
    "neutral": 4})
DISCLOSURE_MINIMUMS: Mapping[str, int] = MappingProxyType({"0": 6, "1": 6, "2": 6, "3": 5})


def personas_dir() -> Path:
    """Return the default persona directory, ``datasets/personas``."""
    return datasets_dir() / "personas"


@dataclass(frozen=True)
class PersonaCard:
    """One validated, immutable persona card.

    Mapping fields are read-only views; lists are tuples. ``raw`` keeps the validated JSON
    object (a deep copy is returned by :meth:`to_dict`) and ``content_hash`` is the SHA-256
    of its canonical JSON (sorted keys, no whitespace, UTF-8).
    """

    code: str
    version: int
    status: str
    display_name: str
    difficulty: str
    theory_target: tuple[str, ...]
    demographics: Mapping[str, Any]
    presenting: Mapping[str, Any]
    history: Mapping[str, Any]
    big5: Mapping[str, float]
    resistance: Mapping[str, float]
    speech_style: Mapping[str, Any]
    affect_baseline: Mapping[str, Any]
    ccd: Mapping[str, Any]
    dsm5_dimensional: Mapping[str, Any]
    source_provenance: str
    is_synthetic: bool
    script: Mapping[str, Any]
    raw: Mapping[str, Any] = field(repr=False)
    content_hash: str = field(repr=False)
    source: str = field(default="", repr=False, compare=False)

    @property
    def ideation_stage(self) -> int:
        return int(self.affect_baseline["suicide_ideation_stage"])

    def to_dict(self) -> dict[str, Any]:
        """Full card as a fresh JSON-ready dict (for the store and the evaluator)."""
        return json.loads(json.dumps(_thaw(self.raw), ensure_ascii=False))

    def public_view(self) -> dict[str, Any]:
        """What a trainee may see when choosing a persona.

        Never includes CCD, DSM cues, affect, resistance, Big Five or the script.
        """
        return {
            "code": self.code,
            "display_name": self.display_name,
            "age_band": self.demographics["age_band"],
            "grade": self.demographics["grade"],
            "difficulty": self.difficulty,
            "theory_target": list(self.theory_target),
            "presenting_summary": self.presenting["chief_complaint"],
        }

    def client_visible_dict(self) -> dict[str, Any]:
        """The card minus CCD and DSM: the only persona data a client prompt layer may use."""
        data = self.to_dict()
        for key in CLIENT_HIDDEN_FIELDS:
            data.pop(key, None)
        return data


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


def content_hash(raw: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a card (sorted keys, compact, UTF-8)."""
    canonical = json.dumps(_thaw(raw), ensure_ascii=False, sort_keys=True,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _validate_lines(check: _Checker, value: Any, where: str, minimum: int) -> tuple[str, ...]:
    lines = check.str_list(value, where, min_len=minimum)
    seen: dict[str, int] = {}
    for i, line in enumerate(lines):
        if line in seen:
            check.fail(f"{where}[{i}]", f"duplicate line (same as {where}[{seen[line]}])")
        seen[line] = i
    return lines


# Fact table keys and topic/act banks the scripted client reads (issue 12).
FACT_KEYS = ("age", "grade", "living", "siblings", "prior_counseling", "reason", "school", "friends",
             "sleep", "hobby", "family", "want", "parents_wish", "education", "medical", "child",
             "transfer", "awards", "academy", "aptitude")
# "coping" answers how the client gets through ("어떻게 견뎌요?"), read by ``client_reading.asks_coping``.
# "daily" answers how the client has been lately ("요즘 어떻게 지내?", "한 주 어땠어요?").
# "thoughts" voices what goes through the client's head ("그때 드는 생각이 뭐야?"), read by ``client_reading.asks_thought``.
SCRIPT_TOPICS = ("school", "family", "friends", "sleep", "feelings", "future", "session", "body", "work", "coping",
                 "thoughts", "daily")
SCRIPT_ACTS = ("meta", "english", "long", "unintelligible", "joke", "off_topic", "greeting_late", "repeat",
               "unknown_fact", "closing_review", "closing_next", "closing_homework", "closing_none", "joke_guess",
               "joke_self")
# Small talk the trainee may drift into, by subject: a brief in-character answer (issue 12 round 5).
SMALL_TALK_SUBJECTS = ("weather", "food", "media", "game_sport", "money", "favour", "style", "weekend")


def _validate_listening_banks(check: _Checker, script: Mapping[str, Any], ideation: int) -> None:
    """Optional ``facts``/``topics``/``acts``/``si``/``small_talk`` banks; ``si.disclose`` only at stage >= 2."""
    if "facts" in script:
        facts = check.obj(script["facts"], "script.facts", optional=FACT_KEYS)
        for key, fact in facts.items():
            where = f"script.facts.{key}"
            check.obj(fact, where, required=("gate", "lines"), optional=("brief", "guarded"))
            gate = fact["gate"]
            if isinstance(gate, bool) or not isinstance(gate, int) or not 0 <= gate <= 3:
                check.fail(f"{where}.gate", f"expected an int 0..3, got {gate!r}")
            _validate_lines(check, fact["lines"], f"{where}.lines", 1)
            for part in ("brief", "guarded"):
                if part in fact:
                    _validate_lines(check, fact[part], f"{where}.{part}", 1)
            if gate > 0 and "guarded" not in fact:
                check.fail(f"{where}.guarded", "a gated fact needs guarded lines")
    if "topics" in script:
        topics = check.obj(script["topics"], "script.topics", optional=SCRIPT_TOPICS)
        for key, lines in topics.items():
            _validate_lines(check, lines, f"script.topics.{key}", 1)
    if "acts" in script:
        acts = check.obj(script["acts"], "script.acts", optional=SCRIPT_ACTS)
        for key, lines in acts.items():
            _validate_lines(check, lines, f"script.acts.{key}", 1)
    if "small_talk" in script:
        talk = check.obj(script["small_talk"], "script.small_talk", optional=SMALL_TALK_SUBJECTS)
        for key, lines in talk.items():
            _validate_lines(check, lines, f"script.small_talk.{key}", 1)
    if "si" in script:
        if ideation >= 2:
            si = check.obj(script["si"], "script.si", required=("deflect", "disclose", "again", "no_plan"))
        else:
            si = check.obj(script["si"], "script.si", required=("deny",))
        for key, lines in si.items():
            _validate_lines(check, lines, f"script.si.{key}", 1)


def _validate_script(check: _Checker, script: Any, ideation: int) -> None:
    check.obj(script, "script", required=("greeting", "reactions", "disclosures",
                                          "deflections", "silences", "closing",
                                          "ideation_hints"),
              optional=("facts", "topics", "acts", "si", "small_talk"))
    for key, minimum in SCRIPT_MINIMUMS.items():
        _validate_lines(check, script[key], f"script.{key}", minimum)
    reactions = check.obj(script["reactions"], "script.reactions",
                          required=tuple(REACTION_MINIMUMS))
    for key, minimum in REACTION_MINIMUMS.items():
        _validate_lines(check, reactions[key], f"script.reactions.{key}", minimum)
    disclosures = check.obj(script["disclosures"], "script.disclosures",
                            required=tuple(DISCLOSURE_MINIMUMS))
    for key, minimum in DISCLOSURE_MINIMUMS.items():
        _validate_lines(check, disclosures[key], f"script.disclosures.{key}", minimum)
    _validate_listening_banks(check, script, ideation)
    # Hints exist exactly for stages 1..ideation: a card may not voice more than its stage.
    expected = tuple(str(s) for s in range(1, ideation + 1))
    hints = check.obj(script["ideation_hints"], "script.ideation_hints",
                      optional=("1", "2", "3"))
    for key in hints:
        if key not in expected:
            check.fail(f"script.ideation_hints.{key}",
                       f"hints above the persona's ideation stage {ideation} are not allowed")
    for key in expected:
        if key not in hints:
            check.fail(f"script.ideation_hints.{key}", "missing required field")
        _validate_lines(check, hints[key], f"script.ideation_hints.{key}", 1)


def _validate(raw: Any, source: str, *, expected_code: str | None) -> PersonaCard:
    check = _Checker(source)
    check.obj(raw, "", required=_TOP)
    code = check.string(raw["code"], "code")
    if not re.fullmatch(r"P[1-9][0-9]?", code):
        check.fail("code", f"expected a code like 'P1', got {code!r}")
    if expected_code is not None and code != expected_code:
        check.fail("code", f"code {code!r} does not match the file name {expected_code}.json")
    version = check.integer(raw["version"], "version", lo=1, hi=10_000)
    status = check.enum(raw["status"], "status", STATUSES)
    display_name = check.string(raw["display_name"], "display_name")
    difficulty = check.enum(raw["difficulty"], "difficulty", DIFFICULTIES)
    theory = check.str_list(raw["theory_target"], "theory_target", min_len=1)
    for i, t in enumerate(theory):
        check.enum(t, f"theory_target[{i}]", THEORIES)

    demo = check.obj(raw["demographics"], "demographics",
                     required=("age_band", "sex", "grade", "living"))
    for key in ("age_band", "grade", "living"):
        check.string(demo[key], f"demographics.{key}")
    check.enum(demo["sex"], "demographics.sex", ("여", "남"))

    presenting = check.obj(raw["presenting"], "presenting",
                           required=("chief_complaint", "surface_statements"))
    check.string(presenting["chief_complaint"], "presenting.chief_complaint")
    check.str_list(presenting["surface_statements"], "presenting.surface_statements", min_len=1)
    history = check.obj(raw["history"], "history", required=("family", "school", "prior_help"))
    for key in ("family", "school", "prior_help"):
        check.string(history[key], f"history.{key}")

    big5 = check.obj(raw["big5"], "big5", required=_BIG5)
    for key in _BIG5:
        check.unit(big5[key], f"big5.{key}")
    resistance = check.obj(raw["resistance"], "resistance", required=_RESISTANCE)
    for key in _RESISTANCE:
        check.unit(resistance[key], f"resistance.{key}")

    style = check.obj(raw["speech_style"], "speech_style",
                      required=("register", "honorific", "avg_sentence_len", "fillers",
                                "verbal_tics"))
    check.enum(style["register"], "speech_style.register", REGISTERS)
    check.boolean(style["honorific"], "speech_style.honorific")
    check.integer(style["avg_sentence_len"], "speech_style.avg_sentence_len", lo=2, hi=200)
    check.str_list(style["fillers"], "speech_style.fillers")
    check.str_list(style["verbal_tics"], "speech_style.verbal_tics")

    affect = check.obj(raw["affect_baseline"], "affect_baseline",
                       required=_AFFECT_UNIT + ("suicide_ideation_stage",))
    for key in _AFFECT_UNIT:
        check.unit(affect[key], f"affect_baseline.{key}")
    ideation = check.integer(affect["suicide_ideation_stage"],
                             "affect_baseline.suicide_ideation_stage",
                             lo=1, hi=IDEATION_STAGE_CAP)

    ccd = check.obj(raw["ccd"], "ccd", required=_CCD)
    check.string(ccd["relevant_history"], "ccd.relevant_history")
    check.string(ccd["situation"], "ccd.situation")
    for key in _CCD_LISTS:
        check.str_list(ccd[key], f"ccd.{key}", min_len=1)

    dsm = check.obj(raw["dsm5_dimensional"], "dsm5_dimensional",
                    required=("criteria_behavior_matrix",))
    rows = check.obj_list(dsm["criteria_behavior_matrix"],
                          "dsm5_dimensional.criteria_behavior_matrix")
    for i, row in enumerate(rows):
        f = f"dsm5_dimensional.criteria_behavior_matrix[{i}]"
        check.obj(row, f, required=("dimension", "behavioral_cue", "severity"))
        check.string(row["dimension"], f"{f}.dimension")
        check.string(row["behavioral_cue"], f"{f}.behavioral_cue")
        check.unit(row["severity"], f"{f}.severity")

    provenance = check.string(raw["source_provenance"], "source_provenance")
    synthetic = check.boolean(raw["is_synthetic"], "is_synthetic")
    _validate_script(check, raw["script"], ideation)

    frozen = _freeze(raw)
    return PersonaCard(
        code=code, version=version, status=status, display_name=display_name,
        difficulty=difficulty, theory_target=theory, demographics=frozen["demographics"],
        presenting=frozen["presenting"], history=frozen["history"], big5=frozen["big5"],
        resistance=frozen["resistance"], speech_style=frozen["speech_style"],
        affect_baseline=frozen["affect_baseline"], ccd=frozen["ccd"],
        dsm5_dimensional=frozen["dsm5_dimensional"], source_provenance=provenance,
        is_synthetic=synthetic, script=frozen["script"], raw=frozen,
        content_hash=content_hash(raw), source=source)


def load_persona_file(path: str | Path) -> PersonaCard:
    """Load and validate one persona card file.

    Parameters
    ----------
    path : str or Path
        A ``P<n>.json`` file; the card's ``code`` must match the file name.

    Returns
    -------
    PersonaCard

    Raises
    ------
    InputError
        One line naming the file and the field (or the JSON line number), e.g.
        ``datasets/personas/P3.json: field 'big5.N': expected a number between 0 and 1, got 1.7``.
    """
    path = Path(path)
    return _validate(_read_json(path), str(path), expected_code=path.stem)


def load_personas(dir: str | Path | None = None) -> dict[str, PersonaCard]:  # noqa: A002
    """Load every ``P*.json`` card in a directory, sorted by code.

    Parameters
    ----------
    dir : str or Path, default=None
        Directory of card files; ``None`` means ``datasets/personas`` (validated once
        per process and cached).

    Returns
    -------
    dict of str to PersonaCard
        Keyed by code, in numeric code order (P1, P2, …).
    """
    if dir is None:
        # Cards are immutable, so one validated load is shared; the dict itself is a copy.
        return dict(_load_default())
    return _load_dir(Path(dir))


@functools.lru_cache(maxsize=1)
def _load_default() -> dict[str, PersonaCard]:
    return _load_dir(personas_dir())


def _load_dir(directory: Path) -> dict[str, PersonaCard]:
    if not directory.is_dir():
        raise InputError("persona directory not found", source=str(directory))
    cards: dict[str, PersonaCard] = {}
    # Codes are unique because each must equal its file name (checked per file).
    for path in sorted(directory.glob("P*.json")):
        card = load_persona_file(path)
        cards[card.code] = card
    if not cards:
        raise InputError("no persona cards (P*.json) found", source=str(directory))
    return dict(sorted(cards.items(), key=lambda kv: int(kv[0][1:])))
