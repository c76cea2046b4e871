"""Assemble the report's context: overview, comparison, one section per calibrator, footer."""

from __future__ import annotations

import datetime as _dt
import platform
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from evstat import metrics
from evstat.calibration.peers import ConformalSets, VennAbersCalibration
from evstat.comparison import compare, named_fits
from evstat.plotting.data import calibration_scores, evaluation_labels, prediction_cache, predictions
from evstat.plotting.data import rows as n_rows
from evstat.report._figures import ReportFigure, comparison_figure, fit_figures
from evstat.report._kclass import kclass_comparison, kclass_decisions, kclass_eval, kclass_figures, kclass_tables
from evstat.report._outlook import outlook_section
from evstat.report.tables import Table, cell, table

__all__ = ["FitSection", "build_context", "named_fits"]

from evstat.belief import MINARY_STRATEGIES as STRATEGIES  # noqa: E402  (Minary et al.'s three)


@dataclass
class FitSection:
    name: str
    anchor: str
    method: str
    formula: str
    eval_name: str
    summary_html: Markup
    coefficients: Table | None = None
    glance: Table | None = None
    metrics: list[Table] = field(default_factory=list)
    metric_notes: list[str] = field(default_factory=list)
    decisions: list[Table] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)
    figure_notes: list[str] = field(default_factory=list)


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


def _glance(fit: Any) -> Table | None:
    g = getattr(fit, "glance", None)
    if not callable(g):
        return None
    row = g().iloc[0]
    frame = pd.DataFrame({"value": [cell(v, 6) for v in row.to_numpy()]}, index=[str(i) for i in row.index])
    return table(frame, "One-row summary (glance)", index="statistic")


def _label_metrics(fit: Any, pred: pd.DataFrame, y: np.ndarray, bins: int, reject_cost: float,
                   eval_name: str, sec: FitSection) -> None:
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
            sp.to_frame().T,
            f"Scores on the {eval_name}",
            columns={"n": "n", "error_rate": "error rate", "brier": "Brier", "log_loss": "log loss",
                     "ece": "ECE (10 bins)", "mean_ignorance": "mean ignorance", "betp_brier": "Brier of BetP"},
            notes=["error rate at theta_hat > 0.5; Brier, log loss and ECE of theta_hat; mean "
                   "ignorance = mean of Pl - Bel; Brier of BetP = Brier score of (Bel + Pl) / 2."],
        ))
    rows = []
    hl = _safe(notes, "Hosmer-Lemeshow test", metrics.hosmer_lemeshow, yy, th, g=10)
    if hl is not None:
        rows.append({"test": "Hosmer-Lemeshow (g = 10)", "statistic": hl.statistic, "df": cell(hl.df),
                     "p-value": hl.pvalue})
    sz = _safe(notes, "Spiegelhalter test", metrics.spiegelhalter_z, yy, th)
    if sz is not None:
        rows.append({"test": "Spiegelhalter z", "statistic": sz.statistic, "df": "", "p-value": sz.pvalue})
    if rows:
        sec.metrics.append(table(
            pd.DataFrame(rows), "Goodness-of-fit tests of theta_hat",
            notes=["Hosmer-Lemeshow grouped as R's ResourceSelection::hoslem.test; small p-values "
                   "indicate miscalibration."],
        ))
    rt = _safe(notes, "Reliability table", metrics.reliability_table, yy, th, bins=bins)
    if rt is not None:
        sec.metrics.append(table(
            rt, f"Reliability table ({bins} equal-width bins of theta_hat)",
            columns={"bin": "bin", "lower": "from", "upper": "to", "n": "n",
                     "mean_prediction": "mean theta_hat", "observed_frequency": "observed frequency",
                     "wilson_lower": "Wilson 95% lower", "wilson_upper": "Wilson 95% upper"},
        ))
    ic = _safe(notes, "Interval coverage", metrics.interval_coverage, yy, bel, pl, th, bins=bins)
    if ic is not None:
        cov = int(ic["covered"].sum())
        sec.metrics.append(table(
            ic, "Interval coverage: does [mean Bel, mean Pl] of each bin cover the observed frequency?",
            columns={"bin": "bin", "lower": "from", "upper": "to", "n": "n",
                     "mean_prediction": "mean theta_hat", "observed_frequency": "observed frequency",
                     "mean_bel": "mean Bel", "mean_pl": "mean Pl", "covered": "covered"},
            notes=[f"Covered in {cov} of {len(ic)} non-empty bins."],
        ))
    # decisions
    drows = []
    for label, strategy, rc in (
        [(f"{s}, R_rej = {reject_cost:g}", s, reject_cost) for s in STRATEGIES]
        + [("evidential, no reject (BetP > 0.5)", "pessimistic", None),
           ("probabilistic, no reject (theta_hat > 0.5)", "probabilistic", None)]
    ):
        d = metrics.decide_binary(bel, pl, strategy, rc, p=th)
        dm = metrics.decision_metrics(yy, d)
        drows.append({"rule": label, **dm.to_dict()})
    dt = pd.DataFrame(drows)
    for c in ("n", "n_decided", "n_rejected", "n_correct", "n_errors"):
        dt[c] = dt[c].astype(np.int64)
    sec.decisions.append(table(
        dt, f"Decisions on the {eval_name} (0-1 costs, reject cost R_rej)",
        columns={"rule": "strategy", "n": "n", "n_decided": "decided", "n_rejected": "rejected",
                 "n_errors": "errors", "error_rate": "error rate", "accuracy": "accuracy",
                 "reject_rate": "reject rate"},
        notes=["Minary et al. (2019), eqs. 8-11 and section 5.4: pessimistic = minimise the upper "
               "expected cost (1 - Bel), optimistic = the lower one (1 - Pl), probabilistic = "
               "1 - theta_hat; reject when R_rej is below the chosen cost. Error rate = errors / n; "
               "accuracy = correct / decided."],
    ))


