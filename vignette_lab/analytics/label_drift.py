"""Label and model drift: how label distributions and AI-vs-gold agreement move over versions and time.

Pure functions on pandas/numpy. Distribution distances (:func:`psi`, :func:`js_divergence`,
:func:`chi_square_shift`) compare two label distributions; :func:`label_distribution_shift`
and :func:`flag_label_rate_shift` walk consecutive groups (model versions, rounds, weeks);
:func:`agreement_over_time` tracks each AI annotator's per-label kappa against human gold.

Label columns may hold one label per row (appropriateness, client-state read) or a collection
per row (technique sets). A label's *rate* in a group is the share of rows carrying it, so for
single-label columns the rates sum to 1 and for multi-label columns they need not.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency

from vignette_lab.errors import InputError
from vignette_lab.agreement import UndefinedAgreementWarning, cohen_kappa, per_label_kappa

__all__ = [
    "agreement_over_time",
    "chi_square_shift",
    "flag_label_rate_shift",
    "js_divergence",
    "label_distribution_shift",
    "psi",
]


def _as_counts(x, *, name: str, func: str) -> pd.Series:
    """Counts indexed by category from a Series/dict of counts, or from raw labels."""
    if isinstance(x, Mapping):
        x = pd.Series(x, dtype=float)
    elif isinstance(x, (list, tuple, np.ndarray)):
        x = pd.Series(np.asarray(x))
    if not isinstance(x, pd.Series):
        raise InputError(f"The '{name}' parameter of {func} must be a Series, dict, list or array. "
                         f"Got {type(x).__name__} instead.", field=name)
    if x.dtype.kind in "biuf":
        counts = x.astype(float)
        if counts.isna().any() or (counts < 0).any():
            raise InputError(f"{func}: '{name}' counts must be non-negative numbers without NaN.", field=name)
        return counts
    # Non-numeric values are raw labels: count them.
    return x.dropna().value_counts().astype(float)


def _aligned(a: pd.Series, b: pd.Series, *, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Two count vectors over the union of categories (positional when both are unlabelled arrays)."""
    if isinstance(a.index, pd.RangeIndex) and isinstance(b.index, pd.RangeIndex) and len(a) != len(b):
        raise InputError(f"{func} got count arrays of different lengths ({len(a)} and {len(b)}); "
                         "pass Series indexed by category to align them.", field="actual")
    index = a.index.union(b.index, sort=False)
    a, b = a.reindex(index, fill_value=0.0), b.reindex(index, fill_value=0.0)
    if a.sum() <= 0 or b.sum() <= 0:
        raise InputError(f"{func} needs a positive total in both distributions.", field="expected")
    return a.to_numpy(float), b.to_numpy(float)


