"""Rewrite a committed gebel2009 run with Cal as the thesis's tables report it, without refitting.

The runs of 2026-11-26 stored Cal = sqrt((1 - RMSE) WCR) (eq. 2.6 of the thesis). The thesis's
Tables 6.3-6.13 report the product (1 - RMSE) WCR under that name (evidence in README.md and in
the module docstring of ``evstat.metrics.gebel``). Both factors are stored, per fold in
``results.csv`` (6 significant digits) and pooled in ``table.csv`` (4 decimals), so the tables'
Cal is recomputed from them: ``Cal`` becomes (1 - RMSE) WCR, the old column is kept as
``Cal_root``, ``Cal_fold_mean``/``Cal_fold_sd`` are recomputed from the per-fold products, and
``comparison.csv`` and ``claims.csv`` are rewritten by the study's own functions. A fresh run of
``evstat reproduce gebel2009`` writes the same columns (``evstat.experiments.gebel2009``).

    python reports/gebel2009/recompute_cal.py reports/gebel2009/two-class reports/gebel2009/k-class

Refuses a folder that already has ``Cal_root``; checks that the stored Cal is the root of the
stored factors before changing anything.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from evstat.experiments import gebel2009 as g

KEYS = ["part", "dataset", "classifier", "reduction", "method"]
COMMAND = "python reports/gebel2009/recompute_cal.py reports/gebel2009/two-class reports/gebel2009/k-class"


def recompute(folder: Path, commit: str) -> None:
    res = pd.read_csv(folder / "results.csv", keep_default_na=False, na_values=[""])
    table = pd.read_csv(folder / "table.csv")
    if "Cal_root" in res.columns or "Cal_root" in table.columns:
        raise SystemExit(f"{folder} already has Cal_root: nothing to do")
    ok = res["error"].isna()
    # the stored Cal must be the root of the stored factors (6 significant digits each)
    np.testing.assert_allclose(res.loc[ok, "Cal"], np.sqrt(res.loc[ok, "one_minus_rmse"] * res.loc[ok, "WCR"]),
                               rtol=2e-5, atol=2e-6)
    tok = table["CR"].notna()
    np.testing.assert_allclose(table.loc[tok, "Cal"],
                               np.sqrt(table.loc[tok, "one_minus_rmse"] * table.loc[tok, "WCR"]), atol=2e-4)
    res["Cal_root"] = res["Cal"]
    res["Cal"] = res["one_minus_rmse"] * res["WCR"]
    table["Cal_root"] = table["Cal"]
    table["Cal"] = table["one_minus_rmse"] * table["WCR"]
    per_fold = res[ok].groupby(KEYS)["Cal"].agg(["mean", lambda s: s.std(ddof=1)])
    per_fold.columns = ["mean", "sd"]
    idx = pd.MultiIndex.from_frame(table[KEYS])
    table["Cal_fold_mean"] = per_fold["mean"].reindex(idx).to_numpy()
    table["Cal_fold_sd"] = per_fold["sd"].reindex(idx).to_numpy()
    res["error"] = res["error"].fillna("")
    res.to_csv(folder / "results.csv", index=False, float_format="%.6g")
    table.to_csv(folder / "table.csv", index=False, float_format="%.4f")
    g.comparison(table).to_csv(folder / "comparison.csv", index=False, float_format="%.4f")
    study_path = folder / "study.json"
    study = json.loads(study_path.read_text(encoding="utf-8"))
    g.write_claims(folder, study["parts"])
    study["recomputed"] = {
        "command": COMMAND,
        "commit": commit,
        "what": "Cal = (1 - RMSE) WCR (the thesis tables' quantity) from the stored factors; the former "
                "Cal = sqrt((1 - RMSE) WCR) kept as Cal_root; no classifier or calibrator refitted",
    }
    study_path.write_text(json.dumps(study, indent=1), encoding="utf-8")


def main(folders: list[str]) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    for f in folders:
        recompute(Path(f), commit)
        print(f"{f}: Cal recomputed as (1 - RMSE) WCR (commit {commit})")


if __name__ == "__main__":
    main(sys.argv[1:])
