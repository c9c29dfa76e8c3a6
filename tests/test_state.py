"""The deterministic state machine (seed 001 §2.4): formulas, transitions, carry-over, ideation."""

import json
import math

import pytest

from vignette_lab.core.state import (
    CARRY_RAPPORT_FACTOR,
    STAGE_ADVANCE_RAPPORT,
    STAGE_BASE_OPENNESS,
    STAGE_MIN_TURNS,
    STAGE_ORDER,
    SessionState,
    build_progress,
    compute_effective_openness,
    estimate_rapport_signal,
    evolve,
    init_state,
    make_carry_over,
    next_stage,
)

CARD = {
    "resistance": {"base_resistance": 0.7, "unlock_rate": 0.6, "decay_floor": 0.3,
                   "silence_prob": 0.2, "deflection_prob": 0.2},
    "affect_baseline": {"suicide_ideation_stage": 2},
}


def test_openness_formula_matches_the_seed():
    got = compute_effective_openness("탐색", 0.3, 0.5, unlock_rate=0.6, decay=0.15)
    assert got == pytest.approx(STAGE_BASE_OPENNESS["탐색"] + 0.3 * 0.6 - 0.5 * 0.15)
    assert compute_effective_openness("라포", 0.0, 1.0, unlock_rate=0.1) == 0.0  # clamped at 0
    assert compute_effective_openness("정리", 1.0, 0.0, unlock_rate=1.0) == 1.0  # clamped at 1
    with pytest.raises(ValueError, match="stage must be one of"):
        compute_effective_openness("끝", 0.1, 0.1, unlock_rate=0.5)


def test_stage_needs_both_min_turns_and_rapport_and_never_goes_back():
    assert next_stage("라포", STAGE_MIN_TURNS["라포"] - 1, 1.0) == "라포"
    assert next_stage("라포", STAGE_MIN_TURNS["라포"], STAGE_ADVANCE_RAPPORT["라포"] - 0.01) == "라포"
    assert next_stage("라포", STAGE_MIN_TURNS["라포"], STAGE_ADVANCE_RAPPORT["라포"]) == "탐색"
    assert next_stage("정리", 99, 1.0) == "정리"
    state = init_state(CARD)
    seen = []
    for signal in [0.8] * 12 + [-1.0] * 10:
        state = evolve(state, signal)
        seen.append(STAGE_ORDER.index(state.stage))
    assert seen == sorted(seen), "stage went backwards"
    assert state.stage != "라포"


def test_good_moves_open_and_bad_moves_close_with_negatives_weighing_more():
    start = init_state(CARD)
    up = evolve(start, 0.5)
    down = evolve(start, -0.5)
    assert up.rapport_credit > start.rapport_credit
    assert up.resistance < start.resistance
    assert down.resistance > start.resistance
    # from the same credit, a -x signal removes more than +x adds
    mid = SessionState(rapport_credit=0.3, resistance=0.5, unlock_rate=0.6, decay_floor=0.2)
    assert (mid.rapport_credit - evolve(mid, -0.5).rapport_credit) > (evolve(mid, 0.5).rapport_credit - mid.rapport_credit)


def test_resistance_never_below_the_cards_floor():
    state = init_state(CARD)
    for _ in range(200):
        state = evolve(state, 1.0)
    assert state.resistance == pytest.approx(CARD["resistance"]["decay_floor"])
    assert 0.0 <= state.effective_openness <= 1.0


def test_ideation_never_decreases_within_a_session_and_is_capped():
    state = init_state(CARD)
    assert state.ideation_stage == 2
    for observed in (1, None, 3, 1, 2, 5, 1):
        before = state.ideation_stage
        state = evolve(state, 0.2, ideation_observed=observed)
        assert state.ideation_stage >= before
        assert state.ideation_stage <= 3
    assert state.ideation_stage == 3


def test_carry_over_is_lossless_and_follows_the_rules():
    state = init_state(CARD)
    for _ in range(15):
        state = evolve(state, 0.7, ideation_observed=3)
    carry = make_carry_over(state)
    restored = SessionState.from_snapshot(json.loads(json.dumps(carry.end_state)))
    assert restored == state  # JSON round-trip is exact
    nxt = init_state(CARD, carry)
    assert nxt.stage == "라포"
    assert nxt.rapport_credit == pytest.approx(state.rapport_credit * CARRY_RAPPORT_FACTOR)
    assert nxt.ideation_stage == 3  # kept, even though the card says 2
    base = CARD["resistance"]["base_resistance"]
    assert min(state.resistance, base) <= nxt.resistance <= max(state.resistance, base)
    assert carry.rapport_delta == pytest.approx(state.rapport_credit - state.prev_rapport_credit)


def test_ideation_never_decreases_across_sessions():
    state = init_state(CARD)
    state = evolve(state, 0.1, ideation_observed=3)
    second = init_state(CARD, make_carry_over(state))
    third = init_state(CARD, make_carry_over(evolve(second, 0.1, ideation_observed=1)))
    assert second.ideation_stage == third.ideation_stage == 3


def test_invalid_state_values_are_refused():
    with pytest.raises(ValueError, match="effective_openness"):
        SessionState(effective_openness=1.5)
    with pytest.raises(ValueError, match="ideation_stage"):
        SessionState(ideation_stage=4)
    with pytest.raises(ValueError, match="unknown SessionState field"):
        SessionState.from_snapshot({"stage": "라포", "bogus": 1})
    with pytest.raises(ValueError, match="rapport_signal"):
        evolve(SessionState(), math.nan)


@pytest.mark.parametrize("text", [
    "많이 힘드셨겠어요.",
    "그런 상황이면 답답했겠네요. 조금 더 이야기해 줄 수 있을까요?",
    "그럴 수 있어요. 충분히 이해가 돼요.",
    "요즘 어떤 일이 제일 마음에 걸려요?",
])
def test_rapport_signal_positive_for_empathy_validation_open_questions(text):
    assert estimate_rapport_signal(text) > 0.2


@pytest.mark.parametrize("text", [
    "그냥 공부를 더 열심히 하세요.",
    "그건 너무 예민한 거예요.",
    "부모님 말씀을 당연히 따라야죠, 그렇죠?",
    "긍정적으로 생각하면 돼요.",
])
def test_rapport_signal_negative_for_advice_judgement_leading(text):
    assert estimate_rapport_signal(text) < 0


def test_negative_cues_outweigh_positive_ones():
    assert estimate_rapport_signal("힘드셨겠어요. 그래도 공부를 더 하셔야 해요.") < 0


def test_progress_is_trainee_safe_percentages():
    state = init_state(CARD)
    for _ in range(9):
        state = evolve(state, 0.7, ideation_observed=3)
    progress = build_progress(state, ["라포", "탐색"])
    assert set(progress) >= {"stage", "stage_gauge", "rapport_percent", "rapport_gain", "openness_percent",
                             "defense_percent", "goals_reached"}
    assert "ideation" not in json.dumps(progress)
    for key in ("rapport_percent", "openness_percent", "defense_percent", "stage_gauge"):
        assert 0 <= progress[key] <= 100
    assert progress["stage_gauges"]["라포"] == 100 if state.stage != "라포" else progress["stage_gauge"] <= 99
