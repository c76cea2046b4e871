"""Batches of mass functions on one frame, stored as an (n, 2**K) array."""

from __future__ import annotations

import html
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.belief import _ops
from evstat.belief import transforms as tr
from evstat.belief._checks import (
    ROUND_TOL,
    _is_mapping,
    _rows_text,
    check_alpha,
    check_mass_matrix,
    mapping_to_columns,
)
from evstat.belief._base import MassBase
from evstat.belief.combination import combine
from evstat.belief.frame import Frame, SubsetLike, as_frame
from evstat.belief.measures import conflict
from evstat.belief.mass import MassFunction

__all__ = ["MassArray", "BINARY_FRAME"]

#: The frame {0, 1} of binary calibration (label 1 = the positive class).
BINARY_FRAME = Frame([0, 1])

_REPR_ROWS = 10


def _column_names(frame: Frame) -> list[str]:
    """Column names of :meth:`MassArray.to_frame`, by bitmask (entry 0: the empty set)."""
    if [str(x) for x in frame.labels] == ["0", "1"]:
        return ["m_empty", "m0", "m1", "m01"]
    names = ["m({})"]
    names += [f"m({frame.format(c, is_mask=True)})" for c in range(1, frame.n_subsets)]
    return names


def _as_index(index: Any, n: int) -> pd.Index | None:
    if index is None:
        return None
    idx = index if isinstance(index, pd.Index) else pd.Index(index)
    if len(idx) != n:
        raise ValueError(
            f"index has {len(idx)} entries but there are {n} mass functions; give one index "
            "label per row (or index=None)."
        )
    return idx


