"""Multi-class calibrators: fast paths against direct optimisation of the same likelihood,
statsmodels, hand computation; probability vectors; invariances; bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import special

import evstat as ev
from evstat.multiclass import ScalingFitWarning


def _scores(n: int, seed: int, k: int = 3, sep: float = 1.5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    d = pd.DataFrame({f"s_{c}": sep * (y == i) + rng.normal(0, 1, n) for i, c in enumerate("abcdefgh"[:k])})
    d["y"] = np.array(list("abcdefgh"[:k]), dtype=object)[y]
    return d


def _probs(n: int, seed: int, k: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    q = rng.dirichlet(np.ones(k), n) * 0.6
    q[np.arange(n), y] += 0.4 * rng.uniform(0.2, 1, n)
    q /= q.sum(axis=1, keepdims=True)
    d = pd.DataFrame(q, columns=[f"p_{c}" for c in "abcdefgh"[:k]])
    d["y"] = np.array(list("abcdefgh"[:k]), dtype=object)[y]
    return d


def _nll(logits, y):
    return -np.sum(logits[np.arange(len(y)), y] - special.logsumexp(logits, axis=1))


# ---------------------------------------------------------------- scaling against scipy
def test_temperature_against_direct_scipy_optimisation() -> None:
    from scipy import optimize

    d = _scores(300, 1)
    fit = ev.temperature("y ~ s_a + s_b + s_c", d)
    Z = d[["s_a", "s_b", "s_c"]].to_numpy()
    y = pd.Categorical(d["y"]).codes
    res = optimize.minimize_scalar(lambda T: _nll(Z / T, y), bounds=(0.01, 100), method="bounded",
                                   options={"xatol": 1e-10})
    assert fit.temperature == pytest.approx(res.x, rel=1e-6)
    assert fit.glance()["logLik"].iloc[0] == pytest.approx(-res.fun, rel=1e-10)
    P = special.softmax(Z / res.x, axis=1)
    np.testing.assert_allclose(fit.predict(d).to_numpy(), P, atol=1e-7)


def test_vector_scaling_against_direct_scipy_optimisation() -> None:
    from scipy import optimize

    d = _scores(300, 2)
    fit = ev.vector_scaling("y ~ s_a + s_b + s_c", d)
    Z = d[["s_a", "s_b", "s_c"]].to_numpy()
    y = pd.Categorical(d["y"]).codes

    def f(t):
        return _nll(Z * t[:3] + np.r_[0.0, t[3:]], y)

    res = optimize.minimize(f, np.r_[np.ones(3), 0, 0], method="Nelder-Mead",
                            options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 40000, "maxfev": 40000})
    np.testing.assert_allclose(fit.params.to_numpy(), res.x, atol=1e-4)


def test_matrix_scaling_is_statsmodels_mnlogit() -> None:
    import statsmodels.api as sm

    d = _scores(400, 3)
    fit = ev.matrix_scaling("y ~ s_a + s_b + s_c", d)
    X = sm.add_constant(d[["s_a", "s_b", "s_c"]])
    ref = sm.MNLogit(pd.Categorical(d["y"]).codes, X).fit(disp=0, method="newton", tol=1e-12, maxiter=200)
    ours = fit.params.to_numpy().reshape(2, 4)
    np.testing.assert_allclose(ours, ref.params.to_numpy().T, atol=1e-6)
    np.testing.assert_allclose(fit.bse.to_numpy().reshape(2, 4), ref.bse.to_numpy().T, rtol=1e-5)
    assert fit.glance()["logLik"].iloc[0] == pytest.approx(ref.llf, rel=1e-10)


@pytest.mark.slow
def test_dirichlet_against_direct_scipy_optimisation() -> None:
    from scipy import optimize

    d = _probs(300, 4)
    cols = ["p_a", "p_b", "p_c"]
    y = pd.Categorical(d["y"]).codes
    L = np.log(d[cols].to_numpy())
    # unpenalised: multinomial logistic regression on ln p, by BFGS without our gradient
    fit = ev.dirichlet("y ~ p_a + p_b + p_c", d, reg_lambda=0)

    def f(t):
        W = np.vstack([np.zeros(4), t.reshape(2, 4)])
        return _nll(W[:, 0] + L @ W[:, 1:].T, y)

    res = optimize.minimize(f, np.zeros(8), method="BFGS", options={"gtol": 1e-9})
    np.testing.assert_allclose(fit.params.to_numpy(), res.x, atol=1e-4)
    # ODIR (Kull et al. 2019): mean NLL + lambda/(K(K-1)) sum off-diagonal W^2 + mu/K sum b^2
    lam, mu = 0.05, 0.02
    pen = ev.dirichlet("y ~ p_a + p_b + p_c", d, reg_lambda=lam, reg_mu=mu)

    def g(t):
        W = t.reshape(3, 4)
        off = W[:, 1:][~np.eye(3, dtype=bool)]
        return _nll(W[:, 0] + L @ W[:, 1:].T, y) / len(y) + lam / 6 * np.sum(off**2) + mu / 3 * np.sum(W[:, 0] ** 2)

    t0 = np.hstack([np.zeros((3, 1)), np.eye(3)]).ravel()
    res2 = optimize.minimize(g, t0, method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(pen.params.to_numpy(), res2.x, atol=1e-4)
    assert pen.bse.isna().all()  # a penalty is not a likelihood


def test_name_matching_and_explicit_ovr_code_agree() -> None:
    d = _scores(200, 5)
    a = ev.temperature("y ~ s_a + s_b + s_c", d)
    code = ev.multiclass.code_matrix(["a", "b", "c"], "ovr").rename(columns=lambda c: f"s_{c}")
    b = ev.temperature("y ~ s_a + s_b + s_c", d, code=code)
    np.testing.assert_allclose(a.predict(d).to_numpy(), b.predict(d).to_numpy(), atol=1e-10)


def test_separable_classes_warn() -> None:
    d = _scores(60, 6, sep=12.0)
    with pytest.warns(ScalingFitWarning, match="did not converge"):
        ev.matrix_scaling("y ~ s_a + s_b + s_c", d)


# ---------------------------------------------------------------- Gebel's Dirichlet calibration by hand
@pytest.mark.parametrize("combine", ["prod", "gmean", "gtrim"])
def test_gebel_dirichlet_by_hand(combine) -> None:
    from scipy import stats

    d = _scores(80, 7, k=3)
    fit = ev.gebel_dirichlet("y ~ s_a + s_b + s_c", d, code="pairs" if False else None, combine=combine, m=17)
    S = d[["s_a", "s_b", "s_c"]].to_numpy()
    c = np.abs(S).max(axis=0)
    P = (S + 1.05 * c) / (2 * 1.05 * c)
    k = 3
    r = np.empty((80, 3))
    for i in range(80):
        for j in range(k):
            f = [P[i, b] if b == j else 1 - P[i, b] for b in range(k)]  # one-vs-rest
            if combine == "prod":
                r[i, j] = np.prod(f)
            elif combine == "gmean":
                r[i, j] = np.prod(f) ** (1 / 3)
            else:  # floor(0.1 * 3) = 0: nothing trimmed
                r[i, j] = np.prod(f) ** (1 / 3)
    y = pd.Categorical(d["y"]).codes
    pi = np.bincount(y) / 80
    p = np.empty((80, 3))
    for j in range(k):
        m_, v = r[:, j].mean(), r[:, j].var(ddof=1)
        phi = m_ * (1 - m_) / v - 1
        u = stats.beta.cdf(r[:, j], m_ * phi, (1 - m_) * phi)
        p[:, j] = stats.gamma.ppf(u, 17 * pi[j])
    p /= p.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(fit.predict(d).to_numpy(), p, rtol=1e-8)


def test_gebel_trimmed_mean_drops_extremes() -> None:
    d = _scores(320, 8, k=6)
    code = ev.multiclass.code_matrix(list("abcdef"), "complete")  # 301 tasks
    assert code.shape[1] == 301
    rng = np.random.default_rng(0)
    cols = [f"t{j + 1}" for j in range(301)]
    psi = code.to_numpy()
    y = pd.Categorical(d["y"]).codes
    T = pd.DataFrame(psi[y] * 1.0 + rng.normal(0, 1, (320, 301)), columns=cols)
    T["y"] = d["y"]
    fit = ev.gebel_dirichlet("y ~ " + " + ".join(cols), T, code=code, combine="gtrim", m=10)
    S = T[cols].to_numpy()
    c = np.abs(S).max(axis=0)
    P = (S + 1.05 * c) / (2.1 * c)
    row, cls = 3, 2
    f = np.sort(np.log(np.where(psi[cls] == 1, P[row], 1 - P[row])[psi[cls] != 0]))
    g = int(np.floor(0.1 * f.size))
    assert g == 21  # class in 211 of the 301 tasks
    np.testing.assert_allclose(fit.combined(fit.class_frame.X[[row]])[0, cls], np.exp(f[g:-g].mean()), rtol=1e-12)


def test_gebel_m_search_refine_close_to_grid() -> None:
    d = _scores(60, 9)
    grid = ev.gebel_dirichlet("y ~ s_a + s_b + s_c", d, m_search="grid")
    fine = ev.gebel_dirichlet("y ~ s_a + s_b + s_c", d, m_search="refine")
    assert 1 <= grid.m <= 120 and grid.objective >= fine.objective - 1e-12
    y = pd.Categorical(d["y"]).codes
    for m in (1, grid.m, 120):  # the chosen m is the best of the grid
        alt = ev.gebel_dirichlet("y ~ s_a + s_b + s_c", d, m=m)
        p = alt.predict(d).to_numpy()
        crit = (ev.metrics.correctness_rate(y, p) * ev.metrics.one_minus_rmse(y, p) * ev.metrics.wcr(y, p)) ** (1 / 3)
        assert crit <= grid.objective + 1e-12


def test_gebel_direct_on_class_probabilities() -> None:
    d = _probs(120, 10)
    fit = ev.gebel_dirichlet("y ~ p_a + p_b + p_c", d, combine="direct", m=30)
    np.testing.assert_allclose(fit.combined(fit.class_frame.X), d[["p_a", "p_b", "p_c"]].to_numpy())
    with pytest.raises(ValueError, match="values outside"):
        fit.predict(d.assign(p_a=1.5))


def _confident(n_per: int = 10) -> pd.DataFrame:
    """Class probabilities of a confident classifier (the K-class reproduction's ANN): every row
    within 2e-9 of a corner of the simplex, two confident errors per class."""
    y = np.repeat([0, 1, 2], n_per)
    guess = y.copy()
    guess[[0, 1, n_per, n_per + 1, 2 * n_per, 2 * n_per + 1]] = [1, 2, 2, 0, 0, 1]
    P = np.full((y.size, 3), 1e-9)
    P[np.arange(y.size), guess] = 1 - 2e-9
    d = pd.DataFrame(P, columns=["p_a", "p_b", "p_c"])
    d["y"] = np.array(list("abc"), dtype=object)[y]
    return d


def test_beta_moments_falls_back_to_the_1_over_n_variance() -> None:
    """The thesis's n - 1 variance of 0/1-concentrated values exceeds m (1 - m), which no Beta
    distribution has; such a column gets the 1/N variance, the others keep n - 1."""
    from evstat.multiclass.gebel import beta_moments

    d = _confident()
    r = np.column_stack([d["p_a"], np.linspace(0.1, 0.7, len(d))])
    m, v1, v0 = r.mean(axis=0), r.var(axis=0, ddof=1), r.var(axis=0, ddof=0)
    assert v1[0] > m[0] * (1 - m[0]) > v0[0]  # the failing case of the reproduction (no Beta with n - 1)
    a, b, used = beta_moments(r)
    assert used.tolist() == [True, False]
    # the Beta keeps the mean and has the 1/N variance (column 0) or the n - 1 variance (column 1)
    np.testing.assert_allclose(a / (a + b), m, rtol=1e-12)
    beta_var = a * b / ((a + b) ** 2 * (a + b + 1))
    np.testing.assert_allclose(beta_var, [v0[0], v1[1]], rtol=1e-6)
    phi1 = m[1] * (1 - m[1]) / v1[1] - 1
    np.testing.assert_allclose([a[1], b[1]], [m[1] * phi1, (1 - m[1]) * phi1], rtol=1e-12)
    with pytest.raises(ValueError, match="column 'x' .* constant or all exactly 0 or 1"):
        beta_moments(np.array([[0.0], [1.0], [1.0]]), names=["x"])
    with pytest.raises(ValueError, match="column 0 .* constant or all exactly 0 or 1"):
        beta_moments(np.full((4, 1), 0.3))


def test_gebel_direct_on_confident_probabilities() -> None:
    """combine='direct' on probabilities concentrated at 0 and 1 (refused before: "admit no Beta
    distribution by moments", 52 of 320 fits of the K-class reproduction)."""
    d = _confident()
    fit = ev.gebel_dirichlet("y ~ p_a + p_b + p_c", d, combine="direct", m_search="grid")
    p = fit.predict(d)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    assert ((p >= 0) & (p <= 1)).all().all()
    # every class fell back: the Beta variance is the 1/N variance of its column
    a, b = fit.alpha, fit.beta
    r = d[["p_a", "p_b", "p_c"]].to_numpy()
    np.testing.assert_allclose(a * b / ((a + b) ** 2 * (a + b + 1)), r.var(axis=0), rtol=1e-6)
    assert "Beta fit with the 1/N variance for class(es) 'a', 'b', 'c'" in fit.summary().as_text()
    # the class with the highest calibrated probability is the classifier's
    assert (p.to_numpy().argmax(axis=1) == r.argmax(axis=1)).all()
    exact = d.assign(p_a=np.round(d["p_a"]), p_b=np.round(d["p_b"]), p_c=np.round(d["p_c"]))
    with pytest.raises(ValueError, match="gebel_dirichlet: the combined probabilities r of class 'a' .* all exactly 0 or 1"):
        ev.gebel_dirichlet("y ~ p_a + p_b + p_c", exact, combine="direct", m=3)


# ---------------------------------------------------------------- ECOC
def test_ecoc_tasks_are_the_binary_calibrators() -> None:
    d = _scores(150, 11)
    fit = ev.ecoc("y ~ s_a + s_b + s_c", d, code="pairs" if False else None, calibrator="evlogit", coupling="normalise")
    r = np.empty((150, 3))
    for j, c in enumerate("abc"):
        one = ev.evlogit("y ~ s", pd.DataFrame({"y": (d["y"] == c).astype(int), "s": d[f"s_{c}"]}))
        r[:, j] = one.predict(pd.DataFrame({"s": d[f"s_{c}"]}), type="prob").to_numpy()
    np.testing.assert_allclose(fit.predict(d).to_numpy(), r / r.sum(axis=1, keepdims=True), atol=1e-10)
    assert fit.weights.tolist() == [150, 150, 150]


def test_ecoc_pairs_with_isotonic_and_wu_lin_weng(tmp_path) -> None:
    rng = np.random.default_rng(12)
    y = rng.integers(0, 3, 180)
    lv = np.array(["a", "b", "c"], dtype=object)
    d = pd.DataFrame({"y": lv[y]})
    for a, b in [("a", "b"), ("a", "c"), ("b", "c")]:
        d[f"svm_{a}_{b}"] = (lv[y] == a) * 1.0 - (lv[y] == b) * 1.0 + rng.normal(0, 0.7, 180)
    fit = ev.ecoc("y ~ svm_a_b + svm_a_c + svm_b_c", d, code="pairs", calibrator="isotonic", coupling="wu-lin-weng")
    assert fit.weights.tolist() == [int(((lv[y] == a) | (lv[y] == b)).sum()) for a, b in [("a", "b"), ("a", "c"), ("b", "c")]]
    again = ev.load(fit.save(tmp_path / "ecoc.json"))
    pd.testing.assert_frame_equal(again.predict(d), fit.predict(d))
    r = fit.task_probs(fit.class_frame.X)
    np.testing.assert_allclose(fit.predict(d).to_numpy(), ev.multiclass.couple(r, fit.code, method="wu-lin-weng"))


# ---------------------------------------------------------------- invariances and probability vectors
FITTERS = {
    "temperature": lambda f, d: ev.temperature(f, d),
    "vector_scaling": lambda f, d: ev.vector_scaling(f, d),
    "matrix_scaling": lambda f, d: ev.matrix_scaling(f, d),
    "dirichlet": lambda f, d: ev.dirichlet(f, d, reg_lambda=0.01),
    "gebel_gmean": lambda f, d: ev.gebel_dirichlet(f, d, combine="gmean"),
    "gebel_prod": lambda f, d: ev.gebel_dirichlet(f, d, combine="prod"),
    "ecoc": lambda f, d: ev.ecoc(f, d, calibrator="evlogit"),
}


def _prep(name: str, d: pd.DataFrame) -> pd.DataFrame:
    """Dirichlet calibration reads probabilities: the scores through expit."""
    if name != "dirichlet":
        return d
    return d.assign(**{c: special.expit(np.clip(d[c], -30, 30)) for c in d if c.startswith("s_")})


@pytest.mark.parametrize("name", sorted(FITTERS))
def test_invariant_to_order_of_classes_and_columns(name) -> None:
    d = _prep(name, _scores(120, 13))
    fit1 = FITTERS[name]("y ~ s_a + s_b + s_c", d)
    d2 = d.assign(y=pd.Categorical(d["y"], categories=["c", "a", "b"]))
    fit2 = FITTERS[name]("y ~ s_b + s_c + s_a", d2)
    assert fit2.classes == ("c", "a", "b")
    new = _prep(name, _scores(9, 14))
    p1 = fit1.predict(new)
    p2 = fit2.predict(new)[list(p1.columns)]
    np.testing.assert_allclose(p1.to_numpy(), p2.to_numpy(), atol=1e-6)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.sampled_from([3, 4]), name=st.sampled_from(sorted(FITTERS)),
       scale=st.sampled_from([0.01, 1.0, 1e3]))
def test_every_output_is_a_probability_vector(seed, k, name, scale) -> None:
    d = _scores(40 * k, seed, k=k, sep=1.0)
    cols = [c for c in d if c.startswith("s_")]
    d[cols] = d[cols] * scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScalingFitWarning)
        fit = FITTERS[name]("y ~ " + " + ".join(cols), _prep(name, d))
    new = _scores(25, seed + 1, k=k)
    new[cols] = new[cols] * scale * 3  # beyond the training range too
    P = fit.predict(_prep(name, new)).to_numpy()
    assert np.isfinite(P).all() and (P >= 0).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)


