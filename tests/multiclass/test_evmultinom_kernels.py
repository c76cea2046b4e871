"""evmultinom's numpy path (used while the numba kernel of a fresh installation compiles;
evstat.likelihood._kernels) against the compiled kernel: profile values and slopes, predictive
lower/upper probabilities and decisions, and the choice between them (issue 26)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import _kernels
from evstat.likelihood import multinomial as mm
from evstat.likelihood import _mlogit_kernel, mlogit_limit, mlogit_panels, mlogit_profile


def _data(n: int, K: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, K, n)
    d = {"y": np.array(list("abcdefg"))[z]}
    for j in range(2):
        d[f"s{j + 1}"] = 1.2 * (z == (j % K)) - 0.6 * (z == ((j + 1) % K)) + rng.normal(0, 1, n)
    return pd.DataFrame(d)


def _fit(n: int, K: int, seed: int):
    cal = _data(n, K, seed)
    return ev.evmultinom("y ~ s1 + s2", cal), cal


def _problems(fit, m: int, seed: int):
    """Rows of new data, weights (singletons, sets and a loss row) and values of u around
    g(B_hat), some far out (steps that need halving)."""
    lik = fit.likelihood
    rng = np.random.default_rng(seed)
    X = fit._design(_data(m, lik.K, seed + 100).drop(columns="y"))[0]
    w = np.eye(lik.K)[rng.integers(0, lik.K, m)]
    w[::4] = np.linspace(0.0, 1.0, lik.K)[rng.permutation(lik.K)]
    w[1::4] = 0.0
    w[1::4, :2] = 1.0  # the set {a, b}
    g0, sig = mlogit_panels._wald_u(lik, X, w)
    u = g0 + sig * rng.normal(scale=3.0, size=m)
    return X, w, u


@pytest.mark.parametrize("n, K, seed", [(60, 3, 0), (300, 3, 1), (150, 4, 2), (80, 5, 3)])
def test_numpy_path_agrees_with_the_kernel(n, K, seed, monkeypatch):
    fit, _ = _fit(n, K, seed)
    x, w, u = _problems(fit, 40, seed)
    monkeypatch.setenv("EVSTAT_KERNELS", "numba")
    k_l, k_s = mm.functional_profile(fit.likelihood, x, w, u, tol=1e-10)
    monkeypatch.setenv("EVSTAT_KERNELS", "numpy")
    n_l, n_s = mm.functional_profile(fit.likelihood, x, w, u, tol=1e-10)
    assert np.isfinite(k_l).all() and np.isfinite(n_l).all()
    np.testing.assert_allclose(n_l, k_l, rtol=0, atol=1e-9)
    # slopes up to 30 in size; the multiplier of a solution whose Newton decrement is below
    # tol = 1e-10 agrees to about 1e-9 relative (2.0e-9 measured with numpy 2.4 / numba 0.68)
    np.testing.assert_allclose(n_s, k_s, rtol=1e-8, atol=1e-9)
    # the profile is a maximum over the constraint: never above the unconstrained maximum
    assert np.all(n_l <= fit.likelihood.loglik_hat + 1e-9)


def test_numpy_path_is_the_kernels_start_and_stopping_rule(monkeypatch):
    """The MLE node (u = g(B_hat)) is l_hat itself on both paths, with slope 0."""
    fit, _ = _fit(100, 3, 4)
    lik = fit.likelihood
    x, w, _ = _problems(fit, 6, 4)
    g0, _ = mlogit_panels._wald_u(lik, x, w)
    u = np.stack([g0 - 0.5, g0, g0 + 0.5], axis=1)
    out = {}
    for mode in ("numba", "numpy"):
        monkeypatch.setenv("EVSTAT_KERNELS", mode)
        out[mode] = mm.functional_profile(lik, x[:, None, :], w[:, None, :], u, tol=1e-10, chain=True)
    np.testing.assert_array_equal(out["numpy"][0][:, 1], lik.loglik_hat)
    np.testing.assert_array_equal(out["numpy"][1][:, 1], 0.0)
    np.testing.assert_allclose(out["numpy"][0], out["numba"][0], rtol=0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("K", [3, 4])
def test_predictions_and_decisions_agree_between_the_paths(K, monkeypatch):
    fit, cal = _fit(120, K, 10 + K)
    new = _data(12, K, 99).drop(columns="y")
    new.loc[0, "s1"] = 5.0  # far from the calibration scores
    monkeypatch.setenv("EVSTAT_KERNELS", "numba")
    kernel = fit.predict(new, type="belief")
    k_dec = fit.decide(new, strategy="pessimistic", reject_cost=0.3)
    monkeypatch.setenv("EVSTAT_KERNELS", "numpy")
    monkeypatch.setattr(_mlogit_kernel, "_kernel", lambda: pytest.fail("the numpy path compiled the kernel"))
    fit2 = ev.evmultinom(fit.formula, cal)
    numpy_ = fit2.predict(new, type="belief")
    # 2e-9: the adaptive quadrature accepts a node on its error bound (tol**1.5 = 1e-9 at
    # NODE_TOL); profile values equal to 1e-12 can flip one acceptance between the two paths
    # (seen in CI: one Pl of 108 off by 1.13e-9, K = 3)
    np.testing.assert_allclose(numpy_.to_numpy(), kernel.to_numpy(), rtol=0, atol=2e-9)
    pd.testing.assert_series_equal(pd.Series(np.asarray(fit2.decide(new, strategy="pessimistic", reject_cost=0.3))),
                                   pd.Series(np.asarray(k_dec)))


def test_auto_mode_without_the_marker_answers_by_numpy(monkeypatch, tmp_path):
    """A fresh installation (no marker): a small prediction runs on numpy and starts the one
    background compilation, which warms this module's kernel too."""
    monkeypatch.setenv("EVSTAT_KERNELS", "auto")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    started = []
    monkeypatch.setattr(_kernels, "start_background_compile", lambda: started.append(1) or True)
    monkeypatch.setattr(_mlogit_kernel, "_KERNEL", None)
    monkeypatch.setattr(_mlogit_kernel, "_kernel", lambda: pytest.fail("compiled in the process"))
    fit, _ = _fit(60, 3, 5)
    out = fit.predict(_data(3, 3, 6).drop(columns="y"), type="belief")
    assert np.isfinite(out.to_numpy()).all() and started  # (the real one starts at most once)
    assert "evstat.likelihood.multinomial" in _kernels.KERNEL_MODULES
    assert callable(mlogit_profile._warm_kernels)


