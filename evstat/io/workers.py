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

:class:`ForkedCall` computes one function in a forked child while the caller goes on (the
report's labelling outlook beside its figures, on the second core): only where a fork is safe
(:func:`can_fork`), the child reaped before the call returns, and the function computed in the
calling process instead whenever the child cannot deliver.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "PARENT_ENV", "POLL_SECONDS", "ForkedCall", "available_cpus", "can_fork", "cap_jobs", "die_with_parent",
    "guarded", "ignore_sigint",
]

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
    """``fn`` for joblib workers: the first call in a worker arms :func:`die_with_parent`.

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


def can_fork() -> bool:
    """Whether :class:`ForkedCall` may fork here: Linux (a fork elsewhere is either missing or,
    on macOS, unsafe with the system's frameworks), at least two processors this process may
    use (with one the child only competes with its parent), and no thread but this one, the
    main thread (a fork copies no other thread, so a lock another thread held at that moment,
    in Python or in a library, would stay locked in the child for ever).

    Examples
    --------
    >>> isinstance(can_fork(), bool)
    True
    """
    return (
        sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and available_cpus() >= 2
        and threading.current_thread() is threading.main_thread()
        and threading.active_count() == 1
    )


class ForkedCall:
    """``fn(*args, **kwargs)`` computed in a forked child process while the caller goes on.

    Entering the ``with`` block forks (when :func:`can_fork` allows it and ``fork=True``); the
    child computes the value under ``config_context(progress_bars=False)``, records every
    warning, sends the value and the warnings back through a pipe (pickled) and ends with
    ``os._exit`` (no ``atexit`` handler, no flush of the parent's buffers). :meth:`result` reads
    them, reaps the child, re-issues the warnings in order (under the caller's filters) and
    returns the value. Leaving the block kills and reaps a child whose result was not read (an
    error or Ctrl-C in the caller), so no process outlives the block.

    Whenever the child cannot deliver (no fork here, the function raised, its value or a warning
    does not pickle, the child was killed), :meth:`result` computes ``fn`` in the calling
    process: the value, the warnings and any exception are then exactly those of a plain call.
    ``fn`` must be deterministic (the same value in either process) and free of side effects
    the caller relies on: effects in the child are lost.

    The child arms :func:`die_with_parent` (it ends if the caller is killed) and ignores SIGINT
    (Ctrl-C reaches the caller, which stops the child).

    Examples
    --------
    >>> with ForkedCall(sum, [1, 2, 3]) as call:
    ...     other = 10 * 10            # the caller's own work, meanwhile
    ...     call.result() + other
    106
    >>> with ForkedCall(sum, [1, 2], fork=False) as call:   # in the calling process
    ...     call.result(), call.forked
    (3, False)
    """

    def __init__(self, fn: Callable[..., Any], *args: Any, fork: bool = True, **kwargs: Any) -> None:
        self._fn, self._args, self._kwargs = fn, args, kwargs
        self._fork = fork
        self._pid: int | None = None
        self._fd: int | None = None
        self._done: tuple[Any] | None = None
        #: True if the value came from the child (set by :meth:`result`)
        self.forked = False

    def __enter__(self) -> ForkedCall:
        if self._fork and can_fork():
            self._start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop()

    def _start(self) -> None:
        read, write = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the caller's frames
            status = 1
            try:
                os.close(read)
                die_with_parent(parent)
                ignore_sigint()
                data = self._compute()
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                status = 0
            finally:
                os._exit(status)
        os.close(write)
        self._pid, self._fd = pid, read

    def _compute(self) -> bytes:
        """The pickled ``("ok", value, warnings)`` or ``("error", text, [])`` (in the child)."""
        from evstat._config import config_context

        try:
            with warnings.catch_warnings(record=True) as got, config_context(progress_bars=False):
                warnings.simplefilter("always")
                value = self._fn(*self._args, **self._kwargs)
            notes = [(w.category, str(w.message)) for w in got]
            return pickle.dumps(("ok", value, notes), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as err:  # noqa: BLE001 - reported to the parent, which recomputes
            return pickle.dumps(("error", f"{type(err).__name__}: {err}", []))

    def _receive(self) -> tuple[bool, Any, list[tuple[type[Warning], str]]]:
        """Read the child's answer and reap it: (delivered, value, warnings)."""
        assert self._pid is not None and self._fd is not None
        chunks = []
        while chunk := os.read(self._fd, 1 << 20):
            chunks.append(chunk)
        os.close(self._fd)
        self._fd = None
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and chunks):
            return False, None, []
        try:
            kind, value, notes = pickle.loads(b"".join(chunks))
        except Exception:  # noqa: BLE001 - e.g. a class the parent cannot import: recompute
            return False, None, []
        return kind == "ok", value, notes

    def result(self) -> Any:
        """The value of ``fn(*args, **kwargs)``: the child's, else computed here (see above);
        computed once (a second call returns the same value)."""
        if self._done is not None:
            return self._done[0]
        if self._pid is not None:
            delivered, value, notes = self._receive()
            if delivered:
                self.forked = True
                for category, message in notes:
                    warnings.warn(message, category, stacklevel=2)
                self._done = (value,)
                return value
        value = self._fn(*self._args, **self._kwargs)
        self._done = (value,)
        return value

    def _stop(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone (reaped below)
                pass
            os.waitpid(self._pid, 0)
            self._pid = None
