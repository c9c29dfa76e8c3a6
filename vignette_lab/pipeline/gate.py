"""The agreement gate: measure inter-annotator agreement of a human round and decide.

What is measured, on the items that two or more reviewers labelled (the overlap subset):

- techniques and client state (multi-label): per-label binary κ — Cohen's κ when every
  overlap item has exactly two reviewers, Fleiss' κ otherwise — with bootstrap CIs and
  Krippendorff's α (nominal) alongside; the gate uses the macro mean over labels whose κ
  is defined (labels never or always used carry no information and are reported as NaN);
- appropriateness (pos/warn/neutral): Cohen/Fleiss κ with CI, α, raw agreement, and the
  pairwise confusion matrix for the report;
- each 0–5 score dimension: **ICC2** (two-way random effects, absolute agreement, single
  rater; Shrout & Fleiss 1979) with its F-based CI, and α (interval). ICC2 rather than
  ICC2k because most items are labelled by one reviewer only: the golden label of such an
  item is one reviewer's score, so the reliability that matters is a single rater's.

Reviewers differ between items, so raters are "slots": on each item, annotations are
ordered by reviewer id. The decision, thresholds and every number are stored in
``ds.gate_decision``; a failing gate blocks the golden set unless an override reason is
recorded.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from vignette_lab.errors import InputError
from vignette_lab import agreement as iaa
from vignette_lab.pipeline.adjudicate import group_by_item
from vignette_lab.pipeline.rounds import (
    APPROPRIATENESS,
    _dumps,
    _json,
    _new_id,
    _now,
    _pinned,
    effective_annotations,
    get_round,
    taxonomy_info,
)

__all__ = ["ICC_TYPE", "agreement_results", "gate", "get_gate"]

ICC_TYPE = "ICC2"


def _clean(value: Any) -> Any:
    """JSON-safe copy: NaN/inf -> None, numpy scalars -> Python."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (np.floating, float)):
        f = float(value)
        return None if math.isnan(f) or math.isinf(f) else f
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _nanmean(values: Sequence[float]) -> float:
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return float(np.mean(vals)) if vals else float("nan")


