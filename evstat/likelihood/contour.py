"""The contour (plausibility) function on the parameters: ``pl(beta) = L(beta) / L(beta_hat)``.

Minary et al. (2019), eqs. 12, 39 and 53.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from evstat.likelihood.linear_profile import LogisticLikelihood, relative_loglik

__all__ = ["ParameterContour"]


class ParameterContour:
    """``pl(beta) = exp(l(beta) - l(beta_hat))`` for arrays of coefficients of shape ``(..., p)``.

    Examples
    --------
    >>> import numpy as np, evstat as ev
    >>> fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(30, seed=2))
    >>> float(fit.likelihood_contour(fit.params.to_numpy()))
    1.0
    >>> fit.likelihood_contour(np.zeros((4, 3, 2))).shape
    (4, 3)
    """

    def __init__(self, lik: LogisticLikelihood) -> None:
        self._lik = lik

    def log(self, beta: ArrayLike) -> NDArray[np.float64]:
        """``log pl(beta) = l(beta) - l(beta_hat)`` (<= 0)."""
        beta = np.asarray(beta, dtype=float)
        if beta.shape[-1:] != (self._lik.p,):
            raise ValueError(
                f"beta must have shape (..., {self._lik.p}) (one value per coefficient), "
                f"got shape {beta.shape}"
            )
        if not np.all(np.isfinite(beta)):  # NaN gave a silent NaN; inf gave NaN from inf - inf
            bad = np.argwhere(~np.isfinite(beta))[0]
            raise ValueError(
                f"beta must be finite; {int(np.sum(~np.isfinite(beta)))} value(s) are NaN or "
                f"infinite (first at position {tuple(int(i) for i in bad)}: {beta[tuple(bad)]})"
            )
        return relative_loglik(self._lik.loglik_hat, self._lik.loglik(beta))

    def __call__(self, beta: ArrayLike) -> NDArray[np.float64]:
        return np.exp(self.log(beta))
