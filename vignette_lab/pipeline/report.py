"""Self-contained HTML report of a gate decision (inline CSS, figures as base64 PNG).

Two forms of stored decision render:

- **per-field** decisions of :func:`vignette_lab.pipeline.field_gate.run_gate` (any label
  scheme): overall decision and rule, one row per gated field with its Korean label, outcome
  (pass / fail / inconclusive / no data), coefficient, value, CI and threshold, a CI chart,
  every coefficient of every field, notes, the override reason, a warning when the reviewers
  were simulated, and disagreement examples with the scheme's Korean labels;
- **old-form** (taxonomy) decisions of :mod:`vignette_lab.pipeline.gate`: per-label κ (table
  and bar chart), appropriateness confusion matrix, ICC per score dimension with CIs (the form
  named by :func:`vignette_lab.pipeline.gate.icc_form`), and disagreement examples.

Both forms open with the simulated-reviewer warning when
:func:`vignette_lab.pipeline.rounds.is_simulated_round` says so, name fields and coefficients
in Korean with the code as secondary text, and show times as local ``YYYY-MM-DD HH:MM``.

The text shown is the masked text stored in the data set. Korean labels render with Noto Sans
CJK when installed; otherwise matplotlib's default font is used silently.
"""

from __future__ import annotations

import base64
import html
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from vignette_lab.core.labels import coefficient_label, format_time, icc_label
from vignette_lab.pipeline.adjudicate import disagreements
from vignette_lab.pipeline.gate import get_gate, icc_form
from vignette_lab.pipeline.rounds import _pinned, effective_annotations, get_round, is_simulated_round, taxonomy_info
from vignette_lab.pipeline.datasets import dataset_items
from vignette_lab.pipeline.schemes import dataset_scheme

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["write_gate_report"]

_CSS = """
body{font-family:'Noto Sans CJK KR','Noto Sans KR','Apple SD Gothic Neo',sans-serif;margin:2rem;
     color:#222;max-width:1100px}
h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;
font-size:.9rem;text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}
.pass{color:#0a7a32;font-weight:bold}.fail{color:#b00020;font-weight:bold}
.inconclusive{color:#b36b00;font-weight:bold}.no_data{color:#666}
.warn{border:2px solid #b00020;background:#fff0f0;padding:.5rem .8rem;margin:.8rem 0}
.ex{border-left:3px solid #f0ad4e;padding:.3rem .6rem;margin:.6rem 0;background:#fffaf0}
img{max-width:100%}.note{color:#666;font-size:.85rem}
"""


def _font() -> None:
    import matplotlib
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    for candidate in ("Noto Sans CJK KR", "Noto Sans CJK JP", "Noto Sans KR"):
        if candidate in names:
            matplotlib.rcParams["font.family"] = candidate
            break
    matplotlib.rcParams["axes.unicode_minus"] = False


def _png(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _fmt(v: Any, nd: int = 3) -> str:
    return "–" if v is None else f"{v:.{nd}f}" if isinstance(v, float) else html.escape(str(v))


def _kappa_figure(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str], threshold: float) -> str:
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r["kappa"] is not None]
    fig, ax = plt.subplots(figsize=(7, 0.35 * max(len(rows), 2) + 1))
    if rows:
        labels = [names.get(r["label"], r["label"]) for r in rows]
        vals = [r["kappa"] for r in rows]
        err_lo = [max(0.0, r["kappa"] - r["ci_low"]) if r["ci_low"] is not None else 0 for r in rows]
        err_hi = [max(0.0, r["ci_high"] - r["kappa"]) if r["ci_high"] is not None else 0 for r in rows]
        ax.barh(labels, vals, xerr=[err_lo, err_hi], color=["#4c8bf5" if v >= threshold else "#e8710a"
                                                              for v in vals])
        ax.invert_yaxis()
    ax.axvline(threshold, color="#b00020", linestyle="--", label=f"기준 κ = {threshold}")
    ax.set_xlim(-0.2, 1.05)
    ax.set_xlabel("κ (95% CI)")
    ax.set_title("기법별 일치도 (이진 κ)")
    ax.legend(loc="lower right")
    return _png(fig)


