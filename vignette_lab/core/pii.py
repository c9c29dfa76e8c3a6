"""PII masking for Korean counseling text: the hard gate of seed 001 §2.5 and §9.

Only masked text is stored or sent to an engine. :func:`gate_text` is the one function every
write path calls; :func:`mask_pii` is the masking primitive behind it.

Design
------
* One set of Korean recognisers (:data:`RULES` plus the person-name recogniser) is the single
  source of truth. The Presidio backend wraps each of them in an
  :class:`presidio_analyzer.EntityRecognizer` subclass (no-op NLP engine, no spaCy model); the
  regex fallback calls the same functions directly, so both backends find identical spans.
* Person names come from context cues ("저는 X", "X라고 해요", "X씨", "X야", "X 선생님", "X이가",
  kinship/role words before the name, titles after it, form fields, full names followed by a
  particle) plus a surname list and given-name syllables, confirmed by kiwipiepy morphology
  (a known common word such as 고양이/정말/엄마 is never a name). A name found once is masked
  everywhere in the text, and the neighbours of a found name in a list are checked too. The
  morphology model is loaded lazily, only when a candidate needs it, without its typo and
  multi-word dictionaries.
* Some names are told by what the sentence says around them rather than by a particle
  (:func:`_context_name_spans`, one precondition search for all): a surname or full name with a
  military rank (김 일병, 윤태섭 병장님), the person whose identifier is given (민지 번호, 투안 베트남
  여권번호), who the person is in brackets (희망이(동생)), the subject of what only a person does
  (자해, 가출, 휴가 나와 …), the one called to in reported speech, a full name confirmed or recalled.
  A common noun that is also a given name (바다, 은혜, 아름) needs such a cue, an owner before it or
  the double particle only a name takes after a consonant (아름이는: 이 *and* 는).
* On top of the cues, a learned decision (:mod:`vignette_lab.core.name_model`, logistic
  regression over every word-start candidate, weights in ``name_model.json``) adds names the cues
  miss; its threshold comes from leave-one-split-out over the dev splits so that no held-out
  clean sentence is altered. Both backends read it through the same person-name recogniser.
* Identifiers read out in pieces are one class each: digit groups after chain words (앞에 …
  그다음 … 마지막 …), RRN halves joined by a word, e-mails spelled token by token with a spoken
  @ (골뱅이, at) and domain (쩜, 닷컴), plates and grades in Korean digit words.
* ``mask_pii(backend="auto")`` follows :func:`chosen_backend`: ``VIGNETTE_PII_BACKEND`` if set,
  else the process default — Presidio for long-lived processes (library, app server, notebooks);
  the CLI group switches one-shot commands to the regex backend with :func:`set_default_backend`.
* Addresses need a real address shape (province/city + district + road or neighbourhood, a
  lot number with 번지, or an apartment unit): a bare 로/길/동/시 syllable never triggers.
* Public help lines (109, 1393, 1577-0199, 119, 112, 1388, …) stay readable.
* Importing Presidio normally pulls in transformers and torch (its package ``__init__`` imports
  every NLP engine, including the transformers one) and spaCy, thinc, phonenumbers and tldextract.
  The masking path needs none of them: the ML packages are hidden from that one import, the
  others (and Presidio's own predefined recognisers and pydantic configuration models, which
  compile or build at import) are served as inert stand-ins, and :class:`KoreanNlpEngine`
  builds no spaCy ``Doc``.
  The morphology model is not preloaded: it loads on the first question the shipped analyses
  (:func:`vignette_lab.core.morph.tokens`, ``core/morph_table.json``) cannot answer.
* Speed without changing a span: recogniser patterns (:func:`_c`) compile on first use, each
  rule group's cheap precondition runs before its patterns, and once a process has masked 200
  texts every rule and name cue also gets a literal pre-filter derived from its own pattern
  (:mod:`vignette_lab.core._regex_needs`, a necessary condition). The weakest name cue checks the
  given-name list before morphology, so about three texts in four ask morphology nothing; most of
  the rest ask only about common words, answered by the shipped analyses without loading kiwipiepy.
  ``bench/pii_equivalence.py --ref REV`` compares every PII data file's masking with a revision.
* Identifiers a cue names are found by one mechanism (:data:`_VALUE_CUES`): a value-shaped run
  (digits, Korean digit words, Latin letters, stars, any separators) a few words after or just
  before its category's cue in the same sentence is masked, and the parts of a value told in pieces
  are masked together when they add up to the category's digit count; no group shape is listed.
  Any run of nine digits or more in any grouping is masked unless it is an amount, a list of years,
  a date, a time range or help lines.
* Pattern rules read :func:`normalise_digits` (fullwidth → ASCII, Korean digit words and O-for-0
  inside identifier-shaped runs → digits; same length, so spans carry over), and a general
  digit-run rule masks any run of 7+ digits that is no quantity, date or time range. Text typed
  one syllable at a time or without spaces is re-spaced by morphology and read again.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Literal, Sequence, cast

from vignette_lab.core import _compiled_patterns as _patterns
from vignette_lab.core import hangul, morph
from vignette_lab.core._stand_ins import stood_in
from vignette_lab.core._name_words import _ADDRESS_TERMS, _GIVEN, _NOT_NAMES  # shared with core/name_model
from vignette_lab.core.name_model import learned_name_spans, on_model_change

__all__ = [
    "ALLOWED_SERVICE_NUMBERS",
    "PLACEHOLDERS",
    "MaskResult",
    "PiiEntity",
    "find_entities",
    "gate_json",
    "gate_text",
    "gate_texts",
    "mask_pii",
    "mask_role_identities",
    "chosen_backend",
    "clip_masked",
    "pii_backend",
    "set_default_backend",
]

log = logging.getLogger(__name__)

#: placeholder written in place of each entity type
PLACEHOLDERS: dict[str, str] = {
    "KR_RRN": "[RRN]",
    "KR_FRN": "[RRN]",
    "KR_PHONE": "[PHONE]",
    "KR_LANDLINE": "[PHONE]",
    "EMAIL_ADDRESS": "[EMAIL]",
    "CREDIT_CARD": "[CARD]",
    "KR_DRIVER_LICENSE": "[LICENSE]",
    "KR_PASSPORT": "[PASSPORT]",
    "KR_ACCOUNT": "[NUMBER]",
    "LONG_DIGITS": "[NUMBER]",
    "KR_CAR_PLATE": "[PLATE]",
    "KR_ADDRESS": "[ADDRESS]",
    "KR_SCHOOL": "[ORG]",
    "KR_BIRTHDAY": "[BIRTHDAY]",
    "URL_PERSONAL": "[URL]",
    "SNS_HANDLE": "[HANDLE]",
    "PERSON": "[NAME]",
}

#: a mask tag as written in text: [NAME], [PHONE], [CLIENT], [COUNSELOR] …
_MASK_TAG = _patterns.compile(r"\[[A-Z][A-Z_]*\]")


def clip_masked(text: str, limit: int, *, ellipsis: str = "…") -> str:
    """``text`` cut to at most ``limit`` characters (with ``ellipsis``), never inside a mask tag.

    A cut that would fall inside ``[CLIENT]`` moves to just before the tag ("2학년 [CLIE…" becomes
    "2학년 …"); when the tag starts the text, the whole tag is kept instead of an empty quote.

    >>> clip_masked("제가 2학년 [CLIENT]인데요", 11)
    '제가 2학년…'
    >>> clip_masked("[CLIENT]인데요", 4)
    '[CLIENT]…'
    """
    if len(text) <= limit:
        return text
    cut = max(0, limit - len(ellipsis))
    for m in _MASK_TAG.finditer(text):
        if m.start() < cut < m.end():
            cut = m.start() if m.start() > 0 else m.end()
            break
        if m.start() >= cut:
            break
    return text[:cut].rstrip(" ,") + ellipsis


#: Public service numbers that must stay readable (digits only). The app itself shows them.
ALLOWED_SERVICE_NUMBERS: frozenset[str] = frozenset({
    "109", "1393", "15770199", "119", "112", "1388", "129", "1366", "117", "15889191", "16999191",
    "15880199", "15771389", "15771391", "1391", "1350", "120", "15771366", "1345",
})

_NAME_SCORE = 0.75

# --------------------------------------------------------------------------- patterns

_B = r"(?<![0-9A-Za-z\-])"     # left edge of a number: not inside an id, a word or a UUID
_E = r"(?![0-9]|-[0-9A-Za-z])"  # right edge: the number ends here (and is no UUID/id segment)
_SEP = r"[ \t.\-–—_·ㅡ~…]{0,3}"    # what people put between digit groups ("010 - 1234", "010.1234", "010ㅡ1234")
_PSEP = r"(?:[ \t.\-–—_·ㅡ~/…]{0,3}|\s?에\s?|\s?다시\s?|\s(?:그리고|하고|그다음|다음)\s)"  # spoken phones too: "010에 1234에 5678"
_KD = "[0-9공영일이삼사오육륙칠팔구]"  # a digit, as a numeral or a Korean digit word
_PLATE_SYL = "가나다라마거너더러머버서어저고노도로모보소오조구누두루무부수우주아바사자배하허호"
_UNIT_AFTER = r"(?!\s?(?:원|명|개|번|년|점|등(?![록본기])|살|세|시|분|초|km|m|%|위|회|권|장|층|일|주|달|만|천|억))"

_SIDO = (r"(?:서울(?:특별시|시)?|부산(?:광역시|시)?|대구(?:광역시|시)?|인천(?:광역시|시)?|광주(?:광역시)?|"
         r"대전(?:광역시|시)?|울산(?:광역시|시)?|세종(?:특별자치시|시)?|경기(?:도)?|강원(?:특별자치도|도)?|"
         r"충청북도|충북|충청남도|충남|전라북도|전북(?:특별자치도)?|전라남도|전남|경상북도|경북|경상남도|경남|"
         r"제주(?:특별자치도|도)?)")
_GU = "|".join("""
종로 중 용산 성동 광진 동대문 중랑 성북 강북 도봉 노원 은평 서대문 마포 양천 강서 구로 금천 영등포 동작 관악 서초 강남 송파 강동 해운대 수영 부산진 동래 사하 사상 금정
연제 영도 북 남 동 서 수성 달서 연수 남동 부평 계양 미추홀 광산 유성 대덕 영통 팔달 장안 권선 분당 수정 중원 일산동 일산서 덕양 수지 기흥 처인 단원 상록 동안 만안 오정
소사 원미 덕진 완산 성산 의창 마산합포 마산회원 진해 흥덕 상당 서원 청원 동남 서북
""".split())
_SI = "|".join("""
수원 성남 고양 용인 부천 안산 안양 남양주 화성 평택 의정부 시흥 파주 김포 광명 군포 하남 오산 이천 양주 구리 안성 포천 의왕 여주 동두천 과천 청주 천안 전주 창원 포항
김해 제주 서귀포 춘천 원주 강릉 구미 경산 진주 여수 순천 목포 익산 군산 아산 세종 충주 제천 공주 논산 보령 서산 당진 경주 안동 영주 김천 상주 거제 양산 통영 밀양 사천
정읍 남원 김제 나주 광양 속초 동해 삼척 태백
""".split())
_GUN = "|".join("""
기장 달성 군위 울주 강화 옹진 양평 가평 연천 홍천 횡성 영월 평창 정선 철원 화천 양구 인제 고성 양양 진천 음성 괴산 단양 보은 옥천 영동 증평 홍성 예산 부여 서천 청양
태안 금산 계룡 완주 진안 무주 장수 임실 순창 고창 부안 담양 곡성 구례 고흥 보성 화순 장흥 강진 해남 영암 무안 함평 영광 장성 완도 진도 신안 칠곡 성주 고령 청도 예천
봉화 울진 울릉 영덕 청송 영양 의성 함안 창녕 의령 하동 산청 함양 거창 합천 남해
""".split())
_SGG = rf"(?:(?:{_SI})시(?:\s?(?:{_GU})구)?|(?:{_GU})구|(?:{_GUN})군)"
_ROAD = r"[가-힣0-9]{1,10}(?:대로|로|길)(?:\s?\d{1,4}(?:번)?길)?\s?\d{1,5}(?:-\d{1,5})?(?:번지)?"
_DONG_NUM = r"[가-힣0-9]{1,8}(?:동|읍|면|(?<!자)리|가)\s?(?:산\s?)?\d{1,5}(?:-\d{1,5})?(?:번지)?"  # 산: a mountain lot
_DONG = r"[가-힣0-9]{1,8}(?:동|읍|면|(?<!자)리)(?![가-힣])"
#: a number in Sino-Korean words with a place value (백이십삼, 천오, 이십칠): 이사 or 오일 are words, not numbers
_SINO_NUMBER = (r"(?=[일이삼사오육칠팔구]*[천백십])(?:[일이삼사오육칠팔구]?천)?(?:[일이삼사오육칠팔구]?백)?(?:[일이삼사오육칠팔구]?십)?"
                r"[일이삼사오육칠팔구]?(?![가-힣])")
_UNIT = r"(?:\s?[가-힣A-Za-z0-9]{0,12}(?:아파트|빌라|오피스텔|맨션|타운)?\s?\d{1,4}\s?동\s?\d{1,5}\s?호)?"

_DATE = (r"(?:(?:19|20)?\d{2}\s?(?:년|[./\-])\s?)?(?:0?[1-9]|1[0-2])\s?(?:월|[./\-])\s?(?:0?[1-9]|[12]\d|3[01])(?:\s?일)?"
         r"|(?:19|20)?\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
_EN_MONTH = r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)[a-z]*\.?"
_EN_DATE = (r"(?:" + _EN_MONTH + r"\s?\d{1,2}(?:st|nd|rd|th)?(?:,?\s?(?:19|20)\d{2})?"
            r"|\d{1,2}(?:st|nd|rd|th)?\s" + _EN_MONTH + r"(?:,?\s?(?:19|20)\d{2})?)")
_SK = "[일이삼사오육칠팔구]"
#: a date in sino-Korean number words: 이천팔년 삼월 십오일, 시월 삼 일
_KO_DATE = (r"(?:(?:이천|천구백)[일이삼사오육칠팔구십백]{0,5}\s?년\s?)?(?:시|유|십[일이]?|" + _SK + r")\s?월\s?"
            r"(?:[이삼]?십" + _SK + r"?|" + _SK + r")\s?일")
#: a day said in native Korean or by its festival name (음력 구월 열엿새, 칠월 칠석, 정월 대보름)
_NATIVE_DAY = (r"(?:(?:음력|양력)\s?)?(?:정|동짓|섣달|시|유|십[일이]?|[일이삼사오육칠팔구]|(?<!\d)(?:0?[1-9]|1[0-2]))\s?월\s?(?:초(?:하루|이틀|사흘|나흘|닷새|엿새|이레|여드레|아흐레|열흘)|초[이삼사오육칠팔구]|"
               r"열(?:하루|이틀|사흘|나흘|닷새|엿새|이레|여드레|아흐레)|보름|스무(?:하루|이틀|사흘|나흘|닷새|엿새|이레|여드레|아흐레|날)|"
               r"그믐|칠석|단오|대보름|열흘)")
_BIRTH_CUE = r"(?:생일|생년월일|생신|출생일|태어난\s?날|birthday|date\s?of\s?birth|D\.?\s?O\.?\s?B\.?(?![A-Za-z]))"

_BANK = (r"(?:국민|신한|우리|하나|농협|기업|카카오뱅크|카카오|카뱅|토스뱅크|토스|케이뱅크|새마을금고|신협|우체국|수협|"
         r"부산|대구|광주|전북|경남|제주|SC제일|씨티|IBK|KB|NH|iM뱅크)(?:은행)?")

_SNS = (r"(?:인스타그램|인스타|insta(?:gram)?|카카오톡|카톡|카카오|kakao|라인|트위터|twitter|틱톡|tiktok|페이스북|페북|"
        r"facebook|디스코드|discord|텔레그램|telegram|유튜브|youtube|스레드|threads|블로그|디엠|오픈채팅|오픈톡|"
        r"스냅챗|snapchat|위챗|wechat|왓츠앱|whatsapp|트위치|twitch|레딧|reddit|제페토|zepeto|네이버\s?밴드|로블록스|roblox|"
        r"아이디|ID|계정|닉네임)")
_SNS_STOP = frozenset({"dm", "story", "live", "reels", "feed", "ok", "app", "pc", "lol", "profile", "post",
                       "id", "sns", "www", "http", "https", "com", "the", "and", "yes", "no"})

_SCHOOL_KIND = (r"(?:초등학교|중학교|고등학교|여자고등학교|여자중학교|대학교|외국어고등학교|과학고등학교|"
                r"여고|여중|외고|과학고|예고|공고|상고|정보고|마이스터고)")
_SCHOOL_STOP = frozenset({"특성화", "자사", "일반", "인문계", "실업계", "마이스터", "국제", "과학", "외국어", "예술", "체육",
                          "영재", "자율형사립", "공립", "사립", "국립", "여자", "남자", "남녀공학", "명문", "지방", "전문",
                          "대안", "근처", "동네", "다른", "같은", "우리", "새", "예전", "이전", "인근", "방송통신", "사이버",
                          "기숙", "직업", "산업", "상업", "공업", "농업", "특목", "자율", "혁신", "시골", "도시", "거점", "지역",
                          "좋은", "그런", "이런", "어떤", "무슨", "지금", "원래", "다니던", "나온", "명문대",
                          "방학", "휴가", "시험", "수업", "공부", "연수", "교육"})
_GRADE = (r"(?:\s?\d{1,2}\s?학년(?:\s?\d{1,2}\s?반)?(?:\s?\d{1,2}\s?번)?|\s?\d{1,2}\s?반(?:\s?\d{1,2}\s?번)?|\s?\d{1,2}\s?-\s?\d{1,2}\s?반(?:\s?\d{1,2}\s?번)?"
          r"|\s(?i:grade|year)\s?\d{1,2}(?:,?\s?(?i:class)\s?\d{1,2})?"
          r"|\s?[일이삼사오육]\s?학년(?:\s?(?:십[일이삼사오육칠팔구]?|[일이삼사오육칠팔구])\s?반)?)")


@dataclass(frozen=True)
class Rule:
    """One Korean pattern recogniser: ``entity``, compiled ``regex``, ``score``.

    ``group`` names the part of the match that is masked (``0`` = the whole match), and
    ``check`` may veto a match (e.g. too few digits for an account).
    """

    entity: str
    regex: re.Pattern[str]
    score: float
    group: int | str = 0
    check: Callable[[re.Match[str]], bool] | None = None
    #: a cheap test the text must pass before ``regex`` runs (speed only: a rule can never
    #: match a text that fails it)
    needs: re.Pattern[str] | None = None
    #: the entity type of one match when it depends on the match's shape (else ``entity``)
    kind: Callable[[re.Match[str]], str] | None = None
    #: the entity types ``kind`` may return (default: the digit-run types)
    kinds: tuple[str, ...] = ()

    @property
    def entities(self) -> tuple[str, ...]:
        """Every entity type this rule can report."""
        return (self.kinds or _ID_KINDS) if self.kind is not None else (self.entity,)


_NON_DIGIT = _patterns.compile(r"\D")


def _digits(s: str) -> str:
    return _NON_DIGIT.sub("", s)


def _min_digits(n: int) -> Callable[[re.Match[str]], bool]:
    return lambda m: len(_digits(m.group(m.lastindex or 0) if m.lastindex else m.group(0))) >= n


def _school_ok(m: re.Match[str]) -> bool:
    return m.group("pre") not in _SCHOOL_STOP


def _short_school_ok(m: re.Match[str]) -> bool:
    """한빛고 2학년, 해솔초 다녀요 yes; 그리고 2학년, 공부하고 다녀요, 가지고 다녀요 no.

    Followed by a grade, only a conjunction/adverb, a past tense or a 하다-verb vetoes it;
    followed only by 다니다/학생/전학, any verb or ending reading vetoes it.
    """
    if not _school_ok(m):
        return False
    start, k = m.start("pre"), len(m.group("pre")) + 1
    text = m.string
    end = start
    while end < len(text) and "가" <= text[end] <= "힣":
        end += 1
    toks = _morph_at(text[start:end])
    if toks is None:
        return True
    inside = [t for t in toks if t[0] < k]
    tags = [t[2] for t in inside]
    if (len(inside) == 1 and tags[0].startswith(("MAJ", "MAG"))) or any(t.startswith(("EP", "XSV", "XSA"))
                                                                         for t in tags):
        return False
    with_grade = m.end() > start + k
    if with_grade and "학년" not in text[start + k:m.end()]:
        # a class alone (청솔고 1반 yes, 끝나고 3반 no): no verb may start inside the name
        adnominal = any(t[2] == "ETM" and t[1] == k - 1 for t in inside)  # 푸른+고, not 끝나+고
        return adnominal or not any(t[0] < k - 1 and t[2].startswith(("VV", "VA", "VX")) for t in inside)
    if not with_grade and any(t.startswith(("VV", "VA", "VX", "E")) for t in tags):
        return False
    return True


def _named_school_ok(m: re.Match[str]) -> bool:
    """A school's name written apart from its kind (해오름 고등학교, 울란바토르 국립대): morphology reads
    the word before as nouns only, or does not know it (not 애가 or 다니던: a particle, a verb)."""
    if not _school_ok(m):
        return False
    toks = _morph_at(m.group("pre"))
    if toks is None:
        return True
    return all(oov or tag.startswith(("NNP", "NNG", "SL", "XSN")) for s, e, tag, oov in toks)


def _proper_school_name(m: re.Match[str]) -> bool:
    """A short school name after its town (파주 문산중, 연천 전곡고요): morphology reads the name part
    as proper nouns only or does not know it (not 근처+고요, 사람+이+고: common words and copulas)."""
    if not _school_ok(m):
        return False
    toks = _morph_at(m.group("pre"))
    if toks is None:
        return True
    return all(oov or tag.startswith("NNP") for s, e, tag, oov in toks)


#: words of a text about going to a school or college
_SCHOOLING_WORDS = _patterns.compile(r"학년|학과|학번|학교|복학|휴학|편입|입학|졸업|자퇴|전학|다니|다녔|다녀|들어가|합격")


def _town_school_name(m: re.Match[str]) -> bool:
    """A short school name after its town: a proper name (:func:`_proper_school_name`), or, in a text about
    schooling, a common noun or two (부산 동백중: 동백 is a camellia, the town and 다니던/전학 say it is a school)."""
    if _proper_school_name(m):
        return True
    if not _school_ok(m) or _SCHOOLING_WORDS.search(m.string) is None:
        return False
    pre = m.group("pre")
    toks = _morph_at(pre)
    if not toks or not all(tag in ("NNG", "NNP") or oov for s, e, tag, oov in toks):
        return False
    # 중 after a noun that takes 하다 is "during" (부산 여행중, 대전 근무중): morphology reads X+하는 with a
    # verb-deriving suffix for those, as a verb of its own for the others (동백+하는)
    return not (m.group("s").endswith("중") and any(tag == "XSV" for s, e, tag, oov in _morph_at(pre + "하는") or ()))


def _college_name_ok(m: re.Match[str]) -> bool:
    """A college's short name is one word morphology reads as a proper noun or does not know (한국외대, 인하공전),
    or a proper noun (a place) and the kind (부천+공전), not a compound of common words (지구+공전)."""
    if not _school_ok(m):
        return False
    toks = _morph_at(m.group("s")) or ()
    if len(toks) == 1:
        return toks[0][:2] == (0, len(m.group("s"))) and (toks[0][3] or toks[0][2] == "NNP")
    return len(toks) == 2 and toks[0][2] == "NNP" and toks[1][0] == len(m.group("pre"))


def _university_before_department(m: re.Match[str]) -> bool:
    """X대 before a department (인하대 간호학과, 아주대 경영학과): the department says X대 is a university,
    whatever morphology makes of X (아주 is also an adverb); not an age in number words (삼십대)."""
    return _school_ok(m) and re.fullmatch(r"[일이삼사오육칠팔구십백]+", m.group("pre")) is None


def _schooling_text_school(m: re.Match[str]) -> bool:
    """A proper short school name (:func:`_proper_school_name`) in a text that talks about schooling:
    a grade or class, or going to, entering, leaving or changing school (the rule's precondition)."""
    return _proper_school_name(m) and re.search(r"\d\s?(?:학년|반)|학교|다녀|다니|다녔|전학|입학|졸업",
                                                m.string[:m.start()] + m.string[m.end():]) is not None


def _short_school_noverb(m: re.Match[str]) -> bool:
    """A short school name that morphology does not read as a verb or an ending (마시고, 그리고)."""
    if not _school_ok(m):
        return False
    start = m.start("pre")
    end = start
    text = m.string
    while end < len(text) and "가" <= text[end] <= "힣":
        end += 1
    k = len(m.group("pre"))
    toks = _morph_at(text[start:end])
    if toks is None:
        return True
    tags = [t[2] for t in toks if t[0] < k]
    return not any(t.startswith(("VV", "VA", "VX", "EP", "EC", "EF", "XSV", "XSA", "MAJ", "MAG")) for t in tags)


def _handle_ok(m: re.Match[str]) -> bool:
    h = m.group("h")
    if h.lower() in _SNS_STOP:
        return False
    if not re.search(r"[A-Za-z]", h):
        return False
    if m.start("h") - m.start() > 14:  # far from its cue (카톡 아디 알려줄게 ㄱㄱ hani_bunny03): handle-shaped only
        return bool(re.search(r"[\d_.]", h))
    return bool(re.search(r"[\d_.]", h)) or len(h) >= 4 or m.group(0).lstrip().startswith("@")


#: a text that talks about a number someone owns (a half of it alone is then an identifier)
_HALF_CUE = _patterns.compile(r"(?:카드|전화|폰|연락처|계좌|번호)[^\n]{0,40}?\d{3}|\d{3}[^\n]{0,40}?(?:카드|전화|폰|연락처|계좌|번호)")


def _spelled_id_kind(m: re.Match[str]) -> str:
    """RRN or foreigner number of a value spelled in Korean digit words: the back half's first
    digit (5-8 for foreigners) or, for a front half alone, the cue."""
    digits = _korean_digits(re.sub(r"[^공영일이삼사오육륙칠팔구]", "", m.group(1)))
    if len(digits) >= 7:
        return "KR_FRN" if digits[6] in "5678" else "KR_RRN"
    return "KR_FRN" if "외국인" in m.group(0) else "KR_RRN"


def _half_kind(m: re.Match[str]) -> str:
    text = m.string
    if "카드" in text:
        return "CREDIT_CARD"
    if re.search(r"전화|폰|연락처|01[016-9]", text):
        return "KR_PHONE"
    return "LONG_DIGITS"


_PASSPORT_CUE = _patterns.compile(r"여권|passport|(?<![A-Za-z])PPT?(?:\s?no\.?|\s?#|(?![A-Za-z]))", re.IGNORECASE)


def _passport_sentence(m: re.Match[str]) -> bool:
    """A passport-shaped token counts only in a text that talks about a passport."""
    return bool(_PASSPORT_CUE.search(m.string))


def _phone_ok(m: re.Match[str]) -> bool:
    d = _digits(_korean_digits(m.group(0).replace("O", "0").replace("o", "0")))
    return 10 <= len(d) <= 13


_KDIGIT = {"공": "0", "영": "0", "일": "1", "이": "2", "삼": "3", "사": "4", "오": "5", "육": "6", "륙": "6",
           "칠": "7", "팔": "8", "구": "9"}


_KDIGIT_TABLE = str.maketrans(_KDIGIT)


def _korean_digits(s: str) -> str:
    return s.translate(_KDIGIT_TABLE)


# --------------------------------------------------------------------------- normalisation

#: fullwidth ASCII (！…～) → ASCII, the ideographic space → a space, Unicode dashes → "-"
_WIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)}
_WIDTH.update({0x3000: 0x20, 0x2010: 0x2D, 0x2011: 0x2D, 0x2012: 0x2D, 0x2015: 0x2D, 0x2212: 0x2D, 0xFE63: 0x2D})
_KD_SYL = "공영일이삼사오육륙칠팔구"
#: a run of digits, Korean digit words and O-for-0, with the separators people type between them
_DIGITISH_RUN = _patterns.compile(r"[0-9Oo" + _KD_SYL + r"](?:(?:[ \t\-.·_/–—ㅡ]{1,3}|\s?에\s?)?[0-9Oo*" + _KD_SYL + r"])+")
_LATIN = _patterns.compile(r"[A-Za-z]")
_DIGIT_WORD_CHAR = _patterns.compile(r"[" + _KD_SYL + r"Oo]")


