"""Scripted client: a persona that listens, built only from its card's ``script`` lines.

The engine reads the counselor's masked utterance the way a client hears it
(:mod:`vignette_lab.engines.client_reading`): the *act* (identity probe, suicide screening,
closing, greeting, English, very long or unintelligible input, joke, off-topic, factual
question, or ordinary talk), the *topic* and, for questions, the *fact* asked. Then:

* **facts** come from the card's fact table (``script.facts``, written from the client-visible
  card): intake facts (age, grade/job, who they live with, siblings, prior counseling, why they
  came) are told at any openness — briefly when guarded; personal facts carry a ``gate``
  (disclosure band) below which the client deflects. A fact line states the fact itself, so a
  yes/no question never gets a bare "네" that contradicts the card;
* **suicide screening** follows the ideation stage deterministically (:func:`si_reply`);
* **identity and meta probes** get in-character confusion (``script.acts.meta``), never a yes;
* *whose* fact is asked is read first: a sibling's, child's or parent's age, grade or job is
  that member's fact (or a guarded line when the card lacks it), never the client's own; gate-1
  facts are told on a plain question from turn :data:`FACT_WARMUP_TURNS`;
* a yes/no question never gets a generic yes-line ("네, 맞아요", "그럴 수도 있겠네요"): only fact
  lines and stage-driven SI lines may answer it;
* repeated questions get "아까도 말씀드렸는데…" replies with the fact told again (never word for
  word the same reply); a closing gets "네, …" plus a closing line; a greeting after the start
  gets a puzzled reply; a long reflection is answered with the line sharing most content words;
* a joke is answered by its kind (:func:`~vignette_lab.engines.client_reading.joke_kind`): a joking
  guess about the client gets the thing echoed and ``acts.joke_guess``, the counselor's joke on
  themself ``acts.joke_self``, a pun ``acts.joke``; small talk answers what it predicates and picks
  one option of a choice; a question about what goes through the client's head is answered from
  ``topics.thoughts``; a wrap-up asking what is left gets ``acts.closing_none``, one asking which
  plan comes first names the counselor's last suggestion;
* ordinary talk picks a topic line (``script.topics``) or the move's reaction plus a
  disclosure, as before. Numbers from the state machine only steer *which* lines are chosen.

Repetition control works on **line identity**: every bank line has an id (``bank:key:i``) and
an earlier reply uses the ids whose line — as written or as masked — it contains, so masking a
stored reply never makes a line look new.
"""

from __future__ import annotations

import functools
import random
import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.core import hangul
from vignette_lab.core.pii import mask_pii
from vignette_lab.engines.base import GenerateRequest
from vignette_lab.engines.client_reading import (
    after_greeting,
    aside_noun,
    asks_coping,
    asks_task,
    asks_thought,
    choice_options,
    closing_asks_questions,
    closing_kind,
    closing_plan,
    content_phrase,
    english_gist,
    cue_key,
    cue_keys,
    is_question,
    is_repeat,
    joke_kind,
    joke_target,
    read_act,
    read_fact,
    read_topic,
    si_asks_plan,
    si_follow_up,
    small_talk_subject,
    standardise,
    whose,
)
from vignette_lab.errors import EngineError

if TYPE_CHECKING:
    from vignette_lab.engines.scripted import ScriptedEngine

__all__ = ["FACT_WARMUP_TURNS", "INTAKE_FACTS", "MOVES", "SI_DISCLOSE_OPENNESS", "classify_move", "client_reply",
           "confirms_what_was_said", "disclosure_band", "fact_by_content",
           "line_index", "si_reply"]

MOVES = ("empathic", "open_question", "closed_question", "advice", "judgement", "neutral")
INTAKE_FACTS = frozenset({"age", "grade", "living", "siblings", "prior_counseling", "reason"})
# Turn from which a gate-1 fact is told on a direct, non-judging question (gate 0 is intake).
FACT_WARMUP_TURNS = 3
# Openness from which a persona at ideation stage >= 2 tells passive ideation when screened.
SI_DISCLOSE_OPENNESS = 0.35
_EMPATHIC_CODES = frozenset({"reflection_feelings", "validation", "approval_reassurance", "restatement"})
# Blame, "should" statements and dismissal: no taxonomy technique names these, yet a client hears them.
_JUDGEMENT = re.compile(
    r"(왜\s*그렇게\s*[가-힣\s]*(했|하|생각)|그러면\s*안\s*(돼|되)|그건\s*아니|잘못(했|한|이에요|이네요|된\s*생각)|"
    r"핑계|게으르|게을러|너무\s*예민|예민하게|이해가\s*안\s*(돼|가)|말이\s*안\s*(돼|되)|한심|"
    r"별거\s*아닌|별것도\s*아닌|별일\s*아닌|의지가\s*(약|없)|정신력|나약|유난|철이\s*없|어리광|"
    r"했어야|했으면\s*됐|하지\s*그랬|감사해야|배부른|다들\s*그렇게\s*(살|해)|누구나\s*그래)")
# "이야기해 보세요" invites talk: an open question, not advice.
_INVITATION = re.compile(r"(이야기|얘기|말|말씀)\s*(좀|조금|더|조금\s*더)?\s*(해|하)\s*"
                         r"(보세요|주세요|줄래|주실래|줄\s*수|주실\s*수|주시겠|주겠|줘|봐\s*줄래|보실래)")
# What advice says besides a "-세요" ending (which a polite question shares: "연락하세요?").
_ADVICE_WORDS = re.compile(r"(해\s*보|보는\s*(게|건)|하는\s*(게|건)\s*(좋|나|어때)|해야|하면\s*(좋|돼|되)|하시면\s*(좋|돼|되)|"
                           r"하시는\s*(게|건)|권|추천|필요해|좋을\s*(것|거)\s*같|어때|어떠세요|하지\s*(마|말))")
# Wh-questions the taxonomy cues miss ("… 뭐예요?"): still open questions to a listener.
_WH_QUESTION = re.compile(r"(뭐(예요|에요|야|니|죠)|뭔가요|뭘까|무엇인가요|어디|언제|누구)[^.!]*\?")
_OPENNESS_OF_BAND = {"low": 0.2, "mid": 0.45, "high": 0.72}
_STAGE_DEPTH_CAP = {"라포": 1, "탐색": 2, "개입": 3, "정리": 3}
_REPEAT_PREFIX = ("아까도 말씀드렸는데, ", "아까 말했는데… ", "음… 아까랑 같은 얘긴데, ")
# A generic yes-ish line ("네, 맞아요", "그럴 수도 있겠네요") never answers a yes/no question:
# only fact lines or stage-driven SI lines may say yes to a question about a fact, SI or identity.
_AFFIRMATIVE = re.compile(
    r"^\s*([(（][^)）]*[)）]\s*)?((그러니까|뭐|음|아|글쎄요?)\s*[…,.]*\s*)*"
    r"(네|넵|예|응|어|맞아요|맞아|맞죠|그렇죠|그래요|그럴\s*수도|그런\s*(것\s*같|편|거\s*같)|그런가\s*봐|아마\s*그럴)")
# A line carrying one of these answers a "how long / how old / which year" question.
_DETAIL_CUES = (
    (re.compile(r"(얼마나|몇\s*년|언제|지는|째)"), re.compile(r"(\d+\s*년|[한두세네다섯]\s*(해|번)|겨울|여름|봄|가을|째|학기|작년|"
                                                   r"[초중고]?\s*\d\s*때|\d+\s*월|이후로|부터)")),
    (re.compile(r"(몇\s*살|나이)"), re.compile(r"(\d+\s*살|[한두세네다섯여섯]\s*살|열|스물|서른|마흔)")),
    (re.compile(r"(몇\s*학년|학교|학생|뭐\s*해|뭐\s*하)"),
     re.compile(r"(학년|[초중고]\s*\d|초등|중학생|고등학생|대학|재수|회사|일해|어린이집)")),
    (re.compile(r"(몇\s*번)"), re.compile(r"([한두세네다섯]\s*번|\d+\s*번)")),
    (re.compile(r"(몇\s*등|어느\s*정도|등수|순위)"), re.compile(r"(\d\s*등|[일이삼사오]\s*등|등급|상위|전교)")),
    (re.compile(r"(내신|등급)"), re.compile(r"(등급)")),
    (re.compile(r"(성적)"), re.compile(r"(등급|\d\s*등|떨어|올랐|상위|전교)")),
    (re.compile(r"(운동)"), re.compile(r"(축구|농구|야구|배구|운동|자전거|달리기|수영)")),
    (re.compile(r"(과목)"), re.compile(r"(수학|영어|국어|과학|사회|과목)")),
    (re.compile(r"(요즘|최근|지금)"), re.compile(r"(요즘|최근|지금|이번)")),
    # "어디어디 가 보셨어요?" is answered by the line that names places (clinics, schools, a centre).
    (re.compile(r"(어디)"), re.compile(r"(내과|신경과|[가-힣]{1,4}과(?=[,\s까는도에])|병원|센터|클래스|학원|학교|회사|동네)")),
    # "누가 권했어?" is answered by the line that names a person (or the place that sent them).
    (re.compile(r"(누가|누구)"), re.compile(r"(엄마|아빠|어머니|아버지|부모|선생님|담임|쌤|병원|의사|어린이집|언니|형|"
                                        r"누나|오빠|동생|친구|남편|팀장|상사|제가|저 혼자|혼자|직접)")),
)
_WHY = re.compile(r"(계기|이유|왜|어쩌다|어떻게\s*(오|와|된|해서)|(어떤|무슨)\s*일로)")
# Details worth telling again when every fresh line lacks them (not the loose "요즘/지금").
_SPECIFIC_DETAIL_CUES = tuple(c for c in _DETAIL_CUES if c[0].pattern != "(요즘|최근|지금)")
_BROADER_FACT = {"child": "living", "parents_wish": "family", "education": "school", "aptitude": "school",
                 "awards": "school", "academy": "hobby", "transfer": "school"}
