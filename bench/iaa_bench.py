"""Time vignette_lab.pipeline.iaa against the reference libraries on large inputs.

Run from the repository root::

    PYTHONPATH=. .venv/bin/python bench/iaa_bench.py            # prints a Markdown table
    PYTHONPATH=. .venv/bin/python bench/iaa_bench.py --append   # also appends it to bench/RESULTS.md

Each timing is the median of 3 runs (wall clock, same process, data generated once with a
fixed seed). Results are also checked for equality so a fast wrong answer cannot pass.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from datetime import datetime, timezone
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pingouin
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from vignette_lab.pipeline.iaa import cohen_kappa, fleiss_kappa, gwet_ac1, icc, krippendorff_alpha

RUNS = 3


def _median_time(fn):
    times, value = [], None
    for _ in range(RUNS):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def _categorical(n, k, q, rng):
    base = rng.integers(0, q, (n, 1))
    return np.where(rng.random((n, k)) < 0.6, base, rng.integers(0, q, (n, k)))


def main() -> str:
    rng = np.random.default_rng(0)
    rows = []

    # ICC: 20,000 targets × 5 raters, long format.
    n, k = 20_000, 5
    wide = rng.normal(size=(n, 1)) + rng.normal(scale=0.7, size=(n, k))
    long = pd.DataFrame({"t": np.repeat(np.arange(n), k), "r": np.tile(np.arange(k), n), "s": wide.ravel()})
    t_ours, ours = _median_time(lambda: icc(long, targets="t", raters="r", ratings="s"))
    t_ref, ref = _median_time(lambda: pingouin.intraclass_corr(long, targets="t", raters="r", ratings="s"))
    np.testing.assert_allclose(ours["ICC"], ref["ICC"], atol=1e-9)
    rows.append(("ICC (6 types, F, CI)", "20,000 targets × 5 raters", t_ours, "pingouin.intraclass_corr", t_ref))

    # Krippendorff's alpha: 5 raters × 100,000 units, nominal, 10% missing.
    data = _categorical(100_000, 5, 5, rng).T.astype(float)
    data[rng.random(data.shape) < 0.1] = np.nan
    t_ours, ours = _median_time(lambda: krippendorff_alpha(data))
    t_ref, ref = _median_time(lambda: krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    assert abs(ours - ref) < 1e-9
    rows.append(("Krippendorff alpha (nominal)", "5 raters × 100,000 units", t_ours,
                 "krippendorff.alpha (we delegate: ratio ≈ 1 is the validation overhead)", t_ref))

    # Fleiss' kappa: 100,000 items × 5 raters.
    ratings = _categorical(100_000, 5, 5, rng)
    t_ours, ours = _median_time(lambda: fleiss_kappa(ratings))
    t_ref, ref = _median_time(lambda: sm_fleiss(aggregate_raters(ratings)[0]))
    assert abs(ours - ref) < 1e-9
    rows.append(("Fleiss kappa", "100,000 items × 5 raters", t_ours,
                 "statsmodels aggregate_raters + fleiss_kappa", t_ref))

    # Gwet's AC1: same data, no reference library in the environment.
    t_ours, _ = _median_time(lambda: gwet_ac1(ratings))
    rows.append(("Gwet AC1", "100,000 items × 5 raters", t_ours, "(no reference library installed)", None))

    # Cohen's kappa: 1,000,000 pairs, integer labels and Korean text labels.
    a = rng.integers(0, 6, 1_000_000)
    b = np.where(rng.random(a.size) < 0.7, a, rng.integers(0, 6, a.size))
    t_ours, ours = _median_time(lambda: cohen_kappa(a, b, weights="quadratic"))
    t_ref, ref = _median_time(lambda: cohen_kappa_score(a, b, weights="quadratic"))
    assert abs(ours - ref) < 1e-9
    rows.append(("Cohen kappa (quadratic)", "1,000,000 pairs, int labels", t_ours,
                 "sklearn.metrics.cohen_kappa_score", t_ref))
    names = np.array(["공감", "질문", "요약", "반영", "직면", "정보"], dtype=object)
    ta, tb = names[a], names[b]
    t_ours, ours = _median_time(lambda: cohen_kappa(ta, tb))
    t_ref, ref = _median_time(lambda: cohen_kappa_score(ta, tb))
    assert abs(ours - ref) < 1e-9
    rows.append(("Cohen kappa", "1,000,000 pairs, Korean str labels", t_ours,
                 "sklearn.metrics.cohen_kappa_score", t_ref))

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"Run {stamp}; {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}; median of {RUNS} runs; results asserted equal (1e-9).",
        "",
        "| statistic | input | ours (s) | reference | reference (s) | ours / reference |",
        "|---|---|---:|---|---:|---:|",
    ]
    for name, size, ours_t, ref_name, ref_t in rows:
        ratio = f"{ours_t / ref_t:.2f}" if ref_t else "–"
        ref_s = f"{ref_t:.3f}" if ref_t else "–"
        lines.append(f"| {name} | {size} | {ours_t:.3f} | {ref_name} | {ref_s} | {ratio} |")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--append", action="store_true", help="append the table to bench/RESULTS.md")
    args = parser.parse_args()
    table = main()
    print(table)
    if args.append:
        path = Path(__file__).with_name("RESULTS.md")
        existing = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
        path.write_text(existing.rstrip("\n") + "\n\n## Agreement statistics\n\n" + table + "\n", encoding="utf-8")
