"""Evidential binning calibration: ``evbinning`` (Minary et al. 2019, sections 3.1.1, 3.2.1, 4.1).

The score space is cut into cells; a cell holding ``n`` calibration rows of which ``k`` are
positive is a binomial experiment. Its probabilistic calibration is ``k / n`` (eqs. 31, 46) and its
evidential calibration is the likelihood-based belief function of the binomial contour
``pl(theta) = theta^k (1 - theta)^(n - k) / sup`` (eqs. 13-14, 38), which gives Bel({1}) and
Pl({1}) in closed form (eqs. 27-30, 47-48; :func:`evstat.likelihood.binomial_belief`, log space).
An empty cell has a contour identically 1: Bel = 0, Pl = 1 (vacuous).

With one score this is the binning of Zadrozny and Elkan (2001) and its evidential version by
Xu et al. (2016); with J scores it is the joint binning of Minary et al. (2019, section 4.1):
B_1 x ... x B_J cells.

:class:`CellCalibration` is the part shared with :func:`evstat.calibration.isotonic`
(whose cells are the PAV blocks).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import xlogy

from evstat.calibration.base import CalibrationResults, EmptyCellWarning, score_axes
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary, format_number
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.likelihood import binomial_belief

__all__ = ["BinningCalibration", "CellCalibration", "EmptyCellWarning", "evbinning"]

#: Largest number of cells (product of the bins per axis) evbinning accepts.
MAX_CELLS = 10_000_000
_EMPTY = ("nan", "prior")
_BREAKS = ("uniform", "quantile")
_DEFAULT_BINS = 3


def _check_empty(empty: str) -> str:
    if empty not in _EMPTY:
        raise ValueError(
            f"empty must be 'nan' (an empty cell predicts NaN, the default) or 'prior' (the "
            f"overall positive rate of the calibration data), got {empty!r}"
        )
    return empty


def _fmt6(v: float) -> str:
    return f"{v:.6g}"


def interval_label(lo: float, hi: float) -> str:
    """R's ``cut`` label of the interval (lo, hi]: ``"(0.25, 0.5]"``, ``"(-Inf, 0.1]"``."""
    left = "(-Inf" if np.isneginf(lo) else f"({lo:.6g}"
    right = "Inf)" if np.isposinf(hi) else f"{hi:.6g}]"
    return f"{left}, {right}"


