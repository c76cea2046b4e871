"""Evidential logistic calibration: ``evlogit`` (Minary et al. 2019, sections 3.2.2 and 4.2).

Joint calibration of J classifiers' scores by multiple logistic regression on Platt's smoothed
targets, fitted by maximum likelihood (damped Newton; statsmodels' GLM on request), with likelihood-based inference on the
coefficients and a predictive belief function for every new score vector. With J = 1 it is the
evidential Platt scaling of Xu et al. (2016).

Sign convention: evstat uses the GLM convention ``theta = expit(beta . x)``; the papers write
``theta = 1 / (1 + exp(sigma . x))``, so ``beta = -sigma``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit, ndtr, ndtri

from evstat._config import config_context, get_config
from evstat.calibration.base import CalibrationResults, _duration
from evstat.glm import GLM_TYPES, GlmVerbs
from evstat.results import Capabilities, register
from evstat.summary import Summary, format_number
from evstat.formula import MAX_DESIGN_ABS, ModelFrame, model_frame
from evstat.io import schema
from evstat.io.state import saved
from evstat.likelihood import (
    CoefficientProfile,
    LogisticLikelihood,
    ParameterContour,
    PredictiveContour,
    column_scale,
    linear_predictor,
    newton_mle,
    platt_targets,
    predictive_belief,
    profile_conf_int,
)
from evstat.likelihood.logistic import column_max_abs, information, loglik_eta, score

__all__ = ["LogitCalibration", "completely_separated", "evlogit", "fit_logistic_likelihood", "progress_bars"]

_TARGETS = ("platt", "binary")
#: rows per block when predicting Bel/Pl (bounds memory; a progress bar shows per block)
BLOCK_ROWS = 5000
# when predictions show a tqdm progress bar: evstat.set_config(progress_bars=...,
# progress_min_rows=..., progress_min_seconds=...) (evstat._config)
#: target duration of one block of rows while a progress bar is shown
PROGRESS_BLOCK_SECONDS = 2.0


@contextmanager
def progress_bars(show: bool) -> Iterator[None]:
    """Deprecated: ``evstat.config_context(progress_bars=show)`` (the switch moved to
    :mod:`evstat._config`); kept as a thin alias that warns.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True), progress_bars(False):
    ...     get_config()["progress_bars"]
    False
    """
    warnings.warn(
        "evstat.calibration.logistic.progress_bars is deprecated; use "
        "evstat.config_context(progress_bars=...)",
        DeprecationWarning,
        stacklevel=3,
    )
    with config_context(progress_bars=bool(show)):
        yield
#: Cost model of the predictive belief: about this many seconds per (test row x calibration
#: row), so ``rows`` test rows cost ``rows x n x COST_PER_CELL`` seconds. Measured with
#: benchmarks/bench_speed.py (J = 3; see benchmarks/README.md, issue 15): about 2e-7 on one
#: core, several times more on a loaded machine; the estimate is a rough guide, the progress
#: bar shows the real rate.
COST_PER_CELL = 3e-7


def _targets(y: NDArray, targets: str) -> NDArray:
    if targets not in _TARGETS:
        raise ValueError(f"targets must be 'platt' (smoothed, the default) or 'binary', got {targets!r}")
    return platt_targets(y) if targets == "platt" else np.asarray(y, dtype=float)


def fit_logistic_likelihood(
    X: NDArray, t: NDArray, terms: list[str], params: ArrayLike | None = None, targets: str = "platt"
) -> tuple[LogisticLikelihood, Any]:
    """Fit the binomial GLM of ``t`` on ``X`` by damped Newton (:func:`newton_mle`).

    Returns the :class:`LogisticLikelihood` and None (formerly statsmodels' ``GLMResults``,
    now built on first access of ``LogitCalibration.glm``: statsmodels is not imported to fit).
    With ``params`` given (a reloaded model) the likelihood is built at those values.

    Raises
    ------
    ValueError
        With 0/1 targets and (quasi-)separated data, where no finite MLE exists.
    """
    n, p = X.shape
    top = column_max_abs(X)
    if np.any(top > MAX_DESIGN_ABS):  # also rows added after model_frame's check (active learning)
        j = int(np.argmax(top > MAX_DESIGN_ABS))
        raise ValueError(
            f"design column {terms[j]!r} has values up to {top[j]:.3g} in magnitude "
            f"({int(np.sum(np.abs(X[:, j]) > MAX_DESIGN_ABS))} of {n} calibration rows beyond "
            f"{MAX_DESIGN_ABS:.0e}): their squares overflow float64, so the likelihood cannot be "
            "fitted; rescale the scores (divide them by a power of ten)"
        )
    if n < p:
        raise ValueError(
            f"the calibration data have {n} rows for {p} parameters {_shown(terms)}: a logistic "
            "calibration needs at least as many rows as parameters; add calibration rows or use "
            "a model with fewer parameters"
        )
    Xs = X / column_scale(X)
    if not _full_rank(Xs):
        sv = np.linalg.svd(Xs, compute_uv=False)
        raise ValueError(
            f"the design columns {_shown(terms)} are linearly dependent on the {n} calibration rows "
            f"(rank {int(np.sum(sv > 1e-10 * sv[0]))} < {p}; e.g. too few distinct scores): their "
            "coefficients cannot be estimated; add calibration rows with other scores or use a "
            "model with fewer parameters"
        )
    separated = False
    if params is None:
        # damped Newton from zero on power-of-two scaled columns (newton_mle); statsmodels' IRLS
        # is not needed as a start (and its import alone exceeded the first call's budget:
        # issue 26): it is the fallback only where Newton finds no finite maximiser
        try:
            beta, _ = newton_mle(X, t)
        except RuntimeError:
            separated = True
            beta = np.asarray(_statsmodels_glm(X, t, terms).params, dtype=float)
        mu = expit(X @ beta)
        if targets == "binary" and (separated or np.any(mu < 1e-10) or np.any(mu > 1 - 1e-10)):
            raise ValueError(
                f"the calibration data are (quasi-)separated by the scores (n = {len(t)} rows): "
                "with targets='binary' the maximum-likelihood estimate does not exist. Use "
                "targets='platt' (Platt's smoothed targets, the default), which always gives a "
                "finite estimate"
            )
    else:
        beta = np.asarray(params, dtype=float)
        _check_saved_maximum(beta, X, t, terms)
    info = information(beta, X)
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        cov = np.linalg.pinv(info)
    lik = LogisticLikelihood(X=np.ascontiguousarray(X), t=t, beta_hat=beta,
                             loglik_hat=float(loglik_eta(X @ beta, t)), cov=np.asarray(cov, dtype=np.float64))
    return lik, None


def _shown(terms: Any, limit: int = 10) -> str:
    """At most ``limit`` term names for a message (a tensor spline has thousands)."""
    names = [str(t) if len(str(t)) <= 80 else str(t)[:77] + "..." for t in list(terms)[:limit]]
    more = len(terms) - len(names)
    return "[" + ", ".join(repr(t) for t in names) + (f", ... ({len(terms)} in all)" if more > 0 else "") + "]"


def _full_rank(Xs: NDArray) -> bool:
    """Whether the smallest singular value of the scaled design ``Xs`` exceeds 1e-10 times
    its largest (the rank test of :func:`fit_logistic_likelihood`).

    The eigenvalues of the Gram matrix ``Xs' Xs`` are the squared singular values, with an
    absolute error of about ``n eps`` times the largest: a smallest eigenvalue above 1e-8 times
    the largest (a ratio of singular values above 1e-4, far from 1e-10) certifies the rank
    from one matrix product (0.3 ms at 100,000 x 4); any other design is decided by the SVD
    itself (7 ms there), as before.
    """
    lam = np.linalg.eigvalsh(Xs.T @ Xs) if np.all(np.isfinite(Xs)) else np.zeros(1)
    if np.all(np.isfinite(lam)) and lam[0] >= 1e-8 * lam[-1] > 0:
        return True
    sv = np.linalg.svd(Xs, compute_uv=False)
    return bool(sv[-1] > 1e-10 * sv[0])


def _statsmodels_glm(X: NDArray, t: NDArray, terms: list[str]) -> Any:
    """statsmodels' binomial GLM of ``t`` on ``X`` (IRLS), its warnings not passed on: the
    ``glm`` attribute of a fit, and the estimate where Newton finds no finite maximiser."""
    import statsmodels.api as sm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sm.GLM(t, pd.DataFrame(X, columns=terms), family=sm.families.Binomial()).fit(tol=1e-12, maxiter=200)


#: largest gradient of the log-likelihood, per calibration row and in the units of the
#: power-of-two scaled design columns, that saved coefficients may show: a fit is polished to
#: a gradient at rounding level (about 1e-13 per row), and JSON keeps doubles exactly
SAVED_GRADIENT_TOL = 1e-6


def _check_saved_maximum(beta: NDArray, X: NDArray, t: NDArray, terms: list[str]) -> None:
    """Refuse reloaded coefficients that are not the maximum of the reloaded likelihood.

    The contour ``L(beta) / L(beta_hat)`` and every belief built on it assume that ``beta_hat``
    maximises ``L``; coefficients edited in a saved file (the checksum recomputed) would give
    ``pl > 1``, a profile that "finds a better solution", or overflowing refits deep in the
    predictive integrals. The score equations ``X' (t - expit(X beta)) = 0`` are checked at load.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        g = score(beta, X, t) / column_scale(X)
    worst = float(np.max(np.abs(g))) if g.size else 0.0
    if not worst <= SAVED_GRADIENT_TOL * max(1, X.shape[0]):
        j = int(np.nanargmax(np.abs(g))) if np.isfinite(g).any() else 0
        raise ValueError(
            f"the saved coefficients are not the maximum-likelihood estimate of the saved "
            f"calibration data: the score equation of {terms[j]!r} is off by {worst:.3g} (at most "
            f"{SAVED_GRADIENT_TOL * max(1, X.shape[0]):.3g} after a fit); the file was edited or "
            "corrupted: refit the model from its data"
        )


