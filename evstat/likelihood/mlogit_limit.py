"""Far-out test rows of evmultinom (issue 16: a score of 1e10 hung): the exact limit r -> inf
of the predictive bounds, the class contours, and the face starts of rows far from the MLE.

Extreme test rows (issue 16: a score of 1e10 hung). Write a design row ``x = r v`` with
``r = max_j |x_j|`` (:func:`evstat.likelihood.predictive.row_scale`, as evlogit). theta depends on
B only through ``z = (0, B v)``: ``theta(x; B) = softmax(r z)``. Unlike K = 2, the constraint
``logit h_w(softmax(r z)) = u`` is not linear in B, so the profile at ``r`` is not the profile
of ``v`` at ``u / r``; what does not depend on r is the contour of z,
``pi(z) = sup {pl(B) : (0, B v) = z}`` (log-concave: the profile of a concave function under a
linear constraint, computed on the well-conditioned direction v). With the convex level sets
``C_omega = {z : pi(z) >= omega}``, the layer-cake integrands are
``a(omega) = min_{C_omega} h_w(softmax(r z))`` and ``b(omega) = max_{C_omega} ...``.

*The limit r -> inf* (:func:`region_contours`, :func:`limit_bounds`). ``softmax(r z)`` tends to
the indicator of the arg max of z (off the ties, a null set), so ``a(omega)`` tends to
``min {w_k : C_omega meets R_k}`` with ``R_k = {z : z_k >= z_j for all j}`` (a closed
polyhedral cone), and ``C_omega`` meets ``R_k`` iff ``omega <= c_k``,

    c_k = sup {pi(z) : z in R_k} = sup {pl(B) : (B v)_k >= (B v)_j for all j}

(``c_k = 1`` for the arg max at B_hat). By dominated convergence,

    lower -> int_0^1 min {w_k : c_k >= omega} d omega,   upper -> int_0^1 max {w_k : c_k >= omega} d omega,

the lower and upper expectations of w under the consonant belief function on the classes
with contour c. For a set A: ``Bel(A) = 1 - max_{k not in A} c_k`` (0 when the arg max at B_hat
is not in A) and ``Pl(A) = max_{k in A} c_k`` (1 when it is). For K = 2, ``c`` is evlogit's
limit (the relative profile likelihood of ``v . beta`` at 0), and the tests check the two
agree. Each ``c_k`` is a concave maximisation under K - 1 homogeneous linear inequalities:
the fast path enumerates the active sets (2^(K-1) - 1 equality-constrained concave problems
on subspaces, Newton from the projection of B_hat; the largest value among the solutions
satisfying every constraint is the maximum, since the true active set is among them and every
feasible solution is a lower bound); the reference path (``method="reference"``) uses scipy's
SLSQP on the inequalities. The contours of a direction are cached (singletons, complements
and loss rows share them).

*Between* (the quadrature). Every row whose ``r sd`` is at most ``WIDE_SCALE`` (1e8; sd the
smallest Wald standard error of a difference ``z_k - z_j`` along v) is integrated as an ordinary
row. Two defects made far-out rows hang or go wrong, now fixed: (1) each side's interval ran
from ``u_hat`` (of the order of ``r``) outwards; the retraction onto ``g = u`` stopped at
``|c| = 1e8``, so the nodes near ``u_hat`` failed and fell back one by one to the scipy
reference path (the hang), and at r = 1e6 the bisection of ``[u_hat, ...]`` never resolved
the mass near u = 0 (Pl({a}) = 3.1e-7 instead of 2.09e-4 in the issue's example: a wrong
number); the interval is now clamped to ``|u| <= U_MAX`` at both ends (the part between
``U_MAX`` and ``u_hat`` is below ``exp(-U_MAX) = 3e-20``); (2) the first node of a panel starts
from the Wald start, which for far-out rows is far from the solution: up to ``NODE_MAX_ITER``
Newton passes (a few hundred measured at r = 1e9); (3) the constraint set
``{B : h_w(x; B) = t}`` is not convex, and for far-out rows the profile has a local maximum on
each face between two classes' regions, so the Newton from the Wald start alone could stop on
the wrong face (K = 4, n = 200, x = (1, 100, 100, 100): Bel({d}) = 0.84 although coherence
demands Bel({d}) = 1 - Pl({a, b, c}) <= 1 - Pl({b}) = 0.70); rows with ``r sd > FACE_SCALE``
(1) also start every node from the maximiser of l on each face ``(B v)_k = (B v)_j`` with
``w_k != w_j`` (:func:`face_starts`, retracted) and keep the largest value (the reference
path likewise). For these rows the branch of the global maximum can also change from node to
node, away from the faces (a grid row at n = 1000 in the setting of
``benchmarks/bench_kclass_figures.py``: the computed profile was not monotone on a side of its
mode, Bel 0.8063 instead of 0.8022, the quadrature bisected to its depth limit, 53 s CPU): the
quadrature's nodes are solved again from the best neighbouring maximiser, outward and inward
(:func:`_continued_profile`), and raised to the running maximum from the far end
(:func:`_panels`, a valid lower bound since the profile is monotone on each side of its mode).
Ordinary rows do not pay for it (r sd = 0.13 to 0.44 for the benchmark's
rows, n = 1000). Finite r against the limit (measured, not
proved; tests/multiclass/test_evmultinom_extreme.py): where the maximiser of pi over a class
region lies on a face between two regions (the K = 2 geometry) the difference falls like
``(r sd)^-2`` (6.96e-8, 6.95e-10, 6.77e-12 at r sd = 3.1e3, 3.1e4, 3.1e5); where it lies at a
corner where three or more regions meet (e.g. the baseline class when every other class's
slope is positive) it falls like ``0.13 / (r sd)`` (n = 60, K = 3, J = 1), which at the switch
is about 1.3e-9. A first-order expansion in ``1 / r`` (evlogit's (W)) is not derived for
K > 2: the corner terms depend on the multipliers of all the active constraints.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from evstat.likelihood import _kernels
from evstat.likelihood.linear_profile import relative_loglik
from evstat.likelihood.mlogit import (
    CHUNK_CELLS,
    multinomial_loglik,
    multinomial_score_info,
    MultinomialLikelihood,
    softmax,
    WIDE_SCALE,
)
from evstat.likelihood.predictive import row_scale

__all__ = [
    "FACE_SCALE",
    "PROBLEMS_PER_ROW",
    "face_pairs",
    "face_starts",
    "limit_bounds",
    "limit_contour",
    "region_contours",
    "scaled_probs",
    "wide_rows",
]



# ---------------------------------------------------------------------------- r -> infinity
def _pair_sd(lik: MultinomialLikelihood, V: NDArray) -> NDArray[np.float64]:
    """Smallest Wald standard error, over the pairs of classes k < j, of ``z_k - z_j`` with
    ``z = (0, B V)`` (the linear predictors of the direction ``V``, (m, p)): (m,)."""
    K, p = lik.K, lik.p
    m = V.shape[0]
    S = lik.cov.reshape(K - 1, p, K - 1, p)
    cz = np.zeros((m, K, K))  # Wald covariance of z (class 0 has z_0 = 0)
    cz[:, 1:, 1:] = np.einsum("mi,kilj,mj->mkl", V, S, V)
    dg = np.diagonal(cz, axis1=1, axis2=2)
    var = dg[:, :, None] + dg[:, None, :] - 2.0 * cz
    iu = np.triu_indices(K, 1)
    return np.sqrt(np.maximum(np.min(var[:, iu[0], iu[1]], axis=1), 0.0))


def _subspace_start(lik: MultinomialLikelihood, N: NDArray) -> NDArray:
    """The maximiser on ``span N`` (N (..., d, q) orthonormal) of the quadratic approximation
    of l at B_hat, ``theta = (N' I N)^{-1} N' I vec B_hat`` (I the information at B_hat): the
    start of :func:`_subspace_max` and :func:`_subspace_max_batch`. The maximum of the strictly
    concave l on the subspace is unique, so the start decides only the number of Newton steps:
    from the Euclidean projection of B_hat, the face problems of the n = 1000 figure's grid
    took about 18 iterations, most of them halving their steps several times."""
    _, info = multinomial_score_info(lik.B_hat, lik.X, lik.codes, lik.K, lik.T)
    IN = np.einsum("de,...eq->...dq", info, N)
    rhs = np.einsum("...dq,d->...q", IN, lik.B_hat.ravel())
    return np.linalg.solve(np.einsum("...dq,...dr->...qr", N, IN), rhs[..., None])[..., 0]


def _subspace_max(lik: MultinomialLikelihood, N: NDArray, max_iter: int = 100) -> tuple[float, NDArray]:
    """``max {l(B) : vec B in span N}`` (N orthonormal, d x q) by damped Newton from the
    maximiser of l's quadratic approximation at B_hat on the subspace (:func:`_subspace_start`;
    a strictly concave problem: the design has full column rank)."""
    K, p = lik.K, lik.p
    th = _subspace_start(lik, N)
    beta = N @ th
    cur = float(multinomial_loglik(beta.reshape(K - 1, p), lik.X, lik.codes, K, lik.T))
    for _ in range(max_iter):
        g, info = multinomial_score_info(beta.reshape(K - 1, p), lik.X, lik.codes, K, lik.T)
        gs = N.T @ g
        step = np.linalg.solve(N.T @ info @ N, gs)
        dec = float(gs @ step)
        size = 1.0
        while True:
            cand = th + size * step
            new = float(multinomial_loglik((N @ cand).reshape(K - 1, p), lik.X, lik.codes, K, lik.T))
            if new >= cur - 1e-13 * (1.0 + abs(cur)) or size < 1e-10:
                break
            size *= 0.5
        if new < cur - 1e-13 * (1.0 + abs(cur)):  # no ascent left at rounding level
            break
        th, cur, beta = cand, new, N @ cand
        if dec <= 1e-22 or np.max(np.abs(size * step)) <= 1e-13 * (1.0 + np.max(np.abs(th))):
            break
    return cur, beta.reshape(K - 1, p)


def _targets(lik: MultinomialLikelihood) -> NDArray:
    return np.eye(lik.K)[lik.codes] if lik.T is None else np.asarray(lik.T, dtype=float)


def _eta_batch(lik: MultinomialLikelihood, beta: NDArray) -> NDArray:
    """Linear predictors (M, K, n) of M coefficient vectors (M, d), class 0's row zero."""
    eta = beta.reshape(-1, lik.K - 1, lik.p) @ np.asarray(lik.X, dtype=float).T
    return np.concatenate([np.zeros((eta.shape[0], 1, eta.shape[2])), eta], axis=1)


