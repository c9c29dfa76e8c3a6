"""vignette-lab: research workbench for Vignette, an AI counseling-simulation training platform.

The top level re-exports the few things most notebooks start with; everything else lives in
its subpackage (``core``, ``engines``, ``kb``, ``session``, ``store``, ``pipeline``,
``analytics``, ``app``).
"""

from __future__ import annotations

__version__ = "0.1.0"

import importlib
from typing import Any

# Lazy re-exports (PEP 562): every ``vignette-lab`` command imports this package first, and
# most never need the guardrails or the persona loader, so they are imported on first use.
_EXPORTS = {"MaskResult": "vignette_lab.core.guardrails", "mask_pii": "vignette_lab.core.guardrails",
            "PersonaCard": "vignette_lab.core.personas", "load_personas": "vignette_lab.core.personas"}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vignette_lab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))

__all__ = ["MaskResult", "PersonaCard", "__version__", "load_personas", "mask_pii"]