def _normalise_run(run: str, left: str, right: str) -> str:
    """Digits for the Korean digit words and O's of one identifier-shaped run (same length).

    A run becomes digits only when it is long enough to be an identifier: at least seven digit
    units, and eight when it is glued to the word before it (전화번호는공일공…). A trailing 이
    before more Hangul is the copula (오육칠팔이에요), not a digit.
    """
    tail = head = ""
    if right and "가" <= right <= "힣" and run.endswith("이"):
        run, tail = run[:-1], "이"
    if left and "가" <= left <= "힣" and len(run) > 2 and run[0] in _KD_SYL and run[1] in " \t" and run[2].isdigit():
        head, run = run[0], run[1:]  # 끝이 1234567, 앞이 3333: a particle glued to its word, then the value
    units = sum(ch.isdigit() or ch in _KD_SYL or ch in "Oo" for ch in run)
    korean = sum(ch in _KD_SYL for ch in run)
    glued = bool(left) and "가" <= left <= "힣"
    if korean and units < (8 if glued else 7):
        korean_ok = False
    else:
        korean_ok = True
    if korean and korean_ok and korean < units and not re.search(r"[0-9]", run):
        korean_ok = True
    out = []
    has_digit = any(ch.isdigit() for ch in run)
    for ch in run:
        if ch in _KD_SYL and korean_ok:
            out.append(_KDIGIT[ch])
        elif ch in "Oo" and (has_digit or korean_ok) and not (_LATIN.match(left or " ") or _LATIN.match(right or " ")):
            out.append("0")
        else:
            out.append(ch)
    return head + "".join(out) + tail


@functools.lru_cache(maxsize=4096)
def normalise_digits(text: str) -> str:
    """The text the pattern recognisers read: same length and offsets as ``text``.

    Fullwidth characters become ASCII, Unicode dashes "-", and inside identifier-shaped runs
    Korean digit words (공일공 일이삼사) and an O typed for 0 become digits. Every change is one
    character for one character, so a span found here is the same span of the original.
    """
    text = text.translate(_WIDTH)
    if _DIGIT_WORD_CHAR.search(text) is None:
        return text
    parts, pos = [], 0
    for m in _DIGITISH_RUN.finditer(text):
        run = m.group(0)
        if not any(ch in _KD_SYL or ch in "Oo" for ch in run):
            continue
        left = text[m.start() - 1] if m.start() else ""
        right = text[m.end()] if m.end() < len(text) else ""
        if not any(ch.isdigit() for ch in run) and sum(ch in _KD_SYL or ch in "Oo" for ch in run) < 7:
            continue
        parts.append(text[pos:m.start()])
        parts.append(_normalise_run(run, left, right))
        pos = m.end()
    parts.append(text[pos:])
    out = "".join(parts)
    if len(out) != len(text):  # spans of the normalised text must be the original's: never here
        log.warning("digit normalisation changed a text's length; using the width-normalised text")
        return text
    return out


#: a digit group: digits, possibly starred out by the writer (010-****-5678, 900101-1******)
_MASKCH = "*＊●○xX#"
_IDRUN = _patterns.compile(r"(?<![0-9A-Za-z*#])[0-9*#](?:[0-9*#]|(?:[ \t]?[\-._/·–—ㅡ][ \t]?|[ \t])(?=[0-9*#]))*"
                    r"(?<=[0-9*#])(?![0-9A-Za-z])")
#: what follows a non-PII quantity (money, people, time, counts, measures)
_QUANTITY_AFTER = _patterns.compile(r"\s?(?:원|만|천|억|조|명|개|번째|년|월|일|시간|시|분|초|점|등|위|%|퍼센트|km|㎞|m|kg|g|cm|"
                             r"층|호선|회|살|세|달러|엔|위안|불|건|개월|주|배|대|통|권|장|병|잔|마리|평|원어치|차례|킬로|미터|"
                             r"걸음|보|칼로리|kcal|번\s?버스|등급|학년|반|명분|톤|리터|ml|L)")
_YEAR_GROUPS = _patterns.compile(r"^(?:(?:19|20)\d{2})(?:[\s\-~/.·–—]+(?:(?:19|20)\d{2}))+$")
#: a date, possibly with the hour or a version suffix after it (2026-06-28 23:28, 2026-06-28.1)
_DATE_SHAPE = _patterns.compile(r"^(?:19|20)\d{2}\s?[./\-\s]\s?\d{1,2}\s?[./\-\s]\s?\d{1,2}(?:[ .T]\d{1,2})?$")
_TIME_SHAPE = _patterns.compile(r"^\d{1,2}[.:]\d{2}\s?[\-~]\s?\d{1,2}[.:]\d{2}$")


_ID_KINDS = ("KR_RRN", "KR_FRN", "KR_PHONE", "KR_LANDLINE", "CREDIT_CARD", "LONG_DIGITS")


def _id_kind(run: str) -> str:
    """The entity type of an identifier-shaped run, from its shape alone."""
    d = re.sub(r"[^0-9*#]", "", run)
    if len(d) == 13 and re.match(r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])", d):
        return "KR_FRN" if d[6] in "5678" else "KR_RRN"
    if re.match(r"01[016789]", d) and len(d) in (10, 11):
        return "KR_PHONE"
    if re.match(r"0(?:2|[3-6][1-5]|70)", d) and len(d) in (9, 10, 11):
        return "KR_LANDLINE"
    if len(d) in (15, 16):
        return "CREDIT_CARD"
    return "LONG_DIGITS"


_ALNUM = _patterns.compile(r"[0-9A-Za-z]")
_UUID_DIGITS = _patterns.compile(r"^\d{8}-\d{4}-\d{4}-\d{4}-\d{12}$")


def _idrun_ok(m: re.Match[str]) -> bool:
    """Any run of seven or more digits (stars count, four real digits at least) is an identifier
    unless it is a quantity: followed by a unit, a range of years, a date or a time range."""
    run = m.group(0)
    text, a, b = m.string, m.start(), m.end()
    if (a >= 2 and text[a - 1] == "-" and _ALNUM.match(text[a - 2])) or \
            (b + 1 < len(text) and text[b] == "-" and _ALNUM.match(text[b + 1])) or _UUID_DIGITS.match(run):
        return False  # one segment of a hyphenated id or a UUID (a1b2c3d4-1234-5678-…)
    digits = sum(ch.isdigit() for ch in run)
    units = sum(ch.isdigit() or ch in "*#" for ch in run)
    if digits < 4 or units < 7:
        return False
    if _QUANTITY_AFTER.match(m.string, m.end()) and not re.search(r"[\-._/·–—ㅡ*#]", run):
        return False  # 1500000원, 2000000명: a plain quantity
    return not (_YEAR_GROUPS.match(run) or _DATE_SHAPE.match(run) or _TIME_SHAPE.match(run))


#: words that read a number out group by group
_CHAIN_WORD = (r"(?:첫(?:번째)?|처음(?:은|에|엔)?|앞에는|앞에|앞은|앞(?=\s)|그\s?다음(?:은|에|에는)?|그담(?:에|엔)?|다음(?:은|에|엔)?|그리고|마지막(?:은|에|엔)?|"
               r"뒤에는|뒤는|뒤엔|가운데(?:는|엔)?|중간(?:은|에|엔)?|끝(?:은|에|엔)?)")
_CHAIN_NEEDS = _patterns.compile(r"\d{3}")  # chain words are common; a three-digit group is rarer
_NUMBER_TOPIC = _patterns.compile(r"계좌|카드|번호|주민|등록|차량|전화|폰|연락처|여권|면허")


def _chain_ok(m: re.Match[str]) -> bool:
    """A chained group counts only in a sentence about a number, with two or more chain words."""
    text = m.string
    if not _NUMBER_TOPIC.search(text):
        return False
    others = [g for g in re.findall(r"\d+", text[:m.start(1)] + " " + text[m.end(1):])]
    # two chain words, or one after another part of the value (… 890930-6 으로 시작해요 뒤는 218407)
    return len(re.findall(_CHAIN_WORD, text)) >= 2 or sum(len(g) for g in others) >= 5


#: one spelled-out token of an e-mail: Latin/digits, a spoken dot or underscore, Korean digit
#: words, Hangul names of Latin letters (에스 오 엠 아이)
_SPELL_TOKEN = (r"(?:[A-Za-z0-9._\-]+|쩜|점|닷|언더바|언더스코어|하이픈|[공영일이삼사오육칠팔구]+|"
                r"(?:에이|비|씨|디|이|에프|지|에이치|아이|제이|케이|엘|엠|엔|오|피|큐|알|에스|티|유|브이|더블유|엑스|와이|제트)+)")
_DOMAIN_TOKEN = (r"(?:[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*|쩜|점|닷컴|닷넷|닷|지메일|네이버|다음|한메일|네이트|카카오|야후|"
                 r"핫메일|아웃룩|컴|넷)")
#: the first token after the @: a domain with a letter (not a version tag: rag@2026-06-28.1)
_FIRST_DOMAIN = r"(?:[A-Za-z0-9\-]*[A-Za-z][A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)*|지메일|네이버|다음|한메일|네이트|카카오|야후|핫메일|아웃룩)"
_LOCAL_STOP = frozenset({"app", "address", "box", "check", "inbox", "spam", "send", "mail", "gmail", "naver", "daum"})


def _local_part_ok(m: re.Match[str]) -> bool:
    local = m.group(1).lower()
    return local not in _LOCAL_STOP and bool(re.search(r"[0-9._\-]", local))  # ryu.dongmin, not "delivery"


def _plate_ok(m: re.Match[str]) -> bool:
    """Not a plate when both digit groups are public service numbers (112나 1391: "112 or 1391")."""
    groups = re.findall(r"\d+", m.group(0))
    return not (len(groups) == 2 and all(g in ALLOWED_SERVICE_NUMBERS for g in groups))


_NICK_NEEDS = _patterns.compile(r"닉|별명|아이디|아디|계정")
_SPOKEN_AT = _patterns.compile(r"골뱅이|[@＠]|\(at\)|\[at\]|\sat\s|(?<![가-힣])[앳엣](?![가-힣])")
_MAIL_WORD = _patterns.compile(r"메일|mail", re.IGNORECASE)
_CVC_NEEDS = _patterns.compile(r"cvc|cvv|cid|보안", re.IGNORECASE)
_GRADE_NEEDS = _patterns.compile(r"\d\s?(?:학년|반)")
_SCHOOL_WORD = _patterns.compile(r"학교")
_BIRTH_NEEDS = _patterns.compile(_BIRTH_CUE, re.IGNORECASE)
_CAR_CUE = _patterns.compile(r"차량|차\s?번호|번호판|자동차|차\s?넘버|오토바이|이륜차|plate", re.IGNORECASE)
#: a web address without its scheme that has a path (instagram.com/ssol_hee, blog.naver.com/x)
_URL_PATH_NEEDS = _patterns.compile(r"[A-Za-z0-9]\.[A-Za-z]{2,3}(?:\.[A-Za-z]{2})?/")


_MONTH_DAY = _patterns.compile(r"(?<!\d)(?:0?[1-9]|1[0-2])\s?월\s?(?:0?[1-9]|[12]\d|3[01])\s?일|(?<!\d)(?:0?[1-9]|1[0-2])[./](?:0?[1-9]|[12]\d|3[01])(?!\d)"
                        r"|(?:시|유|십[일이]?|[일이삼사오육칠팔구])\s?월\s?(?:[이삼]?십[일이삼사오육칠팔구]?|[일이삼사오육칠팔구])\s?일")


def _with_birth_day(m: re.Match[str]) -> bool:
    """A birth year counts when its sentence also gives the month and day (07년생 5월 21일 생)."""
    lo, hi = _sentence_bounds(m.string, m.start(), m.end())
    return _MONTH_DAY.search(m.string, lo, hi) is not None


def _village_lot_ok(m: re.Match[str]) -> bool:
    """A village name before a lot number: morphology reads the word as no single known common word, and the
    sentence says where someone lives (the rule's precondition)."""
    word = m.group(0).split()[0]
    toks = _morph_at(word) or ()
    return not (len(toks) == 1 and not toks[0][3] and not toks[0][2].startswith("NNP"))


def _unknown_word_handle(m: re.Match[str]) -> bool:
    """A word morphology does not know at all, or a phrase typed as one word: a particle inside it with a word
    after it (고구마는맛있어: 고구마 + 는 + 맛있 + 어; not 정하기가, whose particle ends it)."""
    toks = _morph_at(m.group("h")) or ()
    if len(toks) == 1:
        return toks[0][:2] == (0, len(m.group("h"))) and toks[0][3]
    return any(t[2].startswith("J") and 0 < i < len(toks) - 1 and toks[i + 1][2].startswith(("N", "V"))
               for i, t in enumerate(toks))


def _car_sentence(m: re.Match[str]) -> bool:
    return bool(_CAR_CUE.search(m.string))


def _school_sentence(m: re.Match[str]) -> bool:
    """A grade/class counts as identifying only next to a named school (1학년 2반 alone is clean)."""
    text = m.string
    return any(r.group == 0 and any((r.check is None or r.check(x)) and not (x.start() <= m.start() < x.end()) for x in r.regex.finditer(text))
               for r in _SCHOOL_NAME_RULES())


def _address_sentence(m: re.Match[str]) -> bool:
    """A bare region + district counts only when the same text gives a street or lot number."""
    rest = m.string[m.end():]
    return bool(re.search(_DONG_NUM + "|" + _ROAD + r"|\d{1,4}\s?동\s?\d{1,5}\s?호|(?:아파트|빌라)\s?\d{1,4}\s?동", rest))


def _SCHOOL_NAME_RULES() -> tuple[Rule, ...]:
    return tuple(r for r in RULES if r.entity == "KR_SCHOOL" and r.check is not _school_sentence)


class _LazyPattern:
    """A regular expression compiled the first time it is used.

    Compiling every recogniser at import cost ~0.1 s of each process's first mask, and a text
    reaches only the rules whose precondition it passes. On first use the compiled pattern's
    methods are copied onto the instance, so later calls cost what the compiled pattern's do
    (no Python frame in between).
    """

    __slots__ = ("pattern", "flags", "search", "match", "fullmatch", "finditer", "findall", "sub", "split",
                 "_compiled")
    _METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "split")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags

    def _compile(self) -> re.Pattern[str]:
        compiled = _patterns.compile(self.pattern, self.flags)
        for name in self._METHODS:
            setattr(self, name, getattr(compiled, name))
        self._compiled = compiled
        return compiled

    def __getattr__(self, name: str) -> Any:  # only reached before the first compile
        if name.startswith("_"):  # private and dunder names (hasattr, copy, pickle) never compile
            raise AttributeError(name)
        return getattr(self._compile(), name)


def _c(p: str, flags: int = 0) -> re.Pattern[str]:
    """A recogniser's pattern, compiled on first use (:class:`_LazyPattern`)."""
    return cast("re.Pattern[str]", _LazyPattern(p, flags))


# --------------------------------------------------------------------------- cue-anchored values
#
# One mechanism for every identifier a cue names: each value-shaped run of the text — digits
# (Korean digit words and fullwidth forms are digits after :func:`normalise_digits`), Latin
# letters, stars and the separators people type between groups — is masked when a cue of its
# category stands a few words before it (or just after it) in the same sentence, and the runs of
# that stretch together have as many digits as the category's values have. A value told in parts
# (카드 앞자리 4792-11 뒤에는 **** 마지막이 3358) is masked part by part. Each category only says
# what its cue is and how many digits its values have; the shape of the groups is never listed.

#: a value-shaped run: pieces of Latin letters, digits and stars with at least one digit or star
#: (M48G27731, 5409-12**, 4481), or one or two Latin letters leading digits (M 4829 1037),
#: joined by a separator (spaces around it allowed) or by one or two spaces
_CUE_PIECE = r"(?:[A-Za-z]{0,3}[0-9*#][A-Za-z0-9*#]*|[A-Za-z]{1,2}(?=[ \t\-]?[0-9]))"
_CUE_NUM = (r"(?<![0-9A-Za-z*#@._])" + _CUE_PIECE + r"(?:(?:[ \t]{0,2}[\-._/·–—ㅡ~][ \t]{0,2}|[ \t]{1,2})" + _CUE_PIECE + r")*"
            r"(?<=[0-9A-Za-z*#])(?![0-9A-Za-z*#])")
#: a lone capital letter, a part of a passport number given apart (앞에 M 붙고 30418276)
_CUE_LETTER = (r"(?<![A-Za-z0-9])[A-Z](?![A-Za-z0-9])|(?<![가-힣A-Za-z0-9])(?:엠|에스|알|디|티|지|케이|피|씨|비|에이|엔|제이|엑스|"
               r"와이|제트|에프|에이치|큐|브이|엘)(?=[ \t]{0,2}[0-9])")  # … or spelled in Hangul before the digits (엠 1234…)
#: a plate: a region (and city) and/or two or three digits, one Hangul syllable, four digits
_REGION = r"(?:서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충북|충남|전북|전남|경북|경남|제주)"
_CUE_PLATE = (r"(?<![0-9가-힣])(?:" + _REGION + r"[ \t]{0,2}(?:[가-힣]{1,4}[ \t]{0,2})?(?:\d{1,3}[ \t]{0,2})?|\d{2,3}[ \t]{0,2})"
              r"[가-힣][ \t]{0,2}\d{4}(?![0-9])")
#: counters and units after a number that is a quantity (12대, 3456원), never a plate syllable
_COUNTER_SYL = frozenset("대명개번원살세시분초층등위년월일주회권장병잔통평배건곳채벌켤점호줄칸판편쯤")
#: where a sentence ends (a cue never reaches across it)
_SENTENCE_END = _patterns.compile(r"[?!\n]|(?<=[가-힣ㅋㅎㅠㅜ])\.(?:\s|$)")
_WORD = _patterns.compile(r"\S+")


@dataclass(frozen=True)
class _ValueCue:
    """One category of the cue-anchored recogniser."""

    entity: str
    #: the category's cue words (a pattern)
    cue: str
    #: fewest and most digits (stars included) the whole value has, over all its parts
    min_units: int
    max_units: int = 30
    #: words a cue may stand before the value, and after it
    reach_before: int = 5
    reach_after: int = 2


_VALUE_CUES: tuple[_ValueCue, ...] = (
    _ValueCue("KR_PASSPORT", r"여권|(?i:passport)|(?<![A-Za-z])PPT?(?![A-Za-z])", 6, 10),
    _ValueCue("KR_ACCOUNT", r"계좌|통장|입금|송금|이체|예금주|(?i:account|acct)|" + _BANK, 8, 20),
    _ValueCue("CREDIT_CARD", r"카드|(?i:card|visa|master|amex)", 8, 20),
    _ValueCue("KR_FRN", r"외국인|외등|(?i:alien|residence)|(?<![A-Za-z])ARC(?![A-Za-z])|등록증", 6, 14),
    _ValueCue("KR_RRN", r"주민|(?<![A-Za-z])RRN(?![A-Za-z])", 6, 14),
    _ValueCue("KR_PHONE", r"전화|폰|연락처|휴대|번호|(?i:phone|mobile|tel|call|cell)(?![A-Za-z])", 9, 13),
)
_CAR_WORDS = (r"차량|차\s?번호|번호판|자동차|(?<![가-힣])차(?:가|는|도|를|요)?(?![가-힣])|택시|오토바이|트럭|승용차|렌트카|"
              r"(?i:plate)")


_CUE_RX: dict[str, re.Pattern[str]] = {vc.entity: _patterns.compile(vc.cue) for vc in _VALUE_CUES}
_CUE_RX["KR_CAR_PLATE"] = _patterns.compile(_CAR_WORDS)
_VALUE_RX = _patterns.compile(_CUE_NUM)
_LETTER_RX = _patterns.compile(_CUE_LETTER)


def _sentence_bounds(text: str, a: int, b: int) -> tuple[int, int]:
    left = max((m.end() for m in _SENTENCE_END.finditer(text, 0, a)), default=0)
    right = _SENTENCE_END.search(text, b)
    return left, right.start() if right else len(text)


def _units(value: str) -> int:
    return sum(ch.isdigit() or ch in "*#" for ch in value)


def _quantity_run(text: str, value: str, end: int) -> bool:
    """A number that is an amount, a count, a date or a time, not an identifier part."""
    plain = not re.search(r"[\-._/·–—ㅡ~*#A-Za-z]", value)
    if plain and _QUANTITY_AFTER.match(text, end):
        return True
    core = value.strip()
    return bool(_YEAR_GROUPS.match(core) or _DATE_SHAPE.match(core) or _TIME_SHAPE.match(core)) or \
        _digits(value) in ALLOWED_SERVICE_NUMBERS


def _cue_near(text: str, rx: re.Pattern[str], a: int, b: int, before: int, after: int) -> tuple[int, int] | None:
    """The stretch a cue of ``rx`` opens for the run ``text[a:b]``: (cue end, sentence end) when a
    cue stands at most ``before`` words before the run or ``after`` words after it, in its sentence."""
    lo, hi = _sentence_bounds(text, a, b)
    best = None
    for m in rx.finditer(text, lo, hi):
        if m.end() <= a:
            if len(_WORD.findall(text, m.end(), a)) <= before:
                best = (m.end(), hi)
        elif m.start() >= b and len(_WORD.findall(text, b, m.start())) <= after:
            return (lo, m.start()) if best is None else best
    return best


def _cue_value_check(vc: _ValueCue) -> Callable[[re.Match[str]], bool]:
    rx = _CUE_RX[vc.entity]

    def ok(m: re.Match[str]) -> bool:
        text, a, b = m.string, m.start(), m.end()
        value = m.group(0)
        letter = vc.entity == "KR_PASSPORT" and (lm := _LETTER_RX.match(text, a)) is not None and lm.end() == b
        if _units(value) < 2 and not letter:
            return False
        if _quantity_run(text, value, b):
            return False
        near = _cue_near(text, rx, a, b, vc.reach_before, vc.reach_after)
        if near is None:
            return False
        lo, hi = near
        if _units(value) == 0:  # a lone letter of a passport number: the digits stand in its stretch
            digits = [p.group(0) for p in _VALUE_RX.finditer(text, lo, hi) if _units(p.group(0)) >= 2]
            return bool(digits) and vc.min_units <= sum(map(_units, digits)) < vc.max_units
        if _units(value) >= vc.min_units:
            return _units(value) <= vc.max_units and sum(ch.isdigit() for ch in value) >= 4
        # a part: the runs of the cue's stretch together make one value of the category
        parts = [p.group(0) for p in _VALUE_RX.finditer(text, lo, hi)
                 if _units(p.group(0)) >= 2 and not _quantity_run(text, p.group(0), p.end())]
        total = sum(map(_units, parts))
        return len(parts) >= 2 and vc.min_units <= total <= vc.max_units and sum(ch.isdigit() for p in parts for ch in p) >= 4
    return ok


def _plate_check(m: re.Match[str]) -> bool:
    value = m.group(0)
    syl = [ch for ch in value if "가" <= ch <= "힣"][-1]
    if syl in _COUNTER_SYL or _UNIT_AFTER_RX.match(m.string, m.end()) is None:
        return False
    return _cue_near(m.string, _CUE_RX["KR_CAR_PLATE"], m.start(), m.end(), 5, 2) is not None


_UNIT_AFTER_RX = _patterns.compile(_UNIT_AFTER)
_CUE_CHECKS = tuple((vc, _cue_value_check(vc)) for vc in _VALUE_CUES)
_CUE_KINDS = tuple(dict.fromkeys([vc.entity for vc in _VALUE_CUES] + list(_ID_KINDS)))


@functools.lru_cache(maxsize=256)
def _cue_category_at(text: str, a: int, b: int) -> _ValueCue | None:
    m = _VALUE_RX.match(text, a)
    if m is None or m.end() != b:
        return None
    return next((vc for vc, ok in _CUE_CHECKS if _CUE_RX[vc.entity].search(text) and ok(m)), None)


def _cue_category(m: re.Match[str]) -> _ValueCue | None:
    return _cue_category_at(m.string, m.start(), m.end())


def _cue_category_kind(m: re.Match[str]) -> str:
    vc = _cue_category(m)
    entity = vc.entity if vc is not None else "LONG_DIGITS"
    if entity in ("KR_PHONE", "KR_RRN"):
        k = _id_kind(m.group(0))
        return k if k not in ("LONG_DIGITS", "CREDIT_CARD") else entity
    return entity


#: a text with a digit (or a star) and any category's cue, tested once per text for all the
#: cue-anchored rules (speed only: each rule's check finds its own cue)
_CUE_NEEDS = _patterns.compile(r"^(?=.*?[0-9*#]).*?(?:" + "|".join([vc.cue for vc in _VALUE_CUES] + [_CAR_WORDS]) + ")", re.S)
_NEEDS_FOUR = _patterns.compile(r"\d{4}")


#: every handle the SNS rule accepts has a Latin letter, or a Hangul word joined by _ or . (speed only)
_HANDLE_NEEDS = _patterns.compile(r"[A-Za-z]|[가-힣][_.]")


def _value_cue_rules() -> tuple[Rule, ...]:
    rules = []
    # one pass over the value-shaped runs for every category: the first category (in the order of
    # _VALUE_CUES) whose cue and digit count the run meets gives its type
    rules.append(Rule("KR_PASSPORT", _c(_CUE_NUM), 0.72, 0, lambda m: _cue_category(m) is not None, _CUE_NEEDS,
                      _cue_category_kind, _CUE_KINDS))
    passport = next(vc for vc in _VALUE_CUES if vc.entity == "KR_PASSPORT")
    rules.append(Rule("KR_PASSPORT", _c(_CUE_LETTER), 0.7, 0, _cue_value_check(passport), _CUE_NEEDS))
    rules.append(Rule("KR_CAR_PLATE", _c(_CUE_PLATE), 0.72, 0, _plate_check, _CUE_NEEDS))
    # a plate told in two parts, its front glued to its syllable (45저 뭐였지 4481)
    for part in ("a", "b"):
        rules.append(Rule("KR_CAR_PLATE", _c(r"(?<![0-9가-힣])(?P<a>\d{2,3}[" + _PLATE_SYL + r"])(?![가-힣])(?:[ \t]{1,2}[가-힣]{1,6}){1,2}"
                                             r"[ \t]{1,2}(?P<b>\d{4})(?![0-9])" + _UNIT_AFTER), 0.65, part, None, _NEEDS_FOUR))
    # a handle after its app or 아이디 within a few words (인스타 부계 아이디는 soo_off, 카톡 ID는 요 hjk 언더바 1004)
    rules.append(Rule("SNS_HANDLE", _c(_CUE_HANDLE_RUN), 0.64, 0, _cue_handle_ok, _HANDLE_NEEDS))
    # the shape rule for long numbers: nine digits or more in any grouping is an identifier unless
    # it is a quantity, a range of years, a date, a time range or a help line, cue or none
    rules.append(Rule("LONG_DIGITS", _c(r"(?P<v>" + _LOOSE_NUM + r")"), 0.61, "v", _loose_run_ok, _NEEDS_NINE,
                      lambda m: _id_kind(m.group("v"))))
    return tuple(rules)


#: a handle: Latin letters, digits, _ and ., possibly Latin pieces joined by a spoken underscore or dot
_CUE_HANDLE_RUN = (r"(?<![A-Za-z0-9_.@])@?[A-Za-z0-9][A-Za-z0-9_.]{1,29}(?:[ \t]?(?:언더바|언더스코어|언더|쩜|닷)[ \t]?"
                   r"[A-Za-z0-9_.]{1,29})*(?![A-Za-z0-9_.@])"
                   # … or a Hangul handle joined by _ or . (별빛소녀_07, 달빛.고양이)
                   r"|(?<![가-힣A-Za-z0-9_.@])[가-힣][가-힣A-Za-z0-9]{0,15}[_.][가-힣A-Za-z0-9_.]*[가-힣A-Za-z0-9](?![가-힣A-Za-z0-9_.@])")
_SNS_RX = _patterns.compile(_SNS, re.IGNORECASE)
_LOOSE_NUM = (r"(?<![0-9A-Za-z*#\-])[0-9*#](?:[0-9*#]|[ \t]{0,2}[\-._/·–—ㅡ~][ \t]{0,2}(?=[0-9*#])|[ \t]{1,2}(?=[0-9*#]))*"
              r"(?<=[0-9*#])(?![0-9A-Za-z])")
