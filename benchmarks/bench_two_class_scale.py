"""The two-class path at scale (issue 36, item 6): evlogit's million-row belief prediction from
the command line, and its fit and point prediction against statsmodels and scikit-learn.

::

    python benchmarks/bench_two_class_scale.py                               # this checkout
    python benchmarks/bench_two_class_scale.py --before /tmp/base563 --rounds 3   # and a source tree, alternated

* ``million``: 1,000,000 test rows through ``python -m evstat predict fit.json --data
  test.parquet -o out.parquet --type belief --quiet`` (every core, the default ``--jobs -1``;
  chunks of 100,000 rows), the model an evlogit fit on n = 1000 calibration rows with J = 3
  scores (``bench_evlogit.make_data``, seed 2026; test rows N(0, 1), seed 7): wall and CPU
  seconds of the whole process tree, its peak memory (the sum of the processes' proportional
  set sizes, sampled every second with psutil, and the largest single resident set), and
  Bel/Pl compared row by row with the ``--before`` tree's output.
* ``fit``: 100,000 calibration and 100,000 test rows (``make_data``, seed 2026), in one
  interpreter per version: ``ev.evlogit("y ~ svm1 + svm2 + svm3", cal)`` against statsmodels'
  ``smf.glm(same formula, cal, family=Binomial()).fit()`` and scikit-learn's
  ``LogisticRegression().fit(cal[scores], cal.y)`` (its defaults), the three alternated, median
  of ``--fit-reps``; ``fit.predict(test, type="prob")`` against ``predict_proba`` on the same
  DataFrame of the three scores, and both on the 2-D array of the scores (median of
  ``--predict-reps``); the coefficients against statsmodels' GLM on the same targets (Platt's,
  and the 0/1 labels with ``targets="binary"``).

Each version runs with its source first on ``PYTHONPATH`` and the compiled kernels
(``EVSTAT_KERNELS=numba``, numba's cache warmed by an untimed run of each command first). With
``--before`` the versions alternate, ``--rounds`` times; every figure is the median over the
rounds; the load average is printed before and after each command.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from _bench import REPO, load

FORMULA = "y ~ svm1 + svm2 + svm3"

MAKE = """
import sys
sys.path.insert(0, {bench!r})
import numpy as np, pandas as pd
import evstat as ev
from bench_evlogit import make_data
cal, _ = make_data(1000, 0)
ev.evlogit({formula!r}, data=cal).save({model!r})
rng = np.random.default_rng(7)
pd.DataFrame(rng.normal(size=({rows}, 3)), columns=["svm1", "svm2", "svm3"]).to_parquet({data!r})
"""

FIT = """
import json, sys, time, warnings
sys.path.insert(0, {bench!r})
import numpy as np
import evstat as ev
import statsmodels.api as sm
import statsmodels.formula.api as smf
from sklearn.linear_model import LogisticRegression
from bench_evlogit import make_data

warnings.simplefilter("ignore")
cal, test = make_data({n}, {n}, seed=2026)
scores = ["svm1", "svm2", "svm3"]
f = {formula!r}
fits = {{
    "evlogit": lambda: ev.evlogit(f, cal),
    "statsmodels_glm": lambda: smf.glm(f, cal, family=sm.families.Binomial()).fit(),
    "sklearn_lr": lambda: LogisticRegression().fit(cal[scores], cal["y"]),
}}
out = {{}}
for fn in fits.values():
    fn()  # warm-up
times = {{k: [] for k in fits}}
for _ in range({fit_reps}):
    for k, fn in fits.items():
        t0 = time.perf_counter()
        fn()
        times[k].append(time.perf_counter() - t0)
out.update({{f"fit_{{k}}": float(np.median(v)) for k, v in times.items()}})
fit = ev.evlogit(f, cal)
lr = LogisticRegression().fit(cal[scores], cal["y"])
lr_arr = LogisticRegression().fit(cal[scores].to_numpy(), cal["y"])
frame, arr = test[scores], test[scores].to_numpy()
preds = {{
    "prob_evstat_frame": lambda: fit.predict(frame, type="prob"),
    "proba_sklearn_frame": lambda: lr.predict_proba(frame),
    "prob_evstat_array": lambda: fit.predict(arr, type="prob"),
    "proba_sklearn_array": lambda: lr_arr.predict_proba(arr),
}}
times = {{k: [] for k in preds}}
for _ in range({predict_reps}):
    for k, fn in preds.items():
        t0 = time.perf_counter()
        fn()
        times[k].append(time.perf_counter() - t0)
