"""Temperature scaling's likelihood, its level sets and the exact predictive lower and upper
probabilities of sets of classes (issue 36; notes/evidential-multinomial.md, section 4).

Model. Class logits ``z_i`` (n, K) of the calibration rows, one parameter ``tau = 1 / T``,
``theta(z; tau) = softmax(tau z)``; log-likelihood of targets ``Y`` (n, K) (one-hot labels;
rows summing to 1), optionally weighted,

    l(tau) = sum_i [tau <Y_i, z_i> - logsumexp(tau z_i)],
    l'(tau) = sum_i [<Y_i, z_i> - zbar_i(tau)],     l''(tau) = -sum_i var_i(tau),

with ``zbar_i`` and ``var_i`` the mean and variance of ``z_i`` under ``theta(z_i; tau)``: l is
concave, and strictly so unless every row's logits are equal. Contour
``pl(tau) = exp(l(tau) - l(tau_hat))``.

Level sets. ``{tau : pl(tau) >= omega}`` is an interval ``[L(omega), R(omega)]``, the same for
every test row. With the signed root ``r(tau) = sign(tau - tau_hat) sqrt(2 (l_hat - l(tau)))``
(R's profile z; analytic and increasing), ``omega = exp(-r^2 / 2)`` and the ends are
``tau(-r)`` and ``tau(+r)``. The map ``r -> tau`` is computed once per fit: exact solutions of
``l(tau) = l_hat - r^2 / 2`` (Newton's method on the concave l, monotone from the outside) at
Chebyshev-Lobatto nodes of panels of unit length in r on each side, interpolated between
them (barycentric formula, degree :data:`DEGREE`; ``tau(r)`` is analytic, and the tests check
the interpolant against exact solutions between the nodes).

Predictive lower and upper probabilities (notes, sections 2 and 4). For a weight vector ``w``
in [0, 1]^K (the indicator of a set of classes A) and a test row z, ``f(tau) = sum_k w_k
theta_k(z; tau)``; then

    Bel = int_0^1 a(omega) d omega,   a(omega) = min {f(tau) : L(omega) <= tau <= R(omega)},
    Pl  = int_0^1 b(omega) d omega,   b(omega) = max {...},

and with ``omega = exp(-r^2 / 2)``, ``d omega = -r exp(-r^2 / 2) dr``,

    Bel = f_hat - int_0^inf (f_hat - a(r)) r exp(-r^2 / 2) dr,   Pl = f_hat + int_0^inf (b(r) - f_hat) r exp(-r^2 / 2) dr.

The extremes of the smooth f over an interval are at its ends or at its interior stationary
points, so ``a(r) = min(f(tau(-r)), f(tau(r)), f(s) for the stationary points s with
|r(s)| <= r)`` exactly (b likewise). The stationary points of ``f' = sum_k w_k theta_k (z_k -
zbar)`` are bracketed by the sign changes of f' on the interpolation nodes (the whole range
``|r| <= R_MAX``) and bisected to machine precision. For a singleton {k} there is at most
one, a maximum (``theta_k' = theta_k (z_k - zbar)`` and zbar increases with tau), so Bel({k})
is at the ends and Pl({k}) at the ends or at the mode. ``a`` and ``b`` are continuous and
piecewise smooth (kinks where the end that is extreme changes, or a stationary value is
reached again); each integral is computed by the adaptive Clenshaw-Curtis rule shared with
evlogit (:func:`evstat.likelihood.quadrature.adaptive_clenshaw_curtis`; it bisects the panels
holding a kink) over ``0 <= r <= R_MAX``; beyond, ``omega < exp(-R_MAX^2 / 2) = 1.3e-14``.

Cost: the level-set map, ``2 * PANELS * DEGREE + 1`` exact solves of a pass over the
calibration rows each (a few Newton iterations), once per fit; per test row and event, a few
hundred evaluations of a softmax of K logits. Nothing is of size 2^K.

Extreme logits. ``theta(z; tau)`` is computed as ``softmax(tau (z - c))`` with ``c`` the
largest logit for ``tau >= 0`` and the smallest for ``tau < 0`` (all exponents <= 0), so test
logits up to 1e300 give exact limits (one-hot or ties) instead of overflow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from evstat.likelihood.quadrature import adaptive_clenshaw_curtis

__all__ = ["R_MAX", "TemperatureLikelihood", "temperature_bounds", "temperature_probs"]

#: the layer cake is integrated over ``0 <= r <= R_MAX`` (omega >= exp(-R_MAX^2 / 2) = 1.3e-14)
R_MAX = 8.0
#: unit panels in r on each side of tau_hat for the level-set map
PANELS = int(R_MAX)
#: degree of the Chebyshev interpolation of ``tau(r)`` on each panel
DEGREE = 16
#: float64 cells per chunk of (tau values x calibration cells) in the likelihood passes
CHUNK_CELLS = 4_000_000
#: panel acceptance of the adaptive quadrature (order 16 vs order 8 difference, per panel)
ACC = 1e-11
#: float64 cells (rows x nodes x classes) per block of the singletons' fast path
SINGLETON_CELLS = 2_000_000


def temperature_probs(tau: ArrayLike, Z: ArrayLike) -> NDArray[np.float64]:
    """``softmax(tau z)`` for taus (..., J) and logit rows (..., K) -> (..., J, K), without
    overflow for any finite logits (module docstring, "Extreme logits").

    Examples
    --------
    >>> temperature_probs([[1.0, -1.0]], [[0.0, 1e300]]).round(3).tolist()
    [[[0.0, 1.0], [1.0, 0.0]]]
    """
    tau = np.asarray(tau, dtype=float)[..., :, None]
    Z = np.asarray(Z, dtype=float)[..., None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        top = np.where(tau >= 0.0, Z.max(axis=-1, keepdims=True), Z.min(axis=-1, keepdims=True))
        d = Z - top  # <= 0 where tau >= 0, >= 0 where tau < 0 (-inf/+inf for differences beyond 1.8e308)
        e = tau * d
        e = np.where(tau == 0.0, 0.0, e)
        e = np.exp(np.minimum(e, 0.0))
    return e / e.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class TemperatureLikelihood:
    """Temperature scaling's likelihood ``l(tau)`` (tau = 1 / T) of calibration logits.

    Attributes
    ----------
    Z : array (n, K)
        The calibration rows' class logits.
    Y : array (n, K)
        Targets (rows summing to 1; the one-hot labels).
    weights : array (n,)
        Prior weights of the rows (ones by default).
    tau_hat : float
        The maximiser of l, polished here by Newton's method from the start given.
    """

    Z: NDArray[np.float64]
    Y: NDArray[np.float64]
    tau_start: float
    weights: NDArray[np.float64] | None = None
    tau_hat: float = field(init=False)
    loglik_hat: float = field(init=False)
    info: float = field(init=False)
    _map: dict[str, Any] = field(init=False, default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        Z = np.ascontiguousarray(np.asarray(self.Z, dtype=float))
        if not np.all(np.isfinite(Z)):
            raise ValueError("the calibration logits must be finite")
        object.__setattr__(self, "Z", Z)
        object.__setattr__(self, "Y", np.ascontiguousarray(np.asarray(self.Y, dtype=float)))
        wt = np.ones(Z.shape[0]) if self.weights is None else np.asarray(self.weights, dtype=float)
        object.__setattr__(self, "weights", wt)
        tau, ll, info = self._polish(float(self.tau_start))
        object.__setattr__(self, "tau_hat", tau)
        object.__setattr__(self, "loglik_hat", ll)
        object.__setattr__(self, "info", info)

    # ------------------------------------------------------------------ the likelihood
    def derivatives(self, tau: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """``l(tau)``, ``l'(tau)`` and ``-l''(tau)`` for an array of taus (one pass over the rows,
        in chunks of :data:`CHUNK_CELLS`)."""
        tau = np.atleast_1d(np.asarray(tau, dtype=float))
        Z, Y, wt = self.Z, self.Y, self.weights
        assert wt is not None
        n, K = Z.shape
        l0, l1, l2 = np.zeros(tau.size), np.zeros(tau.size), np.zeros(tau.size)
        yz = np.sum(Y * Z, axis=1)  # <Y_i, z_i>
        ysum = np.sum(Y, axis=1)
        step = max(1, CHUNK_CELLS // max(1, tau.size * K))
        for a in range(0, n, step):
            z = Z[a : a + step]
            w = wt[a : a + step]
            top = np.where(tau[:, None] >= 0.0, z.max(axis=1)[None, :], z.min(axis=1)[None, :])  # (J, c)
            e = np.exp(tau[:, None, None] * (z[None, :, :] - top[:, :, None]))  # (J, c, K), exponents <= 0
            s = e.sum(axis=2)
            lse = np.log(s) + tau[:, None] * top
            p = e / s[:, :, None]
            zbar = np.einsum("jck,ck->jc", p, z)
            z2 = np.einsum("jck,ck->jc", p, z * z)
            l0 += (tau[:, None] * yz[a : a + step][None, :] - ysum[a : a + step][None, :] * lse) @ w
            l1 += (yz[a : a + step][None, :] - ysum[a : a + step][None, :] * zbar) @ w
            l2 += (ysum[a : a + step][None, :] * np.maximum(z2 - zbar * zbar, 0.0)) @ w
        return l0, l1, l2

    def loglik(self, tau: ArrayLike) -> NDArray[np.float64]:
        """``l(tau)`` for an array of taus."""
        return self.derivatives(tau)[0]

    def _polish(self, tau: float) -> tuple[float, float, float]:
        """Newton's method on l' from ``tau`` (with step halving on l): the maximiser to full
        precision, its log-likelihood and information."""
        l0, l1, l2 = (float(v[0]) for v in self.derivatives(tau))
        if not l2 > 0.0:
            raise ValueError(
                "temperature scaling's likelihood is flat: every calibration row has equal logits in all "
                "classes, so the temperature is not identified"
            )
        for _ in range(100):
            step = l1 / l2
            t = 1.0
            while True:
                cand = tau + t * step
                c0, c1, c2 = (float(v[0]) for v in self.derivatives(cand))
                if c0 >= l0 - 1e-13 * (1.0 + abs(l0)) or t < 1e-12:
                    break
                t *= 0.5
            done = abs(t * step) <= 1e-15 * (1.0 + abs(tau))
            tau, l0, l1, l2 = cand, c0, c1, c2
            if done or not l2 > 0.0:
                break
        return tau, l0, l2

    # ------------------------------------------------------------------ the level sets
    def level_map(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The exact solutions ``tau(r)`` at the interpolation nodes: ``(r, tau)``, arrays of
        shape (2 * PANELS, DEGREE + 1), panels ordered from ``-R_MAX`` to ``R_MAX`` (computed
        once, cached)."""
        if "nodes" not in self._map:
            j = np.arange(DEGREE + 1)
            cheb = 0.5 * (1.0 - np.cos(np.pi * j / DEGREE))  # Chebyshev-Lobatto on [0, 1]
            edges = np.arange(-PANELS, PANELS + 1, dtype=float) * (R_MAX / PANELS)
            r = edges[:-1, None] + (edges[1:] - edges[:-1])[:, None] * cheb[None, :]
            r[:, 0], r[:, -1] = edges[:-1], edges[1:]
            tau = self._solve_levels(r.ravel()).reshape(r.shape)
            self._map["nodes"] = (r, tau)
        return self._map["nodes"]

    def _solve_levels(self, r: NDArray[np.float64]) -> NDArray[np.float64]:
        """tau with ``l(tau) = l_hat - r^2 / 2`` on the side of ``sign(r)`` (r = 0: tau_hat)."""
        sd = 1.0 / np.sqrt(self.info)
        target = self.loglik_hat - 0.5 * r * r
        tau = self.tau_hat + 2.0 * r * sd  # the Wald solution at twice the radius: outside (l concave)
        side = np.sign(r)
        live = r != 0.0
        out = np.full(r.shape, self.tau_hat)
        for _ in range(60):  # outward until outside the level set (l(tau) <= target)
            l0 = self.loglik(tau[live])
            inside = l0 > target[live]
            if not inside.any():
                break
            idx = np.flatnonzero(live)[inside]
            tau[idx] = self.tau_hat + 2.0 * (tau[idx] - self.tau_hat)
        else:
            raise ValueError(
                "temperature scaling's likelihood does not fall to exp(-R_MAX^2 / 2) of its maximum on one side "
                "(the scores separate the calibration rows: the level sets are unbounded), so its predictive "
                "lower and upper probabilities are not defined"
            )
        for _ in range(200):  # Newton from outside: monotone towards the solution (l concave)
            idx = np.flatnonzero(live)
            if idx.size == 0:
                break
            l0, l1, _ = self.derivatives(tau[idx])
            step = (target[idx] - l0) / l1
            new = tau[idx] + step
            # never past tau_hat (rounding near the mode)
            new = np.where(side[idx] * (new - self.tau_hat) > 0.0, new, 0.5 * (tau[idx] + self.tau_hat))
            done = np.abs(new - tau[idx]) <= 4e-16 * np.maximum(1.0, np.abs(new))
            tau[idx] = new
            live[idx[done]] = False
        out[r != 0.0] = tau[r != 0.0]
        return out

    def profile_interval(self, level: float = 0.95) -> tuple[float, float]:
        """The likelihood-ratio interval of tau = 1/T: the level set ``l(tau) >= l_hat -
        chi2_1(level) / 2``, exact (its two ends solved by Newton's method on l)."""
        from evstat.likelihood.coefficient_profile import _chi2_ppf_1

        level = float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
        r = float(np.sqrt(_chi2_ppf_1(level)))
        lo, hi = self._solve_levels(np.array([-r, r]))
        return float(lo), float(hi)

    def tau_at(self, r: ArrayLike) -> NDArray[np.float64]:
        """``tau(r)`` for r in [-R_MAX, R_MAX] (any shape): the level-set ends (``-r`` the lower
        end, ``+r`` the upper end of the level set ``omega = exp(-r^2 / 2)``), by barycentric
        Chebyshev interpolation of the exact solutions."""
        rn, tn = self.level_map()
        r = np.asarray(r, dtype=float)
        flat = np.clip(r.ravel(), -R_MAX, R_MAX)
        h = R_MAX / PANELS
        k = np.clip(np.floor((flat + R_MAX) / h).astype(np.intp), 0, 2 * PANELS - 1)
        xs, ys = rn[k], tn[k]  # (m, DEGREE + 1)
        wts = (-1.0) ** np.arange(DEGREE + 1)  # barycentric weights of Chebyshev-Lobatto nodes
        wts[0] *= 0.5
        wts[-1] *= 0.5
        diff = flat[:, None] - xs
        exact = diff == 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            q = wts[None, :] / diff
            val = np.sum(q * ys, axis=1) / np.sum(q, axis=1)
        hit = exact.any(axis=1)
        if hit.any():
            val[hit] = ys[hit, np.argmax(exact[hit], axis=1)]
        return val.reshape(r.shape)

    def r_of(self, tau: ArrayLike) -> NDArray[np.float64]:
        """The signed root ``r(tau)`` of taus inside ``[tau(-R_MAX), tau(R_MAX)]`` (outside: +-inf),
        by bisection on the interpolated map (monotone)."""
        tau = np.asarray(tau, dtype=float)
        flat = tau.ravel()
        lo_t, hi_t = self.tau_at(-R_MAX), self.tau_at(R_MAX)
        lo, hi = np.full(flat.shape, -R_MAX), np.full(flat.shape, R_MAX)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            below = self.tau_at(mid) < flat
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        out = 0.5 * (lo + hi)
        out = np.where(flat < lo_t, -np.inf, np.where(flat > hi_t, np.inf, out))
        return out.reshape(tau.shape)


