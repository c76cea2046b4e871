"""Which features did the thesis drop? The thesis's Table 6.1 gives Ionosphere p = 32 and Banknotes
p = 5, where the data hold 34 and 6 columns. For each candidate feature set this script runs the
study's whole two-class protocol on the data set (four classifiers, every calibrator, 10 folds,
seed 2009: the same units as ``evstat reproduce gebel2009``) and measures how far its pooled CR and
Cal are from the thesis's Tables 6.3-6.6, cell by cell.

    OMP_NUM_THREADS=1 python reports/gebel2009/which_features.py banknote-swiss   # 7 candidates
    OMP_NUM_THREADS=1 python reports/gebel2009/which_features.py ionosphere       # 3 candidates

Writes ``which_features_<data set>.csv`` (one row per candidate and cell) beside this file and
prints the summary (mean absolute distance to the thesis over the cells the thesis reports).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from evstat.experiments import gebel2009 as g

HERE = Path(__file__).resolve().parent
CANDIDATES = {
    "banknote-swiss": [()] + [(c,) for c in ("Length", "Left", "Right", "Bottom", "Top", "Diagonal")],
    "ionosphere": [(), ("V2",), ("V1", "V2")],
}


def run(dataset: str, drop: tuple[str, ...], folds: int = 10, seed: int = 2009) -> pd.DataFrame:
    g.FEATURE_DROP[dataset] = drop
    try:
        rows, preds = [], {}
        for clf in g.CLASSIFIERS["two-class"]:
            for fold in range(folds):
                for r in g._unit("two-class", dataset, clf, "none", fold, folds, seed):
                    pr = r.pop("_pred", None)
                    rows.append(r)
                    if pr is not None:
                        preds.setdefault(("two-class", dataset, clf, "none", r["method"]), []).append(pr)
        X, yl, classes = g.load_dataset(dataset)
        labels = {dataset: np.asarray(pd.Index(classes, dtype=object).get_indexer(yl), dtype=np.intp)}
        table = g.pooled_table(pd.DataFrame(rows), preds, labels)
    finally:
        g.FEATURE_DROP.pop(dataset, None)
    thesis = pd.read_csv(g.THESIS_TABLES)
    thesis = thesis[(thesis["part"] == "two-class") & (thesis["dataset"] == dataset)]
    m = table.merge(thesis[["classifier", "method", "CR", "Cal"]], on=["classifier", "method"], suffixes=("", "_thesis"))
    m["p"] = X.shape[1]
    m["dropped"] = "+".join(drop) or "none"
    return m[["dropped", "p", "classifier", "method", "CR", "CR_thesis", "Cal", "Cal_thesis"]]


if __name__ == "__main__":
    dataset = sys.argv[1] if len(sys.argv) > 1 else "banknote-swiss"
    t0 = time.time()
    out = pd.concat([run(dataset, d) for d in CANDIDATES[dataset]], ignore_index=True)
    out.to_csv(HERE / f"which_features_{dataset}.csv", index=False, float_format="%.4f")
    out["dCR"] = (out["CR"] - out["CR_thesis"]).abs()
    out["dCal"] = (out["Cal"] - out["Cal_thesis"]).abs()
    summary = out.groupby(["dropped", "p"], sort=False)[["dCR", "dCal"]].agg(["mean", "count"])
    print(summary.round(4).to_string())
    print(f"{time.time() - t0:.0f} s wall")
