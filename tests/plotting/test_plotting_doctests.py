"""The runnable examples in the docstrings of evstat.plotting, evstat.report and evstat.cli."""

from __future__ import annotations

import pytest


MODULES = [
    "evstat.plotting",
    "evstat.plotting.reliability",
    "evstat.plotting._calibration_map",
    "evstat.plotting._decision_regions",
    "evstat.plotting._grid",
    "evstat.plotting._class_regions",
    "evstat.plotting.contours",
    "evstat.plotting.profile",
    "evstat.plotting.reject",
    "evstat.plotting.ignorance",
    "evstat.plotting.active",
    "evstat.report._report",
    "evstat.cli",
]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, doctests):
    doctests(name)
