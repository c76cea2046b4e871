"""Fast Moebius transforms against brute-force sums over subsets, and their inverses."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.belief import (
    b_to_mass,
    bel_to_mass,
    mass_to_b,
    mass_to_bel,
    mass_to_pl,
    mass_to_q,
    pl_to_mass,
    q_to_mass,
)


def _subset(b, a):
    """True if bitmask b is a subset of bitmask a."""
    return b & ~a == 0


def brute(m: np.ndarray) -> dict[str, np.ndarray]:
    """Set functions by their definitions: explicit double loops over subsets."""
    n = m.size
    out = {k: np.zeros(n) for k in ("b", "bel", "pl", "q")}
    for a in range(n):
        for b in range(n):
            if _subset(b, a):
                out["b"][a] += m[b]
                if b != 0:
                    out["bel"][a] += m[b]
            if b & a != 0:
                out["pl"][a] += m[b]
            if _subset(a, b):
                out["q"][a] += m[b]
    return out


def random_mass(rng, k, *, empty=0.0, sparse=False):
    m = rng.random(1 << k)
    if sparse:
        m[rng.random(1 << k) < 0.6] = 0.0
        m[-1] += 0.1
    m[0] = 0.0
    m = m / m.sum() * (1.0 - empty)
    m[0] = empty
    return m


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("empty", [0.0, 0.15])
def test_forward_transforms_match_definitions(k, empty):
    rng = np.random.default_rng(k + int(100 * empty))
    for sparse in (False, True):
        m = random_mass(rng, k, empty=empty, sparse=sparse)
        ref = brute(m)
        np.testing.assert_allclose(mass_to_b(m), ref["b"], atol=1e-13)
        np.testing.assert_allclose(mass_to_bel(m), ref["bel"], atol=1e-13)
        np.testing.assert_allclose(mass_to_pl(m), ref["pl"], atol=1e-13)
        np.testing.assert_allclose(mass_to_q(m), ref["q"], atol=1e-13)


@pytest.mark.parametrize("k", [1, 3, 5])
@pytest.mark.parametrize("empty", [0.0, 0.2])
def test_inverse_transforms_recover_masses(k, empty):
    rng = np.random.default_rng(7 * k)
    m = random_mass(rng, k, empty=empty)
    ref = brute(m)
    np.testing.assert_allclose(b_to_mass(ref["b"]), m, atol=1e-13)
    np.testing.assert_allclose(bel_to_mass(ref["bel"]), m, atol=1e-13)
    np.testing.assert_allclose(pl_to_mass(ref["pl"]), m, atol=1e-13)
    np.testing.assert_allclose(q_to_mass(ref["q"]), m, atol=1e-13)


def test_hand_example_binary_frame():
    # frame {x, y}: m(empty) = .1, m({x}) = .4, m({y}) = .2, m(Omega) = .3
    m = np.array([0.1, 0.4, 0.2, 0.3])
    np.testing.assert_allclose(mass_to_b(m), [0.1, 0.5, 0.3, 1.0])
    np.testing.assert_allclose(mass_to_bel(m), [0.0, 0.4, 0.2, 0.9])
    np.testing.assert_allclose(mass_to_pl(m), [0.0, 0.7, 0.5, 0.9])
    np.testing.assert_allclose(mass_to_q(m), [1.0, 0.7, 0.5, 0.3])


def test_batches_are_transformed_row_by_row():
    rng = np.random.default_rng(3)
    batch = np.stack([random_mass(rng, 4, sparse=bool(i % 2)) for i in range(7)])
    for fwd in (mass_to_b, mass_to_bel, mass_to_pl, mass_to_q):
        out = fwd(batch)
        assert out.shape == batch.shape
        for i in range(batch.shape[0]):
            np.testing.assert_allclose(out[i], fwd(batch[i]), atol=1e-15)
    # three batch axes
    cube = batch[:6].reshape(2, 3, 16)
    np.testing.assert_allclose(mass_to_q(cube).reshape(6, 16), mass_to_q(batch[:6]))


def test_inputs_are_not_modified():
    m = np.array([0.0, 0.5, 0.2, 0.3])
    before = m.copy()
    for f in (mass_to_b, mass_to_bel, mass_to_pl, mass_to_q, b_to_mass, q_to_mass, bel_to_mass, pl_to_mass):
        f(m)
    np.testing.assert_array_equal(m, before)


def test_large_frame_round_trip():
    rng = np.random.default_rng(16)
    m = random_mass(rng, 12, sparse=True)
    for fwd, inv in ((mass_to_bel, bel_to_mass), (mass_to_pl, pl_to_mass), (mass_to_q, q_to_mass)):
        np.testing.assert_allclose(inv(fwd(m)), m, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 5), seed=st.integers(0, 2**32 - 1), empty=st.sampled_from([0.0, 0.3]))
def test_property_round_trips(k, seed, empty):
    m = random_mass(np.random.default_rng(seed), k, empty=empty, sparse=seed % 2 == 0)
    for fwd, inv in ((mass_to_b, b_to_mass), (mass_to_bel, bel_to_mass), (mass_to_pl, pl_to_mass), (mass_to_q, q_to_mass)):
        np.testing.assert_allclose(inv(fwd(m)), m, atol=1e-12)
    bel, pl = mass_to_bel(m), mass_to_pl(m)
    assert np.all(bel <= pl + 1e-12)
    full = (1 << k) - 1
    # bel(A) + pl(complement A) = 1 - m(empty)
    np.testing.assert_allclose(bel + pl[full - np.arange(1 << k)], 1.0 - m[0], atol=1e-12)


def test_bad_lengths():
    with pytest.raises(ValueError, match=r"last-axis length 3, which is not 2\*\*K"):
        mass_to_bel([0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match=r"got a scalar"):
        mass_to_q(1.0)
    with pytest.raises(ValueError, match=r"length 1"):
        q_to_mass([1.0])
