"""Renamed :mod:`evstat.metrics.gof` (goodness-of-fit tests); kept as an import path."""

from evstat.metrics.gof import *  # noqa: F403
from evstat.metrics.gof import __all__  # noqa: F401
