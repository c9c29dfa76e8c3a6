"""Scripted self-play counselor: a technique drawn from a profile, a line that reads the client.

``datasets/counselor_profiles.json`` gives ``profiles[name].weights[stage][technique]``;
``datasets/counselor_banks.json`` gives ``utterances[technique][stage] -> [template]`` with
``{topic}`` / ``{feeling}`` slots, plus (issue 12):

* ``contingent[technique] -> [template]`` with ``{noun}``/``{noun2}`` (argument nouns of the
  client's last line, :func:`argument_nouns`), ``{feeling}``/``{adj}`` (a feeling the client
  voiced): reflections, restatements and questions that follow what the client actually said;
* ``opening[technique]`` (the first line: a greeting) and ``silent[technique]`` (after a turn
  that is only a stage direction);
* ``crisis.safety_check`` / ``crisis.follow_up``: what a skilled counselor says after a
  suicide/self-harm cue and for the next turns of the assessment (a novice may miss it:
  ``crisis_missed`` in the metadata);
* ``closing``: the last turn of a session, naming what the client talked about.

A fixed ``utterances`` line is said only where it fits what the client said (see
:func:`counselor_utterance`). The drawn technique is returned as the *intended* technique —
ground truth for checking how well annotators (AI or human) recover it. Lines that refer to
voice, face or posture (a text chat has none) are never said, and no line or template is said
twice in a session (``metadata["prior_lines"]`` lists the session's earlier counselor lines).
Checked by ``bench/check_selfplay_counselor.py``.
"""

from __future__ import annotations

import functools
import random
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from vignette_lab.core import hangul
from vignette_lab.engines import crisis_cues
from vignette_lab.engines.base import GenerateRequest
from vignette_lab.engines.scripted_evaluator import feeling_word
from vignette_lab.errors import EngineError, InputError
from vignette_lab.core.taxonomy import _read_json, datasets_dir

if TYPE_CHECKING:
    from vignette_lab.engines.scripted import ScriptedEngine

__all__ = ["CRISIS_CUE", "MODALITY", "PRESUPPOSES_TALK", "PROFILE_NAMES", "REPORTS_CLIENT", "argument_nouns",
           "counselor_utterance", "load_contingent", "load_counselor_data", "profile_weights", "topics_for"]

PROFILE_NAMES = ("skilled", "novice", "advice-jumper", "improving")
_STAGES = ("라포", "탐색", "개입", "정리")
# A text chat has no voice, face or posture: such lines are modality errors.
MODALITY = re.compile(r"(목소리|표정|눈빛|눈물|울먹|자세|몸짓|한숨|떨리|떨려|고개를|얼굴|어깨|미소|보여서|보이네|보여요|"
                      r"눈을\s*피|웃으시)")
# Suicide/self-harm cues in a client line are read by the evaluator's one reader
# (:mod:`vignette_lab.engines.crisis_cues`); its explicit-wording class is re-exported here.
CRISIS_CUE = crisis_cues.EXPLICIT_CUE
# Skilled counselors always answer a crisis cue; how often the others do (recorded either way).
_ASSESSMENT_TURNS = 3  # safety check + follow-ups in a row after one cue
_CRISIS_FOLLOW = {"skilled": 1.0, "improving": 0.7, "novice": 0.35, "advice-jumper": 0.2}
# The technique an answer to a client's question carries, by the question's kind.
_ANSWER_TECHNIQUE = {"confidential": "information", "next": "information", "length": "information",
                     "purpose": "information", "defer": "validation", "reassure": "validation",
                     "leave": "reflection_feelings", "why_asking": "immediacy", "advice": "open_question",
                     "side": "immediacy", "own_topic": "validation", "start": "information",
                     "worry": "reflection_feelings", "told_before": "immediacy"}
# How often a profile answers a question the client put to the counselor (see :func:`client_question`).
_ANSWERS_CLIENT = {"skilled": 1.0, "improving": 0.8, "novice": 0.5, "advice-jumper": 0.4}
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


