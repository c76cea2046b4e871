"""The model frame: a formula evaluated on data (coded response, design matrix, how to rebuild it).

:func:`model_frame` is the calibrators' entry (a two-level response coded 0/1);
:func:`~evstat.formula.class_frame` reads the same formulas with a response of any number of
levels. Both run the one evaluation below (:func:`_evaluate`): the split on ``~``, the
whitelist, the columns used, missing and infinite values, factor levels, response coding
(:mod:`evstat.formula.response`), the patsy design and its checks (:mod:`evstat.formula.design`).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import patsy

from evstat.formula import _dotted, limits, schema, whitelist
from evstat.formula._json import _index_from_json, _index_to_json, _json_scalar
from evstat.formula._parse import KNOWN_NAMES, _lhs_name, _names_in, _rhs_codes, expand_dot, split_formula
from evstat.formula.arrays import ArrayData, plain_formula, quote_name, rows_frame
from evstat.formula._util import _available, _check_missing_arg, _fmt_labels, _fmt_values, _rows
from evstat.formula.design import (
    _build_X,
    _check_collinear,
    _check_constant,
    _check_design_finite,
    _check_magnitude,
    _column,
    _design,
    _factor_levels,
    _factor_values,
    _is_factor,
    _numeric_values,
)
from evstat.formula.response import code_classes

#: Format tag and version written by :meth:`ModelFrame.to_dict`.
FORMAT = "evstat.ModelFrame"
FORMAT_VERSION = 1


@dataclass(frozen=True, eq=False, repr=False)
class ModelFrame:
    """The data of a formula: coded response, design matrix and how to rebuild it.

    Created by :func:`model_frame` (a two-level response, the calibrators) or inside
    :func:`~evstat.formula.class_frame` (K >= 2 levels); do not build one by hand. ``y`` and ``X`` are read-only
    float64 arrays (copy them before modifying).

    Attributes
    ----------
    formula : str
        The formula as given by the user.
    response : str
        The response column name (the left-hand side; for ``Q("a b") ~ ...`` it is ``"a b"``).
    y : numpy.ndarray
        float64 codes, shape (n,): two levels, 0/1 with 1 where the response equals
        ``positive``; K >= 3 levels (``class_frame``), 0..K-1, positions in ``classes``.
    X : numpy.ndarray
        float64 design matrix, shape (n, p), with an ``"Intercept"`` column when the formula has
        one.
    terms : list of str
        Design column names, e.g. ``["Intercept", "svm1", "np.log(s)"]``.
    design_info : patsy.DesignInfo
        Right-hand-side design info: :meth:`new_X` runs new data through it, so stateful
        transforms use the calibration-set state.
    classes : tuple
        ``(negative_level, positive_level)`` as they appear in the data, e.g. ``(0, 1)``,
        ``(False, True)``, ``("M", "R")``; K >= 3 levels: all levels in R's order.
    positive : object
        The level coded 1; None for K >= 3 levels.
    index : pandas.Index
        Index of the rows used (after ``missing="drop"``), in data order.
    n_dropped : int
        Rows dropped for missing values (0 unless ``missing="drop"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.formula import model_frame
    >>> cal = pd.DataFrame({"y": ["M", "R", "R", "M"], "s": [0.2, 1.5, 0.9, -0.3]})
    >>> mf = model_frame("y ~ s", cal)
    >>> mf.terms, mf.classes, mf.n_pos, mf.n_neg
    (['Intercept', 's'], ('M', 'R'), 2, 2)
    >>> mf.y
    array([0., 1., 1., 0.])
    """

    formula: str
    response: str
    y: np.ndarray
    X: np.ndarray
    terms: list[str]
    design_info: patsy.DesignInfo | None
    classes: tuple
    positive: Any
    index: pd.Index
    n_dropped: int = 0
    _score_columns: tuple[str, ...] = ()
    _data: Mapping[str, Any] = field(default_factory=dict)
    _factors: Mapping[str, list[Any]] = field(default_factory=dict)

    def __repr__(self) -> str:
        if len(self.classes) != 2:
            return (
                f"ModelFrame({self.formula!r}, n={self.n} ({len(self.classes)} classes), "
                f"p={self.p}, terms={self.terms!r})"
            )
        return (
            f"ModelFrame({self.formula!r}, n={self.n} ({self.n_pos} with "
            f"{self.response} = {self.positive!r}), p={self.p}, terms={self.terms!r})"
        )

    @property
    def n(self) -> int:
        """Number of rows used."""
        return int(self.y.shape[0])

    @property
    def p(self) -> int:
        """Number of design columns (parameters)."""
        return int(self.X.shape[1])

    @property
    def n_pos(self) -> int:
        """Number of rows of the positive class (y = 1; two-level responses)."""
        return int(np.count_nonzero(self.y == 1.0))

    @property
    def n_neg(self) -> int:
        """Number of rows of the negative class (y = 0; two-level responses)."""
        return self.n - self.n_pos

    @property
    def score_columns(self) -> list[str]:
        """The data columns the right-hand side uses, in formula order.

        These are variable names, e.g. ``["s"]`` for ``y ~ np.log(s) + I(s**2)``; ``[]`` for
        ``y ~ 1``.
        """
        return list(self._score_columns)

    def column(self, name: str) -> np.ndarray:
        """The values (read-only) of data column ``name`` on the rows used, as the formula read
        them; ``name`` is one of :attr:`score_columns`.

        Examples
        --------
        >>> import pandas as pd
        >>> mf = model_frame("y ~ s", pd.DataFrame({"y": [0, 1, 1, 0], "s": [0.2, 1.5, 0.9, -0.3]}))
        >>> mf.column("s").tolist()
        [0.2, 1.5, 0.9, -0.3]
        """
        if name not in self._data:
            raise KeyError(f"{name!r} is not a data column of this model frame; its columns: {list(self._data)}")
        if name in self._factors:
            return _readonly(np.asarray(self._data[name], dtype=object))
        return self._data[name]

    @property
    def factors(self) -> dict[str, list[Any]]:
        """The factor (text, categorical, logical) data columns and their levels, baseline first.

        Examples
        --------
        >>> import pandas as pd
        >>> d = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0], "g": list("baabab"), "s": [1., 2, 3, 4, 5, 7]})
        >>> mf = model_frame("y ~ C(g) + s", d)
        >>> mf.factors, mf.terms
        ({'g': ['a', 'b']}, ['Intercept', 'C(g)[T.b]', 's'])
        """
        return {c: list(v) for c, v in self._factors.items()}

    def categorical_terms(self) -> list[str]:
        """Formula terms coded as dummy columns (a factor column, ``C(...)``, a logical
        expression, or an interaction with one of them), in formula order.

        Examples
        --------
        >>> import pandas as pd
        >>> d = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0], "g": list("baabab"), "s": [1., 2, 3, 4, 5, 7]})
        >>> model_frame("y ~ g * s", d).categorical_terms()
        ['g', 'g:s']
        """
        info = self.design_info
        out: list[str] = []
        if info is None:  # built from arrays: numeric columns only
            return out
        for term in info.terms:
            if any(info.factor_infos[f].type == "categorical" for f in term.factors):
                out.append(term.name())
        return out

    def require_numeric(self, who: str, why: str) -> None:
        """Raise a ValueError naming the first categorical term if the formula has one.

        For the models that work on score axes (binning, isotonic, nearest neighbours): ``who``
        is the model's name and ``why`` says why it cannot use a factor.

        Examples
        --------
        >>> import pandas as pd
        >>> d = pd.DataFrame({"y": [0, 1, 1, 0, 1, 0], "g": list("baabab"), "s": [1., 2, 3, 4, 5, 7]})
        >>> model_frame("y ~ C(g) + s", d).require_numeric("evbinning", "it bins score axes")
        Traceback (most recent call last):
        ...
        ValueError: evbinning cannot use the factor term 'C(g)' of formula 'y ~ C(g) + s' (dummy columns ['C(g)[T.b]']): it bins score axes; use numeric score columns only, or a likelihood model such as evlogit
        """
        info = self.design_info
        if info is None:  # built from arrays: numeric columns only
            return
        for term in info.terms:
            if any(info.factor_infos[f].type == "categorical" for f in term.factors):
                cols = list(info.column_names[info.term_slices[term]])
                raise ValueError(
                    f"{who} cannot use the factor term {term.name()!r} of formula "
                    f"{self.formula!r} (dummy columns {cols}): {why}; use numeric score "
                    "columns only, or a likelihood model such as evlogit"
                )

    def new_X(self, newdata: pd.DataFrame, missing: str = "raise") -> tuple[np.ndarray, pd.Index]:
        """Transform new data through the calibration design.

        Parameters
        ----------
        newdata : pandas.DataFrame or numpy.ndarray
            Must hold every column of :attr:`score_columns` (other columns, including the
            response, are ignored). Zero rows are allowed. A 2-D array is read as the
            :attr:`score_columns` in order (:func:`evstat.formula.arrays.rows_frame`).
        missing : {"raise", "drop"}
            What to do with rows where a used column is missing (NaN/None): raise an error
            (default) or drop them. Infinite values are always an error.

        Returns
        -------
        X : numpy.ndarray
            float64, shape (m, p), columns :attr:`terms`; stateful transforms (``center``,
            ``standardize``, splines) use the state learnt on the calibration data.
        index : pandas.Index
            ``newdata.index`` (the kept labels with ``missing="drop"``), in newdata's row order,
            aligned with the rows of ``X``.

        Raises
        ------
        ValueError
            A used column is absent, not numeric, has infinite values, has missing values
            (unless ``missing="drop"``), or a transform gives non-finite values.

        Examples
        --------
        >>> import pandas as pd
        >>> from evstat.formula import model_frame
        >>> cal = pd.DataFrame({"y": [0, 1, 1, 0], "s": [1.0, 2.0, 3.0, 6.0]})
        >>> mf = model_frame("y ~ center(s)", cal)
        >>> X, idx = mf.new_X(pd.DataFrame({"s": [3.0, 5.0]}, index=["a", "b"]))
        >>> X
        array([[1., 0.],
               [1., 2.]])
        >>> list(idx)
        ['a', 'b']
        """
        _check_missing_arg(missing)
        arrays: dict[str, Any] = {}
        if (
            isinstance(newdata, np.ndarray) and newdata.ndim == 2 and newdata.shape[0] > 0
            and newdata.shape[1] == len(self._score_columns) and newdata.dtype.kind in "fiu" and not self._factors
        ):
            # a 2-D numeric array of the score columns in order: its columns, as the DataFrame
            # of rows_frame would give them, without building that DataFrame (pandas copies
            # the array into it: a fifth of a point prediction's time at 100,000 rows)
            arrays = {c: newdata[:, j] for j, c in enumerate(self._score_columns)}
            m = newdata.shape[0]
            index: pd.Index = pd.RangeIndex(m)
        else:
            if isinstance(newdata, np.ndarray):
                newdata = rows_frame(newdata, self._score_columns)
            if not isinstance(newdata, pd.DataFrame):
                raise TypeError(
                    f"newdata must be a pandas DataFrame or a 2-D numpy array, got {type(newdata).__name__}: "
                    "wrap it with pd.DataFrame(...)"
                )
            absent = [c for c in self._score_columns if c not in newdata.columns]
            if absent:
                raise ValueError(
                    f"newdata ({_rows(len(newdata))}) lacks column(s) {_fmt_values(absent)} used by "
                    f"formula {self.formula!r}; newdata has columns {_available(newdata.columns)}: "
                    "add them with the same names as in the calibration data"
                )
            m = len(newdata)
            if m == 0:
                return np.empty((0, self.p), dtype=np.float64), newdata.index
            for c in self._score_columns:
                ser = _column(newdata, c, "newdata")
                if c in self._factors:
                    arrays[c] = _factor_values(ser, c, self._factors[c], "newdata")
                else:
                    arrays[c] = _numeric_values(ser, c, "newdata")
            index = newdata.index
        drop = np.zeros(m, dtype=bool)
        for c, a in arrays.items():
            if c in self._factors:
                nan = np.asarray(pd.isna(a), dtype=bool)
            elif np.isfinite(a).all():  # the usual case: one pass, nothing to report
                continue
            else:
                inf = np.isinf(a)
                if inf.any():
                    raise ValueError(
                        f"column {c!r} of newdata has infinite values in {_rows(int(inf.sum()))} "
                        f"of {m} (index {_fmt_labels(index, inf)}); infinite scores cannot be "
                        "calibrated: fix or remove these rows"
                    )
                nan = np.isnan(a)
            if nan.any():
                if missing == "raise":
                    raise ValueError(
                        f"column {c!r} of newdata has missing values in "
                        f"{_rows(int(nan.sum()))} of {m} (index {_fmt_labels(index, nan)}): "
                        "drop or impute them, or pass missing='drop'"
                    )
                drop |= nan
        if drop.any():
            keep = ~drop
            arrays = {c: a[keep] for c, a in arrays.items()}
            index = index[keep]
            m = int(keep.sum())
            if m == 0:
                return np.empty((0, self.p), dtype=np.float64), index
        plain = _plain_design(self.design_info, self._score_columns)
        if self.design_info is None:  # built from arrays: the columns as they are, no patsy
            X = _stack(arrays, list(self._score_columns), m, self.terms[:1] == ["Intercept"])
        elif plain is not None:  # a formula of plain score columns: what patsy gives, stacked
            # (finite: its columns were checked above)
            return _stack(arrays, plain[0], m, plain[1]), index
        else:
            X = _build_X(self.design_info, arrays, m, self.formula)
        if X.shape != (m, self.p):
            raise ValueError(
                f"formula {self.formula!r} gave a design of shape {X.shape} for {_rows(m)} of "
                f"newdata, expected ({m}, {self.p})"
            )
        _check_design_finite(X, self.terms, index, self.formula, "newdata")
        return X, index

    @classmethod
    def from_arrays(
        cls,
        X: Any,
        y: Any,
        names: Sequence[str] | None = None,
        levels: Sequence[Any] | None = None,
        *,
        response: str = "y",
        positive: Any = None,
        missing: str = "raise",
    ) -> ModelFrame:
        """The frame of ``y ~ x1 + ... + xp`` built from a score matrix and labels, without
        parsing a formula or calling patsy (:mod:`evstat.formula.arrays`).

        Equal to ``model_frame("y ~ x1 + ... + xp", data)`` on a DataFrame of the same columns:
        the same ``X`` (intercept first), ``y`` codes, ``classes``, ``positive``, ``terms``,
        ``score_columns`` and checks; :meth:`new_X` takes a 2-D array (the columns in order) or
        a DataFrame with the named columns.

        Parameters
        ----------
        X : array-like of shape (n, p), or pandas.DataFrame
            Numeric scores.
        y : array-like of shape (n,)
            Two classes.
        names : sequence of str, optional
            Column names (distinct); default ``x1 .. xp``. A name that is not a Python
            identifier is ``Q('a b')`` in the formula and the terms, as patsy names it (R's
            dotted names, ``Sepal.Length``, are bare).
        levels : sequence, optional
            The two classes as ``(negative, positive)``; default R's order.
        response : str, default "y"
        positive : object, optional
            The class coded 1 (as :func:`model_frame`).
        missing : {"raise", "drop"}

        Examples
        --------
        >>> import numpy as np
        >>> X = np.array([[0.2, 1.0], [1.5, 0.0], [0.9, 2.0], [-0.3, 1.0]])
        >>> mf = ModelFrame.from_arrays(X, ["M", "R", "R", "M"], names=["s", "t"])
        >>> mf.formula, mf.terms, mf.classes, mf.y.tolist()
        ('y ~ s + t', ['Intercept', 's', 't'], ('M', 'R'), [0.0, 1.0, 1.0, 0.0])
        >>> mf.new_X(np.array([[1.0, 2.0]]))[0]
        array([[1., 1., 2.]])
        """
        data = ArrayData(X, y, names=names, levels=levels, response=response)
        return _evaluate(data.formula, data, positive, missing, False, None, two_levels=True)

    # -- persistence ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable description from which :meth:`from_dict` rebuilds this frame.

        A patsy ``DesignInfo`` cannot be serialised, so the dictionary stores the formula and
        the calibration values of the columns the right-hand side uses (:attr:`score_columns`,
        rows used, as lists of floats); :meth:`from_dict` re-runs patsy on them, which recovers
        the identical ``design_info`` including the state of stateful transforms (``center``,
        ``standardize``, spline knots). It also stores the response codes, the classes, the
        positive level, the term names and the row index, so the rebuilt frame equals this one.
        Levels and index labels that are not JSON scalars (str, int, float, bool) are stored as
        their ``str()``.

        Returns
        -------
        dict
            Keys ``format``, ``version``, ``formula``, ``response``, ``classes``, ``positive``,
            ``terms``, ``score_columns``, ``data``, ``y``, ``index``, ``n_dropped``.

        Examples
        --------
        >>> import json
        >>> import pandas as pd
        >>> from evstat.formula import ModelFrame, model_frame
        >>> cal = pd.DataFrame({"y": [0, 1, 1, 0], "s": [1.0, 2.0, 3.0, 6.0]})
        >>> mf = model_frame("y ~ standardize(s)", cal)
        >>> back = ModelFrame.from_dict(json.loads(json.dumps(mf.to_dict())))
        >>> new = pd.DataFrame({"s": [0.0, 10.0]})
        >>> bool((back.new_X(new)[0] == mf.new_X(new)[0]).all())
        True
        """
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "formula": self.formula,
            "response": self.response,
            "classes": [_json_scalar(c) for c in self.classes],
            "positive": _json_scalar(self.positive),
            "terms": list(self.terms),
            "score_columns": list(self._score_columns),
            "data": {
                c: (np.asarray(self._data[c].codes, dtype=np.float64) if c in self._factors
                    else np.asarray(self._data[c], dtype=np.float64)).tolist()
                for c in self._data
            },
            **({"factors": {c: [_json_scalar(v) for v in lv] for c, lv in self._factors.items()}}
               if self._factors else {}),
            "y": self.y.astype(np.int64).tolist(),
            "index": _index_to_json(self.index),
            "n_dropped": int(self.n_dropped),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ModelFrame:
        """Rebuild a :class:`ModelFrame` from :meth:`to_dict` output (e.g. after JSON).

        patsy is re-run on the stored calibration columns to recover the ``design_info``;
        the rebuilt term names must equal the stored ones. A formula of plain score columns
        (``y ~ s1 + s2``, what :meth:`from_arrays` builds; also with ``- 1``) is stacked again
        without patsy (``design_info`` None), as :meth:`from_arrays` built it.

        Parameters
        ----------
        d : mapping
            The dictionary from :meth:`to_dict`, possibly after ``json.dumps``/``json.loads``.

        Returns
        -------
        ModelFrame
            Equal to the original: same ``y``, ``X``, ``terms``, ``classes``, ``index``, and
            :meth:`new_X` gives identical results.

        Raises
        ------
        ValueError
            Not an evstat model-frame dictionary, an unknown version, or inconsistent content.

        Examples
        --------
        >>> import pandas as pd
        >>> from evstat.formula import ModelFrame, model_frame
        >>> mf = model_frame("y ~ s", pd.DataFrame({"y": [1, 0, 1], "s": [0.5, 0.1, 0.4]}))
        >>> ModelFrame.from_dict(mf.to_dict()).terms
        ['Intercept', 's']
        """
        if not isinstance(d, Mapping) or d.get("format") != FORMAT:
            raise ValueError(
                f"not an evstat model frame description (expected format {FORMAT!r}); "
                "pass the dictionary made by ModelFrame.to_dict()"
            )
        if d.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"model frame format version {d.get('version')!r} is not supported (this evstat "
                f"reads version {FORMAT_VERSION}); re-save it with a matching evstat"
            )
        schema.validate(d, schema.MODEL_FRAME_K, "model_frame")
        formula = d["formula"]
        _, rhs = split_formula(formula)
        columns = list(d["score_columns"])
        whitelist.check_formula(formula, columns=[*columns, d["response"]])
        factors = {c: list(v) for c, v in d.get("factors", {}).items()}
        data: dict[str, Any] = {}
        for c in columns:
            a = np.asarray(d["data"][c], dtype=np.float64)
            if c in factors:
                # codes were checked by the schema: integers in [0, number of levels)
                a = pd.Categorical.from_codes(a.astype(np.intp), categories=factors[c])
            data[c] = a
        y = np.asarray(d["y"], dtype=np.float64)
        n = len(y)
        if any(len(a) != n for a in data.values()):
            raise ValueError("inconsistent model frame description: column lengths differ from y")
        plain = plain_formula(d["response"], columns) if columns else None
        if not factors and plain is not None and formula in (plain, plain + " - 1"):
            # the frame of arrays (ModelFrame.from_arrays), or a formula of plain score columns:
            # stacked again as it was built, no patsy
            intercept = formula == plain
            terms = ["Intercept"] * intercept + [quote_name(c) for c in columns]
            if terms != list(d["terms"]):
                raise ValueError(
                    f"formula {formula!r} has the terms {terms}, but the saved terms are {d['terms']}; "
                    "the description was made by an incompatible version of evstat"
                )
            X, design_info = _stack(data, columns, n, intercept), None
        else:
            dm = _design(rhs, data, n, formula)
            design_info = dm.design_info
            terms = list(design_info.column_names)
            if terms != list(d["terms"]):
                raise ValueError(
                    f"rebuilding formula {formula!r} gave terms {design_info.column_names}, but the "
                    f"saved terms are {d['terms']}; the description was made by an incompatible "
                    "version of patsy or evstat"
                )
            X = np.array(dm, dtype=np.float64, order="C")
            if X.shape[0] != n:
                X = np.ascontiguousarray(np.broadcast_to(X, (n, X.shape[1])))
        index = _index_from_json(d["index"])
        return _make_frame(
            formula=formula,
            response=d["response"],
            y=y,
            X=X,
            terms=terms,
            design_info=design_info,
            classes=tuple(d["classes"]),
            positive=d["positive"],
            index=index,
            n_dropped=int(d["n_dropped"]),
            score_columns=tuple(columns),
            data=data,
            factors=factors,
        )



