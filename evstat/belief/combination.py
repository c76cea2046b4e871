"""Combination of mass functions: :func:`combine`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

import numpy as np
import pandas as pd

from evstat.belief import rules
from evstat.belief._base import MassBase
from evstat.belief._checks import _rows_text

if TYPE_CHECKING:
    from evstat.belief.mass import MassFunction
    from evstat.belief.massarray import MassArray

__all__ = ["combine", "RULES"]

RULES = rules.RULES

_MassLike = Union["MassFunction", "MassArray"]


def _common_index(items: list[_MassLike]) -> pd.Index | None:
    idx = None
    for x in items:
        if isinstance(x, MassBase) and x.batch and x.index is not None:
            if idx is None:
                idx = x.index
            elif not x.index.equals(idx):
                raise ValueError(
                    "Cannot combine MassArrays with different row indexes; combination is row by "
                    "row, so align them first (same index labels in the same order)."
                )
    return idx


def combine(*masses: MassFunction | MassArray, rule: str = "dempster") -> MassFunction | MassArray:
    """Combine mass functions on one frame.

    Parameters
    ----------
    *masses : MassFunction or MassArray
        Two or more (one is returned unchanged). MassArrays are combined row by row and must have
        the same length; a MassFunction is combined with every row of a MassArray.
    rule : {"dempster", "conjunctive", "disjunctive", "yager", "dubois_prade", "cautious", "average"}
        * ``"dempster"``: conjunctive sum normalised by ``1 - K``; raises ValueError
          (:class:`~evstat.belief.rules.TotalConflictError`) on total conflict ``K = 1``
          (numerically ``1 - K <= 1e-12``).
        * ``"conjunctive"``: unnormalised (Smets' TBM) rule; the conflict stays on the empty set.
        * ``"disjunctive"``: ``m(A) = sum_{B cup C = A} m1(B) m2(C)``.
        * ``"yager"``: conjunctive, then the conflict moves to the whole frame.
        * ``"dubois_prade"``: each conflicting product ``m1(B) m2(C)`` goes to ``B cup C``
          (inputs must be normalised).
        * ``"cautious"``: Denoeux's normalised cautious rule for non-distinct sources (minimum
          of the weights of the canonical decompositions; idempotent); inputs must be
          nondogmatic (``m(frame) > 0``), see :func:`evstat.belief.rules.cautious`.
        * ``"average"``: the arithmetic mean of all the mass functions.

        Dempster, conjunctive, disjunctive and cautious are commutative and associative. Yager's and
        Dubois-Prade's rules are not associative: with more than two inputs they are applied
        left to right, ``((m1 * m2) * m3) * ...``.

    Returns
    -------
    MassFunction, or MassArray if any input is a MassArray (with the inputs' row index).

    Raises
    ------
    ValueError
        Inputs on different frames, batches of different lengths or indexes, an unknown rule,
        total conflict under Dempster's rule, or unnormalised inputs to Dubois-Prade's rule.

    Examples
    --------
    >>> from evstat.belief import MassFunction
    >>> m1 = MassFunction([0, 1], {0: 0.6, (0, 1): 0.4})
    >>> m2 = MassFunction([0, 1], {1: 0.5, (0, 1): 0.5})
    >>> combine(m1, m2)
    MassFunction on {0, 1}
      {0}     0.428571
      {1}     0.285714
      {0, 1}  0.285714
    >>> combine(m1, m2, rule="conjunctive")
    MassFunction on {0, 1}
      {}      0.3
      {0}     0.3
      {1}     0.2
      {0, 1}  0.2
    """
    if rule not in rules.RULES:
        raise ValueError(
            f"Unknown combination rule {rule!r}; use one of {', '.join(map(repr, rules.RULES))}."
        )
    items = list(masses)
    if not items:
        raise ValueError("combine needs at least one mass function.")
    for i, x in enumerate(items):
        if not isinstance(x, MassBase):
            raise TypeError(
                f"Argument {i} of combine is a {type(x).__name__}; give MassFunction or "
                "MassArray objects (build one with MassFunction(frame, {subset: mass}))."
            )
    frame = items[0].frame
    for x in items[1:]:
        frame._check_same(x.frame)
    batch = any(x.batch for x in items)
    lengths = sorted({len(x) for x in items if x.batch})
    if len(lengths) > 1:
        raise ValueError(
            f"Cannot combine MassArrays of different lengths {lengths} row by row; give batches "
            "with the same number of rows."
        )
    index = _common_index(items)
    arrays = [x.values for x in items]

    if rule == "dubois_prade":
        for i, a in enumerate(arrays):
            if np.any(np.atleast_2d(a)[:, 0] > 0):
                raise ValueError(
                    f"Dubois-Prade's rule needs normalised mass functions, but argument {i} has "
                    "mass on the empty set; call .normalize() on it first."
                )

    if rule == "average":
        if batch:
            stacked = [np.broadcast_to(np.atleast_2d(a), (lengths[0], frame.n_subsets)) for a in arrays]
            out = np.mean(stacked, axis=0)
        else:
            out = np.mean(arrays, axis=0)
    else:
        kernel = rules.cautious if rule == "cautious" else rules.KERNELS[rule]
        out = arrays[0]
        try:
            for a in arrays[1:]:
                out = kernel(out, a)
        except rules.TotalConflictError as err:
            if batch and err.rows is not None:
                raise rules.TotalConflictError(
                    f"Dempster's rule is undefined in {_rows_text(err.rows, index)} ({len(err.rows)} "
                    f"of {lengths[0]}): those mass functions are in total conflict (K = 1, no "
                    "pair of focal sets intersects). Use rule='conjunctive' to keep the conflict "
                    "on the empty set, or rule='yager' / 'dubois_prade' to reassign it.",
                    err.rows,
                ) from None
            raise rules.TotalConflictError(
                "Dempster's rule is undefined: the mass functions are in total conflict (K = 1, "
                "no pair of focal sets intersects). Use rule='conjunctive' to keep the conflict "
                "on the empty set, or rule='yager' / 'dubois_prade' to reassign it."
            ) from None
    if batch:
        out2 = np.atleast_2d(out)
        if out2.shape[0] != lengths[0]:
            out2 = np.broadcast_to(out2, (lengths[0], frame.n_subsets))
        batch_cls = next(type(x) for x in items if x.batch)
        return batch_cls._from_values(frame, out2, index)
    return type(items[0])._from_values(frame, out)
