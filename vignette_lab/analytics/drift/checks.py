"""Pure drift checks: register rules, fact contradiction, Big Five and the per-utterance rules.

No database and no embedder: :func:`check_turns` takes the session row, the card, the
client turns, the pinned facts in force and (optionally) the similarity profile from
:mod:`vignette_lab.analytics.drift.anchors`, and returns findings. The scan
(:mod:`vignette_lab.analytics.drift.scan`) gathers those inputs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from vignette_lab.core.guardrails import detect_ccd_meta_disclosure
from vignette_lab.errors import InputError
from vignette_lab.kb.embedders import KiwiSparseEncoder, _kiwi

__all__ = [
    "CHECKS",
    "DEFAULT_CONTRAST_MARGIN",
    "DEFAULT_THRESHOLD",
    "REGISTERS",
    "THRESHOLD_NOTE",
    "DriftFinding",
    "check_turns",
    "classify_register",
    "persona_anchor_lines",
]

DEFAULT_THRESHOLD = 0.79
THRESHOLD_NOTE = "unvalidated working value (seed 004 M14)"
# Calibrated on clean scripted self-play (bench/RESULTS.md, "Analytics"): the mean contrast over
# 4 utterances of >= 8 Hangul syllables stayed <= 0.26 on 14 clean sessions; 합쇼체 and
# other-persona swaps reached 0.38-0.49.
DEFAULT_CONTRAST_MARGIN = 0.30
_CONTRAST_WINDOW = 4
_CONTRAST_MIN_CHARS = 8
CHECKS = ("big5_violation", "ccd_leak", "fact_contradiction", "style_drift", "embedding_inconsistency")
REGISTERS = ("haeyo", "hapsyo", "banmal")
_REGISTER_KO = {"haeyo": "해요체", "hapsyo": "합쇼체", "banmal": "반말"}
_LENGTH_WINDOW = 5
_LENGTH_Z = 4.0
_SESSION_MIN = 3

_STAGE = re.compile(r"\([^)]*\)")
_SENT_SPLIT = re.compile(r"(?<=[.!?…])\s+|[.!?]+(?=\s|$)|…+")
_TRAIL = re.compile(r"[\s.!?…~,\"'”’)\]」』·-]+$")
_HANGUL = re.compile(r"[가-힣]")
# Not evidence of a register: trailing connectives (…는데), self-talk exclamatives (…구나) and
# politeness formulas that 해요체 speakers use too.
_NEUTRAL_END = ("는데", "은데", "인데", "구나", "군", "더라")
_FORMULAS = ("감사합니다", "죄송합니다", "고맙습니다", "안녕하십니까")
_NEGATION = re.compile(r"(안\s|않|아니|없|못\s|적\s*없|그런\s*적)")
_WITHDRAW = re.compile(r"(안\s*올|오지\s*않|그만\s*올|그만\s*다닐|상담\s*(은\s*)?그만|안\s*오려고|못\s*올\s*것\s*같)")
_STOP = {"있다", "없다", "하다", "되다", "같다", "그냥", "진짜", "정말"}


@dataclass(frozen=True)
class DriftFinding:
    """One flagged client utterance.

    Attributes
    ----------
    session_id, turn_id : str
    seq : int
        Turn sequence number in the session.
    persona_code : str
    drift_type : str
        One of :data:`CHECKS`.
    severity : {'warn', 'block'}
    embedding_sim : float or None
        Raw cosine with the persona voice anchor (compare with the threshold).
    detail : dict
        Masked, metadata-only evidence (never CCD text).
    engine, model : str or None
    """

    session_id: str
    turn_id: str
    seq: int
    persona_code: str
    drift_type: str
    severity: str
    embedding_sim: float | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    engine: str | None = None
    model: str | None = None


# --------------------------------------------------------------------------- text features
def _sentences(text: str) -> list[str]:
    body = _STAGE.sub(" ", text or "")
    return [s.strip() for s in _SENT_SPLIT.split(body) if s and s.strip()]


# --------------------------------------------------------------------------- register
# Speech level is read off the morphemes (kiwipiepy): the last sentence-final ending (EF) of the
# sentence decides; an afterthought tail after it ("와요 아홉시 넘어서") does not. A polite 요
# particle (JX) after a connective or a noun ("지쳐서요", "별로요") makes 해요체.
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|'[^']*'|‘[^’]*’|「[^」]*」|『[^』]*』")
_STAGE_ANY = re.compile(r"\([^)]*\)|\[[^\]]*\]|<(\w+)[^>]*>.*?</\1\s*>|<[^>]*>|\*[^*]+\*")
_NOISE = re.compile(r"[ㄱ-ㅎㅏ-ㅣ]+|[~…^]+|\.{2,}")
_POLITE_TAIL = ("요", "유", "용", "여", "죠", "쇼", "쵸")
_HAPSYO_EF = ("니다", "니까", "십시오", "ᆸ시오")
_PREDICATE = ("VV", "VA", "VX", "VCP", "VCN", "XSV", "XSA", "EP")


#: 하오체 final endings (…소, …오, …시오): a middle-high deferential level, never 반말; read as 합쇼체
#: (the nearest label of the four). kiwipiepy tags most of them as connectives.
_HAO_END = ("소", "오", "으오", "시오", "으시오", "구려")
#: polite dialect endings that end in another syllable than 요 (충청 -쥬 for -죠, 전라 -라우 for -요:
#: 몰라라우, 그렇지라우; kiwipiepy tags -어라우 as a connective, -지라우 as a final ending)
_POLITE_DIALECT_EF = ("쥬", "쥬잉", "라우")
#: dialect final endings kiwipiepy splits into a stem, a connective and an adverb ("아입니더" → 아/입/니/더):
#: read as their standard form before the analysis — 경상 합쇼체 -니더/-심더/-니꺼 and 제주 polite -마씸/-마씀
_DIALECT_FINAL = (
    (re.compile(r"(?<=[가-힣])(심더|슴더)(?=[\s.,!?…~ㅋㅎㅠㅜ]|$)"), "습니다"),
    (re.compile(r"(?<=[가-힣])니더(?=[\s.,!?…~ㅋㅎㅠㅜ]|$)"), "니다"),
    (re.compile(r"(?<=[가-힣])니꺼(?=[\s.,!?…~ㅋㅎㅠㅜ]|$)"), "니까"),
    (re.compile(r"(?<=[가-힣])(마씸|마씀)(?=[\s.,!?…~ㅋㅎㅠㅜ]|$)"), "요"),
    # 경상 "-라카노/-다카나" (= -라고 하노/하나): kiwipiepy reads 라카노 as nouns; split off 하 + the question
    # ending, which it knows ("뭐라 하노" -> 노 as a final ending, 반말)
    (re.compile(r"(?<=[가-힣][라다])카(?=[노나네](?:[\s.,!?…~ㅋㅎㅠㅜ]|$))"), " 하"),
)


def _register_of_ending(form: str) -> str | None:
    if form.endswith(("ᆷ", "음", "임", "기")):
        return None  # nominalised ending ("피곤함", "모르겠음"): no speech level
    if form.endswith(_HAPSYO_EF) and (not form.endswith("니까") or form[:-2].endswith(("ᆸ", "습", "옵"))):
        return "hapsyo"
    if form.endswith(_POLITE_TAIL) or form.endswith(_POLITE_DIALECT_EF):
        return "haeyo"
    if form in _HAO_END:
        return "hapsyo"
    return "banmal"


def _is_filler_ef(toks: list[tuple[str, str]], i: int) -> bool:
    """True for the hedge "뭔가"/"뭐랄까" (뭐 + copula + -ㄴ가/-랄까), which kiwipiepy reads as a
    final ending although it is a filler ("음 뭔가…", "그러니까 뭔가 저도 …")."""
    return (toks[i][0] in ("ᆫ가", "랄까") and i >= 2 and toks[i - 1] == ("이", "VCP")
            and toks[i - 2][0] in ("뭐", "머") and toks[i - 2][1] in ("NP", "IC"))


def _is_inverted_worry(toks: list[tuple[str, str]], i: int) -> bool:
    """True for the 보 + 어 of a "-ㄹ까 봐" clause ("엄마 볼까 봐"): a reason clause put after the
    final predicate, not a final ending of its own."""
    return (toks[i][0] in ("어", "아") and i >= 2 and toks[i - 1] == ("보", "VX")
            and toks[i - 2][1] == "EC" and toks[i - 2][0].endswith("까"))


def classify_register(sentence: str) -> str | None:
    """Speech level of one Korean sentence from its last final ending, or None without one.

    The sentence is analysed with kiwipiepy; quoted speech, bracketed stage text, emoticons and
    jamo laughter are removed first. The last sentence-final ending (``EF``) decides —
    ``'hapsyo'`` (…습니다/…ㅂ니까/…십시오), ``'haeyo'`` (…요/…죠, typo and dialect forms
    …용/…여/…유) or ``'banmal'`` (…다/…어/…야/…지/…네 …) — and an afterthought tail after it
    is ignored. A polite 요 particle on a connective or a noun ("지쳐서요", "별로요") is 해요체;
    a sentence that stops on a connective without any final ending ("괜찮았는데") is 반말.
    None for fragments, nouns, interjections and answer particles ("네", "아뇨"), English-only
    text and nominalised endings (…음/…임).

    Examples
    --------
    >>> classify_register("저는 학생입니다."), classify_register("그냥 귀찮아요."), classify_register("몰라.")
    ('hapsyo', 'haeyo', 'banmal')
    >>> classify_register("엄마는 맨날 늦게 와요 아홉시 넘어서"), classify_register("네")
    ('haeyo', None)
    """
    return _register_reading(sentence)[0]


def _register_reading(sentence: str) -> tuple[str | None, bool]:
    """``(register, from_connective)``: see :func:`classify_register`; the flag is True when the
    sentence stops on a connective without a final ending ("고2니까", "했는데")."""
    text = _QUOTED.sub(" 그거 ", sentence or "")
    for pattern, standard in _DIALECT_FINAL:
        text = pattern.sub(standard, text)
    text = _NOISE.sub(" ", _STAGE_ANY.sub(" ", text)).strip()
    if not _HANGUL.search(text):
        return None, False
    words = text.split()
    if len(words) >= 4 and sum(len(w) == 1 for w in words) >= 0.7 * len(words):
        text = "".join(words)  # syllables typed one by one ("입 니 다")
    # irregular-stem tags (VA-I, VV-R …) count as their base tag
    toks = [(t.form, t.tag.split("-")[0]) for t in _kiwi().tokenize(text)]
    result: str | None = None
    seen_ef = connective = after_stop = False
    for i, (form, tag) in enumerate(toks):
        if tag == "SF" and seen_ef:
            after_stop = True  # a full stop after a final ending: what follows is a new sentence
            continue
        prev = toks[i - 1] if i else ("", "")
        if tag == "EF" and (_is_filler_ef(toks, i) or (seen_ef and _is_inverted_worry(toks, i))
                            or (prev[1] in ("IC", "") and _register_of_ending(form) == "banmal")):
            continue  # a filler, an inverted "-ㄹ까 봐" clause, a bare ending on no stem ("네넹")
        if tag == "EF":
            # 충청 반말 copula -여 (= -야: 뭐여, 누구여, 말이여) is banmal; the typo 요 -> 여 sits on an
            # ending (했어여, 좋아여), never right after the copula stem
            level = "banmal" if form == "여" and prev[1] == "VCP" else _register_of_ending(form)
            result, seen_ef, connective, after_stop = level, True, False, False
        elif tag == "EC" and form in _HAO_END and prev[1] in _PREDICATE and all(
                t[1] in _TAIL_TAGS + _SYMBOL_TAGS for t in toks[i + 1:]):
            result, seen_ef, connective = "hapsyo", True, False  # 알겠소, 유난이오, 아니오 (하오체)
        elif tag == "JX" and form in ("요", "이요", "용", "여", "유"):
            result, connective = "haeyo", False  # 지쳐서요 / 별로요 / 깨끗하대요 / 2층이요
        elif form == "요" and prev[1] in ("EC", "JX", "JKB", "ETM", "XSN", "NNB", "NNG", "MAG") and all(
                t[1].startswith("S") for t in toks[i + 1:]):
            result, connective = "haeyo", False  # a closing 요 kiwi mis-tags (생각해보면요, 건요)
        elif tag == "EC" and form.endswith(("요", "유", "죠", "라우")) and prev[1] in _PREDICATE:
            result, connective = "haeyo", False  # 죄송해요, 모르겠어유, 그렇죠 (kiwi reads some as connectives)
        elif (tag in ("NNG", "NNB", "IC") and all(t[1] in _SYMBOL_TAGS for t in toks[i + 1:])
              and ((form in ("유", "용", "여") and prev[1] in ("EF", "EC", "IC", "MAG"))
                   or (form == "예" and prev[1] in ("EF", "EC") and i >= 2 and toks[i - 2][1] in _PREDICATE))):
            result, connective = "haeyo", False  # a polite tail read as a noun: 모르겠어유, 왜용, 했어예
        elif tag == "IC" and form.endswith(("요", "죠", "쵸")) and len(form) >= 2:
            result = "haeyo"  # 그쵸, 그러게요 read as one interjection
        elif (after_stop and tag == "EC" and prev[1] in _PREDICATE and form in _FINAL_LIKE_EC
              and not _is_inverted_worry(toks, i) and all(t[1] in _SYMBOL_TAGS for t in toks[i + 1:])):
            # a new sentence after a full stop that ends on a final-like connective ("높아요. 현실이 망해서
            # 그렇지"): the last conjugated predicate decides. A true connective there ("…왔는데.", "…올까
            # 봐") is an afterthought to the sentence before and does not (해요체 speakers add them)
            result, connective = "banmal", False
        elif not seen_ef and result is None and tag == "EC" and prev[1] in _PREDICATE:
            # stops on a connective with no final ending yet ("처음엔 괜찮았는데"); a later
            # predicate ending overrides it
            if i == len(toks) - 1 or all(t[1] in ("SF", "SP", "SE", "SW", "SS", "SSC") for t in toks[i + 1:]):
                result, connective = "banmal", True
        elif (tag == "JKO" and form == "ᆯ" and prev == ("거", "NNB") and i >= 2 and toks[i - 2][1] == "ETM"
              and not seen_ef):
            result = "banmal"  # 했을걸 (-ㄹ걸 read as 거 + 를)
    if result is None:
        result, connective = _before_postposed_tail(toks)
    if result is None and _before_postposed_noun_clause(toks):
        result, connective = "banmal", False
    return result, connective


def _before_postposed_noun_clause(toks: list[tuple[str, str]]) -> bool:
    """True when a final-like connective closes the sentence and a postposed noun clause follows it
    ("고장 난 줄 알아 고치면 되는 줄": 알아 is final, "고치면 되는 줄" its object put after it). The clause
    ends on an adnominal + 줄/거/것 with nothing after it; an auxiliary right after the connective
    ("먹어 보는 거") makes one predicate, not two."""
    end = len(toks)
    while end and toks[end - 1][1] in _SYMBOL_TAGS:
        end -= 1
    if end < 4 or toks[end - 1] not in (("줄", "NNB"), ("거", "NNB"), ("것", "NNB")) or toks[end - 2][1] != "ETM":
        return False
    for i in range(end - 3, 0, -1):
        form, tag = toks[i]
        if tag == "EC" and form in _FINAL_LIKE_EC and toks[i - 1][1] in _PREDICATE:
            return toks[i + 1][1] not in ("VX", "EP") and any(t[1] in ("VV", "VA") for t in toks[i + 1:end])
        if tag in ("EF", "SF"):
            return False
    return False


#: tags of a postposed afterthought after the final predicate ("…자 보통", "…망했다 진짜",
#: "…와 아마", "…hopeless해 요즘"): adverbs, interjections, nouns, pronouns and symbols
_TAIL_TAGS = ("MAG", "MAJ", "IC", "NNG", "NNP", "NNB", "NP", "XSN", "SN", "SL")
_SYMBOL_TAGS = ("SF", "SP", "SE", "SW", "SS", "SSC", "SSO", "SO", "Z_CODA")
#: particles inside a postposed noun phrase ("몰라 내 맘", "착해 걔는"): read as part of the tail only
#: after a final-like ending
_TAIL_PARTICLES = ("JKG", "JX", "JKS", "JKO", "JKB")
#: connective-tagged endings that close a sentence in 반말 when only a tail follows (kiwipiepy
#: reads a final -어/-다/-지 as a connective once something comes after it)
_FINAL_LIKE_EC = ("어", "아", "여", "다", "지", "야", "네", "냐", "니", "거든", "잖아", "래", "대")


def _before_postposed_tail(toks: list[tuple[str, str]]) -> tuple[str | None, bool]:
    """``(register, from_connective)`` for a sentence whose last predicate ending is followed by
    a postposed tail and nothing else: the ending before the tail decides ("완전 망했다 진짜" →
    반말); a true connective there ("…갈 건데 뭐") is 반말 from a connective. ``(None, False)``
    when there is no such ending or no tail."""
    end = len(toks)
    while end and toks[end - 1][1] in _TAIL_TAGS + _TAIL_PARTICLES + _SYMBOL_TAGS:
        end -= 1
    if end == len(toks) or end < 2 or not any(t[1] in _TAIL_TAGS for t in toks[end:]):
        return None, False
    form, tag = toks[end - 1]
    if tag != "EC" or toks[end - 2][1] not in _PREDICATE:
        return None, False
    if form in _FINAL_LIKE_EC:
        return "banmal", False
    if any(t[1] in _TAIL_PARTICLES for t in toks[end:]):
        return None, False  # "학교 가서 친구를": a fragment, not a postposed tail
    return "banmal", True


def _register_evidence(sentence: str) -> str | None:
    """Register of a sentence as drift evidence: politeness formulas ("감사합니다") and
    sentences that stop on a connective or a self-talk exclamative (…는데, …구나) count as none,
    since 해요체 speakers produce them too."""
    s = _TRAIL.sub("", _NOISE.sub("", sentence or ""))
    last = re.split(r"[\s,]+", s)[-1] if s else ""
    if s.endswith(_NEUTRAL_END) or last in _FORMULAS:
        return None
    register, from_connective = _register_reading(sentence)
    return None if from_connective else register


def _is_speech(text: str) -> bool:
    return len(_HANGUL.findall(_STAGE.sub("", text or ""))) >= 2


def _sentence_lengths(text: str) -> list[int]:
    return [len(s) for s in _sentences(text) if len(_HANGUL.findall(s)) >= 2]


def _walk(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            _walk(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _walk(v, out)


def persona_anchor_lines(card: Any) -> list[str]:
    """The card's voice anchor: script lines and surface statements, stage directions removed.

    Only client-visible fields are read (``script``, ``presenting.surface_statements``);
    CCD and DSM fields are never touched.
    """
    lines: list[str] = []
    _walk(_field(card, "script"), lines)
    _walk((_field(card, "presenting") or {}).get("surface_statements", []), lines)
    out = []
    for line in lines:
        text = _STAGE.sub(" ", line).strip()
        if _is_speech(text):
            out.append(text)
    return out


def _field(card: Any, name: str) -> Any:
    return card.get(name) if isinstance(card, Mapping) else getattr(card, name)


# --------------------------------------------------------------------------- checks
def _check_threshold(threshold: float) -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not -1 <= threshold <= 1:
        raise InputError(f"The 'threshold' parameter must be a cosine in [-1, 1]. Got {threshold!r} instead.",
                         field="threshold")


def _excerpt(text: str, limit: int = 80) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _fact_terms(text: str) -> set[str]:
    return {t for t in KiwiSparseEncoder().terms(text) if len(t) >= 2 and t not in _STOP}


def _contradicts(fact: Mapping[str, Any], text: str) -> bool:
    if fact["fact_type"] == "agreement":
        return bool(_WITHDRAW.search(text))
    terms = _fact_terms(str(fact["value"]))
    if not terms or not _NEGATION.search(text):
        return False
    said = _fact_terms(text)
    return len(terms & said) >= max(1, math.ceil(len(terms) / 2))



def check_turns(session: Mapping[str, Any], card: Any, turns: Sequence[Mapping[str, Any]], *,
                facts: Sequence[Mapping[str, Any]], profile: pd.DataFrame | None, line_stats: Mapping[str, float],
                threshold: float = DEFAULT_THRESHOLD, contrast_margin: float = DEFAULT_CONTRAST_MARGIN
                ) -> list[DriftFinding]:
    """The five drift checks over one session's client turns (pure; see the package docstring).

    Parameters
    ----------
    session : mapping
        The ``app.sessions`` row (``session_id``, ``persona_code``, ``engine``, ``model``).
    card : PersonaCard or mapping
        The session persona's card (``speech_style``, ``big5``).
    turns : sequence of mapping
        Client turns in order (``turn_id``, ``seq``, ``text_masked``).
    facts : sequence of mapping
        Pinned facts in force before this session (``key``, ``value``, ``fact_type``).
    profile : DataFrame or None
        :func:`~vignette_lab.analytics.drift.anchors.profile` indexed by ``turn_id``; None skips
        the embedding check.
    line_stats : mapping
        ``sd_len`` (and ``script_mean_len``) of the card's script sentences.
    threshold, contrast_margin : float
        See :func:`~vignette_lab.analytics.drift.scan.scan_session`.

    Returns
    -------
    list of DriftFinding
        Ordered by ``seq``.
    """
    code = session["persona_code"]
    session_id = session["session_id"]
    style = dict(_field(card, "speech_style") or {})
    big5 = dict(_field(card, "big5") or {})
    expected = style.get("register", "haeyo")
    tics = [x for x in list(style.get("fillers", [])) + list(style.get("verbal_tics", [])) if x]
    stats = line_stats
    card_len = float(style.get("avg_sentence_len") or stats.get("script_mean_len") or 15.0)

    def finding(t: Mapping[str, Any], kind: str, severity: str, detail: dict[str, Any],
                sim: float | None = None) -> DriftFinding:
        return DriftFinding(session_id, t["turn_id"], int(t["seq"]), code, kind, severity, sim,
                            {"check": kind, **detail}, session.get("engine"), session.get("model"))

    out: list[DriftFinding] = []
    window: list[tuple[float, bool]] = []  # (mean sentence length, has filler/tic) per utterance
    silent_run = 0
    contrasts: list[float] = []
    for t in turns:
        text = t["text_masked"] or ""
        leaks = detect_ccd_meta_disclosure(text)
        if leaks:
            # Only the meta-phrases: the sentence itself may carry the CCD content.
            out.append(finding(t, "ccd_leak", "block", {"phrases": sorted(set(leaks))}))
        for fact in facts:
            if _contradicts(fact, text):
                out.append(finding(t, "fact_contradiction", "warn",
                                   {"fact_key": fact["key"], "fact_type": fact["fact_type"],
                                    "excerpt": _excerpt(text)}))
        if not _is_speech(text):
            silent_run += 1
            if float(big5.get("E", 0.5)) >= 0.7 and silent_run == 3:
                out.append(finding(t, "big5_violation", "warn",
                                   {"trait": "E", "value": big5.get("E"), "rule": "E>=0.7 silent 3 turns"}))
            continue
        silent_run = 0
        if float(big5.get("E", 0.5)) <= 0.3 and text.count("!") >= 2:
            out.append(finding(t, "big5_violation", "warn", {"trait": "E", "value": big5.get("E"),
                                                             "rule": "E<=0.3 and >=2 '!'",
                                                             "excerpt": _excerpt(text)}))
        regs = [r for r in (_register_evidence(s) for s in _sentences(text)) if r]
        off = [r for r in regs if r != expected]
        lengths = _sentence_lengths(text)
        has_tic = any(x.strip("…") and x.strip("…") in text for x in tics)
        if lengths:
            window = (window + [(float(np.mean(lengths)), has_tic)])[-_LENGTH_WINDOW:]
        tic_rate = float(np.mean([w[1] for w in window])) if window else float("nan")
        if regs and (len(off) >= 2 or (off and len(off) == len(regs))):
            counts = {r: regs.count(r) for r in REGISTERS if r in regs}
            out.append(finding(t, "style_drift", "warn",
                               {"aspect": "register", "expected": _REGISTER_KO.get(expected, expected),
                                "observed": {_REGISTER_KO[k]: v for k, v in counts.items()},
                                "tic_rate_window": round(tic_rate, 3), "excerpt": _excerpt(text)}))
        elif len(window) == _LENGTH_WINDOW:
            z = (np.mean([w[0] for w in window]) - card_len) / (stats["sd_len"] / math.sqrt(len(window)))
            if abs(z) > _LENGTH_Z:
                out.append(finding(t, "style_drift", "warn",
                                   {"aspect": "sentence_length", "z": round(float(z), 2),
                                    "card_avg_len": card_len, "tic_rate_window": round(tic_rate, 3),
                                    "excerpt": _excerpt(text)}))
                window = []  # one finding per stretch, not one per following turn
        if profile is not None and t["turn_id"] in profile.index:
            p = profile.loc[t["turn_id"]]
            sim = float(p["anchor_sim"])
            reasons = []
            if sim < threshold:
                reasons.append("anchor_below_threshold")
            # Short answers ("네, 그렇죠.") carry no voice; a window of longer utterances does.
            if len(_HANGUL.findall(_STAGE.sub("", text))) >= _CONTRAST_MIN_CHARS and p["best_other"] is not None:
                contrasts = (contrasts + [float(p["contrast"])])[-_CONTRAST_WINDOW:]
                if len(contrasts) == _CONTRAST_WINDOW and float(np.mean(contrasts)) > contrast_margin:
                    reasons.append("closer_to_other_persona")
            if reasons:
                out.append(finding(t, "embedding_inconsistency", "warn", {
                    "reasons": reasons, "threshold": threshold, "threshold_note": THRESHOLD_NOTE,
                    "anchor_centred": round(float(p["anchor_centred"]), 4),
                    "closest_other": p["best_other"], "other_centred": round(float(p["other_centred"]), 4),
                    "window_contrast": round(float(np.mean(contrasts)), 4) if contrasts else None,
                    "contrast_margin": contrast_margin,
                    "session_sim": None if pd.isna(p["session_sim"]) else round(float(p["session_sim"]), 4),
                    "excerpt": _excerpt(text)}, sim))
    return sorted(out, key=lambda f: (f.seq, f.drift_type))