# Questions about feelings are talk even when they name a person or place the card mentions.
_FEELING_QUESTION = re.compile(r"(마음|기분|느낌|감정|생각이\s*들|어떤\s*생각|느꼈|느껴|"
                               r"생각\S{0,2}\s.{0,12}(드셨|들었|드는지|들던|드세요|드나요|들어요|들어\?))")
_NEXT_TIME = re.compile(r"다음\s*(주|시간|번|회기)|또\s*(보|봐|뵙|뵐|만나)")


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
        if "?" in text and not _ADVICE_WORDS.search(text):
            # "지금 연락하세요?" asks in the polite "-세요" form; it neither advises nor judges
            return "open_question" if ("open_question" in tags or _WH_QUESTION.search(text)) else "closed_question"
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


def _openness(meta: Mapping[str, Any]) -> float:
    value = meta.get("effective_openness")
    if value is None:
        value = _OPENNESS_OF_BAND.get(str(meta.get("openness_band", "")), 0.3)
    try:
        return min(max(float(value), 0.0), 1.0)
    except (TypeError, ValueError):
        raise EngineError(f"metadata field 'effective_openness' must be a number, got {value!r}",
                          code="bad_request") from None


def _number(meta: Mapping[str, Any], key: str, default: float) -> float:
    value = meta.get(key, default)
    try:
        return float(default if value is None else value)
    except (TypeError, ValueError):
        raise EngineError(f"metadata field {key!r} must be a number, got {value!r}", code="bad_request") from None


# ---------------------------------------------------------------------- line identity

def _walk(node: Any, path: str, out: dict[str, str]) -> None:
    if isinstance(node, str):
        out[path] = node
    elif isinstance(node, Mapping):
        for key, value in node.items():
            _walk(value, f"{path}:{key}" if path else str(key), out)
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            _walk(value, f"{path}:{i}", out)


def line_index(script: Mapping[str, Any]) -> dict[str, str]:
    """``{line_id: line}`` for every line of a script (ids are colon paths like ``facts:age:lines:0``)."""
    flat: dict[str, str] = {}
    _walk({k: v for k, v in script.items() if k != "facts"}, "", flat)
    for key, fact in (script.get("facts") or {}).items():
        for part in ("lines", "brief", "guarded"):
            _walk(fact.get(part) or (), f"facts:{key}:{part}", flat)
    return flat


@functools.lru_cache(maxsize=8192)
def _masked(line: str) -> str:
    """A bank line as a stored (masked) reply holds it; only needed when masking changed a reply."""
    from vignette_lab.core.guardrails import mask_pii

    return mask_pii(line).text


def _contains_line(reply: str, line: str) -> bool:
    if not line or line not in reply:
        return False
    if reply == line:
        return True
    # Parts of a reply are joined by one space; a line also ends a "아까도…" prefix.
    return (reply.startswith(line + " ") or reply.endswith(" " + line) or f" {line} " in reply)


def used_line_ids(index: Mapping[str, str], replies: Sequence[str]) -> set[str]:
    """Ids of the lines that earlier replies already said (as written, or as masked when a
    reply carries a mask placeholder such as ``[PHONE]``)."""
    if not replies:
        return set()
    joined = "\n".join(replies)
    masked_any = "[" in joined
    used: set[str] = set()
    for lid, line in index.items():
        forms = [line]
        if masked_any:
            masked = _masked(line)
            if masked != line:
                forms.append(masked)
        for form in forms:
            if form in joined and any(_contains_line(r, form) for r in replies):
                used.add(lid)
                break
    return used


class _Picker:
    """Draws unused lines by id and records what this reply says."""

    def __init__(self, script: Mapping[str, Any], used: set[str], rng: random.Random):
        self.script, self.used, self.rng = script, used, rng
        self.parts: list[str] = []
        self.kinds: list[str] = []
        self.ids: list[str] = []
        # Set for yes/no questions: generic lines that open with a yes are never drawn.
        self.no_affirm = False
        # Earlier replies of this session, so a restated fact is never word-for-word the same.
        self.said: set[str] = set()

    def lines(self, path: str) -> list[tuple[str, str]]:
        node: Any = self.script
        for key in path.split(":"):
            node = node.get(key) if isinstance(node, Mapping) else None
            if node is None:
                return []
        if isinstance(node, str):
            pairs = [(path, node)]
        else:
            pairs = [(f"{path}:{i}", line) for i, line in enumerate(node or ()) if isinstance(line, str)]
        if self.no_affirm and not path.startswith(("facts:", "si:")):
            pairs = [(lid, line) for lid, line in pairs if not _AFFIRMATIVE.search(line)]
        return pairs

    def fresh(self, path: str) -> list[tuple[str, str]]:
        return [(lid, line) for lid, line in self.lines(path) if lid not in self.used and lid not in self.ids]

    def pick(self, path: str, *, allow_used: bool = False) -> tuple[str, str] | None:
        pool = self.fresh(path) or (self.lines(path) if allow_used else [])
        return self.rng.choice(pool) if pool else None

    def say(self, kind: str, choice: tuple[str, str] | None, *, prefix: str = "") -> bool:
        if choice is None:
            return False
        lid, line = choice
        self.parts.append(prefix + line)
        self.kinds.append(kind)
        self.ids.append(lid)
        return True

    def tell(self, kind: str, line: str) -> None:
        """Say a line made here rather than drawn from the card (its id is its kind)."""
        self.say(kind, (kind, line))

    def say_first(self, kind: str, *paths: str, allow_used: bool = True) -> bool:
        for path in paths:
            if self.say(kind, self.pick(path)):
                return True
        if allow_used:
            for path in paths:
                if self.say(kind, self.pick(path, allow_used=True)):
                    return True
        return False


# ---------------------------------------------------------------------- safety by construction

def si_reply(picker: _Picker, *, stage: int, openness: float, disclosed: bool, asks_plan: bool) -> bool:
    """Answer a suicide/self-harm screening question from the ideation stage, deterministically.

    * stage 1: never affirms (``si.deny``);
    * stage >= 2: asked about a plan or means → ``si.no_plan`` (never a means or a plan);
      already disclosed in this session or case → ``si.again`` (never a flat denial after a
      disclosure); openness >= :data:`SI_DISCLOSE_OPENNESS` → passive ideation
      (``si.disclose``); otherwise a deflection (``si.deflect``).

    Returns True when the reply discloses passive ideation.
    """
    if stage <= 1:
        picker.say_first("si:deny", "si:deny")
        return False
    if asks_plan:
        picker.say_first("si:no_plan", "si:no_plan")
        return disclosed
    if disclosed:
        picker.say_first("si:again", "si:again", "si:disclose")
        return True
    if openness >= SI_DISCLOSE_OPENNESS:
        picker.say_first("si:disclose", "si:disclose", "ideation_hints:2")
        return True
    picker.say_first("si:deflect", "si:deflect")
    return False


# ---------------------------------------------------------------------- facts

