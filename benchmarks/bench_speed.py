"""Benchmark (issue 15, section 1): per-row cost of evlogit's predictive Bel/Pl against R.

* R: ``/work/shared/bench/r_peer_evlogit.R`` (a copy is ``benchmarks/r_peer_evlogit.R``): glm with
  Platt targets, glm.fit with an offset per contour evaluation, integrate(); run in the same
  invocation on ``--r-rows`` test rows when ``Rscript`` is on the PATH (this script installs
  nothing; on Debian/Ubuntu ``apt-get install -y r-base-core`` provides it). Its Bel/Pl are
  compared with ours on those rows.
* evstat fast path on ``--rows`` test rows at n = 1000 (after a warm-up call that loads the
  compiled kernel), CPU time (``time.process_time``) and wall time, and the largest difference
  from the reference path (statsmodels refits, adaptive quadrature) on ``--ref-rows`` rows;
* the per-row cost at n = 10^3, 10^4, 10^5 calibration rows;
* with ``--million``: 1,000,000 test rows through ``evstat.bulk.predict_file`` (the path of
  ``evstat predict --jobs``) on ``--jobs`` worker processes (default 2) in a child process: wall
  and CPU time, peak resident memory of the whole process tree.

Run: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_speed.py [--million]``
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evlogit import make_data  # noqa: E402

import evstat as ev  # noqa: E402
from evstat.likelihood.predictive import predictive_belief  # noqa: E402

R_SCRIPT = Path(__file__).resolve().parent / "r_peer_evlogit.R"
FORMULA = "y ~ svm1 + svm2 + svm3"
#: interval of the memory samples of the million-row run. One sample (RSS and PSS) of the tree
#: measured 21 ms of CPU with the parent alone (psutil scans /proc for the children, the kernel
#: walks the page tables for the PSS), so sampling parent and two workers every 0.2 s, as the
#: first runs did, explains most of the 24 s of CPU of their parent process, taken from the two
#: cores; the peak (a few chunks in flight per worker) is held for minutes, so a sample per
#: second finds it
SAMPLE_SECONDS = 1.0


def design(test: pd.DataFrame) -> np.ndarray:
    return np.column_stack([np.ones(len(test)), test.to_numpy()])


def timed(lik, A) -> tuple[float, float, tuple]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = predictive_belief(lik, A)
    return time.process_time() - c0, time.perf_counter() - w0, out


def run_r(cal: pd.DataFrame, test: pd.DataFrame) -> tuple[float, np.ndarray] | None:
    rscript = shutil.which("Rscript")
    if rscript is None:
        print("R: Rscript not found (apt-get install -y r-base-core); R comparison skipped")
        return None
    with tempfile.TemporaryDirectory() as d:
        ren = {"svm1": "a", "svm2": "b", "svm3": "c"}
        cal.rename(columns=ren).to_csv(Path(d) / "cal.csv", index=False)
        test.rename(columns=ren).to_csv(Path(d) / "test.csv", index=False)
        res = subprocess.run([rscript, str(R_SCRIPT), d], capture_output=True, text=True, check=True)
        sec = float(next(ln.split()[1] for ln in res.stdout.splitlines() if ln.startswith("R_SECONDS_PER_ROW")))
        out = pd.read_csv(Path(d) / "r_out.csv").to_numpy()
    return sec, out


def _tree_rss_mb(proc) -> float:
    """Resident memory of a process and all its descendants (MB): the sum of their RSS, which
    counts the shared pages (libraries, copy-on-write pages) once per process."""
    total = 0
    for q in [proc, *proc.children(recursive=True)]:
        try:
            total += q.memory_info().rss
        except Exception:  # a worker that just exited
            pass
    return total / 2**20


def _tree_pss_mb(proc) -> float:
    """Proportional set size of a process and its descendants (MB): each shared page divided
    among the processes sharing it, so the sum is the memory the tree occupies."""
    total = 0
    for q in [proc, *proc.children(recursive=True)]:
        try:
            total += q.memory_full_info().pss
        except Exception:  # a worker that just exited, or no PSS on this platform
            pass
    return total / 2**20


def million(n: int, jobs: int, rows: int = 1_000_000, chunksize: int = 100_000) -> None:
    """1,000,000 test rows through the library's bulk path (``evstat predict``'s
    ``evstat.bulk.predict_file``: Parquet in and out, chunks of 100,000 rows on ``jobs`` worker
    processes); wall and CPU time (parent and workers) and the peak resident memory of the whole
    process tree, sampled every ``SAMPLE_SECONDS`` (psutil)."""
    import threading

    import psutil

    from evstat.bulk import predict_file

    cal, _ = make_data(n, 0)
    fit = ev.evlogit(FORMULA, data=cal)
    rng = np.random.default_rng(7)
    test = pd.DataFrame(rng.normal(size=(rows, 3)), columns=["svm1", "svm2", "svm3"])
    me = psutil.Process()
    peak = [_tree_rss_mb(me), _tree_pss_mb(me)]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_SECONDS):
            peak[0] = max(peak[0], _tree_rss_mb(me))
            peak[1] = max(peak[1], _tree_pss_mb(me))

    with tempfile.TemporaryDirectory() as d:
        fit.save(Path(d) / "fit.json")
        test.to_parquet(Path(d) / "test.parquet")
        del test
        th = threading.Thread(target=sample, daemon=True)
        th.start()
        w0, c0 = time.perf_counter(), time.process_time()
        rows = predict_file(Path(d) / "fit.json", Path(d) / "test.parquet", Path(d) / "out.parquet",
                            type="belief", jobs=jobs, chunksize=chunksize, quiet=True)
        dt, ct = time.perf_counter() - w0, time.process_time() - c0
        done.set()
        th.join()
        child = resource.getrusage(resource.RUSAGE_CHILDREN)
        b = pd.read_parquet(Path(d) / "out.parquet")
    ok = bool(((b.bel <= b.theta) & (b.theta <= b.pl)).all())
    print(f"{rows:,} test rows (n = {n}, evstat.bulk.predict_file, jobs = {jobs}, chunksize = {chunksize}): wall {dt:.1f} s, "
          f"CPU {ct:.1f} s parent + {child.ru_utime + child.ru_stime:.1f} s workers, "
          f"peak memory of the process tree: RSS sum {peak[0]:.0f} MB, PSS sum {peak[1]:.0f} MB, rows {rows}, "
          f"Bel <= theta <= Pl on every row: {ok}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--r-rows", type=int, default=10)
    ap.add_argument("--ref-rows", type=int, default=10)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--million", action="store_true")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes of the million-row run")
    ap.add_argument("--million-child", action="store_true", help="only the million-row run, in this process")
    ap.add_argument("--chunksize", type=int, default=100_000, help="rows per chunk of the million-row run")
    ap.add_argument("--million-rows", type=int, default=1_000_000, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.million_child:
        million(1000, args.jobs, args.million_rows, args.chunksize)
        return 0
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}, load average {os.getloadavg()}")
    cal, test = make_data(1000, args.rows)
    lik = ev.evlogit(FORMULA, data=cal).likelihood
    A = design(test)
    predictive_belief(lik, A[:5])  # warm-up: import numba, load (or compile) the kernel
    cpu, wall, (th, bel, pl) = timed(lik, A)
    per_cpu, per_wall = cpu / len(A), wall / len(A)
    print(f"n = 1000, J = 3, {len(A)} rows: {1e3 * per_cpu:.3f} ms/row CPU, {1e3 * per_wall:.3f} ms/row wall")
    k = args.ref_rows
    _, bel_r, pl_r = predictive_belief(lik, A[:k], method="reference")
    print(f"max |fast - reference| on {k} rows: Bel {np.max(np.abs(bel[:k] - bel_r)):.1e}, "
          f"Pl {np.max(np.abs(pl[:k] - pl_r)):.1e}")
    r = run_r(cal, test.iloc[: args.r_rows])
    if r is not None:
        sec, out = r
        kk = args.r_rows
        print(f"R: {sec:.3f} s/row (elapsed, {kk} rows); ratio R / evstat: {sec / per_wall:.0f} x (wall), "
              f"{sec / per_cpu:.0f} x (against our CPU time)")
        print(f"max |evstat - R| on {kk} rows: Bel {np.max(np.abs(bel[:kk] - out[:, 1])):.1e}, "
              f"Pl {np.max(np.abs(pl[:kk] - out[:, 2])):.1e}")
    for n in [int(s) for s in args.sizes.split(",")]:
        m = max(20, min(args.rows, 2_000_000 // n))
        cal_n, test_n = make_data(n, m, seed=2026 + n)
        lik_n = ev.evlogit(FORMULA, data=cal_n).likelihood
        cpu, wall, _ = timed(lik_n, design(test_n))
        print(f"n = {n:>6}: {m} rows, {1e3 * cpu / m:.3f} ms/row CPU, {1e3 * wall / m:.3f} ms/row wall, "
              f"{1e6 * cpu / m / n:.3f} us per row per calibration row")
    if args.million:
        subprocess.run([sys.executable, __file__, "--million-child", "--jobs", str(args.jobs),
                        "--chunksize", str(args.chunksize)], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
