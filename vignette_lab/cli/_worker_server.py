"""The worker process behind :mod:`vignette_lab.cli.worker` (imported only in a worker: ``worker
serve``, or the forked child of the in-process command that started it).

It takes the lifetime lock, warms up what ``session send`` needs (a session with the scripted
engine, never a paid API, on an in-memory database, sent one turn: kiwipiepy, the PII
recognisers, the engine, the fact reader and the KB search are then loaded), binds the
owner-only socket, warms up ``end``/``review`` (the evaluator) and derives the PII gate's
literal pre-filters once no request came for ``_REST_AFTER_S`` seconds, and answers one request
at a time: it offers to take a request (``{"ready": true}``), runs it only after the client's
``{"go": true}``, and answers
``{"stdout", "stderr", "exit_code"}`` from the same click command an in-process call runs
(:class:`click.testing.CliRunner` captures its output; an unexpected exception becomes the
traceback Python would have printed, exit code 1). One request at a time keeps ``sys.stdout``
and the working directory per request; a warm command takes a few hundred milliseconds.
The database is opened and closed by each command, never held between requests.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import struct
import sys
import time
import traceback
from typing import Any, Callable

from click.testing import CliRunner

from vignette_lab.cli.worker import PROTOCOL, WorkerPaths, _write_info

__all__ = ["serve", "warm_up"]

log = logging.getLogger(__name__)
_REQUEST_TIMEOUT_S = 10.0  # a client that connected but sends nothing in this time is dropped
_REST_AFTER_S = 0.3  # quiet seconds after the socket is up before end/review are warmed up


class _Runner(CliRunner):
    """A runner whose usage lines name the client's program."""

    def __init__(self, prog_name: str) -> None:
        super().__init__()
        self._prog_name = prog_name

    def get_default_prog_name(self, cli: Any) -> str:
        return self._prog_name


def warm_up() -> float:
    """Load everything a session command needs, on a throw-away in-memory database; seconds taken."""
    t0 = time.perf_counter()
    _warm_send()()
    return time.perf_counter() - t0


def _warm_send() -> Callable[[], None]:
    """Load what ``session send`` needs (the first command a trainee types after ``start``): a
    scripted session is started and sent one turn with a phone number on an in-memory database
    (kiwipiepy, the PII recognisers, the engine, the fact reader, the KB search). Returns the
    second step, which ends and reviews that session (the evaluator) and closes the database;
    :func:`serve` runs it once the socket is up and no request is waiting."""
    from vignette_lab.core import pii
    from vignette_lab.engines.scripted import ScriptedEngine
    from vignette_lab.session.service import SessionService
    from vignette_lab.store import connect, init_db
    from vignette_lab.store.catalog import load_catalog

    reason = "worker warm-up (the CLI's one-shot backend)"
    previous = pii.set_default_backend("regex", reason=reason)
    db = connect(":memory:")
    try:
        init_db(db)
        load_catalog(db)
        # the scripted engine whatever VIGNETTE_ENGINE says: warming up never calls a paid API
        service = SessionService(db, engine=ScriptedEngine(), embedder="auto")
        info = service.start("P4", learner_id="worker-warm-up", goal_stages=("라포", "탐색"))
        service.send(info.session_id, "요즘 어떻게 지내세요? 제 번호는 010-1234-5678이에요.")
    except BaseException:
        db.close()
        raise
    finally:
        pii.set_default_backend(previous[0], reason=previous[1])  # type: ignore[arg-type]

    def finish() -> None:
        again = pii.set_default_backend("regex", reason=reason)
        try:
            service.end(info.session_id)
            service.review(info.session_id)
            from vignette_lab.engines import select_engine

            select_engine(None)  # the configured engine's imports (built, never called)
            pii.prepare_prefilters()  # now, not inside the request that masks the 200th text
        finally:
            db.close()
            pii.set_default_backend(again[0], reason=again[1])  # type: ignore[arg-type]

    return finish


def _peer_uid(conn: socket.socket) -> int | None:
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):
        return None
    return struct.unpack("3i", raw)[1]


def _run(request: dict[str, Any]) -> dict[str, Any]:
    from vignette_lab.cli import main

    cwd = os.getcwd()
    try:
        os.chdir(request.get("cwd") or cwd)
    except OSError:
        pass
    try:
        result = _Runner(str(request.get("prog_name") or "vignette-lab")).invoke(
            main, list(request["argv"]), catch_exceptions=True)
    finally:
        os.chdir(cwd)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit) and result.exc_info:
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return {"stdout": result.stdout, "stderr": stderr, "exit_code": result.exit_code}


