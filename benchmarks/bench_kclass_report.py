"""Time of the K-class HTML report of an evmultinom fit at its defaults (issue 25: <= 30 s, K = 3).

Setting (the issue's, shared with ``bench_kclass_figures.py``): iris, a scikit-learn logistic
regression trained on 30 rows, its ``predict_log_proba`` (the log-probabilities of the three
species) as the scores; evmultinom fitted on ``--n`` calibration rows (default 50; more rows are
the simulation of ``bench_kclass_figures.py``: the 60 iris calibration rows resampled with
noise, seed 25; ``--n 1000`` is issue 25's size), the remaining 60 iris rows as labelled new
data. The compiled kernels are timed (``EVSTAT_KERNELS=numba`` unless set; see
``bench_kclass_figures.py``). The report is
``fit.report(path, newdata=test)`` with every default (grid, bins, the data-chosen reject cost),
in one process after one warm-up prediction (numba kernels compiled, imports done), repeated
``--repeat`` times. With ``--cli`` the same report is also made by the command line in a fresh
process (``evstat report "Species ~ ..." --data cal.csv --newdata test.csv --method evmultinom``,
where the installed revision has it), which adds the start-up and the fit. The time of ``import
pandas`` in a fresh interpreter is measured in the same run as a baseline of the machine's speed
(the machine is shared), and the load average is printed before and after.

    PYTHONPATH=$PWD python benchmarks/bench_kclass_report.py
    PYTHONPATH=$PWD python benchmarks/bench_kclass_report.py --n 1000
    git archive 93b758e | tar -x -C /tmp/kr_before   # the revision before issue 25
    PYTHONPATH=/tmp/kr_before python benchmarks/bench_kclass_report.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_kclass_figures import data, import_pandas, load  # noqa: E402  (the same setting)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50, help="calibration rows (default 50)")
    ap.add_argument("--repeat", type=int, default=1, help="reports to time (default 1)")
    ap.add_argument("--cli", action="store_true", help="also time the command line in a fresh process")
    ap.add_argument("--threads", type=int, default=None,
                    help="kernel_threads setting (default: evstat's, the available processors; 1: serial)")
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import evstat as ev

    if args.threads is not None:
        ev.set_config(kernel_threads=args.threads)
    threads = ev.get_config().get("kernel_threads", "n/a")
    print(f"evstat from {os.path.dirname(ev.__file__)}; load average {load()}; "
          f"EVSTAT_KERNELS={os.environ['EVSTAT_KERNELS']}; kernel_threads={threads}")
    print(f"baseline: import pandas in a fresh interpreter {import_pandas():.2f} s wall")
    cal, test = data(args.n)
    formula = "Species ~ s_setosa + s_versicolor + s_virginica"
    fit = ev.evmultinom(formula, cal)
    fit.predict(test.iloc[:5], type="belief")  # warm-up: kernels, imports
    print(f"evmultinom, n = {fit.nobs} calibration rows, {len(test)} test rows, K = {fit.n_classes}")
    out = Path(tempfile.mkdtemp())
    for i in range(args.repeat):
        c0, t0 = time.process_time(), time.perf_counter()
        fit.report(out / f"k{i}.html", newdata=test, date="2026-01-01")
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        size = (out / f"k{i}.html").stat().st_size
        print(f"fit.report(path, newdata=test): {wall:8.2f} s wall {cpu:8.2f} s CPU ({size / 1e6:.2f} MB)", flush=True)
    if args.cli:
        cal.to_csv(out / "cal.csv", index=False)
        test.to_csv(out / "test.csv", index=False)
        cmd = [sys.executable, "-m", "evstat", "report", formula, "--data", str(out / "cal.csv"),
               "--newdata", str(out / "test.csv"), "--method", "evmultinom", "-o", str(out / "cli.html")]
        t0 = time.perf_counter()
        ru0 = os.times()
        r = subprocess.run(cmd, capture_output=True, text=True)
        ru1 = os.times()
        wall = time.perf_counter() - t0
        cpu = (ru1.children_user - ru0.children_user) + (ru1.children_system - ru0.children_system)
        status = "ok" if r.returncode == 0 else f"exit {r.returncode}: {r.stderr.strip().splitlines()[-1][:90] if r.stderr.strip() else ''}"
        print(f"evstat report (fresh process): {wall:8.2f} s wall {cpu:8.2f} s CPU ({status})")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