class CellCalibration(CalibrationResults):
    """Base class of calibrators that partition the score space into cells with counts.

    Subclasses set up the partition and implement ``_cells_of(X)`` (the cell of each design
    row); this class supplies the probabilistic prediction ``k / n``, the evidential one (the
    binomial closed form of Minary et al. 2019, eqs. 27-30 and 47-48) and the shared verbs.

    Attributes
    ----------
    k, n : numpy.ndarray
        Positive and total calibration rows per cell.
    empty : {"nan", "prior"}
        The probability predicted in an empty cell: NaN (with an :class:`EmptyCellWarning`) or
        the overall positive rate ``N+ / N`` of the calibration data. The belief of an empty
        cell is vacuous (Bel = 0, Pl = 1) either way.
    """

    _cell_word = "cell"
    _theta_warnings = (EmptyCellWarning,)
    _nan_theta_fix = (
        "they fall in empty cells where k/n is undefined; refit with empty='prior', or use an "
        "evidential strategy (their belief there is vacuous)"
    )

    def _set_counts(self, k: NDArray, n: NDArray, empty: str) -> None:
        self.empty = _check_empty(empty)
        self.k = np.asarray(k, dtype=np.float64)
        self.n = np.asarray(n, dtype=np.float64)
        th, bel, pl = binomial_belief(self.k, self.n)
        self.prior_rate = self.model_frame.n_pos / self.model_frame.n
        fill = self.prior_rate if self.empty == "prior" else np.nan
        self._theta = np.where(self.n > 0, th, fill)
        self._bel = np.asarray(bel, dtype=np.float64)
        self._pl = np.asarray(pl, dtype=np.float64)
        self._cal_belief: pd.DataFrame | None = None

    # ------------------------------------------------------------------ to implement
    def _cells_of(self, X: NDArray[np.float64]) -> NDArray[np.intp]:
        """Cell index of each design row."""
        raise NotImplementedError

    def cell_of(self, newdata: pd.DataFrame, missing: str = "raise") -> pd.Series:
        """The cell index of each row of ``newdata`` (as in :meth:`tidy`; the cells of the calibration rows without ``newdata``), indexed like it."""
        X, index = self._design(newdata, missing)
        return pd.Series(self._cells_of(X), index=index, name="cell")

    # ------------------------------------------------------------------ facts
    @property
    def n_cells(self) -> int:
        """Number of cells."""
        return int(self.n.size)

    @property
    def n_empty(self) -> int:
        """Number of cells without calibration rows."""
        return int(np.count_nonzero(self.n == 0))

    @property
    def loglike(self) -> float:
        """Binomial log-likelihood at ``theta = k / n``: ``sum k log theta + (n-k) log(1-theta)``
        over the non-empty cells."""
        full = self.n > 0
        k, n = self.k[full], self.n[full]
        th = k / n
        return float(np.sum(xlogy(k, th) + xlogy(n - k, 1.0 - th)))

    @property
    def fittedvalues(self) -> pd.Series:
        """theta on the calibration rows (``k / n`` of their cell)."""
        return pd.Series(self._theta[self._cells_of(np.asarray(self.model_frame.X))],
                         index=self.model_frame.index, name="theta")

    # ------------------------------------------------------------------ protocol
    def _lookup(self, X: NDArray[np.float64]) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        c = self._cells_of(np.asarray(X, dtype=np.float64))
        th = self._theta[c]
        if self.empty == "nan":
            bad = int(np.count_nonzero(np.isnan(th)))
            if bad:
                warnings.warn(
                    f"{bad} of {th.size} rows fall in empty {self._cell_word}s (no calibration "
                    "rows): their probability k/n is undefined and returned as NaN (their belief "
                    "is vacuous, Bel = 0, Pl = 1); refit with empty='prior' to predict the "
                    "overall positive rate there, or use fewer bins",
                    EmptyCellWarning,
                    stacklevel=4,
                )
        return c, th

    def _prob_array(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._lookup(X)[1]

    def _belief_arrays(self, X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        c, th = self._lookup(X)
        return th, self._bel[c], self._pl[c]

    def _mean_ignorance(self) -> float:
        """Mean of Pl - Bel over the calibration rows (every row is in a non-empty cell)."""
        return float(np.sum(self.n * (self._pl - self._bel)) / np.sum(self.n))

    def _cell_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "k": self.k.astype(np.int64),
                "n": self.n.astype(np.int64),
                "theta": self._theta,
                "bel": self._bel,
                "pl": self._pl,
                "ignorance": self._pl - self._bel,
            }
        )

    def _verify_loaded(self, source: str) -> None:
        """The saved counts must be the counts of the saved calibration rows in the saved cells:
        every row is put in its cell again (``_cells_of``) and ``k``, ``n`` are recounted (a
        closed form, no estimation); a count moved between cells, or cuts moved so that rows
        change cells, is refused naming the cell."""
        super()._verify_loaded(source)
        mf = self.model_frame
        cells = self._cells_of(np.asarray(mf.X, dtype=np.float64))
        n = np.bincount(cells, minlength=self.n_cells).astype(np.float64)
        k = np.bincount(cells, weights=np.asarray(mf.y, dtype=np.float64), minlength=self.n_cells)
        for name, saved, counted in (("n", self.n, n), ("k", self.k, k)):
            bad = np.flatnonzero(saved != counted)
            if bad.size:
                c = int(bad[0])
                raise not_fitted(
                self,
                    source, f"count {name} of {self._cell_word} {c}",
                    f"the file says {int(saved[c])}, the saved calibration rows give {int(counted[c])}",
                )

    # ------------------------------------------------------------------ persistence
    # the counts are saved sparsely: the non-empty cells, their k and n (CountsState)
    @property
    def _full_cells(self) -> NDArray[np.intp]:
        return np.flatnonzero(self.n > 0)

    @property
    def _full_k(self) -> NDArray[np.int64]:
        return self.k[self.n > 0].astype(np.int64)

    @property
    def _full_n(self) -> NDArray[np.int64]:
        return self.n[self.n > 0].astype(np.int64)

    def _set_saved_counts(self, empty: str, n_cells: int, cells: Any, k: Any, n: Any) -> None:
        """The counts of a saved fit (:class:`CountsState`'s fields), made dense."""
        kk, nn = np.zeros(int(n_cells)), np.zeros(int(n_cells))
        at = np.asarray(cells, dtype=np.intp)
        kk[at] = np.asarray(k, dtype=float)
        nn[at] = np.asarray(n, dtype=float)
        self._set_counts(kk, nn, empty)

    @staticmethod
    def _counts_check(d: Mapping[str, Any], root: Any) -> str | None:
        cells, n_cells = d["cells"], d["n_cells"]
        if any(c >= n_cells for c in cells):
            return f"cells lists a cell >= n_cells = {n_cells}"
        if any(b <= a for a, b in zip(cells, cells[1:])):
            return "cells must be strictly increasing"
        bad = [i for i, (k, n) in enumerate(zip(d["k"], d["n"])) if k > n]
        if bad:
            return f"k[{bad[0]}] = {d['k'][bad[0]]} exceeds n[{bad[0]}] = {d['n'][bad[0]]} (positives in a cell)"
        rows = len(d["model_frame"]["y"])
        if sum(d["n"]) != rows:
            return f"the cell counts n sum to {sum(d['n'])}, but the model frame has {rows} rows"
        pos = sum(d["model_frame"]["y"])
        if sum(d["k"]) != pos:
            return f"the positive counts k sum to {sum(d['k'])}, but the model frame has {pos} positive rows"
        return None

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        return [cls._counts_check]


