"""The quadrature of evmultinom's predictive bounds: the adaptive panels of each side of the
mode, the monotone envelope, and the multi-start continuation with its certificates on
convex sides.


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
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit, log_expit

from evstat.likelihood import _kernels
from evstat.likelihood.linear_profile import relative_loglik
from evstat.likelihood.mlogit import _grad_g, MultinomialLikelihood, NODE_MAX_ITER, NODE_TOL, U_MAX
from evstat.likelihood.mlogit_profile import functional_profile
from evstat.likelihood.quadrature import adaptive_clenshaw_curtis

__all__ = [
    "ENVELOPE_BLOCK",
]



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