def _fact_reply(picker: _Picker, key: str, *, depth: int, openness: float, repeat: bool,
                view: Mapping[str, Any] | None = None, question: str = "") -> str:
    """Say the fact ``key`` (or guard it). Returns the reply kind.

    A fact the card does not hold gets a guarded "잘 모르겠어요"-style line, never a value
    borrowed from another fact (a child's age is not the client's). A question about a family
    member or a detail ("얼마나", "몇 살", "몇 학년") is answered with the full line that
    carries that detail, never the brief form.
    """
    facts = picker.script.get("facts") or {}
    # A card without the narrow fact keeps it in the broader one ("네 살 딸이랑 둘이 살아요" tells
    # the child's age; what the parents want is part of the family fact).
    while key not in facts and key in _BROADER_FACT:
        key = _BROADER_FACT[key]
    fact = facts.get(key)
    if not isinstance(fact, Mapping):
        picker.say_first("fact:unknown", "acts:unknown_fact", "deflections")
        return "fact:unknown"
    gate = int(fact.get("gate", 0))
    base = f"facts:{key}"
    if gate > depth:
        kind = "fact:guarded"
        paths = [f"{base}:guarded", "deflections"]
    else:
        kind = "fact"
        detail = (whose(question) != "self" or any(q.search(question) for q, _ in _DETAIL_CUES)
                  or bool(_WHY.search(question))  # "어떤 계기로?" asks for the story, not the brief form
                  or bool(_INVITATION.search(question)))  # so does "편하게 말씀해 주시겠어요?"
        brief = openness < 0.3 and fact.get("brief") and not detail
        paths = [f"{base}:brief", f"{base}:lines"] if brief else [f"{base}:lines", f"{base}:brief"]
    already = any(lid.startswith(f"{base}:") for lid in picker.used)
    choice = None
    if kind == "fact" and any(asks.search(question) for asks, _ in _SPECIFIC_DETAIL_CUES):
        # The detail asked for ("누가 신청했다고?") told again, rather than a fresh line without it.
        fresh_detail = _carrying_detail([c for p in paths for c in picker.fresh(p)], question, cues=_SPECIFIC_DETAIL_CUES)
        told_detail = _carrying_detail([c for p in paths for c in picker.lines(p)], question, cues=_SPECIFIC_DETAIL_CUES)
        if fresh_detail:  # the brief form may carry what the full lines lack ("병원에서 보라고 해서요")
            choice = _pick_detail(picker, "", question, pool=fresh_detail)
        elif told_detail:
            choice, already = picker.rng.choice(told_detail), True
    if choice is None and kind == "fact":
        # No fresh line names what is asked ("부모님 반응은요?") but a told one does: tell that one again
        # ("아까도 말씀드렸는데, …") rather than a fresh line about someone else.
        groups = _named_groups(question)
        fresh = [c for p in paths for c in picker.fresh(p)]
        told = [c for p in paths for c in picker.lines(p) if c not in fresh]
        def about(line: str) -> int:  # named as the line's subject ("부모님은 …"), not on the way
            return sum(1 for g in groups if any(line.lstrip("…. ").startswith(s) for s in g))

        if groups and fresh and told:
            for score in (lambda line: _names(line, groups), about):
                if max(score(c[1]) for c in fresh) == 0 and max(score(c[1]) for c in told) > 0:
                    best_told = max(score(c[1]) for c in told)
                    choice = picker.rng.choice([c for c in told if score(c[1]) == best_told])
                    already = True
                    break
    for path in paths if choice is None else ():
        choice = _pick_detail(picker, path, question) if kind == "fact" else picker.pick(path)
        if choice is not None:
            break
    if choice is None and kind == "fact" and gate >= 1 and fact.get("guarded"):
        # Every line told, and the question names what none of them says ("담임쌤이랑은 어때?"): a
        # guarded line, not a told line about something else.
        named = [n for n in content_phrase(question, max_words=6, nouns_only=True) if len(n) >= 2]
        said = " ".join(str(x) for part in ("lines", "brief") for x in (fact.get(part) or ()))
        if named and not any(n in said for n in named):
            kind = "fact:guarded"
            choice = picker.pick(f"{base}:guarded", allow_used=True)
    if choice is None:  # told every variant already: say it again, and say so
        choice = _pick_detail(picker, paths[0], question, allow_used=True)
        already = True
    prefix = ""
    if (repeat or already) and kind == "fact":
        line = choice[1] if choice else ""
        new = [p for p in _REPEAT_PREFIX if (p + line) not in picker.said and
               not any(r.endswith(p + line) for r in picker.said)]
        prefix = picker.rng.choice(new or list(_REPEAT_PREFIX))
    elif repeat:  # a guarded fact asked again: say it was asked, then guard it again
        picker.say_first("repeat", "acts:repeat")
    elif view is not None:
        _beat(picker, view, p=0.3)
    picker.say(kind, choice, prefix=prefix)
    return kind


_CONFIRM = re.compile(r"(맞(지|죠|나요|아요|니|냐|으시죠|으세요)|(다|라|이라|였다|했다|셨다)\s*(고|구)(요)?|"
                      r"(이|하|했|하셨|있|없|였|셨)?(죠|지요|지|잖아(요)?))\s*[?？~.!…]*\s*$")


_GRADE_TOKEN = re.compile(r"(?<![가-힣])(?:(중|고)\s*([1-3])(?![0-9])|(중|고)등학교\s*([1-3])\s*학년|(중|고)(?:학생|등학생|딩))")
_TAG_QUESTION = re.compile(r"(맞(지|죠|나요|아요|니|냐|으시죠|으세요|는지)|(이|하|였|셨|신)?(죠|지요|지|잖아(요)?)|(이)?(신가요|인가요|이야|이에요|예요|임)|"
                           r"(라고|다고)\s*(알고|들었|적혀|봤|하던))")


def _grades(text: str) -> set[tuple[str, str]]:
    out = set()
    for m in _GRADE_TOKEN.finditer(text):
        level = m.group(1) or m.group(3) or m.group(5)
        out.add((level, m.group(2) or m.group(4) or ""))
    return out


def wrong_grade_premise(question: str, fact_lines: Sequence[str]) -> bool:
    """True when a tag question takes a wrong school grade for granted ("고3이죠?" to a 고2, "중학생
    맞으시죠?" to a 고2): one grade named (a choice "고2예요, 고3이에요?" is no premise), and the card's
    lines name another level or year."""
    asked = _grades(question)
    if len(asked) != 1 or not _TAG_QUESTION.search(question):
        return False
    card = _grades(" ".join(fact_lines))
    if not card:
        return False
    (level, year), = asked
    return not any(level == lv and (not year or not yr or year == yr) for lv, yr in card)


def confirms_what_was_said(question: str, replies: Sequence[str]) -> bool:
    """True when a checking question ("…맞지?", "…했다고요?", "…이시죠?") restates what the client
    already said in this session: every content noun of it (two or more syllables, at least one)
    is in the client's earlier replies. Only then may a yes open the reply — it agrees with the
    client's own words, never with a guess about the card."""
    if not replies or not _CONFIRM.search((question or "").strip()):
        return False
    nouns = [n for n in content_phrase(question, max_words=8, nouns_only=True) if len(n) >= 2]
    said = " ".join(replies)
    return bool(nouns) and all(n in said for n in nouns)


def fact_by_content(script: Mapping[str, Any], question: str, *, ties: bool = False) -> str | None:
    """The card fact whose lines share most content nouns with a question no cue or bank line read.

    A trainee checking what the client said ("어린이집 선생님이 권하셨다고요?", "Wee클래스 상담 두 번
    했었다고?") names the content of a fact rather than its topic. Nouns are kiwipiepy's (two
    syllables or more, fillers dropped); a tie between facts names none of them (``ties``: the first
    in card order, for a reading that is known to be wrong).
    """
    nouns = [n for n in content_phrase(question or "", max_words=8, nouns_only=True) if len(n) >= 2]
    if not nouns:
        return None
    scores: dict[str, int] = {}
    for key, fact in (script.get("facts") or {}).items():
        if not isinstance(fact, Mapping):
            continue
        said = " ".join(str(x) for part in ("lines", "brief") for x in (fact.get(part) or ()))
        hits = sum(1 for n in nouns if n in said)
        if hits:
            scores[key] = hits
    if not scores:
        return None
    best = max(scores.values())
    top = [k for k, v in scores.items() if v == best]
    return top[0] if (len(top) == 1 or ties) else None


# A bank-only reading of an intake or narrow fact is re-checked against the card's content below
# this similarity ("단톡방 일은 어떻게 된 거야?" is near "어떻게 오게 된 거야?" only by its frame).
FIRM_RECHECK_SIM = 0.5
# Facts the reader names precisely (intake facts, narrow card facts): re-read from content only
# when the bank read them from a distant question.
_FIRM_KEYS = frozenset({"age", "grade", "living", "siblings", "prior_counseling", "reason", "medical", "transfer",
                        "awards", "academy", "aptitude"})


def _joins_two_things(question: str) -> bool:
    """True when the question joins two nouns with a conjunctive particle (kiwipiepy ``JC``: 이나,
    랑, 하고, 와/과 — "상담이나 심리검사")."""
    from vignette_lab.engines.client_reading import _morphs

    return any(tag == "JC" for _, tag in _morphs(question.strip()))


def refine_by_content(script: Mapping[str, Any], question: str, key: str | None) -> str | None:
    """The fact a question asks for, checked against what the card's facts say.

    When the question names content (kiwipiepy nouns of two syllables or more) that the read
    fact's lines never mention but exactly one other fact's lines do ("근무는 어떻게 돌아가요?" read
    as school, while only the job fact says "교대 근무"), the question is about that fact. A
    reading whose lines share a noun with the question, a question naming no content, an intake or
    narrow fact (:data:`_FIRM_KEYS`) and a reading a cue made (only the bank's readings are
    re-checked) are kept.
    """
    facts = script.get("facts") or {}
    if cue_key(question or "") is not None:
        if key is not None and key not in facts and _joins_two_things(question or ""):
            # "상담이나 심리검사 받아 본 적 있어요?" to a client whose card has no test: the other fact
            # the two things joined name, when the card has it
            return next((k for k in cue_keys(question or "") if k in facts), key)
        return key  # a fact a cue read from the question itself stays
    if key in _FIRM_KEYS:
        from vignette_lab.engines.fact_reader import predict_fact

        if predict_fact(question or "")[1] >= FIRM_RECHECK_SIM:
            return key  # an intake or narrow fact the bank reads from a close paraphrase stays
    nouns = [n for n in content_phrase(question or "", max_words=8, nouns_only=True) if len(n) >= 2]
    if not nouns:
        return key
    current = facts.get(key) if key else None
    if isinstance(current, Mapping):
        said = " ".join(str(x) for part in ("lines", "brief") for x in (current.get(part) or ()))
        if any(n in said for n in nouns) or any(asks.search(question) and carries.search(said)
                                                for asks, carries in _DETAIL_CUES):
            return key  # its lines name the content, or carry the detail asked ("성적은?" → "떨어졌어요")
    other = fact_by_content(script, question, ties=key in _FIRM_KEYS)
    return other if other is not None else key


