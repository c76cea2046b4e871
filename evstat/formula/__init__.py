"""Formula -> design matrices: response coding, input validation and new-data transforms.

Every evstat calibrator starts here. :func:`model_frame` reads an R-style formula such as
``"y ~ svm1 + svm2 + svm3"`` against a DataFrame and returns a :class:`ModelFrame`: the response
coded 0/1, the design matrix, the term names and a patsy ``DesignInfo`` that transforms new data
exactly as the calibration data were transformed (including the calibration-set state of stateful
transforms such as ``center(s)`` or ``standardize(s)``).

Formula language
----------------
* The left-hand side is the response and must be a column name of ``data`` (written bare,
  ``y ~ ...``, or quoted for names that are not Python identifiers, ``Q("my label") ~ ...``).
  Expressions on the left (``I(y == "R") ~ s``) are rejected: choose the class coded 1 with
  ``positive=`` instead.
* The right-hand side is a patsy formula evaluated on the data columns. Terms may use
  ``+``, ``-``, ``:``, ``*``, ``0``/``-1`` (no intercept) and functions. The functions available
  are the numpy functions listed in :mod:`evstat.formula.whitelist` as ``np.<name>`` (``np.log``,
  ``np.exp``, ``np.sqrt``, ``np.clip``, ...); the R-style shortcuts ``log``, ``log1p``, ``log2``,
  ``log10``, ``exp``, ``sqrt`` (numpy) and ``logit``, ``expit`` (scipy.special); the Python
  built-ins ``abs``, ``round``, ``pow``; and patsy's ``I``, ``Q``, ``center``, ``standardize``,
  ``scale``, ``bs``, ``cr``, ``cc``, ``te``. Every formula is checked against that whitelist
  before anything is evaluated (also when a saved model is loaded) and evaluated without Python's
  built-ins, so a formula cannot run other code. The environment is fixed (it does not capture
  the caller's variables), so a fitted model is reproducible and can be saved and reloaded;
  compute anything else as a column first.
* Factor covariates: a text, categorical or logical column, ``C(g)`` (also of a numeric
  column) and a logical expression such as ``I(s > 0)`` are coded as R's ``glm`` codes a
  factor, with treatment contrasts: the first level is the baseline, absorbed by the intercept
  (without an intercept every level gets a column). Levels are ordered as R orders them: the
  categories of a pandas Categorical in their order, ``[False, True]`` for logical columns,
  text sorted by code point (R's ``sort`` in the C locale; R in a language locale may order
  upper and lower case differently: make the column a Categorical to fix the order). Levels
  absent from the rows used are dropped (R's ``drop.unused.levels``); a factor with one level
  is an error. Term names are patsy's, as statsmodels' formula API prints them:
  ``C(sex)[T.M]``, ``sex[T.M]``, ``C(sex)[F]`` (no intercept), ``C(sex)[T.M]:ldose``. The
  levels are stored with the frame (:attr:`ModelFrame.factors`, :meth:`ModelFrame.to_dict`),
  new data are coded on them, and a level the calibration data did not have is an error naming
  the column and the level. Models that work on score axes (binning, isotonic, beta
  calibration, the nearest-neighbour and ball classifiers) refuse factor terms with
  :meth:`ModelFrame.require_numeric`.
* Every other column used on the right must be numeric.

Nothing is silently dropped or clipped: missing values are an error unless ``missing="drop"``,
infinite values are always an error, and so are non-finite values produced by a transform.
"""

from __future__ import annotations

import ast
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import patsy
from patsy import PatsyError

from evstat.formula import schema, whitelist

__all__ = ["ModelFrame", "code_response", "model_frame"]

#: Format tag and version written by :meth:`ModelFrame.to_dict`.
FORMAT = "evstat.ModelFrame"
FORMAT_VERSION = 1

#: Relative tolerance for collinearity: a design column whose component orthogonal to the
#: previous (independent) columns has norm below ``_COLLINEAR_TOL`` times its own norm is a
#: linear combination of them. This is the criterion and default tolerance of R's ``qr()`` /
#: ``lm.fit`` (LINPACK dqrdc2 with limited column pivoting, tol = 1e-7).
_COLLINEAR_TOL = 1e-7

