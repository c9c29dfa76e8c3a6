"""vignette-lab: research workbench for Vignette, an AI counseling-simulation training platform.

The top level re-exports the few things most notebooks start with; everything else lives in
its subpackage (``core``, ``engines``, ``kb``, ``session``, ``store``, ``pipeline``,
``analytics``, ``app``).
"""

from __future__ import annotations

__version__ = "0.1.0"

from vignette_lab.core.guardrails import MaskResult, mask_pii
from vignette_lab.core.personas import PersonaCard, load_personas

__all__ = ["MaskResult", "PersonaCard", "__version__", "load_personas", "mask_pii"]
