"""The results protocol shared by every calibrator.

A calibrator is fitted from a formula and returns a :class:`CalibrationResults` subclass, which
implements ``_belief_arrays(X)`` (theta_hat, Bel({1}), Pl({1}) for design rows) and the
model-specific parts (``summary``, ``tidy``, ``glance``, ``_to_dict``). The protocol supplies
``predict(type="prob" | "belief" | "mass")``, ``decide``, ``augment``, ``save`` and the
row-order and index conventions: results keep the index and row order of ``newdata``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.belief import MassArray
from evstat.belief import decide as belief_decide
from evstat.calibration.summary import Summary
from evstat.formula import ModelFrame, schema
from evstat.lazy import _NOT_DASK, dispatch

__all__ = [
    "CALIBRATION_SAMPLE_ROWS",
    "CALIBRATION_SAMPLE_SEED",
    "CalibrationResults",
    "EmptyCellWarning",
    "FORMAT",
    "FORMAT_VERSION",
    "STRATEGIES",
    "REJECT",
]

FORMAT = "evstat"
#: Version 2 (evstat 0.x, issue 9) added the ``checksum`` entry and full schema validation.
FORMAT_VERSION = 2
REJECT = "reject"
#: decision strategies and the rule of :func:`evstat.belief.decide` each uses
STRATEGIES = {
    "pessimistic": "upper",
    "optimistic": "lower",
    "pignistic": "pignistic",
    "probabilistic": "upper",
}
_TYPES = ("prob", "belief", "mass")

#: Summaries, ``glance`` and reports describe the calibration rows by their own predictive
#: belief. For models whose prediction cost grows with the calibration size n (``cost_per_cell``
#: not None: evlogit, betacal, disjoint over them), that is n test rows x n calibration rows; above
#: this many calibration rows they use a seeded random subsample of this many rows instead
#: (said so in the output). ``predict(None)`` and ``augment()`` still compute every row.
CALIBRATION_SAMPLE_ROWS = 2000
#: seed of that subsample (numpy ``default_rng``), so that summaries are reproducible
CALIBRATION_SAMPLE_SEED = 20261126


class EmptyCellWarning(UserWarning):
    """Test rows fall where the calibration data say nothing (an empty bin or cell): their
    probability is undefined (NaN) while their belief is vacuous (Bel = 0, Pl = 1)."""


class CalibrationResults:
    """Base class of fitted calibrators (not instantiated directly).

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

    # ---------------------------------------------------------------- basic facts
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

    def _to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    # ---------------------------------------------------------------- prediction
    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        if newdata is None:
            return np.asarray(self.model_frame.X), self.model_frame.index
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(
                f"newdata must be a pandas DataFrame with the score columns "
                f"{self.model_frame.score_columns}, got {type(newdata).__name__}"
            )
        return self.model_frame.new_X(newdata, missing=missing)

    def belief_frame(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """DataFrame [theta, bel, pl] (same as ``predict(newdata, type="belief")``)."""
        X, index = self._design(newdata, missing)
        th, bel, pl = self._belief_arrays(X)
        return pd.DataFrame({"theta": th, "bel": bel, "pl": pl}, index=index)

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "prob", missing: str = "raise") -> Any:
        """Predict for new score rows (the calibration rows when ``newdata`` is None).

        Parameters
        ----------
        newdata : pandas.DataFrame, optional
            Must contain the score columns of the formula; other columns are ignored.
        type : {"prob", "belief", "mass"}
            ``"prob"``: Series ``theta`` of the probabilistic calibration theta_hat(s) =
            P(y = positive | s). ``"belief"``: DataFrame [theta, bel, pl] with Bel({1}) and
            Pl({1}). ``"mass"``: a :class:`evstat.belief.MassArray` on the frame
            (negative, positive) with m({positive}) = Bel, m({negative}) = 1 - Pl and
            m(frame) = Pl - Bel (the ignorance).
        missing : {"raise", "drop"}
            Rows of ``newdata`` with missing scores: an error, or dropped from the result.

        Returns
        -------
        pandas.Series, pandas.DataFrame or evstat.belief.MassArray
            Indexed like ``newdata`` in its row order.
        """
        lazy = dispatch(self, "predict", newdata, type=type, missing=missing)
        if lazy is not _NOT_DASK:  # a dask DataFrame: partition-wise, lazy (evstat.lazy)
            return lazy
        if type not in _TYPES:
            raise ValueError(f"type must be one of {_TYPES}, got {type!r}")
        X, index = self._design(newdata, missing)
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

    def decide(
        self,
        newdata: pd.DataFrame | None = None,
        strategy: str = "pessimistic",
        reject_cost: float | None = None,
        missing: str = "raise",
    ) -> pd.Series:
        """Decide the class of each row with 0-1 costs and an optional reject option.

        Minary et al. (2019), eqs. 8-11 and section 5.4, through :func:`evstat.belief.decide`:
        the ``"pessimistic"`` strategy minimises the upper expected cost
        (R*(positive) = 1 - Bel({1}), R*(negative) = Pl({1}) = 1 - Bel({0})), the
        ``"optimistic"`` one the lower expected cost (R_*(positive) = 1 - Pl({1}),
        R_*(negative) = Bel({1})), ``"pignistic"`` the expected cost under BetP, and
        ``"probabilistic"`` the expected cost under theta_hat (1 - theta_hat for positive).
        With ``reject_cost`` in [0, 1] a row is rejected when that cost is strictly lower than
        the expected cost of the chosen class; ties between the two classes go to the negative
        class, ties between a class and reject go to the class.

        Returns
        -------
        pandas.Series
            Categorical with categories ``(negative, positive[, "reject"])``, indexed like
            ``newdata``.
        """
        lazy = dispatch(self, "decide", newdata, strategy=strategy, reject_cost=reject_cost, missing=missing)
        if lazy is not _NOT_DASK:  # a dask DataFrame: partition-wise, lazy (evstat.lazy)
            return lazy
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {tuple(STRATEGIES)}, got {strategy!r}")
        if reject_cost is not None:
            rc = float(reject_cost)
            if not 0.0 <= rc <= 1.0 or np.isnan(rc):
                raise ValueError(
                    f"reject_cost must lie in [0, 1] (0-1 costs are used for the classes), got {reject_cost!r}"
                )
        X, index = self._design(newdata, missing)
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
            labels = ", ".join(repr(v) for v in list(index[bad[:5]]))
            raise ValueError(
                f"the probabilistic strategy needs a probability, but {bad.size} of {bel.size} "
                f"rows (index {labels}) have none: {self._nan_theta_fix}"
            )
        return decide_binary(
            bel, pl, self.classes, STRATEGIES[strategy], reject_cost, index
        )

    #: seconds per (test row x calibration row) of ``predict(type="belief")``: the cost model
    #: ``seconds ~ rows x n x cost_per_cell`` (docs/large-calibration-sets.md); None where the
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
        more than ``CALIBRATION_SAMPLE_ROWS`` rows; then a uniform random subsample of that
        many rows without replacement, drawn with ``numpy.random.default_rng(
        CALIBRATION_SAMPLE_SEED)`` (the same rows on every call and every machine).
        """
        n = self.model_frame.n
        if self.cost_per_cell is None or n <= CALIBRATION_SAMPLE_ROWS:
            return None
        rng = np.random.default_rng(CALIBRATION_SAMPLE_SEED)
        return np.sort(rng.choice(n, size=CALIBRATION_SAMPLE_ROWS, replace=False))

    def calibration_sample_note(self) -> str | None:
        """A sentence saying that calibration-row statistics use a subsample, or None."""
        pos = self.calibration_sample()
        if pos is None:
            return None
        return (
            f"computed on a seeded random subsample of {pos.size:,} of the {self.model_frame.n:,} "
            f"calibration rows (seed {CALIBRATION_SAMPLE_SEED}; predicting every row would cost "
            f"about {_duration(self.predicted_seconds(self.model_frame.n))}, growing as n^2; "
            "evstat.calibration.base.CALIBRATION_SAMPLE_ROWS sets the threshold)"
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
    def augment(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """``newdata`` (or the calibration data's score columns) with added columns
        ``.theta``, ``.bel``, ``.pl``, ``.ignorance`` (= Pl - Bel) and ``.betp``."""
        if newdata is None:
            mf = self.model_frame
            base = pd.DataFrame(
                {c: np.asarray(mf._data[c]) for c in mf.score_columns}, index=mf.index
            )
            base[mf.response] = np.where(mf.y == 1, mf.positive, mf.classes[0])
            b = self.belief_frame(None, missing)
            out = base.copy()
        else:
            # positions, not labels, select the kept rows (the index may repeat labels)
            positional = newdata.reset_index(drop=True)
            b = self.belief_frame(positional, missing)
            out = newdata.iloc[b.index.to_numpy()].copy()
        out[".theta"] = b["theta"].to_numpy()
        out[".bel"] = b["bel"].to_numpy()
        out[".pl"] = b["pl"].to_numpy()
        out[".ignorance"] = (b["pl"] - b["bel"]).to_numpy()
        out[".betp"] = ((b["bel"] + b["pl"]) / 2.0).to_numpy()
        return out

    # ---------------------------------------------------------------- plots and reports
    def plot(self, kind: str = "reliability", newdata: pd.DataFrame | None = None, ax: Any = None, **kwargs: Any) -> Any:
        """Draw a figure of the fitted calibrator; returns the matplotlib Axes.

        ``kind`` is one of ``"reliability"``, ``"calibration_map"`` (one score column),
        ``"decision_regions"`` (two or more), ``"contours"`` (calibrators with a predictive
        contour, e.g. evlogit), ``"profile"`` (coefficient profiles, e.g. evlogit),
        ``"reject_curve"``, ``"ignorance"``; a kind that does not apply raises ValueError.
        ``kwargs`` go to the plotting function (see :func:`evstat.plotting.plot`).
        """
        from evstat import plotting

        return plotting.plot(self, kind=kind, newdata=newdata, ax=ax, **kwargs)

    def report(
        self,
        path: str | Path,
        newdata: pd.DataFrame | None = None,
        y: Any = None,
        title: str | None = None,
        date: Any = None,
        **kwargs: Any,
    ) -> Path:
        """Write a self-contained HTML report of this calibrator (see :func:`evstat.report.report`).

        ``newdata`` with labels (the response column, or ``y``) is used for the metrics; ``date``
        fixes the only line that changes between runs. Returns the path written.
        """
        from evstat.report import report

        return report(path, self, newdata=newdata, y=y, title=title, date=date, **kwargs)

    # ---------------------------------------------------------------- persistence
    #: key and schema of the data description every saved model of this class holds
    _frame_key: ClassVar[str] = "model_frame"

    @classmethod
    def _frame_schema(cls) -> schema.Spec:
        return schema.MODEL_FRAME

    @classmethod
    def _schema_fields(cls) -> dict[str, schema.Spec]:
        """Schema of the keys :meth:`_to_dict` writes (each subclass declares its own)."""
        raise NotImplementedError(
            f"the {cls.method} model declares no schema (_schema_fields), so evstat.load cannot "
            "validate it; every registered model must declare one"
        )

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        """Cross-field checks ``(d, root) -> message or None`` run after the keys are valid."""
        return []

    @classmethod
    def schema(cls) -> schema.Dict:
        """The schema of a saved model of this class, checked by :func:`evstat.load`.

        The common keys (``format``, ``format_version``, ``method``, the model frame and the
        optional ``checksum``) plus the class's own keys; see :mod:`evstat.formula.schema`.
        """
        return schema.Dict(
            {
                "format": schema.Str(choices=[FORMAT]),
                "format_version": schema.Int(choices=[FORMAT_VERSION]),
                "method": schema.Str(choices=[cls.method]),
                cls._frame_key: cls._frame_schema(),
                **cls._schema_fields(),
            },
            optional={"checksum": schema.Str(max_len=100)},
            checks=cls._schema_checks(),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable description (format ``"evstat"``, with a format version)."""
        d = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "method": self.method,
            "model_frame": self.model_frame.to_dict(),
        }
        d.update(self._to_dict())
        return d

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """Copies (``copy.deepcopy``) and transport to worker processes (joblib, Dask) go through
        :meth:`to_dict` and the registry's ``from_dict``, as ``save``/``load`` do: what travels is
        the JSON description, and rebuilding it runs nothing but the whitelisted formula. Files
        stay JSON (never pickle files)."""
        from evstat.calibration.registry import from_dict

        return (from_dict, (self.to_dict(),))

    def save(self, path: str | Path) -> Path:
        """Save the fitted model as JSON (never pickle); reload with :func:`evstat.load`.

        The file holds :meth:`to_dict` and a ``"checksum"`` entry, the SHA-256 of its canonical
        serialisation (:func:`evstat.formula.schema.checksum`): :func:`evstat.load` refuses a
        file whose content was modified after it was saved.
        """
        path = Path(path)
        d = self.to_dict()
        d["checksum"] = schema.checksum(d)
        path.write_text(json.dumps(d, indent=1, allow_nan=False), encoding="utf-8")
        return path


def decide_binary(
    bel: NDArray,
    pl: NDArray,
    classes: tuple,
    rule: str,
    reject_cost: float | None,
    index: pd.Index,
) -> pd.Series:
    """Decisions on the binary frame through :func:`evstat.belief.decide` with 0-1 costs."""
    neg, pos = classes
    masses = binary_masses(bel, pl, classes, index)
    actions = [neg, pos]
    loss = np.array([[0.0, 1.0], [1.0, 0.0]])
    if reject_cost is not None:
        actions.append(REJECT)
        loss = np.vstack([loss, [float(reject_cost), float(reject_cost)]])
    loss_df = pd.DataFrame(loss, index=pd.Index(actions, dtype=object), columns=pd.Index([neg, pos], dtype=object))
    res = belief_decide(masses, loss_df, rule=rule)
    chosen = np.asarray(res.choice, dtype=object)
    cat = pd.Categorical(chosen, categories=pd.Index(actions, dtype=object))
    return pd.Series(cat, index=index, name="decision")


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
