"""Response coding: class labels -> codes, for two levels (with ``positive=``) and for K levels.

One rule orders the levels everywhere (R's factor levels): the observed categories in category
order for a pandas Categorical, else the sorted distinct values (``positive=`` may also name a
level of values that cannot be sorted). Two levels are coded 0/1 with ``positive`` coded 1 (by
default the second level, as R's ``glm``); K >= 3 levels are coded 0..K-1 in that order.
:func:`code_response` codes observed labels against a fitted model's classes.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd

from evstat.exceptions import EvstatWarning
from evstat.formula._util import _SHOW, _fmt_values, _native, _rows


def _sorted_levels(levels: list[Any], name: str) -> list[Any]:
    try:
        return sorted(levels)
    except TypeError:
        raise ValueError(
            f"the levels {_fmt_values(levels)} of response {name!r} have mixed types and cannot "
            "be ordered to choose the positive class: pass positive=<the level coded 1>"
        ) from None


def _try_sorted(levels: list[Any]) -> list[Any]:
    try:
        return sorted(levels)
    except TypeError:
        return levels


def observed_levels(series: pd.Series) -> list[Any]:
    """The observed levels of a complete response column, in R's factor order.

    A pandas Categorical: its categories in category order, unused ones dropped; otherwise the
    distinct values sorted (in order of first appearance when they cannot be sorted).

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.formula.response import observed_levels
    >>> observed_levels(pd.Series(["b", "a", "c", "a"]))
    ['a', 'b', 'c']
    >>> observed_levels(pd.Series(pd.Categorical(["lo", "hi"], categories=["lo", "mid", "hi"])))
    ['lo', 'hi']
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        observed = set(pd.unique(series.cat.codes.to_numpy()).tolist())
        return [_native(c) for k, c in enumerate(series.cat.categories) if k in observed]
    return _try_sorted([_native(v) for v in pd.unique(series.to_numpy(dtype=object))])


class EmptyClassWarning(EvstatWarning):
    """A category of a categorical response has no rows in the calibration data."""


def _warn_empty_classes(series: pd.Series, name: str, levels: list[Any]) -> None:
    """Warn, as R's ``nnet::multinom`` ("group 'mid' is empty"), that declared categories
    without rows are dropped: the model knows only the observed classes and never predicts the
    others. Silent before: a 3-category response with one empty category became a binary fit."""
    absent = [_native(c) for c in series.cat.categories if _native(c) not in levels]
    if absent:
        warnings.warn(
            f"response column {name!r} is categorical with categories "
            f"{_fmt_values([_native(c) for c in series.cat.categories])}, but "
            f"{_fmt_values(absent)} {'has' if len(absent) == 1 else 'have'} no rows in the "
            f"calibration data: the model is fitted on the {len(levels)} observed classes "
            f"{_fmt_values(levels)} and never predicts {_fmt_values(absent)} (R's multinom "
            f"drops empty groups with a warning too). Add rows of those classes, or drop the "
            f"categories first: data[{name!r}].cat.remove_unused_categories()",
            EmptyClassWarning,
            stacklevel=5,
        )


def code_classes(
    series: pd.Series, name: str, positive: Any = None, two_levels: bool = True
) -> tuple[np.ndarray, tuple[Any, ...], Any]:
    """Code a complete response column (no missing values): codes, classes and positive level.

    With ``two_levels=True`` (the calibrators) the response must have exactly two levels; they
    are coded 0/1, 1 for ``positive`` (default: the second level in R's order). With
    ``two_levels=False`` (the K-level parser :func:`~evstat.formula.class_frame`) a response with
    K >= 3 levels is coded 0..K-1 in R's level order and ``positive`` must be None; two levels
    are coded exactly as with ``two_levels=True``.

    Returns
    -------
    codes : numpy.ndarray
        float64 codes, shape (n,).
    classes : tuple
        The levels in code order (two levels: ``(negative, positive)``).
    positive : object or None
        The level coded 1 for two levels; None for K >= 3.

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.formula.response import code_classes
    >>> code_classes(pd.Series(["M", "R", "R"]), "y")
    (array([0., 1., 1.]), ('M', 'R'), 'R')
    >>> code_classes(pd.Series(["b", "a", "c"]), "y", two_levels=False)
    (array([1., 0., 2.]), ('a', 'b', 'c'), None)
    """
    levels = observed_levels(series)
    if isinstance(series.dtype, pd.CategoricalDtype) and len(levels) >= 2:
        _warn_empty_classes(series, name, levels)
    if two_levels or len(levels) <= 2:
        return _code_two(series, name, positive, two_levels)
    if positive is not None:
        raise ValueError(
            f"positive={positive!r} is only for a two-class response, but response column "
            f"{name!r} has {len(levels)} classes {_fmt_values(levels)}: remove positive="
        )
    codes = np.asarray(
        pd.Index(levels, dtype=object).get_indexer(series.to_numpy(dtype=object)), dtype=np.intp
    )
    if (codes < 0).any():  # defensive: every value is one of the observed levels
        raise ValueError(f"could not code response column {name!r} into its levels {levels}")
    return codes.astype(np.float64), tuple(levels), None


