"""evmultinom's kernel with reused Hessians (issue 36 item 3: K = 10): the score-only passes,
the BFGS updates and the three-point predictor give the same profiles and the same Bel/Pl as
the exact Newton path (every pass computing the information), and as the scipy reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import multinomial as mm
from evstat.likelihood import mlogit_panels, mlogit_profile


def _data(n: int, K: int, J: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = np.r_[np.arange(K), rng.integers(0, K, max(n - K, 0))][:n]
    d = {"y": np.array([f"c{k}" for k in range(K)])[z]}
    for j in range(J):
        d[f"s{j}"] = 1.5 * (z == j % K) - 0.5 * (z == (j + 1) % K) + rng.normal(size=z.size)
    return pd.DataFrame(d)


@pytest.fixture(scope="module")
def k10():
    fit = ev.evmultinom("y ~ s0 + s1 + s2", _data(300, 10, 3, 0))
    X = fit._design(_data(12, 10, 3, 9).drop(columns="y"))[0]
    return fit.likelihood, X


def test_reuse_is_chosen_from_the_number_of_coefficients(k10):
    lik, _ = k10
    assert lik.d == 36 and mm.reuse_hessian(lik.K, lik.p)
    assert not mm.reuse_hessian(3, 3)  # K = 3, two scores: every pass computes the information


def test_reused_hessian_profiles_equal_exact_newton(k10):
    """Random problems (singletons, a pair, a loss row; u up to 3 Wald scales from the mode,
    some steps that need halving): values to 1e-9, slopes to 1e-6 relative (the multiplier of
    a reused-Hessian step is first order in the residual, the exact Newton's second order)."""
    lik, X = k10
    rng = np.random.default_rng(3)
    m = 30
    x = X[rng.integers(0, X.shape[0], m)]
    w = np.eye(lik.K)[rng.integers(0, lik.K, m)]
    w[::5] = 0.0
    w[::5, :2] = 1.0
    w[1::5] = rng.uniform(size=lik.K)
    g0, sig = mlogit_panels._wald_u(lik, x, w)
    u = g0 + sig * rng.normal(scale=3.0, size=m)
    p0 = list(mlogit_profile._PASSES)
    l1, s1 = mm.functional_profile(lik, x, w, u, tol=1e-10, kernel=True, reuse=True)
    passes, full = mlogit_profile._PASSES[0] - p0[0], mlogit_profile._PASSES[1] - p0[1]
    l0, s0 = mm.functional_profile(lik, x, w, u, tol=1e-10, kernel=True, reuse=False)
    assert np.isfinite(l1).all() and np.isfinite(l0).all()
    np.testing.assert_allclose(l1, l0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(s1, s0, rtol=1e-6, atol=1e-7)
    assert 0 < full < passes  # the information at each problem's start, score-only passes after


def test_reused_hessian_chains_equal_exact_newton(k10):
    """A path of nodes solved by continuation with the quadrature's stopping rule (the tail rule
    bounds the error of the integrand pl t (1 - t), not of the log-likelihood): the contours
    agree to 1e-7 (a node's value ``ll + dec / 2`` is off by about ``eps dec / 2`` for a Hessian
    off by a factor ``1 + eps``, dec <= NODE_TOL = 1e-6: measured 8e-9), above 1 by rounding only, and
    most passes compute the score only."""
    lik, X = k10
    x = X[:3]
    w = np.eye(lik.K)[[1, 4, 7]]
    g0, sig = mlogit_panels._wald_u(lik, x, w)
    u = g0[:, None] + sig[:, None] * np.linspace(-6.0, 6.0, 17)[None, :]
    p0 = list(mlogit_profile._PASSES)
    l1, _ = mm.functional_profile(lik, x[:, None, :], w[:, None, :], u, chain=True, tail=True, tol=mm.NODE_TOL,
                                  kernel=True, reuse=True)
    passes, full = mlogit_profile._PASSES[0] - p0[0], mlogit_profile._PASSES[1] - p0[1]
    l0, _ = mm.functional_profile(lik, x[:, None, :], w[:, None, :], u, chain=True, tail=True, tol=mm.NODE_TOL,
                                  kernel=True, reuse=False)
    np.testing.assert_allclose(np.exp(l1 - lik.loglik_hat), np.exp(l0 - lik.loglik_hat), rtol=0, atol=1e-7)
    assert np.all(l1 <= lik.loglik_hat + 1e-7)  # above l_hat only by rounding (relative_loglik clamps it)
    assert full <= passes // 5


@pytest.mark.parametrize("scale", [1.0, 40.0, 1e4])
def test_reused_hessian_bounds_equal_exact_newton(k10, scale, monkeypatch):
    """Bel and Pl of every singleton (and a pair) on ordinary and far-out rows (x = r v: the face
    starts and the continuation of _continued_profile run with reused Hessians too)."""
    lik, X = k10
    x = X[:2].copy()
    x[:, 1:] *= scale
    ws = [np.eye(lik.K)[k] for k in range(lik.K)] + [np.r_[1.0, 1.0, np.zeros(lik.K - 2)]]
    got = [mm.predictive_bounds(lik, x, w) for w in ws]
    monkeypatch.setattr(mlogit_profile, "REUSE_MIN_D", 10**9)
    want = [mm.predictive_bounds(lik, x, w) for w in ws]
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=0, atol=1e-8)
    for h, lo, up in got:
        assert np.all((0.0 <= lo) & (lo <= h) & (h <= up) & (up <= 1.0))


@pytest.mark.slow
def test_reused_hessian_bounds_equal_the_reference(k10):
    """Against the scipy reference (BFGS per node, scipy quad): K = 10, two singletons of one
    row, to 1e-8 (measured: 1.2e-11 and 3.4e-11)."""
    lik, X = k10
    for k in (0, 3):
        fast = np.array(mm.predictive_bounds(lik, X[:1], np.eye(lik.K)[k]))
        ref = np.array(mm.predictive_bounds(lik, X[:1], np.eye(lik.K)[k], method="reference"))
        np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-8)
