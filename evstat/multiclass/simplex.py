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
every row is 1 within the same tolerance (an entry of ``-inf``, the log of an exact 0, as
``predict_log_proba`` gives it, is allowed). Anything else (NaN, a negative probability, rows not
summing to 1) is not a probability matrix: ``scores="auto"`` then uses the columns as given and an
explicit ``scores="probabilities"`` is an error naming the rows.

Exact 0 and 1: the one rule (:func:`clip_rule`). A probability of exactly 0 has no logarithm,
and forests, boosted trees and naive Bayes give them all the time (a RandomForest's
``predict_proba`` on sklearn's wine: 12 of 53 calibration rows in the split of docs/guide/k-class.md). Every model that uses ``ln p``
(temperature, vector and matrix scaling, dirichlet, evmultinom) applies the same rule, fixed at
the fit and recorded in it:

    eps = (the smallest positive probability of the calibration matrix) / 2,
    p_k -> max(p_k, eps), then the rows that were changed are divided by their sum,

in logs ``ln eps = min_{ik: p_ik > 0} ln p_ik - ln 2``. Why this epsilon: it changes *only* the
exact zeros (every positive entry is at least 2 eps) and keeps the order of every entry, so an
exact 0 becomes the least likely value seen, by a factor 2 below the least positive one, on the
classifier's own scale: for a forest of 100 trees (probabilities multiples of about 1/100) eps is
about 0.005; for naive Bayes, whose smallest positive probabilities are 1e-200 and below, eps is
as small and keeps those differences. A fixed epsilon (1e-6, 1e-12) would put a forest's zeros
at ln 1e-12 = -27.6, 23 units of log-odds beyond its next value -4.6, where they dominate a
temperature or a Dirichlet coefficient; a data-size rule such as ``1 / (2 n)`` would tie every
naive-Bayes probability below it. Rows with no entry below eps are used as given (so a matrix
without zeros gives exactly the fit of older evstat). New data get the fit's eps: an entry below
it (an exact 0, or a positive value smaller than any of the calibration data) is clipped the same
way. Never silent: the summary (and so the report) says how many calibration rows were clipped
and at which eps (:func:`clip_note`). Fits saved by older evstat have no eps and refuse zeros as
they did.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from evstat.calibration.clipping import raw_logs, clip_log_eps, clip_note, clip_rule, clipped_rows
from evstat.exceptions import EvstatWarning

__all__ = [
    "SCORES",
    "SIMPLEX_TOL",
    "ProbabilityScoresWarning",
    "clip_log_eps",
    "clip_note",
    "clip_rule",
    "clipped_rows",
    "detect_simplex",
    "score_kind",
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

    Exact zeros (and ``-inf`` in logs) are allowed: :func:`clip_rule` handles them.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    >>> detect_simplex(p), detect_simplex(np.log(p)), detect_simplex(p[:, :2])
    ('probabilities', 'log-probabilities', None)
    >>> detect_simplex(np.array([[0.0, 1.0], [0.5, 0.5]])), detect_simplex(np.array([[-np.inf, 0.0]]))
    ('probabilities', 'log-probabilities')
    """
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2 or S.shape[1] < 2 or S.shape[0] == 0 or np.isnan(S).any() or (S == np.inf).any():
        return None
    if np.all(np.isfinite(S)) and S.min() >= 0.0 and S.max() <= 1.0 + tol:
        if np.all(np.abs(S.sum(axis=1) - 1.0) <= tol):
            return "probabilities"
    if S.max() <= tol:
        with np.errstate(under="ignore"):
            if np.all(np.abs(np.exp(S).sum(axis=1) - 1.0) <= tol):
                return "log-probabilities"
    return None


def _bad_rows(S: NDArray[np.float64], form: str) -> NDArray[np.bool_]:
    """Rows that are not of the given form (NaN, negative, above 1, not summing to 1)."""
    with np.errstate(invalid="ignore", under="ignore", over="ignore"):
        if form == "probabilities":
            return ~((S >= 0) & (S <= 1.0 + SIMPLEX_TOL)).all(axis=1) | ~(np.abs(S.sum(axis=1) - 1.0) <= SIMPLEX_TOL)
        return ~((S <= SIMPLEX_TOL) & ~np.isnan(S)).all(axis=1) | ~(np.abs(np.exp(S).sum(axis=1) - 1.0) <= SIMPLEX_TOL)


def _why(row: NDArray[np.float64], form: str) -> str:
    """What is wrong with one row of a would-be probability matrix, in words."""
    if np.isnan(row).any():
        return "a missing value (NaN)"
    if form == "probabilities":
        if (row < 0).any():
            return f"a negative probability {float(row[row < 0][0]):g}"
        if (row > 1.0 + SIMPLEX_TOL).any():
            return f"a probability above 1, {float(row[row > 1.0 + SIMPLEX_TOL][0]):g}"
        return f"a row sum of {float(row.sum()):.9g}, not 1"
    if (row > SIMPLEX_TOL).any():
        return f"a log-probability above 0, {float(row[row > SIMPLEX_TOL][0]):g}"
    with np.errstate(under="ignore", over="ignore"):
        return f"exponentials summing to {float(np.exp(row).sum()):.9g}, not 1"


def resolve_scores(scores: str, S: NDArray[np.float64], columns: Sequence[str], who: str) -> str:
    """The representation of the training score matrix: ``"raw"``, ``"probabilities"`` or
    ``"log-probabilities"``, from the user's ``scores=`` (``"auto"`` detects); an explicit form
    that the data do not have is an error naming the columns, the rows and what is wrong."""
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    if scores == "raw":
        return "raw"
    found = detect_simplex(S)
    if scores == "auto":
        return found or "raw"
    if found != scores:
        S = np.asarray(S, dtype=np.float64)
        bad = _bad_rows(S, scores) if S.ndim == 2 else np.ones(0, dtype=bool)
        rows = np.flatnonzero(bad)
        where = (f"; {rows.size} of {S.shape[0]} rows are not (first: row {int(rows[0])}, "
                 f"{_why(S[rows[0]], scores)})") if rows.size else ""
        raise ValueError(
            f"{who}: scores={scores!r} but the score columns {list(columns)} are not "
            + ("rows of probabilities summing to 1" if scores == "probabilities" else "logs of probabilities")
            + f" (within {SIMPLEX_TOL:g})" + where
            + (f"; they look like {found}" if found else "")
            + ": pass scores='raw' to use them as given, or give one column per class"
        )
    return found


def to_logs(S: NDArray[np.float64], form: str, columns: Sequence[str], who: str, where: str,
            log_eps: float | None = None) -> NDArray[np.float64]:
    """``ln p`` of a score matrix of the given form (``"probabilities"`` or
    ``"log-probabilities"``), checked to be of that form (the rows of new data too), with exact
    zeros handled by :func:`clip_rule` at ``log_eps`` (None, a fit of older evstat: refused).

    Examples
    --------
    >>> import numpy as np
    >>> to_logs(np.array([[0.25, 0.75]]), "probabilities", ["p_a", "p_b"], "m", "new data").round(4)
    array([[-1.3863, -0.2877]])
    >>> np.exp(to_logs(np.array([[0.0, 1.0]]), "probabilities", ["p_a", "p_b"], "m", "new data",
    ...                log_eps=np.log(0.01))).round(6)
    array([[0.009901, 0.990099]])
    """
    S = np.asarray(S, dtype=np.float64)
    if form == "probabilities":
        what = "probability vectors (entries in [0, 1], rows summing to 1)"
    else:
        what = "logs of probability vectors (rows whose exponentials sum to 1)"
    bad = _bad_rows(S, form)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(
            f"{who} was fitted on {what} in columns {list(columns)}, but {rows.size} of {S.shape[0]} rows of "
            f"the {where} are not (first: row {int(rows[0])}, {S[rows[0]].tolist()}: {_why(S[rows[0]], form)}; "
            f"within {SIMPLEX_TOL:g}); give the same kind of scores as the calibration data"
        )
    L = raw_logs(S, form)
    if log_eps is not None:
        return clip_rule(L, log_eps)
    zero = ~np.isfinite(L)
    if zero.any():
        j = int(np.flatnonzero(zero.any(axis=0))[0])
        raise ValueError(
            f"{who} was saved by an older evstat, which had no rule for exact zeros, and column "
            f"{list(columns)[j]!r} of the {where} is 0 in {int(zero[:, j].sum())} of {S.shape[0]} rows (no "
            "logarithm): refit it with this evstat, which clips at half the smallest positive probability"
        )
    return L


def score_kind(S: NDArray[np.float64], n_classes: int) -> str:
    """What score columns are, among :data:`evstat.results.SCORE_INPUTS`: ``"decision"`` (one
    column), ``"probabilities"`` or ``"log-probabilities"`` (K columns on the simplex, exact 0 and
    1 allowed), ``"class-scores"`` (K other columns), ``"log-ratios"`` (K - 1 columns, K >= 3),
    else ``"scores"``. Models declare the kinds they read (``Capabilities.accepts``).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.0, 0.2, 0.8], [0.5, 0.5, 0.0]])
    >>> score_kind(P, 3), score_kind(P[:, 1:], 3), score_kind(P[:, :1], 2), score_kind(2 * P, 3)
    ('probabilities', 'log-ratios', 'decision', 'class-scores')
    """
    S = np.asarray(S, dtype=np.float64)
    p = S.shape[1] if S.ndim == 2 else 1
    if p == 1:
        return "decision"
    if p == n_classes:
        return detect_simplex(S) or "class-scores"
    if p == n_classes - 1 and n_classes >= 3:
        return "log-ratios"
    return "scores"


#: what each kind is, in words (messages)
KIND_WORDS = {
    "probabilities": "K class probabilities (rows summing to 1)",
    "log-probabilities": "the logs of K class probabilities",
    "class-scores": "K class scores, one column per class (logits or one-vs-rest scores)",
    "log-ratios": "K - 1 log-ratios against the first class",
    "decision": "one score column",
    "scores": "score columns that are not one per class",
}


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
