"""evmultinom's compiled Newton kernel: ``max l(B) s.t. g(B) = u`` for a batch of problems,
chained along the quadrature's nodes.

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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from evstat.likelihood import _mlogit_sweep as _sw
from evstat.likelihood._mlogit_sweep import (
    REUSE_RATIO,
    SCORE_BLOCK,
    _bfgs_update_py,
    _msweep_py,
    _neg_inverse_py,
    _retract_py,
    _small_solve_py,
    _sweep_block_py,
    _tail_converged_py,
)

__all__: list[str] = []  # private: evmultinom's kernel, used through mlogit_profile



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
                # Gaussian elimination with partial pivoting, two right-hand sides (in place)
                if not _small_solve(Kmat, sol, tan):
                    dec = -1.0
                else:
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
                # (a reused Hessian's gain estimate can pass l_hat by about eps dec / 2: within the
                # rounding that relative_loglik clamps; not capped here, so that a fit whose stated
                # maximum is too low is still caught there, R's 'profiling has found a better solution')
                out_l[b] = ll + 0.5 * max(dec, 0.0)
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
# the helpers the kernel calls: their Python versions until _kernel() binds the compiled ones
_retract: Callable[..., Any] = _retract_py
_msweep: Callable[..., Any] = _msweep_py
_sweep_block: Callable[..., Any] = _sweep_block_py
_tail_converged: Callable[..., Any] = _tail_converged_py
_neg_inverse: Callable[..., Any] = _neg_inverse_py
_small_solve: Callable[..., Any] = _small_solve_py
_bfgs_update: Callable[..., Any] = _bfgs_update_py


def _kernel() -> Any:
    """The compiled Newton kernel (numba, compiled on first use and cached on disk); the sweep
    (:mod:`evstat.likelihood._mlogit_sweep`) reuses the two-class kernel's compiled exponential
    and tile accumulators."""
    global _KERNEL, _retract, _msweep, _sweep_block, _tail_converged, _neg_inverse, _small_solve, _bfgs_update
    if _KERNEL is None:
        import numba

        from evstat.likelihood import linear_profile as lpm

        lpm._kernel()
        _sw._exp_neg_abs, _sw._tile_diag, _sw._tile_off = lpm._exp_neg_abs, lpm._tile_diag, lpm._tile_off
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
