"""The labelling outlook (issue 26, item 4): ``evstat.active.outlook`` and ``evstat report --pool``
on the sonar scores (calibration rows; the 79 test rows as the pool), 10 queries, 5 draws.

::

    python benchmarks/bench_outlook.py                      # this checkout
    python benchmarks/bench_outlook.py --before e108179     # and a git revision, same run
    python benchmarks/bench_outlook.py --rounds 3           # the commands alternated three times

Each version runs in its own interpreter with its source first on ``PYTHONPATH`` (the revision
is checked out with ``git worktree add`` into a temporary directory) and the shared virtual
environment's packages. Numba's cache is warmed first (a prediction, untimed), so the times are
the outlook's, not a compilation's. Printed: the outlook call, and the whole command
``evstat report "y ~ svm1 + svm2 + svm3" --data cal.csv --pool pool.csv --queries 10`` (wall),
with a baseline ``python -c "import pandas"`` and the load average, then a table for
benchmarks/README.md; the whole command also with ``EVSTAT_FORK=0`` (the forecast in the report's
own process instead of a forked child beside its other sections, evstat.io.forked), and with
``--rounds N`` every command N times, alternating, each figure the median. Both run the compiled kernels (``EVSTAT_KERNELS=numba``, numba's cache warm:
the steady state of an installation, after the background compilation of its first call), and
with Python's bytecode written and reused (``PYTHONDONTWRITEBYTECODE`` unset for the children, as
``pip install`` leaves an installation: otherwise every run compiles evstat's 48,000 lines, about
1 s of CPU); the command is run once untimed first, so that its own modules are compiled too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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
t0, c0 = time.perf_counter(), time.process_time()
f = outlook(fit, pool, queries=10, draws=5, seed=0)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"outlook": wall, "cpu": cpu, "pool": len(pool), "rows": len(f), "attrs": {k: v for k, v in f.attrs.items()},
                  "mean_last": f[f["queries"] == 10].groupby("strategy")["ignorance"].mean().round(6).to_dict()}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", metavar="REV", help="also measure this git revision")
    ap.add_argument("--rounds", type=int, default=1, help="times each command is timed (alternating; medians)")
    args = ap.parse_args(argv)
    start = load()
    print(f"load average at start: {start}")
    tmp = Path(tempfile.mkdtemp(prefix="evstat-outlook-"))
    evstat_bin = Path(sys.executable).parent / "evstat"
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    w, c, _ = run([sys.executable, "-c", "import pandas"], base, str(tmp))
    print(f"baseline python -c 'import pandas': {w:.2f} s wall, {c:.2f} s cpu")
    baseline = f"{w:.2f} ({c:.2f})"
    rows: dict[str, dict[str, str]] = {}
    with revision(args.before, tmp) as before:
        versions = ([("before", before)] if before is not None else []) + [("after", REPO)]
        commands = []
        for name, src in versions:
            env = {**base, "PYTHONPATH": str(src), "MPLBACKEND": "Agg", "EVSTAT_KERNELS": "numba"}
            work = tmp / name
            work.mkdir()
            _, _, out = run([sys.executable, "-c", INNER, str(work)], env, str(work))
            print(f"[{name}] outlook (10 queries, 5 draws, 3 strategies): {out.strip()}")
            got = json.loads(out.strip().splitlines()[-1])
            rows.setdefault("outlook", {})[name] = f"{got['outlook']:.2f} ({got['cpu']:.2f})"
            rows.setdefault("ignorance", {})[name] = ", ".join(f"{v:.6f}" for v in got["mean_last"].values())
            cmd = [str(evstat_bin), "report", "y ~ svm1 + svm2 + svm3", "--data", "cal.csv", "--pool", "pool.csv",
                   "--queries", "10", "--date", "2026-01-01", "-o", "r.html"]
            run(cmd, env, str(work))  # untimed: the command's modules compiled to bytecode once
            commands.append(("report", name, cmd, env, work))
            if name == "after":
                commands.append(("report, EVSTAT_FORK=0", name, cmd, {**env, "EVSTAT_FORK": "0"}, work))
        commands.insert(0, ("baseline", "all", [sys.executable, "-c", "import pandas"], base, tmp))
        times: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(max(1, args.rounds)):
            for what, name, cmd, env, work in commands:
                w, c, _ = run(cmd, env, str(work))
                print(f"[{name}] {what}: {w:.2f} s wall, {c:.2f} s cpu", flush=True)
                times.setdefault((what, name), []).append((w, c))
        for (what, name), got_times in times.items():
            w = statistics.median(t[0] for t in got_times)
            c = statistics.median(t[1] for t in got_times)
            rows.setdefault(what, {})[name] = f"{w:.2f} ({c:.2f})"
        if args.rounds > 1:  # the baseline of the rounds (median), beside the first one
            baseline += f"; rounds: {rows['baseline']['all']}"
    end = load()
    print(f"load average at end: {end}")
    names = [n for n in ("after", "before") if n in rows["report"]]
    print(f"\n| wall (CPU) s, load {start} -> {end} | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    print("| `python -c \"import pandas\"` (baseline) | " + " | ".join(baseline for _ in names) + " |")
    print("| `outlook(fit, pool, queries=10, draws=5)` (in process) | " + " | ".join(rows["outlook"][n] for n in names) + " |")
    print("| `evstat report ... --pool pool.csv --queries 10` (whole command) | "
          + " | ".join(rows["report"][n] for n in names) + " |")
    print("| the same with `EVSTAT_FORK=0` (forecast in the report's process) | "
          + " | ".join(rows["report, EVSTAT_FORK=0"].get(n, "") for n in names) + " |")
    print("| mean ignorance after 10 queries, per strategy | " + " | ".join(rows["ignorance"][n] for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
