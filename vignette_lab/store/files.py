"""File conversions run through DuckDB (the only SQL outside a database lives here).

:func:`jsonl_to_parquet` writes the rows of a JSON-lines file as Parquet, nested fields kept
as Parquet structs and lists, so pandas, DuckDB, Polars and Hugging Face ``datasets`` read the
same rows as the JSONL. An in-memory DuckDB connection does the work; no database file is
touched.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from vignette_lab.errors import InputError

__all__ = ["jsonl_to_parquet", "parquet_rows"]

_UUID = re.compile(r"\bUUID\b")


def _quote(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def jsonl_to_parquet(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> int:
    """Write the JSON lines of ``src`` to the Parquet file ``dst`` (same rows, same order).

    Column types are inferred from every line (not a sample), so a field that is null on most
    lines keeps its type. The file is written beside ``dst`` and moved into place, so a failed
    conversion leaves no half-written Parquet.

    Parameters
    ----------
    src : path-like
        A JSON-lines file (one object per line, UTF-8).
    dst : path-like
        The Parquet file to write (replaced when it exists).

    Returns
    -------
    int
        Rows written.

    Examples
    --------
    >>> jsonl_to_parquet("export/items.jsonl", "export/items.parquet")   # doctest: +SKIP
    120
    """
    import duckdb

    src, dst = Path(src), Path(dst)
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    con = duckdb.connect(":memory:")
    try:
        if src.stat().st_size == 0:
            raise InputError("no rows to write as Parquet", source=str(src))
        con.execute(f"CREATE TEMP TABLE rows AS SELECT * FROM read_json({_quote(src)}, "
                    "format = 'newline_delimited', sample_size = -1)")
        # ids that look like UUIDs stay text: Parquet's UUID type is an Arrow extension pandas cannot read
        described = con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                "WHERE table_name = 'rows' ORDER BY ordinal_position").fetchall()
        cols = []
        for name, kind in described:
            text_kind = _UUID.sub("VARCHAR", kind)
            cols.append(f'CAST("{name}" AS {text_kind}) AS "{name}"' if text_kind != kind else f'"{name}"')
        con.execute(f"COPY (SELECT {', '.join(cols)} FROM rows) TO {_quote(tmp)} (FORMAT parquet, COMPRESSION zstd)")
        n = int(con.execute(f"SELECT count(*) FROM read_parquet({_quote(tmp)})").fetchall()[0][0])
        os.replace(tmp, dst)
        return n
    except duckdb.Error as exc:
        raise InputError(f"cannot write Parquet: {str(exc).splitlines()[0][:200]}", source=str(src)) from None
    finally:
        con.close()
        tmp.unlink(missing_ok=True)


def parquet_rows(path: str | os.PathLike[str]) -> list[dict]:
    """The rows of a Parquet file as dicts (nested structs as dicts, lists as lists)."""
    import duckdb

    con = duckdb.connect(":memory:")
    try:
        cur = con.execute(f"SELECT * FROM read_parquet({_quote(Path(path))})")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]
    except duckdb.Error as exc:
        raise InputError(f"cannot read Parquet: {str(exc).splitlines()[0][:200]}", source=str(path)) from None
    finally:
        con.close()
