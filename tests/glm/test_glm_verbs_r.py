"""R's modelling verbs against R: predict.glm (link, response, se.fit), residuals.glm (four types),
anova(test = "Chisq") for glm and nnet::multinom, and update.formula (issue 27).

The reference numbers were computed with R 4.2.2 Patched (2022-11-10 r83330) and nnet 7.3.18 by
the committed script ``tests/glm/data/glm_verbs_r.R`` (run from the repository root as
``Rscript tests/glm/data/glm_verbs_r.R tests/glm/data``), which wrote ``glm_verbs_r.csv`` and
``update_formula_r.csv`` here. These tests read the committed files (CI needs no R);
``test_r_script_reproduces_the_references`` reruns the script when ``Rscript`` is on the PATH.

Data: the shipped Sonar scores (``ev.datasets.load("sonar_scores")``: 79 calibration rows, 79
test rows), fitted with 0/1 targets (R's ``glm(y ~ ...)``) and with Platt's targets (R's
``glm(t ~ ...)`` on the same fractional response, which evlogit maximises); the budworm data of
Venables and Ripley (2002) with one row per insect and sex as a factor; and the three-class data
of ``tests/multiclass/data/evmultinom_r.csv`` (R's ``nnet::multinom``). R's glm was run with
``epsilon = 1e-14`` so that its estimates agree with evstat's polished ones to about 1e-10; the
tests allow 1e-7 relative.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]
RTOL = 1e-7


def _read_reference(path: Path) -> dict[tuple[str, str], np.ndarray]:
    ref = pd.read_csv(path, dtype={"value": str})
    out = {}
    for (case, key), g in ref.groupby(["case", "key"], sort=False):
        out[(case, key)] = pd.to_numeric(g.sort_values("i")["value"].replace("NA", np.nan)).to_numpy(dtype=float)
    return out


@pytest.fixture(scope="module")
def ref() -> dict[tuple[str, str], np.ndarray]:
    return _read_reference(DATA / "glm_verbs_r.csv")


@pytest.fixture(scope="module")
def sonar() -> tuple[pd.DataFrame, pd.DataFrame]:
    s = ev.datasets.load("sonar_scores")
    return s[s["set"] == "calibration"], s[s["set"] == "test"]


@pytest.fixture(scope="module")
def budworm() -> pd.DataFrame:
    ldose = np.tile(np.arange(6.0), 2)
    numdead = np.array([1, 4, 9, 13, 18, 20, 0, 2, 6, 10, 12, 16])
    sex = np.repeat(["M", "F"], 6)
    rows = []
    for d, k, s in zip(ldose, numdead, sex):
        rows += [(1, d, s)] * k + [(0, d, s)] * (20 - k)
    return pd.DataFrame(rows, columns=["dead", "ldose", "sex"])


# ---------------------------------------------------------------- predict.glm and residuals.glm
@pytest.mark.parametrize("targets", ["binary", "platt"])
def test_sonar_predict_link_and_response_with_se_match_r(ref, sonar, targets):
    cal, test = sonar
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", cal, targets=targets)
    case = f"sonar.{targets}"
    for type in ("link", "response"):
        p = fit.predict(test, type=type, se_fit=True)
        assert list(p.columns) == ["fit", "se_fit"] and p.index.equals(test.index)
        np.testing.assert_allclose(p["fit"], ref[(case, f"{type}.fit")], rtol=RTOL)
        np.testing.assert_allclose(p["se_fit"], ref[(case, f"{type}.se")], rtol=RTOL)
        plain = fit.predict(test, type=type)
        assert isinstance(plain, pd.Series) and plain.name == type
        np.testing.assert_array_equal(plain.to_numpy(), p["fit"].to_numpy())
    # type="response" is type="prob"
    np.testing.assert_allclose(fit.predict(test, type="response"), fit.predict(test), rtol=1e-14)


@pytest.mark.parametrize("targets", ["binary", "platt"])
@pytest.mark.parametrize("type", ["deviance", "pearson", "response", "working"])
def test_sonar_residuals_match_r(ref, sonar, targets, type):
    cal, _ = sonar
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", cal, targets=targets)
    r = fit.resid(type)
    assert isinstance(r, pd.Series) and r.index.equals(cal.index) and r.name == type
    np.testing.assert_allclose(r.to_numpy(), ref[(f"sonar.{targets}", f"resid.{type}")], rtol=RTOL, atol=1e-12)
    np.testing.assert_array_equal(fit.residuals(type).to_numpy(), r.to_numpy())


@pytest.mark.parametrize("targets", ["binary", "platt"])
def test_squared_deviance_residuals_sum_to_r_deviance(ref, sonar, targets):
    cal, _ = sonar
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", cal, targets=targets)
    assert float((fit.resid() ** 2).sum()) == pytest.approx(ref[(f"sonar.{targets}", "deviance")][0], rel=1e-10)
    assert fit.glm_deviance == pytest.approx(fit.deviance, rel=1e-12)


def test_budworm_factor_interaction_predictions_and_residuals_match_r(ref, budworm):
    fit = ev.evlogit("dead ~ sex * ldose", budworm, targets="binary")
    new = pd.DataFrame({"ldose": [0.5, 2.0, 3.25, 6.0], "sex": ["F", "M", "F", "M"]}, index=[7, 3, 3, 1])
    for type in ("link", "response"):
        p = fit.predict(new, type=type, se_fit=True)
        assert list(p.index) == [7, 3, 3, 1]
        np.testing.assert_allclose(p["fit"], ref[("budworm.sexldose", f"{type}.fit")], rtol=RTOL)
        np.testing.assert_allclose(p["se_fit"], ref[("budworm.sexldose", f"{type}.se")], rtol=RTOL)
    for type in ("deviance", "pearson", "response", "working"):
        np.testing.assert_allclose(fit.resid(type), ref[("budworm.sexldose", f"resid.{type}")], rtol=RTOL, atol=1e-12)


# ---------------------------------------------------------------- anova.glm
ANOVA_COLUMNS = ["Resid. Df", "Resid. Dev", "Df", "Deviance", "Pr(>Chi)"]


def _assert_table(tab, ref, case):
    assert list(tab.columns) == ANOVA_COLUMNS
    for col in ANOVA_COLUMNS:
        want = ref[(case, col)]
        got = tab[col].to_numpy(dtype=float)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=col)
        np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=1e-7, err_msg=col)


@pytest.mark.parametrize("targets", ["binary", "platt"])
def test_sonar_anova_matches_r(ref, sonar, targets):
    cal, _ = sonar
    full = ev.evlogit("y ~ svm1 + svm2 + svm3", cal, targets=targets)
    fits = [full.update("~ svm1"), full.update("~ . - svm3"), full]
    tab = ev.anova(*fits)
    _assert_table(tab, ref, f"sonar.anova.{targets}")
    assert list(tab.index) == [1, 2, 3]
    # a larger model first: negative Df and Deviance, and R still gives the p-value of |Df|
    _assert_table(ev.anova(full, fits[0]), ref, f"sonar.anova_down.{targets}")
    t = ev.lr_test(full, fits[0])
    assert t.df == 2 and t.statistic == pytest.approx(ref[(f"sonar.anova_down.{targets}", "Deviance")][1] * -1)
    assert t.p_value == pytest.approx(ref[(f"sonar.anova_down.{targets}", "Pr(>Chi)")][1], rel=1e-7)


def test_budworm_anova_of_three_factor_models_matches_r(ref, budworm):
    fits = [ev.evlogit(f, budworm, targets="binary") for f in
            ("dead ~ ldose", "dead ~ sex + ldose", "dead ~ sex * ldose")]
    _assert_table(ev.anova(*fits), ref, "budworm.anova")


SEQUENTIAL_COLUMNS = ["Df", "Deviance", "Resid. Df", "Resid. Dev", "Pr(>Chi)"]


def _assert_sequential(tab, ref, case, terms):
    assert list(tab.columns) == SEQUENTIAL_COLUMNS and list(tab.index) == ["NULL", *terms]
    for col in SEQUENTIAL_COLUMNS:
        want, got = ref[(case, col)], tab[col].to_numpy(dtype=float)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=col)
        np.testing.assert_allclose(got[~np.isnan(got)], want[~np.isnan(want)], rtol=1e-7, err_msg=col)


@pytest.mark.parametrize("targets", ["binary", "platt"])
def test_sonar_anova_of_one_fit_adds_terms_sequentially_as_r(ref, sonar, targets):
    cal, _ = sonar
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", cal, targets=targets)
    tab = ev.anova(fit)
    _assert_sequential(tab, ref, f"sonar.anova_seq.{targets}", ["svm1", "svm2", "svm3"])
    assert tab.loc["NULL", "Resid. Dev"] == pytest.approx(fit.null_deviance, rel=1e-12)
    assert "Terms added sequentially (first to last)" in repr(tab)


def test_budworm_anova_of_one_fit_with_factor_and_interaction_as_r(ref, budworm):
    tab = ev.anova(ev.evlogit("dead ~ sex * ldose", budworm, targets="binary"))
    _assert_sequential(tab, ref, "budworm.anova_seq", ["sex", "ldose", "sex:ldose"])
    nointercept = ev.anova(ev.evlogit("dead ~ ldose + sex - 1", budworm, targets="binary"))
    _assert_sequential(nointercept, ref, "budworm.anova_seq_nointercept", ["ldose", "sex"])


def test_anova_prints_as_r(sonar):
    cal, _ = sonar
    full = ev.evlogit("y ~ svm1 + svm2 + svm3", cal, targets="binary")
    text = repr(ev.anova(full.update("~ svm1"), full))
    assert text.splitlines()[0] == "Analysis of Deviance Table"
    assert "Model 1: y ~ svm1" in text and "Model 2: y ~ svm1 + svm2 + svm3" in text
    assert "Resid. Df Resid. Dev Df Deviance  Pr(>Chi)" in text and "NaN" not in text
    assert "103.2270" in text and "16.5475" in text
    html = ev.anova(full.update("~ svm1"), full)._repr_html_()
    assert "<table" in html and "Model 2: y ~ svm1 + svm2 + svm3" in html and "NaN" not in html


# ---------------------------------------------------------------- nnet::multinom
@pytest.fixture(scope="module")
def three() -> pd.DataFrame:
    return pd.read_csv(ROOT / "tests" / "multiclass" / "data" / "evmultinom_r.csv")


def test_evmultinom_response_and_residuals_match_nnet(ref, three):
    fit = ev.evmultinom("y ~ s1 + s2", three, targets="binary")
    new = pd.DataFrame({"s1": [-1, 0, 0.5, 2], "s2": [0.3, -1, 1, 2]})
    p = fit.predict(new, type="response")
    assert list(p.columns) == ["a", "b", "c"]
    np.testing.assert_allclose(p.to_numpy().ravel(), ref[("multinom.s1s2", "probs")], rtol=1e-6)
    np.testing.assert_allclose(p, fit.predict(new, type="prob"), rtol=1e-13)
    r = fit.resid("response")
    np.testing.assert_allclose(r.to_numpy().ravel(), ref[("multinom.s1s2", "resid.response")], rtol=1e-6, atol=1e-8)
    link = fit.predict(new, type="link")
    assert list(link.columns) == ["b", "c"]
    np.testing.assert_allclose(link.to_numpy(), np.log(p[["b", "c"]].to_numpy() / p[["a"]].to_numpy()), rtol=1e-10)


def test_evmultinom_anova_matches_nnet_anova_multinom(ref, three):
    """Same numbers as ``anova(m1, m2)`` of nnet (its own layout: Resid. df, Resid. Dev, Df, LR
    stat., Pr(Chi)); evstat prints them under R's glm column names."""
    big = ev.evmultinom("y ~ s1 + s2", three, targets="binary")
    tab = ev.anova(big.update("~ . - s2"), big)
    np.testing.assert_allclose(tab["Resid. Df"], ref[("multinom.anova", "Resid. df")])
    np.testing.assert_allclose(tab["Resid. Dev"], ref[("multinom.anova", "Resid. Dev")], rtol=1e-8)
    np.testing.assert_allclose(tab["Df"].iloc[1], ref[("multinom.anova", "Df")][1])
    np.testing.assert_allclose(tab["Deviance"].iloc[1], ref[("multinom.anova", "LR stat.")][1], rtol=1e-7)
    np.testing.assert_allclose(tab["Pr(>Chi)"].iloc[1], ref[("multinom.anova", "Pr(Chi)")][1], rtol=1e-6)


