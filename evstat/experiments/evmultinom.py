"""Evidential multinomial joint calibration on K-class data: :func:`run_evmultinom` (issue 16).

The protocol of Minary et al. (2019), section 5.4 (the reject study, Figs. 9-10), carried to K
classes. Per round and data set (:func:`unit`):

* **Partition** (:func:`evstat.experiments.partition.class_reject_partition`, stratified by
  class): three disjoint classifier training sets of :data:`SVM_ROWS` rows, nested joint
  calibration sets of :data:`CAL_SIZES` rows (15 within 45 within 200; 200 only where the data
  leave room: Vehicle and Segment) and a test set: the remaining rows, or a seeded random subset
  of :data:`TEST_ROWS` of them on the two large data sets (Vehicle, Segment).
* **Classifiers**: three scikit-learn ``SVC`` (RBF kernel, LIBSVM's ``C = 1`` and
  ``gamma = "scale"`` on standardised features, as :mod:`evstat.experiments.ensemble`) with
  probability outputs (LIBSVM's pairwise Platt scaling and coupling, ``probability=True``,
  seeded), one per training set. Each gives a vector of K class probabilities per row.
* **Methods**, fitted on the calibration rows, scored on the test rows:

  - ``evmultinom``: :func:`evstat.evmultinom` (Platt-Laplace targets, the default) on the
    joint score vector: for each SVM ``j`` the log-ratios ``log(p_jk / p_j1)`` of its
    probabilities to those of the first class (the multinomial analogue of the decision values,
    ``K - 1`` per SVM, ``1 + 3 (K - 1)`` terms). For Segment (K = 7: 19 terms and 114
    coefficients, more terms than the 15 calibration rows) the three SVMs' probabilities are
    averaged first (``K - 1`` log-ratios of the average; :data:`JOINT_MAX_CLASSES`).
    Predictions: lower and upper probabilities of every class and theta_hat; strategies
    pessimistic, optimistic and probabilistic;
  - ``dirichlet``: Dirichlet calibration (:func:`evstat.dirichlet`, Kull et al. 2019) of the
    averaged probabilities with the ODIR penalty :data:`DIRICHLET_REG` (as the gebel2009
    study's ``dirichlet-kull``; unpenalised it diverges on separated calibration sets);
  - ``temperature``: temperature scaling (:func:`evstat.temperature`) of the log averaged
    probabilities;
  - ``eknn``: the evidential k-NN (:func:`evstat.eknn`, ``k = min(15, n - 1)``, gamma by
    leave-one-out) and ``credal_knn``: the credal K-NN (:func:`evstat.credal_knn`, ``k =
    min(9, n - 1)``, ``rho = 3``, no outlier class), on the three SVMs' probabilities of the
    classes but the first (``3 (K - 1)`` coordinates; the first is one minus their sum);
    Bel, Pl and BetP of every class; strategies pessimistic, optimistic and probabilistic
    (BetP).

  The probabilistic calibrators (``dirichlet``, ``temperature``) have the probabilistic
  strategy only.
* **Decisions** (0-1 losses, :func:`evstat.belief.decide_bounds`, the one engine and its tie
  policy): the upper expected loss of deciding class k is ``1 - Bel({k})``, the lower
  ``1 - Pl({k})``, the probabilistic ``1 - theta_k``; with a reject option of cost c the reject
  act costs c. Error rates without reject (``error_rates.csv``) and, at the reject costs
  :data:`COSTS`, the counts of decided and wrong test rows (``reject_curves.csv``), pooled over
  rounds into error/accuracy curves (:func:`evstat.experiments.claims.pooled_curves`).

Comparisons (computed from the CSV files by :func:`markdown_tables`; nothing fixed in advance):
paired differences of error rates across rounds per cell (data set, calibration size), a cell
*for* / *against* when the mean lies more than :data:`evstat.experiments.claims.Z` standard
errors from 0 (:func:`evstat.experiments.claims.paired_cells`), summarised by
:func:`evstat.experiments.claims.verdict`; fewer than 10 rounds leave every cell *unclear*.

Every unit draws from ``SeedSequence(seed, spawn_key=(data set, round))``, so the files do not
depend on ``jobs`` or the order of the units.
"""

from __future__ import annotations

import json
import platform
import re
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evstat.experiments.claims import Z, paired_cells, pooled_curves, verdict
from evstat.experiments.store import Store, file_digest, study_folder
from evstat.io.atomic import atomic_path, read_regular, write_text

