"""Agreement of one scheme field, whatever its kind (private; see :mod:`vignette_lab.agreement`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field as dc_field
from typing import Any, Literal, Sequence

import numpy as np
import pandas as pd
from scipy.stats import f as f_dist

from vignette_lab.errors import InputError

from ._cac import (
    AlphaParts,
    CountParts,
    agreement_weights,
    binary_likelihood_interval,
    bootstrap_interval,
    conger,
    interval_delta,
    masi_delta,
    nominal_delta,
    t_interval,
)
from ._icc import _icc_table
from ._prepare import Prepared, count_matrix, fully_crossed, prepare

CI_MODES = ("auto", "bootstrap", "percentile", "none")
MIN_POSITIVES = 5

#: Coefficient names per field kind, in report order (``<code>`` is a category code).
COEFFICIENTS = {
    "single": ("percent_agreement", "fleiss_kappa", "conger_kappa", "krippendorff_alpha", "gwet_ac1",
               "brennan_prediger"),
    "ordinal": ("percent_agreement", "weighted_kappa_linear", "weighted_kappa_quadratic",
                "krippendorff_alpha_ordinal", "gwet_ac2_ordinal"),
    "score": ("icc1", "icc1k", "icc2", "icc2k", "icc3", "icc3k", "krippendorff_alpha_interval"),
    "multi": ("fleiss_kappa:<code>", "krippendorff_alpha:<code>", "krippendorff_alpha_masi"),
}


def _f(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


@dataclass
class FieldAgreement:
    """Agreement numbers of one field: coefficients with intervals, design and what was left out.

    Attributes
    ----------
    field, kind : str
        The scheme field and its kind (``single``, ``ordinal``, ``multi``, ``score``).
    n_items : int
        Items with two or more ratings (those that entered the coefficients).
    raters_per_item : dict
        ``{"min": …, "max": …}`` ratings per item among those items.
    coefficients : list of dict
        ``{"name", "value", "ci_low", "ci_high", "ci_method", "n_boot_undefined", …}``; extra
        keys: ``se`` (analytic methods), ``method`` (which estimator, e.g. ``cohen`` or
        ``fleiss_weighted``), ``category`` and ``n_positive`` (per-category rows of multi fields).
    left_out : list of dict
        ``{"item", "reason"}`` for items that did not enter (no rating, only one rating).
    warnings : list of str
    design : str
        ``fully_crossed`` (the same raters rated every item), ``varying_raters`` or
        ``no_overlap`` (no item has two ratings).
    n_raters : int
    categories : list
    """

    field: str
    kind: str
    n_items: int
    raters_per_item: dict
    coefficients: list = dc_field(default_factory=list)
    left_out: list = dc_field(default_factory=list)
    warnings: list = dc_field(default_factory=list)
    design: str = "varying_raters"
    n_raters: int = 0
    categories: list = dc_field(default_factory=list)

    def coefficient(self, name: str) -> dict | None:
        """The coefficient row called ``name``, or ``None``."""
        return next((c for c in self.coefficients if c["name"] == name), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (NaN becomes ``None``)."""
        coefs = []
        for c in self.coefficients:
            row = {k: (_f(v) if isinstance(v, (float, np.floating)) else v) for k, v in c.items()}
            coefs.append(row)
        return {"field": self.field, "kind": self.kind, "n_items": int(self.n_items),
                "raters_per_item": dict(self.raters_per_item), "n_raters": int(self.n_raters),
                "design": self.design, "categories": [_plain(c) for c in self.categories],
                "coefficients": coefs, "left_out": list(self.left_out), "warnings": list(self.warnings)}


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _row(name, value, low=float("nan"), high=float("nan"), ci_method="none", undefined=0, **extra) -> dict:
    return {"name": name, "value": _f(value), "ci_low": _f(low), "ci_high": _f(high), "ci_method": ci_method,
            "n_boot_undefined": int(undefined), **extra}


