"""Partially supervised evidential k-NN (Denoeux and Zouhal 2001; Denoeux's slides, 2017):
training labels given as mass functions, reached through ``ev.eknn(..., label_masses=m)``.

Training row ``j`` carries a label mass function ``m_j`` on the frame of the classes (a crisp
label is the categorical ``m_j({q}) = 1``). As a neighbour at distance ``d`` of the row to
classify, it gives ``m_j`` discounted with reliability ``beta_j = alpha exp(-gamma_j d^2)``:

    m'_j(A) = beta_j m_j(A)   (A != Omega),      m'_j(Omega) = 1 - beta_j + beta_j m_j(Omega),

and the prediction is the Dempster combination of the ``K`` discounted mass functions. It is
computed through commonalities: ``q'_j(A) = 1 - beta_j (1 - q_j(A))`` for non-empty ``A``, the
unnormalised combination has ``q(A) = prod_j q'_j(A)`` (summed in log space), its masses come
from the Moebius inversion (:func:`evstat.belief.q_to_mass`) and the conflict ``m(empty)`` is
normalised away. With categorical labels this is exactly EkNN's combination (tested).

Choices where the sources are silent (documented and tested):

* *Scale per neighbour.* EkNN has one ``gamma_q`` per class; an uncertain label has no single
  class, so neighbour ``j`` uses ``gamma_j = sum_q BetP_j(q) gamma_q`` (its label's pignistic
  mixture of the class scales; ``gamma_q`` for a crisp label of class ``q``).
* *Training cost.* Leave-one-out, as for EkNN, with output ``o_ik = (1 - lambda) Bel_i({w_k}) +
  lambda Pl_i({w_k})`` (for the singleton-and-Omega masses of EkNN this is ``m({w_k}) + lambda
  m(Omega)``, evclass's output) and target ``t_ik = pl_i(w_k)``, the contour of row ``i``'s own
  label (the 0/1 indicator for a crisp label): ``C = 1/(2n) sum_i sum_k (o_ik - t_ik)^2``,
  minimised over ``log(gamma)`` by EkNN's optimiser (staged L-BFGS-B from several starts, see
  :func:`evstat.classifiers.fit_gamma`) with finite-difference gradients (``M`` parameters), from
  :func:`evstat.classifiers.initial_gamma` and :func:`evstat.classifiers.evclass_initial_gamma`
  of the classes of largest ``BetP``. With uncertain
  labels the default ``lambda`` is 1 (output plausibility against label plausibility), not EkNN's
  ``1/M``: measured on Ionosphere with most labels uncertain (with the earlier single-run
  L-BFGS-B), ``lambda = 1/M`` (with pignistic or plausibility targets) drove gamma to the vacuous
  optimum (every prediction ``m(Omega) ~ 1``, test error 0.55-0.63), ``lambda = 1`` far less
  often (reports/credal-knn).
* *Label input.* A :class:`evstat.belief.MassArray` on the frame of the response's levels (one row
  per data row, aligned on the index when it has one), or a DataFrame of per-class plausibility
  columns (named by the levels, values in [0, 1], max 1 per row), read as the consonant mass
  function with that contour (a possibilistic label, as Denoeux and Zouhal 2001). Rows must be
  normalised mass functions (masses sum to 1, no mass on the empty set).

When every label mass is categorical and equals the response, ``ev.eknn`` takes its ordinary path,
so the result is exactly that of crisp labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.belief import Frame, MassArray
from evstat.belief.transforms import mass_to_q, q_to_mass
from evstat.summary import Summary
from evstat.classifiers._gamma import (
    GammaFitState,
    central_gradient,
    evclass_initial_gamma,
    k_rows,
    minimise_log_gamma,
    verify_gamma_fit,
)
from evstat.classifiers.neighbors import CHUNK_ENTRIES, knn
from evstat.formula import ClassFrame
from evstat.io import schema
from evstat.io.state import saved
from evstat.classifiers.base import ClassifierResults, clip01

__all__ = ["PartialEkNNClassifier", "partial_eknn_masses", "read_label_masses"]

_TOL = 1e-9


def read_label_masses(m: Any, cf: ClassFrame, data_index: pd.Index) -> NDArray[np.float64]:
    """Dense label masses (n, 2**M) aligned with the training rows of ``cf``.

    Examples
    --------
    See :func:`evstat.eknn` (``label_masses``).
    """
    levels = list(cf.levels)
    M = len(levels)
    if isinstance(m, MassArray):
        if m.frame != Frame(levels):
            raise ValueError(
                f"label_masses is on the frame {list(m.frame.labels)} but the response has the levels "
                f"{levels}: build the MassArray on Frame({levels})"
            )
        vals = np.asarray(m.values, dtype=np.float64)
        idx = m.index
    elif isinstance(m, pd.DataFrame):
        missing = [lev for lev in levels if lev not in m.columns]
        if missing:
            raise ValueError(
                f"label_masses as plausibility columns needs one column per class {levels}; "
                f"missing {missing}"
            )
        pl = m[levels].to_numpy(dtype=np.float64)
        bad = ~np.isfinite(pl).all(axis=1) | (pl < 0).any(axis=1) | (pl > 1).any(axis=1)
        bad |= np.abs(pl.max(axis=1) - 1.0) > _TOL
        if bad.any():
            rows = list(m.index[bad][:5])
            raise ValueError(
                f"label plausibilities must lie in [0, 1] with maximum 1 in every row (a normalised "
                f"possibility distribution); {int(bad.sum())} row(s) do not, e.g. {rows}"
            )
        vals = _consonant(pl)
        idx = m.index
    else:
        raise TypeError(
            "label_masses must be a MassArray on the frame of the response's levels or a DataFrame "
            f"of per-class plausibility columns, got {type(m).__name__}"
        )
    if idx is not None and len(idx) == len(data_index) and idx.equals(data_index):
        pass
    elif len(vals) != len(data_index):
        raise ValueError(
            f"label_masses has {len(vals)} rows but data has {len(data_index)}: give one label mass "
            "function per data row"
        )
    pos = pd.Index(data_index).get_indexer(cf.index)
    vals = vals[pos]
    s = vals.sum(axis=1)
    bad = (np.abs(s - 1.0) > 1e-8) | (vals < -1e-12).any(axis=1) | (vals[:, 0] > 1e-12)
    if bad.any():
        rows = list(np.asarray(cf.index)[bad][:5])
        raise ValueError(
            f"label masses must be normalised mass functions (non-negative, summing to 1, no mass on "
            f"the empty set); {int(bad.sum())} row(s) are not, e.g. rows {rows} (sums "
            f"{np.round(s[bad][:5], 6).tolist()}); normalise them first"
        )
    return np.clip(vals, 0.0, 1.0)


def _consonant(pl: NDArray[np.float64]) -> NDArray[np.float64]:
    """Consonant masses with contour ``pl`` (rows with maximum 1)."""
    n, M = pl.shape
    order = np.argsort(-pl, axis=1, kind="stable")
    sorted_pl = np.take_along_axis(pl, order, axis=1)
    out = np.zeros((n, 1 << M))
    mask = np.zeros(n, dtype=np.intp)
    for r in range(M):
        mask = mask | (1 << order[:, r])
        nxt = sorted_pl[:, r + 1] if r + 1 < M else np.zeros(n)
        np.add.at(out, (np.arange(n), mask), sorted_pl[:, r] - nxt)
    return out


def _betp(vals: NDArray[np.float64], M: int) -> NDArray[np.float64]:
    masks = np.arange(1 << M)
    member = ((masks[:, None] >> np.arange(M)[None, :]) & 1).astype(np.float64)
    card = member.sum(axis=1)
    w = np.zeros(1 << M)
    w[1:] = 1.0 / card[1:]
    return (vals * w) @ member


def partial_eknn_masses(
    q_labels: NDArray[np.float64], sq_dist: NDArray[np.float64], rate: NDArray[np.float64], alpha: float
) -> NDArray[np.float64]:
    """Dempster combination of the discounted label masses of the ``K`` neighbours.

    Parameters
    ----------
    q_labels : numpy.ndarray, shape (m, K, 2**M)
        Commonalities of the neighbours' label masses.
    sq_dist : numpy.ndarray, shape (m, K)
    rate : numpy.ndarray, shape (m, K)
        ``gamma_j`` of each neighbour.
    alpha : float

    Returns
    -------
    numpy.ndarray, shape (m, 2**M)
        Normalised masses (bitmask order, column 0 = 0).

    Examples
    --------
    A crisp neighbour of class 0 at distance 0 (alpha = 0.5) on a two-class frame:

    >>> import numpy as np
    >>> q = np.array([[[1.0, 1.0, 0.0, 0.0]]])
    >>> partial_eknn_masses(q, np.zeros((1, 1)), np.ones((1, 1)), 0.5).round(3)
    array([[0. , 0.5, 0. , 0.5]])
    """
    with np.errstate(over="ignore"):
        beta = alpha * np.exp(-rate * sq_dist)  # (m, K)
    with np.errstate(divide="ignore"):
        logq = np.log1p(-beta[:, :, None] * (1.0 - q_labels)).sum(axis=1)  # (m, 2**M)
    q = np.exp(logq)
    q[:, 0] = 1.0
    m = q_to_mass(q)
    conflict = m[:, 0].copy()
    m[:, 0] = 0.0
    norm = 1.0 - conflict
    if (norm <= 1e-300).any():
        rows = np.flatnonzero(norm <= 1e-300)
        raise ValueError(
            f"total conflict in {rows.size} row(s): the neighbours' label masses contradict each other "
            "completely (alpha = 1 with categorical labels at distance 0?); use alpha < 1"
        )
    return clip01(m / norm[:, None])


def _outputs(masses: NDArray[np.float64], M: int, lam: float) -> NDArray[np.float64]:
    """(1 - lam) Bel({w_k}) + lam Pl({w_k})."""
    masks = np.arange(1 << M)
    member = ((masks[:, None] >> np.arange(M)[None, :]) & 1).astype(np.float64)
    bel = masses[:, 1 << np.arange(M)]
    pl = masses @ member
    return (1.0 - lam) * bel + lam * pl


def partial_loo_cost(log_gamma, q_nb, betp_nb, sq_dist, target, alpha, lam, M) -> float:
    rate = betp_nb @ np.exp(log_gamma)  # (n, K)
    m = partial_eknn_masses(q_nb, sq_dist, rate, alpha)
    e = _outputs(m, M, lam) - target
    return 0.5 * float(np.sum(e * e)) / e.shape[0]


class GammaFitResults(ClassifierResults):
    """Base of the EkNN and the partially supervised EkNN: the fitted state they share, set by
    :func:`set_fit_state` (declared once, for readers and the type checker)."""

    k: int
    alpha: float
    lam: float
    gamma: pd.Series
    gamma_init: pd.Series
    optimized: bool
    cost_init: float
    cost: float
    loo_error: float
    n_iter: int
    converged: bool
    message: str


def set_fit_state(res: GammaFitResults, *, k: int, alpha: float, lam: float, gamma: Any,
                  gamma_init: Any, optimized: bool, cost_init: float, cost: float,
                  loo_error: float, n_iter: int, converged: bool, message: str) -> None:
    """Set the fitted state that EkNN and partially supervised EkNN share: ``k``, ``alpha``,
    ``lam``, ``gamma`` and ``gamma_init`` (Series by class) and the optimiser's record."""
    res.k = int(k)
    res.alpha = float(alpha)
    res.lam = float(lam)
    cls = res._class_index()
    res.gamma = pd.Series(np.asarray(gamma, dtype=np.float64), index=cls, name="gamma")
    res.gamma_init = pd.Series(np.asarray(gamma_init, dtype=np.float64), index=cls, name="gamma_init")
    res.optimized = bool(optimized)
    res.cost_init = float(cost_init)
    res.cost = float(cost)
    res.loo_error = float(loo_error)
    res.n_iter = int(n_iter)
    res.converged = bool(converged)
    res.message = str(message)


