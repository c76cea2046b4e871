"""evmultinom's face starts computed in one batch, and one kernel decision per prediction
(issue 25: the grid of a K-class figure at n = 1000).

The face starts (``face_starts``: the maximum of l on each face ``(B v)_k = (B v)_j`` of a
far-out row) were one damped Newton problem at a time (``_subspace_max``, about 25 ms each at
n = 1000); a plot's grid has hundreds. ``_subspace_max_batch`` runs the same iteration for all
of them at once; these tests hold it to the one-at-a-time path. And the quadrature's batches
were each below the size from which mode "auto" compiles the kernel in the process, so a
grid of several hundred rows ran on the numpy path; ``predictive_bounds`` now decides once for
the whole prediction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.linalg import null_space

import evstat as ev
from evstat.likelihood import _kernels
from evstat.likelihood import multinomial as mm
from evstat.likelihood import mlogit_bounds, mlogit_limit, mlogit_panels


def _data(n: int, K: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, K, n)
    d = {"y": np.array(list("abcdefg"))[z]}
    for j in range(2):
        d[f"s{j + 1}"] = 1.5 * (z == (j % K)) - 0.8 * (z == ((j + 1) % K)) + rng.normal(0, 1, n)
    return pd.DataFrame(d)


@pytest.fixture(scope="module", params=[(120, 3, 0), (150, 4, 1)])
def fit(request):
    n, K, seed = request.param
    return ev.evmultinom("y ~ s1 + s2", _data(n, K, seed))


def _far_rows(lik: mm.MultinomialLikelihood, m: int, seed: int) -> np.ndarray:
    """Design rows (1, s1, s2) with scores out to 6, most of them far out (r sd > FACE_SCALE)."""
    rng = np.random.default_rng(seed)
    X = np.c_[np.ones(m), rng.uniform(-6.0, 6.0, (m, 2))]
    assert mlogit_limit._needs_faces(lik, X).mean() > 0.5
    return X


def test_batched_subspace_max_is_the_one_at_a_time_newton(fit):
    lik = fit.likelihood
    K, p = lik.K, lik.p
    V, _ = mlogit_limit.row_scale(_far_rows(lik, 12, 3))
    pairs = [(k, j) for k in range(K) for j in range(k + 1, K)]
    N = np.stack([null_space(mlogit_limit._pair_rows(K, p, v, k, [j])) for v in V for (k, j) in pairs])
    B = mlogit_limit._subspace_max_batch(lik, N)
    for i in range(N.shape[0]):
        val, Bs = mlogit_limit._subspace_max(lik, N[i])
        np.testing.assert_allclose(B[i], Bs.ravel(), rtol=0, atol=1e-8)
        lb = float(mm.multinomial_loglik(B[i].reshape(K - 1, p), lik.X, lik.codes, K, lik.T))
        assert abs(lb - val) <= 1e-9 * (1.0 + abs(val))
        # on the face, and its maximum there: no ascent direction left within the face
        z = np.r_[0.0, B[i].reshape(K - 1, p) @ V[i // len(pairs)]]
        k, j = pairs[i % len(pairs)]
        assert abs(z[k] - z[j]) <= 1e-9 * (1.0 + np.abs(z).max())
        g, _ = mm.multinomial_score_info(B[i].reshape(K - 1, p), lik.X, lik.codes, K, lik.T)
        assert np.abs(N[i].T @ g).max() <= 1e-6


def test_batched_likelihood_score_and_information_are_the_serial_ones(fit):
    lik = fit.likelihood
    rng = np.random.default_rng(5)
    betas = lik.B_hat.ravel() + rng.normal(scale=0.5, size=(7, lik.d))
    Y = mlogit_limit._targets(lik)
    ll = mlogit_limit._loglik_batch(lik, betas, Y)
    g, info = mlogit_limit._score_info_batch(lik, betas, Y)
    for i, b in enumerate(betas):
        B = b.reshape(lik.K - 1, lik.p)
        gs, Is = mm.multinomial_score_info(B, lik.X, lik.codes, lik.K, lik.T)
        np.testing.assert_allclose(ll[i], mm.multinomial_loglik(B, lik.X, lik.codes, lik.K, lik.T), rtol=1e-13)
        np.testing.assert_allclose(g[i], gs, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(info[i], Is, rtol=1e-11, atol=1e-11)


def test_face_starts_batched_equal_one_at_a_time_and_cached(fit):
    lik = fit.likelihood
    X = _far_rows(lik, 9, 4)
    V, _ = mlogit_limit.row_scale(X)
    w = np.eye(lik.K)[1]
    mlogit_limit._REGION_CACHE.clear()
    first = mm.face_starts(lik, X, w)
    again = mm.face_starts(lik, X, w)  # from the cache
    for f_i, (k, j) in enumerate(mm.face_pairs(w)):
        np.testing.assert_array_equal(first[f_i], again[f_i])
        for i, v in enumerate(V):
            _, Bs = mlogit_limit._subspace_max(lik, null_space(mlogit_limit._pair_rows(lik.K, lik.p, v, k, [j])))
            np.testing.assert_allclose(first[f_i][i], Bs.ravel(), rtol=0, atol=1e-8)


def test_one_kernel_decision_for_a_whole_prediction(fit, monkeypatch):
    """Every quadrature batch of a prediction runs on the path chosen once, from the
    prediction's expected work (rows, plus each far-out row once per face)."""
    lik = fit.likelihood
    X = _far_rows(lik, 10, 6)
    w = np.eye(lik.K)[0]
    calls: list[int] = []
    monkeypatch.setattr(_kernels, "use_kernel", lambda work, loaded: calls.append(work) or True)
    seen: list[object] = []
    real = mm.functional_profile

    def spy(*args, **kwargs):
        seen.append(kwargs.get("kernel"))
        return real(*args, **kwargs)

    monkeypatch.setattr(mlogit_panels, "functional_profile", spy)
    mm.predictive_bounds(lik, X, w)
    faces = int(mlogit_limit._needs_faces(lik, X).sum())
    expected = mm.PROBLEMS_PER_ROW * (len(X) + len(mm.face_pairs(w)) * faces) * lik.n * (lik.K - 1)
    assert calls == [expected]
    assert len(seen) > 2 and all(k is True for k in seen)



