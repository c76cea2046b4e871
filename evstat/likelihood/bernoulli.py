"""Predicting a Bernoulli variable from a contour function on its probability theta.

Minary et al. (2019), eqs. 25-26: if ``pl(theta)`` on [0, 1] is unimodal and
continuous with maximiser ``theta_hat``,

    Bel({1}) = theta_hat - integral_0^theta_hat pl(u) du,
    Pl({1})  = theta_hat + integral_theta_hat^1 pl(u) du,

so that ``0 <= Bel <= theta_hat <= Pl <= 1``. The binomial contour (eqs. 13-14, 27-30, 47-48)
has a closed form through the incomplete beta function, computed here in log space.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import betainc, betaln, xlog1py, xlogy

__all__ = ["bernoulli_belief", "binomial_belief", "binomial_contour"]


def _kn(k: ArrayLike, n: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    k, n = np.broadcast_arrays(k, n)
    if np.any(~np.isfinite(k)) or np.any(~np.isfinite(n)):
        raise ValueError("k and n must be finite counts")
    if np.any(n < 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError("counts must satisfy 0 <= k <= n (k positives among n rows)")
    if np.any(k != np.round(k)) or np.any(n != np.round(n)):
        raise ValueError("k and n must be whole numbers (counts of rows)")
    return k, n


def binomial_contour(theta: ArrayLike, k: ArrayLike, n: ArrayLike) -> NDArray[np.float64]:
    """Relative binomial likelihood ``theta^k (1-theta)^(n-k) / sup`` (eq. 13), in log space.

    ``theta``, ``k`` and ``n`` broadcast together. With ``n = 0`` the contour is 1 everywhere.

    Examples
    --------
    >>> float(binomial_contour(0.5, 2, 4))
    1.0
    >>> round(float(binomial_contour(0.25, 2, 4)), 6)  # (0.25^2 0.75^2) / (0.5^4)
    0.5625
    """
    k, n = _kn(k, n)
    theta = np.asarray(theta, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        th = np.where(n > 0, k / np.where(n > 0, n, 1.0), 0.5)
        ll = xlogy(k, theta) + xlog1py(n - k, -theta)
        ll_hat = xlogy(k, th) + xlog1py(n - k, -th)
        out = np.exp(ll - ll_hat)
    return np.where(n > 0, out, 1.0)


def binomial_belief(k: ArrayLike, n: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Closed-form Bel({1}) and Pl({1}) of a cell with ``k`` positives among ``n`` rows.

    With ``theta_hat = k/n`` and ``B(z; a, b) = integral_0^z u^(a-1) (1-u)^(b-1) du``
    (Minary et al. 2019, eqs. 27-30, 47-48):

    * ``0 < k < n``: ``Bel = theta_hat - B(theta_hat; k+1, n-k+1) / (theta_hat^k (1-theta_hat)^(n-k))``
      and ``Pl = theta_hat + B(1-theta_hat; n-k+1, k+1) / (theta_hat^k (1-theta_hat)^(n-k))``;
    * ``k = 0``: ``Bel = 0``, ``Pl = 1/(n+1)``; ``k = n``: ``Bel = n/(n+1)``, ``Pl = 1``;
    * ``n = 0`` (an empty cell): the contour is identically 1, so ``Bel = 0``, ``Pl = 1``
      (vacuous; the papers are silent, and this is the only answer consistent with eqs. 25-26).
      ``theta_hat`` is NaN there.

    Computed in log space (``betaln`` and the log of the normaliser), so ``n = 10**6`` works.

    Returns
    -------
    theta_hat, bel, pl : arrays of the broadcast shape of ``k`` and ``n``

    Examples
    --------
    >>> th, bel, pl = binomial_belief([0, 3, 4, 0], [4, 4, 4, 0])
    >>> bel.round(4).tolist(), pl.round(4).tolist()
    ([0.0, 0.45, 0.8, 0.0], [0.2, 0.9241, 1.0, 1.0])
    """
    k, n = _kn(k, n)
    empty = n == 0
    nn = np.where(empty, 1.0, n)
    th = np.where(empty, np.nan, k / nn)
    inner = (k > 0) & (k < n)
    thi = np.where(inner, k / nn, 0.5)
    ki = np.where(inner, k, 1.0)
    ni = np.where(inner, n, 2.0)
    log_norm = xlogy(ki, thi) + xlog1py(ni - ki, -thi)
    log_b = betaln(ki + 1.0, ni - ki + 1.0) - log_norm
    low = np.exp(np.log(betainc(ki + 1.0, ni - ki + 1.0, thi)) + log_b)
    up = np.exp(np.log(betainc(ni - ki + 1.0, ki + 1.0, 1.0 - thi)) + log_b)
    bel = np.where(inner, thi - low, np.where(k == 0, 0.0, n / (nn + 1.0)))
    pl = np.where(inner, thi + up, np.where(k == n, 1.0, 1.0 / (nn + 1.0)))
    bel = np.where(empty, 0.0, np.clip(bel, 0.0, np.where(empty, 0.0, th)))
    pl = np.where(empty, 1.0, np.clip(pl, np.where(empty, 1.0, th), 1.0))
    return th, bel, pl


def bernoulli_belief(
    contour: Callable[[float], float],
    theta_hat: float,
    epsabs: float = 1e-12,
    epsrel: float = 1e-10,
    points: ArrayLike | None = None,
) -> tuple[float, float]:
    """Bel({1}) and Pl({1}) from a unimodal contour on theta, by adaptive quadrature (eqs. 25-26).

    This is the general, slow and obviously correct path: ``scipy.integrate.quad`` of the contour
    over ``[0, theta_hat]`` and ``[theta_hat, 1]``.

    Parameters
    ----------
    contour : callable
        ``contour(theta) -> pl(theta)`` for a scalar theta in [0, 1].
    theta_hat : float
        The maximiser of the contour (``pl(theta_hat) = 1``).
    epsabs, epsrel : float
        Tolerances passed to ``quad``.
    points : sequence of float, optional
        Break points inside (0, 1) that help ``quad`` find a narrow contour.

    Returns
    -------
    bel, pl : float

    Examples
    --------
    >>> bel, pl = bernoulli_belief(lambda u: float(binomial_contour(u, 3, 4)), 0.75)
    >>> round(bel, 6), round(pl, 6)
    (0.45, 0.924074)
    """
    from scipy import integrate  # the slow reference path only (import-time rules)

    theta_hat = float(theta_hat)
    if not 0.0 <= theta_hat <= 1.0:
        raise ValueError(f"theta_hat must lie in [0, 1], got {theta_hat}")
    pts = np.asarray([] if points is None else points, dtype=float)
    lo_pts = [p for p in pts if 0.0 < p < theta_hat] or None
    hi_pts = [p for p in pts if theta_hat < p < 1.0] or None
    low = up = 0.0
    if theta_hat > 0.0:
        low = integrate.quad(contour, 0.0, theta_hat, epsabs=epsabs, epsrel=epsrel, limit=500, points=lo_pts)[0]
    if theta_hat < 1.0:
        up = integrate.quad(contour, theta_hat, 1.0, epsabs=epsabs, epsrel=epsrel, limit=500, points=hi_pts)[0]
    bel = min(max(theta_hat - low, 0.0), theta_hat)
    pl = max(min(theta_hat + up, 1.0), theta_hat)
    return bel, pl
