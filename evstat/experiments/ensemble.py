"""The SVM ensembles of Minary et al. (2019), section 5: training and score collection.

Each classifier is scikit-learn's ``SVC`` (LIBSVM, the library the paper used) with an RBF kernel,
trained on its own rows after standardisation of the features on those rows. The paper gives no
hyper-parameters, so the study has two settings (:data:`SVM_SETTINGS`):

* ``"default"``: LIBSVM's and scikit-learn's defaults without tuning, ``C = 1`` and
  ``gamma = "scale"`` (``1 / (d Var(X))``, which is ``1 / d`` on standardised features), exactly
  as ``data/make_scores.py`` does for the shipped score tables;
* ``"tuned"``: ``C`` and ``gamma`` chosen by cross-validation on the SVM's own training rows over
  the grid of LIBSVM's ``grid.py`` (:func:`tune_svm`).

The score of a row is the SVM's decision value (``decision_function``), positive for class 1.

scikit-learn is an optional dependency (``pip install "evstat[experiments]"``) and is imported
only when an SVM is trained.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "GRID_LOG2C",
    "GRID_LOG2G",
    "SVM_C",
    "SVM_GAMMA",
    "SVM_SETTINGS",
    "fit_svm",
    "score_table",
    "svm_scores",
    "train_svm",
    "tune_svm",
]

SVM_C = 1.0
"""SVC's C (LIBSVM default)."""
SVM_GAMMA = "scale"
"""SVC's gamma: ``1 / (n_features * X.var())`` on the standardised training features."""


SVM_SETTINGS = ("default", "tuned")
"""The study's SVM settings: LIBSVM's defaults, or C and gamma tuned by :func:`tune_svm`."""
GRID_LOG2C = tuple(range(-5, 16, 2))
"""log2(C) values of LIBSVM's ``grid.py`` (its default ``-log2c -5,15,2``)."""
GRID_LOG2G = tuple(range(3, -16, -2))
"""log2(gamma) values of LIBSVM's ``grid.py`` (its default ``-log2g 3,-15,-2``)."""
CV_FOLDS = 5
"""grid.py's default number of cross-validation folds (``-v 5``)."""


def _sklearn() -> tuple[Any, Any, Any]:
    try:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVC
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the SVM ensembles need scikit-learn: pip install \"evstat[experiments]\""
        ) from err
    return make_pipeline, StandardScaler, SVC


def train_svm(X: ArrayLike, y: ArrayLike, C: float = SVM_C, gamma: str | float = SVM_GAMMA) -> Any:
    """Train one RBF SVM on standardised features: ``StandardScaler() -> SVC(kernel="rbf")``.

    Parameters
    ----------
    X : array-like, shape (n, d)
        Features of the training rows.
    y : array-like of 0/1, length n
        Class codes; both classes must be present.
    C, gamma
        SVC's parameters (defaults: LIBSVM's ``C = 1`` and ``gamma = "scale"``).

    Returns
    -------
    sklearn.pipeline.Pipeline
        Its ``decision_function`` is positive for class 1.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> svm = train_svm(X, [0, 0, 1, 1])
    >>> bool(svm.decision_function([[-1.0]])[0] < 0 < svm.decision_function([[4.0]])[0])
    True
    """
    make_pipeline, StandardScaler, SVC = _sklearn()
    Xa = np.asarray(X, dtype=float)
    ya = np.asarray(y)
    if Xa.ndim != 2 or Xa.shape[0] != ya.shape[0]:
        raise ValueError(f"X must be 2-D with one row per label: X {Xa.shape}, y {ya.shape}")
    levels = np.unique(ya)
    if not np.array_equal(levels, [0, 1]):
        raise ValueError(
            f"an SVM needs training rows of both classes 0 and 1; its {ya.size} rows have classes "
            f"{levels.tolist()}: use a stratified partition or more rows"
        )
    model = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=C, gamma=gamma))
    return model.fit(Xa, ya)


def svm_scores(
    X: ArrayLike, y: ArrayLike, train_sets: Sequence[NDArray[np.int64]], rows: NDArray[np.int64] | None = None
) -> NDArray[np.float64]:
    """Train one SVM per training set and return their decision values on ``rows``.

    Parameters
    ----------
    X, y
        Features and 0/1 classes of the whole data set.
    train_sets : sequence of index arrays
        Rows training SVM 1, 2, ...
    rows : index array, optional
        Rows to score (default: all).

    Returns
    -------
    numpy.ndarray, shape (len(rows), len(train_sets))
        Column ``j`` holds the decision values of SVM ``j + 1``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> y = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    >>> svm_scores(X, y, [np.arange(4), np.arange(4, 8)]).shape
    (8, 2)
    """
    Xa = np.asarray(X, dtype=float)
    ya = np.asarray(y)
    idx = np.arange(Xa.shape[0]) if rows is None else np.asarray(rows)
    out = np.empty((idx.size, len(train_sets)))
    for j, tr in enumerate(train_sets):
        model = train_svm(Xa[tr], ya[tr])
        out[:, j] = model.decision_function(Xa[idx])
    return out


