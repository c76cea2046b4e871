"""Random stratified partitions for the ensemble protocols of Minary et al. (2019), section 5.

Two designs:

* :func:`ensemble_partitions` - section 5.2 (Figs. 4 and 6): three non-overlapping classifier
  training sets of the Table 2 sizes and a test set; each training set is split in halves, one
  training the SVM, the other calibrating it.
* :func:`reject_partition` - section 5.4 (Figs. 7-10): three SVM training sets (30 rows each, not
  halved), one joint calibration set whose smaller sizes are nested subsets (200 and 15, or 45
  and 15 rows) and a test set.

Both are *stratified*: every block holds the classes in the proportion of the whole data set
(largest-remainder apportionment), and every block that trains or calibrates a classifier holds
at least one row of each class. The paper does not say whether its partitions are stratified;
stratification makes every round usable (an SVM, or a per-classifier calibration on 5 rows,
needs both classes), so no round has to be redrawn, and it removes the class-ratio noise between
rounds. Rows are assigned by a random permutation of each class drawn from the given numpy
Generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "apportion_classes",
    "class_reject_partition",
    "stratified_blocks",
    "EnsemblePartition",
    "EnsembleSizes",
    "RejectPartition",
    "TABLE2",
    "apportion",
    "ensemble_partitions",
    "reject_partition",
    "size_grid",
]


def size_grid(start: int, step: int, stop: int) -> tuple[int, ...]:
    """The #Train3 sizes of Table 2 written ``start-step-stop``: ``start, start + step, ...`` below
    ``stop``, then ``stop``.

    Table 2 gives e.g. ``10-60-190`` (Australian) and ``10-50-200`` (Diabetes). In every row the
    last value is the largest #Train3 the data set allows (#Train1 + #Train2 + #Train3 + #Test is
    the number of rows), which ``start + k step`` reaches for Australian and Sonar but not for
    the others, so the grid is read as MATLAB's ``[start:step:stop, stop]``.

    Examples
    --------
    >>> size_grid(10, 60, 190)
    (10, 70, 130, 190)
    >>> size_grid(10, 50, 200)
    (10, 60, 110, 160, 200)
    """
    for name, v in (("start", start), ("step", step), ("stop", stop)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if stop < start:
        raise ValueError(f"stop ({stop}) must be >= start ({start})")
    vals = list(range(int(start), int(stop), int(step)))
    if not vals or vals[-1] != stop:
        vals.append(int(stop))
    return tuple(vals)


@dataclass(frozen=True)
class EnsembleSizes:
    """Rows per block of one Table 2 row: #Train1, #Train2, the #Train3 grid and #Test."""

    train1: int
    train2: int
    train3: tuple[int, ...]
    test: int

    def __post_init__(self) -> None:
        for name in ("train1", "train2", "test"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if not self.train3 or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 2 for v in self.train3
        ):
            raise ValueError(f"train3 must be a non-empty sequence of integers >= 2, got {self.train3!r}")
        for name in ("train1", "train2"):
            if getattr(self, name) < 2:
                raise ValueError(f"{name} must be >= 2 (it is halved), got {getattr(self, name)}")

    @property
    def n_rows(self) -> int:
        """Rows needed at the largest #Train3."""
        return self.train1 + self.train2 + max(self.train3) + self.test


#: Table 2 of Minary et al. (2019), with Pima for Diabetes, plus WDBC as a seventh data set (not in
#: the paper): it takes Australian's #Train1, #Train2 and #Train3 grid, and as in every row of
#: Table 2 its test set is the rest of the data at the largest #Train3: 569 - 30 - 70 - 190 = 279.
TABLE2: dict[str, EnsembleSizes] = {
    "sonar": EnsembleSizes(20, 40, size_grid(10, 40, 90), 58),
    "ionosphere": EnsembleSizes(20, 40, size_grid(10, 80, 190), 101),
    "pima": EnsembleSizes(30, 70, size_grid(10, 50, 200), 468),
    "heart": EnsembleSizes(20, 40, size_grid(10, 50, 140), 70),
    "australian": EnsembleSizes(30, 70, size_grid(10, 60, 190), 400),
    "wdbc": EnsembleSizes(30, 70, size_grid(10, 60, 190), 279),
    "simulated": EnsembleSizes(20, 40, size_grid(10, 50, 200), 100),
}


