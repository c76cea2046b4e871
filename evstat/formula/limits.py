"""Bounded formulas: the size limits every formula meets before anything parses or evaluates it.

A formula comes from a user, a command line or a saved model file, so its *size* is untrusted as
much as its content (the whitelist, :mod:`evstat.formula.whitelist`, decides the content). Python
and patsy parse a formula recursively and evaluate integer constants exactly, so without bounds a
short string can exhaust the machine: ``I(x + 0*9**9**9)`` computes an integer of 1.2 billion bits
(minutes of CPU), 100,000 unary minus signs exhaust the parser (``MemoryError``), 300 nested
``I(`` exceed Python's bracket limit and a sum of 2,000 terms exceeds the recursion limit of
patsy's evaluator. Every formula (fitting, the command line, loading a saved model) therefore
passes these checks, in this order, and a formula beyond a limit is refused with a
:class:`FormulaLimitError` naming the limit:

============================  ==============================================================
limit                         what it bounds
============================  ==============================================================
:data:`MAX_LENGTH`            characters of the formula (200,000: 2,000 columns of 90
                              characters each fit)
:data:`MAX_DEPTH`             nesting (100): brackets plus a run of signs (``- - x``) at any
                              point of the text, and the depth of each term's Python syntax
                              tree (``I(a + b + ... )`` with 150 operators nests 150 levels)
:data:`MAX_DIGITS`            digits of one number literal (100)
:data:`MAX_INT_BITS`          bits of an integer constant, given or computed (63, so that
                              every integer fits numpy's int64): ``2**70`` is refused before it
                              is computed, ``2.0**70`` (a float) is fine
:data:`MAX_ROUND_DIGITS`      the digits argument of ``round`` (400)
:data:`MAX_TERMS`             terms of the expanded formula (10,000), bounded *before* patsy
                              expands ``(a + b + c)**3`` or ``a * b * c * ...``
:data:`MAX_POWER`             the exponent of patsy's formula-level ``**`` (32)
:data:`MAX_BASIS_COLUMNS`     columns of one term (1,000): a spline ``bs``/``cr``/``cc`` has
                              ``df`` columns (or ``len(knots) + degree + 1`` at most), a tensor
                              product ``te(...)`` and an interaction ``a:b`` the product of
                              their factors' columns; computed from the formula text
:data:`MAX_DESIGN_COLUMNS`    columns of the whole design (20,000), the sum over the terms,
                              computed from the formula text
:data:`MAX_DESIGN_CELLS`      rows x columns of a calibration design matrix (2**27 cells, 1 GiB of
                              float64), checked with the columns counted from the text before
                              patsy evaluates a basis (it evaluates every factor on all rows to
                              count its columns), and again with the exact columns (factor
                              levels) before the matrix is allocated
============================  ==============================================================

The basis limits bound what patsy would allocate and what a fit would estimate:
``bs(s, df=100000)`` computed 100,000 basis functions and fitted for more than five minutes, and
``te(cr(s1, df=300), cr(s2, df=300), cr(s3, df=300))`` (27 million columns) asked for 15.9 GiB
before the limits. They are checked by the whitelist's ``check_formula``, so on every path
(fitting, the command line, loading a saved model). Raising them: assign the module's constant
(``evstat.formula.limits.MAX_BASIS_COLUMNS = 5000``) or set the environment variable of the same
name with the prefix ``EVSTAT_`` (``EVSTAT_MAX_BASIS_COLUMNS=5000 evstat fit ...``), which wins;
every message over a limit says so.

Integer constants are evaluated by an exact model of Python's arithmetic (:func:`check_constants`)
that predicts the size of a power *before* computing it (``bits(b**e) <= e * log2|b| + 1``);
float arithmetic cannot hang (it overflows to ``inf`` or raises at once), and data columns are
float64 arrays, so only integer constants need a budget.

The formula-level parse (:func:`model_desc`) runs patsy's own evaluator on patsy's own parse tree,
node by node from the leaves up with an explicit stack, so its depth is constant: a formula of
10,000 terms parses in about a second instead of failing with "maximum recursion depth exceeded".
The result is patsy's ``ModelDesc``, term for term what ``patsy.ModelDesc.from_formula`` gives.

Examples
--------
>>> from evstat.formula.limits import check_text, model_desc
>>> check_text("y ~ " + "(" * 150 + "x" + ")" * 150)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
evstat.formula.limits.FormulaLimitError: formula 'y ~ ((((((...' nests 150 levels (brackets and signs); the limit is 100 (evstat.formula.limits.MAX_DEPTH)...
>>> len(model_desc(" + ".join(f"s{i}" for i in range(2000))).rhs_termlist)
2001
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, TypeGuard

from patsy import PatsyError
from patsy.desc import Evaluator, IntermediateExpr, ModelDesc
from patsy.infix_parser import ParseNode
from patsy.parse_formula import parse_formula

from evstat._config import env_limit
from evstat.exceptions import EvstatError

__all__ = [
    "unquoted",
    "MAX_BASIS_COLUMNS",
    "MAX_DEPTH",
    "MAX_DESIGN_CELLS",
    "MAX_DESIGN_COLUMNS",
    "MAX_DIGITS",
    "MAX_INT_BITS",
    "MAX_LENGTH",
    "MAX_POWER",
    "MAX_ROUND_DIGITS",
    "MAX_TERMS",
    "FormulaLimitError",
    "basis_columns",
    "check_bases",
    "check_constants",
    "check_design_cells",
    "current",
    "check_depth",
    "check_text",
    "model_desc",
]

#: most characters of a formula
MAX_LENGTH = 200_000
#: deepest nesting: brackets plus runs of signs in the text; depth of a term's syntax tree
MAX_DEPTH = 100
#: most digits of a number literal
MAX_DIGITS = 100
#: most bits of an integer constant (given or computed): numpy's int64
MAX_INT_BITS = 63
#: largest ``ndigits`` of ``round(x, ndigits)`` in absolute value
MAX_ROUND_DIGITS = 400
#: most terms of the expanded formula (both sides)
MAX_TERMS = 10_000
#: largest exponent of patsy's formula-level ``**`` (interactions up to that order)
MAX_POWER = 32
#: most columns of one term: a spline, a tensor product or an interaction (raise it with the
#: environment variable ``EVSTAT_MAX_BASIS_COLUMNS`` or by assigning this constant)
MAX_BASIS_COLUMNS = 1_000
#: most columns of the whole design counted from the formula (``EVSTAT_MAX_DESIGN_COLUMNS``)
MAX_DESIGN_COLUMNS = 20_000
#: most cells (rows x columns) of a calibration design matrix: 2**27 float64, 1 GiB
#: (``EVSTAT_MAX_DESIGN_CELLS``)
MAX_DESIGN_CELLS = 2**27

_SIGNS = frozenset("+-~")
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")


class FormulaLimitError(EvstatError, ValueError):
    """A formula exceeds one of the size limits of :mod:`evstat.formula.limits`.

    The message names the limit (its value and the name of its constant). Like the whitelist's
    :class:`~evstat.formula.whitelist.UnsafeFormulaError` it is a ``ValueError``.
    """


def _short(text: str, width: int = 40) -> str:
    return repr(text if len(text) <= width else text[:width] + "...")


def _limit(what: str, formula: str, value: Any, limit: int, name: str, fix: str) -> FormulaLimitError:
    return FormulaLimitError(
        f"formula {_short(formula)} {what} {value}; the limit is {limit:,} "
        f"(evstat.formula.limits.{name}). {fix}"
    )


def unquoted(formula: str) -> Iterator[tuple[int, str]]:
    """``(position, character)`` of the characters of ``formula`` outside quoted strings: the one
    quote-aware scan of a formula's text (the limits here, the split on ``~`` of
    :func:`evstat.formula.split_formula`).

    A quote (``"`` or ``'``) opens a string that the same quote closes; inside it a backslash
    escapes the next character. The opening quote is yielded, the string's content and its
    closing quote are not.

    Examples
    --------
    >>> from evstat.formula.limits import unquoted
    >>> "".join(ch for _, ch in unquoted('Q("a ~ \\\\"b") ~ x'))
    'Q(") ~ x'
    >>> [i for i, ch in unquoted('Q("a ~ b") ~ x') if ch == "~"]
    [11]
    """
    quote: str | None = None
    escaped = False
    for i, ch in enumerate(formula):
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        yield i, ch


def check_text(formula: str) -> None:
    """Check a formula's text against :data:`MAX_LENGTH`, :data:`MAX_DEPTH` and :data:`MAX_DIGITS`.

    One pass over the characters, outside quoted strings: the bracket depth plus the length of
    the current run of signs (``+ - ~``, spaces ignored) must stay within :data:`MAX_DEPTH`, and
    no run of digits may exceed :data:`MAX_DIGITS`. Linear time, constant memory, no parsing.

    Raises
    ------
    FormulaLimitError
        Naming the limit, e.g. "formula 'y ~ I(I(I(...' nests 300 levels (brackets and signs);
        the limit is 100 (evstat.formula.limits.MAX_DEPTH)".

    Examples
    --------
    >>> from evstat.formula.limits import check_text
    >>> check_text('y ~ s1 + I(-(-s2)) + Q("(((")')
    >>> check_text("y ~ " + "-" * 100_000 + "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.limits.FormulaLimitError: formula 'y ~ --------...' nests 100001 levels (brackets and signs); the limit is 100 ...
    """
    if len(formula) > MAX_LENGTH:
        raise _limit("has", formula, f"{len(formula):,} characters", MAX_LENGTH, "MAX_LENGTH",
                     "Compute long expressions as data columns, or use '.' for all columns")
    depth = run = digits = deepest = longest = 0
    for _, ch in unquoted(formula):
        if ch.isspace():
            digits = 0
            continue
        if ch.isdigit():
            digits += 1
            longest = max(longest, digits)
        else:
            digits = 0
        if ch in _SIGNS:
            run += 1
        else:
            run = 0
            if ch in _OPEN:
                depth += 1
            elif ch in _CLOSE:
                depth = max(depth - 1, 0)
        deepest = max(deepest, depth + run)
    if deepest > MAX_DEPTH:
        raise _limit("nests", formula, f"{deepest} levels (brackets and signs)", MAX_DEPTH,
                     "MAX_DEPTH", "Simplify the expression or compute it as a data column")
    if longest > MAX_DIGITS:
        raise _limit("has a number of", formula, f"{longest:,} digits", MAX_DIGITS, "MAX_DIGITS",
                     "Write large numbers in floating-point notation, e.g. 1e300")


def check_depth(tree: ast.AST, code: str, formula: str) -> None:
    """Refuse a term whose Python syntax tree is deeper than :data:`MAX_DEPTH` (iteratively).

    Examples
    --------
    >>> import ast
    >>> from evstat.formula.limits import check_depth
    >>> check_depth(ast.parse("I(a + b)", mode="eval"), "I(a + b)", "y ~ I(a + b)")
    """
    stack = [(tree, 1)]
    deepest = 0
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > MAX_DEPTH:
            raise FormulaLimitError(
                f"term {_short(code.strip())} of formula {_short(formula)} nests more than "
                f"{MAX_DEPTH} levels (operators, calls and brackets); the limit is {MAX_DEPTH} "
                "(evstat.formula.limits.MAX_DEPTH). Split the expression into several terms "
                "or compute it as a data column"
            )
        stack.extend((child, d + 1) for child in ast.iter_child_nodes(node))


def _int_error(code: str, formula: str, what: str) -> FormulaLimitError:
    return FormulaLimitError(
        f"term {_short(code.strip())} of formula {_short(formula)} {what}; the limit is "
        f"{MAX_INT_BITS} bits (evstat.formula.limits.MAX_INT_BITS: integers must fit numpy's "
        "int64). Write the constant as a float, e.g. 2.0**70 or 1e30"
    )


def _bits_of_power(base: int, exp: int) -> float:
    return exp * math.log2(abs(base))


def check_constants(tree: ast.AST, code: str, formula: str) -> None:
    """Evaluate the constant parts of a term exactly, refusing integers beyond :data:`MAX_INT_BITS`.

    Only literals, ``+ - * / // % ** & | ^``, unary signs, comparisons and the built-ins
    ``abs``, ``round`` and ``pow`` are evaluated; a part that involves a data column or a numpy
    function is left to numpy (float64 arrays cannot grow). A power of integers is checked
    before it is computed (its size is ``exp * log2|base|`` bits); ``round``'s digits argument is
    bounded by :data:`MAX_ROUND_DIGITS` (``round(5, -10**9)`` computes ``10**(10**9)``).
    The tree must have passed :func:`check_depth` (the walk is recursive).

    Raises
    ------
    FormulaLimitError
        Naming the constant and the limit.

    Examples
    --------
    >>> import ast
    >>> from evstat.formula.limits import check_constants
    >>> check_constants(ast.parse("I(s * 2**10)", mode="eval"), "I(s * 2**10)", "y ~ I(s * 2**10)")
    >>> code = "I(x + 0*9**9**9)"
    >>> check_constants(ast.parse(code, mode="eval"), code, "y ~ " + code)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.limits.FormulaLimitError: term 'I(x + 0*9**9**9)' of formula 'y ~ I(x + 0*9**9**9)' computes 9**387420489, an integer of about 1,228,093,... bits; the limit is 63 bits ...
    """
    _const(tree, code, formula)


_NOT_CONSTANT = object()
_ARITH = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
    ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
}


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int)  # bool included (True**n is an int power)


def _checked(v: Any, code: str, formula: str, what: str) -> Any:
    if _is_int(v) and v.bit_length() > MAX_INT_BITS:
        raise _int_error(code, formula, f"computes {what}, an integer of {v.bit_length():,} bits")
    return v


def _power(b: Any, e: Any, code: str, formula: str, mod: Any = None) -> Any:
    if mod is not None:
        if not (_is_int(b) and _is_int(e) and _is_int(mod)):
            return _NOT_CONSTANT
        try:
            return pow(b, e, mod)  # operands within MAX_INT_BITS: fast
        except (ValueError, ZeroDivisionError):
            return _NOT_CONSTANT  # Python raises the same error at evaluation
    if _is_int(b) and _is_int(e) and e > 0 and abs(b) > 1:
        bits = _bits_of_power(b, e)
        if bits > MAX_INT_BITS:
            raise _int_error(code, formula, f"computes {b}**{e}, an integer of about {math.ceil(bits):,} bits")
    try:
        value = b**e
    except (OverflowError, ZeroDivisionError, ValueError, TypeError):
        return _NOT_CONSTANT  # a float overflow or 0**-1: raised again, at once, at evaluation
    return _checked(value, code, formula, f"{b}**{e}")


def _const(node: ast.AST, code: str, formula: str) -> Any:
    """The value of a constant subtree, or ``_NOT_CONSTANT``; children are always visited."""
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, (int, float)):
            return _checked(v, code, formula, f"the literal {v}") if _is_int(v) else v
        return _NOT_CONSTANT
    if isinstance(node, ast.UnaryOp):
        v = _const(node.operand, code, formula)
        if v is _NOT_CONSTANT or not isinstance(node.op, (ast.UAdd, ast.USub)):
            return _NOT_CONSTANT
        return -v if isinstance(node.op, ast.USub) else +v
    if isinstance(node, ast.BinOp):
        a, b = _const(node.left, code, formula), _const(node.right, code, formula)
        if a is _NOT_CONSTANT or b is _NOT_CONSTANT:
            return _NOT_CONSTANT
        if isinstance(node.op, ast.Pow):
            return _power(a, b, code, formula)
        op = _ARITH.get(type(node.op))
        if op is None:
            return _NOT_CONSTANT
        try:
            # products of two integers within MAX_INT_BITS have at most twice the bits: cheap
            value = op(a, b)
        except (OverflowError, ZeroDivisionError, ValueError, TypeError):
            return _NOT_CONSTANT
        return _checked(value, code, formula, ast.unparse(node))
    if isinstance(node, ast.Call):
        args = [_const(a, code, formula) for a in node.args]
        kwargs = {k.arg: _const(k.value, code, formula) for k in node.keywords}
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name == "round":
            nd = args[1] if len(args) > 1 else kwargs.get("ndigits")
            if _is_int(nd) and abs(nd) > MAX_ROUND_DIGITS:
                raise FormulaLimitError(
                    f"term {_short(code.strip())} of formula {_short(formula)} rounds to {nd} "
                    f"digits; the limit is {MAX_ROUND_DIGITS} (evstat.formula.limits."
                    "MAX_ROUND_DIGITS)"
                )
            if args and args[0] is not _NOT_CONSTANT and len(args) == 1 and not kwargs:
                try:
                    value = round(args[0])
                except (OverflowError, ValueError, TypeError):
                    return _NOT_CONSTANT
                return _checked(value, code, formula, ast.unparse(node))
            return _NOT_CONSTANT
        if name == "pow" and not kwargs and len(args) in (2, 3):
            if any(a is _NOT_CONSTANT for a in args):
                return _NOT_CONSTANT
            return _power(args[0], args[1], code, formula, mod=args[2] if len(args) == 3 else None)
        if name == "abs" and len(args) == 1 and args[0] is not _NOT_CONSTANT:
            return abs(args[0])
        return _NOT_CONSTANT
    for child in ast.iter_child_nodes(node):
        _const(child, code, formula)
    return _NOT_CONSTANT


# ---------------------------------------------------------------------------------------------
# the formula-level parse: patsy's parse tree and evaluator, bounded and without recursion
# ---------------------------------------------------------------------------------------------


def _children(node: Any) -> list[Any]:
    return list(node.args) if isinstance(node, ParseNode) else []


def _term_bound(tree: ParseNode, formula: str) -> int:
    """An upper bound on the number of terms each node expands to (patsy's rules), leaves up."""
    cap = MAX_TERMS + 1
    bound: dict[int, int] = {}
    order: list[Any] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(_children(node))
    for node in reversed(order):  # children before parents
        kids = [bound[id(c)] for c in _children(node)]
        kind = node.type
        if not kids:
            n = 1
        elif len(kids) == 1:
            n = kids[0]
        elif kind == "**":
            power = node.args[1]
            p = -1
            if power.type in ("ONE", "NUMBER"):
                try:
                    p = int(power.token.extra)
                except (ValueError, TypeError):
                    p = -1
            if p > MAX_POWER:
                raise _limit("raises terms to the power", formula, p, MAX_POWER, "MAX_POWER",
                             "Interactions of that order are never estimable; use a lower power")
            p = min(max(p, 1), kids[0])
            n = sum(math.comb(kids[0], k) for k in range(1, p + 1)) if kids[0] < cap else cap
        elif kind == ":":
            n = kids[0] * kids[1]
        elif kind in ("*", "/"):
            n = kids[0] + kids[1] + kids[0] * kids[1]
        elif kind == "-":
            n = kids[0]
        else:  # "+", "~"
            n = sum(kids)
        bound[id(node)] = min(n, cap)
    total = bound[id(tree)]
    if total > MAX_TERMS:
        raise _limit("expands to", formula, f"more than {MAX_TERMS:,} terms", MAX_TERMS,
                     "MAX_TERMS", "Use fewer interactions or fewer columns")
    return total


class _LeavesUpEvaluator(Evaluator):
    """patsy's formula evaluator, run from the leaves up so that no call recurses.

    Every node below the root is evaluated first (children before parents) and its result (or
    its error) is cached; when patsy's operator function of a parent asks for a child, the
    cache answers, so the call depth stays at two whatever the formula's length. The results
    are patsy's: the same operator functions combine the same values.
    """

    def __init__(self) -> None:
        super().__init__()
        self._done: dict[int, tuple[bool, Any]] = {}

    def eval(self, tree: Any, require_evalexpr: bool = True) -> Any:  # noqa: A003 - patsy's name
        hit = self._done.get(id(tree))
        if hit is None:
            return super().eval(tree, require_evalexpr)
        ok, value = hit
        if not ok:
            raise value
        if require_evalexpr and not isinstance(value, IntermediateExpr):
            raise PatsyError("~ can only be used once, and only at the top level", tree)
        return value

    def run(self, tree: ParseNode) -> Any:
        order: list[Any] = []
        chains: dict[int, list[Any]] = {}
        stack = list(_children(tree))
        while stack:
            node = stack.pop()
            order.append(node)
            spine = _plus_spine(node)
            if spine is None:
                stack.extend(_children(node))
            else:  # a + b + c + ...: one node, its operands below it
                chains[id(node)] = spine
                stack.extend(spine)
        for node in reversed(order):
            try:
                if id(node) in chains:
                    value = self._sum(chains[id(node)])
                else:
                    value = super().eval(node, require_evalexpr=False)
                self._done[id(node)] = (True, value)
            except PatsyError as err:
                self._done[id(node)] = (False, err)
        return self.eval(tree, require_evalexpr=False)

    def _sum(self, operands: list[Any]) -> IntermediateExpr:
        """patsy's ``_eval_binary_plus`` folded over ``a + b + c + ...`` (left to right), with
        the terms made unique once at the end instead of at every ``+`` (patsy's order-keeping
        uniqueify is idempotent, so the terms are the same; the cost is linear, not quadratic)."""
        left = self.eval(operands[0])
        intercept, origin, removed = left.intercept, left.intercept_origin, left.intercept_removed
        terms = list(left.terms)
        for right_node in operands[1:]:
            if right_node.type == "ZERO":
                intercept, origin, removed = False, None, True
                continue
            right = self.eval(right_node)
            if right.intercept:
                intercept, origin, removed = True, right.intercept_origin, False
            terms.extend(right.terms)
        return IntermediateExpr(intercept, origin, removed, terms)


def _plus_spine(node: Any) -> list[Any] | None:
    """The operands of a left-nested chain of binary ``+`` (at least two of them), else None."""
    if not (isinstance(node, ParseNode) and node.type == "+" and len(node.args) == 2):
        return None
    rights = []
    while isinstance(node, ParseNode) and node.type == "+" and len(node.args) == 2:
        rights.append(node.args[1])
        node = node.args[0]
    return [node, *reversed(rights)]


@lru_cache(maxsize=256)
def model_desc(formula: str) -> ModelDesc:
    """patsy's ``ModelDesc`` of a formula, within :data:`MAX_TERMS` and :data:`MAX_POWER`.

    The same terms as ``patsy.ModelDesc.from_formula(formula)``, computed without recursion
    (patsy's evaluator recurses once per operator, so a sum of 1,000 terms exceeds Python's
    recursion limit). Call :func:`check_text` first (the whitelist's ``check_formula`` does).

    Raises
    ------
    FormulaLimitError
        More than :data:`MAX_TERMS` terms (bounded before the expansion) or a formula-level power
        above :data:`MAX_POWER`.
    patsy.PatsyError
        The formula does not parse (patsy's message).

    Examples
    --------
    >>> from evstat.formula.limits import model_desc
    >>> [t.name() for t in model_desc("y ~ (a + b)**2 - 1").rhs_termlist]
    ['a', 'b', 'a:b']
    """
    tree = parse_formula(formula)
    _term_bound(tree, formula)
    desc = _LeavesUpEvaluator().run(tree)
    if not isinstance(desc, ModelDesc):  # pragma: no cover - parse_formula always returns a '~' root
        raise PatsyError("not a formula", tree)
    return desc


# ---------------------------------------------------------------------------------------------
# basis sizes: the columns of every spline, tensor product and interaction, from the text
# ---------------------------------------------------------------------------------------------

#: the raisable limits, by name (their environment variables are ``EVSTAT_`` + the name)
_RAISABLE = ("MAX_BASIS_COLUMNS", "MAX_DESIGN_COLUMNS", "MAX_DESIGN_CELLS")


def current(name: str) -> int:
    """The value of a raisable limit now: the environment variable ``EVSTAT_<name>`` if set (a
    positive integer; ``_`` separators allowed), else the module's constant (which may have been
    assigned).

    Examples
    --------
    >>> import os
    >>> from evstat.formula.limits import current
    >>> current("MAX_BASIS_COLUMNS")
    1000
    >>> os.environ["EVSTAT_MAX_BASIS_COLUMNS"] = "5_000"
    >>> current("MAX_BASIS_COLUMNS")
    5000
    >>> del os.environ["EVSTAT_MAX_BASIS_COLUMNS"]
    """
    return env_limit(name, int(globals()[name]), FormulaLimitError)


def _how_to_raise(name: str, needed: int) -> str:
    return (f"raise it with the environment variable EVSTAT_{name}={needed} (or by assigning "
            f"evstat.formula.limits.{name}) if the machine has the memory")


#: the spline functions of patsy: (position of df, position of knots) among the arguments
_SPLINES = {"bs": (1, 2), "cr": (1, 2), "cc": (1, 2)}


def _spline_columns(node: ast.Call, name: str, code: str, formula: str) -> int:
    """An upper bound on the columns of one ``bs``/``cr``/``cc`` call (1 when unknown: patsy
    will refuse it). ``df`` columns, else ``len(knots) + degree + 1`` (``bs``) or
    ``len(knots) + 2`` (``cr``, ``cc``)."""
    kw = {k.arg: k.value for k in node.keywords if k.arg is not None}
    df_pos, knots_pos = _SPLINES[name]
    df_node = kw.get("df", node.args[df_pos] if len(node.args) > df_pos else None)
    knots = kw.get("knots", node.args[knots_pos] if len(node.args) > knots_pos else None)
    if knots is not None and not isinstance(knots, (ast.List, ast.Tuple)) and not (
            isinstance(knots, ast.Constant) and knots.value is None):
        # knots=svm1 gives one knot per row: a basis of n columns, built before its size is known
        raise FormulaLimitError(
            f"term {_short(ast.unparse(node))} of formula {_short(formula)}: the knots of {name}() must "
            "be a list of numbers, e.g. knots=[0.2, 0.5], so that the size of its basis is known before "
            "it is built (an expression of the data gives one knot per row); or give df="
        )
    if df_node is not None:
        df = _const(df_node, code, formula)
        if isinstance(df, (int, float)) and not isinstance(df, bool) and math.isfinite(df) and df > 0:
            return max(1, math.ceil(df))
        if isinstance(df, float) and math.isinf(df) and df > 0:
            return 2**62
        if df is _NOT_CONSTANT and not (isinstance(df_node, ast.Constant) and df_node.value is None):
            raise FormulaLimitError(
                f"term {_short(ast.unparse(node))} of formula {_short(formula)}: the df of {name}() must be "
                "a number, e.g. df=5, so that the size of its basis is known before it is built"
            )
    if isinstance(knots, (ast.List, ast.Tuple)):
        degree = 3
        if name == "bs":
            deg_node = kw.get("degree", node.args[3] if len(node.args) > 3 else None)
            d = _const(deg_node, code, formula) if deg_node is not None else 3
            degree = d if _is_int(d) and 0 <= d < 2**31 else 3
        return len(knots.elts) + degree + 1
    return 1


def basis_columns(code: str, formula: str | None = None) -> int:
    """An upper bound on the columns of one formula factor, from its text: the product of the
    columns of the splines it calls (``te(cr(a, df=4), cc(b, df=5))``: 20), 1 for anything else
    (a score column, a transform, a factor whose levels the data decide).

    The code must have passed the whitelist (:func:`~evstat.formula.whitelist.check_code`).

    Examples
    --------
    >>> from evstat.formula.limits import basis_columns
    >>> basis_columns("bs(s, df=100000)"), basis_columns("te(cr(a, df=4), cc(b, df=5))")
    (100000, 20)
    >>> basis_columns("bs(s, knots=[0.2, 0.5], degree=2)"), basis_columns("np.log(s)")
    (5, 1)
    """
    formula = code if formula is None else formula
    tree = ast.parse(code.strip(), mode="eval")
    total = 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _SPLINES:
            total = min(total * _spline_columns(node, node.func.id, code, formula), 2**62)
    return total


def _term_name(term: Any) -> str:
    return ":".join(getattr(f, "code", str(f)) for f in term.factors) or "Intercept"


def check_bases(desc: ModelDesc, formula: str) -> int:
    """Refuse a formula whose terms have more basis columns than :data:`MAX_BASIS_COLUMNS` (one
    term) or :data:`MAX_DESIGN_COLUMNS` (all terms), from the text, before anything is evaluated.

    Returns
    -------
    int
        The upper bound on the columns of the right-hand side.

    Raises
    ------
    FormulaLimitError
        One line naming the term, its columns, the limit and how to raise it.

    Examples
    --------
    >>> from evstat.formula.limits import check_bases, model_desc
    >>> check_bases(model_desc("y ~ bs(s, df=5) + t"), "y ~ bs(s, df=5) + t")
    7
    >>> f = "y ~ bs(s, df=100000)"
    >>> check_bases(model_desc(f), f)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.limits.FormulaLimitError: term 'bs(s, df=100000)' of formula 'y ~ bs(s, df=100000)' has 100,000 basis columns; the limit is 1,000 (evstat.formula.limits.MAX_BASIS_COLUMNS): use a smaller df, or raise it with ...
    """
    per_term = current("MAX_BASIS_COLUMNS")
    whole = current("MAX_DESIGN_COLUMNS")
    cache: dict[str, int] = {}
    total = 0
    for term in desc.rhs_termlist:
        cols = 1
        for factor in term.factors:
            code = getattr(factor, "code", None)
            if code is None:
                continue
            if code not in cache:
                cache[code] = basis_columns(code, formula)
            cols = min(cols * cache[code], 2**62)
        if cols > per_term:
            raise FormulaLimitError(
                f"term {_short(_term_name(term))} of formula {_short(formula)} has {cols:,} basis "
                f"columns; the limit is {per_term:,} (evstat.formula.limits.MAX_BASIS_COLUMNS): "
                f"use a smaller df, or {_how_to_raise('MAX_BASIS_COLUMNS', cols)}"
            )
        total += cols
        if total > whole:
            raise FormulaLimitError(
                f"formula {_short(formula)} has more than {whole:,} design columns (its terms' "
                f"bases add up to at least {total:,}); the limit is {whole:,} (evstat.formula."
                "limits.MAX_DESIGN_COLUMNS): use fewer terms or smaller splines, or "
                f"{_how_to_raise('MAX_DESIGN_COLUMNS', total)}"
            )
    return total


def _size(nbytes: int) -> str:
    return f"{nbytes / 2**30:.1f} GiB" if nbytes >= 2**30 else f"{max(nbytes / 2**20, 0.1):.1f} MiB"


def check_design_cells(rows: int, columns: int, formula: str, what: str = "the calibration data") -> None:
    """Refuse a design matrix of more than :data:`MAX_DESIGN_CELLS` cells before it is allocated.

    Examples
    --------
    >>> from evstat.formula.limits import check_design_cells
    >>> check_design_cells(1_000, 100, "y ~ s")
    >>> check_design_cells(10**6, 1_000, "y ~ bs(s, df=1000)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.limits.FormulaLimitError: formula 'y ~ bs(s, df=1000)' needs a design matrix of 1,000,000 rows x 1,000 columns (1,000,000,000 cells, 7.5 GiB) for the calibration data; the limit is 134,217,728 cells ...
    """
    limit = current("MAX_DESIGN_CELLS")
    cells = rows * columns
    if cells > limit:
        raise FormulaLimitError(
            f"formula {_short(formula)} needs a design matrix of {rows:,} rows x {columns:,} columns "
            f"({cells:,} cells, {_size(cells * 8)}) for {what}; the limit is {limit:,} cells "
            "(evstat.formula.limits.MAX_DESIGN_CELLS): use fewer or smaller terms, or "
            f"{_how_to_raise('MAX_DESIGN_CELLS', cells)}"
        )
