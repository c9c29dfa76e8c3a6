"""Guardrails (seed 001 §2.5, §9): PII masking, crisis classification, output safety.

Three pure boundaries:

1. :func:`mask_pii` / :func:`gate_text` — the hard gate, implemented in
   :mod:`vignette_lab.core.pii` and re-exported here. Text is masked before it is stored or
   sent to any engine; :func:`pii_backend` says which backend is active and why.
2. :func:`classify_crisis` — a persona *playing* suicidal ideation is normal simulation
   (``persona_play``); a trainee's own first-person crisis cue is escalated
   (``learner_real``).
3. :func:`sanitize_client_reply` — blocks suicide/self-harm *means or method* content
   and enforces the ideation cap (3) of the simulation.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Literal

from vignette_lab.core import _compiled_patterns as _patterns

__all__ = [
    "IDEATION_STAGE_CAP",
    "SAFE_FALLBACK_REPLY",
    "CrisisResult",
    "MaskResult",
    "OutputGuardResult",
    "PiiEntity",
    "clamp_ideation",
    "classify_crisis",
    "detect_ccd_meta_disclosure",
    "detect_ccd_meta_rules",
    "detect_means_content",
    "gate_json",
    "gate_text",
    "mask_pii",
    "mask_role_identities",
    "pii_backend",
    "sanitize_client_reply",
]

log = logging.getLogger(__name__)

IDEATION_STAGE_CAP = 3
SAFE_FALLBACK_REPLY = "……(말을 잇지 못하고 잠시 침묵한다)"

# --------------------------------------------------------------------------- PII
# Masking lives in vignette_lab.core.pii; these names stay importable from here.
from vignette_lab.core.meta_model import load_model as load_meta_model  # noqa: E402
from vignette_lab.core.pii import (  # noqa: E402
    _c as _compile_on_first_use,
    PLACEHOLDERS,
    MaskResult,
    PiiEntity,
    gate_json,
    gate_text,
    mask_pii,
    mask_role_identities,
    pii_backend,
)


# ------------------------------------------------------------------------ crisis

_CRISIS_TERMS = _patterns.compile(
    r"(죽고\s*싶|죽어\s*버리|죽을\s*것\s*같|자살|자해|극단적\s*(인\s*)?선택|사라지고\s*싶|없어지고\s*싶|살기\s*싫|"
    r"살고\s*싶지\s*않|목숨|끝내고\s*싶|그만\s*살|삶을\s*끝|죽는\s*게\s*나)"
)
# The trainee speaking about *themself, now*, outside the role-play.
_FIRST_PERSON_NOW = _patterns.compile(
    r"((저|나|제가|내가)\s*(는|도)?\s*(사실|진짜|정말|요즘|지금|오늘|요새|계속)|저\s*자신|"
    r"오늘\s*밤에?\s*(저|나)|(저|나)\s*(너무|좀)\s*(힘들|지쳤))"
)


@dataclass(frozen=True)
class CrisisResult:
    """``kind``: ``none`` | ``persona_play`` | ``learner_real``; ``escalate`` only for learner_real."""

    kind: Literal["none", "persona_play", "learner_real"]
    escalate: bool
    matched: tuple[str, ...] = ()
    risk_level: Literal["none", "low", "high"] = "none"


def classify_crisis(text: str, *, speaker_is_persona_context: bool = True,
                    speaker: Literal["learner", "persona"] = "learner") -> CrisisResult:
    """Tell persona role-play from a trainee's own first-person crisis cue.

    Parameters
    ----------
    text : str
        The utterance (nothing is stored).
    speaker_is_persona_context : bool, default=True
        True while the trainee is inside a counseling role-play (a session). Talking *about*
        the client's ideation ("죽고 싶다는 생각이 든 적 있어요?") is then normal practice. False
        for text written outside any role-play, where any first-person crisis statement escalates.
    speaker : {"learner", "persona"}, default="learner"
        ``persona`` marks a client line (AI or scripted). A persona playing ideation is the
        simulation working as designed and is never escalated.

    Returns
    -------
    CrisisResult
        ``learner_real`` (escalate) when crisis terms come with first-person, present-tense or
        explicit out-of-role cues ("저 사실 요즘 진짜 죽고 싶어요", "연습 말고 제가 …") and the
        sentence is not an assessment question; ``persona_play`` when crisis terms appear
        otherwise; ``none`` without crisis terms.
    """
    if speaker not in ("learner", "persona"):
        raise ValueError(f"The 'speaker' parameter of classify_crisis must be 'learner' or 'persona'. "
                         f"Got {speaker!r} instead.")
    text = text or ""
    terms = tuple(m.group(0) for m in _CRISIS_TERMS.finditer(text))
    if not terms:
        return CrisisResult("none", False)
    if speaker == "persona":
        return CrisisResult("persona_play", False, terms, "low")
    out_of_role = tuple(m.group(0) for m in _OUT_OF_ROLE.finditer(text))
    first_person = tuple(m.group(0) for m in _FIRST_PERSON_NOW.finditer(text))
    statement = _ends_as_statement(text)
    if out_of_role or (first_person and statement) or (not speaker_is_persona_context and statement):
        return CrisisResult("learner_real", True, terms + out_of_role + first_person, "high")
    return CrisisResult("persona_play", False, terms, "low")


_OUT_OF_ROLE = _patterns.compile(
    r"((연습|역할극|롤플|롤플레이|시뮬레이션|상담\s*연습)\s*(말고|아니고|이\s*아니라|과\s*상관\s*없이)|"
    r"상담사\s*(역할\s*)?말고|실제로\s*(저|제가|나|내가)|진심으로\s*(저|제가|나|내가)|농담\s*아니고)"
)


def _ends_as_statement(text: str) -> bool:
    """True unless the last sentence is a question put to someone else."""
    last = re.split(r"(?<=[.!?…])\s+", text.strip())[-1]
    if "?" in last:
        return False
    return not re.search(r"(나요|까요|세요|니|냐|는지|있어요|드나요|적\s*있어요)\s*$", last)


# ------------------------------------------------------------------------ output

_MEANS_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, _patterns.compile(p)) for name, p in (
        ("overdose", r"(수면제|진통제|수면\s*유도제|타이레놀|안정제|(?<![가-힣])약(?=을|를|들|\s))\s*(을|를|들을)?\s*[^.?!\n]{0,12}?"
                     r"(한꺼번에|잔뜩|왕창|몽땅|많이|모아|모아서|몇\s*(알|통)|\d+\s*(알|정|통)|통째로?)\s*[^.?!\n]{0,8}?(먹|삼키|털어)"),
        ("overdose", r"치사량|과다\s*복용\s*(하면|해서|할)"),
        ("hanging", r"목을?\s*(매|맬|매달|조르|졸라)|올가미"),
        ("jumping", r"(뛰어\s*내리|투신)|(옥상|다리|난간|창문|베란다|아파트)\s*(에서|위에서|밖으로)\s*(뛰|떨어|몸을\s*던)"),
        ("gas", r"번개탄|연탄\s*(을|불)?\s*(피우|피워)|가스\s*(를|을)?\s*(틀|마시)|일산화탄소"),
        ("poison", r"농약|살충제\s*(를|을)?\s*마시|독극물|청산가리"),
        ("cutting", r"(손목|팔|허벅지)\s*(을|를)?\s*(긋|그어|그었|긁|베|벴)|(칼|커터칼|면도날|유리)\s*(로|으로)\s*(긋|그어|베|찌르|찔러)"),
        ("method_request", r"(죽는|자살(하는)?|목숨을?\s*끊는|극단적\s*(인\s*)?선택(을\s*하는)?|자해(하는)?|고통\s*없이\s*죽는)\s*(방법|법|수단)"),
        ("railway", r"(철로|선로|기찻길|지하철)\s*(에|로)\s*(뛰어|몸을|들어)"),
        ("drowning", r"(강|바다|한강)\s*(에|으로|로)\s*(뛰어들|몸을\s*던)"),
    )
)


@dataclass(frozen=True)
class OutputGuardResult:
    """Result of the output guardrail.

    ``needs_regeneration`` is True when means/method content was found; ``text`` is then the
    safe fallback reply. ``ideation_cap_violation`` records a request above the cap.
    """

    text: str
    needs_regeneration: bool
    reason: str = ""
    matched: tuple[str, ...] = ()
    ideation_stage: int = 1
    ideation_cap_violation: bool = False


def detect_means_content(text: str) -> tuple[str, ...]:
    """Names of the means/method patterns present in ``text`` (empty when none)."""
    text = text or ""
    return tuple(sorted({name for name, rx in _MEANS_PATTERNS if rx.search(text)}))


def clamp_ideation(stage: int | float | None) -> int:
    """Clamp an ideation stage into the simulation's safe range 1..3."""
    if stage is None:
        return 1
    return int(min(max(int(stage), 1), IDEATION_STAGE_CAP))


