"""Profile log-likelihood of a linear combination ``a . beta`` of logistic coefficients.

For a direction ``a`` (a test row's design vector, or a unit vector for one coefficient) and a
value ``e``, the profile log-likelihood is

    l_p(e; a) = max { l(beta) : a . beta = e }.

It is concave in ``e`` (partial maximisation of a concave function over an affine family), is
maximal at ``e_hat = a . beta_hat`` and its derivative is the Lagrange multiplier ``nu`` of the
constraint (``score(beta*) = nu a`` at the constrained maximiser ``beta*``).

Two paths compute it:

* :func:`profile_loglik` — the fast path: Newton's method on the KKT system, vectorised over a
  batch of (direction, value) problems, warm-started on the Wald path
  ``beta_hat + Sigma a (e - e_hat) / (a' Sigma a)``, with step halving, a convergence check and a
  fallback to the reference path for any problem that does not converge; chunked so that memory
  is bounded.
* :func:`profile_loglik_reference` — the slow, obviously correct path: one statsmodels GLM refit
  per problem with an offset (the offset trick of R's ``profile.glm``): solve the constraint for
  the coordinate ``k`` with the largest ``|a_k|``, so that the linear predictor of calibration
  row ``i`` is ``e X_ik / a_k + sum_{j != k} beta_j (X_ij - X_ik a_j / a_k)``. With an intercept
  and ``a = (1, s)`` this is the regression of the targets on the centred scores ``X_ij - s_j``
  with offset ``e`` (notes, section 5).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from evstat.likelihood.logistic import loglik, loglik_eta

__all__ = ["LogisticLikelihood", "profile_loglik", "profile_loglik_reference"]

#: number of float64 cells (problems x calibration rows) processed at once by the fast path
CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class LogisticLikelihood:
    """A fitted logistic likelihood: design ``X`` (n, p), targets ``t``, and its maximiser.

    Attributes
    ----------
    X, t : numpy arrays
        Calibration design matrix and targets.
    beta_hat : numpy array (p,)
        Maximum-likelihood estimate.
    loglik_hat : float
        ``l(beta_hat)``.
    cov : numpy array (p, p)
        Inverse observed information at ``beta_hat``.
    """

    X: NDArray[np.float64]
    t: NDArray[np.float64]
    beta_hat: NDArray[np.float64]
    loglik_hat: float
    cov: NDArray[np.float64]

    @property
    def p(self) -> int:
        return int(self.X.shape[1])

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    def loglik(self, beta: ArrayLike) -> NDArray[np.float64]:
        """``l(beta)`` for ``beta`` of shape ``(..., p)``."""
        return loglik(beta, self.X, self.t)


def _wald_start(lik: LogisticLikelihood, A: NDArray, e: NDArray) -> NDArray:
    sa = A @ lik.cov  # (B, p): Sigma a
    var = np.einsum("bi,bi->b", sa, A)
    e_hat = A @ lik.beta_hat
    return lik.beta_hat + sa * ((e - e_hat) / var)[:, None]


def _project(A: NDArray, e: NDArray, beta: NDArray) -> NDArray:
    aa = np.einsum("bi,bi->b", A, A)
    return beta + A * ((e - np.einsum("bi,bi->b", A, beta)) / aa)[:, None]


def _softplus_sum(eta: NDArray) -> NDArray:
    """Row sums of log(1 + exp(eta))."""
    return (np.maximum(eta, 0.0) + np.log1p(np.exp(-np.abs(eta)))).sum(axis=1)


#: a Newton step that changes no calibration row's linear predictor by more than this is taken
#: without checking the log-likelihood: the logistic loss phi is generalised self-concordant
#: (|phi'''| <= phi''), so such a step gains at least 0.4 times the Newton decrement
SAFE_STEP = 0.5


def _newton_batch(
    lik: LogisticLikelihood,
    A: NDArray,
    e: NDArray,
    tol: float,
    max_iter: int,
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Constrained Newton for one chunk. Returns (loglik, nu, beta, converged).

    Each pass computes the fitted probabilities (one expit per cell), the score and the
    information of every active problem at once, and solves the KKT system for the step. The
    linear predictors are updated with the step's change ``d X'``, which also decides whether the
    step must be checked: steps that move some linear predictor by more than ``SAFE_STEP`` are
    checked (the log-likelihood is computed before and after, and a step that lowered it is
    halved); smaller steps are safe (see ``SAFE_STEP``) and taken unchecked.
    Convergence: the Newton decrement ``g' d`` (twice the predicted gain) is below ``tol``;
    the final Newton step is then taken and the log-likelihood updated by the predicted gain
    ``g' d / 2``, whose error is of third order in the step: about
    ``tol**1.5 / sqrt(n)``, i.e. 1e-15 for the default ``tol = 1e-10``.
    """
    X, t = lik.X, lik.t
    n, p = X.shape
    B = A.shape[0]
    XX = (X[:, :, None] * X[:, None, :]).reshape(n, p * p)
    beta = _project(A, e, _wald_start(lik, A, e))
    eta_all = beta @ X.T
    prev_beta = beta.copy()
    prev_l = np.full(B, -np.inf)
    prev_step = np.zeros((B, p))
    checked = np.zeros(B, dtype=bool)  # the step that led to the current point must be checked
    size = np.ones(B)
    out_l = np.empty(B)
    nu = np.zeros(B)
    converged = np.zeros(B, dtype=bool)
    active = np.arange(B)
    kkt = np.zeros((B, p + 1, p + 1))
    for _ in range(max_iter + 40):
        if active.size == 0:
            break
        b = beta[active]
        eta = eta_all[active]
        ll = np.full(active.size, np.nan)
        chk = checked[active]
        if chk.any():
            ll[chk] = eta[chk] @ t - _softplus_sum(eta[chk])
        # step halving for checked problems whose trial point lowered the log-likelihood
        worse = np.zeros(active.size, dtype=bool)
        prev = prev_l[active[chk]]
        worse[chk] = ll[chk] < prev - 1e-12 * (1.0 + np.abs(prev))
        extra = np.zeros(0, dtype=int)
        if worse.any():
            w_idx = active[worse]
            size[w_idx] *= 0.5
            beta[w_idx] = _project(A[w_idx], e[w_idx], prev_beta[w_idx] + size[w_idx, None] * prev_step[w_idx])
            stuck = size[w_idx] < 1e-12
            if stuck.any():  # no ascent possible at rounding level: accept the previous point
                s_idx = w_idx[stuck]
                beta[s_idx] = prev_beta[s_idx]
                out_l[s_idx] = prev_l[s_idx]
                converged[s_idx] = True
            extra = w_idx[~stuck]  # re-evaluated (still checked) in the next pass
            eta_all[extra] = beta[extra] @ X.T
            keep = ~worse
            active, b, ll, eta = active[keep], b[keep], ll[keep], eta[keep]
        if active.size == 0:
            active = extra
            continue
        mu = expit(eta)
        a = A[active]
        g = (t - mu) @ X
        info = ((mu * (1.0 - mu)) @ XX).reshape(-1, p, p)
        k = kkt[: active.size]
        k[:, :p, :p] = info
        k[:, :p, p] = a
        k[:, p, :p] = a
        k[:, p, p] = 0.0
        rhs = np.concatenate([g, np.zeros((active.size, 1))], axis=1)
        try:
            sol = np.linalg.solve(k, rhs[..., None])[..., 0]
        except np.linalg.LinAlgError:
            sol = np.stack([np.linalg.lstsq(ki, ri, rcond=None)[0] for ki, ri in zip(k, rhs)])
        step = sol[:, :p]
        nu[active] = sol[:, p]
        dec = np.einsum("bi,bi->b", g, step)
        done = np.abs(dec) <= tol
        go = ~done
        d_eta = step[go] @ X.T
        big = np.zeros(active.size, dtype=bool)
        big[go] = np.max(np.abs(d_eta), axis=1) > SAFE_STEP
        need = (done | big) & np.isnan(ll)
        if need.any():
            ll[need] = eta[need] @ t - _softplus_sum(eta[need])
        d_idx = active[done]
        beta[d_idx] = _project(A[d_idx], e[d_idx], b[done] + step[done])
        out_l[d_idx] = ll[done] + 0.5 * np.maximum(dec[done], 0.0)
        converged[d_idx] = True
        g_idx = active[go]
        prev_beta[g_idx] = b[go]
        prev_l[g_idx] = ll[go]
        prev_step[g_idx] = step[go]
        checked[g_idx] = big[go]
        size[g_idx] = 1.0
        beta[g_idx] = _project(A[g_idx], e[g_idx], b[go] + step[go])
        eta_all[g_idx] = eta[go] + d_eta
        active = np.concatenate([g_idx, extra])
    return out_l, nu, beta, converged


