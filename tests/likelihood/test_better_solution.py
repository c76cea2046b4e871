"""A profile that finds a higher likelihood than the fit stops with R's message (profile.glm:
"profiling has found a better solution, so original fit had not converged") in every path that
turns a profile into a contour: coefficient profiles, the predictive contour (fast and reference)
and the parameter contour; rounding within BETTER_SOLUTION_TOL is set to 0 (issue 10, item 6)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood.contour import ParameterContour
from evstat.likelihood.linear_profile import BETTER_SOLUTION_TOL, relative_loglik
from evstat.likelihood.predictive import predictive_belief

MESSAGE = "profiling has found a better solution, so original fit had not converged"


def test_relative_loglik_rounding_and_error():
    np.testing.assert_array_equal(relative_loglik(-10.0, np.array([-10.5, -10.0 + BETTER_SOLUTION_TOL / 4])), [-0.5, 0.0])
    assert np.isnan(relative_loglik(-10.0, np.array([np.nan]))[0])
    with pytest.raises(ValueError, match=MESSAGE):
        relative_loglik(-10.0, np.array([-10.5, -10.0 + BETTER_SOLUTION_TOL]))


@pytest.fixture(scope="module")
def stale():
    """The likelihood of a real fit with its maximum lowered by 0.01: every profile near the
    mode lies above the stated maximum, as for a fit that stopped before converging."""
    fit = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(60, seed=2))
    lik = fit.likelihood
    return fit, lik, dataclasses.replace(lik, loglik_hat=lik.loglik_hat - 0.01)


@pytest.mark.parametrize("method", ["fast", "reference"])
def test_predictive_belief_refuses_a_fit_below_its_profile(stale, method):
    fit, lik, bad = stale
    A = np.array([[1.0, 0.2, -0.1]])
    theta, bel, pl = predictive_belief(lik, A, method=method)
    assert 0.0 <= bel[0] <= theta[0] <= pl[0] <= 1.0
    with pytest.raises(ValueError, match=MESSAGE):
        predictive_belief(bad, A, method=method)


def test_parameter_contour_refuses_a_point_above_the_fit(stale):
    _, lik, bad = stale
    assert float(ParameterContour(lik)(lik.beta_hat)) == 1.0
    with pytest.raises(ValueError, match=MESSAGE):
        ParameterContour(bad)(lik.beta_hat)


@pytest.fixture(scope="module")
def stale_multinom():
    """An evmultinom fit rebuilt from coefficients off its maximum (as a fit that stopped before
    converging): the profiles find a higher likelihood than the stated one."""
    rng = np.random.default_rng(4)
    z = np.r_[0, 1, 2, rng.integers(0, 3, 57)]
    data = pd.DataFrame({"y": np.array(list("abc"))[z], "s": rng.normal(size=60) + 0.8 * z})
    fit = ev.evmultinom("y ~ s", data)
    B = fit.likelihood.B_hat + np.array([[0.3, -0.2], [0.0, 0.25]])
    return fit, type(fit)(fit.class_frame, params=B)


def test_evmultinom_profile_stops_with_r_message(stale_multinom):
    """evmultinom's coefficient profile used to clamp a negative deviance to 0 (issue 24): it
    now stops like evlogit's, and a converged fit still profiles."""
    fit, stale = stale_multinom
    prof = fit.profile("b", "s")
    assert np.all(prof["pl"] <= 1.0) and prof["pl"].max() == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(ValueError, match=MESSAGE):
        stale.profile("b", "s")


def test_evmultinom_contour_stops_with_r_message(stale_multinom):
    fit, stale = stale_multinom
    new = pd.DataFrame({"s": [0.5]})
    assert np.all(fit.contour(new, ["a"], [0.2, 0.5]) <= 1.0)
    with pytest.raises(ValueError, match=MESSAGE):
        stale.contour(new, ["a"], np.linspace(0.05, 0.95, 19))
