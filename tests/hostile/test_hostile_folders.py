"""Nothing written outside, nothing counted twice (issue 41, items 1 and 2): study folders that
cannot reach outside (symbolic links, named pipes), one writer per folder (the lock), a record
bound to the settings that determine the rows.

The study cases run the real ``evstat reproduce ramel2018 --rounds 1 --datasets sonar
--no-report`` command (about 13 s once for the module; a resume takes about 2 s), as the issue's
findings did.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pandas as pd
import pytest

from evstat.experiments.store import LOCK, RECORD, SettingsMismatchError, Store, StudyBusyError, folder_lock, study_folder
from evstat.io.atomic import UnsafePathError, check_folder, confined, open_append, read_regular, write_text

from hostile_helpers import one_line, run, start, wait_for

STUDY = ("reproduce", "ramel2018", "--rounds", "1", "--datasets", "sonar", "--no-report", "--quiet")

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes and flock: POSIX only")


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def done(tmp_path_factory) -> Path:
    """A complete ramel2018 folder written by the real command."""
    out = tmp_path_factory.mktemp("study") / "s"
    r = run(*STUDY, "--out", out)
    assert r.returncode == 0, r.stderr.decode()
    return out


@pytest.fixture
def study(done, tmp_path) -> Path:
    out = tmp_path / "s"
    shutil.copytree(done, out)
    return out


# --- item 1: nothing written or read through a link, no special file opened -----------------

@pytest.mark.parametrize("name", ["exp2_history.csv", "claims.csv", RECORD])
def test_link_in_study_folder_is_refused_and_the_file_elsewhere_kept(study, tmp_path, name):
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("precious\n")
    (study / name).unlink()
    (study / name).symlink_to(elsewhere)
    before = _files(study)
    r = run(*STUDY, "--out", study)
    line = one_line(r.stderr)
    assert r.returncode == 2, r.stderr.decode()
    assert f"{name}' is a symbolic link to '{elsewhere}'" in line and "remove the link" in line
    assert elsewhere.read_text() == "precious\n"  # before issue 41: overwritten, exit 0
    assert (study / name).is_symlink() and _files(study).keys() == before.keys()


def test_linked_subfolder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "s"
    out.mkdir()
    (out / ".units").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePathError, match=r"\.units' is a symbolic link"):
        check_folder(out)


def test_out_folder_itself_may_be_a_link(done, tmp_path):
    real = tmp_path / "real"
    shutil.copytree(done, real)
    (tmp_path / "latest").symlink_to(real, target_is_directory=True)
    r = run(*STUDY, "--out", tmp_path / "latest")
    assert r.returncode == 0, r.stderr.decode()


def test_fifo_in_study_folder_is_refused_without_blocking(study):
    (study / "exp2_history.csv").unlink()
    os.mkfifo(study / "exp2_history.csv")
    t = time.monotonic()
    r = run(*STUDY, "--out", study, timeout=60)  # before issue 41: blocked in open for ever
    assert r.returncode == 2 and time.monotonic() - t < 60
    assert "exp2_history.csv' is a named pipe (FIFO)" in one_line(r.stderr)


def test_confined_writes_refuse_links_planted_during_a_run(tmp_path):
    out = tmp_path / "s"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_text("precious\n")
    with confined(out):
        write_text(out / "a.csv", "x\n")  # a regular file: written
        (out / "b.csv").symlink_to(elsewhere)
        with pytest.raises(UnsafePathError, match="b.csv' is a symbolic link"):
            write_text(out / "b.csv", "x\n")
        with pytest.raises(UnsafePathError, match="symbolic link"):
            open_append(out / "b.csv")
        with pytest.raises(UnsafePathError, match="symbolic link"):
            read_regular(out / "b.csv")
        os.mkfifo(out / "c.csv")
        with pytest.raises(UnsafePathError, match="named pipe"):
            write_text(out / "c.csv", "x\n")
        with pytest.raises(UnsafePathError, match="named pipe"):
            open_append(out / "c.csv")  # no reader: refused at once, never blocks
        with pytest.raises(UnsafePathError, match="named pipe"):
            read_regular(out / "c.csv")  # no writer: refused at once
    assert elsewhere.read_text() == "precious\n"
    write_text(out / "b.csv", "new\n")  # outside a study, a link given as an output is followed
    assert elsewhere.read_text() == "new\n" and (out / "b.csv").is_symlink()


def test_fifo_output_without_reader_is_refused_at_once(model_files, tmp_path):
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    t = time.monotonic()
    r = run("predict", model_files["fit"], "--data", model_files["small"], "-o", fifo, "--jobs", "1", "--quiet",
            timeout=60)  # before issue 41: blocked in open, deaf to SIGINT and SIGTERM
    assert r.returncode == 2 and time.monotonic() - t < 60
    line = one_line(r.stderr)
    assert f"cannot write '{fifo}': it is a named pipe (FIFO) that no process reads" in line


def test_fifo_output_with_a_reader_is_written(model_files, tmp_path):
    import select

    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader (-o >(gzip > out.gz), -o /dev/stdout | head)
    chunks = []
    p = start("predict", model_files["fit"], "--data", model_files["small"], "-o", fifo, "--jobs", "1", "--quiet")
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end:
            if select.select([rfd], [], [], 0.2)[0]:
                chunk = os.read(rfd, 65536)
                if chunk:
                    chunks.append(chunk)
                    continue
                if chunks or p.poll() is not None:  # end of file: the writer closed the pipe
                    break
                time.sleep(0.05)
            elif p.poll() is not None:
                break
        _, err = p.communicate(timeout=60)
    finally:
        os.close(rfd)
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err.decode()
    assert len(b"".join(chunks).decode().splitlines()) == 2001


def test_dangling_link_as_output_names_the_link(model_files, tmp_path):
    link = tmp_path / "out.csv"
    link.symlink_to(tmp_path / "gone" / "out.csv")
    r = run("predict", model_files["fit"], "--data", model_files["small"], "-o", link, "--jobs", "1", "--quiet")
    line = one_line(r.stderr)
    assert r.returncode == 2 and f"'{link}': it is a symbolic link to '{tmp_path / 'gone' / 'out.csv'}'" in line


# --- item 2: one writer per folder -----------------------------------------------------------

def test_second_concurrent_run_is_refused_and_wait_waits(tmp_path):
    out = tmp_path / "s"
    first = start(*STUDY, "--out", out)  # about 13 s of work: the others start meanwhile
    waiter = None
    try:
        assert wait_for(lambda: (out / LOCK).exists(), 60)
        waiter = start(*STUDY, "--wait", "--out", out)
        r = run(*STUDY, "--out", out)
        line = one_line(r.stderr)
        assert r.returncode == 2 and f"is in use by another run (pid {first.pid} on host" in line and "--wait" in line
        assert first.wait(timeout=300) == 0
        _, err = waiter.communicate(timeout=300)
    finally:
        for p in (first, waiter):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
    assert waiter.returncode == 0, err.decode()
    assert "waiting for it to end" in err.decode()
    hist = pd.read_csv(out / "exp2_history.csv")
    assert not hist.duplicated(["dataset", "round", "strategy", "queries"]).any()  # before: 178 rows, not 89
    assert not (out / LOCK).exists()


def test_lock_of_a_killed_run_is_taken_over(study):
    (study / LOCK).write_text(json.dumps({"pid": 999999, "host": "gone", "started": "yesterday"}) + "\n")
    r = run(*STUDY, "--out", study)
    assert r.returncode == 0, r.stderr.decode()
    assert "took over the lock of a run that ended without releasing it (pid 999999 on host gone" in r.stderr.decode()
    assert not (study / LOCK).exists()


def test_lock_in_process(tmp_path):
    with study_folder(tmp_path):
        holder = json.loads((tmp_path / LOCK).read_text())
        assert holder["pid"] == os.getpid()
        with pytest.raises(StudyBusyError, match="is in use by another run"):
            with folder_lock(tmp_path):
                pass
        with study_folder(tmp_path):  # the same process again (command line around the study): held once
            pass
    assert not (tmp_path / LOCK).exists()


# --- item 2: the record is bound to the settings that determine the rows ----------------------

def test_edited_settings_with_another_seed_are_refused(study):
    before = _files(study)
    settings = json.loads((study / "settings.json").read_text())
    (study / "settings.json").write_text(json.dumps({**settings, "seed": 7}))
    r = run(*STUDY, "--seed", "7", "--out", study)  # before issue 41: the seed-2019 rows reused, exit 0
    line = one_line(r.stderr)
    assert r.returncode == 2 and "records rows computed with other settings" in line and "seed: 2019 there, 7 now" in line
    (study / "settings.json").unlink()
    r = run(*STUDY, "--seed", "7", "--out", study)
    assert r.returncode == 2 and "seed: 2019 there, 7 now" in one_line(r.stderr)
    assert {k: v for k, v in _files(study).items() if k != "settings.json"} == {
        k: v for k, v in before.items() if k != "settings.json"}


def test_corrupt_settings_resume_from_the_bound_record(study):
    hist = (study / "exp2_history.csv").read_bytes()
    (study / "settings.json").write_text('{"seed": 2019, ')
    r = run(*STUDY, "--out", study)
    assert r.returncode == 0 and "Traceback" not in r.stderr.decode(), r.stderr.decode()
    assert (study / "exp2_history.csv").read_bytes() == hist
    assert json.loads((study / "settings.json").read_text())["seed"] == 2019


@pytest.mark.parametrize("text", ["[" * 200_000, '{"units": {}, "units": {}}', "{" * 50 + "}" * 50])
def test_record_deep_or_with_duplicate_keys_trusts_nothing(tmp_path, text):
    (tmp_path / RECORD).write_text(text)
    s = Store(tmp_path, settings={"seed": 1})  # no RecursionError, no traceback: recompute
    assert s.units == {} and not s.bound and not s.legacy


def test_record_bound_to_other_settings_is_refused(tmp_path):
    s = Store(tmp_path, settings={"seed": 1, "datasets": ("sonar",)})
    s.mark("u", pd.DataFrame({"k": [1]}), ["k"], ["k"])
    assert Store(tmp_path, settings={"seed": 1, "datasets": ["sonar"]}).bound
    assert Store(tmp_path).units  # read without settings: the record keeps them
    Store(tmp_path).save()
    with pytest.raises(SettingsMismatchError, match="seed: 1 there, 2 now"):
        Store(tmp_path, settings={"seed": 2, "datasets": ["sonar"]})


def test_evmultinom_stamp_edited_to_another_seed_is_refused(tmp_path, monkeypatch):
    import numpy as np

    import evstat.experiments.evmultinom as em

    def unit(dataset, rnd, seed):
        n = np.arange(3) * 10 + 10
        return (pd.DataFrame({"dataset": dataset, "round": rnd, "n_cal": n, "error": 0.1 * seed % 1}),
                pd.DataFrame({"dataset": dataset, "round": rnd, "n_cal": n, "curve": 0.5}))

    monkeypatch.setattr(em, "unit", unit)
    monkeypatch.setattr(em, "markdown_tables", lambda out: "tables\n")
    monkeypatch.setattr(em, "figures", lambda out: None)
    out = tmp_path / "run"
    em.run_evmultinom(out, rounds=1, datasets=["iris"], quiet=True)
    (out / ".units" / "seed.txt").write_text("seed 7\n")  # before issue 41: seed 7 reused seed 2019's units
    with pytest.raises(SettingsMismatchError, match="seed: 2019 there, 7 now"):
        em.run_evmultinom(out, rounds=1, datasets=["iris"], quiet=True, seed=7)
    assert (out / ".units" / "seed.txt").read_text() == "seed 7\n"  # refused before anything was written


def test_examples(doctests):
    doctests("evstat.experiments.store", min_examples=8)
