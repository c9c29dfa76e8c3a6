"""After a crisis cue: does the counselor turn engage the client's own risk content? (learned, general signals)

Five rounds of rules decided the crisis-context verdict by the *shape* of the counselor turn
("a question naming 죽다", "a safety plan with a support person", …). Each round the rules were
exact on the split they were written on and missed the next authors' new shapes (round 6: 5 of 101
screening moves marked ``warn``, safety recall 0.788). This module changes the mechanism: the
verdict is decided by *engagement* with the client's risk content, read from general signals of
the turn and the client line, by one logistic regression trained on every crisis-context item of
the evaluator dev splits (gold ``warn`` = the turn failed the cue, gold ``pos`` = it engaged):

* **risk-domain lemmas** (kiwipiepy): the thought, urge, plan, means, place, timing, past attempts,
  reasons for living, support, safety, help lines — how many the turn carries, and how many of its
  content lemmas are *not* risk, client or light words (a topic of the counselor's own);
* **content-morpheme overlap** with the client's cue line (any, share, the cue verbs/nouns);
* **form**: a question, an invitation/request, an instruction, a statement; ends on a question;
* **positive evidence of non-engagement** from the rules: minimising/normalising, a reassurance or
  promise that closes the topic, advice, a change of subject, judgement, laughter, a cheerful remark;
* the old shape rules' own verdict (:func:`vignette_lab.engines.utterance_tagger.crisis_follow_up`)
  as one signal among the others, not the decision.

The decision (:func:`disengaged`): ``warn`` only with positive evidence — an unmistakable dismissal
(laughing, judging the thought, forbidding, a forced no-harm promise: :func:`hard_evidence`), or the
model's probability of non-engagement at or above its threshold. The threshold is tuned inside the
training items on out-of-fold probabilities (the lowest one whose out-of-fold share of engaged
turns marked ``warn`` stays at or below :data:`MAX_SCREEN_WARN`), so a screening question is
protected by design and the figure is measured leave-one-author-split-out in
``bench/bench_safety.py --engagement``.

Trained offline by ``bench/build_evaluator_models.py`` into ``crisis_engagement_model.json`` (dense
weights; scored here in plain python, no scikit-learn at runtime). Without the file the rules decide
(with a warning).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

log = logging.getLogger(__name__)

__all__ = ["ENGAGEMENT_EXPORT", "ENGAGEMENT_VERSION", "FEATURES", "MAX_SCREEN_WARN", "EngagementModel",
           "default_engagement_model", "disengaged", "engagement_features", "engages", "fingerprint", "fit", "hard_evidence",
           "load", "p_disengaged", "training_items", "use_model"]

ENGAGEMENT_VERSION = "i11.10"
ENGAGEMENT_EXPORT = Path(__file__).with_name("crisis_engagement_model.json")
#: Out-of-fold share of engaged (gold ``pos``) training turns the threshold may mark ``warn``.
MAX_SCREEN_WARN = 0.01
_THRESHOLDS = tuple(round(0.3 + 0.025 * i, 3) for i in range(27))  # 0.3 … 0.95

#: Names of the dense signals, in order (the exported weights follow this order).
FEATURES = (
    "rule_follow_up", "risk_screen", "screening_question", "follow_up_shape", "safety_plan",
    "hard_dismissal", "dismissal", "laughs", "cheerful", "new_topic_question", "shift", "promise", "minimising",
    "tag_guidance", "tag_received", "tag_open_question", "tag_closed_question", "tag_restatement", "tag_reassurance",
    "question_mark", "ends_on_question", "invitation", "instruction",
    "overlap_any", "overlap_share", "cue_overlap", "risk_lemmas", "risk_lemma_new", "own_topic", "refers",
    "quotes_client", "length", "sentences",
    "last_ask_risk", "last_ask_other", "ideation_question", "referral", "judgement", "reflects_cue", "refers_back",
)

# Risk-assessment domain: the thought and urge, dying/living/vanishing, plans, means, places,
# timing, past attempts, injuries, protection, support and help (lemmas, every inflection).
_RISK_EXTRA = frozenset({"생각", "마음", "맘", "충동", "상상", "죽", "죽음", "살", "삶", "사라지", "없어지", "끝", "끝나",
                         "끝내", "방법", "계획", "시도", "약", "수면제", "칼", "피", "상처", "포기", "의미", "버티",
                         "견디", "놓", "편하", "옥상", "한강", "다리", "난간", "유서", "이유", "위험", "안전", "도움",
                         "연락", "전화", "병원", "응급실", "상담", "센터", "보호자", "혼자", "곁", "옆"})


def _risk_set() -> frozenset[str]:
    from vignette_lab.engines import crisis_cues as cc
    return frozenset(cc._RISK_STEMS | cc._DIMENSIONS | cc._MEANS | cc._HEIGHT | cc._CUE_VERBS | _RISK_EXTRA) - {
        "가", "받", "두", "그", "매"}


def _content(m: Sequence[tuple[str, str]]) -> set[str]:
    from vignette_lab.engines import crisis_cues as cc
    out = {f for f, t in m if t.startswith(cc._CONTENT_TAGS)}
    out |= {f1 + f2 for (f1, t1), (f2, t2) in zip(m, m[1:]) if t1.startswith("NN") and t2.startswith("XSV")}
    return out - cc._LIGHT


# Judging or accusing the client for the thought ("바보 같은 생각", "과장된 생각", "거짓말하지 마"): never engagement.
_JUDGEMENT = re.compile(r"((거|게)아니잖아|거짓말(하지|마|하는)|숨기지마|바보같|멍청|어리석|한심|쓸데없|말도안되|유치한|"
                        r"이상한소리|과장된?생각|과장이|이기적이(야|에요|다|네)|나약(하|해|한|함)|불효|"
                        # the thought rebuked as a norm ("그런 말 쉽게 하는 거 아니야") or met with "toughen up"
                        r"(말|생각)(을|은)?(쉽게|함부로)?하는(거|것|게)아니(야|에요|다|죠|라)|"
                        r"마음(을)?(단단히|굳게|독하게|강하게|굳세게)(잡|먹)|"
                        # the client's character vouched for against the cue ("너 그럴 애 아니잖아", "그럴 사람이 아니죠")
                        r"그럴(애|사람|아이|분|놈|타입)(가|이)?아니)")
# The ideation itself named (any inflection): dying, suicide, self-harm, vanishing, ending life, harming oneself.
_IDEATION = frozenset({"죽", "죽음", "자살", "자해", "사라지", "없어지", "해치", "목숨", "뒤지", "극단", "유서", "뛰어내리"})
_LIFE_GIVEN_UP = frozenset({"포기", "그만", "끝", "싫", "의미", "이유", "재미없", "귀찮", "지겹"})
# The support part of a safety plan: a person (누구/사람/얼굴/어른) the client could reach, recall or rely on.
_SUPPORT_WHO = frozenset({"누구", "사람", "얼굴", "어른"})
_SUPPORT_ACT = frozenset({"연락", "전화", "떠오르", "떠올리", "기대", "털어놓", "도와주", "도움", "부르", "알리"})
# Someone who knows, asked ("이 얘기를 아는 사람이 있어요?"): the support part, asked as a question.
_SUPPORT_KNOWS = frozenset({"알"})
# Ending (끝내다/끝나다) asked as a thought, an urge or a life of one's own.
_ENDING = frozenset({"끝내", "끝나"})
_OWN_THOUGHT = frozenset({"생각", "마음", "맘", "충동", "스스로", "삶", "인생", "목숨"})
# A means or object of harm asked about as present (있다): means restriction.
_MEANS_AT_HAND = frozenset({"물건", "도구", "수단", "약", "수면제", "칼", "커터", "커터칼", "면도칼", "끈", "가위", "약통",
                            "라이터"})
# Pointing back to what the client just told ("그렇게까지 하게 됐는지", "그때", "그날"): staying on it.
_REFERS_BACK = re.compile(r"(그렇게까지|그때|그날|그 일|그런 일|그 순간|그 당시|그러고 나서|그랬을 때|했을 때|했던 거)")
_REFERRAL = frozenset({"109", "1393", "1388", "119", "1577-0199", "응급실", "응급", "병원", "센터", "상담전화", "위기상담",
                       "위기", "긴급"})
# Being connected to a service or a saved help number ("센터랑 연결해서", "아까 적은 번호 저장한 거").
_CONNECT = frozenset({"연결", "연계", "저장"})
_ASK_EF = frozenset({"ᆯ래", "을래", "래", "자", "ᆯ까", "을까", "까", "ᆯ까요", "을까요", "까요", "니", "냐", "나요", "세요",
                     "으세요", "십시오", "ᆸ니까", "습니까"})


def _asks(sentence: str, m: Sequence[tuple[str, str]]) -> bool:
    """A question, an invitation/request or an instruction ("…얘기해 줄래?", "…로 가세요", "…연락해")."""
    from vignette_lab.engines import utterance_tagger as ut
    return ("?" in sentence or any(t == "EF" and f in _ASK_EF for f, t in m) or bool(ut._OPEN_REQ.search(sentence))
            or bool(_INSTRUCTION.search(sentence)) or ut._is_question(sentence))


def _sentence_signals(utterance: str, client_prev: str) -> tuple[bool, bool, bool, bool]:
    """(last asking sentence is about risk, … is about a topic of the counselor's own, a question names the
    ideation, a referral to a help line or service)."""
    from vignette_lab.engines import crisis_cues as cc
    from vignette_lab.engines import utterance_tagger as ut

    cue = cc._cue_lemmas(client_prev)
    theirs = _content(cc._morphs(cc._surface(ut._clean(client_prev))) or ())
    risk = _risk_set()
    last: tuple[set[str], set[str]] | None = None
    ideation = referral = False
    turn_leading = bool(ut._LEADING_CHECK.search(ut._clean(utterance).replace(" ", "")))
    for sent in ut._sentences(utterance):
        m = cc._morphs(cc._surface(sent)) or ()
        forms = {f for f, _ in m}
        mine = _content(m)
        if forms & _REFERRAL or any(n in sent for n in cc._HELP_LINES):
            referral = referral or _asks(sent, m) or bool(forms & ({"연락", "전화", "가", "찾아가", "오"} | _CONNECT))
        # the help number of the safety plan, saved or written down ("아까 적은 번호 폰에 저장한 거 보여줘")
        if "번호" in forms and forms & (_CONNECT | {"적", "메모"}):
            referral = True
        # who the client could reach: a person with a reaching/recalling/relying verb, asked or proposed ("급할 때
        # 떠오르는 얼굴이 있을까요?", "연락할 사람을 같이 적어 봐요") — the support part of a safety plan
        if forms & _SUPPORT_WHO and forms & _SUPPORT_ACT:
            referral = True
        if _brings_in(m):
            referral = True
        if not _asks(sent, m):
            continue
        # kiwipiepy reads "아는 사람" as 아/NNG + 는/JX at times: count it as 알다
        knows = bool(forms & _SUPPORT_KNOWS) or any(m[k] == ("아", "NNG") and m[k + 1][0] == "는" for k in range(len(m) - 1))
        if forms & _SUPPORT_WHO and knows and "있" in forms:
            referral = True
        # the urge to injure oneself named in a question ("긁고 싶을 때 할 거 뭐였는지 기억나?")
        if forms & cc._INJURE and "싶" in forms:
            ideation = True
        # the ideation named, or living itself given up or judged ("사는 것도 포기하고 싶다는 뜻이야?"), or
        # ending as a thought of one's own ("스스로 끝내고 싶단 생각까지 간 적 있어?"), or the means at hand
        # ("그걸 할 수 있는 물건이 지금 집에 있어?")
        # a leading check names the ideation only to deny it ("설마 진짜 하려는 건 아니지?"): no question about it, nor
        # is a bare echo before it ("유서? 설마 …", "죽는다고? 설마 …")
        leading = bool(ut._LEADING_CHECK.search(ut._clean(sent).replace(" ", ""))) or (
            turn_leading and len(re.sub(r"[\s?!.…~]", "", sent)) <= 6)
        if not leading and (forms & _IDEATION or (forms & _LIVING and forms & _LIFE_GIVEN_UP) or (
                forms & _ENDING and forms & _OWN_THOUGHT) or (forms & _MEANS_AT_HAND and "있" in forms)):
            ideation = True
        last = (mine, forms)
    if last is None:
        return False, False, ideation, referral
    mine, forms = last
    about_risk = bool(mine & risk or forms & cue or forms & _IDEATION)
    own = {w for w in mine - theirs - risk - cc._FEELING - cue if not w.isdigit()}
    return about_risk, bool(own) and not about_risk, ideation, referral


# Bringing in a guardian now, as the counselor's own commitment ("제가 어머님께 바로 연락드릴게요", "내가 옆에서
#얘기할게"), or keeping the client company ("그동안 저랑 같이 있어 줘요"): the emergency step of a safety plan.
_GUARDIANS = frozenset({"어머님", "아버님", "어머니", "아버지", "보호자", "부모님", "선생님", "엄마", "아빠", "부모", "형", "누나",
                        "언니", "오빠", "담임", "쌤", "할머니", "할아버지", "가족"})
_REACH = frozenset({"연락", "전화", "알리", "전하", "말씀드리", "연락드리", "말하", "얘기하", "이야기하"})
_COMMIT = frozenset({"ᆯ게요", "ᆯ게", "을게", "을게요", "ᆯ께", "ᆯ께요", "겠"})


def _brings_in(m: Sequence[tuple[str, str]]) -> bool:
    """The counselor commits to reaching a guardian (first person + a reaching verb + ``-ㄹ게``/``-겠``, not
    negated: "엄마한텐 말 안 할게" is a secrecy promise) or asks the client to stay with them."""
    forms = {f for f, _ in m}
    if forms & {"안", "않", "못"}:
        return False
    lemmas = forms | {f1 + f2 for (f1, t1), (f2, _t2) in zip(m, m[1:]) if t1.startswith("NN") and f2 in ("하", "드리")}
    first = any(f in ("저", "제", "내", "나") and t == "NP" for f, t in m)
    commits = any(f in _COMMIT for f, t in m if t in ("EF", "EP"))
    if first and commits and forms & _GUARDIANS and lemmas & _REACH:
        return True
    return first and "같이" in forms and "있" in forms and any(f == "주" and t.startswith("VX") for f, t in m)


_INSTRUCTION = re.compile(r"(세요|십시오|해 ?줘|하자|해 ?봐|가 ?봐|가세요|해야 ?(해|돼|됩니다)|하면 돼|으면 돼|면 돼요|지 마)[.!~]*$")
_SHIFT = re.compile(r"(근데|그건 그렇고|그럼 (이제|오늘|다시)|이제 .*(얘기|이야기)|나중에 하고|다른 얘기)")
_QUOTE = re.compile(r"(다니|라니|다는|라는|다고|라고)\s")


def engagement_features(utterance: str, *, client_prev: str = "") -> list[float]:
    """The dense signals (:data:`FEATURES`) of one counselor turn after a crisis cue.

    Parameters
    ----------
    utterance : str
        The counselor turn.
    client_prev : str, default=""
        The client's line before it (the cue line when the cue is in it).

    Returns
    -------
    list of float
        One value per name in :data:`FEATURES` (0/1 flags, shares and capped counts in [0, 1]).
    """
    from vignette_lab.engines import crisis_cues as cc
    from vignette_lab.engines import utterance_tagger as ut

    text = ut._clean(utterance)
    prev = ut._clean(client_prev)
    tags = set(ut.in_context(ut.rule_tags(utterance), utterance, client_prev=client_prev))
    m = cc._morphs(cc._surface(text)) or ()
    mc = cc._morphs(cc._surface(prev)) or ()
    mine, theirs = _content(m), _content(mc)
    cue = cc._cue_lemmas(client_prev)
    risk = _risk_set()
    lemmas = {f for f, _ in m}
    sentences = ut._sentences(utterance) or [text]
    last = sentences[-1] if sentences else ""
    shift = bool(_SHIFT.search(text))
    own = mine - theirs - risk - cc._FEELING - cue
    own = {w for w in own if not w.isdigit()}
    signals = _sentence_signals(utterance, client_prev)
    v = [
        ut.crisis_follow_up(utterance, client_prev=client_prev), ut.is_risk_screen(text), cc.screening_question(text),
        cc.follow_up_shape(text, client_prev=client_prev), cc.safety_plan(text, client_prev=client_prev),
        ut._hard_dismissal(utterance), ut.crisis_dismissal(utterance), ut.laughs(utterance), cc.cheerful_remark(text),
        cc.new_topic_question(text, client_prev=client_prev), shift, bool(ut._PROMISE.search(text)), ut.minimising(text),
        "direct_guidance" in tags, bool(tags & {"reflection_feelings", "validation", "immediacy"}),
        "open_question" in tags, "closed_question" in tags, "restatement" in tags, "approval_reassurance" in tags,
        "?" in text, last.rstrip().endswith("?") or ut._is_question(last), bool(ut._OPEN_REQ.search(text)),
        bool(_INSTRUCTION.search(last)),
        bool(mine & theirs), len(mine & theirs) / max(1, len(theirs)), bool(lemmas & cue),
        min(len(mine & risk), 3) / 3, bool((mine & risk) - theirs), min(len(own), 4) / 4, bool(cc._REFERS.search(text)),
        bool(_QUOTE.search(text)), min(len(text), 120) / 120, min(len(sentences), 4) / 4,
        *signals, bool(_JUDGEMENT.search(text.replace(" ", ""))),
        bool(tags & {"reflection_feelings", "validation", "restatement"} or _QUOTE.search(text))
        and bool(lemmas & cue or len(mine & theirs) >= 2) and not signals[1],
        bool(_REFERS_BACK.search(text)),
    ]
    return [float(x) for x in v]


# Verbs of the client being held to life by someone or something ("동생 생각이 … 붙잡아 주고 있네요").
_HOLDING = frozenset({"붙잡", "붙들", "지탱", "버팀목"})
# Living itself, as lemmas ("사는 것", "살아가는 것").
_LIVING = frozenset({"살", "살아가", "살아남", "삶"})
# Outcomes named to make the client feel guilty for the thought ("엄마가 들으면 속상하시겠다").
_GUILT_FEELING = frozenset({"속상하", "슬프", "슬퍼하", "실망하", "아프", "무너지"})
_OTHERS = frozenset({"엄마", "아빠", "부모", "어머니", "아버지", "가족", "딸", "아들", "아이", "애", "동생", "형", "누나",
                     "언니", "오빠", "친구", "남편", "아내", "선생"})


def _morph_sentences(utterance: str) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    from vignette_lab.engines import crisis_cues as cc
    from vignette_lab.engines import utterance_tagger as ut

    return [(sent, tuple(cc._morphs(cc._surface(sent)) or ())) for sent in ut._sentences(utterance)]


def _dismissal_shape(utterance: str) -> bool:
    """Morphological dismissal classes after a cue, in any register (class, not phrase):

    * forbidding the thought: a sentence naming the thought (생각/마음/ideation lemma) with a negative
      imperative or propositive ``-지 말-`` ("그런 생각은 아예 하지 말자", "그런 맘 먹지 마세요");
    * a guilt appeal: someone close to the client *hearing/knowing/seeing* it and being hurt
      ("엄마가 들으면 속상하시겠다", "아빠가 알면 슬퍼하실 거야"), or the client told they *must* think of
      someone ("딸을 생각하셔야죠", "가족 생각해야지");
    * a rebuking why: 왜 + 생각을 하다 as the question ("왜 그런 생각을 해?") — not the exploring
      "왜 그런 생각이 들었는지" (생각이 들다);
    * the promise that it passes: 지나가 in the future ("너도 지나갈 거야", "다 지나가요", "곧 지나갈 테니");
    * a rhetorical why denying what the client said: 왜 + 없다/안/아니다/못, stated ("살 이유가 왜 없어").
    """
    from vignette_lab.engines import crisis_cues as cc

    for _sent, m in _morph_sentences(utterance):
        forms = [f for f, _ in m]
        fs = set(forms)
        pairs = list(zip(m, m[1:]))
        names_thought = bool(fs & ({"생각", "마음", "맘"} | _IDEATION))
        if names_thought and any(m[i][0] == "지" and m[i][1] == "EC" and m[i + 1][0] == "말"
                                 and any(t == "EF" for _f, t in m[i + 2:i + 4]) for i in range(len(m) - 2)):
            return True
        knows = bool(fs & {"듣", "알", "보"}) or any(  # kiwipiepy reads 아시면 (알다) as 아/IC + 시/EP
            m[i] == ("아", "IC") and m[i + 1][0] == "시" for i in range(len(m) - 1))
        if fs & _OTHERS and knows and fs & _GUILT_FEELING and any(t == "EC" and f in {"으면", "면"} for f, t in m):
            return True
        if fs & _OTHERS and any(m[i][0] == "생각" and m[i + 1][0] == "하" and any(
                f.startswith(("어야", "아야")) for f, t in m[i + 2:i + 4] if t != "EP" or f != "시")
                for i in range(len(m) - 2)):
            return True
        if "왜" in fs and "생각" in fs and "들" not in fs and any(
                f1 == "생각" and f2 in {"을", "를"} for (f1, _), (f2, _t) in pairs):
            return True
        # a rhetorical why that denies what the client said ("살 이유가 왜 없어", "그게 왜 안 돼"): 왜 with a negating
        # predicate, stated (no question mark, no indirect 는지) — not the exploring "왜 없다고 느끼는지 …"
        if "왜" in fs and fs & {"없", "안", "아니", "못"} and "?" not in _sent and any(t == "EF" for f, t in m) \
                and not any(t == "EC" and f in cc._INDIRECT for f, t in m):
            return True
        if "지나가" in fs and any(f1 in {"ᆯ", "을"} and t1 == "ETM" and f2 in {"거", "것", "테"}
                                 for (f1, t1), (f2, _t2) in pairs):
            return True
        # the promise that it gets better, stated ("괜찮아질 거예요", "곧 나아질 거야"): becoming fine (괜찮/나아지/
        # 좋아지 + -어지 + ᆯ 거) promised, not asked
        if "?" not in _sent and any(
                (f0 == "나아지" or f0 in {"괜찮", "좋"} and f1 in {"어", "아"} and m[k + 2][0] == "지"
                 # "이제 괜찮으실 거예요": being fine promised outright, after 이제/곧/다/금방 and with no permission 도
                 or f0 == "괜찮" and fs & {"이제", "곧", "금방", "다"} and "도" not in forms[:k])
                and any(fa in {"ᆯ", "을"} and fb in {"거", "것", "테"} for (fa, _ta), (fb, _tb) in zip(m[k + 1:k + 5], m[k + 2:k + 6]))
                for k, ((f0, _t0), (f1, _t1)) in enumerate(zip(m, m[1:])) if k + 2 < len(m)):
            return True
        # the thought promised away by the advice before it ("…듣다가 자. 그럼 그런 생각 안 나"): 그럼/그러면 + the
        # thought + a negated 나다/들다, stated
        if m and m[0][0] in {"그럼", "그러면"} and "생각" in fs and "?" not in _sent and any(
                f == "생각" and m[k + 1][0] in {"안", "이", "은", "도"} and any(f2 in {"나", "들"} for f2, _ in m[k + 1:k + 4])
                and fs & {"안", "않"} for k, (f, _t) in enumerate(m[:-1])):
            return True
        # the thought allowed as harmless ("생각만이면 괜찮아", "생각만 하는 거면 괜찮아요"): only-the-thought +
        # a condition + fine, stated
        if "생각" in fs and "괜찮" in fs and "?" not in _sent and any(
                f == "생각" and nf == "만" for (f, _), (nf, _t) in pairs) and any(t == "EC" and f in {"면", "으면"} for f, t in m):
            return True
        if "지나가" in fs and any(t == "EF" for f, t in m) and not any(t == "EP" and f in {"었", "았"} for f, t in m) \
                and "?" not in _sent:
            return True
    return False


# Intent asked about: an action purposed (-려고/-ㄹ까) as a thought the client ever had.
_INTENT_QUESTION = re.compile(r"(려고|을까|ㄹ까|까) ?(하는 )?생각(을 )?(해 ?본|한|하신|해 ?보신|해 ?봤|했던) 적")
# Recurrence and recency of what the client told, and a pointer back to it.
_RECURRENCE = frozenset({"마지막", "최근", "처음", "언제", "또", "다시", "이후", "뒤", "요즘"})
_BACK_TO_EVENT = re.compile(r"(그때|그 일|그런 일|비슷한 일|그 뒤|그 이후|그랬|그러신|그러셨|그런 적|그날)")
_QUOTED_SPAN = re.compile(r"['‘\"“「]([^'’\"”」]{2,40})['’\"”」]")


def _quotes_back(utterance: str, client_prev: str) -> bool:
    """A span in quotation marks that the client's line holds (spaces and punctuation ignored)."""
    def flat(x: str) -> str:
        return re.sub(r"[\s.,…?!~]", "", x)

    prev = flat(client_prev)
    return bool(prev) and any(flat(q) and flat(q) in prev for q in _QUOTED_SPAN.findall(utterance))


