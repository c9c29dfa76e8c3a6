"""One strict reader for the CSV and JSONL files users hand to the pipeline.

Transcript import (:mod:`vignette_lab.pipeline.datasets`) and annotation import
(:mod:`vignette_lab.pipeline.annotations_io`) read through :func:`read_table`, so both refuse
the same things with the same one-line messages (:class:`~vignette_lab.errors.InputError`
naming the file, the physical line and, where there is one, the column):

- not UTF-8 (UTF-16 is recognised and named), NUL bytes, lone surrogates (``"\\ud800"`` in
  JSON) anywhere in the file;
- a file over :attr:`Limits.max_file_bytes`, a physical line over
  :attr:`Limits.max_line_bytes`, a cell or string over :attr:`Limits.max_field_chars`;
- CSV: an unterminated quoted field (named by the line its record starts on), a duplicate or
  empty header name, a row with more cells than the header;
- JSONL: lines are split on ``\\n`` only (a raw U+2028 or U+0085 inside a string is valid JSON
  and stays in the text); each line must be one JSON object nested at most
  :attr:`Limits.max_depth` deep; ``NaN``/``Infinity`` are refused.

Integers are checked by :func:`to_int` against the database's 32-bit ``INTEGER`` range before
anything reaches the database.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from vignette_lab.errors import InputError

__all__ = ["INT32_MAX", "Limits", "Table", "read_table", "to_int"]

INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Limits:
    """Size limits of :func:`read_table` (defaults suit transcripts and annotation files).

    Attributes
    ----------
    max_file_bytes : int, default=256 MiB
    max_line_bytes : int, default=1 MiB
        Longest physical line.
    max_field_chars : int, default=100_000
        Longest CSV cell or JSON string.
    max_depth : int, default=4
        Deepest nesting of a JSONL line (the object itself is depth 1).
    """

    max_file_bytes: int = 256 * 1024 * 1024
    max_line_bytes: int = 1024 * 1024
    max_field_chars: int = 100_000
    max_depth: int = 4


@dataclass
class Table:
    """What :func:`read_table` returns.

    Attributes
    ----------
    source : str
        The file name used in every error.
    fmt : {'csv', 'jsonl'}
    columns : list of str
        CSV header, or the JSONL keys in order of first appearance.
    records : list of (int, dict)
        ``(physical line, record)``; CSV values are strings (empty cells are ``""``).
    """

    source: str
    fmt: str
    columns: list[str]
    records: list[tuple[int, dict[str, Any]]]


def _fail(src: str, message: str, line: int | None = None, field: str | None = None) -> InputError:
    return InputError(message, source=src, line=line, field=field)


def _decode(src: str, raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _fail(src, "file is UTF-16; re-save it as UTF-8")
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise _fail(src, f"NUL byte at offset {nul}; the file is binary or not UTF-8",
                    line=raw[:nul].count(b"\n") + 1)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise _fail(src, f"not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start});"
                    " re-save the file as UTF-8", line=line) from None


def _check_lines(src: str, raw: bytes, limits: Limits) -> None:
    if len(raw) <= limits.max_line_bytes:
        return
    start = 0
    line = 1
    while True:
        end = raw.find(b"\n", start)
        stop = len(raw) if end < 0 else end
        if stop - start > limits.max_line_bytes:
            raise _fail(src, f"line is {stop - start:,} bytes; the limit is"
                        f" {limits.max_line_bytes:,}", line=line)
        if end < 0:
            return
        start, line = end + 1, line + 1


def _read(path: Path, limits: Limits) -> tuple[str, str]:
    src = str(path)
    try:
        if path.is_dir():
            raise _fail(src, "is a directory, not a file")
        size = path.stat().st_size
        if size > limits.max_file_bytes:
            raise _fail(src, f"file is {size:,} bytes; the limit is {limits.max_file_bytes:,}")
        raw = path.read_bytes()
    except OSError as exc:
        raise _fail(src, f"cannot read file: {exc.strerror or exc}") from None
    _check_lines(src, raw, limits)
    text = _decode(src, raw)
    if not text.strip():
        raise _fail(src, "file is empty")
    return src, text


# --------------------------------------------------------------------------- CSV
def _csv_lines(text: str) -> Iterator[str]:
    """Physical lines with their ``\\n`` (csv's own reader also breaks on a lone ``\\r``)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end + 1]
        start = end + 1


def _read_csv(src: str, text: str, limits: Limits) -> Table:
    lines = _csv_lines(text)
    counter = {"n": 0}

    def numbered() -> Iterator[str]:
        for ln in lines:
            counter["n"] += 1
            yield ln

    old_limit = csv.field_size_limit()
    csv.field_size_limit(max(old_limit, limits.max_line_bytes * 4, limits.max_file_bytes))
    try:
        reader = csv.reader(numbered(), strict=True)
        try:
            header = next(reader)
        except StopIteration:
            raise _fail(src, "file is empty") from None
        except csv.Error as exc:
            raise _fail(src, f"malformed CSV header ({exc})", line=1) from None
        header = [h.strip() for h in header]
        seen: dict[str, int] = {}
        for i, h in enumerate(header, start=1):
            if not h:
                raise _fail(src, f"header cell {i} is empty", line=1)
            if h in seen:
                raise _fail(src, f"duplicate header (columns {seen[h]} and {i})", line=1, field=h)
            seen[h] = i
        records: list[tuple[int, dict[str, Any]]] = []
        while True:
            start = counter["n"] + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                msg = str(exc)
                if "end of data" in msg or "EOF" in msg:
                    msg = "unterminated quoted field (a quote opened here is never closed)"
                else:
                    msg = f"malformed CSV ({msg})"
                raise _fail(src, msg, line=start) from None
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) > len(header):
                raise _fail(src, f"row has {len(row)} cells but the header has {len(header)}",
                            line=start)
            rec: dict[str, Any] = {}
            for col, val in zip(header, row):
                if len(val) > limits.max_field_chars:
                    raise _fail(src, f"cell is {len(val):,} characters; the limit is"
                                f" {limits.max_field_chars:,}", line=start, field=col)
                rec[col] = val
            for col in header[len(row):]:
                rec[col] = ""
            records.append((start, rec))
    finally:
        csv.field_size_limit(old_limit)
    return Table(src, "csv", header, records)


