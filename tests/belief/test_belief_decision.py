"""Decisions over a loss matrix: hand computations, reject and unknown actions, 0-1 identities."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.belief import Decision, Frame, MassArray, MassFunction, decide, loss_matrix

LABELS = ("a", "b", "c")


@pytest.fixture
def m3():
    # m({a}) = .2, m({b}) = .1, m({a,b}) = .3, m({b,c}) = .1, m(Omega) = .3
    return MassFunction(LABELS, {"a": 0.2, "b": 0.1, ("a", "b"): 0.3, ("b", "c"): 0.1, LABELS: 0.3})


def expected_losses_def(md, L, labels, rule, rho=0.5):
    """Plain definitions: sums over focal sets of max / min of the losses, or BetP weights."""
    out = []
    for row in L:
        cost = dict(zip(labels, row))
        upper = sum(v * max(cost[w] for w in A) for A, v in md.items())
        lower = sum(v * min(cost[w] for w in A) for A, v in md.items())
        pign = sum(v * sum(cost[w] for w in A) / len(A) for A, v in md.items())
        out.append({"pessimistic": upper, "optimistic": lower, "pignistic": pign, "hurwicz": rho * upper + (1 - rho) * lower}[rule])
    return np.array(out)


# --- hand computations ----------------------------------------------------------------------------
def test_zero_one_loss_with_reject_by_hand(m3):
    L = loss_matrix(LABELS, reject=0.5)
    # upper: 1 - bel({w}) = .8, .9, 1.0; reject .5 -> reject
    d = decide(m3, L, strategy="pessimistic")
    assert d.choice == "reject"
    assert d.expected_loss.to_dict() == pytest.approx({"a": 0.8, "b": 0.9, "c": 1.0, "reject": 0.5})
    # lower: 1 - pl({w}) = .2, .2, .6 -> tie between a and b: the first row wins
    d = decide(m3, L, strategy="optimistic")
    assert d.choice == "a"
    assert d.expected_loss.to_dict() == pytest.approx({"a": 0.2, "b": 0.2, "c": 0.6, "reject": 0.5})
    # pignistic: 1 - BetP = .55, .6, .85 -> reject (.5)
    d = decide(m3, L, strategy="pignistic")
    assert d.choice == "reject"
    assert d.expected_loss.to_dict() == pytest.approx({"a": 0.55, "b": 0.6, "c": 0.85, "reject": 0.5})
    assert decide(m3, loss_matrix(LABELS, reject=0.6), strategy="pignistic").choice == "a"
    # hurwicz rho = .5: a = (.8 + .2)/2 = .5 ties with reject .5 -> "a" comes first
    d = decide(m3, L, strategy="hurwicz", rho=0.5)
    assert d.choice == "a" and d.rho == 0.5
    assert d.expected_loss["a"] == pytest.approx(0.5)
    # rho weights the upper expected loss: rho = .25 -> a = .25*.8 + .75*.2 = .35
    d = decide(m3, L, strategy="hurwicz", rho=0.25)
    assert d.expected_loss["a"] == pytest.approx(0.35)
    assert d.expected_loss["b"] == pytest.approx(0.25 * 0.9 + 0.75 * 0.2)


def test_general_loss_by_hand(m3):
    # rows = actions, columns = true class a, b, c
    L = pd.DataFrame([[0, 2, 3], [1, 0, 1], [4, 1, 0]], index=["x", "y", "z"], columns=list(LABELS))
    up = decide(m3, L, strategy="pessimistic").expected_loss
    # x: .2*0 + .1*2 + .3*max(0,2) + .1*max(2,3) + .3*3 = 2.0
    # y: .2*1 + .1*0 + .3*1 + .1*1 + .3*1 = .9
    # z: .2*4 + .1*1 + .3*4 + .1*1 + .3*4 = 3.4
    assert up.to_dict() == pytest.approx({"x": 2.0, "y": 0.9, "z": 3.4})
    lo = decide(m3, L, strategy="optimistic").expected_loss
    # x: .1*2 + .1*2 = .4;  y: .2*1 = .2;  z: .2*4 + .1*1 + .3*1 = 1.2
    assert lo.to_dict() == pytest.approx({"x": 0.4, "y": 0.2, "z": 1.2})
    pg = decide(m3, L, strategy="pignistic").expected_loss
    # BetP = (.45, .4, .15)
    assert pg.to_dict() == pytest.approx({"x": 0.8 + 0.45, "y": 0.45 + 0.15, "z": 1.8 + 0.4})
    assert decide(m3, L, strategy="pessimistic").choice == "y"
    # columns in another order give the same result
    L2 = L[["c", "a", "b"]]
    assert decide(m3, L2, strategy="pessimistic").expected_loss.to_dict() == pytest.approx(up.to_dict())


def test_evclass_example():
    # evclass::decision example: 2 classes, an unknown class, reject .2, unknown action .25
    frame = Frame(["w1", "w2", "unknown"])
    om = frame.labels
    ma = MassArray(
        frame,
        {"w1": [0.9, 0.4, 0.1], "w2": [0.1, 0.6, 0.1], om: [0.0, 0.0, 0.8]},
    )
    L = loss_matrix(frame, reject=0.2, unknown=0.25)
    assert L.index.tolist() == ["w1", "w2", "reject", "unknown"]
    np.testing.assert_allclose(
        L.to_numpy(), [[0, 1, 1], [1, 0, 1], [0.2, 0.2, 0.2], [0.25, 0.25, 0.0]]
    )
    up = decide(ma, L, strategy="pessimistic")
    assert up.choice.tolist() == ["w1", "reject", "reject"]  # "instances 2 and 3 are rejected"
    np.testing.assert_allclose(up.expected_loss.iloc[2], [0.9, 0.9, 0.2, 0.25])
    lo = decide(ma, L, strategy="optimistic")
    assert lo.choice.tolist() == ["w1", "reject", "unknown"]  # "3 is assigned to the unknown class"
    np.testing.assert_allclose(lo.expected_loss.iloc[2], [0.1, 0.1, 0.2, 0.05])
    # evclass integer answers (1-based action numbers) for comparison
    acts = list(L.index)
    assert [acts.index(a) + 1 for a in up.choice] == [1, 3, 3]
    assert [acts.index(a) + 1 for a in lo.choice] == [1, 3, 4]


def test_array_loss_with_action_names_and_default_names(m3):
    arr = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0], [0.3, 0.3, 0.3]])
    d = decide(m3, arr, actions=["a", "b", "c", "reject"], strategy="pessimistic")
    assert d.choice == "reject"
    d0 = decide(m3, arr, strategy="pessimistic")
    assert d0.choice == 3 and list(d0.expected_loss.index) == [0, 1, 2, 3]
    # default loss: 0-1 without reject
    assert decide(m3).expected_loss.index.tolist() == list(LABELS)


def test_aliases_and_result_object(m3):
    assert decide(m3, strategy="pessimistic").strategy == "pessimistic"
    assert decide(m3, strategy="optimistic").strategy == "optimistic"
    with pytest.raises(TypeError, match=r"rule= is now strategy= .*\('upper' is now 'pessimistic'\)"):
        decide(m3, rule="upper")
    d = decide(m3, loss_matrix(LABELS, reject=0.5))
    assert isinstance(d, Decision) and d.rho is None
    assert "choose 'reject'" in repr(d)
    assert d.to_frame()["action"].tolist() == ["reject"]


def test_massarray_decisions_keep_index_and_match_rows():
    rng = np.random.default_rng(1)
    frame = Frame(["a", "b", "c"])
    v = rng.random((12, 8))
    v[:, 0] = 0
    v[rng.random(v.shape) < 0.4] = 0
    v[:, -1] += 0.1
    ma = MassArray(frame, v / v.sum(axis=1, keepdims=True), index=[f"r{i}" for i in range(12)])
    L = loss_matrix(frame, reject=0.4)
    for rule in ("pessimistic", "optimistic", "pignistic", "hurwicz"):
        d = decide(ma, L, strategy=rule, rho=0.3)
        assert d.choice.index.tolist() == list(ma.index)
        assert d.expected_loss.shape == (12, 4)
        assert d.choice.name == "action"
        for i in range(12):
            di = decide(ma[i], L, strategy=rule, rho=0.3)
            assert d.choice.iloc[i] == di.choice
            np.testing.assert_allclose(d.expected_loss.iloc[i].to_numpy(), di.expected_loss.to_numpy(), atol=1e-14)
    out = d.to_frame()
    assert list(out.columns) == ["a", "b", "c", "reject", "action"]
    assert "for 12 mass functions" in repr(d)


def test_binary_calibration_use_case():
    ma = MassArray.from_bel_pl(bel=[0.9, 0.3, 0.05, 0.4], pl=[0.95, 0.9, 0.1, 0.6])
    L = loss_matrix(ma.frame, reject=0.15)
    up = decide(ma, L, strategy="pessimistic")
    # R*(1) = 1 - Bel({1}), R*(0) = 1 - Bel({0}) = Pl({1})
    np.testing.assert_allclose(up.expected_loss[1], 1 - ma.bel(1))
    np.testing.assert_allclose(up.expected_loss[0], ma.pl(1))
    assert up.choice.tolist() == [1, "reject", 0, "reject"]
    lo = decide(ma, L, strategy="optimistic")
    np.testing.assert_allclose(lo.expected_loss[1], 1 - ma.pl(1))
    # row 1: R_*(1) = 1 - .9 = .1 < .15 -> class 1 (the optimist decides where the pessimist rejects)
    assert lo.choice.tolist() == [1, 1, 0, "reject"]
    lo2 = decide(ma, loss_matrix(ma.frame, reject=0.45), strategy="optimistic")
    # row 3: R_*(1) = 1 - .6 = .4 and R_*(0) = 1 - Pl({0}) = Bel({1}) = .4: a tie, the first row (0)
    # wins; the pessimist (R* = .6 for both classes) still rejects
    assert lo2.choice.iloc[3] == 0
    assert decide(ma, loss_matrix(ma.frame, reject=0.45), strategy="pessimistic").choice.iloc[3] == "reject"


# --- properties: definitions and the 0-1 identities ---------------------------------------------
@st.composite
def mass_and_loss(draw):
    k = draw(st.integers(1, 4))
    frame = Frame([f"w{i}" for i in range(k)])
    n = frame.n_subsets
    focal = draw(st.lists(st.integers(1, n - 1), min_size=1, max_size=min(6, n - 1), unique=True))
    w = draw(st.lists(st.floats(0.01, 1.0), min_size=len(focal), max_size=len(focal)))
    v = np.zeros(n)
    v[focal] = w
    m = MassFunction(frame, v / v.sum())
    na = draw(st.integers(1, 4))
    L = np.array(draw(st.lists(st.floats(-2, 5), min_size=na * k, max_size=na * k))).reshape(na, k)
    return m, L


@settings(max_examples=80, deadline=None)
@given(ml=mass_and_loss(), rho=st.floats(0, 1))
def test_property_expected_losses_match_definitions(ml, rho):
    m, L = ml
    md = m.to_dict()
    for rule in ("pessimistic", "optimistic", "pignistic", "hurwicz"):
        d = decide(m, L, strategy=rule, rho=rho)
        ref = expected_losses_def(md, L, m.frame.labels, rule, rho)
        np.testing.assert_allclose(d.expected_loss.to_numpy(), ref, atol=1e-12)
        # the choice is minimal, and no earlier action ties with it (first in row order wins)
        c = d.choice
        assert ref[c] <= ref.min() + 1e-9
        assert np.all(ref[:c] > ref.min() + 1e-14)
    up = decide(m, L, strategy="pessimistic").expected_loss.to_numpy()
    lo = decide(m, L, strategy="optimistic").expected_loss.to_numpy()
    pg = decide(m, L, strategy="pignistic").expected_loss.to_numpy()
    assert np.all(lo <= pg + 1e-12) and np.all(pg <= up + 1e-12)


@settings(max_examples=80, deadline=None)
@given(ml=mass_and_loss())
def test_property_zero_one_identities(ml):
    m, _ = ml
    up = decide(m, strategy="pessimistic").expected_loss
    lo = decide(m, strategy="optimistic").expected_loss
    for w in m.frame.labels:
        assert up[w] == pytest.approx(1 - m.bel(w), abs=1e-12)  # R*(w) = 1 - Bel({w})
        assert lo[w] == pytest.approx(1 - m.pl(w), abs=1e-12)  # R_*(w) = 1 - Pl({w})


def test_reject_cost_is_constant_under_every_rule(m3):
    L = loss_matrix(LABELS, reject=0.37)
    for rule in ("pessimistic", "optimistic", "pignistic", "hurwicz"):
        assert decide(m3, L, strategy=rule).expected_loss["reject"] == pytest.approx(0.37)


def test_without_reject_both_strategies_pick_highest_belief_on_simple_support():
    # Minary et al. 2019, sec. 5.2: focal sets singletons and the frame, 0-1 costs, no reject
    for p in itertools.product([0.1, 0.3, 0.5], repeat=2):
        m = MassFunction([0, 1], {0: p[0], 1: p[1], (0, 1): 1 - sum(p)})
        best = 0 if p[0] >= p[1] else 1
        assert decide(m, strategy="pessimistic").choice == best
        assert decide(m, strategy="optimistic").choice == best


# --- bad input ----------------------------------------------------------------------------------
def test_wrong_loss_shape(m3):
    with pytest.raises(ValueError, match=r"shape \(3, 2\).*needs shape \(n_actions, 3\).*pass L.T"):
        decide(m3, np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        decide(m3, np.zeros(3))


def test_wrong_loss_columns(m3):
    L = pd.DataFrame(np.eye(3), columns=["a", "b", "d"])
    with pytest.raises(ValueError, match=r"columns must be the frame's labels.*missing \['c'\], unexpected \['d'\]"):
        decide(m3, L)


def test_bad_actions_rule_rho_and_costs(m3):
    with pytest.raises(ValueError, match=r"actions has 2 names but the loss matrix has 3 rows"):
        decide(m3, np.eye(3), actions=["x", "y"])
    with pytest.raises(ValueError, match=r"Action names must be distinct"):
        decide(m3, np.eye(3), actions=["x", "x", "y"])
    with pytest.raises(ValueError, match=r"strategy must be one of .*got 'max'"):
        decide(m3, strategy="max")
    with pytest.raises(ValueError, match=r"rho must lie in \[0, 1\]"):
        decide(m3, strategy="hurwicz", rho=1.5)
    with pytest.raises(ValueError, match=r"NaN or infinite costs"):
        decide(m3, np.array([[0, np.nan, 1], [1, 0, 1], [1, 1, 0]]))
    with pytest.raises(ValueError, match=r"actions= is for array losses"):
        decide(m3, loss_matrix(LABELS), actions=["x", "y", "z"])
    with pytest.raises(TypeError, match=r"decide needs a MassFunction or MassArray"):
        decide({"a": 1.0})


def test_unnormalised_mass_rejected():
    m = MassFunction([0, 1], {(): 0.3, 1: 0.7}, unnormalized=True)
    with pytest.raises(ValueError, match=r"normalised mass functions.*call .normalize\(\) first"):
        decide(m)


def test_loss_matrix_bad_input():
    with pytest.raises(ValueError, match=r"no label 'unknown'.*Add it to the frame"):
        loss_matrix([0, 1], unknown=0.3)
    with pytest.raises(ValueError, match=r"clashes with the reject action"):
        loss_matrix(["reject", "ok"], reject=0.2)
    with pytest.raises(TypeError, match=r"reject must be a number"):
        loss_matrix([0, 1], reject="high")
    with pytest.raises(ValueError, match=r"reject must be a finite cost"):
        loss_matrix([0, 1], reject=np.inf)
    L = loss_matrix(["x", "y", "other"], unknown=0.1, unknown_label="other")
    assert L.index.tolist() == ["x", "y", "other"]
    assert L.loc["other"].tolist() == [0.1, 0.1, 0.0]


@pytest.mark.parametrize("dense", [False, True])
def test_sparse_and_dense_routes_match_definitions(dense):
    # few focal sets on a large frame use the focal-set route, many use the all-subsets route
    rng = np.random.default_rng(12)
    frame = Frame([f"w{i}" for i in range(7)])
    v = rng.random(frame.n_subsets) if dense else np.zeros(frame.n_subsets)
    if not dense:
        v[[1, 6, 40, 127]] = rng.random(4)
    v[0] = 0.0
    m = MassFunction(frame, v / v.sum())
    L = rng.normal(size=(5, 7))
    md = m.to_dict()
    for rule in ("pessimistic", "optimistic", "hurwicz"):
        d = decide(m, L, strategy=rule, rho=0.3)
        ref = expected_losses_def(md, L, frame.labels, rule, 0.3)
        np.testing.assert_allclose(d.expected_loss.to_numpy(), ref, atol=1e-12)
