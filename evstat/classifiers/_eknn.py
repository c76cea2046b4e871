"""Evidential k-nearest-neighbour classifier, EkNN (Denoeux 1995; Zouhal and Denoeux 1998).

Each of the ``K`` nearest training rows ``x_j`` (class ``w_q``, squared Euclidean distance
``d_j^2`` to the row ``x`` to classify) is a simple mass function

    m_j({w_q}) = s_j = alpha exp(-gamma_q d_j^2),      m_j(Omega) = 1 - s_j,

and the prediction is their Dempster combination (Minary et al. 2019, eqs. 66-70). Its focal
sets are the singletons and ``Omega``. With ``P_k = prod_{j : y_j = k} (1 - s_j)`` (1 when no
neighbour is of class ``k``) and ``u_k = 1 / P_k - 1``,

    m({w_k}) = u_k / (1 + sum_l u_l),      m(Omega) = 1 / (1 + sum_l u_l),

so Bel({w_k}) = m({w_k}), Pl({w_k}) = m({w_k}) + m(Omega) and BetP(w_k) = m({w_k}) +
m(Omega) / M. This is evaluated in log space (``log P_k = sum_j log(1 - s_j)`` with
``1 - s = (1 - alpha) - alpha expm1(-gamma d^2)``, a softmax over ``(log u_1, ..., log u_M, 0)``),
so it neither underflows for large ``K`` nor loses the small masses of far neighbours.

Learning gamma (Zouhal and Denoeux 1998, with the cost of evclass's ``EkNNfit``): minimise the
leave-one-out cost

    C(gamma) = 1/(2n) sum_i sum_k (m_i({w_k}) + lambda m_i(Omega) - t_ik)^2,

``m_i`` the combination of the ``K`` nearest neighbours of training row ``i`` other than
itself, ``t_ik = 1`` if row ``i`` is of class ``k``; ``lambda = 1`` fits the plausibilities,
``1/M`` (default) the pignistic probabilities, ``0`` the beliefs. The gradient is analytic:
with ``A_iq = sum_{j in N(i), y_j = q} d_ij^2 s_ij / (1 - s_ij)``, ``pl_iq = m_i({w_q}) +
m_i(Omega)`` and ``e_ik = m_i({w_k}) + lambda m_i(Omega) - t_ik``,

    dC/dgamma_q = -(1/n) sum_i A_iq pl_iq (e_iq - sum_k e_ik (m_i({w_k}) + lambda m_i(Omega))).
"""

from __future__ import annotations

import numbers
import warnings
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from evstat.exceptions import EvstatWarning
from evstat.belief import TotalConflictError, check_dense_size
from evstat.results import register
from evstat.summary import Summary
from evstat.classifiers.neighbors import knn
from evstat.formula import ClassFrame, class_frame
from evstat.io.state import saved
from evstat.classifiers.base import ClassifierResults, clip01
from evstat.classifiers._gamma import (
    GammaFit,
    evclass_initial_gamma,
    GammaFitState,
    k_rows,
    minimise_log_gamma,
    verify_gamma_fit,
)
from evstat.classifiers.partial import (
    GammaFitResults,
    PartialEkNNClassifier,
    fit_partial,
    read_label_masses,
    set_fit_state,
)

__all__ = [
    "EkNNClassifier",
    "EkNNFitWarning",
    "GammaFit",
    "eknn",
    "eknn_loo_cost",
    "eknn_masses",
    "evclass_initial_gamma",
    "fit_gamma",
    "initial_gamma",
]

class EkNNFitWarning(EvstatWarning):
    """The leave-one-out optimum of :func:`eknn` is vacuous or on a bound of the search box."""


# ------------------------------------------------------------------------------------------------
# the combination and its leave-one-out cost
# ------------------------------------------------------------------------------------------------


def _log_one_minus_s(x: NDArray[np.float64], alpha: float) -> NDArray[np.float64]:
    """log(1 - alpha exp(-x)) without cancellation: (1 - alpha) - alpha expm1(-x) >= 0."""
    with np.errstate(divide="ignore"):
        return np.log((1.0 - alpha) - alpha * np.expm1(-x))


def _class_sums(values: NDArray[np.float64], labels: NDArray[np.intp], n_classes: int) -> NDArray[np.float64]:
    """out[i, k] = sum_j values[i, j] [labels[i, j] == k]; shape (m, n_classes)."""
    m = values.shape[0]
    flat = (np.arange(m, dtype=np.intp)[:, None] * n_classes + labels).ravel()
    sums = np.bincount(flat, weights=values.ravel(), minlength=m * n_classes)
    return np.asarray(sums, dtype=np.float64).reshape(m, n_classes)  # float64 already (weights)


