"""Evstat's nearest peers as comparators: Venn-ABERS predictors and a split-conformal classifier.

Both are taken from their packages unchanged (the optional extra ``evstat[peers]``: ``venn-abers``
and ``crepes``); this module only feeds them the calibration rows, reads their outputs and puts
them into evstat's shapes, so that :func:`evstat.compare`, the reject curves and the HTML report
can set them beside the evidential calibrators.

Venn-ABERS (Vovk and Petej 2014; Vovk, Petej and Fedorova 2015): for a test score ``s`` the
isotonic calibration is refitted twice, with the test point labelled 0 and labelled 1, giving
the multiprobability ``[p0, p1]`` (``p0 <= p1``), and the point estimate
``p = p1 / (1 - p0 + p1)`` (the log-loss minimax merge). Here ``[p0, p1]`` plays the role of
``[Bel({1}), Pl({1})]`` (mass ``p0`` on {1}, ``1 - p1`` on {0}, ``p1 - p0`` on {0, 1}) and ``p``
that of theta_hat, so every evstat verb and decision strategy applies: the pessimistic strategy
with reject cost 1/2 rejects exactly the rows whose interval straddles 1/2 (costs
``1 - p0`` and ``p1`` both exceed 1/2), and other reject costs trace the error-reject curve.

* ``method="inductive"`` with ONE score: the score is the underlying classifier's output (as in
  the Minary protocol, where the scores come from classifiers trained elsewhere), so the
  package's ``VennAbers`` calibrates on all calibration rows (only the order of the scores
  matters).
* ``method="inductive"`` with SEVERAL scores: the package's ``VennAbersCV(inductive=True)`` with
  an unpenalised logistic regression on the score columns, i.e. the probabilistic joint
  calibration (the theta_hat of :func:`evstat.evlogit`) as the underlying classifier, fitted on
  a proper-training part and Venn-ABERS-calibrated on the rest (``cal_size``, stratified,
  seeded).
* ``method="cross"`` (one or several scores): the package's ``VennAbersCV(inductive=False)``
  with ``n_splits`` stratified folds, each fold calibrating the logistic fitted on the others.
  The package gives one ``[p0_k, p1_k]`` per fold and no merged interval; evstat reports the
  fold means ``[mean_k p0_k, mean_k p1_k]`` and, as the point estimate, the package's
  Brier-loss merge ``mean_k p1_k + mean_k p0_k^2 / 2 - mean_k p1_k^2 / 2``
  (``predict_proba(loss="brier")``; Vovk, Petej and Fedorova 2015, section 4), which lies in
  the fold-mean interval (each fold's ``p1 - (p1^2 - p0^2) / 2`` lies in ``[p0, p1]``). The
  package's default log-loss merge ``GM(p1) / (GM(1 - p0) + GM(p1))`` need not lie in the
  fold means, and the envelope ``[min p0_k, max p1_k]``, which contains it, is far wider (a
  first run gave widths of 0.16 against 0.02 for the inductive interval at 1000 rows): both
  were set aside.

Split-conformal classifier (crepes' ``WrapClassifier``): an unpenalised logistic regression on
the score columns (the probabilistic joint calibration) is fitted on a proper-training part and
conformalised with the hinge non-conformity ``1 - p_hat(y)`` on the rest (``cal_size``). Its
point estimate is the learner's probability; its output is the prediction set
``{y : p-value(y) >= 1 - confidence}`` with NON-smoothed p-values
``(#{alpha_cal >= alpha} + 1) / (q + 1)`` (smoothed p-values draw a random number per test row,
so a row's set would depend on the other rows; non-smoothed ones are conservative). A set is
not an interval around the point estimate, so the conformal result is not a calibrator of the
``Results`` protocol: it is a :class:`ConformalSets` with ``predict(type="prob" | "set" |
"p_values")`` and ``decide``. Decisions go through the one decision engine
(:func:`evstat.belief.binary_decisions`) on the set read as a categorical mass function
(m(set) = 1: {1} gives Bel = Pl = 1, {0} gives Bel = Pl = 0, {0, 1} gives Bel = 0, Pl = 1): a
singleton is decided, {0, 1} is rejected for any reject cost below 1. An EMPTY set (no class
conforms, possible at low confidence) has no mass function on {0, 1}; it is read as {0, 1}
(rejected), and counted as size 0 in the set sizes.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import expit

from evstat.belief import REJECT, binary_decisions
from evstat.calibration.base import CalibrationResults, ModelFrameFacts, score_axes
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved, to_json
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary

__all__ = ["ConformalSets", "VennAbersCalibration", "split_conformal", "venn_abers"]

VA_METHODS = ("inductive", "cross")
_INSTALL = "pip install 'evstat[peers]'"


def _venn_abers_module() -> Any:
    """The ``venn_abers`` module, with numpy's error state restored (the package calls
    ``np.seterr(divide='ignore', invalid='ignore')`` when imported, which would silence
    evstat's floating-point warnings everywhere)."""
    state = np.geterr()
    try:
        from venn_abers import venn_abers as va
    except ImportError as err:  # pragma: no cover - the extra is installed in tests
        raise ImportError(f"Venn-ABERS needs the package venn-abers: {_INSTALL}") from err
    finally:
        np.seterr(**state)
    return va


