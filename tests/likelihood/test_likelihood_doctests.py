"""The runnable examples in the docstrings of evstat.likelihood give the output they show."""

from __future__ import annotations

import pytest

MODULES = [
    "evstat.likelihood.bernoulli",
    "evstat.likelihood.coefficient_profile",
    "evstat.likelihood.contour",
    "evstat.likelihood.logistic",
    "evstat.likelihood.predictive",
    "evstat.likelihood.mlogit",
    "evstat.likelihood.mlogit_limit",
    "evstat.likelihood.mlogit_panels",
    "evstat.likelihood.mlogit_bounds",
    "evstat.likelihood.quadrature",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
