"""The report's figures: each drawn on its own matplotlib Figure (no pyplot state) and inlined
as deterministic SVG."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from evstat import plotting
from evstat.plotting.data import predictions, score_columns
from evstat.report.svg import figure_svg

__all__ = ["ReportFigure", "comparison_figure", "fit_figures", "region_costs"]

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

_FONT: dict[RcKeyType, Any] = {"font.size": 9.5, "axes.titlesize": 10.5, "axes.labelsize": 9.5, "legend.fontsize": 8.5}


@dataclass
class ReportFigure:
    id: str
    title: str
    caption: str
    svg: Markup
    #: drawn only without JavaScript (inside ``<noscript>``): the page's interactive panel shows it
    fallback: bool = False


#: quantile of the pessimistic strategy's smaller expected cost min(Pl, 1 - Bel) over the rows
#: that sets the second reject cost of the decision-regions figure when the requested one makes
#: the pessimistic strategy reject every row (a fourth of the rows then get a class)
REGION_COST_QUANTILE = 0.25
#: below this fraction of rows classified by the pessimistic strategy, the figure adds that panel
#: (the K-class class regions use the same share: evstat.plotting.class_regions)
REGION_MIN_DECIDED = 0.1


def region_costs(pred: pd.DataFrame, reject_cost: float, rows_name: str) -> tuple[list[float], str]:
    """Reject costs for the decision-regions figure, chosen from the data, and why.

    The requested cost always; when the pessimistic strategy (upper expected cost) rejects all
    but a fraction ``REGION_MIN_DECIDED`` of the rows at it (``min(Pl, 1 - Bel) > R_rej``),
    which makes the figure (nearly) all grey, also the ``REGION_COST_QUANTILE`` quantile of ``min(Pl, 1 - Bel)`` over the rows (rounded up
    to two decimals, at most 0.5), at which it classifies about a fourth of them.

    Examples
    --------
    >>> pred = pd.DataFrame({"theta": [0.5, 0.7], "bel": [0.3, 0.6], "pl": [0.7, 0.8]})
    >>> region_costs(pred, 0.15, "rows")[0]  # min(Pl, 1 - Bel) = (0.7, 0.4): quantile 0.475
    [0.15, 0.48]
    """
    bel = pred["bel"].to_numpy(dtype=float)
    pl = pred["pl"].to_numpy(dtype=float)
    low = np.minimum(pl, 1.0 - bel)
    low = low[np.isfinite(low)]
    rc = float(reject_cost)
    decided = float(np.mean(low <= rc)) if low.size else 1.0
    if decided >= REGION_MIN_DECIDED:
        return [rc], ""
    second = min(0.5, float(np.ceil(np.quantile(low, REGION_COST_QUANTILE) * 100.0) / 100.0))
    what = "every row" if decided == 0 else f"{1 - decided:.0%} of the rows"
    why = (
        f"At R_rej = {rc:g} the pessimistic strategy rejects {what} of the {rows_name}: its "
        f"expected cost of either class, min(Pl, 1 - Bel), exceeds {rc:g} wherever the ignorance "
        f"Pl - Bel is large, so the regions where all strategies decide a class are "
        f"{'empty' if decided == 0 else 'small'} and the first panel is {'all ' if decided == 0 else 'mostly '}grey. "
        f"The second panel uses R_rej = {second:g}, the {REGION_COST_QUANTILE:.0%} quantile of "
        "that cost over the rows (chosen from the data)."
    )
    return ([rc, second] if second > rc else [rc]), why


def belt_caption(belt: Any, eval_name: str) -> str:
    """The calibration belt's caption: what it is, its test and where it leaves the bisector."""
    p_text = "below 0.001" if belt.pvalue < 0.001 else f"{belt.pvalue:.3f}"
    where = []
    for level in belt.levels:
        dev = belt.deviations(level)
        name = f"{100 * level:g}%"
        if dev.empty:
            where.append(f"the {name} belt contains the bisector everywhere")
        else:
            spans = ", ".join(f"{r['side']} the bisector for theta_hat in [{r['from']:.2f}, {r['to']:.2f}]"
                              for _, r in dev.iterrows())
            where.append(f"the {name} belt lies {spans}")
    dropped = belt.label.split("; ", 1)[1] + ". " if "; " in belt.label else ""
    return (
        f"Calibration belt (Nattino, Finazzi and Bertolini 2014) on the {eval_name}: the polynomial "
        f"logistic recalibration logit P(y = 1) = b0 + b1 g + ... + bm g^m of g = logit(theta_hat), "
        f"degree m = {belt.degree} chosen by forward likelihood-ratio tests, with its 80% and 95% "
        f"confidence belts; the dashed bisector is perfect calibration. Test of b = (0, 1, 0, ...), "
        f"{belt.devel} validation: T = {belt.statistic:.2f}, p-value {p_text}; {'; '.join(where)}. {dropped}"
    ).rstrip()


