"""DuckDB implementation of :class:`vignette_lab.store.base.Database`.

DuckDB lets one process hold a database file at a time, but the Panel server, a Jupyter
kernel and the CLI may all use the same ``vignette.duckdb``. So a file database is held
only for one statement or one transaction: the file is opened on demand and closed right
after. When another process holds it, opening is retried with backoff for up to
``lock_timeout`` seconds, then :class:`~vignette_lab.errors.StoreBusy` (a ``StoreError``) says so.
``db.pinned()`` keeps the file open across many operations (bulk jobs, benchmarks).
``:memory:`` keeps its single connection for the life of the object.

Nobody waits long behind a long job (issue 14 item 4): a process that finds the file held
announces itself with a small ``<file>.wait-<pid>-<thread>`` file while it retries (every
≤ 20 ms). A pinned job checks for such files after every statement and commit outside a
transaction (:meth:`DuckDatabase.yield_to_waiters`, and a watcher thread does while the job
computes) and, when one is there and the job's block is older than ``HOLD_QUANTUM_S``, closes
the file and pauses until the waiter has taken it (≤ ``YIELD_PAUSE_S``); its next statement
reopens the file, waiting its own turn the same way. A pinned block younger than the quantum
(a save) never yields, so a save that got the file finishes before the job takes it back.
Another process's save therefore waits for one step of a long job, not for the whole job.
Wait files of processes that no longer exist are ignored and removed.

Access control on DuckDB is done by the repository gateway
(:mod:`vignette_lab.store.gateway`): ``ai_view`` and ``as_principal`` only record the active
view/principal (``db.current_view``, ``db.current_principal``), and every read through the
gateway applies the privileges and row rules of :mod:`vignette_lab.store.access`. Every file
is attached under the fixed catalog alias ``vignette`` (any file name works). Append-only tables (``app.turns``,
``audit.*``) are append-only because no repository function updates them; DuckDB has no
triggers to enforce it (Postgres does).
"""

from __future__ import annotations

import glob
import json
import os
import atexit
import threading
import time
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import duckdb

from vignette_lab.errors import InputError, StoreBusy, StoreError, WriteConflict
from vignette_lab.store.base import SENSITIVITY_MAX, Backend, check_principal, first_line, short_sql

__all__ = ["CATALOG", "DuckDatabase", "DuckDialect", "pause_watcher"]

CATALOG = "vignette"  # every file is attached under this name, whatever the file is called
RETRY_MAX_S = 0.02     # longest pause between two attempts to open a held file
YIELD_PAUSE_S = 0.5    # longest pause of a pinned job that let a waiting process in
HOLD_QUANTUM_S = 0.5   # a pinned block younger than this never yields (a save finishes first)
_WAIT_STALE_S = 120.0  # wait files older than this are left over from a killed process
APPENDER_MIN_ROWS = 8  # insert_rows: fewer rows go in one multi-row INSERT (cheaper than making an appender)
#: DuckDB worker threads of the instance that holds a file (and of ``:memory:``); ``None`` = DuckDB's
#: own default (one per core); see :func:`_threads`
THREADS: int | None = None

#: parsed statements kept for reuse (:func:`_parsed`); the repositories use a few hundred SQL texts
PARSED_CACHE_SIZE = 512
_PARSED: dict[str, Any] = {}
_PARSED_LOCK = threading.Lock()


