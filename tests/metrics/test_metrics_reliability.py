"""ECE, MCE (with bootstrap), reliability table, Wilson intervals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat.metrics.reliability as rel_mod
from evstat.metrics import BootstrapEstimate, ece, mce, reliability_table, wilson_interval


def _data(n: int, seed: int, skew: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n) ** skew
    y = (rng.uniform(size=n) < np.clip(p * 1.2 - 0.05, 0, 1)).astype(int)
    return y, p


def _slow_ce(y, p, bins, strategy):
    """Plain loops: edges, then for each bin the rows in it, then ECE and MCE."""
    n = len(p)
    if strategy == "uniform":
        edges = list(np.linspace(0, 1, bins + 1))
    else:
        edges = list(np.percentile(p, np.linspace(0, 1, bins + 1) * 100))
    total = 0.0
    worst = 0.0
    for b in range(bins):
        rows = []
        for i in range(n):
            lo, hi = edges[b], edges[b + 1]
            inside = (lo <= p[i] <= hi) if b == 0 else (lo < p[i] <= hi)
            if inside:
                rows.append(i)
        if not rows:
            continue
        gap = abs(sum(p[i] for i in rows) / len(rows) - sum(y[i] for i in rows) / len(rows))
        total += len(rows) / n * gap
        worst = max(worst, gap)
    return total, worst


# ---------------------------------------------------------------- hand examples
def test_ece_mce_hand_example():
    y = [0, 0, 1, 1, 1]
    p = [0.1, 0.3, 0.6, 0.8, 0.9]
    # bins [0, .5]: p .1 .3 (mean .2), y 0 0 -> gap .2 ; (.5, 1]: mean .7667, y 1 1 1 -> gap .2333
    assert ece(y, p, bins=2) == pytest.approx((2 * 0.2 + 3 * (1 - 2.3 / 3)) / 5, abs=1e-15)
    assert mce(y, p, bins=2) == pytest.approx(1 - 2.3 / 3, abs=1e-15)
    # one bin: |mean p - mean y| = |0.54 - 0.6|
    assert ece(y, p, bins=1) == pytest.approx(0.06, abs=1e-15)
    assert mce(y, p, bins=1) == pytest.approx(0.06, abs=1e-15)


def test_bins_are_right_closed():
    # p = 0.5 is in the first of two bins: [0, .5] holds y = 1 at p = .5 -> gap .5
    assert mce([1, 1], [0.5, 1.0], bins=2) == pytest.approx(0.5)
    # p = 0 is in the first bin (closed on the left)
    assert ece([0], [0.0], bins=4) == 0.0


def test_quantile_bins_hand_example():
    # quantiles at 0, .5, 1 of p = .1 .2 .3 .4 are .1, .25, .4 -> bins {.1, .2}, {.3, .4}
    y = [1, 0, 0, 0]
    p = [0.1, 0.2, 0.3, 0.4]
    assert ece(y, p, bins=2, strategy="quantile") == pytest.approx(
        (2 * abs(0.15 - 0.5) + 2 * abs(0.35 - 0.0)) / 4
    )
    assert mce(y, p, bins=2, strategy="quantile") == pytest.approx(0.35)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("bins", [1, 3, 10, 15])
def test_ece_mce_match_slow_path(strategy, bins):
    y, p = _data(250, bins, skew=2.0)
    e_slow, m_slow = _slow_ce(list(y), list(p), bins, strategy)
    assert ece(y, p, bins=bins, strategy=strategy) == pytest.approx(e_slow, abs=1e-14)
    assert mce(y, p, bins=bins, strategy=strategy) == pytest.approx(m_slow, abs=1e-14)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_ece_from_sklearn_calibration_curve(strategy):
    from sklearn.calibration import calibration_curve

    y, p = _data(400, 11, skew=1.5)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=8, strategy=strategy)
    t = reliability_table(y, p, bins=8, strategy=strategy)
    np.testing.assert_allclose(t["observed_frequency"], prob_true, atol=1e-15)
    np.testing.assert_allclose(t["mean_prediction"], prob_pred, atol=1e-15)
    expected = float(np.sum(t["n"] / len(y) * np.abs(prob_true - prob_pred)))
    assert ece(y, p, bins=8, strategy=strategy) == pytest.approx(expected, abs=1e-14)
    assert mce(y, p, bins=8, strategy=strategy) == pytest.approx(
        float(np.max(np.abs(prob_true - prob_pred))), abs=1e-14
    )


@st.composite
def y_p(draw):
    n = draw(st.integers(1, 40))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    p = draw(
        st.lists(
            st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 0.1, 0.5, 1.0])),
            min_size=n,
            max_size=n,
        )
    )
    return np.array(y), np.array(p)


@given(y_p(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
@settings(max_examples=120, deadline=None)
def test_ece_le_mce_property(yp, bins, strategy):
    y, p = yp
    e = ece(y, p, bins=bins, strategy=strategy)
    m = mce(y, p, bins=bins, strategy=strategy)
    assert 0.0 <= e <= m <= 1.0


# ---------------------------------------------------------------- bootstrap
def test_bootstrap_same_seed_same_output_and_matches_slow_loop():
    y, p = _data(120, 21)
    r1 = ece(y, p, bins=5, n_boot=50, seed=7)
    r2 = ece(y, p, bins=5, n_boot=50, seed=7)
    assert isinstance(r1, BootstrapEstimate)
    assert r1 == r2
    assert r1.estimate == ece(y, p, bins=5)
    assert r1.level == 0.95 and r1.n_boot == 50
    # slow path: all resamples drawn at once, ECE of each by the public function
    idx = np.random.default_rng(7).integers(0, len(y), size=(50, len(y)))
    reps = [ece(y[i], p[i], bins=5) for i in idx]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert r1.lower == pytest.approx(lo, abs=1e-15)
    assert r1.upper == pytest.approx(hi, abs=1e-15)
    assert ece(y, p, bins=5, n_boot=50, seed=8) != r1


def test_bootstrap_quantile_strategy_matches_slow_loop_and_chunking(monkeypatch):
    y, p = _data(90, 22)
    r = mce(y, p, bins=4, strategy="quantile", n_boot=40, level=0.8, seed=np.random.default_rng(3))
    idx = np.random.default_rng(3).integers(0, len(y), size=(40, len(y)))
    reps = [mce(y[i], p[i], bins=4, strategy="quantile") for i in idx]
    lo, hi = np.quantile(reps, [0.1, 0.9])
    assert (r.lower, r.upper) == pytest.approx((lo, hi), abs=1e-15)
    # forcing small chunks (several draws) gives the same replicates
    monkeypatch.setattr(rel_mod, "_BOOT_CELLS", 7 * len(y))
    r_chunked = mce(y, p, bins=4, strategy="quantile", n_boot=40, level=0.8, seed=3)
    assert r_chunked == r


def test_bootstrap_interval_contains_estimate_usually():
    y, p = _data(300, 23)
    r = ece(y, p, n_boot=200, seed=1)
    assert r.lower <= r.estimate <= r.upper
    assert 0.0 <= r.lower <= r.upper <= 1.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_boot": 0}, "n_boot"),
        ({"n_boot": 2.5}, "n_boot"),
        ({"n_boot": 10, "level": 1.0}, "level"),
        ({"n_boot": 10, "level": "high"}, "level"),
        ({"strategy": "equal"}, "strategy"),
        ({"bins": 0}, "bins"),
        ({"bins": "auto"}, "bins"),
    ],
)
def test_ece_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ece([0, 1, 1], [0.2, 0.5, 0.9], **kwargs)


# ---------------------------------------------------------------- reliability table, Wilson
def test_reliability_table_hand_example_and_columns():
    from statsmodels.stats.proportion import proportion_confint
    t = reliability_table([0, 0, 1, 1, 1], [0.1, 0.3, 0.6, 0.8, 0.9], bins=2)
    assert list(t.columns) == [
        "bin",
        "lower",
        "upper",
        "n",
        "mean_prediction",
        "observed_frequency",
        "wilson_lower",
        "wilson_upper",
    ]
    assert t["bin"].tolist() == [0, 1]
    assert t["lower"].tolist() == [0.0, 0.5] and t["upper"].tolist() == [0.5, 1.0]
    assert t["n"].tolist() == [2, 3]
    np.testing.assert_allclose(t["mean_prediction"], [0.2, 2.3 / 3])
    np.testing.assert_allclose(t["observed_frequency"], [0.0, 1.0])
    lo, hi = proportion_confint([0, 3], [2, 3], alpha=0.05, method="wilson")
    np.testing.assert_allclose(t["wilson_lower"], lo, atol=1e-15)
    np.testing.assert_allclose(t["wilson_upper"], hi, atol=1e-15)


def test_reliability_table_empty_bins():
    t = reliability_table([0, 1], [0.05, 0.95], bins=10)
    assert t["bin"].tolist() == [0, 9]
    full = reliability_table([0, 1], [0.05, 0.95], bins=10, drop_empty=False)
    assert len(full) == 10 and full["n"].sum() == 2
    assert full["mean_prediction"].isna().sum() == 8
    assert full["wilson_lower"].isna().sum() == 8
    np.testing.assert_allclose(full["lower"], np.linspace(0, 1, 11)[:-1])


def test_reliability_table_level():
    from statsmodels.stats.proportion import proportion_confint
    y, p = _data(200, 31)
    t = reliability_table(y, p, bins=5, level=0.8)
    lo, hi = proportion_confint(
        (t["observed_frequency"] * t["n"]).round(), t["n"], alpha=0.2, method="wilson"
    )
    np.testing.assert_allclose(t["wilson_lower"], lo, atol=1e-14)
    np.testing.assert_allclose(t["wilson_upper"], hi, atol=1e-14)
    assert (t["wilson_lower"] <= t["observed_frequency"]).all()
    assert (t["observed_frequency"] <= t["wilson_upper"]).all()


def test_wilson_matches_statsmodels_grid():
    from statsmodels.stats.proportion import proportion_confint
    n = np.repeat(np.arange(1, 31), 31)
    k = np.tile(np.arange(31), 30)
    keep = k <= n
    k, n = k[keep], n[keep]
    for level in (0.5, 0.9, 0.95, 0.99):
        lo, hi = wilson_interval(k, n, level=level)
        slo, shi = proportion_confint(k, n, alpha=1 - level, method="wilson")
        np.testing.assert_allclose(lo, np.clip(slo, 0, 1), atol=1e-14)
        np.testing.assert_allclose(hi, np.clip(shi, 0, 1), atol=1e-14)
        assert (lo >= 0).all() and (hi <= 1).all()


def test_wilson_closed_form_hand():
    # k = 0, n = 4, z = 1.96: upper = z^2 / (n + z^2)
    z = 1.959963984540054
    lo, hi = wilson_interval(0, 4)
    assert float(lo) == 0.0
    assert float(hi) == pytest.approx(z**2 / (4 + z**2), rel=1e-12)
    lo0, hi0 = wilson_interval(0, 0)
    assert np.isnan(lo0) and np.isnan(hi0)


@pytest.mark.parametrize(("k", "n"), [(3, 2), (-1, 5), (np.nan, 3)])
def test_wilson_bad_counts(k, n):
    with pytest.raises(ValueError, match="k"):
        wilson_interval(k, n)
