"""Chance-corrected agreement coefficients for categorical labels (private; see :mod:`vignette_lab.agreement`)."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable, Sequence
from typing import Literal

import numpy as np
import pandas as pd

from vignette_lab.errors import InputError

_WEIGHTS = (None, "linear", "quadratic")
_LEVELS = ("nominal", "ordinal", "interval", "ratio")


class UndefinedAgreementWarning(RuntimeWarning):
    """A coefficient is undefined for the data (e.g. one category only) and ``nan`` is returned."""


# --------------------------------------------------------------------------- input helpers

def _as_1d(y, *, name: str, func: str) -> np.ndarray:
    if isinstance(y, (str, bytes)) or not isinstance(y, (Sequence, np.ndarray, pd.Series, pd.Index)):
        raise InputError(
            f"The '{name}' parameter of {func} must be a list, array or Series of labels. "
            f"Got {type(y).__name__} instead.", field=name)
    if isinstance(y, (pd.Series, pd.Index)):
        y = y.to_numpy()
    # Lists go through object dtype: np.asarray(["1", 2]) would silently turn 2 into "2".
    arr = _homogeneous(np.asarray(y, dtype=None if isinstance(y, np.ndarray) else object))
    if arr.ndim != 1:
        raise InputError(
            f"The '{name}' parameter of {func} must be one-dimensional. Got shape {arr.shape} instead.",
            field=name)
    return arr


def _homogeneous(arr: np.ndarray) -> np.ndarray:
    """Numeric arrays stay numeric (fast paths); anything else becomes an object array."""
    return arr if arr.dtype.kind in "biuf" else arr.astype(object)


def _check_label_kinds(values: np.ndarray, *, func: str, field: str) -> None:
    """Refuse a mix of text and numbers: '1' and 1 would silently be two categories."""
    if values.dtype != object or values.size == 0:
        return
    if pd.api.types.infer_dtype(values, skipna=True) in ("mixed", "mixed-integer"):
        raise InputError(
            f"{func} got a mix of text and numeric labels; use one kind (e.g. all str).", field=field)


def _as_ratings_matrix(ratings, *, func: str, name: str = "ratings") -> np.ndarray:
    if isinstance(ratings, pd.DataFrame):
        arr = _homogeneous(ratings.to_numpy())
    elif isinstance(ratings, (Sequence, np.ndarray)) and not isinstance(ratings, (str, bytes)):
        arr = _homogeneous(np.asarray(ratings, dtype=None if isinstance(ratings, np.ndarray) else object))
    else:
        raise InputError(
            f"The '{name}' parameter of {func} must be a 2-D list, array or DataFrame. "
            f"Got {type(ratings).__name__} instead.", field=name)
    if arr.ndim != 2:
        raise InputError(
            f"The '{name}' parameter of {func} must be 2-D. Got shape {arr.shape} instead.", field=name)
    return arr


MISSING_STRINGS = frozenset({"", "nan", "n/a", "na"})


def _is_missing_string(value) -> bool:
    return isinstance(value, str) and value.strip().lower() in MISSING_STRINGS


def _blank_missing_strings(arr: np.ndarray) -> np.ndarray:
    """Text arrays: '', 'nan', 'n/a', 'NA' (e.g. np.array(["a", np.nan]) stores 'nan') -> None.

    Checked on the distinct values only, so it costs one hash pass, not a string pass per element.
    """
    if arr.dtype != object or arr.size == 0:
        return arr
    bad = [u for u in pd.unique(arr.ravel()) if _is_missing_string(u)]
    if not bad:
        return arr
    out = arr.copy()
    out[np.isin(out, np.array(bad, dtype=object))] = None
    return out


def _encode(arr: np.ndarray, *, func: str, field: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (-1 = missing) and the categories, for any array of labels.

    Missing: None, NaN and the strings '', 'nan', 'n/a', 'NA' (any case, spaces ignored).
    """
    flat = arr.ravel()
    codes, uniques = pd.factorize(flat, sort=False, use_na_sentinel=True)  # None/NaN -> -1
    uniques = np.asarray(uniques, dtype=object)
    blank = np.fromiter((_is_missing_string(u) for u in uniques), dtype=bool, count=len(uniques))
    if blank.any():
        remap = np.full(len(uniques), -1, dtype=np.int64)
        remap[~blank] = np.arange(int((~blank).sum()))
        codes = np.where(codes >= 0, remap[np.maximum(codes, 0)], -1)
        uniques = uniques[~blank]
    _check_label_kinds(uniques, func=func, field=field)
    return codes.reshape(arr.shape), uniques


