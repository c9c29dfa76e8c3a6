"""Gate error rates and interval coverage by simulation (issue 10, "Numbers").

Run from the repository root::

    PYTHONPATH=. .venv/bin/python bench/bench_gate.py [--reps 2000] [--quick]

Prints Markdown tables:

1. **False-pass rate** of the gate when the field is truly below its threshold — true κ = 0.5
   against the gate κ ≥ 0.6 (Fleiss κ, 2 raters, 3 balanced categories) and true ICC(A,1) =
   0.65 against ICC ≥ 0.75 (2 raters, fully crossed) — with 30 and 60 overlap items, for the
   lower-bound rule (``gate_fields(rule="lower-bound")``) and the point rule.
2. **Coverage** of the nominal 95 % intervals for balanced (prevalence 50 %) and rare (5 %) binary
   categories, n = 60 items, 2 and 3 raters, true κ = 0.6, for each coefficient's default
   interval (``ci="auto"``: Gwet's analytic SE, or for binary Fleiss κ / α the integrated
   likelihood) and for the percentile bootstrap the gate used before.

Data model (categorical): each item has a true class drawn with the category prevalences; each
rater reports it with probability s and otherwise draws a class from the same prevalences, so
every rater has the same marginals and the population Fleiss/Cohen/Conger κ and Krippendorff α
equal s² exactly; the population AC1 follows from p_a = s² + (1 - s²) Σ π_k². Scores: y_ij = t_i
+ r_j + e_ij with var(t) = 0.65, var(r) = 0.05, var(e) = 0.30, so ICC(A,1) = 0.65.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from vignette_lab.agreement import field_agreement, gate_fields


def _categorical(rng, n, k, prev, kappa):
    s = np.sqrt(kappa)
    q = len(prev)
    truth = rng.choice(q, n, p=prev)
    draw = rng.choice(q, (n, k), p=prev)
    codes = np.where(rng.random((n, k)) < s, truth[:, None], draw)
    return pd.DataFrame({"item_id": np.repeat(np.arange(n), k), "annotator": np.tile([f"r{j}" for j in range(k)], n),
                         "value": codes.ravel()})


def _scores(rng, n, k, icc=0.65, var_r=0.05):
    t = rng.normal(scale=np.sqrt(icc), size=(n, 1))
    r = rng.normal(scale=np.sqrt(var_r), size=(1, k))
    e = rng.normal(scale=np.sqrt(1 - icc - var_r), size=(n, k))
    y = t + r + e
    return pd.DataFrame({"item_id": np.repeat(np.arange(n), k), "annotator": np.tile([f"r{j}" for j in range(k)], n),
                         "value": y.ravel()})


def false_pass(reps: int, seed: int) -> list[dict]:
    rows = []
    for n in (30, 60):
        for label, make, kind, coef, threshold, cats in (
                ("κ (Fleiss), true 0.5, gate ≥ 0.6", lambda rng: _categorical(rng, n, 2, [1 / 3] * 3, 0.5),
                 "single", "fleiss_kappa", 0.6, [0, 1, 2]),
                ("ICC(A,1), true 0.65, gate ≥ 0.75", lambda rng: _scores(rng, n, 2), "score", "icc2", 0.75, None)):
            rng = np.random.default_rng(seed)
            passes = {"lower-bound": 0, "point": 0}
            inconclusive = 0
            for _ in range(reps):
                res = field_agreement(make(rng), field="f", kind=kind, categories=cats, n_boot=10)
                th = {"f": (coef, threshold)}
                lb = gate_fields([res], thresholds=th, rule="lower-bound")
                passes["lower-bound"] += lb.decision == "pass"
                inconclusive += lb.decision == "inconclusive"
                passes["point"] += gate_fields([res], thresholds=th, rule="point").decision == "pass"
            rows.append({"case": label, "n items": n, "reps": reps,
                         "false pass, lower-bound rule": passes["lower-bound"] / reps,
                         "false pass, point rule": passes["point"] / reps,
                         "inconclusive (lower-bound)": inconclusive / reps})
    return rows


def _population_ac1(prev, kappa):
    prev = np.asarray(prev)
    pa = kappa + (1 - kappa) * float(np.sum(prev ** 2))
    pe = float(np.sum(prev * (1 - prev))) / (len(prev) - 1)
    return (pa - pe) / (1 - pe)


def coverage(reps: int, seed: int, n_boot: int, compare_reps: int) -> list[dict]:
    rows = []
    kappa = 0.6
    for prev_label, prev in (("balanced (50 %)", [0.5, 0.5]), ("rare (5 %)", [0.95, 0.05])):
        for k in (2, 3):
            truth = {"fleiss_kappa": kappa, "conger_kappa": kappa, "krippendorff_alpha": kappa,
                     "gwet_ac1": _population_ac1(prev, kappa)}
            stats = {f"{name}|{mode}": [0, 0, 0, 0.0] for name in truth for mode in ("auto", "percentile")}
            methods: dict[str, str] = {}
            rng = np.random.default_rng(seed)
            undefined_data = 0
            for rep in range(reps):
                df = _categorical(rng, 60, k, prev, kappa)
                if df["value"].nunique() < 2:
                    undefined_data += 1
                for mode in ("auto", "percentile") if rep < compare_reps else ("auto",):
                    res = field_agreement(df, field="f", kind="single", categories=[0, 1], n_boot=n_boot, ci=mode,
                                          seed=int(rng.integers(1 << 30)))
                    for name, true in truth.items():
                        c = res.coefficient(name)
                        s = stats[f"{name}|{mode}"]
                        if c is None or c["ci_low"] is None:
                            s[2] += 1
                            continue
                        methods.setdefault(f"{name}|{mode}", c["ci_method"])
                        s[0] += c["ci_low"] <= true <= c["ci_high"]
                        s[1] += 1
                        s[3] += c["ci_high"] - c["ci_low"]
            for key, (hit, defined, undefined, width) in stats.items():
                name, mode = key.split("|")
                method = methods.get(key, "none")
                rows.append({"prevalence": prev_label, "raters": k, "n items": 60, "coefficient": name,
                             "interval": method, "reps": hit_reps(defined, undefined), "coverage": hit / defined if defined else float("nan"),
                             "no interval": undefined, "mean width": width / defined if defined else float("nan")})
    return rows


def hit_reps(defined: int, undefined: int) -> int:
    return defined + undefined


def _md(rows: list[dict], fmt: dict) -> str:
    cols = list(rows[0])
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        out.append("| " + " | ".join(fmt.get(c, "{}").format(r[c]) for c in cols) + " |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--coverage-reps", type=int, default=1000)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--compare-reps", type=int, default=300,
                    help="replications that also compute the percentile bootstrap (slow)")
    ap.add_argument("--seed", type=int, default=20261201)
    args = ap.parse_args()
    t0 = time.perf_counter()
    fp = false_pass(args.reps, args.seed)
    pct = {"false pass, lower-bound rule": "{:.1%}", "false pass, point rule": "{:.1%}",
           "inconclusive (lower-bound)": "{:.1%}"}
    print(_md(fp, pct))
    print()
    cov = coverage(args.coverage_reps, args.seed, args.n_boot, args.compare_reps)
    print(_md(cov, {"coverage": "{:.1%}", "mean width": "{:.3f}"}))
    print(f"\n(simulation wall time {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
