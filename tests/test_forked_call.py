"""evstat.io.forked.ForkedCall (issue 26, the labelling outlook beside the report's figures): the
value and warnings of a function computed in a forked child, the calling process's own
computation whenever the child cannot deliver, and no process or thread left behind."""

from __future__ import annotations

import os
import signal
import threading
import time
import warnings
from pathlib import Path

import pytest

from evstat.io import forked
from evstat.io.forked import ForkedCall, can_fork

needs_fork = pytest.mark.usefixtures("fork_here")


def _children() -> set[int]:
    """The process ids of this process's children (Linux /proc)."""
    out: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        text = (task / "children").read_text().split()
        out.update(int(p) for p in text)
    return out


def _pid_and_warn(x: int) -> tuple[int, int]:
    warnings.warn(f"first {x}", UserWarning)
    warnings.warn("second", RuntimeWarning)
    return os.getpid(), x * 2


def _fail(x: int) -> int:
    raise ValueError(f"bad x = {x}")


def _unpicklable(x: int):
    return lambda: x


def _sleep(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_value_and_warnings_come_from_a_child_in_order(fork_here):
    before = _children()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with ForkedCall(_pid_and_warn, 21) as call:
            assert len(_children() - before) == 1  # the child runs while the caller goes on
            pid, value = call.result()
    assert value == 42 and pid != os.getpid() and call.forked
    assert [(w.category, str(w.message)) for w in got] == [(UserWarning, "first 21"), (RuntimeWarning, "second")]
    assert _children() == before and threading.active_count() == fork_here


@needs_fork
def test_the_caller_filters_the_childs_warnings():
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        with ForkedCall(_pid_and_warn, 1) as call:
            call.result()
    assert [str(w.message) for w in got] == ["first 1"]


def test_an_error_is_the_plain_calls_error():
    before = _children()
    with ForkedCall(_fail, 3) as call, pytest.raises(ValueError, match=r"bad x = 3"):
        call.result()
    assert not call.forked and _children() == before


def test_a_value_that_does_not_pickle_is_computed_here():
    with ForkedCall(_unpicklable, 5) as call:
        fn = call.result()
    assert fn() == 5 and not call.forked


def test_no_fork_when_asked_or_unsafe(monkeypatch):
    with ForkedCall(_pid_and_warn, 2, fork=False) as call, warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert call.result() == (os.getpid(), 4) and not call.forked
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not can_fork()  # another thread alive: a fork could copy a held lock
    finally:
        stop.set()
        other.join()
    monkeypatch.setenv("EVSTAT_FORK", "0")
    assert not can_fork()  # switched off
    monkeypatch.delenv("EVSTAT_FORK")
    monkeypatch.setattr(forked, "available_cpus", lambda: 1)
    assert not can_fork()  # one processor: the child would only compete with its parent
    with ForkedCall(_sleep, 0.0) as call:
        assert call.result() == os.getpid()


@needs_fork
def test_leaving_the_block_unread_kills_and_reaps_the_child():
    before = _children()
    with pytest.raises(KeyError), ForkedCall(_sleep, 60.0):
        assert len(_children() - before) == 1
        raise KeyError("the caller failed")
    assert _children() == before


@needs_fork
def test_a_child_killed_from_outside_is_recomputed_here():
    before = _children()
    with ForkedCall(_sleep, 60.0) as call:
        (child,) = _children() - before
        os.kill(child, signal.SIGKILL)
        t0 = time.perf_counter()
        with pytest.MonkeyPatch.context() as mp:  # the recomputation: no minute of sleep
            mp.setattr(call, "_args", (0.0,))
            assert call.result() == os.getpid()
        assert time.perf_counter() - t0 < 30 and not call.forked
    assert _children() == before


@needs_fork
def test_the_child_runs_the_kernels_serially_without_bars():
    """The caller goes on on the other core: the child's compiled kernels run serially
    (kernel_threads=1, as evstat predict's workers) and draw no progress bars."""
    from evstat._config import get_config

    with ForkedCall(get_config) as call:
        child = call.result()
    assert call.forked and child["kernel_threads"] == 1 and child["progress_bars"] is False
    assert get_config()["kernel_threads"] is None  # the caller's own settings are untouched


def test_a_failed_fork_is_computed_here(monkeypatch):
    """No memory or process slots for a child (os.fork raises): the caller computes the value;
    the pipe's descriptors are closed."""
    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    opened = []
    real_pipe = os.pipe

    def pipe():
        fds = real_pipe()
        opened.extend(fds)
        return fds

    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setattr(os, "pipe", pipe)
    with ForkedCall(_sleep, 0.0) as call:
        assert call.result() == os.getpid() and not call.forked
    for fd in opened:
        with pytest.raises(OSError):
            os.fstat(fd)


@needs_fork
def test_a_child_reaped_by_someone_else_still_delivers():
    """SIGCHLD ignored: the kernel reaps the child itself and waitpid finds no child; the answer
    read from the pipe is used."""
    old = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        with ForkedCall(_sleep, 0.0) as call:
            pid = call.result()
    finally:
        signal.signal(signal.SIGCHLD, old)
    assert call.forked and pid != os.getpid()