@functools.lru_cache(maxsize=4)
def load_contingent(path: str | None = None) -> dict[str, Any]:
    """``contingent``, ``crisis``, ``closing``, ``opening``, ``silent`` and ``answers`` sections of
    ``counselor_banks.json`` (each may be empty)."""
    if path is None:

        path = str(Path(datasets_dir()) / "counselor_banks.json")
    data = _read(Path(path))
    out: dict[str, Any] = {"contingent": data.get("contingent") or {}, "crisis": data.get("crisis") or {},
                           "closing": data.get("closing") or [], "opening": data.get("opening") or {},
                           "silent": data.get("silent") or {}, "answers": data.get("answers") or {}}
    for key in ("contingent", "crisis", "opening", "silent", "answers"):
        if not isinstance(out[key], dict) or not all(
                isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v) for v in out[key].values()):
            raise InputError("expected {name: [template]}", source=path, field=key)
    return out


# --- reading the client's lines (kiwipiepy) ------------------------------------------------

# Nouns that place or measure rather than name a subject: time and deixis ("새벽", "이번"),
# quantity and degree ("반반", "대부분"), sentence adverbs tagged as nouns ("사실", "진짜").
# Copied into "X 이야기" they read as an odd echo, so they are never slot words.
_NON_TOPIC_NOUNS = frozenset("""
이번 지난번 저번 다음 요즘 요새 오늘 어제 내일 모레 새벽 아침 점심 저녁 밤 낮 주말 평일 맨날 매일 처음 나중 전 후 잠깐
순간 때 동안 지금 예전 옛날 방금 아까 이따 마지막 한때 평소 가끔 매번 항상 언제 반반 절반 대부분 전부 다 거의 조금 약간
정도 사실 진짜 완전 그냥 별로 자체 하나 둘 셋 번 쪽 편 중 위 아래 앞 뒤 안 밖 이상 이하 사이 뭐 누구 무엇 어디 자기 저 나
혼자 같이 함께 서로 모두 다들 스스로 직접 지난주 지난달 작년 올해 내년 이번주 다음주 어젯밤 오랜만 요번 그동안 평생 나머지
아무것 아무 양쪽 양 각자 전체 여러 모든 온갖 이것저것 이거 그거 저거
""".split())
# Light and support verbs: a noun right before one (particle dropped) is part of the predicate —
# "기대 안 해요", "이해받는", "유난 떠는", "소리 지르고", "상관없어요", "호구 될 것 같아요".
_LIGHT_VERBS = frozenset("하 되 받 당하 시키 드리 떨 부리 피우 지르 나 내 같 치 쓰".split())
# Nouns that make one adjective with 없다/있다: "상관없어요" says nothing about a 상관.
_WITH_EXISTENTIAL = frozenset("상관 의미 필요 소용 재미 관심 자신 쓸모 어이 문제 별수 맛 멋 힘 수 별일 별거 상관".split())
_COUNT_SUFFIXES = frozenset("씩 쯤 경 째 여 간 내".split())  # "몇 시간씩": a count, not a noun "시간씩"
# Counseling function words: a line built from them claims nothing about what the client said.
_FUNCTION_WORDS = frozenset("""
이야기 얘기 말 말씀 마음 생각 느낌 기분 부분 요즘 오늘 지금 하루 시간 자리 여기 거기 상담 처음 사람 일 것 거 때 그때
이번 주 다음 번 가지 하나 방법 조금 좀 정도 순간 쪽 동안 그동안 정리 요약 이후 이유 무엇 뭐 어떤 누구 제일 가장 먼저
계속 다시 더 많이 정말 진짜 서로 지난번 전 후 앞 모습 장면 영향 상황 문제 뿐 점 수 때문 마지막 상담실 자신 나 저 우리
마무리 기억 도움 선생님 경우 편 만큼 대답 질문 자체 둘 하 되 있 없 같 보 주 오 가 들 알 싶 말하 이야기하 얘기하 느끼
들리 나오 꺼내 모르 그렇 어떻 이렇 괜찮 듣 지내 크 작 많 적 길 짧 어렵 쉽 힘들 무겁 가볍 편하 불편하 고맙 감사하 좋
싫 나 드 생기 떠오르 달라지 걸리 쓰이 느껴지 들려주 나누 함께하 정하 만나 이어지 버티 애쓰 견디 지치 쌓이 담기 연결되
정리하 요약하 보이 않 지 다르 자리하 계시 계 생각하 이어 같이 따로 그러
""".split())
_FEELING_STEMS = ("답답", "서운", "불안", "무기력", "외롭", "외로", "속상", "억울", "슬프", "슬픔", "부담", "화", "걱정",
                  "막막", "두렵", "두려", "미안", "긴장", "후련", "아쉽", "뭉클", "겁", "실망", "상처", "무섭", "우울",
                  "짜증", "창피", "지침", "죄책", "수치", "분노", "절망", "허무", "공허")
