"""The numpy path of the profile likelihood (used while the numba kernel of a fresh installation
compiles; evstat.likelihood._kernels) against the compiled kernel and the statsmodels reference,
and the choice between them (mode, marker, background compilation)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import _kernels, linear_profile, profile_loglik, profile_loglik_reference


def _data(n: int, J: int, seed: int, sep: float = 0.9) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(int)
    S = rng.normal(size=(n, J)) + sep * y[:, None]
    df = pd.DataFrame(S, columns=[f"s{j + 1}" for j in range(J)])
    df["y"] = y
    return df


def _fit(n, J, seed, **kw):
    cal = _data(n, J, seed, **kw)
    return ev.evlogit("y ~ " + " + ".join(f"s{j + 1}" for j in range(J)), data=cal), cal


def _problems(lik, m, seed, spread=3.0):
    rng = np.random.default_rng(seed)
    A = np.column_stack([np.ones(m), rng.normal(scale=2.0, size=(m, lik.p - 1))])
    e = A @ lik.beta_hat + rng.normal(scale=spread, size=m)
    return A, e


@pytest.mark.parametrize("n, J, seed", [(60, 1, 0), (200, 3, 1), (1000, 2, 2), (40, 4, 3)])
def test_numpy_path_agrees_with_the_kernel(n, J, seed):
    fit, _ = _fit(n, J, seed)
    lik = fit.likelihood
    A, e = _problems(lik, 300, seed)
    k_l, k_nu, k_b, k_ok = linear_profile._newton_batch(lik, A, e, 1e-10, 60)
    n_l, n_nu, n_b, n_ok = linear_profile._newton_batch_numpy(lik, A, e, 1e-10, 60)
    assert k_ok.all() and n_ok.all()
    np.testing.assert_allclose(n_l, k_l, rtol=0, atol=1e-9)
    np.testing.assert_allclose(n_nu, k_nu, rtol=0, atol=1e-9)
    np.testing.assert_allclose(n_b, k_b, rtol=0, atol=1e-7)
    # on the constraint
    np.testing.assert_allclose(np.einsum("bi,bi->b", A, n_b), e, rtol=1e-12, atol=1e-9)


def test_numpy_path_agrees_with_the_reference_far_out():
    """Values far from ``a . beta_hat`` (steps that need halving) and well separated classes.
    (At spread 25, linear predictors near -35, the kernel and this path both stop at a point
    whose step halving stalls, 700 below the reference's maximum, and report it converged: a
    limit of the kernel's safeguard noted in issue 26's report, not of this path.)"""
    fit, _ = _fit(80, 2, 5, sep=2.5)
    lik = fit.likelihood
    A, e = _problems(lik, 12, 6, spread=10.0)
    n_l, n_nu, _, n_ok = linear_profile._newton_batch_numpy(lik, A, e, 1e-10, 60)
    r_l, r_nu = profile_loglik_reference(lik, A, e)
    assert n_ok.all()
    np.testing.assert_allclose(n_l, r_l, rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(n_nu, r_nu, rtol=1e-6, atol=1e-6)


def test_numpy_path_in_blocks_equals_one_block(monkeypatch):
    fit, _ = _fit(100, 2, 7)
    lik = fit.likelihood
    A, e = _problems(lik, 50, 8)
    one = linear_profile._newton_batch_numpy(lik, A, e, 1e-10, 60)
    monkeypatch.setattr(linear_profile, "NUMPY_BLOCK", 7 * lik.n)  # blocks of 7 problems
    many = linear_profile._newton_batch_numpy(lik, A, e, 1e-10, 60)
    np.testing.assert_array_equal(one[3], many[3])
    for a, b in zip(one[:3], many[:3]):  # equal but for the order of BLAS sums
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-12)


def test_numpy_path_reports_a_singular_problem_unconverged():
    fit, _ = _fit(60, 1, 9)
    lik = fit.likelihood
    A = np.array([[1.0, 0.5], [0.0, 0.0]])  # a zero direction: the KKT system is singular
    with np.errstate(all="ignore"):
        _, _, _, ok = linear_profile._newton_batch_numpy(lik, A, np.array([0.3, 0.0]), 1e-10, 60)
    assert ok.tolist() == [True, False]


@pytest.mark.parametrize("J", [1, 3])
def test_predictions_agree_between_the_paths(J, monkeypatch):
    fit, cal = _fit(150, J, 10 + J)
    new = _data(40, J, 99)
    new.loc[0, "s1"] = 6.0  # far from the calibration scores
    kernel = fit.predict(new, type="belief")
    monkeypatch.setenv("EVSTAT_KERNELS", "numpy")
    fit2 = ev.evlogit(fit.formula, data=cal)
    numpy_ = fit2.predict(new, type="belief")
    np.testing.assert_allclose(numpy_.to_numpy(), kernel.to_numpy(), rtol=0, atol=1e-9)
    ci_k = fit.conf_int(method="profile")
    ci_n = fit2.conf_int(method="profile")
    np.testing.assert_allclose(ci_n.to_numpy(), ci_k.to_numpy(), rtol=0, atol=1e-8)


def test_mode_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("EVSTAT_KERNELS", "numpy")
    assert _kernels.mode() == "numpy" and not _kernels.use_kernel(10**12, loaded=True)
    monkeypatch.setenv("EVSTAT_KERNELS", "numba")
    assert _kernels.use_kernel(1, loaded=False)
    monkeypatch.setenv("EVSTAT_KERNELS", "fast")
    with pytest.raises(ValueError, match=r"EVSTAT_KERNELS='fast' is not one of auto, numba, numpy"):
        _kernels.mode()


def test_auto_mode(monkeypatch, tmp_path):
    """Without the marker a small batch goes to numpy and starts one background compilation;
    a large batch, a loaded kernel or the marker choose the kernel."""
    monkeypatch.setenv("EVSTAT_KERNELS", "auto")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    started = []
    monkeypatch.setattr(_kernels, "start_background_compile", lambda: started.append(1) or True)
    assert not _kernels.ready()
    assert not _kernels.use_kernel(1000, loaded=False) and started == [1]
    assert _kernels.use_kernel(_kernels.COMPILE_IN_PROCESS_WORK, loaded=False)
    assert _kernels.use_kernel(1000, loaded=True)
    marker = _kernels.marker_path()
    assert marker.parent == tmp_path and marker.name.startswith("evstat-kernels-")
    marker.write_text("ok")
    assert _kernels.ready() and _kernels.use_kernel(1000, loaded=False) and started == [1]


def test_background_compile_starts_once_and_respects_the_lock(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    calls = []

    class FakePopen:
        returncode = None

        def __init__(self, args, **kw):
            calls.append((args, kw["env"]["EVSTAT_KERNELS"], kw["start_new_session"]))

        def wait(self):  # what the reaper thread calls (the handle is owned: issue 39)
            self.returncode = 0
            return 0

    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    monkeypatch.setattr(_kernels, "_STARTED", [False])
    monkeypatch.setattr(_kernels, "_COMPILE", [])
    assert _kernels.start_background_compile()
    assert calls[0][0][:3] == [sys.executable, "-m", "evstat.likelihood._kernels"]
    assert calls[0][1:] == ("numba", True)
    assert not _kernels.start_background_compile()  # once per process
    monkeypatch.setattr(_kernels, "_STARTED", [False])
    assert not _kernels.start_background_compile()  # another compilation holds the lock
    assert len(calls) == 1
    lock = _kernels.marker_path().with_suffix(".lock")
    os.utime(lock, (0, 0))  # a lock of a compilation that died long ago is taken over
    monkeypatch.setattr(_kernels, "_STARTED", [False])
    assert _kernels.start_background_compile() and len(calls) == 2


def test_compile_kernels_writes_the_marker(monkeypatch, tmp_path):
    """What the background process runs (here in the process: the kernel is compiled already
    or compiles here, into a temporary numba cache)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    lock = tmp_path / "x.lock"
    lock.write_text("")
    assert _kernels._main(["--lock", str(lock)]) == 0
    assert _kernels.ready() and not lock.exists()


