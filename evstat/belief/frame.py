"""Finite frames of discernment.

A :class:`Frame` is an ordered, finite set of labels. Subsets of the frame are stored as integer
bitmasks: label number ``i`` (in the order given) is bit ``i``, so with ``Frame(["a", "b", "c"])``
the subset ``{a, c}`` is the mask ``0b101 = 5``. Dense arrays of set functions (masses, belief,
plausibility, commonality) over a frame of ``K`` elements have ``2**K`` entries in this bitmask
order, which is also the "binary order" of Smets and of the R package ibelief (R index = mask + 1).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Any

import numpy as np

__all__ = ["Frame", "MAX_DENSE_ENTRIES", "MAX_DENSE_SIZE", "SubsetLike", "check_dense_size"]

#: Largest frame for which dense set functions (2**K entries) are stored.
MAX_DENSE_SIZE = 20
#: Most entries (rows x 2**K) of a dense array of masses that a model may allocate at once
#: (2**28 float64 entries: 2 GiB).
MAX_DENSE_ENTRIES = 2**28


def check_dense_size(k: int, who: str, rows: int | None = None, max_size: int = MAX_DENSE_SIZE) -> None:
    """Refuse, before anything is allocated, a frame too large for dense set functions.

    A model that keeps the mass of every subset of ``k`` classes allocates ``2**k`` entries per
    row: ``k = 50`` classes are a petabyte per row, and ``k = 20`` classes with 1,500 rows are
    12 GB. Every such model calls this check right after reading its classes, so that a frame
    beyond ``max_size`` classes (default :data:`MAX_DENSE_SIZE`) or an array of more than
    :data:`MAX_DENSE_ENTRIES` entries (``rows * 2**k``) is refused at once with a message naming
    the limit, instead of being found by the kernel's out-of-memory killer.

    Parameters
    ----------
    k : int
        Number of classes (elements of the frame).
    who : str
        The model, for the message (``"credal_knn"``).
    rows : int, optional
        Rows whose masses are held at once; with it, ``rows * 2**k`` is checked too.
    max_size : int
        The model's own class limit (at most :data:`MAX_DENSE_SIZE`).

    Raises
    ------
    ValueError
        Naming the number of classes (or entries) and the limit.

    Examples
    --------
    >>> from evstat.belief.frame import check_dense_size
    >>> check_dense_size(3, "eknn", rows=1000)
    >>> check_dense_size(50, "credal_knn", max_size=16)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: credal_knn keeps the mass of every set of classes (2**K per row): 50 classes exceed the limit of 16 ...
    """
    if k > max_size:
        raise ValueError(
            f"{who} keeps the mass of every set of classes (2**K per row): {k} classes exceed the "
            f"limit of {max_size} (2**{max_size} = {2**max_size:,} sets). Merge classes, or use a "
            "model with K-class probabilities (evmultinom, the scaling calibrators)"
        )
    if rows is not None and rows * 2**k > MAX_DENSE_ENTRIES:
        raise ValueError(
            f"{who} would hold {rows:,} rows x 2**{k} sets = {rows * 2**k:,} masses at once, more "
            f"than the limit of {MAX_DENSE_ENTRIES:,} (evstat.belief.frame.MAX_DENSE_ENTRIES, "
            f"{MAX_DENSE_ENTRIES * 8 // 2**30} GiB); use fewer rows "
            f"(at most {MAX_DENSE_ENTRIES // 2**k:,}) or fewer classes"
        )

#: A subset of a frame as users give it: a single label, an iterable of labels, or a frozenset.
SubsetLike = Any


def _plain(label: Any) -> Any:
    """Turn numpy scalars into Python scalars so labels print and compare plainly."""
    if isinstance(label, np.generic):
        return label.item()
    return label


class Frame:
    """A finite frame of discernment: an ordered set of distinct, hashable labels.

    Parameters
    ----------
    labels : iterable of hashable
        The elements of the frame, in order. Between 1 and 20 distinct labels (the limit comes from
        the dense storage of set functions, which have ``2**K`` entries).

    Notes
    -----
    Subsets are integer bitmasks internally (label ``i`` is bit ``i``); methods accept subsets in
    the user's terms: a single label, an iterable of labels, or a frozenset. A value that is itself
    a label of the frame is always read as that label (so with labels ``0`` and ``1`` the subset
    ``1`` is ``{1}``, never the bitmask 1).

    Examples
    --------
    >>> f = Frame(["a", "b", "c"])
    >>> f
    Frame(['a', 'b', 'c'])
    >>> len(f), f.n_subsets
    (3, 8)
    >>> f.mask(["a", "c"])
    5
    >>> sorted(f.subset(5))
    ['a', 'c']
    >>> f.format(["c", "a"])
    '{a, c}'
    """

    __slots__ = ("_labels", "_index", "_card")

    def __init__(self, labels: Iterable[Hashable]) -> None:
        if isinstance(labels, Frame):
            labels = labels.labels
        if isinstance(labels, (str, bytes)):
            raise TypeError(
                f"Frame labels must be an iterable of labels, not a single string {labels!r}; "
                f"write Frame([{labels!r}]) for a one-element frame or Frame(list({labels!r})) "
                "for one label per character."
            )
        try:
            labs = tuple(_plain(x) for x in labels)
        except TypeError:
            raise TypeError(
                f"Frame labels must be an iterable of hashable labels, got {type(labels).__name__}."
            ) from None
        if len(labs) == 0:
            raise ValueError("A frame needs at least one label; got an empty list.")
        index: dict[Any, int] = {}
        dups = []
        for i, lab in enumerate(labs):
            try:
                hash(lab)
            except TypeError:
                raise TypeError(
                    f"Frame label {lab!r} (position {i}) is not hashable; use strings or numbers."
                ) from None
            if lab in index:
                dups.append(lab)
            else:
                index[lab] = i
        if dups:
            shown = ", ".join(repr(d) for d in dict.fromkeys(dups))
            raise ValueError(
                f"Frame labels must be distinct; duplicated: {shown}. Remove the duplicates "
                "(for example Frame(dict.fromkeys(labels)) keeps the first of each)."
            )
        if len(labs) > MAX_DENSE_SIZE:
            raise ValueError(
                f"The frame has {len(labs)} elements; dense storage of set functions (2**K "
                f"entries) supports at most {MAX_DENSE_SIZE}. Coarsen the frame (merge labels) "
                f"to {MAX_DENSE_SIZE} elements or fewer."
            )
        self._labels = labs
        self._index = index
        self._card: np.ndarray | None = None

    # ----------------------------------------------------------------- basic protocol
    @property
    def labels(self) -> tuple:
        """The labels, in frame order (label ``i`` is bit ``i`` of a subset mask)."""
        return self._labels

    @property
    def size(self) -> int:
        """Number of elements ``K``."""
        return len(self._labels)

    @property
    def n_subsets(self) -> int:
        """Number of subsets ``2**K`` (the length of a dense set function)."""
        return 1 << len(self._labels)

    @property
    def omega(self) -> int:
        """Bitmask of the whole frame, ``2**K - 1``."""
        return (1 << len(self._labels)) - 1

    @property
    def is_binary(self) -> bool:
        """True for a two-element frame (which has a vectorised fast path)."""
        return len(self._labels) == 2

    def __len__(self) -> int:
        return len(self._labels)

    def __iter__(self) -> Iterator:
        return iter(self._labels)

    def __contains__(self, label: object) -> bool:
        try:
            return label in self._index
        except TypeError:
            return False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Frame):
            return NotImplemented
        return self._labels == other._labels

    def __hash__(self) -> int:
        return hash(("evstat.Frame", self._labels))

    def __repr__(self) -> str:
        return f"Frame({list(self._labels)!r})"

    def _repr_html_(self) -> str:
        import html

        return "<code>" + html.escape(self._format_mask(self.omega)) + "</code>"

    # ----------------------------------------------------------------- subsets
    def index(self, label: Hashable) -> int:
        """Position (bit number) of ``label``; ValueError if it is not in the frame.

        Examples
        --------
        >>> Frame(["a", "b", "c"]).index("c")
        2
        """
        label = _plain(label)
        try:
            return self._index[label]
        except (KeyError, TypeError):
            raise ValueError(
                f"{label!r} is not a label of the frame {self._format_mask(self.omega)}; "
                f"use one of {list(self._labels)!r}."
            ) from None

    def mask(self, subset: SubsetLike) -> int:
        """Bitmask of a subset given as a label, an iterable of labels, or a frozenset.

        Examples
        --------
        >>> Frame([0, 1]).mask(1), Frame([0, 1]).mask([0, 1]), Frame([0, 1]).mask(frozenset())
        (2, 3, 0)
        """
        s = _plain(subset)
        try:
            if s in self._index:
                return 1 << self._index[s]
        except TypeError:
            pass  # unhashable (list, set): an iterable of labels
        if isinstance(s, (str, bytes)) or not isinstance(s, Iterable):
            raise ValueError(
                f"{s!r} is not a label of the frame {self._format_mask(self.omega)}; "
                f"use one of {list(self._labels)!r}, or an iterable of them for a larger subset."
            )
        m = 0
        for lab in s:
            m |= 1 << self.index(lab)
        return m

    def subset(self, mask: int) -> frozenset:
        """The subset (frozenset of labels) of a bitmask.

        Examples
        --------
        >>> sorted(Frame(["a", "b", "c"]).subset(6))
        ['b', 'c']
        """
        mask = int(mask)
        if mask < 0 or mask > self.omega:
            raise ValueError(
                f"Bitmask {mask} is out of range for a frame of {self.size} elements "
                f"(0 to {self.omega})."
            )
        return frozenset(lab for i, lab in enumerate(self._labels) if mask >> i & 1)

    def format(self, subset: SubsetLike | int, *, is_mask: bool = False) -> str:
        """Readable form of a subset, labels in frame order, e.g. ``'{a, c}'``; ``'{}'`` if empty.

        ``is_mask=True`` reads ``subset`` as a bitmask.
        """
        m = int(subset) if is_mask else self.mask(subset)
        return "{" + ", ".join(str(lab) for i, lab in enumerate(self._labels) if m >> i & 1) + "}"

    def _format_mask(self, m: int) -> str:
        return self.format(m, is_mask=True)

    def subsets(self, *, nonempty: bool = False) -> list[frozenset]:
        """All subsets as frozensets, in bitmask order (the order of dense arrays).

        Examples
        --------
        >>> [sorted(s) for s in Frame(["a", "b"]).subsets()]
        [[], ['a'], ['b'], ['a', 'b']]
        """
        start = 1 if nonempty else 0
        return [self.subset(m) for m in range(start, self.n_subsets)]

    def complement(self, subset: SubsetLike) -> frozenset:
        """The complement of a subset in the frame.

        Examples
        --------
        >>> sorted(Frame(["a", "b", "c"]).complement("b"))
        ['a', 'c']
        """
        return self.subset(self.omega ^ self.mask(subset))

    def cardinalities(self) -> np.ndarray:
        """Array of ``|A|`` for every mask ``A`` in bitmask order (read-only, cached).

        Examples
        --------
        >>> Frame(["a", "b"]).cardinalities()
        array([0, 1, 1, 2])
        """
        if self._card is None:
            card = np.zeros(1, dtype=np.int64)
            for _ in range(self.size):
                card = np.concatenate([card, card + 1])
            card.setflags(write=False)
            self._card = card
        return self._card

    def _masks(self) -> np.ndarray:
        return np.arange(self.n_subsets, dtype=np.int64)

    def _check_same(self, other: Frame, what: str = "mass functions") -> None:
        if self != other:
            raise ValueError(
                f"Cannot combine {what} on different frames: {self!r} and {other!r}. "
                "Build both on the same Frame (same labels in the same order)."
            )


def as_frame(frame: Frame | Iterable[Hashable]) -> Frame:
    """Return ``frame`` if it is a :class:`Frame`, else ``Frame(frame)``."""
    return frame if isinstance(frame, Frame) else Frame(frame)
