"""Longitudinal learner analytics: per-dimension growth across a learner's sessions.

Each *ended* session of a learner is reduced to the mean fast-loop score per dimension
(``app.turn_evaluation.scores``, 0–5: empathy, open_questions, validation, theory_fit). Over
the learner's sessions in time order:

- **level**: EWMA with α = 0.4 (``ewma_t = α·x_t + (1-α)·ewma_{t-1}``, started at ``x_1``);
- **growth speed**: least-squares slope of the session means over the last 6 sessions
  (score points per session);
- **persistent gaps**: dimensions below ``gap_bar`` (default 2.5) in each of the last 3
  consecutive sessions.

Results go to ``app.learner_profile`` (seed 004 §3.7). :func:`classify_growth` separates
"good but flat" from "weak but growing" learners. Who may read what: faculty and researchers
see a cohort; a trainee sees only their own curves (:class:`~vignette_lab.errors.PermissionDenied`
otherwise) — pass ``principal=(role, user_id)``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pandas as pd

from vignette_lab.errors import InputError, PermissionDenied
from vignette_lab.store import app_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = [
    "ALPHA",
    "DIMENSIONS",
    "GAP_BAR",
    "GROWTH_THRESHOLDS",
    "SLOPE_WINDOW",
    "classify_growth",
    "growth_curves",
    "learner_profile",
    "session_scores",
    "update_all_profiles",
    "update_learner_profile",
]

ALPHA = 0.4
SLOPE_WINDOW = 6
GAP_BAR = 2.5
GAP_RUN = 3
DIMENSIONS = ("empathy", "open_questions", "validation", "theory_fit")
# Working values on the 0–5 scale, not validated against human ratings. On scripted self-play
# with the rule-based evaluator (P4, 5 turns, 8 sessions) a constantly skilled counselor levels
# at ≈ 2.9 with mean slope ≈ 0.03 ("weak and flat" under these bars) and a novice → improving →
# skilled learner ends at ≈ 2.8 with slope ≈ 0.18 ("weak but growing").
GROWTH_THRESHOLDS = {"high_level": 3.0, "flat_slope": 0.05, "growing_slope": 0.10}
_KEY = re.compile(r"^[a-z_][a-z0-9_]*$")
_STAFF = ("faculty", "researcher", "admin")


def _check_principal(principal: Any, learners: Sequence[str] | None) -> list[str] | None:
    """Trainees may only ask for themselves; returns the learner filter to apply."""
    if principal is None:
        return list(learners) if learners is not None else None
    if not isinstance(principal, (tuple, list)) or len(principal) != 2:
        raise InputError(f"principal must be (role, user_id). Got {principal!r} instead.", field="principal")
    role, uid = principal
    if role in _STAFF:
        return list(learners) if learners is not None else None
    if role != "trainee":
        raise InputError(f"principal role must be trainee, faculty, researcher or admin. Got {role!r}.",
                         field="principal")
    asked = list(learners) if learners is not None else [uid]
    others = [x for x in asked if x != uid]
    if others:
        raise PermissionDenied(f"trainee {uid!r} may only view their own growth, not {others[0]!r}")
    return [uid]


def session_scores(db: Database, *, learners: Sequence[str] | None = None, cohort: str | None = None,
                   dimensions: Sequence[str] = DIMENSIONS, principal: Any = None) -> pd.DataFrame:
    """Per ended session, the mean fast-loop score of each dimension (long format).

    Returns
    -------
    pandas.DataFrame
        ``learner``, ``session_id``, ``started_at``, ``session_no`` (1, 2, … per learner in
        time order), ``dimension``, ``score`` (mean over the session's evaluated turns).
    """
    learners = _check_principal(principal, learners)
    for d in dimensions:
        if not _KEY.match(d):
            raise InputError(f"score dimension {d!r} is not a plain identifier", field="dimensions")
    rows = app_repo.session_dimension_means(db, list(dimensions), learners=learners, cohort=cohort)
    wide = pd.DataFrame(rows, columns=["learner", "session_id", "started_at", *dimensions])
    if wide.empty:
        return pd.DataFrame(columns=["learner", "session_id", "started_at", "session_no", "dimension", "score"])
    wide = wide.sort_values(["learner", "started_at", "session_id"])
    wide["session_no"] = wide.groupby("learner").cumcount() + 1
    long = wide.melt(id_vars=["learner", "session_id", "started_at", "session_no"], value_vars=list(dimensions),
                     var_name="dimension", value_name="score").dropna(subset=["score"])
    return long.sort_values(["learner", "dimension", "session_no"]).reset_index(drop=True)


def _ewma(values: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    out = np.empty_like(values, dtype=float)
    level = values[0]
    for i, v in enumerate(values):
        level = v if i == 0 else alpha * v + (1 - alpha) * level
        out[i] = level
    return out


def _slope(values: np.ndarray) -> float:
    tail = values[-SLOPE_WINDOW:]
    if len(tail) < 2:
        return 0.0
    x = np.arange(len(tail), dtype=float)
    return float(np.polyfit(x, tail, 1)[0])


def growth_curves(db: Database, *, learners: Sequence[str] | None = None, cohort: str | None = None,
                  principal: Any = None, dimensions: Sequence[str] = DIMENSIONS) -> pd.DataFrame:
    """Growth curves of learners: session means and their EWMA per dimension.

    Parameters
    ----------
    db : Database
    learners : sequence of str, default=None
        Learners to include (all when None and the principal is staff).
    cohort : str, default=None
        Only sessions of this cohort.
    principal : (role, user_id), default=None
        A ``trainee`` may only ask for their own id (:class:`PermissionDenied` otherwise);
        ``faculty``/``researcher``/``admin`` see everyone. None means trusted library use.

    Returns
    -------
    pandas.DataFrame
        ``learner``, ``session_no``, ``dimension``, ``score``, ``ewma``, ``session_id``, ``started_at``.

    Examples
    --------
    >>> curves = growth_curves(db, cohort="2026-fall")            # doctest: +SKIP
    >>> curves.pivot_table(index="session_no", columns="dimension", values="ewma")  # doctest: +SKIP
    """
    long = session_scores(db, learners=learners, cohort=cohort, dimensions=dimensions, principal=principal)
    if long.empty:
        return pd.DataFrame(columns=["learner", "session_no", "dimension", "score", "ewma", "session_id",
                                     "started_at"])
    long["ewma"] = long.groupby(["learner", "dimension"])["score"].transform(
        lambda s: pd.Series(_ewma(s.to_numpy(dtype=float)), index=s.index))
    return long[["learner", "session_no", "dimension", "score", "ewma", "session_id", "started_at"]]


def _profile_from(curves: pd.DataFrame, learner: str, *, gap_bar: float) -> dict[str, Any]:
    part = curves[curves["learner"] == learner]
    ewma, slope, gaps = {}, {}, []
    for dim, g in part.groupby("dimension"):
        g = g.sort_values("session_no")
        scores = g["score"].to_numpy(dtype=float)
        ewma[dim] = round(float(g["ewma"].iloc[-1]), 4)
        slope[dim] = round(_slope(scores), 4)
        if len(scores) >= GAP_RUN and bool((scores[-GAP_RUN:] < gap_bar).all()):
            gaps.append(dim)
    count = int(part["session_id"].nunique()) if not part.empty else 0
    return {"learner_id": learner, "dim_ewma": ewma, "dim_slope": slope, "persistent_gaps": sorted(gaps),
            "session_count": count}


def update_learner_profile(db: Database, learner_id: str, *, gap_bar: float = GAP_BAR) -> dict[str, Any]:
    """Recompute ``app.learner_profile`` for one learner from their ended sessions.

    Parameters
    ----------
    db : Database
    learner_id : str
    gap_bar : float, default=2.5
        A dimension below this in each of the last 3 sessions is a persistent gap.

    Returns
    -------
    dict
        ``learner_id``, ``dim_ewma`` and ``dim_slope`` ({dimension: value}),
        ``persistent_gaps`` (list), ``session_count``.
    """
    if not learner_id:
        raise InputError("learner_id is required", field="learner_id")
    curves = growth_curves(db, learners=[learner_id])
    prof = _profile_from(curves, learner_id, gap_bar=gap_bar)
    app_repo.replace_learner_profile(db, learner_id, dim_ewma=prof["dim_ewma"], dim_slope=prof["dim_slope"],
                                     persistent_gaps=prof["persistent_gaps"], session_count=prof["session_count"])
    return prof


def update_all_profiles(db: Database, *, cohort: str | None = None, progress: bool = False) -> int:
    """Update the profile of every learner with an ended session; returns how many."""
    learners = app_repo.learners_with_ended_sessions(db, cohort=cohort)
    it = learners
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(learners, desc="learner profiles", unit="learner")
    for lid in it:
        update_learner_profile(db, lid)
    return len(learners)


def learner_profile(db: Database, learner_id: str, *, principal: Any = None) -> dict[str, Any] | None:
    """The stored ``app.learner_profile`` row (None when never computed)."""
    _check_principal(principal, [learner_id])
    return app_repo.get_learner_profile(db, learner_id)


def classify_growth(profile: Mapping[str, Any], *, high_level: float = GROWTH_THRESHOLDS["high_level"],
                    flat_slope: float = GROWTH_THRESHOLDS["flat_slope"],
                    growing_slope: float = GROWTH_THRESHOLDS["growing_slope"]) -> str:
    """Label a learner profile by level and growth speed.

    level = mean of ``dim_ewma``; speed = mean of ``dim_slope`` (points per session).

    ============================  ================================================
    label                         rule
    ============================  ================================================
    ``"good but flat"``           level ≥ ``high_level`` and |speed| ≤ ``flat_slope``
    ``"weak but growing"``        level < ``high_level`` and speed ≥ ``growing_slope``
    ``"good and growing"``        level ≥ ``high_level`` and speed ≥ ``growing_slope``
    ``"declining"``               speed ≤ −``growing_slope``
    ``"weak and flat"``           level < ``high_level`` and |speed| ≤ ``flat_slope``
    ``"mixed"``                   anything else (slow drift between the bands)
    ============================  ================================================

    Thresholds are working values on the 0–5 scale (see :data:`GROWTH_THRESHOLDS`), not
    validated cut-offs. Fewer than 3 sessions gives ``"insufficient data"``.

    Examples
    --------
    >>> classify_growth({"dim_ewma": {"empathy": 3.6}, "dim_slope": {"empathy": 0.01}, "session_count": 8})
    'good but flat'
    >>> classify_growth({"dim_ewma": {"empathy": 2.1}, "dim_slope": {"empathy": 0.3}, "session_count": 8})
    'weak but growing'
    """
    if int(profile.get("session_count") or 0) < 3:
        return "insufficient data"
    ew, sl = dict(profile.get("dim_ewma") or {}), dict(profile.get("dim_slope") or {})
    if not ew or not sl:
        return "insufficient data"
    level, speed = float(np.mean(list(ew.values()))), float(np.mean(list(sl.values())))
    if speed <= -growing_slope:
        return "declining"
    if level >= high_level:
        if abs(speed) <= flat_slope:
            return "good but flat"
        if speed >= growing_slope:
            return "good and growing"
        return "mixed"
    if speed >= growing_slope:
        return "weak but growing"
    if abs(speed) <= flat_slope:
        return "weak and flat"
    return "mixed"
