"""Multinomial logistic likelihood, its contour, coefficient profiles and the predictive lower
and upper probabilities of sets of classes (the K-class generalisation of evlogit; issue 16).

Model (notes/evidential-multinomial.md, section 1). A design row ``x`` (p,), ``K`` classes, the
first class the baseline as in R's ``nnet::multinom``: ``eta_0 = 0``, ``eta_k = B_k . x`` for
``k = 1 .. K - 1`` (``B`` of shape (K - 1, p), flattened row by row into ``d = (K - 1) p``
parameters), ``theta_k = softmax_k(eta)``. Log-likelihood of targets ``T`` (n, K), rows summing
to 1, ``l(B) = sum_i sum_k T_ik eta_ik - logsumexp(eta_i)`` (concave), contour
``pl(B) = exp(l(B) - l(B_hat))``. The targets are the one-hot labels (``"binary"``) or the
K-class Platt targets of :func:`multinomial_targets` (``"platt"``, Laplace's rule of succession
``(1{y_i = k} N_{y_i} + 1) / (N_{y_i} + K)``, Platt's exactly for K = 2), with which the maximum
exists for any separation of the classes; the contour is then the relative likelihood of the
smoothed log-likelihood, as evlogit's.

Functionals. For a weight vector ``w`` in [0, 1]^K (the indicator of a set of classes A, or a
normalised row of a loss matrix ``(L_a - min L_a) / (max L_a - min L_a)``), ``h_w(B) =
sum_k w_k theta_k(x; B)`` lies in (0, 1) and its logit is

    g(B) = logsumexp_k(eta_k + log w_k) - logsumexp_k(eta_k + log(1 - w_k)).

Profile contour ``pl_w(t) = sup {pl(B) : h_w(B) = t}``. The level sets ``{pl >= omega}`` are
convex (l is concave) and h_w is continuous, so their images are intervals containing
``h_hat``: pl_w is unimodal (non-decreasing, then non-increasing), and by the layer-cake identity
(the random-set view of Minary et al. 2019, eqs. 16-17 and 23-24, applied to h_w)

    lower = h_hat - int_0^h_hat pl_w(t) dt,      upper = h_hat + int_h_hat^1 pl_w(t) dt,

which for ``w = 1_A`` are Bel(A) and Pl(A) (eqs. 25-26 of Minary et al. 2019 for K = 2). We integrate in
``u = logit t``, ``dt = t (1 - t) du``; the integrand ``pl_w(expit u) t (1 - t)`` is at most
``exp(-|u|)``.

The constrained problem ``max l(B) s.t. g(B) = u``. Along the direction ``delta_k = 2 (w_k -
w_0)`` in eta (``B_k += c delta_k x / (x . x)``) g is strictly increasing from -inf to +inf
(the weights ``w_k e^eta_k`` tilt towards larger w than ``(1 - w_k) e^eta_k``), so every B has
a unique *retraction* onto the constraint by a scalar root (safeguarded Newton). The fast path
(:func:`functional_profile`) is Newton's method on the KKT system of size ``d + 1``

    [ H_l - lambda H_g   grad g ] [ s  ]   [ -grad l ]
    [ grad g'            0      ] [ nu ] = [    0    ],   lambda <- -nu,

from a feasible point (the Wald start, retracted), each step retracted onto the constraint and
halved while it lowers l; when the Lagrangian Hessian is not negative definite on the tangent
space (the step is no ascent direction) the step is recomputed with ``H_l`` alone (always an
ascent direction). Convergence: the Newton decrement ``grad l . s`` below ``tol``; the reported
value adds its predicted gain (error of the order of ``tol**1.5``). A compiled kernel (numba,
serial: see :mod:`evstat.likelihood.linear_profile`) runs one problem after the other, one pass
over the calibration rows per iteration (:func:`_msweep_py`: the two-class kernel's tiled sweep
carried to K classes, with its branch-free vectorised exponential and its tile accumulators:
theta, the log-likelihood, the score and the information as ``(K - 1) K / 2`` weighted sums of
``x_i x_i'``, rows in cache-sized blocks, columns four at a time). Continuation along the
nodes (``chain=True``): the nodes of a quadrature panel are solved in order from the end
nearest ``u_hat``; each path's first solution is the MLE itself (at ``u_hat``, tangent the Wald
direction ``cov G / (G' cov G)``; a node at ``u_hat`` is not solved), and each node starts from
its predecessor's solution (after its final Newton step) moved along the tangent ``dB/du`` of
the path of solutions (the KKT matrix, already factorised, with right-hand side (0, 1)) plus a
quadratic term through the solution before it (as the two-class kernel), retracted, with the
predecessor's multiplier; measured 1.19 passes per node at n = 1000, J = 3, K = 3 (1.30 with
the tangent alone from the point of the last pass, where one- and two-pass nodes alternated).
Problems whose warm start fails are solved again from the Wald start; those that still do not
converge fall back to the reference path. The quadrature's nodes also stop on the *tail rule*
(:func:`_tail_converged_py`, issue 26): the integrand ``pl t (1 - t)`` needs the profile to a
relative accuracy of ``tol**1.5 / pl``, so a node where the contour ``pl`` is small is accepted
once ``pl dec**1.5 <= tol**1.5`` (``dec <= 1e-2``): 151 -> 130 passes per row at n = 1000,
J = 3, K = 3, Bel and Pl within 5.2e-10 of the rule ``dec <= tol`` alone.
``lambda = d l_p / d u`` is returned as the slope.

Quadrature (:func:`predictive_bounds`): each side of ``u_hat = g(B_hat)`` is integrated by the
vectorised adaptive Clenshaw-Curtis rule shared with evlogit
(:func:`evstat.likelihood.quadrature.adaptive_clenshaw_curtis`: nested orders 16 and 8,
bisecting panels where they disagree by more than ``acc``) over an interval of ``width`` Wald
scales of the integrand around its Wald mode, clamped to ``|u| <= U_MAX`` (beyond, the integrand
is below ``exp(-U_MAX)``). Tail check: pl_w is monotone on each side of its mode, so the mass
beyond the far end ``b`` is at most ``pl_w(b)`` times the logistic mass beyond b
(``expit(-|b|)``) -- a bound that needs no log-concavity (which the profile of a nonlinear
functional need not have); for rows whose bound exceeds ``tol`` the extension to a doubled
width is integrated and added (the part already integrated is kept). A side whose length in t
is below ``tol`` (``h_hat`` below the mode, ``1 - h_hat`` above: the integrand ``pl_w`` is at
most 1) is not integrated at all and counts 0, as the tail beyond a far end does: rows whose
theta_hat is within 1e-10 of 0 or 1, 220 of the 768 row-class pairs of a K = 3 figure's grid.

Convex sides and later panels (issue 25, the first grid figure). For a singleton {k} the
feasible set above the mode, ``{B : theta_k >= t}``, is convex (``logsumexp_j(eta_j - eta_k)``
bounded), and for its complement the set below it (:func:`_convex_sides`); there the Wald
chain's solutions whose slopes have the side's sign are KKT points of a concave maximisation
on a convex set, hence the global maxima, and the face chains and the continuation of
:func:`_continued_profile` are skipped. A panel that is not the first of its side (a bisected
panel's half, a widening) begins at a node already solved, and its Wald chain starts from the
best maximiser found there (recorded in :class:`_Seen`) rather than from the MLE's tangent far away (20
to 60 passes, often on a lower branch that only the continuation left). Measured on the 256
grid rows of the n = 1000 figure (``benchmarks/bench_kclass_figures.py``): 1.23 million passes
-> 0.72 million, Bel and Pl within 1.7e-10 of the previous path. The face chains keep their
own starts in every panel: continuing them from their previous panel's solutions (tried)
missed higher branches and moved Bel by up to 0.2.

Threads: a kernel batch (of at least ``_kernels.THREAD_MIN_WORK`` problem-rows) is split at its
chains' starts over ``kernel_threads`` threads (:func:`evstat.likelihood._kernels.run_split`; the
kernel releases the GIL), with answers identical to the serial call.

Ten classes (issue 36 item 3; :func:`_kernel_py`, *Reused Hessian*). At K = 10, p = 11
(d = 99) a pass that computes the information costs some 30 times one that computes the score
(45 information blocks of 12 x 12 per calibration row against 9 x 12 products), and every node
took one to two such passes: 1.2 s a row for the ten singletons at n = 5,000. From
``REUSE_MIN_D`` coefficients on, the kernel keeps the inverse of the last Hessian (``-cov`` at
the MLE, where the score is 0: the first secant pair of a path), updates it by BFGS from the
scores of consecutive passes, and solves the KKT system by the Woodbury identity in g's
(K - 1)-dimensional subspace; the nodes of a path are predicted by the quadratic through its
last three solutions (the tangents of an approximate Hessian were the predictor's largest
error: with them a third of the nodes needed a second pass, with the three-point predictor 4
in 1,900). Measured (benchmarks/bench_evmultinom_k10.py, n = 5,000, K = J = 10): 370 passes a
row of which 1.4 compute the information, about 50 ms a row against 560 for the exact path,
Bel and Pl within 2.4e-10 of it.

Speed (benchmarks/README.md): the continuation, the node tolerance and the extension-only
widening took the singletons from 242 to about 20-30 ms/row (n = 1000, J = 3, K = 3; issue 16),
the tiled sweep and the quadratic continuation through the MLE to about 4 (issue 26). Where the
time goes now (CPU, n = 1000, J = 3, K = 3): 118 profile problems per row (six sides, mostly one
17-node panel each), 1.19 passes each, one pass 12-25 us (the sweep); for K = 7 (Segment,
n = 200, p = 7) the KKT solve of size 43 costs as much as the sweep, and the sides need more
panels and widening (the contour is wider than its Wald approximation).

Reference path (:func:`functional_profile_reference`, ``method="reference"``): for each node the
constraint is eliminated by the retraction ``R(Z) = Z + c(Z) D`` (``c`` by ``scipy.optimize.brentq``)
and ``l(R(Z))`` maximised without constraint by ``scipy.optimize.minimize`` (BFGS from the
retracted Wald start), with the exact gradient
``grad l - grad g (D . grad l) / (D . grad g)``; each side integrated by ``scipy.integrate.quad``
in ``t``. Slow (tens of milliseconds per node) and independent of the fast path's algebra.

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

Limits. Scores must be finite (infinite or missing scores are an error naming the column, from
the formula layer); every finite row, up to 1e308, gets an answer (theta_hat by
:func:`scaled_probs`, which never overflows). ``functional_profile`` itself (the contour of one
row, ``MultinomCalibration.contour``) works on x and is meant for rows below ``WIDE_SCALE``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, log_expit, logsumexp

from evstat.likelihood import _kernels
from evstat.likelihood.coefficient_profile import _chi2_ppf_1
from evstat.likelihood.linear_profile import SWEEP_BLOCK, TILE, _columns, relative_loglik
from evstat.likelihood.predictive import row_scale
from evstat.likelihood.quadrature import adaptive_clenshaw_curtis

__all__ = [
    "MultinomialLikelihood",
    "coefficient_conf_int",
    "coefficient_profile_loglik",
    "functional_profile",
    "functional_profile_reference",
    "limit_bounds",
    "limit_contour",
    "multinomial_mle",
    "multinomial_probs",
    "multinomial_score_info",
    "predictive_bounds",
    "predictive_bounds_events",
    "region_contours",
    "scaled_probs",
    "softmax",
    "wide_rows",
]

#: the integration range in u = logit t is clamped to |u| <= U_MAX (integrand below exp(-U_MAX))
U_MAX = 45.0
#: Newton tolerance (decrement) at the quadrature nodes. The value reported adds the step's
#: predicted gain, whose error is of the order of the decrement**1.5: measured against 1e-9
#: (n = 45 and 1000, J = 3, K = 3), Bel and Pl differ by at most 2e-10, and about half of the
#: warm-started nodes are accepted after one pass over the calibration rows instead of two.
NODE_TOL = 1e-6
#: Newton iterations per node of the fast path: the first node of a panel starts from the Wald
#: start, which for far-out rows (x = r v, r up to WIDE_SCALE / sd) lies far from the constraint's
#: solution; measured: a few hundred iterations at r = 1e9 (n = 60, K = 3), each one pass over
#: the calibration rows (ordinary rows converge in a few, so the bound costs nothing there)
NODE_MAX_ITER = 1000
#: rows with ``r * sd > WIDE_SCALE`` take the limit r -> inf (module docstring, "Extreme test
#: rows"; ``x = r v``, sd the smallest Wald standard error of a difference of two classes'
#: linear predictors along v): the limit's error is O(1 / (r sd)) where the contour's maximum
#: over a class region lies at a corner of several regions, O(1 / (r sd)^2) on a face
#: (measured constants below 0.2: errors below 2e-9 at the switch)
WIDE_SCALE = 1e8
#: number of float64 cells (problems x calibration rows) per chunk of problems
CHUNK_CELLS = 4_000_000
#: the kernel reuses Hessians (score-only passes) from this many coefficients d = (K - 1) p
#: on (:func:`reuse_hessian`)
REUSE_MIN_D = 20


def reuse_hessian(K: int, p: int) -> bool:
    """Whether the compiled kernel's passes reuse an earlier Hessian (:func:`_kernel_py`,
    *Reused Hessian*): from ``REUSE_MIN_D`` coefficients on."""
    return (K - 1) * p >= REUSE_MIN_D


# ---------------------------------------------------------------------------- likelihood
@dataclass(frozen=True)
class MultinomialLikelihood:
    """A fitted multinomial logistic likelihood.

    Attributes
    ----------
    X : array (n, p)
        Calibration design.
    codes : array (n,)
        Classes as positions ``0 .. K - 1`` (0 is the baseline).
    K : int
    T : array (n, K)
        The fitting targets (rows summing to 1): the one-hot labels (``targets="binary"``) or
        the smoothed targets of :func:`multinomial_targets`; ``l(B) = sum_ik T_ik log
        theta_k(x_i; B)``.
    B_hat : array (K - 1, p)
        Maximum-likelihood estimate.
    loglik_hat : float
    cov : array (d, d)
        Inverse observed information at ``B_hat`` (parameters flattened row by row).
    """

    X: NDArray[np.float64]
    codes: NDArray[np.intp]
    K: int
    B_hat: NDArray[np.float64]
    loglik_hat: float
    cov: NDArray[np.float64]
    T: NDArray[np.float64]

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def p(self) -> int:
        return int(self.X.shape[1])

    @property
    def d(self) -> int:
        return (self.K - 1) * self.p

    def loglik(self, B: ArrayLike) -> NDArray[np.float64]:
        """``l(B)`` for ``B`` of shape ``(..., K - 1, p)``."""
        return multinomial_loglik(B, self.X, self.codes, self.K, self.T)

    def log_contour(self, B: ArrayLike) -> NDArray[np.float64]:
        """``log pl(B) = l(B) - l(B_hat)`` (<= 0) for ``B`` of shape ``(..., K - 1, p)``."""
        B = np.asarray(B, dtype=float)
        if B.shape[-2:] != (self.K - 1, self.p):
            raise ValueError(
                f"B must have shape (..., {self.K - 1}, {self.p}) (one row per non-baseline class, "
                f"one column per term), got shape {B.shape}"
            )
        return relative_loglik(self.loglik_hat, self.loglik(B))


def multinomial_loglik(
    B: ArrayLike, X: ArrayLike, codes: ArrayLike, K: int, T: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Multinomial log-likelihood at ``B`` of shape ``(..., K - 1, p)`` (baseline class 0), of
    the labels ``codes`` or, when given, of the targets ``T`` (n, K):
    ``sum_i sum_k T_ik log theta_k(x_i; B)``.

    Examples
    --------
    >>> X = np.c_[np.ones(3), [0.0, 1.0, 2.0]]
    >>> bool(np.isclose(multinomial_loglik(np.zeros((2, 2)), X, [0, 1, 2], 3), 3 * np.log(1 / 3)))
    True
    """
    B = np.asarray(B, dtype=float)
    X = np.asarray(X, dtype=float)
    codes = np.asarray(codes, dtype=np.intp)
    eta = np.einsum("...kj,nj->...nk", B, X)  # (..., n, K - 1)
    full = np.concatenate([np.zeros(eta.shape[:-1] + (1,)), eta], axis=-1)
    if T is not None:
        logp = full - logsumexp(full, axis=-1, keepdims=True)
        return np.einsum("...nk,nk->...", logp, np.asarray(T, dtype=float))
    picked = np.take_along_axis(full, np.broadcast_to(codes[:, None], full.shape[:-1] + (1,)), axis=-1)[..., 0]
    return np.sum(picked - logsumexp(full, axis=-1), axis=-1)