def _count_matrix(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Items × categories matrix r_ik of how many raters put item i into category k."""
    n_items = codes.shape[0]
    rows = np.broadcast_to(np.arange(n_items)[:, None], codes.shape)
    ok = codes >= 0
    flat = rows[ok] * n_categories + codes[ok]
    return np.bincount(flat, minlength=n_items * n_categories).reshape(n_items, n_categories)


def _undefined(func: str, why: str) -> float:
    warnings.warn(f"{func} is undefined: {why}; returning nan.", UndefinedAgreementWarning, stacklevel=3)
    return float("nan")


# --------------------------------------------------------------------------- Cohen's kappa

def _kappa_codes(y1, y2, *, weights, labels, func: str):
    """Integer codes of the complete pairs and the number of categories; None if one category."""
    if weights not in _WEIGHTS:
        raise InputError(
            f"The 'weights' parameter of {func} must be 'linear', 'quadratic' or None. "
            f"Got {weights!r} instead.", field="weights")
    a = _as_1d(y1, name="y1", func=func)
    b = _as_1d(y2, name="y2", func=func)
    if len(a) != len(b):
        raise InputError(
            f"{func} needs y1 and y2 of equal length. Got {len(a)} and {len(b)} instead.", field="y2")
    a, b = _blank_missing_strings(a), _blank_missing_strings(b)
    keep = ~(pd.isna(a) | pd.isna(b))
    a, b = a[keep], b[keep]
    if len(a) == 0:
        raise InputError(f"{func} needs at least one item rated by both raters. Got none.", field="y1")
    both = np.concatenate([a, b])
    _check_label_kinds(both, func=func, field="y1")
    # Hash-based factorize with sorted categories: same codes as np.unique, O(n) instead of a sort.
    codes, present = pd.factorize(both, sort=True)
    present = np.asarray(present, dtype=object)
    if labels is not None:
        # All given labels are kept: an unused middle category still widens weighted distances.
        used = list(labels)
        if len(used) == 0:
            raise InputError(f"The 'labels' parameter of {func} must not be empty.", field="labels")
        index = {lab: i for i, lab in enumerate(used)}
        unknown = [v for v in present.tolist() if v not in index]
        if unknown:
            raise InputError(
                f"{func} got labels not in 'labels': {sorted(map(str, unknown))[:5]}.", field="labels")
        codes = np.array([index[v] for v in present.tolist()], dtype=np.int64)[codes]
        n_categories = len(used)
    else:
        n_categories = len(present)
    if len(present) < 2:
        return None
    codes = codes.astype(np.int64).ravel()
    return codes[: len(a)], codes[len(a):], n_categories


def cohen_kappa(y1, y2, *, weights=None, labels=None) -> float:
    r"""Cohen's kappa between two raters, optionally weighted.

    .. math::

        \kappa = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}}

    where :math:`O` is the observed confusion matrix, :math:`E` the matrix expected from the
    two raters' marginals, and :math:`w_{ij}` is 0 on the diagonal and 1 elsewhere (unweighted),
    :math:`|i-j|` (linear) or :math:`(i-j)^2` (quadratic). For the unweighted case this is the
    familiar :math:`(p_o - p_e) / (1 - p_e)`. The value equals
    :func:`sklearn.metrics.cohen_kappa_score` (same arithmetic on integer codes, tested to
    1e-12); this function adds validation and defines the missing-value and single-category cases.

    Parameters
    ----------
    y1, y2 : list, numpy.ndarray or pandas.Series of shape (n_items,)
        Labels from the two raters (str or numbers). ``None``/``NaN`` marks a missing rating.
    weights : {None, 'linear', 'quadratic'}, default=None
        Weighting of disagreements. Weighted kappa needs ordered labels: the order is ``labels``
        when given, else the sorted unique labels (so for text labels pass ``labels``).
    labels : sequence, default=None
        Categories to use (and their order for weighting). Default: all labels that occur.

    Returns
    -------
    float
        Kappa in [-1, 1]; ``nan`` (with :class:`UndefinedAgreementWarning`) when only one
        category occurs in the kept pairs, because then :math:`p_e = 1`.

    Notes
    -----
    Pairs where either rating is missing are dropped (pairwise deletion) before computing.
    Interpret with :func:`interpret_kappa` (Landis & Koch 1977 bands).

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
       Psychological Measurement*, 20(1), 37–46.
    .. [2] Cohen, J. (1968). Weighted kappa: Nominal scale agreement with provision for scaled
       disagreement or partial credit. *Psychological Bulletin*, 70(4), 213–220.

    Examples
    --------
    >>> from vignette_lab.agreement import cohen_kappa
    >>> round(cohen_kappa(["공감", "질문", "공감", "요약"], ["공감", "질문", "요약", "요약"]), 4)
    0.6364
    >>> cohen_kappa([1, 2, 3, None], [1, 2, 2, 3], weights="quadratic")
    0.6666666666666667
    """
    prepared = _kappa_codes(y1, y2, weights=weights, labels=labels, func="cohen_kappa")
    if prepared is None:
        return _undefined("cohen_kappa", "only one category occurs in the rated pairs")
    ca, cb, q = prepared
    # scikit-learn's arithmetic (confusion matrix, outer product of marginals, weights) on the
    # integer codes, without its label re-validation: equal to cohen_kappa_score to 1e-12.
    value = _kappa_from_codes(ca, cb, q, weights)
    if np.isnan(value):
        return _undefined("cohen_kappa", "the chance agreement is 1")
    return value


def _kappa_from_codes(a: np.ndarray, b: np.ndarray, n_categories: int, weights) -> float:
    """Cohen's kappa from integer codes, the same arithmetic as scikit-learn (used by bootstrap)."""
    confusion = np.bincount(a * n_categories + b, minlength=n_categories * n_categories)
    confusion = confusion.reshape(n_categories, n_categories).astype(float)
    total = confusion.sum()
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / total
    idx = np.arange(n_categories)
    if weights is None:
        w = 1.0 - np.eye(n_categories)
    elif weights == "linear":
        w = np.abs(idx[:, None] - idx[None, :]).astype(float)
    else:
        w = ((idx[:, None] - idx[None, :]) ** 2).astype(float)
    denom = float(np.sum(w * expected))
    if denom == 0.0:
        return float("nan")
    return 1.0 - float(np.sum(w * confusion)) / denom


