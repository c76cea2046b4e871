"""Denoeux's cautious rule (issue 9, section 5), against hand computations on the binary frame
(canonical decomposition, minimum of the weights w, i.e. maximum of the weights of evidence
-ln w) and its algebraic properties on larger frames."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.belief import rules


def binary(b: float, p: float) -> np.ndarray:
    """[m(empty), m({0}), m({1}), m(frame)] from Bel({1}) = b, Pl({1}) = p (bit 0 = class 0)."""
    return np.array([0.0, 1.0 - p, b, p - b])


def by_hand(pairs: list[tuple[float, float]]) -> np.ndarray:
    """w({1}) = (p - b) / p = q(frame) / q({1}), w({0}) = (p - b) / (1 - b) = q(frame) / q({0});
    minima; then {1}^W1 (+) {0}^W0 by Dempster's rule."""
    W1 = min((p - b) / p for b, p in pairs)
    W0 = min((p - b) / (1 - b) for b, p in pairs)
    K = (1 - W1) * (1 - W0)
    return np.array([0.0, (1 - W0) * W1, (1 - W1) * W0, W1 * W0]) / (1 - K)


@pytest.mark.parametrize(
    "pairs",
    [[(0.3, 0.8), (0.5, 0.9)], [(0.1, 0.4), (0.6, 0.95)], [(0.0, 0.5), (0.2, 1.0)], [(0.3, 0.8), (0.5, 0.9), (0.05, 0.7)]],
)
def test_binary_against_hand_computation(pairs):
    masses = [binary(b, p) for b, p in pairs]
    out = masses[0]
    for m in masses[1:]:
        out = rules.cautious(out, m)
    np.testing.assert_allclose(out, by_hand(pairs), rtol=0, atol=1e-14)
    # weights of the decomposition: w({1}) = q(frame)/q({1}), w({0}) = q(frame)/q({0})
    b, p = pairs[0]
    w = np.exp(rules.log_weights(binary(b, p)))
    np.testing.assert_allclose(w[[1, 2]], [(p - b) / (1 - b), (p - b) / p], rtol=1e-14)


def test_worked_example_in_numbers():
    # w1 = (0.4 / 0.8, 0.4 / 0.7) ... by hand: Bel/Pl (0.3, 0.8) and (0.5, 0.9):
    # w({1}) = 0.5/0.8 = 0.625 and 0.4/0.9 = 0.4444; w({0}) = 0.5/0.7 = 0.7143 and 0.4/0.5 = 0.8
    # W1 = 0.4444, W0 = 0.7143, K = 0.5556 x 0.2857 = 0.15873
    out = rules.cautious(binary(0.3, 0.8), binary(0.5, 0.9))
    W1, W0 = 4 / 9, 5 / 7
    K = (1 - W1) * (1 - W0)
    assert out[2] == pytest.approx((1 - W1) * W0 / (1 - K), abs=1e-15)  # 0.4717
    assert round(float(out[2]), 4) == 0.4717 and round(float(out[1]), 4) == 0.1509


def test_idempotent_commutative_and_less_committed_than_dempster():
    a, b = binary(0.3, 0.8), binary(0.5, 0.9)
    np.testing.assert_allclose(rules.cautious(a, a), a, atol=1e-14)
    np.testing.assert_allclose(rules.cautious(a, b), rules.cautious(b, a), atol=1e-14)
    d = rules.dempster(a, b)
    assert rules.cautious(a, b)[3] >= d[3]  # more ignorance than Dempster


def test_combine_and_massarray():
    frame = ev.Frame(["neg", "pos"])
    a = ev.MassArray(frame, np.array([binary(0.3, 0.8), binary(0.1, 0.4)]))
    b = ev.MassArray(frame, np.array([binary(0.5, 0.9), binary(0.6, 0.95)]))
    out = ev.combine(a, b, rule="cautious")
    np.testing.assert_allclose(out.values[0], by_hand([(0.3, 0.8), (0.5, 0.9)]), atol=1e-14)
    np.testing.assert_allclose(out.values[1], by_hand([(0.1, 0.4), (0.6, 0.95)]), atol=1e-14)


def test_dogmatic_input_is_a_clear_error():
    with pytest.raises(rules.DogmaticMassError, match=r"nondogmatic.*m\(frame\) = 0.*discount"):
        rules.cautious(binary(0.3, 0.3), binary(0.5, 0.9))


def random_mass(rng, k):
    m = rng.dirichlet(np.ones(1 << k))
    m[0] = 0.0
    m[-1] += 0.05
    return m / m.sum()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4))
def test_properties_on_larger_frames(seed, k):
    rng = np.random.default_rng(seed)
    a, b, c = (random_mass(rng, k) for _ in range(3))
    ab = rules.cautious(a, b)
    assert ab[0] == 0.0 and np.all(ab >= 0) and ab.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(rules.cautious(a, a), a, atol=1e-10)
    np.testing.assert_allclose(ab, rules.cautious(b, a), atol=1e-12)
    np.testing.assert_allclose(rules.cautious(ab, c), rules.cautious(a, rules.cautious(b, c)), atol=1e-10)
    # the decomposition: min of log weights, frame excluded
    np.testing.assert_allclose(
        rules.log_weights(ab)[1:-1], np.minimum(rules.log_weights(a), rules.log_weights(b))[1:-1], atol=1e-9
    )
