"""Where the warm worker keeps its files: one owner-only folder per user, never beside the database.

The worker of a database has four files — a Unix socket, a lock held for its whole life, an
info file (pid, start, last request) and a log. They live in the user's runtime folder, named by
a hash of the database's real path (or of the PostgreSQL URL), so nothing appears in the folder
that holds the database — often a repository that JupyterLab serves, where dot-files next to
``vignette.duckdb`` were visible to anyone reading the file browser. The folder is the first of

1. ``$XDG_RUNTIME_DIR/vignette-<uid>`` (when ``XDG_RUNTIME_DIR`` names a folder),
2. ``$VIGNETTE_CACHE_DIR/worker`` (default ``~/.cache/vignette-lab/worker``),
3. ``/tmp/vignette-<uid>``,

that is (or can be made) a real folder owned by this user with mode ``0700`` and short enough for
a socket path (``AF_UNIX`` stops at 107 bytes); a folder owned by someone else or reached through
a symbolic link is skipped. With none usable there is no worker (commands run in-process).

Files an earlier version left beside a database (``.<file>.worker.{sock,lock,json,log}``) are
retired by the next worker that starts for it (:func:`retire_legacy`): a legacy worker still
running is asked to stop first. Files of databases that have had no worker for
:data:`PRUNE_AFTER_S` seconds are pruned by the next worker (:func:`prune`).

Standard library only: this is on the client path of every forwarded command.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import stat
import time
from pathlib import Path

__all__ = ["LEGACY_SUFFIXES", "PRUNE_AFTER_S", "SUFFIXES", "base_for", "legacy_files", "prune", "retire_legacy",
           "runtime_dir"]

#: the worker files of one database, by suffix
SUFFIXES = (".sock", ".lock", ".json", ".log")
LEGACY_SUFFIXES = SUFFIXES
#: seconds after a database's last worker start before a later worker removes its old files
PRUNE_AFTER_S = 14 * 24 * 3600.0
#: longest folder path: the folder, "/", a 20-hex-digit name and ".sock" within AF_UNIX's 107 bytes
_MAX_DIR = 107 - 1 - 20 - 5


def _owner_only(folder: Path) -> bool:
    """Make ``folder`` (mode 0700) or accept it when it is a real folder of ours; else False."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return False  # a symbolic link, a file, or another user's folder: never ours to serve from
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.chmod(folder, 0o700)
        return True
    except OSError:
        return False


def _candidates() -> list[Path]:
    uid = os.getuid()
    out = []
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and os.path.isdir(runtime):
        out.append(Path(runtime) / f"vignette-{uid}")
    cache = os.environ.get("VIGNETTE_CACHE_DIR", "").strip()
    out.append((Path(cache) if cache else Path.home() / ".cache" / "vignette-lab") / "worker")
    out.append(Path("/tmp") / f"vignette-{uid}")
    return out


def runtime_dir() -> Path | None:
    """The user's owner-only folder for worker files (see the module notes); None when none is usable."""
    for folder in _candidates():
        folder = Path(os.path.abspath(folder))
        if len(str(folder)) <= _MAX_DIR and _owner_only(folder):
            return folder
    return None


def base_for(key: str) -> Path | None:
    """The worker files' common path (without suffix) for a database key; None without a folder.

    Parameters
    ----------
    key : str
        The database's real path, or the PostgreSQL URL as normalised by the caller.
    """
    folder = runtime_dir()
    if folder is None:
        return None
    return folder / hashlib.sha256(key.encode()).hexdigest()[:20]


def legacy_files(db_path: Path) -> list[Path]:
    """The worker files an earlier version kept beside ``db_path`` that exist now."""
    base = db_path.parent / f".{db_path.name}.worker"
    return [p for p in (Path(f"{base}{s}") for s in LEGACY_SUFFIXES) if os.path.lexists(p)]


def _lock_held(lock: Path) -> bool:
    import fcntl

    try:
        fd = os.open(lock, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def retire_legacy(db_path: Path, *, wait: float = 5.0) -> list[Path]:
    """Remove the worker files an earlier version left beside ``db_path`` (stopping its worker first).

    A legacy worker still holding its lock is sent the ``stop`` request its protocol knows
    (it then removes its own socket and info file) and given ``wait`` seconds to exit; one that
    does not is left alone (it exits when idle, and nothing uses its files). Only this user's
    files are removed.

    Returns
    -------
    list of Path
        The files removed.
    """
    files = legacy_files(db_path)
    if not files:
        return []
    lock = Path(f"{db_path.parent / f'.{db_path.name}.worker'}.lock")
    if _lock_held(lock):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(2.0)
            sock.connect(str(lock.with_suffix(".sock")))
            sock.sendall(b'{"op": "stop"}\n')
            sock.makefile("rb").readline()
        except OSError:
            pass
        finally:
            sock.close()
        deadline = time.monotonic() + wait
        while _lock_held(lock):
            if time.monotonic() > deadline:
                return []
            time.sleep(0.05)
    removed = []
    for path in legacy_files(db_path):
        try:
            if os.lstat(path).st_uid == os.getuid():
                path.unlink()
                removed.append(path)
        except OSError:
            pass
    return removed


def prune(folder: Path, *, keep: Path, older_than: float = PRUNE_AFTER_S) -> list[Path]:
    """Remove the files of databases whose worker last started more than ``older_than`` s ago.

    A database's files go together, and only while nobody holds its lock; ``keep`` (the common
    path of the calling worker's files) is never touched.

    Returns
    -------
    list of Path
        The files removed.
    """
    removed: list[Path] = []
    now = time.time()
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not name.endswith(".lock"):
            continue
        base = folder / name[:-len(".lock")]
        if base == keep:
            continue
        lock = Path(f"{base}.lock")
        try:
            if now - os.lstat(lock).st_mtime < older_than or _lock_held(lock):
                continue
        except OSError:
            continue
        for path in (Path(f"{base}{s}") for s in SUFFIXES):
            try:
                path.unlink()
                removed.append(path)
            except OSError:
                pass
    return removed

