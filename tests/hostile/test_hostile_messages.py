"""Messages (issue 41, item 6): one line naming the option or file and the fix, no traceback.
Each case runs the real ``evstat`` command."""

from __future__ import annotations

import subprocess

import pytest

import evstat as ev

from hostile_helpers import ROOT, env, evstat_cmd, one_line, run


def _limited(*args, fsize: int) -> subprocess.CompletedProcess:
    """The command with files limited to ``fsize`` bytes (RLIMIT_FSIZE: writing more fails with
    EFBIG, "File too large", as a full disk fails with ENOSPC; Python ignores SIGXFSZ)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(evstat_cmd(*args), capture_output=True, env=env(), cwd=ROOT, timeout=600, preexec_fn=limit)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("messages")
    cal = ev.datasets.simulate_gaussian(80, seed=4)
    ev.evlogit("y ~ x1 + x2", data=cal).save(root / "fit.json")
    cal.to_csv(root / "x.csv", index=False)
    cal.assign(theta=0.5).to_csv(root / "theta.csv", index=False)
    return root


@pytest.mark.parametrize("encoding,says", [("rot13", "is not a text encoding (the rot-13 codec"),
                                           ("base64", "is not a text encoding"),
                                           ("no-such-codec", "is not a known text encoding")])
def test_encoding_that_cannot_decode_is_one_line(files, tmp_path, encoding, says):
    for args in (("predict", files / "fit.json", "--data", files / "x.csv", "-o", tmp_path / "o.csv", "--quiet"),
                 ("report", "y ~ x1", "--data", files / "x.csv", "-o", tmp_path / "r.html")):
        r = run(*args, "--encoding", encoding)  # before issue 41: LookupError's traceback
        line = one_line(r.stderr)
        assert r.returncode == 2 and f"--encoding {encoding!r} {says}" in line and "utf-8" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("type_,jobs", [("prob", "1"), ("belief", "2")])
def test_keep_of_an_output_column_is_an_evstat_message(files, tmp_path, type_, jobs):
    r = run("predict", files / "fit.json", "--data", files / "theta.csv", "-o", tmp_path / "o.csv", "--keep", "theta",
            "--type", type_, "--jobs", jobs, "--chunksize", "20", "--quiet")
    line = one_line(r.stderr)  # before: pandas' "cannot insert theta, already exists"
    assert r.returncode == 2 and f"--keep 'theta' is also a column of the output of --type {type_}" in line
    assert "rename that input column, or leave it out of --keep" in line
    assert not (tmp_path / "o.csv").exists()


def test_full_output_names_the_file_and_keeps_the_old_one(files, tmp_path):
    pytest.importorskip("resource")
    big = tmp_path / "big.csv"
    ev.datasets.simulate_gaussian(3000, seed=4).to_csv(big, index=False)
    out = tmp_path / "o.csv"
    out.write_text("old\n")
    r = _limited("predict", files / "fit.json", "--data", big, "-o", out, "--quiet", "--jobs", "1", fsize=20_000)
    line = one_line(r.stderr)  # before issue 41: "[Errno 27] File too large", no path
    assert r.returncode == 2 and f"cannot write '{out}': File too large (errno 27)" in line and "write it elsewhere" in line
    assert out.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["big.csv", "o.csv"]


def test_failed_study_leaves_no_empty_folder(tmp_path):
    pytest.importorskip("resource")
    out = tmp_path / "s"
    r = _limited("reproduce", "ramel2018", "--rounds", "1", "--datasets", "sonar", "--no-report", "--quiet",
                 "--out", out, fsize=100)
    line = one_line(r.stderr)
    assert r.returncode == 2 and f"cannot write '{out}/" in line and "File too large" in line
    assert not out.exists()  # before issue 41: an empty study folder was left behind
