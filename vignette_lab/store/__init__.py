"""Storage: one :class:`~vignette_lab.store.base.Database` interface, DuckDB and Postgres.

Open a database with :func:`connect`, create or upgrade its schema with
:func:`~vignette_lab.store.schema.init_db`::

    from vignette_lab.store import connect, init_db
    db = connect()                      # ./vignette.duckdb, or $VIGNETTE_DB
    init_db(db)
    with db.ai_view("client"):
        rows = db.fetchall("SELECT * FROM app.turns WHERE session_id = ?", [sid])

Accepted URLs: a plain file path, ``duckdb:///abs/path.duckdb``, ``duckdb::memory:`` or
``:memory:``, ``postgresql://…`` / ``postgres://…``, and ``pgserver:DIR`` (a local
PostgreSQL 16 + pgvector started from the ``pgserver`` package in ``DIR``, see
:mod:`vignette_lab.store.local_pg`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from vignette_lab.config import Settings, redact_url, resolve_db_url
from vignette_lab.errors import ConfigError
from vignette_lab.store.base import SENSITIVITY_MAX, Database, Dialect
from vignette_lab.store.duck import DuckDatabase, DuckDialect
from vignette_lab.store.schema import SCHEMA_VERSION, apply_rls, get_schema_meta, init_db, set_schema_meta

__all__ = [
    "SCHEMA_VERSION",
    "SENSITIVITY_MAX",
    "Database",
    "Dialect",
    "DuckDatabase",
    "DuckDialect",
    "apply_rls",
    "connect",
    "dumps",
    "get_schema_meta",
    "init_db",
    "parse_db_url",
    "set_schema_meta",
]

_ACCEPTED = ("a file path, duckdb:///path, duckdb::memory:, :memory:, "
             "postgresql://user@host/db, postgres://... or pgserver:DIR")


def dumps(value: Any) -> str:
    """JSON text for a ``db.dialect.json_param()`` placeholder (Korean kept as is)."""
    return json.dumps(value, ensure_ascii=False)


def parse_db_url(url: str) -> tuple[str, str]:
    """Split a database URL into ``(backend, target)``.

    Parameters
    ----------
    url : str
        See the module docstring for the accepted forms.

    Returns
    -------
    tuple of str
        ``("duckdb", path_or_":memory:")``, ``("postgres", url)`` or ``("pgserver", folder)``.

    Raises
    ------
    ConfigError
        For any other form; the message names the (password-redacted) URL.

    Examples
    --------
    >>> parse_db_url("duckdb:///tmp/x.duckdb")
    ('duckdb', '/tmp/x.duckdb')
    >>> parse_db_url(":memory:")
    ('duckdb', ':memory:')
    """
    text = (url or "").strip()
    if not text:
        raise ConfigError(f"empty database URL; accepted forms: {_ACCEPTED}")
    lower = text.lower()
    if lower in (":memory:", "duckdb::memory:", "duckdb:///:memory:", "duckdb://:memory:"):
        return "duckdb", ":memory:"
    if lower.startswith(("postgresql://", "postgres://")):
        return "postgres", text
    if lower.startswith("pgserver:"):
        from vignette_lab.store.local_pg import parse_pgserver_url
        return "pgserver", parse_pgserver_url(text)
    if lower.startswith("duckdb://"):
        path = text[len("duckdb://"):]
        if not path or path == "/":
            raise ConfigError(f"database URL {redact_url(text)!r} names no file; accepted forms: {_ACCEPTED}")
        return "duckdb", path
    if "://" in text or lower.startswith(("duckdb:", "postgresql:", "postgres:")):
        raise ConfigError(f"unsupported database URL {redact_url(text)!r}; accepted forms: {_ACCEPTED}")
    return "duckdb", text


def connect(url: str | None = None, *, settings: Settings | None = None,
            lock_timeout: float = 30.0, connect_timeout: int = 10, linger: float = 0.25) -> Database:
    """Open the database named by ``url`` (else settings, ``VIGNETTE_DB``, ``./vignette.duckdb``).

    Parameters
    ----------
    url : str, default=None
        Database URL or DuckDB file path.
    settings : Settings, default=None
        Used for ``db_url`` when ``url`` is not given.
    lock_timeout : float, default=30.0
        DuckDB only: seconds to wait while another process holds the file.
    connect_timeout : int, default=10
        Postgres only: seconds to wait for the server.
    linger : float, default=0.25
        DuckDB only: seconds to keep the file open after the last statement
        (see :class:`DuckDatabase`). The default lets a burst of statements (one
        session turn is about fifteen) share one open file while another process
        (Panel server, Jupyter kernel, CLI) still gets it a quarter second after
        this one goes idle. ``0`` closes the file after every statement.

    Returns
    -------
    Database
        :class:`DuckDatabase` or :class:`~vignette_lab.store.pg.PgDatabase`.

    Raises
    ------
    ConfigError
        Unsupported URL, missing folder, or an unreachable Postgres server.

    Examples
    --------
    >>> db = connect(":memory:")
    >>> db.backend
    'duckdb'
    """
    if url is None and settings is not None:
        url = settings.db_url
    resolved = resolve_db_url(url)
    backend, target = parse_db_url(resolved)
    if backend == "pgserver":
        from vignette_lab.store.local_pg import local_server_url
        backend, target = "postgres", local_server_url(target)
    if backend == "postgres":
        from vignette_lab.store.pg import PgDatabase  # psycopg imported only when needed
        return PgDatabase(target, connect_timeout=connect_timeout)
    if target != ":memory:":
        path = Path(target).expanduser()
        if path.is_dir():
            raise ConfigError(f"database path {str(path)!r} is a folder; give a file such as "
                              f"{os.path.join(str(path), 'vignette.duckdb')!r}")
        parent = path.resolve().parent
        if not parent.is_dir():
            raise ConfigError(f"database path {str(path)!r}: folder {str(parent)!r} does not exist")
        target = str(path)
    return DuckDatabase(target, lock_timeout=lock_timeout, linger=linger,
                        url=None if target == ":memory:" else f"duckdb:///{os.path.abspath(target).lstrip('/')}")
