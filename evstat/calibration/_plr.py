"""Piecewise logistic regression: ``plr`` (Zhang and Yang 2004; Gebel 2009, section 4.2.2).

The log-odds of the positive class are a piecewise linear function of the score with four knots
theta_0 < theta_1 < theta_2 < theta_3,

    g(s) = sum_{j=0}^{3} w_j l_j(s),    P(positive | s) = 1 / (1 + exp(-g(s))),

where l_j are the hat functions of the knots (eq. 4.5), so that g(theta_j) = w_j and g is
linear between consecutive knots. The outer knots are the smallest and largest calibration
score; the inner knots are searched over every pair q_a < q_b of the 5% quantiles
(5%, 10%, ..., 95%; numpy's default, R's type 7) of the positive-class scores that lie strictly
inside (theta_0, theta_3). For each pair the weights minimise

    O = sum_i loss(t_i, g(s_i)) + lambda sum_{j=2}^{3} (d_j - d_{j-1})^2,
    d_j = (w_j - w_{j-1}) / (theta_j - theta_{j-1})   (the slope on segment j),

with lambda = 0.001 (Zhang and Yang's penalty on slope changes) and the cross-entropy loss
``-t log p - (1 - t) log(1 - p)``; with 0/1 targets ``t`` this is the thesis's
``log(1 + exp(-c_i g(s_i)))``, c_i in {-1, +1}. The pair with the smallest penalised objective is
kept (ties: the first pair in increasing order). The objective is convex in w for fixed knots and
is minimised by Newton's method with step halving (a scipy BFGS minimisation of the thesis's
partition-wise sum checks it in the tests).

Choices where the thesis is silent or wrong (documented, tested):

* [!] the last interval is closed (theta_2 <= s <= theta_3), and scores outside
  [theta_0, theta_3] are extrapolated linearly with the slope of the end segment (the thesis's
  l_j are zero there, which would give P = 0.5 beyond the calibration range);
* targets: Platt's smoothed targets (N+ + 1)/(N+ + 2) and 1/(N- + 2) by default, as the thesis
  uses for logistic regression (4.2.1) and evstat's evlogit does, so that the estimate exists when
  a piecewise linear function separates the classes; ``targets="binary"`` uses the labels as
  Zhang and Yang do, and is an error under separation (no finite maximum-likelihood estimate);
* the quantile pairs are the distinct values; pairs that coincide are tried once.

The belief is Bayesian (Bel = Pl = theta; see :mod:`evstat.calibration.point`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import expit, log_expit

from evstat.calibration.point import PointCalibration
from evstat.formula import ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.likelihood import platt_targets
from evstat.results import Capabilities, not_fitted, register
from evstat.summary import Summary, format_number

__all__ = ["PiecewiseLogisticCalibration", "plr", "plr_basis", "plr_log_odds", "plr_objective"]

_TARGETS = ("platt", "binary")
#: largest ``|w|`` (log-odds at a knot) accepted with 0/1 targets before calling the data separated
_SEPARATION_LOGIT = 30.0
#: the load check's bound on the objective's gradient at the saved weights, per calibration row
GRADIENT_TOL = 1e-7


def plr_basis(s: Any, knots: Any) -> NDArray[np.float64]:
    """The hat-function design (N, 4) of eq. 4.5, extrapolated linearly beyond the outer knots.

    Row i holds l_0(s_i), ..., l_3(s_i): on the segment [theta_{j-1}, theta_j] (the last one
    closed) the two hats of its knots, ``1 - u`` and ``u`` with
    ``u = (s - theta_{j-1}) / (theta_j - theta_{j-1})``; below theta_0 the first segment's pair
    (u < 0), above theta_3 the last segment's (u > 1).

    Examples
    --------
    >>> plr_basis([0.0, 0.5, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0]).tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, -1.0, 2.0]]
    """
    x = np.asarray(s, dtype=np.float64).ravel()
    k = np.asarray(knots, dtype=np.float64)
    seg = np.clip(np.searchsorted(k, x, side="right"), 1, 3)  # segment j: [k[j-1], k[j])
    lo, hi = k[seg - 1], k[seg]
    u = (x - lo) / (hi - lo)
    B = np.zeros((x.size, 4))
    rows = np.arange(x.size)
    B[rows, seg - 1] = 1.0 - u
    B[rows, seg] = u
    return B


def plr_log_odds(s: Any, knots: Any, weights: Any) -> NDArray[np.float64]:
    """The fitted log-odds ``g(s) = w_a + u (w_b - w_a)`` on the segment of each score, which is
    ``plr_basis(s, knots) @ weights`` without its cancellation: far beyond the outer knots
    (|s| near 1e308) the two hat values overflow to -inf and +inf and their weighted sum was an
    overflow warning or NaN; here ``g`` is finite or the correct +-inf (theta 1 or 0), and a flat
    outer segment stays at its knot's value.

    Examples
    --------
    >>> plr_log_odds([0.5, 4.0, 1e308], [0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 1.0, 3.0]).tolist()
    [0.5, 5.0, inf]
    """
    x = np.asarray(s, dtype=np.float64).ravel()
    k = np.asarray(knots, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    seg = np.clip(np.searchsorted(k, x, side="right"), 1, 3)
    lo, hi = k[seg - 1], k[seg]
    dw = w[seg] - w[seg - 1]
    with np.errstate(over="ignore", invalid="ignore"):
        u = (x - lo) / (hi - lo)
        return np.where(dw == 0.0, w[seg - 1], w[seg - 1] + u * dw)


def _penalty_matrix(knots: NDArray) -> NDArray[np.float64]:
    """D (2 x 4) with (D w)_j = d_{j+2} - d_{j+1}, d_j the slope of segment j."""
    h = np.diff(knots)  # segment widths
    S = np.zeros((3, 4))  # slopes d_1..d_3 = S w
    for j in range(3):
        S[j, j], S[j, j + 1] = -1.0 / h[j], 1.0 / h[j]
    return S[1:] - S[:-1]


def plr_objective(w: Any, s: Any, t: Any, knots: Any, penalty: float = 0.001) -> float:
    """The penalised objective O(w) for given knots (cross-entropy + slope-change penalty).

    Examples
    --------
    >>> round(plr_objective([0, 0, 0, 0], [0.5, 1.5, 2.5], [0, 1, 1], [0, 1, 2, 3]), 6)  # 3 log 2
    2.079442
    """
    w = np.asarray(w, dtype=np.float64)
    k = np.asarray(knots, dtype=np.float64)
    eta = plr_basis(s, k) @ w
    t = np.asarray(t, dtype=np.float64)
    D = _penalty_matrix(k)
    return float(-np.sum(t * eta + log_expit(-eta)) + penalty * np.sum((D @ w) ** 2))


def _fit_weights(B: NDArray, t: NDArray, D: NDArray, penalty: float) -> tuple[NDArray, float, bool]:
    """Newton's method with step halving for the convex penalised objective."""
    P = 2.0 * penalty * (D.T @ D)

    def obj(w: NDArray) -> float:
        eta = B @ w
        return float(-np.sum(t * eta + log_expit(-eta)) + 0.5 * w @ P @ w)

    w = np.zeros(B.shape[1])
    f = obj(w)
    converged = False
    for _ in range(200):
        p = expit(B @ w)
        g = B.T @ (p - t) + P @ w
        H = (B * (p * (1.0 - p))[:, None]).T @ B + P
        try:
            step = np.linalg.solve(H + 1e-12 * np.eye(4), g)
        except np.linalg.LinAlgError:
            break
        a = 1.0
        while a > 1e-10:
            wn = w - a * step
            fn = obj(wn)
            if fn <= f + 1e-12 * abs(f):
                break
            a /= 2.0
        done = abs(f - fn) <= 1e-13 * max(1.0, abs(f)) and np.max(np.abs(a * step)) <= 1e-9 * max(1.0, np.max(np.abs(w)))
        w, f = wn, fn
        if done or np.max(np.abs(g)) < 1e-11:
            converged = True
            break
        if np.max(np.abs(w)) > 1e4:  # diverging: separated classes with 0/1 targets
            break
    return w, f, converged


