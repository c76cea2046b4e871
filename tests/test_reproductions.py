"""Every ``reports/*/claims.csv`` (and ``claims_by_svm.csv``, ``conclusions.csv``) of the reproductions
(issue 40 item 6):

(a) no row counted as a *finding* is true by construction where the study can tell: a claim that
    no decision goes to a meta-class of cardinality > c, on a data set with at most c classes, cannot
    fail (the frame has no such subset; the real data run without the outlier class); that EC with
    rho = 5 gives fewer outliers or more imprecision than with rho = 3 follows from its mass
    expit(rho - d/dbar), increasing in rho (each decided set at rho = 3 lies in the one at rho = 5);
    a claim about
    the reject-rate ordering of the optimistic, probabilistic and pessimistic strategies follows from
    Bel <= theta_hat <= Pl. Such rows must be typed otherwise (sanity check);
(b) every verdict a README states for a claim (its claims table) equals the verdict in the CSV, and
    the verdicts recompute from the CSVs' own columns where the rule is a function of them (the
    noise rule of credal-knn from ``mean_diff`` and ``se``; minary2019's cell-count rule from
    ``cells_for`` / ``cells_against`` / ``cells``); credal-knn's counts of verdicts by type too.

The checks are functions of a folder, so ``test_*_can_fail`` run them on altered copies in a tmp
dir and see them fail.
"""

from __future__ import annotations

import math
import re
import shutil
from functools import lru_cache
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1] / "reports"
pytestmark = pytest.mark.skipif(not ROOT.is_dir(), reason="reports/ is not part of this installation")

TYPE_COLUMNS = ("type", "kind")
# claims.csv rows are read as (key cells that start the README row, cell index -> expected verdict)


def _claims_files(root: Path) -> list[Path]:
    return sorted(p for pat in ("*/claims.csv", "*/*/claims.csv", "*/claims_by_svm.csv", "*/conclusions.csv",
                                "*/claims_fourth_pass.csv")
                  for p in root.glob(pat))


