"""Intraclass correlation coefficients from a vectorised two-way ANOVA (private; see :mod:`vignette_lab.agreement`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import f as f_dist

from vignette_lab.errors import InputError

_TYPES = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
_DESCRIPTIONS = [
    "ICC(1): one-way random, single rater",
    "ICC(A,1): two-way random, absolute agreement, single rater",
    "ICC(C,1): two-way mixed, consistency, single rater",
    "ICC(k): one-way random, mean of k raters",
    "ICC(A,k): two-way random, absolute agreement, mean of k raters",
    "ICC(C,k): two-way mixed, consistency, mean of k raters",
]
_COLUMNS = ["Type", "Description", "ICC", "F", "df1", "df2", "pval", "ci_low", "ci_high"]


def _wide_matrix(data: pd.DataFrame, *, targets, raters, ratings, nan_policy: str):
    """Targets × raters float matrix; returns (matrix, kept target labels, dropped target labels)."""
    if not isinstance(data, pd.DataFrame):
        raise InputError(f"icc expects a long-format pandas DataFrame. Got {type(data).__name__} instead.",
                         field="data")
    if nan_policy not in ("raise", "omit"):
        raise InputError(
            f"The 'nan_policy' parameter of icc must be 'raise' or 'omit'. Got {nan_policy!r} instead.",
            field="nan_policy")
    for name, col in (("targets", targets), ("raters", raters), ("ratings", ratings)):
        if col not in data.columns:
            raise InputError(f"icc: {name} column {col!r} not found; columns are {list(data.columns)}.",
                             field=name)
    values = data[ratings]
    if values.dtype.kind not in "biuf":
        raise InputError(f"icc needs numeric ratings; column {ratings!r} has dtype {values.dtype}.",
                         field="ratings")
    t_codes, t_labels = pd.factorize(data[targets], sort=True)
    r_codes, r_labels = pd.factorize(data[raters], sort=True)
    if (t_codes < 0).any() or (r_codes < 0).any():
        raise InputError("icc: the targets and raters columns must not contain missing values.",
                         field="targets" if (t_codes < 0).any() else "raters")
    n, k = len(t_labels), len(r_labels)
    cell = t_codes.astype(np.int64) * k + r_codes
    if len(np.unique(cell)) != len(cell):
        dup = data[pd.Series(cell).duplicated().to_numpy()].iloc[0]
        raise InputError(
            f"icc needs one rating per (target, rater); target {dup[targets]!r} has two ratings from "
            f"rater {dup[raters]!r}. Aggregate duplicates first.", field="ratings")
    flat = np.full(n * k, np.nan)
    flat[cell] = values.to_numpy(dtype=float)
    matrix = flat.reshape(n, k)
    incomplete = np.isnan(matrix).any(axis=1)
    dropped = list(t_labels[incomplete])
    if incomplete.any():
        if nan_policy == "raise":
            shown = ", ".join(map(repr, dropped[:5])) + (" …" if len(dropped) > 5 else "")
            raise InputError(
                f"icc found {len(dropped)} target(s) with a missing rating (missing value or rater "
                f"absent): {shown}. Fill them or pass nan_policy='omit' to drop those targets.",
                field="ratings")
        matrix = matrix[~incomplete]
    return matrix, list(t_labels[~incomplete]), dropped, k


def _icc_table(matrix: np.ndarray, *, confidence: float) -> dict[str, np.ndarray]:
    n, k = matrix.shape
    grand = matrix.mean()
    ss_total = float(((matrix - grand) ** 2).sum())
    ss_rows = k * float(((matrix.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((matrix.mean(axis=0) - grand) ** 2).sum())
    ss_err = ss_total - ss_rows - ss_cols
    df_rows, df_cols, df_err = n - 1, k - 1, (n - 1) * (k - 1)
    # numpy scalars: a zero mean square (perfect agreement) gives inf/nan, not ZeroDivisionError.
    msb = np.float64(ss_rows) / df_rows
    msj = np.float64(ss_cols) / df_cols
    mse = max(np.float64(ss_err), np.float64(0.0)) / df_err  # clip -1e-16 round-off
    msw = (ss_cols + mse * df_err) / (df_cols + df_err)

    with np.errstate(divide="ignore", invalid="ignore"):
        return _icc_rows(n, k, msb, msj, mse, msw, df_rows, df_err, confidence)


def _icc_rows(n, k, msb, msj, mse, msw, df_rows, df_err, confidence):
    icc1 = (msb - msw) / (msb + (k - 1) * msw)
    icc2 = (msb - mse) / (msb + (k - 1) * mse + k * (msj - mse) / n)
    icc3 = (msb - mse) / (msb + (k - 1) * mse)
    icc1k = (msb - msw) / msb
    icc2k = (msb - mse) / (msb + (msj - mse) / n)
    icc3k = (msb - mse) / msb

    f1 = msb / msw
    f3 = msb / mse
    df1w = n * (k - 1)
    p1 = f_dist.sf(f1, df_rows, df1w)
    p3 = f_dist.sf(f3, df_rows, df_err)

    q = 1 - (1 - confidence) / 2
    # Shrout & Fleiss (1979) F-based limits for ICC(1) and ICC(3).
    f1l = f1 / f_dist.ppf(q, df_rows, df1w)
    f1u = f1 * f_dist.ppf(q, df1w, df_rows)
    f3l = f3 / f_dist.ppf(q, df_rows, df_err)
    f3u = f3 * f_dist.ppf(q, df_err, df_rows)
    # ICC(2): Satterthwaite-approximated df (McGraw & Wong 1996, Table 7).
    fj = msj / mse
    vn = df_err * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    vd = df_rows * k ** 2 * icc2 ** 2 * fj ** 2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
    v = vn / vd
    f2u = f_dist.ppf(q, df_rows, v)
    f2l = f_dist.ppf(q, v, df_rows)
    denom = k * msj + (k * n - k - n) * mse
    l2 = n * (msb - f2u * mse) / (f2u * denom + n * msb)
    u2 = n * (f2l * msb - mse) / (denom + n * f2l * msb)

    values = np.array([icc1, icc2, icc3, icc1k, icc2k, icc3k], dtype=float)
    ci_low = np.array([(f1l - 1) / (f1l + k - 1), l2, (f3l - 1) / (f3l + k - 1),
                       1 - 1 / f1l, l2 * k / (1 + l2 * (k - 1)), 1 - 1 / f3l], dtype=float)
    ci_high = np.array([(f1u - 1) / (f1u + k - 1), u2, (f3u - 1) / (f3u + k - 1),
                        1 - 1 / f1u, u2 * k / (1 + u2 * (k - 1)), 1 - 1 / f3u], dtype=float)
    # Perfect agreement makes F infinite; the interval then collapses onto ICC = 1.
    perfect = values == 1.0
    ci_low[perfect & np.isnan(ci_low)] = 1.0
    ci_high[perfect & np.isnan(ci_high)] = 1.0
    return {
        "ICC": values,
        "F": np.array([f1, f3, f3, f1, f3, f3]),
        "df1": np.full(6, df_rows, dtype=np.int64),
        "df2": np.array([df1w, df_err, df_err, df1w, df_err, df_err], dtype=np.int64),
        "pval": np.array([p1, p3, p3, p1, p3, p3]),
        "ci_low": ci_low,
        "ci_high": ci_high,
    }


def icc(data: pd.DataFrame, *, targets, raters, ratings, nan_policy="raise", confidence=0.95) -> pd.DataFrame:
    r"""Intraclass correlation coefficients ICC1–ICC3k with F tests and F-based confidence intervals.

    From the two-way ANOVA of the :math:`n` targets × :math:`k` raters matrix, with mean squares
    for targets :math:`MS_R`, raters :math:`MS_C`, residual :math:`MS_E` and within targets
    :math:`MS_W = (SS_C + SS_E) / (n(k-1))`:

    .. math::

        ICC1 &= \frac{MS_R - MS_W}{MS_R + (k-1) MS_W}, \qquad
        ICC1k = \frac{MS_R - MS_W}{MS_R} \\
        ICC2 &= \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + k (MS_C - MS_E)/n}, \qquad
        ICC2k = \frac{MS_R - MS_E}{MS_R + (MS_C - MS_E)/n} \\
        ICC3 &= \frac{MS_R - MS_E}{MS_R + (k-1) MS_E}, \qquad
        ICC3k = \frac{MS_R - MS_E}{MS_R}

    Parameters
    ----------
    data : pandas.DataFrame
        Long format: one row per (target, rater) rating.
    targets, raters, ratings : str
        Column names: what is rated (e.g. session), who rates (reviewer), the numeric score.
    nan_policy : {'raise', 'omit'}, default='raise'
        What to do with targets that miss a rating (a NaN score or a rater without a row):
        ``'raise'`` raises :class:`~vignette_lab.errors.InputError` naming them, ``'omit'``
        drops them (complete-case analysis, as pingouin does).
    confidence : float, default=0.95
        Level of the F-based confidence intervals.

    Returns
    -------
    pandas.DataFrame
        Six rows, ``Type`` = ``ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k`` (Shrout & Fleiss 1979);
        columns ``Type``, ``Description`` (McGraw & Wong 1996 name and model), ``ICC``, ``F``,
        ``df1``, ``df2``, ``pval`` (F test of ICC = 0), ``ci_low``, ``ci_high``.
        ``result.attrs`` holds ``n_targets``, ``n_raters``, ``n_dropped_targets`` and
        ``dropped_targets``.

    Notes
    -----
    Which to use: ICC2/ICC2k (absolute agreement, raters a random sample) when the same
    reviewers' scores must agree in level, e.g. the gate's 0–5 dimension scores; ICC3/ICC3k
    when only rank consistency of these fixed raters matters; ICC1 when each target has
    different raters. Single-rater forms describe one reviewer, ``k`` forms the mean of ``k``.
    Interpret with :func:`interpret_icc` (Koo & Li 2016: < 0.5 poor, 0.5–0.75 moderate,
    0.75–0.9 good, > 0.9 excellent). CIs for ICC2 use the Satterthwaite approximation of
    McGraw & Wong (1996). Validated against :func:`pingouin.intraclass_corr` to 1e-9 and
    against Shrout & Fleiss (1979) Table 2.

    References
    ----------
    .. [1] Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: Uses in assessing
       rater reliability. *Psychological Bulletin*, 86(2), 420–428.
    .. [2] McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass
       correlation coefficients. *Psychological Methods*, 1(1), 30–46.
    .. [3] Koo, T. K., & Li, M. Y. (2016). A guideline of selecting and reporting intraclass
       correlation coefficients for reliability research. *Journal of Chiropractic Medicine*,
       15(2), 155–163.

    Examples
    --------
    >>> import pandas as pd
    >>> from vignette_lab.agreement import icc
    >>> wide = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> long = pd.DataFrame([(t, j, s) for t, row in enumerate(wide) for j, s in enumerate(row)],
    ...                     columns=["target", "judge", "score"])
    >>> icc(long, targets="target", raters="judge", ratings="score").set_index("Type")["ICC"].round(2).tolist()
    [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    """
    if not (isinstance(confidence, (float, int)) and 0 < confidence < 1):
        raise InputError(f"The 'confidence' parameter of icc must be in (0, 1). Got {confidence!r} instead.",
                         field="confidence")
    matrix, kept, dropped, k = _wide_matrix(data, targets=targets, raters=raters, ratings=ratings,
                                            nan_policy=nan_policy)
    if k < 2:
        raise InputError(f"icc needs at least 2 raters. Got {k}.", field="raters")
    if matrix.shape[0] < 2:
        raise InputError(
            f"icc needs at least 2 targets with complete ratings. Got {matrix.shape[0]} "
            f"({len(dropped)} dropped for missing ratings).", field="targets")
    table = _icc_table(matrix, confidence=confidence)
    out = pd.DataFrame({"Type": _TYPES, "Description": _DESCRIPTIONS, **table}, columns=_COLUMNS)
    out.attrs.update(n_targets=matrix.shape[0], n_raters=k, n_dropped_targets=len(dropped),
                     dropped_targets=dropped)
    return out
