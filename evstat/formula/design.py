"""Design matrices: the columns a formula reads, factor coding, patsy evaluation and the checks
of a calibration design (finite, magnitude, constant and collinear columns).

Private to the formula package; :class:`~evstat.formula.ModelFrame` and
:func:`~evstat.formula.model_frame` are the public face.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import patsy
from patsy import PatsyError

from evstat.formula import _dotted, limits, whitelist
from evstat.formula._util import _SHOW, _fmt_labels, _fmt_values, _native, _rows

#: Relative tolerance for collinearity: a design column whose component orthogonal to the
#: previous (independent) columns has norm below ``_COLLINEAR_TOL`` times its own norm is a
#: linear combination of them. This is the criterion and default tolerance of R's ``qr()`` /
#: ``lm.fit`` (LINPACK dqrdc2 with limited column pivoting, tol = 1e-7).
_COLLINEAR_TOL = 1e-7

#: Largest magnitude of a calibration design value: the likelihood's information matrix sums
#: squares of the design values, which overflow float64 beyond about 1.3e154 (R's glm fails
#: there too); calibration scores larger than this must be rescaled. (Test rows are not bound
#: by it: the predictive belief is computed on the direction of each row.)
MAX_DESIGN_ABS = 1e150
_NA_NONE = patsy.NAAction(on_NA="raise", NA_types=[])  # evstat checks missing values itself


def _eval_env() -> patsy.EvalEnvironment:
    return whitelist.eval_env()  # the whitelist's namespace, no Python built-ins


def _column(data: pd.DataFrame, name: str, what: str) -> pd.Series:
    values = data[name]
    if isinstance(values, pd.DataFrame):
        raise ValueError(
            f"{what} has {values.shape[1]} columns named {name!r}; column names must be unique"
        )
    return values


def _object_of_reals(series: pd.Series) -> bool:
    """An object column whose non-missing values are all real numbers (not bool, not text), e.g.
    ``data["s"].astype(object)`` or numbers mixed with ``None``: numeric scores in a container
    dtype. Read as numbers (as R reads a numeric vector and scikit-learn's ``check_array`` an
    object array), not as a factor with one level per distinct value."""
    if series.dtype != object:
        return False
    values = series[series.notna()]
    return len(values) > 0 and all(
        isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values
    )


def _numeric_values(series: pd.Series, name: str, what: str) -> np.ndarray:
    """A score column as float64 (missing -> NaN); TypeError-free ValueError if not numeric."""
    if _object_of_reals(series):
        try:
            return series.to_numpy(dtype=np.float64, na_value=np.nan)
        except OverflowError:
            raise ValueError(
                f"column {name!r} of {what} holds numbers beyond the float64 range "
                f"({_rows(len(series))}): rescale them"
            ) from None
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
    if _object_of_reals(series):
        return False
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
    _check_numbers_as_text(present, name, len(values))
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


#: a text column with more distinct values than this, of which at least
#: :data:`_NUMERIC_TEXT_SHARE` read as numbers, is a score column that was read as text (a stray
#: word in a CSV file, numbers stored as strings), not a factor
_NUMERIC_TEXT_LEVELS = 10
_NUMERIC_TEXT_SHARE = 0.8


def _check_numbers_as_text(present: pd.Series, name: str, n_levels: int) -> None:
    """Refuse a text column that holds mostly numbers and many distinct values.

    As a factor it would get one dummy column per distinct value ("80 rows for 81 design
    columns"), which is never what was meant; the error names the rows that are not numbers.
    A text factor with few levels (even "1", "2", "3") stays a factor, as in R.
    """
    if n_levels <= _NUMERIC_TEXT_LEVELS or isinstance(present.dtype, pd.CategoricalDtype):
        return
    if pd.api.types.is_bool_dtype(present.dtype) or pd.api.types.is_complex_dtype(present.dtype):
        return
    if not all(isinstance(v, (str, numbers.Real)) for v in present.to_numpy(dtype=object)[:1000]):
        return
    as_num = pd.to_numeric(present.astype(str).str.strip(), errors="coerce")
    ok = as_num.notna().to_numpy(dtype=bool)
    if ok.mean() < _NUMERIC_TEXT_SHARE:
        return
    bad = ~ok
    if bad.any():
        examples = ", ".join(f"{lab!r}: {v!r}" for lab, v in list(zip(present.index[bad], present[bad]))[:_SHOW])
        raise ValueError(
            f"column {name!r} is text (dtype {present.dtype}) but {int(ok.sum())} of its "
            f"{len(present)} values are numbers and {int(bad.sum())} {'is' if bad.sum() == 1 else 'are'} "
            f"not (index: value {examples}"
            f"{', ...' if bad.sum() > _SHOW else ''}). Read as a factor it would have "
            f"{n_levels} levels: fix or remove those rows, or convert the column, e.g. "
            f"pd.to_numeric(data[{name!r}], errors='coerce') (then missing='drop')"
        )
    raise ValueError(
        f"column {name!r} holds numbers stored as text (dtype {present.dtype}, {n_levels} distinct "
        f"values); read as a factor it would get one dummy column per value: convert it, e.g. "
        f"pd.to_numeric(data[{name!r}]) (and write C({name}) in the formula if it is a factor)"
    )


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
    ``columns``, evaluated without Python built-ins; patsy's errors name the formula.

    Dotted column names (R's ``Sepal.Length``) are evaluated as ``Q("Sepal.Length")`` and named
    as written (:mod:`evstat.formula._dotted`)."""
    quoted, shown = _dotted.quote_dotted(rhs, columns)
    try:
        desc = _dotted.shown_desc(limits.model_desc(quoted), shown)
        # from the text, before patsy evaluates a basis (it does so to count the columns)
        limits.check_design_cells(n, limits.check_bases(desc, formula), formula)
        frame = _patsy_frame(columns, n)
        with np.errstate(all="ignore"):
            (info,) = patsy.design_matrix_builders([desc.rhs_termlist], lambda: iter([frame]),
                                                   _eval_env(), _NA_NONE)
            # the exact columns (factor levels), before the matrix is allocated
            limits.check_design_cells(n, len(info.column_names), formula)
            (dm,) = patsy.build_design_matrices([info], frame, NA_action=_NA_NONE,
                                                return_type="matrix")
            return dm
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
# design checks
# ---------------------------------------------------------------------------------------------


def _by_column(X: np.ndarray) -> np.ndarray:
    """``X`` (n, p) as its p columns, each contiguous (shape (p, n)): numpy reduces a C-order
    array over its rows one row of p values at a time, ten times slower than over contiguous
    columns (2.2 ms against 0.2 ms for the maximum of 100,000 x 4); maxima and minima are the
    same either way."""
    return np.ascontiguousarray(X.T)


def _check_magnitude(X: np.ndarray, terms: list[str]) -> None:
    """Calibration design values beyond ``MAX_DESIGN_ABS``: their squares overflow."""
    if X.shape[0] == 0:
        return
    big = np.max(np.abs(_by_column(X)), axis=1)
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
    cols = _by_column(X)
    spread = cols.max(axis=1) - cols.min(axis=1)
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

    Fast path (every design of two or more columns; written for wide designs, e.g. 2,000 score
    columns, and as fast for a few columns on many rows): the Cholesky factor ``L`` of the
    Gram matrix of the unit-norm columns (one matrix product and one LAPACK call); ``L[j, j]``
    is column j's distance from the span of the columns before it, the quantity the sequential
    check compares with the tolerance. The Gram matrix squares the condition number, so the
    fast path only answers "full rank" when every ``L[j, j]`` is at least
    :data:`_FAST_RANK_MARGIN` (far above the tolerance and far above the rounding error of the
    Gram matrix); any smaller distance (a dependent or nearly dependent column) goes to the
    sequential Gram-Schmidt below, the obviously correct path, which decides and names the
    columns. ``tests/hostile/test_formula_bounds.py`` checks that the two paths agree.
    """
    # each column divided by a power of two near its largest value (exact; the rank does not
    # change): the squares of a column of values near 1e-200 underflow, and its norm was 0
    top = np.max(np.abs(X), axis=0) if X.shape[0] else np.zeros(X.shape[1])
    X = X / np.ldexp(1.0, np.frexp(np.where(top > 0, top, 1.0))[1])
    norms = np.linalg.norm(X, axis=0)
    if X.shape[1] >= _FAST_RANK_MIN_COLUMNS and X.shape[0] >= X.shape[1] and np.all(norms > 0):
        U = X / norms
        try:
            diag = np.diagonal(np.linalg.cholesky(U.T @ U))
        except np.linalg.LinAlgError:
            diag = np.zeros(1)
        if np.all(diag >= _FAST_RANK_MARGIN):
            return X.shape[1], -1, []
    return _collinear_sequential(X, norms)


#: designs at least this wide use the fast full-rank check of :func:`_collinear_report` (every
#: design with two or more columns: the sequential check took 28 ms for 100,000 rows and four
#: columns, the fast one 2 ms; it decides only what it certifies, so the answers are the same)
_FAST_RANK_MIN_COLUMNS = 2
#: the fast check answers "full rank" only when every distance is at least this
_FAST_RANK_MARGIN = 1e-4


def _collinear_sequential(X: np.ndarray, norms: np.ndarray) -> tuple[int, int, list[int]]:
    """The sequential Gram-Schmidt rank check of :func:`_collinear_report` (reference path)."""
    basis_all = np.empty((X.shape[0], X.shape[1]))
    basis = basis_all[:, :0]
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
        basis_all[:, len(independent)] = r / resid_norm
        independent.append(j)
        basis = basis_all[:, : len(independent)]
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
    shown = involved[:_MESSAGE_TERMS]
    more = len(involved) - len(shown)
    combo = "".join(
        f"{' - ' if c < 0 else ' + '}{abs(c):.6g} * {_cut(terms[k])}" for k, c in shown
    ).removeprefix(" + ") or "0"
    if combo.startswith(" - "):
        combo = "-" + combo[3:]
    if more:
        combo += f" + ... ({more:,} more terms)"
    listed = ", ".join(repr(_cut(terms[k])) for k, _ in shown) + (f" and {more:,} more columns" if more else "")
    names = ", ".join([*(repr(_cut(terms[k])) for k, _ in shown), *(["..."] if more else []), repr(_cut(terms[j]))])
    raise ValueError(
        f"design columns are collinear: {_cut(terms[j])!r} is a linear combination of "
        f"{listed} ({_cut(terms[j])} ~= {combo}; rank "
        f"{rank} < {X.shape[1]} columns, {_rows(X.shape[0])}); its coefficient cannot be "
        f"estimated: remove one of {names} from the formula"
    )


#: most design columns a collinearity message lists (a wide tensor spline has thousands: the
#: message for one was a single line of 52 MB, issue 41)
_MESSAGE_TERMS = 8
#: longest column name a message shows in full
_MESSAGE_NAME_CHARS = 80


def _cut(name: str) -> str:
    return name if len(name) <= _MESSAGE_NAME_CHARS else name[: _MESSAGE_NAME_CHARS - 3] + "..."
