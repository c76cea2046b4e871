"""Print the README's tables of reports/credal-knn from its CSV files.

    python reports/credal-knn/tables.py            # from the repository root

Every number of the README's tables comes from this script, which reads only the committed CSV
files; ``tests/experiments/test_experiments_credal_knn.py`` checks that each table row it prints
is in the README.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SIM_METHODS = ("K-NN", "WK-NN", "FK-NN", "EkNN", "SVM", "CART", "ANN", "SVM-CV")
REAL_METHODS = ("K-NN", "WK-NN", "FK-NN", "EkNN", "SVM", "CART", "ANN", "SVM-CV")
LABEL = {"iris": "Iris", "ecoli": "Ecoli cp/im/imU", "breast-cancer": "Breast cancer", "yeast": "Yeast CYT/NUC/ME3"}


def _md(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def sim2() -> str:
    t = pd.read_csv(HERE / "sim2_table.csv").set_index(["N", "method"])
    rows = []
    for N in sorted({n for n, _ in t.index}):
        cells = [str(N)] + [f"{t.at[(N, m), 'error']:.4f} (K {int(t.at[(N, m), 'K'])})" if m not in ("SVM", "CART", "ANN", "SVM-CV")
                            else f"{t.at[(N, m), 'error']:.4f}" for m in SIM_METHODS]
        for ec in ("EC rho=3", "EC rho=5"):
            r = t.loc[(N, ec)]
            cells.append(f"{r['error']:.4f} / {r['imprecision']:.4f} / {r['outlier']:.4f} (K {int(r['K'])}); "
                         f"{r['error_meta_random']:.4f}, {r['error_meta_wrong']:.4f}")
        rows.append(cells)
    return _md(["N"] + list(SIM_METHODS) + ["EC rho=3: error / imprecision / outlier (K); half, wrong",
                                              "EC rho=5: same"], rows)


def real(k: int) -> str:
    t = pd.read_csv(HERE / "real_table.csv")
    t = t[t["K"] == k].set_index(["dataset", "method"])
    rows = []
    for d in LABEL:
        if (d, "EC") not in t.index:
            continue
        ec = t.loc[(d, "EC")]
        rows.append([LABEL[d]] + [f"{t.at[(d, m), 'error']:.4f}" for m in REAL_METHODS]
                    + [f"{ec['error']:.4f} ({ec['imprecision']:.4f})", f"{ec['error_meta_random']:.4f}",
                       f"{ec['error_meta_wrong']:.4f}"])
    return _md(["data"] + list(REAL_METHODS) + ["EC (imprecision)", "EC, meta-classes half", "EC, meta-classes wrong"],
               rows)


def claims() -> str:
    c = pd.read_csv(HERE / "claims.csv")
    rows = [[r["type"], r["claim"], r["value"], f"**{r['verdict']}**"] for _, r in c.iterrows()]
    return _md(["type", "claim", "value", "verdict"], rows)


def verdict_counts() -> str:
    c = pd.read_csv(HERE / "claims.csv")
    g = c.groupby(["type", "verdict"]).size().unstack(fill_value=0)
    cols = [v for v in ("holds", "not resolved", "contradicted") if v in g.columns]
    return _md(["type"] + cols, [[t] + [str(int(g.at[t, v])) for v in cols] for t in g.index])


def test11() -> str:
    t = pd.read_csv(HERE / "test11_rates.csv")
    rows = [[r["method"], f"{r['error']:.4f}", f"{r['imprecision']:.4f}", f"{r['outlier']:.4f}", str(r["outlier_row"])]
            for _, r in t.iterrows()]
    return _md(["method", "error (1010 ring rows)", "meta-class rate", "outlier rate", "the outlier row"], rows)


def vehicles() -> str:
    v = pd.read_csv(HERE / "eknn_vehicles.csv")
    rows = []
    for k, g in v.groupby("K"):
        g = g.set_index("scaling")
        rows.append([str(k)] + [f"{g.at[s, c]:.4f}" for s in ("raw", "standardised") for c in ("knn_error", "eknn_error")])
    return _md(["K", "K-NN (raw)", "EkNN (raw)", "K-NN (standardised)", "EkNN (standardised)"], rows)


def fusion() -> str:
    f = pd.read_csv(HERE / "fusion.csv")
    cols = ["knn_concat", "eknn_concat", "eknn_fusion", "eknn_fusion_disc", "sensor1", "sensor2"]
    g = f.groupby("sigma")[cols]
    m, se = g.mean(), g.std(ddof=1) / np.sqrt(g.count())
    rows = [[f"{s:g}"] + [f"{m.at[s, c]:.3f} ({se.at[s, c]:.3f})" for c in cols] for s in m.index]
    return _md(["sigma", "K-NN concat.", "EkNN concat.", "EkNN fusion", "fusion, x discounted (oracle)",
                "EkNN(x) alone", "EkNN(x') alone"], rows)


def vowel_retry() -> str:
    d = pd.read_csv(HERE / "evnn_vowel_retry.csv")
    label = {"baseline": "baseline (the study's per-class rows, refitted: identical)",
             "mu_cv": "`mu` by 3-fold CV on the training rows (grid 0, 1e-3, 1e-2, 1e-1)",
             "lambda_pl": "`lambda = 1` (cost on plausibilities)",
             "restarts": "best of 5 restarts by training cost", "standardised": "standardised features"}
    rows = []
    for v in ("baseline", "mu_cv", "lambda_pl", "restarts", "standardised"):
        cells = []
        for r in (33, 44, 55):
            t = d[(d["variant"] == v) & (d["prototypes"] == r)]
            e = t["test_error"]
            if v == "mu_cv":
                cells.append(f"{e.mean():.3f} (mu {t['mu'].iloc[0]:g})")
            elif v in ("baseline", "lambda_pl"):
                cells.append(f"{e.mean():.3f} ({e.min():.3f}-{e.max():.3f})")
            else:
                cells.append(f"{e.mean():.3f}")
        rows.append([label[v], *cells])
    return "  " + _md(["variant", "33 prototypes", "44", "55"], rows).replace("\n", "\n  ")


def main() -> int:
    print(f"## Test 1.1\n\n{test11()}\n")
    print(f"## Simulation 2\n\n{sim2()}\n")
    for k in (5, 10, 15):
        print(f"## Real data, K = {k}\n\n{real(k)}\n")
    print(f"## Claims: verdict counts\n\n{verdict_counts()}\n")
    print(f"## Claims\n\n{claims()}\n")
    print(f"## Vehicles\n\n{vehicles()}\n")
    print(f"## Data fusion\n\n{fusion()}\n")
    print(f"## Vowel, evidential neural network retried\n\n{vowel_retry()}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
