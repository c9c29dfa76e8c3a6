"""Korean wording of every stored code a page shows, and local times.

Pages store and compare codes (``ended``, ``novice``, ``fleiss_kappa:open_question``); people read
Korean. These helpers turn a code into its Korean label — from the annotation scheme through
:func:`vignette_lab.analytics.plot_style.ko_label` where the scheme knows it — and keep the code
only as secondary text (``with_code=True`` → ``개방형 질문 (open_question)``) or for a tooltip.
Unknown codes come back unchanged, so a page never invents a label.

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
from datetime import datetime, timezone
from typing import Any

__all__ = ["DIFFICULTY_KO", "KIND_KO", "ROLE_KO", "RULE_KO", "STATUS_KO", "coefficient_label", "difficulty_label",
           "format_time", "kind_label", "profile_label", "role_label", "round_label", "rule_label",
           "status_label"]

#: Session, review and round statuses (``app.session``, ``ds.annotation_round``).
STATUS_KO: Mapping[str, str] = {
    "active": "진행 중", "ended": "종료", "aborted": "중단", "open": "진행 중", "closed": "마감",
    "pending": "평가 대기", "ready": "평가 완료", "degraded": "일부 평가", "none": "평가 없음",
    "proposed": "제안됨", "submitted": "제출됨", "accepted": "확정", "rejected": "반려",
    "superseded": "대체됨",
}

#: Persona difficulty (``core.personas.DIFFICULTIES``; ``medium`` kept for older cards).
DIFFICULTY_KO: Mapping[str, str] = {"easy": "쉬움", "moderate": "보통", "medium": "보통", "hard": "어려움"}

#: Account roles (``app.auth.ROLES``).
ROLE_KO: Mapping[str, str] = {"trainee": "상담수련생", "researcher": "연구자", "faculty": "교수자", "admin": "관리자"}

#: Gate decision rules (``pipeline.field_gate.run_gate(rule=…)``).
RULE_KO: Mapping[str, str] = {"lower-bound": "신뢰구간 하한", "point": "점 추정치"}

#: Scheme field kinds.
KIND_KO: Mapping[str, str] = {"single": "단일 선택", "multi": "복수 선택", "ordinal": "순서형", "score": "점수"}

_COEFFICIENT_KO: Mapping[str, str] = {
    "percent_agreement": "일치율",
    "fleiss_kappa": "Fleiss κ",
    "conger_kappa": "Conger κ",
    "cohen_kappa": "Cohen κ",
    "krippendorff_alpha": "Krippendorff α",
    "krippendorff_alpha_ordinal": "Krippendorff α (순서)",
    "krippendorff_alpha_interval": "Krippendorff α (구간)",
    "krippendorff_alpha_masi": "Krippendorff α (MASI 집합 거리)",
    "gwet_ac1": "Gwet AC1",
    "gwet_ac2_ordinal": "Gwet AC2 (순서)",
    "brennan_prediger": "Brennan–Prediger",
    "weighted_kappa_linear": "가중 κ (선형)",
    "weighted_kappa_quadratic": "가중 κ (이차)",
    "icc1": "ICC(1,1)", "icc1k": "ICC(1,k)", "icc2": "ICC(2,1)", "icc2k": "ICC(2,k)",
    "icc3": "ICC(3,1)", "icc3k": "ICC(3,k)",
}


def _lookup(mapping: Mapping[str, str], code: Any) -> str:
    text = "" if code is None else str(code)
    return mapping.get(text, text)


def status_label(code: Any) -> str:
    """Korean session/review/round status (``ended`` → ``종료``)."""
    return _lookup(STATUS_KO, code)


def difficulty_label(code: Any) -> str:
    """Korean persona difficulty (``moderate`` → ``보통``)."""
    return _lookup(DIFFICULTY_KO, code)


def role_label(code: Any) -> str:
    """Korean account role (``faculty`` → ``교수자``)."""
    return _lookup(ROLE_KO, code)


def rule_label(code: Any) -> str:
    """Korean gate rule (``lower-bound`` → ``신뢰구간 하한``)."""
    return _lookup(RULE_KO, code)


def kind_label(code: Any) -> str:
    """Korean scheme field kind (``multi`` → ``복수 선택``)."""
    return _lookup(KIND_KO, code)


def profile_label(code: Any, *, with_code: bool = False) -> str:
    """Korean self-play counselor profile (``novice`` → ``초보 상담자``)."""
    from vignette_lab.analytics.plot_style import ko_label

    return "" if code is None else ko_label(code, kind="profile", with_code=with_code)


def coefficient_label(name: Any, *, categories: Mapping[str, str] | None = None) -> str:
    """Readable name of an agreement coefficient row.

    Parameters
    ----------
    name : str
        ``fleiss_kappa``, ``icc2k``, or a per-category row ``krippendorff_alpha:<code>``.
    categories : mapping, optional
        ``{code: Korean label}`` of the field's categories; the default taxonomy is looked up
        when omitted.

    Returns
    -------
    str
        ``Fleiss κ · 개방형 질문 (open_question)``: the category code stays as secondary text.
    """
    text = str(name)
    stat, _, category = text.partition(":")
    head = _COEFFICIENT_KO.get(stat, stat)
    if not category:
        return head
    if categories is not None and category in categories:
        label = categories[category]
    else:
        from vignette_lab.analytics.plot_style import ko_label
        label = ko_label(category)
    return f"{head} · {label} ({category})" if label != category else f"{head} · ({category})"


def round_label(row: Mapping[str, Any]) -> str:
    """Option text of an annotation round: ``이름 · 1a2b3c4d (진행 중)``."""
    return f"{row['name']} · {str(row['round_id'])[:8]} ({status_label(row.get('status'))})"


def format_time(value: Any, *, seconds: bool = False) -> str:
    """A stored time as local ``YYYY-MM-DD HH:MM`` (never an epoch number).

    Parameters
    ----------
    value : datetime, pandas.Timestamp, str, int or float
        Naive datetimes are taken as UTC (the store writes UTC); numbers are epoch seconds, or
        milliseconds when larger than 10¹¹ (how Bokeh serialises datetimes).
    seconds : bool, default=False
        Also show seconds.

    Returns
    -------
    str
        ``""`` for None/NaT.
    """
    if value is None:
        return ""
    try:
        import pandas as pd
        if pd.isna(value):
            return ""
        if isinstance(value, pd.Timestamp):
            value = value.to_pydatetime()
    except (TypeError, ValueError):
        pass
    if isinstance(value, (int, float)):
        stamp = float(value) / 1000.0 if abs(float(value)) > 1e11 else float(value)
        value = datetime.fromtimestamp(stamp, tz=timezone.utc)
    elif isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        return str(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    local = value.astimezone()
    return local.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
