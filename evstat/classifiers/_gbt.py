"""The GBT-based evidential classifier of Denoeux and Smets (2006) (Minary et al. 2019, eqs. 59-65).

The Generalized Bayesian Theorem turns the conditional plausibilities ``Pl[w_k](x)`` of observing
``x`` under each class into a mass function on the class of ``x``:

    m(A | x) = prod_{k in A} Pl[w_k](x) prod_{k not in A} (1 - Pl[w_k](x)),   A subset of Omega,

(eq. 59) with the special case (eq. 60) ``Pl[w_k](x) = N(x, k) / N(k)``: the share of the class-k
training rows that lie in the ball of radius ``r`` centred on ``x``. Here the ball is *closed*,
``||x_i - x|| <= r`` (Euclidean). ``m(empty | x) = prod_k (1 - Pl[w_k](x))`` is then removed by
Dempster's normalisation (eq. 61): ``M(A | x) = m(A | x) / (1 - m(empty | x))``.

Two facts follow and are tested:

* the normalisation constant ``1 - m(empty | x)`` is 0 exactly when every ``Pl[w_k](x)`` is 0,
  i.e. when the ball holds no training row; such a row gets the vacuous mass function
  ``M(Omega) = 1`` (nothing is known about it);
* when every ``Pl[w_k](x)`` is 1 (the ball holds the whole training set) only ``A = Omega`` has
  a non-zero product: the prediction is vacuous as well.

The contour function is ``Pl({w_k} | x) = Pl[w_k](x) / (1 - m(empty | x))`` and
``Bel({w_k} | x) = Pl[w_k](x) prod_{l != k} (1 - Pl[w_l](x)) / (1 - m(empty | x))``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from evstat.belief import check_dense_size
from evstat.results import register
from evstat.summary import Summary
from evstat.classifiers.neighbors import ball_counts
from evstat.formula import ClassFrame, class_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.classifiers.base import ClassifierResults

__all__ = ["GBTClassifier", "gbt", "gbt_masses"]


def gbt_masses(pl: ArrayLike) -> NDArray[np.float64]:
    """Normalised GBT mass functions from the class-conditional plausibilities.

    Parameters
    ----------
    pl : array-like, shape (m, M)
        ``Pl[w_k](x)`` in [0, 1] for each of ``m`` rows and ``M`` classes.

    Returns
    -------
    numpy.ndarray, shape (m, 2**M)
        ``M(A | x)`` with columns in bitmask order (class ``k`` is bit ``k``; column 0, the
        empty set, is 0): eq. 59 normalised by eq. 61. A row whose plausibilities are all 0
        (normalisation constant 0) is vacuous.

    Examples
    --------
    Two classes with Pl[w_0] = 0.5 and Pl[w_1] = 0.25 (eqs. 62-65 before normalisation:
    m({0}) = 0.375, m({1}) = 0.125, m({0, 1}) = 0.125, m(empty) = 0.375):

    >>> gbt_masses([[0.5, 0.25], [0.0, 0.0]])
    array([[0. , 0.6, 0.2, 0.2],
           [0. , 0. , 0. , 1. ]])
    """
    p = np.asarray(pl, dtype=np.float64)
    if p.ndim != 2:
        raise ValueError(f"pl must be 2-D (rows, classes), got shape {p.shape}")
    if not (np.isfinite(p) & (p >= 0) & (p <= 1)).all():
        raise ValueError("pl must hold plausibilities in [0, 1]")
    m, M = p.shape
    vals = np.ones((m, 1))
    for k in range(M):  # over classes: builds the 2**M products in bitmask order
        pk = p[:, k : k + 1]
        vals = np.concatenate([vals * (1.0 - pk), vals * pk], axis=1)
    with np.errstate(divide="ignore"):
        norm = -np.expm1(np.sum(np.log1p(-p), axis=1))  # 1 - m(empty), accurately
    vac = norm <= 0.0
    out = np.zeros_like(vals)
    ok = ~vac
    out[ok, 1:] = vals[ok, 1:] / norm[ok, None]
    out[vac, -1] = 1.0
    return out


class GBTClassifier(ClassifierResults):
    """A fitted GBT-based evidential classifier (returned by :func:`gbt`).

    Attributes
    ----------
    radius : float
        Radius ``r`` of the closed ball.
    n_per_class : pandas.Series
        ``N(k)``, the training rows of every class.
    """

    method = "gbt"
    decision_rule = (
        "the minimal upper expected loss (the pessimistic strategy of Minary et al. 2019, eqs. 8-11, which "
        "compares the GBT classifier with the calibrators)"
    )

    def __init__(self, cf: ClassFrame, *, radius: float) -> None:
        super().__init__(cf)
        self.radius = float(radius)
        self.n_per_class = self.class_counts

    def _plausibilities(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        counts = ball_counts(np.asarray(X, dtype=np.float64), self._X, self._codes, self.n_classes, self.radius)
        return counts / self.n_per_class.to_numpy(dtype=np.float64)[None, :]

    def _mass_values(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return gbt_masses(self._plausibilities(X))

    def ball_counts(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """``N(x, k)``: training rows of each class in the closed ball of radius ``r`` around
        every row (the training rows when ``newdata`` is None; a row's ball then holds itself).

        Returns
        -------
        pandas.DataFrame
            One column per class, indexed like ``newdata``.
        """
        X, index = self._design(newdata, missing)
        c = ball_counts(X, self._X, self._codes, self.n_classes, self.radius)
        return pd.DataFrame(c, index=index, columns=self._class_index())

    def class_plausibility(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """``Pl[w_k](x) = N(x, k) / N(k)`` (eq. 60), one column per class."""
        X, index = self._design(newdata, missing)
        return pd.DataFrame(self._plausibilities(X), index=index, columns=self._class_index())

    def tidy(self) -> pd.DataFrame:
        """One row per class: ``class`` and ``n`` (= N(k))."""
        return pd.DataFrame({"class": list(self.levels), "n": self.n_per_class.to_numpy()})

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, nobs, n_classes, radius, mean_ball (mean number of training
        rows in the ball of a training row, itself included), mean_ignorance (mean m(Omega) on
        the training rows)."""
        c = ball_counts(self._X, self._X, self._codes, self.n_classes, self.radius)
        ign = self._mass_values(self._X)[:, -1]
        return pd.DataFrame(
            [
                {
                    "method": self.method,
                    "nobs": self.nobs,
                    "n_classes": self.n_classes,
                    "radius": self.radius,
                    "mean_ball": float(np.mean(c.sum(axis=1))),
                    "mean_ignorance": float(np.mean(ign)) if ign.size else float("nan"),
                }
            ]
        )

    def summary(self) -> Summary:
        """Summary: data, radius, the rule, and N(k) per class."""
        s = self._summary_head("GBT-based evidential classifier (gbt)")
        s.add_info("Radius", self.radius)
        s.add_info(
            "Rule",
            "Pl[w_k](x) = N(x, k) / N(k) in the closed ball ||x_i - x|| <= r; m(A|x) = "
            "prod_{k in A} Pl_k prod_{k not in A} (1 - Pl_k), normalised (empty ball: vacuous)",
        )
        g = self.glance().iloc[0]
        s.add_info("Mean ball size", f"{g['mean_ball']:.4g} training rows (training rows' balls)")
        s.add_info("Mean ignorance", f"{g['mean_ignorance']:.4g} (training rows)")
        s.add_table("Training rows per class", self.tidy().set_index("class"))
        return s

    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved gbt holds beyond its training rows (evstat.io.state)."""

        radius: float = saved(schema.Float(min=1e-300))




def gbt(
    formula: str,
    data: pd.DataFrame,
    radius: float = 1.0,
    positive: Any = None,
    missing: str = "raise",
) -> GBTClassifier:
    """GBT-based evidential classifier (Denoeux and Smets 2006; Minary et al. 2019, eqs. 59-65).

    For a row ``x``, ``Pl[w_k](x) = N(x, k) / N(k)`` is the share of the class-k training rows
    in the closed ball ``||x_i - x|| <= radius`` (Euclidean distance on the score columns); the
    prediction is ``m(A|x) = prod_{k in A} Pl[w_k](x) prod_{k not in A} (1 - Pl[w_k](x))``
    normalised by ``1 - m(empty|x)`` (eq. 61). A row whose ball holds no training row is
    vacuous (the normalisation constant is then 0), and so is a row whose ball holds all of
    them.

    Parameters
    ----------
    formula : str
        ``"class ~ s1 + s2 + ..."``; two or more classes. Scores are not rescaled (the paper uses
        radius 1 on the raw score vectors); the intercept plays no role.
    data : pandas.DataFrame
        Training data.
    radius : float > 0, default 1.0
        Radius ``r`` of the ball (the paper's choice on score vectors).
    positive : object, optional
        Two-class responses only: the positive class (default: the second level in sorted order).
    missing : {"raise", "drop"}
        Training rows with missing values: an error (default) or dropped.

    Returns
    -------
    GBTClassifier
        With ``predict(type="prob" | "belief" | "mass")``, ``decide``, ``summary``, ``tidy``,
        ``glance``, ``augment``, ``ball_counts``, ``class_plausibility`` and ``save``.
        ``decide(newdata)`` uses the pessimistic strategy by default (Minary et al.'s, 2019;
        ``fit.default_decision()``).

    Raises
    ------
    ValueError
        ``radius`` not a finite number > 0, a one-class training set, missing values (unless
        ``missing="drop"``), and the formula and data errors of :mod:`evstat.formula`.

    Examples
    --------
    >>> import pandas as pd
    >>> import evstat as ev
    >>> train = pd.DataFrame({"s": [0.0, 0.5, 2.0, 3.0], "y": [0, 0, 1, 1]})
    >>> fit = ev.gbt("y ~ s", train, radius=1.0)
    >>> new = pd.DataFrame({"s": [0.2, 1.0, 1.5, 10.0]})
    >>> fit.predict(new, type="mass").to_frame().round(4)
           m0      m1     m01
    0  1.0000  0.0000  0.0000
    1  0.5000  0.0000  0.5000
    2  0.3333  0.3333  0.3333
    3  0.0000  0.0000  1.0000
    >>> fit.predict(new, type="belief").round(4)
       theta     bel      pl
    0   0.00  0.0000  0.0000
    1   0.25  0.0000  0.5000
    2   0.50  0.3333  0.6667
    3   0.50  0.0000  1.0000
    """
    try:
        r = float(radius)
    except (TypeError, ValueError):
        raise TypeError(f"radius must be a number > 0, got {radius!r}") from None
    if not (np.isfinite(r) and r > 0):
        raise ValueError(
            f"radius must be a finite number > 0 (the radius of the ball around a row; default "
            f"1.0), got {radius!r}"
        )
    cf = class_frame(formula, data, positive=positive, missing=missing, rank_checks=False)
    cf.design.require_numeric("gbt", "it counts training rows in Euclidean balls around a point, and a factor's levels have no distance")
    check_dense_size(cf.n_classes, "gbt")  # its mass output has 2**K sets
    return GBTClassifier(cf, radius=r)


register(GBTClassifier, example=lambda y, d: gbt(f"{y} ~ s1 + s2", d), n_classes=(2, 3), fitter=gbt)