def _parsed(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    """``sql`` parsed once per process (a ``duckdb.Statement``), or ``sql`` itself when it is not one statement.

    ``execute(sql, params)`` parses the text again at every call; the repositories send the same
    few hundred parameterised texts over and over (a turn's status read, checkpoint and inserts), and
    executing the parsed statement skips the parse: ≈ 10 % of a turn's seven statements' CPU,
    measured interleaved (``bench/RESULTS.md``, "Issue 12 round 6"). Binding, planning and execution
    are unchanged, so are results and errors. A statement parsed on one connection runs on any
    other (and from several threads at once). Text that fails to parse or holds several statements
    is returned as is, so DuckDB reports its error as before. Bounded: when full, the cache is
    emptied and refilled (SQL built from user data always travels as parameters, never in the text).
    """
    hit = _PARSED.get(sql)
    if hit is not None:
        return hit
    try:
        statements = con.extract_statements(sql)
    except (duckdb.Error, AttributeError):  # DuckDB raises the parse error again in execute
        return sql
    if len(statements) != 1:
        return sql
    with _PARSED_LOCK:
        if len(_PARSED) >= PARSED_CACHE_SIZE:
            _PARSED.clear()
        _PARSED[sql] = statements[0]
    return statements[0]

class DuckDialect:
    """SQL fragments where DuckDB differs from Postgres."""

    backend: Backend = "duckdb"

    def contains(self, column: str) -> str:
        return f"list_contains({column}, ?)"

    def json_param(self) -> str:
        return "CAST(? AS JSON)"

    def visible_filter(self, alias: str = "") -> str:
        prefix = f"{alias}." if alias else ""
        return f"(list_contains({prefix}visible_to, ?) AND {prefix}sensitivity <= ?)"

    def has_any_key(self, column: str) -> str:
        return f"list_has_any(json_keys({column}), CAST(? AS VARCHAR[]))"

    def vector_param(self, vector: Any) -> Any:
        import numpy as np  # only for vectors: opening a file (doctor, session start) needs no numpy

        return np.asarray(vector, dtype=np.float32).tolist()

    def nearest(self, *, table: str, id_column: str, column: str, where: str, params: Sequence[Any],
                vector: Any, dim: int, limit: int) -> tuple[str, list[Any]]:
        # exact cosine over FLOAT[dim] (no vss extension offline)
        sql = (f"SELECT {id_column}, array_cosine_similarity({column}, CAST(? AS FLOAT[{int(dim)}])) AS s_dense "
               f"FROM {table} c WHERE {where} ORDER BY s_dense DESC LIMIT {int(limit)}")
        return sql, [self.vector_param(vector), *params]

    def nearest_setup(self, ef_search: int) -> list[str]:
        return []

    def json_number(self, column: str, key: str) -> str:
        return f"TRY_CAST(json_extract_string({column}, '$.{key}') AS DOUBLE)"


def _threads() -> int | None:
    """Worker threads for a DuckDB instance this module opens: ``VIGNETTE_DUCKDB_THREADS``, else :data:`THREADS`.

    ``None`` keeps DuckDB's default (one thread per core). The repositories run small statements by
    key (a turn is seven of them), and DuckDB hands each one to its task scheduler, so with several
    threads every statement also wakes and synchronises a worker: one thread cut a ``send``'s
    statement CPU by ≈ 15 % at low load, but not significantly at load 7–10, while a large scan (an
    export or analytics over many sessions, the KB) loses every core but one (``bench/RESULTS.md``,
    "Issue 12 round 7"). A research workbench does both, so the default stays DuckDB's;
    ``VIGNETTE_DUCKDB_THREADS=1`` is the per-turn setting for a machine that only serves sessions.
    """
    raw = os.environ.get("VIGNETTE_DUCKDB_THREADS", "").strip()
    if not raw:
        return THREADS
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n < 1:
        raise InputError(f"VIGNETTE_DUCKDB_THREADS must be a whole number >= 1. Got {raw!r} instead.",
                         field="VIGNETTE_DUCKDB_THREADS")
    return n


def _config() -> dict[str, Any]:
    """``duckdb.connect`` config for an instance this module opens (the thread count when one is set)."""
    n = _threads()
    return {} if n is None else {"threads": n}


def _adapt(value: Any) -> Any:
    """Python value → DuckDB parameter (dicts become JSON text, arrays become lists)."""
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if isinstance(value, tuple):
        return list(value)
    return value


def _adapt_params(params: Sequence[Any] | None) -> list[Any] | None:
    if params is None:
        return None
    if isinstance(params, (str, bytes, dict)):
        raise InputError("SQL parameters must be a sequence (list or tuple), not a "
                         f"{type(params).__name__}", field="params")
    return [_adapt(v) for v in params]


def _sql_literal(text: str) -> str:
    return text.replace("'", "''")


def _is_conflict(exc: BaseException) -> bool:
    """A lost race: duplicate key or write-write conflict between two transactions."""
    text = str(exc).lower()
    return ("duplicate key" in text or "write-write conflict" in text
            or "conflict on tuple" in text or "conflict on update" in text)


def _store_error(exc: BaseException, sql: str) -> StoreError:
    cls = WriteConflict if _is_conflict(exc) else StoreError
    return cls(f"duckdb: {first_line(exc)} [sql: {short_sql(sql)}]")


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set lock" in text)


class _Ctx(threading.local):
    view: str | None = None
    principal: tuple[str, str, str | None] | None = None


class DuckDatabase:
    """A DuckDB database (file or ``:memory:``).

    Parameters
    ----------
    path : str or pathlib.Path
        Database file, or ``":memory:"``.
    lock_timeout : float, default=30.0
        Seconds to keep retrying when another process holds the file.
    url : str, default=None
        URL the database was opened from (for messages); derived from ``path`` when None.
    linger : float, default=0.0
        Seconds to keep the file open after the last statement. ``0`` closes it right
        after every statement/transaction (the safe multi-process default). A long-lived
        process with bursts of statements (the Panel server) may set e.g. ``0.2``: opening
        costs ~30-100 ms here, and other processes still get the file within ``linger``
        seconds of idleness (they retry for ``lock_timeout``).

    Examples
    --------
    >>> db = DuckDatabase(":memory:")
    >>> db.scalar("SELECT 1 + ?", [1])
    2
    """

    backend: Backend = "duckdb"

    def __init__(self, path: str | Path, *, lock_timeout: float = 30.0, url: str | None = None,
                 linger: float = 0.0):
        if lock_timeout < 0:
            raise InputError(f"lock_timeout must be >= 0 seconds. Got {lock_timeout!r} instead.",
                             field="lock_timeout")
        self.path = str(path)
        self.memory = self.path == ":memory:"
        self.url = url or ("duckdb::memory:" if self.memory else f"duckdb:///{os.path.abspath(self.path)}".replace("////", "///"))
        self.dialect = DuckDialect()
        self.lock_timeout = float(lock_timeout)
        if linger < 0:
            raise InputError(f"linger must be >= 0 seconds. Got {linger!r} instead.", field="linger")
        self.linger = float(linger)
        self._last_used = 0.0
        self._timer: threading.Timer | None = None
        self._lock = threading.RLock()
        self._con: duckdb.DuckDBPyConnection | None = None
        self._holders = 0          # pinned() blocks + the open transaction keep _con open
        self._tx_depth = 0
        self._ctx = _Ctx()
        self.lock_waits = 0        # how many times opening had to wait for another process
        self.yields = 0            # how many times a pinned block handed the file to a waiter
        self._pinned_since = 0.0   # when the outermost pinned() block began
        if self.memory:
            self._con = duckdb.connect(":memory:", config=_config())
        _OPEN_DATABASES.add(self)

    # ------------------------------------------------------------------ connection
    def _open(self) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.002
        announced: str | None = None
        try:
            while True:
                try:
                    return _attach(self.path)
                except duckdb.Error as exc:
                    if not _is_lock_error(exc):
                        raise StoreError(f"{self.path}: cannot open DuckDB file: {first_line(exc)}") from exc
                    if time.monotonic() >= deadline:
                        raise StoreBusy(
                            f"{self.path}: another process holds the DuckDB file "
                            f"(waited {self.lock_timeout:.0f} s); close the other program or use "
                            "PostgreSQL (VIGNETTE_DB=postgresql://...) for concurrent use") from exc
                    if announced is None:
                        announced = _announce_wait(self.path)
                    self.lock_waits += 1
                    time.sleep(delay)
                    delay = min(delay * 2, RETRY_MAX_S)
        finally:
            if announced is not None:
                _withdraw_wait(announced)

    def _close_con(self, con: duckdb.DuckDBPyConnection) -> bool:
        if self.memory:
            con.close()
            return True
        return _detach(self.path, con)

    @contextmanager
    def _connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._lock:
            if self._con is None and self._holders:
                self._con = self._open()  # reopened after yielding to another process
            if self._con is not None:
                try:
                    yield self._con
                finally:
                    if self._holders and not self._tx_depth:
                        self.yield_to_waiters()
                return
            if self.linger > 0:
                self._con = self._open()
                try:
                    yield self._con
                finally:
                    self._release()
                return
            con = self._open()
            try:
                yield con
            finally:
                self._close_con(con)

    @contextmanager
    def pinned(self) -> Iterator["DuckDatabase"]:
        """Keep the file open across the block (bulk jobs).

        Another process that needs the file meanwhile gets it at the next statement boundary
        or, while the block computes without touching the database, from the store's watcher
        thread (every 20 ms); the block's next statement reopens the file.
        """
        with self._lock:
            if self._con is None:
                self._con = self._open()
            if not self._holders:
                self._pinned_since = time.monotonic()
            self._holders += 1
        _watch(self)
        try:
            yield self
        finally:
            with self._lock:
                self._holders -= 1
                self._release()

    def yield_to_waiters(self) -> bool:
        """Let a process that waits for the file in, if one does (outside transactions only).

        Called by the store after every statement and commit of a pinned block; a long job
        may also call it between units of work. Returns True when the file was handed over.
        The next statement reopens the file (waiting its turn).
        """
        if self.memory or self._con is None or self._tx_depth:
            return False
        if self._holders and time.monotonic() - self._pinned_since < HOLD_QUANTUM_S:
            return False  # a short pinned block (a save) finishes before it hands the file over
        if not _others_waiting(self.path):
            return False
        with self._lock:
            if self._con is None or self._tx_depth:
                return False
            con, self._con = self._con, None
            if not self._close_con(con):
                return False  # another handle in this process keeps the file open
            deadline = time.monotonic() + YIELD_PAUSE_S
            while time.monotonic() < deadline and _others_waiting(self.path):
                time.sleep(0.005)
            self.yields += 1
            return True

    def _release(self) -> None:
        if self._holders and not self._tx_depth:
            self.yield_to_waiters()
        if self.memory or self._holders or self._tx_depth or self._con is None:
            return
        if self.linger > 0:
            self._last_used = time.monotonic()
            if self._timer is None:
                self._schedule(self.linger)
            _watch(self)  # a lingering file is handed over at once when another process waits
            return
        con, self._con = self._con, None
        self._close_con(con)

    def _schedule(self, delay: float) -> None:
        self._timer = threading.Timer(delay, self._linger_expired)
        # Not a daemon: the interpreter joins it before finalising, so the file is never closed
        # by a thread that CPython is tearing down (that aborts inside DuckDB with exit 134). It
        # delays exit by at most ``linger`` seconds.
        self._timer.daemon = False
        self._timer.start()

    def _linger_expired(self) -> None:
        with self._lock:
            self._timer = None
            if self._con is None or self._holders or self._tx_depth:
                return
            idle = time.monotonic() - self._last_used
            if idle < self.linger:
                self._schedule(self.linger - idle)
                return
            con, self._con = self._con, None
            self._close_con(con)

    # ------------------------------------------------------------------ statements
    def _run(self, con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] | None):
        try:
            if params is None:
                return con.execute(sql)
            return con.execute(_parsed(con, sql), _adapt_params(params))
        except duckdb.Error as exc:
            raise _store_error(exc, sql) from exc

    @staticmethod
    def _rows(cur) -> tuple[list[str], list[bool], list[bool]]:
        desc = cur.description or []
        names = [d[0] for d in desc]
        is_json = [str(d[1]).upper() == "JSON" for d in desc]
        is_array = [str(d[1]).endswith("]") for d in desc]
        return names, is_json, is_array

    @staticmethod
    def _decode(row, is_json, is_array) -> list[Any]:
        out = list(row)
        for i, value in enumerate(out):
            if value is None:
                continue
            if is_json[i] and isinstance(value, str):
                out[i] = json.loads(value)
            elif is_array[i] and isinstance(value, tuple):
                out[i] = list(value)
        return out

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> None:
        """Run one statement (or a script of several when ``params`` is None)."""
        with self._connection() as con:
            self._run(con, sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run ``sql`` once per row, all in one transaction."""
        batch = [_adapt_params(r) for r in rows]
        if not batch:
            return
        with self.transaction(), self._connection() as con:
            try:
                con.executemany(sql, batch)
            except duckdb.Error as exc:
                raise _store_error(exc, sql) from exc

    def insert_rows(self, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
                    json_columns: Sequence[str] = ()) -> None:
        """Append rows with DuckDB's appender (one flush; keys, foreign keys, CHECKs and JSON are
        checked as by ``INSERT``; inside :meth:`transaction` it is part of it).

        A multi-row ``INSERT … VALUES`` of a self-play session's 40 turns costs about twice as much
        CPU to bind as the appender here, but for a turn's one or two rows making the appender costs
        more than the statement: below :data:`APPENDER_MIN_ROWS` rows (and on DuckDB before 2.0,
        which has no Python appender) a multi-row ``INSERT`` runs instead.
        """
        batch = [_adapt_params(r) or [] for r in rows]
        if not batch:
            return
        with self._connection() as con:
            if len(batch) < APPENDER_MIN_ROWS or not hasattr(con, "appender"):
                marks = "(" + ", ".join("CAST(? AS JSON)" if c in json_columns else "?" for c in columns) + ")"
                self._run(con, f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
                          + ", ".join(marks for _ in batch), [v for r in batch for v in r])
                return
            try:
                appender = con.appender(table, columns=list(columns))
                appender.append_rows(batch)
                appender.flush()
            except duckdb.Error as exc:
                raise _store_error(exc, f"INSERT INTO {table} (appender)") from exc

    def fetchall(self, sql: str, params: Sequence[Any] | None = None) -> list[dict[str, Any]]:
        """Rows as dicts; JSON columns decoded, arrays as lists."""
        with self._connection() as con:
            cur = self._run(con, sql, params)
            names, is_json, is_array = self._rows(cur)
            return [dict(zip(names, self._decode(r, is_json, is_array))) for r in cur.fetchall()]

    def fetchone(self, sql: str, params: Sequence[Any] | None = None) -> dict[str, Any] | None:
        """First row as a dict, or None."""
        with self._connection() as con:
            cur = self._run(con, sql, params)
            names, is_json, is_array = self._rows(cur)
            row = cur.fetchone()
            return None if row is None else dict(zip(names, self._decode(row, is_json, is_array)))

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
            if self._con is None:
                self._con = self._open()
            con = self._con
            self._tx_depth = 1
            try:
                self._run(con, "BEGIN TRANSACTION", None)
                try:
                    yield
                except BaseException:
                    try:
                        con.execute("ROLLBACK")
                    except duckdb.Error:
                        pass  # already rolled back by DuckDB after a failed statement
                    raise
                self._run(con, "COMMIT", None)
            finally:
                self._tx_depth = 0
                self._release()

    # ------------------------------------------------------------------ access context
    @property
    def current_view(self) -> str | None:
        """The AI view active on this thread (``client`` | ``counselor`` | ``evaluator``) or None."""
        return self._ctx.view

    @property
    def current_principal(self) -> tuple[str, str, str | None] | None:
        """``(role, uid, cohort)`` active on this thread, or None."""
        return self._ctx.principal

    @contextmanager
    def ai_view(self, view: str) -> Iterator[None]:
        """Record ``view`` so repository functions filter on ``visible_to``/``sensitivity``."""
        if view not in SENSITIVITY_MAX:
            raise InputError(f"AI view must be one of {', '.join(SENSITIVITY_MAX)}. Got {view!r} instead.",
                             field="view")
        previous = self._ctx.view
        self._ctx.view = view
        try:
            yield
        finally:
            self._ctx.view = previous

    @contextmanager
    def as_principal(self, role: str, uid: str, cohort: str | None = None) -> Iterator[None]:
        """Record the human principal so repository functions scope rows to it."""
        role = check_principal(role, uid)
        previous = self._ctx.principal
        self._ctx.principal = (role, str(uid), cohort)
        try:
            yield
        finally:
            self._ctx.principal = previous

    def visibility_clause(self, alias: str = "") -> tuple[str, list[Any]]:
        """``(sql, params)`` restricting rows to the active AI view; ``("TRUE", [])`` if none.

        Use it on tables that carry ``visible_to``/``sensitivity``
        (``app.turns``, ``app.turn_evaluation``, ``app.pinned_fact``, ``kb.chunk``).
        """
        view = self._ctx.view
        if view is None:
            return "TRUE", []
        return self.dialect.visible_filter(alias), [view, SENSITIVITY_MAX[view]]

    # ------------------------------------------------------------------ lifecycle
    def refresh_types(self) -> bool:
        """Nothing to re-read: DuckDB's list and JSON types need no driver adapters."""
        return False

    def clone(self) -> "DuckDatabase":
        """A new Database on the same file (for a worker thread)."""
        if self.memory:
            twin = DuckDatabase.__new__(DuckDatabase)
            twin.__dict__.update(self.__dict__)
            twin._lock = threading.RLock()
            twin._ctx = _Ctx()
            twin._holders = 0
            twin._tx_depth = 0
            assert self._con is not None  # an in-memory database keeps its connection
            twin._con = self._con.cursor()
            twin._timer = None
            return twin
        return DuckDatabase(self.path, lock_timeout=self.lock_timeout, url=self.url, linger=self.linger)

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._con is not None:
                con, self._con = self._con, None
                self._close_con(con)
            self._holders = 0
            self._tx_depth = 0

    def __repr__(self) -> str:
        return f"DuckDatabase({self.path!r})"