def _column(x: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numeric (a number or a 1-D array of numbers).") from None
    if arr.ndim > 1:
        raise ValueError(f"{name} must be 1-D (one value per mass function); got shape {arr.shape}.")
    return arr


def _series_index(*cols: Any) -> pd.Index | None:
    idx = None
    for c in cols:
        if isinstance(c, pd.Series):
            if idx is None:
                idx = c.index
            elif not c.index.equals(idx):
                raise ValueError(
                    "The Series given as columns have different indexes; align them first (for "
                    "example with .reindex) or pass plain arrays and index=."
                )
    return idx


class MassArray(MassBase):
    """A batch of ``n`` mass functions on one frame, stored as an ``(n, 2**K)`` array.

    This is what calibrators return for ``predict(type="mass")``. Transforms and combination
    rules are vectorised over the rows; ``ma[i]`` is the :class:`MassFunction` of row ``i``.

    Parameters
    ----------
    frame : Frame or iterable of labels
        The frame of discernment shared by all rows.
    masses : array-like or mapping
        Either an ``(n, 2**K)`` array (columns in bitmask order, column 0 the empty set), or a
        mapping ``{subset: column}`` whose columns are 1-D arrays of length ``n`` (scalars are
        broadcast; unlisted subsets get mass 0).
    index : array-like or pandas.Index, optional
        Row labels carried along to DataFrame results (``to_frame``, ``betp``, ...). Defaults to
        the index of the Series given as columns, if any.
    unnormalized : bool, default False
        Allow mass on the empty set.

    Raises
    ------
    ValueError
        As :class:`MassFunction`, naming the offending rows.

    Examples
    --------
    >>> ma = MassArray.from_binary(m0=[0.1, 0.6], m1=[0.7, 0.0], m01=[0.2, 0.4])
    >>> ma
    MassArray: 2 mass functions on {0, 1}
        m0   m1  m01
    0  0.1  0.7  0.2
    1  0.6  0.0  0.4
    >>> ma.bel(1), ma.pl(1)
    (array([0.7, 0. ]), array([0.9, 0.4]))
    >>> ma[0]
    MassFunction on {0, 1}
      {0}     0.1
      {1}     0.7
      {0, 1}  0.2
    """

    batch: ClassVar[Literal[True]] = True

    __slots__ = ("_frame", "_values", "_index")

    def __init__(
        self,
        frame: Frame | Iterable[Hashable],
        masses: ArrayLike | Mapping[SubsetLike, ArrayLike],
        *,
        index: ArrayLike | pd.Index | None = None,
        unnormalized: bool = False,
    ) -> None:
        fr = as_frame(frame)
        size = fr.n_subsets
        if _is_mapping(masses):
            cols = mapping_to_columns(fr, masses, "masses")
            if index is None:
                index = _series_index(*cols.values())
            arrs = {m: _column(v, f"the column for {fr.format(m, is_mask=True)}") for m, v in cols.items()}
            try:
                shape = np.broadcast_shapes(*(a.shape for a in arrs.values())) if arrs else (0,)
            except ValueError:
                lens = sorted({a.shape[0] for a in arrs.values() if a.ndim == 1})
                raise ValueError(
                    f"The mass columns have different lengths {lens}; give one value per row in "
                    "every column."
                ) from None
            n = shape[0] if len(shape) == 1 else 1
            vals = np.zeros((n, size))
            for m, a in arrs.items():
                vals[:, m] = a
        else:
            if isinstance(masses, pd.DataFrame) and index is None:
                index = masses.index
            try:
                vals = np.array(masses, dtype=np.float64)
            except (TypeError, ValueError):
                raise TypeError(
                    "masses must be an (n, 2**K) numeric array or a mapping {subset: column}; "
                    f"got {type(masses).__name__}."
                ) from None
            if vals.ndim != 2 or vals.shape[1] != size:
                raise ValueError(
                    f"masses has shape {vals.shape}, but a batch of mass functions on {fr!r} "
                    f"needs shape (n, {size}): one row per mass function, one column per subset "
                    "in bitmask order."
                )
        idx = _as_index(index, vals.shape[0])
        check_mass_matrix(vals, fr, unnormalized=unnormalized, single=False, index=idx)
        self._init(fr, vals, idx)

    def _init(self, frame: Frame, values: np.ndarray, index: pd.Index | None) -> None:
        values.setflags(write=False)
        self._frame = frame
        self._values = values
        self._index = index

    @classmethod
    def _from_values(
        cls, frame: Frame, values: np.ndarray, index: pd.Index | None = None
    ) -> MassArray:
        """Wrap computed masses without validation (round-off negatives set to 0)."""
        obj = cls.__new__(cls)
        v = np.array(values, dtype=np.float64)
        v[(v < 0) & (v >= -ROUND_TOL)] = 0.0
        obj._init(frame, v, index)
        return obj

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_binary(
        cls,
        m0: ArrayLike,
        m1: ArrayLike,
        m01: ArrayLike,
        *,
        index: ArrayLike | pd.Index | None = None,
    ) -> MassArray:
        """Mass functions on the binary frame ``{0, 1}`` from the columns ``m({0})``, ``m({1})``,
        ``m({0, 1})`` (scalars broadcast; Series lend their index).

        Examples
        --------
        >>> MassArray.from_binary(m0=0.2, m1=[0.5, 0.8], m01=[0.3, 0.0]).values
        array([[0. , 0.2, 0.5, 0.3],
               [0. , 0.2, 0.8, 0. ]])
        """
        if index is None:
            index = _series_index(m0, m1, m01)
        c0, c1, c01 = _column(m0, "m0"), _column(m1, "m1"), _column(m01, "m01")
        try:
            c0, c1, c01 = np.broadcast_arrays(c0, c1, c01)
        except ValueError:
            raise ValueError(
                f"m0, m1 and m01 have different lengths ({c0.size}, {c1.size}, {c01.size}); give "
                "one value per row in each."
            ) from None
        n = 1 if c0.ndim == 0 else c0.shape[0]
        vals = np.zeros((n, 4))
        vals[:, 1], vals[:, 2], vals[:, 3] = c0, c1, c01
        idx = _as_index(index, n)
        check_mass_matrix(vals, BINARY_FRAME, unnormalized=False, single=False, index=idx)
        obj = cls.__new__(cls)
        obj._init(BINARY_FRAME, vals, idx)
        return obj

    @classmethod
    def from_bel_pl(
        cls,
        bel: ArrayLike,
        pl: ArrayLike,
        *,
        index: ArrayLike | pd.Index | None = None,
        labels: Sequence[Hashable] | None = None,
    ) -> MassArray:
        """Binary mass functions from ``Bel({1})`` and ``Pl({1})``:
        ``m({1}) = bel``, ``m({0}) = 1 - pl``, ``m({0, 1}) = pl - bel``.

        ``labels = (negative, positive)`` names the two elements (default ``(0, 1)``), e.g. a
        calibrator's response classes.

        Examples
        --------
        >>> MassArray.from_bel_pl(bel=[0.6, 0.1], pl=[0.9, 0.3]).to_frame()
            m0   m1  m01
        0  0.1  0.6  0.3
        1  0.7  0.1  0.2
        """
        if index is None:
            index = _series_index(bel, pl)
        b, p = np.broadcast_arrays(_column(bel, "bel"), _column(pl, "pl"))
        b, p = np.atleast_1d(b), np.atleast_1d(p)
        idx = _as_index(index, b.shape[0])
        for name, arr in (("bel", b), ("pl", p)):
            bad = ~np.isfinite(arr) | (arr < -ROUND_TOL) | (arr > 1 + ROUND_TOL)
            if bad.any():
                raise ValueError(
                    f"{name} must be finite and in [0, 1]; it is not in "
                    f"{_rows_text(np.flatnonzero(bad), idx)}."
                )
        bad = b > p + ROUND_TOL
        if bad.any():
            raise ValueError(
                f"bel exceeds pl in {_rows_text(np.flatnonzero(bad), idx)}; a belief interval "
                "needs Bel({1}) <= Pl({1})."
            )
        vals = np.zeros((b.shape[0], 4))
        vals[:, 1] = 1.0 - p
        vals[:, 2] = b
        vals[:, 3] = p - b
        vals[(vals < 0) & (vals >= -2 * ROUND_TOL)] = 0.0
        frame = BINARY_FRAME if labels is None else as_frame(list(labels))
        if labels is not None and frame.size != 2:
            raise ValueError(f"labels must name the two elements (negative, positive); got {list(labels)!r}.")
        return cls._from_values(frame, vals, idx)

    @classmethod
    def from_masses(
        cls,
        masses: Sequence[MassFunction],
        *,
        index: ArrayLike | pd.Index | None = None,
    ) -> MassArray:
        """Stack mass functions on one frame into a batch.

        Examples
        --------
        >>> f = Frame(["a", "b"])
        >>> MassArray.from_masses([MassFunction.vacuous(f), MassFunction.categorical(f, "a")])
        MassArray: 2 mass functions on {a, b}
           m({a})  m({b})  m({a, b})
        0     0.0     0.0        1.0
        1     1.0     0.0        0.0
        """
        masses = list(masses)
        if not masses:
            raise ValueError("from_masses needs at least one MassFunction.")
        frame = masses[0].frame
        for i, m in enumerate(masses):
            if not isinstance(m, MassFunction):
                raise TypeError(f"Element {i} is a {type(m).__name__}, not a MassFunction.")
            frame._check_same(m.frame)
        vals = np.stack([m.values for m in masses])
        return cls._from_values(frame, vals, _as_index(index, len(masses)))

    @classmethod
    def vacuous(
        cls,
        frame: Frame | Iterable[Hashable],
        n: int,
        *,
        index: ArrayLike | pd.Index | None = None,
    ) -> MassArray:
        """``n`` vacuous mass functions (all mass on the whole frame).

        Examples
        --------
        >>> MassArray.vacuous([0, 1], 2).ignorance
        array([1., 1.])
        """
        fr = as_frame(frame)
        vals = np.zeros((int(n), fr.n_subsets))
        vals[:, -1] = 1.0
        return cls._from_values(fr, vals, _as_index(index, int(n)))

    # ------------------------------------------------------------------ basic access
    @property
    def frame(self) -> Frame:
        """The frame shared by all rows."""
        return self._frame

    @property
    def values(self) -> np.ndarray:
        """Read-only ``(n, 2**K)`` array of masses (columns in bitmask order)."""
        return self._values

    @property
    def index(self) -> pd.Index | None:
        """The row labels given by the user, or None."""
        return self._index

    def _row_index(self) -> pd.Index:
        return self._index if self._index is not None else pd.RangeIndex(len(self))

    def __len__(self) -> int:
        return self._values.shape[0]

    def __iter__(self) -> Iterator[MassFunction]:
        for i in range(len(self)):
            yield MassFunction._from_values(self._frame, self._values[i])

    def __getitem__(self, key: Any) -> MassFunction | MassArray:
        """``ma[i]`` (an integer position) gives a MassFunction; slices, integer arrays and
        boolean masks give a MassArray (the index follows)."""
        if isinstance(key, (int, np.integer)):
            n = len(self)
            i = int(key)
            if not -n <= i < n:
                raise IndexError(f"Row {i} is out of range for a MassArray of {n} rows.")
            return MassFunction._from_values(self._frame, self._values[i])
        rows: slice | np.ndarray
        if isinstance(key, slice):
            rows = key
        else:
            rows = np.asarray(key)
            if rows.dtype != bool and not np.issubdtype(rows.dtype, np.integer):
                raise TypeError(
                    "Index a MassArray by integer position, slice, integer array or boolean mask; "
                    f"got {type(key).__name__}. For labels, use ma[ma.index.get_indexer(labels)]."
                )
            if rows.dtype == bool and rows.shape != (len(self),):
                raise IndexError(
                    f"Boolean mask has shape {rows.shape}; the MassArray has {len(self)} rows."
                )
        idx = None if self._index is None else self._index[rows]
        return MassArray._from_values(self._frame, self._values[rows], idx)

    @property
    def ignorance(self) -> np.ndarray:
        """``m(Omega)`` per row (on ``{0, 1}``: ``Pl({1}) - Bel({1})``)."""
        return self._values[:, -1].copy()

    def to_frame(self, *, focal_only: bool = False) -> pd.DataFrame:
        """Masses as a DataFrame, one row per mass function, indexed by ``index``.

        Columns: ``m0, m1, m01`` on the binary frame ``{0, 1}``, else ``m({a})``, ``m({a, b})``,
        ... in bitmask order; the empty set (``m_empty`` / ``m({})``) appears only if some row
        has mass on it. ``focal_only=True`` drops subsets with zero mass in every row.

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.5], m1=[0.5], m01=[0.0], index=["r1"]).to_frame()
             m0   m1  m01
        r1  0.5  0.5  0.0
        """
        names = _column_names(self._frame)
        v = self._values
        keep = np.ones(v.shape[1], dtype=bool)
        keep[0] = bool(v[:, 0].any())
        if focal_only:
            keep &= v.any(axis=0)
        cols = np.flatnonzero(keep)
        return pd.DataFrame(v[:, cols], index=self._row_index(), columns=[names[c] for c in cols])

    def _labels_frame(self, arr: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame(arr, index=self._row_index(), columns=pd.Index(self._frame.labels))

    # ------------------------------------------------------------------ set functions
    def bel(self, subset: SubsetLike) -> np.ndarray:
        """Belief of a subset for every row, shape (n,).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1, 0.3], m1=[0.6, 0.2], m01=[0.3, 0.5]).bel(1)
        array([0.6, 0.2])
        """
        return _ops.sum_cols(self._values, _ops.cols_bel(self._frame, self._frame.mask(subset)))

    def pl(self, subset: SubsetLike) -> np.ndarray:
        """Plausibility of a subset for every row, shape (n,).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1, 0.3], m1=[0.6, 0.2], m01=[0.3, 0.5]).pl(1)
        array([0.9, 0.7])
        """
        return _ops.sum_cols(self._values, _ops.cols_pl(self._frame, self._frame.mask(subset)))

    def q(self, subset: SubsetLike) -> np.ndarray:
        """Commonality of a subset for every row, shape (n,).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1, 0.3], m1=[0.6, 0.2], m01=[0.3, 0.5]).q([0, 1])
        array([0.3, 0.5])
        """
        return _ops.sum_cols(self._values, _ops.cols_q(self._frame, self._frame.mask(subset)))

    def bel_array(self) -> np.ndarray:
        """Belief of every subset, shape (n, 2**K) (fast Moebius transform).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.6], m01=[0.3]).bel_array()
        array([[0. , 0.1, 0.6, 1. ]])
        """
        return tr.mass_to_bel(self._values)

    def pl_array(self) -> np.ndarray:
        """Plausibility of every subset, shape (n, 2**K).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.6], m01=[0.3]).pl_array()
        array([[0. , 0.4, 0.9, 1. ]])
        """
        return tr.mass_to_pl(self._values)

    def q_array(self) -> np.ndarray:
        """Commonality of every subset, shape (n, 2**K).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.6], m01=[0.3]).q_array()
        array([[1. , 0.4, 0.9, 0.3]])
        """
        return tr.mass_to_q(self._values)

    def b_array(self) -> np.ndarray:
        """Implicability of every subset, shape (n, 2**K).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.6], m01=[0.3]).b_array()
        array([[0. , 0.1, 0.6, 1. ]])
        """
        return tr.mass_to_b(self._values)

    def contour(self) -> pd.DataFrame:
        """Plausibility of each singleton: DataFrame (n rows, one column per label).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.6], m01=[0.3]).contour()
             0    1
        0  0.4  0.9
        """
        return self._labels_frame(_ops.contour(self._values, self._frame))

    def betp(self) -> pd.DataFrame:
        """Pignistic probabilities: DataFrame (n rows, one column per label).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.7], m01=[0.2]).betp()
             0    1
        0  0.2  0.8
        """
        return self._labels_frame(_ops.betp(self._values, self._frame))

    def plausibility_transform(self) -> pd.DataFrame:
        """Normalised contour: DataFrame (n rows, one column per label).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.4], m01=[0.5]).plausibility_transform()
             0    1
        0  0.4  0.6
        """
        return self._labels_frame(_ops.plausibility_transform(self._values, self._frame))

    # ------------------------------------------------------------------ operations
    def normalize(self) -> MassArray:
        """Dempster normalisation of every row.

        Examples
        --------
        >>> MassArray([0, 1], [[0.5, 0.25, 0.0, 0.25]], unnormalized=True).normalize().values
        array([[0. , 0.5, 0. , 0.5]])
        """
        return MassArray._from_values(self._frame, _ops.normalize(self._values), self._index)

    def discount(self, alpha: float | ArrayLike) -> MassArray:
        """Shafer discounting of every row with reliability ``alpha`` (scalar or one per row);
        see :meth:`MassFunction.discount`.

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.4, 0.4], m1=[0.6, 0.6], m01=0.0).discount([1.0, 0.5]).ignorance
        array([0. , 0.5])
        """
        a = check_alpha(alpha, len(self))
        return MassArray._from_values(self._frame, _ops.discount(self._values, a), self._index)

    def nonspecificity(self) -> np.ndarray:
        """Generalised Hartley measure of every row (bits), shape (n,).

        Examples
        --------
        >>> MassArray.from_binary(m0=[0.1], m1=[0.6], m01=[0.3]).nonspecificity()
        array([0.3])
        """
        return _ops.nonspecificity(self._values, self._frame)

    def conflict(self, other: MassArray | MassFunction) -> np.ndarray:
        """Degree of conflict with ``other`` row by row, shape (n,).

        Examples
        --------
        >>> a = MassArray.from_binary(m0=[1.0, 0.0], m1=[0.0, 1.0], m01=0.0)
        >>> a.conflict(MassFunction([0, 1], {1: 0.5, (0, 1): 0.5}))
        array([0.5, 0. ])
        """
        return np.asarray(conflict(self, other))

    def combine(self, *others: MassArray | MassFunction, rule: str = "dempster") -> MassArray:
        """Combine row by row; see :func:`evstat.belief.combine`.

        Examples
        --------
        >>> a = MassArray.from_binary(m0=[0.6, 0.0], m1=[0.0, 0.5], m01=[0.4, 0.5])
        >>> b = MassArray.from_binary(m0=[0.0, 0.0], m1=[0.5, 0.5], m01=[0.5, 0.5])
        >>> a.combine(b).to_frame().round(4)
               m0      m1     m01
        0  0.4286  0.2857  0.2857
        1  0.0000  0.7500  0.2500
        """
        out = combine(self, *others, rule=rule)
        assert isinstance(out, MassArray)
        return out

    # ------------------------------------------------------------------ display
    def _title(self) -> str:
        fr = self._frame.format(self._frame.omega, is_mask=True)
        return f"{len(self)} mass functions on {fr}"

    def __repr__(self) -> str:
        body = self.to_frame().to_string(max_rows=_REPR_ROWS)
        return f"MassArray: {self._title()}\n{body}"

    def _repr_html_(self) -> str:
        table = self.to_frame().to_html(max_rows=_REPR_ROWS)
        return f"<div><strong>MassArray</strong>: {html.escape(self._title())}{table}</div>"
