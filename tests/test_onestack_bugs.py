"""The seams between the two stacks (issue 24's list of bugs), each reproduced:

* Dask and ``rho``: a Dask ``decide`` passes every decision argument (``strategy``,
  ``reject_cost``, ``rho``, ``loss``) to the partitions, so it equals the in-memory answer;
* ``evmultinom`` (and every model) dispatches ``predict`` and ``decide`` to Dask;
* one ``decide`` signature for every registered model (owned by :class:`evstat.results.Results`),
  one decision vocabulary (``belief.decide`` takes ``strategy=``; the legacy rule names are an
  error naming the new ones), one ``decide_binary``.

The Dask cases run on the synchronous scheduler (no cluster: the dispatch is what is tested;
``tests/test_dask.py`` runs a cluster).
"""

from __future__ import annotations

import inspect
from importlib.util import find_spec

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.belief import MassArray, loss_matrix
from evstat.results import Results, contract_examples, registered

# the dask extra, imported in the tests that use it (not at collection: issue 26)
pytestmark = pytest.mark.skipif(find_spec("dask") is None, reason="the dask extra: pip install 'evstat[dask]'")


def _data(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = rng.normal(0, 1, n) + 1.5 * (z == 2) - 1.5 * (z == 0)
    s2 = rng.normal(0, 1, n) + 1.5 * (z == 1)
    return pd.DataFrame({"s1": s1, "s2": s2, "y3": np.array(["a", "b", "c"], dtype=object)[z]})


CAL = _data(150, 3)
NEW = _data(200, 4)
NEW.index = pd.Index(np.arange(200) * 3 + 7, name="row")


def _compute(lazy):
    import dask
    with dask.config.set(scheduler="synchronous"):
        return lazy.compute()


def test_dask_decide_passes_rho_to_the_partitions():
    """Issue 24: on an eknn fit, hurwicz with rho=0 on Dask equalled the rho=0.5 answer."""
    import dask.dataframe as dd
    fit = ev.eknn("y3 ~ s1 + s2", CAL, k=7)
    ddf = dd.from_pandas(NEW, npartitions=3)
    for rho in (0.0, 1.0):
        want = fit.decide(NEW, strategy="hurwicz", rho=rho, reject_cost=0.3)
        got = _compute(fit.decide(ddf, strategy="hurwicz", rho=rho, reject_cost=0.3))
        pd.testing.assert_series_equal(got, want)
    # the two ends differ on these data, so the test can see a dropped rho
    a = fit.decide(NEW, strategy="hurwicz", rho=0.0, reject_cost=0.3)
    b = fit.decide(NEW, strategy="hurwicz", rho=0.5, reject_cost=0.3)
    assert (a != b).sum() >= 5


def test_dask_decide_passes_the_loss_matrix():
    import dask.dataframe as dd
    fit = ev.eknn("y3 ~ s1 + s2", CAL, k=7)
    L = loss_matrix(fit.frame, reject=0.25)
    L.loc["a"] = [0.0, 5.0, 5.0]  # deciding "a" wrongly is expensive
    want = fit.decide(NEW, loss=L)
    got = _compute(fit.decide(dd.from_pandas(NEW, npartitions=2), loss=L))
    pd.testing.assert_series_equal(got, want)
    assert (want != fit.decide(NEW, reject_cost=0.25)).any()


def test_evmultinom_predicts_and_decides_on_dask():
    """Issue 24: evmultinom's predict raised "newdata must be a pandas DataFrame ... got DataFrame"."""
    import dask.dataframe as dd
    fit = ev.evmultinom("y3 ~ s1 + s2", CAL)
    new = NEW.iloc[:12]
    ddf = dd.from_pandas(new, npartitions=2)
    pd.testing.assert_frame_equal(_compute(fit.predict(ddf)), fit.predict(new), check_exact=False, rtol=1e-12)
    pd.testing.assert_frame_equal(
        _compute(fit.predict(ddf, type="belief")), fit.predict(new, type="belief"), check_exact=False, rtol=1e-9
    )
    pd.testing.assert_series_equal(
        _compute(fit.decide(ddf, strategy="hurwicz", rho=0.0, reject_cost=0.2)),
        fit.decide(new, strategy="hurwicz", rho=0.0, reject_cost=0.2),
    )


def test_one_decide_signature_for_every_registered_model():
    """``decide`` and ``predict`` are the base class's (validation, Dask dispatch once); the
    families implement array hooks."""
    for method, cls in registered().items():
        assert cls.decide is Results.decide, f"{method} overrides decide"
        assert cls.predict is Results.predict, f"{method} overrides predict"
    params = list(inspect.signature(Results.decide).parameters)
    assert params[:5] == ["self", "newdata", "strategy", "reject_cost", "missing"]
    assert {"loss", "rho"} <= set(params)


@pytest.mark.parametrize("method", ["evlogit", "evbinning", "isotonic"])
def test_calibrators_take_a_loss_matrix_like_the_classifiers(method):
    """A binary calibrator decides over a loss matrix through the general engine: with the 0-1
    loss plus reject it equals the closed-form path."""
    d = CAL.assign(y2=np.where(CAL["y3"] == "c", "pos", "neg"))
    fit = contract_examples()[method][0]("y2", d)
    new = NEW.iloc[:60]
    frame = ev.belief.Frame(list(fit.classes))
    for strategy in ("pessimistic", "optimistic", "pignistic", "probabilistic", "hurwicz"):
        a = fit.decide(new, strategy=strategy, reject_cost=0.3, rho=0.2)
        b = fit.decide(new, strategy=strategy, loss=loss_matrix(frame, reject=0.3), rho=0.2)
        pd.testing.assert_series_equal(a, b)
    L = loss_matrix(frame)
    L.loc["neg", "pos"] = 10.0  # missing a positive costs ten times more
    dec = fit.decide(new, loss=L)
    assert (dec == "pos").sum() >= (fit.decide(new) == "pos").sum()


def test_legacy_rule_names_are_errors_that_name_the_strategy():
    ma = MassArray.from_binary(m0=[0.8, 0.3], m1=[0.1, 0.3], m01=[0.1, 0.4])
    L = loss_matrix(ma.frame, reject=0.5)
    assert ev.belief.decide(ma, L, strategy="pessimistic").choice.tolist() == [0, "reject"]
    with pytest.raises(ValueError, match="'upper' is now strategy='pessimistic'"):
        ev.belief.decide(ma, L, strategy="upper")
    with pytest.raises(TypeError, match="rule= is now strategy="):
        ev.belief.decide(ma, L, rule="pessimistic")
    fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    with pytest.raises(ValueError, match="'lower' is now strategy='optimistic'"):
        fit.decide(None, strategy="lower")
    assert not hasattr(ev.belief, "DECISION_RULES")


def test_one_decide_binary():
    import evstat.calibration.base as cb

    assert not hasattr(cb, "decide_binary")
    assert ev.metrics.decide_binary is ev.metrics.evidential.decide_binary


def test_strategy_subsets_are_named_once():
    from evstat import comparison
    from evstat.belief import COMPARE_STRATEGIES, MINARY_STRATEGIES
    from evstat.metrics import evidential
    from evstat.plotting import _decision_regions, reject

    def default(f):
        return inspect.signature(f).parameters["strategies"].default

    assert default(reject.reject_curve) is MINARY_STRATEGIES
    assert default(evidential.reject_curve) is MINARY_STRATEGIES
    assert default(reject.compare_reject_curves) is COMPARE_STRATEGIES
    assert default(comparison.reject_curves) is COMPARE_STRATEGIES
    assert not hasattr(reject, "STRATEGIES") and not hasattr(_decision_regions, "STRATEGIES")
    assert set(MINARY_STRATEGIES) <= set(ev.belief.STRATEGIES)
