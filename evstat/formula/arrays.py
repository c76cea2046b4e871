"""Arrays in place of a formula and a DataFrame: the data of ``y ~ x1 + ... + xp`` without parsing.

Formulas are the user-facing edge of evstat; internal composition (one-vs-rest codes, the
per-column calibrators of ``disjoint``, the scikit-learn wrapper, active learning) and users with
a score matrix build the same model from arrays. :class:`ArrayData` holds a score matrix ``X``
(n, p), labels ``y`` (n,) and the names of the columns; every fitter reads it where it reads a
formula and a DataFrame, ``fitter(arrays.formula, arrays, **options)``
(:func:`evstat.results.from_arrays`, ``ev.evlogit.from_arrays(X, y)``), and the one evaluation
of :mod:`evstat.formula.frame` builds the frame from it directly: no formula is parsed, patsy is
not called.

The frame is exactly the one the formula ``y ~ x1 + ... + xp`` gives on a DataFrame of the same
columns (:attr:`ArrayData.formula`; tests/test_from_arrays.py checks it for every registered
model): the design has an intercept column first (the fitters that remove it, with ``- 1``
appended to the formula, get none), then the columns in order, named ``names``; the response is
coded by the same rules (:func:`evstat.formula.response.code_classes`: the second level in R's
order is the positive class of two, K >= 3 levels in R's order; ``levels=`` fixes the order, as a
pandas Categorical does); missing values, infinite values, constant and collinear columns, too few
rows and a single class are refused with the formula path's messages. New rows are a 2-D array
with the columns in the same order, or a DataFrame with the named columns.

A numpy masked array (``numpy.ma``) is refused (:class:`MaskedArrayError`, :func:`refuse_masked`):
``numpy.asarray`` would drop its mask silently and the masked values would be used as data.

Only numeric score columns: a factor covariate needs the formula (``C(g)``). Names (default
``x1 .. xp``) must be distinct and not the response's name (default ``"y"``); a name that is not a
Python identifier is written ``Q('a b')`` in the formula and that is its term name, as patsy names
it; R's dotted names (``Sepal.Length``) are written bare, as the formula path reads and names them
(:func:`quote_name`).
"""

from __future__ import annotations

import keyword
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.exceptions import EvstatError
from evstat.formula import _dotted
from evstat.formula._util import _fmt_values, _rows
from evstat.formula.design import _numeric_values

__all__ = ["ArrayData", "MaskedArrayError", "plain_formula", "quote_name", "refuse_masked", "rows_frame"]


class MaskedArrayError(EvstatError, TypeError):
    """A numpy masked array given where evstat reads plain values (its mask would be ignored)."""


def refuse_masked(value: Any, name: str) -> None:
    """Refuse a numpy masked array (``numpy.ma.MaskedArray``): evstat does not read masks, and
    ``numpy.asarray`` drops them silently, so masked values would be used as data.

    Examples
    --------
    >>> refuse_masked(np.ones(3), "X")
    >>> refuse_masked(np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]), "X")
    Traceback (most recent call last):
    ...
    evstat.formula.arrays.MaskedArrayError: X is a numpy masked array with 1 masked entry: evstat does not read masks (numpy.asarray would drop it silently and use the masked values); pass X.filled(np.nan) with missing="drop" to leave the masked rows out, or X.data to use the values under the mask
    """
    if isinstance(value, np.ma.MaskedArray):
        n = int(np.ma.count_masked(value))
        raise MaskedArrayError(
            f"{name} is a numpy masked array with {n} masked entr{'y' if n == 1 else 'ies'}: evstat does not read masks "
            f"(numpy.asarray would drop {'it' if n == 1 else 'them'} silently and use the masked values); pass "
            f"{name}.filled(np.nan) with missing=\"drop\" to leave the masked rows out, or {name}.data to use the "
            "values under the mask"
        )


