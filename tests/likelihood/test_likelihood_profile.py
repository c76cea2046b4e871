"""Coefficient profiles and likelihood-ratio intervals (notes, section 6; R's profile.glm and
confint.glm). The interval ends are checked with the statsmodels offset refit and, for J = 1,
against a brute-force profile computed with scipy.optimize.minimize_scalar."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import CoefficientProfile, profile_conf_int, profile_loglik_reference


@pytest.fixture(scope="module")
def fit():
    return ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(25, seed=7))


@pytest.fixture(scope="module")
def fit1():
    return ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(25, seed=7))


def test_profile_table_columns_and_monotone_z(fit):
    from scipy.stats import chi2

    for term in fit.terms:
        prof = fit.profile(term)
        tab = prof.table
        assert list(tab.columns) == ["value", "z", "pl", *fit.terms]
        assert prof.term == term and prof.estimate == fit.params[term]
        assert prof.se == pytest.approx(fit.bse[term], rel=1e-14)
        assert np.all(np.diff(tab["value"]) > 0)
        assert np.all(np.diff(tab["z"]) > 0)  # the signed root increases through 0
        row = tab.index[tab["value"] == prof.estimate][0]
        assert tab.loc[row, "z"] == 0.0 and tab.loc[row, "pl"] == 1.0
        np.testing.assert_allclose(tab["pl"], np.exp(-0.5 * tab["z"] ** 2), rtol=1e-14)
        # the profiled coefficient's own column is the value
        np.testing.assert_allclose(tab[term], tab["value"], rtol=1e-12, atol=1e-12)
        # R's grid: steps of zmax/5 standard errors, until |z| >= zmax = sqrt(qchisq(0.99, 1))
        zmax = np.sqrt(chi2.ppf(0.99, 1))
        np.testing.assert_allclose(np.diff(tab["value"]), zmax / 5 * prof.se, rtol=1e-9)
        assert tab["z"].iloc[0] <= -zmax and tab["z"].iloc[-1] >= zmax
        assert np.all(np.abs(tab["z"].iloc[1:-1]) < zmax)


def test_profile_table_signed_root_and_constrained_maximisers(fit):
    prof = fit.profile("x2")
    tab = prof.table
    lik = fit.likelihood
    a = np.eye(3)[2]
    lp, _, beta = profile_loglik_reference(lik, a, tab["value"].to_numpy(), return_beta=True)
    z = np.sign(tab["value"] - prof.estimate) * np.sqrt(np.maximum(2 * (lik.loglik_hat - lp), 0))
    np.testing.assert_allclose(tab["z"], z, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(tab[fit.terms].to_numpy(), beta, rtol=1e-6, atol=1e-7)


def test_profile_alpha_and_maxsteps(fit):
    from scipy.stats import chi2

    short = fit.profile("x1", maxsteps=3)
    assert len(short.table) <= 2 * 2 + 1
    wide = fit.profile("x1", alpha=0.001)
    assert wide.table["z"].iloc[-1] >= np.sqrt(chi2.ppf(0.999, 1))
    by_index = fit.profile(1)
    pd.testing.assert_frame_equal(by_index.table, fit.profile("x1").table)
    assert "x1" in repr(by_index)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_profile_interval_ends_are_exact_roots(fit, level):
    from scipy.stats import chi2

    ci = fit.conf_int(level=level, method="profile")
    assert list(ci.columns) == ["lower", "upper"] and list(ci.index) == fit.terms
    lik = fit.likelihood
    q = chi2.ppf(level, 1)
    for j, term in enumerate(fit.terms):
        lo, hi = ci.loc[term]
        assert lo < fit.params[term] < hi
        for end in (lo, hi):
            lp = float(profile_loglik_reference(lik, np.eye(3)[j], end)[0])
            assert 2 * (lik.loglik_hat - lp) == pytest.approx(q, abs=1e-8)
        assert fit.profile(term).conf_int(level) == pytest.approx((lo, hi), abs=1e-12)


def test_profile_intervals_nest_with_level(fit):
    a, b = fit.conf_int(0.8), fit.conf_int(0.99)
    assert np.all(b["lower"] < a["lower"]) and np.all(a["upper"] < b["upper"])


def test_conf_int_returns_copies(fit):
    ci = fit.conf_int()
    ci.iloc[0, 0] = 123.0
    assert fit.conf_int().iloc[0, 0] != 123.0


def test_profile_conf_int_function(fit):
    out = profile_conf_int(fit.likelihood, [0, 2], 0.95)
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out, fit.conf_int().iloc[[0, 2]].to_numpy(), rtol=1e-13)
    with pytest.raises(ValueError, match="level must lie strictly between 0 and 1"):
        profile_conf_int(fit.likelihood, 1, 1.0)


def test_J1_slope_interval_against_brute_force_grid(fit1):
    """Statsmodels-free: profile of the slope by maximising over the intercept with
    scipy.optimize.minimize_scalar on a dense grid, then the LR interval."""
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import chi2

    lik = fit1.likelihood

    def lp_slope(b1: float) -> float:
        res = minimize_scalar(lambda b0: -float(lik.loglik([b0, b1])), bracket=(-3, 3), tol=1e-12)
        return -res.fun

    q = chi2.ppf(0.95, 1)
    b1, se = fit1.params["x1"], fit1.bse["x1"]
    grid = np.linspace(b1 - 4 * se, b1 + 6 * se, 801)
    dev = np.array([2 * (lik.loglik_hat - lp_slope(b)) for b in grid])
    inside = grid[dev <= q]
    step = grid[1] - grid[0]
    lo, hi = fit1.conf_int().loc["x1"]
    assert inside.min() - step < lo <= inside.min()
    assert inside.max() <= hi < inside.max() + step
    # and the roots of the brute-force profile
    lo_bf = brentq(lambda b: 2 * (lik.loglik_hat - lp_slope(b)) - q, grid[0], b1, xtol=1e-12)
    hi_bf = brentq(lambda b: 2 * (lik.loglik_hat - lp_slope(b)) - q, b1, grid[-1], xtol=1e-12)
    assert lo == pytest.approx(lo_bf, abs=1e-7)
    assert hi == pytest.approx(hi_bf, abs=1e-7)
    # the profile is asymmetric here: the Wald interval is not the LR interval
    wald = fit1.conf_int(method="wald").loc["x1"]
    assert abs(wald["upper"] - hi) > 1e-2


def test_wald_interval_is_estimate_pm_z_se(fit):
    from scipy.stats import norm

    for level in (0.9, 0.95):
        ci = fit.conf_int(level=level, method="wald")
        z = norm.ppf(0.5 + level / 2)
        np.testing.assert_allclose(ci["lower"], fit.params - z * fit.bse, rtol=1e-14)
        np.testing.assert_allclose(ci["upper"], fit.params + z * fit.bse, rtol=1e-14)
    ci = fit.conf_int(method="wald")
    np.testing.assert_allclose(ci["upper"] - fit.params, 1.96 * fit.bse, rtol=1e-4)


def test_bse_is_inverse_information(fit):
    from scipy.stats import norm

    lik = fit.likelihood
    from evstat.likelihood.logistic import information

    cov = np.linalg.inv(information(lik.beta_hat, lik.X))
    np.testing.assert_allclose(fit.bse.to_numpy(), np.sqrt(np.diag(cov)), rtol=1e-12)
    pd.testing.assert_frame_equal(
        fit.cov_params(), pd.DataFrame(cov, index=fit.terms, columns=fit.terms), rtol=1e-12
    )
    np.testing.assert_allclose(fit.tvalues, fit.params / fit.bse, rtol=1e-14)
    np.testing.assert_allclose(fit.pvalues, 2 * norm.sf(np.abs(fit.params / fit.bse)), rtol=1e-12)


def test_profile_plot_returns_axes(fit):
    prof = fit.profile("x1")
    ax = prof.plot()
    assert ax.get_xlabel() == "coefficient of x1"
    ax2 = prof.plot(kind="pl", level=0.9)
    assert "pl" in ax2.get_ylabel()
    with pytest.raises(ValueError, match="kind must be 'z' or 'pl'"):
        prof.plot(kind="q")
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda f: f.profile("x9"), r"unknown term 'x9'; the model's terms are \['Intercept', 'x1', 'x2'\]"),
        (lambda f: f.profile(7), "term index 7 out of range"),
        (lambda f: f.profile("x1", alpha=1.5), "alpha must lie strictly between 0 and 1"),
        (lambda f: f.conf_int(level=1.5), "level must lie strictly between 0 and 1"),
        (lambda f: f.conf_int(level=0.0), "level must lie strictly between 0 and 1"),
        (lambda f: f.conf_int(level=2, method="wald"), "level must lie strictly between 0 and 1"),
        (lambda f: f.conf_int(method="boot"), "method must be 'profile' or 'wald'"),
        (lambda f: f.profile("x1").conf_int(1.0), "level must lie strictly between 0 and 1"),
    ],
)
def test_bad_profile_arguments(fit, call, match):
    with pytest.raises(ValueError, match=match):
        call(fit)


def test_coefficient_profile_class_directly(fit):
    prof = CoefficientProfile(fit.likelihood, 0, fit.terms, delta=0.25)
    np.testing.assert_allclose(np.diff(prof.table["value"]), 0.25 * prof.se, rtol=1e-9)


def test_a_better_solution_stops_the_profile_with_r_message(fit):
    """MASS::profile.glm: a deviance below -1e-3 means the fit had not converged."""
    import dataclasses

    from evstat.likelihood.coefficient_profile import BETTER_SOLUTION_TOL, profile_deviance

    np.testing.assert_array_equal(profile_deviance(-5.0, np.array([-5.0 + BETTER_SOLUTION_TOL / 4, -6.0])), [0.0, 2.0])
    lik = dataclasses.replace(fit.likelihood, loglik_hat=fit.likelihood.loglik_hat - 1.0)  # stopped short
    with pytest.raises(ValueError, match="profiling has found a better solution, so original fit had not converged"):
        CoefficientProfile(lik, 1, fit.terms)


def test_fallback_to_statsmodels_refits_warns_and_names_the_rows(fit):
    from evstat.likelihood import profile_loglik
    from evstat.likelihood.linear_profile import ProfileFallbackWarning

    A = np.asarray(fit.model_frame.X[:3])
    e = A @ np.asarray(fit.params) + np.array([0.5, -0.5, 1.0])
    with pytest.warns(ProfileFallbackWarning, match=r"did not converge within 1 iterations for 3 of 3 problems \(rows 0, 1, 2"):
        lp, _ = profile_loglik(fit.likelihood, A, e, max_iter=1)
    ref, _ = profile_loglik_reference(fit.likelihood, A, e)
    np.testing.assert_allclose(lp, ref, rtol=0, atol=1e-6)
