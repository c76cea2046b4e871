"""R's modelling verbs on every likelihood model: closed forms, a finite-difference delta method,
refits equal to direct fits, and the errors of anova and update (issue 27; the R comparisons
are in test_glm_verbs_r.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

import evstat as ev
from evstat.glm import GlmVerbs


@pytest.fixture(scope="module")
def sonar() -> tuple[pd.DataFrame, pd.DataFrame]:
    s = ev.datasets.load("sonar_scores")
    return s[s["set"] == "calibration"], s[s["set"] == "test"]


@pytest.fixture(scope="module")
def three() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    z = rng.integers(0, 3, 150)
    d = pd.DataFrame({"s_a": (z == 0) * 1.5 + rng.normal(0, 1, 150), "s_b": (z == 1) * 1.5 + rng.normal(0, 1, 150),
                      "s_c": (z == 2) * 1.5 + rng.normal(0, 1, 150), "w": rng.normal(0, 1, 150)},
                     index=pd.Index(rng.permutation(1000)[:150], name="id"))
    d["y"] = np.array(["a", "b", "c"])[z]
    return d


def _models(three: pd.DataFrame) -> dict[str, GlmVerbs]:
    probs = np.exp(three[["s_a", "s_b", "s_c"]].to_numpy())
    probs /= probs.sum(axis=1, keepdims=True)
    pd3 = pd.DataFrame(probs, columns=["p_a", "p_b", "p_c"], index=three.index).assign(y=three["y"])
    return {
        "evmultinom": ev.evmultinom("y ~ s_a + s_b + s_c", three),
        "evmultinom_binary": ev.evmultinom("y ~ s_a + s_b + s_c", three, targets="binary"),
        "temperature": ev.temperature("y ~ s_a + s_b + s_c", three),
        "vector_scaling": ev.vector_scaling("y ~ s_a + s_b + s_c", three),
        "matrix_scaling": ev.matrix_scaling("y ~ s_a + s_b + s_c", three),
        "dirichlet": ev.dirichlet("y ~ p_a + p_b + p_c", pd3, reg_lambda=0),
    }


@pytest.fixture(scope="module")
def kfits(three) -> dict[str, GlmVerbs]:
    return _models(three)


def _numeric_se(fit: GlmVerbs, X: np.ndarray, type: str, h: float = 1e-6) -> np.ndarray:
    """sqrt(J V J') with J by central differences of the prediction in the coefficients: an
    implementation independent of evstat.glm's analytic gradients."""
    beta0 = fit._glm_coef().copy()
    G = fit._glm_design(X)

    def pred(beta: np.ndarray) -> np.ndarray:
        L = np.einsum("mkd,d->mk", G, beta)
        if type == "link":
            return L[:, 1:] - L[:, :1]
        P = np.exp(L - L.max(axis=1, keepdims=True))
        return P / P.sum(axis=1, keepdims=True)

    J = np.stack([(pred(beta0 + h * e) - pred(beta0 - h * e)) / (2 * h) for e in np.eye(beta0.size)], axis=-1)
    return np.sqrt(np.einsum("mkd,de,mke->mk", J, fit._glm_cov(), J))


# ---------------------------------------------------------------- predict(type="link" | "response")
def test_evlogit_link_is_x_beta_and_se_is_sqrt_xvx(sonar):
    cal, test = sonar
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", cal)
    X = np.c_[np.ones(len(test)), test[["svm1", "svm2", "svm3"]].to_numpy()]
    link = fit.predict(test, type="link", se_fit=True)
    np.testing.assert_allclose(link["fit"], X @ fit.params.to_numpy(), rtol=1e-12)
    V = fit.cov_params().to_numpy()
    np.testing.assert_allclose(link["se_fit"], np.sqrt(np.einsum("ij,jk,ik->i", X, V, X)), rtol=1e-12)
    resp = fit.predict(test, type="response", se_fit=True)
    th = expit(X @ fit.params.to_numpy())
    np.testing.assert_allclose(resp["fit"], th, rtol=1e-12)
    np.testing.assert_allclose(resp["se_fit"], th * (1 - th) * link["se_fit"], rtol=1e-10)


@pytest.mark.parametrize("name", ["evmultinom", "evmultinom_binary", "temperature", "vector_scaling",
                                  "matrix_scaling", "dirichlet"])
@pytest.mark.parametrize("type", ["link", "response"])
def test_k_class_se_equals_finite_difference_delta_method(kfits, three, name, type):
    fit = kfits[name]
    new = three.head(7) if name != "dirichlet" else None
    X, index = fit._design(new)
    pred = fit.predict(new, type=type, se_fit=True)
    assert list(pred.columns.names) == ["stat", "class"]
    assert list(pred["fit"].columns) == (list(fit.classes[1:]) if type == "link" else list(fit.classes))
    assert pred.index.equals(index)
    np.testing.assert_allclose(pred["se_fit"].to_numpy(), _numeric_se(fit, np.asarray(X), type), rtol=1e-5)
    plain = fit.predict(new, type=type)
    np.testing.assert_array_equal(plain.to_numpy(), pred["fit"].to_numpy())
    if type == "response":
        np.testing.assert_allclose(plain.to_numpy(), fit.predict(new, type="prob").to_numpy(), rtol=1e-10, atol=1e-15)
        np.testing.assert_allclose(plain.sum(axis=1), 1.0, rtol=1e-12)


def test_two_class_evmultinom_verbs_equal_evlogit(sonar):
    cal, test = sonar
    a = ev.evlogit("label ~ svm1 + svm2", cal)
    b = ev.evmultinom("label ~ svm1 + svm2", cal)
    for type in ("link", "response"):
        pa, pb = a.predict(test, type=type, se_fit=True), b.predict(test, type=type, se_fit=True)
        np.testing.assert_allclose(pa.to_numpy(), pb.to_numpy(), rtol=1e-6)
    for type in ("deviance", "pearson", "response", "working"):
        np.testing.assert_allclose(a.resid(type), b.resid(type), rtol=1e-6, atol=1e-9)
    assert a.glm_family == b.glm_family == "binomial logit, Platt targets"


def test_betacal_link_is_its_design_times_coefficients():
    rng = np.random.default_rng(3)
    p = rng.uniform(0.02, 0.98, 200)
    d = pd.DataFrame({"y": (rng.random(200) < p**1.5).astype(int), "p": p})
    fit = ev.betacal("y ~ p", d, parameters="abm")
    new = pd.DataFrame({"p": [0.1, 0.5, 0.9]})
    Z = np.c_[np.ones(3), np.log(new["p"]), -np.log1p(-new["p"])][:, fit._active]
    link = fit.predict(new, type="link", se_fit=True)
    np.testing.assert_allclose(link["fit"], Z @ fit.params.to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(link["se_fit"], np.sqrt(np.einsum("ij,jk,ik->i", Z, fit.cov_params().to_numpy(), Z)))
    np.testing.assert_allclose(fit.predict(new, type="response"), fit.predict(new), rtol=1e-12)
    assert float((fit.resid() ** 2).sum()) == pytest.approx(fit.deviance, rel=1e-10)


def test_link_and_response_keep_index_order_and_drop_missing(sonar):
    cal, test = sonar
    fit = ev.evlogit("y ~ svm1 + svm2", cal)
    new = test.head(5).copy()
    new.index = [9, 2, 9, 0, 5]
    new.iloc[1, new.columns.get_loc("svm1")] = np.nan
    out = fit.predict(new, type="link", missing="drop", se_fit=True)
    assert list(out.index) == [9, 9, 0, 5]
    with pytest.raises(ValueError, match="svm1"):
        fit.predict(new, type="response")


def test_link_on_extreme_scores_is_finite_and_response_saturates(sonar):
    cal, _ = sonar
    fit = ev.evlogit("y ~ svm1", cal, targets="binary")
    out = fit.predict(pd.DataFrame({"svm1": [-1e6, 1e6]}), type="response", se_fit=True)
    assert np.isfinite(out.to_numpy()).all()
    assert out["fit"].iloc[0] < 1e-100 or out["fit"].iloc[1] < 1e-100


def test_predict_glm_errors(sonar, kfits):
    cal, test = sonar
    fit = ev.evlogit("y ~ svm1", cal)
    with pytest.raises(ValueError, match="se_fit=True goes with type='link' or 'response'"):
        fit.predict(test, type="belief", se_fit=True)
    with pytest.raises(ValueError, match="type must be one of"):
        fit.predict(test, type="links")
    binning = ev.evbinning("y ~ svm1", cal, bins=3)
    with pytest.raises(ValueError, match="needs a model with a linear predictor .* evbinning has none"):
        binning.predict(test, type="link")
    knn = ev.eknn("y ~ svm1 + svm2", cal)
    with pytest.raises(ValueError, match="eknn has none"):
        knn.predict(test, type="response")
    odir = ev.dirichlet("y ~ p_a + p_b + p_c", kfits["dirichlet"].training_data(), reg_lambda=1e-2)
    with pytest.raises(ValueError, match="se_fit=True needs the covariance"):
        odir.predict(None, type="link", se_fit=True)
    assert odir.predict(None, type="link").shape == (odir.nobs, 2)


def test_link_type_under_dask_matches_pandas(sonar):
    dd = pytest.importorskip("dask.dataframe")
    cal, test = sonar
    fit = ev.evlogit("y ~ svm1 + svm2", cal)
    lazy = fit.predict(dd.from_pandas(test, npartitions=3), type="link", se_fit=True)
    pd.testing.assert_frame_equal(lazy.compute(), fit.predict(test, type="link", se_fit=True))


# ---------------------------------------------------------------- residuals
@pytest.mark.parametrize("name", ["evmultinom", "evmultinom_binary", "temperature", "vector_scaling",
                                  "matrix_scaling", "dirichlet"])
def test_k_class_residuals(kfits, name):
    fit = kfits[name]
    T = fit._glm_targets()
    P = fit.predict(None, type="response").to_numpy()
    r = fit.resid("response")
    assert list(r.columns) == list(fit.classes) and r.index.equals(fit.class_frame.index)
    np.testing.assert_allclose(r.to_numpy(), T - P, atol=1e-12)
    np.testing.assert_allclose(fit.resid("pearson").to_numpy(), (T - P) / np.sqrt(P * (1 - P)), rtol=1e-9)
    np.testing.assert_allclose(fit.resid("working").to_numpy(), (T - P) / (P * (1 - P)), rtol=1e-9)
    dev = fit.resid("deviance")
    assert isinstance(dev, pd.Series) and (dev >= 0).all()
    assert float((dev**2).sum()) == pytest.approx(fit.glm_deviance, rel=1e-10)
    if name.startswith("evmultinom"):
        assert fit.glm_deviance == pytest.approx(fit.deviance, rel=1e-10)
    if T.max() == 1.0:  # labels: d_i = -2 log p_y
        py = P[np.arange(len(P)), fit.training_codes()]
        np.testing.assert_allclose(dev.to_numpy(), np.sqrt(-2 * np.log(py)), rtol=1e-9)


def test_residuals_bad_type(sonar):
    fit = ev.evlogit("y ~ svm1", sonar[0])
    with pytest.raises(ValueError, match=r"type must be one of \('deviance', 'pearson', 'response', 'working'\)"):
        fit.resid("studentized")


def test_deviance_residuals_are_finite_under_separation():
    d = pd.DataFrame({"y": [0] * 10 + [1] * 10, "s": np.r_[np.linspace(-60, -50, 10), np.linspace(50, 60, 10)]})
    fit = ev.evlogit("y ~ s", d)  # Platt targets: finite estimate, fitted values round to 0 and 1
    for type in ("deviance", "pearson", "response", "working"):
        assert np.isfinite(fit.resid(type)).all(), type
    assert float((fit.resid() ** 2).sum()) == pytest.approx(fit.deviance, rel=1e-8)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["platt", "binary"]))