def _confusion_figure(conf: Mapping[str, Any], names: Mapping[str, str]) -> str:
    import matplotlib.pyplot as plt
    import numpy as np

    m = np.array(conf["matrix"])
    labels = [names.get(l, l) for l in conf["labels"]]
    fig, ax = plt.subplots(figsize=(4.2, 3.6))
    ax.imshow(m, cmap="Blues")
    ax.set_xticks(range(len(labels)), labels)
    ax.set_yticks(range(len(labels)), labels)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            ax.text(j, i, str(m[i, j]), ha="center", va="center",
                    color="white" if m[i, j] > m.max() / 2 else "black")
    ax.set_xlabel("검토자 B")
    ax.set_ylabel("검토자 A")
    ax.set_title("적절성 혼동 행렬 (검토자 쌍)")
    return _png(fig)


def _icc_figure(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str], threshold: float,
                form: str | None = None) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    labels = [names.get(r["dimension"], r["dimension"]) for r in rows]
    vals = [r["icc"] if r["icc"] is not None else 0.0 for r in rows]
    lo = [max(0.0, v - r["ci_low"]) if r["ci_low"] is not None else 0 for v, r in zip(vals, rows)]
    hi = [max(0.0, r["ci_high"] - v) if r["ci_high"] is not None else 0 for v, r in zip(vals, rows)]
    ax.bar(labels, vals, yerr=[lo, hi], color=["#4c8bf5" if v >= threshold else "#e8710a" for v in vals])
    ax.axhline(threshold, color="#b00020", linestyle="--", label=f"기준 {icc_label(form)} = {threshold}")
    ax.set_ylim(min(0.0, min(vals, default=0)) - 0.05, 1.05)
    ax.set_ylabel(f"{icc_label(form)} (95% CI)")
    ax.set_title("점수 차원별 ICC")
    ax.legend(loc="lower right")
    return _png(fig)


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], left: int = 1) -> str:
    head = "".join(f"<th class='{'l' if i < left else ''}'>{html.escape(h)}</th>"
                   for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f"<td class='{'l' if i < left else ''}'>{_fmt(v)}</td>"
                                    for i, v in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


@_pinned
def write_gate_report(db: Database, gate_id: str, out_dir: str | os.PathLike[str] = "reports", *,
                      max_examples: int = 8) -> Path:
    """Write ``gate-<gate_id>.html`` for a stored gate decision and return its path.

    Parameters
    ----------
    db : Database
    gate_id : str
    out_dir : path-like, default='reports'
    max_examples : int, default=8
        Disagreement examples shown.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    _font()
    g = get_gate(db, gate_id)
    res, thr = g["results"], g["thresholds"]
    if "fields" in res and "techniques" not in res:
        doc = _field_report(db, g, max_examples=max_examples)
    else:
        doc = _taxonomy_report(db, g, res, thr, max_examples=max_examples)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"gate-{gate_id}.html"
    path.write_text(doc, encoding="utf-8")
    return path


def _taxonomy_report(db: Database, g: Mapping[str, Any], res: Mapping[str, Any], thr: Mapping[str, Any], *,
                     max_examples: int) -> str:
    gate_id = g["gate_id"]
    tax = taxonomy_info()
    names = tax.names
    decision = res.get("decision") or ("pass" if g["passed"] else "fail")
    verdict = (f"<span class='{'pass' if decision == 'pass' else 'fail'}'>{_DECISION_KO.get(decision, decision)}</span>"
               + (f" — 예외 승인: {html.escape(g['override_reason'])}" if g["override_reason"] else ""))
    rule_ko = {"lower-bound": "CI 하한 기준 (하한 ≥ 기준이면 통과, 상한 < 기준이면 미달, 그 사이면 판단 보류)",
               "point": "점추정 기준 (값 ≥ 기준이면 통과)"}.get(res.get("rule", "point"), "")
    field_ko = _field_names(db, g["round_id"])
    checks = _table(["검사", "계수", "값", "CI 하한", "CI 상한", "기준", "결과"],
                    [[_ko_code(field_ko.get(c["name"], c["name"]), c["name"]),
                      _ko_code(coefficient_label(c.get("coefficient", "")), c.get("coefficient", "")),
                      c["value"], c.get("ci_low"), c.get("ci_high"),
                      c["threshold"], _OUTCOME_KO.get(c.get("outcome") or ("pass" if c["passed"] else "fail"))]
                     for c in res.get("checks", [])]) + (f"<p class='note'>판정 규칙: {rule_ko}</p>" if rule_ko else "")
    tech_rows = res["techniques"]["per_label"]
    tech_table = _table(["기법", "κ", "CI 하한", "CI 상한", "α", "출현율"],
                        [[f"{names.get(r['label'], r['label'])} ({r['label']})", r["kappa"],
                          r["ci_low"], r["ci_high"], r["alpha"], r["prevalence"]] for r in tech_rows])
    appr = res["appropriateness"]
    appr_table = _table(["통계", "값"], [["방법", _ko_code(coefficient_label(appr["statistic"]), appr["statistic"])],
                                        ["κ", appr["kappa"]],
                                        ["CI 하한", appr["ci_low"]], ["CI 상한", appr["ci_high"]],
                                        ["α", appr["alpha"]], ["단순 일치율", appr["percent_agreement"]]])
    form = icc_form(res, thr)
    score_table = _table(["차원", icc_label(form), "CI 하한", "CI 상한", "α (구간)", "항목 수"],
                         [[names.get(r["dimension"], r["dimension"]), r["icc"], r["ci_low"],
                           r["ci_high"], r["alpha"], r["n_items"]] for r in res["scores"]])
    examples = []
    for d in disagreements(db, g["round_id"], include_resolved=True)[:max_examples]:
        anns = "".join(
            f"<li>{html.escape(a['annotator_id'])}: "
            f"{html.escape(', '.join(names.get(t, t) for t in a['techniques']))} · "
            f"{html.escape(names.get(a['appropriateness'] or '', a['appropriateness'] or '–'))}</li>"
            for a in d["annotations"])
        examples.append(f"<div class='ex'><b>상담자</b>: {html.escape(d['counselor_text'])}<br>"
                        f"<b>내담자</b>: {html.escape(d['client_reply'] or '–')}<br>"
                        f"<small>불일치: {html.escape(', '.join(d['differs']))}"
                        f"{' · 판정 완료' if d['resolved'] else ''}</small><ul>{anns}</ul></div>")
    doc = f"""<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>IAA 게이트 보고서 {html.escape(gate_id)}</title>
<style>{_CSS}</style></head><body>
<h1>평가자 간 일치도(IAA) 게이트 보고서</h1>
<p>게이트 <code>{html.escape(gate_id)}</code> · 라운드 <code>{html.escape(g['round_id'])}</code> ·
결정자 {html.escape(g['decided_by'])} · {html.escape(format_time(g['created_at']))}</p>
{_simulated_warning(db, g['round_id'])}
<p>판정: {verdict}</p>
<p class="note">기준: κ·α ≥ {thr['kappa_min']}, {html.escape(icc_label(form))} ≥ {thr['icc_min']} ·
중복 검토 항목 {res['n_overlap_items']}개 · 방법 {html.escape({'cohen': 'Cohen κ', 'fleiss': 'Fleiss κ'}.get(res['method'], res['method']))} ({html.escape(res['method'])}; 같은 검토자 2명이 모든 항목을 보면 Cohen, 아니면 Fleiss) ·
CI는 항목 부트스트랩 {res.get('n_resamples')}회 (ICC는 F 분포 기반) · 분류 체계 {html.escape(tax.version)}</p>
<h2>검사 결과</h2>{checks}
<h2>기법별 κ</h2><img alt="per-label kappa" src="{_kappa_figure(tech_rows, names, thr['kappa_min'])}">
{tech_table}
<h2>적절성</h2><img alt="confusion matrix" src="{_confusion_figure(appr['confusion'], names)}">
{appr_table}
<h2>점수 차원별 {html.escape(icc_label(form))}</h2><img alt="ICC" src="{_icc_figure(res['scores'], names, thr['icc_min'], form)}">
{score_table}
<h2>불일치 예시 (마스킹된 텍스트)</h2>{''.join(examples) or '<p>불일치 항목이 없습니다.</p>'}
</body></html>
"""
    return doc


# --------------------------------------------------------------------------- per-field decisions
_OUTCOME_KO = {"pass": "통과", "fail": "미달", "inconclusive": "판단 보류", "no_data": "자료 없음"}
_DECISION_KO = {"pass": "통과", "fail": "미통과", "inconclusive": "판단 보류"}
_RULE_KO = {"lower-bound": "신뢰구간 하한 규칙 (하한 ≥ 기준이면 통과, 상한 < 기준이면 미달, 그 사이면 판단 보류)",
            "point": "점추정 규칙 (값 ≥ 기준이면 통과; 표본 오차를 고려하지 않음)"}


_KIND_KO = {"single": "명목 (단일 선택)", "ordinal": "순서형", "multi": "다중 선택", "score": "점수"}
_DESIGN_KO = {"fully_crossed": "모든 평정자가 모든 항목을 평정", "varying_raters": "항목마다 평정자가 다름",
              "no_overlap": "중복 평정 항목 없음"}


def _reason_ko(f: Mapping[str, Any], rule: Any) -> str:
    """Korean reading of one field's outcome under the rule."""
    o = f.get("outcome")
    if o == "no_data":
        return "이 라운드에 자료가 없어 판정하지 않음"
    if f.get("value") is None:
        return "계수를 계산할 수 없음"
    if rule == "point":
        return "값 ≥ 기준" if o == "pass" else "값 < 기준"
    return {"pass": "CI 하한 ≥ 기준", "fail": "CI 상한 < 기준",
            "inconclusive": "CI가 기준을 포함하거나 정의되지 않음"}.get(str(o), "")


def _field_figure(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str]) -> str:
    """Value with CI and threshold per gated field (fields without a value are left out)."""
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r.get("value") is not None]
    fig, ax = plt.subplots(figsize=(7, 0.45 * max(len(rows), 2) + 1))
    colours = {"pass": "#0a7a32", "fail": "#b00020", "inconclusive": "#e8a10a"}
    for i, r in enumerate(rows):
        v = r["value"]
        lo = r["ci_low"] if r.get("ci_low") is not None else v
        hi = r["ci_high"] if r.get("ci_high") is not None else v
        ax.errorbar([v], [i], xerr=[[max(0.0, v - lo)], [max(0.0, hi - v)]], fmt="o", capsize=4,
                    color=colours.get(r["outcome"], "#444"))
        if r.get("threshold") is not None:
            ax.plot([r["threshold"]] * 2, [i - 0.35, i + 0.35], color="#b00020", linestyle="--")
    ax.set_yticks(range(len(rows)), [f"{names.get(r['field'], r['field'])} · {coefficient_label(r['coefficient'])}"
                                     for r in rows])
    ax.invert_yaxis()
    ax.set_xlim(-0.2, 1.05)
    ax.set_xlabel("값 (95% CI) · 빨간 점선 = 기준")
    ax.set_title("항목별 게이트 판정")
    return _png(fig)


