"""Tests of betacal: beta calibration (Kull et al. 2017) and its evidential version."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit, log_expit

import evstat as ev
from evstat.calibration.beta import BetaCalibration
from evstat.likelihood import platt_targets, predictive_belief


def make_data(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.02, 0.98, n)
    return pd.DataFrame({"p": s, "y": (rng.uniform(size=n) < s**2).astype(int)})


def u_shaped(seed: int = 0) -> pd.DataFrame:
    """Positives at both ends of the score range: the full fit has a < 0."""
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.01, 0.99, 150)
    q = np.where((s < 0.15) | (s > 0.6), 0.8, 0.2)
    return pd.DataFrame({"p": s, "y": (rng.uniform(size=150) < q).astype(int)})


def scipy_mle(Z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Direct maximum likelihood: minimise the negative log-likelihood with scipy."""
    from scipy.optimize import minimize

    def nll(beta):
        eta = Z @ beta
        return -np.sum(t * log_expit(eta) + (1 - t) * log_expit(-eta))

    def grad(beta):
        return -Z.T @ (t - expit(Z @ beta))

    res = minimize(nll, np.zeros(Z.shape[1]), jac=grad, method="BFGS", options={"gtol": 1e-11, "maxiter": 10_000})
    return res.x


def design(s: np.ndarray, parameters: str) -> np.ndarray:
    if parameters == "abm":
        return np.c_[np.ones_like(s), np.log(s), -np.log(1 - s)]
    if parameters == "am":
        return np.c_[np.ones_like(s), np.log(s / (1 - s))]
    return np.c_[np.log(2 * s), np.log(2 * (1 - s))]


@pytest.mark.parametrize("parameters", ["abm", "am", "ab"])
@pytest.mark.parametrize("targets", ["platt", "binary"])
def test_against_scipy_mle(parameters, targets):
    cal = make_data()
    fit = ev.betacal("y ~ p", cal, parameters=parameters, targets=targets)
    t = platt_targets(cal.y) if targets == "platt" else cal.y.to_numpy(float)
    beta = scipy_mle(design(cal.p.to_numpy(), parameters), t)
    if parameters == "ab":
        # the reference code's design log(2s), log(2(1-s)) has b = -coefficient
        np.testing.assert_allclose([fit.a, fit.b], [beta[0], -beta[1]], rtol=1e-6)
        assert fit.m == 0.5
    else:
        np.testing.assert_allclose(fit.params.to_numpy(), beta, rtol=1e-6)
    assert fit.dropped is None  # a, b > 0 here


def test_equals_evlogit_on_the_beta_design():
    cal = make_data(seed=3)
    cal = cal.assign(lp=np.log(cal.p), l1p=-np.log1p(-cal.p))
    fit = ev.betacal("y ~ p", cal)
    ref = ev.evlogit("y ~ lp + l1p", cal)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-10)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.bse.to_numpy(), rtol=1e-8)
    np.testing.assert_allclose(fit.conf_int().to_numpy(), ref.conf_int().to_numpy(), rtol=1e-8)
    # (scores below the fit's eps, half the smallest calibration score, are clipped: the rule for
    # exact 0 and 1, issue 37; so the smallest new score here is the calibration data's)
    new = pd.DataFrame({"p": [float(cal.p.min()), 0.2, 0.5, 0.97]})
    new = new.assign(lp=np.log(new.p), l1p=-np.log1p(-new.p))
    np.testing.assert_allclose(fit.predict(new, type="belief").to_numpy(), ref.predict(new, type="belief").to_numpy(), atol=1e-10)
    assert fit.loglike == pytest.approx(ref.loglike, rel=1e-12)
    assert fit.deviance == pytest.approx(ref.deviance, rel=1e-10)


def test_evidential_against_reference_path():
    cal = make_data(n=60, seed=4)
    fit = ev.betacal("y ~ p", cal)
    new = pd.DataFrame({"p": [0.05, 0.5, 0.93]})
    fast = fit.predict(new, type="belief")
    fit.predictive_method = "reference"
    ref = fit.predict(new, type="belief")
    np.testing.assert_allclose(fast.to_numpy(), ref.to_numpy(), atol=1e-8)
    Z = fit._design(new)[0]
    th, bel, pl = predictive_belief(fit.likelihood, Z, method="reference")
    np.testing.assert_allclose(ref[["theta", "bel", "pl"]].to_numpy(), np.c_[th, bel, pl], atol=1e-12)


