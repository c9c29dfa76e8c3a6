"""Agreement & gate page (faculty): per-field agreement of any label scheme, the gate outcomes,
the stored gate decision, disagreement examples and a link to the HTML gate report.

Choosing a round shows the numbers without storing anything
(:func:`vignette_lab.pipeline.field_gate.run_gate` with ``store=False``): per field of the
data set's scheme the coefficients with their CIs, the pass / fail / inconclusive outcome under
the chosen rule, and the items coders disagree on — the utterance with every coder's labels in
the scheme's Korean wording. Storing a decision is a separate action ("게이트 결정 저장") with an
override reason field; the newest stored decision is shown below (old default-taxonomy
decisions keep their κ/α/ICC tables).
"""

from __future__ import annotations

import html
import logging
from pathlib import Path
from typing import Any

import pandas as pd
import panel as pn
import param

from panel.custom import JSComponent

from vignette_lab.app.labels import coefficient_label, icc_label, kind_label, round_label, rule_label
from vignette_lab.app.review_page import NO_ROUND_HTML
from vignette_lab.app.stores import AgreementStore, latest_gate
from vignette_lab.pipeline.gate import icc_form
from vignette_lab.errors import VignetteError

log = logging.getLogger(__name__)

__all__ = ["AgreementPage", "ReportLink", "latest_gate"]

#: The gate's estimator (``pipeline.gate``: two reviewers on every item → Cohen, else Fleiss) as a coefficient name.
_GATE_METHOD = {"cohen": "cohen_kappa", "fleiss": "fleiss_kappa"}



def _decider(user_id: Any) -> str:
    """Who decided the gate: the single-user mode's display name for ``local``, else the stored id."""
    from vignette_lab.app.auth import LOCAL_USER

    text = "" if user_id is None else str(user_id)
    return f"{LOCAL_USER.display_name} ({text})" if text == LOCAL_USER.user_id else text


class ReportLink(JSComponent):
    """"Open" and "download" links for a self-contained HTML report, as a browser ``blob:`` URL.

    The report travels to the browser with the page, so the links work wherever the page is
    served — standalone (where ``/reports/…`` also exists) and inside JupyterLab, where a path
    link such as ``./reports/gate.html`` would resolve under ``/panel-preview/render/…`` and fail.
    """

    report_html = param.String(default="", doc="the whole report document")
    filename = param.String(default="report.html")
    label = param.String(default="HTML 게이트 보고서 열기")

    _esm = """
    export function render({ model }) {
      const wrap = document.createElement("span");
      wrap.className = "vl-report-links";
      const open = document.createElement("a");
      open.className = "vl-report-link";
      open.target = "_blank";
      const save = document.createElement("a");
      save.className = "vl-report-download";
      let url = null;
      const update = () => {
        if (url) { URL.revokeObjectURL(url); }
        url = model.report_html ? URL.createObjectURL(new Blob([model.report_html], {type: "text/html"})) : null;
        open.href = url || "#";
        save.href = url || "#";
        save.download = model.filename;
        open.textContent = model.label;
        save.textContent = "파일로 내려받기";
        wrap.style.display = url ? "" : "none";
      };
      wrap.append(open, " · ", save);
      update();
      model.on("report_html", update);
      model.on("filename", update);
      model.on("label", update);
      model.on("remove", () => { if (url) { URL.revokeObjectURL(url); } });
      return wrap;
    }
    """


