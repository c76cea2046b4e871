"""Moved to :mod:`evstat.results` (one registry for every model family); kept as an import path."""

from evstat.results import from_dict, load, register, schema_of

__all__ = ["from_dict", "load", "register", "schema_of"]
