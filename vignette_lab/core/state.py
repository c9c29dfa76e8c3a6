"""The deterministic session state machine (seed 001 §2.4, seed 004 §2 and P2/P4).

No model output ever writes these numbers. The LLM (or the scripted engine) only *acts*
on them; this module owns stage, openness, resistance, rapport credit and ideation.

Formulas
--------
- Openness: ``effective_openness = clamp(stage_base + rapport_credit * unlock_rate
  - resistance * RESISTANCE_DECAY, 0, 1)``.
- Rapport credit: ``credit += RAPPORT_GAIN * signal`` for a positive signal and
  ``credit += RAPPORT_GAIN * NEGATIVE_WEIGHT * signal`` for a negative one (negative moves
  weigh more: a client closes faster than they open), clamped to ``[0, 1]``.
- Resistance eases with good moves and hardens with bad ones, never below the card's
  ``decay_floor``.
- Stage: linear 라포 → 탐색 → 개입 → 정리, advancing when both the minimum turns in the
  current stage and the cumulative rapport threshold are met. No going back.
- Ideation: ``max(current, observed)`` capped at 3 — it never decreases within or across
  sessions (safety R5).
- Carry-over between sessions of one (persona, learner) case: stage restarts at 라포,
  ``rapport_credit × 0.7``, resistance drifts 30% back toward the card's baseline, ideation kept.

All constants are working values chosen for the simulation (seed 004 §6.3: unvalidated
until a pilot measures them); they live here, in one place.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Mapping, Sequence

from vignette_lab.core.guardrails import IDEATION_STAGE_CAP, clamp_ideation

__all__ = [
    "CARRY_RAPPORT_FACTOR",
    "FULL_CYCLE_RAPPORT",
    "STAGE_ADVANCE_RAPPORT",
    "STAGE_BASE_OPENNESS",
    "STAGE_MIN_TURNS",
    "STAGE_ORDER",
    "CarryOver",
    "SessionState",
    "build_progress",
    "compute_effective_openness",
    "estimate_rapport_signal",
    "evolve",
    "init_state",
    "inter_session_resistance",
    "make_carry_over",
    "next_stage",
]

STAGE_ORDER: tuple[str, ...] = ("라포", "탐색", "개입", "정리")
STAGE_BASE_OPENNESS: dict[str, float] = {"라포": 0.15, "탐색": 0.35, "개입": 0.5, "정리": 0.55}
#: turns that must be spent in a stage before it can advance
STAGE_MIN_TURNS: dict[str, int] = {"라포": 3, "탐색": 4, "개입": 4}
#: cumulative rapport credit needed to leave a stage
STAGE_ADVANCE_RAPPORT: dict[str, float] = {"라포": 0.2, "탐색": 0.38, "개입": 0.55}
#: the rapport credit of a full 라포→정리 cycle (progress percentages are relative to it)
FULL_CYCLE_RAPPORT = 0.55
RAPPORT_GAIN = 0.06
NEGATIVE_WEIGHT = 1.6
RESISTANCE_DECAY = 0.15
RESISTANCE_EASE = 0.025
RESISTANCE_HARDEN = 0.05
CARRY_RAPPORT_FACTOR = 0.7
RESISTANCE_REBOUND = 0.3


def _clamp(x: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return lo if x < lo else hi if x > hi else x


@dataclass(frozen=True)
class SessionState:
    """Working memory (layer ①) of one session; checkpointed every turn."""

    stage: str = "라포"
    turn_seq: int = 0
    stage_turns: int = 0
    effective_openness: float = 0.15
    rapport_credit: float = 0.0
    resistance: float = 0.65
    ideation_stage: int = 1
    unlock_rate: float = 0.6
    decay_floor: float = 0.2
    prev_rapport_credit: float = 0.0
    last_signal: float = 0.0
    affect_state: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stage not in STAGE_ORDER:
            raise ValueError(f"stage must be one of {', '.join(STAGE_ORDER)}; got {self.stage!r}")
        for name in ("effective_openness", "resistance", "unlock_rate", "decay_floor"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and 0.0 <= value <= 1.0):
                raise ValueError(f"{name} must be a number between 0 and 1; got {value!r}")
        if not 1 <= int(self.ideation_stage) <= IDEATION_STAGE_CAP:
            raise ValueError(f"ideation_stage must be between 1 and {IDEATION_STAGE_CAP}; got {self.ideation_stage!r}")

    def snapshot(self) -> dict[str, Any]:
        """Lossless dict (JSON-safe); :meth:`from_snapshot` restores an equal state."""
        return asdict(self)

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any]) -> "SessionState":
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown SessionState field(s): {', '.join(sorted(unknown))}")
        values = dict(data)
        if "affect_state" in values:
            values["affect_state"] = dict(values["affect_state"] or {})
        return cls(**values)

    @property
    def stage_index(self) -> int:
        return STAGE_ORDER.index(self.stage)


@dataclass(frozen=True)
class CarryOver:
    """What a finished session hands to the next one of the same case (seed 004 §2 C)."""

    end_state: dict[str, Any]
    rapport_delta: float


def compute_effective_openness(stage: str, rapport_credit: float, resistance: float, *,
                               unlock_rate: float, decay: float = RESISTANCE_DECAY) -> float:
    """``clamp(stage_base + rapport_credit*unlock_rate − resistance*decay, 0, 1)``."""
    if stage not in STAGE_BASE_OPENNESS:
        raise ValueError(f"stage must be one of {', '.join(STAGE_ORDER)}; got {stage!r}")
    return _clamp(STAGE_BASE_OPENNESS[stage] + rapport_credit * unlock_rate - resistance * decay)


def next_stage(stage: str, stage_turns: int, rapport_credit: float) -> str:
    """The stage after this turn: advance one step when min turns and rapport are both met."""
    if stage == STAGE_ORDER[-1]:
        return stage
    if stage_turns >= STAGE_MIN_TURNS[stage] and rapport_credit >= STAGE_ADVANCE_RAPPORT[stage]:
        return STAGE_ORDER[STAGE_ORDER.index(stage) + 1]
    return stage


def evolve(state: SessionState, rapport_signal: float, *, unlock_rate: float | None = None,
           decay_floor: float | None = None, ideation_observed: int | None = None) -> SessionState:
    """Advance the state by one counselor turn.

    Parameters
    ----------
    state : SessionState
    rapport_signal : float
        In ``[-1, 1]``: positive for empathy, reflection, validation, open questions;
        negative for advice jumps, judgement, leading questions, "should" statements.
    unlock_rate, decay_floor : float, optional
        The persona card's resistance parameters (default: the values stored on the state).
    ideation_observed : int, optional
        An ideation stage observed this turn. The state keeps the maximum; never lower.
    """
    if not isinstance(rapport_signal, (int, float)) or not math.isfinite(rapport_signal):
        raise ValueError(f"rapport_signal must be a finite number; got {rapport_signal!r}")
    signal = _clamp(float(rapport_signal), -1.0, 1.0)
    unlock = state.unlock_rate if unlock_rate is None else float(unlock_rate)
    floor = state.decay_floor if decay_floor is None else float(decay_floor)

    weight = RAPPORT_GAIN if signal >= 0 else RAPPORT_GAIN * NEGATIVE_WEIGHT
    credit = _clamp(state.rapport_credit + weight * signal)
    if signal >= 0:
        resistance = state.resistance - RESISTANCE_EASE * signal
    else:
        resistance = state.resistance + RESISTANCE_HARDEN * (-signal)
    resistance = _clamp(max(resistance, floor))

    stage_turns = state.stage_turns + 1
    stage = next_stage(state.stage, stage_turns, credit)
    if stage != state.stage:
        stage_turns = 0
    openness = compute_effective_openness(stage, credit, resistance, unlock_rate=unlock)
    ideation = state.ideation_stage
    if ideation_observed is not None:
        ideation = max(ideation, clamp_ideation(ideation_observed))
    return replace(state, stage=stage, turn_seq=state.turn_seq + 1, stage_turns=stage_turns,
                   effective_openness=openness, rapport_credit=credit, resistance=resistance,
                   ideation_stage=ideation, unlock_rate=unlock, decay_floor=floor, last_signal=signal)


def inter_session_resistance(prev_resistance: float, base_resistance: float, *, floor: float) -> float:
    """Resistance at the start of the next session: 30% of the way back to the baseline."""
    return _clamp(max(prev_resistance + (base_resistance - prev_resistance) * RESISTANCE_REBOUND, floor))


def _card_params(card: Any) -> tuple[float, float, float, int]:
    """(base_resistance, unlock_rate, decay_floor, ideation) from a PersonaCard or a card dict."""
    if isinstance(card, Mapping):
        res = card["resistance"]
        ideation = card["affect_baseline"]["suicide_ideation_stage"]
    else:
        res = card.resistance
        affect = card.affect_baseline
        ideation = affect["suicide_ideation_stage"] if isinstance(affect, Mapping) else affect.suicide_ideation_stage
    get = (lambda k: res[k]) if isinstance(res, Mapping) else (lambda k: getattr(res, k))
    return float(get("base_resistance")), float(get("unlock_rate")), float(get("decay_floor")), int(ideation)


def init_state(card: Any, carry: CarryOver | Mapping[str, Any] | None = None) -> SessionState:
    """The state a session starts in.

    Without ``carry`` (a first session) the card's baseline; with the previous session's
    :class:`CarryOver` (or its ``end_state`` dict) the lossless carry-over: stage restarts at
    라포, rapport credit × 0.7, resistance drifts toward the baseline, ideation is kept.
    """
    base_res, unlock, floor, card_ideation = _card_params(card)
    ideation = clamp_ideation(card_ideation)
    credit, resistance = 0.0, _clamp(max(base_res, floor))
    if carry is not None:
        end = carry.end_state if isinstance(carry, CarryOver) else carry
        prev = SessionState.from_snapshot(end) if not isinstance(end, SessionState) else end
        credit = _clamp(prev.rapport_credit * CARRY_RAPPORT_FACTOR)
        resistance = inter_session_resistance(prev.resistance, base_res, floor=floor)
        ideation = max(ideation, prev.ideation_stage)
    openness = compute_effective_openness("라포", credit, resistance, unlock_rate=unlock)
    return SessionState(stage="라포", turn_seq=0, stage_turns=0, effective_openness=openness,
                        rapport_credit=credit, resistance=resistance, ideation_stage=ideation,
                        unlock_rate=unlock, decay_floor=floor, prev_rapport_credit=credit)


def make_carry_over(state: SessionState) -> CarryOver:
    """(A) the end state copied by code, (B) this session's rapport change."""
    return CarryOver(end_state=state.snapshot(), rapport_delta=state.rapport_credit - state.prev_rapport_credit)


