"""Print the README's tables of reports/minary2019 from the two committed runs.

    python reports/minary2019/tables.py            # from the repository root

Every number of the README's tables comes from this script, which reads only the CSV files of
``svm-default`` and ``svm-tuned`` (and their ``claims.csv``, which ``evstat reproduce`` computed
from the same CSV files).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from evstat.experiments.methods import METHODS
from evstat.experiments.minary2019 import DATASETS, load_results
from evstat.experiments.report import svm_sensitivity

HERE = Path(__file__).resolve().parent
SETTINGS = ("default", "tuned")
LABEL = {"sonar": "Sonar", "ionosphere": "Ionosphere", "pima": "Pima (Diabetes)", "heart": "Heart",
         "australian": "Australian", "wdbc": "WDBC", "simulated": "Simulated"}
SHORT = {"joint_logistic": "joint logistic (ev.)", "joint_logistic_prob": "joint logistic (prob.)",
         "joint_binning": "joint binning (ev.)", "joint_binning_prob": "joint binning (prob.)",
         "disjoint_logistic": "disjoint logistic", "disjoint_binning": "disjoint binning", "gbt": "GBT",
         "eknn": "EkNN"}


def _md(header: list[str], rows: list[list[str]], right: int = 1) -> str:
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join(["---"] * right + ["---:"] * (len(header) - right)) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def overall(res) -> str:
    """Mean error over the #Train3 sizes (per round, then mean and SE over rounds); the best mean of
    each row in bold."""
    per_round = res.error_rates.groupby(["dataset", "method", "round"])["error_rate"].mean()
    g = per_round.groupby(level=["dataset", "method"])
    s = pd.DataFrame({"mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count())})
    rows = []
    for d in [d for d in DATASETS if d in res.datasets]:
        best = min(s.at[(d, m), "mean"] for m in res.methods)
        cells = []
        for m in res.methods:
            mu, se = s.at[(d, m), "mean"], s.at[(d, m), "se"]
            txt = f"{mu:.4f} ({se:.4f})"
            cells.append(f"**{txt}**" if mu == best else txt)
        rows.append([LABEL[d]] + cells)
    return _md(["data set"] + [SHORT[m] for m in res.methods], rows)


def fig8(res) -> str:
    rows = []
    for (nc, strat), g in res.reject_015.groupby(["n_cal", "strategy"], sort=False):
        def ms(col: str) -> str:
            v = g[col].dropna()
            return f"{v.mean():.4f} ({v.std(ddof=1) / np.sqrt(len(v)):.4f})"
        n_dec, n_acc = int(g["n_decided"].sum()), int(g["accuracy"].notna().sum())
        acc = ms("accuracy") if n_acc >= 10 else f"undefined ({n_dec} rows decided in {n_acc} rounds)"
        rows.append([str(int(nc)), strat, ms("error_rate"), acc, ms("reject_rate")])
    return _md(["calibration rows", "strategy", "error rate", "accuracy", "reject rate"], rows, right=2)


def ties(res) -> str:
    """Share of tied test rows per data set and method, pooled over sizes and rounds."""
    er = res.error_rates
    g = er.groupby(["dataset", "method"])
    share = g["n_ties"].sum() / g["n_test"].sum()
    rows = []
    for d in [d for d in DATASETS if d in res.datasets]:
        rows.append([LABEL[d]] + [f"{100 * share[(d, m)]:.1f}%" for m in res.methods])
    return _md(["data set"] + [SHORT[m] for m in res.methods], rows)


def claims() -> str:
    both = svm_sensitivity(HERE / "svm-default", HERE / "svm-tuned")
    frames = {s: pd.read_csv(HERE / f"svm-{s}" / "claims.csv").set_index("comparison") for s in SETTINGS}
    out = []
    for kind in ("finding", "sanity check"):
        rows = []
        for _, r in both[both["type"] == kind].iterrows():
            cells = [r["claim"], r["comparison"]]
            for s in SETTINGS:
                c = frames[s].loc[r["comparison"]] if r["comparison"] in frames[s].index else None
                if c is None:
                    cells.append("absent")
                    continue
                se = "" if pd.isna(c["pooled_se"]) else f" ({c['pooled_se']:.4f})"
                cells.append(f"{int(c['cells_for'])}/{int(c['cells_against'])}/{int(c['cells_unclear'])}, "
                             f"{c['pooled_mean']:+.4f}{se}: **{c['verdict']}**")
            cells.append("yes" if r["depends_on_svm"] else "no")
            rows.append(cells)
        out.append(f"### {kind}s\n\n" + _md(["claim", "comparison", "default SVMs: cells for/against/unclear, "
                                              "pooled (SE): verdict", "tuned SVMs", "depends on the SVMs"],
                                             rows, right=5))
    return "\n\n".join(out)


def main() -> int:
    for s in SETTINGS:
        res = load_results(HERE / f"svm-{s}")
        print(f"## svm = {s}: mean error over the #Train3 sizes\n\n{overall(res)}\n")
        print(f"## svm = {s}: Fig. 8 at R_rej = 0.15\n\n{fig8(res)}\n")
        print(f"## svm = {s}: tied test rows\n\n{ties(res)}\n")
    print(claims())
    return 0


if __name__ == "__main__":
    sys.exit(main())