def _prediction_tables(fit: Any, pred: pd.DataFrame, reject_cost: float, name: str, sec: FitSection) -> None:
    bel, pl = pred["bel"].to_numpy(dtype=float), pred["pl"].to_numpy(dtype=float)
    theta = pred["theta"].to_numpy(dtype=float)
    if bel.size == 0:
        return
    ig = metrics.ignorance_summary(bel, pl)
    sec.metrics.append(table(ig.to_frame().T, f"Ignorance m({{0,1}}) = Pl - Bel on the {name}"))
    neg, pos = fit.classes
    rows = []
    for s in STRATEGIES:
        ok = np.isfinite(theta) if s == "probabilistic" else np.ones(theta.size, dtype=bool)
        d = metrics.decide_binary(bel[ok], pl[ok], s, reject_cost, p=theta[ok])
        codes = np.array([2 if v == "reject" else int(v) for v in d])
        rows.append({"strategy": s, "neg": int((codes == 0).sum()), "pos": int((codes == 1).sum()),
                     "rej": int((codes == 2).sum())})
    sec.decisions.append(table(
        pd.DataFrame(rows), f"Decisions on the {name} at R_rej = {reject_cost:g} (counts)",
        columns={"strategy": "strategy", "neg": f"decide {neg}", "pos": f"decide {pos}", "rej": "reject"},
    ))


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


def _counts_text(fit: Any) -> str:
    """``"N+ = 40, N- = 39"`` (two classes) or ``"setosa: 50, versicolor: 50, ..."``."""
    counts = [int(c) for c in fit.class_counts]
    if fit.is_binary:
        return f"N+ = {counts[1]}, N- = {counts[0]}"
    return ", ".join(f"{c}: {n}" for c, n in zip(fit.classes, counts))


