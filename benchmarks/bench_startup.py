"""Start-up benchmark (issue 26): import, help, first prediction and first report, each in a
fresh virtual environment that this script creates and fills with ``pip install <repo>``.

::

    python benchmarks/bench_startup.py                       # this checkout
    python benchmarks/bench_startup.py --before e108179      # and a git revision, same run
    python benchmarks/bench_startup.py --quick               # no report measurement
    python benchmarks/bench_startup.py --dry-run --before e108179   # check the fresh-venv path only
    python benchmarks/bench_startup.py --python /work/venv/bin/python --before e108179
        # no new environments: each version's source first on PYTHONPATH of that interpreter
        # (numba's cache still empty per measurement; for a machine too loaded to pip install)

For each version (the checkout, "after"; optionally a git revision, "before", checked out with
``git worktree add`` into a temporary directory) it:

1. creates a virtual environment (``python -m venv``) in a temporary directory and runs ``pip
   install <version>`` (non-editable; pip may use its local wheel cache); the install time is
   printed on its own;
2. measures, each in a new interpreter of that environment, wall time and CPU time (user + sys
   of the child): ``import evstat``; ``evstat --help``; ``evstat report --help``; the first
   ``fit.predict(type="belief")`` of a script that imports evstat, loads the sonar scores, fits
   ``evlogit`` and predicts the 79 test rows (import included), with an empty numba cache
   (``NUMBA_CACHE_DIR`` set to a new empty directory: the state right after ``pip install``);
   the same script again once the cache is warm; the first ``evstat report --example sonar``
   with an empty numba cache;
3. a baseline in the same run: ``python -c "import pandas"`` in the same environment, so that
   ratios hold on a loaded machine.

Between measurements it waits until no background kernel compilation of evstat runs (in the
"after" version a first prediction starts one, see evstat/likelihood/_kernels.py) and reports
how long that compilation took. The load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _bench import REPO, load, revision, run

FIRST_PREDICT = """
import evstat as ev
table = ev.datasets.load("sonar_scores")
cal = table[table["set"] == "calibration"]
test = table[table["set"] == "test"]
fit = ev.evlogit("y ~ svm1 + svm2 + svm3", data=cal)
print(fit.predict(test, type="belief").shape)
"""


def _wait_for_background(cache: Path, started: float, limit: float = 1800.0) -> float | None:
    """Wait while a background kernel compilation holds its lock in ``cache``; return the
    seconds from ``started`` until the marker appeared (None if none was started)."""
    seen = False
    while time.time() - started < limit:
        locks = list(cache.glob("evstat-kernels-*.lock"))
        if locks:
            seen = True
            time.sleep(0.5)
            continue
        break
    markers = list(cache.glob("evstat-kernels-*.ok"))
    if markers:
        return markers[0].stat().st_mtime - started
    return None if not seen else float("nan")


def _venv(version_dir: Path, tmp: Path, name: str, dry_run: bool = False) -> tuple[Path, float]:
    env_dir = tmp / f"venv-{name}"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    py = env_dir / "bin" / "python"
    t0 = time.perf_counter()
    cmd = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(version_dir)]
    if dry_run:  # resolve and build the wheel, install nothing: prints what would be installed
        cmd[4:4] = ["--dry-run"]
        cmd.remove("-q")
    subprocess.run(cmd, check=True, cwd=tmp)
    return py, time.perf_counter() - t0


def _measure(py: Path, tmp: Path, name: str, reps: int, report: bool,
             src: Path | None = None) -> list[tuple[str, float, float, str]]:
    """Rows (what, wall, cpu, note) for one environment (``src``: put on PYTHONPATH instead)."""
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "EVSTAT_KERNELS", "NUMBA_CACHE_DIR")}
    base_env["MPLBACKEND"] = "Agg"
    if src is not None:
        base_env["PYTHONPATH"] = str(src)
    evstat_cmd = [str(py), "-m", "evstat"] if src is not None else [str(py.parent / "evstat")]
    rows = []
    work = tmp / f"work-{name}"
    work.mkdir()

    def fresh_cache(label: str) -> tuple[dict[str, str], Path]:
        cache = Path(tempfile.mkdtemp(prefix=f"numba-{label}-", dir=tmp))
        return {**base_env, "NUMBA_CACHE_DIR": str(cache)}, cache

    def repeat(what: str, cmd: list[str]) -> None:
        walls, cpus = [], []
        for _ in range(reps):
            w, c, _ = run(cmd, env=base_env, cwd=str(work))
            walls.append(w)
            cpus.append(c)
        rows.append((what, statistics.median(walls), statistics.median(cpus), f"median of {reps}"))

    repeat('python -c "import pandas" (baseline)', [str(py), "-c", "import pandas"])
    repeat("import evstat", [str(py), "-c", "import evstat"])
    repeat("evstat --help", [*evstat_cmd, "--help"])
    repeat("evstat report --help", [*evstat_cmd, "report", "--help"])

    env, cache = fresh_cache("predict")
    script = work / "first_predict.py"
    script.write_text(FIRST_PREDICT)
    started = time.time()
    w, c, out = run([str(py), str(script)], env=env, cwd=str(work))
    assert out.strip() == "(79, 3)", out
    rows.append(("first predict(type='belief'), import included, empty numba cache", w, c, "once"))
    compiled = _wait_for_background(cache, started)
    if compiled is not None:
        rows.append(("  background kernel compilation it started (until the marker)", compiled, float("nan"), "wall only"))
    w, c, _ = run([str(py), str(script)], env=env, cwd=str(work))
    rows.append(("the same script again (numba cache warm)", w, c, "once"))
    if report:
        env, cache = fresh_cache("report")
        started = time.time()
        w, c, out = run([*evstat_cmd, "report", "--example", "sonar", "-o", str(work / "r.html")],
                         env=env, cwd=str(work))
        rows.append(("first evstat report --example sonar, empty numba cache", w, c, "once"))
        compiled = _wait_for_background(cache, started)
        if compiled is not None:
            rows.append(("  background kernel compilation it started (until the marker)", compiled, float("nan"), "wall only"))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", metavar="REV", help="also measure this git revision (e.g. e108179)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of the cheap measurements (median)")
    ap.add_argument("--quick", action="store_true", help="skip the report measurement")
    ap.add_argument("--dry-run", action="store_true",
                    help="check the fresh-venv path only: create each environment and run 'pip install --dry-run' "
                         "(resolves the dependencies and builds the wheel), measure nothing")
    ap.add_argument("--python", metavar="PY", help="use this interpreter with each version's source on PYTHONPATH "
                                                    "instead of new virtual environments")
    args = ap.parse_args(argv)
    print(f"load average at start: {load()} ({os.cpu_count()} cores); python {sys.version.split()[0]}")
    tmp = Path(tempfile.mkdtemp(prefix="evstat-startup-"))
    results = {}
    try:
        with revision(args.before, tmp) as before:
            # after first: the numbers that matter most
            versions = [("after", REPO, "this checkout")]
            if before is not None:
                versions.append(("before", before, f"git revision {args.before}"))
            for name, src, label in versions:
                if args.python:
                    py = Path(args.python)
                    print(f"[{name}] {label}: {py} with PYTHONPATH={src} (load {load()})", flush=True)
                    results[name] = _measure(py, tmp, name, args.reps, not args.quick, src)
                elif args.dry_run:
                    py, install = _venv(src, tmp, name, dry_run=True)
                    print(f"[{name}] {label}: fresh venv {py.parent.parent}, pip install --dry-run took {install:.1f} s",
                          flush=True)
                    results[name] = []
                else:
                    py, install = _venv(src, tmp, name)
                    print(f"[{name}] {label}: fresh venv, pip install took {install:.1f} s (load {load()})", flush=True)
                    results[name] = _measure(py, tmp, name, args.reps, not args.quick)
                for what, w, c, note in results[name]:
                    print(f"  {what:<72} {w:7.2f} s wall  {c:7.2f} s cpu  ({note})", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    names = [n for n, _, _ in versions]
    print("| what | " + " | ".join(f"{n} wall (cpu) s" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    whats = list(dict.fromkeys(r[0] for n in names for r in results[n]))  # every row, in order
    for what in whats:
        cells = []
        for n in names:
            row = next((r for r in results[n] if r[0] == what), None)
            cells.append("-" if row is None else (f"{row[1]:.2f}" + ("" if row[2] != row[2] else f" ({row[2]:.2f})")))
        print(f"| {what.strip()} | " + " | ".join(cells) + " |")
    print(f"\nload average at end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
