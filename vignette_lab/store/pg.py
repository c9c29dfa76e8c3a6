"""PostgreSQL 16 (+ pgvector) implementation of :class:`vignette_lab.store.base.Database`.

One psycopg 3 connection per Database, in autocommit mode, guarded by an ``RLock`` so
the Panel server's threads can share it; a worker thread that wants its own connection
calls :meth:`PgDatabase.clone`.

Access control is enforced by the database (``rls.postgres.sql`` and the grants generated
from :mod:`vignette_lab.store.access`). ``ai_view`` and ``as_principal`` open (or join) a
transaction, record the context in the session's temporary table ``pg_temp.vl_ctx`` through
``app.enter_ctx()`` and switch with ``SET LOCAL ROLE`` to the view's role
(``vignette_client`` / ``vignette_counselor`` / ``vignette_evaluator``) or, without a view,
the human role's (``vignette_learner`` / ``vignette_faculty`` / ``vignette_researcher``).
Those roles have only the table and column privileges of their rule set and may read but
not write the context table, so ``set_config(...)`` inside the block changes nothing. When
the block ends inside an outer transaction, the previous context is restored; at the end of
the transaction both the role and the context are gone.

Limitation: a login role that is a superuser (pgserver's default ``postgres``) can still
``RESET ROLE`` from inside a block; the guarantee is against forged settings and against
code that only issues ordinary queries. A deployment that wants more connects as a login
role that is a member of the ``vignette_*`` roles and owns nothing.
"""

from __future__ import annotations

import functools
import threading
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import psycopg
from psycopg import errors as pg_errors
from psycopg.adapt import Loader
from psycopg.pq import Format
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from vignette_lab.config import redact_url
from vignette_lab.errors import ConfigError, InputError, PermissionDenied, StoreError, WriteConflict
from vignette_lab.store.access import DB_ROLES, db_role
from vignette_lab.store.base import SENSITIVITY_MAX, Backend, check_principal, first_line, short_sql

__all__ = ["APP_ROLE", "PgDatabase", "PgDialect", "to_pyformat"]

APP_ROLE = "vignette_app"


class PgDialect:
    """SQL fragments where Postgres differs from DuckDB."""

    backend: Backend = "postgres"

    def contains(self, column: str) -> str:
        return f"? = ANY({column})"

    def json_param(self) -> str:
        return "CAST(? AS JSONB)"

    def visible_filter(self, alias: str = "") -> str:
        prefix = f"{alias}." if alias else ""
        return f"(? = ANY({prefix}visible_to) AND {prefix}sensitivity <= ?)"

    def has_any_key(self, column: str) -> str:
        return f"jsonb_exists_any({column}, CAST(? AS text[]))"

    def vector_param(self, vector: Any) -> Any:
        return np.asarray(vector, dtype=np.float32)

    def nearest(self, *, table: str, id_column: str, column: str, where: str, params: Sequence[Any],
                vector: Any, dim: int, limit: int) -> tuple[str, list[Any]]:
        # ORDER BY the distance operator itself so the HNSW index is used
        vec = self.vector_param(vector)
        sql = (f"SELECT {id_column}, 1 - ({column} <=> CAST(? AS vector)) AS s_dense FROM {table} c WHERE {where} "
               f"ORDER BY {column} <=> CAST(? AS vector) LIMIT {int(limit)}")
        return sql, [vec, *params, vec]

    def nearest_setup(self, ef_search: int) -> list[str]:
        return [f"SET LOCAL hnsw.ef_search = {int(ef_search)}"]

    def json_number(self, column: str, key: str) -> str:
        return f"({column}->>'{key}')::double precision"


