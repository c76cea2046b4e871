"""Deferred imports of a package's public names (PEP 562): what keeps ``import evstat`` and the
import of a subpackage fast (docs/architecture.md, "Import-time rules").

A package ``__init__`` lists its public names as ordinary imports inside ``if TYPE_CHECKING:``
(so type checkers, import-linter and readers see them as before) and ends with::

    __getattr__, __dir__ = exports(__name__, __file__)

:func:`exports` reads those imports from the ``__init__``'s source and returns a module
``__getattr__`` that imports a name's module on first access (then caches the name in the
package), and a ``__dir__`` that lists the names not yet loaded. ``from package import name``,
``package.name`` and ``from package import *`` (with ``__all__``) work as with eager imports;
only the time of the import changes.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["exports", "names_of"]


def names_of(init_file: str | Path, package: str) -> dict[str, tuple[str, str | None]]:
    """``{public name: (module, attribute or None for a module)}`` read from the imports inside
    the ``if TYPE_CHECKING:`` blocks of a package's ``__init__`` source.

    Examples
    --------
    >>> import evstat.likelihood as lk
    >>> names_of(lk.__file__, "evstat.likelihood")["profile_loglik"]
    ('evstat.likelihood.linear_profile', 'profile_loglik')
    """
    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    out: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.ImportFrom):
                base = stmt.module or ""
                if stmt.level:  # relative: from . import x / from .m import y
                    base = ".".join(package.split(".")[: len(package.split(".")) - stmt.level + 1] + ([base] if base else []))
                for alias in stmt.names:
                    name = alias.asname or alias.name
                    submodule = f"{base}.{alias.name}"
                    # `from package import submodule`: the module itself
                    out[name] = (submodule, None) if base == package else (base, alias.name)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        out[alias.asname] = (alias.name, None)
    return out


def exports(package: str, init_file: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package whose public names are imported
    on first use (see the module docstring)."""
    table = names_of(init_file, package)

    def __getattr__(name: str) -> Any:
        try:
            module, attr = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        mod = importlib.import_module(module)
        value = mod if attr is None else getattr(mod, attr)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        own = {n for n in vars(sys.modules[package]) if n not in ("TYPE_CHECKING", "exports")}
        return sorted(own | set(table))

    return __getattr__, __dir__
