"""Benchmark: cost of one test row's predictive Bel/Pl against the calibration size n (issue 9).

evlogit's predictive belief solves a profile likelihood over all n calibration rows at every
quadrature node, so its cost per test row grows in proportion to n; summaries and reports,
which describe the calibration rows by their own belief, would grow as n^2 (they use a seeded
subsample above ``CALIBRATION_SAMPLE_ROWS`` instead). This script measures the time per test
row for n = 10^3, 10^4, 10^5 calibration rows (J = 3 simulated scores, as bench_evlogit.py),
the implied seconds per (test row x calibration row) cell, and the time of ``summary()`` on the
largest n.

Run: ``python benchmarks/bench_calibration_size.py [--sizes 1000 10000 100000] [--rows 200]``
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import evstat as ev
from bench_evlogit import make_data  # same simulated scores as the other benchmarks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    ap.add_argument("--rows", type=int, default=200, help="test rows timed at n = 1000 (fewer for larger n)")
    ap.add_argument("--summary", action="store_true", help="also time summary() at the largest n")
    args = ap.parse_args()
    ev.set_config(progress_bars=False)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()}")
    print("| n calibration rows | test rows timed | fit (s) | per test row (ms) | per cell (s) |")
    print("|---|---|---|---|---|")
    for n in args.sizes:
        m = max(10, args.rows * 1000 // n)
        cal, test = make_data(n, m)
        t0 = time.perf_counter()
        fit = ev.evlogit("y ~ svm1 + svm2 + svm3", data=cal)
        t_fit = time.perf_counter() - t0
        fit.predict(test.head(2), type="belief")  # warm-up
        t0 = time.perf_counter()
        fit.predict(test, type="belief")
        dt = time.perf_counter() - t0
        print(f"| {n:,} | {m} | {t_fit:.2f} | {1000 * dt / m:.2f} | {dt / m / n:.2e} |", flush=True)
        if args.summary and n == max(args.sizes):
            t0 = time.perf_counter()
            text = fit.summary().as_text()
            print(f"summary() at n = {n:,}: {time.perf_counter() - t0:.1f} s")
            print("\n".join(line for line in text.splitlines() if "subsample" in line))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
