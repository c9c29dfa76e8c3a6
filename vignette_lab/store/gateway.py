"""The repository gateway: every AI-view and human-role read goes through :func:`read`.

Inside ``db.ai_view(...)`` or ``db.as_principal(...)`` the gateway applies the rules of
:mod:`vignette_lab.store.access` on **both** backends:

- a table the rule set has no read privilege on → :class:`~vignette_lab.errors.PermissionDenied`;
- ``columns="*"`` expands to the columns the rule set may read (so the client AI's
  ``SELECT *`` on ``app.persona_card`` has no ``ccd``); naming a forbidden column →
  :class:`PermissionDenied`;
- the row rules (visibility and ownership) are added to the WHERE clause.

On PostgreSQL the same rules are also enforced by the database (per-view roles, column
grants and RLS policies), so the gateway is the portable half and RLS the guarantee; on
DuckDB the gateway is the enforcement. Outside any context the gateway adds nothing.

Examples
--------
>>> from vignette_lab.store import connect, init_db
>>> db = connect(":memory:"); _ = init_db(db)
>>> with db.ai_view("client"):
...     rows = read(db, "app.persona_card")
>>> rows == [] or "ccd" not in rows[0]
True
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence

from vignette_lab.errors import InputError, PermissionDenied
from vignette_lab.store.access import may, row_filter, rule_name

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["allowed_columns", "read", "read_one"]

_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
_COLUMNS: dict[tuple[str, str], list[str]] = {}


def _table_columns(db: Database, table: str) -> list[str]:
    key = (f"memory:{id(db)}" if getattr(db, "memory", False) else db.url, table)
    if key not in _COLUMNS:
        schema, name = table.split(".")
        if db.backend == "postgres":
            # pg_attribute lists every column whatever the current role may read
            cols = [r["c"] for r in db.fetchall(
                "SELECT attname AS c FROM pg_attribute WHERE attrelid = to_regclass(?) AND attnum > 0 "
                "AND NOT attisdropped ORDER BY attnum", [table])]
        else:
            cols = [r["column_name"] for r in db.fetchall(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ? "
                "ORDER BY ordinal_position", [schema, name])]
        if not cols:
            raise InputError(f"unknown table {table}", field="table")
        _COLUMNS[key] = cols
    return _COLUMNS[key]


def allowed_columns(db: Database, table: str) -> list[str]:
    """Columns of ``table`` the active view/principal may read (all of them outside a context)."""
    rule = rule_name(db.current_view, db.current_principal)
    cols = _table_columns(db, table)
    if rule is None:
        return cols
    return [c for c in cols if may(rule, table, "SELECT", c)]


def read(db: Database, table: str, *, columns: Sequence[str] | str = "*", where: str = "TRUE",
         params: Sequence[Any] = (), order_by: str | None = None, limit: int | None = None,
         alias: str = "t") -> list[dict[str, Any]]:
    """Rows of ``table`` the active AI view / human principal may see.

    Parameters
    ----------
    db : Database
    table : str
        ``schema.table``.
    columns : sequence of str or "*", default="*"
        Plain column names; ``"*"`` means every column the context may read.
    where : str, default="TRUE"
        Extra condition (portable SQL, ``?`` placeholders); columns may be qualified with ``alias``.
    params : sequence
        Parameters of ``where``.
    order_by : str, optional
    limit : int, optional
    alias : str, default="t"

    Returns
    -------
    list of dict

    Raises
    ------
    PermissionDenied
        No read privilege on the table or on a named column in the active context.
    """
    if not re.match(r"^[a-z_]+\.[a-z_]+$", table):
        raise InputError(f"table must be schema.table. Got {table!r} instead.", field="table")
    rule = rule_name(db.current_view, db.current_principal)
    if rule is not None and not may(rule, table, "SELECT"):
        raise PermissionDenied(f"{rule}: no read privilege on {table}")
    if columns == "*":
        cols = allowed_columns(db, table)
    else:
        cols = list(columns)
        for c in cols:
            if not _IDENT.match(c):
                raise InputError(f"column names must be plain identifiers. Got {c!r} instead.", field="columns")
        if rule is not None:
            denied = [c for c in cols if not may(rule, table, "SELECT", c)]
            if denied:
                raise PermissionDenied(f"{rule}: no read privilege on {table}.{', '.join(denied)}")
    rows_sql, rows_params = row_filter(db, table, alias)
    select = ", ".join(f"{alias}.{c}" for c in cols)
    sql = f"SELECT {select} FROM {table} {alias} WHERE ({where}) AND ({rows_sql})"
    if order_by:
        sql += f" ORDER BY {order_by}"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return db.fetchall(sql, [*params, *rows_params])


def read_one(db: Database, table: str, **options: Any) -> dict[str, Any] | None:
    """First row of :func:`read`, or None."""
    rows = read(db, table, limit=1, **options)
    return rows[0] if rows else None
