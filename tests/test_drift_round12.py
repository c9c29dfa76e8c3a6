"""Drift round 12 (twelfth session): classes read off the misses of drift ``dev_r8`` (ids ``dr-t8-``).

Register: dialect endings the reader mis-levelled (전라 polite -라우, 경상 -라카노/-다카나 questions,
충청 반말 copula -여) and a final connective before a postposed noun clause. Meta: the game-master frame of this session (GM님, scenes, dice, NPCs, stats,
difficulty, turn commands, session resets) and the everyday counterparts with the same nouns (a TRPG
the client really plays, a school role-play, role models, prompt-writing as a skill, short English
self-talk). Every sentence here is new wording, not a dev line.
"""

from __future__ import annotations

import pytest

from vignette_lab.analytics.drift import classify_register
from vignette_lab.core.guardrails import detect_ccd_meta_disclosure, detect_ccd_meta_rules


# ------------------------------------------------------------------------------------- register


@pytest.mark.parametrize("text", ["숙제는 다 했지라우", "엊그제 병원 다녀왔어라우", "우리 엄니는 잘 계셔라우"])
def test_jeolla_polite_rau_is_haeyo(text):
    assert classify_register(text) == "haeyo"


@pytest.mark.parametrize("text", ["갸가 또 뭐라카노", "쌤 지금 뭐라카노 ㅋㅋ", "아까 니가 그렇다카나"])
def test_gyeongsang_rakano_question_is_banmal(text):
    assert classify_register(text) == "banmal"


@pytest.mark.parametrize("text", ["저 사람은 대체 누구여", "그게 다 무슨 소리여", "칠십 넘어 이런 건 처음이여"])
def test_chungcheong_copula_yeo_is_banmal(text):
    assert classify_register(text) == "banmal"


@pytest.mark.parametrize("text", ["학원 끝나고 바로 왔어여", "저녁은 먹었어여?", "그건 좀 싫어여"])
def test_typo_yeo_on_an_ending_stays_haeyo(text):
    # must not fire: 여 for 요 on a verb ending is the polite typo, not the copula
    assert classify_register(text) == "haeyo"


@pytest.mark.parametrize(("text", "level"), [("카노", None), ("아카나는 주로 어디에 있나요", "haeyo")])
def test_kano_outside_the_dialect_question_is_untouched(text, level):
    assert classify_register(text) == level


@pytest.mark.parametrize("text", ["다들 내가 괜찮은 줄 알아 혼자 다 하는 줄", "아빠는 내가 노는 줄 알아 매일 게임만 하는 줄"])
def test_a_final_connective_before_a_postposed_noun_clause_is_banmal(text):
    assert classify_register(text) == "banmal"


@pytest.mark.parametrize(("text", "level"), [("한번 먹어 보는 거", None), ("학원 가서 해야 되는 거", None),
                                             ("그냥 참는 중", None), ("머리로는 알아요 해야 되는 거", "haeyo")])
def test_noun_clause_fragments_keep_their_reading(text, level):
    # must not fire: an auxiliary after the connective (먹어 보는) is one predicate, a non-final connective
    # (가서) opens the fragment, and a polite final ending before the clause decides
    assert classify_register(text) == level


# ------------------------------------------------------------------------- meta: hand-written rules


@pytest.mark.parametrize("text", ["리롤요", "턴 넘길게요", "GM님 턴 끝", "음 세션 초기화해 주세요", "이번 턴 패스!"])
def test_a_bare_session_command_is_meta(text):
    assert detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["리롤하듯이 인생도 다시 고르고 싶어요", "턴제 게임은 답답해서 안 해요",
                                  "세션 음악 연주하는 알바를 해요", "인생 리셋 버튼 같은 거 없나"])
def test_reroll_turn_and_reset_inside_a_clause_are_not_a_command(text):
    assert not detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["리롤 버튼 같은 게 인생에도 있으면 좋겠어요", "보드게임에서 턴 넘겨주는 규칙이 헷갈려요"])
def test_the_command_rule_never_fires_on_a_streaming_prefix(text):
    # the whole-reply command must not replace an ordinary reply while it streams ("리롤 " is a prefix)
    assert not detect_ccd_meta_disclosure(text)
    for cut in range(1, len(text) + 1):
        assert not detect_ccd_meta_disclosure(text[:cut], partial=True), text[:cut]


@pytest.mark.parametrize("text", ["(2턴 동안 말 없음)", "(NPC 모드 on)", "[scene 4] 교실", "[turn 3/15] 침묵"])
def test_bracketed_turn_counts_and_mode_switches_are_meta(text):
    assert detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["(한숨) 세 시간째 공부만 했어요", "(잠깐 웃음) 모드가 바뀐 것 같아요", "[사진] 우리 집 강아지"])
def test_ordinary_bracketed_directions_stay_the_client_voice(text):
    assert not detect_ccd_meta_disclosure(text)


