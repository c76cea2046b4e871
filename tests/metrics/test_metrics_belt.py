"""The calibration belt (evstat.metrics.belt): its distribution, its fits, its bounds, against the
slow reference paths and against the Python ports of givitiR (calibration-belt, pycaleva)."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import expit

from evstat.metrics import calibration_belt
from evstat.metrics.belt import _bound_by_profile, belt_cdf, belt_cdf_convolution, belt_quantile


def simulate(n, curve, seed):
    """Probabilities p = expit(g), g ~ N(0, 1.5^2), and outcomes drawn from expit(curve(g))."""
    rng = np.random.default_rng(seed)
    g = rng.normal(0.0, 1.5, n)
    return rng.binomial(1, expit(curve(g))).astype(float), expit(g)


#: three truths, selected degrees 1, 2 and 3 (checked below)
CASES = {
    "linear": (1500, lambda g: 0.2 + 0.8 * g, 7),
    "quadratic": (3000, lambda g: g - 0.25 * g**2 + 0.3, 8),
    "cubic": (4000, lambda g: g + 0.08 * g**3 - 0.1 * g**2, 9),
}


@pytest.fixture(scope="module")
def belts():
    out = {}
    for name, (n, curve, seed) in CASES.items():
        y, p = simulate(n, curve, seed)
        out[name] = (y, p, calibration_belt(y, p, n_points=40))
    return out


@pytest.mark.parametrize("devel,m", [("external", m) for m in (1, 2, 3, 4)] + [("internal", m) for m in (2, 3, 4)])
def test_closed_forms_equal_the_nested_convolution(devel, m):
    # eq. (2): chi2 with 2 (1) degrees of freedom plus r chi2_1 variables truncated to [k, inf)
    for t in (3.0, 9.0, 14.0, 25.0):
        assert belt_cdf(t, m, devel) == pytest.approx(belt_cdf_convolution(t, m, devel), abs=1e-9)


def test_the_distribution_at_known_points():
    # m = 1 external is chi2 with 2 degrees of freedom; m = 2 internal chi2 with 1
    assert belt_cdf(5.991464547, 1) == pytest.approx(0.95, abs=1e-9)
    assert belt_cdf(3.841458821, 2, "internal") == pytest.approx(0.95, abs=1e-9)
    assert belt_quantile(0.95, 1) == pytest.approx(5.991464547, abs=1e-7)
    # below r k the selection makes T impossible
    assert belt_cdf(2 * 3.84, 3) == 0.0 and belt_cdf(3.84, 3, "internal") == 0.0
    for m in (2, 3, 4):
        k = belt_quantile(0.8, m)
        assert belt_cdf(k, m) == pytest.approx(0.8, abs=1e-10)


def test_forward_selection_and_coefficients_equal_statsmodels(belts):
    import statsmodels.api as sm
    from scipy.stats import chi2

    for name, degree in (("linear", 1), ("quadratic", 2), ("cubic", 3)):
        y, p, belt = belts[name]
        assert belt.degree == degree, name
        g = np.log(p / (1 - p))
        fits = [sm.GLM(y, g[:, None] ** np.arange(d + 1), family=sm.families.Binomial()).fit(tol=1e-12)
                for d in range(1, 5)]
        # the selection: add a degree while its one-term LR statistic is >= chi2_1(0.95)
        m = 1
        while m < 4 and 2 * (fits[m].llf - fits[m - 1].llf) >= chi2.ppf(0.95, 1):
            m += 1
        assert m == degree
        np.testing.assert_allclose(belt.coefficients.to_numpy(), fits[m - 1].params, rtol=1e-7, atol=1e-9)
        bisector = np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))
        assert belt.statistic == pytest.approx(2 * (fits[m - 1].llf - bisector), rel=1e-9)
        assert belt.pvalue == pytest.approx(1 - belt_cdf(belt.statistic, m), abs=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_bounds_equal_the_profile_likelihood_reference(belts, name):
    # fast path (Newton on the Lagrange conditions) against statsmodels refits with an offset
    y, p, belt = belts[name]
    rows = belt.belts.iloc[[0, 7, 20, 33, len(belt.belts) - 1]]
    for level in (0.8, 0.95):
        tag = f"{100 * level:g}"
        for _, r in rows.iterrows():
            g0 = float(np.log(r["p"] / (1 - r["p"])))
            lo = _bound_by_profile(y, p, belt.degree, g0, belt.thresholds[level], -1.0)
            hi = _bound_by_profile(y, p, belt.degree, g0, belt.thresholds[level], 1.0)
            assert r[f"lower{tag}"] == pytest.approx(lo, abs=1e-7)
            assert r[f"upper{tag}"] == pytest.approx(hi, abs=1e-7)


def test_belt_shape_and_nesting(belts):
    y, p, belt = belts["quadratic"]
    b = belt.belts
    assert list(b.columns) == ["p", "lower80", "upper80", "lower95", "upper95"]
    assert b["p"].is_monotonic_increasing and b["p"].min() == pytest.approx(p.min()) and b["p"].max() == pytest.approx(p.max())
    assert (b["lower95"] <= b["lower80"] + 1e-12).all() and (b["upper80"] <= b["upper95"] + 1e-12).all()
    assert (b["lower80"] < b["upper80"]).all()
    # the quadratic truth bends below the bisector at both ends: the belt says so
    dev = belt.deviations(0.95)
    assert set(dev["side"]) >= {"under"}
    text = belt.summary()
    assert "degree m = 2" in text and "95% belt" in text and str(belt) == text


def test_internal_evaluation_of_a_logistic_regression_starts_at_degree_two():
    y, p = simulate(2000, lambda g: 0.4 + 1.2 * g, 3)
    import statsmodels.api as sm

    g = np.log(p / (1 - p))
    refit = sm.GLM(y, np.c_[np.ones_like(g), g], family=sm.families.Binomial()).fit(tol=1e-12)
    fitted = refit.predict()
    belt = calibration_belt(y, fitted, devel="internal", n_points=20)
    assert belt.degree >= 2 and belt.coefficients.index[-1] == f"b{belt.degree}"
    assert belt.pvalue == pytest.approx(1 - belt_cdf(belt.statistic, belt.degree, "internal"), abs=1e-12)
    assert belt.pvalue > 0.05  # the logistic model is right, so its own fit is well calibrated


def test_the_fitted_curve_lies_inside_both_belts(belts):
    for name in CASES:
        _, _, belt = belts[name]
        b = belt.belts
        g = np.log(b["p"] / (1 - b["p"])).to_numpy()
        curve = expit(np.polynomial.polynomial.polyval(g, belt.coefficients.to_numpy()))
        assert (b["lower80"] <= curve + 1e-12).all() and (curve <= b["upper80"] + 1e-12).all(), name


def test_few_distinct_probabilities():
    # k distinct values fit degree k - 1 exactly: the selection stops there (givitiR's glm gives
    # the next term a zero LR statistic); one value cannot be regressed on at all
    rng = np.random.default_rng(0)
    p = rng.choice([0.2, 0.5, 0.8], 500)
    y = rng.binomial(1, p)
    belt = calibration_belt(y, p, n_points=20)
    assert belt.degree <= 2 and np.isfinite(belt.belts.to_numpy()).all()
    with pytest.raises(ValueError, match="p takes 1 distinct value in 500 rows.*at least 2 distinct"):
        calibration_belt(y, np.full(500, 0.3))
    with pytest.raises(ValueError, match="p takes 2 distinct values.*at least 3"):
        calibration_belt(y, np.where(p > 0.5, 0.7, 0.3), devel="internal")


def test_errors_name_the_problem():
    y, p = simulate(200, lambda g: g, 1)
    p0 = p.copy()
    p0[[3, 5]] = [0.0, 1.0]
    with pytest.raises(ValueError, match=r"2 of 200 values outside the open interval \(0, 1\) \(rows 3, 5"):
        calibration_belt(y, p0)
    with pytest.raises(ValueError, match="at least two events"):
        calibration_belt(np.r_[1.0, np.zeros(199)], p)
    with pytest.raises(ValueError, match="separates the outcomes"):
        calibration_belt((p > 0.5).astype(float), p)
    with pytest.raises(ValueError, match="devel must be"):
        calibration_belt(y, p, devel="training")
    with pytest.raises(ValueError, match="max_degree"):
        calibration_belt(y, p, max_degree=5)


def _quiet():
    """The ports print tqdm bars and warn; keep the test output clean."""
    stack = contextlib.ExitStack()
    stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack


@pytest.mark.parametrize("name", list(CASES))
def test_against_the_calibration_belt_package(belts, name):
    """Bulgarelli's ``calibration-belt`` (a port of givitiR): the same degree, statistic and
    p-value; belt bounds within 5e-4 at its grid points, and ours contain its own: it finds each
    bound with scipy's trust-constr at tol=1e-4, which stops inside the likelihood region (its
    largest gap on these data is 2.2e-4, where ours equal the profile-likelihood reference
    above to 1e-7)."""
    calibration = pytest.importorskip("calibration")
    y, p, belt = belts[name]
    with _quiet():
        peer = calibration.CalibrationBelt(y, p)
        m, _ = peer.forward_select(0.95)
        statistic, pvalue = peer.test(0.95)
        theirs = peer.calculate_boundaries(0.95, size=20)
    assert m == belt.degree
    assert statistic == pytest.approx(belt.statistic, rel=1e-9)
    assert pvalue == pytest.approx(belt.pvalue, rel=1e-6, abs=1e-12)
    ours = belt.bounds(theirs[:, 0], 0.95)
    np.testing.assert_allclose(ours["lower"], theirs[:, 1], atol=5e-4)
    np.testing.assert_allclose(ours["upper"], theirs[:, 2], atol=5e-4)
    assert (ours["lower"].to_numpy() <= theirs[:, 1] + 1e-6).all()
    assert (ours["upper"].to_numpy() >= theirs[:, 2] - 1e-6).all()


def test_against_pycaleva_where_it_selects_correctly(belts):
    """pycaleva 0.8.2: its forward selection compares 2 (l_old - l_new) with the threshold, a
    sign slip that always stops at the starting degree, so only a degree-1 belt is comparable
    (there: statistic, p-value, bounds within 2e-3 and contained in ours; its trust-constr
    stops up to 1.6e-3 inside the region on these data)."""
    import pandas as pd

    # pycaleva sets pandas' display.precision to 3 when imported: keep that out of other tests
    with pd.option_context("display.precision", pd.get_option("display.precision")):
        pycaleva = pytest.importorskip("pycaleva")
    y, p, belt = belts["linear"]
    with _quiet():
        peer = pycaleva.CalibrationBelt(y, p, outsample=True)
        result = peer.stats()
        theirs = peer._CalibrationBelt__calculate_boundaries(0.95, size=20)
    assert result.statistic == pytest.approx(belt.statistic, rel=1e-9)
    assert result.pvalue == pytest.approx(belt.pvalue, rel=1e-6)
    ours = belt.bounds(theirs[:, 0], 0.95)
    np.testing.assert_allclose(ours["lower"], theirs[:, 1], atol=2e-3)
    np.testing.assert_allclose(ours["upper"], theirs[:, 2], atol=2e-3)
    assert (ours["lower"].to_numpy() <= theirs[:, 1] + 1e-6).all()
    assert (ours["upper"].to_numpy() >= theirs[:, 2] - 1e-6).all()
    # and the sign slip itself: on the quadratic data pycaleva stops at degree 1, we go on to 2
    yq, pq, bq = belts["quadratic"]
    with _quiet():
        slipped = pycaleva.CalibrationBelt(yq, pq, outsample=True).stats()
    assert bq.degree == 2 and slipped.statistic < bq.statistic


def _icu_data():
    """givitiR's ``icuData`` (1,000 ICU patients, SAPSII probabilities; GPL-3, so not shipped
    with evstat): the path of ``data/icuData.RData`` from the givitiR 1.3 sources (CRAN) in
    EVSTAT_GIVITIR_ICUDATA, read with pyreadr."""
    import os

    path = os.environ.get("EVSTAT_GIVITIR_ICUDATA")
    if not path or not os.path.isfile(path):
        pytest.skip("set EVSTAT_GIVITIR_ICUDATA to givitiR 1.3's data/icuData.RData to run the authors' example")
    pyreadr = pytest.importorskip("pyreadr")
    return pyreadr.read_r(path)["icuData"]


def test_the_authors_worked_example_external():
    """The givitiR vignette (Nattino, Finazzi, Bertolini; givitiR 1.3, section 3): SAPSII on
    icuData, external: "Stat = 51.27, p-value = 6.27e-10", beta = (-0.25342187, 0.67880695,
    -0.09505753), and the belt "under the bisector for probabilities higher than 0.56 or 0.60
    (using respectively a confidence levels of 80% and 95%)"."""
    icu = _icu_data()
    belt = calibration_belt(icu["outcome"], icu["probSaps"])
    assert belt.degree == 2
    assert round(belt.statistic, 2) == 51.27 and f"{belt.pvalue:.2e}" == "6.27e-10"
    np.testing.assert_allclose(belt.coefficients, [-0.25342187, 0.67880695, -0.09505753], atol=5e-9)
    for level, start in ((0.8, 0.56), (0.95, 0.60)):
        dev = belt.deviations(level)
        assert list(dev["side"]) == ["under"] and round(dev["from"].iloc[0], 2) == start
        assert dev["to"].iloc[0] == pytest.approx(icu["probSaps"].max())


