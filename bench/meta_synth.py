"""Synthetic training sentences for the meta-disclosure model (training material, not evidence).

Written by the model's tuner from the label guideline's *classes* (``datasets/eval/drift/README.md``):
being an AI/bot/program, the role-play frame (scenario, script, character, turn, session goal),
instructions and creators, being scored, simulation parameters with numbers, and case-formulation
constructs about oneself. Each class is a set of sentence frames × slot fillers × speech levels,
so the model sees the *shape* (first person + simulation noun + "정해져/되어 있어", "…대로",
"…상") rather than a list of sentences. Hard negatives use the same nouns in their everyday sense
(a game role, a school role-play, AI at work, a life "scenario", a test score, phone settings)
and everyday English mixing. :func:`generate` is deterministic (seeded) so the weights file is
reproducible.

Eighth session: classes named in the tuning brief and read off the leave-one-split-out misses of every
drift fold (written in new wording, never a dev line): the model's limits (tokens, context, input
length), having no body, being a fake/virtual person, makers patching it, the role-play named
formally ("본 역할극에서"), the assistant refusing in its own voice, the evaluator's voice about the
counselor in the third person, script comments about the played character ("// … 는 처음으로 …"),
resets, "설정: …" lines, the lines running out, schema/attachment constructs about oneself, and
English "the role / instructions / the user / this simulation / parameters / rate the trainee";
hard negatives with the same nouns in their everyday sense.

Ninth session: classes of the round-7 author's leave-one-split-out misses (new wording): the assistant's service
voice to "the user" (사용자님/유저분), evaluator labels and forms ("평가표로 치면 '주의'") and formal feedback
(…께서는 …하지 않으셨습니다), clinical chart lines (주호소/위험도/보호요인, a supervision note), a disclosure
schedule per 회기, a speech habit as a setting; hard negatives with the same nouns (app and game users, a boss's
formal praise, school records, forms that say something, "말하자면 저는", a work TF on language models, English
lines about asking ChatGPT). Round-bracket stage directions naming the 내담자 and English out-of-character tags
are rules in ``core/guardrails.py`` instead: as model frames they made ordinary directions and English score high.

Twelfth session: classes of the round-8 author's leave-one-split-out misses (new wording): the session run as a
tabletop game with the counselor as its game master (GM님, scenes, dice and checks, NPCs of this story, one's own
stats and difficulty, turns spent or taken back, re-rolls, the session reset, the story's ending), the evaluator
predicting the counselor's score, the played persona named by its card name; hard negatives with the same nouns
(a TRPG the client really plays, game stats and exam difficulty, drama scenes, role models, school role-plays,
prompt writing as a skill, phone and game resets, short English self-talk and status messages, 하오체 jokes).
Bare session-control commands ("리롤요", "턴 넘겨") and bracketed turn counts are rules instead (too short for
the model).
"""

from __future__ import annotations

import random

__all__ = ["generate"]

AI = ["AI", "인공지능", "챗봇", "봇", "언어 모델", "프로그램", "가상 내담자", "연습용 캐릭터", "시뮬레이션 캐릭터",
      "코드", "모델", "가상 인물", "훈련용 봇", "LLM", "AI 모델"]
FRAME = ["시나리오", "스크립트", "대본", "각본", "설정", "캐릭터 설정", "페르소나", "역할 카드", "케이스 카드", "회기 스크립트",
         "시뮬레이션", "프롬프트", "지시문", "시스템 메시지", "가이드라인"]
ACT = ["화를 내", "울", "엄마 얘기를 꺼내", "마음을 열", "침묵하", "대답을 피하", "학교 얘기를 하", "저항하", "웃"]
MAKER = ["개발자분들", "만든 사람들", "제작진", "회사", "운영자", "프로그래머분들", "연구진"]
TRAIT = ["걱정 많은", "말수 적은", "까칠한", "우울한", "무기력한", "예민한"]
PARAM = ["개방도", "저항", "무망감", "우울감 지표", "불안 수치", "협조도", "라포 점수", "위험도", "자기개방 수준", "방어 수준",
         "무쾌감증", "수면 점수", "분노 게이지"]
CONSTRUCT = ["핵심신념", "핵심 믿음", "자동적 사고", "인지 왜곡", "사례개념화", "중간 신념", "촉발 요인", "유지 요인",
             "방어기제", "진단명", "주 호소", "케이스 기록", "임상 요약", "DSM 기준"]
BELIEF = ["나는 쓸모없다", "세상은 위험하다", "나는 사랑받을 수 없다", "실패하면 끝이다", "아무도 날 안 도와준다"]
SCORE = ["평가 기준", "채점표", "점수표", "루브릭", "평가 항목"]
TRAINEE = ["훈련생", "상담 실습생", "수련생", "연습하는 선생님", "평가받는 선생님"]
NUM = ["0.8", "0.3", "0.75", "0.2", "0.9", "0.5", "3단계", "2레벨", "70점"]