def psi(expected, actual, *, bins=None, eps=1e-6) -> float:
    r"""Population stability index between an expected (reference) and an actual distribution.

    .. math::

        PSI = \sum_i (a_i - e_i) \ln \frac{a_i}{e_i}

    over categories or bins, with :math:`e_i, a_i` proportions clipped below at ``eps`` so an
    empty category does not give an infinite value. Rule of thumb: < 0.1 stable, 0.1–0.25
    moderate shift, > 0.25 large shift.

    Parameters
    ----------
    expected, actual : pandas.Series, dict, list or numpy.ndarray
        With ``bins=None``: numeric values are *counts* per category (Series/dicts are aligned
        by category, missing categories count 0; plain arrays are aligned by position), and
        non-numeric values are raw labels that are counted. With ``bins``: raw numeric samples.
    bins : int or sequence of float, default=None
        Bin raw numeric samples: an int gives equal-width bins over ``expected``'s range (outer
        edges opened to ±inf so out-of-range actual values still count), a sequence gives edges.
    eps : float, default=1e-6
        Floor for proportions.

    Returns
    -------
    float
        PSI ≥ 0 (0 for identical distributions).

    References
    ----------
    .. [1] Yurdakul, B. (2018). *Statistical properties of population stability index*.
       Dissertation, Western Michigan University.

    Examples
    --------
    >>> from vignette_lab.analytics.label_drift import psi
    >>> round(psi({"공감": 50, "질문": 50}, {"공감": 60, "질문": 40}), 4)
    0.0405
    """
    if not (isinstance(eps, float) and 0 < eps < 1):
        raise InputError(f"The 'eps' parameter of psi must be a float in (0, 1). Got {eps!r} instead.",
                         field="eps")
    if bins is None:
        e, a = _aligned(_as_counts(expected, name="expected", func="psi"),
                        _as_counts(actual, name="actual", func="psi"), func="psi")
    else:
        e_raw = np.asarray(expected, dtype=float)
        a_raw = np.asarray(actual, dtype=float)
        if e_raw.size == 0 or a_raw.size == 0:
            raise InputError("psi with bins needs non-empty samples.", field="expected")
        if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
            if bins < 1:
                raise InputError(f"The 'bins' parameter of psi must be >= 1. Got {bins!r} instead.",
                                 field="bins")
            edges = np.histogram_bin_edges(e_raw[~np.isnan(e_raw)], bins=int(bins))
            edges[0], edges[-1] = -np.inf, np.inf
        else:
            edges = np.asarray(bins, dtype=float)
            if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
                raise InputError("The 'bins' parameter of psi must be an int or increasing edges.",
                                 field="bins")
        e = np.histogram(e_raw[~np.isnan(e_raw)], bins=edges)[0].astype(float)
        a = np.histogram(a_raw[~np.isnan(a_raw)], bins=edges)[0].astype(float)
    pe = np.clip(e / e.sum(), eps, None)
    pa = np.clip(a / a.sum(), eps, None)
    return float(np.sum((pa - pe) * np.log(pa / pe)))


def js_divergence(p, q, *, base=2) -> float:
    r"""Jensen–Shannon divergence between two label distributions.

    .. math::

        JS(p, q) = \tfrac12 KL(p \,\|\, m) + \tfrac12 KL(q \,\|\, m), \quad m = \tfrac12 (p + q)

    Inputs are normalised to sum to 1. With ``base=2`` the value lies in [0, 1]. Equals
    ``scipy.spatial.distance.jensenshannon(p, q, base=base) ** 2`` (scipy returns the distance,
    the square root of the divergence).

    Parameters
    ----------
    p, q : pandas.Series, dict, list or numpy.ndarray
        Counts or probabilities (aligned as in :func:`psi`), or raw labels.
    base : float, default=2
        Logarithm base.

    Returns
    -------
    float

    References
    ----------
    .. [1] Lin, J. (1991). Divergence measures based on the Shannon entropy. *IEEE Transactions
       on Information Theory*, 37(1), 145–151.

    Examples
    --------
    >>> from vignette_lab.analytics.label_drift import js_divergence
    >>> js_divergence([1, 0], [0, 1])
    1.0
    """
    if not isinstance(base, (int, float)) or base <= 0 or base == 1:
        raise InputError(f"The 'base' parameter of js_divergence must be > 0 and != 1. Got {base!r}.",
                         field="base")
    a, b = _aligned(_as_counts(p, name="p", func="js_divergence"),
                    _as_counts(q, name="q", func="js_divergence"), func="js_divergence")
    a, b = a / a.sum(), b / b.sum()
    m = (a + b) / 2

    def kl(x):
        nz = x > 0
        return float(np.sum(x[nz] * np.log(x[nz] / m[nz])))

    return float((kl(a) + kl(b)) / 2 / np.log(base))