# ------------------------------------------------------------- rapport heuristic

_FEELING = (r"(힘드|힘들|힘든|속상|답답|서운|섭섭|외로|외롭|불안|무서|무섭|막막|지치|지쳤|지친|지쳐|억울|괴로|괴롭|슬프|슬펐|"
            r"화가|화나|버거|긴장|무거|부담|불편|두렵|두려|겁이|겁나|걱정|후련|아쉬|허전|창피|부끄|혼란|조심스|우울|"
            r"마음이|마음도|기분이|속은|외로움|실망)")
_POSITIVE: tuple[tuple[str, float], ...] = (
    # reflection of feelings: a feeling word voiced back with a tentative, reflective ending
    (_FEELING + r"[가-힣\s]{0,14}(겠어요|겠네요|겠다|었겠|았겠|셨겠|군요|구나|것\s*같네요|것\s*같아요|보여요|보이네요|네요|죠)", 0.6),
    (r"(그랬|그러셨|그렇)(군요|구나|겠어요|었겠어요|셨겠어요)", 0.4),
    # restatement / summary
    (r"(는|다는|라는|하다는|이라는)\s*(말|얘기|이야기)(이네요|이군요|군요|네요|씀이죠|씀이네요|이죠|이고요)|들어\s*보니|"
     r"(말씀|이야기)(하신|해\s*주신)", 0.35),
    # validation
    (r"(그럴\s*수\s*있|그럴\s*만|충분히\s*(이해|그럴)|당연(해요|하죠|한\s*거|한\s*일|히\s*그럴)|누구(라도|든|나)\s*[가-힣\s]{0,12}(그래|그럴|거예요|났을)|"
     r"이상한\s*게\s*아니|말이\s*돼|이해가\s*(가|돼|됩)|자연스러운)", 0.55),
    # approval and reassurance
    (r"(고마워|고맙|잘했|잘하고|애썼|애쓰|대단|다행|용기|버텨|버틴|견뎌|견딘|괜찮아요|괜찮습니다)", 0.4),
    # open questions
    (r"(어때요|어땠|어떤|어떻게|무엇|뭐가|뭘|어떨\s*때|어디서부터|들려줄|들려주|이야기해\s*(줄|주실|줘)|말해\s*(줄|주실)|조금\s*더\s*(이야기|말))", 0.4),
)
_NEGATIVE: tuple[tuple[str, float], ...] = (
    # premature advice / direct guidance
    (r"([가-힣]+\s*보세요|하세요|해\s*봐요|하시면\s*(돼|됩)|는\s*게\s*좋(아요|겠어요|습니다)|하면\s*돼|해야\s*(해|돼|합)|하셔야|"
     r"하지\s*마세요|그만\s*두세요|노력해\s*보|생각을\s*바꿔|긍정적으로\s*생각)", 0.5),
    # judgement / blame
    (r"(잘못|그건\s*아니|너무\s*예민|별거\s*아니|그게\s*뭐가|이해가\s*안\s*(돼|가)|왜\s*그랬|핑계|나약|유난|다들\s*그래|"
     r"누구나\s*다\s*겪|그\s*정도는|엄살)", 0.7),
    # "should" statements
    (r"(당연히\s*[가-힣\s]{0,8}해야|반드시|무조건|원래\s*[가-힣\s]{0,8}(거|법))", 0.5),
    # leading / pressuring questions
    (r"(지\s*않아요\?|잖아요|맞죠\?|그렇죠\?|아니에요\?|안\s*그래요\?)", 0.35),
)
_POS_RX = tuple((re.compile(p), w) for p, w in _POSITIVE)
_NEG_RX = tuple((re.compile(p), w) for p, w in _NEGATIVE)