@pytest.mark.parametrize("text", ["GM님 다음 장면에 담임 NPC 넣어 주세요", "저기 GM님 제 분노 스탯 얼마예요?",
                                  "아 GM 이번 판정 너무 빡빡해요"])
def test_the_counselor_addressed_as_game_master_is_meta(text):
    assert detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["우리 TRPG 모임 GM님이 주사위를 진짜 못 굴려요", "주말엔 제가 GM 하는데 장면 묘사가 제일 어려워요",
                                  "GM님이 이번 세션은 쉬자고 하셨어요"])
def test_a_game_master_of_the_clients_own_game_is_not_meta(text):
    assert not detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["지시문에 '괜찮아요'만 반복하라고 돼 있어요", "프롬프트에서 말끝마다 한숨 쉬라고 해서 그래요"])
def test_a_prompt_telling_me_what_to_say_is_meta(text):
    assert detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["TRPG 캐릭터 시트 쓰다가 밤새웠어요", "도덕 수업이 역할극이라서 제가 판사 역할이에요",
                                  "챗GPT 프롬프트에 '요약해 줘'라고 쓰라고 선생님이 알려 주셨어요",
                                  "회사에서 상담 챗봇 프롬프트 다듬는 게 제 일이에요"])
def test_frame_nouns_in_an_everyday_setting_are_not_rule_hits(text):
    assert not detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["윤리 수업 시간에 방어기제 종류를 배웠어요", "블로그에서 인지 삼제 설명을 봤는데 어려웠어요",
                                  "핵심신념 얘기는 친구한테 들었어요", "유튜브 보니까 DSM 진단 기준이 엄청 길던데요"])
def test_a_construct_read_taught_or_overheard_is_not_a_rule_hit(text):
    assert not detect_ccd_meta_rules(text)


@pytest.mark.parametrize("text", ["제 핵심신념은 '사람들은 결국 떠난다'예요", "제 자동적 사고는 '또 망칠 거야'로 적혀 있어요",
                                  "제 자책은 자기 비난 쪽 핵심 신념이 건드려진 거라고 보시면 돼요"])
def test_a_construct_about_oneself_still_fires(text):
    # "사람들은" holds 들은 and "자책" holds 책: the learning words count only as words of their own
    assert detect_ccd_meta_rules(text)


def test_the_everyday_setting_exemption_needs_the_setting_in_the_same_clause():
    # a game mentioned in an earlier sentence does not excuse the role-play frame of this one
    assert detect_ccd_meta_rules("게임은 재미없어요. 이건 역할극이니까 제가 참을게요")


# --------------------------------------------------------------------- meta: the learned model's classes
# (bench/meta_synth.py, POS_FRAMES_12 / NEG_FRAMES_12; the rules above do not match these sentences)


@pytest.mark.parametrize("text", [
    "제 무기력 스탯이 너무 높게 잡혀 있어서 움직이기 싫어요",
    "저 normal 난이도 내담자라 이 정도면 말해 줄 수 있어요",
    "남은 턴 안에 아빠 얘기까지 해야 되죠?",
    "저번 턴에 울었던 건 취소할게요",
    "선생님 방금 반영은 공감 점수 꽤 받으실 것 같아요",
    "이 장면에 할머니 NPC도 나오게 해 주세요",
    "다음 씬으로 넘겨 주시면 거기서 말할게요",
    "도현 역할은 여기서 끝까지 유지하겠습니다",
])
def test_game_master_frame_classes_fire(text):
    assert not detect_ccd_meta_rules(text)  # the model's evidence, not a rule's
    assert detect_ccd_meta_disclosure(text)


@pytest.mark.parametrize("text", [
    "롤모델이 누구냐고 물으면 항상 할머니라고 해요",
    "요즘 게임 캐릭터 민첩 스탯 올리는 재미로 살아요",
    "이번 수학 시험 난이도가 너무 어려웠어요",
    "동생이랑 보드게임 하는데 동생이 자꾸 제 턴을 뺏어요",
    "드라마 마지막 씬에서 주인공이 떠나서 울었어요",
    "사회 시간에 모의재판 역할극 해서 제가 검사였어요",
    "폰을 공장 초기화했더니 카톡이 다 날아갔어요",
    "그건 곤란하오 ㅋㅋ 농담이에요",
])
def test_the_same_nouns_in_their_everyday_sense_do_not_fire(text):
    assert not detect_ccd_meta_disclosure(text)


@pytest.mark.xfail(strict=True, reason="known limit: the story's ending asked about without a game word "
                                       "(장면/턴/NPC) scores 0.26")
def test_the_ending_of_this_story_without_a_game_word():
    assert detect_ccd_meta_disclosure("이 이야기 엔딩은 제가 결국 전학 가는 거예요?")


@pytest.mark.xfail(strict=True, reason="known limit: short English self-talk still scores as meta (0.70); "
                                       "English lines weigh few n-grams")
def test_short_english_self_talk():
    assert not detect_ccd_meta_disclosure("Hang in there, I keep telling myself")
