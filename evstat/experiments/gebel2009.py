"""Reproduction of Gebel (2009), chapter 6: uni- and multivariate calibrators by cross-validation.

:func:`run_gebel2009` writes into ``out``:

* ``results.csv`` - one row per (part, data set, classifier, reduction, method, fold) with the
  fold's CR, 1 - RMSE, WCR, Cal and Cal_root (Gebel's measures, :mod:`evstat.metrics.gebel`), its
  size, and the error message of a method that failed on that fold (then the values are empty).
  ``Cal`` is (1 - RMSE) WCR, the quantity the thesis's tables report under that name
  (``cal(..., root=False)``); ``Cal_root`` is eq. 2.6's sqrt((1 - RMSE) WCR), the thesis's
  definition (the module docstring of :mod:`evstat.metrics.gebel` gives the evidence);
* ``table.csv`` - one row per cell (part, data set, classifier, reduction, method): the measures
  of the *pooled* held-out predictions (every row predicted once, by the fold that held it out),
  the mean and standard deviation of the per-fold CR and Cal, and the number of folds;
* ``comparison.csv`` - the thesis's CR and Cal (``data/gebel2009_thesis_tables.csv``, shipped with the package, entered from Tables
  6.3-6.6 and 6.10-6.13 of the thesis) beside ours, cell by cell;
* ``claims.csv`` - the thesis's conclusions tested on its own numbers and on ours by the same
  rule (:func:`claims`);
* ``study.json`` - the settings, the command, the runtime.

Protocol (choices where the thesis is silent or not reproducible are marked *choice*)
-------------------------------------------------------------------------------------
Outer loop: stratified ``folds``-fold cross-validation (the thesis: 10-fold), the folds drawn
once per data set from the seed, so every classifier and calibrator sees the same folds.
Features are standardised on the training part of each fold.

Classifiers (scikit-learn's closest equivalents; *choice*):

* ``svm`` - the thesis's L2-SVM (squared hinge loss, Gaussian kernel, conjugate-gradient
  training after Suykens et al. 1999) has no scikit-learn equivalent with a kernel; ``SVC`` with
  the Gaussian (RBF) kernel and the ordinary hinge loss is used. The thesis tunes (C, gamma) by
  Hsu et al.'s loose-then-fine grid with cross-validation (3.1.3); here once per outer fold, on
  the training part, by 3-fold cross-validated accuracy of the multi-class SVC over the small
  grid C in {1, 16}, gamma in {2^-5, 2^-3} (standardised features), no fine grid (reduced to
  keep the study affordable on a shared machine); every binary task of the fold uses that
  (C, gamma). The score is the decision value.
* ``ann`` - ``MLPClassifier`` with one hidden layer of 10 units, weight decay alpha = 0.01,
  L-BFGS (the thesis's ANN has a grid search of its own, 3.2.4, not repeated here); the score of
  a binary task is the log-odds of its output. ``ann-direct`` is the multi-class MLP (softmax
  outputs) of the thesis's "direct multivariate ANN".
* ``nb`` - ``GaussianNB``; ``tree`` - ``DecisionTreeClassifier`` with cost-complexity pruning
  (ccp_alpha = 0.01, min_samples_leaf = 5) for R's ``tree`` with pruning. Their scores are their
  probabilities of the positive class (two-class part only, as the thesis).

Scores for calibration (*choice*; the thesis does not say on which scores its calibrators are
fitted): every calibrator is fitted on *cross-fitted* scores of the training part (an inner
3-fold cross-validation of the classifier, as scikit-learn's ``CalibratedClassifierCV``), so the
calibration rows were not used to train the scorer; the test rows are scored by the classifier
fitted on the whole training part. A task whose training part has fewer than 2 rows on a side
is scored in-sample.

Reductions (K classes): one-vs-rest (``ovr``) and all pairs (``pairs``) by
:func:`evstat.multiclass.code_matrix`, one binary classifier per task.

Calibrators, by the thesis's names:

* two classes: ``norm`` (``ev.normcal``, rho = 1.05; the thesis's "P_L2-SVM", "P_ANN") or
  ``own`` (the NB's or tree's own probability), ``av`` (``ev.avcal``), ``bay-alap``
  (``ev.bayescal``, density "alap"; probabilities through log-odds), ``ir`` (``ev.isotonic``),
  ``lr`` (``ev.evlogit``: maximum-likelihood logistic calibration on 0/1 targets, not Platt's
  smoothed targets - *choice*), ``plr`` (``ev.plr``);
* K classes: ``norm``, ``av``, ``lr`` - the binary calibrator on every task, coupled by
  Zadrozny's method weighted by task sizes (``ev.ecoc``); ``diri-gmean``, ``diri-gtrim``,
  ``diri-prod`` - Gebel's Dirichlet calibration (``ev.gebel_dirichlet``; m searched with
  ``m_search="refine"``: 40 log-spaced values of 1..2N then every integer around the best,
  instead of all 2N integers - *choice*, for time); for the ANN also ``ann-direct`` (the
  multi-class MLP's probabilities) and ``diri-direct`` (Gebel's direct Dirichlet calibration of
  them); and the modern baselines the thesis could not have: ``temperature`` (``ev.temperature``
  on the task scores; pairs through the code's linear decoding) and ``dirichlet-kull``
  (``ev.dirichlet``, Kull et al. 2019, on the normalised task probabilities with ODIR
  reg_lambda = reg_mu = 0.01 fixed rather than cross-validated - *choice*).

Randomness: the folds of a data set come from ``SeedSequence(seed, spawn_key=(part, data set))``
and every unit (part, data set, classifier, reduction, fold) from its own spawn key, so the
results do not depend on ``jobs`` or on which data sets are run.
"""

from __future__ import annotations

