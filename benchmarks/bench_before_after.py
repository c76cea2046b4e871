"""The speed benchmarks of this directory at a git revision and at this checkout, in one run
(issue 24, "Done when": before/after figures of benchmarks/README.md measured in one run on the
same machine, none worse).

::

    python benchmarks/bench_before_after.py --before e108179            # every case, one round
    python benchmarks/bench_before_after.py --before e108179 --only belief evmultinom-k3 --rounds 2

``e108179`` is the parent of the first commit of the one-stack redesign (2598062, "one
decide/predict owned by Results ...", issue 24), and the commit before issue 26's lazy imports.

Each case runs one benchmark script with reduced sizes (the ``CASES`` table below) as a child
process, once per version and round, the two versions alternating (before, after, before,
after, ...), each version's own copy of the script with its own source first on ``PYTHONPATH``
(the revision is checked out with ``git worktree add`` into a temporary directory and removed
afterwards; ``bench_evmultinom.py`` is this checkout's at both versions, see ``FROM_AFTER``). Every child runs with ``OMP_NUM_THREADS=1`` and ``EVSTAT_KERNELS=numba`` (the
compiled kernels, as the scripts time them; a warm-up run per version compiles them into
numba's cache first, not timed). Printed: per case the CPU seconds (user + sys of the child)
and the wall seconds of the whole script (import and fits included), the ratio after / before
of the CPU, and the figures each script prints itself (its own timings, per row), then a table
for benchmarks/README.md with the load average and the baseline ``python -c "import pandas"``
of the same run.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

from _bench import REPO, load, revision, run

#: name -> (script, arguments): reduced sizes, each a few seconds of CPU per version (plus the
#: imports and fits of the script)
CASES: dict[str, tuple[str, list[str]]] = {
    "belief": ("bench_belief.py", ["--quick"]),
    "evlogit": ("bench_evlogit.py", ["--test-rows", "2000", "--ref-rows", "2"]),
    "speed": ("bench_speed.py", ["--rows", "2000", "--r-rows", "2", "--ref-rows", "2", "--sizes", "1000,10000"]),
    "profile-predictive": ("profile_predictive.py", ["5000"]),
    "calibration-size": ("bench_calibration_size.py", ["--sizes", "1000", "10000", "--rows", "100"]),
    "gebel-univariate": ("bench_gebel_univariate.py", ["--quick"]),
    "evmultinom-k3": ("bench_evmultinom.py", ["--rows", "150", "--ref-rows", "0"]),
    "evmultinom-k7": ("bench_evmultinom.py", ["--segment", "--rows", "20", "--ref-rows", "0"]),
}

#: scripts run from this checkout at both versions (the revision's copy lacks an option used here;
#: they call only the public API that both versions have)
FROM_AFTER = {"bench_evmultinom.py"}

#: lines of a script's output that carry its own figures
FIGURE = re.compile(r"ms/row|ms\b|\bs/row|us\b| x\b|speed-up|ratio|max \|", re.IGNORECASE)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", metavar="REV", required=True, help="the git revision measured as 'before'")
    ap.add_argument("--only", nargs="+", choices=sorted(CASES), help="run only these cases")
    ap.add_argument("--rounds", type=int, default=1, help="alternating rounds per case (default 1)")
    args = ap.parse_args(argv)
    cases = args.only or list(CASES)
    start = load()
    print(f"load average at start: {start}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="evstat-before-after-"))
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    base.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", EVSTAT_KERNELS="numba")
    w, c, _ = run([sys.executable, "-c", "import pandas"], base, str(tmp))
    baseline = (w, c)
    print(f"baseline python -c 'import pandas': {w:.2f} s wall, {c:.2f} s cpu", flush=True)
    results: dict[str, dict[str, list[tuple[float, float]]]] = {}
    figures: dict[str, dict[str, list[str]]] = {}
    with revision(args.before, tmp) as before:
        assert before is not None
        versions = [("before", before), ("after", REPO)]
        for name, src in versions:  # compile the kernels into numba's cache (not timed)
            env = {**base, "PYTHONPATH": str(src)}
            run([sys.executable, str(REPO / "benchmarks" / "bench_evmultinom.py"), "--rows", "2", "--ref-rows", "0"],
                env, str(tmp))
            print(f"[{name}] kernels warm", flush=True)
        for case in cases:
            script, extra = CASES[case]
            for r in range(args.rounds):
                for name, src in versions:
                    path = (REPO if script in FROM_AFTER else src) / "benchmarks" / script
                    if not path.exists():
                        print(f"[{name}] {case}: {script} does not exist at this version", flush=True)
                        continue
                    env = {**base, "PYTHONPATH": str(src)}
                    w, c, out = run([sys.executable, str(path), *extra], env, str(tmp))
                    results.setdefault(case, {}).setdefault(name, []).append((w, c))
                    lines = [ln.strip() for ln in out.splitlines() if FIGURE.search(ln)]
                    figures.setdefault(case, {})[name] = lines
                    print(f"[{name}] {case} round {r + 1}: {c:.2f} s cpu, {w:.2f} s wall ({load()})", flush=True)
                    for ln in lines:
                        print(f"      {ln}")
    end = load()
    print(f"load average at end: {end}")
    print(f"\nBefore = {args.before}, after = this checkout; CPU seconds (user + sys) of the whole script "
          f"(wall in parentheses), best of {args.rounds} round(s); load average {start} at the start, {end} "
          f"at the end; baseline `python -c \"import pandas\"` {baseline[1]:.2f} s CPU ({baseline[0]:.2f} s wall).\n")
    print("| benchmark (arguments) | before CPU s (wall) | after CPU s (wall) | after / before (CPU) |")
    print("|---|---|---|---|")
    for case in cases:
        script, extra = CASES[case]
        got = results.get(case, {})
        cells = []
        for name in ("before", "after"):
            best = min(got.get(name, [(float("nan"), float("nan"))]), key=lambda t: t[1])
            cells.append(best)
        ratio = cells[1][1] / cells[0][1] if cells[0][1] > 0 else float("nan")
        print(f"| `{script} {' '.join(extra)}` | {cells[0][1]:.2f} ({cells[0][0]:.1f}) | "
              f"{cells[1][1]:.2f} ({cells[1][0]:.1f}) | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
