"""Import data/make_scores.py (not part of the package) from the checkout for the dataset tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "data" / "make_scores.py"
CHECKOUT_DATA = SCRIPT.parent


def import_script() -> ModuleType:
    """Return data/make_scores.py as a module (imported once, then taken from ``sys.modules``)."""
    assert SCRIPT.is_file(), f"{SCRIPT} not found: run the tests from a source checkout"
    name = "evstat_make_scores"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