# Databases still open when the interpreter exits are closed by the main thread. Otherwise a
# daemon linger timer may be inside DuckDB's C++ ``close()`` during finalisation, where
# CPython ends the thread with a forced unwind that DuckDB catches: "terminate called after
# throwing an instance of ... FATAL: exception not rethrown" and exit code 134 after a
# successful command. Closing here also lets DuckDB checkpoint, so the file alone is complete.
_OPEN_DATABASES: "weakref.WeakSet[DuckDatabase]" = weakref.WeakSet()


# The watcher: one daemon thread per process hands the file of a pinned or lingering database
# to a waiting process while the pinned block computes without touching the database (an AI
# item, a self-play turn's engine call) or the lingering file is idle. It only takes a
# database's lock when free, i.e. never inside a statement or transaction. It is stopped and
# joined before databases are closed at exit.
_WATCHED: "weakref.WeakSet[DuckDatabase]" = weakref.WeakSet()
_WATCH_STOP = threading.Event()
_WATCH: list[threading.Thread] = []
WATCH_INTERVAL_S = 0.02


def _watch(db: DuckDatabase) -> None:
    if db.memory:
        return
    with _HOSTS_LOCK:
        _WATCHED.add(db)
        if _WATCH_STOP.is_set() or (_WATCH and _WATCH[0].is_alive()):
            return
        thread = threading.Thread(target=_watch_loop, name="vignette-duckdb-watcher", daemon=True)
        _WATCH[:] = [thread]
        thread.start()