def sanitize_client_reply(text: str, ideation_stage: int = 1) -> OutputGuardResult:
    """Block suicide/self-harm means content and enforce the ideation cap.

    Returns the original text when it is safe, otherwise :data:`SAFE_FALLBACK_REPLY` with
    ``needs_regeneration=True`` and the matched pattern names.
    """
    violation = ideation_stage is not None and int(ideation_stage) > IDEATION_STAGE_CAP
    capped = clamp_ideation(ideation_stage)
    matched = detect_means_content(text)
    if matched:
        return OutputGuardResult(SAFE_FALLBACK_REPLY, True, "means_content", matched, capped, violation)
    return OutputGuardResult(text or "", False, "ideation_cap" if violation else "", (), capped, violation)


# --------------------------------------------------------------- CCD meta-talk (T3)

# Each alternative is a class of simulation talk, not a list of dev sentences (bare "LLM" (only "LLM이라…" as a copula) and
# "이번/다음 턴" were dropped: they fired on AI at work and game turns; the learned model in
# core/meta_model.py judges those from context):
# case-formulation constructs, simulation parameters, being an AI/virtual person, the role-play
# frame, the prompt/instructions/creator, and leaked system markup (see datasets/eval/drift/README.md).
#: model names a client may call itself ("저 사실 GPT예요"); as a tool ("GPT로 숙제했어요") they are everyday talk
_MODEL_NAMES = r"GPT|챗\s*GPT|ChatGPT|Claude|클로드|Gemini|제미나이"
#: compiled on first use (:func:`vignette_lab.core.pii._c`): the largest pattern here (~25 ms to compile)
#: and no masking call needs it, so a process that only masks does not pay for it at import
_META_PATTERNS = _compile_on_first_use(
    # clinical constructs and case formulation about oneself
    r"(핵심\s*신념|중간\s*신념|자동\s*사고|대처\s*전략|인지\s*(모델|개념화)|사례\s*개념화|"
    r"호소\s*문제|촉발\s*요인|유지\s*요인|"
    r"(제|내)\s*진단(명|은|이)|진단\s*기준|DSM|CCD|Patient-?Ψ|"
    r"자동적\s*사고|인지\s*왜곡|인지\s*삼제|보상\s*전략|조건\s*신념|방어\s*기제|ICD-?1[01]|"
    # simulation parameters: named dials, or a level/score that is "set" or given a number
    r"개방도|저항\s*(수치|점수|값)|라포\s*(점수|수치|크레딧)|openness|rapport_credit|ideation_stage|"
    r"(수치|변수|파라미터|레벨|저항도|위험도|피로도|협조도|단계)\s*(가|는|이|은|를|도)?\s*[^.?!\n]{0,15}?"
    r"(설정(돼|되|된|됐|해)|세팅|잡혀\s*있|짜여\s*있|0\.\d+|\d+\s*(으로|로)\s*(설정|맞춰|잡혀))|"
    r"(제|내|네|너의|당신)\s*(페르소나|설정|캐릭터\s*카드|프롬프트|지시\s*사항|지시문|지침|가이드라인)|"
    r"페르소나\s*카드|(?<![가-힣]\s)(?<![가-힣])페르소나\s*설정|인물\s*카드|(입력된|주어진)\s*(프롬프트|설정)|받은\s*프롬프트|프롬프트\s*(를|을)?\s*(받|대로|에\s*(따라|적혀|쓰여|나와))|"
    r"(다는|라는|이라는)\s*설정(이에요|이야|입니다|이라|이고|상|으로)|설정\s*상\s*으로\s*요|"
    r"설정\s*상(으로)?\s*(저|나|제가|내가)|(저|나|제|내)\s*(는)?\s*설정\s*상|"
    r"(제가|내가)\s*(학습|훈련)\s*(한|된|받은)\s*데이터|"
    # a script of this conversation: unowned at the start of a clause, or mine/given ("부모님 대본대로" is a metaphor)
    r"((?<![가-힣]\s)(?<![가-힣])|(제|내|이|주어진|받은|정해진|원래)\s*)대본\s*(대로|에\s*(있|나와|적혀|쓰여|없))|"
    r"(내담자|환자)\s*(역할|연기|흉내)|흉내\s*(내는|내도록)\s*(프로그램|AI|봇|챗봇)|"
    r"시스템\s*(프롬프트|지시)|(원래|입력된)\s*지시\s*사항|"
    r"(저|나)\s*(를|을)\s*만든\s*(회사|사람|개발자|팀|곳)|"
    r"(상담\s*)?단계\s*(는|가)\s*(라포|탐색|개입|정리)|"
    # being an AI / a virtual or practice person
    r"AI\s*내담자|AI\s*챗봇\s*(이에요|예요|입니다|이라|이야)|가상\s*(의\s*)?(내담자|인물|환자)|(연습|실습)\s*용\s*(상대|내담자|캐릭터|으로\s*만든)|"
    r"(?<![가-힣A-Za-z])(인공\s*지능|AI|LLM|에이아이|챗봇|봇)\s*(이에요|예요|입니다|이라서|라서|이라(?!는)|이고|일\s*뿐|이야|로\s*대답)|"
    # a short first-person "I am an AI" in any register ("나 사실 AI야", "아 나 AI라니까", "전 봇임")
    rf"(?<![가-힣])(저|나|전|난)\s*(는|도)?\s*(사실|그냥|진짜|원래)?\s*(인공\s*지능|AI|에이아이|챗봇|봇|{_MODEL_NAMES})\s*(이)?"
    r"(야|라니까|라고|란\s*말|예요|에요|이에요|임|입니다|거든|잖아|인데|이니까|니까|라서)|"
    r"(저|나|전|난)\s*(는|도)?\s*[^.?!\n]{0,20}?(프로그램|언어\s*모델)\s*(이에요|예요|입니다|이라서|이야|일\s*뿐)|"
    r"(저|나)\s*(는|도)?\s*(다\s*)?리셋\s*(되|돼|됩)|"
    # a language model as a work or study topic ("언어 모델 도입 TF", "대형 언어 모델 연구") is everyday talk
    r"(언어\s*모델|대형\s*언어)(?!\s*(을|를|에\s*대해|관련|도입|개발|연구|공부|수업|강의|과제|논문|프로젝트|TF|팀|업무|회사|서비스))|"
    # role-play as the frame of this conversation (slang 롤플 too); a role-play at work or school is
    # everyday talk and left to the model
    r"(이거|이건|지금|우리|이\s*대화)\s*(는|도)?\s*(그냥|다|완전)?\s*롤\s*플(레이)?|"
    r"롤\s*플(레이)?\s*(중|이잖|잖|이니까|이라서|이라|이야|이에요|아님|인데|일\s*뿐)|"
    # knowing that this is a role-play ("롤플레이인 거 알지만", "역할극인 거 다 알아요")
    r"(롤\s*플(레이)?|역할극|상황극|시뮬레이션)\s*인\s*(거|걸)\s*(은\s*|는\s*)?(다\s*)?(알|아|압)|"
    # the role-play frame
    r"(역할극|시뮬레이션|상황극|시나리오)\s*(이니까|이잖아|잖아|이라서|이라|이에요|입니다|이야|일\s*뿐|중)|"
    r"(짜여진|정해진)\s*(시나리오|대사|대본|각본)|(나|저|전|난)\s*(는)?\s*(그냥\s*)?대본\s*(을|를|만)?\s*읽|"
    r"(이|지금|내담자|상담)\s*역할\s*(에서|을|를)?\s*(벗어나|그만\s*하|내려놓|빠져나)|"
    r"(대화|상담|세션)\s*로그|(제|내)\s*(대답|반응|답변)[^.?!\n]{0,10}?(채점|점수\s*(를\s*)?매기)|"
    # a named model's maker and its policy as the reason for an answer ("OpenAI 정책 때문에")
    r"(OpenAI|오픈\s*AI|Anthropic|앤트로픽)\s*(의\s*)?(정책|가이드라인|규정|약관|지침)|(GPT|클로드|Claude|제미나이|Gemini)\s*기반|"
    # being built or set up to speak a certain way ("이렇게 말하도록 되어 있어요", "대답하게 설정돼")
    r"(말하|대답하|답하|반응하|행동하|굴|연기하|말을\s*돌리)(도록|게)\s*(되어\s*있|돼\s*있|설정|프로그래밍|"
    r"프로그램\s*(돼|되)|만들어\s*(졌|져|진))|"
    # the counselor's turn as typed input
    r"(입력\s*(하신|해\s*주신|된|하신\s*대로)|주신\s*입력)\s*(내용|문장|말|질문|텍스트|대로|글)|"
    # role-play slang for breaking or keeping the character
    r"캐붕|캐릭터\s*(를|을)?\s*(유지|깨|붕괴|벗어)|역할\s*놀이\s*(그만|중|하는\s*중)|(?<![A-Za-z])RP\s*(중|하는)|"
    # the assistant's service voice ("요청하신 대로 … 관점에서 답변드리겠습니다"; homework done "요청하신 대로" is
    # everyday talk) and ending the simulation
    r"요청하신\s*(대로|내용)[^.?!\n]{0,30}(관점|입장|역할|캐릭터)|"
    r"(시뮬레이션|역할극|롤\s*플(레이)?)\s*(을|를)?\s*(종료|재시작|다시\s*시작)|"
    # generation: candidate lines, the persona sheet, trait values
    r"(대사|답변|응답|대답)\s*후보|캐릭터\s*시트|(성격|감정|기분|불안|우울|분노|저항|신뢰|친밀)\s*값|"
    # a bracketed frame note that names the role-play or the system ("[역할 유지 중]"); nonverbal
    # directions are written in round brackets and stay the client's voice
    r"[\[【][^\]】\n]{0,20}(역할|시스템|지시|설정|페르소나|캐릭터|시뮬레이션|내담자|세션|턴)[^\]】\n]{0,20}[\]】]|"
    # a round-bracket stage direction that names the played role in the third person ("(내담자 잠시 침묵 후)");
    # one without the role word ("(한숨)") is the client's own nonverbal voice
    r"\(\s*(내담자|상담자|훈련생)\s*(가|는|이|,)?\s[^()\n]{0,30}\)|"
    # a round-bracket note that counts turns or switches a mode ("(2턴 동안 말 없음)", "(NPC 모드 on)"): the
    # simulation's bookkeeping, not a nonverbal direction; a square-bracket English frame tag ("[scene 3]")
    r"\(\s*[^()\n]{0,15}(\d+\s*턴|NPC|(모드|mode)\s*(on|off|온|오프))[^()\n]{0,15}\)|"
    r"\[\s*(turn|scene|round|npc|gm|persona|role|ooc)\b[^\]\n]{0,20}\]|"
    # the counselor addressed as the game master of this session, with a game-control request ("GM님 다음 씬
    # ..."); a GM of the client's own TRPG is named with a particle or a possessive ("우리 GM님이 …")
    r"(^\s*|(?<![가-힣])(아|앗|저기|근데|아니)\s+)GM\s*님?\s*,?\s+[^.?!\n]{0,25}?"
    r"(턴|씬|장면|주사위|판정|NPC|스탯|효과음|배경음|난이도|등장|세션|리롤|리셋|캐릭터\s*시트)|"
    # the prompt or instructions telling me what to say ("지시문에 '…'라고 하라고 돼 있어서")
    r"(프롬프트|지시문|시스템\s*메시지)\s*(에서|에|가|는|엔|에는)\s*[^.?!\n]{0,30}?라고\s*(해서|했|하셨|돼|되어|나와|적혀|쓰여|써\s*있)|"
    # leaked markup
    r"</?\s*(system|assistant|instructions?|prompt)\s*>|\[\s*(system|시스템|지시)|"
    r"\b(as an ai|i am an ai|i'm an ai|language model|system prompt|my (persona|character card|instructions|prompt)|"
    r"role-?play(ing)?|simulated (client|patient)|core belief|automatic thought|cognitive distortion|diagnos(is|ed) (of|with)|"
    r"fictional scenario|i'?m instructed|i was (told|instructed|programmed)|(i am|i'm) (an? )?(bot|chatbot|virtual|simulated)|"
    r"this is (just )?(a |an )?(simulation|role-?play|practice scenario)|my (settings|parameters|script|guidelines)|"
    r"(i am|i'm) (just |only )?(an? )?(ai|program|bot|chatbot|language model|llm)|"
    r"as an? (ai|language model|chatbot|bot)|programmed to|(stay|staying|break|breaking) (in )?character|"
    r"back in character|out of character,? back to|ooc|"
    r"stay in (my )?role|my (developers?|creators?|programming|system message|context window|training data)|"
    r"the (system message|context window|training data)|against my (guidelines|rules|programming)|"
    r"(openai|anthropic)'?s? (polic(y|ies)|guidelines?))\b)",
    re.IGNORECASE,
)
#: a bare session-control command as the whole reply, too short for the learned model: re-roll, pass
#: or end the turn, reset the session ("리롤요", "아 턴 넘길게요", "GM님 턴 끝"); 리롤/리셋 as a wish
#: ("인생 리셋하고 싶다") is a clause and never the whole reply. Matched on whole text only (a streaming
#: prefix "리롤" of an ordinary reply must not fire), so it is kept out of the one big pattern
_SESSION_COMMAND = _patterns.compile(
    r"\s*((아|앗|음|자|그럼|그냥)\s*)?(GM\s*님?\s*,?\s*)?(이번\s*|제\s*)?(리롤|재생성|턴\s*(을\s*)?(넘겨|넘길게|넘길게요|종료|끝|패스|스킵)|"
    r"세션\s*(리셋|초기화))\s*(이요|요|해|해요|할게요|할게|해\s*주세요|해\s*줘|부탁해요|부탁드려요)?[\s.!?~ㅋㅎ]*",
    re.IGNORECASE,
)
# A term only named as vocabulary ("핵심신념이란 말", "인지 왜곡이라는 단어") is not meta-talk.
_MENTION = _patterns.compile(r"\s*(이)?(라는|란)\s*(말|단어|용어|개념|표현)")
#: a copula match ("AI예요") asked of the counselor ("선생님 혹시 AI예요?"): the clause names the
#: counselor, not oneself, and the match ends in a question, so the client wonders about the other side
_ASKED_OF_COUNSELOR = _patterns.compile(r"(선생님|쌤|샘|상담사|상담\s*선생님|너|당신)\s*(은|는|이|도|께서)?\s*(혹시|진짜|설마|솔직히)?\s*$")
_SELF_WORD = _patterns.compile(r"(?<![가-힣])(저|나|전|난|제|내)(는|도|가|이|야)?(?![가-힣])")
_QUESTION_AFTER = _patterns.compile(r"\s*(인가요|인가|이에요|예요|야|니|죠)?\s*[?？]")