# ---------------------------------------------------------------- bad input
def test_bad_input_names_the_problem() -> None:
    d = _scores(90, 15)
    with pytest.raises(ValueError, match=r"score column\(s\) \['s_x'\] .* match no class of response 'y'"):
        ev.temperature("y ~ s_a + s_b + s_c + s_x", d.assign(s_x=d["s_a"] * 0.5 + 1))
    with pytest.raises(ValueError, match="no score column .* belongs to task 'c'"):
        ev.temperature("y ~ s_a + s_b", d)
    cat = d.assign(y=pd.Categorical(d["y"], categories=["a", "b", "c", "d"]))
    with pytest.raises(ValueError, match=r"belong to class\(es\) \['d'\], which have no rows in the calibration data"):
        ev.gebel_dirichlet("y ~ s_a + s_b + s_c + s_d", cat.assign(s_d=d["s_a"] * 0.3 - 1))
    code = ev.multiclass.code_matrix(["a", "b", "c", "d"], "ovr").rename(columns=lambda c: f"s_{c}")
    with pytest.raises(ValueError, match=r"rows for \['d'\], classes without rows in the calibration data"):
        ev.ecoc("y ~ s_a + s_b + s_c + s_d", cat.assign(s_d=d["s_a"] * 0.3 - 1), code=code)
    bad = pd.DataFrame({"s_a": [1, -1, 0], "s_b": [1, -1, 0], "s_c": [-1, 1, 1]}, index=["a", "b", "c"])
    with pytest.raises(ValueError, match="columns 's_a' and 's_b' are identical"):
        ev.ecoc("y ~ s_a + s_b + s_c", d, code=bad)
    with pytest.raises(ValueError, match="is all zero"):
        ev.ecoc("y ~ s_a + s_b + s_c", d, code=bad.assign(s_b=0))
    with pytest.raises(ValueError, match=r"dirichlet calibrates probabilities: score column 's_a' .* has values above 1"):
        ev.dirichlet("y ~ s_a + s_b + s_c", d)
    with pytest.raises(ValueError, match="calibrator must be one of"):
        ev.ecoc("y ~ s_a + s_b + s_c", d, calibrator="svm")
    with pytest.raises(ValueError, match="one-vs-rest codes"):
        ev.ecoc("y ~ s_a_b + s_a_c + s_b_c", d.assign(s_a_b=d.s_a, s_a_c=d.s_b * 2, s_b_c=d.s_c), code="pairs",
                coupling="normalise")
    with pytest.raises(ValueError, match="combine must be one of"):
        ev.gebel_dirichlet("y ~ s_a + s_b + s_c", d, combine="mean")
    with pytest.raises(ValueError, match="m must be a positive integer"):
        ev.gebel_dirichlet("y ~ s_a + s_b + s_c", d, m=0)
    with pytest.raises(ValueError, match="reg_lambda and reg_mu must be finite"):
        ev.dirichlet("y ~ s_a + s_b + s_c", d, reg_lambda=-1)
    with pytest.raises(ValueError, match="missing values"):
        ev.temperature("y ~ s_a + s_b + s_c", d.assign(s_a=np.where(d.index == 3, np.nan, d.s_a)))
    fit = ev.temperature("y ~ s_a + s_b + s_c", d)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['s_c'\]"):
        fit.predict(d.drop(columns="s_c"))