def _multilabel(groups: list[list[Mapping[str, Any]]], field: str, labels: Sequence[str], k: int,
                n_resamples: int, seed: int) -> dict[str, Any]:
    rows = []
    for label in labels:
        matrix = [[("yes" if label in a[field] else "no") for a in g[:k]] + [None] * (k - len(g[:k]))
                  for g in groups]
        prevalence = float(np.mean([v == "yes" for row in matrix for v in row if v is not None]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if k == 2:
                y1 = [r[0] for r in matrix]
                y2 = [r[1] for r in matrix]
                kappa = iaa.cohen_kappa(y1, y2, labels=["no", "yes"])
                low, high = iaa.kappa_ci(y1, y2, labels=["no", "yes"], n_resamples=n_resamples,
                                         seed=seed)
            else:
                kappa = iaa.fleiss_kappa(matrix)
                low, high = iaa.fleiss_ci(matrix, n_resamples=n_resamples, seed=seed)
            alpha = iaa.krippendorff_alpha(np.array(matrix, dtype=object).T.tolist(), level="nominal")
        rows.append({"label": label, "kappa": kappa, "ci_low": low, "ci_high": high,
                     "alpha": alpha, "prevalence": prevalence, "n_items": len(groups)})
    return {"per_label": rows, "macro_kappa": _nanmean([r["kappa"] for r in rows]),
            "macro_alpha": _nanmean([r["alpha"] for r in rows])}


def _categorical(groups: list[list[Mapping[str, Any]]], k: int, n_resamples: int, seed: int
                 ) -> dict[str, Any]:
    matrix = [[a["appropriateness"] for a in g[:k]] + [None] * (k - len(g[:k])) for g in groups]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = iaa.agreement_report(matrix, n_resamples=n_resamples, seed=seed).set_index("statistic")
    main = "cohen_kappa" if k == 2 and "cohen_kappa" in report.index else "fleiss_kappa"
    confusion = np.zeros((len(APPROPRIATENESS), len(APPROPRIATENESS)), dtype=int)
    for g in groups:
        for a, b in itertools.combinations(g, 2):
            if a["appropriateness"] in APPROPRIATENESS and b["appropriateness"] in APPROPRIATENESS:
                confusion[APPROPRIATENESS.index(a["appropriateness"]),
                          APPROPRIATENESS.index(b["appropriateness"])] += 1
    return {"statistic": main, "kappa": report.loc[main, "estimate"],
            "ci_low": report.loc[main, "ci_low"], "ci_high": report.loc[main, "ci_high"],
            "alpha": report.loc["krippendorff_alpha", "estimate"],
            "percent_agreement": report.loc["percent_agreement", "estimate"],
            "interpretation_ko": report.loc[main, "interpretation_ko"],
            "confusion": {"labels": list(APPROPRIATENESS), "matrix": confusion.tolist()}}


def _scores(groups: list[list[Mapping[str, Any]]], dims: Sequence[str], k: int) -> list[dict[str, Any]]:
    out = []
    for dim in dims:
        long = [(g[0]["item_id"], slot, a["scores"].get(dim))
                for g in groups for slot, a in enumerate(g[:k]) if a["scores"].get(dim) is not None]
        row: dict[str, Any] = {"dimension": dim, "icc_type": ICC_TYPE, "icc": float("nan"),
                               "ci_low": float("nan"), "ci_high": float("nan"),
                               "alpha": float("nan"), "n_items": 0}
        df = pd.DataFrame(long, columns=["item", "slot", "score"])
        complete = df.groupby("item")["slot"].count()
        if (complete >= 2).sum() >= 3:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    res = iaa.icc(df, targets="item", raters="slot", ratings="score",
                                  nan_policy="omit").set_index("Type")
                    row.update(icc=res.loc[ICC_TYPE, "ICC"], ci_low=res.loc[ICC_TYPE, "ci_low"],
                               ci_high=res.loc[ICC_TYPE, "ci_high"],
                               n_items=int(res.attrs.get("n_targets", len(complete))))
                except InputError:
                    pass  # e.g. too few complete targets after omitting: stays NaN (fails the gate)
                except ZeroDivisionError:
                    # Every reviewer gave the same score on every item: zero error variance.
                    # ICC2 is then 1 when items differ (and undefined when they do not); the
                    # F-based interval degenerates, so none is reported.
                    if df.groupby("item")["score"].first().nunique() > 1:
                        row.update(icc=1.0, n_items=int((complete >= 2).sum()),
                                   note="perfect agreement; no F-based CI")
                wide = df.pivot(index="item", columns="slot", values="score")
                row["alpha"] = iaa.krippendorff_alpha(wide.to_numpy(dtype=float).T, level="interval")
        out.append(row)
    return out


@_pinned
def agreement_results(db: Any, round_id: str, *, n_resamples: int = 1000, seed: int = 0
                      ) -> dict[str, Any]:
    """Every agreement number of a human round (JSON-safe; NaN becomes ``None``).

    Returns
    -------
    dict
        ``n_overlap_items``, ``raters_per_item``, ``method`` ('cohen' or 'fleiss'),
        ``techniques`` and ``client_state`` (``per_label`` rows and macro κ/α),
        ``appropriateness`` (κ, CI, α, raw agreement, confusion matrix) and ``scores``
        (one row per dimension: ICC2, CI, α).
    """
    rnd = get_round(db, round_id)
    if rnd["kind"] != "human_review":
        raise InputError(f"round {round_id} is {rnd['kind']}; the gate measures human_review rounds",
                         field="round_id")
    groups = [g for g in group_by_item(effective_annotations(db, round_id, annotator_kind="human")
                                       ).values() if len(g) >= 2]
    if len(groups) < 2:
        raise InputError(f"round {round_id} has {len(groups)} item(s) with two or more reviewers;"
                         " agreement needs at least 2 (assign reviewers with overlap > 0)",
                         field="round_id")
    counts = {len(g) for g in groups}
    k = 2 if counts == {2} else max(counts)
    tax = taxonomy_info()
    return _clean({
        "n_overlap_items": len(groups), "raters_per_item": sorted(counts),
        "method": "cohen" if k == 2 else "fleiss", "n_resamples": n_resamples, "seed": seed,
        "techniques": _multilabel(groups, "techniques", tax.techniques, k, n_resamples, seed),
        "client_state": _multilabel(groups, "client_state", tax.client_states, k, n_resamples, seed),
        "appropriateness": _categorical(groups, k, n_resamples, seed),
        "scores": _scores(groups, tax.score_dimensions, k),
        "icc_type": ICC_TYPE,
    })


def _checks(results: Mapping[str, Any], kappa_min: float, icc_min: float) -> list[dict[str, Any]]:
    def check(name: str, value: Any, threshold: float) -> dict[str, Any]:
        ok = value is not None and value >= threshold
        out = {"name": name, "value": value, "threshold": threshold, "passed": bool(ok)}
        if value is None:
            # Undefined (no variation in the overlap subset) cannot show agreement: it fails.
            out["note"] = "undefined: no variation in the overlap subset"
        return out

    out = [check("techniques.macro_kappa", results["techniques"]["macro_kappa"], kappa_min),
           check("client_state.macro_kappa", results["client_state"]["macro_kappa"], kappa_min),
           check("appropriateness.kappa", results["appropriateness"]["kappa"], kappa_min)]
    out += [check(f"scores.{row['dimension']}.{ICC_TYPE.lower()}", row["icc"], icc_min)
            for row in results["scores"]]
    return out


@_pinned
def gate(db: Any, round_id: str, *, kappa_min: float = 0.6, icc_min: float = 0.75,
         override_reason: str | None = None, decided_by: str = "local",
         n_resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Measure agreement of a human round, decide the gate and store the decision.

    Parameters
    ----------
    db : Database
    round_id : str
        A ``human_review`` round with an overlap subset.
    kappa_min : float, default=0.6
        Minimum macro per-label κ (techniques, client state) and appropriateness κ.
    icc_min : float, default=0.75
        Minimum ICC2 per score dimension.
    override_reason : str, optional
        Lets a failing gate through to the golden set; recorded with the decision.
    decided_by : str, default='local'
    n_resamples, seed : int
        Bootstrap settings of the CIs.

    Returns
    -------
    dict
        ``{"gate_id", "passed", "override_reason", "thresholds", "checks", "results"}``.

    Notes
    -----
    κ bands (Landis & Koch 1977) and ICC bands (Koo & Li 2016) are in
    :func:`vignette_lab.pipeline.iaa.interpret_kappa` / ``interpret_icc``.
    """
    for name, v in (("kappa_min", kappa_min), ("icc_min", icc_min)):
        if not isinstance(v, (int, float)) or not -1 <= v <= 1:
            raise InputError(f"{name} must be a number in [-1, 1]; got {v!r}", field=name)
    if override_reason is not None and not str(override_reason).strip():
        raise InputError("override_reason must not be blank", field="override_reason")
    results = agreement_results(db, round_id, n_resamples=n_resamples, seed=seed)
    checks = _checks(results, kappa_min, icc_min)
    passed = all(c["passed"] for c in checks)
    results["checks"] = checks
    thresholds = {"kappa_min": kappa_min, "icc_min": icc_min, "icc_type": ICC_TYPE}
    gate_id = _new_id()
    db.execute("INSERT INTO ds.gate_decision (gate_id, round_id, thresholds, results, passed,"
               " override_reason, decided_by, created_at) VALUES (?, ?,"
               f" {db.dialect.json_param()}, {db.dialect.json_param()}, ?, ?, ?, ?)",
               [gate_id, round_id, _dumps(thresholds), _dumps(results), passed, override_reason,
                decided_by, _now()])
    return {"gate_id": gate_id, "passed": passed, "override_reason": override_reason,
            "thresholds": thresholds, "checks": checks, "results": results}


def get_gate(db: Any, gate_id: str) -> dict[str, Any]:
    """The stored gate decision (JSON decoded) or ``InputError``."""
    row = db.fetchone("SELECT * FROM ds.gate_decision WHERE gate_id = ?", [gate_id])
    if row is None:
        raise InputError(f"unknown gate {gate_id!r}", field="gate_id")
    row["thresholds"] = _json(row["thresholds"])
    row["results"] = _json(row["results"])
    return row
