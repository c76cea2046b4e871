"""Calibration map of a one-score calibrator: theta_hat, Bel and Pl against the score."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evstat.plotting.data import (
    calibration_scores,
    evaluation_labels,
    quiet_empty_cells,
    score_columns,
)
from evstat.plotting._style import (
    BAND_COLOR,
    BEL_STYLE,
    CLASS_STYLE,
    PL_STYLE,
    THETA_STYLE,
    finish,
    mpl_text,
    new_axes,
)

__all__ = ["calibration_map"]


def calibration_map(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    grid: int = 200,
    rug: bool = True,
) -> Any:
    """Calibration map of a calibrator with one score column (J = 1).

    Draws theta_hat(s) (the probabilistic calibration), Bel({1} | s) and Pl({1} | s) on a grid of
    ``grid`` score values spanning the data, the band between Bel and Pl (the ignorance), and the
    data as a rug: rows of the negative class at the bottom, positive rows at the top.

    Parameters
    ----------
    results : CalibrationResults
        A fitted calibrator whose formula uses exactly one score column (transforms of it, such
        as ``y ~ s + I(s**2)``, are fine).
    newdata : pandas.DataFrame, optional
        Rows to show as the rug (default: the calibration rows); the grid spans the calibration
        rows and these.
    y : str or array-like, optional
        Labels of ``newdata`` for the rug colours (default: its response column if present).
    ax : matplotlib Axes, optional
    grid : int
        Number of grid points.
    rug : bool
        Draw the rug.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        When the formula uses more than one score column (use ``kind="decision_regions"``).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> ax = ev.plotting.calibration_map(fit, grid=30)
    >>> ax.get_xlabel()
    'score x1'
    """
    cols = score_columns(results)
    if len(cols) != 1:
        raise ValueError(
            f"the calibration map needs a formula with one score column, but "
            f"{results.formula!r} uses {len(cols)} ({', '.join(cols)}): use "
            "kind='decision_regions' for two scores, or 'reliability'"
        )
    grid = int(grid)
    if grid < 2:
        raise ValueError(f"grid must be at least 2 points, got {grid}")
    col = cols[0]
    cal = calibration_scores(results)
    values = cal[col].to_numpy()
    if newdata is not None:
        if col not in newdata.columns:
            raise ValueError(f"newdata lacks the score column {col!r} of formula {results.formula!r}")
        shown = pd.to_numeric(newdata[col], errors="coerce").to_numpy(dtype=float)
        labels = evaluation_labels(results, newdata, y)
        values = np.concatenate([values, shown[np.isfinite(shown)]])
    else:
        shown, labels = cal[col].to_numpy(), cal[".y"].to_numpy()
    lo, hi = float(np.min(values)), float(np.max(values))
    if hi <= lo:
        hi = lo + 1.0
    s = np.linspace(lo, hi, grid)
    with quiet_empty_cells():
        b = results.predict(pd.DataFrame({col: s}), type="belief")
    theta, bel, pl = (b[k].to_numpy(dtype=float) for k in ("theta", "bel", "pl"))

    ax = new_axes(ax, (6.4, 4.4))
    ax.fill_between(s, bel, pl, color=BAND_COLOR, alpha=0.3, linewidth=0, label="ignorance Pl - Bel")
    ax.plot(s, pl, **PL_STYLE, label=r"Pl({%s} | s)" % mpl_text(results.positive))
    ax.plot(s, theta, **THETA_STYLE, label=r"$\hat\theta$(s)")
    ax.plot(s, bel, **BEL_STYLE, label=r"Bel({%s} | s)" % mpl_text(results.positive))
    if rug:
        trans = ax.get_xaxis_transform()
        where = "calibration" if newdata is None else "new"
        for code, (y0, y1) in ((0, (0.0, 0.04)), (1, (0.96, 1.0))):
            st = CLASS_STYLE[code]
            if labels is None:
                sel = np.isfinite(shown) if code == 0 else np.zeros(shown.size, dtype=bool)
                lab = f"{where} rows (bottom rug)"
                color = "0.3"
            else:
                sel = np.isfinite(shown) & (labels == code)
                side = "bottom" if code == 0 else "top"
                lab = f"{where} rows, y = {mpl_text(results.classes[code])} ({side} rug)"
                color = st["color"]
            if sel.any():
                ax.vlines(shown[sel], y0, y1, transform=trans, color=color, linewidth=0.9, alpha=0.8, label=lab)
    ax.set_ylim(-0.06, 1.06)
    ax.set_xlim(lo, hi)
    ax.set_xlabel(f"score {mpl_text(col)}")
    ax.set_ylabel(f"probability of y = {mpl_text(results.positive)}")
    ax.set_title(f"Calibration map ({results.method})", fontsize="medium")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, fontsize="small", frameon=False)
    return finish(ax)
