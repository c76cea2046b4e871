"""Fast paths against their slow, obviously correct references.

* ``predictive_belief(method="fast")`` (adaptive Clenshaw-Curtis in eta with exact profiles at
  the nodes)
  against ``method="reference"`` (adaptive quadrature on theta of the contour computed by one
  statsmodels GLM refit with an offset per evaluation), for J = 1, 2, 3 scores and
  n = 10, 15, 45, 200, 1000 calibration rows.
* ``profile_loglik`` (batched constrained Newton) against ``profile_loglik_reference``
  (statsmodels GLM refit with an offset) on many random (direction, value) problems.

The reference path costs 0.3-3 s per test row, so each case uses two test rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import evstat as ev
from evstat.likelihood import (
    LogisticLikelihood,
    predictive_belief,
    profile_loglik,
    profile_loglik_reference,
)
from evstat.likelihood import linear_profile

TOL_BELIEF = 1e-8  # measured: max 1.0e-10 over this grid (J = 3, n = 10), usually ~1e-12


def scores_frame(n: int, J: int, seed: int) -> pd.DataFrame:
    """Two overlapping Gaussian classes, J score columns s1..sJ, balanced labels."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.zeros(n // 2, dtype=int), np.ones(n - n // 2, dtype=int)]
    S = rng.normal(size=(n, J)) + 0.8 * y[:, None]
    df = pd.DataFrame(S, columns=[f"s{j + 1}" for j in range(J)])
    df["y"] = y
    return df


def formula(J: int) -> str:
    return "y ~ " + " + ".join(f"s{j + 1}" for j in range(J))


CASES = [(J, n) for J in (1, 2, 3) for n in (10, 15, 45, 200, 1000) if not (J == 3 and n == 1000)]


@pytest.mark.parametrize("J, n", CASES)
def test_predictive_belief_fast_equals_reference(J, n):
    fit = ev.evlogit(formula(J), data=scores_frame(n, J, seed=100 * J + n))
    rng = np.random.default_rng(n + J)
    # one row near the data and one further out
    A = np.c_[np.ones(2), np.r_[rng.normal(size=(1, J)) * 0.5, rng.normal(size=(1, J)) * 2.0]]
    th_f, bel_f, pl_f = predictive_belief(fit.likelihood, A, method="fast")
    th_r, bel_r, pl_r = predictive_belief(fit.likelihood, A, method="reference")
    np.testing.assert_array_equal(th_f, th_r)
    np.testing.assert_allclose(th_f, expit(A @ fit.params.to_numpy()), rtol=1e-14)
    np.testing.assert_allclose(bel_f, bel_r, rtol=0, atol=TOL_BELIEF)
    np.testing.assert_allclose(pl_f, pl_r, rtol=0, atol=TOL_BELIEF)
    assert np.all((0 <= bel_f) & (bel_f <= th_f) & (th_f <= pl_f) & (pl_f <= 1))


def test_predictive_method_reference_through_a_fit():
    cal = scores_frame(15, 2, seed=7)
    new = pd.DataFrame({"s1": [-0.4, 1.3], "s2": [0.2, 0.9]}, index=["a", "b"])
    fit = ev.evlogit("y ~ s1 + s2", data=cal)
    fast = fit.predict(new, type="belief")
    fit.predictive_method = "reference"
    ref = fit.predict(new, type="belief")
    assert list(ref.index) == ["a", "b"]
    np.testing.assert_allclose(fast.to_numpy(), ref.to_numpy(), rtol=0, atol=TOL_BELIEF)


def test_predictive_belief_bad_method_and_empty():
    fit = ev.evlogit("y ~ s1", data=scores_frame(12, 1, seed=1))
    with pytest.raises(ValueError, match="method must be 'fast' or 'reference'"):
        predictive_belief(fit.likelihood, np.ones((1, 2)), method="slow")
    th, bel, pl = predictive_belief(fit.likelihood, np.zeros((0, 2)))
    assert th.shape == bel.shape == pl.shape == (0,)


# ---------------------------------------------------------------------------------------------
# profile log-likelihood of a . beta
# ---------------------------------------------------------------------------------------------


