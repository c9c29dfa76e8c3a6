"""vignette_lab.agreement: per-field coefficients vs reference libraries and published values,
rater-model invariance, coefficient hygiene, the gate rule, annotator quality and aggregation."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd
import pingouin
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from vignette_lab.agreement import (
    annotator_quality,
    dawid_skene,
    field_agreement,
    gate_fields,
    majority_vote,
    pairwise_agreement,
)
from vignette_lab.agreement._cac import masi_distance
from vignette_lab.errors import InputError

RAW4RATERS = [
    [1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, None, 3, None],
]


def _long(wide, raters=None) -> pd.DataFrame:
    wide = list(wide)
    raters = raters or [f"r{j}" for j in range(len(wide[0]))]
    return pd.DataFrame([(i, raters[j], v) for i, row in enumerate(wide) for j, v in enumerate(row)],
                        columns=["item_id", "annotator", "value"])


def _coef(res, name):
    row = res.coefficient(name)
    assert row is not None, f"{name} missing from {[c['name'] for c in res.coefficients]}"
    return row


def _sim(n=60, k=3, q=3, agree=0.6, seed=0, missing=0.0):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, q, (n, 1))
    codes = np.where(rng.random((n, k)) < agree, base, rng.integers(0, q, (n, k))).astype(object)
    if missing:
        codes[rng.random((n, k)) < missing] = None
    return codes


class TestIrrCACPublished:
    """irrCAC README (Gwet 2014) output on cac.raw4raters: value, standard error and 95% CI."""

    @pytest.mark.parametrize("name, value, se, low", [
        ("percent_agreement", 0.8181818, None, None),
        ("fleiss_kappa", 0.76117, 0.15302, 0.424),
        ("conger_kappa", 0.76282, 0.14917, 0.435),
        ("gwet_ac1", 0.77544, 0.14295, 0.461),
        ("brennan_prediger", 0.77273, 0.14472, 0.454),
        ("krippendorff_alpha", 0.74342, None, None),
    ])
    def test_raw4raters(self, name, value, se, low):
        res = field_agreement(_long(RAW4RATERS), field="x", kind="single", categories=[1, 2, 3, 4, 5])
        row = _coef(res, name)
        assert row["value"] == pytest.approx(value, abs=5e-6 if name != "percent_agreement" else 5e-8)
        if se is not None:
            assert row["se"] == pytest.approx(se, abs=5e-6)
            assert row["ci_method"] == "analytic_gwet"
            assert round(row["ci_low"], 3) == low and row["ci_high"] == 1.0
        assert res.n_items == 11 and res.raters_per_item == {"min": 2, "max": 4}
        assert res.left_out == [{"item": 11, "reason": "only one rating"}]
        assert res.design == "varying_raters"

    def test_two_rater_table_values_and_se(self):
        """irrCAC cont3x3abstractors: Cohen 0.7964094, Fleiss/Scott 0.7962397, AC1 0.8493305, BP 0.835,
        PA 0.89. irrCAC's *.table functions divide the variance by n^2, the raw functions (ours) by
        n(n-1): SEs relate by sqrt(n/(n-1))."""
        table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
        pairs = [(a, b) for a in range(3) for b in range(3) for _ in range(table[a, b])]
        res = field_agreement(_long(pairs), field="x", kind="single", categories=[0, 1, 2])
        n = len(pairs)
        scale = math.sqrt((n - 1) / n)
        for name, value, se in (("conger_kappa", 0.7964094, 0.05891072), ("fleiss_kappa", 0.7962397, 0.05905473),
                                ("gwet_ac1", 0.8493305, 0.04321747), ("brennan_prediger", 0.835, 0.04693346),
                                ("percent_agreement", 0.89, 0.03128898)):
            row = _coef(res, name)
            assert row["value"] == pytest.approx(value, abs=5e-8)
            assert row["se"] * scale == pytest.approx(se, abs=5e-8)


class TestReferenceLibraries:
    @pytest.mark.parametrize("seed", range(4))
    def test_two_raters_conger_is_sklearn_cohen(self, seed):
        codes = _sim(n=50, k=2, q=4, seed=seed)
        res = field_agreement(_long(codes), field="x", kind="single", categories=[0, 1, 2, 3])
        ref = cohen_kappa_score(codes[:, 0].astype(int), codes[:, 1].astype(int))
        assert _coef(res, "conger_kappa")["value"] == pytest.approx(ref, abs=1e-12)

    @pytest.mark.parametrize("weights", ["linear", "quadratic"])
    def test_weighted_kappa_is_sklearn_in_scheme_order(self, weights):
        order = ["낮음", "중간", "높음"]
        codes = _sim(n=80, k=2, q=3, seed=3)
        text = np.vectorize(lambda c: order[c])(codes.astype(int))
        res = field_agreement(_long(text), field="level", kind="ordinal", categories=order)
        row = _coef(res, f"weighted_kappa_{weights}")
        ref = cohen_kappa_score(codes[:, 0].astype(int), codes[:, 1].astype(int), weights=weights)
        assert row["method"] == "cohen" and row["value"] == pytest.approx(ref, abs=1e-12)

    def test_korean_order_not_code_point_order(self):
        # The example: by code point 낮음 < 높음 < 중간, which turns near-misses into far ones.
        order = ["낮음", "중간", "높음"]
        a = ["낮음", "중간", "높음", "중간", "낮음", "높음", "중간", "중간"]
        b = ["중간", "높음", "높음", "낮음", "낮음", "중간", "중간", "높음"]
        df = _long(list(zip(a, b)))
        ours = _coef(field_agreement(df, field="l", kind="ordinal", categories=order), "weighted_kappa_quadratic")
        ref = cohen_kappa_score([order.index(x) for x in a], [order.index(x) for x in b], weights="quadratic")
        assert ours["value"] == pytest.approx(ref, abs=1e-12)
        res = field_agreement(df, field="l", kind="ordinal")
        assert any("undeclared text categories" in w for w in res.warnings)

    def test_ordered_categorical_keeps_its_order(self):
        order = ["낮음", "중간", "높음"]
        a = ["낮음", "중간", "높음", "중간", "낮음", "높음", "중간", "중간"]
        b = ["중간", "높음", "높음", "낮음", "낮음", "중간", "중간", "높음"]
        df = _long(list(zip(a, b)))
        df["value"] = pd.Categorical(df["value"], categories=order, ordered=True)
        res = field_agreement(df, field="l", kind="ordinal")
        ref = cohen_kappa_score([order.index(x) for x in a], [order.index(x) for x in b], weights="quadratic")
        assert _coef(res, "weighted_kappa_quadratic")["value"] == pytest.approx(ref, abs=1e-12)
        assert not res.warnings

    @pytest.mark.parametrize("seed", range(3))
    def test_fleiss_is_statsmodels_on_complete_data(self, seed):
        codes = _sim(n=40, k=5, q=4, seed=seed)
        res = field_agreement(_long(codes), field="x", kind="single")
        ref = sm_fleiss(aggregate_raters(codes.astype(int))[0])
        assert _coef(res, "fleiss_kappa")["value"] == pytest.approx(ref, abs=1e-12)

    @pytest.mark.parametrize("level, kind", [("nominal", "single"), ("ordinal", "ordinal"), ("interval", "score")])
    @pytest.mark.parametrize("seed", range(3))
    def test_alpha_is_krippendorff_with_missing(self, level, kind, seed):
        codes = _sim(n=50, k=4, q=5, seed=seed, missing=0.3)
        df = _long(codes)
        if kind == "score":
            df["value"] = df["value"].astype(float)
        res = field_agreement(df, field="x", kind=kind, categories=[0, 1, 2, 3, 4] if kind != "score" else None)
        name = {"nominal": "krippendorff_alpha", "ordinal": "krippendorff_alpha_ordinal",
                "interval": "krippendorff_alpha_interval"}[level]
        ref = krippendorff.alpha(reliability_data=np.array(codes, dtype=float).T, level_of_measurement=level)
        assert _coef(res, name)["value"] == pytest.approx(ref, abs=1e-10)

    def test_icc_fully_crossed_is_pingouin(self):
        rng = np.random.default_rng(1)
        wide = rng.normal(size=(30, 1)) + rng.normal(scale=0.8, size=(30, 4))
        df = _long(wide.round(2))
        df["value"] = df["value"].astype(float)
        res = field_agreement(df, field="s", kind="score")
        # pingouin's rows: ICC1, ICC2 (A,1), ICC3 (C,1), ICC1k, ICC2k, ICC3k (names vary by version).
        ref = pingouin.intraclass_corr(df, targets="item_id", raters="annotator", ratings="value")
        assert res.design == "fully_crossed"
        for pos, ours in enumerate(("icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k")):
            row = _coef(res, ours)
            assert row["value"] == pytest.approx(ref["ICC"].iloc[pos], abs=1e-9)
            assert [round(row["ci_low"], 2), round(row["ci_high"], 2)] == pytest.approx(list(ref["CI95"].iloc[pos]))

    def test_varying_raters_get_one_way_icc_only(self):
        rng = np.random.default_rng(2)
        true = rng.normal(size=40)
        rows = []
        for i, t in enumerate(true):
            for who in rng.choice([f"rev{j}" for j in range(6)], 2, replace=False):
                rows.append((i, who, round(float(t + rng.normal(scale=0.6)), 2)))
        df = pd.DataFrame(rows, columns=["item_id", "annotator", "value"])
        res = field_agreement(df, field="s", kind="score")
        assert res.design == "varying_raters"
        names = [c["name"] for c in res.coefficients]
        assert names == ["icc1", "icc1k", "krippendorff_alpha_interval"]
        # Balanced one-way ICC(1) equals pingouin's ICC1 on slot-relabelled data (ICC1 ignores raters).
        slot = df.assign(annotator=df.groupby("item_id").cumcount())
        ref = pingouin.intraclass_corr(slot, targets="item_id", raters="annotator", ratings="value")
        assert _coef(res, "icc1")["value"] == pytest.approx(ref["ICC"].iloc[0], abs=1e-9)
        assert _coef(res, "icc1k")["value"] == pytest.approx(ref["ICC"].iloc[3], abs=1e-9)


class TestRaterModel:
    @pytest.mark.parametrize("kind", ["single", "ordinal", "multi", "score"])
    def test_renaming_and_reordering_reviewers_changes_no_number(self, kind):
        rng = np.random.default_rng(5)
        names = ["park", "kim", "lee", "choi", "jung"]
        rows = []
        for i in range(40):
            base = int(rng.integers(0, 3))
            for who in rng.choice(names, int(rng.integers(2, 4)), replace=False):
                v = base if rng.random() < 0.7 else int(rng.integers(0, 3))
                rows.append((i, who, v))
        df = pd.DataFrame(rows, columns=["item_id", "annotator", "value"])
        cats = [0, 1, 2]
        if kind == "multi":
            df["value"] = [[v] if v else [] for v in df["value"]]
            cats = [1, 2]
        if kind == "score":
            df["value"] = df["value"].astype(float)
            cats = None
        rename = {"park": "ahn", "kim": "zoe", "lee": "a1", "choi": "moon", "jung": "baek"}
        other = df.assign(annotator=df["annotator"].map(rename)).sample(frac=1.0, random_state=3)
        a = field_agreement(df, field="f", kind=kind, categories=cats, n_boot=200).to_dict()
        b = field_agreement(other, field="f", kind=kind, categories=cats, n_boot=200).to_dict()
        assert [c["name"] for c in a["coefficients"]] == [c["name"] for c in b["coefficients"]]
        for ca, cb in zip(a["coefficients"], b["coefficients"]):
            for key in ("value", "ci_low", "ci_high"):
                if ca[key] is None:
                    assert cb[key] is None
                else:
                    assert ca[key] == pytest.approx(cb[key], abs=1e-12), (ca["name"], key)


class TestHygiene:
    def test_missing_value_spellings(self):
        base = _long([["a", "a"], ["b", "b"], ["a", "b"], ["b", "b"]])
        extra = pd.DataFrame({"item_id": [0, 1, 2, 3, 4, 4], "annotator": ["r2"] * 4 + ["r0", "r1"],
                              "value": [None, np.nan, "", "nan", "n/a", " NA "]})
        res = field_agreement(pd.concat([base, extra]), field="x", kind="single")
        assert res.categories == ["a", "b"]
        assert res.n_items == 4 and {"item": 4, "reason": "no rating"} in res.left_out
        ref = field_agreement(base, field="x", kind="single")
        assert _coef(res, "fleiss_kappa")["value"] == pytest.approx(_coef(ref, "fleiss_kappa")["value"])

    def test_numpy_nan_string_is_missing(self):
        vals = np.array(["a", np.nan, "b", "a"])  # np.nan becomes the string 'nan' here
        df = pd.DataFrame({"item_id": [0, 0, 1, 1], "annotator": ["x", "y", "x", "y"], "value": vals})
        assert field_agreement(df, field="x", kind="single").categories == ["a", "b"]

    def test_unknown_code_is_an_error_naming_the_field(self):
        df = _long([["q", "q"], ["q", "zz"]])
        with pytest.raises(InputError, match="behaviour.*zz"):
            field_agreement(df, field="behaviour", kind="single", categories=["q", "r"])

    def test_ac1_and_bp_use_the_scheme_category_count(self):
        df = _long([["a", "a"], ["b", "b"], ["a", "b"], ["a", "a"], ["b", "a"]])
        two = field_agreement(df, field="x", kind="single")
        five = field_agreement(df, field="x", kind="single", categories=["a", "b", "c", "d", "e"])
        pa = _coef(two, "percent_agreement")["value"]
        assert _coef(five, "brennan_prediger")["value"] == pytest.approx((pa - 0.2) / 0.8)
        assert _coef(two, "brennan_prediger")["value"] == pytest.approx((pa - 0.5) / 0.5)
        assert _coef(five, "gwet_ac1")["value"] != _coef(two, "gwet_ac1")["value"]
        assert _coef(five, "fleiss_kappa")["value"] == _coef(two, "fleiss_kappa")["value"]

    def test_score_outside_range_is_an_error(self):
        df = _long([[1.0, 2.0], [3.0, 9.0]])
        with pytest.raises(InputError, match="outside the range"):
            field_agreement(df, field="s", kind="score", score_range=(0, 5))

    def test_duplicate_rating_is_an_error(self):
        df = pd.DataFrame({"item_id": [1, 1], "annotator": ["a", "a"], "value": ["x", "y"]})
        with pytest.raises(InputError, match="appears twice"):
            field_agreement(df, field="x", kind="single")

    def test_no_overlap_reports_no_data(self):
        df = pd.DataFrame({"item_id": [1, 2], "annotator": ["a", "b"], "value": ["x", "y"]})
        res = field_agreement(df, field="x", kind="single")
        assert res.n_items == 0 and res.coefficients == [] and res.design == "no_overlap"


class TestMulti:
    def _df(self):
        rng = np.random.default_rng(7)
        rows = []
        for i in range(50):
            truth = {c for c in ("reflection", "question", "other") if rng.random() < 0.4}
            for who in ("a", "b", "c"):
                labels = {c for c in truth if rng.random() < 0.85} | ({"other"} if rng.random() < 0.1 else set())
                # Rater a writes 'x|y' strings (an empty string would be missing, so no codes is []).
                rows.append((i, who, "|".join(sorted(labels)) if who == "a" and labels else sorted(labels)))
        return pd.DataFrame(rows, columns=["item_id", "annotator", "value"])

    def test_per_category_fleiss_equals_binary_matrix(self):
        df = self._df()
        res = field_agreement(df, field="t", kind="multi", categories=["reflection", "question", "other"])
        for cat in ("reflection", "question", "other"):
            wide = df.assign(p=[int(cat in (v.split("|") if isinstance(v, str) else v)) for v in df["value"]]) \
                .pivot(index="item_id", columns="annotator", values="p").to_numpy()
            ref = sm_fleiss(aggregate_raters(wide)[0])
            row = _coef(res, f"fleiss_kappa:{cat}")
            assert row["value"] == pytest.approx(ref, abs=1e-12) and row["category"] == cat
            assert row["n_positive"] == int(wide.sum())

    def test_masi_alpha_on_single_labels_is_nominal_alpha(self):
        codes = _sim(n=40, k=3, q=3, seed=4)
        df = _long(codes)
        single = field_agreement(df, field="x", kind="single")
        multi = field_agreement(df.assign(value=[[v] for v in df["value"]]), field="x", kind="multi")
        assert _coef(multi, "krippendorff_alpha_masi")["value"] == pytest.approx(
            _coef(single, "krippendorff_alpha")["value"], abs=1e-12)

    def test_masi_distance_values(self):
        a, b = frozenset("ab"), frozenset("abc")
        assert masi_distance(a, a) == 0.0
        assert masi_distance(a, b) == pytest.approx(1 - (2 / 3) * (2 / 3))
        assert masi_distance(frozenset("ab"), frozenset("bc")) == pytest.approx(1 - (1 / 3) * (1 / 3))
        assert masi_distance(frozenset("a"), frozenset("b")) == 1.0

    def test_rare_category_is_flagged_and_undefined_resamples_counted(self):
        rows = [(i, w, ["rare"] if (i == 0) else []) for i in range(40) for w in ("a", "b")]
        df = pd.DataFrame(rows, columns=["item_id", "annotator", "value"])
        res = field_agreement(df, field="t", kind="multi", categories=["rare"], n_boot=300)
        assert any("'rare' has 2 positive" in w for w in res.warnings)
        # Default: the integrated-likelihood interval, which does not collapse onto kappa = 1.
        kappa = _coef(res, "fleiss_kappa:rare")
        assert kappa["value"] == 1.0 and kappa["ci_method"] == "integrated_likelihood"
        assert kappa["ci_low"] < 0.9 and kappa["ci_high"] == 1.0
        boot = field_agreement(df, field="t", kind="multi", categories=["rare"], n_boot=300, ci="bootstrap")
        alpha = _coef(boot, "krippendorff_alpha:rare")
        assert alpha["ci_method"] == "bca" and alpha["n_boot_undefined"] > 0


class TestGate:
    def _res(self, agree, n=60, seed=0):
        return field_agreement(_long(_sim(n=n, k=2, q=2, agree=agree, seed=seed)), field="f", kind="single")

    def test_three_outcomes(self):
        high, low = self._res(0.98), self._res(0.1)
        assert gate_fields([high], thresholds={"f": ("fleiss_kappa", 0.6)}).fields[0]["outcome"] == "pass"
        assert gate_fields([low], thresholds={"f": ("fleiss_kappa", 0.6)}).fields[0]["outcome"] == "fail"
        mid = self._res(0.75)
        value = _coef(mid, "fleiss_kappa")
        out = gate_fields([mid], thresholds={"f": ("fleiss_kappa", value["value"])})
        assert out.fields[0]["outcome"] == "inconclusive" and out.decision == "inconclusive"
        point = gate_fields([mid], thresholds={"f": ("fleiss_kappa", value["value"])}, rule="point")
        assert point.decision == "pass"

    def test_only_declared_fields_with_data_decide(self):
        high = self._res(0.98)
        out = gate_fields([high], thresholds={"f": ("fleiss_kappa", 0.6), "talk": ("fleiss_kappa", 0.6)})
        assert out.decision == "pass"
        assert [f["outcome"] for f in out.fields] == ["pass", "no_data"]
        assert any("talk" in n for n in out.notes)
        assert gate_fields([high], thresholds={"talk": ("fleiss_kappa", 0.6)}).decision == "inconclusive"

    def test_two_way_icc_falls_back_to_one_way_for_varying_raters(self):
        rng = np.random.default_rng(2)
        rows = [(i, who, float(t + rng.normal(scale=0.3))) for i, t in enumerate(rng.normal(size=60))
                for who in rng.choice(["a", "b", "c", "d"], 2, replace=False)]
        res = field_agreement(pd.DataFrame(rows, columns=["item_id", "annotator", "value"]), field="s", kind="score")
        out = gate_fields([res], thresholds={"s": ("icc2", 0.5)}).fields[0]
        assert out["coefficient"] == "icc1" and "used icc1" in out["reason"] and out["outcome"] == "pass"

    def test_multi_field_gates_every_category(self):
        rng = np.random.default_rng(4)
        rows = []
        for i in range(80):
            truth = {c for c in ("x", "y") if rng.random() < 0.5}
            for who in ("a", "b"):
                lab = set(truth) if rng.random() < 0.95 else set()
                if "y" in truth and who == "b" and rng.random() < 0.9:
                    lab.discard("y")  # b often misses y: y's kappa is poor
                rows.append((i, who, sorted(lab)))
        res = field_agreement(pd.DataFrame(rows, columns=["item_id", "annotator", "value"]), field="t",
                              kind="multi", categories=["x", "y"])
        out = gate_fields([res], thresholds={"t": ("fleiss_kappa", 0.7)}).fields[0]
        assert out["outcome"] == "fail" and out["category"] == "y" and "failing: ['y']" in out["reason"]
        assert _coef(res, "fleiss_kappa:x")["ci_low"] >= 0.7 or "x" not in out["reason"].split("failing")[1]

    def test_unknown_coefficient_is_an_error(self):
        with pytest.raises(InputError, match="icc2"):
            gate_fields([self._res(0.9)], thresholds={"f": ("icc2", 0.75)})


class TestQualityAndAggregation:
    def _df(self, seed=0):
        rng = np.random.default_rng(seed)
        truth = rng.integers(0, 3, 80)
        rows = []
        acc = {"good1": 0.95, "good2": 0.9, "good3": 0.9, "noisy": 0.4}
        for i, t in enumerate(truth):
            for who, p in acc.items():
                rows.append((i, who, int(t) if rng.random() < p else int(rng.integers(0, 3))))
        return pd.DataFrame(rows, columns=["item_id", "annotator", "value"]), truth

    def test_noisy_reviewer_scores_lowest(self):
        df, truth = self._df()
        ai = pd.DataFrame({"item_id": range(len(truth)), "value": truth})
        q = annotator_quality(df, kind="single", categories=[0, 1, 2], ai_ratings=ai).set_index("annotator")
        assert q["kappa_consensus"].idxmin() == "noisy" and q["kappa_ai"].idxmin() == "noisy"
        assert (q["n_ai"] == len(truth)).all()

    def test_pairwise_matrix_is_symmetric_sklearn_kappa(self):
        df, _ = self._df()
        m = pairwise_agreement(df, kind="single", categories=[0, 1, 2])
        wide = df.pivot(index="item_id", columns="annotator", values="value")
        assert m.loc["good1", "noisy"] == pytest.approx(cohen_kappa_score(wide["good1"], wide["noisy"]), abs=1e-12)
        assert m.loc["noisy", "good1"] == m.loc["good1", "noisy"] and math.isnan(m.loc["good1", "good1"])

    def test_dawid_skene_at_least_as_accurate_as_majority(self):
        df, truth = self._df(seed=3)
        ds = dawid_skene(df, categories=[0, 1, 2])
        mv = majority_vote(df, categories=[0, 1, 2])
        acc_ds = float(np.mean(ds["label"].to_numpy() == truth))
        acc_mv = float(np.mean([lab == t for lab, t in zip(mv["label"], truth)]))
        assert acc_ds >= acc_mv and ds.attrs["converged"]
        assert ds["posterior"].between(0, 1).all()
        assert ds.attrs["confusion"]["noisy"].to_numpy().trace() < ds.attrs["confusion"]["good1"].to_numpy().trace()


class TestSingleCoefficientHygiene:
    """The single-coefficient API treats the missing-value strings as missing too (issue 10, item 9)."""

    def test_cohen_nan_string_from_numpy_is_missing(self):
        from vignette_lab.agreement import cohen_kappa

        a = np.array(["a", np.nan, "b", "a", "b"])  # dtype <U3: np.nan is stored as 'nan'
        b = np.array(["a", "b", "b", "b", "b"])
        assert a[1] == "nan"
        ref = cohen_kappa_score(["a", "b", "a", "b"], ["a", "b", "b", "b"])
        assert cohen_kappa(a, b) == pytest.approx(ref, abs=1e-12)

    def test_fleiss_and_alpha_blank_strings_are_missing(self):
        from vignette_lab.agreement import fleiss_kappa, krippendorff_alpha

        with_blanks = [["a", "a", ""], ["b", "b", "n/a"], ["a", "b", "NA"], ["b", "b", "b"]]
        with_none = [["a", "a", None], ["b", "b", None], ["a", "b", None], ["b", "b", "b"]]
        assert fleiss_kappa(with_blanks) == pytest.approx(fleiss_kappa(with_none), abs=1e-12)
        t = lambda m: [list(r) for r in zip(*m)]
        assert krippendorff_alpha(t(with_blanks)) == pytest.approx(krippendorff_alpha(t(with_none)), abs=1e-12)