def test_residual_identities_hypothesis(seed, targets):
    """response = pearson * sqrt(mu (1 - mu)) = working * mu (1 - mu); sign(deviance) =
    sign(response); sum of squared deviance residuals = deviance."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=40)
    d = pd.DataFrame({"y": (rng.random(40) < expit(0.8 * s)).astype(int), "s": s})
    if d["y"].nunique() < 2:
        d.loc[0, "y"] = 1 - d.loc[0, "y"]
    fit = ev.evlogit("y ~ s", d, targets=targets)
    mu = fit.fittedvalues.to_numpy()
    resp = fit.resid("response").to_numpy()
    np.testing.assert_allclose(fit.resid("pearson") * np.sqrt(mu * (1 - mu)), resp, atol=1e-12)
    np.testing.assert_allclose(fit.resid("working") * mu * (1 - mu), resp, atol=1e-12)
    dev = fit.resid("deviance").to_numpy()
    assert np.all(np.sign(dev) == np.sign(resp))
    assert float(np.sum(dev**2)) == pytest.approx(fit.deviance, rel=1e-9)


# ---------------------------------------------------------------- update
def test_update_equals_a_direct_fit_and_keeps_settings(sonar):
    cal, _ = sonar
    full = ev.evlogit("label ~ svm1 + svm2 + svm3", cal, targets="binary", positive="R")
    small = full.update("~ . - svm3")
    direct = ev.evlogit("label ~ svm1 + svm2", cal, targets="binary", positive="R")
    assert small.formula == "label ~ svm1 + svm2" and small.targets == "binary" and small.positive == "R"
    np.testing.assert_allclose(small.params, direct.params, rtol=1e-12)
    assert small.model_frame.index.equals(cal.index)
    assert full.formula == "label ~ svm1 + svm2 + svm3"  # unchanged
    platt = full.update(targets="platt")
    np.testing.assert_allclose(platt.params, ev.evlogit("label ~ svm1 + svm2 + svm3", cal, positive="R").params,
                               rtol=1e-12)
    half = full.update(data=cal.iloc[::2])
    np.testing.assert_allclose(half.params, ev.evlogit("label ~ svm1 + svm2 + svm3", cal.iloc[::2], targets="binary",
                                                       positive="R").params, rtol=1e-12)
    wider = ev.evlogit("label ~ svm1", cal).update("~ . + svm2 + svm3", data=cal)
    assert wider.terms == ["Intercept", "svm1", "svm2", "svm3"]


def test_update_after_save_and_load(sonar, tmp_path):
    cal, _ = sonar
    fit = ev.load(ev.evlogit("y ~ svm1 + svm2", cal).save(tmp_path / "f.json"))
    np.testing.assert_allclose(fit.update("~ . - svm2").params, ev.evlogit("y ~ svm1", cal).params, rtol=1e-12)


def test_update_of_each_k_class_model_equals_direct_fit(kfits, three):
    direct = {
        "evmultinom": lambda d: ev.evmultinom("y ~ s_a + s_b", d),
        "matrix_scaling": lambda d: ev.matrix_scaling("y ~ s_a + s_b", d),
    }
    for name, make in direct.items():
        new = kfits[name].update("~ . - s_c")
        np.testing.assert_allclose(new._glm_coef(), make(three)._glm_coef(), rtol=1e-9)
    t = kfits["temperature"].update(data=three.iloc[:100])
    np.testing.assert_allclose(t._glm_coef(), ev.temperature("y ~ s_a + s_b + s_c", three.iloc[:100])._glm_coef(),
                               rtol=1e-9)
    assert kfits["temperature"]._glm_formula() == "y ~ s_a + s_b + s_c"
    odir = kfits["dirichlet"].update(reg_lambda=1e-2)
    assert odir.reg_lambda == 1e-2 and odir.reg_mu == 0.0


def test_update_errors(sonar):
    cal, _ = sonar
    fit = ev.evlogit("y ~ svm1 + svm2", cal)
    with pytest.raises(ValueError, match=r"svm3.*without data=, the refit uses the calibration rows"):
        fit.update("~ . + svm3")
    with pytest.raises(ValueError, match="has no '~'"):
        fit.update(". - svm2")
    with pytest.raises(ValueError, match="no right-hand side"):
        fit.update("y ~ ")
    with pytest.raises(TypeError, match="DataFrame"):
        fit.update(data=cal.to_numpy())
    with pytest.raises(TypeError, match="unexpected keyword"):
        fit.update(tragets="binary")


def test_update_formula_dots_and_names():
    assert ev.update_formula("y ~ np.log(s) + t", "~ . + I(t**2)") == "y ~ np.log(s) + t + I(t ** 2)"
    assert ev.update_formula("y ~ s1 + s2", "~ . - s1 - s2") == "y ~ 1"
    assert ev.update_formula("y ~ s1", "~ . - s1 - 1") == "y ~ 0"
    assert ev.update_formula('Q("my y") ~ s', ". ~ . + t") == 'Q("my y") ~ s + t'
    assert ev.update_formula("y ~ s + C(g)", "~ . - C(g)") == "y ~ s"
    assert ev.update_formula("y ~ s", "~ . + I(0.5 * t)") == "y ~ s + I(0.5 * t)"  # a decimal point is no dot
    with pytest.raises(TypeError):
        ev.update_formula("y ~ s", None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- anova and lr_test: nesting and errors
def test_anova_reparametrised_design_is_nested_and_has_zero_df(sonar):
    cal, _ = sonar
    a = ev.evlogit("y ~ svm1", cal)
    b = ev.evlogit("y ~ I(2 * svm1)", cal)
    tab = ev.anova(a, b)
    assert tab["Df"].iloc[1] == 0 and np.isnan(tab["Pr(>Chi)"].iloc[1])
    assert abs(tab["Deviance"].iloc[1]) < 1e-8
    with pytest.raises(ValueError, match="same number of coefficients"):
        ev.lr_test(a, b)


def test_anova_across_scaling_models(kfits):
    tab = ev.anova(kfits["temperature"], kfits["vector_scaling"], kfits["matrix_scaling"])
    assert tab["Resid. Df"].tolist() == [2 * 150 - 1, 2 * 150 - 5, 2 * 150 - 8]
    assert (tab["Deviance"].iloc[1:] >= -1e-8).all()
    assert "Model 1: y ~ s_a + s_b + s_c (temperature)" in repr(tab)
    # matrix scaling is evmultinom with 0/1 targets: the same likelihood and deviance
    same = ev.anova(kfits["matrix_scaling"], kfits["evmultinom_binary"])
    assert abs(same["Deviance"].iloc[1]) < 1e-6 and same["Df"].iloc[1] == 0


def test_anova_errors(sonar, kfits, three):
    cal, _ = sonar
    f1 = ev.evlogit("y ~ svm1", cal)
    f2 = ev.evlogit("y ~ svm2", cal)
    f12 = ev.evlogit("y ~ svm1 + svm2", cal)
    with pytest.raises(ValueError, match=r"not nested: the terms \['svm1'\] of 'y ~ svm1'"):
        ev.anova(f1, f2)
    ev.anova(f1, f12, f2)  # each nested in the next or the next in it
    with pytest.raises(ValueError, match=r"models 2 and 3 are not nested: the terms \['svm3'\]"):
        ev.anova(f1, f12, ev.evlogit("y ~ svm3", cal))
    with pytest.raises(ValueError, match="got none"):
        ev.anova()
    beta = ev.betacal("y ~ p", pd.DataFrame({"y": cal["y"], "p": 1 / (1 + np.exp(-cal["svm1"]))}))
    with pytest.raises(ValueError, match="anova of one betacal fit adds its formula's terms one at a time"):
        ev.anova(beta)
    with pytest.raises(ValueError, match="anova of one temperature fit"):
        ev.anova(kfits["temperature"])
    with pytest.raises(ValueError, match="different families .*Platt targets.*0/1 labels"):
        ev.anova(f1, ev.evlogit("y ~ svm1 + svm2", cal, targets="binary"))
    with pytest.raises(ValueError, match="different rows \\(n = 79 and n = 60"):
        ev.anova(f1, ev.evlogit("y ~ svm1 + svm2", cal.head(60)))
    shuffled = cal.copy()
    shuffled.index = shuffled.index[::-1]
    with pytest.raises(ValueError, match="different rows \\(same count 79, different index"):
        ev.anova(f1, ev.evlogit("y ~ svm1 + svm2", shuffled))
    other = cal.assign(svm1=cal["svm1"] + 1e-3)
    with pytest.raises(ValueError, match="different data: column 'svm1'"):
        ev.anova(f1, ev.evlogit("y ~ svm1 + svm2", other))
    flipped = cal.assign(y=1 - cal["y"])
    with pytest.raises(ValueError, match="different response values"):
        ev.anova(f1, ev.evlogit("y ~ svm1 + svm2", flipped))
    with pytest.raises(ValueError, match="different responses"):
        ev.anova(f1, ev.evlogit("label ~ svm1 + svm2", cal))
    with pytest.raises(TypeError, match="'evbinning', which has no likelihood"):
        ev.anova(f1, ev.evbinning("y ~ svm1", cal, bins=3))
    odir = kfits["dirichlet"].update(reg_lambda=1e-2)
    with pytest.raises(ValueError, match="penalised fit"):
        ev.anova(kfits["dirichlet"], odir)
    with pytest.raises(ValueError, match="different families"):
        ev.anova(kfits["evmultinom"], kfits["matrix_scaling"])


def test_lr_test_orders_the_pair_and_equals_anova(sonar):
    cal, _ = sonar
    big = ev.evlogit("y ~ svm1 + svm2 + svm3", cal)
    small = big.update("~ svm2")
    t1, t2 = ev.lr_test(small, big), ev.lr_test(big, small)
    assert t1 == t2 and t1.df == 2 and t1.formulas == ("y ~ svm2", "y ~ svm1 + svm2 + svm3")
    assert t1.statistic == pytest.approx(small.deviance - big.deviance, rel=1e-12)
    assert t1.statistic == pytest.approx(2 * (big.loglike - small.loglike), rel=1e-10)
    assert "chi-squared = " in str(t1) and "on 2 df" in str(t1)
    tab = ev.anova(small, big)
    assert tab["Pr(>Chi)"].iloc[1] == pytest.approx(t1.p_value, rel=1e-14)


def test_update_expands_a_dot_of_the_fitted_formula_into_its_terms(sonar, monkeypatch):
    """A fit whose formula says ``y ~ .`` (every other column) is updated on its fitted terms, as
    R's ``update`` reads ``formula(fit)``."""
    cal, _ = sonar
    fit = ev.evlogit("y ~ svm1 + svm2", cal)
    monkeypatch.setattr(fit, "_glm_formula", lambda: "y ~ .")
    assert fit._glm_old_formula() == "y ~ svm1 + svm2"
    np.testing.assert_allclose(fit.update("~ . - svm2").params, ev.evlogit("y ~ svm1", cal).params, rtol=1e-12)
    nointercept = ev.evlogit("y ~ svm1 - 1", cal)
    monkeypatch.setattr(nointercept, "_glm_formula", lambda: "y ~ . - 1")
    assert nointercept._glm_old_formula() == "y ~ svm1 - 1"


