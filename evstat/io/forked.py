"""A function computed in a forked child while the caller goes on (:class:`ForkedCall`).

The report's labelling outlook (issue 26, item 4) takes about 40 % of a report with a pool; it
is computed in a forked child on the second core while the report makes its other sections.
Forked, not spawned: the child starts with the modules, the fitted model and the compiled
kernels of its parent (a spawned process would import and load them again, about 1.5 s), and
nothing but the value and its warnings travels back (pickled, through a pipe).

A fork is made only where it is safe (:func:`can_fork`): Linux, two or more processors, and no
thread but the main one (a fork copies only the calling thread, so a lock another thread held
at that moment would stay locked in the child for ever; `evstat predict --jobs` spawns its
workers for the same reason). The child is reaped before the value is returned, and killed and
reaped when the caller leaves the block without it, so no process outlives the call; whenever
the child cannot deliver, the caller computes the value itself, so the result never depends on
the fork. The environment variable ``EVSTAT_FORK=0`` switches forking off.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

from evstat.io.workers import available_cpus, die_with_parent, ignore_sigint

__all__ = ["ForkedCall", "can_fork", "fork_possible"]


def fork_possible() -> bool:
    """The conditions of :func:`can_fork` but the thread count: not switched off
    (``EVSTAT_FORK=0``), Linux, two or more processors, called from the main thread.

    Examples
    --------
    >>> isinstance(fork_possible(), bool)
    True
    """
    return (
        os.environ.get("EVSTAT_FORK", "1").strip().lower() not in ("0", "no", "false", "off")
        and sys.platform.startswith("linux")
        and hasattr(os, "fork")
        and available_cpus() >= 2
        and threading.current_thread() is threading.main_thread()
    )


def can_fork() -> bool:
    """Whether :class:`ForkedCall` may fork here: not switched off (``EVSTAT_FORK=0``), Linux (a
    fork elsewhere is either missing or, on macOS, unsafe with the system's frameworks), at
    least two processors this process may
    use (with one the child only competes with its parent), and no thread but this one, the
    main thread (a fork copies no other thread, so a lock another thread held at that moment,
    in Python or in a library, would stay locked in the child for ever).

    Examples
    --------
    >>> isinstance(can_fork(), bool)
    True
    """
    return fork_possible() and threading.active_count() == 1


class ForkedCall:
    """``fn(*args, **kwargs)`` computed in a forked child process while the caller goes on.

    Entering the ``with`` block forks (when :func:`can_fork` allows it and ``fork=True``); the
    child computes the value under ``config_context(progress_bars=False, kernel_threads=1)``
    (no bars; the compiled kernels serial, since the caller goes on on the other core), records every
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
        parent = os.getpid()
        try:
            read, write = os.pipe()
        except OSError:  # no file descriptors left: computed in this process
            return
        try:
            pid = os.fork()
        except OSError:  # no memory or process slots for a child: computed in this process
            os.close(read)
            os.close(write)
            return
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
            # no progress bars; the compiled kernels serial (kernel_threads=1): the parent goes on
            # on the other core, as the process-pool workers of `evstat predict --jobs` do
            with warnings.catch_warnings(record=True) as got, config_context(progress_bars=False, kernel_threads=1):
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
        pid, self._pid = self._pid, None
        try:
            _, status = os.waitpid(pid, 0)
            clean = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        except ChildProcessError:  # reaped by someone else (SIGCHLD ignored): judged by its answer
            clean = True
        if not (clean and chunks):
            return False, None, []
        try:  # bytes written by this process's own forked child into a pipe made here, never a file
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
            pid, self._pid = self._pid, None
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):  # pragma: no cover - reaped already
                pass
