"""Tests of evstat.datasets: names, load, data_dir, simulate_gaussian and the shipped score tables."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat
import evstat as ev
from evstat.datasets import data_dir, load, names, simulate_gaussian

RAW = {
    # name: (rows, columns, class column, {label: count}) as in data/README.md
    "sonar": (208, 61, "Class", {"M": 111, "R": 97}),
    "ionosphere": (351, 35, "Class", {"good": 225, "bad": 126}),
    "pima": (768, 9, "diabetes", {"neg": 500, "pos": 268}),
    "heart": (270, 14, "Class", {"absent": 150, "present": 120}),
    "wdbc": (569, 31, "Class", {"benign": 357, "malignant": 212}),
    "australian": (690, 15, "Class", {0: 383, 1: 307}),
    "glass": (214, 10, "Type", {1: 70, 2: 76, 3: 17, 5: 13, 6: 9, 7: 29}),
    "vehicle": (846, 19, "Class", {"bus": 218, "opel": 212, "saab": 217, "van": 199}),
    "iris": (150, 5, "Species", {"setosa": 50, "versicolor": 50, "virginica": 50}),
}

# Score tables: dataset -> (class column of the source, positive label, source rows).
SCORES = {
    "sonar": ("Class", "M", 208),
    "ionosphere": ("Class", "bad", 351),
    "pima": ("diabetes", "pos", 768),
    "heart": ("Class", "present", 270),
    "wdbc": ("Class", "malignant", 569),
    "simulated": ("y", 1, 360),
}
SCORE_COLUMNS = ["row", "svm1", "svm2", "svm3", "y", "label", "set"]
SVM_TRAIN_ROWS = 10 + 20 + 20
SIMULATION_SEED = 2019  # the seed documented in data/make_scores.py and data/README.md


# --------------------------------------------------------------------------- names, load


def test_names_lists_raw_datasets_and_score_tables() -> None:
    listed = names()
    assert set(RAW) <= set(listed)
    assert {f"{name}_scores" for name in SCORES} <= set(listed)
    assert listed == sorted(listed)
    assert len(listed) == len(set(listed))
    assert all(isinstance(name, str) and not name.endswith(".csv") for name in listed)


def test_names_match_the_csv_files_in_data_dir() -> None:
    assert names() == sorted(p.stem for p in data_dir().glob("*.csv"))


def test_package_exposes_datasets_module() -> None:
    assert ev.datasets.load is load
    assert ev.datasets.names is names


@pytest.mark.parametrize("name", sorted(RAW))
def test_load_shape_and_class_counts_match_readme(name: str) -> None:
    rows, cols, class_column, counts = RAW[name]
    df = load(name)
    assert isinstance(df, pd.DataFrame)
    assert df.shape == (rows, cols)
    assert df.columns[-1] == class_column  # the class column is last
    assert df[class_column].value_counts().to_dict() == counts
    assert not df.isna().any().any()
    features = df.drop(columns=[class_column])
    assert all(pd.api.types.is_numeric_dtype(t) for t in features.dtypes)


def test_australian_is_the_statlog_file_with_its_decimals() -> None:
    """The Statlog australian.dat: its first row, and the continuous columns A2, A3, A7 keep
    their decimal points (the KEEL copy lost them)."""
    df = load("australian")
    assert df.iloc[0].tolist() == [1, 22.08, 11.46, 2, 4, 4, 1.585, 0, 0, 0, 1, 2, 100, 1213, 0]
    for col in ("A2", "A3", "A7"):
        assert (df[col] != df[col].round()).mean() > 0.5, col


def test_load_accepts_csv_suffix() -> None:
    pd.testing.assert_frame_equal(load("iris.csv"), load("iris"))


def test_load_returns_a_fresh_frame_each_time() -> None:
    first = load("iris")
    first.iloc[0, 0] = -999.0
    assert load("iris").iloc[0, 0] != -999.0


def test_known_first_rows() -> None:
    # First data rows as printed in data/README.md's sources (spot checks of row order).
    sonar = load("sonar")
    assert sonar.iloc[0, 0] == pytest.approx(0.02)
    assert sonar.iloc[0, 1] == pytest.approx(0.0371)
    iris = load("iris")
    assert iris.iloc[0].tolist() == [5.1, 3.5, 1.4, 0.2, "setosa"]
    pima = load("pima")
    assert pima.iloc[0].tolist() == [6.0, 148.0, 72.0, 35.0, 0.0, 33.6, 0.627, 50.0, "pos"]


def test_unknown_name_raises_value_error_listing_names() -> None:
    with pytest.raises(ValueError, match=r"unknown dataset 'adult'.*available datasets.*sonar"):
        load("adult")
    with pytest.raises(ValueError, match=r"heart_scores"):
        load("no_such_data")


@pytest.mark.parametrize("bad", [None, 3, 1.5, ["sonar"], Path("sonar.csv"), b"sonar"])
def test_non_string_name_raises_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="dataset name must be a string"):
        load(bad)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- data_dir


def test_data_dir_is_the_installed_copy_on_ci() -> None:
    """On CI (non-editable install, CI=true) the data must come from the installed package."""
    folder = data_dir()
    assert folder.is_dir()
    assert (folder / "sonar.csv").is_file()
    checkout_data = (Path(__file__).resolve().parents[2] / "data").resolve()
    if os.environ.get("CI") == "true":
        assert folder.parts[-2:] == ("evstat", "_data"), folder
        assert folder.resolve() != checkout_data
        package_dir = Path(evstat.__file__).resolve().parent
        assert folder.resolve().parent == package_dir
    else:
        assert folder.resolve() in {checkout_data, (Path(evstat.__file__).parent / "_data").resolve()}


# --------------------------------------------------------------------------- simulate_gaussian


def test_simulate_gaussian_is_deterministic() -> None:
    a = simulate_gaussian(360, seed=7)
    b = simulate_gaussian(360, seed=7)
    pd.testing.assert_frame_equal(a, b)
    c = simulate_gaussian(360, seed=8)
    assert not np.allclose(a[["x1", "x2"]].to_numpy(), c[["x1", "x2"]].to_numpy())
    g = simulate_gaussian(360, seed=np.random.default_rng(7))
    pd.testing.assert_frame_equal(a, g)


@pytest.mark.parametrize("n, n0, n1", [(360, 180, 180), (2, 1, 1), (3, 1, 2), (101, 50, 51)])
def test_simulate_gaussian_shape_and_class_sizes(n: int, n0: int, n1: int) -> None:
    df = simulate_gaussian(n, seed=0)
    assert list(df.columns) == ["x1", "x2", "y"]
    assert df.shape == (n, 3)
    assert df["y"].dtype.kind == "i"
    assert int((df["y"] == 0).sum()) == n0 and int((df["y"] == 1).sum()) == n1
    # class 0 rows first, then class 1
    assert df["y"].tolist() == [0] * n0 + [1] * n1


def test_simulate_gaussian_default_is_the_paper_size() -> None:
    assert simulate_gaussian(seed=1).shape == (360, 3)


def test_simulate_gaussian_moments_large_n() -> None:
    n = 200_000
    df = simulate_gaussian(n, seed=12345)
    m = n // 2
    true_means = {0: np.array([-1.0, 0.0]), 1: np.array([1.0, 1.0])}
    cov = np.array([[1.0, 0.5], [0.5, 1.0]])
    # Standard errors: mean sqrt(var / m); variance sqrt(2 var^2 / m);
    # covariance sqrt((var1 var2 + cov^2) / m). Tolerance: 5 standard errors.
    se_mean = np.sqrt(1.0 / m)
    se_cov = np.array([[np.sqrt(2.0 / m), np.sqrt(1.25 / m)], [np.sqrt(1.25 / m), np.sqrt(2.0 / m)]])
    for k in (0, 1):
        x = df.loc[df["y"] == k, ["x1", "x2"]].to_numpy()
        assert x.shape == (m, 2)
        np.testing.assert_array_less(np.abs(x.mean(axis=0) - true_means[k]), 5 * se_mean)
        np.testing.assert_array_less(np.abs(np.cov(x, rowvar=False) - cov), 5 * se_cov)


@pytest.mark.parametrize("bad", [1, 0, -5, 2.5, "10", True, None, np.float64(10.0)])
def test_simulate_gaussian_bad_n(bad: object) -> None:
    with pytest.raises(ValueError, match=r"n must be an integer >= 2"):
        simulate_gaussian(bad)  # type: ignore[arg-type]


def test_simulate_gaussian_accepts_numpy_integer() -> None:
    assert simulate_gaussian(np.int64(10), seed=0).shape == (10, 3)


# --------------------------------------------------------------------------- score tables


@pytest.fixture(scope="module", params=sorted(SCORES))
def score_table(request: pytest.FixtureRequest) -> tuple[str, pd.DataFrame]:
    return request.param, load(f"{request.param}_scores")


def test_score_table_columns_and_types(score_table: tuple[str, pd.DataFrame]) -> None:
    name, df = score_table
    assert list(df.columns) == SCORE_COLUMNS
    assert not df.isna().any().any()
    for col in ("svm1", "svm2", "svm3"):
        assert df[col].dtype == float
        assert np.isfinite(df[col]).all()
        assert df[col].std() > 0
    assert df["row"].dtype.kind == "i" and df["y"].dtype.kind == "i"
    assert set(df["y"]) == {0, 1}
    assert set(df["set"]) == {"calibration", "test"}


def test_score_table_sizes(score_table: tuple[str, pd.DataFrame]) -> None:
    name, df = score_table
    n_source = SCORES[name][2]
    assert len(df) == n_source - SVM_TRAIN_ROWS
    n_cal = int((df["set"] == "calibration").sum())
    n_test = int((df["set"] == "test").sum())
    assert n_cal + n_test == n_source - SVM_TRAIN_ROWS
    assert n_cal == len(df) // 2  # half, the test part takes the odd row


def test_score_table_both_classes_in_each_part(score_table: tuple[str, pd.DataFrame]) -> None:
    name, df = score_table
    counts = pd.crosstab(df["set"], df["y"])
    assert counts.shape == (2, 2)
    assert (counts.to_numpy() >= 1).all()
    # stratified: the classes are split evenly (within one row) between the two parts
    assert (np.abs(counts.loc["calibration"] - counts.loc["test"]) <= 1).all()


def test_score_table_rows_trace_back_to_the_source(score_table: tuple[str, pd.DataFrame]) -> None:
    name, df = score_table
    class_column, positive, n_source = SCORES[name]
    rows = df["row"].to_numpy()
    assert rows.min() >= 1 and rows.max() <= n_source
    assert np.all(np.diff(rows) > 0)  # original order, no duplicates
    if name == "simulated":
        source = simulate_gaussian(360, seed=SIMULATION_SEED)
    else:
        source = load(name)
    labels = source[class_column].to_numpy()[rows - 1]
    assert df["label"].tolist() == labels.tolist()
    np.testing.assert_array_equal(df["y"].to_numpy(), (labels == positive).astype(int))


def test_score_table_svms_rank_the_positive_class_higher(
    score_table: tuple[str, pd.DataFrame],
) -> None:
    """Sign convention: larger decision values mean the positive class (AUC well above 1/2)."""
    name, df = score_table
    y = df["y"].to_numpy()
    for col in ("svm1", "svm2", "svm3"):
        s = df[col].to_numpy()
        # Mann-Whitney AUC by brute force over all (positive, negative) pairs
        diff = s[y == 1][:, None] - s[y == 0][None, :]
        auc = float(np.mean((diff > 0) + 0.5 * (diff == 0)))
        assert auc > 0.55, (name, col, auc)


# --------------------------------------------------------------------------- credal simulators
def test_credal_simulators_match_the_paper_design() -> None:
    from evstat.datasets import simulate_credal_sim2, simulate_credal_test12

    train, test = simulate_credal_test12(seed=3)
    assert train["y"].value_counts().tolist() == [50, 50, 50] and len(test) == 150
    a, b = simulate_credal_test12(seed=3)
    pd.testing.assert_frame_equal(a, train)
    pd.testing.assert_frame_equal(b, test)
    big, _ = simulate_credal_test12(n=20000, seed=1)
    means = big.groupby("y")[["x1", "x2"]].mean().to_numpy()
    np.testing.assert_allclose(means, [[0, 0], [6, 0], [3, 4]], atol=0.06)
    vars_ = big.groupby("y")[["x1", "x2"]].var().to_numpy()
    np.testing.assert_allclose(vars_, [[2, 2], [2.5, 2.5], [1.5, 1.5]], rtol=0.05)
    tr, te = simulate_credal_sim2(3000, 10, seed=2)
    assert len(tr) == 12000 and len(te) == 40
    v = tr.groupby("y")[["x1", "x2"]].var().to_numpy()
    np.testing.assert_allclose(v, [[1, 6], [1, 6], [6, 1], [6, 1]], rtol=0.08)
    with pytest.raises(ValueError, match="n_train must be a positive integer"):
        simulate_credal_sim2(0)
