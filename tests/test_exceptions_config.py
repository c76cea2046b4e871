"""House infrastructure (issue 24, item 7): one base error and one base warning that every evstat
error and warning derives from (builtin bases kept), and the process-wide switches of
``evstat.set_config`` / ``get_config`` / ``config_context``."""

from __future__ import annotations

import importlib
import pkgutil
import threading
import warnings

import pytest

import evstat as ev
from evstat import _config
from evstat.exceptions import EvstatError, EvstatWarning


def _evstat_modules():
    for info in pkgutil.walk_packages(ev.__path__, "evstat."):
        if info.name.endswith("__main__"):
            continue
        yield importlib.import_module(info.name)


def test_every_error_and_warning_derives_from_the_bases():
    found = {}
    for mod in _evstat_modules():
        for obj in vars(mod).values():
            # errors and warnings (Exception subclasses); a BaseException-only class is a signal
            # such as evstat.cli.Terminated (SIGTERM), kept out of `except Exception` on purpose
            if isinstance(obj, type) and issubclass(obj, Exception) and obj.__module__.startswith("evstat"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    found = {k: v for k, v in found.items() if v not in (EvstatError, EvstatWarning)}
    assert len(found) >= 12, sorted(found)
    bad = [k for k, c in found.items() if not issubclass(c, EvstatWarning if issubclass(c, Warning) else EvstatError)]
    assert not bad, f"not derived from evstat.exceptions' bases: {bad}"


def test_builtin_bases_are_kept():
    from evstat.belief.rules import DogmaticMassError, TotalConflictError
    from evstat.formula.schema import SchemaError
    from evstat.formula.whitelist import UnsafeFormulaError

    for cls in (SchemaError, UnsafeFormulaError, TotalConflictError, DogmaticMassError):
        assert issubclass(cls, ValueError) and issubclass(cls, EvstatError)
    assert issubclass(EvstatWarning, UserWarning)
    assert ev.EvstatError is EvstatError and ev.EvstatWarning is EvstatWarning


def test_one_except_clause_catches_evstat_errors_and_filters_silence_its_warnings(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "evstat", "format_version": 2, "method": "evlogit"}')
    with pytest.raises(ev.EvstatError, match="schema"):
        ev.load(path)
    d = ev.datasets.simulate_gaussian(40, seed=1)
    fit = ev.evbinning("y ~ x1", d, bins=8)
    far = d.head(3).assign(x1=[50.0, 60.0, 70.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", ev.EvstatWarning)
        fit.predict(far)  # an EmptyCellWarning otherwise


def test_config_context_nests_restores_and_checks():
    base = ev.get_config()
    assert base == _config._DEFAULTS
    with ev.config_context(progress_bars=False, calibration_sample_rows=10):
        with ev.config_context(progress_min_rows=None):
            c = ev.get_config()
            assert (c["progress_bars"], c["calibration_sample_rows"], c["progress_min_rows"]) == (False, 10, None)
        assert ev.get_config()["progress_min_rows"] == 50_000
    assert ev.get_config() == base
    with pytest.raises(RuntimeError), ev.config_context(progress_bars=False):
        raise RuntimeError("restored after an error too")
    assert ev.get_config() == base
    with pytest.raises(TypeError, match="unknown evstat setting 'progress'; the settings are"):
        ev.set_config(progress=False)
    with pytest.raises(TypeError, match="progress_bars must be True or False"):
        ev.set_config(progress_bars="no")
    with pytest.raises(ValueError, match="calibration_sample_rows must be a positive integer"):
        ev.config_context(calibration_sample_rows=0).__enter__()
    ev.get_config()["progress_bars"] = False  # a copy: changing it changes nothing
    assert ev.get_config() == base


def test_set_config_is_process_wide_and_blocks_are_per_thread():
    seen = {}

    def other(started, release):
        seen["before"] = ev.get_config()["progress_min_rows"]
        started.set()
        release.wait(5)
        seen["after"] = ev.get_config()["progress_min_rows"]

    started, release = threading.Event(), threading.Event()
    try:
        with ev.config_context(progress_min_rows=7):  # this thread only
            t = threading.Thread(target=other, args=(started, release))
            t.start()
            started.wait(5)
            ev.set_config(progress_min_rows=123)  # every thread, outside blocks
            assert ev.get_config()["progress_min_rows"] == 7  # the block still wins here
            release.set()
            t.join(5)
        assert seen == {"before": 50_000, "after": 123}
        assert ev.get_config()["progress_min_rows"] == 123
    finally:
        ev.set_config(progress_min_rows=50_000)


def test_sample_rows_setting_drives_the_calibration_subsample():
    d = ev.datasets.simulate_gaussian(60, seed=3)
    fit = ev.evlogit("y ~ x1", d)
    assert fit.calibration_sample() is None
    with ev.config_context(calibration_sample_rows=25):
        pos = fit.calibration_sample()
        assert pos.size == 25 and "set_config(calibration_sample_rows" in fit.calibration_sample_note()


@pytest.mark.slow
def test_process_pool_workers_get_the_parents_settings():
    """evstat predict's spawned workers start from the defaults; their initializer applies the
    parent's settings (evstat.bulk._init_worker, as predict_file passes them)."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from evstat import bulk

    fit = ev.evlogit("y ~ x1", ev.datasets.simulate_gaussian(30, seed=1))
    config = {**ev.get_config(), "progress_min_rows": 9}
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=ctx, initializer=bulk._init_worker,
                             initargs=(fit.to_dict(), os.getpid(), config)) as pool:
        got = pool.submit(_config.get_config).result(timeout=300)
        assert got["progress_min_rows"] == 9
        assert got["kernel_threads"] == 1  # the processes use the cores: serial kernels in each
    with ProcessPoolExecutor(1, mp_context=ctx) as pool:  # without the initializer: the defaults
        assert pool.submit(_config.get_config).result(timeout=300)["progress_min_rows"] == 50_000


def test_kernel_threads_setting_is_checked_and_read():
    from evstat.io.workers import available_cpus
    from evstat.likelihood import _kernels

    assert ev.get_config()["kernel_threads"] is None
    assert _kernels.kernel_threads() == min(available_cpus(), _kernels.MAX_KERNEL_THREADS)
    with ev.config_context(kernel_threads=3):
        assert _kernels.kernel_threads() == 3
    for bad in (0, -2, 1.5, True, "2"):
        with pytest.raises(ValueError, match="kernel_threads must be a positive integer"):
            ev.config_context(kernel_threads=bad).__enter__()


def test_guarded_joblib_workers_run_the_kernels_serially(monkeypatch):
    """A joblib worker of `evstat reproduce` (io.workers.guarded, in a process other than the
    one that made it) sets kernel_threads=1; the parent itself (jobs = 1) is left as it is."""
    from evstat.io import workers

    g = workers.guarded(_config.get_config)
    assert g()["kernel_threads"] is None  # the parent
    # as seen from a worker: its parent is another process (pid 1, alive), whose watcher and
    # signal handling are not armed in this test process
    monkeypatch.setattr(workers, "die_with_parent", lambda *a, **k: False)
    g.parent_pid = 1
    try:
        assert g()["kernel_threads"] == 1
    finally:
        ev.set_config(kernel_threads=None)
