"""Multinomial logistic likelihood, its contour, coefficient profiles and the predictive lower
and upper probabilities of sets of classes (the K-class generalisation of evlogit; issue 16):
the public face of the K-class likelihood engine, one module per idea (issue 38 item 2).

==============================================  ================================================
module                                          idea
==============================================  ================================================
:mod:`evstat.likelihood.mlogit`                 the model, its likelihood and MLE, the functional
                                                ``g`` of a weight vector, the coefficients'
                                                profile likelihoods; the engine's constants
:mod:`evstat.likelihood._mlogit_sweep`          the compiled kernel's parts: the retraction onto
                                                ``g = u``, one pass over the calibration rows,
                                                the tail rule, the reused Hessians' algebra
:mod:`evstat.likelihood._mlogit_kernel`         the compiled Newton kernel (KKT system,
                                                continuation, reused Hessians)
:mod:`evstat.likelihood._mlogit_numpy`          the kernel's numpy path (while numba compiles)
:mod:`evstat.likelihood.mlogit_limit`           far-out rows: the limit r -> inf, class
                                                contours, face starts
:mod:`evstat.likelihood.mlogit_profile`         the profile of ``g`` for batches of problems
                                                (fast path and scipy reference)
:mod:`evstat.likelihood.mlogit_panels`          the quadrature's panels, the monotone envelope,
                                                the continuation and its certificates
:mod:`evstat.likelihood.mlogit_bounds`          the predictive lower and upper probabilities
==============================================  ================================================

The mathematics is in each module's docstring and in docs/mathematics.md; the measurements that
chose the algorithms (passes per node, ms per row) are in benchmarks/README.md. Imports point
down this table: a module uses only those above it.
"""

from __future__ import annotations

from evstat.likelihood.mlogit import (
    CHUNK_CELLS,
    NODE_MAX_ITER,
    NODE_TOL,
    TARGETS,
    U_MAX,
    WIDE_SCALE,
    MultinomialLikelihood,
    _check_weights,
    _g_eta,
    _grad_g,
    coefficient_conf_int,
    coefficient_profile_loglik,
    multinomial_loglik,
    multinomial_mle,
    multinomial_probs,
    multinomial_score_info,
    multinomial_targets,
    softmax,
)
from evstat.likelihood.mlogit_bounds import EVENT_THREAD_WORK, predictive_bounds, predictive_bounds_events
from evstat.likelihood.mlogit_limit import (
    FACE_SCALE,
    PROBLEMS_PER_ROW,
    face_pairs,
    face_starts,
    limit_bounds,
    limit_contour,
    region_contours,
    scaled_probs,
    wide_rows,
)
from evstat.likelihood.mlogit_profile import (
    REUSE_MIN_D,
    _warm_kernels,
    functional_profile,
    functional_profile_reference,
    reuse_hessian,
)

__all__ = [
    "CHUNK_CELLS",
    "EVENT_THREAD_WORK",
    "FACE_SCALE",
    "MultinomialLikelihood",
    "NODE_MAX_ITER",
    "NODE_TOL",
    "PROBLEMS_PER_ROW",
    "REUSE_MIN_D",
    "TARGETS",
    "U_MAX",
    "WIDE_SCALE",
    "coefficient_conf_int",
    "coefficient_profile_loglik",
    "face_pairs",
    "face_starts",
    "functional_profile",
    "functional_profile_reference",
    "limit_bounds",
    "limit_contour",
    "multinomial_loglik",
    "multinomial_mle",
    "multinomial_probs",
    "multinomial_score_info",
    "multinomial_targets",
    "predictive_bounds",
    "predictive_bounds_events",
    "region_contours",
    "reuse_hessian",
    "scaled_probs",
    "softmax",
    "wide_rows",
]
# the private names other modules of the engine's users import (linear_softmax: _g_eta; the
# background compilation: _warm_kernels) are re-exported too, not listed in __all__
_REEXPORTED_PRIVATE = (_check_weights, _g_eta, _grad_g, _warm_kernels)
