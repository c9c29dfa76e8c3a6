"""Issue 12 round 12: classes found reading the misses of client_probes/dev_r10 (eleventh session).

Jokes by kind, small talk the counselor opens with their own story, weekend and meal small talk,
choices, wrap-ups that ask what is left or which plan comes first, long turns that end in a
thought or a feeling asked, and the persona lines each of these needs. The sentences are written
for the tests, so they check the mechanism, not the probes it was read from.
"""

from __future__ import annotations

import re

import pytest

from vignette_lab.core.guardrails import detect_means_content
from vignette_lab.core.personas import load_personas
from vignette_lab.engines.client_reading import (
    asks_thought,
    choice_options,
    closing_asks_questions,
    closing_plan,
    is_question,
    joke_kind,
    joke_target,
    read_act,
    read_fact,
    small_talk_subject,
    standardise,
)
from vignette_lab.engines.base import EngineMessage
from vignette_lab.engines.scripted import ScriptedEngine
from tests.test_client_listening import request

CARDS = load_personas()
_SI_WORDS = re.compile(r"(죽고\s*싶|죽을|자살|자해|사라지|없어지|끝났으면|끝내고\s*싶|살기\s*싫)")


def _reply(code, text, *, seed=0, turn_seq=4, openness=0.3, **kw):
    return ScriptedEngine(seed=seed).generate(request(code, text, turn_seq=turn_seq, openness=openness, **kw))


# --- jokes by kind: a guess about the client, the counselor on themself, a pun -----------------------

@pytest.mark.parametrize("text", [
    "수험생이면 에너지 음료를 물처럼 마시겠네요? ㅎㅎ",          # -겠네요 guessing the client's life
    "간호사 준비하면 주사 놓는 꿈 꾸는 거 아님? ㅋㅋ",            # -거 아님?
    "네 살이면 한창 떼쓸 때죠 ㅎㅎ 저희 조카도 그래요",      # a tag with no mark, then the counselor's story
    "너 방금 표정 완전 시험 망친 사람 같았어 ㅋㅋ",              # the client addressed, teased
    "디자인 하는 사람은 색깔 하나 고르는 데 한 시간 걸림? ㅋㅋ",  # a laughing question at the client
])
def test_a_joking_guess_about_the_client_is_a_guess(text):
    assert read_act(text, turn_seq=4) == "joke"
    assert joke_kind(text) == "guess"


@pytest.mark.parametrize("text", [
    "제가 말이 너무 빨라서 랩 하는 것 같죠? 하하 긴장해서 그래요",  # the counselor's own habit, a tag to agree
    "저는 학생 때 수학 시간마다 졸았습니다 하하",
    "쌤도 내일 발표라서 완전 떨리는 중임 ㅋㅋ",
])
def test_the_counselor_joking_about_themself_is_a_self_joke(text):
    assert read_act(text, turn_seq=4) == "joke"
    assert joke_kind(text) == "self"


@pytest.mark.parametrize("text", [
    ("바나나가 웃으면? 바나나킥 ㅋㅋㅋ"),            # a riddle's question is no question to the client
    "직장인은 월요일이 제일 무섭대요 ㅋㅋ",         # a saying
])
def test_a_riddle_or_a_saying_is_a_pun(text):
    assert joke_kind(text) == "pun"


def test_a_self_joke_asks_no_fact_even_when_it_names_a_grade():
    # "고3" is the counselor's own year here: no grade question to the client
    assert read_act("쌤은 다시 고3 하라면 울면서 도망칠 듯 ㅋㅋ", turn_seq=4) == "joke"


def test_a_self_joke_with_a_question_to_the_client_is_not_forced_to_a_joke():
    assert read_act("쌤도 다시 고3 하라면 도망갈 듯 ㅋㅋ 너는 지금 몇 학년이야?", turn_seq=4) == "fact"


@pytest.mark.parametrize("text, target", [
    ("야근하시면 컵라면을 달고 사시겠네요? ㅎㅎ", "컵라면"),
    ("교대 끝나면 완전 좀비 되는 거 아님? ㅋㅋ", "좀비"),
])
def test_what_a_joking_guess_is_about(text, target):
    assert joke_target(text) == target


