"""Time of every default K-class figure of an evmultinom fit (issue 25: each <= 10 s, K = 3).

Setting (the issue's): iris, a scikit-learn logistic regression trained on 30 rows, its
``predict_log_proba`` (log-probabilities of the three species, J = K = 3 score columns) as the
scores; evmultinom fitted on ``--n`` calibration rows (default 50; with more rows than iris has
left, a simulation: the 60 iris calibration rows resampled with Gaussian noise of sd 0.3 on the
four measurements, seed 25, scored by the same regression; ``--n 1000`` is issue 25's size),
test rows the remaining iris rows.
Each figure is drawn by ``fit.plot(kind, newdata=test)`` with the defaults into a fresh figure,
in one process, after one warm-up prediction (numba kernels compiled, imports done); the time of
``import pandas`` in a fresh interpreter is measured in the same run as a baseline of the
machine's speed, and the load average is printed before and after.

    PYTHONPATH=$PWD python benchmarks/bench_kclass_figures.py
    PYTHONPATH=$PWD python benchmarks/bench_kclass_figures.py --n 1000 --kinds decision_regions
    PYTHONPATH=/tmp/kp_before python benchmarks/bench_kclass_figures.py --kinds decision_regions

The compiled kernels are timed (``EVSTAT_KERNELS=numba`` unless set: the warm-up compiles them
if numba's cache lacks them), as in an installation whose background compilation has finished;
under ``auto`` a fresh checkout answers on the numpy path for its first minutes
(:mod:`evstat.likelihood._kernels`), which made the first n = 1000 measurement of issue 25
several times slower than the kernel.

Figures drawn one after the other from one fit share its grid predictions
(:func:`evstat.plotting._grid.predicted_grid`), so only the first grid figure predicts; ``--fresh``
forgets them before each figure, timing every figure as if it were the fit's first. The kernels
split their batches over threads (``kernel_threads``): wall time, the user's wait, is below the
CPU time on an idle machine with two cores.

``--kinds`` limits the figures and ``--grid`` sets the region and map figures' grid: the
revision before issue 25 took minutes per figure at its default grid of 80 x 80, so it was
timed at ``--grid 20`` (400 points) and scaled by 16 (its time is linear in the grid's points:
one ``decide`` or ``augment`` of the lattice per figure, plus drawing).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd

os.environ.setdefault("EVSTAT_KERNELS", "numba")  # module docstring: the compiled kernels are timed

GRID_KINDS = ("decision_regions", "class_regions", "belief_map")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def data(n: int, seed: int = 25) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(calibration rows, test rows) of log-probability scores s_setosa, s_versicolor, s_virginica."""
    import evstat as ev
    from sklearn.linear_model import LogisticRegression

    iris = ev.datasets.load("iris")
    y = iris["Species"].astype(str).to_numpy()
    X = iris.drop(columns=["Species"]).to_numpy(dtype=float)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    tr, cal, te = order[:30], order[30:30 + min(n, 60)], order[90:]
    clf = LogisticRegression(max_iter=1000).fit(X[tr], y[tr])

    def frame(rows: np.ndarray, noise: float = 0.0) -> pd.DataFrame:
        Xr = X[rows] + noise * rng.standard_normal((len(rows), X.shape[1]))
        lp = clf.predict_log_proba(Xr)
        return pd.DataFrame({f"s_{c}": lp[:, j] for j, c in enumerate(clf.classes_)} | {"Species": y[rows]})

    c = frame(cal)
    if n > len(cal):
        c = pd.concat([c, frame(rng.choice(cal, n - len(cal)), noise=0.3)], ignore_index=True)
    return c, frame(te)


def import_pandas() -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import pandas"], check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50, help="calibration rows (default 50)")
    ap.add_argument("--kinds", nargs="*", default=None, help="plot kinds (default: every applicable kind and the default)")
    ap.add_argument("--grid", type=int, default=None,
                    help="grid= of the region and map figures (default: their own default)")
    ap.add_argument("--fresh", action="store_true",
                    help="forget the fit's kept grid predictions before each figure (each timed as a fit's first)")
    ap.add_argument("--threads", type=int, default=None,
                    help="kernel_threads setting (default: evstat's, the available processors; 1: serial)")
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import evstat as ev
    from evstat import plotting

    if args.threads is not None:
        ev.set_config(kernel_threads=args.threads)
    threads = ev.get_config().get("kernel_threads", "n/a")
    print(f"evstat from {os.path.dirname(ev.__file__)}; load average {load()}; "
          f"EVSTAT_KERNELS={os.environ['EVSTAT_KERNELS']}; kernel_threads={threads}")
    print(f"baseline: import pandas in a fresh interpreter {import_pandas():.2f} s wall")
    cal, test = data(args.n)
    fit = ev.evmultinom("Species ~ s_setosa + s_versicolor + s_virginica", cal)
    fit.predict(test.iloc[:5], type="belief")  # warm-up: kernels, imports
    kinds = args.kinds if args.kinds is not None else [None, *plotting.applicable_kinds(fit), "class_regions"]
    print(f"evmultinom, n = {fit.nobs} calibration rows, {len(test)} test rows, K = {fit.n_classes}")
    print(f"{'kind':<24}{'wall s':>9}{'CPU s':>9}")
    for kind in kinds:
        if args.fresh:  # the revision before issue 25 keeps nothing
            try:
                from evstat.plotting import _grid
                getattr(_grid, "_PREDICTED", {}).clear()
            except ImportError:
                pass
        c0, t0 = time.process_time(), time.perf_counter()
        try:
            extra = {} if args.grid is None or kind not in GRID_KINDS else {"grid": args.grid}
            fit.plot(kind, newdata=test, **extra)
            failed = ""
        except (TypeError, ValueError) as err:  # the revision before issue 25 has no default
            failed = f"  failed: {str(err)[:60]}"
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        plt.close("all")
        print(f"{str(kind) + (' (default)' if kind is None else ''):<24}{wall:9.2f}{cpu:9.2f}{failed}", flush=True)
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
