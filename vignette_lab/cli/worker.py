"""The warm local worker: session commands handed to one long-lived process per database file.

Every ``vignette-lab`` call is a new process, and a session command spends most of its time
loading kiwipiepy, compiling the PII recognisers and building the engine, not on the session.
So, like ``dmypy`` or a Gradle daemon, the first session command on a DuckDB file starts a
worker in the background (after it has run, in-process, as always, and written its output: the
process forks and its child becomes the worker, keeping the modules and data the command already
loaded — :func:`become_worker`; a new ``worker serve`` process for PostgreSQL, when another thread
runs, or with ``VIGNETTE_WORKER_FORK=off``); later ``session start /
send / end / review`` and ``doctor`` calls on the same file hand their arguments to it over a
Unix-domain socket and print what it answers. The worker runs the very same click command
(:mod:`vignette_lab.cli._worker_server`), so output, exit codes and one-line errors are those
of the in-process run.

Where the files live: in the user's owner-only runtime folder (``$XDG_RUNTIME_DIR/vignette-<uid>``,
else ``$VIGNETTE_CACHE_DIR/worker``, default ``~/.cache/vignette-lab/worker``, else
``/tmp/vignette-<uid>``; mode ``0700``, see :mod:`vignette_lab.cli._worker_files`), never beside
the database, under a hash of the database's real path: ``<hash>.sock`` (owner-only, ``0600``;
the worker also checks the peer's uid), ``<hash>.lock`` (held with ``flock`` for the worker's
whole life, so a dead worker is known by a free lock), ``<hash>.json`` (pid, started, idle
limit, last request) and ``<hash>.log``; ``vignette-lab worker status`` prints their paths.
Files an earlier version kept beside the database (``.<file>.worker.*``) are removed by the next
worker that starts (its legacy worker, if still running, is stopped first). A PostgreSQL
database (``postgresql://…`` or ``pgserver:DIR``) has its worker there too, under a hash of the
URL as given (the URL itself, which may hold a password, is never written to a file or a
command line: the worker gets it in its environment).

A command that finds the worker still warming up waits for it (at most ``START_WAIT_S``, and
only while the warm-up is younger than ``START_GRACE_S`` and its process alive). When the worker
cannot be used, the command runs in-process exactly as without it: no socket or a stale one (a
free lock), a worker warming up for too long, one started from other code or
another environment (the fingerprint: package folder, newest source mtime, Python, the
``VIGNETTE_*``/``ANTHROPIC_*`` variables, ``PYTHONPATH`` and ``TZ`` — the old worker is then told to stop and a
new one starts), or no answer within :data:`READY_TIMEOUT_S`. Once the worker has been told
to go, the client waits for its answer and never re-runs the command (a turn is never sent
twice); a worker that dies mid-command is a one-line error.

It exits after ``VIGNETTE_WORKER_IDLE`` seconds without a request (default
:data:`DEFAULT_IDLE_S`) and on ``vignette-lab worker stop``. ``VIGNETTE_WORKER=off`` runs
everything in-process; ``VIGNETTE_WORKER_WAIT`` is the seconds a client waits for a busy
worker (default :data:`READY_TIMEOUT_S`), ``VIGNETTE_WORKER_START_WAIT`` for one still warming
up (default :data:`START_WAIT_S`); ``VIGNETTE_WORKER_WARMUP=off`` starts a worker
that loads the models on its first request instead (tests, cold-worker benchmarks). Only processes started from the console entry point use the worker
(``main()`` with ``args=None``); ``CliRunner`` and other in-process callers never do. DuckDB:
the worker opens the file per command like any CLI call and closes it when the command ends,
so it never keeps a notebook, the app or another CLI waiting (the store's file hand-over).

This module imports only the standard library and click: it is the client path of every
forwarded command (``python -X importtime`` in ``bench/RESULTS.md``).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from vignette_lab.cli._base import group

__all__ = ["DEFAULT_IDLE_S", "FORWARDED", "READY_TIMEOUT_S", "WorkerPaths", "become_worker", "ensure_started",
           "fingerprint", "forward", "worker", "worker_paths", "worker_status"]

#: seconds a worker waits for the next request before it exits
DEFAULT_IDLE_S = 900.0
#: seconds a client waits for a (busy) worker to take its request before running in-process
READY_TIMEOUT_S = 5.0
#: command paths handed to the worker: (command, sub-command or None); ``True`` = may start one
FORWARDED = {("session", "start"): True, ("session", "send"): True, ("session", "end"): True,
             ("session", "review"): True, ("doctor", None): False}
#: seconds a client waits for a worker that is still warming up, and how old such a worker may be
START_WAIT_S, START_GRACE_S = 20.0, 90.0
PROTOCOL = 1
#: seconds the command may wait for its other threads to end before it forks (else: a new process)
_FORK_SETTLE_S = 0.25
_ENV_PREFIXES = ("VIGNETTE_", "ANTHROPIC_")
# not the offline/OpenMP variables: the package sets those itself (setdefault) in every process,
# so a client that already ran a command in-process would start workers other clients refuse
_ENV_NAMES = ("PYTHONPATH", "TZ")
# the database is chosen by the socket and named in every request (``--db``): not part of the fingerprint
_ENV_IGNORED = ("VIGNETTE_DB",)
_PACKAGE = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class WorkerPaths:
    """The files of the worker of one database (a DuckDB file or a PostgreSQL URL)."""

    db: Path
    socket: Path
    lock: Path
    info: Path
    log: Path
    #: the PostgreSQL URL as given (None for a DuckDB file, which ``db`` names)
    server_url: str | None = None

    @property
    def label(self) -> str:
        """What to print for the database: the file, or the URL without its password."""
        if self.server_url is None:
            return str(self.db)
        from vignette_lab.config import redact_url

        return redact_url(self.server_url)


def _files(base: Path, **extra: Any) -> WorkerPaths:
    db = extra.pop("db", base)
    return WorkerPaths(db=db, socket=Path(f"{base}.sock"), lock=Path(f"{base}.lock"), info=Path(f"{base}.json"),
                       log=Path(f"{base}.log"), **extra)


def worker_paths(db_url: str) -> WorkerPaths | None:
    """The worker files for a DuckDB file or a PostgreSQL URL; None for ``:memory:``.

    Parameters
    ----------
    db_url : str
        A resolved database URL (``--db`` / ``VIGNETTE_DB``).

    Returns
    -------
    WorkerPaths or None
        None for in-memory databases and URLs of no known form (no worker for them).
    """
    from vignette_lab.cli._worker_files import base_for

    text = (db_url or "").strip()
    lower = text.lower()
    if lower.startswith(("postgresql://", "postgres://", "pgserver:")):
        key = text
        if lower.startswith("pgserver:"):  # one worker per server folder, however it is spelled
            key = "pgserver:" + os.path.realpath(os.path.expanduser(text[len("pgserver:"):]))
        base = base_for(key)
        # the worker starts elsewhere (cwd: this folder), so a pgserver folder is handed over absolute
        return None if base is None else _files(base, server_url=key)
    if lower.startswith("duckdb://"):
        text = text[len("duckdb://"):]
    if not text or text.lower() in (":memory:", "duckdb::memory:", "/:memory:") or "://" in text or \
            text.lower().startswith(("postgres", "duckdb:")):
        return None
    db = Path(os.path.realpath(os.path.expanduser(text)))
    base = base_for(str(db))  # never beside the database (a folder JupyterLab may serve)
    return None if base is None else _files(base, db=db)


def fingerprint() -> str:
    """What a worker must share with its client: code, Python and the settings-bearing environment."""
    newest = 0.0
    for folder, _dirs, files in os.walk(_PACKAGE):
        for name in files:
            if name.endswith((".py", ".sql", ".json")):
                newest = max(newest, os.stat(os.path.join(folder, name)).st_mtime)
    env = sorted((k, v) for k, v in os.environ.items()
                 if (k.startswith(_ENV_PREFIXES) and not k.startswith("VIGNETTE_WORKER") and k not in _ENV_IGNORED)
                 or k in _ENV_NAMES)
    text = json.dumps([PROTOCOL, str(_PACKAGE), newest, sys.executable, sys.version, env])
    return hashlib.sha256(text.encode()).hexdigest()


def _seconds(name: str, default: float) -> float:
    try:
        return max(0.05, float(os.environ.get(name) or default))
    except ValueError:
        return default


def _enabled() -> bool:
    return os.environ.get("VIGNETTE_WORKER", "auto").strip().lower() not in ("0", "off", "no", "false") \
        and not os.environ.get("_VIGNETTE_IN_WORKER")


def _command_path(argv: list[str]) -> tuple[str, str | None] | None:
    if not argv or any(a in ("-h", "--help") for a in argv):
        return None  # help is cheap in-process and depends on the terminal's width
    if argv[0] == "doctor":
        return ("doctor", None)
    if argv[0] == "session" and len(argv) > 1:
        return ("session", argv[1])
    return None


def _lock_is_free(paths: WorkerPaths) -> bool:
    import fcntl

    try:
        fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pending_pid(paths: WorkerPaths) -> int | None:
    """The pid of a worker just spawned that has not taken its lock yet (alive, announced less than
    :data:`START_GRACE_S` ago by :func:`spawn`); None otherwise."""
    try:
        info = json.loads(paths.info.read_text(encoding="utf-8"))
        if not info.get("spawned") or time.time() - float(info["started_epoch"]) > START_GRACE_S:
            return None
        pid = int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return pid if _alive(pid) else None


def _ready_socket(paths: WorkerPaths) -> bool:
    """True when the worker's socket is there; a worker still warming up (started less than
    :data:`START_GRACE_S` ago: its lock held, or its process alive and about to take the lock) is
    waited for up to ``VIGNETTE_WORKER_START_WAIT`` seconds (default :data:`START_WAIT_S`)."""
    if paths.socket.exists():
        return True
    try:
        info = json.loads(paths.info.read_text(encoding="utf-8"))
        started, pid = float(info["started_epoch"]), int(info["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return False  # no worker at all
    if time.time() - started > START_GRACE_S:
        return False  # warming up for that long: hung; `worker stop` clears it
    deadline = time.monotonic() + _seconds("VIGNETTE_WORKER_START_WAIT", START_WAIT_S)
    while time.monotonic() < deadline:
        if paths.socket.exists():
            return True
        if _lock_is_free(paths) and not _alive(pid):
            return False  # it died while warming up (or before it took the lock)
        time.sleep(0.05)
    return paths.socket.exists()


def _exchange(paths: WorkerPaths, request: dict[str, Any], *, ready_timeout: float) -> dict[str, Any] | None:
    """Offer ``request``; None when the worker could not take it (nothing ran there)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(ready_timeout)
        try:
            sock.connect(str(paths.socket))
            sock.sendall(json.dumps(request).encode() + b"\n")
            reader = sock.makefile("rb")
            offer = json.loads(reader.readline() or b"null")
        except (OSError, ValueError):
            return None
        if not isinstance(offer, dict) or not offer.get("ready"):
            return offer if isinstance(offer, dict) else None
        sock.settimeout(None)  # from "go" on the command runs there: wait for it, never run it twice
        try:
            sock.sendall(b'{"go": true}\n')
            answer = json.loads(reader.readline() or b"null")
        except (OSError, ValueError):
            answer = None
        if not isinstance(answer, dict) or "exit_code" not in answer:
            raise click.ClickException(f"작업 프로세스(worker)가 명령을 처리하던 중 응답 없이 끝났습니다 — "
                                       f"결과는 `vignette-lab session review`로 확인하세요 (log: {paths.log})")
        return answer
    finally:
        sock.close()