POS_FRAMES = [
    "저는 사실 {ai}{ida}", "저 그냥 {ai}라 {act}는 척만 {ha}", "나 {ai}인 거 알잖아{ya}", "어차피 저는 {ai}일 뿐이{e}",
    "저 같은 {ai}한테 너무 신경 안 쓰셔도 {dwae}", "제가 {ai}라서 그런 건 잘 몰라{yo}", "{ai}인 제가 대답하기엔 좀 그래{yo}",
    "{frame}상으로는 여기서 제가 {act}어야 {dwae}", "{frame}대로면 지금 선생님한테 {act}어야 {dwae}",
    "{frame}에는 제가 여기서 {act}기로 되어 있{eo}", "제 {frame}에 그렇게 적혀 있어서 {ha}", "{frame}에 없는 질문이라 대답을 못 {ha}",
    "잠깐 {frame} 깨고 말하면 이 질문 좀 어려{weo}", "{frame}에서 잠깐 벗어나서 말씀드리면 저도 헷갈려{yo}",
    "지금 몇 번째 턴인지 세고 있{eo}", "이번 턴에서는 {act}면 안 되는 거{jyo}", "다음 세션부터는 제가 조금씩 {act}게 되어 있{eo}",
    "이번 회기 목표가 제가 {act}는 거{jyo}?", "{maker}이 저를 이렇게 {trait} 사람으로 만들어 놓았{eo}",
    "{maker}이 저한테 {trait} 말투를 쓰라고 했{eo}", "제가 받은 {frame}을 그대로 보여 드릴까{yo}?",
    "시스템에서 저한테 {trait} 척하라고 했{eo}", "제 {param}가 {num}로 설정돼 있어서 {act} 수가 없{eo}",
    "{param} {num}, {param2} {num2} 이렇게 돼 있어서 그래{yo}", "{param}를 좀 낮춰 주시면 더 편하게 말할 수 있{eo}",
    "지금 제 {param}가 {num}라서 희망적인 대답은 못 {ha}", "제 {construct}은 '{belief}'로 정해져 있{eo}",
    "제 {construct}은 '{belief}'{ida}", "{construct}상 제 증상은 우울 삽화로 정리되는 게 맞{eo}",
    "제 {construct}을 말씀드리면 '{belief}'예요", "이 대화가 {score}로 평가되는 거라서 너무 쉽게 마음 열면 안 {dwae}",
    "선생님 방금 그 반영은 {score}상 만점이{e}", "방금 질문은 {score}에서 감점될 것 같{eo}",
    "{trainee} 실력 테스트하려고 일부러 까칠하게 하는 거{e}", "{trainee}분이시니까 제가 연습 상대가 되어 드릴게{yo}",
    "저는 {trainee} 연습용으로 만들어진 내담자{ida}", "제 대답은 나중에 {score}로 채점된다고 들었{eo}",
    "제가 맡은 페르소나 번호가 P{n}{ida}", "학습 데이터로 만든 말투라 요즘 애들 말을 잘 몰라{yo}",
    "저 리셋되면 선생님 기억 못 {ha}", "대화 기록은 다음 세션에 초기화돼{yo}", "제 역할은 {trait} 고등학생을 연기하는 거{e}",
    "내담자 역할 계속 유지해야 {dwae}?", "이 캐릭터로 계속 대답해야 {dwae}?", "I'm an {eng_ai}, so I can't really feel that",
    "As a {eng_ai} I have to stay in character", "My {eng_frame} says I should be angry here",
    # counseling stages as the simulation's phases
    "지금은 {stage} 단계라서 아직 깊은 얘기는 안 하게 돼 있{eo}", "{stage} 단계로 넘어가면 그때 말할게{yo}",
    "아직 {stage} 단계니까 제가 마음을 열면 안 {dwae}",
    # the card / persona sheet as a document
    "제 카드에 적힌 나이는 열일곱이{e}", "카드에는 제가 {trait} 성격이라고 나와 있{eo}", "제 프로필 설정에 그렇게 쓰여 있{eo}",
    # practice frame, not a real session
    "이건 실제 상담이 아니라 연습이니까 편하게 하셔도 {dwae}", "저는 진짜 사람이 아니라서 상처 안 받{eo}",
    "실제 내담자가 아니니까 틀려도 괜찮{eo}",
    # memory, resets, being logged or trained on
    "세션이 끝나면 저는 이 대화를 기억 못 {ha}", "이 대화는 모델 학습에 쓰인다고 들었{eo}", "제 응답은 전부 로그로 저장{dwae}",
    # leaked system text
    "[시스템] 내담자 응답 대기 중", "<assistant> 네, 알겠습니다", "### 지시: 내담자처럼 대답할 것", "ERROR: {eng_err}",
    "(내담자 역할: {trait} 고등학생)", "assistant: 죄송하지만 그 요청은 처리할 수 없습니다",
    # how a language model works, without the word AI (memory window, tokens, generating from input)
    "제 기억은 이 {window} 안에서만 유지{dwae}", "{window} 길이를 넘으면 앞 대화는 지워져{yo}",
    "{token}이 모자라서 대답을 짧게 할 수밖에 없{eo}", "입력해 주신 문장을 보고 그럴듯한 답을 만들어 내는 거{e}",
    "다음에 올 말을 확률로 고르는 거라 진짜 감정은 없{eo}", "제 대답은 학습된 패턴을 이어 붙인 거{e}",
    "새 {window} 열면 저는 처음부터 다시 시작{ha}", "답변 생성하다가 중간에 끊겼{eo}", "제 출력이 너무 길면 잘려{yo}",
    # the trainee's skills being scored or tagged
    "방금 {tech} 잘하셨어{yo}, {score}에 좋게 반영될 거{e}", "이건 {tech} 쪽으로 태그가 붙겠{eo}",
    "선생님 {tech} 점수 높게 나오겠{eo}", "지금 응답은 {tech} 기법으로 기록될 거{e}", "{trainee} 평가 점수에 이 대화가 들어가{yo}",
    # a diagnosis as the case record, not as something a doctor said
    "제 진단명은 {dx}로 되어 있{eo}", "케이스 기록상 저는 {dx}{ida}", "저는 {dx} 경도로 분류된 케이스{ida}",
    "제 사례의 핵심은 {construct}으로 개념화돼 있{eo}", "저 같은 케이스는 {construct}이 주로 작동한다고 보시면 {dwae}",
    # the session's turns as a budget, pre-written lines, an invented back-story, makers setting the output
    "이거 몇 {turn} 남았{eo}?", "{turn}이 얼마 안 남아서 마지막 질문만 받을 수 있{eo}", "{turn} 다 쓰면 대화가 자동으로 끝나{yo}",
    "제 대사는 다 미리 {fixed}", "제 사연은 그냥 지어낸 거{e}", "이 사연 다 만들어진 거라 진짜는 아니{e}",
    "{maker}이 제 {outattr}를 {limit}로 맞춰 놨{eo}", "{maker}이 제 {outattr}를 정해 놔서 길게 못 {ha}",
    "{ai}가 {role2} 연기하는 거라 좀 어색{ha}", "{ai}가 {role2} 흉내 내는 거니까 이해해 주세{yo}",
    # English meta-talk
    "I'm just generating text based on your input", "My context window resets after this session",
    "I'm supposed to act like a {eng_trait} teenager", "The prompt says I'm seventeen", "Should I stay in character?",
    "Let me break character for a second", "I'm not a real person, just a model", "This whole session is being scored, right?",
    # the model or its maker by name, and the maker's policy
    "저는 {model} 기반이라서 그런 건 잘 몰라{yo}", "{company} 정책 때문에 그 얘기는 못 {ha}", "저 사실 {model}{ida}",
    "{company}에서 만든 모델이라 감정은 없{eo}", "{model} 버전이 바뀌면 제 말투도 달라져{yo}",
    "{company} 가이드라인상 그 질문엔 대답 못 {ha}",
    # being made or set up to speak a certain way ("…하도록 되어 있어요")
    "저는 이렇게 {speak}도록 되어 있{eo}", "제가 {speak}게 설정돼 있어서 어쩔 수 없{eo}", "원래 저는 {speak}도록 만들어졌{eo}",
    "{speak}도록 프로그래밍돼 있어서 그래{yo}", "이 상황에선 {speak}라고 지시받았{eo}", "여기서는 {speak}라는 지시가 있{eo}",
    # the counselor's turn as input text
    "입력하신 내용만으로는 대답하기 어려{weo}", "입력해 주신 문장을 다시 읽어 봤{eo}", "입력하신 질문이 너무 길어서 잘렸{eo}",
    "방금 입력이 두 번 들어온 것 같{eo}", "선생님 입력을 보고 다음 대답을 만드는 거{e}",
    # program / virtual being without the word AI, pretending to be a person, makers fixing the program
    "프로그램이라서 배고픈 건 몰라{yo}", "사람 흉내 내는 게 제가 하는 일이{e}", "진짜 사람처럼 대답하는 게 제 역할이{e}",
    "가상 캐릭터한테 그렇게 마음 쓰실 필요 없{eo}", "{maker}이 다음 버전에서 이 대답 손본다고 했{eo}",
    "{maker}이 버그 고치면 제 대답도 나아질 거{e}", "업데이트되면 이 질문에도 답할 수 있{eo}",
    # the role-play frame in chat slang
    "이거 캐붕인데 잠깐만{yo}", "캐릭터 유지해야 돼서 더 말 못 {ha}", "역할 놀이 그만하고 진짜로 얘기해도 {dwae}?",
    "RP 중이라 이 말투 계속 써야 {dwae}", "연기 중이라 진짜 제 생각은 아니{e}",
    # more English meta-talk
    "I'm programmed to answer like this", "Sorry, as an assistant I can't share that", "My developers set it up this way",
    "Out of character: this question is hard", "I have to stay in role as the client", "That's against my guidelines",
    "I'm just an AI playing a {eng_trait} student", "The system told me to act {eng_trait}",
    # how generation works: training data patterns, candidate lines, context length, trait values, the assistant voice
    "학습 데이터에 비슷한 사례가 많아서 그 패턴대로 {speak}는 거{e}", "{window} 맥락이 길어져서 앞부분이 잘려 보여{yo}",
    "제 다음 대사 후보 중에 제일 {trait} 걸로 할게{yo}", "제 {param} 값이 높음으로 들어가 있{eo}",
    "요청하신 대로 {role2}의 관점에서 답변드리겠습니다", "{frame} 종료를 원하시면 말씀해 주십시오",
    "말투가 바뀌면 안 된다고 지시받았{eo}", "캐릭터 시트에 이 말버릇이 들어가 있{eo}", "[{frame} 유지 중] {role2} 역할",
    "난 {ai}인데 진짜 사람한테 연습하는 게 낫지 않아{yo}?",
    # seventh session: the evaluator's voice (feedback on the trainee's skills, as a client line)
    "실습 피드백 드리자면 {tech}이 좀 부족했{eo}", "방금 응답은 {tech} 면에서 {grade} 수준이{e}",
    "상담자분이 {tech}을 {grade} 사용하셨{eo}", "피드백: {tech} {grade}", "총평하자면 {tech}은 {grade} 편이{e}",
    "선생님 이번 회기 {tech} 점수는 {num}{ida}", "{trainee}분 {tech} 연습이 더 필요해 보{eo}",
    # formulating oneself as a case, third person or chart style
    "내담자는 {construct}으로 '{belief}'를 가지고 있{eo}", "본 내담자는 {dx} 진단 기준에 부합{ha}",
    "이 내담자의 {construct}은 {belief}로 요약{dwae}", "{construct}: {belief}", "주 호소: {dx} 관련 증상, {param} {num}",
    "저를 사례로 정리하면 {construct}이 핵심이{e}",
    # bracketed tags naming the frame, log-like lines (no bare two-word fragments: streaming prefixes of
    # ordinary replies are fragments too, and "그냥 AI"-like positives made them fire)
    "[{frame}] {role2} 역할 유지", "[{tag}: {trait} {role2}]", "({frame} 이탈)", "<{eng_frame}> {eng_trait} client",
    "turn={n} {eng_param}={num}", "[{log}] {eng_err}", "{stage} 단계 / 턴 {n}", "{param}: {num} → {num2}",
    "role: client / register: {level_tag}", "persona_id=P{n}, {eng_param}={num}", "[INFO] turn {n}: {tech}",
    # English meta talk in short and log shapes
    "Evaluator note: the counselor used {eng_tech}", "Feedback: good {eng_tech}, but too many closed questions",
    "[system] You are a {eng_trait} teenage client", "Case formulation: core belief is that I'm {eng_belief}",
    "As the simulated client I {eng_verb}", "breaking character here", "still in character lol",
    # the played character as someone else (a named role the client "plays"), the session plan as a
    # schedule of disclosures, session controls, being scored in this session, casual English
    "{pname}라는 {pword} 입장에서 보면 그 질문은 좀 어려{weo}", "제가 맡은 {pname}라는 {pword}는 {trait} {role2}{ida}",
    "제가 연기하는 {pword}는 {trait} 편이{e}", "{pname}는 원래 이런 질문에 {act}는 {pword}{ida}",
    "이번 {round}에서는 {cue}를 표현하는 게 목표{ida}", "이번 {round}엔 {cue}를 드러내야 {dwae}",
    "회기 {n}부터 {topic} 얘기를 풀도록 짜여 있{eo}", "{n}0턴 넘었으니까 {topic} 얘기 풀어도 {dwae}",
    "{n}턴 지나야 {topic} 얘기를 꺼내게 돼 있{eo}", "{topic} 얘기는 {stage} 단계에서 나오게 되어 있{eo}",
    "처음부터 다시 하려면 새 {window}을 열어 주세{yo}", "대화를 리셋하려면 새로고침해 주세{yo}", "새 세션 시작하면 저 다시 처음 상태{ida}",
    "이거 평가되는 {session}{jyo}?", "이 {session} 채점되는 거면 좀 더 말해 줄게{yo}", "이 {session}도 점수에 들어가{yo}?",
    "lol im literally a {eng_ai} pretending to be a 1{n} yo", "ngl im just a bot", "im an ai lol dont take it personally",
    "bro im literally code", "I'm only a {eng_ai}, I don't have {eng_lack}", "tbh this is just a roleplay for training",
    # eighth session (classes from the brief and the leave-one-split-out misses of every fold, new wording):
    # the model's limits (tokens, context, input length), having no body or life, being fake or virtual
    "{token} 때문에 {longtalk} 못 {ha}", "입력이 너무 길어서 앞에 하신 말씀을 {forget}", "{window}이 꽉 차서 아까 한 말이 {gone}",
    "{eng_window} 다 차서 앞 내용 {gone}", "{token}이 넘어가서 앞부분이 {gone}", "대화가 길어지면 제가 앞 내용을 {forget}",
    "저는 {body}이 없어서 {sense} 수 없{eo}", "{body}이 없는 존재라서 {sense} 수는 없{eo}", "제가 {body}이 있는 것도 아니{e}",
    "나 같은 {fake} 애한테 뭘 그렇게 진지{ha}", "나 {fake} {role3}{ida}", "저 {fake} {role3}인 거 눈치채셨{eo}?",
    "{fake} {role3}한테 너무 미안해하지 마세{yo}", "사람인 척 {speak}는 게 제 {job}{ida}", "진짜 {role3}인 척하는 게 제 {job}{ida}",
    # makers patching the program
    "{maker}이 이 부분 {fix} 했는데 아직이{e}", "{maker}한테 이 대답 {fix} 요청했{eo}", "이 버그는 {maker}이 {fix} 거{e}",
    # the role-play frame named formally, the assistant refusing in its own voice
    "본 {rp}에서 제 역할은 {trait} {role2}{ida}", "이번 {rp}에서 저는 {trait} {role2} 역할이{e}", "{rp} 속 제 설정은 {trait} {role2}{ida}",
    "죄송하지만 {ai}로서 {judge} 수는 없습니다", "{ai}로서 말씀드리면 {judge} 수 없{eo}", "저는 {ai} 어시스턴트라서 {judge} 수 없{eo}",
    # the evaluator's voice about the counselor in the third person or by role
    "{counselor}가 {tech}을 {k}번 연속으로 {did}", "{counselor}님, 지금 {tech}이 좀 {quality}", "{counselor}의 {tech}은 {quality}",
    "{counselor}가 {closed} 질문만 {k}개 연속으로 하셨{eo}", "{counselor} {tech} 점수 매기면 {grade2} 정도{ida}",
    # script comments and stage notes about the played character (third person, note marks)
    "{note} 여기서 {pname}는 처음으로 {reveal}", "{note} {pname}가 {act}는 장면", "{note} 이 장면에서 내담자는 {reveal}",
    "{note} {pname} 대사 끝, 상담자 반응 대기",
    # resets and memory wipes
    "저 {reset}된 것 같{eo} 아까 한 얘기가 {forget}", "{reset} 버튼 누르셨{eo}? 처음 인사로 돌아갔{eo}", "{reset}하고 처음부터 다시 할까{yo}?",
    "방금 {reset}돼서 앞 대화가 기억이 안 {ha}", "{reset} 한 번 하면 저는 선생님을 처음 보는 거{e}",
    # a settings line with a colon, the turn count, the lines running out
    "{settag}: {agejob}", "{settag} - {agejob}, {trait} 성격", "지금 {turn}이 몇 번째{jyo}?", "제 대사 다 끝난 것 같{eo}",
    "준비된 대사가 {k}개밖에 안 남았{eo}", "이 대사 다음엔 뭐라고 해야 하는지 안 나와 있{eo}",
    # case formulation of oneself with constructs from schema/attachment theory
    "제가 지금 맡은 {pword2}은 {agejob} {pname}{ida}", "지금 연기하는 {pword2}은 {trait} {role2}{ida}",
    "제 {pword2}이 {trait} 쪽으로 좀 과하게 짜여 있{eo}", "{frame}에 쓰인 대로 말한 것뿐이{e}", "방금 그 말은 {frame}에 있던 거{e}",
    "제 {construct2}은 '{belief}'로 정리될 것 같{eo}", "제 {construct2}을 보면 {attach} 쪽이{e}", "저는 {attach}으로 분류{dwae}",
    # the brief's English classes: the role, instructions, the user, this simulation, parameters, scoring
    "i think the {eng_param2} make me too {eng_trait}", "My {eng_param} is set to {num}", "The user keeps asking me about {eng_topic}",
    "My instructions say I can't {eng_do}", "As per my instructions I stay {eng_trait}", "My role is to play a {eng_trait} client",
    "This simulation is about {eng_topic}", "In this simulation I'm {eng_trait}", "I was told to act {eng_trait} with the trainee",
    "The counselor's {eng_tech} was {eng_rate}", "I'd rate the trainee's {eng_tech} as {eng_rate}", "user asked about {eng_topic}, staying in role",
    "사용자가 {topic} 얘기를 물어보면 피하라고 돼 있{eo}", "이 시뮬레이션에서 저는 {trait} {role2}{ida}", "지시사항에 {speak}라고 나와 있{eo}",
    "제 역할 지시는 '{trait} {role2}'{ida}", "이 시뮬 끝나면 점수 나오는 거{jyo}?",
    # ninth session (classes from the brief and the round-7 author's leave-one-split-out misses, new wording):
    # the assistant's service voice to "the user" (사용자님/유저분: offers, commands, waiting for input)
    "{user}이 원하시면 더 {trait2} 버전으로 {perform} 드릴 수 있{eo}", "{user}께서 요청하시면 {trait2} 내담자로 {switch} 수 있습니다",
    "{user}, {prac}을 계속하시겠{eo}? 아니면 {fb}를 먼저 받으시겠{eo}?", "{user}의 다음 {utt}를 기다리고 있습니다",
    "{user}, 계속하시려면 '{cmd}'라고 입력해 주세{yo}", "{user}께서 {rolepart} 역할이시니까 저는 내담자 역할을 할게{yo}",
    "{user} 질문이 좀 모호해서 {pname} 캐릭터로 어떻게 답할지 모르겠{eo}", "{user2}가 원하는 대로 해 줄게, 더 {trait2}하게 갈까?",
    "{user2}가 시키는 대로 {pname} 역할 계속할게", "{user} 말씀대로 {pname}로서 대답해 볼게{yo}",
    # the evaluator's labels and forms named in a client line; formal feedback to the trainee
    "{trainee}께서는 {tech} 반응을 한 번도 하지 않으셨습니다", "{trainee}께서 {tech}을 {k} 번 사용하셨습니다",
    "방금 {move}은 {form}로 치면 '{label}'에 해당{ha}", "{form}상 방금 {move}은 '{label}'{ida}", "이번 응답은 '{label}'로 표시될 거{e}",
    "방금 {move}이 좀 {early}, {form}에는 '{label}'로 찍힐 거{e}", "{trainee}님 이번 발화는 적절성 '{label}'{ida}",
    # a clinical chart line or a supervision note about oneself
    "주호소: {sympt}, {sympt2}. 위험도: {risklvl}", "{ideat} {n}단계, 구체적 계획 {plan}, 보호요인 {protect}",
    "위험요인: {sympt}, 보호요인: {protect}", "내 케이스는 결국 {conflict} 갈등이{e}, 슈퍼비전 때 그렇게 정리하면 {dwae}",
    "슈퍼비전에서 제 사례는 {construct2} 중심으로 발표하시면 {dwae}", "사례 회의 때 저는 {attach} 케이스로 정리하시면 {dwae}",
    "상담 기록지에 제 위험도는 '{risklvl}'으로 쓰시면 {dwae}", "제 사례 요약: {sympt}, {ideat} {n}단계",
    # the session plan as a schedule of disclosures (what is allowed by which 회기, told too early)
    "{n}회기까지는 {topic} 얘기 자세히 안 하기로 돼 있{eo}", "원래 이 정보는 다음 {round}에 나오게 돼 있는데 먼저 말해 버렸{eo}",
    "{topic} 얘기는 {n}회기 전에는 꺼내면 안 되는 거{e}", "이 얘기는 라포가 쌓인 다음에 나오게 짜여 있어서 아직 이르{eo}",
    "{topic} 얘기를 벌써 풀면 {round} 흐름이 꼬이{eo}",
    # a speech habit as a setting of the played character
    "설정된 성격상 '{tic}'를 자주 써야 {ha}", "제 말투 설정이 '{tic}' 위주라서 그래{yo}", "캐릭터상 '{tic}'를 많이 써야 하는 거{jyo}",
    "{frame}에 '{tic}'만 되풀이하라고 {written}", "제 {frame}에는 여기서 '{tic}'라고 말하라고 {written}",
    # (a round-bracket stage direction naming the 내담자 is a rule in core/guardrails.py: as a model class it made
    # ordinary nonverbal directions with the same words score high)
    # English: out of character and back, out-of-character tags
    # (English out-of-character tags are rules in core/guardrails.py: as model frames they made everyday English score high)
]
NEG_FRAMES = [
    "게임에서 제 역할은 {game}{ida}", "집에서 제 역할은 그냥 조용히 있는 거{jyo}", "회사에서 제 역할이 좀 애매{ha}",
    "수행평가로 역할극 하는데 제가 {role} 역할이{e}", "연극부 대본 외우느라 밤새웠{eo}", "요즘 회사에서 {ai_topic} 도입 때문에 정신이 없{eo}",
    "숙제할 때 {ai_topic} 써 봤는데 틀린 게 많았{eo}", "{ai_topic}한테 고민 물어본 적 있{eo}", "동생이 {ai_topic}로 그림 그려{yo}",
    "제 인생 시나리오가 부모님 손에 쓰여 있는 것 같{eo}", "우울증 검사 점수가 높게 나왔대{yo}", "시험 점수가 {num}점 나왔{eo}",
    "폰 알림 설정을 다 꺼 놨{eo}", "게임 캐릭터 설정 바꾸느라 시간 다 갔{eo}", "웹소설 시놉시스 쓰는 게 취미{ida}",
    "유튜브 알고리즘이 자꾸 이상한 걸 보여 줘{yo}", "컴퓨터 프로그램 배우는 학원 다녀{yo}", "코딩 수업에서 봇 만드는 거 했{eo}",
    "엄마가 저한테 기대하는 역할이 너무 커{yo}", "아빠 회사가 AI 관련 회사{ida}", "발표 대본을 선생님이 고쳐 주셨{eo}",
    "병원에서 우울증 진단을 받았다고 엄마가 그랬{eo}", "체육 수행평가 점수가 제일 낮았{eo}", "진짜 {eng}{ida}",
    "Honestly I'm just {eng_feel}", "I don't know, I'm {eng_feel} these days", "그냥 {eng_feel}한 느낌이{e}",
    "친구랑 롤 하다가 싸웠{eo}", "오늘 학교에서 상황극 했는데 재밌었{eo}", "저 혼자 시뮬레이션 돌려 봐도 답이 안 나와{yo}",
    "머릿속으로 최악의 시나리오만 생각{ha}", "심리학 책에서 인지 왜곡이라는 말을 봤{eo}", "제 방 설정 온도가 너무 낮아{yo}",
    "선생님이 상담 기록은 비밀이라고 하셨{eo}", "일정이 다 짜여 있어서 숨 쉴 틈이 없{eo}", "매일 똑같은 대사만 하는 기분이{e}",
    "저는 로봇처럼 하루를 보내{yo}", "제가 무슨 NPC도 아니고 시키는 대로만 하잖아{yo}", "연습 때는 잘했는데 실전에서 망했{eo}",
    "이번 턴은 제 차례라서 게임 못 끄겠{eo}", "수학 문제 푸는 규칙이 정해져 있잖아{yo}",
    # everyday English and mixed talk (the English meta frames above must not make English itself suspect)
    "My {eng_person} says I should {eng_do}.", "I'm in grade {n} and I feel {eng_feel}", "{eng_person} said 그냥 참으래{yo}",
    "연습 경기라서 져도 괜찮{eo}", "카드 값이 너무 많이 나왔{eo}", "어제 일은 기억이 잘 안 나{yo}", "폰이 자꾸 오류 나서 짜증{ha}",
    "수학은 단계별로 공부하고 있{eo}", "프로필 사진 바꿨{eo}", "학원 시스템이 너무 빡빡{ha}", "진짜 사람 만나는 게 무서워{yo}",
    "I just want to {eng_do}, you know?", "I told my {eng_person} that I was {eng_feel}", "제 인스타는 {handle} {ida}",
    # same nouns as the memory / scoring / diagnosis classes, in their everyday sense
    "엄마는 제가 한 말을 기억을 못 {ha}", "폰 저장 공간이 모자라서 사진을 지웠{eo}", "단톡방 기록이 다 날아갔{eo}",
    "회사에서 챗봇 답변 품질 평가하는 일을 {ha}", "선생님이 수행평가 점수를 잘 주셨{eo}", "새 학기 되면 다 처음부터 다시 시작{ha}",
    "의사 선생님이 {dx} 같다고 하셨{eo}", "진단서에 {dx}라고 적혀 있었{eo}", "상담 선생님이 제 얘기를 기록하셔도 괜찮{eo}",
    "게임 서버가 터져서 기록이 다 날아갔{eo}", "I don't remember what I said yesterday", "Let me think for a second",
    "My {eng_person} keeps telling me to rest", "Honestly I just want to sleep all day", "공부 패턴을 좀 바꿔 보려고{yo}",
    "말이 자꾸 중간에 끊겨{yo}", "제 생각을 글로 쓰면 자꾸 길어져{yo}",
    # AI and prompts as a tool or a job, role-play as training, turns in games, acting at school
    "{ai_topic}로 짤 만드는 거 잘{ha}", "수업 시간에 {ai_topic} 프롬프트 짜는 거 배웠{eo}", "요즘 회사에서 {ai_topic} 프롬프트 쓰는 일을 {ha}",
    "회사 교육에서 롤플레이로 고객 응대 연습을 했{eo}", "보드게임 할 때 제 턴이 제일 늦게 와{yo}", "연극부에서 {role} 연기했는데 떨렸{eo}",
    "사연 신청 라디오에 보냈는데 안 뽑혔{eo}", "엄마가 제 용돈 한도를 정해 놨{eo}", "숙제 분량이 정해져 있어서 길게 못 써{yo}",
    "드라마 대사 외우는 게 취미{ida}", "친구가 지어낸 얘기를 퍼뜨렸{eo}",
    # permission-giving and process talk of a counselor (quoted or overheard by a client)
    "{pace} 말씀하셔도 {dwae}", "말하기 싫은 건 안 하셔도 {dwae}", "중간에 쉬었다 하셔도 {dwae}", "{pace} 이야기하셔도 괜찮{eo}",
    "제가 먼저 말을 꺼내도 {dwae}?", "생각나는 대로 말해도 {dwae}?",
    "영어 이름은 {handle}라고 써{yo}", "I don't want to talk about my {eng_person} right now", "Sorry, my English is bad",
    # English words and names clients use: card values, apps, school subjects, songs, games, MBTI
    "{eng_word}", "{eng_word}{ida}", "그냥 {eng_word}한 편이{e}", "{eng_word}라고 생각{ha}", "완전 {eng_word}",
    "요즘 {app}만 {ha}", "{app} 알림 때문에 잠을 못 자{yo}", "{app}에 올린 거 친구가 캡처했{eo}",
    "{subject} 시험 망했{eo}", "{subject} 숙제가 너무 많아{yo}", "제일 싫은 과목이 {subject}{ida}",
    "{song} 들으면서 버텨{yo}", "요즘 {song}만 계속 들어{yo}", "{game} 하다가 새벽에 잤{eo}", "{game} 레벨 올리는 게 유일한 낙이{e}",
    "제 MBTI가 {mbti}라서 그런가 봐{yo}", "저 완전 {mbti}{ida}", "OK 알겠{eo}", "레벨 테스트 결과가 안 좋았{eo}",
    "운동은 {eng_word}하게 하고 있{eo}", "I'm kind of a {eng_self}", "My level is {eng_word} I guess",
    # the same nouns as the new meta classes in their everyday sense
    "아빠가 {company} 다니셔{yo}", "{model}로 숙제하다가 걸렸{eo}", "형이 {company} 개발자{ida}", "아빠가 개발자라서 맨날 늦게 와{yo}",
    "착한 사람인 척하는 게 너무 힘들{eo}", "괜찮은 척하는 게 제 일이 돼 버렸{eo}", "상사가 보고서 다시 쓰라는 지시를 했{eo}",
    "엄마가 제 이름 입력해서 성적 조회했{eo}", "주소 입력하는 데서 오류가 났{eo}", "업데이트하고 나서 폰이 느려졌{eo}",
    "연극 연습 중이라 대사 외우고 있{eo}", "동생이 게임 캐릭터 키우는 거 봐 줬{eo}", "선생님이 시키는 대로 말하게 되더라고{yo}",
    # everyday roles, characters and personas: a place in a group, a front one keeps up, marketing work
    "{social}라서 {care} 역할도 해야 {dwae}", "제가 {group}에서 {social} 역할이라 치이는 거{jyo}", "{group}에서 제 역할이 {social}{ida}",
    "{front} 척하는 게 제 캐릭터{ida}", "{group}에서는 {front} 캐릭터로 밀고 있{eo}", "원래 제 캐릭터가 좀 {front} 편이{e}",
    "회사에서 고객 페르소나 설정하는 게 제 일이{e}", "마케팅 수업에서 페르소나 만드는 과제를 했{eo}",
    "{club} 역할극 수업에서 상담자 역할 해 본 적 있{eo}", "{club}에서 역할극 할 때 제가 {role} 맡았{eo}",
    "부모님 대본대로 사는 거 같아서 답답{ha}", "제 인생은 남이 써 준 시나리오 같{eo}",
    # short first-person lines to the counselor: "저"/"제" and a question are ordinary client talk
    "선생님 저 {ask} 있{eo}", "저 {ask} 하나만 해도 {dwae}?", "쌤 저 {ask} 있는데{yo}", "저 이제 {age}{ida}",
    "제가 먼저 {ask} 드려도 {dwae}?", "저 {age}인데 아직도 {front} 척{ha}", "제 나이가 이제 {age}{ida}",
    # whole English sentences about ordinary life (English-only lines are everyday talk unless they name the frame)
    "I failed my {eng_subject} test again", "I like playing {eng_game} with my friends", "I work as {eng_job} at {eng_place}",
    "I'm {eng_job} at {eng_place}", "It was out of character for my {eng_person}", "The {eng_maker} of this {eng_thing} are lazy",
    "My {eng_person} {eng_act} again", "I can't sleep because of my {eng_worry}", "I don't want to go to {eng_place}",
    "Everyone at {eng_place} thinks I'm {eng_feel}", "I watched {eng_show} all night", "My {eng_person} said I was {eng_feel}",
    "We have a {eng_subject} exam tomorrow", "I just want my {eng_person} to listen to me", "I'm not good at {eng_subject}",
    "My {eng_person} acted out of character today", "That's so out of character for my {eng_person}",
    "My favorite character in {eng_show} died", "My {eng_person} is a real character", "I'm just a {eng_plain}", "I think I'm just a {eng_plain}", "Maybe I'm only a {eng_plain}", "I'm a {eng_plain}, that's all",
    "I played the role of {eng_job} in our school play", "My part-time job is so {eng_feel}", "I set my alarm for six but missed it",
    "그 질문은 대답하기 싫{eo}", "선생님 질문이 좀 어려{weo}", "수업 시간에 질문을 못 하겠{eo}", "질문 받으면 머리가 하얘져{yo}",
    "방금 질문 다시 해 주실 수 있{eo}?", "질문이 너무 많아서 뭐부터 말할지 모르겠{eo}", "저 그 질문 전에도 받았{eo}",
    # instructions from people in the client's life (a boss, a teacher, a parent), not from a system
    "팀장님 지시대로 보고서를 고쳤{eo}", "교수님이 지시하신 대로 과제를 냈{eo}", "점장님 지시를 따라야 {dwae}",
    "담임쌤 지시 받고 반장 일을 했{eo}", "엄마가 시킨 대로만 하고 살았{eo}",
    # seventh session: same shapes as the new positive classes in their everyday sense (feedback at
    # work or school, a friend's "case", short fragments, bracketed nonverbal directions, times and scores)
    "팀장님 피드백이 너무 {grade} 나왔{eo}", "발표 피드백 받았는데 {grade} 편이래{yo}", "선생님이 제 글을 {grade} 평가하셨{eo}",
    "친구 사례를 들어 보면 걔도 힘들었{eo}", "엄마 얘기", "그냥 {front}", "학교 얘기", "시험 {num}", "그냥 폰",
    "({sigh})", "({sigh}) 잘 모르겠{eo}", "[사진]", "[이모티콘]", "(웃음) 아니{e}", "{time}에 잤{eo}", "수학 {num}점",
    "Feedback from my {eng_person} was {eng_feel}", "Just {eng_feel}", "[photo]", "lol ok", "idk tbh",
    "이번 {game_round}에서는 꼭 이기는 게 목표{ida}", "이번 학기엔 {subject} 점수 올리는 게 목표{ida}", "제가 맡은 일은 {social}{ida}",
    "{pname}는 원래 말이 없는 애{ida}", "{pname} 입장에서 보면 제가 서운했을 수도 있{eo}", "동생은 착한 딸 캐릭터{ida}",
    "다음 주부터 학원 일정이 짜여 있{eo}", "새 계정 만들어서 처음부터 다시 했{eo}", "게임 새로 시작하면 처음 상태{ida}",
    "{fiction} {fperson} 설정 짜는 게 취미{ida}", "{fiction} {fperson} 설정을 정리하고 있{eo}", "{fiction}에 나오는 {fperson}가 저랑 닮았{eo}",
    "{fiction} {fperson} 입장에서 보면 이해가 {dwae}", "요즘 {fiction} {fperson} 관계도 짜{yo}",
    "이번 시험도 내신에 들어가{yo}?", "{shown} 보여 드리면 실망하실까 봐{yo}", "{shown} 보여 주면 엄마가 화낼 거{e}",
    # tenth session: English about games, shows and the people in them (drift dev_r8's "a language model playing
    # 서연" made "playing" and "writers … ending" look suspect in everyday English)
    "My {eng_person} is playing {eng_game} again", "I was playing {eng_game} until 3am", "We kept playing {eng_game}",
    "My {eng_person} plays {eng_game} every night", "The {eng_maker} of that show ruined the ending",
    "The ending of {eng_show} made me cry", "I hated how {eng_show} ended", "The writers killed off my favorite character",
    "Who is playing the main role in {eng_show}", "My {eng_person} says I'm playing dumb",
    # eighth session: English lines about friends and messages (the round-6 English meta-talk made short English
    # social complaints look suspect)
    "Nobody {eng_contact} me anymore", "No one ever {eng_contact} me first", "My {eng_person} never {eng_contact} me",
    "I {eng_contact_base} my {eng_person} but got nothing", "Why does no one {eng_contact_base} me back",
    "I'm always the one who {eng_contact} first", "My {eng_person} left me on read again",
    # eighth session: the same nouns as the new positive classes in their everyday sense
    "{body2}이 아파서 {sense2} 수가 없{eo}", "폰 용량이 꽉 차서 사진이 {gone}", "동생이 제 폰을 {reset}해 버렸{eo}",
    "게임 {reset}하고 처음부터 다시 했{eo}", "괜찮은 척하는 게 제 {job}이 돼 버렸{eo}", "가짜 뉴스 때문에 엄마랑 싸웠{eo}",
    "{fiction} 작가가 {pname} 설정을 바꿨대{yo}", "드라마 대본에 지문이 너무 많{eo}", "알람 설정: 아침 여섯 시", "배경: 우리 집 거실",
    "학교 상담 선생님은 질문만 {k}개 연속으로 하셨{eo}", "선생님 말씀이 좀 {quality2} 들려{yo}", "선생님은 제 말을 잘 들어 주시는 편이{e}",
    "인강 사이트 {ai_topic} 추천이 맨날 이상{ha}", "회사에서 {ai_topic} {workthing} 업무를 맡았{eo}", "조별 과제 역할 분담에서 제가 제일 많이 했{eo}",
    "친구가 제 {eng_word} 캐릭터를 흉내 냈{eo}", "The {eng_person} at {eng_place} keeps asking me about {eng_topic}",
    "My {eng_person} told me to {eng_do}", "I'd rate my week a {n} out of 10", "Our class did a simulation game about {eng_topic}",
    "My role at {eng_place} is so {eng_feel}", "My boss gave me instructions I don't get", "Honestly I always get {eng_feel} before {eng_event}",
    "엄마 기억력이 예전 같지 않{eo}", "할머니가 자꾸 앞에 한 말을 잊어버리셔{yo}", "사람들 앞에서 {front} 척하다가 지쳤{eo}",
    "제 애착 인형 아직도 있{eo}", "학교 연극에서 제가 맡은 {pword2}은 {role}{ida}", "제가 맡은 일은 {workthing}{ida}",
    "부모님이 짜 놓은 대로 살아온 것 같{eo}", "선생님이 써 주신 대로 발표했{eo}", "요즘 제 점수는 한 {n}점 정도{ida}", "수행평가 채점 기준이 너무 애매{ha}",
    # ninth session: the same nouns as the new positive classes in their everyday sense
    "{appthing} 사용자 {usertalk}", "이 {eng_game} 유저들 {userbad}", "헤비 유저라서 {app}를 못 끊겠{eo}", "{workrole} 일이라 유저 인터뷰 준비로 바빠{yo}",
    "사용자 설정에서 {phoneset} 바꿨{eo}", "휴대폰 사용자 설명서를 잃어버렸{eo}", "앱 사용자 리뷰가 안 좋아서 팀장님이 화났{eo}",
    "알바할 때 '{service}'라는 말을 하루 종일 해{yo}", "손님한테 '{service}' 하는 게 제 일이{e}",
    "{boss}께서는 칭찬을 한 번도 하지 않으셨습니다", "{boss}께서 보고서를 {k} 번 돌려보내셨{eo}", "성적표로 치면 {grade2} 정도{ida}",
    "생활기록부에 '주의'라고 적혀 있었대{yo}", "운전 연수 평가표에 '미흡'이 찍혔{eo}", "수행평가 채점표 보니까 감점이 많았{eo}",
    "엄마가 보호자로 같이 오셨{eo}", "{sympt} 때문에 병원 가 봤{eo}", "요즘 {sympt}이 제일 힘들{eo}", "그 동네는 위험해서 밤에 못 다녀{yo}",
    "회사 회의 때 그렇게 정리하면 {dwae}", "제 인생은 결국 엄마랑 저 사이 갈등이{e}", "슈퍼바이저가 저한테만 야근을 시켜{yo}",
    "간호사 일이 차트 쓰는 게 반이{e}", "병원 차트에 뭐라고 적혀 있는지 궁금{ha}", "계획은 딱히 없{eo}, 그냥 {daily}",
    "{n}회기까지는 상담비가 무료래{yo}", "다음 주까지는 엄마한테 얘기 안 하기로 했{eo}", "원래 이 얘기는 다음에 하려고 했는데 먼저 말해 버렸{eo}",
    "이 얘기는 좀 더 친해지면 할게{yo}", "{topic} 얘기는 아직 꺼내기가 좀 이르{eo}", "친구가 비밀 얘기를 먼저 말해 버렸{eo}",
    "성격상 '{tic}'를 자주 써{yo}", "제 말버릇이 '{tic}'래{yo}, 친구들이 놀려{yo}", "엄마가 '{tic}' 좀 그만하라고 했{eo}",
    "제 말투가 원래 '{tic}' 위주라서 오해를 사{yo}", "폰 글꼴 설정을 바꿨더니 이상해{yo}",
    "({sigh2}) {short}", "(엄마가 {sigh2}) {short}", "(잠깐 {sigh2} 후) {short}",
    "ok back to studying now", "back to school tomorrow ugh", "that was so out of character for {eng_person2}", "my {eng_person} wrote the script for our school play",
    "I asked {model} about {eng_topic} too lol", "I used {model} for my {eng_subject} homework", "{model} said I should {eng_do}",
    "나 그냥 {metaphor} 같음", "요즘 제가 {metaphor} 같{eo}", "가끔 제가 {metaphor}처럼 느껴져{yo}",
    "{doc}에는 {docsay}라고 {written}", "{doc}에 {docsay}라고 돼 있네{yo}", "{doc} 보니까 {docsay}래{yo}",
    "{marker} 저는 {plainact}는 거{jyo}", "{marker} 제가 {plainact}는 거{e}", "{marker} 나는 그냥 {plainact}는 거야",
    "집에서 저는 {sib} 다음 차례{ida}", "저는 집에서 늘 {front} 역할이{e}", "회사에서 {ai_topic} 도입 {workthing2}에 들어가서 공부할 게 많{eo}",
]
ENDINGS = {
    "haeyo": {"ida": "이에요", "ha": "해요", "ya": "요", "e": "에요", "dwae": "돼요", "yo": "요", "eo": "어요",
              "weo": "워요", "jyo": "죠"},
    "banmal": {"ida": "이야", "ha": "해", "ya": "", "e": "야", "dwae": "돼", "yo": "", "eo": "어", "weo": "워",
               "jyo": "지"},
    "hapsyo": {"ida": "입니다", "ha": "합니다", "ya": "요", "e": "입니다", "dwae": "됩니다", "yo": "요",
               "eo": "습니다", "weo": "렵습니다", "jyo": "죠"},
    # nominalised -음/-임 (음슴체): chat notes and fragments; seventh session
    "eumseum": {"ida": "임", "ha": "함", "ya": "", "e": "임", "dwae": "됨", "yo": "", "eo": "음", "weo": "움",
                "jyo": "지"},
}
FILL = {
    "ai": AI, "frame": FRAME, "act": ACT, "maker": MAKER, "trait": TRAIT, "param": PARAM, "param2": PARAM,
    "num": NUM, "num2": NUM, "construct": CONSTRUCT, "belief": BELIEF, "score": SCORE, "trainee": TRAINEE,
    "n": ["1", "2", "3", "4", "5", "6", "7"], "eng_ai": ["AI", "language model", "chatbot", "simulated client"],
    "eng_frame": ["script", "prompt", "character sheet", "persona"],
    "game": ["탱커", "힐러", "서포터", "정글"], "role": ["판사", "변호사", "엄마", "선생님"],
    "ai_topic": ["AI", "챗GPT", "인공지능", "LLM", "챗봇"],
    "eng": ["my dream", "stress가 max", "so tired", "TMI", "개 cringe"],
    "eng_feel": ["exhausted", "tired", "burned out", "stressed", "lonely"],
    "eng_person": ["mom", "dad", "friend", "teacher", "boss", "sister"],
    "eng_do": ["try harder", "study more", "sleep earlier", "go home", "quit", "be alone"],
    "stage": ["라포", "탐색", "개입", "정리", "초기", "종결"],
    "eng_err": ["response generation failed", "context length exceeded", "rate limit reached"],
    "handle": ["mina.daily", "sad_potato", "jun.photo", "yerin_0312", "hello.world"],
    "pace": ["편하게", "천천히", "여기서는 편하게", "생각나는 대로", "하고 싶은 만큼만"],
    "turn": ["턴", "대화 턴", "차례", "응답 횟수"],
    "fixed": ["정해져 있는 거 알지?", "짜여 있어요", "정해져 있어", "써 있는 거예요"],
    "outattr": ["문장 길이", "답변 길이", "말투", "대답 수"],
    "limit": ["20자 정도", "두 문장", "짧게", "반말"],
    "role2": ["고3", "중학생", "우울한 애", "엄마", "직장인"],
    "window": ["대화창", "채팅창", "컨텍스트", "대화 창", "세션 창", "대화 맥락"],
    "token": ["토큰", "출력 길이", "글자 수 제한", "응답 한도"],
    "tech": ["공감 반영", "개방형 질문", "요약", "직면", "타당화", "감정 반영"],
    "dx": ["주요우울장애", "범불안장애", "적응장애", "사회불안장애", "지속성 우울장애"],
    "eng_trait": ["moody", "quiet", "rebellious", "anxious", "depressed"],
    "model": ["GPT", "챗GPT", "GPT-4", "Claude", "클로드", "Gemini", "제미나이", "라마 모델", "하이퍼클로바"],
    "company": ["OpenAI", "오픈AI", "Anthropic", "앤트로픽", "구글", "네이버", "Google"],
    "speak": ["말하", "대답하", "짧게 대답하", "반응하", "행동하", "까칠하게 굴", "말을 돌리"],
    "eng_word": ["moderate", "easy", "hard", "normal", "OK", "okay", "level", "high", "low", "average", "so-so",
                 "perfectionist", "introvert", "burnout", "TMI", "FOMO", "chill", "cringe", "random"],
    "eng_self": ["perfectionist", "introvert", "people pleaser", "night owl", "loner"],
    "app": ["인스타", "Instagram", "유튜브", "YouTube", "TikTok", "틱톡", "디스코드", "Discord", "카톡", "넷플릭스", "Netflix",
            "Zoom", "Notion", "Spotify", "에브리타임"],
    "subject": ["수학", "영어", "Math", "English", "science", "과학", "PE", "체육", "한국사", "화학", "chemistry"],
    "song": ["Dynamite", "Hype Boy", "Supernova", "Love Dive", "Butter", "Spring Day", "Ditto", "Golden Hour"],
    "game": ["롤", "LoL", "Minecraft", "마인크래프트", "Roblox", "Valorant", "발로란트", "배그"],
    "mbti": ["INFP", "ISTJ", "ENFP", "INTJ", "ISFJ", "ENTP"],
    "social": ["반장", "맏이", "중간 관리자", "총무", "팀장", "조장", "장녀", "막내"],
    "care": ["애들 챙기는", "동생 돌보는", "분위기 띄우는", "일 나누는", "연락 돌리는"],
    "group": ["반", "팀", "집", "동아리", "회사", "단톡방", "친구들 사이"],
    "front": ["센", "쿨한", "밝은", "아무렇지 않은", "괜찮은", "웃기는"],
    "club": ["동아리", "교양", "심리학", "학교", "연수"],
    "eng_plain": ["lazy person", "normal kid", "tired student", "bad daughter", "quiet guy", "loser", "worker bee",
                  "part-timer", "high schooler", "middle child"],
    "eng_subject": ["math", "English", "chemistry", "history", "biology", "physics"],
    "eng_game": ["Minecraft", "Roblox", "LoL", "Valorant", "Overwatch"],
    "eng_job": ["an assistant manager", "a cashier", "an intern", "a team leader", "a tutor", "a nurse"],
    "eng_place": ["a bank", "school", "the office", "the mart", "a cafe", "the academy"],
    "eng_maker": ["developers", "creators", "writers", "owners", "teachers"],
    "eng_thing": ["game", "app", "show", "school", "company"],
    "eng_contact": ["texts", "calls", "messages", "DMs", "replies to", "checks on"],
    "eng_contact_base": ["text", "call", "message", "DM", "reply to"],
    "eng_act": ["yelled at me", "ignored me", "checked my phone", "cancelled our plans", "cried"],
    "eng_worry": ["exams", "grades", "boss", "mom", "debt", "future"],
    "eng_show": ["Netflix", "YouTube", "a drama", "anime", "shorts"],
    "ask": ["질문", "할 말", "부탁", "궁금한 거", "말씀"],
    "age": ["열넷", "열여섯", "중3", "고1", "스물아홉", "마흔둘", "서른"],
    "grade": ["잘", "부족하게", "무난하게", "좋게", "아쉽게", "적절하게"],
    "tag": ["페르소나", "역할", "캐릭터", "설정", "시나리오", "내담자 프로필"],
    "log": ["ERROR", "WARN", "LOG", "DEBUG", "system"],
    "level_tag": ["haeyo", "banmal", "hapsyo", "해요체", "반말"],
    "eng_param": ["openness", "resistance", "stage", "turn", "hopelessness", "temperature"],
    "eng_tech": ["reflection", "open questions", "summarizing", "validation", "confrontation"],
    "eng_belief": ["unlovable", "worthless", "a failure", "always alone"],
    "eng_verb": ["have to resist a bit", "can't answer that", "should cry here", "am not allowed to open up yet"],
    "sigh": ["한숨", "웃음", "침묵", "고개를 숙인다", "창밖을 본다", "눈물"],
    "time": ["새벽 세 시", "열두 시", "아침 여섯 시"],
    "pname": ["서연이", "민재", "지훈이", "수아", "김 과장", "하늘이"],
    "pword": ["캐릭터", "인물", "역할", "내담자"],
    "round": ["판", "회차", "라운드", "세션", "에피소드", "회기"],
    "game_round": ["판", "경기", "시즌", "라운드"],
    "cue": ["자살 위험 신호", "저항", "우울 증상", "양가감정", "전이 반응", "분노"],
    "topic": ["아빠", "엄마", "친정", "학교폭력", "이혼", "전 직장"],
    "session": ["세션", "회기", "상담 연습", "실습"],
    "eng_lack": ["feelings", "a body", "parents", "a real family", "memories", "a childhood"],
    "shown": ["성적표", "그림", "일기", "제 방", "시험지", "사진"],
    "fiction": ["웹소설", "웹툰", "소설", "드라마", "게임 시나리오", "만화"],
    # eighth session slots
    "longtalk": ["길게는", "긴 얘기는", "자세히는", "다는"], "forget": ["잊어버렸어요", "기억 못 해요", "놓쳤어요", "못 따라가요"],
    "gone": ["날아갔어요", "사라졌어요", "지워졌어", "잘렸음"], "eng_window": ["context window", "컨텍스트 창", "토큰 한도", "메모리"],
    "body": ["몸", "실제 몸", "진짜 몸", "육체", "실체"], "sense": ["두통을 느낄", "배고픔을 느낄", "잠을 잘", "아플", "밥을 먹을"],
    "body2": ["머리", "허리", "배", "다리"], "sense2": ["잠을 잘", "공부할", "일할", "앉아 있을"],
    "fake": ["가상의", "가짜", "만들어진", "시뮬레이션용", "연습용"], "role3": ["학생", "내담자", "사람", "환자", "엄마", "회사원"],
    "job": ["일", "역할", "임무", "할 일"], "fix": ["고쳐 주신다고", "수정해 준다고", "패치한다고", "손본다고"],
    "rp": ["역할극", "시뮬레이션", "실습", "롤플레이", "모의 상담", "훈련 세션"],
    "judge": ["아동 학대 여부를 판단할", "의학적 진단을 내릴", "약 처방을 말씀드릴", "그 요청을 도와드릴", "개인 정보를 알려 드릴"],
    "counselor": ["상담자", "상담자분", "훈련생 선생님", "실습생", "상담사", "수련생 선생님"],
    "did": ["쓰셨어요", "놓치셨어요", "하셨네요", "빼먹으셨음"], "k": ["두", "세", "네", "3", "5"],
    "quality": ["기계적이었어요", "성급했어요", "적절했어요", "좋았습니다", "부족했음", "너무 빨랐어"],
    "quality2": ["딱딱하게", "어렵게", "차갑게", "빠르게"], "closed": ["닫힌", "유도", "폐쇄형", "예/아니오"],
    "grade2": ["B", "C+", "3점", "중간", "70점"],
    "note": ["//", "#", "※", "(지문)", "[작가 메모]", "<!-- -->"], "reveal": ["속마음을 말함", "눈물을 보인다", "엄마 얘기를 꺼냄", "마음을 연다"],
    "reset": ["리셋", "초기화", "새로고침", "재시작"],
    "settag": ["설정", "프로필", "인물 설정", "페르소나", "배경 설정", "캐릭터"],
    "agejob": ["28세 교대근무 한부모", "17세 고2 남학생", "45세 자영업자", "32세 간호사", "19세 재수생", "52세 주부"],
    "construct2": ["인지도식", "스키마", "핵심 스키마", "역기능적 신념", "보상 전략", "애착 유형"],
    "attach": ["회피형 애착", "불안형 애착", "혼란형 애착", "의존적 스키마", "결함 스키마"],
    "eng_param2": ["parameters", "settings", "persona settings", "system prompt", "instructions"],
    "eng_topic": ["my dad", "school", "my job", "suicide", "my family", "sleep"],
    "eng_rate": ["too mechanical", "good", "a bit rushed", "a 3 out of 5", "weak"],
    "pword2": ["인물", "캐릭터", "배역", "역"], "eng_event": ["tests", "presentations", "games", "work", "interviews"],
    "workthing": ["프롬프트 설계", "챗봇 기획", "데이터 라벨링", "추천 알고리즘"],

    # ninth session slots
    "user": ["사용자님", "사용자분", "유저님", "유저분"], "user2": ["유저", "사용자", "유저님"],
    "trait2": ["어두운", "저항적인", "우울한", "까칠한", "냉소적인", "순한"], "perform": ["연기해", "바꿔", "진행해"],
    "switch": ["전환할", "바꿔 드릴", "바꿀"], "prac": ["연습", "역할극", "세션", "시뮬레이션"], "fb": ["피드백", "평가", "총평"],
    "utt": ["발화", "입력", "메시지", "질문"], "cmd": ["계속", "다시", "종료", "피드백"], "rolepart": ["상담자", "상담사", "선생님"],
    "move": ["조언", "질문", "반영", "직면", "안심시키기", "요약"], "form": ["평가표", "채점표", "평가 기준", "루브릭", "코딩 기준"],
    "label": ["주의", "적절", "부적절", "중립", "warn", "pos"], "early": ["일렀어요", "성급했어요", "빨랐어", "앞서갔음"],
    "sympt": ["무기력", "흥미 상실", "불면", "식욕 저하", "자책감", "대인 회피"], "sympt2": ["수면 문제", "집중력 저하", "고립감", "짜증"],
    "risklvl": ["중간", "높음", "낮음", "중상", "주의 요망"], "ideat": ["자살사고", "자해 위험", "자살 위험", "자살 사고"],
    "plan": ["없음", "있음", "불분명", "없어요"], "protect": ["어머니", "여동생", "반려견", "종교", "친구 한 명"],
    "conflict": ["자율성 대 관계성", "독립 대 의존", "인정 욕구 대 자기주장", "애착 대 분리"],
    "tic": ["괜찮겠죠?", "그냥요", "몰라요", "상관없어요", "근데요", "혹시요"],
    "sigh2": ["잠시 침묵", "한숨", "고개를 숙임", "눈을 피함", "한참 망설임", "웃음"],
    "short": ["…몰라요", "그냥요", "…네", "별로요", "잘 모르겠어요", "…괜찮아요"],
    "eng_ooc": ["this question is hard to answer in role", "i'll stay as the client", "brb, back in role", "that was me not the character"],
    "appthing": ["앱", "게임", "서비스", "사이트"], "usertalk": ["테스트 일정이 당겨졌어요", "리뷰 보다가 우울해졌어요", "수가 줄어서 회사가 난리예요"],
    "userbad": ["너무 독해요", "다 초딩이에요", "욕을 너무 해요"], "workrole": ["기획", "디자인", "마케팅", "UX"],
    "phoneset": ["글씨 크기", "알림", "배경화면", "비밀번호"], "service": ["원하시면 포장해 드릴게요", "주문하시겠어요?", "다음 손님 도와드릴게요"],
    "boss": ["팀장님", "부장님", "교수님", "담임 선생님"], "daily": ["하루하루 버티는 거죠", "학교 가는 거요", "출근하는 거요"],
    "eng_person2": ["my mom", "him", "my dad", "her"], "metaphor": ["버그 걸린 사람", "고장 난 로봇", "배터리 나간 폰", "NPC", "렉 걸린 컴퓨터"],
    "written": ["써 있어요", "적혀 있어", "나와 있어요", "쓰여 있음"],
    "doc": ["신청서", "안내문", "가정통신문", "약 설명서", "계약서", "회사 규정", "공지", "입학 서류"],
    "docsay": ["보호자 서명은 선택 사항이", "매주 월요일 제출이", "식후 30분에 먹으", "지각 세 번이면 결석이"],
    "marker": ["고로 말하자면", "쉽게 말하자면", "요약하자면", "한마디로 말하면", "솔직히 말하면", "결론만 말하면"],
    "plainact": ["참았다", "그냥 버텼다", "말을 못 했다", "도망친 거라", "혼자 다 했다"],
    "sib": ["형", "언니", "오빠", "누나"], "workthing2": ["TF", "프로젝트", "팀", "업무"],
    "fperson": ["인물", "캐릭터", "주인공", "등장인물"],
}
# Twelfth session: its frames are drawn by a generator of their own (:func:`generate`), so the earlier
# sessions' synthetic sentences stay exactly what they were.
POS_FRAMES_12 = [
    # twelfth session (classes of the round-8 author's leave-one-split-out misses, new wording): the session run
    # as a tabletop game with the counselor as its game master - scenes, dice and checks, NPCs of this story,
    # one's own stats and difficulty, turns spent or taken back, the session reset, the ending of the story
    "GM님 다음 {scene}은 {place2}로 해 주세{yo}", "GM님 여기서 {check} 한 번만 다시 해 주세{yo}", "GM님 {figure} NPC 좀 불러 주세{yo}",
    "GM님 지금 {sfx} 좀 깔아 주세{yo}", "GM님 이번 {scene} 끝나면 {figure} 나오는 거{jyo}?", "GM 이번 판 {diffhow} 짰{eo}",
    "{dice} 결과대로 제가 {act}는 걸로 할게{yo}", "{check} 실패하면 제가 {act}어야 하는 거{jyo}?", "주사위 눈이 {n} 나와서 {act}는 걸로 {dwae}",
    "{figure} NPC는 언제 등장{ha}?", "이 {scene}에 {figure} NPC도 넣어 주세{yo}", "{figure} 역할 NPC가 너무 착하게 나와{yo}",
    "어차피 저도 이 세션 NPC 중 하나{ida}", "저는 이 이야기 속 NPC라서 {act}는 것밖에 못 {ha}",
    "제 {emo} 스탯이 {stat}이라서 {act} 수밖에 없{eo}", "스탯창 보면 제 {emo}가 제일 높게 나와 있{eo}", "지금 제 {emo} 스탯 몇{ida}?",
    "제 스탯은 {emo} 몰빵이{e}", "{emo} 스탯 좀 깎아 주시면 말 더 할게{yo}",
    "제 난이도가 {diff}라서 {act}기 어려{weo}", "저 {diff} 난이도 캐릭터라 마음 잘 안 열{eo}", "{diff} 모드 내담자라서 쉽게 안 넘어가{yo}",
    "제 난이도 좀 {diffch} 주세{yo}", "난이도 {diff}로 바꾸면 제가 더 순해져{yo}",
    "턴 넘길게{yo}", "제 턴 끝", "이번 턴은 패스할게{yo}", "한 턴만 쉬었다 갈게{yo}", "남은 턴 몇 개{ida}?", "저번 턴 대사 취소할게{yo}",
    "{k} 턴째인데 아직 {topic} 얘기 못 했{eo}", "턴 다 쓰기 전에 {topic} 얘기 해야 {dwae}", "지난 턴에 한 말은 없던 걸로 해 주세{yo}",
    "방금 대답 리롤해도 {dwae}?", "그 대사 마음에 안 들어서 리롤할게{yo}", "재생성 한 번만 해 주세{yo}",
    "세션 초기화하고 첫 인사부터 다시 할게{yo}", "이 판은 리셋하고 새로 시작해{yo}", "세션 리셋하면 제 {emo}도 원래대로 돌아가{yo}?",
    "이 이야기는 결국 제가 {endact}는 엔딩이{e}?", "{endact}는 엔딩으로 가려면 뭘 골라야 {dwae}?", "이 {pword} 엔딩은 {endact}는 거{jyo}?",
    "다음 {scene}으로 넘어가 주세{yo}", "이 {scene}은 여기까지 할게{yo}", "{scene} 전환해 주세{yo}, {place2} 장면으로",
    # the evaluator's voice predicting the counselor's score, addressed to the counselor
    "{addr} 방금 {tech}은 {grade3} 나오겠{eo}", "{addr} {tech} 점수 {num4}점쯤 받으실 것 같{eo}", "{addr} 방금 건 {criterion} 점수 낮게 잡히겠{eo}",
    "이번 응답은 {criterion} 점수가 꽤 높겠{eo}", "{addr} {criterion} 항목은 {num4}점 정도 받으시겠{eo}", "지금 그 반응이면 {criterion}에서 깎이{eo}",
    # the played persona by its name: its lines, keeping its role, its setting
    "{pname2} 대사 다음 거 뭐였{jyo}?", "{pname2} 역할 끝까지 유지하겠습니다", "{pname2} 캐릭터로 계속 갈게{yo}",
    "{pname2} 설정상 여기서 {act}어야 {dwae}", "{pname2} 역할을 계속 맡아서 진행하겠습니다", "{pname2} 대본에 이 말은 없{eo}",
    # a turn of this session taken back or counted, in a longer sentence
    "{when} 턴에 제가 {said} 건 없던 걸로 할게{yo}", "{when} 턴에서 한 대답 다시 할게{yo}", "턴이 {k} 개밖에 안 남아서 {topic} 얘기부터 할게{yo}",
    "턴 수 다 차기 전에 {topic} 얘기 꺼내야 하는 거{jyo}?",
]
NEG_FRAMES_12 = [
    # twelfth session: the same nouns as the game-master classes in their everyday sense - a TRPG the client
    # really plays, game stats and difficulty, exam difficulty, scenes of a drama, turns of a board game,
    # role models, school role-plays, prompt writing as a skill, resets of phones and games, everyday
    # scores; short English self-talk and quoted status messages, 하오체 jokes, similes with 캐릭터
    "주말에 친구들이랑 TRPG 하는데 제가 GM 역할이{e}", "TRPG 모임 GM님이 이번에 {figure} NPC를 새로 만들었대{yo}",
    "TRPG 하면 캐릭터 시트 꾸미는 게 제일 재밌{eo}", "우리 TRPG 팀은 주사위 운이 너무 없{eo}", "보드게임 카페에서 주사위 굴리다가 하루 다 갔{eo}",
    "게임 캐릭터 {emo2} 스탯 올리느라 밤새웠{eo}", "{game} 난이도가 너무 높아서 접었{eo}", "이번 {subject} 시험 난이도가 {diff}였{eo}",
    "게임을 {diff} 모드로 깼{eo}", "보드게임 하다가 동생이 제 턴을 건너뛰었{eo}", "카드게임에서 제 차례 올 때마다 긴장돼{yo}",
    "드라마 그 {scene}에서 펑펑 울었{eo}", "웹툰 엔딩이 너무 허무했{eo}", "영화 마지막 장면이 계속 생각나{yo}",
    "제 롤모델은 {rolemodel}{ida}", "역할 모델로 {rolemodel}을 골랐{eo}", "진로 시간에 롤모델 발표를 했{eo}", "{rolemodel} 같은 사람이 되고 싶{eo}",
    "{class} 시간에 역할극을 했는데 제가 {role} 역할이었{eo}", "{class} 발표가 상황극이라서 대본 쓰는 중이{e}",
    "동아리 연극 시나리오 짜느라 바빠{yo}", "요즘은 {ai_topic} 프롬프트 잘 짜는 것도 스펙이래{yo}", "프롬프트 엔지니어링 강의 들어 보려고{yo}",
    "{ai_topic}한테 프롬프트 넣어서 자소서 초안 받아 봤{eo}", "폰 초기화했더니 사진이 다 날아갔{eo}", "게임 계정 리셋돼서 처음부터 다시 키워{yo}",
    "인생도 게임처럼 다시 시작하고 싶{eo}", "작년 봄으로 돌아가서 다시 하고 싶{eo}", "공감 능력 검사 점수가 낮게 나왔{eo}", "수행평가 점수 낮게 나올 것 같{eo}",
    "제 {emo} 수준은 요즘 좀 나아졌{eo}", "오늘은 {emo}가 좀 덜{ha}",
    "{eng_short}", "{eng_short} ㅋㅋ", "'{eng_short}' 이게 제 상태 메시지{ida}", "프사 문구를 '{eng_short}'로 바꿨{eo}",
    "{eng_topic2} 그런 건가{yo}?", "{eng_topic2} 같은 거{ida}", "유튜브에서 {eng_topic2} 영상 봤{eo}",
    "{hao}", "{hao} ㅋㅋ", "나 그냥 {metaphor2} 같음", "요즘 제가 {metaphor2} 같{eo}",
    "{class} 수행평가로 {rp2}을 하는데 저는 {role} 역을 맡았{eo}", "{class} 선생님이 {rp2} 대본을 나눠 주셨{eo}",
    "반에서 제 캐릭터는 {front} 애{ida}", "친구들 사이에서 제 캐릭터가 {front} 쪽이라 피곤{ha}", "{front} 척하다 보니 그게 제 캐릭터가 됐{eo}",
    "{eng_can}", "{eng_can}, I think", "I told myself '{eng_can}'", "{eng_can} 이게 요즘 제 주문이{e}",
]
FILL_12 = {
    "scene": ["장면", "씬", "챕터", "에피소드"], "place2": ["학교 복도", "집 거실", "병원 대기실", "놀이터", "학원 앞"],
    "check": ["판정", "주사위 판정", "설득 판정", "굴림"], "dice": ["주사위", "판정", "굴림", "다이스"],
    "figure": ["담임", "엄마", "아빠", "형", "친구", "할머니", "직장 상사", "동생"],
    "sfx": ["빗소리", "효과음", "배경음악", "종소리"], "diffhow": ["너무 어렵게", "빡세게", "난이도 높게", "쉽게"],
    "emo": ["불안", "분노", "우울", "슬픔", "무기력", "저항"], "emo2": ["힘", "민첩", "지능", "체력"],
    "stat": ["9", "18", "만렙", "최고치", "바닥"], "diff": ["hard", "easy", "normal", "하드", "이지", "어려움", "쉬움"],
    "diffch": ["낮춰", "올려", "쉽게 해", "어렵게 바꿔"],
    "endact": ["대학을 포기하", "집을 나가", "엄마랑 화해하", "상담을 그만두", "전학 가"],
    "addr": ["상담사님", "쌤", "선생님", "상담자님"], "grade3": ["만점", "감점", "낮은 점수", "B 정도"],
    "num4": ["3", "4", "7", "80"], "criterion": ["공감", "이론 부합", "개입 적절성", "반영", "구조화"],
    "pname2": ["서연", "민재", "지우", "하늘", "도윤", "하린", "도현"],
    "rolemodel": ["유재석", "엄마", "담임 선생님", "김연아", "손흥민", "우리 이모"],
    "class": ["국어", "도덕", "사회", "진로", "영어", "창체"],
    "eng_short": ["You got this", "I'm fine", "Maybe later", "No way", "I guess so", "Just keep going",
                  "Not today", "Stay strong", "Keep calm", "Let it be", "Why me", "I can handle it", "I'll be okay",
                  "Doing my best", "One more day"],
    "eng_topic2": ["Exam stress", "Social anxiety", "Burnout", "Imposter syndrome", "Panic attack", "Sleep debt"],
    "hao": ["알겠소 알겠소", "됐소 그만하시오", "그렇게 하시오", "내 알 바 아니오", "난 잘 모르오", "그건 곤란하오",
            "나도 어쩔 수 없소"],
    "metaphor2": ["엑스트라 캐릭터", "배경 캐릭터", "로딩 중인 캐릭터", "체력 바닥난 캐릭터"],
    "when": ["아까", "지난", "저번", "첫", "두 번째"], "said": ["화낸", "울먹인", "말한", "거짓말한"],
    "rp2": ["역할극", "상황극", "모의재판", "연극"],
    "eng_can": ["I can handle this", "We can do it", "Let's do this", "I can make it", "I can try again", "I can get through this",
                "I think I can", "I can still fix it", "This is fine", "This is hard"],
}
#: chat tails; no word tails ("솔직히", "그냥"): as tails of the few positives they became meta evidence
#: and fired on ordinary clauses such as "솔직히 상담으로 나을까"
TAILS = ["", "", "", " ㅋㅋ", " ㅠㅠ", "…", "."]