def _loglik_batch(lik: MultinomialLikelihood, beta: NDArray, Y: NDArray) -> NDArray:
    """:func:`multinomial_loglik` of the targets ``Y`` (n, K) at M coefficient vectors (M,)."""
    z = _eta_batch(lik, beta)
    mx = z.max(axis=1)
    lse = mx + np.log(np.exp(z - mx[:, None, :]).sum(axis=1))
    return np.einsum("mkn,nk->m", z, Y) - lse @ Y.sum(axis=1)


def _score_info_batch(lik: MultinomialLikelihood, beta: NDArray, Y: NDArray) -> tuple[NDArray, NDArray]:
    """Score (M, d) and information (M, d, d) of the targets ``Y`` at M coefficient vectors
    (M, d): :func:`multinomial_score_info` for a batch."""
    K, p = lik.K, lik.p
    X = np.asarray(lik.X, dtype=float)
    z = _eta_batch(lik, beta)
    z -= z.max(axis=1, keepdims=True)
    th = np.exp(z)
    th /= th.sum(axis=1, keepdims=True)  # (M, K, n)
    g = ((Y.T[None, 1:, :] - th[:, 1:, :]) @ X).reshape(beta.shape[0], -1)
    info = np.zeros((beta.shape[0], K - 1, p, K - 1, p))
    for a in range(1, K):
        for b in range(a, K):
            wts = th[:, a, :] * ((a == b) - th[:, b, :])  # (M, n)
            blk = (wts[:, None, :] * X.T[None]) @ X
            info[:, a - 1, :, b - 1, :] = blk
            info[:, b - 1, :, a - 1, :] = np.swapaxes(blk, 1, 2)
    return g, info.reshape(beta.shape[0], lik.d, lik.d)


