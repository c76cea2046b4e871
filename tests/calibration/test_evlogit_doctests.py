"""The runnable examples in the docstrings of evlogit and the results protocol give the output
they show."""

from __future__ import annotations

import pytest

MODULES = [
    "evstat.calibration.logistic",
    "evstat.results",
    "evstat.summary",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