def test_marker_changes_with_the_sources(monkeypatch, tmp_path):
    """A reinstall (new modification time of the kernel sources) invalidates the marker."""
    src = tmp_path / "linear_profile.py"
    src.write_text("x = 1\n")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    before = _kernels.marker_path()
    os.utime(linear_profile.__file__)  # touch: a new mtime
    try:
        after = _kernels.marker_path()
    finally:
        st = os.stat(linear_profile.__file__)
        os.utime(linear_profile.__file__, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert before != after


def test_profile_loglik_uses_the_numpy_path_without_numba(monkeypatch):
    """In mode "numpy" nothing is compiled and numba is not imported (a fresh process)."""
    code = (
        "import sys, numpy as np, evstat as ev\n"
        "cal = ev.datasets.simulate_gaussian(80, seed=1)\n"
        "fit = ev.evlogit('y ~ x1 + x2', data=cal)\n"
        "b = fit.predict(cal.head(5), type='belief')\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "print(b.shape)\n"
    )
    env = {**os.environ, "EVSTAT_KERNELS": "numpy"}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "(5, 3)"


def test_profile_loglik_fast_vs_reference_on_the_numpy_path(monkeypatch):
    monkeypatch.setenv("EVSTAT_KERNELS", "numpy")
    fit, _ = _fit(120, 2, 21)
    lik = fit.likelihood
    A, e = _problems(lik, 10, 22)
    fast = profile_loglik(lik, A, e, chain=True)
    ref = profile_loglik_reference(lik, A, e)
    np.testing.assert_allclose(fast[0], ref[0], rtol=1e-10, atol=1e-8)


@pytest.mark.parametrize("chain", [False, True])
def test_two_class_kernel_threads_give_the_serial_answers_bit_for_bit(chain, monkeypatch):
    """_newton_batch splits a batch over threads (the kernel releases the GIL), cut only where a
    path of one direction starts (chain=True) or anywhere (chain=False): identical answers
    and pass counts to the serial call."""
    monkeypatch.setenv("EVSTAT_KERNELS", "numba")
    monkeypatch.setattr(_kernels, "THREAD_MIN_WORK", 1)
    fit, _ = _fit(400, 3, 7)
    lik = fit.likelihood
    A, e = _problems(lik, 40, 7)
    if chain:  # 40 directions, 9 nodes each, outward from a . beta_hat (the quadrature's layout)
        e0 = A @ lik.beta_hat
        A = np.repeat(A, 9, axis=0)
        e = (e0[:, None] + np.linspace(0.0, 4.0, 9)[None, :]).reshape(-1)
    out = {}
    for t in (1, 2, 5):
        p0 = linear_profile._PASSES[0]
        with ev.config_context(kernel_threads=t):
            got = linear_profile._newton_batch(lik, A, e, 1e-10, 60, chain=chain)
        out[t] = (*got, linear_profile._PASSES[0] - p0)
    assert out[1][3].all()
    for t in (2, 5):
        for a, b in zip(out[1][:4], out[t][:4]):
            assert np.array_equal(a, b)
        assert out[t][4] == out[1][4]
