"""Evidential neural network classifier (Denoeux 2000; Denoeux's slides, 2017), with the
parametrisation, initialisation, cost and optimiser of evclass's ``proDSinit`` / ``proDSfit`` /
``proDSval`` (written anew from their definitions, not translated).

Model. ``r`` prototypes ``p_k`` (rows of ``W``), each with a class-membership vector ``u_k``
(``u_kj = beta_kj^2 / sum_l beta_kl^2``), a reliability ``alpha_k = 0.99 / (1 + exp(-eta_k))``
and a scale ``gamma_k``. For an input ``x`` with ``d_k = ||x - p_k||^2 / 2`` and
``s_k = alpha_k exp(-gamma_k^2 d_k)``, prototype ``k`` gives

    m_k({w_j}) = u_kj s_k,      m_k(Omega) = 1 - s_k,

and the output is the Dempster combination of the ``r`` mass functions. Its focal sets are the
singletons and ``Omega``: with ``F_kj = 1 - s_k (1 - u_kj)``, ``P_j = prod_k F_kj`` and
``P_0 = prod_k (1 - s_k)``, the unnormalised combination is ``m({w_j}) = P_j - P_0``,
``m(Omega) = P_0``, and ``K = sum_j P_j - (M - 1) P_0`` normalises it. Everything is
evaluated with ``log P`` shifted by its row maximum (the formulas are homogeneous of degree 0
in the ``P``), so hundreds of prototypes do not underflow; ``1 - s_k >= 0.01`` keeps every
division finite.

Cost (evclass's ``foncgradr2n``), over the ``n`` training rows with 0/1 targets ``t_ij``:

    E = 1/(2n) sum_i sum_j (m_i({w_j}) + lambda m_i(Omega) - t_ij)^2 + mu sum_k alpha_k,

``lambda = 1/M`` by default (pignistic), 1 (plausibility) or 0 (belief); ``mu >= 0`` the
regulariser of Denoeux (2000) (chosen by cross-validation).

Gradient (analytic, derived here). With ``o_j = (P_j + (lambda - 1) P_0) / K``, ``Q_j = o_j -
t_j`` and ``g = -sum_j Q_j o_j / K``: ``dE/dP_j = Q_j / K + g``, ``dE/dP_0 = (lambda - 1)
sum_j Q_j / K - (M - 1) g``; ``dP_j/ds_k = -(1 - u_kj) P_j / F_kj``, ``dP_0/ds_k = -P_0 /
(1 - s_k)``, ``dP_j/du_kj = s_k P_j / F_kj``; then ``ds_k/dgamma_k = -2 gamma_k d_k s_k``,
``ds_k/deta_k = s_k (1 - expit(eta_k))``, ``ds_k/dp_k = -gamma_k^2 s_k (p_k - x)`` and
``dE/dbeta_kl = 2 beta_kl / S_k (G_kl - sum_j G_kj u_kj)`` with ``G = dE/du`` and
``S_k = sum_l beta_kl^2``. The tests check it against central finite differences.

Initialisation (``proDSinit``; ``init="pooled"``, one set of prototypes for all classes, the
default; ``init="per_class"`` is its ``nprotoPerClass`` option, see :func:`evnn_init`): k-means with ``r``
centres started at ``r`` distinct training rows drawn with ``seed`` (Lloyd iterations here; R's
``kmeans`` uses Hartigan-Wong), ``beta_kj = sqrt(share of class j in cluster k)`` (a cluster of
one row: its 0/1 target; an empty cluster: uniform random numbers from ``seed``), ``eta = 0``
(``alpha = 0.495``), ``gamma = 0.1``.

Optimiser (``optimizer="harris"``, the default, as evclass): gradient descent with one adaptive
step per parameter (Silva and Almeida's rule as in evclass's ``harris``): a step grows by 1.2 when
its gradient keeps its sign and shrinks by 0.8 otherwise, bounded to [1e-6, 1e4]; a step that
raises the cost is undone and every step halved; it stops when the smoothed decrease ``gain <-
0.9 gain + 0.1 |E_old - E|`` (started at 1) falls below ``gain_min`` or after ``maxiter``
iterations. ``optimizer="lbfgs"`` uses scipy's L-BFGS-B with the same cost and gradient instead.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from evstat.belief import check_dense_size
from evstat.results import not_fitted, register
from evstat.summary import Summary
from evstat.classifiers.neighbors import CHUNK_ENTRIES, sq_distances
from evstat.formula import ClassFrame, class_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.classifiers.base import clip01
from evstat.classifiers._eknn import SingletonFocalClassifier, _check_lam

__all__ = ["EvNNClassifier", "evnn", "evnn_cost", "evnn_masses", "evnn_init"]

_PER_PROTOTYPE = schema.Ref("W", "W has {n} prototypes")


def _floats(v: Any) -> NDArray[np.float64]:
    return np.asarray(v, dtype=np.float64)


#: relative tolerance of a saved training cost against its recomputation by ``ev.load``
SAVED_COST_RTOL = 1e-9

OPTIMIZERS = ("harris", "lbfgs")


# ------------------------------------------------------------------------------------------------
# forward pass, cost and gradient
# ------------------------------------------------------------------------------------------------


def _forward(X, W, gamma, beta, eta):
    """Intermediate quantities of the forward pass (shapes: n inputs, r prototypes, M classes)."""
    b2 = beta * beta
    S = b2.sum(axis=1)
    U = b2 / S[:, None]  # (r, M)
    a = 0.99 * expit(eta)  # (r,)
    d = 0.5 * sq_distances(X, W)  # (n, r)
    with np.errstate(over="ignore"):
        expo = np.exp(-(gamma * gamma)[None, :] * d)
    s = a[None, :] * expo  # (n, r)
    F = 1.0 - s[:, :, None] * (1.0 - U[None, :, :])  # (n, r, M)
    logF0 = np.log1p(-s)  # (n, r)
    logP = np.log(F).sum(axis=1)  # (n, M)
    logP0 = logF0.sum(axis=1)  # (n,)
    c = logP.max(axis=1)
    P = np.exp(logP - c[:, None])
    P0 = np.exp(logP0 - c)
    return U, S, a, d, expo, s, F, P, P0


def _masses(P: NDArray[np.float64], P0: NDArray[np.float64]) -> NDArray[np.float64]:
    M = P.shape[1]
    K = P.sum(axis=1) - (M - 1) * P0
    out = np.empty((P.shape[0], M + 1))
    out[:, :M] = (P - P0[:, None]) / K[:, None]
    out[:, M] = P0 / K
    return clip01(out)


def evnn_masses(
    X: ArrayLike, W: ArrayLike, gamma: ArrayLike, beta: ArrayLike, eta: ArrayLike
) -> NDArray[np.float64]:
    """Output mass functions of the evidential neural network (``proDSval``).

    Parameters
    ----------
    X : array-like, shape (n, p)
        Inputs.
    W : array-like, shape (r, p)
        Prototypes.
    gamma : array-like, shape (r,)
        Scales (the exponent is ``-gamma^2 ||x - p||^2 / 2``).
    beta : array-like, shape (r, M)
        Membership parameters (``u = beta^2 / rowsum(beta^2)``).
    eta : array-like, shape (r,)
        ``alpha = 0.99 / (1 + exp(-eta))``.

    Returns
    -------
    numpy.ndarray, shape (n, M + 1)
        ``m({w_1}), ..., m({w_M}), m(Omega)``.

    Examples
    --------
    One prototype of class 1 at the origin, an input at the origin:

    >>> evnn_masses([[0.0, 0.0]], [[0.0, 0.0]], [1.0], [[0.0, 1.0]], [0.0]).round(4)
    array([[0.   , 0.495, 0.505]])
    """
    Xa = np.atleast_2d(np.asarray(X, dtype=np.float64))
    Wa = np.atleast_2d(np.asarray(W, dtype=np.float64))
    *_, P, P0 = _forward(Xa, Wa, np.asarray(gamma, dtype=np.float64), np.asarray(beta, dtype=np.float64),
                         np.asarray(eta, dtype=np.float64))
    return _masses(P, P0)


def _unpack(theta: NDArray[np.float64], r: int, p: int, M: int):
    W = theta[: r * p].reshape(r, p)
    gamma = theta[r * p : r * p + r]
    beta = theta[r * p + r : r * p + r + r * M].reshape(r, M)
    eta = theta[r * p + r + r * M :]
    return W, gamma, beta, eta


def _pack(W, gamma, beta, eta) -> NDArray[np.float64]:
    return np.concatenate([np.ravel(W), np.ravel(gamma), np.ravel(beta), np.ravel(eta)]).astype(np.float64)


def evnn_cost(
    theta: ArrayLike,
    X: NDArray[np.float64],
    T: NDArray[np.float64],
    r: int,
    lam: float,
    mu: float = 0.0,
    optimize_prototypes: bool = True,
) -> tuple[float, NDArray[np.float64]]:
    """Training cost of the evidential neural network and its analytic gradient.

    Parameters
    ----------
    theta : array-like
        The parameters packed as ``[W (r x p, row-major), gamma (r), beta (r x M), eta (r)]``.
    X : numpy.ndarray, shape (n, p)
    T : numpy.ndarray, shape (n, M)
        Targets: 0/1 class indicators (or, for uncertain labels, any rows).
    r : int
        Number of prototypes.
    lam : float
        Weight of ``m(Omega)`` in the output.
    mu : float, default 0
        Regularisation ``mu sum_k alpha_k``.
    optimize_prototypes : bool, default True
        False: the gradient with respect to the prototypes is set to 0 (evclass's
        ``optimProto=FALSE``).

    Returns
    -------
    cost : float
    grad : numpy.ndarray
        Same packing as ``theta``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0]]); T = np.eye(2)
    >>> c, g = evnn_cost([0.0, 1.0, 0.1, 0.1, 1, 0.1, 0.1, 1, 0.0, 0.0], X, T, r=2, lam=0.5)
    >>> round(c, 6), g.shape
    (0.248413, (10,))
    """
    th = np.asarray(theta, dtype=np.float64)
    n, p = X.shape
    M = T.shape[1]
    W, gamma, beta, eta = _unpack(th, r, p, M)
    U, S, a, d, expo, s, F, P, P0 = _forward(X, W, gamma, beta, eta)
    K = P.sum(axis=1) - (M - 1) * P0
    o = (P + (lam - 1.0) * P0[:, None]) / K[:, None]
    Q = o - T
    cost = 0.5 * float(np.sum(Q * Q)) / n + mu * float(a.sum())
    g = -np.sum(Q * o, axis=1) / K  # dE/dK per row (without 1/n)
    dP = Q / K[:, None] + g[:, None]  # (n, M)
    dP0 = (lam - 1.0) * Q.sum(axis=1) / K - (M - 1) * g  # (n,)
    PF = P[:, None, :] / F  # (n, r, M): P_j / F_kj
    # dE/ds_k per row
    Ds = -np.einsum("nj,nkj->nk", dP, PF * (1.0 - U)[None, :, :]) - dP0[:, None] * P0[:, None] / (1.0 - s)
    # dE/du_kj (summed over rows)
    G = np.einsum("nj,nkj->kj", dP, PF * s[:, :, None]) / n
    Dgamma = -2.0 * gamma * np.sum(Ds * d * s, axis=0) / n
    Deta = np.sum(Ds * s, axis=0) / n * (1.0 - expit(eta)) + mu * a * (1.0 - expit(eta))
    Dbeta = 2.0 * beta / S[:, None] * (G - np.sum(G * U, axis=1, keepdims=True))
    if optimize_prototypes:
        coef = Ds * s * (gamma * gamma)[None, :]  # (n, r)
        # ds_k/dp_k = -gamma^2 s (p_k - x)
        DW = -(coef.sum(axis=0)[:, None] * W - coef.T @ X) / n
    else:
        DW = np.zeros_like(W)
    return cost, _pack(DW, Dgamma, Dbeta, Deta)


# ------------------------------------------------------------------------------------------------
# initialisation and optimiser
# ------------------------------------------------------------------------------------------------


#: initialisations of :func:`evnn_init` (evclass's ``proDSinit`` options)
INITS = ("pooled", "per_class", "per_class_crisp")


def _kmeans(X: NDArray[np.float64], r: int, rng: np.random.Generator, iters: int = 100):
    """Lloyd's k-means from r distinct rows drawn at random; returns centres and labels."""
    _, first = np.unique(X, axis=0, return_index=True)
    distinct = np.sort(first)
    if distinct.size < r:
        raise ValueError(
            f"{r} prototypes but only {distinct.size} distinct training rows: use at most "
            f"{distinct.size} prototypes"
        )
    C = X[rng.choice(distinct, size=r, replace=False)].copy()
    lab = np.full(X.shape[0], -1)
    for _ in range(iters):
        new = np.argmin(sq_distances(X, C), axis=1)
        if np.array_equal(new, lab):
            break
        lab = new
        for k in range(r):
            members = lab == k
            if members.any():
                C[k] = X[members].mean(axis=0)
    return C, lab