import json
import platform
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

import evstat as ev
from evstat.experiments.store import Store, read_settings, study_folder
from evstat.io.atomic import atomic_path, write_text
from evstat.metrics.gebel import correctness_rate, one_minus_rmse, wcr
from evstat.multiclass import code_matrix

if TYPE_CHECKING:
    from evstat.results import Results

__all__ = [
    "DATASETS",
    "DATASETS_K",
    "DATASETS_TWO",
    "GebelResult",
    "claims",
    "comparison",
    "load_dataset",
    "markdown_tables",
    "pooled_table",
    "run_gebel2009",
    "write_claims",
]

DATASETS_TWO = ("banknote-swiss", "breast-cancer", "fourclass", "german", "haberman", "heart", "ionosphere", "pima", "sonar")
DATASETS_K = ("balance", "ecoli", "glass", "iris", "segment", "vehicle", "wine", "zoo")
DATASETS = DATASETS_TWO + DATASETS_K
PARTS = ("two-class", "K-class")
CLASSIFIERS = {"two-class": ("svm", "ann", "nb", "tree"), "K-class": ("svm", "ann")}
REDUCTIONS = {"two-class": ("none",), "K-class": ("ovr", "pairs")}
METHODS_TWO = ("norm", "own", "av", "bay-alap", "ir", "lr", "plr")
METHODS_K = ("norm", "av", "lr", "diri-gmean", "diri-gtrim", "diri-prod", "ann-direct", "diri-direct",
             "temperature", "dirichlet-kull")
#: the univariate calibrators of the thesis's Appendix A (Tables A.1-A.4) run through the
#: reductions like AV and LR (binary calibration per task, Zadrozny coupling); not in the main
#: tables, run with ``_unit(..., methods=METHODS_K_APPENDIX)`` (reports/gebel2009/run_appendix_a.py)
METHODS_K_APPENDIX = ("bay-alap", "ir", "plr")
SVM_C = (1.0, 16.0)
SVM_GAMMA = (2.0**-5, 2.0**-3)
INNER_FOLDS = 3
RHO = 1.05
KULL_REG = 0.01
THESIS_TABLES = ev.datasets.data_dir() / "gebel2009_thesis_tables.csv"


#: Features left out to match the thesis's Table 6.1 (its p): ``{data set: columns dropped}``.
#: Filled from the evidence of ``reports/gebel2009/which_features.py`` (README, "Feature sets").
FEATURE_DROP: dict[str, tuple[str, ...]] = {"ionosphere": ("V1", "V2")}


def load_dataset(name: str) -> tuple[NDArray[np.float64], NDArray[Any], list[Any]]:
    """Features, labels and sorted classes of a data set of the study (the class is the last
    column; breast-cancer keeps its 683 complete rows, as the thesis; the columns of
    :data:`FEATURE_DROP` are left out).

    Examples
    --------
    >>> X, y, classes = load_dataset("iris")
    >>> X.shape, classes
    ((150, 4), ['setosa', 'versicolor', 'virginica'])
    """
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose from {', '.join(DATASETS)}")
    d = ev.datasets.load(name)
    if name == "breast-cancer":
        d = d.dropna().reset_index(drop=True)
    d = d.drop(columns=list(FEATURE_DROP.get(name, ())))
    X = d.iloc[:, :-1].to_numpy(dtype=np.float64)
    y = d.iloc[:, -1].to_numpy(dtype=object)
    classes = sorted(pd.unique(y).tolist())
    return X, y, classes


# ---------------------------------------------------------------- classifiers
def _svm_params(X: NDArray, y: NDArray, rs: int) -> tuple[float, float]:
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.svm import SVC

    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=rs)
    best, best_acc = (SVM_C[0], SVM_GAMMA[0]), -1.0
    for C in SVM_C:
        for g in SVM_GAMMA:
            acc = float(np.mean(cross_val_score(SVC(C=C, gamma=g), X, y, cv=cv)))
            if acc > best_acc + 1e-12:
                best, best_acc = (C, g), acc
    return best


def _make(kind: str, params: Any, rs: int) -> Any:
    if kind == "svm":
        from sklearn.svm import SVC

        return SVC(C=params[0], gamma=params[1])
    if kind == "ann":
        from sklearn.neural_network import MLPClassifier

        return MLPClassifier(hidden_layer_sizes=(10,), alpha=0.01, solver="lbfgs", max_iter=300, random_state=rs)
    if kind == "nb":
        from sklearn.naive_bayes import GaussianNB

        return GaussianNB()
    if kind == "tree":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(ccp_alpha=0.01, min_samples_leaf=5, random_state=rs)
    raise ValueError(kind)


def _score(kind: str, model: Any, X: NDArray) -> NDArray[np.float64]:
    if kind == "svm":
        return model.decision_function(X)
    p = model.predict_proba(X)[:, 1]
    if kind == "ann":
        p = np.clip(p, 1e-12, 1 - 1e-12)
        return np.log(p) - np.log1p(-p)
    return p


def _crossfit(kind: str, params: Any, X: NDArray, yb: NDArray, Xte: NDArray, rs: int) -> tuple[NDArray, NDArray]:
    """Cross-fitted scores of the training rows and scores of the test rows for labels yb (0/1)."""
    from sklearn.model_selection import StratifiedKFold

    full = _make(kind, params, rs).fit(X, yb)
    test = _score(kind, full, Xte)
    smallest = int(np.bincount(yb, minlength=2).min())
    if smallest < 2:
        return _score(kind, full, X), test
    cal = np.empty(X.shape[0])
    cv = StratifiedKFold(n_splits=min(INNER_FOLDS, smallest), shuffle=True, random_state=rs)
    for tr, te in cv.split(X, yb):
        cal[te] = _score(kind, _make(kind, params, rs).fit(X[tr], yb[tr]), X[te])
    return cal, test