# --------------------------------------------------------------------------- Fleiss / AC1

def _ratings_counts(ratings, *, func: str) -> np.ndarray:
    """Validated items × categories counts (items with no rating removed)."""
    arr = _as_ratings_matrix(ratings, func=func)
    if arr.shape[1] < 2:
        raise InputError(
            f"{func} needs ratings of shape (n_items, n_raters) with at least 2 raters. "
            f"Got {arr.shape[1]} rater column(s) instead.", field="ratings")
    if arr.shape[0] == 0:
        raise InputError(f"{func} needs at least one item. Got an empty ratings matrix.", field="ratings")
    codes, cats = _encode(arr, func=func, field="ratings")
    counts = _count_matrix(codes, len(cats))
    counts = counts[counts.sum(axis=1) > 0]
    if not np.any(counts.sum(axis=1) >= 2):
        raise InputError(f"{func} needs at least one item rated by 2 or more raters. Got none.",
                         field="ratings")
    return counts


def _agreement_parts(counts: np.ndarray) -> tuple[float, np.ndarray]:
    """Observed agreement p_a (items with >= 2 ratings) and category prevalences pi_k (all items)."""
    r = counts.sum(axis=1).astype(float)
    multi = r >= 2
    if not multi.any():  # possible in a bootstrap resample
        return float("nan"), np.full(counts.shape[1], np.nan)
    cm, rm = counts[multi].astype(float), r[multi]
    pa = float(np.mean((cm * (cm - 1)).sum(axis=1) / (rm * (rm - 1))))
    pi = (counts / r[:, None]).mean(axis=0)
    return pa, pi


def _fleiss_from_counts(counts: np.ndarray) -> float:
    pa, pi = _agreement_parts(counts)
    pe = float(np.sum(pi ** 2))
    if not pe < 1.0:
        return float("nan")
    return (pa - pe) / (1.0 - pe)


def _ac1_from_counts(counts: np.ndarray, n_categories: int) -> float:
    pa, pi = _agreement_parts(counts)
    if n_categories < 2:
        return float("nan")
    pe = float(np.sum(pi * (1.0 - pi))) / (n_categories - 1)
    if not pe < 1.0:
        return float("nan")
    return (pa - pe) / (1.0 - pe)