#: nine digit units with at most five characters between neighbours (speed only)
_NEEDS_NINE = _patterns.compile(r"(?:[0-9*#][^0-9*#\n]{0,5}){8}[0-9*#]")


def _loose_run_ok(m: re.Match[str]) -> bool:
    value = m.group("v")
    text, a, b = m.string, m.start("v"), m.end("v")
    if sum(ch.isdigit() for ch in value) < 9 or _UUID_DIGITS.match(value):
        return False
    if b + 1 < len(text) and text[b] == "-" and _ALNUM.match(text[b + 1]):
        return False  # one segment of a hyphenated id
    if not re.search(r"[\-._/·–—ㅡ~*#]", value) and _QUANTITY_AFTER.match(text, b):
        return False
    groups = re.split(r"[^0-9*#]+", value)
    if all(re.fullmatch(r"(?:19|20)\d{2}", g) for g in groups if g):
        return False  # 2019 2020 2021: years
    return not (_DATE_SHAPE.match(value) or _TIME_SHAPE.match(value))


def _cue_handle_ok(m: re.Match[str]) -> bool:
    """A handle-shaped run with an SNS cue at most four words before it in its sentence."""
    h = m.group(0).lstrip("@")
    if "가" <= h[0] <= "힣":  # a Hangul handle: its _ or . says it is one
        return _cue_near(m.string, _SNS_RX, m.start(), m.end(), 4, 0) is not None
    if h.lower() in _SNS_STOP or not re.search(r"[A-Za-z]", h) or h.lower() in _HANDLE_FILLERS:
        return False
    if not (re.search(r"[\d_.]|언더|쩜|닷", h) or (len(h) >= 5 and not h.isupper())):
        return False
    return _cue_near(m.string, _SNS_RX, m.start(), m.end(), 4, 0) is not None


_HANDLE_FILLERS = frozenset({"is", "id", "my", "no", "was", "here", "this", "that", "name", "account"})


#: Every Korean pattern recogniser; the same list feeds the Presidio and the regex backend.
RULES: tuple[Rule, ...] = (
    # 주민등록번호 / 외국인등록번호 with any separator people use, or none; back digit 5-8 = foreigner
    Rule("KR_RRN", _c(_B + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])" + _SEP + r"[1-4](?:\s?|\s?…\s?)\d{6}" + _E), 0.9),
    Rule("KR_FRN", _c(_B + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])" + _SEP + r"[5-8](?:\s?|\s?…\s?)\d{6}" + _E), 0.9),
    Rule("KR_RRN", _c(_B + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])" + _SEP + r"[1-8][*＊xX●○]{6}"), 0.85),
    # the 6-7 shape with an explicit separator even when the front is no real date (123456-1234567)
    Rule("KR_RRN", _c(_B + r"\d{6}\s?[\-–—_.·ㅡ]\s?[012349]\d{6}" + _E), 0.8),
    Rule("KR_FRN", _c(_B + r"\d{6}\s?[\-–—_.·ㅡ]\s?[5-8]\d{6}" + _E), 0.8),
    # only the back half (or front half) with its cue: "뒷자리 1234567", "주민번호 앞자리 080315"
    Rule("KR_RRN", _c(r"(?:뒷\s?자리|뒷\s?번호|뒤\s?(?:7|일곱)?\s?자리|뒤\s?번호|뒤(?=[는은가도요에:\s]))[^\d\n]{0,12}?"
                      r"(" + _B + r"[1-8]\d{6})" + _E), 0.85, 1),
    # a front half that is a real date after its cue (앞자리는 070922, 앞번호 930218), and any
    # 7-digit back half in a sentence about the RRN (제 주민번호 맨 뒤가 1093847)
    Rule("KR_RRN", _c(r"(?:앞\s?자리|앞\s?번호|앞\s?(?:6|여섯)\s?자리|앞부분|앞(?=[은는이가요에:\s]))[^\d\n]{0,8}?(" + _B +
                      r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))" + _E), 0.8, 1),
    Rule("KR_RRN", _c(r"(?:주민|등록번호)[^\n]{0,25}?(" + _B + r"[1-8]\d{6})" + _E), 0.8, 1),
    Rule("KR_RRN", _c(r"(?:주민|등록)[가-힣\s]{0,8}?앞\s?(?:6|여섯)?\s?(?:자리|번호)\s?(?:는|은|가|이|도|요|:)?\s?(" + _B + r"\d{6})" + _E),
         0.8, 1),
    # … or the front half a few words on from 앞 (6)자리, a date alone with no back half joined to it
    Rule("KR_RRN", _c(r"(?:주민|등록)[가-힣\s]{0,8}?앞\s?(?:6|여섯)?\s?(?:자리|번호)[^\d\n]{0,30}?(" + _B +
                      r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))" + _E + r"(?!\s?[\-–—_.·ㅡ…]?\s?\d)"), 0.75, 1),
    # the front half alone right after its cue (주민번호는 990101에요 …), no back half joined to it
    Rule("KR_RRN", _c(r"(?:주민|등록)(?:등록)?(?:번호)?(?:는|은|가|이|:)?\s?(" + _B + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))"
                      + _E + r"(?!\s?[\-–—_.·ㅡ…]?\s?\d)"), 0.8, 1),
    # an RRN or a foreigner number spelled in Korean digit words after its cue: 주민번호는
    # 구공공일공일에 일이삼사오육칠, 외국인번호 칠팔공오일공 다시 오일이삼사오육 (the back half's
    # first digit tells which)
    Rule("KR_RRN", _c(r"(?:주민|등록|외국인)[가-힣\s:]{0,8}?((?:[공영일이삼사오육륙칠팔구]\s?){6}"
                      r"(?:(?:\s?(?:에|다시|-|ㅡ)\s?)?(?:[공영일이삼사오육륙칠팔구]\s?){6}[공영일이삼사오육륙칠팔구])?)"),
         0.8, 1, kind=_spelled_id_kind),
    # mobile: 010-1234-5678, (010)1234-5678, 010 - 1234 - 5678, +82 10 1234 5678, 공일공 일이삼사 오육칠팔
    Rule("KR_PHONE", _c(r"(?:\+\s?82\s?[\-)]?\s?(?:\(0\)\s?)?|(?<![0-9A-Za-z가-힣\-])\(?(?:0|공|영|O|o)\s?)"
                        r"(?:1|일)\s?(?:[016-9]|공|영|일|육|칠|팔|구|O|o)\)?" + _PSEP +
                        r"(?:" + _KD + r"\s?){3,4}" + _PSEP + r"(?:" + _KD + r"\s?){3}" + _KD + r"(?![0-9])"),
         0.9, 0, _phone_ok),
    Rule("KR_PHONE", _c(r"(?:공|영)\s?일\s?(?:공|영|일|육|칠|팔|구)" + _PSEP + r"(?:" + _KD + r"\s?){3,4}" + _PSEP +
                        r"(?:" + _KD + r"\s?){3}" + _KD + r"(?![0-9])"), 0.85, 0, _phone_ok),
    Rule("KR_PHONE", _c(r"(?<![0-9+])82\s?[\-]?\s?1[016-9]" + _SEP + r"\d{3,4}" + _SEP + r"\d{4}" + _E), 0.8),
    # landlines 02-123-4567, (031)1234-5678, 070, 050x safe numbers, and 15xx/16xx/18xx service numbers
    Rule("KR_LANDLINE", _c(_B + r"\(?0(?:2|[3-6][1-5]|70|50\d)\)?" + _SEP + r"\d{3,4}" + _SEP + r"\d{4}" + _E), 0.85),
    Rule("KR_LANDLINE", _c(_B + r"1[5-9]\d{2}" + _SEP + r"\d{4}" + _E), 0.7),
    # e-mail, also "minji 골뱅이 naver 점 com" and "(at)"
    Rule("EMAIL_ADDRESS", _c(r"[A-Za-z0-9._%+\-]+\s?(?:@|＠|\(at\)|\[at\]|골뱅이|\(골뱅이\))\s?[A-Za-z0-9\-]+"
                             r"(?:\s?(?:\.|점|\(dot\)|닷)\s?[A-Za-z0-9\-]*[A-Za-z][A-Za-z0-9\-]*)+"), 0.95),
    Rule("EMAIL_ADDRESS", _c(r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{2,}\s(?:at|AT|골뱅이)\s[A-Za-z0-9\-]+"
                             r"(?:\s(?:dot|DOT|점)\s[A-Za-z]{2,})+"), 0.9),
    Rule("EMAIL_ADDRESS", _c(r"[A-Za-z0-9._%+\-]+@(?:[A-Za-z0-9\-]+|네이버|다음|한메일|지메일|구글|카카오|네이트)(?![A-Za-z0-9.\-])"), 0.85),
    # the local part with its @ and the domain left out (park.sy@ 뒤에는 회사 도메인): still the person's address
    Rule("EMAIL_ADDRESS", _c(r"(?<![A-Za-z0-9._%+\-])[A-Za-z][A-Za-z0-9._%+\-]{1,}@(?=\s|$)"), 0.7),
    # cards: 4-4-4-4 (any separator), Amex 4-6-5, and "카드 끝자리 1234"
    Rule("CREDIT_CARD", _c(_B + r"\d{4}" + _SEP + r"\d{4}" + _SEP + r"\d{4}" + _SEP + r"\d{4}" + _E), 0.85, 0,
         lambda m: not _YEAR_GROUPS.match(m.group(0))),  # 2019 2020 2021 2022: years, no card
    Rule("CREDIT_CARD", _c(_B + r"3[47]\d{2}" + _SEP + r"\d{6}" + _SEP + r"\d{5}" + _E), 0.8),
    Rule("CREDIT_CARD", _c(r"카드[가-힣\s]{0,10}?(?:끝|뒷|마지막)\s?(?:번호\s?)?(?:(?:4|네)\s?)?자리\s?(?:는|가|은|요|:)?\s?"
                           r"(" + _B + r"\d{4})" + _E), 0.7, 1),
    Rule("LONG_DIGITS", _c(r"(?:앞|뒤|뒷|끝|마지막|중간|가운데)\s?(?:번호|자리|(?:\d|네|세|두)\s?자리|부분)?\s?"
                           r"(?:는|은|가|이|요|에는|에|:)?\s?(" + _B + r"\d{3,4})" + _E + _UNIT_AFTER), 0.6, 1, None, _HALF_CUE,
         kind=_half_kind),
    Rule("KR_PASSPORT", _c(r"(?<![A-Za-z0-9])[A-Za-z]{1,2}[\s\-]?(?:\d{6,9}|\d{3}[A-Za-z]\d{4})[A-Za-z]?(?![A-Za-z0-9])"),
         0.7, 0, _passport_sentence),
    Rule("KR_DRIVER_LICENSE", _c(_B + r"\d{2}[\s\-]\d{2}[\s\-]\d{6}[\s\-]\d{2}" + _E), 0.85),
    # passports: M12345678 and the 2021 format M123A4567; lower case only after 여권
    Rule("KR_PASSPORT", _c(r"(?<![A-Za-z0-9])[MSROD][\s\-]?(?:\d{4}[\s\-]?\d{4}|\d{3}[A-Z]\d{4})(?![A-Za-z0-9])"), 0.7),
    Rule("KR_PASSPORT", _c(r"(?:여권|passport)[가-힣\s:]{0,12}?((?<![A-Za-z0-9])[A-Za-z]{1,2}[\s\-]?(?:\d{6,9}|\d{3}[A-Za-z]\d{4}|\d{4}[\s\-]\d{4,5})"
                           r"(?![A-Za-z0-9]))", re.IGNORECASE), 0.8, 1),
    # bank accounts: a bank (or 계좌) then a number of 10-16 digits in groups, or the dashed shape alone
    Rule("KR_ACCOUNT", _c(r"(?:" + _BANK + r"|계좌)[가-힣\s:]{0,8}?(" + _B + r"\d[\d \-]{8,22}\d)" + _E), 0.75, 1,
         _min_digits(10)),
    Rule("KR_ACCOUNT", _c(r"(" + _B + r"\d[\d \-]{8,22}\d)" + _E + r"(?=\s?(?:" + _BANK + r"|계좌))"), 0.75, 1, _min_digits(10)),
    Rule("KR_ACCOUNT", _c(_B + r"\d{2,6}\s?-\s?\d{2,6}\s?-\s?\d{2,7}(?:\s?-\s?\d{1,3})?" + _E), 0.6, 0, _min_digits(10)),
    # any run of 9+ digits (student ids, accounts or cards without separators)
    Rule("LONG_DIGITS", _c(_B + r"\d{9,}" + _E), 0.6),
    # car plates: 12가 3456, 123가4567, 서울 12가 3456
    Rule("KR_CAR_PLATE", _c(r"(?<![0-9가-힣])(?:(?:서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충북|충남|전북|전남|"
                            r"경북|경남|제주)\s?)?\d{2,3}\s?[" + _PLATE_SYL + r"]\s?\d{4}" + _E + _UNIT_AFTER), 0.75, 0,
         _plate_ok),
    # school name (+ grade/class): 한빛고등학교, 새솔중 2학년 3반, 서울여고
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<pre>[가-힣]{2,10})" + _SCHOOL_KIND + _GRADE + "?"), 0.7, 0, _school_ok),
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<pre>[가-힣]{2,6})(?:고|중|초|대)(?:" + _GRADE +
                         r"|(?=\s?(?:다니|다녀|에\s?다|학생|에서\s?(?:전학|왔|교환|유학|어학연수)|졸업|으로\s?전학|로\s?전학))|(?<=[고중초])(?=\s?출신))"), 0.65, 0,
         _short_school_ok),
    # a national university by its place name, glued or apart (하노이국립대, 울란바토르 국립대), and a
    # school named apart from its kind when its grade follows (해오름 고등학교 2학년 5반)
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<pre>[가-힣]{2,10})\s?국립대(?:학교|학)?"), 0.65, 0, _named_school_ok),
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<pre>[가-힣]{2,10})\s(?:초등학교|중학교|고등학교|여자고등학교|여자중학교)" + _GRADE), 0.65, 0,
         _named_school_ok),
    # a short school name right after its town (파주 문산중 1학년, 천안 쌍용중 다녔고, 연천 전곡고요) and a
    # university by its short name before a department (인하대 간호학과): the town or the department
    # says what kind of word it is
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?:" + _SIDO + r"|(?:" + _SI + r")(?:시)?|" + _SGG + r"|(?:" + _GUN + r"))\s"
                         r"(?P<s>(?P<pre>[가-힣]{2,4})(?:여고|여중|고|중|초))"
                         r"(?=(?:이고|고요|예요|이에요|요|인데|이었고|였고|에서|에|을|를|은|는|이|도|\s?다니|\s?다녀|\s?다녔)?"
                         r"(?:[\s,.!?~…]|$))"), 0.6, "s", _town_school_name),
    # a college by its short name (한국외대, 인하공전, 경인교대) in a text about studying there: morphology knows the
    # whole word as a proper noun or not at all
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<s>(?P<pre>[가-힣]{2,4})(?:외대|여대|교대|공전|보건대|과기대))"
                         r"(?=[가-힣]{0,5}(?:[\s,.!?~…]|$))"), 0.6, "s", _college_name_ok, _SCHOOLING_WORDS),
    Rule("KR_SCHOOL", _c(r"(?<![가-힣0-9])(?P<s>(?P<pre>[가-힣]{2,4})대)\s?(?=[가-힣]{1,8}(?:학과|학부)(?![가-힣]))"), 0.6, "s",
         _university_before_department),
    # a second short school in a text about schooling (큰애는 … 1학년 5반 작은애는 문산초, … 다녔고 지금은 봉서중 이에요)
    Rule("KR_SCHOOL", _c(r"(?<=[는은\s])(?P<s>(?P<pre>[가-힣]{2,4})(?:여고|여중|고|중|초))"
                         r"(?=\s?(?:이에요|예요|이고|요|인데|이요|입니다|다녀|다니|에\s?다)?(?:[\s,.!?~…]|$))"), 0.58, "s",
         _schooling_text_school, _patterns.compile(r"학년|학교|다녀|다니|다녔|전학|입학|졸업")),
    # a university named in Latin letters (Korea University, Hanoi National University)
    Rule("KR_SCHOOL", _c(r"(?<![A-Za-z])[A-Z][a-z]+(?:\s[A-Z][a-z]+){0,2}\s(?:University|College|School|Academy)(?![A-Za-z])"), 0.62, 0,
         None, _patterns.compile(r"University|College|School|Academy")),
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<pre>[가-힣]{2,6})(?:고|중|초)\d\s?-\s?\d{1,2}(?![0-9])"
                         r"(?!\s?(?:잔|개|명|시|분|살|번|등|점|회|권|병|km|%))"), 0.6, 0, _school_ok),
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<pre>[가-힣]{2,6})(?:고|중|초)\s\d\s?-\s?\d{1,2}(?![0-9])"
                         r"(?!\s?(?:잔|개|명|시|분|살|번|등|점|회|권|병|교시|km|%))"), 0.6, 0, _short_school_noverb),
    Rule("KR_SCHOOL", _c(r"학교(?:는|가|이|요|:)?\s?(?P<s>(?P<pre>[가-힣]{2,8})(?:고|중|초|여고|여중))"
                         r"(?=(?:고|이고|고요|예요|이에요|요|인데|인데요|입니다|라서|이라서|임|이요)?(?:[\s,.!?~…]|$))"),
         0.6, "s", _short_school_noverb),
    Rule("KR_SCHOOL", _c(r"학교(?:는|가|이|요|:)?\s?(?P<pre>[가-힣]{2,8})(?:고|중|초)[가-힣]{0,4}[^\n.\d]{0,14}?"
                         r"(?P<g>\d{1,2}\s?학년\s?\d{1,2}\s?반)"), 0.6, "g", _short_school_noverb),
    # a school name then its year written with the level (누리고 고2 4반) or year and class apart
    # (성원고2 8반): the grade itself says this is a school
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])(?P<pre>[가-힣]{2,6})(?:고|중|초)(?:\s?(?:고|중|초)\s?\d(?![0-9])(?:\s?\d{1,2}\s?반)?"
                         r"|\s?\d\s\d{1,2}\s?반)"), 0.62, 0, _school_ok),
    # a school named in Latin letters with its grade (Hanbit high 2-3, Saessol Middle School grade 2)
    Rule("KR_SCHOOL", _c(r"(?<![A-Za-z])[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s(?i:high|middle|elementary|girls'?\s?high)(?:\s(?i:school))?"
                         r"\s?(?:\d{1,2}\s?-\s?\d{1,2}|(?i:grade|year)\s?\d{1,2}(?:,?\s?(?i:class)\s?\d{1,2})?)(?![0-9])"), 0.62, 0,
         None, _patterns.compile(r"(?i:high|middle|elementary)")),
    # an anonymised or Latin school name with its grade: OO고 2학년 3반, ㅇㅇ중 1학년, A고 3학년
    Rule("KR_SCHOOL", _c(r"(?<![A-Za-z0-9가-힣ㄱ-ㅎ])(?:[A-Z]{1,3}|[○◯●ㅇ]{1,3})(?:고|중|초|여고|여중|고등학교|중학교|초등학교)"
                         + _GRADE), 0.6),
    # birthdays: a birthday cue before or after a date
    Rule("KR_BIRTHDAY", _c(_BIRTH_CUE + r"[^\d\n]{0,10}?(?<![A-Za-z가-힣])(" + _EN_DATE + "|" + _KO_DATE + r")(?![A-Za-z0-9])",
                           re.IGNORECASE), 0.75, 1),
    Rule("KR_BIRTHDAY", _c(_BIRTH_CUE + r"[^\d\n]{0,10}?((?<!\d)(?:" + _DATE + r"|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])))(?!\d)",
                           re.IGNORECASE), 0.75, 1),
    Rule("KR_BIRTHDAY", _c(r"((?<!\d)(?:" + _DATE + r"))(?!\d)(?=\s?(?:생(?![가-힣])|생이|생입|생으로|에\s?태어|이\s?생일|가\s?생일|"
                           r"생일|(?:이|가)?\s?(?:제|내|저의|나의)\s?생일))"), 0.75, 1),
    # a bare month-and-day (MMDD) right before 생일 (0712 생일임): the cue names what the number is
    Rule("KR_BIRTHDAY", _c(r"((?<!\d)(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?!\d)(?=\s?(?:(?:이|가|은|는)\s?)?(?:제\s?|내\s?)?생일)"),
         0.75, 1),
    # a date in number words before the birthday it is (칠월 이십일이 생일이에요)
    Rule("KR_BIRTHDAY", _c(r"(?<![가-힣])(" + _KO_DATE + r")(?=\s?(?:이|은|는)?\s?(?:제\s?|내\s?|저의\s?)?(?:생일|생신))"), 0.7, 1, None,
         _BIRTH_NEEDS),
    # an address written in Latin letters (17, Sinchon-ro 3-gil, Mapo-gu, Seoul)
    Rule("KR_ADDRESS", _c(r"(?<![A-Za-z0-9])(?:\d{1,5}(?:-\d{1,5})?,?\s)?[A-Z][a-z]+(?:-[a-z]+)?-(?:ro|gil|daero)(?:\s\d{1,3}(?:beon)?-gil)?"
                          r"(?:,?\s\d{1,5}(?:-\d{1,5})?)?(?:,?\s[A-Z][a-z]+-(?:gu|si|gun|dong|eup|myeon))+(?:,?\s[A-Z][a-z]+(?![A-Za-z]))?"),
         0.7, 0, None, _patterns.compile(r"-(?:ro|gil|daero)\b")),
    # a birth year of the speaker (07년생이에요), not a cohort of others (1988년생 언니들, 90년생들)
    # … only with the day in the same sentence: a birth year alone says no more than an age does
    # (저 99년생인데 친구들은 다 결혼했어요)
    Rule("KR_BIRTHDAY", _c(r"(?<![0-9])(?:19|20)?\d{2}\s?년생(?!들|\s?[가-힣]{1,4}들)"), 0.7, 0, _with_birth_day),
    # a month and day (or YYMMDD) glued to 생 (0415생이에요, 080315생)
    Rule("KR_BIRTHDAY", _c(r"(?<![0-9])((?:\d{2})?(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?=생(?![가-힣])|생이|생입|생으로)"),
         0.75, 1),
    Rule("KR_BIRTHDAY", _c(_BIRTH_CUE + r"[^\n]{0,24}?(" + _NATIVE_DAY + r")"), 0.7, 1, None, _BIRTH_NEEDS),
    # a full date (month and day) later in a sentence that names a birthday (생일 11월 셋째... 아니 11월 18일)
    Rule("KR_BIRTHDAY", _c(_BIRTH_CUE + r"[^\n]{0,24}?(?<!\d)((?:(?:19|20)?\d{2}\s?년\s?)?(?:0?[1-9]|1[0-2])\s?월\s?"
                           r"(?:0?[1-9]|[12]\d|3[01])\s?일)", re.IGNORECASE), 0.7, 1, None, _BIRTH_NEEDS),
    Rule("KR_BIRTHDAY", _c(r"((?<!\d)(?:" + _DATE + r"|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])))(?!\d)"
                           r"(?=[^\d\n.,]{0,10}?(?:이|가|은|는)\s?(?:제\s?|내\s?|저의\s?)?생일)"),
         0.7, 1),
    # addresses: only a real address shape
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])(?:" + _SIDO + r"\s?)?" + _SGG + r"\s?(?:" + _ROAD + "|" + _DONG_NUM + "|" + _DONG +
                          r"(?:\s?" + _ROAD + "|\\s?" + _DONG_NUM + "|\\s?" + r"\d{1,5}(?:-\d{1,5})?(?:번지)?)?)" + _UNIT), 0.75),
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])" + _SIDO + r"\s" + r"[가-힣]{1,6}(?:시|군|구)\s?(?:" + _ROAD + "|" + _DONG_NUM + ")"),
         0.7),
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])[가-힣0-9]{1,10}(?:대로|로)\s?\d{1,4}(?:번)?길\s?\d{1,5}(?:-\d{1,5})?" + _E), 0.7),
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])[가-힣0-9]{1,8}(?:동|읍|면|(?<!자)리)\s?\d{1,5}(?:-\d{1,5})?\s?번지"), 0.75),
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])[가-힣0-9]{1,10}(?:대로|로|길)\s?\d{1,4}(?:-\d{1,4})?(?=\s?(?:\d{1,3}\s?층|"
                          r"\d{1,4}\s?호|번지|빌딩|타워|건물|상가|오피스텔|아파트|빌라))"), 0.7),
    # a road name and its building number without the city (중앙대로 108, 송정길 7-3, 봉선로 백이십삼):
    # a word of two syllables or more ending in 대로/로/길 (not the particle 으로), then a number
    # that no counter follows (버스로 20분, 올해로 3년째 are quantities)
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])[가-힣]{2,10}(?<!으)(?:대로|로|길)\s?(?:\d{1,5}(?:-\d{1,5})?(?:(?![0-9.,:/])|(?=,\s?\d{1,4}\s?(?:동|호|층)))|" + _SINO_NUMBER +
                          r")(?:번지)?" + _E + r"(?!\s?(?:원|명|개|번|년|점|등|살|세|시|분|초|위|회|권|장|일|주|달|만|천|억|km|m|%|째|"
                          r"배|대|평|kg|cm|학년|반|기|교시|차|박|층|호|미터|킬로))"), 0.7),
    # a neighbourhood with a lot number in its dashed form (역삼동 738-12)
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])[가-힣]{1,8}(?:동|읍|면|(?<!자)리)\s?(?:산\s?)?\d{1,5}-\d{1,5}" + _E), 0.7),
    # a village (리) and its plain lot number in a sentence about where someone lives (할머니댁 가나리 312): the
    # word is no common one (거리 200, 머리 2); a military post box (사서함 701-15호)
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])[가-힣]{1,6}(?<![자거머소다우보요])리\s(?:산\s?)?\d{1,4}" + _E + _UNIT_AFTER +
                          r"(?!\s?(?:km|m|미터|킬로|평|대|호|배|차))"), 0.65, 0,
         _village_lot_ok, _patterns.compile(r"댁|집|주소|고향|시골|본가|친정|시댁|[면읍]\s")),
    # … a post box has a dashed number or 호 (not 음성 사서함 3번, the third voicemail)
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])(?<!음성\s)사서함\s?\d{1,5}(?:-\d{1,5}(?:\s?호)?|\s?호)" + _E), 0.7, 0, None,
         _patterns.compile(r"사서함")),
    Rule("KR_ADDRESS", _c(r"(?<![가-힣A-Za-z0-9])(?:[가-힣A-Za-z0-9]{1,12}(?:아파트|빌라|오피스텔|맨션)\s?)?\d{1,4}\s?동\s?"
                          r"\d{1,5}\s?호"), 0.75),
    Rule("KR_ADDRESS", _c(r"(?<![가-힣A-Za-z0-9])[가-힣A-Za-z0-9]{1,12}(?:아파트|빌라|오피스텔|맨션)\s?\d{1,4}\s?동"), 0.7),
    Rule("URL_PERSONAL", _c(r"https?://[^\s가-힣]+"), 0.6),
    # SNS ids: @handle, or a handle after 인스타/카톡/아이디 …
    Rule("SNS_HANDLE", _c(r"(?<![A-Za-z0-9._%+\-])@(?P<h>[A-Za-z0-9_.]{3,30}|[가-힣][가-힣A-Za-z0-9_.]{2,29}|[A-Za-z0-9_.가-힣]*[가-힣][A-Za-z0-9_.가-힣]*_[A-Za-z0-9_.가-힣]+)"), 0.6),
    # a Discord-style tag (name#1234)
    Rule("SNS_HANDLE", _c(r"(?<![A-Za-z0-9_.#가-힣])[A-Za-z가-힣][A-Za-z0-9_.가-힣]{1,31}#\d{4}(?![0-9])"), 0.6),
    Rule("SNS_HANDLE", _c(_SNS + r"[가-힣ㄱ-ㅎㅏ-ㅣ\s:()]{0,16}?(?<![A-Za-z0-9_.])(?P<h>[A-Za-z0-9][A-Za-z0-9_.]{2,29})"
                          r"(?![A-Za-z0-9_.@])", re.IGNORECASE), 0.65, "h", _handle_ok),
    # an RRN/FRN whose halves are joined by a spoken word (770421에 1038265, 900101 다시 1234567)
    Rule("KR_RRN", _c(_B + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\s?(?:에|다시|하고|그리고|,)\s?[1-4]\d{6}" + _E), 0.8),
    Rule("KR_FRN", _c(_B + r"\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\s?(?:에|다시|하고|그리고|,)\s?[5-8]\d{6}" + _E), 0.8),
    # one value read out group by group (앞에 110 그다음 391 그다음 558204; 앞 네자리 … 그담 3318 …
    # 마지막 …; 앞에는 156 가운데 보 뒤는 3382): every group after a chain word, in a sentence
    # about a number with two chain words or another part of the value
    Rule("LONG_DIGITS", _c(_CHAIN_WORD + r"\s?(?:(?:\d|네|세|두|여섯|일곱)\s?자리\s?)?(?:는|은|가|요|:)?\s?(" + _B +
                           r"\d{3,8})" + _E + _UNIT_AFTER), 0.6, 1, _chain_ok, _CHAIN_NEEDS, kind=_half_kind),
    # a card's security code with its cue (cvc 418, CVV: 123, 보안코드 0921)
    # a card's expiry date after its cue (유효기간 08/28, exp 11/27): it identifies the card with its number
    Rule("CREDIT_CARD", _c(r"(?<![A-Za-z])(?:유효\s?기간|유효\s?기한|만료\s?일?|(?i:exp(?:iry|iration)?\.?|valid\s?thru))\s?"
                           r"(?:은|는|이|:)?\s?(?P<v>(?:0[1-9]|1[0-2])\s?/\s?\d{2}(?:\d{2})?)(?![0-9])"), 0.7, "v", None,
         _patterns.compile(r"유효|만료|(?i:exp|valid)")),
    Rule("CREDIT_CARD", _c(r"(?<![A-Za-z])(?:cvc2?|cvv2?|cid|보안\s?코드|보안\s?번호)\s?(?:는|은|:|번호는?)?\s?\d{3,4}" + _E,
                           re.IGNORECASE), 0.8, 0, None, _CVC_NEEDS),
    # an e-mail spelled out word by word (kimnari 쩜 0312 골뱅이 naver 쩜 com; 에스오엠아이 공팔 골뱅이
    # 지메일닷컴): spelled tokens, a spoken or written @, then a spelled domain
    Rule("EMAIL_ADDRESS", _c(r"(?<![가-힣A-Za-z0-9._\-])(?:" + _SPELL_TOKEN + r"\s?){1,8}(?:@|＠|골뱅이|\(at\)|\[at\]|\bat\b|(?<![가-힣])[앳엣](?![가-힣]))\s?"
                             r"(?:" + _FIRST_DOMAIN + r")(?:\s?(?:" + _DOMAIN_TOKEN + r"))*"), 0.85, 0, None, _SPOKEN_AT),
    # the local part alone after a mail cue (네이버 메일 ryu.dongmin 이요)
    Rule("EMAIL_ADDRESS", _c(r"(?:이메일|메일|e-?mail|mail)(?:\s?주소|\s?아이디)?(?:는|은|이|가|요|:)?\s?(?<![A-Za-z0-9._\-])"
                             r"([A-Za-z][A-Za-z0-9._\-]{2,}[A-Za-z0-9])(?![A-Za-z0-9._\-]*@)(?![A-Za-z0-9])", re.IGNORECASE),
         0.7, 1, _local_part_ok, _MAIL_WORD),
    # a plate read out in Korean digit words (차량번호 이삼사 가 오육칠팔), in a sentence about a car
    Rule("KR_CAR_PLATE", _c(r"(?<![가-힣0-9])(?:" + _KD + r"\s?){2,3}\s?[" + _PLATE_SYL + r"]\s(?:" + _KD + r"\s?){3}" + _KD +
                            r"(?![가-힣0-9])"), 0.7, 0, _car_sentence, _CAR_CUE),
    # grade and class in a sentence that names a school: the school rule masks the school, this the
    # class given apart (한결중 3학년인데 반은 5반; 해솔고등학교고요 2학년 4반이에요)
    Rule("KR_SCHOOL", _c(r"(?<![0-9])\d{1,2}\s?학년(?:\s?\d{1,2}\s?반)?(?:\s?\d{1,2}\s?번)?|(?<![0-9])\d{1,2}\s?반(?![가-힣])"),
         0.6, 0, _school_sentence, _GRADE_NEEDS),
    # the region before a school (부산 해솔고등학교)
    Rule("KR_SCHOOL", _c(r"(?<![가-힣])" + _SIDO + r"\s(?P<pre>[가-힣]{2,10})" + _SCHOOL_KIND), 0.7, 0, _school_ok, _SCHOOL_WORD),
    # a neighbourhood and lot number before a building name (영통동 1002 삼성아파트 3동)
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])[가-힣]{1,8}(?:동|읍|면|(?<!자)리)\s?\d{1,5}(?:-\d{1,5})?(?=\s?[가-힣A-Za-z0-9]{0,12}"
                          r"(?:아파트|빌라|오피스텔|맨션|타운|빌딩))"), 0.7),
    # a region with its district in a sentence that also gives the rest of the address
    # (서울 노원구... 상계동 1108 주공아파트 9동)
    Rule("KR_ADDRESS", _c(r"(?<![가-힣])" + _SIDO + r"\s?" + _SGG), 0.65, 0, _address_sentence),
    # a nickname after its cue, before the verb that says it is used (닉 디시에서 우울한감자 쓰고)
    Rule("SNS_HANDLE", _c(r"(?:닉네임|닉넴|닉|별명|아이디|아디|계정)[^\n]{0,12}?(?<![가-힣A-Za-z0-9_.])(?P<h>[가-힣A-Za-z0-9_.]{3,16})"
                          # … not a Hangul word with the particle of a means or object (전화번호로만 써요, 본명을 써요)
                          r"(?<![가-힣]로)(?<![가-힣]로만)(?<![가-힣]으로)(?<![가-힣]을)(?<![가-힣]를)(?<![가-힣]만)"
                          r"\s?(?=쓰고|써요|써|쓰는|씀|씁니다|쓰거든|쓰는데)"), 0.6, "h", None, _NICK_NEEDS),
    # a Hangul nickname typed as one word after its cue (닉네임 맹구는못말려): a word of four syllables or more that
    # morphology does not know at all (not 닉네임 바꿨어요, 닉네임 정하기가)
    Rule("SNS_HANDLE", _c(r"(?:닉네임|닉넴|닉|별명)(?:은|는|이|:)?\s(?P<h>[가-힣]{4,12})(?=[\s,.!?~…]|$)"), 0.6, "h", _unknown_word_handle,
         _NICK_NEEDS),
    # the local part given apart from its domain (끝이 @snu.ac.kr인데 앞은 jhlee77이에요)
    Rule("EMAIL_ADDRESS", _c(r"(?:앞부분|앞자리|앞쪽|앞|아이디)(?:은|는|이|가|에는|:)?\s?(?<![A-Za-z0-9._\-])"
                             r"([A-Za-z][A-Za-z0-9._\-]{1,}[A-Za-z0-9])(?![A-Za-z0-9._\-]*@)(?![A-Za-z0-9])"),
         0.7, 1, _local_part_ok, _MAIL_WORD),
    # a plate with its region and district written before it (오토바이 번호판 서울강남 가 1234)
    Rule("KR_CAR_PLATE", _c(r"(?<![0-9가-힣])(?:서울|부산|대구|인천|광주|대전|울산|세종|경기|강원|충북|충남|전북|전남|"
                            r"경북|경남|제주)[가-힣]{1,4}\s?(?:\d{1,3}\s?)?[" + _PLATE_SYL + r"]\s?\d{4}" + _E + _UNIT_AFTER),
         0.7, 0, _car_sentence, _CAR_CUE),
    # a profile address without its scheme (instagram.com/ssol_hee)
    Rule("URL_PERSONAL", _c(r"(?<![A-Za-z0-9._\-@/])(?:[A-Za-z0-9\-]+\.)+[A-Za-z]{2,3}(?:\.[A-Za-z]{2})?/[^\s가-힣]+"),
         0.6, 0, None, _URL_PATH_NEEDS),
    # the general shape rule: any identifier-shaped digit run (typed by its shape) that is no
    # quantity, date or time; the specific rules above give the finer types
    Rule("LONG_DIGITS", _IDRUN, 0.62, 0, _idrun_ok, kind=lambda m: _id_kind(m.group(0))),
) + _value_cue_rules()