class _Runner:
    def __init__(self, ci: str, n_boot: int, seed: int, confidence: float):
        self.ci, self.n_boot, self.seed, self.confidence = ci, n_boot, seed, confidence

    def analytic(self, name, stat, value, variance, n, **extra) -> dict:
        """Analytic (Gwet) interval under ``auto``; a bootstrap one when asked for."""
        if self.ci == "none" or (isinstance(value, float) and math.isnan(value)):
            return _row(name, value, **extra)
        if self.ci == "auto" or stat is None:
            low, high = t_interval(value, variance, n, self.confidence)
            return _row(name, value, low, high, "analytic_gwet", 0, se=_f(math.sqrt(variance))
                        if not math.isnan(variance) else None, **extra)
        return self.boot(name, stat, value, n, **extra)

    def binary(self, row: dict, counts: np.ndarray) -> dict:
        """Replace a binary coefficient's interval by the integrated-likelihood one (``auto`` only)."""
        if self.ci != "auto" or row["value"] is None:
            return row
        low, high = binary_likelihood_interval(counts, self.confidence)
        if math.isnan(low):
            return row
        row.update(ci_low=low, ci_high=high, ci_method="integrated_likelihood", n_boot_undefined=0)
        return row

    def boot(self, name, stat, value, n, **extra) -> dict:
        if self.ci == "none" or (isinstance(value, float) and math.isnan(value)):
            return _row(name, value, **extra)
        method = "percentile" if self.ci == "percentile" else "bca"
        low, high, und = bootstrap_interval(stat, n, n_boot=self.n_boot, seed=self.seed, method=method,
                                            confidence=self.confidence)
        return _row(name, value, low, high, method, und, **extra)


def _nominal(prep: Prepared, run: _Runner, out: FieldAgreement) -> None:
    q = len(prep.categories)
    any_rating = prep.ratings_per_item >= 1
    codes = prep.matrix[any_rating]
    counts = count_matrix(codes, q).astype(float)
    n = counts.shape[0]
    multi = counts.sum(axis=1) >= 2
    parts = CountParts(counts, np.eye(q))
    one = np.ones((1, n))
    used = int((counts.sum(axis=0) > 0).sum())
    for name, method in (("percent_agreement", "pa"), ("fleiss_kappa", "fleiss")):
        value, var = parts.variance(method)
        if method == "fleiss" and used < 2:
            value = float("nan")
        row = run.analytic(name, (lambda w, m=method: parts.coefficient(m, w)), value, var, n)
        out.coefficients.append(run.binary(row, counts) if method == "fleiss" and q == 2 else row)
    value, var = conger(codes[:, prep.rated[any_rating].any(axis=0)], q, np.eye(q)) if used >= 2 \
        else (float("nan"), float("nan"))
    out.coefficients.append(run.analytic("conger_kappa", None if run.ci == "auto" else
                                         _conger_stat(codes, q), value, var, n))
    alpha = AlphaParts(counts[multi], nominal_delta(q))
    a_val = float(alpha.alpha(np.ones((1, int(multi.sum()))))[0]) if used >= 2 else float("nan")
    row = run.boot("krippendorff_alpha", alpha.alpha, a_val, int(multi.sum())) if q != 2 or run.ci != "auto" \
        else _row("krippendorff_alpha", a_val)
    out.coefficients.append(run.binary(row, counts) if q == 2 else row)
    for name, method in (("gwet_ac1", "ac"), ("brennan_prediger", "bp")):
        value, var = parts.variance(method) if q >= 2 else (float("nan"), float("nan"))
        out.coefficients.append(run.analytic(name, (lambda w, m=method: parts.coefficient(m, w)), value, var, n))
    del one
    if q == 2:
        minority = int(counts.sum(axis=0).min())
        if minority < MIN_POSITIVES:
            out.warnings.append(f"field {out.field!r}: only {minority} rating(s) of the rarer category; "
                                f"intervals are unreliable below {MIN_POSITIVES}.")


def _conger_stat(codes: np.ndarray, q: int):
    def stat(w: np.ndarray) -> np.ndarray:
        res = np.empty(w.shape[0])
        for b, weights in enumerate(w):
            idx = np.repeat(np.arange(len(weights)), weights.astype(int))
            sub = codes[idx]
            keep = (sub >= 0).any(axis=0)
            res[b] = conger(sub[:, keep], q, np.eye(q))[0] if keep.sum() >= 2 else np.nan
        return res
    return stat