def _findings(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows counted as findings: ``type`` (or ``kind``) == "finding"; every row when the file has
    no type column (gebel2009: every rule is one of the thesis's statements)."""
    for col in TYPE_COLUMNS:
        if col in frame and frame[col].isin(["finding", "sanity check", "sanity", "secondary"]).any():
            return frame[frame[col] == "finding"]
    return frame


@lru_cache(maxsize=None)
def n_classes(dataset: str) -> int | None:
    """Class count of a data set of the studies, read from the data (None when unknown)."""
    from evstat.experiments import credal_knn as ck

    try:
        df, _ = ck.load_real(dataset)
    except (FileNotFoundError, KeyError, OSError):
        return None
    return int(df["y"].nunique())


_CARDINALITY = re.compile(r"^(?P<ds>[\w-]+) K=\d+: .*meta-class of cardinality > (?P<c>\d+)")
_RHO_MONOTONE = re.compile(r"rho = 5 gives (less outlier|fewer outliers|more imprecision) than rho = 3")
_REJECT_ORDER = re.compile(r"rejects least|rejects most", re.I)


def by_construction(claim: str) -> str | None:
    """Why a claim cannot fail, or None when the study cannot tell that it cannot."""
    m = _CARDINALITY.search(claim)
    if m:
        k = n_classes(m["ds"])
        if k is not None and k <= int(m["c"]):
            return f"{m['ds']} has {k} classes: no meta-class of cardinality > {m['c']} exists"
    if _RHO_MONOTONE.search(claim):
        return ("EC's mass expit(rho - d/dbar) grows with rho: the decided sets at rho = 3 are contained in "
                "those at rho = 5 (no new outlier, no meta-class lost)")
    if _REJECT_ORDER.search(claim):
        return "the reject-rate ordering of the strategies follows from Bel <= theta_hat <= Pl"
    return None


def trivial_findings(root: Path) -> list[str]:
    bad = []
    for path in _claims_files(root):
        frame = pd.read_csv(path)
        text = frame["text"] if "text" in frame and "type" not in frame else frame["claim"]
        for i in _findings(frame).index:
            why = by_construction(str(text[i]))
            if why:
                bad.append(f"{path.relative_to(root)} row {i}: {text[i]!r} ({why})")
    return bad


# -- (b) README verdicts ------------------------------------------------------------------------

def _table_rows(readme: str) -> list[list[str]]:
    rows = []
    for line in readme.splitlines():
        s = line.strip()
        if s.startswith("|") and s.endswith("|") and not set(s) <= set("|-: "):
            rows.append([c.strip().replace("&#124;", "|") for c in s[1:-1].split(" | ")])
    return rows


_BOLD = re.compile(r"\*\*([^*]+)\*\*")


def cell_verdict(cell: str) -> str:
    """The verdict a README cell states: its last bold word(s), else its leading words before ':'."""
    bold = _BOLD.findall(cell)
    if bold:
        return bold[-1].strip()
    return re.split(r"[:(]", cell, maxsplit=1)[0].strip()


def _expect(rows: list[list[str]], key: list[str], checks: dict[int, str], where: str) -> list[str]:
    hits = [r for r in rows if r[:len(key)] == key]
    if not hits:
        return [f"{where}: no README table row for {key!r}"]
    bad = []
    for r in hits:
        for col, want in checks.items():
            got = cell_verdict(r[col]) if col < len(r) else "<missing>"
            if got != want:
                bad.append(f"{where}: README says {got!r}, CSV {want!r} for {key!r}")
    return bad


def readme_mismatches(root: Path) -> list[str]:
    bad: list[str] = []
    # credal-knn: one row per claim, last cell the bold verdict; the counts by type
    folder = root / "credal-knn"
    if (folder / "claims.csv").is_file():
        c = pd.read_csv(folder / "claims.csv")
        readme = (folder / "README.md").read_text(encoding="utf-8")
        rows = _table_rows(readme)
        for _, r in c.iterrows():
            bad += _expect(rows, [r["type"], r["claim"]], {3: r["verdict"]}, "credal-knn")
        if (folder / "claims_fourth_pass.csv").is_file():  # issue 40 item 3's claims, outside the counts
            for _, r in pd.read_csv(folder / "claims_fourth_pass.csv").iterrows():
                bad += _expect(rows, [r["type"], r["claim"]], {3: r["verdict"]}, "credal-knn")
        counts = c.groupby(["type", "verdict"]).size().unstack(fill_value=0)
        head = next((r for r in rows if r[0] == "type" and "holds" in r and "claim" not in r), None)
        if head is None:
            bad.append("credal-knn: no table of verdict counts by type")
        else:
            for t in counts.index:
                row = next((r for r in rows if r[0] == t and len(r) == len(head) and all(x.isdigit() for x in r[1:])),
                           None)
                want = [str(int(counts.at[t, v])) if v in counts else "0" for v in head[1:]]
                if row is None or row[1:] != want:
                    bad.append(f"credal-knn: counts for {t!r}: README {row and row[1:]}, CSV {want}")
            extra = [r[0] for r in rows if len(r) == len(head) and r[0] not in counts.index
                     and all(x.isdigit() for x in r[1:]) and r[0] in ("finding", "secondary", "sanity check")]
            bad += [f"credal-knn: README counts a type {t!r} absent from claims.csv" for t in extra]
    # minary2019: claims_by_svm.csv's two verdicts per (claim, comparison), and each folder's claims.csv
    folder = root / "minary2019"
    if (folder / "claims_by_svm.csv").is_file():
        c = pd.read_csv(folder / "claims_by_svm.csv")
        rows = _table_rows((folder / "README.md").read_text(encoding="utf-8"))
        for _, r in c.iterrows():
            bad += _expect(rows, [r["claim"], r["comparison"]], {2: r["verdict_default"], 3: r["verdict_tuned"]},
                           "minary2019")
        for svm in ("default", "tuned"):
            own = pd.read_csv(folder / f"svm-{svm}" / "claims.csv").set_index(["claim", "comparison"])["verdict"]
            both = c.set_index(["claim", "comparison"])[f"verdict_{svm}"]
            diff = [k for k in both.index if k in own.index and own[k] != both[k]]
            bad += [f"minary2019: claims_by_svm.csv and svm-{svm}/claims.csv differ on {k}" for k in diff]
            # the paper's README section types: a claim's type in the README table headings
    # issue 40 item 3's claims of minary2019: type, claim, comparison, value, verdict
    path = root / "minary2019" / "claims_fourth_pass.csv"
    if path.is_file():
        rows = _table_rows((root / "minary2019" / "README.md").read_text(encoding="utf-8"))
        for _, r in pd.read_csv(path).iterrows():
            bad += _expect(rows, [r["type"], r["claim"]], {4: r["verdict"]}, "minary2019")
    # ramel2018: first cell the claim, last cell the verdict
    folder = root / "ramel2018"
    for name in ("claims.csv", "claims_fourth_pass.csv"):  # the second: issue 40 item 3's claim
        if not (folder / name).is_file():
            continue
        c = pd.read_csv(folder / name)
        rows = _table_rows((folder / "README.md").read_text(encoding="utf-8"))
        for _, r in c.iterrows():
            bad += _expect(rows, [r["claim"], r["kind"]], {4: r["verdict"]}, "ramel2018")
    # gebel2009: "holds" / "does not hold" at the start of the thesis's and our cells
    folder = root / "gebel2009"
    if folder.is_dir():
        rows = _table_rows((folder / "README.md").read_text(encoding="utf-8"))
        for path in sorted(folder.glob("*/claims.csv")) + [folder / "conclusions.csv"]:
            if not path.is_file():
                continue
            c = pd.read_csv(path)
            for _, r in c.iterrows():
                checks = {}
                for col, idx in (("holds_thesis", 2), ("holds_ours", 3)):
                    if isinstance(r[col], (bool, float)) and not (isinstance(r[col], float) and math.isnan(r[col])):
                        checks[idx] = "holds" if bool(r[col]) else "does not hold"
                if checks:
                    bad += _expect(rows, [r["text"]], checks, f"gebel2009/{path.relative_to(folder)}")
    return bad


def recompute_mismatches(root: Path) -> list[str]:
    """Verdicts that are a function of the CSV's own columns, recomputed."""
    bad: list[str] = []
    path = root / "credal-knn" / "claims.csv"
    if path.is_file():
        c = pd.read_csv(path)
        for i, r in c.iterrows():
            if r["claim"].count("every other method"):
                continue  # against eight methods: recomputed from the rates in test_experiments_credal_knn
            if pd.notna(r["se"]):
                m, se = r["mean_diff"], r["se"]
                want = "holds" if m + 2 * se < 0 else "contradicted" if m - 2 * se > 0 else "not resolved"
            elif "cardinality" in r["claim"]:
                want = "holds" if r["mean_diff"] == 0 else "contradicted"
            elif "meta-class rate > 0" in r["claim"]:
                want = "holds" if r["mean_diff"] > 0 else "contradicted"
            else:
                continue
            if want != r["verdict"]:
                bad.append(f"credal-knn row {i}: {r['verdict']!r}, recomputed {want!r}")
            if r["holds"] != (r["verdict"] == "holds"):
                bad.append(f"credal-knn row {i}: column holds disagrees with the verdict")
    from evstat.experiments.claims import verdict

    for path in sorted(root.glob("minary2019/svm-*/claims.csv")):
        c = pd.read_csv(path)
        for i, r in c[c["kind"].isin(["direction", "equivalence"])].iterrows():
            want = verdict(int(r["cells_for"]), int(r["cells_against"]), int(r["cells"]))
            if "not always" in r["claim"]:
                continue  # its own rule (supported with any cell for): the module docstring
            if want != r["verdict"]:
                bad.append(f"{path.relative_to(root)} row {i}: {r['verdict']!r}, recomputed {want!r}")
    return bad


def test_no_finding_is_true_by_construction() -> None:
    assert trivial_findings(ROOT) == []


def test_readme_verdicts_equal_the_csv_verdicts() -> None:
    assert readme_mismatches(ROOT) == []


def test_csv_verdicts_recompute_from_their_columns() -> None:
    assert recompute_mismatches(ROOT) == []


def test_the_rules_know_the_class_counts() -> None:
    assert n_classes("breast-cancer") == 2 and n_classes("iris") == 3
    assert by_construction("breast-cancer K=5: no row is committed to a meta-class of cardinality > 2 (x)")
    assert by_construction("iris K=5: no row is committed to a meta-class of cardinality > 2 (x)") is None


def _copy(tmp_path: Path, *studies: str) -> Path:
    for s in studies:
        shutil.copytree(ROOT / s, tmp_path / s)
    return tmp_path


def test_trivial_finding_check_can_fail(tmp_path) -> None:
    root = _copy(tmp_path, "credal-knn")
    path = root / "credal-knn" / "claims.csv"
    c = pd.read_csv(path)
    rows = c["claim"].str.startswith("breast-cancer K=5: no row")
    assert rows.sum() == 1
    c.loc[rows, "type"] = "finding"
    c.to_csv(path, index=False)
    assert len(trivial_findings(root)) == 1
    # minary2019's reject-rate ordering, typed a finding
    root = _copy(tmp_path / "m", "minary2019")
    path = root / "minary2019" / "svm-tuned" / "claims.csv"
    c = pd.read_csv(path)
    c.loc[c["claim"].str.contains("rejects least"), "type"] = "finding"
    c.to_csv(path, index=False)
    assert trivial_findings(root) and all("svm-tuned" in m for m in trivial_findings(root))


def test_readme_check_can_fail(tmp_path) -> None:
    root = _copy(tmp_path, "credal-knn", "minary2019", "ramel2018", "gebel2009")
    assert readme_mismatches(root) == []
    # a verdict flipped in claims.csv: the README row and the counts table disagree
    path = root / "credal-knn" / "claims.csv"
    c = pd.read_csv(path)
    i = c.index[c["claim"].str.startswith("yeast K=10: no row")][0]
    c.loc[i, "verdict"] = "holds"
    c.to_csv(path, index=False)
    out = readme_mismatches(root)
    assert any("yeast K=10" in m for m in out) and any("counts" in m for m in out)
    assert recompute_mismatches(root)  # 96 rows of cardinality 3 do not make "holds"
    # a README verdict edited by hand
    for study, old, new in (("minary2019", ": **supported** |", ": **mixed** |"),
                            ("ramel2018", "| supported |", "| contradicted |"),
                            ("gebel2009", "| does not hold: mean rank", "| holds: mean rank")):
        readme = root / study / "README.md"
        text = readme.read_text(encoding="utf-8")
        assert old in text
        readme.write_text(text.replace(old, new, 1), encoding="utf-8")
        assert any(m.startswith(study) for m in readme_mismatches(root)), study
    # a cell count altered in minary2019's claims.csv
    path = root / "minary2019" / "svm-default" / "claims.csv"
    c = pd.read_csv(path)
    c.loc[0, "cells_for"] = 0  # 29 cells, none against: "inconclusive", not the committed "supported"
    c.to_csv(path, index=False)
    assert any("svm-default" in m for m in recompute_mismatches(root))
