"""Mass functions (basic belief assignments) on a finite frame."""

from __future__ import annotations

import html
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, ClassVar, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.belief import _ops
from evstat.belief import transforms as tr
from evstat.belief._checks import (
    ROUND_TOL,
    _is_mapping,
    as_mass_row,
    check_alpha,
    check_mass_matrix,
    mapping_to_columns,
)
from evstat.belief._base import MassBase
from evstat.belief.combination import combine
from evstat.belief.frame import Frame, SubsetLike, as_frame
from evstat.belief.measures import conflict

__all__ = ["MassFunction"]

_REPR_MAX = 20


def _setfunction_row(frame: Frame, values: Any, name: str, empty_value: float) -> np.ndarray:
    """A full set function (all 2**K values) from an array or a mapping {subset: value}."""
    size = frame.n_subsets
    if _is_mapping(values):
        cols = mapping_to_columns(frame, values, name)
        missing = [m for m in range(1, size) if m not in cols]
        if missing:
            shown = ", ".join(frame.format(m, is_mask=True) for m in missing[:5])
            raise ValueError(
                f"The {name} function must give a value for every non-empty subset; missing "
                f"{len(missing)} of them, e.g. {shown}."
            )
        vec = np.array([float(cols.get(m, empty_value)) for m in range(size)])
    else:
        vec = np.array(values, dtype=np.float64)
        if vec.shape != (size,):
            raise ValueError(
                f"The {name} array has shape {vec.shape}, but the frame {frame!r} needs {size} "
                "values (one per subset, in bitmask order)."
            )
    if not np.isfinite(vec).all():
        raise ValueError(f"The {name} function contains NaN or infinite values.")
    return vec


def _from_transform(
    frame: Frame, masses: np.ndarray, name: str, unnormalized: bool
) -> MassFunction:
    bad = masses < -1e-9
    if bad.any():
        c = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"The given {name} function is not the {name} function of a mass function: its "
            f"Moebius inverse gives mass {masses[c]:.6g} < 0 to {frame.format(c, is_mask=True)}."
        )
    masses[masses < 0] = 0.0
    return MassFunction(frame, masses, unnormalized=unnormalized)