if TYPE_CHECKING:
    from evstat.results import Results

__all__ = ["CAL_SIZES", "COSTS", "DATASETS", "METHODS", "EvmultinomStudy", "markdown_tables", "run_evmultinom", "unit"]

STUDY = "evmultinom"
DATASETS = ("iris", "wine", "glass-evclass", "vehicle", "segment")
_DATASET_ID = {d: i for i, d in enumerate(DATASETS)}
#: rows of each of the three SVM training sets
SVM_ROWS = {"iris": 20, "wine": 20, "glass-evclass": 25, "vehicle": 30, "segment": 35}
#: nested joint calibration sets
CAL_SIZES = {"iris": (45, 15), "wine": (45, 15), "glass-evclass": (45, 15), "vehicle": (200, 45, 15),
             "segment": (200, 45, 15)}
#: test rows per round (None: every row left by the SVMs and the calibration set)
TEST_ROWS = {"iris": None, "wine": None, "glass-evclass": None, "vehicle": 150, "segment": 150}
#: data sets with more classes get evmultinom on the averaged probabilities (module docstring)
JOINT_MAX_CLASSES = 4
DIRICHLET_REG = 0.01
EKNN_K = 15
CREDAL_K = 9
METHODS = ("evmultinom", "dirichlet", "temperature", "eknn", "credal_knn")
from evstat.belief import MINARY_STRATEGIES as STRATEGIES  # noqa: E402
PROBABILISTIC_ONLY = ("dirichlet", "temperature")
COSTS = np.round(np.linspace(0.0, 1.0, 21), 3)
ERROR_COLUMNS = ["round", "dataset", "n_cal", "method", "strategy", "design", "n_test", "n_errors", "error_rate",
                 "ignorance", "note"]
CURVE_COLUMNS = ["round", "dataset", "n_cal", "method", "strategy", "reject_cost", "n_test", "n_decided", "n_errors"]
LABELS = {"evmultinom": "evmultinom", "dirichlet": "Dirichlet", "temperature": "temperature", "eknn": "EkNN",
          "credal_knn": "credal K-NN"}


