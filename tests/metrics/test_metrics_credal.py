"""Credal measures of evstat.metrics (Liu, Pan and Dezert 2013, section 5.2): error, imprecision per
cardinality, outlier rate, credal confusion table; counted by hand and as invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat import metrics

Y = ["a", "a", "b", "b", "c", "c"]
D = ["a", frozenset({"a", "b"}), "a", "outlier", {"a", "b", "c"}, ("b",)]


def test_rates_by_hand():
    # errors: row 2 (b decided a), row 5 (c decided {b}); row 1 in {a, b}; outlier no error
    assert metrics.credal_error_rate(Y, D) == pytest.approx(2 / 6)
    imp = metrics.imprecision_rates(Y, D)
    assert imp.index.tolist() == [2, 3] and imp.tolist() == pytest.approx([1 / 6, 1 / 6])
    assert metrics.outlier_rate(Y, D) == pytest.approx(1 / 6)
    r = metrics.credal_rates(Y, D)
    assert r.index.tolist() == ["error", "precise", "imprecision", "imprecision_2", "imprecision_3", "outlier"]
    assert r["precise"] == pytest.approx(3 / 6)
    assert r["precise"] + r["imprecision"] + r["outlier"] == pytest.approx(1.0)


def test_confusion_table():
    tab = metrics.credal_confusion(Y, D)
    assert tab.columns.tolist() == ["a", "b", "c", "{a, b}", "{a, b, c}", "outlier"]
    assert tab.index.tolist() == ["a", "b", "c"]
    assert tab.to_numpy().sum() == 6
    assert tab.loc["a", "{a, b}"] == 1 and tab.loc["b", "outlier"] == 1 and tab.loc["c", "b"] == 1


def test_precise_decisions_give_the_ordinary_error_rate():
    y = np.array([0, 1, 1, 2, 0])
    d = np.array([0, 1, 2, 2, 1])
    assert metrics.credal_error_rate(y, d) == pytest.approx(np.mean(y != d))
    assert metrics.credal_rates(y, d)["imprecision"] == 0.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sets(st.integers(0, 3), max_size=4)), min_size=1, max_size=30))
def test_rates_partition_the_rows(rows):
    y = [t for t, _ in rows]
    d = ["outlier" if not s else frozenset(s) for _, s in rows]
    r = metrics.credal_rates(y, d)
    assert r["precise"] + r["imprecision"] + r["outlier"] == pytest.approx(1.0)
    assert 0.0 <= r["error"] <= 1.0 - r["outlier"] + 1e-12
    assert r["imprecision"] == pytest.approx(sum(v for k, v in r.items() if k.startswith("imprecision_")))
    assert metrics.credal_confusion(y, d).to_numpy().sum() == len(y)


def test_bad_input():
    with pytest.raises(ValueError, match="y has 2 rows but decisions has 1"):
        metrics.credal_rates(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="empty set"):
        metrics.credal_rates(["a"], [frozenset()])
    with pytest.raises(ValueError, match="missing value"):
        metrics.credal_rates(["a"], [None])
    with pytest.raises(ValueError, match="no rows"):
        metrics.credal_rates([], [])
    # a Series works as well
    assert metrics.outlier_rate(pd.Series(["a"]), pd.Series(["outlier"])) == 1.0
