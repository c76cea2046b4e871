"""evstat: evidential (belief-function) calibration of classifier scores.

Fit a calibration model by maximum likelihood from a formula, treat the normalised likelihood as
a plausibility (contour) function on the parameters, and turn it into a belief function on the
class of every new score vector: Bel({1}) <= theta_hat <= Pl({1}).
"""

from __future__ import annotations

from evstat import datasets

__version__ = "0.1.0"

__all__ = ["__version__", "datasets"]
