"""Who may read what: one rule table for both backends (seed 004 §4, seed 001 §5.4).

Every AI view (``client``, ``counselor``, ``evaluator``) and human role (``learner``,
``faculty``, ``researcher``; ``admin`` uses the researcher rules) has

- **table and column privileges** (:data:`PRIVILEGES`): on PostgreSQL they become ``GRANT``
  statements for the ``NOLOGIN`` roles ``vignette_<name>`` (:func:`grant_sql`); on DuckDB the
  repository gateway (:mod:`vignette_lab.store.gateway`) refuses the same columns and tables;
- **row rules** (:func:`row_filter`): visibility (``visible_to`` holds the view and
  ``sensitivity`` is within its maximum) and ownership (a learner sees their own rows, faculty
  their own cohort's, researchers and admins all). On PostgreSQL the same rules are the RLS
  policies of ``rls.postgres.sql``; the gateway adds them as a WHERE clause on both backends.

The client AI has no privilege on the CCD or DSM columns, on evaluator-only tables
(``turn_evaluation``, ``session_evaluation``, ``learner_profile``, coach and safety events,
``taxonomy_version``) or on audit rows; the counselor AI sees only the conversation surface.
"""

from __future__ import annotations

from typing import Any

from vignette_lab.store.base import SENSITIVITY_MAX, Database

__all__ = ["DB_ROLES", "PRIVILEGES", "ROW_RULES", "db_role", "grant_sql", "may", "row_filter", "rule_name"]

ALL = "*"

# table -> columns nobody reads through a view or a principal (bcrypt hashes stay in the users file)
NEVER = {"app.app_user": {"password_hash"}}

_SESSION_TABLES = ("app.sessions", "app.session_state", "app.turns", "app.session_summary", "app.case_profile",
                   "app.live_coach_events", "app.safety_events", "app.turn_embedding")
_AUDIT = ("audit.llm_call_log", "audit.persona_drift_log", "audit.audit_log")
_KB_READ = ("kb.source", "kb.document", "kb.chunk")

# PRIVILEGES[rule][table] = (privileges, excluded columns). "SELECT" with excluded columns becomes
# a column-level grant of every other column.
PRIVILEGES: dict[str, dict[str, tuple[tuple[str, ...], frozenset[str]]]] = {}


def _grant(rule: str, tables, privs=("SELECT",), exclude=()) -> None:
    for table in (tables,) if isinstance(tables, str) else tables:
        PRIVILEGES.setdefault(rule, {})[table] = (tuple(privs), frozenset(exclude) | NEVER.get(table, set()))


# --- AI views ---------------------------------------------------------------------------------
for _view in ("client", "counselor", "evaluator"):
    _grant(_view, ("app.schema_meta", "app.sessions", *_KB_READ))
    _grant(_view, (*_AUDIT, "kb.retrieval_log"), ("INSERT",))
_grant("client", ("app.session_state", "app.turns", "app.pinned_fact", "app.turn_embedding"))
_grant("client", "app.session_summary", exclude=("open_threads",))
_grant("client", "app.case_profile", exclude=("ccd_estimate",))
_grant("client", "app.persona_card", exclude=("ccd", "dsm5_dimensional"))
_grant("counselor", "app.turns")
_grant("counselor", "app.persona_card", exclude=("ccd", "dsm5_dimensional", "card", "theory_target"))
_grant("evaluator", ("app.taxonomy_version", "app.persona_card", "app.case_profile", "app.session_state",
                     "app.turns", "app.turn_evaluation", "app.session_evaluation", "app.session_summary",
                     "app.pinned_fact", "app.pinned_fact_history", "app.live_coach_events", "app.safety_events",
                     "app.learner_profile", "app.turn_embedding"))

# --- human roles ------------------------------------------------------------------------------
_LEARNER_WRITE = ("SELECT", "INSERT", "UPDATE", "DELETE")
_grant("learner", ("app.schema_meta",))
_grant("learner", "app.app_user")
_grant("learner", "app.persona_card", exclude=("ccd", "dsm5_dimensional"))
_grant("learner", "app.case_profile", _LEARNER_WRITE, exclude=("ccd_estimate",))
_grant("learner", ("app.sessions", "app.session_state", "app.session_summary", "app.session_evaluation",
                   "app.learner_profile", "app.turn_embedding"), _LEARNER_WRITE)
