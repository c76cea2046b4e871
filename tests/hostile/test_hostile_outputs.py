"""Nothing lost (issue 23, items 1-4 and 6): atomic outputs, output == input refused, signals,
concurrent writers, workers that die with their parent.

The command-line cases run the real ``evstat`` command (``python -m evstat``) in a subprocess.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import time
from pathlib import Path

import pandas as pd
import pytest

import evstat as ev
from evstat.io.atomic import SameFileError, atomic_path, refuse_same_file, write_text

from hostile_helpers import alive, children, kill_all, one_line, run, start, temp_files, wait_for


# --- the helper -----------------------------------------------------------------------------

def test_failure_keeps_old_content_and_removes_temporary(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(ZeroDivisionError):
        with atomic_path(target) as tmp:
            tmp.write_text("new but half")
            1 / 0
    assert target.read_text() == "old\n"
    assert temp_files(tmp_path) == []


def test_keyboard_interrupt_keeps_old_content(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(KeyboardInterrupt):
        with atomic_path(target) as tmp:
            tmp.write_text("new")
            raise KeyboardInterrupt
    assert target.read_text() == "old\n" and temp_files(tmp_path) == []


def test_failure_without_old_file_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic_path(tmp_path / "new.parquet") as tmp:
            assert tmp.parent == tmp_path and tmp.suffix == ".parquet" and not (tmp_path / "new.parquet").exists()
            raise RuntimeError
    assert list(tmp_path.iterdir()) == []


def test_permissions_follow_umask_or_old_file(tmp_path):
    mask = os.umask(0o027)
    try:
        fresh = write_text(tmp_path / "fresh.txt", "x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640  # not mkstemp's 0o600
    old = tmp_path / "old.txt"
    old.write_text("x")
    old.chmod(0o604)
    write_text(old, "y")
    assert stat.S_IMODE(old.stat().st_mode) == 0o604 and old.read_text() == "y"


def test_symbolic_link_is_followed_and_kept(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_device_written_in_place():
    write_text("/dev/null", "discarded")  # not replaced by a regular file
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_folder_target_and_missing_folder_refused(tmp_path):
    with pytest.raises(IsADirectoryError, match="it is a folder"):
        write_text(tmp_path, "x")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        write_text(tmp_path / "no" / "x.txt", "x")


def test_same_file_refused_by_path_and_by_link(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("x\n1\n")
    (tmp_path / "hard.csv").hardlink_to(data)
    (tmp_path / "soft.csv").symlink_to(data)
    for out in (data, tmp_path / "." / "d.csv", tmp_path / "hard.csv", tmp_path / "soft.csv"):
        with pytest.raises(SameFileError, match="is the same file as --data"):
            refuse_same_file(out, {"--data": data})
    refuse_same_file(tmp_path / "other.csv", {"--data": data, "--newdata": None, "--pool": "-"})


def test_save_is_atomic(tmp_path, monkeypatch):
    fit = ev.evlogit("y ~ x1", data=ev.datasets.simulate_gaussian(60, seed=2))
    path = fit.save(tmp_path / "m.json")
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="No space"):
        ev.evlogit("y ~ x1 + x2", data=ev.datasets.simulate_gaussian(60, seed=3)).save(path)
    assert path.read_bytes() == before and temp_files(tmp_path) == []


def test_examples(doctests):
    doctests("evstat.io.atomic", min_examples=5)
    doctests("evstat.io.workers", min_examples=4)


# --- the command line: item 1, output == input ---------------------------------------------

def test_predict_refuses_to_overwrite_its_input(model_files, tmp_path):
    data = tmp_path / "self.csv"
    data.write_bytes(model_files["small"].read_bytes())
    before = data.read_bytes()
    (tmp_path / "link.csv").hardlink_to(data)
    for out in (data, tmp_path / "link.csv"):
        r = run("predict", model_files["fit"], "--data", data, "-o", out, "--quiet")
        assert r.returncode == 2
        assert "is the same file as --data" in one_line(r.stderr)
        assert data.read_bytes() == before
    r = run("predict", model_files["fit"], "--data", data, "-o", model_files["fit"], "--quiet")
    assert r.returncode == 2 and "is the same file as MODEL.json" in one_line(r.stderr)


def test_report_refuses_to_overwrite_its_input(tmp_path):
    d = ev.datasets.load("sonar_scores")
    data = tmp_path / "cal.csv"
    d[d["set"] == "calibration"].to_csv(data, index=False)
    before = data.read_bytes()
    r = run("report", "y ~ svm1", "--data", data, "-o", data)
    assert r.returncode == 2 and "is the same file as --data" in one_line(r.stderr)
    assert data.read_bytes() == before


# --- item 2: a failed predict keeps the old output ------------------------------------------

def test_failed_predict_keeps_existing_output(model_files, tmp_path):
    out = tmp_path / "keep.csv"
    out.write_text("precious\n")
    r = run("predict", model_files["fit"], "--data", model_files["bad"], "-o", out, "--chunksize", "500",
            "--jobs", "1", "--quiet")
    assert r.returncode == 2, r.stderr
    one_line(r.stderr)
    assert out.read_text() == "precious\n" and temp_files(tmp_path) == []
    r = run("predict", model_files["fit"], "--data", model_files["small"], "-o", out, "--keep", "nonexistent_col",
            "--quiet")
    assert r.returncode == 2
    assert "nonexistent_col" in one_line(r.stderr)
    assert out.read_text() == "precious\n" and temp_files(tmp_path) == []


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_bad_cell_late_in_the_file_writes_no_output(model_files, tmp_path, suffix):
    """A bad cell in the last chunk used to leave a clean-looking partial file (issue 23, item 3)."""
    out = tmp_path / f"out{suffix}"
    r = run("predict", model_files["fit"], "--data", model_files["bad"], "-o", out, "--chunksize", "500",
            "--jobs", "1", "--quiet")
    assert r.returncode == 2
    assert not out.exists() and temp_files(tmp_path) == []


# --- item 3: signals -----------------------------------------------------------------------

def _interrupt(model_files, tmp_path, sig, suffix=".csv", jobs="2"):
    out = tmp_path / f"out{suffix}"
    if suffix == ".csv":
        out.write_text("old\n")
    # Parquet: the belief columns (a few seconds for the 300,000 rows), so that the command is
    # still writing when the signal comes (its point predictions are written in well under the
    # polling step since the two-class path got faster)
    kind = ["--type", "belief"] if suffix != ".csv" else []
    proc = start("predict", model_files["fit"], "--data", model_files["big"], "-o", out, "--chunksize", "2000",
                 "--jobs", jobs, "--quiet", *kind)
    try:
        # signal once rows are being written, not during start-up: the temporary CSV grows; the
        # Parquet writer (pyarrow) buffers its output, so its temporary file may stay empty until
        # the end, and its existence (the first chunk) is the sign
        def writing() -> bool:
            return any(suffix != ".csv" or p.stat().st_size > 0 for p in temp_files(tmp_path))

        assert wait_for(lambda: writing() or proc.poll() is not None, timeout=300)
        assert proc.poll() is None, "the command ended before it could be interrupted"
        kids = children(proc.pid)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
        assert wait_for(lambda: not any(alive(k) for k in kids), timeout=30), "workers left running"
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err, out


@pytest.mark.slow
@pytest.mark.parametrize("sig, status, word", [(signal.SIGINT, 130, "interrupted (SIGINT)"),
                                                (signal.SIGTERM, 143, "terminated (SIGTERM)")])
def test_signal_exits_with_one_line_and_keeps_output(model_files, tmp_path, sig, status, word):
    code, err, out = _interrupt(model_files, tmp_path, sig)
    assert code == status
    assert word in one_line(err)
    assert out.read_text() == "old\n" and temp_files(tmp_path) == []


@pytest.mark.slow
def test_interrupted_parquet_leaves_no_file(model_files, tmp_path):
    code, err, out = _interrupt(model_files, tmp_path, signal.SIGINT, suffix=".parquet", jobs="1")
    assert code == 130 and "interrupted" in one_line(err)
    assert not out.exists() and temp_files(tmp_path) == []


# --- item 4: concurrent writers ------------------------------------------------------------

@pytest.mark.slow
def test_concurrent_predicts_end_with_one_complete_output(model_files, tmp_path):
    out = tmp_path / "shared.csv"
    a = start("predict", model_files["fit"], "--data", model_files["big"], "-o", out, "--chunksize", "20000",
              "--jobs", "1", "--quiet", "--type", "prob")
    b = start("predict", model_files["fit"], "--data", model_files["big"], "-o", out, "--chunksize", "20000",
              "--jobs", "1", "--quiet", "--type", "belief")
    for p in (a, b):
        p.communicate(timeout=600)
        assert p.returncode == 0
    result = pd.read_csv(out)
    assert len(result) == 300_000
    assert list(result.columns) in (["theta"], ["theta", "bel", "pl"])
    assert result.notna().all().all()
    assert temp_files(tmp_path) == []


# --- item 6: workers die with their parent -------------------------------------------------

@pytest.mark.slow
def test_predict_workers_die_with_killed_parent(model_files, tmp_path):
    out = tmp_path / "o.csv"
    proc = start("predict", model_files["fit"], "--data", model_files["big"], "-o", out, "--chunksize", "2000",
                 "--jobs", "2", "--quiet")
    kids: list[int] = []
    try:
        # a few chunks written: the workers are up and initialised
        assert wait_for(lambda: any(p.stat().st_size > 20_000 for p in temp_files(tmp_path)), timeout=300)
        kids = children(proc.pid)
        assert len(kids) >= 2  # two workers (and multiprocessing's resource tracker)
        proc.kill()
        proc.wait(30)
        gone = wait_for(lambda: not any(alive(k) for k in kids), timeout=60)
        survivors = [k for k in kids if alive(k)]
    finally:
        kill_all(kids)
        if proc.poll() is None:
            proc.kill()
    assert gone, f"worker processes {survivors} outlived their parent"
    assert not out.exists()  # SIGKILL: nothing renamed over the output (a hidden .part file may remain)


@pytest.mark.slow
def test_reproduce_workers_die_with_killed_parent(tmp_path):
    """``evstat reproduce STUDY --jobs 2`` killed with SIGKILL: its joblib (loky) workers end too,
    within a few seconds (they used to run on for hours, adopted by PID 1)."""
    out = tmp_path / "study"
    proc = start("reproduce", "minary2019", "--rounds", "4", "--datasets", "sonar", "--jobs", "2", "--quiet",
                 "--no-report", "--out", out)
    kids: list[int] = []
    try:
        # a unit finished and recorded: both workers have been handed units and are running them
        def recorded() -> bool:
            record = out / "completed.json"  # rewritten atomically: never seen half-written
            return record.is_file() and bool(json.loads(record.read_text())["units"])

        assert wait_for(lambda: recorded() or proc.poll() is not None, timeout=400)
        assert proc.poll() is None, proc.stderr.read().decode()
        kids = children(proc.pid)
        assert len(kids) >= 2, kids  # two loky workers (and joblib's resource tracker)
        proc.kill()
        proc.wait(30)
        gone = wait_for(lambda: not any(alive(k) for k in kids), timeout=15)
        survivors = [k for k in kids if alive(k)]
    finally:
        kill_all(kids)
        if proc.poll() is None:
            proc.kill()
    assert gone, f"worker processes {survivors} outlived their parent by 15 s"


def test_jobs_capped_by_processors(model_files, tmp_path):
    out = tmp_path / "o.csv"
    r = run("predict", model_files["fit"], "--data", model_files["small"], "-o", out, "--jobs", "1000", "--quiet")
    assert r.returncode == 0, r.stderr
    warn = r.stderr.decode()
    assert "--jobs 1000 lowered to" in warn and "Traceback" not in warn
    assert len(pd.read_csv(out)) == 2000
    r = run("predict", model_files["fit"], "--data", model_files["small"], "-o", out, "--jobs", "0", "--quiet")
    assert r.returncode == 2 and "--jobs must be a positive number" in one_line(r.stderr)
