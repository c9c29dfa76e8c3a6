"""Label / model drift statistics, checked against hand-computed values and scipy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import jensenshannon
from scipy.stats import chi2_contingency

from vignette_lab.analytics.label_drift import (
    agreement_over_time,
    chi_square_shift,
    flag_label_rate_shift,
    js_divergence,
    label_distribution_shift,
    psi,
)
from vignette_lab.errors import InputError


class TestPSI:
    def test_hand_value_from_counts(self):
        # e = (.5, .3, .2), a = (.4, .4, .2): PSI = -.1 ln(.8) + .1 ln(4/3) + 0
        hand = -0.1 * math.log(0.4 / 0.5) + 0.1 * math.log(0.4 / 0.3)
        assert psi([50, 30, 20], [40, 40, 20]) == pytest.approx(hand, abs=1e-12)
        assert psi(pd.Series({"공감": 50, "질문": 30, "요약": 20}),
                   pd.Series({"요약": 20, "질문": 40, "공감": 40})) == pytest.approx(hand, abs=1e-12)

    def test_raw_labels_and_missing_categories(self):
        old = pd.Series(["공감"] * 5 + ["질문"] * 5)
        new = pd.Series(["공감"] * 5 + ["질문"] * 4 + ["직면"])
        e = np.array([0.5, 0.5, 1e-6])
        a = np.array([0.5, 0.4, 0.1])
        assert psi(old, new) == pytest.approx(float(np.sum((a - e) * np.log(a / e))), abs=1e-12)

    def test_identical_is_zero_and_binned_samples(self):
        assert psi([3, 3, 4], [30, 30, 40]) == pytest.approx(0.0, abs=1e-15)
        rng = np.random.default_rng(0)
        x = rng.normal(size=2000)
        assert psi(x, x, bins=10) == pytest.approx(0.0, abs=1e-15)
        # Explicit edges: hand count 2/2 vs 1/3 in two bins.
        hand = (0.25 - 0.5) * math.log(0.25 / 0.5) + (0.75 - 0.5) * math.log(0.75 / 0.5)
        assert psi([0.1, 0.2, 0.7, 0.9], [0.3, 0.6, 0.8, 0.95], bins=[0, 0.5, 1]) == pytest.approx(hand)
        assert psi(x, x + 1.0, bins=10) > 0.25

    def test_errors(self):
        with pytest.raises(InputError, match="different lengths"):
            psi([1, 2, 3], [1, 2])
        with pytest.raises(InputError, match="non-negative"):
            psi([1, -2], [1, 2])
        with pytest.raises(InputError, match="'bins' parameter of psi"):
            psi([1.0, 2.0], [1.0, 2.0], bins=[2, 1])


class TestJSAndChi2:
    @pytest.mark.parametrize("seed", [0, 1, 2])
    def test_js_equals_scipy_squared(self, seed):
        rng = np.random.default_rng(seed)
        p, q = rng.random(6), rng.random(6)
        p[2] = 0.0
        for base in (2, math.e):
            assert js_divergence(p, q, base=base) == pytest.approx(jensenshannon(p, q, base=base) ** 2, abs=1e-12)

    def test_js_hand_value(self):
        # p = (1, 0), q = (.5, .5): m = (.75, .25); JS = .5 log2(1/.75) + .5(.5 log2(.5/.75) + .5 log2(.5/.25))
        hand = 0.5 * math.log2(1 / 0.75) + 0.5 * (0.5 * math.log2(0.5 / 0.75) + 0.5 * math.log2(2))
        assert js_divergence([2, 0], [1, 1]) == pytest.approx(hand, abs=1e-12)

    def test_chi2_equals_scipy_and_hand(self):
        a, b = {"a": 30, "b": 10, "c": 10}, {"a": 10, "b": 30, "c": 10}
        stat, p, dof = chi_square_shift(a, b)
        # Expected counts are 20/20/10 per row: sum (O-E)^2/E = 4 * 100/20 = 20
        assert stat == pytest.approx(20.0)
        assert dof == 2
        assert p == pytest.approx(math.exp(-10), rel=1e-9)  # chi2 sf with 2 dof is exp(-x/2)
        ref = chi2_contingency(np.array([[30, 10, 10], [10, 30, 10]]))
        assert (stat, p, dof) == pytest.approx((ref.statistic, ref.pvalue, ref.dof))

    def test_chi2_drops_empty_categories_and_single_category(self):
        assert chi_square_shift([10, 0, 5], [8, 0, 9]) == pytest.approx(chi_square_shift([10, 5], [8, 9]))
        assert chi_square_shift([10, 0], [8, 0]) == (0.0, 1.0, 0)


def _versions():
    # v1: 10 items, 공감 6 / 질문 4 ; v2: 10 items, 공감 3 / 질문 5 / 직면 2 ; v3 == v2
    labels = ["공감"] * 6 + ["질문"] * 4 + ["공감"] * 3 + ["질문"] * 5 + ["직면"] * 2
    labels += ["공감"] * 3 + ["질문"] * 5 + ["직면"] * 2
    return pd.DataFrame({"model": ["v1"] * 10 + ["v2"] * 10 + ["v3"] * 10, "tech": labels})


class TestShift:
    def test_label_distribution_shift_values(self):
        out = label_distribution_shift(_versions(), group_col="model", label_col="tech")
        assert len(out) == 6  # 2 consecutive pairs × 3 labels
        first = out[(out.group_from == "v1")].set_index("label")
        assert first.loc["공감", "rate_change"] == pytest.approx(-0.3)
        assert first.loc["직면", "rate_from"] == 0.0 and first.loc["직면", "rate_to"] == pytest.approx(0.2)
        assert first["psi"].iloc[0] == pytest.approx(psi([6, 4, 0], [3, 5, 2]))
        assert first["js"].iloc[0] == pytest.approx(jensenshannon([6, 4, 0], [3, 5, 2], base=2) ** 2)
        second = out[out.group_from == "v2"]
        assert (second["rate_change"] == 0).all() and second["psi"].iloc[0] == pytest.approx(0.0, abs=1e-12)

    def test_multilabel_rates_are_per_item(self):
        df = pd.DataFrame({"round": [1, 1, 2, 2], "tech": [["공감", "질문"], ["공감"], ["질문"], []]})
        out = label_distribution_shift(df, group_col="round", label_col="tech").set_index("label")
        assert out.loc["공감", "rate_from"] == 1.0 and out.loc["공감", "rate_to"] == 0.0
        assert out.loc["질문", "rate_from"] == 0.5 and out.loc["질문", "rate_to"] == 0.5

    def test_flag_label_rate_shift(self):
        out = flag_label_rate_shift(_versions(), version_col="model", label_col="tech", bound=0.15)
        flagged = out[out.flagged]
        assert set(map(tuple, flagged[["version_from", "label"]].to_numpy())) == {("v1", "공감"), ("v1", "직면")}
        assert out["flagged"].iloc[0] and out["label"].iloc[0] == "공감"  # largest move first
        assert not flag_label_rate_shift(_versions(), version_col="model", label_col="tech", bound=0.5).flagged.any()
        with pytest.raises(InputError, match="'bound' parameter"):
            flag_label_rate_shift(_versions(), version_col="model", label_col="tech", bound=10)
        with pytest.raises(InputError, match="at least 2 groups"):
            flag_label_rate_shift(_versions().query("model == 'v1'"), version_col="model", label_col="tech")


class TestAgreementOverTime:
    def test_single_label_kappa_by_period(self):
        df = pd.DataFrame({
            "week": [1] * 4 + [2] * 4, "ai": ["m1"] * 8,
            "gold": ["공감", "질문", "공감", "질문"] * 2,
            "pred": ["공감", "질문", "공감", "질문", "공감", "공감", "공감", "질문"],
        })
        out = agreement_over_time(df, time_col="week", annotator_col="ai", gold_col="gold", pred_col="pred")
        overall = out[out.label == "(all)"].set_index("time")["kappa"]
        assert overall[1] == pytest.approx(1.0)
        # week 2: po = 3/4, gold 공감 1/2, pred 공감 3/4 -> pe = 1/2 -> kappa = 1/2
        assert overall[2] == pytest.approx(0.5)
        week2 = out[(out.time == 2) & (out.label == "공감")].iloc[0]
        assert week2["kappa"] == pytest.approx(0.5)
        assert week2["prevalence_gold"] == 0.5 and week2["prevalence_pred"] == 0.75

    def test_multilabel_per_annotator(self):
        df = pd.DataFrame({
            "period": ["2026-W47"] * 6, "ai": ["m1", "m1", "m1", "m2", "m2", "m2"],
            "gold": [["공감"], ["질문", "요약"], []] * 2,
            "pred": [["공감"], ["질문", "요약"], [], ["질문"], ["요약"], ["공감"]],
        })
        out = agreement_over_time(df, time_col="period", annotator_col="ai", gold_col="gold", pred_col="pred")
        assert "(all)" not in set(out["label"])
        m1 = out[out.annotator == "m1"].set_index("label")["kappa"]
        assert (m1 == 1.0).all()
        m2 = out[out.annotator == "m2"].set_index("label")
        # 공감: gold (1,0,0) vs pred (0,0,1): po=1/3, pe=1/3*1/3+2/3*2/3=5/9 -> kappa=(1/3-5/9)/(4/9)=-1/2
        assert m2.loc["공감", "kappa"] == pytest.approx(-0.5)

    def test_missing_column(self):
        with pytest.raises(InputError, match="column 'pred' not found"):
            agreement_over_time(pd.DataFrame({"t": [1], "a": ["x"], "g": ["y"]}), time_col="t",
                                annotator_col="a", gold_col="g", pred_col="pred")
