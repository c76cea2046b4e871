"""Print the tables of reports/ramel2018/README.md from the committed CSV files.

    python reports/ramel2018/tables.py [reports/ramel2018]
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

STRATS = ["RS", "HS", "PS", "EIR", "HS-batch5"]
ORDER = ["australian", "heart", "ionosphere", "sonar", "wdbc", "pima"]


def rounds_table(hist: pd.DataFrame) -> str:
    full = hist[hist["queries"] == hist["queries"].max()]
    n = full.groupby(["dataset", "strategy"])["round"].nunique().unstack()
    pool = hist[hist["queries"] == 0].groupby("dataset")["n_pool"].first()
    lines = ["| data set | pool rows | " + " | ".join(STRATS) + " |", "|---" * (2 + len(STRATS)) + "|"]
    for d in ORDER:
        if d in n.index:
            lines.append(f"| {d} | {int(pool[d])} | " + " | ".join(str(int(n.loc[d].get(s, 0) or 0)) for s in STRATS) + " |")
    return "\n".join(lines)


def claims_table(claims: pd.DataFrame) -> str:
    esc = lambda t: str(t).replace("|", "&#124;")
    lines = ["| claim | kind | the paper | ours | verdict |", "|---|---|---|---|---|"]
    for _, r in claims.iterrows():
        lines.append(f"| {esc(r['claim'])} | {r['kind']} | {esc(r['paper'])} | {esc(r['ours'])} | {r['verdict']} |")
    return "\n".join(lines)


def exp2_table(summary: pd.DataFrame) -> str:
    lines = ["| data set | queries | " + " | ".join(STRATS) + " |", "|---" * (2 + len(STRATS)) + "|"]
    s = summary.set_index(["dataset", "strategy", "queries"])
    for d in ORDER + ["all"]:
        for q in (0, 5, 10, 20):
            cells = []
            for st in STRATS:
                try:
                    r = s.loc[(d, st, q)]
                    cells.append(f"{r['ignorance']:.3f} ({r['brier']:.3f})")
                except KeyError:
                    cells.append("-")
            lines.append(f"| {d} | {q} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(folder: str = "reports/ramel2018") -> None:
    out = Path(folder)
    hist = pd.read_csv(out / "exp2_history.csv")
    print("Rounds run (complete 20-query histories per data set and strategy):\n")
    print(rounds_table(hist) + "\n")
    print(claims_table(pd.read_csv(out / "claims.csv")) + "\n")
    print(exp2_table(pd.read_csv(out / "exp2_summary.csv")))


if __name__ == "__main__":
    main(*sys.argv[1:])
