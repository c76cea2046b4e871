"""The calibration belt and its test (Nattino, Finazzi and Bertolini 2014, 2016).

The model under evaluation gives each row a probability p_i = P(y_i = 1); write
g_i = logit(p_i). The belt recalibrates with a polynomial logistic regression

    logit P(y = 1 | p) = b_0 + b_1 g + b_2 g^2 + ... + b_m g^m,                       (1)

so that perfect calibration is the bisector b = (0, 1, 0, ..., 0).

**Degree (forward selection).** Start at m = 1 (``devel="external"``: the model was fitted on
other rows) or m = 2 (``devel="internal"``: a logistic regression evaluated on its own
calibration rows, where b_0 = 0, b_1 = 1 hold exactly at the maximum and degree 1 carries no
information); add g^(m+1) while the likelihood-ratio statistic of that one term,
D = 2 (l_{m+1} - l_m), is at least k = chi2_1 quantile at ``q`` (q = 0.95: k = 3.841), up to
``max_degree`` = 4.

**Statistic.** T = 2 (l_m(b_hat) - l(bisector)), with l(bisector) = sum y log p + (1 - y)
log(1 - p): the likelihood ratio of the selected polynomial against perfect calibration.

**Its distribution.** Under perfect calibration the likelihood-ratio increments are
asymptotically independent chi-square variables: an unconstrained part U (2 degrees of freedom
externally, for b_0 and b_1; 1 internally, for b_2) and r = m - 1 (external) or m - 2 (internal)
one-degree increments V_j that the selection conditions on V_j >= k (each has probability
alpha = 1 - q). So T is U plus r chi2_1 variables truncated to [k, inf), and

    F_m(t) = P(U + V_1 + ... + V_r <= t | V_j >= k for all j),   F_m(t) = 0 for t <= r k.  (2)

The fast path evaluates the closed forms of Nattino et al. (2014, Section 3; the same
expressions as their R package givitiR's ``givitiStatCdf``), with F_1 = chi2 cdf, chi_2^2 (t)
(external) and F_2 = chi2 cdf, chi_1^2 (t) (internal):

- external, m = 2:  [F1(t) - q - sqrt(2/pi) e^(-t/2) (sqrt t - sqrt k)] / alpha, with F1 the
  chi_1^2 cdf (one convolution of a chi_2^2 cdf with a truncated chi_1^2 density, done by hand);
- external, m = 3:  [int_k^(t-k) (F1(t - y) - q) f1(y) dy
  - (e^(-t/2) / pi) int_k^(t-k) (sqrt(t - y) - sqrt k) / sqrt y dy] / alpha^2;
- external, m = 4, internal m = 3, 4: one radial integral each (the three or two normal
  components in polar coordinates; :func:`belt_cdf` has them).

The reference path (:func:`belt_cdf_convolution`) computes (2) directly as nested
convolutions, G_0 = chi2 cdf of U and G_j(s) = int_k^s f1(v) / alpha G_{j-1}(s - v) dv; the
tests compare the two. The p-value is 1 - F_m(T).

**Belt.** For a confidence level 1 - a (0.80 and 0.95), the coefficient set is

    B = {b : 2 (l(b_hat) - l(b)) <= k_a},   F_m(k_a) = 1 - a,                                (3)

the likelihood region whose size is the quantile of the same selection-aware distribution (2)
(not of chi2 with m + 1 degrees of freedom). At each p of a grid the belt is the range of the
recalibrated curve over B, [expit(min_B a'b), expit(max_B a'b)] with a = (1, g, ..., g^m):
the extremes of a linear function over a convex set. They solve the Lagrange conditions

    s a + lambda grad l(b) = 0,   l(b) = l(b_hat) - k_a / 2,   lambda > 0   (s = +1 max, -1 min)

by Newton's method on (b, lambda), started at the Wald (quadratic) solution
b_hat + s sqrt(k_a) Sigma a / sqrt(a' Sigma a) and then at the neighbouring grid point's
solution. The reference path (:func:`_bound_by_profile`) profiles the likelihood along a'b with
a statsmodels GLM refit per value (an offset and the null space of a') and inverts it with a
root finder; the tests compare them. The grid is givitiR's: ``n_points / 2`` points equally
spaced in g and as many equally spaced in p, between the smallest and largest p of the data.

Coordinates: g^j reaches 23^4 ~ 3e5 for p = 1e-10, so the design columns are divided by
max(1, max |g|)^j before any fit (the results are reported in the original coefficients).

What failed: a constrained optimiser (trust-constr, as the Python ports use) needs a tolerance
and stops short of the boundary, by up to 1e-3 in probability on the data of the tests; the Newton solution above meets
the boundary to 1e-9 in the log-likelihood.

Examples
--------
>>> import numpy as np
>>> from evstat.metrics import calibration_belt
>>> rng = np.random.default_rng(0)
>>> p = rng.uniform(0.05, 0.95, 500)
>>> y = rng.binomial(1, p)
>>> belt = calibration_belt(y, p)
>>> belt.degree, round(belt.pvalue, 3) > 0.05
(1, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import acos, asin, atan, exp, pi, sqrt
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import chdtr, chdtri, expit, log_expit

from evstat.metrics._validation import check_finite, check_nonempty, check_same_length, check_y

__all__ = ["CalibrationBelt", "belt_cdf", "belt_cdf_convolution", "belt_quantile", "calibration_belt", "level_name"]

#: the largest degree whose selection-aware distribution has a closed form (Nattino et al. 2014)
MAX_DEGREE = 4
#: Newton iterations of a logistic fit or of one belt bound before giving up
_MAX_ITER = 100


# --------------------------------------------------------------------------- the distribution
def _cdf(df: int, x: float) -> float:
    """chi-square cdf (scipy.special: scipy.stats is slow to import)."""
    return float(chdtr(df, x)) if x > 0 else 0.0


def _pdf1(x: float) -> float:
    """chi-square density with one degree of freedom."""
    return exp(-x / 2.0) / sqrt(2.0 * pi * x) if x > 0 else 0.0


def _k(q: float) -> float:
    """The q quantile of chi-square with one degree of freedom (the selection's threshold)."""
    return float(chdtri(1, 1.0 - q))


def _quad(f: Any, a: float, b: float) -> float:
    from scipy.integrate import quad

    if b <= a:
        return 0.0
    return float(quad(f, a, b, limit=200, epsabs=1e-12, epsrel=1e-10)[0])


def _n_truncated(m: int, devel: str) -> int:
    """r in (2): the number of one-degree increments the forward selection conditions on."""
    return m - 1 if devel == "external" else m - 2


def _check_m_devel(m: int, devel: str) -> None:
    if devel not in ("external", "internal"):
        raise ValueError(f"devel must be 'external' or 'internal'; got {devel!r}.")
    low = 1 if devel == "external" else 2
    if not low <= m <= MAX_DEGREE:
        raise ValueError(f"the degree m must be in {low}..{MAX_DEGREE} for devel={devel!r}; got {m!r}.")


def belt_cdf(t: float, m: int, devel: str = "external", q: float = 0.95) -> float:
    """F_m(t) of eq. (2): the null distribution of the belt statistic after forward selection.

    Parameters
    ----------
    t : float
        Value of the statistic T.
    m : int
        Selected degree (1..4 external, 2..4 internal).
    devel : {"external", "internal"}
    q : float
        Level of the forward selection's one-term tests (default 0.95).

    Returns
    -------
    float
        P(T <= t), in [0, 1].

    Examples
    --------
    >>> round(belt_cdf(8.0, 2), 6)
    0.652615
    """
    _check_m_devel(m, devel)
    alpha = 1.0 - q
    k = _k(q)
    t = float(t)
    if t <= _n_truncated(m, devel) * k:
        return 0.0
    rk = sqrt(k)
    if devel == "external":
        if m == 1:
            value = _cdf(2, t)
        elif m == 2:
            value = (_cdf(1, t) - q - sqrt(2.0 / pi) * exp(-t / 2.0) * (sqrt(t) - rk)) / alpha
        elif m == 3:
            first = _quad(lambda y: (_cdf(1, t - y) - q) * _pdf1(y), k, t - k)
            second = _quad(lambda y: (sqrt(t - y) - rk) / sqrt(y), k, t - k)
            value = (first - exp(-t / 2.0) / pi * second) / alpha**2
        else:
            def radial(r: float) -> float:
                u = r * r / k
                return r * r * (exp(-r * r / 2.0) - exp(-t / 2.0)) * (
                    -pi * rk / (2.0 * r)
                    + 2.0 * rk / r * asin((u - 1.0) ** -0.5)
                    - 2.0 * atan((1.0 - 2.0 / u) ** -0.5)
                    + 2.0 * rk / r * atan((u - 2.0) ** -0.5)
                    + 2.0 * atan(r / rk * sqrt(u - 2.0))
                    - 2.0 * rk / r * atan(sqrt(u - 2.0))
                )

            value = (2.0 / (pi * alpha**2)) ** 1.5 * _quad(radial, sqrt(3.0 * k), sqrt(t))
    else:
        if m == 2:
            value = _cdf(1, t)
        elif m == 3:
            value = 2.0 / (pi * alpha) * _quad(lambda r: r * exp(-r * r / 2.0) * acos(rk / r), rk, sqrt(t))
        else:
            def radial_int(r: float) -> float:
                u = r * r / k
                return r * r * exp(-r * r / 2.0) * (
                    atan(sqrt(u * (u - 2.0))) - rk / r * atan(sqrt(u - 2.0)) - rk / r * acos((u - 1.0) ** -0.5)
                )

            value = (2.0 / pi) ** 1.5 / alpha**2 * _quad(radial_int, sqrt(2.0 * k), sqrt(t))
    return min(max(value, 0.0), 1.0)


def belt_cdf_convolution(t: float, m: int, devel: str = "external", q: float = 0.95) -> float:
    """F_m(t) of eq. (2) by nested numerical convolution: the slow reference of :func:`belt_cdf`.

    U (chi-square, 2 degrees of freedom externally, 1 internally) plus r chi_1^2 variables
    truncated to [k, inf): G_0 = cdf of U, G_j(s) = int_k^s f1(v) / alpha G_{j-1}(s - v) dv.

    Examples
    --------
    >>> round(belt_cdf_convolution(8.0, 2), 6)
    0.652615
    """
    _check_m_devel(m, devel)
    alpha = 1.0 - q
    k = _k(q)
    df = 2 if devel == "external" else 1

    def g(j: int, s: float) -> float:
        if j == 0:
            return _cdf(df, s)
        if s <= j * k:
            return 0.0
        return _quad(lambda v: _pdf1(v) / alpha * g(j - 1, s - v), k, s - (j - 1) * k)

    return min(max(g(_n_truncated(m, devel), float(t)), 0.0), 1.0)


def belt_quantile(level: float, m: int, devel: str = "external", q: float = 0.95) -> float:
    """k_a of eq. (3): the ``level`` quantile of F_m (brentq on :func:`belt_cdf`).

    Examples
    --------
    >>> round(belt_quantile(0.95, 1), 4)  # chi2 with 2 degrees of freedom
    5.9915
    """
    from scipy.optimize import brentq

    k = _k(q)
    lo = _n_truncated(m, devel) * k + 1e-9
    hi = lo + 40.0
    while belt_cdf(hi, m, devel, q) < level:
        hi *= 2.0
    return float(brentq(lambda x: belt_cdf(x, m, devel, q) - level, lo, hi, xtol=1e-12, rtol=1e-12))


# --------------------------------------------------------------------------- logistic fits
def _state(X: np.ndarray, y: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(l(b), mu, grad l(b)) in one pass over the rows: l = y'eta - sum softplus(eta), with
    e = exp(-|eta|), softplus(eta) = max(eta, 0) + log(1 + e) (a logarithm of a number in (1, 2]:
    accurate to 1e-16 absolute for any eta, no overflow) and mu = (1 or e) / (1 + e). One
    exponential and one logarithm per row: scipy's log_expit twice, and expit, cost five times
    as much, and this is the inner loop of the belt (four evaluations per bound)."""
    eta = X @ b
    e = np.exp(-np.abs(eta))
    d = 1.0 + e
    soft = np.maximum(eta, 0.0) + np.log(d)
    mu = np.where(eta >= 0, 1.0, e) / d
    return float(y @ eta - soft.sum()), mu, X.T @ (y - mu)


def _loglik(X: np.ndarray, y: np.ndarray, b: np.ndarray) -> float:
    return _state(X, y, b)[0]


def _one_blas_thread() -> Any:
    """One BLAS thread for the belt's thin products (n x (m + 1) with m <= 4): extra threads
    gain nothing on them and spin against other work (measured: 17 ms -> 7.7 ms per likelihood
    evaluation at 100,000 rows on a loaded two-core machine). A no-op without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency, but never fail over the thread count
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _information(X: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """X' diag(mu (1 - mu)) X, minus the Hessian of l."""
    return (X * (mu * (1.0 - mu))[:, None]).T @ X


def _fit_logistic(X: np.ndarray, y: np.ndarray, b0: np.ndarray | None = None,
                  tilt: np.ndarray | None = None) -> np.ndarray:
    """argmax_b l(b) + tilt'b by damped Newton (the design is already scaled)."""
    d = X.shape[1]
    b = np.zeros(d) if b0 is None else np.array(b0, dtype=float)
    c = np.zeros(d) if tilt is None else tilt

    def objective(bb: np.ndarray) -> float:
        return _loglik(X, y, bb) + float(c @ bb)

    obj = objective(b)
    for _ in range(_MAX_ITER):
        _, mu, grad = _state(X, y, b)
        grad = grad + c
        hess = _information(X, mu)
        step = np.linalg.solve(hess + 1e-12 * np.eye(d), grad)
        t = 1.0
        while True:
            new = b + t * step
            new_obj = objective(new)
            if new_obj >= obj - 1e-12 * max(1.0, abs(obj)) or t < 1e-10:
                break
            t /= 2.0
        done = np.max(np.abs(new - b)) < 1e-11 * max(1.0, float(np.max(np.abs(b))))
        b, obj = new, new_obj
        if done or float(np.max(np.abs(grad))) < 1e-10 * max(1.0, float(np.max(np.abs(X.T @ y)))):
            return b
    raise ValueError(
        "the polynomial logistic regression of the calibration belt did not converge in "
        f"{_MAX_ITER} Newton steps (nearly separated outcomes?); evaluate on more rows."
    )


@dataclass(frozen=True)
class _Selected:
    m: int
    b: np.ndarray  # scaled coefficients
    llf: float
    X: np.ndarray  # scaled design of degree m
    scale: np.ndarray
    steps: list[tuple[int, float]]  # (degree tried, its one-term LR statistic)


def _design(g: np.ndarray, m: int, base: float) -> tuple[np.ndarray, np.ndarray]:
    powers = np.arange(m + 1)
    scale = base**powers
    return (g[:, None] ** powers) / scale, scale


def _forward_select(y: np.ndarray, g: np.ndarray, devel: str, q: float, max_degree: int) -> _Selected:
    k = _k(q)
    base = max(1.0, float(np.max(np.abs(g))))
    start = 1 if devel == "external" else 2
    X, scale = _design(g, start, base)
    b = _fit_logistic(X, y)
    llf = _loglik(X, y, b)
    chosen = _Selected(start, b, llf, X, scale, [])
    steps: list[tuple[int, float]] = []
    for m in range(start + 1, max_degree + 1):
        Xn, sn = _design(g, m, base)
        bn = _fit_logistic(Xn, y, np.append(chosen.b, 0.0))
        ln = _loglik(Xn, y, bn)
        d = 2.0 * (ln - chosen.llf)
        steps.append((m, d))
        if d < k:
            break
        chosen = _Selected(m, bn, ln, Xn, sn, [])
    return _Selected(chosen.m, chosen.b, chosen.llf, chosen.X, chosen.scale, steps)


# --------------------------------------------------------------------------- belt bounds
def _bound_newton(X: np.ndarray, y: np.ndarray, a: np.ndarray, sign: float, target: float,
                  b: np.ndarray, lam: float) -> tuple[np.ndarray, float] | None:
    """Solve s a + lambda grad l(b) = 0, l(b) = target by Newton from (b, lambda); None if it fails."""
    d = X.shape[1]
    na = float(np.linalg.norm(a))

    def residual(bb: np.ndarray, ll: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        value, mu, grad = _state(X, y, bb)
        f = np.append(sign * a + ll * grad, value - target)
        return f, grad, mu, float(np.max(np.abs(f[:-1])) / na + abs(f[-1]))

    f, grad, mu, merit = residual(b, lam)
    for _ in range(50):
        if np.max(np.abs(f[:-1])) <= 1e-10 * na and abs(f[-1]) <= 1e-9:
            return b, lam
        hess = -_information(X, mu)
        jac = np.zeros((d + 1, d + 1))
        jac[:d, :d] = lam * hess
        jac[:d, d] = grad
        jac[d, :d] = grad
        try:
            delta = np.linalg.solve(jac, -f)
        except np.linalg.LinAlgError:
            return None
        t = 1.0
        while t > 1e-6:
            nb, nl = b + t * delta[:d], lam + t * float(delta[d])
            if nl > 0:
                nf, ngrad, nmu, nmerit = residual(nb, nl)
                if nmerit < merit or t < 1e-3:
                    break
            t /= 2.0
        else:
            return None
        if nl <= 0:
            return None
        b, lam, f, grad, mu, merit = nb, nl, nf, ngrad, nmu, nmerit
    return None


def _bound_tilt(X: np.ndarray, y: np.ndarray, a: np.ndarray, sign: float, target: float,
                b_hat: np.ndarray) -> np.ndarray:
    """Fallback: b(t) = argmax l(b) + t s a'b, with t found by brentq so that l(b(t)) = target."""
    from scipy.optimize import brentq

    cache: dict[float, np.ndarray] = {}

    def excess(t: float) -> float:
        cache[t] = _fit_logistic(X, y, b_hat, tilt=t * sign * a)
        return _loglik(X, y, cache[t]) - target

    hi = 1.0
    while excess(hi) > 0:
        hi *= 4.0
        if hi > 1e12:
            raise ValueError("a calibration belt bound is unbounded (too few events to bound the curve)")
    t = brentq(excess, 0.0, hi, xtol=1e-14, rtol=1e-12)
    return cache[t] if t in cache else _fit_logistic(X, y, b_hat, tilt=t * sign * a)


def _bounds(sel: _Selected, y: np.ndarray, g_grid: np.ndarray, k_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Belt (lower, upper) in probability at each g of ``g_grid`` for one level (fast path)."""
    X, b_hat = sel.X, sel.b
    target = sel.llf - k_level / 2.0
    cov = np.linalg.inv(_information(X, expit(X @ b_hat)))
    base = float(sel.scale[1]) if sel.scale.size > 1 else 1.0
    powers = np.arange(sel.m + 1)
    out = np.empty((2, g_grid.size))
    for side, sign in enumerate((-1.0, 1.0)):
        prev: tuple[np.ndarray, float] | None = None
        prev_na = 1.0
        for i, g0 in enumerate(g_grid):
            a = (g0 / base) ** powers
            sa = float(np.sqrt(a @ cov @ a))
            wald = (b_hat + sign * np.sqrt(k_level) * (cov @ a) / sa, sa / np.sqrt(k_level))
            sol = None
            if prev is not None:
                sol = _bound_newton(X, y, a, sign, target, prev[0], prev[1] * float(np.linalg.norm(a)) / prev_na)
            if sol is None:
                sol = _bound_newton(X, y, a, sign, target, *wald)
            if sol is None:
                bb = _bound_tilt(X, y, a, sign, target, b_hat)
                mu_b = expit(X @ bb)
                gl = X.T @ (y - mu_b)
                sol = (bb, float(np.linalg.norm(a) / max(np.linalg.norm(gl), 1e-300)))
            prev, prev_na = sol, float(np.linalg.norm(a))
            out[side, i] = expit(float(a @ sol[0]))
    return out[0], out[1]


def _bound_by_profile(y: np.ndarray, p: np.ndarray, m: int, g0: float, k_level: float,
                      sign: float) -> float:
    """One belt bound by profiling a'b with statsmodels GLM refits (slow reference path)."""
    import statsmodels.api as sm
    from scipy.linalg import null_space
    from scipy.optimize import brentq

    g = np.log(p) - np.log1p(-p)
    X = g[:, None] ** np.arange(m + 1)
    full = sm.GLM(y, X, family=sm.families.Binomial()).fit(tol=1e-12)
    a = g0 ** np.arange(m + 1)
    v_hat = float(a @ full.params)
    N = null_space(a[None, :])
    direction = a / float(a @ a)

    def gap(v: float) -> float:
        offset = X @ (v * direction)
        prof = sm.GLM(y, X @ N, family=sm.families.Binomial(), offset=offset).fit(tol=1e-12)
        return 2.0 * (full.llf - prof.llf) - k_level

    se = float(np.sqrt(a @ full.cov_params() @ a))
    step = se * np.sqrt(k_level)
    far = v_hat + sign * step
    while gap(far) < 0:
        step *= 2.0
        far = v_hat + sign * step
    v = brentq(gap, v_hat, far, xtol=1e-12) if sign > 0 else brentq(gap, far, v_hat, xtol=1e-12)
    return float(expit(v))


# --------------------------------------------------------------------------- the result
def level_name(level: float) -> str:
    """The suffix of a level's belt columns (``lower80``, ``upper80``, ...).

    Examples
    --------
    >>> level_name(0.8), level_name(0.975)
    ('80', '97.5')
    """
    return f"{100.0 * level:g}"


@dataclass(frozen=True)
class CalibrationBelt:
    """Result of :func:`calibration_belt`: the test, the selected polynomial and the belts.

    Attributes
    ----------
    statistic : float
        T = 2 (l(b_hat) - l(bisector)).
    pvalue : float
        1 - F_m(T), F_m the selection-aware distribution (module docstring, eq. 2).
    degree : int
        m, the degree chosen by forward selection.
    devel : str
        "external" or "internal".
    n : int
        Number of rows.
    coefficients : pandas.Series
        b_0, ..., b_m of eq. (1) (index ``"b0"``, ``"b1"``, ...).
    belts : pandas.DataFrame
        One row per grid point: ``p`` and ``lower80``, ``upper80``, ``lower95``, ``upper95`` (one
        pair per level).
    levels : tuple of float
        Confidence levels of the belts.
    thresholds : dict
        k_a of eq. (3) per level.
    q : float
        Level of the forward selection's tests.
    selection : pandas.DataFrame
        The forward selection: degree tried, its one-term LR statistic, added or not.
    label : str
        What was evaluated (e.g. ``"evlogit on new data (200 rows)"``), for titles.
    """

    statistic: float
    pvalue: float
    degree: int
    devel: str
    n: int
    coefficients: pd.Series = field(repr=False, compare=False)
    belts: pd.DataFrame = field(repr=False, compare=False)
    levels: tuple[float, ...] = (0.8, 0.95)
    thresholds: dict[float, float] = field(default_factory=dict, repr=False, compare=False)
    q: float = 0.95
    selection: pd.DataFrame = field(default=None, repr=False, compare=False)
    label: str = ""

    @property
    def p_value(self) -> float:
        """Alias of :attr:`pvalue` (the name the belt's papers use)."""
        return self.pvalue

    def deviations(self, level: float = 0.95) -> pd.DataFrame:
        """Ranges of p where the belt at ``level`` excludes the bisector (givitiR's table).

        Returns
        -------
        pandas.DataFrame
            Columns ``side`` (``"over"``: the belt is above the bisector, events more frequent
            than predicted; ``"under"``: below), ``from`` and ``to`` (grid values of p).
        """
        lo, hi = self.belts[f"lower{level_name(level)}"], self.belts[f"upper{level_name(level)}"]
        p = self.belts["p"].to_numpy()
        rows: list[dict[str, Any]] = []
        for side, mask in (("under", (hi < p).to_numpy()), ("over", (lo > p).to_numpy())):
            edges = np.diff(np.concatenate([[0], mask.astype(int), [0]]))
            for s, e in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1):
                rows.append({"side": side, "from": float(p[s]), "to": float(p[e])})
        return pd.DataFrame(rows, columns=["side", "from", "to"]).sort_values("from", ignore_index=True)

    def bounds(self, p: ArrayLike, level: float = 0.95) -> pd.DataFrame:
        """The belt at other probabilities ``p`` (inside the range of the data), recomputed.

        Needs the data, so it is only available on a belt computed in this session
        (:func:`calibration_belt` keeps them); returns columns ``p``, ``lower``, ``upper``.
        """
        if self._data is None:  # pragma: no cover - only after copying without data
            raise ValueError("this calibration belt has no data attached; recompute it with calibration_belt")
        y, g, sel = self._data
        pp = np.asarray(p, dtype=float)
        with _one_blas_thread():
            lo, hi = _bounds(sel, y, np.log(pp) - np.log1p(-pp), belt_quantile(level, sel.m, self.devel, self.q))
        return pd.DataFrame({"p": pp, "lower": lo, "upper": hi})

    _data: Any = field(default=None, repr=False, compare=False)

    def summary(self) -> str:
        """Text summary: the test, the polynomial, the selection and where the belts exclude the bisector."""
        lines = [
            f"Calibration belt (Nattino, Finazzi and Bertolini 2014){': ' + self.label if self.label else ''}",
            f"  evaluation: {self.devel} ({self.n} rows)",
            f"  polynomial degree m = {self.degree} (forward selection at q = {self.q:g}, max {MAX_DEGREE})",
            f"  statistic T = {self.statistic:.4f}, p-value = {_fmt_p(self.pvalue)}",
            "  coefficients: " + ", ".join(f"{k} = {v:.4f}" for k, v in self.coefficients.items()),
        ]
        for level in self.levels:
            dev = self.deviations(level)
            if dev.empty:
                text = "contains the bisector everywhere"
            else:
                text = "; ".join(f"{r['side']} the bisector for p in [{r['from']:.3f}, {r['to']:.3f}]"
                                 for _, r in dev.iterrows())
            lines.append(f"  {level_name(level)}% belt: {text}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _fmt_p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.4f}"


def _belt_grid(p: np.ndarray, n_points: int) -> np.ndarray:
    """givitiR's grid: n/2 points equally spaced in logit(p) and n/2 in p, over the data's range."""
    g = np.log(p) - np.log1p(-p)
    half = max(2, int(round(n_points / 2)))
    in_p = np.linspace(float(p.min()), float(p.max()), half)
    grid = np.concatenate([np.linspace(float(g.min()), float(g.max()), half), np.log(in_p) - np.log1p(-in_p)])
    return np.unique(grid)


def calibration_belt(
    y: ArrayLike,
    p: ArrayLike,
    *,
    devel: str = "external",
    q: float = 0.95,
    max_degree: int = MAX_DEGREE,
    levels: tuple[float, ...] = (0.8, 0.95),
    n_points: int = 200,
    label: str = "",
) -> CalibrationBelt:
    """The calibration belt and test of Nattino et al. (2014) from outcomes and probabilities.

    Parameters
    ----------
    y : array-like
        Observed classes, 0/1 or bool.
    p : array-like
        Predicted probabilities P(y = 1), strictly inside (0, 1) (their logits are the
        regressor; a probability of exactly 0 or 1 is an error that names the rows).
    devel : {"external", "internal"}
        "external" (default): the model was fitted on other rows, forward selection starts at
        degree 1. "internal": a logistic regression evaluated on the rows it was fitted on
        (starts at degree 2; only valid for logistic regression, as in givitiR).
    q : float
        Level of the forward selection's one-term likelihood-ratio tests (0.95).
    max_degree : int
        Largest degree tried, at most 4.
    levels : tuple of float
        Confidence levels of the belts (0.80 and 0.95).
    n_points : int
        Grid size of the belts (givitiR's default, 200).
    label : str
        What is evaluated, for titles.

    Returns
    -------
    CalibrationBelt

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> p = rng.uniform(0.05, 0.95, 400)
    >>> y = rng.binomial(1, np.clip(p + 0.15, 0, 1))  # events more frequent than predicted
    >>> belt = calibration_belt(y, p, n_points=20)
    >>> belt.pvalue < 0.001, list(belt.belts.columns)
    (True, ['p', 'lower80', 'upper80', 'lower95', 'upper95'])
    """
    yy = check_y(y)
    pp = np.asarray(p, dtype=float) if not isinstance(p, pd.Series) else p.to_numpy(dtype=float)
    if pp.ndim != 1:
        raise ValueError(f"p must be one-dimensional; got shape {pp.shape}.")
    check_same_length(y=yy, p=pp)
    check_nonempty(pp, "p")
    check_finite(pp, "p")
    edge = (pp <= 0.0) | (pp >= 1.0)
    if edge.any():
        rows = ", ".join(str(int(i)) for i in np.flatnonzero(edge)[:3])
        raise ValueError(
            f"p has {int(edge.sum())} of {pp.size} values outside the open interval (0, 1) (rows {rows}"
            f"{', ...' if edge.sum() > 3 else ''}): the calibration belt regresses on logit(p), which is "
            "infinite there; evaluate a model whose probabilities stay inside (0, 1), or drop or move "
            "those rows yourself."
        )
    if devel not in ("external", "internal"):
        raise ValueError(f"devel must be 'external' or 'internal'; got {devel!r}.")
    if not 0.0 < q < 1.0:
        raise ValueError(f"q must be in (0, 1), e.g. 0.95; got {q!r}.")
    start = 1 if devel == "external" else 2
    if not isinstance(max_degree, (int, np.integer)) or not start <= max_degree <= MAX_DEGREE:
        raise ValueError(f"max_degree must be an integer in {start}..{MAX_DEGREE} for devel={devel!r}; got {max_degree!r}.")
    lv = tuple(sorted(float(x) for x in levels))
    if not lv or any(not 0.0 < x < 1.0 for x in lv):
        raise ValueError(f"levels must be confidence levels in (0, 1), e.g. (0.8, 0.95); got {levels!r}.")
    events = int(yy.sum())
    if events <= 1 or events >= yy.size - 1:
        raise ValueError(
            f"the calibration belt needs at least two events and two non-events; y has {events} of "
            f"{yy.size} rows equal to 1."
        )
    distinct = np.unique(pp).size
    if distinct < start + 1:
        raise ValueError(
            f"p takes {distinct} distinct value{'s' if distinct > 1 else ''} in {pp.size} rows: the "
            f"calibration belt ({devel}) fits a polynomial of degree {start} in logit(p), which needs "
            f"at least {start + 1} distinct probabilities."
        )
    p0, p1 = pp[yy == 0], pp[yy == 1]
    if p0.max() < p1.min() or p1.max() < p0.min():
        raise ValueError(
            "p separates the outcomes completely (every event has a larger, or every event a smaller, "
            "p than every non-event): "
            "the polynomial logistic regression of the calibration belt has no maximum."
        )

    g = np.log(pp) - np.log1p(-pp)
    with _one_blas_thread():
        return _belt(yy, pp, g, devel, q, int(max_degree), lv, n_points, label)


def _belt(yy: np.ndarray, pp: np.ndarray, g: np.ndarray, devel: str, q: float, max_degree: int,
          lv: tuple[float, ...], n_points: int, label: str) -> CalibrationBelt:
    """The computation of :func:`calibration_belt` on checked inputs."""
    # k distinct probabilities fit a polynomial of degree k - 1 exactly: a higher degree is not
    # identifiable (its one-term LR statistic is 0, so givitiR's selection stops there too)
    max_degree = min(max_degree, np.unique(g).size - 1)
    sel = _forward_select(yy, g, devel, q, max_degree)
    ll_bisector = float(np.sum(yy * log_expit(g) + (1.0 - yy) * log_expit(-g)))
    statistic = max(2.0 * (sel.llf - ll_bisector), 0.0)
    pvalue = 1.0 - belt_cdf(statistic, sel.m, devel, q)
    grid = _belt_grid(pp, n_points)
    belts = pd.DataFrame({"p": expit(grid)})
    thresholds = {}
    for level in lv:
        k_level = belt_quantile(level, sel.m, devel, q)
        thresholds[level] = k_level
        lo, hi = _bounds(sel, yy, grid, k_level)
        belts[f"lower{level_name(level)}"] = lo
        belts[f"upper{level_name(level)}"] = hi
    coefs = pd.Series(sel.b / sel.scale, index=[f"b{j}" for j in range(sel.m + 1)])
    k = _k(q)
    selection = pd.DataFrame(
        [{"degree": d, "statistic": s, "added": bool(s >= k)} for d, s in sel.steps],
        columns=["degree", "statistic", "added"],
    )
    return CalibrationBelt(
        statistic=float(statistic), pvalue=float(min(max(pvalue, 0.0), 1.0)), degree=sel.m, devel=devel,
        n=int(yy.size), coefficients=coefs, belts=belts, levels=lv, thresholds=thresholds, q=float(q),
        selection=selection, label=label, _data=(yy, g, sel),
    )
