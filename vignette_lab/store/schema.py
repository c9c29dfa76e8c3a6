"""Create or upgrade the database schema (``vignette-lab init``).

The DDL lives in ``store/sql/<part>.<backend>.sql``. :func:`init_db` runs, in order,
``app``, ``audit``, then ``kb`` and ``ds`` when those files exist (other teams own them),
then on Postgres ``rls`` (row-level security, the per-view and per-role ``vignette_*`` roles)
followed by the table and column grants generated from :mod:`vignette_lab.store.access`.
``{dim}`` in any file is replaced by the embedding dimension. Every statement is
idempotent (``IF NOT EXISTS`` / ``OR REPLACE``), so re-running is a no-op for data, and
everything runs in one transaction (both backends have transactional DDL).

``app.schema_meta`` records ``schema_version`` and ``embedding_dim``; the vector
columns are sized for the embedder active at first init, so a later init with another
dimension is refused until the knowledge base is re-indexed.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from vignette_lab.errors import ConfigError, InputError

__all__ = ["SCHEMA_VERSION", "SQL_DIR", "apply_rls", "get_schema_meta", "init_db", "rebuild_vector_tables",
           "set_schema_meta", "sql_files", "table_exists"]

SCHEMA_VERSION = "1"
SQL_DIR = Path(__file__).resolve().parent / "sql"
PARTS = ("app", "audit", "kb", "ds", "rls")


def sql_files(backend: str) -> list[Path]:
    """The DDL files :func:`init_db` runs for ``backend``, in order (missing ones skipped)."""
    name = "postgres" if backend == "postgres" else "duckdb"
    return [SQL_DIR / f"{part}.{name}.sql" for part in PARTS if (SQL_DIR / f"{part}.{name}.sql").is_file()]


def table_exists(db, schema: str, table: str) -> bool:
    """Whether ``schema.table`` exists (both backends)."""
    return bool(db.scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                          [schema, table]))


def _meta_table_exists(db) -> bool:
    return table_exists(db, "app", "schema_meta")


def rebuild_vector_tables(db, dim: int) -> None:
    """Drop and recreate ``kb.chunk`` and ``app.turn_embedding`` for vectors of ``dim`` (a re-index).

    Their rows are lost (the next ``kb sync`` re-embeds the documents); ``embedding_dim`` in
    ``app.schema_meta`` is set to ``dim``; one transaction.
    """
    name = "postgres" if db.backend == "postgres" else "duckdb"
    ddl = (SQL_DIR / f"kb.{name}.sql").read_text(encoding="utf-8").replace("{dim}", str(int(dim)))
    with db.transaction():
        db.execute("DROP TABLE IF EXISTS kb.chunk")
        db.execute("DROP TABLE IF EXISTS app.turn_embedding")
        db.execute(ddl)
        set_schema_meta(db, "embedding_dim", dim)
    if db.backend == "postgres":
        db.refresh_types()


def get_schema_meta(db) -> dict[str, str]:
    """All ``app.schema_meta`` entries as a dict (empty before the first init)."""
    if not _meta_table_exists(db):
        return {}
    return {r["key"]: r["value"] for r in db.fetchall("SELECT key, value FROM app.schema_meta")}


def set_schema_meta(db, key: str, value: Any) -> None:
    """Insert or replace one ``app.schema_meta`` entry (e.g. ``embedding_dim`` after a re-index)."""
    db.execute(
        "INSERT INTO app.schema_meta (key, value, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        [key, str(value), datetime.now(timezone.utc)])


def init_db(db, *, embedding_dim: int | None = None, embedder_dim: int | None = None) -> dict[str, str]:
    """Create every schema and table; safe to run again.

    Parameters
    ----------
    db : Database
        An open database (:func:`vignette_lab.store.connect`).
    embedding_dim : int, default=None
        Dimension of the dense vectors (``{dim}`` in the kb DDL). None keeps the dimension
        the database was initialised with, and 384 for a new one (multilingual-e5-small,
        the offline embedder); BGE-M3 uses 1024.
    embedder_dim : int, default=None
        Alias of ``embedding_dim`` (name used in docs/architecture.md).

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
    if embedding_dim is not None and embedder_dim is not None and embedding_dim != embedder_dim:
        raise InputError(f"embedding_dim={embedding_dim} and embedder_dim={embedder_dim} disagree; "
                         "pass one", field="embedding_dim")
    existing = get_schema_meta(db).get("embedding_dim")
    dim = embedding_dim if embedding_dim is not None else embedder_dim
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
            db.execute(path.read_text(encoding="utf-8").replace("{dim}", str(dim)))
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


def _upgrade_duckdb_annotation_versions(db) -> None:
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


def apply_rls(db) -> bool:
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


def _apply_grants(db) -> None:
    """GRANT the table/column privileges of :mod:`vignette_lab.store.access` (Postgres)."""
    from vignette_lab.store.access import grant_sql

    columns: dict[str, list[str]] = {}
    for r in db.fetchall("SELECT table_schema || '.' || table_name AS t, column_name AS c "
                         "FROM information_schema.columns WHERE table_schema IN ('app', 'kb', 'audit', 'ds') "
                         "ORDER BY table_schema, table_name, ordinal_position"):
        columns.setdefault(r["t"], []).append(r["c"])
    sql = grant_sql(columns)
    if sql:
        db.execute(sql)
