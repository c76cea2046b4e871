"""Tables, figures and the HTML report of the Minary et al. (2019) reproduction.

:func:`write_outputs` writes ``summary_error_rates.csv``, ``claims.csv`` and ``report.html`` next
to the result CSVs. The report reuses the machinery of :mod:`evstat.report` (deterministic inline
SVG figures, the table macro and the style sheet) with its own template
(``evstat/experiments/templates/minary2019.html.j2``): one self-contained file, CSS inline,
figures as inline SVG, no JavaScript and no external URL.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evstat.experiments.claims import (
    Comparison,
    claims_frame,
    claims_table,
    frontier_cells,
    pooled_curves,
    verdict,
)
from evstat.experiments.methods import METHODS
from evstat.experiments.minary_design import CURVE_CAL_SIZES, DATASETS, FIG8_CAL_SIZES
from evstat.io.atomic import write_text

__all__ = [
    "curve_summary",
    "error_summary",
    "fig4",
    "fig6",
    "fig7",
    "fig8",
    "fig9_10",
    "machine_info",
    "render_html",
    "svm_sensitivity",
    "tie_summary",
    "write_outputs",
]

_TEMPLATES = Path(__file__).resolve().parent / "templates"
if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

_FONT: dict[RcKeyType, Any] = {"font.size": 9.0, "axes.titlesize": 10.0, "axes.labelsize": 9.0, "legend.fontsize": 8.5}

#: line style of each method in Figs. 4 and 6
METHOD_STYLE: dict[str, dict[str, Any]] = {
    "joint_logistic": {"color": "#D55E00", "linestyle": "-", "marker": "o"},
    "joint_logistic_prob": {"color": "#000000", "linestyle": ":", "marker": "x"},
    "joint_binning": {"color": "#0072B2", "linestyle": "-", "marker": "s"},
    "joint_binning_prob": {"color": "#56B4E9", "linestyle": ":", "marker": "+"},
    "disjoint_logistic": {"color": "#E69F00", "linestyle": "--", "marker": "^"},
    "disjoint_binning": {"color": "#009E73", "linestyle": "--", "marker": "v"},
    "gbt": {"color": "#CC79A7", "linestyle": "-.", "marker": "D"},
    "eknn": {"color": "#555555", "linestyle": "-.", "marker": "P"},
}
STRATEGY_STYLE: dict[str, dict[str, Any]] = {
    "pessimistic": {"color": "#D55E00", "linestyle": "-", "marker": "o"},
    "optimistic": {"color": "#0072B2", "linestyle": "--", "marker": "^"},
    "probabilistic": {"color": "#000000", "linestyle": ":", "marker": "s"},
}
DATASET_LABEL = {
    "sonar": "Sonar", "ionosphere": "Ionosphere", "pima": "Pima (Diabetes)", "heart": "Heart",
    "australian": "Australian", "wdbc": "WDBC (not in the paper)", "simulated": "Simulated",
}
FIG4_METHODS = ("joint_binning", "joint_binning_prob", "disjoint_binning", "joint_logistic", "joint_logistic_prob",
                "disjoint_logistic")
FIG6_METHODS = ("gbt", "eknn", "joint_binning", "joint_logistic")
MIN_ACCURACY_ROUNDS = 10
"""A mean accuracy over fewer rounds with a decided row than this is reported as undefined."""


# ------------------------------------------------------------------------------ tables
def error_summary(error_rates: pd.DataFrame) -> pd.DataFrame:
    """Mean error rate, its standard error across rounds, rounds used and failed fits per
    (dataset, train3, method).

    Examples
    --------
    >>> er = pd.DataFrame({"round": [0, 1], "dataset": "heart", "train3": 10, "n_cal": 35,
    ...                    "method": "gbt", "error_rate": [0.2, 0.3]})
    >>> error_summary(er)[["mean", "se", "rounds", "failed"]].round(4).to_dict("records")
    [{'mean': 0.25, 'se': 0.05, 'rounds': 2, 'failed': 0}]
    """

    g = error_rates.groupby(["dataset", "train3", "method"], sort=False)["error_rate"]
    out = pd.DataFrame({
        "mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count()), "sd": g.std(ddof=1),
        "rounds": g.count(), "failed": g.size() - g.count(),
    }).reset_index()
    order = {m: i for i, m in enumerate(METHODS)}
    dorder = {d: i for i, d in enumerate(DATASETS)}
    out = out.assign(_d=out["dataset"].map(dorder), _m=out["method"].map(order).fillna(99))
    return out.sort_values(["_d", "train3", "_m"]).drop(columns=["_d", "_m"]).reset_index(drop=True)


def _mean_se(mean: float, se: float, digits: int = 4) -> str:
    if not np.isfinite(mean):
        return "NA"
    if not np.isfinite(se):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ({se:.{digits}f})"


def _signed(mean: float, se: float, digits: int = 4) -> str:
    if not np.isfinite(mean):
        return "NA"
    s = f"{mean:+.{digits}f}"
    return s if not np.isfinite(se) else f"{s} ({se:.{digits}f})"


def _tables_mod() -> Any:
    from evstat.report import tables

    return tables


def _wide_error_table(summary: pd.DataFrame, methods: Sequence[str]) -> Any:
    T = _tables_mod()
    rows = []
    for (d, t), g in summary.groupby(["dataset", "train3"], sort=False):
        gm = g.set_index("method")
        row = [DATASET_LABEL.get(d, d), str(int(t))]
        for m in methods:
            row.append(_mean_se(gm.at[m, "mean"], gm.at[m, "se"]) if m in gm.index else "")
        rows.append(row)
    cols = ["Data set", "#Train3"] + [METHODS[m].label for m in methods]
    return T.Table(
        title="Mean test error rate (standard error across rounds) by data set, size of the third training set and method",
        columns=cols, rows=rows, numeric=[False, True] + [True] * len(methods),
    )


def _overall_table(error_rates: pd.DataFrame, methods: Sequence[str]) -> Any:
    """Mean over the #Train3 sizes: per round average over sizes, then mean and SE over rounds."""

    T = _tables_mod()
    per_round = error_rates.groupby(["dataset", "method", "round"])["error_rate"].mean()
    g = per_round.groupby(level=["dataset", "method"])
    s = pd.DataFrame({"mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count())})
    rows = []
    for d in [d for d in DATASETS if d in set(error_rates["dataset"])]:
        row = [DATASET_LABEL.get(d, d)]
        for m in methods:
            row.append(_mean_se(s.at[(d, m), "mean"], s.at[(d, m), "se"]) if (d, m) in s.index else "")
        rows.append(row)
    return T.Table(
        title="Mean test error rate averaged over the #Train3 sizes (standard error across rounds)",
        columns=["Data set"] + [METHODS[m].label for m in methods], rows=rows,
        numeric=[False] + [True] * len(methods),
        notes=["Each round's error rates are first averaged over the sizes of the data set, then the mean "
               "and its standard error are taken over rounds."],
    )


def _fig8_table(reject_015: pd.DataFrame) -> Any:
    T = _tables_mod()
    rows = []
    for (nc, s), g in reject_015.groupby(["n_cal", "strategy"], sort=False):
        cells = [str(int(nc)), s]
        n_acc = int(g["accuracy"].notna().sum())
        n_dec = int(g["n_decided"].sum())
        for col in ("error_rate", "accuracy", "reject_rate"):
            v = g[col].dropna()
            if col == "accuracy" and n_acc < MIN_ACCURACY_ROUNDS:
                cells.append(f"undefined ({n_dec} rows decided in {n_acc} rounds)")
                continue
            cells.append(_mean_se(v.mean(), v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan))
        acc_pooled = (g["n_decided"] - g["n_errors"]).sum() / n_dec if n_dec else np.nan
        cells.append(f"{acc_pooled:.4f} ({n_dec} rows)" if np.isfinite(acc_pooled) else "undefined (0 rows)")
        cells.append(str(n_acc))
        rows.append(cells)
    return T.Table(
        title="Decisions at R_rej = 0.15 on 100 simulated test rows (Fig. 8): mean over rounds (standard error)",
        columns=["Calibration rows", "Strategy", "Error rate", "Accuracy", "Reject rate", "Pooled accuracy",
                 "Rounds with an accuracy"],
        rows=rows, numeric=[True, False, True, True, True, True, True],
        notes=["Accuracy = correct / decided; a round in which every test row is rejected has no accuracy and is "
               "left out of the mean accuracy, which is reported as undefined when fewer than "
               f"{MIN_ACCURACY_ROUNDS} rounds decided any row. Pooled accuracy = total correct / total decided over "
               "rounds, with the number of decided rows."],
    )


def _claims_tables(comparisons: Sequence[Comparison], sanity: bool = False) -> tuple[Any, list[dict[str, Any]]]:
    T = _tables_mod()
    comparisons = [c for c in comparisons if c.sanity == sanity]
    rows = []
    details = []
    by_claim: dict[str, list[Comparison]] = {}
    for c in comparisons:
        by_claim.setdefault(c.claim, []).append(c)
    for claim, comps in by_claim.items():
        tot = np.array([c.counts() for c in comps]).sum(axis=0)
        overall = verdict(int(tot[0]), int(tot[1]), int(sum(len(c.cells) for c in comps)))
        items = []
        if any(c.kind == "frontier" for c in comps) or claim.startswith("Joint binning is not always"):
            overall = comps[0].verdict if len(comps) == 1 else overall
        for c in comps:
            n_for, n_against, n_unclear = c.counts()
            rows.append([claim, c.comparison, f"{n_for} / {n_against} / {n_unclear}",
                         _signed(c.pooled["mean"], c.pooled["se"]), c.verdict])
            cells = c.cells.reset_index()
            crow = []
            for _, r in cells.iterrows():
                idx = [str(v) for v in r.iloc[: c.cells.index.nlevels]]
                if c.cells.index.nlevels == 2:
                    idx[0] = DATASET_LABEL.get(idx[0], idx[0])
                elif idx[0] in DATASET_LABEL:
                    idx[0] = DATASET_LABEL[idx[0]]
                crow.append(idx + [_signed(r["mean"], r["se"]), str(int(r["n"])) if np.isfinite(r["n"]) else "0",
                                   r["status"]])
            heads = list(c.cells.index.names)
            heads = ["Data set" if h == "dataset" else "#Train3" if h == "train3" else (h or "cell").capitalize()
                     for h in heads]
            items.append({"comparison": c.comparison, "verdict": c.verdict, "kind": c.kind,
                          "table": T.Table(title=c.comparison, columns=heads + ["Mean (SE)", "Rounds", "Status"],
                                           rows=crow, numeric=[False] * len(heads) + [True, True, False])})
        details.append({"claim": claim, "finding": comps[0].finding, "verdict": overall,
                        "counts": tuple(int(v) for v in tot), "comparisons": items})
    table = T.Table(
        title="Sanity checks (they hold by construction)" if sanity else "The paper's findings against our numbers",
        columns=["Claim", "Comparison (positive = as the paper says)", "Cells for / against / unclear",
                 "Pooled difference (SE)", "Verdict"],
        rows=rows, numeric=[False, False, True, True, False],
        notes=["A cell is a (data set, #Train3) pair for the error-rate claims, a calibration size or a data set for "
               "the reject-option claims. 'For' = the mean difference lies more than 2 standard errors on the "
               "paper's side (for 'nearly equal': the mean +/- 2 SE lies within +/-0.01); 'against' = more than 2 "
               "standard errors on the other side (outside the margin); 'unclear' otherwise."],
    )
    return table, details


def _failure_table(error_rates: pd.DataFrame, reject_curves: pd.DataFrame) -> Any | None:
    T = _tables_mod()
    notes = error_rates[error_rates["note"].fillna("").astype(str).str.len() > 0]
    rows = []
    for (d, m), g in notes.groupby(["dataset", "method"], sort=False):
        failed = int(g["error_rate"].isna().sum())
        texts = g["note"].astype(str).str.slice(0, 160).value_counts()
        rows.append([DATASET_LABEL.get(d, d), METHODS[m].label if m in METHODS else m, str(failed), str(len(g)),
                     f"{texts.index[0]} ({int(texts.iloc[0])}x)" + (f"; {len(texts) - 1} other messages" if len(texts) > 1 else "")])
    rn = reject_curves[reject_curves["note"].fillna("").astype(str).str.len() > 0] if len(reject_curves) else reject_curves
    if len(rn):
        for d, g in rn.groupby("dataset", sort=False):
            units = g[["round", "n_cal"]].drop_duplicates()
            rows.append([DATASET_LABEL.get(d, d), "Reject curves (joint logistic)", str(len(units)), str(len(units)),
                         str(g["note"].iloc[0])[:160]])
    if not rows:
        return None
    return T.Table(title="Fits with a note (failures and warnings)",
                   columns=["Data set", "Method", "Failed fits", "Fits with a note", "Most frequent note"],
                   rows=rows, numeric=[False, False, True, True, False],
                   notes=["A failed fit has no error rate in that round; the means above are over the other rounds."])


def tie_summary(error_rates: pd.DataFrame) -> pd.DataFrame:
    """Tied test rows per (data set, #Train3, method): mean count per round, mean share of the
    test rows, rounds with any tie, rounds.

    Examples
    --------
    >>> er = pd.DataFrame({"round": [0, 1], "dataset": "heart", "train3": 10, "method": "gbt",
    ...                    "n_test": 70, "n_ties": [7, 0]})
    >>> tie_summary(er)[["mean_ties", "share", "rounds_with_ties"]].round(4).to_dict("records")
    [{'mean_ties': 3.5, 'share': 0.05, 'rounds_with_ties': 1}]
    """

    f = error_rates.dropna(subset=["n_ties"])
    g = f.groupby(["dataset", "train3", "method"], sort=False)
    out = pd.DataFrame({
        "mean_ties": g["n_ties"].mean(), "share": g["n_ties"].sum() / g["n_test"].sum(),
        "rounds_with_ties": g["n_ties"].apply(lambda v: int((v > 0).sum())), "rounds": g.size(),
    }).reset_index()
    order = {m: i for i, m in enumerate(METHODS)}
    dorder = {d: i for i, d in enumerate(DATASETS)}
    out = out.assign(_d=out["dataset"].map(dorder), _m=out["method"].map(order).fillna(99))
    return out.sort_values(["_d", "train3", "_m"]).drop(columns=["_d", "_m"]).reset_index(drop=True)


def _tie_table(error_rates: pd.DataFrame, methods: Sequence[str], policy: str) -> Any | None:
    if "n_ties" not in error_rates or error_rates["n_ties"].isna().all():
        return None
    T = _tables_mod()
    ts = tie_summary(error_rates)
    rows = []
    for (d, t), g in ts.groupby(["dataset", "train3"], sort=False):
        gm = g.set_index("method")
        row = [DATASET_LABEL.get(d, d), str(int(t))]
        for m in methods:
            row.append(f"{100 * gm.at[m, 'share']:.1f}% ({gm.at[m, 'mean_ties']:.1f})" if m in gm.index else "")
        rows.append(row)
    rule = ("class 0 or 1 at random (probability 1/2, from the round's seed)" if policy == "random"
            else "class 0")
    return T.Table(
        title="Tied test rows without reject: share of the test rows (mean count per round)",
        columns=["Data set", "#Train3"] + [METHODS[m].label for m in methods], rows=rows,
        numeric=[False, True] + [True] * len(methods),
        notes=[f"A tie is a test row whose two classes have equal expected costs (Bel({{1}}) = Bel({{0}}), e.g. a "
               f"vacuous mass from an empty cell, an empty ball or far neighbours; p = 1/2 for a probabilistic "
               f"method). Every method decides a tie the same way: {rule}."],
    )


def curve_summary(reject_curves: pd.DataFrame) -> pd.DataFrame:
    """Figs. 9-10 both ways: the pooled curves (:func:`~evstat.experiments.claims.pooled_curves`)
    and the per-round averages with their spread.

    Per (data set, calibration size, strategy, R_rej): ``error_rate``, ``accuracy`` (pooled: total
    errors / total test rows, total correct / total decided), ``decided`` (total decided rows),
    ``error_mean``, ``error_sd`` (across rounds), ``accuracy_mean``, ``accuracy_sd`` (across the
    ``accuracy_rounds`` rounds that decided any row), ``rounds``.

    Examples
    --------
    >>> rc = pd.DataFrame({"round": [0, 1], "dataset": "heart", "n_cal": 15, "strategy": "pessimistic",
    ...                    "reject_cost": 0.1, "n_test": 100, "n_decided": [50, 0], "n_errors": [5, 0]})
    >>> r = curve_summary(rc).iloc[0]
    >>> float(r["accuracy"]), float(r["accuracy_mean"]), int(r["accuracy_rounds"]), float(r["error_mean"])
    (0.9, 0.9, 1, 0.025)
    """
    f = reject_curves.dropna(subset=["n_decided", "n_errors"]).copy()
    f["err"] = f["n_errors"] / f["n_test"]
    f["acc"] = (f["n_decided"] - f["n_errors"]) / f["n_decided"].where(f["n_decided"] > 0)
    keys = ["dataset", "n_cal", "strategy", "reject_cost"]
    g = f.groupby(keys, sort=False)
    per = pd.DataFrame({
        "decided": g["n_decided"].sum(), "error_mean": g["err"].mean(), "error_sd": g["err"].std(ddof=1),
        "accuracy_mean": g["acc"].mean(), "accuracy_sd": g["acc"].std(ddof=1),
        "accuracy_rounds": g["acc"].count(),
    }).reset_index()
    pooled = pooled_curves(reject_curves)
    out = pooled.merge(per, on=keys, how="left")
    return out[keys + ["error_rate", "accuracy", "decided", "error_mean", "error_sd", "accuracy_mean", "accuracy_sd",
                       "accuracy_rounds", "rounds"]]


# ------------------------------------------------------------------------------ figures
def _figure(width: float, height: float, nrows: int = 1, ncols: int = 1) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(nrows, ncols, squeeze=False)


def _grid(n: int) -> tuple[int, int]:
    ncols = 3 if n >= 3 else n
    return int(np.ceil(n / ncols)), ncols


def _error_panels(summary: pd.DataFrame, methods: Sequence[str], datasets: Sequence[str]) -> Any:
    nrows, ncols = _grid(len(datasets))
    fig, axes = _figure(3.6 * ncols, 2.9 * nrows + 0.7, nrows, ncols)
    handles = {}
    for k, d in enumerate(datasets):
        ax = axes[k // ncols, k % ncols]
        sd = summary[summary["dataset"] == d]
        for m in methods:
            g = sd[sd["method"] == m]
            if g.empty:
                continue
            st = METHOD_STYLE.get(m, {})
            h = ax.errorbar(g["train3"], g["mean"], yerr=g["se"].fillna(0.0), capsize=2, linewidth=1.3,
                            markersize=4.5, label=METHODS[m].label, **st)
            handles[m] = h
        ax.set_title(DATASET_LABEL.get(d, d))
        ax.set_xlabel("#Train3 (rows training the third classifier)")
        ax.set_ylabel("Mean test error rate")
        ax.grid(True, color="0.88", linewidth=0.6)
        ax.set_axisbelow(True)
    for k in range(len(datasets), nrows * ncols):
        axes[k // ncols, k % ncols].set_visible(False)
    if handles:
        fig.legend([handles[m] for m in methods if m in handles], [METHODS[m].label for m in methods if m in handles],
                    loc="outside lower center", ncols=min(3, len(handles)), frameon=False)
    return fig


def fig4(summary: pd.DataFrame, datasets: Sequence[str]) -> Any:
    """Fig. 4: mean error rate against #Train3, binning and logistic, joint and disjoint.

    ``summary`` is :func:`error_summary` of the error rates; returns a matplotlib Figure with
    one panel per data set.

    Examples
    --------
    >>> er = pd.DataFrame({"round": [0, 1] * 4, "dataset": "heart", "train3": np.repeat([10, 60], 4),
    ...                    "method": np.tile(["joint_logistic"] * 2 + ["joint_binning"] * 2, 2),
    ...                    "error_rate": [0.2, 0.22, 0.25, 0.27, 0.18, 0.2, 0.22, 0.24]})
    >>> fig = fig4(error_summary(er), ["heart"])
    >>> [ax.get_title() for ax in fig.axes if ax.get_visible()]
    ['Heart']
    """
    return _error_panels(summary, FIG4_METHODS, datasets)


def fig6(summary: pd.DataFrame, datasets: Sequence[str]) -> Any:
    """Fig. 6: mean error rate against #Train3, GBT and EkNN against the evidential joint calibrations."""
    return _error_panels(summary, FIG6_METHODS, datasets)


def fig7(front: Any) -> Any:
    """Fig. 7: reject regions (R_rej = 0.15) in the feature space of the simulated data.

    Examples
    --------
    >>> from evstat.experiments.minary2019 import frontiers
    >>> fig = fig7(frontiers(2019, grid=9))
    >>> [ax.get_title() for ax in fig.axes]
    ['Joint logistic calibration on 200 rows', 'Joint logistic calibration on 15 rows']
    """
    from matplotlib.lines import Line2D

    sizes = sorted(front.cal, reverse=True)
    fig, axes = _figure(5.0 * len(sizes), 4.9, 1, len(sizes))
    for k, nc in enumerate(sizes):
        ax = axes[0, k]
        cal = front.cal[nc]
        for c, mk, col in ((0, "o", "#0072B2"), (1, "^", "#E69F00")):
            pts = cal[cal["y"] == c]
            ax.scatter(pts["x1"], pts["x2"], s=12, marker=mk, facecolors="none", edgecolors=col, linewidths=0.8,
                       label=f"calibration row, class {c}")
        for s in ("pessimistic", "probabilistic", "optimistic"):
            z = (front.decisions[(nc, s)] == 2).astype(float)
            st = STRATEGY_STYLE[s]
            if 0.0 < z.mean() < 1.0:
                ax.contour(front.x1, front.x2, z, levels=[0.5], colors=[st["color"]], linestyles=[st["linestyle"]],
                           linewidths=1.6)
        ax.set_title(f"Joint logistic calibration on {nc} rows")
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
        ax.set_xlim(front.x1[0], front.x1[-1])
        ax.set_ylim(front.x2[0], front.x2[-1])
    handles = [Line2D([], [], color=STRATEGY_STYLE[s]["color"], linestyle=STRATEGY_STYLE[s]["linestyle"], linewidth=1.6,
                      label=f"{s}: border of the reject region (rejected {100 * front.reject_share[(sizes[-1], s)]:.0f}% / "
                            f"{100 * front.reject_share[(sizes[0], s)]:.0f}% of the plane at {sizes[-1]} / {sizes[0]} rows)")
               for s in ("pessimistic", "probabilistic", "optimistic")]
    fig.legend(handles=handles, loc="outside lower center", ncols=1, frameon=False)
    return fig


def fig8(reject_015: pd.DataFrame) -> Any:
    """Fig. 8: mean error rate and accuracy at R_rej = 0.15 of the three strategies.

    Examples
    --------
    >>> r15 = pd.DataFrame({"round": 0, "n_cal": [200, 200, 200, 15, 15, 15],
    ...                     "strategy": ["pessimistic", "optimistic", "probabilistic"] * 2,
    ...                     "error_rate": [0.02, 0.07, 0.05, 0.0, 0.16, 0.05],
    ...                     "accuracy": [0.94, 0.9, 0.92, np.nan, 0.82, 0.9]})
    >>> [ax.get_title() for ax in fig8(r15).axes]
    ['200 calibration rows', '15 calibration rows']
    """
    sizes = sorted(reject_015["n_cal"].unique(), reverse=True)
    fig, axes = _figure(4.4 * len(sizes), 3.8, 1, len(sizes))
    for k, nc in enumerate(sizes):
        ax = axes[0, k]
        g = reject_015[reject_015["n_cal"] == nc]
        for s in ("pessimistic", "optimistic", "probabilistic"):
            gs = g[g["strategy"] == s]
            e, a = gs["error_rate"].dropna(), gs["accuracy"].dropna()
            if e.empty:
                continue
            se_e = e.std(ddof=1) / np.sqrt(len(e)) if len(e) > 1 else 0.0
            se_a = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else 0.0
            st = STRATEGY_STYLE[s]
            ax.errorbar([e.mean()], [a.mean() if len(a) else np.nan], xerr=[se_e], yerr=[se_a], color=st["color"],
                        marker=st["marker"], markersize=7, capsize=3, linestyle="none", label=s)
        ax.set_title(f"{int(nc)} calibration rows")
        ax.set_xlabel("Mean error rate")
        ax.set_ylabel("Mean accuracy")
        ax.grid(True, color="0.88", linewidth=0.6)
        ax.legend(frameon=False)
    return fig


def fig9_10(reject_curves: pd.DataFrame, datasets: Sequence[str]) -> Any:
    """Figs. 9-10: accuracy against error rate as R_rej goes from 0 to 1, 45 and 15 rows: the curves
    pooled over rounds (markers) and the per-round averages with a band of +/- one standard
    deviation across rounds (thin line; accuracy averaged over the rounds that decided a row,
    drawn where at least 10 rounds did).

    Examples
    --------
    >>> rc = pd.DataFrame({"round": 0, "dataset": "sonar", "n_cal": [45, 45, 15, 15], "strategy": "pessimistic",
    ...                    "reject_cost": [0.1, 0.5] * 2, "n_test": 50, "n_decided": [20, 50, 5, 50],
    ...                    "n_errors": [1, 10, 0, 12]})
    >>> [ax.get_title() for ax in fig9_10(rc, ["sonar"]).axes]
    ['Sonar, 45 calibration rows', 'Sonar, 15 calibration rows']
    """
    pc = curve_summary(reject_curves)
    sizes = sorted(pc["n_cal"].unique(), reverse=True)
    fig, axes = _figure(4.2 * len(sizes), 2.8 * len(datasets) + 0.5, len(datasets), len(sizes))
    for i, d in enumerate(datasets):
        for k, nc in enumerate(sizes):
            ax = axes[i, k]
            for s in ("pessimistic", "optimistic", "probabilistic"):
                g = pc[(pc["dataset"] == d) & (pc["n_cal"] == nc) & (pc["strategy"] == s)].sort_values("reject_cost")
                st = STRATEGY_STYLE[s]
                ax.plot(g["error_rate"], g["accuracy"], color=st["color"], linestyle=st["linestyle"], marker=st["marker"],
                        markersize=2.5, linewidth=1.3, label=f"{s} (pooled)")
                # per-round averages (accuracy over the rounds that decided a row) with +/- one SD band
                ok = g["accuracy_rounds"] >= MIN_ACCURACY_ROUNDS
                ax.fill_between(g["error_mean"][ok], (g["accuracy_mean"] - g["accuracy_sd"])[ok],
                                (g["accuracy_mean"] + g["accuracy_sd"])[ok], color=st["color"], alpha=0.12,
                                linewidth=0)
                ax.plot(g["error_mean"][ok], g["accuracy_mean"][ok], color=st["color"], linestyle=st["linestyle"],
                        linewidth=0.8, alpha=0.7, label=f"{s} (per-round mean +/- SD)")
            ax.set_title(f"{DATASET_LABEL.get(d, d)}, {int(nc)} calibration rows")
            ax.set_xlabel("Error rate")
            ax.set_ylabel("Accuracy")
            ax.grid(True, color="0.88", linewidth=0.6)
            if i == 0 and k == 0:
                ax.legend(frameon=False, fontsize=6.5)
    return fig


def _svg(fig: Any, prefix: str, label: str) -> Any:
    import matplotlib

    from evstat.report.svg import figure_svg

    with matplotlib.rc_context(_FONT):
        return figure_svg(fig, prefix, label=label)


# ------------------------------------------------------------------------------ report
def machine_info() -> dict[str, str]:
    """Cores (``os.cpu_count()``), CPU model (``/proc/cpuinfo``), platform and Python.

    Examples
    --------
    >>> sorted(machine_info())
    ['cores', 'cpu', 'platform', 'python']
    """
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cores": str(os.cpu_count()), "cpu": cpu, "platform": platform.platform(),
            "python": platform.python_version()}


def _versions() -> str:
    import importlib.metadata as md

    parts = []
    for pkg in ("evstat", "numpy", "scipy", "pandas", "statsmodels", "scikit-learn", "joblib", "matplotlib"):
        try:
            parts.append(f"{pkg} {md.version(pkg)}")
        except md.PackageNotFoundError:
            continue
    return ", ".join(parts)


def render_html(results: Any, command: str | None = None, date: Any = None, frontier_grid: int = 81) -> tuple[str, list[Comparison]]:
    """The HTML text of the report and the tested comparisons (see :func:`write_outputs`)."""
    from jinja2 import ChoiceLoader, Environment, FileSystemLoader, StrictUndefined

    from evstat.experiments.partition import TABLE2

    import matplotlib

    from evstat.report import TEMPLATES as report_templates
    env = Environment(loader=ChoiceLoader([FileSystemLoader(str(_TEMPLATES)), FileSystemLoader(str(report_templates))]),
                      autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      keep_trailing_newline=True)
    css = (report_templates / "style.css").read_text(encoding="utf-8")
    er, rc, r15 = results.error_rates, results.reject_curves, results.reject_015
    datasets = [d for d in results.datasets if d in set(er["dataset"])]
    summary = error_summary(er)
    front = results.frontiers(grid=frontier_grid)
    comparisons = claims_table(results, front)
    claims_tbl, claim_details = _claims_tables(comparisons)
    sanity_tbl, sanity_details = _claims_tables(comparisons, sanity=True)
    figures = []
    with matplotlib.rc_context(_FONT):
        m4 = [m for m in FIG4_METHODS if m in results.methods]
        m6 = [m for m in FIG6_METHODS if m in results.methods]
        if len(er):
            figures.append({"id": "fig4", "title": "Fig. 4: binning and logistic calibration, joint and disjoint",
                            "caption": "Mean test error rate (bars: +/- one standard error across rounds) against the "
                                       "number of rows of the third classifier's training set, for evidential joint "
                                       "('multi') and disjoint calibrations by binning and logistic regression, and the "
                                       "probabilistic joint calibrations.",
                            "svg": _svg(fig4(summary[summary["method"].isin(m4)], datasets), "fig4", "Fig. 4")})
            if {"gbt", "eknn"} & set(m6):
                figures.append({"id": "fig6", "title": "Fig. 6: evidential trainable combiners",
                                "caption": "Mean test error rate (+/- one standard error) of the GBT ball classifier "
                                           "(r = 1) and the evidential k-NN (kappa = 15) on the score vectors, and of "
                                           "the evidential joint binning and logistic calibrations.",
                                "svg": _svg(fig6(summary[summary["method"].isin(m6)], datasets), "fig6", "Fig. 6")})
        figures.append({"id": "fig7", "title": "Fig. 7: decision frontiers at R_rej = 0.15",
                        "caption": f"Simulated data (one draw): three SVMs trained on 30 rows each, evidential joint "
                                   f"logistic calibration on {FIG8_CAL_SIZES[0]} rows (left) and on {FIG8_CAL_SIZES[1]} "
                                   "of them (right; the calibration rows are drawn). Each closed line surrounds a part "
                                   "of the plane where a strategy decides a class (around each class's rows); outside "
                                   "its lines the strategy rejects. Far from the SVMs' training rows the RBF decision "
                                   "values tend to the SVMs' intercepts, which carry little evidence, so every strategy "
                                   "rejects there. A strategy without a line rejects the whole plane. Evaluated on a "
                                   f"{frontier_grid} x {frontier_grid} grid.",
                        "svg": _svg(fig7(front), "fig7", "Fig. 7")})
        if len(r15):
            figures.append({"id": "fig8", "title": "Fig. 8: error rate and accuracy at R_rej = 0.15",
                            "caption": "Mean error rate and mean accuracy (+/- one standard error) over rounds of 100 "
                                       "fresh simulated test rows, SVMs on 3 x 30 rows, calibration on 200 (left) and "
                                       "15 (right) rows.",
                            "svg": _svg(fig8(r15), "fig8", "Fig. 8")})
        if len(rc):
            first = [d for d in ("simulated", "australian", "pima", "wdbc") if d in set(rc["dataset"])]
            second = [d for d in ("heart", "ionosphere", "sonar") if d in set(rc["dataset"])]
            for fid, ds, what in (("fig9", first, "Fig. 9"), ("fig10", second, "Fig. 10")):
                if ds:
                    figures.append({"id": fid, "title": f"{what}: accuracy against error rate as R_rej varies",
                                    "caption": f"Reject cost R_rej from 0 to 1 in steps of 0.025; error rate and accuracy "
                                               f"pooled over rounds (lines with markers), and per-round averages "
                                               f"with a band of +/- one standard deviation across rounds (thin lines; "
                                               f"the accuracy averaged over the rounds that decided a row, drawn "
                                               f"where at least {MIN_ACCURACY_ROUNDS} rounds did). SVMs on 3 x 30 rows, evidential joint logistic "
                                               f"calibration on {CURVE_CAL_SIZES[0]} rows (left) and {CURVE_CAL_SIZES[1]} "
                                               "of them (right), 100 test rows (Sonar 50).",
                                    "svg": _svg(fig9_10(rc, ds), fid, what)})
    methods_in = [m for m in METHODS if m in set(er["method"])]
    tables = {
        "overall": _overall_table(er, methods_in) if len(er) else None,
        "by_size": _wide_error_table(summary, methods_in) if len(er) else None,
        "fig8": _fig8_table(r15) if len(r15) else None,
        "failures": _failure_table(er, rc),
        "claims": claims_tbl,
        "sanity": sanity_tbl if sanity_details else None,
        "ties": _tie_table(er, methods_in, getattr(results, "tie", "first")) if len(er) else None,
    }
    info = machine_info()
    table2 = [[DATASET_LABEL.get(d, d), str(TABLE2[d].train1), str(TABLE2[d].train2),
               ", ".join(str(v) for v in TABLE2[d].train3), str(TABLE2[d].test)] for d in datasets]
    T = _tables_mod()
    tables["table2"] = T.Table(title="Sizes per round (Table 2 of the paper; WDBC, not in the paper, takes Australian's sizes)",
                               columns=["Data set", "#Train1", "#Train2", "#Train3", "#Test"], rows=table2,
                               numeric=[False, True, True, False, True])
    date_text = str(date) if date is not None else _dt.date.today().isoformat()
    context = {
        "title": "Reproduction of Minary et al. (2019), section 5: evidential joint calibration of SVM ensembles",
        "css": css, "figures": figures, "tables": tables, "claims": claim_details,
        "rounds": results.rounds, "datasets": [DATASET_LABEL.get(d, d) for d in datasets],
        "seed": results.seed, "command": command or "", "machine": info, "versions": _versions(),
        "runs": list(getattr(results, "runs", [])), "date": date_text,
        "methods": [METHODS[m] for m in methods_in],
        "sanity_checks": sanity_details,
        "svm": getattr(results, "svm", "default"), "tie": getattr(results, "tie", "first"),
        "frontiers": frontier_cells(front).to_dict("records"),
    }
    html = env.get_template("minary2019.html.j2").render(**context)
    return html, comparisons


def write_outputs(results: Any, command: str | None = None, date: Any = None, frontier_grid: int = 81) -> Path:
    """Write ``summary_error_rates.csv``, ``ties.csv`` (:func:`tie_summary`),
    ``reject_curves_summary.csv`` (:func:`curve_summary`), ``claims.csv`` and ``report.html``
    into ``results.out``.

    ``results`` is a :class:`evstat.experiments.minary2019.StudyResults` (from
    :func:`~evstat.experiments.minary2019.run_minary2019` or
    :func:`~evstat.experiments.minary2019.load_results`), so a report can be remade from the CSV
    files; ``date`` fixes the date line, ``frontier_grid`` the resolution of Fig. 7.

    Examples
    --------
    >>> import tempfile
    >>> from evstat.experiments.minary2019 import run_minary2019
    >>> res = run_minary2019(tempfile.mkdtemp(), rounds=1, datasets=["heart"], quiet=True,
    ...                      methods=["joint_binning"], report=False)
    >>> path = write_outputs(res, date="2024-01-01", frontier_grid=9)
    >>> html = path.read_text(encoding="utf-8")
    >>> html.startswith("<!DOCTYPE html>"), "<script" in html, (path.parent / "claims.csv").exists()
    (True, False, True)
    """
    out = Path(results.out)
    summary = error_summary(results.error_rates)
    _csv(summary, out / "summary_error_rates.csv")
    if "n_ties" in results.error_rates:
        _csv(tie_summary(results.error_rates), out / "ties.csv")
    if len(results.reject_curves):
        _csv(curve_summary(results.reject_curves), out / "reject_curves_summary.csv")
    html, comparisons = render_html(results, command=command, date=date, frontier_grid=frontier_grid)
    _csv(claims_frame(comparisons), out / "claims.csv")
    path = out / "report.html"
    write_text(path, html, encoding="utf-8", newline="\n")
    return path


def _csv(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` as CSV at ``path``, atomically (evstat.io.atomic)."""
    write_text(path, frame.to_csv(index=False, float_format="%.6g", lineterminator="\n"), encoding="utf-8", newline="")


def svm_sensitivity(default_dir: str | Path, tuned_dir: str | Path) -> pd.DataFrame:
    """The verdicts of the two SVM settings side by side, from their ``claims.csv`` files.

    Parameters
    ----------
    default_dir, tuned_dir : str or Path
        Folders of a finished run with ``--svm default`` and with ``--svm tuned`` (each holding
        ``claims.csv``, as :func:`write_outputs` writes it).

    Returns
    -------
    pandas.DataFrame
        One row per comparison present in either run: ``type``, ``claim``, ``comparison``,
        ``verdict_default``, ``pooled_default``, ``verdict_tuned``, ``pooled_tuned`` and
        ``depends_on_svm`` (True when the verdicts differ).

    Examples
    --------
    >>> import tempfile
    >>> a, b = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    >>> row = {"type": "finding", "claim": "c", "comparison": "x", "pooled_mean": 0.01}
    >>> pd.DataFrame([{**row, "verdict": "supported"}]).to_csv(a / "claims.csv", index=False)
    >>> pd.DataFrame([{**row, "verdict": "mixed"}]).to_csv(b / "claims.csv", index=False)
    >>> svm_sensitivity(a, b)[["verdict_default", "verdict_tuned", "depends_on_svm"]].values.tolist()
    [['supported', 'mixed', True]]
    """
    keys = ["type", "claim", "comparison"]
    frames = []
    for name, d in (("default", default_dir), ("tuned", tuned_dir)):
        c = pd.read_csv(Path(d) / "claims.csv")
        frames.append(c[keys + ["verdict", "pooled_mean"]].rename(
            columns={"verdict": f"verdict_{name}", "pooled_mean": f"pooled_{name}"}))
    out = frames[0].merge(frames[1], on=keys, how="outer", sort=False)
    out["depends_on_svm"] = out["verdict_default"].fillna("absent") != out["verdict_tuned"].fillna("absent")
    return out[keys + ["verdict_default", "pooled_default", "verdict_tuned", "pooled_tuned", "depends_on_svm"]]