def _f_and_slope(taus: NDArray, Z: NDArray, w: NDArray) -> tuple[NDArray, NDArray]:
    """``f = sum_k w_k theta_k(z; tau)`` and ``f'`` for taus (m, J), logits (m, K), weights (m, K)."""
    P = temperature_probs(taus, Z)  # (m, J, K)
    f = np.einsum("mjk,mk->mj", P, w)
    zc = Z - Z.max(axis=1, keepdims=True)  # f' is shift invariant; centred for accuracy
    with np.errstate(invalid="ignore", over="ignore"):
        zbar = np.einsum("mjk,mk->mj", P, zc)
        slope = np.einsum("mjk,mk,mk->mj", P, w, zc) - f * zbar
    return f, np.nan_to_num(slope, nan=0.0)


def _stationary(lik: TemperatureLikelihood, Z: NDArray, w: NDArray, max_points: int = 8) -> tuple[NDArray, NDArray]:
    """Interior stationary points of f for every row: their radii ``|r(s)|`` and values f(s),
    arrays (m, max_points) padded with +inf radii (module docstring)."""
    _, tn = lik.level_map()
    grid = np.unique(tn.ravel())  # ascending taus over |r| <= R_MAX
    m = Z.shape[0]
    _, sl = _f_and_slope(np.broadcast_to(grid, (m, grid.size)), Z, w)
    sg = np.sign(sl)
    change = (sg[:, :-1] * sg[:, 1:] < 0.0)
    rad = np.full((m, max_points), np.inf)
    val = np.zeros((m, max_points))
    rows, cells = np.nonzero(change)
    if rows.size == 0:
        return rad, val
    a, b = grid[cells].copy(), grid[cells + 1].copy()
    sa = sg[rows, cells]
    for _ in range(100):
        mid = 0.5 * (a + b)
        if np.all((mid == a) | (mid == b)):
            break
        _, s = _f_and_slope(mid[:, None], Z[rows], w[rows])
        same = np.sign(s[:, 0]) == sa
        a, b = np.where(same, mid, a), np.where(same, b, mid)
    s = 0.5 * (a + b)
    f, _ = _f_and_slope(s[:, None], Z[rows], w[rows])
    r = np.abs(lik.r_of(s))
    order = np.lexsort((r, rows))
    rows, r, f = rows[order], r[order], f[order, 0]
    slot = np.zeros(rows.size, dtype=np.intp)
    if rows.size > 1:
        first = np.r_[True, rows[1:] != rows[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(rows.size), 0))
        slot = np.arange(rows.size) - start
    keep = slot < max_points
    if not keep.all():  # more stationary points than slots: never seen for K <= 100; keep the nearest
        rows, r, f, slot = rows[keep], r[keep], f[keep], slot[keep]
    rad[rows, slot] = r
    val[rows, slot] = f
    return rad, val