def fleiss_kappa(ratings) -> float:
    r"""Fleiss' kappa for any number of raters, generalised to missing ratings (Gwet 2014).

    With :math:`r_{ik}` raters putting item :math:`i` into category :math:`k`,
    :math:`r_i = \sum_k r_{ik}`, :math:`n'` the number of items with :math:`r_i \ge 2`:

    .. math::

        p_a = \frac{1}{n'} \sum_{i: r_i \ge 2} \sum_k \frac{r_{ik}(r_{ik}-1)}{r_i(r_i-1)}, \quad
        \pi_k = \frac{1}{n} \sum_{i=1}^{n} \frac{r_{ik}}{r_i}, \quad
        p_e = \sum_k \pi_k^2, \quad
        \kappa = \frac{p_a - p_e}{1 - p_e}.

    On complete data this is exactly Fleiss (1971) and equals
    ``statsmodels.stats.inter_rater.fleiss_kappa(aggregate_raters(ratings)[0])``.

    Parameters
    ----------
    ratings : list, numpy.ndarray or pandas.DataFrame of shape (n_items, n_raters)
        Category labels (str or numbers); ``None``/``NaN`` for a missing rating. Raters need
        not be the same people across items.

    Returns
    -------
    float
        Kappa; ``nan`` (with :class:`UndefinedAgreementWarning`) when only one category occurs.

    Notes
    -----
    Missing ratings: items with no rating are removed. Items with a single rating cannot show
    agreement, so they are left out of :math:`p_a`, but — as in Gwet's formulas and the irrCAC
    package — they still count toward the category prevalences :math:`\pi_k` (:math:`n` counts
    every item with at least one rating). Validated against irrCAC ``fleiss.kappa.raw`` on its
    ``cac.raw4raters`` data set (0.76117) and against statsmodels on complete data.

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       *Psychological Bulletin*, 76(5), 378–382.
    .. [2] Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.), ch. 2 & 5.
       Advanced Analytics, LLC. ISBN 978-0970806284.

    Examples
    --------
    >>> from vignette_lab.agreement import fleiss_kappa
    >>> ratings = [["공감", "공감", "질문"], ["질문", "질문", "질문"], ["요약", "공감", "요약"]]
    >>> round(fleiss_kappa(ratings), 4)
    0.3077
    """
    counts = _ratings_counts(ratings, func="fleiss_kappa")
    if counts.shape[1] < 2:
        return _undefined("fleiss_kappa", "only one category occurs")
    return float(_fleiss_from_counts(counts))


def gwet_ac1(ratings) -> float:
    r"""Gwet's first-order agreement coefficient AC1, for any number of raters and missing data.

    With :math:`p_a` and :math:`\pi_k` as in :func:`fleiss_kappa` and :math:`q` categories:

    .. math::

        p_e = \frac{1}{q-1} \sum_{k=1}^{q} \pi_k (1 - \pi_k), \qquad
        AC_1 = \frac{p_a - p_e}{1 - p_e}.

    AC1 is less sensitive than kappa to skewed prevalence (the "kappa paradox": high raw
    agreement on a rare label with a low kappa), which matters for rare counseling techniques.

    Parameters
    ----------
    ratings : list, numpy.ndarray or pandas.DataFrame of shape (n_items, n_raters)
        Category labels (str or numbers); ``None``/``NaN`` for a missing rating.

    Returns
    -------
    float
        AC1; ``nan`` (with :class:`UndefinedAgreementWarning`) when only one category occurs.

    Notes
    -----
    :math:`q` is the number of distinct categories that occur in ``ratings``. Missing data are
    handled as in :func:`fleiss_kappa`. Validated against irrCAC ``gwet.ac1.raw`` on
    ``cac.raw4raters`` (0.77544).

    References
    ----------
    .. [1] Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence
       of high agreement. *British Journal of Mathematical and Statistical Psychology*, 61(1), 29–48.
    .. [2] Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
       Analytics, LLC. ISBN 978-0970806284.

    Examples
    --------
    >>> from vignette_lab.agreement import gwet_ac1
    >>> ratings = [["공감", "공감", "질문"], ["질문", "질문", "질문"], ["요약", "공감", "요약"]]
    >>> round(gwet_ac1(ratings), 4)
    0.3455
    """
    counts = _ratings_counts(ratings, func="gwet_ac1")
    if counts.shape[1] < 2:
        return _undefined("gwet_ac1", "only one category occurs")
    return float(_ac1_from_counts(counts, counts.shape[1]))


# --------------------------------------------------------------------------- Krippendorff

def _alpha_matrix(data, *, level: str, func: str) -> np.ndarray:
    """Raters × units float matrix ready for ``krippendorff.alpha`` (NaN = missing)."""
    if level not in _LEVELS:
        raise InputError(
            f"The 'level' parameter of {func} must be 'nominal', 'ordinal', 'interval' or 'ratio'. "
            f"Got {level!r} instead.", field="level")
    arr = _as_ratings_matrix(data, func=func, name="data")
    if arr.shape[0] < 2:
        raise InputError(
            f"{func} needs data of shape (n_raters, n_units) with at least 2 raters (rows). "
            f"Got {arr.shape[0]} row(s) instead.", field="data")
    if arr.shape[1] == 0:
        raise InputError(f"{func} needs at least one unit (column). Got none.", field="data")
    if level == "nominal" and arr.dtype.kind not in "biuf":
        codes, _ = _encode(arr, func=func, field="data")
        return np.where(codes < 0, np.nan, codes.astype(float))
    if arr.dtype.kind in "biuf":
        return arr.astype(float)
    missing = pd.isna(arr)
    values = arr[~missing]
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
               for v in values):
        raise InputError(
            f"{func} with level={level!r} needs numeric values (ordinal: numbers whose order is the "
            "category order); map text categories to ordered numbers first.", field="data")
    out = np.full(arr.shape, np.nan)
    out[~missing] = values.astype(float)
    return out