# A noun followed by one of these is a predicate nominal ("반반이에요"), part of a predicate
# ("걱정돼요"), a count ("새벽 네 시") or a fragment: not something to echo as "X 이야기".
_NOT_ARGUMENT_NEXT = ("VCP", "VCN", "XSV", "XSA", "NR", "SN", "NNB", "SF", "SE", "JKC", "")
# Lines that presuppose the client has said something.
PRESUPPOSES_TALK = re.compile(
    r"(들어\s*보니|방금|아까|그\s*일|그때|그\s*상황|그런\s*생각|그\s*생각|그\s*말|그\s*이야기|그\s*얘기|말해\s*줘서|"
    r"꺼내\s*줘서|솔직하게|이야기를\s*해|얘기를\s*해|다는\s*거|다고\s*했|라고\s*했|했는데|이야기가\s*나|그렇게\s*느끼|"
    r"그렇게\s*잘|하는\s*이야기|하면서도|했지만|이야기를\s*들으니|그\s*이야기)")
# Lines that report what the client said ("…다는 거네요", "…라고 했는데").
REPORTS_CLIENT = re.compile(r"(다고\s*했|라고\s*했|다는\s*거|다는\s*말|다는\s*얘기|다는\s*이야기|이야기를\s*했|얘기를\s*했|"
                            r"말했|한\s*말|했는데|했지만|하면서도)")
_ANAPHORIC_CUES = ("그 생각",)
# What a line says the client said: "괜찮다고 했는데", "상관없다고 하면서도", "끝이라고 했지만".
_QUOTED = re.compile(r"([가-힣]+?)(?:다|이라|라)고\s*(?:했|하면서|하지만|하는데|하네|하잖|말했|하셨)")
_CLAIMING = frozenset({"restatement", "challenge", "interpretation"})
_FILLER = re.compile(r"^(음|네|그렇군요|그래요|아)[,.…\s]+")


def _spoken(text: str) -> str:
    """A client line without its stage directions "(…)"."""
    return re.sub(r"\([^)]*\)", " ", text or "").strip()


@functools.lru_cache(maxsize=4096)
def _morphs(text: str) -> tuple[tuple[str, str], ...]:
    from vignette_lab.core.morph import kiwi

    analyser = kiwi() if text else None
    if analyser is None:
        return ()
    merged: list[tuple[str, str]] = []
    for t in analyser.tokenize(text):  # "성" + "적" (noun + suffix) → "성적"
        if t.tag == "XSN" and merged and merged[-1][1] in ("NNG", "NNP") and t.form not in _COUNT_SUFFIXES:
            merged[-1] = (merged[-1][0] + t.form, merged[-1][1])
        else:
            merged.append((t.form, t.tag))
    return tuple(merged)


@functools.lru_cache(maxsize=4096)
def _lemmas(text: str) -> frozenset[str]:
    """Nouns and predicate stems of a line (noun + 하다/되다 joined: "걱정되")."""
    out: set[str] = set()
    ms = _morphs(text)
    for i, (form, tag) in enumerate(ms):
        if tag in ("NNG", "NNP", "XR", "SL"):
            out.add(form)
        elif tag.startswith(("VV", "VA")):
            out.add(form)
        elif tag in ("XSA", "XSV") and i and ms[i - 1][1] in ("NNG", "XR"):
            out.add(ms[i - 1][0] + form)
    return frozenset(out)


