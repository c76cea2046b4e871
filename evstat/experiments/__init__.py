"""The papers' experimental protocols: ensembles of SVMs on repeated random partitions.

* :mod:`.partition` - stratified random partitions of the Table 2 sizes (Minary et al. 2019);
* :mod:`.ensemble` - SVM training (scikit-learn, imported lazily) and score tables;
* :mod:`.methods` - the compared calibrations and combiners, and their error rates;
* :mod:`.minary2019` - the whole study of Minary et al. (2019), section 5:
  :func:`run_minary2019` (also ``evstat reproduce minary2019``);
* :mod:`.claims` - the paper's findings tested on the results;
* :mod:`.report` - tables, figures and the HTML report.

scikit-learn and joblib are optional dependencies: ``pip install "evstat[experiments]"``.

Examples
--------
>>> from evstat.experiments import TABLE2
>>> TABLE2["sonar"].train3
(10, 50, 90)
"""

from evstat.experiments.methods import METHODS, available_methods, method_errors, predict_methods
from evstat.experiments.minary2019 import DATASETS, StudyResults, load_results, run_minary2019
from evstat.experiments.partition import TABLE2, EnsembleSizes, ensemble_partitions, reject_partition

__all__ = [
    "DATASETS",
    "EnsembleSizes",
    "METHODS",
    "StudyResults",
    "TABLE2",
    "available_methods",
    "ensemble_partitions",
    "load_results",
    "method_errors",
    "predict_methods",
    "reject_partition",
    "run_minary2019",
]
