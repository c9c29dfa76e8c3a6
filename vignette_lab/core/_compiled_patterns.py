"""Compiled regular expressions kept across processes, like Python keeps compiled bytecode.

The PII gate compiles about 280 patterns in a process's first mask; most of that time is
CPython's ``re`` compiler in pure Python (parsing, and filling a 64 K table for every ``[가-힣]``
class), ≈ 0.1-0.2 s of a one-shot command's first mask. The compiler's output — the list of
opcodes ``re`` hands to ``_sre.compile`` — depends only on the pattern, its flags and the
interpreter, so :func:`compile` keeps it in a file (``$VIGNETTE_CACHE_DIR/regex``, default
``~/.cache/vignette-lab/regex``, one file per interpreter build) and a later process builds each
pattern from the stored opcodes with ``_sre.compile``, skipping the Python compiler.

The result is the same pattern object: ``re.Pattern.__eq__`` compares flags, the pattern text
and the opcode array, and ``tests/test_first_mask.py`` checks every stored pattern equals a fresh
``re.compile``. Anything unexpected falls back to plain ``re.compile`` (another interpreter, a
changed ``re`` internals layout — checked once per process on a probe pattern —, an unreadable,
truncated or foreign file, a checksum mismatch; ``_sre`` also validates every opcode array
itself). ``VIGNETTE_REGEX_CACHE=off`` turns the file off. New patterns are added when the
process exits (written whole to a temporary file, then renamed over the old one); the file keeps
the newest patterns (those the process used or added move to the end), so an old code version's
patterns age out and a new version's always get in.
"""

from __future__ import annotations

import atexit
import hashlib
import marshal
import os
import re
import sys
import threading
import zlib

import _sre  # type: ignore[import-not-found]  # CPython's regex engine, already loaded by re
from pathlib import Path
from typing import Any

__all__ = ["cache_path", "compile", "stats"]

#: version of the file layout
_FORMAT = 1
#: patterns longer than this are compiled but not stored; the file keeps the newest _MAX_ENTRIES (the gate
#: compiles ≈ 350, its derived pre-filters included; ≈ 2 KB each, read whole by every new process)
_MAX_PATTERN = 20_000
_MAX_ENTRIES = 1_500

_Key = tuple[str, int]
_Entry = tuple[int, list[int], int, dict[str, int], tuple[Any, ...]]


class _State:
    lock = threading.Lock()
    loaded = False
    usable = True
    entries: dict[_Key, _Entry] = {}
    new: dict[_Key, _Entry] = {}
    used: set[_Key] = set()
    hits = 0
    misses = 0
    atexit_set = False


def _interpreter_tag() -> str:
    ident = "\0".join([sys.version, str(_sre.MAGIC), str(_sre.CODESIZE), str(sys.maxunicode), str(_FORMAT)])
    return hashlib.sha256(ident.encode()).hexdigest()[:16]


def cache_path() -> Path | None:
    """The file for this interpreter (None when ``VIGNETTE_REGEX_CACHE=off``)."""
    if os.environ.get("VIGNETTE_REGEX_CACHE", "").strip().lower() in ("off", "0", "no", "false"):
        return None
    root = Path(os.environ.get("VIGNETTE_CACHE_DIR") or Path.home() / ".cache" / "vignette-lab")
    return root / "regex" / f"patterns-{_interpreter_tag()}.marshal"


def _fresh(pattern: str, flags: int) -> tuple[re.Pattern[str], _Entry]:
    """What ``re._compiler.compile`` does, keeping the opcodes it hands to ``_sre.compile``."""
    from re import _compiler, _parser  # type: ignore[attr-defined]

    p = _parser.parse(pattern, flags)
    code = _compiler._code(p, flags)
    groupindex = dict(p.state.groupdict)
    indexgroup: list[Any] = [None] * p.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    # plain ints (flags are re.RegexFlag): marshal stores only built-in types
    entry: _Entry = (int(flags | p.state.flags), [int(c) for c in code], int(p.state.groups - 1),
                     {str(k): int(v) for k, v in groupindex.items()}, tuple(indexgroup))
    return _build(pattern, entry), entry


