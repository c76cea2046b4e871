"""Test 1.1 of the EC paper (two crossing rings and one outlier, K = 11), fourth pass (issue 40):

    OMP_NUM_THREADS=1 python reports/credal-knn/run_test11.py        # from the repository root

Writes ``test11_decisions.csv`` and ``test11_rates.csv`` with
:func:`evstat.experiments.credal_knn.test11` at the study's seed and records the run in
``study.json`` under ``fourth_pass``; ``evstat reproduce credal-knn`` writes the same files.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

from evstat.experiments import credal_knn as ck
from evstat.experiments.store import write_csv

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    study = json.loads((HERE / "study.json").read_text(encoding="utf-8"))
    t0, c0 = time.time(), time.process_time()
    table, rates = ck.test11(int(study["seed"]))
    write_csv(table, HERE / "test11_decisions.csv")
    write_csv(rates, HERE / "test11_rates.csv")
    study.setdefault("fourth_pass", {})["test11"] = {
        "command": "OMP_NUM_THREADS=1 python reports/credal-knn/run_test11.py",
        "files": ["test11_decisions.csv", "test11_rates.csv"], "wall_seconds": round(time.time() - t0, 1),
        "cpu_seconds": round(time.process_time() - c0, 1),
        "machine": f"{platform.machine()}, Python {platform.python_version()}, 2 cores shared",
    }
    (HERE / "study.json").write_text(json.dumps(study, indent=2) + "\n", encoding="utf-8")
    print(rates.to_string())
