"""evstat.active: query strategies, update, the labelling loop."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.active import criterion, query, simulate, update
from evstat.active._query import _eir_binning, _eir_refit, pool_belief


def _hand_ignorance(k: int, n: int) -> float:
    """Pl - Bel = integral of the binomial contour over [0, 1] (eqs. 25-26), by quadrature."""
    from scipy import integrate

    th = k / n

    def pl(u: float) -> float:
        return (u**k * (1 - u) ** (n - k)) / (th**k * (1 - th) ** (n - k))

    return integrate.quad(pl, 0, 1, epsabs=1e-13, epsrel=1e-13)[0]


@pytest.fixture
def two_bins() -> tuple:
    # cell s = 0: k = 2 of n = 6; cell s = 1: k = 1 of n = 2
    cal = pd.DataFrame({"s": [0.0] * 6 + [1.0] * 2, "y": [0, 0, 0, 0, 1, 1, 1, 0]})
    fit = ev.evbinning("y ~ s", cal, breaks=[0.5])
    pool = pd.DataFrame({"s": [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]}, index=list("abcdef"))
    return cal, fit, pool


def test_hartley_two_bins_matches_hand_counts(two_bins):
    _, fit, pool = two_bins
    c = criterion(fit, pool, "hartley")
    # k = 1 of n = 2: Bel = 1/2 - (1/12)/(1/4) = 1/6, Pl = 5/6, ignorance exactly 2/3
    assert c.loc["b", "criterion"] == pytest.approx(2 / 3, abs=1e-12)
    assert c.loc["b", "criterion"] == pytest.approx(_hand_ignorance(1, 2), abs=1e-10)
    assert c.loc["a", "criterion"] == pytest.approx(_hand_ignorance(2, 6), abs=1e-10)
    got = query(fit, pool, n=1, strategy="hartley", seed=0)
    assert got.index[0] in ("b", "d")
    # both rows of cell 1 are tied: over seeds each is chosen
    picks = {query(fit, pool, strategy="hartley", seed=s).index[0] for s in range(40)}
    assert picks == {"b", "d"}


def test_pignistic_is_entropy_of_betp(two_bins):
    _, fit, pool = two_bins
    c = criterion(fit, pool, "pignistic")
    p = c["betp"].to_numpy()
    assert np.allclose(c["criterion"], -(p * np.log2(p) + (1 - p) * np.log2(1 - p)))
    # cell 1 has BetP = 1/2 (symmetric contour): maximal entropy 1 bit
    assert c.loc["b", "criterion"] == pytest.approx(1.0)
    assert query(fit, pool, strategy="pignistic", seed=3).index[0] in ("b", "d")


def test_eir_closed_form_equals_refits(two_bins):
    _, fit, pool = two_bins
    bel = pool_belief(fit, pool)
    exact = _eir_binning(fit, bel, pool, pool)
    slow = _eir_refit(fit, bel, pool, pool, candidates=None, refit=None)
    assert np.allclose(exact, slow, atol=1e-12)
    c = criterion(fit, pool, "eir", reference=None)
    assert np.allclose(c["criterion"], exact)
    # by hand for a row of cell 0: 4 of 6 reference rows in cell 0
    k, n = 2, 6
    b = bel.loc["a", "betp"]
    want = 4 / 6 * (_hand_ignorance(k, n) - b * _hand_ignorance(k + 1, n + 1) - (1 - b) * _hand_ignorance(k, n + 1))
    assert c.loc["a", "criterion"] == pytest.approx(want, abs=1e-9)


def test_eir_refit_for_evlogit_prefilter():
    data = ev.datasets.simulate_gaussian(60, seed=5).sample(frac=1, random_state=1)
    fit = ev.evlogit("y ~ x1", data.iloc[:10])
    pool = data.iloc[10:40].drop(columns="y")
    c = criterion(fit, pool, "eir", candidates=3, reference=10, seed=0)
    assert c["criterion"].notna().sum() == 3
    top3 = c["ignorance"].nlargest(3).index
    assert set(c.index[c["criterion"].notna()]) == set(top3)
    got = query(fit, pool, strategy="eir", candidates=3, reference=10, seed=0)
    assert got.index[0] in top3


@pytest.mark.parametrize("strategy", ["hartley", "pignistic", "random", "eir"])
@pytest.mark.parametrize("batch", ["greedy", "top"])
def test_query_rows_unique_and_in_pool(strategy, batch):
    data = ev.datasets.simulate_gaussian(70, seed=2).sample(frac=1, random_state=2)
    fit = ev.evbinning("y ~ x1 + x2", data.iloc[:20], bins=2)
    pool = data.iloc[20:]
    for n in (1, 3, len(pool) if strategy in ("random",) or batch == "top" else 4):
        got = query(fit, pool, n=n, strategy=strategy, batch=batch, seed=n)
        assert len(got) == n
        assert got.index.is_unique
        assert got.index.isin(pool.index).all()
        assert (got["rank"].to_numpy() == np.arange(1, n + 1)).all()
        pd.testing.assert_frame_equal(got[pool.columns], pool.loc[got.index])


def test_greedy_batch_spreads_over_cells(two_bins):
    _, fit, pool = two_bins
    top = query(fit, pool, n=2, strategy="hartley", batch="top", seed=0)
    assert set(top.index) == {"b", "d"}
    greedy = query(fit, pool, n=2, strategy="hartley", batch="greedy", seed=0)
    # after one (expected) label in cell 1 it holds n = 3 rows: ignorance 0.5 vs 0.4286 for
    # k = 2 of 6 in cell 0, so the second pick stays in cell 1 here; check by hand
    ign_after = _hand_ignorance(1, 3)
    assert ign_after > _hand_ignorance(2, 6)
    assert set(greedy.index) == {"b", "d"}
    # with more rows in cell 1 the greedy batch moves to cell 0 (top would not)
    # cell 1 with k = 3 of 6 (0.4571) beats cell 0 with 2 of 6 (0.4339); one more row in cell 1
    # (BetP = 1/2, either label) leaves 3 or 4 of 7 (0.4255), below cell 0
    cal = pd.DataFrame({"s": [0.0] * 6 + [1.0] * 6, "y": [0, 0, 0, 0, 1, 1] + [1, 1, 1, 0, 0, 0]})
    fit2 = ev.evbinning("y ~ s", cal, breaks=[0.5])
    assert _hand_ignorance(3, 6) > _hand_ignorance(2, 6) > _hand_ignorance(3, 7) == pytest.approx(_hand_ignorance(4, 7))
    g2 = query(fit2, pool, n=2, strategy="hartley", seed=0)
    assert pool.loc[g2.index, "s"].tolist() == [1.0, 0.0]
    t2 = query(fit2, pool, n=2, strategy="hartley", batch="top", seed=0)
    assert pool.loc[t2.index, "s"].tolist() == [1.0, 1.0]


def test_update_refits_same_options():
    data = ev.datasets.simulate_gaussian(40, seed=3).sample(frac=1, random_state=3)
    data["x1"] += np.random.default_rng(0).normal(0, 3, 40)  # no separation
    fit = ev.evlogit("y ~ x1 + x2", data.iloc[:20], targets="binary")
    up = update(fit, data.iloc[20:])
    direct = ev.evlogit("y ~ x1 + x2", data, targets="binary")
    assert up.nobs == 40 and up.targets == "binary"
    assert np.allclose(up.params, direct.params, atol=1e-8)
    b = ev.evbinning("y ~ x1", data.iloc[:20], breaks=[0.0])
    ub = update(b, data.iloc[20:])
    assert np.array_equal(ub.n, ev.evbinning("y ~ x1", data, breaks=[0.0]).n)
    with pytest.raises(ValueError, match="reuse index labels"):
        update(fit, data.iloc[:3])
    bad = data.iloc[20:22].copy()
    bad["y"] = [0, 7]
    with pytest.raises(ValueError, match="outside the classes"):
        update(fit, bad)
    with pytest.raises(ValueError, match="lack the column"):
        update(fit, data.iloc[20:22].drop(columns="x2"))
    with pytest.raises(ValueError, match="refit="):
        update(ev.disjoint("y ~ x1 + x2", data.iloc[:20]), data.iloc[20:])


def test_update_keeps_string_levels():
    cal = pd.DataFrame({"s": [0.1, 0.5, 0.9, 0.3, 0.7], "y": ["M", "R", "R", "M", "R"]})
    fit = ev.evlogit("y ~ s", cal)
    up = update(fit, pd.DataFrame({"s": [0.2], "y": ["M"]}, index=[10]))
    assert up.classes == ("M", "R") and up.nobs == 6


def test_bad_inputs(two_bins):
    _, fit, pool = two_bins
    with pytest.raises(ValueError, match="pool is empty"):
        query(fit, pool.iloc[:0])
    with pytest.raises(ValueError, match="only 6"):
        query(fit, pool, n=7)
    with pytest.raises(ValueError, match="n must be >= 1"):
        query(fit, pool, n=0)
    nan = pool.copy()
    nan.loc["c", "s"] = np.nan
    with pytest.raises(ValueError, match=r"score column 's' .* 1 missing .*'c'"):
        query(fit, nan)
    with pytest.raises(ValueError, match="lacks the score column"):
        query(fit, pool.rename(columns={"s": "t"}))
    with pytest.raises(ValueError, match="unknown strategy"):
        query(fit, pool, strategy="entropy")
    with pytest.raises(ValueError, match="duplicated"):
        query(fit, pool.set_axis(list("aabcde")))
    with pytest.raises(TypeError, match="DataFrame"):
        query(fit, pool.to_numpy())


def _loop_data():
    data = ev.datasets.simulate_gaussian(120, seed=7).sample(frac=1, random_state=7)
    data.index = range(len(data))
    return data.iloc[:10], data.iloc[10:80], data.iloc[80:]


def _fit(d):
    return ev.evbinning("y ~ x1 + x2", d, breaks=[[0.0], [0.5]])


@pytest.mark.parametrize("strategy", ["hartley", "random", "eir"])
def test_simulate_reproducible_and_consistent(strategy):
    lab, pool, test = _loop_data()
    h1 = simulate(_fit, lab, pool, "y", strategy=strategy, queries=6, test=test, seed=11)
    h2 = simulate(_fit, lab, pool, "y", strategy=strategy, queries=6, test=test, seed=11)
    pd.testing.assert_frame_equal(h1, h2)
    asked = [i for q in h1["queried"] for i in q]
    assert len(asked) == 6 == len(set(asked)) and set(asked) <= set(pool.index)
    assert h1["labels"].iloc[1:].tolist() == [[pool.loc[i, "y"]] for i in asked]
    assert h1["n_labelled"].tolist() == list(range(10, 17))
    # the last step's metrics are those of a direct fit on the grown data
    grown = pd.concat([lab, pool.loc[asked]])
    f = _fit(grown)
    b = f.predict(test, type="belief")
    p = (b["bel"] + b["pl"]) / 2
    assert h1["ignorance"].iloc[-1] == pytest.approx(float((b["pl"] - b["bel"]).mean()))
    assert h1["brier"].iloc[-1] == pytest.approx(float(((p - test["y"]) ** 2).mean()))
    assert h1["error"].iloc[-1] == pytest.approx(float(((p > 0.5) != (test["y"] == 1)).mean()))


def test_simulate_random_depends_on_seed():
    lab, pool, test = _loop_data()
    a = simulate(_fit, lab, pool, "y", strategy="random", queries=5, test=test, seed=1)
    b = simulate(_fit, lab, pool, "y", strategy="random", queries=5, test=test, seed=2)
    assert a["queried"].tolist() != b["queried"].tolist()


def test_simulate_callable_oracle_and_batches():
    lab, pool, test = _loop_data()
    truth = pool["y"]
    h = simulate(_fit, lab, pool.drop(columns="y"), lambda rows: truth.loc[rows.index].to_numpy(),
                 strategy="hartley", queries=3, n=2, test=test, seed=0)
    assert h["n_labelled"].tolist() == [10, 12, 14, 16]
    assert all(len(q) == 2 for q in h["queried"].iloc[1:])


def test_simulate_bad_oracle_and_sizes():
    lab, pool, test = _loop_data()
    with pytest.raises(ValueError, match="outside the classes"):
        simulate(_fit, lab, pool, lambda rows: np.full(len(rows), 5), queries=2, test=test)
    with pytest.raises(ValueError, match="one label per row"):
        simulate(_fit, lab, pool, lambda rows: [0], queries=2, n=2, test=test)
    with pytest.raises(ValueError, match="not in the pool"):
        simulate(_fit, lab, pool, "label", queries=2)
    with pytest.raises(ValueError, match="pool has 70"):
        simulate(_fit, lab, pool, "y", queries=71)
    with pytest.raises(ValueError, match="share index labels"):
        simulate(_fit, lab, pool.set_axis(range(len(pool))), "y", queries=1)
    with pytest.raises(ValueError, match="pool is empty"):
        simulate(_fit, lab, pool.iloc[:0], "y", queries=0)
