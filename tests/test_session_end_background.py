"""Issue 16: ``end(background=True)`` stores the end at once and fills the review in later."""

from __future__ import annotations

import threading

from test_session_service import TWENTY, DeepFails, _svc
from vignette_lab.engines.scripted import ScriptedEngine
from vignette_lab.errors import PermissionDenied
from vignette_lab.session.service import SessionService
from vignette_lab.store import app_repo

import pytest


class SlowDeep(ScriptedEngine):
    """Scripted evaluator whose deep loop waits for the test to let it go."""

    def __init__(self, gate: threading.Event):
        super().__init__(seed=7)
        self.gate = gate

    def generate(self, request):
        if request.metadata.get("task") == "session_evaluation":
            assert self.gate.wait(60)
        return super().generate(request)


def test_background_end_is_pending_then_ready(duck_db):
    gate = threading.Event()
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7), evaluator_engine=SlowDeep(gate))
    info = svc.start("P6", goal_stages=("라포",))
    for line in TWENTY[:3]:
        svc.send(info.session_id, line)
    review = svc.end(info.session_id, background=True)
    # the end is stored before the deep loop: status ended, review pending, nothing evaluated yet
    assert review.status == "pending" and review.strengths == () and review.rationale == ""
    # … but the fast part is there at once: every turn's fast evaluation and their technique counts
    assert len(review.turn_evaluations) == 3
    assert sum(review.technique_distribution["counts"].values()) == sum(
        len(e["techniques"]) for e in review.turn_evaluations)
    assert svc.review(info.session_id).status == "pending"
    assert not svc.wait_deep(info.session_id, timeout=0.05)
    gate.set()
    assert svc.wait_deep(info.session_id, timeout=60)
    done = svc.review(info.session_id)
    assert [e["turn_seq"] for e in review.turn_evaluations] == [e["turn_seq"] for e in done.turn_evaluations]
    assert done.status == "ready" and done.strengths and len(done.turn_evaluations) == 3
    assert svc.get(info.session_id).status == "ended"
    assert app_repo.get_session_summary(duck_db, info.session_id)["digest"]


def test_background_end_failure_is_degraded_and_owner_checked(duck_db):
    svc = SessionService(duck_db, engine=ScriptedEngine(seed=7), evaluator_engine=DeepFails())
    info = svc.start("P5", learner_id="learner-a")
    svc.send(info.session_id, TWENTY[0])
    assert svc.end(info.session_id, background=True).status == "pending"
    with pytest.raises(PermissionDenied):  # pending or not, another learner is refused
        svc.review(info.session_id, learner_id="learner-b")
    assert svc.wait_deep(info.session_id, timeout=60)
    review = svc.review(info.session_id)
    assert review.status == "degraded" and review.error.startswith("engine_error")
    # the service keeps working after the worker
    again = _svc(duck_db).start("P5", learner_id="learner-a")
    assert again.session_no == 2