_NEEDS_DIGIT = _patterns.compile(r"\d")
_NEEDS_D3 = _patterns.compile(r"\d{3}")
_NEEDS_D4 = _patterns.compile(r"\d{4}")
#: seven digit units with at most three characters between neighbours: every digit run the
#: general rule accepts contains this (speed only)
_NEEDS_IDRUN = _patterns.compile(r"(?:[0-9*#][^0-9*#\n]{0,3}){6}[0-9*#]")
_NEEDS: dict[str, re.Pattern[str]] = {
    # every shape below contains a run of at least that many digits (RRN halves have 6 or 7,
    # cards and plates a group of 4, a 10+ digit account a group of at least 3)
    "KR_RRN": _patterns.compile(r"\d{4}|주민|등록"), "KR_FRN": _NEEDS_D4, "KR_LANDLINE": _NEEDS_D4, "KR_DRIVER_LICENSE": _NEEDS_D4,
    "CREDIT_CARD": _NEEDS_D4, "KR_PASSPORT": _NEEDS_D3, "KR_ACCOUNT": _NEEDS_D3, "LONG_DIGITS": _NEEDS_D4,
    "KR_CAR_PLATE": _NEEDS_D4,
    "KR_BIRTHDAY": _patterns.compile(r"\d|생일|생년|생신|출생|태어난|birthday", re.IGNORECASE),
    "KR_PHONE": _patterns.compile(r"\d{3}|[공영Oo]\s?[일1]"),
    "EMAIL_ADDRESS": _patterns.compile(r"[@＠]|\(at\)|\[at\]|골뱅이|\s(?:at|AT)\s"),  # noqa: E501
    "KR_SCHOOL": _patterns.compile(r"[고중초대]"),  # every school rule ends its name in one of these
    "KR_ADDRESS": _patterns.compile(r"\d|[동읍면리]|[로길]\s?[일이삼사오육칠팔구]*[천백십]"),
    "URL_PERSONAL": _patterns.compile(r"https?:"),
    "SNS_HANDLE": _patterns.compile(r"[A-Za-z@#]"),
}
RULES = tuple(Rule(r.entity, r.regex, r.score, r.group, r.check,
                   _PASSPORT_CUE if r.check is _passport_sentence else
                   _NEEDS_IDRUN if r.regex is _IDRUN else
                   r.needs if r.needs is not None and r.needs is not _HALF_CUE else _NEEDS.get(r.entity), r.kind, r.kinds)
              for r in RULES)

# --------------------------------------------------------------------------- names

_SURNAMES_2 = ("남궁", "황보", "제갈", "선우", "독고", "사공", "서문", "동방", "어금", "망절")
_SURNAMES_1 = ("김이박최정강조윤장임한오서신권황안송류유전홍고문양손배백허남심노하곽성차주우구민진나지엄채원천방공"
               "현함변염여추도소석선설마길연위표명기반라왕금옥육인맹제모탁국어은편용예경봉사부봉감견계단두빈온태피필범승초")
_SUR = "(?:" + "|".join(_SURNAMES_2) + "|[" + _SURNAMES_1 + "])"
_HG = "[가-힣]"
_END = r"(?=[\s,.!?~…\"'()\]]|$)"
#: particles and endings that may follow a name before the word ends
_TAIL = ("(?:이고요|이구요|고요|구요|요|이고|이에요|이예요|예요|에요|입니다|이야|야|이요|이라고|라고|이라는|라는|이랑|랑|"
         "이가|이는|이도|이를|이의|이한테|이하고|이네|이처럼|이만|이와|가|는|은|이|도|를|을|의|와|과|하고|한테|에게|"
         "께|께서|님|씨|아|이었어요|였어요|이었는데|였는데|인데요|인데|이라서|라서|이랑은|랑은|한테서|이한테서|이네요|네요|"
         "이거든요|거든요|이라서요|이에요|이요|입니다|이었어|였어|이었거든요|였거든요|이었고|였고|이었다|였다|이었지|였지)?")
_SUR_START = _patterns.compile(_SUR)
_INTRO = r"(?:저는|전|나는|난|저|나|제\s?이름은|내\s?이름은|이름은|이름이|제\s?이름이|내\s?이름이)"

_KIN = (r"(?:딸|아들|동생|남동생|여동생|언니|오빠|누나|형|남편|아내|와이프|신랑|친구|짝꿍|짝|남친|여친|남자친구|여자친구|손녀|"
        r"손자|조카|막내|첫째|둘째|셋째|큰애|작은애|아빠|엄마|어머니|아버지|선배|후배|담임|팀장|내담자|학생|신청자|보호자|사촌|"
        r"애인|룸메|룸메이트|반장|애|아이|자녀|딸아이|의뢰인|상담자|상담사|작성자|담당자|담당|영감|할멈|마누라|바깥양반|손주|조교)")

#: a familiar suffix after a kin word (아들놈, 딸내미, 동생 녀석 is two words)
_KIN_SUFFIX = r"(?:놈|녀석|내미|래미)?"
#: what may stand before a kin word inside it (새아빠, 친엄마, 의붓형, 전남편, 큰아빠)
_KIN_PREFIX = r"(?:새|친|의붓|전|큰|작은)?"
#: a bare 나/너/저 as the object of what someone did (현서가 나 버리고 갔잖아): the object particle
#: dropped in speech
_BARE_OBJECT_VERB = (r"(?:버리|버렸|두고|놔두|빼고|뺐|놀리|놀렸|때리|때렸|무시|따돌|괴롭|좋아|싫어|미워|밀치|밀었|챙겨|"
                     r"도와|불러|찾아|기다리|기다렸|쳐다|째려|노려|차단|씹|욕하|욕했|속였|배신|피하|피했)")

_KIN_PARALLEL = _patterns.compile(r"(?<![가-힣])" + _KIN + r"(?:는|은)\s(?P<n>" + _HG + r"{2,4}?)"
                           r"(?=\s(?:나|저|너|" + _KIN + r")(?:는|은)\s)")

#: person nouns people put after a name as a title (장옥순 여사님, 문상철 아저씨, 로버트 아저씨)
_PERSON_TITLE = r"(?:아저씨|아줌마|아주머니|여사님|여사|사모님|어르신|할매|할배|선생|권사님|권사|집사님|집사|장로님|장로|전도사님|전도사|스님)"
#: military ranks, enlisted to colonel: a soldier is named by surname or full name and rank (김 일병, 윤태섭 병장님)
_RANK = r"(?:이병|일병|상병|병장|하사|중사|상사|원사|준위|소위|중위|대위|소령|중령|대령)"

_NAME_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # strong cues: any 2-4 syllable word that morphology does not know as a common word
    ("intro", _patterns.compile(r"(?<![가-힣])" + _INTRO + r"\s+(?P<n>" + _HG + r"{2,4}?)(?=(?:이고요|이구요|고요|구요|이고|이에요|이예요|예요|에요|입니다|"
                         r"이야|야|이요|이라고|라고|이라고요|라고요|임|이|인데요|인데|이거든요|이었어요|였어요|,)?" + r"(?:[\s,.!?~…]|$))")),
    ("named", _patterns.compile(r"(?:(?:이름|성함|존함)(?:은|이)?요?\s?\?\s?|예금주(?:는|가|명은|명)?\s?:?|명의자|이름은|이름이|이름\s?:|이름|성함은|성함이|성함|존함은|존함이|존함|성명\s?:|성명은|성명이|성명|본명은|본명이|본명|내담자명\s?:?|"
                         r"실명은|실명)\s?[\"'“‘]?(?P<n>" + _HG + r"{2,4}?)(?=(?:이에요|이예요|예요|에요|입니다|이고요|고요|"
                         r"이고|고|이야|야|이라고|라고|이요|요|임|인데요|인데|이래요|래요|이라는데|라는데|이라는|라는|이세요|세요|이십니다|"
                         # dialect copulas and quotatives (정우진인디, 송지아라카대예, 민호여)
                         r"인디|인디요|이라카[가-힣]{0,3}|라카[가-힣]{0,3}|이랑께|이여|여|이라예|라예|이다|다|"
                         r"이었어요|였어요|이었는데|였는데|이시고|시고|이시며|시며|이신데|신데|이시거든요|시거든요|"
                         # any past or questioning copula (태린이었나, 혜나였던가, 서하인가)
                         r"(?:이었|였)[가-힣]{0,4}|(?:인|이던|던|이었던|였던)가요?)?[\"'”’]?(?:[\s,.!?~…()/]|$))")),
    ("called", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)[\"'”’]?(?:이라고|라고|이라구|라구)(?:만|도)?\s?(?:해요|합니다|하고요|해|할게|할께|할래|하자|합시다|하겠|"
                          r"불러|부르|하는|했|하더|하는데|하거든|써|쓰|적어|적|씁니다|불렀|불리|있는|있어|있었|있거든)")),
    ("called", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)[\"'”’]?(?:이라는|라는|이란|란)\s(?:[가-힣]{2,5}\s)?(?:애|친구|사람|아이|남자애|"
                          r"여자애|남자|여자|선배|후배|분|학생|동생|언니|오빠|형|누나|선생님|쌤|이름|동료|직원|손님|이웃|애인|남친|여친|"
                          r"남자친구|여자친구|아저씨|아줌마|할머니|할아버지|교수|상사|팀장|룸메|[가-힣]{1,3}인\s(?:동료|친구|직원|학생|사람|"
                          r"남자|여자|선생님|분))")),
    # 쥬리라고 일본인이에요, 민수라고 옆집 사람: a name, 라고, then who that person is
    ("called", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)[\"'”’]?(?:이라고|라고)\s(?:[가-힣]{1,3}인|[가-힣]{1,3}\s사람|"
                          r"[가-힣]{0,3}(?:친구|동료|선배|후배|직원))(?=[가-힣]{0,5}(?:[\s,.!?~…]|$))")),
    ("vocative", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,3}?)(?:야|아)(?=[\s,.!?~…\"'’”)ㅋㅎㅠㅜ]|$)")),
    ("title", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4})\s?(?:씨|님|선생님|쌤|샘|선배|후배|언니|오빠|누나|형|이모|"
                         r"삼촌|교수님|담임|원장님|팀장님|과장님|대리님|학생|군|양|엄마|아빠|어머님|아버님|어머니|아버지|할머니|할아버지|"
                         r"부장님|실장님|사장님|대표님|목사님|코치님|감독님|주무관님|간호사님|상담사님|보호자|조교님|조교|" + _PERSON_TITLE + r")(?![가-힣])")),
    ("title", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4})\s?(?:씨|님|선생님|쌤|샘|선배|후배|언니|오빠|누나|형|학생|엄마|아빠|어머니|아버지|"
                         r"할머니|할아버지|이모|삼촌|고모|외삼촌|교수님|" + _PERSON_TITLE + r")"
                         r"(?=(?:님|이|가|는|은|도|를|을|의|한테|랑|하고|께|께서|이랑|에게|요|이에요|예요|네|처럼|인데|인데요|"
                         r"이었|였|이라|이랑은|한테서|이|께서는|들|입니|입죠)[가-힣]*(?:[\s,.!?~…)]|$))")),
    # a job title after a space, then any ending (남궁혁 팀장님이신데, 봉준길 주임이에요)
    ("title", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4})\s(?:팀장|과장|부장|차장|대리|주임|실장|원장|교장|교감|교수|사장|"
                         r"대표|이사|상무|전무|목사|신부|수녀|코치|감독|주무관|간호사|기사|변호사|의사|간사|위원장|위원|회장|총무|"
                         r"선생|반장|" + _RANK[3:-1] + r")(?:님)?(?=[가-힣]*(?:[\s,.!?~…)]|$))")),
    # 흐엉이 제 아내예요: a name, a subject/topic particle, then whose kin it is
    ("kinpred", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이|가|은|는)\s(?:제|내|우리|저희)\s(?:아내|남편|와이프|신랑|"
                           r"딸|아들|동생|남동생|여동생|친구|남친|여친|남자친구|여자친구|애인|엄마|아빠|형|누나|언니|오빠|담임|"
                           r"선생님|짝꿍|사촌|조카|손녀|손자)(?=이에요|예요|입니다|이야|야|이고|고|인데|이거든요|거든요|[\s,.!?~…]|$)")),
    # a subject said to be a person (마이클이 영어학원 원어민 쌤인데, 투안은 같은 반 친구예요): the
    # predicate is a person noun with its copula, up to two words describing it in between
    ("kinpred", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이가|가|이는|는|은|이)\s(?:[가-힣]{1,6}\s){0,2}(?:쌤|선생님|선배|후배|"
                           r"친구|동창|동기|언니|오빠|누나|형|동생|남친|여친|남자친구|여자친구|애인|담임|강사|코치|교수님|사장님|팀장님|"
                           r"룸메|룸메이트|짝꿍|반장|이웃)(?:이에요|예요|인데요|인데|이야|야|이고|고|입니다|이세요|세요|이신데|신데|이었어요|였어요)"
                           r"(?=[\s,.!?~…]|$)")),
    # a pupil by the class they are in (은혜는 3반이고, 2반 유리) or said to be a new or class pupil (미소가
    # 전학생인데): only people are in a class
    # … the class said with its copula or ending the sentence (은혜는 3반이고; not 하늘은 3반 교실에서), the name after
    # the class ending the sentence, taking a particle of a person or known as one (2반 유리?, 2반 유리랑, 6반 지혜
    # 아세요; not 2반 유리 조심해)
    ("schoolmate", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,3}?)(?:이는|는|은|이가|가|이|이도|도)\s\d{1,2}\s?반"
                              r"(?=(?:이고|이고요|이에요|이야|인데|인데요|이래|이래요|임|이었어|이었어요|였어|이거든)(?:[\s,.!?~…]|$)|"
                              r"\s?[,.!?~…]|\s?$)")),
    ("schoolmate", _patterns.compile(r"(?<![0-9])\d{1,2}\s?반\s(?P<n>" + _HG + r"{2,3}?)(?=(?:이랑|랑|한테|이한테|하고|이하고|이요|요)?"
                              r"(?:[,.!?~…]|$)|(?:이랑|랑|한테|이한테|하고|이하고)\s|\s(?:알아|아세요|알지|있잖아)(?![가-힣]{3}))")),
    ("schoolmate", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,3}?)(?:이가|가|이는|는|은|이)\s(?:전학생|신입생|부반장|반장)"
                              r"(?:이에요|예요|인데요|인데|이야|야|이고|임|이래요|이래)(?=[\s,.!?~…]|$)")),
    # a subject that does something to the speaker (알렉스가 나한테, 도하가요 저한테): people do that,
    # places and things hardly; any word morphology reads as a proper noun or does not know
    ("agent", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이가|가|이는|는|은|이)(?:요|아{1,3}|~{1,3})?\s(?:(?:나|저|너|내|제)(?:한테|에게|게|를|보고|더러|"
                         r"한테다|한테만|한테도|에게만)(?=[\s,.!?~…]|$)|"
                         # … or says something (제임스가 그러는데, 투안이 말하길)
                         r"(?:그러는데|그러더라|그러던데|그랬어|그랬는데|그랬대|그러길래|말했|말하길|말하더라|얘기했|물어봤|알려줬))")),
    # … or does something to a bare 나/너 (현서가 나 버리고), the object particle dropped
    ("agent", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이가|가|이)\s(?:나|너|저)\s" + _BARE_OBJECT_VERB)),
    # a name with a pronoun for a person right after it (태오 걔는 나 싫어해, 서하 쟤가)
    # … or after it (그 새끼 강태오 진짜 싫어)
    ("comitative", _patterns.compile(r"(?<![가-힣])(?:걔|쟤|그\s?(?:새끼|놈|자식|녀석|인간|년))\s(?P<n>" + _SUR + _HG + r"{2})"
                              r"(?=(?:이가|가|이는|는|은|이|도|을|를|이랑|랑|한테)?(?:[\s,.!?~…]|$))")),
    ("comitative", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4})\s(?:[가-힣]{1,3}\s)?(?:걔|쟤|얘|그\s?(?:새끼|놈|자식|녀석|인간|년))"
                              r"(?:가|는|도|랑|한테|를|이|만|하고)?(?![가-힣])")),
    # two people side by side, then how many they are (알렉스랑 소피아 둘 다)
    ("comitative", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이랑|랑|이하고|하고|이와|와|과)\s" + _HG + r"{2,4}\s"
                              r"(?:둘|셋|둘이|셋이|두\s?명|세\s?명)(?![가-힣])")),
    # with the speaker (라희랑 제가 베프예요, 서하하고 나는): a companion of the speaker is a person
    ("comitative", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이랑|랑|이하고|하고|이와|와|과)\s"
                              r"(?:제가|내가|저는|나는|전|난|저도|나도|저만|나만|둘이|나랑|저랑|나하고|저하고|나랑은|저랑은)(?![가-힣])")),
    # a subject the same sentence then calls 걔 / 그 애 / 그 사람 (알렉스가 한국말을 잘 못해서 걔랑
    # 있으면): the antecedent of a pronoun for a person is a person
    ("agent", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이가|가|이)\s[^.?!\n]{0,30}?(?<![가-힣])"
                         r"(?:걔|쟤|그\s?애|그\s?사람|그\s?친구|그\s?분)(?:가|는|랑|한테|를|도|하고|이|이랑|은|의)?(?![가-힣])")),
    # a subject that came from a place is a person (하루토는 일본에서 왔어요, 투안이 베트남에서 온)
    ("origin", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이가|가|이는|는|은|이)\s(?:[가-힣]{1,8}\s)?[가-힣]{1,8}에서\s?"
                          r"(?:왔|온|오셨|오신|이민|유학|전학)")),
    # … or someone introduced by where they came from (중국에서 온 왕하오랑, 몽골에서 유학 온 바트가)
    ("origin", _patterns.compile(r"에서\s?(?:유학\s|전학\s|교환학생으로\s)?(?:온|오신)\s(?P<n>" + _HG + r"{2,4}?)(?:이랑|랑|이가|가|이는|는|은|"
                          r"이|이하고|하고|한테|이한테|도|이도|를|을|이를|의|이랑은)(?=[\s,.!?~…]|$)")),
    # … and bare before "you know him" (중국에서 온 왕하오 있잖아요)
    ("origin", _patterns.compile(r"에서\s?(?:유학\s|전학\s|교환학생으로\s)?(?:온|오신)\s(?P<n>" + _HG + r"{2,4})(?=\s(?:있잖아|있잖아요|알지|알아요?|아세요)"
                          r"(?![가-힣]))")),
    # a subject that keeps doing something (바트볼드가 자꾸, 사라가 먼저): a frequency or order adverb
    # right after a subject is said of people; common nouns are vetoed as for every agent
    ("agent", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이가|가|이)\s(?:자꾸|맨날|계속|먼저|또|갑자기|만날|자꾸만|매일|항상|늘)"
                         r"(?![가-힣])")),
    # a recipient: 한테/에게 mark a person (or an animal), never a place (사라한테 물어봤어)
    ("recipient", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4}?)(?:이한테서|한테서|이한테|한테|이에게|에게)(?:도|만|는|요)?"
                             r"(?=[\s,.!?~…]|$)")),
    ("family", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,3}?)(?:이네|네)\s?(?:언니|오빠|누나|형|동생|엄마|아빠|집|어머니|아버지)")),
    ("kin", _patterns.compile(r"(?<![가-힣])" + _KIN_PREFIX + _KIN + _KIN_SUFFIX + r"(?:\s|\s?[(:]\s?)"
                       r"(?P<n>" + _HG + r"{2,4}?)(?=(?:이가|이는|이를|이한테|이랑|이도|이의|이하고|이네|가|는|은|를|을|"
                       r"한테|랑|하고|도|의|와|과|이|이요|이에요|예요|에게|이에게|인데요|인데|이고|이고요|고요|이거든요|\)|"
                       r"(?:이)?(?:처럼|보다|만|까지|조차|밖에|부터|보고|한테서|같이|께|께서))?(?:[\s,.!?~…)]|$))")),
    # 아빠는 권혁수, 엄마는 오정아예요 / 저희 애가 민결인데요: kin word + particle, then a name that
    # ends its clause with a copula or a comma
    ("kin", _patterns.compile(r"(?<![가-힣])" + _KIN_PREFIX + _KIN + r"(?:는|은|가|이)\s(?P<n>" + _HG + r"{2,4}?)(?=(?:이에요|예요|이고요|이고|고요|"
                       r"인데요|인데|입니다|이요|인디|인디요|이여|,)(?:[\s,.!?~…)]|$))")),
    # two kin topics side by side, each with a bare name (형은 민재 나는 민혁)
    ("kin", _KIN_PARALLEL),
    ("hypocoristic", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2})이(?:가|는|랑|한테|도|를|의|하고|네|와|처럼|만|까지|에게|"
                                r"보고|한테서|랑은|도요|요|야|잖아|였어요|였는데|인데|라서|이에요|예요)?요?" + _END)),
    # weak cue: a two-syllable given name morphology tags as a proper noun, then a particle
    ("given", _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2})(?=(?:가|는|랑|한테|하고|에게|도|를|의|와|만|까지|조차|보다|"
                         r"처럼|부터|밖에|한테서|께)요?"
                         r"(?:[\s,.!?~…]|$)|\s(?:있잖아|때문에|때문이|덕분에))")),
    # weak cue: a full name (surname + 2 syllables) followed by a particle or the end of the word
    ("full", _patterns.compile(r"(?<![가-힣])(?P<n>" + _SUR + _HG + r"{2})(?=" + _TAIL + r"(?:[\s,.!?~…\"'()\]]|$))")),
)

