"""Literal pre-filters derived from a regular expression: strings one of which every match contains.

The PII gate runs some seventy recogniser patterns; most texts can match only a few of them. A
pattern such as ``(?:[가-힣]{2,6})(?:고|중|초)\\d-\\d`` cannot match a text that contains none
of ``고0`` … ``초9``, and searching for those literals is far cheaper than running the pattern.
:func:`required_literals` reads the pattern's parse tree (the standard library's own parser)
and returns such a set, or ``None`` when it finds none it can prove. The set is *necessary*, never
sufficient: a text without any of them cannot match, a text with one still runs the pattern, so
a filter built from it never changes what the pattern finds.

Rules followed (each keeps the result a necessary condition):

* a literal, a small character class, a fixed repeat, an optional part or an alternation of
  such parts matches one of a finite set of strings, and consecutive such parts combine into
  their concatenations (kept while there are at most :data:`MAX_STRINGS`);
* a part repeated at least once, a group and a positive lookaround require what their content
  requires (a lookaround's text is part of the searched text, if not of the match);
* an alternation requires the union of what its branches require, and only when every branch
  requires something; a sequence requires what its most selective part requires;
* a case-insensitive part of a case-sensitive pattern, anything negated, a category (``\\d``, ``\\s``), ``.`` or a back-reference
  gives no literal (``None``) and so does a pattern the parser of this Python does not know.

Examples
--------
>>> sorted(required_literals(r"(?:카드|계좌)\\s?\\d{4}"))
['계좌', '카드']
>>> required_literals(r"\\d{3,}") is None
True
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Callable

from vignette_lab.core import _compiled_patterns as _patterns

__all__ = ["MAX_STRINGS", "ignores_case", "literal_filter", "needs_pattern", "required_literals"]

#: largest set of strings kept while combining parts (beyond it the part gives no literal)
MAX_STRINGS = 256
#: a class of at most this many characters is expanded into its characters
_MAX_CLASS = 24

_C: Any
_P: Any
try:  # the standard library's regular-expression parser (private; absent → no pre-filters)
    _C = importlib.import_module("re._constants")
    _P = importlib.import_module("re._parser")
except ImportError:  # pragma: no cover - other Python versions
    _C = _P = None


def _chars(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """The characters of a character class, or None when it is negated, has a category or is big."""
    out: set[str] = set()
    for op, av in items:
        if op is _C.LITERAL:
            out.add(chr(av))
        elif op is _C.RANGE and av[1] - av[0] < _MAX_CLASS:
            out.update(chr(c) for c in range(av[0], av[1] + 1))
        else:
            return None
        if len(out) > _MAX_CLASS:
            return None
    return frozenset(out)


def _product(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    if len(a) * len(b) > MAX_STRINGS:
        return None
    return frozenset(x + y for x in a for y in b)


def _exact(items: Any) -> frozenset[str] | None:
    """The finite set of strings a sequence of parse items matches, or None."""
    acc: frozenset[str] | None = frozenset({""})
    for item in items:
        part = _exact_item(item)
        if part is None or acc is None:
            return None
        acc = _product(acc, part)
    return acc


def _exact_item(item: tuple[Any, Any]) -> frozenset[str] | None:
    op, av = item
    if op is _C.LITERAL:
        return frozenset({chr(av)})
    if op is _C.IN:
        return _chars(av)
    if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
        return frozenset({""})  # zero-width: adds nothing to the matched string
    if op is _C.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av
        return None if add_flags & re.IGNORECASE else _exact(sub)
    if op is _C.BRANCH:
        return _union(av[1], _exact)
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT) and av[1] != _C.MAXREPEAT:
        lo, hi, sub = av
        part = _exact(sub)
        if part is None or hi > 4:
            return None
        total: set[str] = set()
        for n in range(lo, hi + 1):
            acc: frozenset[str] | None = frozenset({""})
            for _ in range(n):
                acc = _product(acc, part) if acc is not None else None
            if acc is None:
                return None
            total |= acc
            if len(total) > MAX_STRINGS:
                return None
        return frozenset(total)
    return None


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    """The more selective of two requirements: longer shortest string, then fewer strings."""
    if a is None:
        return b
    if b is None:
        return a
    ka = (min(map(len, a)), -len(a))
    kb = (min(map(len, b)), -len(b))
    return a if ka >= kb else b


def _required(items: Any) -> frozenset[str] | None:
    """What a sequence of parse items requires (see the module docstring)."""
    best: frozenset[str] | None = None
    run: frozenset[str] | None = frozenset({""})
    for item in items:
        if item[0] is _C.ASSERT:  # zero-width in the run, and its own text is required too
            best = _better(best, _required(item[1][1]))
            continue
        part = _exact_item(item)
        if part is not None and run is not None:
            joined = _product(run, part)
            if joined is not None:
                run = joined
                continue
        if run is not None and "" not in run:
            best = _better(best, run)  # the run of fixed parts that just ended
        run = part if part is not None else frozenset({""})
        best = _better(best, _required_item(item))
    if run is not None and "" not in run:
        best = _better(best, run)
    return best


def _required_item(item: tuple[Any, Any]) -> frozenset[str] | None:
    op, av = item
    if op is _C.ASSERT:
        return _required(av[1])  # a positive lookaround's text is in the searched text
    exact = _exact_item(item)
    if exact is not None:
        return None if "" in exact else exact
    if op is _C.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av
        return None if add_flags & re.IGNORECASE else _required(sub)
    if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, getattr(_C, "POSSESSIVE_REPEAT", None)) and av[0] >= 1:
        return _required(av[2])
    if op is getattr(_C, "ATOMIC_GROUP", None):
        return _required(av)
    if op is _C.BRANCH:
        return _union(av[1], _required)
    return None


def _union(branches: Any, walk: Callable[[Any], frozenset[str] | None]) -> frozenset[str] | None:
    """The union of what ``walk`` finds in every branch of an alternation; None when a branch
    gives nothing (that branch could match without any of the others' strings) or the union
    grows past :data:`MAX_STRINGS`."""
    out: set[str] = set()
    for branch in branches:
        part = walk(branch)
        if part is None:
            return None
        out |= part
        if len(out) > MAX_STRINGS:
            return None
    return frozenset(out)


def _parse(pattern: str, flags: int) -> Any:
    """The standard library's parse of ``pattern``, or None (no parser here, ``re.VERBOSE``, an
    unknown shape)."""
    if _P is None or flags & re.VERBOSE:
        return None
    try:
        return _P.parse(pattern, flags)
    except Exception:  # noqa: BLE001 — an unknown parse shape only means no pre-filter
        return None


def _literals_of(parsed: Any) -> frozenset[str] | None:
    if parsed is None:
        return None
    try:
        found = _required(parsed.data)
    except Exception:  # noqa: BLE001
        return None
    if not found or "" in found:
        return None
    return found


def required_literals(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """Strings one of which every match of ``pattern`` (or the text around a lookaround) contains.

    Parameters
    ----------
    pattern : str
        A regular expression in Python's syntax.
    flags : int, default=0
        Its compile flags. Under ``re.IGNORECASE`` (or a leading ``(?i)``) the literals are
        required up to case (search them with :func:`needs_pattern`); ``re.VERBOSE`` gives
        ``None``. A case-insensitive *part* (``(?i:…)``) of a case-sensitive pattern gives no
        literal.

    Returns
    -------
    frozenset of str or None
        ``None`` when no literal is certain (every text must then run the pattern).
    """
    return _literals_of(_parse(pattern, flags))


def ignores_case(pattern: str, flags: int = 0) -> bool:
    """True when ``pattern`` as a whole is case-insensitive (``re.IGNORECASE`` or a leading ``(?i)``)."""
    if flags & re.IGNORECASE:
        return True
    return _parsed_ignores_case(_parse(pattern, flags))


def _parsed_ignores_case(parsed: Any) -> bool:
    try:
        return bool(parsed is not None and parsed.state.flags & re.IGNORECASE)
    except AttributeError:
        return False


def needs_pattern(pattern: str, flags: int = 0) -> re.Pattern[str] | None:
    """A compiled search for :func:`required_literals` (longest first), or None.

    A case-insensitive pattern gets a case-insensitive search: the literals it requires are then
    required up to case, by the same engine's case rules.
    """
    return literal_filter(pattern, flags)[1]


def literal_filter(pattern: str, flags: int = 0) -> tuple[frozenset[str] | None, re.Pattern[str] | None]:
    """:func:`required_literals` and :func:`needs_pattern` of ``pattern`` from one parse.

    Parsing is most of the cost (the PII gate derives the filters of ~95 patterns at once), so
    a caller that wants both the literals and their search asks here once.

    Returns
    -------
    (frozenset of str or None, re.Pattern or None)
        The literals and their compiled search (longest first), or (None, None).
    """
    parsed = _parse(pattern, flags)
    found = _literals_of(parsed)
    if found is None:
        return None, None
    case = re.IGNORECASE if flags & re.IGNORECASE or _parsed_ignores_case(parsed) else 0
    return found, _patterns.compile("|".join(re.escape(s) for s in sorted(found, key=lambda s: (-len(s), s))), case)
