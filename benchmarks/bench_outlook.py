"""The labelling outlook (issue 26, item 4): ``evstat.active.outlook`` and ``evstat report --pool``
on the sonar scores (calibration rows; the 79 test rows as the pool), 10 queries, 5 draws.

::

    python benchmarks/bench_outlook.py                      # this checkout
    python benchmarks/bench_outlook.py --before e108179     # and a git revision, same run

Each version runs in its own interpreter with its source first on ``PYTHONPATH`` (the revision
is checked out with ``git worktree add`` into a temporary directory) and the shared virtual
environment's packages. Numba's cache is warmed first (a prediction, untimed), so the times are
the outlook's, not a compilation's. Printed: the outlook call, and the whole command
``evstat report "y ~ svm1 + svm2 + svm3" --data cal.csv --pool pool.csv --queries 10`` (wall),
with a baseline ``python -c "import pandas"`` and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from _bench import REPO, load, revision, run

INNER = """
import json, sys, time
import evstat as ev
from evstat.active import outlook
table = ev.datasets.load("sonar_scores")
cal = table[table["set"] == "calibration"][["y", "svm1", "svm2", "svm3"]].reset_index(drop=True)
pool = table[table["set"] == "test"][["svm1", "svm2", "svm3"]].reset_index(drop=True)
cal.to_csv(sys.argv[1] + "/cal.csv", index=False)
pool.to_csv(sys.argv[1] + "/pool.csv", index=False)
fit = ev.evlogit("y ~ svm1 + svm2 + svm3", data=cal)
fit.predict(pool, type="belief")  # warm numba's cache (untimed)
t0 = time.perf_counter()
f = outlook(fit, pool, queries=10, draws=5, seed=0)
wall = time.perf_counter() - t0
print(json.dumps({"outlook": wall, "pool": len(pool), "rows": len(f), "attrs": {k: v for k, v in f.attrs.items()},
                  "mean_last": f[f["queries"] == 10].groupby("strategy")["ignorance"].mean().round(6).to_dict()}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", metavar="REV", help="also measure this git revision")
    args = ap.parse_args(argv)
    print(f"load average at start: {load()}")
    tmp = Path(tempfile.mkdtemp(prefix="evstat-outlook-"))
    evstat_bin = Path(sys.executable).parent / "evstat"
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    w, c, _ = run([sys.executable, "-c", "import pandas"], base, str(tmp))
    print(f"baseline python -c 'import pandas': {w:.2f} s wall, {c:.2f} s cpu")
    with revision(args.before, tmp) as before:
        versions = ([("before", before)] if before is not None else []) + [("after", REPO)]
        for name, src in versions:
            env = {**base, "PYTHONPATH": str(src), "MPLBACKEND": "Agg"}
            work = tmp / name
            work.mkdir()
            _, _, out = run([sys.executable, "-c", INNER, str(work)], env, str(work))
            print(f"[{name}] outlook (10 queries, 5 draws, 3 strategies): {out.strip()}")
            cmd = [str(evstat_bin), "report", "y ~ svm1 + svm2 + svm3", "--data", "cal.csv", "--pool", "pool.csv",
                   "--queries", "10", "--date", "2026-01-01", "-o", "r.html"]
            w, c, _ = run(cmd, env, str(work))
            print(f"[{name}] evstat report ... --pool pool.csv --queries 10: {w:.2f} s wall, {c:.2f} s cpu", flush=True)
    print(f"load average at end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
