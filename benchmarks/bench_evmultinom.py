"""Speed of evmultinom's predictive lower/upper probabilities (issue 16).

Setting: n = 1000 calibration rows, J = 3 scores, K = 3 classes (simulated, seed 2016), test rows
from the same simulator. Times the fast path for the singletons (``predict(type="belief")``) and
for a full pessimistic decision with a reject option, and the reference path (scipy per node,
adaptive quadrature) on the first ``--ref-rows`` rows, in the same process.

    python benchmarks/bench_evmultinom.py --rows 10000 --ref-rows 2
    python benchmarks/bench_evmultinom.py --extreme 50   # rows scaled by 1e3 ... 1e300 (CPU time)

Issue 26 (before/after in one run, alternating two checkouts; CPU time per row, the values
saved to compare the checkouts, no reference path):

    PYTHONPATH=<checkout> python benchmarks/bench_evmultinom.py --rows 300 --ref-rows 0 --save OUT.npz
    PYTHONPATH=<checkout> python benchmarks/bench_evmultinom.py --segment --rows 150 --ref-rows 0 --save OUT.npz

``--segment``: K = 7, the Segment data as in the evmultinom study (evstat.experiments.evmultinom,
round 0, seed 2016): three RBF SVMs on 35 rows each, evmultinom on the K - 1 = 6 log-ratios of
their averaged probabilities (p = 7, 42 coefficients) from the 200 calibration rows, test rows
from the remaining ones.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

# the compiled kernel is what this benchmark times (compiled in the process on first use; the
# numpy path that a fresh installation uses while it compiles is evstat.likelihood._kernels')
os.environ.setdefault("EVSTAT_KERNELS", "numba")

import evstat as ev  # noqa: E402
from evstat.likelihood.multinomial import predictive_bounds  # noqa: E402


def make_data(n: int, K: int = 3, J: int = 3, seed: int = 2016) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, K, n)
    d = {"y": np.array(list("abcdefg"))[z]}
    for j in range(J):
        d[f"s{j + 1}"] = 1.2 * (z == (j % K)) - 0.6 * (z == ((j + 1) % K)) + rng.normal(0, 1, n)
    return pd.DataFrame(d)


def segment_data(seed: int = 2016) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Calibration (200 rows) and test frames of the Segment data (K = 7) as round 0 of the
    evmultinom study: the averaged SVM probabilities' log-ratios ``a_1 .. a_6``."""
    import warnings

    from evstat.experiments import evmultinom as study
    from evstat.experiments.partition import class_reject_partition

    X, y, levels = study.load_classes("segment")
    K = len(levels)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(study.DATASETS.index("segment"), 0)))
    p = class_reject_partition(y, rng, (study.SVM_ROWS["segment"],) * 3, study.CAL_SIZES["segment"], None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = [study._svm(X[r], y[r], int(rng.integers(2**31 - 1))) for r in p.svm]

    def probs(rows: np.ndarray) -> np.ndarray:
        return np.stack([study._proba(m, X[rows], K) for m in models], axis=1)

    cal = study.score_frames(probs(p.cal[200]), levels, y[p.cal[200]])["ratios"]
    test = study.score_frames(probs(p.test), levels)["ratios"]
    return cal, test


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--ref-rows", type=int, default=2)
    ap.add_argument("--extreme", type=int, default=0, help="time rows scaled by 1e3 ... 1e300 instead")
    ap.add_argument("--segment", action="store_true", help="K = 7: the Segment data (module docstring)")
    ap.add_argument("--save", default=None, help="save theta, Bel, Pl and the decisions' losses (.npz)")
    a = ap.parse_args()
    if a.extreme:
        extreme(a.n, a.extreme)
        return
    if a.segment:
        cal, test = segment_data()
        test = test.head(a.rows)
        formula = "y ~ " + " + ".join(c for c in cal.columns if c != "y")
    else:
        cal = make_data(a.n)
        test = make_data(a.rows, seed=7).drop(columns="y")
        formula = "y ~ s1 + s2 + s3"
    t0 = time.perf_counter()
    fit = ev.evmultinom(formula, cal)
    t_fit = time.perf_counter() - t0
    fit.predict(test.head(5), type="belief")  # compile the kernel (cached on disk afterwards)
    t0, c0 = time.perf_counter(), time.process_time()
    b = fit.predict(test, type="belief")
    t_single, c_single = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    dec = fit.decide(test, strategy="pessimistic", reject_cost=0.3)
    t_dec, c_dec = time.perf_counter() - t0, time.process_time() - c0
    rows = len(test)
    print(f"n = {len(cal)}, p = {fit.likelihood.p}, K = {fit.n_classes}, {rows} test rows, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"fit (statsmodels MNLogit + Newton polish): {t_fit:.2f} s")
    print(f"fast singletons (predict type='belief'): {t_single:.1f} s wall = {1e3 * t_single / rows:.2f} ms/row, "
          f"CPU {1e3 * c_single / rows:.2f} ms/row")
    print(f"fast decision, pessimistic with reject 0.3: {t_dec:.1f} s wall = {1e3 * t_dec / rows:.2f} ms/row, "
          f"CPU {1e3 * c_dec / rows:.2f} ms/row (rejected {np.mean(dec == 'reject'):.3f})")
    if a.save:
        np.savez(a.save, theta=b["theta"].to_numpy(), bel=b["bel"].to_numpy(), pl=b["pl"].to_numpy())
    if a.ref_rows <= 0:
        return
    X = fit._design(test.head(a.ref_rows))[0]
    t0 = time.perf_counter()
    diffs = []
    for k in range(fit.n_classes):
        w = np.eye(fit.n_classes)[k]
        _, lo, up = predictive_bounds(fit.likelihood, X, w, method="reference")
        diffs.append(max(np.abs(lo - b["bel"].iloc[: a.ref_rows, k]).max(), np.abs(up - b["pl"].iloc[: a.ref_rows, k]).max()))
    t_ref = time.perf_counter() - t0
    ign = (b["pl"] - b["bel"]).to_numpy()
    print(f"reference singletons on {a.ref_rows} rows: {t_ref:.1f} s = {t_ref / a.ref_rows:.1f} s/row "
          f"(speed-up {t_ref / a.ref_rows / (t_single / rows):.0f} x)")
    print(f"max |fast - reference| on those rows: {max(diffs):.2e}")
    print(f"mean ignorance Pl - Bel per class: {ign.mean(axis=0).round(4).tolist()}")


def extreme(n: int, rows: int) -> None:
    """CPU time of the singletons and of a decision with reject for far-out rows (issue 16:
    a row of 1e10 hung): the benchmark's test rows multiplied by each scale."""
    cal = make_data(n)
    fit = ev.evmultinom("y ~ s1 + s2 + s3", cal)
    base = make_data(rows, seed=7).drop(columns="y")
    fit.predict(base.head(2), type="belief")
    print(f"n = {n}, J = 3, K = 3, {rows} test rows per scale (CPU time)")
    for scale in (1e3, 1e6, 1e10, 1e50, 1e300, -1e300):
        test = base * scale
        t0 = time.process_time()
        b = fit.predict(test, type="belief")
        t1 = time.process_time()
        fit.decide(test, strategy="pessimistic", reject_cost=0.3)
        t2 = time.process_time()
        ok = bool(np.isfinite(b.to_numpy()).all() and (b["bel"] <= b["pl"]).all().all())
        print(f"scale {scale:8.0e}: singletons {1e3 * (t1 - t0) / rows:7.1f} ms/row, decision "
              f"{1e3 * (t2 - t1) / rows:7.1f} ms/row, finite and ordered: {ok}")


if __name__ == "__main__":
    main()
