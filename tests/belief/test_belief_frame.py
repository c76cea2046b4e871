"""Tests of evstat.belief.Frame: labels, subsets as bitmasks, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from evstat.belief import MAX_DENSE_SIZE, Frame


def test_labels_order_and_sizes():
    f = Frame(["a", "b", "c"])
    assert f.labels == ("a", "b", "c")
    assert len(f) == f.size == 3
    assert f.n_subsets == 8
    assert f.omega == 7
    assert list(f) == ["a", "b", "c"]
    assert "b" in f and "z" not in f and ["a"] not in f
    assert not f.is_binary and Frame([0, 1]).is_binary


def test_mask_and_subset_round_trip():
    f = Frame(["a", "b", "c"])
    assert f.mask("a") == 1
    assert f.mask("b") == 2
    assert f.mask(["a", "c"]) == 5
    assert f.mask(frozenset({"c", "b"})) == 6
    assert f.mask({"a", "b", "c"}) == 7
    assert f.mask(()) == 0
    assert f.mask(frozenset()) == 0
    for m in range(8):
        assert f.mask(f.subset(m)) == m
    assert f.subset(5) == frozenset({"a", "c"})


def test_label_wins_over_bitmask_and_iterable():
    # integer labels are labels, never bitmasks
    f = Frame([0, 1])
    assert f.mask(1) == 2
    assert f.mask(0) == 1
    assert f.mask([0, 1]) == 3
    # a tuple that is itself a label is read as the label
    g = Frame([("x", 1), "y", "x", 1])
    assert g.mask(("x", 1)) == 1
    # a string label is a single label, not its characters
    h = Frame(["ab", "a", "b"])
    assert h.mask("ab") == 1


def test_numpy_labels_become_python_scalars():
    f = Frame(np.array([0, 1]))
    assert f.labels == (0, 1)
    assert type(f.labels[0]) is int
    assert f.mask(np.int64(1)) == 2
    assert repr(f) == "Frame([0, 1])"


def test_format_complement_subsets_and_cardinalities():
    f = Frame(["a", "b", "c"])
    assert f.format(["c", "a"]) == "{a, c}"
    assert f.format(()) == "{}"
    assert f.format(3, is_mask=True) == "{a, b}"
    assert f.complement("a") == frozenset({"b", "c"})
    assert f.subsets()[0] == frozenset()
    assert f.subsets(nonempty=True)[0] == frozenset({"a"})
    assert len(f.subsets()) == 8
    card = f.cardinalities()
    assert card.tolist() == [bin(m).count("1") for m in range(8)]
    assert not card.flags.writeable


def test_equality_and_hash():
    assert Frame(["a", "b"]) == Frame(["a", "b"])
    assert Frame(["a", "b"]) != Frame(["b", "a"])
    assert hash(Frame([0, 1])) == hash(Frame([0, 1]))
    assert Frame(Frame(["a"])) == Frame(["a"])
    assert "<code>" in Frame(["<x>"])._repr_html_() and "&lt;x&gt;" in Frame(["<x>"])._repr_html_()


def test_largest_dense_frame_is_allowed():
    f = Frame(range(MAX_DENSE_SIZE))
    assert f.n_subsets == 2**20


# ---------------------------------------------------------------------------- bad input
def test_duplicate_labels_rejected():
    with pytest.raises(ValueError, match=r"distinct; duplicated: 'a'.*Remove the duplicates"):
        Frame(["a", "b", "a"])


def test_too_many_labels_rejected():
    with pytest.raises(ValueError, match=r"21 elements.*at most 20.*Coarsen"):
        Frame(range(21))


def test_empty_frame_rejected():
    with pytest.raises(ValueError, match="at least one label"):
        Frame([])


def test_string_frame_rejected():
    with pytest.raises(TypeError, match=r"not a single string 'abc'"):
        Frame("abc")


def test_unhashable_label_rejected():
    with pytest.raises(TypeError, match=r"not hashable"):
        Frame([["a"], "b"])


def test_unknown_label_in_subset():
    f = Frame(["a", "b", "c"])
    with pytest.raises(ValueError, match=r"'d' is not a label of the frame \{a, b, c\}"):
        f.mask("d")
    with pytest.raises(ValueError, match=r"'d' is not a label"):
        f.mask(["a", "d"])
    with pytest.raises(ValueError, match=r"3 is not a label"):
        Frame([0, 1]).mask(3)


def test_bitmask_out_of_range():
    with pytest.raises(ValueError, match=r"Bitmask 8 is out of range.*0 to 7"):
        Frame(["a", "b", "c"]).subset(8)


def test_different_frames_message():
    with pytest.raises(ValueError, match=r"different frames.*same Frame"):
        Frame([0, 1])._check_same(Frame([1, 0]))
