"""Helpers of the hostile suite: the real ``evstat`` command in a subprocess, small data files."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evstat as ev

#: the evstat package the tests import: the subprocesses run the same code (EVSTAT_UNDER_TEST=DIR
#: runs the command of another checkout, e.g. to see these tests fail on code before issue 23)
ROOT = os.environ.get("EVSTAT_UNDER_TEST") or str(Path(ev.__file__).resolve().parent.parent)


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = ROOT + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.pop("EVSTAT_WORKER_PARENT", None)  # evstat.io.workers.PARENT_ENV of the test process itself
    return e


def evstat_cmd(*args: object) -> list[str]:
    """The real command line: ``python -m evstat ARGS`` (what the ``evstat`` script runs)."""
    return [sys.executable, "-m", "evstat", *map(str, args)]


def run(*args: object, stdin: str | bytes | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    # cwd=ROOT: ``python -m`` puts the working folder first on sys.path
    return subprocess.run(evstat_cmd(*args), input=data, capture_output=True, env=env(), timeout=timeout, cwd=ROOT)


def _default_sigint() -> None:
    # a process started from a pytest-xdist worker inherits SIGINT ignored (as a shell's background
    # job does), and Python then installs no KeyboardInterrupt handler: give the command the
    # disposition an interactive user's command has
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(*args: object, cwd: Path | None = None) -> subprocess.Popen:
    """Start the command (its own session, so signals reach only what the test sends; SIGINT in
    its default disposition, as from an interactive shell)."""
    return subprocess.Popen(evstat_cmd(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(),
                            cwd=cwd or ROOT, start_new_session=True, preexec_fn=_default_sigint)


def one_line(stderr: bytes | str) -> str:
    """The single non-empty line of stderr (warnings aside); no traceback."""
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    assert "Traceback" not in text, text
    # multiprocessing's resource tracker is a separate process sharing stderr: after the workers are
    # stopped by a signal it may report their semaphores (a warning and its source line); not evstat's
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("evstat: warning:")
             and "resource_tracker" not in ln and not ln.strip().startswith("warnings.warn(")]
    assert len(lines) == 1, text
    return lines[0]


def temp_files(folder: Path) -> list[Path]:
    """The temporary files of evstat.io.atomic in ``folder`` (hidden ``.NAME.*.part*``)."""
    return sorted(p for p in folder.iterdir() if p.name.startswith(".") and ".part" in p.name)


def wait_for(predicate, timeout: float, step: float = 0.2) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d.name))
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def model_files(tmp_path_factory) -> dict[str, Path]:
    """A saved evlogit model and score files: small (2,000 rows), big (300,000 rows), one with a
    non-numeric cell in its last rows."""
    root = tmp_path_factory.mktemp("hostile")
    cal = ev.datasets.simulate_gaussian(200, seed=1)
    ev.evlogit("y ~ x1 + x2", data=cal).save(root / "fit.json")
    rng = np.random.default_rng(0)

    def table(n: int) -> pd.DataFrame:
        return pd.DataFrame({"id": np.arange(n), "x1": rng.normal(size=n).round(6), "x2": rng.normal(size=n).round(6)})

    files = {"fit": root / "fit.json", "small": root / "small.csv", "big": root / "big.csv", "bad": root / "bad.csv"}
    table(2000).to_csv(files["small"], index=False)
    table(300_000).to_csv(files["big"], index=False)
    bad = table(6000).astype({"x2": object})
    bad.loc[5990, "x2"] = "oops"
    bad.to_csv(files["bad"], index=False)
    return files
