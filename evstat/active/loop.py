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

Speed. Given a fitted calibrator instead of a function, the loop refits by the rule of
:func:`evstat.active.update`; for evlogit with plain score columns (no transforms, no factors) and
no ``refit=`` option it then runs on arrays (:mod:`evstat.active._engine`): the design rows of the
pool and test rows are built once, every refit calls ``fit_logistic_likelihood`` (what
``evlogit`` calls after parsing the formula) on the stacked design, the remaining pool and the
test rows are predicted in one call per step (none for the pool under random sampling, whose
choice does not depend on it), and the expected-ignorance-reduction baseline reuses the pool's
ignorance. The numbers are those of the general path (tests/active compare the histories).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.active._query import STRATEGIES, check_pool, pool_belief, query

if TYPE_CHECKING:
    from evstat.calibration import CalibrationResults

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
    fit_fn: Callable[[pd.DataFrame], Any] | CalibrationResults,
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
    fit_fn : callable or CalibrationResults
        ``DataFrame -> fit``, e.g. ``lambda d: ev.evlogit("y ~ s1 + s2", d)``; called on the
        labelled rows at the start and after every step. Or a calibrator fitted on
        ``labelled``: the loop then refits as :func:`evstat.active.update` does (the
        calibrator's own function and options), which lets an evlogit fit whose terms are the
        intercept and numeric score columns run on arrays (module docstring): the same history,
        several times less overhead per step.
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
    from evstat.calibration import CalibrationResults

    fitted = isinstance(fit_fn, CalibrationResults)
    if not fitted and not callable(fit_fn):
        raise TypeError("fit_fn must be a callable DataFrame -> fit, e.g. lambda d: ev.evlogit(formula, d), "
                        "or a calibrator fitted on the labelled rows")
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
    if isinstance(fit_fn, CalibrationResults):  # fitted
        fit = fit_fn
        if fit.nobs != len(labelled):
            raise ValueError(
                f"fit_fn is a fit of {fit.nobs} rows but labelled has {len(labelled)}: pass the "
                "calibrator fitted on the labelled rows (or a function DataFrame -> fit)"
            )
        from evstat.active._update import _refit

        def fit_fn(d: pd.DataFrame) -> Any:  # the update rule: the calibrator's own function and options
            return _refit(fit, d)
    else:
        fit = fit_fn(labelled)
    check_pool(fit, pool)
    if queries * n > len(pool):
        raise ValueError(
            f"{queries} queries of {n} row(s) need {queries * n} pool rows but the pool has "
            f"{len(pool)}: ask fewer queries or give a larger pool"
        )
    ref = pool if test is None else test
    children = np.random.SeedSequence(seed).spawn(max(queries, 1))
    if fitted and query_options.get("refit") is None:
        from evstat.active._engine import plain_design

        Xu = plain_design(fit, pd.concat([pool[fit.score_columns], ref[fit.score_columns]], ignore_index=True))
        if Xu is not None:
            return _simulate_arrays(fit, Xu, labelled, pool, ref, oracle, strategy, queries, n, children,
                                    query_options)
    resp = fit.response
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


def _metrics(bel: NDArray, pl: NDArray, y: NDArray | None) -> dict[str, float]:
    """test_metrics on arrays (y: 0/1 codes, or None without labels)."""
    out = {"ignorance": float(pd.Series(pl - bel).mean()), "brier": np.nan, "error": np.nan}
    if y is not None:
        p = 0.5 * (bel + pl)
        out["brier"] = float(np.mean((p - y) ** 2))
        out["error"] = float(np.mean((p > 0.5) != (y == 1)))
    return out


def _simulate_arrays(
    fit: Any, Xu: NDArray, labelled: pd.DataFrame, pool: pd.DataFrame, ref: pd.DataFrame, oracle: Any,
    strategy: str, queries: int, n: int, children: list, query_options: dict[str, Any],
) -> pd.DataFrame:
    """The loop of :func:`simulate` on arrays (evlogit with plain score columns, refitted by the
    update rule; :mod:`evstat.active._engine`): the same history, without formula parsing and
    DataFrames per step, and with the pool and test rows predicted in one call."""
    from evstat.active._engine import LogitArrays
    from evstat.active._query import _select

    opts: dict[str, Any] = {"batch": "greedy", "candidates": 20, "reference": 200}
    unknown = set(query_options) - {*opts, "refit"}
    if unknown:
        raise TypeError(f"simulate() got unexpected query option(s) {sorted(unknown)}; use batch, candidates, reference, refit")
    opts.update({k: v for k, v in query_options.items() if k != "refit"})
    if opts["batch"] not in ("greedy", "top"):
        raise ValueError(f"unknown batch rule {opts['batch']!r}; use one of ['greedy', 'top']")
    resp = fit.response
    y = (ref[resp] == fit.positive).to_numpy(dtype=np.float64) if resp in ref.columns else None
    lrn = LogitArrays(fit, Xu)
    rest = np.arange(len(pool))
    test_pos = np.arange(len(pool), len(Xu))
    need_pool = strategy != "random" and queries > 0
    _, b, p = lrn.belief(np.concatenate([rest, test_pos]) if need_pool else test_pos)
    k = rest.size if need_pool else 0
    rows = [{"strategy": strategy, "step": 0, "n_labelled": len(labelled), "queried": [], "labels": [],
             **_metrics(b[k:], p[k:], y)}]
    n_lab = len(labelled)
    for step in range(1, queries + 1):
        rng = np.random.default_rng(children[step - 1])
        belief = (None, b[:k], p[:k]) if need_pool else None
        describe = callable(oracle)
        pos, cols = _select(lrn, rest, n, strategy, rng, opts["batch"], opts["candidates"], opts["reference"],
                            belief=belief, describe=describe)
        chosen = pool.iloc[rest[pos]]
        if describe:
            chosen = chosen.copy()
            for c in ("bel", "pl", "ignorance", "betp", "criterion"):
                chosen[c] = cols[c]
            chosen["rank"] = np.arange(1, n + 1)
        labels = _oracle_labels(oracle, chosen, pool, fit.classes)
        codes = (labels.to_numpy() == fit.classes[1]).astype(np.intp)
        lrn = lrn.grow(rest[pos], codes)
        rest = np.delete(rest, pos)
        n_lab += len(pos)
        more = need_pool and step < queries
        _, b, p = lrn.belief(np.concatenate([rest, test_pos]) if more else test_pos)
        k = rest.size if more else 0
        rows.append({"strategy": strategy, "step": step, "n_labelled": n_lab, "queried": list(chosen.index),
                     "labels": list(labels), **_metrics(b[k:], p[k:], y)})
    return pd.DataFrame(rows)
