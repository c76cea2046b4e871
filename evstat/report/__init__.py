"""Self-contained HTML reports of fitted calibrators: :func:`report` and :func:`render_report`.

A report is one HTML file rendered from jinja2 templates shipped inside the package (autoescape
on, so column names, labels and formulas containing HTML appear as text). It holds, for every
calibrator, the model summary, the coefficients with profile-likelihood intervals (where the
calibrator has them), calibration metrics and goodness-of-fit tests, decisions with a reject
option, and the figures of :mod:`evstat.plotting` as inline SVG; with several calibrators a
comparison table; and a reproducibility footer. CSS is inline and nothing is fetched from the
network. One inline script (plain JavaScript, :mod:`evstat.report._explorer`) drives a
reject-cost slider from data embedded in the page, whose panels stand in for the static
decision-region and error-reject figures; without JavaScript the slider is hidden and the page
shows the tables and those static figures at the report's cost (each thing drawn once either way). The same input gives byte-identical output, apart from
the date line (fix it with ``date=``).

``evstat.report`` is this package (``import evstat.report`` gives the module, with
:func:`report` and :func:`render_report`), and calling the package calls :func:`report`:
``ev.report(fit, path, ...)`` is ``ev.report.report(fit, path, ...)``: the model first, then the
path, as ``fit.report(path, ...)`` (the old order ``ev.report(path, fit)`` is an error that shows
the new call).
"""

import os
import sys
import types
from typing import Any

from evstat.report._report import TEMPLATES, old_order_error, render_report, report

__all__ = ["TEMPLATES", "render_report", "report"]


class _CallableModule(types.ModuleType):
    """The package ``evstat.report``; calling it calls :func:`evstat.report.report`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], (str, os.PathLike)):  # ev.report(path, fits=fit) too
            raise old_order_error(args[0])
        return report(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
