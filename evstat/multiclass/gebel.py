"""Gebel's Dirichlet calibration (Gebel 2009, section 5.4).

A one-step multivariate calibrator of the binary task scores of a reduction (or of the K
outputs of a multi-class classifier). For task scores s_b (b = 1..B) and a code matrix Psi:

1. simple normalisation of every task (thesis 4.1, rho = 1.05):
   p_b = (s_b + rho c_b) / (2 rho c_b), c_b = max |s_b| over the training rows; new scores are
   clipped to [-c_b, c_b] first (so p_b stays in [0.0238, 0.976]);
2. combination per class (eqs. 5.11-5.13), over the tasks where psi_kb != 0, of the factors
   f_kb = p_b (psi_kb = +1) or 1 - p_b (psi_kb = -1):
   ``"prod"`` r_k = prod_b f_kb; ``"gmean"`` the geometric mean (power 1 / #{psi_kb != 0});
   ``"gtrim"`` the trimmed geometric mean: the floor(trim n_k) smallest and largest factors
   are dropped before the geometric mean (R's ``mean(x, trim = 0.1)`` rule on ln f; trim = 0.1
   as the thesis); ``"direct"`` r_k = s_k, the K class probabilities of a direct multi-class
   classifier (one column per class, values in [0, 1], no normalisation);
3. per class, a Beta(alpha_k, beta_k) fitted to the training r_k by moments (mean m, variance v
   with n - 1: alpha + beta = m (1 - m) / v - 1; thesis 4.4.3 with the erratum of the notes);
   u_k = F_Beta(r_k), clipped to [1e-12, 1 - 1e-12] so that no quantile is 0 or infinite.
   [!] A Beta distribution with mean m has variance below m (1 - m), the largest variance of any
   distribution on [0, 1] with that mean (all mass at 0 and 1). The 1/N variance of values in
   [0, 1] never exceeds m (1 - m), but the thesis's n - 1 variance exceeds it by the factor
   n / (n - 1) when the r_k are concentrated at 0 and 1, as the probabilities of a confident
   classifier are (``"direct"`` on a neural network's outputs: 52 of 320 fits of the K-class
   reproduction failed so, e.g. iris, class 0: m = 0.326, m (1 - m) = 0.2197, n - 1 variance
   0.2212, 1/N variance 0.2196). For such a class the 1/N variance is used instead (the plain
   method of moments), which gives the U-shaped Beta with the same mean and a small
   alpha + beta > 0; the other classes keep the thesis's n - 1 variance. Only r_k that are all
   exactly 0 or 1 (or constant) admit no Beta fit (alpha + beta <= 1e-12, a rounding error):
   an error (:func:`beta_moments`);
4. q_k = the u_k quantile of Gamma(h_k, 1) with h_k = m pi_k (pi_k the training class shares),
   p_k = q_k / sum_j q_j: a Dirichlet(h_1, ..., h_K) vector (eq. 5.9).
   [!] The thesis writes the quantile of chi^2 with h_k degrees of freedom; by its eq. 5.9 a
   Dirichlet(h) vector comes from chi^2 with 2 h_k degrees of freedom, i.e. Gamma(h_k) up to the
   factor 2 that the normalisation removes. The Gamma form is used, so E(p_k) = pi_k (eq. 5.8).
   A row whose quantiles all underflow to 0 gets the uniform vector (never observed in tests).
5. m in {1, ..., 2N} maximises the geometric mean (CR (1 - RMSE) WCR)^(1/3) of Gebel's measures
   (:mod:`evstat.metrics.gebel`) on the training rows; ties go to the smallest m.
   ``m_search="grid"`` evaluates every integer (the thesis; N Gamma quantiles times 2N values);
   ``"refine"`` evaluates 40 log-spaced integers, then every integer between the neighbours of
   the best (a shortcut for large N, documented where used); ``m=<int>`` fixes it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from evstat.io import schema
from evstat.io.state import floats, saved
from evstat.metrics.gebel import correctness_rate, one_minus_rmse, wcr
from evstat.multiclass.base import MulticlassResults, MulticlassState, score_design
from evstat.multiclass.coupling import is_ovr
from evstat.results import Capabilities, not_fitted, register

__all__ = ["COMBINES", "GebelDirichlet", "beta_moments", "gebel_dirichlet"]

#: the combinations of thesis 5.4.2
COMBINES = ("prod", "gmean", "gtrim", "direct")
_U_EPS = 1e-12
#: alpha + beta at or below this is no Beta fit: values all 0 or 1 up to rounding (m (1 - m) / v - 1
#: is then a rounding error of either sign, about 1e-16)
_PHI_MIN = 1e-12


def beta_moments(
    r: ArrayLike, names: Any = None
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """Beta parameters of every column of r by the method of moments (thesis 4.4.3, step 3 of the
    module docstring): alpha + beta = m (1 - m) / v - 1 with v the n - 1 variance, or the 1/N
    variance for a column where the n - 1 variance is at least m (1 - m).

    Parameters
    ----------
    r : array-like, (N, K)
        Values in [0, 1], one column per class.
    names : sequence, optional
        Column names for the error message (default: positions).

    Returns
    -------
    alpha, beta : ndarray (K,)
        The Beta parameters (positive).
    n_divisor : ndarray of bool (K,)
        True where the 1/N variance was used.

    Raises
    ------
    ValueError
        For a column with no Beta fit (constant, or every value exactly 0 or 1), named in the
        message.

    Examples
    --------
    >>> a, b, used = beta_moments([[0.1], [0.5], [0.6]])  # m = .4, v = .07: alpha + beta = 24/7 - 1
    >>> round(float(a[0] + b[0]), 6), bool(used[0])
    (2.428571, False)
    >>> a, b, used = beta_moments([[1e-9], [1e-9], [1 - 1e-9]])  # n - 1 variance 1/3 > m (1 - m) = 2/9
    >>> bool(used[0]), bool(a[0] > 0 and b[0] > 0)
    (True, True)
    """
    r = np.asarray(r, dtype=np.float64)
    mean = r.mean(axis=0)
    mm = mean * (1.0 - mean)
    n = r.shape[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = mm / r.var(axis=0, ddof=1) - 1.0 if n > 1 else np.full(r.shape[1], np.nan)
        phi_n = mm / r.var(axis=0, ddof=0) - 1.0
    use_n = ~(np.isfinite(phi) & (phi > _PHI_MIN)) & np.isfinite(phi_n) & (phi_n > _PHI_MIN)
    phi = np.where(use_n, phi_n, phi)
    bad = np.flatnonzero(~(np.isfinite(phi) & (phi > _PHI_MIN)))
    if bad.size:
        j = int(bad[0])
        name = repr(list(names)[j]) if names is not None else str(j)
        raise ValueError(
            f"column {name} (mean {mean[j]:.4g}, 1/N variance {r[:, j].var():.4g}) admits no Beta distribution by "
            "moments: its values are constant or all exactly 0 or 1"
        )
    return mean * phi, (1.0 - mean) * phi, use_n


def _combine(P: NDArray[np.float64], psi: NDArray[np.int64], combine: str, trim: float) -> NDArray[np.float64]:
    """r (N, K) from the normalised task probabilities P (N, B)."""
    n = P.shape[0]
    k = psi.shape[0]
    out = np.empty((n, k))
    with np.errstate(divide="ignore"):
        lp, lq = np.log(P), np.log1p(-P)
    for c in range(k):
        pos, neg = psi[c] == 1, psi[c] == -1
        L = np.hstack([lp[:, pos], lq[:, neg]])  # ln f_kb, (N, n_k)
        nk = L.shape[1]
        if combine == "prod":
            out[:, c] = np.exp(L.sum(axis=1))
        elif combine == "gmean":
            out[:, c] = np.exp(L.mean(axis=1))
        else:  # gtrim
            g = int(np.floor(trim * nk))
            Ls = np.sort(L, axis=1)[:, g : nk - g] if g else L
            out[:, c] = np.exp(Ls.mean(axis=1))
    return out


_POSITIVE = schema.Float(min=0)
_PER_TASK = schema.Ref("order", "order lists {n} tasks")
_PER_CLASS = schema.Ref("class_frame.levels", "the model has {n} classes")


class GebelDirichlet(MulticlassResults):
    """Fitted Dirichlet calibration of Gebel (2009, 5.4); created by :func:`gebel_dirichlet`."""

    method: ClassVar[str] = "gebel_dirichlet"
    capabilities: ClassVar[Capabilities] = replace(MulticlassResults.capabilities, scores="ovr",
                                                   # one score per class or per task of a code
                                                   accepts=("probabilities", "log-probabilities", "class-scores", "scores"))
    title: ClassVar[str] = "Dirichlet calibration (Gebel 2009, 5.4)"

    combine: str
    rho: float
    trim: float
    scale: NDArray[np.float64]
    alpha: NDArray[np.float64]
    beta: NDArray[np.float64]
    prior: NDArray[np.float64]
    m: int
    m_search: str

    # ---- pieces
    def combined(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """r (N, K): the combined task probabilities of design rows (steps 1-2)."""
        S = np.asarray(X, dtype=np.float64)[:, self.order]
        psi = self.code.to_numpy(dtype=np.int64)
        if self.combine == "direct":
            if ((S < 0) | (S > 1)).any():
                raise ValueError(
                    f"combine='direct' takes class probabilities: columns {self.task_columns} have values outside "
                    f"[0, 1] in {int(((S < 0) | (S > 1)).any(axis=1).sum())} rows"
                )
            return S[:, np.argmax(psi == 1, axis=1)]
        c = self.scale
        P = (np.clip(S, -c, c) + self.rho * c) / (2.0 * self.rho * c)
        return _combine(P, psi, self.combine, self.trim)

    def uniforms(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """u (N, K) = F_Beta(r) of design rows (step 3), clipped to [1e-12, 1 - 1e-12]."""
        from scipy import stats  # where first needed (import-time rules)

        u = stats.beta.cdf(self.combined(X), self.alpha, self.beta)
        return np.clip(u, _U_EPS, 1.0 - _U_EPS)

    @staticmethod
    def _dirichlet(u: NDArray[np.float64], h: NDArray[np.float64]) -> NDArray[np.float64]:
        q = special.gammaincinv(h[None, :], u)
        s = q.sum(axis=1, keepdims=True)
        return np.where(s > 0, q / np.where(s > 0, s, 1.0), 1.0 / u.shape[1])

    def _probs_block(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._dirichlet(self.uniforms(X), self.m * self.prior)

    # ---- fit
    def _fit(self, m: int | None) -> None:
        X = np.asarray(self._X)
        S = X[:, self.order]
        if self.combine == "direct":
            if not is_ovr(self.code.to_numpy()):
                raise ValueError("combine='direct' takes one probability column per class (the default code), not a reduction's tasks")
            self.scale = np.ones(S.shape[1])
        else:
            self.scale = np.max(np.abs(S), axis=0)
            zero = np.flatnonzero(self.scale == 0)
            if zero.size:
                raise ValueError(f"score column {self.task_columns[zero[0]]!r} is 0 in every training row; it cannot be normalised")
        r = self.combined(X)
        try:
            self.alpha, self.beta, _ = beta_moments(r, names=list(self.classes))
        except ValueError as err:
            raise ValueError(
                f"gebel_dirichlet: the combined probabilities r of class {str(err)[len('column '):]}; use another "
                "combine= or another calibrator"
            ) from None
        counts = np.bincount(self.training_codes(), minlength=self.n_classes)
        self.prior = counts / counts.sum()
        n = self.nobs
        if m is not None:
            if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
                raise ValueError(f"m must be a positive integer (or None to search 1..2N), got {m!r}")
            self.m = int(m)
            self.m_search = "fixed"
            return
        u = self.uniforms(X)
        y = self.training_codes()
        if self.m_search == "grid":
            grid = np.arange(1, 2 * n + 1)
        else:
            grid = np.unique(np.round(np.geomspace(1, 2 * n, 40)).astype(int))
        scores = {int(mm): self._objective(u, y, int(mm)) for mm in grid}
        if self.m_search == "refine":
            best = max(scores, key=lambda k: (scores[k], -k))
            i = int(np.searchsorted(grid, best))
            lo = int(grid[i - 1]) if i > 0 else 1
            hi = int(grid[i + 1]) if i + 1 < grid.size else 2 * n
            for mm in range(lo, hi + 1):
                if mm not in scores:
                    scores[mm] = self._objective(u, y, mm)
        self.m = int(max(scores, key=lambda k: (scores[k], -k)))
        self.objective = float(scores[self.m])

    def _objective(self, u: NDArray[np.float64], y: NDArray[np.intp], m: int) -> float:
        p = self._dirichlet(u, m * self.prior)
        v = correctness_rate(y, p) * one_minus_rmse(y, p) * wcr(y, p)
        return float(max(v, 0.0) ** (1.0 / 3.0))

    # ---- broom
    def _param_frame(self) -> pd.DataFrame:
        lev = [str(c) for c in self.classes]
        rows = [("m", float(self.m))]
        rows += [(f"alpha[{c}]", float(a)) for c, a in zip(lev, self.alpha)]
        rows += [(f"beta[{c}]", float(b)) for c, b in zip(lev, self.beta)]
        rows += [(f"h[{c}]", float(self.m * p)) for c, p in zip(lev, self.prior)]
        return pd.DataFrame({"term": [t for t, _ in rows], "estimate": [v for _, v in rows]})

    def _n_params(self) -> int:
        return 1 + 2 * self.n_classes

    def _summary_notes(self) -> list[str]:
        how = {"grid": "every integer 1..2N", "refine": "40 log-spaced values, then the integers around the best",
               "fixed": "given"}[self.m_search]
        return [
            f"combine = {self.combine!r}" + (f" (trim {self.trim:g})" if self.combine == "gtrim" else "")
            + f"; rho = {self.rho:g}; m by (CR (1-RMSE) WCR)^(1/3) on the training rows, m searched over {how}.",
            "h[c] = m * (training share of c): the Dirichlet parameters; alpha, beta: the Beta fit of r by moments.",
        ] + self._moment_note()

    def _moment_note(self) -> list[str]:
        used = beta_moments(self.combined(np.asarray(self._X)))[2]
        if not used.any():
            return []
        names = ", ".join(repr(str(c)) for c, u in zip(self.classes, used) if u)
        return [f"Beta fit with the 1/N variance for class(es) {names}: their r are concentrated at 0 and 1, so the "
                "n - 1 variance exceeds m (1 - m) (module docstring)."]

    # ---- load check
    def _verify_loaded(self, source: str) -> None:
        """On load, from the saved training rows: ``scale`` (max abs of each task's scores, exact;
        ones for ``"direct"``), ``alpha`` and ``beta`` (the Beta fit of the combined r by
        moments, 1e-12 relative), ``prior`` (the class shares) and ``m`` in 1..2N. Not
        re-checked: that a searched ``m`` maximises the objective over its grid (the search
        itself); another m is a consistent model that only a signature catches."""
        super()._verify_loaded(source)
        X = np.asarray(self._X, dtype=np.float64)
        S = X[:, self.order]
        scale = np.ones(S.shape[1]) if self.combine == "direct" else np.max(np.abs(S), axis=0)
        if not np.array_equal(scale, self.scale):
            raise not_fitted(self, source, "scale", f"the file says {self.scale.tolist()}, max |s| of the saved tasks is {scale.tolist()}")
        alpha, beta, _ = beta_moments(self.combined(X), names=list(self.classes))
        for name, got, want in (("alpha", self.alpha, alpha), ("beta", self.beta, beta)):
            if not np.allclose(got, want, rtol=1e-12, atol=0.0):
                raise not_fitted(self, source, name, f"the file says {got.tolist()}, the moments of the saved rows give {want.tolist()}")
        counts = np.bincount(self.training_codes(), minlength=self.n_classes)
        prior = counts / counts.sum()
        if not np.allclose(self.prior, prior, rtol=1e-12, atol=0.0):
            raise not_fitted(self, source, "prior", f"the file says {self.prior.tolist()}, the saved rows' class shares are {prior.tolist()}")
        if self.m_search != "fixed" and not 1 <= self.m <= 2 * self.nobs:
            raise not_fitted(self, source, "m", f"{self.m} is outside the searched 1..2N = 1..{2 * self.nobs}")

    # ---- persistence
    @dataclass(frozen=True, kw_only=True)
    class State(MulticlassState):
        """What a saved gebel_dirichlet holds beyond its class frame (evstat.io.state)."""

        combine: str = saved(schema.Str(choices=list(COMBINES)))
        rho: float = saved(schema.Float(min=1), encode=float)
        trim: float = saved(schema.Float(min=0, max=0.5), encode=float)
        m: int = saved(schema.Int(min=1), encode=int)
        m_search: str = saved(schema.Str(choices=["grid", "refine", "fixed"]))
        #: ``max |s|`` of every task's column (ones for "direct")
        scale: list[float] = saved(schema.List(_POSITIVE, length=_PER_TASK), decode=floats)
        #: the Beta parameters of every class's combined r, and the class shares
        alpha: list[float] = saved(schema.List(_POSITIVE, length=_PER_CLASS), decode=floats)
        beta: list[float] = saved(schema.List(_POSITIVE, length=_PER_CLASS), decode=floats)
        prior: list[float] = saved(schema.List(schema.Float(min=0, max=1), length=_PER_CLASS), decode=floats)


def gebel_dirichlet(
    formula: str,
    data: pd.DataFrame,
    code: Any = None,
    combine: str = "gmean",
    m: int | None = None,
    m_search: str = "grid",
    rho: float = 1.05,
    trim: float = 0.1,
    missing: str = "raise",
    seed: Any = None,
) -> GebelDirichlet:
    """Gebel's Dirichlet calibration of binary task scores (or class probabilities).

    Parameters
    ----------
    formula : str
        ``"y ~ s_a + s_b + s_c"``: the task scores (one per class for one-vs-rest, named like
        the classes; or per task of ``code``).
    data : pandas.DataFrame
        Calibration data.
    code : {"ovr", "pairs", "sparse", "complete"} or pandas.DataFrame, optional
        The code matrix (default one-vs-rest by name); see :mod:`evstat.multiclass.base`.
    combine : {"prod", "gmean", "gtrim", "direct"}
        Combination of the task probabilities per class (module docstring).
    m : int, optional
        The Dirichlet precision factor (h_k = m pi_k); default: searched (``m_search``).
    m_search : {"grid", "refine"}
        Every integer 1..2N (the thesis) or a log-spaced search refined around its best.
    rho, trim : float
        Normalisation factor (1.05) and trimming share of ``"gtrim"`` (0.1 each side).
    missing : {"raise", "drop"}
    seed : int, optional
        Seed of a ``"sparse"`` code.

    Returns
    -------
    GebelDirichlet

    Examples
    --------
    >>> import numpy as np, pandas as pd, evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 150)
    >>> d = pd.DataFrame({f"s_{c}": np.where(y == c, 1.0, -1.0) + rng.normal(0, 0.8, 150) for c in range(3)})
    >>> d["y"] = y
    >>> fit = ev.gebel_dirichlet("y ~ s_0 + s_1 + s_2", d, combine="gmean")
    >>> p = fit.predict(d.head(3))
    >>> bool(np.allclose(p.sum(axis=1), 1)), fit.m >= 1
    (True, True)
    """
    if combine not in COMBINES:
        raise ValueError(f"combine must be one of {COMBINES}, got {combine!r}")
    if m_search not in ("grid", "refine"):
        raise ValueError(f"m_search must be 'grid' or 'refine', got {m_search!r}")
    if not (np.isfinite(rho) and rho > 1):
        raise ValueError(f"rho must be a number > 1 (the thesis uses 1.05), got {rho!r}")
    if not (0 <= trim < 0.5):
        raise ValueError(f"trim must be in [0, 0.5), got {trim!r}")
    cf, codef, order = score_design(formula, data, code=code, missing=missing, seed=seed, who="gebel_dirichlet")
    obj = GebelDirichlet.__new__(GebelDirichlet)
    MulticlassResults.__init__(obj, cf, codef, order)
    obj.combine, obj.rho, obj.trim, obj.m_search = combine, float(rho), float(trim), m_search
    obj._fit(m)
    return obj


def _contract(y: str, d: pd.DataFrame) -> GebelDirichlet:
    from evstat.multiclass.scaling import contract_code

    return gebel_dirichlet(f"{y} ~ s1 + s2", d, code=contract_code(d[y]), combine="gmean")


register(GebelDirichlet, example=_contract, n_classes=(2, 3), fitter=gebel_dirichlet)