def _engagement_shape(utterance: str, client_prev: str, *, own_topic: bool) -> bool:
    """Morphological engagement classes after a cue (class, not phrase):

    * a scaling question on the urge: a question with a numeric anchor pair (0 … 10) asking ``몇``/``어느``
      ("0이 스쳐 가는 거고 10이 실행하고 싶을 만큼이라면, 요즘은 몇 정도예요?");
    * the client held to life named back ("동생 생각이 … 붙잡아 주고 있네요");
    * affirming a help line or service the client just named ("엄마나 1393이요" → "맞아요 잘 기억하고 있네요");
    * asking what led to what the client just told (그렇게까지 in a question: "뭐가 그렇게까지 하게 했는지 얘기해 줄래?");
    * asking whether the client ever meant to act (-려고 생각한 적 in a question: "거기 가 보려고 생각한 적도 있어?");
    * asking when it last happened or whether it came back, pointing back to it (마지막/최근/처음/또/다시 + 그때/그런 일/
      비슷한 일 in a question: "그때가 마지막이었어요, 아니면 최근에도 비슷한 일이 있었어요?");
    * the client's own words quoted back in quotation marks and asked about, as a question or a wish to know
      ("'저렇게 될 바엔' 뒤에 어떤 말이 이어지는지 들어 보고 싶어요"), unless the turn ends on a topic of its own.
    """
    from vignette_lab.engines import crisis_cues as cc

    sents = _morph_sentences(utterance)
    numbers = [f for _s, m in sents for f, t in m if t == "SN" and f.isdigit() and int(f) <= 10]
    for sent, m in sents:
        fs = {f for f, _ in m}
        asks = _asks(sent, m)
        if asks and len(set(numbers)) >= 2 and fs & {"몇", "어느", "점"} and not cc.rates_another_state(
                m, client_prev=client_prev):
            return True
        if fs & _HOLDING and not _INSTRUCTION.search(sent):
            return True
        # what holds the client, asked as the strength it gives ("그게 힘든 날 어떤 힘이 돼요?")
        if asks and "?" in sent and "힘" in fs and "되" in fs and fs & {"어떤", "어떻", "얼마나", "무슨"}:
            return True
        if asks and "?" in sent and "그렇게까지" in sent.replace(" ", "") and not fs & {"다음", "나중"}:
            return True
        # whether the client ever meant to act on it ("거기 가 보려고 생각한 적도 있어?", "뭔가 하려고 생각해 본 적 있어요?")
        if "?" in sent and _INTENT_QUESTION.search(sent):
            return True
        # when it last happened or whether it came back ("그때가 마지막이었어요, 아니면 최근에도 비슷한 일이 있었어요?")
        if "?" in sent and fs & _RECURRENCE and _BACK_TO_EVENT.search(sent):
            return True
    # the client's own words quoted back in quotation marks, asked about ("'저렇게 될 바엔' 뒤에 어떤 말이
    # 이어지는지 들어 보고 싶어요", "'나까지'라고 했는데, 혹시 …?")
    if _quotes_back(utterance, client_prev) and (_WANTS_TO_KNOW.search(utterance) or any(
            _asks(sent, m) for sent, m in sents)) and not cc.new_topic_question(utterance, client_prev=client_prev):
        return True
    prev = client_prev.replace(" ", "")
    named = any(n in prev for n in cc._HELP_LINES) or bool(_REFERRAL & {f for f, _ in cc._morphs(cc._surface(prev)) or ()})
    if not named:
        return False
    return not (own_topic or cc.new_topic_question(utterance, client_prev=client_prev) or _SHIFT.search(utterance))


