"""Fast Moebius transforms between set functions on a frame.

All functions take a numpy array whose last axis has length ``2**K`` (a dense set function in the
bitmask order of :class:`~evstat.belief.Frame`, which is also ibelief's binary order) and any
number of leading batch axes, and return a new float array of the same shape. Each transform costs
``O(K 2**K)`` per set function (Kennes' fast Moebius transform), vectorised over the batch.

Definitions (Smets' conventions, valid for unnormalised mass functions with ``m(empty) > 0``):

* implicability ``b(A) = sum_{B subset of A} m(B)`` (empty set included),
* belief ``bel(A) = b(A) - m(empty)`` (so ``bel(empty) = 0``),
* plausibility ``pl(A) = sum_{B cap A != empty} m(B) = b(Omega) - b(complement of A)``,
* commonality ``q(A) = sum_{B superset of A} m(B)`` (so ``q(empty)`` is the total mass).

The inverse transforms assume a total mass of 1: ``bel_to_mass`` puts ``1 - bel(Omega)`` on the
empty set and ``pl_to_mass`` puts ``1 - pl(Omega)`` there (zero for a normalised function).

Examples
--------
>>> import numpy as np
>>> m = np.array([0.0, 0.5, 0.2, 0.3])        # frame {x, y}: m({x}) = .5, m({y}) = .2, m(Omega) = .3
>>> mass_to_bel(m)
array([0. , 0.5, 0.2, 1. ])
>>> mass_to_pl(m)
array([0. , 0.8, 0.5, 1. ])
>>> mass_to_q(m)
array([1. , 0.8, 0.5, 0.3])
>>> np.allclose(q_to_mass(mass_to_q(m)), m)
True
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "mass_to_b",
    "b_to_mass",
    "mass_to_bel",
    "bel_to_mass",
    "mass_to_pl",
    "pl_to_mass",
    "mass_to_q",
    "q_to_mass",
]


def _as_setfunction(x: ArrayLike, name: str) -> tuple[np.ndarray, int]:
    arr = np.array(x, dtype=np.float64, copy=True)
    if arr.ndim == 0:
        raise ValueError(f"{name} must be an array whose last axis has length 2**K, got a scalar.")
    n = arr.shape[-1]
    if n < 2 or n & (n - 1):
        raise ValueError(
            f"{name} has last-axis length {n}, which is not 2**K for a frame of K >= 1 elements; "
            "give one value per subset, in bitmask order (length 2, 4, 8, ...)."
        )
    return arr, n.bit_length() - 1


def _zeta(arr: np.ndarray, k: int, *, superset: bool, inverse: bool) -> np.ndarray:
    """In-place (inverse) zeta transform over subsets or supersets along the last axis."""
    shape = arr.shape
    flat = arr.reshape(-1, 1 << k)
    for i in range(k):
        v = flat.reshape(flat.shape[0], 1 << (k - 1 - i), 2, 1 << i)
        lo, hi = v[:, :, 0, :], v[:, :, 1, :]
        if superset:
            if inverse:
                lo -= hi
            else:
                lo += hi
        else:
            if inverse:
                hi -= lo
            else:
                hi += lo
    return flat.reshape(shape)


def mass_to_b(m: ArrayLike) -> np.ndarray:
    """Implicability ``b(A) = sum_{B subset of A} m(B)`` (empty set included).

    Examples
    --------
    >>> mass_to_b([0.1, 0.4, 0.2, 0.3])
    array([0.1, 0.5, 0.3, 1. ])
    """
    arr, k = _as_setfunction(m, "m")
    return _zeta(arr, k, superset=False, inverse=False)


def b_to_mass(b: ArrayLike) -> np.ndarray:
    """Masses from the implicability function (inverse of :func:`mass_to_b`).

    Examples
    --------
    >>> b_to_mass([0.1, 0.5, 0.3, 1.0])
    array([0.1, 0.4, 0.2, 0.3])
    """
    arr, k = _as_setfunction(b, "b")
    return _zeta(arr, k, superset=False, inverse=True)


def mass_to_bel(m: ArrayLike) -> np.ndarray:
    """Belief ``bel(A) = sum_{empty != B subset of A} m(B)``.

    Examples
    --------
    >>> mass_to_bel([0.1, 0.4, 0.2, 0.3])
    array([0. , 0.4, 0.2, 0.9])
    """
    b = mass_to_b(m)
    return b - b[..., :1]


def bel_to_mass(bel: ArrayLike) -> np.ndarray:
    """Masses from a belief function, with ``m(empty) = 1 - bel(Omega)``.

    Examples
    --------
    >>> bel_to_mass([0.0, 0.4, 0.2, 0.9]).round(12)
    array([0.1, 0.4, 0.2, 0.3])
    """
    arr, k = _as_setfunction(bel, "bel")
    arr += 1.0 - arr[..., -1:]
    return _zeta(arr, k, superset=False, inverse=True)


def mass_to_pl(m: ArrayLike) -> np.ndarray:
    """Plausibility ``pl(A) = sum_{B cap A != empty} m(B)``.

    Examples
    --------
    >>> mass_to_pl([0.1, 0.4, 0.2, 0.3])
    array([0. , 0.7, 0.5, 0.9])
    """
    b = mass_to_b(m)
    return b[..., -1:] - b[..., ::-1]


def pl_to_mass(pl: ArrayLike) -> np.ndarray:
    """Masses from a plausibility function, with ``m(empty) = 1 - pl(Omega)``.

    Examples
    --------
    >>> pl_to_mass([0.0, 0.7, 0.5, 0.9]).round(12)
    array([0.1, 0.4, 0.2, 0.3])
    """
    arr, k = _as_setfunction(pl, "pl")
    b = 1.0 - arr[..., ::-1]
    return _zeta(np.ascontiguousarray(b), k, superset=False, inverse=True)


def mass_to_q(m: ArrayLike) -> np.ndarray:
    """Commonality ``q(A) = sum_{B superset of A} m(B)``.

    Examples
    --------
    >>> mass_to_q([0.1, 0.4, 0.2, 0.3])
    array([1. , 0.7, 0.5, 0.3])
    """
    arr, k = _as_setfunction(m, "m")
    return _zeta(arr, k, superset=True, inverse=False)


def q_to_mass(q: ArrayLike) -> np.ndarray:
    """Masses from a commonality function (inverse of :func:`mass_to_q`).

    Examples
    --------
    >>> q_to_mass([1.0, 0.7, 0.5, 0.3]).round(12)
    array([0.1, 0.4, 0.2, 0.3])
    """
    arr, k = _as_setfunction(q, "q")
    return _zeta(arr, k, superset=True, inverse=True)
