"""The one rule for exact 0 and 1 in probability scores (issue 37).

A probability of exactly 0 has no logarithm, and forests, boosted trees and naive Bayes give them
all the time. Every model that uses ``ln p`` (temperature, vector and matrix scaling, dirichlet,
evmultinom: :mod:`evstat.multiclass.simplex`; betacal on one probability column, as the vector
``(1 - s, s)``) applies the same rule, fixed at the fit and recorded in it:

    eps = (the smallest positive probability of the calibration matrix) / 2,
    p_k -> max(p_k, eps), then the rows that were changed are divided by their sum,

in logs ``ln eps = min_{ik: p_ik > 0} ln p_ik - ln 2``. Its reasons are in the docstring of
:mod:`evstat.multiclass.simplex` and in docs/guide/k-class.md ("Exact 0 and 1"). The functions
live here, below both calibration families, so that the two-class and the K-class models share
them without an import cycle.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["clip_log_eps", "clip_note", "clip_rule", "clipped_rows", "raw_logs"]


def raw_logs(S: NDArray[np.float64], form: str) -> NDArray[np.float64]:
    """``ln p`` with ``-inf`` for an exact 0 (no clipping)."""
    if form == "log-probabilities":
        return np.asarray(S, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(S, dtype=np.float64))


def clip_log_eps(S: NDArray[np.float64], form: str) -> float:
    """``ln eps`` of :func:`clip_rule` for a calibration matrix of the given form: the log of
    half its smallest positive probability (module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.0, 0.25, 0.75], [0.1, 0.9, 0.0], [1.0, 0.0, 0.0]])
    >>> round(float(np.exp(clip_log_eps(P, "probabilities"))), 12)
    0.05
    """
    L = raw_logs(S, form)
    finite = L[np.isfinite(L)]
    if finite.size == 0:
        raise ValueError("a probability matrix without a positive entry has no eps")
    return float(finite.min() - np.log(2.0))


def clipped_rows(S: NDArray[np.float64], form: str, log_eps: float) -> NDArray[np.bool_]:
    """The rows :func:`clip_rule` changes: those with an entry below eps (an exact 0 or 1)."""
    return np.asarray((raw_logs(S, form) < log_eps).any(axis=1), dtype=bool)


def clip_rule(L: NDArray[np.float64], log_eps: float) -> NDArray[np.float64]:
    """The one rule for exact 0 and 1, in logs: ``ln p_k -> max(ln p_k, ln eps)``, then the rows
    that changed renormalised (``- logsumexp``); other rows as given.

    Examples
    --------
    >>> import numpy as np
    >>> L = np.log(np.array([[1e-300, 0.25, 0.75], [0.1, 0.9, 1e-300], [0.3, 0.3, 0.4]]))
    >>> P = np.exp(clip_rule(L, np.log(0.05)))
    >>> P.round(6).tolist()
    [[0.047619, 0.238095, 0.714286], [0.095238, 0.857143, 0.047619], [0.3, 0.3, 0.4]]
    """
    from scipy.special import logsumexp

    L = np.asarray(L, dtype=np.float64)
    low = L < log_eps
    rows = low.any(axis=1)
    if not rows.any():
        return L
    out = L.copy()
    sub = np.maximum(L[rows], log_eps)
    out[rows] = sub - logsumexp(sub, axis=1, keepdims=True)
    return out


def clip_note(n_clipped: int, n: int, log_eps: float | None, form: str = "probabilities") -> str:
    """The summary's sentence on :func:`clip_rule` (every fit that uses it says it, zeros or not)."""
    if log_eps is None:
        return ""
    eps = float(np.exp(log_eps))
    shown = f"{eps:.4g}" if eps > 0 else f"exp({log_eps:.6g})"
    what = "exact 0 or 1 probabilities" if form == "probabilities" else "log-probabilities of -inf (exact 0)"
    return (f"{n_clipped} of {n} rows had {what}; clipped at eps = {shown} (half the smallest positive "
            "probability of the calibration data) and renormalised; new data are clipped at the same eps.")