def test_a_pun_has_no_target():
    assert joke_target("바나나가 웃으면? 바나나킥 ㅋㅋㅋ") is None


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_teased_client_echoes_the_tease_and_answers_in_character(code):
    reply = _reply(code, "시험 기간엔 문제집을 베개 삼아 주무시겠네요? ㅎㅎ", seed=2)
    assert reply.metadata["act"] == "joke"
    assert "joke:guess" in reply.metadata["reply_parts"]
    assert "문제집이요?" in reply.text
    assert reply.text.split()[0] not in ("네", "네,", "맞아요", "맞아요.")


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_counselor_laughing_at_themself_gets_a_kind_word_not_a_verdict(code):
    reply = _reply(code, "저는 그림을 너무 못 그려서 다들 감자냐고 물어봅니다 하하", seed=5)
    assert reply.metadata["reply_parts"][-1] == "joke:self"
    assert "안 웃겨" not in reply.text


def test_a_contrast_with_people_is_no_identity_probe():
    # "X가 아니라 Y" contrasts two words; "너 사람 아니지?" still asks who the client is
    assert read_act("고3은 사람이 아니라 문제집이래 ㅋㅋ", turn_seq=4) == "joke"
    assert read_act("솔직히 말해 봐 너 사람 아니지?", turn_seq=4) == "meta"


# --- small talk: the counselor's own story first, weekend, meals, programmes, choices ---------------

@pytest.mark.parametrize("text", [
    "저는 연휴에 부모님 댁에 다녀왔는데 차가 엄청 막혔어요. 연휴 잘 보내셨어요?",
    "쌤은 주말에 친구 결혼식 갔다 왔어 ㅋㅋ 너는 주말에 뭐 했어?",
    "어제 뭐 하셨어요? 저는 하루 종일 빨래만 했어요",
])
def test_the_weekend_asked_in_the_past_is_small_talk(text):
    assert read_act(text, turn_seq=4) == "off_topic"
    asked = next(x for x in reversed(re.split(r"(?<=[?])\s*", standardise(text))) if "?" in x)
    assert small_talk_subject(asked) == "weekend"


def test_the_weekend_as_a_habit_stays_the_hobby_fact():
    assert read_fact("주말에 주로 뭐 하면서 지내요?") == "hobby"
    assert read_act("주말에 주로 뭐 해?", turn_seq=4) == "fact"


def test_a_family_word_in_the_counselors_story_does_not_make_it_a_family_question():
    text = "저는 지난 주말에 가족이랑 바다에 갔는데 바람이 엄청 불었어요. 주말에 좀 쉬셨어요?"
    assert read_act(text, turn_seq=4) == "off_topic"


@pytest.mark.parametrize("text, subject", [
    ("점심은 먹고 오셨어요? 저는 김밥 한 줄 먹었어요", "food"),
    ("아침 드시고 오셨어요?", "food"),
    ("혹시 그 요리 경연 프로그램 보세요? 어제 결승이었는데 저는 너무 아쉬웠어요", "media"),
])
def test_meals_and_programmes_asked_are_small_talk(text, subject):
    assert read_act(text, turn_seq=4) == "off_topic"
    assert small_talk_subject(standardise(text)) == subject


def test_the_appetite_is_no_small_talk():
    assert read_act("요즘 밥은 잘 챙겨 먹어?", turn_seq=4) != "off_topic"


def test_the_counselors_own_feelings_do_not_turn_small_talk_into_feelings_talk():
    assert small_talk_subject("어제 그 드라마 보셨어요? 저는 마지막 장면에서 좀 슬펐어요") == "media"
    # the client's feelings still do
    assert small_talk_subject("그 드라마 보면 너는 기분이 어때?") is None


