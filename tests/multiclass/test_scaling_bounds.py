"""Predictive lower and upper probabilities of the scaling calibrators (issue 36, items 1-2):
temperature, vector and matrix scaling and Dirichlet calibration are evidential through the
relative likelihood of their parameters (notes/evidential-multinomial.md, section 4).

Each engine is checked against an independent slow reference written here: a dense grid over
1/T for temperature scaling (the layer cake of the discretised contour, summed exactly), and a
multi-start SLSQP maximisation at each node of ``scipy.integrate.quad`` for vector scaling and
ODIR Dirichlet calibration; matrix scaling against evmultinom's own fit with 0/1 targets; K = 2
against evlogit; plus the invariants (hypothesis) and the bad inputs.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.optimize import minimize
from scipy.special import expit, logit

import evstat as ev
from evstat.likelihood.linear_softmax import LinearSoftmaxLikelihood, softmax_bounds
from evstat.likelihood.temperature import R_MAX, TemperatureLikelihood, temperature_bounds, temperature_probs


def _logit_data(n: int, K: int, seed: int, strength: float = 1.5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K  # every class present
    rng.shuffle(y)
    z = strength * np.eye(K)[y] + rng.normal(size=(n, K))
    d = pd.DataFrame(z, columns=[f"s_{k}" for k in range(K)])
    d["y"] = y
    return d


def _formula(K: int) -> str:
    return "y ~ " + " + ".join(f"s_{k}" for k in range(K))


# ----------------------------------------------------------------------------- references
def _grid_loglik(Z: np.ndarray, y: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """sum_i tau z_{i, y_i} - logsumexp(tau z_i), written out here (scipy's logsumexp)."""
    from scipy.special import logsumexp

    out = np.empty(taus.size)
    zy = Z[np.arange(len(y)), y].sum()
    for a in range(0, taus.size, 20_000):
        t = taus[a : a + 20_000]
        out[a : a + 20_000] = t * zy - logsumexp(t[:, None, None] * Z[None], axis=2).sum(axis=1)
    return out


def _grid_reference(lik: TemperatureLikelihood, N: int):
    """Bel and Pl of f_w on a dense grid of tau: the level sets {pl >= omega} are the grid points
    of largest pl, so the layer cake of the discretised contour is an exact finite sum. Returns
    the function of (z, w)."""
    taus = np.linspace(lik.tau_at(-6.5), lik.tau_at(6.5), N)  # beyond: omega < 7e-10
    y = np.argmax(lik.Y, axis=1)
    ll = _grid_loglik(lik.Z, y, taus)
    pl = np.exp(ll - ll.max())  # the grid's maximum: l_hat to within the grid's rounding
    o = np.argsort(-pl)
    pls = np.r_[pl[o], 0.0]
    dm = pls[:-1] - pls[1:]
    to = taus[o]

    def bounds(z: np.ndarray, w: np.ndarray) -> tuple[float, float]:
        f = temperature_probs(to[None, :], z[None, :])[0] @ w
        return float(np.sum(dm * np.minimum.accumulate(f))), float(np.sum(dm * np.maximum.accumulate(f)))

    return bounds


def _slsqp_reference(lik: LinearSoftmaxLikelihood, Gs: np.ndarray, w: np.ndarray, seed: int = 0,
                     starts: int = 2) -> tuple[float, float, float]:
    """h_hat, lower and upper by scipy: at each node u = logit t, the maximum of lp over
    {logit h_w = u} from several starts (SLSQP on the equality), integrated by quad in u on each
    side of u_hat (the layer cake, dt = t (1 - t) du)."""
    Gs = Gs / lik.scale
    rng = np.random.default_rng(seed)
    sd = np.sqrt(np.diag(lik.cov))

    def h_of(phi: np.ndarray) -> float:
        eta = Gs @ phi
        th = np.exp(eta - eta.max())
        return float(th @ w / th.sum())

    x0 = [lik.phi_hat] + [lik.phi_hat + 2.0 * sd * rng.normal(size=lik.p) for _ in range(starts)]
    prev: dict[int, np.ndarray] = {}

    def profile(u: float, side: int) -> float:
        best, arg = -np.inf, None
        for s0 in ([prev[side]] if side in prev else []) + x0:
            con = {"type": "eq", "fun": lambda f: logit(min(max(h_of(f), 1e-300), 1 - 1e-16)) - u}
            r = minimize(lambda f: -lik.evaluate(f[None], order=0)[0][0], s0, method="SLSQP", constraints=[con],
                         options={"ftol": 1e-14, "maxiter": 500})
            if abs(con["fun"](r.x)) < 1e-7 and -float(r.fun) > best:
                best, arg = -float(r.fun), r.x
        if arg is not None:
            prev[side] = arg
        t = expit(u)
        return float(np.exp(min(best - lik.lp_hat, 0.0))) * t * (1.0 - t)

    h = h_of(lik.phi_hat)
    u_hat = logit(h)
    eps = 1e-6  # the Wald scale of u by central differences
    grad = np.array([(logit(h_of(lik.phi_hat + eps * e)) - logit(h_of(lik.phi_hat - eps * e))) / (2 * eps)
                     for e in np.eye(lik.p)])
    W = 14.0 * float(np.sqrt(grad @ lik.cov @ grad))  # beyond: pl below exp(-98) on a Wald scale
    lo = h - quad(profile, u_hat - W, u_hat, args=(-1,), epsabs=1e-10, limit=100)[0]
    up = h + quad(profile, u_hat, u_hat + W, args=(1,), epsabs=1e-10, limit=100)[0]
    return h, lo, up


# ----------------------------------------------------------------------------- temperature
@pytest.mark.parametrize("K, seed", [(3, 0), pytest.param(4, 1, marks=pytest.mark.slow)])
def test_temperature_bounds_equal_the_dense_grid_reference(K, seed):
    d = _logit_data(50, K, seed)
    fit = ev.temperature(_formula(K), d)
    lik = fit._contour()
    new = _logit_data(6, K, seed + 10, strength=0.5)
    Z = new[[f"s_{k}" for k in range(K)]].to_numpy()
    events = [np.eye(K)[k] for k in range(K)] + [np.r_[1.0, 1.0, np.zeros(K - 2)]]
    out = temperature_bounds(lik, Z[:3], events)
    ref = _grid_reference(lik, 600_001)
    for j, w in enumerate(events):
        for i in range(3):
            bel, pl = ref(Z[i], w)
            assert abs(out[j][1][i] - bel) < 1e-6 and abs(out[j][2][i] - pl) < 1e-6


def test_temperature_level_map_interpolates_the_exact_solutions():
    d = _logit_data(80, 3, 2)
    lik = ev.temperature(_formula(3), d)._contour()
    r = np.linspace(-R_MAX + 0.01, R_MAX - 0.01, 57) + 0.0037
    exact = lik._solve_levels(r)
    np.testing.assert_allclose(lik.tau_at(r), exact, rtol=0, atol=1e-10)
    # the level sets are those of the likelihood: l(tau(r)) = l_hat - r^2 / 2
    np.testing.assert_allclose(lik.loglik(exact), lik.loglik_hat - 0.5 * r * r, atol=1e-9)
    np.testing.assert_allclose(lik.r_of(lik.tau_at(r)), r, atol=1e-9)


def test_temperature_two_classes_equal_evlogit_through_the_origin():
    d = _logit_data(80, 2, 3)
    d["diff"] = d["s_1"] - d["s_0"]
    t = ev.temperature("y ~ s_0 + s_1", d, scores="raw")
    e = ev.evlogit("y ~ diff - 1", d, targets="binary")
    np.testing.assert_allclose(t.coef[0], e.params.iloc[0], rtol=1e-8)
    new = _logit_data(12, 2, 4, strength=0.7)
    new["diff"] = new["s_1"] - new["s_0"]
    bt, be = t.predict(new, type="belief"), e.predict(new, type="belief")
    np.testing.assert_allclose(bt.to_numpy(), be.to_numpy(), atol=1e-7)


def test_temperature_at_a_hundred_classes_never_builds_the_mass_table():
    d = _logit_data(300, 100, 5, strength=3.0)
    fit = ev.temperature(_formula(100), d)
    new = d.head(3)
    b = fit.predict(new, type="belief")
    assert b.shape == (3, 300)
    bel, th, pl = (b[s].to_numpy() for s in ("bel", "theta", "pl"))
    assert np.all((0 <= bel) & (bel <= th + 1e-15) & (th <= pl + 1e-15) & (pl <= 1))
    ev_ = fit.predict(new, type="belief", events=[list(range(50)), [0]])
    assert ev_.shape == (3, 6)
    with pytest.raises(ValueError, match="type='belief'"):
        fit.predict(new, type="mass")


# ----------------------------------------------------------------------------- vector scaling, ODIR
@pytest.mark.slow
@pytest.mark.parametrize("K, seed", [(3, 0), (4, 1)])
def test_vector_scaling_bounds_equal_the_multistart_reference(K, seed):
    d = _logit_data(60, K, seed)
    fit = ev.vector_scaling(_formula(K), d)
    lik = fit._contour()
    new = _logit_data(2, K, seed + 20, strength=0.5)
    Gs = fit._G(fit._features(new[[f"s_{k}" for k in range(K)]].to_numpy()))
    events = [np.r_[1.0, 1.0, np.zeros(K - 2)]] if K == 3 else [np.eye(K)[K - 1]]  # a set; a singleton
    out = softmax_bounds(lik, Gs, events)
    for j, w in enumerate(events):
        h, lo, up = _slsqp_reference(lik, Gs[0], w)
        assert abs(out[j][0][0] - h) < 1e-12
        assert abs(out[j][1][0] - lo) < 1e-6 and abs(out[j][2][0] - up) < 1e-6


@pytest.mark.slow
def test_odir_dirichlet_uses_the_penalised_likelihood_as_contour():
    rng = np.random.default_rng(3)
    K, n = 3, 60
    y = np.arange(n) % K
    q = rng.dirichlet(np.ones(K), n) * 0.6
    q[np.arange(n), y] += 0.4
    d = pd.DataFrame(q, columns=[f"p_{k}" for k in range(K)]).assign(y=y)
    fit = ev.dirichlet("y ~ p_0 + p_1 + p_2", d, reg_lambda=1e-2)
    lik = fit._contour()
    # the contour is exp(lp - lp_hat), lp the penalised log-likelihood (module docstring)
    phi = np.asarray(fit.coef)
    assert lik.log_contour(phi)[0] == pytest.approx(0.0, abs=1e-9)
    G = fit._G(fit._features(d[["p_0", "p_1", "p_2"]].to_numpy()))
    P = np.exp(np.einsum("nkp,p->nk", G, phi))
    P /= P.sum(axis=1, keepdims=True)
    lp = np.sum(np.log(P[np.arange(n), y])) - n * np.sum(fit._penalty() * phi * phi)
    assert lik.lp_hat == pytest.approx(lp, abs=1e-7)
    new = np.array([[0.5, 0.3, 0.2]])
    Gs = fit._G(fit._features(new))
    (h, lo, up), = softmax_bounds(lik, Gs, [np.eye(K)[0]])
    rh, rlo, rup = _slsqp_reference(lik, Gs[0], np.eye(K)[0], starts=1)
    assert abs(lo[0] - rlo) < 1e-6 and abs(up[0] - rup) < 1e-6


def test_general_engine_equals_evmultinoms_on_matrix_scaling():
    """Matrix scaling written as a linear softmax (the general engine's retraction, chains and
    quadrature) against evmultinom's compiled engine: two implementations of the same bounds."""
    d = _logit_data(70, 3, 21)
    fit = ev.matrix_scaling("y ~ s_0 + s_1", d)
    F = fit._features(np.asarray(fit._X))
    Y = np.eye(3)[fit.training_codes()]
    gen = LinearSoftmaxLikelihood(fit._G(F), Y, np.asarray(fit.coef), (-1, 0, 3))
    new = _logit_data(3, 3, 22, strength=0.5)[["s_0", "s_1"]].to_numpy()
    events = [np.eye(3)[0], np.eye(3)[2], np.array([0.0, 1.0, 1.0])]
    fast = fit._contour_bounds(new, events)
    mine = softmax_bounds(gen, fit._G(fit._features(new)), events)
    for (h1, l1, u1), (h2, l2, u2) in zip(fast, mine):
        np.testing.assert_allclose(h2, h1, atol=1e-12)
        np.testing.assert_allclose(l2, l1, atol=2e-8)
        np.testing.assert_allclose(u2, u1, atol=2e-8)


# ----------------------------------------------------------------------------- matrix scaling, K = 2
def test_matrix_scaling_bounds_equal_evmultinom_with_binary_targets():
    d = _logit_data(90, 3, 8)
    m = ev.matrix_scaling("y ~ s_0 + s_1", d)
    e = ev.evmultinom("y ~ s_0 + s_1", d, targets="binary")  # its own fit: statsmodels + Newton
    np.testing.assert_allclose(np.asarray(m.coef).reshape(2, 3), e.likelihood.B_hat, rtol=1e-6, atol=1e-8)
    new = _logit_data(8, 3, 9)
    np.testing.assert_allclose(m.predict(new, type="belief").to_numpy(), e.predict(new, type="belief").to_numpy(),
                               atol=1e-7)


@pytest.mark.parametrize("method", ["vector_scaling", "matrix_scaling"])
def test_two_class_scalings_equal_evlogit(method):
    d = _logit_data(70, 2, 11)
    fit = getattr(ev, method)("y ~ s_0 + s_1", d, evidential=True,
                              **({"scores": "raw"} if method == "vector_scaling" else {}))
    e = ev.evlogit("y ~ s_0 + s_1", d, targets="binary")  # logit p_1 = b_1 + w_1 s_1 - w_0 s_0: the same model
    new = _logit_data(6, 2, 12, strength=0.6)
    np.testing.assert_allclose(fit.predict(new, type="belief").to_numpy(), e.predict(new, type="belief").to_numpy(),
                               atol=2e-7)


# ----------------------------------------------------------------------------- properties
@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False), min_size=3, max_size=3),
       st.sampled_from([[0], [1], [2], [0, 1], [1, 2], [0, 2]]))
