"""evlogit: the fit (Platt's targets, eqs. 50-52), its statistics, the saturated binomial case,
invariances, the 1/sqrt(n) shrinking of the ignorance, hypothesis properties of Bel/Pl and
extreme inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.special import expit, xlogy

import evstat as ev
from evstat.likelihood import binomial_belief


@pytest.fixture(scope="module")
def cal() -> pd.DataFrame:
    return ev.datasets.simulate_gaussian(30, seed=4)


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    return ev.datasets.simulate_gaussian(8, seed=9)[["x1", "x2"]]


# ---------------------------------------------------------------------------------------------
# the fit and its statistics
# ---------------------------------------------------------------------------------------------


def test_platt_targets_used_by_the_fit_by_hand():
    # 7 positives, 3 negatives: t = 8/9 for positives and 1/5 for negatives (eq. 52)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"s": rng.normal(size=10), "y": [1] * 7 + [0] * 3})
    fit = ev.evlogit("y ~ s", data=df)
    np.testing.assert_allclose(fit.t, [8 / 9] * 7 + [1 / 5] * 3, rtol=1e-15)
    assert fit.targets == "platt"
    binary = ev.evlogit("y ~ s", data=df, targets="binary")
    np.testing.assert_array_equal(binary.t, df["y"].to_numpy(float))


def test_params_equal_statsmodels_glm_on_platt_targets(cal):
    import statsmodels.api as sm
    fit = ev.evlogit("y ~ x1 + x2", data=cal)
    t = np.where(cal["y"] == 1, 16 / 17, 1 / 17)  # N+ = N- = 15
    X = sm.add_constant(cal[["x1", "x2"]].to_numpy())
    ref = sm.GLM(t, X, family=sm.families.Binomial()).fit(tol=1e-14, maxiter=200)
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params, rtol=1e-6)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.bse, rtol=1e-6)
    assert fit.deviance == pytest.approx(ref.deviance, rel=1e-9)
    assert fit.null_deviance == pytest.approx(ref.null_deviance, rel=1e-9)
    assert list(fit.params.index) == ["Intercept", "x1", "x2"]
    assert fit.params.name == "estimate" and fit.bse.name == "std_error"


@pytest.mark.parametrize("targets", ["platt", "binary"])
def test_params_within_1e12_of_statsmodels_glm_formula_at_scale(targets):
    """20,000 rows, three scores: the coefficients agree with statsmodels' formula GLM
    (Binomial, the same formula, its default convergence) to 1e-12 relative (issue 36 item 6:
    the fit's Newton iteration takes one pass over the rows per step)."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(36)
    s = rng.normal(size=(20_000, 3))
    df = pd.DataFrame(s, columns=["svm1", "svm2", "svm3"])
    df["y"] = (rng.random(20_000) < 1 / (1 + np.exp(-(0.3 + s @ [1.0, -0.7, 0.5])))).astype(int)
    fit = ev.evlogit("y ~ svm1 + svm2 + svm3", data=df, targets=targets)
    ref = smf.glm("y ~ svm1 + svm2 + svm3", df.assign(y=fit.t), family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(fit.params.to_numpy(), ref.params.to_numpy(), rtol=1e-12, atol=0)
    np.testing.assert_allclose(fit.bse.to_numpy(), ref.bse.to_numpy(), rtol=1e-6)


def test_loglike_deviance_aic_bic_by_hand(cal):
    fit = ev.evlogit("y ~ x1 + x2", data=cal)
    t, y = fit.t, cal["y"].to_numpy(float)
    mu = expit(fit.likelihood.X @ fit.params.to_numpy())
    np.testing.assert_allclose(fit.fittedvalues.to_numpy(), mu, rtol=1e-14)
    assert fit.loglike == pytest.approx(np.sum(t * np.log(mu) + (1 - t) * np.log(1 - mu)), rel=1e-12)
    dev = 2 * np.sum(xlogy(t, t / mu) + xlogy(1 - t, (1 - t) / (1 - mu)))
    assert fit.deviance == pytest.approx(dev, rel=1e-12)
    mu0 = t.mean()
    assert fit.null_deviance == pytest.approx(
        2 * np.sum(xlogy(t, t / mu0) + xlogy(1 - t, (1 - t) / (1 - mu0))), rel=1e-12
    )
    # AIC as R's binomial glm: from the 0/1 labels (documented), not -2 loglike + 2p
    aic = -2 * np.sum(y * np.log(mu) + (1 - y) * np.log(1 - mu)) + 2 * 3
    assert fit.aic == pytest.approx(aic, rel=1e-12)
    assert fit.bic == pytest.approx(aic - 6 + 3 * np.log(30), rel=1e-12)
    assert (fit.nobs, fit.df_resid, fit.df_null) == (30, 27, 29)


def test_no_intercept_model():
    df = ev.datasets.simulate_gaussian(24, seed=8)
    fit = ev.evlogit("y ~ x1 + x2 - 1", data=df, targets="binary")
    assert fit.terms == ["x1", "x2"]
    assert fit.df_null == 24
    mu = expit(fit.likelihood.X @ fit.params.to_numpy())
    # the null model of a no-intercept glm is eta = 0, mu = 1/2 (as R)
    assert fit.null_deviance == pytest.approx(2 * 24 * np.log(2), rel=1e-12)
    assert fit.deviance == pytest.approx(-2 * np.sum(xlogy(df.y, mu) + xlogy(1 - df.y, 1 - mu)), rel=1e-12)


def test_sign_convention_glm(cal):
    """theta = expit(beta . x): a score higher in the positive class has a positive coefficient
    (the papers' sigma = -beta is negative)."""
    fit = ev.evlogit("y ~ x1", data=cal)
    assert fit.params["x1"] > 0
    p = fit.predict(pd.DataFrame({"x1": [-1.0, 0.0, 1.0]}))
    assert np.all(np.diff(p) > 0)


def test_positive_level_and_two_level_labels(cal):
    df = cal.assign(lab=np.where(cal["y"] == 1, "R", "M"))
    fit_lab = ev.evlogit("lab ~ x1 + x2", data=df)
    fit_num = ev.evlogit("y ~ x1 + x2", data=cal)
    assert fit_lab.classes == ("M", "R") and fit_lab.positive == "R"
    np.testing.assert_allclose(fit_lab.params.to_numpy(), fit_num.params.to_numpy(), rtol=1e-12)
    flipped = ev.evlogit("lab ~ x1 + x2", data=df, positive="M")
    assert flipped.classes == ("R", "M")
    np.testing.assert_allclose(flipped.params.to_numpy(), -fit_num.params.to_numpy(), rtol=1e-9)
    # Bel({M}) = 1 - Pl({R}) and Pl({M}) = 1 - Bel({R})
    new = cal.head(4)
    a, b = fit_lab.predict(new, type="belief"), flipped.predict(new, type="belief")
    np.testing.assert_allclose(b["bel"], 1 - a["pl"], atol=1e-9)
    np.testing.assert_allclose(b["pl"], 1 - a["bel"], atol=1e-9)
    booly = ev.evlogit("yb ~ x1 + x2", data=cal.assign(yb=cal["y"].astype(bool)))
    assert booly.positive is True or booly.positive == True  # noqa: E712 (numpy bool)
    np.testing.assert_allclose(booly.params.to_numpy(), fit_num.params.to_numpy(), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# saturated binomial case: J = 1 with a two-valued score and 0/1 targets
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k_a, n_a, k_b, n_b", [(2, 7, 6, 9), (1, 3, 4, 5), (13, 40, 9, 11)])
def test_two_valued_score_is_two_binomial_cells(k_a, n_a, k_b, n_b):
    """With scores a and b the model is saturated: theta_hat(a) = k_a/n_a, and the profile of
    eta(a) leaves eta(b) at its own MLE, so Bel/Pl at a are the binomial closed form of cell a."""
    s = np.r_[np.full(n_a, -0.5), np.full(n_b, 1.5)]
    y = np.r_[np.ones(k_a), np.zeros(n_a - k_a), np.ones(k_b), np.zeros(n_b - k_b)].astype(int)
    fit = ev.evlogit("y ~ s", data=pd.DataFrame({"s": s, "y": y}), targets="binary")
    b = fit.predict(pd.DataFrame({"s": [-0.5, 1.5]}), type="belief")
    th, bel, pl = binomial_belief([k_a, k_b], [n_a, n_b])
    np.testing.assert_allclose(b["theta"], th, rtol=1e-9)
    np.testing.assert_allclose(b["bel"], bel, rtol=0, atol=1e-8)
    np.testing.assert_allclose(b["pl"], pl, rtol=0, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# invariances and the size of the ignorance
# ---------------------------------------------------------------------------------------------


def test_row_permutation_invariance(cal, new):
    fit = ev.evlogit("y ~ x1 + x2", data=cal)
    shuffled = cal.sample(frac=1.0, random_state=3)
    fitp = ev.evlogit("y ~ x1 + x2", data=shuffled)
    np.testing.assert_allclose(fitp.params.to_numpy(), fit.params.to_numpy(), rtol=0, atol=1e-9)
    np.testing.assert_allclose(
        fitp.predict(new, type="belief").to_numpy(), fit.predict(new, type="belief").to_numpy(), atol=1e-9
    )
    np.testing.assert_allclose(fitp.conf_int().to_numpy(), fit.conf_int().to_numpy(), atol=1e-9)


def test_score_column_order_invariance(cal, new):
    a = ev.evlogit("y ~ x1 + x2", data=cal)
    b = ev.evlogit("y ~ x2 + x1", data=cal)
    assert b.terms == ["Intercept", "x2", "x1"]
    pd.testing.assert_series_equal(b.params[a.terms], a.params, atol=1e-9, rtol=0)
    pd.testing.assert_series_equal(b.bse[a.terms], a.bse, atol=1e-9, rtol=0)
    np.testing.assert_allclose(
        b.predict(new, type="belief").to_numpy(), a.predict(new, type="belief").to_numpy(), atol=1e-9
    )
    pd.testing.assert_frame_equal(b.conf_int().loc[a.terms], a.conf_int(), atol=1e-8, rtol=0)


def test_ignorance_shrinks_when_data_are_duplicated(new):
    base = ev.datasets.simulate_gaussian(20, seed=5)
    ign = []
    for k in (1, 2, 4, 8):
        fit = ev.evlogit("y ~ x1 + x2", data=pd.concat([base] * k, ignore_index=True))
        b = fit.predict(new, type="belief")
        ign.append(float((b["pl"] - b["bel"]).mean()))
    ign = np.array(ign)
    assert np.all(np.diff(ign) < 0)
    # roughly like 1/sqrt(n): doubling n multiplies the ignorance by about 0.71
    ratios = ign[1:] / ign[:-1]
    assert np.all((ratios > 0.55) & (ratios < 0.8)), ratios


def test_ignorance_shrinks_with_more_independent_data(new):
    small = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(20, seed=1))
    large = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(2000, seed=1))
    i_small = small.predict(new, type="belief").eval("pl - bel").mean()
    i_large = large.predict(new, type="belief").eval("pl - bel").mean()
    assert i_large < i_small / 5


# ---------------------------------------------------------------------------------------------
# hypothesis: 0 <= Bel <= theta_hat <= Pl <= 1 and masses
# ---------------------------------------------------------------------------------------------


@st.composite
def calibration_sets(draw):
    J = draw(st.integers(1, 2))
    n = draw(st.integers(4, 20))
    scores = st.floats(-4, 4, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 2))
    S = np.array(draw(st.lists(st.lists(scores, min_size=J, max_size=J), min_size=n, max_size=n)))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    assume(0 < sum(y) < n)
    df = pd.DataFrame(S, columns=[f"s{j + 1}" for j in range(J)])
    df["y"] = y
    m = draw(st.integers(1, 4))
    T = np.array(draw(st.lists(st.lists(st.floats(-8, 8), min_size=J, max_size=J), min_size=m, max_size=m)))
    test = pd.DataFrame(T, columns=df.columns[:J], index=np.arange(m)[::-1] * 10)
    targets = draw(st.sampled_from(["platt", "platt", "binary"]))
    return df, test, targets


def try_fit(df: pd.DataFrame, targets: str):
    formula = "y ~ " + " + ".join(c for c in df.columns if c != "y")
    try:
        return ev.evlogit(formula, data=df, targets=targets)
    except ValueError as err:
        # degenerate draws the package rightly rejects
        msg = str(err)
        assume(not any(k in msg for k in ("constant", "collinear", "separated")))
        raise


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(calibration_sets())
def test_bel_theta_pl_order_property(args):
    df, test, targets = args
    fit = try_fit(df, targets)
    b = fit.predict(test, type="belief")
    assert list(b.index) == list(test.index)
    assert np.all(np.isfinite(b.to_numpy()))
    assert np.all((0 <= b["bel"]) & (b["bel"] <= b["theta"]) & (b["theta"] <= b["pl"]) & (b["pl"] <= 1))
    np.testing.assert_allclose(b["theta"], fit.predict(test).to_numpy(), rtol=1e-14)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(calibration_sets())
def test_mass_property(args):
    df, test, targets = args
    fit = try_fit(df, targets)
    b = fit.predict(test, type="belief")
    m = fit.predict(test, type="mass")
    vals = m.values
    assert vals.shape == (len(test), 4)
    np.testing.assert_allclose(vals.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(vals >= 0) and np.all(vals[:, 0] == 0)
    np.testing.assert_allclose(m.bel(1), b["bel"], atol=1e-15)  # m({pos}) = Bel
    np.testing.assert_allclose(vals[:, 1], 1 - b["pl"], atol=1e-15)  # m({neg}) = 1 - Pl
    np.testing.assert_allclose(m.ignorance, b["pl"] - b["bel"], atol=1e-12)
    assert list(m.index) == list(test.index)


# ---------------------------------------------------------------------------------------------
# extreme inputs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("formula", ["y ~ x1", "y ~ x1 + x2"])
def test_extreme_scores_give_finite_ordered_belief(cal, formula):
    new = pd.DataFrame(
        {"x1": [1e6, -1e6, 1e6, -1e6, 40.0, -40.0, 0.0], "x2": [1e6, -1e6, -1e6, 1e6, 0.0, 0.0, 0.0]}
    )
    fit = ev.evlogit(formula, data=cal)
    b = fit.predict(new, type="belief")
    assert np.all(np.isfinite(b.to_numpy()))
    assert np.all((0 <= b["bel"]) & (b["bel"] <= b["theta"]) & (b["theta"] <= b["pl"]) & (b["pl"] <= 1))
    m = fit.predict(new, type="mass")
    assert np.all(np.isfinite(m.values))
    d = fit.decide(new, reject_cost=0.2)
    assert d.notna().all()
    c = fit.predictive_contour(new)
    assert np.all(np.isfinite(c([1e-300, 1e-12, 0.5, 1 - 1e-12])))
    ls = c.level_set(0.5)
    assert np.all(np.isfinite(ls.to_numpy())) and np.all(ls["lower"] <= ls["upper"])


def test_theta_hat_within_1e12_of_0_and_1(cal):
    fit = ev.evlogit("y ~ x1", data=cal)
    b0, b1 = fit.params
    # rows with eta_hat = +-30 and +-40: theta_hat within 1e-13 of 1 or 0
    new = pd.DataFrame({"x1": (np.array([30.0, -30.0, 40.0, -40.0]) - b0) / b1})
    b = fit.predict(new, type="belief")
    assert b["theta"].iloc[0] > 1 - 1e-12 and b["theta"].iloc[1] < 1e-12
    assert np.all(np.isfinite(b.to_numpy()))
    assert np.all((0 <= b["bel"]) & (b["bel"] <= b["theta"]) & (b["theta"] <= b["pl"]) & (b["pl"] <= 1))
    # far out the ignorance is small but positive on the unlikely side
    assert np.all(b["pl"] - b["bel"] < 0.05)
    assert b["pl"].iloc[1] > b["theta"].iloc[1]
    assert b["bel"].iloc[0] < b["theta"].iloc[0]


def test_huge_calibration_scores(cal):
    df = cal.assign(x1=cal["x1"] * 1e6)
    fit = ev.evlogit("y ~ x1", data=df)
    b = fit.predict(df.head(5), type="belief")
    assert np.all(np.isfinite(b.to_numpy()))
    ref = ev.evlogit("y ~ x1", data=cal)
    np.testing.assert_allclose(fit.params["x1"] * 1e6, ref.params["x1"], rtol=1e-6)
    np.testing.assert_allclose(b.to_numpy(), ref.predict(cal.head(5), type="belief").to_numpy(), atol=1e-6)


def test_intercept_only_model_is_one_binomial_cell(cal):
    """y ~ 1 with 0/1 targets: theta_hat = k/n for every row, Bel/Pl = the binomial closed form,
    and the LR interval of the intercept is that of logit(theta) in a binomial likelihood."""
    from scipy.optimize import brentq
    from scipy.stats import chi2

    d = cal.iloc[:25]
    k, n = int(d["y"].sum()), 25
    fit = ev.evlogit("y ~ 1", data=d, targets="binary")
    b = fit.predict(d.head(3), type="belief")
    th, bel, pl = binomial_belief(k, n)
    np.testing.assert_allclose(b["theta"], float(th), rtol=1e-12)
    np.testing.assert_allclose(b["bel"], float(bel), atol=1e-9)
    np.testing.assert_allclose(b["pl"], float(pl), atol=1e-9)

    def ll(eta: float) -> float:
        p = expit(eta)
        return k * np.log(p) + (n - k) * np.log(1 - p)

    eta_hat = np.log(k / (n - k))
    q = chi2.ppf(0.95, 1)
    lo = brentq(lambda e: 2 * (ll(eta_hat) - ll(e)) - q, eta_hat - 10, eta_hat)
    hi = brentq(lambda e: 2 * (ll(eta_hat) - ll(e)) - q, eta_hat, eta_hat + 10)
    assert fit.params["Intercept"] == pytest.approx(eta_hat, rel=1e-10)
    np.testing.assert_allclose(fit.conf_int().loc["Intercept"], [lo, hi], rtol=1e-9)
