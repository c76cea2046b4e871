"""Re-run only ``diri-direct`` in the committed K-class run, after the fix of its Beta moments.

Gebel's Dirichlet calibration of the direct ANN's class probabilities failed on 52 of the 320
fits of the K-class run ("admit no Beta distribution by moments"): the thesis's n - 1 variance of
probabilities concentrated at 0 and 1 exceeds m (1 - m), which no Beta distribution has.
``evstat.multiclass.gebel.beta_moments`` now uses the 1/N variance for such a class (module
docstring of ``evstat.multiclass.gebel``). This script re-runs ``diri-direct`` on every fold of
each (data set, reduction) cell that had a failed fold, with the study's own functions and seeds
(``_unit_data``, ``_direct_probs``, ``_calibrate_direct``: what ``_unit`` runs for this method),
replaces those rows of ``results.csv`` and ``table.csv``, rewrites ``comparison.csv`` and
``claims.csv`` and records the run in ``study.json``. Nothing else depends on this method, so the
result is what a full re-run would give; the folds that had not failed must come out as before
(checked, to 1e-6).

    OMP_NUM_THREADS=1 python reports/gebel2009/rerun_diri_direct.py reports/gebel2009/k-class
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evstat.experiments import gebel2009 as g

KEYS = ["part", "dataset", "classifier", "reduction", "method"]
MEASURES = ["CR", "one_minus_rmse", "WCR", "Cal", "Cal_root"]
COMMAND = "OMP_NUM_THREADS=1 python reports/gebel2009/rerun_diri_direct.py reports/gebel2009/k-class"


def rerun(folder: Path) -> dict:
    from sklearn.exceptions import ConvergenceWarning

    res = pd.read_csv(folder / "results.csv", keep_default_na=False, na_values=[""])
    table = pd.read_csv(folder / "table.csv")
    study = json.loads((folder / "study.json").read_text(encoding="utf-8"))
    folds, seed = int(study["folds"]), int(study["seed"])
    dd = res[res["method"] == "diri-direct"]
    cells = sorted({(d, r) for d, r, e in zip(dd["dataset"], dd["reduction"], dd["error"]) if isinstance(e, str) and e})
    t0 = time.process_time()
    new_rows, preds = [], {}
    for dataset, red in cells:
        for fold in range(folds):
            Xtr, Xte, ytr, yte, te, K, rs = g._unit_data("K-class", dataset, "ann", red, fold, folds, seed)
            with warnings.catch_warnings():  # as in _unit
                warnings.simplefilter("ignore", ConvergenceWarning)
                warnings.simplefilter("ignore", UserWarning)
                warnings.simplefilter("ignore", RuntimeWarning)
                P_cal, P_test = g._direct_probs(Xtr, ytr, Xte, K, rs)
                t_m = time.perf_counter()
                P = g._calibrate_direct(P_cal, ytr, P_test)
                secs = time.perf_counter() - t_m
            row = {"part": "K-class", "dataset": dataset, "classifier": "ann", "reduction": red, "method": "diri-direct",
                   "fold": fold, "n": len(te), "error": "", "seconds": round(secs, 3), **g._measures(yte, P)}
            new_rows.append(row)
            preds.setdefault(("K-class", dataset, "ann", red, "diri-direct"), []).append((te, P))
    cpu = time.process_time() - t0
    new = pd.DataFrame(new_rows)
    # the folds that had not failed are reproduced
    idx = ["dataset", "reduction", "fold"]
    old = dd.set_index(idx)
    chk = new.set_index(idx)
    was_ok = old.loc[chk.index, "error"].isna()
    np.testing.assert_allclose(chk.loc[was_ok[was_ok].index, MEASURES].to_numpy(float),
                               old.loc[was_ok[was_ok].index, MEASURES].to_numpy(float), atol=1e-6)
    # replace the rows in place (same order)
    res = res.set_index(KEYS + ["fold"])
    nn = new.set_index(KEYS + ["fold"])
    res.loc[nn.index, nn.columns] = nn
    res = res.reset_index()[list(res.reset_index().columns)]
    labels = {d: g._labels(d) for d, _ in cells}
    pooled = g.pooled_table(new, preds, labels).set_index(KEYS)
    table = table.set_index(KEYS)
    table.loc[pooled.index, pooled.columns] = pooled
    table = table.reset_index()
    res["error"] = res["error"].fillna("")
    res.to_csv(folder / "results.csv", index=False, float_format="%.6g")
    table.to_csv(folder / "table.csv", index=False, float_format="%.4f")
    g.comparison(table).to_csv(folder / "comparison.csv", index=False, float_format="%.4f")
    g.write_claims(folder, study["parts"])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    info = {"command": COMMAND, "commit": commit, "cpu_seconds": round(cpu, 1),
            "cells": [f"{d}/{r}" for d, r in cells], "fits": len(new_rows),
            "failed_before": int((~was_ok).sum())}
    study["rerun_diri_direct"] = info
    (folder / "study.json").write_text(json.dumps(study, indent=1), encoding="utf-8")
    return info


if __name__ == "__main__":
    for f in sys.argv[1:]:
        print(f, rerun(Path(f)))
