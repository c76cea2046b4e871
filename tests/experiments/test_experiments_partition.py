"""Partitions of the Minary et al. (2019) protocols: sizes, disjointness, stratification, nesting."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from evstat.experiments.partition import (
    TABLE2,
    EnsembleSizes,
    apportion,
    ensemble_partitions,
    reject_partition,
    size_grid,
)

ROWS = {"sonar": 208, "ionosphere": 351, "pima": 768, "heart": 270, "australian": 690, "wdbc": 569, "simulated": 360}
POSITIVES = {"sonar": 111, "ionosphere": 126, "pima": 268, "heart": 120, "australian": 307, "wdbc": 212,
             "simulated": 180}


def _y(name: str) -> np.ndarray:
    n, k = ROWS[name], POSITIVES[name]
    return np.r_[np.zeros(n - k, dtype=int), np.ones(k, dtype=int)]


# ------------------------------------------------------------------------------ Table 2
def test_size_grid_reads_table2_start_step_stop() -> None:
    # Table 2 of the paper, "start-step-stop" with the stop always included
    assert size_grid(10, 60, 190) == (10, 70, 130, 190)  # Australian
    assert size_grid(10, 50, 200) == (10, 60, 110, 160, 200)  # Diabetes, Simulated
    assert size_grid(10, 50, 140) == (10, 60, 110, 140)  # Heart
    assert size_grid(10, 80, 190) == (10, 90, 170, 190)  # Ionosphere
    assert size_grid(10, 40, 90) == (10, 50, 90)  # Sonar
    assert size_grid(5, 5, 5) == (5,)


def test_table2_uses_every_row_at_the_largest_train3() -> None:
    # In every row of the paper's Table 2, #Train1 + #Train2 + max #Train3 + #Test = rows
    for name, sizes in TABLE2.items():
        assert sizes.n_rows == ROWS[name], name
    assert (TABLE2["pima"].train1, TABLE2["pima"].train2, TABLE2["pima"].test) == (30, 70, 468)
    assert (TABLE2["heart"].train1, TABLE2["heart"].train2, TABLE2["heart"].test) == (20, 40, 70)
    assert (TABLE2["ionosphere"].test, TABLE2["sonar"].test, TABLE2["simulated"].test) == (101, 58, 100)
    assert TABLE2["wdbc"] == EnsembleSizes(30, 70, (10, 70, 130, 190), 279)


def test_table2_matches_shipped_data_sizes() -> None:
    import evstat as ev

    for name in ("sonar", "ionosphere", "pima", "heart", "wdbc"):
        assert len(ev.datasets.load(name)) == ROWS[name]


@pytest.mark.parametrize(
    "args, match",
    [((0, 10, 20), "start must be a positive integer"), ((10, 0, 20), "step must be"), ((30, 10, 20), r"stop \(20\) must be >= start"),
     ((1.5, 1, 2), "start must be a positive integer")],
)
def test_size_grid_bad_input(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        size_grid(*args)


def test_ensemble_sizes_bad_input() -> None:
    with pytest.raises(ValueError, match="train1 must be a positive integer"):
        EnsembleSizes(0, 40, (10,), 50)
    with pytest.raises(ValueError, match="train3 must be a non-empty sequence"):
        EnsembleSizes(20, 40, (), 50)
    with pytest.raises(ValueError, match="train2 must be >= 2"):
        EnsembleSizes(20, 1, (10,), 50)


# ------------------------------------------------------------------------------ apportion
def test_apportion_hand_example() -> None:
    # 97 negatives, 111 positives; blocks of 10, 10, 58 use 78 rows -> round(78 * 111/208) = 42
    # positives; quotas 5.385, 5.385, 31.231 -> floors 5, 5, 31 and the missing unit goes to the
    # largest remainder (0.385, tie -> first block)
    c = apportion([10, 10, 58], n_neg=97, n_pos=111)
    assert c.tolist() == [[4, 6], [5, 5], [27, 31]]
    assert c.sum() == 78 and c[:, 1].sum() == 42


def test_apportion_forces_both_classes_in_flagged_blocks() -> None:
    # 3 negatives among 100 rows: proportional shares would give the small blocks no negative
    c = apportion([3, 2, 50], n_neg=3, n_pos=97)
    assert (c[:2] >= 1).all()
    assert c[:, 0].sum() <= 3 and c.sum() == 55
    assert (c.sum(axis=1) == [3, 2, 50]).all()


@pytest.mark.parametrize(
    "args, match",
    [(([10, 20], 5, 5), "the blocks need 30 rows but the data have 10"),
     (([2, 2, 2], 2, 50), "3 blocks must hold both classes"),
     (([2, 1], 5, 5, [True, True]), "a block flagged to hold both classes has fewer than 2 rows"),
     (([-1], 5, 5), "non-negative integers"),
     (([4, 4], 5, 5, [True]), "one flag per block")],
)
def test_apportion_bad_input(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        apportion(*args)


@settings(max_examples=60, deadline=None)
@given(
    n_neg=st.integers(2, 60), n_pos=st.integers(2, 60),
    sizes=st.lists(st.integers(0, 30), min_size=1, max_size=6),
)
def test_apportion_properties(n_neg: int, n_pos: int, sizes: list[int]) -> None:
    total = sum(sizes)
    flagged = [s >= 2 for s in sizes]
    need = sum(flagged)
    assume(total <= n_neg + n_pos)
    if max(need, total - n_neg) > min(n_pos, total - need):  # infeasible: a clear error
        with pytest.raises(ValueError, match="too few rows of one class"):
            apportion(sizes, n_neg, n_pos)
        return
    c = apportion(sizes, n_neg, n_pos)
    assert (c >= 0).all()
    assert c.sum(axis=1).tolist() == sizes
    assert c[:, 0].sum() <= n_neg and c[:, 1].sum() <= n_pos
    for b, f in enumerate(flagged):
        if f:
            assert c[b, 0] >= 1 and c[b, 1] >= 1


# ------------------------------------------------------------------------------ ensemble partitions
@pytest.mark.parametrize("name", list(TABLE2))
def test_ensemble_partition_sizes_disjointness_and_classes(name: str) -> None:
    y = _y(name)
    sizes = TABLE2[name]
    parts = ensemble_partitions(y, sizes, np.random.default_rng(7))
    assert sorted(parts) == list(sizes.train3)
    for t, p in parts.items():
        train = [sizes.train1, sizes.train2, t]
        # each training set is halved: the SVM half gets the odd row
        assert [len(s) for s in p.svm] == [v - v // 2 for v in train]
        assert [len(c) for c in p.cal] == [v // 2 for v in train]
        assert len(p.test) == sizes.test
        blocks = [*p.svm, *p.cal, p.test]
        for a, b in itertools.combinations(blocks, 2):
            assert np.intersect1d(a, b).size == 0
        everything = np.concatenate(blocks)
        assert np.unique(everything).size == everything.size
        for block in [*p.svm, *[c for c in p.cal if len(c) >= 2]]:
            assert set(y[block]) == {0, 1}, (name, t)
        assert np.array_equal(p.joint_cal, np.concatenate(p.cal))
    # at the largest #Train3 every row is used (Table 2's sizes add up to the data set)
    big = parts[max(parts)]
    assert np.concatenate([*big.svm, *big.cal, big.test]).size == y.size


def test_ensemble_partition_shares_test_and_first_two_sets_and_nests_third() -> None:
    y = _y("pima")
    parts = ensemble_partitions(y, TABLE2["pima"], np.random.default_rng(3))
    first = parts[10]
    for t, p in parts.items():
        assert np.array_equal(p.test, first.test)
        for j in (0, 1):
            assert np.array_equal(p.svm[j], first.svm[j]) and np.array_equal(p.cal[j], first.cal[j])
    sizes = sorted(parts)
    for small, big in zip(sizes, sizes[1:]):
        s = np.concatenate([parts[small].svm[2], parts[small].cal[2]])
        b = np.concatenate([parts[big].svm[2], parts[big].cal[2]])
        assert np.isin(s, b).all()


def test_ensemble_partition_is_stratified() -> None:
    y = _y("pima")  # 268 positives of 768
    p = ensemble_partitions(y, TABLE2["pima"], np.random.default_rng(11))[200]
    share = y.mean()
    assert abs(y[p.test].sum() - share * len(p.test)) <= 1.0
    for block in [*p.svm, *p.cal]:
        assert abs(y[block].sum() - share * len(block)) <= 1.0


def test_ensemble_partition_deterministic_and_seed_dependent() -> None:
    y = _y("heart")
    a = ensemble_partitions(y, TABLE2["heart"], np.random.default_rng(5))
    b = ensemble_partitions(y, TABLE2["heart"], np.random.default_rng(5))
    c = ensemble_partitions(y, TABLE2["heart"], np.random.default_rng(6))
    for t in a:
        assert all(np.array_equal(u, v) for u, v in zip(a[t].svm + a[t].cal, b[t].svm + b[t].cal))
        assert np.array_equal(a[t].test, b[t].test)
    assert not np.array_equal(a[10].test, c[10].test)


def test_ensemble_partition_bad_input() -> None:
    with pytest.raises(ValueError, match="the partition needs 268 rows"):
        ensemble_partitions(_y("sonar")[:200], EnsembleSizes(20, 40, (10, 150), 58), np.random.default_rng(0))
    with pytest.raises(ValueError, match="y must hold the class codes 0 and 1"):
        ensemble_partitions(np.r_[np.zeros(150), np.full(150, 2)], TABLE2["sonar"], np.random.default_rng(0))
    with pytest.raises(ValueError, match="non-empty 1-D array"):
        ensemble_partitions(np.zeros((10, 2)), TABLE2["sonar"], np.random.default_rng(0))
    with pytest.raises(ValueError, match="too few rows of one class"):
        ensemble_partitions(np.r_[np.zeros(205), np.ones(3)], TABLE2["sonar"], np.random.default_rng(0))


@settings(max_examples=30, deadline=None)
@given(n_neg=st.integers(40, 120), n_pos=st.integers(40, 120), seed=st.integers(0, 2**16))
def test_ensemble_partition_properties(n_neg: int, n_pos: int, seed: int) -> None:
    y = np.r_[np.zeros(n_neg, dtype=int), np.ones(n_pos, dtype=int)]
    sizes = EnsembleSizes(10, 20, (4, 12, 30), min(20, n_neg + n_pos - 60))
    parts = ensemble_partitions(y, sizes, np.random.default_rng(seed))
    for t, p in parts.items():
        blocks = [*p.svm, *p.cal, p.test]
        cat = np.concatenate(blocks)
        assert np.unique(cat).size == cat.size == 30 + t + sizes.test
        for block in [*p.svm, *[c for c in p.cal if len(c) >= 2]]:
            assert set(y[block]) == {0, 1}


# ------------------------------------------------------------------------------ reject partitions
def test_reject_partition_sizes_nesting_disjointness() -> None:
    y = _y("simulated")
    p = reject_partition(y, np.random.default_rng(2), (30, 30, 30), (45, 15), 100)
    assert [len(s) for s in p.svm] == [30, 30, 30]
    assert {k: len(v) for k, v in p.cal.items()} == {45: 45, 15: 15}
    assert len(p.test) == 100
    assert np.isin(p.cal[15], p.cal[45]).all()
    blocks = [*p.svm, p.cal[45], p.test]
    cat = np.concatenate(blocks)
    assert np.unique(cat).size == cat.size
    for block in [*p.svm, p.cal[45], p.cal[15]]:
        assert set(y[block]) == {0, 1}
    # Sonar's 50 test rows (paper, section 5.4)
    q = reject_partition(_y("sonar"), np.random.default_rng(2), test_size=50)
    assert len(q.test) == 50 and np.concatenate([*q.svm, q.cal[45], q.test]).size == 185


def test_reject_partition_empty_test_and_errors() -> None:
    y = np.r_[np.zeros(145, dtype=int), np.ones(145, dtype=int)]
    p = reject_partition(y, np.random.default_rng(0), (30, 30, 30), (200, 15), 0)
    assert len(p.test) == 0 and len(p.cal[200]) == 200
    with pytest.raises(ValueError, match=r"the partition needs 390 rows \(SVMs 90 \+ calibration 200 \+ test 100\)"):
        reject_partition(y, np.random.default_rng(0), (30, 30, 30), (200, 15), 100)
    with pytest.raises(ValueError, match="cal_sizes must be integers >= 2"):
        reject_partition(y, np.random.default_rng(0), cal_sizes=(1,))
