"""evstat: evidential (belief-function) calibration of classifier scores.

Fit a calibration model by maximum likelihood from a formula, treat the normalised likelihood as
a plausibility (contour) function on the parameters, and turn it into a belief function on the
class of every new score vector: Bel({1}) <= theta_hat <= Pl({1}).

Examples
--------
>>> import evstat as ev
>>> cal = ev.datasets.simulate_gaussian(60, seed=1)
>>> fit = ev.evlogit("y ~ x1 + x2", data=cal)
>>> fit.predict(cal.head(2), type="belief").shape
(2, 3)
"""

__version__ = "0.1.0"

from evstat import belief, datasets, formula, likelihood  # noqa: E402
from evstat.belief import Frame, MassArray, MassFunction, combine  # noqa: E402
from evstat.calibration import (  # noqa: E402
    avcal,
    bayescal,
    betacal,
    disjoint,
    evbinning,
    evlogit,
    isotonic,
    normcal,
    plr,
    split_conformal,
    venn_abers,
)
from evstat.results import load  # noqa: E402
from evstat.classifiers import credal_knn, eknn, evnn, gbt  # noqa: E402
from evstat import multiclass  # noqa: E402
from evstat.multiclass import dirichlet, ecoc, gebel_dirichlet, matrix_scaling, temperature, vector_scaling  # noqa: E402
from evstat.multiclass import evmultinom  # noqa: E402
from evstat.comparison import compare  # noqa: E402
from evstat import active  # noqa: E402
from evstat import metrics, plotting  # noqa: E402
from evstat import report  # noqa: E402  (a callable package: ev.report(...) writes a report)

__all__ = [
    "Frame",
    "MassArray",
    "MassFunction",
    "__version__",
    "active",
    "avcal",
    "bayescal",
    "belief",
    "betacal",
    "calibration",
    "classifiers",
    "combine",
    "compare",
    "datasets",
    "disjoint",
    "credal_knn",
    "eknn",
    "evbinning",
    "evnn",
    "evlogit",
    "evmultinom",
    "formula",
    "gbt",
    "isotonic",
    "likelihood",
    "load",
    "metrics",
    "multiclass",
    "dirichlet",
    "ecoc",
    "gebel_dirichlet",
    "matrix_scaling",
    "temperature",
    "vector_scaling",
    "normcal",
    "plr",
    "plotting",
    "report",
    "split_conformal",
    "venn_abers",
]


def __dir__() -> list[str]:
    """``dir(evstat)``: the public names (``__all__``), not the modules imported on the way
    (``evstat.results``, ``evstat.summary``, ... stay importable and documented)."""
    return sorted(__all__)
