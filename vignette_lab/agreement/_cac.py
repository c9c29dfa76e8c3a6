"""Chance-corrected agreement on count matrices, with item weights and analytic variances (private).

Everything here works on an items × categories count matrix ``r`` (``r[i, k]`` raters put item
``i`` into category ``k``; only items with two or more ratings) and a q × q *agreement* weight
matrix ``W`` (identity for nominal data). Each statistic accepts item weights ``w`` of shape
``(B, n)`` so that B bootstrap resamples (multiplicities of each item) or the n jackknife
leave-one-out samples are evaluated in one matrix product instead of a Python loop.

Variances follow Gwet (2014, ch. 5) as implemented in the R package irrCAC
(``fleiss.kappa.raw``, ``gwet.ac1.raw``, ``bp.coeff.raw``, ``pa.coeff.raw``,
``conger.kappa.raw``): linearised per-item terms, ``var = sum((c_i* - c)^2) / (n (n - 1))``, and a
Student-t interval with n - 1 degrees of freedom.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import t as t_dist


# --------------------------------------------------------------------------- weights

def agreement_weights(q: int, kind: str | None) -> np.ndarray:
    """q × q agreement weights (1 on the diagonal): identity, linear, quadratic or ordinal (Gwet)."""
    idx = np.arange(q, dtype=float)
    d = np.abs(idx[:, None] - idx[None, :])
    if kind is None or q < 2:
        return np.eye(q)
    if kind == "linear":
        return 1.0 - d / (q - 1)
    if kind == "quadratic":
        return 1.0 - d ** 2 / (q - 1) ** 2
    if kind == "ordinal":  # irrCAC ordinal.weights: 1 - C(|k-l|+1, 2) / C(q, 2)
        m = d + 1
        return 1.0 - (m * (m - 1) / 2) / (q * (q - 1) / 2)
    raise ValueError(kind)


# --------------------------------------------------------------------------- per-item parts

class CountParts:
    """Per-item pieces shared by percent agreement, Fleiss, AC1/AC2 and Brennan–Prediger."""

    def __init__(self, counts: np.ndarray, weights: np.ndarray):
        counts = np.asarray(counts, dtype=float)
        self.counts = counts
        self.W = weights
        self.n, self.q = counts.shape
        r = counts.sum(axis=1)
        self.r = r
        # Items rated once cannot show agreement: they are left out of p_a but, as in Gwet (2014)
        # and irrCAC, still count toward the category prevalences.
        self.m2 = (r >= 2).astype(float)
        self.n2 = int(self.m2.sum())
        rw = counts @ weights.T  # r*_ik = sum_l w_kl r_il
        den = r * (r - 1.0)
        self.pa_i = np.where(den > 0, (counts * (rw - 1.0)).sum(axis=1) / np.where(den > 0, den, 1.0), 0.0)
        self.p_i = counts / r[:, None]  # item-level category shares
        self.t_w = float(weights.sum())

    # Each statistic: given item weights w (B, n) -> (B,) values.
    def _mean(self, w: np.ndarray, x: np.ndarray) -> np.ndarray:
        return (w @ x) / w.sum(axis=1, keepdims=x.ndim > 1) if x.ndim > 1 else (w @ x) / w.sum(axis=1)

    def pa(self, w: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return (w @ self.pa_i) / (w @ self.m2)

    def pi(self, w: np.ndarray) -> np.ndarray:
        return (w @ self.p_i) / w.sum(axis=1)[:, None]

    def pe(self, method: str, pi: np.ndarray) -> np.ndarray:
        if method == "fleiss":
            return np.einsum("bk,kl,bl->b", pi, self.W, pi)
        if method == "ac":
            return self.t_w / (self.q * (self.q - 1)) * (pi * (1.0 - pi)).sum(axis=1)
        if method == "bp":
            return np.full(pi.shape[0], self.t_w / self.q ** 2)
        if method == "pa":
            return np.zeros(pi.shape[0])
        raise ValueError(method)

    def coefficient(self, method: str, w: np.ndarray) -> np.ndarray:
        pa = self.pa(w)
        if method == "pa":
            return pa
        pe = self.pe(method, self.pi(w))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (pa - pe) / (1.0 - pe)
        out[~(pe < 1.0 - 1e-12)] = np.nan
        return out

    def variance(self, method: str) -> tuple[float, float]:
        """Point value and Gwet's linearised variance (irrCAC raw-data formulas, N = inf)."""
        one = np.ones((1, self.n))
        value = float(self.coefficient(method, one)[0])
        n = self.n
        if n < 2 or np.isnan(value):
            return value, float("nan")
        scale = n / self.n2
        pa_i = self.pa_i
        if method == "pa":
            return value, float(((pa_i * scale - value) ** 2).sum() / (n * (n - 1)))
        pi = self.pi(one)[0]
        pe = float(self.pe(method, pi[None, :])[0])
        c_i = scale * (pa_i - pe * self.m2) / (1.0 - pe)
        if method == "fleiss":
            pi_w = (self.W @ pi + self.W.T @ pi) / 2.0
            pe_i = self.p_i @ pi_w
        elif method == "ac":
            pe_i = self.t_w / (self.q * (self.q - 1)) * (self.p_i @ (1.0 - pi))
        else:  # bp: chance agreement is a constant
            pe_i = np.full(n, pe)
        c_x = c_i - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe)
        return value, float(((c_x - value) ** 2).sum() / (n * (n - 1)))