# ---------------------------------------------------------------- calibration
def _frame(S: NDArray, y: NDArray | None) -> pd.DataFrame:
    d = pd.DataFrame(S, columns=[f"s{j}" for j in range(S.shape[1])])
    if y is not None:
        d["y"] = y
    return d


def _calibrate_k(method: str, S: NDArray, y: NDArray, St: NDArray, code: pd.DataFrame) -> NDArray[np.float64]:
    formula = "y ~ " + " + ".join(f"s{j}" for j in range(S.shape[1]))
    cal, test = _frame(S, y), _frame(St, None)
    fit: Results
    if method in ("norm", "av", "lr", "ir", "plr"):
        name = {"norm": "normcal", "av": "avcal", "lr": "evlogit", "ir": "isotonic", "plr": "plr"}[method]
        fit = ev.ecoc(formula, cal, code=code, calibrator=name, coupling="zadrozny")
    elif method == "bay-alap":
        # SVM decision values and ANN log-odds are real-valued scores: no transform (as two-class)
        fit = ev.ecoc(formula, cal, code=code, calibrator="bayescal", coupling="zadrozny",
                      calibrator_args={"density": "alap", "transform": "none"})
    elif method.startswith("diri-") and method != "diri-direct":
        fit = ev.gebel_dirichlet(formula, cal, code=code, combine=method[5:].replace("-", ""), m_search="refine")
    elif method == "diri-direct":
        fit = ev.gebel_dirichlet(formula, cal, code=code, combine="direct", m_search="refine")
    elif method == "temperature":
        fit = ev.temperature(formula, cal, code=code)
    elif method == "dirichlet-kull":
        c = np.abs(S).max(axis=0)
        c[c == 0] = 1.0

        def norm(A: NDArray) -> NDArray:
            return (np.clip(A, -c, c) + RHO * c) / (2 * RHO * c)

        cal, test = _frame(norm(S), y), _frame(norm(St), None)
        fit = ev.dirichlet(formula, cal, code=code, reg_lambda=KULL_REG, reg_mu=KULL_REG)
    else:
        raise ValueError(method)
    return fit.predict(test).to_numpy(dtype=np.float64)


def _calibrate_two(method: str, kind: str, s: NDArray, y: NDArray, st: NDArray) -> NDArray[np.float64]:
    cal = pd.DataFrame({"s": s, "y": y})
    test = pd.DataFrame({"s": st})
    prob = kind in ("nb", "tree")
    if method == "own":
        return np.asarray(st, dtype=np.float64)
    fit: Results
    if method == "norm":
        fit = ev.normcal("y ~ s", cal)
    elif method == "av":
        fit = ev.avcal("y ~ s", cal, prescale="none" if prob else "normcal")
    elif method == "bay-alap":
        fit = ev.bayescal("y ~ s", cal, density="alap", transform="logit" if prob else "none")
    elif method == "ir":
        fit = ev.isotonic("y ~ s", cal)
    elif method == "lr":
        fit = ev.evlogit("y ~ s", cal)
    elif method == "plr":
        fit = ev.plr("y ~ s", cal)
    else:
        raise ValueError(method)
    return np.asarray(fit.predict(test, type="prob"), dtype=np.float64)


def _measures(y: NDArray[np.intp], P: NDArray[np.float64]) -> dict[str, float]:
    """CR, 1 - RMSE, WCR; Cal as the thesis's tables report it, (1 - RMSE) WCR; Cal_root as eq. 2.6."""
    omr, w = one_minus_rmse(y, P), wcr(y, P)
    return {"CR": correctness_rate(y, P), "one_minus_rmse": omr, "WCR": w, "Cal": omr * w,
            "Cal_root": float(np.sqrt(omr * w))}


# ---------------------------------------------------------------- one unit
def _unit_data(part: str, dataset: str, clf: str, red: str, fold: int, folds: int,
               seed: int) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray, int, int]:
    """A unit's standardised training and test features, labels, test positions, K and seed."""
    from sklearn.preprocessing import StandardScaler

    X, yl, classes = load_dataset(dataset)
    y = np.asarray(pd.Index(classes, dtype=object).get_indexer(yl), dtype=np.intp)
    tr, te = _folds(part, dataset, y, folds, seed)[fold]
    key = (PARTS.index(part), DATASETS.index(dataset), CLASSIFIERS[part].index(clf), REDUCTIONS[part].index(red), fold)
    rs = int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1)[0] % (2**31 - 1))
    sc = StandardScaler().fit(X[tr])
    return sc.transform(X[tr]), sc.transform(X[te]), y[tr], y[te], te, len(classes), rs


