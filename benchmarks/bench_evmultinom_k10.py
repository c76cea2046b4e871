"""evmultinom at ten classes (issue 36 item 3): predictive Bel/Pl of all ten singletons per row.

Setting: K = 10 classes, J = 10 logit columns (one per class, simulated: standard normal noise
plus 2 on the true class's column), n = 5,000 calibration rows (p = 11, d = 99 coefficients),
test rows from the same simulator. In one process:

- *after*: ``fit.predict(type="belief")`` as shipped (the kernel reuses Hessians: score-only
  passes, BFGS updates, the three-point predictor; ``multinomial.reuse_hessian``);
- *before*: the same with ``REUSE_MIN_D`` raised so that every pass computes the information
  (the exact Newton path of issue 26), on the first ``--before-rows`` rows;
- the largest difference of Bel and Pl between the two on those rows;
- the scipy reference (``method="reference"``, BFGS per node and scipy quad) on ``--ref-rows``
  rows and the first ``--ref-classes`` classes (slow: minutes per class at this size);
- the baseline: evlogit's ``predict(type="belief")`` per row on two-class data of the same
  size (n = 5,000, J = 10).

    python benchmarks/bench_evmultinom_k10.py --rows 40 --before-rows 5 --ref-rows 1 --ref-classes 1

Times are CPU seconds of this process per row (``time.process_time``); the load average is
printed with them.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

os.environ.setdefault("EVSTAT_KERNELS", "numba")

import evstat as ev  # noqa: E402
from evstat.likelihood import mlogit_profile  # noqa: E402
from evstat.likelihood import multinomial as mm  # noqa: E402


def make_data(n: int, K: int = 10, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, K, n)
    L = rng.normal(0.0, 1.0, (n, K)) + 2.0 * np.eye(K)[z]
    d: dict[str, object] = {"y": np.array([f"c{k}" for k in range(K)])[z]}
    for j in range(K):
        d[f"l{j}"] = L[:, j]
    return pd.DataFrame(d)


def cpu_per_row(fn, rows: int) -> tuple[float, object]:
    c0 = time.process_time()
    out = fn()
    return (time.process_time() - c0) / rows, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--before-rows", type=int, default=5)
    ap.add_argument("--ref-rows", type=int, default=0)
    ap.add_argument("--ref-classes", type=int, default=1)
    a = ap.parse_args()
    cal = make_data(a.n)
    test = make_data(a.rows + 1, seed=2).drop(columns="y")
    formula = "y ~ " + " + ".join(f"l{j}" for j in range(10))
    c0 = time.process_time()
    fit = ev.evmultinom(formula, cal)
    t_fit = time.process_time() - c0
    fit.predict(test.head(1), type="belief")  # compile (or load) the kernel
    test = test.iloc[1:]
    lik = fit.likelihood
    print(f"n = {lik.n}, K = {lik.K}, p = {lik.p}, d = {lik.d}; load average {os.getloadavg()[0]:.1f}")
    print(f"fit: {t_fit:.2f} s CPU")

    p0 = list(mlogit_profile._PASSES)
    after, b_after = cpu_per_row(lambda: fit.predict(test, type="belief"), len(test))
    passes, full = (mlogit_profile._PASSES[0] - p0[0]) / len(test), (mlogit_profile._PASSES[1] - p0[1]) / len(test)
    print(f"after (reused Hessians): {1e3 * after:.1f} ms/row CPU over {len(test)} rows; "
          f"{passes:.0f} passes/row, {full:.1f} of them with the information")

    nb = min(a.before_rows, len(test))
    if nb:
        keep = mlogit_profile.REUSE_MIN_D
        mlogit_profile.REUSE_MIN_D = 10**9
        try:
            fit.__dict__.pop("_bounds_memo", None)
            p0 = list(mlogit_profile._PASSES)
            before, b_before = cpu_per_row(lambda: fit.predict(test.head(nb), type="belief"), nb)
        finally:
            mlogit_profile.REUSE_MIN_D = keep
        passes_b = (mlogit_profile._PASSES[0] - p0[0]) / nb
        diff = max(np.abs(b_before["bel"].to_numpy() - b_after["bel"].to_numpy()[:nb]).max(),
                   np.abs(b_before["pl"].to_numpy() - b_after["pl"].to_numpy()[:nb]).max())
        print(f"before (exact Newton, every pass with the information): {1e3 * before:.1f} ms/row CPU over "
              f"{nb} rows ({passes_b:.0f} passes/row); speed-up {before / after:.1f} x; "
              f"max |after - before| of Bel and Pl: {diff:.2e}")

    if a.ref_rows:
        X = fit._design(test.head(a.ref_rows))[0]
        worst = 0.0
        c0 = time.process_time()
        for k in range(min(a.ref_classes, lik.K)):
            _, lo, up = mm.predictive_bounds(lik, X, np.eye(lik.K)[k], method="reference")
            worst = max(worst, np.abs(lo - b_after["bel"].to_numpy()[: a.ref_rows, k]).max(),
                        np.abs(up - b_after["pl"].to_numpy()[: a.ref_rows, k]).max())
        t_ref = time.process_time() - c0
        print(f"reference on {a.ref_rows} row(s) x {min(a.ref_classes, lik.K)} class(es): {t_ref:.0f} s CPU; "
              f"max |after - reference|: {worst:.2e}")

    rng = np.random.default_rng(5)
    z = rng.integers(0, 2, a.n + a.rows)
    two = pd.DataFrame({f"s{j}": rng.normal(size=z.size) + 0.8 * z for j in range(10)})
    two["y"] = z
    f2 = ev.evlogit("y ~ " + " + ".join(f"s{j}" for j in range(10)), two.iloc[: a.n])
    new2 = two.iloc[a.n:].drop(columns="y")
    f2.predict(new2.head(2), type="belief")
    base, _ = cpu_per_row(lambda: f2.predict(new2, type="belief"), len(new2))
    print(f"baseline evlogit (n = {a.n}, J = 10) predict(type='belief'): {1e3 * base:.2f} ms/row CPU")
    ign = (b_after["pl"] - b_after["bel"]).to_numpy()
    print(f"mean ignorance Pl - Bel over the classes: {ign.mean():.4f}")


if __name__ == "__main__":
    main()
