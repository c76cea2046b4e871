"""Data helpers shared by the plots and the report (public for that reason): evaluation rows,
their labels and predictions.

Every plot takes a fitted two-class model (any :class:`evstat.results.Results` with K = 2) and
optional new data. Without ``newdata`` it uses the calibration rows (their labels are known);
with ``newdata`` the labels come from ``y`` (0/1 codes, the response levels, or a column name) or,
by default, from the response column of the formula when ``newdata`` has it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import pandas as pd

from evstat.formula import code_response

__all__ = [
    "calibration_scores",
    "code_labels",
    "evaluation_labels",
    "prediction_cache",
    "predictions",
    "quiet_empty_cells",
    "rows",
    "score_columns",
]


def score_columns(results: Any) -> list[str]:
    """The data columns the calibrator's formula uses (J = their number)."""
    return list(results.score_columns)


def calibration_scores(results: Any) -> pd.DataFrame:
    """The calibration rows' score columns (as the formula saw them) and coded labels ``.y``."""
    data = results.training_data()
    out = pd.DataFrame({c: np.asarray(data[c], dtype=float) for c in results.score_columns}, index=data.index)
    out[".y"] = np.asarray(results.training_codes(), dtype=float)
    return out


def _fmt(values: list[Any], limit: int = 5) -> str:
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in values[:limit])
    return "[" + shown + (", ..." if len(values) > limit else "") + "]"


def code_labels(results: Any, values: Any, what: str = "y") -> np.ndarray:
    """Code observed classes as 0/1 (1 = the positive level of the calibration response).

    ``values`` may hold the response levels of the calibration data (e.g. ``"M"``/``"R"``) or
    0/1 (bool) codes with 1 = positive. Missing values and other levels are an error.
    """
    neg, pos = results.classes
    arr = np.asarray(values, dtype=object).ravel()
    if arr.size == 0:
        return np.zeros(0)
    isna = pd.isna(pd.Series(arr, dtype=object)).to_numpy()
    if isna.any():
        raise ValueError(
            f"{what} has missing values in {int(isna.sum())} of {arr.size} rows: the observed "
            "classes must be known to score the predictions; drop these rows first"
        )

    codes = code_response(arr, (neg, pos), what, strict=False)
    known = codes >= 0
    if known.all():
        return codes.astype(float)
    def is_code(v: Any) -> bool:
        if isinstance(v, str):
            return False
        try:
            return float(v) in (0.0, 1.0)
        except (TypeError, ValueError):
            return False

    code = np.array([is_code(v) for v in arr], dtype=bool)
    if code.all():
        return np.asarray([float(v) for v in arr])
    bad = [v for v, ok in zip(arr, known | code) if not ok]
    if not bad:
        raise ValueError(
            f"{what} mixes the classes ({neg!r}, {pos!r}) of the calibration response with 0/1 "
            "codes: give one or the other"
        )
    raise ValueError(
        f"{what} has values {_fmt(list(dict.fromkeys(bad)))} that are neither the classes "
        f"({neg!r}, {pos!r}) of the calibration response nor 0/1 codes (1 = {pos!r})"
    )


def evaluation_labels(results: Any, newdata: pd.DataFrame | None, y: Any = None) -> np.ndarray | None:
    """0/1 labels of the evaluation rows, or None when they are unknown.

    ``newdata`` None: the calibration labels (``y`` must then be None). Otherwise ``y`` may be a
    column name of ``newdata`` or an array-like of one label per row; by default the formula's
    response column of ``newdata`` is used if present, else None.
    """
    if newdata is None:
        if y is not None:
            raise ValueError(
                "y was given without newdata: the calibration labels are used when newdata is "
                "None; pass the rows the labels belong to as newdata"
            )
        return np.asarray(results.training_codes(), dtype=float)
    if y is None:
        response = results.response
        if response in newdata.columns:
            return code_labels(results, newdata[response].to_numpy(), f"column {response!r} of newdata")
        return None
    if isinstance(y, str):
        if y not in newdata.columns:
            raise ValueError(
                f"y = {y!r} is not a column of newdata (columns: {_fmt(list(newdata.columns), 20)}); "
                "pass the label column's name or an array of labels"
            )
        return code_labels(results, newdata[y].to_numpy(), f"column {y!r} of newdata")
    codes = code_labels(results, y)
    if codes.size != len(newdata):
        raise ValueError(
            f"y has {codes.size} labels but newdata has {len(newdata)} rows: give one label per row"
        )
    return codes


@contextmanager
def quiet_empty_cells() -> Iterator[None]:
    """Silence the warning of cell calibrators (evbinning, isotonic) that a prediction falls in an
    empty cell: on a plotting grid those points are expected and drawn as gaps."""
    with warnings.catch_warnings():
        try:
            from evstat.calibration.binning import EmptyCellWarning
        except ImportError:  # pragma: no cover - the cell calibrators are optional
            pass
        else:
            warnings.simplefilter("ignore", EmptyCellWarning)
        yield


_CACHE: ContextVar[dict[tuple[int, int], tuple[Any, Any, pd.DataFrame]] | None] = ContextVar(
    "evstat_prediction_cache", default=None
)


@contextmanager
def prediction_cache() -> Iterator[None]:
    """Within this block :func:`predictions` computes each (results, newdata) pair once (the
    report draws several figures of the same rows; evlogit's Bel/Pl cost ~1 ms per row)."""
    token = _CACHE.set({})
    try:
        yield
    finally:
        _CACHE.reset(token)


def predictions(results: Any, newdata: pd.DataFrame | None) -> pd.DataFrame:
    """[theta, bel, pl] of the calibration rows (``newdata`` None) or of ``newdata``."""
    if newdata is not None and not isinstance(newdata, pd.DataFrame):
        raise TypeError(
            f"newdata must be a pandas DataFrame with the score columns {score_columns(results)}, "
            f"got {type(newdata).__name__}"
        )
    cache = _CACHE.get()
    key = (id(results), id(newdata))
    if cache is not None and key in cache:
        return cache[key][2]
    cached = getattr(results, "calibration_belief", None)
    sample = getattr(results, "calibration_sample", None)
    # the cached calibration belief covers every calibration row unless it is a subsample
    if newdata is None and callable(cached) and (sample is None or sample() is None):
        out = cached()
    else:
        out = results.predict(newdata, type="belief")
    if cache is not None:
        cache[key] = (results, newdata, out)  # the references keep the ids valid
    return out


def rows(k: int) -> str:
    """``"1 row"``, ``"3 rows"``."""
    return f"{k} row" if k == 1 else f"{k} rows"


def data_description(results: Any, newdata: pd.DataFrame | None) -> str:
    """``"calibration data (79 rows)"`` or ``"new data (79 rows)"``."""
    if newdata is None:
        return f"calibration data ({results.nobs} rows)"
    return f"new data ({len(newdata)} rows)"
