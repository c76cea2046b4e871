"""Clear command-line messages (issue 23, items 9 and 14), through the real ``evstat`` command.

A Latin-1 file names the file and suggests ``--encoding latin-1``; a non-numeric cell is quoted
with its row and column; ``--keep`` with an unknown column names it and lists the columns;
``evstat predict --data -`` reads standard input as ``evstat report`` does; predict refuses
duplicate headers as report does (one shared reader, ``evstat.io.tables``); every error exits 2
with one line.
"""

from __future__ import annotations

import pandas as pd
import pytest

from hostile_helpers import one_line, run


@pytest.fixture(scope="module")
def latin1(model_files, tmp_path_factory):
    p = tmp_path_factory.mktemp("latin") / "latin.csv"
    text = model_files["small"].read_text().replace("id,x1,x2", "id,x1,x2,caf\u00e9", 1)
    lines = text.splitlines()
    p.write_bytes(("\n".join([lines[0]] + [ln + ",\u00e9t\u00e9" for ln in lines[1:]]) + "\n").encode("latin-1"))
    return p


def test_latin1_file_named_with_the_fix(model_files, latin1, tmp_path):
    r = run("predict", model_files["fit"], "--data", latin1, "-o", tmp_path / "o.csv", "--quiet", "--jobs", "1")
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert "latin.csv" in line and "not utf-8 text" in line and "--encoding latin-1" in line
    r = run("predict", model_files["fit"], "--data", latin1, "-o", tmp_path / "o.csv", "--quiet", "--jobs", "1",
            "--encoding", "latin-1", "--keep", "caf\u00e9")
    assert r.returncode == 0, r.stderr
    assert pd.read_csv(tmp_path / "o.csv")["caf\u00e9"].iloc[0] == "\u00e9t\u00e9"


def test_report_latin1_and_encoding_option(latin1, tmp_path):
    r = run("report", "x2 ~ x1", "--data", latin1, "-o", tmp_path / "r.html")
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert "latin.csv" in line and "--encoding latin-1" in line


def test_non_numeric_cell_quoted_with_row_and_column(model_files, tmp_path):
    r = run("predict", model_files["fit"], "--data", model_files["bad"], "-o", tmp_path / "o.csv", "--quiet",
            "--jobs", "1", "--chunksize", "1000")
    assert r.returncode == 2
    line = one_line(r.stderr)
    # bad.csv: row index 5990 (data row 5991, line 5992 of the file) holds 'oops' in column x2
    assert "column 'x2' has a non-numeric cell 'oops' in data row 5991 (line 5992 of the file)" in line


def test_report_non_numeric_cell_quoted(tmp_path):
    import evstat as ev

    d = ev.datasets.load("sonar_scores")
    cal = d[d["set"] == "calibration"].astype({"svm2": object}).reset_index(drop=True)
    cal.loc[7, "svm2"] = "n/a?"
    cal.to_csv(tmp_path / "cal.csv", index=False)
    r = run("report", "y ~ svm1 + svm2", "--data", tmp_path / "cal.csv", "-o", tmp_path / "r.html")
    assert r.returncode == 2
    assert "column 'svm2' has a non-numeric cell 'n/a?' in data row 8 (line 9 of the file)" in one_line(r.stderr)


def test_keep_unknown_column_listed(model_files, tmp_path):
    r = run("predict", model_files["fit"], "--data", model_files["small"], "-o", tmp_path / "o.csv", "--quiet",
            "--keep", "id", "nonexistent_col")
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert "--keep: column 'nonexistent_col' is not in --data file" in line and "its columns are 'id', 'x1', 'x2'" in line


def test_predict_reads_standard_input(model_files, tmp_path):
    out = tmp_path / "o.csv"
    r = run("predict", model_files["fit"], "--data", "-", "-o", out, "--quiet", "--jobs", "1", "--keep", "id",
            stdin=model_files["small"].read_text())
    assert r.returncode == 0, r.stderr
    got = pd.read_csv(out)
    assert list(got.columns) == ["id", "theta"] and got["id"].tolist() == list(range(2000))


def test_predict_refuses_duplicate_headers_as_report_does(model_files, tmp_path):
    text = model_files["small"].read_text().replace("id,x1,x2", "x1,x1,x2", 1)
    (tmp_path / "dup.csv").write_text(text)
    r = run("predict", model_files["fit"], "--data", tmp_path / "dup.csv", "-o", tmp_path / "o.csv", "--quiet")
    assert r.returncode == 2
    assert "has duplicate column names ['x1']" in one_line(r.stderr)
    r = run("report", "x2 ~ x1", "--data", tmp_path / "dup.csv", "-o", tmp_path / "r.html")
    assert r.returncode == 2 and "has duplicate column names ['x1']" in one_line(r.stderr)


def test_missing_score_column_named(model_files, tmp_path):
    pd.read_csv(model_files["small"]).drop(columns="x2").to_csv(tmp_path / "no_x2.csv", index=False)
    r = run("predict", model_files["fit"], "--data", tmp_path / "no_x2.csv", "-o", tmp_path / "o.csv", "--quiet")
    assert r.returncode == 2
    assert "MODEL.json needs: column 'x2' is not in --data file" in one_line(r.stderr)
