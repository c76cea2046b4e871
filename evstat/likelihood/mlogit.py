"""The multinomial logistic likelihood (evmultinom's model; the K-class generalisation of
evlogit, issue 16): the likelihood and its MLE, the functional g of a weight vector, and the
coefficients' profile likelihoods. The profile and predictive engines built on it are the
modules listed in :mod:`evstat.likelihood.multinomial`.

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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

from evstat.likelihood.coefficient_profile import _chi2_ppf_1
from evstat.likelihood.linear_profile import relative_loglik

__all__ = [
    "CHUNK_CELLS",
    "NODE_MAX_ITER",
    "NODE_TOL",
    "TARGETS",
    "U_MAX",
    "WIDE_SCALE",
    "MultinomialLikelihood",
    "coefficient_conf_int",
    "coefficient_profile_loglik",
    "multinomial_loglik",
    "multinomial_mle",
    "multinomial_probs",
    "multinomial_score_info",
    "multinomial_targets",
    "softmax",
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
