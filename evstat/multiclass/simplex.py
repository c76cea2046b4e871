"""Scores as users have them: probability vectors (a ``predict_proba`` matrix) or their logs.

A K-class classifier's ``predict_proba`` gives rows of K nonnegative numbers summing to 1; its
``predict_log_proba`` (or a log-softmax layer) their logs. Given as score columns such a matrix
is collinear with an intercept (the columns sum to 1), and the scaling calibrators of Guo et
al. (2017) are defined on logits, not on probabilities. :func:`detect_simplex` recognises both
forms and :func:`to_logs` maps them to one representation, the log-probabilities ``ln p_k``,
which are logits up to a constant per row (``softmax(ln p) = p``). What each model then uses:

==================================  ==========================================================
model                               features from a probability matrix (or its logs)
==================================  ==========================================================
``evmultinom``                      the K - 1 log-ratios ``ln(p_k / p_1)`` (first column the
                                    reference) and the intercept: a full-rank design whose
                                    coefficients ``B = [0 | I]`` reproduce ``p`` exactly
``temperature``, ``vector_scaling`` ``z_k = ln p_k`` (logits up to a per-row constant, which
                                    ``softmax(z / T)`` ignores)
``matrix_scaling``                  ``ln p_k`` (then it is unregularised Dirichlet
                                    calibration, Kull et al. 2019)
``dirichlet``                       ``ln p_k`` as always (it expects probabilities)
==================================  ==========================================================

``temperature``, ``vector_scaling`` and ``matrix_scaling`` warn
(:class:`ProbabilityScoresWarning`) when ``scores="auto"`` finds probabilities: they are
defined on logits and a temperature fitted on probabilities taken as logits is meaningless
(T = 0.13 on iris); the warning names the fix. Log-probabilities are valid logits: no warning.

Detection. Rows of ``B >= 2`` finite columns are *probabilities* when every entry lies in
``[0, 1 + SIMPLEX_TOL]`` and every row sums to 1 within :data:`SIMPLEX_TOL` (1e-6, looser than
the round-off of a softmax in float32, 1e-7 per entry, tighter than scores that only happen to
be near one); *log-probabilities* when every entry is ``<= SIMPLEX_TOL`` and ``sum_k exp`` of
every row is 1 within the same tolerance. A probability of exactly 0 has no logarithm: such a
matrix is refused with a message (smooth it, e.g. ``(p + 1e-6) / (1 + K 1e-6)``), never clipped.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from evstat.exceptions import EvstatWarning

__all__ = [
    "SCORES",
    "SIMPLEX_TOL",
    "ProbabilityScoresWarning",
    "detect_simplex",
    "resolve_scores",
    "scores_note",
    "to_logs",
    "warn_probabilities",
]

#: tolerance of the row sums (and of the bounds) of a probability matrix
SIMPLEX_TOL = 1e-6

#: values of the calibrators' ``scores=`` argument
SCORES = ("auto", "raw", "probabilities", "log-probabilities")


class ProbabilityScoresWarning(EvstatWarning):
    """A calibrator defined on logits was given probabilities (it uses their logs)."""


def detect_simplex(S: NDArray[np.float64], tol: float = SIMPLEX_TOL) -> str | None:
    """``"probabilities"``, ``"log-probabilities"`` or None for a score matrix (rows x columns).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    >>> detect_simplex(p), detect_simplex(np.log(p)), detect_simplex(p[:, :2])
    ('probabilities', 'log-probabilities', None)
    """
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2 or S.shape[1] < 2 or S.shape[0] == 0 or not np.all(np.isfinite(S)):
        return None
    if S.min() >= 0.0 and S.max() <= 1.0 + tol:
        if np.all(np.abs(S.sum(axis=1) - 1.0) <= tol):
            return "probabilities"
    if S.max() <= tol:
        with np.errstate(under="ignore"):
            if np.all(np.abs(np.exp(S).sum(axis=1) - 1.0) <= tol):
                return "log-probabilities"
    return None


def resolve_scores(scores: str, S: NDArray[np.float64], columns: Sequence[str], who: str) -> str:
    """The representation of the training score matrix: ``"raw"``, ``"probabilities"`` or
    ``"log-probabilities"``, from the user's ``scores=`` (``"auto"`` detects); an explicit form
    that the data do not have is an error naming the columns."""
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    if scores == "raw":
        return "raw"
    found = detect_simplex(S)
    if scores == "auto":
        return found or "raw"
    if found != scores:
        raise ValueError(
            f"{who}: scores={scores!r} but the score columns {list(columns)} are not "
            + ("rows of probabilities summing to 1" if scores == "probabilities" else "logs of probabilities")
            + f" (within {SIMPLEX_TOL:g})"
            + (f"; they look like {found}" if found else "")
            + ": pass scores='raw' to use them as given, or give one column per class"
        )
    return found


def to_logs(S: NDArray[np.float64], form: str, columns: Sequence[str], who: str, where: str) -> NDArray[np.float64]:
    """``ln p`` of a score matrix of the given form (``"probabilities"`` or
    ``"log-probabilities"``), checked to be of that form (the rows of new data too).

    Examples
    --------
    >>> import numpy as np
    >>> to_logs(np.array([[0.25, 0.75]]), "probabilities", ["p_a", "p_b"], "m", "new data").round(4)
    array([[-1.3863, -0.2877]])
    """
    S = np.asarray(S, dtype=np.float64)
    if form == "probabilities":
        bad = ~((S >= 0) & (S <= 1.0 + SIMPLEX_TOL)).all(axis=1) | (np.abs(S.sum(axis=1) - 1.0) > SIMPLEX_TOL)
        what = "probability vectors (entries in [0, 1], rows summing to 1)"
    else:
        with np.errstate(under="ignore", over="ignore"):
            bad = ~(S <= SIMPLEX_TOL).all(axis=1) | (np.abs(np.exp(S).sum(axis=1) - 1.0) > SIMPLEX_TOL)
        what = "logs of probability vectors (rows whose exponentials sum to 1)"
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(
            f"{who} was fitted on {what} in columns {list(columns)}, but {rows.size} of {S.shape[0]} rows of "
            f"the {where} are not (first: row {int(rows[0])}, {S[rows[0]].tolist()}, within {SIMPLEX_TOL:g}); "
            "give the same kind of scores as the calibration data"
        )
    if form == "log-probabilities":
        return S
    zero = S <= 0.0
    if zero.any():
        j = int(np.flatnonzero(zero.any(axis=0))[0])
        raise ValueError(
            f"{who} uses the logs of the probabilities, but column {list(columns)[j]!r} of the {where} is 0 in "
            f"{int(zero[:, j].sum())} of {S.shape[0]} rows (no logarithm): smooth the probabilities, e.g. "
            f"(p + 1e-6) / (1 + {S.shape[1]} * 1e-6), or pass scores='raw' and drop one column"
        )
    return np.log(S)


def scores_note(form: str, columns: Sequence[str], use: str) -> str:
    """The summary's sentence on what the model made of the score columns."""
    if form == "raw":
        return f"Scores: columns {list(columns)} used as given."
    return (f"Scores: columns {list(columns)} are {form} (rows of {len(columns)} summing to 1 within "
            f"{SIMPLEX_TOL:g}" + (", after exp" if form == "log-probabilities" else "") + f"); {use}.")


def warn_probabilities(who: str, columns: Sequence[str], stacklevel: int = 3) -> None:
    """The warning of a calibrator defined on logits given probabilities (``scores="auto"``)."""
    warnings.warn(
        f"{who} is defined on logits, but the score columns {list(columns)} are probabilities (rows sum to 1): "
        "it is fitted on their logs ln p (logits up to a constant per row). Pass the classifier's logits "
        "(decision_function, or predict_log_proba), or scores='probabilities' to say that this is intended; "
        "for probabilities, dirichlet is the calibrator designed for them",
        ProbabilityScoresWarning,
        stacklevel=stacklevel,
    )
