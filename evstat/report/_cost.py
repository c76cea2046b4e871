"""The report's reject cost, chosen from the data when the caller does not give one.

A reject cost R_rej is a preference (what a withheld decision costs against a wrong one, which
costs 1), not a quantity to estimate, and no single value suits every data set: at Minary et al.'s
0.15 the pessimistic strategy rejects 77 of the 79 Sonar test rows, so a report at that cost is
a table of rejects. Minimising an expected loss over R_rej itself is no rule either (the loss
errors + R_rej x rejects only falls as R_rej falls). The report therefore fixes what a reader
can judge, the share of rows withheld, and derives the cost from it:

    R_rej = the smallest cost on the grid 0.01, 0.02, ..., 1 at which the pessimistic strategy
            (the most cautious of the three shown: its cost of a class is the upper expected
            cost) rejects at most ``REJECT_SHARE`` (a fifth) of the rows the report decides.

The rule uses no labels (Bel and Pl of the rows only), so choosing it on the evaluated rows does
not peek at their classes. The reject share is non-increasing in the cost (a row is rejected when
R_rej < cost of its best class - TIE_TOL), and no row is rejected at R_rej = 1, so the smallest
such grid cost exists and a bisection of the grid finds it. The same rule serves K classes: the
pessimistic cost of class k is 1 - Bel({k}) (:mod:`evstat.metrics.classdecisions`), so one
belief prediction of the rows decides them at every cost tried. With several calibrators the report
uses one cost for all of them (the largest of their costs: every one then rejects at most the
share), so that their decisions are compared at equal cost. The conventional
``CONVENTIONAL_COST`` is shown beside it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from evstat import metrics
# the rule itself lives in metrics, shared with the class-region figures (evstat.plotting)
from evstat.metrics import COST_GRID, REJECT_SHARE, choose_reject_cost

__all__ = ["CONVENTIONAL_COST", "COST_GRID", "REJECT_SHARE", "choose_reject_cost", "pessimistic_reject_share"]

#: the cost shown beside the chosen one (Minary et al. 2019, section 5.4)
CONVENTIONAL_COST = 0.15


def pessimistic_reject_share(bel: np.ndarray, pl: np.ndarray) -> Callable[[float], float]:
    """``cost -> share of rows the pessimistic strategy rejects``.

    Two classes: ``bel``, ``pl`` are Bel({1}), Pl({1}) per row (through
    :func:`evstat.metrics.decide_binary`, the engine's closed form). K classes: arrays (rows, K)
    of Bel({k}), Pl({k}) (``fit.predict(type="belief")["bel"]``, ``["pl"]``), through
    :func:`evstat.metrics.decide_classes` (the upper expected cost of class k is 1 - Bel({k})):
    one prediction of the rows serves every cost the bisection tries.

    Examples
    --------
    >>> share = pessimistic_reject_share(np.array([[0.7, 0.1, 0.0], [0.3, 0.3, 0.1]]),
    ...                                  np.array([[0.9, 0.3, 0.1], [0.6, 0.6, 0.3]]))
    >>> share(0.5), share(0.7), choose_reject_cost(share)
    (0.5, 0.0, 0.7)
    """
    b, q = np.asarray(bel, dtype=float), np.asarray(pl, dtype=float)

    def share(cost: float) -> float:
        if b.shape[0] == 0:
            return 0.0
        if b.ndim == 2:
            d = metrics.decide_classes(b, q, strategy="pessimistic", reject_cost=cost)
        else:
            d = np.asarray(metrics.decide_binary(b, q, "pessimistic", cost), dtype=object)
        return float(np.mean(d == "reject"))

    return share
