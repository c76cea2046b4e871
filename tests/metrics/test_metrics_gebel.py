"""Gebel's (2009) CR, 1 - RMSE, WCR and Cal (thesis section 2.4, eqs. 2.3-2.6)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.metrics import cal, correctness_rate, error_rate, one_minus_rmse, wcr


def _slow(y, P):
    """The thesis formulas with plain loops; P is a list of rows of class probabilities."""
    n, k = len(P), len(P[0])
    assigned = [max(range(k), key=lambda j, r=row: (r[j], -j)) for row in P]  # ties: lowest index
    cr = sum(1 for i in range(n) if assigned[i] == y[i]) / n
    rmse = 0.0
    for i in range(n):
        rmse += math.sqrt(sum(((1.0 if y[i] == j else 0.0) - P[i][j]) ** 2 for j in range(k)) / k)
    one_rmse = 1 - rmse / n
    total = 0.0
    for kk in range(k):
        t = [i for i in range(n) if assigned[i] == kk]
        if not t:
            continue
        for j in range(k):
            cf = sum(P[i][j] for i in t) / len(t)
            crk = sum(1 for i in t if y[i] == j) / len(t)
            total += abs(cf - crk)
    w = 1 - total / k**2
    return cr, one_rmse, w, math.sqrt(one_rmse * w)


def test_binary_hand_example():
    y = [1, 0, 0, 1]
    p = [0.8, 0.4, 0.6, 0.2]
    # assigned 1, 0, 1, 0 -> correct rows 0 and 1
    assert correctness_rate(y, p) == 0.5
    # row terms sqrt(((y - p)^2 + ((1 - y) - (1 - p))^2) / 2) = |y - p| = .2 .4 .6 .8
    assert one_minus_rmse(y, p) == pytest.approx(0.5)
    # T_1 = rows 0, 2: Cf = (.7, .3) for classes (1, 0), CR = (.5, .5) -> |.2| + |.2|
    # T_0 = rows 1, 3: Cf(class 0) = .7, CR = .5 -> .2 + .2; WCR = 1 - .8 / 4
    assert wcr(y, p) == pytest.approx(0.8)
    assert cal(y, p) == pytest.approx(math.sqrt(0.4))


def test_three_class_hand_example():
    y = [0, 1, 2, 2]
    P = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.1, 0.2, 0.7]]
    # assigned 0, 1, 1, 2 -> rows 0, 1, 3 correct
    assert correctness_rate(y, P) == 0.75
    row = [
        math.sqrt((0.4**2 + 0.3**2 + 0.1**2) / 3),
        math.sqrt((0.2**2 + 0.5**2 + 0.3**2) / 3),
        math.sqrt((0.3**2 + 0.4**2 + 0.7**2) / 3),
        math.sqrt((0.1**2 + 0.2**2 + 0.3**2) / 3),
    ]
    assert one_minus_rmse(y, P) == pytest.approx(1 - sum(row) / 4)
    # T_0 = {0}: Cf (.6,.3,.1) vs CR (1,0,0) -> .4+.3+.1 = .8
    # T_1 = {1,2}: Cf (.25,.45,.3) vs CR (0,.5,.5) -> .25+.05+.2 = .5
    # T_2 = {3}: Cf (.1,.2,.7) vs CR (0,0,1) -> .1+.2+.3 = .6
    assert wcr(y, P) == pytest.approx(1 - 1.9 / 9)
    assert cal(y, np.array(P)) == pytest.approx(math.sqrt((1 - sum(row) / 4) * (1 - 1.9 / 9)))


def test_binary_equals_two_column_matrix_and_closed_forms():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    P = np.column_stack([1 - p, p])
    for f in (correctness_rate, one_minus_rmse, wcr, cal):
        assert f(y, p) == pytest.approx(f(y, P), abs=1e-15)
    assert correctness_rate(y, p) == pytest.approx(1 - error_rate(y, p))
    assert one_minus_rmse(y, p) == pytest.approx(1 - np.mean(np.abs(y - p)), abs=1e-14)
    hi = p > 0.5
    d1 = abs(p[hi].mean() - y[hi].mean())
    d0 = abs(p[~hi].mean() - y[~hi].mean())
    assert wcr(y, p) == pytest.approx(1 - (d0 + d1) / 2, abs=1e-14)


def test_tie_goes_to_class_zero():
    assert correctness_rate([0], [0.5]) == 1.0
    assert correctness_rate([1, 0], [[0.5, 0.5], [0.5, 0.5]]) == 0.5


def test_empty_partition_contributes_nothing():
    # every p > .5: only T_1 exists; d1 = |mean p - mean y| = |.8 - .5|; WCR = 1 - 2 * .3 / 4
    y = [1, 0]
    p = [0.7, 0.9]
    assert wcr(y, p) == pytest.approx(1 - 0.6 / 4)
    assert wcr(y, p) == pytest.approx(_slow(y, [[0.3, 0.7], [0.1, 0.9]])[2])


@pytest.mark.parametrize("k", [2, 3, 5])
def test_match_slow_loops(k):
    rng = np.random.default_rng(k)
    n = 120
    P = rng.dirichlet(np.ones(k) * 0.7, size=n)
    y = np.array([rng.choice(k, p=row) for row in P])
    slow = _slow(list(y), P.tolist())
    fast = (correctness_rate(y, P), one_minus_rmse(y, P), wcr(y, P), cal(y, P))
    np.testing.assert_allclose(fast, slow, atol=1e-13)
    df = pd.DataFrame(P)
    assert wcr(pd.Series(y), df) == pytest.approx(slow[2], abs=1e-13)


@given(st.integers(2, 4), st.integers(1, 30), st.integers(0, 2**31))
@settings(max_examples=60, deadline=None)
def test_measures_in_unit_interval_and_match_slow(k, n, seed):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(k), size=n)
    if seed % 3 == 0:  # exact ties and hard 0/1 rows
        P = np.round(P * 4) / 4
        P[:, -1] = 1 - P[:, :-1].sum(axis=1)
        P = np.clip(P, 0, 1)
        P = P / P.sum(axis=1, keepdims=True)
    y = rng.integers(0, k, size=n)
    vals = (correctness_rate(y, P), one_minus_rmse(y, P), wcr(y, P), cal(y, P))
    assert all(0.0 <= v <= 1.0 for v in vals)
    np.testing.assert_allclose(vals, _slow(list(y), P.tolist()), atol=1e-12)


def test_perfect_predictions_score_one():
    y = [0, 1, 1, 0]
    p = [0.0, 1.0, 1.0, 0.0]
    assert (correctness_rate(y, p), one_minus_rmse(y, p), wcr(y, p), cal(y, p)) == (
        1.0,
        1.0,
        1.0,
        1.0,
    )


def test_cal_without_root_is_the_product_of_the_thesis_tables():
    """cal(root=False) = (1 - RMSE) WCR, the quantity of the thesis's Tables 6.3-6.13."""
    y, p = [1, 0, 0, 1], [0.8, 0.4, 0.6, 0.2]
    assert cal(y, p, root=False) == pytest.approx(0.5 * 0.8)
    assert cal(y, p, root=False) == pytest.approx(cal(y, p) ** 2)
    # a certain constant prediction on balanced classes: 1 - RMSE = .5 (half the rows off by 1),
    # one partition T_1 with Cf = (0, 1) against CR = (.5, .5): WCR = 1 - 1 / 4 = .75.
    # product .375 = the thesis's Cal at CR .500 (Tab. 6.5, Banknotes, NB + ir and NB + bay-alap);
    # eq. 2.6's root would give .612
    y2 = [1, 1, 0, 0]
    assert (one_minus_rmse(y2, [1.0] * 4), wcr(y2, [1.0] * 4)) == (0.5, 0.75)
    assert cal(y2, [1.0] * 4, root=False) == 0.375
    assert cal(y2, [1.0] * 4) == pytest.approx(math.sqrt(0.375))
    # three classes: the hand example above without the root
    y3 = [0, 1, 2, 2]
    P3 = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3], [0.1, 0.2, 0.7]]
    _, one_rmse, w, root = _slow(y3, P3)
    assert cal(y3, P3, root=False) == pytest.approx(one_rmse * w, abs=1e-15)
    assert cal(y3, P3) == pytest.approx(root, abs=1e-15)
    with pytest.raises(TypeError, match="root must be True .eq. 2.6. or False"):
        cal(y, p, root="no")


def test_bad_inputs():
    with pytest.raises(ValueError, match="each row of p must sum to 1"):
        wcr([0, 1], [[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(ValueError, match="class indices 0..2"):
        cal([0, 3], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(ValueError, match="at least 2 class columns"):
        correctness_rate([0], [[1.0]])
    with pytest.raises(ValueError, match="1-D .* or 2-D"):
        one_minus_rmse([0], np.ones((1, 1, 2)) / 2)
    with pytest.raises(ValueError, match="y has 3 rows but p has 2 rows"):
        wcr([0, 1, 1], [[0.5, 0.5], [0.2, 0.8]])
    with pytest.raises(ValueError, match="p must lie in \\[0, 1\\]"):
        wcr([0, 1], [[1.5, -0.5], [0.2, 0.8]])
    with pytest.raises(ValueError, match="y must be binary"):
        correctness_rate([0, 2], [0.2, 0.8])
