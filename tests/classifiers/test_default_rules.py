"""Each model decides by its paper's rule by default (issue 25, item 8): the default strategy is
a declared capability, said in ``default_decision()`` and the summary; credal_knn's is the credal
rule of Liu, Pan and Dezert 2013 (classes, meta-classes, outliers)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.classifiers import OUTLIER


@pytest.fixture(scope="module")
def three() -> pd.DataFrame:
    """Three 2-D Gaussian classes (Liu, Pan and Dezert's 2013 Test 1.2 layout, unit variances)."""
    rng = np.random.default_rng(0)
    centres = {"a": (0.0, 0.0), "b": (6.0, 0.0), "c": (3.0, 4.0)}
    return pd.concat(
        [pd.DataFrame({"x1": rng.normal(m[0], 1, 50), "x2": rng.normal(m[1], 1, 50), "y": c}) for c, m in centres.items()],
        ignore_index=True,
    )


NEW = pd.DataFrame({"x1": [100.0, 3.0, 0.0], "x2": [100.0, 0.0, 0.0]}, index=["far", "midway", "in a"])


def test_credal_knn_decides_by_the_credal_rule(three: pd.DataFrame) -> None:
    fit = ev.credal_knn("y ~ x1 + x2", three)
    assert fit.capabilities.default_strategy == "credal"
    got = fit.decide(NEW)
    assert got["far"] == OUTLIER  # was 'a' (the loss-based default)
    assert got["midway"] == frozenset({"a", "b"})  # was 'b': the meta-class of the two classes
    assert got["in a"] == "a"
    pd.testing.assert_series_equal(got, fit.decide(NEW, strategy="credal"))
    # by hand: the focal set of maximal mass (the whole frame is the outlier class)
    m = fit.predict(NEW, type="mass")
    assert int(np.argmax(m.values[0, 1:])) + 1 == m.values.shape[1] - 1
    # costs ask for a loss-based rule: pessimistic, as if named
    pd.testing.assert_series_equal(fit.decide(NEW, reject_cost=0.3), fit.decide(NEW, strategy="pessimistic", reject_cost=0.3))
    with pytest.raises(ValueError, match="not loss-based; it takes neither reject_cost nor loss"):
        fit.decide(NEW, strategy="credal", reject_cost=0.3)
    text = str(fit.summary())
    assert "Default decision" in text and "strategy='credal'" in text and "Liu, Pan and Dezert (2013)" in text


@pytest.mark.parametrize("name", ["eknn", "evnn"])
def test_denoeux_classifiers_default_to_the_upper_expected_loss(three: pd.DataFrame, name: str) -> None:
    fit = getattr(ev, name)("y ~ x1 + x2", three)
    assert fit.capabilities.default_strategy == "pessimistic"
    pd.testing.assert_series_equal(fit.decide(NEW, reject_cost=0.2), fit.decide(NEW, strategy="pessimistic", reject_cost=0.2))
    # masses on the classes and the frame only: without reject, max Bel = max Pl = max BetP (Denoeux 1995)
    b = fit.predict(NEW, type="belief")
    by_bel = b["bel"].idxmax(axis=1)
    assert fit.decide(NEW).astype(object).tolist() == by_bel.tolist() == b["pl"].idxmax(axis=1).tolist()
    assert "strategy='pessimistic'" in str(fit.summary()) and "Denoeux" in str(fit.summary())


def test_calibrators_default_to_the_bayes_rule(three: pd.DataFrame) -> None:
    d = three.assign(s_a=-three.x1, s_b=three.x1 - 3, s_c=three.x2 - 2)
    for fit in (ev.temperature("y ~ s_a + s_b + s_c", d), ev.matrix_scaling("y ~ x1 + x2", three)):
        assert fit.capabilities.default_strategy == "probabilistic"
        new = d.iloc[::7]
        p = fit.predict(new)
        assert fit.decide(new).astype(object).tolist() == p.idxmax(axis=1).tolist()
        rc = fit.decide(new, reject_cost=0.2).astype(object)
        expected = np.where(1 - p.max(axis=1) > 0.2, "reject", p.idxmax(axis=1))
        assert rc.tolist() == expected.tolist()
        assert "strategy='probabilistic'" in str(fit.summary()) and "Bayes rule" in str(fit.summary())


def test_evmultinom_defaults_to_paper_000s_pessimistic_strategy(three: pd.DataFrame) -> None:
    fit = ev.evmultinom("y ~ x1 + x2", three.iloc[::3])
    assert fit.capabilities.default_strategy == "pessimistic"
    new = three.iloc[1::9]
    b = fit.predict(new, type="belief")
    expected = np.where(1 - b["bel"].max(axis=1) > 0.3, "reject", b["bel"].idxmax(axis=1))
    assert fit.decide(new, reject_cost=0.3).astype(object).tolist() == expected.tolist()
    assert "Minary et al. (2019" in str(fit.summary())

