"""Profile log-likelihood of a linear combination ``a . beta`` of logistic coefficients.

For a direction ``a`` (a test row's design vector, or a unit vector for one coefficient) and a
value ``e``, the profile log-likelihood is

    l_p(e; a) = max { l(beta) : a . beta = e }.

It is concave in ``e`` (partial maximisation of a concave function over an affine family), is
maximal at ``e_hat = a . beta_hat`` and its derivative is the Lagrange multiplier ``nu`` of the
constraint (``score(beta*) = nu a`` at the constrained maximiser ``beta*``).

Two paths compute it:

* :func:`profile_loglik` — the fast path: Newton's method on the KKT system in one compiled
  kernel (numba) over a batch of (direction, value) problems, warm-started on the Wald path
  ``beta_hat + Sigma a (e - e_hat) / (a' Sigma a)`` or, along a path of values of one direction
  (``chain=True``: the quadrature nodes of a predictive belief), by continuation from the
  previous maximisers (tangent ``d beta / d e`` plus a quadratic term), with step halving, a
  convergence check and a fallback to the reference path for any problem that does not
  converge; memory O(n + problems x p).
* :func:`profile_loglik_reference` — the slow, obviously correct path: one statsmodels GLM refit
  per problem with an offset (the offset trick of R's ``profile.glm``): solve the constraint for
  the coordinate ``k`` with the largest ``|a_k|``, so that the linear predictor of calibration
  row ``i`` is ``e X_ik / a_k + sum_{j != k} beta_j (X_ij - X_ik a_j / a_k)``. With an intercept
  and ``a = (1, s)`` this is the regression of the targets on the centred scores ``X_ij - s_j``
  with offset ``e`` (Minary et al. 2019, eqs. 39-45).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from evstat.exceptions import EvstatWarning
from evstat.likelihood import _kernels
from evstat.likelihood.logistic import loglik, loglik_eta

__all__ = [
    "BETTER_SOLUTION_TOL",
    "CHUNK_PROBLEMS",
    "relative_loglik", "LogisticLikelihood", "ProfileFallbackWarning", "profile_loglik", "profile_loglik_reference"]


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

#: problems passed to the compiled Newton kernel at once: its memory is O(n + problems x p)
#: whatever the chunk (no (problems x calibration rows) temporaries), so the chunk only bounds
#: the batch arrays and the granularity of a fallback to the reference path
CHUNK_PROBLEMS = 65_536


class ProfileFallbackWarning(EvstatWarning):
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
    chain: bool = False,
    Xc: NDArray | None = None,
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Constrained Newton for one chunk. Returns (loglik, nu, beta, converged).

    Each problem starts from the Wald path (projected on its constraint) and runs Newton's method
    on the KKT system in a compiled kernel (numba). Every iteration is one sweep over the
    calibration rows (:func:`_sweep_py`), held column by column (``Xc = X.T``, padded with zero
    columns to a multiple of 4) and taken in blocks of :data:`SWEEP_BLOCK` rows that stay in
    the L1 cache: the linear predictors; ``z = exp(-|eta|)`` by a branch-free exponential
    (:func:`_exp_neg_abs_py`; libm's ``exp`` cannot be vectorised, and was the largest cost);
    from z the fitted probability ``1 / (1 + z)`` (or ``z / (1 + z)``), the weight
    ``z / (1 + z)^2`` and the log-likelihood ``t eta - max(eta, 0) - log1p(z)`` (the sum of the
    ``log1p`` as logs of products of blocks of factors in (1, 2]); then the score and the upper
    triangle of the information accumulated in scalars, four columns (a tile) at a time, so
    that the compiler keeps them in SIMD registers. No (problems x rows) temporaries are formed:
    the cost per problem is linear in n with a small constant and the memory O(n).
    The (p + 1) x (p + 1) KKT system is solved by Gaussian elimination with partial pivoting,
    for the Newton step and the tangent below at once. A step that lowered the log-likelihood
    is halved (the log-likelihood comes with every pass).
    Convergence: the Newton decrement ``g' d`` (twice the predicted gain) is below ``tol``; the
    final Newton step is then taken and the log-likelihood updated by the predicted gain
    ``g' d / 2``, whose error is of third order in the step: about ``tol**1.5 / sqrt(n)``, i.e.
    1e-15 for the default ``tol = 1e-10``. A singular KKT system or ``max_iter`` Newton steps
    without convergence leave the problem unconverged (the caller falls back to the reference
    path).

    With ``chain=True``, a problem whose direction equals the previous problem's (a path of
    values ``e`` along one direction, e.g. the quadrature nodes of one test row, ordered from
    ``a . beta_hat`` outwards) starts from a prediction along the path of constrained maximisers
    (continuation) instead of the Wald path: the previous maximiser plus its tangent
    ``d beta / d e`` (the solution of ``[[H, a], [a', 0]] [v; w] = [0; 1]`` with the information
    H of the last pass), with a quadratic term fitted to the maximiser before it when the step
    is at most 4 times the last spacing (beyond, the rounding error of the fitted curvature,
    which grows like the squared ratio, could spoil the start). Every path starts at the MLE
    itself, the maximiser at ``e = a . beta_hat`` with tangent ``cov a / (a' cov a)``, so its
    first problem starts from the Wald path and its second already has a quadratic term. Most
    such problems converge in one pass (one evaluation of score and information at the
    predicted point, whose decrement is already below ``tol``): measured 1.003 passes per node
    for the predictive belief at n = 1000, J = 3.
    """
    if not _kernels.use_kernel(A.shape[0] * lik.n, loaded=_KERNEL is not None):
        return _newton_batch_numpy(lik, A, e, tol, max_iter)
    if Xc is None:
        Xc = _columns(lik.X)
    # every array C-contiguous, float64 and writable: one specialisation of the kernel, the one
    # compiled ahead by evstat.likelihood._kernels (a read-only array is another numba type)
    t = _c_array(lik.t)
    A = _c_array(A)
    e = _c_array(e)
    B = A.shape[0]
    beta = _c_array(_project(A, e, _wald_start(lik, A, e)))
    out_l = np.full(B, np.nan)
    nu = np.zeros(B)
    converged = np.zeros(B, dtype=bool)
    kern, Xc, beta_hat, cov = _kernel(), _c_array(Xc), _c_array(lik.beta_hat), _c_array(lik.cov)

    def part(lo: int, hi: int) -> int:  # problems lo .. hi - 1, whole paths (a path is one direction); passes
        own = np.zeros(1, dtype=np.int64)
        kern(Xc, t, A[lo:hi], e[lo:hi], beta[lo:hi], float(tol), int(max_iter), bool(chain), beta_hat, cov,
             out_l[lo:hi], nu[lo:hi], converged[lo:hi], own)
        return int(own[0])

    starts = (np.flatnonzero(np.r_[True, np.any(A[1:] != A[:-1], axis=1)]) if chain else np.arange(B))
    passes = sum(_kernels.run_split(part, starts, B, _kernels.threads_for(B * lik.n)))
    with _kernels.COUNT_LOCK:
        _PASSES[0] += passes
    return out_l, nu, beta, converged


