"""The drift report: rates, similarity distributions, worst examples, label/model drift tables."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Sequence

import pandas as pd

from vignette_lab.analytics.drift.checks import CHECKS, DEFAULT_THRESHOLD, THRESHOLD_NOTE
from vignette_lab.analytics.drift.scan import _check_of
from vignette_lab.analytics.label_drift import agreement_over_time, flag_label_rate_shift, label_distribution_shift
from vignette_lab.errors import InputError
from vignette_lab.store import app_repo, audit_repo, ds_repo

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["DriftReport", "drift_report", "label_drift_tables"]

@dataclass
class DriftReport:
    """Summary of ``audit.persona_drift_log`` plus label/model drift over annotation rounds.

    Attributes
    ----------
    rates : DataFrame
        One row per group (``by`` columns): ``client_turns``, ``flagged_turns``, ``flag_rate``,
        ``warn``, ``block`` and one count column per check.
    sim_distribution : DataFrame
        Quantiles of the logged ``embedding_sim`` per group (flagged utterances only).
    examples : DataFrame
        Worst findings (blocks first, then lowest similarity) with masked excerpts.
    label_shift, model_flags, agreement : DataFrame
        From :mod:`~vignette_lab.analytics.label_drift` (empty without annotation rounds).
    threshold, threshold_note : float, str
    """

    by: tuple[str, ...]
    rates: pd.DataFrame
    sim_distribution: pd.DataFrame
    examples: pd.DataFrame
    label_shift: pd.DataFrame
    model_flags: pd.DataFrame
    agreement: pd.DataFrame
    threshold: float = DEFAULT_THRESHOLD
    threshold_note: str = THRESHOLD_NOTE
    generated_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


_BY = ("persona", "engine", "model", "mode", "counselor_profile")
_COL = {"persona": "persona_code", "engine": "engine", "model": "model", "mode": "mode",
        "counselor_profile": "counselor_profile"}


def drift_report(db: Database, *, by: Sequence[str] = ("persona", "engine", "model"), max_examples: int = 10,
                 rate_bound: float = 0.10, threshold: float = DEFAULT_THRESHOLD) -> DriftReport:
    """Drift rates, similarity distributions, worst examples and label/model drift tables.

    Parameters
    ----------
    db : Database
    by : sequence of str, default=('persona', 'engine', 'model')
        Grouping of the persona drift tables; any of ``persona``, ``engine``, ``model``,
        ``mode``, ``counselor_profile``.
    max_examples : int, default=10
    rate_bound : float, default=0.10
        Absolute label-rate change between consecutive model versions that is flagged.
    threshold : float, default=0.79
        Shown with its note; an unvalidated working value (seed 004 M14).

    Returns
    -------
    DriftReport
    """
    bad = [b for b in by if b not in _BY]
    if bad or not by:
        raise InputError(f"The 'by' parameter of drift_report takes {', '.join(_BY)}. Got {list(by)!r}.", field="by")
    cols = [_COL[b] for b in by]
    turns = pd.DataFrame(app_repo.client_turn_counts(db, cols), columns=cols + ["client_turns"])
    log = pd.DataFrame(audit_repo.drift_log_with_session_fields(db, cols),
        columns=cols + ["turn_id", "drift_type", "severity", "embedding_sim", "detail", "session_id"])
    if not log.empty:
        log["check"] = [_check_of(r) for r in log.to_dict("records")]
    else:
        log["check"] = pd.Series(dtype=str)
    for frame in (turns, log):
        for c in cols:
            frame[c] = frame[c].fillna("(none)").astype(str)
    rates = turns.copy()
    if log.empty:
        for c in ("flagged_turns", "warn", "block", *CHECKS):
            rates[c] = 0
    else:
        g = log.groupby(cols)
        agg = g["turn_id"].nunique().rename("flagged_turns").to_frame()
        for sev in ("warn", "block"):
            agg[sev] = g["severity"].apply(lambda s, sev=sev: int((s == sev).sum()))
        for chk in CHECKS:
            agg[chk] = g["check"].apply(lambda s, chk=chk: int((s == chk).sum()))
        rates = rates.merge(agg.reset_index(), on=cols, how="left").fillna(0)
    for c in ("flagged_turns", "warn", "block", *CHECKS):
        rates[c] = rates[c].astype(int)
    rates["flag_rate"] = rates["flagged_turns"] / rates["client_turns"].where(rates["client_turns"] > 0)
    rates = rates[cols + ["client_turns", "flagged_turns", "flag_rate", "warn", "block", *CHECKS]]
    sims = log.dropna(subset=["embedding_sim"])
    if sims.empty:
        sim_dist = pd.DataFrame(columns=cols + ["n", "min", "p05", "median", "p95", "max"])
    else:
        sim_dist = sims.groupby(cols)["embedding_sim"].agg(
            n="count", min="min", p05=lambda s: s.quantile(0.05), median="median",
            p95=lambda s: s.quantile(0.95), max="max").reset_index()
    if log.empty:
        examples = pd.DataFrame(columns=cols + ["session_id", "seq", "check", "severity", "embedding_sim", "excerpt"])
    else:
        ex = log.assign(seq=[(d or {}).get("seq") for d in log["detail"]],
                        excerpt=[(d or {}).get("excerpt", "") for d in log["detail"]],
                        _block=(log["severity"] == "block").astype(int),
                        _sim=log["embedding_sim"].fillna(2.0))
        examples = ex.sort_values(["_block", "_sim"], ascending=[False, True]).head(max_examples)[
            cols + ["session_id", "seq", "check", "severity", "embedding_sim", "excerpt"]].reset_index(drop=True)
    shift, flags, agreement = label_drift_tables(db, bound=rate_bound)
    rates = rates.sort_values(cols)
    return DriftReport(tuple(by), rates.reset_index(drop=True), sim_dist, examples, shift, flags, agreement,
                       threshold=threshold)


def _annotations(db: Database) -> pd.DataFrame:
    rows = ds_repo.proposed_ai_annotations(db)
    return pd.DataFrame(rows, columns=["item_id", "annotator_id", "techniques", "created_at", "round_id",
                                       "round_at", "engine", "model"])


def label_drift_tables(db: Database, *, bound: float = 0.10) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Label/model drift over AI annotation rounds (techniques, multi-label).

    Returns
    -------
    tuple of DataFrame
        ``(shift, flags, agreement)``: :func:`label_distribution_shift` between consecutive AI
        rounds (ordered by creation time), :func:`flag_label_rate_shift` between consecutive
        engine/model versions (ordered by first use) with ``bound``, and
        :func:`agreement_over_time` of each AI annotator against the latest golden set per day.
        Empty frames when there is nothing to compare.
    """
    ann = _annotations(db)
    empty = pd.DataFrame()
    if ann.empty:
        return empty, empty, empty
    ann["techniques"] = [list(t or []) for t in ann["techniques"]]
    order = ann.groupby("round_id")["round_at"].min().sort_values()
    ann["round"] = ann["round_id"].map({rid: f"{i + 1:03d}:{rid[:8]}" for i, rid in enumerate(order.index)})
    shift = label_distribution_shift(ann, group_col="round", label_col="techniques") \
        if ann["round"].nunique() > 1 else empty
    ann["version_name"] = ann["engine"].fillna("?") + "/" + ann["model"].fillna("?")
    first = ann.groupby("version_name")["round_at"].min().sort_values()
    ann["version"] = ann["version_name"].map({v: f"{i + 1:02d}:{v}" for i, v in enumerate(first.index)})
    flags = flag_label_rate_shift(ann, version_col="version", label_col="techniques", bound=bound) \
        if ann["version"].nunique() > 1 else empty
    gold = ds_repo.golden_labels(db)
    gold_map = {r["item_id"]: list((r["labels"] or {}).get("techniques") or []) for r in gold}
    joined = ann[ann["item_id"].isin(gold_map)].copy()
    agreement = empty
    if not joined.empty:
        joined["gold"] = joined["item_id"].map(gold_map)
        joined["day"] = pd.to_datetime(joined["round_at"], utc=True).dt.strftime("%Y-%m-%d")
        agreement = agreement_over_time(joined, time_col="day", annotator_col="annotator_id", gold_col="gold",
                                        pred_col="techniques")
    return shift, flags, agreement
