"""Writers and readers for the ``audit`` schema (append-only, metadata only).

``audit.llm_call_log`` never holds prompt or completion text: :func:`log_llm_call`
refuses any key that could carry it. Rows are only ever inserted (Postgres triggers
reject UPDATE/DELETE; on DuckDB this module simply has no update path).
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Sequence

from vignette_lab.errors import InputError

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "FORBIDDEN_LLM_KEYS",
    "LLM_CALL_COLUMNS",
    "drift_log_checks",
    "drift_log_with_session_fields",
    "insert_llm_rows",
    "llm_rows",
    "log_audit",
    "log_llm_call",
    "log_llm_calls",
    "log_persona_drift",
    "read_audit_log",
    "read_llm_calls",
    "read_persona_drift",
]

LLM_CALL_COLUMNS = ("call_id", "created_at", "ai_role", "provider", "model", "session_id", "request_hash",
                    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd",
                    "latency_ms", "status", "error_code")
FORBIDDEN_LLM_KEYS = frozenset({"prompt", "completion", "text", "messages", "system", "content",
                                "response", "request", "output", "input"})
DRIFT_TYPES = ("big5_violation", "ccd_leak", "fact_contradiction", "style_drift", "embedding_inconsistency")
SEVERITIES = ("warn", "block")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def log_llm_call(db: Database, **meta: Any) -> str:
    """Insert one ``audit.llm_call_log`` row of call metadata; returns ``call_id``.

    Parameters
    ----------
    db : Database
    **meta
        Any of :data:`LLM_CALL_COLUMNS`. ``call_id`` and ``created_at`` are filled when
        missing; ``status`` defaults to ``'ok'``.

    Raises
    ------
    InputError
        For a key that could carry prompt/completion text (``prompt``, ``completion``,
        ``text``, ``messages`` …) or any unknown key.

    Examples
    --------
    >>> from vignette_lab.store import connect, init_db
    >>> db = connect(":memory:"); _ = init_db(db)
    >>> cid = log_llm_call(db, ai_role="client", provider="scripted", model="scripted-v1",
    ...                    input_tokens=12, output_tokens=30, latency_ms=4.2)
    >>> read_llm_calls(db)[0]["output_tokens"]
    30
    """
    return log_llm_calls(db, [meta])[0]


def _llm_row(meta: dict[str, Any]) -> dict[str, Any]:
    forbidden = sorted(k for k in meta if k.lower() in FORBIDDEN_LLM_KEYS)
    if forbidden:
        raise InputError(f"audit.llm_call_log stores metadata only; refusing key(s) {', '.join(forbidden)} "
                         "(never log prompt or completion text)", field=forbidden[0])
    unknown = sorted(set(meta) - set(LLM_CALL_COLUMNS))
    if unknown:
        raise InputError(f"unknown llm_call_log field(s) {', '.join(unknown)}; expected a subset of "
                         f"{', '.join(LLM_CALL_COLUMNS)}", field=unknown[0])
    return {"call_id": str(uuid.uuid4()), "created_at": _now(), "status": "ok", **meta}


def log_llm_calls(db: Database, records: list[dict[str, Any]]) -> list[str]:
    """Insert several ``audit.llm_call_log`` rows in one statement; returns their ``call_id`` s.

    Every record is checked as in :func:`log_llm_call` before anything is written. Records
    with the same keys share one multi-row ``INSERT`` (a turn's two calls cost one statement).

    Raises
    ------
    InputError
        For a key that could carry prompt/completion text, or any unknown key.
    """
    return insert_llm_rows(db, llm_rows(records))


def llm_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The checked rows of :func:`log_llm_calls` (no statement runs; ``InputError`` as there)."""
    return [_llm_row(dict(meta)) for meta in records]


def insert_llm_rows(db: Database, rows: list[dict[str, Any]]) -> list[str]:
    """Write rows made by :func:`llm_rows`: one multi-row ``INSERT`` per set of keys."""
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(c for c in LLM_CALL_COLUMNS if c in row), []).append(row)
    for cols, group in groups.items():
        db.insert_rows("audit.llm_call_log", cols, [[row[c] for c in cols] for row in group])
    return [row["call_id"] for row in rows]