def score_table(scores: NDArray[np.float64], y: ArrayLike, rows: NDArray[np.int64] | None = None) -> pd.DataFrame:
    """DataFrame ``svm1, ..., svmJ, y`` (int 0/1) of score rows, indexed by the data set's rows.

    Examples
    --------
    >>> import numpy as np
    >>> score_table(np.array([[0.5, -1.0]]), [1], rows=np.array([7]))
       svm1  svm2  y
    7   0.5  -1.0  1
    """
    s = np.asarray(scores, dtype=float)
    frame = pd.DataFrame({f"svm{j + 1}": s[:, j] for j in range(s.shape[1])})
    frame["y"] = np.asarray(y, dtype=np.int64)
    if rows is not None:
        frame.index = pd.Index(np.asarray(rows))
    return frame


def _libsvm_predict(Xtr: NDArray, ytr: NDArray, Xte: NDArray, C: float, gamma: float) -> NDArray:
    """Classes predicted by an RBF C-SVM trained with LIBSVM through scikit-learn's low-level
    binding (what ``SVC(kernel="rbf", C=C, gamma=gamma).fit(Xtr, ytr).predict(Xte)`` computes,
    without its per-call validation, which costs 40 times the fit on a few rows)."""
    from sklearn.svm import _libsvm

    _libsvm.set_verbosity_wrap(0)  # LIBSVM prints its progress unless told not to (SVC does this too)
    fit = _libsvm.fit(Xtr, ytr, svm_type=0, kernel="rbf", C=float(C), gamma=float(gamma), tol=1e-3,
                      cache_size=200.0, shrinking=1, probability=0, class_weight=np.empty(0),
                      sample_weight=np.empty(0), max_iter=-1, random_seed=0)
    support, sv, n_sv, coef, intercept, prob_a, prob_b = fit[:7]
    return _libsvm.predict(Xte, support, sv, n_sv, coef, intercept, prob_a, prob_b, svm_type=0, kernel="rbf",
                           gamma=float(gamma))


def tune_svm(X: ArrayLike, y: ArrayLike, folds: int = CV_FOLDS) -> tuple[float, float, int]:
    """C and gamma of an RBF SVM by cross-validation over LIBSVM's ``grid.py`` grid.

    The features are standardised on all the given rows (as the final SVM is, and as LIBSVM's
    ``svm-scale`` precedes ``grid.py``), then every pair ``C = 2^c``, ``gamma = 2^g`` of
    :data:`GRID_LOG2C` x :data:`GRID_LOG2G` (11 x 10 pairs) is scored by the number of rows its
    ``k``-fold cross-validation classifies correctly. The folds are stratified and not shuffled
    (the rows come in random order from the study's partitions), so the result is deterministic;
    ``k = min(folds, rows of the smaller class)``, since every fold must hold both classes'
    rows in turn. Ties are broken as grid.py breaks them: the pairs are visited in grid.py's
    order (:func:`grid_order`: the middle of each range first, then alternately its halves),
    and a pair replaces the best so far when it classifies more rows correctly, or as many with
    the same gamma and a smaller C. (A first version sent ties to the smallest C and gamma; on
    the study's 5- to 15-row training halves, where many pairs tie, that chose C = 2^-5 and
    made the decision values nearly constant.) With fewer than 2 rows in a class no
    cross-validation is possible and LIBSVM's defaults (C = 1, gamma = 1/d) are returned with
    ``k = 0``.

    Parameters
    ----------
    X : array-like, shape (n, d)
    y : array-like of 0/1
    folds : int
        Largest number of folds (grid.py's ``-v``, default 5).

    Returns
    -------
    C, gamma : float
    k : int
        Folds used (0: not tuned).

    Examples
    --------
    >>> import numpy as np
    >>> r = np.random.default_rng(0)
    >>> X = np.r_[r.normal(0, 1, (10, 2)), r.normal(2, 1, (10, 2))]
    >>> C, g, k = tune_svm(X, [0] * 10 + [1] * 10)
    >>> k, C in [2.0 ** c for c in GRID_LOG2C], g in [2.0 ** v for v in GRID_LOG2G]
    (5, True, True)
    """
    from sklearn.model_selection import StratifiedKFold

    Xa = np.asarray(X, dtype=float)
    ya = np.asarray(y).astype(np.int64)
    k = int(min(folds, np.bincount(ya, minlength=2).min()))
    d = Xa.shape[1]
    if k < 2:
        return 1.0, 1.0 / d, 0
    sd = Xa.std(axis=0)
    Z = np.ascontiguousarray((Xa - Xa.mean(axis=0)) / np.where(sd > 0, sd, 1.0))
    yf = ya.astype(np.float64)
    splits = list(StratifiedKFold(n_splits=k, shuffle=False).split(Z, ya))
    folds_data = [(np.ascontiguousarray(Z[tr]), yf[tr], np.ascontiguousarray(Z[te]), yf[te]) for tr, te in splits]
    best_rate, best_c, best_g = -1, 0, 0
    for c, g in grid_order(GRID_LOG2C, GRID_LOG2G):
        correct = sum(int(np.sum(_libsvm_predict(Ztr, ytr, Zte, 2.0 ** c, 2.0 ** g) == yte))
                      for Ztr, ytr, Zte, yte in folds_data)
        if correct > best_rate or (correct == best_rate and g == best_g and c < best_c):
            best_rate, best_c, best_g = correct, c, g
    return 2.0 ** best_c, 2.0 ** best_g, k


