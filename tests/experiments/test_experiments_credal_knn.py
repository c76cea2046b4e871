"""`evstat reproduce credal-knn`: the classical rules against brute force, the tables and the
claims computed from known rates, the CLI's options, and the CI smoke run (a tiny study)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evstat.cli import main
from evstat.experiments import credal_knn as ck


def test_votes_against_brute_force():
    rng = np.random.default_rng(0)
    Xtr = rng.normal(size=(60, 2))
    y = rng.integers(0, 3, 60)
    Xte = rng.normal(size=(40, 2))
    for k in (1, 4, 7):
        got = ck.knn_vote(Xtr, y, Xte, k, 3)
        wgot = ck.weighted_knn_vote(Xtr, y, Xte, k, 3)
        for i in range(40):
            d = np.sqrt(((Xtr - Xte[i]) ** 2).sum(axis=1))
            nb = np.argsort(d, kind="stable")[:k]
            counts = np.bincount(y[nb], minlength=3)
            tied = np.flatnonzero(counts == counts.max())
            want = next(y[j] for j in nb if y[j] in tied)
            assert got[i] == want
            dk, d1 = d[nb[-1]], d[nb[0]]
            w = np.ones(k) if dk == d1 else (dk - d[nb]) / (dk - d1)
            assert wgot[i] == np.argmax(np.bincount(y[nb], weights=w, minlength=3))


def _sim(err, imp, out):
    rows = []
    for N in (100,):
        for run in (0, 1):
            for K in (5, 9):
                for m in ck.METHODS:
                    rows.append({"N": N, "run": run, "K": K, "method": m, "error": err[m] + 0.01 * (K == 9),
                                 "imprecision": imp[m], "imprecision_2": imp[m], "imprecision_3": 0.0,
                                 "outlier": out[m]})
    return pd.DataFrame(rows)


def test_table_and_claims_from_known_rates():
    err = {"K-NN": 0.1, "WK-NN": 0.11, "EkNN": 0.09, "EC rho=3": 0.06, "EC rho=5": 0.05}
    imp = {"K-NN": 0.0, "WK-NN": 0.0, "EkNN": 0.0, "EC rho=3": 0.04, "EC rho=5": 0.06}
    out = {"K-NN": 0.0, "WK-NN": 0.0, "EkNN": 0.01, "EC rho=3": 0.02, "EC rho=5": 0.01}
    sim = _sim(err, imp, out)
    tab = ck.sim2_table(sim)
    assert (tab["K"] == 5).all()
    assert tab.set_index("method")["error"].to_dict() == pytest.approx(err)
    cl = ck.claims(sim, None)
    assert cl["holds"].all() and len(cl) == 5
    err2 = dict(err, **{"EC rho=3": 0.2})
    cl2 = ck.claims(_sim(err2, imp, out), None)
    assert not cl2.loc[0, "holds"]  # EC rho 3 no longer beats the others
    assert cl2[cl2["claim"].str.contains("less error")]["holds"].item()  # rho 5 still lower than rho 3


def test_real_table_pools_folds_by_size():
    rows = []
    for f, (n, e) in enumerate([(10, 0.1), (30, 0.2)]):
        rows.append({"dataset": "d", "run": 0, "K": 5, "fold": f, "method": "EC", "error": e, "imprecision": 0.0,
                     "imprecision_2": 0.0, "imprecision_3": 0.0, "outlier": 0.0, "n_test": n, "rho": 3.0})
    t = ck.real_table(pd.DataFrame(rows))
    assert t.loc[0, "error"] == pytest.approx((10 * 0.1 + 30 * 0.2) / 40)


def test_two_folds_are_stratified_halves():
    y = np.repeat([0, 1, 2], [10, 7, 4])
    fold = ck._two_folds(y, np.random.default_rng(1))
    for c, n in zip((0, 1, 2), (10, 7, 4)):
        assert (fold[y == c] == 0).sum() == n // 2


def test_cli_rejects_a_minary_dataset_for_credal_knn(capsys, tmp_path):
    status = main(["reproduce", "credal-knn", "--datasets", "sonar", "--out", str(tmp_path)])
    _, err = capsys.readouterr()
    assert status == 2 and "credal-knn has no data set ['sonar']" in err and err.count("\n") == 1


@pytest.mark.slow
def test_cli_smoke_tiny_study(capsys, tmp_path):
    status = main(["reproduce", "credal-knn", "--runs", "1", "--datasets", "iris", "--k-grid", "9",
                   "--no-lecture", "--quiet", "--out", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert status == 0 and "wrote" in out
    for name in ("test12_rates.csv", "sim2_rates.csv", "sim2_table.csv", "real_table.csv", "claims.csv",
                 "fig_test12.png", "fig_evnn_iris.png", "study.json"):
        assert (tmp_path / name).exists(), name
    sim = pd.read_csv(tmp_path / "sim2_rates.csv")
    assert set(sim["method"]) == set(ck.METHODS) and len(sim) == 3 * len(ck.METHODS)
    assert (sim.loc[sim["method"].isin(["K-NN", "WK-NN"]), "imprecision"] == 0).all()
    cl = pd.read_csv(tmp_path / "claims.csv")
    assert cl["holds"].dtype == bool and len(cl) > 5
    again = tmp_path / "again"
    main(["reproduce", "credal-knn", "--runs", "1", "--datasets", "iris", "--k-grid", "9", "--no-lecture",
          "--quiet", "--out", str(again)])
    pd.testing.assert_frame_equal(pd.read_csv(again / "sim2_rates.csv"), sim)


@pytest.mark.slow
def test_docstring_examples_run(doctests):
    doctests("evstat.experiments.credal_knn")