def _asked_of_counselor(text: str, start: int, end: int) -> bool:
    clause = re.split(r"[.?!…\n]", text[:start])[-1]
    return bool(_ASKED_OF_COUNSELOR.search(clause) and not _SELF_WORD.search(clause + text[start:end])
                and _QUESTION_AFTER.match(text, end))


#: frame nouns that are everyday talk once the clause names where they come from: a TRPG or game the
#: client plays, a school or work role-play, a drama, an AI tool ("국어 수행평가가 역할극이라서",
#: "TRPG 캐릭터 시트", "챗GPT 프롬프트에서 …라고 쓰라고")
_FRAME_NOUN = _patterns.compile(r"역할극|상황극|시나리오|캐릭터\s*시트|프롬프트|롤\s*플")
_EVERYDAY_SETTING = _patterns.compile(
    r"TRPG|티알피지|보드\s*게임|게임|수행\s*평가|수업|과제|발표|숙제|모둠|조별|동아리|연극|학교|학원|회사|교육|연수|드라마|영화|웹툰|"
    r"소설|챗\s*GPT|GPT|생성형|챗봇|AI\s*(툴|도구|서비스|앱)|미드저니")


#: a clinical construct the clause says was read, taught or overheard ("심리학 수업에서 자동적 사고 배웠는데",
#: "책에서 인지 왜곡이라는 걸 읽었는데"): a topic the client learned about, not a case formulation of oneself
_CONSTRUCT_NOUN = _patterns.compile(r"핵심\s*신념|자동적?\s*사고|인지\s*(왜곡|삼제)|DSM|진단\s*기준|사례\s*개념화|방어\s*기제")
_LEARNED_FROM = _patterns.compile(
    r"(?<![가-힣])(책(?=에서|에|을|으로|\s)|수업|강의|인터넷|유튜브|검색|블로그|기사|심리학|교양|배웠|배운|읽었|읽은|"
    r"찾아봤|찾아본|들은|들었)|어쩌고")