out.update({{k: float(np.median(v)) for k, v in times.items()}})
for targets in ("platt", "binary"):
    e = ev.evlogit(f, cal, targets=targets)
    g = smf.glm(f, cal.assign(y=e.t), family=sm.families.Binomial()).fit()
    out[f"coef_rel_{{targets}}"] = float(np.max(np.abs(e.params.to_numpy() / g.params.to_numpy() - 1.0)))
same = np.array_equal(fit.predict(frame, type="prob").to_numpy(), fit.predict(arr, type="prob").to_numpy())
out["prob_frame_equals_array"] = bool(same)
out["prob"] = fit.predict(frame.iloc[:1000], type="prob").to_numpy().tolist()
out["params"] = fit.params.to_numpy().tolist()
print(json.dumps(out))
"""


def _env(src: Path) -> dict[str, str]:
    # the children run in a temporary directory: Python puts the working directory first on
    # sys.path (before PYTHONPATH), so run from this checkout they would import its evstat
    env = {**os.environ, "PYTHONPATH": str(src), "EVSTAT_KERNELS": "numba"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _which(src: Path, cwd: Path) -> str:
    """The evstat a child imports (checked: the source tree asked for)."""
    p = subprocess.run([sys.executable, "-c", "import evstat; print(evstat.__file__)"], env=_env(src),
                       capture_output=True, text=True, cwd=cwd, check=True)
    path = p.stdout.strip()
    if not Path(path).resolve().is_relative_to(src.resolve()):
        raise SystemExit(f"{src}: the child imports {path}")
    return path


def _tree(proc) -> tuple[float, float]:
    """PSS sum and largest RSS (MB) of a process and its descendants."""
    pss, rss = 0, 0
    for q in [proc, *proc.children(recursive=True)]:
        try:
            info = q.memory_full_info()
        except Exception:  # a worker that just exited
            continue
        pss += getattr(info, "pss", info.rss)
        rss = max(rss, info.rss)
    return pss / 2**20, rss / 2**20


def timed_tree(cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    """Wall and CPU seconds (the whole tree: children reaped by the command count) and the
    peak memory of a command."""
    import psutil

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = [0.0, 0.0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    ps = psutil.Process(proc.pid)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(1.0):
            pss, rss = _tree(ps)
            peak[0], peak[1] = max(peak[0], pss), max(peak[1], rss)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    th.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out[-2000:]}\n{err[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "pss_mb": peak[0], "rss_max_mb": max(peak[1], after.ru_maxrss / 1024.0)}


def million(versions: dict[str, Path], rounds: int, rows: int, tmp: Path) -> dict[str, list[dict[str, float]]]:
    model, data = tmp / "fit.json", tmp / "test.parquet"
    code = MAKE.format(bench=str(REPO / "benchmarks"), formula=FORMULA, model=str(model), data=str(data), rows=rows)
    subprocess.run([sys.executable, "-c", code], env=_env(versions["after"]), check=True, cwd=tmp)
    res: dict[str, list[dict[str, float]]] = {v: [] for v in versions}

    def cmd(v: str) -> list[str]:
        return [sys.executable, "-m", "evstat", "predict", str(model), "--data", str(data), "-o",
                str(tmp / f"out-{v}.parquet"), "--type", "belief", "--quiet"]

    for v, src in versions.items():  # untimed: bytecode, numba's cache
        print(f"{v}: {_which(src, tmp)}", flush=True)
        subprocess.run(cmd(v), env=_env(src), check=True, capture_output=True, cwd=tmp)
    for r in range(rounds):
        for v, src in versions.items():
            l0 = load()
            m = timed_tree(cmd(v), _env(src), tmp)
            m["load"] = f"{l0} -> {load()}"  # type: ignore[assignment]
            res[v].append(m)
            print(f"million, round {r + 1}, {v}: wall {m['wall']:.1f} s, CPU {m['cpu']:.1f} s, peak PSS sum "
                  f"{m['pss_mb']:.0f} MB, largest RSS {m['rss_max_mb']:.0f} MB (load {m['load']})", flush=True)
    if "before" in versions:
        import numpy as np
        import pandas as pd

        a = pd.read_parquet(tmp / "out-after.parquet")
        b = pd.read_parquet(tmp / "out-before.parquet")
        for c in ("theta", "bel", "pl"):
            d = np.abs(a[c].to_numpy() - b[c].to_numpy())
            print(f"after vs before, {c}: max |diff| {d.max():.3g}, rows bit-identical {int(np.sum(d == 0)):,} of {len(d):,}")
    return res


def fit_part(versions: dict[str, Path], rounds: int, n: int, fit_reps: int, predict_reps: int) -> dict[str, list[dict]]:
    code = FIT.format(bench=str(REPO / "benchmarks"), formula=FORMULA, n=n, fit_reps=fit_reps, predict_reps=predict_reps)
    res: dict[str, list[dict]] = {v: [] for v in versions}
    with tempfile.TemporaryDirectory() as d:
        for v, src in versions.items():
            print(f"{v}: {_which(src, Path(d))}", flush=True)
    for r in range(rounds):
        for v, src in versions.items():
            l0 = load()
            with tempfile.TemporaryDirectory() as d:  # not this checkout: "" heads sys.path
                p = subprocess.run([sys.executable, "-c", code], env=_env(src), capture_output=True, text=True, cwd=d)
            if p.returncode != 0:
                raise SystemExit(p.stderr[-3000:])
            out = json.loads(p.stdout.strip().splitlines()[-1])
            out["load"] = f"{l0} -> {load()}"
            res[v].append(out)
            print(f"fit, round {r + 1}, {v}: " + ", ".join(
                f"{k} {1e3 * x:.2f} ms" for k, x in out.items() if isinstance(x, float) and not k.startswith("coef")
            ) + f"; coefficients vs statsmodels (Platt, binary): {out['coef_rel_platt']:.1e}, "
                f"{out['coef_rel_binary']:.1e} (load {out['load']})", flush=True)
    if "before" in versions:
        import numpy as np

        a, b = res["after"][0], res["before"][0]
        print(f"after vs before: params max |rel diff| "
              f"{np.max(np.abs(np.array(a['params']) / np.array(b['params']) - 1)):.3g}, prob (1000 rows) max |diff| "
              f"{np.max(np.abs(np.array(a['prob']) - np.array(b['prob']))):.3g}")
    return res


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, default=None, help="a source tree (e.g. a clean clone at a commit)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--part", choices=("all", "million", "fit"), default="all")
    ap.add_argument("--rows", type=int, default=1_000_000, help="test rows of the million part")
    ap.add_argument("--n", type=int, default=100_000, help="calibration and test rows of the fit part")
    ap.add_argument("--fit-reps", type=int, default=7)
    ap.add_argument("--predict-reps", type=int, default=51)
    args = ap.parse_args(argv)
    versions = {"after": REPO}
    if args.before is not None:
        versions = {"before": args.before.resolve(), "after": REPO}
    print(f"load average at the start: {load()}; {os.cpu_count()} processors", flush=True)
    if args.part in ("all", "million"):
        with tempfile.TemporaryDirectory() as d:
            res = million(versions, args.rounds, args.rows, Path(d))
        print("\n| version | wall s | CPU s (process tree) | peak PSS sum MB | largest RSS MB |\n|---|---|---|---|---|")
        for v, rows in res.items():
            print(f"| {v} | {_median(rows, 'wall'):.1f} | {_median(rows, 'cpu'):.1f} | {_median(rows, 'pss_mb'):.0f} "
                  f"| {_median(rows, 'rss_max_mb'):.0f} |")
    if args.part in ("all", "fit"):
        res2 = fit_part(versions, args.rounds, args.n, args.fit_reps, args.predict_reps)
        print("\n| version | evlogit fit ms | statsmodels GLM ms | sklearn LR ms | evlogit / GLM | evlogit / LR "
              "| predict prob ms (frame) | predict_proba ms (frame) | ratio | predict prob ms (array) "
              "| predict_proba ms (array) | ratio |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
        for v, rows in res2.items():
            m = {k: _median(rows, k) for k in rows[0] if isinstance(rows[0][k], float)}
            print(f"| {v} | {1e3 * m['fit_evlogit']:.1f} | {1e3 * m['fit_statsmodels_glm']:.1f} "
                  f"| {1e3 * m['fit_sklearn_lr']:.1f} | {m['fit_evlogit'] / m['fit_statsmodels_glm']:.2f} "
                  f"| {m['fit_evlogit'] / m['fit_sklearn_lr']:.2f} | {1e3 * m['prob_evstat_frame']:.2f} "
                  f"| {1e3 * m['proba_sklearn_frame']:.2f} | {m['prob_evstat_frame'] / m['proba_sklearn_frame']:.2f} "
                  f"| {1e3 * m['prob_evstat_array']:.2f} | {1e3 * m['proba_sklearn_array']:.2f} "
                  f"| {m['prob_evstat_array'] / m['proba_sklearn_array']:.2f} |")
    print(f"load average at the end: {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
