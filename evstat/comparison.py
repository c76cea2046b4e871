"""Compare fitted models on the same test data: :func:`compare` and :func:`reject_curves`.

This module sits above the models (any :class:`evstat.results.Results`, K >= 2 classes, and the
split-conformal peer :class:`evstat.calibration.ConformalSets`) and :mod:`evstat.metrics`.

Interval predictors (every binary calibrator, Venn-ABERS included) and set predictors (the
conformal classifier) are put on the same footing through the one decision engine: the
pessimistic strategy with reject cost R_rej rejects a row when R_rej is below both 1 - Bel({1})
and Pl({1}); at R_rej = 1/2 that is exactly "the interval [Bel, Pl] straddles 1/2" (for
Venn-ABERS, [p0, p1]), and for a prediction set read as a categorical mass function it is "the set
is not a singleton" (:meth:`ConformalSets.decide`). Error-reject curves of the intervals run over
R_rej, those of the sets over the confidence level; both are drawn as accuracy (correct /
decided) against error rate (wrong / tested).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.belief import COMPARE_STRATEGIES
from evstat.calibration.peers import ConformalSets
from evstat.formula import code_response
from evstat.metrics import decision_metrics, decide_binary, reject_curve, score_class_predictions, score_predictions
from evstat.results import Results

CalibrationResults = Results  # the name this module's signatures used before the K-class protocol

__all__ = ["compare", "interval_scores", "named_fits", "reject_curves", "set_scores"]

#: the reject cost of the decision columns of :func:`compare` (reject when the interval straddles 1/2)
COMPARE_REJECT_COST = 0.5
#: default confidence levels of the conformal error-reject curves
CONFIDENCES = tuple(np.round(np.linspace(0.5, 0.99, 50), 2))


def named_fits(fits: Any) -> dict[str, CalibrationResults]:
    """``{name: results}`` from one fitted calibrator, a list (named by method; repeats get
    ``_2``, ``_3``, ...) or a dict; a clear error for anything else. A split-conformal
    classifier (:func:`evstat.split_conformal`) counts as a fitted model too."""
    if isinstance(fits, (Results, ConformalSets)):
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
        if not isinstance(f, (Results, ConformalSets)):
            raise TypeError(
                f"fits[{name!r}] is a {type(f).__name__}, not a fitted evstat calibrator (the "
                "result of ev.evlogit, ev.evbinning, ev.isotonic, ev.betacal, ev.disjoint, "
                "ev.venn_abers, ev.split_conformal, ...)"
            )
    return dict(items)


def compare(
    fits: Mapping[str, CalibrationResults] | Sequence[CalibrationResults],
    newdata: pd.DataFrame,
    y: str | Sequence[Any] | np.ndarray | pd.Series,
    truth: str | Sequence[float] | np.ndarray | pd.Series | None = None,
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
    truth : str or array-like, optional
        The true P(y = positive | s) of every row (simulated data): a column name of
        ``newdata`` or one probability per row. Adds ``coverage`` and ``mse`` (two classes).

    Returns
    -------
    pandas.DataFrame
        One row per model, in the order given: ``model`` (the name), ``method``, then, for
        three or more classes, the columns of :func:`evstat.metrics.score_class_predictions`
        (``n``, ``error_rate``, ``brier``, ``log_loss``, ``mean_ignorance``), and for two
        classes the columns of :func:`evstat.metrics.score_predictions`: ``n``, ``error_rate`` (threshold
        0.5 on theta), ``brier``, ``log_loss``, ``ece`` (all of theta), ``mean_ignorance``
        (mean Pl - Bel) and ``betp_brier`` (Brier score of BetP = (Bel + Pl) / 2); then
        ``width`` (mean width Pl - Bel of the interval, for Venn-ABERS p1 - p0; NaN for a
        conformal classifier), ``set_size`` (mean size 0, 1 or 2 of a conformal classifier's
        prediction set at its confidence; NaN for intervals), ``label_coverage`` (share of rows
        whose label is in the conformal set; NaN for intervals), ``reject_rate`` and
        ``accuracy`` of the decisions with reject at R_rej = 1/2 (pessimistic strategy: reject
        when the interval straddles 1/2, or when the set is not a singleton; accuracy = correct /
        decided), and with ``truth``: ``coverage`` (share of rows with Bel <= P(y = 1 | s) <=
        Pl; NaN for a set) and ``mse`` (mean squared error of theta against the truth). For a
        conformal classifier theta, and so ``error_rate``, ``brier``, ``log_loss``, ``ece`` and
        ``mse``, is its learner's probability. For a long (tidy) layout use
        ``.melt(id_vars=["model", "method"], var_name="metric")``.

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
    classes, y01 = _checked_labels(named, newdata, y)
    m = len(newdata)
    p_true = None if truth is None else _truth(truth, newdata, classes)
    rows = []
    for name, f in named.items():
        if isinstance(f, ConformalSets):
            rows.append({"model": name, "method": f.method, **_set_scores(f, newdata, y01, p_true)})
            continue
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
        row = {"model": name, "method": f.method}
        row.update(interval_scores(y01, th, b["bel"].to_numpy(), b["pl"].to_numpy(), p_true).to_dict())
        rows.append(row)
    out = pd.DataFrame(rows)
    if "n" in out.columns:
        out["n"] = out["n"].astype(np.int64)
    return out


def _checked_labels(named: dict[str, Any], newdata: Any, y: Any) -> tuple[tuple, np.ndarray]:
    """The models' common classes and the 0..K-1 codes of ``y`` (checks shared by
    :func:`compare` and :func:`reject_curves`)."""
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
    return classes, codes.astype(np.int64)


def _truth(truth: Any, newdata: pd.DataFrame, classes: tuple) -> np.ndarray:
    if len(classes) != 2:
        raise ValueError(f"truth (P(y = positive | s)) is defined for two classes; the calibrators have {len(classes)}")
    m = len(newdata)
    if isinstance(truth, str):
        if truth not in newdata.columns:
            raise ValueError(f"truth = {truth!r} is not a column of newdata; newdata has columns {list(newdata.columns)}")
        t = newdata[truth].to_numpy()
    else:
        if isinstance(truth, pd.Series) and not truth.index.equals(newdata.index):
            raise ValueError("truth is a Series whose index differs from newdata's: align it (truth.loc[newdata.index])")
        t = np.asarray(truth)
    try:
        t = np.asarray(t, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("truth must hold probabilities P(y = positive | s), one number per row") from None
    if t.ndim != 1 or t.shape[0] != m:
        raise ValueError(f"truth has {t.size} values but newdata has {m} rows: give one probability per row")
    bad = ~np.isfinite(t) | (t < 0) | (t > 1)
    if bad.any():
        raise ValueError(f"truth must lie in [0, 1]; {int(bad.sum())} of {m} rows do not (first at row {int(np.flatnonzero(bad)[0])})")
    return t


def _straddle_decisions(y01: np.ndarray, bel: np.ndarray, pl: np.ndarray) -> dict[str, float]:
    dm = decision_metrics(y01, decide_binary(bel, pl, "pessimistic", COMPARE_REJECT_COST))
    return {"reject_rate": float(dm["reject_rate"]), "accuracy": float(dm["accuracy"])}


def interval_scores(y: Any, theta: Any, bel: Any, pl: Any, truth: Any = None) -> pd.Series:
    """The row of :func:`compare` for an interval predictor ([Bel, Pl] with theta inside),
    from arrays: 0/1 labels, theta, Bel({1}), Pl({1}) and optionally the true P(y = 1 | s).

    Examples
    --------
    >>> r = interval_scores([0, 1], [0.3, 0.6], [0.2, 0.4], [0.4, 0.7], truth=[0.25, 0.8])
    >>> r[["width", "reject_rate", "coverage"]].round(3).to_dict()
    {'width': 0.25, 'reject_rate': 0.5, 'coverage': 0.5}
    """
    th, b, q = (np.asarray(v, dtype=np.float64) for v in (theta, bel, pl))
    y01 = np.asarray(y).astype(np.int64)
    row = score_predictions(y01, th, bel=b, pl=q).to_dict()
    row.update({"width": float(np.mean(q - b)), "set_size": np.nan, "label_coverage": np.nan})
    row.update(_straddle_decisions(y01, b, q))
    if truth is not None:
        t = np.asarray(truth, dtype=np.float64)
        row["coverage"] = float(np.mean((b <= t) & (t <= q)))
        row["mse"] = float(np.mean((th - t) ** 2))
    return pd.Series(row, dtype=float)


def set_scores(y: Any, theta: Any, sets: Any, truth: Any = None) -> pd.Series:
    """The row of :func:`compare` for a set predictor, from arrays: 0/1 labels, the learner's
    probability theta, the prediction sets (bool, columns negative and positive) and optionally
    the true P(y = 1 | s).

    Examples
    --------
    >>> import numpy as np
    >>> r = set_scores([0, 1, 1], [0.2, 0.7, 0.4], np.array([[1, 0], [1, 1], [1, 0]], dtype=bool))
    >>> r[["set_size", "label_coverage", "reject_rate", "accuracy"]].round(3).to_dict()
    {'set_size': 1.333, 'label_coverage': 0.667, 'reject_rate': 0.333, 'accuracy': 0.5}
    """
    th = np.asarray(theta, dtype=np.float64)
    y01 = np.asarray(y).astype(np.int64)
    s = np.asarray(sets, dtype=bool)
    bel, pl, size = ConformalSets.set_mass(s)
    row = score_predictions(y01, th).to_dict()
    row.update({"mean_ignorance": np.nan, "betp_brier": np.nan, "width": np.nan,
                "set_size": float(size.mean()), "label_coverage": float(np.mean(s[np.arange(y01.size), y01]))})
    row.update(_straddle_decisions(y01, bel, pl))
    if truth is not None:
        row["coverage"] = np.nan
        row["mse"] = float(np.mean((th - np.asarray(truth, dtype=np.float64)) ** 2))
    return pd.Series(row, dtype=float)


def _set_scores(f: ConformalSets, newdata: pd.DataFrame, y01: np.ndarray, p_true: np.ndarray | None) -> dict[str, float]:
    th = f.predict(newdata, type="prob").to_numpy()
    sets = f.predict(newdata, type="set").to_numpy()
    return set_scores(y01, th, sets, p_true).to_dict()


def reject_curves(
    fits: Any,
    newdata: pd.DataFrame,
    y: str | Sequence[Any] | np.ndarray | pd.Series,
    costs: Any = None,
    confidences: Sequence[float] = CONFIDENCES,
    strategies: Sequence[str] = COMPARE_STRATEGIES,
) -> pd.DataFrame:
    """Error-reject curves of calibrators and conformal classifiers on the same test data.

    A calibrator (evidential, Venn-ABERS, ...) is decided by :func:`evstat.metrics.reject_curve`
    for every strategy and reject cost; a conformal classifier by its prediction sets at every
    confidence level (a singleton is decided, any other set rejected: the pessimistic strategy
    of the same engine on the set's mass function, strategy ``"conformal"``). Draw them on the
    same axes as accuracy against error rate
    (:func:`evstat.plotting.compare_reject_curves`).

    Parameters
    ----------
    fits : dict or list
        As in :func:`compare` (two classes).
    newdata : pandas.DataFrame
    y : str or array-like
        The observed classes, as in :func:`compare`.
    costs : array-like, optional
        Reject costs of the calibrators (default ``np.linspace(0, 1, 101)``).
    confidences : sequence of float in (0, 1)
        Confidence levels of the conformal sets.
    strategies : sequence of str
        Strategies of the calibrators (:func:`evstat.metrics.reject_curve`).

    Returns
    -------
    pandas.DataFrame
        Tidy: ``model``, ``method``, ``strategy``, ``reject_cost`` (NaN for sets),
        ``confidence`` (NaN for intervals), ``error_rate``, ``accuracy``, ``reject_rate``.

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("pima_scores")
    >>> cal, test = d[d.set == "calibration"], d[d.set == "test"]
    >>> fits = {"evlogit": ev.evlogit("y ~ svm1", cal), "va": ev.venn_abers("y ~ svm1", cal)}
    >>> c = reject_curves(fits, test, "y", costs=[0.2, 0.5], strategies=["pessimistic"])
    >>> c[["model", "reject_cost"]].values.tolist()
    [['evlogit', 0.2], ['evlogit', 0.5], ['va', 0.2], ['va', 0.5]]
    """
    named = named_fits(fits)
    classes, y01 = _checked_labels(named, newdata, y)
    if len(classes) != 2:
        raise ValueError("reject curves are drawn for two classes")
    conf = [float(c) for c in confidences]
    if any(not 0.0 < c < 1.0 for c in conf):
        raise ValueError(f"confidences must lie in (0, 1), got {conf}")
    frames = []
    for name, f in named.items():
        if isinstance(f, ConformalSets):
            th = f.predict(newdata, type="prob").to_numpy()
            pv = f.p_values(newdata).to_numpy()
            rows = []
            for c in conf:
                b = ConformalSets.belief_of_sets(th, pv, c, newdata.index)
                dm = decision_metrics(y01, decide_binary(b["bel"].to_numpy(), b["pl"].to_numpy(), "pessimistic", COMPARE_REJECT_COST))
                rows.append({"strategy": "conformal", "reject_cost": np.nan, "confidence": c,
                             "error_rate": dm["error_rate"], "accuracy": dm["accuracy"], "reject_rate": dm["reject_rate"]})
            cur = pd.DataFrame(rows)
        else:
            b = f.predict(newdata, type="belief")
            cur = reject_curve(y01, b["bel"].to_numpy(), b["pl"].to_numpy(), p=b["theta"].to_numpy(),
                               costs=costs, strategies=strategies)
            cur.insert(2, "confidence", np.nan)
        cur.insert(0, "method", f.method)
        cur.insert(0, "model", name)
        frames.append(cur)
    return pd.concat(frames, ignore_index=True)[
        ["model", "method", "strategy", "reject_cost", "confidence", "error_rate", "accuracy", "reject_rate"]]
