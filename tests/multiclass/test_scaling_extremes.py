"""Issue 36's bad inputs for the evidential scaling calibrators and evmultinom: K = 100 with one
row in a class, a class absent from the calibration data, logits of 1e300 (new rows and
calibration rows), NaN columns: correct answers or one clear error each."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import evstat as ev


def _logits(n: int, K: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = np.r_[np.arange(K), rng.integers(0, K, n - K)]
    L = rng.normal(size=(z.size, K)) + 2.0 * np.eye(K)[z]
    d = pd.DataFrame(L, columns=[f"c{k}" for k in range(K)])
    d["y"] = np.array([f"c{k}" for k in range(K)])[z]
    return d


def _formula(K: int) -> str:
    return "y ~ " + " + ".join(f"c{k}" for k in range(K))


def _ordered(b: pd.DataFrame) -> None:
    th, lo, up = (b[s].to_numpy() for s in ("theta", "bel", "pl"))
    assert np.isfinite(b.to_numpy()).all()
    assert np.all((0.0 <= lo) & (lo <= th + 1e-12) & (th <= up + 1e-12) & (up <= 1.0))


def _hundred(seed: int = 0) -> pd.DataFrame:
    d = _logits(1200, 100, seed)
    one = d.index[d["y"] == "c99"]
    d = d.drop(one[1:])  # class c99 keeps one calibration row
    assert (d["y"] == "c99").sum() == 1
    return d


@pytest.mark.slow
def test_hundred_classes_with_one_row_in_a_class():
    d = _hundred()
    b = ev.temperature(_formula(100), d).predict(d.head(20), type="belief")
    _ordered(b)
    assert (b["pl"] - b["bel"]).to_numpy().max() > 0  # an interval, not Bel = Pl
    v = ev.vector_scaling(_formula(100), d)  # default evidential=False: point probabilities
    _ordered(v.predict(d.head(20), type="belief"))


@pytest.mark.slow
def test_vector_scaling_bounds_at_a_hundred_classes_are_refused_with_the_size():
    """The general engine would keep n K p^2 products (35 GiB here): one clear error, not a
    MemoryError, naming the limit and temperature scaling."""
    d = _hundred()
    fit = ev.vector_scaling(_formula(100), d, evidential=True)
    with pytest.raises(ValueError, match=r"n K p\^2 = [\d,]+ .* GiB\), above its limit .* use temperature scaling"):
        fit.predict(d.head(2), type="belief")


@pytest.mark.parametrize("method", ["temperature", "vector_scaling"])
def test_a_logit_column_of_a_class_absent_from_the_calibration_data_is_named(method):
    d = _logits(300, 5)
    d = d[d["y"] != "c4"]
    with pytest.raises(ValueError, match=r"score column\(s\) \['c4'\] .* match no class of response 'y'"):
        getattr(ev, method)(_formula(5), d)


def test_evmultinom_without_a_class_predicts_the_classes_it_saw():
    d = _logits(300, 5)
    d = d[d["y"] != "c4"]
    fit = ev.evmultinom(_formula(5), d)
    assert list(fit.classes) == ["c0", "c1", "c2", "c3"]
    _ordered(fit.predict(d.head(3), type="belief"))


@pytest.mark.parametrize("method", ["temperature", "vector_scaling", "evmultinom"])
def test_logits_of_1e300_in_new_rows(method):
    d = _logits(400, 5)
    fit = getattr(ev, method)(_formula(5), d)
    new = d.head(3).drop(columns="y").copy()
    new.iloc[0] = [1e300, -1e300, 0.0, 1e300, 5.0]
    new.iloc[1] = 1e300
    b = fit.predict(new, type="belief")
    _ordered(b)
    p = fit.predict(new, type="prob").to_numpy()
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    if method == "temperature":  # softmax(z / T): the tied maxima share the probability
        np.testing.assert_allclose(p[0], [0.5, 0.0, 0.0, 0.5, 0.0], atol=1e-12)
        np.testing.assert_allclose(p[1], 0.2, atol=1e-12)


@pytest.mark.parametrize("method", ["temperature", "vector_scaling", "evmultinom"])
def test_logits_of_1e300_in_the_calibration_rows_are_refused(method):
    d = _logits(400, 5)
    big = d.head(2).copy()
    big.iloc[:, :5] = 1e300
    with pytest.raises(ValueError, match=r"design column 'c0' has values up to 1e\+300 .* rescale the scores"):
        getattr(ev, method)(_formula(5), pd.concat([d, big]))


@pytest.mark.parametrize("method", ["temperature", "vector_scaling", "evmultinom"])
def test_nan_columns_are_named(method):
    d = _logits(400, 5)
    fit = getattr(ev, method)(_formula(5), d)
    new = d.head(3).drop(columns="y").copy()
    new.iloc[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"column 'c2' of newdata has missing values in 1 row of 3"):
        fit.predict(new, type="belief")
    bad = d.copy()
    bad.iloc[5, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"'c1'.*missing"):
            getattr(ev, method)(_formula(5), bad)


@pytest.mark.parametrize("method, flat", [("matrix_scaling", 4), ("vector_scaling", 2)])
def test_a_fit_flat_along_some_directions_warns(method, flat):
    """Issue 38: a scaling fit that reported converged=True with a singular information said
    nothing; the separable iris scores leave the likelihood flat along some directions."""
    from evstat.multiclass import ScalingFitWarning

    scores = ev.datasets.load("iris_scores")
    cal = scores[scores["set"] == "calibration"]
    with pytest.warns(ScalingFitWarning, match=rf"flat along {flat} directions of the coefficients"):
        getattr(ev, method)("y ~ logp_setosa + logp_versicolor + logp_virginica", cal)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ScalingFitWarning)
        ev.temperature("y ~ logp_setosa + logp_versicolor + logp_virginica", cal)
