"""Calibration by assignment values: ``avcal`` (Garczarek 2002; Gebel 2009, 4.4, eqs. 4.9-4.12).

A score is first normalised into P(positive | s) in [0, 1] (simple normalisation, eq. 4.1, with
``prescale="normcal"``; or it already is a probability, ``prescale="none"``). The rows are
partitioned by their assigned class, T_k = {i : argmax_k P(k | x_i) = k} (positive exactly when
P(positive) > 0.5, as :func:`evstat.metrics.correctness_rate`), and in each partition the
assignment values a_i = max_k P(k | x_i) (eq. 4.9) are modelled as Beta(p_A, N_A) in Garczarek's
(mean, dispersion) form, alpha = p N, beta = (1 - p) N, fitted by moments:

    p_A = mean a,   N_A = p_A (1 - p_A) / S - 1,   S the variance of a (divisor N_T - 1).

[!] The thesis gives Var = p (1 - p) / (N - 1); the Beta variance is p (1 - p) / (N + 1), which is
what the moment estimator N_A above solves. The local correctness rate p_T (eq. 4.10, the share of
T_k whose true class is k) is the mean of the calibrated values: each assignment value is
mapped by

    P_av(k | a) = F^-1_{Beta(p_T, N)}(F_{Beta(p_A, N_A)}(a))        (eq. 4.11),

and the other class gets the complement. N is the integer in [min(N_T, N_A), max(N_T, N_A)]
(Algorithm 2) that *maximises* (the text; [!] Algorithm 2 says minimise)

    O_av(N) = (number of rows of T_k correctly assigned after calibration) + Ac   (eq. 4.12),

with Ac Garczarek's accuracy on the rows of T_k (:func:`evstat.metrics.garczarek_accuracy`, on
squared distances; see :mod:`evstat.metrics.gebel`). Ties go to the smallest N. When the range
holds more than ``max_candidates`` integers, a geometric grid of that many integers (with both
ends) is searched instead (said so in ``tidy``); the thesis searches every integer.

Guards (the thesis does not treat these cases; each is documented in ``tidy()["kind"]``):

* ``"identity"``: no calibration row is assigned to the class, so nothing is learnt about T_k;
  test rows assigned to it keep their normalised probability;
* ``"constant"``: fewer than 2 rows, or all assignment values equal (S = 0, no Beta fit), or no
  candidate N for which scipy's incomplete Beta functions are finite: every row of T_k gets the
  local correctness rate p_T;
* ``"degenerate"``: p_T is 0 or 1 (every row of T_k wrong or right): Beta(p_T, N) is the point
  mass at p_T for every N (the limit of eq. 4.11), so every row gets p_T.

The calibration map is non-decreasing within each partition (a composition of distribution
functions and quantile functions) and jumps at the boundary P = 0.5 (the thesis's Fig. 4.8).
The belief is Bayesian (Bel = Pl = theta; see :mod:`evstat.calibration.point`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import betainc, betaincinv

from evstat.calibration._normcal import _check_rho, normalise_scores
from evstat.calibration.point import PointCalibration
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.metrics import garczarek_accuracy
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary, format_number

__all__ = ["AssignmentValueCalibration", "av_objective", "av_search", "av_transform", "avcal"]

_PRESCALE = ("normcal", "none")
_KINDS = ("beta", "identity", "constant", "degenerate")


def av_transform(a: Any, p_a: float, n_a: float, p_t: float, n: float) -> NDArray[np.float64]:
    """Eq. 4.11: F^-1 of Beta(p_t, n) at F of Beta(p_a, n_a) at the assignment values ``a``.

    Beta distributions in Garczarek's (mean, dispersion) form: alpha = p N, beta = (1 - p) N.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([0.6, 0.8, 0.95])
    >>> bool(np.allclose(av_transform(a, 0.7, 12.0, 0.7, 12.0), a))  # same distribution: identity
    True
    """
    x = np.asarray(a, dtype=np.float64)
    u = betainc(p_a * n_a, (1.0 - p_a) * n_a, x)
    return betaincinv(p_t * n, (1.0 - p_t) * n, u)


def av_objective(n: float, u: NDArray, y: NDArray, k: int, p_t: float) -> float | None:
    """O_av(N) of eq. 4.12 on one partition: (rows correctly assigned after calibration) + Ac.

    ``u`` are the rows' F_{Beta(p_A, N_A)}(a), ``y`` their 0/1 labels, ``k`` the partition's
    assigned class; None when scipy's incomplete Beta inverse is not finite for this N.
    """
    q = betaincinv(p_t * n, (1.0 - p_t) * n, u)
    if not np.all(np.isfinite(q)):  # Beta parameters beyond scipy's range
        return None
    p_pos = q if k == 1 else 1.0 - q
    return float(np.sum((p_pos > 0.5).astype(np.int64) == y)) + garczarek_accuracy(y, p_pos)


def _bounds(uu: NDArray, w1: NDArray, w0: NDArray, k: int, p_t: float, cand: NDArray,
            step: int) -> tuple[NDArray, NDArray]:
    """Lower and upper bounds of O_av(N) for every N of ``cand`` from the incomplete Beta inverse
    at every ``step``-th distinct value of u (sorted ``uu``; ``w1``, ``w0`` the numbers of rows
    with label 1 and 0 at each value).

    F^-1 is increasing in u, so the calibrated value of a row between two evaluated values lies
    between theirs: its squared error is bounded by the two ends. The count of correct
    assignments is computed exactly: the values in the (at most one) interval whose ends lie on
    both sides of 0.5 (within 1e-12) are evaluated too.
    """
    d = uu.size
    n_rows = float(w1.sum() + w0.sum())
    gi = np.unique(np.r_[np.arange(0, d, step), d - 1])
    a = (p_t * cand)[:, None]
    b = ((1.0 - p_t) * cand)[:, None]
    with np.errstate(all="ignore"):
        q = betaincinv(a, b, uu[gi][None, :])  # (C, G)
    pg = q if k == 1 else 1.0 - q
    bad = ~np.isfinite(pg).all(axis=1)
    pg = np.where(np.isfinite(pg), pg, 0.5)
    # evaluated values: exact squared error and count
    err = w1[gi] * (1.0 - pg) ** 2 + w0[gi] * pg**2
    e_exact = err.sum(axis=1)
    c_exact = np.where(pg > 0.5, w1[gi], w0[gi]).sum(axis=1)
    # the rows strictly between consecutive evaluated values
    c1, c0 = np.r_[0.0, np.cumsum(w1)], np.r_[0.0, np.cumsum(w0)]
    n1 = c1[gi[1:]] - c1[gi[:-1] + 1]
    n0 = c0[gi[1:]] - c0[gi[:-1] + 1]
    lo, hi = np.minimum(pg[:, :-1], pg[:, 1:]), np.maximum(pg[:, :-1], pg[:, 1:])
    e_lo = (n1 * (1.0 - hi) ** 2 + n0 * lo**2).sum(axis=1)
    e_hi = (n1 * (1.0 - lo) ** 2 + n0 * hi**2).sum(axis=1)
    pos = lo > 0.5 + 1e-12
    neg = hi <= 0.5 - 1e-12
    count = c_exact + np.where(pos, n1, 0.0).sum(axis=1) + np.where(neg, n0, 0.0).sum(axis=1)
    inner = gi[1:] - gi[:-1] - 1  # distinct values strictly inside each interval
    ci, ji = np.nonzero(~pos & ~neg & (inner > 0)[None, :])
    if ci.size:
        # exact values in the straddling intervals: their errors replace the bounds
        lens = inner[ji]
        owner = np.repeat(np.arange(ci.size), lens)
        offset = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        idx = gi[ji][owner] + 1 + offset
        with np.errstate(all="ignore"):
            qs = betaincinv((p_t * cand)[ci][owner], ((1.0 - p_t) * cand)[ci][owner], uu[idx])
        ps = qs if k == 1 else 1.0 - qs
        np.logical_or.at(bad, ci[owner], ~np.isfinite(ps))
        ps = np.where(np.isfinite(ps), ps, 0.5)
        e_in = w1[idx] * (1.0 - ps) ** 2 + w0[idx] * ps**2
        c_in = np.where(ps > 0.5, w1[idx], w0[idx])
        np.add.at(count, ci[owner], c_in)
        np.add.at(e_exact, ci[owner], e_in)
        straddle_lo = n1[ji] * (1.0 - hi[ci, ji]) ** 2 + n0[ji] * lo[ci, ji] ** 2
        straddle_hi = n1[ji] * (1.0 - lo[ci, ji]) ** 2 + n0[ji] * hi[ci, ji] ** 2
        np.subtract.at(e_lo, ci, straddle_lo)
        np.subtract.at(e_hi, ci, straddle_hi)
    o_hi = count + 1.0 - 4.0 * (e_exact + e_lo) / n_rows
    o_lo = count + 1.0 - 4.0 * (e_exact + e_hi) / n_rows
    o_hi[bad] = np.inf
    o_lo[bad] = -np.inf
    return o_lo, o_hi


#: absolute slack on the bounds of O_av (round-off of sums over at most millions of rows)
_BOUND_SLACK = 1e-7


def av_search(u: Any, y: Any, k: int, p_t: float, candidates: Any, exhaustive: bool = False) -> tuple[float, float]:
    """The N of ``candidates`` maximising O_av(N) (:func:`av_objective`; ties: the smallest N),
    and O_av there; (nan, -inf) when no candidate is finite.

    ``exhaustive=True`` evaluates O_av at every candidate (the thesis's Algorithm 2, the
    reference path). The default gives the same N with far fewer incomplete Beta inverses
    (branch and bound): bounds of O_av(N) for all N from F^-1 at every sqrt(D)-th, then every
    D^(1/4)-th, distinct value of u (:func:`_bounds`: F^-1 is increasing in u, so a row's
    calibrated value lies between those of its evaluated neighbours); O_av is computed exactly
    (as in the exhaustive search) at the N of the best lower bound, and every N whose upper
    bound is below the best exact value is discarded; O_av is then computed exactly for the
    remaining N in decreasing order of their upper bounds until the next upper bound is below
    the best exact value. A discarded N has O_av(N) < O_av(N_opt) - 1e-7 (the slack covers
    round-off), so the result is the exhaustive search's, ties included.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u, y = rng.uniform(size=300), rng.integers(0, 2, 300)
    >>> cand = np.arange(5.0, 300.0)
    >>> av_search(u, y, 1, 0.6, cand) == av_search(u, y, 1, 0.6, cand, exhaustive=True)
    True
    """
    u = np.asarray(u, dtype=np.float64)
    y = np.asarray(y)
    cand = np.asarray(candidates, dtype=np.float64)
    best_n, best_o = float("nan"), -np.inf

    def visit(n: float) -> None:
        nonlocal best_n, best_o
        o = av_objective(n, u, y, k, p_t)
        if o is not None and (o > best_o or (o == best_o and n < best_n)):
            best_n, best_o = float(n), o

    if exhaustive or cand.size <= 8 or u.size <= 16:
        for n in cand:
            visit(n)
        return best_n, best_o
    uu, inv = np.unique(u, return_inverse=True)
    w1 = np.bincount(inv, weights=(y == 1).astype(np.float64), minlength=uu.size)
    w0 = np.bincount(inv, minlength=uu.size).astype(np.float64) - w1
    keep = np.arange(cand.size)
    o_hi = np.full(cand.size, np.inf)
    for step in sorted({max(1, int(np.ceil(uu.size ** 0.5))), max(1, int(np.ceil(uu.size ** 0.25)))}, reverse=True):
        if step == 1 or keep.size <= 8:
            break
        lo, hi = _bounds(uu, w1, w0, k, p_t, cand[keep], step)
        visit(cand[keep][int(np.argmax(lo))])  # an exact value to prune against
        survive = hi >= best_o - _BOUND_SLACK
        keep, o_hi = keep[survive], hi[survive]
    for i in np.lexsort((cand[keep], -o_hi)):
        if o_hi[i] < best_o - _BOUND_SLACK:
            break
        visit(cand[keep][i])
    return best_n, best_o


def _candidates(lo: float, hi: float, max_candidates: int) -> tuple[NDArray[np.float64], bool]:
    a, b = max(1, int(np.ceil(min(lo, hi)))), max(1, int(np.floor(max(lo, hi))))
    if b - a + 1 <= max_candidates:
        return np.arange(a, b + 1, dtype=np.float64), False
    grid = np.unique(np.round(np.geomspace(float(a), float(b), max_candidates)))
    return grid, True


def _partition_json(column: str, values: list[Any]) -> list[Any]:
    """A column of the partitions table as JSON values (the state's codec): ``kind`` strings,
    ``gridded`` booleans, ``n`` integers, the other columns numbers with NaN as null."""
    if column == "kind":
        return [str(v) for v in values]
    if column == "gridded":
        return [bool(v) for v in values]
    if column == "n":
        return [int(v) for v in values]
    return [None if not np.isfinite(v) else float(v) for v in values]


class AssignmentValueCalibration(PointCalibration):
    """A fitted assignment-value calibration (returned by :func:`avcal`).

    Attributes
    ----------
    prescale : {"normcal", "none"}
    rho : float
        Smoothing factor of the simple normalisation.
    scale : float or None
        ``M = max |s|`` of the calibration rows (``prescale="normcal"``).
    partitions : pandas.DataFrame
        One row per assigned class (negative, positive): ``kind``, ``n`` (N_T), ``p_t``,
        ``p_a``, ``n_a``, ``n_opt``, ``objective``, ``gridded`` (see the module docstring).
    """

    method = "avcal"
    capabilities = Capabilities(single_score=True, accepts=("decision",))

    def __init__(
        self,
        mf: ModelFrame,
        prescale: str = "normcal",
        rho: float = 1.05,
        max_candidates: int = 2000,
        *,
        scale: float | None = None,
        partitions: Any = None,
    ) -> None:
        super().__init__(mf)
        self.prescale = prescale
        self.rho = _check_rho(rho)
        self.max_candidates = int(max_candidates)
        if partitions is not None:  # a saved fit (State): nothing is estimated
            self.scale = None if scale is None else float(scale)
            self.partitions = pd.DataFrame(partitions, index=pd.Index(["negative", "positive"], name="assigned"))
            return
        s = self.training_scores()
        if prescale == "normcal":
            self.scale = float(np.max(np.abs(s)))
            if not self.scale > 0:
                raise ValueError(
                    f"avcal normalises by max |s|, but score {self.score!r} is 0 in all {s.size} "
                    "calibration rows: check the score column"
                )
        else:
            self.scale = None
        p = self._normalised(s, mf.index, "the calibration data")
        y = np.asarray(mf.y, dtype=np.int64)
        assigned = (p > 0.5).astype(np.int64)
        a = np.where(assigned == 1, p, 1.0 - p)
        rows = [self._fit_partition(a[assigned == k], y[assigned == k], k) for k in (0, 1)]
        self.partitions = pd.DataFrame(rows, index=pd.Index(["negative", "positive"], name="assigned"))

    def _fit_partition(self, a: NDArray, y: NDArray, k: int) -> dict[str, Any]:
        n_t = int(a.size)
        row: dict[str, Any] = {"kind": "beta", "n": n_t, "p_t": float("nan"), "p_a": float("nan"),
                               "n_a": float("nan"), "n_opt": float("nan"), "objective": float("nan"),
                               "gridded": False}
        if n_t == 0:
            row["kind"] = "identity"
            return row
        p_t = float(np.mean(y == k))
        row["p_t"] = p_t
        p_a = float(np.mean(a))
        row["p_a"] = p_a
        var = float(np.var(a, ddof=1)) if n_t >= 2 and np.ptp(a) > 0 else 0.0
        n_a = p_a * (1.0 - p_a) / var - 1.0 if var > 0 else float("nan")
        if n_t < 2 or not var > 0 or not n_a > 0 or not 0 < p_a < 1:
            row["kind"] = "constant"
            return row
        row["n_a"] = n_a
        if p_t in (0.0, 1.0):
            row["kind"] = "degenerate"
            return row
        cand, gridded = _candidates(float(n_t), n_a, self.max_candidates)
        u = betainc(p_a * n_a, (1.0 - p_a) * n_a, a)
        best_n, best_o = av_search(u, y, k, p_t, cand)
        if not np.isfinite(best_o):
            row["kind"] = "constant"
            return row
        row.update(n_opt=best_n, objective=best_o, gridded=gridded)
        return row

    # ---------------------------------------------------------------- the map
    def _verify_loaded(self, source: str) -> None:
        """On load, from the saved calibration rows: ``scale`` (max abs score, exact), and per
        assigned class the row count ``n``, the local correctness rate ``p_t``, the moment
        estimates ``p_a``, ``n_a`` (1e-12 relative), the ``kind`` the guards give, and for a
        Beta partition that ``n_opt`` is one of the searched candidates and ``objective`` is
        O_av(n_opt) (eq. 4.12, recomputed at that N). Not re-checked: that n_opt maximises O_av
        over the candidates (that is the search itself); another candidate with its own O_av is
        a consistent model that only a signature catches."""
        super()._verify_loaded(source)
        s = self.training_scores()
        if self.prescale == "normcal":
            derived = float(np.max(np.abs(s)))
            if self.scale != derived:
                raise not_fitted(self, source, "scale", f"the file says {self.scale!r}, max |s| of the saved scores is {derived!r}")
        p = self._normalised(s, self.model_frame.index, "the calibration data")
        y = np.asarray(self.model_frame.y, dtype=np.int64)
        assigned = (p > 0.5).astype(np.int64)
        a = np.where(assigned == 1, p, 1.0 - p)

        def same(x: float, z: float) -> bool:
            return bool((np.isnan(x) and np.isnan(z)) or np.isclose(x, z, rtol=1e-12, atol=0.0))

        for k, key in enumerate(("negative", "positive")):
            row = self.partitions.loc[key]
            ak, yk = a[assigned == k], y[assigned == k]
            field = f"partitions.{key}"
            if int(row["n"]) != ak.size:
                raise not_fitted(self, source, f"{field}.n", f"the file says {row['n']}, {ak.size} saved rows are assigned to it")
            if ak.size == 0:
                if row["kind"] != "identity":
                    raise not_fitted(self, source, f"{field}.kind", f"no saved row is assigned to it, so it is 'identity', not {row['kind']!r}")
                continue
            p_t, p_a = float(np.mean(yk == k)), float(np.mean(ak))
            for name, want in (("p_t", p_t), ("p_a", p_a)):
                if not same(float(row[name]), want):
                    raise not_fitted(self, source, f"{field}.{name}", f"the file says {row[name]!r}, the saved rows give {want!r}")
            if row["kind"] != "beta":
                continue
            var = float(np.var(ak, ddof=1))
            n_a = p_a * (1.0 - p_a) / var - 1.0
            if not same(float(row["n_a"]), n_a):
                raise not_fitted(self, source, f"{field}.n_a", f"the file says {row['n_a']!r}, the saved rows give {n_a!r}")
            cand, _ = _candidates(float(ak.size), n_a, self.max_candidates)
            if float(row["n_opt"]) not in set(cand.tolist()):
                raise not_fitted(self, source, f"{field}.n_opt", f"{row['n_opt']!r} is not one of the searched N")
            u = betainc(p_a * n_a, (1.0 - p_a) * n_a, ak)
            _, o = av_search(u, yk, k, p_t, np.array([float(row["n_opt"])]), exhaustive=True)
            if not same(float(row["objective"]), float(o)):
                raise not_fitted(self, source, f"{field}.objective", f"the file says {row['objective']!r}, O_av(n_opt) of the saved rows is {o!r}")

    def _normalised(self, s: NDArray, index: pd.Index, where: str) -> NDArray[np.float64]:
        if self.prescale == "normcal":
            assert self.scale is not None
            return normalise_scores(np.clip(s, -self.scale, self.scale), self.scale, self.rho)
        bad = (s < 0) | (s > 1)
        if bad.any():
            labels = ", ".join(repr(v) for v in list(index[bad][:5]))
            raise ValueError(
                f"avcal(prescale='none') needs probabilities in [0, 1], but score {self.score!r} of "
                f"{where} is outside in {int(bad.sum())} of {s.size} rows (index {labels}): use "
                "prescale='normcal' for unnormalised scores"
            )
        return s

    def _theta(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        p = self._normalised(s, pd.RangeIndex(s.size), "newdata")
        out = p.copy()
        for k, key in enumerate(("negative", "positive")):
            rows = (p > 0.5) if k == 1 else ~(p > 0.5)
            if not rows.any():
                continue
            r = self.partitions.loc[key]
            if r["kind"] == "identity":
                continue
            if r["kind"] in ("constant", "degenerate"):
                q = np.full(int(rows.sum()), float(r["p_t"]))
            else:
                a = p[rows] if k == 1 else 1.0 - p[rows]
                q = av_transform(a, r["p_a"], r["n_a"], r["p_t"], r["n_opt"])
            out[rows] = q if k == 1 else 1.0 - q
        return out

    # ---------------------------------------------------------------- verbs
    def tidy(self) -> pd.DataFrame:
        """One row per assigned class: ``assigned`` (the class), ``kind`` ("beta" or a guard),
        ``n`` (N_T), ``p_t`` (local correctness rate), ``p_a``, ``n_a`` (the moment fit of the
        assignment values), ``n_opt`` (the chosen dispersion), ``objective`` (O_av at n_opt),
        ``gridded`` (True when a grid replaced the full integer search)."""
        t = self.partitions.reset_index(drop=True)
        t.insert(0, "assigned", list(self.classes))
        return t

    def glance(self) -> pd.DataFrame:
        """One row: method, nobs, n_pos, n_neg, prescale, rho, scale, loglik (Bernoulli), brier,
        mean_ignorance (0)."""
        return self._glance_row(prescale=self.prescale, rho=self.rho, scale=self.scale)

    def summary(self) -> Summary:
        """Summary: formula, pre-scaling, the two partitions' fits and fit statistics."""
        pre = (
            f"simple normalisation (rho = {format_number(self.rho, 6)}, M = {format_number(self.scale, 6)})"
            if self.prescale == "normcal"
            else "none (the score is P(positive))"
        )
        s = self._point_summary(
            "Assignment-value calibration (avcal)",
            "per assigned class, a -> F^-1_Beta(p_T, N_opt)(F_Beta(p_A, N_A)(a)) (Garczarek 2002; "
            "Gebel 2009, 4.4)",
        )
        s.add_info("Pre-scaling", pre)
        s.add_table("Partitions by assigned class", self.tidy(), show_index=False,
                    formatters={"assigned": repr, "kind": str, "gridded": str})
        s.add_table("Fit on the calibration rows", self.glance()[["loglik", "brier"]], show_index=False)
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved avcal holds beyond its model frame (evstat.io.state)."""

        prescale: str = saved(schema.Str(choices=list(_PRESCALE)))
        rho: float = saved(schema.Float(min=1.0))
        max_candidates: int = saved(schema.Int(min=2))
        #: ``max |s|`` of the calibration scores; null without pre-scaling
        scale: float | None = saved(schema.Float(nullable=True, min=1e-300))
        #: the partitions table, a list of two (negative, positive) per column; NaN as null
        partitions: dict[str, list[Any]] = saved(
            schema.Dict(
                {
                    "kind": schema.List(schema.Str(choices=list(_KINDS)), length=2, what="partitions"),
                    "n": schema.List(schema.Int(min=0), length=2, what="partitions"),
                    **{key: schema.List(schema.Float(nullable=True), length=2, what="partitions")
                       for key in ("p_t", "p_a", "n_a", "n_opt", "objective")},
                    "gridded": schema.List(schema.Bool(), length=2, what="partitions"),
                }
            ),
            encode=lambda frame: {c: _partition_json(c, frame[c].tolist()) for c in frame.columns},
            decode=lambda parts: {c: [np.nan if v is None else v for v in vals] for c, vals in parts.items()},
        )

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def consistent(d: Mapping[str, Any], root: Any) -> str | None:
            if (d["prescale"] == "normcal") != (d["scale"] is not None):
                return "scale must be a number exactly when prescale is 'normcal'"
            parts = d["partitions"]
            need = {"beta": ("p_t", "p_a", "n_a", "n_opt"), "constant": ("p_t",), "degenerate": ("p_t",), "identity": ()}
            for i, kind in enumerate(parts["kind"]):
                for key in need[kind]:
                    v = parts[key][i]
                    if v is None or (key != "p_t" and v <= 0) or (key in ("p_t", "p_a") and not 0 <= v <= 1):
                        return f"partitions.{key}[{i}] must be a valid value for a {kind!r} partition, got {v!r}"
            return None

        return [consistent]



def avcal(
    formula: str,
    data: pd.DataFrame,
    prescale: str = "normcal",
    rho: float = 1.05,
    max_candidates: int = 2000,
    positive: Any = None,
    missing: str = "raise",
) -> AssignmentValueCalibration:
    """Calibration of one score by assignment values (Garczarek 2002; Gebel 2009, 4.4).

    The (normalised) probability of the assigned class is mapped, per assigned class, from its
    moment-fitted Beta distribution to a Beta distribution whose mean is the class's local
    correctness rate and whose dispersion N maximises (correct assignments + Garczarek's Ac);
    see :mod:`evstat.calibration._avcal` for the formulas, the corrections and the guards. The
    belief is a point mass (Bel = Pl = theta).

    Parameters
    ----------
    formula : str
        One score, e.g. ``"y ~ svm"``.
    data : pandas.DataFrame
        Calibration data.
    prescale : {"normcal", "none"}
        ``"normcal"`` (default): simple normalisation of an unnormalised score (eq. 4.1, test
        scores beyond the calibration range clipped as :func:`evstat.normcal`). ``"none"``: the
        score is P(positive) in [0, 1] (a classifier's probability).
    rho : float
        Smoothing factor of the simple normalisation (1.05).
    max_candidates : int
        Largest number of integers N searched exactly (else a geometric grid of that many).
    positive, missing
        As :func:`evstat.evlogit`.

    Returns
    -------
    AssignmentValueCalibration

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import evstat as ev
    >>> rng = np.random.default_rng(2)
    >>> y = rng.integers(0, 2, 400)
    >>> cal = pd.DataFrame({"s": rng.normal(2.0 * y - 1.0, 1.0), "y": y})
    >>> fit = ev.avcal("y ~ s", cal)
    >>> fit.tidy()["kind"].tolist()
    ['beta', 'beta']
    >>> bool(fit.tidy()["p_t"].between(0.7, 0.95).all())
    True
    """
    if prescale not in _PRESCALE:
        raise ValueError(f"prescale must be 'normcal' (unnormalised scores) or 'none' (probabilities), got {prescale!r}")
    _check_rho(rho)
    if isinstance(max_candidates, bool) or not isinstance(max_candidates, (int, np.integer)) or max_candidates < 2:
        raise ValueError(f"max_candidates must be an integer >= 2, got {max_candidates!r}")
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return AssignmentValueCalibration(mf, prescale=prescale, rho=rho, max_candidates=int(max_candidates))


register(AssignmentValueCalibration, example=lambda y, d: avcal(f"{y} ~ s1", d, prescale="none"), fitter=avcal)
