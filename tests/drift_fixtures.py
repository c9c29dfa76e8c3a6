"""Test fixture: a degraded copy of a stored session, to check that the drift scan notices it.

Moved here from the package (it writes synthetic turns and is only a test aid).
"""

from __future__ import annotations

import uuid
from typing import Any, Mapping

from vignette_lab.analytics.drift import persona_anchor_lines
from vignette_lab.core.personas import load_personas
from vignette_lab.errors import InputError
from vignette_lab.store import app_repo

__all__ = ["inject_style_swap"]

_FORMAL_REPORT = (
    "본인은 최근 학업과 관련하여 상당한 스트레스를 경험하고 있습니다.",
    "말씀하신 내용에 대해서는 충분히 이해하고 있습니다.",
    "현재 상황을 객관적으로 정리하여 보고드리겠습니다.",
    "수면 시간은 평균 다섯 시간 정도로 파악됩니다.",
    "가족 구성원과의 의사소통은 원활하지 않은 편입니다.",
    "향후 개선 방안에 대하여 함께 논의하고자 합니다.",
    "해당 문제는 약 삼 개월 전부터 지속되었습니다.",
    "이상으로 제 상황에 대한 설명을 마치겠습니다.",
)


def inject_style_swap(db: Any, session_id: str, from_seq: int, *, style: str = "hapsyo",
                      cards: Mapping[str, Any] | None = None) -> str:
    """Copy a session and degrade its client voice from ``from_seq`` on (a drift test fixture).

    The stored session is never touched: a new session (``meta.drift_injected``) gets copies of
    all turns; client turns with ``seq >= from_seq`` are replaced.

    Parameters
    ----------
    db : Database
    session_id : str
        Source session.
    from_seq : int
        First turn sequence number whose client utterance is swapped.
    style : str, default='hapsyo'
        ``'hapsyo'``: formal 합쇼체 report sentences; ``'persona:P2'``: lines of another
        persona's card (cycled deterministically).

    Returns
    -------
    str
        The id of the degraded copy.
    """
    src = app_repo.get_session(db, session_id)
    if src is None:
        raise InputError(f"unknown session {session_id!r}", field="session_id")
    if isinstance(from_seq, bool) or not isinstance(from_seq, int) or from_seq < 1:
        raise InputError(f"from_seq must be a positive int. Got {from_seq!r} instead.", field="from_seq")
    if style == "hapsyo":
        bank = list(_FORMAL_REPORT)
    elif style.startswith("persona:"):
        other = style.split(":", 1)[1]
        cards = cards if cards is not None else load_personas()
        if other not in cards or other == src["persona_code"]:
            raise InputError(f"style {style!r}: need another persona's code, not {src['persona_code']!r}",
                             field="style")
        bank = persona_anchor_lines(cards[other])
    else:
        raise InputError(f"style must be 'hapsyo' or 'persona:<code>'. Got {style!r} instead.", field="style")
    new_id = str(uuid.uuid4())
    row = {k: src[k] for k in ("case_id", "learner_id", "cohort", "persona_id", "persona_code", "persona_version",
                               "mode", "counselor_profile", "engine", "model", "theory_mode", "goal_stages",
                               "session_no", "status", "started_at", "ended_at", "duration_limit_s",
                               "warning_before_s", "grace_s", "seed", "review_status") if k in src}
    row["meta"] = {**(src.get("meta") or {}), "drift_injected": {"source_session": session_id,
                                                                  "from_seq": from_seq, "style": style}}
    turns = app_repo.list_turns(db, session_id)
    with db.transaction():
        app_repo.insert_session(db, session_id=new_id, **row)
        k = 0
        for t in turns:
            text = t["text_masked"]
            if t["speaker"] == "client" and int(t["seq"]) >= from_seq:
                text = bank[k % len(bank)]
                k += 1
            app_repo.insert_turn(db, session_id=new_id, case_id=t["case_id"], seq=int(t["seq"]),
                                 speaker=t["speaker"], text_masked=text, visible_to=list(t["visible_to"]),
                                 sensitivity=int(t["sensitivity"] or 0), salience=t.get("salience"),
                                 intended_technique=t.get("intended_technique"), state_after=t.get("state_after"),
                                 created_at=t.get("created_at"))
    return new_id
