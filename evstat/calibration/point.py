"""The part shared by the probabilistic one-score calibrators of Gebel (2009, chapter 4).

Simple normalisation (:mod:`.normcal`), piecewise logistic regression (:mod:`.plr`), Bayes
calibration with Gaussian or asymmetric Laplace class-conditional densities (:mod:`.bayescal`)
and assignment values (:mod:`.avcal`) each map one score ``s`` to a probability
``theta(s) = P(y = positive | s)``. None of them carries a likelihood over its parameters that
evstat turns into a belief function, so their belief is Bayesian (a point mass): Bel({1}) =
Pl({1}) = theta, m({positive}) = theta, m({negative}) = 1 - theta and m(frame) = 0 (no
ignorance). ``predict(type="belief" | "mass")`` and the evidential decision strategies therefore
reduce to the probabilistic ones.

:class:`PointCalibration` holds the score column, the Bernoulli log-likelihood and Brier score of
the calibration rows (for ``glance``) and the common summary lines; a subclass implements
``_theta(s)`` on a 1-D array of scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import xlogy

from evstat.calibration.base import CalibrationResults, score_axes
from evstat.formula import ModelFrame
from evstat.summary import Summary

__all__ = ["PointCalibration"]


class PointCalibration(CalibrationResults):
    """Base class of the probabilistic one-score calibrators (Bel = Pl = theta).

    Attributes
    ----------
    score : str
        The design column calibrated.
    """

    method = "point"

    def __init__(self, mf: ModelFrame) -> None:
        super().__init__(mf)
        cols = score_axes(mf, self.method)
        if len(cols) > 1:
            raise ValueError(
                f"{self.method} calibrates one score, but formula {mf.formula!r} has "
                f"{len(cols)} score columns {[mf.terms[j] for j in cols]}: fit one score, "
                f"e.g. 'y ~ svm1', or use ev.disjoint to calibrate each column and combine them"
            )
        self._col = cols[0]
        self.score = mf.terms[self._col]

    # ---------------------------------------------------------------- to implement
    def _theta(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        """P(y = positive | s) for a 1-D array of scores."""
        raise NotImplementedError

    # ---------------------------------------------------------------- protocol
    def training_scores(self) -> NDArray[np.float64]:
        """The calibration scores (the design column of :attr:`score`)."""
        return np.asarray(self.model_frame.X, dtype=np.float64)[:, self._col]

    def _prob_array(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._theta(np.asarray(X, dtype=np.float64)[:, self._col])

    def _belief_arrays(self, X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        th = self._prob_array(X)
        return th, th.copy(), th.copy()

    @property
    def fittedvalues(self) -> NDArray[np.float64]:
        """theta on the calibration rows."""
        return self._theta(self.training_scores())

    @property
    def loglike(self) -> float:
        """Bernoulli log-likelihood of the calibration labels under theta (-inf when a label has
        probability 0)."""
        y = np.asarray(self.model_frame.y, dtype=np.float64)
        th = self.fittedvalues
        with np.errstate(divide="ignore"):
            return float(np.sum(xlogy(y, th) + xlogy(1.0 - y, 1.0 - th)))

    def _glance_row(self, **extra: Any) -> pd.DataFrame:
        mf = self.model_frame
        y = np.asarray(mf.y, dtype=np.float64)
        th = self.fittedvalues
        row = {
            "method": self.method,
            "nobs": mf.n,
            "n_pos": mf.n_pos,
            "n_neg": mf.n_neg,
            **extra,
            "loglik": self.loglike,
            "brier": float(np.mean((th - y) ** 2)),
            "mean_ignorance": 0.0,
        }
        return pd.DataFrame([row])

    def _point_summary(self, title: str, model: str) -> Summary:
        s = self._summary_head(title)
        s.add_info("Score", self.score)
        s.add_info("Model", model)
        s.add_info(
            "Belief",
            "Bayesian (point) masses: Bel({1}) = Pl({1}) = theta, no ignorance (a probabilistic "
            "calibrator)",
        )
        return s

