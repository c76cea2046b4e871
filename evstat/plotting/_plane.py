"""The plane of two score columns on which the region and contour plots draw (shared by
:func:`evstat.plotting.decision_regions`, :func:`evstat.plotting.class_regions` and
:func:`evstat.plotting.class_contours`)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evstat.plotting._style import mpl_text

__all__ = ["Plane", "choose_plane", "held_title", "on_lattice"]


@dataclass
class Plane:
    """Two score columns ``sx``, ``sy`` spanning the plane, the values ``held`` for the other
    score columns (with their ``source``), and the coordinates of every training (and new) row."""

    sx: str
    sy: str
    held: dict[str, float]
    source: dict[str, str]
    allx: np.ndarray
    ally: np.ndarray


def choose_plane(
    results: Any,
    scores: Sequence[str] | None,
    fixed: Mapping[str, float] | None,
    grid: int,
    newdata: pd.DataFrame | None = None,
) -> Plane:
    """Check ``scores``, ``fixed`` and ``grid`` and return the plane (other score columns held at
    their training medians unless ``fixed``). Errors name the argument and the valid choices."""
    cols = list(results.score_columns)
    if len(cols) < 2:
        raise ValueError(
            f"decision regions need a formula with at least two score columns, but "
            f"{results.formula!r} uses {len(cols)} ({', '.join(cols) or 'none'}): use "
            "kind='calibration_map' for one score"
        )
    if scores is None:
        sx, sy = cols[0], cols[1]
    else:
        if isinstance(scores, str) or len(scores) != 2:
            raise ValueError(f"scores must be a pair of score column names from {cols}, got {scores!r}")
        sx, sy = scores
        for s in (sx, sy):
            if s not in cols:
                raise ValueError(f"{s!r} is not a score column of formula {results.formula!r}; choose from {cols}")
        if sx == sy:
            raise ValueError(f"scores must be two different columns, got {sx!r} twice")
    if int(grid) < 3:
        raise ValueError(f"grid must be at least 3 points per axis, got {grid}")
    train = results.training_data()
    values = {c: np.asarray(train[c], dtype=float) for c in cols}
    others = [c for c in cols if c not in (sx, sy)]
    held: dict[str, float] = {c: float(np.median(values[c])) for c in others}
    source = {c: "calibration median" for c in others}
    for k, v in dict(fixed or {}).items():
        if k not in others:
            raise ValueError(f"fixed may only set the other score columns {others}, got {k!r}")
        held[k] = float(v)
        source[k] = "fixed"
    allx, ally = values[sx], values[sy]
    if newdata is not None:
        missing = [c for c in (sx, sy) if c not in newdata.columns]
        if missing:
            raise ValueError(f"newdata lacks the score column(s) {missing} of formula {results.formula!r}")
        px, py = new_points(newdata, sx, sy)
        allx = np.concatenate([allx, px[np.isfinite(px)]])
        ally = np.concatenate([ally, py[np.isfinite(py)]])
    return Plane(sx, sy, held, source, allx, ally)


def new_points(newdata: pd.DataFrame, sx: str, sy: str) -> tuple[np.ndarray, np.ndarray]:
    """The two score columns of ``newdata`` as floats (NaN where not numeric)."""
    px = pd.to_numeric(newdata[sx], errors="coerce").to_numpy(dtype=float)
    py = pd.to_numeric(newdata[sy], errors="coerce").to_numpy(dtype=float)
    return px, py


def _span(v: np.ndarray, pad: float) -> tuple[float, float]:
    lo, hi = float(v.min()), float(v.max())
    w = hi - lo if hi > lo else 1.0
    return lo - pad * w, hi + pad * w


def on_lattice(plane: Plane, grid: int, evaluate: Callable[[pd.DataFrame], Any]) -> tuple[np.ndarray, np.ndarray, Any]:
    """Evaluate ``evaluate`` on a ``grid`` x ``grid`` lattice over the data's range with a 5%
    margin (rows in ``meshgrid`` order: x fastest); if that raises ValueError (a calibrator that
    cannot extrapolate), retry without the margin. Returns ``(gx, gy, value)``."""
    grid = int(grid)
    for pad in (0.05, 0.0):
        (x0, x1), (y0, y1) = _span(plane.allx, pad), _span(plane.ally, pad)
        gx, gy = np.linspace(x0, x1, grid), np.linspace(y0, y1, grid)
        XX, YY = np.meshgrid(gx, gy)
        g = pd.DataFrame({plane.sx: XX.ravel(), plane.sy: YY.ravel(),
                          **{c: np.full(XX.size, v) for c, v in plane.held.items()}})
        try:
            return gx, gy, evaluate(g)
        except ValueError:
            if pad == 0.0:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def held_title(title: str, plane: Plane) -> str:
    """``title`` with a wrapped line saying at which values the other score columns are held."""
    if not plane.held:
        return title
    held_txt = ", ".join(f"{mpl_text(c)} = {v:.3g} of the probability {mpl_text(plane.sx)} and "
                         f"{mpl_text(plane.sy)} leave" if plane.source[c].startswith("share")
                         else f"{mpl_text(c)} held at {v:.3g} ({plane.source[c]})" for c, v in plane.held.items())
    return title + "\n" + textwrap.fill(held_txt, 72)