_IN_CELLS = schema.Ref("cells", "cells lists {n} cells")


@dataclass(frozen=True, kw_only=True)
class CountsState:
    """The saved counts of a :class:`CellCalibration` (evstat.io.state): the non-empty cells
    and their positive and total counts (the families' ``State`` extends it; checked by
    :meth:`CellCalibration._counts_check`)."""

    empty: str = saved(schema.Str(choices=list(_EMPTY)))
    n_cells: int = saved(schema.Int(min=1, max=MAX_CELLS))
    cells: list[int] = saved(schema.List(schema.Int(min=0), what="cells"), attribute="_full_cells")
    k: list[int] = saved(schema.List(schema.Int(min=0), length=_IN_CELLS), attribute="_full_k")
    n: list[int] = saved(schema.List(schema.Int(min=1), length=_IN_CELLS), attribute="_full_n")


# --------------------------------------------------------------------------------------------
# breaks
# --------------------------------------------------------------------------------------------


def _is_number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _resolve_bins(bins: Any, axes: list[str]) -> Sequence[int | None]:
    """Per-axis numbers of bins (None: not given)."""
    J = len(axes)
    if bins is None:
        return [None] * J
    if isinstance(bins, (numbers.Integral, np.integer)) and not isinstance(bins, bool):
        vals = [int(bins)] * J
    elif isinstance(bins, (Sequence, np.ndarray)) and not isinstance(bins, str):
        bins = list(np.asarray(bins).ravel()) if isinstance(bins, np.ndarray) else bins
        if len(bins) != J:
            raise ValueError(
                f"bins has {len(bins)} entries but the formula has {J} score axes {axes}: give "
                "one number of bins per axis, or a single int for all"
            )
        vals = []
        for b in bins:
            if not isinstance(b, (numbers.Integral, np.integer)) or isinstance(b, bool):
                raise TypeError(f"bins must be whole numbers >= 1, got {bins!r}")
            vals.append(int(b))
    else:
        raise TypeError(f"bins must be an int >= 1 or a sequence of them (one per axis), got {bins!r}")
    for a, b in zip(axes, vals):
        if b < 1:
            raise ValueError(f"bins must be >= 1 (got {b} for axis {a!r}): every axis needs at least one bin")
    return vals