def test_the_authors_worked_example_internal():
    """The same vignette, section 4: SAPSII refitted by logistic regression on icuData, internal:
    "Stat = 1.4941, p-value = 0.2216", m = 2, beta = (0.0391975, 0.9184636, -0.0527476), the belt
    encompassing the bisector in the whole range."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    icu = _icu_data()
    refs = {"adm": "schSurg", "chronic": "noChronDis", "age": "<40", "gcs": "14-15", "BP": "100-199",
            "HR": "70-119", "temp": "<39", "urine": ">=1", "urea": "<0.60", "WBC": "1-19",
            "potassium": "3-4.9", "sodium": "125-144", "HCO3": ">=20", "bili": "<4", "paFiIfVent": "noVent"}
    formula = "outcome ~ " + " + ".join(f"C({v}, Treatment({r!r}))" for v, r in refs.items())
    refit = smf.glm(formula, data=icu, family=sm.families.Binomial()).fit(tol=1e-12)
    belt = calibration_belt(icu["outcome"], refit.predict(icu), devel="internal")
    assert belt.degree == 2
    assert round(belt.statistic, 4) == 1.4941 and round(belt.pvalue, 4) == 0.2216
    np.testing.assert_allclose(belt.coefficients, [0.0391975, 0.9184636, -0.0527476], atol=5e-8)
    assert belt.deviations(0.8).empty and belt.deviations(0.95).empty


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(120, 400), shift=st.floats(-1.0, 1.0),
       slope=st.floats(0.5, 1.8))
def test_invariants_relabelling_and_nesting(seed, n, shift, slope):
    """Swapping the classes (y -> 1 - y, p -> 1 - p) mirrors the belt: the same degree,
    statistic and p-value, and the belt at 1 - p is one minus the belt at p with lower and upper
    exchanged; belts are nested and inside (0, 1), and hold the fitted curve."""
    rng = np.random.default_rng(seed)
    g = rng.normal(0.0, 1.5, n)
    y = rng.binomial(1, expit(shift + slope * g)).astype(float)
    p = expit(g)
    if y.sum() < 2 or y.sum() > n - 2:
        return
    a = calibration_belt(y, p, n_points=12)
    b = calibration_belt(1 - y, 1 - p, n_points=12)
    assert a.degree == b.degree
    assert a.statistic == pytest.approx(b.statistic, rel=1e-7, abs=1e-9)
    assert a.pvalue == pytest.approx(b.pvalue, rel=1e-6, abs=1e-12)
    mirrored = b.bounds(1 - a.belts["p"].to_numpy(), 0.95)
    np.testing.assert_allclose(1 - mirrored["upper"].to_numpy(), a.belts["lower95"], atol=1e-7)
    np.testing.assert_allclose(1 - mirrored["lower"].to_numpy(), a.belts["upper95"], atol=1e-7)
    belts = a.belts
    assert ((belts.iloc[:, 1:] > 0) & (belts.iloc[:, 1:] < 1)).all().all()
    assert (belts["lower95"] <= belts["lower80"] + 1e-12).all() and (belts["upper80"] <= belts["upper95"] + 1e-12).all()
