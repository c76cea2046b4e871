"""Formula -> training data of an evidential classifier: class codes and score design.

:func:`evstat.formula.model_frame` codes a *two-class* response. The classifiers of this
subpackage accept a response with any number (>= 2) of classes, so this module adds a small
multi-class response coder on top of the public API of :mod:`evstat.formula`:

* the right-hand side always goes through :func:`evstat.formula.model_frame` (patsy design,
  checks of absent, non-numeric, infinite, constant and collinear score columns, stateful
  transforms, new-data transforms and JSON persistence of the design);
* a two-class response is coded by :func:`~evstat.formula.model_frame` itself (same levels and
  ``positive=`` rule as every calibrator);
* a response with three or more classes is coded here (levels: the observed categories in
  category order for a pandas Categorical, else the sorted distinct values, or the order of
  first appearance when the values cannot be sorted), and ``model_frame`` evaluates the
  right-hand side against a two-level placeholder response that is never used.

Missing values are handled here, before ``model_frame`` is called, so the same rule holds for
two and more classes: an error naming the column (default) or, with ``missing="drop"``, the
incomplete rows are dropped.

The intercept column of the design (if the formula has one) is dropped: distances between score
vectors do not involve it.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import patsy
from numpy.typing import NDArray
from patsy import PatsyError

from evstat.formula import ModelFrame, model_frame, schema

__all__ = ["CLASS_FRAME", "ClassFrame", "class_frame"]

FORMAT = "evstat.ClassFrame"
FORMAT_VERSION = 1
_SHOW = 5


def _class_frame_check(d: Any, root: Any) -> str | None:
    m = len(d["levels"])
    bad = [i for i, c in enumerate(d["codes"]) if c >= m]
    if bad:
        return f"codes[{bad[0]}] = {d['codes'][bad[0]]} is not a class (there are {m} levels)"
    return None


#: Schema of :meth:`ClassFrame.to_dict` (see :mod:`evstat.formula.schema`).
CLASS_FRAME = schema.Dict(
    {
        "format": schema.Str(choices=[FORMAT]),
        "version": schema.Int(choices=[FORMAT_VERSION]),
        "design": schema.MODEL_FRAME,
        "levels": schema.List(schema.Scalar(), min_len=2, max_len=62, what="levels"),
        "codes": schema.List(schema.Int(min=0), length=schema.Ref("design.y", "the design has {n} rows"), what="codes"),
        "positive": schema.Scalar(),
        "n_dropped": schema.Int(min=0),
    },
    checks=[_class_frame_check],
    scope=True,
)


def _native(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _rows(k: int) -> str:
    return f"{k} row" if k == 1 else f"{k} rows"


def _labels(index: pd.Index, mask: NDArray[np.bool_]) -> str:
    lab = index[mask]
    text = ", ".join(repr(_native(v)) for v in lab[:_SHOW])
    return text + (", ..." if len(lab) > _SHOW else "")


def _json_level(value: Any) -> Any:
    value = _native(value)
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float) and np.isfinite(value):
        return value
    return str(value)


def _parse(formula: str) -> tuple[str, list[str]]:
    """The response column name and the names used on the right-hand side (in order)."""
    if not isinstance(formula, str):
        raise TypeError(
            f"formula must be a string such as 'y ~ s1 + s2', got {type(formula).__name__}"
        )
    if "~" not in formula:
        raise ValueError(
            f"formula {formula!r} has no '~': write it as 'response ~ terms', e.g. 'y ~ s1 + s2'"
        )
    try:
        desc = patsy.ModelDesc.from_formula(formula)
    except PatsyError as err:
        raise ValueError(f"cannot parse formula {formula!r}: {err}") from None
    lhs = [f for t in desc.lhs_termlist for f in t.factors]
    if len(lhs) != 1:
        raise ValueError(
            f"formula {formula!r} must have exactly one response column left of '~' "
            "(the class column), e.g. 'y ~ s1 + s2'"
        )
    code = lhs[0].code.strip()
    name: str | None = None
    try:
        node = ast.parse(code, mode="eval").body
    except SyntaxError:
        node = None
    if isinstance(node, ast.Name):
        name = node.id
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Q"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        name = node.args[0].value
    if name is None:
        raise ValueError(
            f"the response {code!r} of formula {formula!r} must be a column name (quote names "
            "that are not identifiers with Q('...')), not an expression: compute the class "
            "column first"
        )
    used: list[str] = []
    for term in desc.rhs_termlist:
        for factor in term.factors:
            try:
                tree = ast.parse(factor.code.strip(), mode="eval")
            except SyntaxError:
                continue  # model_frame reports it
            for nd in ast.walk(tree):
                if isinstance(nd, ast.Name) and nd.id not in used:
                    used.append(nd.id)
                elif (
                    isinstance(nd, ast.Call)
                    and isinstance(nd.func, ast.Name)
                    and nd.func.id == "Q"
                    and nd.args
                    and isinstance(nd.args[0], ast.Constant)
                    and isinstance(nd.args[0].value, str)
                    and nd.args[0].value not in used
                ):
                    used.append(nd.args[0].value)
    return name, used


def _levels_of(series: pd.Series) -> list[Any]:
    """Observed levels: category order for a Categorical, else sorted (or first appearance)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        observed = set(pd.unique(series.cat.codes.to_numpy()).tolist())
        return [_native(c) for k, c in enumerate(series.cat.categories) if k in observed]
    levels = [_native(v) for v in pd.unique(series.to_numpy(dtype=object))]
    try:
        return sorted(levels)
    except TypeError:
        return levels


