"""Hostile inputs to the binary calibrators: calibration scores of any magnitude, test scores up
to the largest double, object columns holding numbers, fewer rows than parameters.

Each case is a bug the hostile-input sweep found: a wrong fit that passed silently, a NaN, or an
error that did not say what was wrong.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.likelihood import column_scale, newton_mle

BIG = np.finfo(float).max


def _data(n: int = 80, seed: int = 0) -> pd.DataFrame:
    g = np.random.default_rng(seed)
    s1 = g.normal(0, 1, n)
    s2 = g.normal(0, 1, n) + 0.5 * s1
    y = (g.random(n) < 1 / (1 + np.exp(-(0.3 + 1.5 * s1 - 0.5 * s2)))).astype(int)
    return pd.DataFrame({"s1": s1, "s2": s2, "y": y})


@pytest.fixture(scope="module")
def cal() -> pd.DataFrame:
    return _data()


@pytest.fixture(scope="module")
def new() -> pd.DataFrame:
    return _data(6, 5).drop(columns="y")


# ------------------------------------------------------------------ evlogit: scale of the scores
@pytest.mark.parametrize("scale", [1e-100, 1e30, 1e100, 1e140])
def test_evlogit_is_equivariant_under_the_scale_of_the_scores(cal, new, scale):
    """Scores times c give coefficients divided by c and the same beliefs. Before the fix, the
    Newton polish stopped when the (tiny) steps of a coefficient of 1e-30 fell below the tolerance:
    at c = 1e30 the intercept came out as 3e-61 instead of 0.077 and predict raised 'profiling
    has found a better solution'."""
    ref = ev.evlogit("y ~ s1 + s2", cal)
    big = cal.assign(s1=cal.s1 * scale, s2=cal.s2 * scale)
    fit = ev.evlogit("y ~ s1 + s2", big)
    np.testing.assert_allclose(fit.params.to_numpy() * [1, scale, scale], ref.params.to_numpy(), rtol=1e-9)
    np.testing.assert_allclose(fit.bse.to_numpy() * [1, scale, scale], ref.bse.to_numpy(), rtol=1e-7)
    assert fit.llf == pytest.approx(ref.llf, rel=1e-12)
    got = fit.predict(new.assign(s1=new.s1 * scale, s2=new.s2 * scale), type="belief")
    np.testing.assert_allclose(got.to_numpy(), ref.predict(new, type="belief").to_numpy(), atol=1e-9)


def test_evlogit_scaled_scores_with_binary_targets_and_disjoint(cal, new):
    ref = ev.evlogit("y ~ s1 + s2", cal, targets="binary")
    fit = ev.evlogit("y ~ s1 + s2", cal.assign(s1=cal.s1 * 1e100, s2=cal.s2 * 1e100), targets="binary")
    np.testing.assert_allclose(fit.params.to_numpy() * [1, 1e100, 1e100], ref.params.to_numpy(), rtol=1e-9)
    d_ref = ev.disjoint("y ~ s1 + s2", cal).predict(new, type="belief")
    d_big = ev.disjoint("y ~ s1 + s2", cal.assign(s1=cal.s1 * 1e100, s2=cal.s2 * 1e100))
    got = d_big.predict(new.assign(s1=new.s1 * 1e100, s2=new.s2 * 1e100), type="belief")
    np.testing.assert_allclose(got.to_numpy(), d_ref.to_numpy(), atol=1e-8)


def test_newton_mle_scaled_columns_give_scaled_estimate():
    g = np.random.default_rng(3)
    X = np.c_[np.ones(50), g.normal(size=50)]
    t = (g.random(50) < 0.5).astype(float)
    beta, _ = newton_mle(X, t)
    d = np.array([1.0, 3e40])
    beta_big, _ = newton_mle(X * d, t)
    np.testing.assert_allclose(beta_big * d, beta, rtol=1e-10)
    assert column_scale(np.zeros((0, 2))).tolist() == [1.0, 1.0]
    assert column_scale(np.array([[0.75, -3.0, 0.0]])).tolist() == [1.0, 4.0, 1.0]


# ------------------------------------------------------------------ bayescal: tails of the densities
@pytest.mark.parametrize("density", ["alap", "gauss"])
def test_bayescal_test_scores_up_to_the_largest_double_are_finite(cal, density):
    """Both class log-densities overflow to -inf far out (|s| > 1e154 for gauss, near 1.8e308
    for alap); their difference was NaN. It is now the exact tail: the sign of the leading term
    of the log-odds polynomial."""
    fit = ev.bayescal("y ~ s1", cal, density=density)
    s = np.array([1e3, 1e10, 1e100, 1e160, 1e300, BIG])
    for sign in (1.0, -1.0):
        lo = fit.log_odds(sign * s)
        assert not np.isnan(lo).any()
        theta = fit.predict(pd.DataFrame({"s1": sign * s}), type="prob").to_numpy()
        assert np.isfinite(theta).all()
        # far in the tail theta is constant: the limit of the first (finite) value
        assert np.all(theta[2:] == theta[2])
    p = fit.params
    if density == "gauss":
        # the log-odds is a s^2 + ..., a = 1/(2 sd_-^2) - 1/(2 sd_+^2): its sign gives the limit
        a = 0.5 / p.loc["negative", "sd"] ** 2 - 0.5 / p.loc["positive", "sd"] ** 2
        want = 1.0 if a > 0 else 0.0
        assert fit.predict(pd.DataFrame({"s1": [BIG, -BIG]}), type="prob").tolist() == [want, want]
    else:
        # right tail: slope gamma_- - gamma_+; left tail: slope beta_+ - beta_-
        right = 1.0 if p.loc["negative", "gamma"] > p.loc["positive", "gamma"] else 0.0
        left = 1.0 if p.loc["positive", "beta"] < p.loc["negative", "beta"] else 0.0
        assert fit.predict(pd.DataFrame({"s1": [BIG, -BIG]}), type="prob").tolist() == [right, left]


