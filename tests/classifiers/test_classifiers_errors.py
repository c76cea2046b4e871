"""Bad input to ev.eknn and ev.gbt: clear ValueError / TypeError messages naming the problem
and the fix."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev

D = pd.DataFrame({"s": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "t": [1.0, 0.0, 2.0, 5.0, 3.0, 4.0],
                  "y": ["a", "b", "a", "b", "a", "b"]})


@pytest.mark.parametrize("k", [6, 7, 100])
def test_k_not_smaller_than_n(k):
    with pytest.raises(ValueError, match=rf"k = {k} .*smaller than the number of training rows \(n = 6\).*k <= 5"):
        ev.eknn("y ~ s", D, k=k)


@pytest.mark.parametrize("k", [0, -3])
def test_k_below_one(k):
    with pytest.raises(ValueError, match="k must be at least 1"):
        ev.eknn("y ~ s", D, k=k)


@pytest.mark.parametrize("k", [2.5, "3", True, None])
def test_k_not_a_whole_number(k):
    with pytest.raises(TypeError, match="k must be a whole number"):
        ev.eknn("y ~ s", D, k=k)


def test_k_as_integral_float_is_accepted():
    assert ev.eknn("y ~ s", D, k=3.0, optimize=False).k == 3


@pytest.mark.parametrize("alpha", [0.0, -0.1, 1.0001, 2, float("nan"), float("inf")])
def test_alpha_outside_unit_interval(alpha):
    with pytest.raises(ValueError, match=r"alpha must lie in \(0, 1\]"):
        ev.eknn("y ~ s", D, k=2, alpha=alpha)


def test_alpha_not_a_number():
    with pytest.raises(TypeError, match="alpha must be a number"):
        ev.eknn("y ~ s", D, k=2, alpha="high")


@pytest.mark.parametrize("lam", [-0.1, 1.5, float("nan")])
def test_lam_outside_unit_interval(lam):
    with pytest.raises(ValueError, match=r"lam must lie in \[0, 1\]"):
        ev.eknn("y ~ s", D, k=2, lam=lam)


def test_gamma_bad():
    with pytest.raises(ValueError, match="gamma has 3 values but the response has 2 classes"):
        ev.eknn("y ~ s", D, k=2, gamma=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="gamma must be finite and > 0"):
        ev.eknn("y ~ s", D, k=2, gamma=[1.0, 0.0])
    with pytest.raises(ValueError, match=r"missing \['b'\], unknown \['c'\]"):
        ev.eknn("y ~ s", D, k=2, gamma={"a": 1.0, "c": 2.0})


def test_optimize_not_bool():
    with pytest.raises(TypeError, match="optimize must be True or False"):
        ev.eknn("y ~ s", D, k=2, optimize="yes")


@pytest.mark.parametrize("radius", [0.0, -1.0, float("inf"), float("nan")])
def test_radius_not_positive_finite(radius):
    with pytest.raises(ValueError, match="radius must be a finite number > 0"):
        ev.gbt("y ~ s", D, radius=radius)


def test_radius_not_a_number():
    with pytest.raises(TypeError, match="radius must be a number"):
        ev.gbt("y ~ s", D, radius="wide")


@pytest.mark.parametrize("fitter", [ev.gbt, lambda f, d: ev.eknn(f, d, k=2)])
def test_one_class_training_set(fitter):
    with pytest.raises(ValueError, match=r"response column 'y' has a single class: 'a' in all 3 rows"):
        fitter("y ~ s", D[D["y"] == "a"])


@pytest.mark.parametrize("fitter", [ev.gbt, lambda f, d: ev.eknn(f, d, k=2)])
def test_nan_scores(fitter):
    d = D.copy()
    d.loc[2, "t"] = np.nan
    with pytest.raises(ValueError, match=r"column 't' has missing values in 1 row of 6 \(index 2\).*missing='drop'"):
        fitter("y ~ s + t", d)


def test_nan_response():
    d = D.copy()
    d.loc[[1, 4], "y"] = None
    with pytest.raises(ValueError, match=r"response column 'y' has missing values in 2 rows of 6 \(index 1, 4\)"):
        ev.gbt("y ~ s", d)


def test_infinite_scores():
    d = D.copy()
    d.loc[0, "s"] = np.inf
    with pytest.raises(ValueError, match="column 's' has infinite values"):
        ev.eknn("y ~ s", d, k=2)


def test_nan_in_newdata():
    fit = ev.eknn("y ~ s", D, k=2)
    with pytest.raises(ValueError, match="column 's' of newdata has missing values in 1 row"):
        fit.predict(pd.DataFrame({"s": [1.0, np.nan]}))


def test_newdata_lacks_a_column():
    fit = ev.gbt("y ~ s + t", D)
    with pytest.raises(ValueError, match=r"newdata \(1 row\) lacks column\(s\) \['t'\]"):
        fit.predict(pd.DataFrame({"s": [1.0]}))
    with pytest.raises(TypeError, match="newdata must be a pandas DataFrame"):
        fit.predict([[0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="columns"):
        fit.predict(np.zeros((2, 3)))  # a 2-D array must have one column per score column


def test_no_score_terms():
    with pytest.raises(ValueError, match="has no score terms"):
        ev.gbt("y ~ 1", D)


def test_constant_and_duplicated_score_columns_are_accepted_and_change_no_distance():
    """The classifiers estimate no coefficient per column (class_frame(rank_checks=False)): a
    constant column or a copy of a column is accepted, as R's evclass accepts them, and a
    constant column adds 0 to every distance, so the EkNN's masses are those without it."""
    new = pd.DataFrame({"s": [0.5, 2.5, 4.2], "t": [1.0, 3.0, 0.2]})
    base = ev.eknn("y ~ s + t", D, k=2, gamma=[0.3, 0.7], optimize=False)
    const = ev.eknn("y ~ s + t + c", D.assign(c=1.0), k=2, gamma=[0.3, 0.7], optimize=False)
    got = const.predict(new.assign(c=1.0), type="mass").values
    np.testing.assert_allclose(got, base.predict(new, type="mass").values, rtol=0, atol=1e-15)
    dup = ev.credal_knn("y ~ s + t + u", D.assign(u=D["s"]), k=2)
    b = dup.predict(new.assign(u=new["s"]), type="belief")
    assert np.isfinite(b.to_numpy()).all()
    assert ev.gbt("y ~ s + c", D.assign(c=1.0)).predict(new.assign(c=1.0)).notna().all().all()


