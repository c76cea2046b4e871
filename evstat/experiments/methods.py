"""The combination methods compared in Minary et al. (2019), sections 5.2 and 5.3, and their errors.

Every method turns the SVM scores of the calibration rows into a decision for each test row;
without a reject option the decision is the class of highest belief (0-1 costs; both evidential
strategies agree, section 5.2) or, for a probabilistic method, the class of probability above
1/2, by :func:`evstat.metrics.decide_binary`. A tie (Bel({1}) = Bel({0}), e.g. a vacuous mass
from an empty cell, an empty ball or far neighbours; or p = 1/2) is decided by one policy for
every method, the ``tie`` argument of :func:`method_errors`: ``"random"`` (class 0 or 1 with
probability 1/2, the study's default, as evclass's ``max.col``) or ``"first"`` (class 0). The
number of tied test rows is reported per method (``n_ties``). The error rate is misclassified /
tested.

Methods (``name``: what it is)

* ``joint_logistic``: evidential joint logistic calibration, :func:`evstat.evlogit` on
  ``y ~ svm1 + svm2 + svm3`` fitted to the concatenation of the three calibration halves.
* ``joint_logistic_prob``: its probabilistic version, theta_hat > 1/2 (same fit).
* ``joint_binning``: evidential joint binning, :func:`evstat.evbinning` with B_M = 3 uniform bins
  per score (27 cells); an empty cell is vacuous (Bel = 0, Pl = 1), a tie decided by the tie policy.
* ``joint_binning_prob``: its probabilistic version k/n; an empty cell, where k/n is undefined,
  predicts the positive rate of the calibration data (``empty="prior"``, the paper is silent).
* ``disjoint_logistic``: Xu et al.'s disjoint approach, each score calibrated alone by evidential
  logistic calibration on *its own* calibration half (``y ~ svm_j`` on half j), the three mass
  functions combined by Dempster's rule (:func:`evstat.belief.combine`).
* ``disjoint_binning``: the same with evidential binning, B_U = 9 uniform bins per score.
* ``gbt``: the GBT ball classifier of Denoeux and Smets (section 5.3, eqs. 59-65) with radius
  r = 1 on the score vectors, trained on the joint calibration set (:func:`evstat.gbt`).
* ``eknn``: the evidential k-NN rule (section 5.3, eqs. 66-70) with kappa = 15 neighbours and
  Zouhal-Denoeux parameter optimisation, trained on the joint calibration set
  (:func:`evstat.eknn`).

A method that fails in a round (for instance a calibration on rows whose score column is
constant) is reported with a missing error rate and the message in ``note``; nothing is dropped
silently. Rows in total conflict under Dempster's rule (K = 1) get a vacuous mass (Bel = 0,
Pl = 1), and their number is written in ``note``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = [
    "METHODS",
    "Method",
    "Prediction",
    "available_methods",
    "dempster_binary",
    "method_errors",
    "predict_methods",
]


@dataclass(frozen=True)
class Method:
    """A compared method: name, label for plots and tables, and what kind of method it is."""

    name: str
    label: str
    family: str  # "logistic", "binning" or "combiner"
    approach: str  # "joint", "disjoint" or "trainable"
    framework: str  # "evidential" or "probabilistic"


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("joint_logistic", "Evidential joint logistic", "logistic", "joint", "evidential"),
        Method("joint_logistic_prob", "Probabilistic joint logistic", "logistic", "joint", "probabilistic"),
        Method("joint_binning", "Evidential joint binning (B_M = 3)", "binning", "joint", "evidential"),
        Method("joint_binning_prob", "Probabilistic joint binning (B_M = 3)", "binning", "joint", "probabilistic"),
        Method("disjoint_logistic", "Evidential disjoint logistic", "logistic", "disjoint", "evidential"),
        Method("disjoint_binning", "Evidential disjoint binning (B_U = 9)", "binning", "disjoint", "evidential"),
        Method("gbt", "GBT ball classifier (r = 1)", "combiner", "trainable", "evidential"),
        Method("eknn", "Evidential k-NN (kappa = 15)", "combiner", "trainable", "evidential"),
    )
}
"""All methods of sections 5.2-5.3, in the order of the tables."""

JOINT_BINS = 3
DISJOINT_BINS = 9
GBT_RADIUS = 1.0
EKNN_K = 15


@dataclass
class Prediction:
    """A method's prediction for the test rows: Bel({1}) and Pl({1}) (evidential) or P(y = 1)."""

    bel: NDArray[np.float64] | None = None
    pl: NDArray[np.float64] | None = None
    p: NDArray[np.float64] | None = None
    note: str = ""

    def decisions(self, tie: str = "first", seed: Any = None) -> NDArray[np.int64]:
        """0/1 decisions without reject: the class of highest belief, or p > 1/2; ties by the
        ``tie`` policy of :func:`evstat.metrics.decide_binary` (``"first"``: class 0)."""
        from evstat.metrics import decide_binary

        if self.bel is not None:
            return decide_binary(self.bel, self.pl, "pessimistic", tie=tie, seed=seed).astype(np.int64)
        return decide_binary(None, None, "probabilistic", p=self.p, tie=tie, seed=seed).astype(np.int64)

    def ties(self) -> NDArray[np.bool_]:
        """Test rows whose two classes are tied (see :func:`evstat.metrics.tied_rows`)."""
        from evstat.metrics import tied_rows

        if self.bel is not None:
            return tied_rows(self.bel, self.pl, "pessimistic")
        return tied_rows(None, None, "probabilistic", p=self.p)


