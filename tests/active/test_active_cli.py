"""evstat query: the rows to label next, from the command line."""

from __future__ import annotations

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
