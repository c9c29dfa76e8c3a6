"""Behaviour of vignette_lab.pipeline.iaa: properties, missing data, errors, intervals, bands."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from vignette_lab.errors import InputError
from vignette_lab.pipeline import iaa
from vignette_lab.pipeline.iaa import (
    UndefinedAgreementWarning,
    ac1_ci,
    agreement_report,
    alpha_ci,
    bootstrap_ci,
    cohen_kappa,
    fleiss_ci,
    fleiss_kappa,
    gwet_ac1,
    icc,
    interpret_icc,
    interpret_kappa,
    kappa_ci,
    krippendorff_alpha,
    multilabel_agreement,
    per_label_kappa,
)

TECHNIQUES = ["공감", "질문", "요약", "반영", "직면"]


def _ratings(n=60, k=4, q=4, seed=0, agree=0.6, missing=0.0):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, q, (n, 1))
    codes = np.where(rng.random((n, k)) < agree, base, rng.integers(0, q, (n, k)))
    out = np.array(TECHNIQUES, dtype=object)[codes]
    if missing:
        out[rng.random((n, k)) < missing] = None
    return out


def test_all_is_sorted_and_complete():
    assert iaa.__all__ == sorted(iaa.__all__)
    for name in iaa.__all__:
        assert hasattr(iaa, name), name


# --------------------------------------------------------------------------- properties

class TestProperties:
    def test_kappa_symmetric(self):
        r = _ratings(k=2, seed=1)
        for weights in (None, "linear", "quadratic"):
            assert cohen_kappa(r[:, 0], r[:, 1], weights=weights) == pytest.approx(
                cohen_kappa(r[:, 1], r[:, 0], weights=weights), abs=1e-12)

    def test_kappa_invariant_to_relabelling(self):
        r = _ratings(k=2, seed=2)
        mapping = {t: f"label-{i * 7 % 5}" for i, t in enumerate(TECHNIQUES)}
        relabelled = np.vectorize(mapping.get, otypes=[object])(r)
        assert cohen_kappa(relabelled[:, 0], relabelled[:, 1]) == pytest.approx(
            cohen_kappa(r[:, 0], r[:, 1]), abs=1e-12)

    @pytest.mark.parametrize("func", [fleiss_kappa, gwet_ac1])
    def test_fleiss_and_ac1_invariant_to_rater_and_item_order(self, func):
        r = _ratings(seed=3, missing=0.1)
        rng = np.random.default_rng(0)
        value = func(r)
        assert func(r[:, ::-1]) == pytest.approx(value, abs=1e-12)
        assert func(r[rng.permutation(len(r))]) == pytest.approx(value, abs=1e-12)

    def test_alpha_invariant_to_rater_and_unit_order(self):
        data = _ratings(seed=4, missing=0.1).T
        rng = np.random.default_rng(1)
        value = krippendorff_alpha(data)
        assert krippendorff_alpha(data[::-1]) == pytest.approx(value, abs=1e-12)
        assert krippendorff_alpha(data[:, rng.permutation(data.shape[1])]) == pytest.approx(value, abs=1e-12)

    def test_perfect_agreement_is_one(self):
        col = np.array(TECHNIQUES * 4, dtype=object)[:, None]
        perfect = np.hstack([col, col, col])
        assert cohen_kappa(perfect[:, 0], perfect[:, 1]) == pytest.approx(1.0)
        assert fleiss_kappa(perfect) == pytest.approx(1.0)
        assert gwet_ac1(perfect) == pytest.approx(1.0)
        assert krippendorff_alpha(perfect.T) == pytest.approx(1.0)
        long = pd.DataFrame([(i, j, float(i % 5)) for i in range(20) for j in range(3)],
                            columns=["t", "r", "s"])
        assert icc(long, targets="t", raters="r", ratings="s")["ICC"].to_numpy() == pytest.approx(np.ones(6))


# --------------------------------------------------------------------------- missing / undefined

class TestMissingAndUndefined:
    def test_kappa_drops_pairs_with_a_missing_rating(self):
        a = ["공감", "질문", None, "요약", "공감", float("nan")]
        b = ["공감", "요약", "질문", "요약", None, "공감"]
        assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(["공감", "질문", "요약"],
                                                                    ["공감", "요약", "요약"]))

    def test_single_category_kappa_is_nan_with_warning(self):
        with pytest.warns(UndefinedAgreementWarning, match="only one category"):
            assert math.isnan(cohen_kappa(["공감"] * 4, ["공감"] * 4))
        with pytest.warns(UndefinedAgreementWarning):
            assert math.isnan(fleiss_kappa([["a", "a"], ["a", "a"]]))
        with pytest.warns(UndefinedAgreementWarning):
            assert math.isnan(gwet_ac1([["a", "a"], ["a", None]]))
        with pytest.warns(UndefinedAgreementWarning):
            assert math.isnan(krippendorff_alpha([[1, 1, 1], [1, 1, None]]))

    def test_items_with_one_rating_count_only_in_prevalence(self):
        full = [["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"]]
        with_single = full + [["b", None, None]]
        # The extra single-rated item changes pi_b, not p_a: kappa moves, and is computable by hand.
        pa = ((2 * 1 + 0) / 6 + 1 + (2 * 1) / 6) / 3
        pi_a = (2 / 3 + 0 + 2 / 3 + 0) / 4
        pe = pi_a ** 2 + (1 - pi_a) ** 2
        assert fleiss_kappa(with_single) == pytest.approx((pa - pe) / (1 - pe), abs=1e-12)
        assert fleiss_kappa(with_single) != pytest.approx(fleiss_kappa(full))

    def test_rows_without_any_rating_are_ignored(self):
        r = _ratings(seed=6, missing=0.1)
        padded = np.vstack([r, [[None] * r.shape[1]] * 3])
        assert fleiss_kappa(padded) == pytest.approx(fleiss_kappa(r), abs=1e-12)
        assert gwet_ac1(padded) == pytest.approx(gwet_ac1(r), abs=1e-12)


# --------------------------------------------------------------------------- errors

class TestErrors:
    def test_kappa_bad_weights_message(self):
        with pytest.raises(InputError, match=r"The 'weights' parameter of cohen_kappa must be 'linear', "
                                             r"'quadratic' or None. Got 'cubic' instead."):
            cohen_kappa([1, 2], [1, 2], weights="cubic")

    def test_kappa_length_mismatch_and_empty(self):
        with pytest.raises(InputError, match="equal length. Got 3 and 2"):
            cohen_kappa([1, 2, 3], [1, 2])
        with pytest.raises(InputError, match="at least one item rated by both"):
            cohen_kappa([None, 1], [2, None])
        with pytest.raises(InputError, match="must be a list"):
            cohen_kappa("abc", "abd")

    def test_kappa_mixed_label_kinds_and_unknown_labels(self):
        with pytest.raises(InputError, match="mix of text and numeric"):
            cohen_kappa(["1", 2], ["1", "2"])
        with pytest.raises(InputError, match="not in 'labels'"):
            cohen_kappa(["a", "b"], ["a", "c"], labels=["a", "b"])

    def test_ratings_shape_errors(self):
        with pytest.raises(InputError, match="at least 2 raters. Got 1"):
            fleiss_kappa([["a"], ["b"]])
        with pytest.raises(InputError, match="must be 2-D. Got shape"):
            gwet_ac1(["a", "b", "c"])
        with pytest.raises(InputError, match="rated by 2 or more raters"):
            fleiss_kappa([["a", None], [None, "b"]])

    def test_alpha_errors(self):
        with pytest.raises(InputError, match=r"'level' parameter of krippendorff_alpha must be 'nominal', "
                                             r"'ordinal', 'interval' or 'ratio'. Got 'nominel' instead."):
            krippendorff_alpha([[1, 2], [1, 2]], level="nominel")
        with pytest.raises(InputError, match="at least 2 raters"):
            krippendorff_alpha([[1, 2, 3]])
        with pytest.raises(InputError, match="needs numeric values"):
            krippendorff_alpha([["낮음", "높음"], ["낮음", "중간"]], level="ordinal")

    def test_icc_errors_name_the_fix(self):
        long = pd.DataFrame({"t": [1, 1, 2, 2, 3], "r": ["a", "b", "a", "b", "a"], "s": [1.0, 2, 3, 4, 5]})
        with pytest.raises(InputError, match=r"1 target\(s\) with a missing rating.*3.*nan_policy='omit'"):
            icc(long, targets="t", raters="r", ratings="s")
        with pytest.raises(InputError, match="'nan_policy' parameter of icc must be 'raise' or 'omit'. "
                                             "Got 'drop' instead."):
            icc(long, targets="t", raters="r", ratings="s", nan_policy="drop")
        with pytest.raises(InputError, match="column 'score' not found"):
            icc(long, targets="t", raters="r", ratings="score")
        with pytest.raises(InputError, match="at least 2 raters"):
            icc(long[long.r == "a"], targets="t", raters="r", ratings="s")
        with pytest.raises(InputError, match="two ratings from rater 'a'"):
            icc(pd.concat([long, long.iloc[:1]]), targets="t", raters="r", ratings="s")
        with pytest.raises(InputError, match="numeric ratings"):
            icc(long.assign(s=["x"] * 5), targets="t", raters="r", ratings="s")

    def test_icc_omit_reports_dropped_targets(self):
        long = pd.DataFrame({"t": [1, 1, 2, 2, 3, 3, 4], "r": ["a", "b"] * 3 + ["a"],
                             "s": [1.0, 2, 3, 4, 5, 5, 2]})
        out = icc(long, targets="t", raters="r", ratings="s", nan_policy="omit")
        assert out.attrs["n_dropped_targets"] == 1
        assert out.attrs["dropped_targets"] == [4]
        assert list(out.columns) == ["Type", "Description", "ICC", "F", "df1", "df2", "pval", "ci_low",
                                     "ci_high"]
        assert (out["ci_low"] <= out["ICC"]).all() and (out["ICC"] <= out["ci_high"]).all()


# --------------------------------------------------------------------------- multi-label

class TestMultiLabel:
    def test_per_label_kappa_equals_sklearn_on_binary_vectors(self):
        rng = np.random.default_rng(0)
        sets1 = [set(rng.choice(TECHNIQUES, rng.integers(0, 3), replace=False)) for _ in range(80)]
        sets2 = [s if rng.random() < 0.6 else set(rng.choice(TECHNIQUES, 1)) for s in sets1]
        out = per_label_kappa(sets1, sets2).set_index("label")
        for label in TECHNIQUES:
            x = [label in s for s in sets1]
            y = [label in s for s in sets2]
            assert out.at[label, "kappa"] == pytest.approx(cohen_kappa_score(x, y), abs=1e-12)
            assert out.at[label, "prevalence_1"] == pytest.approx(np.mean(x))
            assert out.at[label, "agreement"] == pytest.approx(np.mean(np.equal(x, y)))
        assert list(out.columns) == ["kappa", "n", "prevalence_1", "prevalence_2", "agreement"]

    def test_per_label_kappa_label_set_and_strings(self):
        out = per_label_kappa(["공감", None, ["질문"]], [["공감"], [], "질문"], label_set=["공감", "질문", "직면"])
        assert out["label"].tolist() == ["공감", "질문", "직면"]
        assert out["kappa"].iloc[:2].tolist() == [1.0, 1.0]
        assert math.isnan(out["kappa"].iloc[2])
        with pytest.raises(InputError, match="same items. Got 3 and 2"):
            per_label_kappa([[], [], []], [[], []])

    def test_multilabel_agreement_equals_fleiss_on_presence(self):
        rng = np.random.default_rng(3)
        rows = []
        for item in range(40):
            truth = set(rng.choice(TECHNIQUES, 2, replace=False))
            for who in ("ai", "kim", "lee"):
                if who == "lee" and item % 5 == 0:
                    continue  # lee skipped some items: missing, not "no label"
                labs = truth if rng.random() < 0.7 else set(rng.choice(TECHNIQUES, 1))
                rows.append({"item": item, "who": who, "tech": sorted(labs)})
        df = pd.DataFrame(rows)
        out = multilabel_agreement(df, item="item", annotator="who", labels="tech").set_index("label")
        wide = df.pivot(index="item", columns="who", values="tech")
        for label in TECHNIQUES:
            presence = wide.apply(lambda col: col.map(lambda v: float(label in v) if isinstance(v, list) else np.nan))
            assert out.at[label, "fleiss_kappa"] == pytest.approx(fleiss_kappa(presence), abs=1e-12)
            assert out.at[label, "gwet_ac1"] == pytest.approx(gwet_ac1(presence), abs=1e-12)
        assert (out["n_annotators"] == 3).all()

    def test_multilabel_agreement_rejects_duplicates(self):
        df = pd.DataFrame({"item": [1, 1], "who": ["a", "a"], "tech": [["공감"], ["질문"]]})
        with pytest.raises(InputError, match=r"one row per \(item, annotator\)"):
            multilabel_agreement(df, item="item", annotator="who", labels="tech")


# --------------------------------------------------------------------------- intervals

class TestBootstrap:
    def test_same_seed_same_interval_and_contains_estimate(self):
        r = _ratings(n=120, k=2, seed=8)
        first = kappa_ci(r[:, 0], r[:, 1], n_resamples=300, seed=11)
        assert kappa_ci(r[:, 0], r[:, 1], n_resamples=300, seed=11) == first
        assert kappa_ci(r[:, 0], r[:, 1], n_resamples=300, seed=12) != first
        assert first[0] < cohen_kappa(r[:, 0], r[:, 1]) < first[1]

    @pytest.mark.parametrize("ci_func,point", [(fleiss_ci, fleiss_kappa), (ac1_ci, gwet_ac1)])
    def test_fleiss_and_ac1_intervals(self, ci_func, point):
        r = _ratings(n=150, seed=9, missing=0.1)
        low, high = ci_func(r, n_resamples=300, seed=0)
        assert low < point(r) < high
        assert ci_func(r, n_resamples=300, seed=0) == (low, high)

    def test_alpha_interval(self):
        data = _ratings(n=100, k=3, seed=10, missing=0.1).T
        low, high = alpha_ci(data, n_resamples=200, seed=0)
        assert low < krippendorff_alpha(data) < high

    def test_fast_kappa_matches_sklearn_inside_bootstrap(self):
        # kappa_ci computes kappa from codes; with one resample drawn by hand it must equal sklearn.
        r = _ratings(n=50, k=2, seed=12)
        rng = np.random.default_rng(5)
        idx = rng.integers(0, 50, 50)
        expected = cohen_kappa_score(r[idx, 0].astype(str), r[idx, 1].astype(str), weights="quadratic")
        got = bootstrap_ci(lambda a, b: cohen_kappa(a, b, weights="quadratic"), r[:, 0], r[:, 1],
                           n_resamples=1, seed=5)
        assert got[0] == pytest.approx(expected, abs=1e-12)

    def test_bootstrap_generic_and_errors(self):
        x = np.arange(30.0)
        low, high = bootstrap_ci(np.mean, x, n_resamples=400, seed=1)
        assert low < 14.5 < high
        with pytest.raises(InputError, match="same number of units"):
            bootstrap_ci(lambda a, b: 0.0, np.zeros(3), np.zeros(4))
        with pytest.raises(InputError, match="'n_resamples' parameter of bootstrap_ci must be a positive int"):
            bootstrap_ci(np.mean, x, n_resamples=0)
        with pytest.raises(InputError, match="'confidence' parameter"):
            fleiss_ci(_ratings(), confidence=95)

    def test_agreement_report_is_tidy(self):
        r = _ratings(n=80, k=2, seed=13)
        report = agreement_report(r, n_resamples=200, seed=0)
        assert report["statistic"].tolist() == ["percent_agreement", "fleiss_kappa", "gwet_ac1",
                                                 "krippendorff_alpha", "cohen_kappa"]
        assert list(report.columns) == ["statistic", "estimate", "ci_low", "ci_high", "n_items", "n_raters",
                                        "interpretation_en", "interpretation_ko"]
        est = report.set_index("statistic")["estimate"]
        assert est["fleiss_kappa"] == pytest.approx(fleiss_kappa(r))
        assert est["cohen_kappa"] == pytest.approx(cohen_kappa(r[:, 0], r[:, 1]))
        assert (report["ci_low"] <= report["estimate"]).all() and (report["estimate"] <= report["ci_high"]).all()
        one_category = agreement_report([["pos", "pos"], ["pos", "pos"], ["pos", None]], n_resamples=50)
        est = one_category.set_index("statistic")
        assert est.at["percent_agreement", "estimate"] == 1.0
        assert est.loc[["fleiss_kappa", "gwet_ac1", "krippendorff_alpha", "cohen_kappa"], "estimate"].isna().all()
        assert est.at["fleiss_kappa", "interpretation_ko"] == "정의되지 않음"
        assert all(math.isnan(v) for v in kappa_ci(["no"] * 5, ["no"] * 5, labels=["no", "yes"]))
        assert kappa_ci(["no"] * 5, ["yes"] * 5, n_resamples=20) == (0.0, 0.0)  # p_o = p_e = 0
        three = agreement_report(_ratings(n=30, k=3, seed=1), ci=False)
        assert "cohen_kappa" not in three["statistic"].tolist()
        assert three["ci_low"].isna().all()


# --------------------------------------------------------------------------- interpretation

class TestInterpretation:
    @pytest.mark.parametrize("value,en,ko", [
        (-0.1, "poor", "빈약한 일치"), (0.0, "slight", "약간의 일치"), (0.2, "slight", "약간의 일치"),
        (0.35, "fair", "어느 정도의 일치"), (0.6, "moderate", "중간 정도의 일치"),
        (0.61, "substantial", "상당한 일치"), (0.95, "almost perfect", "거의 완벽한 일치"),
    ])
    def test_landis_koch(self, value, en, ko):
        band = interpret_kappa(value)
        assert (band.en, band.ko) == (en, ko)
        assert band.lower <= value <= band.upper

    @pytest.mark.parametrize("value,en", [(0.3, "poor"), (0.5, "moderate"), (0.75, "good"), (0.9, "excellent"),
                                          (0.89, "good")])
    def test_koo_li(self, value, en):
        assert interpret_icc(value).en == en

    def test_nan_and_out_of_range(self):
        assert interpret_kappa(float("nan")).ko == "정의되지 않음"
        with pytest.raises(InputError, match=r"in \[-1, 1\]. Got 1.5"):
            interpret_icc(1.5)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            interpret_kappa(np.float64(0.4))
