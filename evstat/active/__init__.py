"""Active evidential calibration: which rows to label next, and the labelling loop.

Ramel, Pichon & Delmotte (2018), "Active evidential calibration of binary SVM classifiers"
(BELIEF 2018): the ignorance Pl - Bel of an evidential calibration says where labels help.

* :func:`query` - the ``n`` rows of a pool to label next under a strategy (``"hartley"``,
  ``"pignistic"``, ``"random"``, ``"eir"``), with seeded tie-breaking and batch rules;
* :func:`update` - refit a calibration on its data plus newly labelled rows (same formula and
  options), to continue the loop by hand;
* :func:`simulate` - the loop with an oracle, returning the per-step history (ignorance, Brier
  score of BetP, error rate, rows asked);
* :func:`outlook` - how the ignorance on an unlabelled pool would fall under each strategy (labels
  drawn from the fitted model; what ``evstat report --pool`` shows).

Examples
--------
>>> import evstat as ev
>>> data = ev.datasets.simulate_gaussian(60, seed=1).sample(frac=1, random_state=0)
>>> fit = ev.evlogit("y ~ x1", data=data.iloc[:10])
>>> ask = ev.active.query(fit, data.iloc[10:].drop(columns="y"), n=2, seed=0)
>>> len(ask), bool(ask.index.isin(data.index[10:]).all())
(2, True)
"""

from evstat.active.loop import simulate, test_metrics
from evstat.active._query import STRATEGIES, check_pool, criterion, pool_belief, query
from evstat.active._update import labelled_data, update
from evstat.active._outlook import outlook

__all__ = [
    "STRATEGIES",
    "check_pool",
    "criterion",
    "labelled_data",
    "outlook",
    "pool_belief",
    "query",
    "simulate",
    "test_metrics",
    "update",
]
