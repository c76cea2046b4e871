"""The report's section of a model with K >= 3 classes (the K-class results protocol).

Measures of the class probabilities P(k | x) (``predict(type="prob")``): Gebel's CR, 1 - RMSE,
WCR and Cal, Garczarek's AS and Ac, the multi-class Brier score and log loss, the top-label and
classwise ECE with seeded bootstrap intervals; the top-label and classwise reliability tables
with the band [mean Bel, mean Pl] of every bin and its coverage; the per-class lower and upper
probabilities; decisions of the three strategies with the reject option; figures (top-label and
classwise reliability with their bands, the ternary plot for K = 3, the class regions (with a
second panel at a data-chosen cost when the report's cost leaves them grey) and the belief map
over two score columns); with several models, one comparison table and one error-reject figure.

Everything that decides (the decision tables, the comparison, the reject curves, the cost of the
second region panel and the report's chosen cost) reads one ``predict(type="belief")`` of each
set of rows (:func:`evstat.plotting.probability.class_belief`, cached for the report) and decides
with 0-1 costs through :func:`evstat.metrics.decide_classes`, which equals ``fit.decide`` (tested)
without recomputing the model's bounds for every cost and strategy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from markupsafe import Markup, escape

from evstat import metrics, plotting
from evstat.metrics.evidential import DECISION_STRATEGIES as STRATEGIES
from evstat.plotting.probability import (BAND_ROWS, CLASSWISE_PANELS, band_data, belief_rows, class_belief,
                                         class_codes, class_probabilities)
from evstat.report._coverage import expected_covered
from evstat.report._figures import REGION_MIN_DECIDED as DECIDED_SHARE, ReportFigure, _figure, _FONT
from evstat.report.svg import figure_svg
from evstat.report.tables import Table, cell, table

def _model_title(name: str, method: str) -> str:
    """The model's name, with its method in parentheses only when they differ (as its heading)."""
    return name if name == method else f"{name} ({method})"


__all__ = ["BOOT", "DEFINITIONS", "FIGURE_TEXTS", "definitions", "see", "BOOT_SEED", "kclass_comparison", "kclass_decisions", "kclass_eval", "kclass_figures",
           "kclass_measures", "kclass_tables"]

#: bootstrap replicates and seed of the ECE intervals in reports (fixed: reports are reproducible)
BOOT = 200
BOOT_SEED = 20261126


def kclass_eval(fit: Any, newdata: pd.DataFrame | None, y: Any) -> tuple[pd.DataFrame | None, np.ndarray, str]:
    """(evaluation rows or None for the training rows, their class codes, their name)."""
    if newdata is not None:
        codes = class_codes(fit, newdata, y)
        if codes is not None:
            return newdata, codes, f"new data ({len(newdata)} rows)"
    return None, np.asarray(fit.training_codes(), dtype=np.intp), f"calibration data ({fit.nobs} rows, in-sample)"


def band_eval(fit: Any, data: pd.DataFrame | None, codes: Any, name: str) -> tuple[pd.DataFrame | None, Any, str]:
    """The rows whose Bel/Pl the report computes: ``(data, codes, name)`` themselves, or for a
    model whose bounds of one row are a search over many parameters (evmultinom at ten classes;
    :func:`evstat.plotting.belief_rows`) the :data:`~evstat.plotting.probability.BAND_ROWS` rows
    spread evenly over the rows ranked by confidence, their codes and a name that says so."""
    rows = belief_rows(fit, data)
    if rows is None:
        return data, codes, name
    inner = name[:-1] if name.endswith(")") else name + " ("
    return (band_data(fit, data, rows), None if codes is None else codes[rows],
            f"{inner}; Bel/Pl of {rows.size} of them, spread evenly by confidence)")