def _masses_from_logp(logp: NDArray[np.float64]) -> NDArray[np.float64]:
    """[m({w_1}), ..., m({w_M}), m(Omega)] from log P_k, shape (m, M + 1)."""
    m, M = logp.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        logu = np.log(-np.expm1(logp)) - logp  # P = 1: -inf (u = 0); P = 0: +inf
    pinf = np.isposinf(logu)
    npinf = pinf.sum(axis=1)
    if (npinf > 1).any():
        rows = np.flatnonzero(npinf > 1)
        raise TotalConflictError(
            f"total conflict in {rows.size} row(s) (first: position {int(rows[0])}): with "
            "alpha = 1, neighbours of two different classes at distance 0 give categorical, "
            "contradictory mass functions and Dempster's rule is undefined. Use alpha < 1 "
            "(the default is 0.95)",
            rows,
        )
    z = np.concatenate([np.where(pinf, 0.0, logu), np.zeros((m, 1))], axis=1)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    e /= e.sum(axis=1, keepdims=True)
    one = npinf == 1
    if one.any():
        e[one] = 0.0
        e[np.flatnonzero(one), np.argmax(pinf[one], axis=1)] = 1.0
    return e


def eknn_masses(
    labels: ArrayLike,
    sq_dist: ArrayLike,
    gamma: ArrayLike,
    alpha: float = 0.95,
    n_classes: int | None = None,
) -> NDArray[np.float64]:
    """Dempster combination of the neighbours' simple mass functions of EkNN.

    Parameters
    ----------
    labels : array-like of int, shape (m, K)
        Class (position ``0..M-1``) of each of the ``K`` neighbours of each of ``m`` rows.
    sq_dist : array-like, shape (m, K)
        Squared distances ``d^2`` to the neighbours.
    gamma : array-like, shape (M,)
        ``gamma_q > 0`` of ``phi_q(d) = exp(-gamma_q d^2)``, one per class.
    alpha : float in (0, 1]
    n_classes : int, optional
        ``M`` (default ``len(gamma)``).

    Returns
    -------
    numpy.ndarray, shape (m, M + 1)
        ``m({w_1}), ..., m({w_M}), m(Omega)`` of every row (the only focal sets).

    Raises
    ------
    evstat.belief.TotalConflictError
        (a ValueError) With ``alpha = 1``, when neighbours of two classes are at distance 0.

    Examples
    --------
    Two neighbours of class 0 at distances 0 and 1, one of class 1 at distance 1:

    >>> eknn_masses([[0, 0, 1]], [[0.0, 1.0, 1.0]], gamma=[1.0, 1.0], alpha=0.5).round(4)
    array([[0.5421, 0.0842, 0.3737]])
    """
    lab = np.asarray(labels, dtype=np.intp)
    d2 = np.asarray(sq_dist, dtype=np.float64)
    g = np.asarray(gamma, dtype=np.float64)
    M = int(g.shape[0] if n_classes is None else n_classes)
    if lab.ndim != 2 or d2.shape != lab.shape:
        raise ValueError(f"labels and sq_dist must be 2-D of the same shape, got {lab.shape} and {d2.shape}")
    with np.errstate(over="ignore"):
        x = g[lab] * d2
    return _masses_from_logp(_class_sums(_log_one_minus_s(x, float(alpha)), lab, M))


def eknn_loo_cost(
    log_gamma: ArrayLike,
    labels: NDArray[np.intp],
    sq_dist: NDArray[np.float64],
    codes: NDArray[np.intp],
    alpha: float,
    lam: float,
) -> tuple[float, NDArray[np.float64]]:
    """Leave-one-out cost of Zouhal and Denoeux (1998) and its gradient in ``log(gamma)``.

    Parameters
    ----------
    log_gamma : array-like, shape (M,)
        ``log(gamma_q)``.
    labels, sq_dist : numpy.ndarray, shape (n, K)
        Classes of, and squared distances to, the ``K`` nearest neighbours of every training row
        *other than itself*.
    codes : numpy.ndarray, shape (n,)
        Class of every training row.
    alpha : float in (0, 1]
    lam : float in [0, 1]
        Weight of ``m(Omega)`` in the output compared with the 0/1 target (lambda).

    Returns
    -------
    cost : float
        ``1/(2n) sum_i sum_k (m_i({w_k}) + lam m_i(Omega) - t_ik)^2``.
    grad : numpy.ndarray, shape (M,)
        ``dC / dlog(gamma_q)`` (analytic; see the module notes).

    Examples
    --------
    >>> import numpy as np
    >>> lab = np.array([[1], [0]]); d2 = np.array([[1.0], [1.0]]); y = np.array([0, 1])
    >>> c, g = eknn_loo_cost(np.log([1.0, 1.0]), lab, d2, y, alpha=0.5, lam=0.5)
    >>> round(c, 6), g.round(6).tolist()
    (0.350428, [-0.054443, -0.054443])
    """
    eta = np.asarray(log_gamma, dtype=np.float64)
    g = np.exp(eta)
    M = eta.shape[0]
    n = labels.shape[0]
    with np.errstate(over="ignore"):
        x = g[labels] * sq_dist
    logq = _log_one_minus_s(x, alpha)
    m = _masses_from_logp(_class_sums(logq, labels, M))
    mk, mo = m[:, :M], m[:, M:]
    out = mk + lam * mo
    e = out.copy()
    e[np.arange(n), codes] -= 1.0
    cost = 0.5 * float(np.sum(e * e)) / n
    # d2 s / (1 - s); 0 where s = 0 or d = 0 (ds/dgamma = -d^2 s = 0 there)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = alpha * np.exp(-x)
        ratio = np.where((sq_dist > 0) & (s > 0), sq_dist * s / np.exp(logq), 0.0)
    A = _class_sums(ratio, labels, M)
    pl = mk + mo
    inner = np.sum(e * out, axis=1, keepdims=True)
    grad_gamma = -np.sum(A * pl * (e - inner), axis=0) / n
    return cost, grad_gamma * g