def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _make_frame(
    *,
    formula: str,
    response: str,
    y: np.ndarray,
    X: np.ndarray,
    terms: list[str],
    design_info: patsy.DesignInfo,
    classes: tuple,
    positive: Any,
    index: pd.Index,
    n_dropped: int,
    score_columns: tuple[str, ...],
    data: Mapping[str, Any],
    factors: Mapping[str, list[Any]] | None = None,
) -> ModelFrame:
    factors = dict(factors or {})
    return ModelFrame(
        formula=formula,
        response=response,
        y=_readonly(np.ascontiguousarray(y, dtype=np.float64)),
        X=_readonly(np.ascontiguousarray(X, dtype=np.float64)),
        terms=terms,
        design_info=design_info,
        classes=classes,
        positive=positive,
        index=index,
        n_dropped=n_dropped,
        _score_columns=score_columns,
        _data={c: (a if c in factors else _readonly(np.asarray(a, dtype=np.float64)))
               for c, a in data.items()},
        _factors={c: list(v) for c, v in factors.items()},
    )


# ---------------------------------------------------------------------------------------------
# model_frame
# ---------------------------------------------------------------------------------------------


def model_frame(
    formula: str,
    data: pd.DataFrame | ArrayData,
    positive: Any = None,
    missing: str = "raise",
    intercept_required: bool = False,
    min_rows: int | None = None,
) -> ModelFrame:
    """Evaluate a calibration formula on a DataFrame: coded response and design matrix.

    Parameters
    ----------
    formula : str
        ``"response ~ terms"``, e.g. ``"y ~ svm1 + svm2"``, ``"y ~ np.log(s) + I(s**2)"``,
        ``"y ~ center(s)"``, ``"y ~ 0 + s"`` (no intercept). The response must be a column name
        of ``data`` (``Q("name")`` for names that are not identifiers); see the module notes for
        the functions a formula may use.
    data : pandas.DataFrame or evstat.formula.arrays.ArrayData
        The calibration data (an :class:`~evstat.formula.arrays.ArrayData` with its own
        ``formula``: the frame of the arrays, no formula parsed; :meth:`ModelFrame.from_arrays`).
    positive : object, optional
        The response level coded 1. Default, as R's ``glm``: the second level in sorted order,
        so 1 for 0/1 responses, True for bool, ``"R"`` for ``"M"``/``"R"``; for a pandas
        Categorical the second observed category in category order (like R factor levels).
        ``positive=1`` also matches a float level ``1.0``.
    missing : {"raise", "drop"}
        Rows with a missing value (NaN/None/NA) in the response or a used column: raise an
        error (default) or drop them (counted in ``n_dropped``). Infinite values are always an
        error, never dropped.
    intercept_required : bool
        Raise an error if the formula has no intercept (``- 1`` or ``0 +``).
    min_rows : int, optional
        Raise an error if fewer rows than this remain. Independently of it, at least as many
        rows as design columns are required.

    Returns
    -------
    ModelFrame

    Raises
    ------
    ValueError
        With a message naming the column, the row count and the fix, for: a formula without
        ``~``/response/terms; an absent column; empty data; a response that is not two-class or
        has a single class; ``positive`` not a level; missing (unless ``missing="drop"``) or
        infinite values; a factor column with a single level or with values that are not
        text, logical or numbers;
        non-finite values produced by a transform; fewer rows than ``p`` or ``min_rows``; a
        constant design column other than the intercept; collinear design columns (judged as R's
        ``qr()`` does, relative tolerance 1e-7, in formula order; the message names the column
        that is a combination of earlier ones).
    TypeError
        ``formula`` not a string or ``data`` not a DataFrame.

    Notes
    -----
    Only the response and the columns the right-hand side uses are checked; other columns may
    hold anything. Score columns are converted to float64 before patsy evaluates the terms. A
    response with two distinct values other than 0/1 (e.g. -1/1 or 1/2) is accepted and coded
    by the same sorted-order rule.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from evstat.formula import model_frame
    >>> cal = pd.DataFrame(
    ...     {"y": [0, 1, 0, 1, 1], "svm1": [-1.2, 0.8, -0.3, 1.9, 0.1], "s": [1.0, 4.0, 2.0, 8.0, 3.0]},
    ...     index=[10, 11, 12, 13, 14],
    ... )
    >>> mf = model_frame("y ~ svm1 + np.log(s)", cal)
    >>> mf.terms
    ['Intercept', 'svm1', 'np.log(s)']
    >>> mf.score_columns, mf.n, mf.p, mf.classes, mf.positive
    (['svm1', 's'], 5, 3, (0, 1), 1)
    >>> model_frame("y ~ svm1", cal.assign(y=["M", "R", "M", "R", "R"]), positive="M").y
    array([1., 0., 1., 0., 0.])
    """
    return _evaluate(formula, data, positive, missing, intercept_required, min_rows, two_levels=True)