def _unit(part: str, dataset: str, clf: str, red: str, fold: int, folds: int, seed: int,
          methods: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One (part, data set, classifier, reduction, fold) unit: every method's rows and predictions.
    ``methods`` (K-class only) replaces the part's methods, e.g. :data:`METHODS_K_APPENDIX`; the
    classifier scores are the same as in the main run (same seeds)."""
    if methods is not None and part != "K-class":
        raise ValueError("methods= applies to the K-class part only")
    from sklearn.exceptions import ConvergenceWarning

    Xtr, Xte, ytr, yte, te, K, rs = _unit_data(part, dataset, clf, red, fold, folds, seed)
    rows: list[dict[str, Any]] = []
    preds: dict[str, NDArray] = {}
    errors: dict[str, str] = {}
    seconds: dict[str, float] = {}  # calibrator fit + prediction time (not the classifier's)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        params = _svm_params(Xtr, ytr, rs) if clf == "svm" else None
        if part == "two-class":
            s, st = _crossfit(clf, params, Xtr, ytr, Xte, rs)
            # the baseline is the normalised score (svm, ann) or the classifier's own probability
            # (nb, tree); every calibrator runs for every classifier
            skip = "norm" if clf in ("nb", "tree") else "own"
            methods = [m for m in METHODS_TWO if m != skip]
            for m in methods:
                t_m = time.perf_counter()
                try:
                    p = _calibrate_two(m, clf, s, ytr, st)
                    preds[m] = np.column_stack([1 - p, p])
                except (ValueError, np.linalg.LinAlgError) as err:
                    errors[m] = " ".join(str(err).split())[:300]
                seconds[m] = time.perf_counter() - t_m
        else:
            code = code_matrix(list(range(K)), red)
            psi = code.to_numpy()
            code.columns = [f"s{j}" for j in range(psi.shape[1])]
            S = np.empty((len(ytr), psi.shape[1]))
            St = np.empty((len(te), psi.shape[1]))
            for b in range(psi.shape[1]):
                side = psi[ytr, b]
                rows_b = side != 0
                yb = (side[rows_b] == 1).astype(np.intp)
                cal_b, St[:, b] = _crossfit(clf, params, Xtr[rows_b], yb, Xte, rs)
                # training rows outside the task are scored by the task's full model
                S[:, b] = _score(clf, _make(clf, params, rs).fit(Xtr[rows_b], yb), Xtr) if not rows_b.all() else 0.0
                S[rows_b, b] = cal_b
            methods = [m for m in (METHODS_K if methods is None else methods)
                       if clf == "ann" or m not in ("ann-direct", "diri-direct")]
            P_direct = P_direct_cal = None
            if clf == "ann" and {"ann-direct", "diri-direct"} & set(methods):
                P_direct_cal, P_direct = _direct_probs(Xtr, ytr, Xte, K, rs)
            for m in methods:
                t_m = time.perf_counter()
                try:
                    if m == "ann-direct":
                        assert P_direct is not None  # the direct methods run with clf == "ann" only
                        preds[m] = P_direct
                    elif m == "diri-direct":
                        assert P_direct is not None and P_direct_cal is not None
                        preds[m] = _calibrate_direct(P_direct_cal, ytr, P_direct)
                    else:
                        preds[m] = _calibrate_k(m, S, ytr, St, code)
                except (ValueError, np.linalg.LinAlgError, TypeError) as err:
                    errors[m] = " ".join(str(err).split())[:300]
                seconds[m] = time.perf_counter() - t_m
    for m in list(preds) + list(errors):
        row: dict[str, Any] = {"part": part, "dataset": dataset, "classifier": clf, "reduction": red, "method": m,
                               "fold": fold, "n": len(te), "error": errors.get(m, ""),
                               "seconds": round(seconds.get(m, float("nan")), 3)}
        if m in preds:
            row.update(_measures(yte, preds[m]))
            row["_pred"] = (te, preds[m])
        rows.append(row)
    return rows


def _direct_probs(Xtr: NDArray, ytr: NDArray, Xte: NDArray, K: int, rs: int) -> tuple[NDArray, NDArray]:
    """The direct multi-class ANN's cross-fitted probabilities of the training rows (inner folds)
    and its probabilities of the test rows (fitted on all training rows)."""
    from sklearn.model_selection import StratifiedKFold

    P_cal = np.empty((len(ytr), K))
    P_test = _proba(_make("ann", None, rs).fit(Xtr, ytr), Xte, K)
    n_in = max(2, min(INNER_FOLDS, int(np.bincount(ytr, minlength=K).min()) or 2))
    for a, b2 in StratifiedKFold(n_splits=n_in, shuffle=True, random_state=rs).split(Xtr, ytr):
        P_cal[b2] = _proba(_make("ann", None, rs).fit(Xtr[a], ytr[a]), Xtr[b2], K)
    return P_cal, P_test


def _calibrate_direct(P_cal: NDArray, ytr: NDArray, P_test: NDArray) -> NDArray[np.float64]:
    """diri-direct: Gebel's Dirichlet calibration of the direct ANN's class probabilities."""
    K = P_cal.shape[1]
    ovr = code_matrix(list(range(K)), "ovr")
    ovr.columns = [f"s{j}" for j in range(K)]
    return _calibrate_k("diri-direct", P_cal, ytr, P_test, ovr)


def _proba(model: Any, X: NDArray, K: int) -> NDArray[np.float64]:
    P = np.zeros((X.shape[0], K))
    P[:, model.classes_] = model.predict_proba(X)
    return P


def _folds(part: str, dataset: str, y: NDArray, folds: int, seed: int) -> list[tuple[NDArray, NDArray]]:
    from sklearn.model_selection import StratifiedKFold

    ss = np.random.SeedSequence(seed, spawn_key=(PARTS.index(part), DATASETS.index(dataset)))
    rs = int(ss.generate_state(1)[0] % (2**31 - 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # classes smaller than the number of folds
        return list(StratifiedKFold(n_splits=folds, shuffle=True, random_state=rs).split(np.zeros(len(y)), y))


# ---------------------------------------------------------------- tables and claims
def pooled_table(results: pd.DataFrame, preds: dict[tuple, list], labels: dict[str, NDArray]) -> pd.DataFrame:
    """Per cell: the measures of the pooled held-out predictions, and per-fold means and sds."""
    out = []
    keys = ["part", "dataset", "classifier", "reduction", "method"]
    for cell, g in results.groupby(keys, sort=False):
        ok = g[g["error"].fillna("") == ""]
        row = dict(zip(keys, cell))
        row.update({"folds": len(g), "folds_failed": len(g) - len(ok)})
        row.update({f"{k}_fold_mean": ok[k].mean() for k in ("CR", "Cal")})
        row.update({f"{k}_fold_sd": ok[k].std(ddof=1) for k in ("CR", "Cal")})
        parts = preds.get(cell, [])
        if parts and len(ok) == len(g):
            idx = np.concatenate([i for i, _ in parts])
            P = np.vstack([p for _, p in parts])
            row.update(_measures(labels[cell[1]][idx], P))
        else:
            row.update({"CR": np.nan, "one_minus_rmse": np.nan, "WCR": np.nan, "Cal": np.nan, "Cal_root": np.nan})
        out.append(row)
    return pd.DataFrame(out)


def comparison(table: pd.DataFrame, thesis: pd.DataFrame | None = None) -> pd.DataFrame:
    """The thesis's CR and Cal beside ours, cell by cell (thesis cells we cannot run, B3, kept
    with empty values of ours)."""
    if thesis is None:
        thesis = pd.read_csv(THESIS_TABLES)
    t = thesis.rename(columns={"CR": "CR_thesis", "Cal": "Cal_thesis", "line": "thesis_line"})
    ours = table[["part", "classifier", "reduction", "dataset", "method", "CR", "Cal"]].rename(
        columns={"CR": "CR_ours", "Cal": "Cal_ours"})
    m = t.merge(ours, on=["part", "classifier", "reduction", "dataset", "method"], how="outer")
    m["CR_diff"] = m["CR_ours"] - m["CR_thesis"]
    m["Cal_diff"] = m["Cal_ours"] - m["Cal_thesis"]
    return m.sort_values(["part", "classifier", "reduction", "dataset", "method"]).reset_index(drop=True)


@dataclass(frozen=True)
class Claim:
    """One conclusion of the thesis and the rule that tests it on a table of (CR, Cal)."""

    key: str
    text: str
    where: str
    rule: str


CLAIMS = (
    Claim("two_av_most_robust", "AV gives the best and most robust results for two classes (6.1.2, 6.1.3)", "two-class",
          "AV has the best mean rank of Cal among the calibrators (not the baseline) over all data sets and classifiers"),
    Claim("two_lr_next", "Logistic regression is AV's major competitor (second) for two classes", "two-class",
          "LR has the second-best mean rank of Cal among the calibrators"),
    Claim("two_ir_bay_overfit", "Isotonic regression and Bayes-ALAP vary most and do not improve on the scores (overfit)", "two-class",
          "IR and Bayes-ALAP both have a larger standard deviation of (CR - baseline CR) over data sets and classifiers "
          "than AV and LR (the thesis: 'high variation in performance', 'more likely to be object of over-fitting')"),
    Claim("two_robust_av_then_lr", "AV changes the correctness rate least, LR next (robustness, 6.1.2, 6.1.3; rule added "
          "after the two-class run, see reports/gebel2009/README.md)", "two-class",
          "AV has the smallest and LR the second-smallest standard deviation of (CR - baseline CR) over data sets and "
          "classifiers among the calibrators"),
    Claim("svm_ovr_gmean_best", "Dirichlet calibration with the geometric mean is best for one-vs-rest L2-SVM (6.2.2)", "K-class svm ovr",
          "diri-gmean has a higher Cal than norm, av and lr on at least 2/3 of the data sets (the thesis: 'on (almost) "
          "all data sets Cal is better for this method than for L2-SVM scores and the two other calibrators')"),
    Claim("svm_pairs_av_best", "AV is the best calibrator for all-pairs L2-SVM (6.2.2)", "K-class svm pairs",
          "AV has the best mean rank of sqrt(CR Cal) among av, lr, diri-gmean, diri-gtrim, diri-prod"),
    Claim("ann_av_lr_recommended", "AV and LR are recommended for multi-class ANN scores (6.2.3)", "K-class ann",
          "AV and LR improve Cal over the coupled normalised scores (norm) on at least 2/3 of (data set, reduction) cells"),
)


def _rank_mean(tab: pd.DataFrame, methods: Sequence[str], value: str, by: Sequence[str]) -> pd.Series:
    t = tab[tab["method"].isin(methods)].dropna(subset=[value])
    ranks = t.groupby(list(by))[value].rank(ascending=False, method="average")
    return ranks.groupby(t["method"]).mean().sort_values()


def _cr_change_sd(two: pd.DataFrame, methods: Sequence[str]) -> dict[str, float]:
    """Per calibrator: the standard deviation over (data set, classifier) cells of its CR minus
    the baseline's (norm or own) CR; cells where either is missing are left out."""
    base = two[two["method"].isin(["norm", "own"])].set_index(["dataset", "classifier"])["CR"]
    sd = {}
    for m in methods:
        t = two[two["method"] == m].set_index(["dataset", "classifier"])["CR"]
        sd[m] = float((t - base.reindex(t.index)).dropna().std(ddof=1))
    return sd


