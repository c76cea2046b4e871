"""Issue 9, section 3: large calibration sets. Summaries, glance and reports describe the
calibration rows on a documented, seeded subsample above CALIBRATION_SAMPLE_ROWS (for models
whose prediction cost grows with n), say so, and long predictions show a progress bar with the
cost model's estimate. The threshold is lowered here so that the tests stay small."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.calibration import base, logistic


def data(n: int = 300, seed: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)}, index=np.arange(n)[::-1] * 10)
    d["y"] = (rng.random(n) < 1 / (1 + np.exp(-1.5 * d["a"]))).astype(int)
    return d


@pytest.fixture
def small_threshold():
    with ev.config_context(calibration_sample_rows=40):
        yield


@pytest.mark.slow
def test_evlogit_summary_and_glance_use_a_seeded_subsample(small_threshold):
    d = data()
    fit = ev.evlogit("y ~ a + b", data=d)
    pos = fit.calibration_sample()
    want = np.sort(np.random.default_rng(base.CALIBRATION_SAMPLE_SEED).choice(len(d), 40, replace=False))
    np.testing.assert_array_equal(pos, want)
    np.testing.assert_array_equal(ev.evlogit("y ~ a + b", data=d).calibration_sample(), pos)
    cb = fit.calibration_belief()
    assert list(cb.index) == list(d.index[pos])
    pd.testing.assert_frame_equal(cb, fit.predict(d.iloc[pos], type="belief"), atol=1e-12, rtol=0)
    g = fit.glance()
    assert int(g["ignorance_rows"].iloc[0]) == 40 and int(g["nobs"].iloc[0]) == 300
    assert g["mean_ignorance"].iloc[0] == pytest.approx(float((cb["pl"] - cb["bel"]).mean()), rel=1e-12)
    text = fit.summary().as_text()
    assert "seeded random subsample of 40 of the 300 calibration rows (seed 20261126" in text
    # predict(None) still covers every row
    assert len(fit.predict(None, type="belief")) == 300


def test_no_subsample_below_the_threshold_or_for_cheap_models(small_threshold):
    d = data(35)
    fit = ev.evlogit("y ~ a", data=d)
    assert fit.calibration_sample() is None and int(fit.glance()["ignorance_rows"].iloc[0]) == 35
    assert "subsample" not in fit.summary().as_text()
    for fit in (ev.evbinning("y ~ a", data=data()), ev.isotonic("y ~ a", data=data())):
        assert fit.cost_per_cell is None and fit.calibration_sample() is None
        assert len(fit.calibration_belief()) == 300
        assert "subsample" not in fit.summary().as_text()


def test_disjoint_subsample_and_cost(small_threshold):
    fit = ev.disjoint("y ~ a + b", data=data())
    assert fit.cost_per_cell == pytest.approx(2 * logistic.COST_PER_CELL)
    assert fit.predicted_seconds(10) == pytest.approx(10 * 300 * 2 * logistic.COST_PER_CELL)
    assert int(fit.glance()["ignorance_rows"].iloc[0]) == 40
    assert "subsample of 40 of the 300" in fit.summary().as_text()
    assert ev.disjoint("y ~ a + b", data=data(), method="evbinning").calibration_sample() is None


def test_cost_model_and_progress_bar_with_estimate(monkeypatch, capsys):
    fit = ev.evlogit("y ~ a + b", data=data())
    assert fit.predicted_seconds(1000) == pytest.approx(1000 * 300 * logistic.COST_PER_CELL)
    new = data(30, seed=9)
    quiet = fit.predict(new, type="belief")
    assert "Bel/Pl" not in capsys.readouterr().err
    # a prediction estimated above PROGRESS_MIN_SECONDS shows a bar with the estimate
    monkeypatch.setattr(logistic, "PROGRESS_BLOCK_SECONDS", 1e-9)  # blocks of one row
    with ev.config_context(progress_min_seconds=1e-6):
        shown = fit.predict(new, type="belief")
    err = capsys.readouterr().err
    assert "evlogit Bel/Pl (n = 300; estimate 0 s)" in err and "30/30" in err
    pd.testing.assert_frame_equal(shown, quiet, atol=1e-12, rtol=0)
    with ev.config_context(progress_min_seconds=None):  # silenced
        fit.predict(new, type="belief")
    assert "Bel/Pl" not in capsys.readouterr().err


@pytest.mark.slow
def test_report_uses_the_subsample_and_says_so(small_threshold, tmp_path):
    d = data()
    fit = ev.evlogit("y ~ a + b", data=d)
    sizes = []
    orig = logistic.LogitCalibration._belief_arrays

    def spy(self, X):
        sizes.append(X.shape[0])
        return orig(self, X)

    logistic.LogitCalibration._belief_arrays = spy
    try:
        ev.report(fit, tmp_path / "r.html", grid=4)
    finally:
        logistic.LogitCalibration._belief_arrays = orig
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "calibration data (seeded subsample of 40 of 300 rows, in-sample)" in html
    assert 300 not in sizes, sizes  # never the n x n computation
