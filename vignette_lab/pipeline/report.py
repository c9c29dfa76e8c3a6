"""Self-contained HTML report of a gate decision (inline CSS, figures as base64 PNG).

Sections: decision and thresholds, per-label κ (table and bar chart), appropriateness
confusion matrix, ICC per score dimension with CIs, and disagreement examples (the text is
the masked text stored in the data set). Korean labels render with Noto Sans CJK when
installed; otherwise matplotlib's default font is used silently.
"""

from __future__ import annotations

import base64
import html
import io
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from vignette_lab.pipeline.adjudicate import disagreements
from vignette_lab.pipeline.gate import get_gate
from vignette_lab.pipeline.rounds import _pinned, taxonomy_info

__all__ = ["write_gate_report"]

_CSS = """
body{font-family:'Noto Sans CJK KR','Noto Sans KR','Apple SD Gothic Neo',sans-serif;margin:2rem;
     color:#222;max-width:1100px}
h1{font-size:1.5rem}h2{font-size:1.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;
font-size:.9rem;text-align:right}th{background:#f4f4f4}td.l,th.l{text-align:left}
.pass{color:#0a7a32;font-weight:bold}.fail{color:#b00020;font-weight:bold}
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


def _icc_figure(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str], threshold: float) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    labels = [names.get(r["dimension"], r["dimension"]) for r in rows]
    vals = [r["icc"] if r["icc"] is not None else 0.0 for r in rows]
    lo = [max(0.0, v - r["ci_low"]) if r["ci_low"] is not None else 0 for v, r in zip(vals, rows)]
    hi = [max(0.0, r["ci_high"] - v) if r["ci_high"] is not None else 0 for v, r in zip(vals, rows)]
    ax.bar(labels, vals, yerr=[lo, hi], color=["#4c8bf5" if v >= threshold else "#e8710a" for v in vals])
    ax.axhline(threshold, color="#b00020", linestyle="--", label=f"기준 ICC = {threshold}")
    ax.set_ylim(min(0.0, min(vals, default=0)) - 0.05, 1.05)
    ax.set_ylabel("ICC2 (95% CI)")
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
def write_gate_report(db: Any, gate_id: str, out_dir: str | os.PathLike[str] = "reports", *,
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
    tax = taxonomy_info()
    names = tax.names
    verdict = ("<span class='pass'>통과</span>" if g["passed"] else
               "<span class='fail'>미통과</span>" + (
                   f" — 예외 승인: {html.escape(g['override_reason'])}" if g["override_reason"] else ""))
    checks = _table(["검사", "값", "기준", "결과"],
                    [[c["name"], c["value"], c["threshold"], "통과" if c["passed"] else "미통과"]
                     for c in res.get("checks", [])])
    tech_rows = res["techniques"]["per_label"]
    tech_table = _table(["기법", "κ", "CI 하한", "CI 상한", "α", "출현율"],
                        [[f"{names.get(r['label'], r['label'])} ({r['label']})", r["kappa"],
                          r["ci_low"], r["ci_high"], r["alpha"], r["prevalence"]] for r in tech_rows])
    appr = res["appropriateness"]
    appr_table = _table(["통계", "값"], [["방법", appr["statistic"]], ["κ", appr["kappa"]],
                                        ["CI 하한", appr["ci_low"]], ["CI 상한", appr["ci_high"]],
                                        ["α", appr["alpha"]], ["단순 일치율", appr["percent_agreement"]]])
    score_table = _table(["차원", "ICC2", "CI 하한", "CI 상한", "α (interval)", "항목 수"],
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
결정자 {html.escape(g['decided_by'])} · {html.escape(str(g['created_at']))}</p>
<p>판정: {verdict}</p>
<p class="note">기준: κ ≥ {thr['kappa_min']}, {html.escape(thr.get('icc_type', 'ICC2'))} ≥ {thr['icc_min']} ·
중복 검토 항목 {res['n_overlap_items']}개 · 방법 {html.escape(res['method'])} (검토자 2명이면 Cohen, 그 이상이면 Fleiss) ·
CI는 항목 부트스트랩 {res.get('n_resamples')}회 (ICC는 F 분포 기반) · 분류 체계 {html.escape(tax.version)}</p>
<h2>검사 결과</h2>{checks}
<h2>기법별 κ</h2><img alt="per-label kappa" src="{_kappa_figure(tech_rows, names, thr['kappa_min'])}">
{tech_table}
<h2>적절성</h2><img alt="confusion matrix" src="{_confusion_figure(appr['confusion'], names)}">
{appr_table}
<h2>점수 차원별 ICC</h2><img alt="ICC" src="{_icc_figure(res['scores'], names, thr['icc_min'])}">
{score_table}
<h2>불일치 예시 (마스킹된 텍스트)</h2>{''.join(examples) or '<p>불일치 항목이 없습니다.</p>'}
</body></html>
"""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"gate-{gate_id}.html"
    path.write_text(doc, encoding="utf-8")
    return path