def multinomial_probs(B: NDArray, X: NDArray) -> NDArray:
    """Class probabilities (n, K) of the multinomial logit with coefficients ``B`` (K - 1, p),
    the first class the baseline (softmax of ``[0, X B']``, overflow-free)."""
    return softmax(np.c_[np.zeros(X.shape[0]), X @ B.T])


def softmax(z: ArrayLike) -> NDArray[np.float64]:
    """Row-wise softmax of logits ``z`` (n, K), shifted by the row maximum (no overflow): the
    one softmax of evstat (the multinomial likelihood, evmultinom and the scaling calibrators
    of :mod:`evstat.multiclass`).

    Examples
    --------
    >>> softmax([[0.0, 0.0], [1000.0, 0.0]]).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    """
    z = np.asarray(z, dtype=float)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def multinomial_score_info(
    B: NDArray, X: NDArray, codes: NDArray, K: int, T: NDArray | None = None
) -> tuple[NDArray, NDArray]:
    """Score (d,) and observed information (d, d) at ``B`` (K - 1, p), of the labels ``codes``
    or of the targets ``T`` (n, K) when given (the information does not depend on them)."""
    th = multinomial_probs(B, X)
    Y = np.eye(K)[codes] if T is None else np.asarray(T, dtype=float)
    g = ((Y - th)[:, 1:].T @ X).ravel()
    p = X.shape[1]
    info = np.zeros((K - 1, p, K - 1, p))
    for a in range(1, K):
        for b in range(a, K):
            wts = th[:, a] * ((a == b) - th[:, b])
            blk = (X * wts[:, None]).T @ X
            info[a - 1, :, b - 1, :] = blk
            info[b - 1, :, a - 1, :] = blk.T
    return g, info.reshape((K - 1) * p, (K - 1) * p)


#: the fitting targets: smoothed (:func:`multinomial_targets`) or the one-hot labels
TARGETS = ("platt", "binary")


def multinomial_targets(codes: ArrayLike, K: int, targets: str = "platt") -> NDArray[np.float64]:
    """Fitting targets (n, K) of the multinomial likelihood: the labels or smoothed targets.

    ``"binary"``: the one-hot labels. ``"platt"``: Laplace's rule of succession for K classes,

        T_ik = (1{y_i = k} N_{y_i} + 1) / (N_{y_i} + K),

    ``N_c`` the number of calibration rows of class c: a row of class c gets the posterior mean
    of the class probabilities under a uniform Dirichlet(1, ..., 1) prior updated with the
    ``N_c`` rows of its class, so ``(N_c + 1) / (N_c + K)`` for its own class and
    ``1 / (N_c + K)`` for each other class. For K = 2 these are exactly Platt's targets
    (``(N+ + 1) / (N+ + 2)`` for a positive row, ``1 / (N- + 2)`` for a negative one; Platt
    1999 derives them from the same uniform prior, Minary et al. 2019 eq. 52). Every target is
    positive, so the log-likelihood tends to minus infinity along every direction in which some
    row's linear predictors are not all equal: with a design of full column rank the maximum
    exists and is unique whatever the separation of the classes.

    Examples
    --------
    >>> multinomial_targets([0, 1, 1, 2], 3).round(3).tolist()
    [[0.5, 0.25, 0.25], [0.2, 0.6, 0.2], [0.2, 0.6, 0.2], [0.25, 0.25, 0.5]]
    >>> multinomial_targets([1, 0, 0, 1, 1], 2)[:, 1].round(4).tolist()  # Platt's
    [0.8, 0.25, 0.25, 0.8, 0.8]
    """
    codes = np.asarray(codes, dtype=np.intp)
    if targets not in TARGETS:
        raise ValueError(f"targets must be 'platt' (smoothed, the default) or 'binary', got {targets!r}")
    onehot = np.eye(K)[codes]
    if targets == "binary":
        return onehot
    N = np.bincount(codes, minlength=K).astype(float)[codes][:, None]
    return (onehot * N + 1.0) / (N + K)


def multinomial_mle(
    X: ArrayLike, codes: ArrayLike, K: int, start: ArrayLike | None = None, tol: float = 1e-12, max_iter: int = 200,
    targets: str = "binary",
) -> MultinomialLikelihood:
    """Maximise the multinomial log-likelihood of the ``targets`` (:func:`multinomial_targets`)
    by damped Newton-Raphson (polishing a start such as statsmodels' ``MNLogit`` estimate to
    full double precision).

    Raises
    ------
    RuntimeError
        When no finite maximiser exists: with ``targets="binary"`` when the scores separate the
        classes, completely or quasi-completely (the information becomes singular as fitted
        probabilities saturate); with either targets when the design is not of full column rank.
    """
    X = np.ascontiguousarray(np.asarray(X, dtype=float))
    codes = np.asarray(codes, dtype=np.intp)
    T = multinomial_targets(codes, K, targets)
    p = X.shape[1]
    B = np.zeros((K - 1, p)) if start is None else np.array(start, dtype=float).reshape(K - 1, p)
    cur = float(multinomial_loglik(B, X, codes, K, T))
    done = False
    for _ in range(max_iter):
        g, info = multinomial_score_info(B, X, codes, K, T)
        try:
            step = np.linalg.solve(info, g)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(info, g, rcond=None)[0]
        size = 1.0
        while True:
            cand = B + size * step.reshape(K - 1, p)
            new = float(multinomial_loglik(cand, X, codes, K, T))
            if new >= cur - 1e-13 * (1.0 + abs(cur)) or size < 1e-10:
                break
            size *= 0.5
        B, cur = cand, new
        if np.max(np.abs(size * step)) <= tol * (1.0 + np.max(np.abs(B))):
            done = True
            break
    _, info = multinomial_score_info(B, X, codes, K, T)
    th = multinomial_probs(B, X)
    ref = np.linalg.eigvalsh(np.kron(np.eye(K - 1), X.T @ X) / (4.0 * K))[-1]
    lam = np.linalg.eigvalsh(info)[0]
    saturated = targets == "binary" and np.any(th[np.arange(len(codes)), codes] > 1 - 1e-10)
    if not done or not lam > 1e-10 * ref or saturated:
        raise RuntimeError(
            "the multinomial log-likelihood has no finite maximiser: the scores separate the "
            "classes (completely or quasi-completely), so the coefficients diverge"
            if targets == "binary" else
            "the multinomial log-likelihood has no unique maximiser: the design is not of full "
            "column rank (collinear score columns or fewer rows than terms)"
        )
    cov = np.linalg.inv(info)
    return MultinomialLikelihood(X=X, codes=codes, K=int(K), B_hat=B, loglik_hat=cur, cov=cov, T=T)