class MassFunction(MassBase):
    """A mass function (basic belief assignment) on a finite frame.

    Parameters
    ----------
    frame : Frame or iterable of labels
        The frame of discernment.
    masses : mapping or array-like
        Either ``{subset: mass}``, each subset given as a label, an iterable of labels or a
        frozenset (unlisted subsets get mass 0), or a dense array of ``2**K`` masses in the
        bitmask order of the frame (entry 0 is the empty set, the last the whole frame).
    unnormalized : bool, default False
        Allow mass on the empty set (open-world, Smets' convention). Otherwise ``m(empty) > 0``
        raises.

    Raises
    ------
    ValueError
        For negative, NaN or infinite masses, masses not summing to 1 (tolerance 1e-9), labels
        not in the frame, a subset given twice, or mass on the empty set without
        ``unnormalized=True``. Negative values down to -1e-12 are taken as round-off and set to 0.

    Notes
    -----
    Definitions (for unnormalised functions too): ``bel(A) = sum_{empty != B subset of A} m(B)``,
    ``pl(A) = sum_{B cap A != empty} m(B)``, ``q(A) = sum_{B superset of A} m(B)``.

    Examples
    --------
    >>> m = MassFunction(["a", "b", "c"], {"a": 0.5, ("a", "b"): 0.3, ("a", "b", "c"): 0.2})
    >>> m
    MassFunction on {a, b, c}
      {a}        0.5
      {a, b}     0.3
      {a, b, c}  0.2
    >>> m.bel(["a", "b"]), m.pl("b"), m.q("a")
    (0.8, 0.5, 1.0)
    >>> m.betp().round(4).to_dict()
    {'a': 0.7167, 'b': 0.2167, 'c': 0.0667}
    """

    batch: ClassVar[Literal[False]] = False

    __slots__ = ("_frame", "_values")

    def __init__(
        self,
        frame: Frame | Iterable[Hashable],
        masses: Mapping[SubsetLike, float] | ArrayLike,
        *,
        unnormalized: bool = False,
    ) -> None:
        fr = as_frame(frame)
        vec = as_mass_row(fr, masses)
        vals = check_mass_matrix(vec[None, :], fr, unnormalized=unnormalized, single=True)[0]
        self._init(fr, vals)

    def _init(self, frame: Frame, values: np.ndarray) -> None:
        values = np.array(values, dtype=np.float64)
        values.setflags(write=False)
        self._frame = frame
        self._values = values

    @classmethod
    def _from_values(cls, frame: Frame, values: np.ndarray) -> MassFunction:
        """Wrap computed masses without validation (round-off negatives set to 0)."""
        obj = cls.__new__(cls)
        v = np.array(values, dtype=np.float64)
        v[(v < 0) & (v >= -ROUND_TOL)] = 0.0
        obj._init(frame, v)
        return obj

    # ------------------------------------------------------------------ constructors
    @classmethod
    def vacuous(cls, frame: Frame | Iterable[Hashable]) -> MassFunction:
        """Total ignorance: all the mass on the whole frame.

        Examples
        --------
        >>> MassFunction.vacuous([0, 1])
        MassFunction on {0, 1}
          {0, 1}  1
        """
        fr = as_frame(frame)
        v = np.zeros(fr.n_subsets)
        v[-1] = 1.0
        return cls._from_values(fr, v)

    @classmethod
    def categorical(cls, frame: Frame | Iterable[Hashable], subset: SubsetLike) -> MassFunction:
        """All the mass on one non-empty subset.

        Examples
        --------
        >>> MassFunction.categorical(["a", "b", "c"], ["a", "c"])
        MassFunction on {a, b, c}
          {a, c}  1
        """
        fr = as_frame(frame)
        a = fr.mask(subset)
        if a == 0:
            raise ValueError(
                "A categorical mass function needs a non-empty subset; got the empty set."
            )
        v = np.zeros(fr.n_subsets)
        v[a] = 1.0
        return cls._from_values(fr, v)

    @classmethod
    def simple_support(
        cls, frame: Frame | Iterable[Hashable], subset: SubsetLike, w: float
    ) -> MassFunction:
        """Simple mass function ``A^w`` in Denoeux's notation: ``m(A) = 1 - w``, ``m(Omega) = w``.

        ``w`` is the weight left on the whole frame (``w = 1``: vacuous; ``w = 0``: categorical
        on ``A``). The support given to ``A`` is ``1 - w``.

        Examples
        --------
        >>> MassFunction.simple_support(["a", "b", "c"], "a", 0.3)
        MassFunction on {a, b, c}
          {a}        0.7
          {a, b, c}  0.3
        """
        fr = as_frame(frame)
        a = fr.mask(subset)
        if a == 0:
            raise ValueError("A simple support function needs a non-empty subset A.")
        w = float(w)
        if not 0.0 <= w <= 1.0:
            raise ValueError(
                f"The weight w of a simple mass function A^w must lie in [0, 1] (mass 1 - w on "
                f"A, w on the frame); got {w!r}."
            )
        v = np.zeros(fr.n_subsets)
        v[a] += 1.0 - w
        v[-1] += w
        return cls._from_values(fr, v)

    @classmethod
    def from_bel(
        cls,
        frame: Frame | Iterable[Hashable],
        bel: Mapping[SubsetLike, float] | ArrayLike,
        *,
        unnormalized: bool = False,
    ) -> MassFunction:
        """Mass function of a belief function (fast Moebius transform, ``O(K 2**K)``).

        ``bel`` is an array of ``2**K`` values in bitmask order or a mapping covering every
        non-empty subset. ``m(empty) = 1 - bel(Omega)``, which must be 0 unless
        ``unnormalized=True``.

        Examples
        --------
        >>> MassFunction.from_bel([0, 1], [0.0, 0.2, 0.5, 1.0])
        MassFunction on {0, 1}
          {0}     0.2
          {1}     0.5
          {0, 1}  0.3
        """
        fr = as_frame(frame)
        b = _setfunction_row(fr, bel, "bel", 0.0)
        return _from_transform(fr, tr.bel_to_mass(b), "belief", unnormalized)

    @classmethod
    def from_pl(
        cls,
        frame: Frame | Iterable[Hashable],
        pl: Mapping[SubsetLike, float] | ArrayLike,
        *,
        unnormalized: bool = False,
    ) -> MassFunction:
        """Mass function of a plausibility function; ``m(empty) = 1 - pl(Omega)``.

        Examples
        --------
        >>> MassFunction.from_pl([0, 1], {0: 0.5, 1: 0.8, (0, 1): 1.0})
        MassFunction on {0, 1}
          {0}     0.2
          {1}     0.5
          {0, 1}  0.3
        """
        fr = as_frame(frame)
        p = _setfunction_row(fr, pl, "plausibility", 0.0)
        return _from_transform(fr, tr.pl_to_mass(p), "plausibility", unnormalized)

    @classmethod
    def from_q(
        cls,
        frame: Frame | Iterable[Hashable],
        q: Mapping[SubsetLike, float] | ArrayLike,
        *,
        unnormalized: bool = False,
    ) -> MassFunction:
        """Mass function of a commonality function (``q(empty)`` defaults to 1 in a mapping).

        Examples
        --------
        >>> MassFunction.from_q([0, 1], [1.0, 0.5, 0.8, 0.3])
        MassFunction on {0, 1}
          {0}     0.2
          {1}     0.5
          {0, 1}  0.3
        """
        fr = as_frame(frame)
        qq = _setfunction_row(fr, q, "commonality", 1.0)
        return _from_transform(fr, tr.q_to_mass(qq), "commonality", unnormalized)

    # ------------------------------------------------------------------ basic access
    @property
    def frame(self) -> Frame:
        """The frame of discernment."""
        return self._frame

    @property
    def values(self) -> np.ndarray:
        """Dense read-only array of the ``2**K`` masses in bitmask order."""
        return self._values

    def __getitem__(self, subset: SubsetLike) -> float:
        """``m[A]``: the mass of subset ``A``."""
        return float(self._values[self._frame.mask(subset)])

    @property
    def focal_sets(self) -> list[frozenset]:
        """Subsets with positive mass, in bitmask order."""
        return [self._frame.subset(int(c)) for c in np.flatnonzero(self._values)]

    @property
    def core(self) -> frozenset:
        """Union of the focal sets."""
        c = 0
        for m in np.flatnonzero(self._values):
            c |= int(m)
        return self._frame.subset(c)

    @property
    def is_normalized(self) -> bool:
        """True if there is no mass on the empty set."""
        return bool(self._values[0] == 0.0)

    @property
    def is_consonant(self) -> bool:
        """True if the non-empty focal sets are nested (a chain under inclusion)."""
        masks = sorted(
            (int(m) for m in np.flatnonzero(self._values) if m != 0),
            key=lambda m: m.bit_count(),
        )
        return all((a & ~b) == 0 for a, b in zip(masks, masks[1:]))

    @property
    def is_bayesian(self) -> bool:
        """True if every focal set is a singleton."""
        card = self._frame.cardinalities()
        return bool(np.all(card[np.flatnonzero(self._values)] == 1))

    @property
    def ignorance(self) -> float:
        """Mass on the whole frame, ``m(Omega)`` (on ``{0, 1}``: Pl({1}) - Bel({1}))."""
        return float(self._values[-1])

    def to_dict(self) -> dict[frozenset, float]:
        """``{focal set: mass}``.

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).to_dict()
        {frozenset({1}): 0.75, frozenset({0, 1}): 0.25}
        """
        return {self._frame.subset(int(c)): float(self._values[c]) for c in np.flatnonzero(self._values)}

    def to_series(self) -> pd.Series:
        """Masses of the focal sets as a Series indexed by the subsets written ``'{a, b}'``.

        Examples
        --------
        >>> MassFunction(["a", "b"], {"a": 0.25, ("a", "b"): 0.75}).to_series().to_dict()
        {'{a}': 0.25, '{a, b}': 0.75}
        """
        cols = np.flatnonzero(self._values)
        return pd.Series(
            self._values[cols],
            index=[self._frame.format(int(c), is_mask=True) for c in cols],
            name="m",
        )

    def table(self, *, all_subsets: bool = False) -> pd.DataFrame:
        """DataFrame of ``m, bel, pl, q`` for the focal sets (or every subset).

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).table()
                   m   bel   pl     q
        {1}     0.75  0.75  1.0  1.00
        {0, 1}  0.25  1.00  1.0  0.25
        """
        v = self._values
        cols = np.arange(v.size) if all_subsets else np.flatnonzero(v)
        df = pd.DataFrame(
            {
                "m": v[cols],
                "bel": self.bel_array()[cols],
                "pl": self.pl_array()[cols],
                "q": self.q_array()[cols],
            },
            index=pd.Index([self._frame.format(int(c), is_mask=True) for c in cols]),
        )
        return df

    # ------------------------------------------------------------------ set functions
    def bel(self, subset: SubsetLike) -> float:
        """Belief ``bel(A) = sum of m(B) over non-empty B inside A``.

        Examples
        --------
        >>> MassFunction(["a", "b", "c"], {"a": 0.6, ("b", "c"): 0.4}).bel(["a", "b"])
        0.6
        """
        a = self._frame.mask(subset)
        return float(_ops.sum_cols(self._values[None, :], _ops.cols_bel(self._frame, a))[0])

    def pl(self, subset: SubsetLike) -> float:
        """Plausibility ``pl(A) = sum of m(B) over B meeting A``.

        Examples
        --------
        >>> MassFunction(["a", "b", "c"], {"a": 0.6, ("b", "c"): 0.4}).pl(["a", "b"])
        1.0
        """
        a = self._frame.mask(subset)
        return float(_ops.sum_cols(self._values[None, :], _ops.cols_pl(self._frame, a))[0])

    def q(self, subset: SubsetLike) -> float:
        """Commonality ``q(A) = sum of m(B) over B containing A``.

        Examples
        --------
        >>> MassFunction(["a", "b", "c"], {"a": 0.6, ("b", "c"): 0.4}).q("b")
        0.4
        """
        a = self._frame.mask(subset)
        return float(_ops.sum_cols(self._values[None, :], _ops.cols_q(self._frame, a))[0])

    def bel_array(self) -> np.ndarray:
        """Belief of every subset, ``2**K`` values in bitmask order (fast Moebius transform).

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).bel_array()
        array([0.  , 0.  , 0.75, 1.  ])
        """
        return tr.mass_to_bel(self._values)

    def pl_array(self) -> np.ndarray:
        """Plausibility of every subset in bitmask order.

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).pl_array()
        array([0.  , 0.25, 1.  , 1.  ])
        """
        return tr.mass_to_pl(self._values)

    def q_array(self) -> np.ndarray:
        """Commonality of every subset in bitmask order.

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).q_array()
        array([1.  , 0.25, 1.  , 0.25])
        """
        return tr.mass_to_q(self._values)

    def b_array(self) -> np.ndarray:
        """Implicability ``b(A) = bel(A) + m(empty)`` of every subset in bitmask order.

        Examples
        --------
        >>> MassFunction([0, 1], {(): 0.5, (0, 1): 0.5}, unnormalized=True).b_array()
        array([0.5, 0.5, 0.5, 1. ])
        """
        return tr.mass_to_b(self._values)

    def contour(self) -> pd.Series:
        """Contour function: plausibility of each singleton, a Series indexed by the labels.

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).contour().to_dict()
        {0: 0.25, 1: 1.0}
        """
        c = _ops.contour(self._values[None, :], self._frame)[0]
        return pd.Series(c, index=pd.Index(self._frame.labels), name="pl")

    def betp(self) -> pd.Series:
        """Pignistic probabilities ``BetP(w) = sum_{A ni w} m(A) / (|A| (1 - m(empty)))``.

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).betp().to_dict()
        {0: 0.125, 1: 0.875}
        """
        p = _ops.betp(self._values[None, :], self._frame, single=True)[0]
        return pd.Series(p, index=pd.Index(self._frame.labels), name="betp")

    def plausibility_transform(self) -> pd.Series:
        """Contour normalised to sum to one (Cobb and Shenoy's plausibility transform).

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.75, (0, 1): 0.25}).plausibility_transform().to_dict()
        {0: 0.2, 1: 0.8}
        """
        p = _ops.plausibility_transform(self._values[None, :], self._frame, single=True)[0]
        return pd.Series(p, index=pd.Index(self._frame.labels), name="pl_transform")

    # ------------------------------------------------------------------ operations
    def normalize(self) -> MassFunction:
        """Dempster normalisation: ``m(A) / (1 - m(empty))`` for non-empty ``A``, ``m(empty) = 0``.

        Examples
        --------
        >>> MassFunction([0, 1], {(): 0.2, 1: 0.6, (0, 1): 0.2}, unnormalized=True).normalize()
        MassFunction on {0, 1}
          {1}     0.75
          {0, 1}  0.25
        """
        out = _ops.normalize(self._values[None, :], single=True)[0]
        return MassFunction._from_values(self._frame, out)

    def discount(self, alpha: float) -> MassFunction:
        """Shafer's discounting with reliability ``alpha``: ``m'(A) = alpha m(A)`` for
        ``A != Omega`` and ``m'(Omega) = 1 - alpha + alpha m(Omega)``.

        ``alpha = 1`` leaves the mass function unchanged, ``alpha = 0`` makes it vacuous (the
        discount *rate* is ``1 - alpha``; ibelief's ``discounting(m, alpha)`` uses the same alpha).

        Examples
        --------
        >>> MassFunction([0, 1], {1: 0.8, 0: 0.2}).discount(0.5)
        MassFunction on {0, 1}
          {0}     0.1
          {1}     0.4
          {0, 1}  0.5
        """
        a = check_alpha(alpha, None)
        return MassFunction._from_values(self._frame, _ops.discount(self._values[None, :], a)[0])

    def nonspecificity(self) -> float:
        """Generalised Hartley measure ``sum_A m(A) log2 |A|`` in bits (m(empty) counts 0).

        Examples
        --------
        >>> MassFunction(["a", "b", "c", "d"], {"a": 0.5, ("a", "b", "c", "d"): 0.5}).nonspecificity()
        1.0
        """
        return float(_ops.nonspecificity(self._values[None, :], self._frame)[0])

    def conflict(self, other: MassFunction) -> float:
        """Degree of conflict ``K = sum_{B cap C = empty} m1(B) m2(C)`` with ``other``.

        Examples
        --------
        >>> MassFunction([0, 1], {0: 0.6, (0, 1): 0.4}).conflict(MassFunction([0, 1], {1: 0.5, (0, 1): 0.5}))
        0.3
        """
        return float(conflict(self, other))

    def combine(self, *others: MassFunction, rule: str = "dempster") -> MassFunction:
        """Combine with one or more mass functions; see :func:`evstat.belief.combine`.

        Examples
        --------
        >>> m1 = MassFunction([0, 1], {0: 0.6, (0, 1): 0.4})
        >>> m1.combine(MassFunction([0, 1], {1: 0.5, (0, 1): 0.5}), rule="yager")
        MassFunction on {0, 1}
          {0}     0.3
          {1}     0.2
          {0, 1}  0.5
        """
        out = combine(self, *others, rule=rule)
        assert isinstance(out, MassFunction)
        return out

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        cols = np.flatnonzero(self._values)
        head = f"MassFunction on {self._frame.format(self._frame.omega, is_mask=True)}"
        if cols.size == 0:  # pragma: no cover - a validated mass function has a focal set
            return head + " (no focal sets)"
        names = [self._frame.format(int(c), is_mask=True) for c in cols[:_REPR_MAX]]
        width = max(len(s) for s in names)
        lines = [f"  {s:<{width}}  {self._values[c]:.6g}" for s, c in zip(names, cols)]
        if cols.size > _REPR_MAX:
            lines.append(f"  ... and {cols.size - _REPR_MAX} more focal sets")
        return "\n".join([head, *lines])

    def _repr_html_(self) -> str:
        cols = np.flatnonzero(self._values)
        bel, pl = self.bel_array(), self.pl_array()
        rows = "".join(
            f"<tr><td>{html.escape(self._frame.format(int(c), is_mask=True))}</td>"
            f"<td>{self._values[c]:.6g}</td><td>{bel[c]:.6g}</td><td>{pl[c]:.6g}</td></tr>"
            for c in cols[:_REPR_MAX]
        )
        more = (
            f"<tr><td colspan='4'>... and {cols.size - _REPR_MAX} more focal sets</td></tr>"
            if cols.size > _REPR_MAX
            else ""
        )
        title = html.escape(self._frame.format(self._frame.omega, is_mask=True))
        return (
            f"<div><strong>MassFunction</strong> on <code>{title}</code>"
            "<table><thead><tr><th>focal set</th><th>m</th><th>bel</th><th>pl</th></tr></thead>"
            f"<tbody>{rows}{more}</tbody></table></div>"
        )
