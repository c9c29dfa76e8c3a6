"""The agreement gate: measure inter-annotator agreement of a human round and decide.

What is measured, on the items that two or more reviewers labelled (the overlap subset):

- techniques and client state (multi-label): per-label binary κ — Cohen's κ when the same
  two reviewers rated every overlap item, Fleiss' κ otherwise — with CIs and
  Krippendorff's α (nominal) alongside, and the macro mean over labels whose κ is defined
  (labels never or always used carry no information and are reported as NaN);
- appropriateness (pos/warn/neutral): Cohen/Fleiss κ with CI, α, raw agreement, and the
  pairwise confusion matrix for the report;
- each 0–5 score dimension: the ICC form the data set's scheme gates on (the built-in
  scheme declares ``icc1``, ICC(1,1): one-way random, single rater; Shrout & Fleiss 1979)
  with its F-based CI, and α (interval). A single-rater form because most items are labelled
  by one reviewer only: the golden label of such an item is one reviewer's score. The form
  shown is the form decided on: :func:`icc_form` reads it from the stored decision, and every
  renderer (report, manifest, data card, agreement page) names it through that function.

Rater model: raters are the real reviewers, never "slots" ordered by id, so renaming or
reordering reviewers changes no number. Cohen's κ is used only when the same two reviewers
rated every overlap item; otherwise (reviewers vary between items, or more than two) the
coefficients defined for that design: Fleiss' κ per label and for appropriateness; a
two-way ICC declared by a scheme falls back to the one-way ICC(1) when reviewers vary between
items, exactly as the gate does (the row's ``icc_type`` says which was used). The statistics come from :mod:`vignette_lab.agreement` (pure functions).
The decision is the per-field three-outcome gate of
:func:`vignette_lab.pipeline.field_gate.run_gate` on the scheme's declared gates (lower-bound
rule by default, the point rule on request). The decision, thresholds and every number are
stored in ``ds.gate_decision``; a ``fail`` or ``inconclusive`` gate blocks the golden set
unless an override reason is recorded.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np
import pandas as pd

from vignette_lab.core.pii import gate_text
from vignette_lab.errors import InputError
from vignette_lab import agreement
from vignette_lab.pipeline.adjudicate import group_by_item
from vignette_lab.pipeline.rounds import (
    APPROPRIATENESS,
    _new_id,
    _now,
    _pinned,
    effective_annotations,
    get_round,
    taxonomy_info,
)
from vignette_lab.store import ds_repo
from vignette_lab.pipeline.field_gate import run_gate
from vignette_lab.pipeline.schemes import dataset_scheme

if TYPE_CHECKING:
    from vignette_lab.store.base import Database

__all__ = ["DEFAULT_ICC", "agreement_results", "gate", "get_gate", "icc_form"]

#: ICC form of a score field whose scheme declares no gate (the built-in scheme's form).
DEFAULT_ICC = "icc1"
_TWO_WAY = ("icc2", "icc2k", "icc3", "icc3k")


def _used_form(declared: str, design: str | None) -> str:
    """The ICC form actually computed: a two-way form needs every rater on every item."""
    if declared in _TWO_WAY and design != "fully_crossed":
        return "icc1k" if declared.endswith("k") else "icc1"
    return declared


def icc_form(results: Mapping[str, Any], thresholds: Mapping[str, Any] | None = None) -> str | None:
    """The ICC form (``icc1``, ``icc2`` …) a stored gate decision decided the score fields on.

    The one source every renderer names the score coefficient from. Order of evidence: the
    decided ``fields`` rows of score dimensions (``coefficient``), then the score rows'
    ``icc_type``, then ``thresholds['icc_type']`` (decisions stored before this function).
    Several forms are joined with ``/``; None when the decision has no score field.

    Examples
    --------
    >>> icc_form({"scores": [{"dimension": "empathy"}],
    ...           "fields": [{"field": "empathy", "coefficient": "icc1"}]})
    'icc1'
    """
    dims = [s.get("dimension") for s in results.get("scores") or []]
    forms = [str(f.get("coefficient")).lower() for f in results.get("fields") or []
             if isinstance(f, Mapping) and f.get("field") in dims and str(f.get("coefficient", "")).startswith("icc")]
    if not forms:
        forms = [str(s["icc_type"]).lower() for s in results.get("scores") or [] if s.get("icc_type")]
    if not forms and thresholds and thresholds.get("icc_type"):
        forms = [str(thresholds["icc_type"]).lower()]
    return "/".join(sorted(set(forms))) or None


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


def _long(groups: list[list[Mapping[str, Any]]], value) -> pd.DataFrame:
    """Long ratings (item, real reviewer id, value) of the overlap items: no rater "slots"."""
    rows = [(a["item_id"], a["annotator_id"], value(a)) for g in groups for a in g]
    return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])


def _cohen_design(groups: list[list[Mapping[str, Any]]]) -> bool:
    """Exactly the same two reviewers on every overlap item (Cohen's κ applies)."""
    sets = {frozenset(a["annotator_id"] for a in g) for g in groups}
    return len(sets) == 1 and len(next(iter(sets))) == 2 and all(len(g) == 2 for g in groups)


def _multilabel(groups: list[list[Mapping[str, Any]]], field: str, labels: Sequence[str], cohen: bool,
                n_resamples: int, seed: int) -> dict[str, Any]:
    long = _long(groups, lambda a: sorted(set(a[field] or []) & set(labels)))
    res = agreement.field_agreement(long, field=field, kind="multi", categories=list(labels),
                                    n_boot=n_resamples, seed=seed)
    reviewers = sorted({a["annotator_id"] for g in groups for a in g})
    rows = []
    for label in labels:
        present = long.assign(p=[("yes" if label in v else "no") for v in long["value"]])
        prevalence = float((present["p"] == "yes").mean())
        alpha = (res.coefficient(f"krippendorff_alpha:{label}") or {}).get("value")
        kappa: float | None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if cohen:
                wide = present.pivot(index="item_id", columns="annotator", values="p")
                y1, y2 = wide[reviewers[0]].tolist(), wide[reviewers[1]].tolist()
                kappa = agreement.cohen_kappa(y1, y2, labels=["no", "yes"])
                low, high = agreement.kappa_ci(y1, y2, labels=["no", "yes"], n_resamples=n_resamples, seed=seed)
            else:
                row = res.coefficient(f"fleiss_kappa:{label}") or {}
                kappa, low, high = row.get("value"), row.get("ci_low"), row.get("ci_high")
        rows.append({"label": label, "kappa": kappa, "ci_low": low, "ci_high": high,
                     "alpha": alpha, "prevalence": prevalence, "n_items": len(groups)})
    return {"per_label": rows, "macro_kappa": _nanmean([r["kappa"] for r in rows]),
            "macro_alpha": _nanmean([r["alpha"] for r in rows])}


def _categorical(groups: list[list[Mapping[str, Any]]], cohen: bool, n_resamples: int, seed: int
                 ) -> dict[str, Any]:
    long = _long(groups, lambda a: a["appropriateness"])
    res = agreement.field_agreement(long, field="appropriateness", kind="single",
                                    categories=list(APPROPRIATENESS), n_boot=n_resamples, seed=seed)
    # With the same two reviewers on every item Conger's κ is Cohen's κ; otherwise Fleiss'.
    main = res.coefficient("conger_kappa" if cohen else "fleiss_kappa") or {}
    confusion = np.zeros((len(APPROPRIATENESS), len(APPROPRIATENESS)), dtype=int)
    for g in groups:
        for a, b in itertools.combinations(g, 2):
            if a["appropriateness"] in APPROPRIATENESS and b["appropriateness"] in APPROPRIATENESS:
                # Category order, not reviewer order, decides the cell: reviewer ids never matter.
                i, j = sorted((APPROPRIATENESS.index(a["appropriateness"]),
                               APPROPRIATENESS.index(b["appropriateness"])))
                confusion[i, j] += 1
    value = main.get("value")
    return {"statistic": "cohen_kappa" if cohen else "fleiss_kappa", "kappa": value,
            "ci_low": main.get("ci_low"), "ci_high": main.get("ci_high"), "ci_method": main.get("ci_method"),
            "alpha": (res.coefficient("krippendorff_alpha") or {}).get("value"),
            "percent_agreement": (res.coefficient("percent_agreement") or {}).get("value"),
            "interpretation_ko": agreement.interpret_kappa(float("nan") if value is None else value).ko,
            "confusion": {"labels": list(APPROPRIATENESS), "matrix": confusion.tolist(),
                          "note": "unordered reviewer pairs; row = lower category index"}}


def _scores(groups: list[list[Mapping[str, Any]]], dims: Sequence[str], forms: Mapping[str, str],
            n_resamples: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for dim in dims:
        long = _long(groups, lambda a: (a["scores"] or {}).get(dim))
        declared = forms.get(dim, DEFAULT_ICC)
        row: dict[str, Any] = {"dimension": dim, "icc_type": declared, "icc": float("nan"),
                               "ci_low": float("nan"), "ci_high": float("nan"), "alpha": float("nan"),
                               "n_items": 0}
        res = agreement.field_agreement(long, field=dim, kind="score", score_range=(0, 5), n_boot=n_resamples,
                                        seed=seed)
        # The scheme's declared form, with the gate's one-way fallback (agreement._gate).
        name = _used_form(declared, res.design)
        icc_row = res.coefficient(name)
        if icc_row is not None and res.n_items >= 3:
            row.update(icc_type=name, icc=icc_row["value"], ci_low=icc_row["ci_low"],
                       ci_high=icc_row["ci_high"], n_items=res.n_items, design=res.design)
            if icc_row["value"] is None and long.groupby("item_id")["value"].nunique().max() == 1 \
                    and long.groupby("item_id")["value"].first().nunique() > 1:
                # Every reviewer gave the same score on every item: zero error variance. The ICC is
                # then 1 when items differ; the F-based interval degenerates, so none is reported.
                row.update(icc=1.0, note="perfect agreement; no F-based CI")
        alpha = res.coefficient("krippendorff_alpha_interval")
        row["alpha"] = alpha["value"] if alpha else float("nan")
        out.append(row)
    return out


@_pinned
def agreement_results(db: Database, round_id: str, *, n_resamples: int = 1000, seed: int = 0
                      ) -> dict[str, Any]:
    """Every agreement number of a human round (JSON-safe; NaN becomes ``None``).

    Returns
    -------
    dict
        ``n_overlap_items``, ``raters_per_item``, ``method`` ('cohen' or 'fleiss'),
        ``techniques`` and ``client_state`` (``per_label`` rows and macro κ/α),
        ``appropriateness`` (κ, CI, α, raw agreement, confusion matrix) and ``scores``
        (one row per dimension: the ICC form the scheme gates on, CI, α; ``icc_type`` names the
        form), and ``icc_type`` (:func:`icc_form` of the rows).
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
    cohen = _cohen_design(groups)
    tax = taxonomy_info()
    forms = {name: coef for name, (coef, _) in dataset_scheme(db, rnd["dataset_id"]).thresholds().items()
             if str(coef).startswith("icc")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _clean({
            "n_overlap_items": len(groups), "raters_per_item": sorted(counts),
            "method": "cohen" if cohen else "fleiss", "n_resamples": n_resamples, "seed": seed,
            "techniques": _multilabel(groups, "techniques", tax.techniques, cohen, n_resamples, seed),
            "client_state": _multilabel(groups, "client_state", tax.client_states, cohen, n_resamples, seed),
            "appropriateness": _categorical(groups, cohen, n_resamples, seed),
            "scores": _scores(groups, tax.score_dimensions, forms, n_resamples, seed),
        })
    out["icc_type"] = icc_form(out)
    return out


def _thresholds(scheme: Any, kappa_min: float, icc_min: float) -> dict[str, tuple[str, float]]:
    """The scheme's per-field gates with κ/α thresholds set to ``kappa_min`` and ICC ones to ``icc_min``."""
    return {name: (coef, icc_min if coef.startswith("icc") else kappa_min)
            for name, (coef, _) in scheme.thresholds().items()}


@_pinned
def gate(db: Database, round_id: str, *, rule: str = "lower-bound", kappa_min: float = 0.6,
         icc_min: float = 0.75, override_reason: str | None = None, decided_by: str = "local",
         n_resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Measure agreement of a human round, decide the gate per field and store the decision.

    The decision is the per-field three-outcome gate of
    :func:`vignette_lab.pipeline.field_gate.run_gate` on the data set's scheme (the built-in
    ``vignette-taxonomy`` here): each gated field is ``pass`` (CI lower bound ≥ threshold),
    ``fail`` (upper bound < threshold) or ``inconclusive`` (the CI contains the threshold)
    under the default ``rule='lower-bound'``; the round passes only when every field with data
    passes. ``rule='point'`` is the old point-estimate rule, kept as an explicit option.

    Parameters
    ----------
    db : Database
    round_id : str
        A ``human_review`` round with an overlap subset.
    rule : {'lower-bound', 'point'}, default='lower-bound'
    kappa_min : float, default=0.6
        Threshold of the κ/α fields (techniques, client state, appropriateness).
    icc_min : float, default=0.75
        Threshold of the ICC of each score dimension.
    override_reason : str, optional
        Lets an ``inconclusive`` or ``fail`` gate through to the golden set; recorded with the
        decision.
    decided_by : str, default='local'
    n_resamples, seed : int
        Bootstrap settings of the CIs.

    Returns
    -------
    dict
        ``{"gate_id", "passed", "decision", "rule", "override_reason", "thresholds", "checks",
        "fields", "notes", "results"}``. ``checks`` has one ``{name, value, ci_low, ci_high,
        threshold, passed, outcome, coefficient}`` per gated field; ``results`` holds every
        agreement number (:func:`agreement_results`) plus ``checks``, ``fields``,
        ``decision`` and ``rule``.

    Notes
    -----
    κ bands (Landis & Koch 1977) and ICC bands (Koo & Li 2016) are in
    :func:`vignette_lab.agreement.interpret_kappa` / ``interpret_icc``.
    """

    for name, v in (("kappa_min", kappa_min), ("icc_min", icc_min)):
        if not isinstance(v, (int, float)) or not -1 <= v <= 1:
            raise InputError(f"{name} must be a number in [-1, 1]; got {v!r}", field=name)
    if rule not in ("lower-bound", "point"):
        raise InputError(f"rule must be 'lower-bound' or 'point'; got {rule!r}", field="rule")
    if override_reason is not None and not str(override_reason).strip():
        raise InputError("override_reason must not be blank", field="override_reason")
    results = agreement_results(db, round_id, n_resamples=n_resamples, seed=seed)
    field_thr = _thresholds(dataset_scheme(db, get_round(db, round_id)["dataset_id"]), kappa_min, icc_min)
    fg = run_gate(db, round_id, rule=rule, thresholds=field_thr, n_boot=n_resamples, seed=seed,
                  store=False)
    checks = [{"name": f["field"], "coefficient": f["coefficient"], "value": f["value"],
               "ci_low": f["ci_low"], "ci_high": f["ci_high"], "threshold": f["threshold"],
               "passed": f["outcome"] == "pass", "outcome": f["outcome"], "reason": f.get("reason", "")}
              for f in fg["fields"] if f["outcome"] != "no_data"]
    passed = fg["decision"] == "pass"
    results.update(checks=checks, fields=fg["fields"], decision=fg["decision"], rule=rule,
                   notes=fg["notes"])
    results["icc_type"] = icc_form(results)  # the form decided on, from the decided fields
    thresholds = {"kappa_min": kappa_min, "icc_min": icc_min, "icc_type": results["icc_type"], "rule": rule,
                  "fields": {k: list(v) for k, v in field_thr.items()}}
    gate_id = _new_id()
    ds_repo.insert_gate_decision(db, gate_id=gate_id, round_id=round_id, thresholds=thresholds,
                                 results=results, passed=passed, override_reason=gate_text(override_reason),
                                 decided_by=decided_by, created_at=_now())
    return {"gate_id": gate_id, "passed": passed, "decision": fg["decision"], "rule": rule,
            "override_reason": override_reason, "thresholds": thresholds, "checks": checks,
            "fields": fg["fields"], "notes": fg["notes"], "results": results}


def get_gate(db: Database, gate_id: str) -> dict[str, Any]:
    """The stored gate decision (JSON decoded) or ``InputError``."""
    row = ds_repo.gate_row(db, gate_id)
    if row is None:
        raise InputError(f"unknown gate {gate_id!r}", field="gate_id")
    return row
