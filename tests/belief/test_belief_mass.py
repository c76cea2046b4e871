"""MassFunction: every method against plain definitions, a worked example, properties, bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.belief import Frame, MassFunction

LABELS = ("a", "b", "c")


def subsets(labels):
    return [frozenset(c) for r in range(len(labels) + 1) for c in itertools.combinations(labels, r)]


# --- plain definitions, written over {frozenset: mass} dictionaries -----------------------------
def bel_def(md, A):
    return sum(v for B, v in md.items() if B and B <= A)


def pl_def(md, A):
    return sum(v for B, v in md.items() if B & A)


def q_def(md, A):
    return sum(v for B, v in md.items() if B >= A)


def betp_def(md, w):
    return sum(v / len(B) for B, v in md.items() if w in B) / (1 - md.get(frozenset(), 0.0))


def random_md(rng, labels, *, n_focal=None, empty=0.0):
    subs = subsets(labels)[1:]
    n_focal = n_focal or rng.integers(1, len(subs) + 1)
    chosen = rng.choice(len(subs), size=n_focal, replace=False)
    w = rng.random(n_focal) + 0.05
    w = w / w.sum() * (1 - empty)
    md = {subs[i]: float(x) for i, x in zip(chosen, w)}
    if empty:
        md[frozenset()] = empty
    return md


@st.composite
def mass_functions(draw, max_k=4, frame=None):
    if frame is None:
        k = draw(st.integers(1, max_k))
        frame = Frame([f"w{i}" for i in range(k)])
    n = frame.n_subsets
    focal = draw(st.lists(st.integers(1, n - 1), min_size=1, max_size=min(6, n - 1), unique=True))
    w = draw(st.lists(st.floats(0.01, 1.0), min_size=len(focal), max_size=len(focal)))
    v = np.zeros(n)
    v[focal] = w
    return MassFunction(frame, v / v.sum())


# --- worked example on {a, b, c}, computed by hand -----------------------------------------------
# m({a}) = .2, m({b}) = .1, m({a,b}) = .3, m({b,c}) = .1, m(Omega) = .3
@pytest.fixture
def m3():
    return MassFunction(LABELS, {"a": 0.2, "b": 0.1, ("a", "b"): 0.3, ("b", "c"): 0.1, LABELS: 0.3})


def test_worked_example_set_functions(m3):
    assert m3.bel(["a", "b"]) == pytest.approx(0.6)  # .2 + .1 + .3
    assert m3.bel("c") == pytest.approx(0.0)
    assert m3.bel(LABELS) == pytest.approx(1.0)
    assert m3.bel(()) == 0.0
    assert m3.pl("a") == pytest.approx(0.8)  # .2 + .3 + .3
    assert m3.pl("b") == pytest.approx(0.8)  # .1 + .3 + .1 + .3
    assert m3.pl("c") == pytest.approx(0.4)  # .1 + .3
    assert m3.pl(["a", "c"]) == pytest.approx(0.9)  # 1 - bel({b})
    assert m3.q(["a", "b"]) == pytest.approx(0.6)  # .3 + .3
    assert m3.q("b") == pytest.approx(0.8)
    assert m3.q(()) == pytest.approx(1.0)
    assert m3["a"] == pytest.approx(0.2)
    assert m3[{"c"}] == 0.0


def test_worked_example_transforms(m3):
    assert m3.contour().to_dict() == pytest.approx({"a": 0.8, "b": 0.8, "c": 0.4})
    # BetP(a) = .2 + .3/2 + .3/3, BetP(b) = .1 + .3/2 + .1/2 + .3/3, BetP(c) = .1/2 + .3/3
    assert m3.betp().to_dict() == pytest.approx({"a": 0.45, "b": 0.40, "c": 0.15})
    assert m3.plausibility_transform().to_dict() == pytest.approx({"a": 0.4, "b": 0.4, "c": 0.2})
    assert m3.nonspecificity() == pytest.approx(0.3 + 0.1 + 0.3 * math.log2(3))
    assert m3.core == frozenset(LABELS)
    assert not m3.is_consonant
    assert not m3.is_bayesian
    assert m3.is_normalized
    assert m3.ignorance == pytest.approx(0.3)
    assert m3.focal_sets == [
        frozenset("a"),
        frozenset("b"),
        frozenset("ab"),
        frozenset("bc"),
        frozenset("abc"),
    ]


def test_worked_example_discount(m3):
    d = m3.discount(0.8)
    expect = {"a": 0.16, "b": 0.08, ("a", "b"): 0.24, ("b", "c"): 0.08, LABELS: 0.44}
    for A, v in expect.items():
        assert d[A] == pytest.approx(v)


def test_series_dict_table(m3):
    assert m3.to_dict()[frozenset({"a", "b"})] == pytest.approx(0.3)
    s = m3.to_series()
    assert list(s.index) == ["{a}", "{b}", "{a, b}", "{b, c}", "{a, b, c}"]
    t = m3.table()
    assert list(t.columns) == ["m", "bel", "pl", "q"]
    assert t.loc["{a, b}", "bel"] == pytest.approx(0.6)
    assert t.loc["{b, c}", "pl"] == pytest.approx(0.1 + 0.1 + 0.3 + 0.3)
    assert len(m3.table(all_subsets=True)) == 8


def test_repr_and_html(m3):
    text = repr(m3)
    assert text.splitlines()[0] == "MassFunction on {a, b, c}"
    assert "  {a, b}     0.3" in text
    m = MassFunction(["<b>", "x"], {"<b>": 1.0})
    h = m._repr_html_()
    assert "{&lt;b&gt;}" in h and "{<b>}" not in h
    assert "<table>" in h and "<th>bel</th>" in h


def test_repr_truncates_many_focal_sets():
    f = Frame(range(6))
    m = MassFunction(f, np.r_[0.0, np.full(63, 1 / 63)])
    assert "... and 43 more focal sets" in repr(m)
    assert "43 more focal sets" in m._repr_html_()


# --- methods against definitions on random mass functions ---------------------------------------
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_methods_match_definitions_random(k):
    rng = np.random.default_rng(100 + k)
    labels = [f"w{i}" for i in range(k)]
    for trial in range(8):
        empty = 0.2 if trial % 4 == 3 else 0.0
        md = random_md(rng, labels, empty=empty)
        m = MassFunction(labels, md, unnormalized=empty > 0)
        for A in subsets(labels):
            assert m.bel(A) == pytest.approx(bel_def(md, A), abs=1e-12)
            assert m.pl(A) == pytest.approx(pl_def(md, A), abs=1e-12)
            assert m.q(A) == pytest.approx(q_def(md, A), abs=1e-12)
        f = m.frame
        for A in subsets(labels):
            i = f.mask(A)
            assert m.bel_array()[i] == pytest.approx(bel_def(md, A), abs=1e-12)
            assert m.pl_array()[i] == pytest.approx(pl_def(md, A), abs=1e-12)
            assert m.q_array()[i] == pytest.approx(q_def(md, A), abs=1e-12)
            assert m.b_array()[i] == pytest.approx(bel_def(md, A) + empty, abs=1e-12)
        for w in labels:
            assert m.contour()[w] == pytest.approx(pl_def(md, frozenset([w])), abs=1e-12)
            assert m.betp()[w] == pytest.approx(betp_def(md, w), abs=1e-12)
        pls = {w: pl_def(md, frozenset([w])) for w in labels}
        for w in labels:
            assert m.plausibility_transform()[w] == pytest.approx(pls[w] / sum(pls.values()))
        ns = sum(v * math.log2(len(B)) for B, v in md.items() if B)
        assert m.nonspecificity() == pytest.approx(ns, abs=1e-12)
        core = frozenset().union(*[B for B, v in md.items() if v > 0])
        assert m.core == core
        chain = sorted((B for B in md if B), key=len)
        assert m.is_consonant == all(x <= y for x, y in zip(chain, chain[1:]))


def test_normalize_definition():
    m = MassFunction([0, 1], {(): 0.2, 1: 0.6, (0, 1): 0.2}, unnormalized=True)
    n = m.normalize()
    assert n[()] == 0.0
    assert n[1] == pytest.approx(0.75)
    assert n[(0, 1)] == pytest.approx(0.25)
    assert not m.is_normalized and n.is_normalized
    assert m.betp()[1] == pytest.approx((0.6 + 0.1) / 0.8)


def test_consonant_and_bayesian_flags():
    f = Frame(["a", "b", "c"])
    assert MassFunction(f, {"a": 0.5, ("a", "b"): 0.2, ("a", "b", "c"): 0.3}).is_consonant
    assert MassFunction(f, {"a": 0.5, "b": 0.5}).is_bayesian
    assert not MassFunction(f, {"a": 0.5, "b": 0.5}).is_consonant
    assert MassFunction.vacuous(f).is_consonant


# --- constructors -----------------------------------------------------------------------------
def test_vacuous_categorical_simple_support():
    f = Frame(["a", "b", "c"])
    v = MassFunction.vacuous(f)
    assert v.focal_sets == [frozenset(LABELS)] and v[LABELS] == 1.0
    c = MassFunction.categorical(f, ["a", "c"])
    assert c.focal_sets == [frozenset({"a", "c"})]
    s = MassFunction.simple_support(f, "b", 0.25)  # Denoeux's A^w: m(A) = 1 - w, m(Omega) = w
    assert s["b"] == pytest.approx(0.75) and s[LABELS] == pytest.approx(0.25)
    assert MassFunction.simple_support(f, LABELS, 0.4)[LABELS] == pytest.approx(1.0)
    assert MassFunction.simple_support(f, "a", 1.0).focal_sets == [frozenset(LABELS)]


def test_from_bel_pl_q_worked_example(m3):
    f = m3.frame
    bel = {A: bel_def(m3.to_dict(), A) for A in f.subsets(nonempty=True)}
    pl = {A: pl_def(m3.to_dict(), A) for A in f.subsets(nonempty=True)}
    q = {A: q_def(m3.to_dict(), A) for A in f.subsets(nonempty=True)}
    for m in (MassFunction.from_bel(f, bel), MassFunction.from_pl(f, pl), MassFunction.from_q(f, q)):
        np.testing.assert_allclose(m.values, m3.values, atol=1e-12)
        assert m.focal_sets == m3.focal_sets


def test_from_bel_unnormalized():
    # bel(Omega) = .9 means m(empty) = .1
    bel = [0.0, 0.4, 0.2, 0.9]
    with pytest.raises(ValueError, match=r"mass 0.1 on the empty set.*unnormalized=True"):
        MassFunction.from_bel([0, 1], bel)
    m = MassFunction.from_bel([0, 1], bel, unnormalized=True)
    np.testing.assert_allclose(m.values, [0.1, 0.4, 0.2, 0.3])


def test_input_forms_agree():
    f = Frame(["a", "b", "c"])
    d1 = MassFunction(f, {"a": 0.5, frozenset({"b", "c"}): 0.5})
    d2 = MassFunction(["a", "b", "c"], {("a",): 0.5, ("c", "b"): 0.5})
    d3 = MassFunction(f, [0, 0.5, 0, 0, 0, 0, 0.5, 0])
    d4 = MassFunction(f, pd.Series([0.5, 0.5], index=pd.Index(["a", frozenset("bc")], dtype=object)))
    for d in (d2, d3, d4):
        np.testing.assert_array_equal(d.values, d1.values)
    assert not d1.values.flags.writeable


def test_round_off_negative_is_zero_and_small_sum_error_accepted():
    m = MassFunction([0, 1], {0: -1e-14, 1: 0.5, (0, 1): 0.5 + 1e-10})
    assert m[0] == 0.0


# --- properties -------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(m=mass_functions())
def test_property_bel_pl_duality(m):
    f = m.frame
    for A in f.subsets():
        assert m.bel(A) <= m.pl(A) + 1e-12
        assert m.bel(A) + m.pl(f.complement(A)) == pytest.approx(1.0, abs=1e-12)
        assert 0.0 <= m.q(A) <= 1.0 + 1e-12
    assert m.betp().sum() == pytest.approx(1.0)
    assert m.plausibility_transform().sum() == pytest.approx(1.0)
    # BetP lies between Bel and Pl on singletons
    for w in f.labels:
        assert m.bel(w) - 1e-12 <= m.betp()[w] <= m.pl(w) + 1e-12


@settings(max_examples=60, deadline=None)
@given(m=mass_functions(), alpha=st.floats(0.0, 1.0))
def test_property_discount(m, alpha):
    np.testing.assert_allclose(m.discount(1.0).values, m.values, atol=1e-15)
    np.testing.assert_allclose(m.discount(0.0).values, MassFunction.vacuous(m.frame).values)
    d = m.discount(alpha)
    assert d.values.sum() == pytest.approx(1.0)
    # discounting moves plausibility up and belief down
    for A in m.frame.subsets(nonempty=True):
        assert d.pl(A) >= m.pl(A) - 1e-12
        assert d.bel(A) <= m.bel(A) + 1e-12


@settings(max_examples=60, deadline=None)
@given(m=mass_functions())
def test_property_from_bel_pl_q_round_trip(m):
    f = m.frame
    np.testing.assert_allclose(MassFunction.from_bel(f, m.bel_array()).values, m.values, atol=1e-12)
    np.testing.assert_allclose(MassFunction.from_pl(f, m.pl_array()).values, m.values, atol=1e-12)
    np.testing.assert_allclose(MassFunction.from_q(f, m.q_array()).values, m.values, atol=1e-12)


# --- bad input --------------------------------------------------------------------------------
def test_negative_mass():
    with pytest.raises(ValueError, match=r"negative values.*-0.1 on \{a\}.*non-negative"):
        MassFunction(LABELS, {"a": -0.1, "b": 1.1})


def test_nan_mass():
    with pytest.raises(ValueError, match=r"contain NaN values \(subsets \{a\}\)"):
        MassFunction(LABELS, {"a": float("nan"), "b": 1.0})
    with pytest.raises(ValueError, match=r"infinite"):
        MassFunction(LABELS, {"a": float("inf"), "b": 1.0})


def test_not_summing_to_one():
    with pytest.raises(ValueError, match=r"sum to 0.9, not 1 .*ignorance"):
        MassFunction(LABELS, {"a": 0.5, "b": 0.4})


def test_label_outside_frame():
    with pytest.raises(ValueError, match=r"'d' is not a label of the frame \{a, b, c\}"):
        MassFunction(LABELS, {"d": 1.0})


def test_mass_on_empty_set_without_flag():
    with pytest.raises(ValueError, match=r"mass 0.2 on the empty set.*unnormalized=True"):
        MassFunction(LABELS, {(): 0.2, "a": 0.8})
    assert MassFunction(LABELS, {(): 0.2, "a": 0.8}, unnormalized=True)[()] == pytest.approx(0.2)


def test_subset_given_twice():
    with pytest.raises(ValueError, match=r"subset \{a\} is given twice"):
        MassFunction(LABELS, {"a": 0.5, ("a",): 0.5})


def test_wrong_array_length():
    with pytest.raises(ValueError, match=r"shape \(3,\).*needs 8 values"):
        MassFunction(LABELS, [0.2, 0.3, 0.5])


def test_non_numeric_mass():
    with pytest.raises(TypeError, match=r"must be numbers; got 'x' for \{a\}"):
        MassFunction(LABELS, {"a": "x"})


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match=r"weight w .* must lie in \[0, 1\]"):
        MassFunction.simple_support(LABELS, "a", 1.5)
    with pytest.raises(ValueError, match=r"non-empty subset"):
        MassFunction.categorical(LABELS, ())
    with pytest.raises(ValueError, match=r"non-empty subset"):
        MassFunction.simple_support(LABELS, (), 0.5)
    with pytest.raises(ValueError, match=r"alpha .* must lie in \[0, 1\]"):
        MassFunction.vacuous(LABELS).discount(1.2)
    with pytest.raises(ValueError, match=r"alpha must be a scalar"):
        MassFunction.vacuous(LABELS).discount([0.5, 0.5])


def test_from_bel_rejects_non_belief_functions():
    # not superadditive: bel({0}) + bel({1}) > bel({0, 1}), so m({0, 1}) = -0.3
    with pytest.raises(ValueError, match=r"not the belief function .* mass -0.3 < 0 to \{0, 1\}"):
        MassFunction.from_bel([0, 1], [0.0, 0.8, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"every non-empty subset; missing 1 of them, e.g. \{0, 1\}"):
        MassFunction.from_pl([0, 1], {0: 0.5, 1: 0.5})
    with pytest.raises(ValueError, match=r"bel array has shape \(3,\)"):
        MassFunction.from_bel([0, 1], [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"NaN"):
        MassFunction.from_q([0, 1], [1.0, np.nan, 0.5, 0.2])


def test_total_conflict_transforms():
    m = MassFunction([0, 1], {(): 1.0}, unnormalized=True)
    with pytest.raises(ValueError, match=r"pignistic transform is undefined .*m\(empty\) = 1\)\. "):
        m.betp()
    with pytest.raises(ValueError, match=r"Cannot normalise"):
        m.normalize()
    with pytest.raises(ValueError, match=r"plausibility transform is undefined"):
        m.plausibility_transform()
