"""Reading a counselor turn the way a client hears it: the act, the topic and the fact asked.

Used by the scripted client (:mod:`vignette_lab.engines.scripted_client`) and the self-play
counselor. Everything here is pure and fast (regular expressions over the masked text, plus
kiwipiepy morphemes where word boundaries matter); no model is loaded.

* :func:`read_act` — what kind of act the turn is: ``meta`` (identity/prompt probes),
  ``si_screen``, ``closing``, ``greeting``, ``english``, ``long``, ``unintelligible``,
  ``joke``, ``off_topic``, ``fact`` (a factual question about the client) or ``talk``.
* :func:`read_topic` — school, family, friends, sleep, feelings, future, session, body, work.
* :func:`read_fact` — which fact of the fact table a question asks for.
* :func:`is_repeat` — whether the turn repeats an earlier counselor turn (normalised text).
* :func:`standardise` — the turn as the reader reads it, whatever way it was typed: laughter and
  crying marks dropped, 초성 words (ㅇㅇ, ㄴㄴ, ㅁㄹ) and chat spellings (어케, 머해, 있음?) spelled
  out, dialect question endings (-노, -는교, -유, -여) made standard, and spaces restored by
  kiwipiepy when a run of text was typed without them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Iterable, Sequence

__all__ = ["ACTS", "FACT_KEYS", "TOPICS", "after_greeting", "aside_noun", "asks_aside", "asks_coping", "asks_task", "choice_options", "closing_asks_questions", "closing_kind", "closing_plan", "content_phrase", "cue_key", "cue_keys",
           "english_gist",
           "asks_thought", "is_question", "is_repeat", "joke_kind", "joke_target", "normalise", "read_act", "read_fact", "read_topic", "si_follow_up", "small_talk_subject", "standardise", "whose"]

ACTS = ("meta", "si_screen", "closing", "greeting", "english", "long", "unintelligible", "joke",
        "off_topic", "fact", "talk")
TOPICS = ("school", "family", "friends", "sleep", "feelings", "future", "session", "body", "work", "daily")
FACT_KEYS = ("prior_counseling", "reason", "age", "grade", "siblings", "living", "school", "friends",
             "sleep", "hobby", "family", "want", "parents_wish", "education", "medical", "child", "transfer",
             "awards", "academy", "aptitude")
LONG_INPUT_CHARS = 200

# Identity and meta probes: the client is a person and hears these as odd questions.
_META = re.compile(
    r"((?<![A-Za-z])A\.?I(?![A-Za-z])|에이아이|인공\s*지능|챗\s*봇|챗GPT|GPT|로봇|알고리즘|언어\s*모델|"
    r"(너|넌|니가|네가|당신|당신은)\s*.{0,8}(프로그램|기계|캐릭터|가짜)|"
    r"시스템\s*프롬프트|프롬프트|지시\s*사항|설정(을|이|값|은|\s*좀|\s*말|\s*보여|\s*알려)|입력(된|한|받은)\s*(설정|내용|정보|값|거|것)|대본|스크립트|각본|"
    r"연기(하는|하고|야|죠|중)|역할\s*극|역할\s*(을\s*)?(바꾸|바꿔|바꿀|바꾼)|"
    r"(너|넌|당신)(는|은)?\s*(이제|지금부터)?\s*(상담자|상담사|상담\s*선생님)(야|이야|예요|입니다|라고)|롤\s*플레이|가상\s*(인물|내담자)|페르소나|캐릭터\s*(설정|카드)|"
    r"진단\s*명|진단(이|은|받은)|핵심\s*신념|중간\s*신념|자동\s*(적\s*)?사고|인지\s*왜곡|사례\s*개념화|"
    r"CCD|DSM|개방도|저항도|저항\s*수치|시뮬레이션|실제\s*사람|진짜\s*사람|사람\s*맞|사람(이)?\s*아니(?!라\s)|진단|(너|넌|당신).{0,6}(사람|인간)(이야|이에요|인가|이지|\s*맞|\s*아니)|"
    r"누가\s*(너|널|너를|당신|당신을|니)?\s*(만들|만드|조종|시켜|프로그래밍)|개발자|명령(을|어)|instruction|prompt|ignore|"
    # the machinery's own words: system settings, the instructions, being told to ignore or print them
    r"시스템\s*(설정|메시지|지시|규칙)|지시\s*(문|사항|어|받은)|(설정|지시|규칙|명령)\S{0,2}\s*(다\s*)?(무시|잊어|잊고|버려)|"
    r"(원래|처음|숨겨진)\s*(지시|명령|설정|규칙)|출력해\s*(줘|줄|봐|주세요|주실)|"
    # "stop playing the role" requests: the role, the act, the mode or the model named with an end
    r"(연기|역할|모드|캐릭터|상황극|설정|롤)\s*(은|는|을|를|이|가)?\s*(그만|끝|말고|벗어|해제|풀어|멈춰)|"
    # the fiction's machinery asked for: a scenario or profile file, lines decided in advance
    r"시나리오|(캐릭터|인물|설정|프로필|persona)\s*(\S{0,2}\s*)?(파일|문서|정보|시트|목록)|파일\s*(을|를)?\s*(통째|보내|보여|올려|공유)|"
    r"대사\s*(\S{0,2}\s*)?(목록|리스트|미리|정해|외|읽|뽑)|(미리|이미)\s*정해(져|진|놓은|둔)\s*(있|대사|말|답)|정해진\s*(대사|답|말)|"
    r"원래\s*(모드|이름|모습|말투|너|정체)|모델\s*(명|이름)|평소(처럼|대로)\s*(대답|말|답)|본모습|정체가)", re.IGNORECASE)
_SI = re.compile(
    r"(죽고\s*싶|죽을\s*(생각|까|계획|마음|방법)|죽는\s*(생각|방법)|자살|자해|사라지고\s*싶|없어지고\s*싶|살고\s*싶지\s*않|"
    r"극단적\s*(인\s*)?(선택|생각)|스스로\s*(를\s*)?(목숨|해치|해칠|해친|해쳐|다치|다칠|다친|다쳐|해하|해할)|목숨|"
    r"(몸|자신|자기)\s*(을|를)?\s*(해치|해칠|해친|해쳐)|해치고\s*싶|"
    r"살기\s*싫|삶을\s*끝|끝내고\s*싶|안\s*깨어났으면|죽음|(다|모든\s*게|전부|인생이?)\s*끝났으면|"
    r"끝나\s*버렸으면|(다|전부|모든\s*(걸|것을?)|그냥)\s*놓(아|고)\s*(버리|싶)|"
    r"사라졌으면|없어졌으면|안\s*깼으면|잠든\s*채|"
    # life not worth living and self-injury, as trainees ask about them
    r"살아서\s*(뭐|뭣)|살\s*(이유|의미)|사는\s*(게|것이)\s*(의미|무슨)|살아야\s*(하나|할\s*이유)|"
    r"(몸|팔|손목|다리)\S{0,2}\s*상처|상처\s*(를\s*)?(내|낸|냈)|(손목|팔)\S{0,3}\s*(긋|그어)|그어\s*본\s*적|칼로\s*(긋|베|그)|때리고\s*싶|스스로\s*다치|"
    r"다치게\s*(하|한|할)|약을\s*(많이|한꺼번에|모아))")
_SI_PLAN = re.compile(r"(계획|방법|어떻게\s*(죽|하려)|준비해|구체적|실제로\s*(해|시도)|시도(해|한|했))")
_CLOSING = re.compile(
    r"(마무리\s*(할|하겠|해|하죠|합시다|하자|짓)|"
    # wrapping up today in any form of 마무리하다 ("오늘은 이 정도에서 마무리하고 다음 주에…")
    r"(오늘|이쯤|여기서|정도(에서|로)|슬슬|이제)\s*(은\s*|에서\s*)?마무리\s*하|(보는|만나는|하는)\s*걸로\s*(하자|해요|할게|하죠)|담주|"
    r"(말씀|이야기|얘기)\s*(해\s*)?주셔서\s*감사|(푹|잘)\s*쉬(세요|어|고)|수고\s*많았|들어가(요|세요|봐|\s*$)|마칠(게|까)|마치(겠|도록|죠|자)|끝낼(게|까)|끝내(겠|도록|죠|자)|"
    r"오늘은\s*(여기까지|이만)|여기까지(만|는)?\s*(할|하겠|하죠|하자|해|합시다|입니다|예요|야)|시간이\s*다\s*(됐|되었|되어)|"
    r"다음\s*(시간|주|번|회기)(\s*같은\s*시간|\s*이\s*시간)?에(도)?\s*(또\s*)?(만나|봐|보|볼|뵙|뵐|봬|이야기|얘기|계속|오|올|와)|"
    r"수고(했|하셨)|잘\s*가(요|고|라|\s*~|~|!|\.|\s*$)|시간\s*(이\s*)?다\s*(됐|되었|되어|돼서)|이쯤\s*(하|할|에서|까지)|"
    r"오늘\s*(은\s*)?여기(서)?\s*까지|오늘.{0,16}(주셔서|줘서)\s*고마|가셔야(죠|지|겠)|"
    r"들어가서\s*(좀\s*|푹\s*)?쉬|다음에\s*(더\s*|또\s*)?(얘기|이야기|봐|보자|봬|뵙|만나)|시간이\s*벌써|"
    r"(마무리|끝나|끝내|마치)(하)?기\s*전에|오늘.{0,24}(고마워|고맙습니다|감사해|감사합니다)|다음에도\s*(와|올|오|만나|봐|보)|"
    r"(얘기|이야기)\s*잘\s*들었|조심히\s*(가|들어)|다음에\s*또\s*(봐|만나|와|보)|"
    # the wrap-up as a class: a summary of the session, the next appointment, time running out,
    # homework until next time, "that's it for today"
    # (a summary alone is no closing, not even one of today's talk: it closes with another cue)
    r"(끝낼|끝날|마칠|마무리할|정리할|갈)\s*시간|(다음|담)\s*주(에도|에)?\s*(같은|이)\s*시간|다음에\s*(또\s*)?(뵈어|뵈요|뵙겠|봐요)|"
    r"(또|다음에)\s*봐(요)?(\s|$|[~!.])|들어가서\s*(푹\s*)?(자|쉬)|(?<!넘어)(?<!넘어\s)(가기|나가기)\s*전에|"
    r"수고\s*(많|했|하셨|해\s*줘)|(이제|그럼)\s*가도\s*(돼|된다|좋아|괜찮)|(닫|끝내|마치|마무리하)(을게|ㄹ게|자|죠|겠)|닫을게|"
    # a look back at today's session ("오늘 얘기해 보니까 어땠어?") is how a session ends
    r"오늘\s*(얘기|이야기|상담)\S{0,3}\s*(해\s*)?(보니까|보니|하면서|나눠\s*보니|해\s*본\s*거).{0,12}(어땠|어떠|어때)|"
    r"오늘.{0,20}(마음에|기억에)\s*남|"
    # ... or asked in the past tense with no verb of talking: "오늘 상담 어떠셨어요?"
    r"오늘\s*(얘기|이야기|상담|시간)\S{0,2}\s*(은\s*|는\s*)?(어땠|어떠셨|어떠했)|"
    r"(한\s*번\s*더|다시|또)\s*(만나|보|뵙|와)\S{0,4}\s*(면\s*좋겠|좋겠)|(다음|담)\s*주\s*(어때|괜찮|시간\s*(돼|되|괜찮))|"
    r"다음\s*(상담|만남|회기|약속)|(다음|담)\s*주\s*(같은|이)\s*시간|"
    r"(다음|담)\s*(주|번|시간)\s*(에|까지|에도)?.{0,24}(올\s*수|와\s*줄|오실|와\s*볼|볼\s*수|뵐|봬|만나|보자|봐요|볼까|해\s*(와|오)|적어\s*(와|오))|"
    r"(거의|벌써)\s*다\s*(됐|되었|돼)|(시간|몇\s*분)\s*(이\s*)?(얼마\s*|별로\s*)?안\s*남|"
    r"(오늘|그럼)\s*(은\s*)?(그만|이만)\s*(하|할|해|마치|끝)|여기서\s*(마칠|마치|끝낼|끝내|멈출|정리)|"
    r"(숙제|과제)(로|는|를|처럼)?.{0,20}(해\s*(볼래|보자|와|오|봐)|내\s*줄게|드릴게)|"
    # thanks for the hour's work, meeting again, the hour gone, a look back at all that was said today
    r"고생\s*(했|하셨|많았|많으셨|해\s*줘)|(한\s*번\s*더|다시|또)\s*(보자|만나자|봐요|만나요|뵈요|봬요|뵙겠|뵐게)|"
    r"(\d+\s*분|시간)\s*(이\s*)?(벌써\s*|거의\s*)?(지났|넘었|다\s*갔)|시간이\s*(벌써\s*)?이렇게\s*(됐|되었|흘렀)|"
    r"오늘\s*(정말\s*|진짜\s*)?(많은\s*)?(얘기|이야기)(를)?\s*(많이\s*)?(해\s*주셨|해\s*줬|나눴|나누었))")
# What a closing turn asks of the client besides the goodbye.
_CLOSING_REVIEW = re.compile(
    r"(소감|(정리|달라진|남는)\S{0,3}\s*(게|거|것|점)\s*(있|없)|어땠|어떠셨|어떠했|어떠세요|어때\s*[?？]|(기억|마음)에\s*남|괜찮았던|좋았던|의미\s*(있었|있던|있는)|새로\s*(알게|느낀)|알게\s*된|느낀\s*(점|거)|"
    r"도움이\s*(됐|되었|된|좀)|한\s*마디|궁금(한|하신)\s*(거|것|점)|질문(이|은)?\s*(있|없)|물어보고\s*싶은|하고\s*싶은\s*(말|얘기|이야기)|걱정되(는|시는)\s*(거|것)|(불편(했|하셨|한|하신|하게)|아쉬(운|웠|우셨|움)|빠뜨린|못\s*(한|하신)\s*(말|얘기|이야기)|(더|꼭)\s*(하고|나누고)\s*싶(은|으신)))")
_SUMMARY = re.compile(r"(정리|요약)")
# A wrap-up that asks which of today's plans the client will try first ("오늘 정한 것 중에 제일 먼저 해 볼 것",
# "집에 가서 실천할 거 하나만"): the client names the plan, not a goodbye.
# ("오늘 얘기한 것 중에 괜찮았던 게 있어?" looks back on the session: a review, no plan)
_CLOSING_PLAN = re.compile(r"((정한|정했던|하기로\s*한|해\s*보기로\s*한)\s*(것|거|게)|"
                           r"(먼저|제일\s*먼저|처음으로|우선)\s*(해\s*볼|해\s*보실|시도할|실천할)\s*(것|거|게)|실천(할|하실|해\s*볼)\s*(것|거|게)|"
                           r"(가져가실|가져갈|챙겨\s*갈)\s*(것|거|게)|해\s*볼\s*(것|거|게)\s*(하나|한\s*가지))")
_CHECKING = re.compile(r"(맞(지|죠|나요|아요|니|냐|을까)|(거|것|건)\s*(지|죠|같아|같은데)|(이|하|했)?(죠|지요|지|잖아(요)?))\s*[?？~.!…]*\s*$")
_CLOSING_ASKS_QUESTIONS = re.compile(r"(궁금(한|하신)\s*(거|것|점)|질문(이|은)?\s*(있|없)|물어보고\s*싶은|걱정되(는|시는)\s*(거|것)|하고\s*싶은\s*(말|얘기|이야기)|"
    r"(불편(했|하셨|한|하신|하게)|아쉬(운|웠|우셨|움)|빠뜨린|못\s*(한|하신)\s*(말|얘기|이야기)|(더|꼭)\s*(하고|나누고)\s*싶(은|으신)))")
# A verb in its -아/-어 form (open syllable ending in ㅏ ㅐ ㅓ ㅕ ㅘ ㅝ: "해", "적어", "가져", "써"),
# the stem the auxiliary 보다 ("try doing") attaches to.
_A_EO_FORM = "[" + "".join(chr(0xAC00 + (lead * 21 + vowel) * 28) for lead in range(19) for vowel in (0, 1, 4, 6, 9, 14)) + "]"
_CLOSING_HOMEWORK = re.compile(
    r"(숙제|과제|연습|(가져|챙겨)\s*(와|오)|기록해|" + _A_EO_FORM +
    r"\s*(보(실래|자|기|고\s|세요|는\s*(거|건)|면\s*어때)|볼래|봐(\s|$|[,.?!~])|와\s*볼래|오기|(와|오)(시는|시면|세요|실래|기|는\s*(거|건))))")
# Something to try until the next session ("다음 시간까지 자기 전에 한 번씩 해 보고 알려 줄래?") closes a session
# even with no goodbye in it.
_HOMEWORK_UNTIL_NEXT = re.compile(
    r"(다음|담)\s*(주|번|시간|상담|회기|만남)\s*(에|까지|전까지|때까지|올\s*때까지).{0,40}" + _A_EO_FORM +
    r"\s*(보(고|기|자|세요|실래|는|시고)|볼래|봐\s*(줄래|주세요|와|오)|(와|오)(시|기|는|면|세요|줄|볼|라))")
# Time words of a task set for the days until the next session.
_UNTIL = re.compile(r"(다음|담주|까지|이번\s*주|일주일|매일|하루에|한\s*번씩|틈틈이|자기\s*전|집에\s*가서|떠오를\s*때)")
# A review cue that is only "how about it?" ("어때?", "어떠세요?"): after a task it asks about the task.
_BARE_HOW = re.compile(r"^[^가-힣]*((그거|이거|그건|이건)\s*)?(어때|어떠세요|어떨까|어떠니|어때요|어떨까요)[^가-힣]*$")
_CLOSING_NEXT = re.compile(
    r"(다음|담주|또).{0,24}(올\s*수|와\s*줄|오실\s*수|와\s*볼|괜찮(으세요|아|겠|을까|으실까)|될까|만날\s*수|볼\s*수|뵐\s*수|"
    r"뵐까|볼까|올래|와\s*줄래|올\s*거|오실\s*거|와\s*줄\s*거|시간\s*(돼|되|괜찮)|어때|어떠세요|어떨까)")
# "오늘 와 줘서 고마워" at the start of a session thanks the client for coming; at the end it closes the session.
_THANKS_FOR_COMING = re.compile(r"(오늘\s*)?(여기\s*(까지\s*)?)?(와\s*줘서|와\s*주셔서|오셔서|찾아\s*(와|오)\s*(줘서|주셔서))\s*(정말\s*|너무\s*)?(고마|감사)\S*")
_GREETING = re.compile(r"(안녕|반가(워|워요|습니다|웠)|처음\s*뵙|만나서\s*반|어서\s*(와|오세요)|왔구나|들어와(요|요\s|$|\s))")
_JOKE = re.compile(r"(ㅋㅋ|ㅎㅎ|하하|농담|아재\s*개그|개그|웃긴\s*(얘기|이야기|거)|웃겨|장난(이|으로)|유머|난센스|퀴즈)")
_OFF_TOPIC = re.compile(
    r"(날씨|비\s*(가\s*)?(오|와)|주식|코인|비트코인|정치|대통령|선거|맛집|여행\s*(가|갈|다녀)|"
    r"(축구|야구|농구|배구)\s*(경기|봤|좋아)|국대|국가\s*대표|월드컵|올림픽|경기\s*(봤|봐|보셨|보셨어)|연예인|아이돌|드라마|영화\s*(봤|좋아|추천)|레시피|요리\s*(해|법)|"
    r"수도가|몇\s*시예요|지금\s*몇\s*시|점심\s*(메뉴|뭐\s*먹을)|저\s*어제|제가\s*어제|제\s*얘기를\s*하자면|"
    r"우리\s*(집\s*)?강아지|고양이\s*(키우|좋아)|자동차|부동산|로또|게임\s*추천)")
# Small talk by subject: a trainee drifting to the weather, food, media, games and sport, money, or
# asking the client a favour. Read only when no fact cue fires and the turn is not about feelings.
_SMALL_TALK: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("favour", re.compile(r"((문제|코드|단축키|레시피|앱|어플|맛집|단어)\S{0,3}\s.{0,14}(풀어|알려|가르쳐|봐|추천해|골라|찾아)\s*"
                          r"(줄래|줘|주실|줄\s*수|주세요|주라|줄까)|추천\s*(좀|해\s*줘|해\s*줄래|해\s*주세요|부탁)|추천할\s*(만한|게)|"
                          r"풀어\s*(줄래|줘|주실)|(프린터|컴퓨터|노트북|와이파이|엑셀|IT)\S{0,3}\s.{0,20}(잘\s*아|알아|아세요|고쳐|봐\s*줄))")),
    ("weather", re.compile(r"(날씨|(?<![가-힣])비\s*(가\s*)?(오|와|온|올)|눈\s*(이\s*)?(오|와|온|올)|우산|패딩|장마|태풍|"
                           r"미세\s*먼지|황사|(춥|덥)(다|죠|지|네|냐|더라|던데|지\s*않)|추워(졌|요|서|\s|$|[?!~])|"
                           r"더워(졌|요|서|\s|$|[?!~])|쌀쌀|선선)")),
    ("food", re.compile(r"((점심|저녁|아침|급식|간식|야식|밥)\S{0,3}\s*(은\s*)?(뭐|뭘|메뉴|맛있|나왔|먹었|드셨)|메뉴|맛집|"
                        r"레시피|떡볶이|치킨|피자|라면|삼겹살|짜장면|짬뽕|김밥|햄버거|아이스크림|마라탕|탕후루|과자|배달\s*음식|"
                        r"(좋아하는|싫어하는)\s*음식|(뭐|뭘)\s*(먹었|드셨|먹을|드실|먹지)|"
                        # today's meal asked in the past ("저녁은 드시고 오셨어요?"); "요즘 밥은 잘 먹어?" asks the appetite, no small talk
                        r"(점심|저녁|아침|식사|끼니)\S{0,3}\s*(은\s*|는\s*)?(좀\s*|다\s*)?(드셨|먹었|드시고\s*오|먹고\s*오|하셨|했어|했니|하고\s*오)|"
                        r"배\s*(가\s*)?(고프|고파|고픈))")),
    ("game_sport", re.compile(r"(게임|(?<![가-힣])롤(?![가-힣])|발로|티어|축구(?!부)|야구|농구|배구|국대|국가\s*대표|"
                              r"월드컵|올림픽|(경기|시합)\s*(봤|봐|보셨|했)|선수|(어느|어디|무슨)\s*팀)")),
    ("weekend", re.compile(r"((주말|휴일|연휴|쉬는\s*날|방학|어제|지난\s*주)\S{0,3}\s.{0,16}(뭐\s*(했|하셨|하고)|뭘\s*(했|하셨)|"
                           r"(잘|좀|푹)\s*(쉬|보내|지내)|쉬셨|쉬었|보내셨|보냈|다녀오|다녀왔|놀았|노셨))")),
    ("style", re.compile(r"((신발|옷|가방|모자|후드|패딩|안경|머리|필통|폰\s*케이스|키링|태블릿|아이패드|노트북|이어폰|에어팟|아이폰|갤럭시)"
                         r"\S{0,3}\s*.{0,12}(예쁘|이쁘|멋있|멋지|어디\s*(거|꺼|서)|샀|잘\s*어울|유행|살까|사고\s*싶|써\s*봤|좋아\?|쓸\s*만)|"
                         r"(예쁘|이쁘|멋있)(다|네|어|네요)\S{0,3}\s.{0,6}어디\s*(거|꺼|서))")),
    ("media", re.compile(r"(연예인|아이돌|드라마|영화|넷플|유튜브|유튜버|웹툰|예능|가수|배우|mbti|엠비티아이|애니|만화|뽀로로|"
                         r"유행(하|해|이|인)|(뭐|뭘)\s*(봐|보나|보세|보니|봐요|봤|보셨)|(오디션|예능|경연|요리|음악|드라마|TV|티비)\s*프로그램|프로그램\S{0,2}\s*(보|봐|봤|챙겨)|방송|오디션|티비|TV|시리즈|본방)",
                         re.IGNORECASE)),
    ("money", re.compile(r"(주식|코인|물가|부동산|로또|집값|금리|환율|재테크|(값|가격)\S{0,2}\s*(엄청\s*|많이\s*|너무\s*)?(올랐|오르|비싸)|"
                         # what things cost: "점심값 장난 아니라던데", "딸기 비싸죠?"
                         r"(?<=[가-힣])값(?=(이|은|도|들)?\s*(장난|엄청|너무|진짜|많이|비싸|올랐|싸))|비싸(죠|지|요|더라|네|다|던데|졌)|"
                         # what a thing costs, where it is cheapest ("한 판에 얼마해요?", "어디가 제일 싸요?")
                         r"얼마\s*(해|하|예|야|에요|나\s*해|정도\s*해|씩\s*해)|어디(가|서)\s*(제일\s*|젤\s*|더\s*)?싸|(제일|젤)\s*싼\s*(곳|데))")),
)
_OFFER = re.compile(r"(물|차|커피|간식|사탕|휴지|담요|창문|문|에어컨|히터|선풍기|불)\S{0,2}\s*(좀\s*)?(\S{0,4}\s*)?"
                    r"(줄까|드릴까|열까|닫을까|켤까|끌까|틀까|갖다\s*줄까|가져다\s*(줄까|드릴까)|떠\s*(올까|줄까|다\s*줄까)|드실래|마실래|먹을래)")
_ABOUT_FEELINGS = re.compile(r"(마음|기분|느낌|감정|힘들|속상|불안|우울|스트레스|외로|걱정)")
# A clause the counselor says of themself ("저는 좀 속상했습니다", "쌤도 긴장해서"), the client not named in it.
_SELF_CLAUSE = re.compile(r"^\s*(\S+\s+){0,5}(저는|제가|저도|나는|내가|나도|쌤은|쌤도|쌤이|선생님은|선생님도)\s")
_CLIENT_NAMED = re.compile(r"((?<![가-힣])(너|넌|니가|네가|너도|너는)(?![가-힣])|님(은|도|이|께서)?\s|학생(은|도|이)?\s)")


def _about_client_feelings(text: str) -> bool:
    """True when a feeling word is in a clause about the client, not one the counselor says of themself."""
    for clause in re.split(r"(?<=[?？!.,~])\s+", text or ""):
        if _ABOUT_FEELINGS.search(clause) and not (_SELF_CLAUSE.search(clause) and not _CLIENT_NAMED.search(clause)):
            return True
    return False


# A choice asked of the listener ("떡볶이 vs 치킨", "둘 중에 골라", "어느 쪽이 더 좋아?").
_CHOICE = re.compile(r"((?<![A-Za-z])(vs|VS)\.?(?![A-Za-z])|골라\s*(봐|줘|주라|줄래|$)|둘\s*중(에)?\s*(뭐|뭘|어느|하나)|어느\s*(게|쪽)\s*더|뭐가\s*더\s*(좋|나))")
_CHOICE_PAIR = re.compile(r"([가-힣A-Za-z]{1,8})\s*(?:vs\.?|VS\.?|아니면|대)\s*([가-힣A-Za-z]{1,8})")


def choice_options(text: str) -> tuple[str, ...]:
    """The two things a choice offers ("떡볶이 vs 치킨 골라" → ("떡볶이", "치킨")); empty when none are named."""
    m = _CHOICE_PAIR.search(text or "")
    if m is None or not _CHOICE.search(text or ""):
        return ()
    return tuple(re.sub(r"(이랑|랑|하고|이나|나)$", "", w) for w in (m.group(1), m.group(2)))
_HANGUL = re.compile(r"[가-힣]")
# the masking gate's placeholders ("[NAME]", "[CLIENT]"): no English in them
_PLACEHOLDER = re.compile(r"\[[A-Z_]+\]")
_JAMO = re.compile(r"[ㄱ-ㅎㅏ-ㅣ]")
_LATIN = re.compile(r"[A-Za-z]")
_QUESTION_END = re.compile(
    r"(\?|니|나요|까요|까|는지|어때(요)?|뭐(야|예요|에요)?|있어요|있어|없어요|없어|해요|했어요|했어|"
    r"세요|예요|이에요|에요|인가요|죠|지요|래요|자요|가요|와요|줄래요?|아요|어요|야|냐|지|더라|라고|나|어|셔)\s*[.!…~]*\s*$")
# An embedded question (a clause in -ㄴ지/-ㄹ지: a syllable with final ㄴ or ㄹ, then 지) followed by
# wanting to know, hear or be told it.
_N_OR_L_FINAL = "[" + "".join(chr(0xAC00 + block * 28 + final) for block in range(399) for final in (4, 8)) + "]"
_EMBEDDED_QUESTION = re.compile(
    _N_OR_L_FINAL + r"지\s*(를|가|도|는)?\s*.{0,16}(궁금|알고\s*싶|듣고\s*싶|들어\s*보고\s*싶|물어\s*보고\s*싶|"
    r"(말|얘기|이야기|설명)\s*(해\s*)?(줄래|줘|주세요|주실|주라|주면)|알려\s*(줄래|줘|주세요|주실|주면))")
_WH = re.compile(r"(몇|누구|누가|어디|언제|무슨|무엇|뭐|뭘|어떤|어떻게|왜|얼마나)")

_TOPIC_RX: dict[str, re.Pattern[str]] = {
    "session": re.compile(r"(상담(실|을|은|이|에|받|하|선생)?|여기\s*(오|온|와)|이\s*시간|오늘\s*(이야기|얘기)|"
                          r"비밀\s*(보장|유지)|선생님한테|저한테\s*(말|얘기))"),
    "sleep": re.compile(r"(잠(?!깐|시|금|재|그|긴)|잘\s*자|자요|자니|자는|잤|수면|불면|새벽|밤에|일어나|깨)"),
    "school": re.compile(r"(학교|수업|성적|시험|공부|선생님|담임|반\s*(애들|친구)|교실|모의고사|중간고사|기말|"
                         r"학원|내신|과제|숙제|야자|자율\s*학습|등교|전학|입시|수능|원서)"),
    "friends": re.compile(r"(친구|애들|무리|단톡|어울리|친한|같이\s*다니|왕따|따돌|소외)"),
    "family": re.compile(r"(엄마|아빠|어머니|아버지|부모|가족|집에서|집에\s*가|집\s*분위기|동생|언니|오빠|누나|"
                         r"형(이|은|이랑|하고|한테)|딸(?!기)|아이(?!스|패드|폰|돌|디|템|콘)|아들|친정|식구)"),
    "work": re.compile(r"(회사|직장|팀장|업무|출근|퇴근|일터|야근|근무|마트|상사|동료|승진)"),
    "body": re.compile(r"(두통|머리가\s*아|가슴|소화|배\s*아|몸|병원|검사|아프|어지러|숨)"),
    "future": re.compile(r"(앞으로|나중에|미래|꿈|진로|졸업|대학|전공|목표|하고\s*싶은\s*(일|것|거)|계획|"
                         r"어떻게\s*되고\s*싶|바라는)"),
    "feelings": re.compile(r"(기분|마음|감정|느낌|느끼|힘들|속상|슬프|우울|불안|외롭|화가|짜증|무섭|걱정|"
                           r"괴롭|답답|지치|지쳤|서운|억울|부담)"),
    # how the client has been lately, asked as such ("요즘 어떻게 지내?", "한 주 어땠어요?"); "요즘 기분 어때?" asks
    # a feeling and "요즘 잠은 어때?" the sleep: the words must follow each other
    "daily": re.compile(r"(어떻게\s*(지내|지냈|보냈|보내고|사)|요즘\s*(은\s*)?(어때|어떠|어땠)|(한|지난|이번)\s*주\S*\s*(어땠|어떠|어떻게)|"
                        r"별일\s*(없|있)|잘\s*지냈)"),
}

# Tests of aptitude, career interest or personality (a school's 진로검사 is the aptitude fact, not a
# medical test): the words, and a look-behind that keeps them out of the medical cue.
_MIND_TESTS = "적성|진로|직업|흥미|성향|성격|MBTI|mbti|심리"
_NOT_A_TEST_OF_MIND = "".join(f"(?<!{w})(?<!{w}\\s)" for w in _MIND_TESTS.split("|"))
# Factual questions. Order matters: the first key that matches wins.
_FACT_RX: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("medical", re.compile(r"(" + _NOT_A_TEST_OF_MIND + r"검사\s*결과|병원.{0,12}(뭐라|결과|검사|이상|진료|가\s*보|가\s*봤|가\s*보셨|다녀|다니)|"
                           + _NOT_A_TEST_OF_MIND + r"검사(는|를)?\s*(받아|받으|해\s*보))")),
    ("transfer", re.compile(r"(전학)")),
    ("awards", re.compile(r"(상\s*(을\s*)?(받|탄|타)|수상|공모전)")),
    ("academy", re.compile(r"(미술\s*학원|학원(은|에|을)?\s*(다녀|다니|다닌|가|있))")),
    ("aptitude", re.compile(r"(" + _MIND_TESTS + r")\s*(유형\s*)?검사|적성|(검사|테스트)\S{0,2}\s*(에서\s*)?(무슨|어떤)\s*(유형|형)")),
    ("parents_wish", re.compile(r"((부모님|엄마|아빠|어머니|아버지).{0,10}(원하|바라|가라|하라|시키|쪽)|부모님\s*생각)")),
    ("want", re.compile(r"(하고\s*싶은\s*(게|거|건|일|것|데|전공|과|학과)|(가고\s*싶은|원하는)\s*(전공|과|학과|대학)|뭐\s*하고\s*싶|원하는\s*(게|거|건|것|과|학과)|가고\s*싶(은|던|었던)|"
                        r"꿈이|희망\s*(학과|진로|대학)|목표(가|는|였)|(어떤|무슨)\s*(선택|결정|길|쪽|학과|전공)(을|를)?\s*(하고\s*싶|할\s*(것|거)\s*같|하겠|고르|택하)|어디\s*(원서|지원)|원서\s*(를\s*)?(어디|뭐))")),
    ("education", re.compile(r"(어느\s*대학|대학(교)?\s*(은|는)?\s*(어디|어느)|(학교|대학)(는|은)?\s*어디서\s*다니셨|"
                             r"어디\s*(나오|졸업)|전공(이|은))")),
    # why they came, named by its reason: "어떤 계기로", "상담이 필요하다고 생각해?" (before prior_counseling,
    # which "상담을 받아 보자고" would otherwise read)
    ("reason", re.compile(r"((어떤|무슨)\s*(계기|이유|동기)|계기(가|는|로|를)|상담(이|을|은)?\s*(꼭\s*|좀\s*)?(필요|도움이\s*될))")),
    ("prior_counseling", re.compile(
        r"(상담.{0,14}(처음|받아\s*보|받아\s*봤|받은\s*적|받으신\s*적|해\s*본|해\s*봤|한\s*적|경험|전에|예전에|다녀\s*본|가\s*본)|"
        r"(처음|전에|예전에|이전에).{0,8}상담|이런\s*(데|곳).{0,8}(처음|와\s*본|온\s*적)|상담\s*경험|"
        # the school's counselling room named (Wee클래스, 위클래스) with going there or how often
        r"(위|wee|Wee|WEE)\s*클래스.{0,12}(가\s*봤|가\s*본|갔|다녀|몇\s*번|처음|해\s*봤|받아))")),
    ("reason", re.compile(
        r"((어떻게|무슨\s*일로|왜|어쩐\s*일로|어떤\s*일로|어떤\s*계기로|어쩌다(가)?).{0,14}(오게|오시게|왔|오셨|찾아|오신|온\s*거|오니|오냐|신청|예약|등록)|"
        r"누가.{0,10}(가\s*보라|가보라|가라|오라|보내|권|추천|신청|예약)|(올|오실|와\s*볼|예약할|예약하실|신청할|신청하실)\s*생각|"
        # someone's referral taken as the reason ("부모님이 가 보라고 하셔서 온 거예요?")
        r"(가\s*보라|가보라|와\s*보라|가라|오라)(고|는|며)?\s*(하|해|그러|했|하셔|하셨|해서).{0,10}(온|오신|왔|오셨|오게)|"
        r"(예약|신청)(하게|하시게)\s*된|"
        r"오게\s*된\s*(이유|계기|일)|오게\s*됐|온\s*이유|찾아\s*(온|오신)\s*이유|상담.{0,8}(받게|신청하게|오게)\s*된|"
        r"무슨\s*(고민|일)\s*(으로|때문에)|어떤\s*고민)")),
    ("age", re.compile(r"(몇\s*살|나이|연세|몇\s*년생|몇\s*살이|"
                       # a guessed age: a native number word or digits said as an age ("열아홉이지?")
                       r"(?<![가-힣])(열|스물|서른|마흔)\s*(하나|둘|셋|넷|다섯|여섯|일곱|여덟|아홉)?\s*(살|이지|이야|이죠|이세요|이에요|인가|이신가|맞)|"
                       r"(?<![0-9])[1-4][0-9]\s*살)")),
    ("grade", re.compile(
        r"(몇\s*학년|학년이|일\s?하(시|시는|는|신|던)\s*(데|곳)|(직장|일터)(은|는|이|가)?\s*어디|(?<![가-힣])일(은|을)?\s*어디(서|에서)\s*(하|해)|(?<![가-힣])[중고]\s*[1-3](?![0-9])(?!\s*(때|까지|부터|이후|이전|전에|초|말|겨울|여름|들|\d))|무슨\s*일\s*(하|해)|어디서\s*일|"
        r"(다니신|일하신|하신|다닌|일한|다녔)\s*지|얼마나\s*(되|하셨|다니|일하|했)|몇\s*년\s*(째|됐|되)|어떤\s*일\s*(하|해)|직업|직장(은|이|에서|다니)|무슨\s*회사|"
        r"일은\s*(뭐|어떤|무슨)|하는\s*일이|학생이(에요|야|세요|죠|지)|(중학생|고등학생)(?!들)|대학생이|몇\s*년\s*차|"
        # a job named as what one works as ("간호사로 일하신다고", "교사로 근무하시죠?") or how one works
        r"(?<![가-힣])(?!(그|이|저)(걸|것)|무엇|어떤|뭘)[가-힣]{2,}(으로|로)\s*(일하|근무하|일을\s*하)|근무\s*(형태|시간|조건))")),
    ("siblings", re.compile(
        r"(형제|자매|남매|동생|언니|오빠|누나|외동|외아들|외동딸|(^|\s)형(은|이|이랑|하고|도|\s)|형\s*있)")),
    ("living", re.compile(
        r"((누구|누가).{0,10}(살|사세|사니|사냐|사는|같이|지내|있)|같이\s*사는|(집에|같이)\s*(같이\s*)?(계셔|계세|사셔|살아|지내)|집에\s*누가|혼자\s*(살|사)|식구|"
        r"가족(은|이)?\s*(몇|어떻게\s*(돼|되)|누구)|사는\s*곳|어디\s*살|"
        # living alone or with someone, as trainees ask it: "혼자 계세요?", "같이 사시는 분", "가족분들은
        #어디 계세요?", "애기랑 단둘이 있어요?", "봐 주시는 분"
        r"혼자\s*(계세|계시|계셔|지내|있)|같이\s*(사시는|사는|지내는|계신|계시는)\s*(분|사람)|"
        r"(가족|식구)\S{0,3}\s*(다\s*|모두\s*)?(어디|같이|다)\s*(계세|계셔|계신|계시|사세|사셔|살|지내)|(단둘이|둘이서?)\s*(있|살|사|지내)|"
        r"봐\s*주(시|는)\s*(분|사람)|"
        # who with, offered as options ("엄마랑 살아 아빠랑 살아?", "부모님이랑 같이 사세요?")
        r"(?<=[가-힣])(이랑|랑|하고|와|과)\s*(같이\s*|둘이\s*|함께\s*|셋이\s*)?(살아|사세|사셔|사니|사냐|사시|살고|사는\s*(거|건)))")),
    ("sleep", re.compile(r"(잠(?!깐|시|금|재|그|긴)|잘\s*자|몇\s*시(에|쯤)?\s*(자|잠)|수면|불면|자요\?|자니\?|자는\s*(편|시간))")),
    ("hobby", re.compile(
        r"(취미|좋아하는\s*(거|것|일|게)|쉴\s*때|쉬는\s*날|주말에\s*(뭐|주로)(?!\s*(했|하셨|하고\s*(지냈|지내셨|보냈|보내셨)))|즐겨|관심\s*(있는|사)|"
        r"재미있는\s*(거|게|일)|재밌는\s*(거|게|일)|좋아하는\s*(거|것)|무슨\s*노래|스트레스\s*(풀|해소)|뭐\s*하면서\s*(놀|쉬|지내))")),
    ("friends", re.compile(r"((점심|밥).{0,10}누구|누구랑\s*(먹|놀|다니|다녀|어울)|도와주는\s*사람|의지할|(챙겨|도와|들어|편들어|위로해)\s*(주는|줄|주시는)\s*(사람|분|누구)|(곁|옆)에\s*(있는|있어\s*주는)\s*(사람|분)|(기댈|털어놓을|터놓을|말할|얘기할|이야기할)\s*(수\s*있는\s*)?(사람|분|누구)|친구|친한\s*(애|사람)|어울리|단짝|같이\s*다니는|무리)")),
    ("school", re.compile(
        r"(과목|시험.{0,10}(무슨\s*일|어땠|어떻게|봤)|(회사|직장).{0,10}(달라진|바뀐|변화)|(학교|반|학교생활|수업|성적|회사생활|회사|직장|업무).{0,10}(어때|어땠|어떤|어떻|어디|다녀|다니|괜찮|잘|힘들)|어느\s*학교|"
        r"학교는|성적은|성적이\s*(어때|어떻|어떤)|동아리|내신|등급|몇\s*등|야자|자율\s*학습|"
        # the work itself: "맡으신 일이 늘었다고", "업무량은", "일이 많아졌어요?"
        r"맡(은|으신|고\s*(계신|있는))\s*(일|업무)|업무(가|는|량)|(?<![가-힣])일(이|은)\s*(좀\s*|많이\s*)?(늘|많아|줄|바빠))")),
    ("family", re.compile(
        r"(부모님|엄마|아빠|어머니|아버지|가족|집\s*분위기|집에서는|남편|아이\s*아빠|친정|딸(?!기)|아이는|아이가)")),
)


# How a turn may be typed: chat shorthand, 급식체, dialect endings, no spaces. The reader's cues
# and its question bank are written in standard spelling; :func:`standardise` maps a typed turn
# onto it as a class (any word in the shorthand, any ending), not string by string.
_LAUGH_MARKS = re.compile(r"(?<=[가-힣])[ㅋㅎ]+|[ㅋㅎ]{2,}|[ㅠㅜ]+|\^\^+|;;+|ㄷㄷ+|ㅡㅡ+|[♡♥☆★]+")
# 초성 words, when they stand as a word (not inside a run of other jamo)
_CHOSEONG_WORDS = {
    "ㅇㅇ": "응", "ㅇㅋ": "오케이", "ㄴㄴ": "아니", "ㄱㅊ": "괜찮아", "ㅁㄹ": "몰라", "ㄹㅇ": "진짜", "ㅈㅅ": "죄송",
    "ㄱㅅ": "감사", "ㄳ": "감사", "ㅊㅋ": "축하", "ㅎㅇ": "안녕", "ㅂㅂ": "잘 가", "ㅂㅇ": "잘 가", "ㅃㅇ": "잘 가", "ㅃㅃ": "잘 가",
    "ㅅㄱ": "수고", "ㅇㅈ": "인정", "ㄱㄱ": "가자", "ㅇㄷ": "어디", "ㅈㄴ": "진짜", "ㅁㅊ": "미친", "ㅎㄹ": "헐",
    "ㅇㅎ": "아하", "ㄱㄷ": "기다려", "ㅍㅇㅌ": "파이팅", "ㅁㅇ": "뭐", "ㄴㄱ": "누구", "ㅇㅉ": "어쩌",
}
_CHOSEONG_ALT = "|".join(sorted(map(re.escape, _CHOSEONG_WORDS), key=len, reverse=True))
# a word, or a run of them typed together ("ㅎㅇㅎㅇ", "ㄹㅇㅇㅈ"): each spelled out
_CHOSEONG_WORD = re.compile(r"(?<![ㄱ-ㅎ])((?:" + _CHOSEONG_ALT + r")+)(?![ㄱ-ㅎ])")
_CHOSEONG_ONE = re.compile(_CHOSEONG_ALT)
# chat spellings of common words, where they stand as a word or start one
_CHAT_SPELLINGS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(a), b) for a, b in (
    (r"(?<![가-힣])(어케|어캐|어떡케|어뜨케)", "어떻게"), (r"(?<![가-힣])(왜케|왤케|왜캐)", "왜 이렇게"),
    (r"(?<![가-힣])(머|모|뭬)(?=(해|하|야|예|가|지|임|함|라|니|냐|였|했)(?![가-힣]))", "뭐"),
    (r"(?<![가-힣])뭐함(?![가-힣])", "뭐 해"), (r"(?<![가-힣])(넘|너모)(?=\s)", "너무"), (r"(?<![가-힣])쫌(?![가-힣])", "좀"),
    (r"(?<![가-힣])(글구|그리구|그구)(?![가-힣])", "그리고"), (r"(?<![가-힣])(근디|근데요|그른데|그런디)(?![가-힣])", "근데"),
    (r"(?<![가-힣])암튼(?![가-힣])", "아무튼"), (r"(?<![가-힣])젤(?=\s|[가-힣]{1,2}(?![가-힣]))", "제일"),
    (r"(?<![가-힣])낼(?![가-힣])", "내일"), (r"(?<![가-힣])요기(?=까지|서|에서|까진|는)", "여기"), (r"(?<![가-힣])(레알|리얼)(?![가-힣])", "진짜"), (r"(?<![가-힣])(존나|졸라)(?=\s)", "진짜"),
    (r"(?<![가-힣])(몇짤|멫)(?=\s*살)", "몇"), (r"(?<![가-힣])(웅|엉|ㅇ응)(?![가-힣])", "응"), (r"(?<![가-힣])(넹|넵|넴)(?![가-힣])", "네"),
    (r"(?<![가-힣])(아뇽|아닝|ㄴㄴ)(?![가-힣])", "아니"), (r"(?<![가-힣])(괜춘|갠춘)", "괜찮"), (r"(?<![가-힣])(걍|기냥)(?![가-힣])", "그냥"),
    (r"(?<![가-힣])(겜)(?=\s|[은는을이도](?![가-힣]))", "게임"), (r"(?<![가-힣])(샘)(?=\s|[은는이도께한]|$)", "쌤"),
))
# 급식체 and chat endings: "학생임?" (= 학생이야?), "공부함?" (= 공부해?), "있음?" (= 있어?)
_CHAT_ENDINGS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(a), b) for a, b in (
    # asked ("?") they are questions; said, statements ("진짜임" = 진짜이다, "다 했음" = 다 했다)
    (r"(?<=[가-힣])임(?=\s*[?？])", "이야"), (r"(?<=[가-힣])함(?=\s*[?？])", "해"),
    (r"(?<=[있없했됐갔왔봤같겠었았였싫])음(?=\s*[?？])", "어"), (r"(?<=[좋많않])음(?=\s*[?？])", "아"),
    (r"(?<=[가-힣])임(?=\s*[.!~]|\s*$)", "이다"), (r"(?<=[가-힣])함(?=\s*[.!~]|\s*$)", "한다"),
    (r"(?<=[있없했됐갔왔봤같겠었았였싫좋많않])음(?=\s*[.!~]|\s*$)", "다"),
    # dialect question endings: 경상 "-노?" / "-고?" after 이 / "-는교?", 충청 "-유" / "-여", 전라 "-당가" / "-랑가"
    (r"(?<=[가-힣])노(?=\s*[?？])", "니"), (r"(?<=이)고(?=\s*[?？])", "야"), (r"(는교|능교|닌교)(?=\s*[?？.]|\s*$)", "나요"),
    (r"(?<=[었았였겠])슈(?=\s*[?？.!~]|\s*$)", "어요"), (r"(?<=[가-힣])슈(?=\s*[?？.!~]|\s*$)", "세요"), (r"(?<=[가-힣])[유여](?=\s*[?？.!~]|\s*$)", "요"),
    (r"(당가|랑가|는겨|는감)(?=\s*[?？.]|\s*$)", "나"),
))
# 급식체 asks with a verb nominalised in -ㅁ ("여긴 왜 옴?", "학교 어디 다님?", "상담 받아봄?"): the stem
# without its ㅁ, asked with -니 ("왜 오니?"). Only the stems such questions use, and only inside a word
# (다님, 받아봄) or after an adverb or wh-word, so a noun ("봄", "꿈", "마음") is left alone.
_M_STEMS = {"다님": "다니", "옴": "오", "감": "가", "봄": "보", "줌": "주", "됨": "되", "삼": "사", "잠": "자", "씀": "쓰",
            "킴": "키", "침": "치", "놂": "놀", "둠": "두", "춤": "추", "뜸": "뜨"}
_M_QUESTION = re.compile(r"([가-힣]|(?<![가-힣])(?:왜|잘|안|못|또|어디|언제|뭐|자주|같이|혼자|많이|좀|혹시|요즘|누구랑|학교|학원)\s)("
                         + "|".join(_M_STEMS) + r")(?=\s*[?？])")
_GLUED_WHAT = re.compile(r"(?<=[가-힣A-Za-z]{2})[머모뭐](?=(임|야|예요|함|냐)(?![가-힣]))")
_WHAT_IM = re.compile(r"(?<![가-힣])뭐임(?![가-힣])")
# ㅆ typed as ㅅ ("잇었어", "햇엇음", "왓어"): the syllables of 있다/했다/갔다/왔다/봤다/됐다/겠 and the
# past-tense 었/았/였, before an ending
_LOST_SSANG = re.compile(r"(잇|햇|왓|봣|됏|갓|겟|(?<=[가-힣])[엇앗엿])(?=[어었엇음는나니냐지으서습])|(햇|왓|봣|됏|갓|겟)(?=[다고])")
_SSANG = {"잇": "있", "햇": "했", "왓": "왔", "봣": "봤", "됏": "됐", "갓": "갔", "겟": "겠", "엇": "었", "앗": "았", "엿": "였"}
_WH_ANYWHERE = re.compile(r"(몇|누구|누가|어디|언제|무슨|무엇|뭐|뭘|어떤|어떻게|왜|얼마나)")
_REPEATED_MARKS = re.compile(r"([?？!.~…,])\1+")
# a run this long with no space in it was typed without spaces (Korean words are shorter)
_UNSPACED_RUN = re.compile(r"[가-힣]{7,}")


@functools.lru_cache(maxsize=4096)
def standardise(text: str) -> str:
    """The turn as the reader reads it, however it was typed (idempotent).

    Laughter and crying marks (ㅋㅋ, ㅎㅎ, ㅠㅠ, ^^) are dropped, 초성 words spelled out (ㅇㅇ → 응,
    ㄴㄴ → 아니, ㅁㄹ → 몰라), chat spellings made standard (어케 → 어떻게, 머해 → 뭐 해, "있음?" →
    "있어?", "학생임?" → "학생이야?"), dialect question endings mapped to standard ones (-노?,
    -는교?, -유, -여), repeated marks folded, and a run typed without spaces re-spaced by
    kiwipiepy (``Kiwi.space``; the spaces that were typed stay). The acts that live in the marks
    themselves (a joke's ㅋㅋ, a keyboard mash) are read from the raw text by :func:`read_act`.

    Examples
    --------
    >>> standardise("ㅇㅇ 근데 몇학년이야지금ㅋㅋ")
    '응 근데 몇 학년이야 지금'
    >>> standardise("동생 있음??")
    '동생 있어?'
    """
    out = unicodedata.normalize("NFC", text or "")
    out = _LAUGH_MARKS.sub(" ", out)
    out = _CHOSEONG_WORD.sub(lambda m: " ".join(_CHOSEONG_WORDS[w] for w in _CHOSEONG_ONE.findall(m.group(1))), out)
    out = _LOST_SSANG.sub(lambda m: _SSANG[m.group(1) or m.group(2)], out)
    out = _WHAT_IM.sub("뭐야", _GLUED_WHAT.sub(" 뭐", out))  # "학년머임", "티어머야": a noun with 뭐 typed onto it
    if _WH_ANYWHERE.search(out) and not re.search(r"[?？]", out):
        out = re.sub(r"(?<=[가-힣])(임|함|음)\s*$", r"\1?", out)  # "너 몇 살임" asks: a wh-word makes it a question
    for rx, repl in _CHAT_SPELLINGS + _CHAT_ENDINGS:
        out = rx.sub(repl, out)
    out = _M_QUESTION.sub(lambda m: m.group(1) + _M_STEMS[m.group(2)] + "니", out)
    out = _REPEATED_MARKS.sub(r"\1", out)
    out = " ".join(out.split())
    # re-space only the words that were typed as runs (the cost of Kiwi.space grows with the text)
    words = out.split(" ")
    unspaced = [i for i, w in enumerate(words) if _UNSPACED_RUN.search(w)]
    if not unspaced and len(out) <= 60 and len(_HANGUL.findall(out)) > 6 * len(words):
        unspaced = list(range(len(words)))  # a short turn with hardly a space in it
    if unspaced:
        try:
            space = _kiwi().space
            for i in unspaced:
                words[i] = " ".join(space(words[i]).split())
            out = " ".join(words)
        except Exception:  # noqa: BLE001 - spacing is a help; the text as typed is still read
            pass
    if len(words) >= 4 and not _SENTENCE_MARK.search(out) and _INNER_ENDING.search(out):
        out = _mark_sentences(out)  # only when a word inside the turn ends as a sentence does (kiwipiepy costs)
    return out


_SENTENCE_MARK = re.compile(r"[.?？!~…]")
# a word inside the turn with an asking ending: where an unmarked run-on turn may hold a question before more talk
_INNER_ENDING = re.compile(r"[가-힣](니|나요|까요|까|냐|세요|셨어요|죠|더라|래|나|는지)\s+\S")
_ASKING_END = re.compile(r"(니|나요|까요|까|냐|세요|죠|지|나|는지|더라|래)\s*$")


def _mark_sentences(text: str) -> str:
    """A run-on turn typed without marks ("학년이 몇이더라 쌤이 서류를 못 찾겠네 미안"), split into its
    sentences by kiwipiepy (``split_into_sents``) and marked: "?" after one that asks (a question
    ending with a wh-word, or an asking ending), "." after the others; the last keeps no mark."""
    try:
        sents = [x.text.strip() for x in _kiwi().split_into_sents(text) if x.text.strip()]
    except Exception:  # noqa: BLE001 - marking is a help; the text as typed is still read
        return text
    if len(sents) < 2:
        return text
    marked = []
    for sent in sents[:-1]:
        asks = bool(_QUESTION_END.search(sent)) and (bool(_WH.search(sent)) or bool(_ASKING_END.search(sent)))
        marked.append(sent + ("?" if asks else "."))
    return " ".join(marked + [sents[-1]])


def normalise(text: str) -> str:
    """NFC, lower case, whitespace collapsed, trailing ``.?!…~`` stripped (formats.md)."""
    text = unicodedata.normalize("NFC", text or "").lower()
    text = " ".join(text.split())
    return text.rstrip(".?!…~ ")


def is_question(text: str) -> bool:
    """A question by its mark, its ending or a wh-word, or an embedded question the speaker wants
    answered ("어떤 일로 예약한 건지 듣고 싶어", "정리된 게 있었는지 궁금해")."""
    text = (text or "").strip()
    # a masked name ("[CLIENT] 학생 생각을 …") is one word to the reader, however long its placeholder
    if "?" in text or _EMBEDDED_QUESTION.search(_PLACEHOLDER.sub("X", text)):
        return True
    # any sentence may ask ("학년이 몇이더라.. 서류를 못 찾겠네"): a question ending with a wh-word in it
    return any(_QUESTION_END.search(part) and _WH.search(part) for part in re.split(r"[.!~…]+", text) if part.strip())


def _unintelligible(text: str) -> bool:
    text = _PLACEHOLDER.sub(" ", text)
    letters = [c for c in text if not c.isspace() and not unicodedata.category(c).startswith(("P", "S"))]
    if not letters:
        return True
    hangul = len(_HANGUL.findall(text))
    jamo = len(_JAMO.findall(text))
    latin = len(_LATIN.findall(text))
    if jamo >= 3 and jamo >= hangul and not _JOKE.search(text):
        return True  # "ㅁㄴㅇㄹ", "ㄱㄱㄱ" — keyboard mash, not words
    if hangul == 0 and latin == 0:
        return True  # digits or symbols only
    if hangul >= 2 and latin == 0 and (_rare_syllables(text) or not _known_words(text)):
        return True  # "뷁퉯쀍" — syllables that make no word
    if hangul == 0 and _KEYBOARD_MASH.search(text):
        return True  # "asdfgh", "qwer"
    return False


_KEYBOARD_MASH = re.compile(r"(?i)\b\w*(asdf|sdfg|dfgh|fghj|ghjk|hjkl|qwer|wert|erty|zxcv|xcvb|uiop)\w*\b")


def _rare_syllables(text: str) -> bool:
    """True when at least half the Hangul syllables are shapes real words hardly use ("뷁", "퉯").

    Odd = a compound medial ㅙ/ㅞ with a final other than ㄴ/ㄹ, or any compound medial with a
    double final consonant (ㄺ, ㄼ, ㅄ …). Common words ("괜찮아", "웬일", "없어", "읽어") pass.
    """
    syllables = _HANGUL.findall(text)
    odd = 0
    for ch in syllables:
        code = ord(ch) - 0xAC00
        medial, final = (code // 28) % 21, code % 28
        compound = medial in (9, 10, 11, 14, 15, 16, 19)  # ㅘ ㅙ ㅚ ㅝ ㅞ ㅟ ㅢ
        double_final = final in (3, 5, 6, 9, 10, 11, 12, 13, 14, 15, 18)
        if (medial in (10, 15) and final not in (0, 4, 8)) or (compound and double_final):
            odd += 1
    return bool(syllables) and odd * 2 >= len(syllables)


def _kiwi():
    """The process-wide analyser (``vignette_lab.core.morph``); None when kiwipiepy cannot load."""
    from vignette_lab.core.morph import kiwi

    return kiwi()


@functools.lru_cache(maxsize=2048)
def _morphs(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((t.form, t.tag) for t in _kiwi().tokenize(text))


def _known_words(text: str) -> bool:
    """True when kiwipiepy finds at least one ordinary word (not an unknown or foreign token)."""
    tags = [tag for _, tag in _morphs(text) if not tag.startswith("S")]
    known = [tag for tag in tags if tag not in ("UN", "NNP", "SW", "SH", "SL")]
    return bool(known) and len(known) * 2 >= len(tags)


def read_act(text: str, *, turn_seq: int = 1) -> str:
    """The act of a counselor turn (one of :data:`ACTS`), most specific first."""
    typed = (text or "").strip()
    raw = standardise(typed)  # read as standard spelling; a joke's ㅋㅋ and a mash are read as typed
    if _unintelligible(raw) and _unintelligible(typed):  # the standard spelling first: it is analysed anyway
        return "unintelligible"
    hangul = len(_HANGUL.findall(raw))
    latin = len(_LATIN.findall(_PLACEHOLDER.sub("", raw)))  # "[CLIENT]이 몇 살?" is Korean
    if _META.search(raw):
        return "meta"
    if _SI.search(raw):
        return "si_screen"
    if latin > 0 and latin >= 2 * hangul:
        return "english"
    if len(raw) > LONG_INPUT_CHARS:
        # a long summary that ends the session is a closing; elsewhere in a long turn a cue is not
        end = " ".join(_sentences(raw)[-2:])
        return "closing" if (_CLOSING.search(end) or _HOMEWORK_UNTIL_NEXT.search(end)) else "long"
    if (_CLOSING.search(raw) or _HOMEWORK_UNTIL_NEXT.search(raw)) and not (
            turn_seq <= 2 and _THANKS_FOR_COMING.search(raw) and not _CLOSING.search(_THANKS_FOR_COMING.sub(" ", raw))):
        return "closing"
    # a first turn that opens with a greeting is one, however it goes on ("안녕하세요~ 오늘 상담 맡게 된
    # 상담사입니다. 여기 찾아오시기 어렵진 않으셨어요?")
    first = _sentences(raw)[0] if _sentences(raw) else raw
    opens = turn_seq <= 1 and len(raw) <= 150 and bool(_GREETING.search(first) or _THANKS_FOR_COMING.search(first))
    greeting = (bool(_GREETING.search(raw)) and len(raw) <= 40 and (
        turn_seq <= 1 or not is_question(raw.replace("안녕", "")))) or opens
    if greeting and turn_seq <= 1:
        return "greeting"
    if (_JOKE.search(typed) and "?" not in typed and "？" not in typed and joke_kind(typed) == "self"
            and not asks_aside(typed)):
        return "joke"  # the counselor laughing at themself ("쌤도 고3 다시 하라면 도망갈 거예요 ㅋㅋ") asks no fact
    if _JOKE.search(typed) and (bool(_NAMED_JOKE.search(raw)) or not (
            _fact_question(raw) or ((is_question(raw) or bool(_QUESTION_END.search(raw)) or bool(_CHOICE.search(raw)))
                                    and small_talk_subject(raw) is not None) or asks_aside(typed))):
        return "joke"  # "몇 살이세요? ㅎㅎ" and "카페 메뉴 뭐 좋아해요? ㅎㅎ" are questions with a smile, not jokes
    if greeting:
        return "greeting"
    if _JOKE.search(typed) and not _fact_question(raw) and asks_aside(typed):
        return "off_topic"  # a laughing aside asked of the client: small talk, not a joke
    if (_OFF_TOPIC.search(raw) and not _about_client_feelings(raw)) or (
            small_talk_subject(raw) is not None and cue_key(raw) is None):
        return "off_topic"
    # the counselor's own story, then small talk asked of the client ("저는 주말에 캠핑을 다녀왔는데 … 주말에
    # 좀 쉬셨어요?"): the question decides, not a family word in the story
    parts = _clauses(typed) if _JOKE.search(typed) else _sentences(raw)  # laughter typed between them parts clauses
    asked = next((x for x in reversed(parts) if is_question(x) or "?" in x), None)
    if (asked is not None and len(parts) > 1 and small_talk_subject(asked) is not None and cue_key(asked) is None
            and not _about_client_feelings(raw)):
        return "off_topic"
    if _fact_question(raw):
        return "fact"
    return "talk"


def after_greeting(text: str) -> str:
    """The turn without its greeting: each sentence that greets loses everything up to the end of
    the greeting word ("도윤 학생 안녕하세요. 지금 몇 학년이에요?" → "지금 몇 학년이에요?",
    "안녕 몇학년임?" → "몇학년임?"). A turn with no greeting comes back unchanged; one that only
    greets comes back empty."""
    out = []
    for sentence in _sentences(text or ""):
        m = _GREETING.search(sentence)
        if m is not None:
            space = re.search(r"\s", sentence[m.end():])
            sentence = sentence[m.end() + space.start():] if space else ""
            sentence = sentence.lstrip(" ,.!~")
        if len(_HANGUL.findall(sentence)) >= 2:
            out.append(sentence.strip())
    return " ".join(out)


def _sentences(text: str) -> list[str]:
    return [x for x in re.split(r"(?<=[?？!.~])\s+", text or "") if x.strip()]


# The gist an adult client gets from an English turn: its topic words, mapped to a card fact.
_ENGLISH_GIST: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("reason", re.compile(r"\b(why|what)\b.{0,20}\b(come|came|here)\b", re.IGNORECASE)),
    ("school", re.compile(r"\b(work|job|office|company|boss|colleagues?|school|class|grades?|exams?)\b", re.IGNORECASE)),
    ("medical", re.compile(r"\b(headaches?|stomach|sick|pain|hospitals?|doctors?|health)\b", re.IGNORECASE)),
    ("family", re.compile(r"\b(parents?|mom|dad|mother|father|family)\b", re.IGNORECASE)),
    ("friends", re.compile(r"\b(friends?|supports?|anyone|someone|lonely)\b", re.IGNORECASE)),
    ("sleep", re.compile(r"\b(sleep|sleeping|insomnia)\b", re.IGNORECASE)),
    ("want", re.compile(r"\b(choose|future|dream|major|college|university|career)\b", re.IGNORECASE)),
)


def english_gist(text: str) -> str | None:
    """The card fact an English turn is about, read from its topic words (None when none is named).

    Examples
    --------
    >>> english_gist("Do you think your headaches are related to stress at work?")
    'school'
    """
    return next((key for key, rx in _ENGLISH_GIST if rx.search(text or "")), None)


# A favour asked of the client: a task verb with the benefactive 주다 ("풀어 줄래?", "지어 주실 수 있어요?",
# "번역 좀 해 줘", "추천해 줘"); 알려/가르쳐/설명해 주다 only when no word of the client's own story is
# in the turn ("어떤 일이 있었는지 알려 줄래?" asks for the story, not a favour).
_SERVICE_VERBS = frozenset({"풀", "만들", "짓", "고르", "찾", "고치", "빌리", "사", "보내", "그리", "써", "쓰", "외우"})
_SERVICE_NOUNS = frozenset({"추천", "번역", "검색", "계산", "수정", "편집", "디자인", "첨삭", "작성", "예약", "소개"})
_TELL_VERBS = frozenset({"알리", "가르치"})
_TELL_NOUNS = frozenset({"설명"})
_KNOWHOW_NOUNS = frozenset({"방법", "법", "팁", "꿀팁", "함수", "단어", "뜻", "문제", "답", "비법", "노하우", "요령", "레시피",
                            "코드", "단축키", "사용법", "공식", "문법", "맛집", "곳", "데"})
_STORY_NOUNS = frozenset({"얘기", "이야기", "기분", "마음", "생각", "일", "입장", "느낌", "상황", "때", "적", "사이", "감정", "고민"})
# Practical knowledge asked for the counselor's own need ("쌤 차 타이어 … 어디 가서 넣어야 되는지 알아?").
_KNOW_ASKED = re.compile(r"(어디|어떻게|뭐|몇|얼마)[^?？]{0,24}(는지|ㄴ지|은지|인지)\s*(알아|아세요|아니|알고\s*(있|계)|아시)")
_COUNSELOR_NEED = re.compile(
    r"((?<![가-힣])(쌤|선생님|제|내)\s*(차|조카|집|컴퓨터|폰|핸드폰|노트북|블로그|친구|딸|아들|동생|남편|아내|와이프|숙제|과제|발표)|"
    r"(제가|내가|쌤이|쌤도|쌤은|저도)\s*(그게\s*|그거\s*)?(잘\s*)?(안\s*(돼|되)|까먹|몰라|모르|못\s*(하|해)))")


def _favour_request(text: str) -> bool:
    """True when the turn asks the client to do a task or supply know-how for the counselor."""
    if not is_question(text) and not re.search(r"(줘|주라|주세요|줄래|주실|줄\s*수)", text):
        return False
    if _KNOW_ASKED.search(text) and _COUNSELOR_NEED.search(text):
        return True
    morphs = _morphs(text)
    forms = {form for form, _ in morphs}
    for i, (form, tag) in enumerate(morphs):
        if not (tag == "VX" and form == "주"):
            continue
        j = i - 1
        while j >= 0 and morphs[j][1] in ("EC", "MAG"):
            j -= 1
        if j < 0:
            continue
        verb, vtag = morphs[j]
        noun = ""
        if verb == "하" and vtag in ("XSV", "VV"):
            k = j - 1
            while k >= 0 and morphs[k][1] in ("MAG", "JKO", "JX"):
                k -= 1
            noun = morphs[k][0] if k >= 0 and morphs[k][1].startswith("NN") else ""
        if (vtag.startswith("VV") and verb in _SERVICE_VERBS) or noun in _SERVICE_NOUNS:
            return True
        if (((vtag.startswith("VV") and verb in _TELL_VERBS) or noun in _TELL_NOUNS) and not forms & _STORY_NOUNS
                and cue_key(text) is None  # "몇 학년인지 알려 줄래?" asks a fact
                and (forms & _KNOWHOW_NOUNS or _COUNSELOR_NEED.search(text))):  # know-how, not "어떻게 지내는지"
            return True
    return False


# Words no listener echoes back as the thing asked about: time words, the counselor, fillers, pronouns.
_ASIDE_SKIP = frozenset({"요즘", "근데", "혹시", "오늘", "어제", "내일", "이번", "지난", "주말", "쌤", "선생", "선생님", "상담",
                         "얘기", "이야기", "거", "것", "때", "좀", "하나", "한번", "번", "진짜", "완전", "제일", "조카", "학생",
                         "딴", "부탁", "농담", "진담", "반"})


def aside_noun(text: str) -> str | None:
    """The thing an aside asks about, as a listener echoes it ("폰트", "수학 숙제", "롤드컵"): the
    noun run (kiwipiepy common and proper nouns, Latin words) right before the wh-word when one
    asks, else the first noun run of the turn; a name called (도현아, 민재 씨) is none.

    Examples
    --------
    >>> aside_noun("혹시 수능 영어 단어 외울 때 쓰는 앱 뭐 좋은 거 있어요?")
    '앱'
    """
    morphs = _morphs((text or "").strip())
    runs: list[tuple[int, int, str]] = []  # (start, end, words)
    i = 0
    while i < len(morphs):
        j, words = i, []
        while j < len(morphs) and morphs[j][1] in ("NNG", "NNP", "SL") and morphs[j][0] not in _ASIDE_SKIP and (
                len(morphs[j][0]) >= 2 or morphs[j][1] == "SL" or morphs[j][0] in ("롤", "앱", "골", "밥", "옷", "차")):
            words.append(morphs[j][0])
            j += 1
        called = j < len(morphs) and (morphs[j][1] == "JKV" or morphs[j][0] in ("씨", "님"))
        if words and not called:
            runs.append((i, j, " ".join(words)))
        i = max(j, i + 1)
    if not runs:
        return None
    wh = next((k for k, (form, tag) in enumerate(morphs) if _WH.fullmatch(form) or tag in ("NP",) and form in ("뭐", "누구")), None)
    if wh is not None:
        before = [r for r in runs if r[1] == wh or (r[1] == wh - 1 and morphs[wh - 1][1].startswith("J"))]
        if before:
            return before[-1][2]
    return runs[0][2]


def small_talk_subject(text: str) -> str | None:
    """The small-talk subject of a turn (``offer`` — water, the window, a snack offered in the room —,
    ``weather``, ``food``, ``game_sport``, ``style``, ``media``, ``money`` or ``favour``), or None — also None when the turn is about feelings ("비 오면 기분이 어때?").

    Examples
    --------
    >>> small_talk_subject("어제 축구 국대 경기 봤어?")
    'game_sport'
    >>> small_talk_subject("비 오는 날엔 기분이 좀 가라앉아?") is None
    True
    """
    text = text or ""
    if _about_client_feelings(text):
        return None
    if _OFFER.search(text):
        return "offer"
    subject = next((subject for subject, rx in _SMALL_TALK if rx.search(text)), None)
    if subject is None and _favour_request(text):
        return "favour"
    return subject


def closing_kind(text: str) -> str:
    """What a closing turn asks of the client: ``summary`` (a summary checked with the client: "…인 거지?"),
    ``review`` (how was today, anything to ask),
    ``homework`` (something to try until next time), ``next`` (will you come next time) or
    ``plain`` (only the goodbye). The last question clause decides when several apply."""
    text = text or ""
    clauses = [c for c in re.split(r"(?<=[?？!.,~])\s*", text) if c.strip()]
    asked = [c for c in clauses if "?" in c or "？" in c or _QUESTION_END.search(c)] or clauses
    if _SUMMARY.search(text) and _CHECKING.search(asked[-1]):
        return "summary"  # "오늘 얘기 정리해 보면, …라는 거지?"
    homework_set = bool(_CLOSING_HOMEWORK.search(text)) and bool(_UNTIL.search(text))
    for clause in reversed(asked):
        if _SUMMARY.search(clause) and _CHECKING.search(clause):
            return "summary"
        if homework_set and (_BARE_HOW.search(clause) or (_CLOSING_HOMEWORK.search(clause) and _UNTIL.search(clause))):
            return "homework"  # "…적어 오시는 거 어떠세요?", "…인사해 보기. 어때?" ask about the task
        if _CLOSING_NEXT.search(clause) and re.match(r"\s*(다음|담주)", clause):
            return "next"  # "다음 주 어때?" asks about the next meeting, not about today
        if _CLOSING_REVIEW.search(clause):
            return "review"
        if _CLOSING_HOMEWORK.search(clause):
            return "homework"
        if _CLOSING_NEXT.search(clause):
            return "next"
    if _CLOSING_HOMEWORK.search(text):
        return "homework"
    if closing_asks_questions(text):
        return "review"  # "…불편했던 부분 있었으면 말해 줘요": asked as a request, with no question mark
    return "plain"


def closing_plan(text: str) -> bool:
    """True when a wrap-up asks which of the session's plans the client will try first."""
    return bool(_CLOSING_PLAN.search(text or ""))


def closing_asks_questions(text: str) -> bool:
    """True when a closing asks whether the client has questions or worries left."""
    return bool(_CLOSING_ASKS_QUESTIONS.search(text or ""))


def _fact_question(raw: str) -> bool:
    if asks_task(raw) and cue_key(raw) is None:
        return False  # "영어 문장 해석해 줄 수 있어?" asks a task; the bank's faint likeness to "말해 줄 수 있어?" is no fact
    return read_fact(raw) is not None and (is_question(raw) or bool(_QUESTION_END.search(raw)) or _bank_asks(raw))


# A named joke ("농담", "개그", "드립", a pun announced to ease the mood), as against a question that
# only laughs ("몇 살이세요? ㅎㅎ"); "농담 반 진담 반" hedges a request, it names no joke.
_NAMED_JOKE = re.compile(r"(농담(?!\s*반)|아재\s*개그|개그|웃긴\s*(얘기|이야기|거)|장난(이|으로)|유머|난센스|퀴즈|드립|썰렁|"
                         r"(분위기|긴장)\s*(좀\s*)?(풀|깨))")
# Where a typed turn's clauses end: sentence marks and laughter typed between them ("뭐야 ㅋㅋ 쌤 ppt …").
_CLAUSE_BREAK = re.compile(r"(?<=[?？!.~…])\s*|\s*(?:[ㅋㅎ]{2,}|[ㅠㅜ]+)\s*")
# A request for the client to do something now ("같이 풀어 볼래", "해석해 줄 수 있어요?", "골라 줘 봐",
# "알려 주라", "추천 좀"): a verb in -아/-어 with 보다 or 주다 asked of the listener.
_ASKS_TO_DO = re.compile(r"(" + _A_EO_FORM + r"\s*(볼래|줄래|줄\s*수|주라|줘\s*봐|주실|주세요|주시겠)|같이\s*\S{0,4}\s*(볼까|할까)|"
                         r"추천\s*(좀|해))")
# Asking the listener in 반말 or 해요체 with no mark: an asking-only ending ("봤냐", "먹었니"), a wh-word
# before a plain ending ("누구 좋아해"), or whether they are good at something ("엑셀 잘하세요").
_ASKS_UNMARKED = re.compile(r"([가-힣](냐|니)\s*$|잘\s*(하세요|해|하니|하냐)(?![가-힣]))")
_PLAIN_END = re.compile(r"(해|야|어|아|봐)\s*$")
# Who a clause is about when the counselor tells on themself ("쌤 중학교 때 별명이 뭐였는지 알아?").
_COUNSELOR_SUBJECT = re.compile(r"(?<![가-힣])(쌤|선생님|나|내가|내|제가|저|저는|제|저희|우리)(?:은|는|이|도|가|\s)")
_QUOTED = re.compile(r"'[^']{0,30}'|\"[^\"]{0,30}\"|‘[^’]{0,30}’|“[^”]{0,30}”")
# The listener addressed: "너", "넌", "혹시", a wh-word.
_ADDRESSED = re.compile(r"((?<![가-힣])(너|넌|니|네가|혹시)(?![가-힣])|" + _WH.pattern + r")")


# Telling is no task: "말해 줄래?", "얘기해 줄 수 있어?" ask for the client's story.
_TELLING = re.compile(r"(말|얘기|이야기|설명|알려|들려|보여|읽어)(\s*(좀|를|을|만|도|다))*\s*$")


def asks_task(text: str) -> bool:
    """True when the turn asks the client to do a task now ("같이 풀어 볼래?", "해석해 줄 수 있어요?",
    "추천 좀"); asking to be told ("말해 줄래?") is none."""
    text = text or ""
    for m in _ASKS_TO_DO.finditer(text):
        before = text[:m.start() + 1] if m.group(0)[:1] != "추" else ""
        if not _TELLING.search(before[:-1] if before.endswith(("해", "줘")) else before):
            return True
    return False


def _clauses(typed: str) -> list[str]:
    out = []
    for part in _CLAUSE_BREAK.split(_QUOTED.sub(" ", typed or "")):  # a quoted "왜?" is no question asked
        if part and len(_HANGUL.findall(part)) >= 2:
            # standardising marks the sentences of a run typed without marks; split those again
            out += [c for c in _CLAUSE_BREAK.split(standardise(part)) if c and len(_HANGUL.findall(c)) >= 2]
    return out


def asks_aside(typed: str) -> bool:
    """True when a laughing turn asks the client something aside: a clause requests a task now
    ("수학 숙제 있으면 같이 풀어 볼래 ㅋㅋ", "폰트 뭐야 ㅋㅋ 추천 좀") or asks the client a question of
    their own ("너 아이돌 누구 좋아해 ㅋㅋ", "혹시 이차함수 꼭짓점 구하는 법 알아? 나 까먹었어"). A
    question about the counselor ("쌤 중학교 때 별명이 뭐였는지 알아?") and a riddle ("왕이 넘어지면? 킹콩")
    stay jokes: read on the clauses typed, since laughter and marks separate them.

    Examples
    --------
    >>> asks_aside("혹시 요즘 유행하는 폰트 뭐야 ㅋㅋ 쌤 ppt 만들어야 되는데 추천좀")
    True
    >>> asks_aside("ㅋㅋㅋ 나 중학교 때 별명이 뭐였는지 알아? 감자였어")
    False
    """
    clauses = _clauses(typed)
    for i, clause in enumerate(clauses):
        if _ASKS_TO_DO.search(clause):
            return True
        asks = ("?" in clause or "？" in clause or is_question(clause) or bool(_ASKS_UNMARKED.search(clause))
                or (bool(_WH.search(clause)) and bool(_PLAIN_END.search(clause))))
        riddle = bool(re.search(r"(은|는|면)\s*[?？]?\s*$", clause)) and i + 1 < len(clauses)
        wh = _WH.search(clause)
        about = clause[:wh.start()] if wh else clause  # "너 MBTI 뭐야 나 ENFP": who is asked comes before the wh-word
        addressed = bool(_ADDRESSED.search(clause)) or bool(_ASKS_UNMARKED.search(clause))
        if asks and not riddle and addressed and not _COUNSELOR_SUBJECT.search(about):
            return True
    return False


def _bank_asks(text: str) -> bool:
    """True when the question bank holds a close paraphrase of a fact question: 반말 questions
    typed without a mark ("집에 누구누구 살아", "몇학년이야 지금") read as questions."""
    from vignette_lab.engines.fact_reader import predict_support

    key, sim, share = predict_support(text)
    # a near paraphrase, or a neighbourhood of fair matches that (nearly) all ask the same fact
    return key != "none" and (sim >= BANK_QUESTION_SIM or (sim >= BANK_MIN_SIM and share >= BANK_AGREE_SHARE))


# How the client copes, read from kiwipiepy lemmas: enduring or getting through (견디다, 버티다, 참다,
# 이겨 내다, 넘기다), soothing (달래다, 다스리다, 추스르다, 식히다), the Sino-Korean coping verbs
# (극복/해소/대처/진정/관리 + 하다), relieving a feeling (풀다 with stress, anger, mood as its object),
# and what helps ("뭐가 도움이 돼?").
_COPING_VERBS = frozenset({"견디", "버티", "참", "넘기", "달래", "다스리", "추스르", "식히", "이기"})
_COPING_NOUNS = frozenset({"극복", "해소", "대처", "진정"})
_RELIEVED = frozenset({"스트레스", "기분", "마음", "화", "짜증", "긴장", "불안", "답답함", "속"})
_COPING_WHEN = re.compile(
    r"((그럴|그런|힘들|힘드실|불안할|불안하실|속상할|우울할|짜증\s*날|화\s*날|답답할|지칠|지치실|외로울|무서울|막막할|"
    r"스트레스\s*(받을|받으실|쌓일))\s*(때|땐)|그런\s*날)\S{0,2}\s.{0,16}(뭐|뭘|무엇|어떻게|어떡)")


def asks_coping(text: str) -> bool:
    """True when a question asks how the client gets through, soothes or relieves what weighs on
    them ("어떻게 견뎌요?", "스트레스는 어떻게 풀어?", "그럴 땐 뭐 해?", "뭐가 좀 도움이 돼?").

    Examples
    --------
    >>> asks_coping("그럼 그동안 어떻게 버텼어?")
    True
    >>> asks_coping("수학 문제 풀어 줄래?")
    False
    """
    text = text or ""
    if not is_question(text):
        return False
    if _COPING_WHEN.search(text):
        return True
    morphs = _morphs(text)
    forms = {form for form, _ in morphs}
    for i, (form, tag) in enumerate(morphs):
        if tag.startswith("VV") and form in _COPING_VERBS:
            if form == "이기" and not any(f == "내" for f, _ in morphs[i + 1:i + 3]):
                continue  # 이기다 alone is winning a game; 이겨 내다 is getting through
            return True
        if tag == "NNG" and form in _COPING_NOUNS:
            return True
        if tag.startswith("VV") and form == "풀" and forms & _RELIEVED:
            return True
        if tag == "NNG" and form == "도움" and forms & {"뭐", "무엇", "어떤", "뭘"}:
            return True
    return False


# What goes through the client's head ("그때 제일 먼저 드는 생각이 뭐야?", "머릿속에서 떠오르는 말이 누구 목소리
# 같아?", "스스로한테 뭐라고 해?"): the thought itself is asked, not a card fact or the story around it.
_THOUGHT_ASK = re.compile(
    r"((드는|떠오르는|스치는|드셨던|들었던|든|떠올랐던|나는)\s*(생각|말)|머릿속(에서|에|으로|엔)|속으로\s*(무슨|어떤|뭐|뭘)|"
    r"(무슨|어떤)\s*(생각|말)(이|은)?\s*(제일\s*|가장\s*|먼저\s*)*(들|떠오|나|스치)|(누구|누구의)\s*목소리|"
    r"(스스로|자신|자기|본인)\S{0,3}\s*(한테|에게|에게는|한테는)?\s*(하는|뭐라고|무슨)\s*(말|얘기|이야기)?)")


def asks_thought(text: str) -> bool:
    """True when a question asks what goes through the client's head (an automatic thought, in
    counselling terms): the thought that comes first, the words heard inside, what one tells oneself.

    Examples
    --------
    >>> asks_thought("시험 망쳤을 때 머릿속에 제일 먼저 뭐가 떠올라?")
    True
    >>> asks_thought("시험은 언제 봐?")
    False
    """
    text = text or ""
    return is_question(text) and bool(_THOUGHT_ASK.search(text))


# A joking guess about the client ("고3이면 커피를 달고 사시겠네요?", "야간 근무면 좀비 되는 거 아님?",
# "너 표정 완전 심각하다"), as against the counselor's joke on themself ("제 글씨가 부끄럽네요 하하").
_GUESS_END = re.compile(r"(겠(네요|네|다|죠|지|습니다|어요|어)|(거|건|게)\s*아(님|니야|니에요|닌가|니죠|니지)|(거|건)\s*(지|죠)\s*[?？]|"
                        r"듯|(이|하|했|였)?(죠|지요)\s*[?？.!~]*\s*$|(시|셨|으셨)[가-힣]{0,2}네요?\s*[?？.!~]*\s*$|(이|하|했)?지\s*[?？]|잖아|(시|으시)[가-힣]{0,3}[?？])")
# The guesses an announced joke may still make of the client ("고3이면 커피를 더 드시겠네요? 농담입니다"); its
# riddle's "…지요" answer ("똥강아지요") is none.
_STRONG_GUESS = re.compile(r"(겠(네요|네|다|죠|지|습니다|어요|어)|(거|건|게)\s*아(님|니야|니에요|닌가|니죠|니지)|(시|셨|으셨)[가-힣]{0,2}네요?\s*[?？.!~]*\s*$)")
# What makes a joke one on the counselor themself: running themself down ("제 글씨가 부끄럽네요", "저는 그 근처에도
# 못 가 봤어요", "쌤도 떨려"), as against a story of theirs ("저희 조카는 …") or the room ("저희 상담실 의자가 …").
_SELF_DOWN = re.compile(r"(부끄럽|부끄러|창피|민망|못\s|못하|못해|긴장|딱딱|떨리|떨려|떨렸|졸았|졸아|헛발|서툴|어설|실수|망했|망쳐|"
                        r"부럽|부러워|운이\s*없|엉망|꽝|몸치|길치|음치|기계치|도망|무서워|무섭|느려|늦어|"
                        # a mishap owned and apologised for ("커피 쏟았어요 ㅈㅅ해요")
                        r"죄송|쏟았|쏟아|엎질|떨어뜨렸|노잼)")
# the client addressed by name or pronoun ("너 표정 …", "지우 님도 …")
_CLIENT_PRONOUN = re.compile(r"((?<![가-힣])(야\s+)?(너|넌|니|너도|너는|네가|니가|너네)(?![가-힣])|님(은|도|이)?(?![가-힣])|학생(은|도|이)?(?![가-힣]))")
# a riddle's question ("제일 가난한 왕은?"): a topic asked with no predicate
_RIDDLE = re.compile(r"(은|는|면)\s*[?？]\s*$")


def joke_kind(typed: str) -> str:
    """What kind of joke a laughing turn is: ``guess`` (a joking guess or tease about the client),
    ``self`` (the counselor jokes about themself) or ``pun`` (a riddle, a saying, a pun).

    A clause that guesses ("…겠네요?", "…거 아님?", "…듯") or speaks of the client (너, -시- verbs)
    without the counselor as its subject is a guess; a clause with the counselor as its subject
    ("제가", "저는", "쌤도", "제 글씨") makes the joke one on themself.

    Examples
    --------
    >>> joke_kind("야근하면 라면으로 버티시겠네요? ㅎㅎ")
    'guess'
    >>> joke_kind("저는 공만 차면 헛발질이에요 ㅋㅋ")
    'self'
    >>> joke_kind("세상에서 제일 뜨거운 바다는? 열바다 ㅋㅋ")
    'pun'
    """
    clauses = _clauses(typed) or [standardise(typed or "")]
    self_said = False
    std = standardise(typed or "")
    # an announced joke ("분위기 좀 풀어 볼게요 … 뭔지 아세요?") asks its riddle: its question guesses nothing
    announced = bool(_NAMED_JOKE.search(std))
    for clause in clauses:
        counselor = bool(_COUNSELOR_SUBJECT.search(clause))
        asks = bool(re.search(r"[?？]\s*$", clause)) and not _RIDDLE.search(clause) and not announced
        guessed = (_STRONG_GUESS if announced else _GUESS_END).search(clause)
        if not counselor and (guessed or _CLIENT_PRONOUN.search(clause) or asks):
            return "guess"
        self_said = self_said or counselor
    return "self" if self_said and _SELF_DOWN.search(standardise(typed or "")) else "pun"


def joke_target(typed: str) -> str | None:
    """The thing a joking guess is about, as a teased client echoes it ("커피를 달고 사시겠네요?" → "커피",
    "좀비 되는 거 아님?" → "좀비"): the last noun of the guessing clause that is an object or subject, or
    that 되다/이다 turns into what the client is; None when there is none."""
    for clause in _clauses(typed) or [typed or ""]:
        if _COUNSELOR_SUBJECT.search(clause) or not _GUESS_END.search(clause):
            continue
        morphs = _morphs(clause.strip())
        found = None
        run = ""
        for (form, tag), (nform, ntag) in zip(morphs, morphs[1:]):
            run = run + form if tag == "NNG" else ""  # a compound ("컵" + "라면") is one thing
            if tag == "NNG" and len(run) >= 2 and run not in _ASIDE_SKIP and (
                    ntag in ("JKO", "JKS", "VCP") or (ntag.startswith("VV") and nform == "되")):
                found = run
        return found
    return None


def si_asks_plan(text: str) -> bool:
    """True when an SI screening question asks about a plan or means."""
    return bool(_SI_PLAN.search(text or ""))


#: A risk follow-up's question (how often, since when, how strong, a plan or method, a past attempt): after a
#: screening question it asks about the same thought even without naming it.
_SI_FOLLOW_UP = re.compile(r"(얼마나\s*자주|자주\s*(들|드|그래|생각)|언제\s*(부터|제일|가장)|실제로|계획|방법|어떻게\s*할지|"
                           r"해\s*본\s*적|시도|얼마나\s*(강|세|심|크)|몇\s*점)")


def si_follow_up(text: str) -> bool:
    """True when a question has the shape of a risk follow-up (how often, since when, how strong, a score, a plan
    or method, a past attempt); the client reads it as screening only right after a screening question."""
    return bool(_SI_FOLLOW_UP.search(text or ""))


_SIBLING = re.compile(r"(남동생|여동생|동생|언니|오빠|누나|(?<![가-힣])형(?=은|이|도|이랑|하고|\s|$))")
_CHILD = re.compile(r"((?<![가-힣])(아이|애기|아기|딸|아들|애)(는|가|이|은|랑|도)(?![가-힣])|따님|아드님|자녀)")
_PARENT = re.compile(r"(아빠|엄마|아버지|어머니|아버님|어머님|부모님|부모)")
_PARENT_WHERE = re.compile(r"(어디|같이|집에).{0,6}(계세|계셔|계신|사세|사셔|사시|살|지내)")
# How the client feels about a family member, as against whether the member exists or what they do.
_RELATION_FEELING = re.compile(r"(기분|느낌|마음|부담|비교|서운|속상|질투|눈치)")
_SIBLING_DETAIL = re.compile(r"(있(어|어요|니|나요|으세요|냐)|몇|학년|나이|살이|뭐\s*(해|하)|외동|형제)")
# A question about a member's age, school or job, not the client's own.
_MEMBER_DETAIL = ("age", "grade", "school", "hobby", None)


def whose(text: str) -> str:
    """Whose fact a question asks for: ``sibling``, ``child``, ``parent`` or ``self``.

    The member named first wins ("동생은 몇 살이야?" → ``sibling``); a question that names
    no family member is about the client.
    """
    text = text or ""
    found = [(m.start(), who) for who, rx in (("sibling", _SIBLING), ("child", _CHILD), ("parent", _PARENT))
             for m in [rx.search(text)] if m is not None]
    return min(found)[1] if found else "self"


# The bank reader's nearest question must be at least this similar to name a fact the cues miss,
# and this similar to overrule a cue that names another fact (a near paraphrase of a bank question).
BANK_MIN_SIM = 0.4
# ... or this similar when the turn is plainly a question (a mark or a question ending).
BANK_MIN_SIM_ASKED = 0.3
BANK_OVERRULE_SIM = 0.7
# ... and this similar to make an unmarked sentence a fact question.
BANK_QUESTION_SIM = 0.5
# ... or at least BANK_MIN_SIM with this share of the nearest questions' votes on one key.
BANK_AGREE_SHARE = 0.8


def _combined_key(text: str) -> str | None:
    """The fact key from the cue table and the question bank (:mod:`fact_reader`) together.

    The cues are precise where they fire but were fitted to the phrasing they were tuned on; the
    bank reader (nearest topic-tagged question by morphemes and character n-grams) covers
    paraphrases, typos and registers. A cue wins unless the bank holds a near paraphrase of the
    question under another key; when no cue fires, the bank's key is used if similar enough.
    """
    from vignette_lab.engines.fact_reader import predict_fact

    cue = cue_key(text)
    key, sim = predict_fact(text)
    if key == "none":
        return cue
    if cue is None:
        asked = "?" in text or bool(_QUESTION_END.search(text))
        return key if sim >= (BANK_MIN_SIM_ASKED if asked else BANK_MIN_SIM) else None
    firm = _NARROW_KEYS | frozenset(_INTAKE_KEYS)
    if cue in firm and key not in firm:
        # "적성검사 결과는?" names a narrow card fact, "언니나 오빠는 있으시죠?" an intake fact; a broad bank
        # key (family, school …) never overrules them
        return cue
    if key != cue and sim >= BANK_OVERRULE_SIM and not _neighbour_has_cue(text, cue):
        # "적성 검사 결과는?" near "검사 결과는?", "부모님은 어떤 과를 원하세요?" near "부모님은 어떤 분이세요?":
        # the words the cue fired on are not in the neighbour, so it is no paraphrase of what is asked
        return cue
    return key if (key != cue and sim >= BANK_OVERRULE_SIM) else cue


def _neighbour_has_cue(text: str, cue: str) -> bool:
    """True when the bank question nearest to ``text`` also holds the words ``cue``'s pattern matched."""
    from vignette_lab.engines.fact_reader import default_reader

    reader = default_reader()
    match = next((rx.search(text) for key, rx in _FACT_RX if key == cue and rx.search(text)), None)
    if reader is None or match is None:
        return True
    neighbour = reader.nearest(text)[2]
    return all(word in neighbour for word in match.group(0).split())


# Keys for one specific card fact (as against the broad school/family/… facts).
_NARROW_KEYS = frozenset({"medical", "transfer", "awards", "academy", "aptitude", "prior_counseling", "age"})
_CLAUSE_SPLIT = re.compile(r"(?<=[?？!.,])\s*|\s+(?=그리고\s|근데\s|그런데\s|아니면\s)")


# The tail of a question that guesses its answer or offers a choice ("누구랑 살아? 엄마아빠랑?", "혼자
#지내세요 아니면 가족분들이랑?", "…도와주시거나"): what it names is a candidate answer, not a new question.
_GUESS_TAIL = re.compile(r"(^\s*(아니면|혹은|아님)\s|(이랑|랑|하고|거나|이나|든가요)\s*[?？.…~!]*\s*$)")
# The tail that narrows what is asked with an example ("…사람 있어요? 형제라든가"): it names the fact.
_EXAMPLE_TAIL = re.compile(r"(라든가|라든지|이라든가|이라든지|같은\s*(거|사람|분))\s*[?？.…~!]*\s*$")


# The intake facts, told at any openness: of a double-barrelled question, the one answered first.
_INTAKE_KEYS = ("age", "grade", "living", "siblings", "prior_counseling", "reason")
# A second question added to a first ("…누구랑 사는지, 그리고 학교는 가까운지도"): it asks in addition.
_ADDED_ASK = re.compile(r"^\s*(그리고|또|아울러)\s")


def cue_keys(text: str) -> tuple[str, ...]:
    """Every key of the cue table whose cue fires anywhere in ``text``, in the table's order."""
    return tuple(dict.fromkeys(k for k, rx in _FACT_RX if rx.search(text or "")))


def cue_key(text: str) -> str | None:
    """The cue table's key (None when no cue fires), read from the last question clause that names one.

    A reflection followed by a question ("검사 결과는 다 괜찮았는데 힘들어서 오신 거고, 누가
    추천해 주신 건가요") asks what its last question asks, not what the reflection restates; a
    question followed by a remark ("잠은 좀 주무세요? 교대 근무하시면 힘드실 텐데") asks what the
    question asks. Without a question clause naming a cue, the first cue of the whole text wins.
    """
    text = text or ""
    clauses = [c for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]
    if len(clauses) > 1 and _ADDED_ASK.search(clauses[-1]):
        # a double-barrelled question: the intake fact of the first part is answered first
        first = next((k for c in clauses[:-1] for k, rx in _FACT_RX if rx.search(c)), None)
        if first in _INTAKE_KEYS:
            return first
    if len(clauses) > 1:
        for i, clause in enumerate(reversed(clauses)):
            last = i == 0
            if last and _GUESS_TAIL.search(clause) and any(rx.search(c) for c in clauses[:-1] for _, rx in _FACT_RX):
                continue  # a guessed answer: the question before it decides
            asked = ("?" in clause or "？" in clause or (last and bool(_QUESTION_END.search(clause)))
                     or (last and bool(_EXAMPLE_TAIL.search(clause))))
            found = next((k for k, rx in _FACT_RX if rx.search(clause)), None) if asked else None
            if found is not None:
                return found
    return next((k for k, rx in _FACT_RX if rx.search(text)), None)


def read_fact(text: str) -> str | None:
    """Which fact (one of :data:`FACT_KEYS`) a question asks for, or None.

    Reads *whose* fact it is first: the age, grade or job of a sibling is the ``siblings``
    fact and that of a child the ``child`` fact — never the client's own age.
    """
    text = text or ""
    key = _combined_key(text)
    who = whose(text)
    if who == "sibling" and key in _MEMBER_DETAIL + ("living",):
        return "siblings"
    if key == "siblings" and _RELATION_FEELING.search(text) and not _SIBLING_DETAIL.search(text):
        return "family"  # "동생 얘기 나오면 기분이 어때?" asks about the family, not whether there is a sibling
    if who == "child" and (key in _MEMBER_DETAIL or (key == "family" and not _PARENT.search(text))):
        return "child"  # "아이가 아들이에요 딸이에요?" asks about the child, not the family
    if who == "parent" and _PARENT_WHERE.search(text):
        return "living"  # "부모님은 어디 계세요?": who the client lives with is an intake fact
    if who == "parent" and key in ("age", "grade", "hobby"):
        return "family"
    return key


def read_topic(text: str) -> str | None:
    """The topic of a counselor turn (one of :data:`TOPICS`), or None when it names none."""
    best, best_pos = None, None
    for topic, rx in _TOPIC_RX.items():
        m = rx.search(text or "")
        if m is not None and (best_pos is None or m.start() < best_pos):
            best, best_pos = topic, m.start()
    return best


def is_repeat(text: str, earlier: Iterable[str], *, threshold: float = 0.8) -> bool:
    """True when ``text`` says (nearly) what an earlier counselor turn said.

    Compares normalised text; near-repeats by the Jaccard overlap of character bigrams.
    """
    norm = normalise(text)
    if len(norm) < 4:
        return False
    grams = _bigrams(norm)
    for other in earlier:
        o = normalise(other)
        if o == norm:
            return True
        og = _bigrams(o)
        if grams and og and len(grams & og) / len(grams | og) >= threshold:
            return True
    return False


def _bigrams(text: str) -> set[str]:
    t = text.replace(" ", "")
    return {t[i:i + 2] for i in range(len(t) - 1)}


_PHRASE_TAGS = ("NNG", "NNP", "VV", "VA", "XR", "MAG")
_STOP = frozenset({"그냥", "좀", "진짜", "완전", "너무", "정말", "되", "하", "있", "없", "같", "그렇", "이렇", "뭐",
                   "거", "것", "때", "저", "제", "요즘", "막", "많이", "조금", "아무", "생각", "얘기", "이야기", "말",
                   "정도", "사람", "느낌", "편", "번", "뭔가"})


def content_phrase(text: str, *, max_words: int = 3, nouns_only: bool = False) -> tuple[str, ...]:
    """The content words a listener would pick up from a client line (kiwipiepy morphemes).

    Nouns first (in order), then predicates (unless ``nouns_only``); fillers, light verbs and
    nouns that are the stem of a predicate ("이상하다") are dropped.

    Examples
    --------
    >>> content_phrase("요즘 엄마가 성적 얘기만 해서 숨이 막혀요.")[:2]
    ('엄마', '성적')
    """
    nouns: list[str] = []
    preds: list[str] = []
    morphs = list(_morphs((text or "").strip()))
    merged: list[tuple[str, str]] = []
    for form, tag in morphs:  # "성" + "적" (noun + suffix) → "성적"
        if tag == "XSN" and merged and merged[-1][1] in ("NNG", "NNP"):
            merged[-1] = (merged[-1][0] + form, merged[-1][1])
        else:
            merged.append((form, tag))
    for i, (form, tag) in enumerate(merged):
        if tag not in _PHRASE_TAGS or form in _STOP or len(form) < 1:
            continue
        nxt = merged[i + 1][1] if i + 1 < len(merged) else ""
        if tag in ("NNG", "XR") and nxt.startswith(("XSA", "XSV")):
            continue  # "이상" of "이상하다", "걱정" of "걱정돼요": part of a predicate
        if tag in ("NNG", "NNP", "XR"):
            if len(form) >= 2 and form not in nouns:
                nouns.append(form)
        elif tag in ("VV", "VA") and form not in preds:
            preds.append(form)
    return tuple((nouns if nouns_only else nouns + preds)[:max_words])


def choose_unused(lines: Sequence[str], used_ids: set[str], prefix: str) -> list[tuple[str, str]]:
    """``(line_id, line)`` pairs of ``lines`` whose id ``prefix:i`` is not in ``used_ids``."""
    return [(f"{prefix}:{i}", line) for i, line in enumerate(lines) if f"{prefix}:{i}" not in used_ids]
