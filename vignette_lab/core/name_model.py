"""A learned person-name decision for the PII gate: logistic regression over word-start candidates.

The cue rules of :mod:`vignette_lab.core.pii` find names after the cues they were written for;
this model scores *every* word-start candidate (the first 2-3 syllables of a Hangul word, 4 after
a two-syllable surname) from features of a general kind — surname and given-name syllable
statistics, the particle or honorific that follows (이가, 아/야, 씨, 님, 한테 …), the batchim of the
last syllable, the neighbouring words, punctuation, word classes around it (a title or rank after
it, a kin or role word before it, a particle or copula typed apart from it, a sentence going on to
explain a word, a term of address), and the kiwipiepy analysis of the word (tag of the candidate,
whether a morpheme boundary falls at its end, unknown-word flags, a common word taking the 이 of a
name before a particle).

The weights are trained offline with scikit-learn by ``bench/train_name_model.py`` on synthetic
sentences from templates plus the PII dev splits (``datasets/eval/pii/``); the threshold is the
lowest one that alters no clean sentence of any ``clean_dev*`` split when that split was left
out of training (leave-one-split-out). At run time only a dot product is computed: scikit-learn
is not imported (it costs seconds per process) and kiwipiepy is asked only about candidates
whose syllables could form a name.

Examples
--------
>>> from vignette_lab.core.name_model import learned_name_spans
>>> learned_name_spans("어제 서하린이랑 통화했어요")  # doctest: +SKIP
((3, 6),)
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from vignette_lab.core import _compiled_patterns as _patterns
from vignette_lab.core._name_words import _ADDRESS_TERMS, _GIVEN, _NOT_NAMES
from vignette_lab.core.morph import word_tokens

__all__ = ["candidates", "features", "learned_name_spans", "load_model", "score"]

MODEL_PATH = Path(__file__).with_name("name_model.json")

_HANGUL_RUN = _patterns.compile(r"[가-힣]+")
_SURNAMES_2 = ("남궁", "황보", "제갈", "선우", "독고", "사공", "서문", "동방")
_SURNAMES_1 = frozenset("김이박최정강조윤장임한오서신권황안송류유전홍고문양손배백허남심노하곽성차주우구민진나지엄채원천방공"
                        "현함변염여추도소석선설마길연위표명기반라왕금옥육인맹제모탁국어은편용예경봉사부감견계단두빈온태피필범승초")


def _batchim(syl: str) -> int:
    # Not core.hangul.has_final: on a non-Hangul character this gives an arbitrary bit, and the shipped weights
    # were fitted with it (a candidate can end in a Latin letter); changing it changes the model.
    return int((ord(syl) - 0xAC00) % 28 != 0)


class _Model:
    weights: dict[str, float] | None = None
    threshold: float = 1.0
    name_syllables: frozenset[str] = frozenset()
    loaded = False


def load_model(*, path: Path | None = None) -> bool:
    """Load the trained weights (once per process unless ``path`` is given).

    Parameters
    ----------
    path : pathlib.Path, optional
        A model file other than ``core/name_model.json`` (the trainer's folds, tests).

    Returns
    -------
    bool
        False when the file is missing: the gate then runs on its cue rules alone.
    """
    if _Model.loaded and path is None:
        return _Model.weights is not None
    _Model.loaded = True
    p = path or MODEL_PATH
    if not p.exists():
        _Model.weights = None
        _scored.cache_clear()
        return False
    data = json.loads(p.read_text(encoding="utf-8"))
    _Model.weights = {k: float(v) for k, v in data["weights"].items()}
    _Model.threshold = float(data["threshold"])
    _Model.name_syllables = frozenset(data["name_syllables"])
    _set_max_context()
    _scored.cache_clear()
    _word_score.cache_clear()
    return True


#: per candidate length k: the largest total the morphology features can add to a candidate
_MAX_MORPH: dict[int, float] = {}
#: a bound is compared with a sum taken in another order: keep it safely above it
_BOUND_SLACK = 1e-9


def _set_max_context() -> None:
    """The largest total the morphology features can add to a candidate of each length ``k``: a
    bound that dismisses most candidates before kiwipiepy is asked about them.

    It follows the shape of :func:`_morph_features`: one boundary feature (``m_cut`` or
    ``m_align``); either one head tag ``T`` alone (``m0:T`` + ``m1:T`` + ``m1:T_k{k}``, maybe
    ``m_common``) or the first of several (``m0:T``); maybe ``m_oov``; one tail tag (``mt:X``).
    A tag never seen in training weighs 0, so every choice may also add nothing. A morphology
    feature of any other name adds its positive weight, so a new feature keeps the bound safe.
    """
    w = _Model.weights or {}
    known = ("m_cut", "m_align", "m_common", "m_oov")
    tags = {n.split(":", 1)[1].rsplit("_k", 1)[0] for n in w if n.startswith(("m0:", "m1:"))}
    tail = max([0.0] + [v for n, v in w.items() if n.startswith("mt:")])
    other = sum(max(0.0, v) for n, v in w.items() if n.startswith("m") and n not in known
                and not n.startswith(("m0:", "m1:", "mt:")))
    boundary = max(0.0, w.get("m_cut", 0.0), w.get("m_align", 0.0))
    several = max([0.0] + [w.get(f"m0:{t}", 0.0) for t in tags])
    _MAX_MORPH.clear()
    for k in (2, 3, 4):
        alone = max([0.0] + [w.get(f"m0:{t}", 0.0) + w.get(f"m1:{t}", 0.0) + w.get(f"m1:{t}_k{k}", 0.0)
                             for t in tags]) + max(0.0, w.get("m_common", 0.0))
        _MAX_MORPH[k] = boundary + max(alone, several) + max(0.0, w.get("m_oov", 0.0)) + tail + other + _BOUND_SLACK


def set_model(weights: dict[str, float], threshold: float, name_syllables: frozenset[str]) -> None:
    """Install weights directly (the trainer's leave-one-split-out folds use it).

    Parameters
    ----------
    weights : dict of str to float
        Feature name to logistic-regression coefficient (the intercept on ``"bias"``).
    threshold : float
        Decision value from which a candidate is a name.
    name_syllables : frozenset of str
        Syllables a given-name part may use (candidate generation).
    """
    _Model.weights, _Model.threshold, _Model.name_syllables, _Model.loaded = weights, threshold, name_syllables, True
    _scored.cache_clear()
    _word_score.cache_clear()
    _set_max_context()
    for listener in _LISTENERS:  # the gate's per-text caches (core/pii.py registers them)
        listener()


#: called after :func:`set_model` installs new weights
_LISTENERS: list[Callable[[], None]] = []


def on_model_change(listener: Callable[[], None]) -> None:
    """Call ``listener`` whenever :func:`set_model` installs new weights (the gate empties its
    per-text caches then; registered by :mod:`vignette_lab.core.pii`, which this module does not import).

    Parameters
    ----------
    listener : callable
        Takes no argument.
    """
    _LISTENERS.append(listener)


@functools.lru_cache(maxsize=8)
def _start_rx(name_syllables: frozenset[str]) -> re.Pattern[str]:
    """Words whose first two syllables could begin a name (the regex engine does the scanning)."""
    syl = "".join(sorted(name_syllables))
    sur = "".join(sorted(_SURNAMES_1 | {s[0] for s in _SURNAMES_2}))
    return _patterns.compile(r"(?<![가-힣0-9A-Za-z])[" + sur + syl + r"][" + syl + r"가-힣][가-힣]*")


def candidates(text: str, name_syllables: frozenset[str]) -> Iterator[tuple[int, int, int]]:
    """Word-start candidates ``(start, k, word_end)``: the first ``k`` syllables of a Hangul word,
    ``k`` = 2 (a given name), 3 (surname + two syllables, or a three-syllable given name such
    as 알렉스) or 4 (two-syllable surname + two), whose given-name part uses only syllables seen
    in names."""
    for m in _start_rx(name_syllables).finditer(text):
        s, e = m.span()
        word = m.group()
        n = len(word)
        if n == 3 and word[2] == "이" and _common_noun_subject(text, s, word):
            continue  # 키운 보람이 없어요: a common noun and its bare subject 이, nobody's person
        w0, w1 = word[0], word[1]
        if w0 in name_syllables and w1 in name_syllables:
            yield s, 2, e
        if n >= 3 and w1 in name_syllables and word[2] in name_syllables and (w0 in _SURNAMES_1 or w0 in name_syllables):
            yield s, 3, e
        if n >= 4 and word.startswith(_SURNAMES_2) and word[2] in name_syllables and word[3] in name_syllables:
            yield s, 4, e


#: a possessive before a word (우리 정숙이, 내 보람이): the word names someone's person
_OWNER = _patterns.compile(r"(?:(?<![가-힣])(?:우리|제|내|저희|너희|니|네)|" + r"(?:딸|아들|동생|남동생|여동생|언니|오빠|누나|형|친구|"
                    r"짝꿍|남친|여친|손녀|손자|조카|막내|애|아이))\s$")


def _common_noun_subject(text: str, start: int, word: str) -> bool:
    """``word`` is a two-syllable known common noun plus a bare 이 (보람이, 지혜이 is no word) with no
    possessive or kin word before it: morphology reads the noun alone as one common noun."""
    toks = _morph(word[:2])
    if not (len(toks) == 1 and toks[0][:3] == (0, 2, "NNG") and not toks[0][3]):
        return False
    return _OWNER.search(text, 0, start) is None


@functools.lru_cache(maxsize=8192)
def _morph(word: str) -> tuple[tuple[int, int, str, bool], ...]:
    return word_tokens(word) or ()  # the gate's use of the shared kiwipiepy


def features(text: str, start: int, k: int, end: int, *, name_syllables: frozenset[str],
             given: frozenset[str], not_names: frozenset[str]) -> list[str]:
    """The feature names of one candidate (binary features; see the module docstring)."""
    word = text[start:end]
    return list(_word_features(word, k, given, not_names)) + list(_morph_features(word, k)) + \
        _context_features(text, start, k, end)


@functools.lru_cache(maxsize=16384)
def _word_features(word: str, k: int, given: frozenset[str], not_names: frozenset[str]) -> tuple[str, ...]:
    """Features of the word's letters alone (kept per word: the same words recur)."""
    cand, rest = word[:k], word[k:]
    f = ["bias", f"k{k}"]
    if word.startswith(_SURNAMES_2) and k == 4:
        f.append("sur2")
    elif cand[0] in _SURNAMES_1:
        f.append(f"sur1_k{k}")
    if cand[-2:] in given:
        f.append(f"given2_k{k}")
    if cand in not_names:
        f.append("not_name")
    if cand in _ADDRESS_TERMS:
        f.append("address_term")  # 여보야, 아가야: a term of address called out, not a name
    f.append(f"b{_batchim(cand[-1])}")
    if not rest:
        f.append("r:")
    else:
        # does a particle or ending follow (민지+한테요), or more of a word (트레+이니)?
        f.append("rj:1" if _PARTICLE_REST.fullmatch(rest) else "rj:0")
        f.append(f"r1:{rest[:1]}")
        f.append(f"b{_batchim(cand[-1])}r1:{rest[:1]}")
        f.append(f"r2:{rest[:2]}")
        f.append(f"r:{rest}" if len(rest) <= 4 else f"r3:{rest[:3]}")
    return tuple(f)


@functools.lru_cache(maxsize=16384)
def _morph_features(word: str, k: int) -> tuple[str, ...]:
    """Features from the kiwipiepy analysis of the word (asked only when they could matter)."""
    f: list[str] = []
    toks = _morph(word)
    if toks:
        head = [t for t in toks if t[0] < k]
        if any(s < k < e for s, e, _, _ in head):
            f.append("m_cut")
        else:
            f.append("m_align")
        if any(0 < s < k and re.match(r"(?:J|E|VCP|VCN|XS)", tag) for s, _, tag, _ in head):
            f.append("m_fn")  # a particle, ending or suffix inside the candidate (정말+이, 선생+님)
        if head and head[0][1] - head[0][0] >= 2 and not head[0][3] and not head[0][2].startswith("NNP") \
                and head[0][1] < k:
            f.append("m_head_common")  # a known common word starts it and does not cover it (정말+이)
        if head:
            f.append(f"m0:{head[0][2]}")
            if len(head) == 1:
                f.append(f"m1:{head[0][2]}")
                f.append(f"m1:{head[0][2]}_k{k}")
                if not head[0][3] and head[0][1] >= k and not head[0][2].startswith("NNP"):
                    f.append("m_common")  # one known common word covers the candidate
                    if _batchim(word[k - 1]) and _HYPO_REST.fullmatch(word[k:]):
                        f.append("m_common_hypo")  # 하늘이는, 가을이가: a common word given a name's 이 before a particle
                    elif word[k:] in ("아", "야"):
                        f.append("m_common_voc")  # 여보야, 강아지야: a common word called out
            if any(o for *_, o in head):
                f.append("m_oov")
        tail = [t for t in toks if t[0] >= k]
        f.append(f"mt:{tail[0][2] if tail else '-'}")
    return tuple(f)


#: what may follow a name inside its word: case and auxiliary particles, a copula with its
#: ending, a title, each optionally closed by the polite 요 (한테요, 이라고요, 씨가); not 네, which
#: ends sentences (비오네) as often as it follows a name (민지네 집)
_PARTICLE_REST = _patterns.compile(
    r"(?:이)?(?:가|는|은|을|를|도|의|와|과|랑|하고|한테|한테서|에게|께|께서|보고|처럼|보다|만|까지|조차|밖에|부터|"
    r"야|아|여|씨|님|랑은|하고는|한테는|에게는|도요|만요)?"
    r"(?:이|이야|야|예요|이에요|에요|이요|입니다|이고|고|이고요|고요|인데|인데요|이라고|라고|이라는|라는|이라서|라서|"
    r"였어|였어요|이었어요|였는데|이었는데|이었고|였고|이거든요|거든요)?요?")
_PREV_WORD = _patterns.compile(r"[가-힣]+$")
#: the 이 people add to a given name ending in a batchim, then a particle (하늘이는, 가을이가, 눙이가);
#: a common noun takes the particle directly (하늘은, 가을이 = subject 이 alone)
_HYPO_REST = _patterns.compile(r"이(?:가|는|도|를|랑|랑은|하고|한테|한테서|에게|네|의|만|야|처럼|보다|까지|요|가요|는요)")
#: titles and honorifics that follow a person's name, glued or after a space
_TITLES = ("씨|님|선생님|선생|쌤|샘|선배|후배|언니|오빠|누나|형|이모|삼촌|고모|교수|원장|팀장|과장|부장|차장|대리|주임|실장|"
           "사장|대표|이사|목사|신부|수녀|코치|감독|주무관|간호사|기사|변호사|간사|위원|회장|총무|반장|학생|군|양|할머니|할아버지|"
           "어머니|아버지|어머님|아버님|보호자|님께|씨가|씨는|"
           # ranks and roles of a workplace, the police and a centre (a closed class, not dev strings)
           "법인장|본부장|센터장|지점장|소장|국장|계장|조장|파트장|그룹장|상무|전무|사원|선임|책임|매니저|통역사|"
           "경위|경사|경장|순경|경감|경정|형사|작가|기자|PD|피디")
_TITLE_START = _patterns.compile(r"(?:" + _TITLES + r")")
_TITLE_WORD = _patterns.compile(r"\s(?:" + _TITLES + r")(?:님)?(?![가-힣])|\s(?:" + _TITLES + r")(?:님)?(?:이|가|은|는|을|를|의|께|께서|"
                         r"한테|이랑|랑|하고|도|이에요|예요|이세요|이신데|인데|이었|였|이시|이라)")
#: kin and role words that stand before a name (언니 연서, 친구 하람이)
_KIN_WORD = _patterns.compile(r"(?:제|내|우리|저희|외|친|새|의붓|전|큰|작은|시)?(?:딸|아들|동생|남동생|여동생|언니|오빠|누나|형|남편|아내|와이프|신랑|친구|짝꿍|"
                       r"남친|여친|남자친구|여자친구|손녀|손자|조카|막내|첫째|둘째|아빠|엄마|어머니|아버지|할머니|할아버지|"
                       r"외할머니|외할아버지|선배|후배|담임|팀장|팀장님|부장님|과장님|학생|보호자|사촌|애인|룸메|반장|상사|동료|"
                       r"선생님|쌤|원장님|교수님|이모|삼촌|고모|내담자|상담자|신청자|"
                       r"어머니|시누이|올케|며느리|사위|법인장|조장|경찰관|형사|통역사|사장님|사장|대리|과장|차장|부장|"
                       r"주임|실장|팀원|직원|신입|인턴|매니저|코치|담당자|담당)")
#: words that announce a name (이름은 …, 성함이 …)
_NAME_CUE_WORD = _patterns.compile(r"(?:이름|성함|존함|성명|본명|실명|예금주|명의자)(?:은|는|이|가|도|:)?")
_NEXT_WORD = _patterns.compile(r"\s*([가-힣]{1,2})")
#: a particle, copula or quotative standing alone after a space (typed apart from its noun)
_DETACHED = _patterns.compile(r"\s(?:이|가|는|은|을|를|도|랑|이랑|하고|한테|한테서|에게|께서|의|만|이나|나|"
                       r"이야|야|이에요|예요|에요|이예요|이요|입니다|인데|인데요|이고|고|이고요|이라고|라고|이란|란|"
                       r"이였나|였나|이었나|이었는데|였는데|이라서|라서|씨)(?=[\s,.!?~…]|$)")
#: the sentence goes on to explain a word (뜻, 옛말, 순우리말 …): the word is talked about, not a person
_MEANING = _patterns.compile(r"뜻|옛말|우리말|단어|낱말|사전|한자로|의미")


def _context_features(text: str, start: int, k: int, end: int) -> list[str]:
    """Features of the neighbourhood: punctuation after, the word before and after, repetition."""
    cand = text[start:start + k]
    f = []
    if text.count(cand) > 1 and re.search(r"(?:^|[^가-힣])" + cand + r".*(?:^|[^가-힣])" + cand, text):
        f.append("repeated")  # the same word starts two words: people repeat names (재희랑 … 재희가)
    after = text[end:end + 1]
    f.append("a:" + (after if after and not after.isalnum() else ("" if not after else "x")))
    before = text[:start].rstrip()
    if not before:
        f.append("p:^")
    else:
        pm = _PREV_WORD.search(before)
        if pm is None:
            f.append("pc:" + before[-1])
        else:
            prev = pm.group()
            f.append(f"p2:{prev[-2:]}")
            f.append(f"p:{prev}" if len(prev) <= 4 else f"pl:{prev[-1]}")
    nm = _NEXT_WORD.match(text, end)
    if nm:
        f.append(f"n:{nm.group(1)}")
    if end == start + k and _DETACHED.match(text, end):
        f.append("nc:detached")  # 박미자 가, 마이클 인데, 안나 라고: a particle or copula typed apart from the word
    if _MEANING.search(text, end, min(len(text), end + 24)):
        f.append("ctx:meaning")  # 다솜이 사랑이라는 옛말, 가람 이란 말이 강이라는 뜻: a word explained, not a person
    # word classes around the candidate, so that a title or kin word seen in training with one
    # name speaks for every other (n:선생 and n:과장 alone are separate, sparse features)
    rest = text[start + k:end]
    if _TITLE_START.match(rest):
        f.append("rc:title")  # 유나쌤, 채원누나: a title glued to the name
    if _TITLE_START.match(text, end) is None and _TITLE_WORD.match(text, end):
        f.append("nc:title")  # 윤지영 선생님, 송미경 과장님
    if before:
        pw = _PREV_WORD.search(before)
        if pw is not None and _KIN_WORD.fullmatch(pw.group()):
            f.append("pc:kin")  # 언니 연서, 친구 하람이가
        elif pw is not None and _NAME_CUE_WORD.fullmatch(pw.group()):
            f.append("pc:namecue")  # 이름은 한소라, 성함이 노태식
        elif before[-1] in ",:(" and (pw2 := _PREV_WORD.search(before[:-1].rstrip())) is not None \
                and _KIN_WORD.fullmatch(pw2.group()):
            f.append("pc:kin_apposed")  # 외할아버지, 김복남 / 아빠(강철민)
    return f


@functools.lru_cache(maxsize=16384)
def _word_score(word: str, k: int) -> float:
    w = _Model.weights or {}
    return sum(w.get(x, 0.0) for x in _word_features(word, k, _GIVEN, _NOT_NAMES))


def _morph_score(word: str, k: int) -> float:
    w = _Model.weights or {}
    return sum(w.get(x, 0.0) for x in _morph_features(word, k))


def score(feats: list[str]) -> float:
    """Decision value (log-odds) of one candidate under the loaded weights."""
    w = _Model.weights or {}
    return sum(w.get(x, 0.0) for x in feats)


@functools.lru_cache(maxsize=256)
def _scored(text: str) -> tuple[tuple[int, int, float], ...]:
    w = _Model.weights or {}
    out = []
    for s, k, e in candidates(text, _Model.name_syllables):
        v = _word_score(text[s:e], k) + sum(w.get(x, 0.0) for x in _context_features(text, s, k, e))
        if v + _MAX_MORPH[k] < _Model.threshold:
            continue  # no analysis could lift it over the threshold: kiwipiepy is not asked
        out.append((s, k, v + _morph_score(text[s:e], k)))
    return tuple(out)


def learned_name_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Spans the learned model calls names.

    Parameters
    ----------
    text : str
        Raw text (not normalised).

    Returns
    -------
    tuple of (int, int)
        ``(start, end)`` offsets, at most one per word (its best-scoring candidate), empty when
        the model file is missing.
    """
    if not load_model():
        return ()
    best: dict[int, tuple[float, int]] = {}
    for s, k, v in _scored(text):
        if v >= _Model.threshold and (s not in best or v > best[s][0]):
            best[s] = (v, k)
    return tuple((s, s + k) for s, (v, k) in sorted(best.items()))