def available_methods() -> list[str]:
    """Names of the methods of the study, in order.

    Examples
    --------
    >>> "joint_logistic" in available_methods()
    True
    """
    return list(METHODS)


def dempster_binary(bel: NDArray[np.float64], pl: NDArray[np.float64]) -> tuple[NDArray, NDArray, int]:
    """Combine J binary mass functions per row by Dempster's rule
    (:func:`evstat.calibration.dempster_binary`, which the disjoint calibrator uses).

    Parameters
    ----------
    bel, pl : arrays of shape (J, m)
        Bel({1}) and Pl({1}) of the J mass functions of each of m rows.

    Returns
    -------
    bel, pl : arrays of shape (m,)
        Of the combination. Rows in total conflict (K = 1) get a vacuous mass (0, 1).
    n_conflict : int
        Number of such rows.

    Examples
    --------
    >>> import numpy as np
    >>> b, p, k = dempster_binary(np.array([[0.6], [0.0]]), np.array([[1.0], [0.7]]))
    >>> round(float(b[0]), 6), round(float(p[0]), 6), k
    (0.512195, 0.853659, 0)
    """
    from evstat.calibration import dempster_binary as combine_rows

    out_bel, out_pl, bad = combine_rows(bel, pl)
    return out_bel, out_pl, int(bad.sum())


_FORMULA = "y ~ svm1 + svm2 + svm3"


def _guard(fn: Callable[[], Prediction]) -> Prediction:
    """Run a method; a failure becomes a Prediction with only a note. Expected warnings
    (empty cells of a binning) are silenced, others are kept in the note."""
    from evstat.calibration.binning import EmptyCellWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", EmptyCellWarning)
        try:
            pred = fn()
        except (ValueError, RuntimeError, ArithmeticError, np.linalg.LinAlgError) as err:
            msg = " ".join(str(err).split())
            return Prediction(note=f"failed: {type(err).__name__}: {msg[:300]}")
    msgs = sorted({f"{w.category.__name__}: {' '.join(str(w.message).split())[:200]}" for w in caught})
    if msgs:
        pred.note = "; ".join(filter(None, [pred.note, *("warning: " + m for m in msgs)]))
    return pred


def _score_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.startswith("svm")]


