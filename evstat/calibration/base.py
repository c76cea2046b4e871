"""The binary calibrators' part of the results protocol (:class:`evstat.results.Results`, K = 2).

A calibrator is fitted from a formula and returns a :class:`CalibrationResults` subclass, which
implements ``_belief_arrays(X)`` (theta_hat, Bel({1}), Pl({1}) for design rows) and the
model-specific parts (``summary``, ``tidy``, ``glance``, its saved ``State``). This base supplies
the array hooks of ``predict(type="prob" | "belief" | "mass")`` and ``decide`` (the closed-form
fast path of the one decision engine, :func:`evstat.belief.binary_decisions`, or the general
engine with a loss matrix) and the training-frame facts; the protocol (:mod:`evstat.results`)
owns ``predict``, ``decide`` (validation, Dask dispatch), ``augment``, ``save``, ``plot`` and
``report``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat._config import get_config
from evstat.exceptions import EvstatWarning
from evstat.belief import MassArray, binary_decisions
from evstat.belief import decide as belief_decide
from evstat.formula import ModelFrame, schema
from evstat.results import FORMAT, FORMAT_VERSION, REJECT, STRATEGIES, Results
from evstat.summary import Summary

__all__ = [
    "CALIBRATION_SAMPLE_ROWS",
    "CALIBRATION_SAMPLE_SEED",
    "CalibrationResults",
    "EmptyCellWarning",
    "FORMAT",
    "FORMAT_VERSION",
    "REJECT",
    "STRATEGIES",
    "binary_masses",
]

_TYPES = ("prob", "belief", "mass")

#: Summaries, ``glance`` and reports describe the calibration rows by their own predictive
#: belief. For models whose prediction cost grows with the calibration size n (``cost_per_cell``
#: not None: evlogit, betacal, disjoint over them), that is n test rows x n calibration rows; above
#: this many calibration rows they use a seeded random subsample of this many rows instead
#: (said so in the output). ``predict(None)`` and ``augment()`` still compute every row. The
#: threshold is the setting ``calibration_sample_rows`` (``evstat.set_config``); this constant
#: is its default.
CALIBRATION_SAMPLE_ROWS = 2000
#: seed of that subsample (numpy ``default_rng``), so that summaries are reproducible
CALIBRATION_SAMPLE_SEED = 20261126


class EmptyCellWarning(EvstatWarning):
    """Test rows fall where the calibration data say nothing (an empty bin or cell): their
    probability is undefined (NaN) while their belief is vacuous (Bel = 0, Pl = 1)."""


#: Why each score-axis calibrator cannot use a factor term (for the error message).
FACTOR_WHY = {
    "evbinning": "it cuts every score axis into intervals, and a factor's dummy columns are not "
                 "score axes",
    "disjoint": "it cuts every score axis into intervals, and a factor's dummy columns are not "
                "score axes",
    "isotonic": "it fits a function that increases along one score axis, and a factor has no order",
    "betacal": "it maps a score in (0, 1) through log(s) and log(1 - s), which a factor does not have",
}


def score_axes(mf: ModelFrame, who: str) -> list[int]:
    """Positions of the non-intercept design columns of ``mf``: the score axes of a calibrator
    that works on them (binning, isotonic, beta, disjoint, the peers). An error if there are
    none, or if a term is a factor (the message says why ``who`` cannot use it).

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.formula import model_frame
    >>> score_axes(model_frame("y ~ s + t", pd.DataFrame({"y": [0, 1, 0, 1], "s": [1., 2, 3, 5], "t": [2., 1, 0, 0]})), "isotonic")
    [1, 2]
    """
    why = FACTOR_WHY.get(who, "it works on score axes, and a factor has no order or distance")
    mf.require_numeric(who, why)
    cols = [j for j, t in enumerate(mf.terms) if t != "Intercept"]
    if not cols:
        raise ValueError(
            f"{who} needs at least one score column, but formula {mf.formula!r} has none "
            "(only an intercept): write the score columns right of '~', e.g. 'y ~ svm1'"
        )
    return cols


class ModelFrameFacts:
    """The facts of a two-class model read from its ``model_frame`` (formula, classes, positive
    level, nobs, response, score columns); shared by the calibrators and the conformal peer."""

    model_frame: ModelFrame

    @property
    def formula(self) -> str:
        """The formula the model was fitted with."""
        return self.model_frame.formula

    @property
    def classes(self) -> tuple:
        """``(negative, positive)`` response levels."""
        return self.model_frame.classes

    @property
    def positive(self) -> Any:
        """The response level coded 1 (theta = P(y = positive | s))."""
        return self.model_frame.positive

    @property
    def nobs(self) -> int:
        """Number of calibration rows."""
        return self.model_frame.n

    @property
    def response(self) -> str:
        """The response column's name."""
        return self.model_frame.response

    @property
    def score_columns(self) -> list[str]:
        """The data columns the formula's right-hand side uses."""
        return list(self.model_frame.score_columns)


