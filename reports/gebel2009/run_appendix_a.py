"""The thesis's Appendix A (Tables A.1-A.4): Bayes-ALAP, isotonic regression and PLR run through
the one-vs-rest and all-pairs reductions, for the L2-SVM and the ANN, on the eight public K-class
data sets, 10-fold, with the same folds, seeds and classifier scores as ``k-class/``.

    OMP_NUM_THREADS=1 python reports/gebel2009/run_appendix_a.py            # all data sets
    OMP_NUM_THREADS=1 python reports/gebel2009/run_appendix_a.py iris wine  # a subset

Each unit is ``evstat.experiments.gebel2009._unit(..., methods=METHODS_K_APPENDIX)``: the
classifier is refitted with the unit's seed, so its scores equal the main run's (checked on
``lr``, which the main run has, by ``--check``). One data set at a time is written atomically to
``k-class-appendix/by_dataset/<name>_results.csv`` and ``<name>_table.csv``; a data set whose two
files exist with the expected number of rows is kept (a truncated or missing file is recomputed),
and ``results.csv`` / ``table.csv`` are concatenations of those files in data-set order.
``study.json`` records the command, seed, folds and the wall and CPU seconds per data set.
"""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from evstat.experiments import gebel2009 as g
from evstat.io.atomic import write_text

HERE = Path(__file__).resolve().parent
OUT = HERE / "k-class-appendix"
FOLDS, SEED = 10, 2009


def units(dataset: str) -> list[tuple[str, str, int]]:
    return [(clf, red, f) for clf in g.CLASSIFIERS["K-class"] for red in g.REDUCTIONS["K-class"]
            for f in range(FOLDS)]


def complete(dataset: str) -> bool:
    """Both files of a data set exist and hold every unit's rows (else it is recomputed)."""
    res, tab = OUT / "by_dataset" / f"{dataset}_results.csv", OUT / "by_dataset" / f"{dataset}_table.csv"
    try:
        r, t = pd.read_csv(res), pd.read_csv(tab)
    except (OSError, ValueError, pd.errors.ParserError):
        return False
    n_cells = len(g.CLASSIFIERS["K-class"]) * len(g.REDUCTIONS["K-class"]) * len(g.METHODS_K_APPENDIX)
    return len(r) == n_cells * FOLDS and len(t) == n_cells


def run(dataset: str) -> dict[str, float]:
    t0, c0 = time.time(), time.process_time()
    rows: list[dict] = []
    for clf, red, f in units(dataset):
        rows += g._unit("K-class", dataset, clf, red, f, FOLDS, SEED, methods=g.METHODS_K_APPENDIX)
    preds: dict[tuple, list] = {}
    for r in rows:
        if "_pred" in r:
            key = (r["part"], r["dataset"], r["classifier"], r["reduction"], r["method"])
            preds.setdefault(key, []).append(r.pop("_pred"))
    results = pd.DataFrame(rows)
    X, yl, classes = g.load_dataset(dataset)
    labels = {dataset: np.asarray(pd.Index(classes, dtype=object).get_indexer(yl), dtype=np.intp)}
    table = g.pooled_table(results, preds, labels)
    for name, frame, fmt in (("results", results, "%.6g"), ("table", table, "%.4f")):
        buf = io.StringIO()
        frame.to_csv(buf, index=False, float_format=fmt)
        write_text(OUT / "by_dataset" / f"{dataset}_{name}.csv", buf.getvalue())
    return {"wall_seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1)}


STUDY = OUT / "study.json"


def _study() -> dict:
    study = json.loads(STUDY.read_text(encoding="utf-8")) if STUDY.exists() else {}
    study.update({"folds": FOLDS, "seed": SEED, "methods": list(g.METHODS_K_APPENDIX),
                  "command": "OMP_NUM_THREADS=1 python reports/gebel2009/run_appendix_a.py [data sets]"})
    study.setdefault("dataset_seconds", {})
    return study


def main(argv: list[str]) -> None:
    """Run the chosen data sets (default all, smallest first); ``--collect`` only concatenates
    the complete data sets' files (several calls may run different data sets at once)."""
    chosen = [a for a in argv if not a.startswith("-")] or sorted(g.DATASETS_K, key=g._size)
    (OUT / "by_dataset").mkdir(parents=True, exist_ok=True)
    for d in ([] if "--collect" in argv else chosen):
        if complete(d):
            print(f"{d}: complete, kept")
            continue
        secs = run(d)
        print(f"{d}: {secs}", flush=True)
        study = _study()  # read again: another call may have written meanwhile
        study["dataset_seconds"][d] = secs
        write_text(STUDY, json.dumps(study, indent=1))
    study = _study()
    done = [d for d in g.DATASETS_K if complete(d)]
    for name in ("results", "table"):
        frames = [pd.read_csv(OUT / "by_dataset" / f"{d}_{name}.csv") for d in done]
        buf = io.StringIO()
        pd.concat(frames, ignore_index=True).to_csv(buf, index=False, float_format="%.6g" if name == "results" else "%.4f")
        write_text(OUT / f"{name}.csv", buf.getvalue())
    study["datasets_done"] = done
    write_text(STUDY, json.dumps(study, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