def load_classes(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Features, class codes ``0 .. K - 1`` (levels in sorted order) and the level names.

    Examples
    --------
    >>> X, y, levels = load_classes("iris")
    >>> X.shape, np.bincount(y).tolist(), levels[0]
    ((150, 4), [50, 50, 50], 'setosa')
    """
    import evstat.datasets as evd

    if name not in _DATASET_ID:
        raise ValueError(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")
    frame = evd.load(name)
    col = frame.columns[-1]
    levels, y = np.unique(frame[col].to_numpy(), return_inverse=True)
    X = frame.drop(columns=[col]).to_numpy(dtype=float)
    return X, y.astype(np.int64), [str(v) for v in levels]


def _svm(X: np.ndarray, y: np.ndarray, random_state: int) -> Any:
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    from evstat.experiments.ensemble import SVM_C, SVM_GAMMA

    model = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=SVM_C, gamma=SVM_GAMMA, probability=True,
                                                random_state=random_state))
    return model.fit(X, y)


def _proba(model: Any, X: np.ndarray, K: int) -> np.ndarray:
    P = np.zeros((X.shape[0], K))
    P[:, model.classes_] = model.predict_proba(X)
    return P


def score_frames(P: np.ndarray, levels: Sequence[str], y: np.ndarray | None = None) -> dict[str, pd.DataFrame]:
    """The methods' inputs from the SVMs' probabilities ``P`` (rows, 3, K): ``"ratios"`` (the
    joint log-ratios ``l<j>_<k>`` or, for K > :data:`JOINT_MAX_CLASSES`, the averaged ``a_<k>``),
    ``"mean"`` (averaged probabilities ``p_<level>``), ``"logit"`` (their logs ``s_<level>``) and
    ``"probs"`` (the probabilities ``q<j>_<k>`` of the classes but the first, which is one minus
    their sum: ``3 (K - 1)`` coordinates); with ``y`` a column ``y`` of level names."""
    m, J, K = P.shape
    if not np.all(P > 0):
        raise ValueError("an SVM gave a probability of 0: log-ratios undefined")
    logP = np.log(P)
    if K <= JOINT_MAX_CLASSES:
        ratios = {f"l{j + 1}_{k}": logP[:, j, k] - logP[:, j, 0] for j in range(J) for k in range(1, K)}
    else:
        la = np.log(P.mean(axis=1))
        ratios = {f"a_{k}": la[:, k] - la[:, 0] for k in range(1, K)}
    mean = P.mean(axis=1)
    out = {
        "ratios": pd.DataFrame(ratios),
        "mean": pd.DataFrame({f"p_{lev}": mean[:, k] for k, lev in enumerate(levels)}),
        "logit": pd.DataFrame({f"s_{lev}": np.log(mean[:, k]) for k, lev in enumerate(levels)}),
        "probs": pd.DataFrame({f"q{j + 1}_{k}": P[:, j, k] for j in range(J) for k in range(1, K)}),
    }
    if y is not None:
        for f in out.values():
            f["y"] = pd.Categorical(np.asarray(levels, dtype=object)[y], categories=list(levels))
    return out


def _formula(frame: pd.DataFrame) -> str:
    return "y ~ " + " + ".join(c for c in frame.columns if c != "y")


def _method_arrays(method: str, cal: dict[str, pd.DataFrame], test: dict[str, pd.DataFrame], K: int) -> tuple[np.ndarray, ...]:
    """theta, bel, pl (rows, K) of one method (classes in level order)."""
    import evstat as ev

    n = len(cal["ratios"])
    if method == "evmultinom":
        b = ev.evmultinom(_formula(cal["ratios"]), cal["ratios"]).predict(test["ratios"], type="belief")
    elif method == "eknn":
        b = ev.eknn(_formula(cal["probs"]), cal["probs"], k=min(EKNN_K, n - 1)).predict(test["probs"], type="belief")
    elif method == "credal_knn":
        b = ev.credal_knn(_formula(cal["probs"]), cal["probs"], k=min(CREDAL_K, n - 1), outlier=False).predict(
            test["probs"], type="belief")
    else:
        fit: Results
        if method == "dirichlet":
            fit = ev.dirichlet(_formula(cal["mean"]), cal["mean"], reg_lambda=DIRICHLET_REG)
            p = fit.predict(test["mean"])
        else:
            fit = ev.temperature(_formula(cal["logit"]), cal["logit"])
            p = fit.predict(test["logit"])
        p = np.asarray(p, dtype=float)
        return p, p, p
    return tuple(np.asarray(b[s], dtype=float) for s in ("theta", "bel", "pl"))


def decisions(theta: np.ndarray, bel: np.ndarray, pl: np.ndarray, strategy: str, reject_cost: float | None) -> np.ndarray:
    """Decided class codes (``-1`` for reject) under 0-1 losses, from the lower and upper
    probabilities of the classes (:func:`evstat.belief.decide_bounds`).

    Examples
    --------
    >>> th = np.array([[0.5, 0.3, 0.2]]); bel = np.array([[0.3, 0.2, 0.1]]); pl = np.array([[0.7, 0.5, 0.4]])
    >>> decisions(th, bel, pl, "pessimistic", None).tolist(), decisions(th, bel, pl, "pessimistic", 0.5).tolist()
    ([0], [-1])
    """
    from evstat.belief import decide_bounds

    K = theta.shape[1]
    up, lo, pr = 1.0 - bel, 1.0 - pl, 1.0 - theta
    acts: list[Any] = list(range(K))
    if reject_cost is not None:
        col = np.full((theta.shape[0], 1), float(reject_cost))
        up, lo, pr = np.hstack([up, col]), np.hstack([lo, col]), np.hstack([pr, col])
        acts.append(-1)
    res = decide_bounds(acts, upper=up, lower=lo, prob=pr, strategy=strategy)
    return np.asarray(res.choice, dtype=np.int64)


def unit(dataset: str, rnd: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One round on one data set: (rows of ``error_rates.csv``, rows of ``reject_curves.csv``).

    Examples
    --------
    >>> err, cur = unit("iris", 0, 2016)  # doctest: +SKIP
    """
    from evstat.experiments.partition import class_reject_partition

    X, y, levels = load_classes(dataset)
    K = len(levels)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_DATASET_ID[dataset], int(rnd))))
    p = class_reject_partition(y, rng, (SVM_ROWS[dataset],) * 3, CAL_SIZES[dataset], TEST_ROWS[dataset])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = [_svm(X[r], y[r], int(rng.integers(2**31 - 1))) for r in p.svm]

    def probs(rows: np.ndarray) -> np.ndarray:
        return np.stack([_proba(m, X[rows], K) for m in models], axis=1)

    yt = y[p.test]
    test = score_frames(probs(p.test), levels)
    design = "joint" if K <= JOINT_MAX_CLASSES else "averaged"
    errs, curves = [], []
    for n in CAL_SIZES[dataset]:
        cal = score_frames(probs(p.cal[n]), levels, y[p.cal[n]])
        for method in METHODS:
            note = ""
            th: np.ndarray | None
            bel: np.ndarray | None
            pl: np.ndarray | None
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    th, bel, pl = _method_arrays(method, cal, test, K)
            except (ValueError, RuntimeError, ArithmeticError, np.linalg.LinAlgError) as err:
                th = bel = pl = None
                note = f"failed: {type(err).__name__}: {' '.join(str(err).split())[:200]}"
            strategies = ("probabilistic",) if method in PROBABILISTIC_ONLY else STRATEGIES
            ign = float(np.mean(pl - bel)) if pl is not None and bel is not None else np.nan
            for s in strategies:
                keys = {"round": int(rnd), "dataset": dataset, "n_cal": int(n), "method": method, "strategy": s}
                if th is None or bel is None or pl is None:  # the method failed
                    errs.append({**keys, "design": design, "n_test": len(yt), "n_errors": np.nan, "error_rate": np.nan,
                                 "ignorance": np.nan, "note": note})
                    curves += [{**keys, "reject_cost": c, "n_test": len(yt), "n_decided": np.nan, "n_errors": np.nan}
                               for c in COSTS]
                    continue
                d = decisions(th, bel, pl, s, None)
                ne = int(np.sum(d != yt))
                errs.append({**keys, "design": design if method == "evmultinom" else "", "n_test": len(yt),
                             "n_errors": ne, "error_rate": ne / len(yt), "ignorance": ign, "note": note})
                for c in COSTS:
                    d = decisions(th, bel, pl, s, float(c))
                    dec = d >= 0
                    curves.append({**keys, "reject_cost": float(c), "n_test": len(yt), "n_decided": int(dec.sum()),
                                   "n_errors": int(np.sum(dec & (d != yt)))})
    return pd.DataFrame(errs, columns=ERROR_COLUMNS), pd.DataFrame(curves, columns=CURVE_COLUMNS)


