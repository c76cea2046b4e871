"""disjoint(combination="cautious"): Denoeux's cautious rule for non-distinct sources (issue 9,
section 5); the summary, glance and report name the rule and the conflict."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.calibration import cautious_binary, dempster_binary


@pytest.fixture(scope="module")
def pima() -> pd.DataFrame:
    df = ev.datasets.load("pima_scores")
    return df[df["set"] == "calibration"].reset_index(drop=True)


def test_cautious_binary_by_hand():
    bel = np.array([[0.3, 0.1], [0.5, 0.6]])
    pl = np.array([[0.8, 0.4], [0.9, 0.95]])
    b, p, bad = cautious_binary(bel, pl)
    for i in range(2):
        W1 = min((pl[j, i] - bel[j, i]) / pl[j, i] for j in range(2))
        W0 = min((pl[j, i] - bel[j, i]) / (1 - bel[j, i]) for j in range(2))
        K = (1 - W1) * (1 - W0)
        assert b[i] == pytest.approx((1 - W1) * W0 / (1 - K), abs=1e-14)
        assert 1 - p[i] == pytest.approx((1 - W0) * W1 / (1 - K), abs=1e-14)
    assert not bad.any()
    # a dogmatic column (Bel = Pl) makes the rule undefined for that row
    b, p, bad = cautious_binary(np.array([[0.3], [0.5]]), np.array([[0.3], [0.9]]))
    assert bad.tolist() == [True] and (b[0], p[0]) == (0.0, 1.0)


def test_same_column_twice_is_that_column(pima):
    """The same evidence twice: the cautious rule returns it (idempotence), Dempster's rule
    counts it twice and shrinks the ignorance."""
    one = ev.evlogit("y ~ svm1", data=pima).predict(pima, type="belief")
    bel = np.vstack([one["bel"], one["bel"]])
    pl = np.vstack([one["pl"], one["pl"]])
    b, p, bad = cautious_binary(bel, pl)
    np.testing.assert_allclose(b, one["bel"], atol=1e-12)
    np.testing.assert_allclose(p, one["pl"], atol=1e-12)
    bd, pd_, _ = dempster_binary(bel, pl)
    assert (pd_ - bd).mean() < 0.7 * (one["pl"] - one["bel"]).mean()


def test_pima_ignorance_and_report(pima, tmp_path):
    demp = ev.disjoint("y ~ svm1 + svm2 + svm3", data=pima)
    caut = ev.disjoint("y ~ svm1 + svm2 + svm3", data=pima, combination="cautious")
    gd, gc = demp.glance().iloc[0], caut.glance().iloc[0]
    assert gd["combination"] == "dempster" and gc["combination"] == "cautious"
    assert gc["mean_ignorance"] > 10 * gd["mean_ignorance"]  # 0.066 against 0.0014
    assert gc["mean_conflict"] == pytest.approx(gd["mean_conflict"])  # the same evidence
    b_c, p_c = caut.calibration_belief()["bel"], caut.calibration_belief()["pl"]
    b_d, p_d = demp.calibration_belief()["bel"], demp.calibration_belief()["pl"]
    assert np.all(p_c - b_c >= p_d - b_d - 1e-12)
    text = caut.summary().as_text()
    assert "Denoeux's cautious rule" in text and "conflict K" in text
    assert "Dempster's rule (assumes distinct, independent sources)" in demp.summary().as_text()
    path = tmp_path / "fit.json"
    caut.save(path)
    assert ev.load(path).combination == "cautious"
    np.testing.assert_allclose(ev.load(path).predict(pima.head(5), type="belief").to_numpy(),
                               caut.predict(pima.head(5), type="belief").to_numpy(), atol=1e-12)


def test_bad_combination_message(pima):
    with pytest.raises(ValueError, match="combination must be 'dempster'.*or 'cautious'"):
        ev.disjoint("y ~ svm1 + svm2", data=pima, combination="yager")


def test_dempster_binary_unchanged():
    b, p, bad = dempster_binary(np.array([[0.6], [0.0]]), np.array([[1.0], [0.7]]))
    assert round(float(b[0]), 6) == 0.512195