#: Gauss-Legendre order per unit panel of r (the singletons' fast path)
GL_ORDER = 16
_XG, _WG = np.polynomial.legendre.leggauss(GL_ORDER)


def _gl(a: NDArray, b: NDArray) -> tuple[NDArray, NDArray]:
    """Nodes and weights (q, GL_ORDER) of Gauss-Legendre on [a_i, b_i]."""
    half = 0.5 * (b - a)
    return 0.5 * (a + b)[:, None] + half[:, None] * _XG[None, :], half[:, None] * _WG[None, :]


def _modes(lik: TemperatureLikelihood, Z: NDArray) -> NDArray:
    """tau*_k of every row and class: the maximiser of theta_k(z; tau) (the root of
    zbar(tau) = z_k, zbar increasing), +inf / -inf for the largest / smallest logit (theta_k
    monotone), NaN where it lies outside [tau(-R_MAX), tau(R_MAX)]."""
    m, K = Z.shape
    lo_t, hi_t = float(lik.tau_at(-R_MAX)), float(lik.tau_at(R_MAX))
    zc = Z - Z.max(axis=1, keepdims=True)
    P_lo = temperature_probs(np.full((m, 1), lo_t), Z)[:, 0]
    P_hi = temperature_probs(np.full((m, 1), hi_t), Z)[:, 0]
    zb_lo = np.sum(P_lo * zc, axis=1)[:, None]
    zb_hi = np.sum(P_hi * zc, axis=1)[:, None]
    inside = (zc > zb_lo) & (zc < zb_hi)  # zbar crosses z_k within the range
    out = np.full((m, K), np.nan)
    rows, ks = np.nonzero(inside)
    if rows.size == 0:
        return out
    a, b = np.full(rows.size, lo_t), np.full(rows.size, hi_t)
    Zr, zk = zc[rows], zc[rows, ks]
    for _ in range(200):  # bisection (zbar is monotone), vectorised over the pairs
        mid = 0.5 * (a + b)
        if np.all((mid == a) | (mid == b)):
            break
        P = temperature_probs(mid[:, None], Zr)[:, 0]
        below = np.sum(P * Zr, axis=1) < zk
        a, b = np.where(below, mid, a), np.where(below, b, mid)
    out[rows, ks] = 0.5 * (a + b)
    return out