def _kclass_section(fit: Any, name: str, i: int, ev: tuple, newdata: pd.DataFrame | None, rc: float,
                    bins: int, grid: int, used: set[str]) -> tuple[FitSection, dict[str, Any]]:
    """The section and overview row of a model with K >= 3 classes."""
    eval_data, codes, eval_name = ev
    sec = FitSection(name=name, anchor=_anchor(name, used), method=fit.method, formula=fit.formula,
                     eval_name=eval_name, summary_html=Markup(fit.summary().as_html()))
    sec.glance = _glance(fit)
    sec.metrics.extend(kclass_tables(fit, eval_data, codes, eval_name, bins))
    sec.decisions.append(kclass_decisions(fit, eval_data, codes, eval_name, rc))
    pred_name = eval_name.replace(", in-sample", "")
    if newdata is not None and eval_data is None:  # new data without labels: their decisions too
        pred_name = f"new data ({len(newdata)} rows)"
        sec.decisions.append(kclass_decisions(fit, newdata, None, pred_name, rc))
    sec.figures, sec.figure_notes = kclass_figures(fit, f"m{i + 1}", eval_data, codes, eval_name, rc, bins, grid)
    pred_data = newdata if newdata is not None else eval_data
    if fit.capabilities.k_class_mass:
        ign = np.asarray(fit.predict(pred_data, type="mass").values)[:, -1]  # m(Omega), the full frame
    else:  # lower/upper probabilities without a mass function (evmultinom): its own .ignorance
        ign = fit.augment(None if pred_data is None else pred_data.reset_index(drop=True))[".ignorance"].to_numpy()
    row = {
        "model": name, "method": fit.method, "formula": fit.formula,
        "calibration rows": f"{fit.nobs} ({_counts_text(fit)})",
        "J": len(fit.score_columns), "positive class": f"none ({fit.n_classes} classes)",
        "mean ignorance": float(np.mean(ign)) if ign.size else np.nan,
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


def build_context(
    fits: Any,
    newdata: pd.DataFrame | None,
    y: Any,
    title: str | None,
    date: Any,
    reject_cost: float,
    bins: int,
    grid: int,
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
    rc = float(reject_cost)
    if not 0.0 <= rc <= 1.0:
        raise ValueError(f"reject_cost must lie in [0, 1] (a misclassification costs 1), got {reject_cost!r}")
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins}")
    grid = int(grid)
    if grid < 3:
        raise ValueError(f"grid must be at least 3, got {grid}")
    date_text = _date_text(date)
    import evstat

    with warnings.catch_warnings(record=True) as caught, prediction_cache():
        warnings.simplefilter("always")
        sections: list[FitSection] = []
        evals: dict[str, tuple] = {}
        used: set[str] = set()
        overview_rows = []
        for i, (name, fit) in enumerate(named.items()):
            if not fit.is_binary:
                sec, row = _kclass_section(fit, name, i, kclass_eval(fit, newdata, y), newdata, rc, bins, grid, used)
                sections.append(sec)
                overview_rows.append(row)
                continue
            eval_data, eval_y, eval_name, new_labels = _eval_rows(fit, newdata, y)
            coefficients = _coefficients(fit, [])
            summ = fit.summary()
            if coefficients is not None:
                # printed once: the report's table (with Wald intervals too) replaces the summary's
                summ.tables = [t for t in summ.tables if t.title != "Coefficients"]
            sec = FitSection(
                name=name, anchor=_anchor(name, used), method=fit.method, formula=fit.formula,
                eval_name=eval_name, summary_html=Markup(summ.as_html()),
            )
            sec.coefficients = _coefficients(fit, sec.metric_notes) if coefficients is None else coefficients
            sec.glance = _glance(fit)
            pred_eval = predictions(fit, eval_data)
            evals[name] = (pred_eval, eval_y, eval_name)
            _label_metrics(fit, pred_eval, eval_y, bins, rc, eval_name, sec)
            if newdata is not None:
                pred_new = pred_eval if eval_data is newdata else predictions(fit, newdata)
                pred_name = f"new data ({len(newdata)} rows)"
                pred_data, pred_labels = newdata, new_labels
            else:
                pred_new, pred_name = pred_eval, eval_name.replace(", in-sample", "")
                # the calibration rows, or their seeded subsample for a large calibration set
                pred_data, pred_labels = eval_data, None if eval_data is None else eval_y
            _prediction_tables(fit, pred_new, rc, pred_name, sec)
            figs, fnotes = fit_figures(
                fit, f"m{i + 1}", eval_data, None if eval_data is None else eval_y, pred_data,
                pred_labels, eval_name, pred_name, rc, bins, grid,
            )
            sec.figures, sec.figure_notes = figs, fnotes
            sections.append(sec)
            ign = (pred_new["pl"] - pred_new["bel"]).to_numpy(dtype=float)
            overview_rows.append({
                "model": name, "method": fit.method, "formula": fit.formula,
                "calibration rows": f"{fit.nobs} ({_counts_text(fit)})",
                "J": len(fit.score_columns), "positive class": str(fit.positive),
                "mean ignorance": float(np.mean(ign)) if ign.size else np.nan,
            })
        outlook = None if pool is None else outlook_section(named, pool, queries, draws, seed)
        if len(named) > 1 and all(f.is_binary for f in named.values()):
            comparison = _comparison(named, evals, rc)
        elif len(named) > 1:
            comparison = kclass_comparison(named, {n: kclass_eval(f, newdata, y) for n, f in named.items()}, bins)
        else:
            comparison = []
        comparison_figures: list[ReportFigure] = []
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
    overview = table(pd.DataFrame(overview_rows), "Calibrators in this report")
    overview_notes = [
        f"Reject cost R_rej = {rc:g} (a misclassification costs 1); reliability bins: {bins}; "
        f"mean ignorance on the {'new' if newdata is not None else 'calibration'} data.",
    ]
    data_lines = []
    for name, fit in named.items():
        data_lines.append((f"Calibration data ({name})",
                           f"{fit.nobs} rows used ({_counts_text(fit)}"
                           + (f", {fit.n_dropped} dropped for missing values" if fit.n_dropped else "")
                           + f"); score columns: {', '.join(fit.score_columns)}"))
    if newdata is not None:
        data_lines.append(("New data", f"{newdata.shape[0]} rows x {newdata.shape[1]} columns"))
    messages = []
    for w in caught:  # about the data and the models; library deprecations are only re-issued
        if issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)):
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
        "formulas": [(name, fit.formula) for name, fit in named.items()],
        "data": data_lines,
        "settings": f"reject_cost = {rc:g}, bins = {bins}, grid = {grid}",
        "seed": seed_text,
        "extra": extra,
        "date": date_text,
    }
    context = {
        "title": title, "lead": lead, "overview": overview, "overview_notes": overview_notes,
        "comparison": comparison, "comparison_figures": comparison_figures, "outlook": outlook, "fits": sections, "warnings": messages, "repro": repro,
    }
    return context, list(caught)
