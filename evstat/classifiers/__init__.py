"""Evidential classifiers used as trainable combiners of classifier scores.

The two evidential trainable combiners of Minary et al. (2019, section 5.3), for a response with
two or more classes, with the calibrators' results protocol (:mod:`evstat.classifiers.base`):

* :func:`eknn` - the evidential k-nearest-neighbour rule (Denoeux 1995) with gamma learnt by
  leave-one-out (Zouhal and Denoeux 1998);
* :func:`gbt` - the GBT-based classifier of Denoeux and Smets (2006), eqs. 59-65;
* :func:`credal_knn` - the credal K-NN classifier EC of Liu, Pan and Dezert (2013), with
  meta-classes and an outlier class;
* :func:`evnn` - the evidential neural network of Denoeux (2000), as evclass's proDS functions.

Examples
--------
>>> import evstat as ev
>>> cal = ev.datasets.simulate_gaussian(60, seed=1)
>>> fit = ev.eknn("y ~ x1 + x2", cal, k=5)
>>> fit.predict(cal.head(2), type="belief").columns.tolist()
['theta', 'bel', 'pl']
"""

from evstat.classifiers.base import OUTLIER, ClassifierResults
from evstat.classifiers.credal import CredalKNNClassifier, credal_knn, ec_dbar, ec_masses, ec_support
from evstat.classifiers._eknn import (
    EkNNClassifier,
    EkNNFitWarning,
    GammaFit,
    eknn,
    eknn_loo_cost,
    eknn_masses,
    evclass_initial_gamma,
    fit_gamma,
    initial_gamma,
)
from evstat.classifiers._evnn import EvNNClassifier, evnn, evnn_cost, evnn_init, evnn_masses
from evstat.classifiers._gbt import GBTClassifier, gbt, gbt_masses
from evstat.classifiers.partial import PartialEkNNClassifier

__all__ = [
    "ClassifierResults",
    "CredalKNNClassifier",
    "OUTLIER",
    "credal_knn",
    "ec_dbar",
    "ec_masses",
    "ec_support",
    "EkNNClassifier",
    "EkNNFitWarning",
    "GammaFit",
    "EvNNClassifier",
    "GBTClassifier",
    "PartialEkNNClassifier",
    "eknn",
    "eknn_loo_cost",
    "eknn_masses",
    "evclass_initial_gamma",
    "fit_gamma",
    "evnn",
    "evnn_cost",
    "evnn_init",
    "evnn_masses",
    "gbt",
    "gbt_masses",
    "initial_gamma",
]