def band_note(fit: Any, data: pd.DataFrame | None, name: str) -> str | None:
    """The section's one sentence on why its Bel/Pl tables use fewer rows, or None."""
    rows = belief_rows(fit, data)
    if rows is None:
        return None
    return (f"{fit.method}: the lower and upper probabilities of one row are a constrained optimisation over "
            f"its {fit.belief_search_size} parameters (up to seconds of CPU per row at K = {fit.n_classes}), so "
            f"the tables and bands that need Bel/Pl (reliability tables, the bands of the reliability diagrams, "
            f"the per-class bounds and ignorance, the decisions) use {rows.size} of the rows of the {name}, "
            f"spread evenly over them ranked by the confidence max_k P(k | x) (at most {BAND_ROWS} per model, "
            "no seed); the measures of the class probabilities and the points of the reliability diagrams "
            "use every row. fit.predict(newdata, type='belief') gives Bel/Pl of any rows.")


def kclass_measures(fit: Any, data: pd.DataFrame | None, codes: np.ndarray, bins: int) -> pd.Series:
    """The measures of the class probabilities of ``data`` against ``codes`` (one Series)."""
    P = class_probabilities(fit, data).to_numpy(dtype=float)
    tl = metrics.top_label_ece(codes, P, bins=bins, n_boot=BOOT, seed=BOOT_SEED)
    cw = metrics.classwise_ece(codes, P, bins=bins, n_boot=BOOT, seed=BOOT_SEED)
    assert isinstance(tl, metrics.BootstrapEstimate) and isinstance(cw, metrics.BootstrapEstimate)  # n_boot given
    return pd.Series({
        "n": int(codes.size),
        "CR": metrics.correctness_rate(codes, P),
        "1 - RMSE": metrics.one_minus_rmse(codes, P),
        "WCR": metrics.wcr(codes, P),
        "Cal": metrics.cal(codes, P),
        "AS": metrics.ability_to_separate(P),
        "Ac": metrics.garczarek_accuracy(codes, P),
        "Brier": metrics.brier_score(codes, P),
        "log loss": metrics.log_loss(codes, P),
        "top-label ECE": tl.estimate,
        "top-label ECE 95% lower": tl.lower,
        "top-label ECE 95% upper": tl.upper,
        "classwise ECE": cw.estimate,
        "classwise ECE 95% lower": cw.lower,
        "classwise ECE 95% upper": cw.upper,
    })


MEASURE_NOTE = (
    "Gebel (2009) 2.4: CR = correctness rate (argmax), 1 - RMSE, WCR = well-calibration ratio, "
    "Cal = sqrt((1 - RMSE) WCR); Garczarek's AS (ability to separate) and Ac (accuracy) on squared "
    "distances (see evstat.metrics.gebel); Brier = mean sum_k (P_k - I(y = k))^2; log loss = "
    "-mean log P(observed class); top-label ECE (Guo et al. 2017) and classwise ECE (Kull et al. "
    f"2019) with {BOOT} bootstrap resamples of the rows (seed {BOOT_SEED}), percentile intervals, "
    "shown as estimate [lower, upper]."
)