def test_negative_coefficient_refit():
    cal = u_shaped()
    full = ev.betacal("y ~ p", cal, refit_negative=False)
    assert full.params["log(p)"] < 0 and full.dropped is None and len(full.terms) == 3
    fit = ev.betacal("y ~ p", cal)
    assert fit.dropped == "log(p)" and fit.terms == ["Intercept", "-log(1-p)"] and fit.a == 0.0
    beta = scipy_mle(design(cal.p.to_numpy(), "abm")[:, [0, 2]], platt_targets(cal.y))
    np.testing.assert_allclose(fit.params.to_numpy(), beta, rtol=1e-6)
    assert fit.b == pytest.approx(beta[1], rel=1e-6)
    assert "Dropped" in fit.summary().as_text()
    assert fit.glance().loc[0, "dropped"] == "log(p)"
    # b negative: refit without -log(1-p)
    rng = np.random.default_rng(0)
    s = rng.uniform(0.01, 0.99, 150)
    q = np.where(s > 0.85, 0.2, np.where(s > 0.4, 0.9, 0.1))
    cal2 = pd.DataFrame({"p": s, "y": (rng.uniform(size=150) < q).astype(int)})
    full2 = ev.betacal("y ~ p", cal2, refit_negative=False)
    assert full2.params["log(p)"] > 0 > full2.params["-log(1-p)"]
    fit2 = ev.betacal("y ~ p", cal2)
    assert fit2.dropped == "-log(1-p)" and fit2.b == 0.0 and fit2.terms == ["Intercept", "log(p)"]
    beta2 = scipy_mle(design(s, "abm")[:, [0, 1]], platt_targets(cal2.y))
    np.testing.assert_allclose(fit2.params.to_numpy(), beta2, rtol=1e-6)
    # "am" and "ab" are never refitted (as in the reference code)
    assert ev.betacal("y ~ p", cal, parameters="ab").dropped is None


def test_midpoint_and_kull_map():
    cal = make_data(seed=7)
    fit = ev.betacal("y ~ p", cal)
    a, b, m = fit.kull_map
    assert 0 < m < 1
    assert a * np.log(m) - b * np.log1p(-m) + fit.c == pytest.approx(0.0, abs=1e-9)
    assert fit.predict(pd.DataFrame({"p": [m]})).iloc[0] == pytest.approx(0.5, abs=1e-9)
    am = ev.betacal("y ~ p", cal, parameters="am")
    assert am.a == am.b and am.m == pytest.approx(expit(-am.c / am.a), rel=1e-12)
    ab = ev.betacal("y ~ p", cal, parameters="ab")
    assert ab.c == pytest.approx((ab.a - ab.b) * np.log(2), rel=1e-12)
    half = ab.predict(pd.DataFrame({"p": [0.5]}), type="belief").iloc[0]
    assert half.tolist() == [0.5, 0.5, 0.5]  # s = 0.5 fixes theta = 0.5 under "ab"
    # the calibration map written with Kull's parameters equals the prediction
    s = np.array([float(cal.p.min()), 0.3, 0.8])  # (below half the smallest calibration score: clipped)
    for f in (fit, am, ab):
        np.testing.assert_allclose(
            f.predict(pd.DataFrame({"p": s})).to_numpy(),
            expit(f.a * np.log(s) - f.b * np.log1p(-s) + f.c),
            rtol=1e-12,
        )


def test_summary_glance_tidy():
    fit = ev.betacal("y ~ p", make_data())
    text = fit.summary().as_text()
    assert text.startswith("Evidential beta calibration (betacal)")
    assert "a log(p)" not in text and "Kull et al.:" in text and "Platt" in text
    g = fit.glance()
    assert g.loc[0, "method"] == "betacal" and g.loc[0, "parameters"] == "abm"
    assert {"a", "b", "m", "mean_ignorance"} <= set(g.columns)
    assert fit.tidy()["term"].tolist() == ["Intercept", "log(p)", "-log(1-p)"]
    assert fit.profile("log(p)").conf_int()[0] == pytest.approx(fit.conf_int().loc["log(p)", "lower"], rel=1e-6)


