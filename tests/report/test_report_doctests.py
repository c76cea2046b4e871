"""The runnable examples in the docstrings of the report's modules give the output they show."""

from __future__ import annotations

import pytest

MODULES = ["evstat.report._cost", "evstat.report._coverage", "evstat.report._figures"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