def _evaluate(
    formula: str,
    data: pd.DataFrame | ArrayData,
    positive: Any,
    missing: str,
    intercept_required: bool,
    min_rows: int | None,
    two_levels: bool,
    rank_checks: bool = True,
) -> ModelFrame:
    """The one evaluation of a formula on data; ``two_levels`` as in
    :func:`~evstat.formula.response.code_classes` (True: calibrators, False: ``class_frame``).
    ``rank_checks=False`` (distance- and tree-based classifiers, which estimate no coefficient
    per design column) skips the three checks that only a regression needs: at least as many
    rows as design columns, no constant column, no collinear columns."""
    if isinstance(data, ArrayData):
        return _evaluate_arrays(formula, data, positive, missing, intercept_required, min_rows, two_levels, rank_checks)
    _check_missing_arg(missing)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"data must be a pandas DataFrame, got {type(data).__name__}: wrap it with "
            "pd.DataFrame(...)"
        )
    if min_rows is not None and (not isinstance(min_rows, numbers.Integral) or min_rows < 0):
        raise ValueError(f"min_rows must be a non-negative integer or None, got {min_rows!r}")
    split_formula(formula)  # the form of the formula first (type, one '~', both sides)
    limits.check_text(formula)  # its size, before '.' multiplies it
    formula = expand_dot(formula, data.columns)
    lhs, rhs = split_formula(formula)
    whitelist.check_formula(formula, columns=data.columns)  # before anything is evaluated
    response = _lhs_name(lhs)
    if len(data) == 0:
        raise ValueError(
            f"data has 0 rows: formula {formula!r} needs "
            + ("calibration rows with both classes" if two_levels
               else "training rows of at least two classes")
        )

    # -- which columns: response and the variables of the right-hand side ---------------------
    if response not in data.columns:
        if not lhs.isidentifier() and response == lhs:
            raise ValueError(
                f"the response {lhs!r} of formula {formula!r} is not a column of data: the "
                "response must be a column name (choose the class coded 1 with positive=, "
                f"quote other names with Q('...')); available columns: {_available(data.columns)}"
            )
        raise ValueError(
            f"response column {response!r} of formula {formula!r} not found in data "
            f"({_rows(len(data))}); available columns: {_available(data.columns)}"
        )
    used: list[str] = []
    unknown: list[str] = []
    for code in _rhs_codes(_dotted.quote_dotted(rhs, data.columns)[0], formula):
        for name, quoted in _names_in(code):
            if name in data.columns:
                if name not in used:
                    used.append(name)
            elif (quoted or name not in KNOWN_NAMES) and name not in unknown:
                unknown.append(name)
    if unknown:
        raise ValueError(
            f"column(s) {_fmt_values(unknown)} used in formula {formula!r} not found in data "
            f"({_rows(len(data))}) and not a formula function; available columns: "
            f"{_available(data.columns)}"
        )
    if response in used:
        raise ValueError(
            f"the response column {response!r} also appears on the right-hand side of formula "
            f"{formula!r}; remove it from the terms"
        )

    # -- values ------------------------------------------------------------------------------------
    index = data.index
    yser = _column(data, response, "data")
    arrays: dict[str, Any] = {}
    factors: dict[str, list[Any]] = {}
    for c in used:
        ser = _column(data, c, "data")
        if _is_factor(ser):
            factors[c] = _factor_levels(ser, c)
            arrays[c] = _factor_values(ser, c, factors[c], "data")
        else:
            arrays[c] = _numeric_values(ser, c, "data")

    def patsy_design(arrays: dict[str, Any], n: int) -> tuple[np.ndarray, list[str], Any]:
        dm = _design(rhs, arrays, n, formula)
        X = np.array(dm, dtype=np.float64, order="C")
        if X.shape[0] != n:
            if X.shape[0] == 1 and not used:  # terms that do not depend on data, e.g. 'y ~ 1'
                X = np.ascontiguousarray(np.broadcast_to(X, (n, X.shape[1])))
            else:
                raise ValueError(
                    f"formula {formula!r} gave a design with {X.shape[0]} rows for {_rows(n)} of "
                    "data; every term must give one value per row"
                )
        return X, list(dm.design_info.column_names), dm.design_info

    return _complete(
        formula, response, index, yser, arrays, factors, positive, missing, intercept_required,
        min_rows, two_levels, rank_checks, patsy_design,
    )


