"""Profile likelihood of one logistic coefficient, as R's ``profile.glm`` and ``confint.glm``.

The profile of coefficient ``beta_j`` maximises the log-likelihood over the other coefficients
with ``beta_j = b`` fixed (the offset trick). The signed root is

    z(b) = sign(b - beta_hat_j) sqrt(2 (l_hat - l_p(b))),

and the likelihood-ratio interval at ``level`` is ``{b : z(b)^2 <= chi2_1(level)}``. R
interpolates the interval ends with a spline through the profile table; here the ends are found
exactly by root finding on the concave profile (Newton from outside), so they are the exact
likelihood-ratio limits (R's spline values agree to about 1e-4; see tests/likelihood).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.special import gammaincinv

from evstat.likelihood.linear_profile import BETTER_SOLUTION_TOL, LogisticLikelihood, profile_loglik, relative_loglik
from evstat.likelihood.predictive import profile_level_set

__all__ = ["BETTER_SOLUTION_TOL", "CoefficientProfile", "profile_conf_int"]



def _chi2_ppf_1(q: float) -> float:
    """The ``q`` quantile of the chi-squared distribution with one degree of freedom, as
    ``scipy.stats.chi2.ppf(q, 1)`` computes it (``2 * gammaincinv(1/2, q)``, bit for bit),
    without importing scipy.stats (import-time rules, docs/architecture.md)."""
    return float(2.0 * gammaincinv(0.5, q))

def profile_deviance(loglik_hat: float, lp: np.ndarray) -> np.ndarray:
    """``2 (l_hat - l_p)``, tiny negative values (rounding, within :data:`BETTER_SOLUTION_TOL`)
    set to 0; a profile point with a clearly higher likelihood than the fit is an error with
    R's message.

    Examples
    --------
    >>> profile_deviance(-10.0, np.array([-10.5, -9.9999999]))  # the second: rounding
    array([1., 0.])
    """
    return 0.0 - 2.0 * relative_loglik(loglik_hat, lp)


def _check_level(level: float) -> float:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
    return level


def profile_conf_int(lik: LogisticLikelihood, j: int | Sequence[int], level: float = 0.95) -> NDArray[np.float64]:
    """Exact likelihood-ratio interval(s) for coefficient(s) ``j``: array (k, 2) [lower, upper].

    An end that does not exist (the profile never falls to the cut-off, as with separated data
    and 0/1 targets) is returned as -inf or +inf.
    """
    level = _check_level(level)
    js = np.atleast_1d(np.asarray(j, dtype=int))
    A = np.eye(lik.p)[js]
    gamma = float(np.exp(-0.5 * _chi2_ppf_1(level)))
    lo, hi = profile_level_set(lik, A, gamma)
    return np.c_[lo, hi]


class CoefficientProfile:
    """Profile of one coefficient: table of (value, z, pl), exact intervals and a plot.

    Built like R's ``profile.glm``: from the estimate, steps of ``del = zmax / 5`` standard
    errors in each direction (at most ``maxsteps`` per side) until ``|z| >= zmax``, with
    ``zmax = sqrt(chi2_1(1 - alpha))``. The table also holds the other coefficients at their
    constrained maximum at each point (R's ``par.vals``).

    Attributes
    ----------
    term : str
    estimate, se : float
    table : pandas.DataFrame
        Columns ``value``, ``z`` (signed root), ``pl`` (= exp(-z^2/2), the relative profile
        likelihood) and one column per term with the constrained maximiser.

    Examples
    --------
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(60, seed=3)
    >>> prof = ev.evlogit("y ~ x1 + x2", data=cal).profile("x1")
    >>> list(prof.table.columns[:3])
    ['value', 'z', 'pl']
    >>> lo, hi = prof.conf_int(0.95)
    >>> bool(lo < prof.estimate < hi)
    True
    """

    def __init__(
        self,
        lik: LogisticLikelihood,
        j: int,
        terms: Sequence[str],
        alpha: float = 0.01,
        maxsteps: int = 10,
        delta: float | None = None,
    ) -> None:
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
        self._lik = lik
        self.j = int(j)
        self.terms = list(terms)
        self.term = self.terms[self.j]
        self.estimate = float(lik.beta_hat[self.j])
        self.se = float(np.sqrt(lik.cov[self.j, self.j]))
        zmax = float(np.sqrt(_chi2_ppf_1(1.0 - alpha)))
        step = zmax / 5.0 if delta is None else float(delta)
        a = np.eye(lik.p)[self.j]
        rows: list[dict[str, Any]] = []
        for sgn in (-1.0, 1.0):
            values = self.estimate + sgn * np.arange(1, maxsteps) * step * self.se
            lp, _, beta = profile_loglik(lik, a, values, return_beta=True)
            z = sgn * np.sqrt(profile_deviance(lik.loglik_hat, lp))
            beyond = np.flatnonzero(np.abs(z) >= zmax)
            stop = beyond[0] + 1 if beyond.size else values.size
            for v, zz, b in zip(values[:stop], z[:stop], beta[:stop]):
                rows.append({"value": v, "z": zz, **dict(zip(self.terms, b))})
        rows.append({"value": self.estimate, "z": 0.0, **dict(zip(self.terms, lik.beta_hat))})
        table = pd.DataFrame(rows).sort_values("value", kind="stable").reset_index(drop=True)
        table.insert(2, "pl", np.exp(-0.5 * table["z"].to_numpy() ** 2))
        self.table = table

    def __repr__(self) -> str:
        return (
            f"<CoefficientProfile of {self.term!r}: estimate {self.estimate:.6g}, "
            f"{len(self.table)} points>"
        )

    def conf_int(self, level: float = 0.95) -> tuple[float, float]:
        """Exact likelihood-ratio interval ``(lower, upper)`` at ``level``."""
        lo, hi = profile_conf_int(self._lik, self.j, level)[0]
        return float(lo), float(hi)

    def plot(self, ax: Any = None, kind: str = "z", level: float = 0.95) -> Any:
        """Plot the signed root ``z`` (``kind="z"``) or ``pl`` (``kind="pl"``) against the value.

        The likelihood-ratio interval at ``level`` is drawn as dashed vertical lines. Returns the
        matplotlib Axes.
        """
        import matplotlib.pyplot as plt

        if kind not in ("z", "pl"):
            raise ValueError(f"kind must be 'z' or 'pl', got {kind!r}")
        if ax is None:
            _, ax = plt.subplots(figsize=(5, 3.5))
        lo, hi = self.conf_int(level)
        grid = np.linspace(self.table["value"].min(), self.table["value"].max(), 121)
        lp, _ = profile_loglik(self._lik, np.eye(self._lik.p)[self.j], grid)
        dev = profile_deviance(self._lik.loglik_hat, lp)
        if kind == "z":
            y = np.sign(grid - self.estimate) * np.sqrt(dev)
            cut = np.sqrt(_chi2_ppf_1(level))
            ax.axhline(cut, color="0.6", lw=0.8)
            ax.axhline(-cut, color="0.6", lw=0.8)
            ax.set_ylabel("signed root z")
        else:
            y = np.exp(-0.5 * dev)
            ax.axhline(np.exp(-0.5 * _chi2_ppf_1(level)), color="0.6", lw=0.8)
            ax.set_ylabel("relative profile likelihood pl")
        ax.plot(grid, y, color="#0072B2", lw=1.8, label="profile")
        for v in (lo, hi):
            if np.isfinite(v):
                ax.axvline(v, color="#D55E00", ls="--", lw=1.0)
        ax.axvline(self.estimate, color="0.3", lw=0.8, ls=":")
        ax.set_xlabel(f"coefficient of {self.term}")
        ax.set_title(f"Profile of {self.term} ({level:.0%} interval dashed)")
        return ax
