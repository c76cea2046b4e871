"""Gebel's (2009) performance measures of membership probabilities.

M. Gebel, "Multivariate calibration of classifier scores into the probability space", PhD thesis,
TU Dortmund, 2009: correctness rate CR (section 2.4.1, eq. 2.3), 1 - RMSE, the well-calibration
ratio WCR and the calibration measure Cal (section 2.4.4, eqs. 2.4-2.6), and Garczarek's (2002)
ability to separate AS (eq. 2.7) and accuracy Ac (section 4.4.3, the objective of assignment
values). Reading notes: ``notes/gebel-thesis.md``.

[!] AS and Ac. The thesis writes both as 1 - K/(K-1) (1/N) sum_i sqrt(sum_k (I - P)^2). The
factor K/(K-1) standardises *squared* distances: the squared distance of a probability vector to
the corner of its assigned class is at most (K-1)/K (reached by the uniform vector), so with
squared distances AS lies in [0, 1] (1: every row assigned with certainty; 0: every row uniform)
and Ac is 0 for the uniform prediction and 1 for a perfect one, as Garczarek standardises them;
with the root the uniform prediction would give AS = 1 - sqrt(K/(K-1)) < 0. evstat uses the
squared distances (the reading notes' correction):

    AS = 1 - K/(K-1) (1/N) sum_i sum_k (I(assigned_i = k) - P(k | x_i))^2,
    Ac = 1 - K/(K-1) (1/N) sum_i sum_k (I(c_i = k) - P(k | x_i))^2 = 1 - K/(K-1) Brier,

with Brier the multi-class Brier score (sum over classes, mean over rows). Ac lies in
[1 - 2K/(K-1), 1]; it is negative when the predictions are worse than the uniform vector.

[!] Cal in the thesis's tables. Eq. 2.6 defines Cal as the geometric mean sqrt((1 - RMSE) WCR),
and the text calls it one ("combining the two calibration measures by their geometric mean"), but
the numbers of the thesis's Tables 6.3-6.6 and 6.10-6.13 are the *product* (1 - RMSE) WCR, without
the root. Evidence (``reports/gebel2009/README.md``, "Which Cal the thesis's tables report"):

* the Gaussian naive Bayes's own probabilities involve no calibrator, and our 10-fold CR agrees
  with the thesis's within 0.005 on 7 of the 9 two-class data sets (not german, ionosphere). On
  those 7, the product of eqs. 2.4 and 2.5 *as printed* (per-row root with 1/K inside; 1/K^2 and
  absolute differences) reproduces the thesis's Cal with a mean absolute difference of 0.004
  (largest 0.011; e.g. sonar 0.506 vs 0.505, heart 0.740 vs 0.741, pima 0.638 vs 0.642), while
  the root is 0.125 too high on average. Of 40 readings tried (RMSE with a global root, without
  the 1/K, of the true class only; WCR with 1/K, squared differences, the assigned class's
  confidence; each with and without the root), no other comes closer than 0.029
  (``reports/gebel2009/which_cal.py``);
* a constant prediction with probability 1 for one class on balanced data has 1 - RMSE = 0.5 and
  WCR = 0.75: product 0.375, the thesis's Cal of its degenerate cells (CR 0.500) on Banknotes
  (Tab. 6.5, NB + isotonic and NB + Bayes-ALAP); the root would be 0.612.

``cal(y, p)`` follows eq. 2.6 (the definition); ``cal(y, p, root=False)`` is the quantity the
thesis's tables report. The ranking of methods by Cal is the same under both (the root is
increasing); their levels are not, and sums or means such as sqrt(CR Cal) differ.

All four take the observed classes ``y`` and either a 1-D array ``p`` of P(y = 1) for a binary
problem (then the class-probability matrix is [1 - p, p], K = 2) or a 2-D array (N, K) of class
probabilities with rows summing to 1 and ``y`` coded 0..K-1. The assigned class is the argmax of a
row; ties go to the lowest class index (for a binary p: class 1 exactly when p > 0.5, as
``error_rate``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.metrics._validation import (
    as_float_1d,
    check_finite,
    check_nonempty,
    check_same_length,
    check_y_p,
)

__all__ = ["ability_to_separate", "cal", "correctness_rate", "garczarek_accuracy", "one_minus_rmse", "wcr"]


def correctness_rate(y: ArrayLike, p: ArrayLike) -> float:
    """Correctness rate CR = (1/N) sum_i I(assigned class of row i = c_i) (Gebel 2009, 2.4.1, eq. 2.3).

    Parameters
    ----------
    y : array-like
        Observed classes: 0/1 (or bool) with a 1-D ``p``; 0..K-1 with an (N, K) ``p``.
    p : array-like
        P(y = 1) per row (1-D) or class probabilities (N, K).

    Returns
    -------
    float
        CR in [0, 1]; for a binary p this is 1 - ``error_rate(y, p)``.

    Examples
    --------
    >>> correctness_rate([1, 0, 1, 0], [0.8, 0.3, 0.4, 0.5])
    0.75
    >>> correctness_rate([2, 0], [[0.1, 0.2, 0.7], [0.3, 0.6, 0.1]])
    0.5
    """
    yy, pm = _gebel_inputs(y, p)
    return float(np.mean(np.argmax(pm, axis=1) == yy))


def one_minus_rmse(y: ArrayLike, p: ArrayLike) -> float:
    """Effectiveness of assignment, 1 - RMSE (Gebel 2009, 2.4.4, eq. 2.4).

    1 - RMSE = 1 - (1/N) sum_i sqrt((1/K) sum_k (I(c_i = k) - P(k | x_i))^2).

    Note the root is taken per row, before averaging (as in the thesis), so this is not
    1 - sqrt(Brier). For K = 2 the row term is ``|y_i - p_i|``: ``1 - RMSE = 1 - mean |y - p|``.

    Parameters
    ----------
    y : array-like
        Observed classes (0/1 for a 1-D ``p``; 0..K-1 for an (N, K) ``p``).
    p : array-like
        P(y = 1) per row (1-D) or class probabilities (N, K).

    Returns
    -------
    float
        In [0, 1]; higher is better.

    Examples
    --------
    >>> round(one_minus_rmse([1, 0, 1, 0], [0.8, 0.3, 0.4, 0.5]), 6)  # 1 - (.2 + .3 + .6 + .5) / 4
    0.6
    """
    yy, pm = _gebel_inputs(y, p)
    k = pm.shape[1]
    ind = _one_hot(yy, k)
    return float(1.0 - np.mean(np.sqrt(np.sum((ind - pm) ** 2, axis=1) / k)))


def wcr(y: ArrayLike, p: ArrayLike) -> float:
    """Well-calibration ratio (Gebel 2009, 2.4.4, eq. 2.5, after DeGroot and Fienberg 1983).

    Partition the rows by assigned class, T_k = {i : assigned class k}. For every k and j let
    Cf_kj = mean over T_k of P(j | x_i) (the average confidence in class j) and CR_kj = share of
    T_k whose true class is j. Then

        ``WCR = 1 - (1/K^2) sum_k sum_j |Cf_kj - CR_kj|``.

    Empty partitions (a class never assigned) have no Cf or CR; they add nothing to the sum while
    the divisor stays K^2 (a documented choice; the thesis does not treat this case). For K = 2,
    WCR = 1 - (d_0 + d_1)/2 with ``d_k = |mean p - mean y|`` over T_k.

    Parameters
    ----------
    y : array-like
        Observed classes (0/1 for a 1-D ``p``; 0..K-1 for an (N, K) ``p``).
    p : array-like
        P(y = 1) per row (1-D) or class probabilities (N, K).

    Returns
    -------
    float
        In [0, 1]; higher is better.

    Examples
    --------
    >>> # T_1 = rows 0, 2 (mean p .7, share y=1 .5); T_0 = rows 1, 3 (mean p .3, share y=1 .5)
    >>> round(wcr([1, 0, 0, 1], [0.8, 0.4, 0.6, 0.2]), 6)  # 1 - (0.2 + 0.2) / 2
    0.8
    """
    yy, pm = _gebel_inputs(y, p)
    k = pm.shape[1]
    assigned = _one_hot(np.argmax(pm, axis=1), k)  # (N, K)
    nk = assigned.sum(axis=0)  # rows per partition T_k
    s_conf = assigned.T @ pm  # [k, j] = sum over T_k of P(j | x)
    s_true = assigned.T @ _one_hot(yy, k)  # [k, j] = count in T_k of true class j
    ne = nk > 0
    diff = np.abs(s_conf[ne] - s_true[ne]) / nk[ne][:, None]
    return float(1.0 - diff.sum() / k**2)


def cal(y: ArrayLike, p: ArrayLike, *, root: bool = True) -> float:
    """Calibration measure Cal = sqrt((1 - RMSE) * WCR) (Gebel 2009, 2.4.4, eq. 2.6).

    The geometric mean of :func:`one_minus_rmse` and :func:`wcr`; with ``root=False`` their
    product (1 - RMSE) WCR, which is what the thesis's result tables (6.3-6.6, 6.10-6.13) report
    under the name Cal (see the module docstring for the evidence).

    Parameters
    ----------
    y : array-like
        Observed classes (0/1 for a 1-D ``p``; 0..K-1 for an (N, K) ``p``).
    p : array-like
        P(y = 1) per row (1-D) or class probabilities (N, K).
    root : bool, default True
        True: eq. 2.6, the geometric mean. False: the product, the thesis tables' Cal (equal to the
        square of the default).

    Returns
    -------
    float
        In [0, 1]; higher is better.

    Examples
    --------
    >>> round(cal([1, 0, 0, 1], [0.8, 0.4, 0.6, 0.2]), 6)  # sqrt(0.5 * 0.8)
    0.632456
    >>> round(cal([1, 0, 0, 1], [0.8, 0.4, 0.6, 0.2], root=False), 6)  # 0.5 * 0.8, as in the tables
    0.4
    >>> cal([1, 1, 0, 0], [1.0, 1.0, 1.0, 1.0], root=False)  # 0.5 * 0.75: thesis Tab. 6.5, Banknotes
    0.375
    """
    if not isinstance(root, (bool, np.bool_)):
        raise TypeError(f"root must be True (eq. 2.6) or False (the thesis tables' product); got {root!r}.")
    product = one_minus_rmse(y, p) * wcr(y, p)
    return float(np.sqrt(product) if root else product)


def ability_to_separate(p: ArrayLike) -> float:
    """Garczarek's ability to separate AS (Gebel 2009, 2.4.4, eq. 2.7, with the squared-distance
    correction of the module docstring).

    AS = 1 - K/(K-1) (1/N) sum_i sum_k (I(assigned_i = k) - P(k | x_i))^2, the assigned class
    the argmax of the row (ties: the lowest class index). It does not use the true classes.

    Parameters
    ----------
    p : array-like
        P(y = 1) per row (1-D, K = 2) or class probabilities (N, K).

    Returns
    -------
    float
        In [0, 1]: 1 when every row puts probability 1 on one class, 0 when every row is uniform.

    Examples
    --------
    >>> ability_to_separate([[1.0, 0.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])  # (1 + 0) / 2
    0.5
    >>> round(ability_to_separate([0.9, 0.2]), 6)  # 1 - 2 * (2 * .01 + 2 * .04) / 2
    0.9
    """
    pm = _prob_matrix(p)
    k = pm.shape[1]
    assigned = _one_hot(np.argmax(pm, axis=1), k)
    return float(1.0 - k / (k - 1) * np.mean(np.sum((assigned - pm) ** 2, axis=1)))


def garczarek_accuracy(y: ArrayLike, p: ArrayLike) -> float:
    """Garczarek's accuracy Ac (Gebel 2009, 4.4.3, with the squared-distance correction of the
    module docstring): Ac = 1 - K/(K-1) (1/N) sum_i sum_k (I(c_i = k) - P(k | x_i))^2.

    Equal to ``1 - K/(K-1) * brier_score(y, p)`` with the multi-class Brier score (for K = 2:
    1 - 4 mean (y - p)^2).

    Parameters
    ----------
    y : array-like
        Observed classes (0/1 for a 1-D ``p``; 0..K-1 for an (N, K) ``p``).
    p : array-like
        P(y = 1) per row (1-D) or class probabilities (N, K).

    Returns
    -------
    float
        In [1 - 2K/(K-1), 1]; 1 for perfect predictions, 0 for the uniform vector.

    Examples
    --------
    >>> round(garczarek_accuracy([1, 0], [0.9, 0.2]), 6)  # 1 - 4 * (.01 + .04) / 2
    0.9
    >>> garczarek_accuracy([0, 1], [[1 / 3, 1 / 3, 1 / 3], [1 / 3, 1 / 3, 1 / 3]])
    0.0
    """
    yy, pm = _gebel_inputs(y, p)
    k = pm.shape[1]
    return float(1.0 - k / (k - 1) * np.mean(np.sum((_one_hot(yy, k) - pm) ** 2, axis=1)))


def _prob_matrix(p: Any) -> np.ndarray:
    """Validated (N, K) probability matrix from a 1-D P(y = 1) or an (N, K) array (no labels)."""
    n = len(p) if not np.isscalar(p) else 1
    labels = np.zeros(n, dtype=np.int64)
    return _gebel_inputs(labels, p)[1]


# --------------------------------------------------------------------------------------------
def _one_hot(labels: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros((labels.shape[0], k))
    out[np.arange(labels.shape[0]), labels] = 1.0
    return out


def _gebel_inputs(y: Any, p: Any) -> tuple[np.ndarray, np.ndarray]:
    """-> (labels 0..K-1 as int64, class-probability matrix (N, K))."""
    if isinstance(p, pd.DataFrame):
        p = p.to_numpy(dtype=float)
    ndim = np.ndim(p) if not isinstance(p, (pd.Series, pd.Index)) else 1
    if ndim == 1:
        yy, pp = check_y_p(y, p)
        return yy, np.column_stack([1.0 - pp, pp])
    if ndim != 2:
        raise ValueError(
            f"p must be 1-D (P(y = 1) per row) or 2-D (rows x classes); got {ndim} dimensions."
        )
    try:
        pm = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("p must hold numbers (class probabilities).") from None
    n, k = pm.shape
    if k < 2:
        raise ValueError(f"p must have at least 2 class columns; got {k}.")
    flat = pm.ravel()
    check_nonempty(pm, "p")
    check_finite(pm, "p")
    if (flat < 0).any() or (flat > 1).any():
        raise ValueError("p must lie in [0, 1]; some class probabilities are outside.")
    sums = pm.sum(axis=1)
    bad = np.abs(sums - 1.0) > 1e-6
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"each row of p must sum to 1; {int(bad.sum())} of {n} rows do not (first at row {i}: "
            f"sum {float(sums[i])!r}). Normalise the class probabilities."
        )
    lab = as_float_1d(y, "y")
    check_nonempty(lab, "y")
    check_finite(lab, "y")
    check_same_length(y=lab, p=pm)
    badl = (lab != np.round(lab)) | (lab < 0) | (lab > k - 1)
    if badl.any():
        raise ValueError(
            f"y must hold class indices 0..{k - 1} matching the {k} columns of p; "
            f"{int(badl.sum())} rows do not (e.g. {float(lab[badl][0])!r})."
        )
    return lab.astype(np.int64), pm
