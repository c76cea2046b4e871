"""Parsing a formula: the split on ``~``, the response name, the variables of the right-hand side,
and R's ``.`` (every other column of the data).

Every part of evstat that reads a formula's text (the model frames, the command line) goes
through :func:`split_formula` and :func:`response_name`; nothing else splits on ``~``.
"""

from __future__ import annotations

import ast
import keyword
from collections.abc import Iterable
from typing import Any

from patsy import ModelDesc, PatsyError
from patsy.parse_formula import _default_ops, _tokenize_formula

from evstat.formula import _dotted, limits, whitelist

#: Names a formula may use that are not data columns (the whitelisted functions).
KNOWN_NAMES = set(whitelist.function_names()) | {"np", "numpy"}


def split_formula(formula: str) -> tuple[str, str]:
    """Split a formula at its single top-level ``~`` (outside quotes and brackets).

    Parameters
    ----------
    formula : str
        ``"response ~ terms"``.

    Returns
    -------
    (str, str)
        The left-hand side and the right-hand side, stripped.

    Raises
    ------
    TypeError
        ``formula`` is not a string.
    ValueError
        No ``~``, more than one, or an empty side; the message shows the expected form.

    Examples
    --------
    >>> from evstat.formula import split_formula
    >>> split_formula("y ~ s1 + np.log(s2)")
    ('y', 's1 + np.log(s2)')
    >>> split_formula('Q("class ~ label") ~ s')
    ('Q("class ~ label")', 's')
    """
    if not isinstance(formula, str):
        raise TypeError(
            f"formula must be a string such as 'y ~ s1 + s2', got {type(formula).__name__}"
        )
    positions = []
    depth = 0
    for i, ch in limits.unquoted(formula):  # the one quote-aware scan
        if ch in "([{":
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


def response_name(formula: str) -> str:
    """The response column a formula names: its left-hand side, bare or quoted as ``Q("name")``.

    The formula is split with :func:`split_formula` (same errors). Whether the column exists,
    and whether the left-hand side is a column name at all, is checked against the data by
    :func:`~evstat.formula.model_frame` and :func:`~evstat.formula.class_frame`.

    Examples
    --------
    >>> from evstat.formula import response_name
    >>> response_name("y ~ s1 + s2"), response_name('Q("true class") ~ s')
    ('y', 'true class')
    """
    return _lhs_name(split_formula(formula)[0])


def formula_terms(formula: str) -> ModelDesc:
    """patsy's terms of a formula's text (its term algebra; nothing is evaluated), with R's
    dotted names (``Sepal.Length``, ``x.1``) kept whole and named as written.

    Without data every dotted name token is taken for a column name; a term's name is its text
    as written either way, so this only keeps patsy from splitting ``x.1`` into ``x .1``.
    Limits as :func:`evstat.formula.limits.model_desc`; patsy's errors propagate.

    Examples
    --------
    >>> from evstat.formula import formula_terms
    >>> [t.name() for t in formula_terms("y ~ x.1 * Sepal.Length + np.log(s)").rhs_termlist]
    ['Intercept', 'x.1', 'Sepal.Length', 'x.1:Sepal.Length', 'np.log(s)']
    """
    quoted, shown = _dotted.quote_dotted(formula, _dotted.ALL)
    return _dotted.shown_desc(limits.model_desc(quoted), shown)


def _lhs_name(lhs: str) -> str:
    """The response column named by the left-hand side ``lhs``: a bare name or ``Q("name")``."""
    try:
        node = ast.parse(lhs, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # limits: checked later
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
        desc = limits.model_desc(rhs)
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
    except (SyntaxError, ValueError, RecursionError, MemoryError):
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


def _column_term(name: Any, formula: str) -> str:
    """A column as a formula term: bare if it is a plain identifier, else ``Q("name")``."""
    if not isinstance(name, str):
        raise ValueError(
            f"formula {formula[:80]!r} uses '.' (every other column), but data has the column "
            f"label {name!r}, which is not a string; a formula can only name string columns: "
            "rename the columns, e.g. data.columns = data.columns.astype(str)"
        )
    plain = (
        name.isidentifier()
        and not keyword.iskeyword(name)
        and name not in KNOWN_NAMES
        and not name.startswith("_")
    )
    return name if plain or _dotted.bare(name) else f"Q({name!r})"


def expand_dot(formula: str, columns: Iterable[Any]) -> str:
    """Replace R's ``.`` on the right-hand side by every column of the data but the response.

    As in R (``lm(y ~ ., data)``), ``.`` stands for all columns not on the left-hand side, in
    the data's order, as one parenthesised sum, so it combines with the other operators:
    ``y ~ . - id`` is every column but ``id`` (and the response), ``y ~ . + log(s)`` adds a
    transformed column, ``y ~ s:.`` interacts ``s`` with each column. Column names that are not
    plain identifiers are quoted as ``Q("name")``, except R's dotted names (``Sepal.Length``),
    written bare as R writes them (:mod:`evstat.formula._dotted` reads them as the columns). A formula without ``.`` is returned unchanged;
    a ``.`` inside Python code (``np.log``, ``0.5``) is not a term and is left alone. The
    expanded formula is the model's formula (R's ``formula(fit)`` shows the expansion too).

    Parameters
    ----------
    formula : str
        ``"response ~ terms"``.
    columns : iterable
        The data's column labels (strings).

    Returns
    -------
    str
        The formula with each ``.`` term replaced by ``(c1 + c2 + ...)``.

    Raises
    ------
    ValueError
        ``.`` is used and a column label is not a string, or the data has no column besides the
        response.

    Examples
    --------
    >>> from evstat.formula import expand_dot
    >>> expand_dot("y ~ . - id", ["y", "s1", "svm 2", "id"])
    "y ~ (s1 + Q('svm 2') + id) - id"
    >>> expand_dot("y ~ np.log(s) + 0.5", ["y", "s"])
    'y ~ np.log(s) + 0.5'
    >>> expand_dot("Species ~ .", ["Sepal.Length", "Sepal.Width", "Species"])
    'Species ~ (Sepal.Length + Sepal.Width)'
    """
    if "." not in formula:
        return formula
    try:
        tokens = list(_tokenize_formula(formula, [op.token_type for op in _default_ops]))
    except (PatsyError, SyntaxError, ValueError, RecursionError, MemoryError):
        return formula  # the whitelist reports a formula that does not tokenise
    dots = [t.origin for t in tokens if t.type == "PYTHON_EXPR" and t.extra == "."]
    if not dots:
        return formula
    lhs, _ = split_formula(formula)
    response = _lhs_name(lhs)
    names = [c for c in columns if c != response]
    if not names:
        raise ValueError(
            f"formula {formula[:80]!r} uses '.' (every column but the response {response!r}), "
            "but data has no other column"
        )
    expansion = "(" + " + ".join(_column_term(c, formula) for c in names) + ")"
    out, last = [], 0
    for origin in dots:
        out.append(formula[last : origin.start])
        out.append(expansion)
        last = origin.end
    out.append(formula[last:])
    return "".join(out)
