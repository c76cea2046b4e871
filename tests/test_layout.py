"""The package layout: public names do not shadow modules, and what one top-level package of
evstat uses of another is public there (no ``from evstat.X._private import``, no ``._name``
attribute of another package's objects)."""

from __future__ import annotations

import importlib
import pkgutil
import types

import evstat


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(evstat.__path__, "evstat."))


def test_no_public_name_shadows_a_module():
    """``import evstat.P.M`` must give the module M, not a function of the same name (the
    scikit-learn layout: a function ``f`` lives in a private module ``_f.py``)."""
    shadowed = []
    for name in _modules():
        parent, _, leaf = name.rpartition(".")
        importlib.import_module(name)
        attr = getattr(importlib.import_module(parent), leaf, None)
        if attr is not None and not isinstance(attr, types.ModuleType):
            shadowed.append(f"{name} is {type(attr).__name__} {getattr(attr, '__qualname__', attr)!r}")
    assert shadowed == []


def test_report_is_a_callable_package():
    import evstat.report as report_package

    assert isinstance(evstat.report, types.ModuleType) and evstat.report is report_package
    assert callable(evstat.report) and report_package.report.__module__ == "evstat.report._report"
    assert evstat.calibration.disjoint.__module__ == "evstat.calibration._disjoint"