def _c_array(x: ArrayLike) -> NDArray:
    return np.require(x, dtype=np.float64, requirements=["C", "W"])


#: problems x calibration rows per block of the numpy path (its temporaries are a few arrays of
#: this many doubles: 2 MB each at 2**18, which stay in the cache; 2**21 took 10-20 % more CPU)
NUMPY_BLOCK = 2**18


def _newton_batch_numpy(
    lik: LogisticLikelihood, A: NDArray, e: NDArray, tol: float, max_iter: int
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """The numpy path of :func:`_newton_batch`: the same constrained Newton iteration, vectorised
    over the problems instead of compiled (used while the kernel is not compiled yet, see
    :mod:`evstat.likelihood._kernels`).

    Same start (the Wald path projected on the constraint; no continuation), same pass (the
    log-likelihood, score and information at ``beta``, here as (problems x rows) arrays in
    blocks of :data:`NUMPY_BLOCK`), same KKT system ``[[H, a], [a', 0]] [step; nu] = [g; 0]``,
    same step halving when a step lowered the log-likelihood, same convergence test on the
    Newton decrement ``g' step`` with the last step taken and its predicted gain added, same
    pass limits. The results agree with the kernel to rounding (1e-9 is tested); a problem with
    a singular KKT system or without convergence is reported unconverged, as by the kernel.
    """
    X = np.asarray(lik.X, dtype=np.float64)
    t = np.asarray(lik.t, dtype=np.float64)
    A = np.asarray(A, dtype=np.float64)
    e = np.asarray(e, dtype=np.float64)
    B, p = A.shape
    beta = _project(A, e, _wald_start(lik, A, e))
    out_l = np.full(B, np.nan)
    nu = np.zeros(B)
    ok = np.zeros(B, dtype=bool)
    XX = (X[:, :, None] * X[:, None, :]).reshape(X.shape[0], p * p)  # rows' x x', for one GEMM
    step_rows = max(1, NUMPY_BLOCK // max(1, lik.n))
    with _kernels.single_threaded_blas():  # thin products: threads cost CPU, gain little
        for s in range(0, B, step_rows):
            sl = slice(s, s + step_rows)
            l_, nu_, b_, ok_ = _newton_numpy_block(X, XX, t, A[sl], e[sl], beta[sl], tol, max_iter)
            out_l[sl], nu[sl], beta[sl], ok[sl] = l_, nu_, b_, ok_
    return out_l, nu, beta, ok


def _newton_numpy_block(X, XX, t, A, e, beta, tol, max_iter):
    """:func:`_newton_batch_numpy` on one block of problems (see there)."""
    B, p = A.shape
    aa = np.einsum("bi,bi->b", A, A)
    out_l = np.full(B, np.nan)
    out_nu = np.zeros(B)
    ok = np.zeros(B, dtype=bool)
    prev_l = np.full(B, -np.inf)
    prev_beta = beta.copy()
    prev_step = np.zeros((B, p))
    size = np.ones(B)
    newton = np.zeros(B, dtype=np.int64)
    live = np.ones(B, dtype=bool)
    K = np.zeros((B, p + 1, p + 1))
    K[:, :p, p] = A
    K[:, p, :p] = A
    rhs = np.zeros((B, p + 1))

    def project(idx: NDArray) -> None:
        beta[idx] += A[idx] * ((e[idx] - np.einsum("bi,bi->b", A[idx], beta[idx])) / aa[idx])[:, None]

    for _ in range(max_iter + 60):
        live &= newton < max_iter
        idx = np.flatnonzero(live)
        if idx.size == 0:
            break
        _PASSES[0] += idx.size
        eta = beta[idx] @ X.T  # (m, n)
        z = np.exp(-np.abs(eta))
        ll = t @ eta.T - np.maximum(eta, 0.0).sum(axis=1) - np.log1p(z).sum(axis=1)
        # the step halving: a step that lowered the log-likelihood is halved
        worse = ll < prev_l[idx] - 1e-12 * (1.0 + np.abs(prev_l[idx]))
        if worse.any():
            w = idx[worse]
            size[w] *= 0.5
            stuck = w[size[w] < 1e-12]  # no ascent possible at rounding level: keep the previous point
            beta[stuck] = prev_beta[stuck]
            out_l[stuck] = prev_l[stuck]
            ok[stuck] = True
            live[stuck] = False
            w = w[size[w] >= 1e-12]
            beta[w] = prev_beta[w] + size[w, None] * prev_step[w]
            project(w)
        keep = ~worse
        idx, eta, z, ll = idx[keep], eta[keep], z[keep], ll[keep]
        if idx.size == 0:
            continue
        inv = 1.0 / (1.0 + z)
        g = (t - np.where(eta >= 0.0, inv, z * inv)) @ X  # (m, p): the score
        H = ((z * inv * inv) @ XX).reshape(-1, p, p)  # the information, weights z / (1 + z)^2
        Km = K[idx].copy()
        Km[:, :p, :p] = H
        r = rhs[idx].copy()
        r[:, :p] = g
        sol = np.full((idx.size, p + 1), np.nan)
        regular = np.abs(np.linalg.det(Km)) > 0.0
        if regular.any():
            try:
                sol[regular] = np.linalg.solve(Km[regular], r[regular][:, :, None])[:, :, 0]
            except np.linalg.LinAlgError:  # one at a time: the singular ones stay unconverged
                for i in np.flatnonzero(regular):
                    try:
                        sol[i] = np.linalg.solve(Km[i], r[i])
                    except np.linalg.LinAlgError:
                        pass
        bad = ~np.all(np.isfinite(sol), axis=1)
        live[idx[bad]] = False  # singular KKT system: not converged (the caller falls back)
        idx, sol, g, ll = idx[~bad], sol[~bad], g[~bad], ll[~bad]
        step = sol[:, :p]
        dec = np.einsum("bi,bi->b", g, step)
        out_nu[idx] = sol[:, p]
        newton[idx] += 1
        done = np.abs(dec) <= tol
        d = idx[done]
        beta[d] += step[done]
        project(d)
        out_l[d] = ll[done] + 0.5 * np.maximum(dec[done], 0.0)
        ok[d] = True
        live[d] = False
        m = idx[~done]
        prev_beta[m] = beta[m]
        prev_step[m] = step[~done]
        beta[m] += step[~done]
        prev_l[m] = ll[~done]
        size[m] = 1.0
        project(m)
    return out_l, out_nu, beta, ok


def _warm_kernels() -> None:
    """Compile the kernel (into numba's cache) on a small problem of the types the library
    passes: what ``python -m evstat.likelihood._kernels`` runs once per installation."""
    from evstat.likelihood.logistic import information, newton_mle

    rng = np.random.default_rng(0)
    s = rng.normal(size=(40, 2))
    X = np.column_stack([np.ones(40), s])
    t = (s.sum(axis=1) + rng.normal(size=40) > 0).astype(float)
    beta, _ = newton_mle(X, t)
    lik = LogisticLikelihood(X=X, t=t, beta_hat=beta, loglik_hat=float(loglik(beta, X, t)),
                             cov=np.asarray(np.linalg.inv(information(beta, X)), dtype=np.float64))
    _kernel()
    a = X[:3]
    e = (a @ beta)[:, None] + np.linspace(-1.0, 1.0, 5)
    profile_loglik(lik, a[:, None, :], e, chain=True)
    profile_loglik(lik, a[:, None, :], e, return_beta=True)


#: number of Newton passes (sweeps over the calibration rows) run by the kernel in this process;
#: for profiling and the benchmarks only
_PASSES = [0]

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of log(2): k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_MAGIC = 6755399441055744.0  # 1.5 * 2**52: adding it leaves an integer k in the low mantissa bits
_MAGIC_BITS = int(np.float64(_MAGIC).view(np.int64))
# 1 / k! for k = 0..13: Taylor series of exp on |r| <= log(2) / 2 (truncation 4e-18 relative)
_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (
    1.0 / float(np.prod(np.arange(1, k + 1))) for k in range(14)
)


def _exp_neg_abs_py(eta, z, scratch):  # pragma: no cover
    """``z = exp(-|eta|)`` elementwise, to 2 ulp, by a loop that the compiler vectorises.

    ``x = -|eta|`` (clamped at -708, where exp(x) = 3e-308 stands for anything smaller: it only
    enters ``1 + z`` and weights of order z) is split as ``x = k log 2 + r`` with ``|r| <=
    log(2) / 2`` (Cody-Waite, fdlibm's two-part log 2), ``exp(r)`` is its Taylor polynomial of
    degree 13 evaluated by Estrin's scheme (short dependency chains), and ``2^k`` is built in the
    exponent bits through ``scratch`` (float64) and its int64 view.
    """
    n = eta.shape[0]
    bits = scratch.view(np.int64)
    for i in range(n):
        x = max(-abs(eta[i]), -708.0)
        k = np.floor(x * _LOG2E + 0.5)
        r = (x - k * _LN2_HI) - k * _LN2_LO
        r2 = r * r
        r4 = r2 * r2
        r8 = r4 * r4
        q0 = (_C0 + _C1 * r) + (_C2 + _C3 * r) * r2
        q1 = (_C4 + _C5 * r) + (_C6 + _C7 * r) * r2
        q2 = (_C8 + _C9 * r) + (_C10 + _C11 * r) * r2
        q3 = _C12 + _C13 * r
        z[i] = (q0 + q1 * r4) + (q2 + q3 * r4) * r8
        scratch[i] = k + _MAGIC
    for i in range(n):
        bits[i] = (bits[i] - _MAGIC_BITS + 1023) << 52
    for i in range(n):
        z[i] *= scratch[i]


#: calibration rows per block of a sweep: the block's linear predictors, exponentials, residuals
#: and weights (4 x 512 doubles, 16 KB) stay in the L1 cache between the loops over the block,
#: whatever n (at n = 1000 the block size hardly matters; it keeps n = 10^5 out of L2 misses)
SWEEP_BLOCK = 512

#: columns per tile of the score and information accumulation (the design's columns are padded
#: with zero columns to a multiple of TILE; see :func:`_sweep_py`)
TILE = 4


def _columns(X: NDArray) -> NDArray:
    """The design column by column (``X.T``, C-contiguous), padded with zero columns to a
    multiple of :data:`TILE` rows: the layout of the compiled sweep."""
    n, p = X.shape
    P = TILE * max(1, -(-p // TILE))
    Xc = np.zeros((P, n))
    Xc[:p] = X.T
    return Xc


def _sweep_py(Xc, t, beta, eta, z, scratch, res, wts, g, H):  # pragma: no cover
    """One pass over the calibration rows at ``beta``: returns l(beta), fills the score ``g`` and
    the information ``H`` (both of the padded size ``P = Xc.shape[0]``; entries of the zero
    padding columns are 0).

    The rows are taken in blocks of :data:`SWEEP_BLOCK` (the work arrays hold one block and
    stay in the L1 cache), the columns in tiles of :data:`TILE` = 4 (``Xc`` is padded with zero
    columns to a multiple of 4, ``beta`` is read as 0 there). Per block: the linear predictors
    (four columns per loop), ``z = exp(-|eta|)`` (:func:`_exp_neg_abs_py`), then one loop for
    the log-likelihood terms, residuals ``t - mu`` and weights ``z / (1 + z)^2``, and per tile a
    loop accumulating the tile's score in 4 scalars and, per tile pair, its block of the
    information in 10 (diagonal tile: symmetric half) or 16 scalars, which the compiler keeps in
    SIMD registers. Every inner loop runs over the rows on contiguous arrays; the module is
    compiled with ``error_model="numpy"`` (the default "python" model guards every division
    with a ZeroDivisionError branch, which stopped the loop with ``1 / (1 + z)`` from being
    vectorised) and reassociation (the sums as SIMD reductions). Measured at n = 1000, p = 4:
    3.6 us per pass against 6.3 us for the previous column-at-a-time sweep (one loop over all
    n rows per entry of the score and information, a product ``w x_j`` stored per column).
    """
    P, n = Xc.shape
    p = beta.shape[0]
    for j in range(P):
        g[j] = 0.0
        for k in range(P):
            H[j, k] = 0.0
    ll = 0.0
    for s in range(0, n, SWEEP_BLOCK):
        m = min(SWEEP_BLOCK, n - s)
        tb = t[s:s + m]
        eb = eta[:m]
        zb = z[:m]
        rb = res[:m]
        wb = wts[:m]
        for q in range(0, P, TILE):
            c0 = Xc[q, s:s + m]
            c1 = Xc[q + 1, s:s + m]
            c2 = Xc[q + 2, s:s + m]
            c3 = Xc[q + 3, s:s + m]
            b0 = beta[q] if q < p else 0.0
            b1 = beta[q + 1] if q + 1 < p else 0.0
            b2 = beta[q + 2] if q + 2 < p else 0.0
            b3 = beta[q + 3] if q + 3 < p else 0.0
            if q == 0:
                for i in range(m):
                    eb[i] = c0[i] * b0 + c1[i] * b1 + c2[i] * b2 + c3[i] * b3
            else:
                for i in range(m):
                    eb[i] += c0[i] * b0 + c1[i] * b1 + c2[i] * b2 + c3[i] * b3
        _exp_neg_abs(eb, zb, scratch[:m])
        prod = 1.0  # sum of log1p(z) as the log of a product of factors in (1, 2]
        for i in range(m):
            ei = eb[i]
            zi = zb[i]
            inv = 1.0 / (1.0 + zi)
            mu = inv if ei >= 0.0 else zi * inv
            ll += tb[i] * ei - max(ei, 0.0)
            prod *= 1.0 + zi
            rb[i] = tb[i] - mu
            wb[i] = zi * inv * inv
        ll -= np.log(prod)  # m <= 512 factors of at most 2: no overflow
        for q in range(0, P, TILE):
            c0 = Xc[q, s:s + m]
            c1 = Xc[q + 1, s:s + m]
            c2 = Xc[q + 2, s:s + m]
            c3 = Xc[q + 3, s:s + m]
            g0 = g1 = g2 = g3 = 0.0
            for i in range(m):
                r = rb[i]
                g0 += r * c0[i]
                g1 += r * c1[i]
                g2 += r * c2[i]
                g3 += r * c3[i]
            g[q] += g0
            g[q + 1] += g1
            g[q + 2] += g2
            g[q + 3] += g3
            _tile_diag(wb, c0, c1, c2, c3, H, q)
            for r0 in range(q + TILE, P, TILE):
                _tile_off(wb, c0, c1, c2, c3, Xc[r0, s:s + m], Xc[r0 + 1, s:s + m],
                          Xc[r0 + 2, s:s + m], Xc[r0 + 3, s:s + m], H, q, r0)
    for j in range(P):
        for k in range(j + 1, P):
            H[k, j] = H[j, k]
    return ll


def _tile_diag_py(w, c0, c1, c2, c3, H, q):  # pragma: no cover
    """``H[q:q+4, q:q+4] += sum_i w_i x_i x_i'`` (upper triangle) over a block, in 10 scalars."""
    h00 = h01 = h02 = h03 = h11 = h12 = h13 = h22 = h23 = h33 = 0.0
    for i in range(w.shape[0]):
        x0 = c0[i]
        x1 = c1[i]
        x2 = c2[i]
        x3 = c3[i]
        w0 = w[i] * x0
        w1 = w[i] * x1
        w2 = w[i] * x2
        w3 = w[i] * x3
        h00 += w0 * x0
        h01 += w0 * x1
        h02 += w0 * x2
        h03 += w0 * x3
        h11 += w1 * x1
        h12 += w1 * x2
        h13 += w1 * x3
        h22 += w2 * x2
        h23 += w2 * x3
        h33 += w3 * x3
    H[q, q] += h00
    H[q, q + 1] += h01
    H[q, q + 2] += h02
    H[q, q + 3] += h03
    H[q + 1, q + 1] += h11
    H[q + 1, q + 2] += h12
    H[q + 1, q + 3] += h13
    H[q + 2, q + 2] += h22
    H[q + 2, q + 3] += h23
    H[q + 3, q + 3] += h33


def _tile_off_py(w, c0, c1, c2, c3, d0, d1, d2, d3, H, q, r):  # pragma: no cover
    """``H[q:q+4, r:r+4] += sum_i w_i x_i[q:q+4] x_i[r:r+4]'`` over a block, in 16 scalars."""
    h00 = h01 = h02 = h03 = h10 = h11 = h12 = h13 = 0.0
    h20 = h21 = h22 = h23 = h30 = h31 = h32 = h33 = 0.0
    for i in range(w.shape[0]):
        y0 = d0[i]
        y1 = d1[i]
        y2 = d2[i]
        y3 = d3[i]
        w0 = w[i] * c0[i]
        w1 = w[i] * c1[i]
        w2 = w[i] * c2[i]
        w3 = w[i] * c3[i]
        h00 += w0 * y0
        h01 += w0 * y1
        h02 += w0 * y2
        h03 += w0 * y3
        h10 += w1 * y0
        h11 += w1 * y1
        h12 += w1 * y2
        h13 += w1 * y3
        h20 += w2 * y0
        h21 += w2 * y1
        h22 += w2 * y2
        h23 += w2 * y3
        h30 += w3 * y0
        h31 += w3 * y1
        h32 += w3 * y2
        h33 += w3 * y3
    H[q, r] += h00
    H[q, r + 1] += h01
    H[q, r + 2] += h02
    H[q, r + 3] += h03
    H[q + 1, r] += h10
    H[q + 1, r + 1] += h11
    H[q + 1, r + 2] += h12
    H[q + 1, r + 3] += h13
    H[q + 2, r] += h20
    H[q + 2, r + 1] += h21
    H[q + 2, r + 2] += h22
    H[q + 2, r + 3] += h23
    H[q + 3, r] += h30
    H[q + 3, r + 1] += h31
    H[q + 3, r + 2] += h32
    H[q + 3, r + 3] += h33


def _solve_kkt_py(H, a, g, K, step, tan):  # pragma: no cover
    """Solve ``[[H, a], [a', 0]] x = r`` (size p + 1) for the two right-hand sides
    ``r = (g, 0)`` (the Newton step and, in ``step[p]``, the Lagrange multiplier) and
    ``r = (0, 1)`` (``tan[:p]``: the tangent ``d beta / d e`` of the path of constrained
    maximisers) by one Gaussian elimination with partial pivoting on ``K`` (p + 1, p + 3);
    returns False if the system is singular."""
    p = a.shape[0]
    q = p + 1
    for j in range(p):
        for k in range(p):
            K[j, k] = H[j, k]
        K[j, p] = a[j]
        K[p, j] = a[j]
        K[j, q] = g[j]
        K[j, q + 1] = 0.0
    K[p, p] = 0.0
    K[p, q] = 0.0
    K[p, q + 1] = 1.0
    for c in range(q):
        piv = c
        best = abs(K[c, c])
        for rr in range(c + 1, q):
            if abs(K[rr, c]) > best:
                best = abs(K[rr, c])
                piv = rr
        if not best > 0.0:
            return False
        if piv != c:
            for k in range(c, q + 2):
                tmp = K[c, k]
                K[c, k] = K[piv, k]
                K[piv, k] = tmp
        for rr in range(c + 1, q):
            f = K[rr, c] / K[c, c]
            if f != 0.0:
                for k in range(c, q + 2):
                    K[rr, k] -= f * K[c, k]
    for c in range(q - 1, -1, -1):
        s1 = K[c, q]
        s2 = K[c, q + 1]
        for k in range(c + 1, q):
            s1 -= K[c, k] * step[k]
            s2 -= K[c, k] * tan[k]
        step[c] = s1 / K[c, c]
        tan[c] = s2 / K[c, c]
    return True


def _newton_kernel_py(Xc, t, A, e, beta, tol, max_iter, chain, beta_hat, cov, out_l, out_nu, ok, passes):  # pragma: no cover
    """Constrained Newton for each problem ``b`` (compiled by numba; see :func:`_newton_batch`).

    ``beta`` holds the (projected) starting points and is overwritten by the maximisers. With
    ``chain``, every path of one direction starts at the MLE ``beta_hat`` (the maximiser at
    ``e = a . beta_hat``, tangent ``cov a / (a' cov a)``): its first problem starts from the
    Wald path, and its second has a quadratic term through the MLE.
    """
    P, n = Xc.shape  # P: the columns padded to a multiple of TILE (see _sweep_py)
    p = A.shape[1]
    q = p + 1
    blk = min(n, SWEEP_BLOCK)
    eta = np.empty(blk)
    z = np.empty(blk)
    scratch = np.empty(blk)
    res = np.empty(blk)
    wts = np.empty(blk)
    g = np.empty(P)
    H = np.empty((P, P))
    K = np.empty((q, q + 2))
    sol = np.empty(q)  # the Newton step and the multiplier
    sol_t = np.empty(q)  # the tangent d beta / d e (and its multiplier)
    prev_beta = np.empty(p)
    prev_step = np.empty(p)
    step = np.empty(p)
    tan = np.empty(p)  # d beta / d e at the previous problem's maximiser (chain)
    last = np.empty(p)  # the previous problem's maximiser
    older = np.empty(p)  # the one before
    e_last = 0.0
    e_older = 0.0
    links = 0  # maximisers of the current chain available for the prediction (0, 1 or 2+)
    for b in range(A.shape[0]):  # problems are independent (threads: see _newton_batch)
        a = A[b]
        aa = 0.0
        for j in range(p):
            aa += a[j] * a[j]
        bb = beta[b]
        if chain and b > 0 and links > 0:
            same = True
            for j in range(p):
                if a[j] != A[b - 1, j]:
                    same = False
            if not same:
                links = 0
        else:
            links = 0
        if chain and links == 0:
            # a new path: the MLE is its first link
            e_last = 0.0
            var = 0.0
            for j in range(p):
                e_last += a[j] * beta_hat[j]
                last[j] = beta_hat[j]
                acc = 0.0
                for k in range(p):
                    acc += cov[j, k] * a[k]
                tan[j] = acc
                var += a[j] * acc
            if var > 0.0:
                for j in range(p):
                    tan[j] /= var
                links = 1
        if links > 0:
            # continuation: tangent prediction, plus a quadratic term through the maximiser before
            d = e[b] - e_last
            for j in range(p):
                bb[j] = last[j] + d * tan[j]
            if links > 1:
                # the quadratic term only within a few spacings of the last two links: its
                # rounding error grows like (d / d2)^2 (links that differ by rounding, such as
                # the MLE and a node at a . beta_hat, would give garbage)
                d2 = e_older - e_last
                if abs(d) <= 4.0 * abs(d2):
                    for j in range(p):
                        c2 = (older[j] - last[j] - d2 * tan[j]) / (d2 * d2)
                        bb[j] += c2 * d * d
            _project_inplace(bb, a, aa, e[b])
        prev_l = -np.inf
        size = 1.0
        newton = 0
        for _ in range(max_iter + 60):
            if newton >= max_iter:
                break
            ll = _sweep(Xc, t, bb, eta, z, scratch, res, wts, g, H)
            passes[0] += 1
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
            if not _solve_kkt(H, a, g, K, sol, sol_t):
                break  # not converged: the caller falls back to the reference path
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
        if chain:
            if ok[b]:
                # the tangent of the last KKT solve: at the maximiser's last pass (or, if the
                # last step was abandoned by halving, at the point kept)
                for j in range(p):
                    older[j] = last[j]
                    last[j] = bb[j]
                    tan[j] = sol_t[j]
                e_older = e_last
                e_last = e[b]
                links += 1
            else:
                links = 0


def _project_inplace_py(beta, a, aa, e):  # pragma: no cover
    s = 0.0
    for j in range(beta.shape[0]):
        s += a[j] * beta[j]
    c = (e - s) / aa
    for j in range(beta.shape[0]):
        beta[j] += a[j] * c


_KERNEL: Callable[..., Any] | None = None
# the compiled helpers of the kernel, bound by _kernel() on first use
_project_inplace: Callable[..., Any]
_exp_neg_abs: Callable[..., Any]
_sweep: Callable[..., Any]
_tile_diag: Callable[..., Any]
_tile_off: Callable[..., Any]
_solve_kkt: Callable[..., Any]


def _kernel() -> Callable[..., Any]:
    """The compiled Newton kernel (numba, compiled on first use and cached on disk)."""
    global _KERNEL, _project_inplace, _exp_neg_abs, _sweep, _tile_diag, _tile_off, _solve_kkt
    if _KERNEL is None:
        import numba

        _project_inplace = numba.njit(cache=True)(_project_inplace_py)
        # the exponential keeps strict IEEE semantics (its Cody-Waite reduction must not be
        # reassociated); the sums of the sweep may be reordered (SIMD reductions); the loops
        # over the rows use numpy's error model (no ZeroDivisionError branch per division,
        # which kept the loop with 1 / (1 + z) from being vectorised)
        vector: dict[str, Any] = {"cache": True, "error_model": "numpy"}
        _exp_neg_abs = numba.njit(fastmath={"contract"}, **vector)(_exp_neg_abs_py)
        sums = {"fastmath": {"reassoc", "contract"}, **vector}
        _tile_diag = numba.njit(**sums)(_tile_diag_py)
        _tile_off = numba.njit(**sums)(_tile_off_py)
        _sweep = numba.njit(**sums)(_sweep_py)
        _solve_kkt = numba.njit(cache=True)(_solve_kkt_py)
        # Serial on purpose: numba's parallel kernels run on its OpenMP threading layer here
        # (GNU libgomp; TBB is not installed), which is not fork-safe: a process forked after a
        # parallel kernel had run aborted ("fork() called from a process already using GNU
        # OpenMP"), which killed the process-pool workers of `evstat predict --jobs`. Cores are
        # used by processes instead (`evstat predict --jobs`, Dask, joblib in the studies), and
        # by Python threads that live only during a call (nogil; _newton_batch, _kernels.run_split).
        _KERNEL = numba.njit(cache=True, nogil=True)(_newton_kernel_py)
    return _KERNEL


def profile_loglik(
    lik: LogisticLikelihood,
    A: ArrayLike,
    e: ArrayLike,
    tol: float = 1e-10,
    max_iter: int = 60,
    return_beta: bool = False,
    chain: bool = False,
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
    chain : bool
        Continuation: consecutive problems (in C order of the broadcast batch) with the same
        direction form a path, and each starts from a prediction along the path of maximisers
        of the previous ones instead of the Wald path (see :func:`_newton_batch`). Faster when
        the values ``e`` of a direction are sorted from ``a . beta_hat`` outwards (the
        quadrature nodes of the predictive belief); the results are the same either way.

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
    step = max(1, int(CHUNK_PROBLEMS))
    fell_back: list[int] = []
    Xc = _columns(np.asarray(lik.X, dtype=float))
    for start in range(0, e.size, step):
        sl = slice(start, start + step)
        l_, nu_, b_, ok = _newton_batch(lik, A[sl], e[sl], tol, max_iter, chain, Xc)
        if chain and not ok.all():
            # a continuation prediction can start Newton far from a problem's maximiser (a
            # sharp bend of the path of maximisers): solve those again from the Wald start
            # before falling back to the reference path
            redo = np.flatnonzero(~ok)
            l2, nu2, b2, ok2 = _newton_batch(lik, A[sl][redo], e[sl][redo], tol, max_iter, False, Xc)
            l_[redo], nu_[redo], b_[redo], ok[redo] = l2, nu2, b2, ok2
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
    if out_b is not None:  # return_beta
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
