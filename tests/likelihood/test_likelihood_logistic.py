"""The logistic log-likelihood with fractional targets, its derivatives, its maximiser, and
Platt's smoothed targets (Minary et al. 2019, eqs. 33-37, 50-52)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from evstat.likelihood import loglik, newton_mle, platt_targets
from evstat.likelihood.logistic import information, loglik_eta, score


def design(n: int, J: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    S = rng.normal(size=(n, J)) + 0.7 * y[:, None]
    return np.c_[np.ones(n), S], y


# ---------------------------------------------------------------------------------------------
# Platt's targets
# ---------------------------------------------------------------------------------------------


def test_platt_targets_by_hand_eq35_52():
    # N+ = 3, N- = 2: positives (3+1)/(3+2) = 0.8, negatives 1/(2+2) = 0.25
    np.testing.assert_allclose(platt_targets([1, 0, 0, 1, 1]), [0.8, 0.25, 0.25, 0.8, 0.8], rtol=1e-15)
    # N+ = 7, N- = 3: 8/9 and 1/5
    y = np.r_[np.ones(7), np.zeros(3)]
    t = platt_targets(y)
    np.testing.assert_allclose(t[:7], 8 / 9, rtol=1e-15)
    np.testing.assert_allclose(t[7:], 1 / 5, rtol=1e-15)
    # N+ = 1, N- = 1: 2/3 and 1/3 (the smallest possible calibration set)
    np.testing.assert_allclose(platt_targets([0, 1]), [1 / 3, 2 / 3], rtol=1e-15)


def test_platt_targets_bool_and_float_input():
    np.testing.assert_array_equal(platt_targets([True, False, True]), platt_targets([1.0, 0.0, 1.0]))


@settings(max_examples=40, deadline=None)
@given(n_pos=st.integers(1, 500), n_neg=st.integers(1, 500))
def test_platt_targets_property(n_pos, n_neg):
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    t = platt_targets(y)
    assert np.all((t > 0) & (t < 1))
    assert np.all(t[:n_pos] > 0.5) and np.all(t[n_pos:] < 0.5)
    assert t[0] == (n_pos + 1) / (n_pos + 2)
    assert t[-1] == 1 / (n_neg + 2)


# ---------------------------------------------------------------------------------------------
# log-likelihood and derivatives
# ---------------------------------------------------------------------------------------------


def test_loglik_matches_direct_formula_eq37():
    X, y = design(12, 2, 1)
    t = platt_targets(y)
    beta = np.array([0.3, -0.8, 1.1])
    p = expit(X @ beta)
    direct = np.sum(t * np.log(p) + (1 - t) * np.log(1 - p))
    assert float(loglik(beta, X, t)) == pytest.approx(direct, rel=1e-13)
    # the papers' sign convention: p = 1/(1 + exp(sigma . x)) with sigma = -beta
    sigma = -beta
    p_paper = 1 / (1 + np.exp(X @ sigma))
    np.testing.assert_allclose(p_paper, p, rtol=1e-13)


def test_loglik_batch_shapes_and_offset():
    X, y = design(10, 1, 2)
    betas = np.random.default_rng(0).normal(size=(4, 3, 2))
    out = loglik(betas, X, y)
    assert out.shape == (4, 3)
    assert out[2, 1] == pytest.approx(float(loglik(betas[2, 1], X, y)), rel=1e-14)
    # an offset adds to the linear predictor
    off = np.linspace(-1, 1, 10)
    b = np.array([0.2, 0.5])
    assert float(loglik(b, X, y, offset=off)) == pytest.approx(float(loglik_eta(X @ b + off, y)), rel=1e-14)


def test_loglik_extreme_linear_predictors_finite():
    t = np.array([1.0, 0.0, 0.7])
    eta = np.array([1e6, -1e6, 0.0])
    val = float(loglik_eta(eta, t))
    assert np.isfinite(val)
    assert val == pytest.approx(0.7 * np.log(0.5) + 0.3 * np.log(0.5), rel=1e-12)
    # wrong side: t = 1 at eta = -1e6 costs exactly 1e6 (log expit(-1e6) = -1e6)
    assert float(loglik_eta(np.array([-1e6]), np.array([1.0]))) == pytest.approx(-1e6, rel=1e-15)


def test_score_and_information_match_finite_differences():
    X, y = design(15, 2, 3)
    t = platt_targets(y)
    beta = np.array([0.1, 0.4, -0.3])
    h = 1e-6
    num_grad = np.array(
        [(float(loglik(beta + h * e, X, t)) - float(loglik(beta - h * e, X, t))) / (2 * h) for e in np.eye(3)]
    )
    np.testing.assert_allclose(score(beta, X, t), num_grad, rtol=1e-7, atol=1e-8)
    num_hess = np.array([(score(beta + h * e, X, t) - score(beta - h * e, X, t)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(information(beta, X), -num_hess, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# maximiser
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("J, n, seed", [(1, 10, 0), (2, 30, 1), (3, 200, 2)])
def test_newton_mle_matches_statsmodels_glm(J, n, seed):
    import statsmodels.api as sm
    X, y = design(n, J, seed)
    t = platt_targets(y)
    beta, it = newton_mle(X, t)
    assert it < 50
    ref = sm.GLM(t, X, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
    np.testing.assert_allclose(beta, ref.params, rtol=1e-7, atol=1e-9)
    # gradient at rounding level
    assert np.max(np.abs(score(beta, X, t))) < 1e-10
    assert float(loglik(beta, X, t)) >= float(loglik(ref.params, X, t)) - 1e-12


def test_newton_mle_single_score_closed_form():
    # intercept only: theta_hat = mean(t), beta_hat = logit(mean(t))
    t = platt_targets([1, 1, 0, 0, 0])
    beta, _ = newton_mle(np.ones((5, 1)), t)
    assert float(beta[0]) == pytest.approx(np.log(t.mean() / (1 - t.mean())), rel=1e-12)


def test_newton_mle_separated_binary_data_raises():
    X = np.c_[np.ones(6), np.arange(6.0)]
    y = np.array([0, 0, 0, 1, 1, 1.0])
    with pytest.raises(RuntimeError, match="no finite maximiser"):
        newton_mle(X, y)


def test_newton_mle_platt_targets_finite_on_separated_data():
    import statsmodels.api as sm
    X = np.c_[np.ones(6), np.arange(6.0)]
    y = np.array([0, 0, 0, 1, 1, 1.0])
    t = platt_targets(y)
    beta, _ = newton_mle(X, t)
    assert np.all(np.isfinite(beta))
    assert np.max(np.abs(score(beta, X, t))) < 1e-10
    ref = sm.GLM(t, X, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
    np.testing.assert_allclose(beta, ref.params, rtol=1e-7)


def test_newton_line_search_loglik_equals_loglik_eta():
    """The log-likelihood of Newton's line search (numpy's exp and log1p) is loglik_eta's to
    rounding, finite for linear predictors of +-1e6 (issue 36 item 6)."""
    from evstat.likelihood.logistic import _loglik_fast

    rng = np.random.default_rng(3)
    eta = np.r_[rng.normal(scale=5.0, size=1000), 1e6, -1e6, 40.0, -40.0, 0.0]
    t = np.r_[rng.random(1000), 1.0, 0.0, 0.5, 0.5, 0.3]
    assert _loglik_fast(eta, t) == pytest.approx(float(loglik_eta(eta, t)), rel=1e-13)
    assert np.isfinite(_loglik_fast(np.array([1e6, -1e6]), np.array([0.0, 1.0])))


def test_column_max_abs_equals_numpy_reduction():
    from evstat.likelihood.logistic import column_max_abs

    X = np.random.default_rng(4).normal(size=(1001, 5)) * [1.0, 1e-300, 1e300, -3.0, 0.0]
    np.testing.assert_array_equal(column_max_abs(X), np.max(np.abs(X), axis=0))
    assert column_max_abs(np.zeros((0, 3))).tolist() == [0.0, 0.0, 0.0]
