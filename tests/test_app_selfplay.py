"""Self-play page: a real (small) batch through run_selfplay on DuckDB, then browsing it."""

from __future__ import annotations

from vignette_lab.app.selfplay_page import SelfPlayPage, selfplay_sessions_frame
from vignette_lab.engines.scripted import ScriptedEngine


def test_run_and_browse_selfplay(duck_db):
    page = SelfPlayPage(duck_db, engine=ScriptedEngine(seed=2))
    assert "scripted" in page.engine_label
    page.personas = ["P4", "P1"]
    page.sessions, page.turns, page.seed = 1, 3, 11
    seen = []
    results = page.run(on_progress=seen.append)
    assert len(results) == 2 and page._progress.max == 2 * 1 * 3
    assert seen == sorted(seen) and seen[-1] == 6 and {1, 2, 3, 4, 5} <= set(seen)  # moves per turn
    assert "P4" in page._status.object and "탐색 이상" in page._status.object
    frame = selfplay_sessions_frame(duck_db)
    assert set(frame["persona"]) == {"P1", "P4"} and len(frame) == 2
    turns = page.show_session(frame.iloc[0]["session_id"])
    assert list(turns.columns) == ["seq", "speaker", "text", "intended_technique", "stage", "openness"]
    assert len(turns) == 6 and set(turns["speaker"]) == {"상담자", "내담자"}
    counselor = turns[turns["speaker"] == "상담자"]
    assert (counselor["intended_technique"] != "").all()
    assert turns["stage"].isin(["라포", "탐색", "개입", "정리"]).all()


def test_run_needs_a_persona(duck_db):
    page = SelfPlayPage(duck_db, engine=ScriptedEngine(seed=2))
    page.personas = []
    assert page.run() is None and "페르소나" in page._status.object
