"""How the ignorance on a pool would fall if its rows were labelled, under each query strategy.

The labels of the pool are unknown, so the forecast is model-based: in each of ``draws`` simulated
labellings, every row a strategy asks for gets a label drawn from the fitted model's own
probability ``theta_hat`` (a Bernoulli draw; the model one has is the best guess of the labels
to come), the calibrator is refitted, and the mean ignorance ``Pl - Bel`` on the pool is
recorded. The mean over draws is the expected ignorance under the fitted model after ``k``
queries; it is a forecast, not a guarantee (a misspecified model forecasts its own labels).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from evstat.active._query import STRATEGIES, check_pool
from evstat.active._update import _refit, labelled_data
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
        :func:`evstat.plotting.active_curves`.

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
    fit_fn = refit if refit is not None else (lambda d: _refit(fit, d))
    neg, pos = fit.classes
    children = np.random.SeedSequence(seed).spawn(draws)
    frames = []
    for d, child in enumerate(children):
        label_seed, loop_seed = child.spawn(2)
        u = pd.Series(np.random.default_rng(label_seed).random(len(pool)), index=pool.index)
        theta = fit.predict(pool, type="prob").to_numpy(dtype=float)
        draw = pd.Series(np.where(u.to_numpy() < theta, pos, neg), index=pool.index, dtype=object)

        def oracle(rows: pd.DataFrame, draw: pd.Series = draw) -> Any:
            return draw.loc[rows.index].to_numpy()

        for s in strategies:
            h = simulate(fit_fn, labelled, pool, oracle, strategy=s, queries=queries, test=pool,
                         seed=int(loop_seed.generate_state(1)[0]))
            frames.append(pd.DataFrame({"strategy": s, "round": d, "queries": h["step"].to_numpy(),
                                        "n_labelled": h["n_labelled"].to_numpy(),
                                        "ignorance": h["ignorance"].to_numpy()}))
    return pd.concat(frames, ignore_index=True)