def apportion(sizes: Sequence[int], n_neg: int, n_pos: int, both: Sequence[bool] | None = None) -> NDArray[np.int64]:
    """Split blocks of the given sizes between two classes in proportion to the data.

    The positives used, ``round(sum(sizes) n_pos / N)`` (all of them when the blocks use every
    row), are shared between the blocks by largest remainder of ``size_b n_pos / N`` (ties to the
    earlier block). Blocks flagged in ``both`` then get at least one row of each class, moving
    rows from the blocks with the most to spare.

    Parameters
    ----------
    sizes : sequence of int
        Rows per block; their sum must not exceed ``n_neg + n_pos``.
    n_neg, n_pos : int
        Rows of class 0 and class 1 available.
    both : sequence of bool, optional
        Blocks that must hold both classes (default: every block of 2 rows or more).

    Returns
    -------
    numpy.ndarray of int, shape (len(sizes), 2)
        Column 0 the class-0 rows, column 1 the class-1 rows of each block.

    Examples
    --------
    >>> apportion([10, 10, 58], n_neg=97, n_pos=111).tolist()
    [[4, 6], [5, 5], [27, 31]]
    """
    s = np.asarray(sizes, dtype=np.int64)
    n = int(n_neg) + int(n_pos)
    if s.ndim != 1 or s.size == 0 or (s < 0).any():
        raise ValueError(f"sizes must be a non-empty sequence of non-negative integers, got {list(sizes)}")
    total = int(s.sum())
    if total > n:
        raise ValueError(
            f"the blocks need {total} rows but the data have {n} ({n_neg} of class 0, {n_pos} of "
            "class 1): use smaller blocks or a larger data set"
        )
    flags = s >= 2 if both is None else np.asarray(both, dtype=bool)
    if flags.shape != s.shape:
        raise ValueError(f"both must have one flag per block ({s.size}), got {len(flags)}")
    if (flags & (s < 2)).any():
        raise ValueError(f"a block flagged to hold both classes has fewer than 2 rows: sizes {s.tolist()}")
    need = int(flags.sum())
    lo, hi = max(need, total - int(n_neg)), min(int(n_pos), total - need)
    if lo > hi:
        raise ValueError(
            f"{need} blocks must hold both classes but the data have {n_neg} rows of class 0 and "
            f"{n_pos} of class 1 for blocks of {total} rows: the data set has too few rows of one class"
        )
    pos_total = int(np.floor(total * n_pos / n + 0.5))
    pos_total = min(max(pos_total, lo), hi)
    quota = s * (pos_total / total) if total else np.zeros(s.size)
    pos = np.floor(quota).astype(np.int64)
    rem = quota - pos
    missing = pos_total - int(pos.sum())
    order = np.lexsort((np.arange(s.size), -rem))
    pos[order[:missing]] += 1
    # every flagged block: at least one row of each class
    for b in np.flatnonzero(flags):
        while pos[b] < 1:
            spare = np.where(flags, pos - 1, pos)
            spare[b] = -1
            d = int(np.argmax(spare))
            pos[d] -= 1
            pos[b] += 1
        while s[b] - pos[b] < 1:
            neg_spare = np.where(flags, s - pos - 1, s - pos)
            neg_spare[b] = -1
            d = int(np.argmax(neg_spare))
            pos[d] += 1
            pos[b] -= 1
    return np.column_stack([s - pos, pos])


def _class_order(y: NDArray, rng: np.random.Generator) -> tuple[NDArray, NDArray]:
    return rng.permutation(np.flatnonzero(y == 0)), rng.permutation(np.flatnonzero(y == 1))


def _check_y(y: ArrayLike) -> NDArray[np.int64]:
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"y must be a non-empty 1-D array of 0/1 class codes, got shape {arr.shape}")
    ok = (arr == 0) | (arr == 1)
    if not ok.all():
        raise ValueError(
            f"y must hold the class codes 0 and 1; {int((~ok).sum())} of {arr.size} values are other "
            f"(first: {arr[~ok][0]!r})"
        )
    return arr.astype(np.int64)


def _take(orders: Sequence[NDArray], counts: NDArray, start: NDArray) -> list[NDArray]:
    """Consecutive rows of each class for blocks with ``counts`` (B, classes), from offsets
    ``start`` (one per class)."""
    out = []
    pos = np.array(start, dtype=np.int64)
    for row in np.asarray(counts, dtype=np.int64):
        block = np.concatenate([orders[k][pos[k]:pos[k] + row[k]] for k in range(len(orders))])
        out.append(np.sort(block))
        pos += row
    return out


