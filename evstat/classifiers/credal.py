"""Credal K-nearest-neighbour classifier EC (Liu, Pan and Dezert, "Evidential classifier for
imprecise data based on belief functions", 2013) with meta-classes and an outlier class.

Frame ``Omega = {w0, w1, ..., wh}``: the response's ``h`` classes and an explicit unknown element
``w0`` (label :data:`UNKNOWN`), so that the ignorant class ``Omega`` (an *outlier*) differs from
the meta-class ``{w1, ..., wh}``. Focal sets are non-empty subsets of the classes (singletons and
meta-classes) and ``Omega``; never a set containing ``w0`` other than ``Omega``.

Step 1 (eqs. 6-10). Each of the ``K`` nearest training rows ``x_j`` (class ``w_s``, Euclidean
distance ``d``) of the row to classify gives

    m({w_s} | d) = 1 / (1 + exp(lambda_s (d - t_s))),      m(Omega | d) = 1 - m({w_s} | d),

with ``lambda_s = 1 / dbar_s``, ``t_s = rho dbar_s`` (so ``m({w_s} | d) = expit(rho - d /
dbar_s)``), where ``dbar_s`` (eq. 8) is the mean, over the training rows of class ``s``, of their
mean distance to their ``K`` nearest training rows (any class, the row itself excluded).

Step 2a (eq. 11): the bbas of the ``n_s`` neighbours of class ``s`` are averaged:
``a_s = mean m({w_s} | d)``. Step 2b: discounting by the neighbour count, ``a'_s = alpha_s a_s``
with ``alpha_s = n_s / max_l n_l`` (``a'_s = 0`` for a class without neighbours). Step 2c: the
global fusion is the conjunctive combination of the discounted class bbas in which the conflict
of each product goes to the union of the classes involved (the meta-class). For these simple bbas
it has the product form (derived here from eq. 11 of the EC paper: each class bba has two
focal sets, so their conjunctive product is a product of independent choices)

    m(A) = prod_{s in A} a'_s prod_{s not in A} (1 - a'_s)     (A a non-empty set of classes),
    m(Omega) = prod_s (1 - a'_s),

which :func:`ec_masses` evaluates for all ``2^h`` sets at once; the tests check it against the
full combination on the frame with ``w0`` (evstat.belief's averaging, discounting and
Dubois-Prade rules, which for these bbas send each conflict to the union of the singletons).

Decision (section 5): the focal set of maximal mass among singletons, meta-classes and ``Omega``.
From the product form, the maximiser is ``A* = {s : a'_s > 0.5}`` (each factor is maximised on
its own; ``a'_s = 0.5`` exactly is left out, the more precise choice) and ``A* = {}`` means
``Omega``: an outlier. Tests compare this closed form with the argmax over the dense masses.

No outliers expected (the paper's real data, section 5.3): ``outlier=False`` redistributes
``m(Omega)`` proportionally to the other focal sets, ``m(A) / (1 - m(Omega))``; the decision is
then the argmax among the non-empty sets of classes (``{s : a'_s > 0.5}``, or when that is empty
the single class of largest ``a'_s``). If ``1 - m(Omega)`` underflows to 0 (every neighbour
astronomically far), the limit of the redistribution is used: mass ``a'_s / sum a'`` on the
singletons, computed from ``log a'_s``.

Class-level outputs (``predict(type="prob" | "belief")``, ``decide`` with the belief-function
strategies) use the mass function on the frame of the classes: with ``outlier=True`` it is the
extended mass function conditioned (Dempster) on "one of the classes", which moves ``m(Omega)``
to the set of all classes and changes nothing else; with ``outlier=False`` the redistributed one.
``predict(type="mass")`` returns the mass function on the extended frame (classes + ``w0``) with
``outlier=True`` and on the frame of the classes with ``outlier=False``.

rho by leave-one-out (section 5.3): ``rho="loo"`` evaluates the grid 2.0, 2.1, ..., 5.0 on the
training rows (each row classified from its ``K`` nearest other rows, ``dbar`` computed once on
the whole training set) and keeps the rho of lowest leave-one-out error of the hard decisions by
maximal BetP (the paper's "lowest error rate"; the credal error rate would always favour the
largest rho, since more imprecision can only lower it). Ties go to the smallest rho; BetP ties to
the first class. The argmax of BetP over the classes is the same whether ``m(Omega)`` is spread
over the classes and ``w0`` or redistributed, so the choice does not depend on ``outlier``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, log_expit

from evstat.belief import Frame, MassArray, check_dense_size
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary
from evstat.classifiers.neighbors import CHUNK_ENTRIES, knn
from evstat.formula import ClassFrame, class_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.classifiers.base import OUTLIER, ClassifierResults, clip01
from evstat.classifiers._eknn import _check_k

__all__ = [
    "CredalKNNClassifier",
    "RHO_GRID",
    "UNKNOWN",
    "credal_knn",
    "ec_dbar",
    "ec_masses",
    "ec_support",
]

#: label of the unknown element w0 of the extended frame
UNKNOWN = "w0"
#: the paper's grid for rho by leave-one-out: 2.0, 2.1, ..., 5.0
RHO_GRID = np.round(np.arange(20, 51) / 10.0, 1)
#: rho must lie in (0, RHO_MAX] (the paper recommends [2, 5])
RHO_MAX = 10.0
#: most classes for the dense masses (2**h columns)
MAX_CLASSES = 16


# ------------------------------------------------------------------------------------------------
# the mathematics
# ------------------------------------------------------------------------------------------------


def ec_dbar(X: ArrayLike, codes: ArrayLike, n_classes: int, k: int) -> NDArray[np.float64]:
    """``dbar_s`` of eq. 8: mean over the training rows of class ``s`` of their mean Euclidean
    distance to their ``k`` nearest training rows (the row itself excluded; ties by row order).

    Examples
    --------
    >>> ec_dbar([[0.0], [1.0], [3.0], [7.0]], [0, 0, 1, 1], 2, k=1).tolist()
    [1.0, 3.0]
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    codes = np.asarray(codes, dtype=np.intp)
    _, d2 = knn(X, X, k, exclude_self=True)
    per_row = np.sqrt(d2).mean(axis=1)
    sums = np.bincount(codes, weights=per_row, minlength=n_classes)
    counts = np.bincount(codes, minlength=n_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def _log_support(
    labels: NDArray[np.intp], dist: NDArray[np.float64], dbar: NDArray[np.float64], rho: float, n_classes: int
) -> NDArray[np.float64]:
    """log a'_s, shape (m, h): -inf for a class without neighbours."""
    m, k = labels.shape
    lm = log_expit(rho - dist / dbar[labels])  # log m({w_s} | d) of every neighbour
    flat = (np.arange(m, dtype=np.intp)[:, None] * n_classes + labels).ravel()
    counts = np.bincount(flat, minlength=m * n_classes).reshape(m, n_classes).astype(np.float64)
    # log of the sum of the neighbours' masses per class, by a max-shifted sum
    big = np.full(m * n_classes, -np.inf)
    np.maximum.at(big, flat, lm.ravel())
    big = big.reshape(m, n_classes)
    shift = np.where(np.isfinite(big), big, 0.0)
    sums = np.bincount(flat, weights=np.exp(lm - shift[np.arange(m)[:, None], labels]).ravel(),
                       minlength=m * n_classes).reshape(m, n_classes)
    with np.errstate(divide="ignore"):
        # log a'_s = log(sum / n_s) + log(n_s / max n) = log(sum) - log(max n)
        return np.log(sums) + shift - np.log(counts.max(axis=1, keepdims=True))


def ec_support(
    labels: ArrayLike, dist: ArrayLike, dbar: ArrayLike, rho: float, n_classes: int | None = None
) -> NDArray[np.float64]:
    """Discounted class supports ``a'_s = alpha_s mean_{j: y_j = s} m({w_s} | d_j)`` (steps 1,
    2a, 2b), ``alpha_s = n_s / max_l n_l``; 0 for a class without neighbours.

    Parameters
    ----------
    labels : array-like of int, shape (m, K)
        Class (position) of each neighbour.
    dist : array-like, shape (m, K)
        Euclidean distances (not squared) to the neighbours.
    dbar : array-like, shape (h,)
        ``dbar_s`` per class (:func:`ec_dbar`).
    rho : float
        ``t_s = rho dbar_s``.
    n_classes : int, optional
        ``h`` (default ``len(dbar)``).

    Returns
    -------
    numpy.ndarray, shape (m, h)

    Examples
    --------
    Three neighbours of class 0 at distance 0, one of class 1 at distance 0, dbar = 1, rho = 3:

    >>> ec_support([[0, 0, 0, 1]], [[0.0, 0.0, 0.0, 0.0]], [1.0, 1.0], 3.0).round(4)
    array([[0.9526, 0.3175]])
    """
    lab = np.asarray(labels, dtype=np.intp)
    d = np.asarray(dist, dtype=np.float64)
    db = np.asarray(dbar, dtype=np.float64)
    h = int(db.shape[0] if n_classes is None else n_classes)
    if lab.ndim != 2 or d.shape != lab.shape:
        raise ValueError(f"labels and dist must be 2-D of the same shape, got {lab.shape} and {d.shape}")
    return np.exp(_log_support(lab, d, db, float(rho), h))


def ec_masses(support: ArrayLike) -> NDArray[np.float64]:
    """The global fusion (step 2c) in product form, for all subsets of the classes at once.

    Parameters
    ----------
    support : array-like, shape (m, h)
        Discounted class supports ``a'_s`` (:func:`ec_support`).

    Returns
    -------
    numpy.ndarray, shape (m, 2**h)
        Column ``A`` (bitmask of the classes, bit ``s`` for class ``s``) holds ``m(A) = prod_{s
        in A} a'_s prod_{s not in A} (1 - a'_s)`` for ``A`` non-empty; column 0 holds
        ``m(Omega) = prod_s (1 - a'_s)`` (the outlier class: the empty set of classes plus
        ``w0``). Rows sum to 1.

    Examples
    --------
    Example 3 of the paper (the paper prints 0.3274 for 0.3267, a typo):

    >>> ec_masses([[0.7, 0.8 * 2 / 3]]).round(5)
    array([[0.14   , 0.32667, 0.16   , 0.37333]])
    """
    a = np.asarray(support, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"support must be 2-D (rows x classes), got shape {a.shape}")
    out = np.ones((a.shape[0], 1))
    for s in range(a.shape[1]):
        col = a[:, s : s + 1]
        out = np.concatenate([out * (1.0 - col), out * col], axis=1)
    return out


def _credal_masks(log_a: NDArray[np.float64], outlier: bool) -> NDArray[np.intp]:
    """Bitmask of the decided set of classes per row; 0 = outlier (only with ``outlier=True``)."""
    h = log_a.shape[1]
    inside = log_a > np.log(0.5)
    masks = (inside.astype(np.intp) << np.arange(h, dtype=np.intp)).sum(axis=1)
    if not outlier:
        empty = masks == 0
        if empty.any():
            masks[empty] = 1 << np.argmax(log_a[empty], axis=1)
    return masks


def _redistributed(values: NDArray[np.float64], log_a: NDArray[np.float64]) -> NDArray[np.float64]:
    """m(A) / (1 - m(Omega)) on the non-empty sets of classes (column 0 becomes 0)."""
    a = np.exp(log_a)
    with np.errstate(divide="ignore"):
        rest = -np.expm1(np.sum(np.log1p(-np.minimum(a, 1.0)), axis=1))  # 1 - prod(1 - a')
    out = values.copy()
    out[:, 0] = 0.0
    ok = rest > 0
    out[ok] /= rest[ok, None]
    if (~ok).any():  # limit a' -> 0: the singletons, proportional to a'
        la = log_a[~ok]
        w = np.exp(la - la.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        h = log_a.shape[1]
        out[~ok] = 0.0
        out[np.ix_(np.flatnonzero(~ok), 1 << np.arange(h))] = w
    return out


def _betp_classes(values: NDArray[np.float64], h: int) -> NDArray[np.float64]:
    """BetP over the classes of dense class-subset masses whose column 0 is m(Omega) spread
    over the h classes and w0 (not renormalised: argmax only)."""
    masks = np.arange(1 << h)
    member = ((masks[:, None] >> np.arange(h)[None, :]) & 1).astype(np.float64)
    card = member.sum(axis=1)
    w = np.zeros(1 << h)
    w[1:] = 1.0 / card[1:]
    out = (values * w) @ member
    out += values[:, :1] / (h + 1)
    return out


# ------------------------------------------------------------------------------------------------
# the results class
# ------------------------------------------------------------------------------------------------


class CredalKNNClassifier(ClassifierResults):
    """A fitted credal K-NN classifier EC (returned by :func:`credal_knn`).

    Attributes
    ----------
    k : int
        Number of neighbours ``K``.
    rho : float
        ``t_s = rho dbar_s`` (fixed, or chosen by leave-one-out).
    rho_method : str
        ``"fixed"`` or ``"loo"``.
    outlier : bool
        True: ``Omega`` (outlier) is a possible decision; False: ``m(Omega)`` is redistributed
        proportionally (the paper's setting for data without outliers).
    dbar : pandas.Series
        ``dbar_s`` per class (eq. 8).
    loo_path : pandas.DataFrame or None
        With ``rho="loo"``: ``rho`` and ``loo_error`` (BetP hard decisions) over the grid.
    loo_error : float
        Leave-one-out error rate (BetP hard decisions) at ``rho``.
    """

    method = "credal_knn"
    #: the paper's rule (002) by default: classes, meta-classes and outliers
    capabilities: ClassVar[Capabilities] = replace(ClassifierResults.capabilities, default_strategy="credal")
    decision_rule: ClassVar[str] = (
        "the credal rule of Liu, Pan and Dezert (2013): the focal set of maximal mass, a class, a "
        "meta-class (a frozenset of classes) or 'outlier' (the whole frame); with reject_cost or loss the "
        "loss-based 'pessimistic' strategy"
    )

    def __init__(
        self,
        cf: ClassFrame,
        *,
        k: int,
        rho: float,
        rho_method: str,
        outlier: bool,
        dbar: NDArray[np.float64],
        loo_path: pd.DataFrame | None,
        loo_error: float,
    ) -> None:
        super().__init__(cf)
        if self.n_classes > MAX_CLASSES:
            raise ValueError(
                f"credal_knn keeps the mass of every set of classes (2**h columns); "
                f"{self.n_classes} classes exceed the limit of {MAX_CLASSES}"
            )
        if OUTLIER in self.frame or UNKNOWN in self.frame:
            raise ValueError(
                f"a class is named {OUTLIER!r} or {UNKNOWN!r}, which credal_knn uses for the outlier "
                "decision and the unknown element w0; rename that class"
            )
        self.k = int(k)
        self.rho = float(rho)
        self.rho_method = str(rho_method)
        self.outlier = bool(outlier)
        self.dbar = pd.Series(np.asarray(dbar, dtype=np.float64), index=self._class_index(), name="dbar")
        self.loo_path = loo_path
        self.loo_error = float(loo_error)
        self.extended_frame = Frame([*self.levels, UNKNOWN])

    # ---------------------------------------------------------------- core
    def _log_a(self, X: NDArray[np.float64], exclude_self: bool = False) -> NDArray[np.float64]:
        idx, d2 = knn(np.asarray(X, dtype=np.float64), self._X, self.k, exclude_self=exclude_self)
        return _log_support(self._codes[idx], np.sqrt(d2), self.dbar.to_numpy(), self.rho, self.n_classes)

    def _class_masses(self, log_a: NDArray[np.float64]) -> NDArray[np.float64]:
        """Dense masses on the frame of the classes (Omega -> all classes, or redistributed)."""
        v = ec_masses(np.exp(log_a))
        if self.outlier:
            v[:, -1] += v[:, 0]
            v[:, 0] = 0.0
            return clip01(v)
        return clip01(_redistributed(v, log_a))

    def _mass_values(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._class_masses(self._log_a(X))

    def _extended_values(self, log_a: NDArray[np.float64]) -> NDArray[np.float64]:
        h = self.n_classes
        v = ec_masses(np.exp(log_a))
        out = np.zeros((v.shape[0], 1 << (h + 1)))
        out[:, 1 : 1 << h] = v[:, 1:]
        out[:, -1] = v[:, 0]
        return clip01(out)

    def _credal_masks(self, X: NDArray[np.float64]) -> NDArray[np.intp]:
        masks = np.empty(X.shape[0], dtype=np.intp)
        step = max(1, CHUNK_ENTRIES // max(self.nobs, 1 << self.n_classes))
        for a in range(0, X.shape[0], step):
            masks[a : a + step] = _credal_masks(self._log_a(X[a : a + step]), self.outlier)
        return masks

    # ---------------------------------------------------------------- prediction
    def _predict(self, X: NDArray[np.float64], index: pd.Index, type: str, **options: Any) -> Any:
        """As the evidential classifiers' predictions, except that with ``outlier=True``
        ``type="mass"`` is a MassArray on the extended frame (the classes and ``w0``), whose
        whole frame is the outlier class.

        Examples
        --------
        >>> import evstat as ev
        >>> df = ev.datasets.load("iris")
        >>> fit = ev.credal_knn('Species ~ Q("petal length (cm)") + Q("petal width (cm)")', df, k=5)
        >>> fit.predict(df.iloc[[0]], type="mass").frame.labels
        ('setosa', 'versicolor', 'virginica', 'w0')
        """
        if type == "mass" and self.outlier and not options:
            return MassArray(self.extended_frame, self._extended_values(self._log_a(X)), index=index)
        return super()._predict(X, index, type, **options)

    def credal_decide(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.Series:
        """Same as ``decide(newdata, strategy="credal")``: the focal set of maximal mass."""
        return self.decide(newdata, strategy="credal", missing=missing)

    def predict_loo(self, type: str = "prob") -> Any:
        """Leave-one-out predictions on the training rows (row ``i`` from its ``K`` nearest other
        rows; ``dbar`` as fitted). ``type`` as in :meth:`predict`, or ``"credal"`` for the
        credal decisions."""
        log_a = self._log_a(self._X, exclude_self=True)
        index = self.class_frame.index
        if type == "credal":
            return self._present_credal(_credal_masks(log_a, self.outlier), index)
        if type == "mass":
            if self.outlier:
                return MassArray(self.extended_frame, self._extended_values(log_a), index=index)
            return MassArray(self.frame, self._class_masses(log_a), index=index)
        if type not in ("prob", "belief"):
            raise ValueError(f"type must be one of ('prob', 'belief', 'mass', 'credal'), got {type!r}")
        ma = MassArray(self.frame, self._class_masses(log_a))
        bel = np.column_stack([ma.bel(lev) for lev in self.levels])
        pl = np.column_stack([ma.pl(lev) for lev in self.levels])
        betp = ma.betp().to_numpy()
        return self._present(type, index, bel=bel, pl=pl, betp=betp)

    # ---------------------------------------------------------------- broom verbs
    def tidy(self) -> pd.DataFrame:
        """One row per class: ``class``, ``n`` (training rows), ``dbar`` (eq. 8), ``lambda`` =
        1/dbar and ``t`` = rho dbar (the imprecision threshold)."""
        db = self.dbar.to_numpy()
        return pd.DataFrame(
            {"class": list(self.levels), "n": self.class_counts.to_numpy(), "dbar": db,
             "lambda": 1.0 / db, "t": self.rho * db}
        )

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, nobs, n_classes, k, rho, rho_method, outlier, loo_error and
        the leave-one-out credal rates (``loo_imprecision``: share decided as a meta-class,
        ``loo_outlier``: share decided as an outlier)."""
        masks = _credal_masks(self._log_a(self._X, exclude_self=True), self.outlier)
        card = np.array([bin(int(x)).count("1") for x in range(1 << self.n_classes)])[masks]
        return pd.DataFrame(
            [{"method": self.method, "nobs": self.nobs, "n_classes": self.n_classes, "k": self.k,
              "rho": self.rho, "rho_method": self.rho_method, "outlier": self.outlier,
              "loo_error": self.loo_error, "loo_imprecision": float(np.mean(card >= 2)),
              "loo_outlier": float(np.mean(card == 0))}]
        )

    def summary(self) -> Summary:
        """Summary: data, K, rho (and how it was chosen), the outlier setting, the leave-one-out
        error and the class scales."""
        s = self._summary_head("Credal K-nearest-neighbour classifier EC (credal_knn)")
        s.add_info("K", str(self.k))
        s.add_info("rho", f"{self.rho:g}" + (" (leave-one-out on the grid 2.0, 2.1, ..., 5.0)"
                                            if self.rho_method == "loo" else " (fixed)"))
        s.add_info("Outlier class", "yes (Omega is a decision)" if self.outlier
                   else "no (m(Omega) redistributed proportionally)")
        s.add_info("LOO error rate (BetP)", self.loo_error)
        s.add_table(
            "Class scales",
            self.tidy().set_index("class"),
            notes=["m({w_s}|d) = 1/(1 + exp(lambda_s (d - t_s))), lambda_s = 1/dbar_s, t_s = rho dbar_s."],
        )
        return s

    # ---------------------------------------------------------------- persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved credal_knn holds beyond its training rows (evstat.io.state)."""

        k: int = saved(schema.Int(min=1))
        rho: float = saved(schema.Float(min=0.0))
        rho_method: str = saved(schema.Str(choices=["fixed", "loo"]))
        outlier: bool = saved()
        #: eq. 8, one per class
        dbar: list[float] = saved(
            schema.List(schema.Float(min=0.0), length=schema.Ref("class_frame.levels", "there are {n} classes")),
            decode=lambda v: np.asarray(v, dtype=np.float64),
        )
        #: rho="loo": the grid and its leave-one-out errors
        loo_path: dict[str, list[float]] | None = saved(
            schema.Nullable(schema.Dict({
                "rho": schema.List(schema.Float(), min_len=1),
                "loo_error": schema.List(schema.Float(min=0.0, max=1.0), length=schema.Ref("loo_path.rho", "the grid has {n} values")),
            })),
            encode=lambda p: None if p is None else {"rho": p["rho"].tolist(), "loo_error": p["loo_error"].tolist()},
            decode=lambda p: None if p is None else pd.DataFrame(p),
        )
        loo_error: float = saved(schema.Float(min=0.0, max=1.0))

    def _verify_loaded(self, source: str) -> None:
        """The class scales and the choice of rho, recomputed on the saved training rows (closed
        forms, no search): ``dbar`` (eq. 8) exactly, the ``loo_error`` at ``rho``; with
        ``rho_method="loo"``, ``rho`` on the grid 2.0, ..., 5.0 and the first minimum of the saved
        path, and the path itself (every grid point when it holds at most
        :data:`VERIFY_PATH_ENTRIES` masses, else its value at ``rho``). ``k``, ``outlier`` and a
        fixed ``rho`` are settings."""
        super()._verify_loaded(source)
        X, codes, M = self._X, self._codes, self.n_classes
        dbar = ec_dbar(X, codes, M, self.k)
        bad = np.flatnonzero(dbar != self.dbar.to_numpy())
        if bad.size:
            q = int(bad[0])
            raise not_fitted(self, source, f"dbar[{q}] (class {self.levels[q]!r})",
                                   f"the file says {self.dbar.iloc[q]!r}, eq. 8 on the saved rows gives {dbar[q]!r}")
        loo_err = _loo_errors(X, codes, M, self.k, dbar)
        if self.rho_method == "loo":
            path = self.loo_path
            grid = np.asarray(path["rho"], dtype=np.float64) if path is not None else np.zeros(0)
            if path is None or not np.array_equal(grid, RHO_GRID):
                raise not_fitted(self, source, "loo_path", "rho='loo' searches the grid 2.0, 2.1, ..., 5.0")
            errs = np.asarray(path["loo_error"], dtype=np.float64)
            if self.rho != float(RHO_GRID[int(np.argmin(errs))]):
                raise not_fitted(self, source, "rho", "it is not the first minimum of the saved leave-one-out path")
            full = RHO_GRID.size * self.nobs * 2**M <= VERIFY_PATH_ENTRIES
            for i in range(RHO_GRID.size) if full else [int(np.argmin(errs))]:
                e = loo_err(float(RHO_GRID[i]))
                if e != errs[i]:
                    raise not_fitted(self, source, f"loo_path.loo_error[{i}] (rho = {RHO_GRID[i]:g})",
                                           f"the file says {errs[i]!r}, the saved rows give {e!r}")
        err = loo_err(self.rho)
        if err != self.loo_error:
            raise not_fitted(self, source, "loo_error", f"the file says {self.loo_error!r}, the saved rows give {err!r}")


# ------------------------------------------------------------------------------------------------
# the fitting function
# ------------------------------------------------------------------------------------------------


def _loo_errors(X: NDArray[np.float64], codes: NDArray[np.intp], M: int, k: int,
                dbar: NDArray[np.float64]) -> Any:
    """``rho -> leave-one-out error`` of the hard (maximal BetP) decisions on the training rows
    (each from its ``k`` nearest other rows), for the rho grid of :func:`credal_knn` and its
    load check."""
    idx, d2 = knn(X, X, k, exclude_self=True)
    labels, dist = codes[idx], np.sqrt(d2)

    def loo_err(rv: float) -> float:
        v = ec_masses(np.exp(_log_support(labels, dist, dbar, rv, M)))
        return float(np.mean(np.argmax(_betp_classes(v, M), axis=1) != codes))

    return loo_err


#: ``ev.load`` recomputes the whole leave-one-out path of ``rho="loo"`` when it holds at most
#: this many masses (grid points x rows x 2**K), otherwise only its value at the chosen rho
VERIFY_PATH_ENTRIES = 2**25


def _check_rho(rho: Any) -> float | None:
    if isinstance(rho, str):
        if rho == "loo":
            return None
        raise ValueError(f"rho must be a number in (0, {RHO_MAX:g}] or 'loo', got {rho!r}")
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real):
        raise TypeError(f"rho must be a number in (0, {RHO_MAX:g}] or 'loo', got {rho!r}")
    r = float(rho)
    if not 0.0 < r <= RHO_MAX:  # also NaN
        raise ValueError(
            f"rho must lie in (0, {RHO_MAX:g}] (t_s = rho * dbar_s; the paper recommends 2 to 5, "
            f"default 3), got {rho!r}; or use rho='loo'"
        )
    return r


def credal_knn(
    formula: str,
    data: pd.DataFrame,
    k: int = 9,
    rho: float | str = 3.0,
    outlier: bool = True,
    positive: Any = None,
    missing: str = "raise",
) -> CredalKNNClassifier:
    """Credal K-nearest-neighbour classifier EC (Liu, Pan and Dezert 2013): decisions on
    classes, meta-classes (unions of classes) and an outlier class.

    Each of the ``k`` nearest training rows gives its class the mass ``1 / (1 + exp(d / dbar_s -
    rho))``; the masses of the neighbours of one class are averaged and discounted by the share of
    neighbours of that class, and the classes are fused so that conflict goes to meta-classes
    (see the module notes for the formulas and the choices).

    Parameters
    ----------
    formula : str
        ``"class ~ x1 + x2 + ..."``; two or more classes (at most 16). Euclidean distance on the
        columns as given (use ``standardize(x)`` in the formula to rescale).
    data : pandas.DataFrame
        Training data.
    k : int, default 9
        Number of neighbours ``K`` (the paper uses 9 and 11 in its simulations, 5-25 elsewhere);
        ``1 <= k < n``.
    rho : float in (0, 10] or "loo", default 3.0
        ``t_s = rho dbar_s``. ``"loo"`` chooses rho on the grid 2.0, 2.1, ..., 5.0 by the lowest
        leave-one-out error of the hard (maximal BetP) decisions, ties to the smallest rho.
    outlier : bool, default True
        True: the whole frame (outlier) is a possible decision. False: ``m(Omega)`` is
        redistributed proportionally to the other focal sets (the paper's setting for real data,
        where no outliers are expected).
    positive : object, optional
        Two-class responses only: the positive class.
    missing : {"raise", "drop"}
        Training rows with missing values.

    Returns
    -------
    CredalKNNClassifier
        With ``predict``, ``decide``, ``predict_loo``, ``summary``, ``tidy``, ``glance``,
        ``augment``, ``save``. ``decide(newdata)`` decides by the paper's credal rule by default
        (``capabilities.default_strategy == "credal"``): the focal set of maximal mass, so a
        class label, a meta-class (a ``frozenset`` of labels) or ``"outlier"``; a loss-based
        strategy (``strategy="pessimistic"``, ...) or ``reject_cost=``/``loss=`` give a
        Categorical of classes (and ``"reject"``), with ``"pessimistic"`` when no strategy is named.

    Raises
    ------
    ValueError
        ``k >= n`` or ``k < 1``, ``rho`` outside (0, 10], a class named ``"outlier"`` or
        ``"w0"``, more than 16 classes, and every formula and data error of
        :mod:`evstat.formula`.

    Examples
    --------
    >>> import evstat as ev
    >>> df = ev.datasets.load("iris")
    >>> fit = ev.credal_knn('Species ~ Q("petal length (cm)") + Q("petal width (cm)")', df, k=9)
    >>> fit.decide(df.iloc[[0, 149]], strategy="credal").tolist()
    ['setosa', 'virginica']
    """
    if not isinstance(outlier, (bool, np.bool_)):
        raise TypeError(f"outlier must be True or False, got {outlier!r}")
    r = _check_rho(rho)
    cf = class_frame(formula, data, positive=positive, missing=missing, rank_checks=False)
    cf.design.require_numeric("credal_knn", "it measures Euclidean distances between rows, and a factor's levels have no distance")
    kk = _check_k(k, cf.n)
    M = cf.n_classes
    # before anything of size 2**M: the leave-one-out masses hold every row at once
    check_dense_size(M, "credal_knn", rows=cf.n, max_size=MAX_CLASSES)
    X, codes = cf.X, cf.codes
    dbar = ec_dbar(X, codes, M, kk)
    if not (np.isfinite(dbar) & (dbar > 0)).all():
        bad = [lev for lev, v in zip(cf.levels, dbar) if not (np.isfinite(v) and v > 0)]
        raise ValueError(
            f"class(es) {bad} have mean neighbour distance 0 (all K nearest rows of every row of "
            "the class are duplicates of it), so lambda_s = 1/dbar_s is undefined: remove "
            "duplicate rows or increase k"
        )
    loo_err = _loo_errors(X, codes, M, kk, dbar)

    if r is None:
        errs = np.array([loo_err(float(g)) for g in RHO_GRID])
        best = int(np.argmin(errs))  # first minimum: smallest rho
        r, method = float(RHO_GRID[best]), "loo"
        path: pd.DataFrame | None = pd.DataFrame({"rho": RHO_GRID, "loo_error": errs})
        err = float(errs[best])
    else:
        method, path, err = "fixed", None, loo_err(r)
    return CredalKNNClassifier(
        cf, k=kk, rho=r, rho_method=method, outlier=bool(outlier), dbar=dbar, loo_path=path, loo_error=err
    )


register(CredalKNNClassifier, example=lambda y, d: credal_knn(f"{y} ~ s1 + s2", d, k=5), n_classes=(2, 3), fitter=credal_knn)