def _build(pattern: str, entry: _Entry) -> re.Pattern[str]:
    final_flags, code, groups, groupindex, indexgroup = entry
    return _sre.compile(pattern, final_flags, code, groups, groupindex, indexgroup)  # type: ignore[no-any-return]


def _probe() -> bool:
    """The private steps above give what ``re.compile`` gives on this interpreter."""
    probe = r"(?P<n>[a-z0-9_]{2,4})(?=x)|\d{3}-\d{4}"
    try:
        built, _ = _fresh(probe, re.IGNORECASE)
        return bool(built == re.compile(probe, re.IGNORECASE) and built.groupindex == {"n": 1})
    except Exception:  # noqa: BLE001 — another interpreter's re internals: use re.compile
        return False


def _read(path: Path) -> dict[_Key, _Entry]:
    try:
        blob = path.read_bytes()
    except OSError:
        return {}
    try:
        checksum, payload = blob[:4], blob[4:]
        if int.from_bytes(checksum, "little") != zlib.crc32(payload):
            return {}
        doc = marshal.loads(payload)
        if not (isinstance(doc, dict) and doc.get("format") == _FORMAT and doc.get("tag") == _interpreter_tag()):
            return {}
        entries = doc["entries"]
        return entries if isinstance(entries, dict) else {}
    except (ValueError, EOFError, TypeError, KeyError):
        return {}


def _load() -> None:
    with _State.lock:
        if _State.loaded:
            return
        _State.usable = _probe()
        path = cache_path() if _State.usable else None
        _State.entries = _read(path) if path is not None else {}
        _State.loaded = True


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 — named as re.compile, used the same way
    """``re.compile(pattern, flags)``, from the stored opcodes when this interpreter stored them.

    Parameters
    ----------
    pattern : str
    flags : int, default=0

    Returns
    -------
    re.Pattern
        Equal (``==``) to ``re.compile(pattern, flags)``.
    """
    if not _State.loaded:
        _load()
    if not _State.usable or not isinstance(pattern, str):
        return re.compile(pattern, flags)
    key = (pattern, int(flags))
    entry = _State.entries.get(key)
    if entry is not None:
        try:
            built = _build(pattern, entry)
            _State.hits += 1
            _State.used.add(key)
            return built
        except Exception:  # noqa: BLE001 — a bad entry (the file was edited): compile it afresh
            _State.entries.pop(key, None)
    try:
        built, entry = _fresh(pattern, flags)
    except re.error:
        raise
    except Exception:  # noqa: BLE001 — re internals differ after all: plain re from now on
        _State.usable = False
        return re.compile(pattern, flags)
    _State.misses += 1
    if len(pattern) <= _MAX_PATTERN and len(_State.new) < _MAX_ENTRIES:
        with _State.lock:
            _State.new[key] = entry
            if not _State.atexit_set:
                _State.atexit_set = True
                atexit.register(_save)
    return built


def _save() -> None:
    """Add this process's new patterns to the file (merged with what another process wrote)."""
    path = cache_path()
    with _State.lock:
        new, _State.new = _State.new, {}
    if path is None or not new or not _State.usable:
        return
    merged = _read(path)
    # newest last: the patterns this process used and added move to the end, the oldest are dropped
    used = {key: merged.pop(key) for key in list(_State.used) if key in merged}
    merged.update(used)
    for key in new:
        merged.pop(key, None)
    merged.update(new)
    if len(merged) > _MAX_ENTRIES:
        merged = dict(list(merged.items())[-_MAX_ENTRIES:])
    try:
        payload = marshal.dumps({"format": _FORMAT, "tag": _interpreter_tag(), "entries": merged})
    except ValueError:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(zlib.crc32(payload).to_bytes(4, "little") + payload)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def stats() -> dict[str, int]:
    """Patterns built from the file and compiled afresh in this process so far."""
    return {"hits": _State.hits, "misses": _State.misses, "stored": len(_State.entries)}