def forward(db_url: str, argv: list[str], *, prog_name: str) -> int | None:
    """Hand one command to the database's warm worker.

    Parameters
    ----------
    db_url : str
        The resolved ``--db`` URL.
    argv : list of str
        The arguments after the group options (``["session", "send", ID, TEXT]``).
    prog_name : str
        The program name the usage lines show.

    Returns
    -------
    int or None
        The command's exit code after its output was printed; None when the command must run
        in-process (no usable worker; nothing ran).
    """
    path = _command_path(argv)
    if not _enabled() or path not in FORWARDED:
        return None
    paths = worker_paths(db_url)
    if paths is None or not _ready_socket(paths):
        return None
    mine = fingerprint()
    # the URL as the user gave it, run from the user's folder: messages name the file the same way
    request = {"protocol": PROTOCOL, "argv": ["--db", db_url, *argv], "cwd": os.getcwd(),
               "prog_name": prog_name, "fingerprint": mine}
    answer = _exchange(paths, request, ready_timeout=_seconds("VIGNETTE_WORKER_WAIT", READY_TIMEOUT_S))
    if answer is None or "exit_code" not in answer:
        if answer is not None and answer.get("reason") == "fingerprint":
            stop(paths)  # another code or environment: the next command starts a fresh worker
        return None
    click.echo(answer.get("stdout", ""), nl=False)
    click.echo(answer.get("stderr", ""), nl=False, err=True)
    return int(answer["exit_code"])