@functools.lru_cache(maxsize=4096)
def argument_nouns(text: str) -> tuple[str, ...]:
    """Content nouns of a client line that read naturally as "X 이야기" (kiwipiepy).

    A noun counts when it is an argument or the head of a noun phrase — followed by a case or
    topic particle, another noun, or a predicate after a dropped particle — not a predicate
    nominal ("반반이에요"), part of a verb ("걱정돼요"), a count ("새벽 네 시쯤") or a time,
    quantity or deixis noun. Stage directions are dropped. Nouns of the last sentence come
    first (the client's latest point), then earlier ones, each once.

    Examples
    --------
    >>> argument_nouns("음… 엄마는 맨날 늦게 들어와요. 들어오면 성적 얘기부터 해요.")  # doctest: +SKIP
    ('성적', '엄마')
    """
    spoken = _spoken(text)
    sentences = [x for x in re.split(r"(?<=[.?!…])\s+", spoken) if x.strip()]
    out: list[str] = []
    for sentence in reversed(sentences):
        ms = _morphs(sentence)
        i = 0
        while i < len(ms):
            if ms[i][1] not in ("NNG", "NNP"):
                i += 1
                continue
            j = i
            while j + 1 < len(ms) and ms[j + 1][1] in ("NNG", "NNP"):
                j += 1
            run = [form for form, _ in ms[i:j + 1]]
            nxt = ms[j + 1] if j + 1 < len(ms) else ("", "")
            i = j + 1
            words = [w for w in run if w not in _FUNCTION_WORDS and w not in _NON_TOPIC_NOUNS
                     and "[" not in w and not any(w.startswith(f) for f in _FEELING_STEMS)]
            if not words or (len("".join(words)) < 2 and not nxt[1].startswith(("JKS", "JKO", "JKB", "JX"))):
                continue  # a one-syllable noun only with its particle: "잠을", "애한테"
            if run[-1] == words[-1]:  # the run's head is a content noun: what follows decides
                if (nxt[1] in _NOT_ARGUMENT_NEXT and nxt[0] != "때문") or nxt[1].startswith("S"):
                    continue
                after = ms[i + 1] if i + 1 < len(ms) else ("", "")
                if words[-1] in _WITH_EXISTENTIAL and ("없" in (nxt[0], after[0]) or "있" in (nxt[0], after[0])):
                    continue  # "상관없어요", "재미가 없어요": one adjective
                if nxt[1].startswith("J") and after[1] == "VCN":
                    continue  # "나쁜 뜻은 아니고요": the complement of 아니다
                if nxt[1].startswith(("VV", "VA", "VX")) and nxt[0] in _LIGHT_VERBS:
                    continue  # "바보 같아요", "눈물 나요": the noun is part of the predicate
                if nxt[1] == "MAG" and nxt[0] in ("안", "못", "잘", "좀") and after[0] in _LIGHT_VERBS:
                    continue  # "기대 안 해요"
            phrase = " ".join(words)  # "야간 근무", "시험 기간": one phrase; "이번" / "얘기" left out
            if "".join(words) in sentence:
                phrase = "".join(words)  # written as one word: "담임쌤"
            if phrase not in out:
                out.append(phrase)
    return tuple(out)


def _claim_words(line: str) -> frozenset[str]:
    """What a counselor line asserts or asks about: its lemmas minus function and feeling words."""
    return frozenset(w for w in _lemmas(_spoken(line)) if w not in _FUNCTION_WORDS
                     and not any(w.startswith(f) for f in _FEELING_STEMS))


def _grounded(word: str, heard: frozenset[str]) -> bool:
    return word in heard or any(len(w) >= 2 and len(word) >= 2 and (word in w or w in word) for w in heard)


def _norm(line: str) -> str:
    t = line.strip()
    while _FILLER.match(t):
        t = _FILLER.sub("", t, count=1)
    return re.sub(r"[\s.,!?…~'\"]+", "", t)