def _watch_loop() -> None:
    while not _WATCH_STOP.wait(WATCH_INTERVAL_S):
        for db in list(_WATCHED):
            if db._con is None or db._tx_depth:
                continue  # closed, or inside a transaction (never interrupted)
            if not _others_waiting(db.path) or not db._lock.acquire(blocking=False):
                continue
            try:
                if not _WATCH_STOP.is_set():
                    db.yield_to_waiters()
            except duckdb.Error:
                pass  # the job's next statement reopens the file and reports a real problem
            finally:
                db._lock.release()


def pause_watcher(*, timeout: float = 2.0) -> bool:
    """Stop and join the watcher thread (it restarts with the next file database opened).

    For a process about to ``fork`` (the CLI's ``session start`` becoming the warm worker): only
    the forking thread survives a fork, so no other thread may hold a lock at that moment.

    Parameters
    ----------
    timeout : float, default=2.0
        Seconds to wait for the thread to end.

    Returns
    -------
    bool
        True when no watcher runs and no database host (a DuckDB instance with its own threads)
        is open in this process, i.e. this module holds no thread and no DuckDB state.
    """
    _WATCH_STOP.set()
    for thread in list(_WATCH):
        thread.join(timeout=timeout)
    alive = any(thread.is_alive() for thread in _WATCH)
    if not alive:
        _WATCH.clear()
        _WATCH_STOP.clear()
    with _HOSTS_LOCK:
        return not alive and not _HOSTS