#: syllables of common given names: surname + two of these, unknown to morphology, is a name
_NAME_SYL = frozenset("".join(_GIVEN) + "결솔슬람율온린별빈윤훈혁석철경숙희미란옥순자영혜선정은주나래담봄찬") - {"이"}
_FUNCTIONAL = _patterns.compile(r"^(?:J|E|XS|VCP|VCN)")
_PLACE_END = ("역", "대", "시", "구", "군", "도", "산", "강", "천", "동", "읍", "면", "교", "점", "관", "청", "병원", "마트")


#: the process-wide analyser, or None (logs once why) — also the crisis cues' way in
_load_kiwi = morph.kiwi_or_warn
#: kiwipiepy's tokens of a text (start, len, tag, oov), the shipped analyses first (:func:`morph.tokens`)
_tokens = morph.tokens_or_warn
#: kiwipiepy tokens of one word (eojeol) as (start, end, tag, oov), offsets into the word: the
#: shipped analyses of frequent strings first, so a first text made of them loads no analyser
_morph_at = morph.word_tokens


def _is_noun(tag: str) -> bool:
    return tag.startswith(("NNP", "NNG", "NNB"))


@functools.lru_cache(maxsize=16384)
def _name_verdict(eojeol: str, k: int, mode: str) -> bool:
    """Does morphology let ``eojeol[:k]`` be a person's name? ``mode``: lenient | strict | given.

    The word is analysed whole (name plus particle), so the analysis sees the name in place:
    ``영어가`` is 영어/NNG + 가, ``척하는`` is 척/NNB + 하/XSV + 는, ``민지야`` is 민지/NNP + 야.
    """
    toks = _morph_at(eojeol)
    if toks is None:  # no kiwipiepy: only surname-initial full names after a cue
        return mode != "given" and bool(re.match(_SUR + _HG + "{1,2}$", eojeol[:k]))
    inside = [t for t in toks if t[0] < k]
    if not inside:
        return False
    if any(oov and s < k < e for s, e, _, oov in inside):
        return mode == "lenient"  # one unknown word runs past the name: trust only a strong cue
    if any(e > k for _, e, _, _ in inside):
        return False  # the name would cut through a word
    after = [t for t in toks if t[0] >= k]
    if after and not (_FUNCTIONAL.match(after[0][2]) or after[0][2] in ("NNB", "XSN")):
        return False
    tags = [t[2] for t in inside]
    lens = [t[1] - t[0] for t in inside]
    oovs = [t[3] for t in inside]
    if not all(_is_noun(t) or o for t, o in zip(tags, oovs)):
        return False
    if len(inside) == 1:
        if oovs[0]:
            return mode == "lenient"
        if tags[0].startswith("NNP"):
            return not eojeol[:k].endswith(_PLACE_END)
        return False  # one known common noun: 학생, 엄마, 고양이
    surname_first = tags[0].startswith("NNP") and lens[0] == 1 and eojeol[0] in _SURNAMES_1
    if mode == "lenient":
        if eojeol[0] in _SURNAMES_1 and k == 3 and eojeol[2] != "요":
            return True  # a strong cue and a surname-initial three-syllable noun: 한지+민 선생님 (not 이름+요)
        return surname_first or any(t.startswith("NNP") for t in tags) or all(n == 1 for n in lens)
    if mode == "given":
        return False
    # strict: 박+지훈, 김+서+연; a known two-syllable common noun inside (전+남친) is not a name
    return surname_first and all(t.startswith("NNP") or n == 1 for t, n in zip(tags[1:], lens[1:]))


def _common_word_at(eojeol: str, k: int) -> bool:
    """True when morphology reads ``eojeol[:k]`` as something other than a name: a particle or
    ending inside it (표정+은) or one known common word covering it (고양이)."""
    toks = _morph_at(eojeol) or ()
    if any(0 < s < k and _FUNCTIONAL.match(tag) for s, e, tag, oov in toks):
        return True
    return any(s == 0 and e >= k and not oov and not tag.startswith("NNP") for s, e, tag, oov in toks)


_EOJEOL_END = _patterns.compile(r"[가-힣]*")


@functools.lru_cache(maxsize=4096)
def _known_compound(word: str, k: int | None = None) -> bool:
    """Morphology reads ``word[:k]`` (inside the whole ``word``) as two or more known common nouns
    and nothing else, the first of two syllables or more (이번+주, 진상+손 in 진상손님)."""
    k = len(word) if k is None else k
    toks = [t for t in _morph_at(word) or () if t[0] < k]
    return len(toks) >= 2 and toks[-1][1] == k and toks[0][1] - toks[0][0] >= 2 and \
        all(not oov and tag in ("NNG", "NNB") for s, e, tag, oov in toks)


def _eojeol_end(text: str, start: int) -> int:
    """End of the run of Hangul syllables starting at ``start`` (``start`` itself when there is none)."""
    m = _EOJEOL_END.match(text, start)
    return m.end() if m else start  # the pattern matches the empty string, so m is never None
#: after a hypocoristic 이 only case particles follow; a common noun takes 이 *or* 가, never both
_HYPO_PARTICLE = _patterns.compile(r"이(?:가|는|를|한테|한테서|도|의|하고|에게|보고|처럼|까지|만)")
#: verbs that only follow a name given with 라고: 지우라고 불러요 (not 지우라고 했어 = "erase it")
_NAMING_VERB = _patterns.compile(r"(?:이라고|라고|이라구|라구)\s?(?:불러|부르|불렀|불리|써|쓰|적)")
_LIST_NEXT = _patterns.compile(r"(?:이랑|랑|이하고|하고|와|과|이나|나|이며|,|, |이와)\s?(?:그리고\s)?(?P<n>" + _HG + r"{2,4}?)"
                        r"(?=(?:" + _TAIL[3:-2] + r")?(?:[\s,.!?~…)]|$))")


#: a copula right after an unknown surname-initial word: 문가람이요, 육정훈입니다
_COPULA_AFTER = _patterns.compile(r"(?:이요|이에요|이예요|입니다|이고요|이고|인데요|인데|이야|이었어요|(?:이)?었거든요|였거든요|"
                           r"(?:이)?었는데요?|였는데요?|(?:이)?었고|였고|였다|이었다|였지|이었지)$")


#: the copula that closes a name after 이름은/성함이 (하늘이에요, 지혜예요, 보람입니다)
_NAMED_COPULA = _patterns.compile(r"(?:이)?(?:요|에요|예요|입니다|고요|고|인데요|인데|야|였어요|었어요|였는데|었는데|래요|라고요?)$")
_LIST_PREV = _patterns.compile(r"(?<![가-힣])(?P<n>" + _HG + r"{2,4})(?:이랑|랑|하고|와|과|,|이나)\s?(?:그리고\s)?\Z")


#: cues too weak to send every candidate to morphology: the candidate must end in two given-name
#: syllables first (a cheap test that keeps kiwipiepy unloaded for most texts)
_WEAK_CUES = frozenset({"given", "full", "hypocoristic", "vocative"})


def _known_word_covers(eojeol: str, k: int) -> bool:
    """One known, non-proper word of the analysis covers ``eojeol[:k]`` (고양이, 지금, 진짜)."""
    toks = _morph_at(eojeol) or ()
    return any(s == 0 and e >= k and not oov and not tag.startswith("NNP") for s, e, tag, oov in toks)


def _strong_ok(eojeol: str, k: int) -> bool:
    """A strong cue (저는 X예요, X라고 불러요): any word but a known common one or a particle run."""
    if _morph_at(eojeol) is None:
        return bool(re.match(_SUR + _HG + "{1,2}$", eojeol[:k])) or eojeol[:k] in _GIVEN
    toks = _morph_at(eojeol) or ()
    if any(s < k and not oov and tag.startswith(("VV", "VA", "VX")) for s, e, tag, oov in toks):
        return False  # 저 잘되라고: a verb inside
    return not _common_word_at(eojeol, k)


def _surname_name_ok(eojeol: str, k: int, *, strict_start: bool = True) -> bool:
    """A surname-initial 3-syllable (or 2+2) word that no known common word covers."""
    name = eojeol[:k]
    shaped = (k == 3 and name[0] in _SURNAMES_1) or (k == 4 and name.startswith(_SURNAMES_2))
    if not shaped or _known_word_covers(eojeol, k):
        return False
    toks = _morph_at(eojeol) or ()
    if any(s < k and not oov and tag.startswith(("V", "E", "XS", "M", "J")) for s, e, tag, oov in toks):
        return False  # 오+시+면, 방+에서, 나중+에: a verb, an ending or a particle inside
    if k == 4 or not strict_start:
        return True  # 사공+하람: a two-syllable surname may be a word (사공 = boatman) itself
    # a known common word at the start (선생+님, 설날+에, 나중+에) is no surname + given name
    return not any(s == 0 and e - s >= 2 and not oov and not tag.startswith("NNP")
                   for s, e, tag, oov in _morph_at(eojeol) or ())


def _context_tokens(text: str, start: int) -> tuple[int, tuple[Any, ...]]:
    """kiwipiepy tokens of the word at ``start`` read together with the word before it."""
    left = text.rfind(" ", 0, max(start - 1, 0)) + 1
    right = start + _eojeol_end(text, start) - start
    return start - left, _tokenize_window(text[left:right])


@functools.lru_cache(maxsize=16384)
def _tokenize_window(window: str) -> tuple[Any, ...]:
    return _tokens(window) or ()


def _context_common(text: str, start: int, k: int) -> bool:
    """In context, one known common word covers the name (저는 외동이에요: 외동/NNG)."""
    off, toks = _context_tokens(text, start)
    return any(t.start == off and t.len >= k and not t.tag.startswith("NNP") and not getattr(t, "oov", False)
               for t in toks)


def _syllable_name_ok(eojeol: str, k: int, *, strong: bool = False) -> bool:
    """Surname + two given-name syllables (류+하람, 편+은정) that no known word or verb reading covers."""
    name = eojeol[:k]
    if k != 3 or name[0] not in _SURNAMES_1 or name[1] not in _NAME_SYL or name[2] not in _NAME_SYL:
        return False
    if name in _NOT_NAMES or _known_word_covers(eojeol, k):
        return False
    toks = _morph_at(eojeol) or ()
    if any(s == 0 and oov for s, e, tag, oov in toks):
        return True  # morphology does not know the word at all: 류하람이
    if any(s == 0 and e - s >= 2 and not oov and tag.startswith(("NN", "NP", "NR", "MA")) for s, e, tag, oov in toks):
        return False  # 고민+하, 여기+서: a known word starts there
    if strong:
        return True  # 저 구하람인데요, 이름: 감나연 — morphology guesses verbs inside unknown names
    return not any(s < k and not oov and tag.startswith(("V", "EP", "EF", "EC", "ETM", "M", "XS")) for s, e, tag, oov in toks)


def _title_name_ok(eojeol: str, k: int) -> bool:
    """Before a title (씨, 학생, 선생님): a surname-initial name no known word covers or starts."""
    name = eojeol[:k]
    if k in (3, 4) and name.startswith(_SURNAMES_2):
        return not _known_word_covers(eojeol, k)
    if k != 3 or name[0] not in _SURNAMES_1 or _known_word_covers(eojeol, k):
        return False
    if any(s < k and not oov and tag.startswith(("V", "E", "J")) for s, e, tag, oov in _morph_at(eojeol) or ()):
        return False  # 이+므로: a copula and an ending, no name
    return not any(s == 0 and e - s >= 2 and not oov and not tag.startswith("NNP") for s, e, tag, oov in _morph_at(eojeol) or ())


#: nouns for a person that are no name (3반 남자애가, 2반 여학생): they take every cue a name takes
_PERSON_NOUNS = frozenset("남자 여자 남자애 여자애 남학생 여학생 남자아이 여자아이 사람 아이 애들 걔네 얘네 쟤네 전학생 신입생 선생 선배 후배 "
                          "동기 반장 부반장 회장 부회장 일진 형들 누나들 언니들 오빠들 동생들 친구들".split())
#: a possessive or kin word right before a word: 우리 정숙이, 내 동생 보람이 (someone's person)
_OWNER_BEFORE = _patterns.compile(r"(?:(?<![가-힣])(?:우리|제|내|저희|너희|니|네)|" + _KIN + r")\s$")


def _verdict(kind: str, text: str, m: re.Match[str], name: str, start: int, eojeol: str) -> bool:
    k = len(name)
    if kind in ("recipient", "agent", "origin", "comitative") and (_one_common_noun(name) or _known_word_covers(eojeol, k)
                                                      or name.endswith(("씨", "님"))):
        return False  # 하늘이 저한테, 바다가 나를 (바다/NNG + 가): a common noun needs a stronger cue
    if kind == "comitative":
        if _known_word_covers(eojeol, k) or (eojeol[k:k + 1] == "이" and _known_word_covers(eojeol, k + 1)):
            return False  # 고양이랑 제가: the 이 belongs to a common word
        return name in _GIVEN or _surname_name_ok(eojeol, k) or _name_verdict(eojeol, k, "lenient") or \
            _foreign_proper(name)
    if kind == "origin":
        return name in _GIVEN or _surname_name_ok(eojeol, k) or _name_verdict(eojeol, k, "lenient") or \
            _foreign_proper(name)
    if kind == "recipient":
        if _known_word_covers(eojeol, k) or (eojeol[k:k + 1] == "이" and _known_word_covers(eojeol, k + 1)):
            return False  # 고양이한테: the 이 belongs to a common word
        return name in _GIVEN or _surname_name_ok(eojeol, k) or _name_verdict(eojeol, k, "lenient") or \
            _foreign_proper(name)
    if kind == "agent":
        if name in _GIVEN or _surname_name_ok(eojeol, k):
            return True
        # a proper noun alone may be a place (뉴욕은 나한테 추웠어): only as a subject (이/가)
        return eojeol[k:k + 1] in ("이", "가") and (_name_verdict(eojeol, k, "lenient") or _foreign_proper(name))
    if kind == "kinpred":
        return name in _GIVEN or _name_verdict(eojeol, k, "lenient") or _surname_name_ok(eojeol, k)
    if kind == "schoolmate":
        if re.fullmatch(_KIN, name) or name in _PERSON_NOUNS or (_known_word_covers(eojeol, k)
                                                                and not all(ch in _NAME_SYL for ch in name)):
            return False  # 동생은 3반, 남자애가, 2반 교실: a person noun or a common word no given name is made of
        return name in _GIVEN or all(ch in _NAME_SYL for ch in name) or _name_verdict(eojeol, k, "lenient") or \
            _surname_name_ok(eojeol, k) or _foreign_proper(name)
    if kind == "hypocoristic":
        ok = _name_verdict(eojeol, k + 1, "lenient") or _name_verdict(eojeol, k, "lenient")
        toks = _morph_at(eojeol)
        if toks and any(t[0] == 0 and t[1] >= k + 1 and not t[3] and not t[2].startswith("NNP") for t in toks):
            return False  # 고양이, 어린이, 놀이: the 이 belongs to a common word
        after = text[start + len(eojeol):].lstrip()[:1]
        if _double_particle(eojeol, k) and not (eojeol.endswith("이가") and after in ("?", "")) and (
                name in _GIVEN or all(ch in _NAME_SYL for ch in name) or not _one_common_noun(name)
                or _SPEAKER_AFTER.match(text, start + len(eojeol))):
            return True  # 라온이가, 아름이는: 이 and then a particle after a consonant is a name's 이, not a case
            # (내일 시험이가? is the dialect's question "is it an exam?"); a common noun no given name is made of
            # only when the clause then turns to the speaker (아름이는 왜 저만 미워할까요; not 마음이가 아파)
        if ok and eojeol == name + "이" and _one_common_noun(name) and not _OWNER_BEFORE.search(text, 0, start):
            return False  # 키운 보람이 없어요: a known common noun with its bare subject 이 and no owner
            # before it (우리 정숙이, 제 동생 보람이 keep the name reading)
        return ok
    if kind == "given":
        # the weakest cue (a bare particle): only a common given name. Morphology's proper-noun
        # tag alone found no name in any dev split and read 나래(wings)를 as one.
        return name in _GIVEN
    if kind == "full":
        if _syllable_name_ok(eojeol, k) and len(eojeol) > k and not _surname_plus_common(eojeol, k):
            return True  # 류+하람이, 방+하율이라는데: surname + two given-name syllables + particle
        if (name[1:] in _GIVEN or name[2:] in _GIVEN) and not _known_word_covers(eojeol, k) \
                and (not _common_word_at(eojeol, k) or len(eojeol) > k):
            return True  # 김+서연이, 남궁+민호
        if _name_verdict(eojeol, k, "strict") or (k == 4 and _surname_name_ok(eojeol, k)):
            return True
        # an unknown surname-initial word before a copula: 문가람이요, 육정훈입니다
        return _surname_name_ok(eojeol, k) and _oov_at(eojeol, k) and _COPULA_AFTER.match(eojeol, k) is not None
    if kind == "named":
        if _NAMED_COPULA.match(eojeol, k) is not None and (name in _GIVEN or (
                k == 3 and name[0] in _SURNAMES_1 and name[1] in _NAME_SYL and name[2] in _NAME_SYL)):
            return True  # 이름은 하늘이에요, 이름은 이지원이에요: after 이름/성함 and before a copula a
            # given name (or surname + given-name syllables) is one, common word or not
        ok = (name in _GIVEN or name[1:] in _GIVEN) and not _common_word_at(eojeol, k)
        return ok or _name_verdict(eojeol, k, "lenient") or _surname_name_ok(eojeol, k) or \
            _syllable_name_ok(eojeol, k, strong=m.group(0).rstrip().endswith(":") or ":" in m.group(0))
    if kind == "intro":
        if eojeol == name and _known_compound(name):
            return False  # 저 이번주 토요일에: a bare compound of known common nouns (이번+주) after 저
        if name in _GIVEN and not _one_common_noun(name) and not _context_common(text, start, k):
            return True  # 나는 예나, …: a common given name that morphology splits (예/IC + 나)
        return (_strong_ok(eojeol, k) or _surname_name_ok(eojeol, k, strict_start=False)
                or _syllable_name_ok(eojeol, k, strong=True)) and \
            not _context_common(text, start, k)
    if kind == "called":
        if any(s < k and tag == "XSN" for s, e, tag, oov in _morph_at(eojeol) or ()):
            return False  # a common noun with its title suffix (선생+님이라고 불리는 분) is no name
        naming = _NAMING_VERB.search(m.group(0), len(name)) is not None
        if name in _GIVEN and (naming or not any(s == 0 and tag.startswith("V") for s, e, tag, oov in
                                                 _morph_at(eojeol) or ())):
            return True  # 지원이라고 불러요; but 지우라고 했어요 is "told to erase"
        if _NAMING_VERB.search(m.group(0), len(name)):
            # 지우라고 불러요: a verb stem is fine before a naming verb, a common noun is not
            # (엄마라고 불러요)
            return not any(s == 0 and e >= k and not oov and tag.startswith(("NNG", "NNB", "NP", "NR", "MA"))
                           for s, e, tag, oov in _morph_at(eojeol) or ())
        return _name_verdict(eojeol, k, "lenient")
    if kind == "kin" and hangul.has_final(name[-1]) and _HYPO_PARTICLE.match(eojeol, k) and \
            not _known_word_covers(eojeol, k + 1):
        return True  # 딸 하늘이가: a noun ending in a consonant takes 이 or 가, never 이가
    if kind == "title" and (_title_name_ok(eojeol, k) or _foreign_proper(name)):
        return True
    if kind in ("kin", "title") and k == 2 and name not in _GIVEN and _oov_at(eojeol, k) and \
            not all(ch in _NAME_SYL for ch in name):
        return False  # an unknown two-syllable word with a syllable no given name has (선샘님)
    if kind in ("kin", "title"):
        return name in _GIVEN or _name_verdict(eojeol, k, "lenient") or _surname_name_ok(eojeol, k) or \
            _syllable_name_ok(eojeol, k)
    return _name_verdict(eojeol, k, "lenient")


#: the speaker as the one a clause is about, a few words on (… 왜 저만 미워할까요, … 나 대신 맞아줌)
_SPEAKER_AFTER = _patterns.compile(r"(?:\s[가-힣]{1,4}){0,2}\s(?:나|저|내|제)(?:만|를|한테|에게|랑|하고|보고|더러)?(?:\s대신)?(?![가-힣])")


def _double_particle(eojeol: str, k: int) -> bool:
    """``eojeol[:k]`` ends in a consonant and takes 이 and then another particle (라온이가, 아름이는, 희망이랑): a
    common noun takes 이 *or* 가, never both, so the 이 is the one added to a name. Morphology must read the word
    as a noun or two (not 먹+이+는, a verb), the 이 as a particle or suffix and a particle after it, and no
    person noun or kin word (동생이가 is dialect for 동생이)."""
    name = eojeol[:k]
    if k < 2 or not hangul.has_final(name[-1]) or not _HYPO_PARTICLE.match(eojeol, k) or name in _PERSON_NOUNS or \
            name in _NOT_NAMES or re.fullmatch(_KIN, name):
        return False
    toks = _morph_at(eojeol) or ()
    if toks and toks[0][:3] == (0, k + 1, "NNP") and len(toks) >= 2 and toks[1][2].startswith("J"):
        return True  # 새롬이+가: morphology knows the name with its 이 as one proper noun
    head = [t for t in toks if t[0] < k]
    rest = [t for t in toks if t[0] >= k]
    return bool(head) and head[-1][1] == k and all(t[2].startswith(("NNG", "NNP")) or t[3] for t in head) and \
        len(rest) >= 2 and rest[0][:2] == (k, k + 1) and rest[0][2] in ("JKS", "XSN", "VCP", "JKC") and \
        rest[1][2].startswith("J")


@functools.lru_cache(maxsize=4096)
def _foreign_proper(name: str) -> bool:
    """A foreign name in Hangul (나탈리아, 알렉스): morphology reads it as a proper noun of two or
    more syllables from its start, with nothing after it but one-syllable nouns, and it is no
    place, brand or country."""
    if name in _NOT_NAMES or name.endswith(_PLACE_END):
        return False
    toks = _morph_at(name)
    if not toks or toks[0][0] != 0 or toks[0][1] < 2 or not toks[0][2].startswith("NNP") or toks[0][3]:
        return False
    return all(tag.startswith(("NNP", "NNG")) and (e - s == 1 or tag.startswith("NNP")) for s, e, tag, oov in toks[1:])


@functools.lru_cache(maxsize=4096)
def _foreign_oov(name: str) -> bool:
    """A transliterated foreign name morphology does not know (자스미나, 바트볼드): three or four
    syllables read as one unknown word, with no known word inside and no place ending."""
    if name in _NOT_NAMES or name.endswith(_PLACE_END) or not 3 <= len(name) <= 4:
        return False
    toks = _morph_at(name) or ()
    return len(toks) == 1 and toks[0][:2] == (0, len(name)) and toks[0][3]


def _surname_plus_common(eojeol: str, k: int) -> bool:
    """Morphology reads the candidate as a one-syllable known noun and a known common noun that is
    no given name (반+지하라서, 장+난감): a compound whose first syllable is also a surname."""
    toks = _morph_at(eojeol) or ()
    head = [t for t in toks if t[0] < k]
    return len(head) == 2 and head[0][:2] == (0, 1) and head[1][:2] == (1, k) and \
        all(t[2] == "NNG" and not t[3] for t in head) and eojeol[1:k] not in _GIVEN


def _oov_at(eojeol: str, k: int) -> bool:
    toks = _morph_at(eojeol) or ()
    return any(s == 0 and e >= k and oov for s, e, tag, oov in toks)