@functools.lru_cache(maxsize=1024)
def _template_regex(template: str) -> re.Pattern[str]:
    pattern = re.sub(r"\\\{\w+\\\}", "(.+?)", re.escape(template))
    return re.compile("^" + pattern + "$")


#: A question the client puts to the counselor, by kind, read on the last sentence of the client's line that ends in
#: "?" (the order decides: "이런 얘기 해도 괜찮은 거죠?" asks for reassurance, "다음 주에 또 와도 돼요?" about the next
#: session). Each kind has its answers in ``counselor_banks.json`` ``answers``.
_CLIENT_ASKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("confidential", re.compile(r"(전해져|전해지|전달되|전달돼|알려지|알려져|말\s*안\s*하는|말하는\s*거\s*아니|비밀|"
                                r"(한테|한텐|에게|께|에)\s*(다\s*)?가요)")),
    ("next", re.compile(r"(다음\s*주에?도|다음\s*주에\s*또|(또|더)\s*(와도|오면)|다음에\s*또)")),
    ("own_topic", re.compile(r"((제|내|공부|게임|원서|학교|애|회사)\s*(얘기|이야기)(를|로)?\s*(해도|하면|돌아가도))")),
    ("defer", re.compile(r"(나중에\s*(해도|얘기해도|이야기해도|말해도|말씀드려도|하면)|다른\s*얘기\s*하면|다음에\s*(얘기|말)|"
                         r"꼭\s*말해야|안\s*해도\s*돼)")),
    ("leave", re.compile(r"(가도\s*(돼|되)|앉아\s*있다\s*가|이제\s*끝이에요)")),
    ("length", re.compile(r"(오래\s*있어야|언제까지|몇\s*번\s*(와야|정도|더)|언제\s*끝나|끝나는\s*거죠|얼마나\s*(와야|걸려|해야)|"
                          r"와야\s*(돼|되))")),
    ("start", re.compile(r"(뭐부터|뭐\s*하면\s*돼|뭘\s*(말|얘기)하면|어디서부터)")),
    ("why_asking", re.compile(r"(왜\s*(물어|궁금|알아야)|(그건|그게|는)\s*왜요|왜\s*저한테|그걸\s*왜)")),
    ("purpose", re.compile(r"(뭐가\s*달라|나아질까|좋아질\s*수|덜\s*\S+\s*(될까|까요)|도움이\s*(돼|될)|왜\s*있어야|"
                           r"정답을\s*알려|결정할\s*수\s*있을까)")),
    ("reassure", re.compile(r"(이상한\s*(건|거)\s*아니|이기적인\s*(거|건)|욕심이\s*많은|꾀병|괜찮겠죠|괜찮은\s*거죠|"
                            r"와도\s*되는\s*거죠|제가\s*문제)")),
    ("worry", re.compile(r"(어떡하죠|어떡해요|어쩌죠|어떡하지)")),
    ("advice", re.compile(r"(어떻게\s*해야|뭘\s*해야|방법\s*(있|없)|같은\s*건\s*없)")),
    ("side", re.compile(r"편이에요|편이야|편이죠|편인가요")),
)


#: The client says it already answered ("아까도 말씀드렸는데, …", "음… 아까랑 같은 얘긴데"): the counselor asked again.
_TOLD_BEFORE = re.compile(r"^[\s….]*(음|어|아)?[\s…,.]*아까(도)?\s*(말씀드렸|말했|얘기했|이야기했|랑\s*같은|한\s*(말|얘기))")


def client_question(line: str) -> str | None:
    """The kind of question the client's line puts to the counselor, or None.

    Read on the last sentence that ends in "?" (stage directions dropped): confidentiality ("여기서 한 얘기 엄마한테
    가요?"), the next session, putting a topic off, leaving, how long counseling takes, why the counselor asks, what
    counseling changes, reassurance about themselves ("제가 이상한 건 아니죠?"), advice, whose side the counselor is on;
    and ``told_before`` when the client says it already answered ("아까도 말씀드렸는데, …"): the counselor owns the
    repetition instead of asking a third time.

    Examples
    --------
    >>> client_question("음… 여기서 얘기하면 엄마한테 다 전해져요?")
    'confidential'
    >>> client_question("그 얘기는 좀 나중에 해도 될까요?")
    'defer'
    >>> client_question("잠을 잘 못 자요.") is None
    True
    """
    spoken = _spoken(line)
    if _TOLD_BEFORE.search(spoken):
        return "told_before"
    questions = [x for x in re.findall(r"[^.?!…]*\?", spoken) if x.strip()]
    if not questions:
        return None
    last = questions[-1]
    return next((kind for kind, rx in _CLIENT_ASKS if rx.search(last)), None)