_KNOWN_NAMES = set(whitelist.function_names()) | {"np", "numpy"}
#: Largest magnitude of a calibration design value: the likelihood's information matrix sums
#: squares of the design values, which overflow float64 beyond about 1.3e154 (R's glm fails
#: there too); calibration scores larger than this must be rescaled. (Test rows are not bound
#: by it: the predictive belief is computed on the direction of each row.)
MAX_DESIGN_ABS = 1e150
_NA_NONE = patsy.NAAction(on_NA="raise", NA_types=[])  # evstat checks missing values itself
_MISSING_CHOICES = ("raise", "drop")
_SHOW = 5  # how many index labels / levels an error message shows


def _eval_env() -> patsy.EvalEnvironment:
    return whitelist.eval_env()  # the whitelist's namespace, no Python built-ins


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------


def _native(value: Any) -> Any:
    """Convert numpy / pandas scalars to the matching Python scalar (for JSON and messages)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _fmt_values(values: list[Any], limit: int = 10) -> str:
    shown = ", ".join(repr(_native(v)) for v in values[:limit])
    if len(values) > limit:
        shown += f", ... ({len(values)} in all)"
    return "[" + shown + "]"


def _fmt_labels(index: pd.Index, mask: np.ndarray) -> str:
    labels = index[mask]
    text = ", ".join(repr(_native(v)) for v in labels[:_SHOW])
    if len(labels) > _SHOW:
        text += ", ..."
    return text


def _rows(k: int) -> str:
    return f"{k} row" if k == 1 else f"{k} rows"


def _check_missing_arg(missing: str) -> None:
    if missing not in _MISSING_CHOICES:
        raise ValueError(f"missing must be 'raise' or 'drop', got {missing!r}")


def _available(columns: pd.Index) -> str:
    cols = [_native(c) for c in columns]
    text = _fmt_values(cols, limit=30)
    if any(isinstance(c, str) and not c.isidentifier() for c in cols):
        text += " (names that are not Python identifiers must be quoted: Q('my col'))"
    return text


def _split_formula(formula: str) -> tuple[str, str]:
    """Split at the single top-level ``~`` (outside quotes and brackets)."""
    if not isinstance(formula, str):
        raise TypeError(
            f"formula must be a string such as 'y ~ s1 + s2', got {type(formula).__name__}"
        )
    positions = []
    quote: str | None = None
    depth = 0
    escaped = False
    for i, ch in enumerate(formula):
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "~" and depth == 0:
            positions.append(i)
    if not positions:
        raise ValueError(
            f"formula {formula!r} has no '~': write it as 'response ~ terms', e.g. 'y ~ s1 + s2'"
        )
    if len(positions) > 1:
        raise ValueError(
            f"formula {formula!r} has {len(positions)} '~'; write exactly one, as "
            "'response ~ terms'"
        )
    lhs, rhs = formula[: positions[0]].strip(), formula[positions[0] + 1 :].strip()
    if not lhs:
        raise ValueError(
            f"formula {formula!r} has no response: put the class column left of '~', "
            "e.g. 'y ~ s1 + s2'"
        )
    if not rhs:
        raise ValueError(
            f"formula {formula!r} has no right-hand side: write the score terms right of '~', "
            "e.g. 'y ~ s1 + s2' (or 'y ~ 1' for an intercept only)"
        )
    return lhs, rhs


def _response_name(lhs: str, formula: str) -> str:
    """The response column named by the left-hand side: a bare name or ``Q("name")``."""
    try:
        node = ast.parse(lhs, mode="eval").body
    except SyntaxError:
        node = None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "Q"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return lhs


def _rhs_codes(rhs: str, formula: str) -> list[str]:
    """The Python code of every factor on the right-hand side, in formula order."""
    try:
        desc = patsy.ModelDesc.from_formula(rhs)
    except PatsyError as err:
        raise ValueError(f"cannot parse the right-hand side of formula {formula!r}: {err}") from None
    codes: list[str] = []
    for term in desc.rhs_termlist:
        for factor in term.factors:
            code = getattr(factor, "code", None)
            if code is not None and code not in codes:
                codes.append(code)
    return codes


def _names_in(code: str) -> list[tuple[str, bool]]:
    """Free variable names in a factor's code, in source order; ``(name, quoted)`` pairs.

    ``quoted`` is True for names given as a string to ``Q("...")``.
    """
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError:
        return []  # patsy reports the syntax error with its own caret diagram
    bound = {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)}
    bound |= {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    found: list[tuple[int, int, str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
            found.append((node.lineno, node.col_offset, node.id, False))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Q"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.col_offset, node.args[0].value, True))
    found.sort()
    return [(name, quoted) for _, _, name, quoted in found]


def _column(data: pd.DataFrame, name: str, what: str) -> pd.Series:
    values = data[name]
    if isinstance(values, pd.DataFrame):
        raise ValueError(
            f"{what} has {values.shape[1]} columns named {name!r}; column names must be unique"
        )
    return values


def _numeric_values(series: pd.Series, name: str, what: str) -> np.ndarray:
    """A score column as float64 (missing -> NaN); TypeError-free ValueError if not numeric."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        raise ValueError(
            f"column {name!r} of {what} is categorical (dtype category, {_rows(len(series))}); "
            "evstat calibrates numeric scores and does not expand categorical columns into "
            "dummy columns: use a numeric score column, or remove it from the formula"
        )
    if pd.api.types.is_bool_dtype(dtype):
        raise ValueError(
            f"column {name!r} of {what} is boolean ({_rows(len(series))}); patsy would code it "
            f"as a categorical: convert it to a number first, e.g. data[{name!r}].astype(float)"
        )
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(dtype):
        nonmissing = series[series.notna()]
        example = f", e.g. {_native(nonmissing.iloc[0])!r}" if len(nonmissing) else ""
        raise ValueError(
            f"column {name!r} of {what} is not numeric (dtype {dtype}{example}; "
            f"{_rows(len(series))}); calibration needs numeric scores (patsy would turn text "
            f"into dummy columns): convert it, e.g. pd.to_numeric(data[{name!r}]), or remove "
            "it from the formula"
        )
    return series.to_numpy(dtype=np.float64, na_value=np.nan)


