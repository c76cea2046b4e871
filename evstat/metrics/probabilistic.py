"""Scores of probabilistic predictions p = P(y = 1) of a binary response.

error rate at a threshold, Brier score and its Murphy decomposition, log loss. The Brier score
and the log loss also take K-class predictions: an (N, K) matrix or a DataFrame with one column
per class, with ``y`` the observed classes (labels of the columns, or indices 0..K-1).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.metrics._binning import assign_bins, bin_edges
from evstat.metrics._classes import class_inputs, is_matrix
from evstat.metrics._validation import check_bins, check_y_p

__all__ = ["error_rate", "brier_score", "brier_decomposition", "log_loss"]


def error_rate(y: ArrayLike, p: ArrayLike, threshold: float = 0.5) -> float:
    """Share of rows misclassified when deciding class 1 exactly when p > threshold.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1.
    threshold : float, default 0.5
        Decision threshold in [0, 1]. Ties go to class 0: a row with ``p == threshold`` is
        predicted 0 (as scikit-learn's ``predict`` and the ``decide_binary`` tie rule).

    Returns
    -------
    float
        (number of rows with prediction != y) / (number of rows).

    Examples
    --------
    >>> error_rate([0, 1, 1, 0], [0.2, 0.7, 0.5, 0.6])
    0.5
    """
    yy, pp = check_y_p(y, p)
    t = _check_threshold(threshold)
    pred = (pp > t).astype(np.int64)
    return float(np.mean(pred != yy))


def brier_score(
    y: ArrayLike, p: ArrayLike | pd.DataFrame, labels: Any = None, scale_by_half: bool | str = "auto"
) -> float:
    """Brier score: mean of (p - y)^2 (binary) or of sum_k (p_k - I(y = k))^2 (K classes).

    Binary (``p`` 1-D, P(y = 1)): in [0, 1], the same value as
    ``sklearn.metrics.brier_score_loss(y, p)``. K classes (``p`` an (N, K) matrix or a DataFrame
    with a column per class): mean over rows of the squared distance between the probability
    vector and the indicator of the observed class, in [0, 2]; with ``scale_by_half="auto"`` it is
    halved when K = 2, so that the two-column matrix [1 - p, p] gives the binary value, as
    scikit-learn's ``brier_score_loss`` (1.7+) does. Lower is better.

    Parameters
    ----------
    y : array-like
        Observed classes: 0/1 or bool for a 1-D ``p``; for a matrix, labels among ``labels`` (by
        default the DataFrame's columns) or indices 0..K-1.
    p : array-like or pandas.DataFrame
        P(y = 1) per row, or class probabilities (N, K) with rows summing to 1.
    labels : sequence, optional
        The classes in the column order of a matrix ``p``.
    scale_by_half : bool or "auto"
        Halve the K-class score ("auto": when K = 2). Ignored for a 1-D ``p``.

    Returns
    -------
    float

    Examples
    --------
    >>> brier_score([0, 1, 1, 0], [0.0, 0.5, 1.0, 0.5])
    0.125
    >>> import pandas as pd
    >>> p = pd.DataFrame({"a": [0.8, 0.2], "b": [0.1, 0.7], "c": [0.1, 0.1]})
    >>> round(brier_score(["a", "c"], p), 6)  # (.04 + .01 + .01 + .04 + .49 + .81) / 2
    0.7
    """
    if is_matrix(p):
        codes, P, _ = class_inputs(y, p, labels)
        k = P.shape[1]
        onehot = np.zeros_like(P)
        onehot[np.arange(P.shape[0]), codes] = 1.0
        b = float(np.mean(np.sum((P - onehot) ** 2, axis=1)))
        half = (k < 3) if scale_by_half == "auto" else bool(scale_by_half)
        return 0.5 * b if half else b
    yy, pp = check_y_p(y, p)
    return float(np.mean((pp - yy) ** 2))


def brier_decomposition(y: ArrayLike, p: ArrayLike, bins: int | str = "unique") -> pd.Series:
    """Murphy decomposition of the Brier score: reliability, resolution, uncertainty.

    Rows are grouped into bins k = 1..K with n_k rows, mean prediction pbar_k and observed frequency
    obar_k; obar is the overall frequency of class 1 and N the number of rows. Then

    - reliability = (1/N) sum_k n_k (pbar_k - obar_k)^2   (lower is better)
    - resolution  = (1/N) sum_k n_k (obar_k - obar)^2     (higher is better)
    - uncertainty = obar (1 - obar)
    - within_bin_variance   = (1/N) sum_i (p_i - pbar_k(i))^2
    - within_bin_covariance = (2/N) sum_i (p_i - pbar_k(i)) (y_i - obar_k(i))

    and, exactly (Stephenson, Coelho and Jolliffe 2008, Weather and Forecasting 23, 752-757),

        brier = reliability - resolution + uncertainty + within_bin_variance - within_bin_covariance.

    When the predictions are constant within each bin the last two terms are zero and this is
    Murphy's (1973) identity brier = reliability - resolution + uncertainty. That is the case for
    the default ``bins="unique"``, one bin per distinct predicted value.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1.
    bins : "unique" or int, default "unique"
        "unique": one bin per distinct value of p (the exact Murphy decomposition).
        int: that many equal-width bins on [0, 1], right-closed (first bin [0, 1/bins]), as in
        ``reliability_table(strategy="uniform")``; then the within-bin terms are generally non-zero.

    Returns
    -------
    pandas.Series
        brier, reliability, resolution, uncertainty, within_bin_variance, within_bin_covariance,
        n_bins (number of non-empty bins).

    Examples
    --------
    >>> d = brier_decomposition([0, 1, 1, 0, 1], [0.2, 0.2, 0.8, 0.8, 0.8])
    >>> d[["brier", "reliability", "resolution", "uncertainty"]].round(4).tolist()
    [0.28, 0.0467, 0.0067, 0.24]
    >>> d[["within_bin_variance", "within_bin_covariance"]].tolist()
    [0.0, 0.0]
    """
    yy, pp = check_y_p(y, p)
    if isinstance(bins, str):
        if bins != "unique":
            raise ValueError(f'bins must be "unique" or a positive integer; got {bins!r}.')
        values, ids = np.unique(pp, return_inverse=True)
        ids = ids.ravel()
    else:
        k = check_bins(bins)
        ids = assign_bins(pp, bin_edges(pp, k, "uniform"))
        values = None
    n = yy.shape[0]
    nb = int(ids.max()) + 1
    cnt = np.bincount(ids, minlength=nb).astype(float)
    sp = np.bincount(ids, weights=pp, minlength=nb)
    sy = np.bincount(ids, weights=yy.astype(float), minlength=nb)
    ne = cnt > 0
    pbar = np.zeros(nb)
    obar_k = np.zeros(nb)
    # with one bin per distinct value the bin mean is that value exactly (no rounding)
    pbar[ne] = values if values is not None else sp[ne] / cnt[ne]
    obar_k[ne] = sy[ne] / cnt[ne]
    obar = float(np.mean(yy))
    rel = float(np.sum(cnt * (pbar - obar_k) ** 2) / n)
    res = float(np.sum(cnt * (obar_k - obar) ** 2) / n)
    unc = obar * (1.0 - obar)
    dp = pp - pbar[ids]
    wbv = float(np.sum(dp**2) / n)
    wbc = float(2.0 * np.sum(dp * (yy - obar_k[ids])) / n)
    return pd.Series(
        {
            "brier": float(np.mean((pp - yy) ** 2)),
            "reliability": rel,
            "resolution": res,
            "uncertainty": unc,
            "within_bin_variance": wbv,
            "within_bin_covariance": wbc,
            "n_bins": int(ne.sum()),
        }
    )


def log_loss(y: ArrayLike, p: ArrayLike | pd.DataFrame, eps: float | str = "auto", labels: Any = None) -> float:
    """Mean negative log-likelihood -mean(y log p + (1 - y) log(1 - p)), natural log.

    K classes (``p`` an (N, K) matrix or a DataFrame with a column per class): -mean log
    P(observed class), with the same clipping of that probability, as
    ``sklearn.metrics.log_loss(y, p)``; ``y`` holds labels among ``labels`` (by default the
    DataFrame's columns) or indices 0..K-1.

    Clipping: the probability given to the observed class, q_i = p_i if y_i = 1 else 1 - p_i
    (with 1 - p_i computed first), is clipped to [eps, 1 - eps] before the log. With the default
    ``eps="auto"`` this is the float64 machine epsilon (2.22e-16), exactly what
    ``sklearn.metrics.log_loss`` does, so the two agree (a confident wrong prediction costs at most
    -log(eps) = 36.04 per row). ``eps=0`` disables clipping: then a row with q_i = 0 gives ``inf``.
    Computation is in float64 whatever the input dtype. Unlike scikit-learn, y may hold a single
    class.

    Parameters
    ----------
    y : array-like
        Observed classes: 0/1 or bool for a 1-D ``p``; labels or indices for a matrix.
    p : array-like or pandas.DataFrame
        P(y = 1) per row, or class probabilities (N, K) with rows summing to 1.
    eps : "auto" or float in [0, 0.5), default "auto"
        Clipping constant, see above.
    labels : sequence, optional
        The classes in the column order of a matrix ``p``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(log_loss([1, 0], [0.8, 0.4]), 6)
    0.366985
    >>> round(log_loss([1], [0.0]), 4)
    36.0437
    >>> log_loss([1], [0.0], eps=0)
    inf
    >>> round(log_loss([2, 0], [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]), 6)  # -(log .7 + log .5) / 2
    0.524911
    """
    e = _check_eps(eps)
    if is_matrix(p):
        codes, P, _ = class_inputs(y, p, labels)
        q = P[np.arange(P.shape[0]), codes]
        if e > 0:
            q = np.clip(q, e, 1.0 - e)
        with np.errstate(divide="ignore"):
            return float(-np.mean(np.log(q)))
    yy, pp = check_y_p(y, p)
    q = np.where(yy == 1, pp, 1.0 - pp)
    if e > 0:
        q = np.clip(q, e, 1.0 - e)
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.log(q)))


def _check_threshold(threshold: Any) -> float:
    try:
        t = float(threshold)
    except (TypeError, ValueError):
        raise ValueError(f"threshold must be a number in [0, 1]; got {threshold!r}.") from None
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"threshold must be in [0, 1]; got {threshold!r}.")
    return t


def _check_eps(eps: Any) -> float:
    if isinstance(eps, str):
        if eps != "auto":
            raise ValueError(f'eps must be "auto" or a number in [0, 0.5); got {eps!r}.')
        return float(np.finfo(np.float64).eps)
    try:
        e = float(eps)
    except (TypeError, ValueError):
        raise ValueError(f'eps must be "auto" or a number in [0, 0.5); got {eps!r}.') from None
    if not 0.0 <= e < 0.5:
        raise ValueError(f'eps must be "auto" or a number in [0, 0.5); got {eps!r}.')
    return e
