"""Calibrators, one module each, sharing one results protocol (:mod:`.base`)."""

from __future__ import annotations

from evstat.calibration.avcal import AssignmentValueCalibration, avcal
from evstat.calibration.base import CalibrationResults
from evstat.calibration.bayescal import BayesCalibration, bayescal
from evstat.calibration.beta import BetaCalibration, betacal
from evstat.calibration.binning import BinningCalibration, evbinning
from evstat.calibration.disjoint import DisjointCalibration, disjoint
from evstat.calibration.isotonic import IsotonicCalibration, isotonic
from evstat.calibration.logistic import LogitCalibration, evlogit
from evstat.calibration.normcal import NormalisedCalibration, normcal
from evstat.calibration.plr import PiecewiseLogisticCalibration, plr
from evstat.calibration.point import PointCalibration
from evstat.calibration.peers import ConformalSets, VennAbersCalibration, split_conformal, venn_abers
from evstat.results import load
from evstat.summary import Summary

__all__ = [
    "AssignmentValueCalibration",
    "BayesCalibration",
    "NormalisedCalibration",
    "PiecewiseLogisticCalibration",
    "PointCalibration",
    "avcal",
    "bayescal",
    "normcal",
    "plr",
    "BetaCalibration",
    "BinningCalibration",
    "CalibrationResults",
    "ConformalSets",
    "DisjointCalibration",
    "IsotonicCalibration",
    "LogitCalibration",
    "Summary",
    "VennAbersCalibration",
    "betacal",
    "disjoint",
    "evbinning",
    "evlogit",
    "isotonic",
    "load",
    "split_conformal",
    "venn_abers",
]