def _handle(conn: socket.socket, *, fingerprint: str, uid: int) -> bool:
    """Serve one connection; True when the worker was asked to stop."""
    conn.settimeout(_REQUEST_TIMEOUT_S)
    reader = conn.makefile("rb")
    request = json.loads(reader.readline() or b"null")
    if not isinstance(request, dict):
        return False
    if request.get("op") == "stop":
        conn.sendall(b'{"stopping": true}\n')
        return True
    if _peer_uid(conn) not in (uid, None):
        conn.sendall(b'{"ready": false, "reason": "uid"}\n')
        return False
    if request.get("protocol") != PROTOCOL or request.get("fingerprint") != fingerprint:
        conn.sendall(b'{"ready": false, "reason": "fingerprint"}\n')
        return False
    conn.sendall(b'{"ready": true}\n')
    go = json.loads(reader.readline() or b"null")
    if not (isinstance(go, dict) and go.get("go")):
        return False  # the client gave up before "go": it runs the command itself
    answer = _run(request)
    with contextlib.suppress(OSError):
        conn.sendall(json.dumps(answer, ensure_ascii=False).encode() + b"\n")
    return False


def _tidy(paths: WorkerPaths) -> None:
    """Remove what an earlier version left beside the database and other databases' stale files."""
    from vignette_lab.cli import _worker_files

    try:
        if paths.server_url is None:
            for path in _worker_files.retire_legacy(paths.db):
                print(f"{time.strftime('%F %T')} removed {path} (an earlier version's worker file)", flush=True)
        _worker_files.prune(paths.socket.parent, keep=paths.socket.with_suffix(""))
    except OSError as exc:  # tidying is a courtesy; the worker serves regardless
        log.warning("worker could not tidy old files: %s", exc)


def _take_lock(paths: WorkerPaths) -> int | None:
    import fcntl

    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + 1.0  # a client may be testing the lock this instant
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.05)


def serve(paths: WorkerPaths, *, idle: float, fingerprint: str, warm: bool = True) -> None:
    """Run the worker until it has been idle ``idle`` seconds or is stopped.

    Parameters
    ----------
    paths : WorkerPaths
        The database's worker files.
    idle : float
        Seconds without a request before it exits.
    fingerprint : str
        :func:`vignette_lab.cli.worker.fingerprint` of this process; requests from another
        code or environment are refused (their client runs in-process).
    warm : bool, default=True
        Load everything before taking requests (False: the first request pays for it).
    """
    os.umask(0o077)
    lock_fd = _take_lock(paths)
    if lock_fd is None:
        print(f"{time.strftime('%F %T')} another worker holds {paths.lock}; exiting", flush=True)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    listener = None
    try:
        os.ftruncate(lock_fd, 0)
        os.write(lock_fd, str(os.getpid()).encode())
        info: dict[str, Any] = {"pid": os.getpid(), "db": paths.label, "idle_limit_s": idle,
                                "started": time.strftime("%Y-%m-%d %H:%M:%S"), "started_epoch": time.time()}
        _write_info(paths, info)
        _tidy(paths)
        t0 = time.perf_counter()
        finish = _warm_send() if warm else None
        took = time.perf_counter() - t0
        with contextlib.suppress(FileNotFoundError):
            paths.socket.unlink()  # a dead worker's socket: we hold the lock, so nobody serves it
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(paths.socket))
        os.chmod(paths.socket, 0o600)
        listener.listen(16)
        info["ready_epoch"] = time.time()
        _write_info(paths, info)  # ours again, whatever the spawning client wrote meanwhile
        print(f"{time.strftime('%F %T')} worker {os.getpid()} warm in {took:.2f} s, serving {paths.label}",
              flush=True)
        uid = os.getuid()
        while True:
            # the rest of the warm-up (end, review) when no request came within _REST_AFTER_S
            listener.settimeout(min(idle, _REST_AFTER_S) if finish is not None else idle)
            try:
                conn, _ = listener.accept()
            except socket.timeout:
                if finish is not None:
                    t0, rest = time.perf_counter(), finish
                    finish = None
                    try:
                        rest()
                    except Exception as exc:  # noqa: BLE001 - a request then loads what it needs itself
                        log.warning("worker warm-up of end/review failed: %s", exc)
                    print(f"{time.strftime('%F %T')} end/review warm in {time.perf_counter() - t0:.2f} s", flush=True)
                    continue
                print(f"{time.strftime('%F %T')} idle for {idle:g} s; exiting", flush=True)
                break
            with conn:
                try:
                    if _handle(conn, fingerprint=fingerprint, uid=uid):
                        print(f"{time.strftime('%F %T')} stop requested; exiting", flush=True)
                        break
                except (OSError, ValueError) as exc:
                    log.warning("worker request failed: %s", exc)
            info["last_request_epoch"] = time.time()  # after the answer: `worker status` shows the idle time
            _write_info(paths, info)
    finally:
        if listener is not None:
            listener.close()
            with contextlib.suppress(FileNotFoundError):
                paths.socket.unlink()
        with contextlib.suppress(FileNotFoundError):
            paths.info.unlink()
        os.close(lock_fd)