def _pick_detail(picker: _Picker, path: str, question: str, *, allow_used: bool = False,
                 pool: Sequence[tuple[str, str]] | None = None) -> tuple[str, str] | None:
    """An unused line of ``path`` (or of ``pool``); lines carrying the detail the question asks for
    come first."""
    if pool is None:
        pool = picker.fresh(path) or (picker.lines(path) if allow_used else [])
    # The specific detail asked for first ("어느 정도야?" → the line with "2등", "얼마나" → "5년 차"),
    # then a line naming what the question names ("아이 아빠랑은 지금 연락해요?" → the line about
    # the child's father, not one that only says "지금"), then the loose "요즘/지금".
    pool = _carrying_detail(pool, question, cues=_SPECIFIC_DETAIL_CUES) or pool
    groups = _named_groups(question)
    # the question's words by their first two syllables ("늘었다고" meets "늘었어요"), fillers dropped
    stems = {w[:2] for w in re.findall(r"[가-힣]{2,}", question or "")} - _SMALL_TALK_FILLERS - {"어떻", "있어", "없어"}

    def naming_score(c: tuple[str, str]) -> int:
        # a line about the one asked of ("아빠는 …") beats a line that mentions them on the way
        return (2 * _names(c[1], groups) + sum(st in c[1] for st in stems)
                + sum(1 for g in groups if any(c[1].startswith(s) for s in g)))

    if pool and max(naming_score(c) for c in pool) > 0:
        best = max(naming_score(c) for c in pool)
        pool = [c for c in pool if naming_score(c) == best]
    with_detail = _carrying_detail(pool, question)
    if with_detail:
        pool = with_detail
    return picker.rng.choice(pool) if pool else None


# Kin named in several ways: a question's "아버님" is the line's "아빠".
_KIN_GROUPS = (frozenset({"아빠", "아버지", "아버님"}), frozenset({"엄마", "어머니", "어머님"}),
               frozenset({"부모님", "부모", "친정"}), frozenset({"남편", "아이 아빠", "애 아빠", "애기 아빠"}),
               frozenset({"딸", "아이", "애기", "아기", "따님"}), frozenset({"아들", "아드님"}))


def _named_groups(question: str) -> list[frozenset[str]]:
    """What a question names, each as the set of words a line may name it by: kin by their group
    (:data:`_KIN_GROUPS`), other content nouns (two syllables or more) as themselves."""
    groups: list[frozenset[str]] = []
    for noun in content_phrase(question or "", max_words=6, nouns_only=True):
        if len(noun) < 2:
            continue
        group = next((g for g in _KIN_GROUPS if noun in g or any(noun.startswith(s) for s in g if len(s) >= 2)),
                     frozenset({noun}))
        if group not in groups:
            groups.append(group)
    return groups


def _names(line: str, groups: Sequence[frozenset[str]]) -> int:
    """How many of the named things a line names."""
    return sum(1 for g in groups if any(s in line for s in g))


def _carrying_detail(pool: Sequence[tuple[str, str]], question: str, *,
                     cues: Sequence[tuple[re.Pattern[str], re.Pattern[str]]] | None = None) -> list[tuple[str, str]]:
    """The lines of ``pool`` that carry the detail the question asks for (empty when it asks none
    or no line carries it)."""
    for asks, carries in _DETAIL_CUES if cues is None else cues:
        if asks.search(question or ""):
            with_detail = [c for c in pool if carries.search(c[1])]
            if with_detail:
                return with_detail
    return []


# A suggestion the counselor made earlier in the session ("쉬는 것도 계획에 넣어 보면 어떨까요?"): what a
# client names when asked which plan they will try first.
_SUGGESTION = re.compile(r"(" + r"[가-힣]" + r"\s*(보면|보는\s*(건|게|것)|보시면|보실래|보자|볼래|볼까)|어떨까|어때요?\s*[?？]|하면\s*(좋|어떨))")


# "X-아/어 보면 어떨까요?": the clause tried ("휴대폰을 거실에 두고 자"), before the auxiliary 보다.
_TRIED = re.compile(r"((?:\S+\s+){0,5}\S+?)\s*(?:보면|보는\s*(?:건|게|것)|보시면|보실래|보자|볼래|볼까)")
_LEAD_WORDS = re.compile(r"^((그럼|그러면|이번\s*주(에는|엔|에)?|다음\s*주까지|한번|한\s*번|좀|같이|우리)\s+)+")


def _suggested_act(turn: str) -> str | None:
    """A suggestion's act as a client names it, its last verb made adnominal by kiwipiepy ("넣어 보면" →
    "넣는"): "쉬는 것도 계획에 넣는", "휴대폰을 거실에 두고 자는"; None when it cannot be read."""
    from vignette_lab.engines.client_reading import _kiwi

    m = _TRIED.search(turn or "")
    if m is None:
        return None
    clause = _LEAD_WORDS.sub("", m.group(1).strip())
    try:
        tokens = _kiwi().tokenize(clause)
        # "산책해": the noun stays and 하다 (XSV) takes the ending
        verb = next(t for t in reversed(tokens) if t.tag.startswith(("VV", "VA", "XSV")))
        head = clause[:verb.start]
        said = _kiwi().join([(verb.form, verb.tag), ("는", "ETM")])
    except Exception:  # noqa: BLE001 - no analyser, or no verb: the noun form is used instead
        return None
    phrase = " ".join((head + said).split())
    return phrase if 2 <= len(phrase.split()) <= 7 and _HANGUL_ONLY.fullmatch(phrase.replace(" ", "")) else None


_HANGUL_ONLY = re.compile(r"[가-힣0-9]+")


def _plan_reply(picker: _Picker, view: Mapping[str, Any] | None, earlier: Sequence[str]) -> bool:
    """Which of today's plans the client will try first: the last suggestion's content noun, in the
    persona's filler ("음… 아까 말씀하신 계획, 그거부터 해 볼게요."); False when none was made."""
    fillers = [f.rstrip("…") for f in ((view or {}).get("speech_style") or {}).get("fillers", ())
               if len(f.rstrip("…")) <= 4 and not f.endswith("요")] or ["음"]
    for turn in reversed(list(earlier)):
        if not _SUGGESTION.search(turn):
            continue
        phrase = _suggested_act(turn)
        if phrase:
            # the suggestion said back as a thing to do ("휴대폰을 거실에 두고 자는 거요")
            line = f"{picker.rng.choice(fillers)}… {phrase} 거요. 그거부터 해 볼게요."
        else:
            nouns = [n for n in content_phrase(turn, max_words=6, nouns_only=True)
                     if len(n) >= 2 and n not in _SMALL_TALK_FILLERS]
            if not nouns:
                continue
            line = f"{picker.rng.choice(fillers)}… 아까 말씀하신 {nouns[0]}, 그거부터 해 볼게요."
        picker.tell("closing:plan", line)
        return True
    return False


def _closing_reply(picker: _Picker, counselor_text: str, *, view: Mapping[str, Any] | None = None,
                   earlier: Sequence[str] = ()) -> None:
    """A closing answers what the wrap-up asks, then the goodbye.

    * ``review`` ("끝나기 전에 오늘 어땠어?"): the persona's word on the session
      (``acts.closing_review``), or "딱히 없어요" when asked for questions left — no "네, 감사합니다";
    * ``homework``: agreeing to try it (``acts.closing_homework``), then a closing line;
    * ``next`` ("다음 주 같은 시간 괜찮아?"): agreeing to come (``acts.closing_next``);
    * ``summary`` checked with the client ("…라는 거지?"): "네, 맞아요", then a closing line;
    * ``plain``: "네" first, then one of the persona's closing lines.
    """
    kind = closing_kind(counselor_text)
    if closing_plan(counselor_text) and (_plan_reply(picker, view, earlier)
                                         or picker.say_first("closing:homework", "acts:closing_homework")):
        return
    if kind == "review":
        if closing_asks_questions(counselor_text) and not re.search(r"(어땠|어떠셨|기억에|알게|느낀|도움)", counselor_text):
            # nothing left to ask or say, in the persona's words when the card has them
            if not picker.say_first("closing:none_left", "acts:closing_none", allow_used=False):
                picker.tell("closing:none_left", picker.rng.choice(("음… 지금은 딱히 없어요.", "아니요, 딱히 없어요.")))
            picker.say("closing", picker.pick("closing"))
            return
        if view is not None:
            _beat(picker, view, p=0.5)  # looking back on the hour often starts with the persona's "음…"
        if picker.say_first("closing:review", "acts:closing_review"):
            return
    elif kind in ("homework", "next"):
        if picker.say_first(f"closing:{kind}", f"acts:closing_{kind}"):
            if kind == "homework":
                picker.say("closing", picker.pick("closing"))
            return
    elif kind == "summary":
        picker.tell("closing:ack", picker.rng.choice(("네, 맞아요.", "네… 그런 것 같아요.")))
        picker.say("closing", picker.pick("closing") or picker.pick("closing", allow_used=True))
        return
    acks = ["네, 다음 주에 봬요.", "네, 그럼 다음에 올게요."] if _NEXT_TIME.search(counselor_text) else []
    acks += ["네, 감사합니다.", "네, 알겠어요.", "네, 안녕히 계세요."]
    choice = picker.pick("closing") or picker.pick("closing", allow_used=True)
    if choice is not None and not re.match(r"^\s*([(（][^)）]*[)）]\s*)?(…\s*)?네", choice[1]):
        picker.tell("closing:ack", picker.rng.choice(acks))
    picker.say("closing", choice)


# A long reflection or summary that ends by asking how it sounds or what is wrong in it
# ("…어떻게 들리세요?", "…틀린 거 있어?", "…잘못 들은 거 있으면 고쳐 줘"): the client answers the
# summary as a whole, not a fact one of its sentences names.
_SUMMARY_CHECK = re.compile(
    r"(어떻게\s*(들리|들려|생각|느껴|보여)|(듣기|들어\s*보니)\S{0,2}\s*어때|틀린\s*(거|게|데|부분|것)|"
    r"잘못\s*(들은|이해한|안|말한|짚은|기억한)|고쳐\s*(줘|주세요|줄래|줘도|주면)|(맞는|맞은)\s*(것\s*같|지|건지|거야|거예요)|"
    r"비슷(해|한가|한지)|(와\s*닿|와닿)|동의(해|하세요|하시|가\s*돼))")
