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
  with offset ``e`` (Minary et al. 2019, eqs. 39-45).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from evstat.likelihood.logistic import loglik, loglik_eta

__all__ = [
    "BETTER_SOLUTION_TOL",
    "relative_loglik","LogisticLikelihood", "ProfileFallbackWarning", "profile_loglik", "profile_loglik_reference"]


#: Largest fall of the deviance ``2 (l_hat - l_p)`` below 0 that a profile point may show and
#: still count as rounding (it is then set to 0); a larger fall means the profile found a higher
#: likelihood than the fit, and the profile stops with R's error. R's ``profile.glm`` (MASS)
#: uses the same bound, 1e-3 on the deviance.
BETTER_SOLUTION_TOL = 1e-3


def relative_loglik(loglik_hat: float, lp: ArrayLike) -> NDArray[np.float64]:
    """``log pl = l_p - l_hat``, the log of the relative (profile) likelihood: values above 0 by
    rounding (within :data:`BETTER_SOLUTION_TOL` on the deviance scale) are set to 0; a point
    with a clearly higher likelihood than the fit is an error with R's message (``profile.glm``).
    NaN stays NaN.

    Examples
    --------
    >>> relative_loglik(-10.0, np.array([-10.5, -9.9999999]))  # the second: rounding
    array([-0.5,  0. ])
    """
    rel = np.asarray(lp, dtype=np.float64) - loglik_hat
    if np.any(2.0 * rel > BETTER_SOLUTION_TOL):
        raise ValueError(
            "profiling has found a better solution, so original fit had not converged (a "
            f"profile point has a log-likelihood {float(np.nanmax(rel)):.3g} above the fit's); "
            "refit with tighter convergence or check the data for separation"
        )
    return np.minimum(rel, 0.0)

#: number of float64 cells (problems x calibration rows) processed at once by the fast path
CHUNK_CELLS = 2_000_000


class ProfileFallbackWarning(UserWarning):
    """Some profile problems did not converge on the fast path and were solved by statsmodels
    GLM refits with an offset (the reference path); the message names them."""


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


