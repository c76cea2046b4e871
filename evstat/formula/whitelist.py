"""The formula whitelist: what a formula may contain before patsy evaluates any of it.

patsy evaluates every factor of a formula (``np.log(s)``, ``I(s**2)``, ``center(s)``) as Python
code. A formula comes from a user, a command line or a saved model file, so evstat checks each
factor's syntax tree against this whitelist *before* anything is evaluated (when fitting, when
rebuilding a saved model and for every other string the package evaluates), and evaluates the
accepted code in an environment without Python's built-ins (:func:`eval_env`).

What a formula may contain
--------------------------
* **Formula operators** (patsy's, between factors): ``~ + - * / : **`` and parentheses; the
  numbers ``0``, ``1``, ``-1`` for the intercept.
* **Inside a factor**: column names (bare identifiers, R's dotted names such as
  ``Sepal.Length`` when the data has that column, or any name quoted as ``Q("svm 1")``),
  numeric literals (and ``True``, ``False``, ``None`` as keyword values), the operators
  ``+ - * / // % **``, unary ``+ -``, comparisons ``== != < <= > >=``, ``& | ^`` on logical
  arrays, parentheses, and calls of the documented functions below with positional or keyword
  arguments. Lists or tuples of literals are allowed as arguments (``bs(s, knots=[0, 1])``).
* **Functions**: :data:`NUMPY_FUNCTIONS` as ``np.<name>(...)`` or ``numpy.<name>(...)`` (and the
  constants ``np.pi``, ``np.e``); the R-style shortcuts :data:`SHORTCUTS` (``log``, ``log1p``,
  ``log2``, ``log10``, ``exp``, ``sqrt`` from numpy; ``logit``, ``expit`` from scipy.special);
  patsy's :data:`PATSY_FUNCTIONS` (``I``, ``Q``, ``C``, ``center``, ``standardize``, ``scale``,
  the splines ``bs``, ``cr``, ``cc``, ``te`` and the contrasts ``Treatment``, ``Sum``, ``Poly``,
  ``Helmert``, ``Diff``); and the Python built-ins :data:`BUILTINS` (``abs``, ``round``,
  ``pow``).
* **Strings** only where patsy needs them: the column name of ``Q("...")``, and level or option
  literals inside patsy's functions (``C(g, Treatment("a"))``, ``cr(s, df=4,
  constraints="center")``).

Everything else is refused with an :class:`UnsafeFormulaError` naming the offending term:
attribute access other than ``np.<function>`` (``np.__class__``, ``s.real``), any dunder name
(``__import__``), names starting with ``_patsy`` (patsy's internals), other built-ins (``open``,
``eval``, ``exec``, ``getattr``), lambdas, comprehensions, subscripts, f-strings, starred
arguments, conditional expressions, walrus assignments, and strings elsewhere.

Evaluation environment
----------------------
:func:`eval_env` is a patsy ``EvalEnvironment`` whose only namespace is the explicit mapping
:func:`namespace` (functions above; ``np``/``numpy`` are a namespace holding only
:data:`NUMPY_FUNCTIONS`, not the numpy module) and whose code runs with an *empty* built-ins
dictionary, so even code that escaped the syntax check could not reach ``__import__`` or
``open``. The environment keeps these properties in the copies patsy makes of it (``subset``).

Size limits
-----------
Before any of this, the formula's size is checked against :mod:`evstat.formula.limits` (length,
nesting depth, digits of a number, bits of an integer constant, number of terms), so that no
formula can hang or exhaust the machine while it is parsed or evaluated; the formula-level parse
runs without recursion.

Column names that are not Python identifiers must be quoted: ``y ~ svm 1`` is refused with a
message saying that ``svm 1`` is not a column name and how to write it (``Q("svm 1")``).

R's dotted names
----------------
Given the data's columns, :func:`check_formula` first rewrites every whole name token that is a
dotted column name (``Sepal.Length``) to ``Q("Sepal.Length")`` (:mod:`evstat.formula._dotted`;
the same rewrite patsy's input gets) and checks the result. The rewrite evaluates nothing and
only ever inserts ``Q`` of a string of letters, digits, ``_`` and dots; a token with a dunder
part (``a.__class__``) or followed by ``(`` is never rewritten, so it stays attribute access or
a call and is refused as before, whatever the data's columns are. A dotted name that is not a
column is refused with a message naming the closest column and ``Q("...")``.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import tokenize
import types
from collections.abc import Iterable, Mapping
from io import StringIO
from typing import Any

import numpy as np
import patsy
from patsy import PatsyError
from patsy.eval import VarLookupDict
from scipy import special

from evstat.exceptions import EvstatError
from evstat.formula import _dotted, limits
from evstat.formula.limits import FormulaLimitError

__all__ = [
    "BUILTINS",
    "FormulaLimitError",
    "NUMPY_CONSTANTS",
    "NUMPY_FUNCTIONS",
    "PATSY_FUNCTIONS",
    "SHORTCUTS",
    "SafeEvalEnvironment",
    "UnsafeFormulaError",
    "check_code",
    "check_formula",
    "eval_env",
    "function_names",
    "namespace",
]

#: numpy functions a formula may call as ``np.<name>(...)`` (elementwise or shape-preserving).
NUMPY_FUNCTIONS: frozenset[str] = frozenset(
    {
        "abs", "absolute", "arccos", "arcsin", "arctan", "arctan2", "cbrt", "ceil", "clip",
        "cos", "cosh", "exp", "exp2", "expm1", "fabs", "floor", "fmax", "fmin", "hypot", "log",
        "log10", "log1p", "log2", "logaddexp", "maximum", "minimum", "power", "reciprocal",
        "rint", "round", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc",
        "where",
    }
)
#: numpy constants a formula may use as ``np.<name>``.
NUMPY_CONSTANTS: frozenset[str] = frozenset({"pi", "e"})
#: R-style shortcuts callable without ``np.``.
SHORTCUTS: Mapping[str, Any] = types.MappingProxyType(
    {
        "log": np.log,
        "log1p": np.log1p,
        "log2": np.log2,
        "log10": np.log10,
        "exp": np.exp,
        "sqrt": np.sqrt,
        "logit": special.logit,
        "expit": special.expit,
    }
)
#: patsy's built-in functions (patsy supplies them itself when it evaluates a factor).
PATSY_FUNCTIONS: frozenset[str] = frozenset(
    {"I", "Q", "C", "center", "standardize", "scale", "bs", "cr", "cc", "te",
     "Treatment", "Sum", "Poly", "Helmert", "Diff"}
)
#: the few Python built-ins a formula may call.
BUILTINS: Mapping[str, Any] = types.MappingProxyType({"abs": abs, "round": round, "pow": pow})
#: patsy functions whose arguments may hold string literals (column name, levels, options).
_STRING_ARGS = frozenset({"Q", "C", "Treatment", "Sum", "Poly", "Helmert", "Diff", "bs", "cr", "cc", "te"})
_MODULES = ("np", "numpy")
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
           ast.BitAnd, ast.BitOr, ast.BitXor)
_UNARY = (ast.UAdd, ast.USub)
_COMPARE = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_DESCRIBE = {
    ast.Lambda: "a lambda", ast.ListComp: "a comprehension", ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension", ast.GeneratorExp: "a generator expression",
    ast.Subscript: "a subscript ([...])", ast.JoinedStr: "an f-string",
    ast.IfExp: "a conditional expression", ast.NamedExpr: "an assignment (:=)",
    ast.Starred: "a starred argument", ast.Dict: "a dict", ast.Set: "a set",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield", ast.BoolOp: "'and'/'or'",
    ast.Slice: "a slice",
}


class UnsafeFormulaError(EvstatError, ValueError):
    """A formula (or another evaluated string) contains something outside the whitelist."""


def function_names() -> frozenset[str]:
    """Names a formula may call without a module prefix (shortcuts, patsy's, built-ins).

    Examples
    --------
    >>> from evstat.formula.whitelist import function_names
    >>> {"log", "I", "center", "abs"} <= function_names(), "open" in function_names()
    (True, False)
    """
    return frozenset(SHORTCUTS) | PATSY_FUNCTIONS | frozenset(BUILTINS)


def namespace() -> dict[str, Any]:
    """The explicit evaluation namespace: the functions of the whitelist and nothing else.

    ``np`` and ``numpy`` are a plain namespace holding :data:`NUMPY_FUNCTIONS` and
    :data:`NUMPY_CONSTANTS`, not the numpy module. patsy adds its own functions (``I``, ``Q``,
    ``center``, ...) as an outer namespace when it evaluates.

    Examples
    --------
    >>> from evstat.formula.whitelist import namespace
    >>> ns = namespace()
    >>> float(ns["np"].log(1.0)), "open" in ns, hasattr(ns["np"], "load")
    (0.0, False, False)
    """
    npns = types.SimpleNamespace(
        **{f: getattr(np, f) for f in sorted(NUMPY_FUNCTIONS | NUMPY_CONSTANTS)}
    )
    ns: dict[str, Any] = {"np": npns, "numpy": npns}
    ns.update(SHORTCUTS)
    ns.update(BUILTINS)
    return ns


class SafeEvalEnvironment(patsy.EvalEnvironment):
    """A patsy ``EvalEnvironment`` that evaluates with no Python built-ins.

    patsy's own environment evaluates with ``globals = {}``, into which Python inserts the
    built-ins module; this one passes ``{"__builtins__": {}}``, so a name that is not in the
    explicit namespaces (or the data) is simply undefined. ``subset`` (which patsy calls while
    memorising a factor) keeps the class.
    """

    def eval(self, expr: str, source_name: str = "<string>", inner_namespace: Any = None) -> Any:  # noqa: A003
        code = compile(expr, source_name, "eval", self.flags, False)
        lookup = VarLookupDict([inner_namespace or {}] + self._namespaces)
        return eval(code, {"__builtins__": {}}, lookup)  # noqa: S307 - whitelisted code, no built-ins

    def subset(self, names: Iterable[str]) -> SafeEvalEnvironment:
        vld = VarLookupDict(self._namespaces)
        return SafeEvalEnvironment([{name: vld[name] for name in names}], self.flags)


def eval_env() -> SafeEvalEnvironment:
    """The environment every formula is evaluated in: :func:`namespace`, no built-ins.

    Examples
    --------
    >>> import patsy
    >>> from evstat.formula.whitelist import eval_env
    >>> patsy.dmatrix("np.log(s) - 1", {"s": [1.0, 10.0]}, eval_env=eval_env()).ravel().round(3)
    array([0.   , 2.303])
    """
    return SafeEvalEnvironment([namespace()])


# ---------------------------------------------------------------------------------------------
# the check
# ---------------------------------------------------------------------------------------------


_is_dunder = _dotted.private_part


def _python_keyword(code: str) -> str | None:
    try:
        toks = list(tokenize.generate_tokens(StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    for tok in toks:
        if tok.type == tokenize.NAME and keyword.iskeyword(tok.string) and tok.string not in ("True", "False", "None"):
            return tok.string
    return None


def _syntax_message(code: str, formula: str, columns: Any) -> str:
    code = code.strip()
    if code == ".":
        return (
            f"formula {formula[:80]!r} uses '.' (every column but the response), which needs "
            "the data: it is expanded by model_frame/class_frame and the fitters; a saved model "
            "holds the expanded formula"
        )
    word = _python_keyword(code)
    if word is not None:
        return (
            f"term {code!r} of formula {formula!r} uses the Python keyword {word!r}, which a "
            "formula may not contain (allowed: column names, numbers, arithmetic and the "
            "documented functions; see evstat.formula.whitelist)"
        )
    quoted = f"Q({code!r})".replace("'", '"') if '"' not in code else f"Q({code!r})"
    if columns is not None and code in columns:
        return (
            f"{code!r} in formula {formula!r} is a column name that is not a Python identifier "
            f"(it has a space or another special character): quote it as {quoted}"
        )
    return (
        f"term {code!r} of formula {formula!r} is not a column name or a valid expression; a "
        f"column name with spaces or other special characters must be quoted, e.g. {quoted}"
    )


def _refuse(node: ast.AST, code: str, formula: str, why: str) -> UnsafeFormulaError:
    return UnsafeFormulaError(
        f"term {code.strip()!r} of formula {formula!r} is not allowed: {why}. A formula may use "
        "column names, numbers, arithmetic, comparisons and the functions documented in "
        "evstat.formula.whitelist; compute anything else as a data column first"
    )


def _call_name(func: ast.AST) -> str | None:
    """``"name"`` or ``"np.name"`` of an allowed callee, else None."""
    if isinstance(func, ast.Name) and func.id in function_names():
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id in _MODULES
        and func.attr in NUMPY_FUNCTIONS
    ):
        return f"np.{func.attr}"
    return None


def _dotted_chain(node: ast.Attribute) -> str | None:
    """``"a.b.c"`` for a chain of plain names that could be an R column name with dots (no
    dunder part, not rooted at ``np``/``numpy``); else None."""
    parts: list[str] = []
    cur: ast.AST = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name) or cur.id in _MODULES:
        return None
    parts.append(cur.id)
    if any(_is_dunder(p) for p in parts):
        return None
    return ".".join(reversed(parts))


def _not_a_column(name: str, cols: frozenset | None) -> str:
    """Why the dotted name ``name`` (not a data column) is refused, and the fix."""
    import difflib

    where = "data" if cols is not None else "the data"
    close = difflib.get_close_matches(name, sorted(cols or ()), n=1, cutoff=0.8)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    quoted = f'Q("{name}")'
    return (
        f"{name!r} is not a column of {where}{hint}; a dotted name is read as a column name, as in "
        f"R, only when {where} has a column of exactly that name (written bare, or quoted as "
        f"{quoted}), and Python's attribute access is not allowed in a formula (only "
        "np.<function>(...) for the numpy functions of evstat.formula.whitelist.NUMPY_FUNCTIONS, "
        "and np.pi, np.e)"
    )


def _describe_callee(func: ast.AST) -> str:
    try:
        return ast.unparse(func)
    except Exception:  # pragma: no cover - ast.unparse handles every expression node
        return type(func).__name__


def _column_set(columns: Iterable[str] | None) -> frozenset | None:
    if columns is None or isinstance(columns, frozenset):
        return columns
    return frozenset(c for c in columns if isinstance(c, str))


def check_code(code: str, formula: str | None = None, columns: Iterable[str] | None = None) -> None:
    """Check one Python expression (a formula factor) against the whitelist.

    Parameters
    ----------
    code : str
        The expression, e.g. ``"np.log(s)"`` or ``'Q("svm 1")'``.
    formula : str, optional
        The whole formula, for the message (default: ``code``).
    columns : iterable of str, optional
        The data's column names; with them, a name with a space that is a column gets a message
        saying how to quote it.

    Raises
    ------
    UnsafeFormulaError
        (a ``ValueError``) naming the term and what is not allowed, or saying how to quote a
        column name that is not an identifier.
    FormulaLimitError
        (a ``ValueError``) the term exceeds a size limit of :mod:`evstat.formula.limits`
        (nesting, digits, integer constants); the message names the limit.

    Examples
    --------
    >>> from evstat.formula.whitelist import check_code
    >>> check_code("np.log(s) + I(s**2)")
    >>> check_code("open('x')")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.whitelist.UnsafeFormulaError: term "open('x')" of formula "open('x')" is not allowed: the function 'open' is not one of the documented formula functions. ...
    """
    formula = code if formula is None else formula
    cols = _column_set(columns)
    if not isinstance(code, str):
        raise TypeError(f"a formula term must be a string, got {type(code).__name__}")
    limits.check_text(code)
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except (SyntaxError, ValueError):
        raise UnsafeFormulaError(_syntax_message(code, formula, cols)) from None
    except (RecursionError, MemoryError):  # a chain of operators deeper than the parser's stack
        raise FormulaLimitError(
            f"term {code.strip()[:40]!r}... of formula {formula[:40]!r}... nests more than "
            f"{limits.MAX_DEPTH} levels (operators, calls and brackets); the limit is "
            f"{limits.MAX_DEPTH} (evstat.formula.limits.MAX_DEPTH). Split the expression into "
            "several terms or compute it as a data column"
        ) from None
    limits.check_depth(tree.body, code, formula)
    _check_node(tree.body, code, formula, False, cols)
    limits.check_constants(tree.body, code, formula)


def _check_node(node: ast.AST, code: str, formula: str, string_ok: bool, cols: frozenset | None = None) -> None:
    refuse = lambda why: _refuse(node, code, formula, why)  # noqa: E731
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, str):
            if not string_ok:
                raise refuse(f"the string {v!r} (strings are allowed only inside Q(\"...\") and patsy's C(...), contrasts and spline options)")
            if _is_dunder(v):
                raise refuse(f"the dunder name {v!r}")
            return
        if v is None or isinstance(v, (bool, int, float)):
            return
        raise refuse(f"the literal {v!r}")
    if isinstance(node, ast.Name):
        if not isinstance(node.ctx, ast.Load):
            raise refuse(f"assignment to {node.id!r}")
        if _is_dunder(node.id):
            raise refuse(f"the dunder name {node.id!r}")
        if node.id in _MODULES:
            raise refuse(f"{node.id!r} on its own (only calls np.<function>(...) and np.pi, np.e)")
        if hasattr(builtins, node.id) and node.id not in function_names() and (cols is None or node.id not in cols):
            raise refuse(f"the Python built-in {node.id!r}")
        return
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id in _MODULES and node.attr in NUMPY_CONSTANTS:
            return
        if isinstance(node.value, ast.Name) and node.value.id in _MODULES and node.attr in NUMPY_FUNCTIONS:
            raise refuse(f"{ast.unparse(node)} without a call")
        dotted = _dotted_chain(node)
        if dotted is not None:
            raise refuse(_not_a_column(dotted, cols))
        raise refuse(
            f"the attribute access {ast.unparse(node)!r} (only np.<function>(...) for the numpy "
            "functions of evstat.formula.whitelist.NUMPY_FUNCTIONS, and np.pi, np.e)"
        )
    if isinstance(node, ast.Call):
        name = _call_name(node.func)
        if name is None:
            callee = _describe_callee(node.func)
            if isinstance(node.func, ast.Attribute):
                raise refuse(
                    f"the call of {callee!r} (attribute access is allowed only as np.<function>(...) "
                    "for the numpy functions of evstat.formula.whitelist.NUMPY_FUNCTIONS)"
                )
            if not isinstance(node.func, ast.Name):
                raise refuse(f"the call of {_DESCRIBE.get(type(node.func), 'an expression')}")
            if isinstance(node.func, ast.Name) and _is_dunder(node.func.id):
                raise refuse(f"the dunder name {node.func.id!r}")
            raise refuse(f"the function {callee!r} is not one of the documented formula functions")
        strings = name in _STRING_ARGS
        if name == "Q":
            if len(node.args) != 1 or node.keywords or not (
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            ):
                raise refuse('Q takes one quoted column name, e.g. Q("svm 1")')
        for arg in node.args:
            _check_arg(arg, code, formula, strings, cols)
        for kw in node.keywords:
            if kw.arg is None:
                raise refuse("a ** argument")
            if _is_dunder(kw.arg):
                raise refuse(f"the dunder keyword {kw.arg!r}")
            _check_arg(kw.value, code, formula, strings, cols)
        return
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, _BINOPS):
            raise refuse(f"the operator {type(node.op).__name__}")
        _check_node(node.left, code, formula, False, cols)
        _check_node(node.right, code, formula, False, cols)
        return
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, _UNARY):
            raise refuse(f"the operator {type(node.op).__name__}")
        _check_node(node.operand, code, formula, False, cols)
        return
    if isinstance(node, ast.Compare):
        for op in node.ops:
            if not isinstance(op, _COMPARE):
                raise refuse(f"the comparison {type(op).__name__} (only == != < <= > >=)")
        for sub in [node.left, *node.comparators]:
            _check_node(sub, code, formula, False, cols)
        return
    what = _DESCRIBE.get(type(node), f"the expression {type(node).__name__}")
    raise refuse(what)


def _check_arg(node: ast.AST, code: str, formula: str, strings: bool, cols: frozenset | None) -> None:
    """A call argument: an expression, or (for patsy's functions) a string or list of literals."""
    if isinstance(node, (ast.List, ast.Tuple)):
        for elt in node.elts:
            if not isinstance(elt, ast.Constant) or isinstance(elt.value, (bytes, complex)):
                raise _refuse(node, code, formula, "a list or tuple of anything but literals")
            _check_node(elt, code, formula, strings, cols)
        return
    _check_node(node, code, formula, strings, cols)


def check_formula(formula: str, columns: Iterable[str] | None = None) -> None:
    """Check every factor of a formula (both sides) against the whitelist, evaluating nothing.

    The formula is split into factors by patsy's parser (which only tokenises); each factor is
    then checked by :func:`check_code`.

    Parameters
    ----------
    formula : str
        E.g. ``"y ~ svm1 + np.log(s) + center(t)"``.
    columns : iterable of str, optional
        The data's column names (for the message about names that must be quoted).

    Raises
    ------
    UnsafeFormulaError
        (a ``ValueError``) naming the offending term.
    FormulaLimitError
        (a ``ValueError``) the formula exceeds a size limit of :mod:`evstat.formula.limits`
        (length, nesting, digits, integer constants, terms, basis columns of a spline, tensor
        product or interaction); the message names the limit and how to raise it.
    TypeError
        ``formula`` is not a string.

    Examples
    --------
    >>> from evstat.formula.whitelist import check_formula
    >>> check_formula('y ~ svm1 + Q("svm 2") + center(s) - 1')
    >>> check_formula("y ~ svm 1", columns=["y", "svm 1"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.whitelist.UnsafeFormulaError: 'svm 1' in formula 'y ~ svm 1' is a column name that is not a Python identifier (it has a space or another special character): quote it as Q("svm 1")
    >>> check_formula("y ~ I(s + 0*__import__('os').getpid())")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evstat.formula.whitelist.UnsafeFormulaError: term "I(s + 0 * __import__('os').getpid())" of formula ... is not allowed: ...
    """
    if not isinstance(formula, str):
        raise TypeError(f"formula must be a string such as 'y ~ s1 + s2', got {type(formula).__name__}")
    if "\x00" in formula:
        raise UnsafeFormulaError(f"formula {formula[:80]!r} contains a NUL character")
    limits.check_text(formula)
    try:
        desc = limits.model_desc(formula)
    except FormulaLimitError:
        raise
    except PatsyError as err:
        side = "formula"
        if "~" in formula:
            try:
                limits.model_desc(formula.rsplit("~", 1)[1])
            except PatsyError as rhs_err:
                side, err = "the right-hand side of formula", rhs_err
            except Exception:  # noqa: BLE001 - only choosing the wording of the message
                pass
        raise UnsafeFormulaError(f"cannot parse {side} {formula!r}: {' '.join(str(err).split())}") from None
    except (SyntaxError, ValueError, TypeError, RecursionError) as err:  # tokeniser errors
        raise UnsafeFormulaError(f"cannot parse formula {formula!r}: {err}") from None
    cols = _column_set(columns)
    quoted, shown = _dotted.quote_dotted(formula, cols)
    if shown:  # dotted column names (R's Sepal.Length) as Q("Sepal.Length"); see _dotted
        desc = limits.model_desc(quoted)
    seen: set[str] = set()
    for term in [*desc.lhs_termlist, *desc.rhs_termlist]:
        for factor in term.factors:
            code = getattr(factor, "code", None)
            if code is not None and code not in seen:
                seen.add(code)
                try:
                    check_code(code, formula, cols)
                except UnsafeFormulaError as err:  # the term as written, not as rewritten
                    if not shown:
                        raise
                    raise UnsafeFormulaError(_dotted.shown_code(str(err), shown)) from None
    limits.check_bases(desc, formula)  # spline and tensor sizes, before patsy allocates them
