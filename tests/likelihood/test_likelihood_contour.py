"""Contours: the parameter contour pl(beta) = L(beta)/L(beta_hat) (eqs. 39, 53) and the
predictive contour pl(theta | s) (eqs. 41-45, 54-58), its level sets and the identity
Bel = int_0^1 U(gamma) d gamma, Pl = int_0^1 V(gamma) d gamma (notes, section 3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

import evstat as ev
from evstat.likelihood import ParameterContour, loglik, profile_level_set, profile_loglik


@pytest.fixture(scope="module")
def fit2():
    cal = ev.datasets.simulate_gaussian(25, seed=2)
    return ev.evlogit("y ~ x1 + x2", data=cal)


@pytest.fixture(scope="module")
def new2():
    return pd.DataFrame(
        {"x1": [-1.0, 0.3, 2.0, 0.0], "x2": [0.5, 0.0, 1.0, -2.5]}, index=[30, 10, 20, 40]
    )


# ---------------------------------------------------------------------------------------------
# parameter contour
# ---------------------------------------------------------------------------------------------


def test_likelihood_contour_is_relative_likelihood(fit2):
    lik = fit2.likelihood
    rng = np.random.default_rng(0)
    betas = fit2.params.to_numpy() + rng.normal(scale=1.0, size=(20, 3))
    direct = np.exp(loglik(betas, lik.X, lik.t) - loglik(fit2.params.to_numpy(), lik.X, lik.t))
    np.testing.assert_allclose(fit2.likelihood_contour(betas), direct, rtol=1e-12)
    assert np.all(fit2.likelihood_contour(betas) < 1)


def test_likelihood_contour_shapes_and_mle(fit2):
    assert fit2.likelihood_contour(fit2.params.to_numpy()).shape == ()
    assert float(fit2.likelihood_contour(fit2.params.to_numpy())) == 1.0
    assert fit2.likelihood_contour(np.zeros((4, 3, 3))).shape == (4, 3)
    assert fit2.likelihood_contour([[0.0, 1.0, 0.0]]).shape == (1,)
    c = ParameterContour(fit2.likelihood)
    assert float(c.log(fit2.params.to_numpy())) == 0.0
    assert np.all(c.log(np.ones((5, 3))) < 0)


def test_likelihood_contour_is_maximal_at_the_mle(fit2):
    b = fit2.params.to_numpy()
    h = 1e-4
    for e in np.eye(3):
        assert float(fit2.likelihood_contour(b + h * e)) < 1.0
        assert float(fit2.likelihood_contour(b - h * e)) < 1.0


@pytest.mark.parametrize("shape", [(2,), (4,), (3, 2), (2, 3, 4)])
def test_likelihood_contour_bad_shape(fit2, shape):
    with pytest.raises(ValueError, match=r"beta must have shape \(\.\.\., 3\)"):
        fit2.likelihood_contour(np.zeros(shape))


# ---------------------------------------------------------------------------------------------
# predictive contour
# ---------------------------------------------------------------------------------------------


def test_predictive_contour_shape_and_ends(fit2, new2):
    c = fit2.predictive_contour(new2)
    assert len(c) == 4
    assert c([0.1, 0.5, 0.9]).shape == (4, 3)
    assert c(0.5).shape == (4, 1)
    out = c([0.0, 1.0])
    np.testing.assert_array_equal(out, 0.0)
    vals = c(np.linspace(0.01, 0.99, 50))
    assert np.all((vals > 0) & (vals <= 1))
    assert list(c.index) == [30, 10, 20, 40]


def test_predictive_contour_equals_profile_definition(fit2, new2):
    c = fit2.predictive_contour(new2)
    theta = np.array([0.05, 0.3, 0.6, 0.97])
    lik = fit2.likelihood
    X = np.c_[np.ones(4), new2[["x1", "x2"]].to_numpy()]
    lp, _ = profile_loglik(lik, X[:, None, :], logit(theta)[None, :])
    np.testing.assert_allclose(c(theta), np.exp(lp - lik.loglik_hat), rtol=1e-12)


def test_predictive_contour_eq45_in_the_papers_convention():
    """Eq. 45 with sigma = -beta: pl(theta | s) = sup_sigma1 pl(ln(1/theta - 1) - sigma1 s, sigma1)."""
    from scipy.optimize import minimize_scalar

    cal = ev.datasets.simulate_gaussian(20, seed=11)
    fit = ev.evlogit("y ~ x1", data=cal)
    s = 0.8
    c = fit.predictive_contour(pd.DataFrame({"x1": [s]}))

    def pl_sigma(sig0: float, sig1: float) -> float:  # eq. 39, with p = 1/(1 + exp(sigma . x))
        return float(fit.likelihood_contour(np.array([-sig0, -sig1])))

    for theta in (0.1, 0.35, 0.5, 0.8, 0.95):
        res = minimize_scalar(
            lambda s1: -pl_sigma(np.log(1 / theta - 1) - s1 * s, s1), bracket=(-4, 0), tol=1e-12
        )
        assert float(c([theta])[0, 0]) == pytest.approx(-res.fun, abs=1e-8)


def test_predictive_contour_max_at_theta_hat(fit2, new2):
    c = fit2.predictive_contour(new2)
    th = c.theta_hat
    np.testing.assert_allclose(th, fit2.predict(new2).to_numpy(), rtol=1e-14)
    np.testing.assert_allclose(np.diag(c(th)), 1.0, rtol=0, atol=1e-12)
    for i in range(len(c)):
        grid = np.clip(th[i] + np.linspace(-0.02, 0.02, 401), 1e-9, 1 - 1e-9)
        vals = c(grid)[i]
        assert abs(grid[np.argmax(vals)] - th[i]) <= 0.02 / 200 + 1e-15
        # unimodal on the grid
        k = np.argmax(vals)
        assert np.all(np.diff(vals[: k + 1]) >= -1e-14) and np.all(np.diff(vals[k:]) <= 1e-14)


@pytest.mark.parametrize("gamma", [0.01, 0.1, 0.5, 0.9, 0.999])
def test_level_set_ends_have_plausibility_gamma(fit2, new2, gamma):
    c = fit2.predictive_contour(new2)
    ls = c.level_set(gamma)
    assert list(ls.columns) == ["lower", "upper"] and list(ls.index) == [30, 10, 20, 40]
    assert np.all(ls.lower < c.theta_hat) and np.all(c.theta_hat < ls.upper)
    for i, (lo, hi) in enumerate(ls.to_numpy()):
        assert float(c([lo])[i, 0]) == pytest.approx(gamma, abs=1e-8)
        assert float(c([hi])[i, 0]) == pytest.approx(gamma, abs=1e-8)


def test_level_sets_are_nested_and_degenerate_at_1_and_0(fit2, new2):
    c = fit2.predictive_contour(new2)
    wide, narrow = c.level_set(0.2), c.level_set(0.8)
    assert np.all(wide.lower < narrow.lower) and np.all(narrow.upper < wide.upper)
    one = c.level_set(1.0)
    np.testing.assert_allclose(one.lower, c.theta_hat, rtol=1e-14)
    np.testing.assert_allclose(one.upper, c.theta_hat, rtol=1e-14)
    zero = c.level_set(0.0)
    np.testing.assert_array_equal(zero.lower, 0.0)
    np.testing.assert_array_equal(zero.upper, 1.0)


def test_level_set_bad_gamma_and_theta(fit2, new2):
    c = fit2.predictive_contour(new2)
    with pytest.raises(ValueError, match=r"gamma .* must lie in \[0, 1\]"):
        c.level_set(1.5)
    with pytest.raises(ValueError, match=r"gamma .* must lie in \[0, 1\]"):
        c.level_set(-0.1)
    with pytest.raises(ValueError, match=r"theta values must lie in \[0, 1\]"):
        c([0.5, 1.2])
    with pytest.raises(ValueError, match="1-d array"):
        c(np.full((2, 2), 0.5))


def test_belief_equals_predict_belief(fit2, new2):
    c = fit2.predictive_contour(new2)
    b = c.belief()
    p = fit2.predict(new2, type="belief")
    pd.testing.assert_frame_equal(b, p)
    assert list(b.columns) == ["theta", "bel", "pl"]


def test_bel_pl_are_integrals_of_level_set_ends(fit2, new2):
    """A route different from eqs. 25-26: Bel = int_0^1 U(gamma) d gamma and
    Pl = int_0^1 V(gamma) d gamma (random-set view, eqs. 16-17, 23-24), with
    gamma = exp(-z), z = u / (1 - u) and Gauss-Legendre nodes in u."""
    x, w = np.polynomial.legendre.leggauss(80)
    u = (x + 1) / 2
    z = u / (1 - u)
    gamma = np.exp(-z)
    wg = w / 2 * np.exp(-z) / (1 - u) ** 2
    X = np.c_[np.ones(len(new2)), new2[["x1", "x2"]].to_numpy()]
    lo, hi = profile_level_set(fit2.likelihood, X, gamma)
    U, V = expit(lo), expit(hi)
    b = fit2.predict(new2, type="belief")
    np.testing.assert_allclose(U @ wg, b["bel"].to_numpy(), rtol=0, atol=1e-5)
    np.testing.assert_allclose(V @ wg, b["pl"].to_numpy(), rtol=0, atol=1e-5)


def test_level_set_on_coefficient_directions_vector_gamma(fit2):
    lik = fit2.likelihood
    gamma = np.array([0.05, 0.5, 1.0])
    lo, hi = profile_level_set(lik, np.eye(3), gamma)
    assert lo.shape == hi.shape == (3, 3)
    np.testing.assert_allclose(lo[:, 2], lik.beta_hat, rtol=1e-14)
    for j in range(3):
        for g, a, b in zip(gamma[:2], lo[j, :2], hi[j, :2]):
            for end in (a, b):
                lp, _ = profile_loglik(lik, np.eye(3)[j], end)
                assert float(lp) - lik.loglik_hat == pytest.approx(np.log(g), abs=1e-9)


def test_zero_design_row_without_intercept():
    """Without an intercept, the row s = 0 has eta = 0 for every beta: theta = 1/2 is known
    exactly, the contour is the indicator of 1/2 and Bel = Pl = 1/2."""
    cal = ev.datasets.simulate_gaussian(30, seed=6)
    fit = ev.evlogit("y ~ x1 + x2 - 1", data=cal)
    new = pd.DataFrame({"x1": [0.0, 0.5], "x2": [0.0, -0.3]})
    b = fit.predict(new, type="belief")
    assert b.iloc[0].tolist() == [0.5, 0.5, 0.5]
    assert b["bel"].iloc[1] < b["theta"].iloc[1] < b["pl"].iloc[1]
    c = fit.predictive_contour(new)
    np.testing.assert_array_equal(c([0.25, 0.5, 0.75])[0], [0.0, 1.0, 0.0])
    assert c.level_set(0.3).iloc[0].tolist() == [0.5, 0.5]
    ref = fit.predict(new, type="belief")
    fit.predictive_method = "reference"
    pd.testing.assert_frame_equal(fit.predict(new, type="belief"), ref, atol=1e-8, rtol=0)
