"""Reliability (calibration-in-the-small) of probabilistic predictions.

Expected and maximum calibration error (ECE, MCE) with equal-width or equal-mass bins and optional
bootstrap percentile intervals, the reliability table behind a reliability diagram, and Wilson
score intervals for the observed frequencies.

Binning rule, shared with ``brier_decomposition`` and ``interval_coverage``: with edges
e_0 < ... < e_B the bins are [e_0, e_1], (e_1, e_2], ..., (e_{B-1}, e_B] (right-closed, the first
closed on the left), i.e. R's ``cut(p, edges, include.lowest = TRUE)`` and scikit-learn's
``calibration_curve``. ``strategy="uniform"``: e_b = b / B. ``strategy="quantile"``: e_b = sample
quantile of p at b / B (linear interpolation, ``np.percentile``), so bins hold about N / B rows;
tied quantiles make empty bins, which are skipped.

K classes (an (N, K) matrix or a DataFrame with a column per class, ``y`` the observed classes):

* top-label (confidence) ECE, Guo et al. (2017): the binary ECE of the pairs (confidence
  max_k P(k | x_i), correctness I(argmax = y_i)): sum_b (n_b / N) |accuracy_b - confidence_b|;
  the argmax ties go to the lowest class index (as :func:`evstat.metrics.correctness_rate`);
* classwise ECE, Kull et al. (2019): the mean over the K classes of the binary ECE of the pairs
  (P(k | x_i), I(y_i = k)).

Bootstrap intervals resample rows (the same rows for every class of the classwise ECE), seeded.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import ndtri

from evstat.metrics._binning import STRATEGIES, assign_bins, bin_edges
from evstat.metrics._classes import class_inputs
from evstat.metrics._validation import check_bins, check_choice, check_level, check_y_p

__all__ = [
    "BootstrapEstimate",
    "class_reliability_table",
    "classwise_ece",
    "ece",
    "mce",
    "reliability_table",
    "top_label_ece",
    "wilson_interval",
]

# Largest number of resampled values held at once by the bootstrap (memory bound).
_BOOT_CELLS = 2_000_000


class BootstrapEstimate(NamedTuple):
    """A point estimate with a bootstrap percentile interval.

    Attributes
    ----------
    estimate : float
        The statistic on the data as given.
    lower, upper : float
        Quantiles (1 - level)/2 and (1 + level)/2 of the bootstrap replicates.
    level : float
        Confidence level of the interval.
    n_boot : int
        Number of bootstrap replicates.
    """

    estimate: float
    lower: float
    upper: float
    level: float
    n_boot: int


def ece(
    y: ArrayLike,
    p: ArrayLike,
    bins: int = 10,
    strategy: str = "uniform",
    n_boot: int | None = None,
    level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> float | BootstrapEstimate:
    """Expected calibration error: ``sum_b (n_b / N) |mean p in b - frequency of y = 1 in b|``.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1.
    bins : int, default 10
        Number of bins B.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1] or equal-mass bins at the quantiles of p (module docstring).
        Empty bins contribute nothing.
    n_boot : int, optional
        If given, also a bootstrap percentile interval from ``n_boot`` resamples of the rows (drawn
        with replacement; with ``strategy="quantile"`` the edges are recomputed on each resample,
        so the interval covers the whole procedure).
    level : float, default 0.95
        Confidence level of the bootstrap interval.
    seed : int, numpy Generator or None
        Seed of ``numpy.random.default_rng``; same seed, same interval. Replicate b uses rows
        ``rng.integers(0, N, size=N)`` drawn in order b = 0, 1, ...

    Returns
    -------
    float, or BootstrapEstimate if ``n_boot`` is given
        In [0, 1], and never above ``mce`` on the same bins.

    Examples
    --------
    >>> y = [0, 0, 1, 1, 1]
    >>> p = [0.1, 0.3, 0.6, 0.8, 0.9]
    >>> round(ece(y, p, bins=2), 6)  # (2 * 0.2 + 3 * 0.2333) / 5
    0.22
    >>> r = ece(y, p, bins=2, n_boot=200, seed=1)
    >>> r.estimate == ece(y, p, bins=2) and r.lower <= r.upper
    True
    """
    return _calibration_error(y, p, bins, strategy, n_boot, level, seed, which=0)


def mce(
    y: ArrayLike,
    p: ArrayLike,
    bins: int = 10,
    strategy: str = "uniform",
    n_boot: int | None = None,
    level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> float | BootstrapEstimate:
    """Maximum calibration error: max over non-empty bins of ``|mean p in b - frequency in b|``.

    Same bins, bootstrap and arguments as :func:`ece`.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1.
    bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins.
    n_boot : int, optional
        Number of bootstrap resamples for a percentile interval.
    level : float, default 0.95
        Confidence level of the bootstrap interval.
    seed : int, numpy Generator or None
        Seed of the bootstrap.

    Returns
    -------
    float, or BootstrapEstimate if ``n_boot`` is given
        In [0, 1].

    Examples
    --------
    >>> round(mce([0, 0, 1, 1, 1], [0.1, 0.3, 0.6, 0.8, 0.9], bins=2), 6)
    0.233333
    """
    return _calibration_error(y, p, bins, strategy, n_boot, level, seed, which=1)


def reliability_table(
    y: ArrayLike,
    p: ArrayLike,
    bins: int = 10,
    strategy: str = "uniform",
    level: float = 0.95,
    drop_empty: bool = True,
) -> pd.DataFrame:
    """Per-bin mean prediction and observed frequency with Wilson intervals (reliability diagram).

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    p : array-like of float in [0, 1]
        Predicted probabilities of class 1.
    bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (module docstring for the exact rule).
    level : float, default 0.95
        Confidence level of the Wilson score interval for the observed frequency.
    drop_empty : bool, default True
        Leave out bins without rows (then ``bin`` has gaps); if False they appear with n = 0 and
        NaN statistics.

    Returns
    -------
    pandas.DataFrame
        One row per bin: ``bin`` (0-based index), ``lower``, ``upper`` (bin edges), ``n``,
        ``mean_prediction``, ``observed_frequency`` (as ``sklearn.calibration.calibration_curve``
        ``prob_pred`` and ``prob_true``), ``wilson_lower``, ``wilson_upper``.

    Examples
    --------
    >>> t = reliability_table([0, 0, 1, 1, 1], [0.1, 0.3, 0.6, 0.8, 0.9], bins=2)
    >>> t[["bin", "n", "mean_prediction", "observed_frequency"]].round(4)
       bin  n  mean_prediction  observed_frequency
    0    0  2           0.2000                 0.0
    1    1  3           0.7667                 1.0
    """
    yy, pp = check_y_p(y, p)
    b = check_bins(bins)
    check_choice(strategy, "strategy", STRATEGIES)
    lv = check_level(level)
    edges = bin_edges(pp, b, strategy)
    ids = assign_bins(pp, edges)
    cnt = np.bincount(ids, minlength=b)
    sp = np.bincount(ids, weights=pp, minlength=b)
    sy = np.bincount(ids, weights=yy.astype(float), minlength=b)
    ne = cnt > 0
    mean_p = np.full(b, np.nan)
    obs = np.full(b, np.nan)
    mean_p[ne] = sp[ne] / cnt[ne]
    obs[ne] = sy[ne] / cnt[ne]
    wl, wu = wilson_interval(sy, cnt, level=lv)
    out = pd.DataFrame(
        {
            "bin": np.arange(b),
            "lower": edges[:-1],
            "upper": edges[1:],
            "n": cnt.astype(np.int64),
            "mean_prediction": mean_p,
            "observed_frequency": obs,
            "wilson_lower": wl,
            "wilson_upper": wu,
        }
    )
    if drop_empty:
        out = out.loc[ne].reset_index(drop=True)
    return out


def wilson_interval(
    k: ArrayLike, n: ArrayLike, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion k / n.

    With z = Phi^-1((1 + level)/2): centre (k + z^2/2) / (n + z^2), half-width
    z sqrt(k (n - k) / n + z^2 / 4) / (n + z^2); the same as
    ``statsmodels.stats.proportion.proportion_confint(k, n, alpha=1 - level, method="wilson")``.
    Bounds are clipped to [0, 1] against rounding; n = 0 gives NaN.

    Parameters
    ----------
    k : array-like of counts
        Numbers of successes, 0 <= k <= n.
    n : array-like of counts
        Numbers of trials.
    level : float, default 0.95
        Confidence level.

    Returns
    -------
    (lower, upper) : tuple of numpy arrays (0-d arrays for scalar input)

    Examples
    --------
    >>> lo, hi = wilson_interval(3, 10)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.1078, 0.6032)
    """
    lv = check_level(level)
    kk = np.asarray(k, dtype=float)
    nn = np.asarray(n, dtype=float)
    if np.any(~np.isfinite(kk)) or np.any(~np.isfinite(nn)):
        raise ValueError("k and n must be finite counts.")
    if np.any(kk < 0) or np.any(kk > nn):
        raise ValueError("k must satisfy 0 <= k <= n for every proportion.")
    z = -ndtri((1.0 - lv) / 2.0)  # scipy.stats.norm.isf, bit for bit, without importing scipy.stats
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        q = kk / nn
        denom = 1.0 + z2 / nn
        centre = (q + z2 / (2.0 * nn)) / denom
        half = z * np.sqrt(q * (1.0 - q) / nn + z2 / (4.0 * nn**2)) / denom
    lower = np.where(nn > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
    upper = np.where(nn > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return lower, upper


# --------------------------------------------------------------------------------------------
def _ce_batch(yb: np.ndarray, pb: np.ndarray, bins: int, strategy: str) -> np.ndarray:
    """ECE and MCE for each row of (R, N) matrices of resampled y and p -> array (R, 2)."""
    r, n = pb.shape
    if strategy == "uniform":
        ids = assign_bins(pb, bin_edges(pb, bins, "uniform"))
    else:
        edges = np.percentile(pb, np.linspace(0.0, 1.0, bins + 1) * 100.0, axis=1)  # (B+1, R)
        ids = np.zeros((r, n), dtype=np.int64)
        for e in edges[1:-1]:
            ids += pb > e[:, None]
    flat = (ids + bins * np.arange(r)[:, None]).ravel()
    cnt = np.bincount(flat, minlength=r * bins).reshape(r, bins)
    sp = np.bincount(flat, weights=pb.ravel(), minlength=r * bins).reshape(r, bins)
    sy = np.bincount(flat, weights=yb.ravel().astype(float), minlength=r * bins).reshape(r, bins)
    absdiff = np.abs(sp - sy)  # n_b * |mean p - frequency| per bin
    e_ce = absdiff.sum(axis=1) / n
    gap = np.divide(absdiff, cnt, out=np.zeros_like(absdiff), where=cnt > 0)
    m_ce = gap.max(axis=1)
    # ECE is a weighted mean of the gaps, so ECE <= MCE; guard against a last-bit rounding excess
    return np.column_stack([np.minimum(e_ce, m_ce), m_ce])


def _calibration_error(
    y: ArrayLike,
    p: ArrayLike,
    bins: Any,
    strategy: Any,
    n_boot: Any,
    level: Any,
    seed: Any,
    which: int,
) -> float | BootstrapEstimate:
    yy, pp = check_y_p(y, p)
    b = check_bins(bins)
    check_choice(strategy, "strategy", STRATEGIES)
    est = float(_ce_batch(yy[None, :], pp[None, :], b, strategy)[0, which])
    return _bootstrap(est, lambda idx: _ce_batch(yy[idx], pp[idx], b, strategy)[:, which],
                      yy.shape[0], n_boot, level, seed)


def _bootstrap(est: float, stat: Any, n: int, n_boot: Any, level: Any, seed: Any) -> float | BootstrapEstimate:
    """``est`` alone (``n_boot`` None), or with the percentile interval of ``stat`` over
    ``n_boot`` resamples of the ``n`` rows; ``stat(idx)`` takes an (R, n) array of row indices and
    returns R values. Resamples are drawn in chunks of at most ``_BOOT_CELLS`` cells."""
    if n_boot is None:
        return est
    nb = check_bins(n_boot, "n_boot")
    lv = check_level(level)
    rng = np.random.default_rng(seed)
    chunk = max(1, _BOOT_CELLS // n)
    reps = np.empty(nb)
    for start in range(0, nb, chunk):
        r = min(chunk, nb - start)
        reps[start : start + r] = stat(rng.integers(0, n, size=(r, n)))
    lo, hi = np.quantile(reps, [(1.0 - lv) / 2.0, (1.0 + lv) / 2.0])
    return BootstrapEstimate(est, float(lo), float(hi), lv, nb)



# --------------------------------------------------------------------------------------------
def _top_label(y: Any, p: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    codes, P, _ = class_inputs(y, p, labels)
    pred = np.argmax(P, axis=1)
    return (pred == codes).astype(np.int64), P[np.arange(P.shape[0]), pred]


def top_label_ece(
    y: ArrayLike,
    p: ArrayLike | pd.DataFrame,
    bins: int = 15,
    strategy: str = "uniform",
    n_boot: int | None = None,
    level: float = 0.95,
    seed: int | np.random.Generator | None = None,
    labels: Any = None,
) -> float | BootstrapEstimate:
    """Top-label (confidence) ECE of K-class probabilities (Guo et al. 2017).

    The binary :func:`ece` of (confidence = max_k P(k | x), correct = I(argmax = y)): the rows are
    binned by confidence and each bin's mean confidence is compared with its accuracy.

    Parameters
    ----------
    y : array-like
        Observed classes: labels among ``labels`` (default: the DataFrame's columns) or indices
        0..K-1.
    p : array-like (N, K) or pandas.DataFrame
        Class probabilities, rows summing to 1.
    bins, strategy, n_boot, level, seed
        As :func:`ece` (15 bins by default, as Guo et al.).
    labels : sequence, optional
        The classes in the column order of ``p``.

    Returns
    -------
    float, or BootstrapEstimate if ``n_boot`` is given

    Examples
    --------
    >>> p = [[0.9, 0.05, 0.05], [0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]
    >>> # confidences .9 .6 .7 .8, correct 1 0 1 1; two bins (0, .5], (.5, 1]: |3/4 - 3/4| = 0
    >>> top_label_ece([0, 1, 1, 2], p, bins=2)
    0.0
    >>> round(top_label_ece([0, 1, 1, 2], p, bins=10), 6)  # (.1 + .6 + .3 + .2) / 4
    0.3
    """
    correct, conf = _top_label(y, p, labels)
    return _calibration_error(correct, conf, bins, strategy, n_boot, level, seed, which=0)


def classwise_ece(
    y: ArrayLike,
    p: ArrayLike | pd.DataFrame,
    bins: int = 15,
    strategy: str = "uniform",
    n_boot: int | None = None,
    level: float = 0.95,
    seed: int | np.random.Generator | None = None,
    labels: Any = None,
) -> float | BootstrapEstimate:
    """Classwise ECE of K-class probabilities (Kull et al. 2019): (1/K) sum_k ECE_k, ECE_k the
    binary :func:`ece` of (P(k | x), I(y = k)).

    Parameters
    ----------
    y : array-like
        Observed classes: labels among ``labels`` (default: the DataFrame's columns) or indices
        0..K-1.
    p : array-like (N, K) or pandas.DataFrame
        Class probabilities, rows summing to 1.
    bins, strategy, n_boot, level, seed
        As :func:`ece`; the bootstrap draws the same rows for every class.
    labels : sequence, optional
        The classes in the column order of ``p``.

    Returns
    -------
    float, or BootstrapEstimate if ``n_boot`` is given

    Examples
    --------
    >>> p = [[0.8, 0.2], [0.4, 0.6], [0.3, 0.7]]
    >>> # class 1, bins [0, .5], (.5, 1]: {.2: y 0} -> .2 * 1, {.6, .7: y 1, 0} -> |.65 - .5| * 2;
    >>> # class 0: {.4, .3: y 0, 1} -> .15 * 2, {.8: y 1} -> .2 * 1; each ECE_k = (.2 + .3) / 3
    >>> round(classwise_ece([0, 1, 0], p, bins=2), 6)
    0.166667
    """
    codes, P, _ = class_inputs(y, p, labels)
    b = check_bins(bins)
    check_choice(strategy, "strategy", STRATEGIES)
    k = P.shape[1]
    Y = (codes[:, None] == np.arange(k)[None, :]).astype(np.int64)

    def cw(idx: np.ndarray | None) -> np.ndarray:
        tot: float | np.ndarray = 0.0
        for j in range(k):
            yj, pj = (Y[:, j], P[:, j]) if idx is None else (Y[idx, j], P[idx, j])
            if idx is None:
                yj, pj = yj[None, :], pj[None, :]
            tot = tot + _ce_batch(yj, pj, b, strategy)[:, 0]
        return tot / k

    return _bootstrap(float(cw(None)[0]), cw, codes.shape[0], n_boot, level, seed)


def class_reliability_table(
    y: ArrayLike,
    p: ArrayLike | pd.DataFrame,
    view: str = "top-label",
    bins: int = 10,
    strategy: str = "uniform",
    level: float = 0.95,
    labels: Any = None,
) -> pd.DataFrame:
    """The reliability table of K-class probabilities, top-label or classwise.

    ``view="top-label"``: :func:`reliability_table` of (confidence, correct); ``view="classwise"``:
    one :func:`reliability_table` of (P(k | x), I(y = k)) per class, stacked, with a first column
    ``class``.

    Parameters
    ----------
    y : array-like
        Observed classes (labels or indices, as :func:`top_label_ece`).
    p : array-like (N, K) or pandas.DataFrame
        Class probabilities.
    view : {"top-label", "classwise"}
    bins, strategy, level
        As :func:`reliability_table`.
    labels : sequence, optional
        The classes in the column order of ``p``.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`reliability_table` (``mean_prediction`` is the mean confidence and
        ``observed_frequency`` the accuracy in the top-label view), plus ``class`` (classwise).

    Examples
    --------
    >>> t = class_reliability_table([0, 1, 0], [[0.8, 0.2], [0.4, 0.6], [0.3, 0.7]], "classwise", bins=2)
    >>> t[["class", "bin", "n", "observed_frequency"]]
       class  bin  n  observed_frequency
    0      0    0  2                 0.5
    1      0    1  1                 1.0
    2      1    0  1                 0.0
    3      1    1  2                 0.5
    """
    check_choice(view, "view", ("top-label", "classwise"))
    if view == "top-label":
        correct, conf = _top_label(y, p, labels)
        return reliability_table(correct, conf, bins=bins, strategy=strategy, level=level)
    codes, P, labs = class_inputs(y, p, labels)
    parts = []
    for j, lab in enumerate(labs):
        t = reliability_table((codes == j).astype(np.int64), P[:, j], bins=bins, strategy=strategy, level=level)
        t.insert(0, "class", [lab] * len(t))
        parts.append(t)
    return pd.concat(parts, ignore_index=True)
