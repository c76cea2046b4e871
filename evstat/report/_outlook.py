"""The report's active-labelling section: with a pool of unlabelled rows, how the ignorance would
fall under each query strategy (:func:`evstat.active.outlook`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evstat import plotting
from evstat.active import outlook
from evstat.report._figures import _FONT, ReportFigure, _figure
from evstat.report.svg import figure_svg
from evstat.report.tables import Table, table

__all__ = ["OutlookSection", "forecasts", "outlook_section"]

#: strategies shown (the paper's three; "eir" refits once per candidate and is left to the API)
OUTLOOK_STRATEGIES = ("hartley", "pignistic", "random")


@dataclass
class OutlookSection:
    pool_rows: int
    queries: int
    draws: int
    tables: list[Table] = field(default_factory=list)
    figures: list[ReportFigure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _work_note(f: pd.DataFrame) -> str:
    """How many draws and refits the forecast used (evstat.active.outlook's ``attrs``)."""
    done, reused = f.attrs.get("refits", 0), f.attrs.get("refits_reused", 0)
    if not done and not reused:
        return f" Draws used: {f.attrs.get('draws', '?')}."
    return (f" Draws used: {f.attrs['draws']}; {done} refits, {reused} more shared between draws and "
            "strategies that labelled the same rows alike.")


def _eligible(fit: Any) -> bool:
    """A model :func:`evstat.active.update` can refit (its declaration, not a list of models)."""
    return bool(fit.is_binary and fit.capabilities.refit)


def forecasts(named: dict[str, Any], pool: pd.DataFrame, queries: int, draws: int,
              seed: int | None) -> dict[str, pd.DataFrame]:
    """The forecast of every model that :func:`evstat.active.update` can refit (the costly part
    of the section; :func:`outlook_section` draws and tabulates it). Deterministic, so the
    report may compute it in a second process beside its figures (:class:`evstat.io.workers.ForkedCall`)."""
    if not isinstance(pool, pd.DataFrame):
        raise TypeError(f"pool must be a pandas DataFrame, got {type(pool).__name__}")
    queries = min(int(queries), len(pool))
    return {name: outlook(fit, pool, queries=queries, strategies=OUTLOOK_STRATEGIES, draws=draws,
                          seed=0 if seed is None else seed)
            for name, fit in named.items() if _eligible(fit)}


def outlook_section(named: dict[str, Any], pool: pd.DataFrame, queries: int, draws: int, seed: int | None,
                    frames: dict[str, pd.DataFrame] | None = None) -> OutlookSection:
    """Forecast of the pool's mean ignorance after 0..``queries`` labels for every model that
    :func:`evstat.active.update` can refit; a note for the others. ``frames``: the result of
    :func:`forecasts` for the same arguments, when already computed."""
    if frames is None:
        frames = forecasts(named, pool, queries, draws, seed)
    queries = min(int(queries), len(pool))
    sec = OutlookSection(pool_rows=len(pool), queries=queries, draws=int(draws))
    for i, (name, fit) in enumerate(named.items()):
        if not _eligible(fit):
            from evstat.results import registered

            have = ", ".join(m for m, c in registered().items() if c.capabilities.refit)
            sec.notes.append(f"{name} ({fit.method}): no forecast (the labelling loop refits the two-class models "
                             f"that declare a refit, {have}; use evstat.active.outlook(fit, pool, refit=...) "
                             "for others)")
            continue
        f = frames[name]
        mean = f.groupby(["strategy", "queries"], sort=False)["ignorance"].mean().unstack()
        start, end = mean[0], mean[queries]
        half = mean[queries // 2]
        rows = pd.DataFrame({
            "now": start, f"after {queries // 2}": half, f"after {queries}": end,
            "fall": (start - end) / start,
        }, index=mean.index)
        sec.tables.append(table(
            rows, f"{name}: forecast mean ignorance on the pool", index="strategy",
            formatters={"fall": lambda v: f"{100 * v:.1f}%"},
            notes=[f"Mean Pl - Bel on the {len(pool)} pool rows after labelling 0, {queries // 2} and {queries} "
                   f"of them (one per query), averaged over {draws} simulated labellings drawn from the model's "
                   f"own probabilities (seed {0 if seed is None else seed}); 'fall' is relative to now."
                   + _work_note(f)],
        ))
        import matplotlib

        with matplotlib.rc_context(_FONT):
            fig, axes = _figure(6.4, 4.2)
            plotting.active_curves(f, value="ignorance", ax=axes[0, 0])
            axes[0, 0].set_ylabel("forecast mean ignorance on the pool")
            svg = figure_svg(fig, f"ol-{i + 1}", label=f"Forecast ignorance of {name}")
        sec.figures.append(ReportFigure(
            id=f"outlook-{i + 1}", title=f"{name}: ignorance on the pool against queries",
            caption=("Mean Pl - Bel on the pool after each query under Hartley sampling (the row of "
                     "largest ignorance), pignistic sampling (largest entropy of BetP) and random "
                     "sampling, refitting after every label. The labels are simulated from the fitted "
                     "model's probabilities (the same draws for every strategy), so this is a "
                     f"model-based forecast; bands: mean +- 1 se over {draws} draws."),
            svg=svg,
        ))
    return sec