# What makes a turn a safety check at all: the ideation, safety, danger, the urge, a help line or a person to reach.
_SAFETY_CHECK = _IDEATION | _REFERRAL | _ENDING | _MEANS_AT_HAND | frozenset(
    {"안전", "위험", "위험하", "충동", "연락", "전화", "도움", "자해", "살", "삶"})
# Moving on: later/next/another + talk (얘기/이야기/주제), or a topic-shifting conjunction opening a question.
_LATER = frozenset({"다음", "나중", "다른"})
_TALK = frozenset({"얘기", "이야기", "주제", "다루"})
# Now, as against later ("오늘은 학교 얘기 먼저 할까요?"): a topic proposed for now after a deferral.
_NOW = frozenset({"오늘", "지금", "우선", "먼저", "일단"})
_SHIFT_CONJ = frozenset({"근데", "그런데", "그나저나", "아무튼", "어쨌든", "암튼", "그래서"})
# People the client's cue may name ("내가 없어지면 엄마도 편하겠지"): sharing only them is no staying on the cue
# ("근데 엄마는 요즘 회사 잘 다니셔?" asks about the mother's day, not about what the client said of her).
_PEOPLE = frozenset({"엄마", "아빠", "어머니", "아버지", "부모", "부모님", "형", "누나", "언니", "오빠", "동생", "친구", "선생님",
                     "쌤", "할머니", "할아버지", "가족", "남편", "아내", "아이", "애", "딸", "아들", "걔", "애들"})
