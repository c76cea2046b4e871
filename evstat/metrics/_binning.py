"""Binning of predicted probabilities (private).

One rule everywhere: bins are right-closed intervals (e_{b-1}, e_b], the first one also closed on the
left, [e_0, e_1]. This is R's ``cut(..., right = TRUE, include.lowest = TRUE)`` and scikit-learn's
``calibration_curve`` (``np.searchsorted(edges[1:-1], p)``). The bin of p is the number of interior
edges strictly below p.
"""

from __future__ import annotations

import numpy as np

from evstat.metrics._validation import check_choice

__all__: list[str] = []

STRATEGIES = ("uniform", "quantile")


def bin_edges(p: np.ndarray, bins: int, strategy: str) -> np.ndarray:
    """Edges (length bins + 1) for equal-width ("uniform") or equal-mass ("quantile") bins.

    "uniform": ``np.linspace(0, 1, bins + 1)``. "quantile": the sample quantiles of ``p`` at
    ``linspace(0, 1, bins + 1)`` by linear interpolation (R type 7, ``np.percentile`` default), as
    scikit-learn's ``calibration_curve(strategy="quantile")``; tied quantiles give empty bins.
    """
    check_choice(strategy, "strategy", STRATEGIES)
    if strategy == "uniform":
        return np.linspace(0.0, 1.0, bins + 1)
    return np.percentile(p, np.linspace(0.0, 1.0, bins + 1) * 100.0)


def assign_bins(p: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin index in 0..len(edges)-2 of every value (right-closed bins, first closed on the left)."""
    return np.searchsorted(edges[1:-1], p, side="left")


def r_seq_probs(g: int) -> np.ndarray:
    """R's ``seq(0, 1, 1/g)``: ``pmin(0 + (0:n) * by, 1)`` with ``by = 1/g`` (not ``i/g``)."""
    by = 1.0 / g
    n = int(1.0 / by + 1e-10)
    return np.minimum(np.arange(n + 1) * by, 1.0)


def r_quantile_type7(x: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """R's ``quantile(x, probs, type = 7)`` computed with R's own arithmetic.

    ``index = 1 + (n - 1) * probs; lo = floor(index); hi = ceiling(index);
    qs = x[lo]; where index > lo and x[hi] != qs: qs = (1 - h) * qs + h * x[hi]`` with
    ``h = index - lo`` (1-based indices into the sorted x). numpy's "linear" method rounds
    differently, which can move an observation across a break.
    """
    xs = np.sort(x)
    n = xs.shape[0]
    index = 1.0 + max(n - 1, 0) * probs
    lo = np.floor(index).astype(np.int64)
    hi = np.ceil(index).astype(np.int64)
    qs = xs[lo - 1].copy()
    xhi = xs[hi - 1]
    i = (index > lo) & (xhi != qs)
    h = (index - lo)[i]
    qs[i] = (1.0 - h) * qs[i] + h * xhi[i]
    return qs
