"""When the compiled (numba) kernels run, and how they get compiled without a long first call.

The profile likelihood of a two-class calibrator (:mod:`evstat.likelihood.linear_profile`) is a
batch of small constrained Newton problems, solved by a numba kernel. Compiling that kernel
takes 15-25 s of one core, once per installation (numba caches it on disk, ``cache=True``).
Before issue 26 that compilation ran inside a user's first ``fit.predict(type="belief")``.

The choice (issue 26, item 2), and why
--------------------------------------
A second path solves the same problems with vectorised numpy (the same Newton iteration on the
same KKT system; :func:`evstat.likelihood.linear_profile._newton_batch_numpy`; it agrees with
the kernel to 1e-9, ``tests/likelihood/test_kernels.py``). In the default mode ``"auto"``:

1. if the kernels are known to be compiled for this installation (a marker file, see below),
   the kernel is used: numba loads it from its cache in about 0.5 s;
2. else, if the batch is large (at least :data:`COMPILE_IN_PROCESS_WORK` problem-rows, where
   the numpy path would take longer than compiling), the kernel is compiled in the process, as
   before;
3. else the numpy path answers at once, and one background process (``python -m
   evstat.likelihood._kernels``, started at most once per process and guarded by a lock file
   across processes) compiles the kernels into numba's cache and then writes the marker.

The K-class kernel of evmultinom (:mod:`evstat.likelihood.multinomial`, 3 minutes of compilation
under load) follows the same rule with its own numpy path (``_profile_numpy``: the same KKT
Newton iteration without continuation, agreeing with the kernel to 1e-9,
``tests/multiclass/test_evmultinom_kernels.py``); the background process compiles both.

So a fresh installation answers its first small prediction in numpy time (milliseconds), and
from about 20 s later on every process gets the kernel from the cache. The alternatives,
weighed:

* *Compile at installation*: a wheel has no post-install hook, and ``pip install .`` must be
  enough (no extra step the README does not show).
* *Ship the compiled cache*: numba's cache index is keyed by the source file's modification
  time (reset by ``pip install``) and the CPU, so a shipped cache would be ignored.
* *Fewer or smaller specialisations*: every argument is made C-contiguous and writable before
  the call (one specialisation), but the compile time of the one remaining specialisation
  (numba's import plus LLVM) still exceeds the 3 s budget of the first call.
* *A background thread compiling in the process*: a fork (the process-pool workers of
  ``evstat predict --jobs``) while a thread holds numba's compiler lock could hang the worker;
  a separate process cannot. The kernels stay serial (no numba threading layer): see
  ``_kernel`` in :mod:`~evstat.likelihood.linear_profile`.

Where the cache lives: numba writes next to the source (``__pycache__`` in site-packages) when
that is writable, otherwise in its per-user cache directory; ``NUMBA_CACHE_DIR`` overrides both.
The marker lives in the same place (``NUMBA_CACHE_DIR``, else ``__pycache__`` beside this file
when writable, else ``$XDG_CACHE_HOME/evstat``), and its name holds a hash of the kernel
sources' path, modification time and size, numba's version, Python's version and the machine:
a reinstall or an upgrade invalidates it, as it invalidates numba's cache. A marker whose cache
has been deleted costs one in-process compilation (numba notices the missing cache), never a
wrong result.

Threads (issue 25: the K-class figures). The Newton kernels (evmultinom's and the two-class
one) are compiled with ``nogil=True``, and :func:`evstat.likelihood.multinomial.functional_profile`
and :func:`evstat.likelihood.linear_profile._newton_batch` split a batch of problems (of at least
:data:`THREAD_MIN_WORK` problem-rows) over :func:`kernel_threads` Python threads
(:func:`run_split`), cut only where a chain of the continuation starts, so every problem is solved exactly as in one serial call (the tests check
the answers bit for bit). The threads are started and joined inside the call, no numba
threading layer is used, so no thread outlives a call and a fork stays safe; the process-pool
workers of ``evstat predict --jobs`` and ``evstat reproduce --jobs`` run serially
(``kernel_threads=1``), since the processes already use the cores.

The mode: the environment variable ``EVSTAT_KERNELS``, ``"auto"`` (default), ``"numba"``
(always the kernel, compiled in the process if needed: the test suite's setting, so that the
kernels are what is tested) or ``"numpy"`` (never the kernel, nothing compiled).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

__all__ = [
    "COMPILE_IN_PROCESS_WORK", "COUNT_LOCK", "MAX_KERNEL_THREADS", "MODES", "compile_kernels", "kernel_threads", "marker_path",
    "mode", "ready", "run_calls", "run_split", "single_threaded_blas", "threads_for", "THREAD_MIN_WORK", "use_kernel",
]

#: values of the environment variable ``EVSTAT_KERNELS``
MODES = ("auto", "numba", "numpy")
#: problems x calibration rows of one batch from which "auto" compiles in the process instead of
#: using the numpy path: about 10 s of the numpy path (some 150 ns per problem-row with its
#: Newton iterations), the order of the compilation itself
COMPILE_IN_PROCESS_WORK = 50_000_000
#: a lock file older than this (seconds) is from a compilation that died: it is taken over
STALE_LOCK_SECONDS = 600.0
#: the modules whose kernels the background compilation warms (each has ``_warm_kernels()``)
KERNEL_MODULES = ("evstat.likelihood.linear_profile", "evstat.likelihood.multinomial")
#: the source files of the compiled kernels (in evstat/likelihood): the cache key of a
#: background compilation changes when one of them does
KERNEL_SOURCES = ("linear_profile.py", "_mlogit_sweep.py", "_mlogit_kernel.py")

_STARTED = [False]  # a background compilation was started by this process
#: the background compilation's handle, owned for the life of this process: a Popen dropped
#: while its process runs warns "ResourceWarning: subprocess N is still running" when it is
#: garbage-collected (that warning reached the first report's notes, issue 39). A daemon thread
#: waits on it, which reaps the process when it ends (no zombie) and sets its returncode; if this
#: process exits first, the compilation carries on in its own session (start_new_session).
_COMPILE: list[subprocess.Popen[bytes]] = []


def mode() -> str:
    """The kernel mode: ``EVSTAT_KERNELS`` (``"auto"``, ``"numba"`` or ``"numpy"``).

    Examples
    --------
    >>> mode() in MODES
    True
    """
    value = os.environ.get("EVSTAT_KERNELS", "auto").strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"EVSTAT_KERNELS={value!r} is not one of {', '.join(MODES)}; unset it or choose one")
    return value


def _key() -> str:
    parts = [_numba_version(), sys.version, platform.machine()]
    here = Path(__file__).resolve().parent
    for name in KERNEL_SOURCES:
        src = here / name
        st = src.stat()
        parts += [str(src), str(st.st_mtime_ns), str(st.st_size)]
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def _numba_version() -> str:
    # looked up once per process: ready() is asked before every batch, and the lookup of the
    # installed distributions costs about 3 ms
    from importlib import metadata

    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        return "none"


def _marker_dir() -> Path:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    tree = Path(__file__).resolve().parent / "__pycache__"
    if os.access(tree if tree.is_dir() else tree.parent, os.W_OK):
        return tree
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evstat"


def marker_path() -> Path:
    """The file whose existence says the kernels of this installation are in numba's cache.

    Examples
    --------
    >>> marker_path().name.startswith("evstat-kernels-")
    True
    """
    return _marker_dir() / f"evstat-kernels-{_key()}.ok"


def ready() -> bool:
    """Whether the kernels are compiled for this installation (the marker exists)."""
    try:
        return marker_path().is_file()
    except OSError:
        return False


def use_kernel(work: int, loaded: bool) -> bool:
    """Whether a batch of ``work`` problem-rows runs on the compiled kernel (True) or on the
    numpy path (False); ``loaded``: the kernel is already compiled in this process. In mode
    ``"auto"``, choosing the numpy path starts the background compilation (once).

    Examples
    --------
    >>> import os
    >>> os.environ["EVSTAT_KERNELS"] = "numpy"
    >>> use_kernel(10**9, loaded=True)
    False
    >>> del os.environ["EVSTAT_KERNELS"]
    """
    m = mode()
    if m != "auto":
        return m == "numba"
    if loaded or ready() or work >= COMPILE_IN_PROCESS_WORK:
        return True
    start_background_compile()
    return False


#: the most threads :func:`kernel_threads` chooses by default
MAX_KERNEL_THREADS = 8


def kernel_threads() -> int:
    """Threads for one compiled-kernel call: the ``kernel_threads`` setting
    (:func:`evstat.set_config`), by default the processors this process may use, at most
    :data:`MAX_KERNEL_THREADS`.

    Examples
    --------
    >>> from evstat import config_context
    >>> with config_context(kernel_threads=1):
    ...     kernel_threads()
    1
    """
    from evstat._config import get_config

    n = get_config()["kernel_threads"]
    if n is None:
        from evstat.io.workers import available_cpus

        n = min(available_cpus(), MAX_KERNEL_THREADS)
    return int(n)


#: problems x calibration rows of one kernel call from which it is split over threads: half a
#: millisecond of work or more (a thread's start and join cost some 50-100 us). Measured on the
#: K-class figure's grid at n = 1000: calls of at least 50,000 carry 97 % of the kernel's time
#: (84 % at 200,000, where the calls left serial averaged 2.2 ms)
THREAD_MIN_WORK = 50_000


def threads_for(work: int) -> int:
    """:func:`kernel_threads` for a kernel call of ``work`` problem-rows, 1 below
    :data:`THREAD_MIN_WORK`.

    Examples
    --------
    >>> threads_for(10)
    1
    """
    return kernel_threads() if work >= THREAD_MIN_WORK else 1


def run_split(call: Any, starts: Any, size: int, threads: int) -> list[Any]:
    """The values of ``call(lo, hi)`` on consecutive parts ``[lo, hi)`` of ``range(size)``, in
    order, computed in up to ``threads`` threads (:func:`run_calls`, the calling one included),
    cutting only at the positions ``starts`` (sorted; where an independent run of problems
    begins: a kernel's chains must not be cut), into parts of about equal size. ``call`` must
    release the GIL to gain anything (numba ``nogil=True``) and write only to its part of the
    outputs, so that the answers do not depend on ``threads``. The threads are started and
    joined within the call: none outlives it, so a fork (the process-pool workers of ``evstat
    predict --jobs``) never copies a running one. An error in any part is raised after all
    have finished.

    Examples
    --------
    >>> run_split(lambda lo, hi: (lo, hi), [0, 3, 5, 8], 10, 2)
    [(0, 5), (5, 10)]
    """
    import numpy as np

    starts = np.asarray(starts, dtype=np.intp)
    cuts = [0]
    for t in range(1, max(1, int(threads))):
        target = t * size / threads
        j = int(np.searchsorted(starts, target))
        # the chain start nearest the even share, after the previous cut
        near = [int(starts[i]) for i in (j - 1, j) if 0 <= i < starts.size and cuts[-1] < starts[i] < size]
        if near:
            cuts.append(min(near, key=lambda c: abs(c - target)))
    cuts.append(size)
    bounds = [(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo]
    return run_calls([lambda lo=lo, hi=hi: call(lo, hi) for lo, hi in bounds], len(bounds))


#: guards the profiling counters (``_PASSES``, ``_CONTINUATION``) that threads update
COUNT_LOCK = threading.Lock()


def run_calls(calls: Any, threads: int) -> list[Any]:
    """The values of the callables ``calls``, in order, computed in up to ``threads`` threads
    (the calling one included; the calls dealt to them in turn). Each thread runs in a copy of
    the caller's context, so ``config_context`` blocks (``kernel_threads`` among them) hold
    there too. The threads are started and joined within the call; an error in any call is
    raised after all have finished. For independent calls whose work releases the GIL (the
    kernels, numpy's products) and whose Python parts then overlap the others' kernels.

    Examples
    --------
    >>> run_calls([lambda: 1, lambda: 2, lambda: 3], 2)
    [1, 2, 3]
    """
    import contextvars

    calls = list(calls)
    out: list[Any] = [None] * len(calls)
    threads = max(1, min(int(threads), len(calls)))
    errors: list[BaseException] = []

    def deal(t: int) -> None:
        for i in range(t, len(calls), threads):
            try:
                out[i] = calls[i]()
            except BaseException as err:  # re-raised in the calling thread
                errors.append(err)
                return

    workers = [threading.Thread(target=contextvars.copy_context().run, args=(deal, t), daemon=True)
               for t in range(1, threads)]
    for w in workers:
        w.start()
    deal(0)
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    return out


def single_threaded_blas() -> contextlib.AbstractContextManager[Any]:
    """A context in which numpy's BLAS runs on one thread: the numpy paths' matrix products.

    The numpy paths multiply (problems x calibration rows) blocks by thin matrices, products
    that OpenBLAS splits over every core. Split, they took twice the CPU for a small gain of
    wall time on an idle machine, and more wall time on a busy one, in particular beside the
    background compilation that the numpy path has just started on the other core (measured
    on the first ``evstat report --example sonar``: 17.4 -> 9.1 s of CPU in the numpy path).
    Uses threadpoolctl (a dependency); the libraries are looked up once per process.

    Examples
    --------
    >>> import numpy as np
    >>> with single_threaded_blas():
    ...     float((np.ones((300, 4)) @ np.ones((4, 300))).sum())
    360000.0
    """
    controller = _blas_controller()
    if controller is None:
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")


@functools.lru_cache(maxsize=1)
def _blas_controller() -> Any:
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # not installed (a dependency, but never fail over the thread count)
        return None
    return ThreadpoolController()


def start_background_compile() -> bool:
    """Start ``python -m evstat.likelihood._kernels`` in the background unless this process
    already did or another compilation holds the lock; returns whether it was started."""
    if _STARTED[0]:
        return False
    _STARTED[0] = True
    try:
        lock = marker_path().with_suffix(".lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        try:
            if time.time() - lock.stat().st_mtime > STALE_LOCK_SECONDS:
                lock.unlink()
        except FileNotFoundError:
            pass
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except OSError:  # another compilation holds the lock, or nowhere to write: stay on numpy
        return False
    os.close(fd)
    env = {**os.environ, "EVSTAT_KERNELS": "numba"}
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "evstat.likelihood._kernels", "--lock", str(lock)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env, close_fds=True, start_new_session=True,
        )
    except OSError:
        lock.unlink(missing_ok=True)
        return False
    _COMPILE.append(proc)
    threading.Thread(target=proc.wait, name="evstat-kernel-compile", daemon=True).start()
    return True


def compile_kernels() -> Path:
    """Compile every kernel into numba's cache (by running each on a small problem of the
    types the library passes), then write the marker; returns its path. What the background
    process runs; also callable directly (``python -m evstat.likelihood._kernels``)."""
    import importlib

    for module in KERNEL_MODULES:
        importlib.import_module(module)._warm_kernels()
    path = marker_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as fh:
        fh.write(f"compiled {time.strftime('%Y-%m-%d %H:%M:%S')} by pid {os.getpid()}\n")
    os.replace(fh.name, path)
    return path


def _main(argv: list[str]) -> int:
    lock = Path(argv[argv.index("--lock") + 1]) if "--lock" in argv else None
    os.environ["EVSTAT_KERNELS"] = "numba"
    try:
        print(f"evstat: compiled the kernels ({compile_kernels()})")
    finally:
        if lock is not None:
            lock.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":  # pragma: no cover - run as a separate process
    sys.exit(_main(sys.argv[1:]))
