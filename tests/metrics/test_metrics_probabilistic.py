"""Error rate, Brier score and its decomposition, log loss."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.metrics import brier_decomposition, brier_score, error_rate, log_loss


def _data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    return y, p


probs = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def y_p(draw, min_size: int = 1, max_size: int = 40):
    n = draw(st.integers(min_size, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    p = draw(st.lists(probs, min_size=n, max_size=n))
    return np.array(y), np.array(p)


# ---------------------------------------------------------------- error rate
def test_error_rate_hand_example():
    # predictions at 0.5: 0, 1, 0 (tie goes to 0), 1 -> rows 2 and 3 wrong
    assert error_rate([0, 1, 1, 0], [0.2, 0.7, 0.5, 0.6]) == 0.5
    # threshold 0.4: predictions 0, 1, 1, 1 -> one error
    assert error_rate([0, 1, 1, 0], [0.2, 0.7, 0.5, 0.6], threshold=0.4) == 0.25
    # threshold 0: everything with p > 0 is class 1
    assert error_rate([0, 1], [0.0, 0.0], threshold=0.0) == 0.5
    # threshold 1: everything is class 0
    assert error_rate([0, 1, 1], [1.0, 1.0, 0.3], threshold=1.0) == 2 / 3


def test_error_rate_matches_sklearn_accuracy():
    from sklearn.metrics import accuracy_score

    y, p = _data(500, 1)
    for t in (0.1, 0.5, 0.73):
        assert error_rate(y, p, threshold=t) == pytest.approx(
            1.0 - accuracy_score(y, (p > t).astype(int)), abs=1e-15
        )


def test_error_rate_accepts_bool_and_series():
    y = pd.Series([True, False, True], index=[10, 20, 30])
    p = pd.Series([0.9, 0.1, 0.2], index=[10, 20, 30])
    assert error_rate(y, p) == pytest.approx(1 / 3)


@pytest.mark.parametrize("t", [-0.1, 1.5, "a", None])
def test_error_rate_bad_threshold(t):
    with pytest.raises(ValueError, match="threshold"):
        error_rate([0, 1], [0.2, 0.8], threshold=t)


# ---------------------------------------------------------------- Brier
def test_brier_hand_example():
    # (0.1^2 + 0.2^2 + 0.6^2) / 3 = 0.41 / 3
    assert brier_score([0, 1, 1], [0.1, 0.8, 0.4]) == pytest.approx(0.41 / 3, abs=1e-15)
    assert brier_score([1], [1.0]) == 0.0
    assert brier_score([1, 0], [0.0, 1.0]) == 1.0


def test_brier_matches_sklearn():
    from sklearn.metrics import brier_score_loss

    y, p = _data(300, 2)
    assert brier_score(y, p) == pytest.approx(brier_score_loss(y, p), abs=1e-15)


@given(y_p())
@settings(max_examples=80, deadline=None)
def test_brier_and_error_in_unit_interval(yp):
    y, p = yp
    b = brier_score(y, p)
    e = error_rate(y, p)
    assert 0.0 <= b <= 1.0
    assert 0.0 <= e <= 1.0


# ---------------------------------------------------------------- Murphy decomposition
def test_decomposition_hand_example():
    # p = 0.2 on rows with y = 0, 1 (obar_k = 1/2); p = 0.8 on y = 1, 0, 1 (obar_k = 2/3); obar = 3/5
    d = brier_decomposition([0, 1, 1, 0, 1], [0.2, 0.2, 0.8, 0.8, 0.8])
    rel = (2 * (0.2 - 0.5) ** 2 + 3 * (0.8 - 2 / 3) ** 2) / 5
    res = (2 * (0.5 - 0.6) ** 2 + 3 * (2 / 3 - 0.6) ** 2) / 5
    unc = 0.6 * 0.4
    assert d["reliability"] == pytest.approx(rel, abs=1e-15)
    assert d["resolution"] == pytest.approx(res, abs=1e-15)
    assert d["uncertainty"] == pytest.approx(unc, abs=1e-15)
    assert d["brier"] == pytest.approx(0.28, abs=1e-15)
    assert d["within_bin_variance"] == 0.0
    assert d["within_bin_covariance"] == 0.0
    assert d["n_bins"] == 2


def _slow_decomposition(y, p, groups):
    """Loop over groups; returns rel, res, unc, wbv, wbc."""
    n = len(y)
    obar = sum(y) / n
    rel = res = wbv = wbc = 0.0
    for g in sorted(set(groups)):
        rows = [i for i in range(n) if groups[i] == g]
        pk = sum(p[i] for i in rows) / len(rows)
        ok = sum(y[i] for i in rows) / len(rows)
        rel += len(rows) * (pk - ok) ** 2 / n
        res += len(rows) * (ok - obar) ** 2 / n
        for i in rows:
            wbv += (p[i] - pk) ** 2 / n
            wbc += 2 * (p[i] - pk) * (y[i] - ok) / n
    return rel, res, obar * (1 - obar), wbv, wbc


def test_decomposition_unique_matches_slow_path_and_identity_exact():
    rng = np.random.default_rng(3)
    p = rng.choice([0.05, 0.2, 0.35, 0.5, 0.9, 1.0], size=200)
    y = (rng.uniform(size=200) < p).astype(int)
    d = brier_decomposition(y, p)
    rel, res, unc, wbv, wbc = _slow_decomposition(list(y), list(p), list(p))
    assert d["reliability"] == pytest.approx(rel, abs=1e-14)
    assert d["resolution"] == pytest.approx(res, abs=1e-14)
    assert d["uncertainty"] == pytest.approx(unc, abs=1e-15)
    assert d["within_bin_variance"] == 0.0 and d["within_bin_covariance"] == 0.0
    assert d["n_bins"] == 6
    assert d["brier"] == pytest.approx(brier_score(y, p), abs=0)
    assert d["reliability"] - d["resolution"] + d["uncertainty"] == pytest.approx(
        d["brier"], abs=1e-14
    )


def test_decomposition_equal_width_bins_matches_slow_path():
    y, p = _data(300, 4)
    d = brier_decomposition(y, p, bins=10)
    # bin of p: [0, .1], (.1, .2], ...: the number of interior edges strictly below p
    edges = np.linspace(0, 1, 11)[1:-1]
    groups = [sum(1 for e in edges if e < v) for v in p]
    rel, res, unc, wbv, wbc = _slow_decomposition(list(y), list(p), groups)
    for key, val in zip(
        ["reliability", "resolution", "uncertainty", "within_bin_variance", "within_bin_covariance"],
        [rel, res, unc, wbv, wbc],
        strict=True,
    ):
        assert d[key] == pytest.approx(val, abs=1e-13)
    assert d["within_bin_variance"] > 0
    # generalized identity holds exactly; Murphy's three terms alone only approximately
    full = (
        d["reliability"]
        - d["resolution"]
        + d["uncertainty"]
        + d["within_bin_variance"]
        - d["within_bin_covariance"]
    )
    assert full == pytest.approx(d["brier"], abs=1e-14)
    assert d["reliability"] - d["resolution"] + d["uncertainty"] != pytest.approx(
        d["brier"], abs=1e-6
    )


def test_decomposition_one_bin_has_no_resolution():
    y, p = _data(50, 5)
    d = brier_decomposition(y, p, bins=1)
    assert d["resolution"] == pytest.approx(0.0, abs=1e-15)
    assert d["reliability"] == pytest.approx((p.mean() - y.mean()) ** 2, abs=1e-15)


@given(y_p())
@settings(max_examples=60, deadline=None)
def test_decomposition_identity_property(yp):
    y, p = yp
    for bins in ("unique", 3, 10):
        d = brier_decomposition(y, p, bins=bins)
        full = (
            d["reliability"]
            - d["resolution"]
            + d["uncertainty"]
            + d["within_bin_variance"]
            - d["within_bin_covariance"]
        )
        assert full == pytest.approx(d["brier"], abs=1e-12)
        assert d["reliability"] >= 0 and d["resolution"] >= 0
    d = brier_decomposition(y, p)
    assert d["reliability"] - d["resolution"] + d["uncertainty"] == pytest.approx(
        d["brier"], abs=1e-12
    )


@pytest.mark.parametrize("bins", ["distinct", 0, -2, 2.5, True])
def test_decomposition_bad_bins(bins):
    with pytest.raises(ValueError, match="bins"):
        brier_decomposition([0, 1], [0.2, 0.8], bins=bins)


# ---------------------------------------------------------------- log loss
def test_log_loss_hand_example():
    # -(log 0.8 + log 0.6) / 2
    assert log_loss([1, 0], [0.8, 0.4]) == pytest.approx(-(math.log(0.8) + math.log(0.6)) / 2)


def test_log_loss_matches_sklearn_including_clipping():
    from sklearn.metrics import log_loss as sk_log_loss

    y, p = _data(400, 6)
    p[:5] = [0.0, 1.0, 0.0, 1.0, 1e-300]
    y[:5] = [1, 0, 0, 1, 1]
    assert log_loss(y, p) == pytest.approx(sk_log_loss(y, p), rel=1e-14)
    # one confident wrong prediction: -log(eps)
    eps = np.finfo(float).eps
    assert log_loss([1], [0.0]) == pytest.approx(-math.log(eps), rel=1e-15)
    assert log_loss([1, 0], [0.0, 0.5]) == pytest.approx(sk_log_loss([1, 0], [0.0, 0.5]))


def test_log_loss_eps_choices():
    assert log_loss([1], [0.0], eps=0) == math.inf
    assert log_loss([1, 0], [0.0, 0.0], eps=0) == math.inf
    assert log_loss([1, 0], [0.001, 0.2], eps=0.01) == pytest.approx(
        -(math.log(0.01) + math.log(0.8)) / 2
    )
    assert log_loss([0, 0], [0.0, 0.0], eps=0) == 0.0


def test_log_loss_single_class_allowed():
    assert log_loss([1, 1], [0.5, 0.25]) == pytest.approx(-(math.log(0.5) + math.log(0.25)) / 2)


@pytest.mark.parametrize("eps", ["machine", -1e-3, 0.5, [0.1]])
def test_log_loss_bad_eps(eps):
    with pytest.raises(ValueError, match="eps"):
        log_loss([0, 1], [0.2, 0.8], eps=eps)