def test_more_score_columns_than_rows_is_accepted_by_the_classifiers():
    """15 rows and 18 score columns (the evmultinom study's Segment cells) is a regression's
    error but not a k-NN's: the EkNN and the credal K-NN fit and predict finite masses, while a
    calibrator still refuses the design."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(15, 18)) + np.repeat([0.0, 2.0, 4.0], 5)[:, None]  # separated classes
    cols = [f"q{j}" for j in range(18)]
    d = pd.DataFrame(X, columns=cols).assign(y=np.repeat(["a", "b", "c"], 5))
    f = "y ~ " + " + ".join(cols)
    new = pd.DataFrame(rng.normal(size=(4, 18)), columns=cols)
    for fit in (ev.eknn(f, d, k=5), ev.credal_knn(f, d, k=5)):
        m = fit.predict(new, type="mass").values
        assert np.isfinite(m).all() and np.allclose(m.sum(axis=1), 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="15 rows for 19 design columns"):
        ev.evmultinom(f, d)
    # temperature reads one column per class: 18 columns for 3 classes match no class first
    with pytest.raises(ValueError, match="no score column of formula .* belongs to task 'a'"):
        ev.temperature(f, d.assign(**{c: np.abs(d[c]) for c in cols}))


def test_positive_with_three_classes():
    d = D.assign(y=["a", "b", "c", "a", "b", "c"])
    with pytest.raises(ValueError, match="positive='a' is only for a two-class response"):
        ev.gbt("y ~ s", d, positive="a")


def test_positive_not_a_level():
    with pytest.raises(ValueError, match="positive='z' is not a level"):
        ev.gbt("y ~ s", D, positive="z")


def test_formula_and_data_errors():
    with pytest.raises(ValueError, match="has no '~'"):
        ev.gbt("s + t", D)
    with pytest.raises(ValueError, match="response column 'cls' of formula 'cls ~ s' not found"):
        ev.gbt("cls ~ s", D)
    with pytest.raises(ValueError, match="must be a column name"):
        ev.gbt("np.abs(y) ~ s", D)
    with pytest.raises(ValueError, match=r"is not allowed: the string 'a'"):  # the whitelist first
        ev.gbt("I(y == 'a') ~ s", D)
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        ev.eknn("y ~ s", D.to_numpy(), k=2)
    with pytest.raises(TypeError, match="formula must be a string"):
        ev.gbt(42, D)
    with pytest.raises(ValueError, match="data has 0 rows"):
        ev.gbt("y ~ s", D.iloc[:0])
    with pytest.raises(ValueError, match="missing must be 'raise' or 'drop'"):
        ev.gbt("y ~ s", D, missing="ignore")


def test_predict_and_decide_arguments():
    fit = ev.eknn("y ~ s", D, k=2)
    with pytest.raises(ValueError, match="type must be one of"):
        fit.predict(D, type="probability")
    with pytest.raises(ValueError, match="type must be one of"):
        fit.predict_loo(type="odds")
    with pytest.raises(ValueError, match="strategy must be one of"):
        fit.decide(D, strategy="bold")
    with pytest.raises(ValueError, match=r"reject_cost must lie in \[0, 1\]"):
        fit.decide(D, reject_cost=1.5)
    with pytest.raises(ValueError, match="either reject_cost .* or loss"):
        fit.decide(D, reject_cost=0.2, loss=ev.belief.loss_matrix(fit.frame))
    with pytest.raises(TypeError, match="loss must be a DataFrame"):
        fit.decide(D, loss=np.eye(2))


def test_reject_class_name_clash():
    d = D.assign(y=["reject", "b", "reject", "b", "reject", "b"])
    fit = ev.gbt("y ~ s", d)
    with pytest.raises(ValueError, match="a class is named 'reject'"):
        fit.decide(d, reject_cost=0.2)
