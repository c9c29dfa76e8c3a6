"""Matplotlib figures for drift and growth, shared by reports, notebooks and dashboards.

:func:`setup_fonts` (called by every plot function) applies the one workbench style of
:mod:`vignette_lab.analytics.plot_style` — a Korean-capable font, readable sizes — so Hangul
labels never render as boxes. Every function returns a :class:`matplotlib.figure.Figure`;
:func:`figure_png_base64` turns one into an inline ``data:`` URI for self-contained HTML.
"""

from __future__ import annotations

import base64
import io
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "figure_png_base64",
    "plot_drift_rates",
    "plot_growth_curves",
    "plot_level_vs_slope",
    "plot_similarity",
    "setup_fonts",
]

_DIM_KO = {"empathy": "공감", "open_questions": "개방형 질문", "validation": "타당화", "theory_fit": "이론 적합성"}


def setup_fonts() -> str | None:
    """Apply the shared style (:func:`~vignette_lab.analytics.plot_style.apply_style`); returns the font name."""
    from vignette_lab.analytics.plot_style import apply_style

    return apply_style()


def _plt():
    setup_fonts()
    import matplotlib.pyplot as plt

    return plt


def figure_png_base64(fig: Any, *, dpi: int = 110, close: bool = True) -> str:
    """PNG of ``fig`` as a ``data:image/png;base64,…`` URI."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    if close:
        _plt().close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def plot_similarity(profile: pd.DataFrame, *, threshold: float | None = None, title: str = "") -> Any:
    """Per-utterance anchor similarity of one session (raw cosine and centred contrast).

    ``profile`` is :func:`~vignette_lab.analytics.drift.similarity_profile` output.
    """
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    ax = axes[0]
    ax.plot(profile["seq"], profile["anchor_sim"], marker="o", label="원시 코사인 (anchor)")
    if threshold is not None:
        ax.axhline(threshold, color="red", ls="--", lw=1, label=f"임계값 {threshold} (미검증 작업값)")
    ax.set_xlabel("turn seq")
    ax.set_ylabel("cosine")
    ax.legend(fontsize=8)
    ax.set_title(title or "페르소나 목소리 유사도")
    ax = axes[1]
    ax.plot(profile["seq"], profile["anchor_centred"], marker="o", label="자기 페르소나 (centred)")
    ax.plot(profile["seq"], profile["other_centred"], marker="x", label="가장 가까운 다른 페르소나")
    ax.set_xlabel("turn seq")
    ax.legend(fontsize=8)
    ax.set_title("중심화 코사인 대비")
    fig.tight_layout()
    return fig


def plot_drift_rates(rates: pd.DataFrame, *, label_cols: Sequence[str] = ("persona_code",),
                     checks: Sequence[str] | None = None) -> Any:
    """Stacked bars: findings per client turn by check, one bar per group."""
    from vignette_lab.analytics.drift import CHECKS

    plt = _plt()
    checks = list(checks or CHECKS)
    fig, ax = plt.subplots(figsize=(max(5, 0.7 * len(rates) + 2), 3.4))
    if rates.empty:
        ax.text(0.5, 0.5, "기록된 드리프트 없음", ha="center", va="center")
        ax.set_axis_off()
        return fig
    labels = [" / ".join(str(r[c]) for c in label_cols if c in rates.columns) for _, r in rates.iterrows()]
    bottom = np.zeros(len(rates))
    denom = rates["client_turns"].replace(0, np.nan).to_numpy(dtype=float)
    for chk in checks:
        vals = np.nan_to_num(rates[chk].to_numpy(dtype=float) / denom)
        ax.bar(labels, vals, bottom=bottom, label=chk)
        bottom += vals
    ax.set_ylabel("findings / client turn")
    ax.tick_params(axis="x", rotation=30)
    ax.legend(fontsize=7, ncol=2)
    ax.set_title("페르소나 드리프트 비율")
    fig.tight_layout()
    return fig


def plot_growth_curves(curves: pd.DataFrame, *, learners: Sequence[str] | None = None, max_learners: int = 6) -> Any:
    """Session means (dots) and EWMA (lines) per dimension, one panel per learner."""
    plt = _plt()
    who = list(learners) if learners is not None else sorted(curves["learner"].unique())[:max_learners]
    n = max(1, len(who))
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.2), sharey=True, squeeze=False)
    for ax, learner in zip(axes[0], who):
        part = curves[curves["learner"] == learner]
        for dim, g in part.groupby("dimension"):
            g = g.sort_values("session_no")
            line, = ax.plot(g["session_no"], g["ewma"], label=_DIM_KO.get(dim, dim))
            ax.scatter(g["session_no"], g["score"], s=12, color=line.get_color(), alpha=0.6)
        ax.set_title(str(learner))
        ax.set_xlabel("회기")
        ax.set_ylim(0, 5)
    axes[0][0].set_ylabel("점수 (0–5), 선 = EWMA α=0.4")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_level_vs_slope(profiles: Sequence[Mapping[str, Any]], *, high_level: float | None = None,
                        flat_slope: float | None = None) -> Any:
    """Scatter of learners: mean EWMA level vs mean slope, with the classification bands."""
    from vignette_lab.analytics.longitudinal import GROWTH_THRESHOLDS, classify_growth

    plt = _plt()
    high = GROWTH_THRESHOLDS["high_level"] if high_level is None else high_level
    flat = GROWTH_THRESHOLDS["flat_slope"] if flat_slope is None else flat_slope
    fig, ax = plt.subplots(figsize=(5.5, 4))
    for p in profiles:
        ew, sl = list((p.get("dim_ewma") or {}).values()), list((p.get("dim_slope") or {}).values())
        if not ew:
            continue
        x, y = float(np.mean(ew)), float(np.mean(sl))
        ax.scatter([x], [y])
        ax.annotate(f"{p['learner_id']}\n({classify_growth(p)})", (x, y), fontsize=7, xytext=(4, 4),
                    textcoords="offset points")
    ax.axvline(high, color="grey", ls="--", lw=1)
    ax.axhspan(-flat, flat, color="grey", alpha=0.12)
    ax.set_xlabel("현재 수준 (EWMA 평균)")
    ax.set_ylabel("성장 속도 (최근 6회기 기울기)")
    ax.set_title("수준 × 성장 속도")
    fig.tight_layout()
    return fig
