"""The SVM ensembles of Minary et al. (2019), section 5: training and score collection.

Each classifier is scikit-learn's ``SVC`` (LIBSVM, the library the paper used) with an RBF kernel,
trained on its own rows after standardisation of the features on those rows. The paper gives no
hyper-parameters; evstat uses LIBSVM's and scikit-learn's defaults without tuning, ``C = 1`` and
``gamma = "scale"`` (``1 / (d Var(X))``, which is ``1 / d`` on standardised features), exactly as
``data/make_scores.py`` does for the shipped score tables. Tuning on 5 to 100 training rows would
add a nested cross-validation the paper does not describe. The score of a row is the SVM's
decision value (``decision_function``), positive for class 1.

scikit-learn is an optional dependency (``pip install "evstat[experiments]"``) and is imported
only when an SVM is trained.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

__all__ = ["SVM_C", "SVM_GAMMA", "score_table", "svm_scores", "train_svm"]

SVM_C = 1.0
"""SVC's C (LIBSVM default)."""
SVM_GAMMA = "scale"
"""SVC's gamma: ``1 / (n_features * X.var())`` on the standardised training features."""


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