@pytest.mark.parametrize("threads", [2, 3, 7])
def test_kernel_threads_give_the_serial_answers_bit_for_bit(threads, monkeypatch):
    """functional_profile splits a kernel batch over threads at the starts of its chains
    (_kernels.run_split): each chain is solved as in the serial call, so the values, slopes and
    maximisers are identical, and the pass count is the same."""
    monkeypatch.setenv("EVSTAT_KERNELS", "numba")
    fit, _ = _fit(200, 3, 5)
    lik = fit.likelihood
    x, w, u = _problems(fit, 24, 5)
    uu = u[:, None] + np.linspace(-1.0, 1.0, 7)[None, :] * np.abs(u[:, None] - mlogit_panels._wald_u(lik, x, w)[0][:, None])
    out = {}
    for t in (1, threads):
        sol = np.full(uu.shape + (lik.d,), np.nan)
        p0 = mlogit_profile._PASSES[0]
        with ev.config_context(kernel_threads=t):
            lp, sl = mm.functional_profile(lik, x[:, None, :], w[:, None, :], uu, chain=True, tail=True,
                                           solutions=sol)
        out[t] = (lp, sl, sol, mlogit_profile._PASSES[0] - p0)
    assert np.isfinite(out[1][0]).all() and out[1][3] > uu.size
    for a, b in zip(out[1][:3], out[threads][:3]):
        assert np.array_equal(a, b, equal_nan=True)
    assert out[1][3] == out[threads][3]


def test_run_split_cuts_only_at_chain_starts_and_leaves_no_thread():
    import threading

    seen = []
    before = threading.active_count()
    _kernels.run_split(lambda lo, hi: seen.append((lo, hi, threading.get_ident())), [0, 4, 9, 10, 17], 20, 3)
    parts = sorted((lo, hi) for lo, hi, _ in seen)
    assert parts[0][0] == 0 and parts[-1][1] == 20 and all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    assert all(lo in (0, 4, 9, 10, 17) for lo, _ in parts) and len(parts) == 3
    idents = {t for _, _, t in seen}  # the caller runs the first part; a finished thread's id may be reused
    assert len(idents) >= 2 and [t for lo, _, t in seen if lo == 0] == [threading.get_ident()]
    assert threading.active_count() == before  # joined within the call
    one = []
    _kernels.run_split(lambda lo, hi: one.append((lo, hi)), [0], 20, 4)  # one chain: not cut
    assert one == [(0, 20)]

    def fail(lo, hi):
        if lo > 0:
            raise RuntimeError(f"part {lo}")
    with pytest.raises(RuntimeError, match="part 10"):
        _kernels.run_split(fail, [0, 10], 20, 2)
    assert threading.active_count() == before


