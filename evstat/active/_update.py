"""Continue a calibration with newly labelled rows: refit with the same formula and options.

:func:`update` rebuilds the calibration data of a fit from its model frame (the raw columns the
formula used and the response, in its original levels), appends the new rows and refits with
the calibrator's own function and the options the fit was made with:

========== ===================================================================================
method      refit
========== ===================================================================================
evlogit     ``evlogit(formula, grown, targets=fit.targets, positive=fit.positive)``
evbinning   ``evbinning(formula, grown, bins=fit.bins, breaks=..., empty=fit.empty)``: an axis
            cut ``"uniform"`` or ``"quantile"`` is cut again on the grown data (its cut points
            move when a new row lies outside the calibration range); an axis whose cut points
            were given keeps them
isotonic    ``isotonic(formula, grown, positive=fit.positive)``
========== ===================================================================================

Any other calibrator (or other options) needs ``refit=``, a callable ``DataFrame -> fit``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

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


def _refit_binning(formula: str, data: pd.DataFrame, fit: Any) -> Any:
    from evstat.calibration import evbinning

    breaks: list[Any] = []
    for method, cuts in zip(fit.axis_methods, fit.cuts.values()):
        breaks.append(np.asarray(cuts) if method == "given" else method)
    return evbinning(formula, data, bins=list(fit.dims), breaks=breaks, empty=fit.empty,
                     positive=fit.positive)


def _refit(fit: Any, data: pd.DataFrame) -> Any:
    from evstat.calibration import evlogit, isotonic

    method = getattr(fit, "method", None)
    if method == "evlogit":
        return evlogit(fit.formula, data, targets=fit.targets, positive=fit.positive)
    if method == "evbinning":
        return _refit_binning(fit.formula, data, fit)
    if method == "isotonic":
        return isotonic(fit.formula, data, positive=fit.positive)
    raise ValueError(
        f"update() knows how to refit evlogit, evbinning and isotonic fits, not {method!r}: pass "
        "refit=, a function that fits the grown data (e.g. refit=lambda d: ev.disjoint(formula, d))"
    )


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
