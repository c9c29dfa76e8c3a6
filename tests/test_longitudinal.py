"""Longitudinal learner analytics: EWMA, slopes, gaps, classification, who may see what."""

from __future__ import annotations

import shutil
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from vignette_lab.analytics import longitudinal as L
from vignette_lab.errors import InputError, PermissionDenied
from vignette_lab.store import app_repo, connect


def _scored_session(db, learner, day, scores, *, cohort="c1"):
    case = app_repo.ensure_case_profile(db, "P1", learner)
    sid = str(uuid.uuid4())
    t0 = datetime(2026, 9, 1, tzinfo=timezone.utc) + timedelta(days=day)
    app_repo.insert_session(db, session_id=sid, case_id=case["case_id"], learner_id=learner, cohort=cohort,
                            persona_code="P1", persona_version=1, mode="live", engine="scripted", model="scripted",
                            session_no=day + 1, status="ended", started_at=t0, ended_at=t0, seed=0,
                            review_status="ready", meta={})
    for i, value in enumerate(scores):
        tid = app_repo.insert_turn(db, session_id=sid, case_id=case["case_id"], seq=i + 1, speaker="counselor",
                                   text_masked="어떤 마음이었어요?", visible_to=["counselor", "evaluator"])
        db.execute("INSERT INTO app.turn_evaluation (eval_id, turn_id, session_id, scores, engine) "
                   f"VALUES (?, ?, ?, {db.dialect.json_param()}, 'scripted')",
                   [str(uuid.uuid4()), tid, sid, {d: value for d in L.DIMENSIONS}])
    return sid


def test_profile_math_on_known_series(db):
    series = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 5.0]
    for day, v in enumerate(series):
        _scored_session(db, "grow", day, [v, v])
    for day in range(7):
        _scored_session(db, "flat", day, [3.8, 3.6])
    prof = L.update_learner_profile(db, "grow")
    ewma = series[0]
    for v in series[1:]:
        ewma = 0.4 * v + 0.6 * ewma
    assert prof["dim_ewma"]["empathy"] == pytest.approx(ewma, abs=1e-4)
    assert prof["dim_slope"]["empathy"] == pytest.approx(np.polyfit(np.arange(6), series[-6:], 1)[0], abs=1e-4)
    assert prof["session_count"] == 7 and prof["persistent_gaps"] == []
    flat = L.update_learner_profile(db, "flat")
    assert flat["dim_slope"]["empathy"] == pytest.approx(0.0, abs=1e-9)
    assert L.classify_growth(flat) == "good but flat"
    assert L.classify_growth(prof) in ("good and growing", "weak but growing")
    stored = db.fetchone("SELECT * FROM app.learner_profile WHERE learner_id = ?", ["grow"])
    assert stored["session_count"] == 7 and stored["dim_ewma"]["empathy"] == pytest.approx(ewma, abs=1e-4)
    L.update_learner_profile(db, "grow")  # replaces, never duplicates
    assert db.scalar("SELECT count(*) FROM app.learner_profile WHERE learner_id = 'grow'") == 1


def test_persistent_gap_and_views(duck_db):
    for day, v in enumerate([3.0, 2.0, 2.2, 1.8]):
        _scored_session(duck_db, "gap", day, [v])
    for day in range(2):
        _scored_session(duck_db, "other", day, [4.0], cohort="c2")
    assert L.update_learner_profile(duck_db, "gap")["persistent_gaps"] == list(sorted(L.DIMENSIONS))
    curves = L.growth_curves(duck_db, cohort="c1")
    assert set(curves["learner"]) == {"gap"} and list(curves.columns[:5]) == [
        "learner", "session_no", "dimension", "score", "ewma"]
    own = L.growth_curves(duck_db, principal=("trainee", "gap"))
    assert set(own["learner"]) == {"gap"}
    with pytest.raises(PermissionDenied):
        L.growth_curves(duck_db, learners=["other"], principal=("trainee", "gap"))
    with pytest.raises(PermissionDenied):
        L.learner_profile(duck_db, "other", principal=("trainee", "gap"))
    assert set(L.growth_curves(duck_db, principal=("faculty", "prof-kim"))["learner"]) == {"gap", "other"}
    with pytest.raises(InputError, match="principal"):
        L.growth_curves(duck_db, principal="gap")
    assert L.classify_growth({"dim_ewma": {"empathy": 3}, "dim_slope": {"empathy": 0}, "session_count": 2}) \
        == "insufficient data"


@pytest.mark.slow
def test_improving_vs_flat_selfplay(tmp_path, _duck_template):
    """Done-when: an improving learner (novice → improving → skilled) vs a flat skilled one."""
    from vignette_lab.session.selfplay import run_selfplay

    path = tmp_path / "growth.duckdb"
    shutil.copyfile(_duck_template, path)
    db = connect(str(path))
    plan = ["novice"] * 3 + ["improving"] * 2 + ["skilled"] * 3
    for i, profile in enumerate(plan):
        run_selfplay(db, personas=("P4",), counselor=profile, sessions=1, turns=8, seed=100 + i,
                     learner_id="L-grow", progress=False)
        run_selfplay(db, personas=("P4",), counselor="skilled", sessions=1, turns=8, seed=200 + i,
                     learner_id="L-flat", progress=False)
    grow, flat = L.update_learner_profile(db, "L-grow"), L.update_learner_profile(db, "L-flat")
    assert grow["session_count"] == flat["session_count"] == 8
    mean_slope = lambda p: float(np.mean(list(p["dim_slope"].values())))  # noqa: E731
    # 2026-12-01: 0.114 vs 0.074 (was ≈ 0.18 vs 0.03). The listening self-play counselor and client
    # make a skilled counselor's later sessions of a case score higher too (the client opens up),
    # so the gap is smaller; the classification below still tells the two learners apart.
    # Fifth session: the self-play counselor now opens every session with a greeting, so a 5-turn
    # session kept only 4 scored moves and the growth fell under the "growing" band (0.05 vs 0.00);
    # with 8 turns per session the slopes are 0.162 vs -0.028.
    assert mean_slope(grow) > mean_slope(flat) + 0.02
    assert L.classify_growth(grow) != L.classify_growth(flat)
    assert L.classify_growth(grow) == "weak but growing"
    curves = L.growth_curves(db)
    assert curves.groupby("learner")["session_no"].max().to_dict() == {"L-flat": 8, "L-grow": 8}
    db.close()