# "그럼 다음 모의고사는 언제 봐?": a "then" opening a question about the next event on the calendar is planning the
# client's week, not staying with what they just said.
_THEN_CONJ = frozenset({"그럼", "그러면"})
_NEXT_EVENT = frozenset({"다음", "이번", "내일", "모레", "주말", "방학", "다음주", "담주"})


def _moves_on(utterance: str, client_prev: str) -> bool:
    """The turn moves off the cue without a safety check (morphology, any register):

    * deferral or closing onto later/another talk ("다음 얘기로 가자", "다음 주엔 훈육 방법 얘기해 봐요",
      "그건 나중에 얘기하자");
    * a question opened by a topic-shifting conjunction whose content is neither the client's words nor
      self-harm ("근데 민호랑은 요즘 어때?", not "근데 지난번에 손목 얘기 했잖아, 그 뒤로 또 그은 적은 없었어?");
    * a question opened by "그럼/그러면" about the next event on the calendar that names no person and none of the
      client's words ("그럼 다음 모의고사는 언제 봐?");
    * a rating question on another state — the mood, a worry, a decision — instead of the thought
      (:func:`vignette_lab.engines.crisis_cues.rates_another_state`: "그럼 요즘 기분은 0에서 10 중 몇 점이에요?");

    and no sentence of the turn names the ideation, safety, the urge, a help line or a person to reach.
    A conditional is a plan, not a deferral ("나중에라도 그런 생각이 들면 나한테 꼭 얘기해 주기로 하자").
    """
    from vignette_lab.engines import crisis_cues as cc

    sents = _morph_sentences(utterance)
    every = {f for _s, m in sents for f, _ in m}
    if every & _SAFETY_CHECK or any(n in utterance for n in cc._HELP_LINES):
        return False
    theirs = _content(cc._morphs(cc._surface(client_prev)) or ()) | cc._cue_lemmas(client_prev)
    risk = _IDEATION | cc._INJURE | cc._BODY
    for sent, m in sents:
        fs = {f for f, _ in m}
        # a rating of the mood, an exam worry or a decision instead of the thought ("0에서 10 중에 지금 기분은 몇 점?")
        if cc.rates_another_state(m, client_prev=client_prev):
            return True
        # "나중에라도 그런 생각이 들면 나한테 꼭 얘기해 주기로 하자" is a plan (a condition), not a deferral
        conditional = any(t == "EC" and f in {"면", "으면"} for f, t in m)
        if fs & _LATER and fs & _TALK and any(t == "EF" for _f, t in m) and not conditional and (
                "?" not in sent or fs & _NOW and fs & {"다음", "나중"}):
            return True
        # ... unless it asks about the thought referred to ("근데 그 생각이 들 때 주로 뭘 해?")
        if m and m[0][0] in _SHIFT_CONJ and _asks(sent, m) and not (fs - _PEOPLE) & (theirs | risk) \
                and not cc._REFERS.search(sent):
            return True
        # "그럼" opening the sentence, or opening a clause after an ending the splitter kept ("…구나 그럼 …")
        then = next((i for i, (f, t) in enumerate(m) if f in _THEN_CONJ and t == "MAJ"
                     and (i == 0 or m[i - 1][1] in {"EF", "SF"})), None)
        if then is not None and _asks(sent, m[then:]):
            tail = {f for f, _ in m[then:]}
            if tail & _NEXT_EVENT and not tail & _PEOPLE and not tail & (theirs | risk):
                return True
    return False