def _evaluate_arrays(
    formula: str,
    data: ArrayData,
    positive: Any,
    missing: str,
    intercept_required: bool,
    min_rows: int | None,
    two_levels: bool,
    rank_checks: bool,
) -> ModelFrame:
    """The evaluation of :func:`_evaluate` on :class:`~evstat.formula.arrays.ArrayData`: the
    design of ``y ~ x1 + ... + xp`` (``- 1``: without the intercept) stacked from the columns,
    no formula parsed, no patsy; the same checks and messages."""
    _check_missing_arg(missing)
    if min_rows is not None and (not isinstance(min_rows, numbers.Integral) or min_rows < 0):
        raise ValueError(f"min_rows must be a non-negative integer or None, got {min_rows!r}")
    intercept = data.intercept(formula)
    if len(data) == 0:
        raise ValueError(
            "X has 0 rows: "
            + ("calibration needs rows of both classes" if two_levels else "training needs rows of at least two classes")
        )
    names, terms = list(data.names), list(data.terms)

    def stacked(arrays: dict[str, Any], n: int) -> tuple[np.ndarray, list[str], Any]:
        return _stack(arrays, names, n, intercept), (["Intercept"] if intercept else []) + terms, None

    return _complete(
        formula, data.response, data.index, data[data.response], data.values(), {}, positive, missing,
        intercept_required, min_rows, two_levels, rank_checks, stacked,
    )