def _ordinal(prep: Prepared, run: _Runner, out: FieldAgreement, crossed: bool) -> None:
    q = len(prep.categories)
    any_rating = prep.ratings_per_item >= 1
    codes = prep.matrix[any_rating]
    counts = count_matrix(codes, q).astype(float)
    n = counts.shape[0]
    multi = counts.sum(axis=1) >= 2
    used = int((counts.sum(axis=0) > 0).sum())
    parts = CountParts(counts, np.eye(q))
    value, var = parts.variance("pa")
    out.coefficients.append(run.analytic("percent_agreement", lambda w: parts.coefficient("pa", w), value, var, n))
    two_complete = crossed and prep.rated[any_rating].any(axis=0).sum() == 2 and bool(multi.all())
    for wname in ("linear", "quadratic"):
        W = agreement_weights(q, wname)
        if two_complete:
            cols = codes[:, prep.rated[any_rating].any(axis=0)]
            value, var = conger(cols, q, W) if used >= 2 else (float("nan"), float("nan"))
            stat = None if run.ci == "auto" else _weighted_cohen_stat(cols, q, W)
            out.coefficients.append(run.analytic(f"weighted_kappa_{wname}", stat, value, var, n, method="cohen"))
        else:
            wparts = CountParts(counts, W)
            value, var = wparts.variance("fleiss") if used >= 2 else (float("nan"), float("nan"))
            out.coefficients.append(run.analytic(f"weighted_kappa_{wname}",
                                                 lambda w, p=wparts: p.coefficient("fleiss", w), value, var, n,
                                                 method="fleiss_weighted"))
    alpha = AlphaParts(counts[multi], "ordinal")
    a_val = float(alpha.alpha(np.ones((1, int(multi.sum()))))[0]) if used >= 2 else float("nan")
    out.coefficients.append(run.boot("krippendorff_alpha_ordinal", alpha.alpha, a_val, int(multi.sum())))
    oparts = CountParts(counts, agreement_weights(q, "ordinal"))
    value, var = oparts.variance("ac") if q >= 2 else (float("nan"), float("nan"))
    out.coefficients.append(run.analytic("gwet_ac2_ordinal", lambda w: oparts.coefficient("ac", w), value, var, n))


def _weighted_cohen_stat(codes: np.ndarray, q: int, W: np.ndarray):
    def stat(w: np.ndarray) -> np.ndarray:
        res = np.empty(w.shape[0])
        for b, weights in enumerate(w):
            idx = np.repeat(np.arange(len(weights)), weights.astype(int))
            res[b] = conger(codes[idx], q, W)[0]
        return res
    return stat


def _icc1_oneway(values: list[np.ndarray], confidence: float) -> dict[str, tuple[float, float, float]]:
    """One-way random ICC(1) and ICC(1,k) for unequal numbers of ratings per target.

    k is replaced by k0 = (N - sum k_i^2 / N) / (n - 1) (Shrout & Fleiss 1979; Donner 1986),
    which reduces to k for balanced data; F-based limits as for ICC(1).
    """
    n = len(values)
    sizes = np.array([len(v) for v in values], dtype=float)
    total = sizes.sum()
    grand = np.concatenate(values).mean()
    means = np.array([v.mean() for v in values])
    msb = float((sizes * (means - grand) ** 2).sum() / (n - 1))
    ssw = float(sum(((v - m) ** 2).sum() for v, m in zip(values, means)))
    dfw = total - n
    msw = ssw / dfw if dfw > 0 else float("nan")
    k0 = (total - (sizes ** 2).sum() / total) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        icc1 = (msb - msw) / (msb + (k0 - 1) * msw)
        icc1k = (msb - msw) / msb
        fval = msb / msw
        qq = 1 - (1 - confidence) / 2
        fl = fval / f_dist.ppf(qq, n - 1, dfw)
        fu = fval * f_dist.ppf(qq, dfw, n - 1)
        return {"icc1": (icc1, (fl - 1) / (fl + k0 - 1), (fu - 1) / (fu + k0 - 1)),
                "icc1k": (icc1k, 1 - 1 / fl, 1 - 1 / fu)}


