"""The compiled building blocks of evmultinom's Newton kernel (:mod:`evstat.likelihood._mlogit_kernel`):
the retraction onto a constraint ``g = u``, one pass over the calibration rows (the score and,
when asked, the information), the tail rule of the quadrature's nodes, and the small linear
algebra of the reused Hessians (Cholesky inverse, a small solve, the BFGS update). Plain
Python functions compiled by :func:`evstat.likelihood._mlogit_kernel._kernel`.
"""

from __future__ import annotations


from collections.abc import Callable
from typing import Any

import numpy as np

from evstat.likelihood.linear_profile import SWEEP_BLOCK, TILE

__all__ = [
    "REUSE_RATIO",
    "SCORE_BLOCK",
    "TAIL_MAX_DEC",
]



# ---------------------------------------------------------------------------- fast kernel
# bound by evstat.likelihood._mlogit_kernel._kernel() on first use: the two-class kernel's compiled
# exponential and tile accumulators, which the compiled sweep calls
def _unbound(*args: Any) -> Any:  # pragma: no cover - replaced before any call
    raise RuntimeError("bound by evstat.likelihood._mlogit_kernel._kernel() before the sweep runs")


_exp_neg_abs: Callable[..., Any] = _unbound
_tile_diag: Callable[..., Any] = _unbound
_tile_off: Callable[..., Any] = _unbound


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
    partial pivoting); False if A is singular. The kernel's KKT system (size d + 1, the step and
    the tangent) and the reused Hessians' (K - 1)-dimensional Woodbury system."""
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




#: with a reused Hessian, a Newton decrement that falls by less than this factor from one pass
#: to the next (a linear rate worse than about 0.3) makes the next pass recompute the
#: information (see the kernel's docstring, *Reused Hessian*)
REUSE_RATIO = 0.1
#: calibration rows per block of the score-only passes (measured at n = 5000, K = 10, p = 11:
#: 0.149 ms a pass in blocks of 64, 0.111 in 128, 0.093 in 256, 0.097 in 512)
SCORE_BLOCK = 256
