"""The compiled Newton kernel of the profile likelihood (issue 15, section 1): its vectorised
exponential, continuation along a path of values (``chain=True``) against independent solves
and against the statsmodels reference, and the predictive belief with continuation against the
reference path on rows near, far from and very far from the calibration scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import linear_profile, predictive_belief, profile_loglik, profile_loglik_reference


def _data(n: int, J: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(int)
    S = rng.normal(size=(n, J)) + 0.9 * y[:, None]
    df = pd.DataFrame(S, columns=[f"s{j + 1}" for j in range(J)])
    df["y"] = y
    return df


def test_vectorised_exponential_matches_libm():
    linear_profile._kernel()  # compiles the helpers
    rng = np.random.default_rng(0)
    eta = np.r_[
        0.0, -0.0, 1e-300, -1e-300, 1e-17, 0.5 * np.log(2), np.log(2), 1.0, -1.0, 700.0, -708.0,
        rng.normal(scale=3.0, size=2000), rng.uniform(-708, 708, size=2000),
    ]
    z = np.empty_like(eta)
    linear_profile._exp_neg_abs(eta, z, np.empty_like(eta))
    ref = np.exp(-np.abs(eta))
    assert np.max(np.abs(z / ref - 1.0)) <= 4.5e-16  # 2 ulp
    assert z[0] == 1.0 and z[1] == 1.0 and z[2] == 1.0


def test_vectorised_exponential_clamps_below_exp_of_minus_708():
    """Beyond |eta| = 708 exp(-|eta|) is held at exp(-708) = 3.3e-308 (documented): it only
    enters 1 + z and weights of order z, and no NaN or garbage exponent bits appear."""
    linear_profile._kernel()
    eta = np.array([709.0, -750.0, 1e5, -1e300, np.finfo(float).max])
    z = np.empty_like(eta)
    linear_profile._exp_neg_abs(eta, z, np.empty_like(eta))
    assert np.all(z == z[0]) and z[0] == pytest.approx(np.exp(-708.0), rel=4.5e-16)


@pytest.mark.parametrize("J, n, seed", [(1, 25, 1), (2, 80, 2), (3, 400, 3)])
def test_chain_equals_independent_solves_and_reference(J, n, seed):
    fit = ev.evlogit("y ~ " + " + ".join(f"s{j + 1}" for j in range(J)), data=_data(n, J, seed))
    lik = fit.likelihood
    rng = np.random.default_rng(seed)
    A = np.c_[np.ones(4), rng.normal(scale=[[0.5], [1.0], [2.0], [4.0]], size=(4, J))]
    sd = np.sqrt(np.einsum("bi,ij,bj->b", A, lik.cov, A))
    e_hat = A @ lik.beta_hat
    # per direction: a path from e_hat outwards (sorted), with a repeated value and large steps,
    # then a shuffled path (the prediction is poor there; the results must not change)
    steps = np.r_[0.0, 0.05, 0.3, 0.3, 1.0, 2.0, 3.5, 6.0, 9.0]
    E = e_hat[:, None] + sd[:, None] * np.r_[steps, -steps[::-1]][None, :]
    E[2] = rng.permutation(E[2])
    Ab = np.broadcast_to(A[:, None, :], E.shape + (lik.p,))
    l_c, nu_c, b_c = profile_loglik(lik, Ab, E, chain=True, return_beta=True)
    l_i, nu_i, b_i = profile_loglik(lik, Ab, E, chain=False, return_beta=True)
    np.testing.assert_allclose(l_c, l_i, rtol=0, atol=1e-11)
    np.testing.assert_allclose(nu_c, nu_i, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(b_c, b_i, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.einsum("...i,...i->...", Ab, b_c), E, rtol=1e-12, atol=1e-10)
    sub = (slice(None), slice(None, None, 3))
    l_r, nu_r = profile_loglik_reference(lik, Ab[sub], E[sub])
    np.testing.assert_allclose(l_c[sub], l_r, rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(nu_c[sub], nu_r, rtol=1e-6, atol=1e-7)


def test_chain_breaks_between_directions_and_chunks(monkeypatch):
    """Consecutive problems of different directions, or split across chunks, start afresh."""
    fit = ev.evlogit("y ~ s1 + s2", data=_data(60, 2, 4))
    lik = fit.likelihood
    A = np.array([[1.0, 0.2, -0.3], [1.0, 0.2, -0.3], [1.0, -1.0, 2.0], [1.0, -1.0, 2.0], [0.0, 1.0, 0.0]])
    E = A @ lik.beta_hat + np.array([0.0, 0.8, 0.0, -1.5, 0.4])
    base, nu = profile_loglik(lik, A, E)
    chained, nu_c = profile_loglik(lik, A, E, chain=True)
    np.testing.assert_allclose(chained, base, rtol=0, atol=1e-11)
    np.testing.assert_allclose(nu_c, nu, rtol=1e-7, atol=1e-8)
    monkeypatch.setattr(linear_profile, "CHUNK_PROBLEMS", 2)
    small, _ = profile_loglik(lik, A, E, chain=True)
    np.testing.assert_allclose(small, base, rtol=0, atol=1e-11)


def test_continuation_takes_one_pass_per_node_on_ordinary_rows():
    """Not a timing: the count of Newton passes (sweeps over the calibration rows) shows that the
    quadrature nodes are solved by continuation (about 2.4 passes per node without it)."""
    fit = ev.evlogit("y ~ s1 + s2 + s3", data=_data(300, 3, 5))
    A = np.c_[np.ones(40), np.random.default_rng(5).normal(size=(40, 3))]
    predictive_belief(fit.likelihood, A[:1])
    calls = []
    orig = linear_profile._newton_batch

    def counting(lik, A_, e_, *args):
        calls.append(len(e_))
        return orig(lik, A_, e_, *args)

    before = linear_profile._PASSES[0]
    try:
        linear_profile._newton_batch = counting
        predictive_belief(fit.likelihood, A)
    finally:
        linear_profile._newton_batch = orig
    passes = linear_profile._PASSES[0] - before
    assert passes <= 1.2 * sum(calls)


@pytest.mark.slow
@pytest.mark.parametrize("scale", [0.5, 3.0, 30.0, 3e4])
def test_predictive_belief_with_continuation_equals_reference(scale):
    """Rows near the data, outside it and far outside it (skewed contours: the continuation
    predicts poorly, Newton corrects), against statsmodels refits and scipy's quad."""
    fit = ev.evlogit("y ~ s1 + s2", data=_data(120, 2, 6))
    rng = np.random.default_rng(int(scale))
    A = np.c_[np.ones(2), scale * rng.normal(size=(2, 2))]
    th_f, bel_f, pl_f = predictive_belief(fit.likelihood, A)
    th_r, bel_r, pl_r = predictive_belief(fit.likelihood, A, method="reference")
    np.testing.assert_allclose(bel_f, bel_r, rtol=0, atol=1e-8)
    np.testing.assert_allclose(pl_f, pl_r, rtol=0, atol=1e-8)
