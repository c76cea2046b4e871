"""The closed-form binary decisions of evstat.metrics (used for reject curves) agree with the
general path of the calibrators (evstat.belief.decide over a 0-1 loss matrix with reject)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.calibration.base import decide_binary as decide_via_belief
from evstat.metrics import decide_binary as decide_closed_form

_prob = st.floats(0.0, 1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.tuples(_prob, _prob), min_size=1, max_size=20),
    strategy=st.sampled_from(["pessimistic", "optimistic"]),
    reject_cost=st.one_of(st.none(), st.sampled_from([0.0, 0.1, 0.15, 0.3, 0.5, 1.0]), _prob),
)
def test_closed_form_equals_belief_decide(rows, strategy, reject_cost) -> None:
    bel = np.array([min(a, b) for a, b in rows])
    pl = np.array([max(a, b) for a, b in rows])
    rule = {"pessimistic": "upper", "optimistic": "lower"}[strategy]
    general = decide_via_belief(bel, pl, (0, 1), rule, reject_cost, pd.RangeIndex(bel.size))
    closed = decide_closed_form(bel, pl, strategy, reject_cost)
    assert list(general.astype(object)) == list(closed)


@pytest.mark.parametrize("reject_cost", [None, 0.15, 0.4])
def test_probabilistic_strategy_agrees(reject_cost) -> None:
    p = np.array([0.0, 0.1, 0.15, 0.5, 0.5000001, 0.84, 0.85, 0.86, 1.0])
    general = decide_via_belief(p, p, (0, 1), "upper", reject_cost, pd.RangeIndex(p.size))
    closed = decide_closed_form(None, None, "probabilistic", reject_cost, p=p)
    assert list(general.astype(object)) == list(closed)