def _code_two(
    series: pd.Series, name: str, positive: Any, two_levels: bool = True
) -> tuple[np.ndarray, tuple[Any, Any], Any]:
    """0/1 codes, (negative, positive) levels and the positive level of a complete response."""
    n = len(series)
    if isinstance(series.dtype, pd.CategoricalDtype):
        observed = set(pd.unique(series.cat.codes.to_numpy()).tolist())
        levels = [_native(c) for k, c in enumerate(series.cat.categories) if k in observed]
        ordered = levels  # category order, like R factor levels
    else:
        levels = [_native(v) for v in pd.unique(series.to_numpy(dtype=object))]
        ordered = None
    if len(levels) > 2:
        shown = ordered if ordered is not None else levels
        try:
            shown = sorted(shown) if ordered is None else shown
        except TypeError:
            pass
        raise ValueError(
            f"response column {name!r} has {len(levels)} distinct values {_fmt_values(shown)} "
            f"in {_rows(n)}; calibration needs a two-class response (0/1, bool, or a column "
            f"with exactly two levels): recode it, e.g. data[{name!r}] == <positive level>"
        )
    if len(levels) < 2:
        only = levels[0]
        other = ""
        if isinstance(series.dtype, pd.CategoricalDtype):
            absent = [_native(c) for c in series.cat.categories if c != only]
            if absent:
                other = f"; no rows of {_fmt_values(absent)[1:-1]}"
        elif isinstance(only, (bool, np.bool_)):
            other = f"; no rows of {not only!r}"
        elif isinstance(only, numbers.Real) and float(only) in (0.0, 1.0):
            other = f"; no rows of {int(1 - float(only))!r}"
        raise ValueError(
            f"response column {name!r} has a single class: {only!r} in all {_rows(n)}{other}. "
            + ("The calibration data must contain both classes: add rows of the other class"
               if two_levels else "The training data must contain at least two classes: add "
               "rows of the other classes")
        )
    if ordered is None:
        # with positive= given, unorderable levels (mixed types) need no order
        ordered = _sorted_levels(levels, name) if positive is None else _try_sorted(levels)
    if positive is None:
        pos = ordered[1]
    else:
        matches = [lev for lev in ordered if _same_level(lev, positive)]
        if not matches:
            raise ValueError(
                f"positive={positive!r} is not a level of response column {name!r}; its levels "
                f"are {_fmt_values(ordered)}: pass one of them"
            )
        pos = matches[0]
    neg = ordered[0] if _same_level(ordered[1], pos) else ordered[1]
    y = np.asarray(series == pos, dtype=np.float64)
    n_pos = int(np.count_nonzero(y))
    if n_pos == 0 or n_pos == n:  # defensive: equality must split the two observed levels
        raise ValueError(
            f"could not code response column {name!r} with levels {_fmt_values(ordered)} "
            f"({_rows(n)}): recode it as 0/1"
        )
    return y, (neg, pos), pos


def code_response(
    values: Any, classes: Any, what: str = "y", fix: str = "give one class per row",
    strict: bool = True,
) -> np.ndarray:
    """Code observed classes as positions in ``classes`` (the one label coder for K >= 2 levels).

    Used wherever observed labels meet a fitted model (``compare``, the plots, the report).
    Missing values and values that are not in ``classes`` are an error naming them.

    Parameters
    ----------
    values : array-like
        Observed classes, one per row.
    classes : sequence
        The model's classes in frame order (two classes: ``(negative, positive)``).
    what : str
        How the error message calls ``values``.
    fix : str
        What the error message tells the user to do.
    strict : bool
        False: values that are not in ``classes`` are coded -1 instead of being an error (for
        a caller that accepts other spellings, such as 0/1 codes); missing values stay an error.

    Returns
    -------
    numpy.ndarray of int
        The position of every value in ``classes`` (0/1 for two classes: 1 = positive).

    Examples
    --------
    >>> code_response(["b", "a", "c"], ("a", "b", "c")).tolist()
    [1, 0, 2]
    >>> code_response(["R", 1], ("M", "R"), strict=False).tolist()
    [1, -1]
    """
    arr = np.asarray(values, dtype=object).ravel()
    out = np.full(arr.shape[0], -1, dtype=np.intp)
    ser = pd.Series(arr, dtype=object)
    for k, level in enumerate(classes):
        out[((ser == level).to_numpy(dtype=bool)) & (out < 0)] = k
    bad = out < 0
    if bad.any():
        isna = pd.isna(ser).to_numpy()
        if not strict and not isna.any():
            return out
        if isna.any():
            raise ValueError(
                f"{what} has missing values in {int(isna.sum())} of {arr.size} rows: the observed "
                "classes must be known; drop these rows first"
            )
        shown = sorted({repr(v) for v in arr[bad]})[:_SHOW]
        raise ValueError(
            f"{what} has {int(bad.sum())} of {arr.size} values that are not response levels "
            f"{tuple(classes)} (e.g. {', '.join(shown)}): {fix}"
        )
    return out


def _same_level(level: Any, value: Any) -> bool:
    try:
        return bool(level == value)
    except (TypeError, ValueError):
        return False


def level_from_text(text: str | None, data: pd.DataFrame, formula: str) -> Any:
    """The level of ``formula``'s response column in ``data`` written as ``text`` (a
    command-line ``--positive``), in the column's own type: a CSV column of 0/1 is read as
    integers, so ``"1"`` means the level ``1``.

    Returns ``text`` unchanged when the formula or the column cannot be read or no level prints
    as it (the fitter then reports the problem), and None for None.

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.formula.response import level_from_text
    >>> d = pd.DataFrame({"y": [0, 1, 1], "z": ["M", "R", "M"]})
    >>> level_from_text("1", d, "y ~ s"), level_from_text("R", d, 'Q("z") ~ s')
    (1, 'R')
    """
    from evstat.formula._parse import response_name

    if text is None:
        return None
    try:
        col = response_name(formula)
    except (TypeError, ValueError):
        return text
    if col not in data.columns:
        return text
    for v in pd.unique(data[col].dropna().to_numpy(dtype=object)):
        if str(v) == text:
            return _native(v)
    return text
