"""The committed run in reports/peers: complete for the repetitions it records, and its tables,
wins and first-look verdicts are what the per-repetition CSV files give (nothing hand-edited)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evstat.experiments import peers

ROOT = Path(__file__).resolve().parents[2] / "reports" / "peers"
pytestmark = pytest.mark.skipif(not (ROOT / "study.json").is_file(), reason="reports/peers is not part of this installation")


@pytest.fixture(scope="module")
def study():
    return json.loads((ROOT / "study.json").read_text())


def test_complete_for_the_recorded_repetitions(study):
    sim = pd.read_csv(ROOT / "sim_metrics.csv")
    cells = len(study["truths"]) * len(peers.SCORES) * len(study["n_cals"])
    assert len(sim) == study["reps_done"] * cells * len(peers.METHODS)
    assert sorted(sim["rep"].unique()) == list(range(study["reps_done"]))
    real = pd.read_csv(ROOT / "real_metrics.csv")
    assert len(real) == study["rounds_done"] * len(study["datasets"]) * 2 * 2 * len(peers.METHODS)
    curves = pd.read_csv(ROOT / "sim_curves.csv")
    assert (curves["reps"] <= study["reps_done"]).all() and (curves["n_errors"] <= curves["n_decided"]).all()


@pytest.mark.parametrize("part, by, measures", [
    ("sim", ["truth", "scores", "n_cal"], peers.WIN_MEASURES),
    ("real", ["dataset", "scores", "n_cal"], ("brier", "log_loss")),
])
def test_tables_and_wins_come_from_the_metrics(part, by, measures):
    m = pd.read_csv(ROOT / f"{part}_metrics.csv", dtype={"note": "string"})
    m["note"] = m["note"].fillna("")
    summ = pd.read_csv(ROOT / f"{part}_summary.csv")
    mine = m.groupby([*by, "method"], sort=False)[list(peers.MEASURES)].mean().reset_index()
    np.testing.assert_allclose(summ[list(peers.MEASURES)].to_numpy(float), mine[list(peers.MEASURES)].to_numpy(float),
                               rtol=1e-3, atol=1e-6)
    w = pd.read_csv(ROOT / f"{part}_wins.csv")
    again = peers.wins(m, by, measures)
    assert w["best"].tolist() == again["best"].tolist()
    assert w["status"].tolist() == again["status"].tolist()
    if part == "sim":
        fl = pd.read_csv(ROOT / "first_look.csv")
        assert fl["claim_evlogit_better_point_from_45"].tolist() == \
            peers.first_look(m)["claim_evlogit_better_point_from_45"].tolist()


def test_readme_states_the_command_and_the_tables(study):
    readme = (ROOT / "README.md").read_text()
    assert study["command"] in readme
    # the README's tables are markdown_tables() of the committed files
    assert peers.markdown_tables(ROOT) in readme