# No emoji in UI text: the machine's fonts (Noto CJK) have no emoji glyphs.
_CSS = """
:host { word-break: keep-all; overflow-wrap: anywhere; }  /* Korean breaks between words */
h3 { font-size: 1.25em; margin: .8em 0 .3em; } h4 { font-size: 1.05em; margin: .9em 0 .3em; }
table { border-collapse: collapse; } th, td { border: 1px solid #d0d4da; padding: 3px 8px; }
th { background: #f1f3f6; } .vl-gate-verdict[data-passed="1"] { color: #1b7f3b; }
.vl-gate-verdict[data-passed="0"] { color: #b3261e; }
"""


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
        except Exception as exc:  # noqa: BLE001 - the code alone is still a correct label
            log.debug("taxonomy labels unavailable, showing the code: %s", exc)
            dims = {}
        head = f"점수 {dims.get(parts[1], parts[1])} {parts[2].upper()}"
    elif parts[0] in _CHECK_PREFIX and len(parts) == 2:
        stat = {"macro_kappa": "평균 κ", "kappa": "κ"}.get(parts[1], parts[1])
        head = f"{_CHECK_PREFIX[parts[0]]} {stat}"
    elif parts[0] in _CHECK_PREFIX and len(parts) == 1:  # per-field check (taxonomy gate)
        head = _CHECK_PREFIX[parts[0]]
    elif len(parts) == 1:
        try:
            from vignette_lab.core.taxonomy import load_taxonomy
            dims = {d.code: d.label for d in load_taxonomy().score_dimensions}
        except Exception as exc:  # noqa: BLE001 - the code alone is still a correct label
            log.debug("taxonomy labels unavailable, showing the code: %s", exc)
            dims = {}
        if parts[0] not in dims:
            return str(name)
        head = f"점수 {dims[parts[0]]}"
    else:
        return str(name)
    return f"{head} ({name})"


