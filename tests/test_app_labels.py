"""Korean wording of stored codes on the pages, local times, and the review shortcut line."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pandas as pd
import pytest

from vignette_lab.app.labels import (
    coefficient_label,
    difficulty_label,
    format_time,
    kind_label,
    profile_label,
    role_label,
    round_label,
    rule_label,
    status_label,
)

ROOT = Path(__file__).resolve().parents[1]


def test_every_stored_status_profile_difficulty_and_role_has_korean():
    from vignette_lab.app.auth import ROLES
    from vignette_lab.core.personas import DIFFICULTIES
    from vignette_lab.session.selfplay import COUNSELOR_PROFILES

    for code in ("active", "ended", "aborted", "open", "closed", "pending", "ready", "degraded", "proposed"):
        assert status_label(code) != code and not status_label(code).isascii(), code
    for code in DIFFICULTIES:
        assert not difficulty_label(code).isascii(), code
    for code in COUNSELOR_PROFILES:
        assert not profile_label(code).isascii(), code
    assert profile_label("novice", with_code=True) == "초보 상담자 (novice)"
    for code in ROLES:
        assert not role_label(code).isascii(), code
    assert rule_label("lower-bound") == "신뢰구간 하한" and kind_label("multi") == "복수 선택"


def test_unknown_codes_come_back_unchanged():
    assert status_label("weird") == "weird" and difficulty_label(None) == "" and profile_label(None) == ""
    assert coefficient_label("made_up") == "made_up"


def test_coefficient_names_are_readable_and_keep_the_category_code_as_secondary_text():
    from vignette_lab.agreement import COEFFICIENTS

    for names in COEFFICIENTS.values():
        for name in names:
            if ":" in name:
                continue
            assert coefficient_label(name) != name, name
    assert coefficient_label("fleiss_kappa:open_question") == "Fleiss κ · 개방형 질문 (open_question)"
    assert coefficient_label("krippendorff_alpha:change", categories={"change": "변화대화"}) == \
        "Krippendorff α · 변화대화 (change)"
    assert coefficient_label("icc2k") == "ICC(2,k)"


def test_round_label_translates_the_status():
    assert round_label({"name": "r1", "round_id": "abcdef1234", "status": "open"}) == "r1 · abcdef12 (진행 중)"


@pytest.mark.parametrize("value", [
    datetime(2026, 12, 1, 13, 5, tzinfo=timezone.utc),
    datetime(2026, 12, 1, 13, 5),                      # naive: the store writes UTC
    pd.Timestamp("2026-12-01T13:05:00Z"),
    datetime(2026, 12, 1, 13, 5, tzinfo=timezone.utc).timestamp(),           # epoch seconds
    datetime(2026, 12, 1, 13, 5, tzinfo=timezone.utc).timestamp() * 1000.0,  # epoch ms (Bokeh)
    "2026-12-01T13:05:00+00:00",
])
def test_format_time_gives_the_same_local_minute_for_every_stored_shape(value):
    expected = datetime(2026, 12, 1, 13, 5, tzinfo=timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M")
    assert format_time(value) == expected


def test_format_time_of_missing_values_is_empty():
    assert format_time(None) == "" and format_time(pd.NaT) == ""


def test_shortcut_line_describes_the_active_schemes_keys():
    from vignette_lab.app.review_page import shortcut_line
    from vignette_lab.core.scheme import default_scheme
    from vignette_lab.core.scheme import load_scheme_file
    from vignette_lab.pipeline.review import scheme_keys

    default = default_scheme()
    line = shortcut_line(default, scheme_keys(default))
    assert "상담 기법 1–9·0·b·c·e" in line and "적절성 a·s·d" in line and "h AI 제안" in line
    assert line.index("상담 기법") < line.index("내담자 상태") < line.index("적절성")  # scheme order

    mi = load_scheme_file(ROOT / "datasets" / "examples" / "mi_corpus_scheme.json")
    keys = scheme_keys(mi)
    line = shortcut_line(mi, keys, proposal_key=False)
    assert "상담자 발화: 상담자 행동" in line and "내담자 발화: 내담자 대화 유형" in line
    for speaker in keys.values():
        for key in speaker:
            assert key in line
    assert "h AI 제안" not in line and "1–9" not in line  # not the default taxonomy's keys
    assert "라운드를 고르면" in shortcut_line(None, {})
