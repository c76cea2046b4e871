"""Two command-line messages of issue 39 (item 6), each from the real command in a subprocess:
``evstat predict`` names the model file it read (not the placeholder MODEL.json), and a file that
is not a CSV table (a saved model given as --data) is called that, not read as a column '{'."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import evstat as ev

ROOT = Path(__file__).resolve().parents[1]


def evstat(*args, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EVSTAT_KERNELS": "numpy"}
    return subprocess.run([sys.executable, "-m", "evstat", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("messages")
    cal = pd.read_csv(ROOT / "data" / "sonar_scores.csv")
    ev.evlogit("y ~ svm1 + svm2 + svm3", data=cal).save(d / "sonar-model.json")
    cal.drop(columns="svm3").to_csv(d / "no-svm3.csv", index=False)
    return d


def test_predict_names_the_model_file(files):
    run = evstat("predict", "sonar-model.json", "--data", "no-svm3.csv", "-o", "out.csv", cwd=files)
    assert run.returncode != 0
    err = run.stderr.strip().splitlines()[-1]
    assert "MODEL.json" not in err
    assert err == ("evstat predict: error: model file 'sonar-model.json': column 'svm3' is not in --data "
                   "file 'no-svm3.csv'; its columns are 'row', 'svm1', 'svm2', 'y', 'label', 'set'")


@pytest.mark.parametrize("command", ["report", "predict"])
def test_a_json_file_as_data_is_not_a_csv_file(files, command):
    args = (["report", "y ~ svm1", "--data", "sonar-model.json", "-o", "r.html"] if command == "report"
            else ["predict", "sonar-model.json", "--data", "sonar-model.json", "-o", "out.csv"])
    run = evstat(*args, cwd=files)
    assert run.returncode != 0
    err = run.stderr.strip().splitlines()[-1]
    assert "available columns" not in err and "'{'" not in err
    assert f"evstat {command}: error: --data file 'sonar-model.json' is not a CSV file: it is JSON" in err
    assert "evstat predict MODEL.json --data ROWS.csv" in err


def test_a_spreadsheet_as_data_is_not_a_csv_file(files):
    (files / "book.xlsx").write_bytes(b"PK\x03\x04" + bytes(60))
    run = evstat("report", "y ~ svm1", "--data", "book.xlsx", "-o", "r.html", cwd=files)
    assert "--data file 'book.xlsx' is not a CSV file: it is a ZIP archive (an Excel .xlsx workbook?)" in run.stderr
