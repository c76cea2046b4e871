"""Calibrators, one module each, sharing one results protocol (:mod:`.base`)."""

from __future__ import annotations

from evstat.calibration.base import CalibrationResults
from evstat.calibration.logistic import LogitCalibration, evlogit
from evstat.calibration.registry import load
from evstat.calibration.summary import Summary

__all__ = ["CalibrationResults", "LogitCalibration", "Summary", "evlogit", "load"]
