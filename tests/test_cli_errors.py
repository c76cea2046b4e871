"""The command line keeps "one-line errors, exit status 2" (issue 9, section 4).

Column names with spaces, --grid bounds, duplicate headers, other separators, standard input and
pipes, `evstat reproduce` without the experiments extra, single-score methods with several scores,
and error advice that the command line can follow.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from pathlib import Path

import pytest

import evstat as ev
from evstat import cli
from evstat.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = ev.datasets.load("sonar_scores")
    cal = d[d["set"] == "calibration"]
    root = tmp_path_factory.mktemp("clierr")
    f = {name: root / f"{name}.csv" for name in ("cal", "space", "dup", "semi", "tab", "missing")}
    cal.to_csv(f["cal"], index=False)
    cal.rename(columns={"svm1": "svm 1"}).to_csv(f["space"], index=False)
    text = f["cal"].read_text()
    header, rest = text.split("\n", 1)
    f["dup"].write_text(header.replace("svm2", "svm1") + "\n" + rest)
    cal.to_csv(f["semi"], index=False, sep=";")
    cal.to_csv(f["tab"], index=False, sep="\t")
    cal.assign(svm2=cal["svm2"].where(cal.index != cal.index[3])).to_csv(f["missing"], index=False)
    return f


def run(capsys, args):
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_column_name_with_space(capsys, files, tmp_path):
    status, _, err = run(capsys, ["report", "y ~ svm 1", "--data", files["space"], "-o", tmp_path / "r.html"])
    assert status == 2
    line = one_line(err)
    assert line.startswith("evstat report: error: 'svm 1' in formula 'y ~ svm 1' is a column name")
    assert 'quote it as Q("svm 1")' in line
    status, out, _ = run(capsys, ["report", 'y ~ Q("svm 1")', "--data", files["space"], "--grid", 5, "-o", tmp_path / "r.html"])
    assert status == 0 and "wrote" in out


def test_code_in_a_formula_is_refused_and_not_run(capsys, files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    formula = "y ~ I(svm2 + 0*__import__('os').system('touch PWNED'))"
    status, _, err = run(capsys, ["report", formula, "--data", files["cal"], "-o", tmp_path / "r.html"])
    assert status == 2
    assert "is not allowed" in one_line(err)
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("grid", [cli.MAX_GRID + 1, 20_000, 100_000])
def test_grid_is_bounded(capsys, files, tmp_path, grid):
    status, _, err = run(capsys, ["report", "y ~ svm1", "--data", files["cal"], "--grid", grid, "-o", tmp_path / "r.html"])
    assert status == 2
    line = one_line(err)
    assert f"--grid {grid} is too large" in line and f"use at most {cli.MAX_GRID}" in line
    status, out, _ = run(capsys, ["report", "--help"])
    assert status == 0 and f"at most {cli.MAX_GRID}" in " ".join(out.split())


def test_duplicate_headers_are_refused(capsys, files, tmp_path):
    status, _, err = run(capsys, ["report", "y ~ svm1", "--data", files["dup"], "-o", tmp_path / "r.html"])
    assert status == 2
    line = one_line(err)
    assert "has duplicate column names ['svm1']" in line and "'svm1.1'" in line and "must be unique" in line


@pytest.mark.parametrize("kind,sep,shown", [("semi", ";", "';'"), ("tab", "tab", "tab")])
def test_other_separators(capsys, files, tmp_path, kind, sep, shown):
    status, _, err = run(capsys, ["report", "y ~ svm1", "--data", files[kind], "-o", tmp_path / "r.html"])
    assert status == 2
    line = one_line(err)
    assert "reads as a single column" in line and f"pass --sep {shown}" in line
    status, out, _ = run(capsys, ["report", "y ~ svm1", "--data", files[kind], "--sep", sep, "--grid", 5, "-o", tmp_path / "r.html"])
    assert status == 0 and "wrote" in out
    status, _, err = run(capsys, ["report", "y ~ svm1", "--data", files[kind], "--sep", ";;", "-o", tmp_path / "r.html"])
    assert status == 2 and "--sep must be one character" in one_line(err)


def test_standard_input(capsys, files, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO(files["cal"].read_text()))
    out_html = tmp_path / "r.html"
    status, out, _ = run(capsys, ["report", "y ~ svm1", "--data", "-", "--grid", 5, "--date", "2024-01-01", "-o", out_html])
    assert status == 0 and "wrote" in out
    assert "--data standard input (79 rows" in out_html.read_text()
    status, _, err = run(capsys, ["report", "y ~ svm1", "--data", "-", "--newdata", "-", "-o", out_html])
    assert status == 2 and "cannot both read standard input" in one_line(err)


def test_named_pipe(capsys, files, tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this platform")
    fifo = tmp_path / "cal_pipe"
    os.mkfifo(fifo)
    text = files["cal"].read_text()

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as fh:
            fh.write(text)

    t = threading.Thread(target=feed)
    t.start()
    status, out, err = run(capsys, ["report", "y ~ svm1", "--data", fifo, "--grid", 5, "-o", tmp_path / "r.html"])
    t.join()
    assert status == 0, err
    assert "wrote" in out


def test_reproduce_without_the_experiments_extra(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "joblib", None)  # import joblib now raises ImportError
    status, _, err = run(capsys, ["reproduce", "minary2019", "--rounds", 1, "--out", tmp_path / "o"])
    assert status == 2
    line = one_line(err)
    assert line.startswith("evstat reproduce: error: needs ") and "joblib" in line  # (scikit-learn imports joblib)
    assert 'pip install "evstat[experiments]"' in line
    assert not (tmp_path / "o").exists()
    status, out, _ = run(capsys, ["--help"])
    assert status == 0 and 'pip install "evstat[experiments]"' in out
    status, out, _ = run(capsys, ["reproduce", "--help"])
    assert status == 0 and 'pip install "evstat[experiments]"' in " ".join(out.split())


def test_single_score_methods_are_skipped_with_a_warning(capsys, files, tmp_path):
    out_html = tmp_path / "r.html"
    status, out, err = run(capsys, ["report", "y ~ svm1 + svm2", "--data", files["cal"], "--method", "evlogit", "isotonic",
                                    "betacal", "--grid", 5, "-o", out_html])
    assert status == 0, err
    assert "evstat: warning: --method isotonic skipped: isotonic calibrates one score" in err
    assert "evstat: warning: --method betacal skipped" in err
    html = out_html.read_text()
    assert "Warning: --method isotonic skipped" in html and "--method disjoint --disjoint-base isotonic" in html
    # only single-score methods: nothing to report, one line with status 2
    status, _, err = run(capsys, ["report", "y ~ svm1 + svm2", "--data", files["cal"], "--method", "isotonic", "-o", out_html])
    assert status == 2
    line = one_line(err)
    assert "--method isotonic: isotonic calibrates one score" in line and "--disjoint-base isotonic" in line
    # the suggestion works
    status, out, err = run(capsys, ["report", "y ~ svm1 + svm2", "--data", files["cal"], "--method", "disjoint",
                                    "--disjoint-base", "isotonic", "--grid", 5, "-o", out_html])
    assert status == 0, err
    status, _, err = run(capsys, ["report", "y ~ svm1", "--data", files["cal"], "--disjoint-base", "isotonic", "-o", out_html])
    assert status == 2 and "applies to --method disjoint" in one_line(err)


def test_error_advice_is_a_command_line_option(capsys, files, tmp_path):
    out_html = tmp_path / "r.html"
    status, _, err = run(capsys, ["report", "y ~ svm1 + svm2", "--data", files["missing"], "-o", out_html])
    assert status == 2
    line = one_line(err)
    assert "has missing values in 1 row" in line and "pass --missing drop" in line and "missing='drop'" not in line
    status, out, err = run(capsys, ["report", "y ~ svm1 + svm2", "--data", files["missing"], "--missing", "drop",
                                    "--grid", 5, "-o", out_html])
    assert status == 0, err
    status, _, err = run(capsys, ["report", "label ~ svm1", "--data", files["cal"], "--positive", "Z", "-o", out_html])
    assert status == 2
    line = one_line(err)
    assert "--positive 'Z' is not a level" in line and "positive=" not in line


def test_advice_rewriting():
    text = ("fit one score, e.g. 'y ~ svm1', or use ev.disjoint(..., method='isotonic') to calibrate each "
            "column; drop or impute them, or pass missing='drop'")
    new = cli._cli_advice(text)
    assert "ev." not in new and "missing='drop'" not in new
    assert "--method disjoint --disjoint-base isotonic" in new and "--missing drop" in new
