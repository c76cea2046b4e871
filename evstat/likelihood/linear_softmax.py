"""Softmax likelihoods linear in their parameters (vector scaling, penalised Dirichlet
calibration): the contour and the predictive lower and upper probabilities of sets of classes
(issue 36; notes/evidential-multinomial.md, sections 2-4).

Model. A design tensor ``G`` (n, K, p): the logits of row i are ``eta_i = G_i phi`` (vector
scaling: ``eta_ik = w_k z_ik + b_k``; Dirichlet calibration: ``eta_ik = b_k + sum_j W_kj ln s_ij``),
``theta_i = softmax(eta_i)``, targets ``Y`` (n, K) (one-hot labels), and an optional diagonal
quadratic penalty (the ODIR penalty of :func:`evstat.multiclass.dirichlet`, in the fit's
normalisation ``NLL / n + sum_j pen_j phi_j^2``):

    lp(phi) = sum_i [<Y_i, eta_i> - sum_k Y_ik logsumexp(eta_i)] - n sum_j pen_j phi_j^2,

concave (strictly with the penalty or a design of full rank). **The contour is the relative
penalised likelihood** ``pl(phi) = exp(lp(phi) - lp(phi_hat))`` at the penalised optimum
``phi_hat``: the penalty enters as the log-density of a Gaussian prior would (a posterior-like
reading), and it is what makes ODIR's full ``K x (B + 1)`` parametrisation identified (the
likelihood alone is flat along adding a constant to every class's coefficients, so its relative
likelihood has no unique maximum; the likelihood evaluated at the penalised optimum is not a
normalised contour). Without penalty this is the relative likelihood.

Predictive bounds. For a test row's design ``Gs`` (K, p), weights ``w`` in [0, 1]^K and
``h_w(phi) = sum_k w_k softmax_k(Gs phi)``, the profile ``pl_w(t) = sup {pl(phi) : h_w(phi) = t}``
is unimodal (the level sets of a concave lp are convex) and the layer-cake identity gives

    lower = h_hat - int_{u < u_hat} pl_w t (1 - t) du,    upper = h_hat + int_{u > u_hat} pl_w t (1 - t) du

in ``u = logit t`` (as evmultinom: :mod:`evstat.likelihood.multinomial`). Each node is the
constrained problem ``max lp(phi) s.t. g(phi) = logit h_w(Gs phi) = u``, solved by Newton's method
on the KKT system from a feasible point, every iterate moved back onto the constraint by a
*retraction*: the models have an intercept per class (but a reference class), and moving the
intercepts along ``delta = w - w_ref`` changes ``g`` strictly monotonically (``d h / dc =
var_theta(w) > 0``), so a scalar root finds the feasible point. Steps are halved while they
lower lp; a step that is no ascent direction (the Lagrangian Hessian not negative definite on
the tangent space) is recomputed with lp's Hessian alone.

Branches. The constraint set is not convex in general, so a node problem may have several local
maxima. For a singleton {k} above its mode (and the complement of a singleton below it) the set
``{theta_k >= t}`` is convex (``logit theta_k = eta_k - logsumexp_{j != k} eta_j`` is concave in
phi), so the maximum over it is a convex problem whose KKT point on ``g = u`` is the global
maximum: one chain from the Wald start. On the other sides the probability can move to each
class j of smallest (lower side) or largest (upper side) weight, and one chain starts by
raising class j's logit alone (its intercept; for the reference class every other intercept
lowered) until ``g = u``; every chain is continued from node to node along each quadrature panel
(each node starts from its predecessor's solution), and the largest value over the chains is the
profile. The tests compare with a multi-start SLSQP reference at K = 3 and 4.

Quadrature: each side of ``u_hat`` by the adaptive Clenshaw-Curtis rule shared with evlogit and
evmultinom, from ``u_hat`` over ``WIDTH`` Wald scales of g, extended while the tail bound
``pl_w(b) expit(-|b|)`` (pl_w is monotone beyond the mode) exceeds ``TOL``; ``|u| <= U_MAX``.

Limits. Test rows whose design entries exceed :data:`WIDE` times the largest calibration entry
are refused with a message (their limit is not derived for these models); every other finite row
gets an answer. Cost: a pass over the calibration rows (n K p^2 for the Hessian) per Newton
iteration, a few per node, a few hundred nodes per row and event: tens of milliseconds per row
at K = 3 and n = 200 (numpy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from evstat.likelihood.logistic import column_scale
from evstat.likelihood.multinomial import _g_eta
from evstat.likelihood.quadrature import adaptive_clenshaw_curtis

__all__ = ["LinearSoftmaxLikelihood", "coefficient_conf_int", "coefficient_profile", "softmax_bounds"]

#: the largest n K p^2 (design-column products kept for the Hessians: 8 bytes each) the general
#: engine allocates: 2.5e8 cells, 1.9 GiB (vector scaling at K = 100 and n = 2,000 would need
#: 63 GiB); beyond, a clear error instead of a MemoryError
MAX_OUTER_CELLS = 250_000_000

#: initial half-width of each side, in Wald scales of g
WIDTH = 8.0
#: integration range |u| <= U_MAX (integrand below exp(-U_MAX) beyond)
U_MAX = 45.0
#: neglected tail mass per side
TOL = 1e-10
#: panel acceptance of the adaptive quadrature (order 16 against order 8; the accepted order-16
#: value is far more accurate, as in evlogit and evmultinom, whose default this is)
ACC = 1e-6
#: Newton decrement at which a node is solved; the value adds the step's predicted gain (half
#: the decrement), whose error is of the order of the decrement**1.5 (evmultinom's NODE_TOL)
NODE_TOL = 1e-7
#: design entries of test rows beyond this multiple of the calibration design's largest are refused
WIDE = 1e6
#: float64 cells per chunk (problems x calibration cells x parameters) of a likelihood pass
CHUNK_CELLS = 8_000_000


def _lse(a: NDArray, axis: int = -1) -> NDArray:
    mx = np.max(a, axis=axis, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(mx, axis) + np.log(np.sum(np.exp(a - mx), axis=axis))


@dataclass(frozen=True)
class LinearSoftmaxLikelihood:
    """The (penalised) log-likelihood of a softmax model linear in its parameters.

    Parameters
    ----------
    G : array (n, K, p)
        Design tensor: ``eta_i = G_i phi``.
    Y : array (n, K)
        Targets (rows summing to 1).
    phi_start : array (p,)
        The fit's estimate, polished here by Newton's method to full precision.
    intercepts : sequence of int (K,)
        The parameter index of each class's intercept, -1 for the reference class (at most one).
    penalty : array (p,), optional
        ``pen_j``: lp subtracts ``n sum_j pen_j phi_j^2``.
    """

    G: NDArray[np.float64]
    Y: NDArray[np.float64]
    phi_start: NDArray[np.float64]
    intercepts: tuple[int, ...]
    penalty: NDArray[np.float64] | None = None
    #: powers of two dividing the design's columns (:func:`evstat.likelihood.column_scale`):
    #: the engine works on ``G / scale`` and ``phi * scale`` (exact), so that its tolerances do
    #: not depend on the unit of the scores; ``phi_hat`` and ``cov`` are in these units
    scale: NDArray[np.float64] = field(init=False)
    phi_hat: NDArray[np.float64] = field(init=False)
    lp_hat: float = field(init=False)
    cov: NDArray[np.float64] = field(init=False)
    _GG: NDArray[np.float64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        G = np.asarray(self.G, dtype=float)
        n, K, p = G.shape
        d = column_scale(G.reshape(n * K, p))
        G = np.ascontiguousarray(G / d)
        object.__setattr__(self, "scale", d)
        object.__setattr__(self, "G", G)
        object.__setattr__(self, "Y", np.ascontiguousarray(np.asarray(self.Y, dtype=float)))
        pen = np.zeros(p) if self.penalty is None else np.asarray(self.penalty, dtype=float) / (d * d)
        object.__setattr__(self, "penalty", pen)
        if len(self.intercepts) != K or sum(1 for j in self.intercepts if j < 0) > 1:
            raise ValueError("intercepts: one parameter index per class, -1 for at most one reference class")
        if n * K * p * p > MAX_OUTER_CELLS:
            raise ValueError(
                f"the general engine of the predictive lower and upper probabilities keeps the n K p^2 = "
                f"{n * K * p * p:,} products of the design's columns (n = {n} rows, K = {K} classes, p = {p} "
                f"parameters: {8 * n * K * p * p / 2**30:.1f} GiB), above its limit of {MAX_OUTER_CELLS:,} "
                "(evstat.likelihood.linear_softmax.MAX_OUTER_CELLS); at this size use temperature scaling, whose "
                "bounds are exact at any K, or evidential=False (point probabilities)"
            )
        object.__setattr__(self, "_GG", np.einsum("nkp,nkq->nkpq", G, G).reshape(n * K, p * p))
        phi, lp, H = self._polish(np.asarray(self.phi_start, dtype=float) * d)
        object.__setattr__(self, "phi_hat", phi)
        object.__setattr__(self, "lp_hat", lp)
        try:
            cov = np.linalg.inv(-H)
        except np.linalg.LinAlgError:
            cov = np.full((p, p), np.nan)
        if not (np.all(np.isfinite(cov)) and np.all(np.linalg.eigvalsh(0.5 * (cov + cov.T)) > 0)):
            raise ValueError(
                "the (penalised) log-likelihood is not strictly concave at its estimate (the scores separate some "
                "classes, so coefficients run away and the information is singular, or score columns are collinear): "
                "its contour, and so the predictive lower and upper probabilities, are not defined; use a model with "
                "fewer free parameters (temperature) or more calibration rows"
            )
        object.__setattr__(self, "cov", cov)

    @property
    def n(self) -> int:
        return int(self.G.shape[0])

    @property
    def K(self) -> int:
        return int(self.G.shape[1])

    @property
    def p(self) -> int:
        return int(self.G.shape[2])

    def evaluate(self, phi: ArrayLike, order: int = 2) -> tuple[NDArray, NDArray | None, NDArray | None]:
        """lp (M,), its gradient (M, p) and Hessian (M, p, p) at parameter rows ``phi`` (M, p)."""
        phi = np.atleast_2d(np.asarray(phi, dtype=float))
        M = phi.shape[0]
        n, K, p = self.G.shape
        ysum = self.Y.sum(axis=1)
        pen = self.penalty
        assert pen is not None
        lp = -n * (phi * phi) @ pen
        grad = -2.0 * n * phi * pen if order >= 1 else None
        hess = np.broadcast_to(-2.0 * n * np.diag(pen), (M, p, p)).copy() if order >= 2 else None
        step = max(1, CHUNK_CELLS // max(1, M * K * (p if order >= 2 else 1)))
        G2 = self.G.reshape(n * K, p)
        for a in range(0, n, step):
            c = min(step, n - a)
            g2 = G2[a * K : (a + c) * K]  # (c K, p)
            y = self.Y[a : a + c]
            ys = ysum[a : a + c]
            eta = (phi @ g2.T).reshape(M, c, K)
            lse = _lse(eta)
            lp += (eta.reshape(M, c * K) @ y.ravel()) - lse @ ys
            if order >= 1:
                P = np.exp(eta - lse[:, :, None])
                assert grad is not None
                grad += (y[None] - ys[None, :, None] * P).reshape(M, c * K) @ g2
            if order >= 2:
                assert hess is not None
                wP = P * ys[None, :, None]
                hess -= (wP.reshape(M, c * K) @ self._GG[a * K : (a + c) * K]).reshape(M, p, p)
                A = np.matmul(P[:, :, None, :], g2.reshape(c, K, p)[None])[:, :, 0, :]  # (M, c, p): G_i' P_i
                hess += np.matmul((A * ys[None, :, None]).transpose(0, 2, 1), A)
        return lp, grad, hess

    def _polish(self, phi: NDArray) -> tuple[NDArray, float, NDArray]:
        lp, g, H = (v[0] for v in self.evaluate(phi[None]))  # type: ignore[index]
        for _ in range(100):
            try:
                step = -np.linalg.solve(H, g)
            except np.linalg.LinAlgError:
                break
            t = 1.0
            while True:
                cand = phi + t * step
                c_lp, c_g, c_H = (v[0] for v in self.evaluate(cand[None]))  # type: ignore[index]
                if c_lp >= lp - 1e-13 * (1.0 + abs(lp)) or t < 1e-12:
                    break
                t *= 0.5
            dec = float(g @ step) * t
            phi, lp, g, H = cand, float(c_lp), c_g, c_H
            if dec <= 1e-14 * (1.0 + abs(lp)):
                break
        return phi, float(lp), H

    def log_contour(self, phi: ArrayLike) -> NDArray[np.float64]:
        """``log pl(phi) = lp(phi) - lp(phi_hat)`` (<= 0) for parameter rows (M, p) in the
        model's units (the fit's coefficients)."""
        phi = np.atleast_2d(np.asarray(phi, dtype=float)) * self.scale
        return np.minimum(self.evaluate(phi, order=0)[0] - self.lp_hat, 0.0)

    # ------------------------------------------------------------------ directions
    def shift_direction(self, w: NDArray) -> NDArray:
        """The retraction direction of weights ``w`` (q, K): intercepts moved by ``w - w_ref``."""
        ref = [k for k, j in enumerate(self.intercepts) if j < 0]
        base = w[:, ref[0]] if ref else np.zeros(w.shape[0])
        D = np.zeros((w.shape[0], self.p))
        for k, j in enumerate(self.intercepts):
            if j >= 0:
                D[:, j] = w[:, k] - base
        return D

    def class_direction(self, j: int) -> NDArray:
        """The direction raising class j's logit alone (relative to the others)."""
        D = np.zeros(self.p)
        if self.intercepts[j] >= 0:
            D[self.intercepts[j]] = 1.0
        else:
            for k, i in enumerate(self.intercepts):
                if i >= 0:
                    D[i] = -1.0
        return D


