"""Combination rules against brute-force sums over pairs of focal sets, closed forms, properties."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evstat.belief import Frame, MassArray, MassFunction, TotalConflictError, combine, rules

LABELS = ("a", "b", "c")


# --- brute-force definitions over {frozenset: mass} ---------------------------------------------
def conj_def(md1, md2):
    out = defaultdict(float)
    for B, v in md1.items():
        for C, w in md2.items():
            out[B & C] += v * w
    return dict(out)


def disj_def(md1, md2):
    out = defaultdict(float)
    for B, v in md1.items():
        for C, w in md2.items():
            out[B | C] += v * w
    return dict(out)


def dempster_def(md1, md2):
    c = conj_def(md1, md2)
    k = c.pop(frozenset(), 0.0)
    return {A: v / (1 - k) for A, v in c.items()}


def yager_def(md1, md2, omega):
    c = conj_def(md1, md2)
    k = c.pop(frozenset(), 0.0)
    c[omega] = c.get(omega, 0.0) + k
    return c


def dp_def(md1, md2):
    out = defaultdict(float)
    for B, v in md1.items():
        for C, w in md2.items():
            out[B & C if B & C else B | C] += v * w
    return dict(out)


def avg_def(md1, md2):
    out = defaultdict(float)
    for md in (md1, md2):
        for A, v in md.items():
            out[A] += v / 2
    return dict(out)


def as_vector(frame, md):
    v = np.zeros(frame.n_subsets)
    for A, x in md.items():
        v[frame.mask(A)] += x
    return v


def random_md(rng, frame, *, dense=False, empty=0.0):
    subs = frame.subsets(nonempty=True)
    n_focal = len(subs) if dense else int(rng.integers(1, min(5, len(subs)) + 1))
    chosen = rng.choice(len(subs), size=n_focal, replace=False)
    w = rng.random(n_focal) + 0.05
    w = w / w.sum() * (1 - empty)
    md = {subs[i]: float(x) for i, x in zip(chosen, w)}
    if empty:
        md[frozenset()] = empty
    return md


def reference(rule, md1, md2, frame):
    omega = frozenset(frame.labels)
    return {
        "conjunctive": lambda: conj_def(md1, md2),
        "dempster": lambda: dempster_def(md1, md2),
        "disjunctive": lambda: disj_def(md1, md2),
        "yager": lambda: yager_def(md1, md2, omega),
        "dubois_prade": lambda: dp_def(md1, md2),
        "average": lambda: avg_def(md1, md2),
    }[rule]()


@st.composite
def mass_functions(draw, frame):
    n = frame.n_subsets
    focal = draw(st.lists(st.integers(1, n - 1), min_size=1, max_size=min(5, n - 1), unique=True))
    w = draw(st.lists(st.floats(0.01, 1.0), min_size=len(focal), max_size=len(focal)))
    v = np.zeros(n)
    v[focal] = w
    return MassFunction(frame, v / v.sum())


frames = st.integers(1, 4).map(lambda k: Frame([f"w{i}" for i in range(k)]))


# --- worked example on {a, b, c}, by hand ------------------------------------------------------
@pytest.fixture
def pair():
    m1 = MassFunction(LABELS, {"a": 0.2, "b": 0.1, ("a", "b"): 0.3, ("b", "c"): 0.1, LABELS: 0.3})
    m2 = MassFunction(LABELS, {"c": 0.5, LABELS: 0.5})
    return m1, m2


def check(m, expected):
    for A, v in expected.items():
        assert m[A] == pytest.approx(v, abs=1e-14), A
    assert m.values.sum() == pytest.approx(1.0)
    assert len(m.focal_sets) == len(expected)


def test_worked_example_all_rules(pair):
    m1, m2 = pair
    # conjunctive: conflicts {a}.{c} = .1, {b}.{c} = .05, {a,b}.{c} = .15 -> K = .3
    check(
        combine(m1, m2, rule="conjunctive"),
        {(): 0.3, "c": 0.2, "a": 0.1, "b": 0.05, ("a", "b"): 0.15, ("b", "c"): 0.05, LABELS: 0.15},
    )
    check(
        combine(m1, m2, rule="dempster"),
        {"c": 2 / 7, "a": 1 / 7, "b": 1 / 14, ("a", "b"): 3 / 14, ("b", "c"): 1 / 14, LABELS: 3 / 14},
    )
    check(
        combine(m1, m2, rule="yager"),
        {"c": 0.2, "a": 0.1, "b": 0.05, ("a", "b"): 0.15, ("b", "c"): 0.05, LABELS: 0.45},
    )
    check(
        combine(m1, m2, rule="dubois_prade"),
        {"c": 0.2, "a": 0.1, "b": 0.05, ("a", "b"): 0.15, ("b", "c"): 0.1, ("a", "c"): 0.1, LABELS: 0.3},
    )
    check(combine(m1, m2, rule="disjunctive"), {("a", "c"): 0.1, ("b", "c"): 0.1, LABELS: 0.8})
    check(
        combine(m1, m2, rule="average"),
        {"a": 0.1, "b": 0.05, ("a", "b"): 0.15, ("b", "c"): 0.05, "c": 0.25, LABELS: 0.4},
    )
    assert m1.conflict(m2) == pytest.approx(0.3)
    # method form
    np.testing.assert_allclose(m1.combine(m2).values, combine(m1, m2).values)


def test_binary_dempster_closed_form():
    rng = np.random.default_rng(11)
    for _ in range(50):
        p = rng.dirichlet([1, 1, 1])
        r = rng.dirichlet([1, 1, 1])
        m1 = MassFunction([0, 1], {0: p[0], 1: p[1], (0, 1): p[2]})
        m2 = MassFunction([0, 1], {0: r[0], 1: r[1], (0, 1): r[2]})
        K = m1[0] * m2[1] + m1[1] * m2[0]
        m = combine(m1, m2)
        assert m[1] == pytest.approx((m1[1] * m2[1] + m1[1] * m2[(0, 1)] + m1[(0, 1)] * m2[1]) / (1 - K))
        assert m[0] == pytest.approx((m1[0] * m2[0] + m1[0] * m2[(0, 1)] + m1[(0, 1)] * m2[0]) / (1 - K))
        assert m[(0, 1)] == pytest.approx(m1[(0, 1)] * m2[(0, 1)] / (1 - K))
        assert m1.conflict(m2) == pytest.approx(K)


@pytest.mark.parametrize("rule", ["conjunctive", "dempster", "disjunctive", "yager", "dubois_prade", "average"])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_rules_match_definitions(rule, k):
    rng = np.random.default_rng(1000 * k + len(rule))
    frame = Frame([f"w{i}" for i in range(k)])
    for trial in range(6):
        md1 = random_md(rng, frame, dense=trial % 3 == 0)
        md2 = random_md(rng, frame, dense=trial % 2 == 0)
        ref = reference(rule, md1, md2, frame)
        if rule == "dempster" and conj_def(md1, md2).get(frozenset(), 0.0) > 1 - 1e-9:
            continue
        expect = as_vector(frame, ref)
        m = combine(MassFunction(frame, md1), MassFunction(frame, md2), rule=rule)
        np.testing.assert_allclose(m.values, expect, atol=1e-13)
        if rule != "average":
            kernel = rules.KERNELS[rule]
            a, b = as_vector(frame, md1), as_vector(frame, md2)
            for method in ("pairs", "moebius"):
                np.testing.assert_allclose(kernel(a, b, method=method), expect, atol=1e-13)


@pytest.mark.parametrize("rule", ["conjunctive", "dempster", "disjunctive", "yager"])
def test_unnormalised_inputs_match_definitions(rule):
    rng = np.random.default_rng(5)
    frame = Frame(LABELS)
    for _ in range(5):
        md1 = random_md(rng, frame, empty=0.1)
        md2 = random_md(rng, frame, empty=0.2)
        expect = as_vector(frame, reference(rule, md1, md2, frame))
        m = combine(MassFunction(frame, md1, unnormalized=True), MassFunction(frame, md2, unnormalized=True), rule=rule)
        np.testing.assert_allclose(m.values, expect, atol=1e-13)


@pytest.mark.parametrize("method", ["pairs", "moebius"])
def test_batch_kernels_match_rowwise(method):
    rng = np.random.default_rng(8)
    frame = Frame(["p", "q", "r", "s"])
    a = np.stack([as_vector(frame, random_md(rng, frame, dense=i % 2 == 0)) for i in range(9)])
    b = np.stack([as_vector(frame, random_md(rng, frame)) for i in range(9)])
    for name, kernel in rules.KERNELS.items():
        out = kernel(a, b, method=method)
        for i in range(9):
            md1 = {frame.subset(j): a[i, j] for j in range(16) if a[i, j]}
            md2 = {frame.subset(j): b[i, j] for j in range(16) if b[i, j]}
            np.testing.assert_allclose(out[i], as_vector(frame, reference(name, md1, md2, frame)), atol=1e-13)


def test_binary_fast_path_matches_general_path():
    rng = np.random.default_rng(2)
    n = 2000
    a = np.zeros((n, 4))
    b = np.zeros((n, 4))
    a[:, 1:] = rng.dirichlet([0.5, 0.5, 0.5], size=n)
    b[:, 1:] = rng.dirichlet([0.5, 0.5, 0.5], size=n)
    a[:5, 1:] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.5, 0.5, 0], [0, 0.5, 0.5]]
    b[:5, 1:] = [[0, 0, 1], [0, 1, 0], [0, 0, 1], [0, 0, 1], [1, 0, 0]]
    for name, kernel in rules.KERNELS.items():
        fast = kernel(a, b)
        for method in ("pairs", "moebius"):
            np.testing.assert_allclose(fast, kernel(a, b, method=method), atol=1e-14, err_msg=name)


def test_n_ary_combination():
    rng = np.random.default_rng(4)
    frame = Frame(LABELS)
    ms = [MassFunction(frame, random_md(rng, frame, dense=True)) for _ in range(4)]
    # associative rules: fold in any order
    for rule in ("dempster", "conjunctive", "disjunctive"):
        left = combine(combine(combine(ms[0], ms[1], rule=rule), ms[2], rule=rule), ms[3], rule=rule)
        np.testing.assert_allclose(combine(*ms, rule=rule).values, left.values, atol=1e-13)
    # non-associative rules: documented left-to-right fold
    for rule in ("yager", "dubois_prade"):
        left = combine(combine(ms[0], ms[1], rule=rule), ms[2], rule=rule)
        np.testing.assert_allclose(combine(*ms[:3], rule=rule).values, left.values, atol=1e-13)
    np.testing.assert_allclose(
        combine(*ms, rule="average").values, np.mean([m.values for m in ms], axis=0), atol=1e-15
    )
    assert combine(ms[0]).values.tolist() == ms[0].values.tolist()


def test_yager_is_not_associative_example():
    f = Frame([0, 1])
    m1 = MassFunction(f, {0: 1.0})
    m2 = MassFunction(f, {1: 1.0})
    m3 = MassFunction(f, {1: 1.0})
    assert combine(m1, m2, m3, rule="yager")[1] == pytest.approx(1.0)  # Omega, then {1}
    assert combine(m1, combine(m2, m3, rule="yager"), rule="yager")[(0, 1)] == pytest.approx(1.0)


# --- properties -------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(data=st.data(), frame=frames)
def test_property_commutative_and_sum_to_one(data, frame):
    m1 = data.draw(mass_functions(frame))
    m2 = data.draw(mass_functions(frame))
    for rule in rules.RULES:
        if rule == "cautious" and min(m1.values[-1], m2.values[-1]) <= 0.0:
            with pytest.raises(ValueError, match="nondogmatic"):
                combine(m1, m2, rule=rule)
            continue
        if rule == "cautious" and m1.conflict(m2) > 1 - 1e-9:
            continue
        if rule == "dempster" and m1.conflict(m2) > 1 - 1e-9:
            with pytest.raises(ValueError, match="total conflict"):
                combine(m1, m2, rule=rule)
            continue
        ab = combine(m1, m2, rule=rule)
        ba = combine(m2, m1, rule=rule)
        np.testing.assert_allclose(ab.values, ba.values, atol=1e-13)
        assert ab.values.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(ab.values >= 0)
        if rule != "conjunctive":
            assert ab[()] == 0.0


@settings(max_examples=60, deadline=None)
@given(data=st.data(), frame=frames)
def test_property_dempster_associative(data, frame):
    m1, m2, m3 = (data.draw(mass_functions(frame)) for _ in range(3))
    assume(combine(m1, m2, m3, rule="conjunctive")[()] < 1 - 1e-6)
    assume(m1.conflict(m2) < 1 - 1e-6 and m2.conflict(m3) < 1 - 1e-6)
    left = combine(combine(m1, m2), m3)
    right = combine(m1, combine(m2, m3))
    np.testing.assert_allclose(left.values, right.values, atol=1e-10)
    for rule in ("conjunctive", "disjunctive"):
        left = combine(combine(m1, m2, rule=rule), m3, rule=rule)
        right = combine(m1, combine(m2, m3, rule=rule), rule=rule)
        np.testing.assert_allclose(left.values, right.values, atol=1e-13)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), frame=frames)
def test_property_vacuous_is_neutral(data, frame):
    m = data.draw(mass_functions(frame))
    v = MassFunction.vacuous(frame)
    for rule in ("dempster", "conjunctive"):
        np.testing.assert_allclose(combine(m, v, rule=rule).values, m.values, atol=1e-14)
        np.testing.assert_allclose(combine(v, m, rule=rule).values, m.values, atol=1e-14)
    # and absorbing for the disjunctive rule
    np.testing.assert_allclose(combine(m, v, rule="disjunctive").values, v.values, atol=1e-14)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), frame=frames)
def test_property_dempster_equals_normalised_conjunctive(data, frame):
    m1 = data.draw(mass_functions(frame))
    m2 = data.draw(mass_functions(frame))
    conj = combine(m1, m2, rule="conjunctive")
    assume(conj[()] < 1 - 1e-6)
    np.testing.assert_allclose(combine(m1, m2).values, conj.normalize().values, atol=1e-13)
    # commonality of the conjunctive combination is the product of commonalities
    np.testing.assert_allclose(conj.q_array(), m1.q_array() * m2.q_array(), atol=1e-13)
    # implicability of the disjunctive combination is the product of implicabilities
    disj = combine(m1, m2, rule="disjunctive")
    np.testing.assert_allclose(disj.b_array(), m1.b_array() * m2.b_array(), atol=1e-13)


# --- errors -----------------------------------------------------------------------------------
def test_total_conflict_raises_clear_error():
    f = Frame([0, 1])
    m1 = MassFunction(f, {0: 1.0})
    m2 = MassFunction(f, {1: 1.0})
    with pytest.raises(ValueError, match=r"total conflict \(K = 1.*rule='conjunctive'"):
        combine(m1, m2)
    with pytest.raises(TotalConflictError):
        m1.combine(m2)
    assert combine(m1, m2, rule="conjunctive")[()] == 1.0
    assert combine(m1, m2, rule="yager")[(0, 1)] == 1.0
    g = Frame(LABELS)
    with pytest.raises(ValueError, match="total conflict"):
        combine(MassFunction(g, {("a", "b"): 1.0}), MassFunction(g, {"c": 1.0}))


def test_total_conflict_in_batch_names_rows():
    a = MassArray.from_binary(m0=[0.5, 1.0, 0.0], m1=[0.5, 0.0, 1.0], m01=[0.0, 0.0, 0.0], index=["x", "y", "z"])
    b = MassArray.from_binary(m0=[0.5, 0.0, 1.0], m1=[0.5, 1.0, 0.0], m01=[0.0, 0.0, 0.0], index=["x", "y", "z"])
    with pytest.raises(ValueError, match=r"undefined in rows 1 \(index 'y'\), 2 \(index 'z'\) \(2 of 3\)") as info:
        combine(a, b)
    assert info.value.rows.tolist() == [1, 2]


def test_different_frames_rejected():
    with pytest.raises(ValueError, match=r"different frames: Frame\(\[0, 1\]\) and Frame\(\['a', 'b'\]\).*same Frame"):
        combine(MassFunction.vacuous([0, 1]), MassFunction.vacuous(["a", "b"]))


def test_unknown_rule_rejected():
    m = MassFunction.vacuous([0, 1])
    with pytest.raises(ValueError, match=r"Unknown combination rule 'smets'; use one of 'dempster'"):
        combine(m, m, rule="smets")


def test_dubois_prade_needs_normalised_inputs():
    m = MassFunction([0, 1], {(): 0.2, 0: 0.8}, unnormalized=True)
    with pytest.raises(ValueError, match=r"argument 0 has mass on the empty set; call .normalize\(\)"):
        combine(m, MassFunction.vacuous([0, 1]), rule="dubois_prade")


def test_bad_arguments():
    with pytest.raises(TypeError, match=r"Argument 1 of combine is a dict"):
        combine(MassFunction.vacuous([0, 1]), {0: 1.0})
    with pytest.raises(ValueError, match=r"at least one"):
        combine()
    with pytest.raises(ValueError, match=r"method must be 'auto', 'pairs' or 'moebius'"):
        rules.conjunctive(np.array([0, 0, 0, 1.0]), np.array([0, 0, 0, 1.0]), method="fast")
