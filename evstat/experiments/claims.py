"""The findings of Minary et al. (2019), section 5, tested claim by claim on our numbers.

Nothing here is hard-coded: every verdict is computed from the per-round results.

Paired differences (error-rate claims)
--------------------------------------
For two methods ``a`` and ``b`` and every cell (data set, #Train3 size), the difference
``d_r = err_a(r) - err_b(r)`` is paired by round ``r`` (same partition, same SVMs, same test
rows); the cell's mean difference has the standard error ``sd(d) / sqrt(R)``. A cell counts as
*for* the paper's claim when its mean difference lies more than ``Z = 2`` standard errors on the
claimed side, *against* when more than 2 standard errors on the other side, and *unclear*
otherwise (about a 5% two-sided level per cell, not corrected for the number of cells). A cell
with fewer than ``MIN_ROUNDS = 10`` paired rounds is always *unclear*.
The pooled difference averages, within each round, the differences over all cells, and takes
its standard error across rounds (cells of one round share test rows, so they are not treated
as independent).

Verdicts of a direction claim ("a is better than b"), from the cell counts:

* ``supported``: every cell is *for*;
* ``mostly supported``: none *against*, at least half *for*;
* ``weakly supported``: none *against*, some but fewer than half *for*;
* ``inconclusive``: every cell *unclear*;
* ``mixed``: cells on both sides;
* ``contradicted``: some *against*, none *for*.

An equivalence claim ("a and b are nearly equal") uses a margin ``delta`` (one percentage point
of error rate): a cell is *for* when ``|mean| + 2 SE <= delta``, *against* when
``|mean| - 2 SE > delta``; the same verdict words apply.

"Not always better" claims ("joint binning is not always better than disjoint binning") hold
when at least one cell is significantly the other way: *supported* with some cell *for* (the
first method significantly worse there), *contradicted* when every cell is *against* (the first
method significantly better everywhere), *inconclusive* otherwise.

Sanity checks
-------------
Comparisons that hold by construction are tested too, but reported apart from the findings
(``Comparison.sanity``): the reject-rate ordering of the three strategies (Bel <= theta_hat <= Pl
makes the pessimistic cost of the chosen class the largest and the optimistic one the smallest).

Fig. 8 (reject option at R_rej = 0.15 with 200 and with 15 calibration rows)
------------------------------------------------------------------------------
The paper's sentence: with many calibration rows "the obtained error rates are almost equal", with
fewer rows "the two points obtained for the evidential approach are more distant". Its first half is
the **primary reading** of Fig. 8a, tested as written: are the three strategies' error rates at 200
rows within ``DELTA`` of each other (an equivalence test per pair of strategies)? The margin was
written in the second pass (commit 7e862a0), after the first pass's README (commit 67a158c) had
published the Fig. 8 numbers.

Our **relative reading** (written in the third pass, issue 28, after both runs) compares the two
halves (:func:`fig8_spread_difference`): the spread of the strategies' error rates with 15 rows
minus their spread with 200 rows (the distance of the two evidential points), paired by round, and
the same for the reject rates. It is a finding, not a sanity check: nothing in
Bel <= theta_hat <= Pl forces the spread to shrink with more rows; it does because the belief
intervals narrow. (The second pass labelled the error-rate spread a sanity check, since at 15 rows
the pessimistic strategy rejects nearly every row; that is the mechanism the paper describes, not an
identity.) Neither rule was fixed before the data were seen.

Accuracy at equal error (Figs. 9-10)
------------------------------------
For each data set and calibration size the reject curves of a strategy are pooled over rounds:
error rate = total errors / total test rows, accuracy = total correct / total decided, at each
reject cost (pooling avoids the undefined per-round accuracy of rounds in which every row is
rejected). Accuracy is interpolated linearly as a function of error rate, and the *accuracy gap*
is the mean of ``accuracy_pessimistic(e) - accuracy_probabilistic(e)`` over 101 equally spaced
error rates ``e`` in the range both curves cover. Its standard error comes from a bootstrap over
rounds (200 resamples, the same rounds for both strategies, seeded from the study seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evstat.experiments.minary_design import DATASETS, seed_sequence

if TYPE_CHECKING:  # minary2019 imports this module
    from evstat.experiments.minary2019 import Frontiers, StudyResults

__all__ = [
    "DELTA",
    "Z",
    "accuracy_gap",
    "claims_table",
    "fig8_spread_difference",
    "frontier_cells",
    "paired_cells",
    "pooled_curves",
    "verdict",
]

Z = 2.0
"""Standard errors a cell's mean must clear to count for or against a claim."""
MIN_ROUNDS = 10
"""Fewer paired rounds than this leave a cell *unclear* (its standard error is too unreliable)."""
DELTA = 0.01
"""Equivalence margin of error rates (and of accuracies): one percentage point."""
BOOTSTRAP = 200


