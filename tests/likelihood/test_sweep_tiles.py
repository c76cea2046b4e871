"""The compiled sweep of the profile kernel (issue 15): rows in blocks of SWEEP_BLOCK, columns
padded with zero columns to a multiple of TILE and accumulated four at a time. Checked against
numpy for every padding (p = 1 ... 9: one, two and three tiles, diagonal and off-diagonal tile
pairs) and for n below, at and above a block, and the profile path for p = 5 and 6 (more than
one tile) against the statsmodels reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, log_expit

import evstat as ev
from evstat.likelihood import linear_profile, profile_loglik, profile_loglik_reference


@pytest.mark.parametrize("p", range(1, 10))
@pytest.mark.parametrize("n", [7, linear_profile.SWEEP_BLOCK, 2 * linear_profile.SWEEP_BLOCK + 77])
def test_sweep_equals_numpy(p, n):
    linear_profile._kernel()  # compiles the helpers
    rng = np.random.default_rng(100 * p + n)
    X = np.c_[np.ones(n), rng.normal(scale=2.0, size=(n, p - 1))]
    t = rng.uniform(0.02, 0.98, n)
    beta = rng.normal(scale=0.8, size=p)
    Xc = linear_profile._columns(X)
    P = Xc.shape[0]
    assert P % linear_profile.TILE == 0 and P >= p and not Xc[p:].any()
    blk = min(n, linear_profile.SWEEP_BLOCK)
    g = np.full(P, np.nan)
    H = np.full((P, P), np.nan)
    ll = linear_profile._sweep(Xc, t, beta, *(np.empty(blk) for _ in range(5)), g, H)
    eta = X @ beta
    mu = expit(eta)
    w = mu * (1.0 - mu)
    np.testing.assert_allclose(ll, np.sum(t * log_expit(eta) + (1.0 - t) * log_expit(-eta)), rtol=1e-13)
    np.testing.assert_allclose(g[:p], X.T @ (t - mu), rtol=1e-11, atol=1e-11 * n)
    np.testing.assert_allclose(H[:p, :p], (X * w[:, None]).T @ X, rtol=1e-12, atol=1e-13 * n)
    assert np.all(g[p:] == 0.0) and np.all(H[p:] == 0.0) and np.all(H[:, p:] == 0.0)


@pytest.mark.parametrize("J", [4, 5])
def test_profile_with_two_tiles_equals_reference(J):
    rng = np.random.default_rng(J)
    n = 300
    y = (rng.random(n) < 0.5).astype(int)
    S = rng.normal(size=(n, J)) + 0.7 * y[:, None]
    cal = {f"s{j + 1}": S[:, j] for j in range(J)} | {"y": y}
    fit = ev.evlogit("y ~ " + " + ".join(f"s{j + 1}" for j in range(J)), data=pd.DataFrame(cal))
    lik = fit.likelihood
    A = np.c_[np.ones(3), rng.normal(size=(3, J))]
    sd = np.sqrt(np.einsum("bi,ij,bj->b", A, lik.cov, A))
    E = (A @ lik.beta_hat)[:, None] + sd[:, None] * np.array([[-2.0, 0.5, 3.0]])
    Ab = np.broadcast_to(A[:, None, :], E.shape + (lik.p,))
    l_f, nu_f = profile_loglik(lik, Ab, E, chain=True)
    l_r, nu_r = profile_loglik_reference(lik, Ab, E)
    np.testing.assert_allclose(l_f, l_r, rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(nu_f, nu_r, rtol=1e-6, atol=1e-7)
