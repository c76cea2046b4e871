"""Test collection time (issue 26, item 5): ``pytest --collect-only -q`` of this checkout and,
optionally, of a git revision in the same run, with the slowest test modules.

::

    python benchmarks/bench_collect.py                      # this checkout
    python benchmarks/bench_collect.py --before e108179     # and a git revision, same run

Each version is collected by the shared environment's Python (its site-packages bytecode as
``pip`` installed it) from a fresh copy of its source tree (no ``__pycache__``, no pytest
rewrite cache; the revision is checked out with ``git worktree add`` first), in three states:

* *cold, no bytecode written* (``PYTHONDONTWRITEBYTECODE=1``, this machine's environment): every
  evstat module compiled and every test module's asserts rewritten by pytest, on every run;
* *first run* (bytecode writing on): the first run after a clean checkout, which writes
  ``__pycache__`` (evstat's and the test modules' rewritten bytecode) into the copy;
* *warm*: the same again, every cache hit (a developer's second run).

Earlier versions of this script measured "cold" with an empty ``PYTHONPYCACHEPREFIX``, which
also recompiled numpy, pandas, scipy and scikit-learn from source: not a state a user meets.
Printed: wall and CPU (user + sys) seconds, the number of tests, the ten slowest modules of the
cold run (a small pytest plugin times each module's collection; the first module to import a
heavy library carries that import), a baseline ``python -c "import pandas"`` and the load, and
a table for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from _bench import REPO, load, revision, run

PLUGIN = '''
import os, time
_t = {}
def pytest_collectstart(collector):
    _t[collector.nodeid] = time.perf_counter()
def pytest_collectreport(report):
    t0 = _t.get(report.nodeid)
    if t0 is not None and report.nodeid.endswith(".py"):
        _t[report.nodeid] = -(time.perf_counter() - t0)
def pytest_collection_finish(session):
    rows = sorted(((-v, k) for k, v in _t.items() if k.endswith(".py") and v < 0), reverse=True)
    with open(os.environ["EVSTAT_COLLECT_TIMES"], "w") as fh:
        for v, k in rows:
            fh.write(f"{v:.3f} {k}\\n")
'''


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", metavar="REV", help="also collect this git revision")
    args = ap.parse_args(argv)
    start = load()
    print(f"load average at start: {start}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="evstat-collect-"))
    (tmp / "collect_times.py").write_text(PLUGIN)
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    w, c, _ = run([sys.executable, "-c", "import pandas"], base, str(tmp))
    baseline = f"{w:.2f} ({c:.2f})"
    print(f"baseline python -c 'import pandas': {w:.2f} s wall, {c:.2f} s cpu", flush=True)
    rows: dict[str, dict[str, str]] = {}
    skip = shutil.ignore_patterns(".git", "__pycache__", ".hypothesis", ".mypy_cache", "_build", ".pytest_cache")
    with revision(args.before, tmp) as before:
        versions = ([("before", before)] if before is not None else []) + [("after", REPO)]
        for name, src in versions:
            tree = tmp / f"src-{name}"
            shutil.copytree(src, tree, ignore=skip)  # a clean checkout: no bytecode of its own
            times = tmp / f"times-{name}.txt"
            env = {**base, "PYTHONPATH": os.pathsep.join([str(tree), str(tmp)]), "EVSTAT_COLLECT_TIMES": str(times)}
            for state, extra in (("cold", {"PYTHONDONTWRITEBYTECODE": "1"}), ("first", {}), ("warm", {})):
                w, c, out = run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "collect_times",
                                 "-p", "no:cacheprovider"], {**env, **extra}, str(tree), ok=(0, 5))
                summary = [ln for ln in out.splitlines() if "collected" in ln or "tests" in ln][-1:]
                print(f"[{name}, {state}] pytest --collect-only: {w:.2f} s wall, {c:.2f} s cpu; {' '.join(summary)}",
                      flush=True)
                rows.setdefault(state, {})[name] = f"{w:.2f} ({c:.2f})"
                rows.setdefault("tests", {})[name] = summary[0].split(" in ")[0] if summary else "?"
                if state == "cold":
                    for line in times.read_text().splitlines()[:10]:
                        print(f"    {line}")
    shutil.rmtree(tmp, ignore_errors=True)
    end = load()
    print(f"load average at end: {end}")
    names = [n for n in ("after", "before") if n in rows["warm"]]
    print(f"\n| wall (CPU) s, load {start} -> {end} | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    print("| `python -c \"import pandas\"` (baseline) | " + " | ".join(baseline for _ in names) + " |")
    for state, label in (("cold", "`pytest --collect-only -q`, cold (`PYTHONDONTWRITEBYTECODE=1`)"),
                         ("first", "the same, first run after a clean checkout (writes bytecode)"),
                         ("warm", "the same, second run (bytecode cached)")):
        print(f"| {label} | " + " | ".join(rows[state][n] for n in names) + " |")
    print("| tests collected | " + " | ".join(rows["tests"][n] for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
