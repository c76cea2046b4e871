"""Hostile pools for active calibration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev


def test_pool_scores_beyond_the_calibration_range_say_why():
    """A queried pool row joins the calibration data; scores of 1e300 there overflow the
    information matrix. The greedy batch (and 'eir') refit with such a row: this used to fail
    inside scipy with 'array must not contain infs or NaNs'."""
    cal = ev.datasets.simulate_gaussian(60, seed=1)
    fit = ev.evlogit("y ~ x1 + x2", cal)
    pool = ev.datasets.simulate_gaussian(20, seed=2).drop(columns="y")
    pool["x1"] = np.where(np.arange(20) == 3, 1e300, pool["x1"] * 1e299)
    for strategy, n in (("hartley", 2), ("eir", 1)):
        with pytest.raises(ValueError, match=r"design column 'x1' has values up to \d\.\d+e\+\d{3} in magnitude "
                                             r"\(1 of \d+ calibration rows beyond 1e\+150\).*rescale the scores"):
            ev.active.query(fit, pool, n=n, strategy=strategy, seed=1)
    # one query without a refit works: the belief of a huge row is its exact limit
    got = ev.active.query(fit, pool, n=1, strategy="pignistic", seed=1)
    assert np.isfinite(got.select_dtypes("number").to_numpy()).all()
