"""Evidential scores: ignorance, decisions with reject, reject curves, interval coverage."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.metrics import (
    betp_brier,
    brier_score,
    decide_binary,
    decision_metrics,
    ignorance_summary,
    interval_coverage,
    reject_curve,
    reliability_table,
)

STRATS = ("pessimistic", "optimistic", "probabilistic")


def _ev_data(n: int, seed: int, grid: bool = False):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(size=n)
    width = rng.uniform(0, 0.4, size=n)
    bel = np.clip(theta - width * rng.uniform(size=n), 0, 1)
    pl = np.clip(bel + width, 0, 1)
    theta = np.clip(theta, bel, pl)
    if grid:  # values on a 0.05 grid: many exact ties with grid reject costs
        bel = np.round(bel * 20) / 20
        pl = np.maximum(np.round(pl * 20) / 20, bel)
        theta = np.clip(np.round(theta * 20) / 20, bel, pl)
    y = (rng.uniform(size=n) < theta).astype(int)
    return y, bel, pl, theta


@st.composite
def ev_rows(draw, min_size=1, max_size=30):
    n = draw(st.integers(min_size, max_size))
    vals = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.15, 0.25, 0.5, 0.75, 0.85, 1.0]))
    a = np.array(draw(st.lists(vals, min_size=n, max_size=n)))
    b = np.array(draw(st.lists(vals, min_size=n, max_size=n)))
    bel, pl = np.minimum(a, b), np.maximum(a, b)
    t = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    p = bel + t * (pl - bel)
    p = np.clip(p, bel, pl)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    return y, bel, pl, p


# ---------------------------------------------------------------- ignorance
def test_ignorance_summary_hand_example():
    s = ignorance_summary([0.1, 0.2, 0.5, 0.0], [0.3, 0.6, 0.5, 1.0])
    ign = np.array([0.2, 0.4, 0.0, 1.0])
    assert s["n"] == 4
    assert s["mean"] == pytest.approx(0.4)
    assert s["min"] == 0.0 and s["max"] == 1.0
    assert list(s.index) == ["n", "mean", "min", "q05", "q25", "q50", "q75", "q95", "max"]
    # type-7 quantiles of (0, .2, .4, 1): median (.2 + .4)/2
    assert s["q50"] == pytest.approx(0.3)
    assert s["q25"] == pytest.approx(np.quantile(ign, 0.25))
    s2 = ignorance_summary([0.0], [0.5], quantiles=(0.025, 0.5))
    assert list(s2.index) == ["n", "mean", "min", "q2.5", "q50", "max"]


def test_ignorance_summary_bad_quantiles():
    with pytest.raises(ValueError, match="quantiles"):
        ignorance_summary([0.1], [0.2], quantiles=(0.5, 1.5))


# ---------------------------------------------------------------- decide_binary
def test_decide_binary_hand_costs():
    bel = [0.70, 0.40, 0.05, 0.30]
    pl = [0.90, 0.80, 0.20, 0.70]
    # pessimistic costs (R*(1) = 1 - bel, R*(0) = pl): (.3,.9) (.6,.8) (.95,.2) (.7,.7) -> 1 1 0 tie:0
    assert decide_binary(bel, pl, "pessimistic").tolist() == [1, 1, 0, 0]
    # chosen costs .3 .6 .2 .7: with R_rej = .35 rows 1 and 3 are rejected
    assert decide_binary(bel, pl, "pessimistic", reject_cost=0.35).tolist() == [
        1,
        "reject",
        0,
        "reject",
    ]
    # optimistic costs (R_*(1) = 1 - pl, R_*(0) = bel): (.1,.7) (.2,.4) (.8,.05) (.3,.3)
    assert decide_binary(bel, pl, "optimistic").tolist() == [1, 1, 0, 0]
    assert decide_binary(bel, pl, "optimistic", reject_cost=0.25).tolist() == [1, 1, 0, "reject"]
    # probabilistic with p: costs (1 - p, p)
    p = [0.8, 0.5, 0.1, 0.45]
    assert decide_binary(bel, pl, "probabilistic", p=p).tolist() == [1, 0, 0, 0]
    assert decide_binary(bel, pl, "probabilistic", reject_cost=0.3, p=p).tolist() == [
        1,
        "reject",
        0,
        "reject",
    ]
    out = decide_binary(bel, pl, reject_cost=0.35)
    assert out.dtype == object and isinstance(out[0], int)


def test_decide_binary_ties_and_equal_reject_cost():
    # bel + pl = 1: equal costs -> class 0 for both evidential strategies
    assert decide_binary([0.2], [0.8], "pessimistic").tolist() == [0]
    assert decide_binary([0.2], [0.8], "optimistic").tolist() == [0]
    assert decide_binary(None, None, "probabilistic", p=[0.5]).tolist() == [0]
    # reject cost equal to the chosen cost keeps the class, including decimal round-off
    assert decide_binary([0.85], [0.9], "pessimistic", reject_cost=0.15).tolist() == [1]
    assert 1 - 0.85 > 0.15  # the cost is 0.15000000000000002 in floating point
    assert decide_binary([0.85], [0.9], "pessimistic", reject_cost=0.1499).tolist() == ["reject"]


def test_decide_binary_extreme_reject_costs():
    bel = np.array([0.0, 0.3, 1.0, 0.0, 0.5])
    pl = np.array([1.0, 0.6, 1.0, 0.0, 0.5])
    # cost 0: only rows of chosen cost 0 are decided
    assert decide_binary(bel, pl, "pessimistic", reject_cost=0).tolist() == [
        "reject",
        "reject",
        1,
        0,
        "reject",
    ]
    assert decide_binary(bel, pl, "optimistic", reject_cost=0).tolist() == [
        0,  # total ignorance: optimistic costs are 0 for both classes
        "reject",
        1,
        0,
        "reject",
    ]
    for s in STRATS:
        assert "reject" not in decide_binary(bel, pl, s, reject_cost=1.0).tolist()
        assert decide_binary(bel, pl, s, reject_cost=5.0).tolist() == decide_binary(
            bel, pl, s
        ).tolist()
    # total ignorance: pessimistic cost 1, rejected at any cost below 1
    assert decide_binary([0.0], [1.0], "pessimistic", reject_cost=0.999).tolist() == ["reject"]
    assert decide_binary([0.0], [1.0], "optimistic", reject_cost=0.0).tolist() == [0]


def test_decide_binary_probabilistic_defaults_to_betp():
    y, bel, pl, theta = _ev_data(200, 1)
    betp = (bel + pl) / 2
    for rc in (None, 0.2):
        assert (
            decide_binary(bel, pl, "probabilistic", reject_cost=rc).tolist()
            == decide_binary(None, None, "probabilistic", reject_cost=rc, p=betp).tolist()
        )


@given(ev_rows(), st.floats(0, 1))
@settings(max_examples=120, deadline=None)
def test_decision_orderings_property(rows, rc):
    y, bel, pl, p = rows
    pess = decide_binary(bel, pl, "pessimistic", reject_cost=rc)
    opt = decide_binary(bel, pl, "optimistic", reject_cost=rc)
    prob = decide_binary(bel, pl, "probabilistic", reject_cost=rc, p=p)
    rp, ro, rq = (np.array([d == "reject" for d in x]) for x in (pess, opt, prob))
    # upper costs >= probabilistic costs >= lower costs when bel <= p <= pl
    assert np.all(ro <= rq) and np.all(rq <= rp)
    # without reject both evidential strategies take the same class
    assert decide_binary(bel, pl, "pessimistic").tolist() == decide_binary(
        bel, pl, "optimistic"
    ).tolist()


# ---------------------------------------------------------------- decision_metrics
def test_decision_metrics_hand_example():
    m = decision_metrics([1, 0, 1, 0, 1], [1, "reject", 0, 0, "reject"])
    assert m["n"] == 5 and m["n_decided"] == 3 and m["n_rejected"] == 2
    assert m["n_correct"] == 2 and m["n_errors"] == 1
    assert m["error_rate"] == pytest.approx(1 / 5)  # misclassified / tested
    assert m["accuracy"] == pytest.approx(2 / 3)  # correct / decided
    assert m["reject_rate"] == pytest.approx(2 / 5)
    total = m["error_rate"] + m["accuracy"] * (1 - m["reject_rate"]) + m["reject_rate"]
    assert total == pytest.approx(1.0)


def test_decision_metrics_input_forms():
    y = pd.Series([True, False, True])
    ref = decision_metrics([1, 0, 1], [1, "reject", 0])
    for d in (
        pd.Series([1, "reject", 0]),
        np.array([1, "reject", 0], dtype=object),
        np.where([False, True, False], "reject", np.array([1, 0, 0])),  # strings "1", "0"
        [1.0, "reject", 0.0],
        [True, "reject", False],
    ):
        pd.testing.assert_series_equal(decision_metrics(y, d), ref)
    m = decision_metrics([1, 0, 1], np.array([1, 1, 1]))
    assert m["error_rate"] == pytest.approx(1 / 3) and m["reject_rate"] == 0.0
    assert m["accuracy"] == pytest.approx(2 / 3)


def test_decision_metrics_all_rejected():
    m = decision_metrics([0, 1], ["reject", "reject"])
    assert m["error_rate"] == 0.0 and m["reject_rate"] == 1.0
    assert np.isnan(m["accuracy"])


@pytest.mark.parametrize(
    "bad",
    [[1, "Reject"], [1, 2], [1, None], [1, np.nan], [1, "yes"], np.array([0, -1])],
)
def test_decision_metrics_bad_decisions(bad):
    with pytest.raises(ValueError, match="decisions must be 0, 1 or 'reject'"):
        decision_metrics([0, 1], bad)


def test_decision_metrics_length_and_shape():
    with pytest.raises(ValueError, match="y has 3 rows but decisions has 2 rows"):
        decision_metrics([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="one-dimensional"):
        decision_metrics([0, 1], [[0, 1]])
    with pytest.raises(ValueError, match="decisions is empty"):
        decision_metrics([0, 1], [])


# ---------------------------------------------------------------- reject curve
def _slow_curve(y, bel, pl, p, costs, strategies):
    rows = []
    for s in strategies:
        for c in costs:
            m = decision_metrics(y, decide_binary(bel, pl, s, reject_cost=c, p=p))
            rows.append((s, c, m["error_rate"], m["accuracy"], m["reject_rate"]))
    return pd.DataFrame(rows, columns=["strategy", "reject_cost", "error_rate", "accuracy",
                                       "reject_rate"])


@pytest.mark.parametrize("grid", [False, True])
def test_reject_curve_matches_slow_loop(grid):
    y, bel, pl, theta = _ev_data(150, 2 if grid else 3, grid=grid)
    costs = np.linspace(0, 1, 101)
    fast = reject_curve(y, bel, pl, p=theta, costs=costs)
    slow = _slow_curve(y, bel, pl, theta, costs, STRATS)
    pd.testing.assert_frame_equal(fast, slow, check_exact=False, atol=1e-15, rtol=0)


def test_reject_curve_shape_defaults_and_endpoints():
    y, bel, pl, theta = _ev_data(80, 4)
    c = reject_curve(y, bel, pl)
    assert list(c.columns) == ["strategy", "reject_cost", "error_rate", "accuracy", "reject_rate"]
    assert len(c) == 3 * 101
    assert list(pd.unique(c["strategy"])) == list(STRATS)
    # default p is BetP
    betp = (bel + pl) / 2
    pd.testing.assert_frame_equal(c, reject_curve(y, bel, pl, p=betp))
    for s in STRATS:
        cs = c[c.strategy == s]
        end = cs[cs.reject_cost == 1.0].iloc[0]
        assert end["reject_rate"] == 0.0
        no_rej = decision_metrics(y, decide_binary(bel, pl, s, p=betp))
        assert end["error_rate"] == pytest.approx(no_rej["error_rate"])
        start = cs[cs.reject_cost == 0.0].iloc[0]
        c1, c0 = {
            "pessimistic": (1 - bel, pl),
            "optimistic": (1 - pl, bel),
            "probabilistic": (1 - betp, betp),
        }[s]
        zero_cost = np.minimum(c1, c0) == 0  # only these rows are decided at R_rej = 0
        assert start["reject_rate"] == pytest.approx(1 - zero_cost.mean())
    assert c[(c.strategy == "pessimistic") & (c.reject_cost == 0)]["reject_rate"].iloc[0] > 0.5
    everything = reject_curve(y, np.full(80, 0.3), np.full(80, 0.6), costs=[0.0])
    assert (everything["reject_rate"] == 1.0).all() and (everything["error_rate"] == 0.0).all()
    assert everything["accuracy"].isna().all()
    opt = c[c.strategy == "optimistic"]
    assert (opt[opt.reject_cost >= 0.5]["reject_rate"] == 0).all()
    one = reject_curve(y, bel, pl, costs=0.15, strategies="pessimistic")
    assert len(one) == 1 and one["strategy"].iloc[0] == "pessimistic"


@given(ev_rows(), st.lists(st.floats(0, 1.5), min_size=1, max_size=12))
@settings(max_examples=100, deadline=None)
def test_reject_curve_monotone_property(rows, costs):
    y, bel, pl, p = rows
    costs = np.sort(np.array(costs))
    c = reject_curve(y, bel, pl, p=p, costs=costs)
    for s in STRATS:
        cs = c[c.strategy == s]
        rr = cs["reject_rate"].to_numpy()
        er = cs["error_rate"].to_numpy()
        assert np.all(np.diff(rr) <= 0)
        assert np.all(np.diff(er) >= 0)
        assert np.all((0 <= er) & (er <= 1)) and np.all((0 <= rr) & (rr <= 1))
        acc = cs["accuracy"].to_numpy()
        ok = ~np.isnan(acc)
        assert np.all((0 <= acc[ok]) & (acc[ok] <= 1))
        assert np.all(np.isnan(acc) == (rr == 1.0))
        if (cs["reject_cost"] >= 1).any():
            assert (cs[cs.reject_cost >= 1]["reject_rate"] == 0).all()
    # at any cost the pessimistic strategy rejects at least as much as the probabilistic one,
    # which rejects at least as much as the optimistic one (p between bel and pl)
    r = {s: c[c.strategy == s]["reject_rate"].to_numpy() for s in STRATS}
    assert np.all(r["optimistic"] <= r["probabilistic"])
    assert np.all(r["probabilistic"] <= r["pessimistic"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"costs": [-0.1, 0.5]}, "costs must be >= 0"),
        ({"costs": [0.1, np.nan]}, "costs has 1 missing"),
        ({"costs": []}, "costs is empty"),
        ({"strategies": ["pessimistic", "hurwicz"]}, "each strategy must be one of"),
        ({"strategies": []}, "strategies is empty"),
        ({"p": [0.5, 0.5]}, "bel has 3 rows but p has 2 rows"),
    ],
)
def test_reject_curve_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        reject_curve([0, 1, 1], [0.1, 0.5, 0.6], [0.3, 0.7, 0.9], **kwargs)


def test_decide_binary_bad_arguments():
    with pytest.raises(ValueError, match="strategy must be one of"):
        decide_binary([0.1], [0.2], strategy="cautious")
    with pytest.raises(ValueError, match="reject_cost must be >= 0"):
        decide_binary([0.1], [0.2], reject_cost=-1)
    with pytest.raises(ValueError, match="reject_cost has 1 missing"):
        decide_binary([0.1], [0.2], reject_cost=float("nan"))
    with pytest.raises(ValueError, match="needs p, or bel and pl"):
        decide_binary(None, None, "probabilistic")
    with pytest.raises(ValueError, match="needs both bel and pl"):
        decide_binary(None, [0.2], "pessimistic")
    with pytest.raises(ValueError, match="bel must not exceed pl"):
        decide_binary([0.3, 0.5], [0.4, 0.2])


# ---------------------------------------------------------------- interval coverage, BetP Brier
def test_interval_coverage_hand_example():
    y = [0, 1, 1, 1]
    bel = [0.1, 0.2, 0.5, 0.6]
    pl = [0.3, 0.5, 0.9, 0.8]
    p = [0.2, 0.4, 0.7, 0.7]
    t = interval_coverage(y, bel, pl, p, bins=2)
    assert list(t.columns) == [
        "bin",
        "lower",
        "upper",
        "n",
        "mean_prediction",
        "observed_frequency",
        "mean_bel",
        "mean_pl",
        "covered",
    ]
    np.testing.assert_allclose(t["mean_bel"], [0.15, 0.55])
    np.testing.assert_allclose(t["mean_pl"], [0.4, 0.85])
    np.testing.assert_allclose(t["observed_frequency"], [0.5, 1.0])
    assert t["covered"].tolist() == [False, False]
    t2 = interval_coverage([0, 1], [0.1, 0.2], [0.6, 0.7], [0.3, 0.4], bins=1)
    assert t2["covered"].tolist() == [True]  # 0.15 <= 0.5 <= 0.65


def test_interval_coverage_matches_reliability_table_and_slow_loop():
    y, bel, pl, theta = _ev_data(300, 5)
    for strategy in ("uniform", "quantile"):
        t = interval_coverage(y, bel, pl, theta, bins=7, strategy=strategy)
        r = reliability_table(y, theta, bins=7, strategy=strategy)
        for col in ("bin", "lower", "upper", "n", "mean_prediction", "observed_frequency"):
            np.testing.assert_allclose(t[col], r[col], atol=1e-15)
        for _, row in t.iterrows():
            lo, hi = row["lower"], row["upper"]
            inside = [
                i
                for i in range(len(y))
                if (lo <= theta[i] <= hi if row["bin"] == 0 else lo < theta[i] <= hi)
            ]
            assert row["mean_bel"] == pytest.approx(np.mean(bel[inside]), abs=1e-15)
            assert row["mean_pl"] == pytest.approx(np.mean(pl[inside]), abs=1e-15)
            obs = np.mean(y[inside])
            assert row["covered"] == (np.mean(bel[inside]) <= obs <= np.mean(pl[inside]))


def test_betp_brier_hand_and_definition():
    # BetP = 0.8, 0.2 -> (0.2^2 + 0.2^2) / 2
    assert betp_brier([1, 0], [0.6, 0.0], [1.0, 0.4]) == pytest.approx(0.04, abs=1e-15)
    y, bel, pl, _ = _ev_data(100, 6)
    assert betp_brier(y, bel, pl) == brier_score(y, (bel + pl) / 2)
    with pytest.raises(ValueError, match="y has 2 rows but bel has 1 rows"):
        betp_brier([0, 1], [0.1], [0.2])
