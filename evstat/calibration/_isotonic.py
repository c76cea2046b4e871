"""Isotonic calibration by pool-adjacent-violators: ``isotonic`` (Zadrozny and Elkan 2002).

The probabilistic calibration is the isotonic (non-decreasing) regression of the 0/1 labels on
one score, a step function found by the pool-adjacent-violators algorithm (PAV; Gebel 2009,
section 4.6, Algorithm 1). Its evidential version treats every PAV block as a bin: a block with
``k`` positives among ``n`` calibration rows has the binomial likelihood contour and the
closed-form Bel({1}), Pl({1}) of evidential binning (Minary et al. 2019, eqs. 27-30;
:class:`evstat.calibration.binning.CellCalibration`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from evstat.calibration.base import score_axes
from evstat.calibration.binning import CellCalibration, CountsState, interval_label
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved

__all__ = ["IsotonicCalibration", "isotonic", "pav_blocks"]


def pav_blocks(k: ArrayLike, n: ArrayLike) -> tuple[NDArray[np.intp], NDArray[np.int64], NDArray[np.int64]]:
    """Pool-adjacent-violators on grouped binary data, in exact integer arithmetic.

    ``k[i]`` positives among ``n[i] >= 1`` rows at the i-th smallest distinct score. Adjacent
    groups are pooled while the mean of the left one is greater than or equal to the mean of the
    right one (compared exactly as ``k1 n2 >= k2 n1``), so the resulting block means are
    strictly increasing: the blocks are the maximal runs on which the isotonic regression is
    constant (the level sets of the step function, as scikit-learn and scipy return them).

    Returns
    -------
    starts : numpy.ndarray of intp
        Index (into the groups) of the first group of each block.
    k_block, n_block : numpy.ndarray of int64
        Positives and rows per block; the fitted value of a block is ``k_block / n_block``.

    Examples
    --------
    Gebel (2009), Algorithm 1: labels 0 1 0 0 1 0 1 sorted by score.

    >>> starts, kb, nb = pav_blocks([0, 1, 0, 0, 1, 0, 1], [1] * 7)
    >>> starts.tolist(), kb.tolist(), nb.tolist()
    ([0, 1, 4, 6], [0, 1, 1, 1], [1, 3, 2, 1])
    """
    kk = [int(v) for v in np.asarray(k).ravel()]
    nn = [int(v) for v in np.asarray(n).ravel()]
    if len(kk) != len(nn):
        raise ValueError(f"k and n must have the same length, got {len(kk)} and {len(nn)}")
    ks: list[int] = []
    ns: list[int] = []
    st: list[int] = []
    for i, (ki, ni) in enumerate(zip(kk, nn)):
        if ni < 1 or not 0 <= ki <= ni:
            raise ValueError(f"group {i}: need 0 <= k <= n and n >= 1, got k = {ki}, n = {ni}")
        s = i
        while ks and ks[-1] * ni >= ki * ns[-1]:
            ki += ks.pop()
            ni += ns.pop()
            s = st.pop()
        ks.append(ki)
        ns.append(ni)
        st.append(s)
    return np.asarray(st, dtype=np.intp), np.asarray(ks, dtype=np.int64), np.asarray(ns, dtype=np.int64)


def _midpoint(a: NDArray, b: NDArray) -> NDArray:
    return a / 2.0 + b / 2.0  # no overflow for scores near the float limits


class IsotonicCalibration(CellCalibration):
    """A fitted isotonic calibration (returned by :func:`isotonic`).

    Attributes
    ----------
    score : str
        The design column calibrated.
    k, n : numpy.ndarray
        Positives and calibration rows per PAV block (in increasing score order).
    score_min, score_max : numpy.ndarray
        Smallest and largest calibration score of each block.
    cuts : numpy.ndarray
        Cut points between consecutive blocks (midpoints between the last score of a block
        and the first score of the next); block ``b`` predicts for scores in
        ``(cuts[b-1], cuts[b]]``, the first block down to -Inf, the last up to +Inf.
    """

    method = "isotonic"
    capabilities = Capabilities(refit=True, single_score=True, accepts=("decision",))

    def _refit(self, data: pd.DataFrame) -> IsotonicCalibration:
        return isotonic(self.formula, data, positive=self.positive)
    _cell_word = "block"

    def __init__(
        self,
        mf: ModelFrame,
        *,
        score: str | None = None,
        score_min: Any = None,
        score_max: Any = None,
        cuts: Any = None,
        empty: str = "nan",
        n_cells: Any = None,
        cells: Any = None,
        k: Any = None,
        n: Any = None,
    ) -> None:
        super().__init__(mf)
        cols = score_axes(mf, "isotonic")
        if len(cols) > 1:
            raise ValueError(
                f"isotonic calibrates one score, but formula {mf.formula!r} has "
                f"{len(cols)} score columns {[mf.terms[j] for j in cols]}: fit one score, "
                "e.g. 'y ~ svm1', or use ev.disjoint(..., method='isotonic') to calibrate each "
                "column and combine them, or ev.evbinning for joint cells"
            )
        self._col = cols[0]
        self.score = mf.terms[self._col]
        if score is not None and score != self.score:
            raise ValueError(f"the saved score {score!r} is not the formula's score column {self.score!r}")
        if cuts is None:
            s = np.asarray(mf.X)[:, self._col]
            y = np.asarray(mf.y)
            u, inv = np.unique(s, return_inverse=True)
            ku = np.bincount(inv, weights=y, minlength=u.size)
            nu = np.bincount(inv, minlength=u.size)
            starts, kb, nb = pav_blocks(np.round(ku), nu)
            ends = np.append(starts[1:], u.size) - 1
            self.score_min = u[starts]
            self.score_max = u[ends]
            self.cuts = _midpoint(self.score_max[:-1], self.score_min[1:])
            self._set_counts(kb, nb, "nan")
        else:  # a saved fit (State): nothing is estimated
            self.score_min = np.asarray(score_min, dtype=np.float64)
            self.score_max = np.asarray(score_max, dtype=np.float64)
            self.cuts = np.asarray(cuts, dtype=np.float64)
            self._set_saved_counts(empty, n_cells, cells, k, n)

    def _cells_of(self, X: NDArray[np.float64]) -> NDArray[np.intp]:
        return np.searchsorted(self.cuts, X[:, self._col], side="left").astype(np.intp)

    @property
    def n_blocks(self) -> int:
        """Number of PAV blocks."""
        return self.n_cells

    def block_of(self, newdata: pd.DataFrame, missing: str = "raise") -> pd.Series:
        """The block index of each row of ``newdata`` (as in :meth:`tidy`), indexed like it."""
        X, index = self._design(newdata, missing)
        return pd.Series(self._cells_of(X), index=index, name="block")

    def tidy(self) -> pd.DataFrame:
        """One row per PAV block, in increasing score order: ``block``, ``score_min`` and
        ``score_max`` (calibration scores in the block), ``interval`` (the scores it predicts
        for: right-closed, from the midpoint to the previous block to the midpoint to the next),
        ``k``, ``n``, ``theta`` (= k/n, the isotonic fit), ``bel``, ``pl``, ``ignorance``."""
        edges = np.concatenate([[-np.inf], self.cuts, [np.inf]])
        head = pd.DataFrame(
            {
                "block": np.arange(self.n_cells),
                "score_min": self.score_min,
                "score_max": self.score_max,
                "interval": [interval_label(edges[b], edges[b + 1]) for b in range(self.n_cells)],
            }
        )
        return pd.concat([head, self._cell_frame()], axis=1)

    def glance(self) -> pd.DataFrame:
        """One-row model summary: method, nobs, n_pos, n_neg, n_blocks, min_block_n, loglik
        (binomial, at the fitted values), mean_ignorance (on the calibration rows)."""
        mf = self.model_frame
        return pd.DataFrame(
            [
                {
                    "method": self.method,
                    "nobs": mf.n,
                    "n_pos": mf.n_pos,
                    "n_neg": mf.n_neg,
                    "n_blocks": self.n_blocks,
                    "min_block_n": int(self.n.min()),
                    "loglik": self.loglike,
                    "mean_ignorance": self._mean_ignorance(),
                }
            ]
        )

    def summary(self, max_blocks: int = 64) -> Summary:
        """Summary: formula, number of blocks, the table of blocks (score range, k, n, theta,
        Bel, Pl; at most ``max_blocks`` rows) and the ignorance on the calibration rows."""
        s = self._summary_head("Evidential isotonic calibration (isotonic)")
        s.add_info("Score", self.score)
        s.add_info("PAV blocks", str(self.n_blocks))
        s.add_info(
            "Prediction",
            "step function: a score takes the block of the nearest calibration score (cut at "
            "midpoints, right-closed); scores outside the calibration range take the end blocks",
        )
        t = self.tidy()
        notes = []
        if len(t) > max_blocks:
            notes.append(f"Showing the first {max_blocks} of {len(t)} blocks; fit.tidy() has all.")
            t = t.iloc[:max_blocks]
        tab = t.drop(columns=["block", "ignorance"]).rename(columns={"bel": "Bel", "pl": "Pl"})
        s.add_table("Blocks", tab, notes=notes, formatters={"interval": str})
        self._summary_ignorance(s)
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State(CountsState):
        """What a saved isotonic holds beyond its model frame (evstat.io.state): the blocks
        (cells) and their score ranges and cuts."""

        score: str = saved(schema.Str(max_len=10_000))
        score_min: list[float] = saved(schema.List(schema.Float(), what="blocks"))
        score_max: list[float] = saved(schema.List(schema.Float(), what="blocks"))
        cuts: list[float] = saved(schema.List(schema.Float(), what="cuts"))

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def blocks(d: Mapping[str, Any], root: Any) -> str | None:
            m = d["n_cells"]
            for key, want in (("score_min", m), ("score_max", m), ("cuts", m - 1)):
                if len(d[key]) != want:
                    return f"{key} has {len(d[key])} values, but n_cells = {m} blocks need {want}"
            c = d["cuts"]
            if any(b <= a for a, b in zip(c, c[1:])):
                return "cuts must be strictly increasing"
            return None

        return [blocks, cls._counts_check]

    def _verify_loaded(self, source: str) -> None:
        """The optimality conditions of the isotonic fit, on the saved calibration rows.

        After the recount of every block (:meth:`CellCalibration._verify_loaded`): each block's
        ``score_min``/``score_max`` are its smallest and largest calibration score and the cuts
        the midpoints between blocks; the block means ``k/n`` increase strictly (PAV pools
        equal means); and no block can be split: within a block every leading part has a mean
        of at least the block's (the Karush-Kuhn-Tucker condition of the least-squares
        monotone fit: a leading part with a lower mean would make a better monotone fit as its
        own block). A closed form in one pass, no PAV run."""
        super()._verify_loaded(source)
        s = np.asarray(self.model_frame.X, dtype=np.float64)[:, self._col]
        y = np.asarray(self.model_frame.y, dtype=np.float64)
        cells = self._cells_of(np.asarray(self.model_frame.X, dtype=np.float64))
        lo = np.full(self.n_cells, np.inf)
        hi = np.full(self.n_cells, -np.inf)
        np.minimum.at(lo, cells, s)
        np.maximum.at(hi, cells, s)
        for name, saved, derived in (("score_min", self.score_min, lo), ("score_max", self.score_max, hi)):
            bad = np.flatnonzero(saved != derived)
            if bad.size:
                b = int(bad[0])
                raise not_fitted(self, source, f"{name} of block {b}",
                                       f"the file says {saved[b]!r}, the saved rows give {derived[b]!r}")
        if not np.array_equal(self.cuts, _midpoint(self.score_max[:-1], self.score_min[1:])):
            raise not_fitted(self, source, "cuts", "they are not the midpoints between the blocks")
        mean = self.k / self.n
        up = np.flatnonzero(np.diff(mean) <= 0)
        if up.size:
            b = int(up[0])
            raise not_fitted(self, source, f"k/n of blocks {b} and {b + 1}",
                                   f"{mean[b]:.6g} then {mean[b + 1]:.6g}: an isotonic fit increases strictly")
        # leading parts of each block, at the distinct scores (tied scores are pooled first)
        order = np.lexsort((s, cells))
        sc, yc, cc = s[order], y[order], cells[order]
        last = np.flatnonzero((np.diff(cc) != 0) | (np.diff(sc) != 0))  # end of each tie group
        cum_y, cum_n = np.cumsum(yc), np.arange(1, yc.size + 1, dtype=np.float64)
        start = np.concatenate([[0], np.flatnonzero(np.diff(cc) != 0) + 1])
        base_y = np.concatenate([[0.0], cum_y])[start][cc]  # rows of earlier blocks
        base_n = np.concatenate([[0.0], cum_n])[start][cc]
        part_y, part_n = (cum_y - base_y)[last], (cum_n - base_n)[last]
        inner = part_n < self.n[cc[last]]  # proper leading parts only
        b_of = cc[last]
        low = inner & (part_y * self.n[b_of] < self.k[b_of] * part_n)  # counts: exact in floats
        if low.any():
            b = int(cc[last][np.flatnonzero(low)[0]])
            raise not_fitted(self, source, f"block {b}",
                                   "a leading part of it has a lower mean than the block: PAV would split it")





def isotonic(
    formula: str,
    data: pd.DataFrame,
    positive: Any = None,
    missing: str = "raise",
) -> IsotonicCalibration:
    """Isotonic calibration of one score (PAV), probabilistic and evidential.

    The probabilistic calibration is the non-decreasing step function fitted to the 0/1 labels
    by pool-adjacent-violators (Zadrozny and Elkan 2002; Gebel 2009, Algorithm 1). Tied scores
    are pooled first (they share one fitted value, scikit-learn's ``IsotonicRegression`` and R's
    ``isoreg`` on the aggregated data do the same), and adjacent blocks with equal means are
    pooled too, so the blocks are the maximal runs of constant fitted value. The evidential
    version treats each block as a bin: ``k`` positives among ``n`` rows give the binomial
    contour and Bel({1}), Pl({1}) in closed form (Minary et al. 2019, eqs. 27-30).

    Parameters
    ----------
    formula : str
        One score: ``"y ~ svm1"`` (the intercept plays no role). For a score that decreases
        with the positive class write ``"y ~ I(-s)"``.
    data : pandas.DataFrame
        Calibration data.
    positive, missing
        As :func:`evstat.evlogit`.

    Returns
    -------
    IsotonicCalibration

    Notes
    -----
    Prediction rule for new scores: a score takes the block of the nearest calibration score.
    A score between the last calibration score ``a`` of one block and the first score ``b`` of
    the next goes to the lower block up to and including the midpoint ``(a + b) / 2`` and to the
    upper block above it (right-closed intervals, as evbinning). Scores below the smallest or
    above the largest calibration score take the first or last block. On the calibration
    scores this equals scikit-learn's ``IsotonicRegression`` (which interpolates linearly
    between calibration scores instead of stepping).

    Examples
    --------
    >>> import pandas as pd
    >>> import evstat as ev
    >>> cal = pd.DataFrame({"s": [1.0, 2, 3, 4, 5, 6, 7], "y": [0, 1, 0, 0, 1, 0, 1]})
    >>> fit = ev.isotonic("y ~ s", cal)
    >>> fit.fittedvalues.round(4).tolist()
    [0.0, 0.3333, 0.3333, 0.3333, 0.5, 0.5, 1.0]
    >>> fit.tidy()[["score_min", "score_max", "k", "n", "bel", "pl"]].round(4)
       score_min  score_max  k  n     bel      pl
    0        1.0        1.0  0  1  0.0000  0.5000
    1        2.0        4.0  1  3  0.1042  0.6667
    2        5.0        6.0  1  2  0.1667  0.8333
    3        7.0        7.0  1  1  0.5000  1.0000
    """
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return IsotonicCalibration(mf)


register(IsotonicCalibration, example=lambda y, d: isotonic(f"{y} ~ s1", d), fitter=isotonic)