def log_persona_drift(db: Database, *, session_id: str, drift_type: str, persona_code: str | None = None,
                      persona_id: str | None = None, turn_id: str | None = None,
                      embedding_sim: float | None = None, detail: dict[str, Any] | None = None,
                      severity: str | None = None, engine: str | None = None,
                      model: str | None = None) -> str:
    """Insert one ``audit.persona_drift_log`` row (seed 004 §3.7); returns its id.

    Parameters
    ----------
    drift_type : {"big5_violation", "ccd_leak", "fact_contradiction", "style_drift", "embedding_inconsistency"}
    severity : {'warn', 'block'} or None
    embedding_sim : float, default=None
        Embedding consistency against the persona anchor (KPI ≥ 0.79).
    detail : dict, default=None
        Masked, metadata-only evidence (never raw learner text).
    """
    if drift_type not in DRIFT_TYPES:
        raise InputError(f"drift_type must be one of {', '.join(DRIFT_TYPES)}. Got {drift_type!r} instead.",
                         field="drift_type")
    if severity is not None and severity not in SEVERITIES:
        raise InputError(f"severity must be 'warn', 'block' or None. Got {severity!r} instead.", field="severity")
    if not session_id:
        raise InputError("session_id is required", field="session_id")
    event_id = str(uuid.uuid4())
    db.execute(
        "INSERT INTO audit.persona_drift_log (id, session_id, turn_id, persona_id, persona_code, drift_type, "
        f"embedding_sim, detail, severity, engine, model, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, "
        f"{db.dialect.json_param()}, ?, ?, ?, ?)",
        [event_id, session_id, turn_id, persona_id, persona_code, drift_type, embedding_sim,
         None if detail is None else json.dumps(detail, ensure_ascii=False), severity, engine, model, _now()])
    return event_id


def log_audit(db: Database, actor: str, action: str, target: str | None = None,
              detail: dict[str, Any] | None = None) -> str:
    """Insert one ``audit.audit_log`` row (who did what to which thing); returns its id.

    Examples
    --------
    >>> from vignette_lab.store import connect, init_db
    >>> db = connect(":memory:"); _ = init_db(db)
    >>> _ = log_audit(db, "local", "annotation.accept", "ann-1", {"round": 2})
    >>> read_audit_log(db, action="annotation.accept")[0]["detail"]
    {'round': 2}
    """
    if not actor or not action:
        raise InputError("audit events need an actor and an action", field="actor" if not actor else "action")
    event_id = str(uuid.uuid4())
    db.execute(f"INSERT INTO audit.audit_log (event_id, created_at, actor, action, target, detail) "
               f"VALUES (?, ?, ?, ?, ?, {db.dialect.json_param()})",
               [event_id, _now(), actor, action, target,
                None if detail is None else json.dumps(detail, ensure_ascii=False)])
    return event_id


def _where(filters: dict[str, Any]) -> tuple[str, list[Any]]:
    parts = [(k, v) for k, v in filters.items() if v is not None]
    if not parts:
        return "", []
    return " WHERE " + " AND ".join(f"{k} = ?" for k, _ in parts), [v for _, v in parts]


def read_llm_calls(db: Database, *, session_id: str | None = None, ai_role: str | None = None,
                   limit: int | None = None) -> list[dict[str, Any]]:
    """``audit.llm_call_log`` rows, oldest first, optionally filtered."""
    where, params = _where({"session_id": session_id, "ai_role": ai_role})
    tail = f" LIMIT {int(limit)}" if limit is not None else ""
    return db.fetchall(f"SELECT * FROM audit.llm_call_log{where} ORDER BY created_at, call_id{tail}", params)


def read_persona_drift(db: Database, *, session_id: str | None = None, persona_code: str | None = None,
                       drift_type: str | None = None) -> list[dict[str, Any]]:
    """``audit.persona_drift_log`` rows, oldest first, optionally filtered."""
    where, params = _where({"session_id": session_id, "persona_code": persona_code, "drift_type": drift_type})
    return db.fetchall(f"SELECT * FROM audit.persona_drift_log{where} ORDER BY created_at, id", params)


def read_audit_log(db: Database, *, actor: str | None = None, action: str | None = None,
                   target: str | None = None) -> list[dict[str, Any]]:
    """``audit.audit_log`` rows, oldest first, optionally filtered."""
    where, params = _where({"actor": actor, "action": action, "target": target})
    return db.fetchall(f"SELECT * FROM audit.audit_log{where} ORDER BY created_at, event_id", params)


def drift_log_checks(db: Database, session_id: str) -> list[dict[str, Any]]:
    """``turn_id``, ``drift_type`` and ``detail`` of every drift finding logged for a session."""
    return db.fetchall("SELECT turn_id, drift_type, detail FROM audit.persona_drift_log WHERE session_id = ?",
                       [session_id])


_SESSION_FIELDS = ("persona_code", "engine", "model", "mode", "counselor_profile")


def drift_log_with_session_fields(db: Database, fields: Sequence[str]) -> list[dict[str, Any]]:
    """Every drift finding (turn, type, severity, similarity, detail, session) with the session's ``fields``."""
    bad = [f for f in fields if f not in _SESSION_FIELDS]
    if bad:
        raise InputError(f"session fields must be among {', '.join(_SESSION_FIELDS)}. Got {list(fields)!r}.",
                         field="fields")
    sel = "".join(f"s.{c}, " for c in fields)
    return db.fetchall(f"SELECT {sel}d.turn_id, d.drift_type, d.severity, d.embedding_sim, d.detail, d.session_id "
                       "FROM audit.persona_drift_log d JOIN app.sessions s ON s.session_id = d.session_id")
