"""Tests of isotonic: PAV calibration and its evidential version (blocks as bins)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.calibration import IsotonicCalibration, pav_blocks
from evstat.likelihood import bernoulli_belief, binomial_contour


def slow_isotonic(k: list[int], n: list[int]) -> list[Fraction]:
    """Min-max formula of the isotonic regression on grouped data (exact, O(m^3)):
    f_i = max_{j <= i} min_{l >= i} (k_j + ... + k_l) / (n_j + ... + n_l)."""
    m = len(k)
    out = []
    for i in range(m):
        out.append(
            max(
                min(Fraction(sum(k[j : l + 1]), sum(n[j : l + 1])) for l in range(i, m))
                for j in range(i + 1)
            )
        )
    return out


@pytest.fixture(scope="module")
def pima():
    d = ev.datasets.load("pima_scores")
    return d[d.set == "calibration"], d[d.set == "test"]


def test_gebel_example():
    cal = pd.DataFrame({"s": [1.0, 2, 3, 4, 5, 6, 7], "y": [0, 1, 0, 0, 1, 0, 1]})
    fit = ev.isotonic("y ~ s", cal)
    expected = [0, 1 / 3, 1 / 3, 1 / 3, 1 / 2, 1 / 2, 1]
    np.testing.assert_allclose(fit.fittedvalues.to_numpy(), expected, rtol=0, atol=1e-15)
    assert fit.k.tolist() == [0, 1, 1, 1] and fit.n.tolist() == [1, 3, 2, 1]
    np.testing.assert_array_equal(fit.predict(cal), fit.fittedvalues)
    # shuffled rows give the same fit
    back = ev.isotonic("y ~ s", cal.sample(frac=1, random_state=3))
    np.testing.assert_array_equal(back.k, fit.k)
    # the evidential blocks: closed form vs quadrature of the binomial contour
    t = fit.tidy()
    for k, n, bel, pl in zip(t.k, t.n, t.bel, t.pl):
        qb, qp = bernoulli_belief(lambda u, k=k, n=n: float(binomial_contour(u, k, n)), k / n)
        assert bel == pytest.approx(qb, abs=1e-9) and pl == pytest.approx(qp, abs=1e-9)
    assert (t.loc[0, "bel"], t.loc[0, "pl"]) == (0.0, 0.5)  # k = 0, n = 1: Pl = 1/(n+1)
    assert (t.loc[3, "bel"], t.loc[3, "pl"]) == (0.5, 1.0)  # k = n = 1: Bel = n/(n+1)


def test_pav_blocks_direct():
    starts, kb, nb = pav_blocks([0, 1, 0, 0, 1, 0, 1], [1] * 7)
    assert starts.tolist() == [0, 1, 4, 6]
    # equal adjacent means are pooled: blocks are the maximal constant runs
    starts, kb, nb = pav_blocks([1, 0, 1, 0], [1, 1, 1, 1])
    assert (starts.tolist(), kb.tolist(), nb.tolist()) == ([0], [2], [4])
    starts, kb, nb = pav_blocks([1, 2, 1], [2, 4, 2])  # three equal means 1/2
    assert (kb.tolist(), nb.tolist()) == ([4], [8])
    with pytest.raises(ValueError, match="0 <= k <= n"):
        pav_blocks([2], [1])


def test_ties_pooled():
    from sklearn.isotonic import IsotonicRegression

    cal = pd.DataFrame({"s": [1.0, 1.0, 2.0, 2.0, 3.0], "y": [1, 0, 0, 0, 1]})
    fit = ev.isotonic("y ~ s", cal)
    # groups (k, n): (1, 2), (0, 2), (1, 1) -> (1, 4), (1, 1)
    assert fit.k.tolist() == [1, 1] and fit.n.tolist() == [4, 1]
    np.testing.assert_allclose(fit.fittedvalues, [0.25, 0.25, 0.25, 0.25, 1.0])
    ir = IsotonicRegression().fit(cal.s, cal.y)
    np.testing.assert_allclose(fit.fittedvalues, ir.predict(cal.s), atol=1e-15)
    # tied scores always share one fitted value even with opposite labels in the middle
    cal2 = pd.DataFrame({"s": [0.0, 1, 1, 1, 2], "y": [0, 1, 0, 1, 1]})
    f2 = ev.isotonic("y ~ s", cal2)
    assert len(set(f2.fittedvalues[1:4])) == 1


def test_against_sklearn_scipy_and_minmax(pima):
    from scipy.optimize import isotonic_regression
    from sklearn.isotonic import IsotonicRegression

    cal, _ = pima
    for col in ("svm1", "svm2", "svm3"):
        fit = ev.isotonic(f"y ~ {col}", cal)
        ir = IsotonicRegression().fit(cal[col], cal.y)
        np.testing.assert_allclose(fit.fittedvalues, ir.predict(cal[col]), rtol=0, atol=1e-12)
    rng = np.random.default_rng(5)
    s = np.round(rng.normal(size=300), 1)  # many ties
    y = (rng.uniform(size=300) < 1 / (1 + np.exp(-2 * s))).astype(int)
    fit = ev.isotonic("y ~ s", pd.DataFrame({"s": s, "y": y}))
    np.testing.assert_allclose(fit.fittedvalues, IsotonicRegression().fit(s, y).predict(s), rtol=0, atol=1e-12)
    u, inv = np.unique(s, return_inverse=True)
    ku = np.bincount(inv, weights=y).astype(int)
    nu = np.bincount(inv)
    res = isotonic_regression(ku / nu, weights=nu)
    assert np.asarray(res.blocks)[:-1].tolist() == pav_blocks(ku, nu)[0].tolist()
    exact = slow_isotonic(ku.tolist(), nu.tolist())
    per_group = fit.predict(pd.DataFrame({"s": u}))
    assert per_group.tolist() == [float(f) for f in exact]


@given(
    y=st.lists(st.integers(0, 1), min_size=2, max_size=25),
    s=st.lists(st.integers(-4, 4), min_size=25, max_size=25),
)
@settings(max_examples=60, deadline=None)
def test_pav_equals_minmax_formula(y, s):
    s = np.asarray(s[: len(y)], dtype=float)
    y = np.asarray(y)
    assume(np.unique(s).size >= 2 and np.unique(y).size == 2)
    fit = ev.isotonic("y ~ s", pd.DataFrame({"s": s, "y": y}))
    u, inv = np.unique(s, return_inverse=True)
    ku = np.bincount(inv, weights=y).astype(int).tolist()
    nu = np.bincount(inv).tolist()
    exact = slow_isotonic(ku, nu)
    assert fit.predict(pd.DataFrame({"s": u})).tolist() == [float(f) for f in exact]
    th = fit.tidy()["theta"].to_numpy()
    assert (np.diff(th) > 0).all()  # maximal blocks: strictly increasing values
    b = fit.predict(pd.DataFrame({"s": np.linspace(-6, 6, 25)}), type="belief")
    assert ((0 <= b.bel) & (b.bel <= b.theta) & (b.theta <= b.pl) & (b.pl <= 1)).all()
    assert (np.diff(b.theta.to_numpy()) >= 0).all()
    m = fit.predict(pd.DataFrame({"s": u}), type="mass").values
    assert np.allclose(m.sum(axis=1), 1.0, atol=1e-12)


def test_step_rule_between_and_outside_blocks():
    cal = pd.DataFrame({"s": [1.0, 2, 3, 4, 5, 6, 7], "y": [0, 1, 0, 0, 1, 0, 1]})
    fit = ev.isotonic("y ~ s", cal)
    np.testing.assert_allclose(fit.cuts, [1.5, 4.5, 6.5])
    new = pd.DataFrame({"s": [-1e9, 1.0, 1.5, 1.5000001, 4.4, 4.5, 4.6, 6.5, 6.6, 1e9]})
    assert fit.block_of(new).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    np.testing.assert_allclose(
        fit.predict(new), [0, 0, 0, 1 / 3, 1 / 3, 1 / 3, 0.5, 0.5, 1, 1]
    )
    assert fit.tidy()["interval"].tolist() == ["(-Inf, 1.5]", "(1.5, 4.5]", "(4.5, 6.5]", "(6.5, Inf)"]


def test_summary_tidy_glance_augment(pima):
    cal, test = pima
    fit = ev.isotonic("label ~ svm2", cal)
    text = fit.summary().as_text()
    assert "Evidential isotonic calibration (isotonic)" in text and f"PAV blocks:   {fit.n_blocks}" in text
    t = fit.tidy()
    assert list(t.columns) == ["block", "score_min", "score_max", "interval", "k", "n", "theta", "bel", "pl", "ignorance"]
    assert t["n"].sum() == len(cal) and (t.score_min <= t.score_max).all()
    assert (t.score_max.to_numpy()[:-1] < t.score_min.to_numpy()[1:]).all()
    g = fit.glance()
    assert g.loc[0, "n_blocks"] == fit.n_blocks and g.loc[0, "nobs"] == len(cal)
    cb = fit.calibration_belief()
    assert g.loc[0, "mean_ignorance"] == pytest.approx(float((cb.pl - cb.bel).mean()), abs=1e-14)
    aug = fit.augment(test.head(4))
    assert list(aug.index) == list(test.head(4).index) and ".betp" in aug
    d = fit.decide(test, strategy="pessimistic", reject_cost=0.3)
    assert set(d.cat.categories) == {"neg", "pos", "reject"}


def test_cuts_survive_save_load(tmp_path, pima):
    """Index order, predictions, tidy and decisions after save/load: tests/test_contract.py."""
    cal, _ = pima
    fit = ev.isotonic("label ~ np.log(svm3 + 2)", cal)
    back = ev.load(fit.save(tmp_path / "iso.json"))
    assert isinstance(back, IsotonicCalibration)
    np.testing.assert_array_equal(back.cuts, fit.cuts)


def test_bad_input(pima):
    cal, _ = pima
    with pytest.raises(ValueError, match="isotonic calibrates one score.*2 score columns.*disjoint"):
        ev.isotonic("y ~ svm1 + svm2", cal)
    with pytest.raises(ValueError, match="'c' is constant"):
        ev.isotonic("y ~ c", cal.assign(c=0.5))
    with pytest.raises(ValueError, match="at least one score column"):
        ev.isotonic("y ~ 1", cal)
    with pytest.raises(ValueError, match="single class.*both classes"):
        ev.isotonic("y ~ svm1", cal.assign(y=1))
    fit = ev.isotonic("y ~ svm1", cal)
    with pytest.raises(ValueError, match="missing values"):
        fit.predict(pd.DataFrame({"svm1": [0.1, np.nan]}))
