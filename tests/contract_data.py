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


_FITS: dict[tuple[str, int, int], object] = {}


def contract_fit(method: str, k: int, train: pd.DataFrame):
    """The contract example of the registered model ``method`` fitted on ``train`` with two
    (``y2``) or three (``y3``) classes; cached per test process (the suites share the fits)."""
    from evstat.results import contract_examples

    key = (method, k, id(train))
    if key not in _FITS:
        example, _ = contract_examples()[method]
        assert example is not None, f"model {method!r} is registered without a contract example"
        _FITS[key] = (example("y2" if k == 2 else "y3", train), train)  # train kept: its id stays unique
    return _FITS[key][0]
