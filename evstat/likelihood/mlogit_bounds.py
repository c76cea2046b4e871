"""evmultinom's predictive lower and upper probabilities of sets of classes (and normalised
expected losses): :func:`predictive_bounds`, and :func:`predictive_bounds_events` for several
weight vectors at once.

Threads: a kernel batch (of at least ``_kernels.THREAD_MIN_WORK`` problem-rows) is split at its
chains' starts over ``kernel_threads`` threads (:func:`evstat.likelihood._kernels.run_split`; the
kernel releases the GIL), with answers identical to the serial call.


Limits. Scores must be finite (infinite or missing scores are an error naming the column, from
the formula layer); every finite row, up to 1e308, gets an answer (theta_hat by
:func:`scaled_probs`, which never overflows). ``functional_profile`` itself (the contour of one
row, ``MultinomCalibration.contour``) works on x and is meant for rows below ``WIDE_SCALE``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from evstat.likelihood import _kernels, _mlogit_kernel as _mk
from evstat.likelihood.linear_profile import relative_loglik
from evstat.likelihood.mlogit import _check_weights, MultinomialLikelihood, U_MAX
from evstat.likelihood.mlogit_limit import (
    _needs_faces,
    face_pairs,
    face_starts,
    limit_bounds,
    PROBLEMS_PER_ROW,
    region_contours,
    scaled_probs,
    wide_rows,
)
from evstat.likelihood.mlogit_panels import _continued_profile, _convex_sides, _panels, _Seen, _side_ends, _wald_u
from evstat.likelihood.mlogit_profile import functional_profile_reference
from evstat.likelihood.predictive import row_scale

__all__ = [
    "EVENT_THREAD_WORK",
    "predictive_bounds",
    "predictive_bounds_events",
]



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
        kernel = _kernels.use_kernel(problems * lik.n * (lik.K - 1), loaded=_mk._KERNEL is not None)

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
    >>> from evstat.likelihood.mlogit import multinomial_mle
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
