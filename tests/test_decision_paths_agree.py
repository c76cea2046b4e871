"""One decision engine: the closed-form binary fast path (evstat.belief.binary_decisions, behind
metrics.decide_binary and every calibrator's decide) agrees with the general path
(evstat.belief.decide over a 0-1 loss matrix with reject) for every strategy of the vocabulary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.belief import STRATEGIES, MassArray, decide, loss_matrix
from evstat.metrics import decide_binary as decide_closed_form

_prob = st.floats(0.0, 1.0, allow_nan=False)


def _general(bel, pl, strategy, reject_cost, rho=0.5):
    """The general engine on masses m({1}) = bel, m({0}) = 1 - pl, m({0, 1}) = pl - bel."""
    ma = MassArray.from_bel_pl(bel, pl, index=pd.RangeIndex(bel.size), labels=(0, 1))
    res = decide(ma, loss_matrix(ma.frame, reject=reject_cost), strategy=strategy, rho=rho)
    return [v if v == "reject" else int(v) for v in res.choice]


@settings(max_examples=200, deadline=None)
@given(
    rows=st.lists(st.tuples(_prob, _prob), min_size=1, max_size=20),
    strategy=st.sampled_from(["pessimistic", "optimistic", "pignistic", "hurwicz"]),
    reject_cost=st.one_of(st.none(), st.sampled_from([0.0, 0.1, 0.15, 0.3, 0.5, 1.0]), _prob),
    rho=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
)
def test_closed_form_equals_belief_decide(rows, strategy, reject_cost, rho) -> None:
    bel = np.array([min(a, b) for a, b in rows])
    pl = np.array([max(a, b) for a, b in rows])
    closed = decide_closed_form(bel, pl, strategy, reject_cost, rho=rho)
    assert list(closed) == _general(bel, pl, strategy, reject_cost, rho=rho)


@pytest.mark.parametrize("reject_cost", [None, 0.15, 0.4])
def test_probabilistic_strategy_agrees(reject_cost) -> None:
    # the probabilistic strategy is the pignistic rule on the Bayesian mass of p
    p = np.array([0.0, 0.1, 0.15, 0.5, 0.5000001, 0.84, 0.85, 0.86, 1.0])
    closed = decide_closed_form(None, None, "probabilistic", reject_cost, p=p)
    assert list(closed) == _general(p, p, "probabilistic", reject_cost)


def test_one_vocabulary() -> None:
    import evstat.metrics.evidential as ev_metrics
    import evstat.results as results

    assert set(STRATEGIES) == {"pessimistic", "optimistic", "pignistic", "probabilistic", "hurwicz"}
    assert results.STRATEGIES is STRATEGIES
    assert set(ev_metrics.DECISION_STRATEGIES) <= set(STRATEGIES)
    with pytest.raises(ValueError, match="strategy must be one of"):
        decide_closed_form(np.array([0.1]), np.array([0.2]), "cautious", None)
