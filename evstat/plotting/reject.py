"""Error rate and accuracy against the reject cost (Minary et al. 2019, Figs. 8-10)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat import metrics
from evstat.belief import COMPARE_STRATEGIES, MINARY_STRATEGIES
from evstat.plotting.data import data_description, evaluation_labels, predictions, rows
from evstat.plotting._style import STRATEGY_STYLE, finish, new_axes

__all__ = ["compare_reject_curves", "draw_reject_curves", "reject_curve"]



def reject_curve(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    costs: Any = None,
    strategies: Sequence[str] = MINARY_STRATEGIES,
    x: str = "reject_cost",
) -> Any:
    """Error rate and accuracy of the decision strategies as the reject cost varies.

    Decisions and rates are those of :func:`evstat.metrics.reject_curve`: error rate =
    misclassified / tested, accuracy = correct / decided (not rejected); the probabilistic
    strategy uses theta_hat. With ``x="reject_cost"`` both rates are drawn against R_rej (solid:
    error rate, dashed: accuracy; one colour per strategy). With ``x="error_rate"`` accuracy is
    drawn against error rate as R_rej runs from 0 to 1, the form of Minary et al.'s Figs. 9-10:
    at equal error the higher curve is better.

    Parameters
    ----------
    results : CalibrationResults
        Any fitted calibrator.
    newdata : pandas.DataFrame, optional
        Rows to decide (default: the calibration rows).
    y : str or array-like, optional
        Labels of ``newdata`` (default: its response column).
    ax : matplotlib Axes, optional
    costs : array-like, optional
        Reject costs (default ``np.linspace(0, 1, 101)``).
    strategies : sequence of {"pessimistic", "optimistic", "probabilistic"}
    x : {"reject_cost", "error_rate"}

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> ev.plotting.reject_curve(fit).get_xlabel()
    'reject cost $R_{rej}$ (a misclassification costs 1)'
    """
    if x not in ("reject_cost", "error_rate"):
        raise ValueError(f"x must be 'reject_cost' or 'error_rate', got {x!r}")
    labels = evaluation_labels(results, newdata, y)
    if labels is None:
        raise ValueError(
            f"the reject curve needs the observed classes of newdata, but newdata has no column "
            f"{results.response!r} and y was not given: pass y=..."
        )
    pred = predictions(results, newdata)
    theta = pred["theta"].to_numpy(dtype=float)
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    ok = np.isfinite(theta) if "probabilistic" in strategies else np.ones(theta.size, dtype=bool)
    curve = metrics.reject_curve(
        labels[ok], pred["bel"].to_numpy(dtype=float)[ok], pred["pl"].to_numpy(dtype=float)[ok],
        p=theta[ok], costs=costs, strategies=strategies,
    )
    ax = new_axes(ax, (6.4, 4.4))
    from matplotlib.lines import Line2D

    handles = []
    for s in strategies:
        st = STRATEGY_STYLE[s]
        c = curve[curve["strategy"] == s]
        if x == "reject_cost":
            ax.plot(c["reject_cost"], c["error_rate"], color=st["color"], linestyle="-", linewidth=1.8)
            ax.plot(c["reject_cost"], c["accuracy"], color=st["color"], linestyle="--", linewidth=1.8)
            handles.append(Line2D([], [], color=st["color"], linewidth=3, label=s))
        else:
            ax.plot(c["error_rate"], c["accuracy"], color=st["color"], linestyle=st["linestyle"],
                    linewidth=1.8, marker="o", markersize=2.5, label=s)
    if x == "reject_cost":
        measures = [
            Line2D([], [], color="0.3", linestyle="-", label="error rate (wrong / tested)"),
            Line2D([], [], color="0.3", linestyle="--", label="accuracy (correct / decided)"),
        ]
        # legend columns fill top to bottom: strategies on the first row, measures below
        ordered = []
        for i, h in enumerate(handles):
            ordered.append(h)
            if i < len(measures):
                ordered.append(measures[i])
        handles = ordered + measures[len(handles):]
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3,
                  fontsize="small", frameon=False)
        ax.set_xlabel(r"reject cost $R_{rej}$ (a misclassification costs 1)")
        ax.set_ylabel("rate (fraction of rows)")
        ax.set_xlim(float(curve["reject_cost"].min()), float(curve["reject_cost"].max()))
        ax.set_ylim(-0.02, 1.02)
    else:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, fontsize="small", frameon=False)
        ax.set_xlabel("error rate (wrong / tested)")
        ax.set_ylabel("accuracy (correct / decided)")
    title = f"Decisions with reject ({results.method}) on the {data_description(results, newdata)}"
    dropped = int((~ok).sum())
    if dropped:
        title += f"\n{rows(dropped)} without a probability (empty cells) left out"
    ax.set_title(title, fontsize="medium")
    return finish(ax)


def compare_reject_curves(
    fits: Any,
    newdata: pd.DataFrame,
    y: Any,
    ax: Any = None,
    costs: Any = None,
    confidences: Sequence[float] | None = None,
    strategies: Sequence[str] = COMPARE_STRATEGIES,
) -> Any:
    """Accuracy against error rate of several models on the same axes, peers included.

    The curves are those of :func:`evstat.comparison.reject_curves`: a calibrator's strategies as
    the reject cost runs from 0 to 1 (Venn-ABERS' [p0, p1] is decided like [Bel, Pl]), a
    conformal classifier's prediction sets as the confidence level varies (singletons decided,
    other sets rejected). One colour per model, one line style per strategy; at equal error the
    higher curve is better.

    Parameters
    ----------
    fits : dict or list
        Fitted calibrators and conformal classifiers (as :func:`evstat.compare`).
    newdata : pandas.DataFrame
    y : str or array-like
        Observed classes of ``newdata``.
    ax : matplotlib Axes, optional
    costs, confidences, strategies
        As in :func:`evstat.comparison.reject_curves`.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> d = ev.datasets.load("pima_scores")
    >>> cal, test = d[d.set == "calibration"], d[d.set == "test"]
    >>> fits = {"evlogit": ev.evlogit("y ~ svm1", cal), "venn-abers": ev.venn_abers("y ~ svm1", cal)}
    >>> ev.plotting.compare_reject_curves(fits, test, "y").get_xlabel()
    'error rate (wrong / tested)'
    """
    from evstat.comparison import CONFIDENCES, reject_curves

    curves = reject_curves(fits, newdata, y, costs=costs,
                           confidences=CONFIDENCES if confidences is None else confidences, strategies=strategies)
    return draw_reject_curves(
        curves, ax, f"Decisions with reject on {rows(len(newdata))}: intervals over R_rej, sets over confidence")


def draw_reject_curves(curves: pd.DataFrame, ax: Any = None, title: str = "Decisions with reject") -> Any:
    """Draw tidy error-reject curves (columns ``model``, ``strategy``, ``error_rate``,
    ``accuracy``; e.g. :func:`evstat.comparison.reject_curves` or several
    :func:`evstat.metrics.class_reject_curve` with a ``model`` column) as accuracy against error
    rate: one colour per model, one line style per strategy.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd
    >>> c = pd.DataFrame({"model": ["a", "a"], "strategy": ["pessimistic"] * 2,
    ...                   "error_rate": [0.0, 0.1], "accuracy": [1.0, 0.9]})
    >>> draw_reject_curves(c).get_ylabel()
    'accuracy (correct / decided)'
    """
    ax = new_axes(ax, (6.4, 4.6))
    styles = {**{s: str(st["linestyle"]) for s, st in STRATEGY_STYLE.items()}, "conformal": "-."}
    colours = [f"C{i}" for i in range(10)]
    for i, (model, c) in enumerate(curves.groupby("model", sort=False)):
        for strategy, cs in c.groupby("strategy", sort=False):
            ok = np.isfinite(cs["accuracy"].to_numpy(dtype=float))
            ax.plot(cs["error_rate"][ok], cs["accuracy"][ok], color=colours[i % 10],
                    linestyle=styles.get(str(strategy), "-"), linewidth=1.6, marker="o", markersize=2,
                    label=f"{model}: {strategy}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize="small", frameon=False)
    ax.set_xlabel("error rate (wrong / tested)")
    ax.set_ylabel("accuracy (correct / decided)")
    ax.set_title(title, fontsize="medium")
    return finish(ax)