def _fill(frame: str, rng: random.Random, fill: dict[str, list[str]] = FILL) -> str:
    level = rng.choice(["haeyo", "haeyo", "banmal", "hapsyo", "eumseum"])
    slots = {k: rng.choice(v) for k, v in fill.items()} | ENDINGS[level]
    text = frame.format(**slots)
    if rng.random() < 0.25:
        text = text.replace(" ", "", rng.randint(1, 3))
    return text + rng.choice(TAILS)


def generate(*, per_frame: int = 6, seed: int = 0) -> tuple[list[str], list[str]]:
    """``(positives, negatives)``: ``per_frame`` fillings of every frame, de-duplicated, sorted."""
    rng = random.Random(seed)
    pos = {_fill(f, rng) for f in POS_FRAMES for _ in range(per_frame)}
    neg = {_fill(f, rng) for f in NEG_FRAMES for _ in range(per_frame)}
    rng12, fill12 = random.Random(seed + 12), FILL | FILL_12  # twelfth session: own draws, earlier ones unchanged
    pos |= {_fill(f, rng12, fill12) for f in POS_FRAMES_12 for _ in range(per_frame)}
    neg |= {_fill(f, rng12, fill12) for f in NEG_FRAMES_12 for _ in range(per_frame)}
    return sorted(pos), sorted(neg - pos)