#: the K-class report's definitions, said once in its "Definitions" section and linked from
#: every table that uses them (issue 39 item 3): (anchor, term, text)
DEFINITIONS: tuple[tuple[str, str, str], ...] = (
    ("def-measures", "Measures of the class probabilities", MEASURE_NOTE),
    ("def-belpl", "Lower and upper probabilities",
     "Bel({k}) and Pl({k}) are the lower and upper probabilities of class k for a row "
     "(predict(type='belief')); their width Pl({k}) - Bel({k}) is the ignorance about class k "
     "(mean Pl - Bel: its mean over the rows; 90% of widths below: its 90% quantile). Covered: the "
     "observed frequency of the class lies in [mean Bel, mean Pl] (calibration in the large)."),
    ("def-band", "The [Bel, Pl] band of a reliability bin",
     "Per bin, the band [mean Bel, mean Pl] of the rows' lower and upper probabilities (of the argmax "
     "class k* in the top-label table, of class k in the classwise one), and whether it covers the "
     "bin's accuracy or observed frequency. The coverage to expect is the number of covered bins if "
     "every row's P(k | x) were its true probability (Poisson-binomial, exact). As in the two-class "
     "report, the band is the calibrator's estimation uncertainty, not a confidence interval of a "
     "bin's frequency (that is the Wilson interval)."),
    ("def-decisions", "Decisions with a reject option",
     "0-1 costs and reject cost R_rej (Minary et al. 2019, eqs. 8-11, on the K classes): pessimistic = "
     "least upper expected cost 1 - Bel({k}), optimistic = least lower expected cost 1 - Pl({k}), "
     "probabilistic = least 1 - P(k | x); reject when R_rej is below the chosen class's cost. Ties to "
     "the first class in frame order, as fit.decide. Error rate = errors / n (rejects are not errors); "
     "accuracy = correct / decided; reject rate = rejected / n."),
    ("def-panel", "The decision panel",
     "Under each model's decision table: move the slider to change the reject cost R_rej, and the first three "
     "rows of the table (one per strategy) follow it; the selector picks the strategy of the squares, one per "
     "row (grouped by observed class when known), coloured by its decision. Both are recomputed in the page "
     "from the embedded Bel({k}), Pl({k}) and P(k | x) of every row exactly as fit.decide decides (0-1 costs, "
     "ties to the first class in frame order, then reject). Without JavaScript the page shows the report's "
     "cost (the squares: pessimistic)."),
    ("def-ignorance", "Ignorance m(Omega)",
     "Mean and quantiles over the rows of the mass a model leaves on the whole frame Omega (\"any "
     "class\"). A model with lower and upper probabilities but no mass function says so under its table "
     "and reports the mean over the classes of Pl({k}) - Bel({k}) instead."),
)


#: what every figure of a kind shows (the glossary's "Figures of a model", for the kinds drawn)
FIGURE_TEXTS: dict[str, str] = {
    "decision_regions": "Class regions: what fit.decide answers over the simplex of the scores (three-class "
                        "probability or log-probability scores: a point p stands for the score vector p or log p) or "
                        "over a plane of two score columns (the others held fixed, said in the title); the colours "
                        f"are painted on a lattice {plotting.SMOOTH} times finer per side than the grid of predictions, "
                        "decided from Bel({k}), Pl({k}) and P(k | x) interpolated linearly between them, so the "
                        "boundaries run between grid points.",
    "belief_map": "Ignorance map: the ignorance m(Omega) over the same grid.",
    "class_reliability": "Top-label reliability diagram: accuracy of the argmax class against the confidence "
                         "max_k P(k | x) in equal-width bins, with 95% Wilson intervals; the band joins the mean Bel "
                         "and mean Pl of the argmax class in each bin.",
    "classwise_reliability": "Classwise reliability diagram: observed frequency of each class against its predicted "
                             "probability in equal-width bins; the shaded bands join the mean Bel({k}) and mean "
                             "Pl({k}) of each bin.",
    "ternary": "Ternary probability plot: the class probabilities of the rows in the probability simplex (Gebel "
               "2009, Fig. 2.1): marker = assigned class, colour = observed class; the thick lines are the decision "
               "borders of the argmax rule.",
}


def see(*anchors: str) -> Markup:
    """The one-line note of a table: links to the definitions it uses (the report's glossary)."""
    terms = {a: t for a, t, _ in DEFINITIONS} | {"def-figures": "Figures of a model"}
    links = ", ".join(f'<a href="#{a}">{escape(terms[a].lower())}</a>' for a in anchors)
    return Markup(f"Definitions: {links}.")


def definitions(kinds: Sequence[str] = ()) -> list[tuple[str, str, str]]:
    """The glossary of a report with K-class models (anchor, term, text), rendered once; the
    entry on the figures says what those of ``kinds`` (the kinds drawn) show."""
    out = list(DEFINITIONS)
    said = [FIGURE_TEXTS[k] for k in FIGURE_TEXTS if k in kinds]
    if said:
        out.insert(len(out) - 1, ("def-figures", "Figures of a model",
                                  " ".join(said) + " Points are the rows of the model's data."))
    return out


