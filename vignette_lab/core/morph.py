"""One kiwipiepy analyser per process, shared by every part that reads Korean morphology.

The PII gate (person-name checks), the scripted client's reading of a counselor turn and the
knowledge base's sparse side all tokenise with kiwipiepy. Each used to build its own ``Kiwi``;
a ``Kiwi`` costs about 1.3 s CPU to load here (the language model file, then the morpheme
graph on the first call), so a one-shot ``session send`` paid for three. :func:`kiwi` builds
one, lazily and thread-safely, the first time any of them needs it.

Options: no typo dictionary (no caller asks for typo correction), no multi-word dictionary and
no default user dictionary, the ``cong-global`` model, one thread. Loaded this way it takes about
1.1 s CPU instead of 3.3 s for ``Kiwi()``. ``bench/morph_equivalence.py`` compares both on the
project's texts: the PII gate masks all 3,321 PII dev texts identically (it used ``cong-global``
before), the KB sparse terms / client-reading phrases differ on 6 of 1,774 texts (figures in
``bench/RESULTS.md``, "Issue 16 part B").

None of kiwipiepy 0.24's other load options is cheaper: ``cong`` instead of ``cong-global``,
``integrate_allomorph=False`` or ``model_type="none"`` all cost the same ≈ 1.1 s CPU and
≈ 260-280 MiB (``kiwipiepy_model`` ships only the CoNg model file; ``knlm``/``sbg`` cannot load),
and a user dictionary only adds. So :func:`tokens` — what the PII gate asks — first looks in
``morph_table.json``: kiwipiepy's own analyses, for these options and the installed versions, of
the common strings the gate asks about in ordinary text (built from public material and dev
splits by ``bench/build_morph_table.py``; no name-bearing string; nothing is added at run time).
A first text whose questions the table answers loads no analyser; the answers are the same. The
other users (client reading, technique features, KB sparse terms) call :func:`kiwi` directly.

Examples
--------
>>> from vignette_lab.core.morph import kiwi
>>> [t.form for t in kiwi().tokenize("잠을 못 자요")]       # doctest: +SKIP
['잠', '을', '못', '자', '어요']
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import re
import threading
import warnings
from pathlib import Path
from typing import Any, NamedTuple

log = logging.getLogger(__name__)

__all__ = ["KIWI_OPTIONS", "Morpheme", "TABLE_PATH", "available", "kiwi", "kiwi_or_warn", "load_error", "loaded",
           "table_info", "tokens", "tokens_or_warn", "word_tokens"]

#: keyword arguments of the shared ``kiwipiepy.Kiwi``
KIWI_OPTIONS: dict[str, Any] = {
    "num_workers": 0,  # since kiwipiepy 0.21: one thread, no worker pool (a shared 2-core machine)
    "load_typo_dict": False,
    "load_multi_dict": False,
    "load_default_dict": False,
    "model_type": "cong-global",  # the PII re-spacing was tuned with it (spaced-syllable addresses)
}


#: modules kiwipiepy's package import pulls in that analysing text never uses (served inert once)
_STOOD_IN_FOR_KIWIPIEPY = ("tqdm",)


class _Memo:
    """The shared analyser with ``tokenize(text)`` remembered per text.

    One turn reads the same counselor line in the client's reading, the evaluator's technique
    features and the crisis cues, and the reply in the evaluator and the drift checks: each used to
    run kiwipiepy on it again (≈ 1 ms a text). The analysis of a text never changes, so the
    tokens of a plain ``tokenize(text)`` call are kept (a fresh list each call; other calls and
    attributes go to the ``Kiwi`` itself).
    """

    def __init__(self, inner: Any):
        self._inner = inner
        self._tokens = functools.lru_cache(maxsize=8192)(lambda text: tuple(inner.tokenize(text)))

    def tokenize(self, text: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or not isinstance(text, str):
            return self._inner.tokenize(text, *args, **kwargs)
        return list(self._tokens(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _State:
    lock = threading.Lock()
    kiwi: Any = None
    tried = False
    error: str | None = None


def kiwi() -> Any:
    """The process-wide ``kiwipiepy.Kiwi`` (built on first use), or None when it cannot load.

    Returns
    -------
    kiwipiepy.Kiwi or None
        (``tokenize(text)`` remembered per text, see :class:`_Memo`.) None when kiwipiepy or its model is missing; :func:`load_error` says why. A failed
        load is not retried in the same process.
    """
    if _State.tried:
        return _State.kiwi
    with _State.lock:
        if _State.tried:
            return _State.kiwi
        try:
            from vignette_lab.core._stand_ins import stood_in

            # tqdm (imported by kiwipiepy's subword-tokenizer trainer, with importlib.metadata
            # and the email package behind it) is ~0.04 s of the import and never used here
            with stood_in(_STOOD_IN_FOR_KIWIPIEPY):
                from kiwipiepy import Kiwi

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                instance = Kiwi(**KIWI_OPTIONS)
            instance.tokenize("초기화")  # builds the morpheme graph now, not inside a caller's timing
            _State.kiwi = _Memo(instance)
        except Exception as exc:  # noqa: BLE001 — callers fall back (PII surname rule, plain split)
            _State.error = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        _State.tried = True
        return _State.kiwi


def loaded() -> bool:
    """True once the shared analyser has been built in this process (no loading)."""
    return _State.kiwi is not None


def available() -> bool:
    """Can kiwipiepy load here? Answered without loading it (for ``doctor``)."""
    if _State.tried:
        return _State.kiwi is not None
    return importlib.util.find_spec("kiwipiepy") is not None and importlib.util.find_spec(
        "kiwipiepy_model") is not None


def load_error() -> str | None:
    """Why :func:`kiwi` returned None (one line), or None."""
    return _State.error


# --------------------------------------------------------------------------- shipped analyses

#: kiwipiepy analyses of the short strings the PII gate asks about most (``bench/build_morph_table.py``)
TABLE_PATH = Path(__file__).with_name("morph_table.json")


class Morpheme(NamedTuple):
    """One kiwipiepy token as the PII gate reads it (the attributes it uses of ``kiwipiepy.Token``)."""

    start: int
    len: int
    tag: str
    oov: bool


class _Table:
    lock = threading.Lock()
    entries: dict[str, list[list[Any]]] | None = None
    info: str = "not read yet"


def _installed_versions() -> dict[str, str]:
    """kiwipiepy's and its model's versions, read from their ``_version.py`` without importing
    either (``importlib.metadata`` alone costs more than the table saves on a short command)."""
    out = {}
    for dist in ("kiwipiepy", "kiwipiepy_model"):
        version = ""
        try:
            spec = importlib.util.find_spec(dist)
            if spec is not None and spec.origin:
                found = re.search(r"__version__\s*=\s*['\"]([^'\"]+)",
                                  Path(spec.origin).with_name("_version.py").read_text(encoding="utf-8"))
                version = found.group(1) if found else ""
        except (OSError, ImportError, ValueError):
            version = ""
        out[dist] = version
    return out


def _read_table() -> dict[str, list[list[Any]]]:
    """The shipped analyses, or an empty table when they were made by another kiwipiepy, model or
    options than the ones installed here (then every string goes to the analyser)."""
    if _Table.entries is not None:
        return _Table.entries
    with _Table.lock:
        if _Table.entries is not None:
            return _Table.entries
        entries: dict[str, list[list[Any]]] = {}
        try:
            doc = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
            made = {"versions": doc["versions"], "options": doc["options"]}
            here = {"versions": _installed_versions(), "options": KIWI_OPTIONS}
            if made != here or not available():
                _Table.info = f"not used: made with {made}, installed {here}"
            else:
                entries = doc["entries"]  # text → [[start, len, tag, oov], ...], read as Morphemes on a hit
                _Table.info = f"{len(entries)} analyses ({made['versions']})"
        except (OSError, ValueError, KeyError, TypeError) as exc:
            _Table.info = f"not used: {type(exc).__name__}: {exc}".splitlines()[0][:200]
        log.debug("shipped kiwipiepy analyses: %s", _Table.info)
        _Table.entries = entries
        return entries


def table_info() -> str:
    """One line on the shipped analyses: how many are in use, or why none are."""
    _read_table()
    return _Table.info


def analyse(text: str) -> tuple[Morpheme, ...] | None:
    """kiwipiepy's tokens of ``text`` from the analyser itself (loading it), None without it."""
    instance = kiwi()
    if instance is None:
        return None
    return tuple(Morpheme(t.start, t.len, t.tag, bool(getattr(t, "oov", False))) for t in instance.tokenize(text))


