"""Ramel et al.'s "similar figures are obtained when other marginal probabilities P(S=1) and P(Y=1)
are used" (issue 40 item 3), by the rule committed in README.md before this script:

    OMP_NUM_THREADS=1 python reports/ramel2018/other_marginals.py     # from the repository root

Experiment 1 as committed (1000 folds, 120 queries, RS / HS / PS, seed 2019) at four other
marginal pairs, 21 covariances evenly over each pair's feasible range plus sigma = 0; writes
``other_marginals.csv`` (the four features per pair) and prints the verdict.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from evstat.experiments import ramel2018 as rm

HERE = Path(__file__).resolve().parent
PAIRS = ((0.3, 0.5), (0.5, 0.3), (0.3, 0.3), (0.3, 0.7))
SEED = 2019


def sigmas(a: float, b: float) -> np.ndarray:
    lo = max(-a * b, -(1 - a) * (1 - b))
    hi = min(a * (1 - b), (1 - a) * b)
    return np.unique(np.round(np.append(np.linspace(lo, hi, 21), 0.0), 6))


def features(a: float, b: float) -> dict:
    parts = [rm.experiment1_sigma(float(s), SEED, strategies=("RS", "HS", "PS"), index=i, marginals=(a, b))
             for i, s in enumerate(sigmas(a, b))]
    rel = rm.relative_to_rs(pd.concat(parts, ignore_index=True))
    piv = rel.pivot_table(index=["sigma", "queries"], columns="strategy", values="relative")
    hs, ps = piv["HS"].drop(index=0, level="queries"), piv["PS"].drop(index=0, level="queries")
    q = hs.index.get_level_values("queries")
    at0 = (0.0, 120)
    f = {"p_s": a, "p_y": b, "hs_worst": float(hs.max()), "hs_best": float(hs.min()),
         "hs_at_0_120": float(piv.loc[at0, "HS"]), "ps_below_rs_first10": float((ps[q <= 10] < 0).mean()),
         "ps_at_0_120": float(piv.loc[at0, "PS"])}
    f["a_hs_better"] = f["hs_worst"] <= 0.5 and f["hs_best"] <= -5.0
    f["b_hs_equiv_at_0"] = abs(f["hs_at_0_120"]) < 2.0
    f["c_ps_beneficial_early"] = f["ps_below_rs_first10"] >= 0.9
    f["d_ps_worse_at_0"] = f["ps_at_0_120"] > 10.0
    f["similar"] = f["a_hs_better"] and f["b_hs_equiv_at_0"] and f["c_ps_beneficial_early"] and f["d_ps_worse_at_0"]
    return f


if __name__ == "__main__":
    t0, c0 = time.time(), time.process_time()
    tab = pd.DataFrame([features(a, b) for a, b in PAIRS])
    tab.to_csv(HERE / "other_marginals.csv", index=False, float_format="%.4f")
    n = int(tab["similar"].sum())
    verdict = "supported" if n == len(tab) else "partly supported" if n >= 2 else "contradicted"
    print(tab.to_string())
    print(f"similar figures for {n} of {len(tab)} pairs: {verdict}")
    print(f"{time.time() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU")
