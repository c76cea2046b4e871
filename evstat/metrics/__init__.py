"""Scores of probabilistic and evidential predictions of binary calibrators.

Everything takes plain array-likes (lists, numpy arrays, pandas Series), so the output of any
calibrator can be scored:

- ``y``: observed classes, 0/1 or bool;
- ``p``: predicted probabilities P(y = 1) in [0, 1];
- ``bel``, ``pl``: evidential predictions Bel({1}) <= Pl({1}) per row (ignorance pl - bel,
  pignistic probability BetP(1) = (bel + pl)/2);
- decisions: per row 0, 1 or the string "reject".

Modules: ``probabilistic`` (error rate, Brier score and decomposition, log loss), ``reliability``
(ECE, MCE, reliability table, Wilson intervals), ``tests`` (Hosmer-Lemeshow, Spiegelhalter),
``evidential`` (ignorance, decisions with reject, reject curves, interval coverage),
``classdecisions`` (the same for K >= 2 classes from Bel({k}), Pl({k})), ``gebel``
(Gebel's CR, 1 - RMSE, WCR, Cal, Garczarek's AS and Ac), ``credal`` (error, imprecision and outlier rates and the
confusion table of credal decisions: sets of classes), ``belt`` (the calibration belt and test of
Nattino et al. 2014) and ``summary`` (``score_predictions``).
"""

from evstat.metrics.belt import CalibrationBelt, calibration_belt
from evstat.metrics.classdecisions import class_interval_coverage, class_reject_curve, decide_classes
from evstat.metrics.credal import (
    credal_confusion,
    credal_error_rate,
    credal_rates,
    imprecision_rates,
    outlier_rate,
)
from evstat.metrics.evidential import (
    COST_GRID,
    REJECT_SHARE,
    betp_brier,
    choose_reject_cost,
    decide_binary,
    decision_metrics,
    ignorance_summary,
    interval_coverage,
    reject_curve,
    tied_rows,
)
from evstat.metrics.gebel import (
    ability_to_separate,
    cal,
    correctness_rate,
    garczarek_accuracy,
    one_minus_rmse,
    wcr,
)
from evstat.metrics.probabilistic import brier_decomposition, brier_score, error_rate, log_loss
from evstat.metrics.reliability import (
    BootstrapEstimate,
    class_reliability_table,
    classwise_ece,
    ece,
    mce,
    reliability_table,
    top_label_ece,
    wilson_interval,
)
from evstat.metrics.summary import score_class_predictions, score_predictions
from evstat.metrics.gof import (
    HosmerLemeshowResult,
    SpiegelhalterResult,
    hosmer_lemeshow,
    spiegelhalter_z,
)

__all__ = [
    "BootstrapEstimate",
    "CalibrationBelt",
    "calibration_belt",
    "COST_GRID",
    "REJECT_SHARE",
    "choose_reject_cost",
    "ability_to_separate",
    "HosmerLemeshowResult",
    "SpiegelhalterResult",
    "betp_brier",
    "brier_decomposition",
    "brier_score",
    "cal",
    "class_interval_coverage",
    "class_reject_curve",
    "class_reliability_table",
    "classwise_ece",
    "credal_confusion",
    "credal_error_rate",
    "credal_rates",
    "imprecision_rates",
    "outlier_rate",
    "correctness_rate",
    "decide_binary",
    "decide_classes",
    "decision_metrics",
    "ece",
    "error_rate",
    "garczarek_accuracy",
    "hosmer_lemeshow",
    "ignorance_summary",
    "interval_coverage",
    "log_loss",
    "mce",
    "one_minus_rmse",
    "reject_curve",
    "reliability_table",
    "score_class_predictions",
    "score_predictions",
    "spiegelhalter_z",
    "tied_rows",
    "top_label_ece",
    "wcr",
    "wilson_interval",
]