def test_every_parametrisation_survives_save_load(tmp_path):
    """The contract suite (tests/test_contract.py) saves and loads the default fit; here the
    other parametrisations."""
    cal = u_shaped(1).assign(cls=lambda d: np.where(d.y == 1, "yes", "no"))
    new = pd.DataFrame({"p": [0.9, 0.1, 0.5]}, index=["c", "a", "b"])
    for kw in ({}, {"parameters": "ab", "targets": "binary"}, {"parameters": "am"}):
        fit = ev.betacal("cls ~ p", cal, **kw)
        b = fit.predict(new, type="belief")
        assert list(b.index) == ["c", "a", "b"]
        back = ev.load(fit.save(tmp_path / "beta.json"))
        assert isinstance(back, BetaCalibration)
        assert back.terms == fit.terms and back.dropped == fit.dropped
        pd.testing.assert_frame_equal(back.predict(new, type="belief"), b)
        pd.testing.assert_series_equal(back.params, fit.params)
        assert back.decide(new).tolist() == fit.decide(new).tolist()


def test_bad_input():
    cal = make_data()
    # exact 0 and 1 are clipped by the one rule (issue 37); outside [0, 1] is refused
    with pytest.raises(ValueError, match=r"in \[0, 1\].*'p'.*1 of 200 rows.*ev.evlogit"):
        ev.betacal("y ~ p", cal.assign(p=np.r_[0.0, 1.2, cal.p[2:]]))
    with pytest.raises(ValueError, match="outside \\[0, 1\\].*ev.evlogit"):
        ev.betacal("y ~ p", cal.assign(p=cal.p * 4 - 2))
    fit = ev.betacal("y ~ p", cal)
    with pytest.raises(ValueError, match="newdata is outside \\[0, 1\\] in 1 of 2 rows \\(index 'x'"):
        fit.predict(pd.DataFrame({"p": [0.5, 1.5]}, index=["w", "x"]))
    assert np.isfinite(fit.predict(pd.DataFrame({"p": [0.0, 1.0]}))).all()  # clipped at the fit's eps
    with pytest.raises(ValueError, match="one score in \\(0, 1\\).*2 score columns"):
        ev.betacal("y ~ p + q", cal.assign(q=cal.p**2))
    with pytest.raises(ValueError, match="parameters must be 'abm'"):
        ev.betacal("y ~ p", cal, parameters="abc")
    with pytest.raises(ValueError, match="targets must be 'platt'"):
        ev.betacal("y ~ p", cal, targets="smooth")
    sep = pd.DataFrame({"p": [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], "y": [0, 0, 0, 1, 1, 1]})
    with pytest.raises(ValueError, match="separated.*targets='platt'"):
        ev.betacal("y ~ p", sep, parameters="am", targets="binary")


@given(seed=st.integers(0, 2**31 - 1), n=st.integers(8, 40), parameters=st.sampled_from(["abm", "am", "ab"]))
@settings(max_examples=12, deadline=None)
def test_invariants(seed, n, parameters):
    rng = np.random.default_rng(seed)
    s = rng.uniform(1e-6, 1 - 1e-6, n)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    fit = ev.betacal("y ~ p", pd.DataFrame({"p": s, "y": y}), parameters=parameters)
    new = pd.DataFrame({"p": expit(rng.normal(scale=4, size=10))})
    b = fit.predict(new, type="belief")
    assert ((0 <= b.bel) & (b.bel <= b.theta) & (b.theta <= b.pl) & (b.pl <= 1)).all()
    m = fit.predict(new, type="mass").values
    assert np.allclose(m.sum(axis=1), 1.0, atol=1e-12) and (m >= 0).all()
    # Kull's map, where the rule for exact 0 and 1 leaves the scores as they are (at least the
    # fit's eps from 0 and 1; issue 37)
    eps = float(np.exp(fit.log_eps))
    inside = ((new.p >= eps) & (1 - new.p >= eps)).to_numpy()
    np.testing.assert_allclose(b.theta[inside], expit(fit.a * np.log(new.p) - fit.b * np.log1p(-new.p) + fit.c)[inside],
                               rtol=1e-9, atol=1e-300)
