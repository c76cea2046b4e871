"""Assemble the report's context: overview, comparison, one section per calibrator, footer."""

from __future__ import annotations

import contextlib
import datetime as _dt
import platform
import re
import warnings
from pathlib import Path
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from evstat import metrics
from evstat.calibration.peers import ConformalSets, VennAbersCalibration
from evstat.comparison import compare, named_fits
from evstat.io.forked import ForkedCall
from evstat.plotting import MAX_REGION_CLASSES, applicable_kinds
from evstat.plotting.belt import calibration_belt as fit_belt
from evstat.plotting.data import calibration_scores, evaluation_labels, prediction_cache, predictions
from evstat.plotting.data import rows as n_rows
from evstat.plotting.probability import class_belief
from evstat.report._cost import CONVENTIONAL_COST, REJECT_SHARE, choose_reject_cost, pessimistic_reject_share
from evstat.report._coverage import expected_covered
from evstat.report._explorer import Explorer, explorer, slider_caption
from evstat.report._kexplorer import KExplorer, kclass_explorer
from evstat.report._figures import ReportFigure, comparison_figure, fit_figures
from evstat.report._glossary import GLANCE, GOF_OF_GLANCE, INFO_OF_GLANCE, SHOWN_ELSEWHERE
from evstat.report._kclass import (band_eval, band_note, definitions, kclass_comparison, kclass_decisions, kclass_eval,
                                   kclass_figures, kclass_tables, see)
from evstat.report._outlook import forecasts, outlook_section
from evstat.report.tables import Table, cell, table

#: the reject-cost slider's script (inlined in the page)
EXPLORER_JS = Path(__file__).resolve().parent / "templates" / "explorer.js"
#: the K-class slider's script (inlined in the page)
KEXPLORER_JS = EXPLORER_JS.with_name("kexplorer.js")
#: grid points per axis of the two-class decision-region figure when ``grid`` is None
DEFAULT_GRID = 40

__all__ = ["FitSection", "build_context", "named_fits"]

from evstat.belief import MINARY_STRATEGIES as STRATEGIES  # noqa: E402  (Minary et al.'s three)


@dataclass
class FitSection:
    name: str
    anchor: str
    method: str
    formula: str
    eval_name: str
    #: the heading: the name, with the method in parentheses only when it differs
    title: str = ""
    #: the summary's title without the method (e.g. "Evidential logistic calibration")
    description: str = ""
    #: the summary's header lines not already in the overview
    info: list[tuple[str, str]] = field(default_factory=list)
    #: the summary's own tables (cells, blocks, ...), with explained headers
    summary_tables: list[Table] = field(default_factory=list)
    summary_notes: list[str] = field(default_factory=list)
    coefficients: Table | None = None
    #: the one goodness-of-fit table: the summary's and glance()'s facts, each once
    glance: Table | None = None
    metrics: list[Table] = field(default_factory=list)
    metric_notes: list[str] = field(default_factory=list)
    decisions: list[Table] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)
    figure_notes: list[str] = field(default_factory=list)
    #: the reject-cost slider (two-class calibrators)
    explorer: Explorer | None = None
    #: the reject-cost slider and strategy selector (K-class models)
    kexplorer: KExplorer | None = None