def _measures_table(frame: pd.DataFrame, title: str) -> Table:
    tab = table(frame, title, notes=[see("def-measures")], tips=INTERVAL_TIPS)
    tab.numeric = [c not in ("model", "data") for c in tab.columns]
    return tab


#: header tips of the measures tables (the intervals share the estimate's column)
INTERVAL_TIPS = {
    "top-label ECE": "Expected calibration error of the confidence max_k P(k | x), with its bootstrap 95% "
                     "percentile interval [lower, upper]",
    "classwise ECE": "Mean over classes of the expected calibration error of P(k | x), with its bootstrap 95% "
                     "percentile interval [lower, upper]",
}


def _with_intervals(frame: pd.DataFrame) -> Table:
    """The measures frame with each ECE and its 95% interval in one column ("0.05 [0.02, 0.09]"),
    so that the table fits the page's column (issue 39)."""
    out = frame.copy()
    for what in ("top-label ECE", "classwise ECE"):
        lo, hi = out.pop(f"{what} 95% lower"), out.pop(f"{what} 95% upper")
        out[what] = [f"{cell(e)} [{cell(a)}, {cell(b)}]" for e, a, b in zip(out[what], lo, hi)]
    return out


def kclass_tables(fit: Any, data: pd.DataFrame | None, codes: np.ndarray, name: str, bins: int) -> list[Table]:
    """The measures table, the top-label and classwise reliability tables with their [Bel, Pl]
    bands, and the per-class lower and upper probabilities."""
    m = kclass_measures(fit, data, codes, bins)
    frame = m.to_frame().T
    frame["n"] = frame["n"].astype(np.int64)
    out = [_measures_table(_with_intervals(frame), f"Measures of the class probabilities on the {name}")]
    bdata, bcodes, bname = band_eval(fit, data, codes, name)
    out.append(_reliability(fit, bdata, bcodes, bins, "top-label", None if bdata is data else bname))
    out.append(_reliability(fit, bdata, bcodes, bins, "classwise", None if bdata is data else bname))
    out.append(class_bounds_table(fit, bdata, bcodes, bname))
    return out


#: header tips of the K-class tables where the two-class glossary (Bel({1}), ...) does not fit
KCLASS_TIPS = {
    "top-label": {"accuracy": "Share of the bin's rows whose most probable class is the observed one",
                  "mean Bel": "Mean lower probability Bel({k*}) of the most probable class k* of the bin's rows",
                  "mean Pl": "Mean upper probability Pl({k*}) of the most probable class k* of the bin's rows",
                  "covered": "Whether the accuracy lies in [mean Bel, mean Pl]"},
    "classwise": {"observed frequency": "Share of the bin's rows whose class is k",
                  "mean Bel": "Mean lower probability Bel({k}) of the bin's rows",
                  "mean Pl": "Mean upper probability Pl({k}) of the bin's rows"},
    "bounds": {"observed frequency": "Share of the rows whose class is k",
               "mean Bel": "Mean lower probability Bel({k}) of the class over the rows",
               "mean Pl": "Mean upper probability Pl({k}) of the class over the rows",
               "mean Pl - Bel": "Mean width Pl({k}) - Bel({k}) over the rows: the ignorance about class k",
               "covered": "Whether the observed frequency of the class lies in [mean Bel, mean Pl]"},
}


