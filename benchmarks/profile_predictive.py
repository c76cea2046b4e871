"""Where the CPU of evlogit's predictive Bel/Pl goes (issue 15): a fixed sub-benchmark in one
process, CPU time (``time.process_time``), so that it can be compared on a shared machine.

n = 1000 calibration rows, J = 3 (``make_data(1000, 0)`` of bench_evlogit.py, as the
million-row run), ROWS test rows drawn as in the million-row run (standard normal scores, seed
7). Prints the CPU per row of ``predictive_belief``, the part spent in the compiled Newton
kernel (``linear_profile._newton_batch``), profile problems (quadrature nodes) per row, Newton
passes per problem and the CPU per pass, then the CPU per row of ``fit.predict(type="belief")``
(design matrix, blocks and DataFrame on top). With OUT, saves theta, Bel, Pl (to compare two
checkouts row by row).

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=<checkout> python benchmarks/profile_predictive.py [ROWS [OUT.npy]]``
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evlogit import make_data  # noqa: E402

import evstat as ev  # noqa: E402
from evstat.likelihood import linear_profile as lp  # noqa: E402
from evstat.likelihood.predictive import predictive_belief  # noqa: E402


def main(rows: int = 20_000, out: str | None = None) -> None:
    cal, _ = make_data(1000, 0)
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", data=cal)
    lik = fit.likelihood
    test = pd.DataFrame(np.random.default_rng(7).normal(size=(rows, 3)), columns=["svm1", "svm2", "svm3"])
    A = np.column_stack([np.ones(rows), test.to_numpy()])
    predictive_belief(lik, A[:50])  # warm-up: import numba, load (or compile) the kernel
    kernel = [0.0, 0]
    orig = lp._newton_batch

    def timed_batch(*args, **kwargs):
        c = time.process_time()
        res = orig(*args, **kwargs)
        kernel[0] += time.process_time() - c
        kernel[1] += len(args[2])
        return res

    lp._newton_batch = timed_batch
    passes = lp._PASSES[0]
    c0 = time.process_time()
    th, bel, pl = predictive_belief(lik, A)
    cpu = time.process_time() - c0
    lp._newton_batch = orig
    passes = lp._PASSES[0] - passes
    print(f"{rows} rows, load average {os.getloadavg()[0]:.1f}: predictive_belief {1e3 * cpu / rows:.4f} ms/row CPU; "
          f"Newton kernel {1e3 * kernel[0] / rows:.4f} ms/row ({100 * kernel[0] / cpu:.0f} %); "
          f"{kernel[1] / rows:.2f} problems/row; {passes / kernel[1]:.3f} passes/problem; "
          f"{1e6 * kernel[0] / passes:.2f} us/pass (kernel CPU / passes)")
    ev.set_config(progress_bars=False)
    c0 = time.process_time()
    fit.predict(test, type="belief")
    print(f"fit.predict(type='belief'): {1e3 * (time.process_time() - c0) / rows:.4f} ms/row CPU")
    if out:
        np.save(out, np.column_stack([th, bel, pl]))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000, sys.argv[2] if len(sys.argv) > 2 else None)