def _resolve_breaks(breaks: Any, axes: list[str]) -> list[Any]:
    """Per-axis break specifications: "uniform", "quantile" or a 1-d float array of cuts."""
    J = len(axes)
    hint = (
        "breaks must be 'uniform', 'quantile', a sequence of interior cut points (one score "
        "axis), or a list with one entry per axis (each 'uniform', 'quantile' or a sequence of "
        "cut points), or a dict {axis: entry}"
    )
    if isinstance(breaks, str):
        specs: list[Any] = [breaks] * J
    elif isinstance(breaks, Mapping):
        unknown = [a for a in breaks if a not in axes]
        if unknown:
            raise ValueError(f"breaks names unknown axes {unknown}; the score axes are {axes}")
        specs = [breaks.get(a, "uniform") for a in axes]
    elif isinstance(breaks, (Sequence, np.ndarray)):
        items = list(breaks)
        if all(_is_number(x) for x in items):
            if J != 1:
                raise ValueError(
                    f"breaks {list(items)!r} is one sequence of cut points, but the formula has "
                    f"{J} score axes {axes}: give a list of {J} entries, one per axis"
                )
            specs = [items]
        else:
            if len(items) != J:
                raise ValueError(f"breaks has {len(items)} entries for {J} score axes {axes}; {hint}")
            specs = items
    else:
        raise TypeError(f"{hint}; got {breaks!r}")
    out: list[Any] = []
    for a, sp in zip(axes, specs):
        if isinstance(sp, str):
            if sp not in _BREAKS:
                raise ValueError(f"unknown breaks {sp!r} for axis {a!r}: {hint}")
            out.append(sp)
            continue
        if not isinstance(sp, (Sequence, np.ndarray)) or not all(_is_number(x) for x in sp):
            raise TypeError(f"breaks for axis {a!r} must be 'uniform', 'quantile' or a sequence of numbers, got {sp!r}")
        cuts = np.asarray(list(sp), dtype=np.float64)
        if not np.all(np.isfinite(cuts)):
            raise ValueError(f"cut points for axis {a!r} must be finite, got {cuts.tolist()}")
        if cuts.size > 1 and not np.all(np.diff(cuts) > 0):
            raise ValueError(f"cut points for axis {a!r} must be strictly increasing, got {cuts.tolist()}")
        out.append(cuts)
    return out


def _axis_cuts(values: NDArray, spec: Any, bins: int | None, axis: str) -> tuple[str, NDArray]:
    """(method, interior cut points) of one axis from the calibration values."""
    if not isinstance(spec, str):
        if bins is not None and bins != spec.size + 1:
            raise ValueError(
                f"axis {axis!r}: bins = {bins} disagrees with the {spec.size} cut points given "
                f"({spec.size + 1} bins); give one or the other"
            )
        return "given", spec
    B = _DEFAULT_BINS if bins is None else bins
    lo, hi = float(values.min()), float(values.max())
    if B == 1:
        return spec, np.zeros(0)
    if spec == "uniform":
        return spec, np.linspace(lo, hi, B + 1)[1:-1]
    q = np.quantile(values, np.arange(1, B) / B)
    cuts = np.unique(q)
    cuts = cuts[cuts < hi]
    if cuts.size < B - 1:
        warnings.warn(
            f"quantile breaks of axis {axis!r} coincide because of tied scores: using "
            f"{cuts.size + 1} bins instead of {B}",
            UserWarning,
            stacklevel=4,
        )
    return spec, cuts


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------