_grant("learner", ("app.turns", "app.live_coach_events", "app.safety_events"), ("SELECT", "INSERT"))
# the evaluator hook runs inside the learner's request: it writes scores it may not read
_grant("learner", ("app.turn_evaluation", "app.pinned_fact_history", *_AUDIT), ("INSERT",))

_APP_TABLES = ("app.schema_meta", "app.taxonomy_version", "app.app_user", "app.persona_card", "app.case_profile",
               "app.sessions", "app.session_state", "app.turns", "app.turn_evaluation", "app.session_evaluation",
               "app.session_summary", "app.pinned_fact", "app.pinned_fact_history", "app.live_coach_events",
               "app.safety_events", "app.learner_profile", "app.turn_embedding")
_grant("faculty", (*_APP_TABLES, *_KB_READ, "kb.retrieval_log"))
_grant("faculty", _AUDIT, ("INSERT",))
_grant("faculty", "ds.*", ("SELECT", "INSERT", "UPDATE", "DELETE"))
_grant("researcher", (*_APP_TABLES, *_KB_READ, "kb.retrieval_log"), ("SELECT", "INSERT", "UPDATE", "DELETE"))
_grant("researcher", ("app.turns", "app.pinned_fact_history"), ("SELECT", "INSERT"))  # append-only
_grant("researcher", _AUDIT, ("SELECT", "INSERT"))
_grant("researcher", "ds.*", ("SELECT", "INSERT", "UPDATE", "DELETE"))
_grant("evaluator", "ds.*", ("SELECT",))

DB_ROLES = {rule: f"vignette_{rule}" for rule in PRIVILEGES}

# Row rules by table: (kind, column) pairs, all of which must hold.
#   ("ai", None)           visible_to holds the view and sensitivity <= the view's maximum
#   ("session", col)       the session in col is the principal's (learner) / cohort's (faculty)
#   ("case", col)          the case in col is the principal's / their cohort's
#   ("learner", col)       col is the learner principal / a learner of the faculty's cohort
#   ("cohort", col)        col is the faculty's cohort (learner: own user row, see user_row)
#   ("no_learner", None)   the learner principal may not read the rows (write-only)
ROW_RULES: dict[str, tuple[tuple[str, str | None], ...]] = {
    "app.sessions": (("owner_session", None),),
    "app.session_state": (("session", "session_id"),),
    "app.turns": (("ai", None), ("session", "session_id")),
    "app.turn_evaluation": (("ai", None), ("no_learner", None), ("session", "session_id")),
    "app.session_evaluation": (("session", "session_id"),),
    "app.session_summary": (("session", "session_id"),),
    "app.case_profile": (("owner_case", None),),
    "app.pinned_fact": (("ai", None), ("case", "case_id")),
    "app.pinned_fact_history": (("case", "case_id"),),
    "app.live_coach_events": (("session", "session_id"),),
    "app.safety_events": (("session", "session_id"),),
    "app.learner_profile": (("learner", "learner_id"),),
    "app.turn_embedding": (("learner", "learner_id"), ("case", "case_id")),
    "app.app_user": (("user_row", None),),
    "kb.chunk": (("ai", None),),
    "kb.source": (("ai", None),),
    "ds.dataset_item": (("learner_or_null", "learner_id"),),
}


def rule_name(view: str | None, principal: tuple[str, str, str | None] | None) -> str | None:
    """The rule set in force: the AI view when one is active, else the human role, else None."""
    if view is not None:
        return view
    if principal is not None:
        return "researcher" if principal[0] in ("researcher", "admin") else principal[0]
    return None


def db_role(view: str | None, principal) -> str | None:
    """The PostgreSQL role the store switches to with ``SET LOCAL ROLE`` (None: no context)."""
    rule = rule_name(view, principal)
    return None if rule is None else DB_ROLES[rule]


def _entry(rule: str, table: str):
    rules = PRIVILEGES[rule]
    if table in rules:
        return rules[table]
    return rules.get(table.split(".")[0] + ".*")


def may(rule: str, table: str, privilege: str = "SELECT", column: str | None = None) -> bool:
    """Whether ``rule`` holds ``privilege`` on ``table`` (and ``column`` when given)."""
    entry = _entry(rule, table)
    if entry is None or privilege not in entry[0]:
        return False
    return column is None or column not in entry[1]


