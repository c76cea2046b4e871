"""The tie policy of decide_binary (issue 11): which rows are tied, what "first" and "random" do
with them, and that nothing else changes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.metrics import decide_binary, tied_rows

BEL = np.array([0.0, 0.3, 0.2, 0.5, 0.0, 0.1])
PL = np.array([1.0, 0.7, 0.9, 0.5, 0.4, 0.9])  # rows 0, 1 and 3 tied (bel + pl = 1)


def test_tied_rows_by_hand():
    assert tied_rows(BEL, PL).tolist() == [True, True, False, True, False, True]
    assert tied_rows(BEL, PL, "optimistic").tolist() == [True, True, False, True, False, True]
    # probabilistic: p = 1/2, by default BetP = (bel + pl) / 2
    assert tied_rows(BEL, PL, "probabilistic").tolist() == [True, True, False, True, False, True]
    assert tied_rows(None, None, "probabilistic", p=[0.5, 0.5 + 1e-9, 0.4]).tolist() == [True, False, False]


def test_first_policy_is_the_old_behaviour():
    assert decide_binary(BEL, PL).tolist() == decide_binary(BEL, PL, tie="first").tolist()
    assert [decide_binary(BEL, PL)[i] for i in (0, 1, 3, 5)] == [0, 0, 0, 0]


def test_random_policy_changes_only_tied_rows_and_is_reproducible():
    bel = np.tile(BEL, 200)
    pl = np.tile(PL, 200)
    tied = tied_rows(bel, pl)
    first = decide_binary(bel, pl).astype(int)
    r1 = decide_binary(bel, pl, tie="random", seed=3).astype(int)
    r2 = decide_binary(bel, pl, tie="random", seed=np.random.SeedSequence(3)).astype(int)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(r1[~tied], first[~tied])
    # both classes, about half each (binomial: 800 tied rows, mean 400, sd 14)
    assert 330 < r1[tied].sum() < 470
    assert not np.array_equal(r1, decide_binary(bel, pl, tie="random", seed=4).astype(int))
    # the draws are one Bernoulli(1/2) per tied row, in row order
    expected = np.random.default_rng(3).integers(0, 2, size=int(tied.sum()))
    np.testing.assert_array_equal(r1[tied], expected)


def test_probabilistic_ties_from_p():
    p = np.array([0.5, 0.7, 0.5, 0.2])
    d = decide_binary(None, None, "probabilistic", p=p, tie="random", seed=0).astype(int)
    assert d[1] == 1 and d[3] == 0
    np.testing.assert_array_equal(d[[0, 2]], np.random.default_rng(0).integers(0, 2, size=2))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=30),
       st.sampled_from(["pessimistic", "optimistic", "probabilistic"]), st.floats(0, 1), st.integers(0, 100))
def test_tie_policy_never_changes_which_rows_are_rejected(pairs, strategy, rc, seed):
    bel = np.array([min(a, b) for a, b in pairs])
    pl = np.array([max(a, b) for a, b in pairs])
    bel[::3] = 1 - pl[::3]  # make some rows tied
    bel = np.minimum(bel, pl)
    a = decide_binary(bel, pl, strategy, reject_cost=rc)
    b = decide_binary(bel, pl, strategy, reject_cost=rc, tie="random", seed=seed)
    assert [v == "reject" for v in a] == [v == "reject" for v in b]
    tied = tied_rows(bel, pl, strategy)
    assert [x for x, t in zip(a, tied) if not t] == [x for x, t in zip(b, tied) if not t]


def test_bad_tie_policy():
    with pytest.raises(ValueError, match="tie"):
        decide_binary(BEL, PL, tie="last")
