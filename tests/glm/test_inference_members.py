"""statsmodels' inference members on every likelihood model (issue 38 item 1): params, bse,
tvalues, pvalues, cov_params(), llf, aic, bic, deviance, df_resid and conf_int, from one
implementation (evstat.glm.GlmVerbs) for the scaling calibrators, checked by hand from their
predicted probabilities, and evmultinom's new tvalues/pvalues against statsmodels' MNLogit."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtr

import evstat as ev

FORMULA = "y ~ logp_setosa + logp_versicolor + logp_virginica"


@pytest.fixture(scope="module")
def cal() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    K, n = 3, 240
    z = rng.integers(0, K, n)
    L = rng.normal(size=(n, K)) + 1.2 * np.eye(K)[z]
    logp = L - np.log(np.exp(L).sum(axis=1, keepdims=True))
    d = pd.DataFrame(logp, columns=["logp_setosa", "logp_versicolor", "logp_virginica"])
    d["y"] = np.array(["setosa", "versicolor", "virginica"])[z]
    return d


FITS = {
    "temperature": lambda d: ev.temperature(FORMULA, d),
    "vector_scaling": lambda d: ev.vector_scaling(FORMULA, d),
    "matrix_scaling": lambda d: ev.matrix_scaling(FORMULA, d),
    "dirichlet": lambda d: ev.dirichlet(FORMULA, d, reg_lambda=0.0),
}


@pytest.mark.parametrize("name", sorted(FITS))
def test_scaling_inference_members_by_hand(name, cal):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = FITS[name](cal)
    est, se = fit.params.to_numpy(), fit.bse.to_numpy()
    assert list(fit.tvalues.index) == list(fit.params.index)
    np.testing.assert_allclose(fit.tvalues.to_numpy(), est / se)
    np.testing.assert_allclose(fit.pvalues.to_numpy(), 2.0 * ndtr(-np.abs(est / se)))
    cov = fit.cov_params()
    assert list(cov.index) == list(fit.params.index) == list(cov.columns)
    np.testing.assert_allclose(np.sqrt(np.diag(cov.to_numpy())), se)
    # the log-likelihood of the labels from the model's own probabilities on its calibration rows
    P = fit.predict(cal, type="prob")
    codes = pd.Categorical(cal["y"], categories=list(fit.classes)).codes
    ll = float(np.sum(np.log(P.to_numpy()[np.arange(len(cal)), codes])))
    assert fit.llf == pytest.approx(ll, rel=1e-10)
    assert fit.loglike_labels == pytest.approx(ll, rel=1e-10)
    k = fit.df_model
    assert k == len(fit.params)
    assert fit.aic == pytest.approx(-2 * ll + 2 * k, rel=1e-10)
    assert fit.bic == pytest.approx(-2 * ll + np.log(len(cal)) * k, rel=1e-10)
    assert fit.deviance == pytest.approx(-2 * ll, rel=1e-10)  # 0/1 targets: the saturated model is 0
    assert fit.df_resid == len(cal) * (fit.n_classes - 1) - k
    wald = fit.conf_int(method="wald")
    np.testing.assert_allclose(wald.iloc[:, 1] - wald.iloc[:, 0], 2 * 1.959963984540054 * se, rtol=1e-8)


def test_penalised_fit_has_no_aic(cal):
    fit = ev.dirichlet(FORMULA, cal)  # ODIR by default
    assert fit.penalised
    assert np.isnan(fit.aic) and np.isnan(fit.bic)
    assert np.isfinite(fit.llf)
    assert fit.cov_params().shape == (len(fit.params), len(fit.params))


def test_evmultinom_wald_tests_equal_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    z = rng.integers(0, 3, 200)
    d = pd.DataFrame({"s1": rng.normal(size=200) + z, "s2": rng.normal(size=200) - 0.5 * z,
                      "y": np.array(["a", "b", "c"])[z]})
    fit = ev.evmultinom("y ~ s1 + s2", d, targets="binary")
    X = np.column_stack([np.ones(len(d)), d[["s1", "s2"]].to_numpy()])
    res = sm.MNLogit(z, X).fit(disp=0, method="newton", maxiter=100)
    # statsmodels: one column per non-baseline class; evstat: one row per class
    np.testing.assert_allclose(fit.params.to_numpy(), np.asarray(res.params).T, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fit.tvalues.to_numpy(), np.asarray(res.tvalues).T, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(fit.pvalues.to_numpy(), np.asarray(res.pvalues).T, rtol=1e-6, atol=1e-10)
    assert fit.llf == pytest.approx(res.llf, rel=1e-10)
    assert fit.aic == pytest.approx(res.aic, rel=1e-10)
    assert fit.df_resid == len(d) * (fit.n_classes - 1) - fit.params.size
    assert isinstance(fit.tvalues, pd.DataFrame) and fit.tvalues.shape == fit.params.shape
