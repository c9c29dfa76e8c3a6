"""Compiled regular expressions of the gate, shipped so a fresh process does not compile them.

The PII gate, the guardrails and the name model hold about 330 regular expressions, many with
large Hangul character classes. Python's :mod:`re` compiles a pattern in Python code (parse, then
charset optimisation), which cost ~0.15-0.2 CPU s of every process's first ``mask_pii`` — a
fifth of the ≤ 1.0 s first-call budget, paid again by every one-shot CLI command.

``re_table.json`` (written by ``bench/build_re_table.py``) holds, for each of the project's own
static patterns, the output of that compilation: the compiled opcode list, the final flags and
the group tables, exactly what :func:`re.compile` hands to the C engine (``_sre.compile``).
:func:`install` (called once from ``vignette_lab/core/__init__.py``, before any module of the gate
compiles a pattern) builds the C pattern objects from it (~15 ms) and puts them in
:mod:`re`'s own compile cache, keyed as :func:`re.compile` keys them; ``re.compile(p, flags)``
then returns the same object it would have built, and patterns not in the table compile as usual.

The table is used only by the interpreter that wrote it (implementation, full version, the
regular-expression engine's magic number, code size and repeat limit all equal); anywhere else it
is ignored and everything compiles as before. Only static patterns are stored: those compiled
while the gate's modules are imported, the lazily compiled recognisers and the literal pre-filters
derived from them — never a pattern built from a masked text (the builder records by the calling
function, see ``bench/build_re_table.py``). A stale table (a rule changed since the build) only
misses for the changed patterns: the answers never change, only what the first call costs.

This uses two private parts of CPython's :mod:`re` (``re._cache`` and ``_sre.compile``'s
arguments); any failure leaves the table unused (:func:`info` says why).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["TABLE_PATH", "compiled_entry", "info", "install", "interpreter_tag"]

#: where the shipped compilations live (``bench/build_re_table.py`` writes it)
TABLE_PATH = Path(__file__).with_name("re_table.json")


class _State:
    installed = False
    info = "not installed"


def interpreter_tag() -> str:
    """What a compiled opcode list depends on: the interpreter and its regular-expression engine."""
    import _sre  # type: ignore[import-not-found]

    v = sys.version_info
    return (f"{sys.implementation.name}-{v.major}.{v.minor}.{v.micro}-{v.releaselevel}-magic{_sre.MAGIC}"
            f"-code{_sre.CODESIZE}-rep{_sre.MAXREPEAT}")


def compiled_entry(pattern: str, flags: int) -> list[Any]:
    """What :func:`re.compile` computes in Python for ``pattern`` (one table row).

    Parameters
    ----------
    pattern : str
        The regular expression's source.
    flags : int
        The flags it is compiled with (as an int).

    Returns
    -------
    list
        ``[pattern, flags, final_flags, code, groups, groupindex, indexgroup]``, the arguments of
        ``_sre.compile`` as ``re._compiler.compile`` builds them.
    """
    from re import _compiler, _parser  # type: ignore[attr-defined]

    p = _parser.parse(pattern, flags)
    code = _compiler._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup: list[str | None] = [None] * p.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return [pattern, flags, flags | p.state.flags, list(code), p.state.groups - 1, groupindex, indexgroup]


def _build(entry: list[Any]) -> re.Pattern[str]:
    import _sre  # type: ignore[import-not-found]

    pattern, _flags, final, code, groups, groupindex, indexgroup = entry
    return _sre.compile(pattern, final, code, groups, groupindex, tuple(indexgroup))  # type: ignore[no-any-return]


def install() -> None:
    """Put the shipped compilations in :mod:`re`'s compile cache (once per process; never raises).

    Does nothing when the table was written by another interpreter or cannot be read; patterns
    already in the cache are left as they are.
    """
    if _State.installed:
        return
    _State.installed = True
    try:
        doc = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
        if doc.get("interpreter") != interpreter_tag():
            _State.info = f"not used: written by {doc.get('interpreter')}, running {interpreter_tag()}"
            return
        cache = re._cache  # type: ignore[attr-defined]  # {(type, pattern, flags): Pattern}
        if not isinstance(cache, dict):
            _State.info = "not used: re._cache is not a dict in this interpreter"
            return
        added = 0
        for entry in doc["entries"]:
            key = (str, entry[0], entry[1])
            if key not in cache:
                cache[key] = _build(entry)
                added += 1
        _State.info = f"{added} of {len(doc['entries'])} patterns from the shipped table"
    except Exception as exc:  # noqa: BLE001 — a table that cannot be used costs time, never answers
        _State.info = f"not used: {type(exc).__name__}: {exc}".splitlines()[0][:200]


def info() -> str:
    """One line: how many shipped compilations this process uses, or why none."""
    return _State.info
