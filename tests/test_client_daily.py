""""How have you been?" gets an answer about the client's days (twelfth session).

"요즘 어떻게 지내?" — the most common first question after a greeting — had no topic, so the client answered with
a random reaction to an open question ("그때요? 열 받았죠.", "가끔은요. 괜찮겠죠?"). Each card now has
``topics.daily`` lines; wording below is new.
"""

from __future__ import annotations

import pytest

from vignette_lab.core.personas import load_personas
from vignette_lab.engines.client_reading import read_topic
from tests.test_client_si_forms import _client


@pytest.mark.parametrize("line", ["요새 어떻게 지내요?", "지난주는 어떻게 보냈어?", "이번 주 어땠어요?", "그동안 잘 지냈어?",
                                  "별일 없었어요?", "요즘 어때ㅎㅎ"])
def test_how_have_you_been_is_the_daily_topic(line):
    assert read_topic(line) == "daily"


@pytest.mark.parametrize(("line", "topic"), [("요즘 기분은 어때?", "feelings"), ("요즘 잠은 어때요?", "sleep"),
                                             ("학교 생활은 어때?", "school")])
def test_a_named_topic_still_wins(line, topic):
    assert read_topic(line) == topic


def test_every_card_has_daily_lines_and_they_are_used():
    cards = load_personas()
    for code, card in cards.items():
        daily = card.script["topics"]["daily"]
        assert len(daily) >= 3, code
        hits = 0
        for seed in range(6):
            out = _client(code, [("안녕하세요.", "네, 안녕하세요.")], "요즘 어떻게 지내?", seed=seed, openness=0.4)
            hits += any(line in out.text for line in daily)
        assert hits >= 2, code
