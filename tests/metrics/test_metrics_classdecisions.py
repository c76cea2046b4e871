"""K-class decisions from Bel({k}), Pl({k}): the fast path of the report agrees with fit.decide
(the engine on each model's own expected losses), with the two-class closed form, and with
hand-worked examples; reject curves and band coverage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import evstat as ev
from evstat import metrics

COSTS = (None, 0.0, 0.05, 0.2, 0.5, 0.9, 1.0)
STRATS = ("pessimistic", "optimistic", "probabilistic", "hurwicz")


@pytest.fixture(scope="module")
def iris_scores():
    d = ev.datasets.load("iris_scores")
    return d[d.set == "calibration"], d[d.set == "test"]


def _check_against_decide(fit, rows):
    b = fit.predict(rows, type="belief")
    for s in STRATS:
        for rc in COSTS:
            fast = metrics.decide_classes(b["bel"], b["pl"], b["theta"], s, rc, classes=fit.classes, rho=0.3)
            slow = np.asarray(fit.decide(rows, strategy=s, reject_cost=rc, rho=0.3).astype(object))
            assert fast.tolist() == slow.tolist(), (fit.method, s, rc)


@pytest.mark.parametrize("method", ["eknn", "credal_knn", "temperature", "dirichlet"])
def test_equals_fit_decide_for_mass_models(method, iris_scores):
    cal, test = iris_scores
    formula = {
        "eknn": "y ~ lr_versicolor + lr_virginica",
        "credal_knn": "y ~ lr_versicolor + lr_virginica",
        "temperature": "y ~ logp_setosa + logp_versicolor + logp_virginica",
        "dirichlet": "y ~ p_setosa + p_versicolor + p_virginica",
    }[method]
    fit = getattr(ev, method)(formula, cal)
    _check_against_decide(fit, test)


def test_equals_fit_decide_for_evmultinom(iris_scores):
    """evmultinom has no mass function for K = 3: its upper expected cost of class k is computed
    by fit.decide as the upper probability of the complement; the fast path uses 1 - Bel({k})."""
    cal, test = iris_scores
    fit = ev.evmultinom("y ~ lr_versicolor + lr_virginica", cal)
    _check_against_decide(fit, test.iloc[::4])


def test_worked_example_by_hand():
    bel = np.array([[0.7, 0.1, 0.0], [0.3, 0.3, 0.1], [0.0, 0.0, 0.0]])
    pl = np.array([[0.9, 0.3, 0.1], [0.6, 0.6, 0.3], [1.0, 1.0, 1.0]])
    p = np.array([[0.8, 0.15, 0.05], [0.45, 0.45, 0.1], [0.2, 0.5, 0.3]])
    cls = ["a", "b", "c"]
    # pessimistic costs 1 - bel: row 1 (0.3, 0.9, 1.0), row 2 (0.7, 0.7, 0.9) tie -> first, row 3 all 1
    assert metrics.decide_classes(bel, pl, p, classes=cls).tolist() == ["a", "a", "a"]
    assert metrics.decide_classes(bel, pl, p, reject_cost=0.7, classes=cls).tolist() == ["a", "a", "reject"]
    assert metrics.decide_classes(bel, pl, p, reject_cost=0.69, classes=cls).tolist() == ["a", "reject", "reject"]
    # optimistic costs 1 - pl: row 3 (0, 0, 0) -> first class even at R_rej = 0
    assert metrics.decide_classes(bel, pl, p, "optimistic", 0.0, classes=cls).tolist() == ["reject", "reject", "a"]
    # probabilistic: 1 - p
    assert metrics.decide_classes(bel, pl, p, "probabilistic", 0.52, classes=cls).tolist() == ["a", "reject", "b"]
    # hurwicz rho = 1 is pessimistic, rho = 0 optimistic
    assert metrics.decide_classes(bel, pl, None, "hurwicz", 0.5, rho=1.0).tolist() == \
        metrics.decide_classes(bel, pl, None, "pessimistic", 0.5).tolist()
    assert metrics.decide_classes(bel, pl, None, "hurwicz", 0.5, rho=0.0).tolist() == \
        metrics.decide_classes(bel, pl, None, "optimistic", 0.5).tolist()


@settings(max_examples=60, deadline=None)
@given(arrays(float, (12, 2), elements=st.floats(0, 1)), st.sampled_from(["pessimistic", "optimistic", "probabilistic"]),
       st.sampled_from([None, 0.0, 0.1, 0.25, 0.5, 1.0]))
def test_two_classes_agree_with_the_binary_closed_form(u, strategy, rc):
    """On two classes, Bel({0}) = 1 - Pl({1}), Pl({0}) = 1 - Bel({1}): same decisions as decide_binary."""
    b1, p1 = np.minimum(u[:, 0], u[:, 1]), np.maximum(u[:, 0], u[:, 1])
    th = (b1 + p1) / 2
    bel = np.column_stack([1 - p1, b1])
    pl = np.column_stack([1 - b1, p1])
    P = np.column_stack([1 - th, th])
    got = metrics.decide_classes(bel, pl, P, strategy, rc)
    want = metrics.decide_binary(b1, p1, strategy, rc, p=th)
    assert got.tolist() == want.tolist()


@settings(max_examples=40, deadline=None)
@given(arrays(float, (15, 3), elements=st.floats(0, 1)), arrays(float, (15, 3), elements=st.floats(0, 1)))
def test_reject_share_is_non_increasing_and_nothing_rejected_at_one(a, b):
    bel, pl = np.minimum(a, b), np.maximum(a, b)
    shares = [np.mean(metrics.decide_classes(bel, pl, reject_cost=c) == "reject") for c in np.linspace(0, 1, 21)]
    assert all(x >= y for x, y in zip(shares, shares[1:]))
    assert shares[-1] == 0.0


def test_reject_curve_matches_decisions():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(size=(40, 4)), rng.uniform(size=(40, 4))
    bel, pl = np.minimum(a, b) / 2, np.maximum(a, b)
    P = rng.dirichlet(np.ones(4), size=40)
    y = rng.integers(0, 4, 40)
    cur = metrics.class_reject_curve(y, bel, pl, P, costs=[0.1, 0.6], strategies=["pessimistic", "probabilistic"])
    assert cur[["strategy", "reject_cost"]].values.tolist() == [
        ["pessimistic", 0.1], ["pessimistic", 0.6], ["probabilistic", 0.1], ["probabilistic", 0.6]]
    for _, r in cur.iterrows():
        d = metrics.decide_classes(bel, pl, P, r["strategy"], r["reject_cost"])
        rej = d == "reject"
        wrong = ~rej & (d != y)
        assert r["error_rate"] == wrong.mean() and r["reject_rate"] == rej.mean()
        if (~rej).any():
            assert r["accuracy"] == pytest.approx((~rej & ~wrong).sum() / (~rej).sum())
        else:
            assert np.isnan(r["accuracy"])
    assert r["error_rate"] + r["reject_rate"] + (0 if np.isnan(r["accuracy"]) else r["accuracy"] * (1 - r["reject_rate"])) \
        == pytest.approx(1.0)


def test_interval_coverage_top_label_and_classwise_by_hand():
    bel = np.array([[0.6, 0.1, 0.0], [0.1, 0.5, 0.1], [0.2, 0.2, 0.2], [0.0, 0.0, 0.7]])
    pl = np.array([[0.9, 0.3, 0.1], [0.3, 0.8, 0.3], [0.5, 0.5, 0.5], [0.2, 0.3, 0.95]])
    p = np.array([[0.8, 0.15, 0.05], [0.2, 0.7, 0.1], [0.4, 0.3, 0.3], [0.1, 0.1, 0.8]])
    y = np.array([0, 1, 1, 2])
    top = metrics.class_interval_coverage(y, bel, pl, p, "top-label", bins=2)
    # confidences 0.8, 0.7, 0.4, 0.8: bin [0, .5] holds row 3 (argmax 0, wrong), bin (.5, 1] rows 1, 2, 4
    assert top["n"].tolist() == [1, 3]
    assert top["observed_frequency"].tolist() == [0.0, 1.0]
    assert top["mean_bel"].tolist() == pytest.approx([0.2, (0.6 + 0.5 + 0.7) / 3])
    assert top["mean_pl"].tolist() == pytest.approx([0.5, (0.9 + 0.8 + 0.95) / 3])
    assert top["covered"].tolist() == [False, False]
    cw = metrics.class_interval_coverage(y, bel, pl, p, "classwise", bins=2)
    c2 = cw[cw["class"] == 2]
    assert c2["n"].tolist() == [3, 1] and c2["observed_frequency"].tolist() == [0.0, 1.0]
    assert c2["mean_bel"].tolist() == pytest.approx([0.1, 0.7])
    # the top-label view equals the two-class interval coverage of (correct, Bel/Pl of the argmax)
    k = p.argmax(axis=1)
    r = np.arange(4)
    two = metrics.interval_coverage((k == y).astype(int), bel[r, k], pl[r, k], p[r, k], bins=2)
    pd.testing.assert_frame_equal(top, two)


@pytest.mark.parametrize("bad, match", [
    (dict(bel=[[0.5, 0.2]], pl=[[0.4, 0.3]]), "bel <= pl"),
    (dict(bel=[[0.1, np.nan]], pl=[[0.4, 0.3]]), "missing or infinite"),
    (dict(bel=[[0.1, 0.2]], pl=[[0.4, 0.3, 0.5]]), "same shape"),
    (dict(bel=[0.1, 0.2], pl=[0.4, 0.3]), "same shape"),
    (dict(bel=[[0.1, 0.2]], pl=[[0.4, 0.3]], strategy="pignistic"), "strategy"),
    (dict(bel=[[0.1, 0.2]], pl=[[0.4, 0.3]], strategy="probabilistic"), "needs p"),
    (dict(bel=[[0.1, 0.2]], pl=[[0.4, 0.3]], reject_cost=-0.1), "reject_cost"),
    (dict(bel=[[0.1, 0.2]], pl=[[0.4, 0.3]], classes=["a"]), "classes has 1"),
])
def test_bad_input_messages(bad, match):
    with pytest.raises(ValueError, match=match):
        metrics.decide_classes(**bad)


def test_reject_curve_bad_labels():
    with pytest.raises(ValueError, match="class positions 0..1"):
        metrics.class_reject_curve([0, 2], [[0.1, 0.2], [0.1, 0.2]], [[0.4, 0.3], [0.4, 0.3]])


def test_doctests(doctests):
    doctests("evstat.metrics.classdecisions")