def conger(codes: np.ndarray, q: int, weights: np.ndarray) -> tuple[float, float]:
    """Conger's (1980) kappa for items × raters integer codes (-1 missing) and its variance.

    Follows irrCAC ``conger.kappa.raw``: chance agreement from each rater's own category
    distribution, corrected by their between-rater variance; Gwet's linearised variance. Items
    rated once count toward the raters' category distributions only. With two raters and complete data this is Cohen's
    kappa (weighted with ``weights``).
    """
    n, r = codes.shape
    rated = codes >= 0
    onehot = np.zeros((n, r, q))
    ii, jj = np.nonzero(rated)
    onehot[ii, jj, codes[ii, jj]] = 1.0
    counts = onehot.sum(axis=1)
    parts = CountParts(counts, weights)
    pa = float(parts.pa_i.sum() / parts.n2)
    ng = rated.sum(axis=0).astype(float)  # items rated by each rater
    ng_safe = np.where(ng > 0, ng, 1.0)
    classif = onehot.sum(axis=0)  # r × q
    pgk = classif / ng_safe[:, None]
    pbar = pgk.mean(axis=0)
    s2 = (pgk.T @ pgk - r * np.outer(pbar, pbar)) / (r - 1)
    pe = float((weights * (np.outer(pbar, pbar) - s2 / r)).sum())
    if not pe < 1.0 - 1e-12:
        return float("nan"), float("nan")
    kappa = (pa - pe) / (1.0 - pe)
    if n < 2:
        return float(kappa), float("nan")
    # Per-item chance-agreement terms (irrCAC's lamda.ig.mat loop, vectorised over k and l).
    eps = rated.astype(float)
    centre = eps - (ng / n)[None, :]  # n × r
    # lam_k[i, g] = sum_l w_kl (delta_igl - centre_ig * pgk[g, l]) * n / ng_g
    delta = onehot  # n × r × q
    inner = delta - centre[:, :, None] * pgk[None, :, :]  # n × r × q (over l)
    lam = np.einsum("kl,igl->igk", weights, inner) * (n / ng_safe)[None, :, None]
    factor = r * pbar[None, :] - pgk  # r × q : r * mean_g pgk[., k] - pgk[g, k]
    lam_ig = (lam * factor[None, :, :]).sum(axis=2)
    pe_i = lam_ig.sum(axis=1) / (r * (r - 1))
    c_i = (n / parts.n2) * (parts.pa_i - pe * parts.m2) / (1.0 - pe)
    c_x = c_i - 2.0 * (1.0 - kappa) * (pe_i - pe) / (1.0 - pe)
    return float(kappa), float(((c_x - kappa) ** 2).sum() / (n * (n - 1)))


