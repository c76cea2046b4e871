"""R's dotted column names in a formula: ``y ~ Sepal.Length + np.log(Sepal.Width)``.

R users name columns with dots (R's ``iris`` has ``Sepal.Length``, ``Petal.Width``); in R a dot
is part of a name. In Python, and so in patsy, ``Sepal.Length`` is the attribute ``Length`` of
the variable ``Sepal``, which the whitelist refuses. evstat reads such a name as R does when
the data has a column of exactly that name: before the whitelist checks a formula and before
patsy sees it, every *whole name token* that is a column of the data and contains a dot is
rewritten to patsy's quoted reference ``Q("Sepal.Length")`` (:func:`quote_dotted`). Nothing is
evaluated by the rewrite, and the rewritten formula is checked by the whitelist as any other.

What is rewritten
-----------------
A maximal run of name characters (letters, digits, ``_`` and ``.``) outside quoted strings that

* contains a dot, does not start with a digit or with a dot followed by a digit (a number such
  as ``2.5`` or ``.5``; R's rule for syntactic names),
* is a (string) column name of the data, exactly,
* has no part, between dots, that is a dunder or patsy-internal name (``a.__class__`` is never
  a column reference: it stays attribute access and the whitelist refuses it),
* and is not followed by ``(`` (``f.g(x)`` is a call, which the whitelist judges).

Anything else is left as it is: ``np.log``, ``np.pi``, a misspelt ``Sepal.Lenght`` (the
whitelist then refuses the attribute access with a message that names the closest column and
``Q("...")``), text inside strings (``Q("Sepal.Length")``, ``C(g, Treatment("a.b"))``).

Names shown to the user
-----------------------
The model keeps the formula as the user wrote it (R's ``formula(fit)``), and the design's term
names read as written: ``Sepal.Length``, ``np.log(Sepal.Width)``, ``Sepal.Length:Sepal.Width``
(as R names them), not ``Q("Sepal.Length")``. :func:`shown_desc` gives patsy factors that
evaluate the quoted code but are named by the code as written; a name the user quoted
explicitly keeps its ``Q("...")`` in the term names, as ``Q("svm 1")`` always has.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from patsy import EvalFactor, ModelDesc, Term

from evstat.formula import limits

__all__ = ["ALL", "bare", "dotted_name", "dotted_tokens", "private_part", "quote_dotted", "shown_code", "shown_desc"]


#: what :func:`_quote` inserts (``Q("name")``, the name of name characters only)
_INSERTED = re.compile(r'Q\("[\w.]+"\)')


#: a call's opening bracket after a token
_CALL = re.compile(r"\s*\(")


def _name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_."


def private_part(name: str) -> bool:
    """A dunder or patsy-internal name (the whitelist's rule, applied to each dotted part)."""
    return name.startswith("__") or name.endswith("__") or name.startswith("_patsy")


def _runs(formula: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the maximal runs of name characters outside quoted strings."""
    runs: list[tuple[int, int]] = []
    start = prev = -2
    for i, ch in limits.unquoted(formula):
        if _name_char(ch):
            if i != prev + 1 or start < 0:
                if start >= 0:
                    runs.append((start, prev + 1))
                start = i
            prev = i
        else:
            if start >= 0:
                runs.append((start, prev + 1))
            start = -2
    if start >= 0:
        runs.append((start, prev + 1))
    return runs


def dotted_name(token: str) -> bool:
    """A token that could be an R name with a dot: name characters only, a dot, not a number,
    no private part."""
    if not token.strip(".") or not all(map(_name_char, token)):
        return False  # R's '.' (every other column) and runs of dots are not names
    if "." not in token or token[0].isdigit() or (token[0] == "." and token[1:2].isdigit()):
        return False
    parts = token.split(".")
    return not any(private_part(p) for p in parts if p)


def bare(name: str) -> bool:
    """A column name that a formula may write bare as an R dotted name (``Sepal.Length``, not
    ``np.pi``: a name under ``np``/``numpy`` is quoted, though it would read as the column too).

    Examples
    --------
    >>> from evstat.formula._dotted import bare
    >>> bare("Sepal.Length"), bare("x.1"), bare("np.pi"), bare("svm 1"), bare("a.__class__")
    (True, True, False, False, False)
    """
    return dotted_name(name) and name.split(".", 1)[0] not in ("np", "numpy")


def dotted_tokens(formula: str) -> list[tuple[int, int, str]]:
    """Every whole name token of ``formula`` that contains a dot and could be an R column name:
    ``(start, end, token)``, outside strings, not a number, not followed by ``(``.

    Examples
    --------
    >>> from evstat.formula._dotted import dotted_tokens
    >>> [t for *_, t in dotted_tokens('y ~ Sepal.Length + np.log(Q("a.b")) + I(2.5 * x.1)')]
    ['Sepal.Length', 'x.1']
    """
    out = []
    for a, b in _runs(formula):
        token = formula[a:b]
        if not dotted_name(token):
            continue
        if _CALL.match(formula, b):
            continue  # a call: the whitelist judges it
        out.append((a, b, token))
    return out


def _quote(name: str) -> str:
    return f'Q("{name}")'  # name has only letters, digits, "_" and ".": no escaping needed


#: ``columns=ALL``: every dotted name token is taken for a column (to read a formula's terms
#: from its text alone, without data: :func:`evstat.formula.formula_terms`)
ALL: frozenset[str] = frozenset({"<every dotted name>"})


def quote_dotted(formula: str, columns: Iterable[Any] | None) -> tuple[str, dict[str, str]]:
    """``formula`` with each dotted name that is a column of the data written as ``Q("name")``.

    Parameters
    ----------
    formula : str
        A formula or one side of it.
    columns : iterable, optional
        The data's column labels (non-strings are ignored). None: nothing is rewritten;
        :data:`ALL`: every dotted name token is rewritten.

    Returns
    -------
    (str, dict)
        The rewritten text, and the map from each inserted ``Q("name")`` to ``name`` (for the
        names shown to the user, :func:`shown_code`).

    Examples
    --------
    >>> from evstat.formula._dotted import quote_dotted
    >>> quote_dotted("Species ~ Sepal.Length + np.log(Sepal.Width) + np.pi", ["Species", "Sepal.Length", "Sepal.Width"])
    ('Species ~ Q("Sepal.Length") + np.log(Q("Sepal.Width")) + np.pi', {'Q("Sepal.Length")': 'Sepal.Length', 'Q("Sepal.Width")': 'Sepal.Width'})
    >>> quote_dotted("y ~ Sepal.Lenght", ["y", "Sepal.Length"])[0]
    'y ~ Sepal.Lenght'
    """
    if columns is None or "." not in formula:
        return formula, {}
    names = None if columns is ALL else frozenset(c for c in columns if isinstance(c, str) and "." in c)
    if names is not None and not names:
        return formula, {}
    out: list[str] = []
    shown: dict[str, str] = {}
    last = 0
    for a, b, token in dotted_tokens(formula):
        if names is not None and token not in names:
            continue
        q = _quote(token)
        shown[q] = token
        out.append(formula[last:a])
        out.append(q)
        last = b
    if not shown:
        return formula, {}
    out.append(formula[last:])
    return "".join(out), shown


def shown_code(code: str, shown: Mapping[str, str]) -> str:
    """A factor's code as the user wrote it: each inserted ``Q("name")`` back to ``name``.

    Examples
    --------
    >>> from evstat.formula._dotted import shown_code
    >>> shown_code('np.log(Q("Sepal.Length"))', {'Q("Sepal.Length")': "Sepal.Length"})
    'np.log(Sepal.Length)'
    """
    if not shown:
        return code
    return _INSERTED.sub(lambda m: shown.get(m.group(0), m.group(0)), code)  # one pass, any number of names


class _ShownFactor(EvalFactor):
    """A patsy factor that evaluates its (quoted) code and is named as the user wrote it.

    patsy names design columns and terms by ``factor.name()`` and evaluates ``factor.code``;
    equality and hashing stay those of the code (patsy's ``EvalFactor``).
    """

    def __init__(self, code: str, origin: Any, shown: str) -> None:
        super().__init__(code, origin=origin)
        self._shown = shown

    def name(self) -> str:
        return self._shown


def shown_desc(desc: ModelDesc, shown: Mapping[str, str]) -> ModelDesc:
    """``desc`` (parsed from a :func:`quote_dotted` formula) with factors named as written."""
    if not shown:
        return desc

    def factor(f: Any) -> Any:
        code = getattr(f, "code", None)
        if code is None:
            return f
        name = shown_code(code, shown)
        return f if name == code else _ShownFactor(code, getattr(f, "origin", None), name)

    def terms(ts: list[Term]) -> list[Term]:
        return [Term([factor(f) for f in t.factors]) for t in ts]

    return ModelDesc(terms(desc.lhs_termlist), terms(desc.rhs_termlist))
