"""Extract the result tables 6.3-6.6 and 6.10-6.13 of Gebel (2009) into data/gebel2009_thesis_tables.csv,
and the appendix's Tables A.1-A.4 (every calibrator through the reductions) into
data/gebel2009_thesis_appendix_a.csv.

Reads the plain-text extraction of the thesis (../shared/papers/001_58e0d22b2e95d4a2.txt in the
project's shared folder; pass its path) and writes one row per (table, data set, method) with the
thesis's CR and Cal. Run once; the CSV is committed. B3 (not public) is kept, marked, and
never compared.

    python reports/gebel2009/extract_thesis_tables.py /work/shared/papers/001_58e0d22b2e95d4a2.txt
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

TABLES = {
    "6.3": ("two-class", "svm", "none"),
    "6.4": ("two-class", "ann", "none"),
    "6.5": ("two-class", "nb", "none"),
    "6.6": ("two-class", "tree", "none"),
    "6.10": ("K-class", "svm", "ovr"),
    "6.11": ("K-class", "svm", "pairs"),
    "6.12": ("K-class", "ann", "ovr"),
    "6.13": ("K-class", "ann", "pairs"),
    "A.1": ("K-class", "svm", "ovr"),
    "A.2": ("K-class", "svm", "pairs"),
    "A.3": ("K-class", "ann", "ovr"),
    "A.4": ("K-class", "ann", "pairs"),
}
DATASET_NAMES = {
    "Banknotes": "banknote-swiss", "Breast": "breast-cancer", "Fourclass": "fourclass",
    "German Credit": "german", "Haberman": "haberman", "Heart": "heart", "Ionosphere": "ionosphere",
    "Pima Indians": "pima", "Sonar": "sonar", "B3": "B3", "Balance": "balance", "Ecoli": "ecoli",
    "Glass": "glass", "Iris": "iris", "Segment": "segment", "Vehicle": "vehicle", "Wine": "wine", "Zoo": "zoo",
}
METHODS = [  # (prefix in the text, our name), longest first
    ("Pdiri\ufffdg\ufffdmean", "diri-gmean"), ("Pdiri\ufffdg\ufffdtrim", "diri-gtrim"),
    ("Pdiri\ufffdprod", "diri-prod"), ("Pdiri\ufffddirect", "diri-direct"),
    ("PANN\ufffddirect", "ann-direct"), ("PANN\ufffdrest", "norm"), ("PANN\ufffdpairs", "norm"),
    ("PL2\ufffdSVM", "norm"), ("PANN", "norm"), ("PNB", "own"), ("PTREE", "own"),
    ("Pbay\ufffdalap", "bay-alap"), ("Pav", "av"), ("Pir", "ir"), ("Plr", "lr"), ("Pplr", "plr"),
]
NUM = re.compile(r"(\d*\.\d+|\d+)")


def _dataset_line(text: str) -> list[str] | None:
    """The data set names of a block header line ('German Credit Haberman Heart'), else None."""
    found = []
    rest = text
    for name in sorted(DATASET_NAMES, key=len, reverse=True):
        if name in rest:
            found.append((text.index(name), name))
            rest = rest.replace(name, "")
    if found and not rest.strip():
        return [n for _, n in sorted(found)]
    return None


def main(path: str) -> None:
    lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    rows = []
    starts = [(i, m.group(1)) for i, line in enumerate(lines) if (m := re.search(r"Tab\. ((?:6|A)\.\d+): Perf", line))]
    for (i, table), nxt in zip(starts, [s for s, _ in starts[1:]] + [len(lines)]):
        part, clf, red = TABLES[table]
        datasets: list[str] = []
        for j in range(i + 1, min(nxt, i + 90)):
            text = lines[j].strip()
            ds = _dataset_line(text)
            if ds:
                datasets = ds
                continue
            if text.startswith("P") and "(C|" in text:
                method = next((ours for pre, ours in METHODS if text.startswith(pre + "(")), None)
                values = [float(v) for v in NUM.findall(text.split(")", 1)[1])]
                assert method is not None and len(values) == 2 * len(datasets) == 6, (table, text)
                for d, cr, cal in zip(datasets, values[::2], values[1::2]):
                    rows.append({"table": f"Tab. {table}", "part": part, "classifier": clf, "reduction": red,
                                 "dataset": DATASET_NAMES[d], "method": method, "CR": cr, "Cal": cal,
                                 "line": j + 1})
    data = Path(__file__).resolve().parents[2] / "data"
    for name, keep in (("gebel2009_thesis_tables.csv", lambda t: t.startswith("Tab. 6")),
                       ("gebel2009_thesis_appendix_a.csv", lambda t: t.startswith("Tab. A"))):
        chosen = [r for r in rows if keep(r["table"])]
        out = data / name
        with out.open("w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(chosen[0]))
            w.writeheader()
            w.writerows(chosen)
        print(f"{len(chosen)} rows -> {out}")


if __name__ == "__main__":
    main(sys.argv[1])
