"""Uncertainty measures: nonspecificity, conflict, pignistic entropy (definitions, batches, errors)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evstat.belief import Frame, MassArray, MassFunction, conflict, nonspecificity, pignistic_entropy


def test_nonspecificity_definition():
    f = Frame(["a", "b", "c", "d"])
    m = MassFunction(f, {"a": 0.25, ("a", "b"): 0.25, ("a", "b", "c"): 0.25, f.labels: 0.25})
    # 0.25 * (log2 1 + log2 2 + log2 3 + log2 4)
    assert nonspecificity(m) == pytest.approx(0.25 * (0 + 1 + math.log2(3) + 2))
    assert nonspecificity(MassFunction.vacuous(f)) == pytest.approx(2.0)
    assert nonspecificity(MassFunction(f, {"b": 1.0})) == 0.0
    # the empty set contributes nothing
    u = MassFunction(f, {(): 0.5, ("a", "b"): 0.5}, unnormalized=True)
    assert nonspecificity(u) == pytest.approx(0.5)


def test_nonspecificity_is_ignorance_on_binary_frame():
    ma = MassArray.from_binary(m0=[0.2, 0.0], m1=[0.3, 0.9], m01=[0.5, 0.1])
    np.testing.assert_allclose(nonspecificity(ma), [0.5, 0.1])


def test_conflict_definition_and_batches():
    f = Frame(["a", "b", "c"])
    m1 = MassFunction(f, {"a": 0.6, ("b", "c"): 0.4})
    m2 = MassFunction(f, {"b": 0.5, ("a", "b"): 0.5})
    # empty intersections: {a}.{b} = .3, {b,c}.{a,b} -> {b} (not empty) -> K = .3
    assert conflict(m1, m2) == pytest.approx(0.3)
    ma = MassArray.from_masses([m1, m2])
    np.testing.assert_allclose(conflict(ma, m2), [0.3, 0.0])
    np.testing.assert_allclose(conflict(ma, ma), [0.6 * 0.4 * 2, 0.0])
    assert isinstance(conflict(m1, m2), float)


def test_pignistic_entropy():
    assert pignistic_entropy(MassFunction([0, 1], {(0, 1): 1.0})) == pytest.approx(1.0)
    assert pignistic_entropy(MassFunction([0, 1], {1: 1.0})) == 0.0
    ma = MassArray.from_binary(m0=[0.0, 0.5], m1=[0.5, 0.5], m01=[0.5, 0.0])
    p = 0.75
    np.testing.assert_allclose(
        pignistic_entropy(ma), [-(p * math.log2(p) + (1 - p) * math.log2(1 - p)), 1.0]
    )


def test_bad_input():
    with pytest.raises(TypeError, match=r"nonspecificity needs a MassFunction or MassArray"):
        nonspecificity([0.5, 0.5])
    with pytest.raises(TypeError, match=r"conflict needs MassFunction or MassArray"):
        conflict(MassFunction.vacuous([0, 1]), 3)
    with pytest.raises(ValueError, match=r"different frames"):
        conflict(MassFunction.vacuous([0, 1]), MassFunction.vacuous([1, 0]))
    with pytest.raises(TypeError, match=r"pignistic_entropy needs"):
        pignistic_entropy(None)
