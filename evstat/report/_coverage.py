"""What coverage of the reliability band to expect (the report's coverage line).

The report's reliability table says, per bin of theta_hat, whether the observed frequency of the
positive class lies in [mean Bel, mean Pl] of the bin's rows. That band is **not** a confidence
interval for the bin's frequency: Pl - Bel measures how loosely the calibration rows pin down
theta (estimation uncertainty of the calibrator), and it contains nothing of the binomial noise
of the n evaluation rows that fall in the bin. A small bin misses the band often even when the
calibrator is exactly right. To give the reader a yardstick, the report prints the number of
bins expected to be covered *if every row's theta_hat were its true probability*:

    E[covered bins] = sum_b P(mean Bel_b <= K_b / n_b <= mean Pl_b),
    K_b = sum of n_b independent Bernoulli(theta_hat_i) (Poisson-binomial),

computed exactly by convolution (:func:`poisson_binomial_pmf`, O(n_b^2) per bin) up to
``EXACT_ROWS`` rows in a bin and by a normal approximation with continuity correction beyond.
Error in theta_hat itself (which the band is meant to absorb) moves the frequencies away from
the band's centre, so under a correct but estimated model the expected count is, if anything,
lower; a count far below it says the band is too narrow or theta_hat is off.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

__all__ = ["EXACT_ROWS", "expected_covered", "poisson_binomial_pmf"]

#: bins with more rows than this use the normal approximation (the exact convolution is O(n^2))
EXACT_ROWS = 4000


def poisson_binomial_pmf(p: np.ndarray) -> np.ndarray:
    """P(K = k), k = 0..n, for K the number of successes of independent Bernoulli(p_i) trials.

    Examples
    --------
    >>> poisson_binomial_pmf(np.array([0.5, 0.5])).tolist()
    [0.25, 0.5, 0.25]
    """
    pmf = np.ones(1)
    for q in np.asarray(p, dtype=float):
        nxt = np.zeros(pmf.size + 1)
        nxt[:-1] += pmf * (1.0 - q)
        nxt[1:] += pmf * q
        pmf = nxt
    return pmf


def _bin_probability(theta: np.ndarray, low: float, high: float) -> float:
    """P(low <= K / n <= high) for K Poisson-binomial with success probabilities ``theta``."""
    n = theta.size
    # the integers k with low <= k / n <= high, with the same float comparison as the table
    k = np.arange(n + 1)
    inside = (low <= k / n) & (k / n <= high)
    if not inside.any():
        return 0.0
    if n <= EXACT_ROWS:
        return float(np.sum(poisson_binomial_pmf(theta)[inside]))
    mu, sd = float(np.sum(theta)), float(np.sqrt(np.sum(theta * (1.0 - theta))))
    ks = k[inside]
    if sd == 0.0:
        return float(ks[0] <= mu <= ks[-1])
    return float(ndtr((ks[-1] + 0.5 - mu) / sd) - ndtr((ks[0] - 0.5 - mu) / sd))


def expected_covered(theta: np.ndarray, edges: np.ndarray, mean_bel: np.ndarray, mean_pl: np.ndarray) -> float:
    """Expected number of non-empty bins whose observed frequency lies in [mean Bel, mean Pl]
    if each row's positive class were drawn with probability theta_hat.

    ``edges`` are the bin edges of the reliability table (right-closed bins, the first closed on
    the left, as :func:`evstat.metrics.reliability_table`); ``mean_bel`` and ``mean_pl`` hold one
    value per non-empty bin, in bin order.

    Examples
    --------
    >>> th = np.array([0.2, 0.2, 0.8, 0.8])
    >>> round(expected_covered(th, np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.5]), np.array([0.5, 1.0])), 4)
    1.92
    """
    theta = np.asarray(theta, dtype=float)
    ids = np.searchsorted(np.asarray(edges, dtype=float)[1:-1], theta, side="left")
    present = np.unique(ids)
    if present.size != np.size(mean_bel):
        raise ValueError(f"{present.size} non-empty bins but {np.size(mean_bel)} band values")
    return float(sum(_bin_probability(theta[ids == b], float(lo), float(hi))
                     for b, lo, hi in zip(present, mean_bel, mean_pl)))