def _plain_design(design_info: Any, score_columns: Sequence[str]) -> tuple[list[str], bool] | None:
    """``(columns, intercept)`` when patsy's design is an optional intercept followed by
    numeric score columns as they are (``y ~ s1 + s2``, in any spacing or order), else None.

    Such a design is :func:`_stack` of the columns, value for value (patsy copies them into a
    float64 matrix; no transform, state or dummy coding): new rows skip patsy's
    ``build_design_matrices``, which was most of a point prediction's time (1.3 of 1.9 ms for
    100,000 rows and three scores; issue 36 item 6). Anything else (a transform, an
    interaction, a factor, a column used twice, an intercept not first) goes through patsy.

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.formula import model_frame
    >>> d = pd.DataFrame({"y": [0, 1, 1, 0], "a": [1.0, 2.0, 3.0, 6.0], "b": [0.0, 2.0, 1.0, 1.0]})
    >>> _plain_design(model_frame("y~b+a", d).design_info, ["b", "a"])
    (['b', 'a'], True)
    >>> _plain_design(model_frame("y ~ a + np.log(b + 1)", d).design_info, ["a", "b"]) is None
    True
    """
    if design_info is None:
        return None
    names: list[str] = []
    intercept = False
    for k, term in enumerate(design_info.terms):
        if not term.factors:
            if k != 0:
                return None
            intercept = True
            continue
        if len(term.factors) != 1:
            return None
        factor = term.factors[0]
        info = design_info.factor_infos[factor]
        code = str(getattr(factor, "code", ""))
        if info.type != "numerical" or info.num_columns != 1 or code not in score_columns or code in names:
            return None
        names.append(code)
    if list(design_info.column_names) != ["Intercept"] * intercept + names:
        return None
    return names, intercept