def test_anova_of_one_evmultinom_fit_equals_the_pairwise_tables(three):
    fit = ev.evmultinom("y ~ s_a + s_b + s_c", three, targets="binary")
    seq = ev.anova(fit)
    assert list(seq.index) == ["NULL", "s_a", "s_b", "s_c"]
    pair = ev.anova(fit.update("~ s_a"), fit.update("~ s_a + s_b"), fit)
    np.testing.assert_allclose(seq["Resid. Dev"].iloc[1:], pair["Resid. Dev"], rtol=1e-10)
    np.testing.assert_allclose(seq["Pr(>Chi)"].iloc[2:], pair["Pr(>Chi)"].iloc[1:], rtol=1e-8)
    assert seq["Resid. Df"].tolist() == [2 * 150 - 2, 2 * 150 - 4, 2 * 150 - 6, 2 * 150 - 8]
    assert seq.loc["NULL", "Resid. Dev"] == pytest.approx(fit.null_deviance, rel=1e-10)


def test_evmultinom_se_against_its_own_probabilities_by_finite_differences(three):
    """The delta method through evmultinom's own prediction (``likelihood.multinomial``'s softmax
    of ``B x``), perturbing the (K - 1) x p coefficient matrix: independent of evstat.glm."""
    from evstat.likelihood.multinomial import scaled_probs

    fit = ev.evmultinom("y ~ s_a + s_b", three, targets="binary")
    new = three.head(5)
    X = np.c_[np.ones(5), new[["s_a", "s_b"]].to_numpy()]
    B = fit.params.to_numpy()
    h = 1e-6
    J = []
    for j in range(B.size):
        E = np.zeros(B.size)
        E[j] = h
        up, down = scaled_probs(B + E.reshape(B.shape), X), scaled_probs(B - E.reshape(B.shape), X)
        J.append((up - down) / (2 * h))
    J = np.stack(J, axis=-1)  # (rows, K, d)
    se = np.sqrt(np.einsum("mkd,de,mke->mk", J, fit.cov_params().to_numpy(), J))
    got = fit.predict(new, type="response", se_fit=True)
    np.testing.assert_allclose(got["fit"].to_numpy(), scaled_probs(B, X), rtol=1e-12)
    np.testing.assert_allclose(got["se_fit"].to_numpy(), se, rtol=1e-6)
    eta = np.log(scaled_probs(B, X)[:, 1:] / scaled_probs(B, X)[:, :1])
    np.testing.assert_allclose(fit.predict(new, type="link").to_numpy(), eta, rtol=1e-10)


def test_update_of_a_dot_formula_fit_and_of_a_long_formula():
    """``y ~ . - id`` is stored expanded (R's formula(fit)), so update edits its terms; a formula
    of 2,000 score columns is updated without recursion (evstat.formula.limits.model_desc)."""
    rng = np.random.default_rng(0)
    d = pd.DataFrame(rng.normal(size=(60, 4)), columns=["a", "b", "c", "id"])
    d["y"] = (rng.random(60) < expit(d["a"])).astype(int)
    fit = ev.evlogit("y ~ . - id", d)
    small = fit.update("~ . - c")
    assert small.formula == "y ~ a + b"
    np.testing.assert_allclose(small.params, ev.evlogit("y ~ a + b", d).params, rtol=1e-12)
    assert ev.anova(small, fit)["Df"].tolist()[1] == 1
    old = "y ~ " + " + ".join(f"s{i}" for i in range(2000))
    new = ev.update_formula(old, "~ . - s5 + s2000")
    assert new == "y ~ " + " + ".join(f"s{i}" for i in [*range(5), *range(6, 2001)])
