"""Agreement statistics against published tables and the reference libraries (to 1e-9)."""

from __future__ import annotations

from fractions import Fraction

import krippendorff
import numpy as np
import pandas as pd
import pingouin
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from vignette_lab.pipeline.iaa import cohen_kappa, fleiss_kappa, gwet_ac1, icc, krippendorff_alpha

TOL = 1e-9

# irrCAC's `cac.raw4raters` (Gwet 2014; R package irrCAC, data set documented in its README):
# 12 units × 4 raters, categories 1–5, missing ratings as None.
RAW4RATERS = [
    [1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, None, 3, None],
]

# Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges.
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
SHROUT_FLEISS_PUBLISHED = {"ICC1": 0.17, "ICC2": 0.29, "ICC3": 0.71, "ICC1k": 0.44, "ICC2k": 0.62, "ICC3k": 0.91}


def _hand_pa_pi(rows):
    """Gwet's p_a and pi_k with exact fractions, written out loop by loop from the formulas."""
    rows = [[v for v in row if v is not None] for row in rows]
    rows = [r for r in rows if r]
    cats = sorted({v for r in rows for v in r})
    multi = [r for r in rows if len(r) >= 2]
    pa = sum(sum(Fraction(r.count(c) * (r.count(c) - 1), len(r) * (len(r) - 1)) for c in cats)
             for r in multi) / len(multi)
    pi = {c: sum(Fraction(r.count(c), len(r)) for r in rows) / len(rows) for c in cats}
    return pa, pi, cats


class TestGwetWorkedExample:
    """irrCAC README output for cac.raw4raters: Fleiss' kappa 0.76117 (pa 0.8181818,
    pe 0.2387153), Gwet's AC1 0.77544 (pe 0.1903212), Krippendorff's alpha 0.74342.
    The 0.76282 sometimes quoted for this data is irrCAC's *Conger's* kappa, not Fleiss'."""

    def test_hand_computation_reproduces_irrcac_parts(self):
        pa, pi, cats = _hand_pa_pi(RAW4RATERS)
        assert pa == Fraction(9, 11)
        pe_fleiss = sum(p * p for p in pi.values())
        assert pe_fleiss == Fraction(34375, 144000)
        assert float(pe_fleiss) == pytest.approx(0.2387153, abs=5e-8)
        pe_ac1 = sum(p * (1 - p) for p in pi.values()) / (len(cats) - 1)
        assert float(pe_ac1) == pytest.approx(0.1903212, abs=5e-8)

    def test_fleiss_matches_hand_and_irrcac(self):
        pa, pi, _ = _hand_pa_pi(RAW4RATERS)
        pe = sum(p * p for p in pi.values())
        hand = float((pa - pe) / (1 - pe))
        assert fleiss_kappa(RAW4RATERS) == pytest.approx(hand, abs=1e-12)
        assert round(fleiss_kappa(RAW4RATERS), 5) == 0.76117

    def test_ac1_matches_hand_and_irrcac(self):
        pa, pi, cats = _hand_pa_pi(RAW4RATERS)
        pe = sum(p * (1 - p) for p in pi.values()) / (len(cats) - 1)
        hand = float((pa - pe) / (1 - pe))
        assert gwet_ac1(RAW4RATERS) == pytest.approx(hand, abs=1e-12)
        assert round(gwet_ac1(RAW4RATERS), 5) == 0.77544

    def test_alpha_matches_irrcac_and_krippendorff(self):
        data = np.array(RAW4RATERS, dtype=float).T  # raters × units, None -> nan
        ours = krippendorff_alpha(data)
        assert ours == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"),
                                     abs=TOL)
        assert round(ours, 5) == 0.74342

    def test_string_labels_give_the_same_values(self):
        names = {1: "공감", 2: "질문", 3: "요약", 4: "반영", 5: "직면"}
        text = [[names.get(v) for v in row] for row in RAW4RATERS]
        assert fleiss_kappa(text) == pytest.approx(fleiss_kappa(RAW4RATERS), abs=1e-15)
        assert gwet_ac1(text) == pytest.approx(gwet_ac1(RAW4RATERS), abs=1e-15)


def _long(wide, *, missing=()):
    rows = [(f"t{t}", f"r{j}", float(s)) for t, row in enumerate(wide) for j, s in enumerate(row)
            if (t, j) not in missing]
    return pd.DataFrame(rows, columns=["target", "rater", "score"])


def _pingouin(long, **kw):
    with _Unrounded():
        ref = pingouin.intraclass_corr(long, targets="target", raters="rater", ratings="score", **kw)
    ref = ref.assign(ci_low=[c[0] for c in ref["CI95"]], ci_high=[c[1] for c in ref["CI95"]])
    return ref


class _Unrounded:
    """pingouin rounds CI95 to 2 decimals by default; switch that off for an exact comparison."""

    def __enter__(self):
        self.saved = pingouin.options.get("round.column.CI95")
        pingouin.options["round.column.CI95"] = None

    def __exit__(self, *exc):
        pingouin.options["round.column.CI95"] = self.saved


def _assert_icc_equal(ours, ref):
    assert list(ours["Type"]) == ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
    for col in ("ICC", "F", "df1", "df2", "pval", "ci_low", "ci_high"):
        np.testing.assert_allclose(ours[col].to_numpy(float), ref[col].to_numpy(float), rtol=0, atol=TOL,
                                   err_msg=col)


