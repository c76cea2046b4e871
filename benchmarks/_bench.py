"""Helpers shared by the benchmark scripts of issue 26 (bench_startup, bench_outlook,
bench_collect): the load average, timed child processes (wall and CPU), and a git revision
checked out beside this checkout for before/after measurements in one run."""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def load() -> str:
    """The load average (1, 5, 15 minutes) as text."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None,
        ok: tuple[int, ...] = (0,)) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + sys of the child) of a command, and its output; a failure
    stops the benchmark with the command's error output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


@contextlib.contextmanager
def revision(rev: str | None, tmp: Path) -> Iterator[Path | None]:
    """A checkout of git revision ``rev`` (``git worktree add`` into ``tmp``), removed on exit;
    None when ``rev`` is None."""
    if rev is None:
        yield None
        return
    wt = tmp / "before-src"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(wt), rev], check=True,
                   capture_output=True)
    try:
        yield wt
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(wt)], capture_output=True)
