"""The runnable examples in the docstrings of evstat.belief give the output they show."""

from __future__ import annotations

import pytest

MODULES = [
    "evstat.belief",
    "evstat.belief.frame",
    "evstat.belief.transforms",
    "evstat.belief.rules",
    "evstat.belief.mass",
    "evstat.belief.massarray",
    "evstat.belief.combination",
    "evstat.belief.decision",
    "evstat.belief.measures",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