def _subspace_max_batch(lik: MultinomialLikelihood, N: NDArray, max_iter: int = 100) -> NDArray:
    """:func:`_subspace_max` for M problems at once (``N`` (M, d, q), each orthonormal): the
    maximising coefficients (M, d). The same damped Newton iteration problem by problem (start,
    step, halving, stopping rules), with the likelihood, score and information of all the
    problems still running in one vectorised pass over the calibration rows (chunks of
    :data:`CHUNK_CELLS`): the face starts of a plot's grid are hundreds of such problems
    (issue 25), each costing some 25 ms one at a time at n = 1000."""
    with _kernels.single_threaded_blas():  # thin products: threads cost CPU, gain little
        return _subspace_max_batch_run(lik, N, max_iter)


def _subspace_max_batch_run(lik: MultinomialLikelihood, N: NDArray, max_iter: int) -> NDArray:
    K = lik.K
    M = N.shape[0]
    Y = _targets(lik)
    out = np.empty((M, lik.d))
    step_rows = max(1, CHUNK_CELLS // max(lik.n * K, 1))
    for s0 in range(0, M, step_rows):
        Nc = N[s0:s0 + step_rows]
        th = _subspace_start(lik, Nc)
        beta = np.einsum("mdq,mq->md", Nc, th)
        cur = _loglik_batch(lik, beta, Y)
        live = np.arange(Nc.shape[0])
        for _ in range(max_iter):
            if not live.size:
                break
            Nl = Nc[live]
            g, info = _score_info_batch(lik, beta[live], Y)
            gs = np.einsum("mdq,md->mq", Nl, g)
            H = np.einsum("mdq,mde,mer->mqr", Nl, info, Nl, optimize=True)  # two products, not one d^2 q^2 loop
            step = np.linalg.solve(H, gs[..., None])[..., 0]
            dec = np.einsum("mq,mq->m", gs, step)
            size = np.ones(live.size)
            cand = th[live].copy()
            new = np.empty(live.size)
            todo = np.arange(live.size)
            cl = cur[live]
            while todo.size:  # halve each problem's step while it lowers l
                cand[todo] = th[live[todo]] + size[todo, None] * step[todo]
                bt = np.einsum("mdq,mq->md", Nl[todo], cand[todo])
                new[todo] = _loglik_batch(lik, bt, Y)
                done = (new[todo] >= cl[todo] - 1e-13 * (1.0 + np.abs(cl[todo]))) | (size[todo] < 1e-10)
                size[todo[~done]] *= 0.5
                todo = todo[~done]
            ascent = new >= cl - 1e-13 * (1.0 + np.abs(cl))  # else no ascent left at rounding level
            up = live[ascent]
            th[up], cur[up] = cand[ascent], new[ascent]
            beta[up] = np.einsum("mdq,mq->md", Nc[up], cand[ascent])
            small = np.max(np.abs(size[:, None] * step), axis=1) <= 1e-13 * (1.0 + np.max(np.abs(cand), axis=1))
            live = live[ascent & ~((dec <= 1e-22) | small)]
        out[s0:s0 + Nc.shape[0]] = beta
    return out


def _pair_rows(K: int, p: int, v: NDArray, k: int, others: Any) -> NDArray:
    """Rows ``(e_k - e_j)' B v`` (j in others) as linear forms on vec B (class 0 has no row)."""
    C = np.zeros((len(others), (K - 1) * p))
    for r, j in enumerate(others):
        if k >= 1:
            C[r, (k - 1) * p:k * p] += v
        if j >= 1:
            C[r, (j - 1) * p:j * p] -= v
    return C


def region_contours(lik: MultinomialLikelihood, V: ArrayLike, method: str = "fast") -> NDArray[np.float64]:
    """Plausibility of each class being the arg max of the linear predictors along ``V``:
    ``c_k = sup {pl(B) : (B v)_k >= (B v)_j for all j}`` (``(B v)_0 = 0``), array (m, K).

    The contours of the limit of :func:`predictive_bounds` along ``x = r v``, ``r -> inf``
    (module docstring, "Extreme test rows"). ``c_k = 1`` for the class of the arg max at B_hat.
    Otherwise a concave maximisation under K - 1 linear (homogeneous) inequality constraints:
    ``"fast"`` enumerates the active sets (each an equality-constrained concave problem on a
    subspace, :func:`_subspace_max`); the maximum over the solutions that satisfy every
    constraint is the constrained maximum (the true active set is among them, and every
    feasible solution is a lower bound). ``"reference"``: scipy's SLSQP on the inequality
    constraints from B_hat.

    Examples
    --------
    >>> X = np.c_[np.ones(6), [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0]]
    >>> from evstat.likelihood.mlogit import multinomial_mle
    >>> lik = multinomial_mle(X, [0, 0, 1, 0, 2, 2], 3, targets="platt")
    >>> c = region_contours(lik, [[0.0, 1.0]])
    >>> float(c.max()), bool(np.all((c >= 0) & (c <= 1)))
    (1.0, True)
    """
    from itertools import combinations

    V = np.atleast_2d(np.asarray(V, dtype=float))
    K, p = lik.K, lik.p
    if V.shape[-1] != p or not np.all(np.isfinite(V)):
        raise ValueError(f"directions must be finite arrays (m, {p}), got shape {V.shape}")
    if method not in ("fast", "reference"):
        raise ValueError(f"method must be 'fast' or 'reference', got {method!r}")
    out = np.zeros((V.shape[0], K))
    fit_key = (lik.B_hat.tobytes(), float(lik.loglik_hat), lik.X.shape, method)
    for i, v in enumerate(V):
        key = fit_key + (v.tobytes(),)
        if key in _REGION_CACHE:  # the singletons, their complements and every loss row share c
            out[i] = _REGION_CACHE[key]
            continue
        z_hat = np.r_[0.0, lik.B_hat @ v]
        scale = 1.0 + float(np.max(np.abs(z_hat)))
        for k in range(K):
            others = [j for j in range(K) if j != k]
            if z_hat[k] >= z_hat[others].max():
                out[i, k] = 1.0
                continue
            if method == "reference":
                best = _region_reference(lik, _pair_rows(K, p, v, k, others))
            else:
                best = -np.inf
                for size in range(1, K):
                    for S in combinations(others, size):
                        from scipy.linalg import null_space

                        N = null_space(_pair_rows(K, p, v, k, S))
                        val, B = _subspace_max(lik, N)
                        z = np.r_[0.0, B @ v]
                        if z[k] - z[others].max() >= -1e-9 * scale and val > best:
                            best = val
            out[i, k] = float(np.exp(relative_loglik(lik.loglik_hat, np.array(best))))
        if len(_REGION_CACHE) >= _REGION_CACHE_SIZE:
            _REGION_CACHE.clear()
        _REGION_CACHE[key] = out[i].copy()
    return out


#: class contours of recent directions (keyed by the fit's estimate and the direction's bytes)
_REGION_CACHE: dict[tuple, NDArray] = {}
_REGION_CACHE_SIZE = 4096


def _region_reference(lik: MultinomialLikelihood, C: NDArray) -> float:
    """``max {l(B) : C vec B >= 0}`` by scipy's SLSQP (the reference of :func:`region_contours`)."""
    from scipy.optimize import minimize

    K, p = lik.K, lik.p

    def f(beta: NDArray) -> tuple[float, NDArray]:
        B = beta.reshape(K - 1, p)
        g, _ = multinomial_score_info(B, lik.X, lik.codes, K, lik.T)
        return -float(multinomial_loglik(B, lik.X, lik.codes, K, lik.T)), -g

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(f, lik.B_hat.ravel(), jac=True, method="SLSQP",
                       constraints=[{"type": "ineq", "fun": lambda b: C @ b, "jac": lambda b: C}],
                       options={"ftol": 1e-15, "maxiter": 1000})
    beta = res.x - C.T @ np.linalg.lstsq(C @ C.T, np.minimum(C @ res.x, 0.0), rcond=None)[0]  # onto C b >= 0
    return -f(beta)[0]


def wide_rows(lik: MultinomialLikelihood, x: ArrayLike) -> NDArray[np.bool_]:
    """Rows (finite, non-zero) that take the limit ``r -> inf``: ``r sd > WIDE_SCALE`` with
    ``x = r v`` and sd the smallest Wald standard error of ``z_k - z_j`` along v.

    Examples
    --------
    >>> X = np.c_[np.ones(6), [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0]]
    >>> from evstat.likelihood.mlogit import multinomial_mle
    >>> lik = multinomial_mle(X, [0, 0, 1, 0, 2, 2], 3, targets="platt")
    >>> wide_rows(lik, [[1.0, 0.5], [1.0, 1e10], [1.0, -1e300]]).tolist()
    [False, True, True]
    """
    V, r = row_scale(np.atleast_2d(np.asarray(x, dtype=float)))
    with np.errstate(over="ignore"):
        return (r > 0) & (r * _pair_sd(lik, V) > WIDE_SCALE)


def limit_contour(lik: MultinomialLikelihood, x: ArrayLike, w: ArrayLike) -> NDArray[np.float64]:
    """The limit as ``r -> inf`` of the predictive contour ``pl_A(t)`` of a set of classes A
    (``w = 1_A``) at every ``0 < t < 1``, for rows ``x = r v``: the constant
    ``min(max_{k in A} c_k, max_{k not in A} c_k)`` (:func:`region_contours`). theta_A takes a
    value strictly inside (0, 1) only near the boundary between A's regions and the others', and
    the supremum of the (quasi-concave) contour of z over that boundary is the plausibility of
    the side not holding the arg max at B_hat (the segment from z_hat to any point of that side
    crosses the boundary). Array (m,).

    Examples
    --------
    >>> X = np.c_[np.ones(6), [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0]]
    >>> from evstat.likelihood.mlogit import multinomial_mle
    >>> lik = multinomial_mle(X, [0, 0, 1, 0, 2, 2], 3, targets="platt")
    >>> c = region_contours(lik, [[0.0, 1.0]])[0]
    >>> bool(np.isclose(limit_contour(lik, [[1.0, 1e300]], [1, 0, 0])[0], max(c[1], c[2]) if c[0] == 1 else c[0]))
    True
    """
    w = np.asarray(w, dtype=float)
    if not np.all((w == 0) | (w == 1)) or w.min() == w.max():
        raise ValueError("limit_contour takes the indicator of a set of classes (not empty, not all)")
    V, _ = row_scale(np.atleast_2d(np.asarray(x, dtype=float)))
    c = region_contours(lik, V)
    inside = w.astype(bool)
    return np.minimum(c[:, inside].max(axis=1), c[:, ~inside].max(axis=1))


def limit_bounds(c: ArrayLike, w: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Lower and upper predictive expectations of ``h_w`` in the limit ``r -> inf``: those of
    the consonant belief on the classes with contour ``c`` (:func:`region_contours`),

        lower = int_0^1 min {w_k : c_k >= omega} d omega,  upper = int_0^1 max {w_k : c_k >= omega} d omega.

    Examples
    --------
    >>> lo, up = limit_bounds([[1.0, 0.3, 0.1]], [1.0, 0.0, 0.0])   # A = {0}: 1 - 0.3, 1
    >>> lo.tolist(), up.tolist()
    ([0.7], [1.0])
    >>> limit_bounds([[1.0, 0.3, 0.1]], [0.0, 0.0, 1.0])[1].tolist()   # Pl({2}) = c_2
    [0.1]
    """
    c = np.atleast_2d(np.asarray(c, dtype=float))
    w = np.broadcast_to(np.asarray(w, dtype=float), c.shape)
    order = np.argsort(-c, axis=1, kind="stable")
    cs = np.take_along_axis(c, order, axis=1)
    cs[:, 0] = 1.0  # the class of the arg max at B_hat
    ws = np.take_along_axis(w, order, axis=1)
    # sum_i (c_(i) - c_(i+1)) M_i = sum_i c_(i) (M_i - M_(i-1)), M_0 = 0 (Abel summation: exact
    # for the indicator of a set, 1 - max_{k not in A} c_k and max_{k in A} c_k, no rounding)
    mn_, mx_ = np.minimum.accumulate(ws, axis=1), np.maximum.accumulate(ws, axis=1)
    zero = np.zeros((c.shape[0], 1))
    lower = np.sum(cs * np.diff(np.c_[zero, mn_], axis=1), axis=1)
    upper = np.sum(cs * np.diff(np.c_[zero, mx_], axis=1), axis=1)
    return np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)


def scaled_probs(B: NDArray, X: ArrayLike) -> NDArray[np.float64]:
    """Class probabilities (m, K) of design rows of any finite size: ``softmax(r (z - max z))``
    with ``X = r V`` (:func:`evstat.likelihood.predictive.row_scale`) and ``z = (0, B V)``, so
    that rows whose linear predictors overflow (scores of 1e300) give 0 and 1, never NaN.

    Examples
    --------
    >>> scaled_probs(np.array([[0.0, 3.0], [0.0, 4.0]]), [[1.0, 1e308], [1.0, 0.0]]).tolist()
    [[0.0, 0.0, 1.0], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333]]
    """
    V, r = row_scale(X)
    z = np.c_[np.zeros(V.shape[0]), V @ B.T]
    with np.errstate(over="ignore", invalid="ignore"):
        e = r[:, None] * (z - z.max(axis=1, keepdims=True))
    return softmax(np.where(np.isnan(e), 0.0, e))  # NaN: r = 0, a zero row


#: rows with ``r sd`` above this also start every node's Newton from each face between two
#: classes' regions (:func:`face_starts`): the constraint set ``{B : h_w(x; B) = t}`` is not
#: convex, and for far-out rows the profile has a local maximum on each face (measured: from
#: the Wald start alone, K = 4, n = 200, x = (1, r, r, r), Bel({d}) was 0.84 at r = 100 (r sd
#: = 46), above 1 - Pl({b}) = 0.70, which coherence forbids; none at r sd <= 14)
FACE_SCALE = 1.0
#: profile problems of one row and one set of weights (two sides, a 17-node panel each, some
#: bisected or widened; measured about 40 at n = 1000, J = K = 3), per start: the estimate
#: of a prediction's work from which :func:`predictive_bounds` chooses the kernel or numpy
PROBLEMS_PER_ROW = 40


def _needs_faces(lik: MultinomialLikelihood, x: NDArray) -> NDArray[np.bool_]:
    V, r = row_scale(x)
    with np.errstate(over="ignore"):
        return r * _pair_sd(lik, V) > FACE_SCALE


def face_pairs(w: ArrayLike) -> list[tuple[int, int]]:
    """The pairs of classes ``k < j`` with ``w_k != w_j`` (the faces across which h_w jumps
    in the limit).

    Examples
    --------
    >>> face_pairs([1.0, 0.0, 0.0])
    [(0, 1), (0, 2)]
    """
    w = np.asarray(w, dtype=float)
    K = w.size
    return [(k, j) for k in range(K) for j in range(k + 1, K) if w[k] != w[j]]


def face_starts(lik: MultinomialLikelihood, x: ArrayLike, w: ArrayLike) -> list[NDArray[np.float64]]:
    """For every pair of :func:`face_pairs`, the coefficients (m, d) maximising l on the face
    ``(B v)_k = (B v)_j`` (``x = r v``; :func:`_subspace_max`): starts of the constrained Newton
    near each face's local maximum (``FACE_SCALE``). The weights must be the same for all rows.

    Examples
    --------
    >>> X = np.c_[np.ones(6), [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0]]
    >>> from evstat.likelihood.mlogit import multinomial_mle
    >>> lik = multinomial_mle(X, [0, 0, 1, 0, 2, 2], 3, targets="platt")
    >>> B = face_starts(lik, [[1.0, 50.0]], [0.0, 1.0, 0.0])[0].reshape(2, 2)  # face a | b
    >>> bool(abs(B[0] @ [1.0, 50.0]) < 1e-9)  # (B x)_b = (B x)_a = 0
    True
    """
    from scipy.linalg import null_space

    x = np.atleast_2d(np.asarray(x, dtype=float))
    w = np.atleast_2d(np.asarray(w, dtype=float))
    if not np.all(w == w[0]):
        raise ValueError("face_starts needs the same weights for every row")
    V, _ = row_scale(x)
    K, p = lik.K, lik.p
    pairs = face_pairs(w[0])
    out = [np.empty((V.shape[0], lik.d)) for _ in pairs]
    fit_key = (lik.B_hat.tobytes(), float(lik.loglik_hat), lik.X.shape, "face")
    keys = {fit_key + (v.tobytes(), k, j): (v, k, j) for v in V for (k, j) in pairs}
    new = [key for key in keys if key not in _REGION_CACHE]
    # every face not yet cached in one batch (_subspace_max_batch: the same Newton iteration,
    # problem by problem, so the batch may be split over threads with the same answers: numpy
    # releases the GIL in its products)
    found: dict[Any, NDArray] = {}
    if new:
        N = np.stack([null_space(_pair_rows(K, p, keys[key][0], keys[key][1], [keys[key][2]])) for key in new])
        sols = np.empty((len(new), lik.d))

        def part(lo: int, hi: int) -> None:
            sols[lo:hi] = _subspace_max_batch(lik, N[lo:hi])

        _kernels.run_split(part, np.arange(len(new)), len(new), _kernels.threads_for(len(new) * lik.n * K))
        found = dict(zip(new, sols))
    for i, v in enumerate(V):
        for f_i, (k, j) in enumerate(pairs):
            key = fit_key + (v.tobytes(), k, j)
            out[f_i][i] = found[key] if key in found else _REGION_CACHE[key]
    if len(_REGION_CACHE) + len(found) > _REGION_CACHE_SIZE:
        _REGION_CACHE.clear()
    _REGION_CACHE.update(list(found.items())[-_REGION_CACHE_SIZE:])
    return out
