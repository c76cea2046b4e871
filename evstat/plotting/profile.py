"""Coefficient profiles: signed root z or relative profile likelihood against the value."""

from __future__ import annotations

from typing import Any

import pandas as pd

from evstat.plotting._style import finish, mpl_text, new_axes

__all__ = ["coefficient_profile"]


def coefficient_profile(
    results: Any,
    term: str | int | None = None,
    ax: Any = None,
    kind: str = "z",
    level: float = 0.95,
    newdata: pd.DataFrame | None = None,
) -> Any:
    """Profile of one coefficient with its likelihood-ratio interval (R's ``plot(profile(glm))``).

    Draws the signed root ``z(b) = sign(b - beta_hat) sqrt(2 (l_hat - l_p(b)))`` (``kind="z"``)
    or the relative profile likelihood ``pl(b) = exp(-z^2 / 2)`` (``kind="pl"``) against the
    coefficient value, the cut-off of the ``level`` interval (grey) and the interval's ends
    (dashed). Uses the calibrator's ``profile(term)`` (a
    :class:`evstat.likelihood.CoefficientProfile`).

    Parameters
    ----------
    results : CalibrationResults
        A fitted calibrator with coefficients and a ``profile`` method (evlogit).
    term : str or int, optional
        The coefficient (default: the first term that is not the intercept).
    ax : matplotlib Axes, optional
    kind : {"z", "pl"}
    level : float
        Level of the likelihood-ratio interval.
    newdata : None
        Not used: a profile depends on the calibration data only. Passing data is an error.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ValueError
        The calibrator has no coefficient profiles, ``newdata`` was given, or an unknown term.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import evstat as ev
    >>> fit = ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(40, seed=1))
    >>> ev.plotting.coefficient_profile(fit, "x2").get_xlabel()
    'coefficient of x2'
    """
    if not results.capabilities.profiles:
        raise ValueError(
            f"coefficient profiles need a calibrator with coefficients and a profile likelihood; "
            f"{results.method} has none (evlogit has them)"
        )
    if newdata is not None:
        raise ValueError(
            "a coefficient profile depends on the calibration data only: do not pass newdata"
        )
    terms = list(results.params.index)
    if term is None:
        rest = [t for t in terms if t != "Intercept"]
        term = rest[0] if rest else terms[0]
    prof = results.profile(term)
    ax = new_axes(ax, (5.2, 3.8))
    prof.plot(ax=ax, kind=kind, level=level)
    name = mpl_text(prof.term)
    ax.set_xlabel(f"coefficient of {name}")
    lo, hi = prof.conf_int(level)
    ax.set_title(f"Profile of {name}: {level:.0%} interval [{lo:.3g}, {hi:.3g}]", fontsize="medium")
    return finish(ax)
