"""Tests of data/make_scores.py, the script that makes the shipped ``*_scores.csv`` tables.

The script is not part of the package; it is imported from the checkout (tests/../data/).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evstat.datasets import load, simulate_gaussian
from make_scores_helpers import CHECKOUT_DATA, import_script

ROLES = ("svm1", "svm2", "svm3", "calibration", "test")

ms = import_script()


def _partition_rng(seed: int) -> np.random.Generator:
    """The partition stream documented in the script: child 0 of SeedSequence(seed)."""
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


# --------------------------------------------------------------------------- constants


def test_documented_protocol_constants() -> None:
    assert ms.SEED == 2019
    assert ms.TRAIN_SIZES == (10, 20, 20)
    assert ms.SIMULATED_N == 360
    assert ms.COLUMNS == ["row", "svm1", "svm2", "svm3", "y", "label", "set"]
    assert ms.POSITIVE == {
        "sonar": ("Class", "M"),
        "ionosphere": ("Class", "bad"),
        "pima": ("diabetes", "pos"),
        "heart": ("Class", "present"),
        "wdbc": ("Class", "malignant"),
        "simulated": ("y", 1),
    }


def test_script_docstring_examples_run(doctests) -> None:
    doctests(ms, min_examples=2)


# --------------------------------------------------------------------------- reproducibility


def test_main_twice_gives_byte_identical_files(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    assert ms.main(["--out-dir", str(first), "--datasets", "sonar", "simulated"]) == 0
    assert ms.main(["--out-dir", str(second), "--datasets", "sonar", "simulated"]) == 0
    for name in ("sonar", "simulated"):
        a = (first / f"{name}_scores.csv").read_bytes()
        b = (second / f"{name}_scores.csv").read_bytes()
        assert a == b
        assert b"\r" not in a
        assert a.startswith(b"row,svm1,svm2,svm3,y,label,set\n")
    assert sorted(p.name for p in first.iterdir()) == ["simulated_scores.csv", "sonar_scores.csv"]


def test_main_prints_written_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ms.main(["--out-dir", str(tmp_path), "--datasets", "heart"])
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / 'heart_scores.csv'}"


def test_main_rejects_unknown_dataset(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        ms.main(["--out-dir", str(tmp_path), "--datasets", "australian"])


@pytest.mark.parametrize("name", list(ms.DATASETS))
def test_committed_tables_are_what_the_script_makes(name: str) -> None:
    made = ms.make_scores(name, ms.SEED)
    for committed in (pd.read_csv(CHECKOUT_DATA / f"{name}_scores.csv"), load(f"{name}_scores")):
        assert list(committed.columns) == list(made.columns)
        for col in ("row", "y", "label", "set"):
            assert committed[col].tolist() == made[col].tolist(), col
        for col in ("svm1", "svm2", "svm3"):
            # rounding to 10 significant digits; allow tiny libsvm/BLAS differences across platforms
            np.testing.assert_allclose(committed[col], made[col], rtol=1e-7, atol=1e-10)


def test_make_scores_is_deterministic_and_seed_dependent() -> None:
    a = ms.make_scores("heart", 5)
    pd.testing.assert_frame_equal(a, ms.make_scores("heart", 5))
    b = ms.make_scores("heart", 6)
    assert a["row"].tolist() != b["row"].tolist() or a["set"].tolist() != b["set"].tolist()


def test_values_have_at_most_ten_significant_digits(tmp_path: Path) -> None:
    path = ms.write_scores("sonar", tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    for line in lines:
        for token in line.split(",")[1:4]:
            mantissa = re.sub(r"[eE][-+]?\d+$", "", token).lstrip("-").replace(".", "")
            assert len(mantissa.lstrip("0")) <= 10, token
    table = ms.make_scores("sonar")
    values = table[["svm1", "svm2", "svm3"]].to_numpy().ravel()
    np.testing.assert_array_equal(values, [float(f"{v:.10g}") for v in values])


# --------------------------------------------------------------------------- the SVMs


@pytest.mark.parametrize("name", ["sonar", "simulated"])
def test_scores_match_an_independent_refit(name: str) -> None:
    """Slow path: rebuild the partition and refit each SVM as a scikit-learn pipeline."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    table = ms.make_scores(name, ms.SEED)
    class_column, positive = ms.POSITIVE[name]
    source = simulate_gaussian(360, seed=ms.SEED) if name == "simulated" else load(name)
    X = source.drop(columns=[class_column]).to_numpy(dtype=float)
    labels = source[class_column].to_numpy()
    roles = ms.assign_roles((labels == positive).astype(int), _partition_rng(ms.SEED))
    np.testing.assert_array_equal(roles[table["row"].to_numpy() - 1], table["set"].to_numpy())
    scored = table["row"].to_numpy() - 1
    for j in (1, 2, 3):
        train = roles == f"svm{j}"
        # Fit on the string labels with the positive class listed second in sorted order ...
        y_text = np.where(labels[train] == positive, "b_pos", "a_neg")
        model = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale"))
        model.fit(X[train], y_text)
        assert list(model.classes_) == ["a_neg", "b_pos"]
        # ... so that decision values > 0 mean the positive class, as in the table.
        expected = model.decision_function(X[scored])
        np.testing.assert_allclose(table[f"svm{j}"], expected, rtol=1e-9, atol=1e-12)