def _name_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Person-name spans in ``text``. Recent answers are kept: the Presidio backend asks once to
    pick the entity types and once more inside its recogniser, the re-spaced reading in between."""
    return _name_spans_cached(text)


@functools.lru_cache(maxsize=64)
def _name_spans_cached(text: str) -> tuple[tuple[int, int], ...]:
    return _find_name_spans(text)


#: a cheap test each cue's text must pass before its pattern runs (speed only)
_NAME_NEEDS: dict[str, re.Pattern[str]] = {
    "intro": _patterns.compile(r"[저전나난]|이름"),
    "named": _patterns.compile(r"이름|성함|존함|성명|본명|실명|내담자명|예금주|명의자"),
    "called": _patterns.compile(r"라고|라구|라는|이란|란\s"),
    "vocative": _patterns.compile(r"[야아]"),
    "title": _patterns.compile(r"씨|님|선생|팀장|과장|부장|차장|대리|주임|실장|원장|교장|교감|교수|사장|대표|이사|상무|전무|목사|신부|"
                        r"수녀|코치|감독|주무관|간호사|기사|변호사|의사|간사|위원|회장|총무|반장|쌤|샘|아저씨|아줌마|아주머니|여사|사모|어르신|할매|할배|권사|집사|장로|전도사|스님|선배|후배|언니|오빠|누나|형|이모|삼촌|담임|학생|군|양|엄마|아빠|어머|아버|할머|할아|보호자|고모|" + _RANK[3:-1]),
    "family": _patterns.compile(r"네"),
    "agent": _patterns.compile(r"[나저너내제](?:한테|에게|게|를|보고|더러)|그러(?:는데|더라|던데|길래)|그랬|말했|말하[길더]|얘기했|물어봤|"
                        r"알려줬|걔|쟤|그\s?애|그\s?사람|그\s?친구|그\s?분|[나너저]\s" + _BARE_OBJECT_VERB +
                        r"|[가이]\s(?:자꾸|맨날|계속|먼저|또|갑자기|만날|매일|항상|늘)"),
    "comitative": _patterns.compile(r"(?:랑|하고|와|과)\s|[걔쟤얘]|그\s?(?:새끼|놈|자식|녀석|인간|년)"),
    "recipient": _patterns.compile(r"한테|에게"),
    "schoolmate": _patterns.compile(r"\d\s?반|전학생|신입생|반장"),
    "origin": _patterns.compile(r"에서\s?(?:왔|온|오셨|오신|이민|유학|전학)"),
    "kin": _patterns.compile(_KIN),
    "kinpred": _patterns.compile(r"(?:쌤|선생님|선배|후배|친구|동창|동기|언니|오빠|누나|형|동생|남친|여친|애인|담임|강사|코치|교수님|사장님|"
                          r"팀장님|룸메|짝꿍|반장|이웃)(?:이에|예요|인데|이야|야|이고|고|입니|이세|세요|이신|신데|이었|였)|"
                          r"(?:제|내|우리|저희)\s(?:아내|남편|와이프|신랑|딸|아들|동생|남동생|여동생|친구|남친|여친|남자친구|여자친구|"
                          r"애인|엄마|아빠|형|누나|언니|오빠|담임|선생님|짝꿍|사촌|조카|손녀|손자)"),
    "hypocoristic": _patterns.compile(r"이"),
}


_GLUED_TITLE = _patterns.compile(r"(?:씨|님|선생님|쌤|샘|선배|후배|언니|오빠|누나|형|학생|엄마|아빠|어머니|아버지|할머니|할아버지|이모|삼촌|고모)")
_SURNAME_2_ANY = _patterns.compile("|".join(_SURNAMES_2))
_UPPER = _patterns.compile(r"[A-Z][a-z]")
_SPACED_SURNAME = _patterns.compile(r"(?<![가-힣])(?P<n>(?:" + "|".join(_SURNAMES_2) + r")\s" + _HG + r"{2})(?=" + _TAIL +
                             r"(?:[\s,.!?~…\"'()\]]|$))")
#: the words that end right before a cue (the search is bounded at the cue, so ``$`` is the cue)
#: … and with a one-syllable given name before a title (남궁 현 선배가); not 동방 (a club room) or 서문 (a west gate):
#: 동방 옆 선배 is "the senior beside the club room"
_SPACED_SURNAME_ONE = _patterns.compile(r"(?<![가-힣])(?P<n>(?:남궁|황보|제갈|선우|독고|사공)\s" + _HG + r")(?=\s?(?:씨|님|선생님|쌤|선배|"
                                       r"후배|언니|오빠|누나|형|학생|교수님|팀장님|과장님)(?![가-힣]{3}))")
_FOREIGN_MULTI_TAIL = _patterns.compile(r"[가-힣]{1,4}(?:\s[가-힣]{1,3}){1,2}$")
_FOREIGN_MULTI_CUE = _patterns.compile(r"\s?(?:이라고|라고|이라는|라는|이란|란)\s|"
                                r"\s(?:씨|님|언니|오빠|누나|형|선생님|쌤|아저씨|아줌마|할머니|할아버지)(?![가-힣]{3})")
_FOREIGN_MULTI_CUE_AT = _patterns.compile(r"(?=" + _FOREIGN_MULTI_CUE.pattern + r")")
_FOREIGN_MULTI_NEEDS = _patterns.compile(r"\s[가-힣]{1,3}\s?(?:이라|라|이란|란\s)|\s(?:씨|님|언니|오빠|누나|형|선생님|쌤|아저씨|아줌마|할머니|할아버지)")


def _foreign_multi_ok(name: str) -> bool:
    """The words of a multi-word foreign name: the first a proper noun or a word morphology does not
    know (응우옌, 알렉스), the others one syllable (티, 란, 킴, 왕) or proper nouns too."""
    words = name.split()

    def proper(word: str) -> bool:
        toks = _morph_at(word) or ()
        return len(toks) == 1 and toks[0][1] == len(word) and (toks[0][3] or toks[0][2].startswith("NNP")) \
            and word not in _NOT_NAMES and not word.endswith(_PLACE_END)

    if len(words[0]) >= 3 and words[0][-1] in "이가은는" and _morph_at(words[0][:-1]):
        return False  # 가람이 강이라는: a subject with its particle, then a word, is no one name
    return proper(words[0]) and len(words[-1]) == 1 and all(len(w) == 1 or proper(w) for w in words[1:])


#: a quotative that names a word, not a person (가람 이란 말이, 다솜이라는 단어)
_WORD_TALKED_ABOUT = _patterns.compile(r"\s?(?:이란|란|이라는|라는)\s(?:말|뜻|단어|낱말|표현)(?![가-힣])|\s?(?:이란|란|이라는|라는)\s(?:말|뜻|단어|낱말|표현)(?:이|은|도|을|의)")


def _foreign_multi_spans(text: str) -> list[tuple[int, int]]:
    """Every multi-word foreign name right before a naming or title cue: before each cue, the
    longest run of three or two words that :func:`_foreign_multi_ok` accepts (the cue may be
    glued to the last word: 킴이라고)."""
    out: list[tuple[int, int]] = []
    for c in _FOREIGN_MULTI_CUE_AT.finditer(text):  # overlapping: 란 is a cue (…란 사람) and a name
        end = c.start()
        if end == 0 or not "가" <= text[end - 1] <= "힣" or _WORD_TALKED_ABOUT.match(text, end):
            continue
        tail = _FOREIGN_MULTI_TAIL.search(text, max(0, end - 20), end)
        if tail is None:
            continue
        words = tail.group().split(" ")
        for n in (3, 2):
            if len(words) >= n and 2 <= len(words[-n]) <= 4:
                start = end - len(" ".join(words[-n:]))
                if (start == 0 or not "가" <= text[start - 1] <= "힣") and _foreign_multi_ok(text[start:end]):
                    if out and out[-1][0] == start:
                        out[-1] = (start, max(end, out[-1][1]))  # 응우옌 티 | 란 언니: the longer reading
                    elif not out or out[-1][1] <= start:
                        out.append((start, end))
                    break
    return out


def _foreign_name_start(text: str, start: int) -> int:
    """Extend a name left over the words of a multi-word foreign name (응우옌 티 흐엉): up to three
    words morphology does not know or tags as proper nouns; a one-syllable known word (티, 반)
    only when such a word comes before it."""

    def proper(word: str) -> bool:
        toks = _morph_at(word) or ()
        return len(toks) == 1 and (toks[0][3] or toks[0][2].startswith("NNP")) and word not in _NOT_NAMES

    pos = start
    for _ in range(3):
        m = re.search(r"(?:^|(?<=\s))([가-힣]{1,3})\s$", text[:pos])
        if m is None:
            break
        if proper(m.group(1)):
            pos = m.start(1)
            continue
        before = re.search(r"(?:^|(?<=\s))([가-힣]{2,3})\s$", text[:m.start(1)])
        if len(m.group(1)) == 1 and before and proper(before.group(1)):
            pos = before.start(1)
            continue
        break
    return pos


#: native Korean numerals (서른둘, 스물한, 마흔다섯): an age or a count, never a name
_NUMERAL_WORD = _patterns.compile(r"^(?:열|스물|서른|마흔|쉰|예순|일흔|여든|아흔)(?:한|하나|두|둘|세|셋|네|넷|다섯|여섯|일곱|여덟|아홉)?$")


@functools.lru_cache(maxsize=4096)
def _one_common_noun(word: str) -> bool:
    """Morphology reads ``word`` alone as one known common noun (지혜, 사랑, 보람)."""
    toks = _morph_at(word) or ()
    return len(toks) == 1 and not toks[0][3] and toks[0][2] == "NNG" and toks[0][1] == len(word)


#: a bound noun that an adnominal verb form governs (지을 거야, 갈 수 있어, 할 때)
_BOUND_NOUN_NEXT = _patterns.compile(r"\s?(?:거|것|수|줄|때|데|뿐|만큼|듯)(?![가-힣])|\s?(?:거|것)(?:야|예요|에요|이야|이에요|같|이다|임)")


def _canonical_frame(kind: str, name: str, eojeol: str, text_after: str | None = None) -> str | None:
    """The name in the plain frame of its cue, for a second reading when morphology misreads the
    word as typed (윤미란 alone: 윤미 + 이 + ㄴ; 한도진임: 한/MM + 도 + 진): name + 씨 before a title
    written apart, name + the polite copula after 이름은/성함은. ``None`` when there is none, when the
    name alone is a known common noun (진로 선생님: 진로 reads as a brand glued to 씨) or when the
    frame is what was already read."""
    if _one_common_noun(name):
        return None
    toks = _morph_at(eojeol) or ()
    if kind == "named" and len(toks) >= 2 and toks[0][0] == 0 and toks[0][2] == "NNG" and not toks[0][3] and \
            toks[0][1] >= 2 and toks[-1][1] == len(name) and all(t[2].startswith("JK") for t in toks[1:]):
        return None  # 성함은 비밀로: as typed, a known common noun and its case particle, no misreading
    if kind == "named" and toks and toks[0][0] == 0 and toks[0][2].startswith("VV") and toks[-1][2] == "ETM" and \
            toks[-1][1] == len(eojeol) and text_after is not None and _BOUND_NOUN_NEXT.match(text_after):
        return None  # 이름 지을 거야: a verb's adnominal form before a bound noun is a verb phrase, no name
    if kind == "title":
        frame = name + "씨"
    elif kind == "named":
        frame = name + ("이에요" if hangul.has_final(name[-1]) else "예요")
    else:
        return None
    return None if frame == eojeol else frame


#: a title right after a vocative-shaped name (타쿠야 선배, 준야 씨)
_TITLE_AFTER_VOCATIVE = _patterns.compile(r"\s?(?:선배|후배|씨|님|언니|오빠|누나|형|선생님|쌤|상|군|양)(?![가-힣]{3})")


#: a particle drawn out in speech (가아, 는~): the lengthening is no part of the word
_STRETCHED_PARTICLE = _patterns.compile(r"(?<=[가는은이])(?:아{1,3}|~{1,3})$")


def _find_name_spans(text: str) -> tuple[tuple[int, int], ...]:
    spans: list[tuple[int, int]] = []
    derived = _Prefilters.names
    passed: dict[str, bool] = {}  # several patterns share a cue's precondition: test it once
    for kind, rx in _NAME_PATTERNS:
        ok = passed.get(kind)
        if ok is None:
            need = _NAME_NEEDS.get(kind)
            ok = passed[kind] = need is None or need.search(text) is not None
        if not ok:
            continue
        literal = derived.get(id(rx))
        if literal is not None and literal.search(text) is None:
            continue  # a literal every match of this cue contains is absent (speed only)
        if rx is _KIN_PARALLEL and text.count("는 ") + text.count("은 ") < 2:
            continue  # two topics side by side need two topic particles (speed only)
        for m in rx.finditer(text):
            name = m.group("n")
            start, end = m.start("n"), m.end("n")
            if name in _NOT_NAMES or len(name) < 2 or _NUMERAL_WORD.match(name):
                continue
            if kind == "given" and name not in _GIVEN:
                # the weakest cue only ever accepts a common given name (see _verdict), checked
                # first so that morphology is not loaded for every word before a particle
                continue
            if (kind == "given" or rx is _KIN_PARALLEL) and _one_common_noun(name):
                continue  # 지혜가 부족하다: the weakest cue does not override a common noun
            foreign = kind in ("title", "called") and len(name) >= 3 and _foreign_proper(name)  # 나탈리아 씨
            foreign = foreign or (kind in ("agent", "recipient", "origin", "comitative") and len(name) >= 3 and
                                  (_foreign_proper(name) or _foreign_oov(name)))  # 알렉스가 나한테, 자스미나한테
            if len(name) == 4 and not name.startswith(_SURNAMES_2) and not foreign:
                continue
            if len(name) == 3 and kind not in ("called", "intro", "named") and not _SUR_START.match(name) and not foreign:
                continue
            if kind in _WEAK_CUES and name not in _GIVEN and not all(ch in _NAME_SYL for ch in name[-2:]) and \
                    not (kind == "hypocoristic" and _double_particle(text[start:start + _eojeol_end(text, start) - start], len(name))):
                continue  # 연락처, 괜찮아: no given name ends that way; morphology need not load
            eojeol = text[start:start + _eojeol_end(text, start) - start]
            if kind == "agent":
                eojeol = _STRETCHED_PARTICLE.sub("", eojeol)  # 규리가아 나한테: judge 규리가
            if kind in ("title", "intro") and (_known_compound(name) or _known_compound(eojeol, len(name))) and \
                    not all(ch in _NAME_SYL for ch in name[1:]):
                continue  # 진상+손님, 이번+주: known common nouns whose syllables no given name has
            if kind in _WEAK_CUES and _WORD_MEANING.match(text, m.end("n")):
                continue  # 가람이 강이라는 순우리말: a word being explained, no person
            if kind == "title" and _GLUED_TITLE.match(eojeol, len(name)):
                eojeol = name  # 소영언니가: judge the name without the title glued to it
            if not _verdict(kind, text, m, name, start, eojeol):
                frame = _canonical_frame(kind, name, eojeol, text[start + len(eojeol):])
                if frame is None or not _verdict(kind, text, m, name, start, frame):
                    continue
            log.debug("person name %s via %s cue", name, kind)
            if kind == "kinpred":
                start = _foreign_name_start(text, start)
            spans.append((start, end))
    # a foreign name of several words, the last often one syllable (응우옌 티 란 언니, 사라 왕이라는)
    if _FOREIGN_MULTI_NEEDS.search(text) is not None:
        spans.extend(_foreign_multi_spans(text))
    # a surname alone before a title (최 선생님이요, 최쌤): the teacher is named by it
    if _SURNAME_TITLE_NEEDS.search(text) is not None:
        spans.extend(m.span("n") for m in _SURNAME_TITLE.finditer(text))
    # a two-syllable surname written apart (황보 지훈이라고), a romanised full name (Kim Jiwoo) and a
    # Latin name glued to a particle only people take (Minji라고, Jenny랑, Alex한테)
    for need, rx in ((_SURNAME_2_ANY, _SPACED_SURNAME), (_SURNAME_2_ANY, _SPACED_SURNAME_ONE), (_UPPER, _LATIN_FULL),
                     (_UPPER, _LATIN_GLUED)):
        if need.search(text) is None:
            continue
        # the longer span wins when overlaps are resolved; software, services and brands written in
        # Latin letters take the same particles (Excel이랑, Google한테) and are no people
        spans.extend(m.span("n") for m in rx.finditer(text) if m.group("n").lower() not in _LATIN_NOT_NAMES)
    if _UPPER.search(text) is not None:
        spans.extend(m.span("n") for rx in _LATIN_FRAMES for m in rx.finditer(text) if _latin_name_ok(m.group("n")))
    # names known by their context rather than a particle (김 일병, 희망이(동생), 민지 번호 …): one search says
    # whether any of those cues occurs at all (speed only)
    if _CONTEXT_NAME_NEEDS.search(text) is not None:
        spans.extend(_context_name_spans(text))
    # the learned decision (core/name_model.py) over every word-start candidate the cues missed
    spans.extend(sp for sp in learned_name_spans(text)
                 if text[sp[0]:sp[1]] not in _NOT_NAMES and all(sp[1] <= a or sp[0] >= b for a, b in spans)
                 and not _WORD_MEANING.match(text, sp[1])  # 다솜이 사랑이라는 뜻: a word explained, as for the cues
                 and not _verb_read_as_name(text, *sp))
    if not spans:
        return ()
    # a name found once is masked everywhere in the text, and the next item of a list joined by
    # 랑/하고/와/, is a name too when it is shaped like one (허윤아랑 편은정이)
    found = {text[s:e] for s, e in spans}
    for s, e in list(spans):
        nxt = _LIST_NEXT.match(text, e if not text[e:e + 1] == "이" or text[e:e + 2] in ("이랑", "이하고", "이나", "이며",
                                                                                          "이와") else e + 1)
        if nxt:
            ns = nxt.start("n")
            eojeol = text[ns:ns + _eojeol_end(text, ns) - ns]
            # the shortest reading first (하린+이랑), then the whole word (소피아, whose 아 is no vocative)
            for name in dict.fromkeys((nxt.group("n"), eojeol if 2 <= len(eojeol) <= 4 else nxt.group("n"))):
                if name not in _NOT_NAMES and (name in _GIVEN or _surname_name_ok(eojeol, len(name))
                                               or _syllable_name_ok(eojeol, len(name))
                                               or _name_verdict(eojeol, len(name), "lenient")):
                    found.add(name)
                    spans.append((ns, ns + len(name)))
                    break
    for _ in range(3):  # the items before a found one: 김도하, 이준서, [박예린]
        added = False
        for s, e in list(spans):
            prev = _LIST_PREV.search(text, 0, s)
            if prev and not any(a <= prev.start("n") < b for a, b in spans):
                name = prev.group("n")
                ps = prev.start("n")
                eojeol = text[ps:ps + _eojeol_end(text, ps) - ps]
                for cut in (len(name), len(name) - 1):  # 하린이랑: the name may end before 이
                    cand = name[:cut]
                    if len(cand) >= 2 and cand not in _NOT_NAMES and (
                            cand in _GIVEN or _surname_name_ok(eojeol, len(cand)) or _syllable_name_ok(eojeol, len(cand))
                            or (prev.group(0).rstrip().endswith("랑") and _proper_given(cand))):
                        found.add(cand)
                        spans.append((ps, ps + cut))
                        added = True
                        break
        if not added:
            break
    for name in found:
        for m in re.finditer(r"(?<![가-힣])" + re.escape(name), text):
            spans.append(m.span())
    # a found name spelled syllable by syllable (석진우 … 석 진 우, 유.나.연)
    for name in {n for n in found if 2 <= len(n) <= 4 and (n[0] + " " in text or n[0] + "." in text or n[0] + "·" in text)}:
        for m in re.finditer(r"(?<![가-힣])" + r"(?:\s?[.·]\s?|\s)".join(map(re.escape, name)) + r"(?![가-힣]{2})", text):
            spans.append(m.span())
    # the given name of a found full name, said alone later (정유나 엄마입니다. 유나가 요즘 …): the same person,
    # where it starts a word and a particle, 이 + particle or the word's end follows
    for name in {n for n in found if len(n) == 3 and n[0] in _SURNAMES_1 and n[1:] in _GIVEN}:
        for m in re.finditer(r"(?<![가-힣])" + re.escape(name[1:]) + r"(?=(?:이)?" + _TAIL + r"(?:[\s,.!?~…\"'()\]]|$))", text):
            spans.append(m.span())
    # a nickname made from a found name as it is said (준희 → 주니, 쭈니; 민호 → 미노): the same
    # person, written the way the name sounds
    for nick in {v for n in found for v in _spoken_forms(n)} - found:
        for m in re.finditer(r"(?<![가-힣])" + re.escape(nick), text):
            spans.append(m.span())
    # the same name in Latin letters (Jiwoo 아니고 지우요): any romanisation of a found name
    if _LATIN_WORD.search(text):
        spellings = set().union(*(_romanisations(n) for n in found))
        for rx in (_LATIN_WORD, _LATIN_PAIR):
            spans.extend(m.span(1) for m in rx.finditer(text) if re.sub(r"[-\s]", "", m.group(1).lower()) in spellings)
    # 타쿠야 선배: a name read up to a 야/아 that a title follows takes it in (a vocative never
    # comes before a title; the syllable is the name's own), so no lone 야 is left behind
    spans = [(s, e + 1) if text[e:e + 1] in ("야", "아") and _TITLE_AFTER_VOCATIVE.match(text, e + 1) else (s, e)
             for s, e in spans]
    return tuple(sorted(set(spans)))


#: a name, its hypocoristic 이, and who the person is in brackets: 희망이(동생), 준서(아들)
_NAME_BRACKET_KIN = _patterns.compile(r"(?<![가-힣])(?P<n>[가-힣]{2,3}?)이?\(\s?" + _KIN + r"\s?\)")
#: a nickname after 별명, with its copula (별명이 윤기인데): one shaped like a given name is as telling as one
_NICKNAME = _patterns.compile(r"별명(?:은|이|이요|:)?\s?(?P<n>[가-힣]{2,3}?)(?=(?:이에요|예요|인데요|인데|이고|이야|야|이래요|이래|래요|래|"
                              r"이라고|라고|임|이요|요)(?:[\s,.!?~…]|$)|[,.!?~…]|$)")  # with its copula, or ending the sentence
#: a full name as a bare word, confirmed or recalled: before 맞아/있잖아/알아 (권나윤 맞아), or ending a sentence
#: that says a name comes to mind (이름 기억남 백승호)
_BARE_FULL = (
    (_patterns.compile(r"맞[아죠지음]|있잖|알[아지]|아세요"), _patterns.compile(r"(?<![가-힣])(?P<n>[" + _SURNAMES_1 + r"][가-힣]{2})(?=\s(?:맞아|맞아요|맞죠|맞지|맞음|있잖아|있잖아요|알아|알아요|아세요)"
                      r"(?![가-힣])|\s?(?:맞아|맞아요|맞죠|맞음)\?)")),
    (_patterns.compile(r"이름|성함"),
     _patterns.compile(r"(?:이름|성함)[^\n.?!]{0,12}?\s(?P<n>[" + _SURNAMES_1 + r"][가-힣]{2})(?=[\s.!?~…]*$)")),
)


#: what only a person does: harms themself, runs away, enlists, is discharged, comes home on leave, changes school
_PERSON_ACT_WORDS = (r"(?:자해|자살|가출|입대|전역|제대|휴가\s?(?:나와|나왔|나오|나온)|면회\s?(?:와|왔|오|온)|전학\s?(?:와|왔|오|온|가|갔|간)|"
                     r"결석|조퇴)")
_PERSON_ACT = _patterns.compile(r"(?<![가-힣])(?P<n>[가-힣]{2,3}?)(?:이가|가|이는|는|은|이)\s(?:[가-힣]{1,4}\s)?" + _PERSON_ACT_WORDS +
                                r"(?!로)")  # not 제대로 (properly)
_PERSON_ACT_NEEDS = _patterns.compile(_PERSON_ACT_WORDS)


def _person_act_subject_ok(text: str, m: re.Match[str]) -> bool:
    """The subject of what only a person does is a name unless it is a person noun, a kin word, a pronoun or a
    listed non-name; a known common noun only with an owner before it (우리 바다가 휴가 나와서, not 바다가 …)."""
    name = m.group("n")
    if name in _PERSON_NOUNS or name in _NOT_NAMES or name in _ADDRESS_TERMS or re.fullmatch(_KIN, name):
        return False
    eojeol = text[m.start("n"):_eojeol_end(text, m.start("n"))]
    toks = _morph_at(eojeol) or ()
    if any(t[0] == 0 and t[1] == len(name) and t[2].startswith(("NP", "NR", "MM")) for t in toks):
        return False  # 그게, 누가: a pronoun or a number
    if name in _GIVEN or _syllable_name_ok(eojeol, len(name)) or _foreign_proper(name) or _oov_at(eojeol, len(name)):
        return True
    if _known_word_covers(eojeol, len(name)) or _known_compound(name):
        return _OWNER_BEFORE.search(text, 0, m.start("n")) is not None
    return True


def _proper_given(word: str) -> bool:
    """Morphology reads a two-syllable word alone as one proper noun (재희, 서하), no place or listed non-name."""
    toks = _morph_at(word) or ()
    return len(word) == 2 and len(toks) == 1 and toks[0][:3] == (0, 2, "NNP") and word not in _NOT_NAMES and \
        not word.endswith(_PLACE_END)


def _context_name_spans(text: str) -> list[tuple[int, int]]:
    """Names the sentence points at by what it says around them: a surname or full name with a military rank
    (김 일병, 김도윤병장님이랑), who the person is in brackets (희망이(동생)), a nickname shaped like a given name
    (별명이 윤기인데), a full name alone as the one confirmed or recalled (권나윤 맞아, 이름 기억남 백승호), the
    subject of what only a person does (빛나가 자해한), and whose identifier the sentence gives (민지 번호,
    라힘 외국인등록증 번호, 서하 생일 1월1일, PARK JIAN M…)."""
    spans: list[tuple[int, int]] = []
    if _RANK_NEEDS.search(text) is not None:
        spans.extend(m.span("n") for m in _SURNAME_RANK.finditer(text) if _rank_names_surname(text, m))
        spans.extend(m.span("n") for m in _NAME_GLUED_RANK.finditer(text)
                     if m.group("n")[1:] in _GIVEN or _syllable_name_ok(m.group("n"), 3, strong=True))
    if "(" in text:
        spans.extend(m.span("n") for m in _NAME_BRACKET_KIN.finditer(text)
                     if _bracketed_kin_ok(m.group("n"), text[m.end("n"):m.end("n") + 1] == "이"))
    if "별명" in text:
        spans.extend(m.span("n") for m in _NICKNAME.finditer(text)
                     if m.group("n") in _GIVEN or (all(ch in _NAME_SYL for ch in m.group("n"))
                                                   and m.group("n") not in _PERSON_NOUNS | _NOT_NAMES))
    for need, rx in _BARE_FULL:
        if need.search(text) is not None:
            spans.extend(m.span("n") for m in rx.finditer(text) if _bare_full_name_ok(m.group("n")))
    if _PERSON_ACT_NEEDS.search(text) is not None:
        spans.extend(m.span("n") for m in _PERSON_ACT.finditer(text) if _person_act_subject_ok(text, m))
    owner = _NEEDS_DIGIT.search(text) is not None and _OWNER_CUE_RX.search(text) is not None
    if owner or _CAPS_NAME_NEEDS.search(text) is not None:
        spans.extend(_owner_spans(text, owner))
    if _QUOTED_CALL_NEEDS.search(text) is not None:
        spans.extend(m.span("n") for m in _QUOTED_CALL.finditer(text)
                     if _called_word_ok(m.group("n"), m.group("v"), m.group(0)[m.end("v") - m.start():]))
    return spans


#: a vocative opening words someone reports saying (은혜야 엄마 말 좀 들어 하고 끊었는데): the one called to
_QUOTED_CALL_VERB = r"(?:하고|라고|이러고)\s?(?:끊|했|말했|말하|소리|문자|카톡|톡|보냈|불렀)"
_QUOTED_CALL = _patterns.compile(r"(?:(?<=^)|(?<=[\s\"'“‘]))(?P<n>[가-힣]{2,3}?)(?P<v>야|아)\s[^.?!\n]{1,40}?\s?" + _QUOTED_CALL_VERB)
_QUOTED_CALL_NEEDS = _patterns.compile(_QUOTED_CALL_VERB)


def _called_word_ok(word: str, vocative: str, said: str) -> bool:
    """The word called to in reported speech is a name when it is shaped like one (a given name, given-name
    syllables, a proper noun or an unknown word), takes the vocative its last sound asks for (은혜야, 가람아),
    and is no term of address, kin word or person noun (강아지야, 엄마야, 친구야). A known common noun made of
    given-name syllables (은혜, 세상) only when the speaker names themself by kin in what is said (은혜야 엄마 말
    좀 들어): 세상아 왜 이래 is an exclamation."""
    if (vocative == "아") != hangul.has_final(word[-1]) or word in _ADDRESS_TERMS or word in _PERSON_NOUNS or \
            word in _NOT_NAMES or re.fullmatch(_KIN, word):
        return False
    if word in _GIVEN:
        return True
    if all(ch in _NAME_SYL for ch in word):
        return not _one_common_noun(word) or re.search(r"(?<![가-힣])(?:엄마|아빠|언니|누나|오빠|형|할머니|할아버지|선생님|쌤)"
                                                       r"(?:가|는|이|도|랑|한테|말)?(?![가-힣])", said) is not None
    toks = _morph_at(word) or ()
    return len(toks) == 1 and toks[0][:2] == (0, len(word)) and (toks[0][3] or toks[0][2] == "NNP")


def _bracketed_kin_ok(word: str, hypocoristic: bool) -> bool:
    """The word before a bracketed kin word names that person unless it is a person noun or a kin word itself; a
    known common noun only with the 이 a name takes (희망이(동생), not 선물(언니))."""
    if word in _PERSON_NOUNS or word in _NOT_NAMES or word in _ADDRESS_TERMS or re.fullmatch(_KIN, word) or \
            _known_compound(word):
        return False
    return hypocoristic or word in _GIVEN or all(ch in _NAME_SYL for ch in word) or not _one_common_noun(word)


def _bare_full_name_ok(name: str) -> bool:
    """A surname and two given-name syllables no known word covers, or a surname and a common given name."""
    if name in _NOT_NAMES:
        return False
    return _syllable_name_ok(name, 3, strong=True) or (name[1:] in _GIVEN and not _known_word_covers(name, 3))


#: an identifier's cue right after the person it belongs to (민지 번호임, 차오위 여권, 투안 베트남 여권번호)
_OWNER_CUE = (r"(?:전화번호|폰번호|핸드폰\s?번호|휴대폰\s?번호|연락처|번호|생일|생년월일|여권번호|여권|외국인등록증|외국인등록번호|"
              r"외국인\s?번호|ARC|주민번호|주민등록번호|계좌번호|계좌)")  # not 아이디: 메이플 아이디, 배그 아이디 name games
_OWNER = _patterns.compile(r"(?:(?<=^)|(?<=[\s,.!?~…]))(?=(?P<n>[가-힣]{2,4})(?:의)?\s(?:(?P<mid>[가-힣A-Za-z]{1,5})\s)?" + _OWNER_CUE +
                           r"(?![가-힣]{3}))")  # a lookahead: each word is tried (이거 민지 번호: 이거, then 민지)
_OWNER_CUE_RX = _patterns.compile(_OWNER_CUE)
#: a romanised full name in capitals, as passports and forms write it (PARK JIAN, NGUYEN VAN AN)
_CAPS_NAME = _patterns.compile(r"(?<![A-Za-z])(?P<n>[A-Z]{2,}(?:\s[A-Z]{2,}){1,2})(?![A-Za-z])")
_CAPS_NAME_CUE = _patterns.compile(r"영문|이름|성함|예약자|여권|(?i:passport|name)")
_CAPS_NAME_NEEDS = _patterns.compile(r"[A-Z]{2}")
#: a text that holds any cue of :func:`_context_name_spans` (one search instead of one per cue)
_CONTEXT_NAME_NEEDS = _patterns.compile(r"[A-Z]{2}|\(|별명|하고\s?[끊했말소문카톡보불]|라고\s?[끊했말소문카톡보불]|이러고|맞[아죠지음]|있잖|알[아지]|아세요|이름|성함|" + _RANK[3:-1] + "|" +
                                        _PERSON_ACT_WORDS + "|" + _OWNER_CUE)


def _owner_ok(word: str) -> bool:
    """The word before an identifier's cue may be its owner's name: a common given name, or a word morphology
    reads as no known common word, compound, pronoun or verb (라힘, 투안, 차오위; not 엄마, 회사, 집전화, 바뀐)."""
    if word in _NOT_NAMES or word in _ADDRESS_TERMS or word.endswith(_PLACE_END) or _NUMERAL_WORD.match(word):
        return False
    if word in _GIVEN:
        return True
    toks = _morph_at(word) or ()
    if not toks or _known_word_covers(word, len(word)) or _known_compound(word):
        return False
    return not any(tag.startswith(("V", "E", "J", "XS", "M", "NP", "IC")) and not oov for s, e, tag, oov in toks)


def _owner_spans(text: str, owner: bool) -> list[tuple[int, int]]:
    """Names of the people whose identifier the sentence gives: the word right before the identifier's cue
    (with at most one word between, a country or a document: 투안 베트남 여권번호), when the sentence holds a
    value, and romanised full names in capitals in a text about a passport or a name."""
    out = []
    for m in _OWNER.finditer(text) if owner else ():
        mid = m.group("mid")
        if mid is not None and not (mid in _NOT_NAMES or mid.isascii()):
            continue  # 투안 베트남 여권번호: only a country or a document's letters stand between
        if _owner_ok(m.group("n")):
            out.append(m.span("n"))
    if _CAPS_NAME_CUE.search(text):
        for m in _CAPS_NAME.finditer(text):
            words = m.group("n").lower().split()
            if any(w in _LATIN_SURNAMES for w in (words[0], words[-1])) and not any(w in _LATIN_NOT_NAMES for w in words):
                out.append(m.span("n"))
    return out


#: a final consonant (jongseong index) → the initial it becomes when it moves to the next syllable
_FINAL_TO_INITIAL = {1: 0, 4: 2, 7: 3, 8: 5, 16: 6, 17: 7, 19: 9, 22: 12, 23: 14, 24: 15, 25: 16, 26: 17}
#: plain initials and their tense forms (ㄱ→ㄲ, ㄷ→ㄸ, ㅂ→ㅃ, ㅅ→ㅆ, ㅈ→ㅉ)
_TENSE = {0: 1, 3: 4, 7: 8, 9: 10, 12: 13}


@functools.lru_cache(maxsize=1024)
def _spoken_forms(name: str) -> frozenset[str]:
    """How a given name is said and then written as a nickname: the first syllable's final consonant
    carried into the second when it starts with ㅇ or ㅎ (준희 → 주니, 민호 → 미노), ㅢ said as ㅣ, and the
    first consonant tensed (쭈니). Only two-syllable given names (the given part of a full name);
    a form that is a known common word is left out."""
    given = name[1:] if len(name) == 3 else name
    if len(given) != 2 or not all("가" <= ch <= "힣" for ch in given):
        return frozenset()
    a, b = (ord(ch) - 0xAC00 for ch in given)
    ai, av, af = a // 588, (a % 588) // 28, a % 28
    bi, bv, bf = b // 588, (b % 588) // 28, b % 28
    if af not in _FINAL_TO_INITIAL or bi not in (11, 18):  # only ㅇ / ㅎ take a carried consonant
        return frozenset()
    bv2 = 20 if bv == 19 else bv  # 희 → 니 (ㅢ said as ㅣ)
    out = set()
    for first in {ai, _TENSE.get(ai, ai)}:
        out.add(chr(0xAC00 + first * 588 + av * 28) + chr(0xAC00 + _FINAL_TO_INITIAL[af] * 588 + bv2 * 28 + bf))
    return frozenset(f for f in out if f != given and not _one_common_noun(f) and f not in _NOT_NAMES)


_LATIN_WORD = _patterns.compile(r"(?<![A-Za-z])([A-Za-z]{2,})(?![A-Za-z])")
#: a capitalised Latin word glued to a particle that marks a person (naming, with, to, title, vocative)
_LATIN_GLUED = _patterns.compile(r"(?<![A-Za-z0-9])(?P<n>[A-Z][a-z]{2,11})(?=(?:이라고|라고|이라는|라는|이랑|랑|이한테|한테|에게|씨|님|쌤|"
                          r"이야|야|아)(?![가-힣]))")
#: products, services and brands people write in Latin letters before a particle (not people)
_LATIN_NOT_NAMES = frozenset("""
google excel word powerpoint zoom netflix youtube instagram insta kakao naver discord chrome siri alexa chatgpt gpt
gemini claude apple samsung iphone galaxy android windows mac macbook ipad notion slack teams skype line twitter
facebook tiktok roblox minecraft steam nintendo switch playstation xbox python java javascript coupang baemin toss
uber spotify melon genie duolingo canva figma photoshop hwp hancom outlook gmail daum nate
""".split())
#: capitalised English words that are no one's name in a name frame (I'm Korean, 저 English 못해요)
_LATIN_NOT_NAMES |= frozenset("""
i im me my we you he she they it this that here there nobody everyone someone anyone hello hi hey sorry ok okay yes no
korean english chinese japanese mongolian vietnamese uzbek russian american international exchange student students
university college school high middle elementary academy institute center centre office hospital clinic the and or
""".split())
#: a Latin name of one to three capitalised words (Kevin, Wang Hao, Nguyen Thi Lan)
_LATIN_GROUP = r"(?P<n>[A-Z][a-z]{1,14}(?:\s[A-Z][a-z]{1,14}){0,2})(?![A-Za-z])"
#: Latin names in the frames people put names in: a title after it (Kevin 쌤, Aziz 형이, Jasmina
#: Karimova 학생), a copula glued to it (Li Wei인데, … Lan이에요), several capitalised words with any
#: particle of a person (Wang Hao가, Chen Yu랑), a naming cue before it (my name is …, 이름 Tuul,
#: 성함이 Li Wei, 제 친구 …) or the English self-introduction "X here"
_LATIN_FRAMES = (
    _patterns.compile(r"(?<![A-Za-z0-9])" + _LATIN_GROUP + r"\s?(?:씨|님|쌤|샘|선생님|학생|형|누나|언니|오빠|선배|후배|교수님|조교님|"
               r"강사님)(?![가-힣]{3})"),
    _patterns.compile(r"(?<![A-Za-z0-9])" + _LATIN_GROUP + r"(?=(?:이에요|예요|이야|입니다|인데요|인데|이고요|이고|이요|이라고요|이라고|"
               r"이래요|래요|이었어요|였어요)(?![가-힣]))"),
    _patterns.compile(r"(?<![A-Za-z0-9])(?P<n>[A-Z][a-z]{1,14}(?:\s[A-Z][a-z]{1,14}){1,2})(?![A-Za-z])(?=(?:이가|가|이|은|는|이랑|랑|"
               r"하고|와|과|도|를|을|의|한테|에게)(?![가-힣]))"),
    _patterns.compile(r"(?:(?<![A-Za-z])(?i:my\s+name\s+is|name\s+is|i'?m|i\s+am|this\s+is|call\s+me)|(?<![가-힣])(?:저는|저|전|나는|난|"
               r"제\s?이름은|내\s?이름은|이름은|이름이|이름|성함은|성함이|성함|성은|성이|본명은|본명|이름\s?:|친구|룸메|룸메이트|"
               r"교수님|선배|후배|조교))\s" + _LATIN_GROUP),
    _patterns.compile(r"(?<![A-Za-z0-9])(?P<n>[A-Z][a-z]{1,14})(?=\s+here(?![A-Za-z]))"),
    # … or a copula or quotative typed apart from it (Princess 예요, Rosalie 라고)
    _patterns.compile(r"(?<![A-Za-z0-9])" + _LATIN_GROUP + r"(?=\s(?:이에요|예요|에요|이예요|이야|입니다|이라고|라고|인데요|인데|이고|이요)"
               r"(?![가-힣]))"),
)


def _latin_name_ok(name: str) -> bool:
    return not any(w.lower() in _LATIN_NOT_NAMES for w in name.split())


#: surnames that are no determiner, pronoun, number or exclamation when they stand alone
#: (이 this, 그 that, 전 I/former, 한 one, 오 oh, 남/여 male/female, 제 my, 모 a certain …)
_LONE_SURNAMES = "".join(ch for ch in _SURNAMES_1 if ch not in "이전한오남여제모나저안도반부현각본동새우주연구사수소원방공마지기선")
#: a word explained by another (X이 Y라는 뜻/말): X is a word, not a person
#: "생각이 안나네", "기억이 안 났어": a subject that 나다 (to come up) takes, before a negated 나다
_NADA_SUBJECT = _patterns.compile(r"(?:생각|기억|잠|눈물|땀|화|짜증|티|답|소리|힘|말|실감|엄두|용기|기운|냄새|맛|입맛|의욕|흥)"
                                  r"(?:이|가|도|은|는)\s?$")
#: "지은 지 30년", "만난 지 얼마": a verb's adnominal before 지 and a span of time ("since")
_SINCE = _patterns.compile(r"\s?지\s?(?:[0-9]|[일이삼사오육칠팔구십백한두세네몇]|오래|얼마|꽤|벌써|좀|며칠|한참)")


#: 짓다's adnominal right after its subject and before the noun it made (엄마가 지은 밥, 할머니가 지은 집), unless the
#: next word is a title or kin word that follows names (친구가 지은 언니랑: 지은 is then the sister's name)
_SUBJECT_BEFORE = _patterns.compile(r"[가-힣](?:가|이)\s$")
_MADE_NOUN_AFTER = _patterns.compile(r"\s(?!(?:언니|오빠|누나|형|동생|선배|후배|씨|님|쌤|샘|선생님|이모|삼촌|고모|엄마|아빠|친구|이가|이는|이랑|이한테|이도|이를|이의|이)"
                                     r"(?:[\s,.!?~…]|$|[가-힣]{0,3}(?:[\s,.!?~…]|$)))[가-힣]")


def _verb_read_as_name(text: str, start: int, end: int) -> bool:
    """A learned span that is a verb in its sentence: 안 + 나다 after its subject (생각이 안나네), a verb's
    adnominal before 지 + a time span (관사가 지은 지 30년), or 짓다's adnominal between its subject and what was
    made (엄마가 지은 밥)."""
    word = text[start:end]
    if word.startswith("안") and len(word) == 2 and word[1] in "나났" and _NADA_SUBJECT.search(text, 0, start):
        return True
    if word == "지은" and _SUBJECT_BEFORE.search(text[max(0, start - 12):start]) and _MADE_NOUN_AFTER.match(text, end):
        return True
    return _SINCE.match(text, end) is not None


_WORD_MEANING = _patterns.compile(r"(?:이|가|은|는)?\s(?:\S{1,8}(?:이라는|라는|이란|란)\s(?:[가-힣]{1,4}\s)?(?:뜻|말|의미|단어|순우리말|우리말|옛말|옛날\s?말|고유어|한자어?|이름)|"
                           # … or glossed in another language or register (가람이 옛말로 강이래)
                           r"(?:옛말|옛날\s?말|순우리말|우리말|고유어|사투리|방언|한자어?|한자말|영어|일본어|중국어|외래어)(?:로|으로)\s)")
_SURNAME_TITLE = _patterns.compile(r"(?<![가-힣])(?P<n>[" + _LONE_SURNAMES + r"])(?:\s(?:선생님|쌤|샘|교수님|팀장님|과장님|부장님|대리님|원장님|"
                            r"실장님|목사님|주임님|코치님|감독님)|(?:쌤|선생님|교수님))(?=[가-힣]{0,5}(?:[\s,.!?~…)]|$))")
_SURNAME_TITLE_NEEDS = _patterns.compile(r"쌤|샘|선생님|교수님|팀장님|과장님|부장님|대리님|원장님|실장님|목사님|주임님|코치님|감독님")
#: the ranks a bare surname may take: those that are no everyday word too (상사 a boss, 대령 to wait upon)
_SURNAME_RANK_WORD = r"(?:이병|일병|상병|병장|하사|중사|원사|준위|소위|중위|대위|소령|중령)"
#: surnames that stand alone before a rank: not the determiners, numbers and pronouns (한 one, 두 two, 전 former,
#: 모 a certain, 남/여 male/female, 제 my, 나 I, 반 half, 부 vice, 도 also, 안 not); 이 is kept: soldiers say
#: 그 중사님 for "that sergeant", 이 중사님 is Sergeant Lee
_RANK_SURNAMES = "".join(ch for ch in _SURNAMES_1 if ch not in "한두전모남여제나반부도안")
#: a surname alone before a rank, written apart (김 일병입니다, 황 원사님께, 주 하사요): the rank says the word is
#: a soldier's surname
_SURNAME_RANK = _patterns.compile(r"(?<![가-힣])(?P<n>(?:" + "|".join(_SURNAMES_2) + r"|[" + _RANK_SURNAMES + r"]))\s"
                                  + _SURNAME_RANK_WORD + r"(?=[가-힣]{0,6}(?:[\s,.!?~…)]|$))")
_RANK_NEEDS = _patterns.compile(_RANK)
#: the rank itself talked about: reached or worn (오 병장 됐네, 하 상병 달았다: "oh", a sigh), not a soldier's title
_RANK_REACHED = _patterns.compile(r"(?:님)?\s?(?:되|됐|돼|될|달|단|다는|진급)")


def _rank_names_surname(text: str, m: re.Match[str]) -> bool:
    """A lone syllable before a rank is a surname unless the rank is one being reached (오 병장 됐네) or, for 이
    (this), the rank is also pointed at with 저/그 (이 병장 저 병장 다 똑같아요)."""
    rank_end = m.end()
    if _RANK_REACHED.match(text, rank_end):
        return False
    rank = text[m.end("n") + 1:rank_end]
    return not (m.group("n") == "이" and re.search(r"(?<![가-힣])[저그]\s" + rank, text))
#: a full name glued to its rank, at a word start or after the particle that joins two people (김도윤병장님이랑
#: 박시우상병이: typed without spaces)
_NAME_GLUED_RANK = _patterns.compile(r"(?:(?<![가-힣])|(?<=랑)|(?<=하고)|(?<=[와과]))(?P<n>[" + _SURNAMES_1 + r"]" + _HG + r"{2})"
                                     r"(?=" + _RANK + r")")
#: two Latin words, overlapping (Hello Lee Haneul: both "Hello Lee" and "Lee Haneul")
_LATIN_PAIR = _patterns.compile(r"(?<![A-Za-z])(?=([A-Za-z]{2,}[-\s][A-Za-z]{2,})(?![A-Za-z]))")
#: surnames whose usual Latin spelling is no Revised Romanisation (이 Lee, 박 Park, 최 Choi …)
_SURNAME_LATIN = {"이": ("lee", "yi", "rhee"), "박": ("park",), "최": ("choi",), "정": ("jung", "chung"), "조": ("cho",),
                  "윤": ("yoon",), "장": ("chang",), "임": ("lim",), "오": ("oh",), "서": ("suh",), "신": ("shin",),
                  "권": ("kwon",), "안": ("ahn",), "류": ("ryu", "yoo"), "유": ("yoo",), "전": ("jun",), "문": ("moon",),
                  "손": ("sohn",), "허": ("hur",), "노": ("roh", "noh"), "성": ("sung",), "주": ("joo",), "구": ("koo",),
                  "김": ("kim",), "한": ("han",), "강": ("kang",)}
#: the Latin spellings of surnames people write (Kim, Park, Lee, Nguyen …), lower case
_LATIN_SURNAMES = frozenset({v for vs in _SURNAME_LATIN.values() for v in vs} | {
    "jeong", "yang", "hwang", "song", "jang", "baek", "seo", "hong", "go", "ko", "moon", "bae", "nam", "shim", "ha", "kwak",
    "cha", "woo", "min", "jin", "ji", "eom", "um", "chae", "won", "cheon", "bang", "gong", "hyun", "ham", "byun", "yeom",
    "nguyen", "tran", "le", "pham", "hoang", "vu", "wang", "li", "zhang", "liu", "chen", "yang", "zhao", "huang", "wu"})
_LATIN_FULL = _patterns.compile(r"(?<![A-Za-z])(?P<n>(?:" + "|".join(sorted({v.capitalize() for vs in _SURNAME_LATIN.values() for v in vs}
                                                                    | {"Jeong", "Yang", "Hwang", "Song", "Jang", "Baek", "Seo"}))
                         + r")\s[A-Z][a-z]{2,}(?:-?[A-Za-z][a-z]+)?)(?![A-Za-z])")
#: how people romanise each jamo (Revised Romanisation plus the common older and informal spellings)
_RR_INITIAL = (("g", "k"), ("kk", "gg"), ("n",), ("d", "t"), ("tt",), ("r", "l"), ("m",), ("b", "p"), ("pp",), ("s", "sh"),
               ("ss",), ("",), ("j", "ch"), ("jj",), ("ch",), ("k",), ("t",), ("p",), ("h",))
_RR_VOWEL = (("a",), ("ae",), ("ya",), ("yae",), ("eo", "u", "o"), ("e",), ("yeo", "yu", "yo"), ("ye",), ("o",), ("wa",),
             ("wae",), ("oe", "we"), ("yo",), ("u", "oo", "woo", "wu"), ("wo", "won"), ("we",), ("wi",), ("yu", "you"),
             ("eu", "u"), ("ui", "ee", "i"), ("i", "ee", "y"))
_RR_FINAL = ("", "k", "k", "k", "n", "n", "n", "t", "l", "l", "l", "l", "l", "l", "l", "l", "m", "p", "p", "t", "t", "ng",
             "t", "t", "k", "t", "p", "t")


@functools.lru_cache(maxsize=1024)
def _romanisations(name: str) -> frozenset[str]:
    """Latin spellings of a Korean name and of its given name (지우 → jiu, jiwoo, chiwoo, …)."""
    def syllable(ch: str) -> tuple[str, ...]:
        code = ord(ch) - 0xAC00
        if not 0 <= code < 11172:
            return (ch,)
        ini, vow, fin = code // 588, (code % 588) // 28, code % 28
        out = {i + v + _RR_FINAL[fin] for i in _RR_INITIAL[ini] for v in _RR_VOWEL[vow]}
        if fin == 21:
            out |= {i + v + "ng" for i in _RR_INITIAL[ini] for v in _RR_VOWEL[vow]}
        return tuple(out)

    def spell(part: str) -> set[str]:
        acc = {""}
        for ch in part:
            acc = {a + b for a in acc for b in syllable(ch)}
            if len(acc) > 4096:
                break
        return acc

    parts = {name, name[1:]} if len(name) == 3 else {name, name[2:]} if len(name) == 4 else {name}
    out = {w for p in parts if len(p) >= 2 for w in spell(p) if len(w) >= 3}
    if len(name) == 3:  # Minji Kim, Kim Minji, Lee Seoyeon
        family = set(_SURNAME_LATIN.get(name[0], ())) | set(syllable(name[0]))
        out |= {a + b for g in spell(name[1:]) for f in family for a, b in ((g, f), (f, g))}
    return frozenset(out)


# --------------------------------------------------------------------------- entities


@dataclass(frozen=True)
class PiiEntity:
    type: str
    start: int
    end: int
    score: float
    placeholder: str


@dataclass(frozen=True)
class MaskResult:
    """The masked ``text`` and the entities found in the original (offsets refer to it)."""

    text: str
    entities: tuple[PiiEntity, ...] = ()
    backend: str = "regex"

    @property
    def changed(self) -> bool:
        return bool(self.entities)

    def __str__(self) -> str:  # so that f"{mask_pii(x)}" is always the masked text
        return self.text


_NUMBER_ONLY = _patterns.compile(r"[0-9공영일이삼사오육륙칠팔구\s\-.()~·]+")
_DIGIT_GROUPS = _patterns.compile(r"\d(?:[\d\s\-.]*\d)?")


def _allowed(text: str, start: int, end: int) -> bool:
    """A public service number standing alone (1577-0199, 일일구), not a lot number inside an
    address (하리 112) or any other value that merely contains those digits."""
    span = text[start:end]
    if _NUMBER_ONLY.fullmatch(span) is not None:
        if _digits(_korean_digits(span)) in ALLOWED_SERVICE_NUMBERS:
            return True
        # help lines listed side by side (1577-0199 1393 109): every number of the list is one
        words = [_digits(_korean_digits(w)) for w in span.split()]
        return len(words) >= 2 and all(w in ALLOWED_SERVICE_NUMBERS for w in words)
    # a help line of eight digits is never a lot or house number (필요하면 1577-0199로)
    return any(len(d) >= 7 and d in ALLOWED_SERVICE_NUMBERS for d in map(_digits, _DIGIT_GROUPS.findall(span)))


def _rule_matches(rule: Rule, text: str, out: list[PiiEntity]) -> None:
    """Append the entities of one rule to ``out`` (its precondition already holds).

    ``text`` is the normalised text (:func:`normalise_digits`); offsets are the original's."""
    for m in rule.regex.finditer(text):
        if rule.check is not None and not rule.check(m):
            continue
        start, end = m.span(rule.group)
        if end <= start or _allowed(text, start, end):
            continue
        # trailing spaces captured by a separator class are not part of the value
        while end > start and text[end - 1].isspace():
            end -= 1
        entity = rule.kind(m) if rule.kind is not None else rule.entity
        out.append(PiiEntity(entity, start, end, rule.score, PLACEHOLDERS.get(entity, "[PII]")))


