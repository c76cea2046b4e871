"""Decision regions in the plane of two scores (Minary et al. 2019, Fig. 7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat import metrics
from evstat.belief import MINARY_STRATEGIES
from evstat.plotting.data import calibration_scores, evaluation_labels, quiet_empty_cells
from evstat.plotting._plane import choose_plane, held_title, new_points, on_lattice
from evstat.plotting._style import CLASS_STYLE, STRATEGY_STYLE, mpl_text, new_axes

__all__ = ["decision_regions", "strategy_costs"]

_SHADE = {  # all strategies decide negative / positive / anything else
    "negative": "#CFE6F5",
    "positive": "#FBE3B5",
    "other": "#E9E9E9",
}


def strategy_costs(theta: np.ndarray, bel: np.ndarray, pl: np.ndarray, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """Expected costs ``(cost of deciding negative, cost of deciding positive)`` with 0-1 costs.

    pessimistic: (Pl, 1 - Bel); optimistic: (Bel, 1 - Pl); probabilistic: (theta, 1 - theta)
    (Minary et al. 2019, eqs. 8-11). A row is rejected where the reject cost is below both.
    """
    if strategy == "pessimistic":
        return pl, 1.0 - bel
    if strategy == "optimistic":
        return bel, 1.0 - pl
    if strategy == "probabilistic":
        return theta, 1.0 - theta
    raise ValueError(f"strategy must be one of {MINARY_STRATEGIES}, got {strategy!r}")


def _codes(theta: np.ndarray, bel: np.ndarray, pl: np.ndarray, strategy: str, reject_cost: float) -> np.ndarray:
    """0 / 1 / 2 (= reject) per point, NaN where the strategy is undefined (theta NaN)."""
    out = np.full(theta.shape, np.nan)
    ok = np.isfinite(theta) if strategy == "probabilistic" else np.ones(theta.shape, dtype=bool)
    if ok.any():
        d = metrics.decide_binary(bel[ok], pl[ok], strategy, reject_cost, p=theta[ok] if strategy == "probabilistic" else None)
        out[ok] = np.array([2.0 if v == "reject" else float(v) for v in d])
    return out


def _has_level(z: np.ndarray, level: float) -> bool:
    z = np.ma.masked_invalid(z)
    if z.count() == 0:
        return False
    return bool(z.min() < level < z.max())


def decision_regions(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    scores: Sequence[str] | None = None,
    reject_cost: float = 0.15,
    strategies: Sequence[str] = MINARY_STRATEGIES,
    fixed: Mapping[str, float] | None = None,
    grid: int = 40,
    points: bool = True,
) -> Any:
    """Decision regions of the pessimistic, optimistic and probabilistic strategies.

    On a ``grid`` x ``grid`` lattice in the plane of two score columns (other score columns held
    at their calibration median, or at ``fixed``), each strategy decides the negative class, the
    positive class or reject at ``reject_cost`` (0-1 costs; :func:`evstat.metrics.decide_binary`).
    Each strategy's frontiers are drawn as lines (the level sets ``min(cost) = reject_cost`` and
    ``cost(positive) = cost(negative)`` of its expected costs, see :func:`strategy_costs`);
    the background is shaded where all strategies decide the negative class, all decide the
    positive class, or some strategy rejects or they disagree. As in Minary et al. (2019,
    Fig. 7) the pessimistic strategy rejects most, the optimistic least, the probabilistic one
    lies between, and the gap between the evidential frontiers widens with fewer calibration
    rows. The data (calibration rows, or ``newdata``) are drawn on top, by class.

    Parameters
    ----------
    results : CalibrationResults
        A fitted calibrator whose formula uses at least two score columns.
    newdata : pandas.DataFrame, optional
        Rows to draw as points (default: the calibration rows); the plane spans both.
    y : str or array-like, optional
        Labels of ``newdata`` (default: its response column if present).
    ax : matplotlib Axes, optional
    scores : pair of str, optional
        The two score columns spanning the plane (default: the first two of the formula).
    reject_cost : float in [0, 1]
        R_rej, the cost of rejecting a row (a misclassification costs 1).
    strategies : sequence of {"pessimistic", "optimistic", "probabilistic"}
    fixed : mapping, optional
        Values of the other score columns (default: their calibration medians).
    grid : int
        Points per axis; the evidential strategies compute Bel/Pl at grid**2 points.
    points : bool
        Draw the data.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Fewer than two score columns, unknown score names, a bad reject cost or strategy.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> ax = ev.plotting.decision_regions(fit, grid=15)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('score x1', 'score x2')
    """
    rc = float(reject_cost)
    if not 0.0 <= rc <= 1.0:
        raise ValueError(f"reject_cost must lie in [0, 1], got {reject_cost!r}")
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    for s in strategies:
        if s not in MINARY_STRATEGIES:
            raise ValueError(f"each strategy must be one of {MINARY_STRATEGIES}, got {s!r}")
    if not strategies:
        raise ValueError(f"strategies is empty; pass some of {MINARY_STRATEGIES}")
    plane = choose_plane(results, scores, fixed, grid, newdata)
    sx, sy = plane.sx, plane.sy
    if newdata is not None:
        px, py = new_points(newdata, sx, sy)
        labels = evaluation_labels(results, newdata, y)
    else:
        cal = calibration_scores(results)
        px, py, labels = cal[sx].to_numpy(), cal[sy].to_numpy(), cal[".y"].to_numpy()

    def evaluate(g: pd.DataFrame) -> pd.DataFrame:
        with quiet_empty_cells():
            if strategies == ["probabilistic"]:
                th = results.predict(g, type="prob").to_numpy(dtype=float)
                return pd.DataFrame({"theta": th, "bel": th, "pl": th})
            return results.predict(g, type="belief")

    gx, gy, frame = on_lattice(plane, grid, evaluate)
    shape = (gy.size, gx.size)
    theta = frame["theta"].to_numpy(dtype=float).reshape(shape)
    bel = frame["bel"].to_numpy(dtype=float).reshape(shape)
    pl = frame["pl"].to_numpy(dtype=float).reshape(shape)

    ax = new_axes(ax, (6.4, 5.6))
    codes = [_codes(theta.ravel(), bel.ravel(), pl.ravel(), s, rc).reshape(shape) for s in strategies]
    # Shading from continuous margins, so that region edges follow the frontier lines:
    # every strategy decides the negative class where max_s max(c0 - R, c0 - c1) <= 0, the
    # positive class where max_s max(c1 - R, c1 - c0) <= 0 (c0, c1: costs of deciding 0, 1).
    margins: dict[str, list[np.ndarray]] = {"negative": [], "positive": []}
    for s in strategies:
        c0, c1 = strategy_costs(theta, bel, pl, s)
        margins["negative"].append(np.maximum(c0 - rc, c0 - c1))
        margins["positive"].append(np.maximum(c1 - rc, c1 - c0))
    ax.set_facecolor(_SHADE["other"])
    for key in ("negative", "positive"):
        m = np.ma.masked_invalid(np.max(np.stack(margins[key]), axis=0))
        if m.count() and m.min() <= 0.0:
            ax.contourf(gx, gy, m, levels=[float(m.min()) - 1.0, 0.0], colors=[_SHADE[key]], zorder=0)
    undefined = ~np.all(np.stack([np.isfinite(c) for c in codes]), axis=0)
    if undefined.any():
        ax.contourf(gx, gy, undefined.astype(float), levels=[0.5, 1.5], colors=["white"], zorder=0.5)

    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    neg, pos = (mpl_text(c) for c in results.classes)
    handles: list[Any] = []
    for s, code in zip(strategies, codes):
        c0, c1 = strategy_costs(theta, bel, pl, s)
        st = STRATEGY_STYLE[s]
        low = np.minimum(c0, c1)
        drawn = False
        if _has_level(low, rc):
            ax.contour(gx, gy, np.ma.masked_invalid(low), levels=[rc], colors=[st["color"]],
                       linestyles=[st["linestyle"]], linewidths=1.8, zorder=2)
            drawn = True
        diff = np.ma.masked_where(~np.isfinite(low) | (low > rc), c1 - c0)
        if _has_level(diff.filled(np.nan), 0.0):
            ax.contour(gx, gy, diff, levels=[0.0], colors=[st["color"]],
                       linestyles=[st["linestyle"]], linewidths=1.8, zorder=2)
            drawn = True
        label = f"{s} frontier"
        seen = np.unique(code[np.isfinite(code)])
        if not drawn and seen.size == 1:
            where = "everywhere" if np.isfinite(code).all() else "wherever defined"
            label += {0.0: f" (none: decides {neg} {where})", 1.0: f" (none: decides {pos} {where})",
                      2.0: f" (none: rejects {where})"}[float(seen[0])]
        handles.append(Line2D([], [], color=st["color"], linestyle=st["linestyle"], linewidth=1.8, label=label))
    handles += [
        Patch(facecolor=_SHADE["negative"], edgecolor="0.6", label=f"all decide {neg}"),
        Patch(facecolor=_SHADE["positive"], edgecolor="0.6", label=f"all decide {pos}"),
        Patch(facecolor=_SHADE["other"], edgecolor="0.6", label="some reject or disagree"),
    ]
    if undefined.any():
        handles.append(Patch(facecolor="white", edgecolor="0.6", label="no probability (empty cell)"))
    if points:
        fin = np.isfinite(px) & np.isfinite(py)
        where = "calibration" if newdata is None else "new"
        if labels is None:
            ax.scatter(px[fin], py[fin], s=16, color="0.3", edgecolors="white", linewidths=0.4, zorder=3)
            handles.append(Line2D([], [], color="0.3", marker="o", linestyle="", label=f"{where} rows"))
        else:
            for k in (0, 1):
                st = CLASS_STYLE[k]
                sel = fin & (labels == k)
                ax.scatter(px[sel], py[sel], s=18, color=st["color"], marker=st["marker"],
                           edgecolors="black", linewidths=0.4, zorder=3)
                handles.append(Line2D([], [], color=st["color"], marker=st["marker"], markeredgecolor="black",
                                      markeredgewidth=0.4, linestyle="",
                                      label=f"{where} rows, y = {mpl_text(results.classes[k])}"))
    ax.set_xlim(gx[0], gx[-1])
    ax.set_ylim(gy[0], gy[-1])
    ax.set_xlabel(f"score {mpl_text(sx)}")
    ax.set_ylabel(f"score {mpl_text(sy)}")
    title = held_title(f"Decision regions ({results.method}), reject cost $R_{{rej}}$ = {rc:g}", plane)
    ax.set_title(title, fontsize="medium")
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2,
              fontsize="small", frameon=False)
    return ax
