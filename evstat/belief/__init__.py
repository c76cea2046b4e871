"""Belief functions on finite frames: mass functions, transforms, combination rules, decisions.

Everything a user of Denoeux's R packages (evclass, ibelief) or of pyds needs, with one API:

* :class:`Frame` - a finite frame of discernment (labels in and out, bitmasks inside);
* :class:`MassFunction` - one mass function: ``bel``, ``pl``, ``q``, ``contour``, ``betp``,
  ``discount``, ``normalize``, ``nonspecificity``, ``combine``, constructors ``vacuous``,
  ``categorical``, ``simple_support``, ``from_bel``, ``from_pl``, ``from_q``;
* :class:`MassArray` - ``n`` mass functions on one frame as an ``(n, 2**K)`` array, with the same
  operations vectorised, and a fast path for the binary frame ``{0, 1}``
  (:meth:`MassArray.from_binary`);
* :func:`combine` - Dempster, conjunctive, disjunctive, Yager, Dubois-Prade and averaging rules;
* :func:`decide` / :func:`loss_matrix` - the strategies of :data:`STRATEGIES` (pessimistic,
  optimistic, pignistic, probabilistic, Hurwicz) with
  reject and unknown-class actions;
* :mod:`~evstat.belief.transforms` - fast Moebius transforms between m, b, bel, pl and q arrays
  (ibelief's binary order);
* :mod:`~evstat.belief.measures` - nonspecificity, conflict, pignistic entropy.

Examples
--------
>>> from evstat.belief import Frame, MassFunction, combine, decide, loss_matrix
>>> f = Frame([0, 1])
>>> m1 = MassFunction(f, {1: 0.6, (0, 1): 0.4})
>>> m2 = MassFunction(f, {0: 0.3, (0, 1): 0.7})
>>> m = combine(m1, m2, rule="dempster")
>>> round(m.bel(1), 4), round(m.pl(1), 4)
(0.5122, 0.8537)
>>> decide(m, loss_matrix(f, reject=0.3), strategy="pessimistic").choice
'reject'
"""

from evstat.belief import measures, rules, transforms
from evstat.belief.combination import RULES, combine
from evstat.belief.decision import (
    COMPARE_STRATEGIES,
    MINARY_STRATEGIES,
    REJECT,
    STRATEGIES,
    TIE_TOL,
    Decision,
    binary_decisions,
    check_rho,
    check_strategy,
    choose,
    decide,
    decide_bounds,
    loss_matrix,
)
from evstat.belief.frame import MAX_DENSE_ENTRIES, MAX_DENSE_SIZE, Frame, check_dense_size
from evstat.belief.mass import MassFunction
from evstat.belief.massarray import BINARY_FRAME, MassArray
from evstat.belief.measures import conflict, nonspecificity, pignistic_entropy
from evstat.belief.rules import TotalConflictError
from evstat.belief.transforms import (
    b_to_mass,
    bel_to_mass,
    mass_to_b,
    mass_to_bel,
    mass_to_pl,
    mass_to_q,
    pl_to_mass,
    q_to_mass,
)

__all__ = [
    "Frame",
    "MassFunction",
    "MassArray",
    "BINARY_FRAME",
    "MAX_DENSE_ENTRIES",
    "MAX_DENSE_SIZE",
    "check_dense_size",
    "combine",
    "RULES",
    "TotalConflictError",
    "choose",
    "decide",
    "decide_bounds",
    "loss_matrix",
    "Decision",
    "COMPARE_STRATEGIES",
    "MINARY_STRATEGIES",
    "STRATEGIES",
    "REJECT",
    "TIE_TOL",
    "binary_decisions",
    "check_rho",
    "check_strategy",
    "nonspecificity",
    "conflict",
    "pignistic_entropy",
    "mass_to_b",
    "b_to_mass",
    "mass_to_bel",
    "bel_to_mass",
    "mass_to_pl",
    "pl_to_mass",
    "mass_to_q",
    "q_to_mass",
    "transforms",
    "rules",
    "measures",
]