def _rule_entities(rule: Rule, text: str) -> list[PiiEntity]:
    out: list[PiiEntity] = []
    text = normalise_digits(text)
    derived = _Prefilters.rules.get(id(rule))
    if (rule.needs is None or rule.needs.search(text)) and (derived is None or derived.search(text)):
        _rule_matches(rule, text, out)
    return out


def _person_entities(text: str) -> Iterator[PiiEntity]:
    for start, end in _name_spans(text):
        yield PiiEntity("PERSON", start, end, _NAME_SCORE, PLACEHOLDERS["PERSON"])


def _entities_present(rule: Rule, norm: str) -> tuple[str, ...]:
    """The entity types ``rule`` may report on ``norm`` (a cheap over-estimate, for Presidio)."""
    derived = _Prefilters.rules.get(id(rule))
    if derived is not None and derived.search(norm) is None:
        return ()
    if rule.kind is None:
        return (rule.entity,) if rule.regex.search(norm) else ()
    return tuple({rule.kind(m) for m in rule.regex.finditer(norm) if rule.check is None or rule.check(m)})


def _group_rules() -> tuple[tuple[re.Pattern[str] | None, tuple[Rule, ...]], ...]:
    groups: dict[int, tuple[re.Pattern[str] | None, list[Rule]]] = {}
    for r in RULES:
        groups.setdefault(id(r.needs), (r.needs, []))[1].append(r)
    return tuple((need, tuple(rules)) for need, rules in groups.values())


#: rules grouped by their precondition, so each precondition is tested once per text
_RULE_GROUPS = _group_rules()

#: texts a process masks before it derives the literal pre-filters (see :class:`_Prefilters`)
_PREFILTER_AFTER = 200
_ONE_DIGIT = frozenset("0123456789")


class _Prefilters:
    """Literal pre-filters derived from each rule's and each name cue's own pattern.

    :func:`vignette_lab.core._regex_needs.needs_pattern` reads a pattern's parse tree and returns
    a search for literals one of which every match contains (``번지``, ``아파트|빌라|…``). It is
    a necessary condition of the pattern, so a text that fails it cannot match and skipping the
    pattern changes no result. Deriving them all takes ~35 ms, so a process builds them only
    after it has masked :data:`_PREFILTER_AFTER` texts: a one-shot command never pays for them,
    a long-lived process has them from then on. Filters of lone digits (the group precondition
    already asks for digits) and, for name cues, of single syllables (particles occur in nearly
    every text) would cost more than they save and are left out.
    """

    texts = 0
    groups: tuple[tuple[re.Pattern[str] | None, tuple[tuple[Rule, re.Pattern[str] | None], ...]], ...] = tuple(
        (need, tuple((r, None) for r in rules)) for need, rules in _RULE_GROUPS)
    rules: dict[int, re.Pattern[str] | None] = {}
    names: dict[int, re.Pattern[str] | None] = {}
    built = False


def _build_prefilters() -> None:
    from vignette_lab.core._regex_needs import literal_filter

    def derived(rx: re.Pattern[str], *, min_len: int) -> re.Pattern[str] | None:
        found, search = literal_filter(rx.pattern, rx.flags)  # one parse for both
        if found is None or found <= _ONE_DIGIT or min(map(len, found)) < min_len:
            return None
        return search

    by_rule = {id(r): derived(r.regex, min_len=1) for r in RULES}
    names = {id(rx): derived(rx, min_len=2) for _, rx in _NAME_PATTERNS}
    # each assignment swaps a whole table, and any mix of old and new filters is correct (each is
    # only a necessary condition of its pattern), so texts masked meanwhile on other threads are fine
    _Prefilters.rules = by_rule
    _Prefilters.names = names
    _Prefilters.groups = tuple((need, tuple((r, by_rule[id(r)]) for r in rules)) for need, rules in _RULE_GROUPS)
    _Prefilters.built = True


def prepare_prefilters() -> None:
    """Derive the literal pre-filters now (idempotent), instead of after the 200th text.

    For a long-lived process at a quiet moment: the warm CLI worker calls it while it waits for
    its first request, so no request of its pays for them.
    """
    if not _Prefilters.built:
        _build_prefilters()


def _count_text() -> None:
    """Count one masked text; the :data:`_PREFILTER_AFTER`-th starts building the pre-filters on a
    background thread, so the request that masked it does not wait for them (0.06-0.2 s CPU here,
    about 1 s under load): texts masked meanwhile run their patterns unfiltered, as before."""
    if _Prefilters.texts < _PREFILTER_AFTER:
        # threads may lose a count, never the build: whoever writes the 200th count builds (twice
        # at worst), and any mix of old and new filters is correct since each is only a necessary
        # condition of its pattern
        n = _Prefilters.texts + 1
        _Prefilters.texts = n
        if n == _PREFILTER_AFTER and not _Prefilters.built:
            threading.Thread(target=_build_prefilters, name="pii-prefilters", daemon=True).start()


# --------------------------------------------------------------------------- spacing

#: a run of three or more one-character words (김 민 지, 1 2 3 고 4 5 6 7): spaced-syllable typing
_SPACED_RUN = _patterns.compile(r"(?<!\S)[가-힣0-9A-Za-z](?:[ \t]+[가-힣0-9A-Za-z](?!\S)){2,}"
                         # … or a surname and two syllables, the last with its particle (김 정 숙은)
                         r"|(?<!\S)(?P<sur>[" + "".join(sorted(_SURNAMES_1)) + r"])[ \t]+[가-힣][ \t]+[가-힣]"
                         r"(?=(?:은|는|이|가|을|를|의|도|과|와|이랑|랑|한테|에게|이라고|라고|이라는|라는|이에요|예요|입니다)(?!\S))")
#: one long word with no spaces at all and five Hangul syllables at least (오늘상담에서말한거절대…);
#: never a segment of an id (UUIDs, file names)
_UNSPACED = _patterns.compile(r"(?<![0-9A-Za-z가-힣\-_.])(?=(?:[0-9A-Za-z]*[가-힣]){5})[가-힣0-9A-Za-z]{10,}(?![\-_.]?[0-9A-Za-z])")
_JOINING_TAGS = ("J", "E", "XS", "VCP", "VCN", "EP", "ETM", "ETN")


def _respace(collapsed: str) -> str:
    """Word spacing restored from morphology: a new word starts at each content morpheme that
    does not continue a noun compound or a number (도현우가저를때렸어요 → 도현우가 저를 때렸어요)."""
    toks = _tokens(collapsed)
    if toks is None:
        return collapsed
    out, pos, prev = [], 0, None
    for t in toks:
        if t.start < pos:
            prev = t
            continue
        if prev is not None and t.start == pos and not collapsed[pos - 1:pos].isspace() and not (
                t.tag.startswith(_JOINING_TAGS) or (prev.tag.startswith("NN") and t.tag.startswith("NN"))
                or (prev.tag in ("SN", "SL") and t.tag in ("NNB", "NNG", "NNP", "SN", "SL")) or prev.tag == "XPN"):
            out.append(" ")
        out.append(collapsed[pos:t.start + t.len])
        pos = t.start + t.len
        prev = t
    out.append(collapsed[pos:])
    return "".join(out)