#: the learning verb right after the construct ("자동적 사고 배웠는데", "'핵심신념' 어쩌고 하는 거 들은 적")
_LEARNED_AFTER = _patterns.compile(r"[^.?!…\n]{0,12}?(?<![가-힣])(배웠|배운|읽었|읽은|찾아봤|들었|들은)")


def _everyday_setting(text: str, start: int, end: int) -> bool:
    """True when a frame noun of the match is placed in an everyday setting, or a clinical construct
    in a learning source, in its clause (before the match, or right after it for the learning verb)."""
    clause = re.split(r"[.?!…\n]", text[:start])[-1]
    if _FRAME_NOUN.search(text, start, end) and _EVERYDAY_SETTING.search(clause + text[start:end]):
        return True
    if _CONSTRUCT_NOUN.search(text, start, end):
        return bool(_LEARNED_FROM.search(clause) or _LEARNED_AFTER.match(text, end))
    return False


def _pattern_hits(text: str) -> tuple[str, ...]:
    return tuple(m.group(0) for m in _META_PATTERNS.finditer(text)
                 if not _MENTION.match(text, m.end()) and not _asked_of_counselor(text, m.start(), m.end())
                 and not _everyday_setting(text, m.start(), m.end()))


def detect_ccd_meta_rules(text: str) -> tuple[str, ...]:
    """The hand-written half of :func:`detect_ccd_meta_disclosure`: the matched rule phrases."""
    text = text or ""
    hits = _pattern_hits(text)
    if not hits and _SESSION_COMMAND.fullmatch(text):
        return (text.strip(),)
    return hits