def _alpha_nominal_counts(counts: np.ndarray, m: np.ndarray) -> float:
    """Nominal alpha from pairable units' value counts (closed form of the coincidence sums)."""
    cf = counts.astype(float)
    n_pairable = float(m.sum())
    n_c = cf.sum(axis=0)
    d_o = float(np.sum((m ** 2 - (cf ** 2).sum(axis=1)) / (m - 1.0)))
    d_e = n_pairable ** 2 - float(np.sum(n_c ** 2))
    return float("nan") if d_e <= 0 else 1.0 - (n_pairable - 1.0) * d_o / d_e


def _alpha_nominal_codes(codes: np.ndarray, n_values: int) -> float:
    """Nominal alpha from raters × units integer codes (-1 missing)."""
    n_units = codes.shape[1]
    flat = codes.ravel()
    unit = np.tile(np.arange(n_units, dtype=np.int64), codes.shape[0])
    ok = flat >= 0
    counts = np.bincount(unit[ok] * n_values + flat[ok], minlength=n_units * n_values).reshape(n_units, n_values)
    m = counts.sum(axis=1)
    keep = m >= 2
    return _alpha_nominal_counts(counts[keep], m[keep].astype(float))


def _alpha_value(matrix: np.ndarray, level: str) -> float:
    """Alpha of a raters × units float matrix (NaN missing), from per-unit value counts.

    The same coincidence-matrix arithmetic as the ``krippendorff`` package (its tests are ours),
    without forming the units × values × values tensor: nominal and interval use closed forms
    over per-unit sums, ordinal the values × values coincidence matrix. Ratio (and ordinal with
    more than 2,000 distinct values) delegate to the package.
    """
    if level == "nominal":
        codes, uniq = pd.factorize(matrix.ravel(), use_na_sentinel=True)  # NaN -> -1
        return _alpha_nominal_codes(codes.reshape(matrix.shape), len(uniq))
    data = matrix.T
    ok = ~np.isnan(data)
    m = ok.sum(axis=1)
    keep = m >= 2
    data, ok, m = data[keep], ok[keep], m[keep].astype(float)
    n_pairable = float(m.sum())
    if level == "interval":
        x = np.where(ok, data, 0.0)
        s1, s2 = x.sum(axis=1), (x * x).sum(axis=1)
        d_o = float(np.sum(2.0 * (m * s2 - s1 ** 2) / (m - 1.0)))
        d_e = 2.0 * (n_pairable * float(s2.sum()) - float(s1.sum()) ** 2)
        return float("nan") if d_e <= 0 else 1.0 - (n_pairable - 1.0) * d_o / d_e
    values = data[ok]
    # Hash-based coding (order only matters for ordinal, where the uniques are sorted).
    inv, uniq = pd.factorize(values, sort=level != "nominal")
    n_values = len(uniq)
    if level == "ratio" or (level == "ordinal" and n_values > 2000):
        import krippendorff

        scale: Literal["ordinal", "ratio"] = "ratio" if level == "ratio" else "ordinal"
        return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=scale))
    rows = np.nonzero(ok)[0]
    counts = np.bincount(rows * n_values + inv, minlength=len(m) * n_values).reshape(len(m), n_values)
    n_c = counts.sum(axis=0).astype(float)
    if level == "nominal":
        return _alpha_nominal_counts(counts, m)
    inv_m = 1.0 / (m - 1.0)
    cf = counts.astype(float)
    coinc = (cf * inv_m[:, None]).T @ cf
    coinc[np.diag_indices(n_values)] -= (cf * inv_m[:, None]).sum(axis=0)
    cum = np.cumsum(n_c)
    lo = cum - n_c
    span = cum[None, :] - lo[:, None]
    delta = np.triu((span - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2, 1)
    delta = delta + delta.T
    d_o = float((coinc * delta).sum())
    d_e = float(n_c @ delta @ n_c) / (n_pairable - 1.0)
    return float("nan") if d_e <= 0 else 1.0 - d_o / d_e


def krippendorff_alpha(data, *, level="nominal") -> float:
    r"""Krippendorff's alpha for any number of raters, missing data and four levels of measurement.

    .. math::

        \alpha = 1 - \frac{D_o}{D_e}

    where :math:`D_o` is the observed disagreement among values pairable within units and
    :math:`D_e` the disagreement expected by chance from all pairable values, both under the
    difference function :math:`\delta^2` of the level (nominal: 0/1; ordinal: rank-based;
    interval: :math:`(c-k)^2`; ratio: :math:`((c-k)/(c+k))^2`). Equals the ``krippendorff``
    package (tested to 1e-9); nominal, ordinal and interval are computed here from per-unit value
    counts (faster), ratio delegates to the package.

    Parameters
    ----------
    data : list, numpy.ndarray or pandas.DataFrame of shape (n_raters, n_units)
        **Raters in rows, units in columns** (Krippendorff's reliability-data layout; the
        transpose of :func:`fleiss_kappa`'s). ``None``/``NaN`` marks a missing value. Units
        with fewer than two values are not pairable and do not count.
    level : {'nominal', 'ordinal', 'interval', 'ratio'}, default='nominal'
        Level of measurement. ``'nominal'`` accepts text or numbers. ``'ordinal'``,
        ``'interval'`` and ``'ratio'`` need numbers; for ordinal the numeric order is the category
        order (map e.g. 낮음/중간/높음 to 1/2/3 first).

    Returns
    -------
    float
        Alpha; ``nan`` (with :class:`UndefinedAgreementWarning`) when only one value occurs.

    Notes
    -----
    Common thresholds (Krippendorff 2004): rely on data with :math:`\alpha \ge 0.800`, draw
    tentative conclusions for :math:`0.667 \le \alpha < 0.800`.

    References
    ----------
    .. [1] Krippendorff, K. (2004). *Content Analysis: An Introduction to Its Methodology*
       (2nd ed.), ch. 11. Sage.
    .. [2] Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability
       measure for coding data. *Communication Methods and Measures*, 1(1), 77–89.

    Examples
    --------
    >>> from vignette_lab.agreement import krippendorff_alpha
    >>> data = [["a", "a", "b", None], ["a", "b", "b", "c"], [None, "a", "b", "c"]]
    >>> round(krippendorff_alpha(data), 4)
    0.7188
    """
    if level == "nominal":
        arr = _as_ratings_matrix(data, func="krippendorff_alpha", name="data")
        if arr.dtype.kind not in "biuf" and arr.ndim == 2 and arr.shape[0] >= 2 and arr.shape[1] > 0:
            # Text labels: count the factorized codes directly (no float round trip).
            codes, cats = _encode(arr, func="krippendorff_alpha", field="data")
            if len(cats) < 2:
                return _undefined("krippendorff_alpha", "only one value occurs")
            if not ((codes >= 0).sum(axis=0) >= 2).any():
                raise InputError("krippendorff_alpha needs at least one unit with 2 or more values. Got none.",
                                 field="data")
            return _alpha_nominal_codes(codes, len(cats))
    matrix = _alpha_matrix(data, level=level, func="krippendorff_alpha")
    if not np.nanmin(matrix, initial=np.inf) < np.nanmax(matrix, initial=-np.inf):
        return _undefined("krippendorff_alpha", "only one value occurs")
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    if not pairable.any():
        raise InputError("krippendorff_alpha needs at least one unit with 2 or more values. Got none.",
                         field="data")
    return _alpha_value(matrix, level)


# --------------------------------------------------------------------------- multi-label

def _as_label_set(value, *, func: str, field: str, position: int) -> frozenset:
    if value is None or (not isinstance(value, (str, bytes, Iterable)) and pd.isna(value)):
        return frozenset()
    if isinstance(value, str):
        return frozenset([value])  # a bare string is one label, not a bag of characters
    if isinstance(value, Iterable):
        return frozenset(v for v in value if not (v is None or (isinstance(v, float) and np.isnan(v))))
    raise InputError(
        f"{func} expected a collection of labels per item; item {position} is {type(value).__name__}.",
        field=field)


def _flat_labels(values, *, func: str, field: str) -> tuple[int, np.ndarray, np.ndarray]:
    """(n_items, item index per label, labels) of a sequence of label collections, missing dropped."""
    norm = []
    for i, v in enumerate(values):
        if isinstance(v, (list, tuple, set, frozenset)):
            norm.append(v)
        elif isinstance(v, str):
            norm.append((v,))  # a bare string is one label, not a bag of characters
        elif v is None or (isinstance(v, float) and v != v):
            norm.append(())
        elif isinstance(v, (np.ndarray, pd.Series)) or (isinstance(v, Iterable) and not isinstance(v, bytes)):
            norm.append(tuple(v))
        else:
            raise InputError(
                f"{func} expected a collection of labels per item; item {i} is {type(v).__name__}.", field=field)
    lengths = np.fromiter(map(len, norm), dtype=np.int64, count=len(norm))
    flat = np.empty(int(lengths.sum()), dtype=object)
    flat[:] = list(itertools.chain.from_iterable(norm))
    rows = np.repeat(np.arange(len(norm)), lengths)
    flat = _blank_missing_strings(flat)
    keep = ~pd.isna(flat) if flat.size else np.zeros(0, dtype=bool)
    return len(norm), rows[keep], flat[keep]


def _binary_kappa(x: np.ndarray, y: np.ndarray) -> float:
    po = float(np.mean(x == y))
    p1, p2 = float(np.mean(x)), float(np.mean(y))
    pe = p1 * p2 + (1 - p1) * (1 - p2)
    if pe >= 1.0:
        return float("nan")
    return (po - pe) / (1 - pe)


def per_label_kappa(labels1, labels2, *, label_set=None) -> pd.DataFrame:
    r"""Binary Cohen's kappa per label for two annotators' multi-label annotations.

    For each label :math:`\ell`, each item becomes present/absent for each annotator and

    .. math::

        \kappa_\ell = \frac{p_o - p_e}{1 - p_e}, \quad
        p_e = p_1 p_2 + (1 - p_1)(1 - p_2)

    with :math:`p_o` the share of items where both agree on presence and :math:`p_1, p_2` the
    two prevalences. Equals :func:`sklearn.metrics.cohen_kappa_score` on the 0/1 vectors.

    Parameters
    ----------
    labels1, labels2 : sequence of shape (n_items,)
        Per item, the annotator's labels: a list/set/tuple of labels, a single label string, or
        ``None``/``[]`` for no label. Both sequences list the same items in the same order; drop
        items an annotator did not annotate before calling (``None`` means "no label", not
        "not annotated").
    label_set : sequence of str, default=None
        Labels to report (e.g. the taxonomy's technique codes), in output order. Default: the
        sorted union of labels used. Labels never used by either annotator get ``kappa = nan``.

    Returns
    -------
    pandas.DataFrame
        One row per label with columns ``label``, ``kappa`` (nan when the label is present in
        all or in no items for both annotators), ``n`` (items), ``prevalence_1``,
        ``prevalence_2`` (share of items carrying the label) and ``agreement`` (raw
        proportion of items with the same presence/absence).

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
       Psychological Measurement*, 20(1), 37–46.

    Examples
    --------
    >>> from vignette_lab.agreement import per_label_kappa
    >>> a = [["공감"], ["공감", "질문"], ["요약"], []]
    >>> b = [["공감"], ["질문"], ["요약"], ["질문"]]
    >>> per_label_kappa(a, b)[["label", "kappa", "agreement"]].round(3).to_numpy().tolist()
    [['공감', 0.5, 0.75], ['요약', 1.0, 1.0], ['질문', 0.5, 0.75]]
    """
    func = "per_label_kappa"
    for name, value in (("labels1", labels1), ("labels2", labels2)):
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray, pd.Series)):
            raise InputError(
                f"The '{name}' parameter of {func} must be a sequence with one label collection per "
                f"item. Got {type(value).__name__} instead.", field=name)
    flat1 = _flat_labels(labels1, func=func, field="labels1")
    flat2 = _flat_labels(labels2, func=func, field="labels2")
    if flat1[0] != flat2[0]:
        raise InputError(
            f"{func} needs labels1 and labels2 for the same items. Got {flat1[0]} and {flat2[0]} items.",
            field="labels2")
    n = flat1[0]
    if not n:
        raise InputError(f"{func} needs at least one item. Got none.", field="labels1")
    if label_set is None:
        used = pd.unique(pd.Series(np.concatenate([flat1[2], flat2[2]]), dtype=object))
        labels = sorted(used.tolist(), key=str)
    else:
        labels = list(label_set)
    index = pd.Index(labels, dtype=object)
    x = np.zeros((n, len(labels)), dtype=bool)
    y = np.zeros((n, len(labels)), dtype=bool)
    for target, (_, rows, flat) in ((x, flat1), (y, flat2)):
        cols = index.get_indexer(flat) if len(flat) else np.zeros(0, dtype=np.int64)
        ok = cols >= 0
        target[rows[ok], cols[ok]] = True
    p1, p2 = x.mean(axis=0), y.mean(axis=0)
    po = (x == y).mean(axis=0)
    pe = p1 * p2 + (1 - p1) * (1 - p2)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(pe < 1.0, (po - pe) / (1 - pe), np.nan)
    table = [{"label": lab, "kappa": float(kappa[j]), "n": n, "prevalence_1": float(p1[j]),
              "prevalence_2": float(p2[j]), "agreement": float(po[j])} for j, lab in enumerate(labels)]
    return pd.DataFrame(table, columns=["label", "kappa", "n", "prevalence_1", "prevalence_2", "agreement"])