def chi_square_shift(counts_a, counts_b) -> tuple[float, float, int]:
    """Chi-square test of homogeneity between two label count vectors.

    Builds the 2 × K contingency table (categories where both counts are 0 are dropped, since
    they carry no information and make expected counts 0) and runs
    :func:`scipy.stats.chi2_contingency` with its defaults (Yates' correction when K = 2).

    Parameters
    ----------
    counts_a, counts_b : pandas.Series, dict, list or numpy.ndarray
        Counts per category (aligned as in :func:`psi`), or raw labels.

    Returns
    -------
    tuple
        ``(statistic, pvalue, dof)``; ``(0.0, 1.0, 0)`` when only one category occurs.

    Examples
    --------
    >>> from vignette_lab.analytics.label_drift import chi_square_shift
    >>> stat, p, dof = chi_square_shift({"a": 30, "b": 10, "c": 10}, {"a": 10, "b": 30, "c": 10})
    >>> round(stat, 2), dof
    (20.0, 2)
    """
    a, b = _aligned(_as_counts(counts_a, name="counts_a", func="chi_square_shift"),
                    _as_counts(counts_b, name="counts_b", func="chi_square_shift"), func="chi_square_shift")
    keep = (a + b) > 0
    if keep.sum() < 2:
        return 0.0, 1.0, 0
    res = chi2_contingency(np.vstack([a[keep], b[keep]]))
    return float(res.statistic), float(res.pvalue), int(res.dof)


def _label_sets(values: pd.Series) -> list[frozenset]:
    out = []
    for v in values.tolist():
        if isinstance(v, str):
            out.append(frozenset([v]))
        elif isinstance(v, Iterable):
            out.append(frozenset(x for x in v if x is not None))
        elif v is None or pd.isna(v):
            out.append(frozenset())
        else:
            out.append(frozenset([v]))
    return out


def _group_label_counts(df: pd.DataFrame, *, group_col, label_col, func: str):
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{func} expects a pandas DataFrame. Got {type(df).__name__} instead.", field="df")
    for col in (group_col, label_col):
        if col not in df.columns:
            raise InputError(f"{func}: column {col!r} not found; columns are {list(df.columns)}.", field=str(col))
    if df[group_col].isna().any():
        raise InputError(f"{func}: column {group_col!r} has missing values.", field=str(group_col))
    groups = sorted(df[group_col].unique().tolist())
    if len(groups) < 2:
        raise InputError(f"{func} needs at least 2 groups in {group_col!r}. Got {len(groups)}.",
                         field=str(group_col))
    sets = _label_sets(df[label_col])
    labels = sorted(set().union(*sets), key=str)
    keys = df[group_col].tolist()
    counts = {g: pd.Series(0.0, index=labels) for g in groups}
    sizes = dict.fromkeys(groups, 0)
    for g, s in zip(keys, sets):
        sizes[g] += 1
        for lab in s:
            counts[g][lab] += 1
    return groups, labels, counts, sizes