@functools.lru_cache(maxsize=1024)
def to_pyformat(sql: str) -> str:
    """Rewrite ``?`` placeholders as ``%s`` and escape literal ``%``.

    Remembered per text (a character-by-character scan; the repositories send the same few hundred
    texts over and over, a turn's inserts every turn).

    ``?`` inside single-quoted strings, double-quoted identifiers, dollar-quoted bodies
    and comments is left alone. (The jsonb ``?`` operator is therefore unavailable;
    use ``jsonb_exists(col, key)``.)

    Examples
    --------
    >>> to_pyformat("SELECT '?%' || ? WHERE a LIKE 'x%'")
    "SELECT '?%%' || %s WHERE a LIKE 'x%%'"
    """
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in ("'", '"'):
            j = i + 1
            while j < n:
                if sql[j] == ch:
                    if j + 1 < n and sql[j + 1] == ch:   # doubled quote escapes itself
                        j += 2
                        continue
                    break
                j += 1
            out.append(sql[i:j + 1].replace("%", "%%"))
            i = j + 1
        elif ch == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            out.append(sql[i:j].replace("%", "%%"))
            i = j
        elif ch == "/" and sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(sql[i:j].replace("%", "%%"))
            i = j
        elif ch == "$":
            end = sql.find("$", i + 1)
            tag = sql[i:end + 1] if end > 0 else ""
            if tag and (tag == "$$" or tag[1:-1].replace("_", "").isalnum()) and not tag[1].isdigit():
                close = sql.find(tag, end + 1)
                close = n if close < 0 else close + len(tag)
                out.append(sql[i:close].replace("%", "%%"))
                i = close
            else:
                out.append(ch)
                i += 1
        elif ch == "?":
            out.append("%s")
            i += 1
        elif ch == "%":
            out.append("%%")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _adapt(value: Any) -> Any:
    if isinstance(value, dict):
        return Jsonb(value)
    if isinstance(value, tuple):
        return list(value)
    return value


class _VectorListLoader(Loader):
    format = Format.TEXT

    def load(self, data) -> list[float]:
        text = bytes(data).decode("ascii").strip("[]")
        return [float(x) for x in text.split(",")] if text else []


def _translate(exc: psycopg.Error, sql: str | None = None) -> StoreError:
    where = f" [sql: {short_sql(sql)}]" if sql else ""
    msg = f"postgres: {first_line(exc)}{where}"
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        return PermissionDenied(msg)
    if isinstance(exc, (pg_errors.UniqueViolation, pg_errors.SerializationFailure)):
        return WriteConflict(msg)
    return StoreError(msg)


def _one(cur: Any) -> dict[str, Any]:
    """The row of a query that always returns exactly one (an aggregate or a setting)."""
    row = cur.fetchone()
    if row is None:
        raise StoreError("postgres: a one-row query returned no row")
    return row


class _Ctx(threading.local):
    view: str | None = None
    principal: tuple[str, str, str | None] | None = None