def _stack(arrays: Mapping[str, Any], names: list[str], n: int, intercept: bool) -> np.ndarray:
    """The design of a formula ``y ~ c1 + ... + cp``: an intercept column (if any), then the
    columns; float64, C order (what patsy gives for it)."""
    X = np.empty((n, len(names) + int(intercept)), dtype=np.float64)
    if intercept:
        X[:, 0] = 1.0
    for j, c in enumerate(names):
        X[:, j + int(intercept)] = arrays[c]
    return X


def _complete(
    formula: str,
    response: str,
    index: pd.Index,
    yser: pd.Series,
    arrays: dict[str, Any],
    factors: dict[str, list[Any]],
    positive: Any,
    missing: str,
    intercept_required: bool,
    min_rows: int | None,
    two_levels: bool,
    rank_checks: bool,
    build: Any,
) -> ModelFrame:
    """The part of the evaluation shared by formulas and arrays: missing and infinite values,
    factor levels, the response coding, the design (``build(arrays, n) -> (X, terms,
    design_info)``) and its checks."""
    used = list(arrays)
    n_all = len(yser)
    na = np.zeros(n_all, dtype=bool)
    y_na = yser.isna().to_numpy(dtype=bool)
    if pd.api.types.is_numeric_dtype(yser.dtype) and not pd.api.types.is_bool_dtype(yser.dtype):
        y_inf = np.isinf(yser.to_numpy(dtype=np.float64, na_value=np.nan))
        if y_inf.any():
            raise ValueError(
                f"response column {response!r} has infinite values in "
                f"{_rows(int(y_inf.sum()))} of {n_all} (index {_fmt_labels(index, y_inf)}); "
                "a class label must be finite (e.g. 0/1): fix these rows"
            )
    checks = [(response, y_na, "response column")]
    for c, a in arrays.items():
        if c in factors:
            checks.append((c, np.asarray(pd.isna(a), dtype=bool), "column"))
            continue
        inf = np.isinf(a)
        if inf.any():
            raise ValueError(
                f"column {c!r} has infinite values in {_rows(int(inf.sum()))} of {n_all} "
                f"(index {_fmt_labels(index, inf)}); infinite scores are never dropped "
                "silently: fix or remove these rows"
            )
        checks.append((c, np.isnan(a), "column"))
    for c, mask, what in checks:
        if mask.any():
            if missing == "raise":
                raise ValueError(
                    f"{what} {c!r} has missing values in {_rows(int(mask.sum()))} of {n_all} "
                    f"(index {_fmt_labels(index, mask)}): drop or impute them, or pass "
                    "missing='drop'"
                )
            na |= mask
    n_dropped = int(na.sum())
    if n_dropped:
        keep = ~na
        if not keep.any():
            raise ValueError(
                f"no rows left: all {n_all} rows of data have a missing value in "
                f"{_fmt_values([response, *used])}; calibration needs complete rows"
            )
        yser = yser[keep]
        arrays = {c: a[keep] for c, a in arrays.items()}
        index = index[keep]
    n = n_all - n_dropped
    dropped_note = f" (after dropping {_rows(n_dropped)} with missing values)" if n_dropped else ""
    for c in factors:
        arrays[c] = arrays[c].remove_unused_categories()  # R's drop.unused.levels
        factors[c] = list(arrays[c].categories)
        if len(factors[c]) < 2:
            raise ValueError(
                f"factor column {c!r} has a single level {factors[c][0]!r} in all {_rows(n)}"
                f"{dropped_note}: its effect cannot be told apart from the intercept (R: "
                "'contrasts can be applied only to factors with 2 or more levels'); remove it "
                "from the formula"
            )

    # -- response -------------------------------------------------------------------------------
    y, classes, pos = code_classes(yser, response, positive, two_levels)

    # -- design -----------------------------------------------------------------------------------
    X, terms, design_info = build(arrays, n)
    p = X.shape[1]
    if p == 0:
        raise ValueError(
            f"formula {formula!r} has no design columns (no terms and no intercept): add score "
            "terms or an intercept"
        )
    _check_design_finite(X, terms, index, formula, "data")
    if intercept_required and "Intercept" not in terms:
        raise ValueError(
            f"formula {formula!r} has no intercept, but this calibrator needs one: remove "
            "'- 1' / '0 +' from the formula"
        )
    if rank_checks and n < p:
        raise ValueError(
            f"data has {_rows(n)}{dropped_note} for {p} design columns {_fmt_values(terms)}: a calibration "
            "model needs at least as many rows as parameters; add calibration rows or remove "
            "terms from the formula"
        )
    if min_rows is not None and n < min_rows:
        raise ValueError(
            f"data has {_rows(n)}{dropped_note}, but this calibrator needs at least {min_rows} "
            "rows: add calibration rows"
        )
    _check_magnitude(X, terms)
    if rank_checks:
        _check_constant(X, terms)
        _check_collinear(X, terms)
    return _make_frame(
        formula=formula,
        response=response,
        y=y,
        X=X,
        terms=terms,
        design_info=design_info,
        classes=classes,
        positive=pos,
        index=index,
        n_dropped=n_dropped,
        score_columns=tuple(used),
        data=arrays,
        factors=factors,
    )
