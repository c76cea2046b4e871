"""The report's interactive decisions: a reject-cost slider, self-contained.

Per two-class calibrator the page embeds, as JSON in a ``<script type="application/json">``
block, Bel({1}), Pl({1}) and theta_hat of the rows the decision table counts (their 0/1 labels
when known) and of the cells of a lattice over the plane of the first two score columns. One
inline script (plain JavaScript, no network, no library) recomputes, as the slider moves, the
decisions of the three strategies exactly as :func:`evstat.belief.binary_decisions` does (the
same float64 operations and tie policy ``TIE_TOL``: class 1 needs cost(1) < cost(0) - TIE_TOL,
reject needs R_rej < cost - TIE_TOL), and rewrites the first rows of the decision table, moves the
points on the error-reject panel, recolours the cells of the region panel and rewrites the cost
in the table's caption (:func:`slider_caption`). The block is hidden until the script shows it:
without JavaScript the page shows the table at the report's cost and, in ``<noscript>``, the
static decision-region and error-reject figures instead of the panels, so every thing is drawn
once whichever way the page is read. Strategies take their colours and dashes from
``evstat.plotting``'s ``STRATEGY_STYLE``, as every figure of the report does. The JSON escapes ``<``, ``>`` and ``&`` (``\\u003c`` ...), so no label can close the script
element.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from evstat import metrics
from evstat.belief import TIE_TOL
from evstat.plotting import STRATEGY_STYLE
from evstat.plotting.data import quiet_empty_cells

__all__ = ["EXPLORER_GRID", "Explorer", "explorer", "page_json", "slider_caption"]

#: at most this many cells per axis in the region panel (the JSON and SVG grow as its square)
EXPLORER_GRID = 30
STRATEGIES = ("pessimistic", "optimistic", "probabilistic")
#: colours and dashes of the strategies: evstat.plotting.STRATEGY_STYLE, the one mapping of the
#: page (static figures, panels, comparison figure), so a strategy has one colour everywhere
COLOURS = {s: str(STRATEGY_STYLE[s]["color"]) for s in STRATEGIES}
_DASHES = {"-": "", "--": "6 3", ":": "1.5 2.5", "-.": "6 2.5 1.5 2.5"}
DASHES = {s: _DASHES[str(STRATEGY_STYLE[s]["linestyle"])] for s in STRATEGIES}
SHADES = ("#BBD8EE", "#F6D49A", "#E4E4E4")  # decide negative, decide positive, reject
POINTS = ("#0072B2", "#B35806")


@dataclass
class Explorer:
    id: str
    data: Markup
    cost: str
    error_svg: Markup | None
    region_svg: Markup | None
    caption: str


def page_json(data: Any) -> Markup:
    """``data`` as JSON safe inside an HTML ``<script>`` element (``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":"), sort_keys=True)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _decide(bel: np.ndarray, pl: np.ndarray, theta: np.ndarray, strategy: str, rc: float) -> np.ndarray:
    """0 / 1 / 2 (reject) per row through the engine's closed form."""
    d = np.asarray(metrics.decide_binary(bel, pl, strategy, rc, p=theta), dtype=object)
    return np.where(d == "reject", 2, d).astype(np.int64)


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _error_svg(prefix: str, bel: np.ndarray, pl: np.ndarray, theta: np.ndarray, y: np.ndarray, rc: float) -> Markup:
    """Error rate against reject rate of the three strategies as R_rej runs over 0, 0.01, ..., 1,
    with a point per strategy at ``rc`` (moved by the script)."""
    n = y.size
    W, H, x0, y0, w, h = 380, 270, 52, 12, 306, 210
    curves, pts = {}, {}
    for s in STRATEGIES:
        xs, ys = [], []
        for c in [k / 100 for k in range(101)]:
            d = _decide(bel, pl, theta, s, c)
            xs.append(float(np.mean(d == 2)))
            ys.append(float(np.sum((d != 2) & (d != y)) / n))
        curves[s] = (xs, ys)
        d = _decide(bel, pl, theta, s, rc)
        pts[s] = (float(np.mean(d == 2)), float(np.sum((d != 2) & (d != y)) / n))
    top = max(0.05, max(max(v[1]) for v in curves.values()))
    top = float(np.ceil(top * 20) / 20)

    def X(v: float) -> str:
        return _num(x0 + v * w)

    def Y(v: float) -> str:
        return _num(y0 + h - v / top * h)

    parts = [f'<svg class="evstat-panel" id="{prefix}-err" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
             f'role="img" aria-label="Error rate against reject rate" data-top="{top:g}" '
             f'data-x0="{x0}" data-y0="{y0}" data-w="{w}" data-h="{h}">',
             f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="white" stroke="#999"/>']
    for k in range(5):
        v = top * k / 4
        parts.append(f'<text x="{x0 - 5}" y="{Y(v)}" text-anchor="end" dominant-baseline="middle" '
                     f'font-size="10">{v:.3g}</text>')
        parts.append(f'<text x="{X(k / 4)}" y="{y0 + h + 13}" text-anchor="middle" font-size="10">{k / 4:g}</text>')
    parts.append(f'<text x="{x0 + w / 2:g}" y="{H - 8}" text-anchor="middle" font-size="11">reject rate</text>')
    parts.append(f'<text x="12" y="{y0 + h / 2:g}" text-anchor="middle" font-size="11" '
                 f'transform="rotate(-90 12 {y0 + h / 2:g})">error rate (errors / n)</text>')
    for i, s in enumerate(STRATEGIES):
        xs, ys = curves[s]
        path = " ".join(f"{X(a)},{Y(b)}" for a, b in zip(xs, ys))
        dash = f' stroke-dasharray="{DASHES[s]}"' if DASHES[s] else ""
        parts.append(f'<polyline points="{path}" fill="none" stroke="{COLOURS[s]}" stroke-width="1.5"{dash} opacity="0.85"/>')
        px, py = pts[s]
        parts.append(f'<circle data-strategy="{s}" cx="{X(px)}" cy="{Y(py)}" r="5" fill="{COLOURS[s]}" '
                     'stroke="white" stroke-width="1"/>')
        ly = y0 + 11 + 14 * i
        parts.append(f'<line x1="{x0 + w - 104}" y1="{ly}" x2="{x0 + w - 80}" y2="{ly}" stroke="{COLOURS[s]}" '
                     f'stroke-width="1.5"{dash}/>')
        parts.append(f'<text x="{x0 + w - 76}" y="{ly + 3.5}" font-size="10" fill="{COLOURS[s]}">{s}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _lattice(fit: Any, rows: pd.DataFrame | None, grid: int) -> tuple[str, str, np.ndarray, np.ndarray, pd.DataFrame, dict[str, float]]:
    """Cells over the plane of the first two score columns (the others at their calibration
    medians), with a 5% margin around the calibration and given rows (none if the calibrator
    cannot extrapolate)."""
    cols = list(fit.score_columns)
    sx, sy = cols[0], cols[1]
    train = fit.training_data()
    held = {c: float(np.median(np.asarray(train[c], dtype=float))) for c in cols[2:]}
    xs = [np.asarray(train[sx], dtype=float)]
    ys = [np.asarray(train[sy], dtype=float)]
    if rows is not None:
        xs.append(pd.to_numeric(rows[sx], errors="coerce").to_numpy(dtype=float))
        ys.append(pd.to_numeric(rows[sy], errors="coerce").to_numpy(dtype=float))
    ax, ay = np.concatenate(xs), np.concatenate(ys)
    ax, ay = ax[np.isfinite(ax)], ay[np.isfinite(ay)]
    for pad in (0.05, 0.0):
        lo_x, hi_x = float(ax.min()), float(ax.max())
        lo_y, hi_y = float(ay.min()), float(ay.max())
        wx, wy = (hi_x - lo_x) or 1.0, (hi_y - lo_y) or 1.0
        gx = np.linspace(lo_x - pad * wx, hi_x + pad * wx, grid)
        gy = np.linspace(lo_y - pad * wy, hi_y + pad * wy, grid)
        XX, YY = np.meshgrid(gx, gy)
        g = pd.DataFrame({sx: XX.ravel(), sy: YY.ravel(), **{c: np.full(XX.size, v) for c, v in held.items()}})
        try:
            with quiet_empty_cells():
                return sx, sy, gx, gy, fit.predict(g, type="belief"), held
        except ValueError:
            if pad == 0.0:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _region_svg(prefix: str, fit: Any, rows: pd.DataFrame | None, y: np.ndarray | None, rc: float,
                grid: int) -> tuple[Markup, dict[str, list[float]], str]:
    sx, sy, gx, gy, cells, held = _lattice(fit, rows, grid)
    n = gx.size
    W, H, x0, y0, side = 480, 330, 52, 12, 280
    cw = side / n
    bel, pl, th = (cells[c].to_numpy(dtype=float) for c in ("bel", "pl", "theta"))
    th = np.where(np.isfinite(th), th, (bel + pl) / 2.0)  # empty cells: vacuous belief, rejected anyway
    parts = [f'<svg class="evstat-panel" id="{prefix}-reg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
             f'role="img" aria-label="Decision regions of the chosen strategy">']
    # the n x n cells (rect data-k, k = i + n j, row j = 0 at the bottom) are drawn by the script
    # from the embedded Bel, Pl and theta_hat: the block is hidden without JavaScript, so cells
    # written here would be read by no one (they were a fifth of a three-model report's bytes)
    parts.append(f'<g class="evstat-cells" data-n="{n}" data-x0="{x0}" data-y0="{y0}" data-side="{side}"></g>')
    step_x, step_y = gx[1] - gx[0], gy[1] - gy[0]
    if rows is not None:
        px = pd.to_numeric(rows[sx], errors="coerce").to_numpy(dtype=float)
        py = pd.to_numeric(rows[sy], errors="coerce").to_numpy(dtype=float)
        for k in range(px.size):
            if not (np.isfinite(px[k]) and np.isfinite(py[k])):
                continue
            cx = x0 + (px[k] - gx[0] + step_x / 2) / (step_x * n) * side
            cy = y0 + side - (py[k] - gy[0] + step_y / 2) / (step_y * n) * side
            colour = "#333333" if y is None else POINTS[int(y[k])]
            parts.append(f'<circle cx="{_num(cx)}" cy="{_num(cy)}" r="2.4" fill="{colour}" stroke="white" stroke-width="0.5"/>')
    parts.append(f'<rect x="{x0}" y="{y0}" width="{side}" height="{side}" fill="none" stroke="#999"/>')
    parts.append(f'<text x="{x0}" y="{y0 + side + 13}" font-size="10">{gx[0]:.3g}</text>')
    parts.append(f'<text x="{x0 + side}" y="{y0 + side + 13}" text-anchor="end" font-size="10">{gx[-1]:.3g}</text>')
    parts.append(f'<text x="{x0 - 4}" y="{y0 + side}" text-anchor="end" font-size="10">{gy[0]:.3g}</text>')
    parts.append(f'<text x="{x0 - 4}" y="{y0 + 9}" text-anchor="end" font-size="10">{gy[-1]:.3g}</text>')
    parts.append(f'<text x="{x0 + side / 2:g}" y="{y0 + side + 26}" text-anchor="middle" font-size="11">{escape(sx)}</text>')
    parts.append(f'<text x="14" y="{y0 + side / 2:g}" text-anchor="middle" font-size="11" '
                 f'transform="rotate(-90 14 {y0 + side / 2:g})">{escape(sy)}</text>')
    neg, pos = (escape(str(c)) for c in fit.classes)
    for i, (label, colour) in enumerate(((f"decide {neg}", SHADES[0]), (f"decide {pos}", SHADES[1]), ("reject", SHADES[2]))):
        parts.append(f'<rect x="{x0 + side + 8}" y="{y0 + 4 + 16 * i}" width="11" height="11" fill="{colour}" stroke="#999"/>')
        parts.append(f'<text x="{x0 + side + 23}" y="{y0 + 13 + 16 * i}" font-size="10">{label}</text>')
    if rows is not None and y is not None:
        for i, (label, colour) in enumerate(((f"class {neg}", POINTS[0]), (f"class {pos}", POINTS[1]))):
            parts.append(f'<circle cx="{x0 + side + 13.5}" cy="{y0 + 61.5 + 16 * i}" r="3" fill="{colour}"/>')
            parts.append(f'<text x="{x0 + side + 23}" y="{y0 + 65 + 16 * i}" font-size="10">{label}</text>')
    parts.append("</svg>")
    held_text = "; ".join(f"{c} held at its calibration median {v:.3g}" for c, v in held.items())
    data = {"bel": [round(float(v), 6) for v in bel], "pl": [round(float(v), 6) for v in pl],
            "theta": [round(float(v), 6) for v in th]}
    return Markup("".join(parts)), data, held_text


def explorer(fit: Any, prefix: str, pred: pd.DataFrame, rows: pd.DataFrame | None, y: np.ndarray | None,
             rc: float, grid: int, name: str, region: bool) -> Explorer:
    """The slider block of one two-class calibrator: ``pred`` holds Bel, Pl and theta_hat of the
    rows of the decision table (``rows`` their data, ``y`` their 0/1 labels or None); ``region``
    adds the region panel (two score columns or more)."""
    theta = pred["theta"].to_numpy(dtype=float)
    ok = np.isfinite(theta)
    bel, pl, th = (pred[c].to_numpy(dtype=float)[ok] for c in ("bel", "pl", "theta"))
    yy = None if y is None else np.asarray(y, dtype=np.int64)[ok]
    data: dict[str, Any] = {
        "tol": TIE_TOL, "strategies": list(STRATEGIES), "classes": [str(c) for c in fit.classes],
        "rows": {"bel": bel.tolist(), "pl": pl.tolist(), "theta": th.tolist(),
                 "y": None if yy is None else yy.tolist()},
        "shades": list(SHADES),
    }
    error_svg = None if yy is None or yy.size == 0 else _error_svg(prefix, bel, pl, th, yy, rc)
    region_svg, held_text = None, ""
    if region:
        region_rows = None if rows is None else rows.iloc[np.flatnonzero(ok)] if isinstance(rows, pd.DataFrame) else None
        region_svg, data["cells"], held_text = _region_svg(prefix, fit, region_rows, yy, rc, min(int(grid), EXPLORER_GRID))
    caption = (
        "Move the slider to change the reject cost R_rej: the first three rows of the decision table "
        "above, its caption, the points on the error-reject curves"
        + (" and the colours of the region panel" if region else "")
        + " follow it, recomputed in the page from the embedded Bel, Pl and theta_hat of every row "
        "exactly as fit.decide decides (0-1 costs, ties to the class). The curves trace every "
        "cost from 0 to 1 in steps of 0.01; each strategy has the colour and dashes it has in every "
        "figure of the report."
        + (f" Region panel: the chosen strategy's decision over the plane ({held_text + '; ' if held_text else ''}"
           "points are the rows, coloured by class when known); cell values rounded to 6 decimals."
           if region else "")
        + " Without JavaScript this block is hidden and the static figures (decision regions, error-reject "
        "curves) show the report's cost instead."
    )
    return Explorer(id=f"{prefix}-explore", data=page_json(data), cost=f"{rc:g}", error_svg=error_svg,
                    region_svg=region_svg, caption=caption)


def slider_caption(title: str, rc: float) -> Markup:
    """The caption of the decision table the slider drives: the first ``R_rej = rc`` and the
    parenthesis right after it (why that cost) wrapped in spans the script rewrites, so the caption
    names the slider's cost, not the report's, once the slider moves.

    Examples
    --------
    >>> str(slider_caption("Decisions at R_rej = 0.5 (chosen) and at 0.15", 0.5))
    'Decisions at R_rej = <span class="evstat-cost">0.5</span><span class="evstat-cost-why"> (chosen)</span> and at 0.15'
    """
    head, sep, tail = str(title).partition(f"R_rej = {rc:g}")
    if not sep:
        return Markup(escape(title))
    why = ""
    if tail.startswith(" ("):
        depth = 0
        for i, ch in enumerate(tail):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == ")" and depth == 0:
                why, tail = tail[:i + 1], tail[i + 1:]
                break
    return Markup(f'{escape(head)}R_rej = <span class="evstat-cost">{rc:g}</span>'
                  f'<span class="evstat-cost-why">{escape(why)}</span>{escape(tail)}')
