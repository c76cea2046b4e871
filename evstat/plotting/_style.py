"""Colours, line styles and small matplotlib helpers shared by the evstat plots.

The palette is Okabe and Ito's (2008) colour-blind-safe set; every strategy and class also differs
by line style or marker, so the figures read in grey scale too.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OKABE_ITO", "CLASS_STYLE", "STRATEGY_STYLE", "new_axes", "mpl_text"]

#: Okabe-Ito colour-blind-safe palette
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}

#: negative class (index 0) and positive class (index 1): colour and marker
CLASS_STYLE: tuple[dict[str, Any], dict[str, Any]] = (
    {"color": OKABE_ITO["blue"], "marker": "o"},
    {"color": OKABE_ITO["orange"], "marker": "^"},
)

#: decision strategies: colour and line style
STRATEGY_STYLE: dict[str, dict[str, Any]] = {
    "pessimistic": {"color": OKABE_ITO["vermillion"], "linestyle": "-"},
    "optimistic": {"color": OKABE_ITO["blue"], "linestyle": "--"},
    "probabilistic": {"color": OKABE_ITO["black"], "linestyle": ":"},
}

#: theta_hat, Bel and Pl curves, and the [Bel, Pl] band
THETA_STYLE: dict[str, Any] = {"color": OKABE_ITO["black"], "linestyle": "-", "linewidth": 1.8}
BEL_STYLE: dict[str, Any] = {"color": OKABE_ITO["vermillion"], "linestyle": "--", "linewidth": 1.5}
PL_STYLE: dict[str, Any] = {"color": OKABE_ITO["blue"], "linestyle": "-.", "linewidth": 1.5}
BAND_COLOR = OKABE_ITO["sky_blue"]
GRID_COLOR = "0.85"


def new_axes(ax: Any = None, figsize: tuple[float, float] = (6.4, 4.4)) -> Any:
    """``ax`` itself, or the Axes of a new pyplot figure with constrained layout."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def mpl_text(value: Any) -> str:
    """``str(value)`` made safe for matplotlib text: ``$`` would start mathtext, so escape it."""
    return str(value).replace("$", r"\$")


def finish(ax: Any) -> Any:
    """Light grid behind the data; returns ``ax``."""
    ax.grid(True, color=GRID_COLOR, linewidth=0.6)
    ax.set_axisbelow(True)
    return ax