def _newton_batch(
    lik: LogisticLikelihood,
    A: NDArray,
    e: NDArray,
    tol: float,
    max_iter: int,
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Constrained Newton for one chunk. Returns (loglik, nu, beta, converged).

    Each problem starts from the Wald path (projected on its constraint) and runs Newton's method
    on the KKT system in a compiled kernel (numba): every iteration is ONE pass over the
    calibration rows that computes, per row, the linear predictor, one exponential
    ``z = exp(-|eta|)``, from it the fitted probability ``1 / (1 + z)`` (or ``z / (1 + z)``), the
    weight ``z / (1 + z)^2`` and the log-likelihood term ``t eta - max(eta, 0) - log1p(z)``, and
    accumulates the score and the upper triangle of the information; no (problems x rows)
    temporaries are formed, so the cost per problem is linear in n with a small constant and the
    memory is O(p^2). The (p + 1) x (p + 1) KKT system is solved by Gaussian elimination with
    partial pivoting. A step that lowered the log-likelihood is halved (the log-likelihood comes
    with every pass). Convergence: the Newton decrement ``g' d`` (twice the predicted gain) is
    below ``tol``; the final Newton step is then taken and the log-likelihood updated by the
    predicted gain ``g' d / 2``, whose error is of third order in the step: about
    ``tol**1.5 / sqrt(n)``, i.e. 1e-15 for the default ``tol = 1e-10``. A singular KKT system or
    ``max_iter`` Newton steps without convergence leave the problem unconverged (the caller falls
    back to the reference path).
    """
    X = np.ascontiguousarray(lik.X, dtype=float)
    t = np.ascontiguousarray(lik.t, dtype=float)
    A = np.ascontiguousarray(A, dtype=float)
    e = np.ascontiguousarray(e, dtype=float)
    B = A.shape[0]
    beta = np.ascontiguousarray(_project(A, e, _wald_start(lik, A, e)))
    out_l = np.full(B, np.nan)
    nu = np.zeros(B)
    converged = np.zeros(B, dtype=bool)
    XX = np.ascontiguousarray((X[:, :, None] * X[:, None, :]).reshape(X.shape[0], -1))
    _kernel()(X, XX, t, A, e, beta, float(tol), int(max_iter), out_l, nu, converged)
    return out_l, nu, beta, converged


def _newton_kernel_py(X, XX, t, A, e, beta, tol, max_iter, out_l, out_nu, ok):  # pragma: no cover
    """Constrained Newton for each problem ``b`` (compiled by numba; see :func:`_newton_batch`).

    ``beta`` holds the (projected) starting points and is overwritten by the maximisers.
    """
    n, p = X.shape
    q = p + 1
    for b in range(A.shape[0]):  # problems are independent (serial: see _kernel)
        g = np.empty(p)
        K = np.empty((q, q))
        sol = np.empty(q)
        prev_beta = np.empty(p)
        prev_step = np.empty(p)
        step = np.empty(p)
        res = np.empty(n)
        wts = np.empty(n)
        a = A[b]
        aa = 0.0
        for j in range(p):
            aa += a[j] * a[j]
        bb = beta[b]
        prev_l = -np.inf
        size = 1.0
        newton = 0
        for _ in range(max_iter + 60):
            if newton >= max_iter:
                break
            # one pass over the calibration rows: log-likelihood, residuals and weights;
            # sum_i log1p(z_i) as logs of products of blocks of (1 + z_i) in (1, 2]
            ll = 0.0
            prod = 1.0
            for i in range(n):
                eta = 0.0
                for j in range(p):
                    eta += X[i, j] * bb[j]
                z = np.exp(-abs(eta))
                inv = 1.0 / (1.0 + z)
                mu = inv if eta >= 0.0 else z * inv
                ll += t[i] * eta - max(eta, 0.0)
                prod *= 1.0 + z
                if (i & 511) == 511:
                    ll -= np.log(prod)
                    prod = 1.0
                res[i] = t[i] - mu
                wts[i] = z * inv * inv
            ll -= np.log(prod)
            # score and information as matrix-vector products (BLAS)
            gg = np.dot(res, X)
            hh = np.dot(wts, XX)
            for j in range(p):
                g[j] = gg[j]
                for k in range(p):
                    K[j, k] = hh[j * p + k]
            if ll < prev_l - 1e-12 * (1.0 + abs(prev_l)):
                # the last step lowered the log-likelihood: halve it
                size *= 0.5
                if size < 1e-12:  # no ascent possible at rounding level: keep the previous point
                    for j in range(p):
                        bb[j] = prev_beta[j]
                    out_l[b] = prev_l
                    ok[b] = True
                    break
                for j in range(p):
                    bb[j] = prev_beta[j] + size * prev_step[j]
                _project_inplace(bb, a, aa, e[b])
                continue
            # KKT system [[H, a], [a', 0]] [step; nu] = [g; 0] by Gaussian elimination with
            # partial pivoting
            for j in range(p):
                K[j, p] = a[j]
                K[p, j] = a[j]
                sol[j] = g[j]
            K[p, p] = 0.0
            sol[p] = 0.0
            singular = False
            for c in range(q):
                piv = c
                best = abs(K[c, c])
                for rr in range(c + 1, q):
                    if abs(K[rr, c]) > best:
                        best = abs(K[rr, c])
                        piv = rr
                if not best > 0.0:
                    singular = True
                    break
                if piv != c:
                    for k in range(q):
                        tmp = K[c, k]
                        K[c, k] = K[piv, k]
                        K[piv, k] = tmp
                    tmp = sol[c]
                    sol[c] = sol[piv]
                    sol[piv] = tmp
                for rr in range(c + 1, q):
                    f = K[rr, c] / K[c, c]
                    if f != 0.0:
                        for k in range(c, q):
                            K[rr, k] -= f * K[c, k]
                        sol[rr] -= f * sol[c]
            if singular:
                break  # not converged: the caller falls back to the reference path
            for c in range(q - 1, -1, -1):
                s = sol[c]
                for k in range(c + 1, q):
                    s -= K[c, k] * sol[k]
                sol[c] = s / K[c, c]
            dec = 0.0
            for j in range(p):
                step[j] = sol[j]
                dec += g[j] * sol[j]
            out_nu[b] = sol[p]
            newton += 1
            if abs(dec) <= tol:
                # converged: take the last step and add its predicted gain
                for j in range(p):
                    bb[j] += step[j]
                _project_inplace(bb, a, aa, e[b])
                out_l[b] = ll + 0.5 * max(dec, 0.0)
                ok[b] = True
                break
            for j in range(p):
                prev_beta[j] = bb[j]
                prev_step[j] = step[j]
                bb[j] += step[j]
            prev_l = ll
            size = 1.0
            _project_inplace(bb, a, aa, e[b])


def _project_inplace_py(beta, a, aa, e):  # pragma: no cover
    s = 0.0
    for j in range(beta.shape[0]):
        s += a[j] * beta[j]
    c = (e - s) / aa
    for j in range(beta.shape[0]):
        beta[j] += a[j] * c


_KERNEL = None


def _kernel():
    """The compiled Newton kernel (numba, compiled on first use and cached on disk)."""
    global _KERNEL, _project_inplace
    if _KERNEL is None:
        import numba

        _project_inplace = numba.njit(cache=True)(_project_inplace_py)
        # Serial on purpose: numba's parallel kernels run on its OpenMP threading layer here
        # (GNU libgomp; TBB is not installed), which is not fork-safe: a process forked after a
        # parallel kernel had run aborted ("fork() called from a process already using GNU
        # OpenMP"), which killed the process-pool workers of `evstat predict --jobs`. Cores are
        # used by processes instead (`evstat predict --jobs`, Dask, joblib in the studies).
        _KERNEL = numba.njit(cache=True)(_newton_kernel_py)
    return _KERNEL


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
    fell_back: list[int] = []
    for start in range(0, e.size, step):
        sl = slice(start, start + step)
        l_, nu_, b_, ok = _newton_batch(lik, A[sl], e[sl], tol, max_iter)
        if not ok.all():
            bad = np.flatnonzero(~ok)
            ref_l, ref_nu, ref_b = profile_loglik_reference(
                lik, A[sl][bad], e[sl][bad], return_beta=True
            )
            l_[bad], nu_[bad], b_[bad] = ref_l, ref_nu, ref_b
            fell_back.extend((start + bad).tolist())
        out_l[sl] = l_
        out_nu[sl] = nu_
        if out_b is not None:
            out_b[sl] = b_
    if fell_back:
        shown = ", ".join(str(i) for i in fell_back[:10]) + (", ..." if len(fell_back) > 10 else "")
        warnings.warn(
            f"profile_loglik: Newton's method did not converge within {max_iter} iterations for "
            f"{len(fell_back)} of {e.size} problems (rows {shown} of the flattened batch, e.g. "
            "test rows of a predictive belief); their profile comes from statsmodels GLM refits "
            "with an offset (the reference path), which is slower but exact",
            ProfileFallbackWarning,
            stacklevel=2,
        )
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
