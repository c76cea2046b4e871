"""Moved to :mod:`evstat.summary` (shared by every model family); kept as an import path."""

from evstat.summary import Summary, format_number

__all__ = ["Summary", "format_number"]
