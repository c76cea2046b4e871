"""Bad input to evlogit and its results: a clear ValueError/TypeError naming the problem."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evstat as ev


@pytest.fixture(scope="module")
def cal() -> pd.DataFrame:
    return ev.datasets.simulate_gaussian(40, seed=1)


@pytest.fixture(scope="module")
def fit(cal):
    return ev.evlogit("y ~ x1 + x2", data=cal)


# ---------------------------------------------------------------------------------------------
# calibration data
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, match",
    [
        (np.nan, r"column 'x1' has missing values in 1 row of 40 \(index 3\).*missing='drop'"),
        (np.inf, r"column 'x1' has infinite values in 1 row of 40 \(index 3\)"),
        (-np.inf, r"column 'x1' has infinite values in 1 row of 40 \(index 3\)"),
    ],
)
def test_non_finite_scores_in_data(cal, value, match):
    d = cal.copy()
    d.loc[3, "x1"] = value
    with pytest.raises(ValueError, match=match):
        ev.evlogit("y ~ x1 + x2", data=d)


def test_missing_drop_in_data(cal):
    d = cal.copy()
    d.loc[[3, 30], "x1"] = np.nan
    fit = ev.evlogit("y ~ x1 + x2", data=d, missing="drop")
    ref = ev.evlogit("y ~ x1 + x2", data=d.drop(index=[3, 30]))
    assert fit.nobs == 38
    pd.testing.assert_series_equal(fit.params, ref.params)
    assert "2 dropped" in fit.summary().as_text()
    with pytest.raises(ValueError, match="missing must be 'raise' or 'drop', got 'zero'"):
        ev.evlogit("y ~ x1", data=cal, missing="zero")


def test_one_class_response(cal):
    with pytest.raises(ValueError, match=r"response column 'y' has a single class: 1 in all 20 rows.*add rows of the other class"):
        ev.evlogit("y ~ x1", data=cal[cal["y"] == 1])


def test_three_class_response(cal):
    with pytest.raises(ValueError, match=r"response column 'y' has 3 distinct values .* two-class response"):
        ev.evlogit("y ~ x1", data=cal.assign(y=np.arange(40) % 3))


def test_bad_positive_level(cal):
    with pytest.raises(ValueError, match=r"positive=3 is not a level of response column 'y'"):
        ev.evlogit("y ~ x1", data=cal, positive=3)


def test_fewer_rows_than_parameters(cal):
    with pytest.raises(ValueError, match=r"data has 2 rows for 3 design columns.*at least as many rows as parameters"):
        ev.evlogit("y ~ x1 + x2", data=cal.iloc[[0, 39]])


def test_as_many_rows_as_parameters_is_allowed(cal):
    fit = ev.evlogit("y ~ x1 + x2", data=cal.iloc[[0, 1, 38]])
    assert fit.df_resid == 0
    b = fit.predict(cal.head(3), type="belief")
    assert np.all((b["bel"] <= b["theta"]) & (b["theta"] <= b["pl"]))


def test_as_many_rows_as_parameters_emits_no_warning(cal):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev.evlogit("y ~ x1 + x2", data=cal.iloc[[0, 1, 38]])


def test_constant_score_column(cal):
    with pytest.raises(ValueError, match=r"design column 'c' is constant \(all 40 rows equal 2\).*remove it"):
        ev.evlogit("y ~ x1 + c", data=cal.assign(c=2.0))


def test_collinear_score_columns(cal):
    d = cal.assign(x3=2 * cal["x1"] - cal["x2"])
    with pytest.raises(ValueError, match=r"design columns are collinear: 'x3' is a linear combination of 'x1', 'x2'"):
        ev.evlogit("y ~ x1 + x2 + x3", data=d)


def test_non_numeric_score_column(cal):
    with pytest.raises(ValueError, match=r"factor column 't' has a single level 'a'"):
        ev.evlogit("y ~ t", data=cal.assign(t="a"))


def test_unknown_column_in_formula(cal):
    with pytest.raises(ValueError, match=r"column\(s\) \['x9'\] used in formula 'y ~ x9' not found in data"):
        ev.evlogit("y ~ x9", data=cal)


@pytest.mark.parametrize(
    "s, y",
    [
        ([0, 1, 2, 3, 4, 5.0], [0, 0, 0, 1, 1, 1]),  # complete separation
        ([0, 1, 2, 3, 3, 4, 5, 6.0], [0, 0, 0, 0, 1, 1, 1, 1]),  # quasi-complete separation
    ],
)
def test_binary_targets_on_separated_data(s, y):
    df = pd.DataFrame({"s": s, "y": y})
    with pytest.raises(ValueError, match=r"\(quasi-\)separated by the scores \(n = \d+ rows\).*targets='platt'"):
        ev.evlogit("y ~ s", data=df, targets="binary")
    # Platt's smoothed targets always give a finite estimate
    fit = ev.evlogit("y ~ s", data=df)
    assert np.all(np.isfinite(fit.params)) and np.all(np.isfinite(fit.conf_int().to_numpy()))


def test_bad_targets_data_and_formula_types(cal):
    with pytest.raises(ValueError, match=r"targets must be 'platt' .* or 'binary', got 'soft'"):
        ev.evlogit("y ~ x1", data=cal, targets="soft")
    with pytest.raises(TypeError, match=r"data must be a pandas DataFrame, got ndarray"):
        ev.evlogit("y ~ x1", data=cal.to_numpy())
    with pytest.raises(TypeError, match="formula must be a string"):
        ev.evlogit(3, data=cal)


# ---------------------------------------------------------------------------------------------
# new data
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, match",
    [
        (np.nan, r"column 'x2' of newdata has missing values in 1 row of 3 \(index 1\)"),
        (np.inf, r"column 'x2' of newdata has infinite values in 1 row of 3 \(index 1\)"),
        (-np.inf, r"column 'x2' of newdata has infinite values in 1 row of 3 \(index 1\)"),
    ],
)
@pytest.mark.parametrize("verb", ["prob", "belief", "mass", "decide", "augment", "contour"])
def test_non_finite_scores_in_newdata(fit, cal, value, match, verb):
    n = cal.head(3).copy()
    n.loc[1, "x2"] = value
    call = {
        "decide": lambda: fit.decide(n),
        "augment": lambda: fit.augment(n),
        "contour": lambda: fit.predictive_contour(n),
    }.get(verb, lambda: fit.predict(n, type=verb))
    with pytest.raises(ValueError, match=match):
        call()


def test_unknown_columns_in_newdata(fit, cal):
    with pytest.raises(ValueError, match=r"newdata \(40 rows\) lacks column\(s\) \['x2'\] used by formula 'y ~ x1 \+ x2'"):
        fit.predict(cal[["x1"]])
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['x2'\]"):
        fit.decide(cal[["x1"]])


def test_newdata_not_a_dataframe(fit, cal):
    # a 2-D array is read as the score columns in order (from_arrays, issue 24): same answer
    pd.testing.assert_series_equal(fit.predict(cal[["x1", "x2"]].to_numpy()).reset_index(drop=True),
                                   fit.predict(cal).reset_index(drop=True), check_names=False)
    with pytest.raises(TypeError, match=r"newdata must be a pandas DataFrame with the score columns \['x1', 'x2'\] \(or a 2-D array of them in this order\), got list"):
        fit.predict(cal[["x1", "x2"]].to_numpy().tolist())
    with pytest.raises(ValueError, match=r"3 columns|2 score columns|columns"):
        fit.predict(np.zeros((2, 3)))


def test_non_numeric_newdata(fit, cal):
    with pytest.raises(ValueError, match=r"column 'x1' of newdata is not numeric"):
        fit.predict(cal.head(3).assign(x1=["a", "b", "c"]))


# ---------------------------------------------------------------------------------------------
# arguments of the verbs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda f, d: f.predict(d, type="class"), r"type must be one of \('prob', 'belief', 'mass', 'link', 'response'\), got 'class'"),
        (lambda f, d: f.decide(d, strategy="minimax"), r"strategy must be one of \('pessimistic', 'optimistic', 'pignistic', 'probabilistic', 'hurwicz'\), got 'minimax'"),
        (lambda f, d: f.decide(d, reject_cost=1.5), r"reject_cost must lie in \[0, 1\].*got 1.5"),
        (lambda f, d: f.decide(d, reject_cost=-0.1), r"reject_cost must lie in \[0, 1\].*got -0.1"),
        (lambda f, d: f.decide(d, reject_cost=float("nan")), r"reject_cost must lie in \[0, 1\].*got nan"),
        (lambda f, d: f.conf_int(level=95), r"level must lie strictly between 0 and 1 \(e.g. 0.95\), got 95"),
        (lambda f, d: f.conf_int(level=-0.5, method="wald"), "level must lie strictly between 0 and 1"),
        (lambda f, d: f.conf_int(method="bootstrap"), r"method must be 'profile' or 'wald', got 'bootstrap'"),
        (lambda f, d: f.tidy(conf_method="bootstrap"), r"method must be 'profile' or 'wald'"),
        (lambda f, d: f.profile("x3"), r"unknown term 'x3'; the model's terms are \['Intercept', 'x1', 'x2'\]"),
        (lambda f, d: f.profile(-1), r"term index -1 out of range"),
        (lambda f, d: f.predict(d, missing="zero"), "missing must be 'raise' or 'drop'"),
        (lambda f, d: f.likelihood_contour([0.0, 1.0]), r"beta must have shape \(\.\.\., 3\)"),
        (lambda f, d: f.predictive_contour(d)([0.5, -0.1]), r"theta values must lie in \[0, 1\]"),
        (lambda f, d: f.predictive_contour(d).level_set(2.0), r"gamma .* must lie in \[0, 1\]"),
    ],
)
def test_bad_arguments(fit, cal, call, match):
    with pytest.raises(ValueError, match=match):
        call(fit, cal.head(4))