# --------------------------------------------------------------------------- JSONL
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _depth(line: str) -> int:
    depth = best = 0
    for ch in _STRING.sub('""', line):
        if ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _check_value(src: str, n: int, value: Any, limits: Limits, field: str | None) -> None:
    if isinstance(value, str):
        if len(value) > limits.max_field_chars:
            raise _fail(src, f"string is {len(value):,} characters; the limit is"
                        f" {limits.max_field_chars:,}", line=n, field=field)
        if "\x00" in value:
            raise _fail(src, "NUL character in a string", line=n, field=field)
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _fail(src, "lone surrogate (\\ud800–\\udfff) in a string", line=n,
                        field=field) from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_value(src, n, k, limits, field)
            _check_value(src, n, v, limits, k if field is None else f"{field}.{k}")
    elif isinstance(value, list):
        for v in value:
            _check_value(src, n, v, limits, field)


def _read_jsonl(src: str, text: str, limits: Limits) -> Table:
    columns: dict[str, None] = {}
    records: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(text.split("\n"), start=1):
        if line.endswith("\r"):
            line = line[:-1]
        if not line.strip():
            continue
        if (line.count("{") + line.count("[")) > limits.max_depth and _depth(line) > limits.max_depth:
            raise _fail(src, f"JSON nested deeper than {limits.max_depth} levels", line=n)
        try:
            obj = json.loads(line, parse_constant=_refuse_constant)
        except json.JSONDecodeError as exc:
            raise _fail(src, f"invalid JSON ({exc.msg} at column {exc.colno})", line=n) from None
        except (ValueError, RecursionError) as exc:
            raise _fail(src, f"invalid JSON ({exc})", line=n) from None
        if not isinstance(obj, dict):
            raise _fail(src, f"each line must be a JSON object; got {type(obj).__name__}", line=n)
        _check_value(src, n, obj, limits, None)
        for k in obj:
            columns.setdefault(k, None)
        records.append((n, obj))
    return Table(src, "jsonl", list(columns), records)


def read_table(path: str | Path, *, fmt: str | None = None, limits: Limits | None = None) -> Table:
    """Read a CSV or JSONL file strictly (see the module docstring for what is refused).

    Parameters
    ----------
    path : path-like
    fmt : {'csv', 'jsonl'}, optional
        Defaults to the file suffix (``.json`` and ``.ndjson`` count as JSONL).
    limits : Limits, optional

    Returns
    -------
    Table

    Raises
    ------
    InputError
        Names the file, the physical line (CSV header = line 1) and the column.
    """
    p = Path(path)
    limits = limits or Limits()
    fmt = (fmt or p.suffix.lstrip(".")).lower()
    if fmt in ("json", "ndjson"):
        fmt = "jsonl"
    if fmt not in ("jsonl", "csv"):
        raise _fail(str(p), f"format must be 'jsonl' or 'csv'; got {fmt!r}", field="format")
    src, text = _read(p, limits)
    table = _read_csv(src, text, limits) if fmt == "csv" else _read_jsonl(src, text, limits)
    if not table.records:
        raise _fail(src, "file holds no records")
    return table


def to_int(value: Any, *, src: str, line: int, field: str, minimum: int = 0,
           maximum: int = INT32_MAX) -> int:
    """An integer cell (``7``, ``"7"``, ``" 7 "``) checked against ``[minimum, maximum]``."""
    v = value
    if isinstance(v, str):
        s = v.strip()
        if re.fullmatch(r"[+-]?\d{1,12}", s):
            v = int(s)
    if isinstance(v, float) and v.is_integer() and not isinstance(value, str):
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise _fail(src, f"must be an integer; got {value!r}"[:200], line=line, field=field)
    if not minimum <= v <= maximum:
        raise _fail(src, f"must be between {minimum} and {maximum:,}; got {v}", line=line,
                    field=field)
    return v
