"""A session review as plain Korean text for the terminal (``session end``, ``session review --text``).

The web review page (:mod:`vignette_lab.app.review_render`) draws the same fields as HTML; this
module is its terminal twin: technique codes become their Korean labels from the taxonomy, the
review status a Korean sentence, and every summary ends with the command that shows it again.
Imported only when one of those commands runs (the taxonomy read is the only cost).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["review_text"]

_STATUS = {"ready": "평가 완료",
           "pending": "평가 대기 중 — 심층 평가가 끝나면 아래 명령으로 결과를 볼 수 있습니다",
           "degraded": "심층 평가를 마치지 못했습니다 — 자동으로 계산된 항목만 표시합니다"}
_CHECKLIST = {"observed": "관찰됨", "not_observed": "관찰되지 않음", "not_applicable": "해당 없음"}
#: techniques named in the short summary of ``session end`` (the most frequent first)
_TOP_TECHNIQUES = 4


def _technique_labels() -> dict[str, str]:
    try:
        from vignette_lab.core.taxonomy import load_taxonomy

        return {t.code: t.label for t in load_taxonomy().techniques}
    except Exception as exc:  # noqa: BLE001 - labels are cosmetic; codes still show
        log.debug("taxonomy labels unavailable, showing codes: %s", exc)
        return {}


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _bullets(title: str, values: Sequence[Any] | None) -> list[str]:
    items = [str(v).strip() for v in (values or ()) if str(v).strip()]
    return [f"{title}:", *(f"  · {v}" for v in items)] if items else []


def _techniques(review: Any, *, limit: int | None) -> list[str]:
    dist = _get(review, "technique_distribution") or {}
    counts = dist.get("counts", dist) if isinstance(dist, Mapping) else {}
    counts = {k: v for k, v in counts.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if not counts:
        return ["기법: 평가된 상담자 발화가 없습니다."]
    labels = _technique_labels()
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ranked if limit is None else ranked[:limit]
    text = " · ".join(f"{labels.get(code, code)} {n:g}회" for code, n in shown)
    if len(ranked) > len(shown):
        text += f" 외 {len(ranked) - len(shown)}개"
    return [f"기법: {text}"]


def review_text(review: Any, *, prog: str = "vignette-lab", full: bool = False, ended: bool = False) -> str:
    """The review as lines of Korean text a trainee reads in the terminal.

    Parameters
    ----------
    review : SessionReview or mapping
        ``session_id``, ``status`` ("pending" | "ready" | "degraded"), ``technique_distribution``,
        ``rationale``, ``strengths``, ``improvements``, ``alternatives``, ``checklist``, ``engine``.
    prog : str, default="vignette-lab"
        The program name the closing hint names (the command line the user typed).
    full : bool, default=False
        Every technique, the alternative utterances, the first-session checklist and the
        evaluator notice (``session review --text``); the short form (``session end``) names the
        most frequent techniques and ends with the command that prints the full review.
    ended : bool, default=False
        Open with "회기를 종료했습니다" (the output of ``session end``).

    Returns
    -------
    str
        Lines joined by newlines, no trailing newline.

    Examples
    --------
    >>> print(review_text({"session_id": "S1", "status": "pending"}, ended=True))  # doctest: +NORMALIZE_WHITESPACE
    회기를 종료했습니다. 평가 대기 중 — 심층 평가가 끝나면 아래 명령으로 결과를 볼 수 있습니다.
    기법: 평가된 상담자 발화가 없습니다.
    전체 검토 보기: vignette-lab session review S1 --text
    """
    status = str(_get(review, "status") or "ready")
    head = _STATUS.get(status, status) + "."
    lines = [f"회기를 종료했습니다. {head}" if ended else head]
    rationale = str(_get(review, "rationale") or "").strip()
    if rationale:
        lines.append(f"요약: {rationale}")
    lines += _techniques(review, limit=None if full else _TOP_TECHNIQUES)
    lines += _bullets("잘한 점", _get(review, "strengths"))
    lines += _bullets("개선할 점", _get(review, "improvements"))
    sid = str(_get(review, "session_id") or "")
    if full:
        alternatives = list(_get(review, "alternatives") or ())
        if alternatives:
            lines.append("대안 발화:")
        for alt in alternatives:
            lines.append(f"  · 원래: {_get(alt, 'original', '')}")
            lines.append(f"    대안: {_get(alt, 'alternative', '')}")
            why = str(_get(alt, "why", "") or "").strip()
            if why:
                lines.append(f"    이유: {why}")
        checklist = _get(review, "checklist") or {}
        if isinstance(checklist, Mapping) and checklist.get("status"):
            lines.append("첫 회기 체크리스트(감정 반영과 단일 초점 개방형 질문): "
                         f"{_CHECKLIST.get(checklist['status'], str(checklist['status']))}")
        lines.append(_evaluator_line(_get(review, "engine")))
        lines.append(f"JSON으로 보기: {prog} session review {sid}")
    else:
        lines.append(f"전체 검토 보기: {prog} session review {sid} --text")
    return "\n".join(lines)


def _evaluator_line(engine_name: str | None) -> str:
    try:
        from vignette_lab.engines.utterance_tagger import evaluator_status

        return str(evaluator_status(engine_name if engine_name not in ("", "scripted") else None)["label_ko"])
    except Exception as exc:  # noqa: BLE001 - the notice is informative; the review still prints
        log.warning("evaluator status unavailable for the review notice: %s", exc)
        return "평가기 정보를 읽지 못했습니다. 오프라인 평가기는 근사치입니다."
