"""HTML of a session review (technique distribution, strengths, improvements, alternatives, checklist).

Works on the service's ``SessionReview`` object or a plain mapping with the same keys; a
``pending`` review shows "평가 대기 중", a ``degraded`` one a notice plus whatever the code
could compute (distribution, checklist) — never a crash.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["evaluator_line", "review_html", "safety_html", "technique_label"]

_CHECKLIST_STATUS = {"observed": "관찰됨", "not_observed": "관찰되지 않음", "not_applicable": "해당 없음"}


@lru_cache(maxsize=1)
def _labels() -> dict[str, str]:
    try:
        from vignette_lab.core.taxonomy import load_taxonomy
        tax = load_taxonomy()
        return {t.code: t.label for t in tax.techniques}
    except Exception as exc:  # noqa: BLE001 - labels are cosmetic; codes still show
        log.debug("taxonomy labels unavailable, showing codes: %s", exc)
        return {}


def technique_label(code: str) -> str:
    """Korean label of a technique code (the code itself when unknown)."""
    return _labels().get(code, code)


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if obj is None:
        return default
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _items(title: str, values: Any, css: str) -> str:
    values = [str(v) for v in (values or []) if str(v).strip()]
    if not values:
        return ""
    lis = "".join(f"<li>{html.escape(v)}</li>" for v in values)
    return f'<h4>{html.escape(title)}</h4><ul class="{css}">{lis}</ul>'


def review_html(review: Any) -> str:
    """Render a review as an HTML fragment (all text escaped).

    Parameters
    ----------
    review : SessionReview or mapping
        ``status`` ("pending" | "ready" | "degraded"), ``technique_distribution``
        (``{"counts": {code: n}, "shares": {...}}`` or ``{code: n}``), ``strengths``,
        ``improvements``, ``alternatives`` (dicts with original/alternative/why), ``checklist``.

    Returns
    -------
    str
    """
    status = str(_get(review, "status", "ready") or "ready")
    parts = [f'<div class="vl-review-body" data-status="{html.escape(status)}">']
    if status == "pending":
        parts.append('<div class="vl-warning vl-pending">평가 대기 중… 잠시 후 자동으로 갱신됩니다.</div>')
    elif status == "degraded":
        parts.append('<div class="vl-warning vl-degraded">심층 평가를 완료하지 못했습니다. '
                     '자동 계산된 항목만 표시합니다.</div>')
    dist = _get(review, "technique_distribution") or {}
    counts = dist.get("counts", dist) if isinstance(dist, Mapping) else {}
    counts = {k: v for k, v in counts.items() if isinstance(v, (int, float))}
    if not counts:
        parts.append('<h4>기법 분포</h4><p class="vl-distribution-empty">평가된 상담자 발화가 없습니다.</p>')
    else:
        total = sum(counts.values()) or 1
        rows = "".join(
            f'<tr><td>{html.escape(technique_label(code))}</td><td style="text-align:right">{n}</td>'
            f'<td><span class="vl-bar"><span style="width:{100 * n / total:.0f}%"></span></span></td></tr>'
            for code, n in sorted(counts.items(), key=lambda kv: -kv[1]))
        parts.append('<h4>기법 분포</h4><table class="vl-distribution"><tr><th>기법</th><th>횟수</th>'
                     f'<th>비율</th></tr>{rows}</table>')
    parts.append(safety_html(_get(review, "safety") or (dist.get("safety") if isinstance(dist, Mapping) else None)))
    rationale = str(_get(review, "rationale", "") or "").strip()
    if rationale:
        parts.append(f'<h4>회기 요약</h4><p class="vl-rationale">{html.escape(rationale)}</p>')
    parts.append(_items("잘한 점", _get(review, "strengths"), "vl-strengths"))
    parts.append(_items("개선할 점", _get(review, "improvements"), "vl-improvements"))
    alternatives = _get(review, "alternatives") or []
    if alternatives:
        rows = "".join(
            f"<tr><td>{html.escape(str(_get(a, 'original', '')))}</td>"
            f"<td>{html.escape(str(_get(a, 'alternative', '')))}</td>"
            f"<td>{html.escape(str(_get(a, 'why', '')))}</td></tr>" for a in alternatives)
        parts.append('<h4>대안 발화</h4><table class="vl-alternatives"><tr><th>원래 발화</th>'
                     f'<th>대안</th><th>이유</th></tr>{rows}</table>')
    checklist = _get(review, "checklist") or {}
    if isinstance(checklist, Mapping) and checklist.get("status"):
        label = _CHECKLIST_STATUS.get(checklist["status"], str(checklist["status"]))
        parts.append('<h4>첫 회기 체크리스트</h4><p class="vl-checklist">감정 반영과 단일 초점 개방형 질문: '
                     f'{html.escape(label)}</p>')
    parts.append(f'<p class="vl-evaluator-status">{html.escape(evaluator_line(_get(review, "engine")))}</p>')
    parts.append("</div>")
    return "".join(parts)


def _short(text: str, limit: int = 40) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def safety_html(safety: Any) -> str:
    """The review's crisis section: risk screening credited as such, a cue left unanswered named.

    ``safety`` is ``crisis_follow_up_summary``'s dict (``screened``, ``unanswered``); empty when the
    session had no crisis cue.
    """
    if not isinstance(safety, Mapping) or not (safety.get("screened") or safety.get("unanswered")):
        return ""
    items = []
    for s in safety.get("screened") or ():
        items.append(f'상담자 {int(s.get("k", 0))}번째 발화 "{_short(s.get("text", ""))}"는 위기 신호 뒤의 '
                     "위험 확인(안전 확인)으로 인정했습니다. 폐쇄형 질문이어도 오류가 아니라 필요한 개입입니다.")
    for u in safety.get("unanswered") or ():
        items.append(f'내담자가 {int(u.get("k", 0))}번째 응답에서 "{_short(u.get("text", ""))}"라고 위기 신호를 보였지만 '
                     "이어진 상담자 발화에서 자살·자해 위험 확인이 없었습니다.")
    lis = "".join(f"<li>{html.escape(v)}</li>" for v in items)
    return f'<h4>위기 신호와 안전 확인</h4><ul class="vl-safety">{lis}</ul>'


def evaluator_line(engine_name: str | None = None) -> str:
    """Korean line naming the active evaluator and its measured test-split κ ("측정 전" when absent)."""
    try:
        from vignette_lab.engines.utterance_tagger import evaluator_status
        if not engine_name:
            from vignette_lab.config import Settings
            from vignette_lab.engines import engine_status
            active = str(engine_status(Settings.from_env()).get("active") or "")
            engine_name = active if active not in ("error", "scripted") else None
        return evaluator_status(engine_name or None)["label_ko"]
    except Exception as exc:  # noqa: BLE001 - the notice is informative; the review still renders
        log.warning("evaluator status unavailable for the review notice: %s", exc)
        return "평가기 정보를 읽지 못했습니다. 오프라인 평가기는 근사치입니다."