def _permute_sequence(seq: Sequence[int]) -> list[int]:
    """grid.py's ``permute_sequence``: the middle element, then alternately the permuted left
    and right halves."""
    n = len(seq)
    if n <= 1:
        return list(seq)
    mid = n // 2
    left, right = _permute_sequence(seq[:mid]), _permute_sequence(seq[mid + 1:])
    out = [seq[mid]]
    while left or right:
        if left:
            out.append(left.pop(0))
        if right:
            out.append(right.pop(0))
    return out


def grid_order(log2c: Sequence[int], log2g: Sequence[int]) -> list[tuple[int, int]]:
    """The (log2 C, log2 gamma) pairs in the order LIBSVM's ``grid.py`` evaluates them
    (``calculate_jobs``: the ranges permuted by ``permute_sequence``, the grid then refined
    alternately in C and in gamma), which decides its ties.

    Examples
    --------
    >>> grid_order(GRID_LOG2C, GRID_LOG2G)[:4]
    [(5, -7), (-1, -7), (5, -1), (-1, -1)]
    >>> _permute_sequence(list(GRID_LOG2C))
    [5, -1, 11, -3, 9, 3, 15, -5, 7, 1, 13]
    >>> len(grid_order(GRID_LOG2C, GRID_LOG2G)) == len(GRID_LOG2C) * len(GRID_LOG2G)
    True
    """
    c_seq, g_seq = _permute_sequence(list(log2c)), _permute_sequence(list(log2g))
    nc, ng = len(c_seq), len(g_seq)
    i = j = 0
    out: list[tuple[int, int]] = []
    while i < nc or j < ng:
        if i / nc < j / ng:
            out.extend((c_seq[i], g_seq[k]) for k in range(j))
            i += 1
        else:
            out.extend((c_seq[k], g_seq[j]) for k in range(i))
            j += 1
    return out


def fit_svm(X: ArrayLike, y: ArrayLike, setting: str = "default") -> Any:
    """Train one SVM of the study with the given setting (:data:`SVM_SETTINGS`).

    ``"default"``: :func:`train_svm` with ``C = 1``, ``gamma = "scale"``; ``"tuned"``: with C
    and gamma from :func:`tune_svm` on the same rows (stored on the result as ``tuned_C``,
    ``tuned_gamma``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> m = fit_svm(X, [0, 0, 0, 1, 1, 1], "tuned")
    >>> bool(m.decision_function([[0.0]])[0] < 0 < m.decision_function([[5.0]])[0])
    True
    """
    if setting not in SVM_SETTINGS:
        raise ValueError(f"svm must be one of {SVM_SETTINGS}, got {setting!r}")
    if setting == "default":
        return train_svm(X, y, SVM_C, SVM_GAMMA)
    ya = np.asarray(y)
    if not np.array_equal(np.unique(ya), [0, 1]):
        return train_svm(X, y)  # raises the clear error about the classes
    C, gamma, _ = tune_svm(X, ya)
    model = train_svm(X, y, C, gamma)
    model.tuned_C, model.tuned_gamma = C, gamma
    return model
