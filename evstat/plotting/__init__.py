"""Figures of fitted calibrators (matplotlib): functions that take results and return an Axes.

Every function takes a fitted calibrator (any :class:`evstat.calibration.CalibrationResults`),
optional new data and an optional matplotlib ``ax``, draws on it (or on a new figure) and returns
the Axes. ``fit.plot(kind=...)`` dispatches to them through :func:`plot`:

===========================  =================================  =======================================
kind                         function                           applies to
===========================  =================================  =======================================
``"reliability"``            :func:`reliability_diagram`        every calibrator (needs labels)
``"calibration_map"``        :func:`calibration_map`            one score column (J = 1)
``"decision_regions"``       :func:`decision_regions`           two or more score columns (J >= 2)
``"contours"``               :func:`predictive_contours`        calibrators with ``predictive_contour``
``"profile"``                :func:`coefficient_profile`        calibrators with coefficient profiles
``"reject_curve"``           :func:`reject_curve`               every calibrator (needs labels)
``"ignorance"``              :func:`ignorance_histogram`        every calibrator
``"class_regions"``          :func:`class_regions`              2 to 4 classes, J >= 2
``"belief_map"``             :func:`class_contours`             2 to 4 classes, J >= 2
``"class_reliability"``      :func:`class_reliability_diagram`  any number of classes (top-label view)
``"classwise_reliability"``  :func:`class_reliability_diagram`  any number of classes (classwise)
``"ternary"``                :func:`ternary_plot`               three classes
``"score_densities"``        :func:`score_densities`            one score column (class-conditional)
``"belt"``                   :func:`belt_diagram`               two classes (needs labels)
===========================  =================================  =======================================

With three or more classes, ``"decision_regions"`` draws :func:`class_regions` (what
``fit.decide`` answers over the score space: classes, reject, meta-classes, outliers) and
``"belief_map"`` the ignorance m(Omega) or a class's probability, Bel or Pl; the other kinds
are two-class figures. Both predict once on a grid (:func:`region_grid`, which the report
reuses): the simplex of the scores (a triangle) for a three-class fit on class probabilities or
their logs, else the plane of two score columns, the others held at values the title states.
``fit.plot()`` without a kind draws :func:`default_kind`.

Above :data:`MAX_REGION_CLASSES` = 4 classes (the ten digits, say) the region and map figures
are not drawn: a plane of two of ten score columns, the other eight held fixed, shows ten
colours over a slice of the score space few rows lie near, and a reader cannot read it; asked
for, they raise a ValueError that names the kinds to draw instead. The reliability diagrams
remain, the classwise one as one small panel per class. A model whose Bel/Pl of one row are an
optimisation over many parameters (evmultinom at K = 10) draws its bands from at most
:data:`evstat.plotting.probability.BAND_ROWS` rows (:func:`belief_rows`), said in the title.

Colours are the Okabe-Ito colour-blind-safe palette; strategies and classes also differ by line
style and marker.
"""

from typing import Any, Callable

import pandas as pd

from evstat.plotting._style import OKABE_ITO, STRATEGY_STYLE
from evstat.plotting.active import active_curves, query_map
from evstat.plotting.belt import belt_diagram, calibration_belt
from evstat.plotting._calibration_map import calibration_map
from evstat.plotting._class_regions import class_contours, class_regions
from evstat.plotting._grid import MAX_REGION_CLASSES, SMOOTH, FineGrid, RegionGrid, region_grid, score_simplex
from evstat.plotting.contours import predictive_contours
from evstat.plotting._decision_regions import decision_regions
from evstat.plotting.ignorance import ignorance_histogram
from evstat.plotting.probability import (
    belief_rows,
    class_band,
    class_probabilities,
    class_reliability_diagram,
    score_densities,
    ternary_coordinates,
    ternary_plot,
)
from evstat.plotting.profile import coefficient_profile
from evstat.plotting.reject import compare_reject_curves, draw_reject_curves, reject_curve
from evstat.plotting.reliability import reliability_diagram

