"""The self-play counselor answers a question the client puts to it (twelfth session).

Before, "여기서 얘기하면 엄마한테 다 전해져요?" got "처음에는 이야기하기 어려운 경우가 많아요." and "그 얘기 하면
뭐가 달라져요?" got "처음 오는 자리라 많이 긴장되겠어요." — the client's question was never heard. The wording
below is new (not the personas' bank lines).
"""

from __future__ import annotations

import pytest

from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.engines.scripted_counselor import client_question, load_contingent
from tests.test_selfplay_counselor import _say as _counselor_says


@pytest.mark.parametrize(("line", "kind"), [
    ("근데 여기서 말한 거 아빠한테는 안 알려지죠?", "confidential"),
    ("혹시 상담 내용 팀장님한테 전달돼요?", "confidential"),
    ("다음 주에도 와도 돼요?", "next"),
    ("이거 언제까지 해야 돼요?", "length"),
    ("몇 번 더 와야 하는 거예요?", "length"),
    ("그 얘기는 나중에 해도 돼요?", "defer"),
    ("그냥 제 얘기 해도 돼요?", "own_topic"),
    ("저 이제 가도 되죠?", "leave"),
    ("음… 뭐부터 얘기하면 돼요?", "start"),
    ("그런 걸 왜 물어보시는 거예요?", "why_asking"),
    ("이런다고 뭐가 달라지는데요?", "purpose"),
    ("제가 예민한 거예요? 이상한 건 아니죠?", "reassure"),
    ("수능 망하면 어떡해요?", "worry"),
    ("그럼 전 어떻게 해야 돼요?", "advice"),
    ("선생님도 엄마 편이에요?", "side"),
])
def test_a_question_to_the_counselor_is_read_by_kind(line, kind):
    assert client_question(line) == kind


@pytest.mark.parametrize("line", [
    "잠을 잘 못 자요.",                      # no question
    "친구요? 뭐… 그냥 그래요.",              # echoing the counselor's word back
    "네? 영어로 하시면 못 알아들어요.",       # confusion, not a question to answer
    "(고개를 숙인다) 엄마한테 다 전해져요",   # no question mark: a statement
])
def test_no_question_to_answer(line):
    assert client_question(line) is None


def test_every_kind_has_answers_in_the_bank():
    from vignette_lab.engines import scripted_counselor as sc
    answers = load_contingent()["answers"]
    for kind, _rx in sc._CLIENT_ASKS:
        assert len(answers.get(kind) or ()) >= 2, kind
        assert kind in sc._ANSWER_TECHNIQUE, kind


def _say(client_lines, said=()):
    """A skilled counselor's next line for P4 (the self-play counselor tests' request)."""
    return _counselor_says(ScriptedEngine(seed=3), client_lines, said=said, turn=4, sid="ans", code="P4")


def test_skilled_counselor_answers_confidentiality_and_records_it():
    answers = load_contingent()["answers"]["confidential"]
    out = _say(["시험 때문에 좀 힘들어요.", "근데 여기서 한 얘기 엄마한테 전해져요?"], said=["시험이 많이 부담되나 봐요."])
    assert out.text in answers
    assert out.metadata["intended_technique"] == "information"


def test_an_answer_is_not_said_twice_in_a_session():
    answers = load_contingent()["answers"]["why_asking"]
    said = list(answers)  # every answer of the kind was said already
    out = _say(["그건 왜 물어보세요?"] * (len(said) + 1), said=said)
    assert out.text not in answers


def test_a_crisis_cue_comes_before_the_question():
    safety = load_contingent()["crisis"]["safety_check"]
    out = _say(["그냥 다 사라지고 싶어요. 근데 이거 엄마한테 전해져요?"])
    assert out.text in safety


def test_nothing_presupposes_talk_after_a_bare_greeting():
    from vignette_lab.engines.scripted_counselor import PRESUPPOSES_TALK
    for seed in range(60):  # before the fix, 10 of these 60 said "이야기를 들어 보니 …" or "꺼내 줘서 고마워요"
        out = _counselor_says(ScriptedEngine(seed=seed), ["네… 안녕하세요 (가방을 무릎에 올려 둔다)"],
                              said=["안녕하세요. 만나서 반가워요."], turn=2, stage="라포", sid=f"g{seed}", code="P1")
        assert not PRESUPPOSES_TALK.search(out.text), out.text


@pytest.mark.parametrize("line", ["아까도 말씀드렸는데, 동생이랑은 별로 안 친해요.", "음… 아까 말했잖아요. 학원 끝나면 열 시예요.",
                                  "…아까랑 같은 얘기인데요, 그냥 피곤해요."])
def test_the_client_saying_it_already_answered_is_read(line):
    assert client_question(line) == "told_before"


def test_a_skilled_counselor_owns_the_repetition_instead_of_asking_again():
    answers = load_contingent()["answers"]["told_before"]
    out = _say(["동생이랑은 별로 안 친해요.", "아까도 말씀드렸는데, 동생이랑은 별로 안 친해요."],
               said=["동생이랑은 어떻게 지내요?"])
    assert out.text in answers
