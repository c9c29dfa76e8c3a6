"""The drift scan: read a session, build its inputs, run the checks, log the findings.

:func:`scan_session` returns findings, :func:`scan_all` writes them to
``audit.persona_drift_log`` (idempotent per turn and check).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import pandas as pd
from tqdm.auto import tqdm

from vignette_lab.analytics.drift.anchors import _anchors, _cards, _embedder, _profile
from vignette_lab.analytics.drift.checks import (DEFAULT_CONTRAST_MARGIN, DEFAULT_THRESHOLD, THRESHOLD_NOTE,
                                                 DriftFinding, _check_threshold, _is_speech, check_turns)
from vignette_lab.errors import InputError
from vignette_lab.store import app_repo, audit_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["scan_all", "scan_session", "similarity_profile", "write_findings"]


def _pinned_facts(db: Database, session: Mapping[str, Any]) -> list[dict[str, Any]]:
    if not session.get("case_id"):
        return []
    return app_repo.standing_pinned_facts(db, session["case_id"], before_session_no=int(session.get("session_no") or 1))


def similarity_profile(db: Database, session_id: str, *, embedder: Any = None, cards: Mapping[str, Any] | None = None
                       ) -> pd.DataFrame:
    """Per client utterance similarities of a session (for calibration and plots).

    Returns
    -------
    pandas.DataFrame
        ``seq``, ``turn_id``, ``anchor_sim`` (raw cosine with the persona anchor),
        ``anchor_centred`` (centred cosine with the own anchor), ``best_other`` (persona code
        whose centred anchor is closest among the others), ``other_centred``, ``contrast``
        (``other_centred - anchor_centred``), ``session_sim`` (centred cosine with the centroid
        of the persona's earlier utterances; nan before 3 of them).
    """
    session = app_repo.get_session(db, session_id)
    if session is None:
        raise InputError(f"unknown session {session_id!r}", field="session_id")
    anchors = _anchors(_embedder(embedder), cards if cards is not None else _cards())
    turns = [t for t in app_repo.list_turns(db, session_id)
             if t["speaker"] == "client" and _is_speech(t["text_masked"])]
    return _profile(anchors, session["persona_code"], turns)



def scan_session(db: Database, session_id: str, *, embedder: Any = None, threshold: float = DEFAULT_THRESHOLD,
                 contrast_margin: float = DEFAULT_CONTRAST_MARGIN, cards: Mapping[str, Any] | None = None
                 ) -> list[DriftFinding]:
    """Run the five drift checks on every client utterance of one session.

    Parameters
    ----------
    db : Database
    session_id : str
    embedder : Embedder, default=None
        :func:`~vignette_lab.kb.embedders.select_embedder` when None.
    threshold : float, default=0.79
        Raw-cosine floor of the anchor similarity — an unvalidated working value (seed 004 M14).
    contrast_margin : float, default=0.30
        Flag when another persona's centred anchor is closer than the own one by more than this
        (mean over the last 4 utterances of at least 8 Hangul syllables).
    cards : mapping of str to PersonaCard, default=None
        Persona cards by code; :func:`~vignette_lab.core.personas.load_personas` when None.

    Returns
    -------
    list of DriftFinding
        Ordered by ``seq``; nothing is written (see :func:`scan_all` / :func:`write_findings`).
    """
    _check_threshold(threshold)
    session = app_repo.get_session(db, session_id)
    if session is None:
        raise InputError(f"unknown session {session_id!r}", field="session_id")
    cards = cards if cards is not None else _cards()
    code = session["persona_code"]
    card = cards.get(code)
    if card is None:
        raise InputError(f"session {session_id}: persona {code!r} has no card", field="persona_code")
    anchors = _anchors(_embedder(embedder), cards)
    turns = [t for t in app_repo.list_turns(db, session_id) if t["speaker"] == "client"]
    facts = _pinned_facts(db, session)
    speech = [t for t in turns if _is_speech(t["text_masked"])]
    prof = _profile(anchors, code, speech).set_index("turn_id") if speech else None
    return check_turns(session, card, turns, facts=facts, profile=prof,
                       line_stats=anchors.line_stats.get(code, {"sd_len": 5.0}), threshold=threshold,
                       contrast_margin=contrast_margin)


# --------------------------------------------------------------------------- storage
def _stored_type(kind: str) -> str:
    # Rows written before 'embedding_inconsistency' joined the CHECK were stored as
    # style_drift with detail.check holding the real type; readers still use detail.check.
    return kind if kind in audit_repo.DRIFT_TYPES else "style_drift"


def write_findings(db: Database, findings: Iterable[DriftFinding]) -> int:
    """Append findings to ``audit.persona_drift_log``, skipping (turn, check) pairs already logged.

    Returns
    -------
    int
        Rows written.
    """
    findings = list(findings)
    if not findings:
        return 0
    seen: set[tuple[str, str]] = set()
    for sid in sorted({f.session_id for f in findings}):
        for r in audit_repo.drift_log_checks(db, sid):
            seen.add((r["turn_id"], _check_of(r)))
    written = 0
    with db.transaction():
        for f in findings:
            if (f.turn_id, f.drift_type) in seen:
                continue
            seen.add((f.turn_id, f.drift_type))
            audit_repo.log_persona_drift(db, session_id=f.session_id, turn_id=f.turn_id, persona_code=f.persona_code,
                              drift_type=_stored_type(f.drift_type), severity=f.severity,
                              embedding_sim=f.embedding_sim, detail={"seq": f.seq, **dict(f.detail)},
                              engine=f.engine, model=f.model)
            written += 1
    return written


def _check_of(row: Mapping[str, Any]) -> str:
    detail = row.get("detail") or {}
    return detail.get("check", row["drift_type"]) if isinstance(detail, Mapping) else row["drift_type"]


def scan_all(db: Database, *, since: datetime | None = None, progress: bool = True, embedder: Any = None,
             threshold: float = DEFAULT_THRESHOLD, contrast_margin: float = DEFAULT_CONTRAST_MARGIN
             ) -> dict[str, Any]:
    """Scan every session (started at or after ``since``) and log its findings.

    Idempotent: a (turn, check) already in ``audit.persona_drift_log`` is not written again.

    Returns
    -------
    dict
        ``sessions`` scanned, ``findings`` found, ``written`` new rows, ``by_type`` counts,
        ``threshold`` and ``threshold_note``.
    """
    _check_threshold(threshold)
    sessions = app_repo.session_ids(db, since=since)
    emb, cards = _embedder(embedder), _cards()
    it: Iterable[str] = sessions
    if progress:
        it = tqdm(sessions, desc="drift scan", unit="session")
    found, written = 0, 0
    by_type: dict[str, int] = {}
    for sid in it:
        fs = scan_session(db, sid, embedder=emb, threshold=threshold, contrast_margin=contrast_margin, cards=cards)
        found += len(fs)
        for f in fs:
            by_type[f.drift_type] = by_type.get(f.drift_type, 0) + 1
        written += write_findings(db, fs)
    return {"sessions": len(sessions), "findings": found, "written": written, "by_type": by_type,
            "threshold": threshold, "threshold_note": THRESHOLD_NOTE}

