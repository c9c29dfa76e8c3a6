"""Korean wording of stored codes (statuses, rules, coefficients, ICC forms) and local times.

Shared by the pipeline's reports and data cards and the app's pages (``app.labels`` re-exports
these and adds the labels that need the analytics layer), so one table names every code.
Pages and reports store and compare codes (``ended``, ``novice``, ``fleiss_kappa:open_question``); people read
Korean. These helpers turn a code into its Korean label — from the annotation scheme through
:func:`vignette_lab.analytics.plot_style.ko_label` in ``app.labels`` — and keep the code
only as secondary text (``with_code=True`` → ``개방형 질문 (open_question)``) or for a tooltip.
Unknown codes come back unchanged, so a page never invents a label.

Examples
--------
>>> status_label("ended")
'종료'
>>> coefficient_label("fleiss_kappa:open_question", categories={"open_question": "개방형 질문"})
'Fleiss κ · 개방형 질문 (open_question)'
>>> icc_label("icc1")
'ICC(1,1)'
>>> len(format_time(1796112339103.481))  # epoch ms → local 'YYYY-MM-DD HH:MM'
16
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

__all__ = ["COEFFICIENT_KO", "DIFFICULTY_KO", "KIND_KO", "ROLE_KO", "RULE_KO", "STATUS_KO", "coefficient_label",
           "difficulty_label", "format_time", "icc_label", "kind_label", "role_label", "round_label",
           "round_state_label", "rule_label", "status_label"]

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

#: Agreement coefficient names (``agreement.field_agreement`` rows).
COEFFICIENT_KO: Mapping[str, str] = {
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


def icc_label(form: Any) -> str:
    """Readable ICC form: ``icc1`` → ``ICC(1,1)``; ``icc1/icc2`` → ``ICC(1,1)/ICC(2,1)``; None → ``ICC``."""
    if not form:
        return "ICC"
    return "/".join(COEFFICIENT_KO.get(p.strip().lower(), p.strip()) for p in str(form).split("/"))


def coefficient_label(name: Any, *, categories: Mapping[str, str] | None = None) -> str:
    """Readable name of an agreement coefficient row.

    Parameters
    ----------
    name : str
        ``fleiss_kappa``, ``icc2k``, or a per-category row ``krippendorff_alpha:<code>``.
    categories : mapping, optional
        ``{code: Korean label}`` of the field's categories; without it (or for a code it
        lacks) only the code is shown.

    Returns
    -------
    str
        ``Fleiss κ · 개방형 질문 (open_question)``: the category code stays as secondary text.
    """
    text = str(name)
    stat, _, category = text.partition(":")
    head = COEFFICIENT_KO.get(stat, stat)
    if not category:
        return head
    label = (categories or {}).get(category, category)
    return f"{head} · {label} ({category})" if label != category else f"{head} · ({category})"


def round_state_label(row: Mapping[str, Any]) -> str:
    """Korean state of an annotation round, from what has happened to it, not only its status.

    A round whose golden set is frozen reads ``골든셋 확정``; one with a stored gate decision
    ``게이트 결정됨``; otherwise its stored status (``open`` → ``진행 중``, ``closed`` → ``마감``).
    ``row`` carries ``status`` and, from ``store.ds_repo.human_rounds``, ``has_gate`` and
    ``has_golden``.

    Examples
    --------
    >>> round_state_label({"status": "open", "has_gate": True, "has_golden": True})
    '골든셋 확정'
    >>> round_state_label({"status": "open"})
    '진행 중'
    """
    if row.get("has_golden"):
        return "골든셋 확정"
    if row.get("has_gate"):
        return "게이트 결정됨"
    return status_label(row.get("status"))


def round_label(row: Mapping[str, Any]) -> str:
    """Option text of an annotation round: ``이름 · 1a2b3c4d (진행 중)`` (state: :func:`round_state_label`)."""
    return f"{row['name']} · {str(row['round_id'])[:8]} ({round_state_label(row)})"


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
