"""Import a package while some of the modules it imports are served as inert stand-ins.

Presidio's package import pulls in spaCy, thinc, phonenumbers, tldextract, PyYAML and (unless
hidden) transformers and torch; kiwipiepy's pulls in tqdm (for the progress bars of subword
tokenizer training). The PII gate uses none of them, and they are most of those imports' cost in
a one-shot command. :func:`stood_in` serves the named modules (and their submodules) as inert
modules during one import and removes them afterwards, so a later ``import tqdm`` or ``import
spacy`` anywhere gets the real package; only the names the imported package took from a
stand-in stay inert (Presidio's YAML configuration, kiwipiepy's subword-tokenizer progress bars).
A module already imported is never stood in: the package then uses the real one.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Any, Iterator, Sequence

__all__ = ["stood_in"]


class _Inert:
    """Stand-in for any object of a stood-in package: calls, attributes and decorators are inert."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # used as a decorator (@Language.factory(...))
        return _Inert()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (object,)  # subclassed at import (class X(Pipe))


class _InertModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()


class _StandInFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the given modules (and their submodules) as inert modules."""

    def __init__(self, roots: Sequence[str]) -> None:
        self.roots = frozenset(roots)
        self.served: list[str] = []

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if any(name == root or name.startswith(root + ".") for root in self.roots):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        self.served.append(spec.name)
        return _InertModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__path__ = []  # type: ignore[attr-defined]


@contextlib.contextmanager
def stood_in(stand_ins: Sequence[str], *, hidden: Sequence[str] = ()) -> Iterator[list[str]]:
    """Inside the block, ``stand_ins`` import as inert modules and ``hidden`` fail to import.

    Parameters
    ----------
    stand_ins : sequence of str
        Module names served as inert modules (with their submodules), unless already imported.
    hidden : sequence of str, default=()
        Module names whose import raises ``ImportError`` (a ``None`` entry in ``sys.modules``),
        for packages that guard an optional import, unless already imported.

    Yields
    ------
    list of str
        The names served as stand-ins (filled in as the block runs).
    """
    hide = [name for name in hidden if name not in sys.modules]
    for name in hide:
        sys.modules[name] = None  # type: ignore[assignment]
    finder = _StandInFinder([n for n in stand_ins if n not in sys.modules])
    sys.meta_path.insert(0, finder)
    try:
        yield finder.served
    finally:
        sys.meta_path.remove(finder)
        for name in finder.served:
            if isinstance(sys.modules.get(name), _InertModule):
                del sys.modules[name]
            parent, _, child = name.rpartition(".")
            if isinstance(getattr(sys.modules.get(parent), child, None), _InertModule):
                delattr(sys.modules[parent], child)  # a later `from package import …` gets the real one
        for name in hide:
            if sys.modules.get(name, "x") is None:
                del sys.modules[name]