def evnn_init(
    X: ArrayLike, codes: ArrayLike, n_classes: int, prototypes: int, seed: Any = None, init: str = "pooled"
) -> dict[str, NDArray[np.float64]]:
    """Initial parameters as evclass's ``proDSinit``.

    ``init="pooled"`` (``proDSinit``'s default): one k-means of all training rows with
    ``prototypes`` centres, ``beta`` = square roots of the class shares in each cluster.
    ``init="per_class"`` (``nprotoPerClass = TRUE``): ``prototypes / M`` centres from a k-means
    of each class's rows, in class order, ``beta`` = the class indicator + 0.1;
    ``"per_class_crisp"`` (``crisp = TRUE``): the indicator alone. ``prototypes`` is the total
    number in every case (a multiple of ``M`` for the per-class inits).

    Returns
    -------
    dict
        ``W`` (r, p) k-means centres, ``gamma`` (r,) = 0.1, ``beta`` (r, M), ``eta`` (r,) = 0.

    Examples
    --------
    >>> p = evnn_init([[0.0], [0.1], [5.0], [5.2]], [0, 0, 1, 1], 2, 2, seed=0)
    >>> sorted(p["W"].ravel().round(2).tolist()), p["beta"].sum(axis=1).tolist()
    ([0.05, 5.1], [1.0, 1.0])
    """
    Xa = np.asarray(X, dtype=np.float64)
    c = np.asarray(codes, dtype=np.intp)
    rng = np.random.default_rng(seed)
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    if init != "pooled":
        if int(prototypes) % n_classes:
            raise ValueError(
                f"init={init!r} puts the same number of prototypes in each of the {n_classes} classes, "
                f"but prototypes = {prototypes} is not a multiple of {n_classes}"
            )
        per = int(prototypes) // n_classes
        Ws = []
        distinct = [np.unique(Xa[c == q], axis=0).shape[0] for q in range(n_classes)]
        if min(distinct) < per:
            q = int(np.argmin(distinct))
            raise ValueError(
                f"init={init!r} needs {per} prototypes per class, but class {q + 1} of {n_classes} (in "
                f"level order) has only {distinct[q]} distinct training rows: use at most "
                f"{min(distinct) * n_classes} prototypes"
            )
        for q in range(n_classes):
            Ws.append(_kmeans(Xa[c == q], per, rng)[0])
        beta = np.repeat(np.eye(n_classes), per, axis=0) + (0.0 if init == "per_class_crisp" else 0.1)
        return {"W": np.vstack(Ws), "gamma": np.full(int(prototypes), 0.1), "beta": beta,
                "eta": np.zeros(int(prototypes))}
    W, lab = _kmeans(Xa, int(prototypes), rng)
    T = np.eye(n_classes)[c]
    beta = np.empty((int(prototypes), n_classes))
    for k in range(int(prototypes)):
        members = lab == k
        if members.sum() == 1:
            beta[k] = T[members][0]
        elif members.any():
            beta[k] = np.sqrt(T[members].mean(axis=0))
        else:
            beta[k] = rng.uniform(size=n_classes)
    return {"W": W, "gamma": np.full(int(prototypes), 0.1), "beta": beta, "eta": np.zeros(int(prototypes))}


