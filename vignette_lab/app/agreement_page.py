"""Agreement & gate page (faculty): κ/α/ICC with CIs, per-label and per-dimension tables,
the gate decision, disagreement examples and a link to the HTML gate report.

Numbers come from ``vignette_lab.pipeline.gate`` (stored ``ds.gate_decision`` rows, or a fresh
``agreement_results`` run); the page only lays them out.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pandas as pd
import panel as pn
import param

from vignette_lab.app.review_page import human_rounds_for
from vignette_lab.errors import VignetteError

__all__ = ["AgreementPage", "latest_gate"]


# No emoji in UI text: the machine's fonts (Noto CJK) have no emoji glyphs.
_CSS = """
h3 { font-size: 1.25em; margin: .8em 0 .3em; } h4 { font-size: 1.05em; margin: .9em 0 .3em; }
table { border-collapse: collapse; } th, td { border: 1px solid #d0d4da; padding: 3px 8px; }
th { background: #f1f3f6; } .vl-gate-verdict[data-passed="1"] { color: #1b7f3b; }
.vl-gate-verdict[data-passed="0"] { color: #b3261e; }
"""


def latest_gate(db: Any, round_id: str) -> dict[str, Any] | None:
    """The newest stored gate decision of a round (JSON decoded), or None."""
    gate_id = db.scalar("SELECT gate_id FROM ds.gate_decision WHERE round_id = ? ORDER BY created_at DESC LIMIT 1",
                        [round_id])
    if gate_id is None:
        return None
    from vignette_lab.pipeline.gate import get_gate
    return get_gate(db, gate_id)


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    try:
        if pd.isna(value):
            return "–"
    except (TypeError, ValueError):
        pass
    return f"{value:.3f}" if isinstance(value, float) else html.escape(str(value))


_CHECK_PREFIX = {"techniques": "기법", "client_state": "내담자 상태", "appropriateness": "적절성"}


def _check_label(name: str) -> str:
    """Korean name of a gate check, keeping the stored code: ``기법 평균 κ (techniques.macro_kappa)``."""
    parts = str(name).split(".")
    if parts[0] == "scores" and len(parts) == 3:
        try:
            from vignette_lab.core.taxonomy import load_taxonomy
            dims = {d.code: d.label for d in load_taxonomy().score_dimensions}
        except Exception:  # noqa: BLE001 - the code alone is still a correct label
            dims = {}
        head = f"점수 {dims.get(parts[1], parts[1])} {parts[2].upper()}"
    elif parts[0] in _CHECK_PREFIX and len(parts) == 2:
        stat = {"macro_kappa": "평균 κ", "kappa": "κ"}.get(parts[1], parts[1])
        head = f"{_CHECK_PREFIX[parts[0]]} {stat}"
    else:
        return str(name)
    return f"{head} ({name})"


def _checks_rows(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**c, "name": _check_label(c.get("name", "")),
             "passed": "통과" if c.get("passed") else "미달"} for c in checks]


def _table(rows: list[dict[str, Any]], columns: list[tuple[str, str]], css: str) -> str:
    if not rows:
        return "<p>자료 없음</p>"
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in columns)
    body = "".join("<tr>" + "".join(f"<td>{_fmt(r.get(key))}</td>" for key, _ in columns) + "</tr>"
                   for r in rows)
    return f'<table class="{css}" border="1" style="border-collapse:collapse"><tr>{head}</tr>{body}</table>'


class AgreementPage(pn.viewable.Viewer):
    """Choose a human-review round and read its agreement and gate.

    Parameters
    ----------
    db : Database
    reports_dir : path
        Where gate HTML reports are written; served by the app under ``/reports``.
    decided_by : str, default="local"
        Recorded on gate decisions made from this page.
    """

    round_id = param.Selector(default=None, objects=[None], allow_None=True)

    def __init__(self, db: Any, *, reports_dir: str | Path = "reports", decided_by: str = "local", **params: Any):
        super().__init__(**params)
        self.db, self.reports_dir, self.decided_by = db, Path(reports_dir), decided_by
        rounds = human_rounds_for(db)
        labels = {f"{r['name']} · {str(r['round_id'])[:8]} ({r['status']})": r["round_id"] for r in rounds}
        self.param.round_id.objects = [None, *labels.values()]
        self._select = pn.widgets.Select(options={"— 라운드 선택 —": None, **labels}, label="검토 라운드", width=460)
        self._select.param.watch(lambda e: self.show_round(e.new), "value")
        self._kappa_min = pn.widgets.FloatInput(label="κ 기준", value=0.6, step=0.05, width=120)
        self._icc_min = pn.widgets.FloatInput(label="ICC 기준", value=0.75, step=0.05, width=120)
        self._decide = pn.widgets.Button(label="게이트 결정 저장", color="primary", css_classes=["vl-gate"])
        self._decide.on_click(lambda e: self.decide())
        self._out = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["vl-agreement"],
                                 stylesheets=[_CSS])
        self.gate: dict[str, Any] | None = None

    def __panel__(self) -> pn.viewable.Viewable:
        from vignette_lab.app.review_render import evaluator_line
        return pn.Column(pn.pane.Markdown("## 일치도와 게이트"),
                         pn.pane.HTML(f'<p class="vl-evaluator-status">{html.escape(evaluator_line())}</p>'),
                         self._select,
                         pn.Row(self._kappa_min, self._icc_min, self._decide), self._out,
                         sizing_mode="stretch_width")

    def show_round(self, round_id: str | None) -> None:
        """Show the newest gate decision of ``round_id`` (or a note that none exists yet)."""
        self.round_id = round_id
        if round_id is None:
            self._out.object = ""
            return
        self.gate = latest_gate(self.db, round_id)
        if self.gate is None:
            self._out.object = "<p>아직 게이트 결정이 없습니다. 기준을 확인하고 '게이트 결정 저장'을 누르세요.</p>"
            return
        self._out.object = self._render(self.gate, round_id)

    def decide(self, *, override_reason: str | None = None) -> dict[str, Any] | None:
        """Measure agreement, store a gate decision and write its HTML report."""
        if self.round_id is None:
            return None
        from vignette_lab.pipeline.gate import gate
        try:
            decision = gate(self.db, self.round_id, kappa_min=float(self._kappa_min.value),
                            icc_min=float(self._icc_min.value), override_reason=override_reason,
                            decided_by=self.decided_by, n_resamples=300)
        except VignetteError as exc:
            self._out.object = f'<div class="vl-refused">{html.escape(str(exc))}</div>'
            return None
        self.show_round(self.round_id)
        return decision

    def _report_link(self, gate_id: str) -> str:
        try:
            from vignette_lab.pipeline.report import write_gate_report
            path = write_gate_report(self.db, gate_id, self.reports_dir)
        except Exception as exc:  # noqa: BLE001 - the tables still show without the report
            return f"<p>보고서를 만들지 못했습니다: {html.escape(str(exc))}</p>"
        rel = Path(path).resolve().relative_to(self.reports_dir.resolve()).as_posix()
        return f'<p><a class="vl-report-link" href="./reports/{html.escape(rel)}" target="_blank">HTML 게이트 보고서 열기</a></p>'

    def _render(self, g: dict[str, Any], round_id: str) -> str:
        results = g.get("results") or {}
        verdict = "통과" if g.get("passed") else "미통과"
        if g.get("override_reason"):
            verdict += f" (예외 승인: {html.escape(str(g['override_reason']))})"
        parts = [f'<h3 class="vl-gate-verdict" data-passed="{int(bool(g.get("passed")))}">게이트: {verdict}</h3>',
                 f"<p>겹침 항목 {results.get('n_overlap_items', '–')}개 · 방법 {html.escape(str(results.get('method', '')))}"
                 f" · 결정자 {html.escape(str(g.get('decided_by', '')))}</p>",
                 "<h4>기준 점검</h4>",
                 _table(_checks_rows(results.get("checks") or []), [("name", "항목"), ("value", "값"), ("threshold", "기준"),
                                                      ("passed", "통과")], "vl-checks")]
        appr = results.get("appropriateness") or {}
        parts.append("<h4>적절성</h4>" + _table([appr], [("statistic", "통계"), ("kappa", "κ"), ("ci_low", "CI 하한"),
                                                      ("ci_high", "CI 상한"), ("alpha", "α"),
                                                      ("percent_agreement", "일치율"),
                                                      ("interpretation_ko", "해석")], "vl-appropriateness"))
        tech = results.get("techniques") or {}
        parts.append(f"<h4>기법 (라벨별 κ, 평균 {_fmt(tech.get('macro_kappa'))})</h4>"
                     + _table(tech.get("per_label") or [], [("label", "기법"), ("kappa", "κ"), ("ci_low", "CI 하한"),
                                                            ("ci_high", "CI 상한"), ("alpha", "α"),
                                                            ("prevalence", "유병률")], "vl-per-label"))
        parts.append("<h4>점수 차원 (ICC)</h4>"
                     + _table(results.get("scores") or [], [("dimension", "차원"), ("icc_type", "유형"), ("icc", "ICC"),
                                                            ("ci_low", "CI 하한"), ("ci_high", "CI 상한"),
                                                            ("alpha", "α")], "vl-icc"))
        try:
            from vignette_lab.pipeline.adjudicate import disagreements
            dis = disagreements(self.db, round_id, include_resolved=True)[:5]
        except VignetteError:
            dis = None  # unknown, so no "none" claim below
        if dis == []:
            parts.append("<h4>불일치 사례</h4><p class='vl-disagreements-none'>불일치 사례 없음</p>")
        if dis:
            items = []
            for d in dis:
                labels = "; ".join(f"{html.escape(str(a.get('annotator_id')))}: "
                                   f"{html.escape(', '.join(a.get('techniques') or []))} / "
                                   f"{html.escape(str(a.get('appropriateness')))}" for a in d.get("annotations", []))
                items.append(f"<li><code>{html.escape(str(d['item_id'])[:8])}</code> {labels}</li>")
            parts.append("<h4>불일치 사례</h4><ul class='vl-disagreements'>" + "".join(items) + "</ul>")
        parts.append(self._report_link(g["gate_id"]))
        return "".join(parts)
