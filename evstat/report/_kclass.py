"""The report's section of a model with K >= 3 classes (the K-class results protocol).

Measures of the class probabilities P(k | x) (``predict(type="prob")``): Gebel's CR, 1 - RMSE,
WCR and Cal, Garczarek's AS and Ac, the multi-class Brier score and log loss, the top-label and
classwise ECE with seeded bootstrap intervals; the top-label reliability table; decisions of the
three strategies with the reject option; figures (top-label and classwise reliability, the
ternary plot for K = 3, the class regions and belief map over two score columns).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat import metrics, plotting
from evstat.metrics.evidential import DECISION_STRATEGIES as STRATEGIES
from evstat.plotting.probability import class_codes, class_probabilities
from evstat.report._figures import ReportFigure, _figure, _FONT
from evstat.report.svg import figure_svg
from evstat.report.tables import Table, table

__all__ = ["BOOT", "BOOT_SEED", "kclass_eval", "kclass_measures", "kclass_figures", "kclass_decisions"]

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
    f"2019) with {BOOT} bootstrap resamples of the rows (seed {BOOT_SEED}), percentile intervals."
)


def kclass_tables(fit: Any, data: pd.DataFrame | None, codes: np.ndarray, name: str, bins: int) -> list[Table]:
    """The measures table and the top-label reliability table."""
    m = kclass_measures(fit, data, codes, bins)
    frame = m.to_frame().T
    frame["n"] = frame["n"].astype(np.int64)
    out = [table(frame, f"Measures of the class probabilities on the {name}", notes=[MEASURE_NOTE])]
    P = class_probabilities(fit, data).to_numpy(dtype=float)
    rt = metrics.class_reliability_table(codes, P, "top-label", bins=bins)
    out.append(table(
        rt, f"Top-label reliability table ({bins} equal-width bins of the confidence max_k P(k | x))",
        columns={"bin": "bin", "lower": "from", "upper": "to", "n": "n",
                 "mean_prediction": "mean confidence", "observed_frequency": "accuracy",
                 "wilson_lower": "Wilson 95% lower", "wilson_upper": "Wilson 95% upper"},
    ))
    return out


def kclass_decisions(fit: Any, data: pd.DataFrame | None, codes: np.ndarray | None, name: str,
                     costs: Sequence[float], caption_costs: str | None = None) -> Table:
    """Counts of the decided classes and rejects per strategy at each reject cost of ``costs``
    (and errors when labels are known)."""
    rows = []
    for rc in costs:
        for s in STRATEGIES:
            d = fit.decide(data, strategy=s, reject_cost=rc)
            row: dict[str, Any] = {"strategy": s, "R_rej": f"{rc:g}"}
            for c in fit.classes:
                row[f"decide {c}"] = int((d == c).sum())
            rej = np.asarray(d.astype(object) == "reject")
            row["reject"] = int(rej.sum())
            if codes is not None:
                truth = np.asarray(fit.classes, dtype=object)[codes]
                correct = np.asarray(d.astype(object)) == truth
                row["error rate"] = float(np.mean(~correct & ~rej))
                row["accuracy"] = float(correct.sum() / max(int((~rej).sum()), 1))
            rows.append(row)
    tab = table(
        pd.DataFrame(rows),
        f"Decisions on the {name} " + (caption_costs or f"at R_rej = {', '.join(f'{c:g}' for c in costs)}"),
        notes=["0-1 costs and reject cost R_rej through evstat.belief.decide: pessimistic = upper "
               "expected cost, optimistic = lower, probabilistic = under P(k | x). Error rate = "
               "errors / n; accuracy = correct / decided."],
    )
    tab.numeric[1] = True
    return tab


def kclass_figures(fit: Any, prefix: str, data: pd.DataFrame | None, codes: np.ndarray, name: str,
                   reject_cost: float, bins: int, grid: int) -> tuple[list[ReportFigure], list[str]]:
    """One figure per applicable plot kind of a K-class model."""
    import matplotlib

    figures: list[ReportFigure] = []
    notes: list[str] = []
    y = None if data is None else np.asarray(fit.classes, dtype=object)[codes]
    cols = list(fit.score_columns)
    specs = {
        "decision_regions": ("Class regions",
                             f"What fit.decide answers (pessimistic strategy, R_rej = {reject_cost:g}) over the "
                             f"plane of {cols[0] if cols else ''} and {cols[1] if len(cols) > 1 else ''}; points are "
                             f"the rows of the {name}.",
                             lambda ax: plotting.class_regions(fit, newdata=data, y=y, ax=ax, reject_cost=reject_cost, grid=grid)),
        "belief_map": ("Ignorance map", f"The ignorance m(Omega) over the same plane; points are the rows of the {name}.",
                       lambda ax: plotting.class_contours(fit, newdata=data, y=y, ax=ax, grid=grid)),
        "class_reliability": ("Top-label reliability diagram",
                              f"Accuracy of the argmax class against the confidence max_k P(k | x) in {bins} "
                              f"equal-width bins of the {name}, with 95% Wilson intervals.",
                              lambda ax: plotting.class_reliability_diagram(fit, data, y=y, ax=ax, bins=bins)),
        "classwise_reliability": ("Classwise reliability diagram",
                                  f"Observed frequency of each class against its predicted probability in {bins} "
                                  f"equal-width bins of the {name}.",
                                  lambda ax: plotting.class_reliability_diagram(fit, data, y=y, ax=ax, bins=bins,
                                                                                view="classwise")),
        "ternary": ("Ternary probability plot",
                    f"The class probabilities of the rows of the {name} in the probability simplex (Gebel 2009, "
                    "Fig. 2.1): marker = assigned class, colour = observed class; the thick lines are the "
                    "decision borders of the argmax rule.",
                    lambda ax: plotting.ternary_plot(fit, data, y=y, ax=ax)),
    }
    for kind in plotting.applicable_kinds(fit):
        title, caption, draw = specs[kind]
        k = len(figures) + len(notes) + 1
        with matplotlib.rc_context(_FONT):
            fig, axes = _figure(6.4, 5.4)
            try:
                draw(axes[0, 0])
            except ValueError as err:
                notes.append(f"{title}: not drawn ({err})")
                continue
            svg = figure_svg(fig, f"{prefix}-{k}", label=title)
        figures.append(ReportFigure(id=f"{prefix}-fig{k}", title=title, caption=caption, svg=svg))
    return figures, notes


def kclass_comparison(named: dict[str, Any], evals: dict[str, tuple], bins: int) -> list[Table]:
    """The measures of every model side by side (any class counts)."""
    rows = []
    for name, fit in named.items():
        data, codes, eval_name = evals[name]
        m = kclass_measures(fit, data, codes, bins)
        rows.append({"model": name, "method": fit.method, "K": fit.n_classes, "data": eval_name, **m.to_dict()})
    t = pd.DataFrame(rows)
    t["n"] = t["n"].astype(np.int64)
    return [table(t, "Measures of the class probabilities of the models", notes=[MEASURE_NOTE])]
