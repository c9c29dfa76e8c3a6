"""Coach credits: pacing and performance recharges, spending one on a card.

Every change writes a ``live_coach_events`` row and the balance on the checkpoint through
:mod:`vignette_lab.store.app_repo`; callers own the transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from vignette_lab.session import coach as coach_mod
from vignette_lab.store import app_repo

if TYPE_CHECKING:
    from vignette_lab.engines.base import Engine
    from vignette_lab.store.base import Database

__all__ = ["pacing_due", "pacing_recharge", "performance_recharge", "record_spend", "spend_credit"]


def pacing_due(k: int, credits: int) -> bool:
    """Whether counselor turn ``k`` earns the pacing credit (every ``PACING_EVERY`` turns, below the cap)."""
    return k % coach_mod.PACING_EVERY == 0 and credits < coach_mod.MAX_CREDITS


def pacing_recharge(db: Database, session_id: str, *, k: int, c_seq: int, credits: int) -> int:
    """One credit every ``PACING_EVERY`` turns up to the cap; returns the new balance (event row only,
    the checkpoint written by the turn carries the balance)."""
    if not pacing_due(k, credits):
        return credits
    credits += 1
    app_repo.insert_coach_event(db, session_id=session_id, turn_seq=c_seq, event_type="recharge", credit_delta=1,
                                credit_balance=credits, reason="pacing", payload=None)
    return credits


def performance_recharge(db: Database, session_id: str, *, reason: str | None, c_seq: int, credits: int) -> int:
    """One credit for a well-judged turn (``reason`` from :func:`coach.recharge_reason`); new balance."""
    if not reason or credits >= coach_mod.MAX_CREDITS:
        return credits
    credits += 1
    app_repo.insert_coach_event(db, session_id=session_id, turn_seq=c_seq, event_type="recharge", credit_delta=1,
                                credit_balance=credits, reason=reason, payload=None)
    app_repo.set_coach_credits(db, session_id, credits)
    return credits


def record_spend(db: Database, session_id: str, card: Any, *, turn_seq: int, learner_text: str, client_text: str) -> None:
    """Store a used credit: the ``use`` event with the card and the new balance."""
    app_repo.insert_coach_event(db, session_id=session_id, turn_seq=turn_seq, event_type="use", credit_delta=-1,
                                credit_balance=card.credits_left, reason=card.source, payload=card.to_dict(),
                                learner_excerpt=coach_mod.excerpt(learner_text),
                                client_excerpt=coach_mod.excerpt(client_text))
    app_repo.set_coach_credits(db, session_id, card.credits_left)


def spend_credit(db: Database, live: Any, *, engine: Engine, previous_cards: Sequence[Any], generate: Callable[..., Any],
                 kb: Callable[[str], tuple[str, ...]]) -> coach_mod.CoachCard:
    """Make a coach card about the last turn and store the spent credit (the caller checked the balance)."""
    session_id = live.row["session_id"]
    last_c = next((t for s, t in reversed(live.history) if s == "counselor"), "")
    last_r = next((t for s, t in reversed(live.history) if s == "client"), "")
    turn_seq = max(0, 2 * int(live.state.turn_seq) - 1)
    card = coach_mod.make_card(engine, credits=live.credits, stage=live.state.stage,
                               goal_stages=tuple(live.row.get("goal_stages") or ()), learner_text_masked=last_c,
                               client_text_masked=last_r, last_cards=list(previous_cards), turn_seq=turn_seq,
                               session_id=session_id, generate=generate, kb_context=kb(f"{live.state.stage} {last_c}"),
                               persona_code=live.row["persona_code"], history=live.history)
    with db.transaction():
        record_spend(db, session_id, card, turn_seq=turn_seq, learner_text=last_c, client_text=last_r)
    live.credits = card.credits_left
    return card