def random_problems(lik: LogisticLikelihood, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Directions: test design rows, unit vectors and arbitrary vectors; values within +-6 Wald
    standard errors of the estimate."""
    rng = np.random.default_rng(seed)
    p = lik.p
    rows = np.c_[np.ones(k), rng.normal(scale=1.5, size=(k, p - 1))]
    unit = np.eye(p)[rng.integers(0, p, k)]
    anyd = rng.normal(size=(k, p))
    A = np.concatenate([rows, unit, anyd])
    sd = np.sqrt(np.einsum("bi,ij,bj->b", A, lik.cov, A))
    e = A @ lik.beta_hat + sd * rng.uniform(-6, 6, size=A.shape[0])
    return A, e


@pytest.mark.parametrize("J, n, targets", [(1, 12, "platt"), (2, 40, "platt"), (3, 150, "platt"), (2, 60, "binary")])
def test_profile_loglik_fast_equals_reference(J, n, targets):
    fit = ev.evlogit(formula(J), data=scores_frame(n, J, seed=J * n), targets=targets)
    lik = fit.likelihood
    A, e = random_problems(lik, 12, seed=n)
    l_f, nu_f, b_f = profile_loglik(lik, A, e, return_beta=True)
    l_r, nu_r, b_r = profile_loglik_reference(lik, A, e, return_beta=True)
    np.testing.assert_allclose(l_f, l_r, rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(nu_f, nu_r, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(b_f, b_r, rtol=1e-6, atol=1e-6)
    # constraint holds and the constrained maximum is below the global one
    np.testing.assert_allclose(np.einsum("bi,bi->b", A, b_f), e, rtol=1e-12, atol=1e-10)
    assert np.all(l_f <= lik.loglik_hat + 1e-10)
    # at the estimate itself the profile is the maximum
    l0, nu0 = profile_loglik(lik, A, A @ lik.beta_hat)
    np.testing.assert_allclose(l0, lik.loglik_hat, rtol=0, atol=1e-10)
    np.testing.assert_allclose(nu0, 0.0, atol=1e-7)


def test_profile_slope_is_derivative_and_profile_is_concave():
    fit = ev.evlogit("y ~ s1 + s2", data=scores_frame(30, 2, seed=3))
    lik = fit.likelihood
    a = np.array([1.0, 0.4, -1.2])
    e_hat = a @ lik.beta_hat
    e = e_hat + np.linspace(-6, 6, 49)
    lp, nu = profile_loglik(lik, a, e)
    h = 1e-5
    lp_p, _ = profile_loglik(lik, a, e + h)
    lp_m, _ = profile_loglik(lik, a, e - h)
    np.testing.assert_allclose(nu, (lp_p - lp_m) / (2 * h), rtol=1e-5, atol=1e-6)
    assert np.all(np.diff(lp, 2) < 1e-12)  # concave
    assert np.argmax(lp) == 24 and np.all(np.diff(nu) < 0)


def test_profile_loglik_broadcasting_shapes():
    fit = ev.evlogit("y ~ s1 + s2", data=scores_frame(20, 2, seed=4))
    lik = fit.likelihood
    A = np.c_[np.ones(3), [[0.1, 0.2], [0.3, -0.5], [1.0, 1.0]]]
    e = np.linspace(-1, 1, 5)
    lp, nu, b = profile_loglik(lik, A[:, None, :], e[None, :], return_beta=True)
    assert lp.shape == nu.shape == (3, 5) and b.shape == (3, 5, 3)
    lp1, _ = profile_loglik(lik, A[1], e[3])
    assert lp1.shape == () and float(lp1) == pytest.approx(lp[1, 3], abs=1e-12)


def test_profile_loglik_chunking_and_fallback_agree(monkeypatch):
    fit = ev.evlogit("y ~ s1 + s2", data=scores_frame(25, 2, seed=5))
    lik = fit.likelihood
    A, e = random_problems(lik, 4, seed=2)
    base, nu = profile_loglik(lik, A, e)
    # tiny chunks (one problem per chunk)
    monkeypatch.setattr(linear_profile, "CHUNK_PROBLEMS", 1)
    small, nu_small = profile_loglik(lik, A, e)
    np.testing.assert_allclose(small, base, rtol=0, atol=1e-12)
    np.testing.assert_allclose(nu_small, nu, rtol=0, atol=1e-9)
    # no Newton iterations allowed: every problem falls back to the reference refit
    fallback, nu_fb = profile_loglik(lik, A, e, max_iter=0)
    np.testing.assert_allclose(fallback, base, rtol=0, atol=1e-9)
    np.testing.assert_allclose(nu_fb, nu, rtol=1e-6, atol=1e-7)


def test_profile_loglik_J1_by_direct_maximisation():
    """Obviously correct for J = 1: with the slope fixed by the constraint b0 + b1 s = e, the
    profile is a one-dimensional maximisation over b1."""
    from scipy.optimize import minimize_scalar

    fit = ev.evlogit("y ~ s1", data=scores_frame(18, 1, seed=6))
    lik = fit.likelihood
    s = 0.7
    for e in np.linspace(-2, 3, 6):
        res = minimize_scalar(lambda b1: -float(lik.loglik([e - b1 * s, b1])), bracket=(-3, 3), tol=1e-12)
        lp, _ = profile_loglik(lik, np.array([1.0, s]), e)
        assert float(lp) == pytest.approx(-res.fun, abs=1e-9)


# ---------------------------------------------------------------------------------------------
# rows outside the calibration scores
# ---------------------------------------------------------------------------------------------

# J = 2, n = 15 (simulate_gaussian(15, seed=1)) and n = 40 (seed=1); test rows a few units
# outside the calibration scores, where the predictive contour is far from Gaussian in eta.
OUTSIDE = [(15, (7.29, -5.39)), (40, (15.0, -7.5))]


@pytest.mark.slow
@pytest.mark.parametrize("n, s", OUTSIDE)
def test_reference_is_accurate_outside_the_data(n, s):
    """The reference path agrees with the fast rule run at a far tighter panel accuracy."""
    fit = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(n, seed=1))
    A = np.array([[1.0, *s]])
    _, bel_r, pl_r = predictive_belief(fit.likelihood, A, method="reference")
    _, bel_f, pl_f = predictive_belief(fit.likelihood, A, acc=1e-12, tol=1e-13)
    np.testing.assert_allclose(bel_f, bel_r, rtol=0, atol=1e-10)
    np.testing.assert_allclose(pl_f, pl_r, rtol=0, atol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("n, s", OUTSIDE)
def test_fast_default_rule_outside_the_data(n, s):
    fit = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(n, seed=1))
    A = np.array([[1.0, *s]])
    _, bel_f, pl_f = predictive_belief(fit.likelihood, A)
    _, bel_r, pl_r = predictive_belief(fit.likelihood, A, method="reference")
    np.testing.assert_allclose(bel_f, bel_r, rtol=0, atol=TOL_BELIEF)
    np.testing.assert_allclose(pl_f, pl_r, rtol=0, atol=TOL_BELIEF)


@pytest.mark.slow
@pytest.mark.parametrize("n, J, seed", [(12, 1, 1), (30, 2, 2), (100, 3, 3), (250, 3, 4), (600, 2, 5)])
def test_fast_adaptive_rule_far_outside_the_data(n, J, seed):
    """Test rows 1, 3, 6 and 10 times further out than the calibration scores: the adaptive
    Clenshaw-Curtis fast path agrees with the reference path to 1e-7 (the first fast path, a
    fixed Gauss-Legendre rule, was off by up to 1.5e-4 on such rows)."""
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(n, J))
    eta = 0.3 + 1.5 * S.sum(axis=1)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-eta))).astype(int)
    y[:2] = [0, 1]
    cal = pd.DataFrame(S, columns=[f"s{j}" for j in range(J)]).assign(y=y)
    fit = ev.evlogit("y ~ " + " + ".join(f"s{j}" for j in range(J)), data=cal)
    A = np.c_[np.ones(4), rng.normal(size=(4, J)) * np.array([1.0, 3.0, 6.0, 10.0])[:, None]]
    _, bel_f, pl_f = predictive_belief(fit.likelihood, A)
    _, bel_g, pl_g = predictive_belief(fit.likelihood, A, method="reference")
    np.testing.assert_allclose(bel_f, bel_g, rtol=0, atol=1e-7)
    np.testing.assert_allclose(pl_f, pl_g, rtol=0, atol=1e-7)


def test_compiled_newton_matches_numpy_kkt_solution():
    """The compiled Newton kernel (one pass per iteration, log1p sums as logs of block products)
    reaches the constrained maximiser: at its beta the score is nu * a (KKT) to rounding level,
    the constraint holds and the log-likelihood equals a direct numpy evaluation at 1e-10."""
    from scipy.special import expit as _expit

    fit = ev.evlogit("y ~ s1 + s2 + s3", data=scores_frame(1500, 3, seed=11))
    lik = fit.likelihood
    A, e = random_problems(lik, 40, seed=4)
    lp, nu, b = profile_loglik(lik, A, e, return_beta=True)
    np.testing.assert_allclose(lp, lik.loglik(b), rtol=0, atol=1e-10)
    g = (lik.t[None, :] - _expit(b @ lik.X.T)) @ lik.X
    np.testing.assert_allclose(g, nu[:, None] * A, rtol=0, atol=1e-6)
    np.testing.assert_allclose(np.einsum("bi,bi->b", A, b), e, rtol=1e-12, atol=1e-10)
    # a looser Newton tolerance (as used at the quadrature nodes) changes l_p by far less than
    # the belief's accuracy
    lp7, _ = profile_loglik(lik, A, e, tol=1e-7)
    np.testing.assert_allclose(lp7, lp, rtol=0, atol=1e-9)


def _profile_in_child(args):
    lik, A, e = args
    return profile_loglik(lik, A, e)


def test_compiled_newton_is_fork_safe():
    """A process forked after the kernel ran can run it again, with the same result (a parallel
    kernel on GNU OpenMP aborted the forked workers of ``evstat predict --jobs``)."""
    import multiprocessing

    fit = ev.evlogit("y ~ s1 + s2", data=scores_frame(200, 2, seed=3))
    lik = fit.likelihood
    A, e = random_problems(lik, 64, seed=9)
    lp, nu = profile_loglik(lik, A, e)  # the kernel runs in this process first
    with multiprocessing.get_context("fork").Pool(1) as pool:
        lp_child, nu_child = pool.map(_profile_in_child, [(lik, A, e)])[0]
    np.testing.assert_array_equal(lp_child, lp)
    np.testing.assert_array_equal(nu_child, nu)


def _wald_mode_80(eta_hat, sigma, lo, hi):
    """The bisection of ``_wald_mode`` as it was: always 80 halvings (issue 26: it now stops once
    a halving changes no bracket)."""
    a = np.maximum(eta_hat - sigma**2, lo)
    b = np.minimum(eta_hat + sigma**2, hi)
    a, b = np.minimum(a, b), np.maximum(a, b)
    for _ in range(80):
        m = 0.5 * (a + b)
        h = -(m - eta_hat) / sigma**2 + 1.0 - 2.0 * expit(m)
        a = np.where(h > 0, m, a)
        b = np.where(h > 0, b, m)
    return np.clip(0.5 * (a + b), lo, hi)


@pytest.mark.parametrize("scale", [1e-3, 0.3, 1.0, 30.0, 1e4])
def test_wald_mode_early_stop_is_bit_identical_to_80_halvings(scale):
    from evstat.likelihood.predictive import _wald_mode

    rng = np.random.default_rng(int(scale * 1000) % 2**32)
    eta_hat = np.concatenate([rng.normal(0.0, 5.0, 200), [0.0, 40.0, -40.0, 1e3]])
    sigma = np.abs(rng.normal(0.0, scale, eta_hat.size)) + 1e-300
    inf = np.full(eta_hat.size, np.inf)
    for lo, hi in ((-inf, eta_hat), (eta_hat, inf)):
        got = _wald_mode(eta_hat, sigma, lo, hi)
        np.testing.assert_array_equal(got, _wald_mode_80(eta_hat, sigma, lo, hi))
        assert np.all((got >= lo) & (got <= hi))


def test_side_mode_found_once_gives_the_intervals_found_row_by_row():
    """_regular_belief finds each side's Wald mode once for all rows and reuses it for the rows
    it widens: the intervals are those that a bisection of the widened rows alone gives."""
    from evstat.likelihood.predictive import _side_interval, _side_mode

    rng = np.random.default_rng(3)
    eta_hat = rng.normal(0.0, 4.0, 60)
    sigma = np.abs(rng.normal(0.0, 2.0, 60)) + 1e-3
    sub = np.flatnonzero(rng.random(60) < 0.3)
    for side in (-1, 1):
        mode = _side_mode(eta_hat, sigma, side)
        w = np.full(sub.size, 14.0)
        alone = _side_interval(eta_hat[sub], sigma[sub], side, w)
        reused = _side_interval(eta_hat[sub], sigma[sub], side, w, mode[sub])
        np.testing.assert_array_equal(alone[0], reused[0])
        np.testing.assert_array_equal(alone[1], reused[1])
