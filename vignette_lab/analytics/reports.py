"""Self-contained HTML reports: persona/label drift, learner growth, and the IAA gate.

Each report is one HTML file with inline CSS and matplotlib figures as base64 PNG (no
network, no external files), so it can be mailed or archived as is. The same functions serve
the CLI (``vignette-lab report …``), the notebooks and the Panel dashboards. Text shown to
people is Korean; every table cell is HTML-escaped (utterance excerpts are masked text).
"""

from __future__ import annotations

import html
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import pandas as pd

from vignette_lab.analytics import plots
from vignette_lab.errors import InputError
from vignette_lab.store import app_repo, ds_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["render_table", "write_drift_report", "write_gate_report", "write_growth_report"]

_CSS = """
body{font-family:'Noto Sans CJK KR','Noto Sans KR',sans-serif;margin:2rem auto;max-width:1100px;color:#222;line-height:1.5}
h1{font-size:1.5rem;border-bottom:2px solid #445;padding-bottom:.3rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .5rem}
th{background:#f0f2f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.note{background:#fff8e1;border-left:4px solid #f0b400;padding:.5rem .8rem;font-size:.9rem}
.meta{color:#666;font-size:.8rem}img{max-width:100%}
"""


def render_table(df: pd.DataFrame, *, max_rows: int = 50, digits: int = 3) -> str:
    """An escaped HTML table of ``df`` (numbers rounded for display only)."""
    if df is None or df.empty:
        return "<p class='meta'>(데이터 없음)</p>"
    df = df.head(max_rows)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, float):
                cells.append(f"<td class='num'>{'' if pd.isna(v) else f'{v:.{digits}f}'}</td>")
            elif isinstance(v, (int,)) and not isinstance(v, bool):
                cells.append(f"<td class='num'>{v}</td>")
            else:
                text = ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else ("" if v is None else str(v))
                cells.append(f"<td>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _page(title: str, sections: Sequence[str]) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<!DOCTYPE html><html lang='ko'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
            f"<p class='meta'>생성 {stamp} · vignette-lab</p>{''.join(sections)}</body></html>")


def _img(fig: Any, alt: str) -> str:
    return f"<img alt='{html.escape(alt)}' src='{plots.figure_png_base64(fig)}'>"


def _out(out_dir: str | os.PathLike[str], name: str) -> Path:
    path = Path(out_dir)
    path.mkdir(parents=True, exist_ok=True)
    return path / name


def write_drift_report(db: Database, out_dir: str | os.PathLike[str] = "reports", *,
                       by: Sequence[str] = ("persona", "engine", "model"), scan: bool = False,
                       rate_bound: float = 0.10) -> Path:
    """Write ``drift-<UTC stamp>.html``: persona drift rates, similarity, worst examples, label drift.

    Parameters
    ----------
    db : Database
    out_dir : path-like, default='reports'
    by : sequence of str, default=('persona', 'engine', 'model')
        Grouping (see :func:`~vignette_lab.analytics.drift.drift_report`).
    scan : bool, default=False
        Run :func:`~vignette_lab.analytics.drift.scan_all` first (logs new findings).
    rate_bound : float, default=0.10
        Label-rate change between model versions that is flagged.

    Returns
    -------
    pathlib.Path
    """
    from vignette_lab.analytics.drift import THRESHOLD_NOTE, drift_report, scan_all

    if scan:
        scan_all(db, progress=False)
    rep = drift_report(db, by=by, rate_bound=rate_bound)
    label_cols = [c for c in rep.rates.columns if c in ("persona_code", "engine", "model", "mode",
                                                          "counselor_profile")]
    sections = [
        f"<p class='note'>임베딩 일관성 임계값 {rep.threshold} — {html.escape(THRESHOLD_NOTE)}. "
        "이 값은 검증되지 않은 작업값이며, 소형 다국어 임베더에서는 원시 코사인이 모두 높게 나오므로 "
        "중심화 대비(contrast) 검사를 함께 봅니다.</p>",
        "<h2>1. 페르소나 드리프트 비율</h2>", render_table(rep.rates),
        _img(plots.plot_drift_rates(rep.rates, label_cols=label_cols[:1] or ("persona_code",)), "drift rates"),
        "<h2>2. 유사도 분포 (플래그된 발화)</h2>", render_table(rep.sim_distribution),
        "<h2>3. 가장 심한 사례 (마스킹된 발화)</h2>", render_table(rep.examples),
        "<h2>4. 라벨 분포 변화 (AI 주석 라운드 간)</h2>",
        render_table(rep.label_shift.drop_duplicates(["group_from", "group_to", "label"])
                     if not rep.label_shift.empty else rep.label_shift),
        f"<h2>5. 모델 버전 간 라벨 비율 변화 (허용 폭 {rate_bound:.2f})</h2>", render_table(rep.model_flags),
        "<h2>6. AI 주석자와 골든셋 일치도 (기간별)</h2>", render_table(rep.agreement),
    ]
    path = _out(out_dir, f"drift-{rep.generated_at:%Y%m%dT%H%M%S}.html")
    path.write_text(_page("페르소나·라벨 드리프트 보고서", sections), encoding="utf-8")
    return path