@dataclass(frozen=True, eq=False, repr=False)
class ClassFrame:
    """Training data of an evidential classifier: class codes and the score design.

    Created by :func:`class_frame`. ``X`` and ``codes`` are read-only.

    Attributes
    ----------
    design : evstat.formula.ModelFrame
        The right-hand side as :func:`evstat.formula.model_frame` evaluated it (with the
        intercept column, if any). For a two-class response it is the ordinary model frame of
        the calibrators (``y`` 0/1, ``classes``, ``positive``); for three or more classes its
        ``y`` and ``classes`` belong to a placeholder response and must not be used.
    levels : tuple
        The classes, in frame order (two classes: ``(negative, positive)``).
    codes : numpy.ndarray
        Class of every training row as a position in ``levels`` (int), shape (n,).
    positive : object or None
        The positive class of a two-class response; None for three or more classes.
    n_dropped : int
        Rows dropped for missing values (``missing="drop"``).
    """

    design: ModelFrame
    levels: tuple
    codes: NDArray[np.intp]
    positive: Any
    n_dropped: int = 0

    @property
    def formula(self) -> str:
        """The formula as given."""
        return self.design.formula

    @property
    def response(self) -> str:
        """The class column name."""
        return self.design.response

    @property
    def n(self) -> int:
        """Number of training rows."""
        return int(self.codes.shape[0])

    @property
    def n_classes(self) -> int:
        """Number of classes ``M``."""
        return len(self.levels)

    @property
    def is_binary(self) -> bool:
        """True for a two-class response."""
        return len(self.levels) == 2

    @property
    def index(self) -> pd.Index:
        """Index of the training rows, in data order."""
        return self.design.index

    @property
    def _cols(self) -> NDArray[np.intp]:
        return np.array([j for j, t in enumerate(self.design.terms) if t != "Intercept"], dtype=np.intp)

    @property
    def terms(self) -> list[str]:
        """Names of the score (feature) columns of ``X``: the design terms but the intercept."""
        return [t for t in self.design.terms if t != "Intercept"]

    @property
    def X(self) -> NDArray[np.float64]:
        """Score vectors of the training rows, shape (n, p) (no intercept column)."""
        X = np.ascontiguousarray(np.asarray(self.design.X)[:, self._cols])
        X.setflags(write=False)
        return X

    @property
    def score_columns(self) -> list[str]:
        """The data columns the right-hand side uses."""
        return self.design.score_columns

    @property
    def counts(self) -> pd.Series:
        """Training rows per class, indexed by the levels."""
        c = np.bincount(self.codes, minlength=self.n_classes)
        return pd.Series(c, index=pd.Index(self.levels, dtype=object, name="class"), name="n")

    def labels(self) -> pd.Series:
        """The class of every training row (original labels), indexed like the training rows."""
        lev = np.empty(self.n_classes, dtype=object)
        lev[:] = list(self.levels)
        return pd.Series(lev[self.codes], index=self.index, name=self.response)

    def new_X(self, newdata: pd.DataFrame, missing: str = "raise") -> tuple[NDArray[np.float64], pd.Index]:
        """Score vectors of new rows through the training design (no intercept column); see
        :meth:`evstat.formula.ModelFrame.new_X`."""
        X, index = self.design.new_X(newdata, missing=missing)
        return np.ascontiguousarray(X[:, self._cols]), index

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable description; :meth:`from_dict` rebuilds an equal frame.
        Levels that are not JSON scalars (str, int, float, bool) are stored as ``str()``."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "design": self.design.to_dict(),
            "levels": [_json_level(v) for v in self.levels],
            "codes": self.codes.astype(int).tolist(),
            "positive": _json_level(self.positive),
            "n_dropped": int(self.n_dropped),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ClassFrame:
        """Rebuild a :class:`ClassFrame` from :meth:`to_dict` output."""
        if not isinstance(d, Mapping) or d.get("format") != FORMAT:
            raise ValueError(
                f"not an evstat classifier frame description (expected format {FORMAT!r})"
            )
        if d.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"classifier frame format version {d.get('version')!r} is not supported (this "
                f"evstat reads version {FORMAT_VERSION}); refit and save the model again"
            )
        schema.validate(d, CLASS_FRAME, "class_frame")
        design = ModelFrame.from_dict(d["design"])
        codes = np.asarray(d["codes"], dtype=np.intp)
        if codes.shape[0] != design.n:
            raise ValueError("inconsistent classifier frame description: codes and design differ in length")
        codes.setflags(write=False)
        return cls(
            design=design,
            levels=tuple(d["levels"]),
            codes=codes,
            positive=d["positive"],
            n_dropped=int(d["n_dropped"]),
        )


