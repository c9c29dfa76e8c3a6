"""Label schemes in a database: import, list, resolve, and the scheme a data set pins.

Built-in schemes (the default Korean taxonomy and ``datasets/schemes/*.json``) are always
available; ``vignette-lab scheme import FILE`` stores a validated scheme in
``ds.label_scheme``. A data set pins its scheme's name, version and sha256
(:func:`dataset_scheme` refuses a scheme whose bytes changed since).
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vignette_lab.core.scheme import (
    Scheme,
    builtin_schemes,
    default_scheme,
    load_scheme_file,
    parse_scheme,
)
from vignette_lab.errors import InputError
from vignette_lab.store import ds_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["dataset_scheme", "import_scheme", "list_schemes", "resolve_scheme"]


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _stored(db: Database, name: str, version: str | None) -> Scheme | None:
    row = ds_repo.get_scheme_row(db, name, version)
    if row is None:
        return None
    return parse_scheme(row["body"], source=f"ds.label_scheme {name} v{row['version']}")


def resolve_scheme(db: Database, spec: str | None) -> Scheme:
    """The scheme named by ``spec``.

    Parameters
    ----------
    db : Database
    spec : str or None
        ``NAME``, ``NAME@VERSION`` or the path of a scheme JSON file; ``None`` is the
        default scheme. Imported schemes are found before built-in ones; without a version,
        the newest import (or the highest built-in version) is used.
    """
    if spec is None or spec == "":
        return default_scheme()
    if spec.endswith(".json") and Path(spec).exists():
        return load_scheme_file(spec)
    name, _, given = spec.partition("@")
    version = given or None
    found = _stored(db, name, version)
    if found is not None:
        return found
    builtins = builtin_schemes()
    matches = [s for (n, v), s in builtins.items() if n == name and (version is None or v == version)]
    if not matches:
        known = sorted({n for n, _ in builtins} | {r["name"] for r in ds_repo.list_scheme_rows(db)})
        raise InputError(f"unknown scheme {spec!r} (known: {', '.join(known)};"
                         " import one with `vignette-lab scheme import FILE`)", field="scheme")
    return sorted(matches, key=lambda s: s.version)[-1]


def import_scheme(db: Database, path: str | os.PathLike[str], *, imported_by: str = "local"
                  ) -> dict[str, Any]:
    """Validate a scheme file and store it; returns ``{"name", "version", "sha256", "status"}``.

    Importing the same bytes again is a no-op (``status`` ``"unchanged"``); another document
    under an existing name and version is refused (bump ``version``).
    """
    scheme = load_scheme_file(path)
    src = str(path)
    for (n, v), s in builtin_schemes().items():
        if n == scheme.name and v == scheme.version and s.sha256 != scheme.sha256:
            raise InputError(f"{n} v{v} is a built-in scheme with other content; give your"
                             " scheme another name or version", source=src, field="version")
    row = ds_repo.get_scheme_row(db, scheme.name, scheme.version)
    if row is not None:
        if row["sha256"] != scheme.sha256:
            raise InputError(f"scheme {scheme.name} v{scheme.version} is already imported with"
                             f" sha256 {row['sha256'][:12]}…; a changed scheme needs a new version",
                             source=src, field="version")
        return {**scheme.ref, "status": "unchanged"}
    ds_repo.insert_scheme(db, name=scheme.name, version=scheme.version, sha256=scheme.sha256,
                          body=scheme.raw, imported_by=imported_by, created_at=_now())
    return {**scheme.ref, "status": "imported"}


def list_schemes(db: Database | None) -> list[dict[str, Any]]:
    """Built-in and imported schemes: ``name, version, sha256, origin, fields, speakers``."""
    out = []
    for (n, v), s in sorted(builtin_schemes().items()):
        out.append({**s.ref, "origin": "default" if s is default_scheme() else "built-in",
                    "fields": list(s.field_names()), "speakers": list(s.speakers())})
    if db is not None:
        for r in ds_repo.list_scheme_rows(db):
            stored = _stored(db, r["name"], r["version"])
            assert stored is not None  # the row was just listed
            out.append({**stored.ref, "origin": "imported", "fields": list(stored.field_names()),
                        "speakers": list(s.speakers())})
    return out


def dataset_scheme(db: Database, dataset_id: str) -> Scheme:
    """The scheme a data set pins (the default scheme for data sets made before schemes).

    Raises
    ------
    InputError
        Unknown data set, or the pinned scheme is gone or its sha256 changed.
    """
    row = ds_repo.dataset_row(db, dataset_id)
    if row is None:
        raise InputError(f"unknown dataset {dataset_id!r}", field="dataset_id")
    if not row.get("scheme_name"):
        return default_scheme()
    name, version, sha = row["scheme_name"], row["scheme_version"], row["scheme_sha256"]
    scheme = _stored(db, name, version)
    if scheme is None:
        scheme = builtin_schemes().get((name, version))
    if scheme is None:
        raise InputError(f"data set {dataset_id} pins scheme {name} v{version}, which this"
                         " database does not have (import the scheme file)", field="scheme")
    if sha and scheme.sha256 != sha:
        raise InputError(f"scheme {name} v{version} changed since data set {dataset_id} was made"
                         f" (pinned sha256 {sha[:12]}…, now {scheme.sha256[:12]}…)", field="scheme")
    return scheme
