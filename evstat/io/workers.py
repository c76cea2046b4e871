"""Worker processes that die with their parent.

``evstat predict`` (a :class:`concurrent.futures.ProcessPoolExecutor`) and ``evstat reproduce``
(joblib's loky workers) run work in child processes. If the parent is killed with SIGKILL it
cannot stop them, and they used to run on (about 338 MB each, adopted by PID 1). Each worker
therefore calls :func:`die_with_parent` once, with the parent's process id:

* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (through :mod:`ctypes`): the kernel kills the
  worker when the parent dies. (Strictly, when the *thread* that started the worker ends: so it
  is used only for pools whose workers are started by the main thread, ``pdeathsig=True``.)
* everywhere, a daemon thread that polls :func:`os.getppid` every :data:`POLL_SECONDS` and ends
  the worker with ``os._exit`` once its parent has changed (the worker was re-parented).

A worker that is not a direct child of ``parent_pid`` (a remote Dask worker running a study's
units) is left alone. :func:`ignore_sigint` makes a worker ignore SIGINT: Ctrl-C in a terminal
reaches the whole process group, and the parent, not each worker, reports the interruption and
stops the workers. :func:`guarded` wraps a function run by joblib so that the first call in each
worker arms :func:`die_with_parent`.

:func:`cap_jobs` bounds a ``--jobs`` request by the processors this process may use.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["PARENT_ENV", "POLL_SECONDS", "available_cpus", "cap_jobs", "die_with_parent", "guarded", "ignore_sigint"]

#: how often a worker checks that its parent is alive (seconds)
POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1
_armed: set[int] = set()  # parent pids this process already watches


def _pdeathsig() -> bool:
    """Ask the Linux kernel to SIGKILL this process when its parent dies; False if unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - no libc / no prctl
        return False


def _watch(parent_pid: int) -> None:
    while True:
        time.sleep(POLL_SECONDS)
        if os.getppid() != parent_pid:
            os._exit(1)


def die_with_parent(parent_pid: int, pdeathsig: bool = True, strict: bool = True) -> bool:
    """Make this (worker) process end when the process ``parent_pid`` ends.

    Parameters
    ----------
    parent_pid : int
        The parent's :func:`os.getpid`, taken in the parent.
    pdeathsig : bool
        Also use Linux's ``PR_SET_PDEATHSIG`` (only for workers started by the parent's main
        thread: the kernel signals the death of the starting thread).
    strict : bool
        This process is known to be a child of ``parent_pid`` (a pool's worker): if its parent
        has already changed, the parent died while the worker was starting, and the worker exits
        at once. With ``strict=False`` a process that is not a child of ``parent_pid`` is left
        alone (see :class:`guarded`).

    Returns
    -------
    bool
        True if this process is a child of ``parent_pid`` and now watches it; False if it is
        left alone. A process that already watches ``parent_pid`` returns True at once.

    Examples
    --------
    >>> import os
    >>> die_with_parent(os.getpid(), strict=False)   # the current process is not its own child
    False
    """
    if os.getppid() != parent_pid:
        if strict:
            os._exit(1)
        return False
    if parent_pid in _armed:
        return True
    if pdeathsig:
        _pdeathsig()
        if os.getppid() != parent_pid:  # the parent died before prctl took effect
            os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid,), daemon=True, name="evstat-parent-watch").start()
    _armed.add(parent_pid)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - exists, owned by someone else
        return True
    return True


def ignore_sigint() -> None:
    """Ignore SIGINT in this worker: the parent reports Ctrl-C and stops the workers.

    Examples
    --------
    >>> import signal
    >>> old = signal.getsignal(signal.SIGINT)
    >>> ignore_sigint(); signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    True
    >>> _ = signal.signal(signal.SIGINT, old)

    Only the main thread can set a handler: a task run in a worker's thread pool (a Dask worker)
    leaves the handler as it is.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


#: set in a process that starts :class:`guarded` workers; its children inherit it
PARENT_ENV = "EVSTAT_WORKER_PARENT"


class guarded:  # noqa: N801 - used like a function: delayed(guarded(f))(...)
    """``fn`` for joblib workers: the first call in a worker arms :func:`die_with_parent` (and
    every call in a worker runs the compiled kernels serially, ``kernel_threads=1``).

    Picklable when ``fn`` is (a module-level function). In the parent process itself (``jobs =
    1``, joblib's sequential backend) it only calls ``fn``. A worker whose parent is not the
    process that made the ``guarded`` (a remote Dask worker) is left alone, unless it inherited
    that process's :data:`PARENT_ENV` mark and that process is gone (a local worker whose
    parent died before its first task): then it exits.

    Examples
    --------
    >>> g = guarded(abs)
    >>> g(-3)
    3
    """

    def __init__(self, fn: Callable[..., Any], parent_pid: int | None = None) -> None:
        self.fn = fn
        self.parent_pid = os.getpid() if parent_pid is None else parent_pid
        os.environ[PARENT_ENV] = str(self.parent_pid)  # inherited by the workers started from now

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if os.getpid() != self.parent_pid:
            mine = os.environ.get(PARENT_ENV) == str(self.parent_pid)
            if mine and not _alive(self.parent_pid):
                os._exit(1)
            if die_with_parent(self.parent_pid, pdeathsig=False, strict=False):
                ignore_sigint()
            from evstat._config import set_config

            set_config(kernel_threads=1)  # the workers already use the cores
        return self.fn(*args, **kwargs)


def available_cpus() -> int:
    """Processors this process may run on (``sched_getaffinity`` where available).

    Examples
    --------
    >>> available_cpus() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def cap_jobs(jobs: int, option: str = "--jobs") -> tuple[int, str | None]:
    """``jobs`` (``-1``: every processor) bounded by :func:`available_cpus`, and a note if capped.

    Parameters
    ----------
    jobs : int
        Worker processes asked for; ``-1`` for one per available processor.
    option : str
        How the request is named in the note.

    Returns
    -------
    (int, str or None)
        The number of workers to start and, when the request was lowered, a one-line note saying
        so (the caller prints it as a warning).

    Raises
    ------
    ValueError
        ``jobs`` is 0 or below -1.

    Examples
    --------
    >>> n, note = cap_jobs(10**6)
    >>> n == available_cpus(), note.startswith("--jobs 1000000 lowered to")
    (True, True)
    >>> cap_jobs(1)
    (1, None)
    """
    cpus = available_cpus()
    if jobs == -1:
        return cpus, None
    if jobs < 1:
        raise ValueError(f"{option} must be a positive number of processes or -1 (one per processor), got {jobs}")
    if jobs > cpus:
        return cpus, (f"{option} {jobs} lowered to {cpus}: this machine lets evstat use {cpus} processor"
                      f"{'s' if cpus != 1 else ''}, and more workers only add memory (each holds the model and its chunks)")
    return jobs, None