def test_bayescal_far_formula_matches_the_direct_difference_where_both_are_finite(cal):
    for density in ("alap", "gauss"):
        fit = ev.bayescal("y ~ s1", cal, density=density)
        s = np.array([-50.0, -3.0, 4.0, 60.0])
        neg, pos = fit.params.loc["negative"], fit.params.loc["positive"]
        np.testing.assert_allclose(fit._log_odds_far(s, neg, pos), fit.log_odds(s), rtol=1e-12, atol=1e-9)


# ------------------------------------------------------------------ betacal: rows and parameters
def test_betacal_fewer_rows_than_parameters_says_so(cal):
    two = cal.sort_values("y").iloc[[0, -1]].assign(s1=[0.3, 0.8])
    with pytest.raises(ValueError, match=r"2 rows for 3 parameters \['Intercept', 'log\(s1\)', '-log\(1-s1\)'\]"):
        ev.betacal("y ~ s1", two)
    three = pd.DataFrame({"s1": [0.3, 0.8, 0.3], "y": [0, 1, 1]})
    with pytest.raises(ValueError, match=r"linearly dependent on the 3 calibration rows \(rank 2 < 3"):
        ev.betacal("y ~ s1", three)
    # 'am' has 2 parameters: two rows are enough
    fit = ev.betacal("y ~ s1", two, parameters="am")
    assert np.isfinite(fit.predict(pd.DataFrame({"s1": [0.5]}), type="belief").to_numpy()).all()


# ------------------------------------------------------------------ numbers in object columns
@pytest.mark.parametrize("method", ["evlogit", "evbinning", "isotonic", "normcal"])
def test_object_column_of_numbers_is_numeric_not_a_factor(cal, new, method):
    """``astype(object)`` (or numbers mixed with None) used to be read as a factor with one level
    per distinct value: 'data has 80 rows for 81 design columns'."""
    fitter = getattr(ev, method)
    f = "y ~ s1" if method in ("isotonic", "normcal") else "y ~ s1 + s2"
    ref = fitter(f, cal).predict(new, type="belief")
    got = fitter(f, cal.assign(s1=cal.s1.astype(object))).predict(new.assign(s1=new.s1.astype(object)), type="belief")
    np.testing.assert_allclose(got.to_numpy(), ref.to_numpy(), rtol=1e-12)


def test_object_column_of_numbers_with_none_is_missing(cal):
    s = cal.s1.astype(object)
    s.iloc[[3, 7]] = None
    with pytest.raises(ValueError, match=r"column 's1' has missing values in 2 rows of 80 \(index 3, 7\)"):
        ev.evlogit("y ~ s1", cal.assign(s1=s))
    with pytest.raises(ValueError, match="column 's1' of data holds numbers beyond the float64 range"):
        ev.evlogit("y ~ s1", cal.assign(s1=[10**400] + [1] * 79))


# ------------------------------------------------------------------ numbers stored as text
def test_text_column_of_numbers_with_a_stray_word_names_the_row(cal):
    s = cal.s1.astype(str).astype(object)
    s.iloc[5] = "abc"
    with pytest.raises(ValueError, match=r"column 's1' is text .* 79 of its 80 values are numbers and 1 is not "
                                         r"\(index: value 5: 'abc'\)\. Read as a factor it would have 80 levels"):
        ev.evlogit("y ~ s1 + s2", cal.assign(s1=s))
    with pytest.raises(ValueError, match=r"column 's1' holds numbers stored as text .* pd\.to_numeric"):
        ev.evlogit("y ~ s1 + s2", cal.assign(s1=cal.s1.astype(str)))


def test_text_factor_with_few_numeric_levels_stays_a_factor(cal):
    """R's rule: a character column is a factor, even when its levels look like numbers."""
    fit = ev.evlogit("y ~ g + s2", cal.assign(g=np.where(cal.s1 > 0, "1", "2")))
    assert list(fit.params.index) == ["Intercept", "g[T.2]", "s2"]


def test_plr_test_scores_up_to_the_largest_double(cal):
    """The hat-function product overflowed (RuntimeWarning: overflow in matmul; an error under
    the project's warning filter) for |s| near 1e308; the log-odds is now w_a + u (w_b - w_a)."""
    import warnings

    from evstat.calibration._plr import plr_basis, plr_log_odds

    fit = ev.plr("y ~ s1", cal)
    s = np.array([BIG, -BIG, 1e308, 1e10, -1e10, 0.3, 5.0, -3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theta = fit.predict(pd.DataFrame({"s1": s}), type="prob").to_numpy()
    slopes = fit.slopes
    assert theta[0] == (1.0 if slopes[-1] > 0 else 0.0) and theta[1] == (1.0 if slopes[0] < 0 else 0.0)
    x = np.linspace(-6, 6, 241)
    np.testing.assert_allclose(plr_log_odds(x, fit.knots, fit.weights), plr_basis(x, fit.knots) @ fit.weights,
                               rtol=1e-12, atol=1e-12)
    assert plr_log_odds([0.5, 4.0, 1e308], [0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 1.0, 3.0]).tolist() == [0.5, 5.0, np.inf]
    # a flat outer segment stays flat however far out
    assert plr_log_odds([-1e308], [0.0, 1.0, 2.0, 3.0], [2.0, 2.0, 1.0, 3.0]).tolist() == [2.0]