class CalibrationResults(ModelFrameFacts, Results):
    """Base class of fitted binary calibrators (not instantiated directly).

    Attributes
    ----------
    model_frame : evstat.formula.ModelFrame
        The calibration data as the formula saw them.
    method : str
        The calibrator's name (``"evlogit"``, ``"evbinning"``, ...).
    """

    method: ClassVar[str] = "calibrator"
    #: warnings about theta alone, silenced where theta is not used (masses, evidential decisions)
    _theta_warnings: ClassVar[tuple[type[Warning], ...]] = ()
    #: what to do about rows whose probability is undefined (NaN), for error messages
    _nan_theta_fix: ClassVar[str] = "use an evidential strategy"

    def __init__(self, model_frame: ModelFrame) -> None:
        self.model_frame = model_frame

    @property
    def n_dropped(self) -> int:
        """Calibration rows dropped for missing values."""
        return int(self.model_frame.n_dropped)

    def training_codes(self) -> NDArray[np.intp]:
        """0 (negative) or 1 (positive) per calibration row."""
        return np.asarray(self.model_frame.y, dtype=np.intp)

    def training_data(self) -> pd.DataFrame:
        """The calibration rows' score columns (as the formula saw them) and response labels."""
        mf = self.model_frame
        base = pd.DataFrame({c: np.asarray(mf.column(c)) for c in mf.score_columns}, index=mf.index)
        base[mf.response] = np.where(mf.y == 1, mf.positive, mf.classes[0])
        return base

    def __repr__(self) -> str:
        mf = self.model_frame
        return (
            f"<{type(self).__name__} ({self.method}): {mf.formula!r}, n = {mf.n} "
            f"({mf.n_pos} positive = {mf.positive!r}, {mf.n_neg} negative)>"
        )

    # ---------------------------------------------------------------- to implement
    def _belief_arrays(self, X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        """theta_hat, Bel({1}), Pl({1}) for design rows ``X``."""
        raise NotImplementedError

    def _prob_array(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """theta_hat for design rows ``X`` (override when cheaper than the belief)."""
        return self._belief_arrays(X)[0]

    # ---------------------------------------------------------------- prediction
    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        if newdata is None:
            return np.asarray(self.model_frame.X), self.model_frame.index
        self._check_newdata(newdata)
        return self.model_frame.new_X(newdata, missing=missing)

    def belief_frame(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """DataFrame [theta, bel, pl] (same as ``predict(newdata, type="belief")``)."""
        X, index = self._design(newdata, missing)
        th, bel, pl = self._belief_arrays(X)
        return pd.DataFrame({"theta": th, "bel": bel, "pl": pl}, index=index)

    def _predict(self, X: NDArray[np.float64], index: pd.Index, type: str, **options: Any) -> Any:
        """``"prob"``: Series ``theta`` of the probabilistic calibration theta_hat(s) =
        P(y = positive | s). ``"belief"``: DataFrame [theta, bel, pl] with Bel({1}) and Pl({1}).
        ``"mass"``: a :class:`evstat.belief.MassArray` on the frame (negative, positive) with
        m({positive}) = Bel, m({negative}) = 1 - Pl and m(frame) = Pl - Bel (the ignorance)."""
        if options:
            raise TypeError(f"{self.method}.predict takes no option(s) {sorted(options)}")
        if type == "prob":
            return pd.Series(self._prob_array(X), index=index, name="theta")
        if type == "belief":
            th, bel, pl = self._belief_arrays(X)
            return pd.DataFrame({"theta": th, "bel": bel, "pl": pl}, index=index)
        with warnings.catch_warnings():  # masses do not use theta
            for category in self._theta_warnings:
                warnings.simplefilter("ignore", category)
            _, bel, pl = self._belief_arrays(X)
        return self._mass(bel, pl, index)

    def _mass(self, bel: NDArray, pl: NDArray, index: pd.Index) -> MassArray:
        return binary_masses(bel, pl, self.classes, index)

    def _decide(
        self, X: NDArray[np.float64], strategy: str, loss: pd.DataFrame | None, rho: float, reject_cost: float | None
    ) -> NDArray:
        """Minary et al. (2019), eqs. 8-11 and section 5.4: with 0-1 costs the closed form
        :func:`evstat.belief.binary_decisions` (pessimistic: R*(positive) = 1 - Bel({1}),
        R*(negative) = Pl({1}); optimistic: R_*(positive) = 1 - Pl({1}), R_*(negative) =
        Bel({1}); probabilistic: 1 - theta_hat and theta_hat); with a loss matrix the general
        engine :func:`evstat.belief.decide` on the binary masses (on theta_hat's Bayesian mass
        for ``"probabilistic"``). Rows without a probability (NaN theta_hat) are an error for the
        probabilistic strategy."""
        with warnings.catch_warnings():
            # theta's warnings: the evidential strategies do not use it, and the probabilistic
            # one raises below where it is undefined
            for category in self._theta_warnings:
                warnings.simplefilter("ignore", category)
            if strategy == "probabilistic":
                th = self._prob_array(X)
                bel, pl = th, th
            else:
                _, bel, pl = self._belief_arrays(X)
        if strategy == "probabilistic" and np.isnan(bel).any():
            bad = np.flatnonzero(np.isnan(bel))
            raise ValueError(
                f"the probabilistic strategy needs a probability, but {bad.size} of {bel.size} "
                f"rows (positions {bad[:5].tolist()}) have none: {self._nan_theta_fix}"
            )
        neg, pos = self.classes
        if loss is None:
            if strategy == "probabilistic":
                choice, _, rejected = binary_decisions(None, None, strategy, reject_cost, p=bel)
            else:
                choice, _, rejected = binary_decisions(bel, pl, strategy, reject_cost, rho=rho)
            labels = np.array([neg, pos], dtype=object)[choice]
            labels[rejected] = REJECT
            return labels
        masses = MassArray.from_bel_pl(bel, pl, labels=self.classes)
        return np.asarray(belief_decide(masses, loss, strategy=strategy, rho=rho).choice, dtype=object)

    #: seconds per (test row x calibration row) of ``predict(type="belief")``: the cost model
    #: ``seconds ~ rows x n x cost_per_cell`` (docs/guide/large-data.md); None where the
    #: cost per test row does not grow with the calibration size
    cost_per_cell: ClassVar[float | None] = None

    def predicted_seconds(self, rows: int) -> float:
        """Predicted time of ``predict(type="belief")`` for ``rows`` test rows (0 when the
        model's cost does not grow with the calibration size)."""
        c = self.cost_per_cell
        return 0.0 if c is None else float(rows) * self.model_frame.n * c

    def calibration_sample(self) -> NDArray[np.intp] | None:
        """Sorted positions of the calibration rows that summaries, ``glance`` and reports use,
        or None for all of them.

        None unless the model's prediction cost grows with the calibration size and there are
        more than ``get_config()["calibration_sample_rows"]`` rows (default
        ``CALIBRATION_SAMPLE_ROWS``); then a uniform random subsample of that
        many rows without replacement, drawn with ``numpy.random.default_rng(
        CALIBRATION_SAMPLE_SEED)`` (the same rows on every call and every machine).
        """
        n = self.model_frame.n
        rows = get_config()["calibration_sample_rows"]
        if self.cost_per_cell is None or n <= rows:
            return None
        rng = np.random.default_rng(CALIBRATION_SAMPLE_SEED)
        return np.sort(rng.choice(n, size=rows, replace=False))

    def calibration_sample_note(self) -> str | None:
        """A sentence saying that calibration-row statistics use a subsample, or None."""
        pos = self.calibration_sample()
        if pos is None:
            return None
        return (
            f"computed on a seeded random subsample of {pos.size:,} of the {self.model_frame.n:,} "
            f"calibration rows (seed {CALIBRATION_SAMPLE_SEED}; predicting every row would cost "
            f"about {_duration(self.predicted_seconds(self.model_frame.n))}, growing as n^2; "
            "evstat.set_config(calibration_sample_rows=...) sets the threshold)"
        )

    def calibration_belief(self) -> pd.DataFrame:
        """[theta, bel, pl] on the calibration rows (computed once, then cached), indexed like
        them; on the rows of :meth:`calibration_sample` when that is not None."""
        cached = getattr(self, "_cal_belief", None)
        if cached is None:
            pos = self.calibration_sample()
            if pos is None:
                cached = self.belief_frame(None)
            else:
                X = np.asarray(self.model_frame.X)[pos]
                th, bel, pl = self._belief_arrays(X)
                cached = pd.DataFrame({"theta": th, "bel": bel, "pl": pl}, index=self.model_frame.index[pos])
            self._cal_belief = cached
        return cached

    def _summary_head(self, title: str) -> Summary:
        """A Summary titled ``title`` with the formula, response and observation lines."""
        mf = self.model_frame
        s = Summary(title)
        s.add_info("Formula", mf.formula)
        s.add_info("Response", f"{mf.response} (positive = {mf.positive!r}, negative = {mf.classes[0]!r})")
        s.add_info(
            "Observations",
            f"{mf.n} (N+ = {mf.n_pos}, N- = {mf.n_neg})"
            + (f", {mf.n_dropped} dropped for missing values" if mf.n_dropped else ""),
        )
        return s

    def _summary_ignorance(self, s: Summary) -> None:
        """Add the table of the ignorance Pl - Bel on the calibration rows."""
        cb = self.calibration_belief()
        ign = (cb["pl"] - cb["bel"]).to_numpy()
        note = self.calibration_sample_note()
        s.add_table(
            "Ignorance m({0,1}) = Pl - Bel on the calibration rows",
            pd.DataFrame({"mean": [ign.mean()], "min": [ign.min()], "median": [np.median(ign)], "max": [ign.max()]}),
            show_index=False,
            notes=[note[0].upper() + note[1:] + "."] if note else [],
        )

    # ---------------------------------------------------------------- broom verbs
    def _augment_columns(self, newdata: pd.DataFrame | None, missing: str) -> pd.DataFrame:
        """``.theta``, ``.bel``, ``.pl``, ``.ignorance`` (= Pl - Bel) and ``.betp``."""
        b = self.belief_frame(newdata, missing)
        return pd.DataFrame(
            {
                ".theta": b["theta"].to_numpy(),
                ".bel": b["bel"].to_numpy(),
                ".pl": b["pl"].to_numpy(),
                ".ignorance": (b["pl"] - b["bel"]).to_numpy(),
                ".betp": ((b["bel"] + b["pl"]) / 2.0).to_numpy(),
            },
            index=b.index,
        )

    # ---------------------------------------------------------------- persistence
    _frame_key: ClassVar[str] = "model_frame"

    @classmethod
    def _frame_schema(cls) -> schema.Spec:
        return schema.MODEL_FRAME

    def _frame_dict(self) -> dict[str, Any]:
        return self.model_frame.to_dict()

    @classmethod
    def _frame_from_dict(cls, d: Mapping[str, Any]) -> ModelFrame:
        return ModelFrame.from_dict(d["model_frame"])


def binary_masses(bel: NDArray, pl: NDArray, classes: tuple, index: pd.Index) -> MassArray:
    """Mass functions on the frame ``classes = (negative, positive)`` from Bel({positive}) and
    Pl({positive}): m({positive}) = bel, m({negative}) = 1 - pl, m(frame) = pl - bel."""
    return MassArray.from_bel_pl(bel, pl, index=index, labels=classes)


def _duration(seconds: float) -> str:
    """``"40 s"``, ``"12 min"``, ``"19 h"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"
