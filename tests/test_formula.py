"""Tests of evstat.formula: response coding, design matrices, validation, new data, persistence."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import patsy
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evstat.formula import ModelFrame, model_frame


@pytest.fixture
def cal() -> pd.DataFrame:
    """Calibration data with a shuffled, non-default integer index."""
    rng = np.random.default_rng(42)
    n = 40
    s = rng.uniform(0.5, 5.0, n)
    df = pd.DataFrame(
        {
            "y": np.tile([0, 1], n // 2),
            "svm1": rng.normal(size=n),
            "svm2": rng.normal(size=n),
            "s": s,
            "label": np.where(np.tile([0, 1], n // 2) == 1, "R", "M"),
            "text": ["a"] * n,
        },
        index=rng.permutation(np.arange(100, 100 + n)),
    )
    return df


def roundtrip(mf: ModelFrame) -> ModelFrame:
    return ModelFrame.from_dict(json.loads(json.dumps(mf.to_dict())))


# ---------------------------------------------------------------------------------------------
# worked example
# ---------------------------------------------------------------------------------------------


def test_worked_example_by_hand():
    df = pd.DataFrame({"y": [0, 1, 1, 0], "s": [1.0, 2.0, 4.0, 8.0]}, index=[7, 3, 5, 1])
    mf = model_frame("y ~ np.log(s) + I(s**2)", df)
    assert mf.formula == "y ~ np.log(s) + I(s**2)"
    assert mf.response == "y"
    assert mf.terms == ["Intercept", "np.log(s)", "I(s ** 2)"]
    expected = np.array(
        [
            [1.0, 0.0, 1.0],
            [1.0, np.log(2.0), 4.0],
            [1.0, np.log(4.0), 16.0],
            [1.0, np.log(8.0), 64.0],
        ]
    )
    np.testing.assert_array_equal(mf.X, expected)
    np.testing.assert_array_equal(mf.y, [0.0, 1.0, 1.0, 0.0])
    assert mf.X.dtype == np.float64 and mf.y.dtype == np.float64
    assert (mf.n, mf.p, mf.n_pos, mf.n_neg, mf.n_dropped) == (4, 3, 2, 2, 0)
    assert mf.classes == (0, 1) and mf.positive == 1
    assert list(mf.index) == [7, 3, 5, 1]
    assert mf.score_columns == ["s"]
    assert isinstance(mf.design_info, patsy.DesignInfo)
    assert "ModelFrame('y ~ np.log(s) + I(s**2)'" in repr(mf)


def test_arrays_are_read_only(cal):
    mf = model_frame("y ~ svm1", cal)
    with pytest.raises(ValueError, match="read-only"):
        mf.X[0, 0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        mf.y[0] = 5.0


# ---------------------------------------------------------------------------------------------
# response coding
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "classes", "positive"),
    [
        ([0, 1, 1, 0, 1], (0, 1), 1),
        ([0.0, 1.0, 1.0, 0.0, 1.0], (0.0, 1.0), 1.0),
        ([False, True, True, False, True], (False, True), True),
        (["M", "R", "R", "M", "R"], ("M", "R"), "R"),
        ([-1, 1, 1, -1, 1], (-1, 1), 1),
        ([1, 2, 2, 1, 2], (1, 2), 2),
        (["no", "yes", "yes", "no", "yes"], ("no", "yes"), "yes"),
    ],
)
def test_response_default_positive(values, classes, positive):
    df = pd.DataFrame({"y": values, "s": [0.1, 0.9, 0.7, 0.3, 0.8]})
    mf = model_frame("y ~ s", df)
    assert mf.classes == classes
    assert mf.positive == positive
    assert type(mf.positive) is type(positive)
    np.testing.assert_array_equal(mf.y, [0.0, 1.0, 1.0, 0.0, 1.0])
    assert (mf.n_pos, mf.n_neg) == (3, 2)


def test_response_strings_positive_m():
    df = pd.DataFrame({"y": ["M", "R", "R", "M", "R"], "s": [0.1, 0.9, 0.7, 0.3, 0.8]})
    mf = model_frame("y ~ s", df, positive="M")
    assert mf.classes == ("R", "M") and mf.positive == "M"
    np.testing.assert_array_equal(mf.y, [1.0, 0.0, 0.0, 1.0, 0.0])
    assert (mf.n_pos, mf.n_neg) == (2, 3)


def test_response_positive_zero_and_false():
    s = [0.1, 0.9, 0.7, 0.3]
    mf = model_frame("y ~ s", pd.DataFrame({"y": [0, 1, 1, 0], "s": s}), positive=0)
    assert mf.classes == (1, 0)
    np.testing.assert_array_equal(mf.y, [1.0, 0.0, 0.0, 1.0])
    mf = model_frame("y ~ s", pd.DataFrame({"y": [False, True, True, False], "s": s}), positive=False)
    assert mf.classes == (True, False)
    np.testing.assert_array_equal(mf.y, [1.0, 0.0, 0.0, 1.0])


def test_response_positive_int_matches_float_level():
    df = pd.DataFrame({"y": [0.0, 1.0, 1.0, 0.0], "s": [0.1, 0.9, 0.7, 0.3]})
    mf = model_frame("y ~ s", df, positive=1)
    assert mf.positive == 1.0 and isinstance(mf.positive, float)


def test_response_categorical_category_order():
    y = pd.Categorical(["M", "R", "R", "M", "R"], categories=["R", "M"])
    df = pd.DataFrame({"y": y, "s": [0.1, 0.9, 0.7, 0.3, 0.8]})
    mf = model_frame("y ~ s", df)
    # like R factor levels: the first category is the negative class
    assert mf.classes == ("R", "M") and mf.positive == "M"
    np.testing.assert_array_equal(mf.y, [1.0, 0.0, 0.0, 1.0, 0.0])
    mf2 = model_frame("y ~ s", df, positive="R")
    assert mf2.classes == ("M", "R")
    np.testing.assert_array_equal(mf2.y, 1.0 - mf.y)


def test_response_categorical_unused_category_is_ignored():
    y = pd.Categorical(["b", "c", "c", "b"], categories=["a", "b", "c"])
    df = pd.DataFrame({"y": y, "s": [0.1, 0.9, 0.7, 0.3]})
    mf = model_frame("y ~ s", df)
    assert mf.classes == ("b", "c")
    np.testing.assert_array_equal(mf.y, [0.0, 1.0, 1.0, 0.0])


def test_response_categorical_single_observed_class():
    y = pd.Categorical(["b", "b", "b"], categories=["b", "c"])
    df = pd.DataFrame({"y": y, "s": [0.1, 0.9, 0.7]})
    with pytest.raises(ValueError, match=r"'y' has a single class: 'b' in all 3 rows; no rows of 'c'"):
        model_frame("y ~ s", df)


def test_response_string_dtype_and_object_dtype():
    for y in (pd.array(["M", "R", "M", "R"], dtype="string"), np.array(["M", "R", "M", "R"], dtype=object)):
        mf = model_frame("y ~ s", pd.DataFrame({"y": y, "s": [0.1, 0.9, 0.7, 0.3]}))
        assert mf.classes == ("M", "R")
        assert all(type(c) is str for c in mf.classes)


def test_response_quoted_name():
    df = pd.DataFrame({"my label": [0, 1, 1, 0], "s": [0.1, 0.9, 0.7, 0.3]})
    mf = model_frame('Q("my label") ~ s', df)
    assert mf.response == "my label"
    np.testing.assert_array_equal(mf.y, [0.0, 1.0, 1.0, 0.0])


def test_positive_not_a_level():
    df = pd.DataFrame({"y": ["M", "R", "R", "M"], "s": [0.1, 0.9, 0.7, 0.3]})
    with pytest.raises(ValueError, match=r"positive='X' is not a level of response column 'y'; its levels are \['M', 'R'\]"):
        model_frame("y ~ s", df, positive="X")
    with pytest.raises(ValueError, match=r"positive='1' is not a level .* \[0, 1\]"):
        model_frame("y ~ s", df.assign(y=[0, 1, 1, 0]), positive="1")


def test_response_single_class():
    df = pd.DataFrame({"y": [0, 0, 0], "s": [0.1, 0.9, 0.7]})
    with pytest.raises(
        ValueError,
        match=r"response column 'y' has a single class: 0 in all 3 rows; no rows of 1\. "
        r"The calibration data must contain both classes",
    ):
        model_frame("y ~ s", df)
    with pytest.raises(ValueError, match=r"single class: True in all 3 rows; no rows of False"):
        model_frame("y ~ s", df.assign(y=True))
    with pytest.raises(ValueError, match=r"single class: 'R' in all 3 rows.*must contain both classes"):
        model_frame("y ~ s", df.assign(y="R"))


def test_response_more_than_two_levels():
    df = pd.DataFrame({"y": ["a", "b", "c", "a"], "s": [0.1, 0.9, 0.7, 0.3]})
    with pytest.raises(ValueError, match=r"'y' has 3 distinct values \['a', 'b', 'c'\] in 4 rows; calibration needs a two-class response"):
        model_frame("y ~ s", df)
    with pytest.raises(ValueError, match=r"3 distinct values \[0.0, 0.5, 1.0\]"):
        model_frame("y ~ s", df.assign(y=[0.0, 0.5, 1.0, 1.0]))


def test_response_mixed_types_need_positive():
    df = pd.DataFrame({"y": np.array([1, "a", 1, "a"], dtype=object), "s": [0.1, 0.9, 0.7, 0.3]})
    with pytest.raises(ValueError, match="mixed types .* pass positive="):
        model_frame("y ~ s", df)
    mf = model_frame("y ~ s", df, positive="a")
    assert mf.classes == (1, "a")
    np.testing.assert_array_equal(mf.y, [0.0, 1.0, 0.0, 1.0])


def test_response_infinite_is_an_error_even_with_drop():
    df = pd.DataFrame({"y": [0.0, 1.0, np.inf, 0.0], "s": [0.1, 0.9, 0.7, 0.3]})
    with pytest.raises(ValueError, match=r"response column 'y' has infinite values in 1 row of 4 \(index 2\)"):
        model_frame("y ~ s", df, missing="drop")


# ---------------------------------------------------------------------------------------------
# transforms, comparison with patsy and statsmodels
# ---------------------------------------------------------------------------------------------


def test_X_equals_patsy_dmatrices(cal):
    formula = "y ~ svm1 + np.log(s) + I(s**2) + center(svm2) + svm1:svm2"
    mf = model_frame(formula, cal)
    y_ref, X_ref = patsy.dmatrices(formula, cal, return_type="dataframe")
    assert mf.terms == list(X_ref.columns)
    np.testing.assert_allclose(mf.X, X_ref.to_numpy(), rtol=1e-15, atol=0)
    np.testing.assert_array_equal(mf.y, y_ref["y"].to_numpy())
    assert mf.index.equals(X_ref.index)
    assert mf.score_columns == ["svm1", "s", "svm2"]


def test_X_no_intercept_equals_patsy(cal):
    mf = model_frame("y ~ 0 + svm1 + svm2", cal)
    X_ref = patsy.dmatrix("0 + svm1 + svm2", cal)
    assert mf.terms == ["svm1", "svm2"]
    np.testing.assert_array_equal(mf.X, np.asarray(X_ref))


def test_glm_on_model_frame_equals_statsmodels_formula(cal):
    import statsmodels.api as sm
    import statsmodels.formula.api as smf
    formula = "y ~ svm1 + np.log(s)"
    mf = model_frame(formula, cal)
    ref = smf.glm(formula, cal, family=sm.families.Binomial()).fit()
    fit = sm.GLM(mf.y, mf.X, family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(fit.params, ref.params.to_numpy(), rtol=1e-10)
    assert list(ref.params.index) == mf.terms


def test_string_response_glm_matches_statsmodels_01(cal):
    import statsmodels.api as sm
    import statsmodels.formula.api as smf
    mf = model_frame("label ~ svm1", cal)
    ref = smf.glm("y ~ svm1", cal, family=sm.families.Binomial()).fit()
    fit = sm.GLM(mf.y, mf.X, family=sm.families.Binomial()).fit()
    np.testing.assert_allclose(fit.params, ref.params.to_numpy(), rtol=1e-10)


def test_r_style_function_shortcuts(cal):
    a = model_frame("y ~ log(s) + sqrt(s) + exp(svm1)", cal)
    b = model_frame("y ~ np.log(s) + np.sqrt(s) + np.exp(svm1)", cal)
    np.testing.assert_array_equal(a.X, b.X)
    p = cal.assign(p=np.linspace(0.05, 0.95, len(cal)))
    c = model_frame("y ~ logit(p)", p)
    np.testing.assert_allclose(c.X[:, 1], np.log(p["p"] / (1 - p["p"])), rtol=1e-12)


def test_center_and_standardize_new_data_use_calibration_state(cal):
    mf = model_frame("y ~ center(s) + standardize(svm1)", cal)
    mean_s = cal["s"].mean()
    mean_1, sd_1 = cal["svm1"].mean(), cal["svm1"].std(ddof=0)
    np.testing.assert_allclose(mf.X[:, 1], cal["s"] - mean_s, atol=1e-13)
    new = pd.DataFrame({"s": [0.0, 10.0, 2.5], "svm1": [5.0, -5.0, 0.0]})
    X, idx = mf.new_X(new)
    np.testing.assert_allclose(X[:, 0], 1.0)
    np.testing.assert_allclose(X[:, 1], new["s"] - mean_s, atol=1e-13)
    np.testing.assert_allclose(X[:, 2], (new["svm1"] - mean_1) / sd_1, rtol=1e-12)
    assert list(idx) == [0, 1, 2]


def test_new_X_on_calibration_data_reproduces_X(cal):
    mf = model_frame("y ~ svm1 + I(svm1**2) + standardize(svm2) + bs(s, df=4)", cal)
    X, idx = mf.new_X(cal)
    np.testing.assert_array_equal(X, mf.X)
    assert idx.equals(cal.index)


def test_interactions_and_star(cal):
    mf = model_frame("y ~ svm1*svm2", cal)
    assert mf.terms == ["Intercept", "svm1", "svm2", "svm1:svm2"]
    np.testing.assert_array_equal(mf.X[:, 3], cal["svm1"] * cal["svm2"])


def test_intercept_only():
    df = pd.DataFrame({"y": [0, 1, 1], "s": [1.0, 2.0, 3.0]})
    mf = model_frame("y ~ 1", df)
    assert mf.terms == ["Intercept"] and mf.score_columns == []
    np.testing.assert_array_equal(mf.X, np.ones((3, 1)))
    X, idx = mf.new_X(pd.DataFrame({"z": [1, 2]}, index=["a", "b"]))
    np.testing.assert_array_equal(X, np.ones((2, 1)))
    assert list(idx) == ["a", "b"]
    np.testing.assert_array_equal(roundtrip(mf).X, mf.X)


def test_integer_and_nullable_score_columns_become_float64():
    df = pd.DataFrame(
        {"y": [0, 1, 1, 0], "k": np.array([1, 2, 5, 3], dtype=np.int32), "m": pd.array([1, 4, 2, 8], dtype="Int64")}
    )
    mf = model_frame("y ~ k + m + I(k**2)", df)
    assert mf.X.dtype == np.float64
    np.testing.assert_array_equal(mf.X, [[1, 1, 1, 1], [1, 2, 4, 4], [1, 5, 2, 25], [1, 3, 8, 9]])


def test_huge_scores_pass_through_unchanged():
    s = np.array([-1e6, 1e6, -3e5, 7e5, 1e-300])
    df = pd.DataFrame({"y": [0, 1, 0, 1, 1], "s": s})
    mf = model_frame("y ~ s", df)
    np.testing.assert_array_equal(mf.X[:, 1], s)
    X, _ = mf.new_X(pd.DataFrame({"s": [1e6, -1e6, 123456.789]}))
    np.testing.assert_array_equal(X[:, 1], [1e6, -1e6, 123456.789])


# ---------------------------------------------------------------------------------------------
# index and row order
# ---------------------------------------------------------------------------------------------


def test_index_preserved_with_shuffled_index(cal):
    mf = model_frame("y ~ svm1 + svm2", cal)
    assert mf.index.equals(cal.index)
    np.testing.assert_array_equal(mf.X[:, 1], cal["svm1"].to_numpy())
    np.testing.assert_array_equal(mf.y, cal["y"].to_numpy())


def test_new_X_keeps_newdata_index_and_order(cal):
    mf = model_frame("y ~ svm1 + np.log(s)", cal)
    new = cal.sample(frac=1.0, random_state=3).drop(columns=["y", "label"])
    new.index = [f"r{i}" for i in range(len(new))][::-1]
    X, idx = mf.new_X(new)
    assert list(idx) == list(new.index)
    np.testing.assert_array_equal(X[:, 1], new["svm1"].to_numpy())
    np.testing.assert_array_equal(X[:, 2], np.log(new["s"].to_numpy()))


# ---------------------------------------------------------------------------------------------
# missing values
# ---------------------------------------------------------------------------------------------


def test_missing_raise_names_column_count_and_rows(cal):
    df = cal.copy()
    labels = list(df.index[[2, 5, 9]])
    df.loc[labels, "svm1"] = np.nan
    with pytest.raises(
        ValueError,
        match=rf"column 'svm1' has missing values in 3 rows of 40 \(index {labels[0]}, {labels[1]}, {labels[2]}\).*missing='drop'",
    ):
        model_frame("y ~ svm1 + svm2", df)


def test_missing_response_raise():
    df = pd.DataFrame({"y": ["M", None, "R", "M"], "s": [0.1, 0.9, 0.7, 0.3]})
    with pytest.raises(ValueError, match=r"response column 'y' has missing values in 1 row of 4 \(index 1\)"):
        model_frame("y ~ s", df)


def test_missing_drop(cal):
    df = cal.copy()
    na_rows = list(df.index[[0, 7]])
    df.loc[na_rows[0], "svm2"] = np.nan
    df.loc[na_rows[1], "y"] = np.nan
    df.loc[df.index[3], "text"] = None  # unused column: ignored
    mf = model_frame("y ~ svm1 + svm2", df, missing="drop")
    kept = df.drop(index=na_rows)
    assert mf.n_dropped == 2 and mf.n == 38
    assert mf.index.equals(kept.index)
    np.testing.assert_array_equal(mf.X[:, 2], kept["svm2"].to_numpy())
    np.testing.assert_array_equal(mf.y, kept["y"].to_numpy())
    mf_ref = model_frame("y ~ svm1 + svm2", kept.assign(y=kept["y"].astype(int)))
    np.testing.assert_array_equal(mf.X, mf_ref.X)


def test_missing_drop_nullable_response():
    df = pd.DataFrame({"y": pd.array([True, None, False, True, False], dtype="boolean"), "s": [0.1, 0.5, 0.9, 0.7, 0.3]})
    mf = model_frame("y ~ s", df, missing="drop")
    assert mf.classes == (False, True) and mf.n_dropped == 1
    np.testing.assert_array_equal(mf.y, [1.0, 0.0, 1.0, 0.0])
    assert list(mf.index) == [0, 2, 3, 4]


def test_missing_drop_never_drops_infinite(cal):
    df = cal.copy()
    df.loc[df.index[4], "svm1"] = -np.inf
    with pytest.raises(ValueError, match=rf"column 'svm1' has infinite values in 1 row of 40 \(index {df.index[4]}\)"):
        model_frame("y ~ svm1", df, missing="drop")
    with pytest.raises(ValueError, match="infinite values"):
        model_frame("y ~ svm1", df)


def test_missing_drop_all_rows():
    df = pd.DataFrame({"y": [0, 1], "s": [np.nan, np.nan]})
    with pytest.raises(ValueError, match="no rows left: all 2 rows"):
        model_frame("y ~ s", df, missing="drop")


def test_missing_drop_reported_in_row_count_error():
    df = pd.DataFrame({"y": [0, 1, 0, 1], "a": [1.0, np.nan, np.nan, 2.0], "b": [3.0, 1.0, 4.0, 0.5]})
    with pytest.raises(ValueError, match=r"data has 2 rows \(after dropping 2 rows with missing values\) for 3 design columns"):
        model_frame("y ~ a + b", df, missing="drop")


def test_missing_argument_checked(cal):
    with pytest.raises(ValueError, match=r"missing must be 'raise' or 'drop', got 'omit'"):
        model_frame("y ~ svm1", cal, missing="omit")
    mf = model_frame("y ~ svm1", cal)
    with pytest.raises(ValueError, match=r"missing must be 'raise' or 'drop'"):
        mf.new_X(cal, missing="ignore")


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("y svm1", r"has no '~': write it as 'response ~ terms'"),
        ("~ svm1", r"has no response: put the class column left of '~'"),
        ("y ~ ", r"has no right-hand side"),
        ("y ~ svm1 ~ svm2", r"has 2 '~'; write exactly one"),
        ("y ~ svm1 +", r"cannot parse the right-hand side of formula 'y ~ svm1 \+'"),
        ("I(y == 1) ~ svm1", r"the response 'I\(y == 1\)' .* is not a column of data: the response must be a column name"),
        ("yy ~ svm1", r"response column 'yy' of formula 'yy ~ svm1' not found in data \(40 rows\); available columns: \['y', 'svm1'"),
        ("y ~ svm1 + svm9", r"column\(s\) \['svm9'\] used in formula 'y ~ svm1 \+ svm9' not found in data \(40 rows\).*available columns: \['y', 'svm1', 'svm2'"),
        ("y ~ np.log(zz)", r"column\(s\) \['zz'\]"),
        ("y ~ Q('nope')", r"column\(s\) \['nope'\]"),
        ("y ~ myfun(svm1)", r"term 'myfun\(svm1\)' .* not allowed: the function 'myfun' is not one of the documented formula functions"),
        ("y ~ y + svm1", r"response column 'y' also appears on the right-hand side"),
        ("y ~ text", r"factor column 'text' has a single level 'a' in all 40 rows.*remove it"),
        ("y ~ 0", r"has no design columns"),
        ("y ~ np.log(svm1)", r"design column 'np.log\(svm1\)' .* is not finite for \d+ rows of 40 in data \(index .*\).*transform is undefined"),
        ("y ~ svm1 + I(2 * svm1 + 3)", r"collinear: 'I\(2 \* svm1 \+ 3\)' is a linear combination of 'Intercept', 'svm1' \(.*~= 3 \* Intercept \+ 2 \* svm1; rank 2 < 3 columns, 40 rows\).*remove one of"),
        ("y ~ svm1 + svm2 + I(svm1 - svm2)", r"collinear: 'I\(svm1 - svm2\)' is a linear combination of 'svm1', 'svm2'"),
        ("y ~ svm1 + I(0 * svm1 + 2)", r"design column 'I\(0 \* svm1 \+ 2\)' is constant \(all 40 rows equal 2\).*remove it"),
    ],
)
def test_bad_formulas(cal, formula, message):
    with pytest.raises(ValueError, match=message):
        model_frame(formula, cal)


def test_constant_score_column(cal):
    with pytest.raises(ValueError, match=r"design column 'k' is constant \(all 40 rows equal 0.5\).*remove it from the formula"):
        model_frame("y ~ svm1 + k", cal.assign(k=0.5))
    with pytest.raises(ValueError, match=r"design column 'center\(k\)' is constant"):
        model_frame("y ~ center(k)", cal.assign(k=0.5))


def test_collinear_score_columns_are_named(cal):
    df = cal.assign(svm3=2.0 * cal["svm1"] - cal["svm2"])
    with pytest.raises(ValueError, match=r"'svm3' is a linear combination of 'svm1', 'svm2' \(svm3 ~= 2 \* svm1 - 1 \* svm2.*remove one of 'svm1', 'svm2', 'svm3'"):
        model_frame("y ~ svm1 + svm2 + svm3", df)
    with pytest.raises(ValueError, match=r"'copy' is a linear combination of 'svm1'"):
        model_frame("y ~ svm1 + copy", cal.assign(copy=cal["svm1"]))


def test_collinearity_tolerance_and_scale_invariance(cal):
    rng = np.random.default_rng(1)
    near = cal["svm1"] + 1e-10 * rng.normal(size=len(cal))
    with pytest.raises(ValueError, match="collinear"):
        model_frame("y ~ svm1 + near", cal.assign(near=near))
    # strongly correlated but genuinely different scores are fine
    close = cal["svm1"] + 1e-4 * rng.normal(size=len(cal))
    assert model_frame("y ~ svm1 + close", cal.assign(close=close)).p == 3
    # very different column scales are not mistaken for rank deficiency
    df = cal.assign(tiny=1e-9 * cal["svm1"], big=1e9 * cal["svm2"])
    mf = model_frame("y ~ tiny + big", df)
    assert mf.terms == ["Intercept", "tiny", "big"]


def test_empty_data(cal):
    with pytest.raises(ValueError, match=r"data has 0 rows"):
        model_frame("y ~ svm1", cal.iloc[:0])


def test_fewer_rows_than_parameters():
    df = pd.DataFrame({"y": [0, 1], "a": [0.1, 0.2], "b": [0.5, 0.1]})
    with pytest.raises(ValueError, match=r"data has 2 rows for 3 design columns \['Intercept', 'a', 'b'\]: .*at least as many rows as parameters"):
        model_frame("y ~ a + b", df)


def test_min_rows(cal):
    with pytest.raises(ValueError, match=r"data has 40 rows, but this calibrator needs at least 50 rows"):
        model_frame("y ~ svm1", cal, min_rows=50)
    assert model_frame("y ~ svm1", cal, min_rows=40).n == 40
    with pytest.raises(ValueError, match="min_rows must be a non-negative integer"):
        model_frame("y ~ svm1", cal, min_rows=-1)


def test_intercept_required(cal):
    with pytest.raises(ValueError, match=r"has no intercept, but this calibrator needs one"):
        model_frame("y ~ svm1 - 1", cal, intercept_required=True)
    with pytest.raises(ValueError, match=r"has no intercept"):
        model_frame("y ~ 0 + svm1", cal, intercept_required=True)
    assert model_frame("y ~ svm1", cal, intercept_required=True).terms[0] == "Intercept"


def test_bool_and_categorical_score_columns_are_factors(cal):
    """Logical and categorical columns are factors with treatment coding (patsy/statsmodels names)."""
    mf = model_frame("y ~ flag", cal.assign(flag=cal["svm1"] > 0))
    assert mf.terms == ["Intercept", "flag[T.True]"] and mf.factors == {"flag": [False, True]}
    np.testing.assert_array_equal(mf.X[:, 1], (cal["svm1"] > 0).to_numpy(dtype=float))
    # categorical: category order (not sorted), unused categories dropped as R does
    cat = pd.Categorical(np.where(cal["svm1"] > 0, "hi", "lo"), categories=["lo", "unused", "hi"])
    mf = model_frame("y ~ cat + svm2", cal.assign(cat=cat))
    assert mf.factors == {"cat": ["lo", "hi"]}
    assert mf.terms == ["Intercept", "cat[T.hi]", "svm2"]
    # a logical expression is a factor term too, as in statsmodels
    assert model_frame("y ~ I(svm1 > 0)", cal).terms == ["Intercept", "I(svm1 > 0)[T.True]"]


def test_duplicate_column_names():
    df = pd.DataFrame([[0, 0.1, 0.2], [1, 0.3, 0.4]], columns=["y", "s", "s"])
    with pytest.raises(ValueError, match=r"data has 2 columns named 's'"):
        model_frame("y ~ s", df)


def test_type_errors(cal):
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        model_frame("y ~ svm1", {"y": [0, 1], "svm1": [0.0, 1.0]})
    with pytest.raises(TypeError, match="formula must be a string"):
        model_frame(None, cal)  # type: ignore[arg-type]
    mf = model_frame("y ~ svm1", cal)
    with pytest.raises(TypeError, match="newdata must be a pandas DataFrame or a 2-D numpy array, got list"):
        mf.new_X([[0.0], [1.0]])  # type: ignore[arg-type]
    # a 2-D array is read as the score columns in order (issue 24: array constructors)
    X, index = mf.new_X(np.zeros((3, 1)))
    np.testing.assert_array_equal(X, mf.new_X(pd.DataFrame({"svm1": np.zeros(3)}))[0])
    assert list(index) == [0, 1, 2]


def test_unquoted_names_hint():
    df = pd.DataFrame({"y": [0, 1, 0], "svm-1": [0.1, 0.2, 0.3]})
    with pytest.raises(ValueError, match=r"not found in data.*must be quoted: Q\('my col'\)"):
        model_frame("y ~ svm", df)


# ---------------------------------------------------------------------------------------------
# new_X
# ---------------------------------------------------------------------------------------------


def test_new_X_missing_column(cal):
    mf = model_frame("y ~ svm1 + np.log(s)", cal)
    with pytest.raises(ValueError, match=r"newdata \(2 rows\) lacks column\(s\) \['s'\] used by formula .*newdata has columns \['svm1', 'other'\]"):
        mf.new_X(pd.DataFrame({"svm1": [0.0, 1.0], "other": [1, 2]}))


def test_new_X_nan_reports_count_and_labels(cal):
    mf = model_frame("y ~ svm1", cal)
    new = pd.DataFrame({"svm1": [0.1, np.nan, 0.3, np.nan]}, index=["a", "b", "c", "d"])
    with pytest.raises(ValueError, match=r"column 'svm1' of newdata has missing values in 2 rows of 4 \(index 'b', 'd'\).*missing='drop'"):
        mf.new_X(new)
    X, idx = mf.new_X(new, missing="drop")
    assert list(idx) == ["a", "c"]
    np.testing.assert_array_equal(X, [[1.0, 0.1], [1.0, 0.3]])
    X, idx = mf.new_X(new.iloc[[1, 3]], missing="drop")
    assert X.shape == (0, 2) and len(idx) == 0


def test_new_X_many_bad_rows_shows_first_labels(cal):
    mf = model_frame("y ~ svm1", cal)
    new = pd.DataFrame({"svm1": np.full(8, np.nan)}, index=range(10, 18))
    with pytest.raises(ValueError, match=r"8 rows of 8 \(index 10, 11, 12, 13, 14, \.\.\.\)"):
        mf.new_X(new)


def test_new_X_infinite(cal):
    mf = model_frame("y ~ svm1", cal)
    new = pd.DataFrame({"svm1": [0.1, np.inf]}, index=["a", "b"])
    for missing in ("raise", "drop"):
        with pytest.raises(ValueError, match=r"column 'svm1' of newdata has infinite values in 1 row of 2 \(index 'b'\)"):
            mf.new_X(new, missing=missing)


def test_new_X_non_numeric(cal):
    mf = model_frame("y ~ svm1", cal)
    with pytest.raises(ValueError, match=r"column 'svm1' of newdata is not numeric"):
        mf.new_X(pd.DataFrame({"svm1": ["0.1", "0.2"]}))


def test_new_X_transform_non_finite(cal):
    mf = model_frame("y ~ np.log(s)", cal)
    with pytest.raises(ValueError, match=r"design column 'np.log\(s\)' .* is not finite for 1 row of 3 in newdata \(index 'z'\)"):
        mf.new_X(pd.DataFrame({"s": [1.0, 2.0, -1.0]}, index=["x", "y", "z"]))


def test_new_X_empty(cal):
    mf = model_frame("y ~ svm1 + center(s)", cal)
    X, idx = mf.new_X(cal.iloc[:0])
    assert X.shape == (0, 3) and X.dtype == np.float64 and len(idx) == 0
    X, idx = mf.new_X(pd.DataFrame({"svm1": [], "s": []}))
    assert X.shape == (0, 3)


# ---------------------------------------------------------------------------------------------
# persistence
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "formula",
    [
        "y ~ svm1 + svm2",
        "y ~ center(s) + standardize(svm1)",
        "label ~ np.log(s) + I(s**2) + scale(svm2)",
        "y ~ bs(s, df=4) + svm1:svm2",
        "y ~ 0 + svm1",
    ],
)
def test_json_round_trip(cal, formula):
    mf = model_frame(formula, cal)
    back = roundtrip(mf)
    assert back.formula == mf.formula and back.response == mf.response
    assert back.terms == mf.terms and back.classes == mf.classes and back.positive == mf.positive
    assert back.score_columns == mf.score_columns and back.n_dropped == mf.n_dropped
    np.testing.assert_array_equal(back.X, mf.X)
    np.testing.assert_array_equal(back.y, mf.y)
    assert back.index.equals(mf.index)
    new = pd.DataFrame(
        {"svm1": [-3.0, 0.2, 7.0], "svm2": [1.0, -2.0, 0.5], "s": [0.9, 2.0, 4.4]}, index=["p", "q", "r"]
    )
    X1, i1 = mf.new_X(new)
    X2, i2 = back.new_X(new)
    np.testing.assert_array_equal(X1, X2)
    assert i1.equals(i2)


def test_json_round_trip_classes_and_index_kinds():
    df = pd.DataFrame(
        {"y": [True, False, True, np.nan, False], "s": [0.1, 0.9, 0.4, 0.5, 0.7]},
        index=pd.Index(["e", "d", "c", "b", "a"], name="id"),
    )
    mf = model_frame("y ~ s", df.assign(y=df["y"].astype("boolean")), missing="drop", positive=False)
    back = roundtrip(mf)
    assert back.classes == (True, False) and back.positive is False
    assert back.index.equals(mf.index) and back.index.name == "id"
    assert back.n_dropped == 1
    np.testing.assert_array_equal(back.y, mf.y)
    mi = pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1), ("b", 2)], names=["g", "k"])
    mf2 = model_frame("y ~ s", pd.DataFrame({"y": [0, 1, 1, 0], "s": [0.1, 0.9, 0.4, 0.2]}, index=mi))
    assert roundtrip(mf2).index.equals(mi)


def test_to_dict_is_plain_json(cal):
    d = model_frame("label ~ center(s)", cal).to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["format"] == "evstat.ModelFrame" and d["version"] == 1
    assert d["classes"] == ["M", "R"] and d["positive"] == "R"
    assert d["terms"] == ["Intercept", "center(s)"] and d["score_columns"] == ["s"]
    assert d["data"]["s"] == cal["s"].tolist()


def test_from_dict_rejects_bad_input(cal):
    d = model_frame("y ~ svm1", cal).to_dict()
    with pytest.raises(ValueError, match="not an evstat model frame description"):
        ModelFrame.from_dict({"formula": "y ~ s"})
    with pytest.raises(ValueError, match="format version 99 is not supported"):
        ModelFrame.from_dict({**d, "version": 99})
    with pytest.raises(ValueError, match=r"saved terms are \['Intercept', 'x'\]"):
        ModelFrame.from_dict({**d, "terms": ["Intercept", "x"]})
    with pytest.raises(ValueError, match=r"data\['svm1'\] has 40 values, but y has 39 rows"):
        ModelFrame.from_dict({**d, "y": d["y"][:-1]})


# ---------------------------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------------------------

_finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def _frames(draw):
    n = draw(st.integers(min_value=6, max_value=25))
    a = np.array(draw(st.lists(_finite, min_size=n, max_size=n)))
    b = np.array(draw(st.lists(st.floats(0.01, 100.0), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.sampled_from(["M", "R"]), min_size=n, max_size=n)))
    y[:2] = ["M", "R"]
    perm = np.array(draw(st.permutations(range(n))))
    index = pd.Index(draw(st.lists(st.integers(-1000, 1000), min_size=n, max_size=n, unique=True)))
    return pd.DataFrame({"y": y, "a": a, "b": b}, index=index), perm


def _full_rank(df: pd.DataFrame, rhs: str) -> bool:
    if np.ptp(df["a"]) == 0:
        return False
    X = np.asarray(patsy.dmatrix(rhs, df, return_type="matrix"))
    norms = np.linalg.norm(X, axis=0)
    if np.any(norms == 0):
        return False
    s = np.linalg.svd(X / norms, compute_uv=False)
    return bool(s[-1] > 1e-4 * s[0])


@settings(max_examples=40, deadline=None)
@given(_frames())
def test_permuting_rows_permutes_y_and_X(frame):
    df, perm = frame
    # near-collinear draws are rejected by design (covered by the collinearity tests)
    assume(_full_rank(df, "a + np.log(b) + I(b**2)"))
    formula = "y ~ a + np.log(b) + I(b**2)"
    mf = model_frame(formula, df)
    mp = model_frame(formula, df.iloc[perm])
    np.testing.assert_array_equal(mp.y, mf.y[perm])
    np.testing.assert_array_equal(mp.X, mf.X[perm])
    assert mp.index.equals(mf.index[perm])
    assert mp.classes == mf.classes == ("M", "R")
    # the stateful center() is permutation invariant up to summation order
    mc = model_frame("y ~ center(a)", df)
    mcp = model_frame("y ~ center(a)", df.iloc[perm])
    np.testing.assert_allclose(mcp.X, mc.X[perm], rtol=1e-9, atol=1e-9 * max(1.0, np.abs(df["a"]).max()))


@settings(max_examples=30, deadline=None)
@given(_frames())
def test_new_X_matches_X_and_survives_json(frame):
    df, perm = frame
    assume(_full_rank(df, "standardize(a) + b"))
    mf = model_frame("y ~ standardize(a) + b", df)
    back = roundtrip(mf)
    new = df.iloc[perm]
    X1, i1 = mf.new_X(new)
    X2, i2 = back.new_X(new)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(X1, mf.X[perm])
    assert i1.equals(new.index) and i2.equals(new.index)


@pytest.mark.parametrize(
    "name",
    ["evstat.formula._parse", "evstat.formula.response", "evstat.formula.frame", "evstat.formula.classes",
     "evstat.formula.arrays", "evstat.formula._dotted"],
)
def test_formula_docstring_examples(name, doctests):
    doctests(name)


# -- new rows of a plain formula: stacked without patsy (issue 36 item 6) ------------------------


@pytest.mark.parametrize(
    "formula, plain",
    [
        ("y ~ a + b", (["a", "b"], True)),
        ("y~b+a", (["b", "a"], True)),
        ("y ~ a + b - 1", (["a", "b"], False)),
        ("y ~ 0 + b", (["b"], False)),
        ("y ~ a + np.log(c)", None),
        ("y ~ a + I(b ** 2)", None),
        ("y ~ a * b", None),
        ("y ~ center(a) + b", None),
        ("y ~ a + g", None),
    ],
)
def test_new_rows_of_a_plain_formula_equal_patsys_design(formula, plain):
    from evstat.formula.design import _build_X
    from evstat.formula.frame import _plain_design

    rng = np.random.default_rng(11)
    cal = pd.DataFrame({"y": rng.integers(0, 2, 40), "a": rng.normal(size=40), "b": rng.integers(-5, 5, 40),
                        "c": rng.random(40) + 0.1, "g": rng.choice(["u", "v"], 40)})
    cal.loc[:1, "y"] = [0, 1]
    mf = model_frame(formula, cal)
    assert _plain_design(mf.design_info, mf.score_columns) == plain
    new = pd.DataFrame({"a": rng.normal(size=25) * 1e10, "b": rng.integers(-9, 9, 25), "c": rng.random(25) + 0.1,
                        "g": rng.choice(["u", "v"], 25)}, index=np.arange(25)[::-1] * 3)
    X, index = mf.new_X(new)
    cols = {c: new[c].to_numpy() for c in mf.score_columns}
    if "g" in cols:
        cols["g"] = pd.Categorical(new["g"], categories=["u", "v"])
    ref = _build_X(mf.design_info, cols, len(new), formula)
    np.testing.assert_array_equal(X, ref)  # bit for bit
    assert X.flags.c_contiguous and X.dtype == np.float64
    pd.testing.assert_index_equal(index, new.index)
    if "g" not in cols:  # the same rows as a 2-D array: the same design, a RangeIndex
        Xa, ia = mf.new_X(new[mf.score_columns].to_numpy())
        np.testing.assert_array_equal(Xa, ref)
        pd.testing.assert_index_equal(ia, pd.RangeIndex(25))


def test_new_rows_as_an_array_keep_the_missing_and_infinite_value_errors():
    rng = np.random.default_rng(12)
    cal = pd.DataFrame({"y": [0, 1] * 10, "a": rng.normal(size=20), "b": rng.normal(size=20)})
    mf = model_frame("y ~ a + b", cal)

    def message(rows, **kw):
        with pytest.raises(ValueError) as err:
            mf.new_X(rows, **kw)
        return str(err.value)

    rows = rng.normal(size=(6, 2))
    rows[2, 1] = np.nan
    frame = pd.DataFrame(rows, columns=["a", "b"])
    assert "column 'b' of newdata has missing values in 1 row of 6 (index 2)" in message(rows)
    assert message(rows) == message(frame)
    X, index = mf.new_X(rows, missing="drop")
    assert list(index) == [0, 1, 3, 4, 5] and X.shape == (5, 3)
    np.testing.assert_array_equal(X, mf.new_X(frame, missing="drop")[0])
    rows[4, 0] = -np.inf
    frame = pd.DataFrame(rows, columns=["a", "b"])
    assert "column 'a' of newdata has infinite values in 1 row of 6" in message(rows, missing="drop")
    assert message(rows, missing="drop") == message(frame, missing="drop")
    assert "new rows have 3 columns" in message(np.zeros((2, 3)))
    assert mf.new_X(np.zeros((0, 2)))[0].shape == (0, 3)