_PER_AXIS = schema.Ref("axes", "axes lists {n} axes")


class BinningCalibration(CellCalibration):
    """A fitted evidential (joint) binning calibration (returned by :func:`evbinning`).

    Attributes
    ----------
    axes : list of str
        The design columns binned, one axis each (the formula's terms without the intercept).
    cuts : dict
        Axis -> interior cut points (numpy array, increasing); bin ``b`` of an axis is
        ``(cuts[b-1], cuts[b]]``, the first bin extends to -Inf and the last to +Inf.
    breaks : dict
        Axis -> ``[calibration min, cuts..., calibration max]``.
    bins : list of int
        Bins per axis; the cells are their product, indexed in C order (first axis slowest).
    k, n : numpy.ndarray
        Positive and total calibration rows per cell.
    """

    method = "evbinning"
    capabilities = Capabilities(refit=True)

    def _refit(self, data: pd.DataFrame) -> BinningCalibration:
        """An axis cut ``"uniform"`` or ``"quantile"`` is cut again on ``data`` (its cut points
        move when a row lies outside the calibration range); an axis whose cut points were given
        keeps them."""
        breaks: list[Any] = [
            np.asarray(cuts) if how == "given" else how for how, cuts in zip(self.axis_methods, self.cuts.values())
        ]
        return evbinning(self.formula, data, bins=list(self.dims), breaks=breaks, empty=self.empty,
                         positive=self.positive)

    def __init__(
        self,
        mf: ModelFrame,
        bins: Any = None,
        breaks: Any = "uniform",
        empty: str = "nan",
        *,
        axes: Any = None,
        axis_methods: Any = None,
        cuts: Any = None,
        ranges: Any = None,
        n_cells: Any = None,
        cells: Any = None,
        k: Any = None,
        n: Any = None,
    ) -> None:
        super().__init__(mf)
        cols = score_axes(mf, "evbinning")
        self._cols = cols
        self.axes = [mf.terms[j] for j in cols]
        if axes is not None and list(axes) != self.axes:
            raise ValueError(f"the saved axes {list(axes)} are not the formula's score columns {self.axes}")
        X = np.asarray(mf.X)
        if cuts is None:
            _check_empty(empty)
            nb = _resolve_bins(bins, self.axes)
            specs = _resolve_breaks(breaks, self.axes)
            self.axis_methods: list[str] = []
            cuts_list: list[NDArray] = []
            for j, a, sp, b in zip(cols, self.axes, specs, nb):
                m, c = _axis_cuts(X[:, j], sp, b, a)
                self.axis_methods.append(m)
                cuts_list.append(c)
            self._cuts = cuts_list
            self._ranges = [(float(X[:, j].min()), float(X[:, j].max())) for j in cols]
            self.dims = tuple(c.size + 1 for c in cuts_list)
            total = int(np.prod(self.dims, dtype=object))
            if total > MAX_CELLS:
                raise ValueError(
                    f"{' x '.join(map(str, self.dims))} = {total} cells exceed the limit of "
                    f"{MAX_CELLS}: use fewer bins per axis or fewer score columns"
                )
            cells = self._cells_of(X)
            y = np.asarray(mf.y)
            k = np.bincount(cells, weights=y, minlength=total)
            n = np.bincount(cells, minlength=total).astype(np.float64)
            self._set_counts(np.round(k), n, empty)
        else:  # a saved fit (State): nothing is estimated
            self.axis_methods = list(axis_methods)
            self._cuts = [np.asarray(c, dtype=np.float64) for c in cuts]
            self._ranges = [(float(lo), float(hi)) for lo, hi in ranges]
            self.dims = tuple(c.size + 1 for c in self._cuts)
            self._set_saved_counts(empty, n_cells, cells, k, n)

    # ------------------------------------------------------------------ partition
    def _cells_of(self, X: NDArray[np.float64]) -> NDArray[np.intp]:
        idx = [np.searchsorted(c, X[:, j], side="left") for j, c in zip(self._cols, self._cuts)]
        if len(idx) == 1:
            return idx[0].astype(np.intp)
        return np.ravel_multi_index(idx, self.dims).astype(np.intp)

    @property
    def bins(self) -> list[int]:
        return list(self.dims)

    @property
    def cuts(self) -> dict[str, NDArray[np.float64]]:
        return {a: c.copy() for a, c in zip(self.axes, self._cuts)}

    @property
    def breaks(self) -> dict[str, NDArray[np.float64]]:
        return {a: np.concatenate([[lo], c, [hi]]) for a, c, (lo, hi) in zip(self.axes, self._cuts, self._ranges)}

    def _axis_labels(self) -> list[NDArray]:
        out = []
        for c in self._cuts:
            edges = np.concatenate([[-np.inf], c, [np.inf]])
            out.append(np.array([interval_label(edges[b], edges[b + 1]) for b in range(c.size + 1)], dtype=object))
        return out

    # ------------------------------------------------------------------ verbs
    def tidy(self) -> pd.DataFrame:
        """One row per cell: ``cell`` (index used by :meth:`cell_of`), one column per axis with
        its interval (right-closed; outer bins extend to -Inf/Inf), ``k``, ``n``, ``theta``
        (the probabilistic calibration, NaN in an empty cell unless ``empty="prior"``), ``bel``,
        ``pl`` and ``ignorance`` (= pl - bel)."""
        labels = self._axis_labels()
        grid = np.unravel_index(np.arange(self.n_cells), self.dims)
        out = pd.DataFrame({"cell": np.arange(self.n_cells)})
        for a, lab, g in zip(self.axes, labels, grid):
            out[a] = lab[g]
        return pd.concat([out, self._cell_frame()], axis=1)

    def glance(self) -> pd.DataFrame:
        """One-row model summary: method, nobs, n_pos, n_neg, n_axes, n_cells, n_empty,
        min_cell_n (smallest non-empty cell), loglik (binomial, at k/n), df (non-empty cells),
        aic (-2 loglik + 2 df), mean_ignorance (on the calibration rows)."""
        mf = self.model_frame
        df = int(np.count_nonzero(self.n > 0))
        return pd.DataFrame(
            [
                {
                    "method": self.method,
                    "nobs": mf.n,
                    "n_pos": mf.n_pos,
                    "n_neg": mf.n_neg,
                    "n_axes": len(self.axes),
                    "n_cells": self.n_cells,
                    "n_empty": self.n_empty,
                    "min_cell_n": int(self.n[self.n > 0].min()),
                    "loglik": self.loglike,
                    "df": df,
                    "aic": -2.0 * self.loglike + 2.0 * df,
                    "mean_ignorance": self._mean_ignorance(),
                }
            ]
        )

    def summary(self, max_cells: int = 64) -> Summary:
        """Summary: formula, axes and breaks, number of cells and empty cells, the table of
        cells (k, n, theta, Bel, Pl; at most ``max_cells`` rows, empty cells left out first)
        and the ignorance on the calibration rows."""
        s = self._summary_head("Evidential binning calibration (evbinning)")
        s.add_info("Cells", f"{self.n_cells} ({' x '.join(map(str, self.dims))}), {self.n_empty} empty")
        s.add_info(
            "Empty cells",
            "vacuous belief (Bel = 0, Pl = 1); probability "
            + ("NaN" if self.empty == "nan" else f"the overall rate {format_number(self.prior_rate)}"),
        )
        s.add_table(
            "Breaks (interior cut points; bins are right-closed, outer bins open to -Inf/Inf)",
            pd.DataFrame(
                {
                    "method": self.axis_methods,
                    "bins": list(self.dims),
                    "min": [r[0] for r in self._ranges],
                    "cut points": [", ".join(f"{v:.6g}" for v in c) or "-" for c in self._cuts],
                    "max": [r[1] for r in self._ranges],
                },
                index=self.axes,
            ),
            formatters={"cut points": str, "method": str, "min": _fmt6, "max": _fmt6},
        )
        t = self.tidy()
        notes = []
        if len(t) > max_cells:
            t = t[t["n"] > 0]
            notes.append(f"{self.n_empty} empty cells not shown.")
            if len(t) > max_cells:
                notes.append(f"Showing the first {max_cells} of {len(t)} non-empty cells; fit.tidy() has all.")
                t = t.iloc[:max_cells]
        tab = t.drop(columns=["cell", "ignorance"]).rename(columns={"bel": "Bel", "pl": "Pl"})
        tab.index = t["cell"].to_numpy()
        s.add_table("Cells", tab, notes=notes, formatters={a: str for a in self.axes})
        self._summary_ignorance(s)
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State(CountsState):
        """What a saved evbinning holds beyond its model frame (evstat.io.state)."""

        axes: list[str] = saved(schema.List(schema.Str(max_len=10_000), min_len=1, what="axes"))
        axis_methods: list[str] = saved(schema.List(schema.Str(max_len=100), length=_PER_AXIS, what="methods"))
        #: the interior cut points of every axis
        cuts: list[list[float]] = saved(schema.List(schema.List(schema.Float(), what="cuts"), length=_PER_AXIS,
                                                    what="axes"), attribute="_cuts",
                                        encode=lambda cs: [c.tolist() for c in cs])
        #: the calibration minimum and maximum of every axis
        ranges: list[list[float]] = saved(schema.List(schema.List(schema.Float(), length=2), length=_PER_AXIS,
                                                      what="axes"), attribute="_ranges",
                                          encode=lambda rs: [list(r) for r in rs])

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def cuts(d: Mapping[str, Any], root: Any) -> str | None:
            for a, c in zip(d["axes"], d["cuts"]):
                if any(b <= x for x, b in zip(c, c[1:])):
                    return f"the cuts of axis {a!r} must be strictly increasing"
            cells = 1
            for c in d["cuts"]:
                cells *= len(c) + 1
            if cells != d["n_cells"]:
                return f"n_cells is {d['n_cells']}, but the cuts give {cells} cells"
            return None

        return [cuts, cls._counts_check]

    def _verify_loaded(self, source: str) -> None:
        """The counts (:meth:`CellCalibration._verify_loaded`), then the ``ranges`` (the
        calibration minimum and maximum of every axis) and the cuts of the ``"uniform"`` and
        ``"quantile"`` axes, computed again from the saved calibration rows (cuts given by the
        user, ``"given"``, are settings and are not checked)."""
        super()._verify_loaded(source)
        X = np.asarray(self.model_frame.X, dtype=np.float64)
        for j, axis, method, cuts, rng in zip(self._cols, self.axes, self.axis_methods, self._cuts, self._ranges):
            v = X[:, j]
            if (float(v.min()), float(v.max())) != tuple(rng):
                raise not_fitted(
                self,
                    source, f"ranges of axis {axis!r}",
                    f"the file says {list(rng)}, the saved rows span [{float(v.min())!r}, {float(v.max())!r}]",
                )
            if method == "given":
                continue
            # quantile bins may have been merged by ties: the requested number is at least the kept one
            tries = [cuts.size + 1] if method == "uniform" else range(cuts.size + 1, cuts.size + 66)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if not any(np.array_equal(_axis_cuts(v, method, b, axis)[1], cuts) for b in tries):
                    raise not_fitted(
                self,
                        source, f"cuts of axis {axis!r}",
                        f"they are not the {method} cuts of the saved calibration rows",
                    )