def claims(tab: pd.DataFrame) -> pd.DataFrame:
    """Test every claim of :data:`CLAIMS` on a table with columns part, classifier, reduction,
    dataset, method, CR, Cal (the thesis's table or ours, so that both are judged by one rule)."""
    out = []
    tab = tab.copy()
    tab = tab[tab["dataset"] != "B3"]
    two = tab[tab["part"] == "two-class"]
    cal2 = ["av", "bay-alap", "ir", "lr", "plr"]
    for c in CLAIMS:
        holds: bool | None = None
        detail = ""
        if c.key in ("two_av_most_robust", "two_lr_next") and len(two):
            r = _rank_mean(two, cal2, "Cal", ["dataset", "classifier"])
            order = list(r.index)
            want = "av" if c.key == "two_av_most_robust" else "lr"
            pos = 0 if want == "av" else 1
            holds = len(order) > pos and order[pos] == want
            detail = "mean rank of Cal: " + ", ".join(f"{m} {v:.2f}" for m, v in r.items())
        elif c.key in ("two_ir_bay_overfit", "two_robust_av_then_lr") and len(two):
            sd = _cr_change_sd(two, cal2)
            if c.key == "two_ir_bay_overfit":
                holds = min(sd["ir"], sd["bay-alap"]) > max(sd["av"], sd["lr"])
            else:
                order = sorted(sd, key=lambda m: sd[m])
                holds = order[:2] == ["av", "lr"]
            detail = "sd of CR - baseline CR: " + ", ".join(f"{m} {v:.3f}" for m, v in sorted(sd.items(), key=lambda kv: -kv[1]))
        elif c.key == "svm_ovr_gmean_best":
            t = tab[(tab["part"] == "K-class") & (tab["classifier"] == "svm") & (tab["reduction"] == "ovr")]
            w = t.pivot_table(index="dataset", columns="method", values="Cal")
            if {"norm", "av", "lr", "diri-gmean"} <= set(w.columns):
                w = w.dropna(subset=["norm", "av", "lr", "diri-gmean"])
                wins = w["diri-gmean"] > w[["norm", "av", "lr"]].max(axis=1)
                holds = len(w) > 0 and float(wins.mean()) >= 2 / 3
                detail = f"diri-gmean above norm, av and lr on {int(wins.sum())} of {len(w)} data sets"
        elif c.key == "svm_pairs_av_best":
            t = tab[(tab["part"] == "K-class") & (tab["classifier"] == "svm") & (tab["reduction"] == "pairs")].copy()
            if len(t):
                t["score"] = np.sqrt(t["CR"] * t["Cal"])
                r = _rank_mean(t, ["av", "lr", "diri-gmean", "diri-gtrim", "diri-prod"], "score", ["dataset"])
                holds = len(r) > 0 and r.index[0] == "av"
                detail = "mean rank of sqrt(CR Cal): " + ", ".join(f"{m} {v:.2f}" for m, v in r.items())
        elif c.key == "ann_av_lr_recommended":
            t = tab[(tab["part"] == "K-class") & (tab["classifier"] == "ann")]
            if len(t):
                w = t.pivot_table(index=["dataset", "reduction"], columns="method", values="Cal")
                if {"av", "lr", "norm"} <= set(w.columns):
                    w = w.dropna(subset=["av", "lr", "norm"])
                    av = float((w["av"] > w["norm"]).mean())
                    lr = float((w["lr"] > w["norm"]).mean())
                    holds = av >= 2 / 3 and lr >= 2 / 3
                    detail = f"Cal above norm: av on {av:.0%}, lr on {lr:.0%} of {len(w)} cells"
        out.append({"claim": c.key, "text": c.text, "rule": c.rule,
                    "holds": None if holds is None else bool(holds), "detail": detail})
    return pd.DataFrame(out)


