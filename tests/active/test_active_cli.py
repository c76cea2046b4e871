"""evstat query: the rows to label next, from the command line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.active import query
from evstat.cli import main


@pytest.fixture
def files(tmp_path):
    scores = ev.datasets.load("pima_scores")
    lab = scores[scores["set"] == "calibration"].iloc[:30][["svm1", "svm2", "y"]]
    pool = scores[scores["set"] == "test"].iloc[:40][["svm1", "svm2"]].reset_index(drop=True)
    lab.to_csv(tmp_path / "lab.csv", index=False)
    pool.to_csv(tmp_path / "pool.csv", index=False)
    return tmp_path, lab.reset_index(drop=True), pool


def test_query_writes_rows_with_belief(files, capsys):
    d, lab, pool = files
    out = d / "next.csv"
    rc = main(["query", "y ~ svm1 + svm2", "--data", str(d / "lab.csv"), "--pool", str(d / "pool.csv"),
               "-n", "3", "--method", "evbinning", "--bins", "2", "--strategy", "hartley", "-o", str(out)])
    assert rc == 0
    assert "3 rows to label" in capsys.readouterr().out
    got = pd.read_csv(out, index_col="pool_row")
    want = query(ev.evbinning("y ~ svm1 + svm2", lab, bins=2), pool, n=3, strategy="hartley", seed=0)
    assert got.index.tolist() == want.index.tolist()
    assert {"bel", "pl", "ignorance", "svm1", "svm2", "rank"} <= set(got.columns)
    assert (got["ignorance"] - (got["pl"] - got["bel"])).abs().max() < 1e-9


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-n", "41"], "only 40"),
        (["--pool", "missing.csv"], "not found"),
        (["--strategy", "entropy"], "invalid choice"),
    ],
)
def test_query_errors(files, capsys, extra, message):
    d, _, _ = files
    argv = ["query", "y ~ svm1 + svm2", "--data", str(d / "lab.csv"), "--pool", str(d / "pool.csv"),
            "-o", str(d / "o.csv")]
    argv = argv[:4] + extra[:2] + argv[6:] if extra[0] == "--pool" else argv + extra
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_query_pool_with_missing_scores(files, capsys):
    d, _, pool = files
    pool.loc[5, "svm2"] = None
    pool.to_csv(d / "pool.csv", index=False)
    rc = main(["query", "y ~ svm1 + svm2", "--data", str(d / "lab.csv"), "--pool", str(d / "pool.csv"),
               "-o", str(d / "o.csv")])
    assert rc == 2
    assert "score column 'svm2' of the pool has 1 missing" in capsys.readouterr().err


def test_query_fits_any_registered_model_by_name(files, capsys):
    """The models come from the registry (issue 24 item 5): plr was refused by the old private
    list of three (one row: no refit needed)."""
    d, lab, pool = files
    out = d / "next.csv"
    rc = main(["query", "y ~ svm1", "--data", str(d / "lab.csv"), "--pool", str(d / "pool.csv"),
               "--method", "plr", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    want = query(ev.plr("y ~ svm1", lab), pool, n=1, strategy="hartley", seed=0)
    assert pd.read_csv(out, index_col="pool_row").index.tolist() == want.index.tolist()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--method", "magic"], "unknown method 'magic'; the registered models are "),
        (["--method", "evlogit", "--bins", "2"], "--bins applies to evbinning, not to --method evlogit"),
    ],
)
def test_query_method_errors_name_the_fix(files, capsys, extra, message):
    d, _, _ = files
    rc = main(["query", "y ~ svm1 + svm2", "--data", str(d / "lab.csv"), "--pool", str(d / "pool.csv"),
               "-o", str(d / "o.csv"), *extra])
    assert rc == 2
    assert message in capsys.readouterr().err


@pytest.fixture
def iris_files(tmp_path):
    d = ev.datasets.load("iris_scores")
    lab = d[d["set"] == "calibration"][["lr_versicolor", "lr_virginica", "y"]].reset_index(drop=True)
    pool = d[d["set"] == "test"][["lr_versicolor", "lr_virginica"]].reset_index(drop=True)
    lab.to_csv(tmp_path / "lab.csv", index=False)
    pool.to_csv(tmp_path / "pool.csv", index=False)
    return tmp_path, lab, pool


def test_query_k_classes(iris_files, capsys):
    """``evstat query`` with a K-level response (issue 25 item 1): the generalised Hartley
    measure of the rows' mass functions. EkNN's masses sit on the singletons and the whole frame,
    so GH = m(Theta) log2 K = (Pl - Bel of any class) log2 3."""
    d, lab, pool = iris_files
    out = d / "next.csv"
    rc = main(["query", "y ~ lr_versicolor + lr_virginica", "--data", str(d / "lab.csv"), "--pool", str(d / "pool.csv"),
               "--method", "eknn", "-n", "4", "--batch", "top", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    got = pd.read_csv(out, index_col="pool_row")
    want = query(ev.eknn("y ~ lr_versicolor + lr_virginica", lab), pool, n=4, strategy="hartley", batch="top", seed=0)
    assert got.index.tolist() == want.index.tolist() and got["rank"].tolist() == [1, 2, 3, 4]
    classes = ["setosa", "versicolor", "virginica"]
    assert {f"{s}_{c}" for s in ("bel", "pl", "betp") for c in classes} <= set(got.columns)
    for c in classes:
        np.testing.assert_allclose(got["ignorance"], (got[f"pl_{c}"] - got[f"bel_{c}"]) * np.log2(3), atol=1e-9)
    np.testing.assert_allclose(got[[f"betp_{c}" for c in classes]].sum(axis=1), 1.0, atol=1e-12)
    assert got["criterion"].is_monotonic_decreasing
    allrows = query(ev.eknn("y ~ lr_versicolor + lr_virginica", lab), pool, n=len(pool), batch="top", seed=0)
    assert got["criterion"].iloc[0] == pytest.approx(allrows["ignorance"].max())


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--method", "eknn", "-n", "3"], "a greedy batch (n > 1) refits the model after each expected label, which "
                                          "the K-class model eknn does not declare (capabilities.refit): use "
                                          "batch='top' (evstat query --batch top)"),
        (["--method", "eknn", "--strategy", "eir"], "eir refits the model"),
        (["--method", "evmultinom"], "evmultinom's K-class predictions are lower and upper probabilities, not a "
                                     "mass function, so the Hartley measure is not defined: use strategy 'pignistic'"),
        (["--method", "evlogit"], "needs a two-class response"),
    ],
)
def test_query_k_class_errors_say_what_to_do(iris_files, capsys, extra, message):
    d, _, _ = iris_files
    rc = main(["query", "y ~ lr_versicolor + lr_virginica", "--data", str(d / "lab.csv"), "--pool", str(d / "pool.csv"),
               "-o", str(d / "o.csv"), *extra])
    assert rc == 2
    assert message in capsys.readouterr().err
    assert not (d / "o.csv").exists()


def test_query_k_classes_pignistic_without_masses(iris_files):
    """evmultinom has no K-class mass: pignistic sampling ranks by the entropy of theta."""
    _, lab, pool = iris_files
    fit = ev.evmultinom("y ~ lr_versicolor + lr_virginica", lab)
    got = query(fit, pool, n=2, strategy="pignistic", batch="top", seed=1)
    theta = fit.predict(pool, type="prob").to_numpy()
    h = -(theta * np.log2(theta)).sum(axis=1)
    assert got.index.tolist() == list(np.argsort(-h, kind="stable")[:2])
    np.testing.assert_allclose(got["criterion"], np.sort(h)[::-1][:2], rtol=1e-12)