def estimate_rapport_signal(text: str) -> float:
    """A light keyword estimate of how a counselor utterance lands, in ``[-1, 1]``.

    Empathy, reflection, validation and open questions raise it; advice jumps,
    judgement, leading questions and "should" statements lower it, and negatives weigh more.
    The evaluator owns precise scoring; this estimate only drives the state machine when no
    evaluator signal is available.
    """
    text = text or ""
    pos = sum(w for rx, w in _POS_RX if rx.search(text))
    neg = sum(w for rx, w in _NEG_RX if rx.search(text))
    if pos == 0 and neg == 0:
        return 0.05 if text.strip() else 0.0  # a neutral, attentive turn helps a little
    return _clamp(pos - NEGATIVE_WEIGHT * neg, -1.0, 1.0)


# --------------------------------------------------------------------- progress

def build_progress(state: SessionState, goal_stages: Sequence[str] = (), *,
                   prev_rapport_credit: float | None = None) -> dict[str, Any]:
    """Trainee-safe progress percentages derived from the state (seed 001 §2.9, P2).

    Stage gauge: passed stages 100, the current stage ``rapport_credit / threshold``
    (capped at 99 while waiting for the transition). Rapport percent is relative to a full
    cycle (0.55) and accumulates across sessions through the ×0.7 carry-over. Never
    includes ideation or anything from the persona card.
    """
    prev = state.prev_rapport_credit if prev_rapport_credit is None else prev_rapport_credit
    gauges: dict[str, int] = {}
    for i, stage in enumerate(STAGE_ORDER):
        if i < state.stage_index:
            gauges[stage] = 100
        elif i == state.stage_index:
            if stage == STAGE_ORDER[-1]:
                gauges[stage] = 100
            else:
                lower = STAGE_ADVANCE_RAPPORT[STAGE_ORDER[i - 1]] if i > 0 else 0.0
                span = STAGE_ADVANCE_RAPPORT[stage] - lower
                frac = (state.rapport_credit - lower) / span if span > 0 else 1.0
                gauges[stage] = int(min(99, max(0, round(100 * frac))))
        else:
            gauges[stage] = 0
    goals = [g for g in goal_stages if g in STAGE_ORDER]
    return {
        "stage": state.stage,
        "stage_index": state.stage_index,
        "stage_gauges": gauges,
        "stage_gauge": gauges[state.stage],
        "rapport_percent": int(round(100 * min(1.0, state.rapport_credit / FULL_CYCLE_RAPPORT))),
        "rapport_gain": int(round(100 * (state.rapport_credit - prev) / FULL_CYCLE_RAPPORT)),
        "openness_percent": int(round(100 * state.effective_openness)),
        "defense_percent": int(round(100 * state.resistance)),
        "goal_stages": goals,
        "goals_reached": [g for g in goals if STAGE_ORDER.index(g) <= state.stage_index],
        "turn_seq": state.turn_seq,
    }