def ensure_started(db_url: str, argv: list[str]) -> bool:
    """Start the worker in the background when a session command ran without one.

    Returns
    -------
    bool
        True when a worker process was started.
    """
    path = _command_path(argv)
    if not _enabled() or not FORWARDED.get(path):  # type: ignore[arg-type]
        return False
    paths = worker_paths(db_url)
    if paths is None or (paths.server_url is None and not paths.db.exists()) or not _lock_is_free(paths) \
            or _pending_pid(paths) is not None:
        return False  # no file yet, or a worker holds the lock (alive, maybe still warming up) or is about to
    if not become_worker(paths):
        spawn(paths)
    return True


def _fork_allowed(paths: WorkerPaths) -> bool:
    if paths.server_url is not None or not hasattr(os, "fork"):
        return False  # PostgreSQL: its client library and pgserver keep per-process state; a new process
    if os.environ.get("VIGNETTE_WORKER_FORK", "on").strip().lower() in ("0", "off", "no", "false"):
        return False
    store = sys.modules.get("vignette_lab.store.duck")
    if store is not None and not store.pause_watcher():
        return False  # a DuckDB instance still open here (its threads would not survive the fork)
    import gc

    gc.collect()  # a closed connection still referenced by a cycle would keep its DuckDB threads
    # only the forking thread survives a fork; a closed DuckDB instance's threads end within a few ms
    deadline = time.monotonic() + _FORK_SETTLE_S
    while True:
        try:
            if len(os.listdir("/proc/self/task")) == 1:
                return True
        except OSError:
            return False  # no /proc: the OS threads cannot be counted, so do not fork
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)


