"""One row of standard scores for a set of predictions (used to compare calibrators)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.metrics._classes import class_inputs
from evstat.metrics._validation import check_bel_pl, check_same_length, check_y_p
from evstat.metrics.probabilistic import brier_score, error_rate, log_loss
from evstat.metrics.reliability import ece

__all__ = ["score_class_predictions", "score_predictions"]


def score_predictions(
    y: ArrayLike,
    p: ArrayLike,
    bel: ArrayLike | None = None,
    pl: ArrayLike | None = None,
) -> pd.Series:
    """Standard scores of probabilistic (and optionally evidential) predictions, as one row.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1 (for an evidential calibrator: its theta_hat).
    bel, pl : array-like of float in [0, 1], optional
        Bel({1}) and Pl({1}) per row; give both or neither.

    Returns
    -------
    pandas.Series
        ``n``; ``error_rate`` (threshold 0.5, ties to class 0), ``brier``, ``log_loss`` (clipped at
        machine epsilon as scikit-learn), ``ece`` (10 equal-width bins); and, when ``bel`` and
        ``pl`` are given, ``mean_ignorance`` (mean of pl - bel) and ``betp_brier`` (Brier score of
        BetP(1) = (bel + pl)/2).

    Examples
    --------
    >>> score_predictions([0, 1, 1, 0], [0.2, 0.9, 0.6, 0.4], bel=[0.1, 0.8, 0.4, 0.2],
    ...                   pl=[0.3, 1.0, 0.8, 0.6]).round(4)
    n                 4.0000
    error_rate        0.0000
    brier             0.0925
    log_loss          0.3375
    ece               0.2750
    mean_ignorance    0.3000
    betp_brier        0.0925
    dtype: float64
    """
    yy, pp = check_y_p(y, p)
    e = ece(yy, pp)
    assert isinstance(e, float)  # without n_boot
    out = {
        "n": float(yy.shape[0]),
        "error_rate": error_rate(yy, pp),
        "brier": brier_score(yy, pp),
        "log_loss": log_loss(yy, pp),
        "ece": e,
    }
    if (bel is None) != (pl is None):
        raise ValueError("give both bel and pl (Bel({1}) and Pl({1}) per row), or neither.")
    if bel is not None:
        b, q = check_bel_pl(bel, pl)
        check_same_length(y=yy, bel=b)
        out["mean_ignorance"] = float(np.mean(q - b))
        out["betp_brier"] = brier_score(yy, (b + q) / 2.0)
    return pd.Series(out, dtype=float)


def score_class_predictions(
    y: ArrayLike,
    prob: ArrayLike,
    ignorance: ArrayLike | None = None,
) -> pd.Series:
    """Standard scores of K-class probabilistic (and evidential) predictions, as one row.

    Parameters
    ----------
    y : array-like of int
        Observed classes as positions 0..K-1 (see :func:`evstat.formula.code_response`).
    prob : array-like of shape (n, K)
        Predicted probabilities (rows sum to 1; e.g. BetP of an evidential classifier).
    ignorance : array-like of shape (n,), optional
        m(frame) per row (the mass on the whole frame of discernment).

    Returns
    -------
    pandas.Series
        ``n``; ``error_rate`` (the class of largest probability, ties to the first class),
        ``brier`` (mean over rows of sum_k (p_k - [y = k])^2, Brier's original multi-class
        score: twice the binary ``brier`` of :func:`score_predictions` when K = 2),
        ``log_loss`` (-mean log p_y, p_y clipped at machine epsilon as scikit-learn) and, with
        ``ignorance``, ``mean_ignorance``.

    Examples
    --------
    >>> score_class_predictions([0, 2], [[0.8, 0.1, 0.1], [0.2, 0.2, 0.6]]).round(4)
    n             2.000
    error_rate    0.000
    brier         0.150
    log_loss      0.367
    dtype: float64
    """
    shape = np.shape(prob)
    if len(shape) != 2 or shape[0] != np.size(y):
        raise ValueError(
            f"prob must have one row per observation and one column per class; got shape "
            f"{shape} for {np.size(y)} observations"
        )
    # the K-class checks of the other metrics: non-empty, finite, in [0, 1], rows summing to 1
    # (an empty input gave NaN scores, rows not summing to 1 were scored as they were)
    codes, pp, _ = class_inputs(y, np.asarray(prob, dtype=np.float64))
    yy = codes.astype(np.intp)
    rows = np.arange(yy.shape[0])
    onehot = np.zeros_like(pp)
    onehot[rows, yy] = 1.0
    eps = np.finfo(np.float64).eps
    out = {
        "n": float(yy.shape[0]),
        "error_rate": float(np.mean(np.argmax(pp, axis=1) != yy)),
        "brier": float(np.mean(np.sum((pp - onehot) ** 2, axis=1))),
        "log_loss": float(-np.mean(np.log(np.clip(pp[rows, yy], eps, 1.0)))),
    }
    if ignorance is not None:
        ign = np.asarray(ignorance, dtype=np.float64).ravel()
        check_same_length(y=yy, ignorance=ign)
        out["mean_ignorance"] = float(np.mean(ign))
    return pd.Series(out, dtype=float)
