"""The labelling loop with an oracle: query, label, refit, measure; repeat.

:func:`simulate` starts from a fit on the labelled rows, and at every step asks
:func:`evstat.active.query` for ``n`` pool rows, gets their labels from the oracle (a label
column of the pool, or a callable), moves them from the pool to the labelled rows, refits with
``fit_fn`` and records on the test rows

* ``ignorance``: mean of Pl - Bel (the quantity of 003, Figs. 1-2);
* ``brier``: mean of (BetP(1) - y)^2, BetP(1) = (Bel + Pl) / 2 (003, Fig. 2);
* ``error``: error rate of the pignistic decision (positive iff BetP(1) > 1/2).

Seeds: the generator of ``seed`` spawns one child per step (numpy SeedSequence), so a history
is reproduced exactly by the same seed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from evstat.active._query import STRATEGIES, check_pool, pool_belief, query

__all__ = ["simulate", "test_metrics"]


def test_metrics(fit: Any, test: pd.DataFrame) -> dict[str, float]:
    """Mean ignorance, Brier score of BetP and pignistic error rate of ``fit`` on ``test``
    (which needs the response column for the last two; without it they are NaN).

    Examples
    --------
    >>> import evstat as ev
    >>> from evstat.active import test_metrics
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(30, seed=1))
    >>> sorted(test_metrics(fit, ev.datasets.simulate_gaussian(20, seed=2)))
    ['brier', 'error', 'ignorance']
    """
    b = pool_belief(fit, test)
    out = {"ignorance": float(b["ignorance"].mean()), "brier": np.nan, "error": np.nan}
    resp = fit.response
    if resp in test.columns:
        y = (test[resp] == fit.positive).to_numpy(dtype=np.float64)
        p = b["betp"].to_numpy()
        out["brier"] = float(np.mean((p - y) ** 2))
        out["error"] = float(np.mean((p > 0.5) != (y == 1)))
    return out


def _oracle_labels(oracle: Any, rows: pd.DataFrame, pool: pd.DataFrame, classes: tuple) -> pd.Series:
    if isinstance(oracle, str):
        labels = pool.loc[rows.index, oracle]
    elif callable(oracle):
        got = oracle(rows.copy())
        labels = got if isinstance(got, pd.Series) else pd.Series(list(np.asarray(got, dtype=object).ravel()))
        if len(labels) != len(rows):
            raise ValueError(f"the oracle returned {len(labels)} labels for {len(rows)} rows: return one label per row")
        labels = pd.Series(labels.to_numpy(), index=rows.index)
    else:
        raise TypeError(f"oracle must be a column name of the pool or a callable rows -> labels, got {type(oracle).__name__}")
    bad = ~labels.isin(list(classes))
    if bad.any():
        raise ValueError(
            f"the oracle labelled {int(bad.sum())} row(s) with a label outside the classes {list(classes)} "
            f"(index {list(labels.index[bad.to_numpy()][:5])}, labels {list(labels[bad].unique()[:5])}): "
            "the oracle must return one of the calibration data's classes"
        )
    return labels


def simulate(
    fit_fn: Callable[[pd.DataFrame], Any],
    labelled: pd.DataFrame,
    pool: pd.DataFrame,
    oracle: str | Callable[[pd.DataFrame], Any],
    strategy: str = "hartley",
    queries: int = 20,
    test: pd.DataFrame | None = None,
    n: int = 1,
    seed: int | None = None,
    **query_options: Any,
) -> pd.DataFrame:
    """Run the labelling loop with an oracle and return its history.

    Parameters
    ----------
    fit_fn : callable
        ``DataFrame -> fit``, e.g. ``lambda d: ev.evlogit("y ~ s1 + s2", d)``; called on the
        labelled rows at the start and after every step.
    labelled : pandas.DataFrame
        The initial labelled rows (response and score columns).
    pool : pandas.DataFrame
        Unlabelled candidates (score columns; a label column too when ``oracle`` names it). Its
        index must not overlap ``labelled``'s.
    oracle : str or callable
        A column of ``pool`` holding the true labels, or ``rows -> labels`` (one per row, among
        the classes of ``labelled``).
    strategy : {"hartley", "pignistic", "random", "eir"}
        Query strategy (:func:`evstat.active.query`).
    queries : int
        Number of steps (each labels ``n`` rows).
    test : pandas.DataFrame, optional
        Rows to measure on (with the response column for the Brier score and error). Default:
        the initial pool (ignorance only, unless it holds the response column).
    n : int
        Rows per step (a batch, :func:`evstat.active.query`).
    seed : int, optional
        Makes the history reproducible (module docstring).
    **query_options
        Passed to :func:`evstat.active.query` (``batch``, ``candidates``, ``reference``).

    Returns
    -------
    pandas.DataFrame
        One row per step 0..queries: ``strategy``, ``step``, ``n_labelled``, ``queried`` (list
        of pool index labels asked at that step; empty at step 0), ``labels``, ``ignorance``,
        ``brier``, ``error``.

    Examples
    --------
    >>> import evstat as ev
    >>> data = ev.datasets.simulate_gaussian(80, seed=4).sample(frac=1, random_state=0)
    >>> h = ev.active.simulate(lambda d: ev.evbinning("y ~ x1", d, bins=2), data.iloc[:10],
    ...                        data.iloc[10:60], oracle="y", queries=3, test=data.iloc[60:], seed=1)
    >>> h[["step", "n_labelled"]].values.tolist()
    [[0, 10], [1, 11], [2, 12], [3, 13]]
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {list(STRATEGIES)}")
    if isinstance(queries, bool) or not isinstance(queries, (int, np.integer)) or queries < 0:
        raise ValueError(f"queries must be a whole number >= 0, got {queries!r}")
    if not callable(fit_fn):
        raise TypeError("fit_fn must be a callable DataFrame -> fit, e.g. lambda d: ev.evlogit(formula, d)")
    if not isinstance(labelled, pd.DataFrame) or not isinstance(pool, pd.DataFrame):
        raise TypeError("labelled and pool must be pandas DataFrames")
    clash = pool.index.intersection(labelled.index)
    if len(clash):
        raise ValueError(
            f"{len(clash)} pool row(s) share index labels with the labelled rows ({list(clash[:5])}): "
            "give the pool and the labelled rows distinct index labels"
        )
    if isinstance(oracle, str) and oracle not in pool.columns:
        raise ValueError(f"the oracle column {oracle!r} is not in the pool (columns {list(pool.columns)})")
    fit = fit_fn(labelled)
    check_pool(fit, pool)
    if queries * n > len(pool):
        raise ValueError(
            f"{queries} queries of {n} row(s) need {queries * n} pool rows but the pool has "
            f"{len(pool)}: ask fewer queries or give a larger pool"
        )
    resp = fit.response
    ref = pool if test is None else test
    children = np.random.SeedSequence(seed).spawn(max(queries, 1))
    cur_lab, rest = labelled, pool
    rows = [{"strategy": strategy, "step": 0, "n_labelled": len(cur_lab), "queried": [], "labels": [],
             **test_metrics(fit, ref)}]
    for step in range(1, queries + 1):
        rng = np.random.default_rng(children[step - 1])
        chosen = query(fit, rest, n=n, strategy=strategy, seed=rng, **query_options)
        labels = _oracle_labels(oracle, chosen, pool, fit.classes)
        new = rest.loc[chosen.index].copy()
        new[resp] = labels.to_numpy()
        cur_lab = pd.concat([cur_lab, new[[c for c in cur_lab.columns if c in new.columns]]])
        rest = rest.drop(index=chosen.index)
        fit = fit_fn(cur_lab)
        rows.append({"strategy": strategy, "step": step, "n_labelled": len(cur_lab),
                     "queried": list(chosen.index), "labels": list(labels), **test_metrics(fit, ref)})
    return pd.DataFrame(rows)