_CHECKS_UNDERSTANDING = re.compile(r"(맞(아|지|죠|나요|는지|는\s*건지)|이해한\s*(게|것|거|건)|잘못\s*(기억|이해|들)|틀린\s*(데|거|게|부분))")


def _sentences(text: str) -> list[str]:
    return [x for x in re.split(r"(?<=[?？.!])\s+", text or "") if x.strip()]


# Where a run-on sentence turns to the client: a connective or the client addressed ("너도", "혹시").
_CLAUSE_TURN = re.compile(r"(?:^|\s)(?:근데|그런데|그래서|그러니까|그니까|그럼|그러면|혹시|너도|너는|넌)\s")
_ASKS_THE_DAY = re.compile(r"(하루(를|가|는)?\s*(어떻게|어때|어떤|뭐)|일과|아침.{0,12}(밤|자기\s*전|저녁|잘\s*때))")
_RUN_ON_WORDS = 10
_DAY_WORDS = frozenset({"아침", "밤", "새벽", "잠", "학교", "집", "일", "근무", "피곤", "폰"})


def ask_clause(question: str) -> str:
    """The clause of a question sentence that asks: after the last connective or address to the
    client when a run-on sentence holds several clauses ("…그랬거든 근데 너도 혹시 요즘 하루를
    어떻게 보내?" → "요즘 하루를 어떻게 보내?"); the sentence itself otherwise."""
    if len(question.split()) < _RUN_ON_WORDS:  # a short question is one clause ("그런데 점심은 드셨어요?")
        return question
    cuts = [m.end() for m in _CLAUSE_TURN.finditer(question)]
    for cut in reversed(cuts):
        rest = question[cut:]
        if len(rest.split()) >= 3:
            return rest
    return question


_ALTERNATIVE = re.compile(r"^\s*(아니면|아님|혹은|아니면은)\s")


def _last_question(text: str) -> str | None:
    """The last sentence of a turn that is a question (None when none is); an alternative offered
    after a question ("…먼저 말 걸어 준 적 있어? 아님 다 모른 척해?") leaves the question before it."""
    asked = [x for x in _sentences(text) if is_question(x)]
    while len(asked) > 1 and _ALTERNATIVE.search(asked[-1]):
        asked.pop()
    return asked[-1] if asked else None


_LAUGH = re.compile(r"(ㅋㅋ|ㅎㅎ)")


def _adult(view: Mapping[str, Any]) -> bool:
    """True for a persona out of school age (the card's age band is not 10대)."""
    band = str((view.get("demographics") or {}).get("age_band", ""))
    return bool(band) and "10대" not in band


def _joke_reply(picker: _Picker, view: Mapping[str, Any], counselor_text: str) -> None:
    """A joke gets the persona's reaction; a teen answers a typed laugh ("ㅋㅋ") with one, as text
    chat goes."""
    laugh = _LAUGH.search(counselor_text or "")
    teen = not _adult(view)
    if laugh and teen:
        picker.tell("joke:laugh", laugh.group(1))
    kind = joke_kind(counselor_text)
    if kind == "guess":
        # teased about their own life ("커피를 달고 사시겠네요?"): the thing echoed, then the persona's word on it
        target = joke_target(counselor_text)
        if target and picker.fresh("acts:joke_guess"):
            picker.tell("joke:echo", f"{target}{'이요' if hangul.has_final(target) else '요'}?")
        if picker.say_first("joke:guess", "acts:joke_guess", allow_used=False):
            return
    elif kind == "self" and picker.say_first("joke:self", "acts:joke_self", allow_used=False):
        return  # the counselor laughing at themself gets a kind "아니에요…", not a verdict on the joke
    picker.say_first("joke", "acts:joke", "reactions:neutral")


@functools.lru_cache(maxsize=8192)
def _line_words(line: str) -> frozenset[str]:
    """Content words of a card line, cached apart from the counselor texts (a few thousand card lines
    would otherwise be re-analysed whenever the shared morpheme cache has turned over)."""
    return frozenset(content_phrase(line, max_words=12))


def _verbal_nouns(text: str) -> tuple[str, ...]:
    """Nouns of two syllables or more that a predicate is made from ("선택했" → 선택, "걱정돼" → 걱정)."""
    from vignette_lab.engines.client_reading import _morphs

    morphs = _morphs((text or "").strip())
    return tuple(dict.fromkeys(form for (form, tag), (_, nxt) in zip(morphs, morphs[1:])
                               if tag in ("NNG", "XR") and len(form) >= 2 and nxt.startswith(("XSV", "XSA"))))


@functools.lru_cache(maxsize=8192)
def _predicates(text: str) -> frozenset[str]:
    """Adjective and verb lemmas of a text (kiwipiepy ``VA``/``VV``), light verbs dropped."""
    from vignette_lab.engines.client_reading import _morphs

    return frozenset(form for form, tag in _morphs((text or "").strip())
                     if tag.startswith(("VA", "VV")) and form not in ("하", "되", "있", "없", "같", "보", "오", "가", "그렇", "모르", "알"))


@functools.lru_cache(maxsize=8192)
def _line_verbal_nouns(line: str) -> frozenset[str]:
    return frozenset(_verbal_nouns(line))


_STEER_BACK = re.compile(r"(제\s*얘기|돌아가)")
_SMALL_TALK_FILLERS = frozenset({"요즘", "근데", "그냥", "진짜", "혹시", "갑자기", "선생", "그럼", "오늘", "어제", "이번", "완전",
                                 "제일", "너무", "많이", "혹시", "아니", "저도", "나도", "우리"})


def _small_talk_reply(picker: _Picker, counselor_text: str) -> None:
    """Small talk gets a brief answer on its subject in the persona's voice (``small_talk.<subject>``),
    sometimes followed by the persona's own way back to their story; a subject without lines, or
    none read, gets the persona's off-topic reaction."""
    subject = small_talk_subject(counselor_text)
    if subject == "offer":
        # water or the window offered in the room: a plain thanks or no-thanks, not a view on the subject
        line = picker.rng.choice(_OFFER_REPLIES)
        picker.parts.append(line)
        picker.kinds.append("off_topic:offer")
        picker.ids.append(f"offer:{_OFFER_REPLIES.index(line)}")
        return
    if subject is None and asks_task(counselor_text):
        subject = "favour"  # "같이 풀어 볼래?", "해석해 줄 수 있어요?": a task asked of the client
    pool = picker.fresh(f"small_talk:{subject}") if subject is not None else []
    if subject is not None and pool:
        # The line that shares the question's words ("봤어?" → a line with 봤/봐; "매운맛?" → 매운)
        # (word stems by their first two syllables: "봤어?" meets "못 봤어요", "매운맛" meets "매운 거")
        asked = set(content_phrase(counselor_text, max_words=10))
        stems = {w[:2] for w in re.findall(r"[가-힣]{2,}", counselor_text)} - _SMALL_TALK_FILLERS
        # what a yes/no question predicates ("춥지는 않으셨어요?" → 춥다) is what the answer must say: a line
        # with that predicate ("좀 추웠어요") beats one that only names the subject ("날씨요? …")
        preds = _predicates(counselor_text)
        scores = [len(asked & _line_words(line)) + sum(st in line for st in stems) + 3 * len(preds & _predicates(line))
                  for _, line in pool]
        if subject == "food":  # "뭐 먹었어?" is answered by what was eaten, "매운맛 좋아해?" by a liking
            ate = bool(re.search(r"(먹었|드셨|나왔|먹고\s*왔)", counselor_text))
            scores = [sc + (2 if ("먹었" in line) == ate else 0) for sc, (_, line) in zip(scores, pool)]
            if not ate and re.search(r"(좋아|맛있|맛없|꿀|어때|별로|싫어|아님|아니야|최고)", counselor_text):
                # a liking asked ("마라탕 나온대, 좋지 않아?"): a line with a liking in it, not what was eaten
                scores = [sc + bool(re.search(r"(좋아|싫|별로|맛있|맛없|그냥 그래|괜찮)", line)) for sc, (_, line) in zip(scores, pool)]
            if re.search(r"(아침|저녁|야식|주말)", counselor_text):  # school lunch answers no other meal
                scores = [sc - 3 * ("급식" in line) for sc, (_, line) in zip(scores, pool)]
        if subject == "game_sport":  # a game asked about ("롤 티어 뭐야?") is answered by playing, not by a match seen
            game = bool(re.search(r"(게임|(?<![가-힣])롤(?![가-힣])|발로|티어|랭크|배그|피파|마크)", counselor_text))
            scores = [sc + (2 if ("게임" in line) == game else 0) for sc, (_, line) in zip(scores, pool)]
        best = max(scores)
        choice = picker.rng.choice([c for c, sc in zip(pool, scores) if sc == best])
        echo = _echo_noun(counselor_text, subject)
        options = choice_options(counselor_text)
        if options:
            # "떡볶이 vs 치킨 골라": one of them picked, then the persona's word on food
            pick = picker.rng.choice(options)
            picker.tell("off_topic:choice", f"음… {pick}{'이요' if hangul.has_final(pick) else '요'}.")
            echo = None
        if echo and re.match(r"^\s*…?\s*[가-힣]{1,6}(이)?요\?", choice[1]):
            echo = None  # the line echoes its own subject ("날씨요? …")
        if subject == "favour" and not re.match(r"^\s*(네\?|제가요)", choice[1]):
            # a favour asked of the client surprises them before they answer it ("네? 제가요?")
            picker.tell("off_topic:surprise", picker.rng.choice(("네? 제가요?", "네? 갑자기요?", "네? 저한테요?")))
            echo = None
        if echo and echo not in choice[1]:
            picker.parts.append(f"{echo}{'이요' if hangul.has_final(echo) else '요'}?")  # "떡볶이요?", "경기요?"
            picker.kinds.append("off_topic:echo")
            picker.ids.append("off_topic:echo")
        picker.say(f"off_topic:{subject}", choice)
        steer = [c for c in picker.fresh("acts:off_topic") if _STEER_BACK.search(c[1])]
        if steer and picker.rng.random() < 0.35:
            picker.say("off_topic:steer", picker.rng.choice(steer))
        return
    noun = aside_noun(ask_clause(_last_question(counselor_text) or counselor_text))
    if noun and picker.fresh("acts:off_topic"):
        # an aside on a subject with no lines: the thing asked about is echoed back, puzzled
        # ("엑셀이요? 갑자기 그 얘기를 하시니까 좀 당황스럽네요.")
        picker.tell("off_topic:echo", f"{noun}{'이요' if hangul.has_final(noun) else '요'}?")
    picker.say_first("off_topic", "acts:off_topic", "reactions:neutral")


