"""Array-level operations on batches of dense mass vectors, shape (n, 2**K) (private).

MassFunction and MassArray both delegate here, so one mass function and one row of a batch are
computed by the same code.
"""

from __future__ import annotations

import numpy as np

from evstat.belief.frame import Frame
from evstat.belief.transforms import _zeta


def cols_bel(frame: Frame, a: int) -> np.ndarray:
    """Masks B with 0 != B subset of a."""
    masks = frame._masks()
    return masks[((masks & ~a) == 0) & (masks != 0)]


def cols_pl(frame: Frame, a: int) -> np.ndarray:
    """Masks B with B cap a != 0."""
    masks = frame._masks()
    return masks[(masks & a) != 0]


def cols_q(frame: Frame, a: int) -> np.ndarray:
    """Masks B with B superset of a."""
    masks = frame._masks()
    return masks[(masks & a) == a]


def _where(rows: np.ndarray, single: bool) -> str:
    if single:
        return ""
    more = f" and {rows.size - 5} more" if rows.size > 5 else ""
    return f" (rows {', '.join(str(int(r)) for r in rows[:5])}{more})"


def sum_cols(values: np.ndarray, cols: np.ndarray) -> np.ndarray:
    if cols.size == 0:
        return np.zeros(values.shape[0])
    if cols.size == values.shape[1]:
        return values.sum(axis=1)
    return values[:, cols].sum(axis=1)


def singleton_cols(frame: Frame) -> np.ndarray:
    return np.array([1 << i for i in range(frame.size)], dtype=np.int64)


def contour(values: np.ndarray, frame: Frame) -> np.ndarray:
    """pl({w}) for every element: the commonality of the singletons, shape (n, K)."""
    q = _zeta(np.array(values, dtype=np.float64), frame.size, superset=True, inverse=False)
    return q[:, singleton_cols(frame)]


def betp(values: np.ndarray, frame: Frame, single: bool = False) -> np.ndarray:
    """Pignistic probabilities, shape (n, K); raises if all mass is on the empty set."""
    norm = values[:, 1:].sum(axis=1)
    if (norm <= 0.0).any():
        rows = np.flatnonzero(norm <= 0.0)
        raise ValueError(
            "The pignistic transform is undefined when all the mass is on the empty set "
            f"(m(empty) = 1){_where(rows, single)}. Combine with a rule that keeps no mass on the "
            "empty set (dempster, yager, dubois_prade) instead."
        )
    card = frame.cardinalities()
    w = np.zeros(values.shape, dtype=np.float64)
    w[:, 1:] = values[:, 1:] / card[1:]
    w = _zeta(w, frame.size, superset=True, inverse=False)
    return w[:, singleton_cols(frame)] / norm[:, None]


def plausibility_transform(values: np.ndarray, frame: Frame, single: bool = False) -> np.ndarray:
    c = contour(values, frame)
    tot = c.sum(axis=1)
    if (tot <= 0.0).any():
        rows = np.flatnonzero(tot <= 0.0)
        raise ValueError(
            "The plausibility transform is undefined when every singleton has plausibility 0 "
            f"(all mass on the empty set){_where(rows, single)}."
        )
    return c / tot[:, None]


def nonspecificity(values: np.ndarray, frame: Frame) -> np.ndarray:
    """Generalised Hartley measure sum_A m(A) log2 |A| (the empty set contributes 0)."""
    card = frame.cardinalities()
    return values[:, 1:] @ np.log2(card[1:].astype(np.float64))


def discount(values: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    a = alpha if alpha.ndim == 0 else alpha[:, None]
    out = values * a
    out[:, -1] += 1.0 - alpha
    return out


def normalize(values: np.ndarray, single: bool = False) -> np.ndarray:
    norm = values[:, 1:].sum(axis=1)
    if (norm <= 0.0).any():
        rows = np.flatnonzero(norm <= 0.0)
        raise ValueError(
            "Cannot normalise a mass function with all its mass on the empty set (m(empty) = 1)"
            f"{_where(rows, single)}: there is nothing left to rescale."
        )
    out = np.zeros_like(values)
    out[:, 1:] = values[:, 1:] / norm[:, None]
    return out
