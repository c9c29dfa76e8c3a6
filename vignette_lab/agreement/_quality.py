"""Per-annotator quality, pairwise agreement and label aggregation (private; see :mod:`vignette_lab.agreement`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from vignette_lab.errors import InputError

from ._cac import agreement_weights
from ._prepare import Prepared, prepare


def _kappa_pair(a: np.ndarray, b: np.ndarray, q: int, W: np.ndarray) -> float:
    """Cohen's (weighted) kappa of two code vectors with agreement weights W."""
    if len(a) < 2:
        return float("nan")
    conf = np.bincount(a * q + b, minlength=q * q).reshape(q, q).astype(float)
    conf /= conf.sum()
    po = float((W * conf).sum())
    pe = float((W * np.outer(conf.sum(axis=1), conf.sum(axis=0))).sum())
    return float("nan") if pe >= 1.0 - 1e-12 else (po - pe) / (1.0 - pe)


def _jaccard(a: frozenset, b: frozenset) -> float:
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def _weights_for(kind: str, q: int) -> np.ndarray:
    return agreement_weights(q, "quadratic") if kind == "ordinal" else np.eye(q)


def _prep(ratings, kind, categories, item, rater, value, func, score_range=None) -> Prepared:
    return prepare(ratings, field=value, kind=kind, categories=categories, score_range=score_range, item=item,
                   rater=rater, value=value, func=func)


def pairwise_agreement(ratings: pd.DataFrame, *, kind: str, categories: Sequence | None = None,
                       item: str = "item_id", rater: str = "annotator", value: str = "value",
                       min_shared: int = 2) -> pd.DataFrame:
    """Reviewer × reviewer agreement matrix on the items each pair rated in common.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Long format as for :func:`field_agreement`.
    kind : {'single', 'ordinal', 'multi', 'score'}
    categories : sequence, optional
        Scheme order (ordinal weights).
    item, rater, value : str
    min_shared : int, default=2
        Pairs with fewer shared items get NaN.

    Returns
    -------
    pandas.DataFrame
        Square, indexed and columned by reviewer (sorted). Entries: Cohen's κ (``single``),
        quadratic-weighted κ (``ordinal``), mean Jaccard similarity of the code sets
        (``multi``) or ICC(A,1) of the pair (``score``). The diagonal is NaN.
        ``attrs["n_shared"]`` is the matrix of shared item counts, ``attrs["metric"]`` the name.
    """
    prep = _prep(ratings, kind, categories, item, rater, value, "pairwise_agreement")
    raters = prep.raters
    r = len(raters)
    out = np.full((r, r), np.nan)
    shared = np.zeros((r, r), dtype=int)
    q = len(prep.categories)
    W = _weights_for(kind, q) if kind in ("single", "ordinal") else None
    for a in range(r):
        for b in range(a + 1, r):
            both = prep.rated[:, a] & prep.rated[:, b]
            s = int(both.sum())
            shared[a, b] = shared[b, a] = s
            if s < min_shared:
                continue
            if kind in ("single", "ordinal"):
                assert W is not None  # set for these kinds above
                v = _kappa_pair(prep.matrix[both, a], prep.matrix[both, b], q, W)
            elif kind == "multi":
                v = float(np.mean([_jaccard(x, y) for x, y in zip(prep.matrix[both, a], prep.matrix[both, b])]))
            else:
                v = _icc_a1(np.column_stack([prep.matrix[both, a], prep.matrix[both, b]]))
            out[a, b] = out[b, a] = v
    frame = pd.DataFrame(out, index=pd.Index(raters, name=rater), columns=pd.Index(raters, name=rater))
    frame.attrs["n_shared"] = pd.DataFrame(shared, index=raters, columns=raters)
    frame.attrs["metric"] = {"single": "cohen_kappa", "ordinal": "weighted_kappa_quadratic",
                             "multi": "mean_jaccard", "score": "icc2"}[kind]
    return frame