def _harris(fun, x0, maxiter: int, step: float, gain_min: float):
    """Adaptive-step gradient descent (Silva and Almeida), as evclass's ``harris``."""
    pas = np.full(x0.shape, float(step))
    x = x0.copy()
    yp, gp = fun(x)
    xp = x.copy()
    gain = 1.0
    it = 0
    y = yp
    while gain >= gain_min and it <= maxiter:
        it += 1
        y, g = fun(x)
        if y > yp:
            x = xp.copy()
            g = gp
            pas *= 0.5
            x = x - pas * g
        else:
            gain = 0.9 * gain + 0.1 * abs(yp - y)
            xp = x.copy()
            same = g * gp >= 0
            pas = np.clip(np.where(same, 1.2, 0.8) * pas, 1e-6, 1e4)
            gp = g
            x = x - pas * g
            yp = y
    # xp is the last accepted point: the lowest cost evaluated (evclass returns the next step)
    return xp, it, gain < gain_min


# ------------------------------------------------------------------------------------------------
# the results class
# ------------------------------------------------------------------------------------------------


class EvNNClassifier(SingletonFocalClassifier):
    """A fitted evidential neural network (returned by :func:`evnn`).

    Attributes
    ----------
    prototypes : pandas.DataFrame
        One row per prototype: the coordinates (score columns), ``gamma``, ``alpha`` and the
        memberships ``u_<class>``.
    W, gamma, beta, eta : numpy.ndarray
        The raw parameters (evclass's ``W``, ``gamma``, ``beta``, ``alpha``).
    lam, mu : float
    seed : int or None
    cost_init, cost : float
        Training cost at the initial and the final parameters.
    train_error : float
        Training error rate (class of largest m({w}), ties to the first).
    n_iter : int
    converged : bool
    optimizer : str
    init : str
        The initialisation (``"pooled"``, ``"per_class"``, ``"per_class_crisp"``).
    """

    method = "evnn"

    def __init__(
        self,
        cf: ClassFrame,
        *,
        W: NDArray[np.float64],
        gamma: NDArray[np.float64],
        beta: NDArray[np.float64],
        eta: NDArray[np.float64],
        lam: float,
        mu: float,
        seed: Any,
        optimizer: str,
        cost_init: float,
        cost: float,
        train_error: float,
        n_iter: int,
        converged: bool,
        init: str = "pooled",
    ) -> None:
        super().__init__(cf)
        self.init = str(init)
        self.W = np.asarray(W, dtype=np.float64).reshape(-1, cf.X.shape[1])
        self.gamma = np.asarray(gamma, dtype=np.float64)
        self.beta = np.asarray(beta, dtype=np.float64).reshape(self.W.shape[0], -1)
        self.eta = np.asarray(eta, dtype=np.float64)
        self.lam = float(lam)
        self.mu = float(mu)
        self.seed = seed
        self.optimizer = str(optimizer)
        self.cost_init = float(cost_init)
        self.cost = float(cost)
        self.train_error = float(train_error)
        self.n_iter = int(n_iter)
        self.converged = bool(converged)

    @property
    def n_prototypes(self) -> int:
        """Number of prototypes ``r``."""
        return int(self.W.shape[0])

    @property
    def alpha(self) -> NDArray[np.float64]:
        """``alpha_k = 0.99 / (1 + exp(-eta_k))``."""
        return 0.99 * expit(self.eta)

    @property
    def memberships(self) -> pd.DataFrame:
        """``u_kj``, one row per prototype, one column per class."""
        b2 = self.beta**2
        return pd.DataFrame(b2 / b2.sum(axis=1, keepdims=True), columns=self._class_index())

    @property
    def prototypes(self) -> pd.DataFrame:
        """Prototype coordinates, ``gamma``, ``alpha`` and memberships ``u_<class>``."""
        out = pd.DataFrame(self.W, columns=list(self.terms))
        out["gamma"] = self.gamma
        out["alpha"] = self.alpha
        u = self.memberships.to_numpy()
        for j, lev in enumerate(self.levels):
            out[f"u_{lev}"] = u[:, j]
        out.index.name = "prototype"
        return out

    # ---------------------------------------------------------------- prediction
    def _focal(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        X = np.asarray(X, dtype=np.float64)
        out = np.empty((X.shape[0], self.n_classes + 1))
        step = max(1, CHUNK_ENTRIES // max(1, self.n_prototypes * self.n_classes))
        for a in range(0, X.shape[0], step):
            out[a : a + step] = evnn_masses(X[a : a + step], self.W, self.gamma, self.beta, self.eta)
        return out


    # ---------------------------------------------------------------- broom verbs
    def tidy(self) -> pd.DataFrame:
        """One row per prototype (see :attr:`prototypes`)."""
        return self.prototypes.reset_index()

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, nobs, n_classes, prototypes, init, lam, mu, optimizer, n_iter,
        converged, cost_init, cost, train_error."""
        return pd.DataFrame(
            [{"method": self.method, "nobs": self.nobs, "n_classes": self.n_classes,
              "prototypes": self.n_prototypes, "init": self.init, "lam": self.lam, "mu": self.mu, "optimizer": self.optimizer,
              "n_iter": self.n_iter, "converged": self.converged, "cost_init": self.cost_init,
              "cost": self.cost, "train_error": self.train_error}]
        )

    def summary(self) -> Summary:
        """Summary: data, prototypes, cost, optimiser and the prototype table."""
        s = self._summary_head("Evidential neural network (evnn)")
        s.add_info("Prototypes", f"{self.n_prototypes} (initialisation: {self.init.replace('_', ' ')})")
        s.add_info("lambda", self.lam)
        s.add_info("mu", self.mu)
        s.add_info("Optimiser", f"{self.optimizer}, {self.n_iter} iterations, "
                   + ("converged" if self.converged else "stopped at maxiter"))
        s.add_info("Training cost", f"{self.cost:.6g} (initial: {self.cost_init:.6g})")
        s.add_info("Training error rate", self.train_error)
        s.add_table("Prototypes", self.prototypes,
                    notes=["m_k({w_j}) = u_kj alpha_k exp(-gamma_k^2 ||x - p_k||^2 / 2)."])
        return s

    # ---------------------------------------------------------------- persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved evnn holds beyond its training rows (evstat.io.state)."""

        #: the prototypes, one row each (r x p); gamma, beta and eta have one entry per prototype
        W: list[list[float]] = saved(
            schema.List(schema.List(schema.Float(), what="coordinates"), min_len=1, what="prototypes"), decode=_floats
        )
        gamma: list[float] = saved(schema.List(schema.Float(), length=_PER_PROTOTYPE), decode=_floats)
        beta: list[list[float]] = saved(
            schema.List(schema.List(schema.Float(), length=schema.Ref("class_frame.levels", "there are {n} classes")),
                        length=_PER_PROTOTYPE),
            decode=_floats,
        )
        eta: list[float] = saved(schema.List(schema.Float(), length=_PER_PROTOTYPE), decode=_floats)
        lam: float = saved(schema.Float(min=0.0))
        mu: float = saved(schema.Float(min=0.0))
        seed: Any = saved(encode=lambda v: v if isinstance(v, (int, type(None))) else str(v))
        optimizer: str = saved(schema.Str(choices=list(OPTIMIZERS)))
        cost_init: float = saved()
        cost: float = saved()
        train_error: float = saved(schema.Float(min=0.0, max=1.0))
        n_iter: int = saved(schema.Int(min=0))
        converged: bool = saved()
        #: absent in files of older evstat
        init: str = saved(schema.Str(choices=list(INITS)), default="pooled")

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def features(d: Mapping[str, Any], root: Any) -> str | None:
            p = sum(1 for t in d["class_frame"]["design"]["terms"] if t != "Intercept")
            bad = [i for i, w in enumerate(d["W"]) if len(w) != p]
            if bad:
                return f"W[{bad[0]}] has {len(d['W'][bad[0]])} coordinates, but the design has {p} score columns"
            return None

        return [features]

    def _verify_loaded(self, source: str) -> None:
        """The recorded fit, recomputed on the saved training rows (cost evaluations, no
        descent): the training ``cost`` of the saved parameters (relative
        :data:`SAVED_COST_RTOL`) and its ``train_error``; with an integer ``seed``, the start
        (:func:`evnn_init`, deterministic) and ``cost_init`` at it, and then ``cost <=
        cost_init`` (both optimisers return the lowest cost they evaluated). Neither optimiser
        stops at a stationary point (evclass's adaptive descent stops on its smoothed gain or
        at ``maxiter``; the contract example stops at 100 iterations with a gradient near
        1e-2), so there is no optimality condition to check: an edit that also recomputes the
        cost and the error passes, and only a signature catches it."""
        super()._verify_loaded(source)
        X, M, r = self._X, self.n_classes, self.n_prototypes
        T = np.eye(M)[self._codes]
        theta = _pack(self.W, self.gamma, self.beta, self.eta)
        cost = float(evnn_cost(theta, X, T, r, self.lam, self.mu)[0])
        if not abs(cost - self.cost) <= SAVED_COST_RTOL * max(abs(cost), 1e-300):
            raise not_fitted(
                self,
                source, "parameters (W, gamma, beta, eta) or their cost",
                f"the saved parameters have the training cost {cost!r} on the saved rows, the file says cost = {self.cost!r}",
            )
        f = evnn_masses(X, self.W, self.gamma, self.beta, self.eta)
        err = float(np.mean(np.argmax(f[:, :M], axis=1) != self._codes))
        if err != self.train_error:
            raise not_fitted(self, source, "train_error", f"the file says {self.train_error!r}, the saved rows give {err!r}")
        if isinstance(self.seed, int) and not isinstance(self.seed, bool):
            start = evnn_init(X, self._codes, M, r, seed=self.seed, init=self.init)
            c0 = float(evnn_cost(_pack(start["W"], start["gamma"], start["beta"], start["eta"]), X, T, r, self.lam, self.mu)[0])
            if not abs(c0 - self.cost_init) <= SAVED_COST_RTOL * max(abs(c0), 1e-300):
                raise not_fitted(self, source, "cost_init", f"the file says {self.cost_init!r}, the start of seed {self.seed} gives {c0!r}")
        if not self.cost <= self.cost_init * (1 + SAVED_COST_RTOL):
            raise not_fitted(self, source, "cost", f"{self.cost!r} is above cost_init = {self.cost_init!r}: a descent never ends higher")


# ------------------------------------------------------------------------------------------------
# the fitting function
# ------------------------------------------------------------------------------------------------


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be a whole number, got {value!r}")
    if int(value) < low:
        raise ValueError(f"{name} must be at least {low}, got {value}")
    return int(value)


def evnn(
    formula: str,
    data: pd.DataFrame,
    prototypes: int = 10,
    mu: float = 0.0,
    lam: float | None = None,
    seed: int | None = None,
    optimizer: str = "harris",
    maxiter: int = 500,
    step: float = 0.1,
    gain_min: float = 1e-4,
    optimize_prototypes: bool = True,
    init: str = "pooled",
    positive: Any = None,
    missing: str = "raise",
) -> EvNNClassifier:
    """Evidential neural network classifier (Denoeux 2000), as evclass's ``proDSinit`` /
    ``proDSfit`` / ``proDSval``.

    Each prototype gives its classes (memberships ``u``) the mass ``alpha exp(-gamma^2 d^2 / 2)``
    at distance ``d``; the output is the Dempster combination over the prototypes. Prototypes,
    memberships, ``alpha`` and ``gamma`` are learnt by minimising the squared error of
    ``m({w_j}) + lambda m(Omega)`` against the class indicators (plus ``mu sum alpha``); see the
    module notes.

    Parameters
    ----------
    formula : str
        ``"class ~ x1 + x2 + ..."`` (two or more classes). Distances on the columns as given
        (write ``standardize(x)`` to rescale).
    data : pandas.DataFrame
    prototypes : int, default 10
        Number of prototypes ``r``; at least the number of classes.
    mu : float >= 0, default 0
        Regularisation.
    lam : float in [0, 1], optional
        lambda of the cost; default ``1/M`` (evclass's default).
    seed : int, optional
        Seed of the k-means initialisation (and of random memberships of empty clusters); the
        same seed gives the same fit.
    optimizer : {"harris", "lbfgs"}
        evclass's adaptive-step gradient descent (default) or scipy's L-BFGS-B.
    maxiter : int, default 500
    step : float, default 0.1
        Initial step of ``"harris"`` (evclass's ``eta``).
    gain_min : float, default 1e-4
        Stopping threshold of ``"harris"`` (evclass's ``gain_min``; its vignette uses 1e-5).
    optimize_prototypes : bool, default True
        False keeps the prototypes at their k-means positions.
    init : {"pooled", "per_class", "per_class_crisp"}, default "pooled"
        Initialisation (:func:`evnn_init`): one k-means of all rows (evclass's default), or
        ``prototypes / M`` k-means centres per class (evclass's ``nprotoPerClass``; Denoeux's
        33, 44, 55 prototypes on the 11 Vowel classes), with memberships indicator + 0.1 or,
        ``"per_class_crisp"``, the indicator.
    positive : object, optional
        Two-class responses only: the positive class.
    missing : {"raise", "drop"}

    Returns
    -------
    EvNNClassifier
        ``decide(newdata)`` decides by Denoeux's rule by default (``strategy="pessimistic"``,
        the minimal upper expected loss, evclass's ``decision(rule = "upper")``; see
        ``fit.default_decision()``).

    Raises
    ------
    ValueError
        Fewer prototypes than classes, more prototypes than distinct training rows, ``mu < 0``,
        an unknown optimiser, and every formula and data error of :mod:`evstat.formula`.

    Examples
    --------
    >>> import evstat as ev
    >>> df = ev.datasets.load("iris")
    >>> fit = ev.evnn('Species ~ Q("petal length (cm)") + Q("petal width (cm)")', df,
    ...               prototypes=6, seed=1)
    >>> fit.decide(df.iloc[[0, 149]]).tolist()
    ['setosa', 'virginica']
    """
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {optimizer!r}")
    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    try:
        mu_f = float(mu)
    except (TypeError, ValueError):
        raise TypeError(f"mu must be a number >= 0, got {mu!r}") from None
    if not mu_f >= 0 or not np.isfinite(mu_f):
        raise ValueError(f"mu must be a finite number >= 0 (the regularisation of sum alpha), got {mu!r}")
    maxiter = _check_int(maxiter, "maxiter", 0)
    if not isinstance(optimize_prototypes, (bool, np.bool_)):
        raise TypeError(f"optimize_prototypes must be True or False, got {optimize_prototypes!r}")
    cf = class_frame(formula, data, positive=positive, missing=missing, rank_checks=False)
    cf.design.require_numeric("evnn", "it measures Euclidean distances to prototypes, and a factor's levels have no distance")
    check_dense_size(cf.n_classes, "evnn")  # before the fit: its mass output has 2**K sets
    M = cf.n_classes
    r = _check_int(prototypes, "prototypes", 1)
    if r < M:
        raise ValueError(
            f"prototypes = {r} is fewer than the {M} classes {list(cf.levels)}: use at least {M} "
            "prototypes (one per class at least)"
        )
    if r > cf.n:
        raise ValueError(f"prototypes = {r} exceeds the {cf.n} training rows: use at most {cf.n}")
    lm = _check_lam(lam, M)
    X, codes = cf.X, cf.codes
    T = np.eye(M)[codes]
    start = evnn_init(X, codes, M, r, seed=seed, init=init)
    theta0 = _pack(start["W"], start["gamma"], start["beta"], start["eta"])

    def fun(th: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        return evnn_cost(th, X, T, r, lm, mu_f, bool(optimize_prototypes))

    cost0, grad0 = fun(theta0)
    if maxiter > 0 and not np.any(grad0):
        # evclass's start (gamma = 0.1) assumes standardised inputs: with scores of about 1e3 and
        # more every activation exp(-gamma^2 ||x - p||^2 / 2) underflows to 0, the cost is flat
        # and the optimiser "converged" at once to a vacuous classifier (m(Omega) = 1 everywhere)
        raise ValueError(
            f"evnn cannot start: every training row is so far from every initial prototype that "
            f"its activation exp(-gamma^2 ||x - p||^2 / 2) is 0 (gamma = 0.1, evclass's start, "
            f"made for standardised inputs; the score columns {[t for t in cf.design.terms if t != 'Intercept']} span up to "
            f"{float(np.max(np.ptp(X, axis=0))):.3g}), so the cost has no gradient and the fit would "
            "be vacuous: standardise the score columns, e.g. I((s - mean) / sd) in the formula"
        )
    if maxiter == 0:
        theta, n_iter, conv = theta0, 0, True
    elif optimizer == "harris":
        theta, n_iter, conv = _harris(fun, theta0, maxiter, float(step), float(gain_min))
    else:
        from scipy.optimize import minimize  # where first needed (import-time rules)

        res = minimize(fun, theta0, jac=True, method="L-BFGS-B", options={"maxiter": maxiter})
        theta, n_iter, conv = np.asarray(res.x), int(res.nit), bool(res.success)
    cost, _ = fun(theta)
    W, gamma, beta, eta = _unpack(theta, r, X.shape[1], M)
    f = evnn_masses(X, W, gamma, beta, eta)
    err = float(np.mean(np.argmax(f[:, :M], axis=1) != codes))
    return EvNNClassifier(
        cf, W=W, gamma=gamma, beta=beta, eta=eta, lam=lm, mu=mu_f,
        seed=seed if seed is None or isinstance(seed, int) else str(seed), optimizer=optimizer,
        cost_init=cost0, cost=cost, train_error=err, n_iter=n_iter, converged=conv, init=init,
    )


register(EvNNClassifier, example=lambda y, d: evnn(f"{y} ~ s1 + s2", d, prototypes=4, seed=1, maxiter=100), n_classes=(2, 3), fitter=evnn)
