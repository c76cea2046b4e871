"""Why Fig. 7 has no pessimistic frontier at 15 calibration rows (issue 40 item 1):

    OMP_NUM_THREADS=1 python reports/minary2019/fig7_max_belief.py     # from the repository root; ~25 s

Refits Fig. 7's realisation (:func:`evstat.experiments.minary2019.frontiers`' data, SVMs and
calibration rows, from the seed 2019) for both SVM settings and writes ``fig7_max_belief.csv``: the
largest Bel({1} | s) and Bel({0} | s) = 1 - Pl({1} | s) of the joint evidential logistic calibration
over a 41 x 41 grid of the plotted window (x1 in [-4.5, 4.5], x2 in [-3.5, 4.5]) and of a wide one
([-40, 40]^2). The pessimistic strategy at R_rej = 0.15 decides a class only where its Bel reaches
0.85, so it has a frontier only where some point gets there.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evstat as ev
from evstat.experiments import minary2019 as mm

HERE = Path(__file__).resolve().parent
WINDOWS = {"plotted": (-4.5, 4.5, -3.5, 4.5), "wide": (-40.0, 40.0, -40.0, 40.0)}

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    t0 = time.time()
    rows = []
    for svm in ("default", "tuned"):
        rng = mm._rng(2019, "fig7")  # as frontiers() draws it
        data = ev.datasets.simulate_gaussian(sum(mm.SVM_SIZES) + max(mm.FIG8_CAL_SIZES), seed=rng)
        X, y = data[["x1", "x2"]].to_numpy(), data["y"].to_numpy()
        p = mm.reject_partition(y, rng, mm.SVM_SIZES, mm.FIG8_CAL_SIZES, 0)
        models = [mm.fit_svm(X[r], y[r], svm) for r in p.svm]
        for name, (a, b, c, d) in WINDOWS.items():
            g1, g2 = np.meshgrid(np.linspace(a, b, 41), np.linspace(c, d, 41))
            G = np.column_stack([g1.ravel(), g2.ravel()])
            gs = pd.DataFrame({f"svm{j + 1}": m.decision_function(G) for j, m in enumerate(models)})
            for nc in mm.FIG8_CAL_SIZES:
                bel = ev.evlogit(mm.FORMULA, mm._scores(models, X, y, p.cal[nc])).predict(gs, type="belief")
                rows.append({"svm": svm, "window": name, "n_cal": nc, "max_bel_1": float(bel["bel"].max()),
                             "max_bel_0": float(1 - bel["pl"].min()),
                             "pessimistic_can_decide": bool(max(bel["bel"].max(), 1 - bel["pl"].min()) >= 0.85)})
    pd.DataFrame(rows).to_csv(HERE / "fig7_max_belief.csv", index=False)
    print(pd.DataFrame(rows).to_string(), f"\n{time.time() - t0:.0f} s wall")
