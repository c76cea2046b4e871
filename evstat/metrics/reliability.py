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
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from evstat.metrics._binning import STRATEGIES, assign_bins, bin_edges
from evstat.metrics._validation import check_bins, check_choice, check_level, check_y_p

__all__ = ["BootstrapEstimate", "ece", "mce", "reliability_table", "wilson_interval"]

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
    """Expected calibration error: sum_b (n_b / N) |mean p in b - frequency of y = 1 in b|.

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
    """Maximum calibration error: max over non-empty bins of |mean p in b - frequency in b|.

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
    z = stats.norm.isf((1.0 - lv) / 2.0)
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
    if n_boot is None:
        return est
    nb = check_bins(n_boot, "n_boot")
    lv = check_level(level)
    rng = np.random.default_rng(seed)
    n = yy.shape[0]
    chunk = max(1, _BOOT_CELLS // n)
    reps = np.empty(nb)
    for start in range(0, nb, chunk):
        r = min(chunk, nb - start)
        idx = rng.integers(0, n, size=(r, n))
        reps[start : start + r] = _ce_batch(yy[idx], pp[idx], b, strategy)[:, which]
    lo, hi = np.quantile(reps, [(1.0 - lv) / 2.0, (1.0 + lv) / 2.0])
    return BootstrapEstimate(est, float(lo), float(hi), lv, nb)

