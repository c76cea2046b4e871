"""A clean first run (issue 39 item 1): with an empty numba cache the first report starts the
background compilation of the kernels, and nothing of it (the ResourceWarning of a dropped
``Popen`` handle) reaches the report's "Notes and warnings"."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from evstat.likelihood import _kernels

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_first_report_after_installation_has_no_notes(tmp_path):
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("EVSTAT_KERNELS", "PYTHONWARNINGS")}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), PYTHONDEVMODE="1")
    out = tmp_path / "first.html"
    run = subprocess.run(
        [sys.executable, "-m", "evstat", "report", "--example", "sonar", "-o", str(out)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900,
    )
    assert run.returncode == 0, run.stderr
    html = out.read_text(encoding="utf-8")
    # the compilation was started by this first run (its lock or its marker is in the empty cache)
    assert list(cache.glob("evstat-kernels-*")), sorted(p.name for p in cache.iterdir())
    assert 'id="warnings"' not in html and "Notes and warnings" not in html
    assert "ResourceWarning" not in html and "still running" not in run.stderr


def test_the_compile_handle_is_owned_and_reaped(tmp_path, monkeypatch):
    # the handle stays referenced and a daemon thread waits on it: no ResourceWarning when the
    # caller drops everything, and the process is reaped (returncode set) when it ends
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_kernels, "_STARTED", [False])
    monkeypatch.setattr(_kernels, "_COMPILE", [])
    real = subprocess.Popen

    def quick(args, **kw):  # the same launch, of a process that ends at once
        return real([sys.executable, "-c", "pass"], **kw)

    monkeypatch.setattr(_kernels.subprocess, "Popen", quick)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _kernels.start_background_compile() is True
        proc = _kernels._COMPILE[0]
        import gc
        import threading
        reaper = next(t for t in threading.enumerate() if t.name == "evstat-kernel-compile")
        assert reaper.daemon
        reaper.join(timeout=30)
        gc.collect()
    assert proc.returncode == 0
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
