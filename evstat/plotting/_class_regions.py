"""Decision regions and contour maps of models with any number of classes.

:func:`class_regions` colours the plane of two score (feature) columns by what ``fit.decide``
returns there: a class, ``"reject"``, and, with ``strategy="credal"`` (the EkNN family and the
credal K-NN of Liu, Pan and Dezert 2013, Fig. 4), meta-classes and the outlier class.
:func:`class_contours` draws a map of one quantity of the predicted belief: the ignorance
m(Omega) (Denoeux's lecture, 2017, the evidential neural network's figures), or the
probability, Bel or Pl of one class. Both use only the results protocol (``augment`` once on
the grid, ``decide`` for the model's own strategies), so they work for every registered model.

Both draw from one :class:`evstat.plotting.RegionGrid` (:func:`evstat.plotting.region_grid`):
the predictions on the grid, computed once per figure (both panels of the class regions share
them) or once for several figures when passed as ``grid=``. For a three-class fit on
probability-vector scores (or their logs) the grid is the simplex of the scores, drawn as a
triangle; otherwise a plane of two score columns (:mod:`evstat.plotting._grid`).

The class-region figure decides at a reject cost; when that cost decides fewer than
:data:`DECIDED_SHARE` (10%) of the drawn rows, a second panel shows the decisions at the
data-chosen cost (:func:`evstat.metrics.choose_reject_cost`, the report's rule: the smallest cost
at which the pessimistic strategy rejects at most a fifth of the rows).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.formula import code_response
from evstat.plotting._grid import FineGrid, RegionGrid, region_grid, ternary_xy
from evstat.plotting._plane import held_title
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


#: below this share of decided rows, the class-region figure adds a panel at the data-chosen cost
DECIDED_SHARE = 0.1


def class_codes(results: Any, newdata: pd.DataFrame | None, y: Any = None) -> np.ndarray | None:
    """Class positions 0..K-1 of the rows' observed classes, or None when unknown; checked before
    predicting. ``y``: None (newdata's response column, or the training labels when newdata is
    None), the name of a column of newdata, or one label per row."""
    classes = list(results.classes)
    fix = "pass labels that are classes of the fit"
    if newdata is None:
        if y is not None:
            raise ValueError(
                "y was given without newdata: the training labels are used when newdata is None; "
                "pass the rows the labels belong to as newdata"
            )
        return np.asarray(results.training_codes(), dtype=np.intp)
    if y is None:
        if results.response not in newdata.columns:
            return None
        return code_response(newdata[results.response], classes, f"column {results.response!r} of newdata", fix)
    if isinstance(y, str):
        if y not in newdata.columns:
            raise ValueError(f"y = {y!r} is not a column of newdata; pass the label column's name or an array of labels")
        return code_response(newdata[y], classes, f"column {y!r} of newdata", fix)
    codes = code_response(y, classes, "y", fix)
    if codes.size != len(newdata):
        raise ValueError(f"y has {codes.size} labels but newdata has {len(newdata)} rows: give one label per row")
    return codes


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


def _rows_of(grid: RegionGrid) -> pd.DataFrame:
    return grid.results.training_data() if grid.newdata is None else grid.newdata


def _grid_of(results: Any, grid: Any, newdata: pd.DataFrame | None, scores: Any, fixed: Any, space: str) -> RegionGrid:
    """``grid`` itself when it is a RegionGrid of this fit and these rows, else a new one."""
    if isinstance(grid, RegionGrid):
        if grid.results is not results:
            raise ValueError("grid is a RegionGrid of another fit; compute it with region_grid(fit, ...) of this one")
        if grid.newdata is not newdata:
            raise ValueError("grid was computed for other rows than newdata; pass the same newdata to region_grid and "
                             "to the figure")
        if scores is not None or fixed is not None or space != "auto":
            raise ValueError("scores, fixed and space are the RegionGrid's; pass them to region_grid")
        return grid
    if grid is not None and (isinstance(grid, bool) or not isinstance(grid, (int, np.integer))):
        raise TypeError(f"grid must be an int or a RegionGrid (evstat.plotting.region_grid), got {type(grid).__name__}")
    return region_grid(results, newdata, grid=None if grid is None else int(grid), scores=scores, fixed=fixed,
                       space=space)


def _paint(ax: Any, grid: RegionGrid | FineGrid, values: np.ndarray, **kw: Any) -> Any:
    """Colour the grid's cells by ``values`` (pcolormesh on a plane, tripcolor on the simplex);
    a :class:`~evstat.plotting._grid.FineGrid`'s many cells as one embedded image (a small
    PNG in the SVG, not thousands of paths)."""
    fine = isinstance(grid, FineGrid)
    if fine:  # no seams between the small cells: no edges, no antialiasing, one image
        kw = {**kw, "rasterized": True, "antialiased": False}
    if grid.space == "plane":
        assert grid.gx is not None and grid.gy is not None
        return ax.pcolormesh(grid.gx, grid.gy, values.reshape(grid.gy.size, grid.gx.size), shading="nearest",
                             zorder=0, **kw)
    from matplotlib.tri import Triangulation

    assert grid.vertices is not None
    x, y = ternary_xy(grid.vertices)
    # one triangle per grid row; edgecolors "face" hides the seams between them
    return ax.tripcolor(Triangulation(x, y, grid.triangles), facecolors=values, zorder=0,
                        edgecolors="face", linewidth=0.4 if fine else 0.2, **kw)


def _finish(ax: Any, grid: RegionGrid, title: str, handles: list[Any]) -> Any:
    if grid.space == "plane":
        assert grid.plane is not None and grid.gx is not None and grid.gy is not None
        ax.set_xlim(grid.gx[0], grid.gx[-1])
        ax.set_ylim(grid.gy[0], grid.gy[-1])
        ax.set_xlabel(mpl_text(grid.plane.sx))
        ax.set_ylabel(mpl_text(grid.plane.sy))
        ax.set_title(held_title(title, grid.plane), fontsize="medium")
    else:
        corners = np.eye(3)
        x, y = ternary_xy(corners)
        ax.plot([*x, x[0]], [*y, y[0]], color="0.2", linewidth=1.0, zorder=2)
        for (cx, cy), name, (ha, dy) in zip(zip(x, y), grid.results.score_columns,
                                            (("right", -0.04), ("center", 0.04), ("left", -0.04))):
            ax.text(cx, cy + dy, mpl_text(name), ha=ha, va="center", fontsize="small")
        ax.set_aspect("equal")
        ax.set_xlim(-0.12, 1.12)
        ax.set_ylim(-0.1, 0.95)
        ax.set_axis_off()
        what = "probabilities" if grid.transform == "prob" else "log-probabilities"
        inv = "p" if grid.transform == "prob" else "log p"
        ax.set_title(f"{title}\non the simplex of the scores ({what}: the point p is the scores {inv})",
                     fontsize="medium")
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.02 if grid.space == "simplex" else -0.13),
                  ncol=2, fontsize="small", frameon=False)
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
    grid: int | RegionGrid | None = None,
    points: bool = True,
    *,
    space: str = "auto",
    second_panel: bool = True,
    smooth: int = 1,
    **decide_args: Any,
) -> Any:
    """Regions of the score space where ``fit.decide`` gives each answer.

    Every grid row (:func:`evstat.plotting.region_grid`: the simplex of the scores for a
    three-class fit on class probabilities or their logs, else a lattice of the plane of two
    score columns, the others held at their training medians or at ``fixed``) is decided as
    ``results.decide(grid_rows, strategy=strategy, reject_cost=reject_cost, **decide_args)``
    would; the picture is coloured by the answer: one colour per class (in frame order), grey
    for ``"reject"``, darker greys for meta-classes (unions of classes, ``strategy="credal"``)
    and magenta for the outlier class. The rows (training rows, or ``newdata``) are drawn on top
    by class, where their own scores are. Works for any number of classes (for two-class
    calibrators, :func:`evstat.plotting.decision_regions` also draws each strategy's frontiers).

    With ``smooth`` > 1 (the report passes :data:`~evstat.plotting.SMOOTH`) and a strategy
    decided from the arrays (pessimistic, optimistic, hurwicz, probabilistic) the colours are
    painted on a lattice ``smooth`` times finer per side, from theta, Bel and Pl interpolated
    linearly between the grid rows (:meth:`evstat.plotting.RegionGrid.refine`): boundaries
    between grid points for no extra prediction, one embedded image in an SVG. Otherwise each
    grid cell is coloured by ``decide``'s answer there.

    With a ``reject_cost`` that decides fewer than 10% of the drawn rows (the rest rejected), a
    second panel shows the decisions at the data-chosen cost
    (:meth:`evstat.plotting.RegionGrid.chosen_reject_cost`, the report's rule), from the same
    grid predictions.

    Parameters
    ----------
    results : evstat.results.Results
        A fitted model whose formula uses at least two score columns.
    newdata : pandas.DataFrame, optional
        Rows to draw (default: the training rows); a plane spans both.
    y : str or array-like, optional
        Labels of ``newdata`` (default: its response column if present).
    ax : matplotlib Axes or a sequence of two, optional
        Where to draw; the second panel is drawn only into a new figure (``ax`` None) or into
        the second of two Axes.
    scores : pair of str, optional
        The two columns spanning a plane (default: the first two of the formula).
    strategy : str
        Passed to ``decide`` (e.g. ``"pessimistic"``, ``"pignistic"``, ``"credal"``; ``None``
        is the model's ``capabilities.default_strategy``).
    reject_cost : float in [0, 1], optional
        Cost of rejecting, passed to ``decide`` (default: no reject action).
    fixed : mapping, optional
        Values of the other score columns of a plane.
    grid : int or RegionGrid, optional
        Parts per side of the simplex grid (default 16) or points per axis of a plane
        (default 20), ``grid**2`` predictions; or the predictions themselves, from
        :func:`evstat.plotting.region_grid` (then ``scores``, ``fixed`` and ``space`` are the
        grid's and ``newdata`` must be the rows it was made for).
    points : bool
        Draw the rows.
    space : {"auto", "simplex", "plane"}
        Where to draw (:func:`evstat.plotting.region_grid`).
    second_panel : bool
        Add the panel at the data-chosen cost when the figure's cost decides under 10% of the rows.
    smooth : int
        Paint a lattice this many times finer per side from interpolated Bel/Pl (1: the grid's cells).
    **decide_args
        Further arguments of ``decide`` (e.g. ``loss=``, ``rho=``).

    Returns
    -------
    matplotlib.axes.Axes
        The first panel (the second, if drawn, is the other Axes of its figure).

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
    strategy = results.capabilities.default_strategy if strategy is None else strategy
    rho = float(decide_args.pop("rho", 0.5))
    codes = class_codes(results, newdata, y)
    G = _grid_of(results, grid, newdata, scores, fixed, space)
    G.decide(strategy, reject_cost, rho, **decide_args)  # decide's checks and messages first
    second: float | None = None
    axes = list(ax) if isinstance(ax, (list, tuple, np.ndarray)) else [ax]
    if (second_panel and reject_cost is not None and not decide_args and (axes[0] is None or len(axes) > 1)
            and strategy not in results.capabilities.extra_strategies
            and G.decided_share(strategy, reject_cost, rho) < DECIDED_SHARE):
        second = G.chosen_reject_cost()
        if second == float(reject_cost):
            second = None
    if axes[0] is None:
        if second is None:
            axes = [new_axes(None, (6.4, 5.6))]
        else:
            import matplotlib.pyplot as plt

            _, pair = plt.subplots(1, 2, figsize=(12.8, 6.2), layout="constrained")
            axes = list(pair)
    handles_pts: Any = None
    rows = _rows_of(G)
    where = "training" if newdata is None else "new"
    panels = [(axes[0], reject_cost, "")]
    if second is not None:
        share = G.decided_share(strategy, reject_cost, rho)
        panels = [(axes[0], reject_cost, f": {_pct(share)} of the rows decided"),
                  (axes[1], second, ", chosen from the data")]
    for target, rc, note in panels:
        # painted on the finer lattice of interpolated Bel/Pl where the arrays decide (smooth
        # boundaries, no extra prediction); else cell by cell, each cell fit.decide's answer
        fine = None if decide_args or int(smooth) <= 1 else G.refine(strategy, rc, rho, factor=int(smooth))
        values = G.decide(strategy, rc, rho, **decide_args) if fine is None else fine.values
        handles = _regions_panel(target, G, list(np.asarray(values, dtype=object)), fine)
        if points:
            if handles_pts is None:
                handles_pts = G.coordinates(rows)
            handles += _draw_points(target, results, handles_pts[0], handles_pts[1], codes, where)
        rc_txt = "" if rc is None else f", reject cost {float(rc):g}{note}"
        _finish(target, G, f"Decisions of {results.method} ({strategy}{rc_txt})", handles)
    return axes[0]


def _pct(share: float) -> str:
    return f"{100 * share:.0f}%" if share >= 0.01 or share == 0 else "under 1%"


def _regions_panel(ax: Any, G: RegionGrid, values: list[Any], fine: FineGrid | None = None) -> list[Any]:
    """Paint the answers ``values`` of the grid rows (of the cells of ``fine`` when given); the
    legend entries of the answers present."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    classes = list(G.results.classes)
    metas = sorted({v for v in values if isinstance(v, frozenset)}, key=lambda s: (len(s), sorted(map(str, s))))
    others = sorted({v for v in values if v is not None and not isinstance(v, frozenset) and v not in classes}, key=str)
    order: list[Any] = classes + metas + others
    colors = class_colors(classes)
    shades = np.linspace(0.55, 0.3, max(len(metas), 1))
    palette: list[str] = [colors[c] for c in classes] + [str(round(float(g), 3)) for g in shades[: len(metas)]]
    palette += ["0.85" if v == "reject" else OKABE_ITO["purple"] if str(v) == "outlier" else "0.7" for v in others]
    position = {v: i for i, v in enumerate(order)}
    code = np.array([position.get(v, np.nan) for v in values], dtype=float)  # None: off the simplex
    present = sorted({int(v) for v in np.unique(code[np.isfinite(code)])})
    if fine is None:
        _paint(ax, G, np.ma.masked_invalid(code), cmap=ListedColormap(palette), vmin=-0.5, vmax=len(order) - 0.5,
               alpha=0.35)
    else:  # the same shades made opaque (over white), so the many small cells show no seams
        from matplotlib.colors import to_rgb

        opaque = [tuple(0.35 * np.array(to_rgb(c)) + 0.65) for c in palette]
        _paint(ax, fine, np.ma.masked_invalid(code), cmap=ListedColormap(opaque), vmin=-0.5, vmax=len(order) - 0.5)
    return [Patch(facecolor=palette[i], alpha=0.5, edgecolor="0.6", label=f"decide {_label(order[i])}") for i in present]


def class_contours(
    results: Any,
    stat: str = "ignorance",
    cls: Any = None,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    ax: Any = None,
    scores: Sequence[str] | None = None,
    fixed: Mapping[str, float] | None = None,
    grid: int | RegionGrid | None = None,
    points: bool = True,
    levels: int = 11,
    *,
    space: str = "auto",
) -> Any:
    """A map of one quantity of the predicted belief over the score space (the simplex or a
    plane, as :func:`class_regions`).

    ``stat="ignorance"`` is the ``.ignorance`` column of ``results.augment`` (for the evidential
    classifiers the mass of the whole frame, m(Omega); for calibrators Pl - Bel); ``"theta"``,
    ``"bel"``, ``"pl"`` and ``"width"`` (Pl - Bel) are those of class ``cls``, from the same
    predictions.

    Parameters
    ----------
    results : evstat.results.Results
    stat : {"ignorance", "theta", "bel", "pl", "width"}
    cls : class label, optional
        The class of ``"theta"``, ``"bel"``, ``"pl"``, ``"width"`` (default: the second class,
        the positive one of a two-class model).
    newdata, y, ax, scores, fixed, grid, points, space
        As in :func:`class_regions` (``grid`` may be the same RegionGrid).
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
    j = 0
    if stat != "ignorance":
        if cls is None:
            cls = classes[1]
        if not any(cls == c for c in classes):
            raise ValueError(f"cls = {cls!r} is not a class of this fit; choose one of {classes}")
        j = next(i for i, c in enumerate(classes) if cls == c)
    if int(levels) < 2:
        raise ValueError(f"levels must be at least 2, got {levels!r}")
    codes = class_codes(results, newdata, y)
    G = _grid_of(results, grid, newdata, scores, fixed, space)
    if stat == "ignorance":
        if G.ignorance is None:
            raise ValueError(f"{results.method} has no ignorance column; use stat='width' with cls=")
        z = G.ignorance
    else:
        z = {"theta": G.theta[:, j], "bel": G.bel[:, j], "pl": G.pl[:, j], "width": G.pl[:, j] - G.bel[:, j]}[stat]
    bounds = np.linspace(0.0, 1.0, int(levels))
    ax = new_axes(ax, (6.4, 5.6))
    if G.space == "plane":
        assert G.gx is not None and G.gy is not None
        zz = np.ma.masked_invalid(np.asarray(z, dtype=float).reshape(G.gy.size, G.gx.size))
        cs = ax.contourf(G.gx, G.gy, zz, levels=bounds, cmap="Greys", zorder=0)
    else:
        from matplotlib.colors import BoundaryNorm

        cs = _paint(ax, G, np.ma.masked_invalid(np.asarray(z, dtype=float)), cmap="Greys",
                    norm=BoundaryNorm(bounds, 256))
    ax.figure.colorbar(cs, ax=ax, label=_stat_name(stat, cls))
    handles: list[Any] = []
    if points:
        px, py = G.coordinates(_rows_of(G))
        handles = _draw_points(ax, results, px, py, codes, "training" if newdata is None else "new")
    return _finish(ax, G, f"{_stat_name(stat, cls)} ({results.method})", handles)


def _stat_name(stat: str, cls: Any) -> str:
    if stat == "ignorance":
        return "ignorance"
    return {"theta": "probability", "bel": "Bel", "pl": "Pl", "width": "Pl - Bel"}[stat] + f" of {mpl_text(cls)}"