@contextlib.contextmanager
def _package_numerics() -> Iterator[None]:
    """The venn-abers package divides by zero and takes nanmin of all-NaN slices on purpose
    (its isotonic hull starts from undefined slopes); silence exactly those, only inside its
    calls."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="All-NaN slice encountered", category=RuntimeWarning)
        warnings.filterwarnings("ignore", message="(invalid value|divide by zero) encountered", category=RuntimeWarning)
        yield


def _crepes() -> Any:
    try:
        import crepes
    except ImportError as err:  # pragma: no cover
        raise ImportError(f"the split-conformal classifier needs the package crepes: {_INSTALL}") from err
    return crepes


def _logistic() -> Any:
    from sklearn.linear_model import LogisticRegression

    # C = inf: no penalty, the maximum-likelihood logistic fit (scikit-learn >= 1.8 spells
    # penalty=None this way)
    return LogisticRegression(C=np.inf, max_iter=1000)


def _check_seed(seed: Any) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    return int(seed)


def _check_fraction(value: Any, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a fraction in (0, 1), got {value!r}") from None
    if not 0.0 < v < 1.0:
        raise ValueError(f"{name} must be a fraction in (0, 1), got {value!r}")
    return v


def _split_sizes(y: NDArray, cal_size: float, who: str) -> None:
    """An error naming the fix when a stratified split cannot leave both classes in both parts."""
    n = y.size
    n_cal = int(np.ceil(cal_size * n))
    counts = np.bincount(y.astype(np.int64), minlength=2)
    if counts.min() < 2 or n_cal < 2 or n - n_cal < 2:
        raise ValueError(
            f"{who} splits the {n} calibration rows ({counts[1]} positive, {counts[0]} negative) "
            f"into a proper-training part and a calibration part ({cal_size:g} of the rows); each "
            "needs both classes: give more calibration rows"
            + (", or use one score with method='inductive' (no split)" if who.startswith("Venn") else "")
        )


#: a saved regression's gradient of the mean log-likelihood (per row) that counts as zero: ten
#: times scikit-learn's stopping rule for lbfgs (``tol`` = 1e-4 on the largest gradient entry)
VA_GRADIENT_TOL = 1e-3

_NULL_OR_PROBS = schema.Nullable(schema.List(schema.Float(min=0.0, max=1.0)))


def _nested_json(parts: Any) -> Any:
    """A list of arrays (coefficients, row positions) as JSON lists; None as null."""
    return None if parts is None else [to_json(p) for p in parts]


class VennAbersCalibration(CalibrationResults):
    """A fitted Venn-ABERS predictor (returned by :func:`venn_abers`).

    ``predict(type="belief")`` gives ``theta`` = the Venn-ABERS point estimate, ``bel`` = p0 and
    ``pl`` = p1 (see the module docstring for the cross-Venn-ABERS interval).

    Attributes
    ----------
    va_method : {"inductive", "cross"}
    underlying : str
        ``"score"`` (one score calibrated directly) or ``"logistic"`` (an unpenalised logistic
        regression on the score columns, the probabilistic joint calibration).
    n_splits, cal_size, seed
        The package's settings (``n_splits`` for cross, ``cal_size`` for inductive with a
        logistic underlying classifier).
    """

    method = "venn_abers"

    def __init__(
        self,
        mf: ModelFrame,
        va_method: str = "inductive",
        n_splits: int = 5,
        cal_size: float = 0.5,
        seed: int = 0,
        *,
        c: Any = None,
        p0: Any = None,
        p1: Any = None,
        coef: Any = None,
        intercept: Any = None,
        n_iter: Any = None,
        cal_rows: Any = None,
    ) -> None:
        super().__init__(mf)
        if va_method not in VA_METHODS:
            raise ValueError(f"method must be one of {VA_METHODS}, got {va_method!r}")
        self._cols = score_axes(mf, "venn_abers")
        self.va_method = va_method
        self.n_splits = int(n_splits)
        self.cal_size = _check_fraction(cal_size, "cal_size")
        self.seed = _check_seed(seed)
        X = np.asarray(mf.X)[:, self._cols]
        y = np.asarray(mf.y).astype(np.int64)
        va = _venn_abers_module()
        counts = np.bincount(y, minlength=2)
        if counts.min() < 1:
            raise ValueError(f"venn_abers needs both classes among the {y.size} calibration rows")
        self.underlying = "score" if (va_method == "inductive" and len(self._cols) == 1) else "logistic"
        # the package's fitted state (State): the isotonic vectors of the score, or the logistic
        # regressions and the rows that calibrate each part; None in files of older evstat
        self._c, self._p0, self._p1 = c, p0, p1
        self._coef, self._intercept, self._n_iter, self._cal_rows = coef, intercept, n_iter, cal_rows
        if c is None and coef is None:
            # a new fit, or a file written before the package's state was saved: fit the package
            with _package_numerics():
                self._fit(va, X, y, counts, n_splits)
            self._read_state(X, y)
        else:  # a saved fit: the package's objects are rebuilt from their state, nothing is estimated
            self._check_state(y.size)
            self._va = self._package_object(va, X, y)

    def _fit(self, va: Any, X: NDArray, y: NDArray, counts: NDArray, n_splits: Any) -> None:
        if self.underlying == "score":
            s = X[:, 0]
            self._va = va.VennAbers().fit(p_cal=np.column_stack([np.zeros_like(s), s]), y_cal=y)
        elif self.va_method == "inductive":
            _split_sizes(y, self.cal_size, "Venn-ABERS (inductive, several scores)")
            self._va = va.VennAbersCV(
                _logistic(), inductive=True, cal_size=self.cal_size, random_state=self.seed,
                shuffle=True, stratify=y,
            )
            self._va.fit(X, y)
        else:
            if not 2 <= self.n_splits <= counts.min():
                raise ValueError(
                    f"cross Venn-ABERS needs 2 <= n_splits <= the size of the smaller class "
                    f"({counts.min()} of {y.size} rows), got n_splits = {n_splits}: lower n_splits"
                )
            self._va = va.VennAbersCV(_logistic(), inductive=False, n_splits=self.n_splits,
                                      random_state=self.seed, shuffle=True)
            self._va.fit(X, y)

    # ------------------------------------------------------------------ the package's state
    def _calibration_rows(self, y: NDArray) -> list[NDArray[np.intp]]:
        """The rows (positions) that calibrate each part, as the package splits them: inductive,
        scikit-learn's seeded stratified ``train_test_split``; cross, the test rows of each fold
        of the seeded ``StratifiedKFold`` (a split of the row positions, no estimation)."""
        from sklearn.model_selection import StratifiedKFold, train_test_split

        rows = np.arange(y.size)
        if self.va_method == "inductive":
            cal = train_test_split(rows, test_size=self.cal_size, random_state=self.seed, shuffle=True, stratify=y)[1]
            return [np.asarray(cal, dtype=np.intp)]
        folds = StratifiedKFold(n_splits=self.n_splits, shuffle=True, random_state=self.seed)
        return [np.asarray(test, dtype=np.intp) for _, test in folds.split(np.zeros((y.size, 1)), y)]

    def _read_state(self, X: NDArray, y: NDArray) -> None:
        """The fitted package objects' state, in the form :class:`State` saves. For a logistic
        underlying classifier the calibration rows are the package's split, computed again and
        checked against what the package calibrated on (its labels and scores of those rows)."""
        if self.underlying == "score":
            self._c = np.asarray(self._va.c_, dtype=np.float64)
            self._p0 = np.asarray(self._va.p0_[:, 1], dtype=np.float64)
            self._p1 = np.asarray(self._va.p1_[:, 1], dtype=np.float64)
            return
        ests = self._va.estimators_
        self._coef = [np.asarray(e.coef_[0], dtype=np.float64) for e in ests]
        self._intercept = [float(e.intercept_[0]) for e in ests]
        self._n_iter = [int(np.max(e.n_iter_)) for e in ests]
        self._cal_rows = self._calibration_rows(y)
        for i, r in enumerate(self._cal_rows):
            same = (np.array_equal(self._va.clf_y_cal[i], y[r])
                    and np.array_equal(self._va.clf_p_cal[i], ests[i + 1].predict_proba(X[r])))
            if not same:  # pragma: no cover - a venn-abers version that splits otherwise
                raise RuntimeError(
                    "the venn-abers package calibrated on other rows than scikit-learn's seeded split "
                    f"gives (part {i}), so evstat cannot save its state; report this with the package's version"
                )

    def _check_state(self, n: int) -> None:
        """The saved package state fits the model (ValueError naming the field otherwise)."""
        if self.underlying == "score":
            if self._c is None or self._p0 is None or self._p1 is None:
                raise ValueError("a Venn-ABERS model of one score saves c, p0 and p1 (the isotonic vectors)")
            self._c, self._p0, self._p1 = (np.asarray(v, dtype=np.float64) for v in (self._c, self._p0, self._p1))
            if not self._p0.size == self._p1.size == self._c.size + 1:
                raise ValueError(f"p0 and p1 need len(c) + 1 = {self._c.size + 1} values, got {self._p0.size} and {self._p1.size}")
            return
        if self._coef is None or self._intercept is None or self._n_iter is None or self._cal_rows is None:
            raise ValueError("a Venn-ABERS model on a logistic regression saves coef, intercept, n_iter and cal_rows")
        parts = 1 if self.va_method == "inductive" else self.n_splits
        if len(self._cal_rows) != parts:
            raise ValueError(f"cal_rows lists {len(self._cal_rows)} parts, the model has {parts}")
        if not len(self._coef) == len(self._intercept) == len(self._n_iter) == parts + 1:
            raise ValueError(f"coef, intercept and n_iter need {parts + 1} entries (the package's regressions), "
                             f"got {len(self._coef)}, {len(self._intercept)}, {len(self._n_iter)}")
        if any(len(c) != len(self._cols) for c in self._coef):
            raise ValueError(f"every row of coef needs {len(self._cols)} coefficients (the score columns)")
        self._coef = [np.asarray(c, dtype=np.float64) for c in self._coef]
        self._cal_rows = [np.asarray(r, dtype=np.intp) for r in self._cal_rows]
        if any(r.size and r.max() >= n for r in self._cal_rows):
            raise ValueError(f"cal_rows name a row beyond the {n} calibration rows")

    def _package_object(self, va: Any, X: NDArray, y: NDArray) -> Any:
        """The package's fitted object, from its saved state (attributes set, ``fit`` not called)."""
        if self.underlying == "score":
            v = va.VennAbers()
            grid = np.concatenate([[0.0], self._c])
            v.p0_ = v.p0 = np.column_stack([grid, self._p0])
            v.p1_ = v.p1 = np.column_stack([grid, self._p1])
            v.c_ = v.c = self._c
            return v
        ests = []
        for coef, b, it in zip(self._coef, self._intercept, self._n_iter):
            lr = _logistic()
            lr.classes_ = np.array([0, 1])
            lr.coef_, lr.intercept_ = coef.reshape(1, -1).copy(), np.array([b], dtype=np.float64)
            lr.n_features_in_, lr.n_iter_ = coef.size, np.array([it], dtype=np.int32)
            ests.append(lr)
        cv = va.VennAbersCV(_logistic(), inductive=self.va_method == "inductive", n_splits=self.n_splits,
                            cal_size=self.cal_size, random_state=self.seed, shuffle=True)
        cv.n_splits = len(self._cal_rows)
        cv.estimators_ = cv.estimators = ests
        cv.clf_p_cal_ = cv.clf_p_cal = [ests[i + 1].predict_proba(X[r]) for i, r in enumerate(self._cal_rows)]
        cv.clf_y_cal_ = cv.clf_y_cal = [y[r] for r in self._cal_rows]
        return cv

    def _verify_loaded(self, source: str) -> None:
        """On load, from the saved calibration rows. One score: ``c`` are the distinct scores
        (exact), ``p0`` and ``p1`` are non-decreasing probabilities. A logistic underlying
        classifier: ``cal_rows`` are the package's seeded split of the saved labels (exact),
        and every regression that converged has a zero gradient of its log-likelihood on its
        training rows (all rows for the first, the others' complement of their calibration
        rows): at most :data:`VA_GRADIENT_TOL` per row (ten times scikit-learn's stopping rule).
        Not re-checked: the isotonic values ``p0``, ``p1`` themselves (that is the package's
        fit); an edit that keeps them monotone only a signature catches."""
        super()._verify_loaded(source)
        X = np.asarray(self.model_frame.X, dtype=np.float64)[:, self._cols]
        y = np.asarray(self.model_frame.y).astype(np.int64)
        if self.underlying == "score":
            distinct = np.unique(X[:, 0])
            if not np.array_equal(self._c, distinct):
                raise not_fitted(self, source, "c", "they are not the distinct scores of the saved calibration rows")
            for name, v in (("p0", self._p0), ("p1", self._p1)):
                if (np.diff(v) < 0).any() or v.min() < 0 or v.max() > 1:
                    raise not_fitted(self, source, name, "an isotonic fit of 0/1 labels is non-decreasing in [0, 1]")
            return
        want = self._calibration_rows(y)
        for i, (got, rows) in enumerate(zip(self._cal_rows, want)):
            if not np.array_equal(got, rows):
                raise not_fitted(self, source, f"cal_rows[{i}]", "they are not the package's seeded split of the saved rows")
        trains = [np.arange(y.size)] + [np.setdiff1d(np.arange(y.size), r) for r in want]
        for j, (rows, coef, b, it) in enumerate(zip(trains, self._coef, self._intercept, self._n_iter)):
            if it >= _logistic().max_iter:
                continue  # stopped by the iteration limit: no stationary point to check
            A = np.column_stack([np.ones(rows.size), X[rows]])
            g = A.T @ (y[rows] - expit(A @ np.concatenate([[b], coef]))) / rows.size
            if float(np.max(np.abs(g))) > VA_GRADIENT_TOL:
                raise not_fitted(self, source, f"coef[{j}]", f"the gradient of the log-likelihood at the saved "
                                 f"coefficients is {np.max(np.abs(g)):.3g} per row, not 0")

    def _belief_arrays(self, X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        Z = np.asarray(X, dtype=np.float64)[:, self._cols]
        if Z.shape[0] == 0:
            e = np.empty(0)
            return e, e.copy(), e.copy()
        with _package_numerics():
            if self.underlying == "score":
                s = Z[:, 0]
                p_prime, p0p1 = self._va.predict_proba(p_test=np.column_stack([np.zeros_like(s), s]))
                p0, p1 = p0p1[:, 0], p0p1[:, 1]
            else:
                loss = "brier" if self.va_method == "cross" else "log"
                p_prime, p0p1 = self._va.predict_proba(Z, p0_p1_output=True, loss=loss)
                k = p0p1.shape[1] // 2
                p0, p1 = p0p1[:, :k].mean(axis=1), p0p1[:, k:].mean(axis=1)
        theta = np.asarray(p_prime[:, 1], dtype=np.float64)
        return theta, np.asarray(p0, dtype=np.float64), np.asarray(p1, dtype=np.float64)

    def _describe(self) -> str:
        if self.underlying == "score":
            return "inductive Venn-ABERS on the score (all calibration rows calibrate)"
        if self.va_method == "inductive":
            return (f"inductive Venn-ABERS on an unpenalised logistic regression of the scores "
                    f"(proper training {1 - self.cal_size:g}, calibration {self.cal_size:g} of the rows, seed {self.seed})")
        return (f"cross Venn-ABERS, {self.n_splits} stratified folds, on an unpenalised logistic "
                f"regression of the scores (seed {self.seed}); interval = fold means of [p0, p1], point = Brier-loss merge")

    def tidy(self) -> pd.DataFrame:
        """The settings, one row each (``term``, ``value``): a Venn-ABERS predictor has no
        coefficients of its own."""
        return pd.DataFrame({"term": ["method", "underlying", "n_splits", "cal_size", "seed"],
                             "value": [self.va_method, self.underlying, self.n_splits, self.cal_size, self.seed]})

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, va_method, underlying, nobs, n_pos, n_neg, mean_ignorance
        (mean p1 - p0 on the calibration rows)."""
        mf = self.model_frame
        _, b, p = self._belief_arrays(np.asarray(mf.X))
        return pd.DataFrame([{"method": self.method, "va_method": self.va_method, "underlying": self.underlying,
                              "nobs": mf.n, "n_pos": mf.n_pos, "n_neg": mf.n_neg,
                              "mean_ignorance": float(np.mean(p - b))}])

    def summary(self) -> Summary:
        """Summary: formula, data, the Venn-ABERS variant and the interval width on the
        calibration rows."""
        s = self._summary_head("Venn-ABERS predictor (venn-abers package)")
        s.add_info("Variant", self._describe())
        s.add_info("Interval", "[Bel, Pl] = [p0, p1]; theta = p1 / (1 - p0 + p1) (cross: fold means and the package's Brier-loss merge)")
        self._summary_ignorance(s)
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved Venn-ABERS predictor holds beyond its model frame (evstat.io.state): the
        settings and the package's fitted state, so that loading rebuilds the package's objects
        without fitting them. One score: the isotonic vectors of :class:`venn_abers.VennAbers`
        (``c`` the distinct calibration scores, ``p0``/``p1`` the values at ``[0, c]``). A
        logistic underlying classifier: the coefficients, intercepts and iterations of the
        package's regressions (the first on every row, then one per part) and the rows that
        calibrate each part. The fields of the other case are null; a file written before they
        were saved has none, and loading it fits the package once (as loading always did then)."""

        va_method: str = saved(schema.Str(max_len=16))
        n_splits: int = saved(schema.Int(min=2, max=10_000))
        cal_size: float = saved(schema.Float(min=0.0, max=1.0))
        seed: int = saved(schema.Int(min=0, max=2**32 - 1))
        c: list[float] | None = saved(default=None, attribute="_c")
        p0: list[float] | None = saved(_NULL_OR_PROBS, default=None, attribute="_p0")
        p1: list[float] | None = saved(_NULL_OR_PROBS, default=None, attribute="_p1")
        coef: list[list[float]] | None = saved(default=None, attribute="_coef", encode=_nested_json)
        intercept: list[float] | None = saved(default=None, attribute="_intercept")
        n_iter: list[int] | None = saved(schema.Nullable(schema.List(schema.Int(min=0))), default=None, attribute="_n_iter")
        cal_rows: list[list[int]] | None = saved(schema.Nullable(schema.List(schema.List(schema.Int(min=0)))),
                                                 default=None, attribute="_cal_rows", encode=_nested_json)


def venn_abers(
    formula: str,
    data: pd.DataFrame,
    method: str = "inductive",
    n_splits: int = 5,
    cal_size: float = 0.5,
    seed: int = 0,
    positive: Any = None,
    missing: str = "raise",
) -> VennAbersCalibration:
    """Venn-ABERS predictor of the ``venn-abers`` package, as an evstat calibrator.

    Inductive Venn-ABERS on one score calibrates the score itself on every calibration row;
    with several scores, and for cross Venn-ABERS, the underlying classifier is an unpenalised
    logistic regression on the scores (the probabilistic joint calibration). ``[Bel, Pl]`` is
    the Venn-ABERS interval ``[p0, p1]`` and ``theta`` its point estimate (module docstring).
    Needs the optional extra ``evstat[peers]``.

    Parameters
    ----------
    formula : str
        ``"y ~ s"`` or ``"y ~ s1 + s2 + s3"`` (numeric score columns).
    data : pandas.DataFrame
        Calibration data.
    method : {"inductive", "cross"}
        IVAP or CVAP (Vovk, Petej and Fedorova 2015).
    n_splits : int
        Folds of cross Venn-ABERS (stratified).
    cal_size : float
        Fraction of the rows that calibrates inductive Venn-ABERS with several scores (the rest
        fits the logistic regression); unused otherwise.
    seed : int
        Seeds the package's splits (``random_state``).
    positive, missing
        As in :func:`evstat.evlogit`.

    Returns
    -------
    VennAbersCalibration

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("pima_scores")
    >>> cal, test = d[d.set == "calibration"], d[d.set == "test"]
    >>> fit = ev.venn_abers("y ~ svm1", cal)
    >>> b = fit.predict(test.head(3), type="belief")
    >>> bool(((b.bel <= b.theta) & (b.theta <= b.pl)).all())
    True
    """
    if method not in VA_METHODS:
        raise ValueError(f"method must be one of {VA_METHODS}, got {method!r}")
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return VennAbersCalibration(mf, va_method=method, n_splits=n_splits, cal_size=cal_size, seed=seed)


class ConformalSets(ModelFrameFacts):
    """A fitted split-conformal classifier (returned by :func:`split_conformal`; crepes'
    ``WrapClassifier`` on an unpenalised logistic regression of the scores).

    Not a calibrator of the ``Results`` protocol (a prediction set is not an interval around a
    probability); :func:`evstat.compare`, :func:`evstat.comparison.reject_curves` and the HTML
    report accept it beside calibrators.

    Attributes
    ----------
    method : str
        ``"conformal"``.
    model_frame : evstat.formula.ModelFrame
    confidence : float
        Default confidence level of the prediction sets.
    cal_size, seed
        Fraction of the rows that conformalise, and the seed of the stratified split.
    """

    method = "conformal"

    #: not a Results (prediction sets, not beliefs), but declares what it supports as they do
    capabilities = Capabilities()

    def __init__(self, mf: ModelFrame, confidence: float = 0.9, cal_size: float = 0.5, seed: int = 0) -> None:
        self.model_frame = mf
        self._cols = score_axes(mf, "split_conformal")
        self.confidence = _check_fraction(confidence, "confidence")
        self.cal_size = _check_fraction(cal_size, "cal_size")
        self.seed = _check_seed(seed)
        X = np.asarray(mf.X)[:, self._cols]
        y = np.asarray(mf.y).astype(np.int64)
        _split_sizes(y, self.cal_size, "split_conformal")
        from sklearn.model_selection import train_test_split

        Xp, Xc, yp, yc = train_test_split(X, y, test_size=self.cal_size, random_state=self.seed, shuffle=True, stratify=y)
        self.n_proper, self.n_calibration = int(yp.size), int(yc.size)
        self._wrap = _crepes().WrapClassifier(_logistic())
        self._wrap.fit(Xp, yp)
        self._wrap.calibrate(Xc, yc)

    def __repr__(self) -> str:
        return (f"<ConformalSets (conformal): {self.formula!r}, n = {self.nobs} "
                f"({self.n_proper} proper training, {self.n_calibration} calibration), confidence {self.confidence:g}>")

    def _X(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        if newdata is None:
            return np.asarray(self.model_frame.X)[:, self._cols], self.model_frame.index
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(f"newdata must be a pandas DataFrame, got {type(newdata).__name__}")
        X, index = self.model_frame.new_X(newdata, missing=missing)
        return np.asarray(X)[:, self._cols], index

    def _confidence(self, confidence: float | None) -> float:
        return self.confidence if confidence is None else _check_fraction(confidence, "confidence")

    def p_values(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """Non-smoothed conformal p-values of the two classes (crepes ``predict_p``), columns
        named by the classes, indexed like ``newdata``."""
        X, index = self._X(newdata, missing)
        p = self._wrap.predict_p(X, smoothing=False) if X.shape[0] else np.empty((0, 2))
        return pd.DataFrame(np.asarray(p, dtype=np.float64), index=index, columns=list(self.classes))

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "prob", confidence: float | None = None,
                missing: str = "raise") -> Any:
        """``type="prob"``: Series ``theta``, the learner's P(y = positive | s);
        ``"set"``: DataFrame of bool, a column per class (True = in the set at ``confidence``,
        crepes ``predict_set``, p-value >= 1 - confidence); ``"p_values"``: :meth:`p_values`."""
        if type == "p_values":
            return self.p_values(newdata, missing)
        if type not in ("prob", "set"):
            raise ValueError(f"type must be one of ('prob', 'set', 'p_values'), got {type!r}")
        X, index = self._X(newdata, missing)
        if type == "prob":
            th = self._wrap.predict_proba(X)[:, 1] if X.shape[0] else np.empty(0)
            return pd.Series(np.asarray(th, dtype=np.float64), index=index, name="theta")
        c = self._confidence(confidence)
        sets = (self._wrap.predict_set(X, labels=False, confidence=c, smoothing=False) if X.shape[0]
                else np.empty((0, 2)))
        return pd.DataFrame(np.asarray(sets).astype(bool), index=index, columns=list(self.classes))

    def set_belief(self, newdata: pd.DataFrame | None = None, confidence: float | None = None,
                   missing: str = "raise") -> pd.DataFrame:
        """The prediction set read as a categorical mass function on {0, 1}: DataFrame
        ``[theta, bel, pl, size]`` with theta the learner's probability, Bel({1}) and Pl({1}) of
        m(set) = 1 (an empty set is read as {0, 1}, module docstring) and the set size (0, 1, 2)."""
        pv = self.p_values(newdata, missing)
        th = self.predict(newdata, type="prob", missing=missing)
        return self.belief_of_sets(th.to_numpy(), pv.to_numpy(), self._confidence(confidence), pv.index)

    @staticmethod
    def belief_of_sets(theta: NDArray, p_values: NDArray, confidence: float, index: pd.Index) -> pd.DataFrame:
        """:meth:`set_belief` from the learner's probabilities and the p-values (crepes'
        set rule: a class is in the set when its p-value is >= 1 - confidence), so that several
        confidence levels need the p-values once."""
        bel, pl, size = ConformalSets.set_mass(np.asarray(p_values) >= 1.0 - confidence)
        return pd.DataFrame({"theta": np.asarray(theta, dtype=np.float64), "bel": bel, "pl": pl, "size": size}, index=index)

    @staticmethod
    def set_mass(sets: NDArray[np.bool_]) -> tuple[NDArray, NDArray, NDArray]:
        """Bel({1}), Pl({1}) and size of prediction sets (bool array, columns negative,
        positive) read as categorical mass functions m(set) = 1 (an empty set as {0, 1}).

        Examples
        --------
        >>> import numpy as np
        >>> b, p, n = ConformalSets.set_mass(np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=bool))
        >>> b.tolist(), p.tolist(), n.tolist()
        ([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1, 1, 2, 0])
        """
        s = np.asarray(sets, dtype=bool)
        has0, has1 = s[:, 0], s[:, 1]
        size = s.sum(axis=1).astype(np.int64)
        bel = (has1 & ~has0).astype(np.float64)
        pl = np.where(size == 0, 1.0, has1.astype(np.float64))
        return bel, pl, size

    def decide(self, newdata: pd.DataFrame | None = None, confidence: float | None = None,
               missing: str = "raise") -> pd.Series:
        """The class of each singleton prediction set, ``"reject"`` otherwise: the pessimistic
        strategy of the one decision engine (:func:`evstat.belief.binary_decisions`) with
        reject cost 1/2 on the set's mass function (any reject cost in (0, 1) decides the same).

        Returns
        -------
        pandas.Series
            Categorical with categories ``(negative, positive, "reject")``, indexed like
            ``newdata``.
        """
        b = self.set_belief(newdata, confidence=confidence, missing=missing)
        choice, _, rejected = binary_decisions(b["bel"].to_numpy(), b["pl"].to_numpy(), "pessimistic", 0.5)
        labels = np.asarray(self.classes, dtype=object)[choice]
        labels = np.where(rejected, REJECT, labels)
        return pd.Series(pd.Categorical(labels, categories=[*self.classes, REJECT]), index=b.index, name="decision")

    def training_codes(self) -> NDArray[np.intp]:
        return np.asarray(self.model_frame.y, dtype=np.intp)

    @property
    def class_counts(self) -> pd.Series:
        y = self.training_codes()
        return pd.Series([int((y == 0).sum()), int((y == 1).sum())], index=list(self.classes), name="n")

    def summary(self) -> Summary:
        """Summary: formula, data sizes, confidence and the set sizes on the calibration rows."""
        s = Summary("Split-conformal classifier (crepes)")
        s.add_info("Formula", self.formula)
        s.add_info("Rows", f"{self.nobs} ({self.n_proper} fit the logistic regression, {self.n_calibration} conformalise)")
        s.add_info("Learner", "unpenalised logistic regression of the scores (scikit-learn); hinge non-conformity")
        s.add_info("Confidence", f"{self.confidence:g} (non-smoothed p-values)")
        size = self.set_belief()["size"].to_numpy()
        s.add_info("Set sizes (calibration rows)", f"empty {int((size == 0).sum())}, singleton "
                   f"{int((size == 1).sum())}, both classes {int((size == 2).sum())}")
        return s

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, nobs, n_proper, n_calibration, confidence, mean set size on
        the calibration rows."""
        size = self.set_belief()["size"].to_numpy()
        return pd.DataFrame([{"method": self.method, "nobs": self.nobs, "n_proper": self.n_proper,
                              "n_calibration": self.n_calibration, "confidence": self.confidence,
                              "mean_set_size": float(size.mean())}])


def split_conformal(
    formula: str,
    data: pd.DataFrame,
    confidence: float = 0.9,
    cal_size: float = 0.5,
    seed: int = 0,
    positive: Any = None,
    missing: str = "raise",
) -> ConformalSets:
    """Split-conformal classifier of the ``crepes`` package on the scores (evstat[peers]).

    An unpenalised logistic regression of the scores is fitted on ``1 - cal_size`` of the rows
    and conformalised (hinge non-conformity, non-smoothed p-values) on the others, split
    stratified with ``seed``.

    Parameters
    ----------
    formula : str
        ``"y ~ s"`` or ``"y ~ s1 + s2 + s3"``.
    data : pandas.DataFrame
        Calibration data.
    confidence : float
        Default confidence level of the prediction sets (1 - the error rate).
    cal_size : float
        Fraction of the rows that conformalise.
    seed : int
        Seed of the split.
    positive, missing
        As in :func:`evstat.evlogit`.

    Returns
    -------
    ConformalSets

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("pima_scores")
    >>> cal, test = d[d.set == "calibration"], d[d.set == "test"]
    >>> cp = ev.split_conformal("y ~ svm1 + svm2", cal, confidence=0.9)
    >>> cp.predict(test.head(4), type="set").shape
    (4, 2)
    """
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return ConformalSets(mf, confidence=confidence, cal_size=cal_size, seed=seed)


register(VennAbersCalibration, example=lambda y, d: venn_abers(f"{y} ~ s1 + s2", d, method="cross", n_splits=3), fitter=venn_abers)
