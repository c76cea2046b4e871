"""Minary et al.'s sentences on B_M (5.2) and on r, kappa and the bins (5.3), by the rules committed
in README.md before this script (issue 40 item 3):

    OMP_NUM_THREADS=1 python reports/minary2019/sensitivity.py [rounds]    # from the repository root

The default-SVM ensemble protocol of ``evstat.experiments.minary2019.ensemble_round`` (the same
partitions, SVMs and scores as rounds 0..rounds-1 of ``svm-default``), with one method parameter
changed at a time: joint binning B_M = 2, 3, 4, 5 (and disjoint binning at B_U = 9), GBT r = 0.5,
1, 2, EkNN kappa = 5, 15, 30. Writes ``sensitivity_error_rates.csv`` and
``claims_fourth_pass.csv`` (the two claims), and prints them.
"""

from __future__ import annotations

import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from evstat.experiments import methods as mm
from evstat.experiments import minary2019 as mn
from evstat.experiments.claims import verdict

HERE = Path(__file__).resolve().parent
SEED = 2019
GRID = {"joint_binning": ("JOINT_BINS", (2, 3, 4, 5)), "gbt": ("GBT_RADIUS", (0.5, 1.0, 2.0)),
        "eknn": ("EKNN_K", (5, 15, 30))}
DEFAULT = {"JOINT_BINS": mm.JOINT_BINS, "GBT_RADIUS": mm.GBT_RADIUS, "EKNN_K": mm.EKNN_K}


def unit(dataset: str, round_: int) -> pd.DataFrame:
    X, y = mn.dataset_arrays(dataset, SEED)
    parts = mn.ensemble_partitions(y, mn.TABLE2[dataset], mn._rng(SEED, "ensemble", dataset, round_))
    first = parts[min(parts)]
    svm12 = [mn.fit_svm(X[first.svm[j]], y[first.svm[j]], "default") for j in (0, 1)]
    ties = mn.seed_sequence(SEED, "ties", dataset, round_)
    frames = []
    for t in sorted(parts):
        p = parts[t]
        models = [*svm12, mn.fit_svm(X[p.svm[2]], y[p.svm[2]], "default")]
        halves = [mn._scores(models, X, y, rows) for rows in p.cal]
        test = mn._scores(models, X, y, p.test)
        tseed = np.random.SeedSequence(ties.entropy, spawn_key=(*ties.spawn_key, int(t)))
        runs = [("disjoint_binning", "B_U", 9.0)]
        runs += [(m, const, v) for m, (const, values) in GRID.items() for v in values]
        for m, const, v in runs:
            if const in DEFAULT:
                setattr(mm, const, type(DEFAULT[const])(v))
            try:
                err = mm.method_errors(test["y"].to_numpy(), mm.predict_methods(halves, test, [m]), tie="random",
                                       seed=tseed)
            finally:
                for k, d in DEFAULT.items():
                    setattr(mm, k, d)
            err.insert(0, "round", int(round_))
            err.insert(1, "dataset", dataset)
            err.insert(2, "train3", int(t))
            err.insert(3, "parameter", const)
            err.insert(4, "value", float(v))
            frames.append(err)
    return pd.concat(frames, ignore_index=True)


def _cells(e: pd.DataFrame, method: str, a: float, b: float) -> tuple[int, int, int]:
    """Cells where method at value a has a lower error than at b (for) / higher (against), 2 se."""
    x = e[e["method"] == method].pivot_table(index=["dataset", "train3", "round"], columns="value", values="error_rate")
    d = (x[b] - x[a]).dropna().groupby(level=["dataset", "train3"])
    mean, se, n = d.mean(), d.std(ddof=1) / np.sqrt(d.count()), d.count()
    ok = n >= 10
    return int(((mean > 2 * se) & ok).sum()), int(((mean < -2 * se) & ok).sum()), int(len(mean))