def verdict(n_for: int, n_against: int, n_cells: int) -> str:
    """The verdict word of a claim from its cell counts (see the module docstring).

    Examples
    --------
    >>> verdict(5, 0, 5), verdict(3, 0, 5), verdict(1, 0, 5), verdict(0, 0, 5)
    ('supported', 'mostly supported', 'weakly supported', 'inconclusive')
    >>> verdict(2, 1, 5), verdict(0, 2, 5)
    ('mixed', 'contradicted')
    """
    if n_cells == 0:
        return "no data"
    if n_for == n_cells:
        return "supported"
    if n_against == 0:
        if n_for == 0:
            return "inconclusive"
        return "mostly supported" if 2 * n_for >= n_cells else "weakly supported"
    return "mixed" if n_for > 0 else "contradicted"


def _order(frame: pd.DataFrame, datasets: Sequence[str] | None = None) -> pd.DataFrame:
    if datasets is None:
        datasets = DATASETS

    rank = {d: i for i, d in enumerate(datasets)}
    key = frame.index.get_level_values("dataset").map(rank)
    return frame.iloc[np.lexsort((frame.index.get_level_values(-1), key))]


def paired_cells(
    error_rates: pd.DataFrame, a: str, b: str, datasets: Sequence[str] | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """Per-cell and pooled paired differences ``err_a - err_b`` across rounds.

    Parameters
    ----------
    error_rates : DataFrame
        Columns ``round``, ``dataset``, ``train3``, ``method``, ``error_rate`` (rows with a
        missing error rate are left out of the pairs).
    a, b : str
        Method names.
    datasets : sequence of str, optional
        Order of the data sets in ``cells`` (default: the Minary study's).

    Returns
    -------
    cells : DataFrame
        Indexed by (dataset, train3): ``mean``, ``se``, ``n`` (paired rounds).
    pooled : Series
        ``mean``, ``se``, ``n`` (rounds) of the per-round average difference over cells.

    Examples
    --------
    >>> er = pd.DataFrame({"round": [0, 0, 1, 1], "dataset": "sonar", "train3": 10,
    ...                    "method": ["a", "b", "a", "b"], "error_rate": [0.3, 0.2, 0.4, 0.2]})
    >>> cells, pooled = paired_cells(er, "a", "b")
    >>> cells.round(4).to_dict("records")
    [{'mean': 0.15, 'se': 0.05, 'n': 2.0}]
    """
    sub = error_rates[error_rates["method"].isin([a, b])]
    w = sub.pivot_table(index=["dataset", "train3", "round"], columns="method", values="error_rate", aggfunc="first")
    if a not in w or b not in w:
        empty = pd.DataFrame(columns=["mean", "se", "n"], index=pd.MultiIndex.from_tuples([], names=["dataset", "train3"]))
        return empty, pd.Series({"mean": np.nan, "se": np.nan, "n": 0.0})
    d = (w[a] - w[b]).dropna()
    g = d.groupby(level=["dataset", "train3"])
    cells = pd.DataFrame({"mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count()), "n": g.count().astype(float)})
    per_round = d.groupby(level="round").mean()
    pooled = pd.Series({
        "mean": float(per_round.mean()) if len(per_round) else np.nan,
        "se": float(per_round.std(ddof=1) / np.sqrt(len(per_round))) if len(per_round) > 1 else np.nan,
        "n": float(len(per_round)),
    })
    return _order(cells, datasets), pooled


@dataclass
class Comparison:
    """One tested comparison of a claim."""

    claim: str
    finding: str
    comparison: str
    kind: str  # "direction" or "equivalence"
    cells: pd.DataFrame  # mean, se, n, status
    pooled: pd.Series
    verdict: str
    sanity: bool = False
    """True for a check that holds by construction (reported apart from the findings)."""

    def counts(self) -> tuple[int, int, int]:
        s = self.cells["status"] if len(self.cells) else pd.Series(dtype=str)
        return int((s == "for").sum()), int((s == "against").sum()), int((s == "unclear").sum())


def _status(cells: pd.DataFrame, kind: str, delta: float = DELTA) -> pd.Series:
    m, se = cells["mean"].astype(float), cells["se"].astype(float)
    ok_se = se.notna() & (cells["n"].astype(float) >= MIN_ROUNDS)
    if kind == "direction":  # claimed: mean > 0
        st = np.where(ok_se & (m > Z * se) & (m > 0), "for", np.where(ok_se & (m < -Z * se) & (m < 0), "against", "unclear"))
    else:
        st = np.where(ok_se & (m.abs() + Z * se <= delta), "for",
                      np.where(ok_se & (m.abs() - Z * se > delta), "against", "unclear"))
    return pd.Series(st, index=cells.index)


def compare(
    error_rates: pd.DataFrame, claim: str, finding: str, worse: str, better: str, labels: dict[str, str],
    kind: str = "direction",
) -> Comparison:
    """Test ``worse`` having a higher error than ``better`` (direction) or the two being equal
    within :data:`DELTA` (equivalence), on every cell.

    Examples
    --------
    >>> r = np.random.default_rng(0)
    >>> er = pd.DataFrame({"round": np.repeat(np.arange(20), 2), "dataset": "heart", "train3": 10,
    ...                    "method": ["a", "b"] * 20, "error_rate": 0.2 + np.tile([0.05, 0.0], 20)
    ...                    + r.normal(0, 0.01, 40)})
    >>> c = compare(er, "a is worse", "'b beats a'", "a", "b", {})
    >>> c.verdict, c.counts()
    ('supported', (1, 0, 0))
    >>> compare(er, "a = b", "", "a", "b", {}, kind="equivalence").verdict
    'contradicted'
    """
    cells, pooled = paired_cells(error_rates, worse, better)
    cells = cells.copy()
    cells["status"] = _status(cells, kind) if len(cells) else pd.Series(dtype=str)
    if kind == "direction":
        text = f"{labels.get(worse, worse)} minus {labels.get(better, better)}"
    else:
        text = f"{labels.get(worse, worse)} minus {labels.get(better, better)} (margin +/-{DELTA:g})"
    comp = Comparison(claim, finding, text, kind, cells, pooled, "")
    comp.verdict = verdict(*comp.counts()[:2], len(cells))
    return comp


def pooled_curves(reject_curves: pd.DataFrame) -> pd.DataFrame:
    """Reject curves pooled over rounds (see the module docstring).

    Returns
    -------
    DataFrame
        ``dataset``, ``n_cal``, ``strategy``, ``reject_cost``, ``error_rate``, ``accuracy``,
        ``reject_rate``, ``rounds``.

    Examples
    --------
    >>> rc = pd.DataFrame({"round": [0, 1], "dataset": "heart", "n_cal": 15, "strategy": "pessimistic",
    ...                    "reject_cost": 0.1, "n_test": 100, "n_decided": [50, 0], "n_errors": [5, 0]})
    >>> pooled_curves(rc)[["error_rate", "accuracy", "reject_rate"]].to_dict("records")
    [{'error_rate': 0.025, 'accuracy': 0.9, 'reject_rate': 0.75}]
    """
    f = reject_curves.dropna(subset=["n_decided", "n_errors"])
    g = f.groupby(["dataset", "n_cal", "strategy", "reject_cost"], sort=False)
    s = g[["n_test", "n_decided", "n_errors"]].sum()
    out = pd.DataFrame({
        "error_rate": s["n_errors"] / s["n_test"],
        "accuracy": (s["n_decided"] - s["n_errors"]) / s["n_decided"].where(s["n_decided"] > 0),
        "reject_rate": 1.0 - s["n_decided"] / s["n_test"],
        "rounds": g.size(),
    }).reset_index()
    return out


def _gap_from_sums(e1: np.ndarray, a1: np.ndarray, e2: np.ndarray, a2: np.ndarray, points: int = 101) -> float:
    """Mean of a1(e) - a2(e) over the common error range (linear interpolation)."""
    def clean(e: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ok = np.isfinite(e) & np.isfinite(a)
        e, a = e[ok], a[ok]
        order = np.lexsort((a, e))
        e, a = e[order], a[order]
        last = np.r_[e[1:] != e[:-1], True]  # per distinct error rate the highest accuracy
        return e[last], a[last]

    e1, a1 = clean(e1, a1)
    e2, a2 = clean(e2, a2)
    if e1.size == 0 or e2.size == 0:
        return float("nan")
    lo, hi = max(e1[0], e2[0]), min(e1[-1], e2[-1])
    if not hi > lo:
        return float("nan")
    grid = np.linspace(lo, hi, points)
    return float(np.mean(np.interp(grid, e1, a1) - np.interp(grid, e2, a2)))


def accuracy_gap(
    reject_curves: pd.DataFrame, dataset: str, n_cal: int, seed: int, a: str = "pessimistic", b: str = "probabilistic",
    bootstrap: int = BOOTSTRAP,
) -> pd.Series:
    """Accuracy of strategy ``a`` minus that of ``b`` at equal error rate, with a bootstrap SE.

    Returns
    -------
    Series
        ``mean`` (the gap of the pooled curves), ``se`` (bootstrap over rounds), ``n`` (rounds),
        ``lo``, ``hi`` (the common error range).

    Examples
    --------
    Pessimistic: error 1% at accuracy 98%, 4% at 96%; probabilistic: 2% at 96%, 8% at 92% (both
    rounds alike). Over the common errors [2%, 4%] the pessimistic accuracy is 0.0133 higher:

    >>> rows = [{"round": k, "dataset": "heart", "n_cal": 15, "strategy": s, "reject_cost": c, "n_test": 100,
    ...          "n_decided": d, "n_errors": e}
    ...         for k in (0, 1) for s, es in (("pessimistic", (1, 4)), ("probabilistic", (2, 8)))
    ...         for c, d, e in zip((0.1, 0.3), (50, 100), es)]
    >>> g = accuracy_gap(pd.DataFrame(rows), "heart", 15, seed=1)
    >>> [round(float(g[k]), 4) for k in ("mean", "lo", "hi", "se")]
    [0.0133, 0.02, 0.04, 0.0]
    """
    f = reject_curves[(reject_curves["dataset"] == dataset) & (reject_curves["n_cal"] == n_cal)]
    f = f.dropna(subset=["n_decided", "n_errors"])
    rounds = np.sort(f["round"].unique())
    if rounds.size == 0:
        return pd.Series({"mean": np.nan, "se": np.nan, "n": 0.0, "lo": np.nan, "hi": np.nan})
    arrays = {}
    for s in (a, b):
        fs = f[f["strategy"] == s]
        E = fs.pivot_table(index="round", columns="reject_cost", values="n_errors").reindex(rounds)
        D = fs.pivot_table(index="round", columns="reject_cost", values="n_decided").reindex(rounds)
        T = fs.groupby("round")["n_test"].first().reindex(rounds)
        arrays[s] = (E.to_numpy(), D.to_numpy(), T.to_numpy())
    if any(np.isnan(x).any() for s in arrays for x in arrays[s]):
        keep = ~np.any([np.isnan(x).reshape(rounds.size, -1).any(axis=1) for s in arrays for x in arrays[s]], axis=0)
        arrays = {s: tuple(x[keep] for x in arrays[s]) for s in arrays}
        rounds = rounds[keep]

    def gap(w: np.ndarray) -> tuple[float, float, float]:
        curves = []
        for s in (a, b):
            E, D, T = arrays[s]
            se, sd, st = w @ E, w @ D, float(w @ T)
            with np.errstate(invalid="ignore", divide="ignore"):
                curves.append((se / st, np.where(sd > 0, (sd - se) / sd, np.nan)))
        lo = max(np.nanmin(curves[0][0]), np.nanmin(curves[1][0]))
        hi = min(np.nanmax(curves[0][0]), np.nanmax(curves[1][0]))
        return _gap_from_sums(curves[0][0], curves[0][1], curves[1][0], curves[1][1]), lo, hi

    R = rounds.size
    g0, lo, hi = gap(np.ones(R))
    rng = np.random.default_rng(seed_sequence(seed, "bootstrap", dataset, int(n_cal)))
    boots = []
    if R > 1:
        for _ in range(int(bootstrap)):
            w = np.bincount(rng.integers(0, R, R), minlength=R).astype(float)
            boots.append(gap(w)[0])
    bs = np.asarray(boots, dtype=float)
    se = float(np.nanstd(bs, ddof=1)) if np.isfinite(bs).sum() > 1 else np.nan
    return pd.Series({"mean": g0, "se": se, "n": float(R), "lo": lo, "hi": hi})


def _fig8_cells(reject_015: pd.DataFrame, what: str, s1: str, s2: str) -> pd.DataFrame:
    """Per n_cal: mean and SE of (what of s1) - (what of s2)."""
    w = reject_015.pivot_table(index=["n_cal", "round"], columns="strategy", values=what)
    d = (w[s1] - w[s2]).dropna()
    g = d.groupby(level="n_cal")
    return pd.DataFrame({"mean": g.mean(), "se": g.std(ddof=1) / np.sqrt(g.count()), "n": g.count().astype(float)})


def fig8_spread_difference(reject_015: pd.DataFrame, small: int, big: int) -> pd.Series:
    """Fig. 8 read as the paper states it: how far apart the two evidential points are with
    ``small`` calibration rows, minus how far apart with ``big`` rows, per round.

    The spread in one round and calibration size is the *distance of the two evidential points*,
    ``|err_optimistic - err_pessimistic|`` (the paper: "the two points obtained for the evidential
    approach are more distant"). (The range of all three strategies' error rates would be the same
    number whenever the probabilistic error lies between the two evidential ones, as it did in every
    round of both committed runs.) The difference small minus big is paired by round (the Fig. 8
    rounds draw both calibration sizes from one partition), so its standard error is
    ``sd / sqrt(rounds)``; a positive mean more than ``Z`` standard errors from 0 supports the claim.

    Returns
    -------
    Series
        Indexed by round.

    Examples
    --------
    >>> r15 = pd.DataFrame({"round": [0] * 6, "n_cal": [200] * 3 + [15] * 3,
    ...                     "strategy": ["pessimistic", "optimistic", "probabilistic"] * 2,
    ...                     "error_rate": [0.02, 0.05, 0.04, 0.0, 0.15, 0.05]})
    >>> round(float(fig8_spread_difference(r15, 15, 200).iloc[0]), 4)
    0.12
    """
    w = reject_015.pivot_table(index="round", columns=["n_cal", "strategy"], values="error_rate")

    def dist(n: int) -> pd.Series:
        return (w[(n, "optimistic")] - w[(n, "pessimistic")]).abs()

    return (dist(small) - dist(big)).dropna()


def _single(claim: str, finding: str, comparison: str, mean: float, se: float, n: float, kind: str = "direction",
            index: Sequence = ("all",), name: str = "cell") -> Comparison:
    cells = pd.DataFrame({"mean": [mean], "se": [se], "n": [n]}, index=pd.Index(list(index), name=name))
    cells["status"] = _status(cells, kind)
    pooled = pd.Series({"mean": mean, "se": se, "n": n})
    c = Comparison(claim, finding, comparison, kind, cells, pooled, "")
    c.verdict = verdict(*c.counts()[:2], 1)
    return c


def _not_always(c: Comparison) -> Comparison:
    """Verdict of a "not always better" claim from its cells (see the module docstring)."""
    n_for, n_against, _ = c.counts()
    n = len(c.cells)
    c.verdict = ("no data" if n == 0 else "supported" if n_for > 0
                 else "contradicted" if n_against == n else "inconclusive")
    return c


def frontier_cells(front: Frontiers) -> pd.DataFrame:
    """Fig. 7: for each calibration size and strategy, the share of the plotted plane rejected and
    whether the strategy has a decision frontier there (it decides part of the plane and rejects
    another part: ``0 < share < 1``).

    Examples
    --------
    >>> from evstat.experiments.minary2019 import Frontiers
    >>> f = Frontiers(x1=np.zeros(2), x2=np.zeros(2), decisions={}, cal={},
    ...               reject_share={(15, "pessimistic"): 1.0, (15, "optimistic"): 0.3})
    >>> frontier_cells(f)[["reject_share", "frontier"]].values.tolist()
    [[1.0, False], [0.3, True]]
    """
    rows = [{"n_cal": int(n), "strategy": s, "reject_share": float(v), "frontier": bool(0.0 < v < 1.0)}
            for (n, s), v in front.reject_share.items()]
    return pd.DataFrame(rows, columns=["n_cal", "strategy", "reject_share", "frontier"])


def claims_table(results: StudyResults, front: Frontiers | None = None) -> list[Comparison]:
    """Every tested comparison of the paper's findings, computed from ``results``
    (a :class:`evstat.experiments.minary2019.StudyResults`); see
    :func:`evstat.experiments.minary2019.load_results` for an example. ``front`` (the
    :class:`~evstat.experiments.minary2019.Frontiers` of Fig. 7) adds the frontier claim."""
    from evstat.experiments.methods import METHODS

    er = results.error_rates
    labels = {k: v.label for k, v in METHODS.items()}
    have = set(er["method"]) if len(er) else set()
    out: list[Comparison] = []

    c1 = "Logistic beats binning (5.2)"
    f1 = ("'the approaches based on the logistic regression are always better than those based on binning, as "
          "their obtained error rates are lower'")
    for worse, better in (("joint_binning", "joint_logistic"), ("disjoint_binning", "disjoint_logistic"),
                          ("joint_binning_prob", "joint_logistic_prob"), ("joint_binning", "disjoint_logistic")):
        if {worse, better} <= have:
            out.append(compare(er, c1, f1, worse, better, labels))

    c1b = "Joint binning is not always better than disjoint binning (5.2)"
    f1b = "'the joint binning is not always better than the disjoint binning'"
    if {"joint_binning", "disjoint_binning"} <= have:
        c = compare(er, c1b, f1b, "joint_binning", "disjoint_binning", labels)
        c.comparison += " (the claim holds if some cell is significantly positive)"
        out.append(_not_always(c))

    c2 = "Evidential joint logistic beats the disjoint approaches (5.2)"
    f2 = "'the evidential joint approach always presents better results than the evidential disjoint approach'"
    for worse in ("disjoint_logistic", "disjoint_binning"):
        if {worse, "joint_logistic"} <= have:
            out.append(compare(er, c2, f2, worse, "joint_logistic", labels))

    c3 = "Probabilistic and evidential joint logistic nearly equal without reject (5.2)"
    f3 = "'the probabilistic and evidential joint versions nearly give the same results in this experiment'"
    if {"joint_logistic_prob", "joint_logistic"} <= have:
        out.append(compare(er, c3, f3, "joint_logistic_prob", "joint_logistic", labels, kind="equivalence"))

    c4 = "GBT and EkNN beat joint binning (5.3)"
    f4 = "'the results obtained with the GBT and the kNN-based classifiers are better than those obtained with the binning approach'"
    for better in ("gbt", "eknn"):
        if {better, "joint_binning"} <= have:
            out.append(compare(er, c4, f4, "joint_binning", better, labels))

    c5 = "Evidential joint logistic beats GBT and EkNN (5.3)"
    f5 = "'the evidential joint calibration using logistic regression is always better than the GBT and kNN-based approaches'"
    for worse in ("gbt", "eknn"):
        if {worse, "joint_logistic"} <= have:
            out.append(compare(er, c5, f5, worse, "joint_logistic", labels))

    r15 = results.reject_015
    if len(r15):
        f8 = ("'if there are a lot of examples to train the joint calibration, the obtained error rates are almost "
              "equal. Yet, when less training examples are available, the two points obtained for the evidential "
              "approach are more distant from each other'")
        sizes = sorted({int(v) for v in r15["n_cal"].unique()})
        if len(sizes) >= 2:
            small, big = sizes[0], sizes[-1]
            # the paper's reading: the spread at many rows against the spread at few rows, paired by round
            c8a = (f"Error rates of the strategies closer with {big} than with {small} calibration rows "
                   "(5.4, Fig. 8; our relative reading, written in the third pass after both runs)")
            d = fig8_spread_difference(r15, small, big)
            se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else np.nan
            out.append(_single(c8a, f8, f"distance of the two evidential points (abs(optimistic - pessimistic) error "
                               f"rate) at {small} rows minus the same at {big} rows, R_rej = 0.15 (paired by round)",
                               float(d.mean()), se, float(len(d))))
            c6 = "Evidential strategies spread apart with few calibration rows (5.4, Figs. 7-8)"
            w = r15.pivot_table(index=["round"], columns=["n_cal", "strategy"], values="reject_rate")
            d = ((w[(small, "pessimistic")] - w[(small, "optimistic")])
                 - (w[(big, "pessimistic")] - w[(big, "optimistic")])).dropna()
            se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else np.nan
            out.append(_single(c6, f8, f"(pessimistic - optimistic reject rate) at {small} rows minus the same at "
                               f"{big} rows, R_rej = 0.15", float(d.mean()), se, float(len(d))))
        c6b = ("Strategies nearly equal in error with 200 calibration rows (5.4, Fig. 8a; the paper's sentence, "
               "primary reading; margin written in the second pass, after the first pass's numbers)")
        f6b = ("'if there are a lot of examples to train the joint calibration, the obtained error rates are almost "
               "equal'")
        big = int(r15["n_cal"].max())
        for s1, s2 in (("pessimistic", "probabilistic"), ("optimistic", "probabilistic"), ("optimistic", "pessimistic")):
            cells = _fig8_cells(r15[r15["n_cal"] == big], "error_rate", s1, s2)
            if len(cells):
                m, se, n = (float(cells[k].iloc[0]) for k in ("mean", "se", "n"))
                out.append(_single(c6b, f6b, f"error rate, {s1} minus {s2}, {big} calibration rows, R_rej = 0.15 "
                                   f"(margin +/-{DELTA:g})", m, se, n, kind="equivalence",
                                   index=[f"{big} calibration rows"]))
        c7 = "Optimistic rejects least, pessimistic most (5.4, Fig. 7)"
        f7 = ("'the evidential joint calibration based on the optimistic strategy tends to reject less the test "
              "samples than the two others. It is the exact opposite for ... the pessimistic strategy ... The "
              "probabilistic approach is between these two'")
        for s1, s2 in (("pessimistic", "probabilistic"), ("probabilistic", "optimistic")):
            cells = _fig8_cells(r15, "reject_rate", s1, s2)
            cells.index = pd.Index([f"{int(v)} calibration rows" for v in cells.index], name="cell")
            cells["status"] = _status(cells, "direction")
            pooled = pd.Series({"mean": float(cells["mean"].mean()), "se": np.nan, "n": float(cells["n"].min())})
            c = Comparison(c7, f7, f"reject rate, {s1} minus {s2}, R_rej = 0.15", "direction", cells, pooled, "",
                           sanity=True)  # Bel <= theta_hat <= Pl orders the chosen costs
            c.verdict = verdict(*c.counts()[:2], len(cells))
            out.append(c)

    if front is not None:
        c7b = "Every strategy has a decision frontier at 200 and at 15 calibration rows (5.4, Fig. 7)"
        f7b = ("Fig. 7 draws the frontiers of the pessimistic, optimistic and probabilistic strategies for joint "
               "logistic calibration on 200 and on 15 rows")
        fc = frontier_cells(front)
        cells = pd.DataFrame({
            "mean": fc["reject_share"].to_numpy(), "se": np.nan, "n": 1.0,
            "status": np.where(fc["frontier"], "for", "against"),
        }, index=pd.MultiIndex.from_arrays([fc["n_cal"].astype(int), fc["strategy"]], names=["calibration rows", "strategy"]))
        pooled = pd.Series({"mean": float(fc["frontier"].mean()), "se": np.nan, "n": 1.0})
        c = Comparison(c7b, f7b, "share of the Fig. 7 plane rejected at R_rej = 0.15 (a frontier exists when it is "
                       "strictly between 0 and 1; one realisation)", "frontier", cells, pooled, "")
        c.verdict = verdict(*c.counts()[:2], len(cells))
        out.append(c)

    rc = results.reject_curves
    if len(rc):
        seed = int(results.seed)
        c8 = "Pessimistic reaches a higher accuracy at equal error with 15 calibration rows (5.4, Figs. 9-10)"
        f8 = ("'for a given error rate, the results obtained with the pessimistic strategy has a higher (or equal) "
              "accuracy rate than the probabilistic calibration when few training examples are available'")
        c9 = "Probabilistic and evidential similar with 45 calibration rows (5.4, Figs. 9-10)"
        f9 = "'when the number of training examples is more important ... the obtained results become similar'"
        for claim, finding, n_cal, kind in ((c8, f8, 15, "direction"), (c9, f9, 45, "equivalence")):
            rows = {}
            for d in [d for d in DATASETS if d in set(rc["dataset"])]:
                rows[d] = accuracy_gap(rc, d, n_cal, seed)
            cells = pd.DataFrame(rows).T[["mean", "se", "n"]]
            cells.index.name = "dataset"
            cells["status"] = _status(cells, kind)
            pooled = pd.Series({"mean": float(cells["mean"].mean()), "se": np.nan, "n": float(cells["n"].min())})
            comp = f"accuracy gap, pessimistic minus probabilistic, at equal error, {n_cal} calibration rows"
            if kind == "equivalence":
                comp += f" (margin +/-{DELTA:g})"
            c = Comparison(claim, finding, comp, kind, cells, pooled, "")
            if kind == "direction":  # the paper claims 'higher (or equal)': equality does not contradict it
                n_for, n_against, _ = c.counts()
                c.verdict = verdict(n_for, n_against, len(cells))
            else:
                c.verdict = verdict(*c.counts()[:2], len(cells))
            out.append(c)
    return out


def claims_frame(comparisons: Sequence[Comparison]) -> pd.DataFrame:
    """One row per comparison: type (finding or sanity check), claim, comparison, cells for /
    against / unclear, pooled mean and SE, verdict (what ``claims.csv`` holds)."""
    rows = []
    for c in comparisons:
        n_for, n_against, n_unclear = c.counts()
        rows.append({
            "type": "sanity check" if c.sanity else "finding",
            "claim": c.claim, "comparison": c.comparison, "kind": c.kind, "cells": len(c.cells),
            "cells_for": n_for, "cells_against": n_against, "cells_unclear": n_unclear,
            "pooled_mean": c.pooled["mean"], "pooled_se": c.pooled["se"], "verdict": c.verdict,
        })
    return pd.DataFrame(rows, columns=["type", "claim", "comparison", "kind", "cells", "cells_for", "cells_against",
                                       "cells_unclear", "pooled_mean", "pooled_se", "verdict"])