def _is_factor(series: pd.Series) -> bool:
    """Text, categorical and logical columns are factors (R's character/factor/logical)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
        return True
    return not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_complex_dtype(dtype)


def _factor_levels(series: pd.Series, name: str) -> list[Any]:
    """The levels of a factor column, ordered as R orders them (the first is the baseline).

    Categorical: category order, unused categories dropped (R's ``drop.unused.levels``);
    logical: ``[False, True]``; text: sorted in code-point order (R's sort in the C locale).
    """
    present = series[series.notna()]
    if isinstance(series.dtype, pd.CategoricalDtype):
        used = set(pd.unique(present.cat.codes.to_numpy()).tolist())
        return [_native(c) for k, c in enumerate(series.cat.categories) if k in used]
    values = [_native(v) for v in pd.unique(present.to_numpy(dtype=object))]
    if pd.api.types.is_complex_dtype(series.dtype) or any(
        not isinstance(v, (str, bool, numbers.Real)) for v in values
    ):
        bad = next((v for v in values if not isinstance(v, (str, bool, numbers.Real))), values[0])
        raise ValueError(
            f"column {name!r} holds {type(bad).__name__} values (e.g. {bad!r}); a factor "
            "column must hold text, logical or numbers: convert it, e.g. "
            f"data[{name!r}].astype(str)"
        )
    try:
        return sorted(values)
    except TypeError:
        raise ValueError(
            f"factor column {name!r} mixes types in its levels {_fmt_values(values)} and they "
            f"cannot be ordered: convert it, e.g. data[{name!r}].astype(str)"
        ) from None


def _factor_values(series: pd.Series, name: str, levels: list[Any], what: str) -> pd.Categorical:
    """A factor column coded on ``levels`` (missing stays missing); an unseen level is an error."""
    values = series.astype(object).to_numpy()
    na = pd.isna(series).to_numpy(dtype=bool)
    codes = np.asarray(pd.Index(levels, dtype=object).get_indexer(values), dtype=np.intp)
    codes[na] = -1
    bad = (codes < 0) & ~na
    if bad.any():
        unseen = list(dict.fromkeys(_native(v) for v in values[bad]))
        raise ValueError(
            f"column {name!r} of {what} has level(s) {_fmt_values(unseen, limit=_SHOW)} in "
            f"{_rows(int(bad.sum()))} (index {_fmt_labels(series.index, bad)}) that the "
            f"calibration data did not have; the model knows the levels {_fmt_values(levels)} "
            "and has no coefficient for another one: recode or remove these rows"
        )
    return pd.Categorical.from_codes(codes, categories=levels)


def _design(rhs: str, columns: Mapping[str, Any], n: int, formula: str) -> Any:
    """patsy's design matrix of the (whitelisted) right-hand side ``rhs`` on ``n`` rows of
    ``columns``, evaluated without Python built-ins; patsy's errors name the formula."""
    try:
        with np.errstate(all="ignore"):
            return patsy.dmatrix(
                rhs, _patsy_frame(columns, n), eval_env=_eval_env(), NA_action=_NA_NONE,
                return_type="matrix",
            )
    except PatsyError as err:
        raise _wrap_patsy(err, formula) from None


def _patsy_frame(arrays: Mapping[str, np.ndarray], n: int) -> pd.DataFrame:
    return pd.DataFrame(dict(arrays), index=pd.RangeIndex(n))


def _wrap_patsy(err: Exception, formula: str) -> ValueError:
    return ValueError(f"cannot evaluate formula {formula!r}: {err}")


def _check_design_finite(
    X: np.ndarray, terms: list[str], index: pd.Index, formula: str, what: str
) -> None:
    bad = ~np.isfinite(X)
    if not bad.any():
        return
    j = int(np.flatnonzero(bad.any(axis=0))[0])
    rows = bad[:, j]
    raise ValueError(
        f"design column {terms[j]!r} of formula {formula!r} is not finite for "
        f"{_rows(int(rows.sum()))} of {len(index)} in {what} (index {_fmt_labels(index, rows)}): "
        "the data columns are finite there, so the transform is undefined (e.g. log of a value "
        "<= 0); change the transform or remove these rows"
    )


def _build_X(
    design_info: patsy.DesignInfo, arrays: Mapping[str, np.ndarray], n: int, formula: str
) -> np.ndarray:
    """Run ``arrays`` (n rows) through ``design_info``; float64, C order, shape (n, p)."""
    try:
        with np.errstate(all="ignore"):
            (dm,) = patsy.build_design_matrices(
                [design_info], _patsy_frame(arrays, n), NA_action=_NA_NONE
            )
    except PatsyError as err:
        raise _wrap_patsy(err, formula) from None
    return np.array(dm, dtype=np.float64, order="C")


# ---------------------------------------------------------------------------------------------
# response coding
# ---------------------------------------------------------------------------------------------


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


def _code_response(
    series: pd.Series, name: str, positive: Any
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
        elif isinstance(only, numbers.Number) and only in (0, 1):
            other = f"; no rows of {int(1 - only)!r}"
        raise ValueError(
            f"response column {name!r} has a single class: {only!r} in all {_rows(n)}{other}. "
            "The calibration data must contain both classes: add rows of the other class"
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


def code_response(values: Any, classes: Any, what: str = "y", fix: str = "give one class per row") -> np.ndarray:
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

    Returns
    -------
    numpy.ndarray of int
        The position of every value in ``classes`` (0/1 for two classes: 1 = positive).

    Examples
    --------
    >>> code_response(["b", "a", "c"], ("a", "b", "c")).tolist()
    [1, 0, 2]
    """
    arr = np.asarray(values, dtype=object).ravel()
    out = np.full(arr.shape[0], -1, dtype=np.intp)
    ser = pd.Series(arr, dtype=object)
    for k, level in enumerate(classes):
        out[((ser == level).to_numpy(dtype=bool)) & (out < 0)] = k
    bad = out < 0
    if bad.any():
        isna = pd.isna(ser).to_numpy()
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


# ---------------------------------------------------------------------------------------------
# design checks
# ---------------------------------------------------------------------------------------------


def _check_magnitude(X: np.ndarray, terms: list[str]) -> None:
    """Calibration design values beyond ``MAX_DESIGN_ABS``: their squares overflow."""
    if X.shape[0] == 0:
        return
    big = np.max(np.abs(X), axis=0)
    for j, term in enumerate(terms):
        if big[j] > MAX_DESIGN_ABS:
            rows = int(np.sum(np.abs(X[:, j]) > MAX_DESIGN_ABS))
            raise ValueError(
                f"design column {term!r} has values up to {big[j]:.3g} in magnitude ({rows} of "
                f"{_rows(X.shape[0])} beyond {MAX_DESIGN_ABS:.0e}): their squares overflow "
                "float64, so the likelihood cannot be fitted; rescale the scores (divide them by "
                f"a power of ten, e.g. I({term} / {10.0 ** np.floor(np.log10(big[j])):.0e}))"
            )


def _check_constant(X: np.ndarray, terms: list[str]) -> None:
    if X.shape[0] == 0:
        return
    spread = X.max(axis=0) - X.min(axis=0)
    for j, term in enumerate(terms):
        if term != "Intercept" and spread[j] == 0:
            raise ValueError(
                f"design column {term!r} is constant (all {_rows(X.shape[0])} equal "
                f"{X[0, j]:.6g}): it carries no information about the class and cannot be "
                "estimated; remove it from the formula"
            )


def _collinear_report(X: np.ndarray, terms: list[str]) -> tuple[int, int, list[int]]:
    """R-style sequential rank check in formula order.

    Returns ``(rank, first_dependent_column, independent_columns_before_it)``; the dependent
    column is -1 when the design has full column rank.
    """
    norms = np.linalg.norm(X, axis=0)
    basis = np.empty((X.shape[0], 0))
    independent: list[int] = []
    first = -1
    first_independent: list[int] = []
    for j in range(X.shape[1]):
        if norms[j] == 0:
            resid_norm = 0.0
            x = X[:, j]
        else:
            x = X[:, j] / norms[j]
            r = x - basis @ (basis.T @ x)
            r = r - basis @ (basis.T @ r)  # re-orthogonalise (Gram-Schmidt twice)
            resid_norm = float(np.linalg.norm(r))
        if resid_norm < _COLLINEAR_TOL:
            if first < 0:
                first, first_independent = j, list(independent)
            continue
        basis = np.column_stack([basis, r / resid_norm])
        independent.append(j)
    return len(independent), first, first_independent


def _check_collinear(X: np.ndarray, terms: list[str]) -> None:
    rank, j, before = _collinear_report(X, terms)
    if j < 0:
        return
    coef = np.linalg.lstsq(X[:, before], X[:, j], rcond=None)[0] if before else np.zeros(0)
    norms = np.linalg.norm(X, axis=0)
    involved = [
        (before[k], coef[k])
        for k in range(len(before))
        if abs(coef[k]) * norms[before[k]] > 1e-6 * norms[j]
    ]
    combo = "".join(
        f"{' - ' if c < 0 else ' + '}{abs(c):.6g} * {terms[k]}" for k, c in involved
    ).removeprefix(" + ") or "0"
    if combo.startswith(" - "):
        combo = "-" + combo[3:]
    names = [terms[k] for k, _ in involved] + [terms[j]]
    raise ValueError(
        f"design columns are collinear: {terms[j]!r} is a linear combination of "
        f"{', '.join(repr(terms[k]) for k, _ in involved)} ({terms[j]} ~= {combo}; rank "
        f"{rank} < {X.shape[1]} columns, {_rows(X.shape[0])}); its coefficient cannot be "
        f"estimated: remove one of {', '.join(repr(t) for t in names)} from the formula"
    )


# ---------------------------------------------------------------------------------------------
# ModelFrame
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class ModelFrame:
    """The calibration data of a formula: coded response, design matrix and how to rebuild it.

    Created by :func:`model_frame`; do not build one by hand. ``y`` and ``X`` are read-only
    float64 arrays (copy them before modifying).

    Attributes
    ----------
    formula : str
        The formula as given by the user.
    response : str
        The response column name (the left-hand side; for ``Q("a b") ~ ...`` it is ``"a b"``).
    y : numpy.ndarray
        float64 0/1 codes, shape (n,): 1 where the response equals ``positive``.
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
        ``(False, True)``, ``("M", "R")``.
    positive : object
        The level coded 1.
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
    design_info: patsy.DesignInfo
    classes: tuple
    positive: object
    index: pd.Index
    n_dropped: int = 0
    _score_columns: tuple[str, ...] = ()
    _data: Mapping[str, Any] = field(default_factory=dict)
    _factors: Mapping[str, list[Any]] = field(default_factory=dict)

    def __repr__(self) -> str:
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
        """Number of rows of the positive class (y = 1)."""
        return int(np.count_nonzero(self.y == 1.0))

    @property
    def n_neg(self) -> int:
        """Number of rows of the negative class (y = 0)."""
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
        out = []
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
        newdata : pandas.DataFrame
            Must hold every column of :attr:`score_columns` (other columns, including the
            response, are ignored). Zero rows are allowed.
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
        if not isinstance(newdata, pd.DataFrame):
            raise TypeError(
                f"newdata must be a pandas DataFrame, got {type(newdata).__name__}: "
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
        arrays: dict[str, Any] = {}
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
                if nan.any():
                    if missing == "raise":
                        raise ValueError(
                            f"column {c!r} of newdata has missing values in "
                            f"{_rows(int(nan.sum()))} of {m} (index {_fmt_labels(index, nan)}): "
                            "drop or impute them, or pass missing='drop'"
                        )
                    drop |= nan
                continue
            inf = np.isinf(a)
            if inf.any():
                raise ValueError(
                    f"column {c!r} of newdata has infinite values in {_rows(int(inf.sum()))} of "
                    f"{m} (index {_fmt_labels(index, inf)}); infinite scores cannot be "
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
        X = _build_X(self.design_info, arrays, m, self.formula)
        if X.shape != (m, self.p):
            raise ValueError(
                f"formula {self.formula!r} gave a design of shape {X.shape} for {_rows(m)} of "
                f"newdata, expected ({m}, {self.p})"
            )
        _check_design_finite(X, self.terms, index, self.formula, "newdata")
        return X, index

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
            "y": self.y.astype(np.int8).tolist(),
            "index": _index_to_json(self.index),
            "n_dropped": int(self.n_dropped),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ModelFrame:
        """Rebuild a :class:`ModelFrame` from :meth:`to_dict` output (e.g. after JSON).

        patsy is re-run on the stored calibration columns to recover the ``design_info``;
        the rebuilt term names must equal the stored ones.

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
        schema.validate(d, schema.MODEL_FRAME, "model_frame")
        formula = d["formula"]
        _, rhs = _split_formula(formula)
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
        dm = _design(rhs, data, n, formula)
        design_info = dm.design_info
        if list(design_info.column_names) != list(d["terms"]):
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
            terms=list(design_info.column_names),
            design_info=design_info,
            classes=tuple(d["classes"]),
            positive=d["positive"],
            index=index,
            n_dropped=int(d["n_dropped"]),
            score_columns=tuple(columns),
            data=data,
            factors=factors,
        )


def _json_scalar(value: Any) -> Any:
    value = _native(value)
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return str(value)


def _index_to_json(index: pd.Index) -> dict[str, Any]:
    if isinstance(index, pd.RangeIndex):
        return {
            "type": "range",
            "start": int(index.start),
            "stop": int(index.stop),
            "step": int(index.step),
            "name": _json_scalar(index.name),
        }
    if isinstance(index, pd.MultiIndex):
        return {
            "type": "multi",
            "values": [[_json_scalar(v) for v in row] for row in index.tolist()],
            "names": [_json_scalar(nm) for nm in index.names],
        }
    return {
        "type": "values",
        "values": [_json_scalar(v) for v in index.tolist()],
        "dtype": str(index.dtype),
        "name": _json_scalar(index.name),
    }


def _index_from_json(d: Mapping[str, Any]) -> pd.Index:
    kind = d.get("type")
    if kind == "range":
        return pd.RangeIndex(d["start"], d["stop"], d["step"], name=d.get("name"))
    if kind == "multi":
        return pd.MultiIndex.from_tuples([tuple(v) for v in d["values"]], names=d["names"])
    if kind == "values":
        try:
            return pd.Index(d["values"], dtype=d.get("dtype"), name=d.get("name"))
        except (TypeError, ValueError):
            return pd.Index(d["values"], name=d.get("name"))
    raise ValueError(f"unknown index type {kind!r} in model frame description")


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
    data: pd.DataFrame,
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
    data : pandas.DataFrame
        The calibration data.
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
    _check_missing_arg(missing)
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"data must be a pandas DataFrame, got {type(data).__name__}: wrap it with "
            "pd.DataFrame(...)"
        )
    if min_rows is not None and (not isinstance(min_rows, numbers.Integral) or min_rows < 0):
        raise ValueError(f"min_rows must be a non-negative integer or None, got {min_rows!r}")
    lhs, rhs = _split_formula(formula)
    whitelist.check_formula(formula, columns=data.columns)  # before anything is evaluated
    response = _response_name(lhs, formula)
    if len(data) == 0:
        raise ValueError(
            f"data has 0 rows: formula {formula!r} needs calibration rows with both classes"
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
    for code in _rhs_codes(rhs, formula):
        for name, quoted in _names_in(code):
            if name in data.columns:
                if name not in used:
                    used.append(name)
            elif (quoted or name not in _KNOWN_NAMES) and name not in unknown:
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

    # -- values, missing and infinite values ----------------------------------------------------
    n_all = len(data)
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
    na = np.zeros(n_all, dtype=bool)
    y_na = yser.isna().to_numpy(dtype=bool)
    if pd.api.types.is_numeric_dtype(yser.dtype) and not pd.api.types.is_bool_dtype(yser.dtype):
        y_inf = np.isinf(yser.to_numpy(dtype=np.float64, na_value=np.nan))
        if y_inf.any():
            raise ValueError(
                f"response column {response!r} has infinite values in "
                f"{_rows(int(y_inf.sum()))} of {n_all} (index {_fmt_labels(index, y_inf)}); "
                "the response must be two-class (e.g. 0/1): fix these rows"
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
    y, classes, pos = _code_response(yser, response, positive)

    # -- design -----------------------------------------------------------------------------------
    dm = _design(rhs, arrays, n, formula)
    design_info = dm.design_info
    terms = list(design_info.column_names)
    X = np.array(dm, dtype=np.float64, order="C")
    if X.shape[0] != n:
        if X.shape[0] == 1 and not used:  # terms that do not depend on data, e.g. 'y ~ 1'
            X = np.ascontiguousarray(np.broadcast_to(X, (n, X.shape[1])))
        else:
            raise ValueError(
                f"formula {formula!r} gave a design with {X.shape[0]} rows for {_rows(n)} of "
                "data; every term must give one value per row"
            )
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
    if n < p:
        raise ValueError(
            f"data has {_rows(n)}{dropped_note} for {p} design columns {terms}: a calibration "
            "model needs at least as many rows as parameters; add calibration rows or remove "
            "terms from the formula"
        )
    if min_rows is not None and n < min_rows:
        raise ValueError(
            f"data has {_rows(n)}{dropped_note}, but this calibrator needs at least {min_rows} "
            "rows: add calibration rows"
        )
    _check_magnitude(X, terms)
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
