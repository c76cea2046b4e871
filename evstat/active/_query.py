"""Query strategies: which unlabelled pool rows to label next (Ramel, Pichon & Delmotte 2018).

For a pool row with score vector s, a binary evidential calibration gives the mass function
m({1}) = Bel, m({0}) = 1 - Pl, m({0,1}) = Pl - Bel. The strategies rank the pool rows by

``"hartley"`` (HS, eq. 4 of 003)
    the generalised Hartley measure GH(m) = sum_A m(A) log2 |A|, which on {0, 1} is the
    ignorance m({0,1}) = Pl - Bel;
``"pignistic"`` (PS, eq. 5)
    the Shannon entropy (bits) of the pignistic probability BetP(1) = (Bel + Pl) / 2;
``"random"`` (RS)
    nothing: n rows drawn uniformly without replacement, the passive reference;
``"eir"`` (expected ignorance reduction; ours, beyond the paper)
    the fall of the mean ignorance over the reference rows (the pool) expected from labelling
    the candidate, weighting its two possible labels by its BetP:
    ``R(c) = I - [BetP_c(1) I(c, 1) + BetP_c(0) I(c, 0)]``, where ``I`` is the current mean
    ignorance on the reference rows and ``I(c, y)`` the mean after refitting with ``(s_c, y)``
    added. For evidential binning this is exact and closed form: labelling a row of cell j
    changes only (k_j, n_j), so ``R = n_ref(j) / N_ref * [ign(k_j, n_j) - BetP ign(k_j + 1,
    n_j + 1) - (1 - BetP) ign(k_j, n_j + 1)]`` for every cell at once (the partition is kept:
    with ``breaks="uniform"``, :func:`evstat.active.update` recuts the axes when a new row lies
    outside the calibration range, which this formula does not anticipate). For any other
    calibrator (evlogit) it refits twice per candidate with :func:`evstat.active.update`; to
    keep that affordable, only the ``candidates`` rows of largest ignorance (HS order) are
    scored, and the mean ignorance is taken over at most ``reference`` pool rows drawn at
    random (seeded). Both prefilters are documented approximations; ``candidates=None,
    reference=None`` scores every row on the whole pool.

K >= 3 classes (the rows' mass functions on the K classes, from ``fit.predict(type="mass")``):
``"hartley"`` ranks by the generalised Hartley measure ``GH(m) = sum_A m(A) log2 |A|`` itself
(Ramel et al.'s 2018 definition; on two classes it is the ignorance), ``"pignistic"`` by the Shannon
entropy (bits) of BetP over the K classes, ``"random"`` as above. A model whose K-class outputs
are lower and upper probabilities but no mass function (evmultinom) has neither: for it
``"pignistic"`` ranks by the entropy of its predictive probabilities theta, and ``"hartley"`` is
refused with a message. ``"eir"`` and greedy batches need refits, which no K-class model declares
(``capabilities.refit``): they are refused, ``batch="top"`` works. The chosen rows carry
``bel_<class>``, ``pl_<class>``, ``betp_<class>`` (theta for a model without masses), the
``ignorance`` (GH, or the mean of ``pl - bel`` over the classes without masses), ``criterion``
and ``rank``.

Ties. Rows whose criterion is equal to 12 decimals (all the rows of one bin; mirror-image bins
with k and n - k positives, whose BetP entropies differ only by rounding) are in random order:
the rows are first shuffled with the seeded generator, then sorted stably by decreasing
criterion rounded to 12 decimals, so every tied row is equally likely to be chosen, and the same
seed gives the same choice.

Batches (``n > 1``). ``batch="greedy"`` (default) picks one row at a time, and after each pick
refits with that row labelled by its expected label (the more probable class under BetP; at
BetP = 1/2 a seeded coin) before ranking the rest, so that a batch does not pile up in one
region whose ignorance the first rows would already have lowered (the "kriging believer"
heuristic). ``batch="top"`` takes the n best rows of one ranking (no refit; cheap, but for
binning all n rows come from the same cell). Random sampling draws n rows at once either way.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["STRATEGIES", "criterion", "pool_belief", "query"]

#: query strategies and what they maximise
STRATEGIES = {
    "hartley": "ignorance Pl - Bel (generalised Hartley measure)",
    "pignistic": "Shannon entropy of BetP (bits)",
    "random": "nothing (uniform draw without replacement)",
    "eir": "expected fall of the mean ignorance on the pool",
}
_BATCH = ("greedy", "top")


def _check_fit(fit: Any) -> None:
    from evstat.calibration import CalibrationResults
    from evstat.results import Results

    if isinstance(fit, Results) and not fit.is_binary:
        return  # K >= 3 classes: the K-class path (_query_k)
    if not isinstance(fit, CalibrationResults):
        raise TypeError(
            f"fit must be a fitted evstat calibrator (e.g. ev.evlogit(...)), got {type(fit).__name__}"
        )
    if len(fit.classes) != 2:
        raise ValueError(f"active calibration needs a binary calibrator; this one has classes {fit.classes}")


def check_pool(fit: Any, pool: Any, name: str = "pool") -> pd.DataFrame:
    """Validate a pool of unlabelled rows for ``fit``: a non-empty DataFrame with a unique index
    and finite values in every score column. Returns it unchanged."""
    if not isinstance(pool, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame of unlabelled score rows, got {type(pool).__name__}")
    if len(pool) == 0:
        raise ValueError(f"the {name} is empty: there is no row left to query; add unlabelled rows")
    if not pool.index.is_unique:
        dup = pool.index[pool.index.duplicated()].unique()
        raise ValueError(
            f"the {name}'s index has duplicated labels ({list(dup[:5])}): rows are identified by "
            "their index, make it unique (e.g. pool.reset_index(drop=True))"
        )
    cols = fit.score_columns
    absent = [c for c in cols if c not in pool.columns]
    if absent:
        raise ValueError(f"the {name} lacks the score column(s) {absent} of the formula {fit.formula!r}")
    for c in cols:
        v = pd.to_numeric(pool[c], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(v)
        if bad.any():
            rows = list(pool.index[bad][:5])
            raise ValueError(
                f"score column {c!r} of the {name} has {int(bad.sum())} missing or non-finite "
                f"value(s) (index {rows}{', ...' if bad.sum() > 5 else ''}): remove those rows or "
                "fill in their scores before querying"
            )
    return pool


def pool_belief(fit: Any, pool: pd.DataFrame) -> pd.DataFrame:
    """Bel, Pl, ignorance (Pl - Bel) and BetP(1) = (Bel + Pl) / 2 of every pool row.

    Examples
    --------
    >>> import evstat as ev
    >>> from evstat.active import pool_belief
    >>> fit = ev.evbinning("y ~ x1", ev.datasets.simulate_gaussian(40, seed=1), bins=2)
    >>> pool_belief(fit, ev.datasets.simulate_gaussian(3, seed=2)).columns.tolist()
    ['theta', 'bel', 'pl', 'ignorance', 'betp']
    """
    from evstat.calibration.binning import EmptyCellWarning

    with warnings.catch_warnings():  # theta (k/n of an empty cell) is not used: Bel/Pl are defined
        warnings.simplefilter("ignore", EmptyCellWarning)
        out = fit.belief_frame(pool)
    bel = out["bel"].to_numpy(dtype=np.float64)
    pl = out["pl"].to_numpy(dtype=np.float64)
    return out.assign(ignorance=pl - bel, betp=0.5 * (bel + pl))


def _entropy2(p: NDArray[np.float64]) -> NDArray[np.float64]:
    q = np.clip(p, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(q > 0, q * np.log2(q), 0.0) + np.where(q < 1, (1 - q) * np.log2(1 - q), 0.0))
    return h


def _eir_binning(fit: Any, bel: pd.DataFrame, pool: pd.DataFrame, ref: pd.DataFrame) -> NDArray[np.float64]:
    """Exact expected ignorance reduction for a cell calibration (counts only)."""
    from evstat.likelihood.bernoulli import binomial_belief

    k, n = fit.k, fit.n
    _, b0, p0 = binomial_belief(k, n)
    ign = np.where(n > 0, np.asarray(p0) - np.asarray(b0), 1.0)
    _, b1, p1 = binomial_belief(k + 1, n + 1)
    _, bz, pz = binomial_belief(k, n + 1)
    ign_pos = np.asarray(p1) - np.asarray(b1)
    ign_neg = np.asarray(pz) - np.asarray(bz)
    ref_cells = fit.cell_of(ref).to_numpy()
    n_ref = np.bincount(ref_cells, minlength=k.size).astype(np.float64)
    cells = fit.cell_of(pool).to_numpy()
    betp = bel["betp"].to_numpy()
    after = betp * ign_pos[cells] + (1 - betp) * ign_neg[cells]
    return n_ref[cells] / len(ref) * (ign[cells] - after)


def _eir_core(lrn: Any, cand: NDArray[np.intp], ign: NDArray, betp: NDArray, ref: NDArray[np.intp],
              base: float, candidates: int | None) -> NDArray[np.float64]:
    """Expected ignorance reduction by refitting with each label (NaN outside the candidates).

    ``cand`` and ``ref`` are positions in the learner's universe; ``ign``, ``betp`` belong to
    ``cand``; ``base`` is the current mean ignorance over ``ref``."""
    out = np.full(cand.size, np.nan)
    order = np.argsort(-ign, kind="stable")
    chosen = order if candidates is None else order[: min(candidates, cand.size)]
    for i in chosen:
        means = []
        for lab in (1, 0):
            _, bel, pl = lrn.grow(cand[[i]], np.array([lab]), "__eir__").belief(ref)
            means.append(float(np.mean(pl - bel)))
        b = betp[i]
        out[i] = base - (b * means[0] + (1 - b) * means[1])
    return out


def _eir_refit(
    fit: Any, bel: pd.DataFrame, pool: pd.DataFrame, ref: pd.DataFrame, candidates: int | None,
    refit: Callable[[pd.DataFrame], Any] | None,
) -> NDArray[np.float64]:
    """Expected ignorance reduction by refitting with each label (NaN outside the candidates),
    on the general path (DataFrames, :func:`evstat.active.update`)."""
    from evstat.active._engine import FitLearner

    universe = pd.concat([pool, ref], ignore_index=True)
    lrn = FitLearner(fit, universe, refit)
    ref_pos = np.arange(len(pool), len(universe))
    _, b, p = lrn.belief(ref_pos)
    return _eir_core(lrn, np.arange(len(pool)), bel["ignorance"].to_numpy(), bel["betp"].to_numpy(), ref_pos,
                     float(np.mean(p - b)), candidates)


def _criterion(
    lrn: Any, cand: NDArray[np.intp], strategy: str, rng: np.random.Generator, candidates: int | None,
    reference: int | None, belief: tuple[NDArray | None, NDArray, NDArray] | None = None,
) -> tuple[dict[str, NDArray], NDArray[np.float64]]:
    """Belief columns of the candidate rows (positions ``cand`` of the learner's universe) and the
    criterion (not for ``random``). ``belief`` may give the rows' (theta, bel, pl) already known."""
    th, b, p = lrn.belief(cand) if belief is None else belief
    cols = {"theta": th, "bel": b, "pl": p, "ignorance": p - b, "betp": 0.5 * (b + p)}
    if strategy == "hartley":
        return cols, cols["ignorance"]
    if strategy == "pignistic":
        return cols, _entropy2(cols["betp"])
    sel = np.arange(cand.size)
    if reference is not None and cand.size > reference:
        sel = np.sort(rng.choice(cand.size, size=reference, replace=False))
    fit = lrn.fit
    if getattr(fit, "method", "") == "evbinning":  # a cell calibration: the exact count update
        universe = lrn.universe
        bel = pd.DataFrame({"betp": cols["betp"]})
        crit = _eir_binning(fit, bel, universe.iloc[cand], universe.iloc[cand[sel]])
    else:  # the candidates' current ignorance on the reference rows is known: its mean is the base
        crit = _eir_core(lrn, cand, cols["ignorance"], cols["betp"], cand[sel], float(np.mean(cols["ignorance"][sel])),
                         candidates)
    return cols, crit


def criterion(
    fit: Any,
    pool: pd.DataFrame,
    strategy: str = "hartley",
    seed: int | np.random.Generator | None = None,
    candidates: int | None = 20,
    reference: int | None = 200,
    refit: Callable[[pd.DataFrame], Any] | None = None,
) -> pd.DataFrame:
    """The pool rows' belief and the value each strategy maximises (column ``criterion``).

    ``random`` has criterion 0 for every row. For ``eir`` on a non-binning calibrator, rows
    outside the ``candidates`` prefilter have criterion NaN (never chosen). See the module
    docstring for the definitions.

    Examples
    --------
    >>> import evstat as ev
    >>> from evstat.active import criterion
    >>> fit = ev.evbinning("y ~ x1", ev.datasets.simulate_gaussian(40, seed=1), bins=2)
    >>> c = criterion(fit, ev.datasets.simulate_gaussian(5, seed=2), "pignistic")
    >>> bool((c["criterion"] <= 1).all())
    True
    """
    from evstat.active._engine import learner

    _check_fit(fit)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {list(STRATEGIES)}")
    check_pool(fit, pool)
    rng = np.random.default_rng(seed)
    if strategy == "random":
        out = pd.DataFrame(index=pool.index)
        out["criterion"] = 0.0
        return out
    cols, crit = _criterion(learner(fit, pool, refit), np.arange(len(pool)), strategy, rng, candidates, reference)
    out = pd.DataFrame(cols, index=pool.index)
    out["criterion"] = crit
    return out


def _rank(values: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.intp]:
    """Positions in decreasing order of ``values`` (NaN last), ties (12 decimals) in seeded random order."""
    perm = rng.permutation(values.size)
    v = np.round(values[perm], 12)
    v = np.where(np.isnan(v), -np.inf, v)
    return perm[np.argsort(-v, kind="stable")]


def _check_n(n: Any, size: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be a whole number of rows to query, got {n!r}")
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if n > size:
        raise ValueError(f"n = {n} rows asked but the pool has only {size}: ask for at most {size}")
    return int(n)


def query(
    fit: Any,
    pool: pd.DataFrame,
    n: int = 1,
    strategy: str = "hartley",
    seed: int | np.random.Generator | None = None,
    batch: str = "greedy",
    candidates: int | None = 20,
    reference: int | None = 200,
    refit: Callable[[pd.DataFrame], Any] | None = None,
) -> pd.DataFrame:
    """The ``n`` pool rows to label next.

    Parameters
    ----------
    fit : CalibrationResults
        A fitted binary evidential calibrator (evlogit, evbinning, isotonic, disjoint, ...).
    pool : pandas.DataFrame
        Unlabelled rows with the formula's score columns (other columns are kept); a unique index.
    n : int
        Rows to return, 1 <= n <= len(pool).
    strategy : {"hartley", "pignistic", "random", "eir"}
        See the module docstring.
    seed : int or numpy.random.Generator, optional
        Breaks ties (and draws the random rows, the EIR reference rows and the coin of the
        expected labels); the same seed gives the same rows.
    batch : {"greedy", "top"}
        How ``n > 1`` rows are chosen (module docstring).
    candidates, reference : int or None
        EIR prefilters for calibrators without the closed form (module docstring).
    refit : callable, optional
        ``DataFrame -> fit`` used by greedy batches and EIR to refit (default
        :func:`evstat.active.update`'s rule).

    Returns
    -------
    pandas.DataFrame
        The chosen rows of ``pool`` (its index and columns kept) in the order chosen, with
        ``bel``, ``pl``, ``ignorance``, ``betp`` under the current fit, the ``criterion`` value
        when chosen, and ``rank`` (1 = first chosen).

    Examples
    --------
    >>> import pandas as pd
    >>> import evstat as ev
    >>> # cell s = 1 holds k = 1 of n = 2 (ignorance 2/3), cell s = 0 k = 2 of n = 6
    >>> cal = pd.DataFrame({"s": [0, 0, 0, 0, 0, 0, 1, 1], "y": [0, 0, 0, 0, 1, 1, 1, 0]})
    >>> fit = ev.evbinning("y ~ s", cal, bins=2)
    >>> pool = pd.DataFrame({"s": [0, 1, 0, 1]}, index=list("abcd"))
    >>> ev.active.query(fit, pool, n=1, strategy="hartley", seed=0)[["s", "ignorance", "rank"]].round(4)
       s  ignorance  rank
    b  1     0.6667     1
    """
    _check_fit(fit)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; use one of {list(STRATEGIES)}")
    if batch not in _BATCH:
        raise ValueError(f"unknown batch rule {batch!r}; use one of {list(_BATCH)}")
    check_pool(fit, pool)
    n = _check_n(n, len(pool))
    if not fit.is_binary:
        return _query_k(fit, pool, n, strategy, np.random.default_rng(seed), batch, refit)
    from evstat.active._engine import learner

    rng = np.random.default_rng(seed)
    lrn = learner(fit, pool, refit)
    pos, cols = _select(lrn, np.arange(len(pool)), n, strategy, rng, batch, candidates, reference)
    out = pool.iloc[pos].copy()
    for c in ("bel", "pl", "ignorance", "betp", "criterion"):
        out[c] = cols[c]
    out["rank"] = np.arange(1, n + 1)
    return out


def _query_k(fit: Any, pool: pd.DataFrame, n: int, strategy: str, rng: np.random.Generator, batch: str,
             refit: Callable[[pd.DataFrame], Any] | None) -> pd.DataFrame:
    """:func:`query` for a model of K >= 3 classes (module docstring, "K >= 3 classes")."""
    from evstat.belief.measures import nonspecificity, pignistic_entropy

    name = getattr(fit, "method", type(fit).__name__)
    if strategy == "eir" or (n > 1 and batch == "greedy" and strategy != "random"):
        what = "eir" if strategy == "eir" else "a greedy batch (n > 1)"
        raise ValueError(
            f"{what} refits the model after each expected label, which the K-class model {name} does not "
            "declare (capabilities.refit): use batch='top' (evstat query --batch top) with hartley, "
            "pignistic or random"
        )
    if refit is not None:
        raise ValueError("refit= is used by eir and greedy batches, which K-class models do not support: remove it")
    classes = [str(c) for c in fit.classes]
    out = pool.copy()
    if not fit.capabilities.k_class_mass and strategy == "hartley":
        raise ValueError(
            f"{name}'s K-class predictions are lower and upper probabilities, not a mass function, so "
            "the Hartley measure is not defined: use strategy 'pignistic' (the entropy of its predictive "
            "probabilities) or 'random', or a model with K-class masses (eknn, credal_knn, ...)"
        )
    pred = fit.predict(pool, type="belief")
    bel, pl = (pred[s][list(fit.classes)].to_numpy(dtype=np.float64) for s in ("bel", "pl"))
    if fit.capabilities.k_class_mass:
        mass = fit.predict(pool, type="mass")
        betp = mass.betp()[list(fit.classes)].to_numpy(dtype=np.float64)
        ignorance = np.asarray(nonspecificity(mass), dtype=np.float64)
        entropy = np.asarray(pignistic_entropy(mass), dtype=np.float64)
        centre = "betp"
    else:
        betp = pred["theta"][list(fit.classes)].to_numpy(dtype=np.float64)
        ignorance = (pl - bel).mean(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.where(betp > 0, betp * np.log2(np.where(betp > 0, betp, 1.0)), 0.0).sum(axis=1)
        centre = "theta"
    for stat, values in (("bel", bel), ("pl", pl), (centre, betp)):
        for j, c in enumerate(classes):
            out[f"{stat}_{c}"] = values[:, j]
    out["ignorance"] = ignorance
    if strategy == "random":
        pos = rng.choice(len(pool), size=n, replace=False)
        crit = np.zeros(len(pool))
    else:
        crit = ignorance if strategy == "hartley" else entropy
        pos = _rank(crit, rng)[:n]
    out = out.iloc[pos]
    out["criterion"] = crit[pos]
    out["rank"] = np.arange(1, n + 1)
    return out


def _select(
    lrn: Any, cand: NDArray[np.intp], n: int, strategy: str, rng: np.random.Generator, batch: str = "greedy",
    candidates: int | None = 20, reference: int | None = 200,
    belief: tuple[NDArray | None, NDArray, NDArray] | None = None, describe: bool = True,
) -> tuple[NDArray[np.intp], dict[str, NDArray]]:
    """The core of :func:`query` on a learner (:mod:`evstat.active._engine`): positions (into
    ``cand``) of the ``n`` rows chosen, in order, and their columns ``bel, pl, ignorance, betp``
    under the learner's fit and ``criterion`` when chosen. ``belief`` may give the candidates'
    (theta, bel, pl) already computed; ``describe=False`` skips the belief of randomly drawn rows
    (their columns are then NaN)."""
    keys = ("bel", "pl", "ignorance", "betp")
    if strategy == "random":
        pos = rng.choice(cand.size, size=n, replace=False)
        if describe:
            _, b, p = lrn.belief(cand[pos]) if belief is None else (None, belief[1][pos], belief[2][pos])
            cols = {"bel": b, "pl": p, "ignorance": p - b, "betp": 0.5 * (b + p)}
        else:
            cols = {c: np.full(n, np.nan) for c in keys}
        cols["criterion"] = np.zeros(n)
        return pos, cols
    if n == 1 or batch == "top":
        now, crit = _criterion(lrn, cand, strategy, rng, candidates, reference, belief)
        pos = _rank(crit, rng)[:n]
        cols = {c: now[c][pos] for c in keys}
        cols["criterion"] = crit[pos]
        return pos, cols
    chosen: list[int] = []
    picked: dict[str, list[float]] = {c: [] for c in (*keys, "criterion")}
    current, rest = lrn, np.arange(cand.size)
    first: dict[str, NDArray] = {}
    for r in range(n):
        now, crit = _criterion(current, cand[rest], strategy, rng, candidates, reference, belief if r == 0 else None)
        if r == 0:
            first = now  # the belief under the original fit, reported for every row of the batch
        i = int(_rank(crit, rng)[0])
        for c in keys:
            picked[c].append(first[c][rest[i]])
        picked["criterion"].append(crit[i])
        chosen.append(int(rest[i]))
        if r < n - 1:
            b = float(now["betp"][i])
            lab = 1 if b > 0.5 else 0 if b < 0.5 else (1 if rng.random() < 0.5 else 0)
            current = current.grow(cand[rest[[i]]], np.array([lab]), f"__expected__{r}")
            rest = np.delete(rest, i)
    return np.asarray(chosen, dtype=np.intp), {c: np.asarray(v, dtype=np.float64) for c, v in picked.items()}