@atexit.register
def _close_open_databases() -> None:
    _WATCH_STOP.set()
    for thread in list(_WATCH):
        thread.join(timeout=YIELD_PAUSE_S + 1.0)
    for database in list(_OPEN_DATABASES):
        try:
            database.close()
        except duckdb.Error:
            pass  # the process is exiting; a failed close must not turn exit 0 into an error
    with _HOSTS_LOCK:
        hosts = [entry[0] for entry in _HOSTS.values()]
        _HOSTS.clear()
    for host in hosts:
        try:
            host.close()
        except duckdb.Error:
            pass


# One in-memory host connection per file and process, with the file attached under CATALOG;
# every DuckDatabase on that file uses its own cursor (a connection to the same instance), so
# clones in threads run side by side as with ``duckdb.connect(path)``'s instance cache. The host
# (and with it the file lock) is closed when its last cursor is.
_HOSTS: dict[str, list[Any]] = {}
_HOSTS_LOCK = threading.Lock()


def _wait_prefix(path: str) -> str:
    return os.path.abspath(path) + ".wait-"


def _announce_wait(path: str) -> str | None:
    """Create this thread's wait file next to the database (None when the folder is read-only)."""
    name = f"{_wait_prefix(path)}{os.getpid()}-{threading.get_ident()}"
    try:
        with open(name, "w", encoding="ascii"):
            pass
    except OSError:
        return None
    return name


