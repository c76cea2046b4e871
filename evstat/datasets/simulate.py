"""Simulated data of the papers."""

from __future__ import annotations

import numpy as np
import pandas as pd

MEANS = np.array([[-1.0, 0.0], [1.0, 1.0]])
COV = np.array([[1.0, 0.5], [0.5, 1.0]])


def simulate_gaussian(n: int = 360, seed: int | np.random.Generator | None = None) -> pd.DataFrame:
    """Simulate the two-class Gaussian data of Minary et al. (2019), section 5.1.

    Class 0 has mean (-1, 0), class 1 mean (1, 1), both covariance [[1, .5], [.5, 1]]. The paper
    does not give the class sizes; here they are as equal as possible: ``n // 2`` rows of class 0
    first, then ``n - n // 2`` rows of class 1 (for the paper's n = 360, 180 each).

    Parameters
    ----------
    n : int
        Number of rows (at least 2).
    seed : int, numpy.random.Generator or None
        Seed for ``numpy.random.default_rng``; the same seed gives the same data.

    Returns
    -------
    pandas.DataFrame
        Columns ``x1``, ``x2`` (float) and ``y`` (int, 0 or 1).

    Examples
    --------
    >>> from evstat.datasets import simulate_gaussian
    >>> df = simulate_gaussian(360, seed=1)
    >>> df.shape, int(df["y"].sum())
    ((360, 3), 180)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2 (one row per class at least), got {n!r}")
    rng = np.random.default_rng(seed)
    n0 = int(n) // 2
    n1 = int(n) - n0
    x0 = rng.multivariate_normal(MEANS[0], COV, size=n0)
    x1 = rng.multivariate_normal(MEANS[1], COV, size=n1)
    x = np.vstack([x0, x1])
    y = np.r_[np.zeros(n0, dtype=int), np.ones(n1, dtype=int)]
    return pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "y": y})


def _gaussian_classes(
    means: np.ndarray, covs: np.ndarray, sizes: list[int], rng: np.random.Generator, labels: list[str]
) -> pd.DataFrame:
    parts = [rng.multivariate_normal(m, c, size=n) for m, c, n in zip(means, covs, sizes)]
    x = np.vstack(parts)
    y = np.repeat(np.asarray(labels, dtype=object), sizes)
    return pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "y": y})


#: Test 1.2 of Liu, Pan and Dezert (2013): means and covariances of w1, w2, w3
CREDAL_TEST12 = (
    np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 4.0]]),
    np.array([2.0 * np.eye(2), 2.5 * np.eye(2), 1.5 * np.eye(2)]),
)
#: Simulation 2 of Liu, Pan and Dezert: means and covariances of w1..w4
CREDAL_SIM2 = (
    np.array([[-5.0, 0.0], [5.0, 0.0], [0.0, 5.0], [0.0, -5.0]]),
    np.array([np.diag([1.0, 6.0]), np.diag([1.0, 6.0]), np.diag([6.0, 1.0]), np.diag([6.0, 1.0])]),
)


def simulate_credal_test12(
    n: int = 100, seed: int | np.random.Generator | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Test 1.2 of Liu, Pan and Dezert (2013): three 2-D Gaussian classes ``w1``, ``w2``,
    ``w3`` with means (0, 0), (6, 0), (3, 4) and covariances 2I, 2.5I, 1.5I; ``n`` rows per class,
    split in halves (first ``n // 2`` of each class for training, the rest for testing).

    Returns
    -------
    (train, test) : tuple of pandas.DataFrame
        Columns ``x1``, ``x2``, ``y`` (``"w1"``, ``"w2"``, ``"w3"``).

    Examples
    --------
    >>> from evstat.datasets import simulate_credal_test12
    >>> train, test = simulate_credal_test12(seed=1)
    >>> train.shape, test.shape, sorted(train["y"].unique())
    ((150, 3), (150, 3), ['w1', 'w2', 'w3'])
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2 (rows per class), got {n!r}")
    rng = np.random.default_rng(seed)
    df = _gaussian_classes(*CREDAL_TEST12, [int(n)] * 3, rng, ["w1", "w2", "w3"])
    first = (np.arange(len(df)) % int(n)) < int(n) // 2
    return df[first].reset_index(drop=True), df[~first].reset_index(drop=True)


def simulate_credal_sim2(
    n_train: int, n_test: int = 100, seed: int | np.random.Generator | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Simulation 2 of Liu, Pan and Dezert (2013): four 2-D Gaussian classes ``w1``..``w4``
    with means (-5, 0), (5, 0), (0, 5), (0, -5) and covariances diag(1, 6), diag(1, 6),
    diag(6, 1), diag(6, 1); ``n_train`` training and ``n_test`` test rows per class (training
    rows drawn first).

    Examples
    --------
    >>> from evstat.datasets import simulate_credal_sim2
    >>> train, test = simulate_credal_sim2(100, seed=1)
    >>> train.shape, test.shape
    ((400, 3), (400, 3))
    """
    for name, v in (("n_train", n_train), ("n_test", n_test)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer (rows per class), got {v!r}")
    rng = np.random.default_rng(seed)
    labels = ["w1", "w2", "w3", "w4"]
    train = _gaussian_classes(*CREDAL_SIM2, [int(n_train)] * 4, rng, labels)
    test = _gaussian_classes(*CREDAL_SIM2, [int(n_test)] * 4, rng, labels)
    return train, test
