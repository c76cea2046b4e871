"""Extreme test scores (issue 9, section 2): the predictive belief is right for every finite
score from 1 to 1e300, positive and negative, in one column and in all columns, on every model.

* evlogit and disjoint (the logistic likelihood): against the reference path where it is
  feasible and against the analytic limit (module docstring of evstat.likelihood.predictive)
  ``Bel = 1 - c, Pl = 1`` (slope > 0) or ``Bel = 0, Pl = c`` (slope < 0), with ``c`` the relative
  profile likelihood of the slopes' functional at 0; the expansion used for very wide contours
  agrees with the quadrature where both apply.
* evbinning, isotonic, eknn, gbt: finite, ordered, no warnings, and constant beyond the data
  (the outermost bin / step, the vacuous belief of a point far from every neighbour).
* betacal (scores are probabilities): scores within 1e-300 of 0 and 1e-16 of 1.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import predictive as predictive_module
from evstat.likelihood import predictive_belief, profile_loglik

MAGNITUDES = [10.0**k for k in (0, 1, 2, 5, 8, 13, 14, 20, 50, 100, 200, 300)]
SCORES = ["svm1", "svm2", "svm3"]
F3 = "y ~ svm1 + svm2 + svm3"


@pytest.fixture(scope="module")
def sonar() -> pd.DataFrame:
    df = ev.datasets.load("sonar_scores")
    return df[df["set"] == "calibration"].reset_index(drop=True)


def extreme_rows(cal: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Rows of the first calibration row with ``columns`` set to +-m for every magnitude m."""
    base = cal.iloc[[0]][SCORES]
    rows = []
    for sign in (1.0, -1.0):
        for m in MAGNITUDES:
            r = base.copy()
            r[columns] = sign * m
            rows.append(r)
    out = pd.concat(rows, ignore_index=True)
    out.index = [f"{'+' if s > 0 else '-'}{m:g}" for s in (1, -1) for m in MAGNITUDES]
    return out


def predict_quietly(fit, new: pd.DataFrame) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = fit.predict(new, type="belief")
    assert list(out.index) == list(new.index)
    v = out.to_numpy()
    assert np.all(np.isfinite(v)), out
    th, bel, pl = v.T
    assert np.all((0 <= bel) & (bel <= th) & (th <= pl) & (pl <= 1)), out
    return out


def relative_profile_at_zero(fit, direction) -> float:
    lik = fit.likelihood
    lp, _ = profile_loglik(lik, np.asarray(direction, dtype=float), 0.0)
    return float(np.exp(min(float(lp) - lik.loglik_hat, 0.0)))


@pytest.mark.parametrize("columns", [["svm1"], SCORES], ids=["one column", "all columns"])
def test_evlogit_sweep_against_the_analytic_limit(sonar, columns):
    fit = ev.evlogit(F3, data=sonar)
    out = predict_quietly(fit, extreme_rows(sonar, columns))
    v = np.array([0.0] + [1.0 if s in columns else 0.0 for s in SCORES])  # direction of growth
    psi_hat = float(v @ fit.params.to_numpy())
    c = relative_profile_at_zero(fit, v)
    up = (1.0 - c, 1.0) if psi_hat > 0 else (0.0, c)
    down = (0.0, c) if psi_hat > 0 else (1.0 - c, 1.0)
    for sign, (bel, pl) in (("+", up), ("-", down)):
        for m in MAGNITUDES:
            if m < 1e8:
                continue
            row = out.loc[f"{sign}{m:g}"]
            # the intercept and the other scores shift the hyperplane by O(1 / m)
            atol = 1e-12 if m >= 1e20 else 1e-5
            assert abs(row["bel"] - bel) <= atol and abs(row["pl"] - pl) <= atol, (sign, m, row, bel, pl)
    # the numbers: svm1 -> +inf on the Sonar scores gives Bel 0.239, Pl 1
    if columns == ["svm1"]:
        assert round(float(out.loc["+1e+14", "bel"]), 3) == 0.239
        assert float(out.loc["+1e+300", "pl"]) == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("m", [1e1, 1e3, 1e5, 1e8, 1e14, 1e100])
def test_evlogit_extreme_rows_against_the_reference_path(m):
    cal = ev.datasets.simulate_gaussian(40, seed=3)
    fit = ev.evlogit("y ~ x1 + x2", data=cal)
    A = np.array([[1.0, m, 0.3], [1.0, -m, -m], [1.0, 0.2 * m, -m]])
    th_f, bel_f, pl_f = predictive_belief(fit.likelihood, A)
    th_r, bel_r, pl_r = predictive_belief(fit.likelihood, A, method="reference")
    np.testing.assert_array_equal(th_f, th_r)
    np.testing.assert_allclose(bel_f, bel_r, rtol=0, atol=1e-8)
    np.testing.assert_allclose(pl_f, pl_r, rtol=0, atol=1e-8)