def test_temperature_bounds_invariants(z, event):
    fit = _TEMP3
    new = pd.DataFrame([z], columns=["s_0", "s_1", "s_2"])
    comp = [k for k in range(3) if k not in event]
    b = fit.predict(new, type="belief", events=[event, comp])
    th, bel, pl = (b[s].to_numpy()[0] for s in ("theta", "bel", "pl"))
    assert np.all(np.isfinite(bel)) and np.all(np.isfinite(pl))
    assert np.all((0 <= bel) & (bel <= th) & (th <= pl) & (pl <= 1))
    assert bel[0] == pytest.approx(1.0 - pl[1], abs=1e-9)  # Bel(A) = 1 - Pl(not A)
    single = fit.predict(new, type="belief")
    for k in event:  # monotone: {k} inside A
        assert single[("bel", k)].iloc[0] <= bel[0] + 1e-9 and single[("pl", k)].iloc[0] <= pl[0] + 1e-9


with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    _TEMP3 = ev.temperature(_formula(3), _logit_data(45, 3, 13))


@pytest.mark.parametrize("method", ["temperature", "vector_scaling", "matrix_scaling"])
def test_ignorance_shrinks_as_the_calibration_set_grows(method):
    new = _logit_data(2, 3, 14, strength=1.0)
    ign = []
    for n in (40, 400):
        fit = getattr(ev, method)(_formula(3), _logit_data(n, 3, 15, strength=1.0), evidential=True)
        b = fit.predict(new, type="belief")
        ign.append(float(np.mean(b["pl"].to_numpy() - b["bel"].to_numpy())))
    assert ign[1] < 0.6 * ign[0]