def _binomial_deviance(t: NDArray, eta: NDArray) -> float:
    """``2 (l_saturated - l(eta))`` with the log-likelihood in log space (``log_expit``), so that
    fitted probabilities that round to 0 or 1 (linear predictors beyond +-37, common under
    separation) give the right finite deviance, not ``inf`` from ``log(1 - 1.0)``."""
    from scipy.special import xlogy

    saturated = float(np.sum(xlogy(t, t) + xlogy(1 - t, 1 - t)))
    return 2.0 * (saturated - float(loglik_eta(eta, t)))


def completely_separated(X: NDArray, y: NDArray) -> bool:
    """Whether a hyperplane puts every positive on one side and every negative on the other.

    Complete separation (Albert & Anderson 1984): some ``beta`` has ``x_i . beta > 0`` for every
    positive and ``< 0`` for every negative, i.e. the linear programme
    ``(2 y_i - 1) x_i . beta >= 1`` is feasible (scipy's HiGHS). With 0/1 targets the MLE does
    not exist then; Platt's targets keep it finite.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.c_[np.ones(4), [-2.0, -1.0, 1.0, 2.0]]
    >>> completely_separated(X, np.array([0, 0, 1, 1])), completely_separated(X, np.array([0, 1, 0, 1]))
    (True, False)
    """
    from scipy.optimize import linprog

    y = np.asarray(y)
    if y.min() == y.max():
        return False
    sign = np.where(y > 0.5, 1.0, -1.0)
    res = linprog(
        np.zeros(X.shape[1]), A_ub=-(sign[:, None] * X), b_ub=-np.ones(X.shape[0]),
        bounds=[(None, None)] * X.shape[1], method="highs",
    )
    return bool(res.status == 0)