def multilabel_agreement(annotations: pd.DataFrame, *, item, annotator, labels, label_set=None) -> pd.DataFrame:
    r"""Per-label agreement among any number of annotators (Fleiss' kappa and AC1 on presence).

    For each label, builds the items × annotators 0/1 presence matrix (missing where an
    annotator did not annotate the item) and computes :func:`fleiss_kappa` and
    :func:`gwet_ac1` on it (binary categories, missing ratings handled as documented there).

    Parameters
    ----------
    annotations : pandas.DataFrame
        Long format, one row per (item, annotator) with the annotator's labels for that item.
    item, annotator : str
        Column names identifying the item and the annotator.
    labels : str
        Column holding each row's labels: list/set/tuple, a single label string, or
        ``None``/``[]`` for "annotated, no label".
    label_set : sequence, default=None
        Labels to report, in order. Default: sorted union of labels used.

    Returns
    -------
    pandas.DataFrame
        One row per label: ``label``, ``fleiss_kappa``, ``gwet_ac1`` (nan when the label is
        present in all or in none of the annotations), ``n_items`` (items with ≥ 2 annotators),
        ``n_annotators``, ``prevalence`` (share of annotations carrying the label).

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
       *Psychological Bulletin*, 76(5), 378–382.
    .. [2] Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> import pandas as pd
    >>> from vignette_lab.agreement import multilabel_agreement
    >>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3],
    ...                    "who": ["a", "b", "c"] * 3,
    ...                    "tech": [["공감"], ["공감"], ["공감", "질문"], ["질문"], ["질문"], ["질문"],
    ...                             [], ["공감"], []]})
    >>> out = multilabel_agreement(df, item="item", annotator="who", labels="tech")
    >>> out[["label", "fleiss_kappa"]].round(3).to_numpy().tolist()
    [['공감', 0.55], ['질문', 0.55]]
    """
    func = "multilabel_agreement"
    if not isinstance(annotations, pd.DataFrame):
        raise InputError(f"{func} expects a pandas DataFrame. Got {type(annotations).__name__} instead.",
                         field="annotations")
    for col in (item, annotator, labels):
        if col not in annotations.columns:
            raise InputError(f"{func}: column {col!r} not found; columns are {list(annotations.columns)}.",
                             field=str(col))
    dup = annotations.duplicated([item, annotator])
    if dup.any():
        row = annotations[dup].iloc[0]
        raise InputError(
            f"{func} needs one row per (item, annotator); ({row[item]!r}, {row[annotator]!r}) appears twice.",
            field=str(annotator))
    if annotations[annotator].nunique() < 2:
        raise InputError(f"{func} needs at least 2 annotators. Got {annotations[annotator].nunique()}.",
                         field=str(annotator))
    item_codes, _ = pd.factorize(annotations[item])
    ann_codes, ann_uniques = pd.factorize(annotations[annotator])
    sets = [_as_label_set(v, func=func, field=str(labels), position=i)
            for i, v in enumerate(annotations[labels].tolist())]
    used = set().union(*sets) if sets else set()
    label_list = sorted(used, key=str) if label_set is None else list(label_set)
    n_items, n_ann = int(item_codes.max()) + 1, len(ann_uniques)
    observed = np.zeros((n_items, n_ann), dtype=bool)
    observed[item_codes, ann_codes] = True
    n_multi = int((observed.sum(axis=1) >= 2).sum())
    rows = []
    for label in label_list:
        present = np.fromiter((label in s for s in sets), dtype=float, count=len(sets))
        matrix = np.full((n_items, n_ann), np.nan)
        matrix[item_codes, ann_codes] = present
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedAgreementWarning)
            fk = fleiss_kappa(matrix) if n_multi else float("nan")
            ac1 = gwet_ac1(matrix) if n_multi else float("nan")
        rows.append({"label": label, "fleiss_kappa": fk, "gwet_ac1": ac1, "n_items": n_multi,
                     "n_annotators": n_ann, "prevalence": float(present.mean())})
    return pd.DataFrame(rows, columns=["label", "fleiss_kappa", "gwet_ac1", "n_items",
                                       "n_annotators", "prevalence"])