@functools.lru_cache(maxsize=16384)
def _respaced_view(text: str) -> tuple[str, tuple[int, ...], tuple[tuple[int, int], ...]] | None:
    """Text typed one syllable at a time, or with no spaces, re-spaced the way the recognisers
    expect: the re-spaced text, the original offset of each of its non-space characters, and the
    original regions that were re-spaced (``None`` when the text needs none)."""
    regions = [m.span() for m in _UNSPACED.finditer(text)]
    # collapse the spaces inside each spaced run and next to it (김 민 지 라는 → 김민지라는); the
    # word glued on at either side belongs to the re-spaced region too
    drop: set[int] = set()
    for m in _SPACED_RUN.finditer(text):
        a, b = m.span()
        # 남편 박 준 호는, 여자친구 김 서 진: keep a whole word before a spaced surname apart
        while a > 0 and text[a - 1] in " \t" and m.group("sur") is None and not (
                m.group(0)[0] in _SURNAMES_1 and re.search(r"(?<!\S)[가-힣]{2,}[ \t]*$", text[:a])):
            a -= 1
        while b < len(text) and text[b] in " \t":
            b += 1
        drop.update(i for i in range(a, b) if text[i] in " \t")
        while a > 0 and not text[a - 1].isspace():
            a -= 1
        while b < len(text) and not text[b].isspace():
            b += 1
        regions.append((a, b))
    if not regions:
        return None
    regions.sort()
    collapsed = "".join(ch for i, ch in enumerate(text) if i not in drop)
    respaced = _respace(collapsed)
    origin = tuple(i for i, ch in enumerate(text) if not ch.isspace())
    return respaced, origin, tuple(regions)


def _respaced_entities(text: str) -> list[PiiEntity]:
    """Entities found only after re-spacing, mapped back to ``text`` (within the re-spaced regions)."""
    if _SPACED_RUN.search(text) is None and _UNSPACED.search(text) is None:
        return []
    return list(_respaced_entities_cached(text))


@functools.lru_cache(maxsize=4096)
def _respaced_entities_cached(text: str) -> tuple[PiiEntity, ...]:
    view = _respaced_view(text)
    if view is None:
        return ()
    respaced, origin, regions = view
    index, k = [], 0  # respaced offset → index of its non-space character
    for ch in respaced:
        index.append(k)
        k += not ch.isspace()
    out = []
    for e in _direct_entities(respaced):
        inner = respaced[e.start:e.end]
        lead = len(inner) - len(inner.lstrip())
        trail = len(inner) - len(inner.rstrip())
        a, b = index[e.start + lead], index[e.end - 1 - trail]
        start, end = origin[a], origin[b] + 1
        if any(start < rb and end > ra for ra, rb in regions):
            out.append(PiiEntity(e.type, start, end, e.score, e.placeholder))
    # inside a word typed with no spaces the name's left edge is lost (…절대하린이한테…): a common
    # given name followed by the hypocoristic 이 and a case particle is still a name
    for m in _UNSPACED.finditer(text):
        for g in _GLUED_NAME.finditer(text, m.start(), m.end()):
            if g.group("n") in _GIVEN:
                out.append(PiiEntity("PERSON", g.start("n"), g.end("n"), _NAME_SCORE, PLACEHOLDERS["PERSON"]))
    return tuple(out)


def _clear_text_caches() -> None:
    """Forget every per-text answer (the name model's weights changed: :func:`on_model_change`)."""
    _name_spans_cached.cache_clear()
    _respaced_entities_cached.cache_clear()


on_model_change(_clear_text_caches)


_GLUED_NAME = _patterns.compile(r"(?P<n>[가-힣]{2})이(?:가|는|랑|한테|하고|를|에게|도|의|처럼|보다)")


def find_entities(text: str) -> list[PiiEntity]:
    """All entities the Korean recognisers find in ``text`` (overlaps not yet resolved), also in
    its re-spaced reading when it was typed one syllable at a time or without spaces."""
    return _direct_entities(text) + _respaced_entities(text)


def _direct_entities(text: str) -> list[PiiEntity]:
    found: list[PiiEntity] = []
    norm = normalise_digits(text)
    for need, rules in _Prefilters.groups:
        if need is None or need.search(norm):
            for rule, derived in rules:
                if derived is None or derived.search(norm):
                    _rule_matches(rule, norm, found)
    found.extend(_person_entities(text))
    return found


_WORD_EDGE = _patterns.compile(r"[0-9A-Za-z]")
#: one or two region words right before a school (부산 해솔여고, 서울 마포구 성산중학교)
_REGION_BEFORE = _patterns.compile(r"(?<![가-힣])(?:" + _SIDO + r"|(?:" + _SI + r")(?:시)?|" + _SGG + r")"
                            r"(?:\s(?:" + _SGG + r"|(?:" + _SI + r")시))?\s$")


def _with_region(text: str, chosen: list[PiiEntity]) -> list[PiiEntity]:
    """A school's mask takes in the region named right before it: 부산 + [ORG] would still narrow
    the school down to one city's few schools."""
    out = []
    for ent in chosen:
        if ent.type == "KR_SCHOOL" and ent.start > 0 and text[ent.start - 1] == " ":
            m = _REGION_BEFORE.search(text, max(0, ent.start - 24), ent.start)
            if m is not None and not any(o.end > m.start() and o.start < ent.start for o in chosen if o is not ent):
                ent = PiiEntity(ent.type, m.start(), ent.end, ent.score, ent.placeholder)
        out.append(ent)
    return out


#: a flat or unit number written after an address already found ([ADDRESS], 302호 / [ADDRESS] 빌라
#: B01호 / [ADDRESS] 3동 1204호): the unit narrows the address down to one household
_UNIT_AFTER_ADDRESS = _patterns.compile(r"(?:,\s?|\s)(?:[가-힣A-Za-z0-9]{0,12}(?:아파트|빌라|오피스텔|맨션|타운|빌딩|주택|기숙사|생활관)\s?|"
                                 # or one or two words of a building's own name (에이치스퀘어 N동 701호, 원룸 302호)
                                 r"(?:[가-힣A-Za-z][가-힣A-Za-z0-9]{0,11}\s){1,2})?"
                                 r"(?:(?:[A-Za-z]|[A-Za-z]?\d{1,4})\s?동\s?)?(?:[A-Za-z]?\d{1,5}\s?호|\d{1,3}\s?층(?:\s?[A-Za-z]?\d{1,5}\s?호)?)"
                                 r"(?![0-9A-Za-z]|텔|수|선)")


def _with_unit(text: str, chosen: list[PiiEntity]) -> list[PiiEntity]:
    """An address's mask takes in the flat number that follows it (, 302호; 빌라 B01호)."""
    out: list[PiiEntity] = []
    for ent in chosen:
        if out and out[-1].type == "KR_ADDRESS" and out[-1].end >= ent.end:
            continue  # a unit already taken into the address before it
        if ent.type == "KR_ADDRESS":
            m = _UNIT_AFTER_ADDRESS.match(text, ent.end)
            later = [o for o in chosen if o.start >= ent.end and o.start < (m.end() if m else 0)]
            if m is not None and all(o.type == "KR_ADDRESS" and o.end <= m.end() for o in later):
                ent = PiiEntity(ent.type, ent.start, m.end(), ent.score, ent.placeholder)
        out.append(ent)
    return out


#: a self-correction right after a value (… 아니고, … 이 아니라, … 아니, … 말고, 아 오타): what follows
#: is the same kind of value, said again the right way
_CORRECTION = _patterns.compile(r"(?:이|가|은|는)?\s?(?:아니고|아니라|아니|말고|아\s?오타|오타)(?:요|예)?,?\s(?:그냥\s|진짜는\s|원래는\s)?")
_CORRECTED_DIGITS = _patterns.compile(r"[0-9][0-9*]{0,5}(?:-[0-9*]{1,6})?(?![0-9A-Za-z])")


def _with_corrections(text: str, chosen: list[PiiEntity]) -> list[PiiEntity]:
    """A value corrected right after it is found takes the same mask (한소희 아니고 한소이, 010-…-1173
    아니라 1137, 19 머 0077 아니 0071): a name of the same length that starts with the same syllable,
    or a run of digits no longer than the digits of the value it corrects."""
    extra: list[PiiEntity] = []
    for ent in chosen:
        m = _CORRECTION.match(text, ent.end)
        if m is None:
            continue
        value, at = text[ent.start:ent.end], m.end()
        if ent.type == "PERSON":
            word = re.match(r"[가-힣]+", text[at:])
            if word is None or len(word.group()) < len(value) or word.group()[0] != value[0]:
                continue
            span = (at, at + len(value))
            tail = text[span[1]:at + len(word.group())]
            if tail and not re.fullmatch(_TAIL + "(?:임|요)?", tail):
                continue
        else:
            d = _CORRECTED_DIGITS.match(text, at)
            n = sum(ch.isdigit() for ch in value)
            if d is None or n < 2 or not 2 <= sum(ch.isdigit() or ch == "*" for ch in d.group()) <= n:
                continue
            span = d.span()
        if all(span[1] <= c.start or span[0] >= c.end for c in chosen + extra):
            extra.append(PiiEntity(ent.type, span[0], span[1], ent.score, ent.placeholder))
    return sorted(chosen + extra, key=lambda e: e.start) if extra else chosen


def _with_repeats(text: str, chosen: list[PiiEntity]) -> list[PiiEntity]:
    """Add every other occurrence of an identifier already found (생일 0822라 비번도 0822로): a value
    with at least four digits is masked wherever it stands as a whole value in the same text.
    Names are repeated by the name finder itself."""
    if not chosen:
        return chosen
    extra: list[PiiEntity] = []
    for ent in chosen:
        value = text[ent.start:ent.end]
        if ent.type == "PERSON" or sum(ch.isdigit() for ch in value) < 4 or text.count(value) < 2:
            continue
        i = text.find(value)
        while i >= 0:
            j = i + len(value)
            if not (i > 0 and _WORD_EDGE.match(text[i - 1])) and not (j < len(text) and _WORD_EDGE.match(text[j])) \
                    and all(j <= c.start or i >= c.end for c in chosen + extra):
                extra.append(PiiEntity(ent.type, i, j, ent.score, ent.placeholder))
            i = text.find(value, i + 1)
    return sorted(chosen + extra, key=lambda e: e.start) if extra else chosen


def _resolve_overlaps(entities: Iterable[PiiEntity]) -> list[PiiEntity]:
    # Longest span first, then highest score: a phone number inside an address is masked once.
    chosen: list[PiiEntity] = []
    for ent in sorted(entities, key=lambda e: (-(e.end - e.start), -e.score, e.start, e.type)):
        if all(ent.end <= c.start or ent.start >= c.end for c in chosen):
            chosen.append(ent)
    return sorted(chosen, key=lambda e: e.start)


# --------------------------------------------------------------------------- Presidio


class _PresidioState:
    lock = threading.Lock()
    analyzer: Any = None
    tried = False
    error: str | None = None


#: ``auto`` backend of this process: long-lived processes (app server, notebooks, library use)
#: keep Presidio; the CLI group switches one-shot commands to the regex backend of the same rules
_DEFAULT: dict[str, str] = {"backend": "presidio",
                            "reason": "long-lived process (library, app server, notebook): Presidio is the gate"}


def set_default_backend(backend: Literal["presidio", "regex"], *, reason: str) -> tuple[str, str]:
    """Set which backend ``mask_pii(backend="auto")`` uses in this process; returns the previous one.

    ``VIGNETTE_PII_BACKEND=presidio|regex`` still overrides it. Both backends run the same
    recognisers and find identical spans; only the import cost differs.
    """
    if backend not in ("presidio", "regex"):
        raise ValueError(f"The 'backend' parameter of set_default_backend must be 'presidio' or 'regex'. "
                         f"Got {backend!r} instead.")
    previous = (_DEFAULT["backend"], _DEFAULT["reason"])
    _DEFAULT.update(backend=backend, reason=reason)
    return previous


def chosen_backend() -> tuple[str, str]:
    """The backend ``auto`` resolves to and why: the environment override, else the process default."""
    env = os.environ.get("VIGNETTE_PII_BACKEND", "").strip().lower()
    if env in ("presidio", "regex"):
        return env, f"VIGNETTE_PII_BACKEND={env}"
    return _DEFAULT["backend"], _DEFAULT["reason"]


#: heavy optional packages Presidio's package import drags in but the masking path never uses
_HIDDEN_FROM_PRESIDIO = ("transformers", "torch", "stanza", "flair", "spacy_huggingface_pipelines")
#: packages Presidio's modules import at module level only for engines and recognisers the
#: masking path never builds (spaCy and thinc for the spaCy/transformers NLP engines,
#: phonenumbers and tldextract for the predefined phone and e-mail recognisers): ~0.6 s of the
#: first call. While ``presidio_analyzer`` is imported they are served as inert stand-ins.
_STOOD_IN_FOR_PRESIDIO = ("spacy", "thinc", "phonenumbers", "tldextract",
                          # Presidio's own predefined recognisers: their ``Pattern`` class attributes
                          # compile every regex at import (~0.25 s, most of it the URL recogniser's
                          # list of top-level domains); the registry imports three of them only for
                          # ``isinstance`` checks that a custom NLP engine never reaches
                          "presidio_analyzer.predefined_recognizers",
                          # pydantic models of configuration files and of the spaCy/transformers NER
                          # settings (~0.15 s with pydantic's import): the gate is configured in code.
                          # Names Presidio's modules took from a stand-in stay inert, so Presidio's own
                          # default engines and YAML configuration do not work in this process.
                          "presidio_analyzer.input_validation", "presidio_analyzer.nlp_engine.ner_model_configuration",
                          # PyYAML (configuration files, ~0.02 s) and the LLM-backed recogniser with its
                          # prompt/config helpers, which import it: the gate reads no YAML and calls no LLM
                          "yaml", "presidio_analyzer.lm_recognizer", "presidio_analyzer.llm_utils")


@contextlib.contextmanager
def _light_presidio_import() -> Iterator[None]:
    """Import ``presidio_analyzer`` without transformers/torch and without spaCy's weight.

    ``presidio_analyzer/__init__`` imports every NLP engine and every predefined recogniser.
    The transformers engine imports ``transformers.pipeline`` and thinc's torch helpers (3–5 s
    with the BGE-M3 extra); Presidio guards those with ``try/except ImportError``, so a ``None``
    entry in ``sys.modules`` makes it skip them. spaCy, thinc, phonenumbers, tldextract and PyYAML
    are imported unguarded but used only by engines, recognisers and configuration files this
    gate never builds or reads (the Korean recognisers bring their own analysis and
    :class:`KoreanNlpEngine` needs no spaCy ``Doc``), so they are served as inert stand-ins during
    that one import (:func:`vignette_lab.core._stand_ins.stood_in`). Packages already loaded (e.g.
    by the embedder) are used as they are, and every entry is removed afterwards so a later
    ``import spacy`` or ``import torch`` gets the real package.
    """
    with stood_in(_STOOD_IN_FOR_PRESIDIO, hidden=_HIDDEN_FROM_PRESIDIO):
        yield


def _build_analyzer() -> Any:
    with _light_presidio_import():
        from presidio_analyzer import (AnalyzerEngine, ContextAwareEnhancer, EntityRecognizer, RecognizerRegistry,
                                       RecognizerResult)
        from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngine

    class KoreanNlpEngine(NlpEngine):
        """An NLP engine that does no analysis: the Korean recognisers run their own (kiwipiepy
        only for name candidates), so no spaCy pipeline or ``Doc`` is ever built."""

        def __init__(self) -> None:
            self._loaded = False

        def load(self) -> None:
            self._loaded = True

        def is_loaded(self) -> bool:
            return self._loaded

        def process_text(self, text: str, language: str) -> Any:
            # presidio types tokens as a spaCy Doc; the no-op engine has no Doc and Presidio accepts a list
            return NlpArtifacts(entities=[], tokens=[], tokens_indices=[], lemmas=[],  # type: ignore[arg-type]
                                nlp_engine=None, language=language)

        def process_batch(self, texts: Iterable[str], language: str, batch_size: int = 1, n_process: int = 1,
                          **kwargs: Any) -> Iterator[tuple[str, Any]]:
            for text in texts:
                yield text, self.process_text(text, language)

        def is_stopword(self, word: str, language: str) -> bool:
            return False

        def is_punct(self, word: str, language: str) -> bool:
            return False

        def get_supported_entities(self) -> list[str]:
            return []

        def get_supported_languages(self) -> list[str]:
            return ["ko"]

    class KoreanRuleRecognizer(EntityRecognizer):
        """Presidio wrapper of the Korean pattern rules of one entity type."""

        def __init__(self, entity: str, rules: Sequence[Rule]):
            self._rules = tuple(rules)
            kinds = sorted({e for r in rules for e in r.entities})
            super().__init__(supported_entities=kinds, name=f"Korean{entity.title().replace('_', '')}",
                             supported_language="ko")

        def load(self) -> None:  # patterns are compiled at import
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            return [RecognizerResult(e.type, e.start, e.end, e.score)
                    for rule in self._rules for e in _rule_entities(rule, text) if e.type in entities]

    class KoreanNameRecognizer(EntityRecognizer):
        """Korean person names: context cues + surname list, confirmed by kiwipiepy morphology."""

        def __init__(self) -> None:
            super().__init__(supported_entities=["PERSON"], name="KoreanNameRecognizer", supported_language="ko")

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            return [RecognizerResult("PERSON", s, e, _NAME_SCORE) for s, e in _name_spans(text)]

    class KoreanRespacedRecognizer(EntityRecognizer):
        """Every Korean recogniser again on the re-spaced reading of text typed one syllable at a
        time (김 민 지) or without spaces; spans refer to the original text."""

        def __init__(self) -> None:
            super().__init__(supported_entities=sorted(PLACEHOLDERS), name="KoreanRespacedRecognizer",
                             supported_language="ko")

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            return [RecognizerResult(e.type, e.start, e.end, e.score) for e in _respaced_entities(text)
                    if e.type in entities]

    class NoContextEnhancer(ContextAwareEnhancer):
        """The Korean recognisers carry their own context (cue words are part of each pattern);
        Presidio's lemma-based enhancer would only deep-copy the results."""

        def __init__(self) -> None:
            super().__init__(context_similarity_factor=0.0, min_score_with_context_similarity=0.0,
                             context_prefix_count=0, context_suffix_count=0)

        def enhance_using_context(self, text: str, raw_results: list[Any], nlp_artifacts: Any,
                                  recognizers: list[Any], context: list[str] | None = None) -> list[Any]:
            return raw_results

    registry = RecognizerRegistry(supported_languages=["ko"])
    by_entity: dict[str, list[Rule]] = {}
    for rule in RULES:
        by_entity.setdefault(rule.entity, []).append(rule)
    for entity, rules in by_entity.items():
        registry.add_recognizer(KoreanRuleRecognizer(entity, rules))
    registry.add_recognizer(KoreanNameRecognizer())
    registry.add_recognizer(KoreanRespacedRecognizer())
    analyzer = AnalyzerEngine(nlp_engine=KoreanNlpEngine(), registry=registry, supported_languages=["ko"],
                              context_aware_enhancer=NoContextEnhancer())
    analyzer.analyze("초기화 010-0000-0000", language="ko")  # fail now, not on the first real text
    return analyzer


def _load_presidio() -> Any:
    """Load a Presidio analyzer with the Korean recognisers, once per process (``None`` if it cannot)."""
    if _PresidioState.tried:
        return _PresidioState.analyzer
    with _PresidioState.lock:
        if _PresidioState.tried:
            return _PresidioState.analyzer
        # kiwipiepy is not preloaded here: it holds the GIL while loading (nothing overlaps) and a
        # first text whose questions the shipped analyses answer needs no analyser at all
        try:
            _PresidioState.analyzer = _build_analyzer()
        except Exception as exc:  # any import/config failure → honest regex fallback
            _PresidioState.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
            log.warning("Presidio unavailable, using the regex PII fallback: %s", _PresidioState.error)
        _PresidioState.tried = True
        return _PresidioState.analyzer


def pii_backend() -> dict[str, str]:
    """Which PII recogniser is active and why (used by ``vignette-lab doctor``)."""
    backend, why = chosen_backend()
    from vignette_lab.core import morph

    # answered without loading kiwipiepy: `doctor` should not pay ~1 s for a status line
    names = ("kiwipiepy morphology, loaded when a name candidate needs checking" if morph.available()
             else f"the surname rule only (kiwipiepy could not load: {morph.load_error() or 'not installed'})")
    if backend == "regex":
        return {"active": "regex",
                "reason": f"{why}; the same Korean recognizers as the Presidio backend run directly, identical "
                          f"spans (person names via {names})"}
    analyzer = _load_presidio()
    if analyzer is not None:
        return {"active": "presidio",
                "reason": f"{why}; presidio-analyzer with a no-op NLP engine and Korean recognizers (RRN/FRN, "
                          "phones incl. Korean digit words, e-mail, cards, accounts, passports, car plates, school "
                          f"and class, SNS ids, birthdays, addresses, person names via {names})"}
    return {"active": "regex",
            "reason": f"fallback: Presidio could not load ({_PresidioState.error}); the same Korean "
                      f"recognizers run directly (person names via {names})"}


# --------------------------------------------------------------------------- masking


def mask_pii(text: str, *, backend: Literal["auto", "presidio", "regex"] = "auto",
             client_names: Sequence[str] = (), counselor_names: Sequence[str] = ()) -> MaskResult:
    """Mask personal identifiers in Korean (and mixed) text.

    Parameters
    ----------
    text : str
        Raw text. ``None`` is treated as an empty string.
    backend : {"auto", "presidio", "regex"}, default="auto"
        ``auto`` uses the process default (:func:`chosen_backend`: ``VIGNETTE_PII_BACKEND``, else
        Presidio in long-lived processes and the regex backend in one-shot CLI commands); Presidio
        falls back to the regex backend when it cannot load.
        ``presidio`` raises :class:`RuntimeError` when Presidio is unavailable. Both run the
        same Korean recognisers and find the same entities.
    client_names, counselor_names : sequence of str, default=()
        This session's role names (the persona's fictional display name; the trainee's name). A
        person-name span the gate finds that is one of them (or a surname + one of them) is
        masked as ``[CLIENT]`` / ``[COUNSELOR]`` instead of ``[NAME]``: the reader still sees who is
        meant, and the fictional name is never kept verbatim, so a real person who shares it stays
        masked. Only spans the name recognisers find are retagged (the same on both backends);
        the same word used as an ordinary word (하늘이 맑아요, 지우고 싶어요) is left alone.

    Returns
    -------
    MaskResult
        ``.text`` with each entity replaced by a placeholder such as ``[PHONE]`` or ``[NAME]``,
        ``.entities`` found (offsets into the original text) and ``.backend`` used.

    Examples
    --------
    >>> mask_pii("연락처는 010-1234-5678이에요").text
    '연락처는 [PHONE]이에요'
    >>> mask_pii("힘들면 1577-0199로 전화해요").text
    '힘들면 1577-0199로 전화해요'
    """
    if backend not in ("auto", "presidio", "regex"):
        raise ValueError(f"The 'backend' parameter of mask_pii must be 'auto', 'presidio' or 'regex'. "
                         f"Got {backend!r} instead.")
    text = "" if text is None else str(text)
    if not text.strip():
        return MaskResult(text, (), "none")
    _count_text()
    used = "regex"
    analyzer = None
    wanted_backend = chosen_backend()[0] if backend == "auto" else backend
    if wanted_backend == "presidio":
        analyzer = _load_presidio()
        if analyzer is None and backend == "presidio":
            raise RuntimeError(f"Presidio is not available: {_PresidioState.error}")
        if analyzer is not None:
            used = "presidio"
    if analyzer is not None:
        # Presidio's engine costs far more than the rules; ask it only for the entity types one
        # of whose patterns occurs in the text at all (a recogniser cannot find anything else),
        # and not at all when none does.
        norm = normalise_digits(text)
        wanted = sorted({e for need, rules in _RULE_GROUPS if need is None or need.search(norm)
                         for r in rules for e in _entities_present(r, norm)})
        if _name_spans(text):
            wanted.append("PERSON")
        wanted = sorted(set(wanted) | {e.type for e in _respaced_entities(text)})
        if not wanted:
            return MaskResult(text, (), used)
        entities = [PiiEntity(r.entity_type, r.start, r.end, float(r.score), PLACEHOLDERS.get(r.entity_type, "[PII]"))
                    for r in analyzer.analyze(text, language="ko", entities=wanted, score_threshold=0.3)]
    else:
        entities = find_entities(text)
    chosen = _with_corrections(text, _with_unit(text, _with_region(text, _with_repeats(text, _resolve_overlaps(entities)))))
    if not chosen:
        return MaskResult(text, (), used)
    if client_names or counselor_names:
        chosen = _role_tagged(text, chosen, client_names, counselor_names)
    out, pos = [], 0
    for ent in chosen:
        out.append(text[pos:ent.start])
        out.append(ent.placeholder)
        pos = ent.end
    out.append(text[pos:])
    return MaskResult("".join(out), tuple(chosen), used)


def _role_tagged(text: str, chosen: list[PiiEntity], client_names: Sequence[str],
                 counselor_names: Sequence[str]) -> list[PiiEntity]:
    """Person-name entities that are this session's role names get the role's placeholder."""
    roles: dict[str, str] = {}
    for names, token in ((client_names, "[CLIENT]"), (counselor_names, "[COUNSELOR]")):
        for name in names or ():
            name = (name or "").split("(")[0].strip()  # 서연(고2) → 서연
            if len(name) >= 2:
                roles.setdefault(name, token)
    out = []
    for ent in chosen:
        span = text[ent.start:ent.end]
        role = roles.get(span)
        if role is None and len(span) >= 3 and span[0] in _SURNAMES_1:
            role = roles.get(span[1:])  # 김하늘 when the persona is 하늘
        out.append(PiiEntity(ent.type, ent.start, ent.end, ent.score, role) if ent.type == "PERSON" and role else ent)
    return out


def mask_role_identities(text: str, *, counselor_names: Sequence[str] = (), client_names: Sequence[str] = (),
                         other_names: Sequence[str] = ()) -> str:
    """Replace the names of this session's people with role tokens.

    Counselor/learner names become ``[COUNSELOR]``, persona/client names ``[CLIENT]``,
    any other known name ``[NAME]``. Korean particles after a name stay (``서연이는`` →
    ``[CLIENT]이는``). Longer names are replaced first so ``김서연`` wins over ``서연``.
    """
    if not text:
        return text or ""
    pairs: list[tuple[str, str]] = []
    for names, token in ((counselor_names, "[COUNSELOR]"), (client_names, "[CLIENT]"), (other_names, "[NAME]")):
        for name in names or ():
            name = (name or "").strip()
            if len(name) >= 2 or (name and not re.fullmatch(r"[가-힣]", name)):
                pairs.append((name, token))
    for name, token in sorted(pairs, key=lambda p: -len(p[0])):
        text = re.sub(re.escape(name), token, text)
    return text


# --------------------------------------------------------------------------- the gate


def gate_text(text: str | None, *, counselor_names: Sequence[str] = (), client_names: Sequence[str] = (),
              other_names: Sequence[str] = ()) -> str:
    """The one gate every stored or engine-bound free text passes through.

    Session role names become role tokens first (``[COUNSELOR]``/``[CLIENT]``/``[NAME]``), then
    :func:`mask_pii` masks every other identifier. Idempotent: gating masked text changes
    nothing. ``None`` stays ``None`` so optional columns keep their NULL.
    """
    if text is None:
        return None  # type: ignore[return-value]
    text = str(text)
    if counselor_names or client_names or other_names:
        text = mask_role_identities(text, counselor_names=counselor_names, client_names=client_names,
                                    other_names=other_names)
    return mask_pii(text).text


def gate_texts(texts: Iterable[str | None]) -> tuple[list[str | None], int]:
    """Gate many texts; returns the masked texts and how many of them masking changed."""
    out: list[str | None] = []
    changed = 0
    for t in texts:
        g = gate_text(t)
        changed += int(g != t)
        out.append(g)
    return out, changed


def gate_json(value: Any) -> Any:
    """Gate every string inside a JSON-like value (dict keys are kept: they are field names)."""
    if isinstance(value, str):
        return gate_text(value)
    if isinstance(value, dict):
        return {k: gate_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [gate_json(v) for v in value]
    return value
