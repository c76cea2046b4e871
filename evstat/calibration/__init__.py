"""Calibrators, one module each, sharing one results protocol (:mod:`.base`)."""

from typing import TYPE_CHECKING

from evstat.deferred import exports

if TYPE_CHECKING:  # the public names, imported on first use (evstat.deferred)
    from evstat.calibration._disjoint import (
        ConflictWarning,
        DisjointCalibration,
        cautious_binary,
        dempster_binary,
        disjoint,
    )
    from evstat.calibration._isotonic import IsotonicCalibration, isotonic, pav_blocks
    from evstat.calibration._avcal import AssignmentValueCalibration, avcal
    from evstat.calibration.base import CalibrationResults
    from evstat.calibration._bayescal import BayesCalibration, bayescal
    from evstat.calibration.beta import BetaCalibration, betacal
    from evstat.calibration.binning import BinningCalibration, evbinning
    from evstat.calibration.logistic import LogitCalibration, evlogit
    from evstat.calibration._normcal import NormalisedCalibration, normcal
    from evstat.calibration._plr import PiecewiseLogisticCalibration, plr
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
    "ConflictWarning",
    "ConformalSets",
    "DisjointCalibration",
    "IsotonicCalibration",
    "LogitCalibration",
    "Summary",
    "VennAbersCalibration",
    "betacal",
    "cautious_binary",
    "dempster_binary",
    "disjoint",
    "evbinning",
    "evlogit",
    "isotonic",
    "load",
    "pav_blocks",
    "split_conformal",
    "venn_abers",
]

__getattr__, __dir__ = exports(__name__, __file__)
