"""Tests of the ten-class example ``digits_logits`` (data/make_digits_logits.py, issue 36 item 4).

The script is not part of the package; it is imported from the checkout (tests/../data/).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest
from scipy.special import log_softmax

import evstat as ev
from evstat.datasets import data_dir, load, names

SCRIPT = Path(__file__).resolve().parents[2] / "data" / "make_digits_logits.py"
LOGITS = [f"logit_{k}" for k in range(10)]
#: rows per split and digit, from the committed file (data/README.md)
SIZES = {"calibration": 454, "test": 447}
#: SHA-256 of the committed CSV (data/README.md); a regenerated file must change it here too
SHA256 = "32eee702f05c8a21c91fa9222ded18a977ce15bc07859823e01890ac82223471"


def _script() -> ModuleType:
    name = "evstat_make_digits_logits"
    if name in sys.modules:
        return sys.modules[name]
    assert SCRIPT.is_file(), f"{SCRIPT} not found: run the tests from a source checkout"
    spec = importlib.util.spec_from_file_location(name, SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    return load("digits_logits")


def _nll(logits: np.ndarray, y: np.ndarray) -> float:
    return float(-log_softmax(logits, axis=1)[np.arange(len(y)), y].mean())


# --------------------------------------------------------------------------- the shipped table


def test_listed_loaded_and_hashed(df: pd.DataFrame) -> None:
    assert "digits_logits" in names()
    path = data_dir() / "digits_logits.csv"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SHA256
    assert list(df.columns) == ["row", *LOGITS, "y", "set"]
    assert df.shape == (sum(SIZES.values()), 13)


def test_both_splits_have_every_digit(df: pd.DataFrame) -> None:
    assert df["set"].value_counts().to_dict() == SIZES
    for part in SIZES:
        counts = df.loc[df["set"] == part, "y"].value_counts()
        assert sorted(counts.index) == list(range(10))
        assert counts.min() >= 43, counts  # stratified: about a tenth of the split each
    assert pd.api.types.is_integer_dtype(df["y"])


def test_logits_finite_and_rows_are_digits_rows(df: pd.DataFrame) -> None:
    from sklearn.datasets import load_digits

    L = df[LOGITS].to_numpy()
    assert np.isfinite(L).all() and L.dtype == np.float64
    assert df["row"].is_unique and df["row"].between(1, 1797).all()
    target = load_digits().target
    assert (target[df["row"].to_numpy() - 1] == df["y"].to_numpy()).all()
    # out of sample but a good network: accuracy of the largest logit on each split
    for part in SIZES:
        rows = df["set"] == part
        accuracy = float(np.mean(L[rows.to_numpy()].argmax(axis=1) == df.loc[rows, "y"].to_numpy()))
        assert 0.93 < accuracy < 0.99, (part, accuracy)


def test_calibrators_match_the_columns_and_temperature_fits(df: pd.DataFrame) -> None:
    cal, test = df[df["set"] == "calibration"], df[df["set"] == "test"]
    fit = ev.temperature("y ~ " + " + ".join(LOGITS), cal)
    assert fit.task_columns == LOGITS  # logit_k matched to class k
    assert list(fit.classes) == list(range(10))
    # the network is over-confident out of sample: T > 1, and scaling lowers the test log loss
    assert 1.8 < fit.temperature < 2.4, fit.temperature
    prob = fit.predict(test)
    assert list(prob.columns) == list(range(10))
    y = test["y"].to_numpy()
    scaled = float(-np.mean(np.log(prob.to_numpy()[np.arange(len(y)), y])))
    assert scaled < _nll(test[LOGITS].to_numpy(), y) - 0.03
    np.testing.assert_allclose(prob.to_numpy().sum(axis=1), 1.0, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- the script


@pytest.mark.slow  # the example trains the network (about 2 s alone, 6 s on the shared machine)
def test_script_docstring_examples_run(doctests) -> None:
    doctests(_script(), min_examples=2)


def test_script_logits_are_the_network_before_softmax() -> None:
    """``logits`` from coefs_/intercepts_ gives predict_proba after the softmax (ReLU, two
    hidden layers too)."""
    from scipy.special import softmax
    from sklearn.neural_network import MLPClassifier

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), np.repeat([0, 1, 2], 20)
    net = MLPClassifier(hidden_layer_sizes=(5, 3), solver="lbfgs", max_iter=2000, random_state=0).fit(X, y)
    np.testing.assert_allclose(softmax(_script().logits(net, X), axis=1), net.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.slow  # trains the network: about 2 s alone, more on the shared machine
def test_script_reproduces_the_committed_file(tmp_path: Path) -> None:
    """The split exactly; the logits byte for byte with the scikit-learn version that made the
    file (the platform's floating point permitting: else to 1e-6), with another version the
    decisions only (another optimiser may stop at a slightly different network)."""
    import sklearn

    ms = _script()
    assert ms.main(["--out-dir", str(tmp_path)]) == 0
    made_bytes = (tmp_path / "digits_logits.csv").read_bytes()
    committed_bytes = (data_dir() / "digits_logits.csv").read_bytes()
    made, committed = pd.read_csv(tmp_path / "digits_logits.csv"), load("digits_logits")
    for col in ("row", "y", "set"):
        assert made[col].tolist() == committed[col].tolist(), col
    assert b"\r" not in made_bytes
    if sklearn.__version__ == ms.SKLEARN_VERSION:
        if made_bytes != committed_bytes:
            np.testing.assert_allclose(made[LOGITS], committed[LOGITS], rtol=1e-6, atol=1e-6)
    else:
        agree = np.mean(made[LOGITS].to_numpy().argmax(axis=1) == committed[LOGITS].to_numpy().argmax(axis=1))
        assert agree >= 0.97, agree


def test_loader_docstring_examples_run(doctests) -> None:
    doctests("evstat.datasets._load", min_examples=3)


def test_the_wheel_ships_the_data_folder() -> None:
    """data/ (the CSV and its script) is copied into the wheel as evstat/_data (checked by
    building a wheel once: evstat/_data/digits_logits.csv is in it)."""
    import tomllib

    root = SCRIPT.parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]["data"] == "evstat/_data"
    assert (root / "data" / "digits_logits.csv").is_file()
