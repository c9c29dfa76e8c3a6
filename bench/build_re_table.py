"""Build ``vignette_lab/core/re_table.json``: the gate's static regular expressions, compiled.

:mod:`vignette_lab.core._re_table` explains the table and how a process uses it. This script:

1. wraps :func:`re.compile` (before anything of the project is imported) to record each call
   made by the project's own code from a module body (import time), from the lazy recogniser
   patterns (``pii._LazyPattern._compile``), from the literal pre-filters
   (``_regex_needs.literal_filter``) or from the name model's candidate scanner
   (``name_model._start_rx``, built from the shipped model's syllables). Calls from any other
   function are not recorded: those may build a pattern from a masked text.
2. imports the gate, compiles every lazy recogniser pattern and derives the pre-filters (so the
   table does not depend on which texts are masked), masks one fixed sentence per category of
   the recognisers' own examples to load the name model, then
3. stores :func:`vignette_lab.core._re_table.compiled_entry` of each recorded pattern, sorted.

Usage::

    python bench/build_re_table.py           # write the table
    python bench/build_re_table.py --check   # exit 1 when the file differs from a rebuild

Rerun it after changing any pattern of ``core/pii.py``, ``core/guardrails.py``,
``core/name_model.py``, ``core/meta_model.py`` or ``core/_regex_needs.py`` (a stale table is
correct, only slower: ``tests/test_re_table.py`` fails until it is rebuilt).
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: functions (besides module bodies) whose compiled patterns are static
RECORDED_FUNCTIONS = {
    ("vignette_lab.core.pii", "_compile"),
    ("vignette_lab.core._regex_needs", "literal_filter"),
    ("vignette_lab.core.name_model", "_start_rx"),
}
#: probe sentences (synthetic values) that load the name model and the analyser-free paths
PROBES = (
    "저는 김민지고요 010-1234-5678",
    "오늘은 좀 힘들었어요",
    "서울시 강남구 테헤란로 12, kim@example.com",
)

_recorded: set[tuple[str, int]] = set()
_real_compile = re.compile


def _recording_compile(pattern, flags=0):  # type: ignore[no-untyped-def]
    frame = sys._getframe(1)
    module, function = frame.f_globals.get("__name__", ""), frame.f_code.co_name
    at_module_level = function in ("<module>", "<genexpr>", "<listcomp>", "<dictcomp>") and \
        frame.f_code.co_filename == getattr(sys.modules.get(module), "__file__", None)
    if isinstance(pattern, str) and module.startswith("vignette_lab.") and (
            at_module_level or (module, function) in RECORDED_FUNCTIONS):
        _recorded.add((pattern, int(flags)))
    return _real_compile(pattern, flags)


def build() -> dict:
    """The table as it would be written now (run in a fresh interpreter: see the module docstring)."""
    re.compile = _recording_compile  # type: ignore[assignment]
    try:
        from vignette_lab.core import _re_table, pii
        from vignette_lab.core.guardrails import mask_pii

        for obj in gc.get_objects():
            if isinstance(obj, pii._LazyPattern):
                obj._compile()
        pii.prepare_prefilters()
        for text in PROBES:
            mask_pii(text)
    finally:
        re.compile = _real_compile  # type: ignore[assignment]
    entries = [_re_table.compiled_entry(p, f) for p, f in sorted(_recorded)]
    return {"about": "compiled static regular expressions of the PII gate (bench/build_re_table.py); "
                     "used only by the interpreter named here",
            "interpreter": _re_table.interpreter_tag(), "entries": entries}


def _dumps(doc: dict) -> str:
    head = {k: v for k, v in doc.items() if k != "entries"}
    lines = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in doc["entries"]]
    return json.dumps(head, ensure_ascii=False)[:-1] + ', "entries": [\n' + ",\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when the shipped table differs from a rebuild")
    args = ap.parse_args(argv)
    from vignette_lab.core._re_table import TABLE_PATH

    text = _dumps(build())
    if args.check:
        same = TABLE_PATH.exists() and TABLE_PATH.read_text(encoding="utf-8") == text
        print(f"{TABLE_PATH.name}: {'up to date' if same else 'differs from a rebuild: run bench/build_re_table.py'}")
        return 0 if same else 1
    TABLE_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE_PATH} ({text.count(chr(10)) - 2} patterns, {len(text.encode()) / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
