"""Continue a calibration with newly labelled rows: refit with the same formula and options.

:func:`update` rebuilds the calibration data of a fit from its model frame (the raw columns the
formula used and the response, in its original levels), appends the new rows and refits with
the calibrator's own function and the options the fit was made with: ``fit.refit(grown)``, for
the models that declare ``capabilities.refit`` (the registry is the list: evlogit, evbinning,
isotonic today; evbinning cuts a ``"uniform"`` or ``"quantile"`` axis again on the grown data
and keeps given cut points). When the formula is the score columns as they are
(``y ~ s1 + s2``), the grown rows go to the refit as arrays
(:class:`evstat.formula.arrays.ArrayData`): no formula is parsed again.

Any other calibrator (or other options) needs ``refit=``, a callable ``DataFrame -> fit``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from evstat.formula.arrays import ArrayData, plain_formula
from evstat.results import registered

__all__ = ["labelled_data", "update"]


def labelled_data(fit: Any) -> pd.DataFrame:
    """The calibration data of ``fit`` as a DataFrame: the raw columns its formula used and the
    response column in its original levels, with the model frame's index.

    Examples
    --------
    >>> import evstat as ev
    >>> from evstat.active import labelled_data
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(20, seed=1))
    >>> list(labelled_data(fit).columns), len(labelled_data(fit))
    (['x1', 'y'], 20)
    """
    out = fit.training_data()
    pos = fit.classes[1]
    if isinstance(pos, (bool, np.bool_)):
        out[fit.response] = out[fit.response].astype(bool)
    return out


def _refit(fit: Any, data: pd.DataFrame) -> Any:
    """``fit.refit(data)`` (the models that declare ``capabilities.refit``), or an error naming
    them and ``refit=``."""
    caps = getattr(fit, "capabilities", None)
    if caps is None or not caps.refit:
        have = ", ".join(m for m, c in registered().items() if c.capabilities.refit)
        raise ValueError(
            f"update() knows how to refit {have} fits, not {getattr(fit, 'method', None)!r}: pass "
            "refit=, a function that fits the grown data (e.g. refit=lambda d: ev.disjoint(formula, d))"
        )
    return fit.refit(_arrays(fit, data))


def _arrays(fit: Any, data: pd.DataFrame) -> Any:
    """The grown data as arrays (:class:`evstat.formula.arrays.ArrayData`) when the fit's formula
    is its score columns as they are (``y ~ s1 + s2``): the refit builds its frame from them, no
    formula parsed. A formula with transforms or factors keeps the DataFrame (the formula is the
    only description of its terms)."""
    cols = list(fit.score_columns)
    if plain_formula(fit.response, cols) != fit.formula:
        return data
    return ArrayData(data[cols], data[fit.response], response=fit.response)


def update(fit: Any, rows: pd.DataFrame, refit: Callable[[pd.DataFrame], Any] | None = None) -> Any:
    """Refit ``fit`` on its calibration data plus the newly labelled ``rows``.

    Parameters
    ----------
    fit : CalibrationResults
        A fitted binary calibrator.
    rows : pandas.DataFrame
        New labelled rows: the response column (levels among ``fit.classes``) and the columns
        the formula uses. Their index must not clash with the calibration rows' index.
    refit : callable, optional
        ``DataFrame -> fit``; default: the calibrator's own function with the fit's options (see
        the module docstring).

    Returns
    -------
    CalibrationResults
        A new fit; ``fit`` is unchanged.

    Examples
    --------
    >>> import evstat as ev
    >>> from evstat.active import update
    >>> data = ev.datasets.simulate_gaussian(30, seed=3)
    >>> fit = ev.evlogit("y ~ x1", data=data.iloc[:20])
    >>> update(fit, data.iloc[20:]).nobs
    30
    """
    if not isinstance(rows, pd.DataFrame):
        raise TypeError(f"rows must be a pandas DataFrame, got {type(rows).__name__}")
    old = labelled_data(fit)
    need = list(old.columns)
    absent = [c for c in need if c not in rows.columns]
    if absent:
        raise ValueError(
            f"the new rows lack the column(s) {absent} that the fit uses ({need}); add them "
            "(the response column holds the oracle's labels)"
        )
    labels = rows[fit.response]
    bad = ~labels.isin(list(fit.classes))
    if bad.any():
        raise ValueError(
            f"{int(bad.sum())} new row(s) have a response {fit.response!r} outside the classes "
            f"{list(fit.classes)} (index {list(rows.index[bad.to_numpy()][:5])}, values "
            f"{list(labels[bad].unique()[:5])}): label them with one of the classes"
        )
    clash = rows.index.intersection(old.index)
    if len(clash):
        raise ValueError(
            f"{len(clash)} new row(s) reuse index labels of the calibration rows "
            f"({list(clash[:5])}): a row cannot be labelled twice; give the new rows fresh index labels"
        )
    grown = pd.concat([old, rows[need]], axis=0)
    return refit(grown) if refit is not None else _refit(fit, grown)