def _icc_a1(m: np.ndarray) -> float:
    n, k = m.shape
    if n < 2:
        return float("nan")
    grand = m.mean()
    msr = k * ((m.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    msc = n * ((m.mean(axis=0) - grand) ** 2).sum() / (k - 1)
    sse = ((m - m.mean(axis=1, keepdims=True) - m.mean(axis=0, keepdims=True) + grand) ** 2).sum()
    mse = sse / ((n - 1) * (k - 1))
    den = msr + (k - 1) * mse + k * (msc - mse) / n
    return float("nan") if den <= 0 else float((msr - mse) / den)


def _loo_consensus(prep: Prepared, i: int, j: int):
    """Consensus of the other raters of item i (excluding rater j); None when tied or absent."""
    others = [k for k in np.flatnonzero(prep.rated[i]) if k != j]
    if not others:
        return None
    vals = [prep.matrix[i, k] for k in others]
    if prep.kind == "score":
        return float(np.mean(vals))
    if prep.kind == "multi":
        cats = set().union(*vals)
        return frozenset(c for c in cats if sum(c in v for v in vals) * 2 > len(vals))
    counts = np.bincount(np.asarray(vals, dtype=np.int64), minlength=len(prep.categories))
    top = np.flatnonzero(counts == counts.max())
    return int(top[0]) if len(top) == 1 else None


def annotator_quality(ratings: pd.DataFrame, *, kind: str, categories: Sequence | None = None,
                      ai_ratings: pd.DataFrame | None = None, item: str = "item_id", rater: str = "annotator",
                      value: str = "value", score_range: tuple[float, float] | None = None) -> pd.DataFrame:
    """Per-reviewer agreement with the leave-one-out consensus of the others and with the AI.

    Parameters
    ----------
    ratings : pandas.DataFrame
        Human ratings, long format as for :func:`field_agreement`.
    kind : {'single', 'ordinal', 'multi', 'score'}
    categories : sequence, optional
    ai_ratings : pandas.DataFrame, optional
        The AI proposals (round 1), same columns; one proposal per item (the ``rater`` column is
        ignored).
    item, rater, value : str
    score_range : (float, float), optional

    Returns
    -------
    pandas.DataFrame
        One row per reviewer (sorted): ``annotator``, ``n_items`` (rated), ``n_overlap`` (rated
        by at least one other reviewer), ``n_consensus`` (overlap items with an untied
        consensus of the others), ``agreement_consensus`` (share equal to the consensus;
        ``single``/``ordinal``/``multi`` — exact set), ``kappa_consensus`` (Cohen's κ vs the
        consensus; quadratic-weighted for ordinal; mean Jaccard for multi; mean absolute
        difference for score, column ``mad_consensus``), ``n_ai``, ``agreement_ai``,
        ``kappa_ai`` (same metrics against the AI proposal; ``mad_ai`` for score).

    Notes
    -----
    The consensus of an item for reviewer *j* is the majority code of the *other* reviewers of
    that item (ties leave the item out), the codes chosen by more than half of them (multi), or
    their mean (score). Leaving *j* out keeps a reviewer from agreeing with themself.
    """
    prep = _prep(ratings, kind, categories, item, rater, value, "annotator_quality", score_range)
    q = len(prep.categories)
    W = _weights_for(kind, q) if kind in ("single", "ordinal") else None
    ai = None
    if ai_ratings is not None:
        if not isinstance(ai_ratings, pd.DataFrame) or item not in ai_ratings or value not in ai_ratings:
            raise InputError(f"ai_ratings must be a DataFrame with columns {item!r} and {value!r}.",
                             field="ai_ratings")
        ai_df = ai_ratings.drop_duplicates(item).copy()
        ai_df["_r"] = "__ai__"
        ai_prep = prepare(ai_df, field=value, kind=kind, categories=prep.categories if kind != "score" else None,
                          score_range=score_range, item=item, rater="_r", value=value, func="annotator_quality")
        ai = {it: ai_prep.matrix[i, 0] for i, it in enumerate(ai_prep.items) if ai_prep.rated[i, 0]}
    rows = []
    for j, who in enumerate(prep.raters):
        mine = np.flatnonzero(prep.rated[:, j])
        overlap = [int(i) for i in mine if prep.rated[i].sum() >= 2]
        pairs = [(prep.matrix[i, j], c) for i in overlap if (c := _loo_consensus(prep, i, j)) is not None]
        row = {"annotator": who, "n_items": int(len(mine)), "n_overlap": len(overlap), "n_consensus": len(pairs)}
        row.update(_compare(pairs, kind, q, W, "consensus"))
        ai_pairs = [(prep.matrix[i, j], ai[prep.items[i]]) for i in mine if ai and prep.items[i] in ai]
        row["n_ai"] = len(ai_pairs)
        row.update(_compare(ai_pairs, kind, q, W, "ai"))
        rows.append(row)
    return pd.DataFrame(rows)


def _compare(pairs, kind, q, W, suffix) -> dict:
    nan = float("nan")
    if kind == "score":
        if not pairs:
            return {f"mad_{suffix}": nan}
        return {f"mad_{suffix}": float(np.mean([abs(a - b) for a, b in pairs]))}
    if not pairs:
        return {f"agreement_{suffix}": nan, f"kappa_{suffix}": nan}
    agree = float(np.mean([a == b for a, b in pairs]))
    if kind == "multi":
        return {f"agreement_{suffix}": agree, f"kappa_{suffix}": float(np.mean([_jaccard(a, b) for a, b in pairs]))}
    a = np.array([p[0] for p in pairs], dtype=np.int64)
    b = np.array([p[1] for p in pairs], dtype=np.int64)
    return {f"agreement_{suffix}": agree, f"kappa_{suffix}": _kappa_pair(a, b, q, W)}


def majority_vote(ratings: pd.DataFrame, *, categories: Sequence | None = None, item: str = "item_id",
                  rater: str = "annotator", value: str = "value") -> pd.DataFrame:
    """Majority label per item (nominal/ordinal codes).

    Returns
    -------
    pandas.DataFrame
        ``item``, ``label`` (``None`` when tied), ``share`` (votes for the label / ratings),
        ``n_ratings``, ``tied``.
    """
    prep = _prep(ratings, "single", categories, item, rater, value, "majority_vote")
    q = len(prep.categories)
    rows = []
    for i, it in enumerate(prep.items):
        codes = prep.matrix[i][prep.rated[i]]
        if len(codes) == 0:
            rows.append({"item": it, "label": None, "share": float("nan"), "n_ratings": 0, "tied": False})
            continue
        counts = np.bincount(codes, minlength=q)
        top = np.flatnonzero(counts == counts.max())
        tied = len(top) > 1
        rows.append({"item": it, "label": None if tied else prep.categories[top[0]],
                     "share": float(counts.max() / len(codes)), "n_ratings": int(len(codes)), "tied": tied})
    return pd.DataFrame(rows, columns=["item", "label", "share", "n_ratings", "tied"])


def dawid_skene(ratings: pd.DataFrame, *, categories: Sequence | None = None, max_iter: int = 100,
                tol: float = 1e-6, seed: int = 0, item: str = "item_id", rater: str = "annotator",
                value: str = "value", smoothing: float = 0.01) -> pd.DataFrame:
    r"""Dawid–Skene (1979) latent-class label aggregation by EM.

    Each rater *j* has a confusion matrix :math:`\pi^{(j)}_{kl} = P(\text{rater says } l \mid
    \text{true } k)`; class priors :math:`p_k`. EM starts from the soft majority vote and
    alternates posteriors :math:`T_{ik} \propto p_k \prod_j \prod_l (\pi^{(j)}_{kl})^{n_{ijl}}`
    and maximum-likelihood updates (with additive ``smoothing`` on the confusion counts).

    Parameters
    ----------
    ratings : pandas.DataFrame
        Long format (nominal/ordinal codes).
    categories : sequence, optional
    max_iter : int, default=100
    tol : float, default=1e-6
        Stop when the log-likelihood improves by less than this.
    seed : int, default=0
        Breaks exact ties between posterior classes reproducibly.
    item, rater, value : str
    smoothing : float, default=0.01

    Returns
    -------
    pandas.DataFrame
        ``item``, ``label``, ``posterior`` (of the label), ``majority`` (majority-vote label,
        ``None`` when tied) and ``p_<code>`` columns. ``attrs``: ``priors``, ``confusion``
        (rater -> DataFrame), ``n_iter``, ``converged``, ``log_likelihood``.

    References
    ----------
    .. [1] Dawid, A. P., & Skene, A. M. (1979). Maximum likelihood estimation of observer
       error-rates using the EM algorithm. *Applied Statistics*, 28(1), 20–28.
    """
    prep = _prep(ratings, "single", categories, item, rater, value, "dawid_skene")
    q, n, r = len(prep.categories), len(prep.items), len(prep.raters)
    if q < 2:
        raise InputError("dawid_skene needs at least 2 categories.", field="categories")
    onehot = np.zeros((n, r, q))
    ii, jj = np.nonzero(prep.rated)
    onehot[ii, jj, prep.matrix[ii, jj]] = 1.0
    counts = onehot.sum(axis=1)
    rated_items = counts.sum(axis=1) > 0
    T = np.where(rated_items[:, None], counts / np.maximum(counts.sum(axis=1, keepdims=True), 1), 1.0 / q)
    prev_ll, converged, it = -np.inf, False, 0
    for it in range(1, int(max_iter) + 1):
        priors = T.mean(axis=0)
        conf = np.einsum("ik,ijl->jkl", T, onehot) + smoothing
        conf /= conf.sum(axis=2, keepdims=True)
        log_t = np.log(priors)[None, :] + np.einsum("ijl,jkl->ik", onehot, np.log(conf))
        mx = log_t.max(axis=1, keepdims=True)
        ll = float((mx[:, 0] + np.log(np.exp(log_t - mx).sum(axis=1))).sum())
        T = np.exp(log_t - mx)
        T /= T.sum(axis=1, keepdims=True)
        if ll - prev_ll < tol:
            converged = True
            break
        prev_ll = ll
    rng = np.random.default_rng(seed)
    labels = []
    for row in T:
        top = np.flatnonzero(np.isclose(row, row.max(), rtol=0, atol=1e-12))
        labels.append(int(top[0] if len(top) == 1 else rng.choice(top)))
    mv = majority_vote(ratings, categories=prep.categories, item=item, rater=rater, value=value)
    out = pd.DataFrame({"item": prep.items, "label": [prep.categories[k] for k in labels],
                        "posterior": T[np.arange(n), labels], "majority": mv["label"].to_numpy()})
    for k, cat in enumerate(prep.categories):
        out[f"p_{cat}"] = T[:, k]
    out.attrs.update(priors=dict(zip(prep.categories, T.mean(axis=0).tolist())),
                     confusion={who: pd.DataFrame(conf[j], index=prep.categories, columns=prep.categories)
                                for j, who in enumerate(prep.raters)},
                     n_iter=it, converged=converged, log_likelihood=ll)
    return out