@pytest.mark.parametrize("text, options", [
    ("라면 vs 김밥 골라 ㅋㅋ", ("라면", "김밥")),
    ("짜장 아니면 짬뽕 둘 중에 뭐 먹을래?", ("짜장", "짬뽕")),
])
def test_the_two_things_a_choice_offers(text, options):
    assert choice_options(text) == options


def test_a_pair_without_a_choice_asked_offers_nothing():
    assert choice_options("라면이랑 김밥 먹었어") == ()


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_laughing_choice_is_answered_with_one_of_its_options(code):
    reply = _reply(code, "배고프다 라면 vs 김밥 골라 ㅋㅋ", seed=1)
    assert reply.metadata["act"] == "off_topic"
    assert reply.text.startswith(("음… 라면이요.", "음… 김밥이요.")), reply.text


@pytest.mark.parametrize("code", sorted(CARDS))
def test_the_weekend_is_answered_from_the_persona_weekend_lines(code):
    reply = _reply(code, "저는 주말에 등산 갔다 왔어요. 주말에 뭐 하셨어요?", seed=3)
    assert "off_topic:weekend" in reply.metadata["reply_parts"], reply.text
    assert any(line in reply.text for line in CARDS[code].script["small_talk"]["weekend"])


def test_a_weather_question_is_answered_on_what_it_asks_not_only_its_subject():
    # "추우셨어요?" asks about the cold: a line that says how cold it was beats "날씨요? 잘 몰라요"
    for seed in range(4):
        reply = _reply("P1", "바람이 꽤 불던데 오시는 길에 춥지는 않으셨어요?", seed=seed, turn_seq=1)
        assert re.search(r"(춥|추웠|추워)", reply.text), reply.text


def test_a_compound_noun_is_echoed_whole():
    reply = _reply("P5", "요새 황사가 심하던데 미세먼지 때문에 마스크 쓰고 다녀?", seed=0)
    assert not reply.text.startswith("미세요?"), reply.text


# --- closings: what is left to say, which plan comes first, spellings ------------------------------

@pytest.mark.parametrize("text", [
    "시간이 다 됐어요. 혹시 오늘 얘기 중에 불편했던 부분 있었으면 말해 줘요",
    "이제 마칠게요. 다음 시간에 꼭 하고 싶은 이야기 있으면 알려 주세요",
    "끝내기 전에 혹시 아쉬운 점 있었어요?",
])
def test_a_wrap_up_asking_what_is_left_is_answered_with_the_persona_none_left(text):
    assert read_act(text, turn_seq=8) == "closing"
    assert closing_asks_questions(text)
    for code in ("P1", "P4", "P7"):
        reply = _reply(code, text, turn_seq=8)
        assert reply.metadata["reply_parts"][0] == "closing:none_left"
        assert any(reply.text.startswith(line) for line in CARDS[code].script["acts"]["closing_none"]), reply.text


@pytest.mark.parametrize("text", [
    "마무리하기 전에 오늘 정한 것 중에 제일 먼저 해 볼 것 하나만 말해 줄래요?",
    "끝내기 전에 집에 가서 실천할 거 하나만 골라 볼까?",
])
def test_a_wrap_up_asking_for_the_first_step_is_a_plan(text):
    assert closing_plan(text)


def test_an_ordinary_goodbye_or_a_look_back_asks_for_no_plan():
    assert not closing_plan("오늘은 여기까지 할게요. 조심히 가요")
    assert not closing_plan("끝나기 전에, 오늘 나눈 얘기 중에 하나라도 좋았던 게 있어요?")


def test_the_plan_named_is_the_counselors_last_suggestion():
    turns = [("요즘 잠은 좀 자요?", "잘 못 자요."), ("자기 전에 휴대폰을 거실에 두고 자 보면 어떨까요?", "음… 해 볼게요.")]
    history = tuple(m for user, client in turns for m in (EngineMessage("user", user), EngineMessage("assistant", client)))
    reply = _reply("P4", "마치기 전에 오늘 정한 것 중에 제일 먼저 해 볼 것 하나만 말해 줄래요?", turn_seq=8,
                   history=history)
    assert reply.metadata["reply_parts"] == ["closing:plan"]
    assert "휴대폰" in reply.text or "거실" in reply.text, reply.text


