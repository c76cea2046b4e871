"""Predictive contour and belief for test rows of a logistic calibration model.

For a test row with design vector ``x`` the predictive contour on ``theta = P(y = 1 | s)`` is
(Minary et al. 2019, eqs. 41-45 and 54-58)

    pl(theta | s) = sup { pl(beta) : expit(x . beta) = theta }
                  = exp(l_p(logit theta; x) - l(beta_hat)),

the relative profile likelihood of the linear predictor ``eta = x . beta``. Bel({1}) and
Pl({1}) follow from eqs. 25-26, integrated in ``eta`` with ``d theta = theta (1 - theta) d eta``:

    Bel = theta_hat - int_{-inf}^{eta_hat} pl(eta) theta (1 - theta) d eta,
    Pl  = theta_hat + int_{eta_hat}^{inf} pl(eta) theta (1 - theta) d eta.

The integrand ``f(eta) = pl(eta) theta (1 - theta)`` is log-concave (a sum of concave logs), so
it is unimodal and its tails are bounded by ``f(b) / |d log f / d eta (b)|`` beyond any point b
past its mode. The fast path integrates each side over an interval around the mode of the Wald
approximation of ``f`` by vectorised adaptive Clenshaw-Curtis quadrature (nested rules of order
16 and 8 on each panel, bisecting the panels where they disagree), evaluates the exact profile
at every node (compiled constrained Newton,
:func:`evstat.likelihood.linear_profile.profile_loglik`, with continuation along each panel's
nodes from the end nearer eta_hat outwards: each node starts from the previous maximisers'
tangent and quadratic prediction, and converges in one Newton pass, measured 1.00 passes per
node at n = 1000, J = 3, against 2.4 from the Wald path), checks the log-concave tail bound at
both ends of each interval and widens the interval of any row where the bound exceeds ``tol``.
A node at eta_hat itself (the inner end of each side's first panel) is the MLE: l_p = l_hat and
slope 0 without a solve (33.5 instead of 35.5 profile problems per row at n = 1000, J = 3).
(Fewer nodes do not pay: nested Clenshaw-Curtis rules of orders 12 and 6 bisected so many more
panels that the nodes per row rose from 44 to 103 on a mix of ordinary and far-out rows.)
(A fixed Gauss-Legendre rule without error control, the first fast path, was wrong by up to
1e-4 for test rows far outside the calibration scores, where the contour is far from Gaussian;
it was kept for cross-checks and is now removed: the tests compare with the reference path.)
The reference path integrates the exact contour on theta with adaptive quadrature
(:func:`evstat.likelihood.bernoulli.bernoulli_belief`) using statsmodels refits.

Extreme test rows. Write a design row as ``x = r u`` with ``r = max_j |x_j|`` (a norm that
cannot overflow) and ``|u|_max = 1``. The constraint ``x . beta = eta`` is ``u . beta = eta / r``,
so ``l_p(eta; x) = l_p(eta / r; u)``: every profile is computed on the direction ``u``, whose
problems are as well conditioned as those of ordinary rows, and ``eta_hat = r (u . beta_hat)``
where ``x . beta_hat`` overflows. As ``r`` grows, the contour in eta widens in proportion
(Wald scale ``sigma = r sqrt(u' Sigma u)``) while theta (1 - theta) keeps unit width around
eta = 0, so the integrals become the contour at eta = 0 times the logistic masses. With
``F = expit``, ``pl0 = pl(0)`` and ``s = d log pl / d eta (0) = nu / r`` (``nu``: the Lagrange
multiplier of the profile of ``u`` at 0), a first-order expansion of pl about 0 gives

    int_{-inf}^{eta_hat} pl(eta) F'(eta) d eta = pl0 (F(eta_hat) + s M(eta_hat)),     (W)
    int_{eta_hat}^{inf}  pl(eta) F'(eta) d eta = pl0 (1 - F(eta_hat) - s M(eta_hat)),
    M(h) = int_{-inf}^h eta F'(eta) d eta = -(|h| F(-|h|) + log(1 + exp(-|h|))).

The neglected second-order term is ``pl''(0) / 2 int eta^2 F' <= (pi^2 / 6) / sigma^2`` (the
curvature of pl is of order 1 / sigma^2), so (W) is used for rows with ``sigma > WIDE_SIGMA``
(1e6), where it is below 2e-12, and the quadrature below that (it resolves the unit-width peak
of theta (1 - theta) inside an interval of 14 sigma by bisection; at sigma = 1e14 it no longer
did, and gave Bel = Pl = 1, and at 1e200 the Wald variance overflowed). The limit as ``r -> inf``
along ``x = (1, r v)`` (a model with intercept, scores growing along v) follows from (W): with
``psi = v . beta`` (the slopes alone) and ``c`` its relative profile likelihood at psi = 0,
``Bel = 1 - c, Pl = 1`` if ``psi_hat > 0`` and ``Bel = 0, Pl = c`` if ``psi_hat < 0``: the
random level sets of the coefficients either cover the hyperplane ``psi = 0`` (then theta
ranges over all of (0, 1)) or lie on one side of it (then theta is 0 or 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, log_expit, logit

from evstat.likelihood import _kernels
from evstat.likelihood.bernoulli import bernoulli_belief
from evstat.likelihood.quadrature import adaptive_clenshaw_curtis
from evstat.likelihood.linear_profile import (
    LogisticLikelihood,
    relative_loglik,
    profile_loglik,
    profile_loglik_reference,
)

__all__ = [
    "WIDE_SIGMA",
    "PredictiveContour",
    "linear_predictor",
    "predictive_belief",
    "profile_level_set",
    "row_scale",
]

def _wald_mode(eta_hat: NDArray, sigma: NDArray, lo: NDArray, hi: NDArray) -> NDArray:
    """Mode of ``-(eta - eta_hat)^2 / (2 sigma^2) + log theta(1-theta)`` clamped to [lo, hi].

    Bisection, at most 80 halvings; from the 48th it stops once a halving changes no bracket
    (every bracket is then two adjacent floats or one: each further halving would repeat the same
    one), so the result is the same as after all 80 (usually after about 60).
    """
    a = np.maximum(eta_hat - sigma**2, lo)
    b = np.minimum(eta_hat + sigma**2, hi)
    a, b = np.minimum(a, b), np.maximum(a, b)
    s2 = sigma**2
    for i in range(80):
        m = 0.5 * (a + b)
        up = -(m - eta_hat) / s2 + 1.0 - 2.0 * expit(m) > 0
        a_new = np.where(up, m, a)
        b_new = np.where(up, b, m)
        if i >= 48 and np.array_equal(a_new, a) and np.array_equal(b_new, b):
            break
        a, b = a_new, b_new
    return np.clip(0.5 * (a + b), lo, hi)


def _side_mode(eta_hat: NDArray, sigma: NDArray, side: int) -> NDArray:
    """The Wald mode of f on one side of ``eta_hat`` (the centre of that side's interval)."""
    inf = np.full_like(eta_hat, np.inf)
    if side < 0:
        return _wald_mode(eta_hat, sigma, -inf, eta_hat)
    return _wald_mode(eta_hat, sigma, eta_hat, inf)


def _side_interval(
    eta_hat: NDArray, sigma: NDArray, side: int, width: NDArray, mode: NDArray | None = None,
) -> tuple[NDArray, NDArray]:
    """Integration interval of one side: ``width`` Wald scales of f around its Wald mode
    (``mode``, :func:`_side_mode`, computed here unless given)."""
    if mode is None:
        mode = _side_mode(eta_hat, sigma, side)
    th = expit(mode)
    sig_f = 1.0 / np.sqrt(1.0 / sigma**2 + th * (1.0 - th))
    if side < 0:
        return mode - width * sig_f, np.minimum(mode + width * sig_f, eta_hat)
    return np.maximum(mode - width * sig_f, eta_hat), mode + width * sig_f


def _tail_bound(
    f_lo: NDArray, d_lo: NDArray, f_hi: NDArray, d_hi: NDArray,
    lo: NDArray, hi: NDArray, eta_hat: NDArray, side: int,
) -> NDArray:
    """Bound on the mass of f outside [lo, hi] on one side, by log-concavity: beyond an end
    where log f decreases outward at rate d, the mass is at most f(end) / d (infinite where f
    does not decrease outward)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tail_lo = np.where(d_lo > 0, f_lo / d_lo, np.where(f_lo > 0, np.inf, 0.0))
        tail_hi = np.where(d_hi < 0, f_hi / -d_hi, np.where(f_hi > 0, np.inf, 0.0))
    if side < 0:  # an interval that stops before eta_hat leaves the gap [hi, eta_hat] as a tail
        return tail_lo + np.where(hi < eta_hat, tail_hi, 0.0)
    return tail_hi + np.where(lo > eta_hat, tail_lo, 0.0)


#: Newton tolerance of the profiles at the quadrature nodes: the profile log-likelihood is then
#: accurate to about NODE_TOL**1.5 / sqrt(n) (measured: 2e-12 at n = 1000, J = 3, against
#: 1e-10), i.e. a relative error of the integrand far below the quadrature's, and about half of
#: the nodes converge one Newton pass earlier than at profile_loglik's default 1e-10
NODE_TOL = 1e-7


def _side_integral_adaptive(
    lik: LogisticLikelihood,
    A: NDArray,
    eta_hat: NDArray,
    sigma: NDArray,
    side: int,
    width: NDArray,
    acc: float,
    max_depth: int = 40,
    mode: NDArray | None = None,
) -> tuple[NDArray, NDArray]:
    """Adaptive, vectorised Clenshaw-Curtis integral of f over one side of eta_hat
    (:func:`evstat.likelihood.quadrature.adaptive_clenshaw_curtis`, the integrator shared with
    evmultinom), from one panel per row. Returns the integrals and the tail bounds at the
    interval ends. ``mode``: the rows' :func:`_side_mode`, if known.
    """
    lo, hi = _side_interval(eta_hat, sigma, side, width, mode)

    def evaluate(rows: NDArray, path: NDArray) -> tuple[NDArray, NDArray]:
        # each panel's nodes as one continuation path, from the end nearer eta_hat outwards; a
        # node at eta_hat is the MLE itself (l_p = l_hat, slope 0): it is not solved, and the
        # path's first solved node starts from the Wald path, which is the MLE's tangent
        solve = path != eta_hat[rows][:, None]
        lp = np.full(path.shape, lik.loglik_hat)
        slope = np.zeros(path.shape)
        lp[solve], slope[solve] = profile_loglik(
            lik, np.broadcast_to(A[rows][:, None, :], path.shape + A.shape[1:])[solve], path[solve],
            tol=NODE_TOL, chain=True,
        )
        f = np.exp(relative_loglik(lik.loglik_hat, lp) + log_expit(path) + log_expit(-path))
        return f, slope

    integral, eta, f, slope = adaptive_clenshaw_curtis(lo, hi, evaluate, side, acc, max_depth)
    dlogf = slope + 1.0 - 2.0 * expit(eta)
    tail = _tail_bound(f[:, 0], dlogf[:, 0], f[:, -1], dlogf[:, -1], lo, hi, eta_hat, side)
    return integral, tail


#: a test row whose linear predictor has a Wald standard error above this (in units of eta)
#: takes the wide-contour expansion (module docstring): the contour then varies on a scale of
#: at least WIDE_SIGMA while theta (1 - theta) has unit scale, and the neglected second-order
#: term is about (pi^2 / 6) / WIDE_SIGMA^2 = 2e-12
WIDE_SIGMA = 1e6


def row_scale(A: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Split design rows into directions and scales: ``A = r[:, None] * U`` with ``r = max_j |A_j|``.

    The maximum norm never overflows (a Euclidean norm of rows of 1e200 does), every direction
    has largest entry 1 and a zero row keeps ``U = 0``, ``r = 0``. Because
    ``l_p(e; r u) = l_p(e / r; u)``, profiles of huge rows are computed on ``U``.

    Examples
    --------
    >>> U, r = row_scale([[1.0, 1e300], [0.0, 0.0]])
    >>> U.tolist(), r.tolist()
    ([[1e-300, 1.0], [0.0, 0.0]], [1e+300, 0.0])
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    r = np.max(np.abs(A), axis=1) if A.shape[1] else np.zeros(A.shape[0])
    U = A / np.where(r > 0, r, 1.0)[:, None]
    return U, r


def linear_predictor(A: ArrayLike, beta: ArrayLike) -> NDArray[np.float64]:
    """``A @ beta`` without NaN from overflow: rows whose products overflow (``inf - inf``)
    are computed as ``r * (u @ beta)`` (see :func:`row_scale`), which is finite or +-inf.

    Examples
    --------
    >>> linear_predictor([[1.0, 1e308, -1e308]], [0.0, 3.0, -3.0]).tolist()
    [inf]
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    beta = np.asarray(beta, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        eta = A @ beta
        bad = ~np.isfinite(eta)
        if bad.any():
            U, r = row_scale(A[bad])
            eta[bad] = r * (U @ beta)
    return eta


def _wide_belief(
    lik: LogisticLikelihood, U: NDArray, r: NDArray, eta_hat: NDArray
) -> tuple[NDArray, NDArray]:
    """Lower and upper integrals of rows with a very wide contour (module docstring, eq. W)."""
    lp0, nu0 = profile_loglik(lik, U, np.zeros(U.shape[0]))
    pl0 = np.exp(relative_loglik(lik.loglik_hat, lp0))
    slope = nu0 / r  # d log pl / d eta at eta = 0
    h = np.abs(eta_hat)
    with np.errstate(over="ignore", invalid="ignore"):
        F = expit(eta_hat)
        # M(h) = int_{-inf}^h eta theta (1 - theta) d eta, an odd-looking but even function of h
        M = np.where(h < 1e3, -(h * expit(-h) + np.log1p(np.exp(-np.minimum(h, 1e3)))), 0.0)
    low = np.clip(pl0 * (F + slope * M), 0.0, F)
    up = np.clip(pl0 * ((1.0 - F) - slope * M), 0.0, 1.0 - F)
    return low, up


def _reference_belief(
    lik: LogisticLikelihood, U: NDArray, r: NDArray, eta_hat: NDArray
) -> tuple[NDArray, NDArray]:
    """Reference path: ``scipy.integrate.quad`` on theta of the contour from statsmodels refits."""
    theta_hat = expit(eta_hat)
    bel = np.empty(U.shape[0])
    pl = np.empty(U.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):
        sig = r * np.sqrt(np.einsum("bi,ij,bj->b", U, lik.cov, U))
    for i in range(U.shape[0]):
        u, ri = U[i], float(r[i])

        def contour(th: float, u: NDArray = u, ri: float = ri) -> float:
            if th <= 0.0 or th >= 1.0:
                return 0.0
            lp = profile_loglik_reference(lik, u, logit(th) / ri)[0]
            return float(np.exp(relative_loglik(lik.loglik_hat, lp)))

        with np.errstate(over="ignore", invalid="ignore"):
            pts = expit(eta_hat[i] + sig[i] * np.array([-6, -3, -1.5, -0.5, 0.5, 1.5, 3, 6]))
        pts = pts[np.isfinite(pts)]
        bel[i], pl[i] = bernoulli_belief(contour, float(theta_hat[i]), points=pts)
    return theta_hat - bel, pl - theta_hat


def predictive_belief(
    lik: LogisticLikelihood,
    A: ArrayLike,
    method: str = "fast",
    tol: float = 1e-10,
    acc: float = 1e-6,
    width: float = 7.0,
    max_widen: int = 8,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """theta_hat, Bel({1}) and Pl({1}) for test design rows ``A`` (m, p).

    Right for every finite design row, however large (module docstring: rows are split into a
    direction and a scale, and rows with a very wide contour take the expansion (W)).

    Parameters
    ----------
    lik : LogisticLikelihood
    A : array (m, p)
        Test design rows (finite).
    method : {"fast", "reference"}
        ``"fast"``: vectorised adaptive Clenshaw-Curtis quadrature in eta with exact profiles at
        the nodes and log-concave tail checks, and the expansion (W) for rows whose Wald
        standard error of eta exceeds ``WIDE_SIGMA`` (the default). ``"reference"``: adaptive
        quadrature (``scipy.integrate.quad``) of the exact contour on theta with one statsmodels
        refit per evaluation (slow; for checking), for every row.
    tol : float
        Fast path: bound on the neglected tail mass per side; rows whose bound exceeds it get a
        wider interval (doubling up to ``max_widen`` times).
    acc : float
        Fast path: a panel is accepted when its order-16 and order-8 Clenshaw-Curtis values differ
        by at most ``acc``; the error of the accepted order-16 value is far smaller. Measured
        against the reference path, the errors on Bel and Pl were below 2e-8 for n = 10 ... 1000,
        J = 1 ... 3 and test rows up to ten times outside the calibration scores
        (tests/likelihood).
    width : float
        Fast path: initial half-width of each side's interval in units of the Wald scale of f.

    Returns
    -------
    theta_hat, bel, pl : arrays (m,)
        With ``0 <= bel <= theta_hat <= pl <= 1`` (clipped to that order against rounding).

    Examples
    --------
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> from evstat.likelihood import profile_loglik
    >>> th, bel, pl = predictive_belief(fit.likelihood, [[1.0, 0.5], [1.0, 1e300], [1.0, -1e300]])
    >>> bool(np.all((0 <= bel) & (bel <= th) & (th <= pl) & (pl <= 1)))
    True

    The limit for huge scores: with ``c`` the relative profile likelihood of the slope at 0,
    ``Bel = 1 - c, Pl = 1`` (slope > 0, score -> +inf) and ``Bel = 0, Pl = c`` (score -> -inf):

    >>> c = np.exp(profile_loglik(fit.likelihood, [0.0, 1.0], 0.0)[0] - fit.likelihood.loglik_hat)
    >>> bool(np.allclose([bel[1], pl[1], bel[2], pl[2]], [1 - c, 1, 0, c], rtol=0, atol=1e-12))
    True
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    if not np.all(np.isfinite(A)):
        bad = np.flatnonzero(~np.all(np.isfinite(A), axis=1))
        raise ValueError(
            f"test design rows must be finite; rows {bad[:10].tolist()} hold inf or NaN (an "
            "overflow of the formula's terms? rescale the scores)"
        )
    eta_hat = linear_predictor(A, lik.beta_hat)
    theta_hat = expit(eta_hat)
    m = A.shape[0]
    low = np.zeros(m)
    up = np.zeros(m)
    if method not in ("fast", "reference"):
        raise ValueError(f"method must be 'fast' or 'reference', got {method!r}")
    if not acc > 0:
        raise ValueError(f"acc must be positive, got {acc}")
    U, r = row_scale(A)
    # a zero design row (a model without intercept at s = 0): eta = 0 whatever beta, so
    # theta = 1/2 is known exactly and Bel = Pl = 1/2
    live = r > 0
    if method == "reference":
        idx = np.flatnonzero(live)
        low[idx], up[idx] = _reference_belief(lik, U[idx], r[idx], eta_hat[idx])
    else:
        with np.errstate(over="ignore"):
            sigma = r * np.sqrt(np.einsum("bi,ij,bj->b", U, lik.cov, U))
        wide = live & (sigma > WIDE_SIGMA)
        idx = np.flatnonzero(wide)
        if idx.size:
            low[idx], up[idx] = _wide_belief(lik, U[idx], r[idx], eta_hat[idx])
        idx = np.flatnonzero(live & ~wide)
        if idx.size:
            # numpy's BLAS on one thread: the products here are thin (rows x p by p x p), and
            # OpenBLAS's threads, split over them, spin between the calls beside the kernel:
            # they took about 0.7 s of CPU per second of the kernel's, and with two worker
            # processes on two cores (``evstat predict``) that CPU is taken from the other
            # worker (issue 36, item 6); the products are the same row by row, so the results
            # are unchanged
            with _kernels.single_threaded_blas():
                low[idx], up[idx] = _regular_belief(
                    lik, A[idx], U[idx], r[idx], eta_hat[idx], np.maximum(sigma[idx], 1e-300),
                    tol, acc, width, max_widen,
                )
    bel = np.clip(theta_hat - low, 0.0, theta_hat)
    pl = np.clip(theta_hat + up, theta_hat, 1.0)
    return theta_hat, bel, pl


def _regular_belief(
    lik: LogisticLikelihood, A: NDArray, U: NDArray, r: NDArray, eta_hat: NDArray, sigma: NDArray,
    tol: float, acc: float, width: float, max_widen: int,
) -> tuple[NDArray, NDArray]:
    """Lower and upper integrals by the adaptive rule with tail checks (the ordinary rows)."""
    out = {}
    for side in (-1, 1):
        integral = np.empty(A.shape[0])
        todo = np.arange(A.shape[0])
        w = np.full(A.shape[0], float(width))
        # the interval's centre does not depend on its width: found once, not on every widening
        # (the bisection is elementwise, so the same values as found row by row)
        mode = _side_mode(eta_hat, sigma, side)
        for attempt in range(max_widen + 1):
            val, tail = _side_integral_adaptive(
                lik, A[todo], eta_hat[todo], sigma[todo], side, w[todo], acc, mode=mode[todo],
            )
            integral[todo] = val
            ok = tail <= tol
            todo = todo[~ok]
            if todo.size == 0:
                break
            w[todo] *= 2.0
        if todo.size:
            # the last resort: adaptive quadrature with the reference profile
            rl, ru = _reference_belief(lik, U[todo], r[todo], eta_hat[todo])
            integral[todo] = rl if side < 0 else ru
        out[side] = integral
    return out[-1], out[1]


def profile_level_set(
    lik: LogisticLikelihood,
    A: ArrayLike,
    gamma: ArrayLike,
    max_iter: int = 100,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Ends of ``{e : l_p(e; a) >= l_hat + log gamma}`` for directions ``A`` (m, p).

    Newton's method from outside the level set, which converges monotonically because the
    profile is concave; an end that does not exist (the profile never falls to the level)
    is returned as -inf / +inf.

    Returns
    -------
    lower, upper : arrays of shape (m, len(gamma)) (or (m,) for scalar gamma)
    """
    A, scale = row_scale(A)  # l_p(e; r u) = l_p(e / r; u): ends on u, times r
    scale = np.where(scale > 0, scale, 1.0)[:, None]
    g = np.asarray(gamma, dtype=float)
    scalar = g.ndim == 0
    g = np.atleast_1d(g)
    if np.any(~(g >= 0)) or np.any(g > 1):
        raise ValueError("gamma (a plausibility level) must lie in [0, 1]")
    m, k = A.shape[0], g.size
    e_hat = (A @ lik.beta_hat)[:, None] * np.ones((1, k))
    sigma = np.sqrt(np.einsum("bi,ij,bj->b", A, lik.cov, A))[:, None] * np.ones((1, k))
    with np.errstate(divide="ignore"):
        drop = -np.log(g)[None, :] * np.ones((m, 1))  # l_hat - level, >= 0
    Ab = np.broadcast_to(A[:, None, :], (m, k, A.shape[1]))
    zero = ~np.any(A != 0.0, axis=1)[:, None] * np.ones((1, k), dtype=bool)
    res = {}
    for side in (-1.0, 1.0):
        end = np.where(drop == 0, e_hat, np.where(np.isinf(drop), side * np.inf, np.nan))
        end[zero] = 0.0  # a zero direction: a . beta = 0 for every beta
        todo = np.isnan(end)
        e = e_hat + side * sigma * np.sqrt(2.0 * np.where(todo, drop, 0.0))
        # step out until below the level
        dist = np.maximum(np.abs(e - e_hat), 1e-8)
        for _ in range(60):
            if not todo.any():
                break
            lp, _ = profile_loglik(lik, Ab[todo], e[todo])
            inside = lp - lik.loglik_hat > -drop[todo]
            if not inside.any():
                break
            idx = np.flatnonzero(todo.ravel())[inside]
            dist.ravel()[idx] *= 2.0
            e.ravel()[idx] = e_hat.ravel()[idx] + side * dist.ravel()[idx]
            too_far = dist.ravel()[idx] > 1e12 * (1.0 + np.abs(e_hat.ravel()[idx]))
            end.ravel()[idx[too_far]] = side * np.inf
            todo.ravel()[idx[too_far]] = False
        for _ in range(max_iter):
            if not todo.any():
                break
            lp, slope = profile_loglik(lik, Ab[todo], e[todo])
            gval = lp - lik.loglik_hat + drop[todo]
            with np.errstate(divide="ignore", invalid="ignore"):
                step = -gval / slope
            step = np.where(np.isfinite(step), step, 0.0)
            new = e[todo] + step
            conv = np.abs(step) <= 1e-12 * (1.0 + np.abs(new))
            e[todo] = new
            idx = np.flatnonzero(todo.ravel())
            end.ravel()[idx[conv]] = new[conv]
            todo.ravel()[idx[conv]] = False
        end[todo] = e[todo]
        res[side] = end
    lo, hi = res[-1.0] * scale, res[1.0] * scale
    if scalar:
        return lo[:, 0], hi[:, 0]
    return lo, hi


class PredictiveContour:
    """The predictive contour functions ``pl(theta | s)`` of a batch of test rows.

    Calling the object on an array of theta values returns an array of shape
    ``(len(rows), len(theta))``. ``theta_hat`` holds the maximisers (the probabilistic
    calibration), ``level_set(gamma)`` the gamma-cuts ``[U(gamma), V(gamma)]`` on theta, and
    ``belief()`` Bel({1}) and Pl({1}) (eqs. 25-26).

    Examples
    --------
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(40, seed=1)
    >>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
    >>> c = fit.predictive_contour(cal.head(3))
    >>> c([0.1, 0.5, 0.9]).shape
    (3, 3)
    """

    def __init__(self, lik: LogisticLikelihood, A: ArrayLike, index: pd.Index | None = None):
        self._lik = lik
        self.A = np.atleast_2d(np.asarray(A, dtype=float))
        self.index = pd.RangeIndex(self.A.shape[0]) if index is None else index
        self.eta_hat = linear_predictor(self.A, lik.beta_hat)
        self.theta_hat = expit(self.eta_hat)

    def __len__(self) -> int:
        return self.A.shape[0]

    def __repr__(self) -> str:
        return f"<PredictiveContour: {len(self)} rows, p = {self.A.shape[1]}>"

    def log_contour_eta(self, eta: ArrayLike) -> NDArray[np.float64]:
        """``log pl`` at linear-predictor values ``eta`` (shape (k,) or (m, k))."""
        eta = np.asarray(eta, dtype=float)
        if eta.ndim <= 1:
            eta = np.broadcast_to(np.atleast_1d(eta)[None, :], (len(self), np.atleast_1d(eta).size))
        U, r = row_scale(self.A)
        with np.errstate(invalid="ignore"):  # l_p(e; r u) = l_p(e / r; u); zero rows give NaN
            lp, _ = profile_loglik(self._lik, U[:, None, :], eta / np.where(r > 0, r, np.nan)[:, None])
        return relative_loglik(self._lik.loglik_hat, lp)

    def __call__(self, theta: ArrayLike) -> NDArray[np.float64]:
        theta = np.atleast_1d(np.asarray(theta, dtype=float))
        if theta.ndim != 1:
            raise ValueError("theta must be a scalar or a 1-d array of probabilities")
        if np.any(~(theta >= 0)) or np.any(theta > 1):
            raise ValueError("theta values must lie in [0, 1]")
        out = np.zeros((len(self), theta.size))
        inner = (theta > 0) & (theta < 1)
        zero = ~np.any(self.A != 0.0, axis=1)
        if inner.any() and (~zero).any():
            sub = PredictiveContour(self._lik, self.A[~zero])
            out[np.ix_(~zero, inner)] = np.exp(sub.log_contour_eta(logit(theta[inner])))
        if zero.any():  # eta = 0 for every beta: the contour is the indicator of theta = 1/2
            out[zero] = (theta == 0.5).astype(float)[None, :]
        return out

    def level_set(self, gamma: float) -> pd.DataFrame:
        """The gamma-cut ``{theta : pl(theta | s) >= gamma}`` of every row: DataFrame [lower, upper]."""
        g = float(gamma)
        lo, hi = profile_level_set(self._lik, self.A, g)
        return pd.DataFrame({"lower": expit(lo), "upper": expit(hi)}, index=self.index)

    def belief(self, method: str = "fast") -> pd.DataFrame:
        """DataFrame [theta, bel, pl] of theta_hat, Bel({1}) and Pl({1})."""
        th, bel, pl = predictive_belief(self._lik, self.A, method=method)
        return pd.DataFrame({"theta": th, "bel": bel, "pl": pl}, index=self.index)