def t_interval(value: float, variance: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Student-t interval ``value ± t(n-1) * se``, clipped to [-1, 1] (irrCAC clips at 1)."""
    if np.isnan(value) or np.isnan(variance) or n < 2:
        return float("nan"), float("nan")
    half = float(t_dist.ppf(1 - (1 - confidence) / 2, n - 1)) * float(np.sqrt(variance))
    return max(-1.0, value - half), min(1.0, value + half)


# --------------------------------------------------------------------------- Krippendorff

class AlphaParts:
    """Krippendorff's alpha from per-unit value counts, any distance, with unit weights.

    ``counts[u, c]`` is how many raters gave unit ``u`` the value ``c`` (only pairable units,
    two or more values). ``delta`` is the squared-difference matrix of the metric, or the string
    ``'ordinal'`` (rank distance recomputed from the marginals of each resample, as Krippendorff
    defines it).
    """

    def __init__(self, counts: np.ndarray, delta):
        counts = np.asarray(counts, dtype=float)
        m = counts.sum(axis=1)
        self.n, self.q = counts.shape
        contrib = (counts[:, :, None] * counts[:, None, :])
        idx = np.arange(self.q)
        contrib[:, idx, idx] -= counts
        self.contrib = (contrib / (m - 1.0)[:, None, None]).reshape(self.n, self.q * self.q)
        self.delta = delta

    @staticmethod
    def ordinal_delta(marg: np.ndarray) -> np.ndarray:
        """(B, q) marginals -> (B, q, q) Krippendorff ordinal distances."""
        cum = np.cumsum(marg, axis=1)
        # sum_{g=c..k} n_g - (n_c + n_k)/2 for c <= k
        lo = cum[:, :, None] - marg[:, :, None]  # sum_{g<c}
        span = cum[:, None, :] - lo  # sum_{g=c..k} for k >= c
        d = span - (marg[:, :, None] + marg[:, None, :]) / 2.0
        d = np.triu(d ** 2, 1)
        return d + np.transpose(d, (0, 2, 1))

    def alpha(self, w: np.ndarray) -> np.ndarray:
        o = (w @ self.contrib).reshape(-1, self.q, self.q)
        marg = o.sum(axis=2)
        total = marg.sum(axis=1)
        if isinstance(self.delta, str):
            delta = self.ordinal_delta(marg)
            d_o = (o * delta).sum(axis=(1, 2))
            d_e = np.einsum("bc,bck,bk->b", marg, delta, marg)
        else:
            d_o = (o * self.delta[None]).sum(axis=(1, 2))
            d_e = np.einsum("bc,ck,bk->b", marg, self.delta, marg)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = 1.0 - (total - 1.0) * d_o / d_e
        out[~(d_e > 1e-12)] = np.nan
        return out


def nominal_delta(q: int) -> np.ndarray:
    return 1.0 - np.eye(q)


def interval_delta(values: np.ndarray) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    return (v[:, None] - v[None, :]) ** 2


def masi_distance(a: frozenset, b: frozenset) -> float:
    """MASI distance (Passonneau 2006): 1 - Jaccard × monotonicity (1, 2/3, 1/3, 0)."""
    if a == b:
        return 0.0
    union = len(a | b)
    inter = len(a & b)
    if inter == 0:
        return 1.0
    m = 2.0 / 3.0 if (a <= b or b <= a) else 1.0 / 3.0
    return 1.0 - (inter / union) * m


def masi_delta(sets: list[frozenset]) -> np.ndarray:
    q = len(sets)
    out = np.zeros((q, q))
    for i in range(q):
        for j in range(i + 1, q):
            out[i, j] = out[j, i] = masi_distance(sets[i], sets[j])
    return out


# --------------------------------------------------------------------------- bootstrap

def resample_weights(n: int, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n) multiplicities of each item in ``n_boot`` resamples with replacement."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, (n_boot, n))
    flat = (np.arange(n_boot)[:, None] * n + idx).ravel()
    return np.bincount(flat, minlength=n_boot * n).reshape(n_boot, n).astype(float)


def jackknife_weights(n: int) -> np.ndarray:
    return 1.0 - np.eye(n)


def bootstrap_interval(stat, n: int, *, n_boot: int, seed: int, method: str, confidence: float = 0.95,
                       chunk: int = 250) -> tuple[float, float, int]:
    """BCa or percentile interval of ``stat(weights)``; returns (low, high, n_undefined).

    Resamples whose statistic is undefined (nan, e.g. one category drawn) are counted and left
    out of the percentiles; the caller reports the count.
    """
    theta = float(stat(np.ones((1, n)))[0])
    if np.isnan(theta) or n < 2:
        return float("nan"), float("nan"), n_boot
    vals = []
    rng_seed = seed
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        vals.append(stat(resample_weights(n, b, rng_seed + start)))
    boot = np.concatenate(vals)
    undefined = int(np.isnan(boot).sum())
    boot = boot[~np.isnan(boot)]
    if boot.size < 10:
        return float("nan"), float("nan"), undefined
    alpha = (1 - confidence) / 2
    if method == "percentile":
        lo, hi = np.quantile(boot, [alpha, 1 - alpha])
        return float(lo), float(hi), undefined
    from scipy.stats import norm

    prop = (np.sum(boot < theta) + 0.5 * np.sum(boot == theta)) / boot.size
    prop = min(max(prop, 1.0 / (boot.size + 1)), 1 - 1.0 / (boot.size + 1))
    z0 = norm.ppf(prop)
    jack = stat(jackknife_weights(n)) if n <= 2000 else np.array([np.nan])
    jack = jack[~np.isnan(jack)]
    acc = 0.0
    if jack.size >= 2:
        d = jack.mean() - jack
        denom = 6.0 * (np.sum(d ** 2) ** 1.5)
        acc = float(np.sum(d ** 3) / denom) if denom > 0 else 0.0
    zs = norm.ppf([alpha, 1 - alpha])
    adj = norm.cdf(z0 + (z0 + zs) / (1 - acc * (z0 + zs)))
    lo, hi = np.quantile(boot, adj)
    return float(lo), float(hi), undefined


# --------------------------------------------------------------------------- binary: integrated likelihood

def _ebb_stats(r: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sufficient statistics of the extended beta-binomial likelihood: for j = 0..max(r)-1, how many
    items have y > j (A1), r - y > j (A0) and r > j (Ar)."""
    j = np.arange(int(r.max()))
    a1 = (y[:, None] > j[None, :]).sum(axis=0).astype(float)
    a0 = ((r - y)[:, None] > j[None, :]).sum(axis=0).astype(float)
    ar = (r[:, None] > j[None, :]).sum(axis=0).astype(float)
    return j.astype(float), a1, a0, ar


_PI_GRID = None


def _pi_grid() -> np.ndarray:
    global _PI_GRID
    if _PI_GRID is None:
        half = np.geomspace(1e-5, 0.5, 150)
        _PI_GRID = np.unique(np.concatenate([half, 1.0 - half]))
    return _PI_GRID


def _loglik_grid(rho: np.ndarray, stats) -> np.ndarray:
    """Extended beta-binomial log-likelihood on a rho × pi grid (-inf where infeasible)."""
    j, a1, a0, ar = stats
    theta = (rho / (1.0 - rho))[:, None, None]
    pi = _pi_grid()[None, :, None]
    jj = j[None, None, :]
    f1, f0, fr = pi + jj * theta, 1.0 - pi + jj * theta, 1.0 + jj * theta
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = (np.where(a1 > 0, a1 * np.log(np.where(f1 > 0, f1, np.nan)), 0.0).sum(axis=2)
              + np.where(a0 > 0, a0 * np.log(np.where(f0 > 0, f0, np.nan)), 0.0).sum(axis=2)
              - np.where(ar > 0, ar * np.log(np.where(fr > 0, fr, np.nan)), 0.0).sum(axis=2))
    return np.where(np.isnan(ll), -np.inf, ll)


def binary_likelihood_interval(counts: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """Integrated-likelihood interval for the intraclass kappa of binary ratings.

    Model: the number of positive ratings of an item with r ratings is extended beta-binomial
    (Prentice 1986) with prevalence pi and intraclass correlation rho — for two raters exactly
    the common-correlation model of Donner & Eliasziw (1992), whose kappa is Fleiss'/Scott's.
    The prevalence is integrated out under its Jeffreys prior Beta(1/2, 1/2) and rho gets a
    uniform prior over its admissible range; the interval is the equal-tailed ``confidence``
    interval of the resulting distribution of rho (computed on a 200 × 300 grid).

    Why: Wald (linearised) and bootstrap intervals collapse when a rare category happens to be
    agreed on every time (estimate 1, standard error 0) and cover only 72–77 % at 5 %
    prevalence; the profile-likelihood interval reached 89–90 %; this one keeps its nominal
    coverage for balanced and 5 % prevalence (``bench/bench_gate.py``, ``bench/RESULTS.md``).
    """
    counts = np.asarray(counts, dtype=float)
    r = counts.sum(axis=1).astype(int)
    y = counts[:, 1].astype(int)
    keep = r >= 1
    r, y = r[keep], y[keep]
    if y.sum() == 0 or y.sum() == r.sum():
        return float("nan"), float("nan")
    rmax = int(r.max())
    stats = _ebb_stats(r, y)
    rho_min = max(-1.0 / (rmax - 1) + 1e-6 if rmax > 1 else 0.0, -0.999)
    rho = np.linspace(rho_min, 0.9995, 200)
    ll = _loglik_grid(rho, stats)
    pi = _pi_grid()
    prior_pi = np.gradient(pi) / np.sqrt(pi * (1.0 - pi))
    finite = np.isfinite(ll)
    if not finite.any():
        return float("nan"), float("nan")
    like = np.exp(ll - ll[finite].max())
    post = (like * prior_pi[None, :]).sum(axis=1) * np.gradient(rho)
    post /= post.sum()
    cdf = np.cumsum(post) - post / 2.0
    tail = (1.0 - confidence) / 2.0
    low, high = (float(x) for x in np.interp([tail, 1.0 - tail], cdf, rho))
    if high >= rho[-2]:
        high = 1.0  # the mass piles up at the top of the grid: the bound is kappa's maximum
    return float(max(low, -1.0)), float(min(high, 1.0))
