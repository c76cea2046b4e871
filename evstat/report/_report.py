"""The report functions (private module; public as :func:`evstat.report.report` and
:func:`evstat.report.render_report`, and ``ev.report(...)``)."""

from __future__ import annotations

import inspect
import os
import warnings
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from evstat.io.atomic import write_text
from evstat.report._build import build_context

__all__ = ["TEMPLATES", "render_report", "report"]

#: The folder of the report's jinja2 templates and CSS (the studies' reports extend them).
TEMPLATES = Path(__file__).resolve().parent / "templates"


def _environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_report(
    fits: Any,
    newdata: pd.DataFrame | None = None,
    y: Any = None,
    title: str | None = None,
    date: Any = None,
    *,
    reject_cost: float | None = None,
    bins: int = 10,
    grid: int | None = None,
    seed: int | None = None,
    provenance: Mapping[str, str] | None = None,
    notes: Sequence[str] = (),
    pool: pd.DataFrame | None = None,
    queries: int = 10,
    draws: int = 5,
) -> str:
    """The HTML text of a report (what :func:`report` writes); arguments as :func:`report`
    (this signature is declared once, here: :func:`report` takes ``path`` and these).

    Examples
    --------
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> html = render_report(fit, date="2024-01-01", grid=10)
    >>> html.startswith("<!DOCTYPE html>"), '<input type="range"' in html, " src=" in html
    (True, True, False)
    """
    context, caught = build_context(fits, newdata, y, title, date, reject_cost, bins, grid, seed, provenance,
                                    pool=pool, queries=queries, draws=draws)
    context["warnings"] = [*(f"Warning: {n}" for n in notes), *context["warnings"]]
    env = _environment()
    css = (TEMPLATES / "style.css").read_text(encoding="utf-8")
    html = env.get_template("report.html.j2").render(css=css, **context)
    seen = set()
    for w in caught:  # shown in the report; passed on to the caller too, once each
        key = (w.category, str(w.message))
        if key not in seen:
            seen.add(key)
            warnings.warn(str(w.message), w.category, stacklevel=3)
    return html


def old_order_error(path: Any) -> TypeError:
    """The error for ``ev.report(path, fit)``, the order of evstat before issue 25."""
    return TypeError(
        f"ev.report takes the model first, then the path: ev.report(fit, {str(path)!r}) or "
        f"fit.report({str(path)!r}) (a list or dict of models for several), as statsmodels and "
        f"scikit-learn put the object first; the old order ev.report(path, fit) is gone"
    )


def report(fits: Any, path: str | Path, *args: Any, **kwargs: Any) -> Path:
    """Write a self-contained HTML report of one or several fitted models (object first, then
    the path: ``ev.report(fit, "report.html")``, the same as ``fit.report("report.html")``).

    Parameters
    ----------
    fits : Results, list or dict
        One fitted calibrator, a list of them (named by method) or ``{name: calibrator}``; with
        several, a comparison section is added. The peers :func:`evstat.venn_abers` (a
        calibrator with its own section) and :func:`evstat.split_conformal` (shown in the
        comparison only, with labelled ``newdata``) may be among them; the comparison then has
        the interval widths, set sizes and decisions with reject of every model and their
        error-reject curves on one axes.
    path : str or Path
        The HTML file to write (its folder must exist).
    newdata : pandas.DataFrame, optional
        Test rows. With labels (the formula's response column, or ``y``) every metric and
        label-based figure uses them; without labels they get predictions, decisions and the
        ignorance, and the label-based metrics use the calibration data (in-sample, said so).
        Without ``newdata`` everything is in-sample.
    y : str or array-like, optional
        Labels of ``newdata``: a column name, the response levels, or 0/1 codes (1 = positive).
    title : str, optional
        Default ``"evstat calibration report: <formula>"``.
    date : str or datetime.date, optional
        The date printed in the footer (default today). Everything else is a function of the
        inputs, so a fixed ``date`` makes the file byte-identical across runs.
    reject_cost : float in [0, 1], optional
        R_rej of the decisions and decision-region figures. Default: chosen from the data, the
        smallest cost on the grid 0.01, 0.02, ..., 1 at which the pessimistic strategy rejects at
        most a fifth of the rows the report decides (Bel and Pl only, no labels; one cost for all
        calibrators, the largest of theirs; :mod:`evstat.report._cost`), with the decisions at
        Minary et al.'s (2019) 0.15 shown beside it. Give a number to use that cost alone.
    bins : int
        Bins of the reliability table, the interval coverage and the reliability diagram.
    grid : int, optional
        Grid points per axis of the decision-region figure (its cost grows as grid**2 Bel/Pl
        evaluations) and, times three, of the calibration map. Default: 40 for two-class
        models; for K classes the plotting default of :func:`evstat.plotting.region_grid` (16
        parts per side of the simplex, 20 x 20 in a plane), since every grid point of an
        evmultinom fit is a profile-likelihood computation.
    seed : int, optional
        Printed in the footer (e.g. the seed that made the data); evstat's calibrators are
        deterministic and use none.
    provenance : mapping, optional
        Extra ``label: text`` lines for the footer (e.g. the command that made the report).
    notes : sequence of str, optional
        Warnings from before the report (e.g. a calibrator the command line skipped), listed first
        in the "Notes and warnings" section.
    pool : pandas.DataFrame, optional
        Unlabelled rows (score columns). Adds the section "If more rows were labelled": for every
        evlogit, evbinning or isotonic model, the forecast mean ignorance on the pool after 0 to
        ``queries`` labels under Hartley, pignistic and random sampling
        (:func:`evstat.active.outlook`, labels drawn from the model; ``seed`` seeds the draws).
        Its cost is ``3 * draws * queries`` refits and predictions on the pool.
    queries, draws : int
        Labels to forecast (at most the pool size) and simulated labellings per strategy.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    TypeError
        For the old order ``ev.report(path, fit)`` (a path where the model is expected), with the
        call to write instead.

    Notes
    -----
    Warnings raised while computing (e.g. test rows in empty cells of evbinning) are listed in
    the report's "Notes and warnings" section and re-issued once each.

    Examples
    --------
    >>> import os, tempfile
    >>> import evstat as ev
    >>> d = ev.datasets.load("sonar_scores")
    >>> cal, test = d[d.set == "calibration"], d[d.set == "test"]
    >>> fit = ev.evlogit("y ~ svm1", data=cal)
    >>> out = ev.report(fit, os.path.join(tempfile.mkdtemp(), "r.html"), newdata=test, grid=10)
    >>> "Calibration metrics" in out.read_text(encoding="utf-8")
    True
    """
    if isinstance(fits, (str, os.PathLike)):
        raise old_order_error(fits)
    path = Path(path)
    if path.parent and not path.parent.exists():
        raise FileNotFoundError(f"cannot write the report to {str(path)!r}: folder {str(path.parent)!r} does not exist")
    html = render_report(fits, *args, **kwargs)
    write_text(path, html, encoding="utf-8", newline="\n")  # atomic: a failure leaves the old file
    return path


def _report_signature() -> inspect.Signature:
    """:func:`report`'s signature: :func:`render_report`'s (declared once, there) with ``path``
    after ``fits`` (what ``help(ev.report)``, the API pages and editors show)."""
    sig = inspect.signature(render_report)
    fits, *rest = sig.parameters.values()
    path = inspect.Parameter("path", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="str | Path")
    return sig.replace(parameters=[fits, path, *rest], return_annotation="Path")


setattr(report, "__signature__", _report_signature())  # noqa: B010 - mypy has no __signature__ on functions
