"""Multi-class calibration: reductions to binary tasks, coupling, Dirichlet and scaling calibrators.

* :func:`code_matrix`, :func:`check_code`, :func:`n_tasks` - code matrices (Gebel 2009, 5.2);
* :func:`couple` - class probabilities from calibrated task probabilities (5.3; Wu, Lin and
  Weng 2004);
* :func:`ecoc` - a binary calibrator per task, coupled (5.3);
* :func:`gebel_dirichlet` - Gebel's Dirichlet calibration (5.4);
* :func:`temperature`, :func:`vector_scaling`, :func:`matrix_scaling`, :func:`dirichlet` - the
  scaling calibrators of Guo et al. (2017) and Kull et al.'s (2019) Dirichlet calibration.

* :func:`evmultinom` - evidential multinomial joint calibration: exact predictive lower and
  upper probabilities of every class and any set of classes (issue 16; its own results class
  :class:`MultinomCalibration`, lower/upper probabilities that are not a mass function for K > 2).

Every other fitted model returns the K-class results protocol (:class:`MulticlassResults`).
"""

from evstat.multiclass.codes import KINDS, check_code, code_matrix, n_tasks
from evstat.multiclass.coupling import COUPLINGS, couple

__all__ = ["COUPLINGS", "KINDS", "check_code", "code_matrix", "couple", "n_tasks"]

from evstat.multiclass.base import MulticlassResults, score_design  # noqa: E402
from evstat.multiclass.scaling import (  # noqa: E402
    DirichletCalibration,
    MatrixScaling,
    ScalingFitWarning,
    TemperatureScaling,
    VectorScaling,
    dirichlet,
    matrix_scaling,
    temperature,
    vector_scaling,
)

__all__ += [
    "DirichletCalibration",
    "MatrixScaling",
    "MulticlassResults",
    "ScalingFitWarning",
    "TemperatureScaling",
    "VectorScaling",
    "dirichlet",
    "matrix_scaling",
    "score_design",
    "temperature",
    "vector_scaling",
]

from evstat.multiclass._ecoc import CALIBRATORS, EcocCalibration, ecoc  # noqa: E402
from evstat.multiclass.gebel import COMBINES, GebelDirichlet, gebel_dirichlet  # noqa: E402

__all__ += ["CALIBRATORS", "COMBINES", "EcocCalibration", "GebelDirichlet", "ecoc", "gebel_dirichlet"]

from evstat.multiclass._evmultinom import MultinomCalibration, evmultinom  # noqa: E402

__all__ += ["MultinomCalibration", "evmultinom"]
