"""Tests of ev.compare: metrics of several calibrators on the same test data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.metrics import brier_score, error_rate, log_loss


@pytest.fixture(scope="module")
def data():
    d = ev.datasets.load("pima_scores")
    cal, test = d[d.set == "calibration"], d[d.set == "test"].head(60)
    fits = {
        "logit": ev.evlogit("label ~ svm1 + svm2", cal),
        "bin": ev.evbinning("label ~ svm1 + svm2", cal, bins=2),
        "iso": ev.isotonic("label ~ svm2", cal),
    }
    return cal, test, fits


def test_values_match_the_metrics(data):
    _, test, fits = data
    tab = ev.compare(fits, test, y="label")
    assert tab["model"].tolist() == ["logit", "bin", "iso"]
    assert tab["method"].tolist() == ["evlogit", "evbinning", "isotonic"]
    assert {"n", "error_rate", "brier", "log_loss", "mean_ignorance"} <= set(tab.columns)
    y = (test.label == "pos").astype(int).to_numpy()
    for name, fit in fits.items():
        b = fit.predict(test, type="belief")
        row = tab.set_index("model").loc[name]
        assert row["n"] == len(test)
        assert row["error_rate"] == pytest.approx(error_rate(y, b.theta), abs=1e-15)
        assert row["error_rate"] == pytest.approx(np.mean((b.theta.to_numpy() > 0.5) != y), abs=1e-15)
        assert row["brier"] == pytest.approx(np.mean((b.theta.to_numpy() - y) ** 2), abs=1e-15)
        assert row["log_loss"] == pytest.approx(log_loss(y, b.theta), abs=1e-15)
        assert row["mean_ignorance"] == pytest.approx(float((b.pl - b.bel).mean()), abs=1e-15)
        assert row["betp_brier"] == pytest.approx(brier_score(y, (b.bel + b.pl) / 2), abs=1e-15)


def test_y_forms_and_list_naming(data):
    _, test, fits = data
    a = ev.compare(fits, test, y="label")
    b = ev.compare(fits, test, y=test.label.to_numpy())
    c = ev.compare(fits, test, y=test.label)
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)
    listed = ev.compare([fits["logit"], fits["iso"], fits["logit"]], test, y="label")
    assert listed["model"].tolist() == ["evlogit", "isotonic", "evlogit_2"]
    single = ev.compare(fits["iso"], test, y="label")
    assert single["model"].tolist() == ["isotonic"]
    long = a.melt(id_vars=["model", "method"], var_name="metric")
    assert len(long) == 3 * (a.shape[1] - 2)


def test_bad_input(data):
    cal, test, fits = data
    with pytest.raises(ValueError, match="'lab' is not a column of newdata"):
        ev.compare(fits, test, y="lab")
    with pytest.raises(ValueError, match="y has 3 values but newdata has 60 rows"):
        ev.compare(fits, test, y=["pos", "neg", "pos"])
    with pytest.raises(ValueError, match="index differs"):
        ev.compare(fits, test, y=test.label.reset_index(drop=True))
    with pytest.raises(ValueError, match="60 of 60 values that are not response levels"):
        ev.compare(fits, test, y="y")  # 0/1 while the calibrators were fitted on "neg"/"pos"
    with pytest.raises(ValueError, match="different classes"):
        ev.compare({"a": fits["iso"], "b": ev.isotonic("y ~ svm2", cal)}, test, y="label")
    with pytest.raises(TypeError, match="not a fitted evstat calibrator"):
        ev.compare({"a": fits["iso"], "b": "evlogit"}, test, y="label")
    with pytest.raises(TypeError, match="fits must be a fitted calibrator .*, a list of them or a dict"):
        ev.compare(42, test, y="label")
    with pytest.raises(ValueError, match="fits is empty"):
        ev.compare({}, test, y="label")
    with pytest.raises(ValueError, match="0 rows"):
        ev.compare(fits, test.iloc[:0], y="label")
    sparse = ev.evbinning("label ~ svm1 + svm2", cal, bins=12)
    with pytest.warns(UserWarning):
        with pytest.raises(ValueError, match="'sparse' \\(evbinning\\) predicts no probability.*empty='prior'"):
            ev.compare({"sparse": sparse}, test, y="label")
