"""Self-play page: a real (small) batch through run_selfplay on DuckDB, then browsing it."""

from __future__ import annotations

from vignette_lab.app.selfplay_page import SelfPlayPage, engine_line, selfplay_sessions_frame
from vignette_lab.app.stores import SelfPlayStore
from vignette_lab.engines.scripted import ScriptedEngine


def test_run_and_browse_selfplay(duck_db):
    page = SelfPlayPage(SelfPlayStore(duck_db), engine=ScriptedEngine(seed=2))
    assert "scripted" in page.engine_label
    page.personas = ["P4", "P1"]
    page.sessions, page.turns, page.seed = 1, 3, 11
    seen = []
    results = page.run(on_progress=seen.append)
    assert len(results) == 2 and page._progress.max == 2 * 1 * 3
    assert seen == sorted(seen) and seen[-1] == 6 and {1, 2, 3, 4, 5} <= set(seen)  # moves per turn
    assert "P4" in page._status.object and "탐색 이상" in page._status.object
    frame = selfplay_sessions_frame(SelfPlayStore(duck_db))
    assert set(frame["persona"]) == {"P1", "P4"} and len(frame) == 2
    turns = page.show_session(frame.iloc[0]["session_id"])
    assert list(turns.columns) == ["seq", "speaker", "text", "intended_technique", "stage", "openness"]
    assert len(turns) == 6 and set(turns["speaker"]) == {"상담자", "내담자"}
    counselor = turns[turns["speaker"] == "상담자"]
    assert (counselor["intended_technique"] != "").all()
    assert turns["stage"].isin(["라포", "탐색", "개입", "정리"]).all()


def test_run_needs_a_persona(duck_db):
    page = SelfPlayPage(SelfPlayStore(duck_db), engine=ScriptedEngine(seed=2))
    page.personas = []
    assert page.run() is None and "페르소나" in page._status.object


def test_researcher_tables_show_korean_labels_with_codes():
    from vignette_lab.app.agreement_page import _checks_rows
    from vignette_lab.app.selfplay_page import _technique_label

    assert _technique_label("reflection_feelings") == "감정 반영 (reflection_feelings)"
    assert _technique_label("not_a_code") == "not_a_code" and _technique_label(None) == ""
    rows = _checks_rows([{"name": "scores.empathy.icc2", "value": 0.9, "threshold": 0.75, "passed": True},
                         {"name": "techniques.macro_kappa", "value": 0.5, "threshold": 0.6, "passed": False}])
    assert rows[0]["name"] == "점수 공감 ICC2 (scores.empathy.icc2)" and rows[0]["passed"] == "통과"
    assert rows[1]["name"] == "기법 평균 κ (techniques.macro_kappa)" and rows[1]["passed"] == "미달"
    # per-field checks of the taxonomy gate (three outcomes)
    rows = _checks_rows([{"name": "empathy", "value": 0.8, "threshold": 0.75, "passed": False,
                          "outcome": "inconclusive"},
                         {"name": "techniques", "value": 0.7, "threshold": 0.6, "passed": True, "outcome": "pass"}])
    assert rows[0]["name"] == "점수 공감 (empathy)" and rows[0]["passed"] == "판단 보류"
    assert rows[1]["name"] == "기법 (techniques)" and rows[1]["passed"] == "통과"


def test_engine_line_is_korean_with_the_setting_secondary():
    from vignette_lab.config import Settings
    from vignette_lab.engines import engine_status

    for status in (engine_status(Settings(engine="auto", anthropic_api_key=None)),
                   {"active": "anthropic", "reason": "anthropic (auto: ANTHROPIC_API_KEY set)"},
                   {"active": "scripted", "reason": "scripted (VIGNETTE_ENGINE=scripted)"}):
        line = engine_line(status)
        outside = line.split("(")[0] + "".join(part.split(")", 1)[-1] for part in line.split("(")[1:])
        assert "not set" not in line and "offline default" not in line, line
        assert not any(w in outside for w in ("scripted", "anthropic", "ANTHROPIC_API_KEY", "set")), line
    assert engine_line({"active": "scripted", "reason": "scripted (offline default: ANTHROPIC_API_KEY not set)"}) \
        == "활성 엔진: 오프라인 스크립트 엔진 (scripted) · 오프라인 기본값: API 키가 없어 스크립트 엔진을 씁니다 " \
           "(ANTHROPIC_API_KEY 없음)"
