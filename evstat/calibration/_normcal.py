"""Simple normalisation of an unnormalised score: ``normcal`` (Gebel 2009, section 4.1, eq. 4.1).

    P(positive | s) = (s + rho M) / (2 rho M),    M = max_i |s_i| over the calibration rows,

with the smoothing factor rho = 1.05 (rho > 1 keeps the outputs strictly inside (0, 1):
between (1 - 1/rho) / 2 = 0.0238 and (1 + 1/rho) / 2 = 0.9762 for rho = 1.05; rho = 1 maps the
calibration range onto [0, 1]). The decision boundary s = 0 of a regularisation method (SVM)
goes to 0.5. The method uses no labels: it is a pre-calibration (for assignment values and
Gebel's Dirichlet calibration), not a calibration of the assessment uncertainty, as the thesis
says.

Test scores beyond the calibration range (``|s| > M``) would leave [0, 1]; they are clipped to
+-M (the thesis's rule, as the issue asks), which ``beyond="raise"`` turns into an error
instead. For K scores the thesis takes M over all rows and columns; a binary calibrator has one
score column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.calibration.point import PointCalibration
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary, format_number

__all__ = ["NormalisedCalibration", "normcal", "normalise_scores"]

_BEYOND = ("clip", "raise")


def _check_rho(rho: Any) -> float:
    try:
        r = float(rho)
    except (TypeError, ValueError):
        raise TypeError(f"rho must be a number >= 1, got {rho!r}") from None
    if not np.isfinite(r) or r < 1.0:
        raise ValueError(
            f"rho must be a finite number >= 1 (1.05 keeps the probabilities inside (0, 1), 1 maps "
            f"the calibration range onto [0, 1]), got {rho!r}"
        )
    return r


def normalise_scores(s: Any, scale: float, rho: float = 1.05) -> NDArray[np.float64]:
    """Gebel's eq. 4.1 with a given ``scale`` = ``max |s|`` of the calibration data (no clipping).

    Parameters
    ----------
    s : array-like
        Scores (any shape).
    scale : float
        ``M = max |s|`` over the calibration data (> 0).
    rho : float
        Smoothing factor >= 1.

    Returns
    -------
    numpy.ndarray
        ``(s + rho M) / (2 rho M)``, in [0, 1] for ``|s| <= rho M``.

    Examples
    --------
    >>> normalise_scores([-2.0, 0.0, 2.0], scale=2.0).round(4).tolist()
    [0.0238, 0.5, 0.9762]
    """
    x = np.asarray(s, dtype=np.float64)
    return (x + rho * scale) / (2.0 * rho * scale)


class NormalisedCalibration(PointCalibration):
    """A fitted simple normalisation (returned by :func:`normcal`).

    Attributes
    ----------
    rho : float
        Smoothing factor.
    scale : float
        ``M = max |s|`` over the calibration rows.
    beyond : {"clip", "raise"}
        What test scores with ``|s| > M`` get.
    """

    method = "normcal"
    capabilities = Capabilities(single_score=True, accepts=("decision",))

    def __init__(self, mf: ModelFrame, rho: float = 1.05, beyond: str = "clip", scale: float | None = None) -> None:
        super().__init__(mf)
        self.rho = _check_rho(rho)
        if beyond not in _BEYOND:
            raise ValueError(f"beyond must be 'clip' (the thesis's rule) or 'raise', got {beyond!r}")
        self.beyond = beyond
        if scale is None:
            s = self.training_scores()
            scale = float(np.max(np.abs(s)))
            if not scale > 0.0:
                raise ValueError(
                    f"normcal divides by max |s|, but score {self.score!r} is 0 in all {s.size} "
                    "calibration rows: check the score column"
                )
        self.scale = float(scale)

    def _theta(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.abs(s) > self.scale
        if out.any():
            if self.beyond == "raise":
                raise ValueError(
                    f"{int(out.sum())} of {s.size} scores of {self.score!r} lie beyond the calibration "
                    f"range [-{self.scale:.6g}, {self.scale:.6g}] (first {float(s[out][0]):.6g}); refit "
                    "with beyond='clip' to clip them to the range (the thesis's rule)"
                )
            s = np.clip(s, -self.scale, self.scale)
        return normalise_scores(s, self.scale, self.rho)

    def tidy(self) -> pd.DataFrame:
        """One row per parameter: ``rho`` (smoothing factor) and ``scale`` (``M = max |s|``)."""
        return pd.DataFrame({"term": ["rho", "scale"], "estimate": [self.rho, self.scale]})

    def glance(self) -> pd.DataFrame:
        """One row: method, nobs, n_pos, n_neg, rho, scale, loglik (Bernoulli, calibration
        rows), brier, mean_ignorance (0)."""
        return self._glance_row(rho=self.rho, scale=self.scale)

    def summary(self) -> Summary:
        """Summary: formula, the map and its parameters, fit statistics on the calibration rows."""
        s = self._point_summary(
            "Simple normalisation (normcal)",
            f"P = (s + rho M) / (2 rho M), rho = {format_number(self.rho, 6)}, "
            f"M = max|s| = {format_number(self.scale, 6)} (Gebel 2009, eq. 4.1)",
        )
        s.add_info("Beyond the range", "clipped to +-M" if self.beyond == "clip" else "an error")
        g = self.glance()
        s.add_table("Fit on the calibration rows", g[["loglik", "brier"]], show_index=False)
        return s

    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved normcal holds beyond its model frame (evstat.io.state)."""

        rho: float = saved(schema.Float(min=1.0))
        beyond: str = saved(schema.Str(choices=list(_BEYOND)))
        scale: float = saved(schema.Float(min=1e-300))

    def _verify_loaded(self, source: str) -> None:
        """``scale`` must be ``max |s|`` of the saved calibration scores (recomputed exactly);
        ``rho`` and ``beyond`` are the user's settings and cannot be checked."""
        super()._verify_loaded(source)
        derived = float(np.max(np.abs(self.training_scores())))
        if self.scale != derived:
            raise not_fitted(self, source, "scale", f"the file says {self.scale!r}, max |s| of the saved scores is {derived!r}")


