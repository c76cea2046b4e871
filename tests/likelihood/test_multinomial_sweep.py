"""The compiled K-class sweep of evmultinom's profile kernel (issue 26): the two-class kernel's
tiled accumulation carried to K classes. Checked against the numpy likelihood, score and
information (:func:`multinomial_loglik`, :func:`multinomial_score_info`) for K = 2 ... 7, every
padding of the columns (one to three tiles) and n below, at and above a block (hypothesis); the
continuation along a path (``chain=True``, the MLE as the path's first solution) against
independent solves from the Wald start."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.likelihood import multinomial as mn
from evstat.likelihood import _mlogit_kernel, mlogit_panels, mlogit_profile
from evstat.likelihood.linear_profile import _columns


def _likelihood(n: int, K: int, J: int, seed: int, targets: str = "platt") -> mn.MultinomialLikelihood:
    rng = np.random.default_rng(seed)
    z = np.r_[np.arange(K), rng.integers(0, K, n - K)]
    S = rng.normal(size=(n, J)) + 0.8 * (z[:, None] == (np.arange(J)[None, :] % K))
    return mn.multinomial_mle(np.c_[np.ones(n), S], z, K, targets=targets)


def _sweep(X: np.ndarray, T: np.ndarray, B: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Run the compiled sweep; returns l, the score (d,) and the information (d, d)."""
    _mlogit_kernel._kernel()
    K = T.shape[1]
    n, p = X.shape
    Xc = _columns(X)
    P = Xc.shape[0]
    blk = _mlogit_kernel._sweep_block(n, K)
    npair = K * (K - 1) // 2
    g = np.full((K - 1, P), np.nan)
    H = np.full((npair, P, P), np.nan)
    work = [np.empty((K, blk)), np.empty((K, blk))] + [np.empty(blk) for _ in range(4)]
    ll = _mlogit_kernel._msweep(Xc, np.ascontiguousarray(T.T), K, np.ascontiguousarray(B.ravel()), *work,
                    np.empty((K - 1, blk)), np.empty((npair, blk)), g, H)
    assert np.all(g[:, p:] == 0.0) and np.all(H[:, p:] == 0.0) and np.all(H[:, :, p:] == 0.0)
    info = np.zeros((K - 1, p, K - 1, p))
    c = 0
    for k in range(K - 1):
        for k2 in range(k, K - 1):
            info[k, :, k2, :] = info[k2, :, k, :] = H[c, :p, :p]
            c += 1
    d = (K - 1) * p
    return ll, g[:, :p].ravel(), info.reshape(d, d)


@settings(max_examples=40, deadline=None)
@given(K=st.integers(2, 7), J=st.integers(0, 8), n=st.sampled_from([1, 5, 63, 64, 65, 200, 513, 1100]),
       scale=st.floats(0.0, 3.0), seed=st.integers(0, 10**6), smooth=st.booleans())
def test_sweep_equals_numpy(K, J, n, scale, seed, smooth):
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(n), rng.normal(scale=2.0, size=(n, J))]
    codes = rng.integers(0, K, n)
    T = mn.multinomial_targets(codes, K, "platt" if smooth else "binary")
    B = rng.normal(scale=scale, size=(K - 1, J + 1))
    ll, g, info = _sweep(X, T, B)
    g0, info0 = mn.multinomial_score_info(B, X, codes, K, T)
    l0 = float(mn.multinomial_loglik(B, X, codes, K, T))
    np.testing.assert_allclose(ll, l0, rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(g, g0, rtol=1e-10, atol=1e-11 * n)
    np.testing.assert_allclose(info, info0, rtol=1e-10, atol=1e-12 * n)


def test_sweep_extreme_linear_predictors():
    """Linear predictors of +-700 (the shifted exponentials underflow, never overflow)."""
    X = np.c_[np.ones(4), [-350.0, -1.0, 1.0, 350.0]]
    codes = np.array([0, 1, 2, 1])
    T = mn.multinomial_targets(codes, 3, "platt")
    B = np.array([[0.0, 2.0], [0.5, -2.0]])
    ll, g, info = _sweep(X, T, B)
    g0, info0 = mn.multinomial_score_info(B, X, codes, 3, T)
    assert np.isfinite(ll) and np.isfinite(g).all() and np.isfinite(info).all()
    np.testing.assert_allclose(ll, float(mn.multinomial_loglik(B, X, codes, 3, T)), rtol=1e-13)
    np.testing.assert_allclose(g, g0, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(info, info0, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("K,J,n", [(3, 3, 1000), (4, 2, 60), (7, 6, 200)])
def test_chain_through_the_mle_equals_independent_solves(K, J, n):
    """A path of nodes solved by continuation (each from the previous solutions' quadratic
    prediction, the first from the MLE, the node at u_hat not solved) equals independent solves
    from the Wald start, for a set and a fractional weight."""
    lik = _likelihood(n, K, J, seed=K + J + n)
    rng = np.random.default_rng(n)
    x = np.c_[np.ones(3), rng.normal(0.0, 1.5, (3, J))]
    for w in (np.eye(K)[K - 1], np.linspace(0.0, 1.0, K)):
        u_hat, sig = mlogit_panels._wald_u(lik, x, np.broadcast_to(w, (3, K)))
        uu = u_hat[:, None] + sig[:, None] * np.linspace(0.0, 6.0, 13)[None, :]  # from u_hat outwards
        p0 = mlogit_profile._PASSES[0]
        lc, sc = mn.functional_profile(lik, x[:, None, :], w, uu, tol=1e-10, chain=True)
        chained = mlogit_profile._PASSES[0] - p0
        p0 = mlogit_profile._PASSES[0]
        li, si = mn.functional_profile(lik, x[:, None, :], w, uu, tol=1e-10, chain=False)
        cold = mlogit_profile._PASSES[0] - p0
        np.testing.assert_allclose(lc, li, rtol=0, atol=1e-9)
        np.testing.assert_allclose(sc, si, rtol=0, atol=1e-5)
        assert np.all(lc[:, 0] == lik.loglik_hat) and np.all(sc[:, 0] == 0.0)  # the MLE node
        assert chained < cold
