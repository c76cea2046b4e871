"""The one K-level formula parser, evstat.formula.class_frame: no placeholder response, same
checks as model_frame, the binary case identical to model_frame, JSON round trip."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.formula import ClassFrame, EmptyClassWarning, class_frame, model_frame, response_name, split_formula

D3 = pd.DataFrame(
    {
        "y": ["b", "a", "c", "a", "c", "b", "a"],
        "s_a": [0.1, 0.8, 0.2, 0.7, 0.3, 0.2, 0.9],
        "s_b": [0.7, 0.1, 0.2, 0.3, 0.1, 0.6, 0.05],
        "s_c": [0.2, 0.1, 0.6, 0.1, 0.5, 0.3, 0.1],
    },
    index=[5, 5, 9, 2, 7, 1, 0],
)


def test_three_levels_are_the_design_response():
    cf = class_frame("y ~ s_a + s_b + s_c", D3)
    assert cf.levels == ("a", "b", "c") and cf.positive is None
    assert cf.codes.tolist() == [1, 0, 2, 0, 2, 1, 0]
    # the design holds the real response: no placeholder two-level column
    assert cf.design.classes == cf.levels
    assert cf.design.y.tolist() == cf.codes.tolist()
    assert cf.design.positive is None
    assert list(cf.index) == list(D3.index)
    assert cf.terms == ["s_a", "s_b", "s_c"] and cf.X.shape == (7, 3)
    assert "3 classes" in repr(cf.design)


def test_two_levels_match_model_frame():
    d = D3.assign(y=["M", "R", "R", "M", "R", "M", "R"])
    cf, mf = class_frame("y ~ s_a + s_b", d, positive="M"), model_frame("y ~ s_a + s_b", d, positive="M")
    assert cf.levels == mf.classes and cf.positive == mf.positive == "M"
    np.testing.assert_array_equal(cf.codes, mf.y)
    np.testing.assert_array_equal(cf.design.X, mf.X)


def test_categorical_order_and_unsortable_levels():
    cat = pd.Categorical(list("hlmlhmh"), categories=["l", "m", "h", "unused"])
    with pytest.warns(EmptyClassWarning, match=r"\['unused'\] has no rows"):  # dropped, as R's multinom
        cf = class_frame("y ~ s_a", D3.assign(y=cat))
    assert cf.levels == ("l", "m", "h")
    mixed = class_frame("y ~ s_a", D3.assign(y=["x", 1, 2.5, "x", 1, 2.5, "x"]))
    assert mixed.levels == ("x", 1, 2.5)  # cannot be sorted: order of first appearance


def test_json_round_trip_and_factor_refusal():
    cf = class_frame("y ~ s_a + np.log(s_b)", D3)
    back = ClassFrame.from_dict(json.loads(json.dumps(cf.to_dict())))
    assert back.levels == cf.levels and back.codes.tolist() == cf.codes.tolist()
    new = pd.DataFrame({"s_a": [0.3], "s_b": [0.4]})
    np.testing.assert_array_equal(back.new_X(new)[0], cf.new_X(new)[0])
    g = class_frame("y ~ C(g) + s_a", D3.assign(g=list("uvuvuvu")))
    with pytest.raises(ValueError, match=r"eknn cannot use the factor term 'C\(g\)'.*it measures distances"):
        g.require_numeric("eknn", "it measures distances")


def test_file_written_with_the_placeholder_design_still_loads():
    """Classifier files saved before the K-level parser hold a 0/1 placeholder response in
    their design; levels and codes are stored beside it and are what counts."""
    fit = ev.eknn("y ~ s_a + s_b", D3.reset_index(drop=True), k=2)
    d = fit.class_frame.to_dict()
    d["design"]["classes"], d["design"]["positive"] = [0, 1], 1
    d["design"]["y"] = [i % 2 for i in range(len(d["codes"]))]
    back = ClassFrame.from_dict(json.loads(json.dumps(d)))
    assert back.levels == ("a", "b", "c") and back.codes.tolist() == fit.class_frame.codes.tolist()


@pytest.mark.parametrize(
    ("data", "kwargs", "match"),
    [
        (D3.assign(y="a"), {}, r"response column 'y' has a single class: 'a' in all 7 rows.*at least two classes"),
        (D3, {"positive": "a"}, r"positive='a' is only for a two-class response, but response column 'y' has 3 classes"),
        (D3.iloc[:0], {}, r"data has 0 rows: formula 'y ~ s_a' needs training rows of at least two classes"),
        (D3.assign(y=[None, "a", "b", "c", "a", "b", "c"]), {}, r"response column 'y' has missing values in 1 row of 7 \(index 5\)"),
    ],
)
def test_bad_input(data, kwargs, match):
    with pytest.raises(ValueError, match=match):
        class_frame("y ~ s_a", data, **kwargs)


def test_missing_drop_counts_rows():
    cf = class_frame("y ~ s_a", D3.assign(s_a=[np.nan, 0.8, 0.2, 0.7, 0.3, 0.2, 0.9]), missing="drop")
    assert cf.n == 6 and cf.n_dropped == 1 and cf.design.n_dropped == 1


def test_no_score_terms_and_collinear_probabilities():
    with pytest.raises(ValueError, match="has no score terms"):
        class_frame("y ~ 1", D3)
    probs = D3.assign(s_c=1 - D3["s_a"] - D3["s_b"])
    with pytest.raises(ValueError, match="design columns are collinear"):
        class_frame("y ~ s_a + s_b + s_c", probs)
    assert class_frame("y ~ s_a + s_b + s_c - 1", probs).X.shape == (7, 3)


def test_split_and_response_name():
    assert split_formula("y ~ a + b") == ("y", "a + b")
    assert response_name('Q("my y") ~ s') == "my y"
    with pytest.raises(ValueError, match="has 2 '~'"):
        split_formula("y ~ a ~ b")
