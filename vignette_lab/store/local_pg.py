"""``VIGNETTE_DB=pgserver:DIR``: a local PostgreSQL 16 + pgvector with no administrator.

The ``pgserver`` wheel ships PostgreSQL 16 and pgvector binaries. :func:`local_server_url`
initialises a cluster in ``DIR`` on first use, starts it (or joins the one already running
there: the Panel server, a Jupyter kernel and CLI commands all share it over a Unix socket in
``DIR``), creates the ``vignette`` database and returns its URL. The server stops when the
last process using it exits. It is a real shared server: row-level security, HNSW indexes,
and concurrent writers that do not wait for a file lock.

Examples
--------
>>> parse_pgserver_url("pgserver:/srv/lab/pg")
'/srv/lab/pg'
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vignette_lab.errors import ConfigError

__all__ = ["DATABASE", "local_server_url", "parse_pgserver_url"]

DATABASE = "vignette"
_SERVERS: dict[str, Any] = {}  # one handle per folder and process (pgserver counts processes)


def parse_pgserver_url(url: str) -> str:
    """The folder of a ``pgserver:DIR`` URL (``~`` expanded, made absolute).

    Raises
    ------
    ConfigError
        When no folder is named.
    """
    folder = url.split(":", 1)[1].strip() if ":" in url else ""
    if folder.startswith("//"):
        folder = folder[2:]
    if not folder:
        raise ConfigError(f"database URL {url!r} names no folder; use pgserver:DIR, e.g. pgserver:.vignette/pg")
    return str(Path(folder).expanduser().resolve())


def local_server_url(folder: str, *, database: str = DATABASE) -> str:
    """Start (or join) the pgserver cluster in ``folder`` and return the URL of ``database``.

    Parameters
    ----------
    folder : str
        Data folder; created when missing.
    database : str, default="vignette"

    Raises
    ------
    ConfigError
        When the ``pgserver`` package is missing or the server cannot start (one line,
        naming the folder).
    """
    try:
        import pgserver
    except ImportError:
        raise ConfigError("pgserver: the pgserver package is not installed; "
                          "install it with `pip install 'vignette-lab[pg]'`") from None
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"pgserver:{folder}: not a folder")
    if not path.parent.is_dir():
        raise ConfigError(f"pgserver:{folder}: folder {str(path.parent)!r} does not exist")
    server = _SERVERS.get(str(path))
    if server is None:
        path.mkdir(exist_ok=True)
        if os.name == "posix" and os.geteuid() == 0:
            os.chmod(path, 0o700)  # pgserver runs postgres as the system user 'pgserver' and chowns it
        try:
            server = pgserver.get_server(str(path), cleanup_mode="stop")
        except Exception as exc:  # noqa: BLE001 - any start failure is one configuration error
            log = path / "log"
            hint = f"; see {log}" if log.exists() else ""
            raise ConfigError(f"pgserver:{folder}: PostgreSQL did not start: "
                              f"{str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}"
                              f"{hint}") from None
        _SERVERS[str(path)] = server
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as con:
        exists = con.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not exists:
            try:
                con.execute(f'CREATE DATABASE "{database}"')
            except psycopg.errors.DuplicateDatabase:
                pass  # another process created it at the same moment
    return server.get_uri(database)