def initial_gamma(X: ArrayLike, codes: ArrayLike, n_classes: int) -> NDArray[np.float64]:
    """Starting values: ``gamma_q = 1 / (mean squared distance between two rows of class q)``.

    The mean over pairs equals ``2 sum_f var_f`` (sample variances of the columns within the
    class), so it costs O(n p). A class with one row or no spread takes the value of the whole
    training set; if that has no spread either, 1. This makes ``gamma d^2`` dimensionless: the
    fit is unchanged when all score columns are multiplied by one constant.

    (evclass's ``EkNNinit`` uses ``1 / mean distance`` for ``gamma^2``, which is not
    scale-free; from either start the optimiser reaches the same minimum on Ionosphere.)

    Examples
    --------
    >>> initial_gamma([[0.0], [2.0], [10.0], [11.0], [13.0]], [0, 0, 1, 1, 1], 2).round(4).tolist()
    [0.25, 0.2143]
    """
    X = np.asarray(X, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)

    def msd(rows: NDArray[np.float64]) -> float:
        if rows.shape[0] < 2:
            return 0.0
        return float(2.0 * np.sum(np.var(rows, axis=0, ddof=1)))

    overall = msd(X)
    out = np.empty(n_classes)
    for q in range(n_classes):
        v = msd(X[codes == q])
        if not v > 0:
            v = overall
        out[q] = 1.0 / v if v > 0 else 1.0
    return out


def fit_gamma(
    labels: NDArray[np.intp],
    sq_dist: NDArray[np.float64],
    codes: NDArray[np.intp],
    alpha: float,
    lam: float,
    starts: Sequence[ArrayLike],
) -> GammaFit:
    """Minimise the leave-one-out cost :func:`eknn_loo_cost` over ``gamma`` from several starts
    (the optimiser shared with the partially supervised EkNN, ``evstat.classifiers._gamma``).

    From each start, L-BFGS-B on ``log(gamma)`` runs in stages of bounded length (each
    ``log(gamma_q)`` moves at most ``log(10)`` per stage), so that the first line search cannot
    jump onto the flat region of very large gamma where every mass is vacuous and the cost is
    constant (scipy's first step has unit length along the gradient, and its line search may
    extrapolate to the box). The search box is ``log(1e6)`` around the starts (below the
    smallest, above the largest). The best cost over all starts is kept (the first start wins
    a tie). If that optimum is vacuous (every leave-one-out mass has ``m(Omega) > 1 - 1e-6``) or
    on the box, six more starts are tried (the first start times ``10^-3, ..., 10^3``); if
    the best optimum is still vacuous or on the box, ``warning`` says so.

    Parameters
    ----------
    labels, sq_dist : numpy.ndarray, shape (n, K)
        Classes of, and squared distances to, the ``K`` nearest neighbours of every training
        row other than itself.
    codes : numpy.ndarray, shape (n,)
        Class of every training row.
    alpha, lam : float
        As :func:`eknn_loo_cost`.
    starts : sequence of array-like, shape (M,)
        Starting gammas (positive), tried in order; :func:`eknn` passes :func:`initial_gamma`
        (or the user's ``gamma``) and :func:`evclass_initial_gamma`.

    Returns
    -------
    GammaFit

    Examples
    --------
    >>> import numpy as np
    >>> lab = np.array([[0, 1], [0, 1], [1, 0], [1, 0]])
    >>> d2 = np.array([[1.0, 4.0], [1.0, 4.0], [1.0, 4.0], [1.0, 4.0]])
    >>> codes = np.array([0, 0, 1, 1])
    >>> fit = fit_gamma(lab, d2, codes, 0.95, 0.5, [[1.0, 1.0]])
    >>> fit.cost < eknn_loo_cost(np.log([1.0, 1.0]), lab, d2, codes, 0.95, 0.5)[0], fit.warning
    (True, '')
    """
    args = (labels, sq_dist, codes, float(alpha), float(lam))
    M = np.asarray(starts[0]).shape[0] if len(starts) else 0
    return minimise_log_gamma(
        lambda eta: eknn_loo_cost(eta, *args),
        True,
        starts,
        lambda eta: eknn_masses(labels, sq_dist, np.exp(eta), alpha, M)[:, -1],
    )


