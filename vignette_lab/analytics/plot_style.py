"""One plotting style for every notebook and report: Korean font, readable sizes, Korean labels.

:func:`apply_style` configures matplotlib once (a Korean-capable font so Hangul never renders
as boxes, type sizes readable on a projector, light grid, no top/right spines).
:func:`ko_label` turns a stored code into the Korean label of the annotation scheme
(``datasets/taxonomy.json``) — techniques, client states, appropriateness, stages, score
dimensions — or of the self-play counselor profiles; unknown codes come back unchanged, so a
plot never invents a label. The code stays available as secondary text (``with_code=True``).

The two plots the first notebooks share live here too: :func:`plot_openness_trajectories`
(effective openness per counselor turn, one colour per counselor profile) and
:func:`plot_label_distribution` (horizontal bars of label counts with Korean labels).

Examples
--------
>>> ko_label("reflection_feelings")
'감정 반영'
>>> ko_label("pos", kind="appropriateness")
'적절'
>>> ko_label("novice", kind="profile", with_code=True)
'초보 상담자 (novice)'
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "COUNSELOR_PROFILE_KO",
    "PALETTE",
    "PROFILE_COLOURS",
    "apply_style",
    "ko_label",
    "ko_labels",
    "plot_label_distribution",
    "plot_openness_trajectories",
    "profile_colour",
]

FONT_CANDIDATES = ("Noto Sans CJK KR", "Noto Sans CJK JP", "Noto Sans KR", "NanumGothic")

#: Self-play counselor profiles (``engines.scripted_counselor.PROFILE_NAMES``).
COUNSELOR_PROFILE_KO: Mapping[str, str] = {
    "skilled": "숙련 상담자",
    "novice": "초보 상담자",
    "advice-jumper": "조언을 서두르는 상담자",
    "improving": "성장하는 상담자",
    "trainee": "수련생",
}

#: Colour-blind-safe (Okabe–Ito) colours, in the order series are drawn.
PALETTE: tuple[str, ...] = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
                            "#000000")

#: One colour per counselor profile, the same in every plot.
PROFILE_COLOURS: Mapping[str, str] = {"skilled": PALETTE[2], "novice": PALETTE[1], "advice-jumper": PALETTE[3],
                                      "improving": PALETTE[4], "trainee": PALETTE[0]}


def profile_colour(profile: str) -> str:
    """The colour of a counselor profile (:data:`PROFILE_COLOURS`; grey for an unknown one)."""
    return PROFILE_COLOURS.get(str(profile), "#777777")


_STYLE: dict[str, Any] = {
    "font.size": 11,
    "axes.titlesize": 13,
    "axes.titleweight": "bold",
    "axes.labelsize": 11,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "legend.fontsize": 10,
    "legend.frameon": False,
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "figure.figsize": (7.5, 4.0),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.unicode_minus": False,  # the CJK fonts lack U+2212
}

_state: dict[str, Any] = {"applied": False, "font": None}


def apply_style() -> str | None:
    """Apply the workbench style to matplotlib (once per process); returns the Korean font used.

    Chooses the Agg backend only when no backend was picked (notebooks keep their inline one).
    Returns None when no Korean-capable font is installed (``fonts-noto-cjk`` on Debian).
    """
    if _state["applied"]:
        return _state["font"]
    import matplotlib
    from cycler import cycler
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    font = next((n for n in FONT_CANDIDATES if n in names), None)
    if font:
        matplotlib.rcParams["font.family"] = [font, "DejaVu Sans"]
    # matplotlib types rcParams keys as a Literal of every known key; _STYLE holds known keys only
    matplotlib.rcParams.update(_STYLE)  # type: ignore[arg-type]
    matplotlib.rcParams["axes.prop_cycle"] = cycler(color=list(PALETTE))
    _state.update(applied=True, font=font)
    return font


@functools.lru_cache(maxsize=1)
def _scheme_labels() -> dict[str, dict[str, str]]:
    from vignette_lab.core.taxonomy import load_taxonomy

    tax = load_taxonomy()
    return {
        "technique": {t.code: t.label for t in tax.techniques},
        "client_state": {c.code: c.label for c in tax.client_states},
        "appropriateness": {a.code: a.label for a in tax.appropriateness},
        "stage": {s.code: s.label for s in tax.stages},
        "score": {d.code: d.label for d in tax.score_dimensions},
        "profile": dict(COUNSELOR_PROFILE_KO),
    }


def ko_label(code: Any, *, kind: str | None = None, with_code: bool = False) -> str:
    """The Korean label of ``code`` from the scheme (or the counselor profiles).

    Parameters
    ----------
    code : str
        A stored code (``open_question``, ``pos``, ``novice`` …).
    kind : {"technique", "client_state", "appropriateness", "stage", "score", "profile"}, optional
        Where to look; None looks everywhere (techniques first).
    with_code : bool, default=False
        Append the code in parentheses (``개방형 질문 (open_question)``) for tables that are
        matched against exports.

    Returns
    -------
    str
        The label, or ``str(code)`` unchanged when the scheme does not know it.
    """
    labels = _scheme_labels()
    if kind is not None and kind not in labels:
        raise ValueError(f"ko_label: 'kind' must be one of {', '.join(labels)}. Got {kind!r} instead.")
    text = str(code)
    kinds = [kind] if kind else list(labels)
    label = next((labels[k][text] for k in kinds if text in labels[k]), None)
    if label is None:
        return text
    return f"{label} ({text})" if with_code else label


def ko_labels(codes: Iterable[Any], *, kind: str | None = None, with_code: bool = False) -> list[str]:
    """:func:`ko_label` for each code."""
    return [ko_label(c, kind=kind, with_code=with_code) for c in codes]


def _plt():
    apply_style()
    import matplotlib.pyplot as plt

    return plt


def plot_openness_trajectories(sessions: Sequence[Any], *, title: str = "상담자 유형별 내담자 개방성 변화",
                               note: str | None = "훈련용 자료 — 근거 아님 (스크립트 엔진의 셀프플레이)") -> Any:
    """Effective openness after every counselor turn, one colour per counselor profile.

    Parameters
    ----------
    sessions : sequence
        Objects or mappings with ``openness_by_turn`` (list of floats), ``counselor`` (profile
        code) and ``persona`` (code) — e.g. ``run_selfplay(...).sessions``. A live session can
        be passed as ``{"openness_by_turn": [...], "counselor": "trainee", "persona": "P1"}``.
    title : str
    note : str or None
        Small print under the plot; the default labels scripted self-play as training material.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()

    def get(s: Any, name: str) -> Any:
        return s.get(name) if isinstance(s, Mapping) else getattr(s, name, None)

    fig, ax = plt.subplots(figsize=(8, 4.2))
    profiles = sorted({str(get(s, "counselor")) for s in sessions})
    personas = sorted({str(get(s, "persona")) for s in sessions})
    markers = dict(zip(personas, "osD^vP*X"))
    colour = {p: profile_colour(p) for p in profiles}
    seen: set[str] = set()
    for s in sessions:
        traj = list(get(s, "openness_by_turn") or [])
        if not traj:
            continue
        prof, persona = str(get(s, "counselor")), str(get(s, "persona"))
        label = f"{ko_label(prof, kind='profile')} · {persona}"
        ax.plot(range(1, len(traj) + 1), traj, color=colour[prof], marker=markers.get(persona, "o"),
                markersize=5, lw=2, alpha=0.9, label=None if label in seen else label)
        seen.add(label)
    if not seen:
        ax.text(0.5, 0.5, "표시할 회기가 없습니다 — 셀프플레이를 먼저 실행하세요", ha="center", va="center",
                transform=ax.transAxes)
    from matplotlib.ticker import MaxNLocator

    ax.set_ylim(0, 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("상담자 발화 순서")
    ax.set_ylabel("내담자 개방성 (0–1)")
    ax.set_title(title)
    if seen:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), title="상담자 유형 · 페르소나")
    if note:
        fig.text(0.01, -0.02, note, fontsize=9, color="#555555", ha="left", va="top")
    fig.tight_layout()
    return fig