def test_pessimistic_decisions_use_the_lower_probabilities():
    fit = _TEMP3
    new = _logit_data(20, 3, 16, strength=0.8)
    bel = fit.predict(new, type="belief")["bel"].to_numpy()
    dec = fit.decide(new, strategy="pessimistic", reject_cost=0.4)
    want = np.where(1.0 - bel.max(axis=1) > 0.4, None, np.asarray(fit.classes, dtype=object)[np.argmax(bel, axis=1)])
    got = dec.to_numpy()
    for g_, w_ in zip(got, want):
        assert (w_ is None and g_ not in fit.classes) or g_ == w_


# ----------------------------------------------------------------------------- bad inputs
def test_a_fit_without_maximum_has_no_bounds_and_says_why():
    d = _logit_data(30, 3, 17, strength=30.0)  # the logits separate the classes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ev.vector_scaling(_formula(3), d, evidential=True)
    assert not fit.converged
    fit.predict(d.head(2), type="prob")  # theta_hat remains
    with pytest.raises(ValueError, match="did not converge.*not defined"):
        fit.predict(d.head(2), type="belief")


def test_extreme_scores_temperature_answers_vector_scaling_refuses():
    new = pd.DataFrame({"s_0": [1e300, -1e300], "s_1": [0.0, 1e300], "s_2": [-1e300, 5.0]})
    b = _TEMP3.predict(new, type="belief")
    assert np.all(np.isfinite(b.to_numpy())) and np.all((b.to_numpy() >= 0) & (b.to_numpy() <= 1))
    vs = ev.vector_scaling(_formula(3), _logit_data(45, 3, 13), evidential=True)
    with pytest.raises(ValueError, match="beyond .* times the largest calibration score"):
        vs.predict(new, type="belief")
    nan = pd.DataFrame({"s_0": [np.nan], "s_1": [0.0], "s_2": [1.0]})
    with pytest.raises(ValueError, match="s_0"):
        _TEMP3.predict(nan, type="belief")


