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


ROOT = __import__("pathlib").Path(evstat.__file__).resolve().parent


def _sources() -> dict[str, "ast.Module"]:
    import ast

    return {str(f.relative_to(ROOT.parent)): ast.parse(f.read_text(encoding="utf-8")) for f in sorted(ROOT.rglob("*.py"))}


def _package(path: str) -> str:
    """Top-level package of a source file: evstat/calibration/beta.py -> calibration."""
    parts = path.split("/")
    return parts[1].removesuffix(".py") if len(parts) > 2 else parts[-1].removesuffix(".py")


def _module_package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


#: top-level private modules whose public names evstat re-exports (``evstat.set_config`` ...),
#: importable from every layer, as scikit-learn's ``sklearn._config``
SHARED_PRIVATE_MODULES = {"evstat._config"}


def test_no_private_import_across_packages():
    """``from evstat.P._m import x`` and ``from evstat.P.m import _x`` only inside package P
    (except :data:`SHARED_PRIVATE_MODULES`)."""
    import ast

    bad = []
    for path, tree in _sources().items():
        here = _package(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("evstat."):
                if _module_package(node.module) == here or node.module in SHARED_PRIVATE_MODULES:
                    continue
                private_module = any(p.startswith("_") for p in node.module.split(".")[1:])
                private_names = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if private_module or private_names:
                    bad.append(f"{path}:{node.lineno}: from {node.module} import {', '.join(a.name for a in node.names)}")
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if (a.name.startswith("evstat.") and _module_package(a.name) != here
                            and any(p.startswith("_") for p in a.name.split(".")[1:])):
                        bad.append(f"{path}:{node.lineno}: import {a.name}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
                bad.append(f"{path}:{node.lineno}: __import__(...) (import by name hides what is used)")
    assert bad == [], "private names used across packages (make them public there):\n" + "\n".join(bad)


def test_no_private_attribute_across_packages():
    """``obj._name`` (not on self/cls) where ``_name`` is defined only in other top-level
    packages: a private member read from outside (e.g. ``ModelFrame._data`` from active)."""
    import ast
    from collections import defaultdict

    sources = _sources()
    defined: dict[str, set[str]] = defaultdict(set)
    for path, tree in sources.items():
        here = _package(path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined[node.name].add(here)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                defined[node.attr].add(here)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                defined[node.id].add(here)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                defined[node.target.id].add(here)
    bad = []
    for path, tree in sources.items():
        here = _package(path)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
                where = defined.get(node.attr, set())
                if where and here not in where:
                    bad.append(f"{path}:{node.lineno}: .{node.attr} (private to {sorted(where)})")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                  and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                  and isinstance(node.args[1].value, str) and node.args[1].value.startswith("_")
                  and not node.args[1].value.startswith("__")):
                where = defined.get(node.args[1].value, set())
                if where and here not in where:
                    bad.append(f"{path}:{node.lineno}: {node.func.id}(..., {node.args[1].value!r}) (private to {sorted(where)})")
    assert bad == [], "private members read across packages (make them public there):\n" + "\n".join(bad)


def test_docstrings_cite_papers_not_unshipped_notes():
    """Citations point at the papers (or a page in the repository), not at notes that are not
    part of the repository ("notes, section N")."""
    import re

    bad = [f"{p}:{i + 1}" for p in sorted(ROOT.rglob("*.py"))
           for i, line in enumerate(p.read_text(encoding="utf-8").splitlines())
           if re.search(r"\bnotes,? section \d", line)]
    assert bad == []