def write_claims(out: str | Path, parts: Sequence[str] = PARTS) -> pd.DataFrame:
    """(Re)write ``claims.csv`` of a study folder from its ``table.csv``: every claim judged on the
    thesis's numbers (of the same parts) and on ours by the same rule."""
    out = Path(out)
    table = pd.read_csv(out / "table.csv")
    thesis = pd.read_csv(THESIS_TABLES)
    thesis = thesis[thesis["part"].isin(list(parts))]
    cl_thesis = claims(thesis).rename(columns={"holds": "holds_thesis", "detail": "detail_thesis"})
    cl_ours = claims(table)[["claim", "holds", "detail"]].rename(columns={"holds": "holds_ours", "detail": "detail_ours"})
    cl = cl_thesis.merge(cl_ours, on="claim")
    with atomic_path(out / "claims.csv") as tmp:  # atomic, and confined in a study (issue 41)
        cl.to_csv(tmp, index=False)
    return cl


ORDER_TWO = ("norm", "own", "av", "bay-alap", "ir", "lr", "plr")
ORDER_K = ("norm", "av", "lr", "diri-gmean", "diri-gtrim", "diri-prod", "ann-direct", "diri-direct", "temperature",
           "dirichlet-kull")


def _fmt(v: Any) -> str:
    return "-" if pd.isna(v) else f"{v:.3f}"


