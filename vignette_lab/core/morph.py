"""One kiwipiepy analyser per process, shared by every part that reads Korean morphology.

The PII gate (person-name checks), the scripted client's reading of a counselor turn and the
knowledge base's sparse side all tokenise with kiwipiepy. Each used to build its own ``Kiwi``;
a ``Kiwi`` costs about 1.3 s CPU to load here (the language model file, then the morpheme
graph on the first call), so a one-shot ``session send`` paid for three. :func:`kiwi` builds
one, lazily and thread-safely, the first time any of them needs it.

Options: no typo dictionary (no caller asks for typo correction), no multi-word dictionary and
no default user dictionary, the ``cong`` model, one thread. Loaded this way it takes about
1.1 s CPU instead of 3.3 s for ``Kiwi()``. ``bench/morph_equivalence.py`` compares both on the
project's texts: the PII gate masks all 3,321 PII dev texts identically (it used ``cong-global``
before), the KB sparse terms / client-reading phrases differ on 6 of 1,774 texts (figures in
``bench/RESULTS.md``, "Issue 16 part B").

Examples
--------
>>> from vignette_lab.core.morph import kiwi
>>> [t.form for t in kiwi().tokenize("잠을 못 자요")]       # doctest: +SKIP
['잠', '을', '못', '자', '어요']
"""

from __future__ import annotations

import functools
import importlib.util
import threading
import warnings
from typing import Any

__all__ = ["KIWI_OPTIONS", "available", "kiwi", "load_error", "loaded"]

#: keyword arguments of the shared ``kiwipiepy.Kiwi``
KIWI_OPTIONS: dict[str, Any] = {
    "num_workers": 0,  # since kiwipiepy 0.21: one thread, no worker pool (a shared 2-core machine)
    "load_typo_dict": False,
    "load_multi_dict": False,
    "load_default_dict": False,
    "model_type": "cong-global",  # the PII re-spacing was tuned with it (spaced-syllable addresses)
}


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