class LogitCalibration(CalibrationResults, GlmVerbs):
    """A fitted evidential logistic calibration (returned by :func:`evlogit`).

    Attributes
    ----------
    params, bse : pandas.Series
        Coefficients (GLM sign convention, ``theta = expit(beta . x)``) and standard errors
        (inverse observed information), indexed by term names.
    loglike : float
        Maximised log-likelihood ``sum t log theta + (1 - t) log(1 - theta)`` with the targets
        ``t`` used (the kernel whose ratio defines the contour).
    loglike_labels : float
        Log-likelihood of the 0/1 labels at the same coefficients (the one the AIC uses).
    deviance, null_deviance : float
        As R's ``glm`` with the same (fractional) response.
    aic, bic : float
        As R's ``AIC``/``BIC`` for a binomial ``glm``; R's binomial AIC rounds the response to
        0/1, so with Platt's targets it is computed from the labels (stated here because it is
        not ``-2 loglike + 2p``).
    glm : statsmodels GLMResults
        The statsmodels fit, built on first access (its estimates agree with ``params`` to
        ~1e-10; evstat's Newton iteration is polished to rounding level).
    targets : {"platt", "binary"}
    predictive_method : {"fast", "reference"}
        How Bel/Pl are computed by ``predict``; the reference path is slow and for checking.
    """

    method = "evlogit"
    capabilities = Capabilities(profiles=True, contours=True, refit=True)

    def _refit(self, data: pd.DataFrame) -> LogitCalibration:
        return evlogit(self.formula, data, targets=self.targets, positive=self.positive)

    def __init__(
        self,
        mf: ModelFrame,
        targets: str = "platt",
        params: ArrayLike | None = None,
        design: tuple[ArrayLike, list[str]] | None = None,
    ) -> None:
        """``design = (X, terms)`` replaces the formula's design matrix (used by calibrators
        that are logistic models on derived columns, such as beta calibration)."""
        super().__init__(mf)
        self.targets = targets
        self.t = _targets(np.asarray(mf.y), targets)
        if design is None:
            X, terms = np.asarray(mf.X, dtype=float), list(mf.terms)
        else:
            X, terms = np.asarray(design[0], dtype=float), list(design[1])
        self._terms = terms
        self._lik, self._glm = fit_logistic_likelihood(X, self.t, terms, params, targets)
        self.predictive_method = "fast"
        self._cal_belief: pd.DataFrame | None = None
        self._profile_ci: dict[float, pd.DataFrame] = {}

    # ------------------------------------------------------------------ estimates

    @property
    def terms(self) -> list[str]:
        """Names of the coefficients (the design columns)."""
        return list(self._terms)

    @property
    def likelihood(self) -> LogisticLikelihood:
        """The fitted :class:`evstat.likelihood.LogisticLikelihood`."""
        return self._lik

    @property
    def glm(self) -> Any:
        """statsmodels' binomial ``GLMResults`` on the same design and targets, fitted on first
        access (statsmodels is imported only then); its estimates agree with ``params`` to about
        1e-10 (evstat's own Newton iteration is polished to rounding level)."""
        if self._glm is None:
            self._glm = _statsmodels_glm(self._lik.X, self._lik.t, self.terms)
        return self._glm

    @property
    def params(self) -> pd.Series:
        """Coefficient estimates indexed by term (statsmodels' name; ``tidy()["estimate"]``)."""
        return pd.Series(self._lik.beta_hat, index=self.terms, name="estimate")

    @property
    def bse(self) -> pd.Series:
        """Standard errors indexed by term (statsmodels' name; ``tidy()["std_error"]``)."""
        return pd.Series(np.sqrt(np.diag(self._lik.cov)), index=self.terms, name="std_error")

    def cov_params(self) -> pd.DataFrame:
        """Covariance matrix of the estimates (inverse observed information)."""
        return pd.DataFrame(self._lik.cov, index=self.terms, columns=self.terms)

    @property
    def tvalues(self) -> pd.Series:
        """Wald statistics ``estimate / std_error`` (R's ``z value``)."""
        return (self.params / self.bse).rename("z")

    @property
    def pvalues(self) -> pd.Series:
        """Two-sided Wald p-values (R's ``Pr(>|z|)``)."""
        return pd.Series(2.0 * ndtr(-np.abs(self.tvalues.to_numpy())), index=self.terms, name="p_value")

    @property
    def loglike(self) -> float:
        """Maximised log-likelihood (of the fitting targets)."""
        return self._lik.loglik_hat

    @property
    def llf(self) -> float:
        """statsmodels' name of :attr:`loglike` (``GLMResults.llf``)."""
        return self.loglike

    @property
    def fittedvalues(self) -> pd.Series:
        """theta_hat on the calibration rows."""
        return pd.Series(expit(self._lik.X @ self._lik.beta_hat), index=self.model_frame.index, name="theta")

    @property
    def deviance(self) -> float:
        return _binomial_deviance(self.t, self._lik.X @ self._lik.beta_hat)

    @property
    def null_deviance(self) -> float:
        mu0 = np.mean(self.t) if "Intercept" in self.terms else 0.5
        return _binomial_deviance(self.t, np.full_like(self.t, np.log(mu0) - np.log1p(-mu0)))

    @property
    def separated(self) -> bool:
        """Whether the scores separate the classes completely (:func:`completely_separated`)."""
        if not hasattr(self, "_separated"):
            self._separated = completely_separated(self._lik.X, np.asarray(self.model_frame.y))
        return self._separated

    @property
    def df_resid(self) -> int:
        return self.nobs - self._lik.p

    @property
    def df_null(self) -> int:
        return self.nobs - (1 if "Intercept" in self.terms else 0)

    @property
    def loglike_labels(self) -> float:
        """Log-likelihood of the 0/1 labels at the fitted coefficients,
        ``sum y log theta_hat + (1 - y) log(1 - theta_hat)``: the one R's binomial AIC uses
        (``aic = -2 loglike_labels + 2 p``). Equal to ``loglike`` with ``targets="binary"``."""
        y = np.asarray(self.model_frame.y)
        return float(loglik_eta(self._lik.X @ self._lik.beta_hat, np.round(y)))

    @property
    def aic(self) -> float:
        return -2.0 * self.loglike_labels + 2.0 * self._lik.p

    @property
    def bic(self) -> float:
        return self.aic - 2.0 * self._lik.p + np.log(self.nobs) * self._lik.p

    # ------------------------------------------------------------------ inference
    def _term_index(self, term: str | int) -> int:
        if isinstance(term, (int, np.integer)) and not isinstance(term, bool):
            if not 0 <= int(term) < self._lik.p:
                raise ValueError(f"term index {term} out of range: the model has {self._lik.p} terms {self.terms}")
            return int(term)
        if term not in self.terms:
            raise ValueError(f"unknown term {term!r}; the model's terms are {self.terms}")
        return self.terms.index(term)

    def conf_int(self, level: float = 0.95, method: str = "profile") -> pd.DataFrame:
        """Confidence intervals for the coefficients: DataFrame [lower, upper] by term.

        ``method="profile"`` (default): exact likelihood-ratio (profile) intervals, as R's
        ``confint(glm)`` but with the ends found by root finding instead of spline
        interpolation. ``method="wald"``: estimate +- z_{(1+level)/2} std_error (R's
        ``confint.default``).
        """
        level = float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
        if method == "wald":
            z = ndtri(0.5 + level / 2.0)
            lo = self.params - z * self.bse
            hi = self.params + z * self.bse
            return pd.DataFrame({"lower": lo.to_numpy(), "upper": hi.to_numpy()}, index=self.terms)
        if method != "profile":
            raise ValueError(f"method must be 'profile' or 'wald', got {method!r}")
        if level not in self._profile_ci:
            ci = profile_conf_int(self._lik, list(range(self._lik.p)), level)
            self._profile_ci[level] = pd.DataFrame(ci, index=self.terms, columns=["lower", "upper"])
        return self._profile_ci[level].copy()

    def profile(self, term: str | int, alpha: float = 0.01, maxsteps: int = 10) -> CoefficientProfile:
        """R-style profile of one coefficient (see :class:`evstat.likelihood.CoefficientProfile`)."""
        return CoefficientProfile(self._lik, self._term_index(term), self.terms, alpha=alpha, maxsteps=maxsteps)

    def likelihood_contour(self, beta: ArrayLike) -> NDArray[np.float64]:
        """``pl(beta) = L(beta) / L(beta_hat)`` for ``beta`` of shape ``(..., p)`` (eq. 53)."""
        return ParameterContour(self._lik)(beta)

    def predictive_contour(self, newdata: pd.DataFrame | None = None, missing: str = "raise") -> PredictiveContour:
        """Predictive contour functions ``pl(theta | s)`` of the rows of ``newdata`` (eqs. 54-58)."""
        X, index = self._design(newdata, missing)
        return PredictiveContour(self._lik, X, index=index)

    # ------------------------------------------------------------------ protocol
    def _prob_array(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return expit(linear_predictor(X, self._lik.beta_hat))

    #: the cost model of ``predict(type="belief")`` (see :meth:`predicted_seconds`)
    cost_per_cell = COST_PER_CELL

    def _belief_arrays(self, X: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        m = X.shape[0]
        est = self.predicted_seconds(m)
        cfg = get_config()
        min_rows, min_seconds = cfg["progress_min_rows"], cfg["progress_min_seconds"]
        show = cfg["progress_bars"] and (
            (min_rows is not None and m >= min_rows) or (min_seconds is not None and est >= min_seconds)
        )
        if m <= BLOCK_ROWS and not show:
            return predictive_belief(self._lik, X, method=self.predictive_method)
        # blocks bound memory; with a progress bar they are also short enough (about
        # PROGRESS_BLOCK_SECONDS by the cost model) for the bar to move
        block = BLOCK_ROWS
        if show:
            block = int(np.clip(PROGRESS_BLOCK_SECONDS / max(est / m, 1e-12), 1, BLOCK_ROWS))
        th, bel, pl = np.empty(m), np.empty(m), np.empty(m)
        starts: Any = range(0, m, block)
        bar = None
        if show:
            from tqdm.auto import tqdm

            bar = tqdm(
                total=m, unit="row", desc=f"{self.method} Bel/Pl (n = {self.nobs:,}; estimate {_duration(est)})",
            )
        for s in starts:
            sl = slice(s, s + block)
            th[sl], bel[sl], pl[sl] = predictive_belief(self._lik, X[sl], method=self.predictive_method)
            if bar is not None:
                bar.update(th[sl].size)
        if bar is not None:
            bar.close()
        return th, bel, pl

    def _predict(self, X: NDArray[np.float64], index: pd.Index, type: str, se_fit: bool = False, **options: Any) -> Any:
        """Predict for new score rows (the calibration rows when ``newdata`` is None).

        Parameters
        ----------
        newdata : pandas.DataFrame, optional
            Must contain the score columns of the formula; other columns are ignored.
        type : {"prob", "belief", "mass", "link", "response"}
            ``"prob"``: Series ``theta`` = theta_hat(s). ``"belief"``: DataFrame [theta, bel,
            pl]. ``"mass"``: a :class:`evstat.belief.MassArray` on (negative, positive).
            ``"link"``: the linear predictor ``beta . x`` (R's ``predict.glm(type = "link")``);
            ``"response"``: the probability theta_hat, as ``"prob"`` (R's ``type = "response"``).
        missing : {"raise", "drop"}
            Rows of ``newdata`` with missing scores: an error, or dropped from the result.
        se_fit : bool
            With ``"link"`` or ``"response"``: a DataFrame [fit, se_fit] with the standard error
            ``sqrt(x' V x)`` of the link (``V`` = :meth:`cov_params`) or, by the delta method,
            ``theta (1 - theta)`` times it for the response, as R's ``se.fit = TRUE``
            (:mod:`evstat.glm`).

        Returns
        -------
        pandas.Series, pandas.DataFrame or evstat.belief.MassArray
            Indexed like ``newdata`` in its row order.

        Examples
        --------
        >>> import evstat as ev
        >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
        >>> fit = ev.evlogit("y ~ x1 + x2", data=cal, targets="binary")
        >>> eta = fit.predict(cal.head(2), type="link", se_fit=True)
        >>> list(eta.columns), bool((eta["se_fit"] > 0).all())
        (['fit', 'se_fit'], True)
        """
        if type in GLM_TYPES or se_fit:
            return self._predict_glm(X, index, type, se_fit)
        return super()._predict(X, index, type, **options)

    # ------------------------------------------------------------------ glm verbs (evstat.glm)
    _glm_by_terms = True

    def _glm_design(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        G = np.zeros((X.shape[0], 2, X.shape[1]))
        G[:, 1, :] = X
        return G

    def _glm_coef(self) -> NDArray[np.float64]:
        return self._lik.beta_hat

    def _glm_cov(self) -> NDArray[np.float64] | None:
        return self._lik.cov

    def _glm_targets(self) -> NDArray[np.float64]:
        return np.column_stack([1.0 - self.t, self.t])

    def _glm_targets_name(self) -> str:
        return "Platt targets" if self.targets == "platt" else "0/1 labels"

    def _glm_term_names(self) -> list[str]:
        return self.terms

    def _glm_settings(self) -> dict[str, Any]:
        return {"targets": self.targets, "positive": self.positive}

    def _glm_refit(self, formula: str, data: pd.DataFrame, **settings: Any) -> LogitCalibration:
        return evlogit(formula, data, **settings)

    def tidy(self, level: float = 0.95, conf_method: str = "profile") -> pd.DataFrame:
        """Coefficient table: term, estimate, std_error, statistic, p_value, conf_low, conf_high."""
        ci = self.conf_int(level, method=conf_method)
        return pd.DataFrame(
            {
                "term": self.terms,
                "estimate": self.params.to_numpy(),
                "std_error": self.bse.to_numpy(),
                "statistic": self.tvalues.to_numpy(),
                "p_value": self.pvalues.to_numpy(),
                "conf_low": ci["lower"].to_numpy(),
                "conf_high": ci["upper"].to_numpy(),
            }
        )

    def glance(self) -> pd.DataFrame:
        """One-row model summary: nobs, n_pos, n_neg, targets, loglik (of the targets the fit
        maximises), loglik_labels (of the 0/1 labels, which the AIC uses), deviance, null_deviance,
        df_null, df_residual, aic, bic, mean_ignorance (on the calibration rows), ignorance_rows
        (how many calibration rows that mean uses: all, or a seeded subsample above
        CALIBRATION_SAMPLE_ROWS, see :meth:`calibration_sample`), separated (the scores
        separate the classes completely)."""
        mf = self.model_frame
        cb = self.calibration_belief()
        return pd.DataFrame(
            [
                {
                    "method": self.method,
                    "nobs": mf.n,
                    "n_pos": mf.n_pos,
                    "n_neg": mf.n_neg,
                    "targets": self.targets,
                    "loglik": self.loglike,
                    "loglik_labels": self.loglike_labels,
                    "deviance": self.deviance,
                    "null_deviance": self.null_deviance,
                    "df_null": self.df_null,
                    "df_residual": self.df_resid,
                    "aic": self.aic,
                    "bic": self.bic,
                    "mean_ignorance": float(np.mean(cb["pl"] - cb["bel"])),
                    "ignorance_rows": len(cb),
                    "separated": self.separated,
                }
            ]
        )

    def summary(self, level: float = 0.95) -> Summary:
        """R-style summary: call, n, N+/N-, targets, coefficients with Wald tests and profile
        intervals, deviances, AIC, and the ignorance m({0,1}) on the calibration rows."""
        mf = self.model_frame
        s = self._summary_head("Evidential logistic calibration (evlogit)")
        if self.targets == "platt":
            tp = (mf.n_pos + 1) / (mf.n_pos + 2)
            tn = 1 / (mf.n_neg + 2)
            s.add_info("Targets", f"Platt: {format_number(tp)} for positives, {format_number(tn)} for negatives")
        else:
            s.add_info("Targets", "binary (0/1 labels)")
        tidy = self.tidy(level)
        pct = f"{level:.1%}".replace(".0%", "%")
        coef = pd.DataFrame(
            {
                "Estimate": tidy["estimate"].to_numpy(),
                "Std. Error": tidy["std_error"].to_numpy(),
                "z value": tidy["statistic"].to_numpy(),
                "Pr(>|z|)": tidy["p_value"].to_numpy(),
                f"{pct} lower": tidy["conf_low"].to_numpy(),
                f"{pct} upper": tidy["conf_high"].to_numpy(),
            },
            index=tidy["term"].to_numpy(),
        )
        s.add_table(
            "Coefficients",
            coef,
            notes=[
                f"Sign convention: theta = expit(beta . x) (the papers' sigma = -beta). "
                f"Intervals: {pct} profile likelihood (likelihood-ratio)."
            ],
        )
        k = self._lik.p
        if self.targets == "platt":
            ll_rows = [self.loglike, self.loglike_labels]
            ll_names = ["Log-likelihood (Platt targets)", "Log-likelihood (0/1 labels)"]
            gof_notes = [
                "The coefficients maximise the log-likelihood of the Platt targets (the contour "
                "and every interval use it); R's binomial AIC rounds the response to 0/1, so AIC "
                f"= -2 x log-likelihood (0/1 labels) + 2 x {k} parameters. The deviances use the "
                "targets, as R's glm with the same fractional response."
            ]
        else:
            ll_rows, ll_names = [self.loglike], ["Log-likelihood (0/1 labels)"]
            gof_notes = [f"AIC = -2 x log-likelihood + 2 x {k} parameters."]
        s.add_table(
            "Goodness of fit",
            pd.DataFrame(
                {
                    "value": ll_rows + [self.null_deviance, self.deviance, self.aic],
                    "df": [k] * len(ll_rows) + [self.df_null, self.df_resid, np.nan],
                },
                index=ll_names + ["Null deviance", "Residual deviance", "AIC"],
            ),
            formatters={"value": lambda v: format_number(v, 6), "df": lambda v: "" if np.isnan(v) else str(int(v))},
            notes=gof_notes,
        )
        if self.separated:
            s.add_note(
                "The scores separate the classes completely (a hyperplane puts every positive on "
                "one side and every negative on the other): with 0/1 targets the MLE would not "
                "exist; Platt's targets keep the coefficients finite, but nothing in the data "
                "says how fast theta moves from 0 to 1 between the classes."
                if self.targets == "platt" else
                "The scores separate the classes completely: with 0/1 targets the MLE does not "
                "exist (the coefficients diverge); use the default Platt targets."
            )
        self._summary_ignorance(s)
        return s

    # ------------------------------------------------------------------ persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved evlogit holds beyond its model frame (evstat.io.state)."""

        targets: str = saved(schema.Str(choices=list(_TARGETS)))
        #: the coefficients, one per design column
        params: list[float] = saved(
            schema.List(schema.Float(), length=schema.Ref("model_frame.terms", "the design has {n} columns")),
            attribute="_lik.beta_hat",
        )


def evlogit(
    formula: str,
    data: pd.DataFrame,
    targets: str = "platt",
    positive: Any = None,
    missing: str = "raise",
) -> LogitCalibration:
    """Evidential (joint) logistic calibration of classifier scores.

    Fits ``P(y = positive | s) = expit(beta . x)`` by maximum likelihood (a statsmodels
    ``GLM(family=Binomial())`` on Platt's smoothed targets, Minary et al. 2019 eq. 52), and
    uses the relative likelihood ``pl(beta) = L(beta) / L(beta_hat)`` as a contour function
    on the coefficients. For a new score vector the predictive contour on theta is the relative
    profile likelihood of ``eta = x . beta`` (eqs. 54-58) and Bel({1}), Pl({1}) follow from
    eqs. 25-26.

    Parameters
    ----------
    formula : str
        ``"y ~ svm1 + svm2 + svm3"``; patsy terms such as ``np.log(s)`` or ``I(s**2)`` work.
    data : pandas.DataFrame
        Calibration data: the response (0/1, bool or any two-level column) and the scores.
    targets : {"platt", "binary"}
        Platt's smoothed targets ``(N+ + 1)/(N+ + 2)`` and ``1/(N- + 2)`` (default; the MLE
        always exists), or the 0/1 labels (ordinary logistic regression).
    positive : optional
        The response level coded 1 (default as R's glm: 1/True, else the second sorted level).
    missing : {"raise", "drop"}
        Missing values in used columns: an error (default) or drop those rows.

    Returns
    -------
    LogitCalibration

    Notes
    -----
    Coefficients use the GLM convention ``theta = expit(beta . x)``; the papers write
    ``theta = 1 / (1 + exp(sigma . x))``, so ``beta = -sigma``.

    Examples
    --------
    >>> import evstat as ev
    >>> cal = ev.datasets.simulate_gaussian(60, seed=1)
    >>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
    >>> list(fit.params.index)
    ['Intercept', 'x1', 'x2']
    >>> b = fit.predict(cal.head(2), type="belief")
    >>> bool(((b.bel <= b.theta) & (b.theta <= b.pl)).all())
    True
    """
    if targets not in _TARGETS:
        raise ValueError(f"targets must be 'platt' (smoothed, the default) or 'binary', got {targets!r}")
    mf = model_frame(formula, data, positive=positive, missing=missing)
    return LogitCalibration(mf, targets=targets)


register(LogitCalibration, example=lambda y, d: evlogit(f"{y} ~ s1 + s2", d), fitter=evlogit)
