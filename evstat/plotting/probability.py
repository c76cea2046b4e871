"""Figures of class probabilities (any number of classes): the ternary plot of three classes
(Gebel 2009, Fig. 2.1), top-label and classwise reliability diagrams, class-conditional score
densities.

Every function takes a fitted model (any :class:`evstat.results.Results`; a binary one gives
the two columns [1 - theta, theta]), optional ``newdata`` with labels (``y``: a column name or
one label per row; default the formula's response column) and an optional ``ax``, and returns the
Axes. Without ``newdata`` the training rows and their labels are used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evstat import metrics
from evstat.plotting.data import data_description, predictions
from evstat.plotting._style import BAND_COLOR, OKABE_ITO, finish, mpl_text, new_axes
from evstat.plotting._class_regions import class_codes, class_colors

__all__ = [
    "BAND_ROWS",
    "BAND_SEARCH",
    "belief_rows",
    "class_band",
    "class_belief",
    "class_codes",
    "class_probabilities",
    "class_reliability_diagram",
    "score_densities",
    "ternary_coordinates",
    "ternary_plot",
]

_MARKERS = ("o", "^", "s", "D", "v", "P", "X", "*")
#: a model whose Bel/Pl of one row are a search over more than this many parameters
#: (``belief_search_size``: evmultinom, matrix, vector scaling and Dirichlet calibration at ten
#: classes; not temperature, nor any of them at K = 3 or 4 on a few scores) gets its [Bel, Pl]
#: bands from at most :data:`BAND_ROWS` rows
BAND_SEARCH = 16
#: rows whose Bel/Pl such a model computes for a figure or a report: at K = 10, J = 10 (99
#: parameters) evmultinom takes 0.3 s to 5 s of CPU per row in this release (issue 36)
BAND_ROWS = 24
#: classwise reliability of more classes than this is drawn as one small panel per class
CLASSWISE_PANELS = 4
_SQRT3_2 = float(np.sqrt(3.0) / 2.0)


def class_probabilities(results: Any, newdata: pd.DataFrame | None = None) -> pd.DataFrame:
    """The (N, K) class probabilities of the rows (one column per class, in frame order)."""
    p = results.predict(newdata, type="prob")
    if isinstance(p, pd.Series):  # a binary model: theta = P(positive)
        th = p.to_numpy(dtype=float)
        return pd.DataFrame({results.classes[0]: 1.0 - th, results.classes[1]: th}, index=p.index)
    return p


def class_belief(results: Any, newdata: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(theta, bel, pl)``: arrays (N, K) of P(k | x), Bel({k}) and Pl({k}) of every class in
    frame order, from one ``predict(type="belief")`` (computed once per rows within
    :func:`evstat.plotting.data.prediction_cache`). A binary model gives both classes
    (Bel({0}) = 1 - Pl({1}), Pl({0}) = 1 - Bel({1})).

    Examples
    --------
    >>> import evstat as ev
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl",
    ...                                                 "petal width (cm)": "pw"})
    >>> theta, bel, pl = class_belief(ev.eknn("y ~ pl + pw", iris, k=7))
    >>> theta.shape, bool((bel <= theta).all() and (theta <= pl).all())
    ((150, 3), True)
    """
    b = predictions(results, newdata)
    if not isinstance(b.columns, pd.MultiIndex):
        th, be, p = (b[c].to_numpy(dtype=float) for c in ("theta", "bel", "pl"))
        return np.column_stack([1.0 - th, th]), np.column_stack([1.0 - p, be]), np.column_stack([1.0 - be, p])
    return tuple(b[s].to_numpy(dtype=float) for s in ("theta", "bel", "pl"))