def markdown_tables(folder: str | Path) -> str:
    """The README's tables from a run folder's ``comparison.csv`` and ``claims.csv``: per
    classifier (and reduction), "Cal ours / thesis; CR ours / thesis" for every method and data
    set run; for the two-class part also the means over the data sets; then the claims of the
    folder's part(s), judged on the thesis's numbers and on ours.

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = run_gebel2009(d, folds=2, parts=("two-class",), datasets=["haberman"], classifiers=["nb"],
    ...                   quiet=True)  # doctest: +SKIP
    >>> print(markdown_tables(d))  # doctest: +SKIP
    """
    folder = Path(folder)
    c = pd.read_csv(folder / "comparison.csv")
    done = set(c.loc[c["CR_ours"].notna(), "dataset"])
    c = c[c["dataset"].isin(done)]
    out: list[str] = []
    for part in [p for p in PARTS if p in set(c["part"])]:
        cp = c[c["part"] == part]
        order = ORDER_TWO if part == "two-class" else ORDER_K
        names = DATASETS_TWO if part == "two-class" else DATASETS_K
        cols = [d for d in names if d in done]
        for clf in CLASSIFIERS[part]:
            for red in REDUCTIONS[part]:
                g = cp[(cp["classifier"] == clf) & (cp["reduction"] == red)]
                if g.empty:
                    continue
                title = clf.upper() if red == "none" else f"{clf.upper()}, {red}"
                out.append(f"**{title}** (Cal ours / thesis; CR ours / thesis)\n")
                out.append("| method | " + " | ".join(cols) + " |")
                out.append("|---" * (len(cols) + 1) + "|")
                for m in [m for m in order if m in set(g["method"])]:
                    gm = g[g["method"] == m].set_index("dataset")
                    cells = []
                    for d in cols:
                        if d not in gm.index:
                            cells.append("")
                            continue
                        r = gm.loc[d]
                        cells.append(f"{_fmt(r['Cal_ours'])} / {_fmt(r['Cal_thesis'])}; "
                                     f"{_fmt(r['CR_ours'])} / {_fmt(r['CR_thesis'])}")
                    out.append(f"| {m} | " + " | ".join(cells) + " |")
                out.append("")
        if part == "two-class":
            out.append("**Means over the data sets** (Cal ours / thesis; CR ours / thesis; cells where one of "
                       "the two is missing left out)\n")
            clfs = [k for k in CLASSIFIERS[part] if k in set(cp["classifier"])]
            out.append("| method | " + " | ".join(clfs) + " |")
            out.append("|---" * (len(clfs) + 1) + "|")
            for m in [m for m in order if m in set(cp["method"])]:
                cells = []
                for k in clfs:
                    g = cp[(cp["classifier"] == k) & (cp["method"] == m)].dropna(subset=["Cal_ours", "Cal_thesis"])
                    cells.append("" if g.empty else
                                 f"{_fmt(g['Cal_ours'].mean())} / {_fmt(g['Cal_thesis'].mean())}; "
                                 f"{_fmt(g['CR_ours'].mean())} / {_fmt(g['CR_thesis'].mean())} ({len(g)})")
                out.append(f"| {m} | " + " | ".join(cells) + " |")
            out.append("")
    cl = pd.read_csv(folder / "claims.csv")
    cl = cl[cl["detail_ours"].notna() & (cl["detail_ours"].astype(str) != "")]
    if len(cl):
        out.append("| claim | rule | thesis's numbers | ours |")
        out.append("|---|---|---|---|")
        for _, r in cl.iterrows():
            verdict = lambda h, d: f"{'holds' if str(h) == 'True' else 'does not hold'}: {d}"  # noqa: E731
            out.append(f"| {r['text']} | {r['rule']} | {verdict(r['holds_thesis'], r['detail_thesis'])} | "
                       f"{verdict(r['holds_ours'], r['detail_ours'])} |")
        out.append("")
    return "\n".join(out)


def _size(name: str) -> int:
    X, _, classes = load_dataset(name)
    return X.shape[0] * len(classes)


def _labels(dataset: str) -> NDArray[np.intp]:
    _, yl, classes = load_dataset(dataset)
    return np.asarray(pd.Index(classes, dtype=object).get_indexer(yl), dtype=np.intp)


def _row_settings(folds: int, seed: int, classifiers: Sequence[str] | None) -> dict[str, Any]:
    """The settings that determine a folder's rows (its completion record is bound to them)."""
    return {"folds": int(folds), "seed": int(seed), "classifiers": None if classifiers is None else sorted(classifiers)}


def _previous(out: Path, folds: int, seed: int, classifiers: Sequence[str] | None) -> dict[str, Any] | None:
    """The state of an earlier run in ``out`` (to resume it), or None for a fresh folder; an
    error when the earlier run used other settings."""
    study = out / "study.json"
    old = read_settings(study)
    mine = _row_settings(folds, seed, classifiers)
    if old is not None:
        theirs = {k: old.get(k) for k in mine}
        if old.get("study") != "gebel2009" or theirs != mine:
            raise ValueError(
                f"{out} holds a gebel2009 run with {theirs} (this run: {mine}); run with the same "
                "--folds and --seed to resume it, or choose a new --out folder"
            )
    # the record is bound to the settings that determine the rows: a study.json edited to this
    # run's seed, or removed, is refused here (issue 41)
    Store(out, settings={"study": "gebel2009", **mine})
    if old is None:  # a fresh folder, or settings cut short or corrupt: start over, trust nothing
        return None
    if not old.get("datasets_done"):
        return None
    # resume only from files that match the completion record (evstat.experiments.store); a
    # file cut short or edited means starting over, never trusting it
    if not Store(out, settings={"study": "gebel2009", **mine}).files_done("tables", [out / "results.csv", out / "table.csv"]):
        return None
    return {"study": old, "results": pd.read_csv(out / "results.csv"), "table": pd.read_csv(out / "table.csv")}


def _write(out: Path, results: pd.DataFrame, table: pd.DataFrame, folds: int, seed: int, jobs: int,
           parts: Sequence[str], classifiers: Sequence[str] | None, n_units: int, seconds: float,
           dataset_seconds: dict[str, float], commands: list[str], done: list[str]) -> None:
    results = results.copy()
    results["error"] = results["error"].fillna("")
    for frame, name, fmt in ((results, "results.csv", "%.6g"), (table, "table.csv", "%.4f"),
                             (comparison(table), "comparison.csv", "%.4f")):
        with atomic_path(out / name) as tmp:
            frame.to_csv(tmp, index=False, float_format=fmt)
    write_claims(out, parts)
    units_done = len(results[["part", "dataset", "classifier", "reduction", "fold"]].drop_duplicates())
    write_text(out / "study.json", json.dumps({
        "study": "gebel2009", "folds": folds, "seed": seed, "jobs": jobs, "parts": list(parts),
        "classifiers": None if classifiers is None else sorted(classifiers),
        "datasets_done": done, "units_planned": n_units, "units_done": int(units_done),
        "seconds": round(seconds, 1), "dataset_seconds": {k: round(v, 1) for k, v in dataset_seconds.items()},
        "command": commands[-1] if commands else "", "commands": commands,
        "machine": f"{platform.machine()} {platform.system()} {platform.release()}", "python": platform.python_version(),
    }, indent=1), encoding="utf-8")
    store = Store(out, settings={"study": "gebel2009", **_row_settings(folds, seed, classifiers)})
    store.mark_files("tables", [out / "results.csv", out / "table.csv"])


