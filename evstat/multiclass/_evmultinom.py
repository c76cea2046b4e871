"""Evidential multinomial calibration: ``evmultinom`` (issue 16; notes/evidential-multinomial.md).

The K-class extension of evlogit's evidential joint calibration that Minary et al. (2019) leave to future
work. A multinomial logistic regression of the K-level response on the scores,
``theta_k(s; B) = softmax_k(B x)`` with the first level as the baseline (as R's
``nnet::multinom``), fitted by maximum likelihood (statsmodels ``MNLogit``, polished by Newton
steps), with the relative likelihood ``pl(B) = L(B) / L(B_hat)`` as a contour on the
coefficients. For a test row and a set of classes A, the predictive lower and upper
probabilities are eqs. 25-26 of 000 applied to the profile contour of ``theta_A``:

    Bel(A) = theta_hat_A - int_0^theta_hat_A pl_A(t) dt,  Pl(A) = theta_hat_A + int_theta_hat_A^1 pl_A(t) dt,

computed exactly (no Monte Carlo) by :func:`evstat.likelihood.multinomial.predictive_bounds`.
For K = 2 they are evlogit's Bel and Pl with ``targets="binary"``.

Choices (documented here because the issue leaves them open):

* ``type="mass"``: for K = 2, the mass function on (negative, positive) with these Bel and Pl.
  For K >= 3 the singleton bounds are those of a coherent lower probability, in general not the
  Bel and Pl of a mass function (a mass function with them exists only when, among others,
  ``sum_k Bel({k}) + sum_k Pl({k}) >= 2``, which fails for wide bounds), so ``type="mass"`` is
  refused with a message; use ``type="belief"``.
* Extreme scores (up to 1e308): rows far enough out take the exact limit of the bounds as the
  scores grow along their direction (:mod:`evstat.likelihood.multinomial`, "Extreme test
  rows"); ``type="prob"`` is computed without overflow (0 and 1, never NaN).
* ``.ignorance`` (augment, glance, compare): the mean over the classes of ``Pl({k}) - Bel({k})``
  (for K = 2 the m({0, 1}) of evlogit).
* Decisions: the upper and lower expected losses of act a are the same construction applied to
  ``f_a(B) = sum_k L(a, k) theta_k(B)`` (normalised to [0, 1] by the row's minimum and
  maximum); with 0-1 costs ``E_upper(decide k) = 1 - Bel({k})`` and ``E_lower = 1 - Pl({k})``.
  "probabilistic" and "pignistic" both use theta_hat (there is no mass function to take a
  pignistic transform of); "hurwicz" mixes upper and lower. The choice, the tie policy and the
  reject action are those of the one engine, :func:`evstat.belief.decide_bounds`.
* Targets (``targets=``, as evlogit's). ``"platt"`` (the default) fits the multinomial
  log-likelihood ``sum_ik T_ik log theta_k(x_i; B)`` of smoothed targets, the K-class
  generalisation of Platt's by Laplace's rule of succession:
  ``T_ik = (1{y_i = k} N_{y_i} + 1) / (N_{y_i} + K)``, ``N_c`` the rows of class c
  (:func:`evstat.likelihood.multinomial.multinomial_targets`): the posterior mean of the class
  probabilities under a uniform Dirichlet prior updated with the rows of the row's class. For
  K = 2 these are exactly Platt's ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``, so evmultinom
  with two classes is evlogit with the same ``targets``. The contour is the relative likelihood
  of that smoothed log-likelihood, ``pl(B) = exp(l_T(B) - l_T(B_hat))``, as evlogit's. Why the
  default: as evlogit's, because the maximum then always exists (every target is positive, so
  the log-likelihood falls to minus infinity in every direction of a full-rank design), which
  the small calibration sets this model is for need: with 15 rows and three classifiers the
  labels are often separated. ``"binary"`` fits the labels (R's ``nnet::multinom``); then the
  MLE does not exist when the scores separate the classes, an error naming the fix.
* Rows: the coefficients are identified when the design has full column rank, so
  ``targets="platt"`` needs at least as many rows as terms (p, checked by the formula layer);
  ``targets="binary"`` needs more
  rows than coefficients ((K - 1) p), below which the labels are almost always separated.
* ``loglike`` is the maximised log-likelihood of the targets (the contour's kernel);
  ``deviance = 2 (sum T log T - loglike)`` and the null deviance as R's glm with the same
  fractional response (for 0/1 targets R's multinom's ``-2 loglike``); the AIC, as evlogit's and
  R's, is computed from the labels' log-likelihood at the fit, ``-2 loglike_labels + 2 (K - 1) p``.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from evstat.formula import ClassFrame, class_frame
from evstat.classifiers.base import ClassifierResults
from evstat.io import schema
from evstat.io.state import saved
from evstat.glm import GLM_TYPES, GlmVerbs
from evstat.likelihood.linear_profile import relative_loglik
from evstat.likelihood.multinomial import (
    MultinomialLikelihood,
    coefficient_conf_int,
    coefficient_profile_loglik,
    TARGETS,
    functional_profile,
    multinomial_loglik,
    multinomial_mle,
    multinomial_probs,
    scaled_probs,
    limit_contour,
    wide_rows,
    multinomial_score_info,
    multinomial_targets,
    predictive_bounds_events,
)
from evstat.multiclass._bounds import EvidentialBounds
from evstat.multiclass.base import _log_zero_hint
from evstat.multiclass.simplex import (
    SCORES,
    clip_log_eps,
    clip_note,
    clipped_rows,
    detect_simplex,
    resolve_scores,
    scores_note,
    to_logs,
)
from evstat.results import Capabilities, register
from evstat.summary import Summary, format_number

__all__ = ["MultinomCalibration", "evmultinom"]

#: test rows per block of the predictive computation (bounds memory)
BLOCK_ROWS = 2000


class MultinomCalibration(EvidentialBounds, ClassifierResults, GlmVerbs):
    """A fitted evidential multinomial calibration (returned by :func:`evmultinom`).

    Attributes
    ----------
    params, bse : pandas.DataFrame
        Coefficients and standard errors, one row per non-baseline class, one column per term
        (R's ``coef(multinom)`` layout).
    loglike, deviance, aic, bic : float
        ``deviance = -2 loglike`` and ``aic = deviance + 2 d`` as R's ``multinom``.
    likelihood : evstat.likelihood.multinomial.MultinomialLikelihood
    predictive_method : {"fast", "reference"}
    """

    method: ClassVar[str] = "evmultinom"
    #: lower and upper probabilities, not masses, for K >= 3 (and so no credal decision);
    #: coefficient profiles
    capabilities: ClassVar[Capabilities] = Capabilities(k_class_mass=False, profiles=True, default_strategy="pessimistic")
    decision_rule: ClassVar[str] = (
        "the pessimistic strategy of Minary et al. (2019, eqs. 8-11) carried to K classes: the act of minimal upper "
        "expected loss, E_upper(decide k) = 1 - Bel({k}) with 0-1 costs"
    )

    def __init__(
        self, cf: ClassFrame, params: ArrayLike | None = None, targets: str = "platt", scores: str = "raw",
        log_eps: float | None = None,
    ) -> None:
        super().__init__(cf)
        if targets not in TARGETS:
            raise ValueError(f"targets must be 'platt' (smoothed, the default) or 'binary', got {targets!r}")
        self.targets = targets
        self.scores = scores
        if scores != "raw" and log_eps is None and params is None:  # a new fit: the rule's eps, fixed now
            log_eps = clip_log_eps(self._score_columns(np.asarray(cf.design.X, dtype=float)), scores)
        #: ln eps of the rule for exact 0 and 1 (evstat.multiclass.simplex.clip_rule); None for
        #: raw scores and for fits of older evstat (zeros refused)
        self.log_eps = None if log_eps is None else float(log_eps)
        X = np.ascontiguousarray(self._transform(np.asarray(cf.design.X, dtype=float), "calibration data"))
        self._terms = _model_terms(list(cf.design.terms), scores)
        K = cf.n_classes
        d = (K - 1) * X.shape[1]
        codes = np.asarray(cf.codes, dtype=np.intp)
        if params is None:
            if targets == "binary" and cf.n <= d:
                raise ValueError(
                    f"evmultinom has {d} coefficients ({K - 1} classes x {X.shape[1]} terms) but only "
                    f"{cf.n} calibration rows: with targets='binary' add rows, use fewer score "
                    "columns, or use targets='platt' (identified with as many rows as terms)"
                )
            start = self._statsmodels_start(X, multinomial_targets(codes, K, targets))
            try:
                self._lik = multinomial_mle(X, codes, K, start=start, targets=targets)
            except RuntimeError:
                if targets == "binary":
                    raise ValueError(
                        f"the scores separate the classes of {cf.response!r} in the {cf.n} calibration "
                        "rows (completely or quasi-completely): with targets='binary' the maximum-"
                        "likelihood estimate of the multinomial model does not exist. Use "
                        "targets='platt' (smoothed targets, the default; always a finite estimate), "
                        "add calibration rows, use fewer score columns, or merge classes"
                    ) from None
                raise ValueError(
                    f"the design of {cf.formula!r} is not of full column rank on the {cf.n} calibration "
                    "rows (collinear score columns): the coefficients are not identified; drop a "
                    "column"
                ) from None
        else:
            B = np.asarray(params, dtype=float).reshape(K - 1, X.shape[1])
            T = multinomial_targets(codes, K, targets)
            g, info = multinomial_score_info(B, X, codes, K, T)
            self._lik = MultinomialLikelihood(
                X=X, codes=codes, K=K, B_hat=B, loglik_hat=float(multinomial_loglik(B, X, codes, K, T)),
                cov=np.linalg.inv(info), T=T,
            )
        self.predictive_method = "fast"
        self._cache: dict[tuple, Any] = {}

    @staticmethod
    def _statsmodels_start(X: NDArray, T: NDArray) -> NDArray | None:
        """statsmodels' ``MNLogit`` estimate on the targets (a 2-D response: statsmodels fits
        ``sum T log theta`` for fractional rows too), polished afterwards by Newton steps."""
        import statsmodels.api as sm

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = sm.MNLogit(T, X).fit(method="newton", maxiter=100, disp=0)
            start = np.asarray(res.params, dtype=float).T  # (K - 1, p)
            return start if np.all(np.isfinite(start)) else None
        except (np.linalg.LinAlgError, ValueError, FloatingPointError):
            return None

    # ---------------------------------------------------------------- estimates
    @property
    def terms(self) -> list[str]:
        """Names of the design columns (with ``Intercept``)."""
        return list(self._terms)

    @property
    def likelihood(self) -> MultinomialLikelihood:
        return self._lik

    def _coef_frame(self, values: NDArray, name: str) -> pd.DataFrame:
        idx = pd.Index(list(self.classes[1:]), dtype=object, name="class")
        return pd.DataFrame(values.reshape(self.n_classes - 1, -1), index=idx, columns=self.terms).rename_axis(
            columns=name
        )

    @property
    def params(self) -> pd.DataFrame:
        """Coefficients (rows: the classes but the baseline; columns: terms)."""
        return self._coef_frame(self._lik.B_hat, "term")

    @property
    def bse(self) -> pd.DataFrame:
        """Standard errors (inverse observed information), laid out as :attr:`params`."""
        return self._coef_frame(np.sqrt(np.diag(self._lik.cov)), "term")

    def cov_params(self) -> pd.DataFrame:
        """Covariance of the flattened coefficients, indexed by (class, term)."""
        mi = self._flat_index()
        return pd.DataFrame(self._lik.cov, index=mi, columns=mi)

    def _flat_index(self) -> pd.MultiIndex:
        return pd.MultiIndex.from_product([list(self.classes[1:]), self.terms], names=["class", "term"])

    @property
    def loglike(self) -> float:
        """Maximised log-likelihood of the fitting targets (the contour's kernel)."""
        return self._lik.loglik_hat

    @property
    def llf(self) -> float:
        """statsmodels' name of :attr:`loglike`."""
        return self.loglike

    @property
    def loglike_labels(self) -> float:
        """Log-likelihood of the labels at the fitted coefficients (equal to :attr:`loglike`
        with ``targets="binary"``); the AIC uses it, as evlogit's and R's."""
        return float(multinomial_loglik(self._lik.B_hat, self._lik.X, self._lik.codes, self.n_classes))

    def _saturated(self) -> float:
        from scipy.special import xlogy

        return float(np.sum(xlogy(self._lik.T, self._lik.T)))

    @property
    def deviance(self) -> float:
        """Residual deviance ``2 (sum T log T - loglike)`` (R's glm with the same fractional
        response; ``-2 loglike`` for 0/1 targets, as R's multinom)."""
        return 2.0 * (self._saturated() - self._lik.loglik_hat)

    @property
    def null_deviance(self) -> float:
        """Deviance of the intercept-only model (class probabilities the mean targets)."""
        from scipy.special import xlogy

        T = self._lik.T
        return 2.0 * (self._saturated() - float(np.sum(xlogy(T, T.mean(axis=0)[None, :]))))

    @property
    def df(self) -> int:
        """Number of coefficients ``(K - 1) p``."""
        return self._lik.d

    @property
    def aic(self) -> float:
        """``-2 loglike_labels + 2 (K - 1) p`` (R's multinom for 0/1 targets)."""
        return -2.0 * self.loglike_labels + 2.0 * self.df

    @property
    def bic(self) -> float:
        return -2.0 * self.loglike_labels + np.log(self.nobs) * self.df

    # ---------------------------------------------------------------- inference
    def _flat(self, cls: Hashable, term: str) -> int:
        others = list(self.classes[1:])
        if cls not in others:
            raise ValueError(f"class {cls!r} has no coefficients; the non-baseline classes are {others}")
        if term not in self.terms:
            raise ValueError(f"unknown term {term!r}; the model's terms are {self.terms}")
        return others.index(cls) * len(self.terms) + self.terms.index(term)

    def conf_int(self, level: float = 0.95, method: str = "profile") -> pd.DataFrame:
        """Intervals for every coefficient: DataFrame [lower, upper] indexed by (class, term).

        ``"profile"``: exact likelihood-ratio intervals (root finding on the profile
        log-likelihood, maximised over all other coefficients); ``"wald"``: estimate +- z se.
        """
        level = float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
        est, se = self._lik.B_hat.ravel(), np.sqrt(np.diag(self._lik.cov))
        if method == "wald":
            from scipy.stats import norm  # where first needed (import-time rules)

            z = norm.ppf(0.5 + level / 2.0)
            ci = np.c_[est - z * se, est + z * se]
        elif method == "profile":
            key = ("ci", level)
            if key not in self._cache:
                self._cache[key] = np.array([coefficient_conf_int(self._lik, j, level) for j in range(self._lik.d)])
            ci = self._cache[key]
        else:
            raise ValueError(f"method must be 'profile' or 'wald', got {method!r}")
        return pd.DataFrame(ci, index=self._flat_index(), columns=["lower", "upper"])

    def profile(self, cls: Hashable, term: str, values: ArrayLike | None = None) -> pd.DataFrame:
        """Profile of one coefficient: DataFrame [value, z, pl] (signed root and relative
        profile likelihood), by default at 21 points over +-3.5 standard errors."""
        j = self._flat(cls, term)
        est, se = float(self._lik.B_hat.ravel()[j]), float(np.sqrt(self._lik.cov[j, j]))
        v = est + se * np.linspace(-3.5, 3.5, 21) if values is None else np.atleast_1d(np.asarray(values, float))
        lp, _ = coefficient_profile_loglik(self._lik, j, v)
        # R's rule, as evlogit's: a deviance below 0 by rounding is 0, a clearly negative one
        # (the profile found a higher likelihood than the fit) stops with R's message
        dev = -2.0 * relative_loglik(self._lik.loglik_hat, lp)
        return pd.DataFrame({"value": v, "z": np.sign(v - est) * np.sqrt(dev), "pl": np.exp(-0.5 * dev)})

    def likelihood_contour(self, B: ArrayLike) -> NDArray[np.float64]:
        """``pl(B) = L(B) / L(B_hat)`` for ``B`` of shape ``(..., K - 1, p)``."""
        return np.exp(self._lik.log_contour(B))

    # ---------------------------------------------------------------- design and events
    def _design(self, newdata: pd.DataFrame | None, missing: str = "raise") -> tuple[NDArray, pd.Index]:
        if newdata is None:
            return np.asarray(self._lik.X), self.class_frame.index
        self._check_newdata(newdata)
        X, index = self.class_frame.design.new_X(newdata, missing=missing)
        return self._transform(X, "new data"), index

    def _transform(self, X: NDArray[np.float64], where: str) -> NDArray[np.float64]:
        """The model's design from the formula's: as given (``scores="raw"``), or for a
        probability matrix (or its logs) the intercept and the K - 1 log-ratios
        ``ln(p_k / p_1)`` (first score column the reference; module docstring)."""
        if self.scores == "raw":
            return X
        terms = list(self.class_frame.design.terms)
        cols = [j for j, t in enumerate(terms) if t != "Intercept"]
        L = to_logs(X[:, cols], self.scores, [terms[j] for j in cols], "evmultinom", where, log_eps=self.log_eps)
        return np.hstack([np.ones((X.shape[0], 1)), L[:, 1:] - L[:, :1]])

    def _score_columns(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        terms = list(self.class_frame.design.terms)
        return X[:, [j for j, t in enumerate(terms) if t != "Intercept"]]

    def clip_summary(self) -> str:
        """The sentence on the rule for exact 0 and 1 ("" for raw scores): how many calibration
        rows were clipped, at which eps (:func:`evstat.multiclass.simplex.clip_note`)."""
        if self.scores == "raw" or self.log_eps is None:
            return ""
        S = self._score_columns(np.asarray(self.class_frame.design.X, dtype=float))
        return clip_note(int(clipped_rows(S, self.scores, self.log_eps).sum()), S.shape[0], self.log_eps, self.scores)

    def _theta_hat(self, X: NDArray) -> NDArray:
        return scaled_probs(self._lik.B_hat, X)

    def _events_bounds(self, X: NDArray, ws: list[NDArray]) -> list[tuple[NDArray, NDArray, NDArray]]:
        """theta_hat, lower and upper of each weight vector (:func:`~evstat.likelihood.multinomial.
        predictive_bounds_events`: concurrently when the work is large, the same answers)."""
        return predictive_bounds_events(self._lik, X, ws, method=self.predictive_method, block_rows=BLOCK_ROWS)

    def _predict(  # type: ignore[override]  # its own options by name: an unknown one is a TypeError
        self, X: NDArray, index: pd.Index, type: str, events: Sequence[Iterable[Hashable]] | None = None,
        se_fit: bool = False,
    ) -> Any:
        """Predict for new score rows (the calibration rows when ``newdata`` is None).

        Parameters
        ----------
        type : {"prob", "belief", "mass", "link", "response"}
            ``"prob"``: theta_hat (K = 2: a Series of P(positive); else a DataFrame, a column per
            class). ``"belief"``: K = 2 a DataFrame [theta, bel, pl]; else two-level columns
            ``(stat, class)`` with ``stat`` in theta, bel, pl (lower and upper probabilities of
            every class). ``"mass"``: K = 2 only (module docstring). ``"link"``: the linear
            predictors ``log(theta_k / theta_baseline) = B_k . x`` (K = 2: a Series; else a
            DataFrame, a column per class but the baseline); ``"response"``: theta_hat as
            ``"prob"`` (R's ``predict.glm`` types; :mod:`evstat.glm`).
        se_fit : bool
            With ``"link"`` or ``"response"``: standard errors too, ``sqrt(J V J')`` with ``V``
            the covariance of the coefficients and ``J`` the gradient of the prediction (the
            delta method); K = 2 a DataFrame [fit, se_fit], else two-level columns
            ``(stat, class)``, ``stat`` in fit, se_fit. (R's ``nnet`` has no ``se.fit``.)
        events : sequence of sets of classes, optional
            With ``type="belief"``: the lower and upper probabilities of these events instead of
            the singletons, columns ``(stat, "{a, b}")``.

        Notes
        -----
        Every finite score row gets an answer, however large (scores up to 1e308, of either
        sign, in any columns). Write the design row as ``x = r v`` (``r`` its largest absolute
        entry). When ``r`` times the smallest Wald standard error of a difference of two classes'
        linear predictors along ``v`` exceeds ``WIDE_SCALE`` (1e8), the bounds are their exact
        limit as ``r -> inf``: with ``c_k`` the relative profile likelihood of class k being
        the arg max of the linear predictors along v (``c_k = 1`` for the fitted arg max),
        ``Bel(A) = 1 - max_{k not in A} c_k`` and ``Pl(A) = max_{k in A} c_k``, the belief of a
        consonant mass function on the classes (and decisions use its lower and upper
        expected losses). Below the switch the quadrature; their measured difference at the
        switch is about 1e-9 (:mod:`evstat.likelihood.multinomial`, "Extreme test rows").
        Infinite or missing scores are an error naming the column.

        Examples
        --------
        >>> import numpy as np, pandas as pd, evstat as ev
        >>> rng = np.random.default_rng(0)
        >>> s = rng.normal(size=60)
        >>> y = np.where(s + rng.normal(size=60) > 0.5, "c", np.where(s + rng.normal(size=60) > -0.5, "b", "a"))
        >>> fit = ev.evmultinom("y ~ s", pd.DataFrame({"y": y, "s": s}))
        >>> b = fit.predict(pd.DataFrame({"s": [1e10, 1e300]}), type="belief")
        >>> b["pl"].round(6).to_numpy().tolist()
        [[0.000209, 0.262431, 1.0], [0.000209, 0.262431, 1.0]]
        """
        if type in GLM_TYPES or se_fit:
            if events is not None:
                raise ValueError("events= goes with type='belief', not with the link or response predictions")
            return self._predict_glm(X, index, type, se_fit)
        out = self._predict_theta_events(X, index, type, events)
        return super()._predict(X, index, type) if out is None else out

    def contour(self, newdata: pd.DataFrame, event: Iterable[Hashable], t: ArrayLike) -> NDArray[np.float64]:
        """The predictive contour ``pl_A(t)`` of an event A for every row: array (rows, len(t))."""
        X, _ = self._design(newdata)
        t = np.atleast_1d(np.asarray(t, dtype=float))
        if np.any(~((t >= 0) & (t <= 1))):
            raise ValueError("t values must lie in [0, 1]")
        out = np.zeros((X.shape[0], t.size))
        inner = (t > 0) & (t < 1)
        w = self._weights(event)
        wide = wide_rows(self._lik, X) if w.min() < w.max() else np.zeros(X.shape[0], dtype=bool)
        if inner.any() and (~wide).any():
            u = np.log(t[inner]) - np.log1p(-t[inner])
            lp, _ = functional_profile(self._lik, X[~wide][:, None, :], w, u[None, :])
            out[np.ix_(~wide, inner)] = np.exp(relative_loglik(self._lik.loglik_hat, lp))
        if inner.any() and wide.any():  # far-out rows: the limit r -> inf, constant in t
            out[np.ix_(wide, inner)] = limit_contour(self._lik, X[wide], w)[:, None]
        return out

    # ---------------------------------------------------------------- glm verbs (evstat.glm)
    _glm_by_terms = True

    def _glm_design(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        m, p = X.shape
        K = self.n_classes
        G = np.zeros((m, K, (K - 1) * p))
        for k in range(1, K):
            G[:, k, (k - 1) * p : k * p] = X
        return G

    def _glm_coef(self) -> NDArray[np.float64]:
        return self._lik.B_hat.ravel()

    def _glm_cov(self) -> NDArray[np.float64] | None:
        return self._lik.cov

    def _glm_targets(self) -> NDArray[np.float64]:
        return np.asarray(self._lik.T, dtype=np.float64)

    def _glm_targets_name(self) -> str:
        return "Platt targets" if self.targets == "platt" else "0/1 labels"

    def _glm_term_names(self) -> list[str]:
        return [f"{c}: {t}" for c, t in self._flat_index()]

    def _glm_settings(self) -> dict[str, Any]:
        return {"targets": self.targets, "scores": self.scores}

    def _glm_refit(self, formula: str, data: pd.DataFrame, **settings: Any) -> MultinomCalibration:
        return evmultinom(formula, data, **settings)

    # ---------------------------------------------------------------- decisions
    # ---------------------------------------------------------------- broom verbs and summary
    def tidy(self, level: float = 0.95, conf_method: str = "profile") -> pd.DataFrame:
        """One row per coefficient: class, term, estimate, std_error, statistic, p_value,
        conf_low, conf_high (profile intervals by default)."""
        from scipy.stats import norm  # where first needed (import-time rules)

        est, se = self._lik.B_hat.ravel(), np.sqrt(np.diag(self._lik.cov))
        ci = self.conf_int(level, method=conf_method)
        mi = self._flat_index()
        return pd.DataFrame(
            {
                "class": mi.get_level_values(0), "term": mi.get_level_values(1), "estimate": est,
                "std_error": se, "statistic": est / se, "p_value": 2.0 * norm.sf(np.abs(est / se)),
                "conf_low": ci["lower"].to_numpy(), "conf_high": ci["upper"].to_numpy(),
            }
        )

    def glance(self) -> pd.DataFrame:
        """One row: method, nobs, n_classes, df, loglik, deviance, null_deviance, aic, bic."""
        return pd.DataFrame([{
            "method": self.method, "nobs": self.nobs, "n_classes": self.n_classes, "df": self.df,
            "loglik": self.loglike, "deviance": self.deviance, "null_deviance": self.null_deviance,
            "aic": self.aic, "bic": self.bic,
        }])

    def summary(self, level: float = 0.95) -> Summary:
        """R-style summary (as ``summary(multinom(...))``): coefficients and standard errors per
        class, Wald z, profile-likelihood intervals, residual deviance and AIC."""
        s = Summary("Evidential multinomial calibration (evmultinom)")
        cf = self.class_frame
        s.add_info("Formula", self.formula)
        s.add_info("Calibration rows", f"{cf.n}" + (f" ({cf.n_dropped} dropped: missing values)" if cf.n_dropped else ""))
        s.add_info("Classes", ", ".join(f"{lev} ({int(c)})" for lev, c in self.class_counts.items())
                   + f"; baseline {self.classes[0]!r}")
        s.add_info("Targets", "Platt-Laplace smoothed, (1{y = k} N_y + 1) / (N_y + K)" if self.targets == "platt"
                   else "0/1 labels")
        score_terms = [t for t in self.class_frame.design.terms if t != "Intercept"]
        s.add_info("Default decision", self.default_decision())
        if self.scores != "raw":
            s.add_info("Scores", scores_note(self.scores, score_terms,
                                         f"the model uses the {len(score_terms) - 1} log-ratios "
                                             f"ln(p_k / {score_terms[0]}) and an intercept").removeprefix("Scores: "))
        if self.clip_summary():
            s.add_info("Exact 0 and 1", self.clip_summary())
        t = self.tidy(level)
        pct = f"{level:.1%}".replace(".0%", "%")
        coef = pd.DataFrame(
            {"Estimate": t["estimate"].to_numpy(), "Std. Error": t["std_error"].to_numpy(),
             "z value": t["statistic"].to_numpy(), "Pr(>|z|)": t["p_value"].to_numpy(),
             f"{pct} lower": t["conf_low"].to_numpy(), f"{pct} upper": t["conf_high"].to_numpy()},
            index=[f"{c}: {term}" for c, term in zip(t["class"], t["term"])],
        )
        s.add_table("Coefficients", coef, notes=[
            f"log(theta_k / theta_{self.classes[0]}) = B_k . x (first level the baseline, as R's nnet::multinom). "
            f"Intervals: {pct} profile likelihood (likelihood-ratio), maximised over all other coefficients."])
        s.add_table(
            "Goodness of fit",
            pd.DataFrame({"value": [self.loglike, self.null_deviance, self.deviance, self.aic]},
                         index=["Log-likelihood" + (" (smoothed targets)" if self.targets == "platt" else ""),
                   "Null deviance", "Residual deviance", "AIC"]),
            formatters={"value": lambda v: format_number(v, 6)},
            notes=[f"Residual deviance = 2 (sum T log T - log-likelihood of the targets T); AIC = -2 log-likelihood "
                   f"of the labels + 2 x {self.df} coefficients (for 0/1 targets, as R's multinom)."],
        )
        return s

    # ---------------------------------------------------------------- presentation
    def _no_presentation(self, what: str) -> None:
        raise ValueError(
            f"evmultinom's two-class {what} are not implemented; for two classes fit "
            f"ev.evlogit({self.formula!r}, data, targets='binary'), whose Bel and Pl are the same, "
            f"and use its {what}"
        )

    def plot(self, kind: str | None = None, newdata: pd.DataFrame | None = None, *, y: Any = None,
             ax: Any = None, **kwargs: Any) -> Any:
        """The figures of :meth:`evstat.results.Results.plot`: ``kind``, ``newdata``, ``y``,
        ``ax`` and ``kwargs`` as there (default kind: the reliability diagram for K = 2, the
        top-label reliability diagram for K >= 3). K = 2:
        every two-class figure but ``"profile"`` (refused with a message: use evlogit with
        ``targets="binary"``, the same Bel and Pl, whose profiles are per coefficient)."""
        if self.is_binary and isinstance(kind, str) and kind == "profile":
            self._no_presentation("coefficient profile figures")
        return super().plot(kind, newdata, y=y, ax=ax, **kwargs)

    def report(self, *args: Any, **kwargs: Any) -> Any:
        """K >= 3: the K-class HTML report of :meth:`evstat.results.Results.report`; K = 2:
        refused with a message (use evlogit with ``targets="binary"``)."""
        if self.is_binary:
            self._no_presentation("reports")
        return super().report(*args, **kwargs)

    # ---------------------------------------------------------------- persistence
    @dataclass(frozen=True, kw_only=True)
    class State:
        """What a saved evmultinom holds beyond its training rows (evstat.io.state)."""

        #: the coefficients, K - 1 rows (the classes but the baseline) of one per term
        params: list[list[float]] = saved(
            schema.List(schema.List(schema.Float(), min_len=1, max_len=10_000), min_len=1, max_len=61),
            attribute="_lik.B_hat",
        )
        targets: str = saved(schema.Str(choices=list(TARGETS)))
        #: absent in files of older evstat: raw scores
        scores: str = saved(schema.Str(choices=[s for s in SCORES if s != "auto"]), default="raw")
        #: ln eps of the rule for exact 0 and 1; absent in files of older evstat (zeros refused)
        log_eps: float | None = saved(schema.Float(nullable=True), encode=lambda v: None if v is None else float(v),
                                      default=None)

    @classmethod
    def _schema_checks(cls) -> list[Any]:
        def shape(d: Any, root: Any) -> str | None:
            K = len(d["class_frame"]["levels"])
            p = len(_model_terms(list(d["class_frame"]["design"]["terms"]), d.get("scores", "raw")))
            rows = d["params"]
            if len(rows) != K - 1 or any(len(r) != p for r in rows):
                return f"params must be {K - 1} rows (the classes but the baseline) of {p} coefficients (the terms)"
            return None

        return [shape]


def _model_terms(terms: list[str], scores: str) -> list[str]:
    """The model's term names: the formula's, or ``Intercept`` and the log-ratios."""
    if scores == "raw":
        return terms
    cols = [t for t in terms if t != "Intercept"]
    return ["Intercept", *(f"ln({c}/{cols[0]})" for c in cols[1:])]


def evmultinom(
    formula: str, data: pd.DataFrame, targets: str = "platt", missing: str = "raise", scores: str = "auto"
) -> MultinomCalibration:
    """Evidential multinomial (joint) calibration of classifier scores for a K-level response.

    Fits ``theta_k(s) = softmax_k(B x)`` (first level the baseline, as R's ``nnet::multinom``)
    by maximum likelihood and predicts exact lower and upper probabilities of every class (or
    of any set of classes, ``predict(type="belief", events=...)``) from the profile contours of
    the relative likelihood (module docstring).

    Parameters
    ----------
    formula : str
        ``"y ~ s1 + s2 + s3"``; the response any column with two or more levels.
    data : pandas.DataFrame
    targets : {"platt", "binary"}
        ``"platt"`` (default, as evlogit): smoothed targets ``(1{y = k} N_y + 1) / (N_y + K)``,
        Platt's for K = 2, so that the estimate exists however the scores separate the classes;
        ``"binary"``: the labels (R's ``nnet::multinom``; an error when the scores separate the
        classes). Module docstring.
    missing : {"raise", "drop"}
    scores : {"auto", "raw", "probabilities", "log-probabilities"}
        What the score columns are (:mod:`evstat.multiclass.simplex`). ``"auto"`` (default):
        a probability matrix (rows summing to 1, e.g. ``predict_proba``; collinear with the
        intercept as given) or its logs is recognised, and the model uses the K - 1
        log-ratios ``ln(p_k / p_1)`` (first column the reference) with an intercept, whose
        coefficients ``[0 | I]`` reproduce the input probabilities; any other columns
        (logits, decision functions, several classifiers' scores) are used as given
        (``"raw"``). The summary says which.

    Returns
    -------
    MultinomCalibration
        ``decide(newdata)`` uses the pessimistic strategy of Minary et al. (2019) by default (minimal upper
        expected loss; ``fit.default_decision()``).

    Examples
    --------
    >>> import numpy as np, pandas as pd, evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 3, 80)
    >>> d = pd.DataFrame({"y": np.array(["a", "b", "c"])[z], "s1": z + rng.normal(0, 1, 80),
    ...                   "s2": (z == 1) + rng.normal(0, 1, 80)})
    >>> fit = ev.evmultinom("y ~ s1 + s2", d)
    >>> fit.params.shape
    (2, 3)
    >>> b = fit.predict(d.head(2), type="belief")
    >>> bool(((b["bel"] <= b["theta"]) & (b["theta"] <= b["pl"])).all().all())
    True
    """
    if scores not in SCORES:
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    if scores == "raw":
        return MultinomCalibration(class_frame(formula, data, missing=missing), targets=targets)
    try:
        cf = class_frame(formula, data, missing=missing)
    except ValueError as err:  # a probability matrix is collinear with the intercept
        try:
            cf = class_frame(formula, data, missing=missing, rank_checks=False)
        except ValueError as again:  # not a rank error (e.g. -inf logs of exact zeros: the fix named)
            raise _log_zero_hint(again, data) from None
        if scores == "auto" and detect_simplex(_score_part(cf)) is None:
            raise err from None
    cols = [t for t in cf.design.terms if t != "Intercept"]
    form = resolve_scores(scores, _score_part(cf), cols, "evmultinom")
    return MultinomCalibration(cf, targets=targets, scores=form)


def _score_part(cf: ClassFrame) -> NDArray[np.float64]:
    terms = list(cf.design.terms)
    return np.asarray(cf.design.X)[:, [j for j, t in enumerate(terms) if t != "Intercept"]]


register(MultinomCalibration, example=lambda y, d: evmultinom(f"{y} ~ s1 + s2", d), n_classes=(2, 3), fitter=evmultinom)
