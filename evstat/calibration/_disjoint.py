"""The disjoint approach of Xu et al. (2016): calibrate each score alone, combine by Dempster's rule.

Minary et al. (2019), sections 4 and 5.2: each of the J score columns is
calibrated separately (evidential logistic calibration, evidential binning, isotonic or beta
calibration), giving J mass functions on {negative, positive} per test row, which are combined
with Dempster's rule (:func:`evstat.belief.combine`). The joint calibrators
(:func:`evstat.evlogit` and :func:`evstat.evbinning` with several scores) are the alternative the
paper proposes.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from evstat.exceptions import EvstatWarning
from evstat.belief import MassArray, TotalConflictError, combine
from evstat.calibration.base import CalibrationResults, binary_masses, score_axes
from evstat.calibration.beta import betacal
from evstat.calibration.binning import CellCalibration, EmptyCellWarning, evbinning
from evstat.calibration._isotonic import isotonic
from evstat.calibration.logistic import evlogit
from evstat.results import register, saved_models
from evstat.summary import Summary, format_number
from evstat.formula import ModelFrame, model_frame
from evstat.formula.arrays import ArrayData
from evstat.io import schema
from evstat.io.state import saved

__all__ = ["cautious_binary", "dempster_binary", "DisjointCalibration", "ConflictWarning", "disjoint"]

#: the per-column calibrators disjoint() can use
METHODS: dict[str, Callable[..., CalibrationResults]] = {
    "evlogit": evlogit,
    "evbinning": evbinning,
    "isotonic": isotonic,
    "betacal": betacal,
}
_CONFLICT = ("raise", "vacuous")
_PROB = ("product", "betp")
#: combination rules of the per-column mass functions: Dempster's (distinct sources) and
#: Denoeux's cautious rule (non-distinct sources, :func:`evstat.belief.rules.cautious`)
_COMBINATION = ("dempster", "cautious")


class ConflictWarning(EvstatWarning):
    """Rows whose per-column mass functions are in total conflict were given a vacuous mass."""


def _labels(index: pd.Index, rows: NDArray) -> str:
    shown = ", ".join(repr(v) for v in list(index[rows[:5]]))
    return shown + (", ..." if rows.size > 5 else "")


class DisjointCalibration(CalibrationResults):
    """A fitted disjoint calibration (returned by :func:`disjoint`).

    Attributes
    ----------
    calibrators : dict
        Score column (design term) -> its own fitted calibrator, fitted on the formula
        ``response ~ column`` (the term name quoted with ``Q()`` when it is not an identifier).
    base_method : str
        The per-column calibrator (``"evlogit"``, ``"evbinning"``, ``"isotonic"``, ``"betacal"``).
    conflict : {"raise", "vacuous"}
        What a row in total conflict (K = 1) gets: an error, or a vacuous mass and a warning.
    prob : {"betp", "product"}
        The probabilistic prediction: the pignistic probability of the combined mass function
        (default), or the normalised product of the J calibrated probabilities.
    combination : {"dempster", "cautious"}
        The rule combining the per-column mass functions.
    """

    _theta_warnings = (EmptyCellWarning,)
    _nan_theta_fix = (
        "a per-column calibrator predicts NaN there (e.g. an empty bin): pass empty='prior' to "
        "disjoint(), or use an evidential strategy"
    )

    method = "disjoint"

    def __init__(
        self,
        mf: ModelFrame,
        base_method: str,
        calibrators: Any,
        conflict: str = "raise",
        prob: str = "betp",
        combination: str = "dempster",
        *,
        columns: Any = None,
    ) -> None:
        super().__init__(mf)
        self.combination = combination
        self.base_method = base_method
        # a saved fit (State) gives the columns and their calibrators as two lists
        self.calibrators = dict(calibrators) if columns is None else dict(zip(columns, calibrators))
        self.conflict = conflict
        self.prob = prob
        self._cols = score_axes(mf, "disjoint")
        self._cal_belief: pd.DataFrame | None = None
        self._cal_columns: tuple[NDArray, NDArray, NDArray] | None = None

    @property
    def columns(self) -> list[str]:
        """The score columns (design terms without the intercept), one calibrator each."""
        return list(self.calibrators)

    # ------------------------------------------------------------------ per column
    def _per_column(self, X: NDArray[np.float64] | None) -> tuple[NDArray, NDArray, NDArray]:
        """theta, Bel, Pl of every column's calibrator: arrays (J, m); ``X = None`` for the
        calibration rows (cached)."""
        if X is None:
            if self._cal_columns is None:
                self._cal_columns = self._per_column(np.asarray(self.model_frame.X))
            return self._cal_columns
        m = X.shape[0]
        J = len(self._cols)
        th, bel, pl = np.empty((J, m)), np.empty((J, m)), np.empty((J, m))
        for i, (term, col) in enumerate(zip(self.calibrators, self._cols)):
            fit = self.calibrators[term]
            Xj, _ = fit._design(X[:, [col]])  # the column as an array: no formula, no patsy
            th[i], bel[i], pl[i] = fit._belief_arrays(Xj)
        return th, bel, pl

    @property
    def cost_per_cell(self) -> float | None:  # type: ignore[override]
        """The per-column calibrators' costs added (None when none grows with n)."""
        costs = [fit.cost_per_cell for fit in self.calibrators.values() if fit.cost_per_cell is not None]
        return float(sum(costs)) if costs else None

    def _per_column_summary(self) -> tuple[NDArray, NDArray, NDArray]:
        """:meth:`_per_column` on the calibration rows that summaries use (all of them, or the
        seeded subsample of :meth:`calibration_sample`), cached."""
        pos = self.calibration_sample()
        if pos is None:
            return self._per_column(None)
        if getattr(self, "_cal_columns_sample", None) is None:
            self._cal_columns_sample = self._per_column(np.asarray(self.model_frame.X)[pos])
        return self._cal_columns_sample

    def column_beliefs(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.DataFrame:
        """Per-column predictions before combination: DataFrame with a column MultiIndex
        (score column, [theta, bel, pl]), indexed like ``newdata``."""
        X, index = self._design(newdata, missing)
        th, bel, pl = self._per_column(X)
        parts = {
            (term, what): arr[i]
            for i, term in enumerate(self.calibrators)
            for what, arr in (("theta", th), ("bel", bel), ("pl", pl))
        }
        return pd.DataFrame(parts, index=index)

    # ------------------------------------------------------------------ combination
    def _combine(self, bel: NDArray, pl: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        """Combination of the J binary mass functions per row by Dempster's rule
        (:func:`dempster_binary`) or the cautious rule (:func:`cautious_binary`); rows where it
        is undefined raise unless ``conflict="vacuous"``."""
        rule = cautious_binary if self.combination == "cautious" else dempster_binary
        out_bel, out_pl, bad = rule(bel, pl, self.classes)
        if bad.any() and self.conflict == "raise":
            rows = np.flatnonzero(bad)
            raise TotalConflictError(self._conflict_message(rows, bad.size), rows)
        return out_bel, out_pl, bad

    def _conflict_message(self, rows: NDArray, m: int) -> str:
        index = self._last_index if self._last_index is not None else pd.RangeIndex(m)
        if self.combination == "cautious":
            return (
                f"the cautious rule is undefined for {rows.size} of {m} rows (index "
                f"{_labels(index, rows)}): a per-column mass function there has no ignorance "
                "(m({0,1}) = 0, a dogmatic mass) or the result is in total conflict. "
                "Pass conflict='vacuous' to give these rows a vacuous mass (Bel = 0, Pl = 1) with a "
                "warning, or check the scores of these rows"
            )
        return (
            f"Dempster's rule is undefined for {rows.size} of {m} rows (index "
            f"{_labels(index, rows)}): the per-column calibrations are in total conflict there "
            "(K = 1: one column is certain of the positive class, another of the negative). "
            "Pass conflict='vacuous' to give these rows a vacuous mass (Bel = 0, Pl = 1) with a "
            "warning, or check the scores of these rows"
        )

    def _warn_conflict(self, bad: NDArray, what: str) -> None:
        if bad.any():
            warnings.warn(
                f"{int(bad.sum())} of {bad.size} rows are in total conflict between the "
                f"per-column calibrations (K = 1): their {what}",
                ConflictWarning,
                stacklevel=5,
            )

    def _product(self, th: NDArray) -> tuple[NDArray, NDArray]:
        """Normalised product prod theta_j / (prod theta_j + prod (1 - theta_j)) in log space,
        and the mask of rows where it is 0/0 (some theta_j = 1 and another = 0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            lp = np.sum(np.log(th), axis=0)
            lq = np.sum(np.log1p(-th), axis=0)
            diff = lp - lq
            out = np.where(np.isnan(diff), np.nan, 1.0 / (1.0 + np.exp(-np.where(np.isnan(diff), 0.0, diff))))
        undefined = np.isneginf(lp) & np.isneginf(lq)
        return out, undefined

    def _predict_arrays(self, X: NDArray[np.float64], need_belief: bool) -> tuple[NDArray, NDArray | None, NDArray | None]:
        th, bel, pl = self._per_column(None if X is self._cal_X else X)
        cb = cp = None
        bad = np.zeros(X.shape[0], dtype=bool)
        if need_belief or self.prob == "betp":
            cb, cp, bad = self._combine(bel, pl)
            self._warn_conflict(bad, "mass is set vacuous (Bel = 0, Pl = 1)")
        if self.prob == "betp":
            assert cb is not None and cp is not None  # combined above
            theta = (cb + cp) / 2.0
        else:
            theta, undefined = self._product(th)
            if undefined.any():
                rows = np.flatnonzero(undefined)
                if self.conflict == "raise":
                    raise TotalConflictError(
                        self._conflict_message(rows, X.shape[0]).replace(
                            "per-column calibrations are", "per-column probabilities are"
                        ),
                        rows,
                    )
                theta[undefined] = 0.5
                if not bad.any():
                    self._warn_conflict(undefined, "probability is set to 0.5 (that of a vacuous mass)")
        return theta, cb, cp

    # ------------------------------------------------------------------ protocol
    _last_index: pd.Index | None = None
    _cal_X: NDArray | None = None

    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        X, index = super()._design(newdata, missing)
        self._last_index = index  # for the row labels of conflict messages
        if newdata is None:
            self._cal_X = X  # the calibration rows: per-column predictions are cached
        return X, index

    def _prob_array(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._predict_arrays(X, need_belief=False)[0]

    def _belief_arrays(self, X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        theta, bel, pl = self._predict_arrays(X, need_belief=True)
        assert bel is not None and pl is not None  # need_belief
        return theta, bel, pl

    def _calibration_conflict(self) -> NDArray:
        """The conflict K of the combination on the calibration rows (those of
        :meth:`calibration_sample` above CALIBRATION_SAMPLE_ROWS)."""
        _, bel, pl = self._per_column_summary()
        if bel.shape[0] == 1:
            return np.zeros(bel.shape[1])
        index = pd.RangeIndex(bel.shape[1])
        masses = [binary_masses(bel[j], pl[j], self.classes, index) for j in range(bel.shape[0])]
        conj = combine(*masses, rule="conjunctive")
        assert isinstance(conj, MassArray)
        return conj.values[:, 0]

    # ------------------------------------------------------------------ verbs
    def tidy(self) -> pd.DataFrame:
        """The per-column calibrators' ``tidy()`` tables stacked, with a first column
        ``column`` naming the score column."""
        parts = []
        for term, fit in self.calibrators.items():
            t = fit.tidy()
            t.insert(0, "column", term)
            parts.append(t)
        return pd.concat(parts, ignore_index=True)

    def glance(self) -> pd.DataFrame:
        """One-row summary: method, base_method, nobs, n_pos, n_neg, n_columns, prob, conflict,
        combination (the rule), mean_ignorance and mean_conflict (the mean conflict K between
        the per-column mass functions, i.e. the unnormalised conjunctive mass of the empty set) on the
        calibration rows, and ignorance_rows, the number of calibration rows these means use
        (a seeded subsample above CALIBRATION_SAMPLE_ROWS; see :meth:`calibration_sample`)."""
        mf = self.model_frame
        cb = self.calibration_belief()
        return pd.DataFrame(
            [
                {
                    "method": self.method,
                    "base_method": self.base_method,
                    "nobs": mf.n,
                    "n_pos": mf.n_pos,
                    "n_neg": mf.n_neg,
                    "n_columns": len(self.calibrators),
                    "prob": self.prob,
                    "conflict": self.conflict,
                    "combination": self.combination,
                    "mean_ignorance": float(np.mean(cb["pl"] - cb["bel"])),
                    "mean_conflict": float(np.mean(self._calibration_conflict())),
                    "ignorance_rows": len(cb),
                }
            ]
        )

    @staticmethod
    def _details(fit: CalibrationResults) -> str:
        if hasattr(fit, "params"):
            return ", ".join(f"{k} = {format_number(v)}" for k, v in fit.params.items())
        if hasattr(fit, "n_blocks"):
            return f"{fit.n_blocks} PAV blocks"
        assert isinstance(fit, CellCalibration)  # evbinning, the remaining member of METHODS
        return f"{fit.n_cells} bins, {fit.n_empty} empty"

    def summary(self) -> Summary:
        """Summary: formula, the per-column calibrators (with their main estimates and mean
        ignorance on the calibration rows), the combination rule, and the combined ignorance
        and conflict on the calibration rows."""
        s = self._summary_head("Disjoint evidential calibration (disjoint)")
        s.add_info("Per-column calibrator", self.base_method)
        rule_text = (
            "Denoeux's cautious rule (for non-distinct sources: minimum of the canonical weights)"
            if self.combination == "cautious"
            else "Dempster's rule (assumes distinct, independent sources)"
        )
        s.add_info("Combination", rule_text + " (undefined rows: " + ("error" if self.conflict == "raise" else "vacuous mass") + ")")
        s.add_info(
            "Probability",
            "normalised product of the per-column probabilities" if self.prob == "product"
            else "pignistic probability of the combined mass",
        )
        _, cbel, cpl = self._per_column_summary()
        rows = []
        for j, (term, fit) in enumerate(self.calibrators.items()):
            rows.append({"formula": fit.formula, "mean ignorance": float(np.mean(cpl[j] - cbel[j])), "estimates": self._details(fit)})
        s.add_table(
            "Per-column calibrators",
            pd.DataFrame(rows, index=list(self.calibrators)),
            formatters={"formula": str, "estimates": str},
        )
        cb = self.calibration_belief()
        ign = (cb["pl"] - cb["bel"]).to_numpy()
        K = self._calibration_conflict()
        s.add_table(
            "Combined mass on the calibration rows",
            pd.DataFrame(
                {"mean": [ign.mean(), K.mean()], "min": [ign.min(), K.min()], "median": [np.median(ign), np.median(K)], "max": [ign.max(), K.max()]},
                index=["ignorance m({0,1})", "conflict K"],
            ),
            notes=[note[0].upper() + note[1:] + "."] if (note := self.calibration_sample_note()) else [],
        )
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved disjoint holds beyond its model frame (evstat.io.state): the settings
        and every column's calibrator, saved whole (its own method, frame and state)."""

        base_method: str = saved(schema.Str(choices=list(METHODS)))
        conflict: str = saved(schema.Str(choices=list(_CONFLICT)))
        prob: str = saved(schema.Str(choices=list(_PROB)))
        combination: str = saved(schema.Str(choices=list(_COMBINATION)))
        columns: list[str] = saved(schema.List(schema.Str(max_len=10_000), min_len=1, what="columns"))
        #: each column's calibrator, saved whole
        calibrators: list[Any] = saved_models("calibrators", length=schema.Ref("columns", "columns lists {n} columns"))

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def same(d: Mapping[str, Any], root: Any) -> str | None:
            bad = [i for i, c in enumerate(d["calibrators"]) if c["method"] != d["base_method"]]
            if bad:
                return f"calibrators[{bad[0]}] is a {d['calibrators'][bad[0]]['method']} model, but base_method is {d['base_method']!r}"
            return None

        return [same]

    def _verify_loaded(self, source: str) -> None:
        """Each per-column calibrator runs its own family's load check on its saved data."""
        super()._verify_loaded(source)
        for i, fit in enumerate(self.calibrators.values()):
            fit._verify_loaded(f"{source} (calibrators[{i}])")





def _combine_binary(
    bel: ArrayLike, pl: ArrayLike, classes: tuple, rule: str
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Combine J binary mass functions per row by ``rule`` ("dempster" or "cautious"); rows in
    total conflict, and for the cautious rule rows with a dogmatic mass (no canonical
    decomposition), are flagged and get a vacuous mass (0, 1)."""
    bel = np.atleast_2d(np.asarray(bel, dtype=float))
    pl = np.atleast_2d(np.asarray(pl, dtype=float))
    J, m = bel.shape
    bad = np.zeros(m, dtype=bool)
    if J == 1:
        return bel[0].copy(), pl[0].copy(), bad
    if rule == "cautious":
        bad |= np.any(pl - bel <= 0.0, axis=0)  # dogmatic: no canonical decomposition
    out_bel, out_pl = np.zeros(m), np.ones(m)
    while True:
        keep = np.flatnonzero(~bad)
        if keep.size == 0:
            break
        masses = [binary_masses(bel[j, keep], pl[j, keep], classes, pd.RangeIndex(keep.size)) for j in range(J)]
        try:
            comb = combine(*masses, rule=rule)
        except TotalConflictError as err:
            bad[keep if err.rows is None else keep[np.asarray(err.rows, dtype=np.intp)]] = True
            continue
        out_bel[keep] = comb.values[:, 2]
        out_pl[keep] = 1.0 - comb.values[:, 1]
        break
    return out_bel, out_pl, bad


def dempster_binary(
    bel: ArrayLike, pl: ArrayLike, classes: tuple = (0, 1)
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Combine J binary mass functions per row by Dempster's rule (:func:`evstat.belief.combine`).

    Parameters
    ----------
    bel, pl : arrays of shape (J, m)
        Bel({positive}) and Pl({positive}) of the J mass functions of each of m rows.
    classes : tuple
        ``(negative, positive)``: the frame of the mass functions.

    Returns
    -------
    bel, pl : arrays of shape (m,)
        Of the combination; rows in total conflict (K = 1) get a vacuous mass (0, 1).
    conflict : boolean array of shape (m,)
        The rows in total conflict.

    Examples
    --------
    >>> import numpy as np
    >>> b, p, bad = dempster_binary(np.array([[0.6], [0.0]]), np.array([[1.0], [0.7]]))
    >>> round(float(b[0]), 6), round(float(p[0]), 6), bool(bad[0])
    (0.512195, 0.853659, False)
    """
    return _combine_binary(bel, pl, classes, "dempster")


def cautious_binary(
    bel: ArrayLike, pl: ArrayLike, classes: tuple = (0, 1)
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Combine J binary mass functions per row by Denoeux's cautious rule
    (:func:`evstat.belief.combine` with ``rule="cautious"``).

    Same arguments and returns as :func:`dempster_binary`; the rows flagged are those where the
    rule is undefined: some mass function is dogmatic (``Bel = Pl``, no ignorance) or the
    result is in total conflict. They get a vacuous mass (0, 1).

    Examples
    --------
    Weights ``w({1}) = (Pl - Bel) / Pl`` and ``w({0}) = (Pl - Bel) / (1 - Bel)``: (0.4, 1) and
    (1, 0.7) here; their minima (0.4, 0.7) give m({1}) = 0.6 x 0.7 / (1 - 0.6 x 0.3):

    >>> import numpy as np
    >>> b, p, bad = cautious_binary(np.array([[0.6], [0.0]]), np.array([[1.0], [0.7]]))
    >>> round(float(b[0]), 6), round(float(p[0]), 6), bool(bad[0])
    (0.512195, 0.853659, False)
    """
    return _combine_binary(bel, pl, classes, "cautious")


def disjoint(
    formula: str,
    data: pd.DataFrame,
    method: str = "evlogit",
    bins: int = 9,
    conflict: str = "raise",
    prob: str = "betp",
    combination: str = "dempster",
    positive: Any = None,
    missing: str = "raise",
    **options: Any,
) -> DisjointCalibration:
    """Disjoint evidential calibration (Xu et al. 2016): one calibrator per score, Dempster's rule.

    Every non-intercept design column of the formula is calibrated on its own with ``method``
    (fitted as ``response ~ column`` on the calibration rows), and for each row the J mass
    functions ``m_j({1}) = Bel_j``, ``m_j({0}) = 1 - Pl_j``, ``m_j({0,1}) = Pl_j - Bel_j`` are
    combined by Dempster's rule (:func:`evstat.belief.combine`; Minary et al. 2019, section 4):
    ``m = m_1 (+) ... (+) m_J``.

    Parameters
    ----------
    formula : str
        ``"y ~ svm1 + svm2 + svm3"``.
    data : pandas.DataFrame
        Calibration data.
    method : {"evlogit", "evbinning", "isotonic", "betacal"}
        The per-column calibrator.
    bins : int
        Bins per score for ``method="evbinning"`` (default 9, the B_U of Minary et al. 2019,
        section 5.2); ignored by the other methods.
    conflict : {"raise", "vacuous"}
        A row whose mass functions are in total conflict (K = 1, e.g. one column has Bel = 1
        and another Pl = 0) has no Dempster combination: raise a ``ValueError``
        (:class:`evstat.belief.TotalConflictError`, the default), or give it a vacuous mass
        (Bel = 0, Pl = 1) with a :class:`ConflictWarning`.
    prob : {"betp", "product"}
        The probabilistic prediction (``predict(type="prob")``, the ``theta`` column of
        ``type="belief"`` and the ``"probabilistic"`` decision strategy). ``"betp"`` (default):
        the pignistic probability ``BetP({1}) = (Bel + Pl) / 2`` of the combined mass, so that
        ``Bel <= theta <= Pl`` as for every other calibrator. ``"product"``: the probabilistic
        disjoint approach, the normalised product ``prod p_j / (prod p_j + prod (1 - p_j))`` of
        the per-column calibrated probabilities ``p_j = theta_j``, which is Dempster's rule
        applied to the Bayesian mass functions ``m_j({1}) = p_j`` (Bayesian combination with a
        uniform prior); where it is 0/0 (one p_j = 1, another 0) the conflict rule applies
        (``conflict="vacuous"`` gives 0.5). The product usually lies outside [Bel, Pl] of the
        evidential combination (it combines the point estimates, not the mass functions: on
        the pima scores with evlogit per column, in 353 of 359 calibration rows), which is why
        it is not the default; use it to compare the probabilistic and the evidential disjoint
        approaches.
    combination : {"dempster", "cautious"}
        How the per-column mass functions are combined. ``"dempster"`` (default, Xu et al.
        2016): Dempster's rule, which treats the columns as distinct (independent) pieces of
        evidence, so agreeing columns reinforce each other and the ignorance shrinks fast.
        ``"cautious"``: Denoeux's (2008) cautious rule for non-distinct sources (scores of
        classifiers trained on the same data): for each of {1} and {0} it keeps the larger weight
        of evidence instead of adding them, so the combination of a column with itself is that
        column, and the combined ignorance is at least as large as Dempster's.
        The summary, ``glance`` and reports name the rule used and the mean conflict K.
    positive, missing
        As :func:`evstat.evlogit`.
    **options
        Passed to every per-column calibrator, e.g. ``targets="binary"`` (evlogit, betacal),
        ``breaks="quantile"`` or ``empty="prior"`` (evbinning), ``parameters="am"`` (betacal).

    Returns
    -------
    DisjointCalibration

    Notes
    -----
    With one score column the result equals that column's own calibrator. Dempster's rule
    needs the per-column mass functions to be distinct pieces of evidence; scores of classifiers
    trained on overlapping data are not, which is one argument of Minary et al. for the joint
    approach.

    Examples
    --------
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
    >>> fit = ev.disjoint("y ~ x1 + x2", cal, method="evlogit")
    >>> fit.columns
    ['x1', 'x2']
    >>> m = fit.predict(cal.head(3), type="mass")
    >>> bool(abs(m.values.sum(axis=1) - 1).max() < 1e-12)
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {tuple(METHODS)}, got {method!r}")
    if conflict not in _CONFLICT:
        raise ValueError(f"conflict must be 'raise' (an error, the default) or 'vacuous', got {conflict!r}")
    if prob not in _PROB:
        raise ValueError(
            f"prob must be 'betp' (pignistic probability of the combined mass, the default) or "
            f"'product' (normalised product of the column probabilities), got {prob!r}"
        )
    if combination not in _COMBINATION:
        raise ValueError(
            f"combination must be 'dempster' (distinct sources, the default) or 'cautious' "
            f"(Denoeux's cautious rule for non-distinct sources), got {combination!r}"
        )
    mf = model_frame(formula, data, positive=positive, missing=missing)
    cols = score_axes(mf, "disjoint")
    X = np.asarray(mf.X)
    labels = np.where(np.asarray(mf.y) == 1.0, mf.positive, mf.classes[0])
    response = mf.response
    fitter = METHODS[method]
    if method == "evbinning":
        options = {"bins": bins, **options}
    calibrators: dict[str, CalibrationResults] = {}
    for j in cols:
        term = mf.terms[j]
        # the column and the labels as arrays (the frame of "response ~ term"; no formula parsed)
        column = ArrayData(pd.DataFrame({term: X[:, j]}, index=mf.index), labels, response=response)
        try:
            calibrators[term] = fitter(column.formula, column, positive=mf.positive, **options)
        except TypeError as err:
            raise TypeError(f"disjoint(method={method!r}) passed options {sorted(options)} to {method}: {err}") from None
    return DisjointCalibration(mf, method, calibrators, conflict=conflict, prob=prob, combination=combination)


register(DisjointCalibration, example=lambda y, d: disjoint(f"{y} ~ s1 + s2", d), fitter=disjoint)