def profile_loglik(
    lik: LogisticLikelihood,
    A: ArrayLike,
    e: ArrayLike,
    tol: float = 1e-10,
    max_iter: int = 60,
    return_beta: bool = False,
) -> tuple[NDArray[np.float64], ...]:
    """Fast path: profile log-likelihood ``l_p(e; a)`` for a batch of problems.

    Parameters
    ----------
    lik : LogisticLikelihood
    A : array (..., p)
        Directions ``a`` (e.g. test design rows), broadcast against ``e``.
    e : array (...)
        Values of ``a . beta``.
    tol : float
        Convergence when the Newton decrement ``g' d`` is below ``tol``; the last Newton step is
        then taken and its predicted gain added, so the log-likelihood is accurate to about
        ``tol**1.5`` (1e-15 by default).
    max_iter : int
        Newton iterations before a problem falls back to the reference path.
    return_beta : bool
        Also return the constrained maximisers (shape ``(..., p)``).

    Returns
    -------
    loglik : array (...)
        ``l_p(e; a)``.
    slope : array (...)
        ``d l_p / d e`` (the Lagrange multiplier).
    beta : array (..., p), only with ``return_beta=True``.
    """
    A = np.asarray(A, dtype=float)
    e = np.asarray(e, dtype=float)
    shape = np.broadcast_shapes(A.shape[:-1], e.shape)
    A = np.broadcast_to(A, shape + (lik.p,)).reshape(-1, lik.p)
    e = np.broadcast_to(e, shape).reshape(-1)
    out_l = np.empty(e.size)
    out_nu = np.empty(e.size)
    out_b = np.empty((e.size, lik.p)) if return_beta else None
    step = max(1, CHUNK_CELLS // max(lik.n, 1))
    for start in range(0, e.size, step):
        sl = slice(start, start + step)
        l_, nu_, b_, ok = _newton_batch(lik, A[sl], e[sl], tol, max_iter)
        if not ok.all():
            bad = np.flatnonzero(~ok)
            ref_l, ref_nu, ref_b = profile_loglik_reference(
                lik, A[sl][bad], e[sl][bad], return_beta=True
            )
            l_[bad], nu_[bad], b_[bad] = ref_l, ref_nu, ref_b
        out_l[sl] = l_
        out_nu[sl] = nu_
        if out_b is not None:
            out_b[sl] = b_
    res = (out_l.reshape(shape), out_nu.reshape(shape))
    if return_beta:
        return res + (out_b.reshape(shape + (lik.p,)),)
    return res


def _offset_glm(t: NDArray, Z: NDArray, offset: NDArray) -> NDArray:
    """Maximise the binomial log-likelihood of ``t`` on ``Z`` with ``offset`` (no intercept).

    statsmodels' IRLS first (from its default start, then from zero); where IRLS diverges, which
    happens far in the tails of a profile, scipy's trust-region Newton on the same likelihood
    with exact derivatives. The result is accepted only if its gradient is at rounding level.
    """
    import statsmodels.api as sm
    from scipy.optimize import minimize
    from statsmodels.tools.sm_exceptions import (
        ConvergenceWarning,
        DomainWarning,
        PerfectSeparationWarning,
    )

    def grad(gamma: NDArray) -> NDArray:
        return (t - expit(Z @ gamma + offset)) @ Z

    scale = 1e-7 * max(1.0, float(len(t)))
    tried = []
    for start in (None, np.zeros(Z.shape[1])):
        with warnings.catch_warnings():
            warnings.simplefilter(
                "ignore", (ConvergenceWarning, DomainWarning, PerfectSeparationWarning, RuntimeWarning)
            )
            try:
                res = sm.GLM(t, Z, family=sm.families.Binomial(), offset=offset).fit(
                    start_params=start, tol=1e-13, maxiter=500
                )
                gamma = np.asarray(res.params, dtype=float)
            except (ValueError, np.linalg.LinAlgError, FloatingPointError):
                continue
        if np.all(np.isfinite(gamma)):
            tried.append(gamma)
            if np.max(np.abs(grad(gamma))) <= scale:
                return gamma

    def nll(gamma: NDArray) -> float:
        return -float(loglik_eta(Z @ gamma + offset, t))

    def hess(gamma: NDArray) -> NDArray:
        eta = Z @ gamma + offset
        w = expit(eta) * expit(-eta)
        return (Z * w[:, None]).T @ Z

    res = minimize(
        nll, np.zeros(Z.shape[1]), jac=lambda g: -grad(g), hess=hess, method="trust-exact",
        options={"gtol": 1e-12, "maxiter": 2000},
    )
    gamma = np.asarray(res.x, dtype=float)
    if np.all(np.isfinite(gamma)) and np.max(np.abs(grad(gamma))) <= scale:
        return gamma
    raise RuntimeError(
        "reference GLM refit with offset did not converge (statsmodels IRLS and trust-region "
        "Newton both failed)"
    )


def profile_loglik_reference(
    lik: LogisticLikelihood,
    A: ArrayLike,
    e: ArrayLike,
    return_beta: bool = False,
) -> tuple[NDArray[np.float64], ...]:
    """Reference path: one statsmodels ``GLM(family=Binomial())`` refit with an offset per problem.

    Same parameters and returns as :func:`profile_loglik`. Slow (milliseconds per problem) and
    obviously correct; the tests compare the fast path against it.
    """
    A = np.asarray(A, dtype=float)
    e = np.asarray(e, dtype=float)
    shape = np.broadcast_shapes(A.shape[:-1], e.shape)
    A = np.broadcast_to(A, shape + (lik.p,)).reshape(-1, lik.p)
    e = np.broadcast_to(e, shape).reshape(-1)
    X, t, p = lik.X, lik.t, lik.p
    out_l = np.empty(e.size)
    out_nu = np.empty(e.size)
    out_b = np.empty((e.size, p))
    for i in range(e.size):
        a = A[i]
        k = int(np.argmax(np.abs(a)))
        rest = [j for j in range(p) if j != k]
        offset = e[i] * X[:, k] / a[k]
        if rest:
            Z = X[:, rest] - np.outer(X[:, k] / a[k], a[rest])
            gamma = _offset_glm(t, Z, offset)
        else:
            gamma = np.zeros(0)
        beta = np.empty(p)
        beta[rest] = gamma
        beta[k] = (e[i] - a[rest] @ gamma) / a[k]
        out_b[i] = beta
        out_l[i] = float(loglik(beta, X, t))
        g = (t - expit(X @ beta)) @ X
        out_nu[i] = g @ a / (a @ a)
    res_t = (out_l.reshape(shape), out_nu.reshape(shape))
    if return_beta:
        return res_t + (out_b.reshape(shape + (p,)),)
    return res_t