__all__ = [
    "KINDS",
    "MAX_REGION_CLASSES",
    "OKABE_ITO",
    "SMOOTH",
    "FineGrid",
    "RegionGrid",
    "STRATEGY_STYLE",
    "active_curves",
    "applicable_kinds",
    "belt_diagram",
    "calibration_belt",
    "belief_rows",
    "class_band",
    "calibration_map",
    "class_contours",
    "class_probabilities",
    "class_reliability_diagram",
    "class_regions",
    "coefficient_profile",
    "decision_regions",
    "default_kind",
    "ignorance_histogram",
    "plot",
    "predictive_contours",
    "query_map",
    "compare_reject_curves",
    "draw_reject_curves",
    "region_grid",
    "reject_curve",
    "reliability_diagram",
    "score_simplex",
    "score_densities",
    "ternary_coordinates",
    "ternary_plot",
]

#: plot kinds of ``fit.plot(kind=...)`` and the functions drawing them
KINDS: dict[str, Callable[..., Any]] = {
    "reliability": reliability_diagram,
    "calibration_map": calibration_map,
    "decision_regions": decision_regions,
    "contours": predictive_contours,
    "profile": coefficient_profile,
    "reject_curve": reject_curve,
    "ignorance": ignorance_histogram,
    "class_regions": class_regions,
    "belief_map": class_contours,
    "class_reliability": class_reliability_diagram,
    "classwise_reliability": lambda results, **kw: class_reliability_diagram(results, view="classwise", **kw),
    "ternary": ternary_plot,
    "score_densities": score_densities,
    "belt": belt_diagram,
}

#: the kinds that draw models with any number of classes
ANY_K_KINDS = ("decision_regions", "class_regions", "belief_map", "class_reliability", "classwise_reliability",
               "ternary", "score_densities")


def applicable_kinds(results: Any) -> list[str]:
    """The plot kinds that apply to ``results``, in the order of :data:`KINDS`.

    Examples
    --------
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> applicable_kinds(fit)
    ['reliability', 'decision_regions', 'contours', 'profile', 'reject_curve', 'ignorance', 'belt']
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl",
    ...                                                 "petal width (cm)": "pw"})
    >>> applicable_kinds(ev.eknn("y ~ pl + pw", iris))
    ['decision_regions', 'belief_map', 'class_reliability', 'classwise_reliability', 'ternary']
    """
    j = len(results.score_columns)
    if not results.is_binary:
        # above MAX_REGION_CLASSES classes no region figure: what a reader of ten classes can
        # read is the reliability per class and the class bounds, not a plane of ten colours
        out = ["decision_regions", "belief_map"] if j >= 2 and results.n_classes <= MAX_REGION_CLASSES else []
        out += ["class_reliability", "classwise_reliability"]
        if results.n_classes == 3:
            out.append("ternary")
        return out
    out = ["reliability"]
    if j == 1:
        out += ["calibration_map", "score_densities"]
    if j >= 2:
        out.append("decision_regions")
    if results.capabilities.contours:
        out.append("contours")
    if results.capabilities.profiles:
        out.append("profile")
    out += ["reject_curve", "ignorance", "belt"]
    return out


def default_kind(results: Any) -> str:
    """The figure ``fit.plot()`` draws without a kind.

    Two classes: ``"reliability"`` (the reliability diagram with Bel/Pl bands). Three or more
    classes: ``"class_reliability"``, the top-label reliability diagram (accuracy of the argmax
    class against its probability, with 95% intervals): the K-class counterpart of the two-class
    default, drawn for every model (any number of score columns) from the probabilities of the
    rows only, so it takes no grid of predictions. Both need labels: the training labels when
    ``newdata`` is None, else ``newdata``'s response column or ``y=``.

    Examples
    --------
    >>> import evstat as ev
    >>> default_kind(ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1)))
    'reliability'
    >>> iris = ev.datasets.load("iris").rename(columns={"Species": "y", "petal length (cm)": "pl",
    ...                                                 "petal width (cm)": "pw"})
    >>> default_kind(ev.eknn("y ~ pl + pw", iris))
    'class_reliability'
    """
    return "reliability" if results.is_binary else "class_reliability"