class ArrayData:
    """A score matrix, labels and column names that a fitter reads in place of (formula, data).

    Parameters
    ----------
    X : array-like of shape (n, p), or pandas.DataFrame
        Numeric scores (float, int; an object array of numbers). A DataFrame gives the names
        (its columns) and the row index.
    y : array-like of shape (n,)
        The class of every row (numbers, text, bool; missing values as NaN or None).
    names : sequence of str, optional
        The column names (distinct); default ``x1 .. xp`` (a DataFrame's columns).
    levels : sequence, optional
        The classes in frame order (two classes: ``(negative, positive)``), as the categories
        of a pandas Categorical; default R's order of the observed values. Every label of
        ``y`` must be one of them.
    response : str, default "y"
        The response's name (in the formula, messages and ``fit.response``).

    Attributes
    ----------
    formula : str
        ``"y ~ x1 + ... + xp"``: the formula whose frame the arrays give.
    names : list of str
    columns : pandas.Index
        The names, then the response (as a DataFrame's columns).
    index : pandas.Index
        A RangeIndex, or the DataFrame's index.

    Examples
    --------
    >>> import numpy as np
    >>> a = ArrayData(np.array([[0.1, 2.0], [0.4, 1.0], [0.9, 3.0]]), ["a", "b", "a"])
    >>> a.formula, a.names, len(a)
    ('y ~ x1 + x2', ['x1', 'x2'], 3)
    >>> a["x2"].tolist(), a["y"].tolist()
    ([2.0, 1.0, 3.0], ['a', 'b', 'a'])
    """

    def __init__(
        self,
        X: Any,
        y: Any,
        names: Sequence[str] | None = None,
        levels: Sequence[Any] | None = None,
        response: str = "y",
    ) -> None:
        if not isinstance(response, str) or not response or not response.isprintable():
            raise ValueError(f"response must be a non-empty name, got {response!r}")
        refuse_masked(X, "X")
        refuse_masked(y, "y")
        if isinstance(X, pd.DataFrame):
            frame = X
            if names is None:
                names = [c if isinstance(c, str) else f"x{j + 1}" for j, c in enumerate(X.columns)]
            index = X.index
        else:
            if hasattr(X, "toarray") or hasattr(X, "tocsr"):
                raise TypeError("X is a sparse matrix: from_arrays needs a dense array of scores, e.g. X.toarray()")
            a = np.asarray(X)
            if a.ndim != 2:
                raise ValueError(
                    f"X must be a 2-D array of shape (rows, score columns), got {a.ndim} dimension(s) "
                    f"(shape {a.shape}); one score column is X.reshape(-1, 1)"
                )
            frame = pd.DataFrame(a)
            index = pd.RangeIndex(a.shape[0])
        n, p = frame.shape
        if p == 0:
            raise ValueError(f"X has {_rows(n)} and 0 columns: at least one score column is needed")
        if names is None:
            names = [f"x{j + 1}" for j in range(p)]
        if isinstance(names, str):
            raise TypeError(f"names must be a sequence of column names, got the string {names!r}")
        names = list(names)
        if len(names) != p:
            raise ValueError(f"names has {len(names)} entries but X has {p} columns: give one name per column")
        bad = [c for c in names if not isinstance(c, str) or not c or not c.isprintable()]
        if bad:
            raise ValueError(
                f"names must be non-empty text without control characters, got {_fmt_values(bad)}: "
                f"rename them, e.g. {[f'x{j + 1}' for j in range(min(p, 3))]}"
            )
        dup = sorted({c for c in names if names.count(c) > 1})
        if dup:
            raise ValueError(f"names must be distinct, got {_fmt_values(dup)} more than once")
        if response in names:
            raise ValueError(
                f"the response's name {response!r} is also a column name; pass another response= "
                "or rename the column"
            )
        labels = y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else np.asarray(y)
        if labels.ndim != 1:
            if labels.ndim == 2 and 1 in labels.shape:
                raise ValueError(f"y must be 1-D, got shape {labels.shape}: pass y.ravel()")
            raise ValueError(f"y must be 1-D (one class per row), got shape {labels.shape}")
        if labels.shape[0] != n:
            raise ValueError(f"y has {labels.shape[0]} values but X has {_rows(n)}: give one label per row")
        ser = y.set_axis(index).rename(response) if isinstance(y, pd.Series) else pd.Series(labels, index=index, name=response)
        if levels is not None:
            levels = list(levels)
            if len(set(map(repr, levels))) != len(levels):
                raise ValueError(f"levels must be distinct, got {_fmt_values(levels)}")
            cat = pd.Categorical(labels, categories=levels)
            unknown = ~ser.isna().to_numpy(dtype=bool) & (np.asarray(cat.codes) < 0)
            if unknown.any():
                seen = list(dict.fromkeys(labels[unknown].tolist()))
                raise ValueError(
                    f"y has label(s) {_fmt_values(seen)} in {_rows(int(unknown.sum()))} that are not "
                    f"among levels {_fmt_values(levels)}: add them to levels"
                )
            ser = pd.Series(cat, index=index, name=response)
        # numeric columns through the formula path's conversion (same checks, same messages)
        self._columns = {
            c: _numeric_values(frame.iloc[:, j], c, "X") for j, c in enumerate(names)
        }
        self._y = ser
        self.names: list[str] = names
        self.response = response
        self.index = index
        self.formula = plain_formula(response, names)
        #: the design's term names (the formula's: ``Q('a b')`` for a name that needs quoting,
        #: R's dotted names bare)
        self.terms: list[str] = [quote_name(c) for c in names]
        self.columns = pd.Index([*names, response], dtype=object)

    def __len__(self) -> int:
        return len(self._y)

    def __repr__(self) -> str:
        return f"ArrayData({self.formula!r}, n={len(self)})"

    def __getitem__(self, name: str) -> pd.Series:
        """A column as a Series (the response or a score column), indexed like the rows."""
        if name == self.response:
            return self._y
        if name in self._columns:
            return pd.Series(self._columns[name], index=self.index, name=name)
        raise KeyError(name)

    def values(self) -> dict[str, np.ndarray]:
        """The score columns (float64, missing as NaN), by name in order."""
        return dict(self._columns)

    def intercept(self, formula: str) -> bool:
        """Whether the design of ``formula`` has an intercept: :attr:`formula` has one, and
        ``formula + " - 1"`` (what the multi-class calibrators pass) has none. Any other formula
        is an error: the arrays define their formula, and no formula is parsed."""
        if formula == self.formula:
            return True
        if formula == self.formula + " - 1":
            return False
        raise ValueError(
            f"arrays give the formula {self.formula!r} (or with ' - 1'), but the fitter asked for "
            f"{formula!r}; fit the arrays with fitter(arrays.formula, arrays), or write a formula and "
            "a DataFrame"
        )