def class_frame(
    formula: str,
    data: pd.DataFrame,
    positive: Any = None,
    missing: str = "raise",
) -> ClassFrame:
    """Evaluate a classifier formula: class codes (two or more classes) and score design.

    Parameters
    ----------
    formula : str
        ``"class ~ s1 + s2 + ..."``; the right-hand side as for :func:`evstat.formula.model_frame`.
    data : pandas.DataFrame
        Training data.
    positive : object, optional
        Two-class responses only: the level called positive (second in frame order); default
        as :func:`~evstat.formula.model_frame` (the second level in sorted order).
    missing : {"raise", "drop"}
        Rows with a missing class or score: an error (default) or dropped.

    Returns
    -------
    ClassFrame

    Raises
    ------
    ValueError
        A response with one class, missing values (unless ``missing="drop"``), ``positive``
        with three or more classes, a formula without score terms, and everything
        :func:`~evstat.formula.model_frame` rejects.

    Examples
    --------
    >>> import pandas as pd
    >>> from evstat.classifiers._response import class_frame
    >>> d = pd.DataFrame({"y": ["b", "a", "c", "a"], "s": [0.1, 0.5, 0.9, 0.2]})
    >>> cf = class_frame("y ~ s", d)
    >>> cf.levels, cf.codes.tolist(), cf.terms
    (('a', 'b', 'c'), [1, 0, 2, 0], ['s'])
    """
    if missing not in ("raise", "drop"):
        raise ValueError(f"missing must be 'raise' or 'drop', got {missing!r}")
    response, used = _parse(formula)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"data must be a pandas DataFrame, got {type(data).__name__}: wrap it with pd.DataFrame(...)"
        )
    if len(data) == 0:
        raise ValueError(f"data has 0 rows: formula {formula!r} needs training rows of at least two classes")
    if response not in data.columns:
        raise ValueError(
            f"response column {response!r} of formula {formula!r} not found in data "
            f"({_rows(len(data))}); available columns: {[_native(c) for c in data.columns][:30]}"
        )
    n_all = len(data)
    yser = data[response]
    if isinstance(yser, pd.DataFrame):
        raise ValueError(f"data has {yser.shape[1]} columns named {response!r}; column names must be unique")
    checks = [(response, "response column", yser.isna().to_numpy(dtype=bool))]
    for c in used:
        if c in data.columns and c != response:
            col = data[c]
            if isinstance(col, pd.Series):
                checks.append((c, "column", col.isna().to_numpy(dtype=bool)))
    na = np.zeros(n_all, dtype=bool)
    for c, what, mask in checks:
        if mask.any():
            if missing == "raise":
                raise ValueError(
                    f"{what} {c!r} has missing values in {_rows(int(mask.sum()))} of {n_all} "
                    f"(index {_labels(data.index, mask)}): drop or impute them, or pass "
                    "missing='drop'"
                )
            na |= mask
    n_dropped = int(na.sum())
    if n_dropped:
        if n_dropped == n_all:
            raise ValueError(
                f"no rows left: all {n_all} rows of data have a missing value in "
                f"{[response, *used]}; the classifier needs complete rows"
            )
        data = data.iloc[np.flatnonzero(~na)]
        yser = data[response]
    n = len(data)
    if pd.api.types.is_numeric_dtype(yser.dtype) and not pd.api.types.is_bool_dtype(yser.dtype):
        inf = np.isinf(yser.to_numpy(dtype=np.float64))
        if inf.any():
            raise ValueError(
                f"response column {response!r} has infinite values in {_rows(int(inf.sum()))} "
                f"of {n} (index {_labels(data.index, inf)}): a class label must be finite"
            )
    levels = _levels_of(yser)
    if len(levels) < 2:
        raise ValueError(
            f"response column {response!r} has a single class: {levels[0]!r} in all "
            f"{_rows(n)}. A classifier needs training rows of at least two classes: add rows "
            "of the other classes"
        )
    if len(levels) == 2:
        design = model_frame(formula, data, positive=positive)
        lev = tuple(design.classes)
        codes = np.asarray(design.y, dtype=np.intp)
        pos = design.positive
    else:
        if positive is not None:
            raise ValueError(
                f"positive={positive!r} is only for a two-class response, but response column "
                f"{response!r} has {len(levels)} classes {levels[:10]}: remove positive="
            )
        placeholder = np.arange(n, dtype=np.int64) % 2  # two levels; never used
        design = model_frame(formula, data.assign(**{response: placeholder}))
        lev = tuple(levels)
        codes = pd.Index(list(levels), dtype=object).get_indexer(yser.to_numpy(dtype=object))
        codes = np.asarray(codes, dtype=np.intp)
        if (codes < 0).any():  # defensive: every value is one of the observed levels
            raise ValueError(f"could not code response column {response!r} into its levels {levels}")
        pos = None
    if not any(t != "Intercept" for t in design.terms):
        raise ValueError(
            f"formula {formula!r} has no score terms (only {design.terms}); a classifier needs "
            "at least one score column, e.g. 'y ~ s1 + s2'"
        )
    codes.setflags(write=False)
    return ClassFrame(design=design, levels=lev, codes=codes, positive=pos, n_dropped=n_dropped)
