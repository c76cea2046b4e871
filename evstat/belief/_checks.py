"""Validation of mass values shared by MassFunction and MassArray (private)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from evstat.belief.frame import Frame

#: Masses must sum to one within this tolerance.
SUM_TOL = 1e-9
#: Negative masses down to -ROUND_TOL are read as round-off and set to exactly 0.
ROUND_TOL = 1e-12


def _rows_text(rows: np.ndarray, index: Any = None, limit: int = 5) -> str:
    shown = []
    for r in rows[:limit]:
        if index is not None:
            shown.append(f"{int(r)} (index {index[int(r)]!r})")
        else:
            shown.append(str(int(r)))
    more = f" and {len(rows) - limit} more" if len(rows) > limit else ""
    word = "row" if len(rows) == 1 else "rows"
    return f"{word} {', '.join(shown)}{more}"


def _is_mapping(x: Any) -> bool:
    if isinstance(x, Mapping):
        return True
    try:
        import pandas as pd

        return isinstance(x, pd.Series)
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False


def mapping_to_columns(frame: Frame, masses: Any, what: str) -> dict[int, Any]:
    """Read ``{subset: value}`` into ``{mask: value}``; ValueError on repeated subsets."""
    out: dict[int, Any] = {}
    for key, val in masses.items():
        m = frame.mask(key)
        if m in out:
            raise ValueError(
                f"The subset {frame.format(m, is_mask=True)} is given twice in the {what} "
                f"(the second time as {key!r}); give each subset once."
            )
        out[m] = val
    return out


def check_mass_matrix(
    values: np.ndarray,
    frame: Frame,
    *,
    unnormalized: bool,
    single: bool,
    index: Any = None,
    what: str = "masses",
) -> np.ndarray:
    """Validate an (n, 2**K) float array of masses in place; return it.

    Negative values within round-off (>= -1e-12) become 0; so does a round-off mass on the empty
    set when ``unnormalized`` is False.
    """
    def where(rows: np.ndarray) -> str:
        return "" if single else f" in {_rows_text(rows, index)}"

    def subsets_of(rows_cols: np.ndarray) -> str:
        cols = np.unique(rows_cols)
        return ", ".join(frame.format(int(c), is_mask=True) for c in cols[:5])

    finite = np.isfinite(values)
    if not finite.all():
        r, c = np.nonzero(~finite)
        kind = "NaN" if np.isnan(values[r, c]).any() else "infinite"
        raise ValueError(
            f"The {what} contain {kind} values{where(np.unique(r))} (subsets {subsets_of(c)}). "
            "Masses must be finite numbers in [0, 1]; replace or drop the missing values first."
        )
    neg = values < 0.0
    if neg.any():
        bad = values < -ROUND_TOL
        if bad.any():
            r, c = np.nonzero(bad)
            raise ValueError(
                f"The {what} contain negative values{where(np.unique(r))} (for example "
                f"{values[r[0], c[0]]:.6g} on {frame.format(int(c[0]), is_mask=True)}). Masses "
                "must be non-negative."
            )
        values[neg] = 0.0
    if not unnormalized:
        emp = values[:, 0]
        if (emp > ROUND_TOL).any():
            rows = np.flatnonzero(emp > ROUND_TOL)
            raise ValueError(
                f"The {what} put mass {emp[rows[0]]:.6g} on the empty set{where(rows)}. A "
                "normalised mass function has m(empty) = 0: move that mass to a non-empty subset, "
                "or pass unnormalized=True to keep it (open world, conjunctive rule)."
            )
        emp[:] = 0.0
    sums = values.sum(axis=1)
    off = np.abs(sums - 1.0) > SUM_TOL
    if off.any():
        rows = np.flatnonzero(off)
        if single:
            what_sum = f"sum to {sums[0]:.10g}, not 1 (tolerance {SUM_TOL:g})"
        else:
            what_sum = (
                f"do not sum to 1{where(rows)} (row {rows[0]} sums to {sums[rows[0]]:.10g}; "
                f"tolerance {SUM_TOL:g})"
            )
        raise ValueError(
            f"The {what} {what_sum}. Masses of a mass function must sum to one: rescale them, or "
            "put the missing mass on the whole frame (ignorance)."
        )
    return values


def as_mass_row(frame: Frame, masses: Any, what: str = "masses") -> np.ndarray:
    """Dense float vector of length 2**K from a mapping or an array-like (no value checks)."""
    size = frame.n_subsets
    if _is_mapping(masses):
        cols = mapping_to_columns(frame, masses, what)
        vec = np.zeros(size)
        for m, v in cols.items():
            try:
                vec[m] = float(v)
            except (TypeError, ValueError):
                raise TypeError(
                    f"The {what} must be numbers; got {v!r} for {frame.format(m, is_mask=True)}."
                ) from None
        return vec
    try:
        arr = np.array(masses, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"The {what} must be a mapping {{subset: value}} or an array of {size} numbers in "
            f"bitmask order; got {type(masses).__name__}."
        ) from None
    if arr.shape != (size,):
        raise ValueError(
            f"The {what} array has shape {arr.shape}, but the frame {frame!r} needs {size} values "
            "(one per subset, in bitmask order). Give a mapping {subset: value} instead to name "
            "the subsets."
        )
    return arr


def check_alpha(alpha: Any, n: int | None) -> np.ndarray:
    """Validate a discount rate (scalar or one per row) in [0, 1]."""
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim > 1 or (a.ndim == 1 and (n is None or a.shape[0] != n)):
        need = "a scalar" if n is None else f"a scalar or an array of {n} values (one per row)"
        raise ValueError(f"alpha must be {need}; got shape {a.shape}.")
    if not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(a > 1):
        raise ValueError(
            f"alpha (the reliability kept by discounting) must lie in [0, 1]; got {alpha!r}. "
            "alpha = 1 keeps the mass function, alpha = 0 makes it vacuous."
        )
    return a
