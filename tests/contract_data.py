"""The data of the contract suites (tests/test_contract.py, tests/test_contract_matrix.py,
tests/test_no_refit.py): two score columns, a factor, a two-class and a three-class response."""

from __future__ import annotations

import numpy as np
import pandas as pd


def contract_data(n: int, seed: int) -> pd.DataFrame:
    """``n`` rows: scores ``s1``, ``s2`` (probabilities that depend on the class), a factor ``g``,
    the two-class response ``y2`` ("neg"/"pos") and the three-class ``y3`` ("lo"/"mid"/"hi")."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = 1.0 / (1.0 + np.exp(-(1.2 * (z == 2) - 1.2 * (z == 0) + rng.normal(0, 1, n))))
    s2 = 1.0 / (1.0 + np.exp(-(1.5 * (z == 1) - 0.8 + rng.normal(0, 1, n))))
    return pd.DataFrame(
        {
            "s1": s1,
            "s2": s2,
            "g": rng.choice(["a", "b"], n),
            "y2": np.where(z == 2, "pos", "neg"),
            "y3": np.array(["lo", "mid", "hi"], dtype=object)[z],
        }
    )
