"""Speed of every agreement coefficient against its reference library, in one run (issue 10).

Run from the repository root::

    PYTHONPATH=. .venv/bin/python bench/bench_agreement_speed.py

ICC vs pingouin, Krippendorff's α vs ``krippendorff`` (nominal int, nominal Korean text, ordinal,
interval), Fleiss' κ vs statsmodels, Cohen's κ (int, Korean text, quadratic-weighted) and
per-label κ vs scikit-learn. Each time is the best of 5 runs after one warm-up (wall clock, same
process, data generated once with a fixed seed); results are asserted equal (1e-9) so a fast
wrong answer cannot pass. Target: ours / reference ≤ 1.0 for every row.
"""

from __future__ import annotations

import os
import platform
import time
from datetime import datetime, timezone

import krippendorff
import numpy as np
import pandas as pd
import pingouin
from sklearn.metrics import cohen_kappa_score
from sklearn.preprocessing import MultiLabelBinarizer
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from vignette_lab.agreement import cohen_kappa, fleiss_kappa, icc, krippendorff_alpha, per_label_kappa

RUNS = 5


def _best(fn):
    fn()
    times, value = [], None
    for _ in range(RUNS):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value


def _categorical(n, k, q, rng):
    base = rng.integers(0, q, (n, 1))
    return np.where(rng.random((n, k)) < 0.6, base, rng.integers(0, q, (n, k)))


def main() -> str:
    rng = np.random.default_rng(0)
    rows = []

    def add(name, size, ours_fn, ref_name, ref_fn, check=lambda a, b: abs(a - b) < 1e-9):
        t_ours, ours = _best(ours_fn)
        t_ref, ref = _best(ref_fn)
        assert check(ours, ref), (name, ours, ref)
        rows.append((name, size, t_ours, ref_name, t_ref))

    n, k = 20_000, 5
    wide = rng.normal(size=(n, 1)) + rng.normal(scale=0.7, size=(n, k))
    long = pd.DataFrame({"t": np.repeat(np.arange(n), k), "r": np.tile(np.arange(k), n), "s": wide.ravel()})
    add("ICC (6 forms, F, CI)", "20,000 targets × 5 raters", lambda: icc(long, targets="t", raters="r", ratings="s"),
        "pingouin.intraclass_corr", lambda: pingouin.intraclass_corr(long, targets="t", raters="r", ratings="s"),
        lambda a, b: np.allclose(a["ICC"].to_numpy(), b["ICC"].to_numpy(), atol=1e-9))

    data = _categorical(100_000, 5, 5, rng).T.astype(float)
    data[rng.random(data.shape) < 0.1] = np.nan
    for level in ("nominal", "ordinal", "interval"):
        add(f"Krippendorff α ({level})", "5 raters × 100,000 units, 10 % missing",
            lambda: krippendorff_alpha(data, level=level), "krippendorff.alpha",
            lambda: krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    names = np.array(["공감", "질문", "요약", "반영", "직면"], dtype=object)
    text = np.where(np.isnan(data), None, names[np.nan_to_num(data).astype(int)])
    coded = np.where(np.isnan(data), np.nan, data)
    add("Krippendorff α (nominal, Korean text)", "5 raters × 100,000 units, 10 % missing",
        lambda: krippendorff_alpha(text), "krippendorff.alpha on codes (text must be coded first)",
        lambda: krippendorff.alpha(reliability_data=coded, level_of_measurement="nominal"))

    ratings = _categorical(100_000, 5, 5, rng)
    add("Fleiss κ", "100,000 items × 5 raters", lambda: fleiss_kappa(ratings),
        "statsmodels aggregate_raters + fleiss_kappa", lambda: sm_fleiss(aggregate_raters(ratings)[0]))

    a = rng.integers(0, 6, 1_000_000)
    b = np.where(rng.random(a.size) < 0.7, a, rng.integers(0, 6, a.size))
    add("Cohen κ", "1,000,000 pairs, int labels", lambda: cohen_kappa(a, b),
        "sklearn cohen_kappa_score", lambda: cohen_kappa_score(a, b))
    add("Cohen κ (quadratic)", "1,000,000 pairs, int labels", lambda: cohen_kappa(a, b, weights="quadratic"),
        "sklearn cohen_kappa_score", lambda: cohen_kappa_score(a, b, weights="quadratic"))
    ko = np.array(["공감", "질문", "요약", "반영", "직면", "정보"], dtype=object)
    ta, tb = ko[a], ko[b]
    add("Cohen κ", "1,000,000 pairs, Korean text labels", lambda: cohen_kappa(ta, tb),
        "sklearn cohen_kappa_score", lambda: cohen_kappa_score(ta, tb))
    order = list(ko)
    add("Cohen κ (quadratic, scheme order)", "1,000,000 pairs, Korean text labels",
        lambda: cohen_kappa(ta, tb, weights="quadratic", labels=order),
        "sklearn cohen_kappa_score(labels=order)", lambda: cohen_kappa_score(ta, tb, weights="quadratic", labels=order))

    labels = list(ko)
    present1 = rng.random((50_000, len(labels))) < 0.25
    present2 = np.where(rng.random(present1.shape) < 0.8, present1, rng.random(present1.shape) < 0.25)
    sets1 = [[labels[j] for j in np.flatnonzero(r)] for r in present1]
    sets2 = [[labels[j] for j in np.flatnonzero(r)] for r in present2]

    def ref_per_label():
        mlb = MultiLabelBinarizer(classes=labels)
        x, y = mlb.fit_transform(sets1), mlb.transform(sets2)
        return [cohen_kappa_score(x[:, j], y[:, j]) for j in range(len(labels))]

    add("per-label κ (multi-label)", "50,000 items × 6 labels, 2 annotators",
        lambda: per_label_kappa(sets1, sets2, label_set=labels)["kappa"].tolist(),
        "MultiLabelBinarizer + cohen_kappa_score per label", ref_per_label,
        lambda x, y: np.allclose(x, y, atol=1e-9))

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        load = "load average %.1f" % os.getloadavg()[0]
    except OSError:
        load = "load unknown"
    lines = [f"Run {stamp}; {os.cpu_count()} cores (shared), {load}, {platform.machine()}, Python "
             f"{platform.python_version()}; best of {RUNS} runs after a warm-up; results asserted equal (1e-9).",
             "", "| statistic | input | ours (s) | reference | reference (s) | ours / reference |",
             "|---|---|---:|---|---:|---:|"]
    for name, size, t_o, ref_name, t_r in rows:
        lines.append(f"| {name} | {size} | {t_o:.3f} | {ref_name} | {t_r:.3f} | {t_o / t_r:.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())