def _resolve_kind(results: Any, kind: Any, newdata: Any) -> tuple[str, Any]:
    """``(kind, newdata)`` after the default kind and a DataFrame passed where the kind goes."""
    if isinstance(kind, pd.DataFrame):
        if newdata is not None:
            raise TypeError(
                "plot() got a DataFrame as kind and newdata as well: the first argument is the "
                f"plot kind, one of {applicable_kinds(results)}; call fit.plot(kind, newdata=...)"
            )
        # unambiguous: no kind is a DataFrame, so fit.plot(test) means fit.plot(newdata=test)
        return default_kind(results), kind
    if kind is None:
        return default_kind(results), newdata
    if not isinstance(kind, str):
        raise TypeError(
            f"kind must be a plot kind name (a str), one of {applicable_kinds(results)}, got "
            f"{type(kind).__name__}; pass rows as newdata=, e.g. fit.plot('{default_kind(results)}', newdata=test)"
        )
    return kind, newdata


def plot(results: Any, kind: str | None = None, newdata: pd.DataFrame | None = None, *, y: Any = None,
         ax: Any = None, **kwargs: Any) -> Any:
    """Draw one kind of figure of a fitted model (what ``fit.plot(kind, newdata, ...)`` calls).

    Parameters
    ----------
    results : evstat.results.Results
    kind : str, optional
        One of :data:`KINDS` that applies to the model (:func:`applicable_kinds`); default
        :func:`default_kind`: ``"reliability"`` for two classes, ``"class_reliability"`` (the
        top-label reliability diagram) for three or more. A DataFrame given here
        (``fit.plot(test)``) is read as ``newdata`` with the default kind: no kind is a
        DataFrame, so that reading is unambiguous (with ``newdata`` given as well it is a
        TypeError); any other non-string is a TypeError naming the kinds.
    newdata : pandas.DataFrame, optional
        Rows to evaluate (default: the calibration rows); not accepted by ``"profile"``.
    y : str or array-like, optional
        Labels of ``newdata`` (default: its response column), for the kinds that draw labels.
    ax : matplotlib Axes, optional
    **kwargs
        Passed to the plotting function (e.g. ``reject_cost=`` for ``"decision_regions"``,
        ``term=`` for ``"profile"``, ``rows=`` for ``"contours"``, ``grid=`` for the region and
        map figures).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        An unknown kind, or a kind that does not apply to this model (e.g.
        ``"calibration_map"`` with two scores, ``"profile"`` for evbinning, a two-class figure
        of a three-class model).
    TypeError
        A kind that is not a string (and not a DataFrame read as ``newdata``).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> ax = plot(fit, kind="calibration_map", grid=20)
    >>> ax.get_title()
    'Calibration map (evlogit)'
    >>> plot(fit).get_title().startswith("Reliability")
    True
    """
    kind, newdata = _resolve_kind(results, kind, newdata)
    if kind not in KINDS:
        raise ValueError(f"unknown plot kind {kind!r}; choose one of {applicable_kinds(results)}")
    if y is not None:
        kwargs["y"] = y
    if not results.is_binary:
        if kind not in ANY_K_KINDS:
            raise ValueError(
                f"plot kind {kind!r} is a two-class figure, but this {results.method} fit has "
                f"{results.n_classes} classes {list(results.classes)}: choose one of {applicable_kinds(results)}"
            )
        if kind == "decision_regions":
            return class_regions(results, newdata=newdata, ax=ax, **kwargs)
    # a kind that does not apply raises a ValueError in its function, naming the reason
    return KINDS[kind](results, newdata=newdata, ax=ax, **kwargs)