# ---------------------------------------------------------------- tables (from the CSV files)
def _cell_order(frame: pd.DataFrame) -> pd.DataFrame:
    rank = frame["dataset"].map(_DATASET_ID)
    return frame.assign(_r=rank).sort_values(["_r", "n_cal"]).drop(columns="_r")


def error_table(errors: pd.DataFrame) -> pd.DataFrame:
    """Mean error rate without reject (and its standard error over rounds) per cell and
    method/strategy; columns ``<method>/<strategy>``."""
    e = errors.dropna(subset=["error_rate"])
    g = e.groupby(["dataset", "n_cal", "method", "strategy"])["error_rate"]
    t = pd.DataFrame({"mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count()), "rounds": g.count()}).reset_index()
    t["column"] = t["method"] + "/" + t["strategy"]
    return _cell_order(t)


def _fmt(mean: float, se: float) -> str:
    if not np.isfinite(mean):
        return "n/a"
    return f"{mean:.3f}" + (f" ({se:.3f})" if np.isfinite(se) else "")


def _md(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


#: columns of the error table: (method, strategy)
TABLE_COLUMNS = (("evmultinom", "pessimistic"), ("evmultinom", "optimistic"), ("evmultinom", "probabilistic"),
                 ("dirichlet", "probabilistic"), ("temperature", "probabilistic"), ("eknn", "probabilistic"),
                 ("credal_knn", "probabilistic"))
#: paired comparisons of error rates without reject: (a, b), a row says where a has the lower error
PAIRS = (("evmultinom/probabilistic", "dirichlet/probabilistic"), ("evmultinom/probabilistic", "temperature/probabilistic"),
         ("evmultinom/probabilistic", "eknn/probabilistic"), ("evmultinom/probabilistic", "credal_knn/probabilistic"),
         ("evmultinom/pessimistic", "evmultinom/probabilistic"), ("evmultinom/optimistic", "evmultinom/probabilistic"))
#: reject costs shown in the curve table
SHOWN_COSTS = (0.1, 0.2, 0.3)
MIN_ROUNDS_CLAIM = 10


def _paired(errors: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Per-cell paired differences ``err_b - err_a`` (positive: a has the lower error), through
    :func:`evstat.experiments.claims.paired_cells` (its ``train3`` is our ``n_cal``)."""
    e = errors.assign(method=errors["method"] + "/" + errors["strategy"], train3=errors["n_cal"])
    cells, _ = paired_cells(e, b, a, datasets=DATASETS)
    return cells.reset_index().rename(columns={"train3": "n_cal"})


def markdown_tables(out: str | Path) -> str:
    """The README's tables, recomputed from ``error_rates.csv`` and ``reject_curves.csv``."""
    out = Path(out)
    errors = pd.read_csv(out / "error_rates.csv")
    curves = pd.read_csv(out / "reject_curves.csv")
    parts = []
    t = error_table(errors)
    rounds = int(errors["round"].nunique())
    wide = []
    for (d, n), g in t.groupby(["dataset", "n_cal"], sort=False):
        row = {"data set": d, "n_cal": int(n)}
        for m, s in TABLE_COLUMNS:
            r = g[(g["method"] == m) & (g["strategy"] == s)]
            row[f"{LABELS[m]}" + (f" {s[:4]}" if m == "evmultinom" else "")] = (
                _fmt(float(r["mean"].iloc[0]), float(r["se"].iloc[0])) if len(r) else "n/a")
        wide.append(row)
    parts.append(f"Table 1. Error rate without reject, mean over {rounds} rounds (standard error). evmultinom pess/opti/prob: "
                 "the class of largest Bel / largest Pl / largest theta_hat; the others: largest probability (BetP for "
                 "EkNN and the credal K-NN).\n\n" + _md(pd.DataFrame(wide)))
    rows = []
    for a, b in PAIRS:
        cells = _paired(errors, a, b)
        ok = (cells["n"] >= MIN_ROUNDS_CLAIM) & cells["se"].notna()
        fr = int((ok & (cells["mean"] > Z * cells["se"]) & (cells["mean"] > 0)).sum())
        ag = int((ok & (cells["mean"] < -Z * cells["se"]) & (cells["mean"] < 0)).sum())
        rows.append({"a has a lower error than b": f"{a} vs {b}", "cells": len(cells), "for": fr, "against": ag,
                     "unclear": len(cells) - fr - ag, "verdict": verdict(fr, ag, len(cells)),
                     "mean difference b - a (range over cells)":
                         f"{cells['mean'].min():+.3f} .. {cells['mean'].max():+.3f}" if len(cells) else "n/a"})
    parts.append(f"Table 2. Paired differences of the error rates (b - a) across rounds, per cell (data set, n_cal): a "
                 f"cell is *for* when the mean is more than {Z:g} standard errors above 0, *against* when more than "
                 f"{Z:g} below; cells with fewer than {MIN_ROUNDS_CLAIM} rounds are *unclear*.\n\n" + _md(pd.DataFrame(rows)))
    pooled = []
    for (m, s), g in curves.groupby(["method", "strategy"], sort=False):
        pc = pooled_curves(g)
        pc.insert(2, "method", m)
        pooled.append(pc)
    pc = pd.concat(pooled, ignore_index=True)
    shown = [("evmultinom", "pessimistic"), ("evmultinom", "optimistic"), ("evmultinom", "probabilistic"),
             ("dirichlet", "probabilistic"), ("eknn", "pessimistic")]
    rows = []
    for (d, n), g in _cell_order(pc).groupby(["dataset", "n_cal"], sort=False):
        for c in SHOWN_COSTS:
            row = {"data set": d, "n_cal": int(n), "reject cost": c}
            for m, s in shown:
                r = g[(g["method"] == m) & (g["strategy"] == s) & np.isclose(g["reject_cost"], c)]
                if not len(r):
                    row[f"{LABELS[m]} {s[:4]}"] = "n/a"
                    continue
                acc = float(r["accuracy"].iloc[0])
                row[f"{LABELS[m]} {s[:4]}"] = (f"{float(r['error_rate'].iloc[0]):.3f} / {float(r['reject_rate'].iloc[0]):.2f}"
                                                 + (f" / {acc:.3f}" if np.isfinite(acc) else " / -"))
            rows.append(row)
    parts.append("Table 3. Reject option, curves pooled over rounds: error rate (wrong decisions / test rows) / "
                 "reject rate / accuracy (correct / decided) at three reject costs.\n\n" + _md(pd.DataFrame(rows)))
    ign = errors[(errors["method"] == "evmultinom") & (errors["strategy"] == "probabilistic")]
    g = ign.groupby(["dataset", "n_cal"])
    it = pd.DataFrame({"mean ignorance": g["ignorance"].mean().round(3), "failed fits": g["error_rate"].apply(lambda v: int(v.isna().sum())),
                       "design": g["design"].first()}).reset_index()
    parts.append("Table 4. evmultinom: mean over test rows and rounds of the ignorance (mean over classes of Pl - Bel), "
                 "fits that failed, and the design (joint: the three SVMs' log-ratios; averaged: of the averaged "
                 "probabilities).\n\n" + _md(_cell_order(it)))
    return "\n\n".join(parts) + "\n"


# ---------------------------------------------------------------- figures
def figures(out: str | Path) -> list[Path]:
    """Error/accuracy curves (the analogue of Figs. 9-10), one PNG per data set, from the CSV."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    curves = pd.read_csv(out / "reject_curves.csv")
    paths = []
    styles = {("evmultinom", "pessimistic"): "C0-", ("evmultinom", "optimistic"): "C1-",
              ("evmultinom", "probabilistic"): "C2-", ("dirichlet", "probabilistic"): "C3--",
              ("temperature", "probabilistic"): "C4--", ("eknn", "pessimistic"): "C5:", ("eknn", "probabilistic"): "C6:"}
    for d in [x for x in DATASETS if x in set(curves["dataset"])]:
        sizes = sorted(curves.loc[curves["dataset"] == d, "n_cal"].unique())
        fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 3.6), squeeze=False)
        for ax, n in zip(axes[0], sizes):
            for (m, s), st in styles.items():
                g = curves[(curves["dataset"] == d) & (curves["n_cal"] == n) & (curves["method"] == m) & (curves["strategy"] == s)]
                if not len(g):
                    continue
                pc = pooled_curves(g)
                ax.plot(pc["error_rate"], pc["accuracy"], st, marker=".", label=f"{LABELS[m]} {s}")
            ax.set_title(f"{d}, {n} calibration rows")
            ax.set_xlabel("error rate")
            ax.set_ylabel("accuracy")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        path = out / f"curves_{d}.png"
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=90, metadata={"Software": None})
        plt.close(fig)
        paths.append(path)
    return paths


# ---------------------------------------------------------------- the run
def _unit_files(dataset: str, rnd: int, parts: Path) -> list[Path]:
    return [parts / f"{dataset}_{rnd}_errors.csv", parts / f"{dataset}_{rnd}_curves.csv"]


def _unit_to_files(dataset: str, rnd: int, seed: int, parts: Path) -> tuple[str, int]:
    err, cur = unit(dataset, rnd, seed)
    for frame, path in zip((err, cur), _unit_files(dataset, rnd, parts)):
        with atomic_path(path) as tmp:
            frame.to_csv(tmp, index=False, float_format="%.17g")
    return dataset, rnd


@dataclass
class EvmultinomStudy:
    """What :func:`run_evmultinom` wrote."""

    out: Path
    seconds: float
    units: int


def run_evmultinom(
    out: str | Path, rounds: int = 10, seed: int = 2019, jobs: int = 1, datasets: Sequence[str] | None = None,
    quiet: bool = False, command: str | None = None,
    wait: bool = False, note: Callable[[str], None] | None = None,
) -> EvmultinomStudy:
    """Run the study (module docstring) and write ``error_rates.csv``, ``reject_curves.csv``,
    ``tables.md``, ``study.json`` and the curve figures into ``out``.

    Parameters
    ----------
    out : path
    rounds : int
        Random partitions per data set.
    seed : int
    jobs : int
        Worker processes (joblib); the files do not depend on it.
    datasets : sequence of str, optional
        Default :data:`DATASETS`.
    wait : bool
        If another run holds ``out``, wait for it to end (default: refuse,
        :class:`evstat.experiments.store.StudyBusyError`); a folder holding a symbolic link or a
        special file is refused (:func:`evstat.experiments.store.study_folder`).
    note : callable, optional
        Receives one-line notes (waiting, a killed run's lock taken over).
    """
    from joblib import Parallel, delayed

    from evstat.io.workers import guarded
    from tqdm.auto import tqdm

    names = list(datasets or DATASETS)
    wrong = [d for d in names if d not in _DATASET_ID]
    if wrong:
        raise ValueError(f"evmultinom has no data set {wrong}; choose from {', '.join(DATASETS)}")
    if int(rounds) < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    out = Path(out)
    # created, checked for links and special files, locked, writes confined (issue 41)
    with study_folder(out, wait=wait, note=note):
        parts = out / ".units"  # one pair of files per finished unit: an interrupted run resumes
        parts.mkdir(exist_ok=True)
        stamp = parts / "seed.txt"
        if stamp.is_file():
            # "seed N\n" (the newline marks a complete file); a bare "N" is the earlier format
            text = read_regular(stamp).decode("utf-8", errors="replace")  # no link followed (issue 41)
            m = re.fullmatch(r"seed (\d+)\n", text) or re.fullmatch(r"(\d+)", text)
            if m is None:
                raise ValueError(f"{stamp} is damaged (cut short or edited: {text[:40]!r}), so the units in {parts} "
                                 "cannot be attributed to a seed: delete that folder to recompute, or use another --out")
            if m.group(1) != str(int(seed)):
                raise ValueError(f"{parts} holds units of seed {m.group(1)}, not {seed}: use another --out")
        # the record is bound to the seed too: a stamp edited to this run's seed is refused (issue 41)
        store = Store(parts, settings={"study": "evmultinom", "seed": int(seed)})
        write_text(stamp, f"seed {int(seed)}\n")
        t0 = time.perf_counter()
        units = [(d, r) for r in range(int(rounds)) for d in names]
        # a unit is done when its two files match the completion record (evstat.experiments.store):
        # a file cut short or edited is recomputed
        done = [(d, r) for d, r in units if store.files_done(f"{d}/{r}", _unit_files(d, r, parts))]
        if store.legacy:
            for d, r in done:
                store.units[f"{d}/{r}"] = {"files": {p.name: file_digest(p) for p in _unit_files(d, r, parts)}}
            store.save()
        todo = [u for u in units if u not in set(done)]
        it = tqdm(todo, desc="evmultinom", disable=quiet, mininterval=5)
        if jobs == 1:
            finished = (_unit_to_files(d, r, seed, parts) for d, r in it)
        else:
            finished = Parallel(n_jobs=jobs, batch_size=1, return_as="generator_unordered")(
                delayed(guarded(_unit_to_files))(d, r, seed, parts) for d, r in it)
        for d, r in finished:
            store.mark_files(f"{d}/{r}", _unit_files(d, r, parts))
        res = [(pd.read_csv(parts / f"{d}_{r}_errors.csv", dtype={"note": "string", "design": "string"}),
                pd.read_csv(parts / f"{d}_{r}_curves.csv")) for d, r in units]
        order = {d: i for i, d in enumerate(DATASETS)}
        errors = pd.concat([e for e, _ in res], ignore_index=True)
        curves = pd.concat([c for _, c in res], ignore_index=True)
        errors = errors.sort_values(["dataset", "round", "n_cal"], key=lambda s: s.map(order) if s.name == "dataset" else s,
                                    kind="stable").reset_index(drop=True)
        curves = curves.sort_values(["dataset", "round", "n_cal"], key=lambda s: s.map(order) if s.name == "dataset" else s,
                                    kind="stable").reset_index(drop=True)
        for frame, name in ((errors, "error_rates.csv"), (curves, "reject_curves.csv")):
            with atomic_path(out / name) as tmp:
                frame.to_csv(tmp, index=False, float_format="%.10g")
        write_text(out / "tables.md", markdown_tables(out), encoding="utf-8")
        figures(out)
        seconds = time.perf_counter() - t0
        settings = {
            "study": STUDY, "command": command, "rounds": int(rounds), "seed": int(seed), "jobs": int(jobs),
            "datasets": names, "svm_rows": {d: SVM_ROWS[d] for d in names}, "cal_sizes": {d: list(CAL_SIZES[d]) for d in names},
            "test_rows": {d: TEST_ROWS[d] for d in names}, "dirichlet_reg": DIRICHLET_REG, "eknn_k": EKNN_K,
            "credal_k": CREDAL_K, "seconds_this_call": round(seconds, 1), "units_computed_this_call": len(todo),
            "machine": platform.platform(),
            "python": platform.python_version(),
        }
        write_text(out / "study.json", json.dumps(settings, indent=1), encoding="utf-8")
        return EvmultinomStudy(out=out, seconds=seconds, units=len(todo))
