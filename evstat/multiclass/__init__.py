"""Multi-class (K >= 2) calibrators.

* :func:`evmultinom` - evidential multinomial joint calibration: multinomial logistic regression
  of the K-level response on the scores with exact predictive lower and upper probabilities of
  every class and of any set of classes (issue 16).
"""

from __future__ import annotations

from evstat.multiclass.evmultinom import MultinomCalibration, evmultinom

__all__ = ["MultinomCalibration", "evmultinom"]
