"""The runnable examples in the docstrings of evstat.classifiers give the output they show."""

from __future__ import annotations

import pytest

MODULES = [
    "evstat.classifiers",
    "evstat.classifiers.credal",
    "evstat.classifiers._eknn",
    "evstat.classifiers._evnn",
    "evstat.classifiers._gbt",
    "evstat.classifiers.partial",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
