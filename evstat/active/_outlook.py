"""How the ignorance on a pool would fall if its rows were labelled, under each query strategy.

The labels of the pool are unknown, so the forecast is model-based: in each of ``draws`` simulated
labellings, every row a strategy asks for gets a label drawn from the fitted model's own
probability ``theta_hat`` (a Bernoulli draw; the model one has is the best guess of the labels
to come), the calibrator is refitted, and the mean ignorance ``Pl - Bel`` on the pool is
recorded. The mean over draws is the expected ignorance under the fitted model after ``k``
queries; it is a forecast, not a guarantee (a misspecified model forecasts its own labels).

Cost (issue 26: 39 s for 10 queries, 5 draws, 3 strategies and 79 pool rows before). Up to
``draws x strategies x queries`` refits and predictions of the pool, done once each:

* an evlogit fit of plain score columns runs the loop on arrays (:mod:`evstat.active._engine`:
  no formula parsing and DataFrames per step; the fit is passed to
  :func:`evstat.active.simulate` as a fitted calibrator, which refits it by the update rule);
* the draws and strategies run inside one :func:`evstat.active._engine.shared_work` block:
  a state reached twice (the same rows labelled alike in the same order: Hartley and
  pignistic sampling ask for the same first rows in every draw, and the draws agree on their
  labels half the time or more) is refitted and predicted once;
* the pool is predicted once per state even though it is also the test set.

The result is the same as the straightforward loop (``tests/active/test_outlook.py`` compares
them); its ``attrs`` record ``draws``, ``refits`` (done) and ``refits_reused`` (saved).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.active._engine import shared_work
from evstat.active._query import STRATEGIES, check_pool
from evstat.active._update import labelled_data
from evstat.active.loop import simulate

__all__ = ["outlook"]


def outlook(
    fit: Any,
    pool: pd.DataFrame,
    queries: int = 10,
    strategies: Sequence[str] = ("hartley", "pignistic", "random"),
    draws: int = 10,
    seed: int | None = 0,
    refit: Callable[[pd.DataFrame], Any] | None = None,
) -> pd.DataFrame:
    """Forecast the mean ignorance on ``pool`` after 0..``queries`` labels under each strategy.

    For each strategy and each of ``draws`` simulated labellings, :func:`evstat.active.simulate`
    runs the labelling loop from the calibration rows of ``fit`` with an oracle that draws the
    label of each queried row from ``fit``'s probability ``theta_hat`` of that row (Bernoulli),
    refitting after every query, and measures the mean ignorance on the whole pool (the rows
    labelled so far included). Draw ``d`` uses the same seeds for every strategy (common random
    numbers), so the strategies are compared on the same simulated labels where they ask for the
    same rows.

    Parameters
    ----------
    fit : CalibrationResults
        A fitted two-class calibrator (evlogit, evbinning, isotonic, or any model with ``refit``).
    pool : pandas.DataFrame
        Unlabelled rows (the score columns of ``fit``'s formula).
    queries : int
        Rows to label, one per query (at most the pool size).
    strategies : sequence of str
        Strategies of :func:`evstat.active.query` (``"hartley"``, ``"pignistic"``, ``"random"``,
        ``"eir"``).
    draws : int
        Simulated labellings per strategy.
    seed : int, optional
        Seeds the labels and the random strategy; the same seed gives the same forecast.
    refit : callable, optional
        ``DataFrame -> fit`` for models :func:`evstat.active.update` cannot refit by itself.

    Returns
    -------
    pandas.DataFrame
        One row per strategy, draw and number of queries: ``strategy``, ``round`` (the draw),
        ``queries``, ``n_labelled``, ``ignorance`` (mean Pl - Bel on the pool); draw it with
        :func:`evstat.plotting.active_curves`. ``attrs``: ``draws``, and for the array path of
        evlogit ``refits`` (refits done) and ``refits_reused`` (refits shared across draws and
        strategies).

    Raises
    ------
    ValueError
        An unknown strategy, ``queries`` larger than the pool, ``draws`` < 1, or what
        :func:`evstat.active.check_pool` refuses (missing or non-numeric scores, an empty pool).

    Examples
    --------
    >>> import evstat as ev
    >>> data = ev.datasets.simulate_gaussian(60, seed=1).sample(frac=1, random_state=0)
    >>> fit = ev.evlogit("y ~ x1", data=data.iloc[:15])
    >>> f = ev.active.outlook(fit, data.iloc[15:40].drop(columns="y"), queries=2, draws=2)
    >>> f.groupby("strategy", sort=False)["ignorance"].size().to_dict()
    {'hartley': 6, 'pignistic': 6, 'random': 6}
    """
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    if not strategies:
        raise ValueError(f"strategies is empty; pass some of {list(STRATEGIES)}")
    for s in strategies:
        if s not in STRATEGIES:
            raise ValueError(f"unknown strategy {s!r}; use some of {list(STRATEGIES)}")
    for name, v, low in (("queries", queries, 0), ("draws", draws, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{name} must be a whole number >= {low}, got {v!r}")
    pool = check_pool(fit, pool)
    if queries > len(pool):
        raise ValueError(f"queries = {queries} exceeds the {len(pool)} pool rows: ask at most {len(pool)}")
    labelled = labelled_data(fit)
    # distinct index labels for the simulation (a pool read from a file repeats 0, 1, ...)
    labelled = labelled.set_axis(pd.RangeIndex(len(labelled)))
    cols = [c for c in labelled.columns if c in pool.columns and c != fit.response]
    pool = pool[cols].set_axis(pd.RangeIndex(len(labelled), len(labelled) + len(pool)))
    # the fit itself: simulate refits it by the update rule (evstat.active.update), on arrays for
    # an evlogit fit of plain score columns; a refit callable keeps the general path
    fit_fn: Any = refit if refit is not None else fit
    neg, pos = fit.classes
    theta = fit.predict(pool, type="prob").to_numpy(dtype=float)
    label = "_".join(["drawn", *map(str, pool.columns), str(fit.response)])  # a name no column has
    children = np.random.SeedSequence(seed).spawn(draws)
    frames = []
    with shared_work() as work:
        for d, child in enumerate(children):
            label_seed, loop_seed = child.spawn(2)
            u = np.random.default_rng(label_seed).random(len(pool))
            # the drawn labels as a column of the pool, the oracle naming it (a column is read
            # directly; a callable oracle would be handed described copies of the chosen rows)
            drawn = pool.assign(**{label: pd.Series(np.where(u < theta, pos, neg), index=pool.index, dtype=object)})
            for s in strategies:
                h = simulate(fit_fn, labelled, drawn, label, strategy=s, queries=queries, test=pool,
                             seed=int(loop_seed.generate_state(1)[0]))
                frames.append(pd.DataFrame({"strategy": s, "round": d, "queries": h["step"].to_numpy(),
                                            "n_labelled": h["n_labelled"].to_numpy(),
                                            "ignorance": h["ignorance"].to_numpy()}))
    out = pd.concat(frames, ignore_index=True)
    out.attrs.update(draws=int(draws), refits=int(work["refits"]), refits_reused=int(work["reused"]))
    return out
