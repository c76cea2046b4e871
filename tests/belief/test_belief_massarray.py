"""MassArray: batches agree with MassFunction row by row; binary fast path; index; bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.belief import BINARY_FRAME, Frame, MassArray, MassFunction, combine, rules


def random_batch(rng, frame, n, *, sparse=True):
    v = rng.random((n, frame.n_subsets))
    if sparse:
        v[rng.random(v.shape) < 0.5] = 0.0
    v[:, 0] = 0.0
    v[:, -1] += 0.05
    return v / v.sum(axis=1, keepdims=True)


@st.composite
def batches(draw, frame=None):
    if frame is None:
        k = draw(st.integers(1, 4))
        frame = Frame([f"w{i}" for i in range(k)])
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return MassArray(frame, random_batch(rng, frame, n, sparse=bool(seed % 2)))


@pytest.fixture
def ma():
    return MassArray.from_binary(m0=[0.1, 0.6, 0.0], m1=[0.7, 0.0, 0.25], m01=[0.2, 0.4, 0.75])


# --- binary frame ---------------------------------------------------------------------------------
def test_from_binary_layout_and_to_frame(ma):
    assert ma.frame == BINARY_FRAME == Frame([0, 1])
    assert len(ma) == 3
    np.testing.assert_array_equal(ma.values[:, 0], 0.0)
    np.testing.assert_array_equal(ma.values[:, 1], [0.1, 0.6, 0.0])  # m({0}) is bitmask 1
    np.testing.assert_array_equal(ma.values[:, 2], [0.7, 0.0, 0.25])  # m({1}) is bitmask 2
    df = ma.to_frame()
    assert list(df.columns) == ["m0", "m1", "m01"]
    assert df["m01"].tolist() == [0.2, 0.4, 0.75]
    assert list(df.index) == [0, 1, 2]
    assert list(ma.to_frame(focal_only=True).columns) == ["m0", "m1", "m01"]
    conj = combine(ma, ma, rule="conjunctive")
    assert list(conj.to_frame().columns) == ["m_empty", "m0", "m1", "m01"]


def test_binary_bel_pl_betp_ignorance(ma):
    np.testing.assert_allclose(ma.bel(1), [0.7, 0.0, 0.25])
    np.testing.assert_allclose(ma.pl(1), [0.9, 0.4, 1.0])
    np.testing.assert_allclose(ma.bel(0), [0.1, 0.6, 0.0])
    np.testing.assert_allclose(ma.pl([0, 1]), 1.0)
    np.testing.assert_allclose(ma.q(1), [0.9, 0.4, 1.0])
    np.testing.assert_allclose(ma.ignorance, [0.2, 0.4, 0.75])
    betp = ma.betp()
    assert list(betp.columns) == [0, 1]
    np.testing.assert_allclose(betp[1], [0.8, 0.2, 0.625])
    np.testing.assert_allclose(ma.contour()[1], [0.9, 0.4, 1.0])
    np.testing.assert_allclose(ma.plausibility_transform().sum(axis=1), 1.0)
    np.testing.assert_allclose(ma.nonspecificity(), ma.ignorance)


def test_from_bel_pl():
    ma = MassArray.from_bel_pl(bel=pd.Series([0.6, 0.1, 0.5], index=list("xyz")), pl=[0.9, 0.3, 0.5])
    assert list(ma.index) == ["x", "y", "z"]
    np.testing.assert_allclose(ma.bel(1), [0.6, 0.1, 0.5])
    np.testing.assert_allclose(ma.pl(1), [0.9, 0.3, 0.5])
    assert ma.values[2, 3] == 0.0
    with pytest.raises(ValueError, match=r"bel exceeds pl in row 1 \(index 'b'\).*Bel\(\{1\}\) <= Pl"):
        MassArray.from_bel_pl([0.1, 0.5], [0.2, 0.4], index=["a", "b"])
    with pytest.raises(ValueError, match=r"pl must be finite and in \[0, 1\]; it is not in row 0"):
        MassArray.from_bel_pl([0.1], [np.nan])


def test_binary_dempster_fast_path_large_batch_matches_closed_form():
    rng = np.random.default_rng(0)
    n = 200_000
    p = rng.dirichlet([1, 1, 1], size=n)
    r = rng.dirichlet([1, 1, 1], size=n)
    a = MassArray.from_binary(m0=p[:, 0], m1=p[:, 1], m01=p[:, 2])
    b = MassArray.from_binary(m0=r[:, 0], m1=r[:, 1], m01=r[:, 2])
    out = combine(a, b).to_frame()
    K = p[:, 0] * r[:, 1] + p[:, 1] * r[:, 0]
    np.testing.assert_allclose(out["m1"], (p[:, 1] * r[:, 1] + p[:, 1] * r[:, 2] + p[:, 2] * r[:, 1]) / (1 - K))
    np.testing.assert_allclose(out["m0"], (p[:, 0] * r[:, 0] + p[:, 0] * r[:, 2] + p[:, 2] * r[:, 0]) / (1 - K))
    np.testing.assert_allclose(out["m01"], p[:, 2] * r[:, 2] / (1 - K))
    np.testing.assert_allclose(a.conflict(b), K)


# --- rows agree with MassFunction -----------------------------------------------------------------
def test_row_access_iteration_and_slicing(ma):
    m = ma[1]
    assert isinstance(m, MassFunction)
    assert m[0] == 0.6 and m[(0, 1)] == 0.4
    assert ma[-1][1] == 0.25
    assert [x[1] for x in ma] == [0.7, 0.0, 0.25]
    sub = ma[1:]
    assert isinstance(sub, MassArray) and len(sub) == 2
    assert len(ma[np.array([True, False, True])]) == 2
    assert len(ma[[0, 0, 2]]) == 3
    with pytest.raises(IndexError, match=r"Row 3 is out of range for a MassArray of 3 rows"):
        ma[3]
    with pytest.raises(IndexError, match=r"Boolean mask has shape \(2,\)"):
        ma[np.array([True, False])]
    with pytest.raises(TypeError, match=r"integer position"):
        ma["a"]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_every_method_matches_massfunction_rows(k):
    rng = np.random.default_rng(k)
    frame = Frame([f"w{i}" for i in range(k)])
    ma = MassArray(frame, random_batch(rng, frame, 7))
    mb = MassArray(frame, random_batch(rng, frame, 7, sparse=False))
    alphas = rng.random(7)
    for i in range(7):
        m = MassFunction(frame, ma.values[i])
        for A in frame.subsets():
            assert ma.bel(A)[i] == pytest.approx(m.bel(A), abs=1e-14)
            assert ma.pl(A)[i] == pytest.approx(m.pl(A), abs=1e-14)
            assert ma.q(A)[i] == pytest.approx(m.q(A), abs=1e-14)
        np.testing.assert_allclose(ma.bel_array()[i], m.bel_array(), atol=1e-14)
        np.testing.assert_allclose(ma.pl_array()[i], m.pl_array(), atol=1e-14)
        np.testing.assert_allclose(ma.q_array()[i], m.q_array(), atol=1e-14)
        np.testing.assert_allclose(ma.b_array()[i], m.b_array(), atol=1e-14)
        np.testing.assert_allclose(ma.betp().iloc[i], m.betp(), atol=1e-14)
        np.testing.assert_allclose(ma.contour().iloc[i], m.contour(), atol=1e-14)
        np.testing.assert_allclose(ma.plausibility_transform().iloc[i], m.plausibility_transform(), atol=1e-14)
        assert ma.nonspecificity()[i] == pytest.approx(m.nonspecificity())
        np.testing.assert_allclose(ma.discount(0.7)[i].values, m.discount(0.7).values, atol=1e-15)
        np.testing.assert_allclose(ma.discount(alphas)[i].values, m.discount(alphas[i]).values, atol=1e-15)
        m2 = MassFunction(frame, mb.values[i])
        assert ma.conflict(mb)[i] == pytest.approx(m.conflict(m2), abs=1e-14)
        for rule in ("dempster", "conjunctive", "disjunctive", "yager", "dubois_prade", "average"):
            np.testing.assert_allclose(
                combine(ma, mb, rule=rule)[i].values, combine(m, m2, rule=rule).values, atol=1e-13
            )


def test_massfunction_broadcasts_over_batch():
    rng = np.random.default_rng(3)
    frame = Frame(["a", "b", "c"])
    ma = MassArray(frame, random_batch(rng, frame, 5), index=list("vwxyz"))
    m = MassFunction(frame, {"a": 0.3, ("a", "b", "c"): 0.7})
    for rule in ("dempster", "yager", "average"):
        out = combine(m, ma, rule=rule)
        assert isinstance(out, MassArray) and len(out) == 5
        assert list(out.index) == list("vwxyz")
        for i in range(5):
            np.testing.assert_allclose(out[i].values, combine(m, ma[i], rule=rule).values, atol=1e-14)
    np.testing.assert_allclose(ma.conflict(m), [ma[i].conflict(m) for i in range(5)], atol=1e-14)


def test_three_batches_and_method_form():
    rng = np.random.default_rng(9)
    frame = Frame(["a", "b", "c"])
    a, b, c = (MassArray(frame, random_batch(rng, frame, 4)) for _ in range(3))
    out = a.combine(b, c, rule="conjunctive")
    for i in range(4):
        np.testing.assert_allclose(out[i].values, combine(a[i], b[i], c[i], rule="conjunctive").values, atol=1e-14)


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_property_rows_equal_massfunction(data):
    ma = data.draw(batches())
    mb = data.draw(batches(frame=ma.frame))
    n = min(len(ma), len(mb))
    ma, mb = ma[:n], mb[:n]
    for rule in ("dempster", "conjunctive", "disjunctive", "yager", "dubois_prade"):
        try:
            out = combine(ma, mb, rule=rule)
        except ValueError as err:  # total conflict in some row: rows agree on that too
            assert rule == "dempster" and "total conflict" in str(err)
            continue
        np.testing.assert_allclose(out.values.sum(axis=1), 1.0, atol=1e-12)
        for i in range(n):
            np.testing.assert_allclose(out[i].values, combine(ma[i], mb[i], rule=rule).values, atol=1e-13)
    for i in range(n):
        np.testing.assert_allclose(ma.betp().iloc[i].to_numpy(), ma[i].betp().to_numpy(), atol=1e-14)
    assert np.all(ma.bel_array() <= ma.pl_array() + 1e-12)


# --- index and constructors ---------------------------------------------------------------------
def test_index_is_carried():
    idx = pd.Index(["r1", "r2"], name="id")
    a = MassArray.from_binary(m0=[0.2, 0.3], m1=[0.5, 0.3], m01=[0.3, 0.4], index=idx)
    b = MassArray.from_binary(m0=0.1, m1=0.1, m01=[0.8, 0.8])
    assert a.index.equals(idx) and b.index is None
    out = combine(a, b)
    assert out.index.equals(idx)
    assert out.to_frame().index.equals(idx)
    assert out.betp().index.equals(idx)
    assert a.normalize().index.equals(idx)
    assert a.discount(0.5).index.equals(idx)
    assert a[[1]].index.tolist() == ["r2"]
    s = pd.Series([0.2, 0.3], index=[10, 20])
    c = MassArray.from_binary(m0=s, m1=0.5, m01=1 - 0.5 - s)
    assert list(c.index) == [10, 20]
    c2 = MassArray.from_binary(m0=s, m1=0.5, m01=1 - 0.5 - s, index=[10, 20])
    with pytest.raises(ValueError, match=r"different row indexes"):
        combine(c2, a)


def test_general_constructors_and_to_frame():
    f = Frame(["a", "b", "c"])
    by_map = MassArray(f, {"a": [0.5, 0.0], ("b", "c"): 0.5, f.labels: [0.0, 0.5]})
    dense = np.zeros((2, 8))
    dense[0, [1, 6]] = 0.5
    dense[1, [6, 7]] = 0.5
    np.testing.assert_array_equal(by_map.values, dense)
    np.testing.assert_array_equal(MassArray(f, dense).values, dense)
    df = by_map.to_frame()
    assert df.columns[0] == "m({a})" and df.columns[-1] == "m({a, b, c})" and len(df.columns) == 7
    assert list(by_map.to_frame(focal_only=True).columns) == ["m({a})", "m({b, c})", "m({a, b, c})"]
    stacked = MassArray.from_masses([by_map[0], by_map[1]], index=["p", "q"])
    np.testing.assert_array_equal(stacked.values, dense)
    assert list(stacked.index) == ["p", "q"]
    frame_in = pd.DataFrame(dense, index=["u", "v"])
    assert list(MassArray(f, frame_in).index) == ["u", "v"]
    vac = MassArray.vacuous(f, 3)
    assert len(vac) == 3 and np.all(vac.ignorance == 1.0)
    assert not by_map.values.flags.writeable


def test_repr_and_html():
    ma = MassArray.from_binary(m0=[0.1] * 12, m1=[0.2] * 12, m01=[0.7] * 12)
    text = repr(ma)
    assert text.startswith("MassArray: 12 mass functions on {0, 1}\n")
    assert "m01" in text and "..." in text
    h = ma._repr_html_()
    assert h.startswith("<div><strong>MassArray</strong>: 12 mass functions") and "<table" in h
    g = MassArray(Frame(["<x>", "y"]), [[0, 0, 0, 1.0]])
    assert "&lt;x&gt;" in g._repr_html_()


# --- bad input ----------------------------------------------------------------------------------
def test_negative_mass_names_row():
    with pytest.raises(ValueError, match=r"negative values in row 1 .*-0.2 on \{0\}"):
        MassArray.from_binary(m0=[0.2, -0.2], m1=[0.5, 0.7], m01=[0.3, 0.5])


def test_nan_mass_names_rows_and_index():
    with pytest.raises(ValueError, match=r"NaN values in row 0 \(index 'a'\) \(subsets \{1\}\)"):
        MassArray.from_binary(m0=[0.2, 0.2], m1=[np.nan, 0.5], m01=[0.3, 0.3], index=["a", "b"])


def test_sum_not_one_names_rows():
    with pytest.raises(ValueError, match=r"do not sum to 1 in rows 0, 2 \(row 0 sums to 0.9; tolerance 1e-09\)"):
        MassArray.from_binary(m0=[0.2, 0.2, 0.1], m1=[0.4, 0.5, 0.4], m01=[0.3, 0.3, 0.4])


def test_wrong_shapes_and_lengths():
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*needs shape \(n, 4\)"):
        MassArray([0, 1], np.ones((2, 3)) / 3)
    with pytest.raises(ValueError, match=r"m0, m1 and m01 have different lengths \(2, 3, 2\)"):
        MassArray.from_binary(m0=[0.2, 0.2], m1=[0.4, 0.5, 0.1], m01=[0.4, 0.3])
    with pytest.raises(ValueError, match=r"index has 3 entries but there are 2 mass functions"):
        MassArray.from_binary(m0=[0.2, 0.2], m1=[0.4, 0.5], m01=[0.4, 0.3], index=[1, 2, 3])
    with pytest.raises(ValueError, match=r"m0 must be 1-D"):
        MassArray.from_binary(m0=[[0.2]], m1=[0.4], m01=[0.4])
    with pytest.raises(ValueError, match=r"different lengths"):
        MassArray(["a", "b"], {"a": [0.5, 0.5], "b": [0.5, 0.5, 0.5]})


def test_labels_outside_frame_and_empty_set():
    with pytest.raises(ValueError, match=r"'z' is not a label of the frame \{a, b\}"):
        MassArray(["a", "b"], {"z": [1.0]})
    with pytest.raises(ValueError, match=r"mass 0.5 on the empty set in row 0.*unnormalized=True"):
        MassArray(["a", "b"], [[0.5, 0.5, 0, 0]])
    assert MassArray(["a", "b"], [[0.5, 0.5, 0, 0]], unnormalized=True).values[0, 0] == 0.5


def test_combining_batches_of_different_lengths_or_frames():
    a = MassArray.vacuous([0, 1], 3)
    with pytest.raises(ValueError, match=r"different lengths \[2, 3\] row by row"):
        combine(a, MassArray.vacuous([0, 1], 2))
    with pytest.raises(ValueError, match=r"different frames"):
        combine(a, MassArray.vacuous(["x", "y"], 3))
    with pytest.raises(ValueError, match=r"alpha must be a scalar or an array of 3 values"):
        a.discount([0.5, 0.5])
    with pytest.raises(ValueError, match=r"different lengths \(3 and 2\)"):
        a.conflict(MassArray.vacuous([0, 1], 2))
    with pytest.raises(ValueError, match=r"from_masses needs at least one"):
        MassArray.from_masses([])


def test_direct_rule_kernel_batch_mismatch():
    with pytest.raises(ValueError, match=r"batches of 2 and 3 mass functions"):
        rules.dempster(np.ones((2, 4)) / 4, np.ones((3, 4)) / 4)