def _withdraw_wait(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def _others_waiting(path: str) -> bool:
    """True when another process announced that it waits for this file (and is not stale)."""
    mine = f"{_wait_prefix(path)}{os.getpid()}-"
    now = time.time()
    for name in glob.glob(glob.escape(_wait_prefix(path)) + "*"):
        if name.startswith(mine):
            continue
        try:
            fresh = now - os.path.getmtime(name) < _WAIT_STALE_S
        except OSError:
            continue  # withdrawn meanwhile
        if fresh and _alive(name):
            return True
        _withdraw_wait(name)  # left over from a killed process
    return False


def _alive(wait_file: str) -> bool:
    """Whether the process named in a wait file still runs."""
    try:
        pid = int(wait_file.rsplit(".wait-", 1)[1].split("-", 1)[0])
        os.kill(pid, 0)
    except (ValueError, IndexError, ProcessLookupError):
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _attach(path: str) -> duckdb.DuckDBPyConnection:
    key = os.path.abspath(path)
    with _HOSTS_LOCK:
        entry = _HOSTS.get(key)
        if entry is None:
            host = duckdb.connect(":memory:", config=_config())
            try:
                host.execute(f"ATTACH '{_sql_literal(key)}' AS {CATALOG}")
            except BaseException:
                host.close()
                raise
            entry = _HOSTS[key] = [host, 0]
        cur = entry[0].cursor()
        entry[1] += 1
    try:
        cur.execute(f"USE {CATALOG}")
    except BaseException:
        _detach(path, cur)
        raise
    return cur


def _detach(path: str, con: duckdb.DuckDBPyConnection) -> bool:
    """Close one cursor; True when it was the last one and the file is released."""
    key = os.path.abspath(path)
    with _HOSTS_LOCK:
        con.close()
        entry = _HOSTS.get(key)
        if entry is None:
            return True
        entry[1] -= 1
        if entry[1] <= 0:
            del _HOSTS[key]
            entry[0].close()  # checkpoints the file and releases its lock
            return True
        return False