def _candidates(s: NDArray, y: NDArray, step: float) -> NDArray[np.float64]:
    levels = np.arange(1, int(round(1.0 / step))) * step
    q = np.unique(np.quantile(s[y == 1], levels))
    return q[(q > s.min()) & (q < s.max())]


class PiecewiseLogisticCalibration(PointCalibration):
    """A fitted piecewise logistic regression (returned by :func:`plr`).

    Attributes
    ----------
    knots : numpy.ndarray
        theta_0 < theta_1 < theta_2 < theta_3.
    weights : numpy.ndarray
        w_0..w_3, the log-odds at the knots.
    penalty : float
        lambda.
    targets : {"platt", "binary"}
    objective : float
        The penalised objective at the chosen knots.
    n_pairs : int
        Number of inner-knot pairs tried.
    """

    method = "plr"
    capabilities = Capabilities(single_score=True, accepts=("decision",))

    def __init__(
        self,
        mf: ModelFrame,
        penalty: float = 0.001,
        targets: str = "platt",
        step: float = 0.05,
        *,
        knots: Any = None,
        weights: Any = None,
        objective: Any = None,
        n_pairs: Any = None,
    ) -> None:
        super().__init__(mf)
        self.penalty = float(penalty)
        self.targets = targets
        self.step = float(step)
        if knots is not None:  # a saved fit (State): nothing is estimated
            self.knots = np.asarray(knots, dtype=np.float64)
            self.weights = np.asarray(weights, dtype=np.float64)
            self.objective = float(objective)
            self.n_pairs = int(n_pairs)
            return
        s = self.training_scores()
        y = np.asarray(mf.y, dtype=np.float64)
        cand = _candidates(s, y, self.step)
        if cand.size < 2:
            raise ValueError(
                f"plr searches the inner knots over pairs of the {self.step:.0%} quantiles of the "
                f"positive-class scores strictly inside the score range [{s.min():.6g}, {s.max():.6g}], "
                f"but score {self.score!r} gives {cand.size} such value(s) ({mf.n_pos} positive rows, "
                f"{np.unique(s[y == 1]).size} distinct scores): calibrate with ev.evlogit or "
                "ev.isotonic, or supply a score with more distinct values"
            )
        t = platt_targets(y) if targets == "platt" else y
        best: tuple[float, NDArray, NDArray, bool] | None = None
        n_pairs = 0
        for a in range(cand.size - 1):
            for b in range(a + 1, cand.size):
                knots = np.array([s.min(), cand[a], cand[b], s.max()])
                B = plr_basis(s, knots)
                w, f, ok = _fit_weights(B, t, _penalty_matrix(knots), self.penalty)
                n_pairs += 1
                if best is None or f < best[0]:
                    best = (f, knots, w, ok)
        assert best is not None
        f, knots, w, ok = best
        if targets == "binary" and (not ok or np.max(np.abs(w)) > _SEPARATION_LOGIT):
            raise ValueError(
                f"plr with targets='binary' has no finite estimate: a piecewise linear function of "
                f"{self.score!r} separates the classes of the {mf.n} calibration rows (|log-odds| "
                f"{np.max(np.abs(w)):.3g} at a knot); refit with targets='platt' (smoothed targets)"
            )
        self.knots, self.weights, self.objective, self.n_pairs = knots, w, float(f), n_pairs

    def _theta(self, s: NDArray[np.float64]) -> NDArray[np.float64]:
        return expit(plr_log_odds(s, self.knots, self.weights))

    def _verify_loaded(self, source: str) -> None:
        """On load: the outer knots are the saved scores' minimum and maximum, the inner knots a
        pair of the candidate quantiles (and ``n_pairs`` their number of pairs), ``objective`` is
        the penalised objective at the saved weights, and the weights minimise it for the saved
        knots: the gradient ``B'(p - t) + P w`` is at most ``GRADIENT_TOL * max(1, n)`` (Newton's
        method stops at about 1e-10; the objective is convex, so a zero gradient is the optimum).
        Not re-checked: that the saved pair is the best of all pairs (that would refit every
        pair); a file with another candidate pair and its own optimal weights is a consistent
        model that only a signature can catch (docs/guide/saved-models.md)."""
        super()._verify_loaded(source)
        s = self.training_scores()
        y = np.asarray(self.model_frame.y, dtype=np.float64)
        k = self.knots
        if k[0] != s.min() or k[3] != s.max():
            raise not_fitted(self, source, "knots", f"the outer knots {k[0]!r}, {k[3]!r} are not the saved scores' range [{s.min()!r}, {s.max()!r}]")
        cand = _candidates(s, y, self.step)
        if not (np.isin(k[1:3], cand).all()):
            raise not_fitted(self, source, "knots", f"the inner knots {k[1]!r}, {k[2]!r} are not {self.step:.0%} quantiles of the positive-class scores")
        pairs = cand.size * (cand.size - 1) // 2
        if self.n_pairs != pairs:
            raise not_fitted(self, source, "n_pairs", f"the file says {self.n_pairs}, the saved scores give {pairs} pairs")
        t = platt_targets(y) if self.targets == "platt" else y
        B, D = plr_basis(s, k), _penalty_matrix(k)
        f = plr_objective(self.weights, s, t, k, self.penalty)
        if not np.isclose(f, self.objective, rtol=1e-9, atol=1e-12):
            raise not_fitted(self, source, "objective", f"the file says {self.objective!r}, the saved weights give {f!r}")
        g = B.T @ (expit(B @ self.weights) - t) + 2.0 * self.penalty * (D.T @ D) @ self.weights
        if float(np.max(np.abs(g))) > GRADIENT_TOL * max(1.0, s.size):
            raise not_fitted(self, source, "weights", f"the gradient of the objective at the saved weights is {np.max(np.abs(g)):.3g}, not 0")

    def log_odds(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> pd.Series:
        """g(s), the fitted log-odds, indexed like ``newdata``."""
        X, index = self._design(newdata, missing)
        return pd.Series(plr_log_odds(X[:, self._col], self.knots, self.weights), index=index, name="log_odds")

    @property
    def slopes(self) -> NDArray[np.float64]:
        """d_1, d_2, d_3: the slope of the log-odds on each segment."""
        return np.diff(self.weights) / np.diff(self.knots)

    def tidy(self) -> pd.DataFrame:
        """One row per knot: ``term`` (w0..w3), ``knot`` (theta_j), ``estimate`` (w_j, the
        log-odds at the knot), ``prob`` (expit(w_j)), ``slope_right`` (slope of the segment to the
        right; the last knot repeats the last segment's slope, used for extrapolation)."""
        sl = self.slopes
        return pd.DataFrame(
            {
                "term": [f"w{j}" for j in range(4)],
                "knot": self.knots,
                "estimate": self.weights,
                "prob": expit(self.weights),
                "slope_right": np.append(sl, sl[-1]),
            }
        )

    def glance(self) -> pd.DataFrame:
        """One row: method, nobs, n_pos, n_neg, penalty, targets, knot1, knot2 (the inner
        knots), n_pairs, objective, loglik (Bernoulli, 0/1 labels), brier, mean_ignorance (0)."""
        return self._glance_row(
            penalty=self.penalty,
            targets=self.targets,
            knot1=float(self.knots[1]),
            knot2=float(self.knots[2]),
            n_pairs=self.n_pairs,
            objective=self.objective,
        )

    def summary(self) -> Summary:
        """Summary: formula, knots and weights, the penalised objective and fit statistics."""
        s = self._point_summary(
            "Piecewise logistic regression (plr)",
            "logit P = piecewise linear in s with knots theta_0..theta_3 (Zhang and Yang 2004; "
            "Gebel 2009, 4.2.2), linear extrapolation beyond the outer knots",
        )
        s.add_info(
            "Knot search",
            f"{self.n_pairs} pairs of {self.step:.0%} quantiles of the positive-class scores; "
            f"penalty lambda = {format_number(self.penalty, 6)} on slope changes; "
            f"targets: {'Platt (smoothed)' if self.targets == 'platt' else '0/1 labels'}",
        )
        s.add_info("Objective", format_number(self.objective, 8))
        s.add_table("Knots", self.tidy(), show_index=False, formatters={"term": str})
        s.add_table("Fit on the calibration rows", self.glance()[["loglik", "brier"]], show_index=False)
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved plr holds beyond its model frame (evstat.io.state)."""

        penalty: float = saved(schema.Float(min=0.0))
        targets: str = saved(schema.Str(choices=list(_TARGETS)))
        step: float = saved(schema.Float(min=1e-6, max=0.5))
        knots: list[float] = saved(schema.List(schema.Float(), length=4, what="knots"))
        weights: list[float] = saved(schema.List(schema.Float(), length=4, what="weights"))
        objective: float = saved()
        n_pairs: int = saved(schema.Int(min=1))

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def increasing(d: Mapping[str, Any], root: Any) -> str | None:
            k = d["knots"]
            if any(b <= a for a, b in zip(k, k[1:])):
                return "knots must be strictly increasing"
            return None

        return [increasing]



def plr(
    formula: str,
    data: pd.DataFrame,
    penalty: float = 0.001,
    targets: str = "platt",
    step: float = 0.05,
    positive: Any = None,
    missing: str = "raise",
) -> PiecewiseLogisticCalibration:
    """Piecewise logistic regression calibration of one score (Zhang and Yang 2004).

    The log-odds are piecewise linear with knots at the smallest calibration score, two inner
    knots and the largest score; the inner knots are the pair of ``step`` quantiles (5%, 10%,
    ..., 95%) of the positive-class scores with the smallest penalised objective (Gebel 2009,
    4.2.2; see :mod:`evstat.calibration._plr` for the objective and the choices). Beyond the
    outer knots the log-odds are extrapolated linearly. The belief is a point mass
    (Bel = Pl = theta).

    Parameters
    ----------
    formula : str
        One score, e.g. ``"y ~ svm"``.
    data : pandas.DataFrame
        Calibration data.
    penalty : float
        lambda >= 0, the weight of the squared slope changes (0.001 as Zhang and Yang).
    targets : {"platt", "binary"}
        Platt's smoothed targets (default; the estimate always exists) or the 0/1 labels
        (Zhang and Yang; an error when the classes are separated).
    step : float
        Quantile step of the knot candidates (0.05: the 19 quantiles 5%..95%).
    positive, missing
        As :func:`evstat.evlogit`.

    Returns
    -------
    PiecewiseLogisticCalibration

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> cal = pd.DataFrame({"s": rng.normal(2.0 * y - 1.0, 1.0), "y": y})
    >>> fit = ev.plr("y ~ s", cal)
    >>> fit.tidy()["term"].tolist()
    ['w0', 'w1', 'w2', 'w3']
    >>> p = fit.predict(pd.DataFrame({"s": [-3.0, 0.0, 3.0]}))
    >>> bool(p.is_monotonic_increasing and 0 < p.min() and p.max() < 1)
    True
    """
    if targets not in _TARGETS:
        raise ValueError(f"targets must be 'platt' (smoothed, the default) or 'binary' (0/1 labels), got {targets!r}")
    try:
        lam = float(penalty)
    except (TypeError, ValueError):
        raise TypeError(f"penalty must be a number >= 0, got {penalty!r}") from None
    if not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"penalty must be a finite number >= 0 (Zhang and Yang use 0.001), got {penalty!r}")
    if not (isinstance(step, (int, float)) and 0 < float(step) <= 0.5):
        raise ValueError(f"step must be a quantile step in (0, 0.5] (0.05: 5% quantiles), got {step!r}")
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return PiecewiseLogisticCalibration(mf, penalty=lam, targets=targets, step=float(step))


register(PiecewiseLogisticCalibration, example=lambda y, d: plr(f"{y} ~ s1", d), fitter=plr)
