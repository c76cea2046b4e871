"""ECOC calibration: a binary calibrator per task of a code matrix, coupled into K classes.

The two-step multivariate calibration of Gebel (2009, Fig. 5.1 and 5.3): for every task b of a
code matrix Psi (:mod:`evstat.multiclass.codes`) the rows of the classes with psi_kb != 0 are
kept, the classes with psi_kb = +1 are coded 1 and those with -1 coded 0, and a binary
calibrator of evstat (``evlogit`` - logistic/Platt calibration, ``isotonic``, ``evbinning``,
``betacal``, and the calibrators of Gebel's chapter 4 where installed: ``normcal``, ``plr``,
``bayescal``, ``avcal``) is fitted to ``y ~ s`` on that task's score column. Its probabilistic
prediction (``predict(type="prob")``, theta_hat) is r_b; the r_b are coupled into class
probabilities by :func:`evstat.multiclass.couple` with the task sizes n_b as weights (Zadrozny
2001). The task models are saved inside the model (nested JSON, each validated by its own
schema).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat import calibration
from evstat.formula.arrays import ArrayData
from evstat.io import schema
from evstat.io.state import floats, saved
from evstat.multiclass.base import MulticlassResults, MulticlassState, score_design
from evstat.multiclass.coupling import COUPLINGS, couple
from evstat.results import Capabilities, Results, not_fitted, register, saved_models

__all__ = ["CALIBRATORS", "EcocCalibration", "ecoc"]

#: binary calibrators known by name (those present in :mod:`evstat.calibration`)
CALIBRATORS = ("evlogit", "isotonic", "evbinning", "betacal", "normcal", "plr", "bayescal", "avcal")


def _resolve(calibrator: Any, options: Mapping[str, Any]) -> tuple[str, Callable[[str, pd.DataFrame], Any]]:
    if isinstance(calibrator, str):
        fn = getattr(calibration, calibrator, None) if calibrator in CALIBRATORS else None
        if fn is None:
            have = [c for c in CALIBRATORS if getattr(calibration, c, None) is not None]
            raise ValueError(f"calibrator must be one of {have} or a function (formula, data) -> fitted binary model, got {calibrator!r}")
        return calibrator, lambda f, d: fn(f, d, **options)
    if callable(calibrator):
        if options:
            raise ValueError("calibrator_args go with a calibrator given by name; bind them in your function instead")
        return getattr(calibrator, "__name__", "custom"), calibrator
    raise TypeError(f"calibrator must be a name {CALIBRATORS} or a function (formula, data) -> fitted model, got {type(calibrator).__name__}")


_PER_TASK = schema.Ref("code.tasks", "the code has {n} tasks")


class EcocCalibration(MulticlassResults):
    """Fitted ECOC calibration (binary calibrators coupled); created by :func:`ecoc`."""

    method: ClassVar[str] = "ecoc"
    capabilities: ClassVar[Capabilities] = replace(MulticlassResults.capabilities, scores="ovr",
                                                   # one score per class or per task of a code
                                                   accepts=("probabilities", "log-probabilities", "class-scores", "scores"))
    title: ClassVar[str] = "ECOC calibration (binary calibrators, coupled)"

    calibrators: list[Results]
    weights: NDArray[np.float64]
    coupling: str
    calibrator_name: str

    def task_probs(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """r (N, B): every task model's probability of its positive group."""
        S = np.asarray(X, dtype=np.float64)[:, self.order]
        r = np.empty_like(S)
        for b, sub in enumerate(self.calibrators):
            r[:, b] = np.asarray(sub.predict(S[:, [b]], type="prob"), dtype=np.float64)  # an array: no formula
        return r

    def _probs_block(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return couple(self.task_probs(X), self.code, weights=self.weights, method=self.coupling)

    def _param_frame(self) -> pd.DataFrame:
        frames = []
        for t, col, sub in zip(self.tasks, self.task_columns, self.calibrators):
            tid = sub.tidy()
            terms = tid["term"].astype(str).tolist() if "term" in tid else [str(i) for i in range(len(tid))]
            est = tid["estimate"].to_numpy(dtype=float) if "estimate" in tid else np.full(len(tid), np.nan)
            se = tid["std_error"].to_numpy(dtype=float) if "std_error" in tid else np.full(len(tid), np.nan)
            frames.append(pd.DataFrame({"term": [f"{t}: {x}" for x in terms], "task": t, "column": col,
                                        "model": sub.method, "estimate": est, "std_error": se}))
        return pd.concat(frames, ignore_index=True)

    def _summary_notes(self) -> list[str]:
        return [f"Task models: {self.calibrator_name} on 'y ~ s' per task (s the task's column); coupling "
                f"{self.coupling!r} weighted by the task sizes n_b = {self.weights.astype(int).tolist()}."]

    def _verify_loaded(self, source: str) -> None:
        """On load: every task's weight is its number of training rows (the rows whose class the
        code puts on either side), every task model was fitted on exactly that task's rows (its
        saved scores are the task's score column of those rows, its labels their side), and
        every task model passes its own family's load check."""
        super()._verify_loaded(source)
        psi = self.code.to_numpy(dtype=np.int64)
        y = np.asarray(self.training_codes(), dtype=np.intp)
        X = np.asarray(self.class_frame.X, dtype=np.float64)
        for b, sub in enumerate(self.calibrators):
            side = psi[y, b]
            rows = side != 0
            if self.weights[b] != rows.sum():
                raise not_fitted(self, source, f"weights[{b}]", f"the file says {self.weights[b]!r}, task {self.tasks[b]!r} has {int(rows.sum())} training rows")
            data = sub.training_data()
            scores = np.asarray(data.iloc[:, 0] if data.shape[1] == 2 else data.drop(columns=data.columns[-1]).iloc[:, 0], dtype=np.float64)
            same = (scores.shape == X[rows, self.order[b]].shape and np.array_equal(scores, X[rows, self.order[b]])
                    and np.array_equal(np.asarray(sub.training_codes()), (side[rows] == 1).astype(np.intp)))
            if not same:
                raise not_fitted(self, source, f"calibrators[{b}]", f"task {self.tasks[b]!r}'s model was not fitted on the task's rows")
            sub._verify_loaded(f"{source} (calibrators[{b}])")

    # ---- persistence
    @dataclass(frozen=True, kw_only=True)
    class State(MulticlassState):
        """What a saved ecoc holds beyond its class frame (evstat.io.state): the settings, the
        task weights and every task's model, saved whole."""

        calibrator: str = saved(schema.Str(max_len=200), attribute="calibrator_name")
        coupling: str = saved(schema.Str(choices=list(COUPLINGS)))
        weights: list[float] = saved(schema.List(schema.Float(min=0), length=_PER_TASK, what="weights"), decode=floats)
        calibrators: list[Any] = saved_models("task models", length=_PER_TASK)


def ecoc(
    formula: str,
    data: pd.DataFrame,
    code: Any = None,
    calibrator: Any = "evlogit",
    coupling: str = "zadrozny",
    missing: str = "raise",
    seed: Any = None,
    calibrator_args: Mapping[str, Any] | None = None,
) -> EcocCalibration:
    """Calibrate every binary task of a code matrix and couple the results into K classes.

    Parameters
    ----------
    formula : str
        ``"y ~ s_a + s_b + s_c"``: one score column per task (see :mod:`evstat.multiclass.base`
        for how columns meet tasks).
    data : pandas.DataFrame
        Calibration data with the class column.
    code : {"ovr", "pairs", "sparse", "complete"} or pandas.DataFrame, optional
        Default one-vs-rest with columns named like the classes.
    calibrator : str or callable
        A binary calibrator of :mod:`evstat.calibration` by name (``"evlogit"``: logistic
        calibration; ``"isotonic"``, ...) or a function ``(formula, data) -> fitted binary
        model`` (called with ``"y ~ s"``; ``y`` is 1 for the positive group).
    coupling : {"zadrozny", "hastie-tibshirani", "wu-lin-weng", "normalise"}
        See :func:`evstat.multiclass.couple`.
    missing : {"raise", "drop"}
    seed : int, optional
        Seed of a ``"sparse"`` code.
    calibrator_args : mapping, optional
        Keyword arguments for a calibrator given by name.

    Returns
    -------
    EcocCalibration

    Examples
    --------
    >>> import numpy as np, pandas as pd, evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 150)
    >>> d = pd.DataFrame({f"s_{c}": np.where(y == c, 1.0, -1.0) + rng.normal(0, 0.8, 150) for c in range(3)})
    >>> d["y"] = y
    >>> fit = ev.ecoc("y ~ s_0 + s_1 + s_2", d, calibrator="evlogit", coupling="zadrozny")
    >>> fit.predict(d.head(2)).shape
    (2, 3)
    """
    if coupling not in COUPLINGS:
        raise ValueError(f"coupling must be one of {COUPLINGS}, got {coupling!r}")
    name, fn = _resolve(calibrator, dict(calibrator_args or {}))
    cf, codef, order = score_design(formula, data, code=code, missing=missing, seed=seed, who="ecoc")
    psi = codef.to_numpy(dtype=np.int64)
    y = np.asarray(cf.codes, dtype=np.intp)
    X = np.asarray(cf.X)
    subs: list[Results] = []
    weights = np.empty(psi.shape[1])
    for b, task in enumerate(codef.columns):
        side = psi[y, b]
        rows = side != 0
        labels, scores = (side[rows] == 1).astype(np.int64), X[rows, order[b]]
        if isinstance(calibrator, str):  # a named calibrator: the frame of "y ~ s" from arrays, no formula parsed
            task_data: Any = ArrayData(scores[:, None], labels, names=["s"])
        else:  # a function (formula, data) -> fitted model gets a DataFrame, as documented
            task_data = pd.DataFrame({"y": labels, "s": scores})
        try:
            sub = fn("y ~ s", task_data)
        except ValueError as err:
            raise ValueError(f"the {name} calibrator of task {task!r} (column {cf.terms[order[b]]!r}, {int(rows.sum())} rows) failed: {err}") from None
        if not isinstance(sub, Results) or not sub.is_binary:
            raise TypeError(f"calibrator {name!r} must return a fitted two-class evstat model, got {type(sub).__name__}")
        subs.append(sub)
        weights[b] = rows.sum()
    obj = EcocCalibration.__new__(EcocCalibration)
    MulticlassResults.__init__(obj, cf, codef, order)
    obj.calibrators, obj.weights, obj.coupling, obj.calibrator_name = subs, weights, coupling, name
    couple(np.full((1, psi.shape[1]), 0.5), codef, weights=weights, method=coupling)  # the coupling fits the code
    return obj


def _contract(y: str, d: pd.DataFrame) -> EcocCalibration:
    from evstat.multiclass.scaling import contract_code

    return ecoc(f"{y} ~ s1 + s2", d, code=contract_code(d[y]), calibrator="evlogit")


register(EcocCalibration, example=_contract, n_classes=(2, 3), fitter=ecoc)