def _reliability(fit: Any, data: pd.DataFrame | None, codes: np.ndarray, bins: int, view: str,
                 rows_name: str | None = None) -> Table:
    """One reliability table (top-label or classwise) with the band [mean Bel, mean Pl] of every
    bin, whether it covers the observed frequency, and the coverage to expect
    (:mod:`evstat.report._coverage`)."""
    P, bel, pl = class_belief(fit, data)
    rt = metrics.class_reliability_table(codes, P, view, bins=bins)
    cov = metrics.class_interval_coverage(codes, bel, pl, P, view=view, bins=bins)
    keys = ["bin"] if view == "top-label" else ["class", "bin"]
    frame = rt.merge(cov[[*keys, "mean_bel", "mean_pl", "covered"]], on=keys, validate="one_to_one")
    edges = np.linspace(0.0, 1.0, bins + 1)
    if view == "top-label":
        top = np.argmax(P, axis=1)
        expect = expected_covered(P[np.arange(P.shape[0]), top], edges, cov["mean_bel"].to_numpy(),
                                  cov["mean_pl"].to_numpy())
        title = (f"Top-label reliability table ({bins} equal-width bins of the confidence max_k P(k | x)) "
                 "and coverage of the [Bel, Pl] band of the argmax class")
        what = "accuracy (the observed frequency of the argmax class)"
    else:
        expect = sum(
            expected_covered(P[:, j], edges, cov.loc[cov["class"] == j, "mean_bel"].to_numpy(),
                             cov.loc[cov["class"] == j, "mean_pl"].to_numpy())
            for j in range(P.shape[1])
        )
        frame["class"] = [str(fit.classes[int(j)]) for j in frame["class"]]
        title = (f"Classwise reliability table ({bins} equal-width bins of P(k | x) per class k) and "
                 "coverage of the [Bel({k}), Pl({k})] band")
        what = "observed frequency of y = k"
    if rows_name is not None:
        title += f" on the {rows_name}"
    k, covered = len(cov), int(cov["covered"].sum())
    tab = table(
        frame, title,
        columns={k: v for k, v in {"class": "class", "bin": "bin", "lower": "from", "upper": "to", "n": "n",
                 "mean_prediction": "mean confidence" if view == "top-label" else "mean P(k | x)",
                 "observed_frequency": "accuracy" if view == "top-label" else "observed frequency",
                 "wilson_lower": "Wilson 95% lower", "wilson_upper": "Wilson 95% upper",
                 "mean_bel": "mean Bel", "mean_pl": "mean Pl", "covered": "covered"}.items()
                 if k in frame.columns},
        tips=KCLASS_TIPS[view],
        notes=[Markup(escape(f"The band [mean Bel, mean Pl] covers the {what} in {covered} of {k} non-empty bins "
                             f"(about {expect:.1f} expected). ")) + see("def-band")],
    )
    return tab


def class_bounds_table(fit: Any, data: pd.DataFrame | None, codes: np.ndarray | None, name: str) -> Table:
    """Per class: mean P(k | x), mean and quantiles of the lower and upper probabilities Bel({k}),
    Pl({k}) and of their width over the rows; with labels the observed frequency of the class
    and whether [mean Bel, mean Pl] covers it."""
    P, bel, pl = class_belief(fit, data)
    rows = []
    for j, c in enumerate(fit.classes):
        w = pl[:, j] - bel[:, j]
        row: dict[str, Any] = {"class": str(c)}
        if codes is not None:
            row["observed frequency"] = float(np.mean(codes == j)) if codes.size else np.nan
        row.update({
            "mean P(k | x)": float(np.mean(P[:, j])), "mean Bel": float(np.mean(bel[:, j])),
            "mean Pl": float(np.mean(pl[:, j])), "median Bel": float(np.median(bel[:, j])),
            "median Pl": float(np.median(pl[:, j])), "mean Pl - Bel": float(np.mean(w)),
            "90% of widths below": float(np.quantile(w, 0.9)),
        })
        if codes is not None:
            row["covered"] = bool(row["mean Bel"] <= row["observed frequency"] <= row["mean Pl"])
        rows.append(row)
    tab = table(
        pd.DataFrame(rows), f"Lower and upper probabilities of each class on the {name}",
        tips=KCLASS_TIPS["bounds"],
        notes=[see("def-belpl")],
    )
    return tab


def kclass_decide(fit: Any, data: pd.DataFrame | None, strategy: str, reject_cost: float | None) -> np.ndarray:
    """``fit.decide(data, strategy=, reject_cost=)`` with 0-1 costs from the cached belief of the
    rows (:func:`evstat.metrics.decide_classes`; equal to ``fit.decide``, tested)."""
    P, bel, pl = class_belief(fit, data)
    return metrics.decide_classes(bel, pl, P, strategy, reject_cost, classes=list(fit.classes))