def stratified_blocks(y: NDArray, counts: NDArray, rng: np.random.Generator) -> list[NDArray]:
    """Disjoint blocks of rows with ``counts[b] = (negatives, positives)`` each (shape (B, 2),
    e.g. from :func:`apportion`): the rows of each class in a random order drawn from ``rng``,
    taken consecutively; every block sorted.

    Examples
    --------
    >>> y = np.array([0, 1, 0, 1, 0, 1, 0, 0])
    >>> [b.tolist() for b in stratified_blocks(y, np.array([[1, 1], [2, 1]]), np.random.default_rng(0))]
    [[4, 5], [1, 6, 7]]
    """
    return _take(_class_order(y, rng), np.asarray(counts), np.zeros(2, dtype=np.int64))


@dataclass(frozen=True)
class EnsemblePartition:
    """Row indices of one round of the section 5.2 protocol at one #Train3 size.

    ``svm[j]`` trains SVM ``j + 1``, ``cal[j]`` is the calibration half of its training set and
    ``test`` the test set; all are sorted and pairwise disjoint.
    """

    svm: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
    cal: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
    test: NDArray[np.int64]

    @property
    def joint_cal(self) -> NDArray[np.int64]:
        """The joint calibration set: the concatenation of the three calibration halves."""
        return np.concatenate(self.cal)


def _halves(size: int) -> tuple[int, int]:
    """(SVM half, calibration half) of a training set: equal, the SVM half gets an odd row."""
    return size - size // 2, size // 2