def test_subspace_start_is_the_quadratic_approximations_maximum(fit):
    """The face problems start from the maximiser of l's quadratic approximation at B_hat on the
    face (the maximum of the strictly concave l there is unique, so only the number of Newton
    steps depends on the start): N' I (N theta - vec B_hat) = 0, and the Newton from there
    reaches the maximum found from the Euclidean projection of B_hat."""
    lik = fit.likelihood
    K, p = lik.K, lik.p
    V, _ = mlogit_limit.row_scale(_far_rows(lik, 6, 5))
    N = np.stack([null_space(mlogit_limit._pair_rows(K, p, v, 0, [1])) for v in V])
    th = mlogit_limit._subspace_start(lik, N)
    _, info = mm.multinomial_score_info(lik.B_hat, lik.X, lik.codes, K, lik.T)
    resid = np.einsum("mdq,de,me->mq", N, info, np.einsum("mdq,mq->md", N, th) - lik.B_hat.ravel())
    assert np.abs(resid).max() <= 1e-8 * np.abs(info).max()
    np.testing.assert_allclose(th[0], mlogit_limit._subspace_start(lik, N[0]), rtol=0, atol=1e-12)  # one or a batch
    from scipy.optimize import minimize

    for i in range(N.shape[0]):  # the maximum by BFGS from the Euclidean projection
        def f(t: np.ndarray, i: int = i) -> tuple[float, np.ndarray]:
            B = (N[i] @ t).reshape(K - 1, p)
            g, _ = mm.multinomial_score_info(B, lik.X, lik.codes, K, lik.T)
            return -float(mm.multinomial_loglik(B, lik.X, lik.codes, K, lik.T)), -(N[i].T @ g)

        r = minimize(f, N[i].T @ lik.B_hat.ravel(), jac=True, method="BFGS", options={"gtol": 1e-10})
        val, _ = mlogit_limit._subspace_max(lik, N[i])
        assert abs(val + r.fun) <= 1e-8 * (1.0 + abs(val))
        assert val >= -r.fun - 1e-10


def test_unconverged_problems_without_the_reference_path_are_nan(fit):
    """functional_profile(reference=False) (the continuation's solves) leaves a problem its
    Newton solves do not converge NaN instead of solving it by the scipy reference path."""
    lik = fit.likelihood
    x = _far_rows(lik, 4, 7)
    w = np.eye(lik.K)[1]
    u = np.array([-8.0, -4.0, 4.0, 8.0])
    kw = dict(max_iter=1, tol=1e-14, kernel=True)
    lp_no, sl_no = mm.functional_profile(lik, x, w, u, reference=False, **kw)
    lp_ref, _ = mm.functional_profile(lik, x, w, u, **kw)
    failed = np.isnan(lp_no)
    assert failed.any() and np.isnan(sl_no[failed]).all()
    np.testing.assert_allclose(lp_ref[failed], mm.functional_profile_reference(lik, x[failed], w, u[failed]),
                               rtol=0, atol=1e-12)
    np.testing.assert_array_equal(lp_no[~failed], lp_ref[~failed])


def test_concurrent_events_solve_each_face_once(fit, monkeypatch):
    """predictive_bounds_events computes the face starts of all its events before running them
    in threads: each face of a far row is solved once (K = 3 singletons: three faces per row,
    not two per event), with the answers of the serial call."""
    lik = fit.likelihood
    X = _far_rows(lik, 10, 11)
    far = mlogit_limit._needs_faces(lik, X)
    events = [np.eye(lik.K)[k] for k in range(lik.K)]
    mlogit_limit._REGION_CACHE.clear()
    with ev.config_context(kernel_threads=1):
        serial = mm.predictive_bounds_events(lik, X, events)
    solved = []
    batch = mlogit_limit._subspace_max_batch
    monkeypatch.setattr(mlogit_limit, "_subspace_max_batch", lambda lik_, N, *a: solved.append(len(N)) or batch(lik_, N, *a))
    monkeypatch.setattr(mlogit_bounds, "EVENT_THREAD_WORK", 1)
    mlogit_limit._REGION_CACHE.clear()
    with ev.config_context(kernel_threads=2):
        threaded = mm.predictive_bounds_events(lik, X, events)
    assert sum(solved) == int(far.sum()) * lik.K * (lik.K - 1) // 2  # every face of a far row, once
    for a, b in zip(serial, threaded):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
