"""Likelihood machinery shared by the calibrators.

* :mod:`~evstat.likelihood.logistic` — the binomial log-likelihood with fractional targets.
* :mod:`~evstat.likelihood.linear_profile` — profile log-likelihood of ``a . beta`` (fast
  vectorised constrained Newton, and the statsmodels offset-refit reference).
* :mod:`~evstat.likelihood.coefficient_profile` — R-style coefficient profiles and exact
  likelihood-ratio intervals.
* :mod:`~evstat.likelihood.predictive` — predictive contours on theta and Bel/Pl of test rows.
* :mod:`~evstat.likelihood.bernoulli` — Bel/Pl from a contour on theta (eqs. 25-26) and the
  binomial closed form.
* :mod:`~evstat.likelihood.contour` — the parameter contour ``pl(beta) = L(beta) / L(beta_hat)``.
* :mod:`~evstat.likelihood.multinomial` — the K-class (multinomial) likelihood, coefficient
  profiles and predictive lower/upper probabilities of sets of classes (evmultinom).
"""

from typing import TYPE_CHECKING

from evstat.deferred import exports

if TYPE_CHECKING:  # the public names, imported on first use (evstat.deferred)
    from evstat.likelihood.bernoulli import bernoulli_belief, binomial_belief, binomial_contour
    from evstat.likelihood.coefficient_profile import CoefficientProfile, profile_conf_int
    from evstat.likelihood.contour import ParameterContour
    from evstat.likelihood.linear_profile import (
        LogisticLikelihood,
        profile_loglik,
        profile_loglik_reference,
    )
    from evstat.likelihood.logistic import column_scale, loglik, newton_mle, platt_targets
    from evstat.likelihood.multinomial import MultinomialLikelihood, multinomial_mle, predictive_bounds
    from evstat.likelihood.predictive import (
        PredictiveContour,
        linear_predictor,
        predictive_belief,
        profile_level_set,
        row_scale,
    )

__all__ = [
    "CoefficientProfile",
    "LogisticLikelihood",
    "MultinomialLikelihood",
    "ParameterContour",
    "PredictiveContour",
    "bernoulli_belief",
    "binomial_belief",
    "binomial_contour",
    "column_scale",
    "linear_predictor",
    "loglik",
    "multinomial_mle",
    "newton_mle",
    "platt_targets",
    "predictive_belief",
    "predictive_bounds",
    "profile_conf_int",
    "profile_level_set",
    "profile_loglik",
    "profile_loglik_reference",
    "row_scale",
]

__getattr__, __dir__ = exports(__name__, __file__)