def ensemble_partitions(y: ArrayLike, sizes: EnsembleSizes, rng: np.random.Generator) -> dict[int, EnsemblePartition]:
    """One round of the section 5.2 protocol: a partition per #Train3 size.

    The test set and the first two training sets (and their halves) are drawn once and shared by
    every #Train3 size of the round, and the third training sets are nested: #Train3 = 10 takes
    the first rows (per class) of the same random pool as #Train3 = 60. The sizes of a round are
    thus compared on the same test rows with the same SVMs 1 and 2 (common random numbers), which
    makes the error-rate curves over #Train3 smoother than independent draws. Blocks are
    stratified (see the module docstring). A training set of ``t`` rows gives
    ``t - t // 2`` rows to the SVM and ``t // 2`` to its calibration.

    Parameters
    ----------
    y : array-like of 0/1
        Class codes of the data set's rows.
    sizes : EnsembleSizes
        Block sizes, e.g. ``TABLE2["sonar"]``.
    rng : numpy.random.Generator
        Source of the random permutations.

    Returns
    -------
    dict
        #Train3 size -> :class:`EnsemblePartition`.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.r_[np.zeros(97, int), np.ones(111, int)]
    >>> parts = ensemble_partitions(y, TABLE2["sonar"], np.random.default_rng(0))
    >>> sorted(parts)
    [10, 50, 90]
    >>> p = parts[10]
    >>> [len(i) for i in p.svm], [len(i) for i in p.cal], len(p.test)
    ([10, 20, 5], [10, 20, 5], 58)
    """
    yy = _check_y(y)
    n_neg, n_pos = int((yy == 0).sum()), int((yy == 1).sum())
    h1, h2 = _halves(sizes.train1), _halves(sizes.train2)
    big = max(sizes.train3)
    fixed = [h1[0], h1[1], h2[0], h2[1], sizes.test, big]
    if sum(fixed) > yy.size:
        raise ValueError(
            f"the partition needs {sum(fixed)} rows (#Train1 {sizes.train1} + #Train2 "
            f"{sizes.train2} + largest #Train3 {big} + #Test {sizes.test}) but the data have "
            f"{yy.size}: use smaller sizes"
        )
    counts = apportion(fixed, n_neg, n_pos, both=[True, True, True, True, False, True])
    orders = _class_order(yy, rng)
    blocks = _take(orders, counts, np.zeros(2, dtype=np.int64))
    svm1, cal1, svm2, cal2, test, _ = blocks
    pool_start = counts[:5].sum(axis=0)
    pool = (orders[0][pool_start[0]:pool_start[0] + counts[5, 0]],
            orders[1][pool_start[1]:pool_start[1] + counts[5, 1]])
    out: dict[int, EnsemblePartition] = {}
    for t in sorted(set(int(v) for v in sizes.train3)):
        c3 = apportion(list(_halves(t)), int(counts[5, 0]), int(counts[5, 1]), both=[True, t // 2 >= 2])
        svm3, cal3 = _take(pool, c3, np.zeros(2, dtype=np.int64))
        out[t] = EnsemblePartition(svm=(svm1, svm2, svm3), cal=(cal1, cal2, cal3), test=test)
    return out


@dataclass(frozen=True)
class RejectPartition:
    """Row indices of one round of the section 5.4 protocol.

    ``svm[j]`` trains SVM ``j + 1`` (not halved), ``cal[n]`` is the joint calibration set of
    ``n`` rows (smaller sets are subsets of larger ones), ``test`` the test set.
    """

    svm: tuple[NDArray[np.int64], ...]
    cal: dict[int, NDArray[np.int64]]
    test: NDArray[np.int64]


def reject_partition(
    y: ArrayLike,
    rng: np.random.Generator,
    svm_sizes: Sequence[int] = (30, 30, 30),
    cal_sizes: Sequence[int] = (45, 15),
    test_size: int = 100,
) -> RejectPartition:
    """One round of the section 5.4 protocol: SVM training sets, nested calibration sets, a test set.

    The largest calibration set is drawn (stratified) from the rows left by the SVMs and the test
    set; each smaller one takes the first rows of each class of it in the same random order, so
    ``cal[15]`` is a subset of ``cal[45]`` and the two calibrations are compared with the same
    SVMs on the same test rows.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.r_[np.zeros(180, int), np.ones(180, int)]
    >>> p = reject_partition(y, np.random.default_rng(1), cal_sizes=(200, 15), test_size=100)
    Traceback (most recent call last):
    ...
    ValueError: the partition needs 390 rows (SVMs 90 + calibration 200 + test 100) but the data have 360: use smaller sizes
    >>> p = reject_partition(y, np.random.default_rng(1))
    >>> [len(i) for i in p.svm], {k: len(v) for k, v in p.cal.items()}, len(p.test)
    ([30, 30, 30], {45: 45, 15: 15}, 100)
    >>> bool(np.isin(p.cal[15], p.cal[45]).all())
    True
    """
    yy = _check_y(y)
    n_neg, n_pos = int((yy == 0).sum()), int((yy == 1).sum())
    svm_sizes = [int(v) for v in svm_sizes]
    cal_sizes = sorted({int(v) for v in cal_sizes}, reverse=True)
    if not cal_sizes or cal_sizes[-1] < 2:
        raise ValueError(f"cal_sizes must be integers >= 2, got {cal_sizes}")
    need = sum(svm_sizes) + cal_sizes[0] + int(test_size)
    if need > yy.size:
        raise ValueError(
            f"the partition needs {need} rows (SVMs {sum(svm_sizes)} + calibration {cal_sizes[0]} "
            f"+ test {int(test_size)}) but the data have {yy.size}: use smaller sizes"
        )
    sizes = [*svm_sizes, int(test_size), cal_sizes[0]]
    counts = apportion(sizes, n_neg, n_pos, both=[True] * len(svm_sizes) + [False, True])
    orders = _class_order(yy, rng)
    blocks = _take(orders, counts, np.zeros(2, dtype=np.int64))
    start = counts[:-1].sum(axis=0)
    pool = (orders[0][start[0]:start[0] + counts[-1, 0]], orders[1][start[1]:start[1] + counts[-1, 1]])
    cal: dict[int, NDArray[np.int64]] = {}
    for n in cal_sizes:
        c = apportion([n], int(counts[-1, 0]), int(counts[-1, 1]), both=[True])
        cal[n] = _take(pool, c, np.zeros(2, dtype=np.int64))[0]
    return RejectPartition(svm=tuple(blocks[: len(svm_sizes)]), cal=cal, test=blocks[len(svm_sizes)])


def apportion_classes(sizes: Sequence[int], class_rows: ArrayLike, every_class: Sequence[bool] | None = None) -> NDArray[np.int64]:
    """Split blocks of the given sizes between K classes in proportion to the data (the K-class
    analogue of :func:`apportion`).

    Each block ``b`` gets ``floor(size_b n_k / N)`` rows of class ``k`` and its remaining rows go
    to the classes of largest remainder (ties to the earlier class); blocks flagged in
    ``every_class`` (default: all) then get at least one row of each class, taken from the class
    with the most rows in the block.

    Parameters
    ----------
    sizes : sequence of int
        Rows per block.
    class_rows : sequence of int
        Rows of each class available (``n_k``).
    every_class : sequence of bool, optional
        Blocks that must hold every class.

    Returns
    -------
    numpy.ndarray of int, shape (len(sizes), K)

    Raises
    ------
    ValueError
        When the blocks need more rows of a class than the data have.

    Examples
    --------
    >>> apportion_classes([15, 45], [70, 76, 17, 22]).tolist()
    [[6, 6, 1, 2], [17, 19, 4, 5]]
    """
    s = np.asarray(sizes, dtype=np.int64)
    n = np.asarray(class_rows, dtype=np.int64)
    N = int(n.sum())
    if s.ndim != 1 or s.size == 0 or (s < 0).any():
        raise ValueError(f"sizes must be a non-empty sequence of non-negative integers, got {list(sizes)}")
    if int(s.sum()) > N:
        raise ValueError(f"the blocks need {int(s.sum())} rows but the data have {N}: use smaller blocks")
    flags = np.ones(s.size, dtype=bool) if every_class is None else np.asarray(every_class, dtype=bool)
    if flags.shape != s.shape:
        raise ValueError(f"every_class must have one flag per block ({s.size}), got {len(flags)}")
    K = n.size
    out = np.zeros((s.size, K), dtype=np.int64)
    for b, size in enumerate(s):
        quota = size * n / N
        c = np.floor(quota).astype(np.int64)
        order = np.lexsort((np.arange(K), -(quota - c)))
        c[order[: int(size - c.sum())]] += 1
        if flags[b]:
            if size < K:
                raise ValueError(f"a block of {int(size)} rows cannot hold each of the {K} classes")
            for k in range(K):
                while c[k] < 1:
                    c[int(np.argmax(c))] -= 1
                    c[k] += 1
        out[b] = c
    short = np.flatnonzero(out.sum(axis=0) > n)
    if short.size:
        k = int(short[0])
        raise ValueError(
            f"the blocks need {int(out[:, k].sum())} rows of class {k} but the data have {int(n[k])}: "
            "use smaller blocks"
        )
    return out


def class_reject_partition(
    y: ArrayLike,
    rng: np.random.Generator,
    svm_sizes: Sequence[int],
    cal_sizes: Sequence[int],
    test_size: int | None = None,
) -> RejectPartition:
    """:func:`reject_partition` for K classes: classifier training sets, nested joint calibration
    sets and a test set, stratified by class.

    ``y`` holds class codes ``0 .. K - 1``. Each class's rows are put in a random order (drawn
    from ``rng``, class by class); the classifier blocks and the largest calibration set take
    consecutive rows of each class in the proportions of :func:`apportion_classes` (every block
    holds every class); each smaller calibration set takes the first rows of each class of the
    largest one (so ``cal[15]`` lies within ``cal[45]``). The test set is the rest of the rows,
    or a random subset of ``test_size`` of them (drawn from ``rng`` after the blocks).

    Examples
    --------
    >>> y = np.repeat([0, 1, 2], 50)
    >>> p = class_reject_partition(y, np.random.default_rng(1), (20, 20, 20), (45, 15))
    >>> [len(i) for i in p.svm], {k: len(v) for k, v in p.cal.items()}, len(p.test)
    ([20, 20, 20], {45: 45, 15: 15}, 45)
    >>> bool(np.isin(p.cal[15], p.cal[45]).all()), np.bincount(y[p.cal[15]]).tolist()
    (True, [5, 5, 5])
    """
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.size == 0 or not np.issubdtype(yy.dtype, np.integer) or yy.min() < 0:
        raise ValueError(f"y must be a non-empty 1-D array of class codes 0 .. K - 1, got {yy.dtype} of shape {yy.shape}")
    K = int(yy.max()) + 1
    n = np.bincount(yy, minlength=K)
    if (n == 0).any():
        raise ValueError(f"class codes must be 0 .. K - 1 with every class present; absent: {np.flatnonzero(n == 0).tolist()}")
    cal_sizes = sorted({int(v) for v in cal_sizes}, reverse=True)
    if not cal_sizes or cal_sizes[-1] < K:
        raise ValueError(f"cal_sizes must be integers >= the number of classes ({K}), got {cal_sizes}")
    sizes = [*(int(v) for v in svm_sizes), cal_sizes[0]]
    counts = apportion_classes(sizes, n)
    orders = [rng.permutation(np.flatnonzero(yy == k)) for k in range(K)]
    blocks = _take(orders, counts, np.zeros(K, dtype=np.int64))
    start = counts[:-1].sum(axis=0)
    pool = [orders[k][start[k]:start[k] + counts[-1, k]] for k in range(K)]
    cal: dict[int, NDArray[np.int64]] = {}
    for size in cal_sizes:
        c = apportion_classes([size], counts[-1])
        cal[size] = _take(pool, c, np.zeros(K, dtype=np.int64))[0]
    rest = np.setdiff1d(np.arange(yy.size), np.concatenate(blocks))
    if test_size is not None and int(test_size) < rest.size:
        rest = np.sort(rng.choice(rest, size=int(test_size), replace=False))
    if rest.size == 0:
        raise ValueError(f"the partition leaves no test rows ({sum(sizes)} of {yy.size} rows in the blocks): use smaller sizes")
    return RejectPartition(svm=tuple(blocks[:-1]), cal=cal, test=rest)