def _checks_rows(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    outcome_ko = {"pass": "통과", "fail": "미달", "inconclusive": "판단 보류", "no_data": "자료 없음"}
    return [{**c, "name": _check_label(c.get("name", "")),
             "passed": outcome_ko.get(c.get("outcome") or ("pass" if c.get("passed") else "fail"))}
            for c in checks]


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
    store : AgreementStore
        Rounds, labels, gate decisions and reports (the page holds no database).
    reports_dir : path
        Where gate HTML reports are written; served by the app under ``/reports``.
    decided_by : str, default="local"
        Recorded on gate decisions made from this page.
    """

    round_id = param.Selector(default=None, objects=[None], allow_None=True)  # type: ignore[var-annotated]  # param's Selector is generic; the objects list gives its values

    def __init__(self, store: AgreementStore, *, reports_dir: str | Path = "reports", decided_by: str = "local",
                 **params: Any):
        super().__init__(**params)
        self.store, self.reports_dir, self.decided_by = store, Path(reports_dir), decided_by
        rounds = store.human_rounds()
        labels = {round_label(r): r["round_id"] for r in rounds}
        self.param.round_id.objects = [None, *labels.values()]
        self._select = pn.widgets.Select(options={"— 라운드 선택 —": None, **labels}, label="검토 라운드",
                                         sizing_mode="stretch_width", max_width=520)
        # A fresh database: say how to get a round instead of showing an empty selector.
        self._empty = pn.pane.HTML("" if labels else NO_ROUND_HTML.format(who="…"),
                                   css_classes=["vl-agreement-empty"], sizing_mode="stretch_width")
        self._has_rounds = bool(labels)
        self.report_link = ReportLink(visible=False)
        self._select.param.watch(lambda e: self.show_round(e.new), "value")
        self._rule = pn.widgets.Select(options={"신뢰구간 하한 (권장)": "lower-bound", "점 추정치": "point"},
                                       value="lower-bound", label="판정 규칙", width=200)
        self._rule.param.watch(lambda e: self._show_live(), "value")
        self._override = pn.widgets.TextInput(label="예외 승인 사유 (미통과·판단 보류를 골드셋으로 넘길 때)",
                                              placeholder="사유를 적으면 결정과 함께 기록됩니다",
                                              sizing_mode="stretch_width", max_width=520)
        self._decide = pn.widgets.Button(label="게이트 결정 저장", color="primary", css_classes=["vl-gate"])
        self._decide.on_click(lambda e: self.decide(  # type: ignore[arg-type, return-value]  # return value unused
            override_reason=(self._override.value or "").strip() or None))
        self._live = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["vl-field-agreement"],
                                  stylesheets=[_CSS])
        self._out = pn.pane.HTML("", sizing_mode="stretch_width", css_classes=["vl-agreement"],
                                 stylesheets=[_CSS])
        self.gate: dict[str, Any] | None = None
        self.preview: dict[str, Any] | None = None

    def __panel__(self) -> pn.viewable.Viewable:
        from vignette_lab.app.review_render import evaluator_line
        head = [pn.pane.Markdown("## 일치도와 게이트"),
                pn.pane.HTML(f'<p class="vl-evaluator-status">{html.escape(evaluator_line())}</p>',
                             sizing_mode="stretch_width")]
        if not self._has_rounds:
            return pn.Column(*head, self._empty, sizing_mode="stretch_width")
        return pn.Column(*head, self._select, self._rule, self._live,
                         pn.pane.Markdown("### 게이트 결정 저장"),
                         pn.Row(self._override, self._decide, sizing_mode="stretch_width"), self._out,
                         self.report_link, sizing_mode="stretch_width")

    def _show_live(self) -> None:
        """Per-field numbers and outcomes of the selected round; nothing is stored."""
        if self.round_id is None:
            self._live.object = ""
            return
        try:
            self.preview = self.store.gate(self.round_id, rule=self._rule.value, n_boot=300, store=False)
        except VignetteError as exc:
            self.preview = None
            self._live.object = f'<div class="vl-refused">{html.escape(str(exc))}</div>'
            return
        self._live.object = self._render_fields(self.preview, live=True)

    def _scheme(self) -> Any:
        return self.store.scheme(self.round_id)

    def _render_fields(self, g: dict[str, Any], *, live: bool) -> str:
        scheme = self._scheme()
        names = {f.name: f.label_ko for f in scheme.fields}
        outcome_ko = {"pass": "통과", "fail": "미달", "inconclusive": "판단 보류", "no_data": "자료 없음"}
        decision_ko = {"pass": "통과", "fail": "미통과", "inconclusive": "판단 보류"}
        head = ("<h3>현재 일치도 (저장하지 않음)</h3>" if live else
                f'<h3 class="vl-gate-verdict" data-passed="{int(bool(g.get("passed")))}">게이트: '
                f'{decision_ko.get(str(g.get("decision")), g.get("decision"))}'
                + (f" (예외 승인: {html.escape(str(g['override_reason']))})" if g.get("override_reason") else "")
                + "</h3>")
        cats = {f.name: {c.code: c.label_ko for c in f.categories} for f in scheme.fields}
        rows = [{**f, "field": f"{names.get(f['field'], f['field'])} ({f['field']})",
                 "coefficient": coefficient_label(f.get("coefficient"), categories=cats.get(f["field"])),
                 "outcome": outcome_ko.get(f["outcome"], f["outcome"])} for f in g.get("fields", [])]
        parts = [head, f"<p>규칙: {html.escape(rule_label(g.get('rule')))} · 결정(미리보기): "
                       f"{decision_ko.get(str(g.get('decision')), g.get('decision'))}</p>" if live else "",
                 _table(rows, [("field", "항목"), ("outcome", "판정"), ("coefficient", "계수"), ("value", "값"),
                               ("ci_low", "CI 하한"), ("ci_high", "CI 상한"), ("threshold", "기준")],
                        "vl-field-gate")]
        parts += [f"<p><small>{html.escape(n)}</small></p>" for n in g.get("notes", [])]
        if live:
            for a in g.get("agreement", []):
                rpi = a.get("raters_per_item") or {}
                parts.append(f"<h4>{html.escape(names.get(a['field'], a['field']))} · {html.escape(kind_label(a['kind']))}"
                             f" · 항목 {a['n_items']}개 · 평정자 {rpi.get('min', '–')}–{rpi.get('max', '–')}명</h4>")
                coefficients = [{**c, "name": coefficient_label(c.get("name"), categories=cats.get(a["field"]))}
                                for c in a.get("coefficients", [])]
                parts.append(_table(coefficients, [("name", "계수"), ("value", "값"),
                                                                 ("ci_low", "CI 하한"), ("ci_high", "CI 상한")],
                                    "vl-field-coefficients"))
            parts.append(self._field_disagreements(scheme))
        return "".join(parts)

    def _field_disagreements(self, scheme: Any, per_field: int = 5) -> str:
        """Items coders disagree on: the utterance and every coder's labels in Korean."""
        rnd = self.store.round(self.round_id)
        items = {it["item_id"]: it for it in self.store.items(rnd["dataset_id"])}
        by: dict[tuple[str, str], list[tuple[str, Any]]] = {}
        for a in self.store.human_annotations(self.round_id):
            for name, v in a["labels"].items():
                by.setdefault((name, a["item_id"]), []).append((a["annotator_id"], v))
        who = {"counselor": "상담자", "client": "내담자"}
        out = []
        for f in scheme.fields:
            shown = 0
            lis = []
            for (name, item_id), votes in by.items():
                if name != f.name or len(votes) < 2 or shown >= per_field:
                    continue
                vals = [tuple(v) if isinstance(v, list) else v for _, v in votes]
                if len(set(vals)) < 2:
                    continue
                shown += 1
                it = items.get(item_id, {})

                def ko(v: Any) -> str:
                    if f.kind == "multi":
                        return ", ".join(f.label(c) for c in v) or "없음"
                    return f"{v:g}" if f.kind == "score" else f.label(v)
                coders = "; ".join(f"{html.escape(str(r))}: {html.escape(ko(v))}" for r, v in votes)
                lis.append(f"<li><b>{who.get(str(it.get('speaker')), '')}</b> "
                           f"“{html.escape(str(it.get('counselor_text', ''))[:300])}” — {coders}</li>")
            if lis:
                out.append(f"<h4>불일치 사례 · {html.escape(f.label_ko)}</h4>"
                           f"<ul class='vl-field-disagreements'>{''.join(lis)}</ul>")
        return "".join(out) or "<p class='vl-field-disagreements-none'>불일치 사례 없음</p>"

    def show_round(self, round_id: str | None) -> None:
        """Show the newest gate decision of ``round_id`` (or a note that none exists yet)."""
        self.round_id = round_id
        if round_id is None:
            self._out.object = ""
            self._live.object = ""
            self.report_link.visible = False
            return
        self._show_live()
        self.gate = self.store.latest_gate(round_id)
        if self.gate is None:
            self.report_link.visible = False
            self._out.object = "<p>아직 저장된 게이트 결정이 없습니다. 위 판정을 확인하고 '게이트 결정 저장'을 누르세요.</p>"
            return
        self._out.object = self._render(self.gate, round_id)

    def decide(self, *, override_reason: str | None = None) -> dict[str, Any] | None:
        """Store the per-field gate decision of the selected round (rule and override reason recorded)."""
        if self.round_id is None:
            return None
        try:
            decision = self.store.gate(self.round_id, rule=self._rule.value, store=True,
                                       override_reason=override_reason, decided_by=self.decided_by, n_boot=300)
        except VignetteError as exc:
            self._out.object = f'<div class="vl-refused">{html.escape(str(exc))}</div>'
            return None
        self.show_round(self.round_id)
        return decision

    def _report_link(self, gate_id: str) -> str:
        """Write the gate report and hand it to :attr:`report_link`; returns a line saying where it is."""
        try:
            path = self.store.write_report(gate_id, self.reports_dir)
            document = Path(path).read_text(encoding="utf-8")
        except Exception as exc:  # noqa: BLE001 - the tables still show without the report
            self.report_link.visible = False
            return f"<p>보고서를 만들지 못했습니다: {html.escape(str(exc))}</p>"
        self.report_link.param.update(report_html=document, filename=Path(path).name, visible=True)
        rel = Path(path).resolve().relative_to(self.reports_dir.resolve()).as_posix()
        return (f'<p class="vl-report-saved"><small>보고서 파일: <code>reports/{html.escape(rel)}</code> '
                f'(아래 링크는 JupyterLab 안에서도 열립니다)</small></p>')

    def _render(self, g: dict[str, Any], round_id: str) -> str:
        from vignette_lab.analytics.plot_style import ko_label, ko_labels

        results = g.get("results") or {}
        if "fields" in results and "techniques" not in results:  # per-field gate decision
            return self._render_fields({**results, "passed": g.get("passed"),
                                        "override_reason": g.get("override_reason")}, live=False) + \
                f"<p>결정자 {html.escape(_decider(g.get('decided_by')))}</p>" + self._report_link(g["gate_id"])
        verdict = {"pass": "통과", "fail": "미통과", "inconclusive": "판단 보류 (미통과)"}.get(
            results.get("decision") or ("pass" if g.get("passed") else "fail"), "미통과")
        if results.get("rule"):
            verdict += f" · {'CI 하한' if results['rule'] == 'lower-bound' else '점추정'} 규칙"
        if g.get("override_reason"):
            verdict += f" (예외 승인: {html.escape(str(g['override_reason']))})"
        method = str(results.get("method", ""))
        parts = [f'<h3 class="vl-gate-verdict" data-passed="{int(bool(g.get("passed")))}">게이트: {verdict}</h3>',
                 f"<p>겹침 항목 {results.get('n_overlap_items', '–')}개 · 방법 "
                 f"{html.escape(coefficient_label(_GATE_METHOD.get(method, method)))}"
                 f" · 결정자 {html.escape(_decider(g.get('decided_by')))}</p>",
                 "<h4>기준 점검</h4>",
                 _table(_checks_rows(results.get("checks") or []), [("name", "항목"), ("value", "값"), ("ci_low", "CI 하한"),
                                                      ("ci_high", "CI 상한"), ("threshold", "기준"),
                                                      ("passed", "결과")], "vl-checks")]
        appr = dict(results.get("appropriateness") or {})
        if appr.get("statistic"):
            appr["statistic"] = coefficient_label(appr["statistic"])  # "cohen_kappa" → "Cohen κ"
        parts.append("<h4>적절성</h4>" + _table([appr], [("statistic", "통계"), ("kappa", "κ"), ("ci_low", "CI 하한"),
                                                      ("ci_high", "CI 상한"), ("alpha", "α"),
                                                      ("percent_agreement", "일치율"),
                                                      ("interpretation_ko", "해석")], "vl-appropriateness"))
        tech = results.get("techniques") or {}
        per_label = [{**r, "label": ko_label(r.get("label"), kind="technique", with_code=True)}
                     for r in tech.get("per_label") or []]
        parts.append(f"<h4>기법 (라벨별 κ, 평균 {_fmt(tech.get('macro_kappa'))})</h4>"
                     + _table(per_label, [("label", "기법"), ("kappa", "κ"), ("ci_low", "CI 하한"),
                                                            ("ci_high", "CI 상한"), ("alpha", "α"),
                                                            ("prevalence", "유병률")], "vl-per-label"))
        form = icc_label(icc_form(results, g.get("thresholds")))
        parts.append(f"<h4>점수 차원 ({html.escape(form)})</h4>"
                     + _table([{**r, "dimension": ko_label(r.get("dimension"), kind="score", with_code=True),
                                "icc_type": f"{icc_label(r.get('icc_type'))} ({r.get('icc_type')})"}
                               for r in results.get("scores") or []], [("dimension", "차원"), ("icc_type", "유형"), ("icc", "ICC"),
                                                            ("ci_low", "CI 하한"), ("ci_high", "CI 상한"),
                                                            ("alpha", "α")], "vl-icc"))
        try:
            dis = self.store.disagreements(round_id)[:5]
        except VignetteError:
            dis = None  # unknown, so no "none" claim below
        if dis == []:
            parts.append("<h4>불일치 사례</h4><p class='vl-disagreements-none'>불일치 사례 없음</p>")
        if dis:
            items = []
            for d in dis:
                labels = "; ".join(f"{html.escape(str(a.get('annotator_id')))}: "
                                   f"{html.escape(', '.join(ko_labels(a.get('techniques') or [], kind='technique')))}"
                                   f" / {html.escape(ko_label(a.get('appropriateness'), kind='appropriateness'))}"
                                   for a in d.get("annotations", []))
                items.append(f"<li><code>{html.escape(str(d['item_id'])[:8])}</code> {labels}</li>")
            parts.append("<h4>불일치 사례</h4><ul class='vl-disagreements'>" + "".join(items) + "</ul>")
        parts.append(self._report_link(g["gate_id"]))
        return "".join(parts)
