"""The array path of evlogit in evstat.active (evstat/active/_engine.py) against the general path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.active import query, simulate
from evstat.active._engine import FitLearner, LogitArrays, learner, plain_design


@pytest.fixture(scope="module")
def split() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    data = ev.datasets.simulate_gaussian(90, seed=11).sample(frac=1, random_state=3)
    return data.iloc[:12], data.iloc[12:50], data.iloc[50:75]


def test_plain_design_is_the_formula_design(split):
    labelled, pool, _ = split
    fit = ev.evlogit("y ~ x1 + x2", labelled)
    X = plain_design(fit, pool)
    want, _ = fit.model_frame.new_X(pool)
    assert np.array_equal(X, np.asarray(want))
    assert isinstance(learner(fit, pool), LogitArrays)
    # a transformed term, a refit callable or another calibrator: the general path
    assert plain_design(ev.evlogit("y ~ x1 + I(x2 ** 2)", labelled), pool) is None
    assert isinstance(learner(fit, pool, refit=lambda d: ev.evlogit("y ~ x1 + x2", d)), FitLearner)
    assert isinstance(learner(ev.evbinning("y ~ x1", labelled, bins=2), pool), FitLearner)


def test_grow_equals_evlogit_refit(split):
    labelled, pool, test = split
    fit = ev.evlogit("y ~ x1 + x2", labelled)
    fast = learner(fit, pool).grow(np.array([4, 0]), np.array([1, 0]))
    slow = FitLearner(fit, pool).grow(np.array([4, 0]), np.array([1, 0]), "__new__")
    grown = pd.concat([labelled, pool.iloc[[4, 0]].assign(y=[1, 0])])
    ref = ev.evlogit("y ~ x1 + x2", grown)
    assert np.allclose(fast.lik.beta_hat, ref.likelihood.beta_hat, rtol=0, atol=1e-12)
    assert np.allclose(slow.fit.likelihood.beta_hat, ref.likelihood.beta_hat, rtol=0, atol=1e-12)
    _, b, p = fast.belief(np.arange(10))
    want = ref.predict(pool.iloc[:10], type="belief")
    assert np.allclose(b, want["bel"], rtol=0, atol=1e-9)
    assert np.allclose(p, want["pl"], rtol=0, atol=1e-9)


@pytest.mark.parametrize("strategy,n,batch", [("hartley", 1, "greedy"), ("pignistic", 1, "greedy"),
                                              ("eir", 1, "greedy"), ("hartley", 3, "greedy"),
                                              ("pignistic", 2, "top"), ("random", 2, "greedy")])
def test_query_fast_equals_general(split, strategy, n, batch):
    labelled, pool, _ = split
    fit = ev.evlogit("y ~ x1 + x2", labelled)
    pool = pool.drop(columns="y")
    opts = dict(n=n, strategy=strategy, batch=batch, seed=7, candidates=3, reference=15)
    fast = query(fit, pool, **opts)
    slow = query(fit, pool, refit=lambda d: ev.evlogit("y ~ x1 + x2", d), **opts)
    assert list(fast.index) == list(slow.index)
    pd.testing.assert_frame_equal(fast, slow, check_exact=False, rtol=0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("strategy,n", [("hartley", 1), ("pignistic", 1), ("random", 1), ("eir", 1), ("hartley", 2)])
def test_simulate_arrays_equal_general_history(split, strategy, n):
    labelled, pool, test = split
    f = "y ~ x1 + x2"
    opts = dict(oracle="y", strategy=strategy, queries=3, test=test, n=n, seed=5, candidates=2, reference=12)
    fast = simulate(ev.evlogit(f, labelled), labelled, pool, **opts)
    slow = simulate(lambda d: ev.evlogit(f, d), labelled, pool, **opts)
    assert fast["queried"].tolist() == slow["queried"].tolist()
    assert fast["labels"].tolist() == slow["labels"].tolist()
    assert fast["n_labelled"].tolist() == slow["n_labelled"].tolist()
    for c in ("ignorance", "brier", "error"):
        assert np.allclose(fast[c], slow[c], rtol=0, atol=1e-9), c


def test_simulate_with_a_fit_checks_it_belongs_to_labelled(split):
    labelled, pool, test = split
    fit = ev.evlogit("y ~ x1", labelled.iloc[:10])
    with pytest.raises(ValueError, match="fit of 10 rows but labelled has 12"):
        simulate(fit, labelled, pool, oracle="y", queries=1, test=test)
