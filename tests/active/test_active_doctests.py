"""The runnable examples in the docstrings of evstat.active give the output they show."""

from __future__ import annotations

import pytest

MODULES = ["evstat.active", "evstat.active._query", "evstat.active.loop", "evstat.active._update", "evstat.active.cli",
           "evstat.active._outlook"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
