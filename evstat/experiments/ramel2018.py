"""Reproduction of Ramel, Pichon & Delmotte (2018), "Active evidential calibration of binary SVM
classifiers" (BELIEF 2018), section 3: :func:`run_ramel2018`.

**Experiment 1** (section 3.2, Fig. 1), :func:`experiment1`, file ``exp1_ignorance.csv``. A
classifier with binary output S in {0, 1}, calibrated by evidential binning with one cell per
output value (eq. 2 of 003); (S, Y) bivariate Bernoulli with P(S = 1) = P(Y = 1) = 1/2 and
covariance sigma, i.e. P(S = Y = 1) = P(S = Y = 0) = 1/4 + sigma and P(S != Y) = 1/4 - sigma each;
sigma on a grid of [-0.25, 0.25]. 10^6 samples per sigma; 1000 folds of 1000 test rows; for each
fold 10 initial calibration rows from the other 999,000, the rest the pool; up to 120 queries.

Everything a strategy sees is counts, so the study runs on counts (closed form, no row-level
simulation): the sample is a multinomial draw of the four (s, y) counts; a fold's test set, its
initial calibration set and hence its pool are multivariate hypergeometric draws from it (the
folds' marginal law; the paper's folds also partition one sample, which only correlates folds and
does not change the expected averages); a query picks a cell s by the strategy from the current
(k_s, n_s) and the label of a uniformly drawn pool row of that cell (its pool counts decrease).
The test ignorance after a query is sum_s T_s ign(k_s, n_s) / 1000, T_s the fold's test rows
with S = s and ign the closed-form Pl - Bel of the binomial contour
(:func:`evstat.likelihood.bernoulli.binomial_belief`; an empty cell is vacuous, ignorance 1).
All folds are advanced together as numpy vectors. The strategies:

* RS: a uniformly drawn pool row;
* HS: the cell of larger ignorance; when the two are equal (to 12 decimals), every pool row is
  tied and the row is uniform over the pool (the seeded tie rule of :func:`evstat.active.query`);
* PS: the cell of larger entropy of BetP, ties as HS;
* EIR (ours): the cell of larger expected reduction of the mean ignorance on the pool
  (:func:`evstat.active.query`, exact for binning);
* HS-batch10 (ours): batches of 10 rows chosen greedily by HS with the fit updated on the expected
  labels (:func:`evstat.active.query` with ``batch="greedy"``), then labelled.

All strategies of a fold share its test, initial and pool draws (common random numbers).

**Experiment 2** (section 3.3, Fig. 2), :func:`experiment2_unit`, file ``exp2_history.csv``. Per
data set and round: three SVMs (:func:`evstat.experiments.ensemble.train_svm`, as the reproduction
of Minary et al. 2019) on 20 rows each, 100 test rows (Sonar 50), 10 rows for the initial joint
evidential logistic calibration ``y ~ svm1 + svm2 + svm3``, the rest the pool; 20 queries with
each strategy (:func:`evstat.active.simulate`); mean test ignorance, Brier score of BetP and error
rate after every query. Blocks are stratified by class (:func:`evstat.experiments.partition.apportion`;
every block holds both classes), as in the Minary et al. reproduction; the paper does not say.
Strategies: RS, HS, PS, EIR (ours: refits for evlogit, prefiltered to the ``EIR_CANDIDATES``
rows of largest ignorance and measured on ``EIR_REFERENCE`` random pool rows) and HS-batch5 (ours:
4 greedy batches of 5).

Randomness: every unit (experiment, sigma or data set, round) draws from its own
``numpy.random.SeedSequence(seed, spawn_key=(part, index, round))``; results do not depend on the
number of jobs.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.experiments.store import Store, read_rows, read_settings, save_figure, study_folder
from evstat.io.atomic import atomic_path, open_append, write_text

__all__ = [
    "DATASETS",
    "EXP1_STRATEGIES",
    "EXP2_STRATEGIES",
    "binomial_ignorance_table",
    "experiment1",
    "experiment1_sigma",
    "experiment2_unit",
    "run_ramel2018",
    "write_figures",
]

DATASETS: tuple[str, ...] = ("australian", "heart", "ionosphere", "sonar", "wdbc", "pima")
"""Data sets of Fig. 2 (pima is the paper's Diabetes)."""
POSITIVE: dict[str, tuple[str, Any]] = {
    "australian": ("Class", 1),
    "heart": ("Class", "present"),
    "ionosphere": ("Class", "bad"),
    "sonar": ("Class", "M"),
    "wdbc": ("Class", "malignant"),
    "pima": ("diabetes", "pos"),
}
EXP1_STRATEGIES = ("RS", "HS", "PS", "EIR", "HS-batch10")
EXP2_STRATEGIES = ("RS", "HS", "PS", "EIR", "HS-batch5")
EXP1_SIGMAS: NDArray[np.float64] = np.round(np.linspace(-0.25, 0.25, 21), 4)
EXP1_SAMPLES = 10**6
EXP1_FOLDS = 1000
EXP1_FOLD_SIZE = 1000
EXP1_INITIAL = 10
EXP1_QUERIES = 120
EXP2_SVM = 20
EXP2_INITIAL = 10
EXP2_QUERIES = 20
EXP2_TEST = {"sonar": 50}
EXP2_TEST_DEFAULT = 100
EIR_CANDIDATES = 3
EIR_REFERENCE = 40
FORMULA = "y ~ svm1 + svm2 + svm3"
_PART = {"exp1": 0, "exp2": 1}
_ID = {name: i for i, name in enumerate(DATASETS)}
_STRAT = {"RS": ("random", 1), "HS": ("hartley", 1), "PS": ("pignistic", 1), "EIR": ("eir", 1),
          "HS-batch5": ("hartley", 5), "HS-batch10": ("hartley", 10)}


def _rng(seed: int, part: str, index: int, round_: int = 0) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(_PART[part], int(index), int(round_))))


