"""Per-turn cost, fourth pass (issue 12 round 7): the DuckDB thread knob (default: DuckDB's own), the self-play counselor
reads a bank line's claim words only where a rule uses them (same lines chosen)."""

from __future__ import annotations

import pytest

from vignette_lab.engines import scripted_counselor as sc
from vignette_lab.errors import InputError
from vignette_lab.store import duck
from vignette_lab.store.duck import DuckDatabase


def _threads(db: DuckDatabase) -> int:
    with db.pinned():
        return int(db.scalar("SELECT current_setting('threads')"))


def test_by_default_duckdb_keeps_its_own_thread_count(tmp_path, monkeypatch):
    import duckdb

    monkeypatch.delenv("VIGNETTE_DUCKDB_THREADS", raising=False)
    own = int(duckdb.connect(":memory:").execute("SELECT current_setting('threads')").fetchone()[0])
    assert _threads(DuckDatabase(tmp_path / "a.duckdb")) == own
    assert _threads(DuckDatabase(":memory:")) == own


def test_one_worker_thread_for_a_machine_that_only_serves_sessions(tmp_path, monkeypatch):
    monkeypatch.setenv("VIGNETTE_DUCKDB_THREADS", "1")
    assert _threads(DuckDatabase(tmp_path / "c.duckdb")) == 1
    assert _threads(DuckDatabase(":memory:")) == 1


def test_the_thread_count_can_be_set(tmp_path, monkeypatch):
    monkeypatch.setenv("VIGNETTE_DUCKDB_THREADS", "2")
    assert _threads(DuckDatabase(tmp_path / "b.duckdb")) == 2


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_thread_count_is_one_clear_error(tmp_path, monkeypatch, value):
    monkeypatch.setenv("VIGNETTE_DUCKDB_THREADS", value)
    with pytest.raises(InputError, match="VIGNETTE_DUCKDB_THREADS must be a whole number >= 1"):
        duck._threads()


def _eager_fits(self, line: str, technique: str) -> bool:
    """The fit rules as they were before round 7 (claim words read for every line)."""
    if not self.lines or self.silent:
        if sc.PRESUPPOSES_TALK.search(line):
            return False
    for quoted in sc._QUOTED.findall(line):
        stems = sc._lemmas(quoted) - {"하", "되", "있"}
        if stems and not all(sc._grounded(w, self.heard) for w in stems):
            return False
    claims = sc._claim_words(line)
    if technique in sc._CLAIMING or sc.REPORTS_CLIENT.search(line):
        if not self.lines or any(not sc._grounded(w, self.heard) for w in claims):
            return False
        if technique == "restatement" and claims and not any(sc._grounded(w, self.recent) for w in claims):
            return False
        if technique == "restatement" and not claims and (self.nouns or self.feeling_heard):
            return False
    if line.rstrip().endswith("?") and claims and self.lines and not self.silent:
        return any(sc._grounded(w, self.recent) for w in claims)
    return True


CLIENT = ["음… 엄마는 맨날 늦게 들어와요. 들어오면 성적 얘기부터 해요.", "시험 기간엔 잠을 거의 못 자요.", "…별로요."]
LINES = ["성적 때문에 많이 힘들었겠어요.", "엄마가 늦게 들어오신다고 했죠?", "잠은 몇 시간 자요?", "요즘 기분은 어때요?",
         "시험 이야기를 조금 더 해 줄래요?", "그 일 이후로 계속 혼자 지냈다는 거네요.", "괜찮다고 했지만 힘들었겠어요.",
         "오늘 와 줘서 고마워요.", "친구들 이야기를 해 볼까요?"]
TECHNIQUES = ["restatement", "reflection_feeling", "open_question", "closed_question", "validation", "challenge",
              "interpretation", "information"]


@pytest.mark.parametrize("said", [CLIENT, CLIENT[:1], [], ["(고개를 숙인다)"]])
def test_lazy_claim_words_give_the_same_fit_answers(said):
    reading = sc._Reading(list(said))
    for line in LINES:
        for technique in TECHNIQUES:
            assert reading.fits(line, technique) == _eager_fits(reading, line, technique), (line, technique)
