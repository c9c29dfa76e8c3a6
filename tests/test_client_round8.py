"""Issue 12 round 8: classes found reading the misses of client_probes/dev_r7.

The sentences here are written for the tests, so they check the mechanism, not the probes it was
read from.
"""

from __future__ import annotations

import pytest

from vignette_lab.engines.client_reading import closing_kind, read_act


@pytest.mark.parametrize("text, kind", [
    ("오늘은 이쯤에서 마무리하고 다음 시간에 또 이야기해요.", "plain"),
    ("이 정도로 마무리하고 다음 주에 이어서 볼 수 있을까요?", "next"),
    ("슬슬 마무리하면서 오늘 어땠는지 들어 볼까?", "review"),
    ("오늘 시간 어땠어? 편하게 말해 줘.", "review"),
])
def test_wrapping_up_today_in_any_form_of_marwuri_hada_is_a_closing(text, kind):
    assert read_act(text) == "closing"
    assert closing_kind(text) == kind


def test_finishing_some_other_task_is_no_closing():
    assert read_act("숙제는 마무리하고 왔어?") != "closing"


def test_asking_about_the_day_at_school_is_no_closing():
    assert read_act("오늘 학교 어땠어?") != "closing"
