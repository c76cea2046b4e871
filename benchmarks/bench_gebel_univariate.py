"""Speed of Gebel's univariate calibrators (normcal, plr, bayescal, avcal): fit and predict.

Run:  python benchmarks/bench_gebel_univariate.py [--quick]

Prints one line per calibrator and calibration size n: the fit time and the time to predict
100,000 rows (one run each; the fits are deterministic). PLR fits 171 knot pairs by Newton's
method (cost ~ 171 n); AV calibration searches the integers N between N_T and N_A (at most
``max_candidates`` = 2000) by branch and bound (bounds from the incomplete Beta inverse at about
2 sqrt(n) values per N, the objective exactly at the few N whose bound can beat the best); the
line "(exhaustive N)" times the thesis's exhaustive search (every N, every row: cost up to
2000 n) on the same partitions and checks it finds the same N.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import pandas as pd

import evstat as ev


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="n = 1000 only")
    args = ap.parse_args()
    print(f"# {platform.platform()}, Python {platform.python_version()}")
    sizes = (1000,) if args.quick else (1000, 10000)
    for n in sizes:
        rng = np.random.default_rng(0)
        y = rng.integers(0, 2, n)
        cal = pd.DataFrame({"s": rng.normal(2.0 * y - 1.0, 1.5), "y": y})
        new = pd.DataFrame({"s": rng.normal(0.0, 2.0, 100_000)})
        fitters = {
            "normcal": lambda: ev.normcal("y ~ s", cal),
            "plr": lambda: ev.plr("y ~ s", cal),
            "bayescal gauss": lambda: ev.bayescal("y ~ s", cal, density="gauss"),
            "bayescal alap": lambda: ev.bayescal("y ~ s", cal),
            "avcal": lambda: ev.avcal("y ~ s", cal),
        }
        for name, fit_fn in fitters.items():
            t = time.perf_counter()
            fit = fit_fn()
            t_fit = time.perf_counter() - t
            t = time.perf_counter()
            fit.predict(new)
            t_pred = time.perf_counter() - t
            print(f"n = {n:>6}  {name:<15} fit {t_fit:8.3f} s   predict 1e5 rows {t_pred:6.3f} s")
            if name == "avcal":
                exhaustive_search(fit, cal, n)


def exhaustive_search(fit: object, cal: pd.DataFrame, n: int) -> None:
    """The thesis's exhaustive search over N (every candidate evaluated) on the same partitions,
    for comparison with avcal's branch-and-bound search (which must find the same N)."""
    from scipy.special import betainc

    from evstat.calibration._avcal import _candidates, av_search

    s = cal["s"].to_numpy()
    p = (s + fit.rho * fit.scale) / (2 * fit.rho * fit.scale)
    y = cal["y"].to_numpy()
    t = time.perf_counter()
    same = True
    for k, key in enumerate(("negative", "positive")):
        r = fit.partitions.loc[key]
        m = (p > 0.5) if k == 1 else ~(p > 0.5)
        a = p[m] if k == 1 else 1 - p[m]
        u = betainc(r.p_a * r.n_a, (1 - r.p_a) * r.n_a, a)
        cand, _ = _candidates(float(m.sum()), r.n_a, fit.max_candidates)
        same &= av_search(u, y[m], k, r.p_t, cand, exhaustive=True) == (r.n_opt, r.objective)
    print(f"n = {n:>6}  {'(exhaustive N)':<15} fit {time.perf_counter() - t:8.3f} s   same N as avcal: {same}")


if __name__ == "__main__":
    main()