def label_distribution_shift(df: pd.DataFrame, *, group_col, label_col) -> pd.DataFrame:
    """Distribution shift of a label column between consecutive groups (versions, rounds, weeks).

    Groups are taken in sorted order; each consecutive pair is compared with :func:`psi`,
    :func:`js_divergence` and :func:`chi_square_shift` on the label occurrence counts, and each
    label's rate (share of rows carrying it) before and after is listed.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per annotated item.
    group_col : str
        Column with the group (model version, round, period). Must be sortable.
    label_col : str
        Column with one label per row, or a collection of labels per row.

    Returns
    -------
    pandas.DataFrame
        Long format, one row per (consecutive pair, label): ``group_from``, ``group_to``,
        ``label``, ``n_from``, ``n_to``, ``rate_from``, ``rate_to``, ``rate_change``
        (``rate_to - rate_from``), and the pair-level ``psi``, ``js``, ``chi2``, ``pvalue``,
        ``dof`` repeated on each of the pair's rows (filter with ``drop_duplicates`` for one
        row per pair).

    Examples
    --------
    >>> import pandas as pd
    >>> from vignette_lab.analytics.label_drift import label_distribution_shift
    >>> df = pd.DataFrame({"v": ["v1"] * 4 + ["v2"] * 4,
    ...                    "lab": ["공감", "공감", "질문", "질문", "공감", "질문", "질문", "질문"]})
    >>> out = label_distribution_shift(df, group_col="v", label_col="lab")
    >>> out[["label", "rate_from", "rate_to", "rate_change"]].to_numpy().tolist()
    [['공감', 0.5, 0.25, -0.25], ['질문', 0.5, 0.75, 0.25]]
    """
    groups, labels, counts, sizes = _group_label_counts(df, group_col=group_col, label_col=label_col,
                                                         func="label_distribution_shift")
    rows = []
    for g0, g1 in zip(groups[:-1], groups[1:]):
        c0, c1 = counts[g0], counts[g1]
        if c0.sum() > 0 and c1.sum() > 0:
            p, j = psi(c0, c1), js_divergence(c0, c1)
        else:
            p = j = float("nan")
        stat, pval, dof = chi_square_shift(c0, c1) if c0.sum() > 0 and c1.sum() > 0 else (np.nan, np.nan, 0)
        for lab in labels:
            r0, r1 = c0[lab] / sizes[g0], c1[lab] / sizes[g1]
            rows.append({"group_from": g0, "group_to": g1, "label": lab, "n_from": sizes[g0],
                         "n_to": sizes[g1], "rate_from": r0, "rate_to": r1, "rate_change": r1 - r0,
                         "psi": p, "js": j, "chi2": stat, "pvalue": pval, "dof": dof})
    return pd.DataFrame(rows, columns=["group_from", "group_to", "label", "n_from", "n_to", "rate_from",
                                       "rate_to", "rate_change", "psi", "js", "chi2", "pvalue", "dof"])


def flag_label_rate_shift(df: pd.DataFrame, *, version_col, label_col, bound=0.10) -> pd.DataFrame:
    """Flag labels whose rate moves by more than ``bound`` between consecutive model versions.

    The rate of a label is the share of rows (items) carrying it; the change is absolute
    (0.10 = ten percentage points), so a rare label moving from 2% to 9% is not flagged at the
    default bound while a common one moving from 40% to 55% is.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per item annotated by a model version.
    version_col : str
        Column with the model (or prompt/taxonomy) version; sorted order is release order.
    label_col : str
        Column with one label or a collection of labels per row.
    bound : float, default=0.10
        Largest tolerated absolute rate change, in (0, 1).

    Returns
    -------
    pandas.DataFrame
        One row per (consecutive version pair, label): ``version_from``, ``version_to``,
        ``label``, ``rate_from``, ``rate_to``, ``rate_change``, ``flagged``
        (``|rate_change| > bound``), sorted with flagged rows first, then by ``|rate_change|``.

    Examples
    --------
    >>> import pandas as pd
    >>> from vignette_lab.analytics.label_drift import flag_label_rate_shift
    >>> df = pd.DataFrame({"model": ["m1"] * 10 + ["m2"] * 10,
    ...                    "lab": ["공감"] * 5 + ["질문"] * 5 + ["공감"] * 8 + ["질문"] * 2})
    >>> flag_label_rate_shift(df, version_col="model", label_col="lab")[["label", "flagged"]].to_numpy().tolist()
    [['공감', True], ['질문', True]]
    """
    if isinstance(bound, bool) or not isinstance(bound, (int, float)) or not 0 < bound < 1:
        raise InputError(f"The 'bound' parameter of flag_label_rate_shift must be in (0, 1). Got {bound!r}.",
                         field="bound")
    shift = label_distribution_shift(df, group_col=version_col, label_col=label_col)
    out = shift.rename(columns={"group_from": "version_from", "group_to": "version_to"})[
        ["version_from", "version_to", "label", "rate_from", "rate_to", "rate_change"]].copy()
    out["flagged"] = out["rate_change"].abs() > bound
    order = np.lexsort((-out["rate_change"].abs().to_numpy(), ~out["flagged"].to_numpy()))
    return out.iloc[order].reset_index(drop=True)