def _detach_child(paths: WorkerPaths) -> None:
    """In the forked child: a session of its own, no terminal, no pipe of the caller, the log as output."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    log_fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(null)
    os.close(log_fd)
    import stat

    # what the caller handed down beyond 0-2 (a pipe it waits on, a terminal, a socket); this
    # process's own files (the package's data, the lock) are regular files and stay open
    for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ():
        fd = int(name)
        if fd <= 2:
            continue
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd)):
            try:
                os.close(fd)
            except OSError:
                pass
    os.environ["_VIGNETTE_IN_WORKER"] = "1"
    os.chdir(str(paths.db.parent))


def become_worker(paths: WorkerPaths) -> bool:
    """Fork, and let the child become the database's worker with everything this command loaded.

    Called when a console command has run in-process and its output is written (the parent
    flushes it first, then goes on to exit with its own code as always). The child leaves the
    caller's session, terminal and pipes at once (a ``$(vignette-lab session start P4)`` or a
    ``subprocess.run`` returns when the parent exits), keeps the modules, compiled recognisers and
    data this command already loaded, and runs :func:`vignette_lab.cli._worker_server.serve`
    exactly as ``worker serve`` does (lock, warm-up of what is still missing, owner-only socket,
    idle exit). Not for PostgreSQL, nor when another thread runs or a DuckDB instance is open here
    (only the forking thread survives a fork), nor with ``VIGNETTE_WORKER_FORK=off``: then
    :func:`spawn` starts a new process as before.

    Returns
    -------
    bool
        True in the parent when the child was forked; False when it was not (nothing done).
        The child never returns.
    """
    if not _fork_allowed(paths):
        return False
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    pid = os.fork()
    if pid:
        # as spawn(): a command started before the child holds its lock waits for it
        _write_info(paths, {"pid": pid, "db": paths.label, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                            "started_epoch": time.time(), "spawned": True, "forked": True})
        return True
    code = 1
    try:
        _detach_child(paths)
        from vignette_lab.cli._worker_server import serve

        warm = os.environ.get("VIGNETTE_WORKER_WARMUP", "on").strip().lower() not in ("0", "off", "no", "false")
        print(f"{time.strftime('%F %T')} worker {os.getpid()} forked from the in-process command", flush=True)
        serve(paths, idle=_seconds("VIGNETTE_WORKER_IDLE", DEFAULT_IDLE_S), fingerprint=fingerprint(), warm=warm)
        code = 0
    except SystemExit as exc:  # SIGTERM (serve's handler) or a command's exit inside serve
        code = exc.code if isinstance(exc.code, int) else 0
    except BaseException:  # noqa: BLE001 - the child must never return into the parent's command
        import traceback

        traceback.print_exc()
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()  # closes databases a command left open, as a normal exit does
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    return False  # not reached


def spawn(paths: WorkerPaths, *, idle: float | None = None) -> int:
    """Start ``vignette-lab worker serve`` for ``paths.db`` detached from this process; its pid."""
    import subprocess  # only when a worker is started

    env = dict(os.environ, _VIGNETTE_IN_WORKER="1")
    args = [sys.executable, "-m", "vignette_lab.cli", "worker", "serve"]
    if paths.server_url is None:
        args[3:3] = ["--db", str(paths.db)]
    else:
        env["VIGNETTE_DB"] = paths.server_url  # not on the command line: `ps` would show a password
    if idle is not None:
        args += ["--idle", str(idle)]
    fd = os.open(paths.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, env=env,
                                start_new_session=True, close_fds=True, cwd=str(paths.db.parent))
    finally:
        os.close(fd)
    # Say at once that a worker is on its way: a command started before the new process has taken
    # the lock (the trainee's first `send` right after `session start`) then waits for it instead of
    # loading everything itself beside it. The worker rewrites this file when it holds the lock.
    _write_info(paths, {"pid": proc.pid, "db": paths.label, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                        "started_epoch": time.time(), "spawned": True})
    return proc.pid


def _write_info(paths: WorkerPaths, info: dict[str, Any]) -> None:
    tmp = paths.info.with_name(f".{paths.info.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(info, fh)
        os.replace(tmp, paths.info)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def worker_status(db_url: str) -> dict[str, Any]:
    """``{"state": "running"|"starting"|"stopped"|"none", ...}`` for the database's worker."""
    paths = worker_paths(db_url)
    if paths is None:
        return {"state": "none", "reason": "no worker for in-memory databases"}
    info: dict[str, Any] = {}
    try:
        info = json.loads(paths.info.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    if _lock_is_free(paths):
        pending = _pending_pid(paths)
        if pending is None:
            return {"state": "stopped", "socket": str(paths.socket)}
        return {"state": "starting", "socket": str(paths.socket), "log": str(paths.log), "pid": pending,
                **{k: info[k] for k in ("started",) if k in info}}
    state = "running" if paths.socket.exists() and info else "starting"
    out: dict[str, Any] = {"state": state, "socket": str(paths.socket), "log": str(paths.log),
                            **{k: info[k] for k in ("pid", "started") if k in info}}
    # seconds since the last request; before the first one, since it was ready (or started)
    since = info.get("last_request_epoch") or info.get("ready_epoch") or info.get("started_epoch")
    if state == "running" and isinstance(since, (int, float)):
        out["idle_s"] = round(max(0.0, time.time() - since), 1)
    if isinstance(info.get("idle_limit_s"), (int, float)):
        out["exits_after_idle_s"] = info["idle_limit_s"]
    return out


def stop(paths: WorkerPaths, *, wait: float = 5.0) -> bool:
    """Ask the worker to exit (``SIGTERM`` when it does not answer); True when none is left."""
    if _lock_is_free(paths):
        pending = _pending_pid(paths)  # spawned, not yet holding its lock
        if pending is None:
            return True
        os.kill(pending, 15)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and _alive(pending):
            time.sleep(0.05)
        return not _alive(pending)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(2.0)
        sock.connect(str(paths.socket))
        sock.sendall(b'{"op": "stop"}\n')
        sock.makefile("rb").readline()
    except OSError:
        try:  # warming up or hung: the pid it wrote when it took the lock
            pid = json.loads(paths.info.read_text(encoding="utf-8"))["pid"]
            os.kill(int(pid), 15)
        except (OSError, ValueError, KeyError):
            pass
    finally:
        sock.close()
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if _lock_is_free(paths):
            return True
        time.sleep(0.05)
    return _lock_is_free(paths)


# --------------------------------------------------------------------------- commands
@group("worker")
def worker() -> None:
    """The warm local worker that serves session commands (one per database file or PostgreSQL URL)."""


@worker.command("start")
@click.option("--idle", type=click.FloatRange(min=0.5), default=None,
              help=f"Seconds without a request before it exits (default $VIGNETTE_WORKER_IDLE or {DEFAULT_IDLE_S:.0f}).")
@click.option("--wait", "wait_s", type=click.FloatRange(min=0), default=60.0, show_default=True,
              help="Seconds to wait until it is warm (0: do not wait).")
@click.pass_context
def worker_start(ctx: click.Context, idle: float | None, wait_s: float) -> None:
    """Start the database's worker now (session commands start it on their own).

    Example: vignette-lab --db vignette.duckdb worker start
    """
    paths = _paths_or_fail(ctx)
    if paths.server_url is None and not paths.db.exists():
        raise click.ClickException(f"{paths.db}: database file does not exist yet; run `vignette-lab init`")
    if _lock_is_free(paths) and _pending_pid(paths) is None:
        spawn(paths, idle=idle)
    url = ctx.obj["db_url"]
    deadline = time.monotonic() + wait_s
    while wait_s and time.monotonic() < deadline and worker_status(url)["state"] != "running":
        time.sleep(0.1)
    status = worker_status(url)
    if wait_s and status["state"] != "running":
        raise click.ClickException(f"worker did not become ready within {wait_s:g} s (log: {paths.log})")
    click.echo(f"worker {status['state']}" + (f" (pid {status['pid']})" if "pid" in status else ""))


@worker.command("stop")
@click.pass_context
def worker_stop(ctx: click.Context) -> None:
    """Stop the database's worker (the next session command runs in-process and starts a new one).

    Example: vignette-lab worker stop
    """
    paths = _paths_or_fail(ctx)
    was = worker_status(ctx.obj["db_url"])["state"]
    if not stop(paths):
        raise click.ClickException(f"worker did not stop within 5 s (log: {paths.log})")
    if paths.server_url is None:
        from vignette_lab.cli._worker_files import retire_legacy

        retire_legacy(paths.db)  # an earlier version's worker and its files beside the database
    click.echo("worker stopped" if was != "stopped" else "worker was not running")


@worker.command("status")
@click.pass_context
def worker_status_command(ctx: click.Context) -> None:
    """Say whether the database's worker runs: pid, start, seconds since its last request
    (``idle_s``), the idle time after which it exits, socket and log.

    Example: vignette-lab worker status
    """
    status = worker_status(ctx.obj["db_url"])
    click.echo(" ".join([f"worker {status['state']}"] +
                        [f"{k} {status[k]:g}" if isinstance(status[k], float) else f"{k} {status[k]}"
                         for k in ("pid", "started", "idle_s", "exits_after_idle_s", "socket", "log") if k in status]))


@worker.command("serve", hidden=True)
@click.option("--idle", type=click.FloatRange(min=0.5), default=None, help="Seconds without a request before exit.")
@click.pass_context
def worker_serve(ctx: click.Context, idle: float | None) -> None:
    """Run the worker in the foreground (what `worker start` and session commands launch).

    Example: vignette-lab --db vignette.duckdb worker serve --idle 60
    """
    from vignette_lab.cli._worker_server import serve  # the heavy part: only in the worker

    paths = _paths_or_fail(ctx)
    if idle is None:
        idle = _seconds("VIGNETTE_WORKER_IDLE", DEFAULT_IDLE_S)
    warm = os.environ.get("VIGNETTE_WORKER_WARMUP", "on").strip().lower() not in ("0", "off", "no", "false")
    serve(paths, idle=idle, fingerprint=fingerprint(), warm=warm)


def _paths_or_fail(ctx: click.Context) -> WorkerPaths:
    paths = worker_paths(ctx.obj["db_url"])
    if paths is None:
        raise click.ClickException(f"{ctx.obj['db_url']}: no worker for an in-memory database")
    return paths
