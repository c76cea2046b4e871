"""Hostile inputs to the metrics and to the parameter contour: each gave a silent NaN, scored
invalid probabilities, or failed with an error that did not say what was wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.metrics import credal_confusion, credal_error_rate, credal_rates, score_class_predictions


def test_score_class_predictions_refuses_empty_and_invalid_rows():
    assert score_class_predictions([0, 2], [[0.8, 0.1, 0.1], [0.2, 0.2, 0.6]]).round(4).tolist() == [2.0, 0.0, 0.15, 0.367]
    with pytest.raises(ValueError, match=r"p is empty \(0 rows\)"):  # was: n = 0 and NaN scores
        score_class_predictions(np.array([], dtype=int), np.zeros((0, 3)))
    with pytest.raises(ValueError, match=r"each row of p must sum to 1; 2 of 2 rows do not \(first at row 0: sum 1\.5\)"):
        score_class_predictions([0, 1], [[0.5, 0.5, 0.5], [0.1, 0.1, 0.1]])  # was scored as given
    with pytest.raises(ValueError, match=r"p has 1 row\(s\) with missing \(NaN\) values \(1 value\(s\)\)"):
        score_class_predictions([0, 1], [[np.nan, 0.5, 0.5], [0.2, 0.2, 0.6]])
    with pytest.raises(ValueError, match=r"y must hold class indices 0\.\.2 .* \(e\.g\. 1\.5\)"):
        score_class_predictions([0, 1.5], [[0.8, 0.1, 0.1], [0.2, 0.2, 0.6]])  # was truncated to 1
    with pytest.raises(ValueError, match=r"one row per observation and one column per class; got shape \(3,\)"):
        score_class_predictions([0, 1, 1], [0.2, 0.3, 0.4])


@pytest.mark.parametrize("fn", [credal_error_rate, credal_rates, credal_confusion])
def test_credal_metrics_refuse_a_probability_matrix(fn):
    P = np.array([[0.6, 0.2, 0.2], [0.1, 0.8, 0.1]])
    # was: "The truth value of an array with more than one element is ambiguous"
    with pytest.raises(ValueError, match=r"decisions must be one decision per row .* got an array of shape \(2, 3\)"):
        fn(["a", "b"], P)
    with pytest.raises(ValueError, match=r"decision at row 0 is an array of shape \(2,\)"):
        fn(["a", "b"], [np.array([1, 2]), "a"])
    with pytest.raises(ValueError, match=r"missing value \(first at row 1\)"):
        fn(["a", "b"], ["a", pd.NA])


def test_credal_error_rate_unchanged_on_valid_input():
    assert credal_error_rate(["a", "b", "c", "a"], ["a", frozenset({"a", "c"}), "outlier", "b"]) == 0.5
    assert credal_error_rate(np.array(["a", "b"]), np.array(["a", "outlier"])) == 0.0


def test_likelihood_contour_refuses_nan_and_inf():
    fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    with pytest.raises(ValueError, match=r"beta must be finite; 1 value\(s\) are NaN or infinite \(first at position \(0,\): nan\)"):
        fit.likelihood_contour(np.array([np.nan, 0.0]))  # was a silent NaN
    with pytest.raises(ValueError, match=r"first at position \(1, 1\): -inf"):
        fit.likelihood_contour(np.array([[0.0, 0.0], [1.0, -np.inf]]))
    assert float(fit.likelihood_contour(np.array([1e300, 0.0]))) == 0.0
    assert float(fit.likelihood_contour(fit.params.to_numpy())) == 1.0
