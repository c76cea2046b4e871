"""Decision regions and contour maps of models with any number of classes.

:func:`class_regions` colours the plane of two score (feature) columns by what ``fit.decide``
returns there: a class, ``"reject"``, and, with ``strategy="credal"`` (the EkNN family and the
credal K-NN of Liu, Pan and Dezert, paper 002, Fig. 4), meta-classes and the outlier class.
:func:`class_contours` draws a map of one quantity of the predicted belief: the ignorance
m(Omega) (Denoeux's lecture, paper 004, the evidential neural network's figures), or the
probability, Bel or Pl of one class. Both use only the results protocol (``decide``,
``predict(type="belief")``, ``augment``), so they work for every registered model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.formula import code_response
from evstat.plotting.data import quiet_empty_cells
from evstat.plotting._plane import Plane, choose_plane, held_title, new_points, on_lattice
from evstat.plotting._style import OKABE_ITO, mpl_text, new_axes

__all__ = ["class_contours", "class_regions", "class_colors"]

_PALETTE = ("blue", "orange", "green", "vermillion", "purple", "sky_blue", "yellow", "black")
_MARKERS = ("o", "^", "s", "D", "v", "P", "X", "*")
CONTOUR_STATS = ("ignorance", "theta", "bel", "pl", "width")


def class_colors(classes: Sequence[Any]) -> dict[Any, str]:
    """One Okabe-Ito colour per class in frame order (cycling after eight classes)."""
    return {c: OKABE_ITO[_PALETTE[j % len(_PALETTE)]] for j, c in enumerate(classes)}


def _label(value: Any) -> str:
    if isinstance(value, frozenset):
        return "{" + ", ".join(sorted(mpl_text(v) for v in value)) + "}"
    return mpl_text(value)


def _points(results: Any, plane: Plane, newdata: pd.DataFrame | None, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Coordinates of the rows to draw and their class positions (None when unknown)."""
    classes = list(results.classes)
    if newdata is None:
        if y is not None:
            raise ValueError(
                "y was given without newdata: the training labels are used when newdata is None; "
                "pass the rows the labels belong to as newdata"
            )
        data = results.training_data()
        return (np.asarray(data[plane.sx], dtype=float), np.asarray(data[plane.sy], dtype=float),
                np.asarray(results.training_codes(), dtype=np.intp))
    px, py = new_points(newdata, plane.sx, plane.sy)
    if y is None:
        if results.response not in newdata.columns:
            return px, py, None
        return px, py, code_response(newdata[results.response], classes, f"column {results.response!r} of newdata",
                                     "pass labels that are classes of the fit")
    if isinstance(y, str):
        if y not in newdata.columns:
            raise ValueError(f"y = {y!r} is not a column of newdata; pass the label column's name or an array of labels")
        return px, py, code_response(newdata[y], classes, f"column {y!r} of newdata", "pass labels that are classes of the fit")
    codes = code_response(y, classes, "y", "pass labels that are classes of the fit")
    if codes.size != len(newdata):
        raise ValueError(f"y has {codes.size} labels but newdata has {len(newdata)} rows: give one label per row")
    return px, py, codes


def _draw_points(ax: Any, results: Any, px: np.ndarray, py: np.ndarray, codes: np.ndarray | None, where: str) -> list[Any]:
    from matplotlib.lines import Line2D

    fin = np.isfinite(px) & np.isfinite(py)
    if codes is None:
        ax.scatter(px[fin], py[fin], s=16, color="0.3", edgecolors="white", linewidths=0.4, zorder=3)
        return [Line2D([], [], color="0.3", marker="o", linestyle="", label=f"{where} rows")]
    handles = []
    colors = class_colors(results.classes)
    for j, c in enumerate(results.classes):
        sel = fin & (codes == j)
        m = _MARKERS[j % len(_MARKERS)]
        ax.scatter(px[sel], py[sel], s=18, color=colors[c], marker=m, edgecolors="black", linewidths=0.4, zorder=3)
        handles.append(Line2D([], [], color=colors[c], marker=m, markeredgecolor="black", markeredgewidth=0.4,
                              linestyle="", label=f"{where} rows, y = {mpl_text(c)}"))
    return handles