def tokens(text: str) -> tuple[Morpheme, ...] | None:
    """kiwipiepy's tokens of ``text``, from the shipped analyses when they hold it, else from the
    analyser (loaded on first need); None when kiwipiepy cannot load.

    The shipped analyses are kiwipiepy's own output for the same options, model and version
    (checked when they are read; a mismatch uses none of them), so the answer is the same either
    way: only whether the ~1 s analyser load is paid differs.

    Parameters
    ----------
    text : str
        A word, two words or an unspaced run, as the PII gate asks about them.

    Returns
    -------
    tuple of Morpheme or None
    """
    if _State.tried and _State.kiwi is None:
        return None  # kiwipiepy failed to load here: behave as without it, table or not
    hit = _read_table().get(text)
    if hit is not None:
        return tuple(Morpheme(start, length, tag, bool(oov)) for start, length, tag, oov in hit)
    return analyse(text)


# --------------------------------------------------------------------------- the PII gate's questions


class _Warned:
    done = False


def kiwi_or_warn() -> Any:
    """:func:`kiwi`, logging once per process (a warning) why it is None."""
    instance = kiwi()
    if instance is None and not _Warned.done:
        _Warned.done = True
        log.warning("kiwipiepy unavailable, person names use the surname rule only: %s", load_error())
    return instance


def tokens_or_warn(text: str) -> tuple[Morpheme, ...] | None:
    """:func:`tokens`, logging once (:func:`kiwi_or_warn`) when kiwipiepy cannot load."""
    toks = tokens(text)
    if toks is None:
        kiwi_or_warn()
    return toks


@functools.lru_cache(maxsize=16384)
def word_tokens(word: str) -> tuple[tuple[int, int, str, bool], ...] | None:
    """kiwipiepy's tokens of one word (eojeol) as ``(start, end, tag, oov)``, offsets into ``word``.

    What the PII gate and its name model ask (remembered per word); None without kiwipiepy.
    """
    toks = tokens_or_warn(word)
    if toks is None:
        return None
    return tuple((t.start, t.start + t.len, t.tag, t.oov) for t in toks)