#: The warning both report forms open with when the round's reviewers were simulated.
SIMULATED_WARNING_HTML = ("<div class='warn'><b>주의: 시뮬레이션 검토자</b> — 이 라운드의 검토자는 실제 사람이 아닙니다"
                          " (sim-reviewer-* 등). 이 수치는 파이프라인 동작 확인용이며 평가자 간 일치도의 근거가 아닙니다.</div>")


def _simulated_warning(db: Database, round_id: str) -> str:
    return SIMULATED_WARNING_HTML if is_simulated_round(db, round_id) else ""


def _ko_code(label: str, code: Any) -> str:
    """``Korean label (code)``; the code alone when no label differs from it."""
    code = "" if code is None else str(code)
    return f"{label} ({code})" if label and label != code else code


def _field_names(db: Database, round_id: str) -> dict[str, str]:
    """Korean field names of the round's scheme (``techniques`` → ``상담 기법``)."""
    scheme = dataset_scheme(db, get_round(db, round_id)["dataset_id"])
    return {f.name: f.label_ko or f.name for f in scheme.fields}


def _field_report(db: Database, g: Mapping[str, Any], *, max_examples: int) -> str:

    res = g["results"]
    rnd = get_round(db, g["round_id"])
    scheme = dataset_scheme(db, rnd["dataset_id"])
    fields = {f.name: f for f in scheme.fields}
    names = {f.name: f.label_ko or f.name for f in scheme.fields}
    anns = effective_annotations(db, g["round_id"], annotator_kind="human")
    annotators = sorted({a["annotator_id"] for a in anns})
    decision = res.get("decision") or ("pass" if g["passed"] else "fail")
    verdict = (f"<span class='{html.escape(decision)}'>{_DECISION_KO.get(decision, html.escape(decision))}</span>")
    if g.get("override_reason"):
        verdict += f" — 예외 승인: {html.escape(str(g['override_reason']))}"
        if decision != "pass":
            verdict += " (골든셋 진행 허용)"
    elif decision != "pass":
        verdict += " (골든셋 생성이 막힘; 진행하려면 예외 사유를 기록해야 함)"
    warn = _simulated_warning(db, g["round_id"])
    gate_rows = []
    for f in res.get("fields", []):
        label = names.get(f["field"], f["field"])
        gate_rows.append(
            "<tr>" + f"<td class='l'>{html.escape(label)} ({html.escape(f['field'])})</td>"
            + f"<td class='l {html.escape(f['outcome'])}'>{_OUTCOME_KO.get(f['outcome'], html.escape(f['outcome']))}</td>"
            + "".join(f"<td>{_fmt(f.get(k))}</td>" for k in ("value", "ci_low", "ci_high", "threshold"))
            + f"<td class='l'>{html.escape(_ko_code(coefficient_label(f.get('coefficient') or '–'), f.get('coefficient') or '–'))}</td>"
            + f"<td class='l'>{_reason_ko(f, res.get('rule'))}"
            + (f"<br><small>{html.escape(str(f['reason']))}</small>" if f.get("reason") else "")
            + "</td></tr>")
    gate_table = ("<table class='field-gate'><tr><th class='l'>항목</th><th class='l'>판정</th><th>값</th>"
                  "<th>CI 하한</th><th>CI 상한</th><th>기준</th><th class='l'>계수</th><th class='l'>사유</th></tr>"
                  + "".join(gate_rows) + "</table>")
    notes = "".join(f"<li>{html.escape(str(n))}</li>" for n in res.get("notes", []))
    detail = []
    for a in res.get("agreement", []):
        rpi = a.get("raters_per_item") or {}
        cat_label = fields[a["field"]].label if a["field"] in fields else (lambda c: c)
        coefs = _table(["계수", "범주", "값", "CI 하한", "CI 상한", "CI 방법", "정의되지 않은 재표본"],
                       [[_ko_code(coefficient_label(str(c["name"]).partition(":")[0]), str(c["name"]).partition(":")[0]),
                         cat_label(c["category"]) if c.get("category") is not None else "",
                         c.get("value"), c.get("ci_low"), c.get("ci_high"), c.get("ci_method", ""),
                         c.get("n_boot_undefined", 0)] for c in a.get("coefficients", [])], left=2)
        warns = "".join(f"<li>{html.escape(str(w))}</li>" for w in a.get("warnings", []))
        detail.append(
            f"<h3>{html.escape(names.get(a['field'], a['field']))} ({html.escape(a['field'])}) · "
            f"{_KIND_KO.get(a['kind'], html.escape(a['kind']))}</h3>"
            f"<p class='note'>항목 {a['n_items']}개 · 항목당 평정자 {rpi.get('min', '–')}–{rpi.get('max', '–')}명 · "
            f"평정자 {a.get('n_raters', '–')}명 · 설계 "
            f"{_DESIGN_KO.get(str(a.get('design')), html.escape(str(a.get('design', ''))))} · "
            f"제외된 항목 {len(a.get('left_out') or [])}개</p>{coefs}"
            + (f"<ul class='note'>{warns}</ul>" if warns else ""))
    examples = _field_examples(scheme, anns, {it["item_id"]: it for it in dataset_items(db, rnd["dataset_id"])},
                               max_examples=max_examples)
    ref = res.get("scheme") or scheme.ref
    gate_id = g["gate_id"]
    return f"""<!DOCTYPE html>
<html lang="ko"><head><meta charset="utf-8"><title>IAA 게이트 보고서 {html.escape(gate_id)}</title>
<style>{_CSS}</style></head><body>
<h1>평가자 간 일치도(IAA) 게이트 보고서</h1>
<p>게이트 <code>{html.escape(gate_id)}</code> · 라운드 <code>{html.escape(g['round_id'])}</code> ·
결정자 {html.escape(str(g['decided_by']))} · {html.escape(format_time(g['created_at']))}</p>
{warn}
<p>전체 판정: {verdict}</p>
<p class="note">규칙: {html.escape(_RULE_KO.get(str(res.get('rule')), str(res.get('rule'))))} ·
분류 체계 {html.escape(str(ref.get('name')))} {html.escape(str(ref.get('version')))}
(sha256 {html.escape(str(ref.get('sha256', ''))[:12])}) · 검토자 {len(annotators)}명</p>
<h2>항목별 판정</h2>{gate_table}
<img alt="per-field gate" src="{_field_figure(res.get('fields', []), names)}">
{f"<ul class='note'>{notes}</ul>" if notes else ""}
<h2>항목별 일치도 계수</h2>{''.join(detail) or '<p>자료가 있는 항목이 없습니다.</p>'}
<h2>불일치 예시 (마스킹된 텍스트)</h2>{examples}
</body></html>
"""