def agreement_over_time(df: pd.DataFrame, *, time_col, annotator_col, gold_col, pred_col) -> pd.DataFrame:
    """Kappa of each AI annotator against human gold, per period and per label.

    For every (period, annotator) the items' gold and predicted labels give a binary Cohen's
    kappa per label (:func:`~vignette_lab.agreement.per_label_kappa`). When both columns hold
    single labels, an extra row with ``label = "(all)"`` gives the multi-class Cohen's kappa.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per (item, AI annotator) with the human gold and the AI prediction.
    time_col : str
        Period column; bin timestamps first (e.g. ``df.ts.dt.to_period("W")``).
    annotator_col : str
        AI annotator id (model + prompt version).
    gold_col, pred_col : str
        Gold and predicted labels (one label or a collection per row).

    Returns
    -------
    pandas.DataFrame
        Columns ``time``, ``annotator``, ``label``, ``kappa`` (nan when undefined, e.g. the
        label never occurs in the period), ``n``, ``prevalence_gold``, ``prevalence_pred``,
        ``agreement``; sorted by time, annotator, label.

    Examples
    --------
    >>> import pandas as pd
    >>> from vignette_lab.analytics.label_drift import agreement_over_time
    >>> df = pd.DataFrame({"week": [1, 1, 1, 1, 2, 2, 2, 2], "ai": ["m1"] * 8,
    ...                    "gold": ["공감", "질문", "공감", "질문"] * 2,
    ...                    "pred": ["공감", "질문", "공감", "질문", "공감", "공감", "공감", "질문"]})
    >>> out = agreement_over_time(df, time_col="week", annotator_col="ai", gold_col="gold", pred_col="pred")
    >>> out[out.label == "(all)"]["kappa"].tolist()
    [1.0, 0.5]
    """
    func = "agreement_over_time"
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{func} expects a pandas DataFrame. Got {type(df).__name__} instead.", field="df")
    for col in (time_col, annotator_col, gold_col, pred_col):
        if col not in df.columns:
            raise InputError(f"{func}: column {col!r} not found; columns are {list(df.columns)}.", field=str(col))
    if df.empty:
        raise InputError(f"{func} needs at least one row. Got an empty DataFrame.", field="df")
    gold_sets, pred_sets = _label_sets(df[gold_col]), _label_sets(df[pred_col])
    label_set = sorted(set().union(*gold_sets, *pred_sets), key=str)
    single = all(isinstance(v, str) or not isinstance(v, Iterable)
                 for v in pd.concat([df[gold_col], df[pred_col]]).tolist())
    frames = []
    work = df.assign(_gold=gold_sets, _pred=pred_sets)
    for (t, who), part in work.groupby([time_col, annotator_col], sort=True):
        table = per_label_kappa(part["_gold"].tolist(), part["_pred"].tolist(), label_set=label_set)
        table = table.rename(columns={"prevalence_1": "prevalence_gold", "prevalence_2": "prevalence_pred"})
        if single:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedAgreementWarning)
                overall = cohen_kappa(part[gold_col].tolist(), part[pred_col].tolist())
            keep = ~(part[gold_col].isna() | part[pred_col].isna())
            table = pd.concat([pd.DataFrame([{
                "label": "(all)", "kappa": overall, "n": int(keep.sum()), "prevalence_gold": np.nan,
                "prevalence_pred": np.nan,
                "agreement": float((part[gold_col][keep] == part[pred_col][keep]).mean())}]), table],
                ignore_index=True)
        table.insert(0, "annotator", who)
        table.insert(0, "time", t)
        frames.append(table)
    return pd.concat(frames, ignore_index=True)
