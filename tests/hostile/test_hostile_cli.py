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
    assert f"model file {str(model_files['fit'])!r}: column 'x2' is not in --data file" in one_line(r.stderr)


# --- signed models from the command line (issue 23, item 11: fit.save(key=) / ev.load(key=)) ----

@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    """A model signed with a key, the same model unsigned, a forged copy (a coefficient changed and
    the checksum recomputed, as an attacker can) and key files."""
    import json

    import evstat as ev
    from evstat.formula.schema import checksum

    root = tmp_path_factory.mktemp("signed")
    cal = ev.datasets.simulate_gaussian(80, seed=4)
    fit = ev.evlogit("y ~ x1 + x2", data=cal)
    fit.save(root / "signed.json", key="a secret shared by the two labs")
    fit.save(root / "plain.json")
    d = json.loads((root / "signed.json").read_text())
    d["params"][1] = d["params"][1] * 2
    d.pop("signature")  # a forger without the key can only drop the signature, or keep it (below)
    d["checksum"] = checksum(d)
    (root / "forged.json").write_text(json.dumps(d))
    (root / "key.txt").write_text("a secret shared by the two labs\n")  # as `echo` writes it
    (root / "other.txt").write_text("another secret of the labs\n")
    (root / "empty.txt").write_text("")
    cal.to_csv(root / "x.csv", index=False)
    return root, fit.predict(cal, type="prob")


def _predict(root, model, *args):
    return run("predict", root / model, "--data", root / "x.csv", "-o", root / f"o_{model}.csv", "--jobs", "1",
               "--quiet", *args)


@pytest.mark.parametrize("how", [("--key-file", "key.txt"), ("--key", "a secret shared by the two labs")])
def test_signed_model_predicts_with_its_key(signed, how):
    root, expected = signed
    opt, value = how
    r = _predict(root, "signed.json", opt, root / value if opt == "--key-file" else value)
    assert r.returncode == 0, r.stderr
    got = pd.read_csv(root / "o_signed.json.csv")["theta"]
    assert got.to_numpy() == pytest.approx(expected.to_numpy(), rel=1e-12)


@pytest.mark.parametrize("model, key, words", [
    ("signed.json", "other.txt", "does not match the key"),
    ("forged.json", "key.txt", "not signed"),  # the forger could recompute the checksum, not a signature
    ("plain.json", "key.txt", "not signed"),
])
def test_unsigned_or_forged_model_refused_with_a_key(signed, model, key, words):
    root, _ = signed
    out = root / f"o_{model}.csv"
    out.write_text("old content\n")
    r = _predict(root, model, "--key-file", root / key)
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert line.startswith("evstat predict: error:") and model in line and words in line
    assert out.read_text() == "old content\n"  # nothing written


def test_forged_model_with_a_valid_signature_field_refused(signed, tmp_path):
    """A forged file that keeps the original's signature (only the content changed)."""
    import json

    from evstat.formula.schema import checksum

    root, _ = signed
    d = json.loads((root / "signed.json").read_text())
    d["params"][0] += 0.5
    d["checksum"] = checksum(d)
    (tmp_path / "forged.json").write_text(json.dumps(d))
    r = run("predict", tmp_path / "forged.json", "--data", root / "x.csv", "-o", tmp_path / "o.csv", "--jobs", "1",
            "--quiet", "--key-file", root / "key.txt")
    assert r.returncode == 2 and "does not match the key" in one_line(r.stderr)
    assert not (tmp_path / "o.csv").exists()


def test_key_options_bad_use(signed):
    root, _ = signed
    r = _predict(root, "signed.json", "--key-file", root / "empty.txt")
    assert r.returncode == 2 and "is empty" in one_line(r.stderr)
    r = _predict(root, "signed.json", "--key-file", root / "absent.txt")
    assert r.returncode == 2 and "cannot read --key-file" in one_line(r.stderr) and "absent.txt" in r.stderr.decode()
    r = _predict(root, "signed.json", "--key", "")
    assert r.returncode == 2 and "--key is empty" in one_line(r.stderr)
    r = _predict(root, "signed.json", "--key", "x", "--key-file", root / "key.txt")
    assert r.returncode == 2 and "not allowed with argument" in r.stderr.decode()
    before = (root / "key.txt").read_bytes()
    r = run("predict", root / "signed.json", "--data", root / "x.csv", "-o", root / "key.txt", "--jobs", "1",
            "--key-file", root / "key.txt")
    assert r.returncode == 2 and "is the same file as --key-file" in one_line(r.stderr)
    assert (root / "key.txt").read_bytes() == before
