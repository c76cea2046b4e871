"""Benchmark: predictive Bel/Pl of evlogit, fast path against the reference path.

Setting of issue 3: n = 1000 calibration rows, J = 3 scores, 10,000 test rows.

* fast path: ``fit.predict(test, type="belief")`` on all 10,000 rows;
* reference path (statsmodels GLM refit with offset per contour evaluation, adaptive
  quadrature): on the first ``--ref-rows`` rows, scaled to 10,000 rows;
* agreement: max |Bel_fast - Bel_ref| and |Pl_fast - Pl_ref| on those rows;
* memory: with ``--million``, 1,000,000 test rows in a child process whose peak resident set
  size (ru_maxrss) is reported.

Run: ``python benchmarks/bench_evlogit.py [--ref-rows 20] [--million]``
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd

import evstat as ev


def make_data(n: int, m: int, seed: int = 2026) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    beta = np.array([0.3, 1.0, -0.7, 0.5])

    def draw(k: int, labelled: bool) -> pd.DataFrame:
        s = rng.normal(size=(k, 3))
        df = pd.DataFrame(s, columns=["svm1", "svm2", "svm3"])
        if labelled:
            p = 1.0 / (1.0 + np.exp(-(beta[0] + s @ beta[1:])))
            df["y"] = (rng.random(k) < p).astype(int)
        return df

    return draw(n, True), draw(m, False)


def million(n: int) -> None:
    cal, _ = make_data(n, 0)
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", data=cal)
    rng = np.random.default_rng(7)
    test = pd.DataFrame(rng.normal(size=(1_000_000, 3)), columns=["svm1", "svm2", "svm3"])
    t0 = time.perf_counter()
    b = fit.predict(test, type="belief")
    dt = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    ok = bool(((b.bel <= b.theta) & (b.theta <= b.pl)).all())
    print(f"1,000,000 test rows: {dt:.1f} s, peak RSS {peak:.0f} MB, ordered {ok}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--test-rows", type=int, default=10_000)
    ap.add_argument("--ref-rows", type=int, default=20)
    ap.add_argument("--million", action="store_true", help="also run 1,000,000 test rows in a child process")
    ap.add_argument("--million-child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.million_child:
        million(args.n)
        return 0
    cal, test = make_data(args.n, args.test_rows)
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", data=cal)
    t0 = time.perf_counter()
    fast = fit.predict(test, type="belief")
    t_fast = time.perf_counter() - t0
    sub = test.iloc[: args.ref_rows]
    fit.predictive_method = "reference"
    t0 = time.perf_counter()
    ref = fit.predict(sub, type="belief")
    t_ref = time.perf_counter() - t0
    fit.predictive_method = "fast"
    t_ref_scaled = t_ref / args.ref_rows * args.test_rows
    d_bel = float(np.max(np.abs(fast.bel.iloc[: args.ref_rows] - ref.bel)))
    d_pl = float(np.max(np.abs(fast.pl.iloc[: args.ref_rows] - ref.pl)))
    print(f"n = {args.n}, J = 3, {args.test_rows} test rows")
    print(f"fast path:      {t_fast:8.2f} s ({1e3 * t_fast / args.test_rows:.2f} ms/row)")
    print(f"reference path: {t_ref:8.2f} s on {args.ref_rows} rows -> {t_ref_scaled:.0f} s scaled to {args.test_rows} rows")
    print(f"speed-up:       {t_ref_scaled / t_fast:8.0f} x")
    print(f"max |dBel| = {d_bel:.2e}, max |dPl| = {d_pl:.2e} (on {args.ref_rows} rows)")
    print(f"mean ignorance: {float((fast.pl - fast.bel).mean()):.4f}")
    if args.million:
        subprocess.run([sys.executable, __file__, "--million-child", "--n", str(args.n)], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
