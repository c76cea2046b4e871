"""The models the query strategies and the labelling loop work on (private).

A *learner* is a fitted calibration seen through the two operations the strategies need, on the
rows of a fixed table (the *universe*: the pool, and in :func:`evstat.active.simulate` the test
rows after it), addressed by position:

``belief(pos)``
    theta_hat, Bel({1}) and Pl({1}) of the universe rows ``pos``;
``grow(pos, labels, tag)``
    the learner refitted with those rows added, labelled ``labels`` (0/1 codes).

:class:`FitLearner` is the general one: it holds the fitted calibrator, predicts with
``fit.belief_frame`` and grows with :func:`evstat.active.update` (or a ``refit`` callable).

:class:`LogitArrays` is the fast path of evlogit when every term of the formula is the intercept or
a numeric column (no transforms, no factors): the design rows of the universe are built once, a
refit is ``fit_logistic_likelihood`` (the function ``evlogit`` calls) on the stacked design and the
Platt (or 0/1) targets of the grown labels, and the belief is ``predictive_belief`` on design rows.
It skips only the formula parsing, the model-frame checks and the DataFrames of every step, so
it gives the numbers of the general path: the design of a plain column is the column as float64,
the grown rows are stacked in the order ``update`` concatenates them, and the predictive belief of
a row does not depend on the other rows of its call (tests/active compare the two paths).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

#: rows per predictive call of the fast path (bounds memory, as evlogit's BLOCK_ROWS)
BLOCK_ROWS = 5000

_SHARED: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("evstat_active_shared", default=None)


@contextlib.contextmanager
def shared_work() -> Iterator[dict[str, Any]]:
    """Within the block, fast-path learners (:class:`LogitArrays`) grown from the same fit and
    universe by the same rows with the same labels in the same order are one learner (one
    refit), and a learner's belief on the same rows is computed once: the same arithmetic, done
    once. :func:`evstat.active.outlook` runs its draws and strategies inside one block (the
    simulated labellings share their first queries and often their first labels). The yielded
    dict counts ``refits`` (done), ``reused`` (refits saved), ``beliefs`` and ``beliefs_reused``.
    """
    memo: dict[str, Any] = {"learners": {}, "belief": {}, "refits": 0, "reused": 0, "beliefs": 0, "beliefs_reused": 0}
    token = _SHARED.set(memo)
    try:
        yield memo
    finally:
        _SHARED.reset(token)


class FitLearner:
    """A fitted calibrator and the universe rows (general path)."""

    def __init__(self, fit: Any, universe: pd.DataFrame, refit: Callable[[pd.DataFrame], Any] | None = None):
        self.fit = fit
        self.universe = universe
        self.refit = refit

    def belief(self, pos: NDArray[np.intp]) -> tuple[NDArray, NDArray, NDArray]:
        from evstat.calibration.binning import EmptyCellWarning

        with warnings.catch_warnings():  # theta (k/n of an empty cell) is not used: Bel/Pl are defined
            warnings.simplefilter("ignore", EmptyCellWarning)
            out = self.fit.belief_frame(self.universe.iloc[pos])
        return (out["theta"].to_numpy(dtype=np.float64), out["bel"].to_numpy(dtype=np.float64),
                out["pl"].to_numpy(dtype=np.float64))

    def grow(self, pos: NDArray[np.intp], labels: NDArray[np.intp], tag: str) -> FitLearner:
        from evstat.active._update import update

        rows = self.universe.iloc[pos].copy()
        rows.index = pd.Index([(tag, k) for k in range(len(pos))], tupleize_cols=False)
        classes = self.fit.classes
        rows[self.fit.response] = [classes[int(c)] for c in labels]
        return FitLearner(update(self.fit, rows, refit=self.refit), self.universe, self.refit)


def plain_design(fit: Any, universe: pd.DataFrame) -> NDArray[np.float64] | None:
    """The design rows of ``universe`` for an evlogit fit whose terms are the intercept and
    numeric columns, or None when the fast path does not apply."""
    from evstat.calibration.logistic import LogitCalibration

    if type(fit) is not LogitCalibration or getattr(fit, "method", None) != "evlogit":
        return None
    cols = []
    for term in fit.terms:
        if term == "Intercept":
            cols.append(np.ones(len(universe)))
        elif term in universe.columns and term in fit.score_columns and pd.api.types.is_numeric_dtype(universe[term]) \
                and not pd.api.types.is_bool_dtype(universe[term]):
            cols.append(universe[term].to_numpy(dtype=np.float64))
        else:
            return None
    X = np.column_stack(cols) if cols else np.empty((len(universe), 0))
    if not np.all(np.isfinite(X)):
        return None
    lik = fit.likelihood
    if lik.X.shape[1] != X.shape[1]:
        return None
    return np.ascontiguousarray(X)


class LogitArrays:
    """evlogit on arrays (fast path; module docstring)."""

    def __init__(self, fit: Any, Xu: NDArray[np.float64], X: NDArray | None = None, y: NDArray | None = None,
                 lik: Any = None, path: tuple[tuple[int, int], ...] = (), root: tuple[int, str] | None = None):
        self.fit = fit  # the fit the learner started from: terms, targets, method
        self.Xu = Xu
        self.X = np.asarray(fit.likelihood.X, dtype=np.float64) if X is None else X
        self.y = np.asarray(fit.training_codes(), dtype=np.intp) if y is None else y
        self.lik = fit.likelihood if lik is None else lik
        #: the (universe position, label code) pairs grown since ``fit``, in order
        self.path = path
        #: the fit and the universe (content) the learner started from: with ``path``, its identity
        self.root = (id(fit), hashlib.sha256(np.ascontiguousarray(Xu).tobytes()).hexdigest()) if root is None else root

    def belief(self, pos: NDArray[np.intp]) -> tuple[NDArray, NDArray, NDArray]:
        pos = np.asarray(pos, dtype=np.intp)
        memo = _SHARED.get()
        if memo is None:
            return self._belief(pos)
        key = (self.root, self.path, pos.tobytes())
        if key in memo["belief"]:
            memo["beliefs_reused"] += 1
        else:
            memo["beliefs"] += 1
            memo["belief"][key] = self._belief(pos)
        return tuple(a.copy() for a in memo["belief"][key])

    def _belief(self, pos: NDArray[np.intp]) -> tuple[NDArray, NDArray, NDArray]:
        """theta_hat, Bel, Pl of the universe rows ``pos``; equal design rows (a test set that
        repeats the pool, as in outlook) are computed once (a row's belief does not depend on
        the other rows of the call)."""
        A = self.Xu[pos]
        uniq, inv = np.unique(A, axis=0, return_inverse=True)
        if uniq.shape[0] < A.shape[0]:
            th, bel, pl = self._belief_rows(uniq)
            inv = inv.reshape(-1)
            return th[inv], bel[inv], pl[inv]
        return self._belief_rows(A)

    def _belief_rows(self, A: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        from evstat.likelihood import predictive_belief

        m = A.shape[0]
        if m <= BLOCK_ROWS:
            return predictive_belief(self.lik, A, method=self.fit.predictive_method)
        th, bel, pl = np.empty(m), np.empty(m), np.empty(m)
        for s in range(0, m, BLOCK_ROWS):
            sl = slice(s, s + BLOCK_ROWS)
            th[sl], bel[sl], pl[sl] = predictive_belief(self.lik, A[sl], method=self.fit.predictive_method)
        return th, bel, pl

    def grow(self, pos: NDArray[np.intp], labels: NDArray[np.intp], tag: str = "") -> LogitArrays:
        from evstat.calibration.logistic import fit_logistic_likelihood
        from evstat.likelihood import platt_targets

        pos = np.asarray(pos, dtype=np.intp)
        labels = np.asarray(labels, dtype=np.intp)
        path = self.path + tuple(zip(pos.tolist(), labels.tolist()))
        memo = _SHARED.get()
        if memo is not None and (self.root, path) in memo["learners"]:
            memo["reused"] += 1
            return memo["learners"][(self.root, path)]
        X = np.vstack([self.X, self.Xu[pos]])
        y = np.concatenate([self.y, labels])
        t = platt_targets(y) if self.fit.targets == "platt" else y.astype(np.float64)
        lik, _ = fit_logistic_likelihood(X, t, self.fit.terms, None, self.fit.targets)
        grown = LogitArrays(self.fit, self.Xu, X, y, lik, path, self.root)
        if memo is not None:
            memo["refits"] += 1
            memo["learners"][(self.root, path)] = grown
        return grown


def learner(fit: Any, universe: pd.DataFrame, refit: Callable[[pd.DataFrame], Any] | None = None,
            fast: bool = True) -> FitLearner | LogitArrays:
    """The fast learner when it applies (no ``refit``, evlogit with plain columns), else the general one."""
    if fast and refit is None:
        X = plain_design(fit, universe)
        if X is not None:
            return LogitArrays(fit, X)
    return FitLearner(fit, universe, refit)