def _member_over_card(M: int) -> NDArray[np.float64]:
    """(2**M, M) matrix whose product with dense masses is BetP."""
    masks = np.arange(1 << M)
    member = ((masks[:, None] >> np.arange(M)[None, :]) & 1).astype(np.float64)
    card = member.sum(axis=1, keepdims=True)
    card[0] = 1.0
    return member / card


def _dense(f: NDArray[np.float64]) -> NDArray[np.float64]:
    """Dense masses (bitmask order) from [m({w_1}), ..., m({w_M}), m(Omega)]."""
    M = f.shape[1] - 1
    out = np.zeros((f.shape[0], 1 << M))
    out[:, 1 << np.arange(M)] = f[:, :M]
    out[:, -1] = f[:, M]
    return out


def _singles(f: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
    """Bel({w}), Pl({w}), BetP({w}) from [m({w_1}), ..., m({w_M}), m(Omega)]."""
    M = f.shape[1] - 1
    mk, mo = f[:, :M], f[:, M:]
    return {"bel": clip01(mk.copy()), "pl": clip01(mk + mo), "betp": clip01(mk + mo / M)}


# ------------------------------------------------------------------------------------------------
# the results class
# ------------------------------------------------------------------------------------------------


class SingletonFocalClassifier(ClassifierResults):
    """Base of the classifiers whose masses have the singletons and the frame as their only focal
    sets (EkNN, the evidential neural network): subclasses give ``_focal(X)``, the array
    ``[m({w_1}), ..., m({w_M}), m(Omega)]`` per row, and get dense masses and Bel/Pl/BetP."""

    @abstractmethod
    def _focal(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """``[m({w_1}), ..., m({w_M}), m(Omega)]`` for every row of ``X`` (m, M + 1)."""

    def _mass_values(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return _dense(self._focal(X))

    def _singletons(self, X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        f = self._focal(X)
        d = _singles(f)
        return d["bel"], d["pl"], d["betp"], clip01(f[:, -1].copy())


class EkNNClassifier(SingletonFocalClassifier, GammaFitResults):
    """A fitted evidential k-NN classifier (returned by :func:`eknn`).

    Attributes
    ----------
    k : int
        Number of neighbours ``K``.
    alpha : float
    lam : float
        lambda of the training cost.
    gamma : pandas.Series
        ``gamma_q`` per class, in ``phi_q(d) = exp(-gamma_q d^2)`` (Zouhal and Denoeux's
        parametrisation; evclass's ``param$gamma`` is ``sqrt(gamma)``).
    gamma_init : pandas.Series
        Starting values (or the fixed values when ``optimize=False``).
    optimized : bool
    cost_init, cost : float
        Leave-one-out cost at ``gamma_init`` and at ``gamma``.
    loo_error : float
        Leave-one-out error rate at ``gamma`` (class of largest BetP, ties to the first class).
    n_iter : int
        Optimiser iterations (0 without optimisation).
    converged : bool
    message : str
        The optimiser's message.
    warning : str
        Empty, or why the optimum is suspect: every leave-one-out mass vacuous, or gamma on the
        search box (see :func:`fit_gamma`); also shown by ``summary()`` and ``glance()``.
    """

    method = "eknn"

    def __init__(
        self,
        cf: ClassFrame,
        *,
        k: int,
        alpha: float,
        lam: float,
        gamma: NDArray[np.float64],
        gamma_init: NDArray[np.float64],
        optimized: bool,
        cost_init: float,
        cost: float,
        loo_error: float,
        n_iter: int,
        converged: bool,
        message: str,
        warning: str = "",
    ) -> None:
        super().__init__(cf)
        set_fit_state(self, k=k, alpha=alpha, lam=lam, gamma=gamma, gamma_init=gamma_init,
                      optimized=optimized, cost_init=cost_init, cost=cost, loo_error=loo_error,
                      n_iter=n_iter, converged=converged, message=message)
        self.warning = str(warning)

    # ---------------------------------------------------------------- prediction
    def _focal(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        idx, d2 = knn(np.asarray(X, dtype=np.float64), self._X, self.k)
        return eknn_masses(self._codes[idx], d2, self.gamma.to_numpy(), self.alpha, self.n_classes)


    def neighbors(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """The ``K`` nearest training rows of every row (leave-one-out for the training rows
        when ``newdata`` is None), nearest first, ties in training-row order.

        Returns
        -------
        pandas.DataFrame
            Long format: ``row`` (newdata's index label), ``rank`` (1..K), ``neighbor`` (training
            index label), ``class``, ``distance`` (Euclidean), ``mass`` (alpha
            exp(-gamma d^2), the neighbour's mass on its class).
        """
        X, index = self._design(newdata, missing)
        idx, d2 = knn(X, self._X, self.k, exclude_self=newdata is None)
        lab = self._codes[idx]
        with np.errstate(over="ignore"):
            s = self.alpha * np.exp(-self.gamma.to_numpy()[lab] * d2)
        lev = np.empty(self.n_classes, dtype=object)
        lev[:] = list(self.levels)
        m = X.shape[0]
        return pd.DataFrame(
            {
                "row": np.repeat(np.asarray(index, dtype=object), self.k),
                "rank": np.tile(np.arange(1, self.k + 1), m),
                "neighbor": np.asarray(self.class_frame.index, dtype=object)[idx.ravel()],
                "class": lev[lab.ravel()],
                "distance": np.sqrt(d2.ravel()),
                "mass": s.ravel(),
            }
        )

    def predict_loo(self, type: str = "prob") -> Any:
        """Leave-one-out predictions on the training rows: row ``i`` combined from its ``K``
        nearest neighbours other than itself (the predictions the training cost uses).
        ``type`` as in :meth:`predict`."""
        if type not in ("prob", "belief", "mass"):
            raise ValueError(f"type must be one of ('prob', 'belief', 'mass'), got {type!r}")
        f = self._loo_focal()
        index = self.class_frame.index
        if type == "mass":
            return self._present(type, index, values=_dense(f))
        return self._present(type, index, **_singles(f))

    def _loo_focal(self) -> NDArray[np.float64]:
        idx, d2 = knn(self._X, self._X, self.k, exclude_self=True)
        return eknn_masses(self._codes[idx], d2, self.gamma.to_numpy(), self.alpha, self.n_classes)

    # ---------------------------------------------------------------- broom verbs
    def tidy(self) -> pd.DataFrame:
        """One row per class: ``class``, ``n`` (training rows), ``gamma``, ``gamma_init`` and
        ``scale`` = 1/sqrt(gamma), the distance at which a neighbour's mass falls to
        alpha/e."""
        return pd.DataFrame(
            {
                "class": list(self.levels),
                "n": self.class_counts.to_numpy(),
                "gamma": self.gamma.to_numpy(),
                "gamma_init": self.gamma_init.to_numpy(),
                "scale": 1.0 / np.sqrt(self.gamma.to_numpy()),
            }
        )

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, nobs, n_classes, k, alpha, lam, optimized, converged,
        n_iter, cost_init, cost (leave-one-out), loo_error, mean_ignorance (mean m(Omega) of
        the leave-one-out predictions), warning (empty, or why the optimum is suspect)."""
        return pd.DataFrame(
            [
                {
                    "method": self.method,
                    "nobs": self.nobs,
                    "n_classes": self.n_classes,
                    "k": self.k,
                    "alpha": self.alpha,
                    "lam": self.lam,
                    "optimized": self.optimized,
                    "converged": self.converged,
                    "n_iter": self.n_iter,
                    "cost_init": self.cost_init,
                    "cost": self.cost,
                    "loo_error": self.loo_error,
                    "mean_ignorance": float(np.mean(self._loo_focal()[:, -1])),
                    "warning": self.warning,
                }
            ]
        )

    def summary(self) -> Summary:
        """Summary: data, K, alpha, lambda, the optimiser's result, the leave-one-out cost and
        error, and gamma per class."""
        s = self._summary_head("Evidential k-nearest-neighbour classifier (eknn)")
        s.add_info("K", str(self.k))
        s.add_info("alpha", self.alpha)
        s.add_info("lambda", self.lam)
        if self.optimized:
            s.add_info(
                "Optimiser",
                f"L-BFGS-B on log(gamma) in bounded steps from several starts, {self.n_iter} "
                "iterations, " + ("converged" if self.converged else f"NOT converged ({self.message})"),
            )
            if self.warning:
                s.add_info("WARNING", self.warning)
        else:
            s.add_info("Optimiser", "none (gamma fixed at gamma_init)")
        s.add_info("LOO cost", f"{self.cost:.6g} (at gamma_init: {self.cost_init:.6g})")
        s.add_info("LOO error rate", self.loo_error)
        tab = self.tidy().set_index("class")
        s.add_table(
            "Gamma per class",
            tab,
            notes=["phi_q(d) = exp(-gamma_q d^2); a neighbour of class q has mass "
                   "alpha phi_q(d) on {q}; scale = 1/sqrt(gamma)."],
        )
        return s

    # ---------------------------------------------------------------- persistence
    @dataclass(frozen=True, kw_only=True)
    class State(GammaFitState):
        """What a saved EkNN holds beyond its training rows (evstat.io.state)."""

        #: why the optimum is suspect; absent in files of older evstat
        warning: str = saved(default="")

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        return [k_rows]

    def _verify_loaded(self, source: str) -> None:
        """gamma must be the optimiser's answer on the saved training rows.

        Recomputed on the saved rows (one evaluation of the cost and its analytic gradient, no
        optimiser run): the leave-one-out ``cost`` at ``gamma`` and ``cost_init`` at
        ``gamma_init`` (relative :data:`SAVED_COST_RTOL`), the ``loo_error`` at ``gamma``, and,
        with ``optimized``, the optimality condition: every component of the gradient of the
        cost in ``log(gamma)`` at most :data:`SAVED_GRADIENT_TOL`, except on the optimiser's
        search box (``LOG_GAMMA_RANGE`` around the two starts, ``gamma_init`` and evclass's)
        where the gradient may point outwards; without ``optimized``, ``gamma`` equals
        ``gamma_init``. The starting ``gamma_init`` itself (the user's ``gamma=`` or
        :func:`initial_gamma`) is a setting, and a file that changes it together with every
        recomputed number is caught only by a signature."""
        super()._verify_loaded(source)
        codes = self._codes
        idx, d2 = knn(self._X, self._X, self.k, exclude_self=True)
        labels = codes[idx]
        f = eknn_masses(labels, d2, self.gamma.to_numpy(), self.alpha, self.n_classes)
        err = float(np.mean(np.argmax(f[:, : self.n_classes], axis=1) != codes))
        verify_gamma_fit(self, source, lambda eta: eknn_loo_cost(eta, labels, d2, codes, self.alpha, self.lam),
                         err, evclass_initial_gamma(self._X, codes, self.n_classes))


# ------------------------------------------------------------------------------------------------
# the fitting function
# ------------------------------------------------------------------------------------------------


def _check_k(k: Any, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        if isinstance(k, float) and k.is_integer():
            k = int(k)
        else:
            raise TypeError(f"k must be a whole number of neighbours, got {k!r}")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be at least 1 (the number of neighbours), got {k}")
    if k >= n:
        raise ValueError(
            f"k = {k} neighbours needs more training rows: leave-one-out training uses the k "
            f"nearest rows other than the row itself, so k must be smaller than the number of "
            f"training rows (n = {n}); use k <= {n - 1} or add training rows"
        )
    return k


def _check_alpha(alpha: Any) -> float:
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"alpha must be a number in (0, 1], got {alpha!r}") from None
    if not 0.0 < a <= 1.0:  # also rejects NaN
        raise ValueError(
            f"alpha must lie in (0, 1] (the largest mass a neighbour can give its class; "
            f"default 0.95), got {alpha!r}"
        )
    return a


def _check_lam(lam: Any, M: int) -> float:
    if lam is None:
        return 1.0 / M
    try:
        v = float(lam)
    except (TypeError, ValueError):
        raise TypeError(f"lam must be a number in [0, 1] or None, got {lam!r}") from None
    if not 0.0 <= v <= 1.0:
        raise ValueError(
            f"lam must lie in [0, 1] (1: plausibility, 1/M: pignistic, 0: belief; default None "
            f"= 1/M = {1.0 / M:.4g}), got {lam!r}"
        )
    return v


def _check_gamma(gamma: Any, levels: tuple) -> NDArray[np.float64]:
    M = len(levels)
    if isinstance(gamma, Mapping):
        missing = [lev for lev in levels if lev not in gamma]
        extra = [key for key in gamma if key not in levels]
        if missing or extra:
            raise ValueError(
                f"gamma must give one value per class {list(levels)}; missing {missing}, "
                f"unknown {extra}"
            )
        vals = [gamma[lev] for lev in levels]
    elif isinstance(gamma, pd.Series):
        return _check_gamma(gamma.to_dict(), levels)
    else:
        vals = gamma
    try:
        g = np.asarray(vals, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise TypeError(f"gamma must be numbers (one per class {list(levels)}), got {gamma!r}") from None
    if g.shape[0] != M:
        raise ValueError(
            f"gamma has {g.shape[0]} values but the response has {M} classes {list(levels)}: "
            "give one per class, in this order (or a dict {class: gamma})"
        )
    if not (np.isfinite(g) & (g > 0)).all():
        raise ValueError(f"gamma must be finite and > 0 for every class, got {g.tolist()}")
    return g


def eknn(
    formula: str,
    data: pd.DataFrame,
    k: int = 15,
    alpha: float = 0.95,
    optimize: bool = True,
    lam: float | None = None,
    gamma: ArrayLike | Mapping[Any, float] | None = None,
    positive: Any = None,
    missing: str = "raise",
    label_masses: Any = None,
) -> EkNNClassifier | PartialEkNNClassifier:
    """Evidential k-nearest-neighbour classifier (Denoeux 1995) with gamma learnt by
    leave-one-out (Zouhal and Denoeux 1998).

    Each of the ``k`` nearest training rows (Euclidean distance ``d`` on the score columns)
    gives mass ``alpha exp(-gamma_q d^2)`` to its own class ``q`` and the rest to the whole
    frame; the prediction is the Dempster combination of these ``k`` mass functions, a mass
    function on the frame of the response's classes (Minary et al. 2019, eqs. 66-70; the module
    notes give the closed form).

    Parameters
    ----------
    formula : str
        ``"class ~ s1 + s2 + ..."``; the class column may have two or more levels. The
        right-hand side is evaluated as for the calibrators (patsy, :mod:`evstat.formula`); the
        intercept plays no role. Scores are not rescaled (the paper uses the raw score vectors);
        to standardise, write ``standardize(s1) + standardize(s2)`` (the training means and
        standard deviations are then applied to new data).
    data : pandas.DataFrame
        Training data.
    k : int, default 15
        Number of neighbours ``K`` (the paper's kappa = 15); ``1 <= k < n``.
    alpha : float in (0, 1], default 0.95
        Largest mass a neighbour can give its class.
    optimize : bool, default True
        Learn gamma by minimising the leave-one-out cost; with False, gamma stays at its
        starting values.
    lam : float in [0, 1], optional
        lambda of the cost ``1/(2n) sum_i sum_k (m_i({w_k}) + lambda m_i(Omega) - t_ik)^2``:
        1 fits plausibilities, 0 beliefs; default ``1/M`` (pignistic), as evclass.
    gamma : array-like or dict, optional
        Starting (or, with ``optimize=False``, fixed) ``gamma_q > 0``, one per class in level
        order or as ``{class: value}``. Default: :func:`initial_gamma`, one over the mean
        squared distance between two training rows of the class.
    positive : object, optional
        Two-class responses only: the positive class (default: the second level in sorted
        order, as :func:`evstat.evlogit`).
    missing : {"raise", "drop"}
        Training rows with missing values: an error (default) or dropped.
    label_masses : evstat.belief.MassArray or pandas.DataFrame, optional
        Partially supervised learning (Denoeux and Zouhal 2001): the training labels as mass
        functions on the frame of the response's levels, one row per data row (a MassArray, or
        a DataFrame of per-class plausibility columns read as consonant mass functions). Each
        neighbour's label mass is discounted by ``alpha exp(-gamma d^2)`` and the ``k`` are
        combined by Dempster's rule (:mod:`evstat.classifiers.partial` gives the choices). The
        response column still names the classes; when every label mass is categorical on the
        response's class, the result is exactly that of crisp labels. With uncertain labels,
        ``lam`` defaults to 1 (plausibility output against the labels' plausibilities).

    Returns
    -------
    EkNNClassifier
        (a :class:`evstat.classifiers.partial.PartialEkNNClassifier` when some label mass is not
        categorical on the response's class)
        With ``predict(type="prob" | "belief" | "mass")``, ``decide``, ``summary``, ``tidy``,
        ``glance``, ``augment``, ``neighbors``, ``predict_loo`` and ``save``. ``decide(newdata)``
        decides by Denoeux's rule by default (``strategy="pessimistic"``, the minimal upper
        expected loss, evclass's ``decision(rule = "upper")``; ``fit.default_decision()``).

    Raises
    ------
    ValueError
        ``k < 1`` or ``k >= n``, ``alpha`` outside (0, 1], ``lam`` outside [0, 1], a gamma
        that is not positive, a one-class training set, missing values (unless
        ``missing="drop"``), and every formula and data error of :mod:`evstat.formula`
        but for the design checks of a regression: more score columns than rows, constant or
        collinear score columns are accepted (:func:`evstat.formula.class_frame`, ``rank_checks``).

    Notes
    -----
    *Optimiser* (:func:`fit_gamma`). scipy's L-BFGS-B on ``log(gamma)`` with the analytic
    gradient (:func:`eknn_loo_cost`), in stages that move each ``log(gamma_q)`` by at most
    ``log(10)``, from two starts: ``gamma_init`` and evclass's (:func:`evclass_initial_gamma`);
    the best cost is kept. A single unbounded L-BFGS-B run can end on the flat plateau of very
    large gamma, where every mass is vacuous (its first line search may jump to the box); when
    the best optimum is vacuous or on the box (``log(1e6)`` around the starts), six more starts
    are tried, and if it still is, ``warning`` says so and an :class:`EkNNFitWarning` is issued.
    Deterministic (no random start). evclass's ``EkNNfit`` minimises the same cost by an
    adaptive-step gradient descent on ``sqrt(gamma)``.

    *Neighbours.* Exact squared Euclidean distances; ties between equal distances are broken
    by training-row order (the earlier row is nearer). In leave-one-out, row ``i`` is left out
    of its own neighbours, but other rows with the same scores are not.

    *Decisions.* With 0-1 costs every rule (upper, lower, pignistic) picks the class of
    largest ``m({w})``, since the focal sets are the singletons and the frame; the
    leave-one-out error breaks ties towards the first class.

    Examples
    --------
    >>> import evstat as ev
    >>> df = ev.datasets.load("iris")
    >>> fit = ev.eknn('Species ~ Q("petal length (cm)") + Q("petal width (cm)")', df, k=5)
    >>> fit.levels
    ('setosa', 'versicolor', 'virginica')
    >>> new = df.iloc[[0, 75, 149]]
    >>> fit.decide(new).tolist()
    ['setosa', 'versicolor', 'virginica']
    >>> fit.predict(new, type="belief")["pl"].shape
    (3, 3)
    """
    if not isinstance(optimize, (bool, np.bool_)):
        raise TypeError(f"optimize must be True or False, got {optimize!r}")
    a = _check_alpha(alpha)
    cf = class_frame(formula, data, positive=positive, missing=missing, rank_checks=False)
    cf.design.require_numeric("eknn", "it measures Euclidean distances between rows, and a factor's levels have no distance")
    check_dense_size(cf.n_classes, "eknn")  # before the fit: its mass output has 2**K sets
    kk = _check_k(k, cf.n)
    M = cf.n_classes
    lm = _check_lam(lam, M)
    X = cf.X
    codes = cf.codes
    if label_masses is not None:
        values = read_label_masses(label_masses, cf, data.index)
        if not np.all(values[np.arange(cf.n), 1 << codes] == 1.0):
            hard = np.argmax(values @ _member_over_card(M), axis=1)
            g0p = initial_gamma(X, hard, M) if gamma is None else _check_gamma(gamma, cf.levels)
            lm_p = 1.0 if lam is None else lm  # see evstat.classifiers.partial: lambda = 1/M collapses
            pfit, warning = fit_partial(cf, values, kk, a, lm_p, [g0p, evclass_initial_gamma(X, hard, M)], bool(optimize))
            if warning:
                warnings.warn(f"ev.eknn: {warning}", EkNNFitWarning, stacklevel=2)
            return pfit
    g0 = initial_gamma(X, codes, M) if gamma is None else _check_gamma(gamma, cf.levels)
    idx, d2 = knn(X, X, kk, exclude_self=True)
    labels = codes[idx]
    eta0 = np.log(g0)
    cost0, _ = eknn_loo_cost(eta0, labels, d2, codes, a, lm)
    if optimize:
        opt = fit_gamma(labels, d2, codes, a, lm, [g0, evclass_initial_gamma(X, codes, M)])
        g, cost = opt.gamma, opt.cost
        n_iter, converged, message, warning = opt.n_iter, opt.converged, opt.message, opt.warning
        if warning:
            warnings.warn(f"ev.eknn: {warning}", EkNNFitWarning, stacklevel=2)
    else:
        g, cost = g0, cost0
        n_iter, converged, message, warning = 0, True, "not optimised", ""
    f = eknn_masses(labels, d2, g, a, M)
    loo_error = float(np.mean(np.argmax(f[:, :M], axis=1) != codes))
    return EkNNClassifier(
        cf,
        k=kk,
        alpha=a,
        lam=lm,
        gamma=g,
        gamma_init=g0,
        optimized=bool(optimize),
        cost_init=cost0,
        cost=cost,
        loo_error=loo_error,
        n_iter=n_iter,
        converged=converged,
        message=message,
        warning=warning,
    )


register(EkNNClassifier, example=lambda y, d: eknn(f"{y} ~ s1 + s2", d, k=5), n_classes=(2, 3), fitter=eknn)


def _partial_example(y: str, d: pd.DataFrame) -> EkNNClassifier | PartialEkNNClassifier:
    """The contract tests' fit of the partially supervised EkNN: ev.eknn with soft labels
    (plausibility 1 for the observed class, 0.3 for the others)."""
    levels = sorted(pd.unique(d[y]))
    pl = pd.DataFrame({lev: np.where(d[y] == lev, 1.0, 0.3) for lev in levels}, index=d.index)
    return eknn(f"{y} ~ s1 + s2", d, k=5, label_masses=pl)


register(PartialEkNNClassifier, example=_partial_example, n_classes=(2, 3))