def test_type_mass_two_classes_is_the_mass_of_the_bounds():
    d = _logit_data(60, 2, 18)
    fit = ev.temperature("y ~ s_0 + s_1", d, scores="raw")
    b = fit.predict(d.head(4), type="belief")
    m = fit.predict(d.head(4), type="mass")
    v = np.asarray(m.values)
    np.testing.assert_allclose(v[:, 2], b["bel"].to_numpy(), atol=1e-12)  # m({1}) = Bel({1})
    np.testing.assert_allclose(v[:, 3], (b["pl"] - b["bel"]).to_numpy(), atol=1e-12)
    np.testing.assert_allclose(v.sum(axis=1), 1.0, atol=1e-12)


def test_evidential_defaults_the_option_and_the_saved_flag(tmp_path):
    d = _logit_data(60, 3, 23)
    new = d.head(4)
    vs = ev.vector_scaling(_formula(3), d)  # default: theta_hat's Bayesian masses (Bel = Pl)
    b = vs.predict(new, type="belief")
    np.testing.assert_array_equal(b["bel"].to_numpy(), b["pl"].to_numpy())
    assert vs.capabilities.k_class_mass and vs.predict(new, type="mass").values.shape == (4, 8)
    ve = ev.vector_scaling(_formula(3), d, evidential=True)
    be = ve.predict(new, type="belief")
    assert np.all(be["bel"].to_numpy() < be["pl"].to_numpy()) and not ve.capabilities.k_class_mass
    t = ev.temperature(_formula(3), d, evidential=False)
    bt = t.predict(new, type="belief")
    np.testing.assert_array_equal(bt["bel"].to_numpy(), bt["pl"].to_numpy())
    assert t.capabilities.k_class_mass and not ev.temperature(_formula(3), d).capabilities.k_class_mass
    for fit in (ve, t):
        fit.save(tmp_path / "f.json")
        back = ev.load(tmp_path / "f.json")
        assert back.evidential == fit.evidential and back.capabilities == fit.capabilities
        np.testing.assert_allclose(back.predict(new, type="belief").to_numpy(), fit.predict(new, type="belief").to_numpy(),
                                   atol=1e-12)
    with pytest.raises(ValueError, match="evidential must be True, False or None"):
        ev.temperature(_formula(3), d, evidential="yes")
    assert ev.dirichlet("y ~ s_0 + s_1 + s_2", d.assign(**{c: expit(d[c]) for c in ["s_0", "s_1", "s_2"]}),
                        reg_lambda=0).capabilities.k_class_mass is False


@pytest.mark.parametrize("K, seed", [(3, 24), (10, 25)])
def test_temperature_singletons_fast_path_equals_the_general_path(K, seed):
    """The singletons' Gauss-Legendre panels split at the kinks (the fast path) against the
    adaptive quadrature with the exact extremes that serves every other event."""
    from evstat.likelihood.temperature import _bounds_block, singleton_bounds

    lik = ev.temperature(_formula(K), _logit_data(60 * K, K, seed))._contour()
    Z = 2.0 * np.random.default_rng(seed).normal(size=(12, K))
    h, lo, up = singleton_bounds(lik, Z)
    for k in range(K):
        h2, lo2, up2 = _bounds_block(lik, Z, np.eye(K)[k])
        np.testing.assert_allclose(h[:, k], h2, atol=1e-14)
        np.testing.assert_allclose(lo[:, k], lo2, atol=1e-9)
        np.testing.assert_allclose(up[:, k], up2, atol=1e-9)
