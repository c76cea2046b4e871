"""Scores of evidential predictions on the binary frame {0, 1}.

A prediction for a row is the pair ``bel`` = Bel({1}), ``pl`` = Pl({1}) (0 <= bel <= pl <= 1), i.e.
the mass function m({1}) = bel, m({0}) = 1 - pl, m({0, 1}) = pl - bel (the ignorance). The
pignistic probability of class 1 is BetP(1) = bel + (pl - bel) / 2 = (bel + pl) / 2.

Decisions with a reject option follow Minary et al. (2019), eqs. 8-11 and section 5.4, with 0-1
costs: see :func:`decide_binary`. Everything works on plain arrays, so the output of any calibrator
can be scored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from evstat.belief.decision import MINARY_STRATEGIES, REJECT, STRATEGIES as _DECISION_VOCABULARY, TIE_TOL, binary_decisions
from evstat.metrics._binning import STRATEGIES, assign_bins, bin_edges
from evstat.metrics._validation import (
    as_float_1d,
    check_bel_pl,
    check_bins,
    check_choice,
    check_finite,
    check_nonempty,
    check_prob,
    check_same_length,
    check_y,
)
from evstat.metrics.probabilistic import brier_score

__all__ = [
    "COST_GRID",
    "REJECT_SHARE",
    "betp_brier",
    "choose_reject_cost",
    "decide_binary",
    "decision_metrics",
    "ignorance_summary",
    "interval_coverage",
    "reject_curve",
]

#: The strategies of Minary et al. (2019) that reject curves show by default (the vocabulary
#: and the tie policy are those of :mod:`evstat.belief.decision`; the name is kept for callers).
DECISION_STRATEGIES = MINARY_STRATEGIES


def ignorance_summary(
    bel: ArrayLike,
    pl: ArrayLike,
    quantiles: Sequence[float] = (0.05, 0.25, 0.5, 0.75, 0.95),
) -> pd.Series:
    """Mean and quantiles of the ignorance m({0, 1}) = pl - bel.

    Parameters
    ----------
    bel, pl : array-like of float in [0, 1]
        Bel({1}) and Pl({1}) per row, bel <= pl.
    quantiles : sequence of float in [0, 1]
        Probabilities of the reported quantiles (linear interpolation, R type 7).

    Returns
    -------
    pandas.Series
        ``n``, ``mean``, ``min``, one entry per quantile named ``q05``, ``q25``, ``q50``, ...
        (``q`` + 100 x probability), and ``max``.

    Examples
    --------
    >>> ignorance_summary([0.1, 0.2, 0.5], [0.3, 0.6, 0.5], quantiles=(0.5,))
    n       3.0
    mean    0.2
    min     0.0
    q50     0.2
    max     0.4
    dtype: float64
    """
    b, q = check_bel_pl(bel, pl)
    probs = np.asarray(quantiles, dtype=float).ravel()
    if probs.size and (not np.all(np.isfinite(probs)) or probs.min() < 0 or probs.max() > 1):
        raise ValueError(f"quantiles must lie in [0, 1]; got {list(quantiles)!r}.")
    ign = q - b
    out: dict[str, float] = {"n": float(ign.shape[0]), "mean": float(np.mean(ign))}
    out["min"] = float(ign.min())
    for prob, val in zip(probs, np.quantile(ign, probs), strict=True):
        pct = 100.0 * prob
        label = f"q{int(round(pct)):02d}" if abs(pct - round(pct)) < 1e-9 else f"q{pct:g}"
        out[label] = float(val)
    out["max"] = float(ign.max())
    return pd.Series(out, dtype=float)


def decide_binary(
    bel: ArrayLike | None,
    pl: ArrayLike | None,
    strategy: str = "pessimistic",
    reject_cost: float | None = None,
    p: ArrayLike | None = None,
    rho: float = 0.5,
    tie: str = "first",
    seed: int | np.random.Generator | np.random.SeedSequence | None = None,
) -> np.ndarray:
    """Decide 0, 1 or "reject" per row from expected costs with 0-1 costs (Minary et al. 2019).

    A validating front end of :func:`evstat.belief.binary_decisions`, the closed-form fast path
    of the one decision engine :func:`evstat.belief.decide` (same strategies, same tie policy).

    Expected costs of deciding each class (eqs. 8-11 on the frame {0, 1}, focal sets {0}, {1},
    {0, 1}; c(w, w') = 0 if w = w' else 1):

    - ``"pessimistic"``, upper expected costs: R*(1) = 1 - Bel({1}) = 1 - bel,
      R*(0) = 1 - Bel({0}) = pl.
    - ``"optimistic"``, lower expected costs: R_*(1) = 1 - Pl({1}) = 1 - pl,
      R_*(0) = 1 - Pl({0}) = bel.
    - ``"probabilistic"``: R(1) = 1 - p, R(0) = p.

    The class with the smaller cost is chosen; on a tie (cost(1) == cost(0), i.e. bel + pl = 1 for
    both evidential strategies, p = 0.5 for the probabilistic one; see :func:`tied_rows`) the
    ``tie`` policy decides: ``"first"`` (default) chooses class 0, as ``error_rate`` does at its
    threshold and as :func:`evstat.belief.decide` chooses the first action; ``"random"`` chooses
    class 0 or 1 with probability 1/2 each, independently per tied row, from ``seed`` (as
    evclass's ``max.col`` does). Without reject both evidential strategies choose class 1
    exactly when BetP(1) = (bel + pl)/2 > 0.5, up to the tie tolerance below (the class of highest
    belief, section 5.2). With a
    reject cost R_rej the row is rejected when R_rej is strictly lower than the chosen class's cost
    (hence lower than both costs); at equality the class is kept. Costs within 1e-12 of each other
    count as equal (as in ``evstat.belief.decide``), so that R_rej = 0.15 keeps a row of cost
    1 - 0.85 = 0.15000000000000002: class 1 needs cost(1) < cost(0) - 1e-12 and reject needs
    R_rej < cost - 1e-12.

    Consequences: R_rej = 0 rejects every row whose chosen cost is positive (above 1e-12); only
    rows of chosen cost 0 are decided: bel = 1 or pl = 0 (pessimistic), pl = 1 or bel = 0
    (optimistic, which therefore decides even total ignorance bel = 0, pl = 1), p in {0, 1}
    (probabilistic). The chosen cost is at most 0.5 for the optimistic and probabilistic
    strategies and at most 1 for the pessimistic one (reached at total ignorance), so nothing is
    rejected when R_rej >= 0.5 (optimistic, probabilistic) or R_rej >= 1 (pessimistic); in
    particular nothing at R_rej = 1.

    Parameters
    ----------
    bel, pl : array-like of float in [0, 1]
        Bel({1}) and Pl({1}) per row, bel <= pl. May be None for ``strategy="probabilistic"``
        when ``p`` is given.
    strategy : {"pessimistic", "optimistic", "pignistic", "probabilistic", "hurwicz"}
        Which expected costs to minimise (default "pessimistic"); "pignistic" uses BetP(1),
        "hurwicz" the ``rho`` mixture of the upper and lower costs.
    reject_cost : float >= 0, optional
        R_rej; None (default) never rejects.
    p : array-like of float in [0, 1], optional
        P(y = 1) for the probabilistic strategy (e.g. the calibrator's theta_hat). Default: the
        pignistic probability BetP(1) = (bel + pl)/2. Ignored by the evidential strategies.
    rho : float in [0, 1], default 0.5
        The Hurwicz weight of the upper cost (``strategy="hurwicz"`` only).
    tie : {"first", "random"}, default "first"
        Class of a tied row: 0, or 0/1 at random. A tied row's cost is the same for both
        classes, so the policy never changes which rows are rejected.
    seed : int, Generator or SeedSequence, optional
        Randomness of ``tie="random"`` (one draw per tied row, in row order).

    Returns
    -------
    numpy.ndarray of dtype object
        Per row the int 0 or 1, or the string "reject".

    Examples
    --------
    >>> bel = [0.70, 0.40, 0.05, 0.30]
    >>> pl = [0.90, 0.80, 0.20, 0.70]
    >>> decide_binary(bel, pl).tolist()
    [1, 1, 0, 0]
    >>> decide_binary(bel, pl, "pessimistic", reject_cost=0.35).tolist()
    [1, 'reject', 0, 'reject']
    >>> decide_binary(bel, pl, "optimistic", reject_cost=0.25).tolist()
    [1, 1, 0, 'reject']
    >>> decide_binary([0.0] * 6, [1.0] * 6, tie="random", seed=1).tolist()  # vacuous: all tied
    [0, 1, 1, 1, 0, 0]
    """
    s = check_choice(strategy, "strategy", tuple(_DECISION_VOCABULARY))
    t = check_choice(tie, "tie", ("first", "random"))
    rc = None if reject_cost is None else _check_costs(reject_cost, "reject_cost")[0]
    b, q, pp = _checked(bel, pl, p, s)
    choice, _, rejected = binary_decisions(b, q, s, rc, p=pp, rho=rho)
    if t == "random":
        tied = np.flatnonzero(_tie_mask(bel, pl, p, s, rho=rho))
        choice[tied] = np.random.default_rng(seed).integers(0, 2, size=tied.size)
    out = choice.astype(object)
    out[rejected] = REJECT
    return out


def decision_metrics(y: ArrayLike, decisions: ArrayLike) -> pd.Series:
    """Error rate, accuracy and reject rate of decisions with a reject option.

    Definitions (Minary et al. 2019, section 5.4): with N tested rows of which R are rejected,
    D = N - R decided, C decided correctly and E decided wrongly (C + E = D):

    - error_rate = E / N, misclassified over tested; a rejected row is not misclassified;
    - accuracy = C / D, correctly classified over classified ("not over the total number of test
      examples as some of them are rejected"); NaN when every row is rejected;
    - reject_rate = R / N.

    So error_rate + accuracy * (1 - reject_rate) + reject_rate = 1.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    decisions : array-like
        Per row 0, 1 (int, float, bool, or the strings "0", "1") or the string "reject", e.g.
        from :func:`decide_binary`.

    Returns
    -------
    pandas.Series
        ``n``, ``n_decided``, ``n_rejected``, ``n_correct``, ``n_errors``, ``error_rate``,
        ``accuracy``, ``reject_rate``.

    Examples
    --------
    >>> decision_metrics([1, 0, 1, 0], [1, "reject", 0, 0])[["error_rate", "accuracy", "reject_rate"]]
    error_rate     0.250000
    accuracy       0.666667
    reject_rate    0.250000
    dtype: float64
    """
    yy = check_y(y)
    codes = _decision_codes(decisions)
    check_same_length(y=yy, decisions=codes)
    n = yy.shape[0]
    decided = codes >= 0
    nd = int(decided.sum())
    nc = int(np.sum(decided & (codes == yy)))
    ne = nd - nc
    return pd.Series(
        {
            "n": float(n),
            "n_decided": float(nd),
            "n_rejected": float(n - nd),
            "n_correct": float(nc),
            "n_errors": float(ne),
            "error_rate": ne / n,
            "accuracy": nc / nd if nd > 0 else np.nan,
            "reject_rate": (n - nd) / n,
        },
        dtype=float,
    )


def reject_curve(
    y: ArrayLike,
    bel: ArrayLike,
    pl: ArrayLike,
    p: ArrayLike | None = None,
    costs: ArrayLike | None = None,
    strategies: Sequence[str] = DECISION_STRATEGIES,
) -> pd.DataFrame:
    """Error rate, accuracy and reject rate as the reject cost varies (Minary et al. Figs. 8-10).

    For every strategy and every reject cost R_rej the rows are decided by :func:`decide_binary`
    and scored by :func:`decision_metrics` (computed here in one sorted pass per strategy, not by
    looping over costs). As R_rej grows fewer rows are rejected: the reject rate is non-increasing
    and the error rate non-decreasing in R_rej (the accuracy need not be monotone). At R_rej = 0
    every row with a positive chosen cost is rejected (accuracy is NaN if all are); at R_rej = 1
    no row is rejected by any strategy (the optimistic and probabilistic strategies already reject
    nothing from R_rej = 0.5 on), and the error rate is that of the decisions without reject.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    bel, pl : array-like of float in [0, 1]
        Bel({1}) and Pl({1}) per row.
    p : array-like of float in [0, 1], optional
        P(y = 1) for the probabilistic strategy; default BetP(1) = (bel + pl)/2.
    costs : array-like of float >= 0, optional
        Reject costs R_rej; default (None) ``np.linspace(0, 1, 101)``, steps of 0.01.
    strategies : sequence of {"pessimistic", "optimistic", "probabilistic"}
        Strategies to include, in this order.

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (strategy, reject cost), columns ``strategy``, ``reject_cost``,
        ``error_rate``, ``accuracy``, ``reject_rate``.

    Examples
    --------
    >>> y = [1, 0, 0, 1]
    >>> bel, pl = [0.7, 0.4, 0.05, 0.3], [0.9, 0.8, 0.2, 0.7]
    >>> reject_curve(y, bel, pl, costs=[0.25, 1.0], strategies=["pessimistic"])
          strategy  reject_cost  error_rate  accuracy  reject_rate
    0  pessimistic         0.25         0.0       1.0         0.75
    1  pessimistic         1.00         0.5       0.5         0.00
    """
    yy = check_y(y)
    b, q = check_bel_pl(bel, pl)
    check_same_length(y=yy, bel=b)
    cs = _check_costs(np.linspace(0.0, 1.0, 101) if costs is None else costs, "costs")
    if isinstance(strategies, str):
        strategies = [strategies]
    strategies = list(strategies)
    if not strategies:
        raise ValueError("strategies is empty; pass at least one of " f"{DECISION_STRATEGIES}.")
    for s in strategies:
        check_choice(s, "each strategy", DECISION_STRATEGIES)
    n = yy.shape[0]
    frames = []
    for s in strategies:
        choice, cost = _choice_and_cost(b, q, p, s)
        adj = cost - TIE_TOL  # a row is decided when not (R_rej < cost - TIE_TOL)
        order = np.argsort(adj, kind="stable")
        sorted_adj = adj[order]
        cum_wrong = np.concatenate([[0], np.cumsum(choice[order] != yy[order])])
        decided = np.searchsorted(sorted_adj, cs, side="right")  # rows with adj <= R_rej
        errors = cum_wrong[decided]
        correct = decided - errors
        acc = np.full(cs.shape[0], np.nan)
        np.divide(correct, decided, out=acc, where=decided > 0)
        frames.append(
            pd.DataFrame(
                {
                    "strategy": s,
                    "reject_cost": cs,
                    "error_rate": errors / n,
                    "accuracy": acc,
                    "reject_rate": (n - decided) / n,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def interval_coverage(
    y: ArrayLike,
    bel: ArrayLike,
    pl: ArrayLike,
    p: ArrayLike,
    bins: int = 10,
    strategy: str = "uniform",
) -> pd.DataFrame:
    """Does the interval [mean Bel, mean Pl] of each reliability bin cover the observed frequency?

    Rows are binned on ``p`` exactly as in :func:`reliability_table` (right-closed bins, the first
    closed on the left). Per non-empty bin: n, mean p, observed frequency of y = 1, mean Bel({1}),
    mean Pl({1}) and ``covered`` = (mean Bel <= observed frequency <= mean Pl).

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    bel, pl : array-like of float in [0, 1]
        Bel({1}) and Pl({1}) per row.
    p : array-like of float in [0, 1]
        The probabilistic prediction used for binning (e.g. theta_hat, or BetP).
    bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins.

    Returns
    -------
    pandas.DataFrame
        ``bin``, ``lower``, ``upper``, ``n``, ``mean_prediction``, ``observed_frequency``,
        ``mean_bel``, ``mean_pl``, ``covered``; one row per non-empty bin.

    Examples
    --------
    >>> t = interval_coverage([0, 1, 1, 1], [0.1, 0.2, 0.5, 0.6], [0.3, 0.5, 0.9, 0.8],
    ...                       [0.2, 0.4, 0.7, 0.7], bins=2)
    >>> t[["bin", "n", "observed_frequency", "mean_bel", "mean_pl", "covered"]]
       bin  n  observed_frequency  mean_bel  mean_pl  covered
    0    0  2                 0.5      0.15     0.40    False
    1    1  2                 1.0      0.55     0.85    False
    """
    yy = check_y(y)
    b, q = check_bel_pl(bel, pl)
    pp = check_prob(p, "p")
    check_same_length(y=yy, bel=b, p=pp)
    k = check_bins(bins)
    check_choice(strategy, "strategy", STRATEGIES)
    edges = bin_edges(pp, k, strategy)
    ids = assign_bins(pp, edges)
    cnt = np.bincount(ids, minlength=k)
    ne = cnt > 0
    c = cnt[ne].astype(float)

    def mean_of(v: np.ndarray) -> np.ndarray:
        return np.bincount(ids, weights=v, minlength=k)[ne] / c

    obs = mean_of(yy.astype(float))
    mb = mean_of(b)
    mp = mean_of(q)
    return pd.DataFrame(
        {
            "bin": np.arange(k)[ne],
            "lower": edges[:-1][ne],
            "upper": edges[1:][ne],
            "n": cnt[ne].astype(np.int64),
            "mean_prediction": mean_of(pp),
            "observed_frequency": obs,
            "mean_bel": mb,
            "mean_pl": mp,
            "covered": (mb <= obs) & (obs <= mp),
        }
    )


def betp_brier(y: ArrayLike, bel: ArrayLike, pl: ArrayLike) -> float:
    """Brier score of the pignistic probability BetP(1) = (bel + pl) / 2.

    Parameters
    ----------
    y : array-like of 0/1 or bool
        Observed classes.
    bel, pl : array-like of float in [0, 1]
        Bel({1}) and Pl({1}) per row.

    Returns
    -------
    float
        mean((BetP(1) - y)^2).

    Examples
    --------
    >>> round(betp_brier([1, 0], [0.6, 0.0], [1.0, 0.4]), 12)  # (0.2^2 + 0.2^2) / 2
    0.04
    """
    yy = check_y(y)
    b, q = check_bel_pl(bel, pl)
    check_same_length(y=yy, bel=b)
    return brier_score(yy, (b + q) / 2.0)


# --------------------------------------------------------------------------------------------
def tied_rows(
    bel: ArrayLike | None, pl: ArrayLike | None, strategy: str = "pessimistic", p: ArrayLike | None = None
) -> np.ndarray:
    """Rows whose two classes have equal expected costs (within 1e-12) under ``strategy``.

    Evidential strategies (both): ``bel + pl = 1`` (Bel({1}) = Bel({0}); e.g. a vacuous mass);
    probabilistic: ``p = 1/2`` (default ``p``: BetP(1) = (bel + pl)/2, tied exactly when the
    evidential strategies are). These are the rows whose class :func:`decide_binary` takes from
    its ``tie`` policy.

    Examples
    --------
    >>> tied_rows([0.0, 0.3, 0.2], [1.0, 0.7, 0.9]).tolist()
    [True, True, False]
    >>> tied_rows(None, None, "probabilistic", p=[0.5, 0.6]).tolist()
    [True, False]
    """
    s = check_choice(strategy, "strategy", DECISION_STRATEGIES)
    return _tie_mask(bel, pl, p, s)


def _tie_mask(bel: Any, pl: Any, p: Any, strategy: str, rho: float = 0.5) -> np.ndarray:
    if strategy == "probabilistic" and bel is None and pl is None:
        pp = check_prob(p, "p")
        return np.abs((1.0 - pp) - pp) <= TIE_TOL
    b, q = check_bel_pl(bel, pl)
    if strategy in ("probabilistic", "pignistic"):
        pp = (b + q) / 2.0 if (p is None or strategy == "pignistic") else check_prob(p, "p")
        return np.abs((1.0 - pp) - pp) <= TIE_TOL
    if strategy == "pessimistic":
        c1, c0 = 1.0 - b, q
    elif strategy == "optimistic":
        c1, c0 = 1.0 - q, b
    else:  # hurwicz
        c1 = rho * (1.0 - b) + (1.0 - rho) * (1.0 - q)
        c0 = rho * q + (1.0 - rho) * b
    return np.abs(c1 - c0) <= TIE_TOL


def _checked(bel: Any, pl: Any, p: Any, strategy: str) -> tuple[Any, Any, Any]:
    """Validated bel, pl and p for :func:`evstat.belief.binary_decisions`."""
    if strategy == "probabilistic" and bel is None and pl is None:
        if p is None:
            raise ValueError('strategy="probabilistic" needs p, or bel and pl (for BetP).')
        return None, None, check_prob(p, "p")
    if bel is None or pl is None:
        raise ValueError(
            f'strategy="{strategy}" needs both bel and pl (Bel({{1}}) and Pl({{1}}) per row).'
        )
    b, q = check_bel_pl(bel, pl)
    pp = None
    if strategy == "probabilistic" and p is not None:
        pp = check_prob(p, "p")
        check_same_length(bel=b, p=pp)
    return b, q, pp


def _choice_and_cost(
    bel: Any, pl: Any, p: Any, strategy: str
) -> tuple[np.ndarray, np.ndarray]:
    """Chosen class (0/1, ties to 0) and its expected cost per row (the engine's fast path)."""
    b, q, pp = _checked(bel, pl, p, strategy)
    choice, cost, _ = binary_decisions(b, q, strategy, None, p=pp)
    return choice, cost


def _check_costs(costs: Any, name: str) -> np.ndarray:
    if np.ndim(costs) == 0:
        costs = [costs]
    try:
        cs = as_float_1d(costs, name)
    except ValueError:
        raise ValueError(f"{name} must be a number or 1-D array of numbers >= 0.") from None
    check_nonempty(cs, name)
    check_finite(cs, name)
    if (cs < 0).any():
        raise ValueError(f"{name} must be >= 0 (a reject cost in [0, 1]); got {float(cs.min())!r}.")
    return cs


def _decision_codes(decisions: Any) -> np.ndarray:
    """0/1 decisions and "reject" -> int codes 0, 1, -1 (strings "0"/"1" accepted too)."""
    if isinstance(decisions, pd.DataFrame):
        raise ValueError("decisions must be one-dimensional; got a DataFrame.")
    if isinstance(decisions, (pd.Series, pd.Index)):
        arr = decisions.to_numpy(dtype=object)
    elif isinstance(decisions, np.ndarray):
        arr = decisions
    else:  # a list: keep ints and strings apart (np.asarray would turn 1 into "1")
        arr = np.asarray(decisions, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"decisions must be one-dimensional; got shape {arr.shape}.")
    check_nonempty(arr, "decisions")
    if arr.dtype.kind in "biuf":
        vals = arr.astype(float)
        rej = np.zeros(arr.shape[0], dtype=bool)
    else:
        vals = np.array([_decision_value(v) for v in arr.astype(object)], dtype=float)
        rej = vals == -1.0
    bad = ~rej & (vals != 0.0) & (vals != 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"decisions must be 0, 1 or 'reject'; {int(bad.sum())} of {arr.shape[0]} rows have "
            f"other values (first at row {i}: {_plain(arr[i])!r}). Use the string 'reject' for rejected "
            f"rows."
        )
    codes = vals.astype(np.int64)
    codes[rej] = -1
    return codes


def _decision_value(v: Any) -> float:
    """One decision -> 0., 1., -1. (reject) or NaN (invalid, reported by the caller)."""
    if isinstance(v, (str, np.str_)):
        return {"0": 0.0, "1": 1.0, REJECT: -1.0}.get(str(v), np.nan)
    if v is None or isinstance(v, bytes):
        return np.nan
    try:
        x = float(v)
    except (TypeError, ValueError):
        return np.nan
    return x if x in (0.0, 1.0) else np.nan


def _plain(v: Any) -> Any:
    """numpy scalar -> Python scalar, for readable error messages."""
    return v.item() if isinstance(v, np.generic) else v


#: the share of rows the pessimistic strategy may reject at the data-chosen cost
REJECT_SHARE = 0.2
#: the costs :func:`choose_reject_cost` searches, 0.01 to 1 in steps of 0.01
COST_GRID = tuple(round(k / 100, 2) for k in range(1, 101))


def choose_reject_cost(reject_share: Callable[[float], float], share: float = REJECT_SHARE) -> float:
    """The data-chosen reject cost: the smallest cost of :data:`COST_GRID` at which
    ``reject_share(cost) <= share``.

    The rule of the report (:mod:`evstat.report`, whose module ``_cost`` says why) and of the
    second class-region panel (:func:`evstat.plotting.class_regions`): ``reject_share`` is the
    share of rows the pessimistic strategy rejects at a cost, which is non-increasing in the
    cost for every decision strategy of evstat and 0 at cost 1, so the grid is bisected (about
    seven calls).

    Examples
    --------
    >>> choose_reject_cost(lambda c: 1.0 if c < 0.42 else 0.0)
    0.42
    """
    lo, hi = 0, len(COST_GRID) - 1  # the answer lies in [lo, hi]; the last cost rejects nothing
    while lo < hi:
        mid = (lo + hi) // 2
        if reject_share(COST_GRID[mid]) <= share:
            hi = mid
        else:
            lo = mid + 1
    return COST_GRID[lo]
