"""The per-field gate decision on confidence intervals (private; see :mod:`vignette_lab.agreement`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field as dc_field
from typing import Any, Literal, Mapping, Sequence

from vignette_lab.errors import InputError

from ._fields import FieldAgreement

RULES = ("lower-bound", "point")


@dataclass
class GateResult:
    """Outcome of :func:`gate_fields`.

    Attributes
    ----------
    decision : str
        ``pass`` (every gated field passed), ``fail`` (any field failed) or ``inconclusive``
        (no failure, but some field's interval contains its threshold, is undefined, or no
        declared field had data).
    fields : list of dict
        One per declared field: ``field``, ``outcome`` (``pass``/``fail``/``inconclusive``/
        ``no_data``), ``coefficient``, ``value``, ``ci_low``, ``ci_high``, ``threshold``,
        ``reason``.
    rule : str
    notes : list of str
        Fields with data but no declared threshold (not gated) and declared fields without data.
    """

    decision: str
    fields: list
    rule: str
    notes: list = dc_field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.decision == "pass"

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "rule": self.rule, "fields": [dict(f) for f in self.fields],
                "notes": list(self.notes)}


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def gate_fields(results: Sequence[FieldAgreement], *, thresholds: Mapping[str, tuple[str, float]],
                rule: Literal["lower-bound", "point"] = "lower-bound") -> GateResult:
    """Decide the agreement gate field by field from each field's coefficient and interval.

    Parameters
    ----------
    results : sequence of FieldAgreement
        From :func:`field_agreement`, one per field of the round.
    thresholds : mapping
        ``field -> (coefficient name, threshold)``, the scheme's ``gate`` declarations. Only these
        fields are gated.
    rule : {'lower-bound', 'point'}, default='lower-bound'
        ``lower-bound``: ``pass`` when the CI lower bound ≥ threshold, ``fail`` when the upper
        bound < threshold, else ``inconclusive``. ``point``: ``pass`` when the point value ≥
        threshold, else ``fail`` (the old rule; its false-pass rate is in ``bench/RESULTS.md``).

    Returns
    -------
    GateResult

    Notes
    -----
    A declared field with no result or no item rated twice is ``no_data`` and does not decide
    the gate (it is listed in ``notes``); an undefined coefficient (e.g. one category only) or a
    missing interval under the lower-bound rule is ``inconclusive``. A two-way ICC (``icc2``,
    ``icc3`` and their ``k`` forms) declared for a round whose reviewers vary between items is
    replaced by the one-way ``icc1``/``icc1k`` (said in ``reason``; ``coefficient`` names the
    one used). For a ``multi`` field a per-category name without ``:<code>`` (e.g.
    ``fleiss_kappa``) gates every category with a defined value: the field passes only when all
    pass, fails when any fails, and reports the weakest category (``category``). Any other
    coefficient the field does not have raises :class:`~vignette_lab.errors.InputError`.

    Examples
    --------
    >>> import pandas as pd
    >>> from vignette_lab.agreement import field_agreement, gate_fields
    >>> df = pd.DataFrame({"item_id": [i for i in range(40) for _ in (0, 1)],
    ...                    "annotator": ["kim", "lee"] * 40,
    ...                    "value": ["q", "q", "r", "r"] * 20})
    >>> res = field_agreement(df, field="behaviour", kind="single")
    >>> gate_fields([res], thresholds={"behaviour": ("fleiss_kappa", 0.6)}).decision
    'pass'
    """
    if rule not in RULES:
        raise InputError(f"rule must be 'lower-bound' or 'point'. Got {rule!r}.", field="rule")
    by_field = {r.field: r for r in results}
    rows, notes = [], []
    for name, spec in thresholds.items():
        try:
            coef_name, threshold = spec
            threshold = float(threshold)
        except (TypeError, ValueError):
            raise InputError(f"threshold of field {name!r} must be (coefficient, number). Got {spec!r}.",
                             field=str(name)) from None
        row = {"field": name, "outcome": "no_data", "coefficient": coef_name, "value": None, "ci_low": None,
               "ci_high": None, "threshold": threshold, "reason": ""}
        res = by_field.get(name)
        if res is None or res.n_items == 0:
            row["reason"] = "no item of this round has two or more ratings of this field"
            notes.append(f"field {name!r}: declared in the scheme but no data in this round; not gated.")
            rows.append(row)
            continue
        coef = res.coefficient(coef_name)
        prefix = ""
        if coef is None and coef_name in _TWO_WAY and res.design != "fully_crossed":
            # Two-way ICC is not defined when reviewers vary between items: use the one-way form.
            used = "icc1k" if coef_name.endswith("k") else "icc1"
            coef = res.coefficient(used)
            prefix = f"{coef_name} needs every rater on every item ({res.design}); used {used}. "
            row["coefficient"] = used
        if coef is None and res.kind == "multi":
            per_cat = [c for c in res.coefficients if c["name"].startswith(coef_name + ":")]
            if per_cat:
                rows.append(_multi_row(row, per_cat, threshold, rule))
                continue
        if coef is None:
            have = ", ".join(c["name"] for c in res.coefficients)
            raise InputError(f"field {name!r} ({res.kind}) has no coefficient {coef_name!r}; it has: {have}.",
                             field=str(name))
        value, low, high = _num(coef["value"]), _num(coef.get("ci_low")), _num(coef.get("ci_high"))
        row.update(value=value, ci_low=low, ci_high=high)
        _decide(row, value, low, high, threshold, rule)
        row["reason"] = prefix + str(row["reason"])
        rows.append(row)
    for res in results:
        if res.field not in thresholds and res.n_items > 0:
            notes.append(f"field {res.field!r}: no gate threshold declared; reported, not gated.")
    outcomes = [r["outcome"] for r in rows if r["outcome"] != "no_data"]
    if "fail" in outcomes:
        decision = "fail"
    elif not outcomes or "inconclusive" in outcomes:
        decision = "inconclusive"
        if not outcomes:
            notes.append("no declared field has data in this round: nothing could pass.")
    else:
        decision = "pass"
    return GateResult(decision=decision, fields=rows, rule=rule, notes=notes)


_TWO_WAY = ("icc2", "icc2k", "icc3", "icc3k")


def _decide(row: dict, value, low, high, threshold: float, rule: str) -> None:
    if value is None:
        row.update(outcome="inconclusive", reason="coefficient undefined (no variation in the ratings)")
    elif rule == "point":
        ok = value >= threshold
        row.update(outcome="pass" if ok else "fail",
                   reason=f"point value {value:.3f} {'≥' if ok else '<'} {threshold:g}")
    elif low is None or high is None:
        row.update(outcome="inconclusive", reason="no confidence interval")
    elif low >= threshold:
        row.update(outcome="pass", reason=f"CI lower bound {low:.3f} ≥ {threshold:g}")
    elif high < threshold:
        row.update(outcome="fail", reason=f"CI upper bound {high:.3f} < {threshold:g}")
    else:
        row.update(outcome="inconclusive", reason=f"CI [{low:.3f}, {high:.3f}] contains {threshold:g}")


def _multi_row(row: dict, per_cat: list, threshold: float, rule: str) -> dict:
    """A multi field gated on a per-category coefficient: every used category must pass."""
    outcomes = []
    worst = None
    for c in per_cat:
        value, low, high = _num(c["value"]), _num(c.get("ci_low")), _num(c.get("ci_high"))
        if value is None:
            continue  # a category never (or always) used carries no information
        sub = {"reason": ""}
        _decide(sub, value, low, high, threshold, rule)
        outcomes.append((sub["outcome"], c.get("category"), value, low, high))
        key = low if (rule == "lower-bound" and low is not None) else value
        if worst is None or key < worst[0]:
            worst = (key, c.get("category"), value, low, high)
    if not outcomes:
        row.update(outcome="inconclusive", reason="every category's coefficient is undefined")
        return row
    failing = [o[1] for o in outcomes if o[0] == "fail"]
    open_ = [o[1] for o in outcomes if o[0] == "inconclusive"]
    outcome = "fail" if failing else ("inconclusive" if open_ else "pass")
    assert worst is not None  # outcomes is not empty
    _, cat, value, low, high = worst
    row.update(outcome=outcome, value=value, ci_low=low, ci_high=high, category=cat,
               reason=(f"every category must pass; weakest: {cat!r}"
                       + (f"; failing: {failing}" if failing else "")
                       + (f"; inconclusive: {open_}" if open_ else "")))
    return row
