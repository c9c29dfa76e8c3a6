"""Create or upgrade the database schema (``vignette-lab init``).

Each schema has one DDL template, ``store/sql/<part>.sql``, for both backends, and
Postgres adds ``store/sql/<part>.postgres.sql`` (extensions, HNSW/GIN indexes, triggers,
row-level security). :func:`render_ddl` fills the template's placeholders:

==========================  ============================  ==============================
placeholder                 DuckDB                        PostgreSQL
==========================  ============================  ==============================
``{json}``                  ``JSON``                      ``JSONB``
``{double}``                ``DOUBLE``                    ``DOUBLE PRECISION``
``{vector}``                ``FLOAT[dim]``                ``vector(dim)``
``{dim}``                   the embedding dimension       the embedding dimension
``{array:a,b}``             ``['a','b']``                 ``'{a,b}'``
``{fk:s.t(c)}``             ``REFERENCES s.t(c)``         ``REFERENCES s.t(c)``
``{fk_pg:s.t(c)}``          (nothing)                     ``REFERENCES s.t(c)``
==========================  ============================  ==============================

Foreign keys are the same on both backends and never ``ON DELETE CASCADE`` (DuckDB has no
cascade): code that deletes a parent deletes its children first, outside a transaction that
deleted them on DuckDB (DuckDB checks a parent delete against the rows committed before the
transaction). ``{fk_pg:}`` marks the few keys DuckDB cannot keep because of how it updates a
referenced row (it rewrites an update of a list or indexed column as delete + insert): the
template says why at each one, and :func:`postgres_only_foreign_keys` lists them for the
schema-parity test.

:func:`init_db` runs, in order, ``app``, ``audit``, ``kb`` and ``ds`` (template, then the
Postgres extras), then on Postgres ``rls`` (the per-view and per-role ``vignette_*`` roles)
followed by the table and column grants generated from :mod:`vignette_lab.store.access`.
Every statement is idempotent (``IF NOT EXISTS`` / ``OR REPLACE``), so re-running is a
no-op for data, and everything runs in one transaction (both backends have transactional
DDL). ``CREATE TABLE IF NOT EXISTS`` never alters an existing table: a database created
before this layout keeps its old columns types and keys until it is rebuilt.

``app.schema_meta`` records ``schema_version`` and ``embedding_dim``; the vector
columns are sized for the embedder active at first init, so a later init with another
dimension is refused until the knowledge base is re-indexed.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vignette_lab.errors import ConfigError, InputError
from vignette_lab.store.access import grant_sql
from vignette_lab.store.base import Database

__all__ = ["PARTS", "SCHEMA_VERSION", "SQL_DIR", "apply_rls", "get_schema_meta", "init_db",
           "postgres_only_foreign_keys", "rebuild_vector_tables", "render_ddl", "set_schema_meta", "sql_files",
           "table_exists"]

SCHEMA_VERSION = "1"
SQL_DIR = Path(__file__).resolve().parent / "sql"
PARTS = ("app", "audit", "kb", "ds")

_PLACEHOLDER = re.compile(r"\{(json|double|vector|dim|array:[^{}']*|fk:[^{}]*|fk_pg:[^{}]*)\}")
_FK_TARGET = re.compile(r"^([a-z_]+)\.([a-z_]+)\(([a-z_]+)\)$")


def _backend_name(backend: str) -> str:
    if backend not in ("duckdb", "postgres"):
        raise InputError(f"backend must be duckdb or postgres. Got {backend!r} instead.", field="backend")
    return backend


def sql_files(backend: str) -> list[Path]:
    """The DDL files :func:`init_db` runs for ``backend``, in order.

    Parameters
    ----------
    backend : {"duckdb", "postgres"}
        The database backend.

    Returns
    -------
    list of pathlib.Path
        Per part the template, then (Postgres) its extras; ``rls.postgres.sql`` last.
    """
    backend = _backend_name(backend)
    files: list[Path] = []
    for part in PARTS:
        files.append(SQL_DIR / f"{part}.sql")
        extras = SQL_DIR / f"{part}.postgres.sql"
        if backend == "postgres" and extras.is_file():
            files.append(extras)
    if backend == "postgres":
        files.append(SQL_DIR / "rls.postgres.sql")
    return files


def _render_token(token: str, backend: str, dim: int, where: str) -> str:
    pg = backend == "postgres"
    if token == "json":
        return "JSONB" if pg else "JSON"
    if token == "double":
        return "DOUBLE PRECISION" if pg else "DOUBLE"
    if token == "vector":
        return f"vector({dim})" if pg else f"FLOAT[{dim}]"
    if token == "dim":
        return str(dim)
    kind, _, arg = token.partition(":")
    if kind == "array":
        items = [x.strip() for x in arg.split(",") if x.strip()]
        if pg:
            return "'{" + ",".join(items) + "}'"
        return "[" + ",".join(f"'{x}'" for x in items) + "]"
    if not _FK_TARGET.match(arg.strip()):
        raise ConfigError(f"{where}: foreign key placeholder {{{token}}} must name schema.table(column)")
    if kind == "fk_pg" and not pg:
        return ""
    return f"REFERENCES {arg.strip()}"


def render_ddl(part: str, backend: str, *, dim: int) -> str:
    """The DDL of one schema part for ``backend``: the rendered template plus Postgres extras.

    Parameters
    ----------
    part : {"app", "audit", "kb", "ds"}
        Schema part (``store/sql/<part>.sql``).
    backend : {"duckdb", "postgres"}
        The database backend.
    dim : int
        Embedding dimension for ``{vector}`` / ``{dim}``.

    Returns
    -------
    str
        A script of idempotent statements.

    Examples
    --------
    >>> "FLOAT[8]" in render_ddl("kb", "duckdb", dim=8)
    True
    >>> "vector(8)" in render_ddl("kb", "postgres", dim=8)
    True
    """
    backend = _backend_name(backend)
    if part not in PARTS:
        raise InputError(f"schema part must be one of {', '.join(PARTS)}. Got {part!r} instead.", field="part")
    return "\n".join(_render_file(path, backend, dim) for path in sql_files(backend)
                     if path.name.split(".")[0] == part)


def _render_file(path: Path, backend: str, dim: int) -> str:
    text = path.read_text(encoding="utf-8")
    if path.name.endswith(".postgres.sql"):
        return text.replace("{dim}", str(dim))  # extras are plain Postgres SQL
    out = []
    for lineno, line in enumerate(text.splitlines(keepends=True), start=1):
        where = f"{path.name}:{lineno}"
        out.append(_PLACEHOLDER.sub(lambda m: _render_token(m.group(1), backend, dim, where), line))
    return "".join(out)


def postgres_only_foreign_keys() -> set[tuple[str, str, str, str, str]]:
    """Foreign keys only Postgres has: ``{fk_pg:}`` in the templates and those of the extras.

    The extras (``<part>.postgres.sql``) add composite keys with ``ALTER TABLE … ADD CONSTRAINT …
    FOREIGN KEY (…) REFERENCES …`` (e.g. a row may supersede only a row of the same annotator);
    each column pair is one entry, unless a ``{fk:}`` of the templates already gives both
    backends that pair.

    Returns
    -------
    set of tuple
        ``(schema, table, column, referenced "schema.table", referenced column)``.
    """
    keys: set[tuple[str, str, str, str, str]] = set()
    table_re = re.compile(r"CREATE TABLE IF NOT EXISTS ([a-z_]+)\.([a-z_]+)")
    column_re = re.compile(r"^\s*([a-z_]+)\s.*\{fk(_pg)?:([a-z_]+\.[a-z_]+)\(([a-z_]+)\)\}")
    shared: set[tuple[str, str, str, str, str]] = set()
    alter_re = re.compile(r"ALTER TABLE ([a-z_]+)\.([a-z_]+)\s+ADD CONSTRAINT [a-z_]+\s+FOREIGN KEY\s*\(([^)]*)\)"
                          r"\s*REFERENCES ([a-z_]+\.[a-z_]+)\s*\(([^)]*)\)")
    for part in PARTS:
        schema = table = ""
        for line in (SQL_DIR / f"{part}.sql").read_text(encoding="utf-8").splitlines():
            found = table_re.search(line)
            if found:
                schema, table = found.groups()
            col = column_re.match(line)
            if col:
                (keys if col.group(2) else shared).add((schema, table, col.group(1), col.group(3), col.group(4)))
        extras = SQL_DIR / f"{part}.postgres.sql"
        if extras.exists():
            for m in alter_re.finditer(extras.read_text(encoding="utf-8")):
                cols = [c.strip() for c in m.group(3).split(",")]
                refs = [c.strip() for c in m.group(5).split(",")]
                keys.update((m.group(1), m.group(2), c, m.group(4), r) for c, r in zip(cols, refs))
    return keys - shared


def table_exists(db: Database, schema: str, table: str) -> bool:
    """Whether ``schema.table`` exists (both backends)."""
    return bool(db.scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                          [schema, table]))


def _meta_table_exists(db: Database) -> bool:
    return table_exists(db, "app", "schema_meta")


def rebuild_vector_tables(db: Database, dim: int) -> None:
    """Drop and recreate ``kb.chunk`` and ``app.turn_embedding`` for vectors of ``dim`` (a re-index).

    Their rows are lost (the next ``kb sync`` re-embeds the documents); ``embedding_dim`` in
    ``app.schema_meta`` is set to ``dim``; one transaction.
    """
    ddl = render_ddl("kb", db.backend, dim=int(dim))
    with db.transaction():
        db.execute("DROP TABLE IF EXISTS kb.chunk")
        db.execute("DROP TABLE IF EXISTS app.turn_embedding")
        db.execute(ddl)
        set_schema_meta(db, "embedding_dim", dim)
    if db.backend == "postgres":
        db.refresh_types()


def get_schema_meta(db: Database) -> dict[str, str]:
    """All ``app.schema_meta`` entries as a dict (empty before the first init)."""
    if not _meta_table_exists(db):
        return {}
    return {r["key"]: r["value"] for r in db.fetchall("SELECT key, value FROM app.schema_meta")}


def set_schema_meta(db: Database, key: str, value: Any) -> None:
    """Insert or replace one ``app.schema_meta`` entry (e.g. ``embedding_dim`` after a re-index)."""
    db.execute(
        "INSERT INTO app.schema_meta (key, value, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        [key, str(value), datetime.now(timezone.utc)])


def init_db(db: Database, *, embedding_dim: int | None = None) -> dict[str, str]:
    """Create every schema and table; safe to run again.

    Parameters
    ----------
    db : Database
        An open database (:func:`vignette_lab.store.connect`).
    embedding_dim : int, default=None
        Dimension of the dense vectors (``{dim}`` in the kb DDL). None keeps the dimension
        the database was initialised with, and 384 for a new one (multilingual-e5-small,
        the offline embedder); BGE-M3 uses 1024.

    Returns
    -------
    dict
        ``app.schema_meta`` after the run (``schema_version``, ``embedding_dim``,
        ``backend``, ``ddl_files``).

    Raises
    ------
    ConfigError
        When the database was initialised with another embedding dimension.

    Examples
    --------
    >>> from vignette_lab.store import connect
    >>> db = connect(":memory:")
    >>> init_db(db)["schema_version"]
    '1'
    """
    existing = get_schema_meta(db).get("embedding_dim")
    dim = embedding_dim
    if dim is None:
        # No dimension asked for (a feature command opening an existing database): keep the
        # one it was initialised with, so a BGE-M3 (1024-d) database is not refused as 384-d.
        dim = int(existing) if existing is not None else 384
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= 16000:
        raise InputError(f"embedding_dim must be an integer between 1 and 16000. Got {dim!r} instead.",
                         field="embedding_dim")
    if existing is not None and int(existing) != dim:
        raise ConfigError(
            f"database {db.url.split('@')[-1]} was initialised for {existing}-dimensional embeddings but "
            f"the active embedder produces {dim}; re-index with `vignette-lab kb sync --reindex`")
    files = sql_files(db.backend)
    _upgrade_duckdb_annotation_versions(db)
    with db.transaction():
        for path in files:
            db.execute(_render_file(path, db.backend, dim))
        if db.backend == "postgres":
            _apply_grants(db)
        set_schema_meta(db, "schema_version", SCHEMA_VERSION)
        set_schema_meta(db, "embedding_dim", dim)
        set_schema_meta(db, "backend", db.backend)
        set_schema_meta(db, "ddl_files", ",".join(p.name for p in files))
    if db.backend == "postgres":
        db.refresh_types()  # the vector type may have just been created
    return get_schema_meta(db)


_VERSION_BACKFILL = (
    "UPDATE ds.annotation AS a SET version = r.v FROM (SELECT annotation_id, row_number() OVER"
    " (PARTITION BY round_id, item_id, annotator_id ORDER BY created_at, annotation_id) AS v"
    " FROM ds.annotation) AS r WHERE a.annotation_id = r.annotation_id AND a.version IS NULL")


def _upgrade_duckdb_annotation_versions(db: Database) -> None:
    """Give ``ds.annotation`` of an older DuckDB file its ``version`` column and numbers.

    Each (round, item, annotator)'s rows are numbered by time, so the latest save becomes the
    current one (old forks collapse to one). Runs before the DDL, in its own transaction:
    DuckDB refuses to create the unique key in a transaction that updated rows. Postgres does
    the same in ``ds.postgres.sql``.
    """
    if db.backend != "duckdb":
        return
    cols = {r["column_name"] for r in db.fetchall(
        "SELECT column_name FROM information_schema.columns"
        " WHERE table_schema = 'ds' AND table_name = 'annotation'")}
    if not cols or "version" in cols:
        return
    with db.transaction():
        db.execute("ALTER TABLE ds.annotation ADD COLUMN version INTEGER")
        db.execute(_VERSION_BACKFILL)


def apply_rls(db: Database) -> bool:
    """Re-apply row-level security and grants (Postgres); call after re-creating tables.

    ``init_db`` runs it already. A module that drops and re-creates an RLS table (the kb
    re-index) must call this afterwards, or the new table has no policy. No-op (False) on
    DuckDB, where repositories filter with ``db.visibility_clause()``.
    """
    if db.backend != "postgres":
        return False
    with db.transaction():
        db.execute((SQL_DIR / "rls.postgres.sql").read_text(encoding="utf-8"))
        _apply_grants(db)
    return True


def _apply_grants(db: Database) -> None:
    """GRANT the table/column privileges of :mod:`vignette_lab.store.access` (Postgres)."""
    columns: dict[str, list[str]] = {}
    for r in db.fetchall("SELECT table_schema || '.' || table_name AS t, column_name AS c "
                         "FROM information_schema.columns WHERE table_schema IN ('app', 'kb', 'audit', 'ds') "
                         "ORDER BY table_schema, table_name, ordinal_position"):
        columns.setdefault(r["t"], []).append(r["c"])
    sql = grant_sql(columns)
    if sql:
        db.execute(sql)
