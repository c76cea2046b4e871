"""The numpy path of evmultinom's kernel (:func:`evstat.likelihood._mlogit_kernel._kernel_py`):
the same Newton iterations on whole batches with numpy, used while the compiled kernel is not
yet compiled (:mod:`evstat.likelihood._kernels`, first-call latency). It repeats the kernel's
algebra in array form (numba compiles loops, numpy needs batches: one source cannot serve
both at speed); tests/multiclass/test_evmultinom_kernels.py holds the two together.
"""

from __future__ import annotations


import numpy as np
from numpy.typing import NDArray

from evstat.likelihood._mlogit_sweep import _tail_converged_py
from evstat.likelihood.mlogit import _logsumexp_rows, MultinomialLikelihood

__all__ = [
    "NUMPY_BLOCK",
]




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
