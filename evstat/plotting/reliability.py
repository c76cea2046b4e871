"""Reliability diagram with the [Bel, Pl] band and a histogram of the predictions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evstat import metrics
from evstat.plotting.data import data_description, evaluation_labels, predictions, rows
from evstat.plotting._style import BAND_COLOR, OKABE_ITO, finish, mpl_text, new_axes

__all__ = ["reliability_diagram"]


def reliability_diagram(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    bins: int = 10,
    strategy: str = "uniform",
    level: float = 0.95,
    hist: bool = True,
) -> Any:
    """Reliability diagram: observed frequency of the positive class against theta_hat per bin.

    Rows are binned on the probabilistic calibration theta_hat (``metrics.reliability_table``).
    Per bin the plot shows the observed frequency of y = 1 with its Wilson interval, and the
    interval [mean Bel({1}), mean Pl({1})] of the bin's rows as a shaded band
    (``metrics.interval_coverage``): a well-calibrated evidential prediction has the observed
    frequency inside the band. The diagonal is perfect calibration. A histogram of theta_hat in
    the same bins (right axis, rows per bin, counted as the reliability table counts them) sits
    at the bottom.

    Parameters
    ----------
    results : CalibrationResults
        Any fitted evstat calibrator.
    newdata : pandas.DataFrame, optional
        Rows to evaluate (default: the calibration rows).
    y : str or array-like, optional
        Labels of ``newdata`` (a column name, the response levels or 0/1 codes); default: the
        formula's response column of ``newdata``.
    ax : matplotlib Axes, optional
        Where to draw; default a new figure.
    bins : int
        Number of reliability bins.
    strategy : {"uniform", "quantile"}
        Equal-width or equal-mass bins.
    level : float
        Confidence level of the Wilson intervals.
    hist : bool
        Draw the histogram of theta_hat.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        When ``newdata`` has no labels (no response column and no ``y``).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(40, seed=1)
    >>> fit = ev.evlogit("y ~ x1", data=cal)
    >>> ax = ev.plotting.reliability_diagram(fit, bins=5)
    >>> ax.get_xlabel().startswith("predicted probability")
    True
    """
    labels = evaluation_labels(results, newdata, y)
    if labels is None:
        raise ValueError(
            f"the reliability diagram needs the observed classes of newdata, but newdata has no "
            f"column {results.response!r} and y was not given: pass y=..."
        )
    pred = predictions(results, newdata)
    theta = pred["theta"].to_numpy(dtype=float)
    ok = np.isfinite(theta)
    yy, th = labels[ok], theta[ok]
    bel, pl = pred["bel"].to_numpy(dtype=float)[ok], pred["pl"].to_numpy(dtype=float)[ok]
    if th.size == 0:
        raise ValueError("no row has a defined probability theta_hat: nothing to plot")
    rt = metrics.reliability_table(yy, th, bins=bins, strategy=strategy, level=level)
    cov = metrics.interval_coverage(yy, bel, pl, th, bins=bins, strategy=strategy)

    ax = new_axes(ax, (6.0, 5.0))
    pos = mpl_text(results.positive)
    if hist:
        ax2 = ax.twinx()
        # the diagram's own bins (edges and right-closed counts of the reliability table)
        every = metrics.reliability_table(yy, th, bins=bins, strategy=strategy, level=level, drop_empty=False)
        counts = every["n"].to_numpy(dtype=float)
        lower, upper = every["lower"].to_numpy(dtype=float), every["upper"].to_numpy(dtype=float)
        ax2.bar(lower, counts, width=upper - lower, align="edge", color="0.55", alpha=0.35,
                edgecolor="white", linewidth=0.5)
        top = max(float(np.max(counts)), 1.0)
        ax2.set_ylim(0.0, top * 4.0)
        ticks = np.unique(np.round(np.linspace(0.0, top, 3)))
        ax2.set_yticks(ticks)
        ax2.set_ylabel(r"rows per $\hat\theta$ bin (histogram)", color="0.35")
        ax2.tick_params(axis="y", colors="0.35")
        ax.set_zorder(ax2.get_zorder() + 1)
        ax.patch.set_visible(False)
    ax.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=1.0, label="perfect calibration")
    x = cov["mean_prediction"].to_numpy()
    if x.size >= 2:
        ax.fill_between(x, cov["mean_bel"].to_numpy(), cov["mean_pl"].to_numpy(), color=BAND_COLOR,
                        alpha=0.3, linewidth=0)
    ax.vlines(x, cov["mean_bel"].to_numpy(), cov["mean_pl"].to_numpy(), color=BAND_COLOR, linewidth=7,
              alpha=0.75, label="mean [Bel, Pl] of the bin")
    obs = rt["observed_frequency"].to_numpy()
    err = np.vstack([obs - rt["wilson_lower"].to_numpy(), rt["wilson_upper"].to_numpy() - obs])
    ax.errorbar(rt["mean_prediction"].to_numpy(), obs, yerr=np.maximum(err, 0.0), color=OKABE_ITO["black"],
                marker="o", markersize=5, linewidth=1.2, capsize=3,
                label=f"observed frequency ({level:.0%} Wilson)")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(rf"predicted probability $\hat\theta$ = P(y = {pos} | s)")
    ax.set_ylabel(f"observed frequency of y = {pos}")
    title = f"Reliability ({results.method}) on the {data_description(results, newdata)}"
    dropped = int((~ok).sum())
    if dropped:
        title += f"\n{rows(dropped)} without a probability (empty cells) left out"
    ax.set_title(title, fontsize="medium")
    ax.legend(loc="upper left", fontsize="small", framealpha=0.9)
    return finish(ax)
