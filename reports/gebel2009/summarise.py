"""Markdown tables for the README from a finished (or interrupted) run folder.

    python reports/gebel2009/summarise.py reports/gebel2009/k-class
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

ORDER = ["norm", "av", "lr", "diri-gmean", "diri-gtrim", "diri-prod", "ann-direct", "diri-direct", "temperature",
         "dirichlet-kull"]


def main(folder: str) -> None:
    c = pd.read_csv(Path(folder) / "comparison.csv")
    done = sorted(c.loc[c["CR_ours"].notna(), "dataset"].unique())
    c = c[c["dataset"].isin(done)]
    for (clf, red), g in c.groupby(["classifier", "reduction"]):
        print(f"\n**{clf.upper()}, {red}** (Cal ours / thesis; CR ours / thesis)\n")
        rows = []
        for m in [m for m in ORDER if m in set(g["method"])]:
            gm = g[g["method"] == m].set_index("dataset")
            cells = []
            for d in done:
                if d not in gm.index:
                    cells.append("")
                    continue
                r = gm.loc[d]
                f = lambda v: "-" if pd.isna(v) else f"{v:.3f}"  # noqa: E731
                cells.append(f"{f(r['Cal_ours'])} / {f(r['Cal_thesis'])}; {f(r['CR_ours'])} / {f(r['CR_thesis'])}")
            rows.append([m, *cells])
        print("| method | " + " | ".join(done) + " |")
        print("|---" * (len(done) + 1) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