# ---------------------------------------------------------------- update.formula
def test_update_formula_matches_r():
    cases = pd.read_csv(DATA / "update_formula_r.csv")
    assert len(cases) >= 15
    for old, new, want in cases.itertuples(index=False):
        assert ev.update_formula(old, new) == want, (old, new)


# ---------------------------------------------------------------- the R script itself
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed (the committed references are checked)")
def test_r_script_reproduces_the_references(tmp_path):
    """Reruns tests/glm/data/glm_verbs_r.R with the R on this machine: its numbers are the
    committed ones (to 1e-9 relative: other R or BLAS versions round differently)."""
    try:
        subprocess.run(["Rscript", str(DATA / "glm_verbs_r.R"), str(tmp_path), str(ROOT)], check=True,
                       capture_output=True, timeout=120)
    except subprocess.CalledProcessError as err:  # e.g. nnet missing
        pytest.skip(f"the R script did not run here: {err.stderr.decode()[-300:]}")
    new, old = _read_reference(tmp_path / "glm_verbs_r.csv"), _read_reference(DATA / "glm_verbs_r.csv")
    assert new.keys() == old.keys()
    for key in old:
        np.testing.assert_allclose(new[key], old[key], rtol=1e-9, atol=1e-13, err_msg=str(key))
    assert (pd.read_csv(tmp_path / "update_formula_r.csv")).equals(pd.read_csv(DATA / "update_formula_r.csv"))
