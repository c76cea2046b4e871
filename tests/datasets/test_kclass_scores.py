"""Tests of the K-class score tables ``iris_scores`` and ``vehicle_scores`` (data/make_scores.py).

The script is not part of the package; it is imported from the checkout (tests/../data/).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evstat as ev
from evstat.datasets import load, names
from make_scores_helpers import CHECKOUT_DATA, import_script

# name -> (class column of the source, classes in sorted order, rows per part train/cal/test,
#          per-class (train, calibration, test) counts)
TABLES = {
    "iris": ("Species", ["setosa", "versicolor", "virginica"], (48, 51, 51),
             {"setosa": (16, 17, 17), "versicolor": (16, 17, 17), "virginica": (16, 17, 17)}),
    "vehicle": ("Class", ["bus", "opel", "saab", "van"], (280, 284, 282),
                {"bus": (72, 73, 73), "opel": (70, 71, 71), "saab": (72, 73, 72),
                 "van": (66, 67, 66)}),
}

ms = import_script()


def _columns(classes: list[str]) -> list[str]:
    return (["row"] + [f"lr_{c}" for c in classes[1:]] + [f"logp_{c}" for c in classes]
            + [f"p_{c}" for c in classes] + [f"svm_{c}" for c in classes] + ["y", "set"])


def _argmax_accuracy(scores: pd.DataFrame, y: pd.Series) -> float:
    """Accuracy of deciding the column with the largest value (columns named ``<prefix>_<class>``)."""
    classes = np.array([c.split("_", 1)[1] for c in scores.columns])
    return float(np.mean(classes[scores.to_numpy().argmax(axis=1)] == y.to_numpy()))


@pytest.fixture(scope="module", params=sorted(TABLES))
def table(request: pytest.FixtureRequest) -> tuple[str, pd.DataFrame]:
    return request.param, load(f"{request.param}_scores")


# --------------------------------------------------------------------------- the shipped tables


def test_names_list_the_kclass_tables() -> None:
    assert {"iris_scores", "vehicle_scores"} <= set(names())
    assert ms.KCLASS == {"iris": "Species", "vehicle": "Class"}
    assert ms.ALL_DATASETS == ms.DATASETS + ("iris", "vehicle")


def test_columns_shapes_and_no_missing(table: tuple[str, pd.DataFrame]) -> None:
    name, df = table
    _, classes, sizes, _ = TABLES[name]
    assert list(df.columns) == _columns(classes)
    assert df.shape == (sum(sizes), 3 + (len(classes) - 1) + 3 * len(classes))  # row, y, set
    assert not df.isna().any().any()
    scores = df.drop(columns=["row", "y", "set"])
    assert (scores.dtypes == float).all()
    assert np.isfinite(scores.to_numpy()).all()
    assert (scores.std() > 0).all()
    assert df["row"].tolist() == list(range(1, len(df) + 1))  # every source row, source order
    assert sorted(df["y"].unique()) == classes


def test_labels_are_the_source_labels(table: tuple[str, pd.DataFrame]) -> None:
    name, df = table
    class_column = TABLES[name][0]
    assert df["y"].tolist() == load(name)[class_column].tolist()


def test_split_sizes_stratified(table: tuple[str, pd.DataFrame]) -> None:
    name, df = table
    _, classes, (n_train, n_cal, n_test), per_class = TABLES[name]
    assert df["set"].value_counts().to_dict() == {"train": n_train, "calibration": n_cal, "test": n_test}
    counts = pd.crosstab(df["y"], df["set"])[["train", "calibration", "test"]]
    assert {c: tuple(int(v) for v in counts.loc[c]) for c in classes} == per_class
    # the documented rule: floor(n/3) train, ceil((n - floor(n/3)) / 2) calibration
    for c, (tr, ca, te) in per_class.items():
        n = tr + ca + te
        assert (tr, ca) == (n // 3, -(-(n - n // 3) // 2)), c


def test_the_three_logistic_forms_agree(table: tuple[str, pd.DataFrame]) -> None:
    """p = exp(logp), rows of p sum to 1, lr_k = logp_k - logp_first (to the 10-digit rounding)."""
    name, df = table
    classes = TABLES[name][1]
    p = df[[f"p_{c}" for c in classes]].to_numpy()
    logp = df[[f"logp_{c}" for c in classes]].to_numpy()
    assert ((p > 0) & (p <= 1)).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(np.exp(logp), p, rtol=1e-8, atol=1e-300)
    lr = df[[f"lr_{c}" for c in classes[1:]]].to_numpy()
    np.testing.assert_allclose(lr, logp[:, 1:] - logp[:, [0]], rtol=1e-8, atol=1e-8)


def test_classifiers_beat_the_majority_class_on_test(table: tuple[str, pd.DataFrame]) -> None:
    name, df = table
    classes = TABLES[name][1]
    test = df[df["set"] == "test"]
    majority = test["y"].value_counts(normalize=True).max()
    for prefix in ("p_", "svm_"):
        acc = _argmax_accuracy(test[[f"{prefix}{c}" for c in classes]], test["y"])
        assert acc > majority + 0.4, (name, prefix, acc, majority)


# --------------------------------------------------------------------------- calibrators on them


@pytest.mark.parametrize(("name", "prefix", "min_accuracy"), [
    ("iris", "lr_", 0.9), ("iris", "svm_", 0.9), ("vehicle", "lr_", 0.68), ("vehicle", "svm_", 0.68),
])
def test_evmultinom_fits_on_calibration_and_predicts_test(name: str, prefix: str, min_accuracy: float) -> None:
    """The documented use: ``y ~ lr_...`` (K - 1 log-ratios) or ``y ~ svm_...`` (K columns)."""
    df = load(f"{name}_scores")
    cal, test = df[df["set"] == "calibration"], df[df["set"] == "test"]
    cols = [c for c in df.columns if c.startswith(prefix)]
    fit = ev.evmultinom("y ~ " + " + ".join(cols), data=cal)
    prob = fit.predict(test)
    assert list(prob.columns) == TABLES[name][1]
    np.testing.assert_allclose(prob.sum(axis=1), 1.0, atol=1e-9)
    accuracy = float(np.mean(prob.columns.to_numpy()[prob.to_numpy().argmax(axis=1)] == test["y"].to_numpy()))
    majority = test["y"].value_counts(normalize=True).max()
    # iris: 0.941 (lr_), 0.980 (svm_); vehicle: 0.727, 0.741; majority 0.333 and 0.259
    assert accuracy >= min_accuracy > majority + 0.4, (accuracy, majority)


@pytest.mark.slow  # ~6 s on the shared machine (load 20)
def test_scaling_calibrators_take_the_documented_columns() -> None:
    """temperature / vector_scaling on the K ``logp_`` columns, dirichlet on the K ``p_`` columns."""
    df = load("iris_scores")
    cal, test = df[df["set"] == "calibration"], df[df["set"] == "test"]
    classes = TABLES["iris"][1]
    for fitter, prefix in ((ev.temperature, "logp_"), (ev.vector_scaling, "logp_"), (ev.dirichlet, "p_")):
        fit = fitter("y ~ " + " + ".join(f"{prefix}{c}" for c in classes), cal)
        prob = fit.predict(test)
        assert list(prob.columns) == classes
        accuracy = _argmax_accuracy(prob.add_prefix("x_"), test["y"])
        assert accuracy > 0.9, (fitter.__name__, accuracy)


# --------------------------------------------------------------------------- the script


def test_script_docstring_examples_run(doctests) -> None:
    doctests(ms, min_examples=4)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_committed_tables_are_what_the_script_makes(name: str) -> None:
    made = ms.make_kclass_scores(name, ms.SEED)
    for committed in (pd.read_csv(CHECKOUT_DATA / f"{name}_scores.csv"), load(f"{name}_scores")):
        assert list(committed.columns) == list(made.columns)
        for col in ("row", "y", "set"):
            assert committed[col].tolist() == made[col].tolist(), col
        scores = [c for c in made.columns if c not in ("row", "y", "set")]
        # rounding to 10 significant digits; allow tiny libsvm/BLAS differences across platforms
        np.testing.assert_allclose(committed[scores], made[scores], rtol=1e-7, atol=1e-10)


@pytest.mark.slow  # ~6 s on the shared machine (load 20)
def test_main_twice_gives_byte_identical_files(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    for out in (first, second):
        assert ms.main(["--out-dir", str(out), "--datasets", "iris", "vehicle"]) == 0
    for name in ("iris", "vehicle"):
        a = (first / f"{name}_scores.csv").read_bytes()
        assert a == (second / f"{name}_scores.csv").read_bytes()
        assert b"\r" not in a
        assert len(a) < 200_000


@pytest.mark.parametrize("name", sorted(TABLES))
def test_scores_match_an_independent_refit(name: str) -> None:
    """Slow path: rebuild the split and refit both classifiers as scikit-learn pipelines."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    class_column, classes, _, _ = TABLES[name]
    table = load(f"{name}_scores")
    source = load(name)
    X = source.drop(columns=[class_column]).to_numpy(dtype=float)
    labels = source[class_column].to_numpy()
    rng = np.random.default_rng(np.random.SeedSequence(ms.SEED).spawn(1)[0])
    roles = ms.assign_kclass_roles(labels, rng)
    np.testing.assert_array_equal(roles, table["set"].to_numpy())
    train = roles == "train"
    lr = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=10000)).fit(X[train], labels[train])
    np.testing.assert_allclose(table[[f"p_{c}" for c in classes]], lr.predict_proba(X), rtol=1e-6, atol=1e-12)
    for c in classes:  # one-vs-rest by hand: class c against the rest, c listed second
        svm = make_pipeline(StandardScaler(), SVC(kernel="rbf", C=1.0, gamma="scale"))
        svm.fit(X[train], labels[train] == c)
        np.testing.assert_allclose(table[f"svm_{c}"], svm.decision_function(X), rtol=1e-7, atol=1e-9)


def test_unknown_kclass_dataset() -> None:
    with pytest.raises(ValueError, match=r"unknown K-class dataset 'sonar'; choose one of: iris, vehicle"):
        ms.make_kclass_scores("sonar")


def test_assign_kclass_roles_too_few_rows() -> None:
    with pytest.raises(ValueError, match=r"class 'b' has 2 rows; each part needs at least 1"):
        ms.assign_kclass_roles(np.array(["a"] * 9 + ["b"] * 2), np.random.default_rng(0))


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(3, 60), min_size=2, max_size=5), seed=st.integers(0, 2**32 - 1))
def test_assign_kclass_roles_invariants(counts: list[int], seed: int) -> None:
    labels = np.repeat([f"c{k}" for k in range(len(counts))], counts)
    roles = ms.assign_kclass_roles(labels, np.random.default_rng(seed))
    for k, n in enumerate(counts):
        got = pd.Series(roles[labels == f"c{k}"]).value_counts()
        n_train = n // 3
        n_cal = -(-(n - n_train) // 2)
        assert (got.get("train", 0), got.get("calibration", 0), got.get("test", 0)) == (
            n_train, n_cal, n - n_train - n_cal)
        assert abs(n_cal - (n - n_train - n_cal)) <= 1
