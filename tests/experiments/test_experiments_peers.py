"""`evstat reproduce peers` (issue 17): units, verdict helpers, CLI smoke run, seeding."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evstat.cli import main
from evstat.experiments import peers

#: every test here needs evstat[peers] (skipped without it; imported by the fixture, not at collection)
pytestmark = pytest.mark.usefixtures("peer_packages")


def test_simulated_truths():
    rng = np.random.default_rng(0)
    for truth in peers.TRUTHS:
        d = peers.simulate(truth, 4000, 3, rng)
        assert d.p.between(0, 1).all() and set(d.y) <= {0, 1}
        # the labels follow the truth: mean of y within 4 sd of mean p
        assert abs(d.y.mean() - d.p.mean()) < 4 * np.sqrt(d.p.mean() * (1 - d.p.mean()) / 4000)
    imb = peers.simulate("imbalanced", 20000, 1, rng)
    assert 0.08 < imb.p.mean() < 0.16
    steep = peers.simulate("steep", 2000, 1, rng)
    assert steep.p.min() > 0.1 and steep.p.max() < 0.9
    with pytest.raises(ValueError, match="truth must be one of"):
        peers.simulate("cubic", 10, 1, rng)


def test_sim_unit_is_seeded_and_complete():
    a, ca = peers.sim_unit("imbalanced", 3, 15, 4, 11, n_test=30)
    b, cb = peers.sim_unit("imbalanced", 3, 15, 4, 11, n_test=30)
    pd.testing.assert_frame_equal(a.drop(columns="seconds"), b.drop(columns="seconds"))
    pd.testing.assert_frame_equal(ca, cb)
    assert a["method"].tolist() == list(peers.METHODS)
    assert (a["n_pos"] >= 2).all()
    ok = a[a.note == ""]
    assert ok["coverage"].drop(ok.index[ok.method == "conformal"]).between(0, 1).all()
    assert np.isnan(a.loc[a.method == "conformal", "coverage"]).all()
    # pooled curves: counts add up, the conformal curve runs over the confidences
    pc = peers.pooled(ca, ["truth", "scores", "n_cal"])
    conf = pc[pc.strategy == "conformal"]
    assert conf["parameter"].tolist() == list(peers.CONFIDENCES) or conf.empty
    assert (pc.n_errors <= pc.n_decided).all() and (pc.n_decided <= pc.n_test).all()


def test_wins_and_first_look_from_data():
    rows = []
    r = np.random.default_rng(1)
    for rep in range(20):
        for n in (45, 200, 1000):
            for m, mse in (("evlogit", 0.01), ("va_inductive", 0.02), ("va_cross", 0.03), ("conformal", 0.04)):
                rows.append({"truth": "logistic", "scores": 1, "n_cal": n, "rep": rep, "method": m,
                             "mse": mse + r.normal(0, 1e-3), "brier": 0.2, "log_loss": 0.6,
                             "width": 0.1, "coverage": 0.5})
    sim = pd.DataFrame(rows)
    w = peers.wins(sim, ["truth", "scores", "n_cal"], ["mse"])
    assert (w.best == "evlogit").all() and (w.status == "clear").all()
    fl = peers.first_look(sim)
    assert fl.loc[0, "claim_evlogit_better_point_from_45"] == "supported"
    sim.loc[sim.method == "evlogit", "mse"] = 0.05
    assert peers.first_look(sim).loc[0, "claim_evlogit_better_point_from_45"] == "contradicted"


@pytest.mark.slow
def test_cli_smoke_run(tmp_path: Path, capsys: pytest.CaptureFixture):
    out = tmp_path / "peers"
    status = main(["reproduce", "peers", "--reps", "2", "--rounds", "1", "--sizes", "15", "45",
                   "--datasets", "heart", "--n-test", "40", "--quiet", "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    for f in ("sim_metrics.csv", "sim_curves.csv", "sim_wins.csv", "first_look.csv", "real_metrics.csv",
              "real_curves.csv", "real_wins.csv", "study.json", "fig_sim_curves.png", "fig_real_curves.png"):
        assert (out / f).is_file(), f
    sim = pd.read_csv(out / "sim_metrics.csv")
    assert len(sim) == 3 * 2 * 2 * 2 * 4  # truths x scores x sizes x reps x methods
    real = pd.read_csv(out / "real_metrics.csv")
    assert set(real.n_cal) == {15, 45} and set(real.scores) == {1, 3} and set(real.dataset) == {"heart"}
    settings = json.loads((out / "study.json").read_text())
    assert settings["command"].startswith("evstat reproduce peers --reps 2 --rounds 1 --sizes 15 45")


def test_bad_options(capsys: pytest.CaptureFixture):
    assert main(["reproduce", "peers", "--datasets", "iris", "--out", "o"]) == 2
    assert "peers has no data set ['iris']" in capsys.readouterr().err
    assert main(["reproduce", "peers", "--sizes", "5", "--out", "o"]) == 2
    assert "--sizes must be at least 10 rows" in capsys.readouterr().err
    assert main(["reproduce", "peers", "--reps", "-1", "--out", "o"]) == 2
    assert "expected a non-negative integer" in capsys.readouterr().err


def test_docstring_examples(doctests):
    doctests(peers)