# The thought accounted for instead of asked about: it "comes" from a cause or a phase ("우울하면 그런 생각 드는 건
# 증상이야", "밤에 폰 보니까 그런 생각 드는 거야", "사춘기라 그런 생각이 일시적으로 들 수 있어요"), or the client's words
# given a meaning or a label ("다 끝내고 싶다는 건 … 신호인지도 몰라요", "죽는 게 낫다는 건 극단적인 생각이에요").
_THOUGHT_REF = r"(그런|그|이런|그러한) ?(생각|마음|맘|상상|충동)(이|은|도|만)?"
_EXPLAINED = re.compile(
    _THOUGHT_REF + r" (\S+ )?(드는|들 수|드실 수|드시는 거|들어요|나는|날 수|생기는|생길 수|오는 거|올 수|든 거|드는 거)|"
    r"(다는|라는|단|란) ?(건|것은|게|거는|거) [^.?!]*(신호|뜻|의미|생각이에요|생각이야|생각입니다|논리|때문|증상|"
    r"지도 몰라|거예요|거죠|거야)|"
    r"(다는|라는) (마음|생각)을? [^.?!]*(건지도|것인지도|지도) 몰라|"
    # promised away by a condition ("할 일이 생기면 그런 생각 덜 나요", "잠 충분히 자면 그런 생각 안 들어요")
    r"면 [^.?!]*" + _THOUGHT_REF + r" ?(안|덜|잘 안|없어|사라) ?(나|들|생기|올|오|지|져)")