def _finish(ax: Any, plane: Plane, gx: np.ndarray, gy: np.ndarray, title: str, handles: list[Any]) -> Any:
    ax.set_xlim(gx[0], gx[-1])
    ax.set_ylim(gy[0], gy[-1])
    ax.set_xlabel(mpl_text(plane.sx))
    ax.set_ylabel(mpl_text(plane.sy))
    ax.set_title(held_title(title, plane), fontsize="medium")
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2,
                  fontsize="small", frameon=False)
    return ax


def class_regions(
    results: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    scores: Sequence[str] | None = None,
    strategy: str = "pessimistic",
    reject_cost: float | None = None,
    fixed: Mapping[str, float] | None = None,
    grid: int = 80,
    points: bool = True,
    **decide_args: Any,
) -> Any:
    """Regions of the plane of two score columns where ``fit.decide`` gives each answer.

    Every point of a ``grid`` x ``grid`` lattice (other score columns held at their training
    medians, or at ``fixed``) is decided by ``results.decide(lattice, strategy=strategy,
    reject_cost=reject_cost, **decide_args)``; the plane is coloured by the answer: one colour
    per class (in frame order), grey for ``"reject"``, darker greys for meta-classes (unions of
    classes, ``strategy="credal"``) and magenta for the outlier class. The rows (training rows,
    or ``newdata``) are drawn on top by class. Works for any number of classes (for two-class
    calibrators, :func:`evstat.plotting.decision_regions` also draws each strategy's frontiers).

    Parameters
    ----------
    results : evstat.results.Results
        A fitted model whose formula uses at least two score columns.
    newdata : pandas.DataFrame, optional
        Rows to draw (default: the training rows); the plane spans both.
    y : str or array-like, optional
        Labels of ``newdata`` (default: its response column if present).
    ax : matplotlib Axes, optional
    scores : pair of str, optional
        The two columns spanning the plane (default: the first two of the formula).
    strategy : str
        Passed to ``decide`` (e.g. ``"pessimistic"``, ``"pignistic"``, ``"credal"``).
    reject_cost : float in [0, 1], optional
        Cost of rejecting, passed to ``decide``.
    fixed : mapping, optional
        Values of the other score columns.
    grid : int
        Points per axis (``grid**2`` predictions).
    points : bool
        Draw the rows.
    **decide_args
        Further arguments of ``decide`` (e.g. ``loss=``, ``rho=``).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        Fewer than two score columns, unknown score names, or what ``decide`` refuses.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y"})
    >>> fit = ev.eknn("y ~ Q('petal length (cm)') + Q('petal width (cm)')", iris, k=5)
    >>> ax = ev.plotting.class_regions(fit, strategy="credal", grid=30)
    >>> ax.get_xlabel()
    'petal length (cm)'
    """
    plane = choose_plane(results, scores, fixed, grid, newdata)

    def evaluate(g: pd.DataFrame) -> pd.Series:
        with quiet_empty_cells():
            return results.decide(g, strategy=strategy, reject_cost=reject_cost, **decide_args)

    gx, gy, decided = on_lattice(plane, grid, evaluate)
    values = list(np.asarray(decided, dtype=object))
    classes = list(results.classes)
    metas = sorted({v for v in values if isinstance(v, frozenset)}, key=lambda s: (len(s), sorted(map(str, s))))
    others = sorted({v for v in values if not isinstance(v, frozenset) and v not in classes}, key=str)
    order: list[Any] = classes + metas + others
    colors = class_colors(classes)
    shades = np.linspace(0.55, 0.3, max(len(metas), 1))
    palette: list[str] = [colors[c] for c in classes] + [str(round(float(g), 3)) for g in shades[: len(metas)]]
    palette += ["0.85" if v == "reject" else OKABE_ITO["purple"] if str(v) == "outlier" else "0.7" for v in others]
    position = {v: i for i, v in enumerate(order)}
    code = np.array([position[v] for v in values], dtype=float).reshape(gy.size, gx.size)

    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    ax = new_axes(ax, (6.4, 5.6))
    present = sorted({int(v) for v in np.unique(code)})
    ax.pcolormesh(gx, gy, code, cmap=ListedColormap(palette), vmin=-0.5, vmax=len(order) - 0.5,
                  shading="nearest", alpha=0.35, zorder=0)
    handles: list[Any] = [Patch(facecolor=palette[i], alpha=0.5, edgecolor="0.6", label=f"decide {_label(order[i])}")
                          for i in present]
    if points:
        px, py, codes = _points(results, plane, newdata, y)
        handles += _draw_points(ax, results, px, py, codes, "training" if newdata is None else "new")
    rc = "" if reject_cost is None else f", reject cost {float(reject_cost):g}"
    return _finish(ax, plane, gx, gy, f"Decisions of {results.method} ({strategy}{rc})", handles)