def _field_examples(scheme: Any, anns: Sequence[Mapping[str, Any]], items: Mapping[str, Mapping[str, Any]], *,
                    max_examples: int) -> str:
    """Items coders disagree on, per field: utterance and every coder's label in Korean."""
    who = {"counselor": "상담자", "client": "내담자"}
    by: dict[tuple[str, str], list[tuple[str, Any]]] = {}
    for a in anns:
        for name, v in (a.get("labels") or {}).items():
            if v is not None:
                by.setdefault((name, a["item_id"]), []).append((a["annotator_id"], v))
    out = []
    for f in scheme.fields:
        def ko(v: Any) -> str:
            if f.kind == "multi":
                return ", ".join(f.label(c) for c in v) or "없음"
            return f"{v:g}" if f.kind == "score" and isinstance(v, (int, float)) else f.label(v)
        shown: list[str] = []
        for (name, item_id), votes in sorted(by.items(), key=lambda kv: str(items.get(kv[0][1], {}).get("session_id", ""))):
            if name != f.name or len(votes) < 2 or len(shown) >= max_examples:
                continue
            if len({tuple(v) if isinstance(v, list) else v for _, v in votes}) < 2:
                continue
            it = items.get(item_id, {})
            coders = "".join(f"<li>{html.escape(str(r))}: {html.escape(ko(v))}</li>" for r, v in sorted(votes))
            shown.append(f"<div class='ex'><b>{who.get(str(it.get('speaker')), '발화')}</b>: "
                         f"{html.escape(str(it.get('counselor_text') or ''))}<ul>{coders}</ul></div>")
        if shown:
            out.append(f"<h3>{html.escape(f.label_ko or f.name)}</h3>" + "".join(shown))
    return "".join(out) or "<p>불일치 항목이 없습니다.</p>"
