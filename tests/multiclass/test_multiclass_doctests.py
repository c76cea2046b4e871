"""The runnable examples in the docstrings of evstat.multiclass give the output they show."""

from __future__ import annotations

import pytest

MODULES = [
    "evstat.multiclass.codes",
    "evstat.multiclass.coupling",
    "evstat.multiclass.scaling",
    "evstat.multiclass.gebel",
    "evstat.multiclass._ecoc",
    "evstat.multiclass._evmultinom",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
