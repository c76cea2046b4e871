"""R's verbs on every registered model (the contract data of tests/test_contract.py): the
linear-predictor models give link, response, se_fit, residuals, update and anova with the
documented shapes; every other model refuses the link types with a message."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.glm import GlmVerbs
from evstat.results import contract_examples

EXAMPLES = contract_examples()
CASES = [(m, k) for m, (_, ks) in sorted(EXAMPLES.items()) for k in ks]
GLM_MODELS = {"evlogit", "betacal", "evmultinom", "temperature", "vector_scaling", "matrix_scaling", "dirichlet"}


def _data(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 3, n)
    s1 = 1.0 / (1.0 + np.exp(-(1.2 * (z == 2) - 1.2 * (z == 0) + rng.normal(0, 1, n))))
    s2 = 1.0 / (1.0 + np.exp(-(1.5 * (z == 1) - 0.8 + rng.normal(0, 1, n))))
    return pd.DataFrame({"s1": s1, "s2": s2, "g": rng.choice(["a", "b"], n), "y2": np.where(z == 2, "pos", "neg"),
                         "y3": np.array(["lo", "mid", "hi"], dtype=object)[z]})


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return _data(90, 1)


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    d = _data(7, 2)
    d.index = pd.Index(["r3", "r1", "r3", "r0", "r9", "r1", "r5"])
    return d


def test_the_linear_predictor_models_are_the_glm_verbs_models():
    assert {m for m, cls in ev.results.registered().items() if issubclass(cls, GlmVerbs)} == GLM_MODELS


@pytest.mark.parametrize("method, k", CASES)
def test_verbs_on_every_model(method, k, train, new):
    example, _ = EXAMPLES[method]
    fit = example("y2" if k == 2 else "y3", train)
    if not isinstance(fit, GlmVerbs):
        with pytest.raises(ValueError, match=f"needs a model with a linear predictor.*{method} has none"):
            fit.predict(new, type="link")
        return
    if fit._glm_cov() is None:
        # a penalised fit (dirichlet's default ODIR): no covariance, R's se.fit is refused plainly
        with pytest.raises(ValueError, match="se_fit=True needs the covariance of the coefficients"):
            fit.predict(new, type="link", se_fit=True)
        link = fit.predict(new, type="link")
        resp = fit.predict(new, type="response")
        assert np.isfinite(np.asarray(link)).all()
        np.testing.assert_allclose(np.asarray(resp), np.asarray(fit.predict(new, type="prob")), rtol=1e-9, atol=1e-14)
        return
    link = fit.predict(new, type="link", se_fit=True)
    resp = fit.predict(new, type="response", se_fit=True)
    assert list(link.index) == list(new.index) and list(resp.index) == list(new.index)
    prob = fit.predict(new, type="prob")
    if k == 2:
        assert list(link.columns) == ["fit", "se_fit"]
        np.testing.assert_allclose(resp["fit"], prob, rtol=1e-9, atol=1e-14)
        np.testing.assert_allclose(resp["fit"], 1 / (1 + np.exp(-link["fit"])), rtol=1e-9)
        assert fit.predict(new, type="link").name == "link"
    else:
        assert list(link["fit"].columns) == list(fit.classes[1:])
        assert list(resp["se_fit"].columns) == list(fit.classes)
        np.testing.assert_allclose(resp["fit"].to_numpy(), prob.to_numpy(), rtol=1e-9, atol=1e-14)
    assert np.isfinite(link.to_numpy()).all() and (np.asarray(link["se_fit"]) > 0).all()
    for type in ("deviance", "pearson", "response", "working"):
        r = fit.resid(type)
        assert r.index.equals(fit.training_data().index) and np.isfinite(r.to_numpy()).all()
    assert float((fit.resid("deviance") ** 2).sum()) == pytest.approx(fit.glm_deviance, rel=1e-10)
    again = fit.update()
    np.testing.assert_allclose(again._glm_coef(), fit._glm_coef(), rtol=1e-8, atol=1e-10)
    tab = ev.anova(fit, again)
    assert tab["Df"].iloc[1] == 0 and abs(tab["Deviance"].iloc[1]) < 1e-6


@pytest.mark.parametrize("method, k", [c for c in CASES if c[0] in GLM_MODELS])
def test_verbs_survive_save_and_load(method, k, train, new, tmp_path):
    example, _ = EXAMPLES[method]
    fit = example("y2" if k == 2 else "y3", train)
    back = ev.load(fit.save(tmp_path / "fit.json"))
    se = fit._glm_cov() is not None  # penalised fits (dirichlet's ODIR default) have no se_fit
    pd.testing.assert_frame_equal(pd.DataFrame(back.predict(new, type="link", se_fit=se)),
                                  pd.DataFrame(fit.predict(new, type="link", se_fit=se)), rtol=1e-9)
    np.testing.assert_allclose(back.resid("pearson").to_numpy(), fit.resid("pearson").to_numpy(), rtol=1e-9)