class TestICC:
    def test_shrout_fleiss_table_2_published_values(self):
        out = icc(_long(SHROUT_FLEISS), targets="target", raters="rater", ratings="score").set_index("Type")
        for name, value in SHROUT_FLEISS_PUBLISHED.items():
            assert round(out.at[name, "ICC"], 2) == value, name

    def test_shrout_fleiss_equals_pingouin(self):
        long = _long(SHROUT_FLEISS)
        _assert_icc_equal(icc(long, targets="target", raters="rater", ratings="score"), _pingouin(long))

    @pytest.mark.parametrize("n,k,seed", [(10, 3, 0), (40, 5, 1), (200, 2, 2), (7, 8, 3)])
    def test_random_data_equals_pingouin(self, n, k, seed):
        rng = np.random.default_rng(seed)
        truth = rng.normal(size=(n, 1))
        wide = np.round(truth + rng.normal(scale=0.8, size=(n, k)) + rng.normal(size=(1, k)), 3)
        long = _long(wide)
        _assert_icc_equal(icc(long, targets="target", raters="rater", ratings="score"), _pingouin(long))

    def test_missing_ratings_omit_equals_pingouin(self):
        rng = np.random.default_rng(7)
        wide = rng.integers(0, 6, size=(30, 4)).astype(float)
        long = _long(wide, missing={(3, 1), (8, 0), (8, 2)})
        long.loc[5, "score"] = np.nan  # target t1, rater r1 -> a NaN rating, not an absent row
        ours = icc(long, targets="target", raters="rater", ratings="score", nan_policy="omit")
        _assert_icc_equal(ours, _pingouin(long, nan_policy="omit"))
        assert ours.attrs["n_dropped_targets"] == 3
        assert ours.attrs["n_targets"] == 27


class TestReferenceLibraries:
    @pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
    @pytest.mark.parametrize("n,q,seed", [(30, 3, 0), (500, 5, 1), (12, 2, 2)])
    def test_cohen_kappa_equals_sklearn(self, weights, n, q, seed):
        rng = np.random.default_rng(seed)
        a = rng.integers(0, q, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, q, n))
        ref = cohen_kappa_score(a, b, weights=weights)
        assert cohen_kappa(a, b, weights=weights) == pytest.approx(ref, abs=TOL)
        assert cohen_kappa(list(a), list(b), weights=weights) == pytest.approx(ref, abs=TOL)
        assert cohen_kappa(pd.Series(a), pd.Series(b), weights=weights) == pytest.approx(ref, abs=TOL)
        text = np.array(["c%02d" % v for v in range(q)])  # zero-padded: lexical order == numeric
        assert cohen_kappa(text[a], text[b], weights=weights) == pytest.approx(ref, abs=TOL)

    def test_weighted_kappa_keeps_unused_categories_in_labels(self):
        a, b = [1, 2, 5, 5, 1], [1, 1, 5, 4, 2]
        labels = [1, 2, 3, 4, 5]
        assert cohen_kappa(a, b, weights="linear", labels=labels) == pytest.approx(
            cohen_kappa_score(a, b, weights="linear", labels=labels), abs=TOL)

    @pytest.mark.parametrize("n,k,q,seed", [(20, 3, 3, 0), (300, 5, 4, 1), (50, 2, 2, 2), (80, 10, 6, 3)])
    def test_fleiss_equals_statsmodels_on_complete_data(self, n, k, q, seed):
        rng = np.random.default_rng(seed)
        base = rng.integers(0, q, (n, 1))
        ratings = np.where(rng.random((n, k)) < 0.5, base, rng.integers(0, q, (n, k)))
        ref = sm_fleiss(aggregate_raters(ratings)[0])
        assert fleiss_kappa(ratings) == pytest.approx(ref, abs=TOL)
        assert fleiss_kappa(ratings.tolist()) == pytest.approx(ref, abs=TOL)
        assert fleiss_kappa(pd.DataFrame(ratings)) == pytest.approx(ref, abs=TOL)
        text = np.array([f"기법{v}" for v in range(q)], dtype=object)[ratings]
        assert fleiss_kappa(text) == pytest.approx(ref, abs=TOL)

    @pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
    @pytest.mark.parametrize("m,n,seed", [(2, 40, 0), (4, 100, 1), (6, 25, 2)])
    def test_alpha_equals_krippendorff_with_missing(self, level, m, n, seed):
        rng = np.random.default_rng(seed)
        base = rng.integers(1, 6, (1, n))
        data = np.where(rng.random((m, n)) < 0.6, base, rng.integers(1, 6, (m, n))).astype(float)
        data[rng.random((m, n)) < 0.15] = np.nan
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert krippendorff_alpha(data, level=level) == pytest.approx(ref, abs=TOL)
        assert krippendorff_alpha(pd.DataFrame(data), level=level) == pytest.approx(ref, abs=TOL)

    def test_nominal_alpha_with_text_labels_equals_coded(self):
        rng = np.random.default_rng(5)
        data = rng.integers(0, 4, (3, 60)).astype(float)
        data[rng.random((3, 60)) < 0.1] = np.nan
        names = np.array(["공감", "질문", "요약", "반영"], dtype=object)
        text = np.where(np.isnan(data), None, names[np.nan_to_num(data).astype(int)])
        assert krippendorff_alpha(text) == pytest.approx(
            krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=TOL)

    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_ac1_with_missing_equals_hand_formula(self, seed):
        rng = np.random.default_rng(seed)
        ratings = rng.integers(1, 5, (25, 4)).astype(object)
        ratings[rng.random((25, 4)) < 0.25] = None
        rows = ratings.tolist()
        pa, pi, cats = _hand_pa_pi(rows)
        pe = sum(p * (1 - p) for p in pi.values()) / (len(cats) - 1)
        assert gwet_ac1(rows) == pytest.approx(float((pa - pe) / (1 - pe)), abs=TOL)
        pe_f = sum(p * p for p in pi.values())
        assert fleiss_kappa(rows) == pytest.approx(float((pa - pe_f) / (1 - pe_f)), abs=TOL)
