"""Input checks shared by the metrics (private).

Every public metric takes plain array-likes (lists, numpy arrays, pandas Series) and converts them
here, failing early with a ValueError that names the argument, the offending rows and the fix.
Nothing is dropped or clipped silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__: list[str] = []


def _first_rows(mask: np.ndarray, k: int = 3) -> str:
    pos = np.flatnonzero(mask)[:k]
    return ", ".join(str(int(i)) for i in pos)


def as_float_1d(x: Any, name: str) -> np.ndarray:
    """Convert an array-like to a 1-D float64 array (no value checks beyond numeric type)."""
    if isinstance(x, pd.DataFrame):
        raise ValueError(
            f"{name} must be one-dimensional; got a DataFrame with {x.shape[1]} column(s). "
            f"Pass a single column, e.g. df['{name}']."
        )
    if isinstance(x, (pd.Series, pd.Index)):
        if pd.api.types.is_numeric_dtype(x.dtype) or pd.api.types.is_bool_dtype(x.dtype):
            return np.asarray(x.to_numpy(dtype=float, na_value=np.nan), dtype=float)
        if x.dtype != object:
            raise ValueError(
                f"{name} must be numeric; got a pandas column of dtype {x.dtype}. "
                f"Convert it to numbers first."
            )
        x = x.to_numpy(dtype=object)
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be one-dimensional; got an array of shape {arr.shape}. "
            f"Pass one value per row."
        )
    if arr.dtype.kind in "biuf":
        return arr.astype(float)
    if arr.dtype.kind == "O" and not any(isinstance(v, (str, bytes)) for v in arr):
        try:
            return np.array([np.nan if v is None or v is pd.NA else float(v) for v in arr])
        except (TypeError, ValueError):
            pass
    raise ValueError(
        f"{name} must be numeric; got values of dtype {arr.dtype} (for example {arr[:3].tolist()!r})."
    )


def check_nonempty(arr: np.ndarray, name: str) -> None:
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty (0 rows); metrics need at least one row.")


def check_finite(arr: np.ndarray, name: str) -> None:
    """Refuse NaN or infinite values; a 2-D array (one row per data row) is judged by rows."""
    bad_values = ~np.isfinite(arr)
    if bad_values.any():
        nan = np.isnan(arr)
        what = "missing (NaN)" if bad_values.sum() == nan.sum() else "missing or infinite"
        if arr.ndim > 1:
            bad = bad_values.reshape(arr.shape[0], -1).any(axis=1)
            count = f"{int(bad.sum())} row(s) with {what} values ({int(bad_values.sum())} value(s))"
        else:
            bad = bad_values
            count = f"{int(bad.sum())} {what} value(s)"
        raise ValueError(
            f"{name} has {count} out of {arr.shape[0]} rows (first at row(s) "
            f"{_first_rows(bad)}); drop or impute these rows first."
        )


def check_y(y: Any, name: str = "y") -> np.ndarray:
    """Binary response: 0/1 numbers or bool -> int64 array of 0/1."""
    arr = as_float_1d(y, name)
    check_nonempty(arr, name)
    check_finite(arr, name)
    bad = (arr != 0.0) & (arr != 1.0)
    if bad.any():
        vals = np.unique(arr[bad])[:5].tolist()
        raise ValueError(
            f"{name} must be binary (0/1 or bool); {int(bad.sum())} of {arr.shape[0]} rows have "
            f"other values, e.g. {vals} (first at row(s) {_first_rows(bad)}). Recode the response "
            f"as 0/1 with 1 for the positive class."
        )
    return arr.astype(np.int64)


def check_prob(p: Any, name: str = "p") -> np.ndarray:
    """Probabilities in [0, 1], finite -> float64 array."""
    arr = as_float_1d(p, name)
    check_nonempty(arr, name)
    check_finite(arr, name)
    bad = (arr < 0.0) | (arr > 1.0)
    if bad.any():
        raise ValueError(
            f"{name} must lie in [0, 1]; {int(bad.sum())} of {arr.shape[0]} rows are outside "
            f"(first at row(s) {_first_rows(bad)}, e.g. {float(arr[bad][0])!r}). Pass probabilities, "
            f"not scores; calibrate scores first."
        )
    return arr


def check_same_length(**arrays: np.ndarray) -> None:
    items = list(arrays.items())
    n0 = items[0][1].shape[0]
    for name, arr in items[1:]:
        if arr.shape[0] != n0:
            raise ValueError(
                f"{items[0][0]} has {n0} rows but {name} has {arr.shape[0]} rows; "
                f"pass one value per row for each argument."
            )


def check_bel_pl(bel: Any, pl: Any) -> tuple[np.ndarray, np.ndarray]:
    """Bel({1}) and Pl({1}) per row, both in [0, 1], with bel <= pl."""
    b = check_prob(bel, "bel")
    q = check_prob(pl, "pl")
    check_same_length(bel=b, pl=q)
    bad = b > q
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"bel must not exceed pl; {int(bad.sum())} of {b.shape[0]} rows have bel > pl "
            f"(first at row {i}: bel={float(b[i])!r}, pl={float(q[i])!r}). Pass Bel({{1}}) and Pl({{1}}) in "
            f"this order."
        )
    return b, q


def check_y_p(y: Any, p: Any) -> tuple[np.ndarray, np.ndarray]:
    yy = check_y(y)
    pp = check_prob(p)
    check_same_length(y=yy, p=pp)
    return yy, pp


def check_bins(bins: Any, name: str = "bins") -> int:
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, (int, np.integer)):
        raise ValueError(f"{name} must be a positive integer; got {bins!r}.")
    if bins < 1:
        raise ValueError(f"{name} must be a positive integer; got {bins!r}.")
    return int(bins)


def check_level(level: Any) -> float:
    try:
        lv = float(level)
    except (TypeError, ValueError):
        raise ValueError(f"level must be a number in (0, 1); got {level!r}.") from None
    if not 0.0 < lv < 1.0:
        raise ValueError(f"level must be in (0, 1), e.g. 0.95; got {level!r}.")
    return lv


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        opts = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {opts}; got {value!r}.")
    return value
