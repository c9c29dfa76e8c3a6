"""Inter-annotator agreement — moved to :mod:`vignette_lab.agreement`; this module re-exports it.

Kept so that existing imports (``from vignette_lab.pipeline.iaa import cohen_kappa``) keep
working. New code imports :mod:`vignette_lab.agreement`.
"""

from __future__ import annotations

from vignette_lab.agreement import *  # noqa: F401,F403
from vignette_lab.agreement import __all__  # noqa: F401
