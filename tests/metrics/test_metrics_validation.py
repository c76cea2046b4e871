"""Bad input gets a ValueError naming the argument, the rows and the fix; plus score_predictions."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

import evstat.metrics as M
from evstat.metrics import (
    betp_brier,
    brier_score,
    ece,
    error_rate,
    interval_coverage,
    log_loss,
    reject_curve,
    score_predictions,
)

# functions of (y, p)
YP = [
    M.error_rate,
    M.brier_score,
    M.brier_decomposition,
    M.log_loss,
    M.ece,
    M.mce,
    M.reliability_table,
    M.hosmer_lemeshow,
    M.spiegelhalter_z,
    M.correctness_rate,
    M.one_minus_rmse,
    M.wcr,
    M.cal,
    M.score_predictions,
]


@pytest.mark.parametrize("f", YP, ids=lambda f: f.__name__)
def test_y_not_binary(f):
    with pytest.raises(ValueError, match=r"y must be binary \(0/1 or bool\); 1 of 4 rows"):
        f([0, 1, 2, 1], [0.1, 0.4, 0.6, 0.9])


@pytest.mark.parametrize("f", YP, ids=lambda f: f.__name__)
def test_y_strings(f):
    with pytest.raises(ValueError, match="y must be numeric"):
        f(["a", "b", "a", "b"], [0.1, 0.4, 0.6, 0.9])


@pytest.mark.parametrize("f", YP, ids=lambda f: f.__name__)
def test_lengths_differ(f):
    with pytest.raises(ValueError, match="y has 4 rows but p has 3 rows"):
        f([0, 1, 0, 1], [0.1, 0.4, 0.6])


@pytest.mark.parametrize("f", YP, ids=lambda f: f.__name__)
def test_p_outside_unit_interval(f):
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\]; 1 of 4 rows are outside"):
        f([0, 1, 0, 1], [0.1, 1.2, 0.6, 0.9])


@pytest.mark.parametrize("f", YP, ids=lambda f: f.__name__)
def test_p_nan(f):
    with pytest.raises(ValueError, match=r"p has 1 missing \(NaN\) value\(s\) out of 4 rows"):
        f([0, 1, 0, 1], [0.1, np.nan, 0.6, 0.9])


@pytest.mark.parametrize("f", YP, ids=lambda f: f.__name__)
def test_y_nan(f):
    with pytest.raises(ValueError, match="y has 1 missing"):
        f(pd.Series([0, None, 0, 1], dtype="Int64"), [0.1, 0.2, 0.6, 0.9])


@pytest.mark.parametrize("f", YP, ids=lambda f: f.__name__)
def test_empty(f):
    with pytest.raises(ValueError, match=r"y is empty \(0 rows\)"):
        f([], [])


def test_two_dimensional_p_for_binary_metrics():
    with pytest.raises(ValueError, match="p must be one-dimensional; got an array of shape"):
        error_rate([0, 1], [[0.1, 0.9], [0.2, 0.8]])
    # the Brier score and log loss take K-class matrices (tests/metrics/test_metrics_multiclass.py)
    assert brier_score([0, 1], [[0.1, 0.9], [0.2, 0.8]]) == pytest.approx(0.5 * (1.62 + 0.08) / 2)
    with pytest.raises(ValueError, match="p must be one-dimensional; got a DataFrame"):
        error_rate([0, 1], pd.DataFrame({"a": [0.1, 0.9]}))


def test_infinite_p():
    with pytest.raises(ValueError, match="p has 1 missing or infinite"):
        log_loss([0, 1], [0.1, np.inf])


def test_nan_in_a_class_probability_matrix_counts_rows_not_entries():
    p = [[0.6, 0.2, 0.2], [np.nan, 0.8, np.nan], [0.2, 0.3, 0.5]]
    msg = r"p has 1 row\(s\) with missing \(NaN\) values \(2 value\(s\)\) out of 3 rows \(first at row\(s\) 1\)"
    with pytest.raises(ValueError, match=msg):
        brier_score([0, 1, 2], p)


# evidential functions of (y, bel, pl, ...)
EV = [
    lambda y, b, q: M.betp_brier(y, b, q),
    lambda y, b, q: M.reject_curve(y, b, q),
    lambda y, b, q: M.interval_coverage(y, b, q, [0.5] * len(b)),
    lambda y, b, q: M.score_predictions(y, [0.5] * len(b), b, q),
    lambda y, b, q: M.ignorance_summary(b, q),
    lambda y, b, q: M.decide_binary(b, q),
]


@pytest.mark.parametrize("f", EV)
def test_bel_greater_than_pl(f):
    with pytest.raises(ValueError, match=r"bel must not exceed pl; 1 of 3 rows .*row 1: bel=0.6"):
        f([0, 1, 1], [0.1, 0.6, 0.2], [0.3, 0.5, 0.9])


@pytest.mark.parametrize("f", EV)
def test_bel_pl_outside_or_nan(f):
    with pytest.raises(ValueError, match=r"pl must lie in \[0, 1\]"):
        f([0, 1, 1], [0.1, 0.2, 0.2], [0.3, 0.5, 1.1])
    with pytest.raises(ValueError, match=r"bel has 1 missing"):
        f([0, 1, 1], [0.1, np.nan, 0.2], [0.3, 0.5, 0.9])
    with pytest.raises(ValueError, match="bel has 3 rows but pl has 2 rows"):
        f([0, 1, 1], [0.1, 0.2, 0.2], [0.3, 0.5])


def test_evidential_length_mismatch_with_y():
    with pytest.raises(ValueError, match="y has 2 rows but bel has 3 rows"):
        reject_curve([0, 1], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="y has 3 rows but p has 2 rows"):
        interval_coverage([0, 1, 1], [0.1, 0.2, 0.3], [0.2, 0.3, 0.4], [0.5, 0.5])


def test_inputs_are_not_modified_and_index_is_ignored():
    y = pd.Series([1, 0, 1, 1], index=[5, 3, 9, 1])
    p = np.array([0.9, 0.2, 0.4, 0.7])
    p0 = p.copy()
    assert brier_score(y, p) == brier_score(y.to_numpy(), p)
    assert np.array_equal(p, p0)
    assert ece(y.astype(bool), p) == ece(y.to_numpy(), p)


# ---------------------------------------------------------------- score_predictions
def test_score_predictions_probabilistic_only():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=100)
    y = (rng.uniform(size=100) < p).astype(int)
    s = score_predictions(y, p)
    assert list(s.index) == ["n", "error_rate", "brier", "log_loss", "ece"]
    assert s["n"] == 100
    assert s["error_rate"] == error_rate(y, p)
    assert s["brier"] == brier_score(y, p)
    assert s["log_loss"] == log_loss(y, p)
    assert s["ece"] == ece(y, p)


def test_score_predictions_evidential():
    rng = np.random.default_rng(2)
    p = rng.uniform(size=50)
    bel = p * rng.uniform(size=50)
    pl = p + (1 - p) * rng.uniform(size=50)
    y = (rng.uniform(size=50) < p).astype(int)
    s = score_predictions(y, p, bel=bel, pl=pl)
    assert list(s.index) == [
        "n",
        "error_rate",
        "brier",
        "log_loss",
        "ece",
        "mean_ignorance",
        "betp_brier",
    ]
    assert s["mean_ignorance"] == pytest.approx(np.mean(pl - bel))
    assert s["betp_brier"] == betp_brier(y, bel, pl)
    # rows of several calibrators stack into a comparison table
    table = pd.DataFrame({"a": s, "b": score_predictions(y, p)}).T
    assert np.isnan(table.loc["b", "mean_ignorance"])


def test_score_predictions_needs_both_bel_and_pl():
    with pytest.raises(ValueError, match="give both bel and pl"):
        score_predictions([0, 1], [0.2, 0.8], bel=[0.1, 0.5])
    with pytest.raises(ValueError, match="y has 2 rows but bel has 3 rows"):
        score_predictions([0, 1], [0.2, 0.8], bel=[0.1, 0.5, 0.2], pl=[0.3, 0.9, 0.3])


# ---------------------------------------------------------------- docstring examples run
@pytest.mark.parametrize(
    "module",
    ["probabilistic", "reliability", "gof", "evidential", "gebel", "summary", "credal"],
)
def test_docstring_examples(module, doctests):
    doctests(f"evstat.metrics.{module}", optionflags=doctest.NORMALIZE_WHITESPACE)


def test_public_api_is_exported_and_documented():
    for name in M.__all__:
        obj = getattr(M, name)
        assert obj.__doc__ and len(obj.__doc__) > 40, name
    funcs = [n for n in M.__all__ if callable(getattr(M, n)) and n[0].islower()]
    for name in funcs:
        assert "Examples" in getattr(M, name).__doc__, name


def test_object_columns():
    # object columns of numbers are fine; of strings they are not
    assert brier_score(pd.Series([0, 1], dtype=object), [0.5, 0.5]) == 0.25
    with pytest.raises(ValueError, match="y must be numeric; got values of dtype object"):
        brier_score(np.array(["0", "1"], dtype=object), [0.5, 0.5])
    with pytest.raises(ValueError, match="y must be numeric; got a pandas column of dtype"):
        brier_score(pd.Series(["0", "1"], dtype="category"), [0.5, 0.5])