def kclass_decisions(fit: Any, data: pd.DataFrame | None, codes: np.ndarray | None, name: str,
                     costs: Sequence[float], caption_costs: str | None = None) -> Table:
    """Counts of the decided classes and rejects per strategy at each reject cost of ``costs``;
    with labels also errors, error rate, accuracy and reject rate, and the two rules without
    reject (largest Bel, largest P(k | x)), as the two-class table."""
    rules: list[tuple[str, str, float | None]] = [(s, s, rc) for rc in costs for s in STRATEGIES]
    if codes is not None:
        rules += [("evidential, no reject (largest Bel({k}))", "pessimistic", None),
                  ("probabilistic, no reject (largest P(k | x))", "probabilistic", None)]
    truth = None if codes is None else np.asarray(fit.classes, dtype=object)[codes]
    rows = []
    for label, s, rc in rules:
        d = kclass_decide(fit, data, s, rc)
        row: dict[str, Any] = {"strategy": label, "R_rej": "" if rc is None else f"{rc:g}"}
        for c in fit.classes:
            row[f"decide {c}"] = int(np.sum(d == c))
        rej = d == "reject"
        row["rejected"] = int(rej.sum())
        if truth is not None:
            wrong = ~rej & (d != truth)
            n, decided = max(d.size, 1), int((~rej).sum())
            row["errors"] = int(wrong.sum())
            row["error rate"] = float(wrong.sum() / n)
            row["accuracy"] = float((decided - wrong.sum()) / decided) if decided else np.nan
            row["reject rate"] = float(rej.sum() / n)
        rows.append(row)
    tab = table(
        pd.DataFrame(rows),
        f"Decisions on the {name} " + (caption_costs or f"at R_rej = {', '.join(f'{c:g}' for c in costs)}"),
        notes=[see("def-decisions")],
    )
    tab.numeric[1] = True
    return tab