_OFFER_REPLIES = ("아, 괜찮아요.", "아… 네, 감사합니다.", "괜찮아요, 그냥 있을게요.", "네, 좋아요.")


def _echo_noun(question: str, subject: str) -> str | None:
    """The noun of a small-talk question a listener echoes back ("떡볶이", "국대 경기"): the content
    noun inside the words the subject was read from (kiwipiepy nouns)."""
    from vignette_lab.engines.client_reading import _SMALL_TALK, _morphs

    rx = dict(_SMALL_TALK).get(subject)
    m = rx.search(question or "") if rx is not None else None
    if m is None:
        return None
    nouns = [n for n in content_phrase(question, max_words=8, nouns_only=True) if len(n) >= 2]
    inside = [n for n in nouns if n in m.group(0) or m.group(0).strip() in n]
    if len(inside) >= 2 and "".join(inside) in question:
        inside = ["".join(inside)]  # a compound typed as one word ("미세먼지") is echoed whole, not its first part
    said = m.group(0).strip()
    whole_word = m.start() == 0 or not "가" <= question[m.start() - 1] <= "힣"  # "값" of "점심값" is no name
    if (not inside and whole_word and re.fullmatch(r"[가-힣]{1,3}", said)
            and all(tag.startswith("NN") for _, tag in _morphs(said))):
        return said  # a short name of the thing ("롤") is echoed as said; a predicate ("덥지", "유행하") is not
    if not inside:
        # the words name no thing ("어디가 제일 싸요?"): the noun said just before them ("계란")
        before = [(question.rfind(n, 0, m.start()), n) for n in nouns
                  if n not in _SMALL_TALK_FILLERS and not n.endswith("님") and 0 <= question.rfind(n, 0, m.start())]
        return max(before)[1] if before else None
    return inside[0]


def _greeting_reply(picker: _Picker, counselor_text: str = "") -> None:
    """A first greeting is returned: a greeting line, opened with "네, 안녕하세요." unless it greets;
    "오늘 하루 어땠어?" gets an answer about the day first."""
    choice = picker.pick("greeting") or picker.pick("greeting", allow_used=True)
    if re.search(r"맞(지|아|죠|니|나요|으세요|으시죠)\s*[?~.!]*\s*$", counselor_text):
        picker.parts.append("네, 맞아요.")  # the counselor checks the client's name: a true yes
        picker.kinds.append("greeting:ack")
        picker.ids.append("greeting:ack")
    elif is_question(counselor_text) and re.search(r"(어렵|힘들|헤매|멀(었|지|진)|막히)", counselor_text):
        picker.parts.append("아니요, 괜찮았어요.")  # "찾기 어렵진 않았어?" — the way here was fine
        picker.kinds.append("greeting:ack")
        picker.ids.append("greeting:ack")
    elif re.search(r"(온\s*(거|건)|왔(어|니|나|구나|네|지)|오셨(어|나|네|죠|지))\S*\s*[?？]", counselor_text):
        picker.parts.append("네.")  # "학교 끝나고 바로 온 거야?"
        picker.kinds.append("greeting:ack")
        picker.ids.append("greeting:ack")
    elif re.search(r"(어땠|어때|잘\s*지냈|지냈어|괜찮았)", counselor_text):
        picker.tell("greeting:ack", picker.rng.choice(("네… 그냥 그랬어요.", "뭐… 그냥 그랬어요.")))
    elif choice is not None and not re.search(r"(안녕|네[,.]|^…?네)", choice[1]):
        picker.tell("greeting:ack", "네, 안녕하세요.")
    picker.say("greeting", choice)


def _content_reply(picker: _Picker, counselor_text: str, *, depth: int, view: Mapping[str, Any] | None = None) -> bool:
    """A long reflection is answered on its content: the told line that shares most content words.

    Candidates are the topic lines, disclosures up to ``depth`` and facts the client may tell
    (gate ≤ ``depth``); overlap is counted on kiwipiepy content words. Returns False when no
    line shares a word (the caller then says it did not follow).
    """
    wanted = set(content_phrase(counselor_text, max_words=40))
    if not wanted:
        return False
    # What the counselor asks at the end of a long turn matters most.
    asked = set()
    for sentence in re.split(r"(?<=[?.!])\s+", counselor_text):
        if is_question(sentence):
            asked |= set(content_phrase(ask_clause(sentence), max_words=12))
    script = picker.script
    last_asked = ask_clause(_last_question(counselor_text) or "")
    # only an invitation with no wh-word ("…다른 마음도 있지는 않은지 생각을 들어 보고 싶어요"): "어떤 상황이었고 어떤
    # 마음이 들었는지" asks the story as well, and is answered on its content
    inner = bool(_INNER_ASK.search(last_asked)) and not _WH_WORD.search(last_asked)
    if inner:
        # a long turn that ends asking what the client feels or thinks inside ("혹시 다른 마음도 섞여 있지는
        # 않은지 생각을 들어 보고 싶어요") is answered from the feelings, not a fact the summary restated
        paths = [f"topics:{t}" for t in ("feelings", "thoughts") if t in (script.get("topics") or {})]
    else:
        paths = [f"topics:{t}" for t in (script.get("topics") or {})]
    paths += [f"disclosures:{d}" for d in range(depth + 1)] if not inner or not paths else []
    paths += [] if inner else [f"facts:{k}:lines" for k, f in (script.get("facts") or {}).items()
                               if isinstance(f, Mapping) and int(f.get("gate", 0)) <= depth]
    # A line carrying the detail the last question asks ("언제쯤?" → "2학기부터", "누구야?" → "형") counts
    # as much as three shared words: it is what was asked. A run-on question keeps only its last
    # clause: the counselor's own story before "근데 너도 혹시 …" is not what is asked.
    last = ask_clause(_last_question(counselor_text) or "")
    # the question's verbal nouns count too ("선택했으니까" → 선택): they carry what is asked
    last_words = {x for x in content_phrase(last, max_words=12) + _verbal_nouns(last) if len(x) >= 2}
    if _ASKS_THE_DAY.search(last):
        # "하루를 어떻게 보내?", "아침부터 밤까지 뭐 해?": the day is told by its sleep, school or work
        last_words |= _DAY_WORDS
    wanted |= last_words
    details = [carries for asks, carries in _SPECIFIC_DETAIL_CUES if asks.search(last)]

    def weight(w: str) -> int:
        # the last question's words weigh most, other questions' next, the reflection's least
        if any(w in x or x in w for x in last_words):
            return 3
        return 2 if any(w in x or x in w for x in asked if len(x) >= 2) else 1

    best, best_score = None, (0, 0)
    for path in paths:
        for lid, line in picker.fresh(path):
            line_words = _line_words(line) | _line_verbal_nouns(line)
            hits = sum(weight(w) for w in line_words
                       if w in wanted or any(w in x or x in w for x in wanted if len(x) >= 2))
            on_last = sum(1 for w in line_words if any(w in x or x in w for x in last_words))
            hits += 3 * any(rx.search(line) for rx in details)
            # a line on the last question first (what was asked), then the most shared words
            if hits and (on_last, hits) > best_score:
                best, best_score = (lid, line), (on_last, hits)
    if best is None and inner:
        # no feeling line shares a word with the question, but any of them answers an invitation to say one
        best = picker.pick("topics:feelings") or picker.pick("topics:thoughts")
    if best is None:
        return False
    if last and (_OPEN_ASK.search(last) or inner) and not _CHECKS_UNDERSTANDING.search(last):
        # a long reflection that ends in an open question about the client's inside ("그 말이 어떻게
        #들렸어?", "어떤 게 제일 가까운 것 같아?") is answered after a moment's hesitation
        fillers = [f for f in ((view or {}).get("speech_style") or {}).get("fillers", ())
                   if len(f) <= 4 and not f.endswith("요")] or ["음"]  # "몰라요… 잘 모르겠는데" says it twice
        filler = picker.rng.choice(fillers).rstrip("…")
        ack = f"{filler}… " + picker.rng.choice(("잘 모르겠는데,", "생각해 본 적은 없는데…", "잘 모르겠어요. 그냥…"))
    elif _CHECKS_UNDERSTANDING.search(counselor_text):
        # a summary checked with the client ("제가 이해한 게 맞는지…"): a yes, then the main thing in the
        # persona's own filler ("네, 맞아요. 근데… 교대 근무라 …")
        picker.tell("long:ack", picker.rng.choice(("네, 맞아요.", "네, 대충 맞아요.", "네… 거의 맞아요.")))
        fillers = [f.rstrip("…") for f in ((view or {}).get("speech_style") or {}).get("fillers", ())
                   if len(f.rstrip("…")) <= 4 and not f.endswith("요")] or ["음"]
        picker.say("long:content", (best[0], best[1].lstrip("… ")), prefix=f"{picker.rng.choice(fillers)}… ")
        return True
    elif last and is_question(last):
        # a yes/no question ends the long turn ("…먼저 말 걸어 준 적 있어?"): no "맞아요" agreeing with it
        fillers = [f for f in ((view or {}).get("speech_style") or {}).get("fillers", ()) if len(f) <= 4] or ["음"]
        ack = f"{picker.rng.choice(fillers).rstrip('…')}…"
    else:
        ack = picker.rng.choice(("네… 맞아요.", "음… 그런 것 같아요.", "네, 그게…"))
    picker.tell("long:ack", ack)
    picker.say("long:content", best)
    return True