@pytest.mark.parametrize("m", [3e2, 1e4, 3e5])
def test_wide_expansion_agrees_with_the_quadrature(monkeypatch, m):
    """Rows whose contour is 1e3 .. 1e7 wide: the expansion (W) and the adaptive quadrature
    agree (the switch between them at WIDE_SIGMA = 1e6 is seamless)."""
    fit = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(60, seed=5))
    A = np.array([[1.0, m, 0.0], [1.0, -m, 0.5 * m], [1.0, 1.0, -m], [1.0, 0.01 * m, m]])
    monkeypatch.setattr(predictive_module, "WIDE_SIGMA", np.inf)
    _, bel_q, pl_q = predictive_belief(fit.likelihood, A)
    monkeypatch.setattr(predictive_module, "WIDE_SIGMA", 0.0)
    _, bel_w, pl_w = predictive_belief(fit.likelihood, A)
    sigma = np.sqrt(np.einsum("bi,ij,bj->b", A, fit.likelihood.cov, A))
    assert np.all(sigma > 10)
    # second-order term ~ (pi^2 / 6) / sigma^2, plus the quadrature's own error
    atol = 2.0 / sigma.min() ** 2 + 1e-10  # measured: 1.5 / sigma^2
    np.testing.assert_allclose(bel_w, bel_q, rtol=0, atol=atol)
    np.testing.assert_allclose(pl_w, pl_q, rtol=0, atol=atol)


def test_evlogit_prob_and_contour_do_not_overflow(sonar):
    fit = ev.evlogit(F3, data=sonar)
    new = pd.DataFrame({"svm1": [1e300, -1e300], "svm2": [1e300, 1e300], "svm3": [-1e300, 1e300]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prob = fit.predict(new, type="prob")
        c = fit.predictive_contour(new)
        vals = c([0.1, 0.5, 0.9])
        ls = c.level_set(0.5)
    assert np.all(np.isin(prob.to_numpy(), [0.0, 1.0]))
    assert np.all(np.isfinite(vals)) and np.all((vals >= 0) & (vals <= 1))
    # far out, the contour on (0, 1) is flat at the plausibility of the hyperplane psi = 0
    np.testing.assert_allclose(vals, vals[:, [1]] * np.ones((1, 3)), rtol=1e-9, atol=1e-300)
    assert np.all(ls["lower"] <= ls["upper"])


def test_non_finite_design_row_is_a_clear_error(sonar):
    fit = ev.evlogit("y ~ svm1 + I(svm1**2)", data=sonar)
    with pytest.raises(ValueError, match=r"(?i)(infinite|finite|overflow)"):
        fit.predict(pd.DataFrame({"svm1": [1e200]}), type="belief")


def test_disjoint_sweep(sonar):
    fit = ev.disjoint(F3, data=sonar)
    for columns in (["svm1"], SCORES):
        out = predict_quietly(fit, extreme_rows(sonar, columns))
        # beyond 1e20 the one-score calibrators have reached their limits exactly
        for sign in "+-":
            far = out.loc[[f"{sign}{m:g}" for m in MAGNITUDES if m >= 1e20]]
            np.testing.assert_allclose(far.to_numpy(), far.iloc[[0]].to_numpy().repeat(len(far), 0), atol=1e-12)


@pytest.mark.parametrize("method", ["evbinning", "isotonic", "eknn", "gbt"])
def test_other_models_sweep(sonar, method):
    f = "y ~ svm1" if method in ("evbinning", "isotonic") else F3
    fit = getattr(ev, method)(f, data=sonar)
    cols = [["svm1"]] if method in ("evbinning", "isotonic") else [["svm1"], SCORES]
    for columns in cols:
        out = predict_quietly(fit, extreme_rows(sonar, columns))
        for sign in "+-":
            far = out.loc[[f"{sign}{m:g}" for m in MAGNITUDES if m >= 1e5]]
            # beyond the data the prediction no longer changes
            np.testing.assert_allclose(far.to_numpy(), far.iloc[[0]].to_numpy().repeat(len(far), 0), atol=1e-12)


def test_betacal_scores_near_zero_and_one(sonar):
    cal = sonar.assign(svm1=1.0 / (1.0 + np.exp(-3.0 * sonar["svm1"])))
    fit = ev.betacal("y ~ svm1", data=cal)
    s = [1e-1, 1e-10, 1e-100, 1e-300, 5e-324, 1 - 1e-10, 1 - 2**-53]
    out = predict_quietly(fit, pd.DataFrame({"svm1": s}))
    assert out["bel"].iloc[3] == pytest.approx(out["bel"].iloc[4], abs=1e-3)
    # an exact 1 is clipped at the fit's eps (the rule for exact 0 and 1, issue 37), as 1 - 1e-10 is
    one = predict_quietly(fit, pd.DataFrame({"svm1": [1.0]}))
    np.testing.assert_allclose(one.to_numpy()[0], out.to_numpy()[5], rtol=1e-8)