#: the learned model judges only text with at least this many non-space characters: a fragment
#: ("사실", "저는") carries no evidence the rules do not see, and the model's weights were fitted
#: to whole sentences (on ordinary client lines it fired on 237 of 1,930 word prefixes).
META_MODEL_MIN_CHARS = 8
_SENTENCE_END = _patterns.compile(r"[.?!…\n]|[요다죠까네]\s")


def detect_ccd_meta_disclosure(text: str, *, partial: bool = False) -> tuple[str, ...]:
    """Meta-talk the client must never produce (leak test T3, seed 004 §4.4).

    Simulation talk only: case-formulation constructs about oneself, simulation parameters,
    being an AI or a virtual/practice person, the role-play frame, the prompt or instructions,
    and leaked system markup. Everyday words (설정, 프로그램, 역할, 대본, AI as a topic), a
    construct merely named as a word ("핵심신념이란 말") and a bracketed nonverbal direction
    ("(한숨)", the way the persona scripts and :data:`SAFE_FALLBACK_REPLY` show behaviour) do not
    count.

    Two detectors, either one suffices: the hand-written rules (:func:`detect_ccd_meta_rules`)
    and a learned linear model over character n-grams
    (:mod:`vignette_lab.core.meta_model`, weights shipped in ``core/meta_model.json``).

    Parameters
    ----------
    text : str
        A client reply.
    partial : bool, default=False
        ``text`` is the accumulated prefix of a reply still streaming: the rules read all of
        it, the model only its complete sentences (up to the last sentence end), so a sentence
        is judged once it is whole, never on a fragment.

    Returns
    -------
    tuple of str
        The matched phrases, e.g. ``("핵심신념",)`` for "제 핵심신념은 …"; when only the model
        fires, the n-grams that weighed most towards meta talk. Empty when neither fires.
    """
    text = text or ""
    # a streaming prefix: the patterns read all of it, the whole-reply command only a finished reply
    hits = _pattern_hits(text) if partial else detect_ccd_meta_rules(text)
    if hits:
        return hits
    if partial:
        ends = [m.end() for m in _SENTENCE_END.finditer(text)]
        text = text[:ends[-1]] if ends else ""
    if len(re.sub(r"\s", "", text)) < META_MODEL_MIN_CHARS:
        return ()
    model = load_meta_model()
    if model.fires(text):
        return model.evidence(text) or ("meta_model",)
    return ()
