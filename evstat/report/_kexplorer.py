"""The K-class report's interactive decisions: a reject-cost slider and a strategy selector.

The K-class counterpart of :mod:`evstat.report._explorer` (issue 39 item 3). Per model with
K >= 3 classes the page embeds, as JSON in a ``<script type="application/json">`` block, the
singleton lower and upper probabilities Bel({k}), Pl({k}) and the probability P(k | x) of every
class for the rows the model's decision table counts (their observed class positions when
known), at full float64 precision (JSON round-trips a double exactly). One inline script
(``templates/kexplorer.js``: plain JavaScript, no network, no library) decides them as the
slider and the selector move, exactly as :func:`evstat.metrics.decide_classes` and so
``fit.decide`` do with 0-1 costs (:mod:`evstat.metrics.classdecisions`): the expected cost of
class k is 1 - Bel({k}) (pessimistic), 1 - Pl({k}) (optimistic) or 1 - P(k | x)
(probabilistic), that of rejecting is R_rej; the first action, classes in frame order and then
reject, whose cost is within ``TIE_TOL`` of the least cost is chosen
(:func:`evstat.belief.decision.choose`, with the same float64 operations). It rewrites the
first rows of the model's decision table (one per strategy at the report's cost: counts per
class, rejects, and with labels errors and rates) and the colour of every row's square in the
panel's strip (the selected strategy). Without JavaScript the panel shows the report's cost and the pessimistic
strategy, and the controls stay hidden. ``tests/report/test_report_kexplorer.py`` drives the
controls in headless Chromium and compares every row with ``fit.decide``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from evstat import metrics
from evstat.belief import TIE_TOL
from evstat.plotting.probability import class_belief, class_colors
from evstat.report._explorer import page_json
from evstat.report._kclass import see

__all__ = ["KExplorer", "kclass_explorer"]

STRATEGIES = ("pessimistic", "optimistic", "probabilistic")
#: the shade of a rejected row in the strip (as the class-region figures' reject grey)
REJECT_SHADE = "#D9D9D9"
#: rows per line of the strip and the side of one row's square (px)
STRIP_ROWS, CELL = 40, 11


@dataclass
class KExplorer:
    id: str
    data: Markup
    cost: str
    strip_svg: Markup
    caption: Markup


def _codes(bel: np.ndarray, pl: np.ndarray, theta: np.ndarray, strategy: str, rc: float) -> np.ndarray:
    """Position of the chosen action per row (0..K-1 a class, K reject), through the one array path."""
    K = bel.shape[1]
    d = metrics.decide_classes(bel, pl, theta, strategy, rc, classes=list(range(K)))
    return np.array([K if v == "reject" else int(v) for v in d], dtype=np.int64)


def _strip_svg(prefix: str, classes: list[str], colours: list[str], codes: np.ndarray, y: np.ndarray | None) -> Markup:
    """One square per row, coloured by its decision; rows grouped by observed class when known."""
    K = len(classes)
    groups = ([(f"y = {c}", np.flatnonzero(y == j)) for j, c in enumerate(classes)] if y is not None
              else [("rows", np.arange(codes.size))])
    label_w, top = 120, 4
    lines = sum(max(1, -(-g.size // STRIP_ROWS)) for _, g in groups)
    W = label_w + STRIP_ROWS * CELL + 4
    H = top + lines * (CELL + 3) + 8 + 16 * ((K + 1 + 3) // 4)
    parts = [f'<svg class="evstat-panel" id="{prefix}-strip" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
             'role="img" aria-label="Decision of every row at the chosen cost and strategy">']
    line = 0
    for label, idx in groups:
        ty = top + line * (CELL + 3)
        parts.append(f'<text x="{label_w - 6}" y="{ty + CELL - 2}" text-anchor="end" font-size="10">'
                     f'{escape(label)} ({idx.size})</text>')
        for m, i in enumerate(idx):
            x = label_w + (m % STRIP_ROWS) * CELL
            yy = ty + (m // STRIP_ROWS) * (CELL + 3)
            d = int(codes[i])
            parts.append(f'<rect data-i="{int(i)}" data-decision="{escape(classes[d] if d < K else "reject")}" '
                         f'x="{x}" y="{yy}" width="{CELL - 1}" height="{CELL - 1}" fill="{colours[d]}" '
                         'stroke="#666" stroke-width="0.3"/>')
        line += max(1, -(-idx.size // STRIP_ROWS))
    ly = top + line * (CELL + 3) + 6
    for j, (name, colour) in enumerate(zip([*classes, "reject"], colours)):
        x = label_w + (j % 4) * 110
        yy = ly + (j // 4) * 16
        parts.append(f'<rect x="{x}" y="{yy}" width="10" height="10" fill="{colour}" stroke="#666" stroke-width="0.3"/>')
        parts.append(f'<text x="{x + 14}" y="{yy + 9}" font-size="10">'
                     f'{escape("decide " + name if j < K else "reject")}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def kclass_explorer(fit: Any, prefix: str, data: pd.DataFrame | None, codes: np.ndarray | None, name: str,
                    rc: float, table_id: str) -> KExplorer:
    """The slider block of one K-class model: the rows of its decision table (``data``, their
    class positions ``codes`` or None), decided at the report's cost ``rc``; ``table_id`` is the
    decision table whose first rows (one per strategy at ``rc``) follow the slider."""
    P, bel, pl = (np.asarray(a, dtype=float) for a in class_belief(fit, data))
    classes = [str(c) for c in fit.classes]
    palette = class_colors(list(fit.classes))
    colours = [palette[c] for c in fit.classes] + [REJECT_SHADE]
    y = None if codes is None else np.asarray(codes, dtype=np.int64)
    payload = {"tol": TIE_TOL, "strategies": list(STRATEGIES), "classes": classes, "colours": colours,
               "bel": bel.tolist(), "pl": pl.tolist(), "theta": P.tolist(),
               "y": None if y is None else y.tolist()}
    now = _codes(bel, pl, P, "pessimistic", rc)
    caption = Markup(escape(f"Rows of the {name}; without JavaScript R_rej = {rc:g}. ")) + see("def-panel")
    return KExplorer(id=f"{prefix}-kexplore", data=page_json(payload), cost=f"{rc:g}",
                     strip_svg=_strip_svg(prefix, classes, colours, now, y), caption=caption)

