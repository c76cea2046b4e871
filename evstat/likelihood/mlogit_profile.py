"""The profile log-likelihood of the functional ``g`` (``l_p(u) = max {l(B) : g(B) = u}``) for
batches of problems: the fast path (the compiled kernel or its numpy path, with the Wald
start and the continuation along a panel's nodes) and the independent reference path.


Reference path (:func:`functional_profile_reference`, ``method="reference"``): for each node the
constraint is eliminated by the retraction ``R(Z) = Z + c(Z) D`` (``c`` by ``scipy.optimize.brentq``)
and ``l(R(Z))`` maximised without constraint by ``scipy.optimize.minimize`` (BFGS from the
retracted Wald start), with the exact gradient
``grad l - grad g (D . grad l) / (D . grad g)``; each side integrated by ``scipy.integrate.quad``
in ``t``. Slow (tens of milliseconds per node) and independent of the fast path's algebra.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray

from evstat.likelihood import _kernels, _mlogit_kernel as _mk
from evstat.likelihood._mlogit_numpy import _profile_numpy
from evstat.likelihood.linear_profile import _columns
from evstat.likelihood.mlogit import (
    _check_weights,
    _g_eta,
    _grad_g,
    CHUNK_CELLS,
    multinomial_loglik,
    multinomial_mle,
    multinomial_score_info,
    MultinomialLikelihood,
)
from evstat.likelihood.mlogit_limit import _needs_faces, face_starts

__all__ = [
    "REUSE_MIN_D",
    "functional_profile",
    "functional_profile_reference",
    "reuse_hessian",
]



#: the kernel reuses Hessians (score-only passes) from this many coefficients d = (K - 1) p
#: on (:func:`reuse_hessian`)
REUSE_MIN_D = 20


def reuse_hessian(K: int, p: int) -> bool:
    """Whether the compiled kernel's passes reuse an earlier Hessian (:func:`_kernel_py`,
    *Reused Hessian*): from ``REUSE_MIN_D`` coefficients on."""
    return (K - 1) * p >= REUSE_MIN_D


def _warm_kernels() -> None:
    """Compile the kernel (into numba's cache) on a small problem of the types the library
    passes: what ``python -m evstat.likelihood._kernels`` runs once per installation."""
    rng = np.random.default_rng(0)
    z = np.arange(60) % 3
    X = np.column_stack([np.ones(60), rng.normal(size=60) + z])
    lik = multinomial_mle(X, z, 3, targets="platt")
    _mk._kernel()
    x = X[:2]
    u = np.linspace(-1.0, 1.0, 5)
    functional_profile(lik, x[:, None, :], np.eye(3)[0], u, chain=True)


#: passes over the calibration rows run by the kernel in this process (profiling, benchmarks)
_PASSES = [0, 0]


def _wald_path(lik: MultinomialLikelihood, x: NDArray, w: NDArray) -> tuple[NDArray, NDArray]:
    """``g(B_hat)`` (m,) and the Wald direction ``cov G / (G' cov G)`` (m, d) of each row: the
    tangent ``dB/du`` at the MLE of the path of constrained maximisers. Computed once per run
    of equal consecutive rows (the nodes of a path share their row and weights)."""
    m = x.shape[0]
    new = np.ones(m, dtype=bool)
    if m > 1:
        new[1:] = np.any(x[1:] != x[:-1], axis=1) | np.any(w[1:] != w[:-1], axis=1)
    first = np.flatnonzero(new)
    xs, ws = x[first], w[first]
    Bh = np.ascontiguousarray(np.broadcast_to(lik.B_hat, (first.size, lik.K - 1, lik.p)))
    g0, G = _grad_g(Bh, xs, ws)
    SG = G @ lik.cov
    var = np.einsum("md,md->m", SG, G)
    with np.errstate(invalid="ignore", divide="ignore"):
        tan = np.where(var[:, None] > 0, SG / var[:, None], 0.0)
    run = np.cumsum(new) - 1
    return g0[run], tan[run]


def _wald_start(lik: MultinomialLikelihood, x: NDArray, w: NDArray, u: NDArray) -> NDArray:
    g0, tan = _wald_path(lik, x, w)
    return lik.B_hat.reshape(1, -1) + tan * (u - g0)[:, None]


def functional_profile(
    lik: MultinomialLikelihood, x: ArrayLike, w: ArrayLike, u: ArrayLike,
    tol: float = 1e-10, max_iter: int = 60, chain: bool = False, start: ArrayLike | None = None,
    tail: bool = False, kernel: bool | None = None, solutions: NDArray | None = None,
    reference: bool = True, reuse: bool | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Fast path: ``l_p(u) = max {l(B) : logit h_w(x; B) = u}`` and its slope, for a batch.

    Parameters
    ----------
    lik : MultinomialLikelihood
    x : array (..., p)
        Test design rows.
    w : array (..., K)
        Weights in [0, 1] (not all equal).
    u : array (...)
        Values of ``logit h_w``.
    chain : bool
        The problems along the last axis share their row and weights and are ordered by u (the
        quadrature nodes of a panel): each starts from its predecessor's solution moved along
        the tangent of the path of solutions (continuation), not from the Wald start. Problems
        whose warm start fails are solved again from the Wald start; the values do not depend
        on the start (a concave problem on a connected constraint set, up to ``tol``).

    start : array (..., d), optional
        Starting coefficients (flattened; retracted onto the constraint first) instead of the
        Wald start (:func:`face_starts`: the constraint set is not convex, and far-out rows
        have a local maximum on each face between two classes' regions).
    tail : bool
        Also accept a problem whose decrement ``dec`` satisfies ``pl dec**1.5 <= tol**1.5``
        (``pl`` the contour at the point, ``dec <= TAIL_MAX_DEC``): the error bound of the
        quadrature's integrand rather than of the log-likelihood (:func:`_tail_converged_py`;
        the quadrature of :func:`predictive_bounds`).
    kernel : bool, optional
        Whether the compiled kernel runs (True) or the numpy path (False); default: decided
        from this batch's size by :func:`evstat.likelihood._kernels.use_kernel`.
        :func:`predictive_bounds` decides once for all the batches of a prediction.
    solutions : array (..., d), optional
        Filled with the maximisers found (flattened coefficients; NaN where the problem fell
        back to the reference path or failed): the starts of the continuation of
        :func:`_continued_profile`.
    reference : bool
        Whether problems that the Newton solves leave unconverged are solved by the reference
        path (default), or left NaN: the continuation's solves from a neighbour's maximiser,
        whose failure leaves the node its chains' values (two such problems of the n = 1000
        figure's grid cost 1.4 s in scipy and changed no value).
    reuse : bool, optional
        Whether the compiled kernel's Newton steps reuse the last Hessian computed and its
        passes compute the score only (:func:`_kernel_py`, *Reused Hessian*); default
        :func:`reuse_hessian`. The answers agree to the Newton tolerance.

    Returns
    -------
    loglik, slope : arrays (...)
        The profile log-likelihood and ``d l_p / d u`` (the Lagrange multiplier).
    """
    x = np.asarray(x, dtype=float)
    w = _check_weights(w, lik.K)
    u = np.asarray(u, dtype=float)
    shape = np.broadcast_shapes(x.shape[:-1], w.shape[:-1], u.shape)
    x = np.ascontiguousarray(np.broadcast_to(x, shape + (lik.p,)).reshape(-1, lik.p))
    w = np.ascontiguousarray(np.broadcast_to(w, shape + (lik.K,)).reshape(-1, lik.K))
    u = np.ascontiguousarray(np.broadcast_to(u, shape).reshape(-1))
    if start is not None:
        start = np.broadcast_to(np.asarray(start, dtype=float), shape + (lik.d,)).reshape(-1, lik.d)
    links: NDArray[np.bool_] = np.zeros(shape, dtype=bool)
    if chain and len(shape):
        links[..., 1:] = True
    links = links.reshape(-1)
    out_l = np.full(u.size, np.nan)
    out_s = np.zeros(u.size)
    out_B = np.full((u.size, lik.d), np.nan)
    Xc = _columns(np.asarray(lik.X, dtype=float))
    Tt = np.ascontiguousarray(np.asarray(lik.T, dtype=float).T)
    B_hat = np.ascontiguousarray(lik.B_hat, dtype=float)
    if kernel is None:
        kernel = _kernels.use_kernel(u.size * lik.n * (lik.K - 1), loaded=_mk._KERNEL is not None)
    kern = _mk._kernel() if kernel else None
    step = max(1, CHUNK_CELLS // max(lik.n, 1))
    passes = np.zeros(2, dtype=np.int64)
    if reuse is None:
        reuse = reuse_hessian(lik.K, lik.p)
    Hi0 = np.require(-np.asarray(lik.cov, dtype=float), requirements=("C", "W"))

    def run(xb: NDArray, wb: NDArray, ub: NDArray, B0: NDArray, cl: NDArray, mle: bool,
            u0: NDArray, tan0: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        if kern is None:  # the numpy path while the kernel compiles (evstat.likelihood._kernels)
            with _kernels.single_threaded_blas():
                return _profile_numpy(lik, xb, wb, ub, B0, mle, u0, float(tol), int(max_iter), bool(tail))
        ok = np.zeros(ub.size, dtype=bool)
        ll, lam = np.full(ub.size, np.nan), np.zeros(ub.size)
        # C-contiguous and writable: the compiled kernel has one signature (a read-only view,
        # e.g. of np.broadcast_to, would compile another specialisation, some 10 s in a figure)
        xb, wb, ub, u0, tan0 = (np.require(a, dtype=float, requirements=("C", "W")) for a in (xb, wb, ub, u0, tan0))

        def part(lo: int, hi: int) -> NDArray:  # the problems lo .. hi - 1, whole chains; their passes
            own = np.zeros(2, dtype=np.int64)
            kern(Xc, Tt, int(lik.K), xb[lo:hi], wb[lo:hi], ub[lo:hi], B0[lo:hi], cl[lo:hi], mle, B_hat,
                 u0[lo:hi], tan0[lo:hi], float(lik.loglik_hat), float(tol), int(max_iter), bool(tail),
                 Hi0, bool(reuse), ll[lo:hi], lam[lo:hi], ok[lo:hi], own)
            return own

        threads = _kernels.threads_for(ub.size * lik.n * (lik.K - 1))
        for own in _kernels.run_split(part, np.flatnonzero(~cl), ub.size, threads):
            passes[:] += own
        B0[~ok] = np.nan  # the kernel leaves each problem's solution in its start
        return ll, lam, ok

    for s0 in range(0, u.size, step):
        sl = slice(s0, s0 + step)
        g0, tan0 = _wald_path(lik, x[sl], w[sl])
        wald = start is None
        B0 = np.array(lik.B_hat.reshape(1, -1) + tan0 * (u[sl] - g0)[:, None] if start is None else start[sl],
                      dtype=float, order="C")  # a copy: it receives the solutions
        cl = links[sl].copy()
        if cl.size:
            cl[0] = False
        ll, lam, ok = run(x[sl], w[sl], u[sl], B0, cl, wald and chain, g0, tan0)
        bad = np.flatnonzero(~ok)
        if bad.size and chain:  # a failed warm start: again from the Wald start
            B1 = lik.B_hat.reshape(1, -1) + tan0[bad] * (u[sl][bad] - g0[bad])[:, None]
            ll1, lam1, ok1 = run(x[sl][bad], w[sl][bad], u[sl][bad], B1, np.zeros(bad.size, dtype=bool), False,
                                 g0[bad], tan0[bad])
            ll[bad], lam[bad], ok[bad] = ll1, lam1, ok1
            B0[bad] = B1
            bad = bad[~ok1]
        if bad.size:
            ll[bad] = functional_profile_reference(lik, x[sl][bad], w[sl][bad], u[sl][bad]) if reference else np.nan
            lam[bad] = np.nan
        out_l[sl] = ll
        out_s[sl] = lam
        out_B[sl] = B0
    with _kernels.COUNT_LOCK:
        _PASSES[0] += int(passes[0])
        _PASSES[1] += int(passes[1])
    if solutions is not None:
        solutions[...] = out_B.reshape(shape + (lik.d,))
    return out_l.reshape(shape), out_s.reshape(shape)


# ---------------------------------------------------------------------------- reference
def functional_profile_reference(
    lik: MultinomialLikelihood, x: ArrayLike, w: ArrayLike, u: ArrayLike
) -> NDArray[np.float64]:
    """Reference path: the profile by scipy (brentq retraction, BFGS), one problem at a time."""
    from scipy.optimize import brentq, minimize

    x = np.asarray(x, dtype=float)
    w = _check_weights(w, lik.K)
    u = np.asarray(u, dtype=float)
    shape = np.broadcast_shapes(x.shape[:-1], w.shape[:-1], u.shape)
    x = np.broadcast_to(x, shape + (lik.p,)).reshape(-1, lik.p)
    w = np.broadcast_to(w, shape + (lik.K,)).reshape(-1, lik.K)
    u = np.broadcast_to(u, shape).reshape(-1)
    K, p = lik.K, lik.p
    out = np.empty(u.size)
    for i in range(u.size):
        xi, wi, ui = x[i], w[i], float(u[i])
        delta = 2.0 * (wi - wi[0])
        D = (delta[1:, None] * xi[None, :] / (xi @ xi)).ravel()

        def gval(Z: NDArray, xi=xi, wi=wi) -> float:
            eta = np.r_[0.0, Z.reshape(K - 1, p) @ xi]
            return float(_g_eta(eta[None, :], wi[None, :])[0][0])

        def retract(Z: NDArray, D=D, ui=ui) -> NDArray:
            f = lambda c: gval(Z + c * D) - ui  # noqa: E731
            lo, hi = -1.0, 1.0
            while f(lo) > 0:
                lo *= 2.0
            while f(hi) < 0:
                hi *= 2.0
            return Z + brentq(f, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=500) * D

        def negphi(Z: NDArray, xi=xi, wi=wi, D=D) -> tuple[float, NDArray]:
            R = retract(Z)
            B = R.reshape(K - 1, p)
            val = float(multinomial_loglik(B, lik.X, lik.codes, K, lik.T))
            gl, _ = multinomial_score_info(B, lik.X, lik.codes, K, lik.T)
            _, G = _grad_g(B[None], xi[None], wi[None])
            G = G[0]
            grad = gl - G * (D @ gl) / (D @ G)
            return -val, -grad

        best = -np.inf
        starts = [_wald_start(lik, xi[None], wi[None], np.array([ui]))[0]]
        if _needs_faces(lik, xi[None])[0]:
            starts += [f[0] for f in face_starts(lik, xi[None], wi)]
        for z0 in starts:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = minimize(negphi, retract(z0), jac=True, method="BFGS", options={"gtol": 1e-7, "maxiter": 2000})
            best = max(best, -float(res.fun))
        out[i] = best
    return out.reshape(shape)
