"""Plots of active calibration: learning curves with spread, the pool with the chosen rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import evstat as ev


@pytest.fixture(autouse=True)
def _close():
    import matplotlib.pyplot as plt
    yield
    plt.close("all")


def _history():
    rows = []
    for r in range(3):
        for s, slope in (("HS", 0.02), ("RS", 0.01)):
            for q in range(5):
                rows.append({"round": r, "strategy": s, "queries": q, "ignorance": 0.5 - slope * q + 0.01 * r,
                             "brier": 0.2})
    return pd.DataFrame(rows)


def test_active_curves_means_and_bands():
    h = _history()
    ax = ev.plotting.active_curves(h, "ignorance")
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert set(lines) == {"HS", "RS"}
    want = h[h.strategy == "HS"].groupby("queries")["ignorance"].mean().to_numpy()
    assert np.allclose(lines["HS"].get_ydata(), want)
    assert len(ax.collections) == 2  # one band per strategy
    assert "3 rounds" in ax.get_title()
    ax2 = ev.plotting.active_curves(h, "brier", spread="none")
    assert len(ax2.collections) == 0 and ax2.get_ylabel() == "Brier score of BetP"


def test_active_curves_bad_input():
    with pytest.raises(ValueError, match="lacks the column 'error'"):
        ev.plotting.active_curves(_history(), "error")
    with pytest.raises(ValueError, match="spread"):
        ev.plotting.active_curves(_history(), spread="sd")
    with pytest.raises(ValueError, match="non-empty"):
        ev.plotting.active_curves(pd.DataFrame())


def test_query_map_marks_chosen_rows():
    data = ev.datasets.simulate_gaussian(60, seed=1).sample(frac=1, random_state=0)
    fit = ev.evlogit("y ~ x1", data.iloc[:15])
    pool = data.iloc[15:].drop(columns="y")
    chosen = ev.active.query(fit, pool, n=2, strategy="hartley", seed=0)
    ax = ev.plotting.query_map(fit, pool, chosen)
    offsets = ax.collections[1].get_offsets()
    assert np.allclose(np.asarray(offsets)[:, 0], chosen["x1"].to_numpy())
    assert np.allclose(np.asarray(offsets)[:, 1], chosen["ignorance"].to_numpy())
    assert ax.get_ylabel() == "ignorance Pl - Bel"
    with pytest.raises(ValueError, match="not in the pool"):
        ev.plotting.query_map(fit, pool, pd.Index(["zz"]))
    three = ev.datasets.load("sonar_scores").sample(30, random_state=0)
    fit3 = ev.evlogit("y ~ svm1 + svm2 + svm3", three)
    with pytest.raises(ValueError, match="one or two score columns"):
        ev.plotting.query_map(fit3, three)
