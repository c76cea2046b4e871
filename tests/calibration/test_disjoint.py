"""Tests of disjoint: per-column calibration combined by Dempster's rule (Xu et al. 2016)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.belief import TotalConflictError
from evstat.calibration import ConflictWarning, DisjointCalibration


@pytest.fixture(scope="module")
def pima():
    d = ev.datasets.load("pima_scores")
    return d[d.set == "calibration"], d[d.set == "test"]


def dempster_by_hand(bel: np.ndarray, pl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closed form of notes section 7, applied left to right over the columns."""
    m1, m0, mo = bel[0], 1 - pl[0], pl[0] - bel[0]
    for j in range(1, bel.shape[0]):
        b1, b0, bo = bel[j], 1 - pl[j], pl[j] - bel[j]
        K = m0 * b1 + m1 * b0
        n1 = (m1 * b1 + m1 * bo + mo * b1) / (1 - K)
        n0 = (m0 * b0 + m0 * bo + mo * b0) / (1 - K)
        no = mo * bo / (1 - K)
        m1, m0, mo = n1, n0, no
    return m1, 1 - m0


def crafted() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two scores, 2 bins each: column a's high bin has k = n = 2, column b's high bin k = 0, n = 3."""
    cal = pd.DataFrame({"y": [1, 1, 0, 0, 0], "a": [10.0, 10, 0, 0, 0], "b": [0.0, 1, 10, 9, 10]})
    test = pd.DataFrame({"a": [10.0], "b": [10.0]}, index=["t"])
    return cal, test


def test_hand_computed_dempster():
    cal, test = crafted()
    fit = ev.disjoint("y ~ a + b", cal, method="evbinning", bins=2)
    cb = fit.column_beliefs(test)
    # column a: k = n = 2 -> m({1}) = 2/3, m(frame) = 1/3; column b: k = 0, n = 3 -> m({0}) = 3/4
    assert cb.loc["t", ("a", "bel")] == pytest.approx(2 / 3) and cb.loc["t", ("a", "pl")] == 1.0
    assert cb.loc["t", ("b", "bel")] == 0.0 and cb.loc["t", ("b", "pl")] == pytest.approx(1 / 4)
    # K = 2/3 * 3/4 = 1/2; m({1}) = (2/3)(1/4)/(1/2) = 1/3; m({0}) = (1/3)(3/4)/(1/2) = 1/2
    m = fit.predict(test, type="mass")
    np.testing.assert_allclose(m.values[0], [0, 1 / 2, 1 / 3, 1 / 6], atol=1e-15)
    b = fit.predict(test, type="belief")
    assert b.loc["t", "bel"] == pytest.approx(1 / 3) and b.loc["t", "pl"] == pytest.approx(1 / 2)
    assert b.loc["t", "theta"] == pytest.approx(5 / 12)  # BetP
    assert fit.glance().loc[0, "mean_conflict"] >= 0
    # the product of the column probabilities 1 and 0 is 0/0: the conflict rule applies
    prod = ev.disjoint("y ~ a + b", cal, method="evbinning", bins=2, prob="product")
    with pytest.raises(TotalConflictError, match="1 of 1 rows \\(index 't'\\).*per-column probabilities.*conflict='vacuous'"):
        prod.predict(test)
    vac = ev.disjoint("y ~ a + b", cal, method="evbinning", bins=2, prob="product", conflict="vacuous")
    with pytest.warns(ConflictWarning, match="probability is set to 0.5"):
        assert vac.predict(test).iloc[0] == 0.5


def test_against_closed_form_and_belief_combine(pima):
    cal, test = pima
    test = test.head(40)
    for method in ("evlogit", "evbinning", "isotonic"):
        fit = ev.disjoint("y ~ svm1 + svm2 + svm3", cal, method=method)
        cb = fit.column_beliefs(test)
        bel = np.vstack([cb[(c, "bel")] for c in fit.columns])
        pl = np.vstack([cb[(c, "pl")] for c in fit.columns])
        hb, hp = dempster_by_hand(bel, pl)
        b = fit.predict(test, type="belief")
        np.testing.assert_allclose(b.bel, hb, atol=1e-12)
        np.testing.assert_allclose(b.pl, hp, atol=1e-12)
        np.testing.assert_allclose(b.theta, (hb + hp) / 2, atol=1e-12)
        # the product probability, by hand
        th = np.vstack([cb[(c, "theta")] for c in fit.columns])
        prod = ev.disjoint("y ~ svm1 + svm2 + svm3", cal, method=method, prob="product")
        expected = th.prod(axis=0) / (th.prod(axis=0) + (1 - th).prod(axis=0))
        np.testing.assert_allclose(prod.predict(test), expected, rtol=1e-12)
        pd.testing.assert_frame_equal(prod.predict(test, type="mass").to_frame(), fit.predict(test, type="mass").to_frame())


@pytest.mark.parametrize(
    "method, own",
    [
        ("evlogit", lambda cal: ev.evlogit("y ~ svm2", cal)),
        ("evbinning", lambda cal: ev.evbinning("y ~ svm2", cal, bins=9)),
        ("isotonic", lambda cal: ev.isotonic("y ~ svm2", cal)),
    ],
)
def test_one_column_equals_own_calibrator(pima, method, own):
    cal, test = pima
    test = test.head(120)
    ref = own(cal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rb = ref.predict(test, type="belief")
        fit = ev.disjoint("y ~ svm2", cal, method=method, prob="product")
        fb = fit.predict(test, type="belief")
        betp = ev.disjoint("y ~ svm2", cal, method=method).predict(test, type="belief")
    pd.testing.assert_frame_equal(fb, rb)
    pd.testing.assert_frame_equal(betp[["bel", "pl"]], rb[["bel", "pl"]])
    np.testing.assert_allclose(betp.theta, (rb.bel + rb.pl) / 2, atol=1e-15)
    assert fit.calibrators["svm2"].method == method


def test_total_conflict_raise_and_vacuous():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 50)
    cal = pd.DataFrame({"y": y, "a": rng.normal(size=100) + 3 * y, "b": -(rng.normal(size=100) + 3 * y)})
    test = pd.DataFrame({"a": [2.0, 100.0], "b": [-2.0, 100.0]}, index=["ok", "bad"])
    fit = ev.disjoint("y ~ a + b", cal)
    cb = fit.column_beliefs(test)
    assert cb.loc["bad", ("a", "bel")] == 1.0 and cb.loc["bad", ("b", "pl")] < 1e-15
    with pytest.raises(TotalConflictError, match="1 of 2 rows \\(index 'bad'\\).*conflict='vacuous'"):
        fit.predict(test, type="belief")
    with pytest.raises(ValueError, match="total conflict"):
        fit.decide(test)
    vac = ev.disjoint("y ~ a + b", cal, conflict="vacuous")
    with pytest.warns(ConflictWarning, match="1 of 2 rows are in total conflict.*vacuous"):
        b = vac.predict(test, type="belief")
    assert (b.loc["bad", "bel"], b.loc["bad", "pl"], b.loc["bad", "theta"]) == (0.0, 1.0, 0.5)
    ok = fit.predict(test.loc[["ok"]], type="belief")
    pd.testing.assert_frame_equal(b.loc[["ok"]], ok)


def test_summary_tidy_glance(pima):
    cal, _ = pima
    cal = cal.head(150)
    fit = ev.disjoint("label ~ svm1 + svm2 + svm3", cal, method="evbinning", bins=5)
    text = fit.summary().as_text()
    assert "Per-column calibrator: evbinning" in text and "Dempster's rule" in text
    for c in ("svm1", "svm2", "svm3"):
        assert f"label ~ {c}" in text
    assert "5 bins" in text
    t = fit.tidy()
    assert t["column"].unique().tolist() == ["svm1", "svm2", "svm3"] and len(t) == 15
    g = fit.glance()
    assert g.loc[0, "base_method"] == "evbinning" and g.loc[0, "n_columns"] == 3
    assert 0 <= g.loc[0, "mean_conflict"] < 1
    lg = ev.disjoint("label ~ svm1 + svm2", cal)
    assert "Intercept = " in lg.summary().as_text()
    assert lg.calibrators["svm1"].classes == ("neg", "pos")


def test_transformed_and_quoted_columns(pima):
    cal, test = pima
    test = test.head(50)
    df = cal.rename(columns={"svm1": "svm 1"})
    fit = ev.disjoint("y ~ Q('svm 1') + np.exp(svm2)", df)
    assert fit.columns == ["Q('svm 1')", "np.exp(svm2)"]
    ref = ev.evlogit("y ~ np.exp(svm2)", cal)
    np.testing.assert_allclose(
        fit.column_beliefs(test.rename(columns={"svm1": "svm 1"}))[("np.exp(svm2)", "bel")],
        ref.predict(test, type="belief").bel,
        atol=1e-12,
    )


def test_options_passed_and_bad_input(pima):
    cal, test = pima
    fit = ev.disjoint("y ~ svm1 + svm2", cal, method="evbinning", bins=4, breaks="quantile", empty="prior")
    assert fit.calibrators["svm1"].axis_methods == ["quantile"] and fit.calibrators["svm1"].bins == [4]
    assert ev.disjoint("y ~ svm1", cal, targets="binary").calibrators["svm1"].targets == "binary"
    with pytest.raises(ValueError, match="method must be one of"):
        ev.disjoint("y ~ svm1", cal, method="knn")
    with pytest.raises(ValueError, match="conflict must be 'raise'"):
        ev.disjoint("y ~ svm1", cal, conflict="ignore")
    with pytest.raises(ValueError, match="prob must be 'betp'"):
        ev.disjoint("y ~ svm1", cal, prob="mean")
    with pytest.raises(TypeError, match="passed options \\['breaks'\\] to isotonic"):
        ev.disjoint("y ~ svm1", cal, method="isotonic", breaks="quantile")
    with pytest.raises(ValueError, match="at least one score column"):
        ev.disjoint("y ~ 1", cal)
    with pytest.raises(ValueError, match="lacks column"):
        ev.disjoint("y ~ svm1 + svm2", cal).predict(test[["svm1"]])
    empty = ev.disjoint("y ~ svm1 + svm2", cal, method="evbinning", bins=40, prob="product")
    with pytest.raises(ValueError, match="probabilistic strategy needs a probability.*empty='prior'"):
        empty.decide(test, strategy="probabilistic")


def test_every_base_method_survives_save_load(tmp_path, pima):
    """The contract suite (tests/test_contract.py) saves and loads the default fit; here every
    per-column calibrator, on reversed relabelled rows."""
    cal, test = pima
    cal = cal.head(100)  # evlogit's Bel/Pl of the calibration rows (summary) dominate the time
    new = test.head(15).iloc[::-1].set_axis([f"x{i}" for i in range(15)])
    for method, kw in (("evlogit", {}), ("evbinning", {"prob": "product", "empty": "prior", "conflict": "vacuous"}), ("isotonic", {"conflict": "vacuous"}), ("betacal", {})):
        data, newd = (cal, new)
        formula = "label ~ svm1 + svm3"
        if method == "betacal":
            formula = "label ~ expit(3 * svm1) + expit(3 * svm3)"
        fit = ev.disjoint(formula, data, method=method, **kw)
        back = ev.load(fit.save(tmp_path / f"{method}.json"))
        assert isinstance(back, DisjointCalibration)
        assert back.columns == fit.columns and back.prob == fit.prob and back.conflict == fit.conflict
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConflictWarning)
            b = fit.predict(newd, type="belief")
            assert list(b.index) == list(newd.index)
            pd.testing.assert_frame_equal(back.predict(newd, type="belief"), b)
            assert back.decide(newd, reject_cost=0.2).tolist() == fit.decide(newd, reject_cost=0.2).tolist()
            assert back.summary().as_text() == fit.summary().as_text()


@st.composite
def two_scores(draw):
    n = draw(st.integers(10, 40))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    X = rng.normal(size=(n, 2)) + y[:, None] * draw(st.floats(0, 3))
    method = draw(st.sampled_from(["evlogit", "evbinning", "isotonic"]))
    new = pd.DataFrame(rng.normal(scale=2, size=(8, 2)), columns=["a", "b"])
    return pd.DataFrame({"y": y, "a": X[:, 0], "b": X[:, 1]}), method, new


@given(two_scores())
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_invariants(data):
    cal, method, new = data
    fit = ev.disjoint("y ~ a + b", cal, method=method, bins=3, conflict="vacuous")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = fit.predict(new, type="belief")
        m = fit.predict(new, type="mass").values
    assert ((0 <= b.bel) & (b.bel <= b.theta) & (b.theta <= b.pl) & (b.pl <= 1)).all()
    assert np.allclose(m.sum(axis=1), 1.0, atol=1e-12) and (m >= 0).all()
