"""Exact Euclidean neighbourhoods, chunked over query rows (memory bounded, no row loops).

Squared distances come from :func:`scipy.spatial.distance.cdist` with ``"sqeuclidean"``, which
sums the squared coordinate differences directly (no ``|a|^2 + |b|^2 - 2 a.b`` cancellation), so
they are exact up to one rounding per coordinate, symmetric, and identical for identical pairs:
ties between equal distances are real ties and are broken by training-row order.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import NDArray

__all__ = ["sq_distances", "nearest", "knn", "ball_counts"]

#: Largest number of distance-matrix entries held at once (16 MB of float64).
CHUNK_ENTRIES = 1 << 21


def _chunks(m: int, n: int) -> Iterator[slice]:
    size = max(1, CHUNK_ENTRIES // max(n, 1))
    for a in range(0, m, size):
        yield slice(a, min(a + size, m))


def sq_distances(A: NDArray[np.float64], B: NDArray[np.float64]) -> NDArray[np.float64]:
    """Squared Euclidean distances, shape (len(A), len(B))."""
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.shape[0] == 0 or B.shape[0] == 0:
        return np.zeros((A.shape[0], B.shape[0]))
    # where first needed (import-time rules): scipy.spatial brings scipy.linalg and scipy.sparse,
    # about 0.25 s, into every report through evstat.classifiers
    from scipy.spatial.distance import cdist

    with np.errstate(over="ignore"):
        return cdist(A, B, "sqeuclidean")


def nearest(D: NDArray[np.float64], k: int) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The ``k`` smallest entries of every row of ``D``: column indices and values, sorted by
    (value, column index), so ties go to the lower column (training-row order).

    Linear time per row (``np.partition``), no Python loop over rows.
    """
    m, n = D.shape
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, {n}], got {k}")
    if m == 0:
        return np.zeros((0, k), dtype=np.intp), np.zeros((0, k))
    if k == n:
        cols = np.broadcast_to(np.arange(n, dtype=np.intp), (m, n)).copy()
    else:
        kth = np.partition(D, k - 1, axis=1)[:, k - 1 : k]
        less = D < kth
        eq = D == kth
        need = k - less.sum(axis=1, keepdims=True)
        take = less | (eq & (np.cumsum(eq, axis=1) <= need))
        cols = np.nonzero(take)[1].reshape(m, k).astype(np.intp)  # increasing column order
    vals = np.take_along_axis(D, cols, axis=1)
    order = np.argsort(vals, axis=1, kind="stable")  # stable: equal values keep column order
    return np.take_along_axis(cols, order, axis=1), np.take_along_axis(vals, order, axis=1)


def knn(
    Xq: NDArray[np.float64],
    Xt: NDArray[np.float64],
    k: int,
    exclude_self: bool = False,
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The ``k`` nearest training rows ``Xt`` of every query row ``Xq``.

    Returns indices into ``Xt`` and squared distances, both (len(Xq), k), sorted by distance
    with ties broken by training-row order. ``exclude_self=True`` (leave-one-out, ``Xq`` is
    ``Xt``) leaves row ``i`` out of its own neighbours (but not other rows equal to it).
    """
    m = Xq.shape[0]
    n = Xt.shape[0]
    idx = np.empty((m, k), dtype=np.intp)
    d2 = np.empty((m, k), dtype=np.float64)
    for sl in _chunks(m, n):
        D = sq_distances(Xq[sl], Xt)
        if exclude_self:
            r = np.arange(sl.stop - sl.start)
            D[r, sl.start + r] = np.inf
        idx[sl], d2[sl] = nearest(D, k)
    return idx, d2


def ball_counts(
    Xq: NDArray[np.float64],
    Xt: NDArray[np.float64],
    codes: NDArray[np.intp],
    n_classes: int,
    radius: float,
) -> NDArray[np.int64]:
    """Number of training rows of each class in the closed ball ``{x : ||x - q|| <= radius}``
    around every query row ``q``; shape (len(Xq), n_classes).

    The distance is ``sqrt`` of the squared distance (in one dimension exactly ``|q - x|``).
    """
    m = Xq.shape[0]
    onehot = np.zeros((Xt.shape[0], n_classes))
    onehot[np.arange(Xt.shape[0]), codes] = 1.0
    out = np.empty((m, n_classes), dtype=np.int64)
    for sl in _chunks(m, Xt.shape[0]):
        inside = np.sqrt(sq_distances(Xq[sl], Xt)) <= radius
        out[sl] = np.rint(inside.astype(np.float64) @ onehot).astype(np.int64)
    return out