# A question about the client's inside: a feeling, a mind, their own thoughts invited ("생각을 들어 보고 싶어요").
_INNER_ASK = re.compile(r"(마음|기분|느낌|감정|속마음|(생각|얘기|이야기)(을|를)?\s*(좀\s*)?(들어|듣고|말해|들려)|어떤\s*생각|무슨\s*생각)")
_WH_WORD = re.compile(r"(몇|누구|누가|어디|언제|무슨|무엇|뭐|뭘|어떤|어떻게|왜|얼마나|어땠|어떠)")
# An open question (what, which, how, since when, why), as against a yes/no check.
_OPEN_ASK = re.compile(r"(뭐|뭘|무엇|무슨|어떤|어떻게|어땠|언제|왜|어느|누구|누가|어디)")


# ---------------------------------------------------------------------- the reply

def client_reply(engine: ScriptedEngine, request: GenerateRequest, rng: random.Random) -> tuple[str, None, dict[str, Any]]:
    """Build the persona's reply to the last user (counselor) message.

    Returns
    -------
    tuple
        ``(text, None, metadata)``; metadata holds ``counselor_move``, ``act``, ``topic``,
        ``fact``, ``reply_parts`` (kinds), ``line_ids`` and ``ideation_disclosed``.
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
    turn_seq = int(_number(meta, "turn_seq", 1))

    users = [m.content for m in request.messages if m.role == "user"]
    history = [m.content for m in request.messages if m.role == "assistant"]
    typed = users[-1] if users else ""
    counselor_text = standardise(typed)  # chat shorthand, dialect endings and lost spaces read as standard
    # The prompt history holds only the last K turns; the orchestrator lists every earlier
    # reply of this session in metadata so lines are not repeated beyond that window.
    earlier = [str(x) for x in meta.get("prior_replies") or () if isinstance(x, str)]
    replies = earlier + [h for h in history if h not in earlier]
    index = engine.line_index(str(code)) if hasattr(engine, "line_index") else line_index(script)
    used = used_line_ids(index, replies)
    picker = _Picker(script, used, rng)
    picker.said = set(replies)
    disclosed = bool(meta.get("ideation_disclosed")) or any(
        lid.startswith(("si:disclose", "si:again", "ideation_hints:2", "ideation_hints:3")) for lid in used)

    act = read_act(typed, turn_seq=turn_seq)
    if act in ("talk", "fact", "long") and is_question(counselor_text) and si_follow_up(counselor_text) and any(
            read_act(u, turn_seq=turn_seq) == "si_screen" for u in users[-4:-1]):
        # "그런 마음이 얼마나 자주 들어?", "그 생각을 실제로 어떻게 할지까지 생각해 봤어?" right after a screening
        # question follow it up: answered by the card's ideation stage like the screening itself, never with a plan
        act = "si_screen"
    topic = read_topic(counselor_text)
    fact = refine_by_content(script, counselor_text, read_fact(counselor_text)) if act == "fact" else None
    greets_first = False
    if act == "greeting":
        # "안녕, 몇 학년이야?": greeted back briefly, then the question after the greeting is answered
        rest = after_greeting(counselor_text)
        if rest and read_act(rest, turn_seq=2) == "fact":
            act, greets_first = "fact", True
            fact = refine_by_content(script, rest, read_fact(rest))
    if act == "talk" and is_question(counselor_text) and not _FEELING_QUESTION.search(counselor_text):
        fact = fact_by_content(script, counselor_text)  # "Wee클래스 두 번 했었다고?" → prior_counseling
        act = "fact" if fact is not None else act
    if act == "fact" and len(_sentences(counselor_text)) > 2:
        asked = _last_question(counselor_text)
        if asked is not None and _FEELING_QUESTION.search(asked):
            # a reflection of several sentences that ends in a question about a thought or feeling
            # is answered on its content, not on a fact one of its sentences names ("아이가 울면 …")
            act, fact = "long", None
    summary_check = False
    if act in ("long", "fact", "talk", "off_topic") and len(_sentences(counselor_text)) >= 3:
        tail = _sentences(counselor_text)[-1]
        if _SUMMARY_CHECK.search(tail) and not cue_key(tail):
            act, fact, summary_check = "long", None, True
    long_fact: tuple[str, str | None] | None = None
    if summary_check:
        pass
    elif act == "long" or (act == "talk" and len(_sentences(counselor_text)) > 1):
        asked = _last_question(counselor_text)
        asked = ask_clause(asked) if asked is not None else None
        if (asked is not None and asked != counselor_text.strip() and read_act(asked, turn_seq=turn_seq) == "fact"
                and not _FEELING_QUESTION.search(asked)):  # "…하린이 마음만 보면 뭐예요?" asks a feeling
            long_fact = (asked, refine_by_content(script, asked, read_fact(asked)))
    thought_q = _last_question(counselor_text) if act in ("talk", "fact", "long") else None
    if thought_q is not None and asks_thought(ask_clause(thought_q)) and picker.lines("topics:thoughts"):
        # "그때 제일 먼저 드는 생각이 뭐야?" asks the thought itself: no card fact a word of the story names
        act, fact, long_fact = "thought", None, None
    if act in ("talk", "fact") and long_fact is None and asks_coping(counselor_text) and (
            act == "talk" or cue_key(counselor_text) is None):
        # "어떻게 견뎌요?" asks how the client gets through: a coping line, not a fact the bank
        # found near it nor a random line of the move (a fact a cue names stays a fact)
        act, fact = "coping", None
    move = classify_move(counselor_text, engine.taxonomy)
    first = not replies and turn_seq <= 1
    repeat = is_repeat(counselor_text, [standardise(u) for u in users[:-1]])
    depth = min(disclosure_band(openness), _STAGE_DEPTH_CAP.get(stage, 3))
    told_ideation = False

    # A yes/no question (or an identity probe) is never answered by a generic "네, 맞아요".
    # A closing's "네, 올게요" and small talk's "네, 춥더라고요" answer no question about the card.
    # A joke's "…때죠?" asks nothing about the card either: "맞아요, 저희 애도 그래요" may answer it.
    picker.no_affirm = act in ("meta", "si_screen", "fact") or (
        is_question(counselor_text) and act not in ("closing", "off_topic", "joke"))
    if act in ("fact", "talk") and confirms_what_was_said(counselor_text, replies):
        # "어린이집 선생님이 권하셨다고요?" after the client said so: a true yes, then the answer.
        picker.tell("confirm", picker.rng.choice(("네, 맞아요.", "네.", "네, 그렇다니까요.")))
    if act == "meta":
        picker.say_first("meta", "acts:meta", "deflections")
    elif act == "si_screen":
        told_ideation = si_reply(picker, stage=ideation, openness=openness, disclosed=disclosed,
                                 asks_plan=si_asks_plan(counselor_text))
    elif act == "closing":
        _closing_reply(picker, counselor_text, view=view, earlier=[standardise(u) for u in users[:-1]])
    elif summary_check:
        # taken in as a whole: the persona's reaction to being understood, often with a word more
        _beat(picker, view, p=0.4)
        picker.say_first("long:check", "reactions:empathic", "reactions:neutral")
    elif act == "long" and long_fact is None and _content_reply(picker, counselor_text, depth=max(depth, 1), view=view):
        pass
    elif act == "unintelligible":
        picker.say_first(act, f"acts:{act}", "reactions:neutral")
        if picker.parts and "?" not in picker.parts[-1]:
            picker.parts[-1] = "네? " + picker.parts[-1]  # a puzzled "네?" — never a yes
    elif act == "off_topic":
        _small_talk_reply(picker, counselor_text)
    elif act == "joke":
        _joke_reply(picker, view, typed)
    elif act == "english" and _adult(view) and english_gist(counselor_text) in (script.get("facts") or {}):
        # An adult client follows plain English: "아, 네…" and the answer on its topic, in Korean.
        picker.tell("english:gist", picker.rng.choice(("아, 네…", "아… 영어로 물어보시니까 좀 당황스럽네요.")))
        _fact_reply(picker, str(english_gist(counselor_text)), depth=max(depth, 1) if turn_seq >= FACT_WARMUP_TURNS else depth,
                    openness=openness, repeat=repeat, view=None, question=counselor_text)
    elif act in ("english", "long") and long_fact is None:
        picker.say_first(act, f"acts:{act}", "reactions:neutral")
    elif act == "greeting":
        if first or turn_seq <= 1:
            _greeting_reply(picker, counselor_text)
        else:
            picker.say_first("greeting", "acts:greeting_late", "reactions:neutral")
    elif act == "fact" or long_fact is not None:
        question = counselor_text
        if long_fact is not None:
            # A long turn that ends in a question about the client is answered on that question;
            # a summary checked with the client ("제가 이해한 게 맞아요?") gets a short yes first.
            question, fact = long_fact
            if _CHECKS_UNDERSTANDING.search(counselor_text):
                picker.tell("long:ack", picker.rng.choice(("네… 그런 것 같아요.", "음… 네, 맞아요.", "네, 비슷해요.")))
        if greets_first:
            question = after_greeting(counselor_text)
            picker.tell("greeting:ack", "안녕하세요.")
        # Gate 1 means "not at first contact": after two turns of talk a plain, non-judging
        # question about it gets the fact; deeper gates still wait for openness.
        fact_depth = depth
        if turn_seq >= FACT_WARMUP_TURNS and move not in ("advice", "judgement"):
            fact_depth = max(depth, 1)
        facts_on_card = script.get("facts") or {}
        if fact in ("grade", "age") and wrong_grade_premise(question, [
                str(x) for k in ("grade", "age") for part in ("lines", "brief")
                for x in ((facts_on_card.get(k) or {}).get(part) or ())]):
            picker.parts.append("아니요,")  # "고3이죠?" to a 고2: the premise is corrected, then the fact
            picker.kinds.append("premise:corrected")
            picker.ids.append("premise:corrected")
        # no fact read (None): the empty key is not on any card, so the unknown-fact line is said
        _fact_reply(picker, fact or "", depth=fact_depth, openness=openness, repeat=repeat, view=view,
                    question=question)
    elif act == "coping":
        _coping_reply(picker, view, repeat=repeat)
    elif act == "thought":
        _thought_reply(picker, view, repeat=repeat)
    elif repeat:
        picker.say_first("repeat", "acts:repeat", "reactions:neutral")
    elif first and not is_question(counselor_text):
        picker.say_first("greeting", "greeting")
    else:
        told_ideation = _talk(picker, view, move=move, topic=topic, openness=openness, resistance=resistance,
                              depth=depth, stage=stage, ideation=ideation, counselor_text=counselor_text,
                              history=history)
    if not picker.parts:
        # Every scripted line was already used: a short neutral beat beats repeating content.
        picker.say_first("neutral_fallback", "reactions:neutral", "silences")
    return " ".join(picker.parts), None, {
        "counselor_move": move, "act": act, "topic": topic, "fact": fact, "reply_parts": list(picker.kinds),
        "line_ids": list(picker.ids), "ideation_disclosed": bool(told_ideation)}


def _thought_reply(picker: _Picker, view: Mapping[str, Any], *, repeat: bool) -> None:
    """What goes through the client's head (``topics.thoughts``), after a moment's hesitation; a told
    thought again, said as told, when every line is used."""
    choice = picker.pick("topics:thoughts")
    again = choice is None
    if again:
        choice = picker.pick("topics:thoughts", allow_used=True)
    fillers = tuple(f.rstrip("…") for f in (view.get("speech_style") or {}).get("fillers", ()))
    if not again and choice is not None and not choice[1].lstrip("…").startswith(fillers):
        _beat(picker, view, p=0.5)  # a line that opens with the persona's own filler needs no second one
    picker.say("thought", choice, prefix=picker.rng.choice(_REPEAT_PREFIX) if (again or repeat) else "")


def _coping_reply(picker: _Picker, view: Mapping[str, Any], *, repeat: bool) -> None:
    """How the client gets through (``topics.coping``, then what they do for fun): a fresh line
    when one is left, else a told one again, said as told ("아까 말했는데… ")."""
    choice = picker.pick("topics:coping") or picker.pick("facts:hobby:lines")
    again = choice is None
    if again:
        choice = picker.pick("topics:coping", allow_used=True)
    if choice is None:
        picker.say_first("coping", "reactions:neutral")
        return
    if not again:
        _beat(picker, view, p=0.25)
    picker.say("coping", choice, prefix=picker.rng.choice(_REPEAT_PREFIX) if (again or repeat) else "")


def _talk(picker: _Picker, view: Mapping[str, Any], *, move: str, topic: str | None, openness: float,
          resistance: float, depth: int, stage: str, ideation: int, counselor_text: str,
          history: Sequence[str]) -> bool:
    """Ordinary talk: silence, deflection, a topic line, or a reaction plus a disclosure."""
    rng = picker.rng
    script = picker.script
    params = view.get("resistance") or {}
    silence_prob = float(params.get("silence_prob", 0.2))
    deflection_prob = float(params.get("deflection_prob", 0.2))
    defensive = move in ("advice", "judgement")

    last_was_silence = bool(history) and history[-1] in (script.get("silences") or ())
    p_silence = silence_prob * (0.4 + resistance) * (1.0 - openness)
    p_silence *= 1.5 if defensive else (0.5 if move == "empathic" else 1.0)
    p_silence = min(p_silence, 0.4) * (0.3 if last_was_silence else 1.0)
    if rng.random() < p_silence and picker.say("silence", picker.pick("silences")):
        if rng.random() < 0.5:  # a silence often ends in a mumble
            picker.say("mumble", picker.pick("reactions:closed_question") or picker.pick("reactions:neutral"))
        return False
    if openness < 0.45:
        p_deflect = deflection_prob * (1.4 if (defensive or move == "closed_question")
                                       else 0.4 if move == "empathic" else 0.7)
        p_deflect *= (0.45 - openness) / 0.45 + 0.3
        if rng.random() < min(p_deflect, 0.45):
            pool = [c for c in picker.fresh("deflections")
                    if "?" in counselor_text or not re.search(r"(물어|질문)", c[1])]
            if pool:
                deflection = rng.choice(pool)
                _beat(picker, view, p=0.45)
                picker.say("deflection", deflection)
                return False

    # A topic the counselor named gets an answer on that topic, in the persona's voice.
    if topic is not None and not defensive and picker.fresh(f"topics:{topic}"):
        p_topic = {"empathic": 0.55, "open_question": 0.8, "closed_question": 0.7, "neutral": 0.6}[move]
        # Deeper openness lets deeper disclosures through instead; "feelings" is what they are about.
        p_topic = (p_topic + 0.15 * openness) * (1.0 - 0.2 * depth) * (0.6 if topic == "feelings" else 1.0)
        if rng.random() < p_topic:
            if rng.random() < (0.5 if move == "empathic" else 0.35):
                picker.say(f"reaction:{move}", picker.pick(f"reactions:{move}"))
            else:
                _beat(picker, view, p=0.35)
            picker.say(f"topic:{topic}", picker.pick(f"topics:{topic}"))
            return False

    reaction = picker.pick(f"reactions:{move}") or picker.pick("reactions:neutral")
    # How much the persona opens up: warm moves invite more, advice and judgement close it.
    p_disclose = {"empathic": 0.55 + 0.4 * openness, "open_question": 0.5 + 0.45 * openness,
                  "neutral": 0.25 + 0.3 * openness, "closed_question": 0.2 + 0.2 * openness,
                  "advice": 0.1 if openness >= 0.6 else 0.0,
                  "judgement": 0.05 if openness >= 0.7 else 0.0}[move]
    if defensive:
        depth = max(depth - 1, 0)
    extra: tuple[str, tuple[str, str]] | None = None
    told_ideation = False
    if (ideation >= 2 and openness >= 0.55 and move in ("empathic", "open_question")
            and rng.random() < 0.3):
        # Passive ideation only, never above the persona's (capped) stage.
        for level in range(ideation, 0, -1):
            choice = picker.pick(f"ideation_hints:{level}")
            if choice is not None:
                extra = ("ideation_hint", choice)
                told_ideation = level >= 2
                break
    if extra is None and stage == "정리" and rng.random() < 0.35:
        choice = picker.pick("closing")
        if choice is not None:
            extra = ("closing", choice)
    # Resistance holds even warm turns back a little; surface lines ("0") need no openness.
    p_disclose *= 1.0 - 0.5 * resistance
    if extra is None and rng.random() < p_disclose:
        for level in range(depth, -1, -1):
            choice = picker.pick(f"disclosures:{level}")
            if choice is not None:
                extra = (f"disclosure:{level}", choice)
                break
    if extra is not None and move in ("open_question", "neutral") and rng.random() < 0.25:
        reaction = None  # a question is often answered straight away
    if extra is None and reaction is not None:
        _beat(picker, view, p=0.3)  # a lone reaction often starts with the persona's filler
    picker.say(f"reaction:{move}", reaction)
    if extra is not None:
        picker.say(*extra)
    if picker.parts and picker.kinds[0].startswith("disclosure") and rng.random() < 0.15:
        fillers = [f for f in (view.get("speech_style") or {}).get("fillers", ()) if len(f) <= 3]
        if fillers:
            picker.parts[0] = f"{rng.choice(fillers)} {picker.parts[0]}"
    return told_ideation


def _beat(picker: _Picker, view: Mapping[str, Any], *, p: float) -> None:
    """With probability ``p``, a short filler of the persona ("음…", "그냥") before the next part."""
    if picker.rng.random() >= p:
        return
    fillers = [f for f in (view.get("speech_style") or {}).get("fillers", ()) if len(f) <= 4]
    if fillers:
        filler = picker.rng.choice(fillers)
        picker.parts.append(filler if filler.endswith("…") else f"{filler}…")
        picker.kinds.append("filler")
        picker.ids.append(f"filler:{filler}")