def _figure(width: float, height: float, ncols: int = 1, nrows: int = 1) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


def fit_figures(
    fit: Any,
    prefix: str,
    eval_data: pd.DataFrame | None,
    eval_y: Any,
    pred_data: pd.DataFrame | None,
    pred_y: Any,
    eval_name: str,
    pred_name: str,
    reject_cost: float,
    bins: int,
    grid: int,
    belt: Any = None,
) -> tuple[list[ReportFigure], list[str]]:
    """The figures of one calibrator and notes on figures that could not be drawn. ``belt``: the
    calibration belt of the evaluation rows when the caller computed it (or the message why it
    could not be), else computed here."""
    import matplotlib

    figures: list[ReportFigure] = []
    notes: list[str] = []
    kinds = plotting.applicable_kinds(fit)
    cols = score_columns(fit)

    def add(title: str, caption: str, draw: Any, size: tuple[float, float], ncols: int = 1, nrows: int = 1) -> None:
        k = len(figures) + len(notes) + 1
        with matplotlib.rc_context(_FONT):
            fig, axes = _figure(size[0], size[1], ncols, nrows)
            try:
                draw(axes)
            except ValueError as err:
                notes.append(f"{title}: not drawn ({err})")
                return
            svg = figure_svg(fig, f"{prefix}-{k}", label=title)
        figures.append(ReportFigure(id=f"{prefix}-fig{k}", title=title, caption=caption, svg=svg))

    add(
        "Reliability diagram",
        f"Observed frequency of the positive class against the predicted probability theta_hat in "
        f"{bins} equal-width bins of the {eval_name}, with {0.95:.0%} Wilson intervals; the shaded band "
        "joins the mean Bel({1}) and mean Pl({1}) of each bin's rows. The diagonal is perfect "
        f"calibration; the grey histogram (right axis) counts the rows in the same {bins} bins.",
        lambda ax: plotting.reliability_diagram(fit, eval_data, y=eval_y, ax=ax[0, 0], bins=bins),
        (6.0, 4.8),
    )
    if "belt" in kinds:
        if belt is None:
            try:
                belt = plotting.calibration_belt(fit, eval_data, y=eval_y)
            except ValueError as err:
                belt = str(err)
        if isinstance(belt, str):
            notes.append(f"Calibration belt: not computed ({belt})")
        else:
            add("Calibration belt", belt_caption(belt, eval_name),
                lambda ax: plotting.belt_diagram(fit, eval_data, y=eval_y, ax=ax[0, 0], belt=belt), (6.0, 5.0))
    if "calibration_map" in kinds:
        add(
            "Calibration map",
            f"theta_hat, Bel({{1}} | s) and Pl({{1}} | s) against the score {cols[0]}; the band is the "
            f"ignorance Pl - Bel. The rug shows the rows of the {pred_name} (negative class at the "
            "bottom, positive at the top).",
            lambda ax: plotting.calibration_map(fit, pred_data, y=pred_y, ax=ax[0, 0], grid=max(grid * 3, 60)),
            (6.4, 4.6),
        )
    if "score_densities" in kinds:
        fitted = " with the fitted class-conditional densities" if fit.capabilities.densities else ""
        add(
            "Class-conditional score densities",
            f"Density histograms of the score {cols[0]} per observed class on the {eval_name}{fitted} "
            "(Gebel 2009, Figs. 4.5-4.6).",
            lambda ax: plotting.score_densities(
                fit, eval_data, ax=ax[0, 0],
                y=None if eval_y is None else np.asarray(fit.classes, dtype=object)[np.asarray(eval_y, dtype=np.intp)],
            ),
            (6.4, 4.4),
        )
    if "decision_regions" in kinds:
        others = cols[2:]
        held = (
            f" The other score columns ({', '.join(others)}) are held at their calibration medians."
            if others else ""
        )
        costs, why = region_costs(predictions(fit, pred_data), reject_cost, pred_name)
        panels = " and ".join(f"R_rej = {c:g}" for c in costs)
        add(
            "Decision regions",
            f"Frontiers of the pessimistic, optimistic and probabilistic strategies in the plane of "
            f"{cols[0]} and {cols[1]} at reject cost {panels} (Minary et al. 2019, "
            f"Fig. 7), evaluated on a {grid} x {grid} grid; points are the rows of the "
            f"{pred_name}. Grey: some strategy rejects or the strategies disagree.{held} {why}".rstrip(),
            lambda ax: [plotting.decision_regions(fit, pred_data, y=pred_y, ax=ax[0, i], reject_cost=c, grid=grid)
                        .set_title(f"R_rej = {c:g}") for i, c in enumerate(costs)],
            (6.4 * len(costs), 6.0), ncols=len(costs),
        )
    if "contours" in kinds:
        add(
            "Predictive contour functions",
            f"pl(theta | s) of three rows of the {pred_name} chosen at low, middle and high theta_hat "
            "(the relative profile likelihood of theta; Minary et al. 2019, Fig. 1 style); dotted "
            "lines mark theta_hat.",
            lambda ax: plotting.predictive_contours(fit, pred_data, ax=ax[0, 0], points=201),
            (6.4, 4.6),
        )
    if "profile" in kinds:
        terms = list(fit.params.index)
        ncols = min(len(terms), 2)
        nrows = int(np.ceil(len(terms) / ncols))

        def draw_profiles(ax: Any) -> None:
            flat = ax.ravel()
            for i, t in enumerate(terms):
                plotting.coefficient_profile(fit, t, ax=flat[i])
            for extra in flat[len(terms):]:
                extra.set_visible(False)
            flat[0].figure.get_layout_engine().set(h_pad=0.15, hspace=0.05)

        add(
            "Coefficient profiles",
            "Signed root z(b) = sign(b - beta_hat) sqrt(2 (l_hat - l_p(b))) of each coefficient; "
            "grey lines at +-1.96 and dashed lines at the ends of the 95% likelihood-ratio "
            "(profile) interval; dotted line at the estimate.",
            draw_profiles,
            (4.6 * ncols, 3.6 * nrows),
            ncols=ncols,
            nrows=nrows,
        )

    def draw_reject(ax: Any) -> None:
        plotting.reject_curve(fit, eval_data, y=eval_y, ax=ax[0, 0])
        plotting.reject_curve(fit, eval_data, y=eval_y, ax=ax[0, 1], x="error_rate")
        ax[0, 1].set_title("Accuracy against error rate as $R_{rej}$ varies", fontsize="medium")

    add(
        "Decisions with a reject option",
        f"Left: error rate (misclassified / tested) and accuracy (correct / decided) of the three "
        f"strategies on the {eval_name} as the reject cost R_rej runs from 0 to 1. Right: accuracy "
        "against error rate along the same path (Minary et al. 2019, Figs. 9-10): at equal error, "
        "higher is better.",
        draw_reject,
        (11.0, 4.6),
        ncols=2,
    )
    add(
        "Ignorance",
        f"Histogram of the ignorance m({{0,1}}) = Pl({{1}}) - Bel({{1}}) of the rows of the {pred_name}.",
        lambda ax: plotting.ignorance_histogram(fit, pred_data, ax=ax[0, 0]),
        (6.0, 3.8),
    )
    return figures, notes


def comparison_figure(fits: dict[str, Any], newdata: pd.DataFrame, y: Any) -> ReportFigure:
    """Accuracy against error rate of every model (calibrators over the reject cost, conformal
    classifiers over the confidence level) on one axes."""
    import matplotlib

    with matplotlib.rc_context(_FONT):
        fig, axes = _figure(6.8, 5.0)
        plotting.compare_reject_curves(fits, newdata, y, ax=axes[0, 0])
        svg = figure_svg(fig, "cmp-1", label="Error-reject curves of all models")
    return ReportFigure(
        id="cmp-fig1", title="Error-reject curves of all models",
        caption=("Accuracy (correct / decided) against error rate (wrong / tested) on the new data. "
                 "Calibrators: the pessimistic and probabilistic strategies as the reject cost runs from "
                 "0 to 1; conformal classifiers: singleton sets decided, other sets rejected, as the "
                 "confidence level runs from 0.5 to 0.99. At equal error the higher curve is better."),
        svg=svg,
    )
