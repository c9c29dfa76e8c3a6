"""``vignette-lab backup OUT``: a complete, restorable copy of the database.

- **DuckDB**: the file is held open (other processes wait), checkpointed so the ``.wal`` is
  folded in, and copied; the copy alone is the whole database (open it with
  ``vignette-lab --db OUT …``).
- **PostgreSQL** (also ``pgserver:DIR``): ``pg_dump --format=custom`` (restore with
  ``pg_restore --dbname=URL OUT``). The ``pgserver`` wheel ships ``pg_dump`` 16; otherwise
  the ``pg_dump`` on ``PATH`` is used.

The output is written to a temporary file next to ``OUT`` and renamed when complete, so a
failed backup never leaves a half-written ``OUT``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

from vignette_lab.errors import ConfigError, InputError, StoreError

if TYPE_CHECKING:
    from vignette_lab.store.base import Database
    from vignette_lab.store.duck import DuckDatabase

__all__ = ["backup", "pg_tool"]


def pg_tool(name: str) -> str:
    """Path of a PostgreSQL client program (``pg_dump``, ``pg_restore``): pgserver's, else PATH."""
    try:
        from pgserver._commands import POSTGRES_BIN_PATH
        candidate = Path(POSTGRES_BIN_PATH) / name
        if candidate.is_file():
            return str(candidate)
    except ImportError:
        pass
    found = shutil.which(name)
    if not found:
        raise ConfigError(f"{name} not found: install the pgserver package or the PostgreSQL 16 client tools")
    return found


def backup(db: Database, out: str | Path, *, overwrite: bool = False) -> dict[str, object]:
    """Write a complete copy of ``db`` to ``out``.

    Parameters
    ----------
    db : Database
    out : str or Path
        Output file (DuckDB file, or a ``pg_dump`` custom-format archive).
    overwrite : bool, default=False
        Replace an existing ``out``.

    Returns
    -------
    dict
        ``{"backend", "path", "bytes", "format"}``.

    Raises
    ------
    InputError
        ``out`` exists (without ``overwrite``), its folder is missing, or it is the database itself.
    StoreError
        The copy or ``pg_dump`` failed (nothing is left at ``out``).
    """
    out = Path(out).expanduser()
    if out.exists() and not overwrite:
        raise InputError("backup file already exists; choose another name or pass --overwrite",
                         source=str(out))
    if not out.parent.resolve().is_dir():
        raise InputError(f"folder {str(out.parent)!r} does not exist", source=str(out))
    fd, tmp = tempfile.mkstemp(dir=str(out.parent.resolve()), prefix=f".{out.name}.", suffix=".part")
    os.close(fd)
    try:
        if db.backend == "duckdb":
            fmt = _duck_backup(cast("DuckDatabase", db), out, Path(tmp))
        else:
            fmt = _pg_backup(db, Path(tmp))
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return {"backend": db.backend, "path": str(out), "bytes": out.stat().st_size, "format": fmt}


def _duck_backup(db: DuckDatabase, out: Path, tmp: Path) -> str:
    if db.memory:
        raise InputError("an in-memory DuckDB database has no file to back up", field="db")
    if out.resolve() == Path(db.path).resolve():
        raise InputError("the backup file is the database itself", source=str(out))
    with db.pinned():  # other processes wait until the copy is complete
        db.execute("CHECKPOINT")
        try:
            shutil.copyfile(db.path, tmp)
        except OSError as exc:
            raise StoreError(f"{db.path}: cannot copy to {out}: {exc.strerror or exc}") from None
    return "duckdb"


def _pg_backup(db: Database, tmp: Path) -> str:
    cmd = [pg_tool("pg_dump"), "--format=custom", f"--file={tmp}", f"--dbname={db.url}"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    except subprocess.TimeoutExpired:
        raise StoreError("pg_dump did not finish within an hour") from None
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise StoreError(f"pg_dump failed: {reason}")
    return "pg_dump-custom"