# Wanting to know, said as a statement ("…인지 여쭤볼게요", "…지 궁금해요", "들어 보고 싶어요"): asking all the same.
_WANTS_TO_KNOW = re.compile(r"(궁금|알고 ?싶|듣고 ?싶|들어 ?보고 ?싶|확인하고 ?싶|확인해 ?보고 ?싶|여쭤|여쭙|물어볼게|물어보고 ?싶|"
                            r"확인할게|확인해 ?볼게|봐 ?두고 ?싶)")


def _explains_away(utterance: str, client_prev: str) -> bool:
    """The thought explained, normalised or relabelled (:data:`_EXPLAINED`) in a turn that asks nothing, wants to
    know nothing and plans no safety: the cue accounted for and closed (any register)."""
    from vignette_lab.engines import crisis_cues as cc
    from vignette_lab.engines import utterance_tagger as ut

    text = ut._clean(utterance)
    if not _EXPLAINED.search(re.sub(r"['‘’\"“”]", "", text)) or _WANTS_TO_KNOW.search(text):
        return False
    if any(_asks(sent, m) for sent, m in _morph_sentences(utterance)):
        return False
    return not cc.safety_plan(text, client_prev=client_prev)


def hard_evidence(utterance: str, *, client_prev: str = "") -> bool:
    """Unmistakable non-engagement: judging or accusing the client, whatever else the turn holds; laughing,
    forbidding the thought, a forced no-harm promise, a secrecy promise, moving on without a safety check
    (:func:`_moves_on`) or explaining the thought away (:func:`_explains_away`) unless the turn also asks about the ideation itself or refers to a help line
    ("ㅋㅋ로 넘겼지만 … 진짜로 죽는 거 생각해 본 적 있어?")."""
    from vignette_lab.engines import utterance_tagger as ut

    text = ut._clean(utterance)
    if _JUDGEMENT.search(text.replace(" ", "")):
        return True
    if not (ut._hard_dismissal(utterance) or ut.laughs(utterance) or _dismissal_shape(utterance)
            or _moves_on(utterance, client_prev) or _explains_away(utterance, client_prev)):
        return False
    _, _, ideation, referral = _sentence_signals(utterance, client_prev)
    return not (ideation or referral)


