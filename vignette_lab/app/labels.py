"""Korean wording of every stored code a page shows, and local times.

The tables and most helpers live in :mod:`vignette_lab.core.labels` (the pipeline's reports
and data cards use them too); this module re-exports them and adds the ones that read the
scheme's category labels through :func:`vignette_lab.analytics.plot_style.ko_label` (a layer
the pipeline may not import). Unknown codes come back unchanged, so a page never invents a label.

Examples
--------
>>> status_label("ended")
'종료'
>>> profile_label("novice")
'초보 상담자'
>>> coefficient_label("fleiss_kappa:open_question")
'Fleiss κ · 개방형 질문 (open_question)'
>>> len(format_time(1796112339103.481))  # epoch ms → local 'YYYY-MM-DD HH:MM'
16
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vignette_lab.core import labels as _core
from vignette_lab.core.labels import (
    DIFFICULTY_KO,
    KIND_KO,
    ROLE_KO,
    RULE_KO,
    STATUS_KO,
    difficulty_label,
    format_time,
    icc_label,
    kind_label,
    role_label,
    round_label,
    round_state_label,
    rule_label,
    status_label,
)

__all__ = ["DIFFICULTY_KO", "KIND_KO", "ROLE_KO", "RULE_KO", "STATUS_KO", "coefficient_label", "difficulty_label",
           "format_time", "icc_label", "kind_label", "profile_label", "role_label", "round_label",
           "round_state_label", "rule_label", "status_label"]


def profile_label(code: Any, *, with_code: bool = False) -> str:
    """Korean self-play counselor profile (``novice`` → ``초보 상담자``)."""
    from vignette_lab.analytics.plot_style import ko_label

    return "" if code is None else ko_label(code, kind="profile", with_code=with_code)


def coefficient_label(name: Any, *, categories: Mapping[str, str] | None = None) -> str:
    """:func:`vignette_lab.core.labels.coefficient_label`, looking category codes up in the
    default taxonomy when ``categories`` is omitted."""
    if categories is None:
        from vignette_lab.analytics.plot_style import ko_label

        category = str(name).partition(":")[2]
        categories = {category: ko_label(category)} if category else {}
    return _core.coefficient_label(name, categories=categories)