def test_face_starts_in_threads_are_the_serial_ones(monkeypatch):
    """face_starts splits its batch of face problems over threads (_subspace_max_batch solves
    each problem alone): the same starts, bit for bit."""
    monkeypatch.setattr(_kernels, "THREAD_MIN_WORK", 1)
    fit, _ = _fit(150, 3, 4)
    x = fit._design(_data(12, 3, 40).drop(columns="y"))[0] * 30.0  # far-out rows: faces
    out = {}
    for t in (1, 3):
        mlogit_limit._REGION_CACHE.clear()
        with ev.config_context(kernel_threads=t):
            out[t] = mm.face_starts(fit.likelihood, x, [0.0, 1.0, 0.0])
    assert len(out[1]) == 2 and np.isfinite(out[1][0]).all()
    for a, b in zip(out[1], out[3]):
        assert np.array_equal(a, b)


def test_events_in_threads_give_the_serial_answers_and_keep_the_callers_settings(monkeypatch):
    """The singletons (and events=) of a prediction are computed concurrently (predictive_bounds_events,
    _kernels.run_calls): identical to one after the other, and the threads see the caller's
    config_context (kernel_threads=1 there means serial everywhere)."""
    import threading

    monkeypatch.setenv("EVSTAT_KERNELS", "numba")
    fit, _ = _fit(200, 3, 6)
    new = _data(30, 3, 60).drop(columns="y") * 4.0  # some far-out rows
    out = {}
    for t in (1, 2):
        with ev.config_context(kernel_threads=t):
            out[t] = (fit.predict(new, type="belief"),
                      fit.predict(new, type="belief", events=[["a"], ["a", "b"], ["c"]]))
    for a, b in zip(out[1], out[2]):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    seen = []
    real = _kernels.kernel_threads

    def spy():
        seen.append((threading.get_ident(), real()))
        return real()
    monkeypatch.setattr(_kernels, "kernel_threads", spy)
    fit.__dict__.pop("_bounds_memo", None)  # the fit remembers the last rows' bounds: compute again
    with ev.config_context(kernel_threads=1):
        fit.predict(new, type="belief")
    assert seen and all(n == 1 for _, n in seen)
    got = _kernels.run_calls([lambda: ev.get_config()["kernel_threads"]] * 3, 3)
    assert got == [None] * 3
    with ev.config_context(kernel_threads=5):
        assert _kernels.run_calls([lambda: ev.get_config()["kernel_threads"]] * 3, 3) == [5] * 3

    def boom():
        raise ValueError("third")
    with pytest.raises(ValueError, match="third"):
        _kernels.run_calls([lambda: 1, lambda: 2, boom], 2)


def test_kernel_has_one_signature_for_read_only_inputs():
    """functional_profile passes the compiled kernel writable C arrays whatever it is given
    (read-only views of np.broadcast_to included): every call uses the signature that
    _warm_kernels compiles, none compiles another (about 10 s each in a fit's first figure)."""
    X = np.c_[np.ones(40), np.linspace(-2.0, 2.0, 40)]
    lik = mm.multinomial_mle(X, np.arange(40) % 3, 3, targets="platt")
    x = np.broadcast_to(np.array([1.0, 0.4]), (2, 3, 2))  # read-only
    w = np.broadcast_to(np.array([0.0, 1.0, 0.0]), (2, 3, 3))
    u = np.broadcast_to(np.array([-2.0, -1.0, 0.5]), (2, 3))
    mm.functional_profile(lik, x, w, u, kernel=True)
    mm.functional_profile(lik, x, w, u, kernel=True, chain=True, start=np.broadcast_to(lik.B_hat.ravel(), (2, 3, 2 * 2)))
    mm.predictive_bounds(lik, np.broadcast_to(np.array([1.0, 3.0]), (4, 2)), np.eye(3)[1])
    sigs = _mlogit_kernel._kernel().signatures
    assert len(sigs) == 1, sigs
    assert not any(getattr(t, "readonly", False) for t in sigs[0])  # every array argument writable
