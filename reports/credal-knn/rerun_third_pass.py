"""Third pass (issue 28) of the credal K-NN study, in two parts.

    OMP_NUM_THREADS=1 python reports/credal-knn/rerun_third_pass.py tables    # from the repository root
    OMP_NUM_THREADS=1 python reports/credal-knn/rerun_third_pass.py lecture

``tables``: Simulation 2 and the real data again, with the added methods (fuzzy K-NN, the paper's
SVM, CART and ANN, and a cross-validated SVM) and the meta-class error variants, and the claims
with the noise rule: ``sim2_rates.csv``, ``sim2_table.csv``, ``real_rates.csv``,
``real_table.csv``, ``claims.csv``. ``lecture``: the two lecture examples added in this pass,
Vehicles (``eknn_vehicles.csv``, ``fig_vehicles.png``) and the data-fusion example
(``fusion.csv``, ``fig_fusion.png``). Each part is recorded in ``study.json`` under
``third_pass``. The other files (Test 1.2, the earlier lecture examples) do not depend on these
changes; ``evstat reproduce credal-knn --runs 10 --out reports/credal-knn`` rewrites every file,
these with the same content.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

from evstat.experiments import credal_knn as ck

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    part = sys.argv[1] if len(sys.argv) > 1 else "tables"
    if part not in ("tables", "lecture"):
        sys.exit("usage: rerun_third_pass.py tables|lecture")
    study = json.loads((HERE / "study.json").read_text(encoding="utf-8"))
    seed, runs = int(study["seed"]), int(study["runs"])
    t0, c0 = time.time(), time.process_time()

    def progress(msg: str) -> None:
        print(f"[{time.time() - t0:7.1f} s] {msg}", flush=True)

    if part == "tables":
        sim = ck.simulation2(seed, runs, tuple(study["k_grid"]), progress)
        sim.to_csv(HERE / "sim2_rates.csv", index=False)
        ck.sim2_table(sim).to_csv(HERE / "sim2_table.csv", index=False)
        real = ck.real_data(seed, runs, tuple(study["real_k"]), tuple(study["datasets"]), progress)
        real.to_csv(HERE / "real_rates.csv", index=False)
        ck.real_table(real).to_csv(HERE / "real_table.csv", index=False)
        ck.claims(sim, real).to_csv(HERE / "claims.csv", index=False)
        files = ["sim2_rates.csv", "sim2_table.csv", "real_rates.csv", "real_table.csv", "claims.csv"]
    else:
        veh = ck.eknn_vehicles()
        veh.to_csv(HERE / "eknn_vehicles.csv", index=False)
        progress("vehicles done")
        fus = ck.fusion_example(seed, runs)
        fus.to_csv(HERE / "fusion.csv", index=False)
        ck.lecture_figures(HERE, veh, fus)
        files = ["eknn_vehicles.csv", "fusion.csv", "fig_vehicles.png", "fig_fusion.png"]
    study = json.loads((HERE / "study.json").read_text(encoding="utf-8"))  # the other part may have written
    study.setdefault("third_pass", {})[part] = {
        "command": f"OMP_NUM_THREADS=1 python reports/credal-knn/rerun_third_pass.py {part}",
        "files": files, "wall_seconds": round(time.time() - t0, 1),
        "cpu_seconds": round(time.process_time() - c0, 1),
        "machine": f"{platform.machine()}, Python {platform.python_version()}, 2 cores shared",
    }
    (HERE / "study.json").write_text(json.dumps(study, indent=2) + "\n", encoding="utf-8")
    print(f"done in {time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU")
