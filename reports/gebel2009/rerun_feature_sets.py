"""Rerun the two-class cells of data sets whose feature set changed to the thesis's (Table 6.1's p),
in place, with ``evstat.experiments.gebel2009.FEATURE_DROP`` as committed.

    OMP_NUM_THREADS=1 python reports/gebel2009/rerun_feature_sets.py ionosphere
    OMP_NUM_THREADS=1 python reports/gebel2009/rerun_feature_sets.py banknote-swiss

The data set's rows are removed from ``two-class/results.csv`` and ``table.csv`` and from
``study.json``'s ``datasets_done``; ``run_gebel2009`` then resumes the folder and runs exactly
that data set's 40 units again (same folds, seeds and code as the other cells), rewriting
``table.csv``, ``comparison.csv`` and ``claims.csv``. The earlier values are kept in
``two-class/before_feature_sets.csv`` (first call only) so the README can say how far CR and Cal
moved toward the thesis's numbers. Keys of ``study.json`` that ``run_gebel2009`` does not write
(``recomputed``) are carried over, and the rerun is recorded under ``feature_sets``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd

from evstat.experiments import gebel2009 as g

HERE = Path(__file__).resolve().parent
OUT = HERE / "two-class"

if __name__ == "__main__":
    dataset = sys.argv[1]
    if dataset not in g.FEATURE_DROP:
        sys.exit(f"{dataset} has no thesis feature set in FEATURE_DROP")
    study = json.loads((OUT / "study.json").read_text(encoding="utf-8"))
    results = pd.read_csv(OUT / "results.csv", keep_default_na=False, na_values=[""])
    table = pd.read_csv(OUT / "table.csv")
    before = OUT / "before_feature_sets.csv"
    old_rows = table[table["dataset"] == dataset].assign(features="all")
    if before.exists():
        prev = pd.read_csv(before)
        if dataset not in set(prev["dataset"]):
            pd.concat([prev, old_rows], ignore_index=True).to_csv(before, index=False, float_format="%.4f")
    else:
        old_rows.to_csv(before, index=False, float_format="%.4f")
    keep = {k: v for k, v in study.items() if k in ("recomputed", "feature_sets")}
    results = results[results["dataset"] != dataset]
    table = table[table["dataset"] != dataset]
    study["datasets_done"] = [d for d in study["datasets_done"] if d != f"two-class:{dataset}"]
    results.to_csv(OUT / "results.csv", index=False, float_format="%.6g")
    table.to_csv(OUT / "table.csv", index=False, float_format="%.4f")
    (OUT / "study.json").write_text(json.dumps(study, indent=1), encoding="utf-8")
    t0, c0 = time.time(), time.process_time()
    command = f"OMP_NUM_THREADS=1 python reports/gebel2009/rerun_feature_sets.py {dataset}"
    g.run_gebel2009(OUT, folds=int(study["folds"]), seed=int(study["seed"]), jobs=1, parts=["two-class"],
                    datasets=[dataset], quiet=True, command=command)
    study = json.loads((OUT / "study.json").read_text(encoding="utf-8"))
    study.update(keep)
    study.setdefault("feature_sets", {})[dataset] = {
        "dropped": list(g.FEATURE_DROP[dataset]), "command": command,
        "wall_seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1)}
    (OUT / "study.json").write_text(json.dumps(study, indent=1), encoding="utf-8")
    print(f"{dataset}: {time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU")
