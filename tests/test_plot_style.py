"""The shared plotting style: Korean font, Korean labels from the scheme, the two shared plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib import font_manager  # noqa: E402

from vignette_lab.analytics import plot_style  # noqa: E402
from vignette_lab.analytics.plot_style import (  # noqa: E402
    apply_style,
    ko_label,
    plot_label_distribution,
    plot_openness_trajectories,
    profile_colour,
)
from vignette_lab.core.taxonomy import load_taxonomy  # noqa: E402


def test_every_scheme_code_has_its_korean_label():
    tax = load_taxonomy()
    for t in tax.techniques:
        assert ko_label(t.code) == t.label
        assert ko_label(t.code, kind="technique", with_code=True) == f"{t.label} ({t.code})"
    for a in tax.appropriateness:
        assert ko_label(a.code, kind="appropriateness") == a.label
    for c in tax.client_states:
        assert ko_label(c.code, kind="client_state") == c.label
    assert ko_label("exploration", kind="stage") == "탐색"
    assert ko_label("advice-jumper", kind="profile") == "조언을 서두르는 상담자"


def test_unknown_codes_are_not_invented_and_kind_is_checked():
    assert ko_label("made_up_code") == "made_up_code"
    assert ko_label("pos", kind="technique") == "pos"  # a code of another kind is not borrowed
    with pytest.raises(ValueError, match="'kind' must be one of"):
        ko_label("pos", kind="colour")


def test_style_uses_a_korean_font_and_readable_sizes():
    font = apply_style()
    installed = {f.name for f in font_manager.fontManager.ttflist}
    if any(n in installed for n in plot_style.FONT_CANDIDATES):
        assert font in plot_style.FONT_CANDIDATES
        assert matplotlib.rcParams["font.family"][0] == font
    assert matplotlib.rcParams["font.size"] >= 10 and matplotlib.rcParams["axes.titlesize"] >= 12
    assert matplotlib.rcParams["axes.unicode_minus"] is False


def test_label_distribution_shows_korean_labels_largest_first():
    fig = plot_label_distribution({"open_question": 3, "reflection_feelings": 5, "direct_guidance": 0})
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == ["개방형 질문", "감정 반영"]  # bottom to top: the largest is drawn on top
    assert ax.get_title() == "기법 분포"
    empty = plot_label_distribution({})
    assert "라벨이 없습니다" in [t.get_text() for t in empty.axes[0].texts]


def test_openness_trajectories_one_colour_per_profile_with_korean_legend():
    sessions = [{"openness_by_turn": [0.1, 0.2, 0.3], "counselor": "skilled", "persona": "P1"},
                {"openness_by_turn": [0.1, 0.1, 0.12], "counselor": "novice", "persona": "P1"},
                {"openness_by_turn": [0.2, 0.25], "counselor": "skilled", "persona": "P4"}]
    fig = plot_openness_trajectories(sessions)
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["숙련 상담자 · P1", "초보 상담자 · P1", "숙련 상담자 · P4"]
    colours = [matplotlib.colors.to_hex(line.get_color()) for line in ax.get_lines()]
    assert colours[0] == colours[2] == profile_colour("skilled").lower()
    assert colours[1] == profile_colour("novice").lower()
    assert any("근거 아님" in t.get_text() for t in fig.texts)
