"""Speed and memory of the scaling calibrators' predictive Bel/Pl (issue 36, items 1 and 4).

Simulated logits: K classes, class k's logit of a row of class y is ``strength * 1{k = y}`` plus
standard normal noise (seed 2026), ``n`` calibration rows, ``m`` test rows; every class present.
For each model the fit and ``predict(type="belief")`` (the singletons' Bel and Pl, never a 2^K
table) are timed in CPU seconds of this process (``time.process_time``; numpy's BLAS threads
included), with the peak resident memory of the process (``ru_maxrss``). evlogit's per-row time
on its own benchmark setting (n = 1000, J = 3) is measured in the same run as the baseline.

    python benchmarks/bench_scaling_bounds.py --model temperature --K 10 --n 10000 --rows 10000
    python benchmarks/bench_scaling_bounds.py --model temperature --K 100 --n 10000 --rows 10000
    python benchmarks/bench_scaling_bounds.py --model vector_scaling --K 3 --n 200 --rows 20 --evidential

Each invocation is one process, so ``ru_maxrss`` is that setting's peak.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np
import pandas as pd


def logits(n: int, K: int, seed: int, strength: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    rng.shuffle(y)
    z = strength * np.eye(K)[y] + rng.normal(size=(n, K))
    d = pd.DataFrame(z, columns=[f"s_{k}" for k in range(K)])
    d["y"] = y
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="temperature")
    ap.add_argument("--K", type=int, default=10)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--strength", type=float, default=3.0)
    ap.add_argument("--evidential", action="store_true", help="evidential=True (vector scaling, ODIR Dirichlet)")
    ap.add_argument("--baseline-rows", type=int, default=2000, help="evlogit rows for the baseline (0: none)")
    a = ap.parse_args()

    import evstat as ev

    print(f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    cal = logits(a.n, a.K, 2026, a.strength)
    test = logits(a.rows, a.K, 2027, a.strength)
    formula = "y ~ " + " + ".join(f"s_{k}" for k in range(a.K))
    t0 = time.process_time()
    fit = getattr(ev, a.model)(formula, cal, **({"evidential": True} if a.evidential else {}))
    t_fit = time.process_time() - t0
    t0 = time.process_time()
    b = fit.predict(test, type="belief")
    t_bel = time.process_time() - t0
    ign = float((b["pl"] - b["bel"]).to_numpy().mean())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{a.model} K={a.K} n={a.n} rows={a.rows}: fit {t_fit:.2f} s CPU, belief {t_bel:.2f} s CPU "
          f"({1000 * t_bel / a.rows:.3f} ms/row), mean Pl - Bel {ign:.4f}, peak RSS {rss:.0f} MB")
    if a.baseline_rows:
        rng = np.random.default_rng(0)
        y = rng.integers(0, 2, 1000)
        X = rng.normal(size=(1000, 3)) + y[:, None]
        cal2 = pd.DataFrame(X, columns=["s1", "s2", "s3"]).assign(y=y)
        new = pd.DataFrame(rng.normal(size=(a.baseline_rows, 3)), columns=["s1", "s2", "s3"])
        e = ev.evlogit("y ~ s1 + s2 + s3", cal2)
        e.predict(new.head(10), type="belief")  # compile
        t0 = time.process_time()
        e.predict(new, type="belief")
        t = time.process_time() - t0
        print(f"baseline evlogit n=1000 J=3: {1000 * t / a.baseline_rows:.3f} ms/row CPU")


if __name__ == "__main__":
    main()
