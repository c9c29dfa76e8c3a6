"""Shared fixtures: real DuckDB files and a real PostgreSQL 16 + pgvector (pgserver).

Fixture names are a contract the whole team uses; keep them stable:

- ``pg_server``  (session) a running pgserver PostgreSQL; skipped when pgserver is not
  importable, but a *failure* when ``CI=true`` and it cannot start.
- ``pg_url``     a fresh, empty database on that server (dropped afterwards).
- ``duck_db``    an initialised DuckDB :class:`Database` on a temporary file.
- ``pg_db``      an initialised Postgres :class:`Database` (own database per test).
- ``db``         parametrized ``duckdb`` / ``postgres`` (the latter marked ``postgres``).

Under pytest-xdist (``scripts/test.sh``: one worker per core, ``--dist loadfile``) each worker
has its own session fixtures (its own pgserver and templates), and every test file runs whole,
in file order, on one worker, so module fixtures are built once.

"Initialised" means ``init_db`` ran and ``load_catalog`` loaded P1…P7, the taxonomy and the
local users (when those files exist). To stay fast, both backends initialise once per test
session into a template (a DuckDB file that is copied, a Postgres ``TEMPLATE`` database) and
every test gets its own copy. No fixture touches ``./vignette.duckdb``.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import tempfile
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

# Offline machine: never let Presidio's e-mail recogniser or huggingface-hub reach the network.
os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
os.environ["HF_HUB_OFFLINE"] = "1"
# CLI processes the tests start run in-process: a warm worker (cli/worker.py) would outlive the
# test run and answer later commands itself, so tests/test_clean_exit.py would no longer exercise
# an in-process exit. tests/test_cli_worker.py builds its own environment and starts workers on purpose.
os.environ["VIGNETTE_WORKER"] = "off"

ROOT = Path(__file__).resolve().parent.parent
try:
    import vignette_lab  # noqa: F401
except ModuleNotFoundError:
    sys.path.insert(0, str(ROOT))

from vignette_lab.store import connect, init_db  # noqa: E402

_IN_CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _load_catalog(db) -> None:
    try:
        from vignette_lab.store.catalog import load_catalog
    except ModuleNotFoundError:
        return
    load_catalog(db)


def _with_dbname(uri: str, dbname: str) -> str:
    parts = urlsplit(uri)
    return urlunsplit(parts._replace(path=f"/{dbname}"))


# --------------------------------------------------------------------------- PostgreSQL
@pytest.fixture(scope="session")
def pg_server(tmp_path_factory):
    """A running PostgreSQL 16 + pgvector from the ``pgserver`` wheel (one per test session)."""
    try:
        import pgserver
    except ImportError as exc:
        if _IN_CI:
            pytest.fail(f"CI=true but pgserver is not importable: {exc}")
        pytest.skip(f"pgserver not importable ({exc}); install vignette-lab[pg] for Postgres tests")
    data_dir = tempfile.mkdtemp(prefix="vignette_pg_")
    # As root, pgserver runs postgres as the system user 'pgserver': it must reach the dir.
    os.chmod(data_dir, 0o777)
    # As root, pgserver's first start creates the system user 'pgserver' (useradd, no lock of its
    # own): xdist workers starting at once would race, so starts are serialised across workers.
    lock_path = tmp_path_factory.getbasetemp().parent / "vignette_pgserver.lock"
    try:
        with open(lock_path, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            server = pgserver.get_server(data_dir, cleanup_mode="stop")
    except Exception as exc:  # noqa: BLE001 - any start failure is reported the same way
        shutil.rmtree(data_dir, ignore_errors=True)
        if _IN_CI:
            pytest.fail(f"CI=true but pgserver could not start: {exc}")
        pytest.skip(f"pgserver could not start: {exc}")
    # Throw-away cluster: durability buys nothing here and fsync dominates CREATE DATABASE.
    with _admin(server) as con:
        for setting in ("fsync", "synchronous_commit", "full_page_writes"):
            con.execute(f"ALTER SYSTEM SET {setting} = off")
        con.execute("SELECT pg_reload_conf()")
    yield server
    try:
        server.cleanup()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def _admin(pg_server):
    import psycopg
    return psycopg.connect(pg_server.get_uri(), autocommit=True)


def _drop(pg_server, dbname: str) -> None:
    with _admin(pg_server) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')


@pytest.fixture
def pg_url(pg_server):
    """URL of a fresh, empty database (``test_<uuid>``), dropped after the test."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    with _admin(pg_server) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    yield _with_dbname(pg_server.get_uri(), name)
    _drop(pg_server, name)


@pytest.fixture(scope="session")
def _pg_template(pg_server):
    name = f"vignette_template_{uuid.uuid4().hex[:8]}"
    with _admin(pg_server) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    db = connect(_with_dbname(pg_server.get_uri(), name))
    try:
        init_db(db)
        _load_catalog(db)
    finally:
        db.close()
    yield name
    _drop(pg_server, name)


@pytest.fixture
def pg_db(pg_server, _pg_template):
    """An initialised Postgres Database in its own database (copied from a template)."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    with _admin(pg_server) as con:
        con.execute(f'CREATE DATABASE "{name}" TEMPLATE "{_pg_template}" STRATEGY FILE_COPY')
    db = connect(_with_dbname(pg_server.get_uri(), name))
    yield db
    db.close()
    _drop(pg_server, name)


# --------------------------------------------------------------------------- DuckDB
@pytest.fixture(scope="session")
def _duck_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("duck_template") / "template.duckdb"
    db = connect(str(path))
    init_db(db)
    _load_catalog(db)
    db.close()
    return path


@pytest.fixture
def duck_db(tmp_path, _duck_template):
    """An initialised DuckDB Database on a temporary file (copied from a template)."""
    path = tmp_path / "vignette.duckdb"
    shutil.copyfile(_duck_template, path)
    db = connect(str(path))
    yield db
    db.close()


# --------------------------------------------------------------------------- both
@pytest.fixture(params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request):
    """An initialised Database of each backend (``duckdb`` and ``postgres`` test ids)."""
    return request.getfixturevalue("duck_db" if request.param == "duckdb" else "pg_db")