def _score(prep: Prepared, run: _Runner, out: FieldAgreement, crossed: bool) -> None:
    multi = prep.ratings_per_item >= 2
    mat = prep.matrix[multi]
    n = int(multi.sum())
    forms: dict[str, tuple[float, float, float]] = {}
    if n >= 2:
        if crossed:
            cols = prep.rated[multi][0]
            table = _icc_table(mat[:, cols], confidence=run.confidence)
            for i, name in enumerate(("icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k")):
                forms[name] = (table["ICC"][i], table["ci_low"][i], table["ci_high"][i])
        else:
            forms = _icc1_oneway([row[~np.isnan(row)] for row in mat], run.confidence)
            out.warnings.append(f"field {out.field!r}: different raters rated different items; only the "
                                "one-way ICC(1)/ICC(1,k) apply (two-way forms need every rater on every item).")
    for name in ("icc1", "icc1k", "icc2", "icc2k", "icc3", "icc3k"):
        if name in forms:
            v, lo, hi = forms[name]
            if run.ci == "none":
                out.coefficients.append(_row(name, v))
            else:
                out.coefficients.append(_row(name, v, lo, hi, "f_test"))
    vals = mat[~np.isnan(mat)]
    uniq = np.unique(vals)
    index = {v: i for i, v in enumerate(uniq)}
    codes = np.full(mat.shape, -1, dtype=np.int64)
    ok = ~np.isnan(mat)
    codes[ok] = [index[v] for v in mat[ok]]
    counts = count_matrix(codes, len(uniq)).astype(float) if len(uniq) else np.zeros((n, 0))
    if len(uniq) >= 2:
        alpha = AlphaParts(counts, interval_delta(uniq))
        a_val = float(alpha.alpha(np.ones((1, n)))[0])
        out.coefficients.append(run.boot("krippendorff_alpha_interval", alpha.alpha, a_val, n))
    else:
        out.coefficients.append(_row("krippendorff_alpha_interval", float("nan")))


def _multi(prep: Prepared, run: _Runner, out: FieldAgreement) -> None:
    any_rating = prep.ratings_per_item >= 1
    mat = prep.matrix[any_rating]
    rated = prep.rated[any_rating]
    r_i = rated.sum(axis=1).astype(float)
    multi = r_i >= 2
    n = int(any_rating.sum())
    for cat in prep.categories:
        present = np.array([[bool(rated[i, j]) and cat in mat[i, j] for j in range(mat.shape[1])]
                            for i in range(mat.shape[0])], dtype=float).reshape(mat.shape)
        pos = present.sum(axis=1)
        counts = np.column_stack([r_i - pos, pos])
        n_pos = int(pos.sum())
        parts = CountParts(counts, np.eye(2))
        value, var = parts.variance("fleiss") if 0 < n_pos < r_i.sum() else (float("nan"), float("nan"))
        extra = {"category": _plain(cat), "n_positive": n_pos}
        row = run.analytic(f"fleiss_kappa:{cat}", lambda w, p=parts: p.coefficient("fleiss", w), value, var, n,
                           **extra)
        out.coefficients.append(run.binary(row, counts))
        alpha = AlphaParts(counts[multi], nominal_delta(2))
        a_val = float(alpha.alpha(np.ones((1, int(multi.sum()))))[0]) if 0 < n_pos < r_i.sum() else float("nan")
        row = _row(f"krippendorff_alpha:{cat}", a_val, **extra) if run.ci == "auto" else \
            run.boot(f"krippendorff_alpha:{cat}", alpha.alpha, a_val, int(multi.sum()), **extra)
        out.coefficients.append(run.binary(row, counts))
        if n_pos < MIN_POSITIVES:
            out.warnings.append(f"field {out.field!r}: category {cat!r} has {n_pos} positive rating(s) "
                                f"(< {MIN_POSITIVES}); its coefficients and intervals are unreliable.")
    cells = [mat[i, j] for i in range(mat.shape[0]) for j in range(mat.shape[1]) if rated[i, j]]
    uniq = sorted(set(cells), key=lambda s: sorted(map(str, s)))
    index = {s: k for k, s in enumerate(uniq)}
    codes = np.full(mat.shape, -1, dtype=np.int64)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            if rated[i, j]:
                codes[i, j] = index[mat[i, j]]
    counts = count_matrix(codes, len(uniq)).astype(float)[multi]
    if len(uniq) >= 2:
        alpha = AlphaParts(counts, masi_delta(uniq))
        a_val = float(alpha.alpha(np.ones((1, int(multi.sum()))))[0])
        out.coefficients.append(run.boot("krippendorff_alpha_masi", alpha.alpha, a_val, int(multi.sum())))
    else:
        out.coefficients.append(_row("krippendorff_alpha_masi", float("nan")))


