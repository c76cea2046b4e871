"""Binomial closed form (eqs. 27-30, 47-48) and Bel/Pl from a contour on theta (eqs. 25-26).

``binomial_belief`` is checked against hand-computed polynomials, against adaptive quadrature
(scipy.integrate.quad) of ``binomial_contour`` and against ``bernoulli_belief``; the edge cases
k = 0, k = n, n = 0 (vacuous) and n = 10**6 are covered.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import comb

from evstat.likelihood import bernoulli_belief, binomial_belief, binomial_contour


def quad_belief(k: int, n: int) -> tuple[float, float]:
    """Bel/Pl by adaptive quadrature of the binomial contour (eqs. 25-26), not the closed form."""
    from scipy import integrate

    th = k / n
    sd = np.sqrt(max(th * (1 - th), 1.0 / n) / n)
    pts = np.clip(th + sd * np.array([-8, -4, -2, -1, 1, 2, 4, 8]), 1e-300, 1 - 1e-16)

    def f(u: float) -> float:
        return float(binomial_contour(u, k, n))

    lo_pts = [p for p in pts if 0 < p < th] or None
    hi_pts = [p for p in pts if th < p < 1] or None
    low = integrate.quad(f, 0.0, th, epsabs=1e-14, epsrel=1e-12, limit=500, points=lo_pts)[0] if th > 0 else 0.0
    up = integrate.quad(f, th, 1.0, epsabs=1e-14, epsrel=1e-12, limit=500, points=hi_pts)[0] if th < 1 else 0.0
    return th - low, th + up


# ---------------------------------------------------------------------------------------------
# contour
# ---------------------------------------------------------------------------------------------


def test_contour_worked_example():
    # k = 2, n = 4: theta^2 (1 - theta)^2 / 0.5^4
    theta = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
    expected = theta**2 * (1 - theta) ** 2 / 0.5**4
    np.testing.assert_allclose(binomial_contour(theta, 2, 4), expected, rtol=1e-13, atol=1e-300)


def test_contour_is_one_at_mle_and_broadcasts():
    k = np.array([[0], [3], [7]])
    n = np.array([7])
    assert binomial_contour(k / n, k, n).shape == (3, 1)
    np.testing.assert_allclose(binomial_contour(k / n, k, n), 1.0, rtol=1e-14)
    grid = np.linspace(0, 1, 11)
    out = binomial_contour(grid[None, :], k, n)
    assert out.shape == (3, 11)
    assert np.all((out >= 0) & (out <= 1 + 1e-14))


def test_contour_edge_cases():
    # k = 0: (1 - theta)^n; k = n: theta^n; n = 0: identically 1
    theta = np.array([0.0, 0.3, 1.0])
    np.testing.assert_allclose(binomial_contour(theta, 0, 5), (1 - theta) ** 5, rtol=1e-14)
    np.testing.assert_allclose(binomial_contour(theta, 5, 5), theta**5, rtol=1e-14)
    np.testing.assert_array_equal(binomial_contour(theta, 0, 0), 1.0)


def test_contour_large_n_no_underflow():
    # log space: theta^k (1-theta)^(n-k) underflows for n = 10**6 but the ratio is fine
    k, n = 300_000, 1_000_000
    d = 1e-3
    c = float(binomial_contour(0.3 + d, k, n))
    # second-order expansion: log pl ~ -n d^2 / (2 * 0.3 * 0.7)
    assert np.isfinite(c) and 0 < c < 1
    assert np.log(c) == pytest.approx(-n * d**2 / (2 * 0.21), rel=2e-3)


# ---------------------------------------------------------------------------------------------
# closed form
# ---------------------------------------------------------------------------------------------


def test_closed_form_worked_example_by_hand():
    # k = 3, n = 4, theta_hat = 3/4. Normaliser 0.75^3 * 0.25 = 0.10546875.
    # int_0^0.75 u^3 (1-u) du = 0.75^4/4 - 0.75^5/5 = 0.031640625 -> Bel = 0.75 - 0.3 = 0.45
    # int_0.75^1 u^3 (1-u) du = 1/20 - 0.031640625 = 0.018359375 -> Pl = 0.75 + 0.174074...
    th, bel, pl = binomial_belief(3, 4)
    norm = 0.75**3 * 0.25
    low = 0.75**4 / 4 - 0.75**5 / 5
    assert float(th) == 0.75
    assert float(bel) == pytest.approx(0.75 - low / norm, abs=1e-14)
    assert float(bel) == pytest.approx(0.45, abs=1e-14)
    assert float(pl) == pytest.approx(0.75 + (1 / 20 - low) / norm, abs=1e-14)


def test_closed_form_matches_incomplete_beta_sum_eq29():
    # eq. 29: B(z; a, b) = sum_{j=a}^{a+b-1} (a-1)!(b-1)!/(j!(a+b-1-j)!) z^j (1-z)^(a+b-1-j)
    from math import factorial

    def b_lower(z: float, a: int, b: int) -> float:
        return sum(
            factorial(a - 1) * factorial(b - 1) / (factorial(j) * factorial(a + b - 1 - j))
            * z**j * (1 - z) ** (a + b - 1 - j)
            for j in range(a, a + b)
        )

    for k, n in [(1, 2), (2, 5), (4, 9), (7, 12), (11, 13)]:
        th = k / n
        norm = th**k * (1 - th) ** (n - k)
        bel_eq27 = th - b_lower(th, k + 1, n - k + 1) / norm
        pl_eq28 = th + b_lower(1 - th, n - k + 1, k + 1) / norm  # eq. 30
        _, bel, pl = binomial_belief(k, n)
        assert float(bel) == pytest.approx(bel_eq27, abs=1e-12)
        assert float(pl) == pytest.approx(pl_eq28, abs=1e-12)


@pytest.mark.parametrize(
    "k, n",
    [(1, 2), (1, 3), (2, 7), (5, 10), (9, 10), (13, 40), (37, 45), (60, 200), (1, 200), (299, 1000)],
)
def test_closed_form_equals_quadrature_of_contour(k, n):
    th, bel, pl = binomial_belief(k, n)
    qb, qp = quad_belief(k, n)
    assert float(th) == k / n
    assert float(bel) == pytest.approx(qb, abs=1e-9)
    assert float(pl) == pytest.approx(qp, abs=1e-9)


@pytest.mark.parametrize("n", [1, 2, 5, 30, 1000])
def test_k_zero_and_k_n(n):
    # eq. 27-28: theta_hat = 0 -> Bel = 0, Pl = 1/(n+1); theta_hat = 1 -> Bel = n/(n+1), Pl = 1
    th, bel, pl = binomial_belief([0, n], [n, n])
    np.testing.assert_array_equal(th, [0.0, 1.0])
    np.testing.assert_allclose(bel, [0.0, n / (n + 1)], rtol=1e-15)
    np.testing.assert_allclose(pl, [1 / (n + 1), 1.0], rtol=1e-15)
    # and they are the integrals of (1 - u)^n and u^n
    qb0, qp0 = quad_belief(0, n)
    qbn, qpn = quad_belief(n, n)
    assert float(pl[0]) == pytest.approx(qp0, abs=1e-9) and qb0 == 0.0
    assert float(bel[1]) == pytest.approx(qbn, abs=1e-9) and qpn == 1.0


def test_empty_cell_is_vacuous():
    th, bel, pl = binomial_belief(0, 0)
    assert np.isnan(th)
    assert float(bel) == 0.0 and float(pl) == 1.0
    # the constant contour 1 gives the same through eqs. 25-26 for any theta_hat
    for t in (0.0, 0.3, 1.0):
        assert bernoulli_belief(lambda u: 1.0, t) == pytest.approx((0.0, 1.0), abs=1e-12)


def test_million_rows_no_nan():
    th, bel, pl = binomial_belief([1, 300_000, 999_999], 10**6)
    assert np.all(np.isfinite(bel)) and np.all(np.isfinite(pl))
    assert np.all(bel < th) and np.all(th < pl)
    # ignorance ~ sqrt(2 pi theta (1 - theta) / n) for large n (a Gaussian contour)
    ign = float(pl[1] - bel[1])
    assert ign == pytest.approx(np.sqrt(2 * np.pi * 0.21 / 10**6), rel=1e-2)


def test_vectorised_matches_scalar():
    k = np.array([[0, 1, 2], [3, 4, 5]])
    n = np.array([5, 5, 7])
    th, bel, pl = binomial_belief(k, n)
    assert th.shape == bel.shape == pl.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            _, b, p = binomial_belief(k[i, j], n[j])
            assert bel[i, j] == b and pl[i, j] == p


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 5000), frac=st.floats(0, 1))
def test_order_property(n, frac):
    k = int(round(frac * n))
    th, bel, pl = binomial_belief(k, n)
    assert 0.0 <= bel <= pl <= 1.0
    if n > 0:
        assert bel <= th <= pl
        # symmetry: swapping the classes swaps Bel and 1 - Pl
        _, bel2, pl2 = binomial_belief(n - k, n)
        assert float(bel2) == pytest.approx(1 - float(pl), abs=1e-12)
        assert float(pl2) == pytest.approx(1 - float(bel), abs=1e-12)


def test_ignorance_shrinks_with_n():
    ns = np.array([10, 40, 160, 640])
    _, bel, pl = binomial_belief(ns * 3 // 10, ns)
    ign = pl - bel
    assert np.all(np.diff(ign) < 0)
    # roughly 1/sqrt(n): quadrupling n halves the ignorance
    np.testing.assert_allclose(ign[1:] / ign[:-1], 0.5, atol=0.06)


@pytest.mark.parametrize(
    "k, n, match",
    [
        (5, 3, "0 <= k <= n"),
        (-1, 3, "0 <= k <= n"),
        (1.5, 3, "whole numbers"),
        (1, np.nan, "finite"),
        (1, np.inf, "finite"),
    ],
)
def test_bad_counts(k, n, match):
    with pytest.raises(ValueError, match=match):
        binomial_belief(k, n)
    with pytest.raises(ValueError, match=match):
        binomial_contour(0.5, k, n)


# ---------------------------------------------------------------------------------------------
# the general route, bernoulli_belief
# ---------------------------------------------------------------------------------------------


def test_bernoulli_belief_triangle_by_hand():
    # triangular contour peaking at 0.4: int_0^0.4 = 0.2, int_0.4^1 = 0.3
    def tri(u: float) -> float:
        return u / 0.4 if u <= 0.4 else (1 - u) / 0.6

    bel, pl = bernoulli_belief(tri, 0.4, points=[0.4])
    assert bel == pytest.approx(0.2, abs=1e-12)
    assert pl == pytest.approx(0.7, abs=1e-12)


@pytest.mark.parametrize("k, n", [(2, 5), (6, 20), (0, 4), (4, 4)])
def test_bernoulli_belief_matches_closed_form(k, n):
    th, bel, pl = binomial_belief(k, n)
    b, p = bernoulli_belief(lambda u: float(binomial_contour(u, k, n)), float(th))
    assert b == pytest.approx(float(bel), abs=1e-10)
    assert p == pytest.approx(float(pl), abs=1e-10)


def test_bernoulli_belief_bad_theta_hat():
    with pytest.raises(ValueError, match="theta_hat must lie in"):
        bernoulli_belief(lambda u: 1.0, 1.5)


def test_binomial_coefficient_does_not_matter():
    # the contour is a likelihood ratio: multiplying the likelihood by C(n, k) changes nothing
    k, n = 4, 11
    u = np.linspace(0.01, 0.99, 7)
    lik = comb(n, k) * u**k * (1 - u) ** (n - k)
    lik_hat = comb(n, k) * (k / n) ** k * (1 - k / n) ** (n - k)
    np.testing.assert_allclose(binomial_contour(u, k, n), lik / lik_hat, rtol=1e-12)