def belief_rows(results: Any, newdata: pd.DataFrame | None = None) -> np.ndarray | None:
    """The rows whose Bel/Pl a figure or the report computes: None for all of them, unless the
    model's bounds of one row are a search over more than :data:`BAND_SEARCH` parameters
    (``results.belief_search_size``) and there are more than :data:`BAND_ROWS` rows; then the
    positions (sorted) of :data:`BAND_ROWS` rows spread evenly over the rows ranked by their
    confidence max_k P(k | x) (deterministic, no seed: every confidence range keeps its share
    of the rows, so every reliability bin with many rows gets some).

    Examples
    --------
    >>> import evstat as ev
    >>> d = ev.datasets.load("digits_logits")
    >>> cal = d[d["set"] == "calibration"]
    >>> form = "y ~ " + " + ".join(f"logit_{k}" for k in range(10))
    >>> belief_rows(ev.temperature(form, cal)) is None
    True
    >>> belief_rows(ev.evmultinom(form, cal)).size
    24
    """
    if int(getattr(results, "belief_search_size", 0) or 0) <= BAND_SEARCH:
        return None
    P = class_probabilities(results, newdata).to_numpy(dtype=float)
    n = P.shape[0]
    if n <= BAND_ROWS:
        return None
    conf = np.where(np.isfinite(P).all(axis=1), np.max(P, axis=1), -np.inf)
    order = np.argsort(conf, kind="stable")
    return np.sort(order[np.linspace(0, n - 1, BAND_ROWS).round().astype(np.intp)])


def band_data(results: Any, newdata: pd.DataFrame | None, rows: np.ndarray) -> pd.DataFrame:
    """The rows ``rows`` of ``newdata`` (else of the calibration rows' score columns) as a
    DataFrame, the same object for the same arguments within a prediction cache (so that its
    belief is computed once)."""
    from evstat.plotting.data import _CACHE, calibration_scores

    cache = _CACHE.get()
    key: Any = ("band", id(results), id(newdata))
    if cache is not None and key in cache:
        return cache[key][2]
    src = calibration_scores(results).drop(columns=".y") if newdata is None else newdata
    sub = src.iloc[rows]
    if cache is not None:
        cache[key] = (results, newdata, sub)
    return sub


