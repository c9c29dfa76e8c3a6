"""The storage contract every feature uses.

One :class:`Database` protocol, two implementations: DuckDB (embedded default, a file)
and PostgreSQL 16 + pgvector (shared server). Feature modules write portable SQL with
``?`` placeholders; the Postgres implementation rewrites them for psycopg. The few
spots where the dialects differ go through the helpers on :class:`Dialect`.

Access control (seed 004 §4, seed 001 §5.4):
- ``with db.ai_view("client"):`` — rows are limited to those whose ``visible_to`` holds
  the view and whose ``sensitivity`` is within the view's maximum
  (client 1, counselor 0, evaluator 2), and to the tables and columns the view may read.
  On Postgres this is enforced by per-view roles, column grants and row-level security; on
  DuckDB by the repository gateway (:mod:`vignette_lab.store.gateway`), which applies the
  same rules (:mod:`vignette_lab.store.access`) on both backends.
- ``with db.as_principal(role, uid, cohort):`` — the human RBAC layer
  (learner = own rows, teacher/faculty = cohort, researcher/admin = all), same mechanism.

Also in the protocol, both implementations provide (``vignette_lab.store.duck`` / ``.pg``):
- ``db.visibility_clause(alias="")`` → ``(sql, params)`` for the active AI view, or
  ``("TRUE", [])``; add it to queries on tables with ``visible_to`` so DuckDB filters
  the same rows Postgres RLS does.
- ``db.current_view`` / ``db.current_principal`` (per thread).
- ``db.pinned()`` keeps a DuckDB file open across a block of statements (no-op on
  Postgres); use it for loops — DuckDB otherwise opens the file per statement so that
  several processes can share it. It is part of the protocol: call it directly.
- ``db.clone()`` → a new Database (own connection) for a worker thread.
- ``dict`` parameters are stored as JSON; JSON columns come back decoded; arrays and
  vectors come back as lists. Errors are :class:`~vignette_lab.errors.StoreError`
  (:class:`~vignette_lab.errors.PermissionDenied` for RLS/privilege refusals).
- Append-only tables (``app.turns``, ``app.pinned_fact_history``, ``audit.*``) reject
  UPDATE/DELETE on Postgres by trigger; on DuckDB no repository function updates them.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Iterable, Literal, Protocol, Sequence, runtime_checkable

from vignette_lab.errors import InputError

Backend = Literal["duckdb", "postgres"]
AIView = Literal["client", "counselor", "evaluator"]
HumanRole = Literal["learner", "researcher", "faculty", "admin"]

SENSITIVITY_MAX: dict[str, int] = {"client": 1, "counselor": 0, "evaluator": 2}


@runtime_checkable
class Dialect(Protocol):
    @property
    def backend(self) -> Backend: ...

    def contains(self, column: str) -> str:
        """SQL that is true when the array ``column`` contains the next ``?`` parameter."""

    def json_param(self) -> str:
        """Placeholder for a JSON value passed as a ``str`` (``CAST(? AS JSON)``)."""

    def visible_filter(self, alias: str = "") -> str:
        """``(<contains visible_to> AND sensitivity <= ?)``; params: (view, max)."""

    def has_any_key(self, column: str) -> str:
        """SQL true when the JSON object ``column`` has any key in the next ``?`` (a text list)."""

    def vector_param(self, vector: Any) -> Any:
        """A dense vector as this backend's parameter value."""

    def nearest(self, *, table: str, id_column: str, column: str, where: str, params: Sequence[Any],
                vector: Any, dim: int, limit: int) -> tuple[str, list[Any]]:
        """``(sql, params)`` selecting ``id_column`` and ``s_dense`` (cosine similarity of the
        vector column to ``vector``), best first, for rows of ``table`` (alias ``c``) matching ``where``."""

    def nearest_setup(self, ef_search: int) -> list[str]:
        """Statements to run first in the search transaction (Postgres: HNSW ``ef_search``)."""

    def json_number(self, column: str, key: str) -> str:
        """SQL for the number under ``key`` of the JSON object ``column`` (``key`` a plain identifier)."""


@runtime_checkable
class Database(Protocol):
    """What every feature may use of a database (``db`` parameters are typed with it)."""

    @property
    def backend(self) -> Backend: ...
    @property
    def url(self) -> str: ...
    @property
    def dialect(self) -> Dialect: ...

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None: ...
    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...
    def insert_rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
                    json_columns: Sequence[str] = ()) -> None:
        """Append ``rows`` (one value per column) to ``table``, constraints checked; joins the open transaction."""
        ...
    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[dict[str, Any]]: ...
    def fetchone(self, sql: str, params: Sequence[Any] | None = None) -> dict[str, Any] | None: ...
    def scalar(self, sql: str, params: Sequence[Any] | None = None) -> Any: ...

    def transaction(self) -> AbstractContextManager[None]:
        """All-or-nothing block; nested calls join the outermost transaction."""

    def pinned(self) -> AbstractContextManager[Any]:
        """Keep the connection open across the block (DuckDB: the file; a no-op on Postgres)."""

    def ai_view(self, view: AIView) -> AbstractContextManager[None]: ...
    def as_principal(self, role: HumanRole, uid: str,
                     cohort: str | None = None) -> AbstractContextManager[None]: ...

    @property
    def current_view(self) -> str | None: ...
    @property
    def current_principal(self) -> tuple[str, str, str | None] | None: ...
    def visibility_clause(self, alias: str = "") -> tuple[str, list[Any]]: ...

    def refresh_types(self) -> bool:
        """Re-read driver type adapters after DDL that created types (pgvector); False on DuckDB."""

    def clone(self) -> "Database":
        """A new Database with its own connection, for a worker thread."""

    def close(self) -> None: ...


HUMAN_ROLES = ("learner", "trainee", "faculty", "teacher", "researcher", "admin")
# the Panel app calls learners "trainee" and faculty may be called "teacher" (seed 001)
ROLE_ALIASES = {"trainee": "learner", "teacher": "faculty"}


def check_principal(role: str, uid: str) -> str:
    """Validate a human principal and return its canonical role name (both backends)."""
    if role not in HUMAN_ROLES:
        raise InputError(f"role must be one of {', '.join(HUMAN_ROLES)}. Got {role!r} instead.",
                         field="role")
    if not uid or not str(uid).strip():
        raise InputError("principal uid must be a non-empty user id", field="uid")
    return ROLE_ALIASES.get(role, role)


def short_sql(sql: str) -> str:
    """One line of at most 120 characters of ``sql``, for error messages."""
    one = " ".join(sql.split())
    return one if len(one) <= 120 else one[:117] + "..."


def first_line(exc: BaseException) -> str:
    """The first line of a driver error (its type name when the message is empty)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
