"""Bootstrap confidence intervals and the tidy agreement report (private; see :mod:`vignette_lab.agreement`).

Design: every coefficient has a point function (``cohen_kappa`` …) and a ``*_ci`` companion
with the same data arguments plus the bootstrap options, returning ``(low, high)``. The
companions encode labels once and resample units on integer codes or count matrices, so
1,000 resamples stay fast. :func:`agreement_report` puts estimates and intervals in one
tidy DataFrame. ICC intervals are analytic (F distribution) and live in ``icc``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from vignette_lab.errors import InputError

from ._coefficients import (
    UndefinedAgreementWarning,
    _ac1_from_counts,
    _agreement_parts,
    _alpha_matrix,
    _alpha_value,
    _as_ratings_matrix,
    _fleiss_from_counts,
    _kappa_codes,
    _kappa_from_codes,
    _ratings_counts,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
)
from ._interpret import interpret_kappa


def _check_bootstrap_options(n_resamples, confidence, func: str) -> None:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise InputError(
            f"The 'n_resamples' parameter of {func} must be a positive int. Got {n_resamples!r} instead.",
            field="n_resamples")
    if not isinstance(confidence, (float, int)) or not 0 < confidence < 1:
        raise InputError(
            f"The 'confidence' parameter of {func} must be in (0, 1). Got {confidence!r} instead.",
            field="confidence")


def bootstrap_ci(statistic, *args, n_resamples=1000, confidence=0.95, seed=0, unit_axis=0):
    r"""Percentile bootstrap confidence interval, resampling units (items) with replacement.

    Draws ``n_resamples`` samples of the :math:`n` units with replacement (the same unit indices
    for every array in ``args``), evaluates ``statistic`` on each and returns the
    :math:`\alpha/2` and :math:`1-\alpha/2` percentiles, :math:`\alpha = 1 - \text{confidence}`.

    Parameters
    ----------
    statistic : callable
        ``statistic(*resampled_args) -> float``. A resample where it returns ``nan`` (e.g. only
        one category drawn) is skipped.
    *args : array-like
        Data arrays sharing the unit axis (DataFrames are converted to arrays).
    n_resamples : int, default=1000
        Number of bootstrap resamples.
    confidence : float, default=0.95
        Coverage of the interval.
    seed : int or None, default=0
        Seed of :func:`numpy.random.default_rng`; the same seed gives the same interval.
    unit_axis : int or tuple of int, default=0
        Axis of the units in each array (one int for all, or one per array). Items × raters
        matrices use 0; Krippendorff's raters × units layout uses 1.

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` when every resample was undefined.

    Notes
    -----
    This is the plain percentile bootstrap over units (Efron & Tibshirani 1993, ch. 13), which
    keeps each unit's ratings together; it is not Krippendorff's own bootstrap of alpha
    (Hayes & Krippendorff 2007), so intervals can differ slightly from that software.

    References
    ----------
    .. [1] Efron, B., & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*.
       Chapman & Hall.

    Examples
    --------
    >>> import numpy as np
    >>> from vignette_lab.agreement import bootstrap_ci
    >>> x = np.arange(20.0)
    >>> low, high = bootstrap_ci(np.mean, x, n_resamples=500, seed=1)
    >>> bool(low < 9.5 < high)
    True
    """
    if not callable(statistic):
        raise InputError(f"bootstrap_ci needs a callable statistic. Got {type(statistic).__name__}.",
                         field="statistic")
    if not args:
        raise InputError("bootstrap_ci needs at least one data array after the statistic.", field="args")
    _check_bootstrap_options(n_resamples, confidence, "bootstrap_ci")
    arrays = [a.to_numpy() if isinstance(a, (pd.DataFrame, pd.Series)) else np.asarray(a) for a in args]
    axes = (unit_axis,) * len(arrays) if isinstance(unit_axis, (int, np.integer)) else tuple(unit_axis)
    if len(axes) != len(arrays):
        raise InputError(f"bootstrap_ci got {len(axes)} unit axes for {len(arrays)} arrays.", field="unit_axis")
    sizes = {a.shape[ax] for a, ax in zip(arrays, axes)}
    if len(sizes) != 1:
        raise InputError(f"bootstrap_ci needs the same number of units in every array. Got {sorted(sizes)}.",
                         field="args")
    n = sizes.pop()
    if n == 0:
        raise InputError("bootstrap_ci needs at least one unit. Got none.", field="args")
    rng = np.random.default_rng(seed)
    values = np.empty(n_resamples)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", UndefinedAgreementWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        for b in range(n_resamples):
            idx = rng.integers(0, n, n)
            values[b] = statistic(*(np.take(a, idx, axis=ax) for a, ax in zip(arrays, axes)))
    values = values[~np.isnan(values)]
    if values.size == 0:
        return float("nan"), float("nan")
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def kappa_ci(y1, y2, *, weights=None, labels=None, n_resamples=1000, confidence=0.95, seed=0):
    """Bootstrap CI of :func:`cohen_kappa` over items (pairs with a missing rating dropped first).

    Parameters
    ----------
    y1, y2, weights, labels
        As in :func:`cohen_kappa`.
    n_resamples, confidence, seed
        As in :func:`bootstrap_ci`.

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` if kappa is undefined on the data.

    Examples
    --------
    >>> from vignette_lab.agreement import kappa_ci
    >>> y1 = ["공감", "질문", "공감", "요약", "질문", "공감"] * 5
    >>> y2 = ["공감", "질문", "요약", "요약", "질문", "공감"] * 5
    >>> low, high = kappa_ci(y1, y2, n_resamples=200)
    >>> bool(low <= 0.7523 <= high)
    True
    """
    _check_bootstrap_options(n_resamples, confidence, "kappa_ci")
    prepared = _kappa_codes(y1, y2, weights=weights, labels=labels, func="kappa_ci")
    if prepared is None:
        return float("nan"), float("nan")
    a, b, q = prepared
    return bootstrap_ci(lambda x, y: _kappa_from_codes(x, y, q, weights), a, b,
                        n_resamples=n_resamples, confidence=confidence, seed=seed)


def fleiss_ci(ratings, *, n_resamples=1000, confidence=0.95, seed=0):
    """Bootstrap CI of :func:`fleiss_kappa`, resampling items (rows of ``ratings``).

    Parameters
    ----------
    ratings
        As in :func:`fleiss_kappa` (items × raters).
    n_resamples, confidence, seed
        As in :func:`bootstrap_ci`.

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Examples
    --------
    >>> from vignette_lab.agreement import fleiss_ci
    >>> ratings = [[1, 1, 2], [2, 2, 2], [3, 3, 1], [1, 1, 1], [2, 3, 2], [3, 3, 3]] * 4
    >>> low, high = fleiss_ci(ratings, n_resamples=200)
    >>> bool(low < high)
    True
    """
    _check_bootstrap_options(n_resamples, confidence, "fleiss_ci")
    counts = _ratings_counts(ratings, func="fleiss_ci")
    return bootstrap_ci(_fleiss_from_counts, counts, n_resamples=n_resamples, confidence=confidence, seed=seed)


def ac1_ci(ratings, *, n_resamples=1000, confidence=0.95, seed=0):
    """Bootstrap CI of :func:`gwet_ac1`, resampling items; the category count q stays that of the data.

    Parameters
    ----------
    ratings
        As in :func:`gwet_ac1` (items × raters).
    n_resamples, confidence, seed
        As in :func:`bootstrap_ci`.

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Examples
    --------
    >>> from vignette_lab.agreement import ac1_ci
    >>> ratings = [[1, 1, 2], [2, 2, 2], [3, 3, 1], [1, 1, 1], [2, 3, 2], [3, 3, 3]] * 4
    >>> low, high = ac1_ci(ratings, n_resamples=200)
    >>> bool(low < high)
    True
    """
    _check_bootstrap_options(n_resamples, confidence, "ac1_ci")
    counts = _ratings_counts(ratings, func="ac1_ci")
    q = counts.shape[1]
    return bootstrap_ci(lambda c: _ac1_from_counts(c, q), counts,
                        n_resamples=n_resamples, confidence=confidence, seed=seed)


def _alpha_or_nan(matrix: np.ndarray, level: str) -> float:
    if not np.nanmin(matrix, initial=np.inf) < np.nanmax(matrix, initial=-np.inf) or not ((~np.isnan(matrix)).sum(axis=0) >= 2).any():
        return float("nan")
    return _alpha_value(matrix, level)


def alpha_ci(data, *, level="nominal", n_resamples=1000, confidence=0.95, seed=0):
    """Bootstrap CI of :func:`krippendorff_alpha`, resampling units (columns of ``data``).

    Parameters
    ----------
    data, level
        As in :func:`krippendorff_alpha` (raters × units).
    n_resamples, confidence, seed
        As in :func:`bootstrap_ci`.

    Returns
    -------
    tuple of float
        ``(low, high)``.

    Examples
    --------
    >>> from vignette_lab.agreement import alpha_ci
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, 5] * 3, [1, 2, 3, 3, 2, 2, 4, 1, 2, 5] * 3]
    >>> low, high = alpha_ci(data, n_resamples=200)
    >>> bool(low < high <= 1)
    True
    """
    _check_bootstrap_options(n_resamples, confidence, "alpha_ci")
    matrix = _alpha_matrix(data, level=level, func="alpha_ci")
    return bootstrap_ci(lambda m: _alpha_or_nan(m, level), matrix, n_resamples=n_resamples,
                        confidence=confidence, seed=seed, unit_axis=1)


def _percent_agreement(counts: np.ndarray) -> float:
    return _agreement_parts(counts)[0]


def agreement_report(ratings, *, level="nominal", ci=True, n_resamples=1000, confidence=0.95, seed=0):
    """All categorical agreement coefficients for one items × raters matrix, as a tidy table.

    Parameters
    ----------
    ratings : list, numpy.ndarray or pandas.DataFrame of shape (n_items, n_raters)
        Category labels, ``None``/``NaN`` for missing (the :func:`fleiss_kappa` layout; it is
        transposed for Krippendorff's alpha).
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, default='nominal'
        Level of measurement for Krippendorff's alpha.
    ci : bool, default=True
        Add bootstrap intervals (same seed, so every coefficient sees the same resamples).
    n_resamples, confidence, seed
        As in :func:`bootstrap_ci`.

    Returns
    -------
    pandas.DataFrame
        One row per statistic — ``percent_agreement``, ``fleiss_kappa``, ``gwet_ac1``,
        ``krippendorff_alpha`` and, with exactly 2 raters, ``cohen_kappa`` — with columns
        ``statistic``, ``estimate``, ``ci_low``, ``ci_high`` (nan when ``ci=False``),
        ``n_items``, ``n_raters``, ``interpretation_en``, ``interpretation_ko`` (Landis & Koch
        bands for the kappa-type rows; empty for percent agreement and alpha, which have their
        own conventions).

    Examples
    --------
    >>> from vignette_lab.agreement import agreement_report
    >>> ratings = [["공감", "공감"], ["질문", "질문"], ["요약", "공감"], ["질문", "질문"]] * 3
    >>> agreement_report(ratings, n_resamples=100)["statistic"].tolist()
    ['percent_agreement', 'fleiss_kappa', 'gwet_ac1', 'krippendorff_alpha', 'cohen_kappa']
    """
    _check_bootstrap_options(n_resamples, confidence, "agreement_report")
    arr = _as_ratings_matrix(ratings, func="agreement_report")
    counts = _ratings_counts(arr, func="agreement_report")
    q = counts.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedAgreementWarning)
        rows = [
            ("percent_agreement", _percent_agreement(counts),
             lambda: bootstrap_ci(_percent_agreement, counts, n_resamples=n_resamples,
                                  confidence=confidence, seed=seed)),
            ("fleiss_kappa", fleiss_kappa(arr),
             lambda: fleiss_ci(arr, n_resamples=n_resamples, confidence=confidence, seed=seed)),
            ("gwet_ac1", gwet_ac1(arr) if q > 1 else float("nan"),
             lambda: ac1_ci(arr, n_resamples=n_resamples, confidence=confidence, seed=seed)),
            ("krippendorff_alpha", krippendorff_alpha(arr.T, level=level),
             lambda: alpha_ci(arr.T, level=level, n_resamples=n_resamples, confidence=confidence,
                              seed=seed)),
        ]
        if arr.shape[1] == 2:
            rows.append(("cohen_kappa", cohen_kappa(arr[:, 0], arr[:, 1]),
                         lambda: kappa_ci(arr[:, 0], arr[:, 1], n_resamples=n_resamples,
                                          confidence=confidence, seed=seed)))
        records = []
        for name, estimate, interval in rows:
            low, high = interval() if ci else (float("nan"), float("nan"))
            band = interpret_kappa(estimate) if name in ("fleiss_kappa", "gwet_ac1", "cohen_kappa") else None
            records.append({"statistic": name, "estimate": float(estimate), "ci_low": low, "ci_high": high,
                            "n_items": int(counts.shape[0]), "n_raters": int(arr.shape[1]),
                            "interpretation_en": band.en if band else "",
                            "interpretation_ko": band.ko if band else ""})
    return pd.DataFrame(records)