def row_filter(db: Database, table: str, alias: str = "") -> tuple[str, list[Any]]:
    """``(sql, params)`` limiting ``table`` to the rows the active view and principal may see.

    Portable SQL (``?`` placeholders, ``db.dialect`` for arrays); ``("TRUE", [])`` outside any
    context. The same rules are the RLS policies on PostgreSQL.
    """
    view, principal = db.current_view, db.current_principal
    p = f"{alias}." if alias else ""
    parts: list[str] = []
    params: list[Any] = []
    role = uid = cohort = None
    if principal is not None:
        role, uid, cohort = principal
        role = "researcher" if role in ("researcher", "admin") else role
    human = principal is not None and role != "researcher"

    def scoped(learner_sql: str, faculty_sql: str) -> None:
        """A learner sees rows matching their id, faculty their cohort, anyone else no row."""
        if not human:
            return
        if role == "learner":
            parts.append(learner_sql)
            params.append(uid)
        elif role == "faculty":
            parts.append(faculty_sql)
            params.append(cohort)
        else:
            parts.append("FALSE")

    def learner_ok(col: str | None) -> None:
        assert col is not None, f"{table}: a learner rule names its column"
        scoped(f"{p}{col} = ?", f"{p}{col} IN (SELECT user_id FROM app.app_user WHERE cohort = ?)")

    for kind, col in ROW_RULES.get(table, ()):
        if kind == "ai":
            if view is not None:
                parts.append(f"({db.dialect.contains(p + 'visible_to')} AND {p}sensitivity <= ?)")
                params.extend([view, SENSITIVITY_MAX[view]])
        elif kind == "no_learner":
            if human and role == "learner":
                parts.append("FALSE")
        elif kind == "session":
            scoped(f"{p}{col} IN (SELECT session_id FROM app.sessions WHERE learner_id = ?)",
                   f"{p}{col} IN (SELECT session_id FROM app.sessions WHERE cohort = ?)")
        elif kind == "case":
            scoped(f"{p}{col} IN (SELECT case_id FROM app.case_profile WHERE learner_id = ?)",
                   f"{p}{col} IN (SELECT case_id FROM app.sessions WHERE cohort = ?)")
        elif kind == "learner":
            learner_ok(col)
        elif kind == "learner_or_null":
            if human:
                before = len(parts)
                learner_ok(col)
                if len(parts) > before:
                    parts[-1] = f"({p}{col} IS NULL OR {parts[-1]})"
        elif kind == "owner_session":
            scoped(f"{p}learner_id = ?", f"{p}cohort = ?")
        elif kind == "owner_case":
            scoped(f"{p}learner_id = ?", f"{p}case_id IN (SELECT case_id FROM app.sessions WHERE cohort = ?)")
        elif kind == "user_row":
            scoped(f"{p}user_id = ?", f"{p}cohort = ?")
    return (" AND ".join(parts) if parts else "TRUE"), params


def grant_sql(columns: dict[str, list[str]]) -> str:
    """The GRANT statements of :data:`PRIVILEGES` for PostgreSQL.

    Parameters
    ----------
    columns : dict
        ``{"schema.table": [column, ...]}`` of the tables that exist (from the catalog);
        rules naming a missing table are skipped.
    """
    out: list[str] = []
    for rule, tables in PRIVILEGES.items():
        role = DB_ROLES[rule]
        for table, (privs, exclude) in tables.items():
            targets = ([t for t in columns if t.startswith(table[:-1])] if table.endswith(".*")
                       else [table] if table in columns else [])
            for target in targets:
                schema, name = target.split(".")
                qualified = f'"{schema}"."{name}"'
                other = [p for p in privs if p != "SELECT"]
                if "SELECT" in privs:
                    if exclude:
                        cols = [c for c in columns[target] if c not in exclude]
                        if cols:
                            out.append(f"GRANT SELECT ({', '.join(chr(34) + c + chr(34) for c in cols)}) "
                                       f"ON {qualified} TO {role};")
                    else:
                        out.append(f"GRANT SELECT ON {qualified} TO {role};")
                if other:
                    out.append(f"GRANT {', '.join(other)} ON {qualified} TO {role};")
    return "\n".join(out)
