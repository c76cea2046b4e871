"""Dask: fit.predict / fit.decide on dask DataFrames (lazy, meta, index), `evstat predict` on
CSV/Parquet files (local process pool and a Dask cluster) and `evstat reproduce --scheduler`,
all against the in-memory results, on a LocalCluster of two worker processes."""

from __future__ import annotations

import filecmp
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev
from evstat.cli import main

# the dask extra, imported in the tests that use it (not at collection: issue 26)
pytestmark = pytest.mark.skipif(find_spec("dask") is None or find_spec("distributed") is None,
                                reason="the dask extra: pip install 'evstat[dask]'")

CAL = ev.datasets.simulate_gaussian(80, seed=5)
NEW = ev.datasets.simulate_gaussian(45, seed=6)
NEW.index = pd.Index(np.arange(45) * 7 + 1000, name="row")


@pytest.fixture(scope="module")
def client():
    import distributed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


@pytest.fixture(scope="module")
def fits():
    return {
        "evlogit": ev.evlogit("y ~ x1 + x2", data=CAL),
        "evbinning": ev.evbinning("y ~ x1", data=CAL, bins=3),
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", ["evlogit", "evbinning"])
def test_predict_and_decide_on_a_dask_frame_equal_the_in_memory_ones(client, fits, name):
    import dask.dataframe as dd
    fit = fits[name]
    ddf = dd.from_pandas(NEW, npartitions=3)
    cases = [
        (fit.predict(ddf, type="prob"), fit.predict(NEW, type="prob")),
        (fit.predict(ddf, type="belief"), fit.predict(NEW, type="belief")),
        (fit.decide(ddf, reject_cost=0.2), fit.decide(NEW, reject_cost=0.2)),
        (fit.decide(ddf, strategy="optimistic"), fit.decide(NEW, strategy="optimistic")),
    ]
    for lazy, expect in cases:
        assert type(lazy).__module__.startswith("dask")  # lazy: nothing computed yet
        assert lazy.npartitions == 3 and lazy.divisions == ddf.divisions
        meta = lazy._meta
        if expect.ndim == 1:
            assert meta.dtype == expect.dtype and meta.name == expect.name
        else:
            assert list(meta.columns) == list(expect.columns) and (meta.dtypes == expect.dtypes).all()
        got = client.compute(lazy).result()  # on the two worker processes
        # partitions batch other rows than the whole frame: equal up to the last bits
        if expect.ndim == 1:
            pd.testing.assert_series_equal(got, expect, check_exact=False, rtol=1e-12, atol=1e-15)
        else:
            pd.testing.assert_frame_equal(got, expect, check_exact=False, rtol=1e-12, atol=1e-15)


def test_mass_is_refused_for_dask_input(fits):
    import dask.dataframe as dd
    with pytest.raises(ValueError, match="type='mass' gives a MassArray, which has no dask form"):
        fits["evlogit"].predict(dd.from_pandas(NEW, npartitions=2), type="mass")


def test_a_missing_column_fails_when_the_graph_is_built(fits):
    import dask.dataframe as dd
    with pytest.raises(ValueError, match="x2"):
        fits["evlogit"].predict(dd.from_pandas(NEW.drop(columns="x2"), npartitions=2))


@pytest.mark.slow
def test_evstat_predict_files_locally_and_on_the_cluster(client, fits, tmp_path: Path, capsys):
    fit = fits["evlogit"]
    model = fit.save(tmp_path / "fit.json")
    data = NEW.reset_index()
    data.to_parquet(tmp_path / "x.parquet", index=False)
    data.to_csv(tmp_path / "x.csv", index=False)
    belief = fit.predict(NEW, type="belief").reset_index(drop=True)
    address = client.scheduler.address
    runs = [
        (["--data", str(tmp_path / "x.parquet"), "-o", str(tmp_path / "a.parquet"), "--jobs", "2"], "a.parquet"),
        (["--data", str(tmp_path / "x.csv"), "-o", str(tmp_path / "b.csv"), "--jobs", "1"], "b.csv"),
        (["--data", str(tmp_path / "x.parquet"), "-o", str(tmp_path / "c.csv"), "--scheduler", address], "c.csv"),
    ]
    for extra, name in runs:
        status = main(["predict", str(model), "--type", "belief", "--chunksize", "10", "--quiet", *extra])
        assert status == 0, capsys.readouterr().err
        out = pd.read_parquet(tmp_path / name) if name.endswith("parquet") else pd.read_csv(tmp_path / name)
        # a row's value may differ in the last bits with the rows batched with it (vectorised
        # linear algebra over the chunk), hence 1e-12 rather than exact
        pd.testing.assert_frame_equal(out, belief, check_exact=False, rtol=1e-12, atol=1e-15)
    assert capsys.readouterr().out.strip().endswith(f"wrote 45 rows to {tmp_path / 'c.csv'}")
    # decisions with ids kept
    status = main(["predict", str(model), "--data", str(tmp_path / "x.csv"), "-o", str(tmp_path / "d.csv"),
                   "--type", "decision", "--reject-cost", "0.2", "--keep", "row", "--chunksize", "7", "--jobs", "2",
                   "--quiet"])
    assert status == 0
    d = pd.read_csv(tmp_path / "d.csv")
    assert list(d.columns) == ["row", "decision"]
    assert d["row"].tolist() == NEW.index.tolist()
    assert d["decision"].astype(str).tolist() == fit.decide(NEW, reject_cost=0.2).astype(str).tolist()


def test_evstat_predict_bad_input(fits, tmp_path: Path, capsys):
    model = fits["evlogit"].save(tmp_path / "fit.json")
    NEW.to_csv(tmp_path / "x.csv", index=False)
    assert main(["predict", str(model), "--data", str(tmp_path / "x.txt"), "-o", str(tmp_path / "o.csv"), "--quiet"]) == 2
    assert "not found" in capsys.readouterr().err
    (tmp_path / "x.txt").write_text("a\n1\n")
    assert main(["predict", str(model), "--data", str(tmp_path / "x.txt"), "-o", str(tmp_path / "o.csv"), "--quiet"]) == 2
    # any other extension is read as CSV (one reader for report and predict): here it lacks the columns
    assert "are not in --data file" in capsys.readouterr().err
    assert main(["predict", str(model), "--data", str(tmp_path / "x.csv"), "-o", str(tmp_path / "o.xlsx"), "--quiet"]) == 2
    assert "-o" in capsys.readouterr().err
    NEW.drop(columns="x2").to_csv(tmp_path / "y.csv", index=False)
    assert main(["predict", str(model), "--data", str(tmp_path / "y.csv"), "-o", str(tmp_path / "o.csv"),
                 "--jobs", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evstat predict: error:") and "x2" in err


@pytest.mark.slow
def test_reproduce_on_the_cluster_gives_byte_identical_csv_files(client, tmp_path: Path, capsys):
    common = ["reproduce", "minary2019", "--rounds", "1", "--datasets", "sonar", "--quiet", "--no-report"]
    assert main([*common, "--out", str(tmp_path / "local")]) == 0
    assert main([*common, "--scheduler", client.scheduler.address, "--out", str(tmp_path / "dask")]) == 0
    csvs = sorted(p.name for p in (tmp_path / "local").glob("*.csv"))
    assert csvs and csvs == sorted(p.name for p in (tmp_path / "dask").glob("*.csv"))
    for name in csvs:
        assert filecmp.cmp(tmp_path / "local" / name, tmp_path / "dask" / name, shallow=False), name


@pytest.mark.parametrize("name", ["evstat.lazy", "evstat.bulk"])
def test_docstring_examples(name, doctests):
    doctests(name)