# ----------------------------------------------------------------------------- experiment 1
@lru_cache(maxsize=4)
def binomial_ignorance_table(n_max: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(ign, betp)``, arrays (n_max + 1, n_max + 1) indexed [n, k]: Pl - Bel and BetP(1) of a
    cell with k positives among n calibration rows (k <= n; n = 0 vacuous: 1 and 1/2).

    Examples
    --------
    >>> ign, betp = binomial_ignorance_table(3)
    >>> round(float(ign[2, 1]), 6), float(betp[2, 1]), float(ign[0, 0])
    (0.666667, 0.5, 1.0)
    """
    from evstat.likelihood.bernoulli import binomial_belief

    n, k = np.meshgrid(np.arange(n_max + 1), np.arange(n_max + 1), indexing="ij")
    ok = k <= n
    _, bel, pl = binomial_belief(np.where(ok, k, 0).astype(float), n.astype(float))
    bel = np.where(n == 0, 0.0, bel)
    pl = np.where(n == 0, 1.0, pl)
    ign = np.where(ok, pl - bel, np.nan)
    betp = np.where(ok, 0.5 * (bel + pl), np.nan)
    return ign, betp


def _entropy(p: NDArray) -> NDArray:
    q = np.clip(p, 1e-300, 1 - 1e-16)
    return -(q * np.log2(q) + (1 - q) * np.log2(1 - q))


def _mvhyper(rng: np.random.Generator, colors: NDArray[np.int64], nsample: int) -> NDArray[np.int64]:
    """Multivariate hypergeometric draws, one per row of ``colors`` (F, 4)."""
    out = np.empty_like(colors)
    left = colors.sum(axis=1)
    need = np.full(colors.shape[0], nsample, dtype=np.int64)
    for c in range(colors.shape[1] - 1):
        rest = left - colors[:, c]
        x = rng.hypergeometric(colors[:, c], np.maximum(rest, 0), np.minimum(need, left))
        x = np.where(need > 0, x, 0)
        out[:, c] = x
        need = need - x
        left = rest
    out[:, -1] = need
    return out


def _choose_cell(crit0: NDArray, crit1: NDArray, pool: NDArray, u: NDArray) -> NDArray[np.intp]:
    """Cell 0/1 of larger criterion; ties (equal to 12 decimals, as :func:`evstat.active.query`)
    uniform over the pool rows (by pool counts)."""
    crit0, crit1 = np.round(crit0, 12), np.round(crit1, 12)
    p0 = pool[:, 0] + pool[:, 1]
    p1 = pool[:, 2] + pool[:, 3]
    tie_pick = np.where(u * (p0 + p1) < p0, 0, 1)
    cell = np.where(crit1 > crit0, 1, np.where(crit0 > crit1, 0, tie_pick))
    # a cell without pool rows cannot be queried
    cell = np.where((cell == 0) & (p0 == 0), 1, np.where((cell == 1) & (p1 == 0), 0, cell))
    return cell


def _label(rng: np.random.Generator, cell: NDArray, pool: NDArray) -> NDArray[np.int64]:
    """Draw the label of a uniform pool row of ``cell`` (pool columns: (s0,y0),(s0,y1),(s1,y0),(s1,y1))."""
    neg = np.where(cell == 0, pool[:, 0], pool[:, 2])
    pos = np.where(cell == 0, pool[:, 1], pool[:, 3])
    return (rng.random(cell.size) * (neg + pos) >= neg).astype(np.int64)


def experiment1_sigma(
    sigma: float, seed: int, folds: int = EXP1_FOLDS, queries: int = EXP1_QUERIES,
    samples: int = EXP1_SAMPLES, fold_size: int = EXP1_FOLD_SIZE, initial: int = EXP1_INITIAL,
    strategies: Sequence[str] = EXP1_STRATEGIES, index: int = 0, marginals: tuple[float, float] = (0.5, 0.5),
) -> pd.DataFrame:
    """Experiment 1 at one covariance ``sigma``: mean (over folds) test ignorance of every strategy
    after 0..queries queries, with its standard error over folds.

    ``marginals`` = (P(S=1), P(Y=1)), the paper's (0.5, 0.5) by default; the joint law is
    p(s, y) = P(S=s) P(Y=y) + sigma (s = y) or - sigma (s != y), sigma within the range that keeps
    every cell in [0, 1] (issue 40: the paper's "similar figures" with other marginals).

    Examples
    --------
    >>> df = experiment1_sigma(0.1, seed=1, folds=50, queries=5)
    >>> sorted(df["strategy"].unique()), int(df["queries"].max())
    (['EIR', 'HS', 'HS-batch10', 'PS', 'RS'], 5)
    """
    rng = _rng(seed, "exp1", index)
    ms, my = marginals  # P(S = 1), P(Y = 1)
    p = np.array([(1 - ms) * (1 - my) + sigma, (1 - ms) * my - sigma, ms * (1 - my) - sigma, ms * my + sigma])  # (s,y) = 00, 01, 10, 11
    p = np.clip(p, 0.0, 1.0)
    total = rng.multinomial(samples, p / p.sum())
    colors = np.tile(total, (folds, 1))
    test = _mvhyper(rng, colors, fold_size)
    rest = colors - test
    init = _mvhyper(rng, rest, initial)
    pool0 = rest - init
    t0 = (test[:, 0] + test[:, 1]).astype(float)
    t1 = (test[:, 2] + test[:, 3]).astype(float)
    nmax = initial + queries + max([int(s.split("batch")[1]) for s in strategies if "batch" in s] + [1]) + 1
    ign, betp = binomial_ignorance_table(nmax)
    rows = []
    for name in strategies:
        # one stream for every strategy (common random numbers): strategies that pick the same
        # cells draw the same labels
        srng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(_PART["exp1"], index, 1)))
        k = np.column_stack([init[:, 1], init[:, 3]]).astype(np.int64)
        n = np.column_stack([init[:, 0] + init[:, 1], init[:, 2] + init[:, 3]]).astype(np.int64)
        pool = pool0.copy()
        batch = int(name.split("batch")[1]) if "batch" in name else 1
        plan: list[NDArray] = []
        curve = np.empty((queries + 1, folds))
        curve[0] = (t0 * ign[n[:, 0], k[:, 0]] + t1 * ign[n[:, 1], k[:, 1]]) / fold_size
        ar = np.arange(folds)
        for q in range(1, queries + 1):
            if name == "RS":
                u = srng.random(folds) * pool.sum(axis=1)
                typ = (u[:, None] >= np.cumsum(pool, axis=1)).sum(axis=1)
                cell = typ // 2
                y = typ % 2
            else:
                if name in ("HS", "PS", "EIR"):
                    i0, i1 = ign[n[:, 0], k[:, 0]], ign[n[:, 1], k[:, 1]]
                    if name == "HS":
                        c0, c1 = i0, i1
                    elif name == "PS":
                        c0, c1 = _entropy(betp[n[:, 0], k[:, 0]]), _entropy(betp[n[:, 1], k[:, 1]])
                    else:
                        p0 = (pool[:, 0] + pool[:, 1]).astype(float)
                        p1 = (pool[:, 2] + pool[:, 3]).astype(float)
                        red = []
                        for s, ps, ii in ((0, p0, i0), (1, p1, i1)):
                            b = betp[n[:, s], k[:, s]]
                            after = b * ign[n[:, s] + 1, k[:, s] + 1] + (1 - b) * ign[n[:, s] + 1, k[:, s]]
                            red.append(ps * (ii - after))
                        c0, c1 = red
                    cell = _choose_cell(c0, c1, pool, srng.random(folds))
                else:  # greedy HS batch planned on expected labels
                    if (q - 1) % batch == 0:
                        hk, hn = k.copy(), n.copy()
                        hpool = pool  # ties by the current pool counts (10 rows of 10^6 move nothing)
                        plan = []
                        for _ in range(batch):
                            c = _choose_cell(ign[hn[:, 0], hk[:, 0]], ign[hn[:, 1], hk[:, 1]], hpool, srng.random(folds))
                            b = betp[hn[ar, c], hk[ar, c]]
                            ylab = np.where(b > 0.5, 1, np.where(b < 0.5, 0, (srng.random(folds) < 0.5).astype(int)))
                            hn[ar, c] += 1
                            hk[ar, c] += ylab
                            plan.append(c)
                    cell = plan[(q - 1) % batch]
                    p0 = pool[:, 0] + pool[:, 1]
                    p1 = pool[:, 2] + pool[:, 3]
                    cell = np.where((cell == 0) & (p0 == 0), 1, np.where((cell == 1) & (p1 == 0), 0, cell))
                y = _label(srng, cell, pool)
                typ = 2 * cell + y
            pool[ar, typ] -= 1
            n[ar, cell] += 1
            k[ar, cell] += y
            curve[q] = (t0 * ign[n[:, 0], k[:, 0]] + t1 * ign[n[:, 1], k[:, 1]]) / fold_size
        rows.append(pd.DataFrame({
            "sigma": float(sigma), "strategy": name, "queries": np.arange(queries + 1),
            "ignorance": curve.mean(axis=1), "se": curve.std(axis=1, ddof=1) / np.sqrt(folds),
            "folds": folds,
        }))
    return pd.concat(rows, ignore_index=True)


def experiment1(seed: int, sigmas: Sequence[float] = tuple(EXP1_SIGMAS), folds: int = EXP1_FOLDS,
                queries: int = EXP1_QUERIES, jobs: int = 1) -> pd.DataFrame:
    """Experiment 1 over the sigma grid (one unit per sigma; see the module docstring).

    Examples
    --------
    >>> experiment1(1, sigmas=[0.0, 0.2], folds=20, queries=3).shape
    (40, 6)
    """
    units = [(i, float(s)) for i, s in enumerate(sigmas)]
    if jobs == 1:
        parts = [experiment1_sigma(s, seed, folds, queries, index=i) for i, s in units]
    else:
        from joblib import Parallel, delayed

        from evstat.io.workers import guarded

        parts = Parallel(n_jobs=jobs)(delayed(guarded(experiment1_sigma))(s, seed, folds, queries, index=i) for i, s in units)
    return pd.concat(parts, ignore_index=True)


def relative_to_rs(curves: pd.DataFrame, value: str = "ignorance", by: Sequence[str] = ("sigma",)) -> pd.DataFrame:
    """Percentage change of every strategy's curve relative to RS: ``100 (x - x_RS) / x_RS``
    (negative = better than RS), as Fig. 1 (b, c) of 003.

    Examples
    --------
    >>> df = pd.DataFrame({"sigma": 0.0, "strategy": ["RS", "HS"], "queries": 1, "ignorance": [0.5, 0.4]})
    >>> relative_to_rs(df)["relative"].round(6).tolist()
    [-20.0]
    """
    keys = [*by, "queries"]
    rs = curves[curves["strategy"] == "RS"].set_index(keys)[value]
    other = curves[curves["strategy"] != "RS"].copy()
    base = rs.reindex(pd.MultiIndex.from_frame(other[keys])).to_numpy() if len(keys) > 1 else rs.reindex(other[keys[0]]).to_numpy()
    other["relative"] = 100.0 * (other[value].to_numpy() - base) / base
    return other[[*keys, "strategy", "relative"]].reset_index(drop=True)


# ----------------------------------------------------------------------------- experiment 2
@lru_cache(maxsize=8)
def dataset_arrays(name: str) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Features and 0/1 classes of a data set of Fig. 2 (positive classes in ``POSITIVE``).

    Examples
    --------
    >>> X, y = dataset_arrays("australian")
    >>> X.shape, int(y.sum())
    ((690, 14), 307)
    """
    import evstat.datasets as evd

    if name not in POSITIVE:
        raise ValueError(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")
    column, positive = POSITIVE[name]
    frame = evd.load(name)
    y = (frame[column].to_numpy() == positive).astype(np.int64)
    X = frame.drop(columns=[column]).to_numpy(dtype=float)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


@dataclass(frozen=True)
class ActivePartition:
    """Row indices of one round of Experiment 2: three SVM training sets, the test set, the
    initial calibration set and the pool."""

    svm: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
    test: NDArray[np.int64]
    initial: NDArray[np.int64]
    pool: NDArray[np.int64]


def active_partition(y: NDArray[np.int64], n_test: int, rng: np.random.Generator) -> ActivePartition:
    """Stratified partition of Experiment 2 (3 x ``EXP2_SVM`` SVM rows, ``n_test`` test rows,
    ``EXP2_INITIAL`` initial calibration rows, the rest the pool), every block with both classes.

    Examples
    --------
    >>> p = active_partition(dataset_arrays("sonar")[1], 50, np.random.default_rng(0))
    >>> [len(p.svm[0]), len(p.test), len(p.initial), len(p.pool)]
    [20, 50, 10, 88]
    """
    from evstat.experiments.partition import apportion, stratified_blocks

    n = y.size
    sizes = [EXP2_SVM, EXP2_SVM, EXP2_SVM, n_test, EXP2_INITIAL]
    sizes.append(n - sum(sizes))
    counts = apportion(sizes, int((y == 0).sum()), int((y == 1).sum()), both=[True] * len(sizes))
    blocks = stratified_blocks(y, counts, rng)
    return ActivePartition(svm=(blocks[0], blocks[1], blocks[2]), test=blocks[3], initial=blocks[4], pool=blocks[5])


def _evlogit(data: pd.DataFrame) -> Any:
    from evstat.calibration import evlogit

    return evlogit(FORMULA, data)


def experiment2_unit(dataset: str, round_: int, seed: int, queries: int = EXP2_QUERIES,
                     strategies: Sequence[str] = EXP2_STRATEGIES) -> pd.DataFrame:
    """One round of Experiment 2 on one data set: the history of every strategy (rows of
    ``exp2_history.csv``).

    Examples
    --------
    >>> h = experiment2_unit("sonar", 0, 2018, queries=2, strategies=["RS"])
    >>> h[["strategy", "queries", "n_labelled"]].values.tolist()
    [['RS', 0, 10], ['RS', 1, 11], ['RS', 2, 12]]
    """
    from evstat.active import simulate
    from evstat.experiments.ensemble import score_table, train_svm

    X, y = dataset_arrays(dataset)
    rng = _rng(seed, "exp2", _ID[dataset], round_)
    part = active_partition(y, EXP2_TEST.get(dataset, EXP2_TEST_DEFAULT), rng)
    models = [train_svm(X[r], y[r]) for r in part.svm]

    def scores(rows: NDArray) -> pd.DataFrame:
        return score_table(np.column_stack([m.decision_function(X[rows]) for m in models]), y[rows], rows)

    test, initial, pool = scores(part.test), scores(part.initial), scores(part.pool)
    start = _evlogit(initial)  # refitted by evstat.active.update's rule (the array path of evlogit)
    frames = []
    for name in strategies:
        strategy, batch = _STRAT[name]
        sseed = np.random.SeedSequence(int(seed), spawn_key=(_PART["exp2"], _ID[dataset], int(round_), 1 + EXP2_STRATEGIES.index(name)))
        t0 = time.perf_counter()
        h = simulate(start, initial, pool, oracle="y", strategy=strategy, queries=queries // batch,
                     test=test, n=batch, seed=int(sseed.generate_state(1)[0]),
                     candidates=EIR_CANDIDATES, reference=EIR_REFERENCE)
        h["seconds"] = time.perf_counter() - t0
        h["strategy"] = name
        h["queries"] = h["n_labelled"] - len(initial)
        frames.append(h)
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "round", int(round_))
    out.insert(1, "dataset", dataset)
    out["n_test"] = len(test)
    out["n_pool"] = len(pool)
    return out[["round", "dataset", "strategy", "queries", "n_labelled", "ignorance", "brier", "error",
                "n_test", "n_pool", "seconds"]]


# ----------------------------------------------------------------------------- the study
#: columns of exp1_ignorance.csv and exp2_history.csv, their unit keys and numeric columns (the
#: resumable store checks them: evstat.experiments.store)
EXP1_COLUMNS = ["sigma", "strategy", "queries", "ignorance", "se", "folds"]
EXP1_KEY = ["sigma", "strategy", "queries"]
EXP1_NUMERIC = ["sigma", "queries", "ignorance", "se", "folds"]
EXP2_COLUMNS = ["round", "dataset", "strategy", "queries", "n_labelled", "ignorance", "brier", "error", "n_test",
                "n_pool", "seconds"]
EXP2_NUMERIC = [c for c in EXP2_COLUMNS if c not in ("dataset", "strategy")]
FILES = {"exp1": "exp1_ignorance.csv", "exp1_rel": "exp1_relative.csv", "exp2": "exp2_history.csv",
         "exp2_summary": "exp2_summary.csv", "claims": "claims.csv", "settings": "settings.json"}


def _read_done(path: Path) -> pd.DataFrame | None:
    """A finished CSV file of the study (``None`` if absent or unreadable), for the figures."""
    if not path.exists():
        return None
    try:
        return pd.read_csv(path)
    except (pd.errors.EmptyDataError, pd.errors.ParserError):
        return None


def exp2_summary(history: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error over rounds of ignorance, Brier score and error per data set,
    strategy and number of queries, and the average over data sets (``dataset = "all"``: the
    per-data-set means averaged, as 003 averages "over the rounds and then over the 6 datasets").

    Examples
    --------
    >>> h = pd.DataFrame({"round": [0, 1], "dataset": "sonar", "strategy": "RS", "queries": 0,
    ...                   "ignorance": [0.4, 0.6], "brier": 0.2, "error": 0.1})
    >>> exp2_summary(h)[["dataset", "ignorance", "ignorance_se"]].round(3).values.tolist()
    [['sonar', 0.5, 0.1], ['all', 0.5, nan]]
    """
    g = history.groupby(["dataset", "strategy", "queries"])
    per = g[["ignorance", "brier", "error"]].mean()
    se = g[["ignorance", "brier", "error"]].sem().add_suffix("_se")
    per = per.join(se).join(g.size().rename("rounds")).reset_index()
    overall = per.groupby(["strategy", "queries"])[["ignorance", "brier", "error"]].mean().reset_index()
    overall["dataset"] = "all"
    overall["rounds"] = per.groupby(["strategy", "queries"])["rounds"].min().to_numpy()
    return pd.concat([per, overall], ignore_index=True)[
        ["dataset", "strategy", "queries", "rounds", "ignorance", "ignorance_se", "brier", "brier_se", "error", "error_se"]]


def _paired(history: pd.DataFrame, a: str, b: str, value: str, queries: Sequence[int] | None = None) -> pd.Series:
    """Per (dataset, round, queries >= 1) difference a - b."""
    h = history[history["queries"] > 0] if queries is None else history[history["queries"].isin(queries)]
    w = h.pivot_table(index=["dataset", "round", "queries"], columns="strategy", values=value)
    return (w[a] - w[b]).dropna()


def _verdict(mean: float, se: float, want_negative: bool = True) -> str:
    if not np.isfinite(se) or se == 0:
        return "not resolved (fewer than 2 rounds)" if not np.isfinite(se) else ("supported" if mean < 0 else "contradicted" if mean > 0 else "not resolved")
    z = mean / se if se > 0 else (np.inf if mean > 0 else -np.inf if mean < 0 else 0.0)
    good = z < -2 if want_negative else z > 2
    bad = z > 2 if want_negative else z < -2
    return "supported" if good else "contradicted" if bad else "not resolved"


def claims(exp1: pd.DataFrame, history: pd.DataFrame | None) -> pd.DataFrame:
    """The paper's findings tested on the data, one row each: ``kind`` is ``finding`` (a claim
    of 003 or a question of the issue) or ``sanity`` (holds by construction), with ours beside the
    paper's statement and a verdict computed from the numbers (rules in the ``rule`` column).

    Examples
    --------
    >>> e1 = experiment1(1, sigmas=[-0.25, 0.0, 0.25], folds=40, queries=120)
    >>> sorted(claims(e1, None)["kind"].unique())
    ['finding', 'sanity']
    """
    rel = relative_to_rs(exp1)
    w = rel.pivot_table(index=["sigma", "queries"], columns="strategy", values="relative")
    sig = w.index.get_level_values("sigma")
    q = w.index.get_level_values("queries")
    rows: list[dict[str, Any]] = []

    def add(kind: str, claim: str, paper: str, ours: str, verdict: str, rule: str) -> None:
        rows.append({"experiment": "1" if claim.startswith("E1") else "2", "kind": kind, "claim": claim,
                     "paper": paper, "ours": ours, "verdict": verdict, "rule": rule})

    body = (q >= 1)
    hs_best = float(w.loc[body, "HS"].min())
    hs_worst = float(w.loc[body, "HS"].max())
    add("finding", "E1.1 HS better than RS overall, up to 12%", "HS performs globally better than RS (up to 12% better)",
        f"HS vs RS from {hs_best:.1f}% to {hs_worst:+.1f}%; {100 * float((w.loc[body, 'HS'] < 0).mean()):.0f}% of (sigma, queries) cells below 0",
        "supported" if hs_worst <= 0.5 and -15 <= hs_best <= -9 else "partly supported" if hs_worst <= 0.5 else "contradicted",
        "supported if HS is never more than 0.5% worse than RS and its best gain is 9-15%")
    near0 = (np.abs(sig) <= 0.025) & (q == q.max())
    v0 = float(np.abs(w.loc[near0, "HS"]).max())
    add("finding", "E1.2 HS equivalent to RS near sigma = 0 with many queries", "it becomes equivalent to RS when sigma gets closer to 0 and the number of queries increases",
        f"|HS vs RS| <= {v0:.2f}% at |sigma| <= 0.025 after {int(q.max())} queries (vs {float(np.abs(w.loc[(np.abs(sig) <= 0.025) & (q == 10), 'HS']).min()):.1f}%+ after 10)",
        "supported" if v0 < 2 else "contradicted", "supported if below 2% in absolute value")
    ends = (np.abs(sig) >= 0.25 - 1e-9) & (q >= 30)
    ve = float(np.abs(w.loc[ends, "HS"]).max())
    add("finding", "E1.3 HS equivalent to RS near sigma = +-0.25", "as well as when sigma gets closer to -0.25 and 0.25",
        f"|HS vs RS| <= {ve:.2f}% at sigma = +-0.25 after 30+ queries (at |sigma| = 0.225 up to {float(-w.loc[(np.abs(np.abs(sig) - 0.225) < 1e-9) & body, 'HS'].min()):.1f}% better)",
        "supported" if ve < 2 else "partly supported" if ve < 5 else "contradicted",
        "supported if below 2% in absolute value after 30 queries, partly if below 5%")
    ps_gain = float(w.loc[body, "PS"].min())
    zone = body & (q <= 10)
    add("finding", "E1.4 PS beneficial where HS is, slightly less", "PS is beneficial with respect to RS for roughly the same zones as HS, albeit to a slightly lesser extent",
        f"PS best gain {ps_gain:.1f}% (HS {hs_best:.1f}%); in the first 10 queries PS below RS in {100 * float((w.loc[zone, 'PS'] < 0).mean()):.0f}% of cells, HS in {100 * float((w.loc[zone, 'HS'] < 0).mean()):.0f}%",
        "supported" if ps_gain < 0 and ps_gain > hs_best else "contradicted", "supported if PS gains somewhere but less than HS at best")
    ps_worst = float(w.loc[body, "PS"].max())
    at = w.loc[body, "PS"].idxmax()
    add("finding", "E1.5 PS up to 55% worse near sigma = 0 as queries grow", "clearly detrimental (up to 55% worse) as the number of queries increases and as we get closer to sigma = 0",
        f"PS worst {ps_worst:+.1f}% at sigma = {at[0]:g}, {int(at[1])} queries",
        "supported" if 45 <= ps_worst <= 65 and abs(at[0]) <= 0.05 and at[1] >= 100 else "partly supported" if ps_worst > 20 else "contradicted",
        "supported if the worst PS loss is 45-65% at |sigma| <= 0.05 after 100+ queries")
    for name in ("EIR", "HS-batch10"):
        d = w.loc[body, name] - w.loc[body, "HS"]
        add("finding", f"E1.6 {name} (ours) vs HS", "not in the paper",
            f"{name} minus HS (points of % vs RS): mean {float(d.mean()):+.2f}, range {float(d.min()):+.2f} to {float(d.max()):+.2f}; below HS in {100 * float((d < -0.05).mean()):.0f}% of cells",
            "beats HS" if float(d.mean()) < -0.05 and float((d > 0.05).mean()) < 0.1 else "does not beat HS",
            "beats HS if lower on average and more than 0.05 points worse in under 10% of cells")
    start = exp1[exp1["queries"] == 0].groupby("sigma")["ignorance"].agg(lambda s: s.max() - s.min())
    add("sanity", "E1.S1 all strategies start from the same folds", "-", f"max spread at 0 queries {float(start.max()):.2g}",
        "holds" if float(start.max()) == 0 else "fails", "common random numbers: identical by construction")
    ends_eq = (w.loc[(np.abs(sig) >= 0.25 - 1e-9) & body, "HS"] - w.loc[(np.abs(sig) >= 0.25 - 1e-9) & body, "PS"]).abs().max()
    add("sanity", "E1.S2 at sigma = +-0.25 HS and PS pick the same cells", "-", f"max |HS - PS| {float(ends_eq):.2g} points of %",
        "holds" if float(ends_eq) < 1e-9 else "fails", "with S = Y (or 1 - Y) every cell is pure: ignorance and BetP entropy order the cells alike, and the strategies share their random stream")
    if history is not None and len(history):
        hist = history
        for a, b, val, paper, cl in (
            ("HS", "PS", "ignorance", "HS is better than PS to improve uncertainty", "E2.1 HS reduces ignorance more than PS"),
            ("PS", "RS", "ignorance", "this time PS is always better uncertaintywise than RS", "E2.2 PS reduces ignorance more than RS"),
            ("HS", "RS", "ignorance", "(HS fastest)", "E2.3 HS reduces ignorance more than RS"),
            ("HS", "PS", "brier", "HS is better with respect to the Brier score than PS", "E2.4 HS better than PS on the Brier score"),
            ("PS", "RS", "brier", "PS ... in turn improves upon RS", "E2.5 PS better than RS on the Brier score"),
            ("EIR", "HS", "ignorance", "not in the paper", "E2.6 EIR (ours) vs HS, ignorance"),
            ("HS-batch5", "HS", "ignorance", "not in the paper", "E2.7 HS-batch5 (ours) vs HS, ignorance"),
            ("EIR", "HS", "brier", "not in the paper", "E2.8 EIR (ours) vs HS, Brier"),
        ):
            if a not in set(hist["strategy"]) or b not in set(hist["strategy"]):
                continue
            qa = hist.loc[hist["strategy"] == a, "queries"].max()
            qb = hist.loc[hist["strategy"] == b, "queries"].max()
            final = [int(min(qa, qb))]
            if final[0] < 1:
                continue
            d = _paired(hist, a, b, val, final)
            per_ds = d.groupby(level="dataset").mean()
            m, s = float(d.mean()), float(d.sem()) if len(d) > 1 else np.nan
            dall = _paired(hist, a, b, val)
            share = float((dall.groupby(level=["dataset", "queries"]).mean() < 0).mean())
            add("finding", cl, paper,
                f"after {final[0]} queries {a} - {b} = {m:+.4f} (se {s:.4f}, {len(d)} dataset-rounds); "
                f"{a} lower in {100 * share:.0f}% of (dataset, queries) means; by data set "
                + ", ".join(f"{k} {v:+.3f}" for k, v in per_ds.items()),
                _verdict(m, s) if len(d) >= 10 else f"anecdotal ({len(d)} dataset-rounds; direction {'as claimed' if m < 0 else 'against'})",
                "with 10+ dataset-rounds: supported if the paired mean difference after the last query is below 0 by more than 2 se, contradicted if above by more than 2 se; fewer: anecdotal")
        q0 = hist[hist["queries"] == 0].groupby(["dataset", "round"])["ignorance"].agg(lambda s: s.max() - s.min())
        add("sanity", "E2.S1 all strategies start from the same fit", "-", f"max spread at 0 queries {float(q0.max()):.2g}",
            "holds" if float(q0.max()) < 1e-12 else "fails", "same partition, SVMs and initial rows by construction")
    return pd.DataFrame(rows)


PAPER_STRATEGIES = ("RS", "HS", "PS")
"""The paper's strategies; EIR and HS-batch5 are ours."""
OUR_STRATEGIES = ("EIR", "HS-batch5")


def _units(rounds: int, datasets: Sequence[str], our_rounds: int | None = None) -> list[tuple[str, int, tuple[str, ...]]]:
    """Work units (data set, round, strategies), round by round: the paper's strategies on every
    round, ours on the first ``our_rounds`` (all when None). A strategy's history does not depend
    on the unit it is computed in (its seeds come from the data set, round and strategy)."""
    k = rounds if our_rounds is None else min(int(our_rounds), rounds)
    out: list[tuple[str, int, tuple[str, ...]]] = []
    for r in range(rounds):
        out += [(d, r, PAPER_STRATEGIES) for d in datasets]
        if r < k:
            out += [(d, r, OUR_STRATEGIES) for d in datasets]
    return out


def run_ramel2018(
    out: str | Path, rounds: int = 100, seed: int = 2019, jobs: int = 1, datasets: Sequence[str] | None = None,
    folds: int = EXP1_FOLDS, queries1: int = EXP1_QUERIES, queries2: int = EXP2_QUERIES,
    experiments: Sequence[int] = (1, 2), quiet: bool = False, command: str | None = None,
    our_rounds: int | None = None, report: bool = True, wait: bool = False,
    note: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run both experiments and write the CSVs, claims, figures and settings into ``out``.

    Every file is written atomically, and a rerun resumes only from complete units that match
    the folder's completion record (:mod:`evstat.experiments.store`): a truncated or corrupt
    file is recomputed. ``report=False`` writes no figures.

    Experiment 2 appends each finished (data set, round, strategies) unit to
    ``exp2_history.csv`` and a rerun with the same settings skips the strategies already complete
    for a (data set, round), so an interrupted run resumes; the final files are sorted in
    canonical order. ``our_rounds`` limits our strategies (EIR, HS-batch5) to the first rounds
    (the paper's RS, HS, PS run on all ``rounds``). Returns a dict with the output folder, units
    run and seconds.

    The folder is the study's alone while it runs (:func:`evstat.experiments.store.study_folder`):
    a folder holding a symbolic link or a special file is refused, a second run on it is refused
    (or waits, with ``wait=True``; ``note`` receives the one-line notes), and no write follows a
    link. The completion record is bound to the settings that determine the rows (all but the
    command, rounds and ``our_rounds``): a run with other settings is refused, even if
    ``settings.json`` was edited; a ``settings.json`` that cannot be read is ignored when the
    record vouches for the rows, else the study starts over.

    Examples
    --------
    >>> import tempfile
    >>> res = run_ramel2018(tempfile.mkdtemp(), rounds=1, datasets=["sonar"], folds=20, queries1=10,
    ...                     queries2=1, quiet=True)
    >>> sorted(p.name for p in res["out"].iterdir())[:3]
    ['claims.csv', 'completed.json', 'exp1_ignorance.csv']
    """
    out = Path(out)
    ds = list(DATASETS if datasets is None else datasets)
    for d in ds:
        if d not in POSITIVE:
            raise ValueError(f"unknown data set {d!r}; choose from {', '.join(DATASETS)}")
    if isinstance(rounds, bool) or int(rounds) < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds!r}")
    with study_folder(out, wait=wait, note=note):
        settings = {"study": "ramel2018", "seed": int(seed), "rounds": int(rounds), "datasets": ds, "folds": int(folds),
                    "queries1": int(queries1), "queries2": int(queries2), "sigmas": [float(s) for s in EXP1_SIGMAS],
                    "exp1_strategies": list(EXP1_STRATEGIES), "exp2_strategies": list(EXP2_STRATEGIES),
                    "eir_candidates": EIR_CANDIDATES, "eir_reference": EIR_REFERENCE, "command": command,
                    "our_rounds": None if our_rounds is None else int(our_rounds)}
        sp = out / FILES["settings"]
        free = ("command", "runs", "rounds", "our_rounds")
        old = read_settings(sp)
        if old is not None and {k: v for k, v in old.items() if k not in free} != {
                k: v for k, v in settings.items() if k not in free}:
            raise ValueError(f"{str(out)!r} holds a run with other settings ({str(sp)!r}); use another --out folder")
        # the record is bound to the settings that determine the rows: an edited settings.json, or
        # none, with another seed is refused too (issue 41)
        store = Store(out, settings={k: v for k, v in settings.items() if k not in free})
        if old is None and os.path.lexists(sp) and not store.bound:
            store.reset([out / f for k, f in FILES.items() if k != "settings"])  # rows tied to no setting
        runs = [] if old is None else list(old.get("runs", []))
        t_all = time.perf_counter()
        record: dict[str, Any] = {}
        # resume only from rows that are complete and match the completion record (issue 23)
        exp1 = read_rows(out / FILES["exp1"], EXP1_COLUMNS, required=EXP1_COLUMNS[:4], numeric=EXP1_NUMERIC)
        n1 = len(EXP1_SIGMAS) * len(EXP1_STRATEGIES) * (int(queries1) + 1)
        if not store.is_done("exp1", exp1, EXP1_COLUMNS, EXP1_KEY, expected=n1):
            exp1 = None
        elif store.legacy:
            store.adopt("exp1", exp1, EXP1_COLUMNS, EXP1_KEY)
        if 1 in experiments and exp1 is None:
            t = time.perf_counter()
            exp1 = experiment1(seed, folds=folds, queries=queries1, jobs=jobs)
            record["exp1_seconds"] = round(time.perf_counter() - t, 1)
            _write_csv(exp1, out / FILES["exp1"], "%.10g")
            _write_csv(relative_to_rs(exp1), out / FILES["exp1_rel"], "%.6g")
            store.mark("exp1", exp1, EXP1_COLUMNS, EXP1_KEY)
        hist = None
        units_run = 0
        if 2 in experiments:
            hp = out / FILES["exp2"]
            done = read_rows(hp, EXP2_COLUMNS, required=EXP2_COLUMNS, numeric=EXP2_NUMERIC)
            have = set()
            if done is None:  # absent, or not trusted at all: start the history afresh
                done = pd.DataFrame({c: pd.Series(dtype=object) for c in EXP2_COLUMNS})
            else:
                for (d, r, st), g in done.groupby(["dataset", "round", "strategy"]):
                    key = _exp2_key(d, r, st)
                    if st in _STRAT and store.is_done(key, g, EXP2_COLUMNS, ["queries"],
                                                      expected=queries2 // _STRAT[st][1] + 1):
                        have.add((d, int(r), st))
                        if store.legacy:
                            store.adopt(key, g, EXP2_COLUMNS, ["queries"])
                keep = [(d, int(r), st) in have for d, r, st in zip(done["dataset"], done["round"], done["strategy"])]
                done = done.loc[np.array(keep, dtype=bool)]
            _write_csv(done, hp, "%.10g")  # leftovers of unfinished units removed before appending
            store.save()
            todo = []
            for d, r, group in _units(rounds, ds, our_rounds):
                left = tuple(st for st in group if (d, r, st) not in have)
                if left:
                    todo.append((d, r, left))
            t = time.perf_counter()
            if todo:
                from joblib import Parallel, delayed

                from evstat.io.workers import guarded

                gen = Parallel(n_jobs=jobs, return_as="generator_unordered")(
                    delayed(guarded(experiment2_unit))(d, r, seed, queries2, group) for d, r, group in todo)
                bar = None
                if not quiet:
                    from tqdm.auto import tqdm

                    bar = tqdm(total=len(todo), desc="ramel2018 exp2", unit="unit")
                for frame in gen:
                    frame = frame.loc[:, EXP2_COLUMNS]
                    # appended (not atomic): a cut tail is dropped by read_rows, and the unit, not yet
                    # in the completion record, is recomputed on the next run
                    with open_append(hp) as fh:  # no link followed (issue 41)
                        frame.to_csv(fh, header=fh.tell() == 0, index=False, float_format="%.10g")
                    for (d, r, st), g in frame.groupby(["dataset", "round", "strategy"]):
                        store.mark(_exp2_key(d, r, st), g, EXP2_COLUMNS, ["queries"])
                    units_run += 1
                    if bar is not None:
                        bar.update()
                if bar is not None:
                    bar.close()
            record["exp2_seconds"] = round(time.perf_counter() - t, 1)
            hist = read_rows(hp, EXP2_COLUMNS, required=EXP2_COLUMNS, numeric=EXP2_NUMERIC)
            if hist is None:  # written above: unreadable only if something else changed it meanwhile
                raise RuntimeError(f"{hp} changed while the study ran (it no longer holds the experiment 2 columns); run again")
            hist = hist[(hist["round"] < rounds) & hist["dataset"].isin(ds)]
            order = {s: i for i, s in enumerate(EXP2_STRATEGIES)}
            dorder = {d: i for i, d in enumerate(DATASETS)}
            hist = hist.sort_values(["round", "dataset", "strategy", "queries"],
                                    key=lambda c: c.map(dorder) if c.name == "dataset" else c.map(order) if c.name == "strategy" else c,
                                    kind="stable").reset_index(drop=True)
            _write_csv(hist, hp, "%.10g")
            _write_csv(exp2_summary(hist), out / FILES["exp2_summary"], "%.6g")
        if exp1 is not None:
            _write_csv(claims(exp1, hist), out / FILES["claims"], None)
        if report:
            write_figures(out)
        record.update({"units": units_run, "seconds": round(time.perf_counter() - t_all, 1), "jobs": int(jobs),
                       "rounds": int(rounds), "our_rounds": None if our_rounds is None else int(our_rounds),
                       "command": command})
        settings["runs"] = runs + [record]
        write_text(sp, json.dumps(settings, indent=2) + "\n")
        return {"out": out, "units_run": units_run, "seconds": record["seconds"]}


def _exp2_key(dataset: str, round_: Any, strategy: str) -> str:
    return f"exp2/{dataset}/{int(round_)}/{strategy}"


def _write_csv(frame: pd.DataFrame, path: Path, float_format: str | None) -> None:
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False, float_format=float_format)


def write_figures(out: str | Path) -> list[Path]:
    """Fig. 1 (``fig1.png``: RS's mean test ignorance and every strategy's change from RS in %
    over (sigma, queries)) and Fig. 2 (``fig2.png``: mean test ignorance and Brier score of BetP
    against queries, averaged over rounds and data sets, bands +- 1 se over rounds; and
    ``fig2_datasets.png``, per data set) from the CSVs in ``out``. Returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evstat.plotting import active_curves

    out = Path(out)
    written = []
    exp1 = _read_done(out / FILES["exp1"])
    if exp1 is not None:
        rel = relative_to_rs(exp1)
        names = [s for s in EXP1_STRATEGIES if s != "RS"]
        fig, axes = plt.subplots(1, len(names) + 1, figsize=(4.0 * (len(names) + 1), 3.6), layout="constrained")
        rs = exp1[exp1["strategy"] == "RS"].pivot(index="queries", columns="sigma", values="ignorance")
        im = axes[0].pcolormesh(rs.columns, rs.index, rs.to_numpy(), shading="nearest", cmap="viridis")
        fig.colorbar(im, ax=axes[0])
        axes[0].set_title("(a) RS: mean test ignorance", fontsize="medium")
        lim = float(np.nanmax(np.abs(rel["relative"])))
        for ax, name in zip(axes[1:], names):
            w = rel[rel["strategy"] == name].pivot(index="queries", columns="sigma", values="relative")
            im = ax.pcolormesh(w.columns, w.index, w.to_numpy(), shading="nearest", cmap="RdBu_r", vmin=-lim, vmax=lim)
            ax.set_title(f"{name} vs RS (% change)", fontsize="medium")
        fig.colorbar(im, ax=axes[-1])
        for ax in axes:
            ax.set_xlabel("covariance sigma")
            ax.set_ylabel("queries")
        save_figure(fig, out / "fig1.png", dpi=70)
        plt.close(fig)
        written.append(out / "fig1.png")
    hist = _read_done(out / FILES["exp2"])
    if hist is not None and len(hist):
        avg = hist.groupby(["round", "strategy", "queries"], sort=False)[["ignorance", "brier"]].mean().reset_index()
        fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
        active_curves(avg, "ignorance", ax=axes[0])
        active_curves(avg, "brier", ax=axes[1])
        fig.suptitle(f"Experiment 2: averaged over data sets ({', '.join(sorted(hist['dataset'].unique()))})", fontsize="medium")
        save_figure(fig, out / "fig2.png", dpi=70)
        plt.close(fig)
        written.append(out / "fig2.png")
        ds = [d for d in DATASETS if d in set(hist["dataset"])]
        fig, axes = plt.subplots(2, len(ds), figsize=(4.2 * len(ds), 7), layout="constrained", squeeze=False)
        for j, d in enumerate(ds):
            h = hist[hist["dataset"] == d]
            active_curves(h, "ignorance", ax=axes[0, j]).set_title(f"{d}: ignorance", fontsize="medium")
            active_curves(h, "brier", ax=axes[1, j]).set_title(f"{d}: Brier score", fontsize="medium")
        save_figure(fig, out / "fig2_datasets.png", dpi=60)
        plt.close(fig)
        written.append(out / "fig2_datasets.png")
    return written