def _anchor(name: str, used: set[str]) -> str:
    base = "model-" + (re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-").lower() or "x")
    a, k = base, 2
    while a in used:
        a, k = f"{base}-{k}", k + 1
    used.add(a)
    return a


def _safe(notes: list[str], what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except ValueError as err:
        notes.append(f"{what}: not computed ({err})")
        return None


def _pct(level: float) -> str:
    return f"{level:.1%}".replace(".0%", "%")


def _coefficients(fit: Any, notes: list[str]) -> Table | None:
    if fit.capabilities.profiles:
        try:
            prof = fit.conf_int(0.95, method="profile")
            wald = fit.conf_int(0.95, method="wald")
        except ValueError as err:
            notes.append(f"Coefficient intervals: not computed ({err})")
            return None
        frame = pd.DataFrame(
            {
                "estimate": fit.params.to_numpy(),
                "se": fit.bse.to_numpy(),
                "z": (fit.params / fit.bse).to_numpy(),
                "p": getattr(fit, "pvalues", pd.Series(np.nan, index=fit.params.index)).to_numpy(),
                "pl": prof["lower"].to_numpy(),
                "pu": prof["upper"].to_numpy(),
                "wl": wald["lower"].to_numpy(),
                "wu": wald["upper"].to_numpy(),
            },
            index=list(fit.params.index),
        )
        return table(
            frame,
            "Coefficients with 95% profile-likelihood and Wald intervals",
            columns={"estimate": "Estimate", "se": "Std. error", "z": "z value", "p": "Pr(>|z|)",
                     "pl": "profile lower", "pu": "profile upper", "wl": "Wald lower", "wu": "Wald upper"},
            index="term",
            notes=["GLM sign convention theta = expit(beta . x) (the papers' sigma = -beta). The "
                   "profile (likelihood-ratio) interval is exact; the Wald interval is "
                   "estimate +- 1.96 std. error."],
        )
    tidy = getattr(fit, "tidy", None)
    if callable(tidy):
        t = tidy()
        if {"conf_low", "conf_high"} <= set(t.columns):
            return table(t, "Coefficients (tidy), with 95% profile-likelihood intervals")
    return None


#: summary header lines the overview already shows (formula, response, row counts)
_OVERVIEW_INFO = frozenset({"Formula", "Response", "Observations", "Training rows", "Calibration rows"})
#: summary tables the report replaces: its coefficient table (with Wald intervals), the one
#: goodness-of-fit table and the one ignorance table
_GOF_TABLES = ("Goodness of fit", "Fit on the calibration rows")


def model_title(name: str, method: str) -> str:
    """The model's heading: ``"evlogit"``, or ``"joint (evlogit)"`` when the name differs."""
    return name if name == method else f"{name} ({method})"


def _describe(sec: FitSection, summ: Any, fit: Any, coefficients: bool) -> Any:
    """Split ``fit.summary()`` over the section: description, header lines not in the overview,
    its own tables (with explained headers); the coefficient, goodness-of-fit and ignorance
    tables are left to the report's (each thing once). Returns the summary's goodness-of-fit
    tables for :func:`_fit_table`."""
    title = str(summ.title)
    suffix = f" ({fit.method})"
    sec.description = title[: -len(suffix)] if title.endswith(suffix) else title
    sec.info = [(str(k), str(v)) for k, v in summ.info if k not in _OVERVIEW_INFO]
    gof = []
    tips = {str(c): f"Score column {c}: its value, bin or coefficient in this row" for c in fit.score_columns}
    tips.update({str(c): f"Class {c}" for c in fit.classes})
    for t in summ.tables:
        if t.title == "Coefficients" and coefficients:
            continue
        if t.title in _GOF_TABLES:
            gof.append(t)
            continue
        if t.title.startswith("Ignorance m({0,1})"):
            continue
        cells = t.cells()
        frame = pd.DataFrame(cells, columns=[str(c) for c in t.frame.columns])
        if t.show_index:
            frame.insert(0, "", [str(i) for i in t.frame.index])
        tab = table(frame, t.title, notes=t.notes, tips=tips)
        tab.numeric = [not (t.show_index and j == 0) for j in range(len(tab.columns))]
        sec.summary_tables.append(tab)
    sec.summary_notes = list(summ.notes)
    return gof


def _fit_table(fit: Any, summ: Any, gof: list[Any]) -> Table | None:
    """The one goodness-of-fit table: the rows of the summary's goodness-of-fit table (with its
    df and notes) and every ``glance()`` fact not shown elsewhere in the report."""
    rows: list[dict[str, str]] = []
    notes: list[str] = []
    shown: set[str] = set()
    labels: list[str] = []
    has_df = False
    for t in gof:
        notes += t.notes
        if t.show_index:  # rows are statistics: label, value[, df]
            has_df = has_df or "df" in t.frame.columns
            for label, cells in zip(t.frame.index, t.cells()):
                row = dict(zip([str(c) for c in t.frame.columns], cells))
                rows.append({"statistic": str(label), "value": row.get("value", cells[0]), "df": row.get("df", "")})
                labels.append(str(label))
        else:  # one row, a column per statistic (its glance name)
            for col, v in zip(t.frame.columns, t.cells()[0]):
                shown.add(str(col))
                rows.append({"statistic": GLANCE.get(str(col), (str(col), ""))[0], "value": v, "df": ""})
    for key, names in GOF_OF_GLANCE.items():
        if key.startswith("df") and not has_df:
            continue
        if any(lab.startswith(n) for lab in labels for n in names):
            shown.add(key)
    info = {str(k) for k, _ in summ.info}
    g = getattr(fit, "glance", None)
    explained = []
    if callable(g):
        for key, value in g().iloc[0].items():
            key = str(key)
            if key in SHOWN_ELSEWHERE or key in shown or any(i in info for i in INFO_OF_GLANCE.get(key, ())):
                continue
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            label, why = GLANCE.get(key, (key, ""))
            rows.append({"statistic": label, "value": cell(value, 6), "df": ""})
            explained.append(f"{label}: {why}" if why else f"{label}: glance() column {key!r}")
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    if not (has_df and any(r["df"] for r in rows)):
        frame = frame.drop(columns="df")
    if explained:
        notes.append("; ".join(explained) + ".")
    tab = table(frame, f"Goodness of fit on the calibration rows ({fit.nobs} rows)", notes=notes)
    tab.numeric = [False] + [True] * (len(tab.columns) - 1)
    return tab


def _label_metrics(fit: Any, pred: pd.DataFrame, y: np.ndarray, bins: int, eval_name: str, sec: FitSection,
                   belt: Any = None) -> None:
    """Scores, calibration tests (with the calibration belt's, when ``belt`` is one) and the one
    reliability table (with the band's coverage)."""
    theta = pred["theta"].to_numpy(dtype=float)
    ok = np.isfinite(theta)
    if not ok.all():
        sec.metric_notes.append(
            f"{int((~ok).sum())} of {theta.size} rows of the {eval_name} have no probability "
            "theta_hat (they fall in empty cells of the calibrator) and are left out of the "
            "metrics and decisions below; their belief is vacuous (Bel = 0, Pl = 1)."
        )
    yy, th = y[ok], theta[ok]
    bel, pl = pred["bel"].to_numpy(dtype=float)[ok], pred["pl"].to_numpy(dtype=float)[ok]
    notes = sec.metric_notes
    if yy.size == 0:
        notes.append("No rows with a probability: no metrics.")
        return
    sp = _safe(notes, "Scores", metrics.score_predictions, yy, th, bel=bel, pl=pl)
    if sp is not None:
        sec.metrics.append(table(
            sp.drop("mean_ignorance").to_frame().T,
            f"Scores on the {eval_name}",
            columns={"n": "n", "error_rate": "error rate", "brier": "Brier", "log_loss": "log loss",
                     "ece": "ECE (10 bins)", "betp_brier": "Brier of BetP"},
            notes=["error rate at theta_hat > 0.5; Brier, log loss and ECE of theta_hat; Brier of "
                   "BetP = Brier score of (Bel + Pl) / 2. The ignorance is summarised below."],
        ))
    rows = []
    hl = _safe(notes, "Hosmer-Lemeshow test", metrics.hosmer_lemeshow, yy, th, g=10)
    if hl is not None:
        rows.append({"test": "Hosmer-Lemeshow (g = 10)", "statistic": hl.statistic, "df": cell(hl.df),
                     "p-value": hl.pvalue})
    sz = _safe(notes, "Spiegelhalter test", metrics.spiegelhalter_z, yy, th)
    if sz is not None:
        rows.append({"test": "Spiegelhalter z", "statistic": sz.statistic, "df": "", "p-value": sz.pvalue})
    test_notes = ["Hosmer-Lemeshow grouped as R's ResourceSelection::hoslem.test; small p-values "
                  "indicate miscalibration."]
    if belt is not None and not isinstance(belt, str):
        rows.append({"test": f"Calibration belt (degree m = {belt.degree}, {belt.devel})", "statistic": belt.statistic,
                     "df": "", "p-value": belt.pvalue})
        test_notes.append("Calibration belt: likelihood ratio of a polynomial recalibration of logit(theta_hat) "
                          "against the bisector, its p-value accounting for the forward selection of the degree "
                          "(Nattino, Finazzi and Bertolini 2014); its figure is below.")
    if rows:
        sec.metrics.append(table(
            pd.DataFrame(rows), f"Calibration tests of theta_hat on the {eval_name}", notes=test_notes,
        ))
    rel = _safe(notes, "Reliability table", _reliability, yy, th, bel, pl, bins)
    if rel is not None:
        sec.metrics.append(rel)


def _reliability(y: np.ndarray, theta: np.ndarray, bel: np.ndarray, pl: np.ndarray, bins: int) -> Table:
    """One reliability table: per bin of theta_hat the observed frequency with its Wilson
    interval and the band [mean Bel, mean Pl], whether it covers the frequency, and a note with
    the number of covered bins to expect (:mod:`evstat.report._coverage`)."""
    rt = metrics.reliability_table(y, theta, bins=bins)
    ic = metrics.interval_coverage(y, bel, pl, theta, bins=bins)
    frame = rt.merge(ic[["bin", "mean_bel", "mean_pl", "covered"]], on="bin", validate="one_to_one")
    edges = np.linspace(0.0, 1.0, bins + 1)  # the uniform bins of both tables
    expect = expected_covered(theta, edges, ic["mean_bel"].to_numpy(), ic["mean_pl"].to_numpy())
    k, cov = len(ic), int(ic["covered"].sum())
    return table(
        frame, f"Reliability table ({bins} equal-width bins of theta_hat) and coverage of the [Bel, Pl] band",
        columns={"bin": "bin", "lower": "from", "upper": "to", "n": "n",
                 "mean_prediction": "mean theta_hat", "observed_frequency": "observed frequency",
                 "wilson_lower": "Wilson 95% lower", "wilson_upper": "Wilson 95% upper",
                 "mean_bel": "mean Bel", "mean_pl": "mean Pl", "covered": "covered"},
        notes=[
            f"The band [mean Bel, mean Pl] covers the observed frequency in {cov} of {k} non-empty "
            f"bins. If every row's theta_hat were its true probability, we would expect about "
            f"{expect:.1f} of {k} (each bin's count of positives is then a sum of independent "
            "Bernoulli(theta_hat) draws; exact binomial-type calculation).",
            "The band is not a confidence interval for a bin's frequency: Pl - Bel measures how "
            "loosely the calibration rows pin down theta (the calibrator's estimation "
            "uncertainty) and holds none of the sampling noise of the few rows in a bin, so "
            "small bins miss it often even for a well-calibrated model. Far fewer covered bins "
            "than expected means the band is too narrow or theta_hat is off; the Wilson interval "
            "is the one that describes the frequency's own noise.",
        ],
    )


def _ignorance(fit: Any, pred: pd.DataFrame, name: str, sec: FitSection) -> None:
    """The one ignorance table: Pl - Bel on the calibration rows and on the rows predicted."""
    rows, labels = [], []
    cb = getattr(fit, "calibration_belief", None)
    calib_note = ""
    if callable(cb) and not name.startswith("calibration data"):
        b = cb()
        rows.append(metrics.ignorance_summary(b["bel"].to_numpy(dtype=float), b["pl"].to_numpy(dtype=float)))
        labels.append("calibration rows")
        note = fit.calibration_sample_note() if callable(getattr(fit, "calibration_sample_note", None)) else None
        calib_note = f" Calibration rows: {note}." if note else ""
    bel, pl = pred["bel"].to_numpy(dtype=float), pred["pl"].to_numpy(dtype=float)
    if bel.size:
        rows.append(metrics.ignorance_summary(bel, pl))
        labels.append(name)
    if not rows:
        return
    frame = pd.DataFrame(rows, index=labels)
    frame["n"] = frame["n"].astype(np.int64)
    sec.metrics.append(table(
        frame, "Ignorance m({0,1}) = Pl - Bel", index="rows",
        notes=[f"Mean and quantiles of Pl({{1}}) - Bel({{1}}) per row: the mass the evidential "
               f"prediction leaves on 'either class'.{calib_note}"],
    ))


def _decision_table(fit: Any, pred: pd.DataFrame, y: np.ndarray | None, costs: list[float],
                    name: str, caption_costs: str) -> Table:
    """Decisions of the three strategies at each reject cost in ``costs`` on the rows of
    ``pred`` (counts; with labels ``y`` also errors and rates, and the two rules without reject)."""
    theta = pred["theta"].to_numpy(dtype=float)
    ok = np.isfinite(theta)
    bel, pl, th = (pred[c].to_numpy(dtype=float)[ok] for c in ("bel", "pl", "theta"))
    yy = None if y is None else np.asarray(y)[ok]
    neg, pos = fit.classes
    rules: list[tuple[str, str, float | None]] = [(s, s, rc) for rc in costs for s in STRATEGIES]
    if yy is not None:
        rules += [("evidential, no reject (BetP > 0.5)", "pessimistic", None),
                  ("probabilistic, no reject (theta_hat > 0.5)", "probabilistic", None)]
    rows = []
    for label, strategy, rc in rules:
        d = np.asarray(metrics.decide_binary(bel, pl, strategy, rc, p=th), dtype=object)
        row: dict[str, Any] = {"strategy": label, "R_rej": "" if rc is None else f"{rc:g}",
                               "neg": int((d == 0).sum()), "pos": int((d == 1).sum()),
                               "rej": int((d == "reject").sum())}
        if yy is not None:
            dm = metrics.decision_metrics(yy, metrics.decide_binary(bel, pl, strategy, rc, p=th))
            row.update(errors=int(dm["n_errors"]), error_rate=dm["error_rate"], accuracy=dm["accuracy"],
                       reject_rate=dm["reject_rate"])
        rows.append(row)
    columns = {"strategy": "strategy", "R_rej": "R_rej", "neg": f"decide {neg}", "pos": f"decide {pos}",
               "rej": "rejected"}
    if yy is not None:
        columns.update(errors="errors", error_rate="error rate", accuracy="accuracy", reject_rate="reject rate")
    tab = table(
        pd.DataFrame(rows), f"Decisions on the {name} {caption_costs}",
        columns=columns,
        notes=["Minary et al. (2019), eqs. 8-11 and section 5.4, 0-1 costs: pessimistic = minimise "
               "the upper expected cost (1 - Bel for the positive class, Pl for the negative), "
               "optimistic = the lower one (1 - Pl, Bel), probabilistic = under theta_hat; reject "
               "when R_rej is below the chosen class's cost."
               + (" Error rate = errors / n; accuracy = correct / decided." if yy is not None else "")],
    )
    tab.numeric[1] = True
    return tab


def _eval_rows(fit: Any, newdata: pd.DataFrame | None, y: Any) -> tuple[pd.DataFrame | None, np.ndarray, str, np.ndarray | None]:
    """(evaluation data, its 0/1 labels, its name, labels of newdata or None)."""
    new_labels = evaluation_labels(fit, newdata, y) if newdata is not None else None
    if newdata is not None and new_labels is not None:
        return newdata, new_labels, f"new data ({len(newdata)} rows)", new_labels
    cal = np.asarray(fit.training_codes(), dtype=float)
    sample = fit.calibration_sample() if hasattr(fit, "calibration_sample") else None
    if sample is not None:
        # a large calibration set with a prediction cost that grows with n: the in-sample
        # metrics and figures use the seeded subsample that summary() uses (not n^2 work)
        sub = calibration_scores(fit).iloc[sample]
        sub = sub.drop(columns=".y").assign(**{fit.response: np.where(cal[sample] == 1, fit.classes[1], fit.classes[0])})
        return (sub, cal[sample], f"calibration data (seeded subsample of {sample.size:,} of {fit.nobs:,} "
                f"rows, in-sample)", new_labels)
    return None, cal, f"calibration data ({fit.nobs} rows, in-sample)", new_labels


def _comparison(named: dict[str, Any], evals: dict[str, tuple], reject_cost: float) -> list[Table]:
    out: list[Table] = []
    rows, drows = [], []
    notes: list[str] = []
    for name, fit in named.items():
        pred, y, eval_name = evals[name]
        theta = pred["theta"].to_numpy(dtype=float)
        ok = np.isfinite(theta)
        if not ok.all():
            notes.append(f"{name}: {n_rows(int((~ok).sum()))} without theta_hat (empty cells) left out.")
        bel, pl = pred["bel"].to_numpy(dtype=float)[ok], pred["pl"].to_numpy(dtype=float)[ok]
        try:
            sp = metrics.score_predictions(y[ok], theta[ok], bel=bel, pl=pl)
        except ValueError as err:
            notes.append(f"{name}: scores not computed ({err})")
            continue
        rows.append({"model": name, "method": fit.method, "data": eval_name, **sp.to_dict()})
        drow: dict[str, Any] = {"model": name}
        for s in STRATEGIES:
            dm = metrics.decision_metrics(y[ok], metrics.decide_binary(bel, pl, s, reject_cost, p=theta[ok]))
            drow[f"{s} error"] = dm["error_rate"]
            drow[f"{s} accuracy"] = dm["accuracy"]
            drow[f"{s} reject"] = dm["reject_rate"]
        drows.append(drow)
    if rows:
        t = pd.DataFrame(rows)
        t["n"] = t["n"].astype(np.int64)
        out.append(table(
            t, "Scores of the calibrators (as evstat.compare)",
            columns={"model": "model", "method": "method", "data": "evaluated on", "n": "n",
                     "error_rate": "error rate", "brier": "Brier", "log_loss": "log loss",
                     "ece": "ECE", "mean_ignorance": "mean ignorance", "betp_brier": "Brier of BetP"},
            notes=notes + ["Lower is better for every column except n; the mean ignorance measures "
                           "how much the evidential prediction withholds, not its quality."],
        ))
    if drows:
        out.append(table(
            pd.DataFrame(drows), f"Decisions at reject cost R_rej = {reject_cost:g}: error rate, accuracy, reject rate",
        ))
    return out


def _chosen_cost(fit: Any, newdata: pd.DataFrame | None, y: Any) -> float:
    """The data-chosen reject cost of one calibrator on the rows the report decides (the new
    data, else the calibration rows or their seeded subsample): :mod:`evstat.report._cost`,
    from one (cached) belief prediction of the rows, two classes or K."""
    if fit.is_binary:
        rows = newdata if newdata is not None else _eval_rows(fit, None, y)[0]
    else:
        data, codes, name = kclass_eval(fit, newdata, y)
        rows = newdata if newdata is not None else data
        # the rows whose Bel/Pl the report computes (fewer for a model that searches per row)
        rows = band_eval(fit, rows, codes if rows is data else None, name)[0]
    pred = predictions(fit, rows)
    return choose_reject_cost(pessimistic_reject_share(pred["bel"].to_numpy(dtype=float),
                                                       pred["pl"].to_numpy(dtype=float)))


def _counts_text(fit: Any) -> str:
    """``"N+ = 40, N- = 39"`` (two classes) or ``"setosa: 50, versicolor: 50, ..."``."""
    counts = [int(c) for c in fit.class_counts]
    if fit.is_binary:
        return f"N+ = {counts[1]}, N- = {counts[0]}"
    return ", ".join(f"{c}: {n}" for c, n in zip(fit.classes, counts))


def _kclass_section(fit: Any, name: str, i: int, ev: tuple, newdata: pd.DataFrame | None, rc: float,
                    bins: int, grid: int | None, used: set[str], costs: list[float],
                    costs_text: str, explain_regions: bool = True) -> tuple[FitSection, dict[str, Any]]:
    """The section and overview row of a model with K >= 3 classes (``explain_regions``: say
    why a model of many classes has no region figures; once per report)."""
    eval_data, codes, eval_name = ev
    sec = FitSection(name=name, anchor=_anchor(name, used), method=fit.method, formula=fit.formula,
                     eval_name=eval_name, title=model_title(name, fit.method))
    summ = fit.summary()
    sec.glance = _fit_table(fit, summ, _describe(sec, summ, fit, False))
    sec.metrics.extend(kclass_tables(fit, eval_data, codes, eval_name, bins))
    said = band_note(fit, eval_data, eval_name)
    if said:
        sec.metric_notes.append(said)
    band = band_eval(fit, eval_data, codes, eval_name)
    sec.decisions.append(kclass_decisions(fit, *band, costs, costs_text))
    sec.decisions[0].id = f"m{i + 1}-decisions"
    sec.kexplorer = kclass_explorer(fit, f"m{i + 1}", band[0], band[1], band[2], rc, sec.decisions[0].id)
    pred_name = eval_name.replace(", in-sample", "")
    if newdata is not None and eval_data is None:  # new data without labels: their decisions too
        pred_name = f"new data ({len(newdata)} rows)"
        sec.decisions.append(kclass_decisions(fit, *band_eval(fit, newdata, None, pred_name), costs, costs_text))
    sec.figures, sec.figure_notes = kclass_figures(fit, f"m{i + 1}", eval_data, codes, eval_name, rc, bins, grid,
                                                   explain_regions=explain_regions)
    pred_data = newdata if newdata is not None else eval_data
    pred_data, _, pred_name = band_eval(fit, pred_data, None, pred_name)
    if fit.capabilities.k_class_mass:
        ign = np.asarray(fit.predict(pred_data, type="mass").values)[:, -1]  # m(Omega), the full frame
    else:  # lower/upper probabilities without a mass function (evmultinom): its own .ignorance,
        # the mean over the classes of Pl({k}) - Bel({k}), from the report's cached belief
        _, bel, pl = class_belief(fit, pred_data)
        ign = np.mean(pl - bel, axis=1)
    sec.metrics.append(table(
        pd.DataFrame([metrics.ignorance_summary(np.zeros_like(ign), ign)], index=[pred_name]).astype({"n": np.int64}),
        "Ignorance m(Omega)", index="rows",
        notes=[see("def-ignorance")] if fit.capabilities.k_class_mass else
        [Markup(escape(f"{fit.method} has no mass function: this is its own ignorance, the mean over the classes of "
                       "Pl({k}) - Bel({k}). ")) + see("def-ignorance")],
    ))
    row = {
        "model": model_title(name, fit.method), "formula": fit.formula,
        "calibration rows": f"{fit.nobs} ({_counts_text(fit)})",
        "J": len(fit.score_columns), "positive class": f"{fit.n_classes} classes: " + ", ".join(map(str, fit.classes)),
    }
    return sec, row


def _peer_comparison(named: dict[str, Any], sets: dict[str, Any], newdata: pd.DataFrame | None, y: Any,
                     figures: list[ReportFigure]) -> list[Table]:
    """Interval and set predictors side by side (evstat.compare's width, set and reject
    columns) and their error-reject curves on one axes; needs labelled new data."""
    first = next(iter(named.values()))
    labels = evaluation_labels(first, newdata, y) if newdata is not None else None
    if labels is None:
        if not sets:
            return []
        return [table(pd.DataFrame({"model": list(sets), "method": [f.method for f in sets.values()]}),
                      "Conformal classifiers (not evaluated)",
                      notes=["Prediction sets are compared on labelled new data only: pass newdata with "
                             "its labels (the response column, or y=...)."])]
    levels = np.where(np.asarray(labels) == 1, first.classes[1], first.classes[0])
    every = {**named, **sets}
    tab = compare(every, newdata, levels)
    keep = ["model", "method", "n", "width", "set_size", "label_coverage", "reject_rate", "accuracy", "brier", "log_loss"]
    out = [table(
        tab[keep], "Intervals and prediction sets: width, coverage and decisions with reject (as evstat.compare)",
        columns={"model": "model", "method": "method", "n": "n", "width": "mean width Pl - Bel",
                 "set_size": "mean set size", "label_coverage": "label in set", "reject_rate": "reject rate",
                 "accuracy": "accuracy (decided)", "brier": "Brier of theta", "log_loss": "log loss of theta"},
        notes=["Decisions at R_rej = 1/2 with the pessimistic strategy: an interval [Bel, Pl] (for "
               "Venn-ABERS [p0, p1]) that straddles 1/2 is rejected; a conformal set that is not a "
               "singleton is rejected. theta of a conformal classifier is its learner's probability."],
    )]
    figures.append(comparison_figure(every, newdata, levels))
    return out


def _software() -> str:
    import matplotlib
    import scipy

    return (f"Python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
            f"pandas {pd.__version__}, matplotlib {matplotlib.__version__}")


def _date_text(date: Any) -> str:
    if date is None:
        return _dt.date.today().isoformat()
    if isinstance(date, (_dt.date, _dt.datetime)):
        return date.isoformat()
    if isinstance(date, str):
        return date
    raise TypeError(f"date must be a string, a datetime.date or None (today), got {type(date).__name__}")


def _internal(w: warnings.WarningMessage) -> bool:
    """A warning about this process rather than the data or the models: resources (an open file
    or subprocess, ``ResourceWarning``) and the JIT compiler's own (numba's warning classes).
    The report's "Notes and warnings" are for the reader; these are not shown there.

    Examples
    --------
    >>> w = warnings.WarningMessage(ResourceWarning("subprocess 1 is still running"), ResourceWarning, "x.py", 1)
    >>> _internal(w), _internal(warnings.WarningMessage(UserWarning("2 empty cells"), UserWarning, "x.py", 1))
    (True, False)
    """
    return issubclass(w.category, ResourceWarning) or w.category.__module__.split(".")[0] == "numba"


def build_context(
    fits: Any,
    newdata: pd.DataFrame | None,
    y: Any,
    title: str | None,
    date: Any,
    reject_cost: float | None,
    bins: int,
    grid: int | None,
    seed: int | None,
    provenance: Mapping[str, str] | None,
    pool: pd.DataFrame | None = None,
    queries: int = 10,
    draws: int = 5,
) -> tuple[dict[str, Any], list[warnings.WarningMessage]]:
    """The template context and the warnings recorded while computing it."""
    named = named_fits(fits)
    sets = {n: f for n, f in named.items() if isinstance(f, ConformalSets)}
    named = {n: f for n, f in named.items() if n not in sets}
    if not named:
        raise ValueError(
            "a report needs at least one calibrator (ev.evlogit, ev.venn_abers, ...): conformal "
            "classifiers are shown beside calibrators, in the comparison section"
        )
    if newdata is not None and not isinstance(newdata, pd.DataFrame):
        raise TypeError(f"newdata must be a pandas DataFrame, got {type(newdata).__name__}")
    if reject_cost is not None:
        rc = float(reject_cost)
        if not 0.0 <= rc <= 1.0:
            raise ValueError(f"reject_cost must lie in [0, 1] (a misclassification costs 1), got {reject_cost!r}")
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins}")
    # grid None: 40 points per axis for two-class figures; K-class figures use the plotting
    # default (16 parts per side of the simplex, 20 x 20 in a plane: evstat.plotting.region_grid)
    kgrid = None if grid is None else int(grid)
    grid_text = str(kgrid) if kgrid is not None else "40 (two classes), the plotting default (K classes)"
    grid = DEFAULT_GRID if grid is None else int(grid)
    if grid < 3:
        raise ValueError(f"grid must be at least 3, got {grid}")
    date_text = _date_text(date)
    import evstat

    if pool is not None and not isinstance(pool, pd.DataFrame):
        raise TypeError(f"pool must be a pandas DataFrame, got {type(pool).__name__}")
    with warnings.catch_warnings(record=True) as caught, prediction_cache(), contextlib.ExitStack() as stack:
        warnings.simplefilter("always")
        sections: list[FitSection] = []
        evals: dict[str, tuple] = {}
        used: set[str] = set()
        overview_rows = []
        regions_said = False  # the note on the region figures of many classes, once per report
        if reject_cost is None:
            rc = max(_chosen_cost(fit, newdata, y) for fit in named.values())
            costs = [rc] if rc == CONVENTIONAL_COST else [rc, CONVENTIONAL_COST]
            costs_text = (f"at R_rej = {rc:g} (chosen from the data: the smallest cost at which the pessimistic "
                          f"strategy rejects at most {REJECT_SHARE:.0%} of the rows"
                          + (", for every calibrator)" if len(named) > 1 else ")")
                          + (f" and, beside it, at Minary et al.'s R_rej = {CONVENTIONAL_COST:g}" if len(costs) > 1 else ""))
        else:
            costs, costs_text = [rc], f"at reject cost R_rej = {rc:g}"
        # the labelling outlook's forecast (about 40 % of a report with a pool) in a forked child
        # on the second core while this process makes the sections; the same numbers either way
        # (it is deterministic), its warnings re-issued here when it is collected below, in the
        # order of a computation in this process; no fork where it is unsafe (ForkedCall)
        forecast = None if pool is None else stack.enter_context(ForkedCall(forecasts, named, pool, queries, draws, seed))
        for i, (name, fit) in enumerate(named.items()):
            if not fit.is_binary:
                sec, row = _kclass_section(fit, name, i, kclass_eval(fit, newdata, y), newdata, rc, bins, kgrid, used,
                                           costs, costs_text, explain_regions=not regions_said)
                regions_said = regions_said or fit.n_classes > MAX_REGION_CLASSES
                sections.append(sec)
                overview_rows.append(row)
                continue
            eval_data, eval_y, eval_name, new_labels = _eval_rows(fit, newdata, y)
            coefficients = _coefficients(fit, [])
            summ = fit.summary()
            sec = FitSection(
                name=name, anchor=_anchor(name, used), method=fit.method, formula=fit.formula,
                eval_name=eval_name, title=model_title(name, fit.method),
            )
            gof = _describe(sec, summ, fit, coefficients is not None)
            sec.coefficients = _coefficients(fit, sec.metric_notes) if coefficients is None else coefficients
            sec.glance = _fit_table(fit, summ, gof)
            pred_eval = predictions(fit, eval_data)
            evals[name] = (pred_eval, eval_y, eval_name)
            belt: Any = None  # computed once, for the tests table and the figure
            if "belt" in applicable_kinds(fit):
                try:
                    belt = fit_belt(fit, eval_data, y=None if eval_data is None else eval_y)
                except ValueError as err:
                    belt = str(err)
            _label_metrics(fit, pred_eval, eval_y, bins, eval_name, sec, belt)
            if newdata is not None:
                pred_new = pred_eval if eval_data is newdata else predictions(fit, newdata)
                pred_name = f"new data ({len(newdata)} rows)"
                pred_data, pred_labels = newdata, new_labels
            else:
                pred_new, pred_name = pred_eval, eval_name.replace(", in-sample", "")
                # the calibration rows, or their seeded subsample for a large calibration set
                pred_data, pred_labels = eval_data, None if eval_data is None else eval_y
            _ignorance(fit, pred_new, pred_name, sec)
            sec.decisions.append(_decision_table(fit, pred_eval, eval_y, costs, eval_name, costs_text))
            sec.decisions[0].id = f"m{i + 1}-decisions"
            sec.explorer = explorer(
                fit, f"m{i + 1}", pred_eval, eval_data if eval_data is not None else calibration_scores(fit),
                eval_y, rc, grid, eval_name, region="decision_regions" in applicable_kinds(fit),
            )
            if pred_new is not pred_eval:  # unlabelled new data: their decisions (counts) too
                sec.decisions.append(_decision_table(fit, pred_new, None, costs, pred_name, costs_text))
            figs, fnotes = fit_figures(
                fit, f"m{i + 1}", eval_data, None if eval_data is None else eval_y, pred_data,
                pred_labels, eval_name, pred_name, rc, bins, grid, belt=belt,
            )
            sec.figures, sec.figure_notes = figs, fnotes
            if sec.explorer is not None:  # the slider's panels replace these figures (no-script fallback)
                sec.decisions[0].caption = slider_caption(sec.decisions[0].title, rc)
                panels = {"Decision regions": sec.explorer.region_svg, "Decisions with a reject option": sec.explorer.error_svg}
                for fig in figs:
                    fig.fallback = panels.get(fig.title) is not None
            sections.append(sec)
            overview_rows.append({
                "model": model_title(name, fit.method), "formula": fit.formula,
                "calibration rows": f"{fit.nobs} ({_counts_text(fit)})",
                "J": len(fit.score_columns), "positive class": str(fit.positive),
            })
        outlook = None if forecast is None else outlook_section(named, pool, queries, draws, seed, forecast.result())
        if len(named) > 1 and all(f.is_binary for f in named.values()):
            comparison = _comparison(named, evals, rc)
        else:
            comparison = []
        comparison_figures: list[ReportFigure] = []
        if len(named) > 1 and not all(f.is_binary for f in named.values()):
            comparison, comparison_figures = kclass_comparison(
                named, {n: kclass_eval(f, newdata, y) for n, f in named.items()}, bins, rc)
        if sets or any(isinstance(f, VennAbersCalibration) for f in named.values()):  # peers present
            comparison += _peer_comparison(named, sets, newdata, y, comparison_figures)

    first = next(iter(named.values()))
    if title is None:
        title = "evstat calibration report" if len(named) > 1 else f"evstat calibration report: {first.formula}"
    if newdata is None:
        lead = ("No new data were given: every metric is computed on the calibration data (in-sample), "
                "which flatters the calibrators.")
    elif any(sec.eval_name.startswith("new data") for sec in sections):
        lead = f"Metrics on the new data ({len(newdata)} rows, with labels); models fitted on the calibration data."
    else:
        lead = (f"The new data ({len(newdata)} rows) have no labels: predictions are shown for them, "
                "and the metrics that need labels are computed on the calibration data (in-sample).")
    overview = table(pd.DataFrame(overview_rows), "Calibrators in this report",
                     columns={"model": "model", "formula": "formula", "calibration rows": "calibration rows",
                              "J": "J", "positive class": "positive class" if any(f.is_binary for f in named.values())
                              else "classes"})
    overview_notes = [
        f"Reject cost R_rej = {rc:g} ({'chosen from the data, see the decision tables; ' if reject_cost is None else ''}"
        f"a misclassification costs 1); reliability bins: {bins}; "
        "J = number of score columns.",
    ]
    data_lines = []
    for name, fit in named.items():
        data_lines.append(("Calibration data" + (f" ({name})" if len(named) > 1 else ""),
                           f"{fit.nobs} rows used ({_counts_text(fit)}"
                           + (f", {fit.n_dropped} dropped for missing values" if fit.n_dropped else "")
                           + f"); score columns: {', '.join(fit.score_columns)}"))
    if newdata is not None:
        data_lines.append(("New data", f"{newdata.shape[0]} rows x {newdata.shape[1]} columns"))
    messages = []
    for w in caught:  # about the data and the models; library deprecations are only re-issued
        if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)):
            continue
        if _internal(w):  # about this process, not the data: never a reader's note (issue 39)
            continue
        text = f"{w.category.__name__}: {w.message}"
        if text not in messages:
            messages.append(text)
    # one "Seed" row: a provenance entry named seed is merged into it, not printed twice
    extra = [(str(k), str(v)) for k, v in dict(provenance or {}).items()]
    given = [v for k, v in extra if k.strip().lower() == "seed"]
    extra = [(k, v) for k, v in extra if k.strip().lower() != "seed"]
    if seed is None:
        seed_text = "; ".join(given) or "none (the calibrators and this report are deterministic)"
    else:
        seed_text = "; ".join([str(seed)] + given)
    repro = {
        "version": evstat.__version__,
        "software": _software(),
        "formulas": [("Formula" + (f" ({name})" if len(named) > 1 else ""), fit.formula) for name, fit in named.items()],
        "data": data_lines,
        "settings": (f"reject_cost = {rc:g}" + (" (chosen from the data)" if reject_cost is None else "")
                     + f", bins = {bins}, grid = {grid_text}"),
        "seed": seed_text,
        "extra": extra,
        "date": date_text,
    }
    context = {
        "explorer_js": Markup(EXPLORER_JS.read_text(encoding="utf-8"))
        if any(sec.explorer for sec in sections) else None,
        "kexplorer_js": Markup(KEXPLORER_JS.read_text(encoding="utf-8"))
        if any(sec.kexplorer for sec in sections) else None,
        "title": title, "lead": lead, "overview": overview, "overview_notes": overview_notes,
        "comparison": comparison, "comparison_figures": comparison_figures,
        "glossary": [] if all(f.is_binary for f in named.values()) else definitions(
            [k for f in named.values() if not f.is_binary for k in applicable_kinds(f)]), "outlook": outlook, "fits": sections, "warnings": messages, "repro": repro,
    }
    return context, list(caught)