def singleton_bounds(lik: TemperatureLikelihood, Z: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """theta_hat, Bel and Pl of every singleton (m, K): fixed Gauss-Legendre panels in r shared by
    all classes, the panels holding a kink (where the lower end's and the upper end's theta_k
    cross, for Bel; where the mode tau*_k enters the level set, for Pl) split there."""
    m, K = Z.shape
    h = temperature_probs(np.full((m, 1), lik.tau_hat), Z)[:, 0]
    edges = np.arange(int(R_MAX) + 1, dtype=float) * (R_MAX / int(R_MAX))
    r, wr = _gl(edges[:-1], edges[1:])  # (P, G)
    P, G = r.shape
    rr = r.ravel()
    dens = (rr * np.exp(-0.5 * rr * rr) * wr.ravel())  # (P G,)
    Pp = temperature_probs(np.broadcast_to(lik.tau_at(rr), (m, rr.size)), Z)  # (m, PG, K)
    Pm = temperature_probs(np.broadcast_to(lik.tau_at(-rr), (m, rr.size)), Z)
    # ---- Bel: a(r) = min(theta(tau(-r)), theta(tau(r))) (theta_k unimodal: no interior minimum)
    lower = np.minimum(Pm, Pp)
    dl = np.einsum("mjk,j->mk", h[:, None, :] - lower, dens)
    # the crossings of the two ends (kinks of a): located by bisection between the nodes where
    # theta(tau(-r)) - theta(tau(r)) changes sign, and every panel holding one integrated again
    # in pieces split there
    D = Pm - Pp  # (m, PG, K)
    sgn = np.sign(D)
    mi, ji, ki = np.nonzero(sgn[:, 1:, :] * sgn[:, :-1, :] < 0)
    if mi.size:
        lo_r, hi_r = rr[ji], rr[ji + 1]
        s_lo = sgn[mi, ji, ki]
        for _ in range(60):
            mid = 0.5 * (lo_r + hi_r)
            tt = np.stack([lik.tau_at(-mid), lik.tau_at(mid)], axis=1)
            th = np.take_along_axis(temperature_probs(tt, Z[mi]), ki[:, None, None], axis=2)[:, :, 0]
            same = np.sign(th[:, 0] - th[:, 1]) == s_lo
            lo_r, hi_r = np.where(same, mid, lo_r), np.where(same, hi_r, mid)
        cross = 0.5 * (lo_r + hi_r)
        pan = np.minimum((cross // (R_MAX / int(R_MAX))).astype(int), P - 1)
        _split_panels(lik, Z, h, mi, ki, pan, cross, edges, r, dens, dl, lower=True)
    # ---- Pl: b(r) = max(theta(tau(-r)), theta(tau(r)), theta(tau*) once tau* is inside)
    upper = np.maximum(Pm, Pp)
    modes = _modes(lik, Z)  # (m, K)
    has = np.isfinite(modes)
    rstar = np.full((m, K), np.inf)
    if has.any():
        rstar[has] = np.abs(lik.r_of(modes[has]))
    fstar = np.zeros((m, K))
    if has.any():
        mi2, ki2 = np.nonzero(has)
        fstar[mi2, ki2] = temperature_probs(modes[mi2, ki2][:, None], Z[mi2])[np.arange(mi2.size), 0, ki2]
    inside = rr[None, :, None] >= rstar[:, None, :]
    upper = np.where(inside, np.maximum(upper, fstar[:, None, :]), upper)
    du = np.einsum("mjk,j->mk", upper - h[:, None, :], dens)
    # the panel holding r*: split there (b is C^1 there; the split keeps full order)
    mi3, ki3 = np.nonzero(has & (rstar < R_MAX))
    if mi3.size:
        pan = np.minimum((rstar[mi3, ki3] // (R_MAX / int(R_MAX))).astype(int), P - 1)
        _split_panels(lik, Z, h, mi3, ki3, pan, rstar[mi3, ki3], edges, r, dens, du, lower=False,
                      rstar=rstar, fstar=fstar)
    lo = np.clip(h - dl, 0.0, h)
    up = np.clip(h + du, h, 1.0)
    return h, lo, up


def _split_panels(lik, Z, h, mi, ki, pan, cuts, edges, r, dens, acc, lower, rstar=None, fstar=None):
    """Replace the plain rule of the panels (row mi, class ki, panel pan) by the sum of the
    rules on its pieces between the cuts in it (several cuts of one panel are grouped)."""
    P, G = r.shape
    key = np.stack([mi, ki, pan], axis=1)
    uniq, inv = np.unique(key, axis=0, return_inverse=True)
    inv = inv.ravel()
    counts = np.bincount(inv)
    q = uniq.shape[0]
    maxc = int(counts.max())
    cut = np.full((q, maxc), np.nan)
    order = np.argsort(inv, kind="stable")
    slot = np.arange(inv.size) - np.r_[0, np.cumsum(counts)][inv[order]]
    cut[inv[order], slot] = cuts[order]
    cut = np.sort(cut, axis=1)  # NaN last
    um, uk, up = uniq[:, 0], uniq[:, 1], uniq[:, 2]
    a0, b0 = edges[up], edges[up + 1]
    bounds = np.column_stack([a0, np.where(np.isnan(cut), b0[:, None], cut), b0])  # (q, maxc + 2)
    hk = h[um, uk]

    def integrand(nr):
        tt = np.concatenate([lik.tau_at(-nr), lik.tau_at(nr)], axis=1)
        th = np.take_along_axis(temperature_probs(tt, Z[um]), uk[:, None, None], axis=2)[:, :, 0]
        if lower:
            return hk[:, None] - np.minimum(th[:, :GL_ORDER], th[:, GL_ORDER:])
        b = np.maximum(th[:, :GL_ORDER], th[:, GL_ORDER:])
        rs = rstar[um, uk][:, None]
        b = np.where(nr >= rs, np.maximum(b, fstar[um, uk][:, None]), b)
        return b - hk[:, None]

    rp = r[up]
    plain = np.sum(integrand(rp) * dens.reshape(P, G)[up], axis=1)
    add = np.zeros(q)
    for c in range(bounds.shape[1] - 1):
        a_, b_ = bounds[:, c], bounds[:, c + 1]
        nr, nw = _gl(a_, b_)
        add += np.sum(integrand(nr) * nr * np.exp(-0.5 * nr * nr) * nw, axis=1)
    np.add.at(acc, (um, uk), add - plain)


def temperature_bounds(
    lik: TemperatureLikelihood, Z: ArrayLike, ws: list[NDArray[np.float64]], block_rows: int = 256
) -> list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """theta_hat, lower and upper predictive probability of ``f_w`` for test logit rows, for each
    weight vector of ``ws`` (the indicator of a set of classes: theta_hat_A, Bel(A), Pl(A)).

    Parameters
    ----------
    lik : TemperatureLikelihood
    Z : array (m, K)
        Test logits (finite).
    ws : list of arrays (K,)
        Weights in [0, 1].
    block_rows : int
        Test rows per block (bounds memory).

    Returns
    -------
    list of (h_hat, lower, upper), arrays (m,) with ``0 <= lower <= h_hat <= upper <= 1``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 100)
    >>> Z = 2.0 * np.eye(3)[y] + rng.normal(size=(100, 3))
    >>> lik = TemperatureLikelihood(Z, np.eye(3)[y], 1.0)
    >>> (h, lo, up), = temperature_bounds(lik, [[1.0, 0.0, -1.0]], [np.array([1.0, 0.0, 0.0])])
    >>> bool(lo[0] < h[0] < up[0])
    True
    """
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    if not np.all(np.isfinite(Z)):
        bad = np.flatnonzero(~np.all(np.isfinite(Z), axis=1))
        raise ValueError(f"test logits must be finite; rows {bad[:10].tolist()} hold inf or NaN")
    m, K = Z.shape
    ws = [np.asarray(w, dtype=float) for w in ws]
    for w in ws:
        if w.shape != (K,) or np.any(~((w >= 0) & (w <= 1))):
            raise ValueError(f"weights must be {K} numbers in [0, 1], got {w!r}")
    out: list[Any] = [None] * len(ws)
    # singletons {k} and their complements: the shared fast path (Pl(not k) = 1 - Bel({k}))
    single = {}
    for i, w in enumerate(ws):
        ones = np.flatnonzero(w == 1.0)
        if np.all((w == 0.0) | (w == 1.0)) and ones.size == 1:
            single[i] = (int(ones[0]), False)
        elif np.all((w == 0.0) | (w == 1.0)) and ones.size == K - 1 and K > 1:
            single[i] = (int(np.flatnonzero(w == 0.0)[0]), True)
    if single:
        H, L, U = np.empty((m, K)), np.empty((m, K)), np.empty((m, K))
        step = max(1, SINGLETON_CELLS // (2 * int(R_MAX) * GL_ORDER * K))
        for s in range(0, m, step):
            sl = slice(s, s + step)
            H[sl], L[sl], U[sl] = singleton_bounds(lik, Z[sl])
        for i, (k, comp) in single.items():
            out[i] = (1.0 - H[:, k], 1.0 - U[:, k], 1.0 - L[:, k]) if comp else (H[:, k].copy(), L[:, k].copy(), U[:, k].copy())
    for i, w in enumerate(ws):
        if out[i] is not None:
            continue
        h, lo, up = np.empty(m), np.empty(m), np.empty(m)
        for s in range(0, m, block_rows):
            sl = slice(s, s + block_rows)
            h[sl], lo[sl], up[sl] = _bounds_block(lik, Z[sl], w)
        out[i] = (h, lo, up)
    return out


def _bounds_block(lik: TemperatureLikelihood, Z: NDArray, w1: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    m = Z.shape[0]
    w = np.broadcast_to(w1, Z.shape)
    h, _ = _f_and_slope(np.full((m, 1), lik.tau_hat), Z, w)
    h = np.clip(h[:, 0], 0.0, 1.0)
    if m == 0 or np.ptp(w1) == 0.0:
        return h, h.copy(), h.copy()
    rad, val = _stationary(lik, Z, w)
    # panels of r: [0, 2], [2, 4], [4, 6], [6, 8] for every row
    edges = np.linspace(0.0, R_MAX, 5)
    P = edges.size - 1
    rows = np.repeat(np.arange(m), P)
    a = np.tile(edges[:-1], m)
    b = np.tile(edges[1:], m)

    def extremes(ids: NDArray, r: NDArray) -> tuple[NDArray, NDArray]:
        rr = rows[ids]
        taus = np.concatenate([lik.tau_at(-r), lik.tau_at(r)], axis=1)  # (q, 2J)
        f, _ = _f_and_slope(taus, Z[rr], w[rr])
        J = r.shape[1]
        lo = np.minimum(f[:, :J], f[:, J:])
        hi = np.maximum(f[:, :J], f[:, J:])
        inside = rad[rr][:, None, :] <= r[:, :, None]  # (q, J, S)
        v = val[rr][:, None, :]
        lo = np.minimum(lo, np.where(inside, v, np.inf).min(axis=2))
        hi = np.maximum(hi, np.where(inside, v, -np.inf).max(axis=2))
        return lo, hi

    dens = lambda r: r * np.exp(-0.5 * r * r)  # noqa: E731

    def lower(ids: NDArray, r: NDArray) -> tuple[NDArray, None]:
        lo, _ = extremes(ids, r)
        return np.maximum(h[rows[ids]][:, None] - lo, 0.0) * dens(r), None

    def upper(ids: NDArray, r: NDArray) -> tuple[NDArray, None]:
        _, hi = extremes(ids, r)
        return np.maximum(hi - h[rows[ids]][:, None], 0.0) * dens(r), None

    il, *_ = adaptive_clenshaw_curtis(a, b, lower, 1, ACC)
    iu, *_ = adaptive_clenshaw_curtis(a, b, upper, 1, ACC)
    dl = np.bincount(rows, weights=il, minlength=m)
    du = np.bincount(rows, weights=iu, minlength=m)
    lo = np.clip(h - dl, 0.0, h)
    up = np.clip(h + du, h, 1.0)
    return h, lo, up
