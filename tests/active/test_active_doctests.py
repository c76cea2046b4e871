"""The runnable examples in the docstrings of evstat.active give the output they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["evstat.active", "evstat.active._query", "evstat.active.loop", "evstat.active._update", "evstat.active.cli",
           "evstat.active.outlook"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0, f"{result.failed} docstring examples failed in {name}"
