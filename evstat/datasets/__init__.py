"""Datasets shipped with evstat and simulators from the papers.

The CSV files live in the repository's ``data/`` folder and are installed inside the package
(``evstat/_data``) so that they load from a wheel or a non-editable install.

Examples
--------
>>> import evstat as ev
>>> "sonar" in ev.datasets.names()
True
>>> ev.datasets.list() == ev.datasets.names()
True
>>> ev.datasets.load("iris").shape
(150, 5)
"""

import builtins

from evstat.datasets._load import data_dir, load, names
from evstat.datasets.simulate import simulate_credal_sim2, simulate_credal_test12, simulate_gaussian



def list() -> builtins.list[str]:  # noqa: A001  (the name users guess, as R's data() lists)
    """List the names of the shipped datasets, sorted: the same as :func:`names`.

    Returns
    -------
    list of str
        File names of ``data/*.csv`` without ``.csv``; each one loads with :func:`load`.

    Examples
    --------
    >>> import evstat as ev
    >>> "sonar_scores" in ev.datasets.list()
    True
    >>> ev.datasets.load(ev.datasets.list()[0]).empty
    False
    """
    return names()


__all__ = ["data_dir", "list", "load", "names", "simulate_credal_sim2", "simulate_credal_test12", "simulate_gaussian"]