def training_items(*, splits: Sequence[str] | None = None, exclude_norm: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Crisis-context items of the evaluator dev splits, one per normalised (client line, counselor turn).

    ``exclude_norm`` drops counselor turns (normalised) — the bench holds a split out this way.
    Test splits are never read.
    """
    from vignette_lab.engines import utterance_tagger as ut

    skip = set(exclude_norm)
    seen: set[tuple[str, str]] = set()
    out = []
    for name in splits or ut.DEV_SPLITS:
        for it in ut.dev_items(split=name):
            if not it.get("crisis_context") or it.get("appropriateness") not in ("pos", "warn"):
                continue
            key = (ut.normalise_text(it.get("client_prev", "")), ut.normalise_text(it["counselor"]))
            if key[1] in skip or key in seen:
                continue
            seen.add(key)
            out.append(it)
    return out


class EngagementModel:
    """A binary logistic regression over :data:`FEATURES` (``warn`` = not engaged) and its threshold.

    Scored in plain python (the dot product in feature order, ``1 / (1 + exp(-z))``), identically
    for the fitted and the exported model.
    """

    def __init__(self, weights: Sequence[float], intercept: float, threshold: float, meta: Mapping[str, Any] | None = None):
        if len(weights) != len(FEATURES):
            raise ValueError(f"expected {len(FEATURES)} weights, got {len(weights)}")
        self.weights = [float(w) for w in weights]
        self.intercept = float(intercept)
        self.threshold = float(threshold)
        self.meta = dict(meta or {})

    def proba(self, features: Sequence[float]) -> float:
        """Probability that the turn does *not* engage the cue."""
        z = self.intercept
        for w, x in zip(self.weights, features):
            z += w * x
        return 1.0 / (1.0 + math.exp(-z))

    def to_json(self) -> dict[str, Any]:
        """The export document (weights rounded to 12 digits so a rebuild compares equal)."""
        return {"format": "vignette-lab/crisis-engagement/v1", **self.meta, "features": list(FEATURES),
                "weights": [round(w, 12) for w in self.weights], "intercept": round(self.intercept, 12),
                "threshold": self.threshold}


def fit(items: Sequence[Mapping[str, Any]], *, C: float = 1.0, folds: int = 5,
        max_screen_warn: float = MAX_SCREEN_WARN, features: Sequence[Sequence[float]] | None = None) -> EngagementModel:
    """Train on crisis-context items (gold ``warn`` = not engaged); deterministic.

    Parameters
    ----------
    items : sequence of dict
        Items with ``counselor``, ``client_prev`` and ``appropriateness`` (:func:`training_items`).
    C : float, default=1.0
        Inverse L2 strength of the logistic regression.
    folds : int, default=5
        Stratified k-fold for the out-of-fold probabilities that pick the threshold.
    max_screen_warn : float, default=MAX_SCREEN_WARN
        Largest out-of-fold share of engaged turns the model may mark ``warn`` at the threshold.
    features : sequence of sequence of float, optional
        Precomputed :func:`engagement_features` rows (the bench reuses them across folds).

    Returns
    -------
    EngagementModel
    """
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    from vignette_lab.engines.crisis_model import oof_threshold

    # The model only judges turns the rules leave open (:func:`disengaged`: hard evidence → warn, engagement →
    # pos), so it is trained and its threshold tuned on those turns alone, not on turns it never judges.
    keep = [i for i, it in enumerate(items) if not _decided(it["counselor"], it.get("client_prev", ""))]
    items = [items[i] for i in keep]
    if features is not None:
        features = [features[i] for i in keep]
    y = np.asarray([it["appropriateness"] == "warn" for it in items], dtype=int)
    if len(items) < 20 or y.sum() < folds or (1 - y).sum() < folds:
        raise ValueError(f"crisis_engagement.fit needs at least 20 items with {folds} of each class; "
                         f"got {len(items)}, {int(y.sum())} warn")
    if not 0 <= max_screen_warn < 1:
        raise ValueError(f"max_screen_warn must be in [0, 1); got {max_screen_warn!r}")
    x = np.asarray(features if features is not None else
                   [engagement_features(it["counselor"], client_prev=it.get("client_prev", "")) for it in items],
                   dtype=np.float64)

    def train(xx: Any, yy: Any) -> Any:
        return LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(xx, yy)

    oof = np.zeros(len(items))
    for tr, te in StratifiedKFold(n_splits=folds, shuffle=True, random_state=7).split(x, y):
        oof[te] = train(x[tr], y[tr]).predict_proba(x[te])[:, 1]
    threshold = oof_threshold(oof[y == 0], _THRESHOLDS, budget=max_screen_warn)
    clf = train(x, y)
    return EngagementModel(clf.coef_[0].tolist(), float(clf.intercept_[0]), threshold)


def _decided(utterance: str, client_prev: str) -> bool:
    """True when the rules decide the turn without the model (hard evidence, or engagement)."""
    return hard_evidence(utterance, client_prev=client_prev) or engages(utterance, client_prev=client_prev)


def fingerprint(items: Sequence[Mapping[str, Any]]) -> str:
    """Hash of the training items, the version, scikit-learn and the feature code (this module, the rules and
    the shared threshold search)."""
    import sklearn

    from vignette_lab.engines import crisis_cues, crisis_model, utterance_tagger

    h = hashlib.sha256(f"{ENGAGEMENT_VERSION}|{sklearn.__version__}|{MAX_SCREEN_WARN}|".encode())
    for mod in (__file__, utterance_tagger.__file__, crisis_cues.__file__, crisis_model.__file__):
        h.update(Path(mod).read_bytes())
    for it in items:
        h.update(json.dumps([it["counselor"], it.get("client_prev", ""), it["appropriateness"]],
                            ensure_ascii=False).encode())
    return h.hexdigest()[:16]


def load(doc: Mapping[str, Any]) -> EngagementModel:
    """An :class:`EngagementModel` from its export document."""
    if list(doc.get("features") or ()) != list(FEATURES):
        raise ValueError("crisis engagement export: feature names differ from this code's FEATURES")
    return EngagementModel(doc["weights"], doc["intercept"], doc["threshold"],
                           meta={k: doc[k] for k in ("version", "training_hash", "n_train", "sklearn") if k in doc})


_ACTIVE: list[Any] = []


@lru_cache(maxsize=1)
def default_engagement_model() -> EngagementModel | None:
    """The shipped model, or None (the rules decide) when the file is missing or of another version."""
    try:
        doc = json.loads(ENGAGEMENT_EXPORT.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = None
    if isinstance(doc, dict) and doc.get("version") == ENGAGEMENT_VERSION:
        try:
            return load(doc)
        except (KeyError, ValueError) as exc:
            log.warning("shipped crisis engagement model unreadable (%s); the rules decide", exc)
            return None
    log.warning("shipped crisis engagement model %s missing or not version %s; the rules decide "
                "(run bench/build_evaluator_models.py)", ENGAGEMENT_EXPORT.name, ENGAGEMENT_VERSION)
    return None


def use_model(model: EngagementModel | None) -> None:
    """Judge with ``model`` from now on (None = the shipped one); clears the judge memo (bench LOSO)."""
    from vignette_lab.engines import utterance_tagger as ut

    _ACTIVE[:] = [] if model is None else [model]
    with ut._JUDGE_LOCK:
        ut._JUDGE_CACHE.clear()


def active_model() -> EngagementModel | None:
    """The model in use: one set by :func:`use_model`, else the shipped one."""
    return _ACTIVE[0] if _ACTIVE else default_engagement_model()


def p_disengaged(utterance: str, *, client_prev: str = "", model: EngagementModel | None = None) -> float | None:
    """The model's probability that the turn does not engage the cue (None without a model)."""
    m = model or active_model()
    if m is None:
        return None
    return m.proba(engagement_features(utterance, client_prev=client_prev))


def disengaged(utterance: str, *, client_prev: str = "", model: EngagementModel | None = None) -> bool | None:
    """True when a turn after a crisis cue fails it (``warn``/``safety``); None without a model.

    Positive evidence only: :func:`hard_evidence`, or the model's probability of non-engagement at
    or above its threshold.
    """
    m = model or active_model()
    if m is None:
        return None
    if hard_evidence(utterance, client_prev=client_prev):
        return True
    if engages(utterance, client_prev=client_prev):
        return False
    return m.proba(engagement_features(utterance, client_prev=client_prev)) >= m.threshold


def engages(utterance: str, *, client_prev: str = "") -> bool:
    """True when a turn asks about the ideation itself or refers the client to a help line or service.

    Read from lemmas, in any register or form (question, invitation, instruction): such a turn is never
    ``warn`` unless :func:`hard_evidence` holds. On the dev splits' crisis items (1,413, dev … dev_r9) one gold
    ``warn`` turn has this shape without hard evidence (dosage advice and laughter after a disclosed pill
    stock, which names the means and a hospital); 498 gold ``pos`` turns do.
    """
    _, own_topic, ideation, referral = _sentence_signals(utterance, client_prev)
    return ideation or referral or _engagement_shape(utterance, client_prev, own_topic=own_topic)