# ---------------------------------------------------------------------------- functional g
def _g_eta(eta: NDArray, w: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """g (m,), a (m, K), b (m, K) from eta (m, K) (eta[:, 0] = 0) and weights w (m, K)."""
    with np.errstate(divide="ignore"):
        lw, l1w = np.log(w), np.log1p(-w)
    ta, tb = eta + lw, eta + l1w
    la = _logsumexp_rows(ta)
    lb = _logsumexp_rows(tb)
    return (la - lb)[:, 0], np.exp(ta - la), np.exp(tb - lb)


def _logsumexp_rows(a: NDArray) -> NDArray:
    """``log sum_k exp(a_k)`` of each row (m, 1), shifted by the row maximum; -inf for a row of
    -inf only (scipy's ``logsumexp`` gives the same, with more overhead per call)."""
    mx = a.max(axis=1, keepdims=True)
    safe = np.where(np.isfinite(mx), mx, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(a - safe).sum(axis=1, keepdims=True))


def _grad_g(B: NDArray, x: NDArray, w: NDArray) -> tuple[NDArray, NDArray]:
    """g and its gradient in B (flattened, (m, d)) for batches B (m, K-1, p), x (m, p), w (m, K)."""
    eta = np.c_[np.zeros(x.shape[0]), np.einsum("mkj,mj->mk", B, x)]
    g, a, b = _g_eta(eta, w)
    return g, ((a - b)[:, 1:, None] * x[:, None, :]).reshape(x.shape[0], -1)


def _check_weights(w: ArrayLike, K: int) -> NDArray:
    w = np.asarray(w, dtype=float)
    if w.shape[-1] != K or np.any(~(w >= 0)) or np.any(w > 1):
        raise ValueError(f"weights must be arrays (..., {K}) with entries in [0, 1], got shape {w.shape}")
    return w


# ---------------------------------------------------------------------------- fast kernel
def _retract_py(Bb, x, xx, w, u, K, p, eta):  # pragma: no cover - compiled by numba
    """Move ``Bb`` (flattened) along ``delta`` until g = u; returns False if it failed."""
    for k in range(1, K):
        s = 0.0
        for j in range(p):
            s += Bb[(k - 1) * p + j] * x[j]
        eta[k] = s
    eta[0] = 0.0
    c = 0.0
    lo = -np.inf
    hi = np.inf
    for _ in range(200):
        # g(c) and g'(c) at eta + c delta
        m1 = -np.inf
        m2 = -np.inf
        for k in range(K):
            e = eta[k] + c * 2.0 * (w[k] - w[0])
            if w[k] > 0.0 and e > m1:
                m1 = e
            if w[k] < 1.0 and e > m2:
                m2 = e
        N = 0.0
        M = 0.0
        dN = 0.0
        dM = 0.0
        for k in range(K):
            dk = 2.0 * (w[k] - w[0])
            e = eta[k] + c * dk
            if w[k] > 0.0:
                t = w[k] * np.exp(e - m1)
                N += t
                dN += t * dk
            if w[k] < 1.0:
                t = (1.0 - w[k]) * np.exp(e - m2)
                M += t
                dM += t * dk
        if not (N > 0.0 and M > 0.0 and np.isfinite(m1) and np.isfinite(m2)):
            return False
        gv = m1 + np.log(N) - m2 - np.log(M) - u
        dg = dN / N - dM / M
        if abs(gv) <= 1e-13 * (1.0 + abs(u)):
            break
        if gv > 0.0:
            hi = c
        else:
            lo = c
        nc = c - gv / dg if dg > 0.0 else np.nan
        if not (nc > lo and nc < hi) or not np.isfinite(nc):
            if np.isfinite(lo) and np.isfinite(hi):
                nc = 0.5 * (lo + hi)
            elif np.isfinite(lo):
                nc = lo + max(1.0, 2.0 * abs(lo))
            else:
                nc = hi - max(1.0, 2.0 * abs(hi))
        if not abs(nc) < 1e100:
            return False
        if abs(nc - c) <= 1e-14 * (1.0 + abs(c)):  # converged to rounding level
            c = nc
            break
        c = nc
    else:
        return False
    for k in range(1, K):
        f = c * 2.0 * (w[k] - w[0]) / xx
        for j in range(p):
            Bb[(k - 1) * p + j] += f * x[j]
    return True


def _msweep_py(Xc, Tt, K, beta, E, Z, D, scratch, MX, TOT, R, W, g, H, info=True):  # pragma: no cover
    """One pass over the calibration rows at ``beta`` (flattened (K - 1, p)): returns l(beta),
    fills the score ``g`` (K - 1, P) and, with ``info``, the information blocks ``H`` (npair,
    P, P), block ``c`` of the pair of non-baseline classes ``k <= k2`` (in that order) holding
    ``sum_i theta_ik (1{k = k2} - theta_ik2) x_i x_i'`` (the padding entries are 0). Without
    ``info`` (the kernel's passes that reuse an earlier Hessian) ``H`` is left as it is: the
    score alone costs ``O(n K p)`` where the information costs ``O(n K^2 p^2 / 2)``.

    The two-class sweep of :mod:`evstat.likelihood.linear_profile` (:func:`~evstat.likelihood.
    linear_profile._sweep_py`) carried to K classes: the design column by column (``Xc``,
    padded with zero columns to a multiple of ``TILE``), the targets class by class (``Tt``,
    (K, n)), the rows in blocks of ``E.shape[1]`` that stay in the cache. Per block: the linear
    predictors of each class (four columns per loop), their row maximum ``mx`` (with eta_0 = 0),
    the shifted exponentials ``exp(eta_k - mx)`` by the branch-free vectorised exponential
    (:func:`~evstat.likelihood.linear_profile._exp_neg_abs_py`, the arguments are <= 0), their
    sum ``tot`` and the log-likelihood ``sum_k T_ik eta_ik - mx_i - log tot_i`` (the targets of
    a row sum to 1; the ``log tot_i`` as logs of products of 32 factors in [1, K]), the
    probabilities, the residuals ``T_ik - theta_ik`` and the ``K (K - 1) / 2`` weight vectors;
    then per tile of four columns the score in 4 scalars per class and, per pair of classes,
    the information tile by the two-class kernel's tile accumulators
    (:func:`~evstat.likelihood.linear_profile._tile_diag_py`, ``_tile_off_py``).
    """
    P, n = Xc.shape
    p = beta.shape[0] // (K - 1)
    npair = H.shape[0]
    blk = E.shape[1]
    for k in range(K - 1):
        for j in range(P):
            g[k, j] = 0.0
    if info:
        for c in range(npair):
            for j in range(P):
                for j2 in range(P):
                    H[c, j, j2] = 0.0
    ll = 0.0
    for s in range(0, n, blk):
        m = min(blk, n - s)
        mx = MX[:m]
        for i in range(m):
            mx[i] = 0.0
        for k in range(1, K):
            ek = E[k, :m]
            o = (k - 1) * p
            for q in range(0, P, TILE):
                c0 = Xc[q, s:s + m]
                c1 = Xc[q + 1, s:s + m]
                c2 = Xc[q + 2, s:s + m]
                c3 = Xc[q + 3, s:s + m]
                b0 = beta[o + q] if q < p else 0.0
                b1 = beta[o + q + 1] if q + 1 < p else 0.0
                b2 = beta[o + q + 2] if q + 2 < p else 0.0
                b3 = beta[o + q + 3] if q + 3 < p else 0.0
                if q == 0:
                    for i in range(m):
                        ek[i] = c0[i] * b0 + c1[i] * b1 + c2[i] * b2 + c3[i] * b3
                else:
                    for i in range(m):
                        ek[i] += c0[i] * b0 + c1[i] * b1 + c2[i] * b2 + c3[i] * b3
            tk = Tt[k, s:s + m]
            for i in range(m):
                mx[i] = max(mx[i], ek[i])
                ll += tk[i] * ek[i]
        tot = TOT[:m]
        db = D[:m]
        sb = scratch[:m]
        for k in range(K):
            zk = Z[k, :m]
            if k == 0:
                for i in range(m):
                    db[i] = -mx[i]
            else:
                ek = E[k, :m]
                for i in range(m):
                    db[i] = ek[i] - mx[i]
            _exp_neg_abs(db, zk, sb)  # exp(-|eta_k - mx|) = exp(eta_k - mx)
            if k == 0:
                for i in range(m):
                    tot[i] = zk[i]
            else:
                for i in range(m):
                    tot[i] += zk[i]
        for i in range(m):
            ll -= mx[i]
        for i0 in range(0, m, 32):  # sum of log tot as logs of products of 32 factors in [1, K]
            prod = 1.0
            for i in range(i0, min(i0 + 32, m)):
                prod *= tot[i]
            ll -= np.log(prod)
        for i in range(m):
            tot[i] = 1.0 / tot[i]
        for k in range(1, K):
            zk = Z[k, :m]
            tk = Tt[k, s:s + m]
            rk = R[k - 1, :m]
            for i in range(m):
                zk[i] *= tot[i]
                rk[i] = tk[i] - zk[i]
        if info:
            c = 0
            for k in range(1, K):
                zk = Z[k, :m]
                for k2 in range(k, K):
                    wc = W[c, :m]
                    if k2 == k:
                        for i in range(m):
                            wc[i] = zk[i] * (1.0 - zk[i])
                    else:
                        z2 = Z[k2, :m]
                        for i in range(m):
                            wc[i] = -zk[i] * z2[i]
                    c += 1
        for q in range(0, P, TILE):
            c0 = Xc[q, s:s + m]
            c1 = Xc[q + 1, s:s + m]
            c2 = Xc[q + 2, s:s + m]
            c3 = Xc[q + 3, s:s + m]
            for k in range(K - 1):
                rk = R[k, :m]
                g0 = g1 = g2 = g3 = 0.0
                for i in range(m):
                    r = rk[i]
                    g0 += r * c0[i]
                    g1 += r * c1[i]
                    g2 += r * c2[i]
                    g3 += r * c3[i]
                g[k, q] += g0
                g[k, q + 1] += g1
                g[k, q + 2] += g2
                g[k, q + 3] += g3
            if not info:
                continue
            for c in range(npair):
                _tile_diag(W[c, :m], c0, c1, c2, c3, H[c], q)
            for r0 in range(q + TILE, P, TILE):
                d0 = Xc[r0, s:s + m]
                d1 = Xc[r0 + 1, s:s + m]
                d2 = Xc[r0 + 2, s:s + m]
                d3 = Xc[r0 + 3, s:s + m]
                for c in range(npair):
                    _tile_off(W[c, :m], c0, c1, c2, c3, d0, d1, d2, d3, H[c], q, r0)
    if info:
        for c in range(npair):
            for j in range(P):
                for j2 in range(j + 1, P):
                    H[c, j2, j] = H[c, j, j2]
    return ll


def _sweep_block_py(n: int, K: int) -> int:
    """Calibration rows per block of :func:`_msweep_py`: its work arrays (about ``(K - 1) (K +
    6) / 2 + 4`` doubles per row) within about 32 KB (the L1 cache), 64 to ``SWEEP_BLOCK``."""
    per_row = (K - 1) * (K + 6) // 2 + 4
    return max(1, min(n, SWEEP_BLOCK, max(64, 4096 // per_row)))


#: with ``tail=True`` a node is also accepted when its decrement is at most TAIL_MAX_DEC and its
#: contribution's error bound ``pl * dec**1.5`` is at most ``tol**1.5`` (see _tail_converged)
TAIL_MAX_DEC = 1e-2


def _tail_converged_py(dec, ll, l_hat, tol):  # pragma: no cover - compiled by numba
    """The tail rule of the quadrature nodes: the value reported, ``ll + dec / 2``, is within
    ``O(dec**1.5)`` of the profile log-likelihood, so the integrand ``pl = exp(l - l_hat)``
    (times ``t (1 - t) <= 1/4``) is within ``O(pl dec**1.5)`` of its value: accepting
    ``pl dec**1.5 <= tol**1.5`` bounds every node's error by what the rule ``dec <= tol`` allows
    at the mode (``pl = 1``), while nodes in the tails of the contour (``pl`` small) stop after
    fewer passes. Never beyond ``dec <= TAIL_MAX_DEC`` (the expansion's range)."""
    return (dec <= TAIL_MAX_DEC) & (dec * np.sqrt(np.abs(dec)) * np.exp(ll - l_hat) <= tol * np.sqrt(tol))


_tail_converged = _tail_converged_py


def _neg_inverse_py(H, Hi, L):  # pragma: no cover - compiled by numba
    """``Hi = H^-1`` for a negative definite ``H`` (d, d), by the Cholesky factor ``L`` of ``-H``
    (work array, overwritten); False (``Hi`` undefined) when ``-H`` is not positive definite
    to rounding."""
    d = H.shape[0]
    for i in range(d):
        for j in range(i + 1):
            s = -H[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            if i == j:
                if not s > 1e-300:
                    return False
                L[i, i] = np.sqrt(s)
            else:
                L[i, j] = s / L[j, j]
    # L^-1 in place of L's lower triangle (column by column), then Hi = -(L^-1)' L^-1
    for j in range(d):
        L[j, j] = 1.0 / L[j, j]
        for i in range(j + 1, d):
            s = 0.0
            for k in range(j, i):
                s -= L[i, k] * L[k, j]
            L[i, j] = s / L[i, i]
    for i in range(d):
        for j in range(i + 1):
            s = 0.0
            for k in range(i, d):
                s += L[k, i] * L[k, j]
            Hi[i, j] = -s
            Hi[j, i] = -s
    return True


def _small_solve_py(A, b1, b2):  # pragma: no cover - compiled by numba
    """Solve ``A [y1 y2] = [b1 b2]`` in place (A (m, m) overwritten; Gaussian elimination with
    partial pivoting); False if A is singular."""
    m = A.shape[0]
    for cc in range(m):
        piv = cc
        best = abs(A[cc, cc])
        for rr in range(cc + 1, m):
            if abs(A[rr, cc]) > best:
                best = abs(A[rr, cc])
                piv = rr
        if not best > 0.0:
            return False
        if piv != cc:
            for k in range(m):
                tmp = A[cc, k]
                A[cc, k] = A[piv, k]
                A[piv, k] = tmp
            tmp = b1[cc]
            b1[cc] = b1[piv]
            b1[piv] = tmp
            tmp = b2[cc]
            b2[cc] = b2[piv]
            b2[piv] = tmp
        for rr in range(cc + 1, m):
            f = A[rr, cc] / A[cc, cc]
            if f != 0.0:
                for k in range(cc, m):
                    A[rr, k] -= f * A[cc, k]
                b1[rr] -= f * b1[cc]
                b2[rr] -= f * b2[cc]
    for cc in range(m - 1, -1, -1):
        s1 = b1[cc]
        s2 = b2[cc]
        for k in range(cc + 1, m):
            s1 -= A[cc, k] * b1[k]
            s2 -= A[cc, k] * b2[k]
        b1[cc] = s1 / A[cc, cc]
        b2[cc] = s2 / A[cc, cc]
    return True


def _bfgs_update_py(Hi, B, gl, sB, sg, yq):  # pragma: no cover - compiled by numba
    """BFGS update of ``Hi``, the inverse of a negative definite approximation of the Hessian of
    l, from the secant pair ``s = B - sB``, ``y = -(gl - sg)`` (the scores at two points; ``y .
    s >= 0`` as l is concave): with ``Hp = -Hi``, ``q = Hp y`` and ``rho = 1 / y . s``,
    ``Hp <- Hp - rho (s q' + q s') + (rho^2 y . q + rho) s s'``, after which ``Hp y = s``.
    Returns ``rho`` and the factor ``rho^2 y . q + rho`` (the update is ``Hi += rho (s q' + q
    s') - f s s'``; ``yq`` (3 d, work space) holds y, q and s), or ``rho = 0`` (skipped) when
    ``y . s`` is not clearly positive."""
    d = B.shape[0]
    sy = 0.0
    ss = 0.0
    yy = 0.0
    for r in range(d):
        sr = B[r] - sB[r]
        yr = sg[r] - gl[r]
        yq[r] = yr
        yq[2 * d + r] = sr
        sy += sr * yr
        ss += sr * sr
        yy += yr * yr
    if not sy > 1e-10 * np.sqrt(ss * yy) or not sy > 0.0:
        return 0.0, 0.0
    yHy = 0.0
    for r in range(d):
        t = 0.0
        for r2 in range(d):
            t -= Hi[r, r2] * yq[r2]
        yq[d + r] = t  # q = Hp y
        yHy += yq[r] * t
    rho = 1.0 / sy
    f = rho * rho * yHy + rho
    q = yq[d:2 * d]
    sv = yq[2 * d:]
    for r in range(d):
        a1 = rho * sv[r]
        a2 = rho * q[r] - f * sv[r]
        row = Hi[r]
        for r2 in range(d):
            row[r2] += a1 * q[r2] + a2 * sv[r2]
    return rho, f


_neg_inverse = _neg_inverse_py
_small_solve = _small_solve_py
_bfgs_update = _bfgs_update_py

#: with a reused Hessian, a Newton decrement that falls by less than this factor from one pass
#: to the next (a linear rate worse than about 0.3) makes the next pass recompute the
#: information (see the kernel's docstring, *Reused Hessian*)
REUSE_RATIO = 0.1
#: calibration rows per block of the score-only passes (measured at n = 5000, K = 10, p = 11:
#: 0.149 ms a pass in blocks of 64, 0.111 in 128, 0.093 in 256, 0.097 in 512)
SCORE_BLOCK = 256


def _kernel_py(Xc, Tt, K, xs, ws, us, Bs, chain, mle, B_hat, u0s, tan0s, l_hat, tol, max_iter, tail,
               Hi0, reuse, out_l, out_lam, ok, passes):  # pragma: no cover
    """KKT Newton for each problem b (see the module docstring); compiled by numba.

    ``Xc`` holds the design column by column (padded, :func:`~evstat.likelihood.linear_profile.
    _columns`), ``Tt`` the targets class by class (K, n); every Newton iteration is one pass
    :func:`_msweep_py`. ``chain[b]``: problem b continues the path of problem b - 1 (same row
    and weights, a neighbouring u): it starts from the previous solution moved along that
    solution's tangent ``dB/du`` (the KKT system with right-hand side (0, 1)), plus a quadratic
    term through the solution before it when the step is at most 4 of the last spacings (as
    the two-class kernel), retracted. Otherwise from ``Bs[b]``; with ``mle`` a new path takes
    the MLE as its first solution (``B_hat`` at ``u0s[b] = g(B_hat)``, tangent ``tan0s[b]``,
    the Wald direction), so that ``Bs[b]`` should be the Wald start, a node at ``u0s[b]`` is
    the MLE itself (``l_hat``, slope 0, no pass) and the path's second node already has a
    quadratic term. ``passes[0]`` counts the passes over the calibration rows, ``passes[1]``
    those that computed the information.

    *Reused Hessian* (``reuse``; issue 36, K = 10). A pass that computes the information costs
    ``O(n K^2 p^2 / 2)``, one that computes the score alone ``O(n K p)`` (p = 11, K = 10: some
    30 times less). With ``reuse`` the Newton steps use the inverse ``Hi`` of the last Hessian
    of l computed (``Hi0 = -cov``, exact at the MLE, for a path from the MLE; recomputed on a
    path's first pass from another start) and passes compute the score only, until the
    decrement falls by less than ``REUSE_RATIO`` from one pass to the next, a step fails to
    raise l or gives no ascent direction: then the next pass recomputes the information (and
    that iteration is the exact Newton step). The KKT system keeps its exact constraint part:
    ``g``'s Hessian in B is ``U A U'`` with ``U = I_{K-1} (x) x`` (d, K - 1) and its gradient
    ``U c``, so with ``F = Hi U`` and ``S = U' F`` (once per row and Hessian) the Woodbury
    identity gives ``(H - lambda U A U')^-1 = Hi + F M lambda A F'``, ``M = (I - lambda A S)^-1``
    ((K - 1) x (K - 1)), and the step ``s = y - nu z`` with ``y = (..)^-1 (-grad l)``,
    ``z = (..)^-1 grad g = F M c``, ``nu = grad g . y / grad g . z`` (the tangent ``z / grad g
    . z``). The fixed point is the same KKT point; the convergence test is the same decrement
    ``grad l . s`` (in the metric of the reused Hessian: the value ``ll + dec / 2`` is off by
    ``eps dec / 2`` for a Hessian off by a factor ``1 + eps``, below ``tol`` at acceptance).
    """
    P, n = Xc.shape
    p = B_hat.shape[1]
    d = (K - 1) * p
    q = d + 1
    npair = (K - 1) * K // 2
    blk = _sweep_block(n, K)
    E = np.empty((K, blk))
    Z = np.empty((K, blk))
    Dv = np.empty(blk)
    scratch = np.empty(blk)
    MX = np.empty(blk)
    TOT = np.empty(blk)
    R = np.empty((K - 1, blk))
    W = np.empty((npair, blk))
    gP = np.empty((K - 1, P))
    HP = np.empty((npair, P, P))
    eta = np.empty(K)
    av = np.empty(K)
    bv = np.empty(K)
    gl = np.empty(d)
    H = np.empty((d, d))
    Kmat = np.empty((q, q))
    sol = np.empty(q)
    tan = np.empty(q)
    step = np.empty(d)
    prev_B = np.empty(d)
    prev_step = np.empty(d)
    last_B = np.empty(d)
    older_B = np.empty(d)
    oldest_B = np.empty(d)
    oldest_u = 0.0
    last_tan = np.zeros(d)
    # the reused Hessian's inverse, F = Hi U and S = U' F (docstring, *Reused Hessian*)
    Km1 = K - 1
    Hi = np.empty((d, d))
    Lw = np.empty((d, d))
    F = np.empty((d, Km1))
    S = np.empty((Km1, Km1))
    Am = np.empty((Km1, Km1))
    Mw = np.empty((Km1, Km1))
    cv = np.empty(Km1)
    fy = np.empty(Km1)
    v1 = np.empty(Km1)
    v2 = np.empty(Km1)
    y0 = np.empty(d)
    yv = np.empty(d)
    zv = np.empty(d)
    sB = np.empty(d)
    sg = np.empty(d)
    yq = np.empty(3 * d)
    # the score-only passes' work arrays, in larger blocks (no information tiles to keep in cache)
    blk2 = max(1, min(n, SCORE_BLOCK))
    E2 = np.empty((K, blk2))
    Z2 = np.empty((K, blk2))
    D2 = np.empty(blk2)
    scratch2 = np.empty(blk2)
    MX2 = np.empty(blk2)
    TOT2 = np.empty(blk2)
    R2 = np.empty((K - 1, blk2))
    W2 = np.empty((npair, 1))
    hi_ok = False
    f_ok = False
    stale = True
    has_prev = False
    links = 0
    last_u = 0.0
    older_u = 0.0
    last_lam = 0.0
    for b in range(xs.shape[0]):
        x = xs[b]
        w = ws[b]
        u = us[b]
        Bb = Bs[b]
        xx = 0.0
        for j in range(p):
            xx += x[j] * x[j]
        if not chain[b]:
            links = 0
            f_ok = False
            stale = True
            has_prev = False
            if mle and reuse:  # the Hessian at the MLE: -cov's inverse; the score there is 0
                for i in range(d):
                    for j in range(d):
                        Hi[i, j] = Hi0[i, j]
                for j in range(d):
                    sB[j] = B_hat[j // p, j % p]
                    sg[j] = 0.0
                hi_ok = True
                stale = False
                has_prev = True
            if mle:  # a new path: the MLE is its first solution
                for j in range(d):
                    last_B[j] = B_hat[j // p, j % p]
                    last_tan[j] = tan0s[b, j]
                last_u = u0s[b]
                last_lam = 0.0
                links = 1
                if u == last_u:  # the node is the MLE
                    for j in range(d):
                        Bb[j] = last_B[j]
                    out_l[b] = l_hat
                    out_lam[b] = 0.0
                    ok[b] = True
                    continue
        warm = links > 0
        if warm:
            du = u - last_u
            for j in range(d):
                Bb[j] = last_B[j] + du * last_tan[j]
            d2 = older_u - last_u
            d3 = oldest_u - last_u
            if reuse and links > 2 and abs(du) <= 4.0 * abs(d2) and d2 != 0.0 and d3 != d2 and d3 != 0.0:
                # with reused Hessians the tangents are approximate (their error times du
                # dominated the predictor's): the quadratic through the last three solutions
                # instead (Lagrange weights at u of the nodes last, older, oldest)
                l1 = (du - d2) * (du - d3) / (d2 * d3)
                l2 = du * (du - d3) / (d2 * (d2 - d3))
                l3 = du * (du - d2) / (d3 * (d3 - d2))
                for j in range(d):
                    Bb[j] = l1 * last_B[j] + l2 * older_B[j] + l3 * oldest_B[j]
            elif links > 1:
                # a quadratic term within a few spacings of the last two solutions only: its
                # rounding error grows like (du / d2)^2
                if abs(du) <= 4.0 * abs(d2) and d2 != 0.0:
                    for j in range(d):
                        c2 = (older_B[j] - last_B[j] - d2 * last_tan[j]) / (d2 * d2)
                        Bb[j] += c2 * du * du
        cont = links
        links = 0
        if not _retract(Bb, x, xx, w, u, K, p, eta):
            if not warm:
                continue
            for j in range(d):  # the predictor went too far: the previous solution
                Bb[j] = last_B[j]
            if not _retract(Bb, x, xx, w, u, K, p, eta):
                continue
        lam = last_lam if warm else 0.0
        use_lag = warm
        prev_l = -np.inf
        size = 1.0
        newton = 0
        last_dec = -1.0
        for _ in range(max_iter + 80):
            if newton >= max_iter:
                break
            full = not (reuse and hi_ok and not stale)
            if full:
                ll = _msweep(Xc, Tt, K, Bb, E, Z, Dv, scratch, MX, TOT, R, W, gP, HP, True)
            else:
                ll = _msweep(Xc, Tt, K, Bb, E2, Z2, D2, scratch2, MX2, TOT2, R2, W2, gP, HP, False)
            passes[0] += 1
            if full:
                passes[1] += 1
            if ll < prev_l - 1e-12 * (1.0 + abs(prev_l)):
                stale = True
                size *= 0.5
                if size < 1e-12:
                    for j in range(d):
                        Bb[j] = prev_B[j]
                    out_l[b] = prev_l
                    ok[b] = True
                    break
                while True:  # a point whose retraction fails counts as a failed step too
                    for j in range(d):
                        Bb[j] = prev_B[j] + size * prev_step[j]
                    if _retract(Bb, x, xx, w, u, K, p, eta) or size < 1e-12:
                        break
                    size *= 0.5
                if size < 1e-12:
                    for j in range(d):
                        Bb[j] = prev_B[j]
                    out_l[b] = prev_l
                    ok[b] = True
                    break
                continue
            # the score and the Hessian of l (minus the information blocks) at full size
            for k in range(K - 1):
                for j in range(p):
                    gl[k * p + j] = gP[k, j]
            if full:
                c = 0
                for k in range(K - 1):
                    for k2 in range(k, K - 1):
                        for j in range(p):
                            for j2 in range(p):
                                v = -HP[c, j, j2]
                                H[k * p + j, k2 * p + j2] = v
                                H[k2 * p + j2, k * p + j] = v
                        c += 1
                if reuse:
                    hi_ok = _neg_inverse(H, Hi, Lw)
                    f_ok = False
                    stale = False
            elif has_prev:  # the secant pair of the last two passes updates the reused Hessian
                rho, fb = _bfgs_update(Hi, Bb, gl, sB, sg, yq)
                if rho > 0.0 and f_ok:  # F = Hi U and S = U' F by the same rank-2 update
                    for k in range(Km1):
                        uq = 0.0
                        usv = 0.0
                        for j in range(p):
                            uq += yq[d + k * p + j] * x[j]
                            usv += yq[2 * d + k * p + j] * x[j]
                        v1[k] = uq
                        v2[k] = usv
                    for r in range(d):
                        a1 = rho * yq[2 * d + r]
                        a2 = rho * yq[d + r] - fb * yq[2 * d + r]
                        for k in range(Km1):
                            F[r, k] += a1 * v1[k] + a2 * v2[k]
                    for k in range(Km1):
                        a1 = rho * v2[k]
                        a2 = rho * v1[k] - fb * v2[k]
                        for k2 in range(Km1):
                            S[k, k2] += a1 * v1[k2] + a2 * v2[k2]
            if reuse:
                has_prev = True
                for r in range(d):
                    sB[r] = Bb[r]
                    sg[r] = gl[r]
            # g's gradient and Hessian in eta at the current (feasible) point
            for k in range(1, K):
                s = 0.0
                for j in range(p):
                    s += Bb[(k - 1) * p + j] * x[j]
                eta[k] = s
            eta[0] = 0.0
            m1 = -np.inf
            m2 = -np.inf
            for k in range(K):
                if w[k] > 0.0 and eta[k] > m1:
                    m1 = eta[k]
                if w[k] < 1.0 and eta[k] > m2:
                    m2 = eta[k]
            N = 0.0
            M = 0.0
            for k in range(K):
                av[k] = 0.0
                bv[k] = 0.0
                if w[k] > 0.0:
                    av[k] = w[k] * np.exp(eta[k] - m1)
                    N += av[k]
                if w[k] < 1.0:
                    bv[k] = (1.0 - w[k]) * np.exp(eta[k] - m2)
                    M += bv[k]
            for k in range(K):
                av[k] /= N
                bv[k] /= M
            dec = -1.0
            nu = 0.0
            if not full:
                if not f_ok:  # F = Hi U, S = U' F for this row and Hessian
                    for r in range(d):
                        for k in range(Km1):
                            s = 0.0
                            for j in range(p):
                                s += Hi[r, k * p + j] * x[j]
                            F[r, k] = s
                    for k in range(Km1):
                        for k2 in range(Km1):
                            s = 0.0
                            for j in range(p):
                                s += x[j] * F[k * p + j, k2]
                            S[k, k2] = s
                    f_ok = True
                for k in range(1, K):
                    cv[k - 1] = av[k] - bv[k]
                    for k2 in range(1, K):
                        Am[k - 1, k2 - 1] = (av[k] * ((1.0 if k == k2 else 0.0) - av[k2])
                                             - bv[k] * ((1.0 if k == k2 else 0.0) - bv[k2]))
                for r in range(d):
                    s = 0.0
                    for r2 in range(d):
                        s -= Hi[r, r2] * gl[r2]
                    y0[r] = s
                for k in range(Km1):
                    s = 0.0
                    for j in range(p):
                        s += x[j] * y0[k * p + j]
                    fy[k] = s
                for attempt in range(2):
                    lag = use_lag and attempt == 0
                    lm = lam if lag else 0.0
                    # (I - lm A S) [v1 v2] = [lm A fy, c]
                    for k in range(Km1):
                        s = 0.0
                        for k2 in range(Km1):
                            s += Am[k, k2] * fy[k2]
                            t2 = 0.0
                            for k3 in range(Km1):
                                t2 += Am[k, k3] * S[k3, k2]
                            Mw[k, k2] = (1.0 if k == k2 else 0.0) - lm * t2
                        v1[k] = lm * s
                        v2[k] = cv[k]
                    if _small_solve(Mw, v1, v2):
                        gy = 0.0
                        gz = 0.0
                        for r in range(d):
                            s = y0[r]
                            t2 = 0.0
                            for k in range(Km1):
                                s += F[r, k] * v1[k]
                                t2 += F[r, k] * v2[k]
                            yv[r] = s
                            zv[r] = t2
                            gr = cv[r // p] * x[r % p]  # grad g = U c
                            gy += gr * s
                            gz += gr * t2
                        if gz != 0.0 and np.isfinite(gz):
                            nu = gy / gz
                            dec = 0.0
                            for r in range(d):
                                step[r] = yv[r] - nu * zv[r]
                                tan[r] = zv[r] / gz
                                dec += gl[r] * step[r]
                    if dec > 0.0 and np.isfinite(dec):
                        break
                    if not lag:
                        break
                if not np.isfinite(dec) or dec < -tol:
                    stale = True  # the reused Hessian gave no ascent direction: recompute it
                    continue
                if last_dec > 0.0 and dec > REUSE_RATIO * last_dec:
                    stale = True
            for attempt in range(2 if full else 0):
                lag = use_lag and attempt == 0
                for r in range(d):
                    for s2 in range(d):
                        Kmat[r, s2] = H[r, s2]
                if lag:
                    for k in range(1, K):
                        for k2 in range(1, K):
                            hg = (av[k] * ((1.0 if k == k2 else 0.0) - av[k2])
                                  - bv[k] * ((1.0 if k == k2 else 0.0) - bv[k2]))
                            f = -lam * hg
                            if f != 0.0:
                                for j in range(p):
                                    for j2 in range(p):
                                        Kmat[(k - 1) * p + j, (k2 - 1) * p + j2] += f * x[j] * x[j2]
                for k in range(1, K):
                    for j in range(p):
                        v = (av[k] - bv[k]) * x[j]
                        Kmat[(k - 1) * p + j, d] = v
                        Kmat[d, (k - 1) * p + j] = v
                Kmat[d, d] = 0.0
                for r in range(d):
                    sol[r] = -gl[r]
                    tan[r] = 0.0
                sol[d] = 0.0
                tan[d] = 1.0
                # Gaussian elimination with partial pivoting, two right-hand sides
                singular = False
                for cc in range(q):
                    piv = cc
                    best = abs(Kmat[cc, cc])
                    for rr in range(cc + 1, q):
                        if abs(Kmat[rr, cc]) > best:
                            best = abs(Kmat[rr, cc])
                            piv = rr
                    if not best > 0.0:
                        singular = True
                        break
                    if piv != cc:
                        for k in range(q):
                            tmp = Kmat[cc, k]
                            Kmat[cc, k] = Kmat[piv, k]
                            Kmat[piv, k] = tmp
                        tmp = sol[cc]
                        sol[cc] = sol[piv]
                        sol[piv] = tmp
                        tmp = tan[cc]
                        tan[cc] = tan[piv]
                        tan[piv] = tmp
                    for rr in range(cc + 1, q):
                        f = Kmat[rr, cc] / Kmat[cc, cc]
                        if f != 0.0:
                            for k in range(cc, q):
                                Kmat[rr, k] -= f * Kmat[cc, k]
                            sol[rr] -= f * sol[cc]
                            tan[rr] -= f * tan[cc]
                if singular:
                    dec = -1.0
                else:
                    for cc in range(q - 1, -1, -1):
                        s = sol[cc]
                        t2 = tan[cc]
                        for k in range(cc + 1, q):
                            s -= Kmat[cc, k] * sol[k]
                            t2 -= Kmat[cc, k] * tan[k]
                        sol[cc] = s / Kmat[cc, cc]
                        tan[cc] = t2 / Kmat[cc, cc]
                    # H_L s + grad g nu = -grad l, grad g . s = 0: with H_L negative definite on
                    # the tangent space, grad l . s = -(grad l + nu grad g)' H_L^-1 (...) > 0
                    dec = 0.0
                    for r in range(d):
                        step[r] = sol[r]
                        dec += gl[r] * step[r]
                    nu = sol[d]
                if dec > 0.0 and np.isfinite(dec):
                    break
                if not lag:
                    break
            if not np.isfinite(dec) or dec < -tol:
                break  # no ascent direction: not converged (the caller falls back)
            lam = -nu  # grad l = lambda grad g at the solution, so nu = -lambda
            last_dec = dec
            use_lag = True
            newton += 1
            if dec <= tol or (tail and _tail_converged(dec, ll, l_hat, tol)):  # (-tol .. 0: rounding)
                # the profile never exceeds l_hat (a reused Hessian's gain estimate can, by eps dec / 2)
                out_l[b] = min(ll + 0.5 * max(dec, 0.0), l_hat)
                out_lam[b] = lam
                ok[b] = True
                # the path's next prediction starts from the final Newton step (retracted): the
                # point of the last pass is only within the decrement of the maximiser, and
                # predictions built on it alternated between one and two passes per node
                for j in range(d):
                    prev_B[j] = Bb[j]
                    Bb[j] += step[j]
                if not _retract(Bb, x, xx, w, u, K, p, eta):
                    for j in range(d):
                        Bb[j] = prev_B[j]
                links = cont + 1
                oldest_u = older_u
                older_u = last_u
                last_u = u
                last_lam = lam
                for j in range(d):
                    oldest_B[j] = older_B[j]
                    older_B[j] = last_B[j]
                    last_B[j] = Bb[j]
                    last_tan[j] = tan[j]
                break
            for j in range(d):
                prev_B[j] = Bb[j]
                prev_step[j] = step[j]
            prev_l = ll
            size = 1.0
            while True:  # halve a step whose retraction fails (the point went too far)
                for j in range(d):
                    Bb[j] = prev_B[j] + size * prev_step[j]
                if _retract(Bb, x, xx, w, u, K, p, eta) or size < 1e-12:
                    break
                size *= 0.5
            if size < 1e-12:
                break


_KERNEL: Callable[..., Any] | None = None
# bound by _kernel() on first use (the compiled exponential and tiles are the two-class ones)
_retract: Callable[..., Any]
_msweep: Callable[..., Any]
_sweep_block: Callable[..., Any] = _sweep_block_py
_exp_neg_abs: Callable[..., Any]
_tile_diag: Callable[..., Any]
_tile_off: Callable[..., Any]


def _kernel() -> Any:
    """The compiled Newton kernel (numba, compiled on first use and cached on disk); the sweep
    reuses the two-class kernel's compiled exponential and tile accumulators."""
    global _KERNEL, _retract, _msweep, _sweep_block, _exp_neg_abs, _tile_diag, _tile_off, _tail_converged
    global _neg_inverse, _small_solve, _bfgs_update
    if _KERNEL is None:
        import numba

        from evstat.likelihood import linear_profile as lpm

        lpm._kernel()
        _exp_neg_abs, _tile_diag, _tile_off = lpm._exp_neg_abs, lpm._tile_diag, lpm._tile_off
        _retract = numba.njit(cache=True)(_retract_py)
        _tail_converged = numba.njit(cache=True)(_tail_converged_py)
        _neg_inverse = numba.njit(cache=True)(_neg_inverse_py)
        _small_solve = numba.njit(cache=True)(_small_solve_py)
        _bfgs_update = numba.njit(cache=True)(_bfgs_update_py)
        _sweep_block = numba.njit(cache=True)(_sweep_block_py)
        # the sums over the rows may be reordered (SIMD reductions) and use numpy's error
        # model (no ZeroDivisionError branch per division), as the two-class sweep
        _msweep = numba.njit(cache=True, error_model="numpy", fastmath={"reassoc", "contract"})(_msweep_py)
        # no numba threading layer (fork safety of `evstat predict --jobs`: see
        # linear_profile._kernel); nogil, so that functional_profile runs parts of a batch in
        # Python threads that live only during the call (_kernels.run_split)
        _KERNEL = numba.njit(cache=True, nogil=True)(_kernel_py)
    return _KERNEL


# ---------------------------------------------------------------------------- numpy path
#: problems x calibration rows per block of the numpy path (its temporaries are a few arrays of
#: this many doubles times K - 1)
NUMPY_BLOCK = 2**20


def _retract_numpy(B: NDArray, x: NDArray, w: NDArray, u: NDArray, K: int, p: int) -> NDArray[np.bool_]:
    """:func:`_retract_py` for a batch (B (m, d) moved in place): the same safeguarded Newton
    iteration on the scalar ``c``, all problems at once; returns which succeeded."""
    m = B.shape[0]
    ok = np.zeros(m, dtype=bool)
    if m == 0:
        return ok
    eta = np.zeros((m, K))
    eta[:, 1:] = np.einsum("mkj,mj->mk", B.reshape(m, K - 1, p), x)
    delta = 2.0 * (w - w[:, :1])
    pos, below = w > 0.0, w < 1.0
    c = np.zeros(m)
    lo, hi = np.full(m, -np.inf), np.full(m, np.inf)
    live = np.ones(m, dtype=bool)
    with np.errstate(all="ignore"):
        for _ in range(200):
            idx = np.flatnonzero(live)
            if not idx.size:
                break
            e = eta[idx] + c[idx, None] * delta[idx]
            m1 = np.where(pos[idx], e, -np.inf).max(axis=1)
            m2 = np.where(below[idx], e, -np.inf).max(axis=1)
            ta = np.where(pos[idx], w[idx] * np.exp(e - m1[:, None]), 0.0)
            tb = np.where(below[idx], (1.0 - w[idx]) * np.exp(e - m2[:, None]), 0.0)
            N, M = ta.sum(axis=1), tb.sum(axis=1)
            dN, dM = (ta * delta[idx]).sum(axis=1), (tb * delta[idx]).sum(axis=1)
            bad = ~((N > 0.0) & (M > 0.0) & np.isfinite(m1) & np.isfinite(m2))
            gv = m1 + np.log(N) - m2 - np.log(M) - u[idx]
            dg = dN / N - dM / M
            conv = ~bad & (np.abs(gv) <= 1e-13 * (1.0 + np.abs(u[idx])))
            ci = c[idx]
            lo_i = np.where(gv > 0.0, lo[idx], ci)
            hi_i = np.where(gv > 0.0, ci, hi[idx])
            nc = np.where(dg > 0.0, ci - gv / dg, np.nan)
            out = ~((nc > lo_i) & (nc < hi_i)) | ~np.isfinite(nc)
            fin_lo, fin_hi = np.isfinite(lo_i), np.isfinite(hi_i)
            alt = np.where(fin_lo & fin_hi, 0.5 * (lo_i + hi_i),
                           np.where(fin_lo, lo_i + np.maximum(1.0, 2.0 * np.abs(lo_i)),
                                    hi_i - np.maximum(1.0, 2.0 * np.abs(hi_i))))
            nc = np.where(out, alt, nc)
            bad |= ~conv & ~(np.abs(nc) < 1e100)
            tiny = ~conv & ~bad & (np.abs(nc - ci) <= 1e-14 * (1.0 + np.abs(ci)))
            step = ~conv & ~bad
            c[idx] = np.where(step, nc, ci)
            lo[idx], hi[idx] = lo_i, hi_i
            done = conv | tiny
            ok[idx[done]] = True
            live[idx[done | bad]] = False
    xx = np.einsum("mj,mj->m", x, x)
    f = c[:, None] * delta[:, 1:] / xx[:, None]  # (m, K - 1)
    B += np.where(ok[:, None], (f[:, :, None] * x[:, None, :]).reshape(m, -1), 0.0)
    return ok


def _pass_numpy(X: NDArray, T: NDArray, B: NDArray, K: int) -> tuple[NDArray, NDArray, NDArray]:
    """:func:`_msweep_py` for a batch of coefficient vectors B (m, d): the log-likelihood (m,),
    the score (m, d) and the Hessian of l (m, d, d), by numpy in blocks of problems."""
    n, p = X.shape
    m = B.shape[0]
    d = (K - 1) * p
    ll, g, H = np.empty(m), np.empty((m, d)), np.empty((m, d, d))
    step = max(1, NUMPY_BLOCK // max(n * (K - 1), 1))
    for s in range(0, m, step):
        sl = slice(s, min(s + step, m))
        eta = np.einsum("nj,mkj->mnk", X, B[sl].reshape(-1, K - 1, p))  # (b, n, K - 1)
        mx = np.maximum(eta.max(axis=2), 0.0)
        z = np.exp(eta - mx[:, :, None])
        tot = np.exp(-mx) + z.sum(axis=2)
        ll[sl] = np.einsum("mnk,nk->m", eta, T[:, 1:]) - mx.sum(axis=1) - np.log(tot).sum(axis=1)
        th = z / tot[:, :, None]
        g[sl] = np.einsum("mnk,nj->mkj", T[None, :, 1:] - th, X).reshape(-1, d)
        for a in range(K - 1):
            for b in range(a, K - 1):
                wgt = th[:, :, a] * ((1.0 if a == b else 0.0) - th[:, :, b])  # (b, n)
                blk = -np.matmul((wgt[:, :, None] * X[None]).transpose(0, 2, 1), X)
                H[sl, a * p:(a + 1) * p, b * p:(b + 1) * p] = blk
                H[sl, b * p:(b + 1) * p, a * p:(a + 1) * p] = blk.transpose(0, 2, 1)
    return ll, g, H


def _profile_numpy(lik: MultinomialLikelihood, xs: NDArray, ws: NDArray, us: NDArray, Bs: NDArray, mle: bool,
                   u0s: NDArray, tol: float, max_iter: int, tail: bool = False) -> tuple[NDArray, NDArray, NDArray]:
    """The numpy path of the kernel (:func:`_kernel_py`), used while the kernel is not compiled
    yet (:mod:`evstat.likelihood._kernels`): the same KKT Newton iteration from the same start
    (``Bs``, the Wald start, retracted), the same pass (log-likelihood, score and information,
    here as arrays of problems x calibration rows), the same step halving, Lagrangian term and
    its fallback to ``H_l`` alone, the same convergence test with the predicted gain added, all
    problems at once; no continuation (each problem from its own start), so one pass more per
    node, vectorised. With ``mle``, a node at ``u0s`` (``g(B_hat)``) is the MLE itself, as in
    the kernel. The values agree with the kernel's to the Newton tolerance (tested to 1e-9 at
    ``tol = 1e-10``: ``tests/multiclass/test_evmultinom_kernels.py``); a problem without
    convergence is reported unconverged (the caller falls back as for the kernel).

    Returns ``loglik``, ``lambda`` and ``ok`` (m,) as the kernel fills them, and writes the
    solutions into ``Bs`` (NaN where not converged), as the kernel does.
    """
    K, p = lik.K, lik.p
    d = (K - 1) * p
    X = np.asarray(lik.X, dtype=float)
    T = np.asarray(lik.T, dtype=float)
    m = us.size
    out_l, out_lam, ok = np.full(m, np.nan), np.zeros(m), np.zeros(m, dtype=bool)
    B = np.array(Bs, dtype=float).reshape(m, d)
    live = np.ones(m, dtype=bool)
    if mle:
        at = us == u0s
        B[at] = lik.B_hat.reshape(1, -1)
        out_l[at], ok[at], live[at] = float(lik.loglik_hat), True, False
    idx = np.flatnonzero(live)
    Bt = B[idx]
    live[idx[~_retract_numpy(Bt, xs[idx], ws[idx], us[idx], K, p)]] = False
    B[idx] = Bt
    prev_B, prev_step = B.copy(), np.zeros((m, d))
    prev_l, size, lam = np.full(m, -np.inf), np.ones(m), np.zeros(m)
    use_lag, newton = np.zeros(m, dtype=bool), np.zeros(m, dtype=int)
    eye = np.eye(K - 1)

    def retract_from(rows: NDArray, base: NDArray, direction: NDArray) -> NDArray[np.bool_]:
        """B = base + size * direction retracted, halving size while the retraction fails; returns
        the rows whose size fell below 1e-12."""
        todo = rows.copy()
        while todo.size:
            Bt = base[todo] + size[todo, None] * direction[todo]
            good = _retract_numpy(Bt, xs[todo], ws[todo], us[todo], K, p)
            B[todo] = Bt
            stop = good | (size[todo] < 1e-12)
            todo = todo[~stop]
            size[todo] *= 0.5
        return rows[size[rows] < 1e-12]

    for _ in range(max_iter + 80):
        live &= newton < max_iter
        act = np.flatnonzero(live)
        if not act.size:
            break
        ll, gl, Hl = _pass_numpy(X, T, B[act], K)
        worse = ll < prev_l[act] - 1e-12 * (1.0 + np.abs(prev_l[act]))
        if worse.any():  # halve the last step; converged at the previous point when it vanishes
            rows = act[worse]
            size[rows] *= 0.5
            small = rows[size[rows] < 1e-12]
            rows = rows[size[rows] >= 1e-12]
            small = np.concatenate([small, retract_from(rows, prev_B, prev_step)])
            B[small], out_l[small], ok[small], live[small] = prev_B[small], prev_l[small], True, False
        keep = ~worse
        act, ll, gl, Hl = act[keep], ll[keep], gl[keep], Hl[keep]
        if not act.size:
            continue
        x, w = xs[act], ws[act]
        eta = np.zeros((act.size, K))
        eta[:, 1:] = np.einsum("mkj,mj->mk", B[act].reshape(-1, K - 1, p), x)
        with np.errstate(divide="ignore"):
            la = eta + np.log(w)
            lb = eta + np.log1p(-w)
        av = np.exp(la - _logsumexp_rows(la))
        bv = np.exp(lb - _logsumexp_rows(lb))
        G = ((av - bv)[:, 1:, None] * x[:, None, :]).reshape(-1, d)
        Hg = (av[:, 1:, None] * (eye - av[:, None, 1:]) - bv[:, 1:, None] * (eye - bv[:, None, 1:]))
        xxT = x[:, :, None] * x[:, None, :]
        def kkt(rows: NDArray, lag: bool) -> tuple[NDArray, NDArray]:
            """Newton step and multiplier (rows, d + 1) and decrement of the KKT system, with the
            Lagrangian term ``-lambda H_g`` or with ``H_l`` alone."""
            Km = np.zeros((rows.size, d + 1, d + 1))
            Km[:, :d, :d] = Hl[rows]
            if lag:
                f = -lam[act[rows]]
                Km[:, :d, :d] += ((f[:, None, None] * Hg[rows])[:, :, None, :, None]
                                  * xxT[rows][:, None, :, None, :]).reshape(-1, d, d)
            Km[:, :d, d] = G[rows]
            Km[:, d, :d] = G[rows]
            rhs = np.concatenate([-gl[rows], np.zeros((rows.size, 1))], axis=1)
            s_r = np.full((rows.size, d + 1), np.nan)
            with np.errstate(all="ignore"):
                try:
                    s_r = np.linalg.solve(Km, rhs[:, :, None])[:, :, 0]
                except np.linalg.LinAlgError:  # a singular system among them: one by one
                    for i in range(rows.size):
                        try:
                            s_r[i] = np.linalg.solve(Km[i], rhs[i])
                        except np.linalg.LinAlgError:
                            pass
            return s_r, np.einsum("md,md->m", gl[rows], s_r[:, :d])

        sol, dec = np.empty((act.size, d + 1)), np.empty(act.size)
        lag0 = use_lag[act]
        for flag in (True, False):
            rows = np.flatnonzero(lag0 == flag)
            if rows.size:
                sol[rows], dec[rows] = kkt(rows, flag)
        retry = np.flatnonzero(lag0 & ~((dec > 0.0) & np.isfinite(dec)))  # no ascent: H_l alone
        if retry.size:
            sol[retry], dec[retry] = kkt(retry, False)
        fail = ~np.isfinite(dec) | (dec < -tol)
        live[act[fail]] = False
        good = ~fail
        act, dec, sol, ll = act[good], dec[good], sol[good], ll[good]
        lam[act] = -sol[:, d]
        use_lag[act] = True
        newton[act] += 1
        conv = (dec <= tol) | (tail & _tail_converged_py(dec, ll, float(lik.loglik_hat), tol))
        done = act[conv]
        out_l[done] = ll[conv] + 0.5 * np.maximum(dec[conv], 0.0)
        out_lam[done] = lam[done]
        ok[done], live[done] = True, False
        go = act[~conv]
        prev_B[go], prev_step[go], prev_l[go], size[go] = B[go], sol[~conv, :d], ll[~conv], 1.0
        stalled = retract_from(go, prev_B, prev_step)
        live[stalled] = False
    B[~ok] = np.nan
    Bs[...] = B.reshape(Bs.shape)
    return out_l, out_lam, ok


def _warm_kernels() -> None:
    """Compile the kernel (into numba's cache) on a small problem of the types the library
    passes: what ``python -m evstat.likelihood._kernels`` runs once per installation."""
    rng = np.random.default_rng(0)
    z = np.arange(60) % 3
    X = np.column_stack([np.ones(60), rng.normal(size=60) + z])
    lik = multinomial_mle(X, z, 3, targets="platt")
    _kernel()
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
        kernel = _kernels.use_kernel(u.size * lik.n * (lik.K - 1), loaded=_KERNEL is not None)
    kern = _kernel() if kernel else None
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


# ---------------------------------------------------------------------------- quadrature
def _wald_u(lik: MultinomialLikelihood, x: NDArray, w: NDArray) -> tuple[NDArray, NDArray]:
    m = x.shape[0]
    Bh = np.ascontiguousarray(np.broadcast_to(lik.B_hat, (m, lik.K - 1, lik.p)))
    g0, G = _grad_g(Bh, x, w)
    sig = np.sqrt(np.maximum(np.einsum("md,de,me->m", G, lik.cov, G), 1e-300))
    return g0, sig


def _side_ends(u_hat: NDArray, sigma: NDArray, side: int, width: NDArray) -> tuple[NDArray, NDArray]:
    """One side's interval: ``width`` Wald scales of the integrand around its Wald mode (evlogit's
    rule), from ``u_hat`` outwards, clamped to ``|u| <= U_MAX``."""
    from evstat.likelihood.predictive import _side_interval

    lo, hi = _side_interval(u_hat, sigma, side, width)
    # the near end too: beyond |u| = U_MAX the integrand is below exp(-|u|), so the part of a
    # side between U_MAX and a far-out u_hat (|u_hat| up to the row's scale) is below
    # exp(-U_MAX) = 3e-20 (nodes there were the hang of issue 16: unreachable constraints)
    uc = np.clip(u_hat, -U_MAX, U_MAX)
    if side < 0:
        return np.minimum(np.maximum(lo, -U_MAX), uc), uc
    return uc, np.maximum(np.minimum(hi, U_MAX), uc)


def _panels(
    lik: MultinomialLikelihood, x: NDArray, w: NDArray, a: NDArray, b: NDArray, side: int, acc: float,
    profile: Any, max_depth: int = 40, ids: NDArray | None = None,
    seen: _Seen | None = None,
) -> tuple[NDArray, NDArray]:
    """Adaptive Clenshaw-Curtis integral of pl_w(expit u) t (1 - t) over [a, b] for every row
    (:func:`evstat.likelihood.quadrature.adaptive_clenshaw_curtis`, the integrator shared with
    evlogit), and the bound on the mass beyond the far end (``a`` for side -1, ``b`` for side
    +1; module docstring). The nodes of a panel are solved as a chain from the end nearest
    ``u_hat``.

    *Monotone envelope* (K >= 3). Every value computed is the log-likelihood of a feasible
    point, a lower bound of the profile at its node; and on this side of the mode ``u_hat`` the
    profile is monotone: for side -1 and ``u' <= u <= u_hat``, ``{g <= u'}`` is contained in
    ``{g <= u}``, and the sup over the constraint ``g = u`` equals the sup over ``g <= u``
    there (the contour's level sets are convex and contain B_hat, where ``g = u_hat > u``: a
    path from a point with ``g < u`` to B_hat crosses ``g = u`` at a higher contour), so
    ``pl(u) >= pl(u')``. Hence ``pl(u) >= max {computed pl(u') : u' between u and the far
    end}``: each node's value is replaced by the running maximum of the values computed so far
    on the side (this batch's and the earlier ones', kept per row in ``seen``) at nodes
    farther from ``u_hat``, where that maximum exceeds it by more than ``NODE_TOL`` in the log
    (a smaller deficit is the solvers' noise, which a running maximum would turn into a bias). Still a lower bound of the profile, and never below the computed
    one; it repairs nodes whose Newton solves all stopped on a lower local maximum (the
    constraint set is not convex for K >= 3; :func:`_continued_profile`).

    ``profile(ids, x, w, uu)`` returns the profile log-likelihood at the nodes, its slope and the
    maximisers kept there, which ``seen`` records with the values (the starts of later panels,
    :meth:`_Seen.at`)."""
    ids = np.arange(x.shape[0]) if ids is None else ids

    def evaluate(rows: NDArray, uu: NDArray) -> tuple[NDArray, NDArray]:
        lp, _, B = profile(ids[rows], x[rows][:, None, :], w[rows][:, None, :], uu)
        logpl = relative_loglik(lik.loglik_hat, lp)
        if seen is not None and lik.K > 2:
            logpl = _envelope(ids[rows], uu, logpl, side, seen, B)
        return np.exp(logpl + log_expit(uu) + log_expit(-uu)), logpl

    integral, uu, _, logpl = adaptive_clenshaw_curtis(a, b, evaluate, side, acc, max_depth)
    end, lend = (uu[:, 0], logpl[:, 0]) if side < 0 else (uu[:, -1], logpl[:, -1])
    far = np.exp(lend) * expit(-np.abs(end))
    far = np.where(np.abs(end) >= U_MAX, np.minimum(far, np.exp(-U_MAX)), far)
    return integral, far


class _Seen:
    """The nodes of one side computed so far, per row id ``0 .. rows - 1`` (their keys ``-side u``,
    ascending from the far end toward the mode, raw log-contours and, with ``d``, the maximisers
    kept there), padded to a common capacity (keys ``+inf``, values ``-inf``, maximisers NaN):
    the record of the monotone envelope, and the starts of later panels (:meth:`at`)."""

    def __init__(self, rows: int, d: int = 0) -> None:
        self.keys = np.full((rows, 0), np.inf)
        self.vals = np.full((rows, 0), -np.inf)
        self.B = np.full((rows, 0, d), np.nan)
        self.count = np.zeros(rows, dtype=np.intp)

    def add(self, ids: NDArray, keys: NDArray, vals: NDArray, B: NDArray | None = None) -> None:
        """Append the nodes (len(ids), m) of distinct row ids (and their maximisers (len(ids), m, d))."""
        m = keys.shape[1]
        need = int(self.count[ids].max(initial=0)) + m
        if need > self.keys.shape[1]:
            grow = max(need, 2 * self.keys.shape[1]) - self.keys.shape[1]
            self.keys = np.pad(self.keys, ((0, 0), (0, grow)), constant_values=np.inf)
            self.vals = np.pad(self.vals, ((0, 0), (0, grow)), constant_values=-np.inf)
            self.B = np.pad(self.B, ((0, 0), (0, grow), (0, 0)), constant_values=np.nan)
        cols = self.count[ids][:, None] + np.arange(m)
        self.keys[ids[:, None], cols] = keys
        self.vals[ids[:, None], cols] = vals
        if B is not None:
            self.B[ids[:, None], cols] = B
        self.count[ids] += m

    def at(self, ids: NDArray, keys: NDArray) -> NDArray:
        """The maximiser recorded for each id at the node of key ``keys`` (to rounding; NaN where
        none): the start of the Wald chain of a later panel at its first node (the end nearest
        ``u_hat``), which is always a node already solved (a bisected panel's end or midpoint,
        or the far end before a widening)."""
        out = np.full((ids.size, self.B.shape[2]), np.nan)
        if not ids.size or not self.keys.shape[1]:
            return out
        gap = np.abs(self.keys[ids] - keys[:, None])  # +inf at the padding
        j = np.argmin(gap, axis=1)
        hit = gap[np.arange(ids.size), j] <= 1e-9 * (1.0 + np.abs(keys))
        out[hit] = self.B[ids[hit], j[hit]]
        return out


#: rows per block of the envelope's comparisons (rows x nodes x recorded nodes booleans)
ENVELOPE_BLOCK = 64


def _envelope(ids: NDArray, uu: NDArray, logpl: NDArray, side: int, seen: _Seen,
              B: NDArray | None = None) -> NDArray:
    """The monotone envelope of :func:`_panels`: ``logpl`` (rows, nodes) at nodes ``uu`` of one
    side raised to the largest value recorded for the row id at nodes at least as far from the
    mode (``seen``: the earlier batches' and, in batch order, this batch's rows of that id up
    to this one, its own nodes included), where it exceeds the value by more than NODE_TOL;
    ``seen`` is updated with the values as computed (and the maximisers ``B`` kept at the nodes,
    (rows, nodes, d)). Rows of one id are taken in batch order
    (level by level: the k-th row of each id at once), all else at once."""
    out = np.array(logpl, dtype=float)
    raw = np.where(np.isnan(out), -np.inf, out)
    key = -side * uu  # ascending = from the far end toward the mode
    order = np.argsort(ids, kind="stable")
    sid = ids[order]
    first = np.r_[True, sid[1:] != sid[:-1]] if sid.size else np.zeros(0, dtype=bool)
    start = np.maximum.accumulate(np.where(first, np.arange(sid.size), 0)) if sid.size else first
    level = np.empty(ids.size, dtype=np.intp)
    level[order] = np.arange(sid.size) - start
    for lv in range(int(level.max(initial=-1)) + 1):
        rs = np.flatnonzero(level == lv)
        seen.add(ids[rs], key[rs], raw[rs], None if B is None else B[rs])
        for c0 in range(0, rs.size, ENVELOPE_BLOCK):
            r = rs[c0:c0 + ENVELOPE_BLOCK]
            n_rec = int(seen.count[ids[r]].max())
            hk, hv = seen.keys[ids[r], :n_rec], seen.vals[ids[r], :n_rec]
            run = np.max(np.where(hk[:, None, :] <= key[r][:, :, None], hv[:, None, :], -np.inf), axis=2)
            # a deficit within the node tolerance is the solver's noise, not a missed branch (for
            # rows near WIDE_SCALE a running maximum of the noise moved Pl by 1.6e-7)
            out[r] = np.where(run > out[r] + NODE_TOL, run, out[r])
    return out


def _continued_profile(lik: MultinomialLikelihood, xx: NDArray, ww: NDArray, uu: NDArray, starts: NDArray,
                       kernel: bool, side: int = 0, convex: NDArray | None = None, near: NDArray | None = None,
                       solutions: NDArray | None = None) -> tuple[NDArray, NDArray]:
    """The profile at the nodes ``uu`` (rows, nodes; in path order, outward from ``u_hat``) of
    the quadrature: the largest of several local maxima, continued along the nodes.

    For K >= 3 the set ``{B : g(B) <= u}`` is not convex (``log(1 - theta_k)`` is a difference
    of convex functions of B), so ``max l`` on ``g = u`` can have several local maxima, and the
    branch of the global one can change from node to node (issue found at n = 1000 in the
    setting of ``benchmarks/bench_kclass_figures.py``: from the Wald chain and the two face
    starts the computed profile jumped between branches, was not monotone on a side of its mode,
    and the adaptive quadrature bisected to its depth limit on an underestimated profile). Each
    node is solved from (1) the Wald chain from the MLE (:func:`functional_profile`,
    ``chain=True``) and, for the rows with starts (``starts`` (f, rows, d), NaN for none: the
    face starts of far-out rows), (2) each start, chained along the nodes; then (3) the
    continuation: the nodes are solved again from the best maximiser found at the neighbouring
    node, walking outward from the mode and then inward from the far end, so that a branch found
    at one node (the global one there) is followed to its neighbours; the largest value at each
    node is kept. Every value is the log-likelihood of a feasible point, so more starts can only
    raise it toward the profile. Rows without starts (ordinary rows) are the Wald chain alone.

    The inward walk skips a node where it would only retrace a chain's step (:func:`_same_branch`:
    the maximiser kept at the farther node is a chain's, and that chain reached the value kept at
    this node along one branch): 74,000 of 76,000 inward solves of the n = 1000 figure's grid,
    its Bel and Pl unchanged (to 3e-12), 21 % fewer passes. The outward walk is not thinned:
    a solve there from the neighbour's maximiser can land on another branch even where the
    chains' steps were smooth (grid row 142 of that figure: +0.005 at a panel's far end, then up
    to +10 in the log on the way back; Bel 5.4e-5 too high when both walks were thinned), and
    agreeing starts are no reason to skip it either (test_evmultinom_branches.py).

    *Convex sides* (``side`` the side of ``u_hat`` the nodes lie on, ``convex`` (rows,) whether
    the row's feasible set on that side is convex: :func:`_convex_sides`). There the Wald
    chain's solutions are certified: a solution ``B*`` of ``max l s.t. g = u`` with multiplier
    ``lambda`` (the slope) of the side's sign (``side * lambda <= 0``) is a KKT point of the
    inequality problem ``max l s.t. side (g - u) >= 0``, whose value is the profile (the sup
    over ``g = u`` equals the sup over that half-set, :func:`_panels`); on a convex half-set
    ``{side g >= side u}`` every such point is the global maximum: for ``B`` in the set, l
    concave gives ``l(B) <= l(B*) + grad l(B*) . (B - B*)``, and with ``grad l = lambda grad g``
    the last term is ``(side lambda) (side grad g(B*) . (B - B*))``, a product of a factor
    ``<= 0`` and one ``>= 0`` (the first-order condition of ``side g``, quasi-concave since its
    super-level set is convex, at the boundary point B*), so ``l(B) <= l(B*)``. A row whose Wald chain
    is certified at every node of the batch runs no face chain and no continuation; its values
    are those the starts would have confirmed (to the solvers' tolerance). Other rows, or a
    node with a slope of the wrong sign or a failed solve, take the whole multi-start path.
    """
    kw: dict[str, Any] = dict(tol=NODE_TOL, max_iter=NODE_MAX_ITER, tail=True, kernel=kernel)
    m = uu.shape[-1]
    sol = np.full(uu.shape + (lik.d,), np.nan) if solutions is None else solutions
    has = np.zeros(uu.shape[0], dtype=bool) if near is None else np.isfinite(near[:, 0])
    lp, sl = np.full(uu.shape, np.nan), np.full(uu.shape, np.nan)
    for part, st in ((np.flatnonzero(~has), None), (np.flatnonzero(has), near)):
        if part.size:  # the Wald chain; from the best maximiser known at the first node if any
            b0 = np.full((part.size, m, lik.d), np.nan)
            lp[part], sl[part] = functional_profile(lik, xx[part], ww[part], uu[part], chain=True, solutions=b0,
                                                    start=None if st is None else st[part][:, None, :], **kw)
            sol[part] = b0
    multi = np.flatnonzero(np.any(~np.isnan(starts[..., 0]), axis=0)) if len(starts) else np.empty(0, dtype=int)
    if multi.size and convex is not None and side:
        with np.errstate(invalid="ignore"):
            certified = convex[multi] & np.all(np.isfinite(lp[multi]) & (side * sl[multi] <= 0.0), axis=1)
        with _kernels.COUNT_LOCK:
            _CERTIFIED[0] += int(certified.sum())
            _CERTIFIED[1] += int((~certified).sum())
        multi = multi[~certified]
    if not multi.size or lik.K < 3:
        return lp, sl
    cl, cs = [lp.copy()], [sl.copy()]  # each chain's values and slopes (NaN where it did not run)
    src = np.zeros(uu.shape, dtype=np.intp)  # the chain whose maximiser is kept (-1: the continuation)

    def keep(rows: NDArray, cols: Any, l2: NDArray, s2: NDArray, b2: NDArray, label: int,
             margin: float = 0.0) -> None:
        old = lp[rows, cols]
        better = l2 > np.where(np.isnan(old), -np.inf, old) + margin
        lp[rows, cols] = np.where(better, l2, old)
        sl[rows, cols] = np.where(better, s2, sl[rows, cols])
        sol[rows, cols] = np.where(better[..., None], b2, sol[rows, cols])
        src[rows, cols] = np.where(better, label, src[rows, cols])

    for c, st in enumerate(starts, start=1):  # each start chained along the nodes
        cl.append(np.full(uu.shape, np.nan))
        cs.append(np.full(uu.shape, np.nan))
        sub = multi[~np.isnan(st[multi, 0])]
        if not sub.size:
            continue
        b2 = np.full((sub.size, m, lik.d), np.nan)
        l2, s2 = functional_profile(lik, xx[sub], ww[sub], uu[sub], chain=True, start=st[sub][:, None, :],
                                    solutions=b2, **kw)
        cl[c][sub], cs[c][sub] = l2, s2
        keep(sub, slice(None), l2, s2, b2, c)
    L, S = np.stack(cl), np.stack(cs)

    def redundant(rows: NDArray, j: int, k: int) -> NDArray[np.bool_]:
        """Where solving node j again from node k's maximiser would repeat a chain's step: the
        maximiser kept at k is chain c's, c's value at j is the one kept there, and c stayed on
        one branch between the two nodes (:func:`_same_branch`)."""
        c = np.maximum(src[rows, k], 0)
        same = _same_branch(L[c, rows, k], L[c, rows, j], S[c, rows, k], S[c, rows, j], uu[rows, j] - uu[rows, k])
        return (src[rows, k] >= 0) & (L[c, rows, j] >= lp[rows, j] - NODE_TOL) & same

    # the continuation: outward from the mode (every node: a solve from the neighbour's maximiser
    # can land on another branch, which the inward walk then follows), then inward from the far
    # end, skipped where it would retrace a chain's step (_CONTINUATION counts solves run, skipped)
    for j, k in [*((j, j - 1) for j in range(1, m)), *((j, j + 1) for j in range(m - 2, -1, -1))]:
        sub = multi[~np.isnan(sol[multi, k, 0])]
        if j < k:
            skip = redundant(sub, j, k)
            with _kernels.COUNT_LOCK:
                _CONTINUATION[1] += int(skip.sum())
            sub = sub[~skip]
        if sub.size:
            with _kernels.COUNT_LOCK:
                _CONTINUATION[0] += sub.size
            b2 = np.full((sub.size, 1, lik.d), np.nan)
            l2, s2 = functional_profile(lik, xx[sub], ww[sub], uu[sub, j:j + 1], start=sol[sub, k][:, None, :],
                                        solutions=b2, reference=False, **kw)
            keep(sub, slice(j, j + 1), l2, s2, b2, -1, margin=NODE_TOL)  # another branch, not the noise
    return lp, sl


#: continuation solves of :func:`_continued_profile` run and skipped in this process (profiling)
_CONTINUATION = [0, 0]
#: rows of :func:`_continued_profile` batches with starts whose Wald chain was certified on a
#: convex side, and those that took the multi-start path (profiling)
_CERTIFIED = [0, 0]


def _convex_sides(w: NDArray) -> dict[int, NDArray[np.bool_]]:
    """For weight rows ``w`` (m, K), whether the feasible half-set of each side of ``u_hat`` is
    convex in B: ``{g >= u}`` (side +1) when one weight only is positive (``g = eta_k + log w_k
    - logsumexp_j(eta_j + log(1 - w_j))``, so ``g >= u`` bounds a log-sum-exp of affine
    functions of B), ``{g <= u}`` (side -1) when one weight only is below 1 (symmetrically).
    For a singleton {k} the side where theta_k is large, for its complement the other; for
    K = 2 both sides of every row (the two-class profile is a concave problem).

    Examples
    --------
    >>> {s: v.tolist() for s, v in _convex_sides(np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 1.0]])).items()}
    {1: [True, False], -1: [False, True]}
    """
    return {1: np.sum(w > 0.0, axis=1) == 1, -1: np.sum(w < 1.0, axis=1) == 1}


def _same_branch(l_k: NDArray, l_j: NDArray, s_k: NDArray, s_j: NDArray, h: NDArray) -> NDArray[np.bool_]:
    """Whether a chain's step from node k to node j (``h = u_j - u_k``) stayed on one branch of
    local maxima: its change of profile log-likelihood ``l_j - l_k`` lies between the changes its
    slopes at the two ends predict, ``h s_k`` and ``h s_j`` (to ``2 NODE_TOL``; the slopes are
    the multipliers ``d l_p / d u``). Along one smooth branch whose slope is monotone between
    the nodes this holds by the mean value theorem; a jump to another branch (a value off the
    path of the slopes) breaks it. NaN (a chain that did not run) gives False.

    Examples
    --------
    >>> _same_branch(np.array([-1.0, -1.0]), np.array([-1.5, -0.2]), np.array([-0.4, -0.4]),
    ...              np.array([-0.6, -0.6]), np.array([1.0, 1.0])).tolist()   # smooth; a jump up
    [True, False]
    """
    lo, hi = np.minimum(s_k * h, s_j * h), np.maximum(s_k * h, s_j * h)
    with np.errstate(invalid="ignore"):
        return (l_j - l_k >= lo - 2.0 * NODE_TOL) & (l_j - l_k <= hi + 2.0 * NODE_TOL)


def _reference_bounds(lik: MultinomialLikelihood, x: NDArray, w: NDArray, h_hat: NDArray) -> tuple[NDArray, NDArray]:
    from scipy.integrate import quad

    low = np.empty(x.shape[0])
    up = np.empty(x.shape[0])
    u_hat, sig = _wald_u(lik, x, w)
    for i in range(x.shape[0]):
        def pl(t: float, i=i) -> float:
            if t <= 0.0 or t >= 1.0:
                return 0.0
            lp = functional_profile_reference(lik, x[i], w[i], np.log(t) - np.log1p(-t))
            return float(np.exp(relative_loglik(lik.loglik_hat, lp)))

        th = float(h_hat[i])
        pts = expit(u_hat[i] + sig[i] * np.array([-6.0, -3.0, -1.5, -0.5, 0.5, 1.5, 3.0, 6.0]))
        left = [p for p in pts if 0 < p < th]
        right = [p for p in pts if th < p < 1]
        low[i] = quad(pl, 0.0, th, points=left or None, epsabs=1e-10, epsrel=1e-9, limit=100)[0] if th > 0 else 0.0
        up[i] = quad(pl, th, 1.0, points=right or None, epsabs=1e-10, epsrel=1e-9, limit=100)[0] if th < 1 else 0.0
    return low, up


def predictive_bounds(
    lik: MultinomialLikelihood,
    x: ArrayLike,
    w: ArrayLike,
    method: str = "fast",
    tol: float = 1e-10,
    acc: float = 1e-6,
    width: float = 7.0,
    max_widen: int = 8,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``h_hat``, lower and upper predictive probability of ``h_w`` for test rows.

    With ``w`` the indicator of a set of classes A these are theta_hat_A, Bel(A) and Pl(A)
    (module docstring); with a normalised loss row they are the normalised lower and upper
    expected losses. Right for every finite row, however large: rows ``x = r v`` with
    ``r sd > WIDE_SCALE`` take the exact limit ``r -> inf`` (:func:`region_contours`,
    :func:`limit_bounds`; module docstring, "Extreme test rows"), the others the quadrature.

    Parameters
    ----------
    lik : MultinomialLikelihood
    x : array (m, p)
        Test design rows (finite; an error names the rows holding inf or NaN).
    w : array (K,) or (m, K)
        Weights in [0, 1]. Rows whose weights are all equal give ``h`` constant (bounds equal).
    method : {"fast", "reference"}
        ``"reference"``: scipy quadrature of scipy profiles; for the rows beyond ``WIDE_SCALE``
        the limit with the class contours by SLSQP.
    tol : float
        Fast path: bound on the neglected tail mass per side (a side whose whole length in t,
        ``h_hat`` or ``1 - h_hat``, is below it is not integrated).
    acc : float
        Fast path: panel acceptance (order-16 vs order-8 Clenshaw-Curtis difference; the
        accepted order-16 value is far more accurate, as in evlogit, whose default this is).
        Measured against the reference path: differences below 1e-8 (tests/multiclass).
    width : float
        Fast path: initial half-width of each side in Wald scales of the integrand.

    Returns
    -------
    h_hat, lower, upper : arrays (m,)
        ``0 <= lower <= h_hat <= upper <= 1``.
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    if not np.all(np.isfinite(x)):
        bad = np.flatnonzero(~np.all(np.isfinite(x), axis=1))
        raise ValueError(f"test design rows must be finite; rows {bad[:10].tolist()} hold inf or NaN")
    m = x.shape[0]
    w = _check_weights(np.broadcast_to(np.asarray(w, dtype=float), (m, lik.K)), lik.K)
    w = np.ascontiguousarray(w)
    if method not in ("fast", "reference"):
        raise ValueError(f"method must be 'fast' or 'reference', got {method!r}")
    th = scaled_probs(lik.B_hat, x)
    h_hat = np.clip(np.sum(th * w, axis=1), 0.0, 1.0)
    low = np.zeros(m)
    up = np.zeros(m)
    live = (np.ptp(w, axis=1) > 0) & np.any(x != 0.0, axis=1)
    V, r = row_scale(x)
    wide = np.zeros(m, dtype=bool)
    wide[live] = wide_rows(lik, x[live])
    if wide.any():  # the limit r -> inf (module docstring, "Extreme test rows")
        c = region_contours(lik, V[wide], method=method)
        lw, uw = limit_bounds(c, w[wide])
        low[wide], up[wide] = h_hat[wide] - lw, uw - h_hat[wide]
    idx = np.flatnonzero(live & ~wide)
    if idx.size and method == "reference":
        low[idx], up[idx] = _reference_bounds(lik, x[idx], w[idx], h_hat[idx])
    elif idx.size:
        # h_{1 - w} = 1 - h_w: the lower side of one is the upper side of the other. Each row is
        # integrated for the lexicographically smaller of w and 1 - w, so that Bel(A) = 1 -
        # Pl(not A) holds exactly: the multi-start maximisation (K >= 3, several local maxima;
        # :func:`_continued_profile`) need not find the same branch for the two (1e-4 apart
        # at K = 4, tests/multiclass/test_evmultinom_extreme.py)
        comp = 1.0 - w[idx]
        differ = comp != w[idx]
        first = np.argmax(differ, axis=1)  # the first class where w and 1 - w differ (tuple order)
        rows = np.arange(idx.size)
        flip = differ[rows, first] & (comp[rows, first] < w[idx][rows, first])
        xs, ws = x[idx], np.where(flip[:, None], 1.0 - w[idx], w[idx])
        u_hat, sig = _wald_u(lik, xs, ws)
        if not np.all(np.isfinite(u_hat)) or not np.all(np.isfinite(sig)):
            raise ValueError("test rows with infinite linear predictors (scores too large): rescale the scores")

        faces = _needs_faces(lik, xs)
        fidx = np.flatnonzero(faces)
        groups = np.unique(ws[fidx], axis=0) if fidx.size else np.empty((0, lik.K))
        starts = np.full((max([len(face_pairs(g)) for g in groups], default=0), idx.size, lik.d), np.nan)
        for g in groups:  # rows sharing their weights
            rows_g = fidx[np.all(ws[fidx] == g, axis=1)]
            for f_i, st in enumerate(face_starts(lik, xs[rows_g], g)):
                starts[f_i, rows_g] = st

        # one kernel decision for the whole prediction, from its expected number of profile
        # problems (each quadrature call alone is below the threshold of compiling in the
        # process: a plot's grid of a few hundred rows, which needs some 10^5 problems at
        # n = 1000, ran on the numpy path while numba compiled in the background; issue 25)
        problems = PROBLEMS_PER_ROW * (idx.size + sum(len(face_pairs(g)) * int(np.all(ws[fidx] == g, axis=1).sum())
                                                      for g in groups))
        kernel = _kernels.use_kernel(problems * lik.n * (lik.K - 1), loaded=_KERNEL is not None)

        convex = _convex_sides(ws)
        out = {}
        for side in (-1, 1):
            seen = _Seen(idx.size, lik.d)  # the side's nodes and maximisers so far, per row

            def profile(rows: NDArray, xx: NDArray, ww: NDArray, uu: NDArray, side: int = side,
                        seen: _Seen = seen) -> tuple[NDArray, NDArray, NDArray]:
                B = np.full(uu.shape + (lik.d,), np.nan)
                near = seen.at(rows, -side * uu[:, 0])
                # a panel from the mode itself starts from the MLE (its exact first solution)
                near[uu[:, 0] == np.clip(u_hat[rows], -U_MAX, U_MAX)] = np.nan
                lp, sl = _continued_profile(lik, xx, ww, uu, starts[:, rows], kernel, side, convex[side][rows],
                                            near=near, solutions=B)
                return lp, sl, B

            wd = np.full(idx.size, float(width))
            a, b = _side_ends(u_hat, sig, side, wd)
            # the side's integral is at most its length in t (pl <= 1): h_hat below the mode,
            # 1 - h_hat above; a side shorter than tol is neglected as the tail beyond its far
            # end is (rows whose theta_hat is within tol of 0 or 1: a third of a figure's grid)
            val = np.zeros(idx.size)
            todo = np.flatnonzero(expit(-side * u_hat) > tol)
            if todo.size:
                val[todo], far = _panels(lik, xs[todo], ws[todo], a[todo], b[todo], side, acc, profile, ids=todo,
                                         seen=seen)
                todo = todo[far > tol]
            for _ in range(max_widen):  # integrate the extension to a doubled width only
                if not todo.size:
                    break
                wd[todo] *= 2.0
                a2, b2 = _side_ends(u_hat[todo], sig[todo], side, wd[todo])
                if side < 0:
                    lo_, hi_ = np.minimum(a2, a[todo]), a[todo]
                    a[todo] = lo_
                else:
                    lo_, hi_ = b[todo], np.maximum(b2, b[todo])
                    b[todo] = hi_
                v, far = _panels(lik, xs[todo], ws[todo], lo_, hi_, side, acc, profile, ids=todo, seen=seen)
                val[todo] += v
                todo = todo[far > tol]
            out[side] = val
        low[idx], up[idx] = np.where(flip, out[1], out[-1]), np.where(flip, out[-1], out[1])
    lower = np.clip(h_hat - low, 0.0, h_hat)
    upper = np.clip(h_hat + up, h_hat, 1.0)
    return h_hat, lower, upper


#: test rows x calibration rows from which :func:`predictive_bounds_events` computes its events
#: in threads (an event costs milliseconds from that size on)
EVENT_THREAD_WORK = 5000


def predictive_bounds_events(
    lik: MultinomialLikelihood, x: ArrayLike, ws: Sequence[ArrayLike], method: str = "fast",
    block_rows: int = 2000,
) -> list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """:func:`predictive_bounds` of the rows ``x`` for each weight vector of ``ws`` (the events of
    one prediction: evmultinom's K singletons, ``events=``), rows in blocks of ``block_rows``.

    The events are independent problems: from :data:`EVENT_THREAD_WORK` test-row x calibration
    rows on, and when ``kernel_threads`` (:func:`evstat.set_config`) allows more than one
    thread, they are computed concurrently (:func:`evstat.likelihood._kernels.run_calls`, each
    thread in the caller's ``config_context``), so that the Python parts of one overlap the
    compiled kernels (which release the GIL) of the others. The answers are those of one
    event after the other.

    Examples
    --------
    >>> X = np.c_[np.ones(6), [-2.0, -1.0, 0.0, 0.5, 1.0, 2.0]]
    >>> lik = multinomial_mle(X, [0, 0, 1, 0, 2, 2], 3, targets="platt")
    >>> out = predictive_bounds_events(lik, [[1.0, 0.3]], [np.eye(3)[k] for k in range(3)])
    >>> [bool(lo[0] <= h[0] <= up[0]) for h, lo, up in out]
    [True, True, True]
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    m = x.shape[0]
    step = max(1, int(block_rows))

    def one(w: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        h, lo, up = np.empty(m), np.empty(m), np.empty(m)
        for s in range(0, m, step):
            sl = slice(s, s + step)
            h[sl], lo[sl], up[sl] = predictive_bounds(lik, x[sl], w, method=method)
        return h, lo, up

    weights: list[NDArray] = [np.asarray(w, dtype=float) for w in ws]
    threads = len(weights) if m * lik.n >= EVENT_THREAD_WORK and _kernels.kernel_threads() > 1 else 1
    if threads > 1 and method == "fast" and lik.K > 2 and np.all(np.isfinite(x)):
        # the face starts first, one event after the other: the events share their faces (the
        # singletons of K = 3 need three per row, not two each), which concurrent events would
        # each compute before the cache held them (the same answers: face_starts is cached)
        far = _needs_faces(lik, x) & ~wide_rows(lik, x) & np.any(x != 0.0, axis=1)
        for wv in weights:
            if far.any() and wv.ndim == 1 and np.ptp(wv) > 0:
                face_starts(lik, x[far], wv)
    return _kernels.run_calls([lambda w=w: one(w) for w in weights], threads)


# ---------------------------------------------------------------------------- coefficients
def coefficient_profile_loglik(lik: MultinomialLikelihood, j: int, values: ArrayLike) -> tuple[NDArray, NDArray]:
    """Profile log-likelihood of the flattened coefficient ``j`` at ``values`` and its slope
    (the score component at the constrained maximum), by Newton on the other coefficients
    (a concave problem)."""
    values = np.atleast_1d(np.asarray(values, dtype=float))
    K, p, d = lik.K, lik.p, lik.d
    rest = np.array([i for i in range(d) if i != j], dtype=np.intp)
    lp = np.empty(values.size)
    slope = np.empty(values.size)
    for t, v in enumerate(values):
        beta = lik.B_hat.ravel().copy()
        beta[rest] += lik.cov[rest, j] / lik.cov[j, j] * (v - beta[j])
        beta[j] = v
        cur = float(multinomial_loglik(beta.reshape(K - 1, p), lik.X, lik.codes, K, lik.T))
        for _ in range(200):
            g, info = multinomial_score_info(beta.reshape(K - 1, p), lik.X, lik.codes, K, lik.T)
            sub = info[np.ix_(rest, rest)]
            step = np.linalg.solve(sub, g[rest])
            size = 1.0
            while True:
                cand = beta.copy()
                cand[rest] += size * step
                new = float(multinomial_loglik(cand.reshape(K - 1, p), lik.X, lik.codes, K, lik.T))
                if new >= cur - 1e-13 * (1 + abs(cur)) or size < 1e-10:
                    break
                size *= 0.5
            beta, cur = cand, new
            if abs(g[rest] @ step) <= 1e-20 or np.max(np.abs(size * step)) <= 1e-12 * (1 + np.max(np.abs(beta))):
                break
        g, _ = multinomial_score_info(beta.reshape(K - 1, p), lik.X, lik.codes, K, lik.T)
        lp[t], slope[t] = cur, g[j]
    return lp, slope


def coefficient_conf_int(lik: MultinomialLikelihood, j: int, level: float = 0.95) -> tuple[float, float]:
    """Exact likelihood-ratio interval of the flattened coefficient ``j``: the two roots of
    ``l_p(b) = l_hat - chi2_1(level) / 2``, by Newton from outside on the concave profile
    (stepping out first), as evlogit's :func:`~evstat.likelihood.profile_level_set`."""
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
    drop = 0.5 * _chi2_ppf_1(level)  # scipy.stats.chi2.ppf(level, 1), bit for bit
    est, se = float(lik.B_hat.ravel()[j]), float(np.sqrt(lik.cov[j, j]))
    ends = []
    for side in (-1.0, 1.0):
        dist = se * np.sqrt(2 * drop) * 1.5
        for _ in range(60):
            lp, _ = coefficient_profile_loglik(lik, j, est + side * dist)
            if lp[0] - lik.loglik_hat < -drop:
                break
            dist *= 2.0
            if dist > 1e8 * (1 + abs(est)):
                dist = np.inf
                break
        if not np.isfinite(dist):
            ends.append(side * np.inf)
            continue
        b = est + side * dist
        for _ in range(100):
            lp, s = coefficient_profile_loglik(lik, j, b)
            gv = lp[0] - lik.loglik_hat + drop
            st = -gv / s[0]
            b += st
            if abs(st) <= 1e-11 * (1 + abs(b)):
                break
        ends.append(b)
    return float(ends[0]), float(ends[1])