def evbinning(
    formula: str,
    data: pd.DataFrame,
    bins: int | Sequence[int] | None = None,
    breaks: str | Sequence[Any] | Mapping[str, Any] = "uniform",
    empty: str = "nan",
    positive: Any = None,
    missing: str = "raise",
) -> BinningCalibration:
    """Evidential (joint) binning calibration of classifier scores.

    Every non-intercept design column of the formula is one axis (so ``y ~ svm1`` bins one
    score and ``y ~ svm1 + svm2 + svm3`` makes B^3 joint cells, Minary et al. 2019, section
    4.1); the intercept, present or not, plays no role. A cell with ``k`` positives among ``n``
    calibration rows predicts ``theta = k / n`` (eqs. 31, 46) and the belief of the binomial
    likelihood contour: Bel({1}) and Pl({1}) by the closed form of eqs. 27-30, 47-48, computed
    in log space (``n = 10**6`` works): ``k = 0`` gives Bel = 0, Pl = 1/(n+1); ``k = n`` gives
    Bel = n/(n+1), Pl = 1. An empty cell is vacuous: Bel = 0, Pl = 1.

    Parameters
    ----------
    formula : str
        ``"y ~ svm1"`` or ``"y ~ svm1 + svm2 + svm3"``; patsy terms such as ``np.log(s)`` are
        axes like any other design column.
    data : pandas.DataFrame
        Calibration data.
    bins : int or sequence of int, optional
        Bins per axis (default 3), one int for all axes or one per axis; at least 1.
    breaks : {"uniform", "quantile"}, sequence or dict
        ``"uniform"`` (default, as the paper): equal-width bins between the calibration
        minimum and maximum of the axis. ``"quantile"``: cut points at the ``b / B`` quantiles
        of the calibration values (numpy's default linear interpolation, R type 7); cut points
        that coincide because of ties are merged, with a warning. A sequence of numbers: the
        interior cut points of the single axis (then ``bins`` is implied). A list with one entry
        per axis, or a dict ``{axis: entry}``, mixes these per axis.
    empty : {"nan", "prior"}
        Probability predicted in an empty cell: NaN with an :class:`EmptyCellWarning` (default)
        or the overall positive rate of the calibration data. The belief there is vacuous
        either way.
    positive, missing
        As :func:`evstat.evlogit`.

    Returns
    -------
    BinningCalibration

    Notes
    -----
    Interval closure: bins are right-closed, ``(c_{b-1}, c_b]``, as R's ``cut(x, breaks,
    right = TRUE, include.lowest = TRUE)``: a score equal to a cut point falls in the lower
    bin, and the calibration minimum falls in the first bin. Test scores below the first or
    above the last cut point fall in the outer bins of that axis (the outer bins extend to
    -Inf and +Inf), so no test row is left without a cell. Cells are numbered in C order (the
    first axis varies slowest); :meth:`BinningCalibration.cell_of` gives a row's cell.

    Examples
    --------
    >>> import pandas as pd
    >>> import evstat as ev
    >>> cal = pd.DataFrame({"s": [0.0, 1, 2, 3, 4, 5], "y": [0, 0, 1, 0, 1, 1]})
    >>> fit = ev.evbinning("y ~ s", cal, bins=2)
    >>> fit.tidy()[["s", "k", "n", "theta"]]
                 s  k  n     theta
    0  (-Inf, 2.5]  1  3  0.333333
    1   (2.5, Inf)  2  3  0.666667
    >>> fit.predict(pd.DataFrame({"s": [-10.0, 2.5, 9.0]}), type="belief").round(4)
        theta     bel      pl
    0  0.3333  0.1042  0.6667
    1  0.3333  0.1042  0.6667
    2  0.6667  0.3333  0.8958
    """
    _check_empty(empty)
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return BinningCalibration(mf, bins=bins, breaks=breaks, empty=empty)


register(BinningCalibration, example=lambda y, d: evbinning(f"{y} ~ s1 + s2", d, bins=3, empty="prior"), fitter=evbinning)
