"""Predictive contour functions pl(theta | s) of chosen rows (Minary et al. 2019, Fig. 1 style)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.plotting.data import calibration_scores, predictions
from evstat.plotting._style import OKABE_ITO, finish, mpl_text, new_axes

__all__ = ["choose_rows", "predictive_contours"]

_ROW_COLORS = (OKABE_ITO["blue"], OKABE_ITO["vermillion"], OKABE_ITO["green"], OKABE_ITO["purple"],
               OKABE_ITO["orange"], OKABE_ITO["sky_blue"], OKABE_ITO["black"])
_ROW_STYLES = ("-", "--", "-.", ":")


def choose_rows(theta: pd.Series, k: int = 3) -> list[Any]:
    """Index labels of up to ``k`` rows whose theta_hat is nearest the quantiles
    ``(i + 0.5) / k`` of theta_hat (a spread of low, middle and high predictions), in order of
    theta_hat; ties go to the first row."""
    th = theta.dropna()
    if th.empty:
        return []
    values = th.to_numpy(dtype=float)
    chosen: list[int] = []
    for q in (np.arange(k) + 0.5) / k:
        target = np.quantile(values, q)
        order = np.argsort(np.abs(values - target), kind="stable")
        for i in order:
            if i not in chosen:
                chosen.append(int(i))
                break
    chosen.sort(key=lambda i: (values[i], i))
    return [th.index[i] for i in chosen]


def predictive_contours(
    results: Any,
    newdata: pd.DataFrame | None = None,
    rows: Sequence[Any] | None = None,
    ax: Any = None,
    n_rows: int = 3,
    points: int = 401,
) -> Any:
    """Predictive contour functions ``pl(theta | s)`` of a few rows.

    The contour of a row is the relative profile likelihood of theta = P(y = 1 | s) (eqs.
    41-45, 54-58 of Minary et al. 2019; Fig. 1 shows the binomial case). Its maximum 1 is at
    theta_hat (dotted line); Bel({1}) and Pl({1}) of the row are given in the legend
    (eqs. 25-26). Calibrators with such a contour implement ``predictive_contour(newdata)``
    (evlogit does).

    Parameters
    ----------
    results : CalibrationResults
        A fitted calibrator with a ``predictive_contour`` method.
    newdata : pandas.DataFrame, optional
        Rows to choose from (default: the calibration rows).
    rows : sequence of index labels, optional
        Which rows of ``newdata`` to draw; default: ``n_rows`` rows spread over theta_hat
        (:func:`choose_rows`).
    ax : matplotlib Axes, optional
    n_rows : int
        Number of rows chosen when ``rows`` is None (at most 7).
    points : int
        Number of theta values in (0, 1).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        The calibrator has no predictive contour, or unknown rows.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(40, seed=1)
    >>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
    >>> ax = ev.plotting.predictive_contours(fit, rows=[0, 1], points=51)
    >>> len(ax.get_lines()) >= 2
    True
    """
    if not results.capabilities.contours:
        raise ValueError(
            f"predictive contours need a likelihood on theta for every row, which the "
            f"{results.method} calibrator does not provide (no predictive_contour method); "
            "evlogit has one"
        )
    n_rows = int(n_rows)
    if not 1 <= n_rows <= len(_ROW_COLORS):
        raise ValueError(f"n_rows must be between 1 and {len(_ROW_COLORS)}, got {n_rows}")
    points = int(points)
    if points < 3:
        raise ValueError(f"points must be at least 3, got {points}")
    pred = predictions(results, newdata)
    if rows is None:
        labels = choose_rows(pred["theta"], n_rows)
    else:
        labels = list(rows)
        if not labels:
            raise ValueError("rows is empty: pass index labels of the rows to draw")
        if len(labels) > len(_ROW_COLORS):
            raise ValueError(f"at most {len(_ROW_COLORS)} rows can be drawn legibly, got {len(labels)}")
        unknown = [r for r in labels if r not in pred.index]
        if unknown:
            where = "the calibration data" if newdata is None else "newdata"
            raise ValueError(f"rows {unknown[:5]} are not index labels of {where}")
    positions = [pred.index.get_loc(r) for r in labels]
    source = calibration_scores(results) if newdata is None else newdata
    contour = results.predictive_contour(source.iloc[positions])
    theta = np.linspace(0.0, 1.0, points)
    curves = np.asarray(contour(theta), dtype=float)
    sel = pred.iloc[positions]

    ax = new_axes(ax, (6.4, 4.4))
    for i, lab in enumerate(labels):
        color = _ROW_COLORS[i]
        ls = _ROW_STYLES[i % len(_ROW_STYLES)]
        th, b, p = (float(sel[k].iloc[i]) for k in ("theta", "bel", "pl"))
        ax.plot(theta, curves[i], color=color, linestyle=ls, linewidth=1.8,
                label=rf"row {mpl_text(lab)}: $\hat\theta$ = {th:.3f}, Bel = {b:.3f}, Pl = {p:.3f}")
        ax.axvline(th, color=color, linestyle=":", linewidth=0.9)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.05)
    pos = mpl_text(results.positive)
    ax.set_xlabel(rf"$\theta$ = P(y = {pos} | s)")
    ax.set_ylabel(r"plausibility pl($\theta$ | s)")
    where = "calibration" if newdata is None else "new"
    ax.set_title(f"Predictive contour functions ({results.method}), {where} rows", fontsize="medium")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=1, fontsize="small", frameon=False)
    return finish(ax)
