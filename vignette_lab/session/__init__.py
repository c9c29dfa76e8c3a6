"""Counseling sessions: prompt layers, orchestrator, evaluator, live coach, memory, service, self-play.

Names are loaded lazily so that importing :mod:`vignette_lab.session.orchestrator` never
pulls in the evaluator (DESIGN rule 6: the orchestrator does not import what judges it).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "RecallContext",
    "SessionInfo",
    "SessionReview",
    "SessionService",
    "TurnOutcome",
    "build_client_messages",
    "evaluate_session",
    "evaluate_turn",
    "make_eval_hook",
    "prepare_turn",
    "run_selfplay",
    "run_turn",
    "run_turn_stream",
]

_WHERE = {
    "RecallContext": "layers", "build_client_messages": "layers",
    "prepare_turn": "orchestrator", "run_turn": "orchestrator", "run_turn_stream": "orchestrator",
    "evaluate_turn": "evaluator", "evaluate_session": "evaluator", "make_eval_hook": "evaluator",
    "SessionService": "service", "SessionInfo": "service", "SessionReview": "service", "TurnOutcome": "service",
    "run_selfplay": "selfplay",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"vignette_lab.session.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'vignette_lab.session' has no attribute {name!r}")