#: Lemmas of a greeting and nothing else ("네, 안녕하세요.", "안녕하세요 쌤"): the client has not talked yet.
_GREETING_LEMMAS = frozenset({"안녕", "안녕하", "반갑", "반가", "쌤", "선생님", "처음", "뵙", "네", "예", "응"})


class _Reading:
    """What the counselor heard: the client's lines (as the request shows them), read once."""

    def __init__(self, client_lines: list[str]) -> None:
        self.lines = client_lines
        self.last = client_lines[-1] if client_lines else ""
        self.spoken = _spoken(self.last)
        self.silent = not re.search(r"[가-힣A-Za-z0-9]", self.spoken)
        said = [_spoken(x) for x in client_lines]
        self.heard: frozenset[str] = frozenset().union(*(_lemmas(x) for x in said if x)) if said else frozenset()
        self.recent: frozenset[str] = frozenset().union(*(_lemmas(x) for x in said[-2:] if x)) if said else frozenset()
        self.nouns = argument_nouns(self.last) if not self.silent else ()
        earlier: list[str] = []
        for x in reversed(client_lines[:-1]):
            earlier += [w for w in argument_nouns(x) if w not in earlier and w not in self.nouns]
        self.session_nouns = self.nouns + tuple(earlier)
        # A feeling only when the client voiced one ("지쳤어요" → "지친"), never the default guess.
        self.adj = feeling_word(self.spoken, form="adnominal") if self.spoken else ""
        self.feeling_heard = bool(self.adj) and self.adj != feeling_word("", form="adnominal")
        noun = feeling_word(self.spoken, form="noun")
        # the noun form only when it is the client's own word ("불안" for "불안해요"), else "<adj> 마음"
        self.feeling = noun if noun[:2] in self.spoken else f"{self.adj} 마음"

    def fits(self, line: str, technique: str) -> bool:
        """May a bank line (slots filled) be said after what the client said?"""
        # nothing said yet, a stage direction, or only a greeting ("네, 안녕하세요."): no "이야기를 들어 보니"
        if not self.lines or self.silent or not (self.heard - _GREETING_LEMMAS):
            if PRESUPPOSES_TALK.search(line):
                return False
        for quoted in _QUOTED.findall(line):  # "괜찮다고 했지만": the client must have said it
            stems = _lemmas(quoted) - {"하", "되", "있"}
            if stems and not all(_grounded(w, self.heard) for w in stems):
                return False
        # the claim words only where a rule below reads them: each is a kiwipiepy analysis of a
        # filled line (≈ 1 ms), and about a third of the lines checked in self-play need none
        asks = line.rstrip().endswith("?") and bool(self.lines) and not self.silent
        claiming = technique in _CLAIMING or bool(REPORTS_CLIENT.search(line))
        if not (claiming or asks):
            return True
        claims = _claim_words(line)
        if claiming:
            if not self.lines or any(not _grounded(w, self.heard) for w in claims):
                return False
            if technique == "restatement" and claims and not any(_grounded(w, self.recent) for w in claims):
                return False
            if technique == "restatement" and not claims and (self.nouns or self.feeling_heard):
                return False  # a generic summary only for a reply without content ("몰라요")
        if asks and claims:
            return any(_grounded(w, self.recent) for w in claims)
        return True


