"""Shared test helpers: the one doctest runner (fixture ``doctests``)."""

from __future__ import annotations

import doctest
import gc
import importlib
import os
import sys
from types import ModuleType

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")  # figures in examples never open a window
# the compiled kernels are what the tests check (compiled in the process if needed), never the
# numpy path that a fresh installation uses while they compile (evstat.likelihood._kernels);
# tests/likelihood/test_kernels.py checks that path and the mode "auto"
os.environ.setdefault("EVSTAT_KERNELS", "numba")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session):
    """Collect with Python's cyclic garbage collector paused (issue 26, item 5).

    Collecting imports the test modules, and pytest rewrites each one's asserts: hundreds of
    thousands of short-lived AST nodes, each batch of which promotes itself into the old
    generation and so triggers a full collection over the millions of objects that numpy,
    pandas, scipy and scikit-learn hold. Those full collections were about a third of the CPU
    of a cold ``pytest --collect-only`` (no bytecode cache) and free almost nothing (AST nodes
    form no cycles; peak memory is the same). The collector runs again as usual for the tests.

    After the collection, everything it created (the imported libraries, the test modules, the
    items) is frozen (:func:`gc.freeze`): those objects live until the end of the session, so
    the collector has nothing to find among them, and the full collections that follow (one per
    threshold during the tests, and the two that pytest's unraisable-exception plugin forces at
    the end of every session, about 0.4 s of CPU each over those millions of objects, also after
    ``--collect-only``) scan only what the tests themselves create. Frozen objects are still freed
    by reference counting; a cycle among them that the tests drop is kept until the process ends.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


@pytest.fixture(scope="session")
def peer_packages() -> None:
    """Skip unless evstat[peers] (venn-abers, crepes) is installed. A fixture, not a module-level
    ``pytest.importorskip``, so that collecting the tests does not import them (issue 26)."""
    pytest.importorskip("venn_abers")
    pytest.importorskip("crepes")


def run_doctests(module: str | ModuleType, optionflags: int = doctest.ELLIPSIS, min_examples: int = 1) -> None:
    """Run the docstring examples of ``module`` (a module or its dotted name); fail if one of
    them fails or if it has fewer than ``min_examples``. Figures the examples open are closed."""
    mod = importlib.import_module(module) if isinstance(module, str) else module
    try:
        result = doctest.testmod(mod, optionflags=optionflags, verbose=False)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    assert result.attempted >= min_examples, f"{mod.__name__} has {result.attempted} examples, expected >= {min_examples}"
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples failed in {mod.__name__}"


@pytest.fixture
def doctests():
    """The doctest runner :func:`run_doctests`: ``def test_examples(doctests): doctests("evstat.x")``."""
    return run_doctests


@pytest.fixture
def fork_here(monkeypatch) -> int:
    """Where a fork is possible (:func:`evstat.io.forked.fork_possible`: Linux, 2+ processors, the
    main thread, not switched off), let ForkedCall fork even if earlier tests of this pytest
    worker left idle threads behind (a full run under xdist has some: can_fork then refuses,
    rightly for a user's process, and the fork tests would test the fallback instead;
    tests/test_forked_call.py::test_no_fork_when_asked_or_unsafe checks that refusal). Returns
    the number of threads alive at the start, which the test must leave as it found them.
    Elsewhere the test is skipped (no fork to test)."""
    import threading

    from evstat.io import forked

    if not forked.fork_possible():
        pytest.skip("ForkedCall forks only on Linux with 2+ processors, from the main thread")
    if not forked.can_fork():  # only other threads are in the way: the rest of the rule holds
        monkeypatch.setattr(forked, "can_fork", forked.fork_possible)
    return threading.active_count()
