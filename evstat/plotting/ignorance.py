"""Histogram of the ignorance m({0,1}) = Pl({1}) - Bel({1})."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evstat.plotting.data import data_description, predictions
from evstat.plotting._style import BAND_COLOR, OKABE_ITO, finish, new_axes

__all__ = ["ignorance_histogram"]


def ignorance_histogram(
    results: Any,
    newdata: pd.DataFrame | None = None,
    ax: Any = None,
    bins: int = 20,
) -> Any:
    """Histogram of the ignorance ``m({0,1}) = Pl({1}) - Bel({1})`` of the rows.

    The ignorance is the mass the evidential calibration cannot assign to either class; it
    shrinks as the calibration set grows (roughly like 1/sqrt(n)) and is largest for score
    vectors far from the calibration data. The mean and the median are marked.

    Parameters
    ----------
    results : CalibrationResults
        Any fitted calibrator.
    newdata : pandas.DataFrame, optional
        Rows to evaluate (default: the calibration rows).
    ax : matplotlib Axes, optional
    bins : int
        Number of histogram bins between 0 and the largest ignorance.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> ev.plotting.ignorance_histogram(fit).get_ylabel()
    'rows'
    """
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins}")
    pred = predictions(results, newdata)
    ign = (pred["pl"] - pred["bel"]).to_numpy(dtype=float)
    if ign.size == 0:
        raise ValueError("no rows to plot: newdata is empty")
    top = float(ign.max())
    edges = np.linspace(0.0, top if top > 0 else 1e-3, bins + 1)
    ax = new_axes(ax, (6.0, 4.0))
    ax.hist(ign, bins=edges, color=BAND_COLOR, edgecolor="white", linewidth=0.6)
    mean, med = float(ign.mean()), float(np.median(ign))
    ax.axvline(mean, color=OKABE_ITO["vermillion"], linestyle="-", linewidth=1.6, label=f"mean {mean:.3f}")
    ax.axvline(med, color=OKABE_ITO["black"], linestyle="--", linewidth=1.4, label=f"median {med:.3f}")
    ax.set_xlabel("ignorance m({0,1}) = Pl - Bel (probability)")
    ax.set_ylabel("rows")
    ax.set_title(f"Ignorance ({results.method}) on the {data_description(results, newdata)}",
                 fontsize="medium")
    ax.legend(loc="upper right", fontsize="small", framealpha=0.9)
    return finish(ax)
