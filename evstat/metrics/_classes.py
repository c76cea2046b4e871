"""K-class inputs of the metrics (private): labels and an (N, K) probability matrix.

``p`` is an (N, K) array or a DataFrame with one column per class. ``y`` holds the observed
classes: with ``labels`` (the classes in column order; default the DataFrame's columns), any
values among them; otherwise class indices 0..K-1. Rows of ``p`` must lie in [0, 1] and sum to 1
(within 1e-6). Nothing is renormalised or dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evstat.metrics.gebel import _gebel_inputs

__all__: list[str] = []


def is_matrix(p: Any) -> bool:
    """True for an (N, K) probability matrix (a DataFrame or a 2-D array)."""
    if isinstance(p, pd.DataFrame):
        return True
    if isinstance(p, (pd.Series, pd.Index)):
        return False
    return np.ndim(p) == 2


def class_inputs(y: Any, p: Any, labels: Any = None) -> tuple[np.ndarray, np.ndarray, list]:
    """-> (class index per row, (N, K) probabilities, class labels in column order)."""
    if labels is None and isinstance(p, pd.DataFrame):
        labels = list(p.columns)
    pm = p.to_numpy(dtype=float) if isinstance(p, pd.DataFrame) else p
    if labels is None:
        codes, P = _gebel_inputs(y, pm)
        return codes, P, list(range(P.shape[1]))
    labels = list(labels)
    if len(set(map(repr, labels))) != len(labels):
        raise ValueError(f"labels must be distinct class labels, got {labels!r}")
    yy = np.asarray(y.to_numpy() if isinstance(y, (pd.Series, pd.Index)) else y, dtype=object).ravel()
    lookup = {lab: j for j, lab in enumerate(labels)}
    codes = np.empty(yy.size, dtype=np.float64)
    bad = []
    for i, v in enumerate(yy):
        j = lookup.get(v)
        if j is None:
            bad.append(i)
            codes[i] = 0
        else:
            codes[i] = j
    if bad:
        shown = sorted({repr(yy[i]) for i in bad})[:5]
        raise ValueError(
            f"y has {len(bad)} value(s) that are not among the {len(labels)} classes {labels!r} "
            f"(the columns of p): {', '.join(shown)} (first at row {bad[0]}); pass labels= in the "
            "column order of p"
        )
    c, P = _gebel_inputs(codes, pm)
    if P.shape[1] != len(labels):
        raise ValueError(f"labels lists {len(labels)} classes but p has {P.shape[1]} columns")
    return c, P, labels
