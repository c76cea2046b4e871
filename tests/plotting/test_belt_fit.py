"""ev.calibration_belt(fit, newdata), fit.plot("belt") and the report's belt, on the sonar scores
(issue 39 item 7); the mathematics is tested in tests/metrics/test_metrics_belt.py."""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.metrics.belt import _bound_by_profile

ROOT = Path(__file__).resolve().parents[2]
SONAR = pd.read_csv(ROOT / "data" / "sonar_scores.csv")
CAL, TEST = SONAR[SONAR.set == "calibration"], SONAR[SONAR.set == "test"]


@pytest.fixture(scope="module")
def fit():
    return ev.evlogit("y ~ svm1 + svm2 + svm3", data=CAL)


@pytest.fixture(scope="module")
def belt(fit):
    return ev.calibration_belt(fit, TEST)


def test_the_fit_level_belt_is_the_belt_of_its_probabilities(fit, belt):
    p = fit.predict(TEST, type="prob").to_numpy()
    direct = ev.metrics.calibration_belt(TEST["y"].to_numpy(), p)
    assert belt.devel == "external" and belt.n == len(TEST)
    assert (belt.degree, belt.statistic, belt.pvalue) == (direct.degree, direct.statistic, direct.pvalue)
    pd.testing.assert_frame_equal(belt.belts, direct.belts)
    # the numbers quoted in docs/guide/two-class.md
    assert belt.degree == 1
    assert belt.statistic == pytest.approx(4.9824, abs=1e-4) and belt.pvalue == pytest.approx(0.0828, abs=1e-4)
    assert "evlogit on the new data (79 rows)" in belt.summary()


def test_sonar_against_the_calibration_belt_package(fit, belt):
    calibration = pytest.importorskip("calibration")
    p = fit.predict(TEST, type="prob").to_numpy()
    y = TEST["y"].to_numpy().astype(float)
    with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = calibration.CalibrationBelt(y, p)
        statistic, pvalue = peer.test(0.95)
        theirs = peer.calculate_boundaries(0.95, size=10)
    assert statistic == pytest.approx(belt.statistic, rel=1e-9) and pvalue == pytest.approx(belt.pvalue, rel=1e-9)
    ours = belt.bounds(theirs[:, 0], 0.95)
    # its trust-constr (tol 1e-4) stops inside the region: 7e-4 at most here, ours contain its bounds
    np.testing.assert_allclose(ours[["lower", "upper"]].to_numpy(), theirs[:, 1:], atol=1e-3)
    assert (ours["lower"].to_numpy() <= theirs[:, 1] + 1e-6).all() and (ours["upper"].to_numpy() >= theirs[:, 2] - 1e-6).all()
    # where the two differ most, ours is the profile-likelihood bound
    i = int(np.abs(ours[["lower", "upper"]].to_numpy() - theirs[:, 1:]).max(axis=1).argmax())
    g0 = float(np.log(theirs[i, 0] / (1 - theirs[i, 0])))
    for side, sign in (("lower", -1.0), ("upper", 1.0)):
        ref = _bound_by_profile(y, p, belt.degree, g0, belt.thresholds[0.95], sign)
        assert ours[side].iloc[i] == pytest.approx(ref, abs=1e-7)


def test_calibration_rows_of_evlogit_are_internal_and_others_external(fit):
    assert ev.calibration_belt(fit, n_points=20).devel == "internal"
    assert ev.calibration_belt(fit, n_points=20, devel="external").devel == "external"
    iso = ev.isotonic("y ~ svm1", data=CAL)
    belt = ev.calibration_belt(iso, TEST, n_points=20)
    # isotonic regression gives probabilities of exactly 0 and 1: left out, and said so
    p = iso.predict(TEST, type="prob").to_numpy()
    certain = np.isin(p, (0.0, 1.0))
    assert certain.any() and belt.n == int((~certain).sum())
    assert f"{int(certain.sum())} rows with theta_hat exactly 0 or 1 left out" in belt.label
    assert ev.calibration_belt(iso, n_points=20).devel == "external"


def test_errors():
    iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl"})
    with pytest.raises(ValueError, match="two-class diagnostic.*3 classes"):
        ev.calibration_belt(ev.evmultinom("y ~ pl", iris))
    fit = ev.evlogit("y ~ svm1", data=CAL)
    with pytest.raises(ValueError, match="needs the observed classes.*pass y="):
        ev.calibration_belt(fit, TEST.drop(columns="y"))
    belt = ev.calibration_belt(fit, TEST.drop(columns="y"), y=TEST["y"].to_numpy(), n_points=20)
    assert belt.n == len(TEST)


def test_plot_kind_belt(fit, belt):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    out = fit.plot("belt", newdata=TEST, ax=ax, n_points=20)
    assert out is ax
    assert ax.get_title() == "Calibration belt (evlogit) on the new data (79 rows)"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["95% belt", "80% belt", "perfect calibration (bisector)"]
    box = ax.texts[0].get_text()
    assert "m = 1" in box and "T = 4.98" in box and "p-value 0.083" in box
    # a belt computed once is drawn as it is
    ax2 = ev.plotting.belt_diagram(fit, TEST, ax=Figure().add_subplot(), belt=belt)
    top = ax2.collections[0].get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(belt.belts["upper95"].max(), abs=1e-12)


def test_report_has_a_belt_section(fit, tmp_path):
    path = tmp_path / "r.html"
    fit.report(path, newdata=TEST)
    html = path.read_text(encoding="utf-8")
    assert "<strong>Calibration belt.</strong>" in html and 'aria-label="Calibration belt"' in html
    assert "T = 4.98, p-value 0.083" in html and "degree m = 1" in html
    # and a row of the calibration tests table, computed once with the figure
    assert "Calibration belt (degree m = 1, external)" in html and "4.982" in html
    assert "the 80% belt lies under the bisector for theta_hat in [0.04, 0.18], over the bisector for theta_hat in [0.66, 0.94]; the 95% belt contains the bisector everywhere" in html