def write_growth_report(db: Database, out_dir: str | os.PathLike[str] = "reports", *, cohort: str | None = None,
                        learner: str | None = None, principal: Any = None, update: bool = True) -> Path:
    """Write ``growth-<cohort|learner|all>.html``: growth curves, level × speed, profiles.

    Parameters
    ----------
    db : Database
    out_dir : path-like, default='reports'
    cohort : str, default=None
        Faculty view of one cohort.
    learner : str, default=None
        One learner (a trainee principal may only name themselves).
    principal : (role, user_id), default=None
        Passed to :func:`~vignette_lab.analytics.longitudinal.growth_curves`.
    update : bool, default=True
        Recompute ``app.learner_profile`` for the learners shown.

    Returns
    -------
    pathlib.Path
    """
    from vignette_lab.analytics.longitudinal import (ALPHA, GAP_BAR, GROWTH_THRESHOLDS, SLOPE_WINDOW,
                                                     classify_growth, growth_curves, update_learner_profile)

    curves = growth_curves(db, learners=[learner] if learner else None, cohort=cohort, principal=principal)
    if curves.empty:
        raise InputError("no ended sessions with fast-loop scores for this selection "
                         f"(cohort={cohort!r}, learner={learner!r})", field="learner" if learner else "cohort")
    learners = sorted(curves["learner"].unique())
    profiles = []
    for lid in learners:
        if update:
            profiles.append(update_learner_profile(db, lid))
        else:
            row = app_repo.get_learner_profile(db, lid)
            if row:
                profiles.append(row)
    table = pd.DataFrame([{
        "학습자": p["learner_id"], "회기 수": p["session_count"], "분류": classify_growth(p),
        **{f"수준:{k}": v for k, v in sorted(p["dim_ewma"].items())},
        **{f"기울기:{k}": v for k, v in sorted(p["dim_slope"].items())},
        "지속 약점": ", ".join(p["persistent_gaps"] or [])} for p in profiles])
    th = GROWTH_THRESHOLDS
    sections = [
        f"<p class='note'>수준 = 회기별 평균 점수의 EWMA(α={ALPHA}); 성장 속도 = 최근 {SLOPE_WINDOW}회기 최소제곱 기울기; "
        f"지속 약점 = 최근 3회기 연속 {GAP_BAR}점 미만. 분류 기준(수준 ≥ {th['high_level']}, 정체 |기울기| ≤ "
        f"{th['flat_slope']}, 성장 기울기 ≥ {th['growing_slope']})은 검증되지 않은 작업값입니다.</p>",
        "<h2>1. 학습자 프로필</h2>", render_table(table),
        "<h2>2. 성장 곡선</h2>", _img(plots.plot_growth_curves(curves, learners=learners[:6]), "growth curves"),
        "<h2>3. 수준 × 성장 속도</h2>", _img(plots.plot_level_vs_slope(profiles), "level vs slope"),
    ]
    scope = learner or cohort or "all"
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in scope)
    title = f"학습자 성장 보고서 — {learner or (cohort and f'코호트 {cohort}') or '전체'}"
    path = _out(out_dir, f"growth-{safe}.html")
    path.write_text(_page(title, sections), encoding="utf-8")
    return path


def write_gate_report(db: Database, out_dir: str | os.PathLike[str] = "reports", *, gate_id: str | None = None,
                      round_id: str | None = None) -> Path:
    """Gate report: delegates to :func:`vignette_lab.pipeline.report.write_gate_report`.

    Give ``gate_id``, or ``round_id`` to use that round's latest gate decision.
    """
    from vignette_lab.pipeline.report import write_gate_report as _write

    if (gate_id is None) == (round_id is None):
        raise InputError("give exactly one of gate_id or round_id", field="gate_id")
    if gate_id is None:
        assert round_id is not None  # exactly one of the two is given (checked above)
        gate_id = ds_repo.latest_gate_id(db, round_id)
        if gate_id is None:
            raise InputError(f"round {round_id!r} has no gate decision; run `vignette-lab gate` first",
                             field="round_id")
    return Path(_write(db, gate_id, out_dir))