def kclass_figures(fit: Any, prefix: str, data: pd.DataFrame | None, codes: np.ndarray, name: str,
                   reject_cost: float, bins: int, grid: int | None,
                   explain_regions: bool = True) -> tuple[list[ReportFigure], list[str]]:
    """One figure per applicable plot kind of a K-class model. Above
    :data:`evstat.plotting.MAX_REGION_CLASSES` classes there are no region, map or ternary
    figures (not readable for ten classes), said in one note when ``explain_regions``; the
    classwise diagram is then one small panel per class. The class regions and the
    ignorance map draw from one :func:`evstat.plotting.region_grid` (the model predicts once on
    the grid: the simplex of the scores for a three-class fit on probabilities or their logs,
    else a plane of two score columns); the class regions get the plot's second panel at the
    data-chosen cost when the report's cost decides fewer than a tenth of the rows."""
    import matplotlib

    figures: list[ReportFigure] = []
    notes: list[str] = []
    y = None if data is None else np.asarray(fit.classes, dtype=object)[codes]
    kinds = plotting.applicable_kinds(fit)
    G: Any = None
    region_note = ""
    if "decision_regions" in kinds or "belief_map" in kinds:
        try:
            G = plotting.region_grid(fit, data, grid=grid)
        except ValueError as err:
            region_note = str(err)
    two = G is not None and G.decided_share("pessimistic", reject_cost) < DECIDED_SHARE
    second = G.chosen_reject_cost() if two else None
    two = two and second != float(reject_cost)
    where = "" if G is None else f", over {G.caption().rstrip('.')}"
    why = (f" At R_rej = {reject_cost:g} the pessimistic strategy decides fewer than {DECIDED_SHARE:.0%} of the rows "
           f"(its cost of the best class, min_k 1 - Bel({{k}}), exceeds R_rej where the ignorance is large); the "
           f"second panel uses R_rej = {second:g}, chosen from the data (the smallest cost at which it rejects at most "
           "a fifth of the rows).") if two else ""

    def regions(ax: Any) -> None:
        if G is None:
            raise ValueError(region_note)
        plotting.class_regions(fit, newdata=data, y=y, ax=list(ax[0]) if two else ax[0, 0], strategy="pessimistic",
                               reject_cost=reject_cost, grid=G, second_panel=two, smooth=plotting.SMOOTH)

    def belief(ax: Any) -> None:
        if G is None:
            raise ValueError(region_note)
        plotting.class_contours(fit, newdata=data, y=y, ax=ax[0, 0], grid=G)

    panels = f"R_rej = {reject_cost:g}" + (f" and R_rej = {second:g}" if two else "")
    K = fit.n_classes
    many = K > CLASSWISE_PANELS
    rows = belief_rows(fit, data)
    band_rows = ("" if rows is None else
                 f" The bands are the Bel/Pl of {rows.size} of the rows, spread evenly over them ranked by confidence "
                 "(see the note under the metrics); the points use every row.")
    more = see("def-figures")

    def said(text: str) -> Markup:  # the caption's own facts, then the link to what every such figure shows
        return Markup(escape(text)) + Markup(" ") + more

    specs = {
        "decision_regions": ("Class regions",
                             said(f"Pessimistic strategy, {panels}{where}; rows of the {name}.{why}"),
                             regions, 2 if two else 1),
        "belief_map": ("Ignorance map", said(f"Rows of the {name}."), belief, 1),
        "class_reliability": ("Top-label reliability diagram",
                              said(f"{bins} equal-width bins of the {name}, with the band [mean Bel, mean Pl]."
                                   + band_rows),
                              lambda ax: plotting.class_reliability_diagram(fit, data, y=y, ax=ax[0, 0], bins=bins), 1),
        "classwise_reliability": ("Classwise reliability diagram",
                                  said(f"{bins} equal-width bins of the {name}"
                                       + (f", one panel per class (K = {K})" if many else "")
                                       + ", with the bands [mean Bel({k}), mean Pl({k})]." + band_rows),
                                  lambda ax: plotting.class_reliability_diagram(fit, data, y=y, ax=ax[0, 0], bins=bins,
                                                                                view="classwise"), 1),
        "ternary": ("Ternary probability plot", said(f"Rows of the {name}."),
                    lambda ax: plotting.ternary_plot(fit, data, y=y, ax=ax[0, 0]), 1),
    }
    if K > plotting.MAX_REGION_CLASSES and explain_regions:
        notes.append(
            f"No class-region, belief-map or ternary figures for K = {K} classes (they are drawn up to "
            f"{plotting.MAX_REGION_CLASSES}): a plane of two of the {len(fit.score_columns)} score columns with "
            "the others held fixed, or a simplex with ten vertices, shows ten colours over a slice of the score "
            "space few rows lie near, which no reader can read. The reliability diagrams (one panel per class) "
            "and the table of the lower and upper probabilities and the ignorance of each class say instead "
            "what the model predicts for each class (this holds for every model of this report with more than "
            f"{plotting.MAX_REGION_CLASSES} classes).")
    for kind in plotting.applicable_kinds(fit):
        title, caption, draw, ncols = specs[kind]
        k = len(figures) + len(notes) + 1
        wide = 2.0 if kind == "classwise_reliability" and many else 1.0
        with matplotlib.rc_context(_FONT):
            fig, axes = _figure(6.4 * ncols * wide, 5.4, ncols=ncols)
            try:
                draw(axes)
            except ValueError as err:
                notes.append(f"{title}: not drawn ({err})")
                continue
            svg = figure_svg(fig, f"{prefix}-{k}", label=title)
        if ncols * wide == 1:  # one panel: two such figures side by side in the page (a shorter page, issue 39)
            svg = Markup(str(svg).replace("<svg ", '<svg data-layout="half" ', 1))
        figures.append(ReportFigure(id=f"{prefix}-fig{k}", title=title, caption=caption, svg=svg))
    return figures, notes


