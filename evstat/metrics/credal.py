"""Measures of credal classifications (Liu, Pan and Dezert 2013, section 5.2).

A credal decision for a row is a *set* of classes: a single class (precise), a meta-class (a union
of two or more classes: imprecise) or the outlier class (the whole frame). Decisions are read in
the output form of ``fit.decide(new, strategy="credal")``: per row a class label, a set of class
labels (``frozenset``, ``set``, ``tuple`` or ``list``; one element means that class) or the
string ``"outlier"``.

With ``T`` rows, true class ``w`` and decided set ``A``:

* error rate ``R_e = N_e / T``, ``N_e`` = rows with ``w`` not in ``A`` (an outlier decision is
  not an error: ``Omega`` contains every class; the paper counts outliers separately);
* imprecision rate ``R_Ij = N_Ij / T``, ``N_Ij`` = rows decided as a meta-class of cardinality
  ``j >= 2`` (whether or not it contains the true class, as the paper defines it);
* outlier rate ``R_o = N_o / T``.

So ``share precise + sum_j R_Ij + R_o = 1``, and the error counts precise wrong decisions and
meta-classes that miss the true class.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["credal_confusion", "credal_error_rate", "credal_rates", "imprecision_rates", "outlier_rate"]

OUTLIER = "outlier"


def _as_sets(decisions: Any, outlier: Hashable) -> list[frozenset | None]:
    """Each decision as a frozenset of labels, or None for the outlier class."""
    out: list[frozenset | None] = []
    if isinstance(decisions, pd.DataFrame) or (isinstance(decisions, np.ndarray) and decisions.ndim > 1):
        raise ValueError(
            f"decisions must be one decision per row (a class label, a set of labels or "
            f"{outlier!r}, e.g. fit.decide(new, strategy='credal')); got an array of shape "
            f"{np.shape(decisions)}, which looks like a matrix of probabilities or masses"
        )
    for i, d in enumerate(list(decisions)):
        if isinstance(d, (frozenset, set, tuple, list)):
            s = frozenset(d)
            if not s:
                raise ValueError("a credal decision is an empty set: give the outlier class as 'outlier'")
            out.append(s)
        elif isinstance(d, np.ndarray):
            raise ValueError(
                f"decision at row {i} is an array of shape {d.shape}: give a class label, a set of "
                f"labels (frozenset) or {outlier!r}"
            )
        elif d is None or d is pd.NA or d is pd.NaT or (isinstance(d, float) and np.isnan(d)):
            raise ValueError(
                f"credal decisions contain a missing value (first at row {i}): every row needs a decision"
            )
        elif d == outlier:
            out.append(None)
        else:
            out.append(frozenset([d]))
    return out


def _pair(y: Any, decisions: Any, outlier: Hashable) -> tuple[list, list[frozenset | None]]:
    ys = list(y)
    sets = _as_sets(decisions, outlier)
    if len(ys) != len(sets):
        raise ValueError(f"y has {len(ys)} rows but decisions has {len(sets)}: give one decision per row")
    if not ys:
        raise ValueError("no rows: credal rates need at least one decision")
    return ys, sets


def credal_error_rate(y: Sequence[Any], decisions: Sequence[Any], outlier: Hashable = OUTLIER) -> float:
    """Share of rows whose true class is not in the decided set (outliers are not errors).

    Examples
    --------
    >>> credal_error_rate(["a", "b", "c", "a"], ["a", frozenset({"a", "c"}), "outlier", "b"])
    0.5
    """
    ys, sets = _pair(y, decisions, outlier)
    return float(np.mean([s is not None and t not in s for t, s in zip(ys, sets)]))


def imprecision_rates(y: Sequence[Any], decisions: Sequence[Any], outlier: Hashable = OUTLIER) -> pd.Series:
    """``R_Ij``: share of rows decided as a meta-class of cardinality ``j``, for ``j = 2`` up to
    the largest cardinality decided (at least ``j = 2``).

    Returns
    -------
    pandas.Series
        Indexed by ``j`` (name ``"cardinality"``).

    Examples
    --------
    >>> imprecision_rates(["a", "b", "c", "a"], ["a", {"a", "c"}, {"a", "b", "c"}, "b"]).tolist()
    [0.25, 0.25]
    """
    ys, sets = _pair(y, decisions, outlier)
    card = np.array([0 if s is None else len(s) for s in sets])
    top = max(2, int(card.max()))
    js = np.arange(2, top + 1)
    return pd.Series([float(np.mean(card == j)) for j in js], index=pd.Index(js, name="cardinality"),
                     name="imprecision_rate")


def outlier_rate(y: Sequence[Any], decisions: Sequence[Any], outlier: Hashable = OUTLIER) -> float:
    """``R_o``: share of rows decided as the outlier class.

    Examples
    --------
    >>> outlier_rate(["a", "b"], ["outlier", "b"])
    0.5
    """
    _, sets = _pair(y, decisions, outlier)
    return float(np.mean([s is None for s in sets]))


def credal_rates(y: Sequence[Any], decisions: Sequence[Any], outlier: Hashable = OUTLIER) -> pd.Series:
    """All credal measures in one Series: ``error`` (R_e), ``precise`` (share decided as one
    class), ``imprecision`` (sum of R_Ij), ``imprecision_<j>`` (R_Ij, j >= 2) and ``outlier``
    (R_o); ``precise + imprecision + outlier = 1``.

    Examples
    --------
    >>> credal_rates(["a", "b", "a"], ["a", {"a", "b"}, "outlier"]).round(4).to_dict()
    {'error': 0.0, 'precise': 0.3333, 'imprecision': 0.3333, 'imprecision_2': 0.3333, 'outlier': 0.3333}
    """
    ys, sets = _pair(y, decisions, outlier)
    card = np.array([0 if s is None else len(s) for s in sets])
    js = range(2, max(2, int(card.max())) + 1)
    out: dict[str, float] = {
        "error": float(np.mean([s is not None and t not in s for t, s in zip(ys, sets)])),
        "precise": float(np.mean(card == 1)),
        "imprecision": float(np.mean(card >= 2)),
    }
    for j in js:
        out[f"imprecision_{j}"] = float(np.mean(card == j))
    out["outlier"] = float(np.mean(card == 0))
    return pd.Series(out, name="rate")


def _name(s: frozenset | None, outlier: Hashable, order: dict) -> str:
    if s is None:
        return str(outlier)
    items = sorted(s, key=lambda v: (order.get(v, len(order)), str(v)))
    if len(items) == 1:
        return str(items[0])
    return "{" + ", ".join(str(v) for v in items) + "}"


def credal_confusion(y: Sequence[Any], decisions: Sequence[Any], outlier: Hashable = OUTLIER) -> pd.DataFrame:
    """Credal confusion table: rows the true classes, columns the decided sets (classes, then
    meta-classes by cardinality, then the outlier class), counts.

    Set columns are written ``{a, b}`` with classes in the order of the rows.

    Examples
    --------
    >>> tab = credal_confusion(["a", "b", "b"], ["a", frozenset({"a", "b"}), "outlier"])
    >>> tab.columns.tolist()
    ['a', 'b', '{a, b}', 'outlier']
    >>> tab.to_numpy().tolist()
    [[1, 0, 0, 0], [0, 0, 1, 1]]
    """
    ys, sets = _pair(y, decisions, outlier)
    try:
        classes = sorted(set(ys))
    except TypeError:
        classes = list(dict.fromkeys(ys))
    order = {c: i for i, c in enumerate(classes)}
    names = [_name(s, outlier, order) for s in sets]
    seen = {_name(s, outlier, order): s for s in sets}
    cols = [str(c) for c in classes]
    sets_of = {n: s for n, s in seen.items() if s is not None}
    meta = sorted((n for n, s in sets_of.items() if len(s) > 1),
                  key=lambda n: (len(sets_of[n]), sorted(order.get(v, len(order)) for v in sets_of[n])))
    cols += meta
    extra = sorted(n for n, s in sets_of.items() if len(s) == 1 and n not in cols)
    cols += extra
    cols.append(str(outlier))
    tab = pd.crosstab(pd.Series(ys, name="truth"), pd.Series(names, name="decision"))
    return tab.reindex(index=pd.Index(classes, name="truth"), columns=pd.Index(cols, name="decision"),
                       fill_value=0)
