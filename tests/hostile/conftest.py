"""Fixtures of the hostile suite (the helpers are in hostile_helpers.py)."""

from hostile_helpers import model_files  # noqa: F401 - the fixture, registered here