def plot_label_distribution(counts: Mapping[str, float] | Any, *, kind: str | None = "technique",
                            title: str = "기법 분포", xlabel: str = "발화 수",
                            note: str | None = None, top: int | None = None) -> Any:
    """Horizontal bars of label counts, Korean labels from the scheme, largest on top.

    Parameters
    ----------
    counts : mapping or pandas.Series
        ``{code: count}``; codes are turned into Korean labels with :func:`ko_label`.
    kind : str or None, default="technique"
        Passed to :func:`ko_label`.
    title, xlabel : str
    note : str or None
        Small print under the plot (e.g. "훈련용 자료 — 근거 아님").
    top : int, optional
        Only the ``top`` most frequent labels.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    items = sorted(((str(k), float(v)) for k, v in dict(counts).items() if v), key=lambda kv: (-kv[1], kv[0]))
    if top is not None:
        items = items[:top]
    fig, ax = plt.subplots(figsize=(7.5, max(2.2, 0.42 * len(items) + 1.2)))
    if not items:
        ax.text(0.5, 0.5, "라벨이 없습니다", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    labels = [ko_label(k, kind=kind) for k, _ in items][::-1]
    values = [v for _, v in items][::-1]
    bars = ax.barh(labels, values, color=PALETTE[0])
    total = sum(values)
    for bar, v in zip(bars, values):
        ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2, f" {v:g} ({v / total:.0%})",
                va="center", fontsize=9)
    from matplotlib.ticker import MaxNLocator

    ax.set_xlim(0, max(values) * 1.25)
    ax.xaxis.set_major_locator(MaxNLocator(integer=all(float(v).is_integer() for v in values)))
    ax.grid(axis="y", visible=False)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    if note:
        fig.text(0.01, -0.02, note, fontsize=9, color="#555555", ha="left", va="top")
    fig.tight_layout()
    return fig
