"""The calibration belt of a fitted two-class model (Nattino, Finazzi and Bertolini 2014): the
evaluation rows, their labels and probabilities, handed to :func:`evstat.metrics.calibration_belt`
(where the mathematics is), and its figure.

``ev.calibration_belt(fit, newdata)`` lives here, next to the helpers that find a model's
evaluation rows and labels (:mod:`evstat.plotting.data`), so that the figure ``fit.plot("belt")``
and the report use the same rows as the other figures.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evstat.metrics.belt import CalibrationBelt, level_name
from evstat.metrics.belt import calibration_belt as belt_of_arrays
from evstat.plotting.data import data_description, evaluation_labels, predictions, rows
from evstat.plotting._style import BAND_COLOR, OKABE_ITO, finish, mpl_text, new_axes

__all__ = ["belt_diagram", "calibration_belt"]


def _is_logistic(results: Any) -> bool:
    """A maximum-likelihood logistic regression with an intercept (evlogit): the models whose
    belt on their own calibration rows is the "internal" one (b_0 = 0, b_1 = 1 at the maximum)."""
    params = getattr(results, "params", None)
    return results.method == "evlogit" and params is not None and "Intercept" in getattr(params, "index", ())


def calibration_belt(
    results: Any,
    newdata: pd.DataFrame | None = None,
    *,
    y: Any = None,
    devel: str | None = None,
    q: float = 0.95,
    levels: tuple[float, ...] = (0.8, 0.95),
    n_points: int = 200,
) -> CalibrationBelt:
    """The calibration belt and test of a fitted two-class model on labelled rows.

    Parameters
    ----------
    results : evstat.results.Results
        A fitted two-class model (any: evlogit, evbinning, isotonic, ...).
    newdata : pandas.DataFrame, optional
        Rows with outcomes (default: the calibration rows).
    y : str or array-like, optional
        Labels of ``newdata`` (default: its response column).
    devel : {"external", "internal"}, optional
        Default: "external" for ``newdata``; on the calibration rows "internal" for evlogit (a
        logistic regression with an intercept, which the internal test assumes) and "external"
        for the other models (optimistic there: the rows were used to fit the model).
    q, levels, n_points
        As :func:`evstat.metrics.calibration_belt`.

    Returns
    -------
    evstat.metrics.CalibrationBelt

    Notes
    -----
    The belt regresses on logit(theta_hat), so rows whose probability is exactly 0 or 1 (cell
    calibrators such as isotonic regression give them) or undefined (empty cells) cannot enter
    it: they are left out, and the belt's ``label`` (the figure's subtitle, the report's caption)
    says how many, and how many of the certain ones the outcome contradicts.

    Raises
    ------
    ValueError
        A model with more than two classes, or rows without labels.

    Examples
    --------
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(300, seed=1)
    >>> test = ev.datasets.simulate_gaussian(300, seed=2)
    >>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
    >>> belt = ev.calibration_belt(fit, test, n_points=20)
    >>> belt.devel, belt.degree, belt.pvalue > 0.05
    ('external', 1, True)
    """
    if not results.is_binary:
        raise ValueError(
            f"the calibration belt is a two-class diagnostic; this {results.method} fit has "
            f"{results.n_classes} classes {list(results.classes)}"
        )
    labels = evaluation_labels(results, newdata, y)
    if labels is None:
        raise ValueError(
            f"the calibration belt needs the observed classes of newdata, but newdata has no "
            f"column {results.response!r} and y was not given: pass y=..."
        )
    theta = predictions(results, newdata)["theta"].to_numpy(dtype=float)
    missing = ~np.isfinite(theta)
    certain = np.isin(theta, (0.0, 1.0))
    ok = ~missing & ~certain
    label = f"{results.method} on the {data_description(results, newdata)}"
    if missing.any():
        label += f"; {rows(int(missing.sum()))} without a probability (empty cells) left out"
    if certain.any():
        wrong = int(np.sum(certain & (theta != labels)))
        label += (f"; {rows(int(certain.sum()))} with theta_hat exactly 0 or 1 left out (logit infinite), "
                  f"{wrong} of them contradicted by the outcome")
    if devel is None:
        devel = "internal" if newdata is None and _is_logistic(results) else "external"
    return belt_of_arrays(labels[ok], theta[ok], devel=devel, q=q, levels=levels, n_points=n_points,
                          label=label)


def belt_diagram(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    belt: CalibrationBelt | None = None,
    **kwargs: Any,
) -> Any:
    """Draw the calibration belt: the 80% and 95% belts around the bisector, with m, T, p and n.

    Parameters
    ----------
    results : evstat.results.Results
        A fitted two-class model.
    newdata, y
        Labelled rows, as :func:`calibration_belt` (default: the calibration rows).
    ax : matplotlib Axes, optional
    belt : CalibrationBelt, optional
        A belt already computed (the report passes its own); default: computed here.
    **kwargs
        Passed to :func:`calibration_belt` (``devel=``, ``levels=``, ``n_points=``, ``q=``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(200, seed=1))
    >>> ax = fit.plot("belt", newdata=ev.datasets.simulate_gaussian(200, seed=2), n_points=20)
    >>> ax.get_title().startswith("Calibration belt")
    True
    """
    if belt is None:
        belt = calibration_belt(results, newdata, y=y, **kwargs)
    ax = new_axes(ax, (6.0, 5.0))
    b = belt.belts
    shades = np.linspace(0.35, 0.8, len(belt.levels))
    # widest belt first, so that the narrower one is drawn on top of it
    for level, alpha in zip(sorted(belt.levels, reverse=True), shades):
        name = level_name(level)
        ax.fill_between(b["p"], b[f"lower{name}"], b[f"upper{name}"], color=BAND_COLOR, alpha=alpha,
                        linewidth=0, label=f"{name}% belt")
    ax.plot([0, 1], [0, 1], color=OKABE_ITO["vermillion"], linestyle="--", linewidth=1.2,
            label="perfect calibration (bisector)")
    p_text = "< 0.001" if belt.pvalue < 0.001 else f"{belt.pvalue:.3f}"
    ax.text(0.03, 0.97, f"polynomial degree m = {belt.degree}\nT = {belt.statistic:.2f}, p-value {p_text}\n"
            f"n = {belt.n} ({belt.devel})", transform=ax.transAxes, va="top", ha="left", fontsize="small",
            bbox={"facecolor": "white", "edgecolor": "0.8", "alpha": 0.9})
    pos = mpl_text(results.positive)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(rf"predicted probability $\hat\theta$ = P(y = {pos} | s)")
    ax.set_ylabel(f"recalibrated probability of y = {pos}")
    ax.set_title(f"Calibration belt ({results.method}) on the {data_description(results, newdata)}",
                 fontsize="medium")
    ax.legend(loc="lower right", fontsize="small", framealpha=0.9)
    return finish(ax)