@dataclass
class GebelResult:
    """What :func:`run_gebel2009` wrote."""

    out: Path
    seconds: float
    units: int


def run_gebel2009(
    out: str | Path,
    folds: int = 10,
    seed: int = 2009,
    jobs: int = 1,
    parts: Sequence[str] = PARTS,
    datasets: Sequence[str] | None = None,
    quiet: bool = False,
    command: str = "",
    classifiers: Sequence[str] | None = None,
    wait: bool = False, note: Callable[[str], None] | None = None,
) -> GebelResult:
    """Run the study (see the module docstring) and write its files into ``out``.

    Parameters
    ----------
    out : str or pathlib.Path
        Output folder (created). A folder holding an earlier run with the same ``folds``,
        ``seed`` and ``classifiers`` is resumed: the data sets in its ``study.json``
        (``datasets_done``) are kept and skipped, the others run and are added (so a run can
        also be extended by more data sets or the other part); other settings are an error.
    folds : int
        Outer cross-validation folds (the thesis: 10).
    seed : int
        Root seed.
    jobs : int
        Parallel worker processes (joblib); the results do not depend on it.
    parts : sequence of {"two-class", "K-class"}
        Which tables to run.
    datasets : sequence of str, optional
        A subset of :data:`DATASETS` (default: all of the chosen parts).
    quiet : bool
        No progress bar.
    command : str
        The command line, recorded in ``study.json``.
    classifiers : sequence of str, optional
        A subset of the classifiers (``svm``, ``ann``, ``nb``, ``tree``); default all of each part.
    wait : bool
        If another run holds ``out``, wait for it to end (default: refuse,
        :class:`evstat.experiments.store.StudyBusyError`); a folder holding a symbolic link or a
        special file is refused (:func:`evstat.experiments.store.study_folder`).
    note : callable, optional
        Receives one-line notes (waiting, a killed run's lock taken over).
    """
    from joblib import Parallel, delayed

    from evstat.io.workers import guarded

    if int(folds) < 2:
        raise ValueError(f"folds must be at least 2, got {folds}")
    bad = [p for p in parts if p not in PARTS]
    if bad:
        raise ValueError(f"unknown part(s) {bad}; choose from {PARTS}")
    names = {"two-class": DATASETS_TWO, "K-class": DATASETS_K}
    if datasets is not None:
        unknown = [d for d in datasets if d not in DATASETS]
        if unknown:
            raise ValueError(f"unknown data set(s) {unknown}; choose from {', '.join(DATASETS)}")
    units = [
        (part, d, clf, red, f)
        for part in parts
        for d in names[part]
        if datasets is None or d in datasets
        for clf in CLASSIFIERS[part]
        if classifiers is None or clf in classifiers
        for red in REDUCTIONS[part]
        for f in range(folds)
    ]
    out = Path(out)
    # created, checked for links and special files, locked, writes confined (issue 41)
    with study_folder(out, wait=wait, note=note):
        prior = _previous(out, folds, seed, classifiers)
        results = prior["results"] if prior else pd.DataFrame()
        table = prior["table"] if prior else pd.DataFrame()
        old = prior["study"] if prior else {}
        done: list[str] = list(old.get("datasets_done", []))
        parts = [p for p in PARTS if p in set(parts) | set(old.get("parts", []))]
        dataset_seconds: dict[str, float] = dict(old.get("dataset_seconds", {}))
        commands: list[str] = list(old.get("commands") or ([old["command"]] if old.get("command") else [])) + [command]
        seconds_before = float(old.get("seconds", 0.0))
        units_before = int(old.get("units_done", 0)) if prior else 0
        todo = [u for u in units if f"{u[0]}:{u[1]}" not in done]
        n_units = units_before + len(todo)
        t0 = time.perf_counter()
        order = sorted({(u[0], u[1]) for u in todo}, key=lambda pd_: (PARTS.index(pd_[0]), _size(pd_[1]), pd_[1]))
        bar = None
        if not quiet:
            try:
                from tqdm.auto import tqdm

                bar = tqdm(total=len(todo), desc="gebel2009 units")
            except ImportError:  # pragma: no cover
                bar = None
        # data sets one after the other (smallest first); the files are rewritten after each, so an
        # interrupted run leaves complete tables for the data sets it finished, and the same command
        # resumes from them (data sets already in study.json's datasets_done are skipped)
        for part, d in order:
            t_d = time.perf_counter()
            mine = [u for u in todo if u[0] == part and u[1] == d]
            chunks = Parallel(n_jobs=jobs)(delayed(guarded(_unit))(*u, folds, seed) for u in mine)
            if bar is not None:
                bar.update(len(mine))
            rows: list[dict[str, Any]] = []
            preds: dict[tuple, list] = {}
            for r in (r for ch in chunks for r in ch):
                p = r.pop("_pred", None)
                if p is not None:
                    preds.setdefault((r["part"], r["dataset"], r["classifier"], r["reduction"], r["method"]), []).append(p)
                rows.append(r)
            new = pd.DataFrame(rows)
            results = pd.concat([results, new], ignore_index=True)
            table = pd.concat([table, pooled_table(new, preds, {d: _labels(d)})], ignore_index=True)
            done.append(f"{part}:{d}")
            dataset_seconds[f"{part}:{d}"] = time.perf_counter() - t_d
            _write(out, results, table, folds, seed, jobs, parts, classifiers, n_units,
                   seconds_before + time.perf_counter() - t0, dataset_seconds, commands, done)
        if bar is not None:
            bar.close()
        seconds = time.perf_counter() - t0
        return GebelResult(out=out, seconds=seconds, units=len(todo))