def normcal(
    formula: str,
    data: pd.DataFrame,
    rho: float = 1.05,
    beyond: str = "clip",
    positive: Any = None,
    missing: str = "raise",
) -> NormalisedCalibration:
    """Simple normalisation of one unnormalised score (Gebel 2009, eq. 4.1).

    ``P(positive | s) = (s + rho M) / (2 rho M)`` with ``M = max |s|`` over the calibration
    rows. The labels are not used (only to know the classes): this is the pre-calibration of
    assignment values and Dirichlet calibration, and the baseline "norm" of the thesis's tables.
    Its belief is a point mass (Bel = Pl = theta).

    Parameters
    ----------
    formula : str
        One score, e.g. ``"y ~ svm"`` (scores centred on the decision boundary 0).
    data : pandas.DataFrame
        Calibration data.
    rho : float
        Smoothing factor >= 1 (1.05 as in the thesis).
    beyond : {"clip", "raise"}
        Test scores with ``|s| > M``: clipped to +-M (default, the thesis's rule) or an error.
    positive, missing
        As :func:`evstat.evlogit`.

    Returns
    -------
    NormalisedCalibration

    Examples
    --------
    >>> import pandas as pd
    >>> import evstat as ev
    >>> cal = pd.DataFrame({"s": [-2.0, -0.5, 0.5, 1.0], "y": [0, 0, 1, 1]})
    >>> fit = ev.normcal("y ~ s", cal)
    >>> fit.predict(pd.DataFrame({"s": [-2.0, 0.0, 1.0, 5.0]})).round(4).tolist()
    [0.0238, 0.5, 0.7381, 0.9762]
    """
    _check_rho(rho)
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return NormalisedCalibration(mf, rho=rho, beyond=beyond)


register(NormalisedCalibration, example=lambda y, d: normcal(f"{y} ~ s1", d), fitter=normcal)
