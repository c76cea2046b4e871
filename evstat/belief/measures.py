"""Uncertainty measures of mass functions (single or batched)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evstat.belief import _ops, rules
from evstat.belief._base import MassBase

if TYPE_CHECKING:
    from evstat.belief.mass import MassFunction
    from evstat.belief.massarray import MassArray

__all__ = ["nonspecificity", "conflict", "pignistic_entropy"]


def nonspecificity(m: MassFunction | MassArray) -> float | np.ndarray:
    """Generalised Hartley measure ``N(m) = sum_A m(A) log2 |A|`` (bits; m(empty) counts 0).

    On the frame ``{0, 1}`` it equals the ignorance ``m({0, 1})`` (Hartley sampling, Ramel et al. 2018).

    Examples
    --------
    >>> from evstat.belief import MassFunction
    >>> nonspecificity(MassFunction([0, 1], {1: 0.7, (0, 1): 0.3}))
    0.3
    """
    if isinstance(m, MassBase):
        return m.nonspecificity()
    raise TypeError(f"nonspecificity needs a MassFunction or MassArray, got {type(m).__name__}.")


def conflict(
    m1: MassFunction | MassArray, m2: MassFunction | MassArray
) -> float | np.ndarray:
    """Degree of conflict ``K = sum_{B cap C = empty} m1(B) m2(C)`` (the conjunctive ``m(empty)``).

    Returns a float for two MassFunctions, else an array with one value per row.

    Examples
    --------
    >>> from evstat.belief import MassFunction
    >>> conflict(MassFunction([0, 1], {0: 1.0}), MassFunction([0, 1], {1: 0.25, (0, 1): 0.75}))
    0.25
    """
    for x in (m1, m2):
        if not isinstance(x, MassBase):
            raise TypeError(f"conflict needs MassFunction or MassArray objects, got {type(x).__name__}.")
    m1.frame._check_same(m2.frame)
    if m1.batch and m2.batch and len(m1) != len(m2):
        raise ValueError(
            f"Cannot compare MassArrays of different lengths ({len(m1)} and {len(m2)}) row by row."
        )
    k = rules.conflict_degree(m1.values, m2.values)
    if not m1.batch and not m2.batch:
        return float(k)
    return np.asarray(k, dtype=np.float64)


def pignistic_entropy(m: MassFunction | MassArray) -> float | np.ndarray:
    """Shannon entropy (bits) of the pignistic probabilities, ``-sum_w BetP(w) log2 BetP(w)``.

    Used by pignistic sampling (Ramel et al. 2018); ``0 log 0 = 0``.

    Examples
    --------
    >>> from evstat.belief import MassFunction
    >>> pignistic_entropy(MassFunction([0, 1], {(0, 1): 1.0}))
    1.0
    """
    if isinstance(m, MassBase) and not m.batch:
        p = _ops.betp(m.values[None, :], m.frame, single=True)
    elif isinstance(m, MassBase):
        p = _ops.betp(m.values, m.frame)
    else:
        raise TypeError(f"pignistic_entropy needs a MassFunction or MassArray, got {type(m).__name__}.")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    h = terms.sum(axis=1)
    return h if m.batch else float(h[0])