def field_agreement(ratings: pd.DataFrame, *, field: str, kind: Literal["single", "ordinal", "multi", "score"],
                    categories: Sequence | None = None, score_range: tuple[float, float] | None = None,
                    item: str = "item_id", rater: str = "annotator", value: str = "value",
                    n_boot: int = 1000, seed: int = 0, ci: str = "auto", confidence: float = 0.95
                    ) -> FieldAgreement:
    r"""Every agreement coefficient that fits a field's kind, with intervals, from long ratings.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Long format, one row per (item, rater) for this field. Missing values (``None``, NaN,
        ``''``, ``'nan'``, ``'n/a'``, ``'NA'``) mean "not rated". For ``multi`` fields the value
        is a list/tuple/set of codes or an ``'a|b|c'`` string (an empty list is a rating: no code
        applies).
    field : str
        Field name (reported back; used in messages).
    kind : {'single', 'ordinal', 'multi', 'score'}
        Nominal codes, ordered codes, a set of codes, or a number.
    categories : sequence, optional
        The scheme's codes in scheme order. Needed for ordinal weights (else an ordered pandas
        categorical's order, else sorted with a warning) and gives AC1/AC2/Brennan–Prediger the
        scheme's category count. A code outside it raises :class:`~vignette_lab.errors.InputError`.
    score_range : (float, float), optional
        Allowed range of a score field; a value outside raises ``InputError``.
    item, rater, value : str
        Column names.
    n_boot : int, default=1000
        Bootstrap resamples (over items) for coefficients without an analytic interval.
    seed : int, default=0
        Seed of the bootstrap; the same seed gives the same intervals.
    ci : {'auto', 'bootstrap', 'percentile', 'none'}, default='auto'
        ``auto``: analytic intervals where they exist (Gwet's linearised variance, Student-t, for
        percent agreement, Fleiss/Conger/weighted κ, AC1/AC2, Brennan–Prediger; F-based for ICC)
        and BCa bootstrap for Krippendorff's α; for *binary* categories (two-category fields and
      every per-category row of a multi field) Fleiss' κ and α get the integrated-likelihood
      interval of the extended beta-binomial model instead (``integrated_likelihood``), which
      keeps ~95 % coverage at 5 % prevalence where Wald and bootstrap intervals fall to
      72–77 %; ``bootstrap``/``percentile``: BCa/percentile
        bootstrap for every non-ICC coefficient; ``none``: point values only.
    confidence : float, default=0.95

    Returns
    -------
    FieldAgreement
        See :class:`FieldAgreement`; ``to_dict()`` gives the JSON object of ``iaa --json``.

    Notes
    -----
    Coefficients by kind (names as reported):

    - ``single``: ``percent_agreement``, ``fleiss_kappa`` (Fleiss 1971, generalised to missing
      ratings by Gwet 2014), ``conger_kappa`` (Conger 1980; Cohen's κ for two raters),
      ``krippendorff_alpha`` (nominal), ``gwet_ac1``, ``brennan_prediger``.
    - ``ordinal``: ``percent_agreement``, ``weighted_kappa_linear`` / ``weighted_kappa_quadratic``
      — Cohen's weighted κ when exactly two raters rated every item (``method='cohen'``), else
      Fleiss' κ with the same agreement weights (Gwet 2014, ``method='fleiss_weighted'``) —,
      ``krippendorff_alpha_ordinal``, ``gwet_ac2_ordinal`` (AC2 with Gwet's ordinal weights).
    - ``score``: ``icc1, icc1k, icc2, icc2k, icc3, icc3k`` when the design is fully crossed;
      only ``icc1``/``icc1k`` (one-way, k0 for unequal group sizes) when raters vary between
      items; ``krippendorff_alpha_interval``.
    - ``multi``: per category ``fleiss_kappa:<code>`` and ``krippendorff_alpha:<code>`` on
      presence/absence (with ``n_positive``; fewer than 5 positives is flagged), and
      ``krippendorff_alpha_masi`` on whole code sets (MASI distance, Passonneau 2006).

    The rater model never depends on rater ids or their order: raters are the real people
    (columns), not "slots", and every coefficient is symmetric in them. Items rated once are left
    out (they still count toward the category prevalences of Fleiss/AC1/Conger, as in irrCAC);
    ``n_items`` counts items with two or more ratings. Bootstrap intervals report in
    ``n_boot_undefined`` how many resamples gave an undefined coefficient (left out of the
    percentiles).

    References
    ----------
    .. [1] Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.
    .. [2] Conger, A. J. (1980). Integration and generalization of kappas for multiple raters.
       *Psychological Bulletin*, 88(2), 322–328.
    .. [3] Krippendorff, K. (2004). *Content Analysis* (2nd ed.), ch. 11. Sage.
    .. [4] Passonneau, R. (2006). Measuring agreement on set-valued items (MASI). *LREC 2006*.
    .. [5] Efron, B. (1987). Better bootstrap confidence intervals. *JASA*, 82(397), 171–185.

    Examples
    --------
    >>> import pandas as pd
    >>> from vignette_lab.agreement import field_agreement
    >>> df = pd.DataFrame({"item_id": [1, 1, 2, 2, 3, 3, 4, 4],
    ...                    "annotator": ["kim", "lee"] * 4,
    ...                    "value": ["q", "q", "r", "r", "q", "r", "r", "r"]})
    >>> res = field_agreement(df, field="behaviour", kind="single", categories=["q", "r"])
    >>> round(res.coefficient("conger_kappa")["value"], 3), res.n_items, res.design
    (0.5, 4, 'fully_crossed')
    """
    if ci not in CI_MODES:
        raise InputError(f"ci must be one of {', '.join(CI_MODES)}. Got {ci!r}.", field="ci")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise InputError(f"n_boot must be a positive int. Got {n_boot!r}.", field="n_boot")
    if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
        raise InputError(f"confidence must be in (0, 1). Got {confidence!r}.", field="confidence")
    prep = prepare(ratings, field=field, kind=kind, categories=categories, score_range=score_range,
                   item=item, rater=rater, value=value)
    per_item = prep.ratings_per_item
    multi = per_item >= 2
    n_items = int(multi.sum())
    crossed = fully_crossed(prep)
    design = "no_overlap" if n_items == 0 else ("fully_crossed" if crossed else "varying_raters")
    out = FieldAgreement(field=field, kind=kind, n_items=n_items,
                         raters_per_item={"min": int(per_item[multi].min()) if n_items else 0,
                                          "max": int(per_item[multi].max()) if n_items else 0},
                         left_out=prep.left_out, warnings=list(prep.warnings), design=design,
                         n_raters=int(prep.rated.any(axis=0).sum()), categories=prep.categories)
    if n_items == 0:
        out.warnings.append(f"field {field!r}: no item has two or more ratings; nothing to measure.")
        return out
    run = _Runner(ci, int(n_boot), int(seed), float(confidence))
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "single":
            _nominal(prep, run, out)
        elif kind == "ordinal":
            _ordinal(prep, run, out, crossed)
        elif kind == "score":
            _score(prep, run, out, crossed)
        else:
            _multi(prep, run, out)
    if n_items < 2:
        out.warnings.append(f"field {field!r}: only {n_items} item with two or more ratings; no interval.")
    return out