def plain_formula(response: str, names: Sequence[str]) -> str:
    """The formula whose frame arrays of the columns ``names`` give: ``response ~ c1 + ... + cp``.

    Examples
    --------
    >>> plain_formula("y", ["s1", "a b"])
    "y ~ s1 + Q('a b')"
    """
    return f"{quote_name(response)} ~ " + " + ".join(map(quote_name, names))


def quote_name(name: str) -> str:
    """A formula reference to a column: the bare name if it is an identifier or an R dotted
    name (``Sepal.Length``, read as the column by :mod:`evstat.formula._dotted`), else
    ``Q('...')``; either is also the design term's name, as the formula path names it.

    Examples
    --------
    >>> quote_name("s1"), quote_name("np.log(s)"), quote_name("lambda"), quote_name("Sepal.Length")
    ('s1', "Q('np.log(s)')", "Q('lambda')", 'Sepal.Length')
    """
    if (name.isidentifier() and not keyword.iskeyword(name)) or _dotted.bare(name):
        return name
    return f"Q({name!r})"


def rows_frame(rows: Any, columns: Sequence[str]) -> pd.DataFrame:
    """New rows given as a 2-D array, as a DataFrame of the model's score ``columns`` in order
    (what ``fit.predict(array)`` reads).

    Examples
    --------
    >>> rows_frame(np.array([[1.0, 2.0]]), ["s1", "s2"])
        s1   s2
    0  1.0  2.0
    """
    refuse_masked(rows, "newdata")
    a = np.asarray(rows)
    columns = list(columns)
    if a.ndim != 2:
        raise ValueError(
            f"new rows as an array must be 2-D (rows, {len(columns)} score columns {columns}), got "
            f"shape {a.shape}" + ("; one score column is x.reshape(-1, 1)" if a.ndim == 1 else "")
        )
    if a.shape[1] != len(columns):
        raise ValueError(
            f"new rows have {a.shape[1]} columns, but the model reads {len(columns)} score columns "
            f"{columns} (in this order): pass an array of {len(columns)} columns, or a DataFrame "
            "with these names"
        )
    return pd.DataFrame(a, columns=columns)