def class_band(results: Any, newdata: pd.DataFrame | None = None) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, theta, bel, pl)``: :func:`class_belief` of the rows :func:`belief_rows` picks
    (``rows`` None: every row, as :func:`class_belief`; else their positions in ``newdata``,
    or in the calibration rows).

    Examples
    --------
    >>> import evstat as ev
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl",
    ...                                                 "petal width (cm)": "pw"})
    >>> rows, theta, bel, pl = class_band(ev.eknn("y ~ pl + pw", iris, k=7))
    >>> rows is None, theta.shape
    (True, (150, 3))
    """
    rows = belief_rows(results, newdata)
    if rows is None:
        return (None, *class_belief(results, newdata))
    return (rows, *class_belief(results, band_data(results, newdata, rows)))


def _need_labels(codes: np.ndarray | None, results: Any, what: str) -> np.ndarray:
    if codes is None:
        raise ValueError(
            f"the {what} needs the observed classes of newdata, but newdata has no column "
            f"{results.response!r} and y was not given: pass y=..."
        )
    return codes


def ternary_coordinates(p: Any) -> tuple[np.ndarray, np.ndarray]:
    """Barycentric coordinates of three-class probability vectors: class 1 at the lower left
    (0, 0), class 2 at the top (1/2, sqrt(3)/2), class 3 at the lower right (1, 0), as Gebel's
    Fig. 2.1.

    Examples
    --------
    >>> x, y = ternary_coordinates([[1, 0, 0], [0, 1, 0], [1 / 3, 1 / 3, 1 / 3]])
    >>> x.round(4).tolist(), y.round(4).tolist()
    ([0.0, 0.5, 0.5], [0.0, 0.866, 0.2887])
    """
    P = np.asarray(p, dtype=float)
    return 0.5 * P[:, 1] + P[:, 2], _SQRT3_2 * P[:, 1]


def ternary_plot(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    gridlines: int = 5,
) -> Any:
    """Ternary (barycentric) plot of the class probabilities of a three-class model.

    Every row is a point of the triangle spanned by the corners (1, 0, 0), (0, 1, 0), (0, 0, 1)
    (Gebel 2009, section 2.3 and Fig. 2.1): the closer to a corner, the higher that class's
    probability. The thick lines from the centre to the edge midpoints are the decision borders
    of the argmax rule (two classes tie there), so the triangle falls into one sector per
    assigned class. The marker shows the assigned class and the colour the observed class (a
    marker in a sector of another colour is a misclassified row); thin grid lines mark constant
    probabilities in steps of 1/``gridlines``.

    Parameters
    ----------
    results : Results
        A fitted model with three classes.
    newdata : pandas.DataFrame, optional
        Rows to draw (default: the training rows).
    y : str or array-like, optional
        Observed classes of ``newdata`` (default: its response column; without labels all
        points are grey).
    ax : matplotlib Axes, optional
    gridlines : int
        Grid lines per side (0: none).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl",
    ...                                                 "petal width (cm)": "pw"})
    >>> fit = ev.eknn("y ~ pl + pw", iris, k=7)
    >>> ax = ev.plotting.ternary_plot(fit)
    >>> ax.get_title().startswith("Class probabilities (eknn)")
    True
    """
    from matplotlib.lines import Line2D

    if results.n_classes != 3:
        raise ValueError(
            f"the ternary plot shows three classes, but this {results.method} fit has "
            f"{results.n_classes} classes {list(results.classes)}: use kind='class_reliability'"
        )
    P = class_probabilities(results, newdata).to_numpy(dtype=float)
    codes = class_codes(results, newdata, y)
    x, h = ternary_coordinates(P)
    assigned = np.argmax(P, axis=1)
    classes = list(results.classes)
    colors = class_colors(classes)
    ax = new_axes(ax, (6.0, 5.6))
    corners = np.array([[0.0, 0.0], [0.5, _SQRT3_2], [1.0, 0.0], [0.0, 0.0]])
    for g in range(1, max(int(gridlines), 0)):
        t = g / gridlines
        for a, b in (((t, 0, 1 - t), (t, 1 - t, 0)), ((0, t, 1 - t), (1 - t, t, 0)), ((0, 1 - t, t), (1 - t, 0, t))):
            gx, gy = ternary_coordinates([a, b])
            ax.plot(gx, gy, color="0.88", linewidth=0.6, zorder=0)
    ax.plot(corners[:, 0], corners[:, 1], color="0.2", linewidth=1.2)
    cx, cy = ternary_coordinates([[1 / 3, 1 / 3, 1 / 3]])
    for mid in ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5]):
        mx, my = ternary_coordinates([mid])
        ax.plot([cx[0], mx[0]], [cy[0], my[0]], color="0.25", linewidth=2.0, zorder=1)
    handles = []
    for j, c in enumerate(classes):
        sel = assigned == j
        if codes is None:
            col = np.full(int(sel.sum()), "0.45", dtype=object)
        else:
            col = np.array([colors[classes[k]] for k in codes[sel]], dtype=object)
        ax.scatter(x[sel], h[sel], s=20, c=list(col), marker=_MARKERS[j], edgecolors="black",
                   linewidths=0.3, alpha=0.85, zorder=3)
        handles.append(Line2D([], [], color="0.6", marker=_MARKERS[j], markeredgecolor="black", linestyle="",
                              label=f"assigned {mpl_text(c)}"))
    if codes is not None:
        handles += [Line2D([], [], color=colors[c], marker="s", linestyle="", label=f"observed {mpl_text(c)}")
                    for c in classes]
    off = 0.045
    for (px, py), c, ha in zip(corners[:3], classes, ("right", "center", "left")):
        ax.text(px + (-off if ha == "right" else off if ha == "left" else 0), py + (off if ha == "center" else -off),
                mpl_text(c), ha=ha, va="center", fontsize="medium", fontweight="bold")
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.1, _SQRT3_2 + 0.1)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"Class probabilities ({results.method}) on the {data_description(results, newdata)}",
                 fontsize="medium")
    ax.legend(handles=handles, loc="upper left", fontsize="small", frameon=False)
    return ax


def class_reliability_diagram(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    view: str = "top-label",
    bins: int = 10,
    strategy: str = "uniform",
    level: float = 0.95,
    band: bool = True,
) -> Any:
    """Reliability diagram of K-class probabilities, top-label or classwise.

    ``view="top-label"``: per bin of the confidence max_k P(k | x), the share of rows whose
    argmax class is correct, with Wilson intervals (Guo et al. 2017). ``view="classwise"``: per
    class k, the observed frequency of y = k against P(k | x) in bins (Kull et al. 2019), one line
    per class. The diagonal is perfect calibration; the title gives the matching ECE
    (:func:`evstat.metrics.top_label_ece` or :func:`evstat.metrics.classwise_ece`).

    With ``band=True`` each bin also shows the band [mean Bel, mean Pl] of its rows
    (:func:`evstat.metrics.class_interval_coverage`): of the argmax class in the top-label
    view, of class k in the classwise view; the evidential counterpart of the two-class
    diagram's band. The band is the calibrator's estimation uncertainty, not a confidence
    interval of the bin's frequency.

    Parameters
    ----------
    results : Results
        Any fitted model (a binary one shows both classes).
    newdata, y, ax
        As :func:`ternary_plot` (labels are required).
    view : {"top-label", "classwise"}
    bins, strategy, level
        As :func:`evstat.metrics.reliability_table`.
    band : bool
        Draw the [mean Bel, mean Pl] band of every bin.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl",
    ...                                                 "petal width (cm)": "pw"})
    >>> fit = ev.eknn("y ~ pl + pw", iris, k=7)
    >>> ax = ev.plotting.class_reliability_diagram(fit, view="classwise", bins=5)
    >>> ax.get_xlabel()
    'predicted probability P(k | x)'
    """
    codes = _need_labels(class_codes(results, newdata, y), results, "reliability diagram")
    Pm = class_probabilities(results, newdata).to_numpy(dtype=float)
    rows: np.ndarray | None = None
    if band:  # Bel/Pl of every row, or of the rows belief_rows picks for a model that searches per row
        rows, Pb, bel, pl = class_band(results, newdata)
        cb = codes if rows is None else codes[rows]
        okb = np.all(np.isfinite(Pb), axis=1)
    ok = np.all(np.isfinite(Pm), axis=1)
    n_all = Pm.shape[0]
    Pm, codes = Pm[ok], codes[ok]
    t = metrics.class_reliability_table(codes, Pm, view=view, bins=bins, strategy=strategy, level=level)
    K = Pm.shape[1]
    if view == "classwise" and K > CLASSWISE_PANELS:
        cov = (metrics.class_interval_coverage(cb[okb], bel[okb], pl[okb], Pb[okb], view=view, bins=bins,
                                               strategy=strategy) if band else None)
        ax = new_axes(ax, (10.0, 5.2))
        _classwise_panels(ax, results, t, cov)
        e = metrics.classwise_ece(codes, Pm, bins=bins, strategy=strategy)
        ax.set_title(f"Classwise reliability ({results.method}), ECE = {e:.3f}, one panel per class"
                     + (", band [mean Bel({k}), mean Pl({k})]" if band else "")
                     + f"\n{data_description(results, newdata)}"
                     + (f"; band: Bel/Pl of {rows.size} of the {n_all} rows, evenly spread by confidence"
                        if rows is not None else ""), fontsize="medium")
        return ax
    ax = new_axes(ax, (6.0, 5.0))
    ax.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=1.0, label="perfect calibration")
    if band:
        cov = metrics.class_interval_coverage(cb[okb], bel[okb], pl[okb], Pb[okb], view=view, bins=bins,
                                              strategy=strategy)
        groups = [(None, cov)] if view == "top-label" else [(j, cov[cov["class"] == j]) for j in range(Pm.shape[1])]
        colors = class_colors(results.classes)
        for j, c in groups:
            colour = BAND_COLOR if j is None else colors[results.classes[j]]
            x = c["mean_prediction"].to_numpy()
            if x.size >= 2:
                ax.fill_between(x, c["mean_bel"].to_numpy(), c["mean_pl"].to_numpy(), color=colour,
                                alpha=0.3 if j is None else 0.15, linewidth=0)
            ax.vlines(x, c["mean_bel"].to_numpy(), c["mean_pl"].to_numpy(), color=colour,
                      linewidth=7 if j is None else 4, alpha=0.75 if j is None else 0.45,
                      label="mean [Bel, Pl] of the bin" if j in (None, 0) else None)
    if view == "top-label":
        e = metrics.top_label_ece(codes, Pm, bins=bins, strategy=strategy)
        obs = t["observed_frequency"].to_numpy()
        err = np.vstack([obs - t["wilson_lower"].to_numpy(), t["wilson_upper"].to_numpy() - obs])
        ax.errorbar(t["mean_prediction"].to_numpy(), obs, yerr=np.maximum(err, 0.0), color=OKABE_ITO["black"],
                    marker="o", markersize=5, linewidth=1.2, capsize=3, label=f"accuracy ({level:.0%} Wilson)")
        ax.set_xlabel("confidence max_k P(k | x)")
        ax.set_ylabel("accuracy (share of correct argmax)")
        title = f"Top-label reliability ({results.method}), ECE = {e:.3f}\n{data_description(results, newdata)}"
        if rows is not None:
            title += f"\nband: Bel/Pl of {rows.size} of the {n_all} rows, evenly spread by confidence"
    else:
        e = metrics.classwise_ece(codes, Pm, bins=bins, strategy=strategy)
        colors = class_colors(results.classes)
        for j, c in enumerate(results.classes):
            tj = t[t["class"] == j]
            ax.plot(tj["mean_prediction"], tj["observed_frequency"], color=colors[c], marker=_MARKERS[j % 8],
                    markersize=5, linewidth=1.2, label=f"class {mpl_text(c)}")
        ax.set_xlabel("predicted probability P(k | x)")
        ax.set_ylabel("observed frequency of y = k")
        title = f"Classwise reliability ({results.method}), ECE = {e:.3f}\n{data_description(results, newdata)}"
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title, fontsize="medium")
    ax.legend(loc="upper left", fontsize="small", framealpha=0.9)
    return finish(ax)


def _classwise_panels(ax: Any, results: Any, t: pd.DataFrame, cov: pd.DataFrame | None) -> None:
    """The classwise reliability of many classes: ``ax`` switched off and one small inset panel
    per class (observed frequency of y = k against P(k | x), Wilson intervals, the class's
    [mean Bel, mean Pl] band), five panels a row."""
    K = len(results.classes)
    ncols = min(5, K)
    nrows = -(-K // ncols)
    ax.set_axis_off()
    colors = class_colors(results.classes)
    left, bottom, top = 0.06, 0.08, 0.93  # room for the shared axis labels and the title
    gap_x, gap_y = 0.03, 0.09
    w = (1.0 - left - gap_x * (ncols - 1)) / ncols
    h = (top - bottom - gap_y * (nrows - 1)) / nrows
    ax.text(left + (1.0 - left) / 2, 0.0, "predicted probability P(k | x)", ha="center", va="bottom",
            transform=ax.transAxes, fontsize="small")
    ax.text(0.0, bottom + (top - bottom) / 2, "observed frequency of y = k", ha="left", va="center",
            rotation=90, transform=ax.transAxes, fontsize="small")
    for j, c in enumerate(results.classes):
        r, q = divmod(j, ncols)
        sub = ax.inset_axes([left + q * (w + gap_x), top - (r + 1) * h - r * gap_y, w, h])
        sub.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=0.8)
        if cov is not None:
            cj = cov[cov["class"] == j]
            x = cj["mean_prediction"].to_numpy()
            if x.size >= 2:
                sub.fill_between(x, cj["mean_bel"].to_numpy(), cj["mean_pl"].to_numpy(), color=colors[c],
                                 alpha=0.25, linewidth=0)
            sub.vlines(x, cj["mean_bel"].to_numpy(), cj["mean_pl"].to_numpy(), color=colors[c], linewidth=4,
                       alpha=0.6)
        tj = t[t["class"] == j]
        obs = tj["observed_frequency"].to_numpy()
        err = np.vstack([obs - tj["wilson_lower"].to_numpy(), tj["wilson_upper"].to_numpy() - obs])
        sub.errorbar(tj["mean_prediction"].to_numpy(), obs, yerr=np.maximum(err, 0.0), color=OKABE_ITO["black"],
                     marker=_MARKERS[j % 8], markersize=3.5, linewidth=1.0, capsize=2)
        sub.set_xlim(-0.02, 1.02)
        sub.set_ylim(-0.02, 1.02)
        sub.set_xticks([0, 0.5, 1])
        sub.set_yticks([0, 0.5, 1])
        sub.tick_params(labelsize="x-small", labelbottom=r == nrows - 1 or j + ncols >= K, labelleft=q == 0)
        sub.set_title(f"class {mpl_text(c)}", fontsize="small", pad=2)


def score_densities(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    score: str | None = None,
    bins: int = 30,
) -> Any:
    """Class-conditional densities of one score: a density histogram per observed class.

    For a Bayes calibration (:func:`evstat.bayescal` without a transform) the fitted densities
    f_k (Gaussian or asymmetric Laplace) are drawn over the histograms (Gebel 2009, Figs. 4.5-4.6).

    Parameters
    ----------
    results : Results
        Any fitted model.
    newdata, y, ax
        As :func:`ternary_plot` (labels are required).
    score : str, optional
        The score column (default: the formula's first score column).
    bins : int
        Histogram bins (shared by the classes).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, pandas as pd
    >>> import evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> fit = ev.bayescal("y ~ s", pd.DataFrame({"s": rng.normal(2.0 * y - 1, 1), "y": y}))
    >>> ax = ev.plotting.score_densities(fit)
    >>> ax.get_xlabel()
    'score s'
    """
    cols = list(results.score_columns)
    col = cols[0] if score is None else score
    if col not in cols:
        raise ValueError(f"score {col!r} is not a score column of {results.formula!r}; choose one of {cols}")
    data = results.training_data() if newdata is None else newdata
    if col not in data.columns:
        raise ValueError(f"newdata lacks the score column {col!r} of formula {results.formula!r}")
    s = pd.to_numeric(data[col], errors="coerce").to_numpy(dtype=float)
    codes = _need_labels(class_codes(results, newdata, y), results, "score density plot")
    fin = np.isfinite(s)
    edges = np.histogram_bin_edges(s[fin], bins=int(bins))
    colors = class_colors(results.classes)
    ax = new_axes(ax, (6.4, 4.4))
    for j, c in enumerate(results.classes):
        sel = fin & (codes == j)
        if sel.any():
            ax.hist(s[sel], bins=edges, density=True, color=colors[c], alpha=0.35, edgecolor="white",
                    linewidth=0.5, label=f"y = {mpl_text(c)} ({int(sel.sum())} rows)")
    dens = getattr(results, "densities", None)
    if callable(dens) and getattr(results, "transform", None) == "none" and len(cols) == 1:
        grid = np.linspace(edges[0], edges[-1], 400)
        f = dens(grid)
        for j, c in enumerate(results.classes):
            ax.plot(grid, f[c].to_numpy(), color=colors[c], linewidth=1.8,
                    label=f"fitted f(s | y = {mpl_text(c)}) ({results.density})")
    ax.set_xlabel(f"score {mpl_text(col)}")
    ax.set_ylabel("density")
    ax.set_title(f"Score densities ({results.method}) on the {data_description(results, newdata)}", fontsize="medium")
    ax.legend(loc="upper right", fontsize="small", framealpha=0.9)
    return finish(ax)
