"""Compare fitted models on the same test data: :func:`compare`.

This module sits above the models (any :class:`evstat.results.Results`, K >= 2 classes) and
:mod:`evstat.metrics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.formula import code_response
from evstat.metrics import score_class_predictions, score_predictions
from evstat.results import Results

CalibrationResults = Results  # the name this module's signatures used before the K-class protocol

__all__ = ["compare", "named_fits"]


def named_fits(fits: Any) -> dict[str, CalibrationResults]:
    """``{name: results}`` from one fitted calibrator, a list (named by method; repeats get
    ``_2``, ``_3``, ...) or a dict; a clear error for anything else."""
    if isinstance(fits, Results):
        fits = [fits]
    if isinstance(fits, Mapping):
        items = [(str(k), v) for k, v in fits.items()]
    elif isinstance(fits, Sequence) and not isinstance(fits, str):
        counts: dict[str, int] = {}
        items = []
        for f in fits:
            name = getattr(f, "method", type(f).__name__)
            counts[name] = counts.get(name, 0) + 1
            items.append((name if counts[name] == 1 else f"{name}_{counts[name]}", f))
    else:
        raise TypeError(
            "fits must be a fitted calibrator (e.g. ev.evlogit(...)), a list of them or a dict "
            f"{{name: fitted calibrator}}, got {type(fits).__name__}"
        )
    if not items:
        raise ValueError("fits is empty: give at least one fitted calibrator")
    for name, f in items:
        if not isinstance(f, Results):
            raise TypeError(
                f"fits[{name!r}] is a {type(f).__name__}, not a fitted evstat calibrator (the "
                "result of ev.evlogit, ev.evbinning, ev.isotonic, ev.betacal, ev.disjoint, ...)"
            )
    return dict(items)


def compare(
    fits: Mapping[str, CalibrationResults] | Sequence[CalibrationResults],
    newdata: pd.DataFrame,
    y: str | Sequence[Any] | np.ndarray | pd.Series,
) -> pd.DataFrame:
    """Standard scores of several fitted calibrators on the same test data, one row each.

    For every calibrator, ``predict(newdata, type="belief")`` gives theta (its probabilistic
    prediction), Bel({1}) and Pl({1}); :func:`evstat.metrics.score_predictions` scores them.

    Parameters
    ----------
    fits : dict or list
        ``{name: fitted calibrator}``, or a list of fitted calibrators named by their method
        (``"evlogit"``, ``"evbinning"``, ...; repeated methods get ``_2``, ``_3``, ...).
    newdata : pandas.DataFrame
        Test data with every calibrator's score columns.
    y : str or array-like
        The observed classes: a column name of ``newdata``, or one value per row of
        ``newdata`` (a Series must have newdata's index). Values are the response levels of the
        calibration data (e.g. ``"pos"``/``"neg"``, or 0/1); the calibrators' positive level is
        coded 1.

    Returns
    -------
    pandas.DataFrame
        One row per model, in the order given: ``model`` (the name), ``method``, then, for
        three or more classes, the columns of :func:`evstat.metrics.score_class_predictions`
        (``n``, ``error_rate``, ``brier``, ``log_loss``, ``mean_ignorance``), and for two
        classes the columns of :func:`evstat.metrics.score_predictions`: ``n``, ``error_rate`` (threshold
        0.5 on theta), ``brier``, ``log_loss``, ``ece`` (all of theta), ``mean_ignorance``
        (mean Pl - Bel) and ``betp_brier`` (Brier score of BetP = (Bel + Pl) / 2). For a long
        (tidy) layout use ``.melt(id_vars=["model", "method"], var_name="metric")``.

    Raises
    ------
    ValueError
        ``y`` of the wrong length, or with values that are not response levels; calibrators
        with different classes; a calibrator that predicts NaN for some rows (e.g. empty
        bins of evbinning: refit with ``empty="prior"``).

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("pima_scores")
    >>> cal, test = d[d.set == "calibration"], d[d.set == "test"]
    >>> fits = {"logit": ev.evlogit("y ~ svm1", cal), "iso": ev.isotonic("y ~ svm1", cal)}
    >>> tab = ev.compare(fits, test, y="y")
    >>> list(tab.model), list(tab.columns[:4])
    (['logit', 'iso'], ['model', 'method', 'n', 'error_rate'])
    """
    named = named_fits(fits)
    if not isinstance(newdata, pd.DataFrame):
        raise TypeError(f"newdata must be a pandas DataFrame, got {type(newdata).__name__}")
    m = len(newdata)
    if m == 0:
        raise ValueError("newdata has 0 rows: the scores need test rows")
    if isinstance(y, str):
        if y not in newdata.columns:
            raise ValueError(f"y = {y!r} is not a column of newdata; newdata has columns {list(newdata.columns)}")
        yv = newdata[y].to_numpy()
    else:
        if isinstance(y, pd.Series) and not y.index.equals(newdata.index):
            raise ValueError("y is a Series whose index differs from newdata's: align it (y.loc[newdata.index]) or pass a column name")
        yv = np.asarray(y)
        if yv.ndim != 1 or yv.shape[0] != m:
            raise ValueError(f"y has {yv.size} values but newdata has {m} rows: give one class per row")
    first = next(iter(named.values()))
    classes = tuple(first.classes)
    for name, f in named.items():
        if tuple(f.classes) != classes:
            raise ValueError(
                f"the calibrators have different classes: {next(iter(named))!r} has {classes}, "
                f"{name!r} has {tuple(f.classes)}; compare calibrators of the same response"
            )
    codes = code_response(yv, classes, what="y", fix="give the observed classes of newdata's rows")
    y01 = codes.astype(np.int64)
    rows = []
    for name, f in named.items():
        if len(classes) > 2:
            prob = f.predict(newdata, type="prob")
            # the ignorance column of augment (m(frame) for a mass function; models without
            # K-class mass functions, e.g. evmultinom, define their own there)
            ign = f.augment(newdata)[".ignorance"].to_numpy()
            bad = np.isnan(prob.to_numpy()).any(axis=1)
            if bad.any():
                raise ValueError(
                    f"model {name!r} ({f.method}) predicts no probability for {int(bad.sum())} of {m} rows (NaN)"
                )
            row = {"model": name, "method": f.method}
            row.update(score_class_predictions(y01, prob.to_numpy(), ignorance=ign).to_dict())
            rows.append(row)
            continue
        b = f.predict(newdata, type="belief")
        th = b["theta"].to_numpy()
        nan = np.isnan(th)
        if nan.any():
            raise ValueError(
                f"calibrator {name!r} ({f.method}) predicts no probability for {int(nan.sum())} of "
                f"{m} rows (NaN, e.g. test rows in empty bins): refit it with empty='prior', or "
                "use fewer bins"
            )
        scores = score_predictions(y01, th, bel=b["bel"].to_numpy(), pl=b["pl"].to_numpy())
        row = {"model": name, "method": f.method}
        row.update(scores.to_dict())
        rows.append(row)
    out = pd.DataFrame(rows)
    if "n" in out.columns:
        out["n"] = out["n"].astype(np.int64)
    return out