def class_contours(
    results: Any,
    stat: str = "ignorance",
    cls: Any = None,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    scores: Sequence[str] | None = None,
    fixed: Mapping[str, float] | None = None,
    grid: int = 80,
    points: bool = True,
    levels: int = 11,
) -> Any:
    """Filled contours of one quantity of the predicted belief over the plane of two score columns.

    ``stat="ignorance"`` is the ``.ignorance`` column of ``results.augment`` (for the evidential
    classifiers the mass of the whole frame, m(Omega); for calibrators Pl - Bel); ``"theta"``,
    ``"bel"``, ``"pl"`` and ``"width"`` (Pl - Bel) are those of class ``cls`` from
    ``results.predict(type="belief")``.

    Parameters
    ----------
    results : evstat.results.Results
    stat : {"ignorance", "theta", "bel", "pl", "width"}
    cls : class label, optional
        The class of ``"theta"``, ``"bel"``, ``"pl"``, ``"width"`` (default: the second class,
        the positive one of a two-class model).
    newdata, y, ax, scores, fixed, grid, points
        As in :func:`class_regions`.
    levels : int
        Number of contour levels between 0 and 1.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y"})
    >>> fit = ev.eknn("y ~ Q('petal length (cm)') + Q('petal width (cm)')", iris, k=5)
    >>> ax = ev.plotting.class_contours(fit, grid=30)
    >>> ax.get_title().startswith("ignorance")
    True
    """
    if stat not in CONTOUR_STATS:
        raise ValueError(f"stat must be one of {CONTOUR_STATS}, got {stat!r}")
    classes = list(results.classes)
    if stat != "ignorance":
        if cls is None:
            cls = classes[1]
        if not any(cls == c for c in classes):
            raise ValueError(f"cls = {cls!r} is not a class of this fit; choose one of {classes}")
    if int(levels) < 2:
        raise ValueError(f"levels must be at least 2, got {levels!r}")
    plane = choose_plane(results, scores, fixed, grid, newdata)

    def evaluate(g: pd.DataFrame) -> np.ndarray:
        with quiet_empty_cells():
            if stat == "ignorance":
                aug = results.augment(g)
                if ".ignorance" not in aug.columns:
                    raise ValueError(f"{results.method} has no ignorance column; use stat='width' with cls=")
                return aug[".ignorance"].to_numpy(dtype=float)
            return _belief_stat(results, g, stat, cls)

    gx, gy, z = on_lattice(plane, grid, evaluate)
    z = np.ma.masked_invalid(np.asarray(z, dtype=float).reshape(gy.size, gx.size))
    ax = new_axes(ax, (6.4, 5.6))
    cs = ax.contourf(gx, gy, z, levels=np.linspace(0.0, 1.0, int(levels)), cmap="Greys", zorder=0)
    ax.figure.colorbar(cs, ax=ax, label=_stat_name(stat, cls))
    handles: list[Any] = []
    if points:
        px, py, codes = _points(results, plane, newdata, y)
        handles = _draw_points(ax, results, px, py, codes, "training" if newdata is None else "new")
    return _finish(ax, plane, gx, gy, f"{_stat_name(stat, cls)} ({results.method})", handles)


def _stat_name(stat: str, cls: Any) -> str:
    if stat == "ignorance":
        return "ignorance"
    return {"theta": "probability", "bel": "Bel", "pl": "Pl", "width": "Pl - Bel"}[stat] + f" of {mpl_text(cls)}"


def _belief_stat(results: Any, g: pd.DataFrame, stat: str, cls: Any) -> np.ndarray:
    """One class's column of ``predict(type="belief")``: flat ``[theta, bel, pl]`` columns for two
    classes (the positive class; the negative one by complement), ``(stat, class)`` otherwise."""
    b = results.predict(g, type="belief")
    if isinstance(b.columns, pd.MultiIndex):
        th, be, pl = (b[(s, cls)].to_numpy(dtype=float) for s in ("theta", "bel", "pl"))
    else:
        th, be, pl = (b[s].to_numpy(dtype=float) for s in ("theta", "bel", "pl"))
        if cls == results.classes[0]:
            th, be, pl = 1.0 - th, 1.0 - pl, 1.0 - be
    return {"theta": th, "bel": be, "pl": pl, "width": pl - be}[stat]