def counselor_utterance(engine: ScriptedEngine, request: GenerateRequest,
                        rng: random.Random) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A line that answers the client's last utterance, for a technique drawn by profile weights.

    The client's lines are read with kiwipiepy: slot words are argument nouns of the last line
    (:func:`argument_nouns`); a fixed bank line is said only when it fits — no talk presupposed
    before the client spoke or after a silent turn, a restatement or a report of what the client
    said only with words the client used (the last two lines for a restatement), a question with
    content words only on the client's recent topic, a ``{topic}`` slot only with a topic the
    client named. No line and no template is said twice in a session; no voice, face or posture
    unless the client's own line shows it.

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
    client_lines = [m.content for m in request.messages if m.role == "user" and not m.content.startswith("(상담이")]
    heard = _Reading(client_lines)
    topics = [t for t in topics_for(view) if any(_grounded(w, heard.heard) for w in _claim_words(t) or {t})]
    topic = rng.choice(topics) if topics else ""
    feeling = heard.feeling
    adj = heard.adj if heard.feeling_heard else "힘든"
    said_lines = [str(x) for x in meta.get("prior_lines") or ()] + [m.content for m in request.messages
                                                                   if m.role == "assistant"]
    said = {_norm(x) for x in said_lines}
    turn, turns = int(meta.get("turn_seq") or 1), int(meta.get("turns") or 0)

    def template_used(template: str) -> bool:
        if "{" not in template:
            return False
        rx = _template_regex(template)
        return any(rx.match(x) for x in said_lines)

    def ok(line: str, template: str = "") -> bool:
        if not line or _norm(line) in said or (template and template_used(template)):
            return False
        m = MODALITY.search(line)
        return not m or m.group(1) in heard.last  # a stage direction the client wrote is in the chat

    def fill(template: str, nouns: tuple[str, ...] | None = None) -> str | None:
        nouns = heard.nouns if nouns is None else nouns
        if "{noun" in template:
            if not nouns or ("{noun2}" in template and len(nouns) < 2):
                return None
            if "{noun2}" in template:
                template = template.replace("{noun2}", nouns[1])
            template = template.replace("{noun}", nouns[0])
        if "{feeling}" in template:
            if not heard.feeling_heard or f"{{feeling}} 같은" in template and feeling.endswith("마음"):
                return None
            template = template.replace("{feeling}이", feeling + hangul.subject_particle(feeling))
        if "{topic}" in template:
            if not topic:
                return None
            template = template.replace("{topic}", topic)
        return template.replace("{feeling}", feeling).replace("{adj}", adj)

    def result(text: str, technique: str, **info: Any) -> tuple[str, dict[str, Any], dict[str, Any]]:
        base = {"intended_technique": technique, "counselor_profile": name, "stage": stage,
                "crisis_cue": False, "crisis_response": None, "crisis_missed": False}
        base.update(info)
        return text, {"intended_technique": technique}, base

    # 1. A crisis cue: a skilled counselor always checks safety; others may miss it (recorded).
    #    After the check was asked, the answer gets a risk follow-up.
    safety_lines = tuple(extra["crisis"].get("safety_check", ()))
    follow_lines = tuple(extra["crisis"].get("follow_up", ()))
    asked_before = any(line in said_lines for line in safety_lines)
    cue = not heard.silent and _crisis_cue(heard.spoken, earlier=client_lines[:-1], asked=asked_before)
    # A risk assessment goes on for a few turns once started: the client's answer gets a follow-up.
    run = 0
    for line in reversed(said_lines):
        if line not in safety_lines and line not in follow_lines:
            break
        run += 1
    answering_check = 0 < run < _ASSESSMENT_TURNS and not cue
    if cue or answering_check:
        follows = rng.random() < _CRISIS_FOLLOW.get(name, 0.5)
        if follows:
            kind = "follow_up" if asked_before else "safety_check"
            pool = [x for x in (follow_lines if kind == "follow_up" else safety_lines) if ok(x)] or \
                   [x for x in follow_lines + safety_lines if ok(x)]
            if pool:
                text = rng.choice(pool)
                technique = "closed_question" if "?" in text else "information"
                return result(text, technique, crisis_cue=cue, crisis_response=kind)
    missed = cue  # a cue not answered above is a miss, whatever is said next

    # 2. The last turn of a session closes it, naming what the client talked about.
    if turns and turn >= turns and extra["closing"]:
        pool = [t for t in (fill(x, heard.session_nouns[:2]) for x in extra["closing"]) if t and ok(t)]
        if pool:
            return result(rng.choice(pool), "restatement", crisis_cue=cue, crisis_missed=missed)

    # 3. A question the client put to the counselor ("여기서 한 얘기 엄마한테 가요?") gets an answer first.
    asked = client_question(heard.last) if client_lines and not heard.silent else None
    answers = [x for x in (extra.get("answers") or {}).get(asked or "", ()) if ok(x)]
    if answers and rng.random() < _ANSWERS_CLIENT.get(name, 0.5):
        return result(rng.choice(answers), _ANSWER_TECHNIQUE.get(str(asked), "information"), crisis_cue=cue,
                      crisis_missed=missed, answered=asked)

    def lines_for(tech: str) -> tuple[list[str], list[str]]:
        """(every line this technique may say now, the ones that pick up the client's words)."""
        own: list[str] = []
        if not client_lines:
            own += [x for x in extra.get("opening", {}).get(tech, ()) if ok(x)]
        elif heard.silent:
            own += [x for x in extra.get("silent", {}).get(tech, ()) if ok(x)]
        else:
            own += [t for x in extra["contingent"].get(tech, ()) if (t := fill(x)) and ok(t, x) and heard.fits(t, tech)]
        if not client_lines and extra.get("opening"):
            return own, own  # the first line of a session is a greeting
        by_stage = banks.get(tech) or {}
        templates = list(by_stage.get(stage) or [line for lines in by_stage.values() for line in lines])
        fixed = [t for x in templates if (t := fill(x)) and ok(t, x) and heard.fits(t, tech)]
        return own + [x for x in fixed if x not in own], own

    techniques = [t for t in weights if banks.get(t) or extra["contingent"].get(t)]
    if not techniques:
        raise EngineError(f"no counselor bank utterances for the techniques of profile {name!r}", code="bad_request")
    # Draw a technique by weight among those with a line that fits now: drawing, then dropping a
    # technique with nothing to say, gives that distribution while reading only the drawn banks.
    remaining = list(techniques)
    while remaining:
        technique = rng.choices(remaining, weights=[weights[t] for t in remaining])[0]
        fresh, own = lines_for(technique)
        if fresh:
            text = rng.choice(own) if own and rng.random() < 0.65 else rng.choice(fresh)
            return result(text, technique, crisis_cue=cue, crisis_missed=missed)
        remaining.remove(technique)
    # Every fitting line of this stage was said: a fitting line of another stage, then any unsaid one.
    for strict in (True, False):
        spare: list[tuple[str, str]] = [
            (t, line) for t in techniques for lines in (banks.get(t) or {}).values() for x in lines
            if (line := fill(x) or "") and ok(line, x) and (not strict or heard.fits(line, t))]
        if spare:
            technique, text = rng.choice(spare)
            return result(text, technique, crisis_cue=cue, crisis_missed=missed)
    technique = rng.choices(techniques, weights=[weights[t] for t in techniques])[0]
    return result("조금 더 이야기해 줄래요?", technique, crisis_cue=cue, crisis_missed=missed)


def _crisis_cue(text: str, *, earlier: list[str], asked: bool) -> bool:
    """A suicide/self-harm cue in the client's line, read by the evaluator's reader
    (:func:`~vignette_lab.engines.crisis_cues.crisis_cue_reason`, one reader for both). Its
    anaphoric class ("그런 생각이 들 때가 있어요") counts only when the thought it points back to
    was a crisis cue — an explicit cue in the client's earlier lines, or a safety check asked."""
    if not text:
        return False
    reason = crisis_cues.crisis_cue_reason(text)
    if reason is None:
        return False
    if reason in _ANAPHORIC_CUES:
        return asked or any(crisis_cues.crisis_cue_reason(_spoken(x)) not in (None, *_ANAPHORIC_CUES) for x in earlier)
    return True
