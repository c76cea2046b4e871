"""Temperature, vector and matrix scaling and Dirichlet calibration (Kull et al. 2019), by ML.

The calibrators users compare against today (Guo et al. 2017; Kull et al. 2019), as formula
models on the K-class results protocol. All four are multinomial logistic models whose class
logits are linear in the parameters, fitted by maximum likelihood (scipy's L-BFGS on the exact
gradient, then Newton steps on the exact Hessian, which also give the standard errors):

======================  ============================================  ==========================
method                  logits of class k                              parameters
======================  ============================================  ==========================
``temperature``         z_k / T                                        T (reported), fitted as 1/T
``vector_scaling``      w_k z_k + b_k  (b of the first class = 0)      w (K), b (K - 1)
``matrix_scaling``      b_k + sum_j W_kj s_j  (first class: 0)         W (K - 1 x B), b (K - 1)
``dirichlet``           b_k + sum_b W_kb ln s_b                        as matrix scaling on ln s;
                                                                       with ODIR: full W, b
======================  ============================================  ==========================

Class scores z. Temperature and vector scaling need one score per class. With one column per
class (matched by name, or by order when no column's name names a class, which the summary
states; or a one-vs-rest code) z_k = s_k: the usual scaling of K logits (K logits summing to 0
in every row, a multinomial model's, are accepted: no parameter of these two needs the columns to
be linearly independent). K - 1 columns are log-ratios ``r_k = ln(p_k / p_1)`` against the first
class (:func:`evstat.multiclass.base.score_design`), and temperature, vector scaling and
dirichlet use the log-probabilities they stand for, ``ln p = (0, r) - logsumexp(0, r)``. With
any other code z = (1/2) Psi s, the linear (loss-based) decoding of the task scores s by the
code matrix Psi (Allwein et al. 2000); for a pairs code z_k = (1/2)(sum of the pair scores for
k - those against k). Matrix scaling uses the score
columns as they are (any number B; it is multinomial logistic regression of the class on the
scores, statsmodels' ``MNLogit`` with the first class as reference, which the tests check).

Dirichlet calibration (Kull et al. 2019) is multinomial logistic regression on ln s, for score
columns that are probabilities (each in (0, 1]; one per class, or per task of a code). Without
regularisation (``reg_lambda=0``) it is fitted with the first class as reference (identifiable;
standard errors given). With ODIR (off-diagonal and intercept regularisation, Kull et al.'s
recommendation and the default) the full K x B matrix W and K intercepts are fitted by minimising

    (1/N) NLL + reg_lambda / n_off * sum_{off-diagonal} W_kb^2 + reg_mu / K * sum_k b_k^2,

Kull et al.'s normalised form (their code: ``reg_norm=True``), where the diagonal entries are
those of a class's own columns (psi_kb = +1; for one column per class the diagonal of W) and
n_off counts the others (K(K - 1) for one column per class). ``reg_mu=None`` means reg_lambda.
The penalty is not a likelihood: no standard errors then.

Choosing the ODIR strength (the default, ``reg_lambda="cv"``). Kull et al. choose lambda and mu
by cross-validation of the log-loss; their reference implementation (dirichletcal) does it with
a stratified 3-fold ``GridSearchCV`` over powers of ten. evstat does the same with its own
seeded stratified folds (no scikit-learn needed): ``reg_lambda`` from :data:`ODIR_GRID`
(1e-1 ... 1e-7, on the normalised penalty above), ``reg_mu = reg_lambda`` unless ``reg_mu`` is
given (a tied one-dimensional grid: 7 x 3 fits instead of 49 x 3; documented choice), the value
of smallest mean held-out log-loss (ties to the stronger penalty), then the fit on all rows. The
table is ``fit.cv_results``. Without the default, the fit on a small calibration set of
probabilities is often separated (coefficients near 100, probabilities of 1e-91).

Scores as users have them (:mod:`evstat.multiclass.simplex`, ``scores=``): a probability matrix
(``predict_proba``) or its logs given to ``temperature``, ``vector_scaling`` or
``matrix_scaling`` is used as ``ln p`` (with a warning: these are defined on logits);
``dirichlet`` takes probabilities, and their logs are recognised. The summary says which.

Separation. When a linear rule separates the classes perfectly the likelihood has no maximum
(coefficients grow without bound); the fit stops where the gradient vanishes numerically and
warns. Use ODIR (``dirichlet``) or fewer parameters (``temperature``) then. ODIR does not
help when the scores already rank every calibration row's class first: the diagonal of W is not
penalised, W = c I separates the rows, and the penalised likelihood has no maximum either. A fit
that stopped on such a flat tail is recognised by the objective still decreasing along its
unpenalised coefficients (doubling them lowers it; convexity forbids that at a minimum):
``converged`` is False and the fit warns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from evstat.exceptions import EvstatWarning
from evstat.likelihood import column_scale
from evstat.io import schema
from evstat.io.state import floats, saved
from evstat.glm import GLM_TYPES, GlmVerbs
from evstat.likelihood.multinomial import (
    MultinomialLikelihood,
    multinomial_loglik,
    predictive_bounds_events,
    softmax,
)
from evstat.likelihood.linear_softmax import LinearSoftmaxLikelihood, softmax_bounds
from evstat.likelihood.linear_softmax import coefficient_conf_int as _softmax_conf_int
from evstat.likelihood.multinomial import coefficient_conf_int as _multinomial_conf_int
from evstat.likelihood.temperature import TemperatureLikelihood, temperature_bounds
from evstat.multiclass._bounds import EvidentialBounds
from evstat.multiclass.base import BASELINE, MulticlassResults, MulticlassState, score_design
from evstat.multiclass.coupling import is_ovr
from evstat.multiclass.simplex import (
    SCORES,
    clip_log_eps,
    clip_note,
    clipped_rows,
    resolve_scores,
    scores_note,
    to_logs,
    warn_probabilities,
)
from evstat.results import Capabilities, register

__all__ = [
    "DirichletCalibration",
    "MatrixScaling",
    "ScalingFitWarning",
    "TemperatureScaling",
    "VectorScaling",
    "dirichlet",
    "matrix_scaling",
    "temperature",
    "vector_scaling",
]


#: the score columns temperature, vector scaling and dirichlet read (Capabilities.accepts): K
#: probabilities (exact 0 and 1 clipped) or their logs, K class scores, K - 1 log-ratios
_LOGIT_INPUTS = ("probabilities", "log-probabilities", "class-scores", "log-ratios")


class ScalingFitWarning(EvstatWarning):
    """The maximum-likelihood fit did not converge (e.g. separable classes)."""


def _onehot(codes: NDArray[np.intp], k: int) -> NDArray[np.float64]:
    Y = np.zeros((codes.shape[0], k))
    Y[np.arange(codes.shape[0]), codes] = 1.0
    return Y


#: largest |logit| of the starting point of :func:`fit_linear_softmax`; a start beyond it is
#: shrunk towards 0 (the objective is convex: the start changes the path, not the optimum)
_START_LOGIT = 50.0


def fit_linear_softmax(
    G: NDArray[np.float64],
    Y: NDArray[np.float64],
    theta0: NDArray[np.float64],
    penalty: NDArray[np.float64] | None = None,
    who: str = "model",
    lbfgs: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    """Minimise NLL(theta) + N theta' diag(penalty) theta for logits_ik = sum_p G_ikp theta_p.

    Returns ``(theta, hessian, converged)``; the objective is convex, so L-BFGS followed by
    Newton steps with step halving reaches its minimum when it exists. ``lbfgs=False``: Newton
    steps only (damped, so still convergent on a convex objective), from ``theta0``: the
    cross-validation of :func:`dirichlet` uses it with warm starts (a few parameters, many fits).

    The optimisation runs on the parameters ``u = d theta`` of the design columns divided by
    powers of two ``d`` (:func:`evstat.likelihood.column_scale`, exact), so that its tolerances
    and the convergence test do not depend on the unit of the scores: scores times 1e100 give
    the coefficients divided by 1e100 and the same probabilities (the gradient in theta grows
    with the scores, and the unscaled test reported non-convergence from scores of about 1e20
    and stopped far from the optimum near 1e100).
    """
    n, k, p = G.shape
    d = column_scale(G.reshape(n * k, p))
    pen = np.zeros(p) if penalty is None else np.asarray(penalty, dtype=np.float64)
    u0 = np.asarray(theta0, dtype=np.float64) * d
    with np.errstate(over="ignore", invalid="ignore"):
        z0 = float(np.max(np.abs((G / d).reshape(n * k, p) @ u0))) if n else 0.0
    if not z0 <= _START_LOGIT:  # a start (e.g. T = 1) whose logits saturate the softmax on scores
        u0 = u0 * (_START_LOGIT / z0) if np.isfinite(z0) else np.zeros(p)  # of 1e5: flat, L-BFGS stalls
    u, H, converged = _fit_linear_softmax(G / d, Y, u0, pen / (d * d), who, d, penalty is not None, lbfgs)
    return u / d, H * np.outer(d, d), converged


def _diverges_along_free(
    f: Any, t: NDArray[np.float64], val: float, pen: NDArray[np.float64], certain: bool
) -> bool:
    """True when the objective still decreases along the ray of the unpenalised coefficients.

    The objective is convex, so at its minimum ``f(t + r) >= f(t)`` for every ``r``; with
    ``r`` the part of ``t`` the penalty leaves free (all of ``t`` without a penalty, the
    diagonal of W for ODIR), a decrease means ``t`` is no minimum: on separable scores the
    optimiser stops on the flat tail of a likelihood that has no maximum (its gradient is tiny
    there, so the gradient test alone reports convergence). When every training row is
    already certain, no increase at all counts (the loss then lives in the last digits of
    ``f``, or has underflowed to 0, which no finite minimum of a softmax likelihood can reach).
    """
    ray = np.where(pen == 0.0, t, 0.0)
    if not np.any(ray):
        return False
    with np.errstate(over="ignore", invalid="ignore"):
        ahead = float(f(t + ray)[0])
    if not np.isfinite(ahead):
        return False
    return ahead < val - 1e-9 * max(1.0, abs(val)) or (certain and ahead <= val)


def _fit_linear_softmax(
    G: NDArray[np.float64],
    Y: NDArray[np.float64],
    theta0: NDArray[np.float64],
    pen: NDArray[np.float64],
    who: str,
    scale: NDArray[np.float64],
    penalised: bool,
    lbfgs: bool = True,
) -> tuple[NDArray[np.float64], NDArray[np.float64], bool]:
    n, k, p = G.shape
    G2 = G.reshape(n * k, p)

    def f(t: NDArray) -> tuple[float, NDArray]:
        z = (G2 @ t).reshape(n, k)
        zmax = z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z - zmax).sum(axis=1)) + zmax[:, 0]
        nll = float(np.sum(lse - np.sum(Y * z, axis=1)))
        P = np.exp(z - lse[:, None])
        g = G2.T @ (P - Y).ravel()
        return nll + n * float(np.sum(pen * t * t)), g + 2.0 * n * pen * t

    def hess(t: NDArray) -> NDArray:
        z = (G2 @ t).reshape(n, k)
        P = softmax(z)
        WG = P[:, :, None] * G - P[:, :, None] * np.einsum("nk,nkp->np", P, G)[:, None, :]
        return G2.T @ WG.reshape(n * k, p) + 2.0 * n * np.diag(pen)

    if lbfgs:
        from scipy import optimize  # where first needed (import-time rules)

        res = optimize.minimize(f, theta0, jac=True, method="L-BFGS-B",
                                options={"maxiter": 5000, "gtol": 1e-10, "ftol": 1e-15})
        t = res.x
    else:
        t = np.asarray(theta0, dtype=np.float64)
    val, g = f(t)
    converged = False
    for _ in range(50 if lbfgs else 200):
        H = hess(t)
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            break
        s = 1.0
        while s > 1e-8:
            new = t - s * step
            nv, ng = f(new)
            if nv <= val + 1e-12 * max(1.0, abs(val)):
                break
            s /= 2.0
        else:
            break
        t, val, g = new, nv, ng
        if np.max(np.abs(g)) < 1e-8 * max(1.0, n):
            converged = True
            break
    if not converged and np.max(np.abs(g)) < 1e-6 * max(1.0, n):
        converged = True
    ptrue = np.sum(softmax((G2 @ t).reshape(n, k)) * Y, axis=1)
    certain = bool(np.all(ptrue > 1.0 - 1e-6))  # every training row certain: separation
    if not penalised and certain:
        converged = False
    if converged and _diverges_along_free(f, t, val, pen, certain):
        converged = False
    if not converged or np.max(np.abs(t)) > 1e6:
        warnings.warn(
            f"{who}: the maximum-likelihood fit did not converge (largest gradient {np.max(np.abs(g * scale)):.3g}, "
            f"largest coefficient {np.max(np.abs(t / scale)):.3g}); the classes may be separable by the scores. "
            + ("The penalty leaves some coefficients free (ODIR does not penalise the diagonal of W, whatever "
               "reg_lambda), and the scores separate the calibration rows along them, so the penalised likelihood "
               "has no maximum and the probabilities run to 0 and 1: more calibration rows, or a model with fewer "
               "free coefficients"
               if penalised else
               "Consider a model with fewer parameters or regularisation (dirichlet with reg_lambda > 0)"),
            ScalingFitWarning,
            stacklevel=4,
        )
        converged = False
    return t, hess(t), converged


class _ScalingBase(EvidentialBounds, MulticlassResults, GlmVerbs):
    """Shared machinery: design tensors, the fit, parameters, persistence, and the predictive
    lower and upper probabilities from the profile likelihood (:class:`EvidentialBounds`; each
    family's ``_contour_bounds``)."""

    #: lower and upper probabilities, not masses, for K >= 3 (type="mass" refused there)
    #: (and so no credal decision, the focal set of largest mass, as evmultinom)
    capabilities: ClassVar[Capabilities] = replace(MulticlassResults.capabilities, k_class_mass=False,
                                                   extra_strategies=())
    decision_rule: ClassVar[str] = (
        "the Bayes rule of the calibrators' papers (Guo et al. 2017, Kull et al. 2019): the class of largest "
        "calibrated probability theta_hat, with reject_cost the reject when 1 - max theta_hat exceeds it; "
        "strategy='pessimistic' (least upper expected loss, 1 - Bel({k}) with 0-1 costs) and the other "
        "loss-based strategies use the predictive lower and upper probabilities of the likelihood contour"
    )

    title: ClassVar[str] = "Multi-class scaling calibration"
    uses_code: ClassVar[bool] = True
    #: False for the models whose parameters are identifiable with collinear score columns
    #: (one parameter per class's own logit: K logits summing to 0 in every row are accepted)
    rank_checks: ClassVar[bool] = True

    reg_lambda: float = 0.0
    reg_mu: float = 0.0
    #: what the score columns are: "raw" (logits or scores, used as given), "probabilities" or
    #: "log-probabilities" (:mod:`evstat.multiclass.simplex`; the logs are used)
    scores: str = "raw"
    #: ln eps of the rule for exact 0 and 1 (:func:`evstat.multiclass.simplex.clip_rule`), fixed
    #: at the fit for probability scores; None for raw scores (and fits of older evstat)
    log_eps: float | None = None
    #: True for the calibrators defined on logits: probabilities found by scores="auto" warn
    warns_on_probabilities: ClassVar[bool] = True
    #: what the model makes of probabilities, for the summary
    uses_of_probabilities: ClassVar[str] = "fitted on their logs z_k = ln p_k (logits up to a constant per row)"

    def _check_inputs(self) -> None:
        """Refuse inputs the scaling cannot use (each subclass; run before the fit)."""
        raise NotImplementedError

    # ---- design
    def _task_matrix(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """The column of every task (class), in task order; the baseline of K - 1 log-ratios
        (position :data:`~evstat.multiclass.base.BASELINE`) is a column of zeros, its logit."""
        order = np.asarray(self.order, dtype=np.intp)
        if not (order == BASELINE).any():
            return X[:, order]
        S = np.zeros((X.shape[0], order.shape[0]))
        given = order != BASELINE
        S[:, given] = X[:, order[given]]
        return S

    def _logits(self, S: NDArray[np.float64], where: str) -> NDArray[np.float64]:
        """The task columns as the model uses them: as given, ``ln p`` of probabilities, or the
        log-probabilities ``ln p_k = r_k - logsumexp(r)`` that K - 1 log-ratios (and the
        baseline's 0) stand for."""
        if self.scores == "raw":
            return S
        if self.scores == "log-ratios":
            from scipy.special import logsumexp

            return S - logsumexp(S, axis=1, keepdims=True)
        return to_logs(S, self.scores, self.task_columns, self.method, where, log_eps=self.log_eps)

    def clip_summary(self) -> str:
        """The sentence on the rule for exact 0 and 1 ("" for raw scores): how many calibration
        rows were clipped, at which eps (:func:`evstat.multiclass.simplex.clip_note`)."""
        if self.scores == "raw" or self.log_eps is None:
            return ""
        X = self._task_matrix(np.asarray(self._X))
        return clip_note(int(clipped_rows(X, self.scores, self.log_eps).sum()), X.shape[0], self.log_eps, self.scores)

    def _features(self, X: NDArray[np.float64], where: str = "new data") -> NDArray[np.float64]:
        S = self._logits(self._task_matrix(X), where)
        psi = self.code.to_numpy(dtype=np.int64)
        if is_ovr(psi):  # one column per class: z_k = s_k
            return S[:, np.argmax(psi == 1, axis=1)]
        return 0.5 * S @ psi.T.astype(np.float64)

    def _G(self, F: NDArray[np.float64]) -> NDArray[np.float64]:
        raise NotImplementedError

    def _names(self) -> list[str]:
        raise NotImplementedError

    def _theta0(self) -> NDArray[np.float64]:
        return np.zeros(len(self._names()))

    def _penalty(self) -> NDArray[np.float64] | None:
        return None

    def _fit(self) -> None:
        self.order = np.asarray(self.order, dtype=np.intp)
        F = self._features(np.asarray(self._X), "calibration data")
        Y = _onehot(self.training_codes(), self.n_classes)
        theta, H, conv = fit_linear_softmax(self._G(F), Y, self._theta0(), self._penalty(), who=self.method)
        self.coef = theta
        self.converged = bool(conv)
        self.cov: NDArray[np.float64] | None = None
        if self._penalty() is None:
            try:
                cov = np.asarray(np.linalg.inv(H), dtype=np.float64)
                self.cov = cov if np.all(np.isfinite(cov)) and np.all(np.diag(cov) >= 0) else None
            except np.linalg.LinAlgError:
                self.cov = None
        if self.converged:
            _, flat = self._glm_check()
            if flat:  # issue 38: a "converged" fit whose information is singular used to say nothing
                warnings.warn(
                    f"{self.method}: the likelihood is flat along {flat} direction{'s' if flat > 1 else ''} of the "
                    "coefficients at the fit (the scores separate some calibration rows, or the information is "
                    "singular): coefficients along them are not identified, so their standard errors, profile "
                    "intervals and the predictive bounds are not meaningful; use a model with fewer free "
                    "parameters (temperature), a penalty (dirichlet with reg_lambda > 0), or more calibration rows",
                    ScalingFitWarning,
                    stacklevel=4,
                )

    def _probs_block(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        G = self._G(self._features(X))
        return softmax(np.einsum("nkp,p->nk", G, self.coef))

    # ---- predictive lower and upper probabilities (evstat.multiclass._bounds)
    def _theta_hat(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.probs(X)

    #: ``evidential=`` of the fitter: True, False, or None for the family's default
    #: (:meth:`_evidential_default`)
    evidential: bool | None = None

    def _evidential_default(self) -> bool:
        """Whether the family's belief predictions use the contour by default: yes where the
        engine is fast (temperature: one dimension; matrix scaling and unpenalised Dirichlet
        calibration: evmultinom's compiled engine); vector scaling and ODIR Dirichlet
        calibration (the general engine, tens to hundreds of milliseconds per row and class in
        this release) on request, ``evidential=True``."""
        return True

    def _has_bounds(self) -> bool:
        return self._evidential_default() if self.evidential is None else bool(self.evidential)

    def _sync_capabilities(self) -> None:
        """This fit's declaration: the class's, with ``k_class_mass`` as its belief predictions
        are (masses of theta_hat without the contour, lower and upper probabilities with it),
        set on the instance after the fit and after a load."""
        caps = type(self).capabilities
        bounds = self._has_bounds()
        self.__dict__["capabilities"] = replace(caps, k_class_mass=not bounds,
                                                extra_strategies=() if bounds else MulticlassResults.capabilities.extra_strategies)

    def _events_bounds(self, X: NDArray[np.float64], ws: list[NDArray[np.float64]]) -> list[Any]:
        """theta_hat, lower and upper of each weight vector: the family's contour engine
        (``_contour_bounds``) on the rows' features; refused for a fit without a maximum."""
        if not self.converged:
            raise ValueError(
                f"{self.method}: the maximum-likelihood fit did not converge (the scores separate the calibration "
                "rows, or the penalised likelihood has no maximum), so the likelihood has no contour and the "
                "predictive lower and upper probabilities (type='belief', events=, the pessimistic and optimistic "
                "strategies) are not defined; type='prob' and strategy='probabilistic' remain. Use a model with "
                "fewer free parameters (temperature), evmultinom (smoothed targets), or more calibration rows"
            )
        th = self._theta_hat(X)
        out = []
        for (_, lo, up), w in zip(self._contour_bounds(X, ws), ws):
            h = th @ w  # the engines' theta_hat agrees with the fit's to rounding: bounds kept around it
            out.append((h, np.minimum(lo, h), np.maximum(up, h)))
        return out

    def _design_rows(self, X: NDArray[np.float64], where: str = "new data") -> NDArray[np.float64]:
        """The multinomial design ``[1, features]`` of score rows (evmultinom's layout: the
        coefficients are B (K - 1, 1 + columns) flattened row by row)."""
        F = self._features(X, where)
        return np.ascontiguousarray(np.hstack([np.ones((F.shape[0], 1)), F]))

    def _multinomial_contour(self) -> MultinomialLikelihood:
        if self.cov is None:
            raise ValueError(f"{self.method}: the observed information is singular at the estimate, so the "
                             "likelihood contour is not defined (collinear score columns?)")
        Xa = self._design_rows(np.asarray(self._X), "calibration data")
        K = self.n_classes
        B = np.asarray(self.coef, dtype=np.float64).reshape(K - 1, Xa.shape[1])
        codes = np.asarray(self.training_codes(), dtype=np.intp)
        T = _onehot(codes, K)
        ll = float(multinomial_loglik(B, Xa, codes, K, T))
        return MultinomialLikelihood(X=Xa, codes=codes, K=K, B_hat=B, loglik_hat=ll, cov=np.asarray(self.cov), T=T)

    def _multinomial_layout(self) -> bool:
        """True for a multinomial logistic regression on the score columns (matrix scaling,
        Dirichlet calibration without penalty: on their logs), whose contour is evmultinom's
        engine with the one-hot labels as targets; False for the general engine."""
        return False

    def _contour_bounds(self, X: NDArray[np.float64], ws: list[NDArray[np.float64]]) -> list[Any]:
        """evmultinom's engine (:func:`evstat.likelihood.multinomial.predictive_bounds_events`)
        for the multinomial layout; otherwise the general engine of softmax likelihoods linear in
        their parameters (:mod:`evstat.likelihood.linear_softmax`: the profile of each event,
        Newton on the KKT system, several branches where the constraint set is not convex; with
        ODIR the contour is the penalised likelihood, ``pl = exp(lp - lp_hat)``, lp the
        log-likelihood minus n times the penalty, at the penalised optimum: the full K x (B + 1)
        coefficients are identified only through the penalty)."""
        if self._multinomial_layout():
            return predictive_bounds_events(self._contour(), self._design_rows(X), ws)
        return softmax_bounds(self._contour(), self._G(self._features(X)), ws)

    def _intercepts(self) -> tuple[int, ...]:
        """The parameter index of every class's intercept (-1: the reference class)."""
        raise NotImplementedError

    def _make_contour(self) -> Any:
        if self._multinomial_layout():
            return self._multinomial_contour()
        F = self._features(np.asarray(self._X), "calibration data")
        return LinearSoftmaxLikelihood(self._G(F), _onehot(self.training_codes(), self.n_classes),
                                       np.asarray(self.coef, dtype=np.float64), self._intercepts(), self._penalty())

    def _contour(self) -> Any:
        """The family's likelihood engine on the calibration rows, built once (not saved)."""
        eng = self.__dict__.get("_engine")
        if eng is None:
            eng = self._make_contour()
            self.__dict__["_engine"] = eng
        return eng

    # ---- glm verbs (evstat.glm)
    def _predict(
        self, X: NDArray[np.float64], index: pd.Index, type: str, se_fit: bool = False,
        events: Any = None, **options: Any,
    ) -> Any:
        """Predict for new score rows (the training rows when ``newdata`` is None).

        ``type="prob"``: theta_hat, a column per class. ``type="belief"``: the predictive lower
        and upper probabilities of every class from the relative likelihood of the parameters
        (two-level columns ``(stat, class)``, ``stat`` in theta, bel, pl; K = 2: [theta, bel,
        pl] of the second class), ``Bel <= theta_hat <= Pl``; with ``events=`` (sets of classes)
        those of the events, columns ``(stat, "{a, b}")``. ``type="mass"``: K = 2 only (for
        K >= 3 the lower probability is coherent but not in general a belief function).
        ``"link"`` (the logits relative to the
        first class, ``log(p_k / p_0)``) and ``"response"`` (the probabilities) as R's
        ``predict.glm``, with ``se_fit=True`` their standard errors from the inverse observed
        information (the delta method; :mod:`evstat.glm`).

        Examples
        --------
        >>> import numpy as np, pandas as pd, evstat as ev
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 3, 200)
        >>> d = pd.DataFrame({f"s_{c}": 2 * (y == c) + rng.normal(0, 1, 200) for c in range(3)}).assign(y=y)
        >>> fit = ev.temperature("y ~ s_0 + s_1 + s_2", d)
        >>> link = fit.predict(d.head(2), type="link", se_fit=True)
        >>> link.columns.tolist()  # log(p_k / p_0) for the classes but the first, and their errors
        [('fit', 1), ('fit', 2), ('se_fit', 1), ('se_fit', 2)]
        """
        if type in GLM_TYPES or se_fit:
            if events is not None:
                raise ValueError("events= goes with type='belief', not with the link or response predictions")
            return self._predict_glm(X, index, type, se_fit)
        out = None if options else self._predict_theta_events(X, index, type, events)
        return super()._predict(X, index, type, **options) if out is None else out

    def _glm_design(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        return self._G(self._features(X))

    def _glm_coef(self) -> NDArray[np.float64]:
        return np.asarray(self.coef, dtype=np.float64)

    def _glm_cov(self) -> NDArray[np.float64] | None:
        return self.cov

    def _glm_targets(self) -> NDArray[np.float64]:
        return _onehot(self.training_codes(), self.n_classes)

    def _glm_term_names(self) -> list[str]:
        return self._names()

    def _glm_formula(self) -> str:
        f = self.formula  # score_design appended " - 1" (the calibrators add their own intercepts)
        return f[: -len(" - 1")] if f.endswith(" - 1") else f

    def _glm_settings(self) -> dict[str, Any]:
        return {**({"code": self.code} if self.uses_code else {}), "scores": self.scores, "evidential": self.evidential}

    def _glm_refit(self, formula: str, data: pd.DataFrame, **settings: Any) -> Any:
        return _FITTERS[self.method](formula, data, **settings)

    # ---- parameters
    @property
    def params(self) -> pd.Series:
        """The fitted parameters (statsmodels' name), indexed by term."""
        return pd.Series(self.coef, index=self._names(), name="estimate")

    @property
    def bse(self) -> pd.Series:
        """Standard errors from the inverse observed information (NaN with a penalty)."""
        se = np.sqrt(np.diag(self.cov)) if self.cov is not None else np.full(len(self.coef), np.nan)
        return pd.Series(se, index=self._names(), name="std_error")

    def _param_frame(self) -> pd.DataFrame:
        """term, estimate, std_error and the 95% profile-likelihood interval (conf_low,
        conf_high; of the penalised likelihood with ODIR) of every parameter."""
        ci = self._profile_ci(0.95)
        return pd.DataFrame({"term": self._names(), "estimate": self.coef, "std_error": self.bse.to_numpy(),
                             "conf_low": ci[:, 0], "conf_high": ci[:, 1]})

    def _n_params(self) -> int:
        return len(self._names())

    def _profile_ci(self, level: float) -> NDArray[np.float64]:
        """Profile-likelihood intervals (p, 2) of the parameters (NaN when the fit has no maximum)."""
        key = f"_profile_ci_{float(level)!r}"  # remembered on the fit (not saved)
        if key in self.__dict__:
            return self.__dict__[key]
        p = len(self._names())
        out = np.full((p, 2), np.nan)
        if self.converged:
            try:
                eng = self._contour()
                for j in range(p):
                    out[j] = self._coef_ci(eng, j, level)
            except (ValueError, np.linalg.LinAlgError):  # no contour (singular information): NaN
                out[:] = np.nan
        self.__dict__[key] = out
        return out

    def _coef_ci(self, eng: Any, j: int, level: float) -> tuple[float, float]:
        return (_multinomial_conf_int if self._multinomial_layout() else _softmax_conf_int)(eng, j, level)

    def conf_int(self, level: float = 0.95, method: str = "profile") -> pd.DataFrame:
        """Confidence intervals of the parameters (``params``' index), DataFrame [lower, upper]:
        ``method="profile"`` (default) the likelihood-ratio intervals (R's ``confint`` of a glm;
        of the penalised likelihood with ODIR), ``"wald"`` estimate -+ z se (NaN without
        standard errors).

        Examples
        --------
        >>> import numpy as np, pandas as pd, evstat as ev
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 3, 200)
        >>> d = pd.DataFrame({f"s_{c}": 2 * (y == c) + rng.normal(0, 1, 200) for c in range(3)}).assign(y=y)
        >>> ci = ev.temperature("y ~ s_0 + s_1 + s_2", d).conf_int()
        >>> bool(ci["lower"].iloc[0] < ci["upper"].iloc[0])
        True
        """
        from scipy.stats import norm  # where first needed (import-time rules)

        if method not in ("profile", "wald"):
            raise ValueError(f"method must be 'profile' or 'wald', got {method!r}")
        level = float(level)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
        if method == "wald":
            z = float(norm.ppf(0.5 + level / 2.0))
            est, se = np.asarray(self.coef, dtype=float), self.bse.to_numpy()
            arr = np.column_stack([est - z * se, est + z * se])
        else:
            arr = self._profile_ci(level)
        return pd.DataFrame(arr, index=self._names(), columns=["lower", "upper"])

    def summary(self) -> Any:
        """As :meth:`MulticlassResults.summary`, with a note on what the score columns are
        (logits or scores as given, probabilities or their logs) and what the model used."""
        s = super().summary()
        if self.scores in ("probabilities", "log-probabilities"):
            s.add_note(scores_note(self.scores, self.task_columns, self.uses_of_probabilities))
        clip = self.clip_summary()
        if clip:
            s.add_info("Exact 0 and 1", clip)
        if self.scores == "log-ratios":
            base = self.classes[int(np.flatnonzero(np.asarray(self.order) == BASELINE)[0])]
            s.add_note(f"Scores: the {len(self.order) - 1} columns {[c for c in self.task_columns if c != '(baseline: logit 0)']} "
                       f"are log-ratios ln(p_k / p_{base}) against the baseline class {base!r} (its logit 0); "
                       "the model uses the log-probabilities they stand for, ln p_k = r_k - logsumexp(0, r).")
        if self.by_order:
            pairs = ", ".join(f"{c} -> {lev!r}" for c, lev in zip(self.task_columns, self.classes)
                              if c != "(baseline: logit 0)")
            s.add_note(f"Columns matched to classes by order (their names do not name the classes): {pairs}.")
        return s

    # ---- persistence
    @dataclass(frozen=True, kw_only=True)
    class State(MulticlassState):
        """What a saved scaling calibrator holds beyond its class frame (evstat.io.state)."""

        coef: list[float] = saved(schema.List(schema.Float(), min_len=1, what="coefficients"), decode=floats)
        #: the inverse observed information; null with a penalty
        cov: list[list[float]] | None = saved(schema.Nullable(schema.List(schema.List(schema.Float()), what="rows")),
                                              decode=lambda v: None if v is None else floats(v))
        converged: bool = saved(encode=bool)
        reg_lambda: float = saved(schema.Float(min=0), encode=float)
        reg_mu: float = saved(schema.Float(min=0), encode=float)
        #: whether belief predictions use the likelihood contour (the fitter's choice, resolved);
        #: absent in files of older evstat, which predicted Bel = Pl = theta_hat: False, so that
        #: an old file predicts what it did
        evidential: bool = saved(schema.Bool(), encode=bool, default=False)
        #: what the score columns are; absent in files of older evstat: raw scores
        scores: str = saved(schema.Str(choices=[*(s for s in SCORES if s != "auto"), "log-ratios"]), default="raw")
        #: ln eps of the rule for exact 0 and 1; absent in files of older evstat (zeros refused)
        log_eps: float | None = saved(schema.Float(nullable=True), encode=lambda v: None if v is None else float(v),
                                      default=None)

    def _check_saved(self) -> None:
        if len(self.coef) != len(self._names()):
            raise ValueError(f"the saved {self.method} model has {len(self.coef)} coefficients, expected {len(self._names())}")
        self._sync_capabilities()


def _fit_model(
    cls: type[_ScalingBase], formula: str, data: pd.DataFrame, code: Any, missing: str, scores: str = "auto", **state: Any
) -> Any:
    cf, codef, order = score_design(formula, data, code=code, missing=missing, who=cls.method, match=cls.uses_code,
                                    by_order=cls.uses_code, ratios=cls.uses_code, rank_checks=cls.rank_checks)
    obj = cls.__new__(cls)
    MulticlassResults.__init__(obj, cf, codef, order)
    for key, value in state.items():
        setattr(obj, key, value)
    obj.scores = _score_form(obj, scores)
    if obj.scores != "raw":  # the rule for exact 0 and 1, fixed now (simplex module docstring)
        if obj.scores != "log-ratios":
            obj.log_eps = clip_log_eps(obj._task_matrix(np.asarray(obj.class_frame.X)), obj.scores)
    obj._check_inputs()
    obj._fit()
    obj.evidential = obj._has_bounds()  # the family's default resolved: saved as chosen
    obj._sync_capabilities()
    return obj


def _score_form(obj: _ScalingBase, scores: str) -> str:
    """The representation of the score columns (:func:`evstat.multiclass.simplex.resolve_scores`);
    a probability vector needs one column per class (matrix scaling: all its columns)."""
    ratios = bool((np.asarray(obj.order) == BASELINE).any())
    if scores not in SCORES and not (ratios and scores == "log-ratios"):  # (a refit passes its form)
        raise ValueError(f"scores must be one of {SCORES}, got {scores!r}")
    if ratios:  # K - 1 log-ratios (evstat.multiclass.base.score_design)
        if scores not in ("auto", "raw", "log-ratios"):
            raise ValueError(
                f"{obj.method}: scores={scores!r}, but the {len(obj.order) - 1} score columns are one fewer than the "
                f"{len(obj.order)} classes, so they are read as log-ratios against a baseline class; give one "
                "column per class for probabilities, or scores='auto'"
            )
        return "log-ratios"
    per_class = not obj.uses_code or is_ovr(obj.code.to_numpy(dtype=np.int64))
    if not per_class:
        if scores in ("probabilities", "log-probabilities"):
            raise ValueError(
                f"{obj.method}: scores={scores!r} needs one score column per class (a probability vector), but the "
                f"code has tasks {obj.tasks}; use scores='raw' (or 'auto') with task scores"
            )
        return "raw"
    form = resolve_scores(scores, np.asarray(obj.class_frame.X)[:, obj.order], obj.task_columns, obj.method)
    if form == "probabilities" and scores == "auto" and obj.warns_on_probabilities:
        warn_probabilities(obj.method, obj.task_columns, stacklevel=4)
    return form


class TemperatureScaling(_ScalingBase):
    """Temperature scaling: p = softmax(z / T) (Guo et al. 2017); created by :func:`temperature`."""

    method: ClassVar[str] = "temperature"
    capabilities: ClassVar[Capabilities] = replace(_ScalingBase.capabilities, scores="logits", accepts=_LOGIT_INPUTS)
    title: ClassVar[str] = "Temperature scaling"
    rank_checks: ClassVar[bool] = False

    def _check_inputs(self) -> None:
        pass

    def _G(self, F: NDArray[np.float64]) -> NDArray[np.float64]:
        return F[:, :, None]

    def _names(self) -> list[str]:
        return ["1/T"]

    @property
    def belief_search_size(self) -> int:
        """0: one parameter, whose level sets are intervals shared by all rows (no search per row)."""
        return 0

    def _theta0(self) -> NDArray[np.float64]:
        return np.ones(1)

    def _make_contour(self) -> TemperatureLikelihood:
        F = self._features(np.asarray(self._X), "calibration data")
        return TemperatureLikelihood(F, _onehot(self.training_codes(), self.n_classes), float(self.coef[0]))

    def _contour_bounds(self, X: NDArray[np.float64], ws: list[NDArray[np.float64]]) -> list[Any]:
        """Exact, by the one-dimensional geometry of the level sets (intervals of 1/T shared by
        all rows): :mod:`evstat.likelihood.temperature`."""
        return temperature_bounds(self._contour(), self._features(X), ws)

    @property
    def temperature(self) -> float:
        """The fitted temperature T (1 / the fitted slope)."""
        return float(1.0 / self.coef[0]) if self.coef[0] != 0 else float("inf")

    def _param_frame(self) -> pd.DataFrame:
        """T, its standard error (delta method) and its 95% profile-likelihood interval: the
        image of 1/T's (the level set of the likelihood; intervals are invariant under the
        monotone map 1/T -> T)."""
        a = float(self.coef[0])
        se = float(self.bse.iloc[0])
        lo, hi = self._profile_ci(0.95)[0]
        with np.errstate(divide="ignore"):
            T_lo = 1.0 / hi if hi > 0 else np.nan
            T_hi = 1.0 / lo if lo > 0 else np.inf
        return pd.DataFrame({"term": ["T"], "estimate": [self.temperature],
                             "std_error": [se / a**2 if a != 0 else np.nan],
                             "conf_low": [T_lo if np.isfinite(lo) else np.nan], "conf_high": [T_hi if np.isfinite(lo) else np.nan]})

    def _coef_ci(self, eng: Any, j: int, level: float) -> tuple[float, float]:
        """The level set of 1/T at the likelihood-ratio cut: exact, one dimension."""
        lo, hi = eng.profile_interval(level)
        return lo, hi

    def _summary_notes(self) -> list[str]:
        return ["Class scores z_k = s_k (one column per class; other codes: z = (1/2) Psi s, the linear decoding); "
                "std_error of T by the delta method from that of 1/T."]


class VectorScaling(_ScalingBase):
    """Vector scaling: p = softmax(w * z + b) (Guo et al. 2017); created by :func:`vector_scaling`."""

    method: ClassVar[str] = "vector_scaling"
    #: Bayesian masses of theta_hat by default; lower and upper probabilities with evidential=True
    capabilities: ClassVar[Capabilities] = replace(_ScalingBase.capabilities, scores="logits", accepts=_LOGIT_INPUTS,
                                                   k_class_mass=True,
                                                   extra_strategies=MulticlassResults.capabilities.extra_strategies)
    rank_checks: ClassVar[bool] = False

    def _evidential_default(self) -> bool:
        return False
    title: ClassVar[str] = "Vector scaling"

    def _check_inputs(self) -> None:
        pass

    def _G(self, F: NDArray[np.float64]) -> NDArray[np.float64]:
        n, k = F.shape
        G = np.zeros((n, k, 2 * k - 1))
        idx = np.arange(k)
        G[:, idx, idx] = F
        G[:, idx[1:], k + idx[1:] - 1] = 1.0
        return G

    def _names(self) -> list[str]:
        lev = [str(c) for c in self.classes]
        return [f"w[{c}]" for c in lev] + [f"b[{c}]" for c in lev[1:]]

    def _intercepts(self) -> tuple[int, ...]:
        k = self.n_classes
        return (-1, *range(k, 2 * k - 1))

    def _theta0(self) -> NDArray[np.float64]:
        k = self.n_classes
        return np.r_[np.ones(k), np.zeros(k - 1)]


class MatrixScaling(_ScalingBase):
    """Matrix scaling: multinomial logistic regression of the class on the score columns."""

    method: ClassVar[str] = "matrix_scaling"
    title: ClassVar[str] = "Matrix scaling (multinomial logistic)"
    uses_code: ClassVar[bool] = False
    uses_of_probabilities: ClassVar[str] = ("fitted on ln p_k: matrix scaling on log-probabilities is "
                                            "unregularised Dirichlet calibration (Kull et al. 2019)")

    def _check_inputs(self) -> None:
        pass

    def _features(self, X: NDArray[np.float64], where: str = "new data") -> NDArray[np.float64]:
        return self._logits(self._task_matrix(X), where)

    def _G(self, F: NDArray[np.float64]) -> NDArray[np.float64]:
        n, b = F.shape
        k = self.n_classes
        Xa = np.hstack([np.ones((n, 1)), F])
        G = np.zeros((n, k, (k - 1) * (b + 1)))
        for j in range(1, k):
            G[:, j, (j - 1) * (b + 1) : j * (b + 1)] = Xa
        return G

    def _columns(self) -> list[str]:
        return self.task_columns

    def _multinomial_layout(self) -> bool:
        return True

    def _names(self) -> list[str]:
        cols = ["Intercept", *self._columns()]
        return [f"{c}[{lev}]" for lev in [str(v) for v in self.classes[1:]] for c in cols]

    def _summary_notes(self) -> list[str]:
        return [f"Reference class {self.classes[0]!r} (logit 0); term[c] is class c's coefficient."]


class DirichletCalibration(MatrixScaling):
    """Dirichlet calibration (Kull et al. 2019): multinomial logistic regression on ln s."""

    method: ClassVar[str] = "dirichlet"
    #: Bayesian masses of theta_hat by default with ODIR (the default), lower and upper
    #: probabilities without penalty or with evidential=True (each fit's own declaration)
    capabilities: ClassVar[Capabilities] = replace(_ScalingBase.capabilities, scores="probabilities",
                                                   accepts=_LOGIT_INPUTS,
                                                   k_class_mass=True,
                                                   extra_strategies=MulticlassResults.capabilities.extra_strategies)

    def _evidential_default(self) -> bool:
        return not self.penalised
    title: ClassVar[str] = "Dirichlet calibration (Kull et al. 2019)"
    uses_code: ClassVar[bool] = True
    warns_on_probabilities: ClassVar[bool] = False
    uses_of_probabilities: ClassVar[str] = "fitted on ln p_k, as Dirichlet calibration always is"

    @property
    def penalised(self) -> bool:
        """True with ODIR regularisation (reg_lambda or reg_mu > 0)."""
        return self.reg_lambda > 0 or self.reg_mu > 0

    def _glm_penalised(self) -> bool:
        return self.penalised

    def _glm_penalty(self) -> NDArray[np.float64] | None:
        return self._penalty()

    def _glm_settings(self) -> dict[str, Any]:
        return {"code": self.code, "reg_lambda": self.reg_lambda, "reg_mu": self.reg_mu, "scores": self.scores,
                "evidential": self.evidential}

    def _check_inputs(self) -> None:
        if self.scores != "raw":  # a probability matrix (or its logs): zeros by the clipping rule
            return
        X = np.asarray(self._X)[:, self.order]
        _check_at_most_one(X, self.task_columns, "score column", "calibration data")
        bad = ~(X > 0)
        if bad.any():
            j = int(np.flatnonzero(bad.any(axis=0))[0])
            raise ValueError(
                f"dirichlet calibrates probabilities: score column {self.task_columns[j]!r} has values <= 0 in "
                f"{int(bad[:, j].sum())} of {X.shape[0]} rows, so ln s is undefined. Give probabilities in (0, 1] "
                "(e.g. expit(score) or the classifier's probabilities), or use matrix_scaling for raw scores"
            )

    def _features(self, X: NDArray[np.float64], where: str = "new data") -> NDArray[np.float64]:
        S = self._task_matrix(X)
        if self.scores != "raw":
            return self._logits(S, where)
        _check_at_most_one(S, self.task_columns, "score column", "new data")
        if (S <= 0).any():
            raise ValueError(
                f"dirichlet calibrates probabilities: new data have score values <= 0 in "
                f"{int((S <= 0).any(axis=1).sum())} rows (columns {self.task_columns}); ln s is undefined"
            )
        return np.log(S)

    def _columns(self) -> list[str]:
        if self.scores == "log-ratios":
            return [f"ln(p_{lev})" for lev in self.classes]
        return [f"ln({c})" for c in self.task_columns]

    def _G(self, F: NDArray[np.float64]) -> NDArray[np.float64]:
        if not self.penalised:
            return super()._G(F)
        n, b = F.shape
        k = self.n_classes
        Xa = np.hstack([np.ones((n, 1)), F])
        G = np.zeros((n, k, k * (b + 1)))
        for j in range(k):
            G[:, j, j * (b + 1) : (j + 1) * (b + 1)] = Xa
        return G

    def _multinomial_layout(self) -> bool:
        """Without penalty: matrix scaling on ln s (evmultinom's engine). With ODIR: the full
        K x (B + 1) matrix, the general engine with the penalised likelihood as the contour."""
        return not self.penalised

    def _intercepts(self) -> tuple[int, ...]:
        b = len(self.task_columns) + 1
        return tuple(j * b for j in range(self.n_classes))

    def _names(self) -> list[str]:
        if not self.penalised:
            return super()._names()
        cols = ["Intercept", *self._columns()]
        return [f"{c}[{lev}]" for lev in [str(v) for v in self.classes] for c in cols]

    def _penalty(self) -> NDArray[np.float64] | None:
        if not self.penalised:
            return None
        return self._odir_penalty(self.reg_lambda, self.reg_mu)

    def _odir_penalty(self, lam: float, mu: float) -> NDArray[np.float64]:
        psi = self.code.to_numpy()
        k, b = psi.shape
        off = psi != 1
        n_off = max(int(off.sum()), 1)
        pen = np.zeros((k, b + 1))
        pen[:, 0] = mu / k
        pen[:, 1:] = np.where(off, lam / n_off, 0.0)
        return pen.ravel()

    #: set by :func:`dirichlet` with ``reg_lambda="cv"``: (folds, seed, reg_mu given or None)
    _cv: tuple[int, Any, float | None] | None = None
    #: the cross-validation table of the selection (reg_lambda, reg_mu, mean held-out log-loss)
    cv_results: pd.DataFrame | None = None

    def _fit(self) -> None:
        if self._cv is not None:
            self._select_odir(*self._cv)
        super()._fit()

    def _select_odir(self, folds: int, seed: Any, mu_given: float | None) -> None:
        """Choose reg_lambda (and reg_mu = reg_lambda unless given) from :data:`ODIR_GRID` by
        stratified ``folds``-fold cross-validation of the held-out log-loss (module docstring)."""
        codes = self.training_codes()
        smallest = int(np.bincount(codes, minlength=self.n_classes).min())
        k = min(int(folds), smallest)
        if k < 2:
            raise ValueError(
                f"dirichlet chooses its ODIR regularisation by cross-validation (reg_lambda='cv'), which needs at "
                f"least 2 calibration rows of every class; the smallest class has {smallest}. Pass reg_lambda= a "
                "number (e.g. 1e-3), or reg_lambda=0 for the unregularised fit"
            )
        fold = stratified_folds(codes, k, seed)
        self.reg_lambda = self.reg_mu = 1.0  # the penalised design (full W, K intercepts)
        G = self._G(self._features(np.asarray(self._X), "calibration data"))
        Y = _onehot(codes, self.n_classes)
        start = [self._theta0()] * k  # warm starts: each fold from its fit at the previous strength
        rows = []
        for lam in ODIR_GRID:
            mu = lam if mu_given is None else mu_given
            pen = self._odir_penalty(lam, mu)
            loss = 0.0
            for f in range(k):
                tr, te = fold != f, fold == f
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ScalingFitWarning)
                    theta, _, _ = fit_linear_softmax(G[tr], Y[tr], start[f], pen, who=self.method, lbfgs=False)
                start[f] = theta
                P = softmax(np.einsum("nkp,p->nk", G[te], theta))
                with np.errstate(divide="ignore"):
                    loss -= float(np.sum(np.log(np.sum(P * Y[te], axis=1))))
            rows.append({"reg_lambda": lam, "reg_mu": mu, "log_loss": loss / codes.shape[0]})
        self.cv_results = pd.DataFrame(rows)
        best = int(np.argmin(self.cv_results["log_loss"].to_numpy()))  # ties: the first, the strongest
        self.reg_lambda = float(self.cv_results["reg_lambda"].iloc[best])
        self.reg_mu = float(self.cv_results["reg_mu"].iloc[best])
        self.cv_folds = k

    def _theta0(self) -> NDArray[np.float64]:
        if not self.penalised:
            return super()._theta0()
        psi = self.code.to_numpy()
        k, b = psi.shape
        t = np.zeros((k, b + 1))
        t[:, 1:] = (psi == 1).astype(np.float64)  # the identity map (Kull et al.'s start)
        return t.ravel()

    def _summary_notes(self) -> list[str]:
        if self.penalised:
            how = (f", chosen by {self.cv_folds}-fold cross-validation of the log-loss from {list(ODIR_GRID)}"
                   if self.cv_results is not None else "")
            return [f"ODIR regularisation: reg_lambda = {self.reg_lambda:g} (off-diagonal), reg_mu = "
                    f"{self.reg_mu:g} (intercepts){how}; full W, no reference class, no standard errors."]
        return [*super()._summary_notes(), "Unregularised (reg_lambda = 0): plain maximum likelihood."]


def _flag(evidential: Any) -> bool | None:
    if evidential is None or isinstance(evidential, (bool, np.bool_)):
        return None if evidential is None else bool(evidential)
    raise ValueError(f"evidential must be True, False or None (the model's default), got {evidential!r}")


def temperature(
    formula: str, data: pd.DataFrame, code: Any = None, missing: str = "raise", scores: str = "auto",
    evidential: bool | None = None,
) -> TemperatureScaling:
    """Temperature scaling of K class scores, by maximum likelihood.

    What to pass: the classifier's logits, one column per class (``decision_function`` of a
    one-vs-rest or multinomial model, a network's last layer before the softmax), or their
    log-softmax (``predict_log_proba``). Probabilities (``predict_proba``, rows summing to 1) are
    recognised and replaced by their logs ``ln p`` (logits up to a constant per row), with a
    :class:`~evstat.multiclass.simplex.ProbabilityScoresWarning`: temperature scaling is
    defined on logits (on probabilities taken as logits it fits a meaningless T).

    Parameters
    ----------
    formula : str
        ``"y ~ s_a + s_b + s_c"``: one score column per class (named like the classes, or
        ``<prefix>_<class>``), or one per task of ``code``.
    data : pandas.DataFrame
        Calibration data.
    code : {"ovr", "pairs"} or pandas.DataFrame, optional
        The code matrix linking columns to classes (default: one column per class by name).
    missing : {"raise", "drop"}
    scores : {"auto", "raw", "probabilities", "log-probabilities"}
        What the score columns are (:mod:`evstat.multiclass.simplex`): ``"auto"`` (default)
        detects probability vectors (warns and uses ``ln p``) and their logs; ``"raw"`` uses the
        columns as given; ``"probabilities"`` (no warning) and ``"log-probabilities"`` say what
        they are (an error if they are not). The summary says which.
    evidential : bool, optional
        Whether ``predict(type="belief")``, ``events=``, ``expected_losses`` and the loss-based
        strategies of ``decide`` use the lower and upper probabilities of the likelihood contour
        (:mod:`evstat.multiclass._bounds`; exact, by the one-dimensional geometry of 1/T). Default
        (None): yes for temperature and matrix scaling and unpenalised Dirichlet calibration,
        whose engines are fast; on request (True) for vector scaling and ODIR Dirichlet
        calibration (the general engine: tens to hundreds of milliseconds per row and class in
        this release). False: Bel = Pl = theta_hat (the Bayesian masses of the calibrated
        probabilities, as before this release).

    Returns
    -------
    TemperatureScaling

    Examples
    --------
    >>> import numpy as np, pandas as pd, evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 200)
    >>> d = pd.DataFrame({f"s_{c}": 3 * (y == c) + rng.normal(0, 1, 200) for c in range(3)})
    >>> d["y"] = y
    >>> fit = ev.temperature("y ~ s_0 + s_1 + s_2", d)
    >>> round(fit.temperature, 2)  # the Bayes logits are 3 s_k - 4.5: T = 1/3
    0.33
    >>> fit.predict(d.head(2)).round(3).sum(axis=1).tolist()
    [1.0, 1.0]
    """
    return _fit_model(TemperatureScaling, formula, data, code, missing, scores=scores, evidential=_flag(evidential))


def vector_scaling(
    formula: str, data: pd.DataFrame, code: Any = None, missing: str = "raise", scores: str = "auto",
    evidential: bool | None = None,
) -> VectorScaling:
    """Vector scaling p = softmax(w * z + b) of K class scores, by maximum likelihood.

    Arguments as :func:`temperature`; ``b`` of the first class is 0 (identifiability). What to
    pass: logits, one column per class (as :func:`temperature`; probabilities warn and their
    logs are used). ``evidential=True`` gives the lower and upper probabilities of the
    likelihood contour (the general engine of :mod:`evstat.likelihood.linear_softmax`, tens to
    hundreds of milliseconds per row and class; off by default in this release).

    Examples
    --------
    >>> import numpy as np, pandas as pd, evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 200)
    >>> d = pd.DataFrame({f"s_{c}": 3 * (y == c) + rng.normal(0, 1, 200) for c in range(3)})
    >>> d["y"] = y
    >>> ev.vector_scaling("y ~ s_0 + s_1 + s_2", d).params.index.tolist()
    ['w[0]', 'w[1]', 'w[2]', 'b[1]', 'b[2]']
    """
    return _fit_model(VectorScaling, formula, data, code, missing, scores=scores, evidential=_flag(evidential))


def matrix_scaling(
    formula: str, data: pd.DataFrame, missing: str = "raise", scores: str = "auto", evidential: bool | None = None
) -> MatrixScaling:
    """Matrix scaling: multinomial logistic regression of the class on the score columns (any
    number), first class the reference, by maximum likelihood (as statsmodels' MNLogit).

    What to pass: logits or any real scores (``decision_function``). Probability vectors (rows
    summing to 1, collinear with the intercept) are recognised and replaced by their logs ``ln
    p`` with a :class:`~evstat.multiclass.simplex.ProbabilityScoresWarning` (matrix scaling on
    log-probabilities is unregularised Dirichlet calibration: :func:`dirichlet` is the
    calibrator for probabilities); ``scores=`` as :func:`temperature`.

    Examples
    --------
    >>> import numpy as np, pandas as pd, evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 200)
    >>> d = pd.DataFrame({"s1": y + rng.normal(0, 1, 200), "s2": (y == 1) + rng.normal(0, 1, 200), "y": y})
    >>> ev.matrix_scaling("y ~ s1 + s2", d).params.index.tolist()[:3]
    ['Intercept[1]', 's1[1]', 's2[1]']
    """
    return _fit_model(MatrixScaling, formula, data, None, missing, scores=scores, evidential=_flag(evidential))


#: a probability may exceed 1 by this much (the round-off of a softmax), no more
_PROB_TOL = 1e-9


def _check_at_most_one(S: NDArray[np.float64], columns: Any, what: str, where: str) -> None:
    """dirichlet's scores are probabilities: a value above 1 is refused (never clipped)."""
    over = S > 1.0 + _PROB_TOL
    if over.any():
        j = int(np.flatnonzero(over.any(axis=0))[0])
        raise ValueError(
            f"dirichlet calibrates probabilities: {what} {list(columns)[j]!r} of the {where} has "
            f"values above 1 in {int(over[:, j].sum())} of {S.shape[0]} rows (largest "
            f"{float(S[:, j].max()):.6g}); give probabilities in (0, 1] (e.g. expit(score) or the "
            "classifier's probabilities), or use matrix_scaling for raw scores"
        )


def dirichlet(
    formula: str,
    data: pd.DataFrame,
    code: Any = None,
    reg_lambda: float | str = "cv",
    reg_mu: float | None = None,
    missing: str = "raise",
    scores: str = "auto",
    folds: int = 3,
    seed: Any = 0,
    evidential: bool | None = None,
) -> DirichletCalibration:
    """Dirichlet calibration of class probabilities (Kull et al. 2019), by (penalised) ML.

    What to pass: the classifier's class probabilities, one column per class (a
    ``predict_proba`` matrix, named like the classes or ``<prefix>_<class>``), or their logs
    (``predict_log_proba``; recognised, ``scores=``), or one probability per task of ``code``.
    Values must lie in (0, 1]: a probability of 0 has no logarithm (smooth it).

    By default the fit is regularised as Kull et al. recommend, with ODIR (off-diagonal and
    intercept regularisation; module docstring), its strength chosen by cross-validation as in
    their experiments: ``reg_lambda`` (and ``reg_mu = reg_lambda``, or the ``reg_mu`` given)
    from :data:`ODIR_GRID`, the one of smallest held-out log-loss in stratified ``folds``-fold
    cross-validation (seeded; the table is ``fit.cv_results``). ``reg_lambda=0`` gives the
    plain maximum-likelihood fit (first class the reference, standard errors).

    Parameters
    ----------
    formula, data, code, missing
        As :func:`temperature`.
    reg_lambda : float or "cv", default "cv"
        ODIR penalty on the off-diagonal entries of W; ``"cv"``: chosen by cross-validation;
        0 (with ``reg_mu`` 0 or None): plain maximum likelihood.
    reg_mu : float, optional
        ODIR penalty on the intercepts (default: ``reg_lambda``).
    scores : {"auto", "raw", "probabilities", "log-probabilities"}
        What the score columns are (:mod:`evstat.multiclass.simplex`): ``"auto"`` recognises
        log-probabilities (used as ``ln p``); otherwise the columns are probabilities.
    folds : int, default 3
        Folds of the cross-validation (fewer when a class has fewer rows).
    evidential : bool, optional
        Lower and upper probabilities from the likelihood contour (the penalised likelihood
        with ODIR; docs/mathematics.md): by default for the unpenalised fit (evmultinom's
        engine), on request (True) with ODIR (the general engine, slower); False: Bel = Pl =
        theta_hat.
    seed : int or numpy.random.Generator, default 0
        The folds' random assignment.

    Returns
    -------
    DirichletCalibration

    Examples
    --------
    >>> import numpy as np, pandas as pd, evstat as ev
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 300)
    >>> q = rng.dirichlet(np.ones(3), 300) * 0.5
    >>> q[np.arange(300), y] += 0.5
    >>> d = pd.DataFrame(q, columns=["p_0", "p_1", "p_2"]).assign(y=y)
    >>> fit = ev.dirichlet("y ~ p_0 + p_1 + p_2", d, reg_lambda=1e-3)
    >>> fit.predict(d.head(3)).shape
    (3, 3)
    >>> cv = ev.dirichlet("y ~ p_0 + p_1 + p_2", d)  # the default: ODIR, lambda by 3-fold CV
    >>> cv.reg_lambda in ev.multiclass.scaling.ODIR_GRID, cv.cv_results.shape
    (True, (7, 3))
    >>> ev.dirichlet("y ~ p_0 + p_1 + p_2", d, reg_lambda=0).penalised  # the plain fit
    False
    """
    mu_given = None if reg_mu is None else float(reg_mu)
    if isinstance(reg_lambda, str):
        if reg_lambda != "cv":
            raise ValueError(f"reg_lambda must be a number >= 0 or 'cv' (chosen by cross-validation), got {reg_lambda!r}")
        if mu_given is not None and not (np.isfinite(mu_given) and mu_given >= 0):
            raise ValueError(f"reg_mu must be finite and >= 0, got {reg_mu!r}")
        if not (isinstance(folds, (int, np.integer)) and folds >= 2):
            raise ValueError(f"folds must be an integer >= 2, got {folds!r}")
        return _fit_model(DirichletCalibration, formula, data, code, missing, scores=scores,
                          reg_lambda=1.0, reg_mu=1.0, _cv=(int(folds), seed, mu_given), evidential=_flag(evidential))
    lam = float(reg_lambda)
    mu = lam if mu_given is None else mu_given
    if not (np.isfinite(lam) and lam >= 0 and np.isfinite(mu) and mu >= 0):
        raise ValueError(f"reg_lambda and reg_mu must be finite and >= 0, got {reg_lambda!r}, {reg_mu!r}")
    return _fit_model(DirichletCalibration, formula, data, code, missing, scores=scores, reg_lambda=lam, reg_mu=mu,
                      evidential=_flag(evidential))


#: the ODIR strengths ``dirichlet(reg_lambda="cv")`` chooses from (strongest first)
ODIR_GRID: tuple[float, ...] = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)


def stratified_folds(codes: NDArray[np.intp], k: int, seed: Any) -> NDArray[np.intp]:
    """Fold of every row (0..k-1): each class's rows in a seeded random order dealt to the
    folds in turn, so that each fold holds every class with at least ``k`` rows.

    Examples
    --------
    >>> stratified_folds(np.array([0, 0, 0, 1, 1, 1]), 3, 0).tolist().count(2)
    2
    """
    rng = np.random.default_rng(seed)
    fold = np.empty(codes.shape[0], dtype=np.intp)
    for c in np.unique(codes):
        rows = np.flatnonzero(codes == c)
        fold[rng.permutation(rows)] = np.arange(rows.size) % k
    return fold


#: the fitter of every scaling calibrator (``update`` refits with it)
_FITTERS: dict[str, Any] = {
    "temperature": temperature, "vector_scaling": vector_scaling, "matrix_scaling": matrix_scaling,
    "dirichlet": dirichlet,
}


def contract_code(y: pd.Series) -> pd.DataFrame:
    """The code of the contract examples: columns s1, s2 of the contract data for 2 or 3 classes."""
    lev = sorted(pd.unique(y))
    if len(lev) == 2:  # (neg, pos): s1 positive for pos, s2 its twin
        return pd.DataFrame({"s1": [-1, 1], "s2": [1, -1]}, index=lev)
    # ('hi', 'lo', 'mid'): s1 is high for hi, low for lo; s2 is high for mid
    return pd.DataFrame({"s1": [1, -1, 0], "s2": [-1, -1, 1]}, index=lev)


register(TemperatureScaling, example=lambda y, d: temperature(f"{y} ~ s1 + s2", d, code=contract_code(d[y])), n_classes=(2, 3), fitter=temperature)
register(VectorScaling, example=lambda y, d: vector_scaling(f"{y} ~ s1 + s2", d, code=contract_code(d[y])), n_classes=(2, 3), fitter=vector_scaling)
register(MatrixScaling, example=lambda y, d: matrix_scaling(f"{y} ~ s1 + s2", d), n_classes=(2, 3), fitter=matrix_scaling)
register(DirichletCalibration, example=lambda y, d: dirichlet(f"{y} ~ s1 + s2", d, code=contract_code(d[y])), n_classes=(2, 3), fitter=dirichlet)
