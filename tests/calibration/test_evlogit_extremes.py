"""Issue 9, section 2 (fit side): calibration scores too large for float64, and complete
separation with the default Platt targets (finite deviance, a note in summary and glance)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import xlogy

import evstat as ev
from evstat.calibration.logistic import _binomial_deviance, completely_separated


@pytest.fixture(scope="module")
def sonar() -> pd.DataFrame:
    df = ev.datasets.load("sonar_scores")
    return df[df["set"] == "calibration"].reset_index(drop=True)


@pytest.mark.parametrize("method", ["evlogit", "evbinning", "isotonic"])
def test_scores_times_1e300_say_overflow_not_collinear(sonar, method):
    big = sonar.assign(svm1=sonar["svm1"] * 1e300)
    with pytest.raises(ValueError, match=r"'svm1' has values up to 8\.3e\+299.*overflow.*rescale the scores") as err:
        getattr(ev, method)("y ~ svm1", data=big)
    assert "collinear" not in str(err.value)
    # the suggested rescaling is a formula that works
    fit = getattr(ev, method)("y ~ I(svm1 / 1e+299)", data=big)
    ref = getattr(ev, method)("y ~ svm1", data=sonar.assign(svm1=sonar["svm1"] * 10.0))
    np.testing.assert_allclose(fit.predict(big, type="prob"), ref.predict(sonar.assign(svm1=sonar["svm1"] * 10.0), type="prob"), rtol=1e-9)


def test_scores_up_to_1e150_still_fit(sonar):
    fit = ev.evlogit("y ~ svm1", data=sonar.assign(svm1=sonar["svm1"] * 1e149))
    assert np.isfinite(fit.deviance) and fit.params["svm1"] > 0


def test_deviance_is_finite_where_fitted_probabilities_round_to_one():
    t = np.array([0.99, 0.01, 0.99])
    eta = np.array([50.0, -60.0, 3.0])
    # by hand: 2 sum t log(t / theta) + (1 - t) log((1 - t) / (1 - theta)), with
    # log theta = -log1p(exp(-eta)) and log(1 - theta) = -eta - log1p(exp(-eta))
    log_th = -np.log1p(np.exp(-eta))
    log_1m = -eta + log_th
    want = 2.0 * np.sum(xlogy(t, t) - t * log_th + xlogy(1 - t, 1 - t) - (1 - t) * log_1m)
    got = _binomial_deviance(t, eta)
    assert np.isfinite(got)
    assert got == pytest.approx(want, rel=1e-13)
    # the two saturated rows contribute their (1 - t) |eta| (resp. t |eta|) and nothing else
    sat = xlogy(0.99, 0.99) + xlogy(0.01, 0.01)
    row3 = 2 * (sat - 0.99 * log_th[2] - 0.01 * log_1m[2])
    assert got == pytest.approx(2 * (0.01 * 50 + 0.01 * 60) + 4 * sat + row3, rel=1e-12)


def test_deviance_is_twice_the_log_likelihood_gap(sonar):
    fit = ev.evlogit("y ~ svm1 + svm2", data=sonar)
    t = fit.t
    saturated = np.sum(xlogy(t, t) + xlogy(1 - t, 1 - t))
    assert fit.deviance == pytest.approx(2 * (saturated - fit.loglike), rel=1e-12)


def test_completely_separated_lp():
    X = np.c_[np.ones(6), [-3.0, -2.0, -1.0, 1.0, 2.0, 3.0], [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]]
    assert completely_separated(X, np.array([0, 0, 0, 1, 1, 1]))
    assert not completely_separated(X[:, :2], np.array([0, 0, 1, 0, 1, 1]))  # overlap in s
    # separated only by the second score
    assert completely_separated(X, np.array([0, 1, 0, 1, 0, 1]))
    # quasi-complete separation (a tie on the boundary) is not complete separation
    Xq = np.c_[np.ones(4), [-1.0, 0.0, 0.0, 1.0]]
    assert not completely_separated(Xq, np.array([0, 0, 1, 1]))
    assert not completely_separated(X, np.ones(6))


def test_separated_data_note_in_summary_and_glance():
    s = np.r_[-np.logspace(-3, 3, 50), np.logspace(-3, 3, 50)]
    sep = pd.DataFrame({"s": s, "y": np.r_[np.zeros(50), np.ones(50)].astype(int)})
    fit = ev.evlogit("y ~ s", data=sep)
    assert fit.separated
    g = fit.glance()
    assert bool(g["separated"].iloc[0]) is True
    assert np.isfinite(g["deviance"].iloc[0]) and np.isfinite(fit.aic)
    assert "separate the classes completely" in fit.summary().as_text()
    overlap = ev.evlogit("y ~ s", data=sep.assign(y=np.r_[np.zeros(49), 1, 0, np.ones(49)].astype(int)))
    assert not overlap.separated
    assert "separate the classes" not in overlap.summary().as_text()
    assert bool(overlap.glance()["separated"].iloc[0]) is False