def test_training_rows_are_not_scored() -> None:
    table = ms.make_scores("ionosphere")
    X, y, _ = ms.load_raw("ionosphere")
    roles = ms.assign_roles(y, _partition_rng(ms.SEED))
    trained = np.flatnonzero(np.isin(roles, ["svm1", "svm2", "svm3"])) + 1
    assert len(trained) == 50
    assert not set(trained) & set(table["row"])
    assert sorted(set(trained) | set(table["row"])) == list(range(1, 352))


def test_load_raw_codes_positive_class() -> None:
    X, y, labels = ms.load_raw("sonar")
    assert X.shape == (208, 60) and X.dtype == float
    assert int(y.sum()) == 111
    np.testing.assert_array_equal(y, (labels == "M").astype(int))
    Xs, ys, labels_s = ms.load_raw("simulated", seed=3)
    np.testing.assert_array_equal(Xs, simulate_gaussian(360, seed=3)[["x1", "x2"]].to_numpy())
    np.testing.assert_array_equal(ys, labels_s)


def test_load_raw_unknown_name() -> None:
    with pytest.raises(ValueError, match=r"unknown dataset 'iris'; choose one of: sonar"):
        ms.load_raw("iris")


# --------------------------------------------------------------------------- the partition


def test_largest_remainder_worked_examples() -> None:
    # pima after the SVMs: 467 negatives, 251 positives, 718 rows -> 359 calibration rows:
    # 467 * 359 / 718 = 233.5 and 251 * 359 / 718 = 125.5; the tie goes to class 0.
    np.testing.assert_array_equal(ms._largest_remainder(np.array([467, 251]), 359), [234, 125])
    np.testing.assert_array_equal(ms._largest_remainder(np.array([3, 3]), 3), [2, 1])
    # 1 * 2 / 3 = 0.67 and 2 * 2 / 3 = 1.33: the larger remainder (class 0) gets the extra row.
    np.testing.assert_array_equal(ms._largest_remainder(np.array([1, 2]), 2), [1, 1])
    np.testing.assert_array_equal(ms._largest_remainder(np.array([84, 74]), 79), [42, 37])


def test_assign_roles_sonar_worked_example() -> None:
    # sonar: 111 positives of 208. Positives per SVM: floor(10 * 111/208 + 1/2) = 5 and
    # floor(20 * 111/208 + 1/2) = 11; 111 - 27 = 84 and 97 - 23 = 74 rows remain: 42 + 37 = 79
    # calibration rows (half of 158), the rest test.
    _, y, _ = ms.load_raw("sonar")
    roles = ms.assign_roles(y, _partition_rng(ms.SEED))
    table = pd.crosstab(roles, y)
    assert table.loc["svm1"].tolist() == [5, 5]
    assert table.loc["svm2"].tolist() == [9, 11]
    assert table.loc["svm3"].tolist() == [9, 11]
    assert table.loc["calibration"].tolist() == [37, 42]
    assert table.loc["test"].tolist() == [37, 42]


@settings(max_examples=60, deadline=None)
@given(
    n0=st.integers(min_value=30, max_value=400),
    n1=st.integers(min_value=30, max_value=400),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_assign_roles_invariants(n0: int, n1: int, seed: int) -> None:
    y = np.random.default_rng(seed).permutation(np.r_[np.zeros(n0, int), np.ones(n1, int)])
    roles = ms.assign_roles(y, np.random.default_rng(seed))
    assert set(roles) == set(ROLES)
    n = n0 + n1
    for j, size in enumerate(ms.TRAIN_SIZES, start=1):
        train = roles == f"svm{j}"
        assert train.sum() == size
        k1 = min(max(int(np.floor(size * n1 / n + 0.5)), 1), size - 1)
        assert y[train].sum() == k1  # stratified, both classes present
    rest = np.isin(roles, ["calibration", "test"])
    assert rest.sum() == n - 50
    cal = roles == "calibration"
    assert cal.sum() == (n - 50) // 2
    for c in (0, 1):
        in_cal = int((cal & (y == c)).sum())
        in_test = int(((roles == "test") & (y == c)).sum())
        assert in_cal >= 1 and in_test >= 1
        assert abs(in_cal - in_test) <= 2
    # same generator state, same roles
    again = ms.assign_roles(y, np.random.default_rng(seed))
    np.testing.assert_array_equal(roles, again)


def test_assign_roles_too_few_rows() -> None:
    y = np.r_[np.zeros(40, int), np.ones(3, int)]
    with pytest.raises(ValueError, match=r"too few rows: classes have \[40, 3\] rows"):
        ms.assign_roles(y, np.random.default_rng(0))
