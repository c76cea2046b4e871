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

from typing import TYPE_CHECKING

#: the subpackages and modules reachable as attributes (``ev.metrics``, ``ev.report``, ...)
_SUBMODULES = (
    "active", "belief", "bulk", "calibration", "classifiers", "cli", "comparison", "datasets",
    "deferred", "exceptions", "experiments", "formula", "glm", "io", "lazy", "likelihood",
    "metrics", "multiclass", "plotting", "report", "results", "sklearn", "summary",
)
#: public names defined in a subpackage: ``{name: module it is imported from}``
_ATTRIBUTES = {
    **dict.fromkeys(("Frame", "MassArray", "MassFunction", "combine"), "evstat.belief"),
    **dict.fromkeys(
        ("avcal", "bayescal", "betacal", "disjoint", "evbinning", "evlogit", "isotonic", "normcal",
         "plr", "split_conformal", "venn_abers"),
        "evstat.calibration",
    ),
    "load": "evstat.results",
    "from_arrays": "evstat.results",
    **dict.fromkeys(("credal_knn", "eknn", "evnn", "gbt"), "evstat.classifiers"),
    **dict.fromkeys(
        ("dirichlet", "ecoc", "gebel_dirichlet", "matrix_scaling", "temperature", "vector_scaling",
         "evmultinom"),
        "evstat.multiclass",
    ),
    "compare": "evstat.comparison",
    "calibration_belt": "evstat.plotting",
    **dict.fromkeys(("EvstatError", "EvstatWarning"), "evstat.exceptions"),
    **dict.fromkeys(("config_context", "get_config", "set_config"), "evstat._config"),
    **dict.fromkeys(("anova", "lr_test", "update_formula"), "evstat.glm"),
}


def __getattr__(name: str) -> object:
    """Import a public name on first use (PEP 562): ``import evstat`` itself imports no
    subpackage, so it stays fast (see "Import-time rules" in docs/architecture.md)."""
    import importlib

    if name in _SUBMODULES:
        value: object = importlib.import_module(f"evstat.{name}")
    elif name in _ATTRIBUTES:
        value = getattr(importlib.import_module(_ATTRIBUTES[name]), name)
    else:
        raise AttributeError(f"module 'evstat' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """``dir(evstat)``: the public names and the subpackages, not the helpers of this file."""
    return sorted(set(__all__) | set(_SUBMODULES))


if TYPE_CHECKING:  # the same names, eagerly, for type checkers
    from evstat import active, belief, calibration, classifiers, comparison, datasets  # noqa: F401
    from evstat import formula, glm, likelihood, metrics, multiclass, plotting, report  # noqa: F401
    from evstat.belief import Frame, MassArray, MassFunction, combine  # noqa: F401
    from evstat.calibration import (  # noqa: F401
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
    from evstat.classifiers import credal_knn, eknn, evnn, gbt  # noqa: F401
    from evstat.comparison import compare  # noqa: F401
    from evstat.plotting import calibration_belt  # noqa: F401
    from evstat.glm import anova, lr_test, update_formula  # noqa: F401
    from evstat.multiclass import (  # noqa: F401
        dirichlet,
        ecoc,
        evmultinom,
        gebel_dirichlet,
        matrix_scaling,
        temperature,
        vector_scaling,
    )
    from evstat.results import from_arrays, load  # noqa: F401
    from evstat._config import config_context, get_config, set_config  # noqa: F401
    from evstat.exceptions import EvstatError, EvstatWarning  # noqa: F401

__all__ = [
    "EvstatError",
    "EvstatWarning",
    "Frame",
    "MassArray",
    "MassFunction",
    "__version__",
    "active",
    "anova",
    "avcal",
    "bayescal",
    "belief",
    "betacal",
    "combine",
    "compare",
    "config_context",
    "datasets",
    "disjoint",
    "credal_knn",
    "eknn",
    "evbinning",
    "evnn",
    "evlogit",
    "evmultinom",
    "formula",
    "from_arrays",
    "gbt",
    "get_config",
    "glm",
    "isotonic",
    "likelihood",
    "load",
    "lr_test",
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
    "set_config",
    "split_conformal",
    "update_formula",
    "venn_abers",
]