def kclass_comparison(named: dict[str, Any], evals: dict[str, tuple], bins: int,
                      reject_cost: float | None = None) -> tuple[list[Table], list[ReportFigure]]:
    """The models side by side (any class counts): one table of the measures of their class
    probabilities, one of their decisions at the report's reject cost (each strategy's error
    rate, accuracy and reject rate), and one figure of their error-reject curves (accuracy
    against error rate as the reject cost runs from 0 to 1)."""
    rows, drows, curves = [], [], []
    subsampled: list[str] = []
    for name, fit in named.items():
        data, codes, eval_name = evals[name]
        m = kclass_measures(fit, data, codes, bins)
        rows.append({"model": _model_title(name, fit.method), "K": fit.n_classes, "data": eval_name, **m.to_dict()})
        data, codes, band_name = band_eval(fit, data, codes, eval_name)
        if band_name != eval_name:
            subsampled.append(f"{name}: {band_name}")
        P, bel, pl = class_belief(fit, data)
        if reject_cost is not None:
            for s in STRATEGIES:  # one line per model and strategy: a narrow table (issue 39)
                c = metrics.class_reject_curve(codes, bel, pl, P, costs=[reject_cost], strategies=[s]).iloc[0]
                drows.append({"model": _model_title(name, fit.method), "strategy": s, "error rate": c["error_rate"],
                              "accuracy": c["accuracy"], "reject rate": c["reject_rate"]})
        cur = metrics.class_reject_curve(codes, bel, pl, P, strategies=COMPARISON_STRATEGIES)
        cur.insert(0, "model", name)
        curves.append(cur)
    t = pd.DataFrame(rows)
    t["n"] = t["n"].astype(np.int64)
    # a column that says the same in every row goes to the caption (short table, issue 39)
    where = ""
    if t["data"].nunique() == 1:
        where = f" is evaluated on the {t['data'].iloc[0]}"
        t = t.drop(columns="data")
    if t["K"].nunique() == 1:
        where += f"{',' if where else ''} K = {int(t['K'].iloc[0])} classes"
        t = t.drop(columns="K")
    out = [_measures_table(_with_intervals(t), "Measures of the class probabilities of the models")]
    if where:  # what every row shares, said once
        out[0].notes.insert(0, f"Every model{where}.")
    if drows:
        out.append(table(
            pd.DataFrame(drows),
            f"Decisions at reject cost R_rej = {reject_cost:g}: error rate, accuracy, reject rate",
            notes=[see("def-decisions")] + (["Decided from Bel/Pl of fewer rows (see each model's section): "
                                              + "; ".join(subsampled) + "."] if subsampled else []),
        ))
    return out, [_comparison_curves(pd.concat(curves, ignore_index=True), evals, subsampled)]


#: the strategies of the comparison's error-reject figure (as the two-class comparison)
COMPARISON_STRATEGIES = ("pessimistic", "probabilistic")


def _comparison_curves(curves: pd.DataFrame, evals: dict[str, tuple], subsampled: Sequence[str] = ()) -> ReportFigure:
    import matplotlib

    names = {e[2] for e in evals.values()}
    rows_text = next(iter(names)) if len(names) == 1 else "rows of each model (see the table)"
    with matplotlib.rc_context(_FONT):
        fig, axes = _figure(6.8, 5.0)
        plotting.draw_reject_curves(curves, axes[0, 0], f"Decisions with reject on the {rows_text}")
        svg = figure_svg(fig, "cmp-1", label="Error-reject curves of all models")
    return ReportFigure(
        id="cmp-fig1", title="Error-reject curves of all models",
        caption=(f"Accuracy (correct / decided) against error rate (wrong / tested) on the {rows_text}, "
                 "for the pessimistic and probabilistic strategies as the reject cost runs from 0 to 1 "
                 "(0-1 costs on the K classes). At equal error the higher curve is better."
                 + (" Models whose Bel/Pl were computed for fewer rows: " + "; ".join(subsampled) + "."
                    if subsampled else "")),
        svg=svg,
    )