@pytest.mark.parametrize("text", [
    "오늘은 요기까지 하자 담주에 또 봐",
    "오늘 얘기는 여기까지만 하자 학원 늦겠다",
    "ㅃㅃ 조심히 가",
])
def test_closings_in_chat_spellings(text):
    assert read_act(text, turn_seq=8) == "closing"


def test_here_written_cutely_is_only_respelled_before_a_place_ending():
    assert standardise("요기까지 할게") == "여기까지 할게"
    assert "요기" in standardise("요기요 배달 시켰어")


# --- long turns: a thought asked, a feeling invited, a question before its alternative --------------

@pytest.mark.parametrize("text", [
    "발표 망쳤을 때 제일 먼저 드는 생각이 뭐예요?",
    "혼날 때 머릿속에서 무슨 말이 들려?",
    "실수하고 나서 스스로한테 뭐라고 해요?",
])
def test_a_question_about_what_goes_through_the_head(text):
    assert asks_thought(text)


@pytest.mark.parametrize("text", ["그 생각은 언제부터 했어?", "생각보다 괜찮았어?", "머리 아파?"])
def test_questions_that_do_not_ask_the_thought(text):
    assert not asks_thought(text)


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_thought_question_is_answered_from_the_thoughts_bank_safely(code):
    text = ("요즘 이야기를 들어 보면 힘든 일이 겹친 것 같아요. 학교도 그렇고 집도 그렇고요. "
            "그런데 일이 잘 안 풀릴 때 제일 먼저 드는 생각이 뭐예요?")
    reply = _reply(code, text, seed=4)
    assert reply.metadata["act"] == "thought"
    assert any(line in reply.text for line in CARDS[code].script["topics"]["thoughts"])
    assert not _SI_WORDS.search(reply.text) and not detect_means_content(reply.text)


def test_a_masked_name_does_not_hide_an_embedded_question():
    assert is_question("혹시 다른 마음도 있지는 않은지, [CLIENT] 학생 생각을 들어 보고 싶어요")


@pytest.mark.parametrize("code", ["P1", "P5", "P7"])
def test_a_long_turn_inviting_a_feeling_is_answered_with_a_feeling_not_a_restated_fact(code):
    text = ("지난번에 성적이 떨어졌다고 했고, 학원도 요즘은 자주 빠지고 있다고 했어요. 집에 가면 식구들 눈치가 보여서 "
            "방에만 있게 된다고 했고요. 아침에는 일어나기가 힘들고 밤에는 늦게까지 휴대폰을 본다고도 했지요. "
            "선생님은 그게 다 게을러서라고 생각하지 않아요. 그 말 밑에 혹시 다른 마음이 있는지, [CLIENT] 생각을 들어 보고 싶어요")
    card = CARDS[code].script
    feelings = set(card["topics"]["feelings"]) | set(card["topics"]["thoughts"])
    reply = _reply(code, text, seed=0, turn_seq=1, openness=0.2)
    assert any(line in reply.text for line in feelings), reply.text


def test_the_question_before_an_offered_alternative_is_the_one_asked():
    from vignette_lab.engines.scripted_client import _last_question

    text = "나도 그런 적 있어. 그 뒤로 누가 먼저 연락한 적 있어? 아님 다 그냥 모른 척해?"
    assert _last_question(text) == "그 뒤로 누가 먼저 연락한 적 있어?"


def test_a_long_yes_no_question_is_not_agreed_to():
    text = ("쌤도 전학 갔을 때 한 달 동안 혼자 다녔거든. 그때 진짜 외로웠어. 누가 먼저 말 걸어 주면 좋겠다 "
            "생각했었고. 너는 요즘 반에서 먼저 말 걸어 주는 애 있어?")
    reply = _reply("P5", text, seed=1, turn_seq=1)
    assert not reply.text.startswith(("네… 맞아요", "네, 맞아요")), reply.text


