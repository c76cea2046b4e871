"""Datasets shipped with evstat and simulators from the papers.

The CSV files live in the repository's ``data/`` folder and are installed inside the package
(``evstat/_data``) so that they load from a wheel or a non-editable install.

Examples
--------
>>> import evstat as ev
>>> "sonar" in ev.datasets.names()
True
>>> ev.datasets.load("iris").shape
(150, 5)
"""

from __future__ import annotations

from evstat.datasets._load import data_dir, load, names
from evstat.datasets.simulate import simulate_credal_sim2, simulate_credal_test12, simulate_gaussian

__all__ = ["data_dir", "load", "names", "simulate_credal_sim2", "simulate_credal_test12", "simulate_gaussian"]
