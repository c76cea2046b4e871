"""Process-wide switches of evstat: :func:`set_config`, :func:`get_config`, :func:`config_context`
(scikit-learn's API).

====================================  ==========  ==============================================
switch                                default     effect
====================================  ==========  ==============================================
``progress_bars``                     True        predictions may show tqdm progress bars (by the
                                                  two thresholds below); False: never
``progress_min_rows``                 50_000      predictions of at least this many rows show a
                                                  bar (None: no bar by size)
``progress_min_seconds``              10.0        predictions whose predicted time (cost model
                                                  rows x n x cost_per_cell) is at least this many
                                                  seconds show a bar with the estimate (None: no
                                                  bar by time)
``calibration_sample_rows``           2000        above this many calibration rows, summaries,
                                                  ``glance`` and reports of models whose
                                                  prediction cost grows with n use a seeded
                                                  subsample of this many rows
``kernel_threads``                    None        threads of evmultinom's compiled profile
                                                  kernel within one prediction (None: the
                                                  processors this process may use, at most 8;
                                                  1: serial). The threads exist only during a
                                                  kernel call (:mod:`evstat.likelihood.
                                                  multinomial`); the answers do not depend on
                                                  the number
====================================  ==========  ==============================================

Scope. :func:`set_config` changes the process-wide values. :func:`config_context` overrides them
inside a ``with`` block for the current thread (or asyncio task) only, and restores them on
leaving it; blocks nest. The values live in a :class:`contextvars.ContextVar`, so threads do not
see each other's blocks. Worker processes start from the defaults: ``evstat predict``
(:mod:`evstat.bulk`) hands the parent's configuration to its process-pool workers (their
initializer calls :func:`set_config`) and enters ``config_context(progress_bars=False)`` around
every chunk, since it draws one bar of its own; its workers run the kernels serially
(``kernel_threads=1``: the processes already use the cores).

Examples
--------
>>> from evstat import config_context, get_config
>>> with config_context(progress_bars=False):
...     get_config()["progress_bars"]
False
>>> get_config()["progress_bars"]
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["config_context", "env_limit", "get_config", "set_config"]

_DEFAULTS: dict[str, Any] = {
    "progress_bars": True,
    "progress_min_rows": 50_000,
    "progress_min_seconds": 10.0,
    "calibration_sample_rows": 2000,
    "kernel_threads": None,
}
_global: dict[str, Any] = dict(_DEFAULTS)
#: overrides of the innermost config_context block of this thread or task (None: none)
_local: ContextVar[dict[str, Any] | None] = ContextVar("evstat_config", default=None)


def get_config() -> dict[str, Any]:
    """The current values of every switch (a copy): the process-wide values of
    :func:`set_config` with the overrides of the enclosing :func:`config_context` blocks.

    Examples
    --------
    >>> sorted(get_config())
    ['calibration_sample_rows', 'kernel_threads', 'progress_bars', 'progress_min_rows', 'progress_min_seconds']
    """
    local = _local.get()
    return {**_global, **(local or {})}


def _checked(kwargs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise TypeError(f"unknown evstat setting {key!r}; the settings are {sorted(_DEFAULTS)}")
        if value is None and key in ("progress_min_rows", "progress_min_seconds", "kernel_threads"):
            out[key] = None
            continue
        if key == "progress_bars":
            if not isinstance(value, bool):
                raise TypeError(f"progress_bars must be True or False, got {value!r}")
        elif key in ("progress_min_rows", "calibration_sample_rows", "kernel_threads"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{key} must be a positive integer, got {value!r}")
        else:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"{key} must be a number of seconds >= 0 or None, got {value!r}")
            value = float(value)
        out[key] = value
    return out


def set_config(**settings: Any) -> None:
    """Set switches process-wide (see the module docstring for the names); an unknown name or a
    bad value is an error naming it. Inside a :func:`config_context` block the block's own
    values still win until it ends.

    Examples
    --------
    >>> set_config(progress_min_rows=10_000)
    >>> get_config()["progress_min_rows"]
    10000
    >>> set_config(progress_min_rows=50_000)
    """
    _global.update(_checked(settings))


@contextmanager
def config_context(**settings: Any) -> Iterator[None]:
    """Within the block, the switches take these values in this thread (or asyncio task); they
    are restored on leaving it, also after an error. Blocks nest.

    Examples
    --------
    >>> with config_context(calibration_sample_rows=500):
    ...     with config_context(progress_bars=False):
    ...         c = get_config()
    >>> c["calibration_sample_rows"], c["progress_bars"]
    (500, False)
    """
    token = _local.set({**(_local.get() or {}), **_checked(settings)})
    try:
        yield
    finally:
        _local.reset(token)


def env_limit(name: str, default: int, error: type[Exception] = ValueError) -> int:
    """A raisable size limit now: the environment variable ``EVSTAT_<name>`` if set (a positive
    integer; ``_`` and ``,`` separators allowed), else ``default`` (the module's constant, which
    may have been assigned); ``error`` (the caller's error class) for a value that is not a
    positive integer. The one reader of the ``EVSTAT_MAX_*`` variables (formula limits, table
    reader).

    Examples
    --------
    >>> import os
    >>> os.environ["EVSTAT_MAX_DEMO"] = "5_000"
    >>> env_limit("MAX_DEMO", 1000)
    5000
    >>> del os.environ["EVSTAT_MAX_DEMO"]
    >>> env_limit("MAX_DEMO", 1000)
    1000
    """
    import os

    text = os.environ.get("EVSTAT_" + name, "").strip()
    if not text:
        return int(default)
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise error(f"the environment variable EVSTAT_{name}={text[:40]!r} is not a positive integer; unset it "
                    f"(the default is {int(default):,}) or give the new limit, e.g. {2 * int(default)}")
    return value
