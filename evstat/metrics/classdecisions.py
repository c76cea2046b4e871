"""Decisions with a reject option, reject curves and interval coverage for K >= 2 classes, from
the singleton lower and upper probabilities Bel({k}), Pl({k}) and a probability P(k | x).

With 0-1 costs (a misclassification costs 1) and a constant reject cost R_rej, the expected
costs of deciding class k (Minary et al. 2019, eqs. 8-11, on the frame of K classes) need only
the singletons:

- ``"pessimistic"``, the upper expected cost: sum_A m(A) max_{w in A} c(k, w) = 1 - m({k})
  = 1 - Bel({k}); for a coherent lower probability without a mass function (evmultinom,
  K >= 3) the upper probability of "not k", Pl(Omega \\ {k}) = 1 - Bel({k}) by conjugacy;
- ``"optimistic"``, the lower expected cost: 1 - Pl({k});
- ``"probabilistic"``: 1 - P(k | x) (theta_hat of a calibrator, BetP of a classifier);
- ``"hurwicz"``: rho (1 - Bel({k})) + (1 - rho) (1 - Pl({k})).

So one prediction ``predict(type="belief")`` of the rows decides them at every reject cost and
strategy, which is what the report and the comparison need (tens of costs, several
strategies). The choice and the tie policy are those of the one engine,
:func:`evstat.belief.decision.choose`, as :func:`evstat.belief.decide_bounds` (ties to the first action: the classes in frame order, then
``"reject"``); ``tests/metrics/test_metrics_classdecisions.py`` checks every strategy against
``fit.decide`` (the engine on the model's own expected losses) for mass-function models and for
evmultinom.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.belief.decision import MINARY_STRATEGIES, REJECT, check_rho, choose
from evstat.metrics._binning import STRATEGIES as BINNINGS
from evstat.metrics._validation import check_bins, check_choice

__all__ = ["class_interval_coverage", "class_reject_curve", "decide_classes"]

#: the strategies :func:`decide_classes` accepts (those the singletons determine)
CLASS_STRATEGIES = ("pessimistic", "optimistic", "probabilistic", "hurwicz")


def _matrices(bel: ArrayLike, pl: ArrayLike, p: ArrayLike | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    b = np.asarray(bel, dtype=float)
    q = np.asarray(pl, dtype=float)
    if b.ndim != 2 or q.shape != b.shape:
        raise ValueError(f"bel and pl must be arrays of the same shape (rows, classes); got {b.shape} and {q.shape}")
    if b.shape[1] < 2:
        raise ValueError(f"bel and pl need one column per class (at least two); got {b.shape[1]}")
    bad = ~(np.isfinite(b) & np.isfinite(q))
    if bad.any():
        raise ValueError(f"bel and pl have missing or infinite values in {int(bad.any(axis=1).sum())} rows")
    if np.any(b > q + 1e-9) or b.min() < -1e-9 or q.max() > 1 + 1e-9:
        raise ValueError("bel and pl must satisfy 0 <= bel <= pl <= 1 in every cell")
    pp = None
    if p is not None:
        pp = np.asarray(p, dtype=float)
        if pp.shape != b.shape:
            raise ValueError(f"p must have the shape of bel {b.shape}, got {pp.shape}")
        if not np.all(np.isfinite(pp)):
            raise ValueError(f"p has missing or infinite values in {int((~np.isfinite(pp)).any(axis=1).sum())} rows")
    return b, q, pp


def _class_costs(b: np.ndarray, q: np.ndarray, pp: np.ndarray | None, strategy: str, rho: float) -> np.ndarray:
    if strategy == "pessimistic":
        return 1.0 - b
    if strategy == "optimistic":
        return 1.0 - q
    if strategy == "hurwicz":
        return rho * (1.0 - b) + (1.0 - rho) * (1.0 - q)
    if pp is None:
        raise ValueError("strategy 'probabilistic' needs p, the probability of every class (theta_hat)")
    return 1.0 - pp


def _codes(b: np.ndarray, q: np.ndarray, pp: np.ndarray | None, strategy: str, reject_cost: float | None,
           rho: float) -> np.ndarray:
    """Position of the chosen action per row: 0..K-1 a class, K reject."""
    exp = _class_costs(b, q, pp, strategy, rho)
    if reject_cost is not None:
        exp = np.column_stack([exp, np.full(exp.shape[0], float(reject_cost))])
    return np.asarray(choose(exp.T, 1.0), dtype=np.intp)  # the engine's choice and tie policy


def decide_classes(
    bel: ArrayLike,
    pl: ArrayLike,
    p: ArrayLike | None = None,
    strategy: str = "pessimistic",
    reject_cost: float | None = None,
    classes: Sequence[Hashable] | None = None,
    rho: float = 0.5,
) -> np.ndarray:
    """Decide a class or ``"reject"`` per row from singleton lower and upper probabilities.

    The K-class fast path of ``fit.decide(..., strategy=, reject_cost=)`` with 0-1 costs (module
    docstring): the expected cost of each class from ``bel``, ``pl`` (and ``p``), the constant
    ``reject_cost`` for the reject action, the choice and tie policy of
    :func:`evstat.belief.decide_bounds`.

    Parameters
    ----------
    bel, pl : array-like (rows, K)
        Bel({k}) and Pl({k}) of every class (``fit.predict(type="belief")["bel"]``, ``["pl"]``).
    p : array-like (rows, K), optional
        P(k | x) for ``strategy="probabilistic"`` (the belief frame's ``"theta"``).
    strategy : {"pessimistic", "optimistic", "probabilistic", "hurwicz"}
    reject_cost : float in [0, 1], optional
        R_rej; None never rejects.
    classes : sequence, optional
        The class labels in column order (default 0..K-1).
    rho : float in [0, 1]
        Hurwicz weight of the upper expected cost.

    Returns
    -------
    numpy.ndarray of dtype object
        Per row a class label or the string ``"reject"``.

    Examples
    --------
    >>> bel = [[0.7, 0.1, 0.0], [0.3, 0.3, 0.1]]
    >>> pl = [[0.9, 0.3, 0.1], [0.6, 0.6, 0.3]]
    >>> decide_classes(bel, pl, classes=["a", "b", "c"], reject_cost=0.5).tolist()
    ['a', 'reject']
    >>> decide_classes(bel, pl, classes=["a", "b", "c"], strategy="optimistic", reject_cost=0.5).tolist()
    ['a', 'a']
    """
    s = check_choice(strategy, "strategy", CLASS_STRATEGIES)
    r = check_rho(rho)
    rc = _check_cost(reject_cost)
    b, q, pp = _matrices(bel, pl, p)
    labels = list(range(b.shape[1])) if classes is None else list(classes)
    if len(labels) != b.shape[1]:
        raise ValueError(f"classes has {len(labels)} labels but bel has {b.shape[1]} columns")
    names = np.array([*labels, REJECT], dtype=object)
    return names[_codes(b, q, pp, s, rc, r)]


def _check_cost(reject_cost: float | None) -> float | None:
    if reject_cost is None:
        return None
    rc = float(reject_cost)
    if not (np.isfinite(rc) and rc >= 0.0):
        raise ValueError(f"reject_cost must be a finite number >= 0 (a misclassification costs 1), got {reject_cost!r}")
    return rc


def class_reject_curve(
    y: ArrayLike,
    bel: ArrayLike,
    pl: ArrayLike,
    p: ArrayLike | None = None,
    costs: ArrayLike | None = None,
    strategies: Sequence[str] = MINARY_STRATEGIES,
) -> pd.DataFrame:
    """Error rate, accuracy and reject rate of K-class decisions as the reject cost varies.

    The K-class :func:`evstat.metrics.reject_curve`: for every strategy and reject cost the rows
    are decided by :func:`decide_classes`; error rate = wrong / tested, accuracy = correct /
    decided (NaN when every row is rejected), reject rate = rejected / tested.

    Parameters
    ----------
    y : array-like of int
        Observed class positions 0..K-1 (column order of ``bel``).
    bel, pl, p
        As :func:`decide_classes`.
    costs : array-like, optional
        Reject costs (default ``np.linspace(0, 1, 101)``).
    strategies : sequence of str

    Returns
    -------
    pandas.DataFrame
        Tidy: ``strategy``, ``reject_cost``, ``error_rate``, ``accuracy``, ``reject_rate``.

    Examples
    --------
    >>> bel = [[0.7, 0.1, 0.0], [0.3, 0.3, 0.1]]
    >>> pl = [[0.9, 0.3, 0.1], [0.6, 0.6, 0.3]]
    >>> class_reject_curve([0, 1], bel, pl, costs=[0.5, 1.0], strategies=["pessimistic"])
          strategy  reject_cost  error_rate  accuracy  reject_rate
    0  pessimistic          0.5         0.0       1.0          0.5
    1  pessimistic          1.0         0.5       0.5          0.0
    """
    b, q, pp = _matrices(bel, pl, p)
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.size != b.shape[0]:
        raise ValueError(f"y must hold one class position per row ({b.shape[0]}), got shape {yy.shape}")
    if yy.size and (not np.issubdtype(yy.dtype, np.integer) or yy.min() < 0 or yy.max() >= b.shape[1]):
        raise ValueError(f"y must hold class positions 0..{b.shape[1] - 1} (integers)")
    cs = np.linspace(0.0, 1.0, 101) if costs is None else np.atleast_1d(np.asarray(costs, dtype=float))
    for c in cs:
        _check_cost(c)
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    if not strategies:
        raise ValueError(f"strategies is empty; pass at least one of {CLASS_STRATEGIES}")
    n = max(yy.size, 1)
    K = b.shape[1]
    rows: list[dict[str, Any]] = []
    for s in strategies:
        check_choice(s, "each strategy", CLASS_STRATEGIES)
        for c in cs:
            code = _codes(b, q, pp, s, float(c), 0.5)
            decided = code < K
            correct = int(np.sum(decided & (code == yy)))
            nd = int(decided.sum())
            rows.append({"strategy": s, "reject_cost": float(c), "error_rate": (nd - correct) / n,
                         "accuracy": correct / nd if nd else np.nan, "reject_rate": (yy.size - nd) / n})
    return pd.DataFrame(rows, columns=["strategy", "reject_cost", "error_rate", "accuracy", "reject_rate"])


def class_interval_coverage(
    y: ArrayLike,
    bel: ArrayLike,
    pl: ArrayLike,
    p: ArrayLike,
    view: str = "top-label",
    bins: int = 10,
    strategy: str = "uniform",
) -> pd.DataFrame:
    """Does the band [mean Bel, mean Pl] of each reliability bin cover the observed frequency?

    The K-class :func:`evstat.metrics.interval_coverage`, binned as
    :func:`evstat.metrics.class_reliability_table`. ``view="top-label"``: the rows are binned by
    the confidence max_k P(k | x); per bin the accuracy of the argmax class k* against the mean
    Bel({k*}) and mean Pl({k*}). ``view="classwise"``: per class k, the rows binned by P(k | x),
    the observed frequency of y = k against the mean Bel({k}) and Pl({k}); stacked with a first
    column ``class`` (position 0..K-1).

    Parameters
    ----------
    y : array-like of int
        Observed class positions 0..K-1.
    bel, pl, p : array-like (rows, K)
    view : {"top-label", "classwise"}
    bins : int
    strategy : {"uniform", "quantile"}

    Returns
    -------
    pandas.DataFrame
        ``bin``, ``lower``, ``upper``, ``n``, ``mean_prediction``, ``observed_frequency``,
        ``mean_bel``, ``mean_pl``, ``covered`` per non-empty bin (and ``class`` classwise).

    Examples
    --------
    >>> bel = [[0.6, 0.1, 0.0], [0.1, 0.5, 0.1], [0.2, 0.2, 0.2]]
    >>> pl = [[0.9, 0.3, 0.1], [0.3, 0.8, 0.3], [0.5, 0.5, 0.5]]
    >>> p = [[0.8, 0.15, 0.05], [0.2, 0.7, 0.1], [0.4, 0.3, 0.3]]
    >>> class_interval_coverage([0, 1, 1], bel, pl, p, bins=2)[["n", "observed_frequency", "mean_bel", "covered"]]
       n  observed_frequency  mean_bel  covered
    0  1                 0.0      0.20    False
    1  2                 1.0      0.55    False
    """
    from evstat.metrics.evidential import interval_coverage

    check_choice(view, "view", ("top-label", "classwise"))
    check_choice(strategy, "strategy", BINNINGS)
    check_bins(bins)
    b, q, pp = _matrices(bel, pl, p)
    assert pp is not None
    yy = np.asarray(y, dtype=np.intp)
    if yy.shape != (b.shape[0],):
        raise ValueError(f"y must hold one class position per row ({b.shape[0]}), got shape {yy.shape}")
    if view == "top-label":
        top = np.argmax(pp, axis=1)
        rows = np.arange(pp.shape[0])
        return interval_coverage((top == yy).astype(np.int64), b[rows, top], q[rows, top], pp[rows, top],
                                 bins=bins, strategy=strategy)
    parts = []
    for j in range(b.shape[1]):
        t = interval_coverage((yy == j).astype(np.int64), b[:, j], q[:, j], pp[:, j], bins=bins, strategy=strategy)
        t.insert(0, "class", j)
        parts.append(t)
    return pd.concat(parts, ignore_index=True)