def predict_methods(
    cal_halves: Sequence[pd.DataFrame], test: pd.DataFrame, methods: Sequence[str] | None = None
) -> dict[str, Prediction]:
    """Fit the methods on the calibration halves and predict the test rows.

    Parameters
    ----------
    cal_halves : sequence of DataFrames
        Calibration half ``j`` of classifier ``j + 1``: columns ``svm1, ..., svmJ`` (the scores of
        all J SVMs on those rows) and ``y`` (0/1). The joint methods use their concatenation;
        the disjoint ones calibrate ``svm_j`` on half ``j`` only.
    test : DataFrame
        Test rows with the same score columns (``y`` not used).
    methods : sequence of str, optional
        Names from :data:`METHODS` (default: :func:`available_methods`).

    Returns
    -------
    dict
        name -> :class:`Prediction`.

    Examples
    --------
    >>> import pandas as pd
    >>> h = pd.DataFrame({"svm1": [-2.0, -1, 1, 2], "svm2": [-1.0, -2, 2, 1], "y": [0, 0, 1, 1]})
    >>> t = pd.DataFrame({"svm1": [-2.0, 2.0], "svm2": [-2.0, 2.0]})
    >>> pred = predict_methods([h, h], t, ["joint_logistic_prob", "disjoint_binning"])
    >>> pred["joint_logistic_prob"].decisions().tolist(), pred["disjoint_binning"].decisions().tolist()
    ([0, 1], [0, 1])
    """
    import evstat as ev

    names = available_methods() if methods is None else list(methods)
    unknown = [m for m in names if m not in METHODS]
    if unknown:
        raise ValueError(f"unknown methods {unknown}; choose from {list(METHODS)}")
    missing = [m for m in names if m not in available_methods()]
    if missing:
        raise ValueError(f"methods {missing} need evstat's classifiers (ev.gbt, ev.eknn), which this installation lacks")
    joint = pd.concat(list(cal_halves), ignore_index=True)
    cols = _score_columns(joint)
    formula = "y ~ " + " + ".join(cols)
    out: dict[str, Prediction] = {}

    if {"joint_logistic", "joint_logistic_prob"} & set(names):
        def _joint_logistic() -> Prediction:
            fit = ev.evlogit(formula, joint)
            if "joint_logistic" not in names:  # theta_hat only: no predictive belief needed
                return Prediction(p=fit.predict(test, type="prob").to_numpy())
            b = fit.predict(test, type="belief")
            return Prediction(bel=b["bel"].to_numpy(), pl=b["pl"].to_numpy(), p=b["theta"].to_numpy())

        pred = _guard(_joint_logistic)
        if "joint_logistic" in names:
            out["joint_logistic"] = Prediction(bel=pred.bel, pl=pred.pl, note=pred.note)
        if "joint_logistic_prob" in names:
            out["joint_logistic_prob"] = Prediction(p=pred.p, note=pred.note)

    if {"joint_binning", "joint_binning_prob"} & set(names):
        def _joint_binning() -> Prediction:
            b = ev.evbinning(formula, joint, bins=JOINT_BINS, empty="prior").predict(test, type="belief")
            return Prediction(bel=b["bel"].to_numpy(), pl=b["pl"].to_numpy(), p=b["theta"].to_numpy())

        pred = _guard(_joint_binning)
        if "joint_binning" in names:
            out["joint_binning"] = Prediction(bel=pred.bel, pl=pred.pl, note=pred.note)
        if "joint_binning_prob" in names:
            out["joint_binning_prob"] = Prediction(p=pred.p, note=pred.note)

    for name, fitter in (
        ("disjoint_logistic", lambda f, d: ev.evlogit(f, d)),
        ("disjoint_binning", lambda f, d: ev.evbinning(f, d, bins=DISJOINT_BINS)),
    ):
        if name not in names:
            continue

        def _disjoint(fitter: Callable = fitter) -> Prediction:
            bel = np.empty((len(cols), len(test)))
            pl = np.empty_like(bel)
            for j, (col, half) in enumerate(zip(cols, cal_halves, strict=True)):
                b = fitter(f"y ~ {col}", half[[col, "y"]]).predict(test[[col]], type="belief")
                bel[j], pl[j] = b["bel"].to_numpy(), b["pl"].to_numpy()
            cb, cp, n_bad = dempster_binary(bel, pl)
            note = f"{n_bad} test rows in total conflict (K = 1) set vacuous" if n_bad else ""
            return Prediction(bel=cb, pl=cp, note=note)

        out[name] = _guard(_disjoint)

    if "gbt" in names:
        def _gbt() -> Prediction:
            b = ev.gbt(formula, joint, radius=GBT_RADIUS).predict(test, type="belief")
            return Prediction(bel=b["bel"].to_numpy(), pl=b["pl"].to_numpy())

        out["gbt"] = _guard(_gbt)

    if "eknn" in names:
        def _eknn() -> Prediction:
            b = ev.eknn(formula, joint, k=EKNN_K).predict(test, type="belief")
            return Prediction(bel=b["bel"].to_numpy(), pl=b["pl"].to_numpy())

        out["eknn"] = _guard(_eknn)
    return {m: out[m] for m in names}