class PgDatabase:
    """A PostgreSQL database reached through one psycopg connection.

    Parameters
    ----------
    url : str
        ``postgresql://user:pass@host:port/dbname`` (libpq URI; ``?host=/socket/dir`` works).
    connect_timeout : int, default=10
        Seconds before giving up on the server.

    Raises
    ------
    ConfigError
        When the server cannot be reached or refuses the login (message names host and
        database, never the password).
    """

    backend: Backend = "postgres"

    def __init__(self, url: str, *, connect_timeout: int = 10):
        self.url = url
        self.dialect = PgDialect()
        self.connect_timeout = connect_timeout
        self._lock = threading.RLock()
        self._tx_depth = 0
        self._ctx = _Ctx()
        self._role_switch: bool | None = None
        try:
            info = conninfo_to_dict(url)
        except psycopg.Error as exc:
            raise ConfigError(f"{redact_url(url)}: not a valid PostgreSQL URL ({first_line(exc)})") from None
        self.host = info.get("host") or "localhost"
        self.dbname = info.get("dbname") or info.get("user") or "postgres"
        try:
            self.conn = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout,
                                        row_factory=dict_row)
        except psycopg.Error as exc:
            reason = first_line(exc)
            password = str(info.get("password") or "")
            if password:
                reason = reason.replace(password, "***")
            raise ConfigError(
                f"cannot connect to PostgreSQL host={self.host} db={self.dbname}: {reason}") from None
        row = _one(self.conn.execute("SELECT current_setting('is_superuser') = 'on' AS su, "
                                     "current_user AS who"))
        self.is_superuser = bool(row["su"])
        self.user = row["who"]
        self.refresh_types()

    # ------------------------------------------------------------------ server facts (doctor)
    def pgvector_version(self) -> str | None:
        """Installed pgvector version, or None."""
        return self.scalar("SELECT extversion FROM pg_extension WHERE extname = 'vector'")

    def has_view_roles(self) -> bool:
        """Whether every ``vignette_*`` role the RLS policies name exists on the server."""
        return self.scalar("SELECT count(*) FROM pg_roles WHERE rolname = ANY(?)",
                           [sorted(DB_ROLES.values())]) == len(DB_ROLES)

    # ------------------------------------------------------------------ types
    def refresh_types(self) -> bool:
        """Register the pgvector type if the extension exists; True when registered."""
        with self._lock:
            has = _one(self.conn.execute(
                "SELECT EXISTS(SELECT 1 FROM pg_type WHERE typname = 'vector') AS ok"))["ok"]
            if not has:
                return False
            from pgvector.psycopg import register_vector
            from psycopg.types import TypeInfo
            register_vector(self.conn)
            # read vectors as plain lists, like DuckDB FLOAT[n] columns
            info = TypeInfo.fetch(self.conn, "vector")
            if info is None:
                raise StoreError(f"postgres db={self.dbname}: the vector type vanished while registering it")
            self.conn.adapters.register_loader(info.oid, _VectorListLoader)
            return True

    # ------------------------------------------------------------------ statements
    def _cursor_run(self, cur, sql: str, params: Sequence[Any] | None) -> None:
        try:
            if params is None:
                cur.execute(sql)
            else:
                if isinstance(params, (str, bytes, dict)):
                    raise InputError("SQL parameters must be a sequence (list or tuple), not a "
                                     f"{type(params).__name__}", field="params")
                cur.execute(to_pyformat(sql), [_adapt(v) for v in params])
        except psycopg.Error as exc:
            raise _translate(exc, sql) from exc

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        """Run one statement (or a script of several when ``params`` is None)."""
        with self._lock, self.conn.cursor() as cur:
            self._cursor_run(cur, sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run ``sql`` once per row, all in one transaction."""
        batch = [[_adapt(v) for v in r] for r in rows]
        if not batch:
            return
        with self.transaction(), self.conn.cursor() as cur:
            try:
                cur.executemany(to_pyformat(sql), batch)
            except psycopg.Error as exc:
                raise _translate(exc, sql) from exc

    def insert_rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
                    json_columns: Sequence[str] = ()) -> None:
        """Append rows with one multi-row ``INSERT`` (JSON columns cast to JSONB)."""
        if not rows:
            return
        marks = "(" + ", ".join("CAST(? AS JSONB)" if c in json_columns else "?" for c in columns) + ")"
        self.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES " + ", ".join(marks for _ in rows),
                     [v for r in rows for v in r])

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[dict[str, Any]]:
        """Rows as dicts (JSONB decoded by psycopg, arrays as lists)."""
        with self._lock, self.conn.cursor() as cur:
            self._cursor_run(cur, sql, params)
            return list(cur.fetchall()) if cur.description else []

    def fetchone(self, sql: str, params: Sequence[Any] | None = None) -> dict[str, Any] | None:
        """First row as a dict, or None."""
        with self._lock, self.conn.cursor() as cur:
            self._cursor_run(cur, sql, params)
            return cur.fetchone() if cur.description else None

    def scalar(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        """First column of the first row, or None."""
        row = self.fetchone(sql, params)
        return None if row is None else next(iter(row.values()), None)

    # ------------------------------------------------------------------ transactions
    @property
    def in_transaction(self) -> bool:
        """True inside :meth:`transaction` (a retry must start a new outermost one)."""
        return self._tx_depth > 0

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All-or-nothing block; nested calls join the outermost transaction."""
        with self._lock:
            if self._tx_depth:
                self._tx_depth += 1
                try:
                    yield
                finally:
                    self._tx_depth -= 1
                return
            self._tx_depth = 1
            try:
                with self.conn.transaction():
                    yield
            except psycopg.Error as exc:
                raise _translate(exc) from exc
            finally:
                self._tx_depth = 0

    @contextmanager
    def pinned(self) -> Iterator["PgDatabase"]:
        """No-op on Postgres (the connection is always open); portable with DuckDB's."""
        yield self

    # ------------------------------------------------------------------ access context
    @property
    def current_view(self) -> str | None:
        return self._ctx.view

    @property
    def current_principal(self) -> tuple[str, str, str | None] | None:
        return self._ctx.principal

    def _can_switch_role(self) -> bool:
        if self._role_switch is None:
            roles = sorted(DB_ROLES.values())
            row = _one(self.conn.execute(
                "SELECT count(*) AS n, COALESCE(bool_and(pg_has_role(current_user, rolname, 'MEMBER')), false) AS ok, "
                "to_regprocedure('app.enter_ctx(text,integer,text,text,text,text)') IS NOT NULL AS fn "
                "FROM pg_roles WHERE rolname = ANY(%s)", [roles]))
            if row["n"] < len(roles) or not row["fn"]:
                if self.is_superuser:
                    # fail closed: a superuser without the per-view roles would bypass RLS
                    raise StoreError(f"postgres db={self.dbname}: the roles {', '.join(roles)} or "
                                     "app.enter_ctx() are missing, so row-level security cannot be "
                                     "enforced; run `vignette-lab init`")
                return False
            self._role_switch = bool(row["ok"])
        return self._role_switch

    def _apply_ctx(self) -> None:
        view, principal = self._ctx.view, self._ctx.principal
        role = db_role(view, principal)
        if role is None:
            if self._role_switch is None and not self._has_enter_ctx():
                return  # a database that was never initialised: nothing to reset
            self.conn.execute("SET LOCAL ROLE NONE")
            self.conn.execute("SELECT app.enter_ctx(NULL, NULL, NULL, NULL, NULL, NULL)")
            return
        switch = self._can_switch_role()
        if not switch and self._role_switch is False and not self._has_enter_ctx():
            return
        # back to the login role (it owns pg_temp.vl_ctx), record the context, enter the role
        self.conn.execute("SET LOCAL ROLE NONE")
        self.conn.execute(
            "SELECT app.enter_ctx(%s, %s, %s, %s, %s, %s)",
            [view, SENSITIVITY_MAX[view] if view else None, principal[0] if principal else None,
             principal[1] if principal else None, (principal[2] or None) if principal else None,
             role if switch else None])

    def _has_enter_ctx(self) -> bool:
        return bool(_one(self.conn.execute(
            "SELECT to_regprocedure('app.enter_ctx(text,integer,text,text,text,text)') IS NOT NULL AS ok"
        ))["ok"])

    @contextmanager
    def _context(self, view: str | None, principal) -> Iterator[None]:
        with self.transaction():
            prev_view, prev_principal = self._ctx.view, self._ctx.principal
            self._ctx.view, self._ctx.principal = view, principal
            try:
                try:
                    self._apply_ctx()
                except psycopg.Error as exc:
                    raise _translate(exc) from exc
                yield
            finally:
                self._ctx.view, self._ctx.principal = prev_view, prev_principal
                status = self.conn.info.transaction_status
                if self._tx_depth > 1 and status == psycopg.pq.TransactionStatus.INTRANS:
                    # restore the outer block's context so nothing leaks past this block
                    self._apply_ctx()

    def ai_view(self, view: str):
        """Limit every statement in the block to rows visible to the AI ``view`` (RLS layer 1)."""
        if view not in SENSITIVITY_MAX:
            raise InputError(f"AI view must be one of {', '.join(SENSITIVITY_MAX)}. Got {view!r} instead.",
                             field="view")
        return self._context(view, self._ctx.principal)

    def as_principal(self, role: str, uid: str, cohort: str | None = None):
        """Limit every statement in the block to rows the human principal may see (RLS layer 2)."""
        role = check_principal(role, uid)
        return self._context(self._ctx.view, (role, str(uid), cohort))

    def visibility_clause(self, alias: str = "") -> tuple[str, list[Any]]:
        """Same contract as the DuckDB one; redundant with RLS but keeps queries portable."""
        view = self._ctx.view
        if view is None:
            return "TRUE", []
        return self.dialect.visible_filter(alias), [view, SENSITIVITY_MAX[view]]

    # ------------------------------------------------------------------ lifecycle
    def clone(self) -> "PgDatabase":
        """A new Database with its own connection (for a worker thread)."""
        return PgDatabase(self.url, connect_timeout=self.connect_timeout)

    def close(self) -> None:
        with self._lock:
            if not self.conn.closed:
                self.conn.close()

    def __repr__(self) -> str:
        return f"PgDatabase({redact_url(self.url)!r})"