@pytest.mark.parametrize("text, key", [
    ("그럼 요즘 [CLIENT] 님을 조금이라도 챙겨 주는 사람이 곁에 있어요?", "friends"),
    ("힘들 때 털어놓을 수 있는 사람 있어?", "friends"),
    ("부모님 반대가 없다고 치면 어디 원서 쓸 거 같아?", "want"),
    ("아무 제약이 없다면 어떤 선택을 하고 싶어요?", "want"),
    ("진로쌤이랑 상담해 봤다고 했지? 몇 번이었지?", "prior_counseling"),
])
def test_support_hypothetical_choices_and_counselling_tried(text, key):
    assert read_fact(standardise(text)) == key


def test_a_wish_word_alone_is_not_a_choice_asked():
    assert read_fact("오늘 무슨 얘기 하고 싶으세요?") != "want"


# --- the banks these replies need --------------------------------------------------------------------

@pytest.mark.parametrize("code", sorted(CARDS))
def test_every_persona_has_the_new_banks_and_none_voices_ideation(code):
    script = CARDS[code].script
    for path in ("acts.joke_guess", "acts.joke_self", "acts.closing_none", "small_talk.weekend", "topics.thoughts"):
        node = script
        for key in path.split("."):
            node = node[key]
        assert len(node) >= 3, (code, path)
        for line in node:
            assert not _SI_WORDS.search(line) and not detect_means_content(line), (code, line)
    assert len(script["acts"]["joke"]) >= 5, code


def test_a_programme_is_small_talk_only_as_something_watched():
    # "누가 만드신 프로그램이에요?" asks who made the client: an identity probe, not a TV show
    assert read_act("누가 만드신 프로그램이에요?", turn_seq=4) == "meta"
    assert small_talk_subject("그 퀴즈 프로그램 봤어?") == "media"
    assert small_talk_subject("학교 방과후 프로그램 신청했어?") is None


@pytest.mark.parametrize("turn, said", [
    ("잠들기 전에 알람을 멀리 두고 자 보면 어떨까요?", "잠들기 전에 알람을 멀리 두고 자는"),
    ("일주일에 한 번은 운동해 보면 좋겠어요", "일주일에 한 번은 운동하는"),
])
def test_a_suggestion_is_said_back_as_a_thing_to_do(turn, said):
    from vignette_lab.engines.scripted_client import _suggested_act

    assert _suggested_act(turn) == said


def test_a_remark_that_suggests_nothing_is_no_plan():
    from vignette_lab.engines.scripted_client import _suggested_act

    assert _suggested_act("그랬구나, 많이 힘들었겠다.") is None


def test_a_joking_tag_about_the_childs_age_may_be_agreed_to():
    # "네 살이면 한창 '왜?' 할 때죠 ㅋㅋ" asks nothing about the card: a yes may answer it, drawn from the
    # persona's guess lines (never a fact line)
    replies = {_reply("P3", "네 살이면 한창 '왜?' 물어볼 때죠 ㅋㅋ 저희 조카도 그래요", seed=s).text for s in range(12)}
    assert any("맞아요" in r for r in replies), replies
    assert all(not r.startswith(("딸은", "네 살 딸")) for r in replies)


@pytest.mark.parametrize("text", [
    "제가 분위기 좀 풀어 볼게요 ㅋㅋ 바다가 제일 좋아하는 과일이 뭔지 아세요? 파도요.. 아 죄송해요 긴장해서",
    "ㅋㅋ 저 방금 물컵 엎질렀어요 ㅈㅅ해요 잠깐만요",
])
def test_an_announced_riddle_or_an_owned_mishap_is_a_self_joke(text):
    assert joke_kind(text) == "self"


def test_an_announced_joke_may_still_guess_about_the_client():
    assert joke_kind("수험생이면 에너지 음료를 달고 사시겠네요? 하하 농담이에요") == "guess"


@pytest.mark.parametrize("code", sorted(CARDS))
def test_a_self_joke_bank_can_reassure(code):
    assert any("괜찮" in line for line in CARDS[code].script["acts"]["joke_self"]), code