TIES = ("random", "first")
"""Tie policies of the study (:func:`evstat.metrics.decide_binary`'s ``tie``)."""


def _method_seed(seed: Any, name: str) -> np.random.SeedSequence:
    """The tie-breaking seed of one method: ``seed``'s spawn key extended by the method's
    position in :data:`METHODS` (so it does not depend on which methods run)."""
    base = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return np.random.SeedSequence(base.entropy, spawn_key=(*base.spawn_key, list(METHODS).index(name)))


def method_errors(
    y: NDArray, predictions: dict[str, Prediction], tie: str = "first", seed: Any = None
) -> pd.DataFrame:
    """Error counts of each method's decisions without reject, and its tied test rows.

    Parameters
    ----------
    y : array of 0/1
        Test classes.
    predictions : dict
        name -> :class:`Prediction` (from :func:`predict_methods`).
    tie : {"first", "random"}, default "first"
        Tie policy for every method (:func:`evstat.metrics.decide_binary`).
    seed : int or numpy.random.SeedSequence, optional
        Randomness of ``tie="random"``; each method draws from its own child sequence.

    Returns
    -------
    pandas.DataFrame
        One row per method: ``method``, ``n_test``, ``n_errors``, ``error_rate`` (NaN for a
        method that failed), ``n_ties`` (test rows whose class the tie policy chose) and
        ``note``.

    Examples
    --------
    >>> import numpy as np
    >>> pred = {"joint_logistic_prob": Prediction(p=np.array([0.2, 0.7, 0.5]))}
    >>> method_errors(np.array([0, 0, 1]), pred)[["method", "n_errors", "error_rate", "n_ties"]]
                    method  n_errors  error_rate  n_ties
    0  joint_logistic_prob       2.0    0.666667     1.0
    """
    check = [t for t in (tie,) if t not in TIES]
    if check:
        raise ValueError(f"tie must be one of {TIES}, got {tie!r}")
    yy = np.asarray(y, dtype=np.int64)
    rows = []
    for name, pred in predictions.items():
        if pred.bel is None and pred.p is None:
            ne = nt = np.nan
        else:
            s = _method_seed(seed, name) if name in METHODS else seed
            ne = float(np.sum(pred.decisions(tie, s) != yy))
            nt = float(np.sum(pred.ties()))
        rows.append({"method": name, "n_test": yy.size, "n_errors": ne, "error_rate": ne / yy.size, "n_ties": nt,
                     "note": pred.note})
    return pd.DataFrame(rows, columns=["method", "n_test", "n_errors", "error_rate", "n_ties", "note"])
