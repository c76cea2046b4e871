"""The reproduction of Ramel, Pichon & Delmotte (2018): experiment engines, claims, smoke run."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev
import evstat.experiments.ramel2018 as rm
from evstat.likelihood.bernoulli import binomial_belief

REPORT = Path(__file__).resolve().parents[2] / "reports" / "ramel2018"


def test_ignorance_table_is_the_closed_form():
    ign, betp = rm.binomial_ignorance_table(30)
    for n in (1, 2, 7, 30):
        for k in (0, n // 3, n):
            _, b, p = binomial_belief(k, n)
            assert ign[n, k] == pytest.approx(float(p - b), abs=1e-14)
            assert betp[n, k] == pytest.approx(float(p + b) / 2, abs=1e-14)
    assert ign[0, 0] == 1.0 and betp[0, 0] == 0.5
    assert np.isnan(ign[3, 5])


@pytest.mark.parametrize("state", [(2, 6, 1, 2), (0, 3, 2, 3), (5, 9, 1, 4), (1, 5, 2, 6)])
@pytest.mark.parametrize("strategy, name", [("hartley", "HS"), ("pignistic", "PS"), ("eir", "EIR")])
def test_counts_engine_picks_the_cell_query_picks(state, strategy, name):
    """The cell chosen from counts equals the row evstat.active.query chooses on a row-level fit."""
    k0, n0, k1, n1 = state
    cal = pd.DataFrame({"s": [0.0] * n0 + [1.0] * n1, "y": [1] * k0 + [0] * (n0 - k0) + [1] * k1 + [0] * (n1 - k1)})
    fit = ev.evbinning("y ~ s", cal, breaks=[0.5])
    pool_counts = np.array([[30, 20, 25, 25]])  # (s, y) = 00, 01, 10, 11
    pool = pd.DataFrame({"s": [0.0] * 50 + [1.0] * 50})
    ign, betp = rm.binomial_ignorance_table(20)
    if name == "HS":
        c0, c1 = ign[n0, k0], ign[n1, k1]
    elif name == "PS":
        c0, c1 = rm._entropy(np.array([betp[n0, k0]])), rm._entropy(np.array([betp[n1, k1]]))
    else:
        red = []
        for k, n, ps in ((k0, n0, 50), (k1, n1, 50)):
            b = betp[n, k]
            red.append(ps * (ign[n, k] - b * ign[n + 1, k + 1] - (1 - b) * ign[n + 1, k]))
        c0, c1 = red
    cell = rm._choose_cell(np.atleast_1d(c0), np.atleast_1d(c1), pool_counts, np.array([0.3]))[0]
    got = ev.active.query(fit, pool, strategy=strategy, seed=0, reference=None)
    assert pool.loc[got.index[0], "s"] == cell


def test_experiment1_common_random_numbers_and_ends():
    df = rm.experiment1(3, sigmas=[-0.25, 0.0, 0.25], folds=60, queries=30)
    start = df[df["queries"] == 0].groupby("sigma")["ignorance"].nunique()
    assert (start == 1).all()
    w = df.pivot_table(index=["sigma", "queries"], columns="strategy", values="ignorance")
    ends = w.loc[[-0.25, 0.25]]
    # pure cells: ignorance and BetP entropy order the cells alike (EIR also weighs pool counts)
    assert np.array_equal(ends["HS"], ends["PS"])
    assert (w.diff().loc[w.index.get_level_values("queries") > 0].groupby(level="sigma").mean() < 0).all().all()
    assert df["ignorance"].between(0, 1).all()


def test_mvhyper_counts():
    rng = np.random.default_rng(0)
    colors = np.tile(np.array([400, 100, 300, 200]), (500, 1))
    x = rm._mvhyper(rng, colors, 100)
    assert (x.sum(axis=1) == 100).all() and (x >= 0).all() and (x <= colors).all()
    assert np.allclose(x.mean(axis=0), [40, 10, 30, 20], atol=1.0)


def test_active_partition_blocks():
    y = rm.dataset_arrays("heart")[1]
    p = rm.active_partition(y, 100, np.random.default_rng(1))
    blocks = [*p.svm, p.test, p.initial, p.pool]
    allrows = np.concatenate(blocks)
    assert len(allrows) == len(np.unique(allrows)) == y.size
    assert [len(b) for b in blocks[:5]] == [20, 20, 20, 100, 10]
    assert all(0 < y[b].sum() < len(b) for b in blocks)


def test_doctests(doctests):
    doctests(rm)


@pytest.mark.slow
def test_smoke_run(tmp_path):
    """A tiny version of the study: few folds and queries, one data set, one round."""
    res = rm.run_ramel2018(tmp_path, rounds=1, datasets=["sonar"], folds=30, queries1=12, queries2=2, quiet=True,
                           our_rounds=0)
    names = {p.name for p in res["out"].iterdir()}
    assert {"exp1_ignorance.csv", "exp1_relative.csv", "exp2_history.csv", "exp2_summary.csv", "claims.csv",
            "settings.json"} <= names
    h = pd.read_csv(tmp_path / "exp2_history.csv")
    assert set(h["strategy"]) == set(rm.PAPER_STRATEGIES)  # ours only on the first our_rounds = 0 rounds
    # the same folder with our strategies on every round: only those are computed
    more = rm.run_ramel2018(tmp_path, rounds=1, datasets=["sonar"], folds=30, queries1=12, queries2=2, quiet=True)
    assert more["units_run"] == 1
    h2 = pd.read_csv(tmp_path / "exp2_history.csv")
    pd.testing.assert_frame_equal(h2[h2["strategy"].isin(rm.PAPER_STRATEGIES)].reset_index(drop=True), h)
    h = h2
    assert set(h["strategy"]) == set(rm.EXP2_STRATEGIES)
    assert h[h["queries"] == 0].groupby("strategy")["ignorance"].first().nunique() == 1
    c = pd.read_csv(tmp_path / "claims.csv")
    assert set(c["kind"]) == {"finding", "sanity"}
    # a rerun resumes: nothing left to compute
    again = rm.run_ramel2018(tmp_path, rounds=1, datasets=["sonar"], folds=30, queries1=12, queries2=2, quiet=True)
    assert again["units_run"] == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "exp2_history.csv"), h)
    with pytest.raises(ValueError, match="other settings"):
        rm.run_ramel2018(tmp_path, rounds=1, datasets=["heart"], folds=30, queries1=12, queries2=2, quiet=True)


@pytest.mark.skipif(not (REPORT / "claims.csv").exists(), reason="the committed run is not in this checkout")
def test_committed_claims_recompute_from_csvs():
    exp1 = pd.read_csv(REPORT / "exp1_ignorance.csv")
    hist = pd.read_csv(REPORT / "exp2_history.csv") if (REPORT / "exp2_history.csv").exists() else None
    want = pd.read_csv(REPORT / "claims.csv")
    got = rm.claims(exp1, hist)
    assert got["verdict"].tolist() == want["verdict"].tolist()
    assert got["ours"].tolist() == want["ours"].tolist()


def test_units_run_the_papers_strategies_every_round_and_ours_on_the_first():
    u = rm._units(3, ["sonar", "heart"], our_rounds=1)
    paper, ours = rm.PAPER_STRATEGIES, rm.OUR_STRATEGIES
    assert u[:4] == [("sonar", 0, paper), ("heart", 0, paper), ("sonar", 0, ours), ("heart", 0, ours)]
    assert [g for _, r, g in u if r >= 1] == [paper] * 4
    assert len(rm._units(2, ["sonar"])) == 4
    assert set(paper) | set(ours) == set(rm.EXP2_STRATEGIES)


@pytest.mark.slow
def test_a_strategys_history_does_not_depend_on_its_unit():
    alone = rm.experiment2_unit("heart", 1, 7, queries=2, strategies=["HS"])
    both = rm.experiment2_unit("heart", 1, 7, queries=2, strategies=["PS", "HS"])
    cols = ["strategy", "queries", "n_labelled", "ignorance", "brier", "error"]
    pd.testing.assert_frame_equal(alone[cols], both.loc[both["strategy"] == "HS", cols].reset_index(drop=True))


@pytest.mark.skipif(not (REPORT / "claims.csv").exists(), reason="the committed run is not in this checkout")
def test_committed_readme_tables_are_those_of_the_csvs():
    """reports/ramel2018/tables.py prints the README's tables (rounds run, claims, Experiment 2
    in numbers) from the committed CSV files; every line of them is in the README."""
    import importlib.util
    import contextlib
    import io

    spec = importlib.util.spec_from_file_location("ramel_tables", REPORT / "tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mod.main(str(REPORT))
    readme = (REPORT / "README.md").read_text()
    lines = [ln for ln in buf.getvalue().splitlines() if ln.startswith("|")]
    assert len(lines) > 40
    missing = [ln for ln in lines if ln not in readme]
    assert not missing, missing[:3]
