"""The runnable examples in the docstrings of evstat.glm give the output they show."""

from __future__ import annotations


def test_docstring_examples(doctests):
    doctests("evstat.glm")
