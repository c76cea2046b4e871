"""EC's computing time against EkNN and K-NN, and its sensitivity to rho in [2, 5] (issue 40
item 3), by the rules committed in README.md before this script:

    OMP_NUM_THREADS=1 python reports/credal-knn/run_claims_fourth_pass.py     # from the repository root

Writes ``timing_fourth_pass.csv`` (CPU seconds of every repeat), ``rho_fourth_pass.csv`` (EC's
rates per run, N, K and rho) and ``claims_fourth_pass.csv`` (the two claims, the columns of
``claims.csv``), and records the run in ``study.json`` under ``fourth_pass``.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd

import evstat as ev
from evstat.experiments import credal_knn as ck

HERE = Path(__file__).resolve().parent
REPEATS = 5
RHOS = (2.0, 3.0, 4.0, 5.0)
KS = (5, 15, 25)
RUNS = 10


def _cpu(f) -> float:
    c0 = time.process_time()
    f()
    return time.process_time() - c0


def timing(seed: int) -> pd.DataFrame:
    tr11, te11 = ck.simulate_rings(ck._rng(seed, 11))
    tr12, te12 = ck.simulate_credal_test12(100, seed=ck._rng(seed, 1))
    rows = []
    for test, train, test_rows, k in (("Test 1.1", tr11, te11, 11), ("Test 1.2", tr12, te12, 9)):
        cols = ["x1", "x2"]
        f = ck._formula(cols)
        levels = sorted(train["y"].dropna().unique())
        codes = pd.Categorical(train["y"], categories=levels).codes.astype(np.intp)
        Xtr, Xte = train[cols].to_numpy(float), test_rows[cols].to_numpy(float)
        methods = {
            "K-NN": lambda: ck.knn_vote(Xtr, codes, Xte, k, len(levels)),
            "EkNN": lambda: ck._eknn_quiet(f, train, k).decide(test_rows[cols], strategy="credal"),
            "EC rho=3": lambda: ev.credal_knn(f, train, k=k, rho=3.0, outlier=True).decide(test_rows[cols], strategy="credal"),
        }
        for m, g in methods.items():
            g()  # warm-up: imports and compiled kernels are not counted
            for r in range(REPEATS):
                rows.append({"test": test, "method": m, "repeat": r, "cpu_seconds": _cpu(g)})
    return pd.DataFrame(rows)


def rho_sensitivity(seed: int) -> pd.DataFrame:
    rows = []
    for ni, N in enumerate(ck.N_GRID):
        for r in range(RUNS):
            train, test = ck.simulate_credal_sim2(N, 100, seed=ck._rng(seed, 2, ni, r))  # the study's data
            y = test["y"].to_numpy()
            f = ck._formula(["x1", "x2"])
            for k in KS:
                for rho in RHOS:
                    dec = list(ev.credal_knn(f, train, k=k, rho=rho, outlier=True).decide(test, strategy="credal"))
                    rows.append(ck._rates(y, dec, f"EC rho={rho:g}", N=N, run=r, K=k) | {"rho": rho})
    return pd.DataFrame(rows)


def claims(timing: pd.DataFrame, rho: pd.DataFrame) -> pd.DataFrame:
    med = timing.groupby(["test", "method"])["cpu_seconds"].median().unstack()
    slower = {t: bool(med.loc[t, "EC rho=3"] > max(med.loc[t, "K-NN"], med.loc[t, "EkNN"])) for t in med.index}
    # "below at least one of them in both tests" = not slower than both in both tests
    v_time = "holds" if all(slower.values()) else ("contradicted" if not any(slower.values()) else "not resolved")
    time_value = "; ".join(f"{t}: median CPU s EC {med.loc[t, 'EC rho=3']:.4f}, EkNN {med.loc[t, 'EkNN']:.4f}, "
                           f"K-NN {med.loc[t, 'K-NN']:.4f}" for t in med.index)
    m = rho.groupby(["N", "K", "rho"])[["error", "imprecision"]].mean()
    rng = m.groupby(level=["N", "K"]).agg(lambda s: s.max() - s.min())
    ok = (rng["error"] <= 0.02) & (rng["imprecision"] <= 0.05)
    v_rho = "holds" if bool(ok.all()) else "contradicted"
    rho_value = (f"{int(ok.sum())} of {len(ok)} (N, K) cells insensitive; range over rho = 2..5 of the mean error "
                 f"{rng['error'].min():.4f}-{rng['error'].max():.4f}, of the mean imprecision "
                 f"{rng['imprecision'].min():.4f}-{rng['imprecision'].max():.4f}")
    return pd.DataFrame([
        {"type": "finding", "claim": "Tests 1.1 and 1.2: EC requires more computing time than EkNN and K-NN",
         "value": time_value, "mean_diff": np.nan, "se": np.nan, "pairs": REPEATS, "verdict": v_time,
         "holds": v_time == "holds"},
        {"type": "finding", "claim": "Sim2: EC's results are not very sensitive to rho in [2, 5] (error range <= 0.02, imprecision range <= 0.05 in every (N, K) cell)",
         "value": rho_value, "mean_diff": np.nan, "se": np.nan, "pairs": RUNS, "verdict": v_rho,
         "holds": v_rho == "holds"},
    ])


if __name__ == "__main__":
    study = json.loads((HERE / "study.json").read_text(encoding="utf-8"))
    seed = int(study["seed"])
    t0, c0 = time.time(), time.process_time()
    tim = timing(seed)
    tim.to_csv(HERE / "timing_fourth_pass.csv", index=False, float_format="%.6f")
    rho = rho_sensitivity(seed)
    rho.to_csv(HERE / "rho_fourth_pass.csv", index=False, float_format="%.6g")
    cl = claims(tim, rho)
    cl.to_csv(HERE / "claims_fourth_pass.csv", index=False)
    study.setdefault("fourth_pass", {})["claims_fourth_pass"] = {
        "command": "OMP_NUM_THREADS=1 python reports/credal-knn/run_claims_fourth_pass.py",
        "files": ["timing_fourth_pass.csv", "rho_fourth_pass.csv", "claims_fourth_pass.csv"],
        "wall_seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1),
        "machine": f"{platform.machine()}, Python {platform.python_version()}, 2 cores shared",
    }
    (HERE / "study.json").write_text(json.dumps(study, indent=2) + "\n", encoding="utf-8")
    print(tim.groupby(["test", "method"])["cpu_seconds"].median().unstack().to_string())
    print(rho.groupby(["N", "K", "rho"])[["error", "imprecision"]].mean().to_string())
    print(cl.to_string())
