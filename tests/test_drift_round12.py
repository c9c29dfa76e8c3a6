"""Drift round 12 (twelfth session): classes read off the misses of drift ``dev_r8`` (ids ``dr-t8-``).

Register: dialect endings the reader mis-levelled (전라 polite -라우, 경상 -라카노/-다카나 questions,
충청 반말 copula -여). Meta: the game-master frame of this session (GM님, scenes, dice, NPCs, stats,
difficulty, turn commands, session resets) and the everyday counterparts with the same nouns (a TRPG
the client really plays, a school role-play, role models, prompt-writing as a skill, short English
self-talk). Every sentence here is new wording, not a dev line.
"""

from __future__ import annotations

import pytest

from vignette_lab.analytics.drift import classify_register


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
