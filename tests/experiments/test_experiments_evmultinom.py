"""The evmultinom study (issue 16): the K-class partition, the decisions, the inputs of the
methods, a unit, the command line, and the committed run in reports/evmultinom (its README's
tables are recomputed from its CSV files)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evstat.experiments import evmultinom as st
from evstat.experiments.partition import apportion_classes, class_reject_partition

ROOT = Path(__file__).resolve().parents[2] / "reports" / "evmultinom"


# ---------------------------------------------------------------- partition
def test_class_partition_disjoint_nested_stratified() -> None:
    X, y, levels = st.load_classes("glass-evclass")
    p = class_reject_partition(y, np.random.default_rng(3), (25, 25, 25), (45, 15))
    blocks = [*p.svm, p.cal[45], p.test]
    allrows = np.concatenate(blocks)
    assert len(np.unique(allrows)) == len(allrows) == len(y)  # disjoint, every row used
    assert np.isin(p.cal[15], p.cal[45]).all()
    for b in (*p.svm, p.cal[45], p.cal[15]):
        assert (np.bincount(y[b], minlength=4) >= 1).all()  # every class in every block
    np.testing.assert_array_equal(np.bincount(y[p.cal[45]], minlength=4), apportion_classes([45], np.bincount(y))[0])
    again = class_reject_partition(y, np.random.default_rng(3), (25, 25, 25), (45, 15))
    assert all(np.array_equal(a, b) for a, b in zip(again.svm, p.svm)) and np.array_equal(again.test, p.test)
    sub = class_reject_partition(y, np.random.default_rng(3), (25, 25, 25), (45, 15), test_size=30)
    assert len(sub.test) == 30 and np.isin(sub.test, p.test).all()


def test_class_partition_bad_input() -> None:
    y = np.repeat([0, 1, 2], [40, 40, 3])
    with pytest.raises(ValueError, match="rows of class 2 but the data have 3"):
        class_reject_partition(y, np.random.default_rng(0), (20, 20, 20), (10,))
    with pytest.raises(ValueError, match="every class present; absent: \\[1\\]"):
        class_reject_partition(np.array([0, 2, 2, 0]), np.random.default_rng(0), (2,), (2,))
    with pytest.raises(ValueError, match="cannot hold each of the 3 classes"):
        apportion_classes([2], [5, 5, 5])


# ---------------------------------------------------------------- decisions and inputs
def test_decisions_are_the_zero_one_rules() -> None:
    rng = np.random.default_rng(1)
    th = rng.dirichlet(np.ones(4), 200)
    bel = th * rng.uniform(0.3, 1.0, (200, 1))
    pl = np.minimum(1.0, th + rng.uniform(0.0, 0.4, (200, 4)))
    np.testing.assert_array_equal(st.decisions(th, bel, pl, "pessimistic", None), np.argmax(bel, axis=1))
    np.testing.assert_array_equal(st.decisions(th, bel, pl, "optimistic", None), np.argmax(pl, axis=1))
    np.testing.assert_array_equal(st.decisions(th, bel, pl, "probabilistic", None), np.argmax(th, axis=1))
    c = 0.45
    d = st.decisions(th, bel, pl, "pessimistic", c)
    want = np.where(1 - bel.max(axis=1) > c, -1, np.argmax(bel, axis=1))
    np.testing.assert_array_equal(d, want)
    assert (st.decisions(th, bel, pl, "optimistic", 1.0) >= 0).all()  # reject never strictly better at cost 1


def test_score_frames_joint_and_averaged() -> None:
    rng = np.random.default_rng(0)
    P3 = rng.dirichlet(np.ones(3), (6, 3))
    f = st.score_frames(P3, ["a", "b", "c"], np.array([0, 1, 2, 0, 1, 2]))
    assert list(f["ratios"].columns) == ["l1_1", "l1_2", "l2_1", "l2_2", "l3_1", "l3_2", "y"]
    np.testing.assert_allclose(f["ratios"]["l2_2"], np.log(P3[:, 1, 2] / P3[:, 1, 0]))
    np.testing.assert_allclose(f["mean"][["p_a", "p_b", "p_c"]].sum(axis=1), 1.0)
    assert list(f["ratios"]["y"]) == ["a", "b", "c", "a", "b", "c"]
    P7 = rng.dirichlet(np.ones(7), (4, 3))
    f7 = st.score_frames(P7, list("abcdefg"))
    assert list(f7["ratios"].columns) == [f"a_{k}" for k in range(1, 7)]  # averaged for K > 4
    with pytest.raises(ValueError, match="probability of 0"):
        st.score_frames(np.zeros((1, 3, 3)), ["a", "b", "c"])


@pytest.mark.slow
def test_unit_iris_rows_and_counts() -> None:
    err, cur = st.unit("iris", 0, 7)
    assert set(err["n_cal"]) == {15, 45}
    assert len(err) == 2 * (3 * 3 + 2)  # sizes x (3 evidential methods x 3 strategies + 2 probabilistic)
    assert (err["note"].fillna("") == "").all(), err["note"].tolist()
    assert err["error_rate"].between(0, 1).all() and (err["n_test"] == 45).all()
    assert (cur["n_errors"] <= cur["n_decided"]).all() and (cur["n_decided"] <= cur["n_test"]).all()
    e = err.set_index(["n_cal", "method", "strategy"])["n_errors"]
    c0 = cur[cur["reject_cost"] == 1.0].set_index(["n_cal", "method", "strategy"])["n_errors"]
    assert (c0.reindex(e.index) == e).all()  # at reject cost 1 nothing is rejected
    ev = err[err["method"] == "evmultinom"]
    assert (ev["design"] == "joint").all() and (ev["ignorance"] > 0).all()
    err2, _ = st.unit("iris", 0, 7)
    pd.testing.assert_frame_equal(err, err2)  # seeded


# ---------------------------------------------------------------- the committed run
committed = pytest.mark.skipif(not (ROOT / "study.json").is_file(), reason="reports/evmultinom is not part of this installation")


@committed
def test_committed_run_is_complete_and_readme_tables_are_recomputed() -> None:
    study = json.loads((ROOT / "study.json").read_text())
    err = pd.read_csv(ROOT / "error_rates.csv")
    per_round = sum(len(study["cal_sizes"][d]) for d in study["datasets"]) * (3 * 3 + 2)
    assert len(err) == study["rounds"] * per_round
    cur = pd.read_csv(ROOT / "reject_curves.csv")
    assert len(cur) == len(err) * len(st.COSTS)
    readme = (ROOT / "README.md").read_text()
    assert study["command"] in readme
    assert st.markdown_tables(ROOT) in readme
    assert (ROOT / "tables.md").read_text() == st.markdown_tables(ROOT)


@pytest.mark.skipif(not (ROOT / "rounds30" / "error_rates.csv").is_file(), reason="the 30-round run is not in this checkout")
def test_thirty_round_run_tables_recompute_and_readme_quotes_its_table_2() -> None:
    """issue 40 item 5: rounds30/ has 30 complete rounds per data set, its tables.md is
    markdown_tables of its CSVs, and the README's 30-round Table 2 rows are those rows."""
    folder = ROOT / "rounds30"
    errors = pd.read_csv(folder / "error_rates.csv")
    assert errors.groupby("dataset")["round"].nunique().eq(30).all()
    tables = st.markdown_tables(folder)
    assert tables == (folder / "tables.md").read_text(encoding="utf-8")
    lines = tables.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("Table 2."))
    rows = [line for line in lines[i + 1:] if line.startswith("| evmultinom/")][:6]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(rows) == 6 and all(r in readme for r in rows)