class PartialEkNNClassifier(GammaFitResults):
    """A fitted partially supervised EkNN (returned by ``ev.eknn(..., label_masses=...)`` when
    some label is uncertain).

    Attributes
    ----------
    k, alpha, lam : as :class:`evstat.classifiers.EkNNClassifier`
    gamma, gamma_init : pandas.Series
        ``gamma_q`` per class (neighbour ``j`` uses ``sum_q BetP_j(q) gamma_q``).
    label_masses : evstat.belief.MassArray
        The training labels (training row order).
    cost_init, cost, loo_error : float
        Leave-one-out cost and error (class of largest BetP against the class of largest label
        BetP).
    optimized, converged : bool
    n_iter : int
    message : str
    """

    method = "eknn_partial"

    def __init__(self, cf: ClassFrame, *, k: int, alpha: float, lam: float, gamma: Any, gamma_init: Any,
                 label_values: NDArray[np.float64], optimized: bool, cost_init: float, cost: float,
                 loo_error: float, n_iter: int, converged: bool, message: str) -> None:
        super().__init__(cf)
        set_fit_state(self, k=k, alpha=alpha, lam=lam, gamma=gamma, gamma_init=gamma_init,
                      optimized=optimized, cost_init=cost_init, cost=cost, loo_error=loo_error,
                      n_iter=n_iter, converged=converged, message=message)
        self._labels = np.asarray(label_values, dtype=np.float64)
        self._q = mass_to_q(self._labels)
        self._betp = _betp(self._labels, self.n_classes)

    @property
    def label_masses(self) -> MassArray:
        """The training label mass functions."""
        return MassArray(self.frame, self._labels, index=self.class_frame.index)

    def _combine(self, X: NDArray[np.float64], exclude_self: bool = False) -> NDArray[np.float64]:
        X = np.asarray(X, dtype=np.float64)
        out = np.empty((X.shape[0], 1 << self.n_classes))
        step = max(1, CHUNK_ENTRIES // max(self.nobs, self.k << self.n_classes))
        g = self.gamma.to_numpy()
        for a in range(0, X.shape[0], step):
            if exclude_self:
                D = X[a : a + step]
                idx, d2 = _knn_rows(D, self._X, self.k, a)
            else:
                idx, d2 = knn(X[a : a + step], self._X, self.k)
            out[a : a + step] = partial_eknn_masses(self._q[idx], d2, self._betp[idx] @ g, self.alpha)
        return out

    def _mass_values(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._combine(X)

    def predict_loo(self, type: str = "prob") -> Any:
        """Leave-one-out predictions on the training rows; ``type`` as in :meth:`predict`."""
        vals = self._combine(self._X, exclude_self=True)
        index = self.class_frame.index
        if type == "mass":
            return MassArray(self.frame, vals, index=index)
        if type not in ("prob", "belief"):
            raise ValueError(f"type must be one of ('prob', 'belief', 'mass'), got {type!r}")
        ma = MassArray(self.frame, vals)
        bel = np.column_stack([ma.bel(lev) for lev in self.levels])
        pl = np.column_stack([ma.pl(lev) for lev in self.levels])
        return self._present(type, index, bel=bel, pl=pl, betp=ma.betp().to_numpy())

    def tidy(self) -> pd.DataFrame:
        """One row per class: ``class``, ``n`` (training rows whose response is the class),
        ``gamma``, ``gamma_init``."""
        return pd.DataFrame({"class": list(self.levels), "n": self.class_counts.to_numpy(),
                             "gamma": self.gamma.to_numpy(), "gamma_init": self.gamma_init.to_numpy()})

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, nobs, n_classes, k, alpha, lam, cost_init, cost, loo_error,
        mean label nonspecificity (``uncertain_labels``: share of labels that are not categorical)."""
        uncertain = float(np.mean(self._labels.max(axis=1) < 1 - 1e-12))
        return pd.DataFrame([{"method": self.method, "nobs": self.nobs, "n_classes": self.n_classes,
                              "k": self.k, "alpha": self.alpha, "lam": self.lam, "optimized": self.optimized,
                              "converged": self.converged, "n_iter": self.n_iter, "cost_init": self.cost_init,
                              "cost": self.cost, "loo_error": self.loo_error, "uncertain_labels": uncertain}])

    def summary(self) -> Summary:
        """Summary: data, K, alpha, lambda, labels, cost and gamma per class."""
        s = self._summary_head("Partially supervised evidential k-NN (eknn with label masses)")
        s.add_info("K", str(self.k))
        s.add_info("alpha", self.alpha)
        s.add_info("lambda", self.lam)
        s.add_info("Uncertain labels", f"{float(self.glance().loc[0, 'uncertain_labels']):.3g} of the rows")
        s.add_info("LOO cost", f"{self.cost:.6g} (at gamma_init: {self.cost_init:.6g})")
        s.add_info("LOO error rate", self.loo_error)
        s.add_table("Gamma per class", self.tidy().set_index("class"),
                    notes=["neighbour j uses gamma_j = sum_q BetP_j(q) gamma_q of its label."])
        return s

    @dataclass(frozen=True, kw_only=True)
    class State(GammaFitState):
        """What a saved partially supervised EkNN holds beyond its training rows
        (evstat.io.state): the gamma fit and the label masses."""

        #: the training labels as dense mass functions, one row per training row
        label_values: list[list[float]] = saved(
            schema.List(schema.List(schema.Float(min=0.0, max=1.0), what="masses"),
                        length=schema.Ref("class_frame.codes", "there are {n} training rows"), what="rows"),
            attribute="_labels",
            decode=lambda v: np.asarray(v, dtype=np.float64),
        )

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def masses(d: Mapping[str, Any], root: Any) -> str | None:
            width = 1 << len(d["class_frame"]["levels"])
            for i, row in enumerate(d["label_values"]):
                if len(row) != width:
                    return f"label_values[{i}] has {len(row)} masses, but {len(d['class_frame']['levels'])} classes have {width} subsets"
                if abs(sum(row) - 1.0) > 1e-6:
                    return f"the masses of label_values[{i}] sum to {sum(row):.6g}, not 1"
            return None

        return [k_rows, masses]

    def _verify_loaded(self, source: str) -> None:
        """As :meth:`evstat.classifiers.EkNNClassifier._verify_loaded`: gamma at a minimum of the
        leave-one-out cost (its gradient by central differences,
        :func:`evstat.classifiers._gamma.central_gradient`, as the optimiser's stopping rule), the recorded costs and the
        leave-one-out error recomputed on the saved rows and label masses."""
        super()._verify_loaded(source)
        M = self.n_classes
        values = self._labels
        betp = _betp(values, M)
        idx, d2 = knn(self._X, self._X, self.k, exclude_self=True)
        q_nb, b_nb = mass_to_q(values)[idx], betp[idx]
        masks = np.arange(1 << M)
        contour = values @ ((masks[:, None] >> np.arange(M)[None, :]) & 1).astype(np.float64)
        args = (q_nb, b_nb, d2, contour, self.alpha, self.lam, M)

        def cost(eta: NDArray[np.float64]) -> float:
            return partial_loo_cost(eta, *args)

        def cost_grad(eta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
            return cost(eta), central_gradient(cost, eta)

        m = partial_eknn_masses(q_nb, d2, b_nb @ self.gamma.to_numpy(), self.alpha)
        err = float(np.mean(np.argmax(_betp(m, M), axis=1) != np.argmax(betp, axis=1)))
        hard = np.argmax(betp, axis=1)
        verify_gamma_fit(self, source, cost_grad, err, evclass_initial_gamma(self._X, hard, M))


def _knn_rows(Xq: NDArray[np.float64], Xt: NDArray[np.float64], k: int, offset: int):
    """k nearest training rows of the training rows offset.. (each leaving itself out)."""
    from evstat.classifiers.neighbors import nearest, sq_distances

    D = sq_distances(Xq, Xt)
    r = np.arange(Xq.shape[0])
    D[r, offset + r] = np.inf
    return nearest(D, k)


def fit_partial(cf: ClassFrame, values: NDArray[np.float64], k: int, alpha: float, lam: float,
                starts: list[NDArray[np.float64]], optimize: bool) -> tuple[PartialEkNNClassifier, str]:
    """Fit the partially supervised EkNN (called by :func:`evstat.eknn`); returns the fit and the
    optimiser's warning (empty, or why the optimum is suspect).

    ``starts[0]`` is the initial gamma (``gamma_init``); with ``optimize`` the leave-one-out cost
    is minimised from every start by the optimiser EkNN uses
    (:func:`evstat.classifiers._gamma.minimise_log_gamma`: staged L-BFGS-B, more starts when the
    optimum is vacuous or on the box). A single unstaged L-BFGS-B run stopped after two or three
    iterations on the cost's plateau of large gamma in three of ten Ionosphere runs with every
    label uncertain (test error 0.63-0.65; reports/credal-knn).
    """
    M = cf.n_classes
    q = mass_to_q(values)
    betp = _betp(values, M)
    idx, d2 = knn(cf.X, cf.X, k, exclude_self=True)
    q_nb, b_nb = q[idx], betp[idx]
    g0 = np.asarray(starts[0], dtype=np.float64)
    eta0 = np.log(g0)
    masks = np.arange(1 << M)
    contour = values @ ((masks[:, None] >> np.arange(M)[None, :]) & 1).astype(np.float64)
    args = (q_nb, b_nb, d2, contour, alpha, lam, M)
    cost0 = partial_loo_cost(eta0, *args)
    warning = ""
    if optimize:
        opt = minimise_log_gamma(lambda eta: partial_loo_cost(eta, *args), False, starts,
                                 lambda eta: partial_eknn_masses(q_nb, d2, b_nb @ np.exp(eta), alpha)[:, -1])
        eta, cost = np.log(opt.gamma), opt.cost
        n_iter, conv, msg, warning = opt.n_iter, opt.converged, opt.message, opt.warning
    else:
        eta, cost, n_iter, conv, msg = eta0, cost0, 0, True, "not optimised"
    g = np.exp(eta)
    m = partial_eknn_masses(q_nb, d2, b_nb @ g, alpha)
    err = float(np.mean(np.argmax(_betp(m, M), axis=1) != np.argmax(betp, axis=1)))
    fit = PartialEkNNClassifier(cf, k=k, alpha=alpha, lam=lam, gamma=g, gamma_init=g0, label_values=values,
                                optimized=optimize, cost_init=cost0, cost=cost, loo_error=err, n_iter=n_iter,
                                converged=conv, message=msg)
    return fit, warning

# registered in evstat.classifiers._eknn, next to ev.eknn, which fits it (label_masses=)
