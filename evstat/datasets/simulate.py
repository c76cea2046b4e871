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