def _g_parts(eta: NDArray, w: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """g = logit h_w (q,), and the softmaxes alpha, beta (q, K) of eta + log w, eta + log(1 - w):
    evmultinom's :func:`evstat.likelihood.multinomial._g_eta` (any logits: nothing assumes a
    baseline of 0)."""
    with np.errstate(invalid="ignore"):
        return _g_eta(eta, w)


def _retract(lik: LinearSoftmaxLikelihood, phi: NDArray, Gs: NDArray, w: NDArray, u: NDArray,
             D: NDArray) -> tuple[NDArray, NDArray]:
    """``phi + c D`` with ``g = u`` (c by a safeguarded Newton-bisection on the monotone scalar
    function ``g(phi + c D)``); returns the points and a flag of success (a direction along
    which g does not reach u within ``|c| <= 1e8`` fails)."""
    eta0 = np.einsum("qkp,qp->qk", Gs, phi)
    delta = np.einsum("qkp,qp->qk", Gs, D)
    q = phi.shape[0]
    lo, hi = np.full(q, -np.inf), np.full(q, np.inf)
    c = np.zeros(q)
    ok = np.zeros(q, dtype=bool)
    live = np.arange(q)
    with np.errstate(all="ignore"):
        for _ in range(200):
            cl = c[live]
            g, al, be = _g_parts(eta0[live] + cl[:, None] * delta[live], w[live])
            r = g - u[live]
            # g carries the rounding of the logits it is computed from
            scale = np.maximum(np.maximum(1.0, np.abs(u[live])), np.max(np.abs(eta0[live]), axis=1) + np.abs(cl))
            good = np.abs(r) <= 1e-13 * scale
            ok[live[good]] = True
            keep = ~good & np.isfinite(r) & (np.abs(cl) < 1e8)
            live, cl, r, al, be = live[keep], cl[keep], r[keep], al[keep], be[keep]
            if live.size == 0:
                break
            lo[live] = np.where(r < 0, np.maximum(lo[live], cl), lo[live])
            hi[live] = np.where(r > 0, np.minimum(hi[live], cl), hi[live])
            d = np.sum((al - be) * delta[live], axis=1)
            newton = cl - r / d
            l_, h_ = lo[live], hi[live]
            bracket = np.isfinite(l_) & np.isfinite(h_)
            inside = np.isfinite(newton) & (newton > l_) & (newton < h_)
            out = 2.0 * np.abs(cl) + 1.0
            grow = np.where(r < 0, np.where(np.isfinite(h_), h_, out), np.where(np.isfinite(l_), l_, -out))
            nxt = np.where(inside, newton, np.where(bracket, 0.5 * (l_ + h_), grow))
            still = np.abs(nxt - cl) <= 1e-15 * np.maximum(1.0, np.abs(cl))  # no further move: solved to rounding
            ok[live[still]] = True
            c[live] = nxt
    return phi + c[:, None] * D, ok


def _solve(lik: LinearSoftmaxLikelihood, Gs: NDArray, w: NDArray, u: NDArray, phi0: NDArray,
           D: NDArray, max_iter: int = 100) -> tuple[NDArray, NDArray, NDArray]:
    """``max lp s.t. g = u`` for q problems from the starts ``phi0`` (retracted first): the
    maximisers (q, p), the values lp (q,) (plus the last step's predicted gain) and a
    convergence flag."""
    phi, ok = _retract(lik, phi0, Gs, w, u, D)
    lp, gr, H = lik.evaluate(phi)
    q, p = phi.shape
    val = lp.copy()
    live = ok.copy()
    done = np.zeros(q, dtype=bool)
    mult = np.full(q, np.nan)  # the multiplier of the last KKT solve (lambda = mu at the solution)
    for _ in range(max_iter):
        idx = np.flatnonzero(live & ~done)
        if idx.size == 0:
            break
        assert gr is not None and H is not None
        eta = np.einsum("qkp,qp->qk", Gs[idx], phi[idx])
        _, al, be = _g_parts(eta, w[idx])
        a = np.einsum("qkp,qk->qp", Gs[idx], al - be)  # grad g
        Heta = (np.einsum("qk,kl->qkl", al, np.eye(lik.K)) - al[:, :, None] * al[:, None, :]
                - np.einsum("qk,kl->qkl", be, np.eye(lik.K)) + be[:, :, None] * be[:, None, :])
        Hg = np.einsum("qkp,qkl,qlr->qpr", Gs[idx], Heta, Gs[idx])
        lam = np.where(np.isfinite(mult[idx]), mult[idx],
                       np.einsum("qp,qp->q", a, gr[idx]) / np.maximum(np.einsum("qp,qp->q", a, a), 1e-300))
        m = idx.size
        kkt = np.zeros((m, p + 1, p + 1))
        rhs = np.zeros((m, p + 1))
        rhs[:, :p] = -gr[idx]

        def step_with(HL: NDArray) -> NDArray:
            kkt[:, :p, :p] = HL
            kkt[:, :p, p] = -a
            kkt[:, p, :p] = a
            kkt[:, p, p] = 0.0
            with np.errstate(all="ignore"):
                try:
                    return np.linalg.solve(kkt, rhs[:, :, None])[:, :, 0]
                except np.linalg.LinAlgError:
                    out = np.zeros((m, p + 1))
                    for i in range(m):
                        try:
                            out[i] = np.linalg.solve(kkt[i], rhs[i])
                        except np.linalg.LinAlgError:
                            out[i] = np.nan
                    return out

        sm = step_with(H[idx] - lam[:, None, None] * Hg)
        s, mu = sm[:, :p], sm[:, p]
        dec = np.einsum("qp,qp->q", s, gr[idx])
        bad = ~(np.isfinite(dec) & (dec > 0.0))
        if bad.any():  # no ascent: lp's Hessian alone (negative definite: an ascent direction)
            s2 = step_with(H[idx])
            s = np.where(bad[:, None], s2[:, :p], s)
            mu = np.where(bad, np.nan, mu)
            dec = np.einsum("qp,qp->q", s, gr[idx])
        mult[idx] = mu
        # the tail rule: the integrand needs pl to a relative accuracy of NODE_TOL / pl
        with np.errstate(over="ignore"):
            rel = np.exp(np.minimum(lp[idx] - lik.lp_hat, 0.0))
        conv = (~(dec * rel > NODE_TOL) & (dec < 1e-2)) | ~(dec > NODE_TOL)  # NaN: nothing more to gain
        fin = idx[conv]
        done[fin] = True
        val[fin] = lp[fin] + np.maximum(np.where(np.isfinite(dec[conv]), dec[conv], 0.0), 0.0) / 2.0
        idx, s, dec = idx[~conv], s[~conv], dec[~conv]
        t = np.ones(idx.size)
        pending = np.ones(idx.size, dtype=bool)
        new_phi = phi[idx].copy()
        new_lp, new_gr, new_H = lp[idx].copy(), gr[idx].copy(), H[idx].copy()
        for _h in range(20):  # candidates evaluated with their derivatives (most are accepted at t = 1)
            sub = np.flatnonzero(pending)
            if sub.size == 0:
                break
            cand, okr = _retract(lik, phi[idx[sub]] + t[sub, None] * s[sub], Gs[idx[sub]], w[idx[sub]], u[idx[sub]],
                                 D[idx[sub]])
            c_lp, c_gr, c_H = lik.evaluate(cand)
            assert c_gr is not None and c_H is not None
            good = okr & (c_lp >= lp[idx[sub]] - 1e-12 * (1.0 + np.abs(lp[idx[sub]])))
            gs = sub[good]
            new_phi[gs], new_lp[gs], new_gr[gs], new_H[gs] = cand[good], c_lp[good], c_gr[good], c_H[good]
            pending[gs] = False
            t[sub[~good]] *= 0.5
        stuck = pending
        if stuck.any():  # no step raises lp: at the maximum to rounding
            done[idx[stuck]] = True
            val[idx[stuck]] = lp[idx[stuck]]
        mv = idx[~stuck]
        if mv.size:
            keep = ~stuck
            phi[mv], lp[mv], gr[mv], H[mv] = new_phi[keep], new_lp[keep], new_gr[keep], new_H[keep]
            val[mv] = new_lp[keep]
    conv_flag = done & live
    val = np.where(live, val, -np.inf)
    return phi, val, conv_flag


def _chains(lik: LinearSoftmaxLikelihood, w: NDArray, side: int) -> list[NDArray | None]:
    """The chains' extra starting directions for one side of weights ``w`` (K,): None for the
    Wald chain, and on a side that is not certified convex, each class of extreme weight."""
    K = lik.K
    binary = np.all((w == 0.0) | (w == 1.0))
    size = int(np.sum(w == 1.0))
    if binary and ((side > 0 and size == 1) or (side < 0 and size == K - 1)):
        return [None]
    pick = np.flatnonzero(w == (w.max() if side > 0 else w.min()))
    return [None] + [lik.class_direction(int(j)) for j in pick]


def _side(lik: LinearSoftmaxLikelihood, Gs: NDArray, w: NDArray, u_hat: NDArray, sd: NDArray, side: int) -> NDArray:
    """The integral of ``pl_w(expit u) t (1 - t)`` over one side of u_hat for every row."""
    m = Gs.shape[0]
    total = np.zeros(m)
    if m == 0:
        return total
    dirs = _chains(lik, w, side)
    wq = np.broadcast_to(w, (m, lik.K))
    Dshift = lik.shift_direction(np.ascontiguousarray(wq))
    start = np.clip(u_hat, -U_MAX, U_MAX)
    width = WIDTH * sd
    for _widen in range(8):
        end = np.clip(start + side * width, -U_MAX, U_MAX)
        live = np.abs(end - start) > 0.0
        if not live.any():
            break
        ids = np.flatnonzero(live)

        def evaluate(rows: NDArray, nodes: NDArray, ids: NDArray = ids) -> tuple[NDArray, None]:
            rr = np.repeat(ids[rows], nodes.shape[1])  # every node of every panel: one batch
            uu = nodes.ravel()
            best = np.full(uu.size, -np.inf)
            for dvec in dirs:
                if dvec is None:  # the Wald path's point, retracted along the shift
                    phi, D = _wald_start(lik, Gs[rr], wq[rr], uu), Dshift[rr]
                else:  # the class's logit raised (or lowered) alone until g = u
                    phi, D = np.broadcast_to(lik.phi_hat, (uu.size, lik.p)).copy(), np.broadcast_to(dvec, (uu.size, lik.p))
                phi, _ = _retract(lik, phi, Gs[rr], wq[rr], uu, D)
                _, val, _ = _solve(lik, Gs[rr], wq[rr], uu, phi, Dshift[rr])
                best = np.maximum(best, val)
            pl = np.exp(np.minimum(best - lik.lp_hat, 0.0)).reshape(nodes.shape)
            t = expit(nodes)
            return pl * t * (1.0 - t), None

        a = np.where(side > 0, start, end)[ids]
        b = np.where(side > 0, end, start)[ids]
        val, nodes, f, _ = adaptive_clenshaw_curtis(a, b, evaluate, side, ACC)
        total[ids] += val
        far = f[:, -1] if side > 0 else f[:, 0]
        bu = end[ids]
        t = expit(bu)
        plb = far / np.maximum(t * (1.0 - t), 1e-300)
        tail = plb * expit(-np.abs(bu))
        more = (tail > TOL) & (np.abs(bu) < U_MAX)
        if not more.any():
            break
        nxt = np.zeros(m, dtype=bool)
        nxt[ids[more]] = True
        start = np.where(nxt, end, start)
        width = np.where(nxt, 2.0 * width, 0.0)
    return total


def _wald_start(lik: LinearSoftmaxLikelihood, Gs: NDArray, w: NDArray, u: NDArray) -> NDArray:
    """The Wald path's point at u: ``phi_hat + (u - u_hat) cov a / (a' cov a)``."""
    q = Gs.shape[0]
    phi = np.broadcast_to(lik.phi_hat, (q, lik.p))
    eta = np.einsum("qkp,p->qk", Gs, lik.phi_hat)
    g, al, be = _g_parts(eta, w)
    a = np.einsum("qkp,qk->qp", Gs, al - be)
    ca = a @ lik.cov
    den = np.maximum(np.einsum("qp,qp->q", a, ca), 1e-300)
    return phi + ((u - g) / den)[:, None] * ca


def softmax_bounds(
    lik: LinearSoftmaxLikelihood, Gs: ArrayLike, ws: list[NDArray[np.float64]], block_rows: int = 64
) -> list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """theta_hat, lower and upper predictive probability of ``h_w`` for test rows with designs
    ``Gs`` (m, K, p), for each weight vector of ``ws`` (module docstring).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 80)
    >>> z = 2.0 * np.eye(3)[y] + rng.normal(size=(80, 3))
    >>> G = np.zeros((80, 3, 5)); G[:, [0, 1, 2], [0, 1, 2]] = z; G[:, 1, 3] = G[:, 2, 4] = 1.0
    >>> lik = LinearSoftmaxLikelihood(G, np.eye(3)[y], np.r_[1.0, 1.0, 1.0, 0.0, 0.0], (-1, 3, 4))
    >>> (h, lo, up), = softmax_bounds(lik, G[:1], [np.array([1.0, 0.0, 0.0])])
    >>> bool(lo[0] < h[0] < up[0])
    True
    """
    Gs = np.asarray(Gs, dtype=float)
    if Gs.ndim != 3 or Gs.shape[1:] != (lik.K, lik.p):
        raise ValueError(f"test designs must have shape (m, {lik.K}, {lik.p}), got {Gs.shape}")
    Gs = Gs / lik.scale
    if not np.all(np.isfinite(Gs)):
        bad = np.flatnonzero(~np.all(np.isfinite(Gs), axis=(1, 2)))
        raise ValueError(f"test rows must be finite; rows {bad[:10].tolist()} hold inf or NaN")
    scale = float(np.max(np.abs(lik.G))) if lik.G.size else 1.0
    wide = np.max(np.abs(Gs), axis=(1, 2)) > WIDE * max(scale, 1.0)
    if wide.any():
        raise ValueError(
            f"test rows {np.flatnonzero(wide)[:10].tolist()} have scores beyond {WIDE:g} times the largest calibration "
            "score: the predictive bounds of this model are not derived for such extreme rows; "
            "rescale the scores or use temperature scaling or evmultinom (exact limits)"
        )
    m = Gs.shape[0]
    out = []
    for w in ws:
        w = np.asarray(w, dtype=float)
        if w.shape != (lik.K,) or np.any(~((w >= 0) & (w <= 1))):
            raise ValueError(f"weights must be {lik.K} numbers in [0, 1], got {w!r}")
        h, lo, up = np.empty(m), np.empty(m), np.empty(m)
        for s in range(0, m, block_rows):
            sl = slice(s, s + block_rows)
            h[sl], lo[sl], up[sl] = _bounds_block(lik, Gs[sl], w)
        out.append((h, lo, up))
    return out


def _bounds_block(lik: LinearSoftmaxLikelihood, Gs: NDArray, w: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    m = Gs.shape[0]
    eta = np.einsum("qkp,p->qk", Gs, lik.phi_hat)
    th = np.exp(eta - _lse(eta)[:, None])
    h = np.clip(th @ w, 0.0, 1.0)
    lo, up = h.copy(), h.copy()
    if m == 0 or np.ptp(w) == 0.0:
        return h, lo, up
    wq = np.broadcast_to(w, (m, lik.K))
    u_hat, al, be = _g_parts(eta, wq)
    a = np.einsum("qkp,qk->qp", Gs, al - be)
    sd = np.sqrt(np.maximum(np.einsum("qp,pr,qr->q", a, lik.cov, a), 1e-300))
    low_side = h > TOL
    high_side = 1.0 - h > TOL
    il = _side(lik, Gs[low_side], w, u_hat[low_side], sd[low_side], -1)
    iu = _side(lik, Gs[high_side], w, u_hat[high_side], sd[high_side], +1)
    lo[low_side] = np.clip(h[low_side] - il, 0.0, h[low_side])
    up[high_side] = np.clip(h[high_side] + iu, h[high_side], 1.0)
    return h, lo, up


# ------------------------------------------------------------------ coefficient profiles
def coefficient_profile(lik: LinearSoftmaxLikelihood, j: int, value: float,
                        start: NDArray | None = None) -> tuple[float, float, NDArray]:
    """``max lp(phi) s.t. phi_j = value`` (phi in the model's units): the profile value, its slope
    ``d lp_p / d value`` (the envelope theorem: the partial derivative of lp in phi_j at the
    constrained maximum) and the maximiser (in the engine's units), by damped Newton on the other
    coordinates from ``start`` (default: phi_hat moved along the Wald regression on phi_j)."""
    d = lik.scale
    v = float(value) * d[j]
    free = np.arange(lik.p) != j
    if start is None:
        phi = lik.phi_hat + lik.cov[:, j] * (v - lik.phi_hat[j]) / lik.cov[j, j]
    else:
        phi = np.array(start, dtype=float)
    phi[j] = v
    lp, g, H = (x[0] for x in lik.evaluate(phi[None]))  # type: ignore[index]
    for _ in range(200):
        gf, Hf = g[free], H[np.ix_(free, free)]
        try:
            step = -np.linalg.solve(Hf, gf)
        except np.linalg.LinAlgError:
            break
        dec = float(gf @ step)
        t = 1.0
        while True:
            cand = phi.copy()
            cand[free] += t * step
            c_lp, c_g, c_H = (x[0] for x in lik.evaluate(cand[None]))  # type: ignore[index]
            if c_lp >= lp - 1e-12 * (1.0 + abs(lp)) or t < 1e-10:
                break
            t *= 0.5
        phi, lp, g, H = cand, float(c_lp), c_g, c_H
        if dec * t <= 1e-13 * (1.0 + abs(lp)):
            break
    return float(lp), float(g[j]) * d[j], phi


def coefficient_conf_int(lik: LinearSoftmaxLikelihood, j: int, level: float = 0.95) -> tuple[float, float]:
    """:func:`_conf_int` on one BLAS thread: its products are thin (one parameter row against
    the calibration rows), and split over threads on a shared machine they took 33 s of CPU for
    vector scaling's 19 intervals at K = 10 (digits_logits), 2.6 s on one thread."""
    from evstat.likelihood import _kernels

    with _kernels.single_threaded_blas():
        return _conf_int(lik, j, level)


def _conf_int(lik: LinearSoftmaxLikelihood, j: int, level: float = 0.95) -> tuple[float, float]:
    """Likelihood-ratio interval of coefficient ``j`` (the model's units): the two roots of
    ``lp_p(b) = lp_hat - chi2_1(level) / 2`` of the concave profile, each bracketed by stepping
    out from the estimate (doubling) and found by Brent's method (scipy), every profile solved
    from the last maximiser; an end where the profile never falls that low (within 1e8 of the
    estimate) is infinite. With a penalty the profile is that of the penalised likelihood (the
    contour of the module docstring)."""
    from scipy.optimize import brentq

    from evstat.likelihood.coefficient_profile import _chi2_ppf_1

    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
    drop = 0.5 * _chi2_ppf_1(level)
    d = lik.scale[j]
    est, se = float(lik.phi_hat[j] / d), float(np.sqrt(lik.cov[j, j]) / d)
    ends = []
    for side in (-1.0, 1.0):
        dist = se * np.sqrt(2 * drop) * 1.5
        start: list[NDArray | None] = [None]

        def excess(b: float) -> float:
            # from the Wald regression start and from the last maximiser: the larger (the inner
            # Newton from a far start can stop short on a flat, nearly separated direction)
            lp, _, phi = coefficient_profile(lik, j, b)
            if start[0] is not None:
                lp2, _, phi2 = coefficient_profile(lik, j, b, start[0])
                if lp2 > lp:
                    lp, phi = lp2, phi2
            start[0] = phi
            return lp - lik.lp_hat + drop

        inner = est
        for _ in range(60):
            if excess(est + side * dist) < 0.0:
                break
            inner = est + side * dist
            dist *= 2.0
            if dist > 1e8 * (1 + abs(est)):
                dist = np.inf
                break
        if not np.isfinite(dist):
            ends.append(side * np.inf)
            continue
        a, b = sorted((inner, est + side * dist))
        ends.append(float(brentq(excess, a, b, xtol=1e-12 * (1 + abs(est)), rtol=1e-15, maxiter=200)))
    return float(ends[0]), float(ends[1])
