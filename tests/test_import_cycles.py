"""No import cycles between evstat's modules (issue 24, item 7), function-level imports included.

A cycle hidden by an import inside a function still ties the modules together: neither can be
understood, tested or moved without the other, and the order of first use decides which import
fails. grimp (which import-linter uses) reads every import statement of every module, at module
level or inside functions; imports under ``if TYPE_CHECKING:`` are left out (they never run).
Name-based imports (``importlib.import_module``: the upward hook of ``evstat.results.upward``,
the registry's model packages, the lazy attributes of ``evstat/__init__``) are not import
statements and are not seen, by design: they are the documented ways up.

The import-linter contract ``acyclic_siblings`` in pyproject.toml (run by ``lint-imports`` in
``.ci/run``) checks the same at package level; this test checks every module pair and lists each
cycle it finds.
"""

from __future__ import annotations

import sys

import pytest

grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (the test extra)")


def _graph() -> dict[str, set[str]]:
    g = grimp.build_graph("evstat", include_external_packages=False, exclude_type_checking_imports=True)
    return {m: set(g.find_modules_directly_imported_by(m)) for m in g.modules}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def test_the_cycle_finder_finds_cycles():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": {"e"}, "f": set()}
    assert _cycles(edges) == [["a", "b", "c"], ["e", "e2"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_evstat_modules():
    cycles = _cycles(_graph())
    listed = "\n".join("  " + " <-> ".join(c) for c in cycles)
    assert not cycles, f"import cycles (function-level imports included):\n{listed}"


def test_the_graph_sees_function_level_imports():
    """grimp reads imports inside functions (the ones that hid the cycles)."""
    edges = _graph()
    # evstat.results.load reads the schema module at module level, and the registry's lazy
    # first read imports nothing by statement; evstat.bulk imports evstat._config in functions
    assert "evstat._config" in edges["evstat.bulk"]
    assert sys.modules.get("grimp") is not None