def claims(e: pd.DataFrame) -> pd.DataFrame:
    rows = []
    # S5.2: B_M = 4 or 5 lower than B_M = 3
    words, parts = {}, []
    for bm in (4.0, 5.0):
        f, a, n = _cells(e, "joint_binning", bm, 3.0)
        words[bm] = verdict(f, a, n)
        parts.append(f"B_M = {bm:g} vs 3: {f} cells for, {a} against of {n} ({words[bm]})")
    order = ["supported", "mostly supported", "weakly supported", "mixed", "inconclusive", "contradicted", "no data"]
    best = min(words.values(), key=order.index)
    jb = e[e["method"] == "joint_binning"].groupby(["dataset", "train3", "value"])["error_rate"].mean()
    db = e[e["method"] == "disjoint_binning"].groupby(["dataset", "train3"])["error_rate"].mean()
    beats = {bm: int((jb.xs(bm, level="value") < db).sum()) for bm in (2.0, 3.0, 4.0, 5.0)}
    parts.append("cells where joint binning's mean error is below disjoint binning's (B_U = 9): "
                 + ", ".join(f"B_M = {k:g}: {v} of {len(db)}" for k, v in beats.items()))
    rows.append({"type": "finding", "claim": "S5.2 joint binning with a higher B_M than 3 has a lower error (the paper: 'with a higher value, the results might be better')",
                 "comparison": "joint binning at B_M = 4 and at B_M = 5 against B_M = 3 (paired by round, 29 (data set, Train3) cells); the better word",
                 "value": "; ".join(parts), "verdict": best})
    # S5.3: each method varies with its parameter in at least half of the cells
    relies, parts = {}, []
    for m, (const, values) in GRID.items():
        x = e[e["method"] == m].pivot_table(index=["dataset", "train3", "round"], columns="value", values="error_rate")
        varies = 0
        cells = x.groupby(level=["dataset", "train3"])
        for _, g in cells:
            hit = False
            for a, b in combinations(values, 2):
                d = (g[float(a)] - g[float(b)]).dropna()
                if len(d) >= 10 and abs(d.mean()) > 0.02 and abs(d.mean()) > 2 * d.std(ddof=1) / np.sqrt(len(d)):
                    hit = True
            varies += hit
        relies[m] = 2 * varies >= cells.ngroups
        means = x.mean()
        parts.append(f"{m} over {const} = {', '.join(f'{v:g}' for v in values)}: {varies} of {cells.ngroups} cells vary "
                     f"(mean error " + ", ".join(f"{means[float(v)]:.3f}" for v in values) + ")")
    n_rel = sum(relies.values())
    rows.append({"type": "finding", "claim": "S5.3 GBT, EkNN and joint binning results vary significantly with r, kappa and B_M",
                 "comparison": "per method, (data set, Train3) cells (29) whose largest difference between two settings' mean errors exceeds 0.02 and 2 paired se; a method relies on its parameter when at least half vary",
                 "value": "; ".join(parts),
                 "verdict": "supported" if n_rel == len(relies) else "contradicted" if n_rel == 0 else "mixed"})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    t0, c0 = time.time(), time.process_time()
    out = HERE / "sensitivity_error_rates.csv"
    done = pd.read_csv(out) if out.exists() else None
    frames = [] if done is None else [done]
    have = set() if done is None else set(zip(done["dataset"], done["round"]))
    for r in range(rounds):
        for d in mn.DATASETS:
            if (d, r) in have:
                continue
            frames.append(unit(d, r))
            pd.concat(frames, ignore_index=True).to_csv(out, index=False, float_format="%.6g")
        print(f"round {r} done, {time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU", flush=True)
    e = pd.concat(frames, ignore_index=True)
    e = e[e["round"] < rounds]
    cl = claims(e)
    cl.to_csv(HERE / "claims_fourth_pass.csv", index=False)
    print(cl.to_string())
    print(f"{time.time() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU")
