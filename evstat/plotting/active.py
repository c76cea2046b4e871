"""Figures of active evidential calibration: learning curves and the pool with the chosen rows."""

from __future__ import annotations

from typing import Any

import pandas as pd

from evstat.plotting._style import OKABE_ITO, finish, mpl_text, new_axes

__all__ = ["active_curves", "query_map"]

_COLORS = [OKABE_ITO[c] for c in ("blue", "vermillion", "green", "purple", "orange", "black", "sky_blue")]
_LINES = ["-", "-.", ":", "--", (0, (5, 1, 1, 1)), (0, (1, 1)), (0, (3, 2))]
_LABELS = {"ignorance": "mean test ignorance Pl - Bel", "brier": "Brier score of BetP", "error": "error rate"}


def active_curves(history: pd.DataFrame, value: str = "ignorance", ax: Any = None, spread: str = "se",
                  x: str | None = None) -> Any:
    """Mean ``value`` against the number of queries, one line per strategy, with its spread over
    rounds (the histories of :func:`evstat.active.simulate`, concatenated, with a ``round``
    column when repeated).

    Parameters
    ----------
    history : pandas.DataFrame
        Columns ``strategy``, the x column (``queries``, else ``step``), ``value`` and optionally
        ``round``.
    value : {"ignorance", "brier", "error"} or another column
    ax : matplotlib Axes, optional
    spread : {"se", "quantiles", "none"}
        Band of mean +- 1 standard error over rounds, or the 10%-90% quantiles of the rounds.
    x : str, optional
        The x column (default ``queries`` if present, else ``step``).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd
    >>> import evstat as ev
    >>> h = pd.DataFrame({"strategy": ["HS"] * 4 + ["RS"] * 4, "round": [0, 0, 1, 1] * 2,
    ...                   "queries": [0, 1] * 4, "ignorance": [0.5, 0.4, 0.5, 0.42, 0.5, 0.47, 0.5, 0.45]})
    >>> ev.plotting.active_curves(h).get_ylabel()
    'mean test ignorance Pl - Bel'
    """
    if not isinstance(history, pd.DataFrame) or history.empty:
        raise ValueError("history must be a non-empty DataFrame (from evstat.active.simulate)")
    x = x or ("queries" if "queries" in history.columns else "step")
    for c in ("strategy", x, value):
        if c not in history.columns:
            raise ValueError(f"history lacks the column {c!r} (columns {list(history.columns)})")
    if spread not in ("se", "quantiles", "none"):
        raise ValueError(f"spread must be 'se', 'quantiles' or 'none', got {spread!r}")
    ax = new_axes(ax, (6.4, 4.2))
    for i, (name, g) in enumerate(history.groupby("strategy", sort=False)):
        by = g.groupby(x)[value]
        m = by.mean()
        style = {"color": _COLORS[i % len(_COLORS)], "linestyle": _LINES[i % len(_LINES)]}
        ax.plot(m.index, m.to_numpy(), linewidth=1.8, label=mpl_text(name), **style)
        if spread == "se" and by.size().max() > 1:
            se = by.sem().fillna(0.0)
            ax.fill_between(m.index, m - se, m + se, color=style["color"], alpha=0.15, linewidth=0)
        elif spread == "quantiles" and by.size().max() > 1:
            ax.fill_between(m.index, by.quantile(0.1), by.quantile(0.9), color=style["color"], alpha=0.12, linewidth=0)
    rounds = history["round"].nunique() if "round" in history.columns else 1
    band = {"se": "bands: mean +- 1 se", "quantiles": "bands: 10%-90% of rounds", "none": ""}[spread]
    ax.set_xlabel("number of queries" if x == "queries" else x)
    ax.set_ylabel(_LABELS.get(value, value))
    ax.set_title(f"{_LABELS.get(value, value).capitalize()} against queries ({rounds} round"
                 f"{'s' if rounds != 1 else ''}{'; ' + band if rounds > 1 and band else ''})", fontsize="medium")
    ax.legend(fontsize="small", framealpha=0.9)
    return finish(ax)


def query_map(fit: Any, pool: pd.DataFrame, chosen: pd.DataFrame | pd.Index | None = None, ax: Any = None) -> Any:
    """The pool in score space, coloured by the current ignorance, with the chosen rows marked.

    One score column: ignorance against the score. Two: the score plane. More than two score
    columns have no such picture (raise).

    Parameters
    ----------
    fit : CalibrationResults
        The current calibration.
    pool : pandas.DataFrame
        The unlabelled rows.
    chosen : DataFrame or Index, optional
        Rows chosen by :func:`evstat.active.query` (their index labels are marked, numbered by
        rank).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> data = ev.datasets.simulate_gaussian(60, seed=1).sample(frac=1, random_state=0)
    >>> fit = ev.evbinning("y ~ x1 + x2", data.iloc[:20], bins=2, empty="prior")
    >>> pool = data.iloc[20:].drop(columns="y")
    >>> ax = ev.plotting.query_map(fit, pool, ev.active.query(fit, pool, n=3, seed=0))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('x1', 'x2')
    """
    cols = fit.model_frame.score_columns
    if len(cols) > 2:
        raise ValueError(f"query_map draws one or two score columns; the formula has {len(cols)} ({cols})")
    if not isinstance(pool, pd.DataFrame) or pool.empty:
        raise ValueError("pool must be a non-empty DataFrame of score rows")
    b = fit.predict(pool, type="belief")  # raises, naming the column, on missing scores
    ign = b["pl"] - b["bel"]
    idx = pd.Index([]) if chosen is None else (chosen.index if isinstance(chosen, pd.DataFrame) else pd.Index(chosen))
    missing = idx.difference(pool.index)
    if len(missing):
        raise ValueError(f"{len(missing)} chosen row(s) are not in the pool ({list(missing[:5])})")
    ax = new_axes(ax, (6.0, 4.6))
    xs = pool[cols[0]].to_numpy(dtype=float)
    ys = ign.to_numpy() if len(cols) == 1 else pool[cols[1]].to_numpy(dtype=float)
    sc = ax.scatter(xs, ys, c=ign.to_numpy(), cmap="viridis", s=18, vmin=0, vmax=max(float(ign.max()), 1e-9))
    ax.figure.colorbar(sc, ax=ax, label="ignorance Pl - Bel")
    if len(idx):
        cx = pool.loc[idx, cols[0]].to_numpy(dtype=float)
        cy = ign.loc[idx].to_numpy() if len(cols) == 1 else pool.loc[idx, cols[1]].to_numpy(dtype=float)
        ax.scatter(cx, cy, s=120, facecolors="none", edgecolors=OKABE_ITO["vermillion"], linewidths=2.0,
                   label=f"chosen ({len(idx)})")
        for r, (a, b) in enumerate(zip(cx, cy), start=1):
            ax.annotate(str(r), (a, b), textcoords="offset points", xytext=(6, 6), fontsize="small",
                        color=OKABE_ITO["vermillion"])
        ax.legend(fontsize="small", loc="best", framealpha=0.9)
    if len(cols) == 2:
        ax.set_ylabel(mpl_text(cols[1]))
    else:
        ax.set_ylabel("ignorance Pl - Bel")
    ax.set_xlabel(mpl_text(cols[0]))
    ax.set_title(f"Pool of {len(pool)} rows under {fit.method} (n = {fit.nobs})", fontsize="medium")
    return finish(ax)
