"""Hosmer-Lemeshow (as R's ResourceSelection::hoslem.test) and Spiegelhalter's z."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.metrics import HosmerLemeshowResult, hosmer_lemeshow, spiegelhalter_z
from evstat.metrics._binning import r_quantile_type7, r_seq_probs


# ------------------------------------------------------------------ slow R re-implementation
def r_seq(g):
    """seq(0, 1, 1/g): from + (0:n) * by, then pmin(., to)."""
    by = 1.0 / g
    n = int(1.0 / by + 1e-10)
    return [min(0.0 + i * by, 1.0) for i in range(n + 1)]


def r_quantile7(x, probs):
    """quantile.default(x, probs, type = 7), element by element."""
    xs = sorted(x)
    n = len(xs)
    out = []
    for prob in probs:
        index = 1 + max(n - 1, 0) * prob
        lo = math.floor(index)
        hi = math.ceil(index)
        qs = xs[lo - 1]
        if index > lo and xs[hi - 1] != qs:
            h = index - lo
            qs = (1 - h) * qs + h * xs[hi - 1]
        out.append(qs)
    return out


def r_bincode(v, breaks):
    """C .bincode(x, breaks, right = TRUE, include.lowest = TRUE): 1-based code."""
    lo, hi = 0, len(breaks) - 1
    assert breaks[lo] <= v <= breaks[hi]
    while hi - lo >= 2:
        new = (hi + lo) // 2
        if v > breaks[new]:
            lo = new
        else:
            hi = new
    return lo + 1


def r_hoslem(y, yhat, g):
    from scipy import stats

    qq = sorted(set(r_quantile7(yhat, r_seq(g))))  # unique(quantile(...)); cut sorts the breaks
    if len(qq) < 2:
        return None  # R: cut() stops with "invalid number of intervals"
    codes = [r_bincode(v, qq) for v in yhat]
    levels = len(qq) - 1
    obs = [[0.0, 0.0] for _ in range(levels)]
    exp = [[0.0, 0.0] for _ in range(levels)]
    for yi, pi, c in zip(y, yhat, codes, strict=True):
        obs[c - 1][0] += 1 - yi
        obs[c - 1][1] += yi
        exp[c - 1][0] += 1 - pi
        exp[c - 1][1] += pi
    chisq = 0.0
    for lev in range(levels):
        for j in range(2):
            if exp[lev][j] > 0:
                chisq += (obs[lev][j] - exp[lev][j]) ** 2 / exp[lev][j]
            elif obs[lev][j] > 0:
                chisq = math.inf
    big_g = len(set(codes))
    return chisq, big_g - 2, 1 - stats.chi2.cdf(chisq, big_g - 2), qq, obs, exp


# ------------------------------------------------------------------ Hosmer-Lemeshow
def test_hl_hand_example_distinct():
    y = [0, 0, 1, 0, 1, 1]
    p = [0.1, 0.2, 0.3, 0.5, 0.7, 0.9]
    # R: quantile(p, c(0, 1/3, 2/3, 1)) = 0.1, 0.2667, 0.5667, 0.9 (index 1 + 5 * prob)
    # groups {.1, .2}, {.3, .5}, {.7, .9}; observed y1 = 0, 1, 2; expected 0.3, 0.8, 1.6
    r = hosmer_lemeshow(y, p, g=3)
    stat = 0.3**2 / 0.3 + 0.2**2 / 0.8 + 0.4**2 / 1.6 + 0.3**2 / 1.7 + 0.2**2 / 1.2 + 0.4**2 / 0.4
    assert r.statistic == pytest.approx(stat, rel=1e-13)
    assert r.statistic == pytest.approx(0.93627451, rel=1e-8)
    assert r.df == 1
    assert r.pvalue == pytest.approx(math.erfc(math.sqrt(stat / 2)), rel=1e-12)  # chi2_1 tail
    np.testing.assert_allclose(r.table["upper"], [0.8 / 3, 1.7 / 3, 0.9])
    assert r.table["n"].tolist() == [2, 2, 2]
    np.testing.assert_allclose(r.table["observed_0"], [2, 1, 0])
    np.testing.assert_allclose(r.table["expected_0"], [1.7, 1.2, 0.4])


def test_hl_hand_example_with_tied_breaks():
    # quantiles at 0, .25, .5, .75, 1 (index 1, 2.75, 4.5, 6.25, 8 in the sorted p):
    # .2, .2, .35, .8, .9 -> unique breaks .2, .35, .8, .9 -> 3 groups, df = 1
    p = [0.2, 0.2, 0.2, 0.2, 0.5, 0.8, 0.8, 0.9]
    y = [0, 0, 1, 0, 1, 1, 0, 1]
    r = hosmer_lemeshow(y, p, g=4)
    stat = 0.04 / 0.8 + 0.04 / 3.2 + 0.01 / 2.1 + 0.01 / 0.9 + 0.01 / 0.9 + 0.01 / 0.1
    assert r.statistic == pytest.approx(stat, rel=1e-12)
    assert r.df == 1
    assert r.table["n"].tolist() == [4, 3, 1]
    np.testing.assert_allclose(r.table["lower"], [0.2, 0.35, 0.8])


def test_hl_result_unpacks_like_scipy():
    y, p = _sim(100, 1)
    r = hosmer_lemeshow(y, p)
    stat, df, pval = r
    assert isinstance(r, HosmerLemeshowResult)
    assert (stat, df, pval) == (r.statistic, r.df, r.pvalue)
    assert df == 8
    assert len(r.table) == 10 and r.table["n"].sum() == 100


def _sim(n, seed, digits=None):
    rng = np.random.default_rng(seed)
    p = 1 / (1 + np.exp(-rng.normal(0, 1.5, size=n)))
    if digits is not None:
        p = np.round(p, digits)
    y = (rng.uniform(size=n) < p).astype(int)
    return y, p


@pytest.mark.parametrize("seed", range(12))
def test_hl_matches_slow_r_algorithm(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(12, 300))
    g = int(rng.integers(3, 13))
    digits = [None, 1, 2][seed % 3]
    y, p = _sim(n, seed, digits)
    slow = r_hoslem(list(y), list(p), g)
    assert slow is not None
    if slow[1] < 1:
        with pytest.raises(ValueError, match="at least 3"):
            hosmer_lemeshow(y, p, g=g)
        return
    r = hosmer_lemeshow(y, p, g=g)
    assert r.statistic == pytest.approx(slow[0], rel=1e-12)
    assert r.df == slow[1]
    assert r.pvalue == pytest.approx(slow[2], rel=1e-9, abs=1e-15)
    np.testing.assert_array_equal(r.table["lower"], slow[3][:-1])
    np.testing.assert_array_equal(r.table["upper"], slow[3][1:])
    np.testing.assert_allclose(r.table[["observed_0", "observed_1"]], slow[4], atol=1e-12)
    np.testing.assert_allclose(r.table[["expected_0", "expected_1"]], slow[5], atol=1e-12)


@given(
    st.lists(st.sampled_from([0.05, 0.1, 0.3, 0.31, 0.5, 0.7, 0.9, 0.95]), min_size=8, max_size=60),
    st.integers(3, 12),
    st.integers(0, 2**31),
)
@settings(max_examples=80, deadline=None)
def test_hl_matches_slow_r_algorithm_with_ties_property(p, g, seed):
    p = np.array(p)
    y = (np.random.default_rng(seed).uniform(size=len(p)) < p).astype(int)
    slow = r_hoslem(list(y), list(p), g)
    if slow is None or slow[1] < 1:
        with pytest.raises(ValueError, match="equal|at least 3"):
            hosmer_lemeshow(y, p, g=g)
        return
    r = hosmer_lemeshow(y, p, g=g)
    assert r.statistic == pytest.approx(slow[0], rel=1e-12)
    assert r.df == slow[1]


def test_r_seq_and_quantile_arithmetic():
    # R: seq(0, 1, 0.1)[4] is 3 * 0.1 = 0.30000000000000004, not 0.3
    probs = r_seq_probs(10)
    assert probs[3] == 3 * 0.1 and probs[3] != 0.3
    assert probs[-1] == 1.0 and len(probs) == 11
    assert r_seq_probs(3).tolist() == r_seq(3)
    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 50, 333):
        x = rng.normal(size=n)
        for g in (3, 7, 10):
            np.testing.assert_array_equal(
                r_quantile_type7(x, r_seq_probs(g)), r_quantile7(list(x), r_seq(g))
            )
            np.testing.assert_allclose(
                r_quantile_type7(x, r_seq_probs(g)), np.quantile(x, r_seq_probs(g)), rtol=1e-14
            )


def test_hl_empty_group_after_merging_is_skipped():
    # sorted p = .1 .1 .5 .5 .9 .9, g = 4: index 1 + 5 * (0, .25, .5, .75, 1) = 1, 2.25, 3.5, 4.75, 6
    # -> breaks .1, .2, .5, .8, .9; the group (.5, .8] is empty. R's sum would be NaN (0/0);
    # evstat skips the empty group and counts 3 groups (df = 1), as R's G does.
    p = [0.1, 0.5, 0.9, 0.1, 0.5, 0.9]
    y = [0, 1, 1, 0, 0, 1]
    r = hosmer_lemeshow(y, p, g=4)
    np.testing.assert_allclose(r.table["upper"], [0.2, 0.5, 0.8, 0.9])
    assert r.table["n"].tolist() == [2, 2, 0, 2]
    assert r.df == 1
    stat = 0.2**2 / 0.2 + 0.2**2 / 1.8 + 0 + 0 + 0.2**2 / 1.8 + 0.2**2 / 0.2
    assert r.statistic == pytest.approx(stat, rel=1e-12)
    slow = r_hoslem(y, p, 4)
    assert r.statistic == pytest.approx(slow[0], rel=1e-12)
    assert r.df == slow[1]


def test_hl_group_with_zero_expected():
    # a group of rows with p = 0 (expected y1 = 0): observed 0 adds nothing, observed 1 -> inf
    p = [0.0, 0.0, 0.0, 0.4, 0.5, 0.6, 0.8, 0.9, 0.95]
    y = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    r = hosmer_lemeshow(y, p, g=3)
    assert np.isfinite(r.statistic) and r.df == 1
    y_bad = [1, 0, 0, 0, 1, 1, 1, 1, 1]
    r_bad = hosmer_lemeshow(y_bad, p, g=3)
    assert r_bad.statistic == math.inf and r_bad.pvalue == 0.0


def test_hl_too_few_groups():
    with pytest.raises(ValueError, match="all 4 predicted probabilities are equal"):
        hosmer_lemeshow([0, 1, 0, 1], [0.3, 0.3, 0.3, 0.3])
    with pytest.raises(ValueError, match="only 2 non-empty group"):
        hosmer_lemeshow([0, 1, 0, 1], [0.3, 0.3, 0.6, 0.6], g=10)
    for g in (2, 0, 3.5, True):
        with pytest.raises(ValueError, match="g \\(number of groups\\)"):
            hosmer_lemeshow([0, 1, 0, 1], [0.1, 0.3, 0.6, 0.7], g=g)


def test_hl_calibrated_data_has_uniformish_pvalues():
    rng = np.random.default_rng(9)
    pv = []
    for _ in range(200):
        p = rng.uniform(0.05, 0.95, size=200)
        y = (rng.uniform(size=200) < p).astype(int)
        pv.append(hosmer_lemeshow(y, p).pvalue)
    pv = np.array(pv)
    # with known (not fitted) probabilities the statistic is closer to chi2_g than chi2_{g-2},
    # so the p-values under the null are smaller than uniform but not tiny
    assert 0.05 < np.mean(pv < 0.05) < 0.3
    assert np.mean(pv) > 0.3


# ------------------------------------------------------------------ Spiegelhalter
def test_spiegelhalter_hand_example():
    y = [0, 1, 1, 0]
    p = [0.2, 0.9, 0.6, 0.3]
    # numerator: (-.2)(.6) + (.1)(-.8) + (.4)(-.2) + (-.3)(.4) = -0.4
    # variance: .36 * .16 + .64 * .09 + .04 * .24 + .16 * .21 = 0.1584
    z = -0.4 / math.sqrt(0.1584)
    r = spiegelhalter_z(y, p)
    assert r.statistic == pytest.approx(z, rel=1e-13)
    assert r.pvalue == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)
    zz, pv = r
    assert (zz, pv) == (r.statistic, r.pvalue)


def test_spiegelhalter_matches_slow_loop_and_null_distribution():
    rng = np.random.default_rng(4)
    p = rng.uniform(size=500)
    y = (rng.uniform(size=500) < p).astype(int)
    num = sum((yi - pi) * (1 - 2 * pi) for yi, pi in zip(y, p, strict=True))
    den = math.sqrt(sum((1 - 2 * pi) ** 2 * pi * (1 - pi) for pi in p))
    assert spiegelhalter_z(y, p).statistic == pytest.approx(num / den, rel=1e-11)
    zs = []
    for _ in range(300):
        y = (rng.uniform(size=500) < p).astype(int)
        zs.append(spiegelhalter_z(y, p).statistic)
    assert abs(np.mean(zs)) < 0.2 and 0.8 < np.std(zs) < 1.2


def test_spiegelhalter_detects_overconfidence():
    rng = np.random.default_rng(5)
    true = rng.uniform(0.2, 0.8, size=2000)
    y = (rng.uniform(size=2000) < true).astype(int)
    over = np.clip(0.5 + 1.8 * (true - 0.5), 0, 1)
    assert spiegelhalter_z(y, over).pvalue < 1e-6


def test_spiegelhalter_undefined():
    with pytest.raises(ValueError, match="undefined"):
        spiegelhalter_z([0, 1, 1], [0.5, 1.0, 0.0])


def test_hl_reproduces_r_rounding_of_breaks():
    # n = 8, g = 7: R's prob 5 * (1/7) gives index 1 + 7 * 0.7142857142857142 = 5.999999999999999,
    # so its break is (1 - h) * 0.59 + h * 0.72 = 0.7199999999999999 < 0.72 and the row with
    # p = 0.72 falls in the next group (with 0.79), leaving (0.59, 0.72-] empty. A naive
    # np.quantile(p, i / g) puts 0.72 in a group of its own (7 groups, df = 5).
    p = [0.19, 0.33, 0.36, 0.45, 0.59, 0.72, 0.79, 0.89]
    y = [0, 0, 1, 0, 1, 1, 1, 1]
    r = hosmer_lemeshow(y, p, g=7)
    assert r.table["upper"].iloc[4] == 0.7199999999999999
    assert r.table["n"].tolist() == [2, 1, 1, 1, 0, 2, 1]
    assert r.df == 4
    slow = r_hoslem(y, p, 7)
    assert r.statistic == pytest.approx(slow[0], rel=1e-12) and r.df == slow[1]
    naive = np.unique(np.quantile(p, np.arange(8) / 7))
    assert len(naive) == 8 and naive[5] == 0.72
